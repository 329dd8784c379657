import json

import pytest

from kg.rdf.annotators.spotlight import SpotlightAnnotator, SpotlightError, parse_annotate_response
from kg.sources import Annotator
from tests.kg.servers import SpotlightServer, free_port

R = "http://dbpedia.org/resource/"
FORMS = {
    "Chris Gayle": (R + "Chris_Gayle", 598, "DBpedia:Cricketer,DBpedia:Athlete,DBpedia:Person,Schema:Person"),
    "Djokovic": (R + "Novak_Djokovic", 1702, "DBpedia:TennisPlayer,DBpedia:Athlete"),
    "Thames": (R + "River_Thames", 2881, ""),
}
TEXTS = [
    "Did you know Chris Gayle is the only player to be dismissed for 99?",
    "#Djokovic wants to keep it sweet. #AusOpen",
    "Nothing to find here.",
    "walking beside the Thames today, Chris Gayle too",
]


@pytest.fixture
def server():
    with SpotlightServer(FORMS) as srv:
        yield srv


def client(server, tmp_path=None, **kw):
    kw.setdefault("backoff", 0.01)
    return SpotlightAnnotator(server.url, cache_dir=tmp_path, **kw)


def test_real_response_files_parse(shared_data):
    a = json.loads(
        (shared_data / "spotlight" / "mannheim_ELDocJson_comment_health_insurance_annotate.json").read_text())
    anns = parse_annotate_response(a)
    assert [(x.uri, x.offset, x.support) for x in anns] == [
        (R + "Health_insurance", 0, 2481), (R + "Alternative_medicine", 57, 2520)]
    assert a["@text"][57:57 + len(anns[1].surface_form)] == "complementary medicine"
    b = json.loads((shared_data / "spotlight" / "namedropper_test_spotlight_sample_result_annotate.json").read_text())
    (m,) = parse_annotate_response(b)
    assert m.types[:3] == ("DBpedia:Writer", "DBpedia:Artist", "DBpedia:Person")
    assert m.score == pytest.approx(0.171113520860672)
    assert parse_annotate_response({"@text": "x", "@confidence": "0.5"}) == []  # nothing found: no Resources key
    single = dict(a, Resources=a["Resources"][0])  # one resource as an object, not a list
    assert [x.uri for x in parse_annotate_response(single)] == [R + "Health_insurance"]


def test_annotate_sends_the_parameters_and_reads_the_answer(server):
    sp = client(server, confidence=0.35, support=20, types="DBpedia:Person", policy="blacklist")
    assert isinstance(sp, Annotator)
    out = sp.annotate(TEXTS)
    assert [[a.uri for a in anns] for anns in out] == [
        [R + "Chris_Gayle"], [R + "Novak_Djokovic"], [], [R + "River_Thames", R + "Chris_Gayle"]]
    assert out[0][0].offset == 13 and out[0][0].support == 598 and "DBpedia:Athlete" in out[0][0].types
    req = server.requests[0]
    assert req["confidence"] == "0.35" and req["support"] == "20"
    assert req["types"] == "DBpedia:Person" and req["policy"] == "blacklist"
    assert sorted(r["text"] for r in server.requests) == sorted(TEXTS)


def test_rerun_sends_nothing_twice(server, tmp_path):
    first = client(server, tmp_path).annotate(TEXTS)
    assert len(server.requests) == 4
    again = client(server, tmp_path)
    assert again.annotate(TEXTS + TEXTS[:2]) == first + first[:2]
    assert len(server.requests) == 4 and again.stats["requests"] == 0 and again.stats["cache_hits"] == 4
    files = list((tmp_path / "spotlight").rglob("*.json"))
    assert len(files) == 4 and all(json.loads(f.read_text())["@text"] in TEXTS for f in files)  # JSON, not pickle
    # other parameters are other answers: asked again
    client(server, tmp_path, confidence=0.9).annotate(TEXTS[:1])
    assert len(server.requests) == 5


