"""Relations as hierarchical features, worked by hand on a tiny literal graph, from every source.

The graph: alice was born in Lyon (a City), works for Acme (a Company), knows bob (a Person); bob was
born in Paris (a Capital). Capital < City < Place; birthPlace is a subproperty of place. A literal
(``name``) and the typing predicate are not relations. The same table must come out of an
``rdflib.Graph``, the streamed dump, the dump index and an Oxigraph SPARQL server on 127.0.0.1.
"""

import shutil
from pathlib import Path

import pytest
import rdflib

from kg.cycles import EdgeArrays, edge_nodes
from kg.errors import EmptyTableError, KgfsError
from kg.rdf.corpus import Corpus
from kg.rdf.kinds import FeatureSpec, parse_kinds
from kg.rdf.relations import (
    RelationOptions,
    kind_of,
    parse_relation_id,
    relation_edges,
    relation_facts,
    relation_id,
    short,
)
from kg.rdf.sources.dump import DumpSource
from kg.rdf.sources.rdflib_graph import RdflibSource
from kg.rdf.sources.sparql import SparqlSource
from kg.rdf.table import assemble_table
from kg.rdf.vocabulary import RDF, RDFS, Vocabulary
from tests.kg.conftest import Generic, assert_same_table
from tests.kg.servers import OxigraphServer
from tests.strategies import hub_graphs

EX, ONT = "http://ex.org/", "http://ex.org/o/"
VOCAB = Vocabulary("ex", type_namespaces=(ONT,), relations=(ONT,), entities=(EX,))

TRIPLES = [
    ("alice", "birthPlace", "lyon"), ("alice", "worksFor", "acme"), ("alice", "knows", "bob"),
    ("alice", "knows", "carol"), ("bob", "birthPlace", "paris"),
]
TYPES = [("alice", "Person"), ("bob", "Person"), ("carol", "Person"), ("lyon", "City"), ("paris", "Capital"),
         ("acme", "Company")]
SUBCLASS = [("Capital", "City"), ("City", "Place")]


def _nt() -> str:
    lines = [f"<{EX}{s}> <{ONT}{p}> <{EX}{o}> ." for s, p, o in TRIPLES]
    lines += [f"<{EX}{s}> <{RDF}type> <{ONT}{c}> ." for s, c in TYPES]
    lines += [f"<{ONT}{c}> <{RDFS}subClassOf> <{ONT}{p}> ." for c, p in SUBCLASS]
    lines += [f"<{ONT}birthPlace> <{RDFS}subPropertyOf> <{ONT}place> .",
              f'<{EX}alice> <{ONT}name> "Alice" .']
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def nt_file(tmp_path_factory):
    p = tmp_path_factory.mktemp("rel") / "tiny.nt"
    p.write_text(_nt(), encoding="utf-8")
    return p


@pytest.fixture(scope="module")
def tiny_server(tmp_path_factory, nt_file):
    if shutil.which("oxigraph") is None:
        pytest.skip("the oxigraph server binary (pip install oxigraph) is not installed")
    srv = OxigraphServer([nt_file], tmp_path_factory.mktemp("rel-oxi")).start()
    yield srv
    srv.stop()


def _sources(nt_file, server=None, tmp_path=None):
    out = {"rdflib": RdflibSource(rdflib.Graph().parse(data=_nt(), format="nt"), vocabulary=VOCAB),
           "streamed": DumpSource(nt_file, vocabulary=VOCAB)}
    if server is not None:
        out["sparql"] = SparqlSource(server.url, vocabulary=VOCAB, batch_size=1)
    if tmp_path is not None:
        try:
            from kg.rdf.index.dumpindex import DumpIndex
            from kg.rdf.sources.index import IndexSource

            index = DumpIndex(tmp_path / "index")
            src = IndexSource(nt_file, index, vocabulary=VOCAB.with_relations())
            if hasattr(src, "relations"):
                out["index"] = src
        except ImportError:  # pragma: no cover
            pass
    return out


