"""The `kgfs` command line: help of every command, the one-step commands, one-line errors.

None of these start a Prefect server (only `kgfs run` does; see test_pipeline.py).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from flows.cli import build_parser, main
from kg.formats import read_arff, read_edges_csv
from kg.table import FeatureTable

COMMANDS = [
    ["run"], ["datasets"], ["datasets", "list"], ["datasets", "fetch"], ["build"], ["select"], ["evaluate"],
    ["export"], ["serve"], ["cache"], ["cache", "ls"], ["cache", "clear"],
]


def test_top_level_help_lists_every_command(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for cmd in ("run", "datasets", "build", "select", "evaluate", "export", "serve", "cache"):
        assert f"    {cmd}" in out


@pytest.mark.parametrize("cmd", COMMANDS, ids=" ".join)
def test_every_command_has_help(cmd, capsys):
    assert main([*cmd, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: kgfs " + " ".join(cmd))


def test_usage_error_exit_code(capsys):
    assert main(["build"]) == 2  # --out is required
    assert "--out" in capsys.readouterr().err
    assert main(["frobnicate"]) == 2
    # one line naming the option and where the options are listed (not the whole usage block)
    for argv, text in ((["run", "--n-jobs", "0"], "argument --n-jobs: must be a whole number >= 1 or -1 (all cores)"),
                       (["run", "--batch-size", "0"], "argument --batch-size: must be a whole number >= 1"),
                       (["evaluate", "--datasets", "x", "--selectors", "complete", "--seed", "-1", "--out", "E"],
                        "argument --seed: must be a whole number >= 0, got '-1'"),
                       (["build", "--category-depth", "-1", "--out", "T"], "argument --category-depth: must be a "
                                                                           "whole number >= 0, got '-1'"),
                       (["build", "--timeout", "0", "--out", "T"], "argument --timeout: must be a number > 0"),
                       (["build", "--min-support", "0", "--out", "T"], "argument --min-support: must be a whole "
                                                                       "number >= 1, got '0'"),
                       (["run", "--n-splits", "abc"], "argument --n-splits: invalid int value: 'abc'")):
        capsys.readouterr()
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and text in err and f"(`kgfs {argv[0]} --help` lists the options)" in err, err


def test_debug_before_or_after_the_command():
    p = build_parser()
    assert p.parse_args(["--debug", "cache", "ls"]).debug is True
    assert p.parse_args(["cache", "ls", "--debug"]).debug is True


# --------------------------------------------------------------------------- one-step commands
def _go_args(bundled: Path) -> list[str]:
    return ["--obo", str(bundled / "go-2014-06-13-subset.obo.gz"), "--annotations", str(bundled / "annotations.tsv"),
            "--labels", str(bundled / "labels.tsv")]


def test_build_select_export_go_route(tmp_path, bundled, home, capsys):
    T, S = tmp_path / "T", tmp_path / "S"
    assert main(["build", *_go_args(bundled), "--out", str(T)]) == 0
    t = FeatureTable.load(T / "table.npz")
    assert t.shape == (127, 699)
    summary = json.loads((T / "summary.json").read_text())
    assert summary["n_instances"] == 127 and summary["n_features"] == 699
    assert summary["classes"] == {"anti-longevity": 36, "pro-longevity": 91}

    assert main(["select", "--table", str(T), "--selector", "shsel-ig-prune", "--out", str(S)]) == 0
    sel = pd.read_csv(S / "selected_features.csv")
    allf = pd.read_csv(S / "selection.csv")
    assert len(allf) == 699 and 0 < len(sel) < 699
    assert set(sel["feature"]) == set(allf.loc[allf["selected"], "feature"])
    assert (sel["name"].str.len() > 0).all()  # GO term names are reported
    reduced = FeatureTable.load(S / "table.npz")
    assert reduced.feature_names.tolist() == sorted(reduced.feature_names.tolist(),
                                                    key=t.feature_names.tolist().index)
    assert set(reduced.feature_names) == set(sel["feature"])

    for fmt, extra, name in [("arff", ["--sparse"], "t.arff"), ("arff", [], "d.arff"), ("csv", [], "t.csv"),
                             ("edges", [], "e.csv")]:
        assert main(["export", "--table", str(T), "--format", fmt, *extra, "--out", str(tmp_path / name)]) == 0
    back = read_arff(tmp_path / "t.arff")
    assert (back.X != t.X).nnz == 0 and back.feature_names.tolist() == t.feature_names.tolist()
    assert "{" in (tmp_path / "t.arff").read_text().split("@data")[1][:10]
    assert read_edges_csv(tmp_path / "e.csv") == t.hierarchy
    csv_head = (tmp_path / "t.csv").read_text().split("\n", 1)[0].split(",")
    assert csv_head[0] == "instance_id" and csv_head[-1] == "label" and len(csv_head) == 701


def test_build_registry_dataset_and_evaluate(tmp_path, shared_data, home, monkeypatch, capsys):
    monkeypatch.setenv("KGFS_DATA_MIRROR", str(shared_data))
    T = tmp_path / "T"
    assert main(["build", "--dataset", "rpv/CE-BP", "--out", str(T)]) == 0
    out = capsys.readouterr()
    assert "rpv/CE-BP: 657 instances x 991 features" in out.out
    assert main(["select", "--table", str(T), "--selector", "shsel-ig-prune", "--out", str(tmp_path / "S")]) == 0
    E = tmp_path / "E"
    assert main(["evaluate", "--datasets", "aire/DM-BP", "rpv/DM-BP", "--selectors", "shsel-ig-prune", "complete",
                 "--classifiers", "nb", "--n-jobs", "1", "--no-plots", "--out", str(E)]) == 0
    res = pd.read_csv(E / "results.csv")
    assert len(res) == 2 * 2 * 10 and (res["status"] == "ok").all()
    assert set(res["dataset"]) == {"aire/DM-BP", "rpv/DM-BP"}
    assert f"report:  {E / 'report.md'}" in capsys.readouterr().out


def test_datasets_list_and_fetch(capsys):
    assert main(["datasets", "list", "--json"]) == 0
    names = [d["name"] for d in json.loads(capsys.readouterr().out)]
    assert "bundled/DM-BP" in names and "aire/DM-BP" in names
    # a file with no download of its own says what it is made from (the no-copy message points here)
    assert main(["datasets", "list", "wikidata/codex-people", "--json"]) == 0
    [codex] = json.loads(capsys.readouterr().out)
    assert codex["derived"]["dump"]["recipe"] == "kg.rdf.datasets:codex_truthy"
    assert set(codex["derived"]["dump"]["from"]) == set(codex["derived_from"]) and len(codex["derived_from"]) == 7
    assert all(f["url"].startswith("https://raw.githubusercontent.com/") and len(f["sha256"]) == 64
               for f in codex["derived_from"].values())
    assert main(["datasets", "list", "rpv/*-BP"]) == 0
    assert "rpv/CE-BP" in capsys.readouterr().out
    assert main(["datasets", "fetch", "bundled/DM-BP"]) == 0
    assert "annotations=" in capsys.readouterr().out


# --------------------------------------------------------------------------- errors: one line, exit 1
def _error(capsys, argv) -> str:
    rc = main(argv)
    err = capsys.readouterr().err.strip()
    assert rc == 1, err
    lines = [ln for ln in err.splitlines() if ln.startswith("kgfs: error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_error_missing_table(capsys, tmp_path):
    line = _error(capsys, ["select", "--table", str(tmp_path / "nope"), "--out", str(tmp_path / "S")])
    assert f"{tmp_path / 'nope'}: no such table" in line


def test_error_malformed_obo_names_file_and_line(capsys, tmp_path, bundled):
    bad = tmp_path / "bad.obo"
    bad.write_text("format-version: 1.2\n\n[Term]\nid: GO:0000001\nthis line is broken\n")
    line = _error(capsys, ["build", "--obo", str(bad), "--annotations", str(bundled / "annotations.tsv"),
                           "--out", str(tmp_path / "T")])
    assert f"{bad}:5:" in line
    assert not (tmp_path / "T" / "table.npz").exists()


def test_error_unknown_term(capsys, tmp_path, bundled):
    ann = tmp_path / "genes.tsv"
    ann.write_text("g1\tGO:0008150\ng2\tGO:9999999\n")
    line = _error(capsys, ["build", "--obo", str(bundled / "go-2014-06-13-subset.obo.gz"), "--annotations", str(ann),
                           "--out", str(tmp_path / "T")])
    assert "GO:9999999" in line


def test_error_missing_label_column(capsys, tmp_path, bundled):
    labels = tmp_path / "labels.tsv"
    labels.write_text("gene\tlabel\n7\n")
    line = _error(capsys, ["build", *_go_args(bundled)[:4], "--labels", str(labels), "--out", str(tmp_path / "T")])
    assert f"{labels}:2:" in line and "label" in line


def test_error_unknown_dataset_and_selector(capsys, tmp_path, bundled):
    line = _error(capsys, ["build", "--dataset", "rpv/XX-BP", "--out", str(tmp_path / "T")])
    assert "rpv/XX-BP" in line
    assert main(["build", *_go_args(bundled), "--out", str(tmp_path / "T")]) == 0
    capsys.readouterr()
    line = _error(capsys, ["select", "--table", str(tmp_path / "T"), "--selector", "magic", "--out",
                           str(tmp_path / "S")])
    assert "unknown selector 'magic'" in line


def test_error_checksum_mismatch(capsys, tmp_path, monkeypatch, shared_data):
    # a mirror whose copy of a file differs from the registry's sha256
    mirror = tmp_path / "mirror"
    f = mirror / "ageing" / "aire" / "DM-BP.txt"
    f.parent.mkdir(parents=True)
    f.write_text("is_a,1,\nclass,1,\n")
    monkeypatch.setenv("KGFS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("KGFS_OFFLINE", "1")
    line = _error(capsys, ["build", "--dataset", "aire/DM-BP", "--mirror", str(mirror), "--out", str(tmp_path / "T")])
    assert "DM-BP.txt" in line and "sha256" in line.lower()


def test_error_non_binary_arff_in_subprocess(tmp_path):
    """The installed entry point prints one line and no traceback (a real process, real stderr)."""
    table = tmp_path / "T"
    table.mkdir()
    (table / "table.npz").write_bytes(b"not an npz file")
    proc = subprocess.run([sys.executable, "-m", "flows.cli", "export", "--table", str(table), "--out",
                           str(tmp_path / "t.arff")], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 1
    assert proc.stderr.strip().count("\n") == 0 and "Traceback" not in proc.stderr
    assert "table.npz" in proc.stderr and "not a kgfs table file" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "flows.cli", "--debug", "export", "--table", str(table), "--out",
                           str(tmp_path / "t.arff")], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode != 0 and "Traceback" in proc.stderr


def test_gzip_annotations_work(tmp_path, bundled, home):
    gz = tmp_path / "genes.tsv.gz"
    gz.write_bytes(gzip.compress((bundled / "annotations.tsv").read_bytes()))
    assert main(["build", "--obo", str(bundled / "go-2014-06-13-subset.obo.gz"), "--annotations", str(gz),
                 "--labels", str(bundled / "labels.tsv"), "--out", str(tmp_path / "T")]) == 0
    assert np.asarray(FeatureTable.load(tmp_path / "T" / "table.npz").shape).tolist() == [127, 699]


# --------------------------------------------------------------------------- DBpedia route
@pytest.fixture(scope="module")
def dbpedia_dump(tmp_path_factory, shared_data):
    """The kg tests' offline dump: the real DBpedia ontology + instance triples of the 10 tweets."""
    import shutil

    from tests.kg.conftest import instance_triples

    d = tmp_path_factory.mktemp("dump")
    shutil.copy(shared_data / "dbpedia" / "dbpedia_3.9.owl", d / "ontology.owl")
    (d / "instances.nt").write_text("\n".join(instance_triples()) + "\n", encoding="utf-8")
    return d


