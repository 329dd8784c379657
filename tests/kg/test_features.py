"""KGFeatures: a column of entities or texts -> the closed table, inside Pipeline, cross_val_score, GridSearchCV.

The two data sets of the issue: the bundled GO data (genes, :class:`kg.ontology.OntologyAnnotations`) and a
DBpedia-shaped dump read through the dump index (:mod:`tests.kg.dbpedia_shaped`). Scores of the
Pipeline are compared with the same steps run by hand on the same folds; the hierarchy each selector
saw is checked to be the transformer's; look-ups are counted.
"""

from __future__ import annotations

import logging
import math
import pickle
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import rdflib
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.metrics import accuracy_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.naive_bayes import BernoulliNB
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from kg.errors import HierarchyCycleWarning
from kg.features import KGFeatures
from kg.lookups import SharedLookups, shared_lookups
from kg.ontology import OntologyAnnotations, read_labels, read_obo, term_table
from kg.ontology.annotations import read_annotation_set
from kg.rdf.annotators.lexicon import LexiconAnnotator
from kg.rdf.sources.common import Access
from kg.rdf.sources.rdflib_graph import RdflibSource
from kg.rdf.table import make_source
from kg.sources import breadth_first_edges
from kg.table import HierarchicalCSR, carried_hierarchy
from selection.hierarchical import SHSEL
from selection.lazy import RPV, LazyNaiveBayes, LazySelectionClassifier
from tests.kg.dbpedia_shaped import write_dump

BUNDLED = Path(__file__).resolve().parents[2] / "datasets" / "bundled" / "DM-BP"
OBO, ANNOTATIONS, LABELS = BUNDLED / "go-2014-06-13-subset.obo.gz", BUNDLED / "annotations.tsv", BUNDLED / "labels.tsv"
R, DBO = "http://dbpedia.org/resource/", "http://dbpedia.org/ontology/"

TTL = """
@prefix dbo: <http://dbpedia.org/ontology/> . @prefix dbr: <http://dbpedia.org/resource/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
dbr:Kobe a dbo:BasketballPlayer . dbr:Messi a dbo:SoccerPlayer . dbr:Lyon a dbo:City . dbr:Oslo a dbo:City .
dbr:Pele a dbo:SoccerPlayer .
dbo:BasketballPlayer rdfs:subClassOf dbo:Athlete . dbo:SoccerPlayer rdfs:subClassOf dbo:Athlete .
dbo:Cricketer rdfs:subClassOf dbo:Athlete .
dbo:Athlete rdfs:subClassOf dbo:Person . dbo:City rdfs:subClassOf dbo:Place .
"""
KOBE, MESSI, LYON, OSLO, PELE = (R + n for n in ("Kobe", "Messi", "Lyon", "Oslo", "Pele"))


@pytest.fixture(scope="module")
def graph():
    return rdflib.Graph().parse(format="turtle", data=TTL)


@pytest.fixture(scope="module")
def genes():
    frame = pd.read_csv(LABELS, sep="\t", dtype=str)
    return frame["gene"], frame["label"]


@pytest.fixture(scope="module")
def go():
    return OntologyAnnotations(OBO, ANNOTATIONS)


@pytest.fixture(scope="module")
def dbpedia(tmp_path_factory, shared_data):
    """(IndexSource over a DBpedia-shaped dump of 120 labelled entities, their IRIs, labels)."""
    d = tmp_path_factory.mktemp("dbpedia-shaped")
    iris, labels = write_dump(d / "dump", shared_data, n=120)
    source = make_source("dump", dump=d / "dump", access=Access(cache_dir=d / "index"))
    return source, np.array(iris, dtype=object), np.array(labels)


CV = StratifiedKFold(5, shuffle=True, random_state=0)


def by_hand(make_kg, make_selector, X, y, cv=CV, lazy=False) -> list[float]:
    """The Pipeline's steps run one by one on cv's folds; the selector gets the hierarchy as an argument."""
    X, y = np.asarray(X, dtype=object), np.asarray(y)
    scores = []
    for train, test in cv.split(X, y):
        kg = make_kg()
        x_train = sp.csr_matrix(kg.fit(X[train]).transform(X[train]))  # plain csr: nothing carried
        x_test = sp.csr_matrix(kg.transform(X[test]))
        if lazy:
            model = LazySelectionClassifier(make_selector(kg.hierarchy_), LazyNaiveBayes()).fit(x_train, y[train])
            pred = model.predict(x_test)
        else:
            sel = make_selector(kg.hierarchy_).fit(x_train, y[train])
            clf = BernoulliNB().fit(sel.transform(x_train), y[train])
            pred = clf.predict(sel.transform(x_test))
        scores.append(accuracy_score(y[test], pred))
    return scores


class SeenHierarchy(SHSEL):
    """SHSEL that records, at each fit, whether the hierarchy it used is the one X carried."""

    seen: list = []

    def fit(self, X, y=None):
        carried = carried_hierarchy(X)
        super().fit(X, y)
        SeenHierarchy.seen.append(carried is not None and self.hierarchy_ is carried)
        return self