def _rows(table) -> dict[str, list[str]]:
    names = [short(f) for f in table.feature_names]
    return {i: sorted(names[j] for j in table.X[r].indices) for r, i in enumerate(table.instance_ids)}


CORPUS = Corpus(ids=["a", "b"], entities=[[EX + "alice"], [EX + "bob"]], labels=[1, 0])

QUALIFIED_OUT = {
    "a": ["out:birthPlace", "out:birthPlace|City", "out:birthPlace|Place", "out:knows", "out:knows|Person",
          "out:place", "out:place|City", "out:place|Place", "out:worksFor", "out:worksFor|Company"],
    "b": ["out:birthPlace", "out:birthPlace|Capital", "out:birthPlace|City", "out:birthPlace|Place", "out:place",
          "out:place|Capital", "out:place|City", "out:place|Place"],
}


def test_qualified_relations_by_hand_from_every_source(nt_file, tiny_server, tmp_path):
    for name, src in _sources(nt_file, tiny_server, tmp_path).items():
        t = assemble_table(CORPUS, None, src, features="qualified-relations")
        assert _rows(t) == QUALIFIED_OUT, name
        h = t.hierarchy
        assert set(h.parents(relation_id("out", ONT + "birthPlace", ONT + "Capital"))) == {
            relation_id("out", ONT + "birthPlace", ONT + "City"),
            relation_id("out", ONT + "place", ONT + "Capital")}, name
        assert set(h.parents(relation_id("out", ONT + "birthPlace"))) == {relation_id("out", ONT + "place")}, name
        assert t.meta["relations"]["direction"] == "out"


COUNTS_OUT = {"a": {"out:birthPlace": 1, "out:birthPlace|City": 1, "out:birthPlace|Place": 1, "out:knows": 2,
                     "out:knows|Person": 2, "out:place": 1, "out:place|City": 1, "out:place|Place": 1,
                     "out:worksFor": 1, "out:worksFor|Company": 1},
              "b": {f: 1 for f in QUALIFIED_OUT["b"]}}


def _counts(table) -> dict[str, dict[str, int]]:
    names = [short(f) for f in table.feature_names]
    v = table.values
    return {i: {names[j]: int(x) for j, x in zip(v[r].indices, v[r].data)} for r, i in enumerate(table.instance_ids)}


def test_counts_by_hand_from_every_source(nt_file, tiny_server, tmp_path):
    spec = FeatureSpec.of("qualified-relations", values="count")
    for name, src in _sources(nt_file, tiny_server, tmp_path).items():
        t = assemble_table(CORPUS, None, src, features=spec)
        assert _counts(t) == COUNTS_OUT, name
        assert _rows(t) == QUALIFIED_OUT, name  # X: their presence
    two = Corpus(ids=["ab"], entities=[[EX + "alice", EX + "bob"]], labels=[1])  # an instance's entities add up
    t = assemble_table(two, None, _sources_rdflib(), features=FeatureSpec.of(["types", "relations"], values="count"))
    assert _counts(t) == {"ab": {"Person": 1, "out:birthPlace": 2, "out:knows": 2, "out:place": 2,
                                 "out:worksFor": 1}}


def test_counts_through_the_stored_steps(nt_file, tmp_path):
    from kg.rdf.route import CorpusInput
    from kg.routes import build_table as route_table
    from kg.routes.base import Context

    preset = tmp_path / "ex.toml"
    preset.write_text(f'type_namespaces = ["{ONT}"]\nrelations = ["{ONT}"]\nentities = ["{EX}"]\n', encoding="utf-8")
    corpus = tmp_path / "c.csv"
    corpus.write_text(f"id,e,label\na,{EX}alice,1\nb,{EX}bob,0\n", encoding="utf-8")
    inp = CorpusInput.from_options({"corpus": corpus, "dump": [nt_file], "preset": str(preset),
                                    "entity_columns": ["e"], "features": ["qualified-relations"], "values": "count"})
    t = route_table(inp, Context(tmp_path / "home", batch_size=1))  # one entity per batch: the groups are merged
    assert _counts(t) == COUNTS_OUT and t.meta["relations"]["values"] == "count"


