"""The methods an evaluation runs, as estimators: :class:`MethodSpec` and :func:`method_specs`, which makes them.

The evaluation (:func:`~selection.evaluation.cv.evaluate_table`,
:func:`~selection.evaluation.grid.run_grid`, every protocol) takes each selector and classifier as

- a registry name (``"shsel-ig-prune"``, :mod:`selection.registry`), or a name with parameters
  (``("knn", {"n_neighbors": 5})``);
- an estimator: a selector (``get_support``: a scikit-learn selector such as
  ``SelectKBest(chi2, k=50)``, a kgfs selector, a ``Pipeline`` of selectors), a lazy selector
  (``select_for``), a classifier (a ``Pipeline``, a
  :class:`~selection.lazy.LazySelectionClassifier`, ...); ``(label, estimator)`` names it;
- a :class:`MethodSpec`, what :func:`method_specs` makes of the others (passed through).

Names are resolved here, once, before any work; the folds see estimators only.

**Identity.** A spec's ``label`` names its rows (the ``selector`` / ``classifier`` columns), its
cells and its inner-CV choices: a name with the parameters the user gave
(``knn[n_neighbors=5]``), an estimator's class with the parameters that differ from the class's
defaults (``SelectKBest[k=50,score_func=chi2]``). Two settings of one method are two specs and
never merge; two specs with one label in one list are refused.

**Templates.** A spec's estimator is never fitted: every fit clones it (:meth:`MethodSpec.build`).
A ``hierarchy`` left at None, in the estimator or in any estimator nested in it, is set to the
table's hierarchy, as a registry name gets it (so ``SHSEL()`` runs over every dataset of a
grid); a hierarchy given explicitly is kept (and not copied per fold). A classifier that takes a
hierarchy gets the table's restricted to the columns it is fitted on.

**Per-instance masks.** A lazy selector gives each test instance its own features, and the RPV
protocol scores eager selectors through the same machinery; a classifier scores such masks when
it takes one (``predict_proba(X, mask)``: :class:`~selection.lazy.LazyNaiveBayes`,
:class:`~selection.lazy.LazyKNN`). The names ``nb``, ``1nn`` and ``knn`` are BernoulliNB and
k-NN on eager masks and the lazy NB / k-NN on per-instance ones
(:func:`~selection.lazy.make_lazy_classifier`, the RPV paper's implementation); a classifier
without such a form fails on those cells with a message saying so.

Examples
--------
>>> from sklearn.feature_selection import SelectKBest, chi2
>>> [s.label for s in method_specs(["complete", ("sig", {"k": 3}), SelectKBest(chi2, k=50)], "selector")]
['complete', 'sig[k=3]', 'SelectKBest[k=50,score_func=chi2]']
>>> [s.label for s in method_specs([("knn", {"n_neighbors": 1}), ("knn", {"n_neighbors": 5})], "classifier")]
['knn[n_neighbors=1]', 'knn[n_neighbors=5]']
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import clone

from kg.errors import KgfsError
from selection.lazy.classifiers import LAZY_CLASSIFIER_NAMES, make_lazy_classifier
from selection.lazy.estimator import takes_mask
from selection.registry import Entry, classifier_entry, selector_entry

__all__ = ["MethodSpec", "estimator_label", "method_spec", "method_specs", "protocol_method_spec", "spec_label"]


def spec_label(name: str, params: Mapping) -> str:
    """Display name of a method: ``name`` or ``name[k=v,...]`` when parameters are given.

    Parameters
    ----------
    name : str
        Registry name.
    params : mapping
        The parameters the user gave.

    Returns
    -------
    str

    Examples
    --------
    >>> spec_label("shsel-ig-prune", {"threshold": 0.5})
    'shsel-ig-prune[threshold=0.5]'
    """
    if not params:
        return name
    return name + "[" + ",".join(f"{k}={params[k]}" for k in sorted(params)) + "]"


# ------------------------------------------------------------------ estimators: labels, parameters, code
def _is_estimator(obj) -> bool:
    return hasattr(obj, "get_params") and hasattr(obj, "fit") and not isinstance(obj, type)


def _changed_params(est) -> dict:
    """``get_params(deep=False)`` without ``hierarchy`` and without values equal to the ``__init__`` defaults."""
    try:
        defaults = {k: p.default for k, p in inspect.signature(type(est).__init__).parameters.items()}
    except (TypeError, ValueError):  # pragma: no cover - no signature
        defaults = {}
    out = {}
    for k, v in est.get_params(deep=False).items():
        d = defaults.get(k, inspect.Parameter.empty)
        if k == "hierarchy" or (d is not inspect.Parameter.empty and (v is d or repr(v) == repr(d))):
            continue
        out[k] = v
    return out


def _short(v) -> str:
    """A parameter value in a label: estimators by their label, functions by their name."""
    if _is_estimator(v):
        return estimator_label(v)
    if callable(v) and hasattr(v, "__qualname__"):
        return v.__qualname__
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_short(x) for x in v) + "]"
    return str(v)


def estimator_label(est) -> str:
    """The label of an estimator: its class and the parameters that differ from the class's defaults.

    A ``Pipeline`` is labelled by its steps.

    Parameters
    ----------
    est : estimator

    Returns
    -------
    str

    Examples
    --------
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> estimator_label(KNeighborsClassifier()), estimator_label(KNeighborsClassifier(n_neighbors=1))
    ('KNeighborsClassifier', 'KNeighborsClassifier[n_neighbors=1]')
    >>> estimator_label(make_pipeline(StandardScaler(with_mean=False), KNeighborsClassifier()))
    'Pipeline(StandardScaler[with_mean=False],KNeighborsClassifier)'
    """
    steps = getattr(est, "steps", None)
    if steps is not None and isinstance(steps, list):
        return "Pipeline(" + ",".join(estimator_label(s) for _, s in steps if _is_estimator(s)) + ")"
    changed = _changed_params(est)
    name = type(est).__name__
    return name + ("[" + ",".join(f"{k}={_short(changed[k])}" for k in sorted(changed)) + "]" if changed else "")


def _canonical(v):
    """A parameter value as JSON that is the same in every process (no memory addresses)."""
    if _is_estimator(v):
        return estimator_label(v)
    if isinstance(v, type) or (callable(v) and hasattr(v, "__qualname__")):
        return f"{getattr(v, '__module__', '')}.{v.__qualname__}"
    if isinstance(v, Mapping):
        return {str(k): _canonical(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_canonical(x) for x in v]
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return repr(v)


def _code_objects(est) -> list:
    """The classes and functions an estimator is made of (for the code version of its cells)."""
    out, todo = [], [est]
    while todo:
        obj = todo.pop()
        out.append(type(obj))
        for v in obj.get_params(deep=False).values():
            vals = v if isinstance(v, (list, tuple)) else [v]
            for x in vals:
                x = x[1] if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) else x
                if _is_estimator(x):
                    todo.append(x)
                elif callable(x) and hasattr(x, "__qualname__") and not isinstance(x, type):
                    out.append(x)
    return out


def _hierarchy_keys(est) -> dict:
    return {k: v for k, v in est.get_params(deep=True).items() if k == "hierarchy" or k.endswith("__hierarchy")}


# ------------------------------------------------------------------ the spec
@dataclass(frozen=True, eq=False)
class MethodSpec:
    """One method of an evaluation: an unfitted estimator, the label that identifies it, and how it is used.

    Made by :func:`method_specs` (names, ``(name, params)`` pairs, estimators); the folds clone
    :attr:`estimator` for every fit (:meth:`build`).

    Parameters
    ----------
    label : str
        The identity: the ``selector`` / ``classifier`` column of the rows, part of the cell keys.
    estimator : estimator or None
        The template (None for a method a protocol resolves itself, e.g. ``hifsrr2017``'s).
    params : dict
        The parameters that name it (a name's: those the user gave; an estimator's: those that
        differ from its class's defaults, as JSON): the ``params`` column, part of the cell keys.
    kind : str
        ``"eager"``, ``"flat"`` or ``"lazy"`` for selectors, ``"classifier"``, or
        ``"protocol method"``.
    name : str
        The registry (or protocol method) name; empty for an estimator.
    lazy : estimator or None
        Classifiers: the form that scores per-instance masks (see the module docstring).
    lazy_error : Exception or None
        Why there is no such form (raised by :meth:`build_lazy`).
    tuning : dict
        The values a tuning protocol searches per parameter (the registry entry's
        :attr:`~selection.registry.Entry.tuning`; a parameter the spec sets is left out): the split protocol's.

    Examples
    --------
    >>> spec = method_spec(("shsel-ig-prune", {"threshold": 0.5}), "selector")
    >>> spec.label, spec.params, spec.kind, spec.threshold_grid[-1]
    ('shsel-ig-prune[threshold=0.5]', {'threshold': 0.5}, 'eager', 1.0)
    """

    label: str
    estimator: object
    params: dict = field(default_factory=dict)
    kind: str = "eager"
    name: str = ""
    lazy: object = None
    lazy_error: BaseException | None = None
    tuning: dict = field(default_factory=dict)
    #: The ``hierarchy`` parameters of the estimator and of those nested in it (``selector__hierarchy``).
    hierarchy_keys: tuple = field(init=False, repr=False, default=())
    _code: tuple = field(init=False, repr=False, default=())

    def __post_init__(self):  # what every fold and every cell key would otherwise walk the estimator for
        est = self.estimator
        object.__setattr__(self, "hierarchy_keys", () if est is None else tuple(_hierarchy_keys(est)))
        code = [] if est is None else _code_objects(est) + ([] if self.lazy is None else _code_objects(self.lazy))
        object.__setattr__(self, "_code", tuple(code))

    @property
    def threshold_grid(self) -> tuple | None:
        """The thresholds a protocol sweeps for this method (its class's ``threshold_grid``), or None."""
        if self.estimator is None or getattr(self.estimator, "steps", None) is not None:
            return None
        return getattr(type(self.estimator), "threshold_grid", None)

    @property
    def takes_hierarchy(self) -> bool:
        """Whether the estimator, or one nested in it, has a ``hierarchy`` parameter left at None."""
        return any(v is None for v in _hierarchy_values(self.estimator, self.hierarchy_keys).values())

    def build(self, hierarchy=None):
        """A fresh clone of :attr:`estimator` with every ``hierarchy`` left at None set to ``hierarchy``.

        Parameters
        ----------
        hierarchy : FeatureHierarchy or None
            The table's.

        Returns
        -------
        estimator
            Unfitted.
        """
        return _fresh(self.estimator, hierarchy, self.hierarchy_keys)

    def build_lazy(self):
        """A fresh clone of the per-instance form of a classifier (:attr:`lazy`).

        Returns
        -------
        estimator

        Raises
        ------
        Exception
            :attr:`lazy_error`, when the classifier has no such form.
        """
        if self.lazy is None:
            raise self.lazy_error or ValueError(f"classifier {self.label} has no per-instance form")
        return clone(self.lazy)

    @property
    def takes_masks(self) -> bool:
        """Whether a classifier scores per-instance feature masks (it has a per-instance form, or is a lazy
        classifier's name whose parameters failed: its cells then say why)."""
        return self.lazy is not None or (self.kind == "classifier" and self.name in LAZY_CLASSIFIER_NAMES)

    def code_objects(self) -> list:
        """The classes and functions the method is made of (its cells' code version covers those outside kgfs).

        Returns
        -------
        list
        """
        return list(self._code)


def _hierarchy_values(est, keys: tuple) -> dict:
    if not keys:
        return {}
    if keys == ("hierarchy",):  # the common case, without get_params(deep=True)
        return {"hierarchy": getattr(est, "hierarchy", None)}
    params = est.get_params(deep=True)
    return {k: params.get(k) for k in keys}


def _fresh(est, hierarchy, keys: tuple):
    """A clone of ``est`` whose ``hierarchy`` parameters left at None (or ``"from_input"``: in an evaluation the
    input is the table) are ``hierarchy``."""
    if not keys:
        return clone(est)
    current = _hierarchy_values(est, keys)
    held = {k: v for k, v in current.items() if v is not None and not (isinstance(v, str) and v == "from_input")}
    if held:  # clone without deep-copying a hierarchy the user set (it can be large); set it back after
        est.set_params(**dict.fromkeys(held))
        try:
            new = clone(est)
        finally:
            est.set_params(**held)
    else:
        new = clone(est)
    bind = {k: held.get(k, hierarchy) for k in current}
    bind = {k: v for k, v in bind.items() if v is not None}
    return new.set_params(**bind) if bind else new


# ------------------------------------------------------------------ resolving
def _lazy_form(name: str, params: Mapping, est):
    """The per-instance form of a classifier and, without one, why."""
    if name in LAZY_CLASSIFIER_NAMES:
        try:
            return make_lazy_classifier(name, **params), None
        except Exception as exc:  # noqa: BLE001 - raised in the cells that need it (failed rows, not a stop)
            return None, exc
    if takes_mask(est):
        return est, None
    return None, ValueError(
        f"classifier {name or estimator_label(est)} cannot score per-instance feature masks (those of a lazy "
        "selector, or of eager ones under lazy_classifiers_for_eager): give a classifier that takes a mask "
        f"(selection.lazy.LazyNaiveBayes, LazyKNN; the names {', '.join(LAZY_CLASSIFIER_NAMES)})")


def _from_name(name: str | Entry, params: Mapping, role: str) -> MethodSpec:
    entry = selector_entry(name) if role == "selector" else classifier_entry(name)  # an Entry passes as it is
    name, params = entry.name, dict(params)
    label = spec_label(name, params)
    tuning = {k: list(v) for k, v in (entry.tuning or {}).items() if k not in params}
    if role == "selector":
        return MethodSpec(label, _built(entry, params, label), params, entry.kind, name, tuning=tuning)
    est = _built(entry, params, label)
    lazy, error = _lazy_form(name, params, est)
    return MethodSpec(label, est, params, "classifier", name, lazy, error, tuning=tuning)


def _built(entry, params: Mapping, label: str):
    try:
        return entry.estimator(**params)
    except TypeError as exc:  # an unknown parameter name: the constructor says which
        raise KgfsError(f"{entry.role} {label}: {exc}") from None


def _from_estimator(est, role: str, label: str | None = None) -> MethodSpec:
    label = label or estimator_label(est)
    params = _canonical(_changed_params(est))
    if role == "classifier":
        if not (hasattr(est, "predict") or hasattr(est, "predict_proba")):
            raise KgfsError(f"classifier {label} has neither predict nor predict_proba")
        lazy, error = _lazy_form("", {}, est)
        return MethodSpec(label, est, params, "classifier", "", lazy, error)
    return MethodSpec(label, est, params, _estimator_kind(est, label))


def _estimator_kind(est, label: str) -> str:
    steps = getattr(est, "steps", None)
    if steps is not None:  # a Pipeline of selectors: the composed support
        parts = [s for _, s in steps if _is_estimator(s)]
        if not parts or not all(hasattr(s, "get_support") for s in parts):
            raise KgfsError(f"selector {label}: a Pipeline used as a selector must consist of selectors "
                            "(get_support); a Pipeline ending in a classifier is a classifier")
        return "eager" if any("hierarchy" in s.get_params(deep=False) for s in parts) else "flat"
    if hasattr(est, "select_for"):
        return "lazy"
    if not hasattr(est, "get_support"):
        raise KgfsError(f"selector {label} has neither get_support (one feature subset) nor select_for (a subset "
                        "per instance)")
    return "eager" if "hierarchy" in est.get_params(deep=False) else "flat"


def method_spec(spec, role: str) -> MethodSpec:
    """One selector or classifier as a :class:`MethodSpec` (see the module docstring for what ``spec`` may be).

    Parameters
    ----------
    spec : str, (str, mapping), estimator, (str, estimator) or MethodSpec
        A name may also be its registry entry, looked up already (:class:`selection.registry.Entry`).
    role : {"selector", "classifier"}

    Returns
    -------
    MethodSpec

    Raises
    ------
    KgfsError
        An unknown name, or an object that is no selector / classifier.

    Examples
    --------
    >>> from sklearn.naive_bayes import BernoulliNB
    >>> method_spec(BernoulliNB(alpha=0.5), "classifier").label
    'BernoulliNB[alpha=0.5]'
    >>> method_spec(("my-nb", BernoulliNB()), "classifier").label
    'my-nb'
    """
    if isinstance(spec, MethodSpec):
        return spec
    if isinstance(spec, (str, Entry)):
        return _from_name(spec, {}, role)
    if isinstance(spec, (tuple, list)) and len(spec) == 2 and isinstance(spec[0], (str, Entry)):
        if isinstance(spec[1], Mapping):
            return _from_name(spec[0], spec[1], role)
        if _is_estimator(spec[1]):
            return _from_estimator(spec[1], role, spec[0])
    if _is_estimator(spec):
        return _from_estimator(spec, role)
    raise KgfsError(f"a {role} must be a registry name, a (name, params) pair, an estimator or a (label, estimator) "
                    f"pair, got {spec!r}")


def method_specs(specs, role: str) -> list[MethodSpec]:
    """Selectors or classifiers as :class:`MethodSpec` s, every name resolved before any work.

    Parameters
    ----------
    specs : one spec or a list of them
        See :func:`method_spec`.
    role : {"selector", "classifier"}

    Returns
    -------
    list of MethodSpec

    Raises
    ------
    KgfsError
        An unknown name, no specs, or two specs with one label.

    Examples
    --------
    >>> [s.kind for s in method_specs(["rpv", "complete", "fisher"], "selector")]
    ['lazy', 'eager', 'flat']
    >>> method_specs(["nb", "nb"], "classifier")
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: classifiers given twice: nb
    """
    single = isinstance(specs, (str, Entry, MethodSpec)) or _is_estimator(specs) or (
        isinstance(specs, tuple) and len(specs) == 2 and isinstance(specs[0], (str, Entry))
        and (isinstance(specs[1], Mapping) or _is_estimator(specs[1])))
    out = [method_spec(s, role) for s in ([specs] if single else specs)]
    if not out:
        raise KgfsError(f"no {role}s given")
    labels = [s.label for s in out]
    twice = sorted({x for x in labels if labels.count(x) > 1})
    if twice:
        raise KgfsError(f"{role}s given twice: {', '.join(twice)}")
    return out


def protocol_method_spec(spec) -> MethodSpec:
    """A method a protocol resolves itself (e.g. ``hifsrr2017``'s ``fisher``): its name and parameters only.

    Parameters
    ----------
    spec : str, (str, mapping) or MethodSpec

    Returns
    -------
    MethodSpec
        With no estimator.

    Examples
    --------
    >>> protocol_method_spec(("hifsrr", {"lam": 5.0})).label
    'hifsrr[lam=5.0]'
    """
    if isinstance(spec, MethodSpec):
        return spec
    if isinstance(spec, str):
        name, params = spec, {}
    elif isinstance(spec, (tuple, list)) and len(spec) == 2 and isinstance(spec[0], str) and isinstance(spec[1],
                                                                                                     Mapping):
        name, params = spec[0], dict(spec[1])
    else:
        raise KgfsError(f"this protocol resolves its own methods by name; got {spec!r}")
    return MethodSpec(spec_label(name, params), None, params, "protocol method", name)


def params_json(params: Mapping) -> str:
    """Parameters as the canonical JSON of the ``params`` column.

    Parameters
    ----------
    params : mapping

    Returns
    -------
    str

    Examples
    --------
    >>> params_json({"b": 1, "a": "x"})
    '{"a": "x", "b": 1}'
    """
    return json.dumps(params, sort_keys=True, default=str)