# ------------------------------------------------------------------------------- the bundled GO data
def test_go_table_is_the_go_routes_table(genes, go):
    kg = KGFeatures(go, min_support=3)
    x = kg.fit_transform(genes[0])
    table = term_table(read_obo(OBO), read_annotation_set(ANNOTATIONS), read_labels(LABELS), min_support=3)
    rows = {g: i for i, g in enumerate(genes[0])}
    cols = [kg.vocabulary_[f] for f in table.feature_names]
    assert x.shape == table.X.shape
    assert (x[[rows[g] for g in table.instance_ids]][:, cols] != table.X).nnz == 0
    assert sorted(kg.hierarchy_.edge_list()) == sorted(table.hierarchy.edge_list())
    assert kg.hierarchy_.node_ids.tolist() == kg.get_feature_names_out().tolist()
    assert kg.feature_labels_[kg.vocabulary_["GO:0008340"]] == "determination of adult lifespan"


def test_go_pipeline_cross_val_score_equals_the_steps_by_hand(genes, go):
    X, y = genes
    pipe = Pipeline([("kg", KGFeatures(go, min_support=3)), ("select", SeenHierarchy(hierarchy="from_input")),
                     ("clf", BernoulliNB())])
    SeenHierarchy.seen = []
    got = cross_val_score(pipe, X, y, cv=CV)
    assert SeenHierarchy.seen == [True] * 5
    want = by_hand(lambda: KGFeatures(go, min_support=3), lambda h: SHSEL(h), X, y)
    np.testing.assert_array_equal(got, want)


def test_go_grid_search_over_min_support_and_threshold(genes, go):
    X, y = genes
    pipe = Pipeline([("kg", KGFeatures(go)), ("select", SeenHierarchy(hierarchy="from_input")), ("clf", BernoulliNB())])
    grid = {"kg__min_support": [1, 3, 5], "select__threshold": [0.8, 0.99, 1.0]}
    SeenHierarchy.seen = []
    search = GridSearchCV(pipe, grid, cv=CV).fit(X, y)
    assert SeenHierarchy.seen == [True] * (9 * 5 + 1)
    best = search.best_estimator_
    assert best["select"].hierarchy_ is best["kg"].hierarchy_
    for params, mean in zip(search.cv_results_["params"], search.cv_results_["mean_test_score"]):
        want = by_hand(lambda p=params: KGFeatures(go, min_support=p["kg__min_support"]),
                       lambda h, p=params: SHSEL(h, threshold=p["select__threshold"]), X, y)
        assert mean == pytest.approx(np.mean(want), abs=1e-12)
    # every gene and every term's parents looked up once for the whole grid
    assert shared_lookups(go).asked["types"] == len(set(X))


def test_go_lazy_selection_classifier_in_the_pipeline(genes, go):
    X, y = genes
    pipe = Pipeline([("kg", KGFeatures(go, min_support=3)),
                     ("lazy", LazySelectionClassifier(RPV(hierarchy="from_input"), LazyNaiveBayes()))])
    got = cross_val_score(pipe, X, y, cv=CV)
    want = by_hand(lambda: KGFeatures(go, min_support=3), lambda h: RPV(h), X, y, lazy=True)
    np.testing.assert_array_equal(got, want)
    fitted = pipe.fit(X, y)
    assert fitted["lazy"].selector_.hierarchy_ is fitted["kg"].hierarchy_
    search = GridSearchCV(pipe, {"kg__min_support": [1, 3], "lazy__selector__relevance": ["lazyr", "ig"]},
                          cv=CV).fit(X, y)
    assert search.best_estimator_["lazy"].selector_.hierarchy_ is search.best_estimator_["kg"].hierarchy_


def test_memory_keeps_the_answers_for_another_process(genes, tmp_path):
    X, y = genes
    first = OntologyAnnotations(OBO, ANNOTATIONS)  # two handles on the same files: same describe()
    KGFeatures(first, memory=tmp_path).fit(X)
    assert shared_lookups(first, memory=tmp_path).asked["types"] == len(X)
    second = OntologyAnnotations(OBO, ANNOTATIONS)
    joblib = pytest.importorskip("joblib")
    a = KGFeatures(second, memory=joblib.Memory(tmp_path, verbose=0)).fit_transform(X)
    assert set(shared_lookups(second, memory=tmp_path).asked.values()) == {0}  # every answer from the disk
    b = KGFeatures(OntologyAnnotations(OBO, ANNOTATIONS)).fit_transform(X)
    assert (a != b).nnz == 0


def test_grid_search_in_worker_processes_with_memory(genes, tmp_path):
    X, y = genes
    pipe = Pipeline([("kg", KGFeatures(OntologyAnnotations(OBO, ANNOTATIONS), memory=tmp_path)),
                     ("select", SHSEL(hierarchy="from_input")), ("clf", BernoulliNB())])
    grid = {"kg__min_support": [1, 3], "select__threshold": [0.99]}
    parallel = GridSearchCV(pipe, grid, cv=CV, n_jobs=2).fit(X, y)
    serial = GridSearchCV(pipe, grid, cv=CV).fit(X, y)
    np.testing.assert_array_equal(parallel.cv_results_["mean_test_score"], serial.cv_results_["mean_test_score"])
    assert (tmp_path / "kgfs-lookups.sqlite").is_file()


