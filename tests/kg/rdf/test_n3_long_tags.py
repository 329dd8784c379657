"""Wikidata's own RDF export reads (issue 37 point 6): ``Special:EntityData/Q42.n3`` is Turtle, and it writes
language tags with a subtag over 8 characters (``@zh-classical``) that pyoxigraph's strict parser refuses (it then
cannot skip the statement); such a file is read again leniently, its IRIs checked by kgfs, said once."""

from __future__ import annotations

import bz2
import gzip
import logging

import pyoxigraph as ox
import pytest

from kg.errors import InputFormatError
from kg.rdf import dumpfiles
from kg.rdf.dumpfiles import DumpReader, dump_files, dump_format
from kg.rdf.index.linefilter import LineFilter

WD, WDT = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"

# Special:EntityData/Q42.n3 in small: prefixes, truthy wdt: statements, a p:/ps: statement node, labels in many
# languages (zh-classical after the first truthy statements, so a strict pass has given some quads already)
Q42 = """@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix schema: <http://schema.org/> .
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wds: <http://www.wikidata.org/entity/statement/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix p: <http://www.wikidata.org/prop/> .
@prefix ps: <http://www.wikidata.org/prop/statement/> .
@prefix wikibase: <http://wikiba.se/ontology#> .

wd:Q42 a wikibase:Item ;
\trdfs:label "Douglas Adams"@en ;
\twdt:P31 wd:Q5 ;
\twdt:P21 wd:Q6581097 ;
\tschema:name "道格拉斯·亞當斯"@zh-classical ;
\trdfs:label "Douglas Adams"@be-tarask ;
\twdt:P106 wd:Q36180, wd:Q214917 ;
\twdt:P569 "1952-03-11T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> ;
\twdt:P27 wd:Q145 ;
\tp:P31 wds:Q42-F078E5B3-F9A8-480E-B7AC-D97778CBBEF9 .

wds:Q42-F078E5B3-F9A8-480E-B7AC-D97778CBBEF9 a wikibase:Statement ;
\tps:P31 wd:Q5 .
"""
TRUTHY_IRI = {("P31", "Q5"), ("P21", "Q6581097"), ("P106", "Q36180"), ("P106", "Q214917"), ("P27", "Q145")}


def _truthy(quads) -> set[tuple[str, str]]:
    return {(q.predicate.value[len(WDT):], q.object.value[len(WD):]) for q in quads
            if q.predicate.value.startswith(WDT) and isinstance(q.object, ox.NamedNode)}


@pytest.fixture(autouse=True)
def _say_again(monkeypatch):
    monkeypatch.setattr(dumpfiles, "_said_long_tags", False)


@pytest.mark.parametrize("name", ["Q42.n3", "Q42.n3.gz", "Q42.n3.bz2", "Q42.ttl"])
def test_wikidata_entity_data_turtle_reads_with_its_long_language_tags(name, tmp_path, caplog):
    data = Q42.encode()
    p = tmp_path / name
    p.write_bytes(gzip.compress(data) if name.endswith(".gz") else bz2.compress(data) if name.endswith(".bz2")
                  else data)
    with pytest.raises(SyntaxError, match="subtag may be eight characters"):  # what pyoxigraph alone says
        list(ox.parse(data, format=ox.RdfFormat.TURTLE))
    assert dump_format(p) == ox.RdfFormat.TURTLE and dump_files(tmp_path) == [p]
    reader = DumpReader(p)
    with caplog.at_level(logging.WARNING, logger="kg.rdf.dumpfiles"):
        quads = list(reader)
    assert _truthy(quads) == TRUTHY_IRI
    expected = list(ox.parse(data, format=ox.RdfFormat.TURTLE, lenient=True))
    assert [str(q) for q in quads] == [str(q) for q in expected]  # each statement once, in order
    assert {q.object.language for q in quads if isinstance(q.object, ox.Literal) and q.object.language} == {
        "en", "zh-classical", "be-tarask"}
    assert reader.long_language_tags and reader.sha256 is not None
    said = [r.getMessage() for r in caplog.records if "subtag over 8 characters" in r.getMessage()]
    assert len(said) == 1 and str(p) in said[0] and "said once" in said[0]
    with caplog.at_level(logging.WARNING, logger="kg.rdf.dumpfiles"):
        caplog.clear()
        assert _truthy(DumpReader(p)) == TRUTHY_IRI
    assert not [r for r in caplog.records if "subtag" in r.getMessage()]  # once per process


def test_a_strict_file_stays_strict(tmp_path):
    p = tmp_path / "plain.ttl"
    p.write_text('<http://x/a> <http://x/p> "x"@en .\n')
    reader = DumpReader(p)
    assert len(list(reader)) == 1 and not reader.long_language_tags


def test_the_lenient_reread_still_checks_iris(tmp_path):
    p = tmp_path / "bad.n3"
    p.write_text('<http://x/a> <http://x/p> "x"@zh-classical .\n<http://x/a b> <http://x/p> <http://x/c> .\n')
    with pytest.raises(InputFormatError, match=r"bad\.n3: invalid IRI 'http://x/a b' \(the file was read "
                                               r"leniently for its long language tags"):
        list(DumpReader(p))


def test_blank_nodes_stay_one_node_across_the_reread(tmp_path):
    """An anonymous blank node is named anew by each parse: the quads given before the long tag and those after
    it name the same node."""
    p = tmp_path / "b.ttl"
    p.write_text('<http://x/a> <http://x/p> [ <http://x/q> <http://x/b> ; <http://x/n> "y"@zh-classical ; '
                 '<http://x/r> <http://x/c> ] .\n')
    quads = list(DumpReader(p))
    nodes = {t for q in quads for t in (q.subject, q.object) if isinstance(t, ox.BlankNode)}
    assert len(quads) == 4 and len(nodes) == 1 and DumpReader(p).long_language_tags is False  # until read
    reader = DumpReader(p)
    assert len(list(reader)) == 4 and reader.long_language_tags


@pytest.mark.parametrize("filtered", [False, True], ids=["whole", "line-filter"])
def test_n_triples_with_a_long_tag_reread_from_that_line(filtered, tmp_path):
    lines = [f'<{WD}Q{i}> <http://www.w3.org/2000/01/rdf-schema#label> "n{i}"@{"zh-classical" if i == 3 else "en"} .'
             for i in range(1, 6)]
    p = tmp_path / "t.nt"
    p.write_text("\n".join(lines) + "\n")
    filt = LineFilter(["http://www.w3.org/2000/01/rdf-schema#label"]) if filtered else None
    reader = DumpReader(p, line_filter=filt)
    assert [q.object.value for q in reader] == ["n1", "n2", "n3", "n4", "n5"] and reader.long_language_tags
