"""Short names for selectors and classifiers, as ``kgfs select`` / ``kgfs evaluate`` accept them.

Each selector module registers its methods when imported::

    register_selector("shsel-ig-prune", lambda hierarchy, **kw: SHSEL(hierarchy, ...),
                      kind="eager", description="...")

Lookups import the known selector modules on first use, so the registry is complete without
importing everything at start-up.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field

from kg.errors import KgfsError

__all__ = [
    "Entry",
    "register_selector",
    "register_classifier",
    "get_selector",
    "get_classifier",
    "selector_entry",
    "classifier_entry",
    "available_selectors",
    "available_classifiers",
]

# The packages whose modules register selectors or classifiers when imported (each package's
# ``__init__`` imports its registering modules).
_MODULES = (
    "selection.hierarchical",
    "selection.lazy",
    "selection.flat",
    "selection.classifiers",
    "selection.class_hierarchy",
    "selection.adhoc",
)


@dataclass(frozen=True)
class Entry:
    """A registered method: its factory, kind and a one-line description.

    Parameters
    ----------
    name : str
    factory : callable
        ``factory(hierarchy, **params)`` for selectors, ``factory(**params)`` for classifiers.
    kind : {"eager", "lazy", "flat", "classifier"}
        ``"eager"``: one feature subset for all instances (``get_support``); ``"lazy"``: a
        subset per test instance (``select_for``; not a transformer, see
        :mod:`selection.lazy.selectors`); ``"flat"``: ignores the hierarchy.
    description : str
    defaults : dict
        The parameters the factory applies when not given.
    threshold_grid : tuple or None
        Set for methods whose threshold the protocols sweep.

    Examples
    --------
    >>> selector_entry("rpv").kind, selector_entry("complete").kind
    ('lazy', 'eager')
    """

    name: str
    factory: Callable
    kind: str
    description: str = ""
    defaults: dict = field(default_factory=dict)
    threshold_grid: tuple | None = None


_SELECTORS: dict[str, Entry] = {}
_CLASSIFIERS: dict[str, Entry] = {}
_loaded = False


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for mod in _MODULES:
        importlib.import_module(mod)


def register_selector(
    name: str,
    factory: Callable,
    *,
    kind: str = "eager",
    description: str = "",
    defaults: dict | None = None,
    threshold_grid: tuple | None = None,
) -> None:
    """Register ``factory(hierarchy, **params) -> selector`` under ``name``.

    Parameters
    ----------
    name : str
    factory : callable
    kind : {"eager", "lazy", "flat"}
    description : str
    defaults : dict, optional
    threshold_grid : tuple, optional
        See :class:`Entry`.

    Returns
    -------
    None

    Examples
    --------
    >>> from selection.hierarchical import CompleteFS
    >>> register_selector("example-all", lambda hierarchy=None, **kw: CompleteFS(hierarchy, **kw))
    >>> get_selector("example-all")
    CompleteFS()
    >>> del _SELECTORS["example-all"]  # leave the registry as it was
    """
    if kind not in ("eager", "lazy", "flat"):
        raise ValueError(f"selector kind must be eager, lazy or flat, got {kind!r}")
    _SELECTORS[name] = Entry(name, factory, kind, description, dict(defaults or {}), threshold_grid)


def register_classifier(name: str, factory: Callable, *, description: str = "", defaults: dict | None = None) -> None:
    """Register ``factory(**params) -> classifier`` under ``name``.

    Parameters
    ----------
    name : str
    factory : callable
    description : str
    defaults : dict, optional
        See :class:`Entry`.

    Returns
    -------
    None

    Examples
    --------
    >>> from sklearn.naive_bayes import BernoulliNB
    >>> register_classifier("example-bnb", lambda **kw: BernoulliNB(**kw))
    >>> get_classifier("example-bnb", alpha=0.5)
    BernoulliNB(alpha=0.5)
    >>> del _CLASSIFIERS["example-bnb"]  # leave the registry as it was
    """
    _CLASSIFIERS[name] = Entry(name, factory, "classifier", description, dict(defaults or {}))


def _lookup(table: dict[str, Entry], name: str, what: str) -> Entry:
    _load()
    try:
        return table[name]
    except KeyError:
        raise KgfsError(
            f"unknown {what} {name!r}; available: {', '.join(sorted(table)) or '(none)'}"
        ) from None


def selector_entry(name: str) -> Entry:
    """The registry entry of selector ``name`` (a :class:`KgfsError` lists the known ones).

    Parameters
    ----------
    name : str

    Returns
    -------
    Entry

    Examples
    --------
    >>> selector_entry("shsel-ig-prune").threshold_grid is not None
    True
    """
    return _lookup(_SELECTORS, name, "selector")


def classifier_entry(name: str) -> Entry:
    """The registry entry of classifier ``name`` (a :class:`KgfsError` lists the known ones).

    Parameters
    ----------
    name : str

    Returns
    -------
    Entry

    Examples
    --------
    >>> classifier_entry("nb").kind
    'classifier'
    """
    return _lookup(_CLASSIFIERS, name, "classifier")


def get_selector(name: str, hierarchy=None, **params):
    """A new, unfitted selector registered as ``name`` over ``hierarchy``.

    Parameters
    ----------
    name : str
    hierarchy : FeatureHierarchy or None
    **params
        Constructor parameters.

    Returns
    -------
    estimator

    Examples
    --------
    >>> get_selector("rpv-ig")
    RPV(relevance='ig')
    """
    return selector_entry(name).factory(hierarchy, **params)


def get_classifier(name: str, **params):
    """A new, unfitted classifier registered as ``name``.

    Parameters
    ----------
    name : str
    **params
        Constructor parameters.

    Returns
    -------
    estimator

    Examples
    --------
    >>> get_classifier("lazy-1nn")
    LazyKNN()
    """
    return classifier_entry(name).factory(**params)


def available_selectors() -> dict[str, Entry]:
    """Every registered selector, by name (the known selector modules imported first).

    Returns
    -------
    dict of str -> Entry

    Examples
    --------
    >>> {"rpv", "hip", "mr", "complete"} <= set(available_selectors())
    True
    """
    _load()
    return dict(sorted(_SELECTORS.items()))


def available_classifiers() -> dict[str, Entry]:
    """Every registered classifier, by name.

    Returns
    -------
    dict of str -> Entry

    Examples
    --------
    >>> {"nb", "lazy-nb"} <= set(available_classifiers())
    True
    """
    _load()
    return dict(sorted(_CLASSIFIERS.items()))