# ------------------------------------------------------------------------------- a DBpedia-shaped dump index
def test_dbpedia_grid_search_over_category_depth_and_threshold(dbpedia):
    source, X, y = dbpedia
    lookups = shared_lookups(source)
    pipe = Pipeline([("kg", KGFeatures(source, features="categories")),
                     ("select", SeenHierarchy(hierarchy="from_input")), ("clf", BernoulliNB())])
    grid = {"kg__category_depth": [1, 2, 3], "kg__min_support": [1, 2], "select__threshold": [0.9, 1.0]}
    SeenHierarchy.seen = []
    search = GridSearchCV(pipe, grid, cv=CV).fit(X, y)
    assert all(SeenHierarchy.seen) and len(SeenHierarchy.seen) == 12 * 5 + 1
    for params, mean in zip(search.cv_results_["params"], search.cv_results_["mean_test_score"]):
        want = by_hand(lambda p=params: KGFeatures(source, features="categories",
                                                   category_depth=p["kg__category_depth"],
                                                   min_support=p["kg__min_support"]),
                       lambda h, p=params: SHSEL(h, threshold=p["select__threshold"]), X, y)
        assert mean == pytest.approx(np.mean(want), abs=1e-12)
    # each entity's categories and each category's parents were fetched once, whatever the depth
    assert lookups.asked["categories"] == len(X)
    n_categories = len({c for e in X for c in source.categories([e])[e]} | {n for e in source.broader(
        {c for cs in source.categories(list(X)).values() for c in cs}, 3) for n in e})
    assert lookups.asked["broader"] <= n_categories


def test_dbpedia_types_pipeline_equals_by_hand_and_counts_unknown(dbpedia):
    source, X, y = dbpedia
    pipe = Pipeline([("kg", KGFeatures(source, min_support=2)), ("select", SHSEL(hierarchy="from_input")),
                     ("clf", BernoulliNB())])
    got = cross_val_score(pipe, X, y, cv=CV)
    want = by_hand(lambda: KGFeatures(source, min_support=2), lambda h: SHSEL(h), X, y)
    np.testing.assert_array_equal(got, want)
    kg = KGFeatures(source).fit(X)
    assert kg.n_unknown_ == sum(1 for i in range(len(X)) if i % 20 == 7)  # the entities the dump lacks
    assert DBO + "Athlete" in kg.vocabulary_ and kg.feature_labels_[kg.vocabulary_[DBO + "Athlete"]] == "athlete"
    # the dump's rdfs:label (an IndexSource names features as the command line does), not the local name


@pytest.mark.parametrize("kind", ["index", "dump", "rdflib", "sparql"])
def test_every_source_gives_the_same_table(kind, kg_dump_dir, tweets10, tmp_path, request):
    entities = [e for ents in tweets10.entities for e in ents][:12]
    if kind == "index":
        source = make_source("dump", dump=kg_dump_dir, access=Access(cache_dir=tmp_path))
    elif kind == "dump":
        source = make_source("dump", dump=kg_dump_dir)
    elif kind == "rdflib":
        g = rdflib.Graph()
        g.parse(kg_dump_dir / "ontology.owl", format="xml")
        g.parse(kg_dump_dir / "instances.nt", format="turtle")  # its N-Triples parser refuses non-ASCII IRIs
        source = g  # a graph is wrapped in an RdflibSource
    else:
        server = request.getfixturevalue("oxigraph_server")
        source = make_source("sparql", sparql_url=server.url)
    reference = KGFeatures(make_source("dump", dump=kg_dump_dir), features="categories", category_depth=None)
    x_ref = reference.fit_transform(entities)
    kg = KGFeatures(source, features="categories", category_depth=None)
    x = kg.fit_transform(entities)
    assert kg.get_feature_names_out().tolist() == reference.get_feature_names_out().tolist()
    assert (x != x_ref).nnz == 0
    types = KGFeatures(source).fit(entities)
    assert types.hierarchy_ == KGFeatures(make_source("dump", dump=kg_dump_dir)).fit(entities).hierarchy_


def test_grid_search_in_worker_processes_over_the_dump_index(dbpedia, tmp_path):
    source, X, y = dbpedia
    pipe = Pipeline([("kg", KGFeatures(source, features="categories", memory=tmp_path)),
                     ("select", SHSEL(hierarchy="from_input")), ("clf", BernoulliNB())])
    grid = {"kg__category_depth": [1, 3], "select__threshold": [0.99]}
    parallel = GridSearchCV(pipe, grid, cv=CV, n_jobs=2).fit(X, y)
    serial = GridSearchCV(pipe, grid, cv=CV).fit(X, y)
    np.testing.assert_array_equal(parallel.cv_results_["mean_test_score"], serial.cv_results_["mean_test_score"])


@pytest.mark.parametrize("kind", ["index", "sparql"])
def test_sources_travel_to_worker_processes(kind, kg_dump_dir, tweets10, tmp_path, request):
    """GridSearchCV(n_jobs=2) pickles the estimator with its source: the copy answers as the original."""
    if kind == "index":
        source = make_source("dump", dump=kg_dump_dir, access=Access(cache_dir=tmp_path))
    else:
        source = make_source("sparql", sparql_url=request.getfixturevalue("oxigraph_server").url)
    entities = [e for ents in tweets10.entities for e in ents]
    want = source.categories(entities)  # asked first: the copy is made of a source in use
    copy = pickle.loads(pickle.dumps(source))
    assert copy.categories(entities) == want and copy.broader({"http://dbpedia.org/resource/Category:Cricket"}, None)


