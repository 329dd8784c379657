"""``report.html``: an evaluation as one self-contained page (no network: styles inline, images as ``data:`` URIs).

The page says first what a person must know (the headline with the majority-class baseline
beside the methods and degenerate selections marked), then the results per measure (mean ± sd
over the folds, the baseline in its own column), what the statistical tests say (and what they
cannot say: :func:`selection.evaluation.significance.stats_blocks`), and the plots. ``kgfs evaluate``
writes it (:func:`selection.evaluation.report.write_outputs`); the report of a ``kgfs run``
(:mod:`flows.publishing.html`) is made of the same sections plus the selected hierarchy
(:mod:`kg.formats.tree_html`).

The building blocks are public: :func:`page` (a whole document around sections), :func:`html_table`,
:func:`png_img`, :func:`summary_section`, :func:`measures_section`, :func:`stats_section` and
:func:`plots_section`.

Examples
--------
>>> from selection.evaluation.report import _example_results, summarize
>>> from selection.evaluation.significance import stats_blocks
>>> r = _example_results()
>>> doc = evaluation_html(r, summarize(r, ["accuracy"], ["accuracy"]), stats_blocks(r, ["accuracy"]), title="T",
...                       metrics=["accuracy"])
>>> doc.startswith("<!DOCTYPE html>"), ">Statistics</h2>" in doc, "http" in doc.split("<body>")[1]
(True, True, False)
"""

from __future__ import annotations

import base64
import html
import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from selection.evaluation.baseline import is_baseline
from selection.evaluation.headline import headline, row_note
from selection.evaluation.significance import left_out_note
from selection.evaluation.tables import (
    BASELINE_COLUMN,
    BOLD_RULE,
    METRIC_NAMES,
    STATS_INTRO,
    ReportText,
    _order,
    best_cells,
    dataset_means,
    dataset_sds,
    degenerate_cells,
    split_budget,
    split_features,
    unbeaten_note,
)

__all__ = ["CSS", "answer_section", "esc", "evaluation_html", "html_table", "measures_section", "page", "plots_section",
           "png_img", "split_section", "stats_section", "summary_section"]

