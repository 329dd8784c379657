"""Relations in the dump index (issue 25): what an ingest with a relation-indexing vocabulary keeps, and
``IndexSource.relations`` / ``property_edges`` against a brute-force reading of the same file.

Tiny literal graphs (Wikidata-shaped, with its line filter, and DBpedia-shaped, every line parsed), random
graphs checked against rdflib (hypothesis), a SIGKILL'd relation ingest, and the real CoDEx data: its
relation tables hold exactly the file's ``wdt:`` lines with an IRI object (but P31 and P279).
"""

import gzip
import os
import re
import signal
import subprocess
import sys
import time
from collections import defaultdict

import numpy as np
import pytest
import rdflib
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.errors import KgfsError
from kg.rdf.index.columns import load_array
from kg.rdf.index.dumpindex import DumpIndex
from kg.rdf.sources.index import IndexSource
from kg.rdf.vocabulary import DBPEDIA, RDFS, WD, WDT, WIKIDATA, Vocabulary
from kg.sources import RelationSource

W = WIKIDATA.with_relations()
D = DBPEDIA.with_relations()
LABEL = RDFS + "label"
DBO, DBR = "http://dbpedia.org/ontology/", "http://dbpedia.org/resource/"
SUBPROP = RDFS + "subPropertyOf"

# a Wikidata-shaped graph: Q1 born in Q2, Q1 citizen of Q3, Q4 born in Q2; literal-valued wdt: lines (a date,
# a string identifier, a quantity); P31, P279 and labels (not relations); P1647 between the properties
WIKI = f"""\
<{WD}Q1> <{WDT}P19> <{WD}Q2> .
<{WD}Q1> <{WDT}P27> <{WD}Q3> .
<{WD}Q1> <{WDT}P31> <{WD}Q5> .
<{WD}Q1> <{WDT}P569> "1952-03-11T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
<{WD}Q1> <{WDT}P214> "113230702" .
<{WD}Q1> <{LABEL}> "Douglas Adams"@en .
<{WD}Q2> <{WDT}P1082> "+8908081"^^<http://www.w3.org/2001/XMLSchema#decimal> .
<{WD}Q2> <{WDT}P31> <{WD}Q515> .
<{WD}Q4> <{WDT}P19> <{WD}Q2> .
<{WD}Q4>\t<{WDT}P40>\t<{WD}Q1>\t.
_:b1 <{WDT}P19> <{WD}Q2> .
<{WD}Q515> <{WDT}P279> <{WD}Q486972> .
<{WD}P19> <{WDT}P1647> <{WD}P276> .
<{WD}P276> <{WDT}P1647> <{WD}P19> .
<{WD}P27> <{WDT}P1647> <{WD}P17> .
<{WD}P19> <http://schema.org/description> "place of birth"@en .
"""


@pytest.fixture(scope="module")
def wiki(tmp_path_factory):
    d = tmp_path_factory.mktemp("wiki")
    (d / "wiki.nt").write_text(WIKI, encoding="utf-8")
    index = DumpIndex(d / "index")
    return d / "wiki.nt", index, IndexSource(d / "wiki.nt", index, vocabulary=W)


def test_the_relation_tables_hold_the_iri_valued_relation_triples_both_ways(wiki):
    path, index, src = wiki
    assert isinstance(src, RelationSource)
    q = [WD + x for x in ("Q1", "Q2", "Q3", "Q4", "Q5", "Q404")]
    out = src.relations(q, "out")
    assert out == {WD + "Q1": {(WDT + "P19", WD + "Q2"), (WDT + "P27", WD + "Q3")}, WD + "Q2": set(),
                   WD + "Q3": set(), WD + "Q4": {(WDT + "P19", WD + "Q2"), (WDT + "P40", WD + "Q1")},
                   WD + "Q5": set(), WD + "Q404": set()}
    inn = src.relations(q, "in")
    assert inn == {WD + "Q1": {(WDT + "P40", WD + "Q4")},
                   WD + "Q2": {(WDT + "P19", WD + "Q1"), (WDT + "P19", WD + "Q4")},
                   WD + "Q3": {(WDT + "P27", WD + "Q1")}, WD + "Q4": set(), WD + "Q5": set(), WD + "Q404": set()}
    seg = src.segments[0]
    assert seg.info["counts"]["relations_out"] == seg.info["counts"]["relations_in"] == 4
    assert seg.info["counts"]["types"] == 2 and seg.info["counts"]["subproperty"] == 3
    # the literal-valued wdt: lines and the description were not parsed (the line filter), the blank node's was
    assert seg.info["lines"] == 16 and seg.info["triples"] == 12
    assert seg.info["cycles"]["subproperty"] == {"cycles": 1, "nodes": 2}
    assert (seg.folder / "subproperty.cycles.tsv").read_text() == f"{WD}P19\t{WD}P276\n"


