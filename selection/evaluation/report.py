"""Reports a person reads: summary tables, statistics in the RPV paper's layout, and PNG plots.

Everything here starts from the tidy results of :func:`selection.evaluation.cv.evaluate_table`
(one row per dataset x selector x classifier x fold) and writes files atomically:

- ``summary.csv``: one row per dataset x method x classifier: mean (same column names as
  ``results.csv``) and sd over the folds of every measure, successful and failed folds, the method's rank on the dataset and (with several
  datasets) its average rank and wins over them (:func:`summarize`; ``kgfs run`` writes the same).
- ``stats.md``: per classifier x ranked measure, the Friedman statistic and p-value and the
  Holm test against a control (the RPV paper's Table A.1 layout: method, average rank, p-value,
  adjusted alpha, significant?).
- ``report.md``: per measure and classifier a table with datasets as rows and methods as
  columns (mean over folds; best per dataset in **bold**), with ``Avg. Rank`` and ``#Win`` rows
  (the papers' layout), plus the % of features selected (lower is better, as the RPV paper's
  Table 10).
- PNG plots: a critical-difference diagram of average ranks (Nemenyi CD; methods joined by a bar
  do not differ significantly), accuracy versus compression per method, and per-dataset bars.

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

__all__ = ["ReportSettings", "dataset_means", "markdown_table", "summarize", "stats_markdown", "report_markdown",
           "plot_cd_diagram", "plot_accuracy_vs_compression", "plot_per_dataset", "write_outputs"]

log = logging.getLogger(__name__)

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


def _fmt(v, digits, scale) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "failed"
    return f"{v * scale:.{digits}f}"


def markdown_table(df: pd.DataFrame, *, higher_is_better: bool = True, digits: int = 3, scale: float = 1.0,
                   extra_rows: dict | None = None, index_name: str = "Dataset") -> str:
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
    index_name : str

    Returns
    -------
    str

    Examples
    --------
    >>> print(markdown_table(pd.DataFrame({"A": [0.5], "B": [0.7]}, index=["d1"])))
    | Dataset | A | B |
    |---|---:|---:|
    | d1 | 0.500 | **0.700** |
    """
    cols = list(df.columns)
    lines = ["| " + index_name + " | " + " | ".join(str(c) for c in cols) + " |",
             "|---|" + "---:|" * len(cols)]
    for idx, row in df.iterrows():
        vals = row.to_numpy(dtype=float)
        finite = vals[~np.isnan(vals)]
        best = (finite.max() if higher_is_better else finite.min()) if len(finite) else np.nan
        cells = []
        for v in vals:
            s = _fmt(v, digits, scale)
            if not np.isnan(v) and np.isclose(v, best, rtol=0, atol=1e-12):
                s = f"**{s}**"
            cells.append(s)
        lines.append(f"| {idx} | " + " | ".join(cells) + " |")
    for name, series in (extra_rows or {}).items():
        cells = [("" if c not in series.index or pd.isna(series[c]) else f"{series[c]:.2f}") for c in cols]
        lines.append(f"| *{name}* | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _complete(df: pd.DataFrame) -> pd.DataFrame:
    return df.dropna(axis=0, how="any")


# Measures summarised per cell (mean over the successful folds), and those also given an sd.
MEASURES = ("n_features", "n_selected", "accuracy", "auroc", "aucpr", "gm", "compression", "harmonic_mean",
            "pct_selected", "select_seconds")
_WITH_SD = ("n_selected", "accuracy", "auroc", "aucpr", "gm", "compression", "harmonic_mean", "pct_selected")


def summarize(results: pd.DataFrame, metrics=(), rank_metrics=()) -> pd.DataFrame:
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

    Returns
    -------
    pandas.DataFrame
        Columns: ``dataset``, ``selector``, ``classifier``; ``folds`` (successful) and ``failed``;
        every measure ``<m>`` of ``results`` as its mean over the successful folds (the columns of
        ``results``, plus ``pct_selected`` = 100 x (1 - compression)) and ``<m>_sd`` for the quality
        measures and ``n_selected``. Per rank measure:
        ``<m>_rank``, the selector's rank on this dataset among the selectors (1 = best, ties
        averaged; empty where some selector failed on the dataset: ranks use complete datasets
        only, as ``report.md`` and ``stats.md`` do); with more than one dataset also
        ``<m>_avg_rank`` and ``<m>_wins``, over the complete datasets of the classifier (the
        same on every row of a selector x classifier; ``report.md``'s Avg. Rank and #Win).

    Examples
    --------
    >>> r = pd.DataFrame({"dataset": "d", "selector": ["A", "A", "B", "B"], "classifier": "nb",
    ...                   "fold": [0, 1, 0, 1], "accuracy": [0.5, 0.7, 0.8, 0.8],
    ...                   "compression": [0.0, 0.0, 0.5, 0.5], "status": "ok"})
    >>> s = summarize(r, rank_metrics=["accuracy"])
    >>> s[["selector", "folds", "accuracy", "pct_selected", "accuracy_rank"]].values.tolist()
    [['A', 2, 0.6, 100.0, 2.0], ['B', 2, 0.8, 50.0, 1.0]]
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
    for m in _order([*MEASURES, *metrics]):
        if m in results:
            out[m] = g[m].mean()
            if m in _WITH_SD:
                out[f"{m}_sd"] = g[m].std()
    out = out.reset_index()
    several = results["dataset"].nunique() > 1
    for m in rank_metrics:
        _add_ranks(out, results, m, several)
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


def stats_markdown(results: pd.DataFrame, rank_metrics, *, control=None, default_control=None,
                   alpha: float = 0.05, title: str = "Statistical tests", alternative: str = "two-sided") -> str:
    """Friedman + Holm-vs-control per classifier and measure, in the RPV paper's Table A.1 layout.

    Parameters
    ----------
    results : pandas.DataFrame
    rank_metrics : sequence of str
    control : str, optional
        The Holm control method (see :func:`choose_control`).
    default_control : str, optional
    alpha : float
    title : str
    alternative : {"two-sided", "one-sided"}

    Returns
    -------
    str
        Markdown.

    Examples
    --------
    >>> stats_markdown(_example_results(), ["accuracy"]).splitlines()[0]
    '# Statistical tests'
    """
    out = [f"# {title}", "",
           f"Friedman test over datasets (rows) and methods (columns); when it rejects at alpha = {alpha}, "
           "Holm's post-hoc test of each method against the control (Demsar 2006: z from the difference of "
           f"average ranks, {alternative} normal p-value"
           + ("; one-sided = 'the control is better', as the RPV paper's Table A.1 p-values" if alternative == "one-sided" else "")
           + "). Rank 1 is best. Datasets where some method failed are "
           "left out. Layout of Table A.1 of da Silva, Plastino & Freitas (2020).", ""]
    for m in rank_metrics:
        for clf in _order(results["classifier"]):
            t = _complete(dataset_means(results, m, clf))
            out.append(f"## {METRIC_NAMES.get(m, m)} -- {clf}")
            out.append("")
            if t.shape[1] < 2 or t.shape[0] < 2:
                out.append(f"Not enough data for the tests ({t.shape[0]} complete dataset(s), {t.shape[1]} method(s)).")
                out.append("")
                continue
            ctrl = choose_control(t.columns, control, default_control)
            fr = stats.friedman(t)
            h = stats.holm_vs_control(t, ctrl, alpha=alpha, alternative=alternative)
            out.append("| Methods | Avg. Rank | p-value | adjusted α | Sig? |")
            out.append("|---|---:|---:|---:|---|")
            for _, row in h.iterrows():
                if row["method"] == ctrl:
                    out.append(f"| {row['method']} (control) | {row['avg_rank']:.2f} | | | |")
                else:
                    sig = "Yes" if row["significant"] else "No"
                    out.append(f"| {row['method']} | {row['avg_rank']:.2f} | {row['p_value']:.1E} | "
                               f"{row['adjusted_alpha']:.3f} | {sig} |")
            verdict = "Yes" if fr.pvalue < alpha else "No"
            out.append("")
            out.append(f"Friedman's X²_F = {fr.statistic:.2f} (p = {fr.pvalue:.2E}, {verdict}); "
                       f"Iman-Davenport F = {fr.iman_davenport:.2f} (p = {fr.iman_davenport_pvalue:.2E}); "
                       f"N = {fr.n_datasets} datasets, k = {fr.n_methods} methods.")
            if fr.pvalue >= alpha:
                out.append("The Friedman test does not reject: the Holm rows are shown for information only.")
            out.append("")
    return "\n".join(out)


def report_markdown(results: pd.DataFrame, metrics, rank_metrics, *, title: str, notes=(), plots=()) -> str:
    """Tables laid out like the papers': datasets as rows, methods as columns, best in bold.

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
        Images linked at the end (by file name).

    Returns
    -------
    str
        Markdown.

    Examples
    --------
    >>> md = report_markdown(_example_results(), ["accuracy"], ["accuracy"], title="T")
    >>> md.splitlines()[0], "| *Avg. Rank* | 1.25 | 1.75 |" in md
    ('# T', True)
    """
    out = [f"# {title}", ""]
    out += [f"- {n}" for n in notes]
    out.append("")
    failed = results[results["status"] != "ok"]
    if len(failed):
        out.append(f"**{len(failed)} cell(s) failed** (shown as `failed`; errors in `results.csv`):")
        out.append("")
        for (d, s, c), g in failed.groupby(["dataset", "selector", "classifier"], sort=False):
            out.append(f"- {d} / {s} / {c}: {len(g)} fold(s): {str(g['error'].iloc[0])[:200]}")
        out.append("")
    for m in _order(list(metrics) + ["pct_selected"]):
        higher = m != "pct_selected"
        for clf in _order(results["classifier"]):
            t = dataset_means(results, m, clf)
            if t.empty:
                continue
            extra = {}
            tc = _complete(t)
            if tc.shape[0] >= 1 and tc.shape[1] >= 2:
                extra["Avg. Rank"] = stats.rank_table(tc, higher_is_better=higher).mean(axis=0)
                extra["#Win"] = stats.wins(tc, higher_is_better=higher)
            out.append(f"## {METRIC_NAMES.get(m, m)} -- {clf}")
            out.append("")
            digits, scale = (1, 1.0) if m == "pct_selected" else (3, 1.0)
            out.append(markdown_table(t, higher_is_better=higher, digits=digits, scale=scale, extra_rows=extra))
            out.append("")
    if plots:
        out.append("## Plots")
        out.append("")
        for p in plots:
            out.append(f"![{Path(p).stem}]({Path(p).name})")
            out.append("")
    return "\n".join(out)


# ------------------------------------------------------------------ plots
def _axes(figsize):
    """A figure and its axes, outside pyplot (no global state, no backend switch)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _color(i: int, n: int):
    """Distinct colours: matplotlib's cycle up to 10 methods, tab20 beyond."""
    if n <= 10:
        return f"C{i % 10}"
    import matplotlib

    return matplotlib.colormaps["tab20"](i % 20)


def _save(fig, path: Path) -> Path:
    atomic_write(path, lambda p: fig.savefig(p, format="png", dpi=110, bbox_inches="tight"))
    return path


def plot_cd_diagram(avg_ranks: pd.Series, n_datasets: int, path, *, alpha: float = 0.05, title: str = "") -> Path:
    """Critical-difference diagram: methods on a rank axis; a bar joins methods within Nemenyi's CD.

    Parameters
    ----------
    avg_ranks : pandas.Series
        Method -> average rank.
    n_datasets : int
    path : path
        The PNG file (written atomically).
    alpha : float
    title : str

    Returns
    -------
    Path

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = plot_cd_diagram(pd.Series({"A": 1.2, "B": 1.8}), 5, pathlib.Path(tempfile.mkdtemp()) / "cd.png")
    >>> p.read_bytes()[:4]
    b'\\x89PNG'
    """
    r = avg_ranks.sort_values()
    k = len(r)
    cd = stats.critical_difference(k, n_datasets, alpha)
    fig, ax = _axes((7, 1.4 + 0.3 * ((k + 1) // 2 + 3)))
    lo, hi = 1, max(k, 2)
    ax.set_xlim(lo - 0.3, hi + 0.3)
    ax.set_ylim(-((k + 1) // 2 + 1.2), 2.2)
    ax.hlines(0, lo, hi, color="black", lw=1)
    for x in range(lo, hi + 1):
        ax.vlines(x, 0, 0.25, color="black", lw=1)
        ax.text(x, 0.45, str(x), ha="center", va="bottom", fontsize=9)
    half = (k + 1) // 2
    for i, (name, rank) in enumerate(r.items()):
        left = i < half
        y = -(i + 1) if left else -(k - i)
        xt = lo - 0.2 if left else hi + 0.2
        ax.plot([rank, rank, xt], [0, y, y], color="C0", lw=1)
        ax.text(xt + (-0.05 if left else 0.05), y, f"{name} ({rank:.2f})", ha="right" if left else "left",
                va="center", fontsize=9)
    # cliques: maximal runs of methods whose rank span is below the CD
    vals = r.to_numpy()
    cliques = []
    for i in range(k):
        j = i
        while j + 1 < k and vals[j + 1] - vals[i] <= cd:
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in cliques):
            cliques.append((i, j))
    for n, (i, j) in enumerate(cliques):
        y = -0.35 - 0.25 * n
        ax.hlines(y, vals[i] - 0.03, vals[j] + 0.03, color="black", lw=3)
    if np.isfinite(cd):
        ax.hlines(1.6, lo, lo + cd, color="red", lw=2)
        ax.text(lo + cd / 2, 1.75, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9, color="red")
    ax.axis("off")
    ax.set_title(title, fontsize=10)
    return _save(fig, Path(path))


def plot_accuracy_vs_compression(results: pd.DataFrame, path, *, metric: str = "accuracy", title: str = "") -> Path:
    """Mean ``metric`` vs mean compression per method (one marker per classifier; faint: per dataset).

    Parameters
    ----------
    results : pandas.DataFrame
    path : path
        The PNG file.
    metric : str
    title : str

    Returns
    -------
    Path

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = plot_accuracy_vs_compression(_example_results(), pathlib.Path(tempfile.mkdtemp()) / "ac.png")
    >>> p.suffix
    '.png'
    """
    ok = results[results["status"] == "ok"]
    fig, ax = _axes((7, 5))
    methods = _order(results["selector"])
    markers = "osD^v<>p*hX"
    for ci, clf in enumerate(_order(results["classifier"])):
        r = ok[ok["classifier"] == clf]
        per = r.groupby(["selector", "dataset"])[[metric, "compression"]].mean()
        for mi, s in enumerate(methods):
            if s not in per.index.get_level_values(0):
                continue
            p = per.loc[s]
            color = _color(mi, len(methods))
            ax.scatter(p["compression"], p[metric], color=color, alpha=0.15, s=12, marker=markers[ci % len(markers)])
            ax.scatter(p["compression"].mean(), p[metric].mean(), color=color, s=70,
                       marker=markers[ci % len(markers)], edgecolor="black",
                       label=f"{s} / {clf}")
    ax.set_xlabel("feature space compression (1 - selected / all)")
    ax.set_ylabel(metric)
    datasets = _order(ok["dataset"])
    ax.set_title(title or (f"{metric} vs compression on {datasets[0]} (mean over the folds)" if len(datasets) == 1
                           else f"{metric} vs compression (large: mean over datasets)"), fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), ncol=1 + len(methods) // 12)
    ax.grid(alpha=0.3)
    return _save(fig, Path(path))


def plot_per_dataset(results: pd.DataFrame, metric: str, classifier: str, path, *, title: str = "") -> Path:
    """Grouped bars: datasets on the x axis, one bar per method.

    Parameters
    ----------
    results : pandas.DataFrame
    metric : str
    classifier : str
    path : path
        The PNG file.
    title : str

    Returns
    -------
    Path

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = plot_per_dataset(_example_results(), "accuracy", "nb", pathlib.Path(tempfile.mkdtemp()) / "b.png")
    >>> p.name
    'b.png'
    """
    t = dataset_means(results, metric, classifier)
    n_d, n_m = t.shape
    fig, ax = _axes((min(14.0, max(6.0, 0.3 * n_d * max(1, n_m) ** 0.5 + 2)), 4.5))
    width = 0.8 / max(n_m, 1)
    x = np.arange(n_d)
    for j, s in enumerate(t.columns):
        ax.bar(x + (j - (n_m - 1) / 2) * width, t[s].fillna(0).to_numpy(), width, label=s, color=_color(j, n_m))
    ax.set_xticks(x)
    ax.set_xticklabels([str(d) for d in t.index], rotation=45, ha="right", fontsize=8)
    ax.set_ylabel(metric)
    ax.set_title(title or f"{metric} per dataset -- {classifier}", fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, Path(path))


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
    """Write results.csv, summary.csv (:func:`summarize`), stats.md, report.md and the PNG plots.

    Parameters
    ----------
    results : pandas.DataFrame
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
        ``results``, ``summary``, ``stats``, ``report`` (paths), ``plots`` (list of paths), and
        ``sweep`` when written.

    Examples
    --------
    >>> import tempfile
    >>> paths = write_outputs(_example_results(), tempfile.mkdtemp(), metrics=["accuracy"],
    ...                       rank_metrics=["accuracy"], settings=ReportSettings(title="T", plots=False))
    >>> sorted(paths)
    ['plots', 'report', 'results', 'stats', 'summary']
    """
    settings = ReportSettings() if settings is None else settings
    title, alpha = settings.title or "Evaluation report", settings.alpha
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths: dict = {}
    paths["results"] = out / "results.csv"
    atomic_write(paths["results"], lambda p: results.to_csv(p, index=False))
    if sweep is not None and len(sweep):
        paths["sweep"] = out / "sweep.csv"
        atomic_write(paths["sweep"], lambda p: sweep.to_csv(p, index=False))
    summary = summarize(results, metrics, rank_metrics)
    paths["summary"] = out / "summary.csv"
    atomic_write(paths["summary"], lambda p: summary.to_csv(p, index=False))
    st = stats_markdown(results, rank_metrics, control=settings.control, default_control=default_control, alpha=alpha,
                        title=f"{title}: statistical tests", alternative=settings.alternative or "two-sided")
    paths["stats"] = out / "stats.md"
    atomic_write(paths["stats"], lambda p: p.write_text(st + "\n", encoding="utf-8"))
    pngs: list[Path] = []
    if settings.plots and len(results):
        main = rank_metrics[0] if rank_metrics else "accuracy"
        for clf in _order(results["classifier"]):
            t = _complete(dataset_means(results, main, clf))
            if t.shape[0] >= 2 and t.shape[1] >= 2:
                try:
                    pngs.append(plot_cd_diagram(stats.rank_table(t).mean(axis=0), t.shape[0],
                                                out / f"cd_{_safe(main)}_{_safe(clf)}.png", alpha=alpha,
                                                title=f"Average ranks, {main}, {clf} (N={t.shape[0]})"))
                except Exception as exc:  # noqa: BLE001 - a plot must not lose the tables
                    log.warning("CD diagram failed: %s", exc)
            pngs.append(plot_per_dataset(results, main, clf, out / f"bars_{_safe(main)}_{_safe(clf)}.png"))
        pngs.append(plot_accuracy_vs_compression(results, out / "accuracy_vs_compression.png"))
    paths["plots"] = pngs
    rep = report_markdown(results, metrics, rank_metrics, title=title, notes=notes, plots=pngs)
    paths["report"] = out / "report.md"
    atomic_write(paths["report"], lambda p: p.write_text(rep + "\n", encoding="utf-8"))
    return paths
