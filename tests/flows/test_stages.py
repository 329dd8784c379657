"""The stage store behind `kgfs run` (no Prefect server): keys, reuse, recompute, resume, publish."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from flows import stages
from kg.datasets import dataset_info
from kg.formats import read_arff, read_csv, read_edges_csv
from flows.inputs import build_go_table, resolve_source
from flows.publishing.publish import publish
from kg.store.store import content_sha256
from kg.table import FeatureTable


@pytest.fixture(scope="module")
def source():
    return resolve_source()


def test_default_source_is_the_bundled_go_dataset(source):
    assert source["kind"] == "go" and source["name"] == "bundled/DM-BP"
    files = dataset_info("bundled/DM-BP").files
    assert source["ontology"]["sha256"] == files["ontology"].sha256
    assert source["annotations"]["sha256"] == files["annotations"].sha256
    json.dumps(source)  # a Prefect parameter: JSON-serialisable


def _pipeline(source, home, **kw):
    recs = {"facts": stages.stage_load_facts(source, home=home, **kw)}
    recs["table"] = stages.stage_build_table(source, recs["facts"], home=home, **kw)
    recs["select"] = stages.stage_select(recs["table"], "shsel-ig-prune", {}, home=home, **kw)
    recs["evaluate"] = stages.stage_evaluate(recs["table"], ["shsel-ig-prune", "complete"], ["nb"],
                                             dataset=source["name"], home=home, **kw)
    recs["export"] = stages.stage_export(recs["table"], home=home, **kw)
    return recs


def test_stages_reuse_recompute_and_publish(source, tmp_path):
    home = tmp_path / "home"
    first = _pipeline(source, home)
    assert not any(r["reused"] for r in first.values())
    assert all(stages.record_valid(r) for r in first.values())
    json.dumps(first)  # records are small and JSON-serialisable

    second = _pipeline(source, home)
    assert all(r["reused"] for r in second.values())
    assert {k: r["hash"] for k, r in second.items()} == {k: r["hash"] for k, r in first.items()}

    # forcing recomputes, and identical content gives identical hashes (npz hashed by content)
    forced = _pipeline(source, home, force=True)
    assert not any(r["reused"] for r in forced.values())
    assert {k: r["hash"] for k, r in forced.items()} == {k: r["hash"] for k, r in first.items()}

    # a different selector parameter changes only the select key
    other = stages.stage_select(first["table"], "shsel-ig-prune", {"threshold": 0.9}, home=home)
    assert other["key"] != first["select"]["key"] and not other["reused"]

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
    assert len(sel) == first["select"]["summary"]["n_selected"] and (sel["score"] >= 0).all()
    run = json.loads((out / "run.json").read_text())
    assert run["stages"]["table"]["hash"] == first["table"]["hash"]

    # clearing the store invalidates the records; the next run recomputes
    assert stages.stage_store(home).clear() == len(list(first)) + 1
    assert not any(stages.record_valid(r) for r in first.values())
    assert stages.stage_store(home).records() == []


def test_unfinished_stage_is_recomputed(source, tmp_path):
    home = tmp_path / "home"
    facts = stages.stage_load_facts(source, home=home)
    (Path(facts["dir"]) / "record.json").unlink()  # as if killed before the record was written
    again = stages.stage_load_facts(source, home=home)
    assert not again["reused"] and again["hash"] == facts["hash"]


def test_interrupted_evaluation_resumes_from_finished_cells(source, tmp_path):
    home = tmp_path / "home"
    facts = stages.stage_load_facts(source, home=home)
    table = stages.stage_build_table(source, facts, home=home)

    class Killed(Exception):
        pass

    def die_midway(done, total):
        if 0 < done < total:
            raise Killed

    with pytest.raises(Killed):
        stages.stage_evaluate(table, ["shsel-ig-prune", "complete"], ["nb"], dataset="d", home=home,
                              progress=die_midway)
    rec = stages.stage_evaluate(table, ["shsel-ig-prune", "complete"], ["nb"], dataset="d", home=home)
    assert not rec["reused"]
    assert rec["summary"]["n_reused"] > 0 and rec["summary"]["n_computed"] < 20
    assert len(pd.read_csv(Path(rec["dir"]) / rec["files"]["evaluation"])) == 20


def test_npz_content_hash_is_stable(tmp_path, source):
    table = build_go_table(source)
    table.save(tmp_path / "a.npz")
    import time

    time.sleep(1.1)  # zip members carry a 2-second-resolution timestamp
    table.save(tmp_path / "b.npz")
    assert content_sha256(tmp_path / "a.npz") == content_sha256(tmp_path / "b.npz")
    assert FeatureTable.load(tmp_path / "a.npz").shape == table.shape


def test_code_version_names_the_code():
    v = stages.code_version("select", stages.selector_modules(["shsel-ig-prune"]))
    assert v.startswith("kgfs-") and "-select-" in v
    assert v == stages.code_version("select", stages.selector_modules(["shsel-ig-prune"]))
    assert v != stages.code_version("select", stages.selector_modules(["complete"]))


def test_task_bodies_run_without_a_server(source, tmp_path):
    from flows import pipeline

    home = str(tmp_path / "home")
    facts = pipeline.load_facts_task.fn(source, home=home)
    table = pipeline.build_table_task.fn(source, facts, home=home)
    assert table["summary"]["n_features"] == 699
    exp = pipeline.export_task.fn(table, sparse_arff=True, home=home)
    assert stages.record_valid(exp)


def test_stage_table_equals_the_registry_table_row_for_row(source, tmp_path):
    """The facts stage keeps the genes' order, so `kgfs run` and `load_dataset` give the same
    table (and the same cross-validation folds), not the same rows in another order."""
    from kg.datasets import load_dataset

    facts = stages.stage_load_facts(source, home=tmp_path / "home")
    table = stages.read_table(stages.stage_build_table(source, facts, home=tmp_path / "home"))
    ref = load_dataset("bundled/DM-BP")
    assert table.instance_ids.tolist() == ref.instance_ids.tolist()
    assert table.feature_names.tolist() == ref.feature_names.tolist()
    assert (table.X != ref.X).nnz == 0 and table.y.tolist() == ref.y.tolist()


def test_verified_record_detects_changed_content(source, tmp_path):
    rec = stages.stage_load_facts(source, home=tmp_path / "home")
    assert stages.record_valid(rec, verify=True)
    (Path(rec["dir"]) / rec["files"]["facts"]).write_text("{}")
    assert stages.record_valid(rec) and not stages.record_valid(rec, verify=True)


def test_importing_flows_changes_nothing(tmp_path):
    """No flows module configures Prefect, imports it (or scikit-learn) or creates folders when imported."""
    import subprocess
    import sys

    code = ("import os, sys; before = dict(os.environ)\n"
            "import flows, flows.cli, flows.pipeline, flows.settings, flows.stages, flows.watch.serve\n"
            "assert dict(os.environ) == before, set(os.environ.items()) ^ set(before.items())\n"
            "assert not {'prefect', 'sklearn'} & set(sys.modules), 'prefect or sklearn imported'\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "KGFS_HOME"))}
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert list(tmp_path.iterdir()) == []  # no ./.kgfs


def test_cli_select_writes_what_the_select_stage_writes(source, tmp_path, monkeypatch):
    from flows.cli import main

    monkeypatch.setenv("KGFS_HOME", str(tmp_path / "home"))
    table = stages.stage_build_table(source, stages.stage_load_facts(source, home=tmp_path / "home"),
                                     home=tmp_path / "home")
    rec = stages.stage_select(table, "shsel-ig-prune", {"threshold": 0.9}, home=tmp_path / "home")
    # a table stage folder is a table folder (table.npz + summary.json), as `kgfs build` writes
    assert main(["select", "--table", table["dir"], "--param", "threshold=0.9", "--out", str(tmp_path / "S")]) == 0
    for role, name in rec["files"].items():
        assert (Path(rec["dir"]) / name).read_bytes() == (tmp_path / "S" / name).read_bytes(), role
    assert FeatureTable.load(tmp_path / "S" / "table.npz").n_features == rec["summary"]["n_selected"]


def test_cli_build_writes_what_the_table_stage_writes(source, tmp_path, monkeypatch):
    from flows.cli import main

    monkeypatch.setenv("KGFS_HOME", str(tmp_path / "home"))
    table = stages.stage_build_table(source, stages.stage_load_facts(source, home=tmp_path / "home"),
                                     home=tmp_path / "home")
    assert main(["build", "--out", str(tmp_path / "T")]) == 0  # the default dataset, as `kgfs run`'s
    assert content_sha256(tmp_path / "T" / "table.npz") == content_sha256(Path(table["dir"]) / "table.npz")
    assert (tmp_path / "T" / "summary.json").read_text() == (Path(table["dir"]) / "summary.json").read_text()


# --------------------------------------------------------------------------- a run from the store alone
def _flow_stages(source, home):
    """The stages `kgfs run` computes by default (so their keys are those `run_from_store` looks up)."""
    recs = {"facts": stages.stage_load_facts(source, home=home)}
    recs["table"] = stages.stage_build_table(source, recs["facts"], home=home)
    recs["select"] = stages.stage_select(recs["table"], "shsel-ig-prune", {}, home=home)
    recs["evaluate"] = stages.stage_evaluate(recs["table"], ["shsel-ig-prune", "complete"], ["nb"],
                                             dataset=source["name"], home=home)
    recs["export"] = stages.stage_export(recs["table"], recs["select"], home=home)
    return recs


_FROM_STORE = """
import json, sys
from flows import pipeline
from flows.inputs import resolve_source
r = pipeline.run_from_store(resolve_source(), out=sys.argv[2], home=sys.argv[1], selector="shsel-ig-prune",
                            eval_selectors=["shsel-ig-prune", "complete"], classifiers=["nb"])
