"""Wikidata through the RDF route, on real Wikidata: ``codex_truthy.nt.gz`` (the truthy dump's shape).

The type table of the CoDEx-M entities (entity column of QIDs) is built through the dump index, the
streamed dump, an ``rdflib.Graph`` and an Oxigraph SPARQL server on 127.0.0.1, and the four tables are
identical, the cycles of the real P279 subgraph merged the same way (each into one feature holding its
members). The cycles the ingest reports are
those networkx finds in the P279 graph's own JSON (an independent copy of the same data). Bridges: the
real DBpedia ontology's ``owl:equivalentClass`` links to Wikidata, and ``owl:sameAs`` links.
"""

import csv
import gzip
import json
import shutil
import warnings

import networkx as nx
import numpy as np
import pytest

from kg.errors import HierarchyCycleWarning, InputFormatError
from kg.rdf.annotators.lexicon import LexiconAnnotator
from kg.rdf.corpus import Corpus
from kg.rdf.index.dumpindex import DumpIndex
from kg.rdf.route import CorpusInput
from kg.rdf.sources.bridge import EquivalentClassSource, SameAsSource
from kg.rdf.sources.dump import DumpSource
from kg.rdf.sources.index import IndexSource
from kg.rdf.sources.rdflib_graph import RdflibSource
from kg.rdf.sources.sparql import SparqlSource
from kg.rdf.table import assemble_table
from kg.rdf.vocabulary import DBPEDIA, WIKIDATA
from kg.routes import build_table as route_table
from kg.routes.base import Context
from tests.kg.conftest import assert_same_table
from tests.kg.servers import FaultyProxy, OxigraphServer

WD, WDT = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
LABEL, ALT = "http://www.w3.org/2000/01/rdf-schema#label", "http://www.w3.org/2004/02/skos/core#altLabel"
ABOUT, SAME = "http://schema.org/about", "http://www.w3.org/2002/07/owl#sameAs"


@pytest.fixture(scope="module")
def codex_m(shared_data):
    """The CoDEx-M entities that have P31 classes, sorted; labelled human (P31 Q5) or not."""
    types = json.loads((shared_data / "wikidata" / "codex" / "entity2types.json").read_text())
    ents = set()
    for part in ("train", "valid", "test"):
        for row in open(shared_data / "wikidata" / "codex" / "triples" / "codex-m" / f"{part}.txt"):
            h, _, t = row.split()
            ents.update((h, t))
    ents = sorted(e for e in ents if e in types)
    return ents, ["human" if "Q5" in types[e] else "other" for e in ents]


@pytest.fixture(scope="module")
def codex_index(tmp_path_factory, codex):
    index = DumpIndex(tmp_path_factory.mktemp("wd-index"))
    report = index.ingest(codex, vocabulary=WIKIDATA)
    return index, report


@pytest.fixture(scope="module")
def codex_server(tmp_path_factory, codex):
    if shutil.which("oxigraph") is None:
        pytest.skip("the oxigraph server binary (pip install oxigraph) is not installed")
    d = tmp_path_factory.mktemp("wd-oxi")
    (d / "codex.nt").write_bytes(gzip.decompress(codex.read_bytes()))
    srv = OxigraphServer([d / "codex.nt"], d).start()
    yield srv
    srv.stop()


def _corpus(codex_m) -> Corpus:
    ents, labels = codex_m
    # the forms an entity column may hold: Q42, wd:Q42 and the IRI
    forms = [(lambda q: q, lambda q: "wd:" + q, lambda q: WD + q)[i % 3](q) for i, q in enumerate(ents)]
    return Corpus(ids=ents, entities=[[WIKIDATA.expand_entity(f)] for f in forms], labels=labels)


def _built(corpus, source):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HierarchyCycleWarning)
        table = assemble_table(corpus, None, source)
    return table, [w for w in caught if issubclass(w.category, HierarchyCycleWarning)]