#: The page's styles (inline: the report must open offline, from a file).
CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1200px;padding:1em 2em;
color:#222;line-height:1.4}
h1{font-size:1.5em;margin-bottom:.2em} h2{font-size:1.25em;border-bottom:1px solid #ccc;margin-top:1.6em}
h3{font-size:1.05em;margin-bottom:.3em} .sub{color:#555;margin-top:0}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}
th,td{padding:.25em .6em;border-bottom:1px solid #e4e4e4}
th{background:#f4f4f4;text-align:left} td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.baseline td{font-style:italic;color:#444;background:#f7f7ff} tr.degenerate td{background:#fff1f0}
.badge{display:inline-block;padding:0 .4em;border-radius:.3em;font-size:.8em;font-weight:600;margin-left:.3em}
.badge.bad{background:#d93025;color:#fff} .badge.base{background:#3b5bdb;color:#fff}
.warning{border-left:4px solid #d93025;background:#fff1f0;padding:.5em 1em;margin:.6em 0}
.answer{border-left:4px solid #3b5bdb;background:#eef2ff;padding:.4em 1em;margin:.6em 0;font-size:1.08em}
.answer p{margin:.3em 0;font-weight:600}
.note{border-left:4px solid #f0a000;background:#fff8e6;padding:.5em 1em;margin:.6em 0}
.plots{display:flex;flex-wrap:wrap;gap:.6em} .plots figure{margin:0;flex:1 1 45%;min-width:420px}
.plots img{max-width:100%;border:1px solid #ddd;margin:.4em 0} .best{font-weight:700}
nav.toc{font-size:.9em;margin:.4em 0 1em} nav.toc a{margin-right:1em}
code{background:#f4f4f4;padding:0 .25em;border-radius:.2em} .muted{color:#777}
"""


def esc(value) -> str:
    """HTML-escaped text of any value (``""`` for None and NaN).

    Examples
    --------
    >>> esc("<a & b>"), esc(None), esc(float("nan"))
    ('&lt;a &amp; b&gt;', '', '')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return html.escape(str(value), quote=True)


def _num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def html_table(rows: Sequence[Mapping], columns: Sequence[str] | None = None, *, row_class=None,
               raw: Sequence[str] = (), table_id: str | None = None) -> str:
    """An HTML table of ``rows`` (dicts): text escaped, numbers right-aligned.

    Parameters
    ----------
    rows : sequence of mapping
    columns : sequence of str, optional
        Default: the first row's keys.
    row_class : callable, optional
        ``row_class(row) -> str``: the ``<tr>``'s class.
    raw : sequence of str
        Columns whose values are HTML already (not escaped).
    table_id : str, optional

    Returns
    -------
    str

    Examples
    --------
    >>> html_table([{"a": "x<y", "n": 2}]).split("<tbody>")[1]
    '<tr><td>x&lt;y</td><td class="num">2</td></tr></tbody></table>'
    """
    if not rows:
        return ""
    columns = list(columns or rows[0])
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    body = []
    for r in rows:
        cls = row_class(r) if row_class else ""
        cells = []
        for c in columns:
            v = r.get(c)
            num = _num(v) or (isinstance(v, str) and _numeric_text(v))
            cells.append(("<td class=\"num\">" if num else "<td>") + (str(v) if c in raw else esc(v)) + "</td>")
        body.append((f'<tr class="{cls}">' if cls else "<tr>") + "".join(cells) + "</tr>")
    tid = f' id="{esc(table_id)}"' if table_id else ""
    return f"<table{tid}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _numeric_text(s: str) -> bool:
    t = s.replace("±", "").replace("of", "").replace(" ", "").replace(".", "").replace("-", "")
    return bool(t) and t.isdigit()


def png_img(path, alt: str = "") -> str:
    """An ``<img>`` holding a PNG file inline (a ``data:`` URI): the page needs no other file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.png"
    >>> _ = p.write_bytes(b"\\x89PNG")
    >>> png_img(p, "x")
    '<img alt="x" src="data:image/png;base64,iVBORw=="/>'
    """
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f'<img alt="{esc(alt)}" src="data:image/png;base64,{data}"/>'


def page(title: str, sections: Sequence[str], *, subtitle: str = "", head: str = "") -> str:
    """A complete HTML document: ``title``, an optional subtitle, links to its ``<h2>`` sections, the sections in order.

    Parameters
    ----------
    title : str
    sections : sequence of str
        HTML fragments (their scripts and styles inline).
    subtitle : str
    head : str
        More of the document's ``<head>`` (styles).

    Returns
    -------
    str

    Examples
    --------
    >>> page("T", ["<p>x</p>"]).count("<h1>")
    1
    """
    sub = f'<p class="sub">{esc(subtitle)}</p>' if subtitle else ""
    body, links = [], []
    for sec in sections:  # every <h2> gets an anchor, listed at the top
        def anchor(m):
            links.append((f"s{len(links) + 1}", m.group(1)))
            return f'<h2 id="s{len(links)}">{m.group(1)}</h2>'
        body.append(re.sub(r"<h2>(.*?)</h2>", anchor, sec))
    toc = '<nav class="toc">' + "".join(f'<a href="#{a}">{t}</a>' for a, t in links) + "</nav>" if links else ""
    first = [b for b in body if b.startswith('<div class="answer"')][:1]  # the answer opens the page, above the links
    sections = [*first, toc, *[b for b in body if b not in first]]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/><title>{esc(title)}</title>"
            f"<style>{CSS}</style>{head}</head>\n<body>\n<h1>{esc(title)}</h1>{sub}\n" + "\n".join(sections)
            + "\n</body></html>\n")


def summary_section(summary: pd.DataFrame, *, title: str = "Results", intro: str = "") -> str:
    """The headline rows (mean ± sd over the folds), the baseline row beside them, degenerate rows marked.

    Parameters
    ----------
    summary : pandas.DataFrame
        ``summary.csv`` (:func:`selection.evaluation.report.summarize`, with the baseline's rows).
    title : str
    intro : str
        A paragraph (HTML) under the title.

    Returns
    -------
    str

    Examples
    --------
    >>> s = pd.DataFrame({"dataset": "d", "selector": ["A", "majority class"], "classifier": ["nb", "prior"],
    ...                   "folds": 10, "failed": 0, "degenerate": ["only roots (10/10 folds)", ""],
    ...                   "accuracy": [0.717, 0.717], "accuracy_sd": [0.03, 0.03]})
    >>> sec = summary_section(s)
    >>> 'class="degenerate"' in sec, 'class="baseline"' in sec, "only roots (10/10 folds)" in sec
    (True, True, True)
    """
    if summary is None or summary.empty:
        return f"<h2>{esc(title)}</h2><p>No cross-validation results.</p>"
    h = headline(summary)
    base = is_baseline(summary).tolist()
    notes = [row_note(r) for r in summary.to_dict("records")]
    rows = []
    for r, b, n in zip(h.to_dict("records"), base, notes):
        r = {k: v for k, v in r.items() if k != "note"}
        badge = ('<span class="badge base">baseline</span>' if b else
                 '<span class="badge bad">degenerate</span>' if n else "")
        text = "the most frequent class of each training part, no feature" if b else n.split(": ", 1)[-1]
        r["note"] = badge + (" " + esc(text) if n else "")
        r["_kind"] = "baseline" if b else ("degenerate" if n else "")
        rows.append(r)
    cols = [c for c in rows[0] if c != "_kind"]
    out = [f"<h2>{esc(title)}</h2>", intro]
    bad = [n for n, b in zip(notes, base) if n and not b]
    if bad:
        out.append('<div class="warning"><b>Degenerate selection.</b> A method marked <i>degenerate</i> kept nothing, '
                   "only roots of the hierarchy, or only features constant over the training instances (in the folds "
                   "said): read its scores against the majority-class baseline, whatever their rank.</div>")
    out.append(html_table(rows, cols, raw=["note"], row_class=lambda r: r["_kind"], table_id="summary"))
    return "\n".join(out)


def measures_section(results: pd.DataFrame, metrics: Sequence[str], baseline: pd.DataFrame | None = None, *,
                     names: Mapping | None = None) -> str:
    """Per measure and classifier: datasets x methods, mean ± sd over the folds, the best in bold, the baseline.

    Parameters
    ----------
    results : pandas.DataFrame
    metrics : sequence of str
    baseline : pandas.DataFrame, optional
    names : mapping, optional
        Measure -> title (default :data:`~selection.evaluation.tables.METRIC_NAMES`).

    Returns
    -------
    str

    Examples
    --------
    >>> from selection.evaluation.tables import _example_results
    >>> "<h3>Classification accuracy -- nb</h3>" in measures_section(_example_results(), ["accuracy"])
    True
    """
    names = METRIC_NAMES if names is None else names
    with_base = baseline is not None and len(baseline) > 0
    rule = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", esc(BOLD_RULE)) if with_base else "<b>bold</b>: the best per dataset"
    out = ["<h2>Results per measure</h2>",
           f"<p>Each cell: mean ± sd over the folds; {rule}; the last column is the "
           "majority-class baseline on the same folds; † a degenerate selection.</p>"]
    for m in _order([*metrics, "pct_selected"]):
        if m != "pct_selected" and m not in results:
            continue
        higher = m != "pct_selected"
        digits = 1 if m == "pct_selected" else 3
        for clf in _order(results["classifier"]):
            t = dataset_means(results, m, clf)
            if t.empty:
                continue
            sds, marks = dataset_sds(results, m, clf), degenerate_cells(results, clf)
            base = None
            if baseline is not None and len(baseline) and m in baseline and m != "pct_selected":
                base = baseline.groupby("dataset", sort=False)[m].mean()
            rows = []
            bold = best_cells(t, base, higher_is_better=higher)
            for d, row in t.iterrows():
                r = {"dataset": esc(d)}
                for c, v in row.items():
                    if v != v:
                        r[c] = '<span class="muted">failed</span>'
                        continue
                    sd = sds.at[d, c] if c in sds.columns else float("nan")
                    txt = f"{v:.{digits}f}" + ("" if sd != sd else f" ± {sd:.{digits}f}")
                    txt = f'<span class="best">{txt}</span>' if bool(bold.at[d, c]) else txt
                    r[c] = txt + (" †" if bool(marks.at[d, c]) else "")
                if base is not None:
                    b = base.get(d, float("nan"))
                    r[BASELINE_COLUMN] = "" if b != b else f"<i>{b:.{digits}f}</i>"
                rows.append(r)
            out.append(f"<h3>{esc(names.get(m, m))} -- {esc(clf)}</h3>")
            out.append(html_table(rows, raw=list(rows[0])))
            none = unbeaten_note(t, base, higher_is_better=higher)
            if none:
                out.append(f'<p class="unbeaten"><i>{esc(none)}</i></p>')
    return "\n".join(out)


def split_section(results: pd.DataFrame, features: pd.DataFrame | None = None, baseline: pd.DataFrame | None = None,
                  *, limit: int = 40) -> str:
    """The split protocol's results: each model's test accuracy with its interval, what the training part chose,
    and the features the final model selected.

    Parameters
    ----------
    results : pandas.DataFrame
        Rows with the split columns (:data:`selection.evaluation.split.SPLIT_COLUMNS`).
    features : pandas.DataFrame, optional
        ``selected_features.csv`` (:func:`selection.evaluation.tables.split_features`).
    baseline : pandas.DataFrame, optional
        The majority-class baseline's row per dataset.
    limit : int
        Features listed per model (the rest are in ``selected_features.csv``).

    Returns
    -------
    str
        ``""`` without split columns.

    Examples
    --------
    >>> r = pd.DataFrame([{"dataset": "d", "selector": "complete", "classifier": "logreg", "accuracy": 0.75,
    ...                    "accuracy_ci_low": 0.5, "accuracy_ci_high": 0.9, "confidence": 0.95, "cv_accuracy": 0.7,
    ...                    "chosen": '{"clf__C": 1.0}', "n_features": 4, "n_selected": 4, "n_train": 8, "n_test": 4,
    ...                    "n_candidates": 5, "select_seconds": 1.0, "status": "ok"}])
    >>> f = pd.DataFrame([{"dataset": "d", "selector": "complete", "classifier": "logreg", "feature": "out:p",
    ...                    "label": "p", "support": 3}])
    >>> sec = split_section(r, f)
    >>> "0.750 [0.500, 0.900]" in sec, "C=1.0" in sec, "out:p" in sec
    (True, True, True)
    """
    if "accuracy_ci_low" not in results or results.empty:
        return ""
    ok = results[results["status"] == "ok"]
    conf = float(ok["confidence"].dropna().iloc[0]) if len(ok) and ok["confidence"].notna().any() else 0.95
    rows = []
    for r in results.to_dict("records"):
        try:
            chosen = json.loads(r.get("chosen") or "{}")
        except (TypeError, ValueError):
            chosen = {}
        said = ", ".join(f"{k.split('__')[-1]}={v}" for k, v in chosen.items())
        acc = r.get("accuracy")
        rows.append({"dataset": r["dataset"], "selector": r["selector"], "classifier": r["classifier"],
                     "test accuracy": "failed" if r.get("status") != "ok" else
                     f"{acc:.3f} [{r['accuracy_ci_low']:.3f}, {r['accuracy_ci_high']:.3f}]",
                     "train CV accuracy": "" if r.get("cv_accuracy") != r.get("cv_accuracy") else
                     f"{r['cv_accuracy']:.3f}",
                     "chosen on train": said, "features (generated -> kept)":
                     f"{int(r['n_features'])} -> {r['n_selected']:g}{split_budget(r)}" if r.get("status") == "ok"
                     else "",
                     "settings tried": r.get("n_candidates"),
                     "search s": round(float(r.get("select_seconds") or 0.0), 1),
                     "train / test": f"{r.get('n_train')} / {r.get('n_test')}"})
    if baseline is not None and len(baseline):
        for b in baseline.to_dict("records"):
            rows.append({"dataset": b["dataset"], "selector": "majority class", "classifier": "prior",
                         "test accuracy": f"{b['accuracy']:.3f}", "train CV accuracy": "", "chosen on train": "",
                         "features (generated -> kept)": "0", "settings tried": "", "search s": "",
                         "train / test": f"{b.get('n_train')} / {b.get('n_test')}"})
    out = ["<h2>Test split</h2>",
           f"<p>Every setting chosen by cross-validation on the training part only (the features generated inside "
           f"each fit); the test part scored once. Test accuracy with its Wilson {conf:.0%} interval: with "
           f"{int(results['n_test'].max())} test instances an interval is wide, and two methods whose intervals "
           "overlap are not told apart by this split.</p>",
           html_table(rows, row_class=lambda r: "baseline" if r["selector"] == "majority class" else "")]
    if features is not None and len(features):
        out.append("<h3>Selected features of the final models</h3>")
        for (d, s, c), g in features.groupby(["dataset", "selector", "classifier"], sort=False):
            shown = g.head(limit)
            cols = [k for k in ("feature", "label", "support", "test_instances") if k in g and g[k].notna().any()]
            more = f" (the first {limit}; all in selected_features.csv)" if len(g) > limit else ""
            out.append(f"<p><b>{esc(d)} / {esc(s)} / {esc(c)}</b>: {len(g)} feature(s){esc(more)}; support = "
                       "training instances that have it" + ("; test_instances = test instances it was selected for"
                                                              if "test_instances" in cols else "") + "</p>")
            out.append(html_table(shown[cols].to_dict("records"), cols))
    return "\n".join(out)


def _p(v) -> str:
    return "" if v is None or v != v else (f"{v:.1E}" if v < 0.001 else f"{v:.3f}")


def inline(text: str) -> str:
    """A line of the Markdown report as HTML: escaped, its code spans (`x`) and bold (**x**) marked up.

    Examples
    --------
    >>> inline("Protocol `basic` is **10-fold** <CV>")
    'Protocol <code>basic</code> is <b>10-fold</b> &lt;CV&gt;'
    """
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", esc(text))
    return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", out)


def stats_section(blocks: Sequence[Mapping], *, names: Mapping | None = None) -> str:
    """What the tests say (:func:`~selection.evaluation.significance.stats_blocks`), with warnings and how to read them.

    Examples
    --------
    >>> from selection.evaluation.significance import _example_results, stats_blocks
    >>> "exploratory" in stats_section(stats_blocks(_example_results(), ["accuracy"]))
    True
    """
    intro = "".join("<li>" + re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", re.sub(r"(?<!\*)\*([^*]+)\*(?!\*)", r"<i>\1</i>",
                                                                          esc(x[2:]))) + "</li>"
                    for x in STATS_INTRO if x.startswith("- "))
    out = ["<h2>Statistics</h2>", f"<ul>{intro}</ul>"]
    for b in blocks:
        out.append(f"<h3>{esc((names or METRIC_NAMES).get(b['metric'], b['metric']))} -- {esc(b['classifier'])}</h3>")
        if b.get("left_out"):
            out.append(f'<p class="muted">{esc(left_out_note(b["left_out"]))}</p>')
        if b["kind"] == "none":
            out.append(f"<p>{esc(b['message'])}</p>")
        elif b["kind"] == "paired":
            out.append(f"<p>One dataset ({esc(b['dataset'])}): corrected resampled t-test over the folds (Nadeau and "
                       f"Bengio 2003); difference = method − other, {100 * (1 - b['alpha']):.0f}% interval, p-values "
                       "Holm-adjusted over this table's rows.</p>")
            rows = [{"method": r["method"], "against": r["against"], "mean difference": f"{r['mean_difference']:+.3f}",
                     "interval": f"[{r['ci_low']:+.3f}, {r['ci_high']:+.3f}]", "t": f"{r['t']:.2f}",
                     "p-value": _p(r["p_value"]), "p (Holm)": _p(r["p_holm"]), "verdict": r["verdict"]}
                    for r in b["rows"]]
            out.append(html_table(rows) if rows else "<p>No comparison possible.</p>")
        else:
            fr = b["friedman"]
            out += [f'<div class="warning">{esc(w)}.</div>' for w in b["warnings"]]
            verdict = "rejects" if fr.rejects(b["alpha"]) else "does not reject"
            out.append(f"<p>Omnibus: Iman-Davenport F = {fr.iman_davenport:.2f} (p = {fr.iman_davenport_pvalue:.2E}) "
                       f"<b>{verdict}</b> at α = {b['alpha']}; Friedman's χ²<sub>F</sub> = {fr.statistic:.2f} "
                       f"(p = {fr.pvalue:.2E}); N = {fr.n_datasets} datasets, k = {fr.n_methods} methods.</p>")
            rows = [{"method": r["method"] + (" (control)" if r["method"] == b["control"] else ""),
                     "avg. rank": f"{r['avg_rank']:.2f}", "p-value": _p(r["p_value"]),
                     "adjusted α": "" if r["adjusted_alpha"] != r["adjusted_alpha"] else f"{r['adjusted_alpha']:.3f}",
                     "verdict": r["verdict"]} for r in b["rows"]]
            out.append(html_table(rows))
    return "\n".join(out)


def plots_section(paths: Sequence) -> str:
    """The PNG plots inline.

    Examples
    --------
    >>> plots_section([])
    ''
    """
    paths = [Path(p) for p in paths if Path(p).is_file()]
    if not paths:
        return ""
    return "<h2>Plots</h2>\n<div class=\"plots\">" + "\n".join(
        f"<figure>{png_img(p, p.stem)}<figcaption class=\"muted\">{esc(p.name)}</figcaption></figure>"
        for p in paths) + "</div>"


def answer_section(sentences: Sequence[str]) -> str:
    """The answer, one sentence per dataset, at the top of a page (``""`` without one).

    Examples
    --------
    >>> answer_section(["No method beats the majority class (0.717)."])
    '<div class="answer" id="answer"><p>No method beats the majority class (0.717).</p></div>'
    """
    if not sentences:
        return ""
    return '<div class="answer" id="answer">' + "".join(f"<p>{esc(x)}</p>" for x in sentences) + "</div>"


def evaluation_html(results: pd.DataFrame, summary: pd.DataFrame, blocks: Sequence[Mapping], *, title: str,
                    plots: Sequence = (), baseline: pd.DataFrame | None = None, metrics: Sequence[str] = (),
                    text: ReportText | None = None) -> str:
    """``report.html`` of an evaluation (``kgfs evaluate``): headline, results, statistics, plots.

    Parameters
    ----------
    results : pandas.DataFrame
    summary : pandas.DataFrame
    blocks : sequence of dict
        :func:`selection.evaluation.significance.stats_blocks`.
    title : str
    plots : sequence of path
    baseline : pandas.DataFrame, optional
    metrics : sequence of str
    text : ReportText, optional
        The answer (one sentence per dataset: the page opens with it), the notes and the measures' titles
        (:func:`selection.evaluation.tables.metric_names`).

    Returns
    -------
    str
    """
    text = ReportText() if text is None else text
    answer, notes, names = text.answer, text.notes, text.names
    intro = "<ul>" + "".join(f"<li>{inline(n)}</li>" for n in notes) + "</ul>" if notes else ""
    features = split_features(results)  # a split evaluation's final models (the rows' selected_features)
    sections = [answer_section(answer), intro, split_section(results, features if len(features) else None, baseline),
                summary_section(summary)]
    if len(results):
        sections += [measures_section(results, metrics or ["accuracy"], baseline, names=names),
                     stats_section(blocks, names=names)]
    sections.append(plots_section(plots))
    return page(title, sections)
