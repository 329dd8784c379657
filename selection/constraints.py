"""Parameter constraints in scikit-learn's notation, readable and checkable without importing scikit-learn.

A registered method's parameters are declared beside its registration (:mod:`selection.declarations`) in the
notation of scikit-learn's ``_parameter_constraints`` (``sklearn.utils._param_validation``): the markers
``"boolean"``, ``"array-like"``, ``"sparse matrix"``, ``"random_state"``, ``"verbose"``, ``"no_validation"``,
``None``, ``callable`` and types are written as they are; :class:`Interval`, :class:`StrOptions`,
:class:`Options`, :class:`Hidden` and :class:`HasMethods` are light copies of scikit-learn's classes (same
arguments), and :class:`InstancesOf` names a class by ``"module:Class"`` without importing it.

:func:`text` says a constraint in words (as :func:`selection.params.constraint_text` says scikit-learn's) and
:func:`satisfied` checks a value against a list of them: a value of the command line (JSON: a number, a string,
true/false/none, a list, an object) is checked here, anything else (a NumPy scalar, an estimator) by
scikit-learn's own classes (:func:`to_sklearn`, imported then). ``tests/selection/test_declarations.py`` checks
that both say and accept the same as each estimator's own declaration.

Examples
--------
>>> from numbers import Real
>>> cons = [Interval(Real, 0, 1, closed="both"), None]
>>> [text(c) for c in cons], satisfied(cons, 0.5), satisfied(cons, 2), satisfied(cons, None)
(['float in [0, 1]', 'None'], True, False, True)
>>> satisfied([StrOptions({"ig", "correlation"})], "ig"), text(StrOptions({"ig", "correlation"}))
(True, "'correlation' or 'ig'")
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable
from numbers import Integral, Real

__all__ = ["HasMethods", "Hidden", "InstancesOf", "Interval", "Options", "RealNotInt", "StrOptions", "is_light",
           "satisfied", "text", "to_sklearn"]


class RealNotInt:
    """The type of :class:`Interval` s over reals that are not ints (scikit-learn's ``RealNotInt``: 1.0, not 1)."""


class _Light:
    """A constraint of this module (not scikit-learn's)."""

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash(type(self))


class Interval(_Light):
    """Numbers of ``type`` (``Integral``, ``Real`` or :class:`RealNotInt`) between ``left`` and ``right``
    (None: unbounded); ``closed`` in ``"left"``, ``"right"``, ``"both"``, ``"neither"``."""

    def __init__(self, type, left, right, *, closed: str):
        if type not in (Integral, Real, RealNotInt) or closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"Interval({type!r}, ..., closed={closed!r}): not scikit-learn's notation")
        self.type, self.left, self.right, self.closed = type, left, right, closed

    def is_satisfied_by(self, val) -> bool:
        if self.type is RealNotInt:
            if not isinstance(val, Real) or isinstance(val, Integral):
                return False
        elif not isinstance(val, self.type):
            return False
        if not isinstance(val, Integral) and math.isnan(val):
            return False
        left_cmp = operator.lt if self.closed in ("left", "both") else operator.le
        right_cmp = operator.gt if self.closed in ("right", "both") else operator.ge
        left = -math.inf if self.left is None else self.left
        right = math.inf if self.right is None else self.right
        return not (left_cmp(val, left) or right_cmp(val, right))


def interval_text(c) -> str:
    """An interval (this module's or scikit-learn's) in words: ``float in [0, 1]``, ``int >= 1``."""
    kind = "int" if c.type is Integral else "float"
    lo = None if c.left is None or c.left == -math.inf else c.left
    hi = None if c.right is None or c.right == math.inf else c.right
    if lo is not None and hi is not None:
        left = "[" if c.closed in ("left", "both") else "("
        right = "]" if c.closed in ("right", "both") else ")"
        return f"{kind} in {left}{lo:g}, {hi:g}{right}"
    if lo is not None:
        return f"{kind} {'>=' if c.closed in ('left', 'both') else '>'} {lo:g}"
    if hi is not None:
        return f"{kind} {'<=' if c.closed in ('right', 'both') else '<'} {hi:g}"
    return kind


class Options(_Light):
    """One of ``options``, each an instance of ``type``; ``deprecated`` ones accepted, not listed."""

    def __init__(self, type, options, *, deprecated=None):
        self.type, self.options, self.deprecated = type, set(options), set(deprecated or ())

    def is_satisfied_by(self, val) -> bool:
        return isinstance(val, self.type) and val in self.options


class StrOptions(Options):
    """One of the strings ``options``."""

    def __init__(self, options, *, deprecated=None):
        super().__init__(str, options, deprecated=deprecated)


class Hidden(_Light):
    """A constraint that is checked but not said (scikit-learn's ``Hidden``)."""

    def __init__(self, constraint):
        self.constraint = constraint