def test_several_kinds_of_features_make_one_table(kg_dump_dir, tweets10):
    source = make_source("dump", dump=kg_dump_dir)
    entities = [e for ents in tweets10.entities for e in ents]
    both = KGFeatures(source, features=["types", "categories"], category_depth=None).fit(entities)
    x = both.transform(entities)
    one_each = [KGFeatures(source).fit(entities), KGFeatures(source, features="categories",
                                                              category_depth=None).fit(entities)]
    tags = ("type:", "category:")  # a table of several kinds: its ids say their kind (kg.rdf.kinds)
    assert set(both.vocabulary_) == {tag + f for tag, one in zip(tags, one_each) for f in one.vocabulary_}
    for tag, one in zip(tags, one_each):
        cols = [both.vocabulary_[tag + f] for f in one.get_feature_names_out()]
        assert (x[:, cols] != one.transform(entities)).nnz == 0
    assert both.hierarchy_.violations(x).nnz == 0
    for bad in (["types", "types"], [], ["colours"]):
        with pytest.raises(ValueError, match="features must be one of types, categories, relations, "
                                             "qualified-relations, paths or a list of them"):
            KGFeatures(source, features=bad).fit(entities)


# ------------------------------------------------------------------------------- inputs and outputs
def test_lists_arrays_series_and_one_column_frames_give_the_same_table(graph):
    values = [KOBE, MESSI, LYON]
    kg = KGFeatures(graph).fit(values)
    want = kg.transform(values)
    index = pd.Index(["a", "b", "c"])
    for form in (np.array(values), np.array(values, dtype=object).reshape(-1, 1), pd.Series(values, index=index),
                 pd.DataFrame({"entity": values}, index=index), tuple(values)):
        got = kg.transform(form)
        assert isinstance(got, HierarchicalCSR) and got.hierarchy is kg.hierarchy_
        assert (got != want).nnz == 0
        assert (KGFeatures(graph).fit_transform(form) != want).nnz == 0
    with pytest.raises(ValueError, match="one column of entities or texts, got a DataFrame with 2 columns"):
        kg.transform(pd.DataFrame({"a": values, "b": values}))
    with pytest.raises(ValueError, match=r"got an array of shape \(3, 2\)"):
        kg.transform(np.array([values, values]).T)


def test_the_table_is_closed_and_min_support_counts_training_rows(graph):
    kg = KGFeatures(graph, min_support=2)
    x = kg.fit_transform([KOBE, MESSI, LYON])
    assert kg.get_feature_names_out().tolist() == [DBO + "Athlete", DBO + "Person"]
    assert x.toarray().tolist() == [[1, 1], [1, 1], [0, 0]]
    assert kg.hierarchy_.edge_list() == [(DBO + "Athlete", DBO + "Person")]
    # Pele's SoccerPlayer was seen in training; Lyon's City below min_support: Athlete and Person only
    assert kg.transform([PELE, LYON, OSLO]).toarray().tolist() == [[1, 1], [0, 0], [0, 0]]


def test_unknown_entities_give_empty_rows_and_are_counted(graph):
    kg = KGFeatures(graph).fit([KOBE, MESSI, LYON, R + "Nobody", None])
    assert kg.n_unknown_ == 2
    x = kg.transform([R + "Nobody", "not-an-iri", KOBE, float("nan"), "", R + "Oslo"])
    assert kg.n_unknown_transform_ == 5 - 1  # Oslo is known (a City)
    assert x.getnnz(axis=1).tolist()[:4] == [0, 0, 3, 0]  # BasketballPlayer, Athlete, Person
    assert x[5].toarray().sum() == 2  # City, Place: fitted columns


def test_set_output_pandas_gives_a_sparse_frame_that_carries_the_hierarchy(graph):
    kg = KGFeatures(graph).set_output(transform="pandas")
    s = pd.Series([KOBE, LYON, MESSI], index=["k", "l", "m"], name="entity")
    df = kg.fit_transform(s)
    assert isinstance(df, pd.DataFrame) and all(isinstance(t, pd.SparseDtype) for t in df.dtypes)
    assert df.columns.tolist() == kg.get_feature_names_out().tolist() and df.index.tolist() == ["k", "l", "m"]
    assert df.attrs["hierarchy"] is kg.hierarchy_ and carried_hierarchy(df) is kg.hierarchy_
    assert df.loc["k", DBO + "Athlete"] == 1 and df.loc["l", DBO + "Athlete"] == 0
    assert clone(kg).transform  # the output setting survives clone
    assert isinstance(clone(kg).fit_transform(s), pd.DataFrame)
    y = ["sport", "place", "sport"]
    pipe = Pipeline([("kg", KGFeatures(graph)), ("select", SHSEL(hierarchy="from_input")), ("clf", BernoulliNB())])
    pipe.set_output(transform="pandas").fit(s, y)
    assert pipe["select"].hierarchy_ is pipe["kg"].hierarchy_
    assert list(pipe["select"].feature_names_in_) == kg.get_feature_names_out().tolist()
    with pytest.raises(ValueError, match="output is sparse"):
        KGFeatures(graph).set_output(transform="polars")


def test_fit_transform_equals_fit_then_transform(graph):
    values = [KOBE, MESSI, LYON, OSLO]
    a = KGFeatures(graph).fit_transform(values)
    b = KGFeatures(graph).fit(values).transform(values)
    assert (a != b).nnz == 0 and a.hierarchy == b.hierarchy


