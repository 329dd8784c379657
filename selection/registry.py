"""Short names for selectors and classifiers, as ``kgfs select`` / ``kgfs evaluate`` accept them.

Each selector module registers its methods when imported::

    register_selector("shsel-ig-prune", lambda hierarchy, **kw: SHSEL(hierarchy, ...),
                      kind="eager", description="...")

Lookups import the known selector modules on first use, so the registry is complete without
importing everything at start-up.

Every entry declares its parameters through its estimator class (:mod:`selection.params`:
``_parameter_constraints``, the numpydoc ``Parameters`` section, the instance's defaults):
:meth:`Entry.parameters` lists them and :meth:`Entry.check_params` checks user values against
them before any work. :func:`method_help` and :func:`methods_overview` are the texts of
``kgfs methods`` and of the commands' ``--help``.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from kg.errors import KgfsError
from selection.params import Parameter, check_values, declared_parameters

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
    "find_method",
    "method_help",
    "method_params",
    "whole_table_params",
    "methods_overview",
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
    paper : str
        The paper the method comes from (default: the first citation with a year in the
        docstring of its class or module).
    fixed : tuple of str
        Parameters the factory sets whatever is given (not the user's to choose).

    Examples
    --------
    >>> selector_entry("rpv").kind, selector_entry("complete").kind
    ('lazy', 'eager')
    >>> [p.name for p in classifier_entry("1nn").parameters()][:3]
    ['algorithm', 'leaf_size', 'metric']
    """

    name: str
    factory: Callable
    kind: str
    description: str = ""
    defaults: dict = field(default_factory=dict)
    threshold_grid: tuple | None = None
    paper: str = ""
    fixed: tuple = ()

    @property
    def role(self) -> str:
        """``"selector"`` or ``"classifier"``."""
        return "classifier" if self.kind == "classifier" else "selector"

    def estimator(self, **params):
        """A new instance (selectors over no hierarchy: a flat one).

        Parameters
        ----------
        **params
            Constructor parameters.

        Returns
        -------
        estimator
        """
        return self.factory(**params) if self.kind == "classifier" else self.factory(None, **params)

    def parameters(self) -> list[Parameter]:
        """The parameters a user may set, declared by the estimator class (see :mod:`selection.params`).

        Returns
        -------
        list of Parameter
            Sorted by name; ``hierarchy`` (the table's) and :attr:`fixed` ones left out.

        Examples
        --------
        >>> [(p.name, p.default) for p in classifier_entry("nb").parameters()][:2]
        [('alpha', 1.0), ('binarize', 0.0)]
        """
        key = (self.kind, self.name, id(self.factory))
        if key not in _PARAMETERS:
            _PARAMETERS[key] = declared_parameters(self.estimator(), exclude=("hierarchy", *self.fixed))
        return list(_PARAMETERS[key])

    def check_params(self, params: Mapping | None) -> dict:
        """``params`` checked against :meth:`parameters` (names, types, ranges, choices).

        Parameters
        ----------
        params : mapping or None

        Returns
        -------
        dict

        Raises
        ------
        KgfsError
            One line naming the parameter and listing the valid ones.

        Examples
        --------
        >>> classifier_entry("knn").check_params({"n_neighbors": 5})
        {'n_neighbors': 5}
        """
        return check_values(self.parameters(), dict(params or {}), owner=f"{self.role} {self.name}")

    def citation(self) -> str:
        """:attr:`paper`, or the first sentence citing a year in its class's or module's docstring.

        Returns
        -------
        str

        Examples
        --------
        >>> "2015" in selector_entry("hip").citation()
        True
        """
        if self.paper:
            return self.paper
        est = self.estimator()
        est = est.steps[-1][1] if getattr(est, "steps", None) else est
        for obj in (type(est), inspect.getmodule(type(est))):
            found = _cited(inspect.getdoc(obj) or "")
            if found:
                return found
        return ""


_SELECTORS: dict[str, Entry] = {}
_CLASSIFIERS: dict[str, Entry] = {}
_PARAMETERS: dict[tuple, list[Parameter]] = {}
_loaded = False
# "Wan & Freitas 2015", "da Silva et al. 2020", "Ristoski & Paulheim, *Title* (Venue 2014"
_NAME = r"(?:(?:da|de|van|von|der) )?[A-Z][\w-]+"
_CITATION = re.compile(rf"({_NAME}(?:(?:, | & | and ){_NAME})*(?: et al\.)?),? (?:\*([^*]+)\* \(([^()]*?) ?)?((?:19|20)\d\d)\b")


def _cited(doc: str) -> str:
    """The first citation (authors, year; title and venue when given) in a docstring."""
    m = _CITATION.search(" ".join(doc.split()))
    if m is None:
        return ""
    authors, title, venue, year = m.groups()
    return f"{authors}, {title} ({venue} {year})" if title else f"{authors} {year}"


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
    paper: str = "",
    fixed: tuple = (),
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
    paper : str, optional
    fixed : tuple of str, optional
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
    _SELECTORS[name] = Entry(name, factory, kind, description, dict(defaults or {}), threshold_grid, paper, tuple(fixed))


