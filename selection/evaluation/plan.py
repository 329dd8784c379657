"""An evaluation's plan, checked before any work, and what a run does when the table is too small for its folds.

- :class:`EvaluationPlan`: what :func:`~selection.evaluation.grid.run_grid` runs: the protocol,
  the methods as :class:`~selection.evaluation.specs.MethodSpec` s (names resolved once), the
  protocol's options, the folds and the seed.
- :func:`plan_evaluation`: makes one, checking everything an evaluation is given against its
  declaration (:mod:`selection.params`): the protocol, the methods, their ``--param`` values,
  the protocol's ``--option`` values, ``--threshold`` and ``--n-splits``; ``kgfs evaluate`` and
  ``kgfs run`` call it before they load anything heavy.
- :func:`fold_policy`: ``kgfs run`` evaluates a table whose smallest class is below the folds
  asked for with fewer folds, or skips the evaluation
  (:func:`~selection.evaluation.grid.write_skipped`), so the table and its exports are still
  written.

Examples
--------
>>> from sklearn.feature_selection import SelectKBest, chi2
>>> plan = plan_evaluation("rpv2020", ["rpv", SelectKBest(chi2, k=50)], params={"rpv.relevance": "ig"})
>>> [s.label for s in plan.selectors], [c.label for c in plan.classifiers], plan.n_splits
(['rpv[relevance=ig]', 'SelectKBest[k=50,score_func=chi2]'], ['nb', '1nn'], 10)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from kg.errors import KgfsError, ParameterError, did_you_mean, param
from selection.evaluation.cv import THRESHOLD_CHOICES
from selection.evaluation.protocols import Protocol, get_protocol
from selection.evaluation.specs import MethodSpec, method_specs, protocol_method_spec
from selection.lazy.classifiers import LAZY_CLASSIFIER_NAMES
from selection.param_routing import method_params
from selection.params import check_values, declared_parameters
from selection.registry import classifier_entry, selector_entry

__all__ = ["EvaluationPlan", "fold_policy", "needs_masks", "plan_evaluation"]


@dataclass(frozen=True)
class EvaluationPlan:
    """What an evaluation runs, every part checked (:func:`plan_evaluation` makes one).

    Parameters
    ----------
    protocol : Protocol
    selectors, classifiers : tuple of MethodSpec
        Names already resolved (estimators are templates, cloned for every fit).
    options : dict
        The protocol options given (checked; defaults not filled in).
    n_splits : int
    random_state : int
        Seed of the folds (and of inner CV folds).

    Examples
    --------
    >>> [c.label for c in plan_evaluation("basic", ["complete"]).classifiers]
    ['nb']
    """

    protocol: Protocol
    selectors: tuple[MethodSpec, ...]
    classifiers: tuple[MethodSpec, ...]
    options: dict
    n_splits: int
    random_state: int = 0

    def classifiers_for(self, selector: MethodSpec) -> tuple[MethodSpec, ...]:
        """The classifiers a selector is scored with: all of them, or those that take per-instance feature masks
        when the selector gives them (:func:`needs_masks`); the others are left out of the grid (:meth:`skipped`).

        Examples
        --------
        >>> plan = plan_evaluation("split", ["hip", "complete"])
        >>> [[c.label for c in plan.classifiers_for(s)] for s in plan.selectors]
        [['nb'], ['logreg', 'logreg-tfidf', 'nb']]
        """
        if not needs_masks(selector, self.protocol, self.options):
            return self.classifiers
        return tuple(c for c in self.classifiers if c.takes_masks)

    def skipped(self) -> list[tuple[str, list[str]]]:
        """``(selector label, [classifier labels])`` of the pairs left out of the grid: a selector that gives
        per-instance masks with the classifiers that cannot score them (said in the report's notes)."""
        out = []
        for s in self.selectors:
            kept = {c.label for c in self.classifiers_for(s)}
            left = [c.label for c in self.classifiers if c.label not in kept]
            if left:
                out.append((s.label, left))
        return out


def needs_masks(selector: MethodSpec, protocol: Protocol, options: Mapping) -> bool:
    """Whether a selector's features are per-instance masks under a protocol: a lazy selector's, or an eager one's
    scored by the lazy classifiers (option ``lazy_classifiers_for_eager``, rpv2020's default)."""
    if selector.kind == "lazy":
        return True
    return selector.kind in ("eager", "flat") and bool(protocol.defaults(options).get("lazy_classifiers_for_eager"))


def _check_pairs(plan: EvaluationPlan) -> None:
    """A selector that gives masks needs at least one classifier that scores them (an error before any work)."""
    names = ", ".join(LAZY_CLASSIFIER_NAMES)
    for s in plan.selectors:
        if plan.classifiers and not plan.classifiers_for(s):
            why = ("a lazy selector: each test instance has its own features" if s.kind == "lazy" else
                   "an eager selector scored by the lazy classifiers (option lazy_classifiers_for_eager)")
            also = "" if s.kind == "lazy" else f", or give {param('options', 'lazy_classifiers_for_eager=false')}"
            raise ParameterError(
                f"selector {s.label} is {why}, and none of the classifiers "
                f"{', '.join(c.label for c in plan.classifiers)} can score per-instance feature masks: add one that "
                f"can to {param('classifiers')} ({names}, or an estimator taking a mask){also}")


def _threshold_option(threshold) -> dict:
    if threshold is None:
        return {}
    if threshold in THRESHOLD_CHOICES:
        return {"threshold_choice": threshold}
    try:
        value = float(threshold)
    except (TypeError, ValueError):
        raise ParameterError(f"{param('threshold')} must be a number, {' or '.join(THRESHOLD_CHOICES)}; "
                             f"got {threshold!r}") from None
    if not np.isfinite(value):
        raise ParameterError(f"{param('threshold')} must be a finite number, got {threshold!r}")
    return {"threshold": value}


def _is_pair(spec) -> bool:
    return isinstance(spec, (tuple, list)) and len(spec) == 2 and isinstance(spec[0], str) and isinstance(spec[1],
                                                                                                          Mapping)


def _names(specs) -> list[str]:
    """The registry names among method specs (``--param`` routes to those)."""
    return [s if isinstance(s, str) else s[0] for s in specs if isinstance(s, str) or _is_pair(s)]


def _scoped(spec, scoped: dict, entries: Mapping):
    """``spec`` with the ``params`` values meant for it (a name becomes a ``(name, params)`` pair), its name replaced
    by its registry entry when ``entries`` holds it (looked up once, by :func:`plan_evaluation`)."""
    if isinstance(spec, str):
        entry = entries.get(spec, spec)
        return (entry, scoped[spec]) if spec in scoped else entry
    if _is_pair(spec):
        return entries.get(spec[0], spec[0]), {**scoped.get(spec[0], {}), **spec[1]}
    return spec


def _protocol_methods(proto: Protocol, selectors) -> tuple[MethodSpec, ...]:
    """A protocol's own methods (``hifsrr2017``'s): names from its list, no estimators."""
    out = []
    for s in selectors:
        spec = protocol_method_spec(s) if not hasattr(s, "fit") else None
        if spec is None or spec.name not in proto.methods:
            name = spec.name if spec is not None else repr(s)
            raise KgfsError(f"protocol {proto.name!r} has no method {name!r}{did_you_mean(name, proto.methods)}; "
                            f"available: {', '.join(proto.methods)}")
        out.append(spec)
    return tuple(out)


def plan_evaluation(protocol: str = "basic", selectors=(), classifiers=None, *, params: Mapping | None = None,
                    options: Mapping | None = None, threshold=None, n_splits=None, random_state: int = 0
                    ) -> EvaluationPlan:
    """Check everything an evaluation is given before any work and resolve its methods once.

    Parameters
    ----------
    protocol : str
    selectors : sequence
        Registry names, ``(name, params)`` pairs, estimators (see
        :mod:`selection.evaluation.specs`), or the protocol's own methods (``hifsrr2017``'s).
    classifiers : sequence, optional
        Likewise; default: the protocol's.
    params : mapping, optional
        ``--param`` assignments (``KEY`` or ``NAME.KEY``; see
        :func:`selection.param_routing.method_params`), for the methods given by name.
    options : mapping, optional
        ``--option`` assignments, checked against the protocol's declared options.
    threshold : str or float, optional
        ``--threshold``: a number (the ``threshold`` option) or ``best-on-test`` / ``nested``
        (the ``threshold_choice`` option); checked against each threshold method's own range.
    n_splits : int, optional
        Folds (default: the protocol's); at least 2.
    random_state : int
        Seed of the folds.

    Returns
    -------
    EvaluationPlan

    Raises
    ------
    KgfsError
        One line naming the option or parameter at fault and what is valid.

    Examples
    --------
    >>> plan_evaluation("basic", ["complete"], n_splits=0)
    Traceback (most recent call last):
    ...
    kg.errors.ParameterError: n_splits must be at least 2 (folds of the stratified cross-validation), got 0
    >>> plan_evaluation("shsel2014", ["shsel-ig"], threshold="0.5").options
    {'threshold': 0.5}
    """
    proto = get_protocol(protocol)
    n_splits = proto.n_splits if n_splits is None else n_splits
    if isinstance(n_splits, bool) or not isinstance(n_splits, (int, np.integer)) or n_splits < 2:
        raise ParameterError(f"{param('n_splits')} must be at least 2 (folds of the stratified cross-validation), "
                             f"got {n_splits!r}")
    selectors = list(selectors)
    if not selectors:
        raise ParameterError(f"no selectors given ({param('selectors')})")
    classifiers = list(proto.classifiers if classifiers is None else classifiers)
    own = proto.methods is not None
    if own:
        _protocol_methods(proto, selectors)
    extra = _threshold_option(threshold)
    both = sorted(set(extra) & set(options or {}))
    if both:
        raise ParameterError(f"{param('threshold')} and {param('options', f'{both[0]}=...')} both given; give one")
    options = proto.check_options({**dict(options or {}), **extra})
    # each registry name is looked up once, here; the routing of params and the specs take the entries
    sel_entries = {} if own else {n: selector_entry(n) for n in _names(selectors)}
    clf_entries = {n: classifier_entry(n) for n in _names(classifiers)}
    scoped = method_params(dict(params or {}), list(sel_entries.values()), list(clf_entries.values()),
                           free=tuple(proto.methods or ()))
    sels = _protocol_methods(proto, [_scoped(s, scoped, {}) for s in selectors]) if own else \
        tuple(method_specs([_scoped(s, scoped, sel_entries) for s in selectors], "selector"))
    clfs = tuple(method_specs([_scoped(c, scoped, clf_entries) for c in classifiers], "classifier"))
    if isinstance(options.get("threshold"), (int, float)) and not own:
        for s in sels:
            if s.threshold_grid is not None:
                check_values(declared_parameters(s.estimator, exclude=("hierarchy",)),
                             {"threshold": options["threshold"]}, owner=f"selector {s.label}")
    plan = EvaluationPlan(proto, sels, clfs, options, int(n_splits), int(random_state))
    _check_pairs(plan)
    return plan


def fold_policy(y, n_splits: int) -> tuple[int, str]:
    """The folds a run uses when its table has too few instances for ``n_splits``, and what to tell the user.

    A run (``kgfs run``) whose main product is the table must not fail because one class is
    small: with the smallest class of ``m >= 2`` members below ``n_splits``, the
    cross-validation uses ``m`` folds; with fewer than 2 members in some class, a single class
    or no labels, the evaluation is skipped. ``kgfs evaluate`` keeps the strict
    :func:`check_folds` (the folds are what the user asked for there).

    Parameters
    ----------
    y : array-like or None
        Class labels of the table.
    n_splits : int
        The folds asked for.

    Returns
    -------
    n_folds : int
        Folds to use; 0 when the evaluation is skipped.
    note : str
        Empty when ``n_folds == n_splits``, else what changed and why.

    Examples
    --------
    >>> fold_policy([0] * 6 + [1] * 3, 10)
    (3, 'class 1 has 3 member(s), fewer than 10 folds: 3-fold cross-validation instead')
    >>> fold_policy(["a", "a", "b"], 10)
    (0, "class 'b' has 1 member(s): evaluation skipped (a stratified cross-validation needs 2 per class)")
    >>> fold_policy([0, 1] * 10, 10)
    (10, '')
    """
    if y is None:
        return 0, "the table has no labels: evaluation skipped"
    labels, counts = np.unique(np.asarray(y), return_counts=True)
    if len(labels) < 2:
        return 0, f"one class only ({labels.tolist()[0]!r}): evaluation skipped" if len(labels) else \
            "the table has no instances: evaluation skipped"
    k = int(np.argmin(counts))
    smallest, lab = int(counts[k]), labels.tolist()[k]
    if smallest < 2:
        return 0, (f"class {lab!r} has {smallest} member(s): evaluation skipped (a stratified cross-validation "
                   "needs 2 per class)")
    if smallest < n_splits:
        return smallest, (f"class {lab!r} has {smallest} member(s), fewer than {n_splits} folds: {smallest}-fold "
                          "cross-validation instead")
    return int(n_splits), ""