print(json.dumps({"runinfo": r and r["runinfo"], "results": r and r["results"],
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
    recs = _flow_stages(source, home)
    r = _from_store(home, out)
    assert r["imported"] == [] and r["runinfo"] and all(i["reused"] for i in r["runinfo"].values())
    assert list(r["runinfo"]) == ["facts", "table", "select", "evaluate", "export"]
    n_kept = recs["select"]["summary"]["n_selected"]
    assert (out / "table.arff").is_file() and len(pd.read_csv(out / "selected_features.csv")) == n_kept
    assert json.loads((out / "run.json").read_text())["stages"]["select"]["hash"] == recs["select"]["hash"]
    assert [h["selector"] for h in r["results"]["headline"]] == ["shsel-ig-prune", "complete"]


def test_a_missing_or_corrupt_stage_means_no_stored_run_and_nothing_computed(source, tmp_path):
    home, out = tmp_path / "home", tmp_path / "out"
    recs = _flow_stages(source, home)
    stages.stage_store(home).clear("select")
    assert _from_store(home, out)["runinfo"] is None and not out.exists()
    assert not list((home / "store" / "select").glob("*/record.json"))  # looked up, not computed
    recs["select"] = stages.stage_select(recs["table"], "shsel-ig-prune", {}, home=home)
    assert _from_store(home, out)["runinfo"] is not None
    os.truncate(Path(recs["table"]["dir"]) / "table.npz", 1000)  # a file that no longer verifies
    assert _from_store(home, tmp_path / "out2")["runinfo"] is None
