"""Integration: the SPARQL source against Debian's Virtuoso 7 (what DBpedia runs), on 127.0.0.1.

Shows that the client copes with Virtuoso's two traps: open-ended property paths are refused
("transitive start not given") and every result is cut at ResultSetMaxRows = 10,000 rows,
flagged only by the ``X-SPARQL-MaxRows`` header. Install Virtuoso with ``.ci/setup-virtuoso.sh``.
"""

import shutil
import warnings

import pytest

from kg.errors import HierarchyCycleWarning
from kg.rdf.sources.dump import DumpSource
from kg.rdf.sources.sparql import SparqlSource
from kg.rdf.sources.sparql_protocol import TransitiveStartError, TruncatedResultError
from kg.rdf.table import assemble_table
from tests.kg.conftest import DBO, ENTITIES, RDF_TYPE, R
from tests.kg.servers import ISQL_BIN, VIRTUOSO_BIN, VirtuosoServer

pytestmark = pytest.mark.integration

N_BIG, TYPES_PER_BIG = 150, 100  # one batch of 150 entities answers 15,000 rows > 10,000
HUGE = R + "Entity_with_12000_types"
SC = "<http://www.w3.org/2000/01/rdf-schema#subClassOf>"
UNICODE = R + "Z\u00fcrich,_Caf\u00e9_(\u6771\u4eac)_%22q%22"


def _ontology_classes(path) -> list[str]:
    import pyoxigraph as ox

    owl_class = ox.NamedNode("http://www.w3.org/2002/07/owl#Class")
    return sorted(q.subject.value for q in ox.parse(path=path, format=ox.RdfFormat.RDF_XML)
                  if q.object == owl_class and q.subject.value.startswith(DBO))


@pytest.fixture(scope="module")
def load_dir(kg_dump_dir, tmp_path_factory):
    d = tmp_path_factory.mktemp("virtuoso-load")
    shutil.copy(kg_dump_dir / "ontology.owl", d / "ontology.owl")
    shutil.copy(kg_dump_dir / "instances.nt", d / "instances.nt")
    classes = _ontology_classes(d / "ontology.owl")
    with open(d / "big.nt", "w") as fh:
        for i in range(N_BIG):
            for k in range(TYPES_PER_BIG):
                c = classes[(i * 7 + k) % len(classes)]
                fh.write(f"<{R}Big_{i}> <{RDF_TYPE}> <{c}> .\n")
        fh.write(f"<{UNICODE}> <{RDF_TYPE}> <{DBO}City> .\n")
        for k in range(12000):
            fh.write(f"<{HUGE}> <{RDF_TYPE}> <{DBO}Generated_{k}> .\n")
    return d


@pytest.fixture(scope="module")
def virtuoso(load_dir, tmp_path_factory):
    if VIRTUOSO_BIN is None or ISQL_BIN is None:
        pytest.skip("virtuoso-opensource is not installed (run .ci/setup-virtuoso.sh)")
    srv = VirtuosoServer(tmp_path_factory.mktemp("virtuoso-db"), load_dir)
    try:
        srv.start()
        srv.load()
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def dump(load_dir):
    return DumpSource(load_dir)


class OpenEndedSource(SparqlSource):
    """A client that asks for superclasses the naive way, as many tools do."""

    def _superclass_path_query(self, values):
        return f"SELECT DISTINCT ?a ?b WHERE {{ ?a {SC}+ ?b . FILTER(isIRI(?a) && isIRI(?b)) }}"


def test_open_ended_path_is_refused_and_not_retried(virtuoso):
    s = SparqlSource(virtuoso.url, backoff=0.01)
    with pytest.raises(TransitiveStartError, match="transitive start not given"):
        s._fetch(f"SELECT ?a ?b WHERE {{ ?a {SC}+ ?b }}")
    assert s.stats["retries"] == 0


def test_superclasses_with_anchored_paths_and_the_fallback(virtuoso, dump):
    classes = {DBO + "Cricketer", DBO + "SoccerClub", DBO + "River", DBO + "City", DBO + "FictionalCharacter"}
    expected = dump.class_edges(classes)
    anchored = SparqlSource(virtuoso.url, batch_size=2)
    assert anchored.class_edges(classes) == expected
    assert anchored._path_ok is True
    naive = OpenEndedSource(virtuoso.url, backoff=0.01)
    assert naive.class_edges(classes) == expected  # Virtuoso refused, the client walked levels
    assert naive._path_ok is False
    strict = OpenEndedSource(virtuoso.url, superclasses="path")
    with pytest.raises(TransitiveStartError):
        strict.class_edges(classes)


@pytest.mark.parametrize("features", ["types", "categories"])
def test_same_table_as_the_dump_and_the_index(virtuoso, dump, load_dir, tweets10, features, tmp_path):
    from kg.rdf.index.dumpindex import DumpIndex
    from kg.rdf.sources.index import IndexSource

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HierarchyCycleWarning)
        online = assemble_table(tweets10, None, SparqlSource(virtuoso.url, batch_size=4), features=features,
                             category_depth=None)
        offline = assemble_table(tweets10, None, dump, features=features, category_depth=None)
        indexed = assemble_table(tweets10, None, IndexSource(load_dir, DumpIndex(tmp_path / "index")),
                              features=features, category_depth=None)
    for other in (offline, indexed):
        assert list(online.feature_names) == list(other.feature_names)
        assert (online.X != other.X).nnz == 0
        assert online.hierarchy == other.hierarchy


def test_the_10000_row_cut_is_detected_and_the_batch_split(virtuoso, dump):
    big = [f"{R}Big_{i}" for i in range(N_BIG)]
    s = SparqlSource(virtuoso.url, batch_size=N_BIG)
    rows, truncated = s._fetch(s._types_query(big))
    assert len(rows) == 10000 and truncated  # what a naive client would silently use
    assert s.max_rows == 10000  # learned from X-SPARQL-MaxRows
    s = SparqlSource(virtuoso.url, batch_size=N_BIG)
    got = s.types(big)
    assert s.stats["splits"] >= 1
    assert got == dump.types(big)
    assert sum(len(v) for v in got.values()) == N_BIG * TYPES_PER_BIG


def test_one_value_over_the_cut_raises_rather_than_truncates(virtuoso):
    s = SparqlSource(virtuoso.url, backoff=0.01, retries=0)
    with pytest.raises(TruncatedResultError, match="ResultSetMaxRows"):
        s.types([HUGE])


def test_entities_of_the_tweets(virtuoso):
    s = SparqlSource(virtuoso.url)
    t = s.types([R + n for n in ENTITIES])
    assert t[R + "Novak_Djokovic"] == {DBO + "TennisPlayer"} and t[R + "LGBT"] == set()


def test_default_graph_is_sent(virtuoso):
    e = R + "Novak_Djokovic"
    assert SparqlSource(virtuoso.url, graph=virtuoso.graph).types([e])[e] == {DBO + "TennisPlayer"}
    assert SparqlSource(virtuoso.url, graph="http://example.org/other").types([e])[e] == set()


def test_non_ascii_and_escaped_iris_come_back_unchanged(virtuoso, dump):
    s = SparqlSource(virtuoso.url)
    assert s.types([UNICODE]) == {UNICODE: {DBO + "City"}} == dump.types([UNICODE])
