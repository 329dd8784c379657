"""The stages behind `kgfs run` (no Prefect server): the run's plan, keys, reuse, recompute, resume, publish."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from flows import stages
from flows.inputs import resolve_input
from flows.publishing.publish import publish
from flows.run_options import RunOptions
from kg.datasets import dataset_info
from kg.formats import read_arff, read_csv, read_edges_csv
from kg.routes import from_json
from kg.store import record_valid
from kg.store.records import content_sha256
from kg.table import FeatureTable

#: What `kgfs run` runs by default (so the keys are those `run_from_store` looks up).
DEFAULT = RunOptions(eval_selectors=("shsel-ig-prune", "complete"))


@pytest.fixture(scope="module")
def source():
    return resolve_input({})


def test_default_source_is_the_bundled_go_dataset(source):
    assert source.kind == "ontology" and source.name == "bundled/DM-BP"
    files = dataset_info("bundled/DM-BP").files
    assert source.ontology.sha256 == files["ontology"].sha256
    assert source.annotations.sha256 == files["annotations"].sha256
    assert from_json(json.loads(json.dumps(source.to_json()))) == source  # a Prefect parameter: JSON round trip


def _pipeline(source, home, options=DEFAULT, force=False):
    """Every stage of the run's plan, in order, in the home's store."""
    plan = stages.RunPlan(source, options, home)
    recs = {}
    for step in plan.steps:
        recs[step.name] = plan.run(step, plan.upstream(step, recs), force=force)
    return recs


def _stage(source, home, name, options=DEFAULT, force=False):
    """The record of one stage (and the stages it needs), as the pipeline computes it."""
    recs = _pipeline_until(source, home, name, options)
    plan = stages.RunPlan(source, options, home)
    step = next(s for s in plan.steps if s.name == name)
    return plan.run(step, plan.upstream(step, recs), force=force)


def _pipeline_until(source, home, name, options=DEFAULT):
    plan = stages.RunPlan(source, options, home)
    recs = {}
    for step in plan.steps:
        if step.name == name:
            return recs
        recs[step.name] = plan.run(step, plan.upstream(step, recs))
    raise KeyError(name)


def test_stages_reuse_recompute_and_publish(source, tmp_path):
    home = tmp_path / "home"
    first = _pipeline(source, home)
    assert not any(r.reused for r in first.values())
    assert all(record_valid(r) for r in first.values())
    json.dumps({k: r.to_json() for k, r in first.items()})  # records are small and JSON-serialisable

    second = _pipeline(source, home)
    assert all(r.reused for r in second.values())
    assert {k: r.hash for k, r in second.items()} == {k: r.hash for k, r in first.items()}

    # forcing recomputes, and identical content gives identical hashes (npz hashed by content)
    forced = _pipeline(source, home, force=True)
    assert not any(r.reused for r in forced.values())
    assert {k: r.hash for k, r in forced.items()} == {k: r.hash for k, r in first.items()}

    # a different selector parameter changes only the select key (and those downstream of it)
    other = _pipeline(source, home, RunOptions(selector_params={"threshold": 0.9},
                                              eval_selectors=("shsel-ig-prune", "complete")))
    assert other["select"].key != first["select"].key and not other["select"].reused
    assert other["table"].reused and other["table"].key == first["table"].key

    table = stages.read_table(first["table"])
    assert table.shape == (127, 699)
    out = tmp_path / "out"
    written = publish(first, out, {"selector": "shsel-ig-prune"})
    assert {"table.arff", "table.sparse.arff", "table.csv", "hierarchy.csv", "selected_features.csv",
            "evaluation.csv", "summary.csv", "table.npz", "run.json"} <= set(written)
    back = read_arff(out / "table.arff").to_table(read_edges_csv(out / "hierarchy.csv"))
    assert (back.X != table.X).nnz == 0 and back.hierarchy == table.hierarchy
    assert back.y.tolist() == table.y.tolist()
    ids, names, X, y = read_csv(out / "table.csv")
    assert ids.tolist() == table.instance_ids.tolist() and (X != table.X).nnz == 0
    ev = pd.read_csv(out / "evaluation.csv")
    assert len(ev) == 20 and set(ev["selector"]) == {"shsel-ig-prune", "complete"} and set(ev["fold"]) == set(range(10))
    assert (ev["status"] == "ok").all()
    sel = pd.read_csv(out / "selected_features.csv")
    assert len(sel) == first["select"].summary["n_selected"] and (sel["score"] >= 0).all()
    run = json.loads((out / "run.json").read_text())
    assert run["stages"]["table"]["hash"] == first["table"].hash

    # clearing the store invalidates the records; the next run recomputes
    n_folders = len(stages.stage_store(home).records())
    assert stages.stage_store(home).clear() == n_folders == len(first) + 3  # + the other run's select, evaluate, export
    assert not any(record_valid(r) for r in first.values())
    assert stages.stage_store(home).records() == []


def test_unfinished_stage_is_recomputed(source, tmp_path):
    home = tmp_path / "home"
    facts = _stage(source, home, "facts")
    (Path(facts.dir) / "record.json").unlink()  # as if killed before the record was written
    again = _stage(source, home, "facts")
    assert not again.reused and again.hash == facts.hash


def test_interrupted_evaluation_resumes_from_finished_cells(source, tmp_path):
    home = tmp_path / "home"
    recs = _pipeline_until(source, home, "evaluate")

    class Killed(Exception):
        pass

    def die_midway(done, total):
        if 0 < done < total:
            raise Killed

    plan = stages.RunPlan(source, DEFAULT, home)
    step = next(s for s in plan.steps if s.name == "evaluate")
    step.progress = die_midway
    with pytest.raises(Killed):
        plan.run(step, plan.upstream(step, recs))
    step.progress = None
    rec = plan.run(step, plan.upstream(step, recs))
    assert not rec.reused
    assert rec.summary["n_reused"] > 0 and rec.summary["n_computed"] < 20
    assert len(pd.read_csv(rec.path("evaluation"))) == 20


def test_npz_content_hash_is_stable(tmp_path, source):
    table = source.build()
    table.save(tmp_path / "a.npz")
    import time

    time.sleep(1.1)  # zip members carry a 2-second-resolution timestamp
    table.save(tmp_path / "b.npz")
    assert content_sha256(tmp_path / "a.npz") == content_sha256(tmp_path / "b.npz")
    assert FeatureTable.load(tmp_path / "a.npz").shape == table.shape


def test_code_version_names_the_code():
    from kg.store import code_version

    v = code_version("select", stages.selector_modules(["shsel-ig-prune"]))
    assert v.startswith("kgfs-") and "-select-" in v
    assert v == code_version("select", stages.selector_modules(["shsel-ig-prune"]))
    assert v != code_version("select", stages.selector_modules(["complete"]))


def test_task_bodies_run_without_a_server(source, tmp_path):
    from flows import pipeline

    plan, recs = stages.RunPlan(source, DEFAULT, tmp_path / "home"), {}
    for step in plan.steps[:2]:  # facts, table
        recs[step.name] = pipeline.run_stage.fn(plan, step, plan.upstream(step, recs))
    assert recs["table"].summary["n_features"] == 699
    select, export = plan.steps[2], plan.steps[4]
    recs["select"] = pipeline.run_stage.fn(plan, select, plan.upstream(select, recs))
    assert record_valid(pipeline.run_stage.fn(plan, export, plan.upstream(export, recs)))


def test_stage_table_equals_the_registry_table_row_for_row(source, tmp_path):
    """The facts stage keeps the genes' order, so `kgfs run` and `load_dataset` give the same
    table (and the same cross-validation folds), not the same rows in another order."""
    from kg.datasets import load_dataset

    table = stages.read_table(_stage(source, tmp_path / "home", "table"))
    ref = load_dataset("bundled/DM-BP")
    assert table.instance_ids.tolist() == ref.instance_ids.tolist()
    assert table.feature_names.tolist() == ref.feature_names.tolist()
    assert (table.X != ref.X).nnz == 0 and table.y.tolist() == ref.y.tolist()


def test_verified_record_detects_changed_content(source, tmp_path):
    rec = _stage(source, tmp_path / "home", "facts")
    assert record_valid(rec, verify=True)
    rec.path("facts").write_text("{}")
    assert record_valid(rec) and not record_valid(rec, verify=True)


#: Every module of flows/ but the two that define Prefect flows (they configure Prefect before importing it).
_PLAIN = ["flows", "flows.cli", "flows.cli.main", "flows.cli.commands", "flows.cli.catalog", "flows.cli.parser",
          "flows.publishing", "flows.server", "flows.watch",
          "flows.cli.console", "flows.cli.display", "flows.cli.options",
          "flows.inputs", "flows.predict", "flows.progress", "flows.publishing.answer", "flows.publishing.html",
          "flows.publishing.outcome",
          "flows.publishing.publish",
          "flows.publishing.report", "flows.run_options", "flows.runner", "flows.server.local",
          "flows.server.processes", "flows.server.environment", "flows.settings", "flows.stages", "flows.watch.api",
          "flows.watch.ledger", "flows.words"]


def test_importing_flows_changes_nothing(tmp_path):
    """No flows module but those that define Prefect flows configures Prefect, imports it (or scikit-learn) or
    creates folders when imported."""
    import subprocess
    import sys

    code = ("import importlib, os, sys; before = dict(os.environ)\n"
            f"for m in {_PLAIN!r}: importlib.import_module(m)\n"
            "assert dict(os.environ) == before, set(os.environ.items()) ^ set(before.items())\n"
            "assert not {'prefect', 'sklearn'} & set(sys.modules), 'prefect or sklearn imported'\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "KGFS_HOME"))}
    env["HOME"] = str(tmp_path)  # Prefect would create ~/.prefect
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert list(tmp_path.iterdir()) == []  # no ./.kgfs, no ~/.prefect


def test_every_flows_module_is_checked_for_side_effects():
    root = Path(__file__).resolve().parents[2] / "flows"
    modules = {".".join(p.relative_to(root.parent).with_suffix("").parts).removesuffix(".__init__")
               for p in root.rglob("*.py") if p.name != "__main__.py"}
    assert modules - set(_PLAIN) == {"flows.pipeline", "flows.watch.serve"}, modules - set(_PLAIN)


def test_prefect_modules_keep_prefect_in_the_kgfs_home(tmp_path):
    """Importing a module that defines Prefect flows configures the kgfs home's offline settings first: Prefect's
    state goes to <home>/prefect, never to ~/.prefect, and no telemetry is on."""
    import subprocess
    import sys

    code = ("import os; import flows.pipeline, flows.watch.serve\n"
            "from prefect.settings import get_current_settings as s\n"
            "print(s().home, os.environ['DO_NOT_TRACK'], s().server.analytics_enabled)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "KGFS_HOME"))}
    env["HOME"] = str(tmp_path / "user")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == [str(tmp_path / ".kgfs" / "prefect"), "1", "False"]
    assert not (tmp_path / "user" / ".prefect").exists()


def test_cli_select_writes_what_the_select_stage_writes(source, tmp_path, monkeypatch):
    from flows.cli import main

    monkeypatch.setenv("KGFS_HOME", str(tmp_path / "home"))
    options = RunOptions(selector_params={"threshold": 0.9})
    table = _stage(source, tmp_path / "home", "table", options)
    rec = _stage(source, tmp_path / "home", "select", options)
    # a table stage folder is a table folder (table.npz + summary.json), as `kgfs build` writes
    assert main(["select", "--table", table.dir, "--param", "threshold=0.9", "--out", str(tmp_path / "S")]) == 0
    for role, name in rec.files.items():
        assert rec.path(role).read_bytes() == (tmp_path / "S" / name).read_bytes(), role
    assert FeatureTable.load(tmp_path / "S" / "table.npz").n_features == rec.summary["n_selected"]


def test_cli_build_writes_what_the_table_stage_writes(source, tmp_path, monkeypatch):
    from flows.cli import main

    monkeypatch.setenv("KGFS_HOME", str(tmp_path / "other-home"))
    table = _stage(source, tmp_path / "home", "table")
    assert main(["build", "--out", str(tmp_path / "T")]) == 0  # the default dataset, as `kgfs run`'s
    assert content_sha256(tmp_path / "T" / "table.npz") == content_sha256(table.path("table"))
    assert (tmp_path / "T" / "summary.json").read_text() == table.path("summary").read_text()
    # `kgfs build` runs the route's steps in the home's store, as `kgfs run` does: the same table stage
    built = [r for r in stages.stage_store(tmp_path / "other-home").records() if r.stage == "table"]
    assert [r.key for r in built] == [table.key]


# --------------------------------------------------------------------------- a run from the store alone
_FROM_STORE = """
import json, sys
from flows import runner
from flows.inputs import resolve_input
from flows.run_options import RunOptions
r = runner.run_from_store(resolve_input({}), RunOptions(eval_selectors=("shsel-ig-prune", "complete")),
                          out=sys.argv[2], home=sys.argv[1])
