"""The answer of an evaluation, per dataset: does the best method beat the majority-class baseline?

:func:`verdicts` takes the methods' rows per fold and the baseline's (:mod:`selection.evaluation.baseline`)
and gives, per dataset, one :class:`Verdict`: the best method (selector x classifier) on the headline
measure, its difference from the baseline over the folds with its ``1 - alpha`` interval, and what the
paired test says. The test is the one ``stats.md`` already runs against the baseline
(:func:`selection.evaluation.significance.stats_blocks`, one dataset at a time: the corrected resampled
t-test of Nadeau and Bengio 2003, Holm-adjusted over that dataset's comparisons of the best method's
classifier), so the answer and the statistics never disagree. The wording is the application's
(``flows.publishing.answer``); this module gives numbers only (``answer.json``:
:meth:`Verdict.to_dict`).

Choices:

- *best*: the highest mean over the folds of the headline measure among the method cells whose folds
  all succeeded (ties: the first in the results' order); a measure where lower is better is not a
  headline measure.
- *outcome*: ``better`` / ``worse`` when the Holm-adjusted p-value is below ``alpha`` (by the sign of the
  difference), ``no significant difference`` otherwise, ``untested`` when there is no paired test (one
  fold, a fixed train/test split: the difference alone is given) and ``no results`` when no method has a
  complete score. Picking the best of several methods and then testing it favours it; the Holm
  adjustment over the dataset's comparisons only partly accounts for that, so a ``better`` of many
  methods is weaker evidence than one planned comparison.

Examples
--------
>>> import pandas as pd
>>> rows = [{"dataset": "d", "selector": s, "classifier": "nb", "fold": k, "accuracy": a, "n_train": 8, "n_test": 2,
...          "status": "ok"} for s, accs in (("A", [0.5, 1.0, 0.5, 1.0]), ("B", [1.0, 1.0, 1.0, 0.5]))
...         for k, a in enumerate(accs)]
>>> base = pd.DataFrame([{"dataset": "d", "fold": k, "accuracy": 0.5} for k in range(4)])
>>> v = verdicts(pd.DataFrame(rows), base, "accuracy")[0]
>>> v.selector, v.classifier, v.value, v.baseline, round(v.difference, 3), v.outcome
('B', 'nb', 0.875, 0.5, 0.375, 'no significant difference')
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields

import pandas as pd

from selection.evaluation.tables import BASELINE_COLUMN, _order

__all__ = ["OUTCOMES", "Verdict", "headline_measure", "verdicts"]

#: What a verdict can say.
OUTCOMES = ("better", "worse", "no significant difference", "untested", "no results")

_TEST = "corrected resampled t-test (Nadeau and Bengio 2003), Holm-adjusted"


@dataclass(frozen=True)
class Verdict:
    """One dataset's answer: the best method on ``measure`` against the majority-class baseline.

    Attributes
    ----------
    dataset, measure : str
    selector, classifier : str or None
        The best method (None: ``no results``).
    value, baseline : float
        Their means over the folds (``baseline`` NaN without a baseline).
    difference : float
        Mean over the folds of best - baseline (NaN without a baseline).
    ci_low, ci_high : float
        Its ``confidence`` interval (NaN when ``untested``).
    confidence : float
        ``1 - alpha``.
    p_value, p_holm : float
        The paired test's p-value and its Holm adjustment over ``n_comparisons`` (NaN when ``untested``).
    n_comparisons, n_folds : int
    outcome : str
        One of :data:`OUTCOMES`.
    test : str
        The test's name (``""`` when ``untested``).
    n_methods : int
        Method cells with a complete score (the best is one of them).
    n_classes : int or None
        The task's classes, when known.
    averaging : str or None
        ``macro`` / ``weighted`` for a multi-class task's GM, AUROC and AUCPR, None for a binary one.
    degenerate : bool
        The best method's selection was degenerate in some fold (empty, only roots, only constant features).
    """

    dataset: str
    measure: str
    selector: str | None
    classifier: str | None
    value: float
    baseline: float
    difference: float
    ci_low: float
    ci_high: float
    confidence: float
    p_value: float
    p_holm: float
    n_comparisons: int
    n_folds: int
    outcome: str
    test: str
    n_methods: int
    n_classes: int | None = None
    averaging: str | None = None
    degenerate: bool = False

    @property
    def beats(self) -> bool:
        """The best method is significantly better than the baseline."""
        return self.outcome == "better"

    @property
    def above(self) -> bool:
        """The best method's mean is above the baseline's (significantly or not)."""
        return self.difference == self.difference and self.difference > 0

    def to_dict(self) -> dict:
        """A JSON-ready dict (NaN as None).

        Examples
        --------
        >>> Verdict.from_dict({"dataset": "d", "measure": "accuracy", "selector": None, "outcome": "no results"}
        ...                   ).to_dict()["value"] is None
        True
        """
        return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, d: Mapping) -> Verdict:
        """The inverse of :meth:`to_dict` (missing numbers: NaN, unknown keys ignored)."""
        known = {f.name: f for f in fields(cls)}
        nums = {"value", "baseline", "difference", "ci_low", "ci_high", "confidence", "p_value", "p_holm"}
        out = {k: (float("nan") if k in nums and d.get(k) is None else d.get(k)) for k in known if k in d}
        for k in nums - set(out):
            out[k] = float("nan")
        out.setdefault("selector", None)
        out.setdefault("classifier", None)
        for k in ("n_comparisons", "n_folds", "n_methods"):
            out[k] = int(out.get(k) or 0)
        out.setdefault("outcome", "no results")
        out.setdefault("test", "")
        out["degenerate"] = bool(out.get("degenerate") or False)
        return cls(**out)


def headline_measure(rank_metrics=(), metrics=()) -> str:
    """The measure an evaluation's answer is given on: the protocol's first ranked measure (else its first measure,
    else accuracy).

    Examples
    --------
    >>> headline_measure(("aucpr", "auroc")), headline_measure((), ("accuracy", "gm")), headline_measure()
    ('aucpr', 'accuracy', 'accuracy')
    """
    for m in (*rank_metrics, *metrics):
        if m not in ("compression", "pct_selected", "select_seconds"):
            return m
    return "accuracy"


def _nan() -> float:
    return float("nan")


def verdicts(results: pd.DataFrame, baseline: pd.DataFrame | None, measure: str, *, alpha: float = 0.05,
             control=None, default_control=None, n_classes: Mapping | None = None,
             averaging: str | None = "macro") -> list[Verdict]:
    """Per dataset, the best method on ``measure`` against the majority-class baseline (see the module).

    Parameters
    ----------
    results : pandas.DataFrame
        The methods' rows per fold (``dataset``, ``selector``, ``classifier``, ``fold``, ``status``,
        ``n_train``, ``n_test``, the measure).
    baseline : pandas.DataFrame or None
        The baseline's rows per fold (``dataset``, ``fold``, the measure).
    measure : str
    alpha : float
        The tests' level (the interval is ``1 - alpha``).
    control, default_control : str, optional
        As given to :func:`~selection.evaluation.significance.stats_blocks` for ``stats.md`` (they decide the
        comparisons Holm adjusts over).
    n_classes : mapping, optional
        Dataset -> number of classes.
    averaging : str, optional
        The multi-class averaging of GM, AUROC, AUCPR (recorded for a dataset of more than two classes).

    Returns
    -------
    list of Verdict
        One per dataset, in the results' order.
    """
    from selection.evaluation.significance import stats_blocks

    out = []
    if results is None or results.empty or measure not in results:
        return out
    n_classes = dict(n_classes or {})
    for d in _order(results["dataset"]):
        r = results[results["dataset"] == d]
        b = None if baseline is None or not len(baseline) or measure not in baseline else \
            baseline[baseline["dataset"] == d]
        k = n_classes.get(d)
        avg = averaging if k is not None and k > 2 else None
        ok = r["status"].eq("ok") & r[measure].notna()
        complete = (r["status"].eq("ok") & r[measure].notna()).groupby([r["selector"], r["classifier"]],
                                                                        sort=False).all()
        means = r[ok].groupby(["selector", "classifier"], sort=False)[measure].mean()
        means = means[[bool(complete.get(i, False)) for i in means.index]]
        base_value = float(b[measure].mean()) if b is not None and len(b) else _nan()
        conf = 1 - alpha
        if means.empty:
            out.append(Verdict(d, measure, None, None, _nan(), base_value, _nan(), _nan(), _nan(), conf, _nan(),
                               _nan(), 0, 0, "no results", "", 0, k, avg))
            continue
        (sel, clf), value = means.idxmax(), float(means.max())
        cell = r[ok & r["selector"].eq(sel) & r["classifier"].eq(clf)]
        n_folds = int(cell["fold"].nunique())
        bad = bool(cell["degenerate"].map(lambda x: isinstance(x, str) and bool(x)).any()) if "degenerate" in cell \
            else False
        row, n_cmp = None, 0
        if b is not None and len(b):
            for block in stats_blocks(r[r["classifier"] == clf], [measure], control=control if control in set(
                    r["selector"]) else None, default_control=default_control, alpha=alpha, baseline=b):
                if block.get("kind") == "paired":
                    n_cmp = len(block["rows"])
                    row = next((x for x in block["rows"] if x["method"] == sel and x["against"] == BASELINE_COLUMN),
                               None)
        if row is None:
            diff = value - base_value
            out.append(Verdict(d, measure, sel, clf, value, base_value, diff, _nan(), _nan(), conf, _nan(), _nan(),
                               0, n_folds, "untested", "", len(means), k, avg, bad))
            continue
        p_holm = float(row["p_holm"])
        outcome = ("better" if row["mean_difference"] > 0 else "worse") if p_holm < alpha else \
            "no significant difference"
        out.append(Verdict(d, measure, sel, clf, value, base_value, float(row["mean_difference"]),
                           float(row["ci_low"]), float(row["ci_high"]), conf, float(row["p_value"]), p_holm, n_cmp,
                           int(row["n_folds"]), outcome, _TEST, len(means), k, avg, bad))
    return out
