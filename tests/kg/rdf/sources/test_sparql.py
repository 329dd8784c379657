"""The SPARQL source against a real Oxigraph server on 127.0.0.1 (and a fault-injecting proxy)."""

import json

import pytest

from kg.iri import InvalidIRIError
from kg.rdf.sources.dump import DumpSource
from kg.rdf.sources.sparql import SparqlSource
from kg.rdf.sources.sparql_protocol import SourceUnavailableError, SparqlError
from kg.sources import KnowledgeSource
from tests.kg.conftest import DBO, DEJA_VU, ENTITIES, R
from tests.kg.servers import FaultyProxy, OxigraphServer, free_port

ENTS = [R + n for n in ENTITIES]
HOSTILE = "http://dbpedia.org/resource/> } ; DROP ALL #"


@pytest.fixture(scope="module")
def dump(kg_dump_dir):
    return DumpSource(kg_dump_dir, type_namespaces=["dbo", "yago", "schema"])


def test_same_facts_as_the_dump(oxigraph_server, dump, kg_dump_dir):
    for ns in (None, ["dbo", "yago", "schema"]):
        s = SparqlSource(oxigraph_server.url, batch_size=4, type_namespaces=ns)
        d = DumpSource(kg_dump_dir, type_namespaces=ns)
        assert isinstance(s, KnowledgeSource)
        types = s.types(ENTS)
        assert types == d.types(ENTS)
        classes = set().union(*types.values())
        assert s.class_edges(classes) == d.class_edges(classes)
    s = SparqlSource(oxigraph_server.url, batch_size=3)
    cats = s.categories(ENTS)
    assert cats == dump.categories(ENTS)
    start = set().union(*cats.values())
    for depth in (0, 1, 2, None):
        assert s.broader(start, depth) == dump.broader(start, depth)
    assert s.types([DEJA_VU]) == {DEJA_VU: set()}


def test_superclasses_by_levels_equal_the_anchored_paths(oxigraph_server):
    classes = {DBO + "Cricketer", DBO + "SoccerClub", DBO + "River", DBO + "City"}
    a = SparqlSource(oxigraph_server.url, superclasses="path")
    b = SparqlSource(oxigraph_server.url, superclasses="levels")
    assert a.class_edges(classes) == b.class_edges(classes)
    assert b.stats["queries"] > a.stats["queries"]  # one query per level vs one per batch
    # answers are kept at the source boundary: known classes and their ancestors cost nothing
    sent = a.stats["queries"]
    sub = a.class_edges({DBO + "Athlete", DBO + "City"})
    assert a.stats["queries"] == sent
    assert sub == b.class_edges({DBO + "Athlete", DBO + "City"})
    assert (DBO + "Athlete", DBO + "Person") in sub and not any(c == DBO + "Cricketer" for c, _ in sub)


def test_queries_are_anchored_and_batched_with_values(oxigraph_server):
    with FaultyProxy(oxigraph_server.url) as proxy:
        s = SparqlSource(proxy.url, batch_size=10)
        types = s.types(ENTS)
        s.class_edges(set().union(*types.values()))
    values_queries = [q for q in proxy.queries if "VALUES ?a" in q]
    assert len(values_queries) == 3  # 24 entities in batches of 10
    path_queries = [q for q in proxy.queries if "subClassOf>*" in q]
    assert path_queries and all("{ <http://dbpedia.org/ontology/" in q for q in path_queries)
    assert not any("?c <http://www.w3.org/2000/01/rdf-schema#subClassOf>+" in q for q in proxy.queries)


def test_hostile_input_never_reaches_a_query_raw(oxigraph_server):
    s = SparqlSource(oxigraph_server.url)
    with pytest.raises(InvalidIRIError, match="invalid or unsafe IRI"):
        s.types([HOSTILE])
    with pytest.raises(InvalidIRIError):
        s.types(["http://x/\x80"])  # IRIREF-safe but not a valid IRI: refused before sending
    assert s.stats["queries"] == 0
    with pytest.raises(InvalidIRIError):
        s.categories(["> } ; DROP ALL #"])
    with pytest.raises(ValueError):
        SparqlSource(oxigraph_server.url, type_namespaces=["not a namespace"])
    # a namespace with quotes is escaped as a string literal, not spliced
    odd = SparqlSource(oxigraph_server.url, type_namespaces=['http://x/") } DROP ALL #'])
    assert odd.types([R + "Chris_Gayle"]) == {R + "Chris_Gayle": set()}