def test_unqualified_relations_in_each_direction():
    src = _sources_rdflib()
    out = assemble_table(CORPUS, None, src, features="relations")
    assert _rows(out) == {"a": ["out:birthPlace", "out:knows", "out:place", "out:worksFor"],
                          "b": ["out:birthPlace", "out:place"]}
    into = assemble_table(CORPUS, None, src, features=FeatureSpec.of("relations", direction="in"))
    assert _rows(into) == {"a": [], "b": ["in:knows"]}
    assert _counts(assemble_table(CORPUS, None, src, features=FeatureSpec.of("relations", values="count")))["a"] == {
        "out:birthPlace": 1, "out:knows": 2, "out:place": 1, "out:worksFor": 1}
    both = assemble_table(CORPUS, None, src, features=FeatureSpec.of("qualified-relations", direction="both"))
    assert _rows(both) == {"a": QUALIFIED_OUT["a"], "b": ["in:knows", "in:knows|Person", *QUALIFIED_OUT["b"]]}


def _sources_rdflib():
    return RdflibSource(rdflib.Graph().parse(data=_nt(), format="nt"), vocabulary=VOCAB)


def test_an_excluded_property_takes_its_subproperties_with_it():
    spec = FeatureSpec.of("qualified-relations", exclude=[ONT + "place"])
    t = assemble_table(CORPUS, None, _sources_rdflib(), features=spec)
    assert _rows(t)["a"] == ["out:knows", "out:knows|Person", "out:worksFor", "out:worksFor|Company"]
    assert not any("place" in f.lower() for f in t.feature_names)
    assert t.meta["relations"]["excluded_predicates"] == [ONT + "birthPlace"]


def test_several_kinds_make_one_closed_table_whose_ids_say_their_kind():
    t = assemble_table(CORPUS, None, _sources_rdflib(), features=["types", "relations"])
    kinds = {kind_of(f) for f in t.feature_names}
    assert kinds == {"types", "relations"}
    assert "type:" + ONT + "Person" in t.feature_names and "out:" + ONT + "knows" in t.feature_names
    assert t.meta["features"] == ["types", "relations"]
    single = assemble_table(CORPUS, None, _sources_rdflib(), features="types")
    assert list(single.feature_names) == [ONT + "Person"]  # one kind: the ids as they always were


def test_feature_ids_read_back():
    fid = relation_id("in", ONT + "p", ONT + "C")
    assert parse_relation_id(fid) == ("in", ONT + "p", ONT + "C")
    assert parse_relation_id(ONT + "C") is None and kind_of("category:" + ONT + "C") == "categories"
    assert parse_kinds(["relations", "qualified-relations"]) == ("qualified-relations",)


def test_bad_options_are_named():
    with pytest.raises(KgfsError, match="^direction must be out, in or both"):
        RelationOptions("sideways")
    with pytest.raises(KgfsError, match="does not answer relation questions"):
        relation_facts(["x"], object(), qualified=False)
    with pytest.raises(KgfsError, match="names no relation predicates"):
        Vocabulary("x").with_relations()
    with pytest.raises(KgfsError, match="^values='count' counts relations: give features='relations' or"):
        FeatureSpec.of("types", values="count")
    with pytest.raises(KgfsError, match="^values must be binary or count"):
        RelationOptions(values="some")


# ------------------------------------------------------------------ property-based: the definition, brute force
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

N_ENT, N_CLS, N_PROP = 5, 5, 4


