"""kg.collector: the cyclic garbage collector paused for a block, resumed as it was, also after an error."""

import gc
import threading

import pytest

from kg.collector import collector_paused


@pytest.fixture(autouse=True)
def _collector_on():
    yield
    gc.enable()


def test_an_error_inside_resumes_it():
    with pytest.raises(RuntimeError), collector_paused():
        assert not gc.isenabled()
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_collector_turned_off_before_stays_off():
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_as_a_decorator_and_across_threads():
    inside = []

    @collector_paused()
    def build():
        inside.append(gc.isenabled())

    started, release = threading.Event(), threading.Event()

    def long_build():
        with collector_paused():
            started.set()
            release.wait(10)

    t = threading.Thread(target=long_build)
    t.start()
    started.wait(10)
    build()  # ends while the other thread's block is still open: the collector stays paused for it
    assert inside == [False] and not gc.isenabled()
    release.set()
    t.join(10)
    assert gc.isenabled()


def test_fetching_a_table_leaves_it_on():
    from kg.rdf.stored import StoredSource
    from kg.rdf.table import build_hierarchy, fetch_facts

    facts, edges, _ = fetch_facts({"t1": ["E"]}, StoredSource({"E": ["T"]}, [("T", "Thing")], "memory"))
    build_hierarchy({"T"}, edges)
    assert facts == {"t1": {"T"}} and gc.isenabled()
