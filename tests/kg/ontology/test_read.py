"""Any ontology: OBO and OWL (RDF/XML) of the same small ontology give the same DAG; GO.db-style tables;
obsolete terms replaced or dropped, alternative ids mapped, and the sub-ontology chosen by its roots."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.errors import HierarchyCycleWarning, InputFormatError, KgfsError, UnknownFeatureError
from kg.ontology import term_table
from kg.ontology.read import ontology_format, read_ontology, read_owl, read_term_tables, restrict_to_roots
from tests.strategies import dags

# HP:1 All > HP:118 Phenotypic abnormality > HP:2 (part_of HP:9), HP:3 is_a HP:2 and HP:5 (mode of inheritance)
OBO = """format-version: 1.2
data-version: hp/releases/2099-01-01
default-namespace: human_phenotype

[Term]
id: HP:0000001
name: All

[Term]
id: HP:0000118
name: Phenotypic abnormality
is_a: HP:0000001

[Term]
id: HP:0000002
name: Abnormality of body height
alt_id: HP:0000020
is_a: HP:0000118
relationship: part_of HP:0000009

[Term]
id: HP:0000003
name: Tall stature
is_a: HP:0000002
is_a: HP:0000005

[Term]
id: HP:0000005
name: Mode of inheritance
is_a: HP:0000001

[Term]
id: HP:0000009
name: Body
is_a: HP:0000118

[Term]
id: HP:0000004
name: obsolete Tall
is_obsolete: true
replaced_by: HP:0000003

[Term]
id: HP:0000008
name: obsolete Short
is_obsolete: true
consider: HP:0000002
"""

_C = "http://purl.obolibrary.org/obo/HP_"
OWL = f"""<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#"
    xmlns:owl="http://www.w3.org/2002/07/owl#" xmlns:oboInOwl="http://www.geneontology.org/formats/oboInOwl#"
    xmlns:obo="http://purl.obolibrary.org/obo/">
  <owl:Ontology rdf:about="http://purl.obolibrary.org/obo/hp.owl">
    <owl:versionIRI rdf:resource="http://purl.obolibrary.org/obo/hp/releases/2099-01-01/hp.owl"/>
  </owl:Ontology>
  <owl:ObjectProperty rdf:about="http://purl.obolibrary.org/obo/BFO_0000050">
    <rdfs:label>part of</rdfs:label><oboInOwl:shorthand>part_of</oboInOwl:shorthand>
  </owl:ObjectProperty>
  <owl:Class rdf:about="{_C}0000001"><rdfs:label>All</rdfs:label></owl:Class>
  <owl:Class rdf:about="{_C}0000118"><rdfs:label>Phenotypic abnormality</rdfs:label>
    <rdfs:subClassOf rdf:resource="{_C}0000001"/></owl:Class>
  <owl:Class rdf:about="{_C}0000002"><rdfs:label>Abnormality of body height</rdfs:label>
    <oboInOwl:hasAlternativeId>HP:0000020</oboInOwl:hasAlternativeId>
    <rdfs:subClassOf rdf:resource="{_C}0000118"/>
    <rdfs:subClassOf><owl:Restriction>
      <owl:onProperty rdf:resource="http://purl.obolibrary.org/obo/BFO_0000050"/>
      <owl:someValuesFrom rdf:resource="{_C}0000009"/>
    </owl:Restriction></rdfs:subClassOf>
  </owl:Class>
  <owl:Class rdf:about="{_C}0000003"><rdfs:label>Tall stature</rdfs:label>
    <rdfs:subClassOf rdf:resource="{_C}0000002"/><rdfs:subClassOf rdf:resource="{_C}0000005"/></owl:Class>
  <owl:Class rdf:about="{_C}0000005"><rdfs:label>Mode of inheritance</rdfs:label>
    <rdfs:subClassOf rdf:resource="{_C}0000001"/></owl:Class>
  <owl:Class rdf:about="{_C}0000009"><rdfs:label>Body</rdfs:label>
    <rdfs:subClassOf rdf:resource="{_C}0000118"/></owl:Class>
  <owl:Class rdf:about="{_C}0000004"><rdfs:label>obsolete Tall</rdfs:label>
    <owl:deprecated rdf:datatype="http://www.w3.org/2001/XMLSchema#boolean">true</owl:deprecated>
    <obo:IAO_0100001 rdf:resource="{_C}0000003"/></owl:Class>
  <owl:Class rdf:about="{_C}0000008"><rdfs:label>obsolete Short</rdfs:label>
    <owl:deprecated rdf:datatype="http://www.w3.org/2001/XMLSchema#boolean">true</owl:deprecated>
    <oboInOwl:consider>HP:0000002</oboInOwl:consider></owl:Class>
