"""Orchestration details: artifacts a person sees, retries of external calls, the concurrency window."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from flows import stages


# --------------------------------------------------------------------------- no server needed
def test_report_markdown_has_results_warnings_inline_plots_and_store_folders(tmp_path):
    import base64

    from flows.publishing.report import artifacts, run_markdown

    png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
    (tmp_path / "grid").mkdir()
    (tmp_path / "grid" / "bars.png").write_bytes(png)
    records = {"table": {"dir": "/s/table/k", "summary": {"n_instances": 127, "n_features": 699, "n_edges": 1209}},
               "select": {"dir": "/s/select/k", "summary": {"n_selected": 3, "n_features": 699}},
               "evaluate": {"dir": str(tmp_path), "files": {"plot:bars.png": "grid/bars.png", "summary": "s.csv"}}}
    runinfo = {"table": {"reused": True, "seconds": 0.01}, "select": {"reused": False, "seconds": 0.2},
               "evaluate": {"reused": False, "seconds": 2.5}}
    params = {"dataset": "bundled/DM-BP", "selector": "shsel-ig-prune", "selector_params": {"threshold": 0.9},
              "n_splits": 10, "source": {"kind": "go", "big": 1}}
    headline = [{"selector": "shsel-ig-prune", "classifier": "nb", "accuracy": "0.712 ± 0.041"}]
    md = run_markdown(records, runinfo, params, {"run.json": "/o/run.json"}, headline=headline,
                      warnings=["only roots of the hierarchy were kept"])
    assert md.startswith("# kgfs run: bundled/DM-BP · shsel-ig-prune threshold=0.9\n")
    assert "127 instances × 699 features, 1209 hierarchy edges." in md and "**3 of 699 features kept**" in md
    assert "> **Warning:** only roots of the hierarchy were kept" in md
    assert "| shsel-ig-prune | nb | 0.712 ± 0.041 |" in md and "(10 folds, mean ± sd over the folds)" in md
    assert "| selector | `shsel-ig-prune` |" in md and "| n_splits | `10` |" in md and "big" not in md
    # every folder named is a stage folder of the store; the output folder is named as replaceable
    assert "| table | yes | 0.01 | 127 x 699 | `/s/table/k` |" in md and "| evaluate | no | 2.5 |" in md
    assert "Published to `/o`" in md and "/o/plots" not in md
    # the plots are inline images the Prefect UI shows, not local paths
    assert f"![bars](data:image/png;base64,{base64.b64encode(png).decode()})" in md
    kinds = {key: kind for kind, key, _data, _desc in artifacts({
        "records": records, "runinfo": runinfo, "outputs": {}, "params": params,
        "results": {"headline": headline, "kept": [{"feature": "GO:1"}], "warnings": []}})}
    assert kinds == {"selected-features-bundled-dm-bp": "table", "evaluation-summary-bundled-dm-bp": "table",
                     "kgfs-run-report-bundled-dm-bp": "markdown"}


def test_transient_errors_are_retried_bad_input_is_not():
    from prefect.states import Failed

    from flows.pipeline import _transient, annotate_batch_task, fetch_batch_task, fetch_task
    from kg.errors import InputFormatError
    from kg.dbpedia.sparql import SourceUnavailableError
    from kg.dbpedia.spotlight import SpotlightError

    def failed(exc):
        return Failed(data=exc)

    assert _transient(None, None, failed(SourceUnavailableError("http://x: unreachable after 4 retries")))
    assert _transient(None, None, failed(ConnectionRefusedError(111, "refused")))
    assert _transient(None, None, failed(TimeoutError()))
    assert _transient(None, None, failed(SpotlightError("Spotlight unavailable: HTTP 503 after 3 retries")))
    assert not _transient(None, None, failed(SpotlightError("HTTP 400 Bad Request: text too long")))
    assert not _transient(None, None, failed(InputFormatError("bad IRI", "c.csv", 3)))
    assert not _transient(None, None, failed(ValueError("x")))
    for t in (annotate_batch_task, fetch_batch_task, fetch_task):
        assert t.retries == 3 and t.retry_condition_fn is _transient and "kgfs-external" in t.tags


# --------------------------------------------------------------------------- with the Prefect harness
@pytest.mark.integration
def test_run_publishes_table_and_markdown_artifacts(prefect_harness, tmp_path):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

    from flows import pipeline

    r = pipeline.run_pipeline(out=tmp_path / "out", home=tmp_path / "home", eval_selectors=["shsel-ig-prune"],
                              n_splits=3, selector_params={"threshold": 0.8})
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs()
        run = max((fr for fr in runs if fr.name and fr.flow_id and fr.parameters.get("out") == str(tmp_path / "out")),
                  key=lambda fr: fr.created)
        arts = {a.key: a for a in client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[run.id])))}
    assert {"selected-features-bundled-dm-bp", "evaluation-summary-bundled-dm-bp",
            "kgfs-run-report-bundled-dm-bp"} <= set(arts)
    sel = json.loads(arts["selected-features-bundled-dm-bp"].data) \
        if isinstance(arts["selected-features-bundled-dm-bp"].data, str) else arts["selected-features-bundled-dm-bp"].data
    expected = pd.read_csv(tmp_path / "out" / "selected_features.csv")
    assert len(sel) == len(expected) == r["records"]["select"]["summary"]["n_selected"]
    assert {"feature", "score", "support"} <= set(sel[0]) and sel[0]["feature"] == expected["feature"][0]
    summ = arts["evaluation-summary-bundled-dm-bp"].data
    summ = json.loads(summ) if isinstance(summ, str) else summ
    assert summ[0]["selector"] == "shsel-ig-prune[threshold=0.8]" and summ[0]["folds"] == "3"
    assert len(summ[0]) <= 7 and " ± " in summ[0]["accuracy"]  # the columns read first, rounded, with the spread
    md = arts["kgfs-run-report-bundled-dm-bp"].data
    assert "| selector_params | `{'threshold': 0.8}` |" in md and "## Plots" in md and "data:image/png;base64," in md
    # the run is named and tagged after its dataset, selector and route, and its cache outcome
    assert run.name == "bundled/DM-BP · shsel-ig-prune threshold=0.8" and run.state.message == "no stage from the store"
    assert {"dataset:bundled/DM-BP", "selector:shsel-ig-prune", "route:go", "cache:none"} <= set(run.tags)
    assert r["flow_run"] == str(run.id)


@pytest.mark.integration
def test_batches_run_at_most_limit_at_a_time(prefect_harness, tmp_path):
    """The window of `_map_batches` bounds the batches in flight, whatever the task runner allows."""
    from prefect import flow, task

    from flows.pipeline import _map_batches

    lock = threading.Lock()
    state = {"now": 0, "max": 0}
    home = str(tmp_path / "home")

    @task(name="probe-batch")
    def probe(i: int, home: str, force: bool = False) -> dict:
        with lock:
            state["now"] += 1
            state["max"] = max(state["max"], state["now"])
        time.sleep(0.3)
        with lock:
            state["now"] -= 1
        return stages.stage_store(home).run("probe", {"i": i}, lambda d: ({"f": "f.json"}, (d / "f.json").write_text(
            json.dumps(i)) and {}))

    @flow(name="probe-window")
    def window(limit: int) -> list:
        return _map_batches("probe", probe, home, False, [{"i": i} for i in range(7)], limit)

    recs = window(2)
    assert state["max"] == 2 and [json.loads((Path(r["dir"]) / "f.json").read_text()) for r in recs] == list(range(7))
    state["max"] = 0
    window.with_options()(5)  # cached records now: still bounded, and reused from the store
    assert state["max"] <= 5