def test_build_dbpedia_route_from_linked_corpus(tmp_path, shared_data, dbpedia_dump, home, capsys):
    corpus = shared_data / "tweets" / "sport_tweets_10_with_dbpedia_uris.tsv"
    T = tmp_path / "T"
    assert main(["build", "--corpus", str(corpus), "--text-column", "tweet", "--entity-columns", "Dbpedia_URI_1",
                 "Dbpedia_URI_2", "Dbpedia_URI_3", "--dump", str(dbpedia_dump), "--out", str(T)]) == 0
    t = FeatureTable.load(T / "table.npz")
    assert t.n_instances == 10
    assert "http://dbpedia.org/ontology/Cricketer" in set(t.feature_names)
    assert "http://dbpedia.org/ontology/Person" in set(t.feature_names)
    # the export keeps the IRIs as feature names
    assert main(["export", "--table", str(T), "--format", "csv", "--out", str(tmp_path / "t.csv")]) == 0
    assert "http://dbpedia.org/ontology/Cricketer" in (tmp_path / "t.csv").read_text().split("\n", 1)[0]


def test_build_names_the_instances_without_entities_or_features(tmp_path, dbpedia_dump, home, capsys):
    corpus = tmp_path / "c.csv"
    corpus.write_text("id,text,entity,label\n" "t1,a,http://dbpedia.org/resource/Chris_Gayle,1\n"
                      "t2,b,,0\n" "t3,c,http://dbpedia.org/resource/Barack_Obama,0\n" "t4,d,,1\n")
    assert main(["build", "--corpus", str(corpus), "--entity-columns", "entity", "--dump", str(dbpedia_dump),
                 "--out", str(tmp_path / "T")]) == 0
    err = capsys.readouterr().err
    assert "kgfs: note: c: 2 instance(s) linked to no entity" in err
    assert "kgfs: note: c: 2 instance(s) without any feature (empty rows): t2, t4" in err


