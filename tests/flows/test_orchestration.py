"""Orchestration details: artifacts a person sees, retries of external calls, the concurrency window."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass

import pandas as pd
import pytest

from flows.publishing.outcome import RunResult
from flows.run_options import RunOptions
from kg.routes.base import BatchedStep, Input
from kg.store import Record


# --------------------------------------------------------------------------- no server needed
def test_report_markdown_has_results_warnings_inline_plots_and_store_folders(tmp_path):
    import base64

    from flows.publishing.report import artifacts, run_markdown

    png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJ"
                           "RU5ErkJggg==")
    (tmp_path / "grid").mkdir()
    (tmp_path / "grid" / "bars.png").write_bytes(png)
    records = {"table": Record("table", "k", "/s/table/k", {}, "h",
                               summary={"n_instances": 127, "n_features": 699, "n_edges": 1209}),
               "select": Record("select", "k", "/s/select/k", {}, "h", summary={"n_selected": 3, "n_features": 699}),
               "evaluate": Record("evaluate", "k", str(tmp_path), {"plot:bars.png": "grid/bars.png",
                                                                   "summary": "s.csv"}, "h")}
    runinfo = {"table": {"reused": True, "seconds": 0.01}, "select": {"reused": False, "seconds": 0.2},
               "evaluate": {"reused": False, "seconds": 2.5}}
    params = {"dataset": "bundled/DM-BP", "selector": "shsel-ig-prune", "selector_params": {"threshold": 0.9},
              "n_splits": 10, "source": {"kind": "ontology", "big": 1}}
    headline = [{"selector": "shsel-ig-prune", "classifier": "nb", "accuracy": "0.712 ± 0.041"}]
    md = run_markdown(records, runinfo, params, {"run.json": "/o/run.json"}, headline=headline,
                      warnings=["only roots of the hierarchy were kept"])
    assert md.startswith("# kgfs run: bundled/DM-BP · shsel-ig-prune threshold=0.9\n")
    assert "127 instances × 699 features, 1209 hierarchy edges." in md and "**3 of 699 features kept**" in md
    assert "> **Warning:** only roots of the hierarchy were kept" in md
    assert "| shsel-ig-prune | nb | 0.712 ± 0.041 |" in md and "(10 folds, mean ± sd over the folds;" in md
    assert "| selector | `shsel-ig-prune` |" in md and "| n_splits | `10` |" in md and "big" not in md
    # every folder named is a stage folder of the store; the output folder is named as replaceable
    assert "| table | yes | 0.01 | 127 x 699 | `/s/table/k` |" in md and "| evaluate | no | 2.5 |" in md
    assert "Published to `/o`" in md and "/o/plots" not in md
    # the plots are inline images the Prefect UI shows, not local paths
    assert f"![bars](data:image/png;base64,{base64.b64encode(png).decode()})" in md
    kinds = {key: kind for kind, key, _data, _desc in artifacts(RunResult(
        records=records, runinfo=runinfo, outputs={}, params=params,
        results={"headline": headline, "kept": [{"feature": "GO:1"}], "warnings": []}))}
    assert kinds == {"selected-features-bundled-dm-bp": "table", "evaluation-summary-bundled-dm-bp": "table",
                     "kgfs-run-report-bundled-dm-bp": "markdown"}


def test_transient_errors_are_retried_bad_input_is_not():
    from prefect.states import Failed

    from flows.pipeline import _guarded, _transient, merge_batches, run_batch
    from kg.errors import InputFormatError
    from kg.rdf.annotators.spotlight import SpotlightError
    from kg.rdf.route import CorpusInput
    from kg.rdf.sources.sparql_protocol import SourceUnavailableError
    from kg.routes.base import BatchedStep, Context

    # the DBpedia route's batched steps (annotate, fetch) say which of their errors are transient
    steps = [s for s in CorpusInput("c", sparql_url="http://q/sparql").steps(Context()) if isinstance(s, BatchedStep)]
    assert [s.name for s in steps] == ["annotate", "fetch"]

    def failed(step, exc):
        """The state of a batch task of ``step`` that raised ``exc`` (marked when the step calls it transient)."""
        def boom():
            raise exc
        with pytest.raises(type(exc)):
            _guarded(step, boom)
        return Failed(data=exc)

    for step in steps:
        assert _transient(None, None, failed(step, SourceUnavailableError("http://x: unreachable after 4 retries")))
        assert _transient(None, None, failed(step, ConnectionRefusedError(111, "refused")))
        assert _transient(None, None, failed(step, TimeoutError()))
        assert _transient(None, None, failed(step, SpotlightError("Spotlight unavailable: HTTP 503 after 3 retries")))
        assert not _transient(None, None, failed(step, SpotlightError("HTTP 400 Bad Request: text too long")))
        assert not _transient(None, None, failed(step, InputFormatError("bad IRI", "c.csv", 3)))
        assert not _transient(None, None, failed(step, ValueError("x")))
    for t in (run_batch, merge_batches):
        assert t.retries == 3 and t.retry_condition_fn is _transient and "kgfs-external" in t.tags


# --------------------------------------------------------------------------- with the Prefect harness
@pytest.mark.integration
def test_run_publishes_table_and_markdown_artifacts(prefect_harness, tmp_path):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

    from flows.runner import run_pipeline

    r = run_pipeline(None, RunOptions(eval_selectors=("shsel-ig-prune",), n_splits=3,
                                      selector_params={"threshold": 0.8}),
                     out=tmp_path / "out", home=tmp_path / "home")
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs()
        run = max((fr for fr in runs if fr.name and fr.flow_id and fr.parameters.get("out") == str(tmp_path / "out")),
                  key=lambda fr: fr.created)
        arts = {a.key: a for a in client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[run.id])))}
    assert {"selected-features-bundled-dm-bp", "evaluation-summary-bundled-dm-bp",
            "kgfs-run-report-bundled-dm-bp"} <= set(arts)
    sel = arts["selected-features-bundled-dm-bp"].data
    sel = json.loads(sel) if isinstance(sel, str) else sel
    expected = pd.read_csv(tmp_path / "out" / "selected_features.csv")
    assert len(sel) == len(expected) == r.records["select"].summary["n_selected"]
    assert {"feature", "score", "support"} <= set(sel[0]) and sel[0]["feature"] == expected["feature"][0]
    summ = arts["evaluation-summary-bundled-dm-bp"].data
    summ = json.loads(summ) if isinstance(summ, str) else summ
    assert summ[0]["selector"] == "shsel-ig-prune[threshold=0.8]" and summ[0]["folds"] == "3"
    assert len(summ[0]) <= 7 and " ± " in summ[0]["accuracy"]  # the columns read first, rounded, with the spread
    md = arts["kgfs-run-report-bundled-dm-bp"].data
    assert "| selector_params | `{'threshold': 0.8}` |" in md and "## Plots" in md and "data:image/png;base64," in md
    # the run is named and tagged after its dataset, selector and route, and its cache outcome
    # threshold 0.8 keeps only the GO root (issue 27): the state message and a tag say so
    assert run.name == "bundled/DM-BP · shsel-ig-prune threshold=0.8" and run.state.message == (
        "no stage from the store; degenerate selection: only roots of the hierarchy were kept; every kept feature is "
        "constant over the instances")
    assert {"dataset:bundled/DM-BP", "selector:shsel-ig-prune", "route:ontology", "cache:none",
            "degenerate-selection"} <= set(run.tags)
    assert summ[-1]["selector"] == "majority class" and summ[0]["note"].startswith("DEGENERATE selection: only roots")
    assert r.flow_run == str(run.id)


class _ProbeBatches(BatchedStep):
    """Seven batches, each counted while its task runs (whether it is computed or taken from the store)."""

    name, batch_name = "probe", "probe-batch"

    def __init__(self, state: dict, lock: threading.Lock):
        self.state, self.lock = state, lock

    def batches(self, up):
        return [{"i": i} for i in range(7)]

    def batch_key(self, up, batch):  # called in the batch's task, before the store is looked up
        with self.lock:
            self.state["now"] += 1
            self.state["max"] = max(self.state["max"], self.state["now"])
        time.sleep(0.3)
        with self.lock:
            self.state["now"] -= 1
        return {"i": batch["i"]}

    def compute_batch(self, folder, up, batch):
        self.state["computed"] += 1
        (folder / "f.json").write_text(json.dumps(batch["i"]))
        return {"f": "f.json"}, {}

    def key(self, up):
        return {"batches": [b.hash for b in up["batches"]]}

    def compute(self, folder, up):
        (folder / "f.json").write_text(json.dumps([json.loads(b.path("f").read_text()) for b in up["batches"]]))
        return {"f": "f.json"}, {}


@dataclass(frozen=True)
class _ProbeInput(Input):
    kind = "probe-test"
    route = "probe"
    state: dict | None = None
    lock: object = None

    def steps(self, ctx):
        return [_ProbeBatches(self.state, self.lock)]


@pytest.mark.integration
def test_batches_run_at_most_limit_at_a_time(prefect_harness, tmp_path):
    """The window of `batches_flow` bounds the batches in flight, whatever the task runner allows."""
    from flows.pipeline import batches_flow
    from flows.stages import RunPlan

    lock = threading.Lock()
    state = {"now": 0, "max": 0, "computed": 0}
    home = str(tmp_path / "home")
    inp = _ProbeInput("probe", state=state, lock=lock)

    def window(limit: int):
        plan = RunPlan(inp, RunOptions(external_concurrency=limit), home)
        return batches_flow(plan, plan.steps[0], {})

    rec, _info = window(2)
    assert state["max"] == 2 and json.loads(rec.path("f").read_text()) == list(range(7))
    assert state["computed"] == 7
    state["max"] = 0
    rec, _info = window(5)  # cached records now: still bounded, and reused from the store
    assert state["max"] <= 5
    assert rec.reused and state["computed"] == 7