def test_the_codex_type_table_is_the_same_from_the_index_the_dump_rdflib_and_sparql(
        codex, codex_m, codex_index, codex_server):
    import rdflib

    corpus = _corpus(codex_m)
    index, _ = codex_index
    graph = rdflib.Graph()
    with gzip.open(codex, "rt", encoding="utf-8") as fh:
        graph.parse(data=fh.read(), format="nt")
    sources = {"index": IndexSource(codex, index, vocabulary=WIKIDATA),
               "streamed": DumpSource(codex, vocabulary=WIKIDATA),
               "rdflib": RdflibSource(graph, vocabulary=WIKIDATA),
               "sparql": SparqlSource(codex_server.url, vocabulary=WIKIDATA, batch_size=400)}
    tables = {name: _built(corpus, src) for name, src in sources.items()}
    first, warned = tables["index"]
    assert first.shape == (len(codex_m[0]), first.n_features) and first.n_features > 1000
    # the real P279 cycles were met and merged (subclass-of is transitive: none broken, no ancestor lost)
    assert first.meta["merged_cycles"] and warned and first.meta["removed_cycle_edges"] == []
    assert first.meta["cycles"] == {"types": "merge"}
    assert all(len(ms) >= 2 and first.hierarchy.lookup(ms[0]) == k for k, ms in first.meta["merged_cycles"].items())
    for name, (t, _) in tables.items():
        assert_same_table(first, t)
        assert t.meta["merged_cycles"] == first.meta["merged_cycles"], name
    assert tables["streamed"][0].meta["source"]["vocabulary"] == "wikidata"
    # the classes are Wikidata's and the table is closed: every entity typed Q5 has Q5 (and so do those of its
    # subclasses), and every ancestor of Q5 (Q215627 person, ...)
    names = list(first.feature_names)
    q5 = first.X[:, names.index(WD + "Q5")].toarray().ravel().astype(bool)
    humans = np.asarray([y == "human" for y in first.y])
    assert (q5 >= humans).all() and humans.sum() > 10000
    above = first.hierarchy.ancestors(WD + "Q5")
    assert WD + "Q215627" in above  # person
    for parent in above:
        assert (first.X[:, names.index(parent)].toarray().ravel().astype(bool) >= q5).all()


def test_the_ingest_reports_the_p279_cycles_networkx_finds(shared_data, codex_index):
    _, report = codex_index
    (f,) = report["files"]
    g = json.loads((shared_data / "wikidata" / "p279" / "graph_10000.json").read_text())
    graph = nx.DiGraph((link["target"], link["source"]) for link in g["links"])  # subclass -> superclass
    sccs = sorted(sorted(WD + q for q in c) for c in nx.strongly_connected_components(graph) if len(c) > 1)
    listed = [sorted(line.split("\t")) for line in open(f["cycles"]["subclass"]["file"], encoding="utf-8")
              .read().splitlines()]
    assert sorted(listed) == sccs and len(sccs) == 14
    assert f["cycles"]["subclass"] == {**f["cycles"]["subclass"], "cycles": 14, "nodes": sum(map(len, sccs))}
    assert f["counts"]["subclass"] == len(g["links"]) and f["counts"]["types"] == 93102
    assert f["lines"] == 329625 and f["triples"] < f["lines"]  # the lines of unused predicates were never parsed


def test_the_route_with_the_wikidata_preset_builds_the_same_table(tmp_path, codex, codex_m, codex_index):
    ents, labels = codex_m
    p = tmp_path / "codex.csv"
    with open(p, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "qid", "label"])
        w.writerows([e, e if i % 2 else "wd:" + e, y] for i, (e, y) in enumerate(zip(ents, labels)))
    inp = CorpusInput.from_options({"corpus": p, "entity_columns": ["qid"], "preset": "wikidata", "dump": [codex]})
    assert inp.check(Context(tmp_path / "home"))["classes"] == dict(sorted({y: labels.count(y)
                                                                             for y in set(labels)}.items()))
    assert inp.source_inputs()["vocabulary"]["name"] == "wikidata"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HierarchyCycleWarning)
        table = route_table(inp, Context(tmp_path / "home"))
        direct, _ = _built(_corpus(codex_m), IndexSource(codex, codex_index[0], vocabulary=WIKIDATA))
    assert_same_table(direct, table)
    assert table.meta["merged_cycles"] == direct.meta["merged_cycles"] and table.meta["merged_cycles"]