@st.composite
def graphs(draw):
    """Entities e0.., classes c0.. (acyclic: a class's parents have larger numbers), properties p0.. (acyclic
    subPropertyOf likewise), relation triples, types of the entities, and maybe an excluded property."""
    sub = {(i, j) for i in range(N_CLS) for j in range(i + 1, N_CLS) if draw(st.booleans()) and draw(st.booleans())}
    subp = {(i, j) for i in range(N_PROP) for j in range(i + 1, N_PROP) if draw(st.integers(0, 3)) == 0}
    types = {(e, c) for e in range(N_ENT) for c in range(N_CLS) if draw(st.integers(0, 3)) == 0}
    triples = draw(st.sets(st.tuples(st.integers(0, N_ENT - 1), st.integers(0, N_PROP - 1),
                                     st.integers(0, N_ENT - 1)), max_size=10))
    exclude = draw(st.sampled_from([None, *range(N_PROP)]))
    direction = draw(st.sampled_from(["out", "in", "both"]))
    return sub, subp, types, triples, exclude, direction


def _up(edges, start):
    """start and every node above it (reflexive-transitive closure, brute force)."""
    seen, todo = {start}, [start]
    while todo:
        x = todo.pop()
        for c, p in edges:
            if c == x and p not in seen:
                seen.add(p)
                todo.append(p)
    return seen


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_qualified_relations_follow_their_definition(g):
    sub, subp, types, triples, exclude, direction = g
    e, c, p = (lambda i: f"{EX}e{i}"), (lambda i: f"{ONT}c{i}"), (lambda i: f"{ONT}p{i}")
    graph = rdflib.Graph()
    U = rdflib.URIRef
    for a, b in sub:
        graph.add((U(c(a)), U(RDFS + "subClassOf"), U(c(b))))
    for a, b in subp:
        graph.add((U(p(a)), U(RDFS + "subPropertyOf"), U(p(b))))
    for a, b in types:
        graph.add((U(e(a)), U(RDF + "type"), U(c(b))))
    for s, q, o in triples:
        graph.add((U(e(s)), U(p(q)), U(e(o))))
    excluded = set() if exclude is None else {q for q in range(N_PROP) if exclude in _up(subp, q)}
    spec = FeatureSpec.of("qualified-relations", direction=direction, exclude=[] if exclude is None else [p(exclude)])
    corpus = Corpus(ids=[str(i) for i in range(N_ENT)], entities=[[e(i)] for i in range(N_ENT)], labels=[0] * N_ENT)
    want = {str(i): set() for i in range(N_ENT)}
    for s, q, o in triples:
        if q in excluded:
            continue
        for d, me, other in (("out", s, o), ("in", o, s)):
            if direction not in (d, "both"):
                continue
            for q2 in _up(subp, q):
                want[str(me)].add(relation_id(d, p(q2)))
                for t in {b for a, b in types if a == other}:
                    for t2 in _up(sub, t):
                        want[str(me)].add(relation_id(d, p(q2), c(t2)))
    if not any(want.values()):
        with pytest.raises(KgfsError, match="no qualified-relations found"):
            assemble_table(corpus, None, RdflibSource(graph, vocabulary=VOCAB), features=spec)
        return
    t = assemble_table(corpus, None, RdflibSource(graph, vocabulary=VOCAB), features=spec)  # raises unless closed
    names = list(t.feature_names)
    got = {i: {names[j] for j in t.X[r].indices} for r, i in enumerate(t.instance_ids)}
    assert got == want


# ------------------------------------------------------------------ real Wikidata: CoDEx people, four sources
@pytest.fixture(scope="module")
def people(shared_data):
    import csv

    from kg.rdf.vocabulary import WIKIDATA

    rows = list(csv.DictReader(open(Path(__file__).parents[3] / "datasets" / "bundled" / "codex-people" / "people.csv",
                                    encoding="utf-8")))
    return Corpus(ids=[r["id"] for r in rows], entities=[[WIKIDATA.expand_entity(r["entity"])] for r in rows],
                  labels=[r["label"] for r in rows])