def test_hostile_corpus_value_is_normalised_then_queried_safely(oxigraph_server, tmp_path):
    from kg.rdf.corpus import read_corpus
    from kg.rdf.table import assemble_table

    p = tmp_path / "c.jsonl"
    p.write_text(json.dumps({"id": 1, "entity": [HOSTILE], "label": 0}) + "\n"
                 + json.dumps({"id": 2, "entity": [R + "Chris_Gayle"], "label": 1}) + "\n")
    c = read_corpus(p, entity_columns="entity")
    assert c.entities[0] == ["http://dbpedia.org/resource/%3E%20%7D%20;%20DROP%20ALL%20#"]
    t = assemble_table(c, None, SparqlSource(oxigraph_server.url))
    assert t.X[0].nnz == 0 and DBO + "Cricketer" in t.feature_names
    # the store is intact
    assert SparqlSource(oxigraph_server.url).types([R + "Lyon"])[R + "Lyon"] == {DBO + "City"}


def test_cut_results_are_split_never_silently_truncated(oxigraph_server, dump):
    with FaultyProxy(oxigraph_server.url, max_rows=5) as proxy:
        s = SparqlSource(proxy.url, batch_size=24, type_namespaces=["dbo", "yago", "schema"])
        assert s.types(ENTS) == dump.types(ENTS)
        assert s.stats["splits"] >= 2 and s.max_rows == 5
        # one value whose answer alone is over the cut: paged with ORDER BY/LIMIT/OFFSET
        proxy.max_rows = 2
        s2 = SparqlSource(proxy.url)
        edges = s2.class_edges([DBO + "Cricketer"])
        assert s2.stats["pages"] >= 2
        assert edges == dump.class_edges([DBO + "Cricketer"])


def test_retries_on_503_429_timeouts_and_malformed_results(oxigraph_server):
    with FaultyProxy(oxigraph_server.url) as proxy:
        proxy.faults = [("status", 503), ("status", 429), ("malformed", None), ("slow", 2.2)]
        s = SparqlSource(proxy.url, backoff=0.01, timeout=1)
        assert s.types([R + "Lyon"]) == {R + "Lyon": {DBO + "City"}}
        assert s.stats["retries"] == 4
        proxy.faults = [("status", 503)] * 3
        s = SparqlSource(proxy.url, backoff=0.01, retries=2)
        with pytest.raises(SourceUnavailableError, match=r"failed 3 time\(s\), last: HTTP 503"):
            s.types([R + "Lyon"])


def test_no_retry_on_a_rejected_query_or_other_4xx(oxigraph_server):
    s = SparqlSource(oxigraph_server.url.replace("/query", "/nowhere"), backoff=0.01)
    with pytest.raises(SparqlError, match="rejected|HTTP 404"):
        s.types([R + "Lyon"])
    assert s.stats["queries"] == 1 and s.stats["retries"] == 0
    s = SparqlSource(oxigraph_server.url)
    with pytest.raises(SparqlError, match="rejected the query"):
        s._fetch("SELECT ?a WHERE { this is not sparql }")
    assert s.stats["retries"] == 0


def test_disk_cache_makes_a_rerun_silent(oxigraph_server, tmp_path):
    s = SparqlSource(oxigraph_server.url, cache_dir=tmp_path, batch_size=5)
    first = s.types(ENTS)
    sent = s.stats["queries"]
    files = list((tmp_path / "sparql").rglob("*.json"))
    assert len(files) == sent == 5 and all("query" in json.loads(f.read_text()) for f in files)
    again = SparqlSource(oxigraph_server.url, cache_dir=tmp_path, batch_size=5)
    assert again.types(ENTS) == first and again.stats["queries"] == 0 and again.stats["cache_hits"] == 5


