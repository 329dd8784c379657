"""The SPARQL client under a public service's rules, on real sockets: a loopback server with the Wikidata
Query Service's User-Agent policy, its HTTP 429 + Retry-After and its time limit, in front of a real
Oxigraph; and the parsing of the real query-service responses of ``wikidata/wdqs``."""

import json
import re
import time

import pytest

from kg.errors import DeadlineError, TransientError
from kg.rdf.sources.sparql import SparqlSource
from kg.rdf.sources.sparql_protocol import SparqlError, default_user_agent, parse_results
from tests.kg.conftest import DBO, ENTITIES, R
from tests.kg.servers import PolicyServer

ENTS = [R + n for n in ENTITIES]


def test_the_default_user_agent_follows_the_policy_and_a_generic_one_is_refused_by_name(oxigraph_server,
                                                                                      monkeypatch):
    monkeypatch.delenv("KGFS_USER_AGENT", raising=False)
    monkeypatch.delenv("KGFS_CONTACT", raising=False)
    with PolicyServer(oxigraph_server.url) as srv:
        assert SparqlSource(srv.url).types([R + "Lyon"]) == {R + "Lyon": {DBO + "City"}}
        agent = srv.requests[-1][1]
        assert agent == default_user_agent() and PolicyServer.UA.match(agent)
        assert re.match(r"kgfs/\d[\w.]* \(\+https://pypi\.org/project/kgfs/\) SPARQLWrapper/[\d.]+ Python/[\d.]+$",
                        agent)
        generic = SparqlSource(srv.url, user_agent="Python-urllib/3.11", retries=3)
        with pytest.raises(SparqlError, match=r"refused the request for its User-Agent.*User-Agent_policy.*"
                                              r"KGFS_CONTACT"):
            generic.types([R + "Lyon"])
        assert generic.stats["retries"] == 0  # a refusal is not retried
        monkeypatch.setenv("KGFS_CONTACT", "someone@example.org")
        assert SparqlSource(srv.url).types([R + "Lyon"]) == {R + "Lyon": {DBO + "City"}}
        assert srv.requests[-1][1].startswith("kgfs/") and "(someone@example.org)" in srv.requests[-1][1]
        monkeypatch.setenv("KGFS_USER_AGENT", "MyBot/1.0 (https://example.org/bot) kgfs/0.1")
        SparqlSource(srv.url).types([R + "Lyon"])
        assert srv.requests[-1][1] == "MyBot/1.0 (https://example.org/bot) kgfs/0.1" and srv.requests[-1][3] == 200


@pytest.mark.parametrize("date", [False, True])
def test_429_is_waited_out_as_retry_after_says(oxigraph_server, date):
    with PolicyServer(oxigraph_server.url, limit_every=1.0, retry_after=1, date_retry_after=date) as srv:
        src = SparqlSource(srv.url, batch_size=5, backoff=0.01)  # its own backoff would retry at once
        assert src.types(ENTS[:10]) == {e: t for e, t in SparqlSource(oxigraph_server.url).types(ENTS[:10]).items()}
        statuses = [r[3] for r in srv.requests]
        assert statuses.count(429) >= 1 and statuses[-1] == 200 and src.stats["retries"] == statuses.count(429)
        for k, (t, _a, _q, status) in enumerate(srv.requests[:-1]):
            if status == 429:  # the next request came after the wait asked for (an HTTP date: whole seconds)
                assert srv.requests[k + 1][0] - t >= 0.95


def test_a_retry_after_beyond_the_time_allowed_fails_at_once_naming_it(oxigraph_server):
    with PolicyServer(oxigraph_server.url, limit_every=60, retry_after=120) as srv:
        SparqlSource(srv.url).types([R + "Lyon"])  # accepted; the next one within a minute is refused
        t0 = time.monotonic()
        with pytest.raises(DeadlineError, match=r"HTTP 429 \(Retry-After: 120 s\)"):
            SparqlSource(srv.url, max_total=30, backoff=0.01).types([R + "Chris_Gayle"])
        assert time.monotonic() - t0 < 5  # not waited, not hammered
        assert [r[3] for r in srv.requests] == [200, 429]


def test_a_retry_after_over_the_longest_wait_is_refused_without_waiting():
    from kg.errors import MAX_RETRY_AFTER, RetryPolicy, retry

    def call():
        raise TransientError("HTTP 429", str(int(MAX_RETRY_AFTER) + 1))

    waits = []
    with pytest.raises(RuntimeError, match=r"Retry-After: 901 s"):
        retry(call, RetryPolicy(retries=5, sleep=waits.append), what="t", give_up=lambda n, e: RuntimeError(str(e)))
    assert waits == []