def test_a_small_spill_budget_builds_the_same_index(tmp_path, codex, codex_m, codex_index):
    small = DumpIndex(tmp_path / "small", spill_bytes=1 << 16)  # many sorted runs, merged
    ents = [WD + q for q in codex_m[0][:3000]]
    a, b = IndexSource(codex, codex_index[0], vocabulary=WIKIDATA), IndexSource(codex, small, vocabulary=WIKIDATA)
    types = a.types(ents)
    assert types == b.types(ents) and sum(map(len, types.values())) > 3000
    classes = set().union(*types.values())
    assert a.class_edges(classes) == b.class_edges(classes)
    la, lb = codex_index[0].lexicon(codex, vocabulary=WIKIDATA), small.lexicon(codex, vocabulary=WIKIDATA)
    assert {k: v for k, v in la.stats.items() if k != "segments"} == \
        {k: v for k, v in lb.stats.items() if k != "segments"}
    texts = ["a human and a city", "the football club of the university", "film actor, singer and politician"]
    assert la.annotate(texts) == lb.annotate(texts) and any(la.annotate(texts))


# ------------------------------------------------------------------------------------ the lexicon
def _wd_dump(tmp_path, name="wd.nt.gz"):
    lines = [
        f'<{WD}Q90> <{LABEL}> "Paris"@en .', f'<{WD}Q90> <{LABEL}> "Paris"@de .',
        f'<{WD}Q90> <{ALT}> "City of Light"@en .', f'<{WD}Q90> <{ALT}> "Lichterstadt"@de .',
        f'<{WD}Q90> <{WDT}P31> <{WD}Q515> .',
        f'<{WD}Q167646> <{LABEL}> "Paris"@en .', f'<{WD}Q167646> <{LABEL}> "Paris (Texas)"@de .',
        f'<{WD}Q515> <{LABEL}> "city"@en .', f'<{WD}Q515> <{LABEL}> "Stadt"@de .',
        f'<{WD}P31> <{LABEL}> "instance of"@en .',  # a property: no entity of the lexicon
        f'<{WD}Q1> <{LABEL}> "Universe"@en-gb .',  # another language than en
        f'<{WD}Q2> <{LABEL}> "Earth" .',  # untagged: kept
        f'<{WD}Q90> <http://schema.org/description> "capital of France"@en .',
    ]
    for site in ("en", "de", "fr"):  # sitelinks: Q90 is the Paris most pages mean
        lines.append(f"<https://{site}.wikipedia.org/wiki/Paris> <{ABOUT}> <{WD}Q90> .")
    lines.append(f"<https://en.wikipedia.org/wiki/Paris,_Texas> <{ABOUT}> <{WD}Q167646> .")
    p = tmp_path / name
    p.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    return p


def test_the_lexicon_reads_labels_and_aliases_in_the_language_with_the_sitelink_prior(tmp_path):
    dump = _wd_dump(tmp_path)
    lex = DumpIndex(tmp_path / "i").lexicon(dump, vocabulary=WIKIDATA)
    ann = lex.annotate(["We flew to Paris, the city of light, a city.", "Earth and the Universe", "instance of"])
    assert [[(a.uri[len(WD):], a.surface_form) for a in x] for x in ann] == [
        [("Q90", "Paris"), ("Q90", "city of light"), ("Q515", "city")], [("Q2", "Earth")], []]
    assert ann[0][0].score == 3.0 and lex.stats["prior_source"] == "given"  # three sitelinks
    de = DumpIndex(tmp_path / "i").lexicon(dump, vocabulary=WIKIDATA.with_language("de"))
    assert [(a.uri[len(WD):], a.surface_form) for a in de.annotate_one("Paris, die Lichterstadt; keine Stadt")] \
        == [("Q90", "Paris"), ("Q90", "Lichterstadt"), ("Q515", "Stadt")]
    ref = LexiconAnnotator.from_dump(dump, vocabulary=WIKIDATA)  # the in-memory lexicon agrees
    texts = ["Paris", "paris (texas) and City of light", "Universe", "Earth, Paris"]
    assert lex.annotate(texts) == ref.annotate(texts)


