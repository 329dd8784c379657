"""The evaluation's PNG plots: the spread beside the mean, the majority-class baseline, honest axes.

Every plot starts from the tidy results (one row per dataset x selector x classifier x fold,
:data:`selection.evaluation.cv.COLUMNS`) and, when given, the majority-class baseline's rows
(:mod:`selection.evaluation.baseline`):

- :func:`plot_metric_vs_compression`: a measure against feature space compression, one marker
  per method and classifier at its mean, with error bars (± sd over the folds, or over the
  datasets when there are several) and the folds' (datasets') own points faint behind it; the
  baseline as a dashed line. A method whose selection was degenerate in some fold is drawn hollow
  and named so in the legend.
- :func:`plot_per_dataset`: bars per dataset and method with error bars (± sd over the folds), the
  baseline as a dashed mark over each dataset.
- :func:`plot_cd_diagram`: average ranks and Nemenyi's critical difference (drawn only where a
  verdict is allowed: :mod:`selection.evaluation.stats`).

Axes do not exaggerate: every measure plotted (accuracy, GM, AUROC, AUCPR, compression, harmonic
mean) lies in [0, 1] and its axis spans the whole of it, so a difference of 0.017 looks as small
as it is next to a spread of 0.108. Figures are made outside pyplot (no global state) and
written atomically.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

import selection.evaluation.stats as stats
from kg.files import atomic_write

__all__ = ["metric_vs_compression_figure", "per_dataset_figure", "plot_accuracy_vs_compression", "plot_cd_diagram",
           "plot_metric_vs_compression", "plot_per_dataset"]

_LABELS = {"accuracy": "accuracy", "gm": "GM", "auroc": "AUROC", "aucpr": "AUCPR", "harmonic_mean": "harmonic mean",
           "compression": "compression"}


def _order(values) -> list:
    return list(dict.fromkeys(values))


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
    atomic_write(path, lambda p: fig.savefig(p, format="png", dpi=100, bbox_inches="tight"))
    return path


def _example_results() -> pd.DataFrame:
    """Results of 2 datasets x 2 methods x 1 classifier x 2 folds (for the examples)."""
    acc = {("d1", "A"): (0.6, 0.8), ("d1", "B"): (0.7, 0.7), ("d2", "A"): (0.9, 0.9), ("d2", "B"): (0.5, 0.7)}
    return pd.DataFrame([{"dataset": d, "selector": m, "classifier": "nb", "fold": f, "accuracy": a,
                          "compression": {"A": 0.0, "B": 0.5}[m], "select_seconds": 0.01, "status": "ok",
                          "error": "", "degenerate": ""} for (d, m), accs in acc.items() for f, a in enumerate(accs)])


def _unit_axis(ax, axis: str, label: str) -> None:
    """An axis over the measure's whole range [0, 1], said in its label."""
    (ax.set_ylim if axis == "y" else ax.set_xlim)(-0.02, 1.02)
    (ax.set_ylabel if axis == "y" else ax.set_xlabel)(f"{label} (axis from 0 to 1)")


def _degenerate_methods(results: pd.DataFrame) -> set:
    if "degenerate" not in results:
        return set()
    d = results["degenerate"].map(lambda v: isinstance(v, str) and bool(v))
    return set(zip(results.loc[d, "selector"], results.loc[d, "classifier"]))


def _baseline_level(baseline: pd.DataFrame | None, metric: str, dataset: str | None = None) -> float | None:
    if baseline is None or baseline.empty or metric not in baseline:
        return None
    b = baseline if dataset is None else baseline[baseline["dataset"] == dataset]
    if b.empty:
        return None
    return float(b.groupby("dataset")[metric].mean().mean())


def plot_metric_vs_compression(results: pd.DataFrame, path, *, metric: str = "accuracy",
                               baseline: pd.DataFrame | None = None, title: str = "") -> Path:
    """``metric`` against compression: mean ± sd per method and classifier, the folds faint, the baseline dashed.

    With one dataset the error bars and faint points are over the folds; with several, over the
    datasets' means.

    Parameters
    ----------
    results : pandas.DataFrame
    path : path
        The PNG file (written atomically).
    metric : str
    baseline : pandas.DataFrame, optional
        The majority-class baseline's rows (:func:`selection.evaluation.baseline.majority_baseline`).
    title : str

    Returns
    -------
    Path

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = plot_metric_vs_compression(_example_results(), pathlib.Path(tempfile.mkdtemp()) / "ac.png")
    >>> p.read_bytes()[:4]
    b'\\x89PNG'
    """
    return _save(metric_vs_compression_figure(results, metric=metric, baseline=baseline, title=title), Path(path))