@pytest.mark.slow  # 45 s: rdflib parses the 329,625 triples, Oxigraph loads them
def test_the_codex_relation_tables_are_the_same_from_every_source(tmp_path_factory, codex, people):
    import gzip

    from kg.rdf.index.dumpindex import DumpIndex
    from kg.rdf.sources.index import IndexSource
    from kg.rdf.vocabulary import WDT, WIKIDATA

    graph = rdflib.Graph()
    with gzip.open(codex, "rt", encoding="utf-8") as fh:
        graph.parse(data=fh.read(), format="nt")
    sources = {"rdflib": RdflibSource(graph, vocabulary=WIKIDATA), "streamed": DumpSource(codex, vocabulary=WIKIDATA)}
    if hasattr(IndexSource, "relations"):
        sources["index"] = IndexSource(codex, DumpIndex(tmp_path_factory.mktemp("rel-index")),
                                       vocabulary=WIKIDATA.with_relations())
    server = None
    if shutil.which("oxigraph") is not None:
        d = tmp_path_factory.mktemp("rel-codex-oxi")
        (d / "codex.nt").write_bytes(gzip.decompress(codex.read_bytes()))
        server = OxigraphServer([d / "codex.nt"], d).start()
        sources["sparql"] = SparqlSource(server.url, vocabulary=WIKIDATA, batch_size=400)
    try:
        spec = FeatureSpec.of(["types", "qualified-relations"], direction="both", exclude=[WDT + "P27"])
        tables = {name: assemble_table(people, None, src, features=spec) for name, src in sources.items()}
    finally:
        if server is not None:
            server.stop()
    first = tables["rdflib"]
    assert first.n_features > 5000 and first.meta["relations"]["n_relations"] > 80000
    assert not any(WDT + "P27" in f for f in first.feature_names)  # the label's property is out
    kinds = {kind_of(f) for f in first.feature_names}
    assert kinds == {"types", "relations", "qualified-relations"}
    for name, t in tables.items():
        assert_same_table(first, t)
        assert t.meta["relations"]["n_relations"] == first.meta["relations"]["n_relations"], name


def test_wikidata_states_subproperties_of_the_property_entities(tmp_path, tiny_server_wd):
    """``wd:P19 wdt:P1647 wd:P276``: the walk goes through the property's entity and the edge comes back between the
    predicates ``wdt:P19`` -> ``wdt:P276``, from every source."""
    from kg.rdf.index.dumpindex import DumpIndex
    from kg.rdf.sources.index import IndexSource
    from kg.rdf.vocabulary import WD, WDT, WIKIDATA

    path, text = tiny_server_wd.files
    sources = {"rdflib": RdflibSource(rdflib.Graph().parse(data=text, format="nt"), vocabulary=WIKIDATA),
               "streamed": DumpSource(path, vocabulary=WIKIDATA),
               "index": IndexSource(path, DumpIndex(tmp_path / "i"), vocabulary=WIKIDATA.with_relations()),
               "sparql": SparqlSource(tiny_server_wd.url, vocabulary=WIKIDATA)}
    corpus = Corpus(ids=["q1"], entities=[[WD + "Q1"]], labels=[1])
    for name, src in sources.items():
        assert src.property_edges([WDT + "P19"]) == {(WDT + "P19", WDT + "P276")}, name
        t = assemble_table(corpus, None, src, features="qualified-relations")
        assert _rows(t) == {"q1": ["out:P19", "out:P19|Q515", "out:P276", "out:P276|Q515"]}, name