def test_the_subproperty_walk_follows_every_edge_upward_and_keeps_cycles(wiki):
    """The dump relates the property entities (wd:P19 wdt:P1647 wd:P276); the walk starts from and gives back the
    predicates (wdt:P19 -> wdt:P276), the vocabulary's property_namespace translating both ways."""
    src = wiki[2]
    assert src.property_edges([WDT + "P19"]) == {(WDT + "P19", WDT + "P276"), (WDT + "P276", WDT + "P19")}
    assert src.property_edges([WDT + "P27", WDT + "P17"]) == {(WDT + "P27", WDT + "P17")}
    assert src.property_edges(["http://nowhere/p"]) == set()
    assert src.property_edges([]) == set()


def test_the_answers_are_memoised_and_bad_questions_are_refused(wiki):
    path, index, _ = wiki
    src = IndexSource(path, index, vocabulary=W)
    first = src.relations([WD + "Q1"], "out")
    src._segments = []  # no segment left: only the memo can answer
    assert src.relations([WD + "Q1"], "out") == first
    assert src.relations([WD + "Q2"], "out") == {WD + "Q2": set()}
    with pytest.raises(ValueError, match="direction must be 'out' or 'in', got 'both'"):
        src.relations([WD + "Q1"], "both")
    # a vocabulary that names no relation predicates has no relation segments to read (tests/kg/rdf/sources/
    # test_index.py: the plain Wikidata vocabulary reads its twin's)
    plain = Vocabulary("wikidata-types", instance_of=(WDT + "P31",), subclass_of=(WDT + "P279",), type_namespaces=(WD,))
    with pytest.raises(KgfsError, match=r"vocabulary 'wikidata-types' names no relation predicates"):
        IndexSource(path, index, vocabulary=plain).relations([WD + "Q1"], "out")
    with pytest.raises(KgfsError, match="names no relation predicates"):
        IndexSource(path, index, vocabulary=plain).property_edges([WD + "P19"])


def test_a_types_only_source_uses_the_relation_segment_and_answers_the_same(wiki, tmp_path):
    path, index, src = wiki
    src.relations([WD + "Q1"], "out")  # the relation segment exists
    n = len(list((index.root / "segments").iterdir()))
    types = IndexSource(path, index, vocabulary=WIKIDATA)
    assert types.segments[0].folder == src.segments[0].folder
    assert len(list((index.root / "segments").iterdir())) == n  # nothing read again
    alone = IndexSource(path, DumpIndex(tmp_path / "alone"), vocabulary=WIKIDATA)
    ents = [WD + "Q1", WD + "Q2", WD + "Q4"]
    want = {WD + "Q1": {WD + "Q5"}, WD + "Q2": {WD + "Q515"}, WD + "Q4": set()}
    assert types.types(ents) == alone.types(ents) == want
    assert types.class_edges([WD + "Q515"]) == alone.class_edges([WD + "Q515"]) == {(WD + "Q515", WD + "Q486972")}
    assert "relations_out" not in alone.segments[0].info["counts"]  # a types-only segment has no relation table
    assert not list(alone.segments[0].folder.glob("relations_*")) and not list(alone.segments[0].folder.glob("subp*"))
    # a relation source does not take a types-only segment (it has fewer tables)
    again = IndexSource(path, DumpIndex(tmp_path / "alone"), vocabulary=W)
    assert again.segments[0].folder != alone.segments[0].folder
    assert again.relations([WD + "Q4"], "out")[WD + "Q4"] == {(WDT + "P19", WD + "Q2"), (WDT + "P40", WD + "Q1")}


def test_the_segment_files_are_what_the_layout_says(wiki):
    seg = wiki[2].segments[0]
    for table, other in (("relations_out", "objects"), ("relations_in", "subjects")):
        keys = np.asarray(load_array(seg.folder / f"{table}.keys.npy"))
        assert keys.shape == (2, 4) and keys.dtype == np.uint64
        order = np.lexsort((keys[1], keys[0]))
        assert (order == np.arange(4)).all()  # sorted by key
        for col in (other, "predicates"):
            ids = np.asarray(load_array(seg.folder / f"{table}.{col}.npy"))
            assert ids.dtype == np.uint32 and len(ids) == 4
    names = set(seg.term_names(np.asarray(load_array(seg.folder / "relations_out.predicates.npy"))))
    assert names == {WDT + "P19", WDT + "P27", WDT + "P40"}