def test_build_names_the_instances_linked_to_no_entity(tmp_path, dbpedia_dump, home, capsys):
    corpus = tmp_path / "c.csv"
    corpus.write_text("id,text,entity,label\n" "t1,a,http://dbpedia.org/resource/Chris_Gayle,1\n"
                      "t2,b,,0\n" "t3,c,http://dbpedia.org/resource/Barack_Obama,0\n")
    assert main(["build", "--corpus", str(corpus), "--entity-columns", "entity", "--dump", str(dbpedia_dump),
                 "--out", str(tmp_path / "T")]) == 0
    assert "kgfs: note: c: 1 instance(s) linked to no entity: t2" in capsys.readouterr().err


def test_dbpedia_route_errors_are_one_line(tmp_path, shared_data, capsys):
    corpus = shared_data / "tweets" / "sport_tweets_10_with_dbpedia_uris.tsv"
    line = _error(capsys, ["build", "--corpus", str(corpus), "--kg", "dump", "--out", str(tmp_path / "T")])
    assert f"{corpus}:1: column(s) ['text'] not found" in line
    line = _error(capsys, ["build", "--corpus", str(corpus), "--text-column", "tweet", "--kg", "dump",
                           "--out", str(tmp_path / "T")])
    assert "--dump" in line
    line = _error(capsys, ["build", "--corpus", str(tmp_path / "missing.csv"), "--out", str(tmp_path / "T")])
    assert "missing.csv" in line


