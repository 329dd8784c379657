"""IndexSource made with a plain vocabulary (issue 38, point 6): relation questions read the relation-indexing twin's
segments of its dump index, built on demand (the same bytes a ``with_relations()`` source builds, once under the
index's lock when processes ask at once, said in one info message); types and categories never build them.

Tiny literal Wikidata- and DBpedia-shaped files, and the real CoDEx truthy file for two processes asking at once.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kg.rdf.index.dumpindex import DumpIndex
from kg.rdf.sources.index import IndexSource
from kg.rdf.vocabulary import DBPEDIA, RDFS, WD, WDT, WIKIDATA

W = WIKIDATA.with_relations()
DBO, DBR, CAT = "http://dbpedia.org/ontology/", "http://dbpedia.org/resource/", "http://dbpedia.org/resource/Category:"

# Q1 born in Q2, citizen of Q3, two children; Q4 born in Q2; a subproperty cycle between P19 and P276
WIKI = f"""\
<{WD}Q1> <{WDT}P19> <{WD}Q2> .
<{WD}Q1> <{WDT}P27> <{WD}Q3> .
<{WD}Q1> <{WDT}P40> <{WD}Q6> .
<{WD}Q1> <{WDT}P40> <{WD}Q7> .
<{WD}Q1> <{WDT}P31> <{WD}Q5> .
<{WD}Q1> <{RDFS}label> "Douglas Adams"@en .
<{WD}Q4> <{WDT}P19> <{WD}Q2> .
<{WD}Q4> <{WDT}P31> <{WD}Q5> .
<{WD}Q2> <{WDT}P31> <{WD}Q515> .
<{WD}Q515> <{WDT}P279> <{WD}Q486972> .
<{WD}P19> <{WDT}P1647> <{WD}P276> .
<{WD}P276> <{WDT}P1647> <{WD}P19> .
"""
ENTS = [WD + q for q in ("Q1", "Q2", "Q4", "Q404")]
LOG = "kg.rdf.sources.index"
REPO = Path(__file__).resolve().parents[4]


@pytest.fixture()
def wiki(tmp_path):
    (tmp_path / "wiki.nt").write_text(WIKI, encoding="utf-8")
    return tmp_path / "wiki.nt"


def folders(index: DumpIndex) -> list[str]:
    return sorted(p.name for p in (index.root / "segments").iterdir())


def notes(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOG]


def assert_same_bytes(a, b):
    """Two segment folders hold the same files with the same bytes (but the build's duration in segment.json, and
    in the manifest the files' times, segment.json's hash and the hash of the whole)."""
    assert a.name == b.name
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir())
    for name in names:
        if name in ("segment.json", "manifest.json"):
            continue
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    info_a, info_b = (json.loads((d / "segment.json").read_text()) for d in (a, b))
    assert {**info_a, "seconds": 0} == {**info_b, "seconds": 0}
    man_a, man_b = (json.loads((d / "manifest.json").read_text()) for d in (a, b))
    for man in (man_a, man_b):
        del man["files"]["segment.json"], man["sha256"]
        for entry in man["files"].values():
            del entry["mtime_ns"]
    assert man_a == man_b


def test_relations_of_a_plain_wikidata_source_just_work(wiki, tmp_path, caplog):
    index = DumpIndex(tmp_path / "index")
    src = IndexSource(wiki, index, vocabulary=WIKIDATA)
    twin = IndexSource(wiki, DumpIndex(tmp_path / "twin"), vocabulary=W)
    with caplog.at_level(logging.INFO, logger=LOG):
        assert src.types(ENTS) == twin.types(ENTS)
        assert folders(index) == [src.segments[0].folder.name]  # types: the plain segment alone
        assert not notes(caplog)
        out = src.relations(ENTS, "out")
        assert out[WD + "Q1"] == {(WDT + "P19", WD + "Q2"), (WDT + "P27", WD + "Q3"), (WDT + "P40", WD + "Q6"),
                                  (WDT + "P40", WD + "Q7")}
        assert out == twin.relations(ENTS, "out")
        assert src.relations(ENTS, "in") == twin.relations(ENTS, "in")
        assert src.property_edges([WDT + "P19"]) == twin.property_edges([WDT + "P19"]) == {
            (WDT + "P19", WDT + "P276"), (WDT + "P276", WDT + "P19")}
    said = notes(caplog)
    assert len(said) == 1, said  # one message for the whole source
    assert "vocabulary 'wikidata', which does not index them" in said[0]
    assert "with_relations()" in said[0] and "building them for 1 of 1 dump file(s): wiki.nt" in said[0]
    assert all(r.levelno == logging.INFO for r in caplog.records if r.name == LOG)
    # the twin's segment is now in the index beside the plain one, named as a with_relations() source names it
    assert folders(index) == sorted([src.segments[0].folder.name, twin.segments[0].folder.name])
    assert src.relation_segments[0].folder.name == twin.segments[0].folder.name
    # the types keep coming from the plain segment (its own, preferred)
    assert src.segments[0].folder.name != src.relation_segments[0].folder.name


def test_what_a_plain_source_builds_is_what_a_with_relations_source_builds(wiki, tmp_path):
    plain_index, twin_index = DumpIndex(tmp_path / "plain"), DumpIndex(tmp_path / "twin")
    IndexSource(wiki, plain_index, vocabulary=WIKIDATA).relations(ENTS, "out")
    twin = IndexSource(wiki, twin_index, vocabulary=W)
    twin.relations(ENTS, "out")
    built = plain_index.known_segment(wiki, W)
    assert built is not None
    assert_same_bytes(built.folder, twin.segments[0].folder)
    # a with_relations() source on the first index uses that segment: nothing read again
    files = (plain_index.root / "files.json").read_bytes()
    again = IndexSource(wiki, plain_index, vocabulary=W)
    assert again.segments[0].folder == built.folder
    assert (plain_index.root / "files.json").read_bytes() == files and len(folders(plain_index)) == 1


def test_the_twins_segments_already_built_are_used_and_said_so(wiki, tmp_path, caplog):
    index = DumpIndex(tmp_path / "index")
    IndexSource(wiki, index, vocabulary=W).relations(ENTS, "out")
    before = folders(index)
    src = IndexSource(wiki, index, vocabulary=WIKIDATA)
    with caplog.at_level(logging.INFO):
        assert src.relations([WD + "Q4"], "out") == {WD + "Q4": {(WDT + "P19", WD + "Q2")}}
    assert folders(index) == before  # nothing built
    said = notes(caplog)
    assert len(said) == 1 and "building" not in said[0]
    assert not [r for r in caplog.records if r.name == "kg.rdf.index.dumpindex"]  # no ingest


def test_types_and_categories_never_pay_for_relation_segments(tmp_path, caplog):
    from kg.features import KGFeatures

    a, subclass, subject, broader = ("http://www.w3.org/1999/02/22-rdf-syntax-ns#type", RDFS + "subClassOf",
                                     "http://purl.org/dc/terms/subject", "http://www.w3.org/2004/02/skos/core#broader")
    lines = [f"<{DBR}Kobe> <{a}> <{DBO}BasketballPlayer> .", f"<{DBR}Kobe> <{DBO}team> <{DBR}Lakers> .",
             f"<{DBR}Kobe> <{subject}> <{CAT}Basketball> .", f"<{CAT}Basketball> <{broader}> <{CAT}Sports> .",
             f"<{DBO}BasketballPlayer> <{subclass}> <{DBO}Athlete> ."]
    (tmp_path / "d.nt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    index = DumpIndex(tmp_path / "index")
    src = IndexSource(tmp_path / "d.nt", index, vocabulary=DBPEDIA)
    with caplog.at_level(logging.INFO, logger=LOG):
        for kinds in ("types", "categories", ["types", "categories"]):
            KGFeatures(src, features=kinds).fit([DBR + "Kobe"])
        src.describe()
    assert not notes(caplog)
    assert folders(index) == [src.segments[0].folder.name]
    assert not list(src.segments[0].folder.glob("relations_*"))
    assert src._relation_segments is None
    # the relations of the same source: now the twin's segment
    rel = KGFeatures(src, features="relations").fit([DBR + "Kobe"])
    assert rel.get_feature_names_out().tolist() == [f"out:{DBO}team"]
    assert len(folders(index)) == 2


def test_a_copy_for_a_worker_process_opens_the_twins_segments_again(wiki, tmp_path):
    import pickle

    src = IndexSource(wiki, DumpIndex(tmp_path / "index"), vocabulary=WIKIDATA)
    want = src.relations(ENTS, "out")
    copy = pickle.loads(pickle.dumps(src))
    assert copy._relation_segments is None
    copy._relations["out"] = type(copy._relations["out"])()  # no memo: the segments answer
    assert copy.relations(ENTS, "out") == want


ASK = """
import json, sys
from kg.rdf.index.dumpindex import DumpIndex
from kg.rdf.sources.index import IndexSource
from kg.rdf.vocabulary import WIKIDATA, WD
src = IndexSource(sys.argv[2], DumpIndex(sys.argv[1]), vocabulary=WIKIDATA)
ents = [WD + q for q in ("Q42", "Q5", "Q1035", "Q404404404")]
out = src.relations(ents, "out")
print(json.dumps({e: sorted(map(list, v)) for e, v in out.items()}, sort_keys=True))
"""


def test_processes_asking_at_once_build_the_codex_twin_segment_once(shared_data, tmp_path):
    """Two processes ask the real CoDEx file's relations through a plain Wikidata source on one new index: the
    index's lock makes one of them build the twin's segment and the other use it; both answer as a
    with_relations() source, whose own index holds the same bytes."""
    codex = shared_data / "wikidata" / "codex_truthy.nt.gz"
    root = tmp_path / "index"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    procs = [subprocess.Popen([sys.executable, "-c", ASK, str(root), str(codex)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in results]
    answers = [json.loads(out) for out, _ in results]
    twin = IndexSource(codex, DumpIndex(tmp_path / "twin"), vocabulary=W)
    ents = sorted(answers[0])
    want = {e: sorted(map(list, v)) for e, v in twin.relations(ents, "out").items()}
    assert answers[0] == answers[1] == want
    assert want[WD + "Q42"]  # Douglas Adams has relations in CoDEx
    index = DumpIndex(root)
    assert folders(index) == [twin.segments[0].folder.name]  # one segment, no leftovers of the other process
    assert_same_bytes(index.known_segment(codex, W).folder, twin.segments[0].folder)


# ------------------------------------------------------------------ issue 39 point 2: relations as index arrays
def test_the_tally_holds_the_relations_and_the_other_ends_types(wiki, tmp_path):
    """relation_tally gives, per entity, the multiset of (predicate, types of the other end) that relations + types
    give, without the other ends' IRIs."""
    from collections import Counter

    src = IndexSource(wiki, DumpIndex(tmp_path / "i"), vocabulary=W)
    for direction in ("out", "in"):
        t = src.relation_tally(ENTS, direction)
        got = {e: Counter() for e in t.entities}
        classes: dict[int, set[str]] = {}
        for o, c in t.other_class.tolist():
            classes.setdefault(o, set()).add(t.classes[c])
        for e, p, o in zip(t.entity.tolist(), t.predicate.tolist(), t.other.tolist()):
            got[t.entities[e]][(t.predicates[p], frozenset(classes.get(o, ())))] += 1
        rel = src.relations(ENTS, direction)
        types = src.types({o for ps in rel.values() for _, o in ps})
        want = {e: Counter((p, frozenset(types[o])) for p, o in ps) for e, ps in rel.items()}
        assert got == want, direction
    assert sum(got[WD + "Q2"].values()) == 2  # Q1 and Q4 born in Q2
    plain = src.relation_tally(ENTS, "out", qualified=False)
    assert plain.classes == [] and len(plain.other_class) == 0 and len(plain) == 5  # Q1: 4, Q4: 1


