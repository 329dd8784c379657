"""What a person reads first about an evaluation and a selection (the CLI, the run report, the Prefect UI).

- :func:`headline`: one row per selector x classifier of a ``summary.csv``
  (:func:`selection.evaluation.report.summarize`) with the columns read first, each a mean over
  the folds with its spread (``0.712 ± 0.127``), rounded; the other columns stay in the CSV.
- :func:`kept_features`: the kept features of a selection frame, rounded, most relevant first, with
  their class enrichment in words (``enriched in X (p=…, q=…)``);
- :func:`selection_warnings`: what makes a selection degenerate (nothing kept, only roots of the
  hierarchy kept, only features with the same value in every instance kept), from a selection
  frame (:func:`selection.frames.selection_frame`, ``selection.csv``);
- :func:`run_results`: the three for a pipeline run, from its files.

Examples
--------
>>> import pandas as pd
>>> s = pd.DataFrame({"dataset": "d", "selector": ["A"], "classifier": "nb", "folds": [10], "failed": [0],
...                   "n_features": [699.0], "n_selected": [113.1], "n_selected_sd": [5.4],
...                   "accuracy": [0.70897], "accuracy_sd": [0.1268]})
>>> headline(s).iloc[0].tolist()
['A', 'nb', '113 ± 5 of 699', '0.709 ± 0.127', '10']
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from selection.evaluation.baseline import BASELINE, BASELINE_CLASSIFIER
from selection.measures.enrichment import enrichment_texts

__all__ = ["HEADLINE_MEASURES", "headline", "kept_features", "row_note", "run_results", "selection_warnings"]

#: Summary measures shown in the headline (column title); the others stay in ``summary.csv``.
HEADLINE_MEASURES = {"accuracy": "accuracy", "auroc": "AUROC"}


def _pm(mean, sd, digits: int) -> str:
    """``mean ± sd`` rounded to ``digits`` (``-`` for a missing mean, no spread when it is missing)."""
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "-"
    if sd is None or (isinstance(sd, float) and math.isnan(sd)):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {sd:.{digits}f}"


def headline(summary: pd.DataFrame, *, digits: int = 3) -> pd.DataFrame:
    """The first columns a person reads of a ``summary.csv``, as rounded text with the spread over the folds.

    Parameters
    ----------
    summary : pandas.DataFrame
        One row per dataset x selector x classifier (:func:`selection.evaluation.report.summarize`).
    digits : int
        Decimals of the measures.

    Returns
    -------
    pandas.DataFrame
        Columns ``selector``, ``classifier``, ``features kept (CV mean)`` (the number of features
        each fold's selector kept, mean ± sd over the folds, of all features: it differs from the
        selection on the whole table), the measures of :data:`HEADLINE_MEASURES` present (mean ± sd)
        and ``folds`` (``"10"``, or ``"9 (1 failed)"``); ``dataset`` first when there are several.

    Examples
    --------
    >>> s = pd.DataFrame({"dataset": "d", "selector": ["A", "B"], "classifier": "nb", "folds": [3, 2],
    ...                   "failed": [0, 1], "accuracy": [0.5, 0.75], "accuracy_sd": [0.1, float("nan")]})
    >>> headline(s, digits=2).to_dict("records")[1]
    {'selector': 'B', 'classifier': 'nb', 'accuracy': '0.75', 'folds': '2 (1 failed)'}
    """
    out = pd.DataFrame(index=summary.index)
    if summary["dataset"].nunique() > 1:
        out["dataset"] = summary["dataset"]
    out["selector"], out["classifier"] = summary["selector"], summary["classifier"]
    if "n_selected" in summary:
        of = summary["n_features"] if "n_features" in summary else pd.Series(float("nan"), index=summary.index)
        out["features kept (CV mean)"] = [
            _pm(m, s, 0) + ("" if isinstance(n, float) and math.isnan(n) else f" of {n:.0f}")
            for m, s, n in zip(summary["n_selected"], summary.get("n_selected_sd", of * float("nan")), of)]
    for m, title in HEADLINE_MEASURES.items():
        if m in summary:
            out[title] = [_pm(a, b, digits) for a, b in zip(summary[m], summary.get(f"{m}_sd", summary[m] * math.nan))]
    folds = summary["folds"].astype(int).astype(str)
    failed = summary["failed"].astype(int) if "failed" in summary else 0 * summary["folds"]
    out["folds"] = [f if not n else f"{f} ({n} failed)" for f, n in zip(folds, failed)]
    notes = [row_note(r) for r in summary.to_dict("records")]
    if any(notes):
        out["note"] = notes
    return out.reset_index(drop=True)


def row_note(row) -> str:
    """What a person must know about a summary row before reading its numbers: a degenerate selection, the baseline.

    Parameters
    ----------
    row : mapping
        A row of ``summary.csv``.

    Returns
    -------
    str
        ``"DEGENERATE selection: only roots; constant (10/10 folds)"``, ``"baseline (no feature)"``, or ``""``.

    Examples
    --------
    >>> row_note({"selector": "s", "classifier": "nb", "degenerate": "empty (2/10 folds)"})
    'DEGENERATE selection: empty (2/10 folds)'
    >>> row_note({"selector": "majority class", "classifier": "prior", "degenerate": float("nan")})
    'baseline (no feature)'
    """
    if row.get("selector") == BASELINE and row.get("classifier") == BASELINE_CLASSIFIER:
        return "baseline (no feature)"
    d = row.get("degenerate")
    return f"DEGENERATE selection: {d}" if isinstance(d, str) and d else ""


def selection_warnings(frame: pd.DataFrame, n_instances: int | None = None, hierarchy=None) -> list[str]:
    """Why a selection cannot help a classifier, if it cannot: empty, only roots, only constant features.

    Parameters
    ----------
    frame : pandas.DataFrame
        A selection frame (``selection.csv``): one row per feature with ``feature``, ``selected``
        and, when known, ``name``, ``n_parents`` and ``support`` (instances having the feature).
    n_instances : int, optional
        The table's instances (a feature in all of them is constant too).
    hierarchy : FeatureHierarchy, optional
        The table's: a kept root without children is a flat feature, not a top that says nothing below it.

    Returns
    -------
    list of str
        Empty when nothing is wrong.

    Examples
    --------
    >>> f = pd.DataFrame({"feature": ["GO:1", "GO:2", "GO:3"], "name": ["bp", "cc", "x"], "n_parents": [0, 0, 1],
    ...                   "support": [102, 40, 3], "selected": [True, True, False]})
    >>> for w in selection_warnings(f, 102):
    ...     print(w)
    only roots of the hierarchy were kept (2: GO:1 bp, GO:2 cc): the selection says nothing below the top
    >>> selection_warnings(f.assign(support=[102, 0, 3]), 102)[1]
    'every kept feature is constant over the instances (GO:1 bp, GO:2 cc): no classifier can use them'
    >>> selection_warnings(f.assign(selected=False))
    ['no feature was kept: the selection is empty']
    """
    kept = frame[frame["selected"].astype(bool)]
    if kept.empty:
        return ["no feature was kept: the selection is empty"]

    def names(rows, n=5):
        labels = [f"{r.feature} {r.name}".strip() if isinstance(getattr(r, "name", None), str) else str(r.feature)
                  for r in rows.head(n).itertuples()]
        return ", ".join(labels) + (", ..." if len(rows) > n else "")

    out = []
    # only roots: said when the hierarchy has edges (a flat table's features are all roots, and nothing is wrong), and
    # when given the hierarchy, only of roots with children (a childless root is a flat feature beside the others)
    tops = None if hierarchy is None else set(
        hierarchy.node_ids[(np.asarray(hierarchy.n_parents) == 0) & (np.asarray(hierarchy.n_children) > 0)].tolist())
    if "n_parents" in kept and (frame["n_parents"] > 0).any() and (kept["n_parents"] == 0).all() and \
            (tops is None or kept["feature"].astype(str).isin(tops).all()):
        out.append(f"only roots of the hierarchy were kept ({len(kept)}: {names(kept)}): the selection says nothing "
                   "below the top")
    if "support" in kept:
        const = kept[(kept["support"] == 0) | ((kept["support"] == n_instances) if n_instances else False)]
        if len(const) == len(kept):
            out.append(f"every kept feature is constant over the instances ({names(const)}): no classifier can use "
                       "them")
    return out


def kept_features(frame: pd.DataFrame, limit: int | None = 500, *, digits: int = 4) -> pd.DataFrame:
    """The kept features of a selection frame, by score, with the columns read first (scores rounded).

    Parameters
    ----------
    frame : pandas.DataFrame
        A selection frame (``selection.csv``).
    limit : int, optional
        At most this many rows (None: all).
    digits : int
        Decimals of the score.

    Returns
    -------
    pandas.DataFrame
        ``feature``, ``name`` (when known), ``support``, ``score``, ``level`` (those present), and
        ``enrichment`` (``enriched in X (p=…, q=…)``, :func:`selection.measures.enrichment.enrichment_text`)
        when the frame has the class enrichment's columns.

    Examples
    --------
    >>> f = pd.DataFrame({"feature": ["a", "b", "c"], "support": [3, 5, 1], "score": [0.1, 0.123456, 0.9],
    ...                   "level": [1, 0, 2], "n_parents": [1, 0, 1], "selected": [True, True, False]})
    >>> kept_features(f).values.tolist()
    [['b', 5, 0.1235, 0], ['a', 3, 0.1, 1]]
    >>> e = f.assign(enriched_in=["x", "y", ""], p_enrichment=[0.5, 0.0012, 1.0], q_enrichment=[0.5, 0.0036, 1.0])
    >>> kept_features(e)["enrichment"].tolist()
    ['enriched in y (p=0.0012, q=0.0036)', 'enriched in x (p=0.5, q=0.5)']
    """
    kept = frame[frame["selected"].astype(bool)]
    if "score" in kept:
        kept = kept.sort_values("score", ascending=False, kind="stable").assign(score=kept["score"].round(digits))
    cols = [c for c in ("feature", "name", "support", "score", "level") if c in kept]
    texts = enrichment_texts(kept)
    if texts is not None:
        kept = kept.assign(enrichment=texts)
        cols.append("enrichment")
    return (kept if limit is None else kept.head(limit))[cols].reset_index(drop=True)


def run_results(summary=None, selection=None, n_instances: int | None = None, hierarchy=None) -> dict:
    """What a person reads first about a pipeline run: its evaluation's headline, the kept features, warnings.

    Parameters
    ----------
    summary : path, optional
        The evaluation's ``summary.csv``.
    selection : path, optional
        The whole-table selection's ``selection.csv``.
    n_instances : int, optional
        The table's instances (a feature present in all of them is constant).
    hierarchy : FeatureHierarchy, optional
        The table's (see :func:`selection_warnings`).

    Returns
    -------
    dict
        ``headline`` (rows of :func:`headline`), ``kept`` (rows of :func:`kept_features`) and
        ``warnings`` (:func:`selection_warnings`); missing files give empty parts.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> pd.DataFrame({"feature": ["r", "c"], "n_parents": [0, 1], "support": [4, 2],
    ...               "selected": [True, False]}).to_csv(d / "s.csv")
    >>> res = run_results(selection=d / "s.csv")
    >>> res["headline"], [r["feature"] for r in res["kept"]], len(res["warnings"])
    ([], ['r'], 1)
    """
    summary = None if summary is None else pd.read_csv(summary)
    # the class a feature is enriched in as written (a label "1" is not the number 1.0)
    selection = None if selection is None else pd.read_csv(selection, dtype={"enriched_in": str})
    return {"headline": [] if summary is None else headline(summary).to_dict("records"),
            "kept": [] if selection is None else kept_features(selection).to_dict("records"),
            "warnings": [] if selection is None else selection_warnings(selection, n_instances, hierarchy)}
