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

# Modules that register selectors or classifiers; a module that does not exist yet is skipped.
_MODULES = (
    "selection.hierarchical.complete",
    "selection.hierarchical.shsel",
    "selection.hierarchical.baselines",
    "selection.hierarchical.hill_climbing",
    "selection.lazy.selectors",
    "selection.lazy.classifiers",
    "selection.flat",
    "selection.classifiers",
    "selection.class_hierarchy.hifsrr",
    "selection.class_hierarchy.ga_tree",
    "selection.adhoc.selector",
)


@dataclass(frozen=True)
class Entry:
    """A registered method: its factory, kind and a one-line description.

    ``kind`` is ``"eager"`` (one feature subset for all instances), ``"lazy"`` (a subset per
    test instance, through ``select_for``), ``"flat"`` (ignores the hierarchy) or
    ``"classifier"``. ``defaults`` are the parameters the factory applies when not given;
    ``threshold_grid`` is set for methods whose threshold the protocols sweep.
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
        if importlib.util.find_spec(mod) is not None:
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
    """Register ``factory(hierarchy, **params) -> selector`` under ``name``."""
    if kind not in ("eager", "lazy", "flat"):
        raise ValueError(f"selector kind must be eager, lazy or flat, got {kind!r}")
    _SELECTORS[name] = Entry(name, factory, kind, description, dict(defaults or {}), threshold_grid)


def register_classifier(name: str, factory: Callable, *, description: str = "", defaults: dict | None = None) -> None:
    """Register ``factory(**params) -> classifier`` under ``name``."""
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
    return _lookup(_SELECTORS, name, "selector")


def classifier_entry(name: str) -> Entry:
    return _lookup(_CLASSIFIERS, name, "classifier")


def get_selector(name: str, hierarchy=None, **params):
    """A new, unfitted selector registered as ``name`` over ``hierarchy``."""
    return selector_entry(name).factory(hierarchy, **params)


def get_classifier(name: str, **params):
    """A new, unfitted classifier registered as ``name``."""
    return classifier_entry(name).factory(**params)


def available_selectors() -> dict[str, Entry]:
    _load()
    return dict(sorted(_SELECTORS.items()))


def available_classifiers() -> dict[str, Entry]:
    _load()
    return dict(sorted(_CLASSIFIERS.items()))
