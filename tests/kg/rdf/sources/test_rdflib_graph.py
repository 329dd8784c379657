"""RdflibSource: over the triples of the test dump it gives exactly DumpSource's facts and tables."""

import warnings

import pytest
import rdflib

from kg.errors import HierarchyCycleWarning
from kg.iri import InvalidIRIError
from kg.rdf.sources.dump import DumpSource
from kg.rdf.sources.rdflib_graph import RdflibSource
from kg.rdf.table import assemble_table
from kg.sources import KnowledgeSource
from tests.kg.conftest import DBO, C, R, assert_same_table


@pytest.fixture(scope="module")
def graph(kg_dump_dir):
    g = rdflib.Graph()
    g.parse(kg_dump_dir / "ontology.owl", format="xml")
    # rdflib's N-Triples parser refuses the non-ASCII IRIs (DEJA_VU); its Turtle parser, a superset, reads them
    g.parse(kg_dump_dir / "instances.nt", format="turtle")
    return g


def assert_same_result(a, b):
    assert_same_table(a, b)
    assert a.meta["removed_cycle_edges"] == b.meta["removed_cycle_edges"]
    assert a.meta["entities_without_features"] == b.meta["entities_without_features"]


@pytest.mark.parametrize("namespaces", [None, ["dbo", "yago", "schema"]])
def test_same_types_table_as_the_dump(tweets10, kg_dump_dir, graph, namespaces):
    ours = assemble_table(tweets10, None, RdflibSource(graph, type_namespaces=namespaces))
    dump = assemble_table(tweets10, None, DumpSource(kg_dump_dir, type_namespaces=namespaces))
    assert_same_result(ours, dump)
    assert ours.meta["source"]["kind"] == "rdflib" and ours.n_features > 5
    if namespaces:  # the extra namespaces are honoured
        assert "http://dbpedia.org/class/yago/SerbianTennisPlayers" in set(ours.feature_names)
    else:
        assert not any(f.startswith("http://schema.org/") for f in ours.feature_names)


@pytest.mark.parametrize("depth", [None, 0, 1, 2])
def test_same_categories_table_as_the_dump(tweets10, kg_dump_dir, graph, depth):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HierarchyCycleWarning)
        ours = assemble_table(tweets10, None, RdflibSource(graph), features="categories", category_depth=depth)
        dump = assemble_table(tweets10, None, DumpSource(kg_dump_dir), features="categories", category_depth=depth)
    assert_same_result(ours, dump)
    if depth is None:  # the Sports <-> Recreation cycle and the Cricket self-loop, broken the same way
        removed = {tuple(e) for e in ours.meta["removed_cycle_edges"]}
        assert (C + "Cricket", C + "Cricket") in removed and len(removed) == 2


def test_questions_answer_like_the_dump(kg_dump_dir, graph):
    ours, dump = RdflibSource(graph), DumpSource(kg_dump_dir)
    assert isinstance(ours, KnowledgeSource)
    ents = [R + "Chris_Gayle", R + "Novak_Djokovic", R + "President", R + "Not_in_the_graph"]
    assert ours.types(ents) == dump.types(ents)
    assert ours.types(ents)[R + "Not_in_the_graph"] == set()
    assert ours.categories(ents) == dump.categories(ents)
    assert ours.class_edges([DBO + "Cricketer"]) == dump.class_edges([DBO + "Cricketer"])
    assert (DBO + "Cricketer", DBO + "Athlete") in ours.class_edges([DBO + "Cricketer"])
    cats = [C + "Jamaican_cricketers"]
    for depth in (0, 1, 3, None):
        assert ours.broader(cats, depth) == dump.broader(cats, depth)


def test_literals_and_blank_nodes_are_not_facts():
    g = rdflib.Graph()
    e = rdflib.URIRef(R + "X")
    g.add((e, rdflib.RDF.type, rdflib.Literal(DBO + "Person")))
    g.add((e, rdflib.RDF.type, rdflib.BNode()))
    g.add((e, rdflib.RDF.type, rdflib.URIRef(DBO + "Person")))
    assert RdflibSource(g).types([R + "X"]) == {R + "X": {DBO + "Person"}}


def test_invalid_iris_are_refused_as_by_the_other_sources(graph):
    src = RdflibSource(graph)
    for bad in ["not an iri", R + "a b", R + "x> . ?s ?p ?o"]:
        with pytest.raises(InvalidIRIError):
            src.types([bad])
        with pytest.raises(InvalidIRIError):
            src.broader([bad], 1)
    with pytest.raises(TypeError, match="rdflib.Graph"):
        RdflibSource({"not": "a graph"})