def test_texts_are_annotated_and_auto_tells_texts_from_entities(graph):
    annotator = LexiconAnnotator({KOBE: ["Kobe"], LYON: ["Lyon"], MESSI: ["Messi"]})
    kg = KGFeatures(graph, annotator=annotator)
    x = kg.fit_transform(["Kobe played in Lyon", "Messi scored", "nothing here at all"])
    assert kg.n_unknown_ == 1
    assert x[0, kg.vocabulary_[DBO + "Athlete"]] == 1 and x[0, kg.vocabulary_[DBO + "City"]] == 1
    with pytest.raises(ValueError, match="got texts .* but no annotator"):
        KGFeatures(graph).fit(["Kobe played in Lyon", KOBE])
    # with input="entities", whitespace does not make a text: such a value is no IRI (an empty row)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert KGFeatures(graph, input="entities").fit([KOBE, "Kobe Bryant"]).n_unknown_ == 1


def test_short_ids_are_expanded_by_the_sources_vocabulary():
    g = rdflib.Graph().parse(format="turtle", data="""
    @prefix wd: <http://www.wikidata.org/entity/> . @prefix wdt: <http://www.wikidata.org/prop/direct/> .
    wd:Q42 wdt:P31 wd:Q5 . wd:Q5 wdt:P279 wd:Q215627 .""")
    kg = KGFeatures(g, vocabulary="wikidata").fit(["Q42", "wd:Q42"])
    assert kg.get_feature_names_out().tolist() == ["http://www.wikidata.org/entity/Q215627",
                                                   "http://www.wikidata.org/entity/Q5"]
    assert kg.n_unknown_ == 0


def test_bad_parameters_and_sources_are_named(graph):
    with pytest.raises(ValueError, match="needs a source"):
        KGFeatures().fit([KOBE])
    with pytest.raises(TypeError, match="must be a knowledge source .* got dict"):
        KGFeatures({}).fit([KOBE])
    with pytest.raises(ValueError, match="min_support"):
        KGFeatures(graph, min_support=0).fit([KOBE])
    with pytest.raises(ValueError, match="no types found for any of the 1 training values"):
        KGFeatures(graph).fit([R + "Nobody"])
    with pytest.raises(ValueError, match="min_support=9 keeps none"):
        KGFeatures(graph, min_support=9).fit([KOBE])


def test_clones_share_the_source_and_its_look_ups(graph):
    kg = KGFeatures(graph, min_support=2, memory=None)
    twin = clone(kg)
    assert twin.source is graph and twin.get_params() == kg.get_params()
    lookups = shared_lookups(graph)
    assert isinstance(lookups, SharedLookups) and isinstance(lookups.source, RdflibSource)
    before = dict(lookups.asked)
    twin.fit([KOBE, MESSI])
    clone(twin).fit([KOBE, MESSI])
    assert lookups.asked["types"] - before["types"] <= 2


# ------------------------------------------------------------------------------- scikit-learn's checks
class NumberLine:
    """A knowledge source over numbers (what scikit-learn's checks feed): a number's class is its half-unit bin,
    under its sign, under ``number``; a value that is not a finite number is unknown to it."""

    entity_iris = False

    def __repr__(self) -> str:
        return "NumberLine()"

    @staticmethod
    def _bin(value: str):
        try:
            v = float(value)
        except ValueError:
            return None
        return f"bin:{math.floor(v * 2)}" if math.isfinite(v) else None

    def types(self, entities):
        return {e: ({b} if (b := self._bin(e)) else set()) for e in entities}

    categories = types

    @staticmethod
    def _parents(nodes):
        return {n: ({"sign:-" if int(n[4:]) < 0 else "sign:+"} if n.startswith("bin:") else
                    {"number"} if n.startswith("sign:") else set()) for n in nodes}

    def class_edges(self, classes):
        return breadth_first_edges(classes, self._parents, None)

    def broader(self, categories, depth):
        return breadth_first_edges(categories, self._parents, depth)

    def describe(self):
        return {"kind": "number-line"}


def test_number_line_source():
    kg = KGFeatures(NumberLine())
    x = kg.fit_transform([0.2, -1.7, 0.4, float("inf")])
    assert kg.get_feature_names_out().tolist() == ["bin:-4", "bin:0", "number", "sign:+", "sign:-"]
    assert x.toarray().astype(int).tolist() == [[0, 1, 1, 1, 0], [1, 0, 1, 0, 1], [0, 1, 1, 1, 0], [0, 0, 0, 0, 0]]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-4, 4, allow_nan=False), min_size=2, max_size=30),
       st.lists(st.floats(-6, 6, allow_nan=False), min_size=1, max_size=10), st.integers(1, 4))
def test_tables_are_closed_and_keep_the_features_of_min_support_training_rows(train, test, min_support):
    kg = KGFeatures(NumberLine(), min_support=min_support)
    try:
        x = kg.fit_transform(train)
    except ValueError as exc:  # only when no feature reaches min_support
        assert "keeps none" in str(exc)
        return
    assert (x.sum(axis=0) >= min_support).all()
    for rows in (x, kg.transform(test)):
        assert rows.hierarchy is kg.hierarchy_ and kg.hierarchy_.violations(rows).nnz == 0
    assert (kg.transform(train) != x).nnz == 0


