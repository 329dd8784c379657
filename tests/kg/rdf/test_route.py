"""The DBpedia route end to end: facts -> DAG -> table, online == offline, faults, tables from options."""

import warnings

import pytest

from kg.errors import HierarchyCycleWarning, InputFormatError, KgfsError
from kg.rdf.annotators.lexicon import LexiconAnnotator
from kg.rdf.corpus import Corpus
from kg.rdf.route import CorpusInput
from kg.rdf.sources.common import Access
from kg.rdf.sources.dump import DumpSource
from kg.rdf.sources.sparql import SparqlSource
from kg.rdf.table import assemble_table, link_entities, make_annotator, make_source
from kg.routes import build_table as input_table
from kg.routes.base import Context
from tests.kg.conftest import DBO, C, R, assert_same_table


def row(table, instance):
    i = list(table.instance_ids).index(instance)
    return {str(table.feature_names[j]) for j in table.X[i].indices}


def test_types_table_of_the_ten_tweets(tweets10, kg_dump_dir):
    t = assemble_table(tweets10, None, DumpSource(kg_dump_dir))
    assert list(t.instance_ids) == tweets10.ids and list(t.y) == tweets10.labels
    assert row(t, "1") == {DBO + "Cricketer", DBO + "Athlete", DBO + "Person", DBO + "Agent"}
    assert row(t, "3") == {DBO + "Organisation", DBO + "Agent"}  # LGBT and Bullying have no types
    assert row(t, "12") == set()  # President: no types, the tweet is kept as an empty row
    assert t.meta["instances_without_features"] == 2  # tweets 6 and 12
    assert R + "President" in t.meta["entities_without_features"]
    assert t.meta["n_entities"] == 20
    assert t.hierarchy.violations(t.X).nnz == 0
    assert t.meta["source"]["kind"] == "dump"


def test_categories_table_breaks_the_cycle_and_reports_it(tweets10, kg_dump_dir):
    with pytest.warns(HierarchyCycleWarning):
        t = assemble_table(tweets10, None, DumpSource(kg_dump_dir), features="categories", category_depth=None)
    removed = {tuple(e) for e in t.meta["removed_cycle_edges"]}
    assert (C + "Cricket", C + "Cricket") in removed
    assert len(removed) == 2 and removed & {(C + "Sports", C + "Recreation"), (C + "Recreation", C + "Sports")}
    assert {C + "Jamaican_cricketers", C + "Cricketers", C + "Cricket", C + "Sports"} <= row(t, "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # depth 1 stops below the cycle: no warning
        shallow = assemble_table(tweets10, None, DumpSource(kg_dump_dir), features="categories", category_depth=1)
    assert row(shallow, "1") == {C + "West_Indies_Test_cricketers", C + "Jamaican_cricketers",
                                 C + "Test_cricketers", C + "Cricketers"}
    assert shallow.meta["category_depth"] == 1


def test_min_support(tweets10, kg_dump_dir):
    full = assemble_table(tweets10, None, DumpSource(kg_dump_dir))
    t = assemble_table(tweets10, None, DumpSource(kg_dump_dir), min_support=2)
    assert list(t.feature_names) == [f for f, n in zip(full.feature_names, full.support) if n >= 2]
    assert {DBO + "Agent", DBO + "Place", DBO + "Settlement"} <= set(t.feature_names)
    assert DBO + "Country" not in set(t.feature_names)  # three countries, but all in one tweet
    assert DBO + "TennisPlayer" not in set(t.feature_names)
    assert t.hierarchy.violations(t.X).nnz == 0


@pytest.mark.parametrize("features", ["types", "categories"])
def test_online_and_offline_give_exactly_the_same_table(tweets10, kg_dump_dir, oxigraph_server, features):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HierarchyCycleWarning)
        online = assemble_table(tweets10, None, SparqlSource(oxigraph_server.url, batch_size=3),
                             features=features, category_depth=None)
        offline = assemble_table(tweets10, None, DumpSource(kg_dump_dir), features=features, category_depth=None)
    assert_same_table(online, offline)
    assert online.meta["removed_cycle_edges"] == offline.meta["removed_cycle_edges"]
    assert online.n_features > 5


def test_annotated_texts_online_and_offline(kg_dump_dir, oxigraph_server, shared_data):
    from kg.rdf.corpus import read_corpus

    corpus = read_corpus(shared_data / "tweets" / "sport_tweets_10_with_dbpedia_uris.tsv", text_column="tweet")
    lex = LexiconAnnotator.from_dump(kg_dump_dir)
    a = assemble_table(corpus, lex, SparqlSource(oxigraph_server.url))
    b = assemble_table(corpus, lex, DumpSource(kg_dump_dir))
    assert_same_table(a, b)
    assert row(a, "9") == {DBO + "Cricketer", DBO + "Athlete", DBO + "Person", DBO + "Agent"}  # N Lyon, M Vijay