def test_lines_of_unused_predicates_are_not_parsed_but_a_bad_wanted_line_is_named(tmp_path):
    lines = [f"<{WD}Q{i}> <{WDT}P31> <{WD}Q5> ." for i in range(1, 6)]
    lines.insert(2, f"<{WD}Q9> <{WDT}P569> oops .")  # an unused predicate: skipped unparsed
    (tmp_path / "a.nt").write_text("\n".join(lines) + "\n")
    src = IndexSource(tmp_path / "a.nt", DumpIndex(tmp_path / "i"), vocabulary=WIKIDATA)
    assert src.types([WD + "Q4"]) == {WD + "Q4": {WD + "Q5"}}
    lines.insert(4, f"<{WD}Q8> <{WDT}P31> oops .")  # line 5 of the file
    (tmp_path / "b.nt").write_text("\n".join(lines) + "\n")
    with pytest.raises(InputFormatError, match=r"b\.nt:5: malformed RDF.*skip_bad_lines"):
        IndexSource(tmp_path / "b.nt", DumpIndex(tmp_path / "i"), vocabulary=WIKIDATA).types([WD + "Q4"])
    with pytest.raises(InputFormatError, match=r"b\.nt:5: malformed RDF"):
        DumpSource(tmp_path / "b.nt", vocabulary=WIKIDATA).types([WD + "Q4"])
    skipped = IndexSource(tmp_path / "b.nt", DumpIndex(tmp_path / "j"), vocabulary=WIKIDATA, skip_bad_lines=True)
    assert skipped.types([WD + "Q4"]) == {WD + "Q4": {WD + "Q5"}}
    assert skipped.segments[0].info["bad_lines"][0][1] == 5


# ------------------------------------------------------------------------------------ between graphs
def test_dbpedia_classes_map_to_wikidata_classes_through_the_real_equivalent_class_links(
        tmp_path, shared_data, codex, codex_index):
    import rdflib

    ontology = shared_data / "dbpedia" / "dbo-snapshots.ttl"
    dbo, dbr = "http://dbpedia.org/ontology/", "http://dbpedia.org/resource/"
    (tmp_path / "instances.nt").write_text(
        f"<{dbr}Tom_Hanks> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{dbo}Actor> .\n"
        f"<{dbr}Tom_Hanks> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{dbo}Person> .\n"
        f"<{dbr}Lyon> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{dbo}City> .\n")
    own = IndexSource([ontology, tmp_path / "instances.nt"], codex_index[0])  # the DBpedia preset
    src = EquivalentClassSource(IndexSource(codex, codex_index[0], vocabulary=WIKIDATA), own)
    got = src.types([dbr + "Tom_Hanks", dbr + "Lyon"])
    links = rdflib.Graph().parse(ontology, format="turtle")  # read independently
    same = {str(s): {str(o) for o in links.objects(s, rdflib.OWL.equivalentClass) if str(o).startswith(WD)}
            for s in (rdflib.URIRef(dbo + c) for c in ("Actor", "Person", "City"))}
    assert got == {dbr + "Tom_Hanks": same[dbo + "Actor"] | same[dbo + "Person"], dbr + "Lyon": same[dbo + "City"]}
    assert WD + "Q33999" in got[dbr + "Tom_Hanks"] and WD + "Q515" in got[dbr + "Lyon"]
    edges = src.class_edges(set().union(*got.values()))
    assert (WD + "Q33999", WD + "Q28640") in edges or any(c == WD + "Q33999" for c, _ in edges)
    # through the route: --bridge equivalent-class
    corpus = tmp_path / "c.csv"
    corpus.write_text(f"id,e,label\n1,{dbr}Tom_Hanks,a\n2,{dbr}Lyon,b\n")
    inp = CorpusInput.from_options({"corpus": corpus, "entity_columns": ["e"], "preset": "wikidata", "dump": [codex],
                                    "bridge": "equivalent-class", "bridge_dump": [ontology, tmp_path / "instances.nt"]})
    inp.check(None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HierarchyCycleWarning)
        t = route_table(inp, Context(tmp_path / "home"))
    rows = {i: set(t.feature_names[t.X[k].indices]) for k, i in enumerate(t.instance_ids)}
    assert got[dbr + "Lyon"] <= rows["2"] and WD + "Q33999" in rows["1"] and WD + "Q515" not in rows["1"]
    assert all(f.startswith(WD) for f in t.feature_names)


