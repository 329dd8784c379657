"""Relations through the `kgfs` command line, on real Wikidata (CoDEx): the registered people dataset with its
label's property excluded, several kinds in one table and its selection grouped by kind, the leak refused, the
relation options named when they do not apply, and two tables of one dataset evaluated side by side."""

from __future__ import annotations

import pandas as pd
import pytest

from flows.cli import main
from kg.formats.folder import read_table_folder
from kg.rdf.relations import kind_of
from tests.kg.rdf.conftest import cli_error

WDT = "http://www.wikidata.org/prop/direct/"


@pytest.mark.slow  # builds the 7,291 x 6,215 table
def test_the_codex_people_dataset_in_several_kinds_then_selected_by_kind(shared_data, home, tmp_path, capsys):
    mirror = ["--mirror", str(shared_data)]
    assert main(["build", "--dataset", "wikidata/codex-people", *mirror, "--out", str(tmp_path / "B")]) == 0
    t = read_table_folder(tmp_path / "B")
    # the registry's n_instances and n_features (6,261 when the P279 cycles were broken: each merged cycle is one
    # feature now, in the types and in each relation's copy of the class graph)
    assert t.shape == (7291, 6215)
    assert t.meta["merged_cycles"] and t.meta["removed_cycle_edges"] == []
    assert {kind_of(f) for f in t.feature_names} == {"types", "relations", "qualified-relations"}
    assert t.meta["relations"]["exclude"] == [WDT + "P27"] and not any(WDT + "P27" in f for f in t.feature_names)
    assert sorted(set(t.y)) == ["France", "Germany", "United Kingdom", "United States"]
    from kg.datasets import load_dataset  # the registry's loader (the dump streamed) builds the same table
    from tests.kg.conftest import assert_same_table

    assert_same_table(t, load_dataset("wikidata/codex-people", mirror=shared_data))
    capsys.readouterr()
    assert main(["select", "--table", str(tmp_path / "B"), "--selector", "shsel-ig-prune",
                 "--out", str(tmp_path / "S")]) == 0
    sel = pd.read_csv(tmp_path / "S" / "selection.csv")
    assert set(sel["kind"]) == {"types", "relations", "qualified-relations"}
    assert sel["selected"].sum() > 0


def test_the_label_property_may_not_be_a_feature(shared_data, home, tmp_path, capsys):
    line = cli_error(capsys, ["build", "--dataset", "wikidata/codex-people", "--mirror", str(shared_data),
                           "--features", "relations", "--exclude-properties", "P106", "--out", str(tmp_path / "T")])
    assert "--label-property P27" in line and "add --exclude-properties P27" in line


def test_relation_options_without_relations_are_named(codex, home, tmp_path, capsys):
    corpus = tmp_path / "c.csv"
    corpus.write_text("id,qid,label\n1,Q42,a\n2,Q76,b\n")
    base = ["build", "--corpus", str(corpus), "--entity-columns", "qid", "--preset", "wikidata", "--dump", str(codex),
            "--out", str(tmp_path / "T")]
    assert cli_error(capsys, [*base, "--direction", "in"]).endswith(
        "--direction needs --features relations or qualified-relations")
    assert "not a predicate IRI" in cli_error(capsys, [*base, "--features", "relations", "--exclude-properties", "x y"])


def test_a_corpus_gets_relations_from_the_dump_index(codex, home, tmp_path, capsys):
    corpus = tmp_path / "people.csv"
    corpus.write_text("id,qid,label\n1,Q42,writer\n2,Q76,politician\n3,Q9999999999,nothing\n")
    argv = ["build", "--corpus", str(corpus), "--entity-columns", "qid", "--preset", "wikidata", "--dump", str(codex),
            "--features", "types", "qualified-relations", "--direction", "both", "--out", str(tmp_path / "T")]
    assert main(argv) == 0
    t = read_table_folder(tmp_path / "T")
    rows = {i: {t.feature_names[j] for j in t.X[k].indices} for k, i in enumerate(t.instance_ids)}
    assert "type:http://www.wikidata.org/entity/Q5" in rows["1"] and rows["3"] == set()
    assert f"out:{WDT}P27" in rows["2"] and any(f.startswith(f"out:{WDT}P27|") for f in rows["2"])
    home_files = sorted(p.relative_to(home) for p in home.rglob("*") if p.is_file())
    capsys.readouterr()
    assert main(argv) == 0  # the same run again: every stage from the store, nothing new in the home
    assert sorted(p.relative_to(home) for p in home.rglob("*") if p.is_file()) == home_files


@pytest.mark.slow  # builds two tables of 7,291 people
def test_two_tables_of_one_dataset_are_evaluated_side_by_side(shared_data, home, tmp_path, capsys):
    mirror = ["--mirror", str(shared_data)]
    for kinds in (["types"], ["qualified-relations"]):
        assert main(["build", "--dataset", "wikidata/codex-people", *mirror, "--features", *kinds, "--min-support",
                     "20", "--out", str(tmp_path / kinds[0])]) == 0
    assert main(["evaluate", "--datasets", str(tmp_path / "types"), str(tmp_path / "qualified-relations"),
                 "--selectors", "complete", "--classifiers", "nb", "--n-splits", "3", "--n-jobs", "1", "--no-plots",
                 "--out", str(tmp_path / "E")]) == 0
    summary = pd.read_csv(tmp_path / "E" / "summary.csv")
    # each table named by its folder, then its dataset (issue 38): two builds of one dataset told apart
    assert set(summary["dataset"]) == {"types (wikidata/codex-people)", "qualified-relations (wikidata/codex-people)"}
    acc = summary[summary["selector"] == "complete"].set_index("dataset")["accuracy"]
    assert acc["qualified-relations (wikidata/codex-people)"] > acc["types (wikidata/codex-people)"] + 0.05


def test_ingest_with_relations_then_a_relations_run_reads_no_file_again(codex, home, tmp_path, capsys):
    assert main(["ingest", "--preset", "wikidata", "--relations", "--dump", str(codex)]) == 0
    segments = sorted((home / "rdf-cache" / "index" / "segments").iterdir())
    assert len(segments) == 1  # one segment, with the relation tables
    assert (segments[0] / "relations_out.keys.npy").is_file()
    corpus = tmp_path / "p.csv"
    corpus.write_text("id,qid,label\n1,Q42,writer\n2,Q76,politician\n")
    for kinds in (["relations"], ["types"]):  # a types-only run uses the relation segment too
        assert main(["build", "--corpus", str(corpus), "--entity-columns", "qid", "--preset", "wikidata", "--dump",
                     str(codex), "--features", *kinds, "--out", str(tmp_path / kinds[0])]) == 0
    assert sorted((home / "rdf-cache" / "index" / "segments").iterdir()) == segments
    bad = tmp_path / "norel.toml"
    bad.write_text('instance_of = ["rdf:type"]\ntype_namespaces = ["http://x/"]\n')
    assert "--relations: vocabulary 'norel' names no relation predicates" in cli_error(
        capsys, ["ingest", "--preset", str(bad), "--relations", "--dump", str(codex)])
