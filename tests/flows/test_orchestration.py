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
def test_report_markdown_lists_parameters_stages_and_plots(tmp_path):
    from kg.runs.publish import run_markdown as report_markdown

    records = {"table": {"dir": "/s/table/k"}, "evaluate": {"dir": "/s/evaluate/k",
                                                            "files": {"plot:bars.png": "grid/bars.png"}}}
    runinfo = {"table": {"reused": True, "seconds": 0.01}, "evaluate": {"reused": False, "seconds": 2.5}}
    params = {"dataset": "bundled/DM-BP", "selector": "shsel-ig-prune", "n_splits": 10, "source": {"big": 1}}
    md = report_markdown(records, runinfo, params, {"plots/bars.png": "/o/plots/bars.png",
                                                    "run.json": "/o/run.json"})
    assert md.startswith("# kgfs run: bundled/DM-BP")
    assert "| selector | `shsel-ig-prune` |" in md and "| n_splits | `10` |" in md and "big" not in md
    assert "| table | True | 0.01 | `/s/table/k` |" in md and "| evaluate | False | 2.5 |" in md
    assert "## Plots\n\n- `/o/plots/bars.png`" in md and "- `/o/run.json`" in md
    # without published outputs, the plots are found in the evaluation record
    assert "`/s/evaluate/k/grid/bars.png`" in report_markdown(records, runinfo, params)


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
    assert {"selected-features", "evaluation-summary", "kgfs-run-report"} <= set(arts)
    sel = json.loads(arts["selected-features"].data) if isinstance(arts["selected-features"].data, str) \
        else arts["selected-features"].data
    expected = pd.read_csv(tmp_path / "out" / "selected_features.csv")
    assert len(sel) == len(expected) == r["records"]["select"]["summary"]["n_selected"]
    assert {"feature", "score", "support"} <= set(sel[0]) and sel[0]["feature"] == expected["feature"][0]
    summ = arts["evaluation-summary"].data
    summ = json.loads(summ) if isinstance(summ, str) else summ
    assert summ[0]["selector"] == "shsel-ig-prune[threshold=0.8]" and summ[0]["folds"] == 3
    md = arts["kgfs-run-report"].data
    assert "| selector_params | `{'threshold': 0.8}` |" in md and "## Plots" in md and ".png" in md


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