# a DBpedia-shaped graph: every line parsed; dbo: relations but the wikiPage... bookkeeping, rdf:type, labels
DBP = f"""\
<{DBR}Ada> <{DBO}birthPlace> <{DBR}London> .
<{DBR}Ada> <{DBO}birthDate> "1815-12-10"^^<http://www.w3.org/2001/XMLSchema#date> .
<{DBR}Ada> <{DBO}wikiPageWikiLink> <{DBR}London> .
<{DBR}Ada_Lovelace> <{DBO}wikiPageRedirects> <{DBR}Ada> .
<{DBR}Ada> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{DBO}Person> .
<{DBR}Ada> <{LABEL}> "Ada"@en .
<{DBR}Ada> <{DBO}thumbnail> <http://commons/ada.jpg> .
<{DBR}Ada> <http://xmlns.com/foaf/0.1/knows> <{DBR}Babbage> .
<{DBR}Babbage> <{DBO}influencedBy> <{DBR}Ada> .
<{DBO}birthPlace> <{SUBPROP}> <{DBO}place> .
"""


def test_dbpedia_bookkeeping_and_other_namespaces_are_not_relations(tmp_path):
    (tmp_path / "d.nt").write_text(DBP, encoding="utf-8")
    src = IndexSource(tmp_path / "d.nt", DumpIndex(tmp_path / "i"), vocabulary=D)
    assert src.relations([DBR + "Ada", DBR + "London"], "out") == {
        DBR + "Ada": {(DBO + "birthPlace", DBR + "London")}, DBR + "London": set()}
    assert src.relations([DBR + "Ada", DBR + "London"], "in") == {
        DBR + "Ada": {(DBO + "influencedBy", DBR + "Babbage")}, DBR + "London": {(DBO + "birthPlace", DBR + "Ada")}}
    assert src.property_edges([DBO + "birthPlace"]) == {(DBO + "birthPlace", DBO + "place")}
    assert src.segments[0].info["triples"] == 10  # DBpedia's preset parses every line
    assert src.types([DBR + "Ada"]) == {DBR + "Ada": {DBO + "Person"}}


# --------------------------------------------------------------------------- random graphs against rdflib
ENT = [f"<{WD}Q{i}>" for i in range(1, 7)]
PRED = [f"<{WDT}P{p}>" for p in (19, 27, 40, 31, 279, 1647)] + [f"<{LABEL}>", "<http://schema.org/about>",
                                                                  "<http://other/p>"]
PROPS = [f"<{WD}P{p}>" for p in (19, 27, 40, 17)]
OBJ = st.one_of(st.sampled_from(ENT + PROPS + ["_:b", "<http://other/o>"]),
                st.sampled_from(['"x"', '"x"@en', '"5"^^<http://www.w3.org/2001/XMLSchema#decimal>']))
TRIPLE = st.one_of(st.tuples(st.sampled_from(ENT + ["_:b"]), st.sampled_from(PRED), OBJ),
                   st.tuples(st.sampled_from(PROPS), st.just(f"<{WDT}P1647>"), st.sampled_from(PROPS)))


def _brute_force(path):
    """The relations and subproperty edges of a file, read with rdflib and the vocabulary's own test."""
    g = rdflib.Graph()
    g.parse(path, format="nt")
    out, inn, sub = defaultdict(set), defaultdict(set), defaultdict(set)
    for s, p, o in g:
        if isinstance(s, rdflib.URIRef) and isinstance(o, rdflib.URIRef):
            if W.is_relation(str(p)):
                out[str(s)].add((str(p), str(o)))
                inn[str(o)].add((str(p), str(s)))
            elif str(p) in W.subproperty_of:
                sub[str(s)].add(str(o))
    return out, inn, sub