def test_duplicate_and_empty_texts(server):
    out = client(server).annotate([TEXTS[0], "", TEXTS[0], "   "])
    assert len(server.requests) == 1
    assert out[1] == [] and out[3] == [] and out[0] == out[2]


def test_503_and_429_are_retried(server):
    server.faults = [("status", 503), ("status", 429), ("status", 502)]
    sp = client(server)
    out = sp.annotate(TEXTS[:1])
    assert out[0][0].uri == R + "Chris_Gayle"
    assert sp.stats["retries"] == 3 and len(server.requests) == 4


def test_other_4xx_is_not_retried(server):
    sp = SpotlightAnnotator(server.url.replace("/rest/annotate", "/wrong/annotate"), backoff=0.01)
    with pytest.raises(SpotlightError, match="HTTP 404"):
        sp.annotate(TEXTS[:1])
    assert len(server.requests) == 1 and sp.stats["retries"] == 0


def test_malformed_json_is_retried_then_reported(server):
    server.faults = [("malformed", None)]
    assert client(server).annotate(TEXTS[:1])[0][0].uri == R + "Chris_Gayle"
    server.always = ("malformed", None)
    with pytest.raises(SpotlightError, match=r"failed 3 time\(s\).*malformed JSON"):
        client(server, retries=2).annotate(TEXTS[1:2])


def test_slow_answer_times_out_and_is_retried(server):
    server.faults = [("slow", 1.5)]
    sp = client(server, timeout=0.5)
    out = sp.annotate(TEXTS[:1])
    assert out[0][0].uri == R + "Chris_Gayle" and sp.stats["retries"] == 1


def test_bounded_concurrency(server):
    server.delay = 0.15
    texts = [f"Chris Gayle number {i}" for i in range(12)]
    sp = client(server, max_workers=3, batch_size=6)
    progress = []
    sp.progress = lambda stage, done, total: progress.append((stage, done, total))
    out = sp.annotate(texts)
    assert all(o[0].uri == R + "Chris_Gayle" for o in out)
    assert 2 <= server.max_concurrent <= 3
    assert progress == [("annotate", 1, 2), ("annotate", 2, 2)]


def test_server_gone_fails_clearly_and_a_rerun_reuses_finished_answers(server, tmp_path):
    client(server, tmp_path).annotate(TEXTS[:2])
    server.httpd.shutdown()
    server.httpd.server_close()
    sp = client(server, tmp_path, retries=1)
    with pytest.raises(SpotlightError, match=r"failed 2 time\(s\) on text #2.*ConnectionError.*rerun to resume"):
        sp.annotate(TEXTS[:3])
    assert sp.stats["cache_hits"] == 2  # the first two were not asked again
    dead = SpotlightAnnotator(f"http://127.0.0.1:{free_port()}/rest/annotate", retries=0)
    with pytest.raises(SpotlightError, match="failed 1 time"):
        dead.annotate(["x"])


def test_parameter_checks():
    with pytest.raises(ValueError):
        SpotlightAnnotator("http://127.0.0.1:1/rest", policy="greylist")
    with pytest.raises(ValueError):
        SpotlightAnnotator("http://127.0.0.1:1/rest", confidence=2)
    assert SpotlightAnnotator("http://127.0.0.1:1/rest/").url == "http://127.0.0.1:1/rest/annotate"


def test_a_server_that_never_answers_fails_within_the_time_allowed(tmp_path):
    import time

    from kg.errors import DeadlineError
    from kg.rdf.steps import is_transient
    from tests.kg.servers import HangingServer

    with HangingServer() as srv:
        sp = SpotlightAnnotator(f"http://127.0.0.1:{srv.port}/rest", timeout=1, max_total=2.5, backoff=0.2,
                                retries=10, cache_dir=tmp_path, max_workers=2)
        t0 = time.monotonic()
        with pytest.raises(DeadlineError, match=r"gave up after \d s .*Spotlight.*rerun to resume") as info:
            sp.annotate(TEXTS)
        assert time.monotonic() - t0 < 6
    assert not is_transient(info.value)