# --------------------------------------------------------------------------- issue 16: discoverable, checked, honest
def test_help_lists_every_registered_method(capsys):
    from selection.evaluation.protocols import available_protocols
    from selection.registry import available_classifiers, available_selectors

    assert main(["select", "--help"]) == 0
    out = capsys.readouterr().out
    for name, entry in available_selectors().items():
        assert f"  {name} " in out and entry.description.split()[0] in out, name
    for cmd in (["evaluate"], ["run"]):
        assert main([*cmd, "--help"]) == 0
        out = capsys.readouterr().out
        for name in [*available_selectors(), *available_classifiers(), *available_protocols()]:
            assert f"  {name} " in out, (cmd, name)
        assert "hifsrr2017" in out and "--param" in out


def test_methods_shows_parameters_defaults_paper_and_protocols(capsys):
    assert main(["methods", "shsel-ig-prune"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("shsel-ig-prune: selector (eager): pruneSHSEL IG")
    assert "paper: Ristoski & Paulheim" in out and "shsel2014 (the paper's experiment)" in out
    threshold = next(ln for ln in out.splitlines() if ln.strip().startswith("threshold "))
    assert "0.99" in threshold and "Similarity" in threshold
    assert main(["methods", "fisher"]) == 0
    fisher = capsys.readouterr().out
    assert "k " in fisher and "int >= 1" in fisher and "50" in fisher
    assert "hifsrr2017 (the paper's experiment)" in fisher
    assert main(["methods", "rpv2020"]) == 0
    proto = capsys.readouterr().out
    assert "options (--option KEY=VALUE)" in proto and "multiclass_average" in proto and "'weighted'" in proto
    assert main(["methods"]) == 0
    listing = capsys.readouterr().out
    assert "selectors (" in listing and "classifiers (" in listing and "hifsrr2017" in listing
    assert main(["methods", "lazy-1nn"]) == 0
    assert "n_neighbors" not in capsys.readouterr().out  # fixed by the registration: not the user's to set
    line = _error(capsys, ["methods", "shsel"])
    assert "unknown method 'shsel'; known:" in line and "shsel-ig-prune" in line


@pytest.fixture
def table(tmp_path, bundled, home, capsys) -> Path:
    T = tmp_path / "T"
    assert main(["build", *_go_args(bundled), "--out", str(T)]) == 0
    capsys.readouterr()
    return T


def test_select_checks_parameters_before_reading_the_table(table, tmp_path, capsys):
    assert main(["select", "--table", str(table), "--selector", "fisher", "--param", "k=7", "--out",
                 str(tmp_path / "S")]) == 0
    assert len(pd.read_csv(tmp_path / "S" / "selected_features.csv")) == 7
    # the parameter is wrong: the (missing) table is never read
    line = _error(capsys, ["select", "--table", str(tmp_path / "nope"), "--selector", "fisher", "--param", "k=abc",
                           "--out", str(tmp_path / "S2")])
    assert "k=abc is not valid: must be int >= 1; parameters: binarize" in line


def test_select_lazy_selector_writes_the_selection_per_instance(table, tmp_path, capsys):
    S = tmp_path / "S"
    assert main(["select", "--table", str(table), "--selector", "hip", "--out", str(S)]) == 0
    out = capsys.readouterr().out
    assert "hip (lazy):" in out and "per instance" in out
    t = FeatureTable.load(table / "table.npz")
    pairs = pd.read_csv(S / "instance_features.csv", dtype={"instance_id": str})
    counts = pd.read_csv(S / "instance_counts.csv", dtype={"instance_id": str})
    assert counts["instance_id"].tolist() == t.instance_ids.tolist()
    assert (pairs.groupby("instance_id").size().reindex(counts["instance_id"], fill_value=0).to_numpy()
            == counts["n_selected"].to_numpy()).all()
    # HIP keeps positive and negative values; each pair's value is the table's cell
    assert set(pairs["value"]) == {0, 1}
    X, col = t.X.tocsr(), {f: j for j, f in enumerate(t.feature_names)}
    row = {i: k for k, i in enumerate(t.instance_ids)}
    sample = pairs.sample(50, random_state=0)
    assert all(X[row[i], col[f]] == v for i, f, v in sample.itertuples(index=False))
    per_feature = pd.read_csv(S / "selection.csv")
    assert per_feature["n_instances_selected"].sum() == len(pairs)


def test_build_own_table_from_arff_or_csv_with_hierarchy(table, tmp_path, capsys):
    t = FeatureTable.load(table / "table.npz")
    for fmt in ("arff", "csv", "edges"):
        assert main(["export", "--table", str(table), "--format", fmt, "--out", str(tmp_path / f"t.{fmt}")]) == 0
    for fmt in ("arff", "csv"):
        own = tmp_path / f"own_{fmt}"
        assert main(["build", f"--{fmt}", str(tmp_path / f"t.{fmt}"), "--hierarchy", str(tmp_path / "t.edges"),
                     "--out", str(own)]) == 0
        back = FeatureTable.load(own / "table.npz")
        assert back.feature_names.tolist() == t.feature_names.tolist()
        assert back.hierarchy == t.hierarchy and (back.X != t.X).nnz == 0
        assert [str(v) for v in back.y] == [str(v) for v in t.y]
    # without a hierarchy: a flat table; and a cell violating the hierarchy is closed upward (--check repair)
    (tmp_path / "v.csv").write_text("id,Athlete,Person,label\na,1,0,1\nb,0,1,0\n")
    (tmp_path / "h.csv").write_text("child,parent\nAthlete,Person\n")
    assert main(["build", "--csv", str(tmp_path / "v.csv"), "--out", str(tmp_path / "flat")]) == 0
    assert FeatureTable.load(tmp_path / "flat" / "table.npz").hierarchy.n_edges == 0
    capsys.readouterr()
    assert main(["build", "--csv", str(tmp_path / "v.csv"), "--hierarchy", str(tmp_path / "h.csv"),
                 "--out", str(tmp_path / "rep")]) == 0
    assert "1 cell(s) violated the hierarchy and were closed upward" in capsys.readouterr().err
    line = _error(capsys, ["build", "--csv", str(tmp_path / "v.csv"), "--hierarchy", str(tmp_path / "h.csv"),
                           "--check", "raise", "--out", str(tmp_path / "raise")])
    assert "v.csv: 1 cell(s) violate the implication" in line and "(--check repair closes them upward)" in line


def test_build_names_the_genes_without_annotations(tmp_path, bundled, home, capsys):
    labels = tmp_path / "labels.tsv"
    labels.write_text((bundled / "labels.tsv").read_text() + "99999\tpro-longevity\n88888\tanti-longevity\n")
    assert main(["build", *_go_args(bundled)[:4], "--labels", str(labels), "--out", str(tmp_path / "T")]) == 0
    err = capsys.readouterr().err
    assert "2 labelled gene(s) without a usable annotation, left out: 99999, 88888" in err


def test_evaluate_param_option_and_threshold(table, tmp_path, capsys):
    E = tmp_path / "E"
    assert main(["evaluate", "--datasets", str(table), "--selectors", "shsel-ig-prune", "sig", "complete",
                 "--param", "sig.k=5", "--param", "nb.alpha=0.5", "--threshold", "0.9", "--n-splits", "3",
                 "--n-jobs", "1", "--no-plots", "--out", str(E)]) == 0
    res = pd.read_csv(E / "results.csv")
    assert set(res["selector"]) == {"shsel-ig-prune", "sig[k=5]", "complete"}
    assert (res.loc[res["selector"] == "shsel-ig-prune", "threshold"] == 0.9).all()
    assert (res["status"] == "ok").all() and res["fold"].max() == 2
    # the protocol's declared option value is checked too (a threshold method's own range)
    line = _error(capsys, ["evaluate", "--datasets", str(table), "--selectors", "fisher", "--param", "k=-1",
                           "--out", str(tmp_path / "E2")])
    assert "selector fisher: k=-1 is not valid" in line


def test_evaluate_names_a_truncated_cell_file_and_computes_it_again(table, tmp_path, capsys):
    E = tmp_path / "E"
    argv = ["evaluate", "--datasets", str(table), "--selectors", "complete", "--n-splits", "2", "--n-jobs", "1",
            "--no-plots", "--out", str(E)]
    assert main(argv) == 0
    first = pd.read_csv(E / "results.csv")
    cell = min((E / "cells").glob("*.json"))
    cell.write_bytes(cell.read_bytes()[:40])  # cut short, as by a crash or a full disk
    capsys.readouterr()
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert f"evaluation cell {cell} is not valid JSON" in captured.err and "computing it again" in captured.err
    assert "1 computed, 1 reused" in captured.out
    again = pd.read_csv(E / "results.csv")
    scores = [c for c in first if not c.endswith("_seconds")]  # timings differ between runs
    pd.testing.assert_frame_equal(again[scores], first[scores])


# --------------------------------------------------------------------------- output outside a terminal
def _kgfs(*argv, **kw):
    return [sys.executable, "-m", "flows.cli", *argv]


def test_no_broken_pipe_error_when_the_reader_goes_away(tmp_path):
    """`kgfs methods | head -1`: the reader closes the pipe before kgfs writes; kgfs stops quietly."""
    env = {**os.environ, "KGFS_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen(_kgfs("methods"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            stdin=subprocess.DEVNULL)
    proc.stdout.close()  # before the interpreter has even started: the first write meets a closed pipe
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert "Broken pipe" not in err and "BrokenPipeError" not in err and "Traceback" not in err, err
    assert err == "" and proc.returncode == 141
    shell = subprocess.run(f"{sys.executable} -m flows.cli methods | head -1", shell=True, capture_output=True,
                           text=True, env=env, timeout=120)
    assert shell.stdout.startswith("selectors (") and shell.stderr == ""


def test_tables_do_not_wrap_when_piped(tmp_path):
    env = {**os.environ, "COLUMNS": "40", "KGFS_HOME": str(tmp_path / "home")}
    proc = subprocess.run(_kgfs("datasets", "list"), capture_output=True, text=True, env=env, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    from kg.datasets import list_datasets

    info = next(i for i in list_datasets() if len(i.description or "") > 60)
    row = next(ln for ln in proc.stdout.splitlines() if f" {info.name} " in ln)
    assert info.description[:60] in row  # the whole row on one line, however narrow COLUMNS is


def test_evaluate_progress_lines_arrive_while_it_runs(table, tmp_path):
    env = {**os.environ, "KGFS_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen(_kgfs("evaluate", "--datasets", str(table), "--selectors", "shsel-ig-prune", "complete",
                                  "--n-jobs", "1", "--no-plots", "--out", str(tmp_path / "E")),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            stdin=subprocess.DEVNULL)
    first = proc.stderr.readline()
    running = proc.poll() is None
    rest = proc.stderr.read()
    proc.wait(timeout=300)
    assert proc.returncode == 0, first + rest
    assert first.startswith("kgfs: evaluate: 0/20 cells") and running
    assert "kgfs: evaluate: 20/20 cells" in rest


@pytest.mark.integration
def test_run_with_too_few_texts_for_the_folds_still_writes_the_table(prefect_harness, tmp_path, dbpedia_dump,
                                                                     monkeypatch, capsys):
    """6 texts, 10 folds asked: the table and exports are written, the CV uses 2 folds and says so;
    one class of one text: the evaluation is skipped and says so. Then a user's own table through the flow."""
    monkeypatch.setenv("KGFS_HOME", str(tmp_path / "home"))
    rows = [("t1", "Chris_Gayle", 1), ("t2", "Novak_Djokovic", 1), ("t3", "Nathan_Lyon", 1), ("t4", "Murali_Vijay", 1),
            ("t5", "Barack_Obama", 0), ("t6", "River_Thames", 0)]
    corpus = tmp_path / "six.csv"
    corpus.write_text("id,text,entity,label\n" + "".join(
        f"{i},text {i},http://dbpedia.org/resource/{e},{y}\n" for i, e, y in rows))
    out = tmp_path / "out"
    argv = ["run", "--corpus", str(corpus), "--entity-columns", "entity", "--dump", str(dbpedia_dump),
            "--selectors", "complete", "--no-artifacts"]
    assert main([*argv, "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "class '0' has 2 member(s), fewer than 10 folds: 2-fold cross-validation instead" in captured.err
    assert "kgfs: table: done (6 x" in captured.err  # progress lines, not a live display (stderr is no terminal)
    assert FeatureTable.load(out / "table.npz").n_instances == 6 and (out / "table.arff").is_file()
    assert sorted(set(pd.read_csv(out / "evaluation.csv")["fold"])) == [0, 1]

    corpus.write_text("id,text,entity,label\n" + "".join(  # new ids too: a new table whatever the stage keys hold
        f"u{i},text {i},http://dbpedia.org/resource/{e},{int(i == 't6')}\n" for i, e, _y in rows))
    assert main([*argv, "--out", str(tmp_path / "out1")]) == 0
    err = capsys.readouterr().err
    assert "class '1' has 1 member(s): evaluation skipped" in err
    assert (tmp_path / "out1" / "table.arff").is_file() and pd.read_csv(tmp_path / "out1" / "evaluation.csv").empty

    assert main(["export", "--table", str(out), "--format", "csv", "--out", str(tmp_path / "t.csv")]) == 0
    assert main(["export", "--table", str(out), "--format", "edges", "--out", str(tmp_path / "e.csv")]) == 0
    assert main(["run", "--csv", str(tmp_path / "t.csv"), "--hierarchy", str(tmp_path / "e.csv"), "--n-splits", "2",
                 "--selectors", "complete", "--no-artifacts", "--out", str(tmp_path / "own")]) == 0
    own = FeatureTable.load(tmp_path / "own" / "table.npz")
    assert (own.X != FeatureTable.load(out / "table.npz").X).nnz == 0


# --------------------------------------------------------------------------- issue 27
def test_evaluate_prints_its_summary_with_the_baseline(tmp_path, home, capsys):
    E = tmp_path / "E"
    assert main(["evaluate", "--datasets", "bundled/DM-BP", "--selectors", "complete", "--classifiers", "nb",
                 "--n-splits", "3", "--n-jobs", "1", "--no-plots", "--out", str(E)]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0] + " " + line.split()[1]: line for line in out.splitlines() if line.startswith(" ")
            and len(line.split()) > 3}
    assert "complete nb" in rows and "majority class" in rows and rows["majority class"].rstrip().endswith("baseline")
    base = pd.read_csv(E / "baseline.csv")
    assert f"{base['accuracy'].mean():.3f}" in rows["majority class"]
    assert f"report.html: {E / 'report.html'}" in out and f"stats:   {E / 'stats.md'}" in out
    assert "done in " in out


def test_select_says_what_a_degenerate_selection_kept(tmp_path, bundled, home, capsys):
    T, S = tmp_path / "T", tmp_path / "S"
    assert main(["build", *_go_args(bundled), "--out", str(T)]) == 0
    capsys.readouterr()
    assert main(["select", "--table", str(T), "--param", "threshold=0.9", "--out", str(S)]) == 0
    out, err = capsys.readouterr()
    assert "  GO:0008150 biological_process (support 127, score 0.0) -- score 0: no information about the class" in out
    assert "kgfs: warning: degenerate selection: only roots of the hierarchy were kept" in err


def test_export_the_hierarchy_as_graphml_and_dot_with_names_and_selection(tmp_path, bundled, home, capsys):
    import networkx as nx

    T, S = tmp_path / "T", tmp_path / "S"
    assert main(["build", *_go_args(bundled), "--out", str(T)]) == 0
    assert main(["select", "--table", str(T), "--out", str(S)]) == 0
    kept = set(pd.read_csv(S / "selected_features.csv")["feature"])
    assert main(["export", "--table", str(T), "--format", "graphml", "--selection", str(S / "selection.csv"),
                 "--out", str(tmp_path / "h.graphml")]) == 0
    assert f"699 features, 1209 edges, 699 named, {len(kept)} selected) as graphml" in capsys.readouterr().out
    g = nx.read_graphml(tmp_path / "h.graphml")
    assert g.number_of_nodes() == 699 and g.number_of_edges() == 1209
    assert {n for n, d in g.nodes(data=True) if d["selected"]} == kept
    assert g.nodes["GO:0008150"]["name"] == "biological_process" and g.nodes["GO:0008150"]["support"] == 127
    # the class enrichment, as selection.csv has it (issue 38): 4 of the 36 anti-longevity genes, none of the 91 others
    node = g.nodes["GO:0007600"]
    assert (node["enriched_in"], node["support_anti-longevity"], node["support_pro-longevity"]) == ("anti-longevity",
                                                                                                  4, 0)
    row = pd.read_csv(S / "selection.csv").set_index("feature").loc["GO:0007600"]
    assert node["p_enrichment"] == row["p_enrichment"] and node["q_enrichment"] == row["q_enrichment"]
    assert main(["export", "--table", str(T), "--format", "dot", "--out", str(tmp_path / "h.dot")]) == 0
    dot = (tmp_path / "h.dot").read_text()
    assert dot.count(" -> ") == 1209 and dot.count('"support_anti-longevity"=') == 699  # without --selection too
    assert main(["export", "--table", str(T), "--format", "arff", "--selection", str(S / "selection.csv"),
                 "--out", str(tmp_path / "x.arff")]) == 1
    assert "--selection goes with --format graphml or dot" in capsys.readouterr().err


def test_build_names_dbpedia_features_and_announces_the_id_column(tmp_path, dbpedia_dump, home, capsys):
    corpus = tmp_path / "c.csv"
    corpus.write_text("tweet_id,text,entity,label\n" "11,a,http://dbpedia.org/resource/Chris_Gayle,1\n"
                      "12,c,http://dbpedia.org/resource/Barack_Obama,0\n")
    assert main(["build", "--corpus", str(corpus), "--entity-columns", "entity", "--dump", str(dbpedia_dump),
                 "--out", str(tmp_path / "T")]) == 0
    err = capsys.readouterr().err
    assert ("kgfs: note: c: c.csv has no 'id' column: its instances are numbered by row (1 to 2); it has "
            "'tweet_id': pass --id-column tweet_id to name them by it") in err
    t = FeatureTable.load(tmp_path / "T" / "table.npz")
    assert t.instance_ids.tolist() == ["1", "2"]
    names = t.meta["term_names"]  # the labels of the real DBpedia ontology, from the dump
    assert names["http://dbpedia.org/ontology/Cricketer"] == "cricketer"
    assert names["http://dbpedia.org/ontology/Person"] == "person"
