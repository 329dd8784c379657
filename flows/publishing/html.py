"""``report.html`` of a ``kgfs run``: one self-contained page a scientist can trust at a glance.

Made from the run's stage records when its output folder is published
(:func:`flows.publishing.outcome.finish`), with no network and no other file (styles, script and
images inline): the answer first (per dataset, the best method against the majority-class baseline:
:mod:`flows.publishing.answer`); what was run and on what; warnings (a degenerate selection); then the
results: the cross-validation with the majority-class baseline beside the methods and the spread over
the folds (:mod:`selection.evaluation.html`), what the statistical tests say, the plots; then the
features: those the selector kept on the whole table and the selected hierarchy, explorable
(:mod:`kg.formats.tree_html`); the stages and parameters. The sections come from the libraries; this
module only reads the records' files and puts them in order.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from flows.publishing.report import cache_outcome, run_labels, stage_note
from kg.store import Record

__all__ = ["run_html"]


def _hierarchy_section(table, selection) -> str:
    from kg.formats.tree_html import hierarchy_view
    from selection.measures.enrichment import enrichment_texts

    sel = selection.set_index("feature").reindex(table.feature_names.tolist())
    selected = sel["selected"].fillna(False).astype(bool).to_numpy()
    names = dict(table.meta.get("term_names") or {})
    if "name" in sel:
        names.update({f: n for f, n in sel["name"].items() if isinstance(n, str) and n})
    scores = sel["score"].to_numpy(dtype=float) if "score" in sel else None
    return hierarchy_view(table.hierarchy, selected=selected, names=names, support=np.asarray(table.support),
                          scores=scores, enrichment=enrichment_texts(sel), title="The selected hierarchy")


#: Said once beside the features' enrichment: what its p- and q-values are, and what they are not.
ENRICHMENT_NOTE = ("Enriched in: the class in which the feature's share of instances is highest, with the one-sided "
                   "Fisher exact (hypergeometric) p-value of that over-representation and its Benjamini-Hochberg "
                   "q-value over all features of the table. These are descriptive statistics on the same data the "
                   "selection saw, not an independent test: a feature kept because it separates the classes here has "
                   "a small p-value here by construction.")


def _kept_section(results: Mapping, sel_summary: Mapping, selector: str) -> str:
    from selection.evaluation.html import esc, html_table

    kept = results.get("kept") or []
    head = (f"<h2>Selection on the whole table</h2><p><b>{sel_summary.get('n_selected')} of "
            f"{sel_summary.get('n_features')} features kept</b> by <code>{esc(selector)}</code>"
            + (f" (the {min(len(kept), 50)} most relevant below; all in <code>selection.csv</code>)." if kept else ".")
            + "</p>")
    note = (f'<p class="note">{esc(ENRICHMENT_NOTE)}</p>' if any("enrichment" in r for r in kept) else "")
    return head + note + html_table(kept[:50])


def _averaging(proto, params: Mapping) -> str:
    """The protocol's averaging of GM, AUROC and AUCPR over more than two classes (``macro`` unless it says)."""
    try:
        return proto.defaults(params.get("protocol_options") or {}).get("multiclass_average") or "macro"
    except Exception:  # noqa: BLE001 - a protocol without declared options
        return "macro"


def run_html(records: Mapping[str, Record], runinfo: Mapping[str, Mapping], params: Mapping,
             results: Mapping, table=None) -> str:
    """The run's ``report.html`` (see the module).

    Parameters
    ----------
    records : mapping
        Stage name -> :class:`~kg.store.Record` (``table``, ``select``, ``evaluate``, ...).
    runinfo : mapping
        Stage name -> ``reused``, ``seconds``.
    params : mapping
        The run's parameters (``run.json``).
    results : mapping
        ``headline``, ``kept``, ``warnings`` (:func:`selection.evaluation.headline.run_results`), ``answer``
        (the sentences the page opens with).
    table : FeatureTable, optional
        The ``table`` record's table (read from it when not given).

    Returns
    -------
    str
    """
    import pandas as pd

    from kg.table import FeatureTable
    from selection.evaluation.html import (
        answer_section,
        esc,
        html_table,
        measures_section,
        page,
        plots_section,
        stats_section,
        summary_section,
    )
    from selection.evaluation.protocols import get_protocol
    from selection.evaluation.significance import stats_blocks
    from selection.evaluation.tables import metric_names

    name, _tags = run_labels(params)
    tab, sel, ev = records.get("table"), records.get("select"), records.get("evaluate")
    ts = tab.summary if tab else {}
    sections = [answer_section(results.get("answer") or ())]
    sections += [f"<p>{ts.get('n_instances')} instances × {ts.get('n_features')} features, {ts.get('n_edges')} "
                f"hierarchy edges; classes {esc(ts.get('classes'))}. {esc(cache_outcome(runinfo).capitalize())}.</p>"]
    sections += [f'<div class="warning"><b>Degenerate selection:</b> {esc(w)}.</div>' for w in results["warnings"]]
    proto = get_protocol(params.get("protocol") or "basic")
    if ev:
        note = ev.summary.get("note")
        if note:
            sections.append(f'<div class="note">{esc(note)}</div>')
        summary = pd.read_csv(ev.path("summary")) if "summary" in ev.files else None
        res = pd.read_csv(ev.path("evaluation")) if "evaluation" in ev.files else pd.DataFrame()
        base = pd.read_csv(ev.path("baseline")) if "baseline" in ev.files else None
        intro = (f"<p>Stratified {ev.summary.get('folds') or params.get('n_splits')}-fold cross-validation, the "
                 "selection fitted on each fold's training part; mean ± sd over the folds. The majority-class "
                 "baseline predicts the training part's most frequent class with no feature: a method is only worth "
                 "what it scores above it.</p>")
        sections.append(summary_section(summary, title="Cross-validation", intro=intro))
        if len(res):
            names = metric_names([len(ts["classes"])] if isinstance(ts.get("classes"), Mapping) else [],
                                 _averaging(proto, params))
            sections.append(measures_section(res, proto.metrics, base, names=names))
            sections.append(stats_section(stats_blocks(res, proto.rank_metrics, default_control=proto.control,
                                                       baseline=base,
                                                       alternative=proto.options.get("alternative", "two-sided")),
                                          names=names))
        sections.append(plots_section([ev.path(r) for r in sorted(ev.files) if r.startswith("plot:")]))
    if sel:  # the answer, then the results, then the features
        sections.append(_kept_section(results, sel.summary, params.get("selector", "")))
    if tab and sel and "selection" in sel.files:
        table = FeatureTable.load(tab.path("table")) if table is None else table
        sections.append(_hierarchy_section(table, pd.read_csv(sel.path("selection"), dtype={"enriched_in": str})))
    stages = [{"stage": k, "from the store": "yes" if runinfo.get(k, {}).get("reused") else "no",
               "seconds": runinfo.get(k, {}).get("seconds"), "result": stage_note(k, r.summary),
               "folder (immutable)": str(Path(r.dir))} for k, r in records.items() if r]
    sections += ["<h2>Stages</h2>", html_table(stages), "<h2>Parameters</h2>",
                 html_table([{"parameter": k, "value": str(v)} for k, v in params.items() if k != "source"])]
    return page(f"kgfs run: {name}", sections)