def register_classifier(name: str, factory: Callable, *, description: str = "", defaults: dict | None = None,
                        paper: str = "", fixed: tuple = ()) -> None:
    """Register ``factory(**params) -> classifier`` under ``name``.

    Parameters
    ----------
    name : str
    factory : callable
    description : str
    defaults : dict, optional
    paper : str, optional
    fixed : tuple of str, optional
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
    _CLASSIFIERS[name] = Entry(name, factory, "classifier", description, dict(defaults or {}), None, paper, tuple(fixed))


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


# ------------------------------------------------------------------ help texts (kgfs methods, --help)
def _protocols():
    from selection.evaluation.protocols import available_protocols

    return available_protocols()


def find_method(name: str):
    """The selector, classifier or protocol called ``name``, or a method a protocol resolves itself.

    Parameters
    ----------
    name : str

    Returns
    -------
    (str, object)
        ``("selector", Entry)``, ``("classifier", Entry)``, ``("protocol", Protocol)`` or
        ``("protocol method", Protocol)`` (a method only that protocol runs, e.g. ``hifsrr``).

    Raises
    ------
    KgfsError
        Listing every known name.

    Examples
    --------
    >>> find_method("nb")[0], find_method("rpv2020")[0], find_method("hifsrr")[0]
    ('classifier', 'protocol', 'protocol method')
    """
    _load()
    protocols = _protocols()
    for role, table in (("selector", _SELECTORS), ("classifier", _CLASSIFIERS), ("protocol", protocols)):
        if name in table:
            return role, table[name]
    for p in protocols.values():
        if p.methods is not None and name in p.methods:
            return "protocol method", p
    known = sorted({*_SELECTORS, *_CLASSIFIERS, *protocols})
    raise KgfsError(f"unknown method {name!r}; known: {', '.join(known)}")


def _protocols_of(name: str, role: str) -> str:
    papers, runs = [], []
    for p in _protocols().values():
        if name in p.paper_methods:
            papers.append(p.name)
        elif (p.methods is None if role == "selector" else True) or name in (p.methods or ()):
            runs.append(p.name)
    text = ", ".join(f"{p} (the paper's experiment)" for p in papers)
    if runs:
        text += ("; also " if text else "") + "runs under " + ", ".join(runs)
    return text


def _parameter_lines(params: list[Parameter], width: int = 110) -> list[str]:
    if not params:
        return ["  (none)"]
    rows = [("name", "allowed", "default", "meaning")]
    rows += [(p.name, p.allowed, repr(p.default) if isinstance(p.default, str) else str(p.default), p.meaning)
             for p in params]
    w = [min(max(len(r[i]) for r in rows), cap) for i, cap in ((0, 28), (1, 40), (2, 16))]
    out = []
    for name, allowed, default, meaning in rows:
        allowed = allowed if len(allowed) <= 40 else allowed[:37] + "..."
        meaning = meaning if len(meaning) <= width else meaning[: width - 3] + "..."
        out.append(f"  {name:<{w[0]}}  {allowed:<{w[1]}}  {default:<{w[2]}}  {meaning}".rstrip())
    return out


def method_help(name: str) -> str:
    """The text of ``kgfs methods NAME``: description, kind, paper, protocols, parameters and defaults.

    Parameters
    ----------
    name : str
        A selector, classifier or protocol (see :func:`find_method`).

    Returns
    -------
    str

    Examples
    --------
    >>> print(method_help("fisher").splitlines()[0])
    fisher: selector (flat): Fisher score, top k features
    """
    role, obj = find_method(name)
    if role == "protocol method":
        return (f"{name}: a method of protocol {obj.name} (resolved by the protocol, not a registry selector)\n"
                f"protocol: {obj.description}\nusage: kgfs evaluate --protocol {obj.name} --selectors {name} ...")
    if role == "protocol":
        lines = [f"{name}: protocol: {obj.description}",
                 f"classifiers (default): {', '.join(obj.classifiers)}; folds: {obj.n_splits}"
                 + (f"; Holm control: {obj.control}" if obj.control else ""),
                 "methods: " + (", ".join(obj.methods) if obj.methods is not None else "every registered selector"),
                 "options (--option KEY=VALUE):", *_parameter_lines(obj.parameters())]
        return "\n".join(lines)
    kind = "" if role == "classifier" else f" ({obj.kind})"
    est = obj.estimator()
    cls = type(est.steps[-1][1] if getattr(est, "steps", None) else est)
    lines = [f"{name}: {role}{kind}: {obj.description}", f"class: {cls.__module__}.{cls.__qualname__}"]
    if obj.citation():
        lines.append(f"paper: {obj.citation()}")
    lines.append(f"protocols: {_protocols_of(name, role)}")
    if obj.kind == "lazy":
        lines.append("lazy: a feature subset per instance; `kgfs select` writes it per instance, "
                     "`kgfs evaluate`/`kgfs run` score it with the lazy classifiers")
    lines += ["parameters (--param KEY=VALUE, or --param NAME.KEY=VALUE when several methods are given):",
              *_parameter_lines(obj.parameters())]
    return "\n".join(lines)


def methods_overview(roles=("selector", "classifier", "protocol"), width: int = 100) -> str:
    """Every registered selector, classifier and protocol with its description (the commands' ``--help``).

    Parameters
    ----------
    roles : sequence of str
        Which lists, in order.
    width : int
        Descriptions are wrapped to this width.

    Returns
    -------
    str

    Examples
    --------
    >>> text = methods_overview(("classifier",))
    >>> text.splitlines()[0], "  nb " in text
    ('classifiers (kgfs methods NAME shows the parameters):', True)
    """
    _load()
    tables = {"selector": {n: f"[{e.kind}] {e.description}" for n, e in sorted(_SELECTORS.items())},
              "classifier": {n: e.description for n, e in sorted(_CLASSIFIERS.items())}}
    if "protocol" in roles:
        tables["protocol"] = {n: p.description for n, p in _protocols().items()}
    out = []
    for role in roles:
        items = tables[role]
        w = max(len(n) for n in items) + 2
        out.append(f"{role}s (kgfs methods NAME shows the {'options' if role == 'protocol' else 'parameters'}):")
        for n, desc in items.items():
            out += textwrap.wrap(desc, width, initial_indent=f"  {n:<{w}}", subsequent_indent=" " * (w + 2)) or [
                f"  {n}"]
    return "\n".join(out)


def whole_table_params(name: str, assignments: Mapping) -> dict:
    """The checked ``--param`` values of ``--selector NAME`` fitted on a whole table (``kgfs run``).

    Parameters
    ----------
    name : str
        The registered selector.
    assignments : mapping
        ``KEY`` or ``NAME.KEY`` -> value (see :func:`method_params`).

    Returns
    -------
    dict
        Its parameters.

    Raises
    ------
    KgfsError
        An unknown selector or parameter, a value out of range, or a lazy selector (it has no one
        subset of the table: the message says where lazy selectors are used).

    Examples
    --------
    >>> whole_table_params("shsel-ig-prune", {"threshold": 0.9})
    {'threshold': 0.9}
    >>> whole_table_params("hip", {})
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: --selector hip is a lazy selector (a feature subset per instance, no one subset of the table): ...
    """
    if selector_entry(name).kind == "lazy":
        raise KgfsError(f"--selector {name} is a lazy selector (a feature subset per instance, no one subset of the "
                        f"table): compare it in the cross-validation (--selectors {name} complete --classifiers "
                        f"lazy-nb, or --protocol rpv2020), or write its selection per instance with `kgfs select "
                        f"--selector {name}`")
    return method_params(assignments, [name]).get(name, {})


def method_params(assignments: Mapping, selectors, classifiers=(), *, free=()) -> dict[str, dict]:
    """``--param`` assignments given to the methods of a command, each checked against its declaration.

    ``NAME.KEY`` goes to method ``NAME``; a plain ``KEY`` to every selector that declares it
    (else every classifier that does).

    Parameters
    ----------
    assignments : mapping
        ``KEY`` or ``NAME.KEY`` -> value (:func:`selection.params.parse_assignments`).
    selectors, classifiers : sequence of str
        The registry names the command runs.
    free : sequence of str
        Methods a protocol resolves itself (their parameters are not declared here: passed as given).

    Returns
    -------
    dict of str -> dict
        Method name -> its checked parameters (methods without any are left out).

    Raises
    ------
    KgfsError
        An unknown method or parameter, a value out of range.

    Examples
    --------
    >>> method_params({"threshold": 0.5, "knn.n_neighbors": 5}, ["shsel-ig", "complete"], ["knn"])
    {'shsel-ig': {'threshold': 0.5}, 'knn': {'n_neighbors': 5}}
    """
    entries = {n: selector_entry(n) for n in selectors if n not in free}
    entries.update({n: classifier_entry(n) for n in classifiers})
    given: dict[str, dict] = {}
    for key, value in assignments.items():
        name, dot, pname = key.rpartition(".")
        if dot:
            if name not in entries and name not in free:
                raise KgfsError(f"--param {key}: {name!r} is not among the methods given "
                                f"({', '.join([*entries, *free])})")
            given.setdefault(name, {})[pname] = value
            continue
        for group in ([n for n in entries if entries[n].role == "selector"], [n for n in entries if n in classifiers]):
            hits = [n for n in group if pname in {p.name for p in entries[n].parameters()}]
            if hits:
                break
        hits = hits or list(free)
        if not hits:
            known = "; ".join(f"{n}: {', '.join(p.name for p in e.parameters()) or '(none)'}" for n, e in entries.items())
            raise KgfsError(f"--param {pname}: none of the methods given has a parameter {pname!r} ({known})")
        for n in hits:
            given.setdefault(n, {})[pname] = value
    return {n: (entries[n].check_params(p) if n in entries else p) for n, p in given.items()}