def test_dbpedia_entities_get_wikidata_types_through_same_as_links(tmp_path, codex, codex_m, codex_index):
    dbr = "http://dbpedia.org/resource/"
    qids = codex_m[0][:200]
    (tmp_path / "sameas.nt").write_text("".join(f"<{dbr}E{q}> <{SAME}> <{WD}{q}> .\n" for q in qids) +
                                        f"<{dbr}EQ1> <{SAME}> <http://fr.dbpedia.org/resource/Q1> .\n")
    links = IndexSource(tmp_path / "sameas.nt", codex_index[0], vocabulary=DBPEDIA)
    src = SameAsSource(IndexSource(codex, codex_index[0], vocabulary=WIKIDATA), links)
    linked = Corpus(ids=qids + ["none"], entities=[[dbr + "E" + q] for q in qids] + [[dbr + "EQ1"]],
                    labels=codex_m[1][:200] + ["other"])
    direct = Corpus(ids=qids + ["none"], entities=[[WD + q] for q in qids] + [[]], labels=linked.labels)
    a, _ = _built(linked, src)
    b, _ = _built(direct, IndexSource(codex, codex_index[0], vocabulary=WIKIDATA))
    assert_same_table(a, b)
    assert src.report["entities_without_link"] == [dbr + "EQ1"] and a.meta["source"]["bridge"] == "same-as"
    # through the route: --bridge same-as, the entities in the corpus are DBpedia's
    corpus = tmp_path / "c.csv"
    corpus.write_text("id,e,label\n" + "".join(f"{q},{dbr}E{q},{y}\n" for q, y in zip(qids, codex_m[1])))
    inp = CorpusInput.from_options({"corpus": corpus, "entity_columns": ["e"], "preset": "wikidata", "dump": [codex],
                                    "bridge": "same-as", "bridge_dump": [tmp_path / "sameas.nt"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HierarchyCycleWarning)
        t = route_table(inp, Context(tmp_path / "home"))
    assert list(t.feature_names) == list(b.feature_names) and (t.X != b.X[:200]).nnz == 0
    assert t.meta["entities_without_link"] == []


def test_the_route_refuses_what_the_preset_cannot_do(tmp_path, codex):
    corpus = tmp_path / "c.csv"
    corpus.write_text("id,qid,label\n1,Q42,a\n")
    base = {"corpus": corpus, "entity_columns": ["qid"], "preset": "wikidata", "dump": [codex]}
    # the input names its fields (the command line says them as options: tests/kg/rdf/test_wikidata_cli.py)
    with pytest.raises(Exception, match=r"^features='categories': the wikidata preset has no category"):
        CorpusInput.from_options({**base, "features": "categories"}).check(None)
    with pytest.raises(Exception, match=r"^bridge='same-as' needs bridge_dump"):
        CorpusInput.from_options({**base, "bridge": "same-as"}).check(None)
    with pytest.raises(Exception, match=r"^bridge_dump needs bridge"):
        CorpusInput.from_options({**base, "bridge_dump": [codex]}).check(None)


def test_the_sparql_walk_of_p279_is_anchored_at_each_class(codex_server, codex_m):
    with FaultyProxy(codex_server.url) as proxy:
        src = SparqlSource(proxy.url, vocabulary=WIKIDATA, batch_size=50)
        types = src.types([WD + q for q in codex_m[0][:300]])
        edges = src.class_edges(set().union(*types.values()))
    paths = [q for q in proxy.queries if "P279>*" in q]
    assert edges and paths
    for q in paths:  # every path starts at a constant class and walks up: never an open ?x wdt:P279* ?y
        starts = [line.split()[1] for line in q.splitlines() if "P279>*" in line]
        assert starts and all(s.startswith(f"<{WD}Q") for s in starts)
    assert not any("P279>+" in q or "?c <" + WDT + "P279>" in q for q in proxy.queries)