@pytest.fixture(scope="module")
def tiny_server_wd(tmp_path_factory):
    from kg.rdf.vocabulary import WD, WDT

    if shutil.which("oxigraph") is None:
        pytest.skip("the oxigraph server binary (pip install oxigraph) is not installed")
    d = tmp_path_factory.mktemp("rel-wd")
    text = (f"<{WD}Q1> <{WDT}P19> <{WD}Q2> .\n<{WD}Q2> <{WDT}P31> <{WD}Q515> .\n"
            f"<{WD}P19> <{WDT}P1647> <{WD}P276> .\n<{WD}Q1> <{WDT}P1477> \"a name\" .\n")
    (d / "wd.nt").write_text(text, encoding="utf-8")
    srv = OxigraphServer([d / "wd.nt"], d).start()
    srv.files = (d / "wd.nt", text)
    yield srv
    srv.stop()


# ------------------------------------------------------------------ issue 39 point 2: hubs through index arrays
def _index_source(folder, files):
    from kg.rdf.index.dumpindex import DumpIndex
    from kg.rdf.sources.index import IndexSource
    from kg.rdf.vocabulary import WIKIDATA

    dump = folder / "dump"
    dump.mkdir()
    for i, text in enumerate(files):
        if text:
            (dump / f"part{i}.nt").write_text(text, encoding="utf-8")
    return IndexSource(sorted(dump.iterdir()), DumpIndex(folder / "index"), vocabulary=WIKIDATA.with_relations())


def _sorted_groups(groups):
    return {e: sorted(gs) for e, gs in groups.items()}


@settings(max_examples=40, deadline=None)
@given(graph=hub_graphs(), direction=st.sampled_from(["out", "in", "both"]), qualified=st.booleans(),
       exclude=st.sampled_from([(), ("http://www.wikidata.org/prop/direct/P50",)]))
def test_the_index_arrays_give_the_generic_features_counts_and_report(tmp_path_factory, graph, direction, qualified,
                                                                     exclude):
    """On random small graphs with a hub, in one to three files: the IndexSource's relation_tally path gives the same
    direct features, relation groups (as multisets: what the counts are made of), report and table with counts as
    the generic path (relations + types) over the same source."""
    from kg.rdf.relations import relation_features, relation_groups

    files, entities = graph
    src = _index_source(tmp_path_factory.mktemp("hub"), files)
    options = RelationOptions(direction, exclude=exclude)
    assert relation_features(entities, src, qualified=qualified, options=options) == \
        relation_features(entities, Generic(src), qualified=qualified, options=options)
    assert _sorted_groups(relation_groups(entities, src, qualified=qualified, options=options)) == \
        _sorted_groups(relation_groups(entities, Generic(src), qualified=qualified, options=options))
    corpus = Corpus(ids=[f"i{k}" for k in range(len(entities))], entities=[[e] for e in entities],
                    labels=[k % 2 for k in range(len(entities))])
    spec = FeatureSpec.of("qualified-relations" if qualified else "relations", direction=direction, exclude=exclude,
                          values="count")
    try:
        fast = assemble_table(corpus, None, src, features=spec)
    except EmptyTableError:
        with pytest.raises(EmptyTableError):
            assemble_table(corpus, None, Generic(src), features=spec)
        return
    slow = assemble_table(corpus, None, Generic(src), features=spec)
    assert_same_table(fast, slow)
    assert (fast.values != slow.values).nnz == 0
    assert fast.meta["relations"] == slow.meta["relations"]


