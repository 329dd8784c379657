"""Reports a person reads: summary tables with the baseline and the spread, statistics that say what they mean, plots.

Everything here starts from the tidy results of :func:`selection.evaluation.cv.evaluate_table`
(one row per dataset x selector x classifier x fold) and the majority-class baseline's rows on the
same folds (:mod:`selection.evaluation.baseline`), and writes files atomically:

- ``summary.csv``: one row per dataset x method x classifier: mean (same column names as
  ``results.csv``) and sd over the folds of every measure, successful and failed folds, whether the
  method's selection was degenerate (``degenerate``: empty, only roots, only constant features,
  and in how many folds), the method's rank on the dataset and (with several datasets) its average
  rank and wins over them; each dataset's rows followed by its baseline's (selector ``majority class``,
  classifier ``prior``) (:func:`summarize`; ``kgfs run`` writes the same).
- ``answer.json``: per dataset, the best method on the headline measure against the baseline, with the
  difference, its interval and the paired test's verdict (:mod:`selection.evaluation.verdict`), and the
  sentences ``report.md`` and ``report.html`` open with (their wording: ``ReportSettings.answer``).
- ``baseline.csv``: the baseline's rows per fold (the columns of ``results.csv``).
- ``stats.md``: what the tests say, per classifier x ranked measure
  (:func:`selection.evaluation.significance.stats_blocks`): over several datasets Friedman's test
  with Iman and Davenport's F as the omnibus verdict, and Holm's test against a control in the RPV
  paper's Table A.1 layout, whose verdicts are given only when the omnibus test rejects and there
  are enough datasets (otherwise *exploratory*, with a warning); on one dataset the corrected
  resampled t-test over the folds (Nadeau and Bengio 2003) of each method against the control and
  against the baseline, with the mean difference and its interval. The reasons and references are in
  :mod:`selection.evaluation.stats`.
- ``report.md``: per measure and classifier a table with datasets as rows and methods as columns
  (mean ± sd over folds; best per dataset in **bold**; the baseline in its own column, never
  bold; a degenerate selection marked †), with ``Avg. Rank`` and ``#Win`` rows when there are
  several datasets (the papers' layout), plus the % of features selected; the plots linked from
  ``plots/``.
- ``plots/*.png`` (:mod:`selection.evaluation.plots`): per ranked measure, the measure against
  compression and bars per dataset with the spread and the baseline, axes over the whole [0, 1];
  a critical-difference diagram only where its verdict is allowed.
- ``report.html``: all of it in one self-contained page (:mod:`selection.evaluation.html`).

A dataset x method cell whose folds did not all succeed is shown as ``failed`` and left out of
ranks and tests (those then use the datasets where every method has a score).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

import selection.evaluation.stats as stats
from kg.files import atomic_write
from selection.evaluation.baseline import BASELINE_KIND
from selection.evaluation.cv import COLUMNS
from selection.evaluation.plots import (  # re-exported: the report's plots
    plot_accuracy_vs_compression,
    plot_cd_diagram,
    plot_metric_vs_compression,
    plot_per_dataset,
)
from selection.evaluation.significance import stats_blocks, stats_markdown
from selection.evaluation.tables import (  # re-exported: the tables the reports are made of
    BASELINE_COLUMN,
    BOLD_RULE,
    STATS_INTRO,
    ReportText,
    _complete,
    _example_results,  # noqa: F401 - the examples of this module's docstrings
    _order,
    best_cells,
    dataset_means,
    dataset_sds,
    degenerate_cells,
    metric_names,
    rename_headings,
    split_budget,
    split_features,
    unbeaten_note,
)
from selection.evaluation.verdict import Verdict, headline_measure, verdicts

__all__ = ["BASELINE_COLUMN", "STATS_INTRO", "ReportSettings", "dataset_means", "dataset_sds", "degenerate_cells",
           "degenerate_text", "markdown_table", "summarize", "report_markdown",
           "plot_cd_diagram", "plot_accuracy_vs_compression", "plot_metric_vs_compression", "plot_per_dataset",
           "write_outputs", "write_plots"]

log = logging.getLogger(__name__)

def _fmt(v, digits, scale) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "failed"
    return f"{v * scale:.{digits}f}"




def markdown_table(df: pd.DataFrame, *, higher_is_better: bool = True, digits: int = 3, scale: float = 1.0,
                   extra_rows: dict | None = None, sds: pd.DataFrame | None = None,
                   baseline: pd.Series | None = None, marks: pd.DataFrame | None = None) -> str:
    """A markdown table of ``df`` (rows x columns) with the best value per row in bold (:data:`BOLD_RULE`: with a
    baseline, only a value above it).

    Parameters
    ----------
    df : pandas.DataFrame
        Numbers; NaN is shown as ``failed``.
    higher_is_better : bool
    digits : int
    scale : float
        Values are multiplied by it (e.g. 100 for percentages).
    extra_rows : dict, optional
        Row name -> pandas.Series by column (e.g. ``Avg. Rank``), shown in italics with 2 digits.
    sds : pandas.DataFrame, optional
        The spread of each cell (same shape), shown as ``mean ± sd``.
    baseline : pandas.Series, optional
        Per row the majority-class baseline, in a last column of its own (never bold); a method is bold only
        when it is the best of those above it (:func:`~selection.evaluation.tables.best_cells`).
    marks : pandas.DataFrame of bool, optional
        Cells marked ``†`` (a degenerate selection).

    Returns
    -------
    str

    Examples
    --------
    >>> print(markdown_table(pd.DataFrame({"A": [0.5], "B": [0.7]}, index=["d1"])))
    | Dataset | A | B |
    |---|---:|---:|
    | d1 | 0.500 | **0.700** |
    >>> print(markdown_table(pd.DataFrame({"A": [0.5]}, index=["d1"]), sds=pd.DataFrame({"A": [0.1]}, index=["d1"]),
    ...                      baseline=pd.Series({"d1": 0.6}), marks=pd.DataFrame({"A": [True]}, index=["d1"])))
    | Dataset | A | *majority class (prior)* |
    |---|---:|---:|
    | d1 | 0.500 ± 0.100 † | *0.600* |
    """
    cols = list(df.columns)
    base = baseline is not None
    lines = ["| Dataset | " + " | ".join(str(c) for c in cols) + (f" | *{BASELINE_COLUMN}*" if base else "")
             + " |", "|---|" + "---:|" * (len(cols) + base)]
    bold = best_cells(df, baseline, higher_is_better=higher_is_better)
    for idx, row in df.iterrows():
        vals = row.to_numpy(dtype=float)
        cells = []
        for c, v in zip(cols, vals):
            s = _fmt(v, digits, scale)
            sd = np.nan if sds is None or c not in sds.columns or idx not in sds.index else sds.at[idx, c]
            if not np.isnan(v) and sd == sd and sd is not None:
                s = f"{s} ± {sd * scale:.{digits}f}"
            if bool(bold.at[idx, c]):
                s = f"**{s}**"
            if marks is not None and c in marks.columns and idx in marks.index and bool(marks.at[idx, c]):
                s += " †"
            cells.append(s)
        if base:
            b = baseline.get(idx, np.nan)
            cells.append("" if b != b else f"*{b * scale:.{digits}f}*")
        lines.append(f"| {idx} | " + " | ".join(cells) + " |")
    for name, series in (extra_rows or {}).items():
        cells = [("" if c not in series.index or pd.isna(series[c]) else f"{series[c]:.2f}") for c in cols]
        lines.append(f"| *{name}* | " + " | ".join(cells) + (" | |" if base else " |"))
    return "\n".join(lines)


# Measures summarised per cell (mean over the successful folds), and those also given an sd.
MEASURES = ("n_features", "n_selected", "accuracy", "auroc", "aucpr", "gm", "compression", "harmonic_mean",
            "pct_selected", "select_seconds")
_WITH_SD = ("n_selected", "accuracy", "auroc", "aucpr", "gm", "compression", "harmonic_mean", "pct_selected")


def degenerate_text(reasons) -> str:
    """The ``degenerate`` column of ``summary.csv`` from the folds' reasons: ``""`` when no fold's selection was.

    Parameters
    ----------
    reasons : iterable of str
        Each fold's ``degenerate`` value (``""`` or reasons joined by ``"; "``).

    Returns
    -------
    str
        E.g. ``"only roots; constant (10/10 folds)"``, or each reason with its count when they differ.

    Examples
    --------
    >>> degenerate_text(["only roots; constant"] * 10), degenerate_text(["", "empty", ""]), degenerate_text(["", ""])
    ('only roots; constant (10/10 folds)', 'empty (1/3 folds)', '')
    >>> degenerate_text(["constant", "only roots; constant"])
    'only roots (1/2 folds); constant (2/2 folds)'
    """
    reasons = ["" if r is None or r != r else str(r) for r in reasons]
    n = len(reasons)
    counts: dict[str, int] = {}
    for r in reasons:
        for part in filter(None, (x.strip() for x in r.split(";"))):
            counts[part] = counts.get(part, 0) + 1
    if not counts:
        return ""
    order = [k for k in ("empty", "only roots", "constant") if k in counts] + sorted(
        k for k in counts if k not in ("empty", "only roots", "constant"))
    if len(set(counts.values())) == 1:
        return f"{'; '.join(order)} ({counts[order[0]]}/{n} folds)"
    return "; ".join(f"{k} ({counts[k]}/{n} folds)" for k in order)


def summarize(results: pd.DataFrame, metrics=(), rank_metrics=(), baseline: pd.DataFrame | None = None) -> pd.DataFrame:
    """The ``summary.csv`` of ``kgfs run`` and ``kgfs evaluate``: one row per dataset x selector x classifier.

    Parameters
    ----------
    results : pandas.DataFrame
        One row per dataset x selector x classifier x fold (:func:`selection.evaluation.cv.evaluate_table`),
        with ``status`` (``ok`` or not).
    metrics : sequence of str
        Measures summarised besides :data:`MEASURES` (those present in ``results``).
    rank_metrics : sequence of str
        Measures whose ranks are given.
    baseline : pandas.DataFrame, optional
        The majority-class baseline's rows per fold (:func:`selection.evaluation.baseline.majority_baseline`):
        summarised the same way, one row per dataset right after that dataset's methods' rows (no rank).

    Returns
    -------
    pandas.DataFrame
        Columns: ``dataset``, ``selector``, ``classifier``; ``folds`` (successful) and ``failed``;
        ``degenerate`` (:func:`degenerate_text`: why and in how many folds the selection could not
        help a classifier, empty when it could); every measure ``<m>`` of ``results`` as its mean over
        the successful folds (the columns of ``results``, plus ``pct_selected`` = 100 x (1 -
        compression)) and ``<m>_sd`` for the quality measures and ``n_selected``. Per rank measure:
        ``<m>_rank``, the selector's rank on this dataset among the selectors (1 = best, ties
        averaged; empty where some selector failed on the dataset: ranks use complete datasets
        only, as ``report.md`` and ``stats.md`` do); with more than one dataset also
        ``<m>_avg_rank`` and ``<m>_wins``, over the complete datasets of the classifier (the
        same on every row of a selector x classifier; ``report.md``'s Avg. Rank and #Win).

    Examples
    --------
    >>> r = pd.DataFrame({"dataset": "d", "selector": ["A", "A", "B", "B"], "classifier": "nb",
    ...                   "fold": [0, 1, 0, 1], "accuracy": [0.5, 0.7, 0.8, 0.8],
    ...                   "compression": [0.0, 0.0, 0.5, 0.5], "status": "ok", "degenerate": ["", "", "empty", ""]})
    >>> s = summarize(r, rank_metrics=["accuracy"])
    >>> s[["selector", "folds", "degenerate", "accuracy", "pct_selected", "accuracy_rank"]].values.tolist()
    [['A', 2, '', 0.6, 100.0, 2.0], ['B', 2, 'empty (1/2 folds)', 0.8, 50.0, 1.0]]
    """
    keys = ["dataset", "selector", "classifier"]
    if "compression" in results:
        results = results.assign(pct_selected=100.0 * (1.0 - results["compression"]))
    ok = results[results["status"].eq("ok")]
    g = ok.groupby(keys, sort=False)
    cells = results.groupby(keys, sort=False).size()
    out = pd.DataFrame(index=cells.index)
    out["folds"] = g.size().reindex(cells.index).fillna(0).astype(int)
    out["failed"] = (cells - out["folds"]).astype(int)
    if "degenerate" in results:
        out["degenerate"] = results.groupby(keys, sort=False)["degenerate"].agg(degenerate_text)
    else:
        out["degenerate"] = ""
    for m in _order([*MEASURES, *metrics]):
        if m in results:
            out[m] = g[m].mean()
            if m in _WITH_SD:
                out[f"{m}_sd"] = g[m].std()
    out = out.reset_index()
    several = results["dataset"].nunique() > 1
    for m in rank_metrics:
        _add_ranks(out, results, m, several)
    if baseline is not None and len(baseline):
        base = summarize(baseline.drop(columns=["degenerate"], errors="ignore"), metrics)
        base = base.reindex(columns=out.columns)
        base["degenerate"] = ""
        if not len(out):
            return base
        # each dataset's baseline row right after its methods' rows (a dataset without methods: at the end)
        order = _order([*out["dataset"], *base["dataset"]])
        out = pd.concat([part for d in order for part in (out[out["dataset"] == d], base[base["dataset"] == d])
                         if len(part)], ignore_index=True)
    return out


def _add_ranks(out: pd.DataFrame, results: pd.DataFrame, metric: str, several: bool) -> None:
    """Add ``<metric>_rank`` (and ``_avg_rank``, ``_wins`` when ``several`` datasets) to ``out``."""
    higher = metric != "pct_selected"
    cols = [f"{metric}_rank"] + ([f"{metric}_avg_rank", f"{metric}_wins"] if several else [])
    for c in cols:
        out[c] = np.nan
    for clf in _order(results["classifier"]):
        t = _complete(dataset_means(results, metric, clf))
        if t.shape[0] < 1 or t.shape[1] < 2:
            continue
        ranks = stats.rank_table(t, higher_is_better=higher)
        for i in np.flatnonzero(out["classifier"].eq(clf).to_numpy()):
            d, s = out.at[i, "dataset"], out.at[i, "selector"]
            if s not in ranks.columns:
                continue
            if d in ranks.index:
                out.at[i, cols[0]] = ranks.at[d, s]
            if several:
                out.at[i, cols[1]] = ranks[s].mean()
                out.at[i, cols[2]] = stats.wins(t, higher_is_better=higher)[s]



def report_markdown(results: pd.DataFrame, metrics, rank_metrics, *, title: str, notes=(), plots=(),
                    baseline: pd.DataFrame | None = None, text: ReportText | None = None) -> str:
    """Tables laid out like the papers': datasets as rows, methods as columns, mean ± sd, best in bold, the baseline.

    Parameters
    ----------
    results : pandas.DataFrame
    metrics : sequence of str
        One table per measure (and ``pct_selected``) and classifier.
    rank_metrics : sequence of str
    title : str
    notes : sequence of str
        Bullet points under the title.
    plots : sequence of path
        Images linked at the end, as ``plots/<file name>``.
    baseline : pandas.DataFrame, optional
        The majority-class baseline's rows per fold: a column of its own in every table.
    text : ReportText, optional
        The answer (one sentence per dataset, first under the title), more notes (after ``notes``) and the
        measures' titles (:func:`~selection.evaluation.tables.metric_names` names a multi-class task's averaging).

    Returns
    -------
    str
        Markdown.

    Examples
    --------
    >>> md = report_markdown(_example_results(), ["accuracy"], ["accuracy"], title="T")
    >>> md.splitlines()[0], "| *Avg. Rank* | 1.25 | 1.75 |" in md
    ('# T', True)
    >>> "| d1 | **0.700 ± 0.141** | **0.700 ± 0.000** |" in md
    True
    """
    text = ReportText() if text is None else text
    names = text.names
    out = [f"# {title}", ""]
    for a in text.answer:
        out += [f"**{a}**", ""]
    out += [f"- {n}" for n in (*notes, *text.notes)]
    with_base = baseline is not None and len(baseline)
    out.append("- Each cell: mean ± sd over the folds; "
               + (BOLD_RULE + f"; *{BASELINE_COLUMN}*: the majority-class baseline on the same folds (no feature used)"
                  if with_base else "**bold**: the best per dataset") + ".")
    out.append("")
    failed = results[results["status"] != "ok"]
    if len(failed):
        out.append(f"**{len(failed)} cell(s) failed** (shown as `failed`; errors in `results.csv`):")
        out.append("")
        for (d, s, c), g in failed.groupby(["dataset", "selector", "classifier"], sort=False):
            out.append(f"- {d} / {s} / {c}: {len(g)} fold(s): {str(g['error'].iloc[0])[:200]}")
        out.append("")
    summary = summarize(results) if "degenerate" in results else None
    bad = summary["degenerate"].map(lambda v: isinstance(v, str) and bool(v)) if summary is not None else None
    if bad is not None and bad.any():
        out.append("**† Degenerate selection** (it cannot help a classifier, whatever the score: compare with the "
                   "majority-class baseline):")
        out.append("")
        for _, r in summary[bad].iterrows():
            out.append(f"- {r['dataset']} / {r['selector']} / {r['classifier']}: {r['degenerate']}")
        out.append("")
    several = results["dataset"].nunique() > 1
    for m in _order(list(metrics) + ["pct_selected"]):
        higher = m != "pct_selected"
        for clf in _order(results["classifier"]):
            t = dataset_means(results, m, clf)
            if t.empty:
                continue
            extra = {}
            tc = _complete(t)
            if several and tc.shape[0] >= 2 and tc.shape[1] >= 2:
                extra["Avg. Rank"] = stats.rank_table(tc, higher_is_better=higher).mean(axis=0)
                extra["#Win"] = stats.wins(tc, higher_is_better=higher)
            base = None
            if baseline is not None and len(baseline) and m in baseline and m != "pct_selected":
                base = baseline.groupby("dataset", sort=False)[m].mean()
            out.append(f"## {names.get(m, m)} -- {clf}")
            out.append("")
            digits, scale = (1, 1.0) if m == "pct_selected" else (3, 1.0)
            out.append(markdown_table(t, higher_is_better=higher, digits=digits, scale=scale, extra_rows=extra,
                                      sds=dataset_sds(results, m, clf), baseline=base,
                                      marks=degenerate_cells(results, clf)))
            out.append("")
            none = unbeaten_note(t, base, higher_is_better=higher)
            if none:
                out += [f"*{none}*", ""]
    if plots:
        out.append("## Plots")
        out.append("")
        for p in plots:
            out.append(f"![{Path(p).stem}](plots/{Path(p).name})")
            out.append("")
    return "\n".join(out)


def split_markdown(results: pd.DataFrame) -> list[str]:
    """The lines of report.md's table of a split evaluation: test accuracy with its interval, the chosen settings.

    Examples
    --------
    >>> r = pd.DataFrame([{"dataset": "d", "selector": "s", "classifier": "c", "accuracy": 0.5,
    ...                    "accuracy_ci_low": 0.2, "accuracy_ci_high": 0.8, "cv_accuracy": 0.6,
    ...                    "chosen": '{"kg__min_support": 2}', "n_features": 9, "n_selected": 3.0, "status": "ok"}])
    >>> split_markdown(r)[-1]
    '| d | s | c | 0.500 [0.200, 0.800] | 0.600 | min_support=2 | 9 -> 3 |'
    """
    if "accuracy_ci_low" not in results or results.empty:
        return []
    out = ["## Test split", "", "| dataset | selector | classifier | test accuracy [CI] | train CV accuracy | "
           "chosen on train | features generated -> kept |", "|---|---|---|---|---|---|---|"]
    for r in results.to_dict("records"):
        chosen = json.loads(r.get("chosen") or "{}") if isinstance(r.get("chosen"), str) else {}
        said = ", ".join(f"{k.split('__')[-1]}={v}" for k, v in chosen.items())
        if r.get("status") != "ok":
            out.append(f"| {r['dataset']} | {r['selector']} | {r['classifier']} | failed | | | |")
            continue
        out.append(f"| {r['dataset']} | {r['selector']} | {r['classifier']} | {r['accuracy']:.3f} "
                   f"[{r['accuracy_ci_low']:.3f}, {r['accuracy_ci_high']:.3f}] | {r['cv_accuracy']:.3f} | {said} | "
                   f"{int(r['n_features'])} -> {r['n_selected']:g}{split_budget(r)} |")
    return out



def _safe(s: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in str(s))


@dataclass(frozen=True)
class ReportSettings:
    """How an evaluation's report is written (:func:`selection.evaluation.grid.run_grid`'s ``report``).

    Parameters
    ----------
    title : str, optional
        Default: "Evaluation report (<protocol>)".
    control : str, optional
        The Holm test's control method (default: the protocol's when it is among the methods,
        else the first; see :func:`selection.evaluation.significance.choose_control`).
    alpha : float
        Significance level of the tests.
    alternative : {"two-sided", "one-sided"}, optional
        The Holm test's p-values (default: the protocol's, ``one-sided`` for ``rpv2020`` as the
        paper, else ``two-sided``).
    plots : bool
        Write the PNG plots.
    classes : mapping, optional
        Dataset -> its number of classes: a multi-class task's measures name their averaging
        (:func:`~selection.evaluation.tables.metric_names`; :func:`~selection.evaluation.grid.run_grid` sets it).
    averaging : {"macro", "weighted"}
        How GM, AUROC and AUCPR are averaged over more than two classes (the protocol's ``multiclass_average``).
    answer : callable, optional
        ``answer(verdicts) -> sentences``: the wording of the answer (one sentence per dataset,
        :class:`~selection.evaluation.verdict.Verdict` s in), which ``report.md`` and ``report.html`` open with
        (``kgfs`` passes ``flows.publishing.answer.answer_sentences``). Without it the answer is only the
        numbers of ``answer.json``.

    Examples
    --------
    >>> ReportSettings(plots=False).alpha
    0.05
    """

    title: str | None = None
    control: str | None = None
    alpha: float = 0.05
    alternative: str | None = None
    plots: bool = True
    classes: Mapping | None = None
    averaging: str = "macro"
    answer: Callable[[Sequence[Verdict]], Sequence[str]] | None = None


def write_outputs(results: pd.DataFrame, out_dir, *, metrics, rank_metrics, settings: ReportSettings | None = None,
                  default_control=None, notes=(), sweep: pd.DataFrame | None = None) -> dict:
    """Write results.csv, baseline.csv, summary.csv (:func:`summarize`), stats.md, answer.json, report.md,
    report.html, plots/.

    ``answer.json`` holds, per dataset, the best method on the headline measure
    (:func:`~selection.evaluation.verdict.headline_measure`) against the majority-class baseline
    (:func:`~selection.evaluation.verdict.verdicts`): ``{"measure": ..., "datasets": [Verdict.to_dict(), ...]}``,
    and ``sentences`` when ``settings.answer`` words them (``report.md`` and ``report.html`` then open with them).

    Parameters
    ----------
    results : pandas.DataFrame
        The methods' rows per fold, and the majority-class baseline's (``kind`` ``"baseline"``,
        :func:`selection.evaluation.baseline.majority_baseline`): those go to ``baseline.csv`` and
        are shown beside the methods in the summary, the tables, the tests and the plots.
    out_dir : path
        Created when missing.
    metrics, rank_metrics : sequence of str
        The protocol's measures and ranked measures.
    settings : ReportSettings, optional
        Title (default "Evaluation report"), control, alpha, alternative (default
        ``two-sided``) and plots.
    default_control : str, optional
        The protocol's control (see :func:`selection.evaluation.significance.choose_control`).
    notes : sequence of str
    sweep : pandas.DataFrame, optional
        Every threshold's results (``sweep.csv``).

    Returns
    -------
    dict
        ``results``, ``summary``, ``stats``, ``answer``, ``report``, ``html`` (paths), ``plots`` (list of paths
        under ``out_dir/plots``), and ``sweep`` and ``baseline`` when written.

    Examples
    --------
    >>> import tempfile
    >>> paths = write_outputs(_example_results(), tempfile.mkdtemp(), metrics=["accuracy"],
    ...                       rank_metrics=["accuracy"], settings=ReportSettings(title="T", plots=False))
    >>> sorted(paths)
    ['answer', 'html', 'plots', 'report', 'results', 'stats', 'summary']
    """
    from selection.evaluation.html import evaluation_html

    settings = ReportSettings() if settings is None else settings
    title, alpha = settings.title or "Evaluation report", settings.alpha
    alternative = settings.alternative or "two-sided"
    base_rows = results["kind"].eq(BASELINE_KIND) if "kind" in results else pd.Series(False, index=results.index)
    baseline, results = results[base_rows], results[~base_rows].reset_index(drop=True)
    baseline = baseline[[c for c in baseline.columns if baseline[c].notna().any() or c in COLUMNS]]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths: dict = {}
    full = results  # with a split evaluation's final models' features (report.html lists them)
    if "selected_features" in results:  # in a file of their own, not in results.csv
        features = split_features(results)
        results = results.drop(columns=["selected_features"])
        paths["selected_features"] = out / "selected_features.csv"
        atomic_write(paths["selected_features"], lambda p: features.to_csv(p, index=False))
    paths["results"] = out / "results.csv"
    atomic_write(paths["results"], lambda p: results.to_csv(p, index=False))
    if baseline is not None and len(baseline):
        paths["baseline"] = out / "baseline.csv"
        atomic_write(paths["baseline"], lambda p: baseline.to_csv(p, index=False))
    if sweep is not None and len(sweep):
        paths["sweep"] = out / "sweep.csv"
        atomic_write(paths["sweep"], lambda p: sweep.to_csv(p, index=False))
    summary = summarize(results, metrics, rank_metrics, baseline=baseline)
    paths["summary"] = out / "summary.csv"
    atomic_write(paths["summary"], lambda p: summary.to_csv(p, index=False))
    blocks = stats_blocks(results, rank_metrics, control=settings.control, default_control=default_control,
                          alpha=alpha, alternative=alternative, baseline=baseline)
    n_classes, averaging = dict(settings.classes or {}), settings.averaging
    names = metric_names(n_classes.values(), averaging)
    st = stats_markdown(results, rank_metrics, control=settings.control, default_control=default_control, alpha=alpha,
                        title=f"{title}: statistical tests", alternative=alternative, baseline=baseline)
    st = rename_headings(st, names)  # a multi-class task's averaging named
    measure = headline_measure(rank_metrics, metrics)
    found = verdicts(results, baseline, measure, alpha=alpha, control=settings.control,
                     default_control=default_control, n_classes=n_classes, averaging=averaging)
    sentences = list(settings.answer(found)) if settings.answer is not None and found else []
    answer = {"measure": measure, "datasets": [v.to_dict() for v in found],
              **({"sentences": sentences} if sentences else {})}
    paths["answer"] = out / "answer.json"
    atomic_write(paths["answer"], lambda p: p.write_text(json.dumps(answer, indent=1) + "\n", encoding="utf-8"))
    paths["stats"] = out / "stats.md"
    atomic_write(paths["stats"], lambda p: p.write_text(st + "\n", encoding="utf-8"))
    pngs = write_plots(results, out / "plots", rank_metrics=rank_metrics, blocks=blocks, baseline=baseline,
                       alpha=alpha) if settings.plots and len(results) else []
    paths["plots"] = pngs
    text = ReportText(answer=tuple(sentences), notes=tuple(notes), names=names)
    rep = report_markdown(results, metrics, rank_metrics, title=title, plots=pngs, baseline=baseline, text=text)
    split_lines = split_markdown(results)
    if split_lines:  # the test-split table first, after the notes
        head, sep, rest = rep.partition("\n## ")
        rep = head.rstrip("\n") + "\n\n" + "\n".join(split_lines) + "\n\n" + (sep.lstrip("\n") + rest if sep else "")
    paths["report"] = out / "report.md"
    atomic_write(paths["report"], lambda p: p.write_text(rep + "\n", encoding="utf-8"))
    html = evaluation_html(full, summary, blocks, title=title, plots=pngs, baseline=baseline, metrics=metrics,
                           text=text)
    paths["html"] = out / "report.html"
    atomic_write(paths["html"], lambda p: p.write_text(html, encoding="utf-8"))
    return paths


def write_plots(results: pd.DataFrame, folder, *, rank_metrics, blocks=(), baseline: pd.DataFrame | None = None,
                alpha: float = 0.05) -> list[Path]:
    """The PNG plots of an evaluation into ``folder``: per ranked measure, bars per classifier and the measure
    against compression; a critical-difference diagram where
    :func:`selection.evaluation.significance.stats_blocks` allows its verdict.

    Parameters
    ----------
    results : pandas.DataFrame
    folder : path
        Created when missing.
    rank_metrics : sequence of str
    blocks : sequence of dict
        :func:`selection.evaluation.significance.stats_blocks` (``cd`` says where a CD diagram is drawn).
    baseline : pandas.DataFrame, optional
    alpha : float

    Returns
    -------
    list of Path

    Examples
    --------
    >>> import tempfile
    >>> [p.name for p in write_plots(_example_results(), tempfile.mkdtemp(), rank_metrics=["accuracy"])]
    ['bars_accuracy_nb.png', 'accuracy_vs_compression.png']
    """
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    pngs: list[Path] = []
    cd = {(b["metric"], b["classifier"]): b for b in blocks if b.get("cd")}
    for m in _order(rank_metrics or ["accuracy"]):
        if m not in results:
            continue
        for clf in _order(results["classifier"]):
            b = cd.get((m, clf))
            if b is not None:
                t = _complete(dataset_means(results, m, clf))
                try:
                    pngs.append(plot_cd_diagram(stats.rank_table(t).mean(axis=0), t.shape[0],
                                                out / f"cd_{_safe(m)}_{_safe(clf)}.png", alpha=alpha,
                                                title=f"Average ranks, {m}, {clf} (N={t.shape[0]})"))
                except Exception as exc:  # noqa: BLE001 - a plot must not lose the tables
                    log.warning("CD diagram failed: %s", exc)
            pngs.append(plot_per_dataset(results, m, clf, out / f"bars_{_safe(m)}_{_safe(clf)}.png",
                                         baseline=baseline))
        pngs.append(plot_metric_vs_compression(results, out / f"{_safe(m)}_vs_compression.png", metric=m,
                                               baseline=baseline))
    return pngs
