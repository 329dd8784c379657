"""Reports a person reads: summary tables with the baseline and the spread, statistics that say what they mean, plots.

Everything here starts from the tidy results of :func:`selection.evaluation.cv.evaluate_table`
(one row per dataset x selector x classifier x fold) and the majority-class baseline's rows on the
same folds (:mod:`selection.evaluation.baseline`), and writes files atomically:

- ``summary.csv``: one row per dataset x method x classifier: mean (same column names as
  ``results.csv``) and sd over the folds of every measure, successful and failed folds, whether the
  method's selection was degenerate (``degenerate``: empty, only roots, only constant features,
  and in how many folds), the method's rank on the dataset and (with several datasets) its average
  rank and wins over them; then one row per dataset for the baseline (selector ``majority class``,
  classifier ``prior``) (:func:`summarize`; ``kgfs run`` writes the same).
- ``baseline.csv``: the baseline's rows per fold (the columns of ``results.csv``).
- ``stats.md``: what the tests say, per classifier x ranked measure (:func:`stats_blocks`):
  over several datasets Friedman's test with Iman and Davenport's F as the omnibus verdict, and
  Holm's test against a control in the RPV paper's Table A.1 layout, whose verdicts are given only
  when the omnibus test rejects and there are enough datasets (otherwise *exploratory*, with a
  warning); on one dataset the corrected resampled t-test over the folds (Nadeau and Bengio 2003)
  of each method against the control and against the baseline, with the mean difference and its
  interval. The reasons and references are in :mod:`selection.evaluation.stats`.
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

import logging
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from kg.files import atomic_write
from selection.evaluation import stats
from selection.evaluation.baseline import BASELINE_KIND
from selection.evaluation.plots import (  # re-exported: the report's plots
    plot_accuracy_vs_compression,
    plot_cd_diagram,
    plot_metric_vs_compression,
    plot_per_dataset,
)
from selection.evaluation.tables import (  # re-exported: the tables the reports are made of
    BASELINE_COLUMN,
    METRIC_NAMES,
    STATS_INTRO,
    _complete,
    _example_results,  # noqa: F401 - the examples of this module's docstrings
    _order,
    dataset_means,
    dataset_sds,
    degenerate_cells,
)

__all__ = ["BASELINE_COLUMN", "STATS_INTRO", "ReportSettings", "dataset_means", "dataset_sds", "degenerate_cells",
           "degenerate_text", "markdown_table", "summarize", "stats_blocks", "stats_markdown", "report_markdown",
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
    """A markdown table of ``df`` (rows x columns) with the best value per row in bold.

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
        Per row the majority-class baseline, in a last column of its own (never bold).
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
    | d1 | **0.500 ± 0.100** † | *0.600* |
    """
    cols = list(df.columns)
    base = baseline is not None
    lines = ["| Dataset | " + " | ".join(str(c) for c in cols) + (f" | *{BASELINE_COLUMN}*" if base else "")
             + " |", "|---|" + "---:|" * (len(cols) + base)]
    for idx, row in df.iterrows():
        vals = row.to_numpy(dtype=float)
        finite = vals[~np.isnan(vals)]
        best = (finite.max() if higher_is_better else finite.min()) if len(finite) else np.nan
        cells = []
        for c, v in zip(cols, vals):
            s = _fmt(v, digits, scale)
            sd = np.nan if sds is None or c not in sds.columns or idx not in sds.index else sds.at[idx, c]
            if not np.isnan(v) and sd == sd and sd is not None:
                s = f"{s} ± {sd * scale:.{digits}f}"
            if not np.isnan(v) and np.isclose(v, best, rtol=0, atol=1e-12):
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
        summarised the same way, one row per dataset after the methods' (no rank).

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
        out = pd.concat([out, base], ignore_index=True) if len(out) else base
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


def choose_control(methods, preferred=None, default=None):
    """The Holm control: ``preferred`` if given, else the protocol's ``default`` when present, else the first method.

    Parameters
    ----------
    methods : iterable of str
    preferred : str, optional
        Must be one of ``methods``.
    default : str, optional

    Returns
    -------
    str or None

    Examples
    --------
    >>> choose_control(["a", "b"]), choose_control(["a", "b"], default="b"), choose_control(["a", "b"], "a", "b")
    ('a', 'b', 'a')
    """
    methods = list(methods)
    if preferred is not None:
        if preferred not in methods:
            raise ValueError(f"control {preferred!r} is not one of the methods {methods!r}")
        return preferred
    if default is not None and default in methods:
        return default
    return methods[0] if methods else None


def _per_fold(results: pd.DataFrame, metric: str, classifier: str, dataset: str) -> pd.DataFrame:
    """Folds x methods of one dataset and classifier (successful folds only)."""
    r = results[(results["dataset"] == dataset) & (results["classifier"] == classifier) & results["status"].eq("ok")]
    return r.pivot_table(index="fold", columns="selector", values=metric, sort=False)


def _verdict(p_holm: float, diff: float, alpha: float, a: str, b: str) -> str:
    if p_holm < alpha:
        return f"{a} {'better' if diff > 0 else 'worse'} than {b}"
    return "no significant difference"


def _paired_block(results, baseline, metric, clf, dataset, control, alpha) -> dict:
    """One dataset: each method against the control and against the baseline (corrected resampled t-test)."""
    folds = _per_fold(results, metric, clf, dataset)
    r = results[(results["dataset"] == dataset) & (results["classifier"] == clf) & results["status"].eq("ok")]
    n_train, n_test = (float(r["n_train"].mean()), float(r["n_test"].mean())) if "n_train" in r else (np.nan, np.nan)
    pairs = [(m, control) for m in folds.columns if m != control]
    base = None
    if baseline is not None and len(baseline) and metric in baseline:
        b = baseline[baseline["dataset"] == dataset].set_index("fold")[metric]
        if len(b):
            base = b
            pairs += [(m, BASELINE_COLUMN) for m in folds.columns]
    rows = []
    for a, other in pairs:
        y = base if other == BASELINE_COLUMN else folds[other]
        both = pd.concat([folds[a], y], axis=1, keys=["a", "b"]).dropna()
        if len(both) < 2 or not (n_train > 0 and n_test > 0):
            continue
        t = stats.corrected_resampled_ttest(both["a"], both["b"], n_train=n_train, n_test=n_test, alpha=alpha)
        rows.append({"method": a, "against": other, "mean_difference": t.mean_difference, "ci_low": t.ci_low,
                     "ci_high": t.ci_high, "t": t.t, "df": t.df, "p_value": t.pvalue, "n_folds": t.n_folds})
    if rows:
        h = stats.holm(pd.Series([x["p_value"] for x in rows]), alpha)
        for x, (_, hr) in zip(rows, h.iterrows()):
            x["p_holm"] = float(hr["p_holm"])
            x["verdict"] = _verdict(x["p_holm"], x["mean_difference"], alpha, x["method"], x["against"])
    return {"kind": "paired", "metric": metric, "classifier": clf, "dataset": dataset, "control": control,
            "rows": rows, "n_train": n_train, "n_test": n_test, "alpha": alpha}


def stats_blocks(results: pd.DataFrame, rank_metrics, *, control=None, default_control=None, alpha: float = 0.05,
                 alternative: str = "two-sided", baseline: pd.DataFrame | None = None) -> list[dict]:
    """What the statistical tests say, per ranked measure and classifier, as data (``stats.md`` and the HTML show it).

    - one dataset (``kind="paired"``): every method against the control and against the
      majority-class baseline over the folds, with Nadeau and Bengio's corrected resampled t-test
      (mean difference, its ``1 - alpha`` interval, p-value, Holm-adjusted over the block's
      comparisons, and a verdict);
    - several datasets (``kind="ranks"``): Friedman's test and Iman-Davenport's F (the omnibus
      verdict), Holm's test against the control; ``exploratory`` (no post-hoc verdict, no
      critical-difference diagram) when the omnibus test does not reject or there are fewer than
      :data:`selection.evaluation.stats.MIN_DATASETS` datasets, with the reason in ``warnings``;
    - ``kind="none"``: too little data (one method, or no complete dataset), said in ``message``.

    Parameters
    ----------
    results : pandas.DataFrame
    rank_metrics : sequence of str
    control : str, optional
        The control method (see :func:`choose_control`).
    default_control : str, optional
    alpha : float
    alternative : {"two-sided", "one-sided"}
        Holm's p-values over several datasets.
    baseline : pandas.DataFrame, optional
        The majority-class baseline's rows per fold.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> [(b["kind"], b["exploratory"]) for b in stats_blocks(_example_results(), ["accuracy"])]
    [('ranks', True)]
    >>> one = _example_results().query("dataset == 'd1'").assign(n_train=8, n_test=2)
    >>> b = stats_blocks(one, ["accuracy"])[0]
    >>> b["kind"], b["control"], [(r["method"], r["against"], abs(round(r["mean_difference"], 3))) for r in b["rows"]]
    ('paired', 'A', [('B', 'A', 0.0)])
    """
    blocks = []
    for m in rank_metrics:
        for clf in _order(results["classifier"]):
            t = _complete(dataset_means(results, m, clf))
            head = {"metric": m, "classifier": clf}
            if t.shape[1] < 2 and not (t.shape == (1, 1) and baseline is not None and len(baseline)):
                blocks.append({**head, "kind": "none", "message": f"Not enough data for the tests ({t.shape[0]} "
                                                                  f"complete dataset(s), {t.shape[1]} method(s))."})
                continue
            if t.shape[0] < 1:
                blocks.append({**head, "kind": "none", "message": "No dataset where every method has a score."})
                continue
            ctrl = choose_control(t.columns, control, default_control)
            if t.shape[0] == 1:
                blocks.append(_paired_block(results, baseline, m, clf, t.index[0], ctrl, alpha))
                continue
            fr = stats.friedman(t)
            h = stats.holm_vs_control(t, ctrl, alpha=alpha, alternative=alternative)
            warnings = []
            if not stats.verdict_allowed(fr.n_datasets):
                warnings.append(f"only {fr.n_datasets} datasets: the rank tests' approximations need N > 10 "
                                f"(and k > 5) (Demšar 2006, §3.2.2); every number below is exploratory and no "
                                "critical-difference verdict is drawn")
            elif fr.n_methods <= 5:
                warnings.append(f"k = {fr.n_methods} methods: Demšar (2006, §3.2.2) gives k > 5 for the chi-square "
                                "approximation; the verdict uses Iman-Davenport's F, which is better for small k")
            rejects = fr.rejects(alpha)
            exploratory = not (rejects and stats.verdict_allowed(fr.n_datasets))
            if stats.verdict_allowed(fr.n_datasets) and not rejects:
                warnings.append(f"the omnibus test does not reject at alpha = {alpha} (Iman-Davenport p = "
                                f"{fr.iman_davenport_pvalue:.2E}): the post-hoc rows are exploratory")
            rows = []
            for _, row in h.iterrows():
                d = row.to_dict()
                d["verdict"] = "" if row["method"] == ctrl else ("exploratory" if exploratory else
                                                                 ("Yes" if row["significant"] else "No"))
                rows.append(d)
            blocks.append({**head, "kind": "ranks", "control": ctrl, "friedman": fr, "rows": rows,
                           "exploratory": exploratory, "warnings": warnings, "cd": not exploratory, "alpha": alpha,
                           "alternative": alternative})
    return blocks


def _p(v: float) -> str:
    return "" if v != v else (f"{v:.1E}" if v < 0.001 else f"{v:.3f}")


def stats_markdown(results: pd.DataFrame, rank_metrics, *, control=None, default_control=None,
                   alpha: float = 0.05, title: str = "Statistical tests", alternative: str = "two-sided",
                   baseline: pd.DataFrame | None = None) -> str:
    """``stats.md``: :func:`stats_blocks` as markdown (several datasets: the RPV paper's Table A.1 layout).

    Parameters
    ----------
    results : pandas.DataFrame
    rank_metrics : sequence of str
    control : str, optional
        The control method (see :func:`choose_control`).
    default_control : str, optional
    alpha : float
    title : str
    alternative : {"two-sided", "one-sided"}
    baseline : pandas.DataFrame, optional
        The majority-class baseline's rows per fold.

    Returns
    -------
    str
        Markdown.

    Examples
    --------
    >>> md = stats_markdown(_example_results(), ["accuracy"])
    >>> md.splitlines()[0], "exploratory" in md
    ('# Statistical tests', True)
    """
    blocks = stats_blocks(results, rank_metrics, control=control, default_control=default_control, alpha=alpha,
                          alternative=alternative, baseline=baseline)
    out = [f"# {title}", "", *STATS_INTRO, ""]
    for b in blocks:
        out += [f"## {METRIC_NAMES.get(b['metric'], b['metric'])} -- {b['classifier']}", ""]
        if b["kind"] == "none":
            out += [b["message"], ""]
        elif b["kind"] == "paired":
            out += [f"One dataset ({b['dataset']}): corrected resampled t-test over the folds (Nadeau and Bengio "
                    f"2003; {b['n_train']:.1f} training / {b['n_test']:.1f} test instances per fold), difference = "
                    f"method - other, {100 * (1 - b['alpha']):.0f}% interval, p-values Holm-adjusted over the "
                    "rows of this table.", "",
                    "| Method | against | mean difference | interval | t | p-value | p (Holm) | verdict |",
                    "|---|---|---:|---|---:|---:|---:|---|"]
            for r in b["rows"]:
                out.append(f"| {r['method']} | {r['against']} | {r['mean_difference']:+.3f} | "
                           f"[{r['ci_low']:+.3f}, {r['ci_high']:+.3f}] | {r['t']:.2f} | {_p(r['p_value'])} | "
                           f"{_p(r['p_holm'])} | {r['verdict']} |")
            out.append("")
        else:
            fr = b["friedman"]
            for w in b["warnings"]:
                out += [f"> **Warning:** {w}.", ""]
            omnibus = "rejects" if fr.rejects(b["alpha"]) else "does not reject"
            out += [f"Omnibus: Iman-Davenport F = {fr.iman_davenport:.2f} (p = {fr.iman_davenport_pvalue:.2E}) "
                    f"{omnibus} at alpha = {b['alpha']}; Friedman's X²_F = {fr.statistic:.2f} (p = {fr.pvalue:.2E}); "
                    f"N = {fr.n_datasets} datasets, k = {fr.n_methods} methods.", "",
                    "| Methods | Avg. Rank | p-value | adjusted α | Sig? |", "|---|---:|---:|---:|---|"]
            for r in b["rows"]:
                if r["method"] == b["control"]:
                    out.append(f"| {r['method']} (control) | {r['avg_rank']:.2f} | | | |")
                else:
                    out.append(f"| {r['method']} | {r['avg_rank']:.2f} | {r['p_value']:.1E} | "
                               f"{r['adjusted_alpha']:.3f} | {r['verdict']} |")
            out.append("")
            out.append("Holm's test of each method against the control (Demšar 2006: z from the difference of "
                       f"average ranks, {b['alternative']} normal p-value"
                       + ("; one-sided = 'the control is better', as the RPV paper's Table A.1" if
                          b["alternative"] == "one-sided" else "")
                       + "). " + ("*Exploratory*: no verdict is given (see the warning)." if b["exploratory"] else
                                  "Sig? = differs from the control after Holm's correction."))
            out.append("")
    return "\n".join(out)


def report_markdown(results: pd.DataFrame, metrics, rank_metrics, *, title: str, notes=(), plots=(),
                    baseline: pd.DataFrame | None = None, plot_dir: str = "plots") -> str:
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
        Images linked at the end, as ``<plot_dir>/<file name>``.
    baseline : pandas.DataFrame, optional
        The majority-class baseline's rows per fold: a column of its own in every table.
    plot_dir : str
        The plots' folder relative to the report.

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
    out = [f"# {title}", ""]
    out += [f"- {n}" for n in notes]
    out.append("- Each cell: mean ± sd over the folds; **bold**: the best per dataset"
               + (f"; *{BASELINE_COLUMN}*: the majority-class baseline on the same folds (no feature used)"
                  if baseline is not None and len(baseline) else "") + ".")
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
            out.append(f"## {METRIC_NAMES.get(m, m)} -- {clf}")
            out.append("")
            digits, scale = (1, 1.0) if m == "pct_selected" else (3, 1.0)
            out.append(markdown_table(t, higher_is_better=higher, digits=digits, scale=scale, extra_rows=extra,
                                      sds=dataset_sds(results, m, clf), baseline=base,
                                      marks=degenerate_cells(results, clf)))
            out.append("")
    if plots:
        out.append("## Plots")
        out.append("")
        for p in plots:
            out.append(f"![{Path(p).stem}]({plot_dir}/{Path(p).name})")
            out.append("")
    return "\n".join(out)


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
        else the first; see :func:`choose_control`).
    alpha : float
        Significance level of the tests.
    alternative : {"two-sided", "one-sided"}, optional
        The Holm test's p-values (default: the protocol's, ``one-sided`` for ``rpv2020`` as the
        paper, else ``two-sided``).
    plots : bool
        Write the PNG plots.

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


def write_outputs(results: pd.DataFrame, out_dir, *, metrics, rank_metrics, settings: ReportSettings | None = None,
                  default_control=None, notes=(), sweep: pd.DataFrame | None = None) -> dict:
    """Write results.csv, baseline.csv, summary.csv (:func:`summarize`), stats.md, report.md, report.html, plots/.

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
        The protocol's control (see :func:`choose_control`).
    notes : sequence of str
    sweep : pandas.DataFrame, optional
        Every threshold's results (``sweep.csv``).

    Returns
    -------
    dict
        ``results``, ``summary``, ``stats``, ``report``, ``html`` (paths), ``plots`` (list of paths
        under ``out_dir/plots``), and ``sweep`` and ``baseline`` when written.

    Examples
    --------
    >>> import tempfile
    >>> paths = write_outputs(_example_results(), tempfile.mkdtemp(), metrics=["accuracy"],
    ...                       rank_metrics=["accuracy"], settings=ReportSettings(title="T", plots=False))
    >>> sorted(paths)
    ['html', 'plots', 'report', 'results', 'stats', 'summary']
    """
    from selection.evaluation.html import evaluation_html

    settings = ReportSettings() if settings is None else settings
    title, alpha = settings.title or "Evaluation report", settings.alpha
    alternative = settings.alternative or "two-sided"
    base_rows = results["kind"].eq(BASELINE_KIND) if "kind" in results else pd.Series(False, index=results.index)
    baseline, results = results[base_rows], results[~base_rows].reset_index(drop=True)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths: dict = {}
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
    st = stats_markdown(results, rank_metrics, control=settings.control, default_control=default_control, alpha=alpha,
                        title=f"{title}: statistical tests", alternative=alternative, baseline=baseline)
    paths["stats"] = out / "stats.md"
    atomic_write(paths["stats"], lambda p: p.write_text(st + "\n", encoding="utf-8"))
    pngs = write_plots(results, out / "plots", rank_metrics=rank_metrics, blocks=blocks, baseline=baseline,
                       alpha=alpha) if settings.plots and len(results) else []
    paths["plots"] = pngs
    rep = report_markdown(results, metrics, rank_metrics, title=title, notes=notes, plots=pngs, baseline=baseline)
    paths["report"] = out / "report.md"
    atomic_write(paths["report"], lambda p: p.write_text(rep + "\n", encoding="utf-8"))
    html = evaluation_html(results, summary, blocks, title=title, notes=notes, plots=pngs, baseline=baseline,
                           metrics=metrics)
    paths["html"] = out / "report.html"
    atomic_write(paths["html"], lambda p: p.write_text(html, encoding="utf-8"))
    return paths


def write_plots(results: pd.DataFrame, folder, *, rank_metrics, blocks=(), baseline: pd.DataFrame | None = None,
                alpha: float = 0.05) -> list[Path]:
    """The PNG plots of an evaluation into ``folder``: per ranked measure, bars per classifier and the measure
    against compression; a critical-difference diagram where :func:`stats_blocks` allows its verdict.

    Parameters
    ----------
    results : pandas.DataFrame
    folder : path
        Created when missing.
    rank_metrics : sequence of str
    blocks : sequence of dict
        :func:`stats_blocks` (``cd`` says where a CD diagram is drawn).
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