def test_a_hub_in_links_are_counted_by_their_classes(tmp_path):
    """A hub with 300 in-links from 3 kinds of subjects: its in-features are 3 predicates x classes, its counts the
    number of subjects of each; the same as the generic path."""
    from kg.rdf.relations import relation_features
    from kg.rdf.vocabulary import WD, WDT

    lines = []
    for i in range(300):
        lines.append(f"<{WD}Q{10 + i}> <{WDT}P{19 + i % 3}> <{WD}Q1> .")
        lines.append(f"<{WD}Q{10 + i}> <{WDT}P31> <{WD}Q{500 + i % 2}> .")
    lines.append(f"<{WD}Q500> <{WDT}P279> <{WD}Q600> .")
    src = _index_source(tmp_path, ["\n".join(lines) + "\n"])
    options = RelationOptions("in")
    facts, report = relation_features([WD + "Q1"], src, qualified=True, options=options)
    assert len(facts[WD + "Q1"]) == 3 + 3 * 2 and report["n_relations"] == 300 and report["n_classes"] == 2
    assert (facts, report) == relation_features([WD + "Q1"], Generic(src), qualified=True, options=options)
    corpus = Corpus(ids=["hub", "leaf"], entities=[[WD + "Q1"], [WD + "Q10"]], labels=[0, 1])
    spec = FeatureSpec.of("qualified-relations", direction="both", values="count")
    t = assemble_table(corpus, None, src, features=spec)
    values = dict(zip(t.feature_names.tolist(), t.values.toarray()[0].tolist()))
    assert values[f"in:{WDT}P19"] == 100 and values[f"in:{WDT}P19|{WD}Q600"] == 50  # Q500's subjects, i % 6 == 0
    g = assemble_table(corpus, None, Generic(src), features=spec)
    assert_same_table(t, g)
    assert (t.values != g.values).nnz == 0


# ------------------------------------------------------------------ the edges above relation features, as arrays
class _Graphs:
    """A source answering the two edge questions with whole graphs (the walk keeps what is above)."""

    def __init__(self, subp, sub):
        self._subp, self._sub = subp, sub

    def property_edges(self, preds):
        return set(self._subp)

    def class_edges(self, classes):
        return set(self._sub)


def _edges_by_definition(d, met, subp, sub):
    """relation_edges' edges from their definition, one node at a time (brute force)."""
    preds = set().union(*(_up(subp, q) for q in met)) if met else set()
    out = {(relation_id(d, a), relation_id(d, b)) for a, b in subp if a in preds}
    for q in preds:
        classes = set().union(*(cs for p, cs in met.items() if q in _up(subp, p)), set())
        for c in set().union(*(_up(sub, x) for x in classes), set()):
            parents = {b for a, b in sub if a == c}
            out |= {(relation_id(d, q, c), relation_id(d, q, b)) for b in parents}
            if not parents:
                out.add((relation_id(d, q, c), relation_id(d, q)))
            out |= {(relation_id(d, q, c), relation_id(d, r, c)) for a, r in subp if a == q}
    return out


@settings(max_examples=150, deadline=None)
@given(st.sets(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=12),
       st.sets(st.tuples(st.integers(0, 4), st.integers(0, 4)), max_size=6),
       st.dictionaries(st.integers(0, 4), st.sets(st.integers(0, 5), max_size=3), max_size=4),
       st.sampled_from([("out",), ("in",), ("out", "in")]))
def test_relation_edges_are_their_definition_on_graphs_with_cycles(sub, subp, met, directions):
    """Class and property graphs with cycles and self-loops, predicates met with classes or without: the edges
    computed as arrays (sparse closures) are the ones the definition gives node by node."""
    sub = {(f"c{a}", f"c{b}") for a, b in sub}
    subp = {(f"p{a}", f"p{b}") for a, b in subp}
    met = {f"p{q}": {f"c{c}" for c in cs} for q, cs in met.items()}
    features = [relation_id(d, q) for d in directions for q in met]
    features += [relation_id(d, q, c) for d in directions for q, cs in met.items() for c in cs]
    got = relation_edges(features, _Graphs(subp, sub))
    want = set().union(*(_edges_by_definition(d, met, subp, sub) for d in directions))
    assert isinstance(got, EdgeArrays) and got == want and len(got) == len(want)
    assert edge_nodes(got) == {x for e in want for x in e}
    at = {x: i for i, x in enumerate(got.names)}
    assert len(at) == len(got.names)  # distinct (taken unchecked from the generator)
    # a node that is a direct feature is named by that very string (the facts hold it), not by a copy
    assert all(got.names[at[f]] is f for f in features if f in at)
