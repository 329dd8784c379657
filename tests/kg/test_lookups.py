"""SharedLookups: a source's answers asked once, the same answers as the source, on disk across processes."""

from __future__ import annotations

import gc
from pathlib import Path

import rdflib

from kg.lookups import _SHARED, SharedLookups, shared_lookups
from kg.rdf.table import make_source

C = "http://dbpedia.org/resource/Category:"


def counting(source, method: str) -> list:
    """Record the keys passed to ``source.<method>`` (the real method answers)."""
    calls: list = []
    real = getattr(source, method)

    def counted(keys, *args):
        keys = list(keys)
        calls.extend(keys)
        return real(keys, *args)

    setattr(source, method, counted)
    return calls


def test_category_walks_of_any_depth_reuse_the_parents_fetched(kg_dump_dir):
    source = make_source("dump", dump=kg_dump_dir)
    calls = counting(source, "broader")
    lookups = SharedLookups(source)
    cats = [C + "Jamaican_cricketers", C + "Serbian_male_tennis_players"]
    for depth in (1, 3, 2, None, 3, 0):
        assert lookups.broader(cats, depth) == make_source("dump", dump=kg_dump_dir).broader(cats, depth)
    assert len(calls) == len(set(calls))  # each category's parents fetched once


def test_class_edges_are_the_sources_and_each_class_is_asked_once(kg_dump_dir, tweets10):
    source = make_source("dump", dump=kg_dump_dir)
    fresh = make_source("dump", dump=kg_dump_dir)
    calls = counting(source, "class_edges")
    lookups = SharedLookups(source)
    entities = [e for ents in tweets10.entities for e in ents]
    classes = sorted({t for ts in fresh.types(entities).values() for t in ts})
    for part in (classes[:3], classes, classes[2:5], classes):
        assert lookups.class_edges(part) == fresh.class_edges(part)
    assert len(calls) == len(set(calls)) and set(calls) <= set(classes)


def test_answers_on_disk_serve_another_process(kg_dump_dir, tweets10, tmp_path):
    entities = [e for ents in tweets10.entities for e in ents]
    first = shared_lookups(make_source("dump", dump=kg_dump_dir), memory=tmp_path)
    types = first.types(entities)
    classes = sorted({t for ts in types.values() for t in ts})
    edges = first.class_edges(classes)
    walk = first.broader([C + "Jamaican_cricketers"], None)
    # another source object over the same files (same describe()): what a worker process unpickles
    second = shared_lookups(make_source("dump", dump=kg_dump_dir), memory=tmp_path)
    assert second.types(entities) == types
    assert second.class_edges(classes[:1]) == make_source("dump", dump=kg_dump_dir).class_edges(classes[:1])
    assert second.class_edges(classes) == edges and second.broader([C + "Jamaican_cricketers"], None) == walk
    assert set(second.asked.values()) == {0}
    assert (tmp_path / "kgfs-lookups.sqlite").is_file()


def test_answers_are_kept_per_source_object_and_go_with_it():
    gc.collect()  # the sources of earlier tests go first: only these two are counted
    g = rdflib.Graph()
    twin = rdflib.Graph(identifier=g.identifier)  # equal to g, not the same graph
    assert shared_lookups(g).asked is shared_lookups(g).asked
    assert shared_lookups(twin).asked is not shared_lookups(g).asked
    before = len(_SHARED)
    del g, twin
    gc.collect()
    assert len(_SHARED) == before - 2


def _open_memo(args):
    from kg.lookups import _DiskMemo

    folder, start = args
    import time

    time.sleep(max(0.0, start - time.time()))  # every process at once
    memo = _DiskMemo(Path(folder), "one source")
    memo.put("types", {f"k{i}": ["v"] for i in range(50)})
    return sorted(memo.get("types", ["k1"]).get("k1", []))


def test_processes_opening_one_new_lookups_file_at_once_all_get_in(tmp_path):
    """Switching a new file to WAL needs it alone: SQLite says "database is locked" at once to the others, whatever
    the busy timeout (GridSearchCV's workers on one fresh memory folder); the switch is retried."""
    import multiprocessing
    import time

    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:
        for round_ in range(6):
            folder = tmp_path / f"m{round_}"
            start = time.time() + 1.0
            assert all(r in ([], ["v"]) for r in pool.map(_open_memo, [(str(folder), start)] * 8))
