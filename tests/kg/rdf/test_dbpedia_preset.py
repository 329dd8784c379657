"""The ``dbpedia`` preset builds the tables the route built before its vocabulary became data.

``fixtures/dbpedia_tables.json`` was written by the code of commit f7df49c (``make_dbpedia_tables.py``):
types (DBpedia ontology, and every namespace) and categories (depth 2 and unbounded, the category
cycles broken), of the 10 linked tweets and of 2,000 tweets annotated by the lexicon, through the dump
index and the streamed dump. Today's code must give the same instances, features, cells, hierarchy,
labels and removed cycle edges; so must a TOML file that spells the preset out.
"""

import json
from pathlib import Path

import pytest

from kg.rdf.vocabulary import DBPEDIA, load_preset, vocabulary_of
from tests.kg.rdf.fixtures.make_dbpedia_tables import table_json, tables

FIXTURE = Path(__file__).parent / "fixtures" / "dbpedia_tables.json"


@pytest.fixture(scope="module")
def expected():
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def test_the_dbpedia_preset_builds_the_tables_of_before(kg_dump_dir, tmp_path, expected):
    got = tables(kg_dump_dir, tmp_path)
    assert sorted(got) == sorted(expected) and len(got) == 16
    for key, table in expected.items():
        assert got[key] == table, key
    assert any(t["removed_cycle_edges"] for t in expected.values())  # the cycles were met


def test_a_toml_file_spelling_the_preset_out_is_the_preset(tmp_path):
    p = tmp_path / "dbpedia-again.toml"
    p.write_text("""
name = "dbpedia-again"
instance_of = ["rdf:type"]
subclass_of = ["rdfs:subClassOf"]
subject = ["dct:subject"]
broader = ["skos:broader"]
type_namespaces = ["dbo:"]
labels = ["rdfs:label"]
language = "en"
entities = ["dbr:"]
not_entities = ["/Category:"]
redirects = ["dbo:wikiPageRedirects"]
prior_links = ["dbo:wikiPageWikiLink"]
relations = ["dbo:"]
not_relations = ["dbo:wikiPage", "dbo:thumbnail"]
[namespaces]
dbo = "http://dbpedia.org/ontology/"
yago = "http://dbpedia.org/class/yago/"
schema = "http://schema.org/"
owl = "http://www.w3.org/2002/07/owl#"
wd = "http://www.wikidata.org/entity/"
""", encoding="utf-8")
    v = load_preset(p)
    assert v.fingerprint() == DBPEDIA.fingerprint()  # reads a dump the same way: the same segments
    assert {**v.to_json(), "name": "dbpedia"} == DBPEDIA.to_json()
    assert vocabulary_of(str(p)) == v and vocabulary_of(None) is DBPEDIA


def test_table_json_is_what_the_fixture_holds(tweets10, kg_dump_dir):
    from kg.rdf.sources.dump import DumpSource
    from kg.rdf.table import assemble_table

    t = table_json(assemble_table(tweets10, None, DumpSource(kg_dump_dir)))
    assert set(t) == {"instances", "features", "cells", "edges", "labels", "removed_cycle_edges"}