def metric_vs_compression_figure(results: pd.DataFrame, *, metric: str = "accuracy",
                                 baseline: pd.DataFrame | None = None, title: str = ""):
    """The figure of :func:`plot_metric_vs_compression` (a ``matplotlib.figure.Figure``, not saved)."""
    ok = results[results["status"] == "ok"]
    fig, ax = _axes((7.5, 5))
    methods = _order(results["selector"])
    datasets = _order(ok["dataset"])
    one = len(datasets) == 1
    degenerate = _degenerate_methods(ok)
    markers = "osD^v<>p*hX"
    for ci, clf in enumerate(_order(results["classifier"])):
        r = ok[ok["classifier"] == clf]
        for mi, s in enumerate(methods):
            rs = r[r["selector"] == s]
            if rs.empty or metric not in rs:
                continue
            points = rs if one else rs.groupby("dataset")[[metric, "compression"]].mean()
            color, marker = _color(mi, len(methods)), markers[ci % len(markers)]
            ax.scatter(points["compression"], points[metric], color=color, alpha=0.25, s=14, marker=marker,
                       linewidths=0)
            bad = (s, clf) in degenerate
            ax.errorbar(points["compression"].mean(), points[metric].mean(), xerr=points["compression"].std(),
                        yerr=points[metric].std(), fmt=marker, color=color, ms=9, capsize=4,
                        mfc="white" if bad else color, mec="black" if not bad else color,
                        label=f"{s} / {clf}" + (" (degenerate selection)" if bad else ""))
    level = _baseline_level(baseline, metric)
    if level is not None:
        ax.axhline(level, color="black", ls="--", lw=1.2, label=f"majority class (prior) {level:.3f}")
    _unit_axis(ax, "x", "feature space compression (1 - selected / all)")
    _unit_axis(ax, "y", _LABELS.get(metric, metric))
    spread = "± sd over the folds; faint: each fold" if one else "± sd over the datasets; faint: each dataset"
    ax.set_title(title or f"{_LABELS.get(metric, metric)} vs compression"
                 + (f" on {datasets[0]}" if one else f" ({len(datasets)} datasets)") + f"\nmean {spread}",
                 fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), ncol=1 + len(methods) // 12)
    ax.grid(alpha=0.3)
    return fig


def plot_accuracy_vs_compression(results: pd.DataFrame, path, *, metric: str = "accuracy",
                                 baseline: pd.DataFrame | None = None, title: str = "") -> Path:
    """:func:`plot_metric_vs_compression` (the name of earlier versions)."""
    return plot_metric_vs_compression(results, path, metric=metric, baseline=baseline, title=title)


def plot_per_dataset(results: pd.DataFrame, metric: str, classifier: str, path, *,
                     baseline: pd.DataFrame | None = None, title: str = "") -> Path:
    """Grouped bars: datasets on the x axis, one bar per method (mean ± sd over the folds), the baseline dashed.

    Parameters
    ----------
    results : pandas.DataFrame
    metric : str
    classifier : str
    path : path
        The PNG file.
    baseline : pandas.DataFrame, optional
        The majority-class baseline's rows.
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
    return _save(per_dataset_figure(results, metric, classifier, baseline=baseline, title=title), Path(path))


def per_dataset_figure(results: pd.DataFrame, metric: str, classifier: str, *, baseline: pd.DataFrame | None = None,
                       title: str = ""):
    """The figure of :func:`plot_per_dataset` (a ``matplotlib.figure.Figure``, not saved)."""
    r = results[(results["classifier"] == classifier) & results["status"].eq("ok")]
    datasets, methods = _order(results["dataset"]), _order(results["selector"])
    mean = r.groupby(["dataset", "selector"])[metric].mean()
    sd = r.groupby(["dataset", "selector"])[metric].std()
    n_d, n_m = len(datasets), len(methods)
    fig, ax = _axes((min(14.0, max(6.0, 0.3 * n_d * max(1, n_m) ** 0.5 + 2)), 4.5))
    width = 0.8 / max(n_m, 1)
    x = np.arange(n_d)
    degenerate = _degenerate_methods(results[results["classifier"] == classifier])
    for j, s in enumerate(methods):
        m = np.array([mean.get((d, s), np.nan) for d in datasets], dtype=float)
        e = np.array([sd.get((d, s), np.nan) for d in datasets], dtype=float)
        bad = (s, classifier) in degenerate
        ax.bar(x + (j - (n_m - 1) / 2) * width, np.nan_to_num(m), width, yerr=np.nan_to_num(e), capsize=3,
               label=s + (" (degenerate selection)" if bad else ""), color=_color(j, n_m),
               hatch="//" if bad else None, edgecolor="black" if bad else None)
    shown = False
    for i, d in enumerate(datasets):
        level = _baseline_level(baseline, metric, d)
        if level is not None:
            ax.hlines(level, i - 0.45, i + 0.45, colors="black", linestyles="--", lw=1.5,
                      label=None if shown else "majority class (prior)")
            shown = True
    ax.set_xticks(x)
    ax.set_xticklabels([str(d) for d in datasets], rotation=45 if n_d > 1 else 0, ha="right" if n_d > 1 else "center",
                       fontsize=8)
    _unit_axis(ax, "y", _LABELS.get(metric, metric))
    ax.set_title(title or f"{_LABELS.get(metric, metric)} per dataset -- {classifier} (mean ± sd over the folds)",
                 fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(axis="y", alpha=0.3)
    return fig


def plot_cd_diagram(avg_ranks: pd.Series, n_datasets: int, path, *, alpha: float = 0.05, title: str = "") -> Path:
    """Critical-difference diagram: methods on a rank axis; a bar joins methods within Nemenyi's CD.

    Draw it only where the post-hoc verdict is allowed (enough datasets, the omnibus test rejects:
    :func:`selection.evaluation.stats.verdict_allowed`); :func:`selection.evaluation.report.write_outputs`
    does so.

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