def _reachable_edges(start, parents):
    seen, todo, edges = set(start), list(start), set()
    while todo:
        x = todo.pop()
        for y in parents.get(x, ()):
            edges.add((x, y))
            if y not in seen:
                seen.add(y)
                todo.append(y)
    return edges


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(triples=st.lists(TRIPLE, max_size=40), spill=st.sampled_from([None, 64]))
def test_relations_equal_a_brute_force_reading_with_rdflib(tmp_path_factory, triples, spill):
    d = tmp_path_factory.mktemp("rand")
    (d / "r.nt").write_text("".join(f"{s} {p} {o} .\n" for s, p, o in triples), encoding="utf-8")
    src = IndexSource(d / "r.nt", DumpIndex(d / "i", spill_bytes=spill), vocabulary=W)
    out, inn, sub = _brute_force(d / "r.nt")
    ents = [e[1:-1] for e in ENT + PROPS] + ["http://other/o"]
    assert src.relations(ents, "out") == {e: out.get(e, set()) for e in ents}
    assert src.relations(ents, "in") == {e: inn.get(e, set()) for e in ents}
    props = [p[1:-1] for p in PROPS[:2]]  # the property entities the dump relates; asked as their predicates
    want = _reachable_edges(props, sub)
    as_predicates = {(W.property_predicate(c), W.property_predicate(p)) for c, p in want}
    assert src.property_edges([W.property_predicate(p) for p in props]) == as_predicates


# --------------------------------------------------------------------------- a killed ingest
KILLED = """
import sys
from kg.rdf.index.dumpindex import DumpIndex
from kg.rdf.vocabulary import WIKIDATA
# a small budget: the scan spills sorted runs of relation rows early, and the kill comes among them
DumpIndex(sys.argv[1], spill_bytes=1 << 20).ingest(sys.argv[2], vocabulary=WIKIDATA.with_relations(), lexicon=False)
"""


