"""The tables every report of an evaluation is made of: datasets x methods per measure, with their spread.

Kept apart from :mod:`selection.evaluation.report` (which writes the files) and
:mod:`selection.evaluation.html` (which renders the page) so that both read the same numbers.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

__all__ = ["BASELINE_COLUMN", "METRIC_NAMES", "STATS_INTRO", "dataset_means", "dataset_sds", "degenerate_cells",
           "split_features"]

METRIC_NAMES = {
    "accuracy": "Classification accuracy",
    "gm": "GM (geometric mean of sensitivity and specificity)",
    "auroc": "AUROC",
    "aucpr": "AUCPR",
    "compression": "Feature space compression",
    "harmonic_mean": "Harmonic mean of accuracy and compression",
    "pct_selected": "% of features selected (per instance for lazy methods)",
}


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
        ``test_instances`` for a lazy selector); empty without the column.

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
