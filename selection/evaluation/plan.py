"""What a command checks before it evaluates, and what a run does when the table is too small for its folds.

- :func:`plan_evaluation`: the protocol, the methods, their ``--param`` values, the protocol's
  ``--option`` values, ``--threshold`` and ``--n-splits``, every one checked against its
  declaration (:mod:`selection.params`) before any work; ``kgfs evaluate`` and ``kgfs run``
  call it before they load anything heavy.
- :func:`fold_policy` and :func:`write_skipped`: ``kgfs run`` evaluates a table whose smallest
  class is below the folds asked for with fewer folds, or skips the evaluation (writing empty
  results and a report saying why), so the table and its exports are still written.

Examples
--------
>>> plan = plan_evaluation("rpv2020", ["rpv", "shsel-ig-prune"], params={"shsel-ig-prune.threshold": 0.9})
>>> plan.selectors, plan.classifiers, plan.n_splits
(['rpv', ('shsel-ig-prune', {'threshold': 0.9})], ['nb', '1nn'], 10)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from kg.errors import KgfsError
from selection.evaluation.cv import COLUMNS, THRESHOLD_CHOICES
from selection.evaluation.protocols import Protocol, get_protocol
from selection.param_routing import method_params
from selection.registry import classifier_entry, selector_entry

__all__ = ["EvaluationPlan", "check_methods", "fold_policy", "plan_evaluation", "write_skipped"]


@dataclass(frozen=True)
class EvaluationPlan:
    """An evaluation's protocol, method specs, options and folds, every one checked (:func:`plan_evaluation`).

    Parameters
    ----------
    protocol : Protocol
    selectors, classifiers : list
        Registry names, or ``(name, params)`` pairs when parameters were given.
    options : dict
        The protocol options given (checked; defaults not filled in).
    n_splits : int

    Examples
    --------
    >>> plan_evaluation("basic", ["complete"]).classifiers
    ['nb']
    """

    protocol: Protocol
    selectors: list
    classifiers: list
    options: dict
    n_splits: int


def _threshold_option(threshold) -> dict:
    if threshold is None:
        return {}
    if threshold in THRESHOLD_CHOICES:
        return {"threshold_choice": threshold}
    try:
        value = float(threshold)
    except (TypeError, ValueError):
        raise KgfsError(f"--threshold must be a number, {' or '.join(THRESHOLD_CHOICES)}; got {threshold!r}") from None
    if not np.isfinite(value):
        raise KgfsError(f"--threshold must be a finite number, got {threshold!r}")
    return {"threshold": value}


def check_methods(proto: Protocol, selectors, classifiers) -> None:
    """Every selector is one of the protocol's methods (any registered one when it lists none), every
    classifier is registered; else a one-line error naming the valid ones.

    Parameters
    ----------
    proto : Protocol
    selectors, classifiers : iterable of str
        Names.

    Returns
    -------
    None

    Examples
    --------
    >>> try:
    ...     check_methods(get_protocol("hifsrr2017"), ["shsel-ig-prune"], ["nb"])
    ... except KgfsError as e:
    ...     print(str(e).split(";")[0])
    protocol 'hifsrr2017' has no method 'shsel-ig-prune'
    """
    for s in selectors:
        if proto.methods is None:
            selector_entry(s)
        elif s not in proto.methods:
            raise KgfsError(f"protocol {proto.name!r} has no method {s!r}; available: {', '.join(proto.methods)}")
    for c in classifiers:
        classifier_entry(c)


def plan_evaluation(protocol: str = "basic", selectors=(), classifiers=None, *, params: Mapping | None = None,
                    options: Mapping | None = None, threshold=None, n_splits=None) -> EvaluationPlan:
    """Check everything an evaluation is given before any work: protocol, methods, parameters, options, folds.

    Parameters
    ----------
    protocol : str
    selectors : sequence of str
        Registry names (or the protocol's own methods, e.g. ``hifsrr2017``'s).
    classifiers : sequence of str, optional
        Default: the protocol's.
    params : mapping, optional
        ``--param`` assignments (``KEY`` or ``NAME.KEY``; see :func:`selection.param_routing.method_params`).
    options : mapping, optional
        ``--option`` assignments, checked against the protocol's declared options.
    threshold : str or float, optional
        ``--threshold``: a number (the ``threshold`` option) or ``best-on-test`` / ``nested``
        (the ``threshold_choice`` option); checked against each threshold method's own range.
    n_splits : int, optional
        Folds (default: the protocol's); at least 2.

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
    kg.errors.KgfsError: --n-splits must be at least 2 (folds of the stratified cross-validation), got 0
    >>> plan_evaluation("shsel2014", ["shsel-ig"], threshold="0.5").options
    {'threshold': 0.5}
    """
    proto = get_protocol(protocol)
    n_splits = proto.n_splits if n_splits is None else n_splits
    if isinstance(n_splits, bool) or not isinstance(n_splits, (int, np.integer)) or n_splits < 2:
        raise KgfsError(f"--n-splits must be at least 2 (folds of the stratified cross-validation), got {n_splits!r}")
    selectors = list(selectors)
    if not selectors:
        raise KgfsError("no selectors given (--selectors)")
    free = tuple(proto.methods or ())
    classifiers = list(proto.classifiers if classifiers is None else classifiers)
    check_methods(proto, selectors, classifiers)
    extra = _threshold_option(threshold)
    both = sorted(set(extra) & set(options or {}))
    if both:
        raise KgfsError(f"--threshold and --option {both[0]}=... both given; give one")
    options = proto.check_options({**dict(options or {}), **extra})
    if isinstance(options.get("threshold"), (int, float)) and proto.methods is None:
        for s in selectors:
            if selector_entry(s).threshold_grid is not None:
                selector_entry(s).check_params({"threshold": options["threshold"]})
    scoped = method_params(dict(params or {}), [s for s in selectors], classifiers, free=free)
    return EvaluationPlan(proto, [(s, scoped[s]) if s in scoped else s for s in selectors],
                          [(c, scoped[c]) if c in scoped else c for c in classifiers], options, int(n_splits))


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


def write_skipped(out_dir, note: str, *, protocol: str = "basic") -> dict:
    """The outputs of an evaluation that was skipped: empty ``results.csv`` and ``summary.csv``, a report saying why.

    Parameters
    ----------
    out_dir : path
    note : str
        Why (from :func:`fold_policy`).
    protocol : str
        The protocol that would have run (its measures head the empty summary).

    Returns
    -------
    selection.evaluation.grid.GridResult
        With no cells.

    Examples
    --------
    >>> import tempfile
    >>> res = write_skipped(tempfile.mkdtemp(), "one class only")
    >>> "Evaluation skipped: one class only." in res.report.read_text(), res.n_cells
    (True, 0)
    """
    from selection.evaluation.grid import GridResult
    from selection.evaluation.report import write_outputs

    proto = get_protocol(protocol)
    p = write_outputs(pd.DataFrame(columns=COLUMNS), out_dir, metrics=proto.metrics, rank_metrics=proto.rank_metrics,
                      title=f"Evaluation report ({proto.name})", notes=[f"Evaluation skipped: {note}."], plots=False)
    return GridResult(Path(out_dir), p["results"], p["summary"], p["stats"], p["report"])
