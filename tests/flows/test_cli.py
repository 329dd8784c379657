"""The `kgfs` command line: help of every command, the one-step commands, one-line errors.

None of these start a Prefect server (only `kgfs run` does; see test_pipeline.py).
"""

from __future__ import annotations

import gzip
import json
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


def test_dbpedia_route_errors_are_one_line(tmp_path, shared_data, capsys):
    corpus = shared_data / "tweets" / "sport_tweets_10_with_dbpedia_uris.tsv"
    line = _error(capsys, ["build", "--corpus", str(corpus), "--kg", "dump", "--out", str(tmp_path / "T")])
    assert f"{corpus}:1: column(s) ['text'] not found" in line
    line = _error(capsys, ["build", "--corpus", str(corpus), "--text-column", "tweet", "--kg", "dump",
                           "--out", str(tmp_path / "T")])
    assert "--dump" in line
    line = _error(capsys, ["build", "--corpus", str(tmp_path / "missing.csv"), "--out", str(tmp_path / "T")])
    assert "missing.csv" in line