print(json.dumps({"runinfo": r and r.runinfo, "results": r and r.results,
                  "imported": sorted(m for m in ("prefect", "matplotlib") if m in sys.modules)}))
"""


def _from_store(home, out) -> dict:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _FROM_STORE, str(home), str(out)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.splitlines()[-1])


def test_a_stored_run_is_published_without_prefect_or_matplotlib(source, tmp_path):
    home, out = tmp_path / "home", tmp_path / "out"
    recs = _pipeline(source, home)
    r = _from_store(home, out)
    assert r["imported"] == [] and r["runinfo"] and all(i["reused"] for i in r["runinfo"].values())
    assert list(r["runinfo"]) == ["facts", "table", "select", "evaluate", "export"]
    n_kept = recs["select"].summary["n_selected"]
    assert (out / "table.arff").is_file() and len(pd.read_csv(out / "selected_features.csv")) == n_kept
    assert json.loads((out / "run.json").read_text())["stages"]["select"]["hash"] == recs["select"].hash
    assert [h["selector"] for h in r["results"]["headline"]] == ["shsel-ig-prune", "complete", "majority class"]


def test_a_missing_or_corrupt_stage_means_no_stored_run_and_nothing_computed(source, tmp_path):
    home, out = tmp_path / "home", tmp_path / "out"
    recs = _pipeline(source, home)
    stages.stage_store(home).clear("select")
    assert _from_store(home, out)["runinfo"] is None and not out.exists()
    assert not (home / "store" / "select").exists()  # looked up, not computed (not even a folder made)
    recs["select"] = _stage(source, home, "select")
    assert _from_store(home, out)["runinfo"] is not None
    os.truncate(recs["table"].path("table"), 1000)  # a file that no longer verifies
    assert _from_store(home, tmp_path / "out2")["runinfo"] is None
