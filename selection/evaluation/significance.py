"""What the statistical tests say, as data and as ``stats.md``, per ranked measure and classifier.

Starts from the tidy results of :func:`selection.evaluation.cv.evaluate_table` and the
majority-class baseline's rows (:mod:`selection.evaluation.baseline`):

- :func:`stats_blocks`: per ranked measure and classifier, over several datasets Friedman's test
  with Iman and Davenport's F as the omnibus verdict and Holm's test against a control (verdicts
  only when the omnibus test rejects and there are enough datasets, otherwise *exploratory*); on
  one dataset the corrected resampled t-test over the folds (Nadeau and Bengio 2003) of each
  method against the control and against the baseline. The tests themselves, their reasons and
  references are in :mod:`selection.evaluation.stats`.
- :func:`stats_markdown`: those blocks as ``stats.md`` (the RPV paper's Table A.1 layout);
  :func:`selection.evaluation.report.write_outputs` writes it and
  :func:`selection.evaluation.html.stats_section` shows the same blocks in ``report.html``.
- :func:`choose_control`: which method is the control.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import selection.evaluation.stats as stats
from selection.evaluation.tables import (
    BASELINE_COLUMN,
    METRIC_NAMES,
    STATS_INTRO,
    _complete,
    _example_results,  # noqa: F401 - the examples of this module's docstrings
    _order,
    dataset_means,
)

__all__ = ["choose_control", "left_out_note", "stats_blocks", "stats_markdown"]

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


def left_out_note(methods) -> str:
    """The sentence that names the methods a block of tests leaves out (their cells failed).

    Examples
    --------
    >>> left_out_note(["hip", "rpv"])
    'Left out of the tests: hip, rpv (no complete score: their cells failed; the errors are in results.csv).'
    """
    return (f"Left out of the tests: {', '.join(methods)} (no complete score: their cells failed; the errors are in "
            "results.csv).")


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

    A method without a complete score on any dataset (its cells failed) is left out of its block and named in the
    block's ``left_out``; a dataset where a method kept has no complete score is left out of the rank tests.

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
            means = dataset_means(results, m, clf)
            # a method with no complete score anywhere (its cells failed) is left out, and said, rather than
            # leaving every dataset incomplete: the others are still compared
            failed = [c for c in means.columns if means[c].isna().all()]
            t = _complete(means.drop(columns=failed))
            head = {"metric": m, "classifier": clf, "left_out": failed}
            if t.shape[1] < 2 and not (t.shape == (1, 1) and baseline is not None and len(baseline)):
                blocks.append({**head, "kind": "none", "message": f"Not enough data for the tests ({t.shape[0]} "
                                                                  f"complete dataset(s), {t.shape[1]} method(s))."})
                continue
            if t.shape[0] < 1:
                blocks.append({**head, "kind": "none", "message": "No dataset where every method has a score."})
                continue
            ctrl = choose_control(t.columns, control, default_control)
            if t.shape[0] == 1:
                keep = results[~(results["classifier"].eq(clf) & results["selector"].isin(failed))]
                blocks.append({**_paired_block(keep, baseline, m, clf, t.index[0], ctrl, alpha), "left_out": failed})
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
        if b.get("left_out"):
            out += [left_out_note(b["left_out"]), ""]
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
