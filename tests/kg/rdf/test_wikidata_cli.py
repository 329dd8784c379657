"""The Wikidata preset through the `kgfs` command line: `kgfs ingest --preset wikidata` reports the P279 cycles in
one line (the full list in a file), `kgfs build` takes an entity column of QIDs, and what the preset cannot do, or a
bad preset file, is a one-line error naming the option."""

from __future__ import annotations

import re

from flows.cli import main
from kg.formats.folder import read_table_folder
from tests.kg.rdf.conftest import cli_error


def test_ingest_with_the_wikidata_preset_then_build_from_qids(codex, home, tmp_path, capsys):
    assert main(["ingest", "--preset", "wikidata", "--dump", str(codex)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("1 dump file(s), 329,625 lines (") and "of them parsed" in out[0]
    (cycles,) = [line for line in out if "cycle(s)" in line]
    m = re.fullmatch(r"codex_truthy\.nt\.gz: the subclass graph has 14 cycle\(s\) through 35 node\(s\), each merged "
                     r"into one feature in each table \(listed in (\S+subclass\.cycles\.tsv)\)", cycles)
    assert m and len(open(m.group(1)).read().splitlines()) == 14
    assert any(line.startswith("lexicon: ") for line in out)
    corpus = tmp_path / "people.csv"
    corpus.write_text("id,qid,label\n1,Q42,writer\n2,wd:Q5593,writer\n3,Q1299,band\n4,Q76,politician\n"
                      "5,Q9999999999,nothing\n")
    assert main(["build", "--corpus", str(corpus), "--entity-columns", "qid", "--preset", "wikidata", "--dump",
                 str(codex), "--out", str(tmp_path / "T")]) == 0
    err = capsys.readouterr().err
    table = read_table_folder(tmp_path / "T")
    rows = {i: set(table.feature_names[table.X[k].indices]) for k, i in enumerate(table.instance_ids)}
    human = "http://www.wikidata.org/entity/Q5"
    assert human in rows["1"] and human in rows["4"] and human not in rows["3"] and rows["5"] == set()
    assert "1 instance(s) without any feature" in err


def test_features_of_every_kind_are_named_by_the_dump_labels_of_their_parts(home, tmp_path, shared_data):
    assert main(["build", "--dataset", "wikidata/codex-people", "--features", "types", "qualified-relations",
                 "--out", str(tmp_path / "T")]) == 0
    names = read_table_folder(tmp_path / "T").meta["term_names"]
    wd, wdt = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
    assert names[f"type:{wd}Q5"] == "human"  # the type:-tagged id of a table of several kinds, by Q5's label
    assert names[f"out:{wdt}P106"] == "out: occupation"  # wdt:P106 by the label of wd:P106
    assert names[f"out:{wdt}P106|{wd}Q482980"] == "out: occupation | author"
    merged = [f for f in names if " ≡ … (" in f]  # a merged cycle: its first member's name, and how many
    assert merged and all(names[f].endswith(f[f.index(" ≡ … ("):]) and wdt not in names[f] for f in merged)


def test_what_the_preset_cannot_do_is_an_error_naming_the_option(codex, home, tmp_path, capsys):
    corpus = tmp_path / "c.csv"
    corpus.write_text("id,qid,label\n1,Q42,a\n")
    base = ["build", "--corpus", str(corpus), "--entity-columns", "qid", "--dump", str(codex), "--out",
            str(tmp_path / "T")]
    line = cli_error(capsys, [*base, "--preset", "wikidata", "--features", "categories"])
    assert "--features categories: the wikidata preset has no category predicates" in line
    bad = tmp_path / "mine.toml"
    bad.write_text("instance_of = [\"rdf:type\"]\nsubclas_of = []\n")
    line = cli_error(capsys, [*base, "--preset", str(bad)])
    assert f"{bad}: unknown key(s) subclas_of" in line and "(--preset)" in line
    line = cli_error(capsys, ["ingest", "--preset", str(bad), "--dump", str(codex)])
    assert f"{bad}: unknown key(s) subclas_of" in line
    line = cli_error(capsys, [*base, "--preset", "yago"])
    assert "unknown preset 'yago'" in line
    assert not (tmp_path / "T").exists()