# the checks reduce X to the one column this estimator takes (its one_d_array tag), then index it as 2-D themselves
_CHECK_2D = "the check itself indexes or unpacks the one column it made of X as a 2-D array"
_NO_N_FEATURES = "one column of values, not features (as CountVectorizer): no n_features_in_"
EXPECTED_FAILED = {
    **dict.fromkeys(["check_dont_overwrite_parameters", "check_f_contiguous_array_estimator",
                     "check_transformer_data_not_an_array", "check_transformer_general",
                     "check_methods_sample_order_invariance", "check_methods_subset_invariance", "check_fit2d_1sample",
                     "check_fit2d_1feature", "check_dict_unchanged", "check_fit2d_predict1d"], _CHECK_2D),
    "check_n_features_in": _NO_N_FEATURES,
    "check_n_features_in_after_fitting": _NO_N_FEATURES,
    "check_fit1d": "1-D input is what this estimator takes (a column of entities or texts)",
    "check_estimators_nan_inf": "a missing value (NaN) or an id no source knows (inf) is an unknown entity: an "
                                "empty row, counted in n_unknown_, never an error",
    "check_estimator_sparse_array": "a sparse matrix is no column of entities or texts (TypeError); the check "
                                    "fails converting its 1-D sparse array before that",
}


@parametrize_with_checks([KGFeatures(NumberLine())], expected_failed_checks=lambda est: EXPECTED_FAILED)
def test_sklearn_checks(estimator, check):
    check(estimator)


# ------------------------------------------------------------------ relations (kg.rdf.relations) in a Pipeline
def test_qualified_relations_in_a_pipeline_with_the_label_property_excluded(tmp_path):
    """People by country: the country's own property is excluded, the rest (birth place, qualified by its class)
    carries the signal; the relation look-ups of a grid are asked once per entity."""
    import rdflib
    from sklearn.model_selection import GridSearchCV
    from sklearn.naive_bayes import BernoulliNB
    from sklearn.pipeline import Pipeline

    from kg.rdf.sources.rdflib_graph import RdflibSource
    from kg.rdf.vocabulary import Vocabulary
    from selection.hierarchical import SHSEL

    ex, o = "http://ex.org/", "http://ex.org/o/"
    lines = [f"<{o}City> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <{o}Place> ."]
    X, y = [], []
    for i in range(40):
        country = "fr" if i % 2 else "de"
        city = f"{ex}{country}city{i % 5}"
        lines += [f"<{ex}p{i}> <{o}citizen> <{ex}{country}> .", f"<{ex}p{i}> <{o}birthPlace> <{city}> .",
                  f"<{city}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{o}City> ."]
        if i % 2 or i % 3 == 0:  # French people (and a third of the others) have a job
            lines.append(f"<{ex}p{i}> <{o}job> <{ex}job{i % 3}> .")
        X.append(f"{ex}p{i}")
        y.append(country)
    graph = rdflib.Graph().parse(data="\n".join(lines), format="nt")
    source = RdflibSource(graph, vocabulary=Vocabulary("ex", type_namespaces=(o,), relations=(o,), entities=(ex,)))
    kg = KGFeatures(source, features=["qualified-relations"], exclude_properties=[o + "citizen"])
    Xt = kg.fit_transform(X)
    names = kg.get_feature_names_out().tolist()
    assert f"out:{o}birthPlace|{o}City" in names and f"out:{o}birthPlace|{o}Place" in names
    assert not any("citizen" in n for n in names)  # the label's property is out
    pipe = Pipeline([("kg", kg), ("select", SHSEL(hierarchy="from_input")), ("clf", BernoulliNB())])
    search = GridSearchCV(pipe, {"kg__min_support": [1, 2], "kg__direction": ["out", "both"]}, cv=4).fit(X, y)
    assert search.best_estimator_["select"].hierarchy_ is search.best_estimator_["kg"].hierarchy_
    asked = shared_lookups(source).asked
    assert asked["relations-out"] == len(X) and asked["relations-in"] == len(X)  # once each, for the whole grid
    assert Xt.shape[0] == len(X)


# ------------------------------------------------------------------ the front door from Python (issue 38, point 6)
# Wikidata-shaped people, all humans (the types tell nothing): athletes have teams (P54, one of them two), politicians
# positions (P39); everybody has a citizenship (P27). Human's classes have a subclass-of cycle (Q5 -> Q6 -> Q5).
def _people(n=24):
    wd, wdt = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
    lines = [f"<{wd}Q5> <{wdt}P279> <{wd}Q6> .", f"<{wd}Q6> <{wdt}P279> <{wd}Q5> .",
             f"<{wd}Q6> <{wdt}P279> <{wd}Q215627> ."]
    X, y = [], []
    for i in range(n):
        e = f"{wd}Q{1000 + i}"
        lines += [f"<{e}> <{wdt}P31> <{wd}Q5> .", f"<{e}> <{wdt}P27> <{wd}Q{30 + i % 3}> ."]
        if i % 2:
            lines.append(f"<{e}> <{wdt}P39> <{wd}Q{500 + i % 4}> .")
        else:
            lines += [f"<{e}> <{wdt}P54> <{wd}Q{700 + i % 5}> ."] + \
                ([f"<{e}> <{wdt}P54> <{wd}Q799> ."] if i == 0 else [])
        X.append(e)
        y.append("politician" if i % 2 else "athlete")
    return "\n".join(lines) + "\n", np.array(X, dtype=object), np.array(y)