</rdf:RDF>
"""


@pytest.fixture
def obo(tmp_path):
    p = tmp_path / "hp.obo"
    p.write_text(OBO)
    return p


@pytest.fixture
def owl(tmp_path):
    p = tmp_path / "hp.owl"
    p.write_text(OWL)
    return p


def test_the_form_is_told_from_the_content(obo, owl, tmp_path):
    (tmp_path / "p.tsv").write_text("child\tparent\trelationship_type\nGO:2\tGO:1\tisa\n")
    assert [ontology_format(p) for p in (obo, owl, tmp_path / "p.tsv")] == ["obo", "owl", "tables"]


@pytest.mark.parametrize("relations", [("is_a",), ("is_a", "part_of")])
def test_owl_and_obo_give_the_same_ontology(obo, owl, relations):
    a, b = read_ontology(obo, relations=relations), read_ontology(owl, relations=relations)
    assert sorted(a.hierarchy.edge_list()) == sorted(b.hierarchy.edge_list())
    assert sorted(a.hierarchy.node_ids.tolist()) == sorted(b.hierarchy.node_ids.tolist())
    assert a.alt_ids == b.alt_ids == {"HP:0000020": "HP:0000002"}
    assert a.obsolete == b.obsolete
    assert b.names["HP:0000003"] == "Tall stature"
    assert b.version.endswith("2099-01-01/hp.owl")


def test_owl_relation_by_curie_and_unknown_relation(owl):
    by_curie = read_owl(owl, relations=["is_a", "BFO:0000050"])
    assert ("HP:0000002", "HP:0000009") in by_curie.hierarchy.edge_list()
    with pytest.raises(InputFormatError, match=r"hp\.owl: unknown relation 'regulates' \(relations\)"):
        read_owl(owl, relations=["regulates"])


def test_owl_that_is_not_rdf_names_the_file(tmp_path):
    p = tmp_path / "bad.owl"
    p.write_text("<?xml version='1.0'?>\n<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>\n<oops")
    # refused by the XML scan before the RDF parser (kg.xmlguard), naming the line
    with pytest.raises(InputFormatError, match=r"bad\.owl:3: not well-formed XML \(unclosed token\)"):
        read_owl(p)


@pytest.mark.parametrize("fixture", ["obo", "owl"])
def test_a_root_keeps_its_sub_ontology(fixture, request):
    onto = read_ontology(request.getfixturevalue(fixture), roots="HP:0000118")
    assert sorted(onto.hierarchy.node_ids.tolist()) == ["HP:0000002", "HP:0000003", "HP:0000009", "HP:0000118"]
    # the root's own parent and HP:3's second parent (mode of inheritance) lie outside: dropped and counted
    assert onto.report["edges_leaving_roots"] == 2 and onto.report["n_outside_roots"] == 2
    assert onto.roots == ("HP:0000118",)


def test_annotations_outside_the_root_obsolete_and_alt_ids(obo):
    onto = read_ontology(obo, roots=["HP:0000118"])
    ann = {"d1": ["HP:0000020", "HP:0000005"], "d2": ["HP:0000004"], "d3": ["HP:0000008", "HP:0000009"]}
    t = term_table(onto, ann, on_obsolete="replace")
    assert t.meta["alt_ids_mapped"] == {"HP:0000020": "HP:0000002"}
    assert t.meta["replaced_terms"] == {"HP:0000004": "HP:0000003"}
    assert t.meta["obsolete_dropped"] == ["HP:0000008"]  # consider is a suggestion, not a replacement
    assert t.meta["other_namespace_terms"] == 1  # HP:5 is not under HP:118
    assert "HP:0000005" not in t.feature_names.tolist()
    with pytest.raises(UnknownFeatureError, match=r"obsolete .*replaced_by HP:0000003 \(on_obsolete"):
        term_table(onto, {"d2": ["HP:0000004"]})


def test_a_bad_root_is_refused_naming_the_option(obo):
    onto = read_ontology(obo)
    for root, why in (("HP:0000004", "is obsolete"), ("HP:7", "is not a term of the ontology")):
        with pytest.raises(InputFormatError, match=rf"root '{root}' {why} \(roots\)"):
            restrict_to_roots(onto, [root])


def test_several_roots_and_an_alt_id_as_root(obo):
    onto = read_ontology(obo, roots="HP:0000020+HP:0000005")
    assert sorted(onto.hierarchy.node_ids.tolist()) == ["HP:0000002", "HP:0000003", "HP:0000005"]
    assert sorted(onto.hierarchy.edge_list()) == [("HP:0000003", "HP:0000002"), ("HP:0000003", "HP:0000005")]


def test_go_namespaces_still_work_beside_roots(tmp_path):
    p = tmp_path / "go.obo"
    p.write_text("[Term]\nid: GO:1\nnamespace: biological_process\n\n[Term]\nid: GO:2\nnamespace: biological_process\n"
                 "is_a: GO:1\n\n[Term]\nid: GO:3\nnamespace: biological_process\nis_a: GO:1\n\n"
                 "[Term]\nid: GO:9\nnamespace: cellular_component\n")
    onto = read_ontology(p, namespaces="BP", roots=["GO:2"])
    assert onto.hierarchy.node_ids.tolist() == ["GO:2"]
    with pytest.raises(InputFormatError, match=r"root 'GO:9' is in namespace 'cellular_component'"):
        read_ontology(p, namespaces="BP", roots=["GO:9"])


TABLE_PARENTS = "child\tparent\trelationship_type\tontology\nGO:2\tGO:1\tisa\tBP\nGO:3\tGO:2\tisa\tBP\n" \
                "GO:3\tGO:4\tpart of\tBP\nGO:4\tGO:1\tisa\tBP\nGO:8\tGO:7\tisa\tCC\n"
TABLE_TERMS = "go_id\tontology\tterm\nGO:1\tBP\tbiological_process\nGO:2\tBP\tageing\nGO:3\tBP\tlifespan\n" \
              "GO:4\tBP\tgrowth\nGO:7\tCC\tcomponent\nGO:8\tCC\tnucleus\n"


def test_term_tables(tmp_path):
    (tmp_path / "p.tsv").write_text(TABLE_PARENTS)
    (tmp_path / "t.tsv").write_text(TABLE_TERMS)
    (tmp_path / "o.tsv").write_text("go_id\tontology\tterm\nGO:5\tBP\tobsolete thing\n")
    onto = read_term_tables(tmp_path / "p.tsv", terms=tmp_path / "t.tsv", obsolete=tmp_path / "o.tsv",
                            namespaces="BP")
    assert sorted(onto.hierarchy.edge_list()) == [("GO:2", "GO:1"), ("GO:3", "GO:2"), ("GO:4", "GO:1")]
    assert onto.names["GO:2"] == "ageing" and "GO:5" in onto.obsolete
    both = read_ontology(tmp_path / "p.tsv", relations=["is_a", "part_of"], terms=tmp_path / "t.tsv")
    assert ("GO:3", "GO:4") in both.hierarchy.edge_list()
    t = term_table(onto, {"g": ["GO:3", "GO:8", "GO:5"]}, on_obsolete="drop")
    assert t.feature_names.tolist() == ["GO:1", "GO:2", "GO:3"] and t.meta["other_namespace_terms"] == 1


def test_term_tables_refuse_a_missing_column_and_merge_a_cycle(tmp_path):
    (tmp_path / "p.tsv").write_text("kid\tparent\nGO:2\tGO:1\n")
    with pytest.raises(InputFormatError, match=r"p\.tsv:1: no column 'child' in the header \(ontology\)"):
        read_term_tables(tmp_path / "p.tsv")
    (tmp_path / "c.tsv").write_text("child\tparent\nGO:2\tGO:1\nGO:1\tGO:2\nGO:3\tGO:2\n")
    with pytest.warns(HierarchyCycleWarning, match=r"c\.tsv: .*GO:1 ≡ GO:2"):
        onto = read_term_tables(tmp_path / "c.tsv")
    assert onto.hierarchy.edge_list() == [("GO:3", "GO:1 ≡ GO:2")]
    assert onto.report["merged_cycles"] == {"GO:1 ≡ GO:2": ["GO:1", "GO:2"]}
    t = term_table(onto, {"g": ["GO:2"], "h": ["GO:3"]})
    assert t.X.toarray().tolist() == [[1.0, 0.0], [1.0, 1.0]]


def test_a_real_owl_file_the_dbpedia_ontology(shared_data):
    onto = read_ontology(shared_data / "dbpedia" / "dbpedia_3.9.owl")
    assert onto.hierarchy.n_nodes == 529 and onto.report["format_version"] == "owl"
    # English labels win over the others; superclasses outside the file (owl:Thing, schema.org) are counted
    assert onto.names["http://dbpedia.org/ontology/BasketballLeague"] == "basketball league"
    assert onto.report["dangling_edges"] > 0 and onto.hierarchy.n_edges > 400


@settings(max_examples=60, deadline=None)
@given(dags(max_nodes=14), st.data())
def test_restrict_to_roots_is_the_induced_sub_dag_of_the_descendants(h, data):
    """Against a brute force: the kept terms are the roots and everything below them (over the DAG's edges),
    the edges are exactly those between kept terms, and the leaving ones are counted."""
    from kg.ontology.obo import GeneOntology

    ids = h.node_ids.tolist()
    roots = data.draw(st.lists(st.sampled_from(ids), min_size=1, max_size=3, unique=True))
    below = set(roots)
    changed = True
    while changed:
        changed = False
        for c, p in h.edge_list():
            if p in below and c not in below:
                below.add(c)
                changed = True
    sub = restrict_to_roots(GeneOntology(h, {}, {i: "" for i in ids}, {}, {}), roots)
    assert set(sub.hierarchy.node_ids.tolist()) == below
    assert sorted(sub.hierarchy.edge_list()) == sorted((c, p) for c, p in h.edge_list() if c in below and p in below)
    assert sub.report["edges_leaving_roots"] == sum(1 for c, p in h.edge_list() if c in below and p not in below)


def test_a_new_ontology_format_is_one_class_and_one_registration(tmp_path):
    from kg.ontology.read import ONTOLOGY_READERS, OntologyFormat, read_ontology, read_term_tables

    class Arrows(OntologyFormat):
        """``# arrows`` then ``child -> parent`` lines."""

        priority = 5

        @classmethod
        def claims(cls, first_line):
            return first_line == "# arrows"

        @classmethod
        def read(cls, path, *, relations, namespaces, terms=None, obsolete=None):
            rows = [ln.split(" -> ") for ln in path.read_text().splitlines()[1:] if ln.strip()]
            tsv = tmp_path / "as.tsv"
            tsv.write_text("child\tparent\n" + "".join(f"{c}\t{p}\n" for c, p in rows))
            return read_term_tables(tsv, relations=relations, namespaces=namespaces)

    p = tmp_path / "t.arrows"
    p.write_text("# arrows\nX:2 -> X:1\nX:3 -> X:2\n")
    ONTOLOGY_READERS.register("arrows", Arrows)
    try:
        by_name, detected = read_ontology(p, format="arrows"), read_ontology(p)
        assert sorted(by_name.hierarchy.node_ids) == sorted(detected.hierarchy.node_ids) == ["X:1", "X:2", "X:3"]
    finally:
        ONTOLOGY_READERS.unregister("arrows")
    with pytest.raises(KgfsError, match="unknown ontology format 'arrows'"):
        read_ontology(p, format="arrows")


@pytest.mark.parametrize("form", ["ttl", "owl"])
def test_owl_with_long_language_tags_reads_leniently_its_iris_checked(form, tmp_path, caplog):
    """``@zh-classical`` (a subtag over 8 characters, as Wikidata writes) is refused by pyoxigraph's strict parser
    (issue 37 point 6); the ontology is read again leniently, with kgfs's IRI check, and a warning."""
    obo = "http://purl.obolibrary.org/obo/"
    if form == "ttl":
        text = (f"@prefix owl: <http://www.w3.org/2002/07/owl#> .\n@prefix rdfs: <http://www.w3.org/2000/01/"
                f"rdf-schema#> .\n<{obo}X_1> a owl:Class ; rdfs:label \"root\"@en, \"根\"@zh-classical .\n"
                f"<{obo}X_2> a owl:Class ; rdfs:subClassOf <{obo}X_1> .\n")
    else:
        text = ('<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
                'xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#" xmlns:owl="http://www.w3.org/2002/07/owl#">\n'
                f'<owl:Class rdf:about="{obo}X_1"><rdfs:label xml:lang="en">root</rdfs:label>'
                f'<rdfs:label xml:lang="zh-classical">根</rdfs:label></owl:Class>\n'
                f'<owl:Class rdf:about="{obo}X_2"><rdfs:subClassOf rdf:resource="{obo}X_1"/></owl:Class>\n'
                '</rdf:RDF>\n')
    p = tmp_path / f"t.{form}"
    p.write_text(text)
    with caplog.at_level("WARNING", logger="kg.ontology.read"):
        onto = read_owl(p)
    assert onto.hierarchy.edge_list() == [("X:2", "X:1")] and onto.names["X:1"] == "root"
    assert any("subtag over 8 characters" in r.getMessage() for r in caplog.records)
    p.write_text(text.replace(f"{obo}X_2", f"{obo}X 2", 1))
    with pytest.raises(InputFormatError, match=r"invalid IRI 'http://purl\.obolibrary\.org/obo/X 2'"):
        read_owl(p)
