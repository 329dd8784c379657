"""The tables every report of an evaluation is made of: datasets x methods per measure, with their spread.

Kept apart from :mod:`selection.evaluation.report` (which writes the files) and
:mod:`selection.evaluation.html` (which renders the page) so that both read the same numbers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["BASELINE_COLUMN", "BOLD_RULE", "METRIC_NAMES", "STATS_INTRO", "ReportText", "best_cells", "dataset_means",
           "dataset_sds", "degenerate_cells", "metric_names", "rename_headings", "split_budget", "split_features",
           "unbeaten_note"]

METRIC_NAMES = {
    "accuracy": "Classification accuracy",
    "gm": "GM (geometric mean of sensitivity and specificity)",
    "auroc": "AUROC",
    "aucpr": "AUCPR",
    "compression": "Feature space compression",
    "harmonic_mean": "Harmonic mean of accuracy and compression",
    "pct_selected": "% of features selected (per instance for lazy methods)",
}


#: How GM, AUROC and AUCPR are computed for more than two classes (:mod:`selection.evaluation.metrics`), by averaging.
_MULTICLASS_NAMES = {
    "macro": {"gm": "GM (geometric mean of the per-class recalls)",
              "auroc": "AUROC (macro average of the one-vs-rest AUROCs over the classes)",
              "aucpr": "AUCPR (macro average of the one-vs-rest AUCPRs over the classes)"},
    "weighted": {"gm": "GM (one-vs-rest geometric means of sensitivity and specificity, weighted by class frequency)",
                 "auroc": "AUROC (one-vs-rest AUROCs averaged over the classes, weighted by class frequency)",
                 "aucpr": "AUCPR (one-vs-rest AUCPRs averaged over the classes, weighted by class frequency)"},
}


def metric_names(n_classes=(), averaging: str | None = "macro") -> dict:
    """The measures' titles, naming a multi-class task's averaging (no positive class is claimed there).

    Parameters
    ----------
    n_classes : iterable of int
        The classes of each dataset of the evaluation (empty: binary tasks).
    averaging : {"macro", "weighted"}, optional
        How GM, AUROC and AUCPR are averaged over more than two classes.

    Returns
    -------
    dict
        Measure -> title; with binary and multi-class datasets together, both forms are named.

    Examples
    --------
    >>> metric_names([2])["auroc"], metric_names([4])["auroc"]
    ('AUROC', 'AUROC (macro average of the one-vs-rest AUROCs over the classes)')
    >>> metric_names([2, 4])["gm"]
    'GM (binary: geometric mean of sensitivity and specificity; multi-class: geometric mean of the per-class recalls)'
    """
    ks = set(int(k) for k in n_classes)
    multi = any(k > 2 for k in ks)
    names = dict(METRIC_NAMES)
    if not multi:
        return names
    many = _MULTICLASS_NAMES.get(averaging or "macro", _MULTICLASS_NAMES["macro"])
    if not any(k <= 2 for k in ks):
        return {**names, **many}
    binary = {"gm": "geometric mean of sensitivity and specificity", "auroc": "of the positive class",
              "aucpr": "of the positive class"}
    for m, title in many.items():
        short, _, how = title.partition(" (")
        names[m] = f"{short} (binary: {binary[m]}; multi-class: {how.rstrip(')')})"
    return names


@dataclass(frozen=True)
class ReportText:
    """The words of a report beside its numbers: the answer it opens with, its notes, the measures' titles.

    Attributes
    ----------
    answer : tuple of str
        One sentence per dataset (``ReportSettings.answer``'s), first under the title.
    notes : tuple of str
        Bullet points under the answer (the protocol, the folds, what the measures are of, ...).
    names : mapping
        Measure -> title (:func:`metric_names`).

    Examples
    --------
    >>> ReportText(notes=("n",)).names["accuracy"]
    'Classification accuracy'
    """

    answer: tuple = ()
    notes: tuple = ()
    names: Mapping = field(default_factory=lambda: dict(METRIC_NAMES))


def rename_headings(markdown: str, names: Mapping) -> str:
    r"""``## <title> -- <classifier>`` headings of a report (``stats.md``) with the titles of ``names``.

    Examples
    --------
    >>> rename_headings("# T\n## AUROC -- nb\n", {"auroc": "AUROC (macro)"})
    '# T\n## AUROC (macro) -- nb\n'
    """
    for m, title in names.items():
        old = METRIC_NAMES.get(m)
        if old and old != title:
            markdown = markdown.replace(f"\n## {old} -- ", f"\n## {title} -- ")
            if markdown.startswith(f"## {old} -- "):
                markdown = f"## {title} -- " + markdown[len(f"## {old} -- "):]
    return markdown


#: What bold means in the tables of the reports (the rule of :func:`best_cells`).
BOLD_RULE = ("**bold**: the best per dataset among the methods whose mean is above the majority-class baseline's "
             "(above on average, not necessarily significantly: the answer at the top and the statistics say that); "
             "nothing is bold where no method is above it")


def best_cells(means: pd.DataFrame, baseline: pd.Series | None = None, *, higher_is_better: bool = True,
               atol: float = 1e-12) -> pd.DataFrame:
    """Datasets x methods: True for the cells shown in bold (:data:`BOLD_RULE`).

    Per dataset, the best mean; with a baseline, the best among the methods whose mean is strictly above the
    baseline's (below, for a measure where lower is better): a row where none is has no bold cell.

    Parameters
    ----------
    means : pandas.DataFrame
        Datasets x methods (NaN: failed).
    baseline : pandas.Series, optional
        Dataset -> the baseline's mean.
    higher_is_better : bool
    atol : float
        Ties with the best are bold too.

    Returns
    -------
    pandas.DataFrame of bool

    Examples
    --------
    >>> m = pd.DataFrame({"A": [0.70, 0.90], "B": [0.71, 0.80]}, index=["d1", "d2"])
    >>> best_cells(m).values.tolist()
    [[False, True], [True, False]]
    >>> best_cells(m, pd.Series({"d1": 0.72, "d2": 0.85})).values.tolist()
    [[False, False], [True, False]]
    """
    out = pd.DataFrame(False, index=means.index, columns=means.columns)
    for d, row in means.iterrows():
        vals = row.astype(float)
        b = np.nan if baseline is None else baseline.get(d, np.nan)
        if b == b:
            vals = vals[vals > b + atol] if higher_is_better else vals[vals < b - atol]
        vals = vals.dropna()
        if not len(vals):
            continue
        best = vals.max() if higher_is_better else vals.min()
        out.loc[d, vals.index[np.isclose(vals.to_numpy(), best, rtol=0, atol=atol)]] = True
    return out


def unbeaten_note(means: pd.DataFrame, baseline: pd.Series | None = None, *, higher_is_better: bool = True) -> str:
    """What a table says instead of bolding where no method is above the baseline (``""`` where some method is).

    Examples
    --------
    >>> m = pd.DataFrame({"A": [0.70, 0.90], "B": [0.71, 0.80]}, index=["d1", "d2"])
    >>> unbeaten_note(m, pd.Series({"d1": 0.72, "d2": 0.95}))
    'No method is above the majority-class baseline here: nothing is bold.'
    >>> unbeaten_note(m, pd.Series({"d1": 0.72, "d2": 0.85}))
    'No method is above the majority-class baseline on d1: nothing is bold there.'
    """
    if baseline is None:
        return ""
    rows = [d for d, r in best_cells(means, baseline, higher_is_better=higher_is_better).iterrows()
            if not r.any() and baseline.get(d, np.nan) == baseline.get(d, np.nan)]
    if not rows:
        return ""
    if len(rows) == len(means.index):
        return "No method is above the majority-class baseline here: nothing is bold."
    return f"No method is above the majority-class baseline on {', '.join(map(str, rows))}: nothing is bold there."


def _order(values) -> list:
    return list(dict.fromkeys(values))


def _example_results() -> pd.DataFrame:
    """Results of 2 datasets x 2 methods x 1 classifier x 2 folds (for the examples)."""
    acc = {("d1", "A"): (0.6, 0.8), ("d1", "B"): (0.7, 0.7), ("d2", "A"): (0.9, 0.9), ("d2", "B"): (0.5, 0.7)}
    return pd.DataFrame([{"dataset": d, "selector": m, "classifier": "nb", "fold": f, "accuracy": a,
                          "compression": {"A": 0.0, "B": 0.5}[m], "select_seconds": 0.01, "status": "ok",
                          "error": ""} for (d, m), accs in acc.items() for f, a in enumerate(accs)])


def dataset_means(results: pd.DataFrame, metric: str, classifier: str) -> pd.DataFrame:
    """Datasets x methods: the mean of ``metric`` over folds (NaN where any fold failed).

    Parameters
    ----------
    results : pandas.DataFrame
        One row per dataset x selector x classifier x fold, with ``status``.
    metric : str
        A column of ``results``, or ``pct_selected`` (100 x (1 - compression)).
    classifier : str

    Returns
    -------
    pandas.DataFrame
        Datasets and methods in their order of appearance.

    Examples
    --------
    >>> dataset_means(_example_results(), "accuracy", "nb").round(2).values.tolist()
    [[0.7, 0.7], [0.9, 0.6]]
    """
    r = results[results["classifier"] == classifier]
    if metric == "pct_selected":
        r = r.assign(pct_selected=100.0 * (1.0 - r["compression"]))
    ok = r["status"].eq("ok")
    means = r[ok].groupby(["dataset", "selector"], sort=False)[metric].mean()
    bad = r[~ok].groupby(["dataset", "selector"], sort=False).size()
    df = means.unstack("selector")
    for (d, s) in bad.index:
        if d not in df.index:
            df.loc[d] = np.nan
        if s not in df.columns:
            df[s] = np.nan
        df.loc[d, s] = np.nan
    rows = [d for d in _order(results["dataset"]) if d in df.index]
    cols = [s for s in _order(results["selector"]) if s in df.columns]
    return df.reindex(index=rows, columns=cols)


def dataset_sds(results: pd.DataFrame, metric: str, classifier: str) -> pd.DataFrame:
    """Datasets x methods: the sd of ``metric`` over the successful folds (the spread beside :func:`dataset_means`).

    Parameters
    ----------
    results : pandas.DataFrame
    metric : str
    classifier : str

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> dataset_sds(_example_results(), "accuracy", "nb").round(3).values.tolist()
    [[0.141, 0.0], [0.0, 0.141]]
    """
    r = results[(results["classifier"] == classifier) & results["status"].eq("ok")]
    if metric == "pct_selected":
        r = r.assign(pct_selected=100.0 * (1.0 - r["compression"]))
    df = r.groupby(["dataset", "selector"], sort=False)[metric].std().unstack("selector")
    means = dataset_means(results, metric, classifier)
    return df.reindex(index=means.index, columns=means.columns)


def degenerate_cells(results: pd.DataFrame, classifier: str) -> pd.DataFrame:
    """Datasets x methods: True where the method's selection was degenerate in some fold (``degenerate`` column).

    Parameters
    ----------
    results : pandas.DataFrame
    classifier : str

    Returns
    -------
    pandas.DataFrame of bool

    Examples
    --------
    >>> r = _example_results().assign(degenerate=["", "", "only roots", "", "", "", "", ""])
    >>> degenerate_cells(r, "nb").values.tolist()
    [[False, True], [False, False]]
    """
    means = dataset_means(results, "accuracy" if "accuracy" in results else "compression", classifier)
    if "degenerate" not in results:
        return means.notna() & False
    r = results[results["classifier"] == classifier]
    flag = r["degenerate"].map(lambda v: isinstance(v, str) and bool(v))
    df = flag.groupby([r["dataset"], r["selector"]], sort=False).any().unstack("selector")
    return df.reindex(index=means.index, columns=means.columns).fillna(False).astype(bool)



#: The baseline's column in report tables.
BASELINE_COLUMN = "majority class (prior)"


def _complete(df: pd.DataFrame) -> pd.DataFrame:
    return df.dropna(axis=0, how="any")


#: What ``stats.md`` (and the HTML report) say first: which test, when, and why.
STATS_INTRO = (
    "How to read this (the choices and their references are in `selection.evaluation.stats`):",
    "",
    "- **One dataset**: the methods are compared over the folds of the cross-validation with the *corrected "
    "resampled t-test* of Nadeau and Bengio (2003): the folds' training sets overlap, so their scores are not "
    "independent, and the plain paired t-test would find differences that are not there. Each row gives the mean "
    "difference over the folds with its interval; each method is compared with the control and with the "
    "majority-class baseline.",
    "- **Several datasets**: Friedman's test on the ranks, with Iman and Davenport's F as the verdict (Demšar "
    "2006 recommends it over Friedman's conservative X²_F); Holm's post-hoc test against a control and the "
    "critical-difference diagram are read only when that omnibus test rejects. With fewer than 11 datasets "
    "(Demšar's rule of thumb N > 10) every rank test is *exploratory*: a warning, and no critical-difference verdict.",
    "- Rank 1 is best. Datasets where some method failed are left out of the rank tests.",
)


def split_features(results: pd.DataFrame) -> pd.DataFrame:
    """The final models' selected features of a split evaluation, one row per dataset x selector x classifier x
    feature (``selected_features.csv``), from the rows' ``selected_features`` column.

    Parameters
    ----------
    results : pandas.DataFrame

    Returns
    -------
    pandas.DataFrame
        ``dataset``, ``selector``, ``classifier``, ``rank``, ``feature``, ``label``, ``support`` (and
        ``test_instances`` for a lazy selector), then what the rows hold besides (the split protocol: the class
        enrichment on the training part, ``enriched_in``, ``p_enrichment``, ``q_enrichment``, ``support_<class>``);
        empty without the column.

    Examples
    --------
    >>> r = pd.DataFrame([{"dataset": "d", "selector": "s", "classifier": "c",
    ...                    "selected_features": '[{"feature": "f", "label": "F", "support": 2}]'}])
    >>> split_features(r).to_dict("records")
    [{'dataset': 'd', 'selector': 's', 'classifier': 'c', 'rank': 1, 'feature': 'f', 'label': 'F', 'support': 2}]
    """
    rows = []
    if "selected_features" not in results:
        return pd.DataFrame(rows)
    for r in results.to_dict("records"):
        raw = r.get("selected_features")
        if not isinstance(raw, str) or not raw:
            continue
        for k, f in enumerate(json.loads(raw), start=1):
            rows.append({"dataset": r["dataset"], "selector": r["selector"], "classifier": r["classifier"],
                         "rank": k, **f})
    return pd.DataFrame(rows)


def split_budget(row: Mapping) -> str:
    """``(at most 10% kept in each inner fold)`` for a split row searched under a budget (its ``max_kept``), else "".

    >>> split_budget({"max_kept": 0.1}), split_budget({"max_kept": float("nan")}), split_budget({})
    (' (at most 10% kept in each inner fold)', '', '')
    """
    share = row.get("max_kept")
    try:
        share = float(share)
    except (TypeError, ValueError):
        return ""
    return f" (at most {share * 100:g}% kept in each inner fold)" if np.isfinite(share) else ""
