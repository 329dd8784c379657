"""Declared parameters: what a method accepts, read from the class itself, and checks against it.

A method's parameters are declared once, on its estimator class, in scikit-learn's style:

- ``_parameter_constraints`` (``sklearn.utils._param_validation``, imported through :mod:`kg.sklearn_compat`:
  ``Interval(Real, 0, 1, closed="both")``, ``StrOptions({...})``, ``"boolean"``, ``None``, a type, ...) gives each
  parameter's type, range or choices, and ``fit`` validates them (``self._validate_params()``);
- the numpydoc ``Parameters`` section of the class docstring gives each parameter's meaning
  (the first sentence of its entry);
- the defaults are those of an instance (``get_params()``), so a registry entry's presets
  (``sig`` = ``StandardSelector(measure="ig")``) are the defaults shown.

:func:`declared_parameters` reads these into :class:`Parameter` records; :func:`check_values`
checks user values against them before any work (unknown names, wrong types and values out of
range are one-line :class:`~kg.errors.KgfsError` messages that list the valid parameters);
:func:`parse_assignments` reads ``KEY=VALUE`` items of the command line. A class without
``_parameter_constraints`` still lists its ``get_params()`` names (any value accepted).

Examples
--------
>>> from sklearn.naive_bayes import BernoulliNB
>>> p = {q.name: q for q in declared_parameters(BernoulliNB())}
>>> p["alpha"].allowed, p["alpha"].default
('float >= 0 or array-like', 1.0)
>>> check_values(declared_parameters(BernoulliNB()), {"alpha": -1}, owner="classifier nb")
Traceback (most recent call last):
...
kg.errors.KgfsError: classifier nb: alpha=-1 is not valid: must be float >= 0 or array-like; parameters: alpha ...
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import selection.constraints as light
from kg.errors import KgfsError, ParameterError, did_you_mean, param

__all__ = ["Parameter", "check_values", "constraint_text", "declared_parameters", "docstring_parameters",
           "parse_assignments"]


@dataclass(frozen=True)
class Parameter:
    """One declared parameter of a method.

    Parameters
    ----------
    name : str
    allowed : str
        Its type, range or choices in words (``"float in [0, 1]"``, ``"'ig' or 'correlation'"``;
        ``"any"`` when the class declares nothing).
    default : object
        The value a new instance has.
    meaning : str
        The first sentence of its numpydoc entry.
    constraints : tuple
        The ``_parameter_constraints`` entry (empty: anything goes).

    Examples
    --------
    >>> Parameter("k", "int >= 1", 10, "features kept").describe()
    'k (int >= 1, default 10)'
    """

    name: str
    allowed: str = "any"
    default: object = None
    meaning: str = ""
    constraints: tuple = field(default=(), compare=False)

    def describe(self) -> str:
        """``name (allowed, default d)``, the form the error messages list.

        Returns
        -------
        str
        """
        return f"{self.name} ({self.allowed}, default {_show(self.default)})"


def _show(value) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return repr(value)
    if isinstance(value, str):
        return repr(value)
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# ------------------------------------------------------------------ docstrings
_SECTION = re.compile(r"^(Parameters|Other Parameters)\s*$")


def docstring_parameters(obj) -> dict[str, str]:
    """The first sentence of every entry of the numpydoc ``Parameters`` sections of ``obj``'s docstring.

    An entry ``lam, alpha, beta : float`` gives all three names its sentence; an entry without a
    description gives its type text.

    Parameters
    ----------
    obj : object
        A class or function (its ``inspect.getdoc``).

    Returns
    -------
    dict of str -> str

    Examples
    --------
    >>> def f(a, b):
    ...     '''Sum.
    ...
    ...     Parameters
    ...     ----------
    ...     a, b : int
    ...         The terms. Any integers.
    ...     '''
    >>> docstring_parameters(f)
    {'a': 'The terms.', 'b': 'The terms.'}
    """
    lines = (inspect.getdoc(obj) or "").splitlines()
    out: dict[str, str] = {}
    i = 0
    while i < len(lines) - 1:
        if _SECTION.match(lines[i]) and set(lines[i + 1].strip()) == {"-"}:
            i = _read_section(lines, i + 2, out)
        else:
            i += 1
    return out


def _plain(text: str) -> str:
    """reStructuredText roles and literals as plain text (``x`` -> x, :class:`~a.B` -> B)."""
    text = re.sub(r":\w+:`~[\w.]*?\.?(\w+)`", r"\1", text)
    text = re.sub(r":\w+:`([^`]+)`", r"\1", text)
    return re.sub(r"``([^`]+)``", r"\1", text)


def _read_section(lines: list[str], i: int, out: dict[str, str]) -> int:
    names: list[str] = []
    kind, desc = "", []

    def flush():
        text = _plain(" ".join(desc).strip() or kind)
        sentence = re.split(r"(?<=\.)\s+(?=[A-Z])", text, maxsplit=1)[0] if text else ""
        for n in names:
            out.setdefault(n, sentence)

    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and line.strip() and set(lines[i + 1].strip()) == {"-"} and not line.startswith(" "):
            break  # the next section
        if line and not line.startswith(" "):
            flush()
            head, _, kind = line.partition(":")
            names = [n.strip().lstrip("*") for n in head.split(",") if n.strip()]
            kind, desc = kind.strip(), []
        elif line.strip():
            desc.append(line.strip())
        i += 1
    flush()
    return i


# ------------------------------------------------------------------ constraints in words
def _one_constraint(raw) -> str | None:
    if light.is_light(raw):  # a marker or a type, written the same in scikit-learn's notation and kgfs's
        return light.text(raw)
    from kg import sklearn_compat as pv  # a constraint object of scikit-learn's

    c = pv.make_constraint(raw)
    if isinstance(c, pv.Hidden) or getattr(c, "hidden", False):
        return None
    if isinstance(c, pv.Interval):
        return light.interval_text(c)
    if isinstance(c, (pv.StrOptions, pv.Options)):
        opts = sorted((o for o in c.options if o not in getattr(c, "deprecated", ())), key=str)
        return " or ".join(repr(o) for o in opts)
    names = {pv.Booleans: "bool", pv.NoneConstraint: "None", pv.Callables: "callable",
             pv.RandomStates: "int or None (seed)", pv.ArrayLikes: "array-like",
             pv.SparseMatrices: "sparse matrix", pv.IterablesNotString: "list"}
    for cls, text in names.items():
        if isinstance(c, cls):
            return text
    if isinstance(c, pv.InstancesOf):
        return {"Integral": "int", "Real": "float", "str": "str", "dict": "dict", "bool": "bool",
                "list": "list", "tuple": "tuple"}.get(c.type.__name__, c.type.__name__)
    return str(c)


def constraint_text(constraints: Iterable) -> str:
    """A ``_parameter_constraints`` entry in words.

    Parameters
    ----------
    constraints : iterable
        Constraints in scikit-learn's notation.

    Returns
    -------
    str
        ``"any"`` for an empty or ``"no_validation"`` entry.

    Examples
    --------
    >>> from numbers import Real
    >>> from kg.sklearn_compat import Interval, StrOptions
    >>> constraint_text([Interval(Real, 0, 1, closed="both")]), constraint_text([StrOptions({"b", "a"}), None])
    ('float in [0, 1]', "'a' or 'b' or None")
    """
    if isinstance(constraints, str) and constraints == "no_validation":
        return "any"
    parts = [t for t in (_one_constraint(c) for c in constraints) if t]
    return " or ".join(dict.fromkeys(parts)) or "any"


# ------------------------------------------------------------------ declared parameters of an estimator
def declared_parameters(estimator, *, exclude: Iterable[str] = (), docs_from=None) -> list[Parameter]:
    """The parameters an estimator declares, with their constraints, defaults and meanings.

    Parameters
    ----------
    estimator : scikit-learn estimator
        An instance (its ``get_params(deep=False)`` gives names and defaults); for a
        ``Pipeline``, its final step (a registered builder such as ``svm-linear``'s passes its parameters there).
    exclude : iterable of str
        Names left out (e.g. ``hierarchy``, which the table gives).
    docs_from : class, optional
        Where the meanings are read (default: the estimator's class and its bases).

    Returns
    -------
    list of Parameter
        Sorted by name.

    Examples
    --------
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> p = {q.name: q for q in declared_parameters(KNeighborsClassifier(n_neighbors=3))}
    >>> p["n_neighbors"].default, p["n_neighbors"].allowed, p["weights"].allowed
    (3, 'int >= 1 or None', "'distance' or 'uniform' or callable or None")
    """
    steps = getattr(estimator, "steps", None)
    if steps:
        estimator = steps[-1][1]
    cls = type(estimator)
    declared = getattr(cls, "_parameter_constraints", None)
    docs: dict[str, str] = {}
    for base in (docs_from,) if docs_from is not None else cls.__mro__:
        for k, v in docstring_parameters(base).items():
            docs.setdefault(k, v)
    skip = set(exclude)
    out = []
    for name, default in sorted(estimator.get_params(deep=False).items()):
        if name in skip:
            continue
        cons = declared.get(name, ()) if isinstance(declared, Mapping) else ()
        cons = () if cons == "no_validation" else tuple(cons)
        out.append(Parameter(name, constraint_text(cons), default, docs.get(name, ""), cons))
    return out


def check_values(declared: Iterable[Parameter], values: Mapping, *, owner: str, noun: str = "parameter") -> dict:
    """``values`` checked against ``declared`` (names, types, ranges, choices); returns them as a dict.

    Parameters
    ----------
    declared : iterable of Parameter
        From :func:`declared_parameters`.
    values : mapping
        Name -> value, as the user gave them.
    owner : str
        Who the parameters belong to, in the message (``"selector shsel-ig-prune"``).
    noun : str
        What they are called in the message (``"option"`` for a protocol's).

    Returns
    -------
    dict

    Raises
    ------
    KgfsError
        One line: what is wrong, then every valid parameter with its type and default.

    Examples
    --------
    >>> check_values([Parameter("k", "int", 10)], {"q": 1}, owner="selector x")
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: selector x has no parameter 'q'; parameters: k (int, default 10)
    """
    declared = list(declared)
    by_name = {p.name: p for p in declared}
    listing = f"; {noun}s: " + (", ".join(p.describe() for p in declared) or "(none)")
    out = {}
    for name, value in values.items():
        p = by_name.get(name)
        if p is None:
            raise KgfsError(f"{owner} has no {noun} {name!r}{did_you_mean(name, by_name)}{listing}")
        if p.constraints:
            # scikit-learn takes True for a number; a user who typed true meant something else
            if (isinstance(value, bool) and "bool" not in p.allowed.split(" or ")) \
                    or not light.satisfied(p.constraints, value):
                raise KgfsError(f"{owner}: {name}={_show_value(value)} is not valid: must be {p.allowed}{listing}")
        out[name] = value
    return out


def _show_value(value) -> str:
    return json.dumps(value) if isinstance(value, (bool, type(None))) else str(value)


_WORDS = {"true": True, "false": False, "none": None, "null": None}


def parse_assignments(items: Iterable[str] | None, option: str = "params") -> dict:
    """``KEY=VALUE`` items as a dict; values are JSON when they parse (numbers, lists), ``true``/``false``/``none``
    in any case, else strings.

    Parameters
    ----------
    items : iterable of str or None
    option : str
        The parameter the items were given to, named in the message (:func:`kg.errors.param`: ``params``
        reads ``--param`` on the command line); a ``--flag`` is said as it is.

    Returns
    -------
    dict

    Raises
    ------
    KgfsError
        An item without ``=`` or with an empty key.

    Examples
    --------
    >>> parse_assignments(["threshold=0.9", "prune=False", "measure=ig", "ks=[1, 2]"])
    {'threshold': 0.9, 'prune': False, 'measure': 'ig', 'ks': [1, 2]}
    >>> parse_assignments(["threshold"])
    Traceback (most recent call last):
    ...
    kg.errors.ParameterError: params expects KEY=VALUE, got 'threshold'
    """
    out: dict = {}
    for item in items or []:
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq or not key:
            said = option if option.startswith("--") else param(option)
            raise ParameterError(f"{said} expects KEY=VALUE, got {item!r}")
        raw = raw.strip()
        if raw.lower() in _WORDS:
            out[key] = _WORDS[raw.lower()]
            continue
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out