def test_a_killed_relation_ingest_leaves_no_usable_segment(shared_data, tmp_path):
    """SIGKILL in the middle of a relation ingest: no segment is used from it; the next ingest removes its
    leftovers and builds the relation segment whole."""
    codex = shared_data / "wikidata" / "codex_truthy.nt.gz"
    root = tmp_path / "index"
    proc = subprocess.Popen([sys.executable, "-c", KILLED, str(root), str(codex)], env=dict(os.environ),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    segments = root / "segments"
    deadline = time.monotonic() + 120
    # killed once the scan has spilled relation rows (or wrote the tables): the folder is well under way
    while proc.poll() is None and time.monotonic() < deadline and not any(
            segments.glob(".building-*/.runs/relations_*")) and not any(segments.glob(".building-*/relations_*")):
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert list(segments.glob(".building-*")), "the ingest ended before it could be killed"
    index = DumpIndex(root)
    assert index.known_segment(codex, W) is None and index.known_segment(codex, WIKIDATA) is None
    src = IndexSource(codex, index, vocabulary=W)
    assert src.relations([WD + "Q42"], "out")[WD + "Q42"]  # Douglas Adams has relations in CoDEx
    assert not list(root.rglob(".building-*"))
    assert src.segments[0].info["counts"]["relations_out"] == 206_205


# --------------------------------------------------------------------------- the real CoDEx data
@pytest.fixture(scope="module")
def codex_lines(shared_data):
    """The CoDEx truthy file's relation triples, read as text: (subject, property, object) of every wdt: line
    with an IRI object, but P31 and P279."""
    line = re.compile(rf"^<({re.escape(WD)}[^>]+)> <({re.escape(WDT)}P\d+)> <([^>]+)> \.$")
    out = []
    with gzip.open(shared_data / "wikidata" / "codex_truthy.nt.gz", "rt", encoding="utf-8") as fh:
        for x in fh:
            m = line.match(x.rstrip("\n"))
            if m and m.group(2) not in (WDT + "P31", WDT + "P279"):
                out.append(m.groups())
    return out


@pytest.fixture(scope="module")
def codex_source(tmp_path_factory, shared_data):
    root = tmp_path_factory.mktemp("codex-rel")
    return IndexSource(shared_data / "wikidata" / "codex_truthy.nt.gz", DumpIndex(root), vocabulary=W)


def test_the_codex_relation_tables_hold_every_relation_line_of_the_file(codex_lines, codex_source):
    assert len(codex_lines) == 206_205
    ents = {s for s, _, _ in codex_lines} | {o for _, _, o in codex_lines}
    assert len(ents) == 17_050 and len({p for _, p, _ in codex_lines}) == 51
    info = codex_source.segments[0].info
    assert info["counts"]["relations_out"] == info["counts"]["relations_in"] == len(set(codex_lines)) == 206_205
    assert info["counts"]["types"] == 93_102 and info["counts"]["subproperty"] == 0
    # every entity's relations, both ways, are the file's
    out, inn = defaultdict(set), defaultdict(set)
    for s, p, o in codex_lines:
        out[s].add((p, o))
        inn[o].add((p, s))
    ents = sorted(ents) + [WD + "Q5", WD + "Q404404404"]
    assert codex_source.relations(ents, "out") == {e: out.get(e, set()) for e in ents}
    assert codex_source.relations(ents, "in") == {e: inn.get(e, set()) for e in ents}


def test_the_codex_types_from_the_relation_segment_equal_those_of_a_types_only_segment(
        codex_lines, codex_source, shared_data, tmp_path):
    codex = shared_data / "wikidata" / "codex_truthy.nt.gz"
    relation_folder = codex_source.segments[0].folder  # ingested first (not only when an earlier test of the
    # module ran in the same worker): a plain source then finds the relation segment and reads its types there
    shared = IndexSource(codex, codex_source.index, vocabulary=WIKIDATA)
    alone = IndexSource(codex, DumpIndex(tmp_path / "alone"), vocabulary=WIKIDATA)
    assert shared.segments[0].folder == relation_folder != alone.segments[0].folder
    ents = sorted({s for s, _, _ in codex_lines} | {o for _, _, o in codex_lines})
    types = alone.types(ents)
    assert shared.types(ents) == types and sum(map(len, types.values())) > 20_000
    classes = set().union(*types.values())
    assert shared.class_edges(classes) == alone.class_edges(classes)
    assert shared.segments[0].info["cycles"]["subclass"] == alone.segments[0].info["cycles"]["subclass"]



def test_a_small_terms_cache_and_spill_budget_give_the_same_codex_relations(codex_lines, codex_source, shared_data,
                                                                            tmp_path, monkeypatch):
    """Many epochs of the terms cache (each rewriting the strings it meets again) and many sorted runs: the same
    answers as the default build."""
    import kg.rdf.index.ingest as ingest

    monkeypatch.setattr(ingest, "_RECENT", 5_000)
    small = IndexSource(shared_data / "wikidata" / "codex_truthy.nt.gz",
                        DumpIndex(tmp_path / "small", spill_bytes=4 << 20), vocabulary=W)
    info, ref = small.segments[0].info, codex_source.segments[0].info
    assert info["counts"] == ref["counts"]  # the same tables, the same distinct terms
    ents = sorted({s for s, _, _ in codex_lines[::7]} | {o for _, _, o in codex_lines[::11]})
    for direction in ("out", "in"):
        assert small.relations(ents, direction) == codex_source.relations(ents, direction)
    assert small.types(ents) == codex_source.types(ents)
    # the strings were written more than once (the cache forgot them), the term table keeps one row per key
    assert (small.segments[0].folder / "terms.bin").stat().st_size > (codex_source.segments[0].folder /
                                                                      "terms.bin").stat().st_size


def test_a_damaged_relation_table_is_found_and_rebuilt(tmp_path, caplog):
    """The manifest covers the relation tables: a flipped bit (mtime kept) is found by `verify`, a truncated
    table refuses to open, and an ingest rebuilds it."""
    (tmp_path / "w.nt").write_text(WIKI, encoding="utf-8")
    index = DumpIndex(tmp_path / "i")
    index.ingest(tmp_path / "w.nt", vocabulary=W, lexicon=False)
    seg = index.known_segment(tmp_path / "w.nt", W).folder
    target = seg / "relations_in.subjects.npy"
    st = target.stat()
    with open(target, "r+b") as fh:
        fh.seek(st.st_size - 2)
        b = fh.read(1)[0]
        fh.seek(st.st_size - 2)
        fh.write(bytes([b ^ 0x10]))
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    problems = index.verify()
    assert [p.file.name for p in problems] == ["relations_in.subjects.npy"]
    with open(seg / "relations_out.keys.npy", "r+b") as fh:
        fh.truncate(100)
    with pytest.raises(KgfsError, match=r"relations_(in|out)\.\w+\.npy.*`kgfs ingest --preset wikidata --relations "):
        IndexSource(tmp_path / "w.nt", index, vocabulary=W).relations([WD + "Q1"], "out")
    with caplog.at_level("WARNING"):
        report = index.ingest(tmp_path / "w.nt", vocabulary=W, lexicon=False, full=True)
    assert report["rebuilt"] and "reading w.nt into the index again" in caplog.text
    assert index.verify() == []
    assert IndexSource(tmp_path / "w.nt", index, vocabulary=W).relations([WD + "Q2"], "in")[WD + "Q2"] == {
        (WDT + "P19", WD + "Q1"), (WDT + "P19", WD + "Q4")}