def test_the_codex_tables_through_the_tally_are_the_generic_tables(shared_data, tmp_path):
    """The real CoDEx truthy file, people and the most linked items (Q30 receives 6,699 relations): the tables of
    qualified relations both ways, with counts, through relation_tally and through relations + types are one."""
    import csv

    from kg.rdf.corpus import Corpus
    from kg.rdf.kinds import FeatureSpec
    from kg.rdf.table import assemble_table
    from tests.kg.conftest import Generic, assert_same_table

    codex = shared_data / "wikidata" / "codex_truthy.nt.gz"
    src = IndexSource(codex, DumpIndex(tmp_path / "i"), vocabulary=W)
    rows = list(csv.DictReader(open(REPO / "datasets" / "bundled" / "codex-people" / "people.csv", encoding="utf-8")))
    hubs = ["Q30", "Q36180", "Q1860", "Q33999", "Q10800557", "Q177220"]
    corpus = Corpus(ids=[r["id"] for r in rows[:300]] + hubs,
                    entities=[[WIKIDATA.expand_entity(r["entity"])] for r in rows[:300]] + [[WD + q] for q in hubs],
                    labels=[r["label"] for r in rows[:300]] + ["hub"] * len(hubs))
    for features in ("qualified-relations", "relations"):
        spec = FeatureSpec.of(features, direction="both", exclude=[WDT + "P27"], values="count")
        fast, slow = (assemble_table(corpus, None, s, features=spec) for s in (src, Generic(src)))
        assert_same_table(fast, slow)
        assert (fast.values != slow.values).nnz == 0
        assert fast.meta["relations"] == slow.meta["relations"]
        assert fast.meta["relations"]["n_relations"] > 25000, features
        row = fast.instance_ids.tolist().index("Q30")
        assert fast.values[row].max() >= 1000  # the hub's in-links counted