@pytest.fixture()
def people(tmp_path):
    """(an IndexSource over the people's file made with the plain Wikidata vocabulary, the people, their jobs)."""
    from kg.rdf.index.dumpindex import DumpIndex
    from kg.rdf.sources.index import IndexSource
    from kg.rdf.vocabulary import WIKIDATA

    text, X, y = _people()
    (tmp_path / "people.nt").write_text(text, encoding="utf-8")
    return IndexSource(tmp_path / "people.nt", DumpIndex(tmp_path / "index"), vocabulary=WIKIDATA), X, y


WDT = "http://www.wikidata.org/prop/direct/"
CV4 = StratifiedKFold(4, shuffle=True, random_state=0)


def test_a_grid_over_feature_kinds_with_relations_picks_by_real_scores(people):
    """The plain Wikidata vocabulary: relations just work, no NaN score, and the grid picks them over the
    types (chance: every person is a human)."""
    source, X, y = people
    pipe = Pipeline([("kg", KGFeatures(source)), ("clf", BernoulliNB())])
    grid = {"kg__features": ["types", "relations", ["types", "relations"], "qualified-relations"]}
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # a failed fit (FitFailedWarning) fails the test
        warnings.simplefilter("ignore", HierarchyCycleWarning)
        search = GridSearchCV(pipe, grid, cv=CV4).fit(X, y)
    scores = dict(zip(map(str, grid["kg__features"]), search.cv_results_["mean_test_score"]))
    assert all(np.isfinite(list(scores.values()))), scores
    assert scores["types"] == 0.5 and scores["relations"] == 1.0
    assert search.best_params_ == {"kg__features": "relations"} and search.best_score_ == 1.0
    assert f"out:{WDT}P54" in search.best_estimator_["kg"].vocabulary_


def test_fit_names_the_feature_kinds_the_source_cannot_give(people, tmp_path):
    from kg.errors import ParameterError
    from kg.rdf.sources.index import IndexSource
    from kg.rdf.vocabulary import WD, Vocabulary

    source, X, _ = people
    with pytest.raises(ParameterError) as err:
        KGFeatures(source, features="categories").fit(X)
    assert str(err.value) == ("features='categories': IndexSource's vocabulary 'wikidata' has no category predicates "
                              "(its `subject` is empty); pass features='types', or a vocabulary with `subject` "
                              "predicates")
    with pytest.raises(ParameterError, match=r"^features=\['relations', 'categories'\]: IndexSource's vocabulary "
                                             r"'wikidata' has no category predicates \(its `subject` is empty\) "
                                             r"\('categories' needs them\); pass features='relations', or"):
        KGFeatures(source, features=["relations", "categories"]).fit(X)
    assert shared_lookups(source).asked["types"] == 0 and source._segments is None  # nothing was looked up
    bare = IndexSource(source.paths, source.index, vocabulary=Vocabulary("bare", instance_of=(WDT + "P31",),
                                                                         type_namespaces=(WD,)))
    with pytest.raises(ParameterError) as err:
        KGFeatures(bare, features="qualified-relations").fit(X)
    assert str(err.value) == ("features='qualified-relations': IndexSource's vocabulary 'bare' names no relation "
                              "predicates (its `relations` namespaces are empty); pass features='types', or a "
                              "vocabulary with `relations` namespaces (in a preset file, or "
                              "Vocabulary(relations=...))")
    genes = OntologyAnnotations(OBO, ANNOTATIONS)
    with pytest.raises(ParameterError) as err:
        KGFeatures(genes, features="relations").fit(["FBgn0000008"])
    assert str(err.value) == ("features='relations': OntologyAnnotations does not answer relation questions (it has "
                              "no relations() and property_edges()); pass features='types', or a source that "
                              "answers them (IndexSource, DumpSource, SparqlSource or RdflibSource)")
    g = rdflib.Graph().parse(format="nt", data=_people()[0])
    with pytest.raises(ParameterError, match="^features='categories': rdflib.Graph's vocabulary 'wikidata' has no "):
        KGFeatures(g, vocabulary="wikidata", features="categories").fit(X)


def test_grid_search_shows_the_error_with_error_score_raise_and_hides_it_by_default(people):
    """scikit-learn's default error_score=np.nan turns a failed fit into a NaN score (and a warning), so a grid
    picks among the settings that work; error_score="raise" raises the fit's error (docs/sklearn_pipeline.md)."""
    from sklearn.exceptions import FitFailedWarning

    from kg.errors import ParameterError

    source, X, y = people
    pipe = Pipeline([("kg", KGFeatures(source)), ("clf", BernoulliNB())])
    grid = {"kg__features": ["types", "categories"]}
    with pytest.raises(ParameterError, match="^features='categories': IndexSource's vocabulary 'wikidata' has no "
                                             "category predicates"):
        GridSearchCV(pipe, grid, cv=CV4, error_score="raise").fit(X, y)
    with pytest.warns(FitFailedWarning, match="features='categories': IndexSource's vocabulary 'wikidata' has no"):
        quiet = GridSearchCV(pipe, grid, cv=CV4).fit(X, y)
    assert np.isnan(quiet.cv_results_["mean_test_score"][1]) and quiet.best_params_ == {"kg__features": "types"}