class HasMethods(_Light):
    """An object with these methods (``fit``, ``predict``)."""

    def __init__(self, methods):
        self.methods = [methods] if isinstance(methods, str) else list(methods)

    def is_satisfied_by(self, val) -> bool:
        return all(callable(getattr(val, m, None)) for m in self.methods)


class InstancesOf(_Light):
    """An instance of the class ``"module:Class"`` (imported only to check a value that is not JSON)."""

    def __init__(self, target: str):
        self.target = target

    @property
    def name(self) -> str:
        return self.target.rpartition(":")[2].rpartition(".")[2]


_MARKERS = {"boolean": "bool", "array-like": "array-like", "sparse matrix": "sparse matrix",
            "random_state": "int or None (seed)",
            "verbose": "an int in the range [0, inf), an instance of 'bool' or an instance of 'numpy.bool'"}
_TYPE_WORDS = {"Integral": "int", "Real": "float", "str": "str", "dict": "dict", "bool": "bool", "list": "list",
               "tuple": "tuple"}
#: The types of a value read from the command line (JSON), which this module checks itself.
_JSON_TYPES = (bool, int, float, str, type(None), list, dict)


def is_light(c) -> bool:
    """Whether ``c`` is written in this module's notation (a marker, None, callable, a type, or a class of here)."""
    return (c is None or c is callable or isinstance(c, (_Light, type))
            or (isinstance(c, str) and (c in _MARKERS or c == "no_validation")))


def text(c) -> str | None:
    """One constraint in words (None for a hidden one), as :func:`selection.params.constraint_text` says it."""
    if isinstance(c, Hidden):
        return None
    if isinstance(c, Interval):
        return interval_text(c)
    if isinstance(c, Options):
        return " or ".join(repr(o) for o in sorted((o for o in c.options if o not in c.deprecated), key=str))
    if isinstance(c, HasMethods):
        methods = repr(c.methods[0]) if len(c.methods) == 1 else (
            f"{', '.join(repr(m) for m in c.methods[:-1])} and {c.methods[-1]!r}")
        return f"an object implementing {methods}"
    if isinstance(c, InstancesOf):
        return _TYPE_WORDS.get(c.name, c.name)
    if c is None:
        return "None"
    if c is callable:
        return "callable"
    if isinstance(c, type):
        return _TYPE_WORDS.get(c.__name__, c.__name__)
    return _MARKERS.get(c, "any")  # "no_validation"


def _satisfies(c, val) -> bool:
    """``val`` (of a JSON type) satisfies ``c`` (this module's notation), as scikit-learn decides it."""
    if isinstance(c, Hidden):
        return _satisfies(c.constraint, val)
    if isinstance(c, (Interval, Options, HasMethods)):
        return c.is_satisfied_by(val)
    if isinstance(c, InstancesOf):
        return False  # no JSON value is an instance of a class named by module
    if c is None:
        return val is None
    if c is callable:
        return callable(val)
    if isinstance(c, type):
        return isinstance(val, c)
    if c == "boolean":
        return isinstance(val, bool)
    if c == "array-like":
        return isinstance(val, (list, dict))  # has a length and is not a scalar (a str is one)
    if c == "sparse matrix":
        return False
    if c == "random_state":
        return val is None or (isinstance(val, Integral) and 0 <= val <= 2**32 - 1)
    if c == "verbose":
        return isinstance(val, Integral) and (isinstance(val, bool) or val >= 0)
    return c == "no_validation"


def satisfied(constraints: Iterable, val) -> bool:
    """Whether ``val`` satisfies one of ``constraints`` (an empty list: anything goes).

    Parameters
    ----------
    constraints : iterable
        In this module's notation, or scikit-learn's (then checked by scikit-learn, imported here).
    val : object

    Returns
    -------
    bool
    """
    constraints = list(constraints)
    if not constraints or constraints == ["no_validation"]:
        return True
    if type(val) in _JSON_TYPES and all(is_light(c) for c in constraints):
        return any(_satisfies(c, val) for c in constraints)
    from kg import sklearn_compat as pv  # what validate_parameter_constraints does, without its message

    return any(pv.make_constraint(to_sklearn(c)).is_satisfied_by(val) for c in constraints)


def to_sklearn(c):
    """``c`` as scikit-learn's constraint (imports scikit-learn; one of its constraints is returned as it is)."""
    from kg import sklearn_compat as pv
    from kg.plugins import load_target

    if isinstance(c, Interval):
        return pv.Interval(pv.RealNotInt if c.type is RealNotInt else c.type, c.left, c.right, closed=c.closed)
    if isinstance(c, StrOptions):
        return pv.StrOptions(set(c.options), deprecated=set(c.deprecated) or None)
    if isinstance(c, Options):
        return pv.Options(c.type, set(c.options), deprecated=set(c.deprecated) or None)
    if isinstance(c, Hidden):
        return pv.Hidden(to_sklearn(c.constraint))
    if isinstance(c, HasMethods):
        return pv.HasMethods(list(c.methods))
    if isinstance(c, InstancesOf):
        return load_target(c.target)
    return c
