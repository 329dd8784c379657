"""The end of a run: its records published into the output folder, and what a person reads first.

:func:`finish` is shared by the ``kgfs-run`` flow (:mod:`flows.pipeline`) and the run from the
store alone (:func:`flows.runner.run_from_store`), so both leave the same :class:`RunResult`.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from flows.publishing.answer import answer_sentences, read_answer, with_answer
from flows.publishing.html import run_html
from flows.publishing.publish import publish
from flows.stages import RunPlan
from kg.store import Record
from kg.table import FeatureTable

__all__ = ["NOTE_LISTS", "RunResult", "finish", "note_files"]


@dataclass
class RunResult:
    """What a run leaves: its stage records, per stage whether it was reused, the published outputs.

    Attributes
    ----------
    records : dict
        Stage -> :class:`~kg.store.Record`.
    runinfo : dict
        Stage -> ``{"reused": bool, "seconds": float}``.
    outputs : dict
        Output name -> path in the output folder.
    params : dict
        The run's parameters (``run.json``).
    results : dict
        ``headline`` rows, ``kept`` features and ``warnings`` (:func:`selection.evaluation.headline.run_results`),
        and ``answer``: per dataset the sentence every report opens with (:mod:`flows.publishing.answer`).
    flow_run : str, optional
        The Prefect flow run's id (``None``: published from the store, without Prefect).
    """

    records: dict[str, Record]
    runinfo: dict[str, dict]
    outputs: dict[str, str]
    params: dict
    results: dict
    flow_run: str | None = field(default=None)

    @property
    def reused(self) -> list[str]:
        """The stages taken from the store."""
        return [k for k, i in self.runinfo.items() if i.get("reused")]


#: The long lists of a table's meta written in full under ``notes/`` of the output folder (the console names a few).
NOTE_LISTS = ("removed_cycle_edges", "entities_without_features", "instances_without_entities", "unannotated_genes",
              "unlabelled_genes", "unknown_terms", "unknown_features", "obsolete_dropped", "replaced_terms",
              "skipped_invalid_iris", "not_conflict_instances", "merged_cycles")


def note_files(meta: Mapping) -> dict[str, str]:
    r"""``notes/<key>.csv`` for each long list a table's meta reports (cycle edges removed, unlinked entities, ...).

    Examples
    --------
    >>> note_files({"removed_cycle_edges": [["a", "b"]], "unknown_terms": ["GO:1"], "violations": 3})
    {'notes/removed_cycle_edges.csv': 'child,parent\na,b\n', 'notes/unknown_terms.csv': 'unknown_terms\nGO:1\n'}
    >>> note_files({"merged_cycles": {"a ≡ b": ["a", "b"]}})["notes/merged_cycles.csv"]
    'feature,member\na ≡ b,a\na ≡ b,b\n'
    """
    out = {}
    for key in NOTE_LISTS:
        v = meta.get(key)
        if not v or not isinstance(v, (list, tuple, dict)):
            continue
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        if key == "merged_cycles" and isinstance(v, dict):  # each cycle merged into one feature: its members
            w.writerow(["feature", "member"])
            w.writerows([k, m] for k, ms in v.items() for m in ms)
            out[f"notes/{key}.csv"] = buf.getvalue()
            continue
        items = list(v.items()) if isinstance(v, dict) else list(v)
        pairs = all(isinstance(x, (list, tuple)) and len(x) == 2 for x in items)
        w.writerow(["child", "parent"] if key == "removed_cycle_edges" else ["item", "value"] if pairs else [key])
        for x in items:
            w.writerow(list(x) if pairs else [x])
        out[f"notes/{key}.csv"] = buf.getvalue()
    return out


def finish(plan: RunPlan, records: Mapping[str, Record], runinfo: Mapping[str, dict], out: str | Path) -> RunResult:
    """Publish a run's records into ``out`` with its ``report.html`` and notes, and read its headline results."""
    from selection.evaluation.headline import run_results

    params = plan.options.params(plan.input)
    ev, sel, tab = records.get("evaluate"), records.get("select"), records.get("table")
    table = FeatureTable.load(tab.path("table")) if tab is not None else None
    results = run_results(summary=ev.path("summary") if ev and "summary" in ev.files else None,
                          selection=sel.path("selection") if sel and "selection" in sel.files else None,
                          n_instances=tab.summary.get("n_instances") if tab else None,
                          hierarchy=None if table is None else table.hierarchy)
    # the answer (per dataset: the best method against the baseline) opens report.md, report.html, the artifact
    verdicts = read_answer(ev.path("answer")) if ev and "answer" in ev.files else []
    results["answer"] = answer_sentences(verdicts)
    extra = {"report.html": run_html(records, runinfo, params, results, table)}
    if ev and "answer" in ev.files:
        data = json.loads(ev.path("answer").read_text(encoding="utf-8"))
        extra["answer.json"] = json.dumps({**data, "sentences": results["answer"]}, indent=1) + "\n"
    if ev and "report" in ev.files:
        extra["report.md"] = with_answer(ev.path("report").read_text(encoding="utf-8"), results["answer"])
    if table is not None:
        extra.update(note_files({"removed_cycle_edges": [list(e) for e in table.hierarchy.removed_edges],
                                 **{k: v for k, v in table.meta.items() if v}}))
    outputs = {k: str(v) for k, v in publish(records, out, params, runinfo, extra).items()}
    return RunResult(dict(records), dict(runinfo), outputs, params, results)