def test_relation_counts_of_the_plain_vocabulary_source(people):
    """values="count": a cell holds how many relations stand behind it (the first athlete has two teams), in fit
    and in transform, and the counts are closed upward as presence is."""
    source, X, _ = people
    kg = KGFeatures(source, features="relations", values="count")
    x = kg.fit_transform(X)
    col = kg.vocabulary_[f"out:{WDT}P54"]
    assert x[0, col] == 2 and x[2, col] == 1 and x[1, col] == 0
    assert x[:, kg.vocabulary_[f"out:{WDT}P27"]].toarray().ravel().tolist() == [1] * len(X)
    np.testing.assert_array_equal(kg.transform(X[:3]).toarray(), x[:3].toarray())
    binary = KGFeatures(source, features="relations").fit_transform(X)
    np.testing.assert_array_equal(binary.toarray(), (x.toarray() > 0).astype(float))
    assert kg.hierarchy_.violations(binary).nnz == 0


def _cycle_reports(caplog, recwarn) -> int:
    """How many times the cycle was reported: warnings and log records must agree."""
    from kg.errors import HierarchyCycleWarning

    warned = [w for w in recwarn.list if issubclass(w.category, HierarchyCycleWarning)]
    logged = [r for r in caplog.records if r.name == "kg.rdf.table" and "cycle" in r.getMessage()]
    assert len(warned) == len(logged)
    assert all("Q5 ≡ http://www.wikidata.org/entity/Q6" in str(w.message) for w in warned)
    recwarn.clear()
    caplog.clear()
    return len(warned)


def test_a_cycle_is_reported_once_per_source_object(people, caplog, recwarn):
    from kg.rdf.sources.index import IndexSource

    source, X, y = people
    caplog.set_level(logging.WARNING)
    first = KGFeatures(source).fit(X)
    assert _cycle_reports(caplog, recwarn) == 1
    assert first.fit_report_["merged_cycles"]  # every fit still records it
    again = KGFeatures(source).fit(X)
    KGFeatures(source, min_support=2).fit_transform(X[:10])
    clone(first).fit(X)
    GridSearchCV(Pipeline([("kg", KGFeatures(source)), ("clf", BernoulliNB())]),
                 {"kg__min_support": [1, 2]}, cv=CV4).fit(X, y)
    assert _cycle_reports(caplog, recwarn) == 0  # the same source: nothing more
    assert again.fit_report_["merged_cycles"] == first.fit_report_["merged_cycles"]
    other = IndexSource(source.paths, source.index, vocabulary=source.vocabulary)
    KGFeatures(other).fit(X)
    assert _cycle_reports(caplog, recwarn) == 1  # a new source warns again


def test_codex_musicians_from_the_plain_wikidata_vocabulary_end_to_end(shared_data, tmp_path):
    """Real Wikidata (CoDEx, truthy shape): humans with an instrument (P1303, excluded from the features) or not,
    through an IndexSource made with the plain vocabulary; the grid over feature kinds raises nothing and picks
    the relations (record labels, genres: a musician's), the types (every one is a human) being at chance."""
    import gzip

    from kg.rdf.index.dumpindex import DumpIndex
    from kg.rdf.sources.index import IndexSource
    from kg.rdf.vocabulary import WD, WIKIDATA

    codex = shared_data / "wikidata" / "codex_truthy.nt.gz"
    human, instrument = set(), set()
    with gzip.open(codex, "rt", encoding="utf-8") as fh:
        for line in fh:
            s, p, o = line.split(" ", 2)
            if p == f"<{WDT}P31>" and o.startswith(f"<{WD}Q5>"):
                human.add(s[1:-1])
            elif p == f"<{WDT}P1303>":
                instrument.add(s[1:-1])
    X = np.array(sorted(human & instrument)[:100] + sorted(human - instrument)[:100], dtype=object)
    y = np.array([1] * 100 + [0] * 100)
    source = IndexSource(codex, DumpIndex(tmp_path / "index"), vocabulary=WIKIDATA)
    pipe = Pipeline([("kg", KGFeatures(source, min_support=3, exclude_properties=["P1303"])), ("clf", BernoulliNB())])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HierarchyCycleWarning)
        search = GridSearchCV(pipe, {"kg__features": ["types", "relations"]}, cv=StratifiedKFold(3, shuffle=True,
                              random_state=0), error_score="raise").fit(X, y)
    types, relations = search.cv_results_["mean_test_score"]
    assert abs(types - 0.5) < 0.05 and relations > 0.9, (types, relations)
    assert search.best_params_ == {"kg__features": "relations"}
    assert not any(f.endswith("P1303") for f in search.best_estimator_["kg"].vocabulary_)
    # the columns' labels: relations by the dump's labels of their property entities (wd:P264 for wdt:P264)
    kg = search.best_estimator_["kg"]
    labels = dict(zip(kg.vocabulary_, kg.feature_labels_, strict=True))
    assert labels[f"out:{WDT}P264"] == "out: record label", labels[f"out:{WDT}P264"]
    qualified = KGFeatures(source, features="qualified-relations", min_support=20).fit(X, y)
    named = dict(zip(qualified.vocabulary_, qualified.feature_labels_, strict=True))
    assert named[f"out:{WDT}P106|{WD}Q639669"] == "out: occupation | musician"
    assert named[f"out:{WDT}P106"] == "out: occupation"