def test_batches_that_time_out_are_split_and_later_batches_start_at_the_size_that_worked(oxigraph_server):
    with PolicyServer(oxigraph_server.url, max_values=4) as srv:
        src = SparqlSource(srv.url, batch_size=16, timeout=30)
        got = src.types(ENTS)
        assert got == SparqlSource(oxigraph_server.url).types(ENTS)
        assert src.stats["timeouts"] >= 2 and src.batch_limit <= 4
        answered = [q for _t, _a, q, status in srv.requests if status == 200]
        timed_out = [q for _t, _a, q, status in srv.requests if status == 500]
        assert all("java" not in q for q in answered) and len(timed_out) == src.stats["timeouts"]
        n = len(srv.requests)
        # the source remembers: new entities go in batches of the size that worked, never timing out again
        src.categories(ENTS)
        assert all(status == 200 for *_x, status in srv.requests[n:])
        assert len(srv.requests) - n == -(-len(ENTS) // src.batch_limit)


def test_a_batch_grows_back_after_fast_answers_but_not_past_a_size_that_timed_out(oxigraph_server):
    with PolicyServer(oxigraph_server.url, max_values=6) as srv:
        src = SparqlSource(srv.url, batch_size=24, timeout=30)
        src.batch_limit = 2  # as after a busy period of the service
        src.types(ENTS)
        sizes = [len(re.findall(r"<http://dbpedia", q.split("VALUES", 1)[1].split("}", 1)[0]))
                 for _t, _a, q, _s in srv.requests]
        assert sizes[0] == 2 and max(sizes) > 2  # grew
        assert [s for (_t, _a, _q, status), s in zip(srv.requests, sizes) if status == 500] == [8]  # one probe
        assert src.batch_limit == 4  # below the size that timed out


def test_a_single_value_that_times_out_is_retried_then_reported(oxigraph_server):
    with PolicyServer(oxigraph_server.url, max_values=0) as srv:
        src = SparqlSource(srv.url, retries=1, backoff=0.01)
        with pytest.raises(Exception, match=r"failed 2 time\(s\), last: the server timed out the query"):
            src.types([R + "Lyon"])
        assert len(srv.requests) == 2


# ------------------------------------------------------------------------------ the real responses
def _wdqs(shared_data, name: str) -> bytes:
    return (shared_data / "wikidata" / "wdqs" / name).read_bytes()


def test_real_query_service_responses_are_parsed(shared_data):
    vars_, rows = parse_results(_wdqs(shared_data, "single_var_sparql_results.json"))
    assert vars_ == ["genre"] and len(rows) == 5
    assert [r[0] for r in rows] == ["http://www.wikidata.org/entity/Q112983", "http://www.wikidata.org/entity/Q185598",
                                    "http://www.wikidata.org/entity/Q3879286", None,  # a blank node: no IRI
                                    "http://www.wikidata.org/entity/Q1473346"]
    vars_, rows = parse_results(_wdqs(shared_data, "multi_vars_sparql_results.json"))
    assert vars_ == ["entity", "entityLabel", "year"]
    assert rows[0] == ["http://www.wikidata.org/entity/Q3731207", {"literal": "Ercole Patti"}, {"literal": "1903"}]
    assert rows[1][0] is None and rows[1][1] == {"literal": "FAKE BNODE"}
    vars_, rows = parse_results(_wdqs(shared_data, "sparql_results_with_optional_values.json"))
    assert len(vars_) == 15 and rows[0][vars_.index("composer")] == "http://www.wikidata.org/entity/Q952428"
    assert rows[0][vars_.index("genre")] is None  # an optional variable left unbound
    vars_, rows = parse_results(_wdqs(shared_data, "sparql_results_with_nested_associated_variables.json"))
    assert vars_ == ["item", "end", "endTime", "endTimePrecision"] and rows[1] == [
        "http://www.wikidata.org/entity/Q111338362", None, None, None]
    vars_, rows = parse_results(_wdqs(shared_data, "sparql_results_with_statements.json"))
    assert all(r[0].startswith("http://www.wikidata.org/entity/statement/") for r in rows)
    vars_, rows = parse_results(_wdqs(shared_data, "results_with_labels_descriptions_and_aliases.json"))
    assert rows[1][vars_.index("itemLabel")] == {"literal": "Søren Kierkegaard"}
    assert parse_results(_wdqs(shared_data, "no_datatype_sparql_results.json"))[1][0][2] == {"literal": "1937"}
    for name in ("Q1.json", "wbgetentities_response.json"):  # API entity JSON is no SPARQL result
        with pytest.raises((KeyError, TypeError)):
            parse_results(_wdqs(shared_data, name))


def test_real_responses_over_http_give_the_facts_of_their_iris(shared_data):
    """A query answered (over a real socket) with the service's real JSON: the source keeps the IRI rows of
    the entities asked about, skips blank nodes and literals, and caches nothing odd."""
    single = json.loads(_wdqs(shared_data, "single_var_sparql_results.json"))
    # the same genres as the ?b of a fact query about one entity (the shape kgfs's queries have)
    doc = {"head": {"vars": ["a", "b"]}, "results": {"bindings": [
        {"a": {"type": "uri", "value": "http://www.wikidata.org/entity/Q42"}, "b": b["genre"]}
        for b in single["results"]["bindings"]]}}
    with PolicyServer(responses=[json.dumps(doc).encode(), _wdqs(shared_data, "multi_vars_sparql_results.json"),
                                 _wdqs(shared_data, "Q1.json")]) as srv:
        from kg.rdf.vocabulary import WIKIDATA

        src = SparqlSource(srv.url, vocabulary=WIKIDATA, retries=0)
        got = src.facts("same_as", ["http://www.wikidata.org/entity/Q42"])
        assert got == {"http://www.wikidata.org/entity/Q42": {
            "http://www.wikidata.org/entity/Q112983", "http://www.wikidata.org/entity/Q185598",
            "http://www.wikidata.org/entity/Q3879286", "http://www.wikidata.org/entity/Q1473346"}}
        rows, truncated = src._fetch("SELECT ?entity ?entityLabel ?year WHERE {}")
        assert rows == parse_results(_wdqs(shared_data, "multi_vars_sparql_results.json"))[1] and not truncated
        with pytest.raises(Exception, match="malformed SPARQL JSON result"):
            src._fetch("SELECT * WHERE {}")  # an entity document where a result was expected