def test_malformed_dump_line_and_skip(tweets10, kg_dump_dir, tmp_path):
    lines = (kg_dump_dir / "instances.nt").read_text(encoding="utf-8").splitlines()
    lines.insert(9, "<http://dbpedia.org/resource/X> <http://x/p> <broken")
    (tmp_path / "instances.nt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    files = [kg_dump_dir / "ontology.owl", tmp_path / "instances.nt"]
    with pytest.raises(InputFormatError, match=r"instances\.nt:10: malformed RDF"):
        assemble_table(tweets10, None, DumpSource(files))
    src = make_source("dump", dump=files, access=Access(skip_bad_lines=True))
    t = assemble_table(tweets10, None, src)
    assert_same_table(t, assemble_table(tweets10, None, DumpSource(kg_dump_dir)))
    assert src.report["bad_lines"][0][1] == 10


def test_invalid_entities_are_skipped_and_reported():
    c = Corpus(ids=["a", "b"], entities=[[R + "Lyon", "not an iri"], []], labels=[0, 1])
    ents, rep = link_entities(c)
    assert ents == {"a": [R + "Lyon"], "b": []} and rep["invalid_iris"] == [["a", "not an iri"]]
    with pytest.raises(InputFormatError, match="instance 'a'"):
        link_entities(c, invalid_iri="raise")


def test_errors_are_clear(tweets10, kg_dump_dir, tmp_path):
    texts = Corpus(ids=["a"], texts=["Chris Gayle"], labels=[1])
    with pytest.raises(KgfsError, match="no annotator"):
        assemble_table(texts, None, DumpSource(kg_dump_dir))
    nothing = Corpus(ids=["a"], entities=[[R + "President"]], labels=[1])
    with pytest.raises(KgfsError, match="no types found for any of the 1 entities"):
        assemble_table(nothing, None, DumpSource(kg_dump_dir))
    with pytest.raises(KgfsError, match="^features: unknown kind 'both'"):
        assemble_table(tweets10, None, DumpSource(kg_dump_dir), features="both")
    with pytest.raises(KgfsError, match=r"^annotator='spotlight' needs spotlight_url$"):  # the library's words
        make_annotator("spotlight")
    with pytest.raises(KgfsError, match=r"^source='dump' needs dump \(dump files or a directory\)$"):
        make_source("dump")
    with pytest.raises(KgfsError, match="unknown knowledge source"):
        make_source("wikidata")
    assert isinstance(make_source(None, sparql_url="http://127.0.0.1:1/sparql"), SparqlSource)
    assert isinstance(make_source(None, dump=kg_dump_dir), DumpSource)


def test_corpus_table_offline_on_the_sports_tweets(kg_dump_dir, shared_data, tmp_path):
    """Annotate 6,525 tweets with the lexicon, fetch types from the dump, build the DAG and the table."""
    from kg.formats import read_arff, write_arff
    from kg.table import FeatureTable

    t = input_table(CorpusInput.from_options({"corpus": shared_data / "tweets" / "training.txt",
                                              "dump": [kg_dump_dir]}))
    assert t.n_instances == 6525 and set(t.y) == {"Sports", "Politics"}
    assert {DBO + "Cricketer", DBO + "SoccerClub", DBO + "Country"} <= set(t.feature_names)
    assert 0 < t.meta["instances_without_features"] < t.n_instances
    assert t.meta["dataset"] == "training" and t.meta["source"]["kind"] == "dump"
    assert t.hierarchy.violations(t.X).nnz == 0  # closed upward
    assert sorted(t.feature_names.tolist()) == sorted(t.hierarchy.node_ids.tolist())
    # sports tweets mention more entities typed Athlete than politics tweets do
    j = list(t.feature_names).index(DBO + "Athlete")
    col = t.X[:, j].toarray().ravel()
    assert col[t.y == "Sports"].sum() > col[t.y == "Politics"].sum()
    # what `kgfs run --corpus` stores and exports comes back unchanged
    assert_same_table(FeatureTable.load(t.save(tmp_path / "table.npz")), t)
    arff = read_arff(write_arff(t, tmp_path / "table.arff", sparse=True))
    assert arff.X.shape == (6525, t.n_features) and (arff.X != t.X).nnz == 0


def test_online_route_with_spotlight_and_sparql(kg_dump_dir, oxigraph_server, shared_data, tmp_path):
    """kgfs run --corpus tweets.tsv --annotator spotlight --spotlight-url U --kg sparql --sparql-url U."""
    from tests.kg.conftest import ENTITIES
    from tests.kg.servers import SpotlightServer

    forms = {label: (R + name, 100, "") for name, (_, label) in ENTITIES.items()}
    forms["Djokovic"] = (R + "Novak_Djokovic", 100, "DBpedia:TennisPlayer")
    tsv = shared_data / "tweets" / "sport_tweets_10_with_dbpedia_uris.tsv"
    with SpotlightServer(forms) as spot:
        # the caches (Spotlight's answers, SPARQL's) in the kgfs home's rdf-cache
        kw = dict(corpus=tsv, text_column="tweet", annotator="spotlight", spotlight_url=spot.url,
                  spotlight={"confidence": 0.4, "max_workers": 2})  # Spotlight's own parameters, from Python
        ctx = Context(home=tmp_path / "home")
        online = input_table(CorpusInput.from_options({**kw, "kg": "sparql", "sparql_url": oxigraph_server.url}),
                             ctx)
        sent = len(spot.requests)
        offline = input_table(CorpusInput.from_options({**kw, "kg": "dump", "dump": [kg_dump_dir]}), ctx)
        assert len(spot.requests) == sent == 10  # the second run annotated from the cache
    assert_same_table(online, offline)
    assert row(online, "8") == {DBO + "TennisPlayer", DBO + "Athlete", DBO + "Person", DBO + "Agent"}
    # the table's meta names the annotator by its kind (the one path from a corpus to a table, as `kgfs run` did)
    assert online.meta["source"]["kind"] == "sparql" and online.meta["annotator"] == "spotlight"
    annotator = CorpusInput.from_options(kw).make_annotator(None)
    assert (annotator.params["confidence"], annotator.max_workers) == ("0.4", 2)