def test_server_stopped_mid_run_then_rerun_resumes(kg_dump_dir, tmp_path):
    from kg.rdf.corpus import Corpus
    from kg.rdf.table import assemble_table

    srv = OxigraphServer([kg_dump_dir / "ontology.owl", kg_dump_dir / "instances.nt"], tmp_path).start()
    try:
        corpus = Corpus(ids=[f"i{k}" for k in range(len(ENTS))], entities=[[e] for e in ENTS],
                        labels=[k % 2 for k in range(len(ENTS))])

        def stop_after_two(stage, done, total):
            if stage == "types" and done == 2:
                srv.stop()

        s = SparqlSource(srv.url, cache_dir=tmp_path / "cache", batch_size=4, retries=1, backoff=0.01,
                         progress=stop_after_two)
        with pytest.raises(SourceUnavailableError, match=r"127\.0\.0\.1:\d+/query failed 2 time\(s\).*"
                                                         r"cached in .*cache.*rerun"):
            assemble_table(corpus, None, s)
        srv.start()  # same port, same store
        s2 = SparqlSource(srv.url, cache_dir=tmp_path / "cache", batch_size=4)
        table = assemble_table(corpus, None, s2)
        assert s2.stats["cache_hits"] == 2  # the two finished batches were not asked again
        expected = assemble_table(corpus, None, DumpSource(kg_dump_dir))
        assert (table.X != expected.X).nnz == 0 and list(table.feature_names) == list(expected.feature_names)
    finally:
        srv.stop()


def test_unreachable_endpoint(tmp_path):
    s = SparqlSource(f"http://127.0.0.1:{free_port()}/sparql", retries=1, backoff=0.01)
    with pytest.raises(SourceUnavailableError, match="failed 2 time"):
        s.types([R + "Lyon"])


def test_parameter_checks():
    with pytest.raises(ValueError):
        SparqlSource("http://127.0.0.1:1/sparql", superclasses="magic")
    with pytest.raises(ValueError):
        SparqlSource("http://127.0.0.1:1/sparql", batch_size=0)


def test_random_category_graph_online_equals_offline(tmp_path):
    """A seeded random category graph with many cycles, served by Oxigraph and read as a dump."""
    import random

    rng = random.Random(7)
    lines = []
    for c in range(300):
        for p in rng.sample(range(300), rng.choice([0, 1, 1, 2, 3])):
            lines.append(f"<{R}Category:C{c}> <http://www.w3.org/2004/02/skos/core#broader> <{R}Category:C{p}> .")
    for e in range(60):
        for c in rng.sample(range(300), 2):
            lines.append(f"<{R}E{e}> <http://purl.org/dc/terms/subject> <{R}Category:C{c}> .")
    (tmp_path / "cats.nt").write_text("\n".join(lines) + "\n")
    srv = OxigraphServer([tmp_path / "cats.nt"], tmp_path).start()
    try:
        online, offline = SparqlSource(srv.url, batch_size=25), DumpSource([tmp_path / "cats.nt"])
        ents = [f"{R}E{e}" for e in range(60)]
        cats = online.categories(ents)
        assert cats == offline.categories(ents)
        start = set().union(*cats.values())
        for depth in (0, 1, 2, 3, None):
            assert online.broader(start, depth) == offline.broader(start, depth)
    finally:
        srv.stop()


def test_a_server_that_never_answers_fails_within_the_time_allowed(tmp_path):
    """It accepts the connection and never answers: the retries stop at the deadline, not after 5 x 60 s."""
    import time

    from kg.errors import DeadlineError
    from kg.rdf.steps import is_transient
    from tests.kg.servers import HangingServer

    with HangingServer() as srv:
        src = SparqlSource(srv.url, timeout=1, max_total=3, backoff=0.2, retries=10, cache_dir=tmp_path)
        t0 = time.monotonic()
        with pytest.raises(DeadlineError, match=r"gave up after \d s .*failed \d time\(s\), last: .*timed out.*"
                                                r"rerun the same command to resume") as info:
            src.types(ENTS[:3])
        assert time.monotonic() - t0 < 6
        assert 2 <= srv.connections <= 4
    assert not is_transient(info.value)  # the pipeline does not multiply the bound by its own retries
