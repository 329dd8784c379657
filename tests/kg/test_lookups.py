"""SharedLookups: a source's answers asked once, the same answers as the source, on disk across processes."""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
import rdflib
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.errors import KgfsError
from kg.lookups import _SHARED, LookupsCacheWarning, SharedLookups, _DiskMemo, shared_lookups
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


# --------------------------------------------------------------------------- damage and concurrency of the disk memo
# Real damage to a real cache file: SQLite notices some of it on opening (the header), some only on the page it
# reads (a truncated file, a page of garbage), and none of it inside a row's text (a flipped byte): the row digests.
def _overwrite_header(p: Path) -> None:
    with open(p, "r+b") as fh:
        fh.write(b"this is no SQLite header, " * 4)


def _truncate(p: Path) -> None:
    os.truncate(p, p.stat().st_size // 2 + 123)


def _garbage_page(p: Path) -> None:
    with open(p, "r+b") as fh:
        fh.seek(p.stat().st_size // 2 // 4096 * 4096)
        fh.write(bytes(range(256)) * 16)


def _flip_a_byte_of_a_value(p: Path) -> None:
    data = bytearray(p.read_bytes())
    i = data.rfind(b"ontology/")
    assert i > 0
    data[i + 3] ^= 0x01
    p.write_bytes(bytes(data))


DAMAGE = {"header overwritten": _overwrite_header, "truncated": _truncate, "garbage page": _garbage_page,
          "flipped byte in a value": _flip_a_byte_of_a_value}


def _memo_file(folder: Path) -> Path:
    return folder / "kgfs-lookups.sqlite"


def _filled(folder: Path, n: int = 3000) -> dict[str, set[str]]:
    """A cache big enough to span many pages, through the real SharedLookups path; the answers written."""
    memo = _DiskMemo(folder, "one source")
    answers = {f"http://dbpedia.org/resource/E{i}": {f"http://dbpedia.org/ontology/C{i % 37}"} for i in range(n)}
    memo.put("types", answers)
    return answers


def _aside(folder: Path) -> list[Path]:
    return sorted(folder.glob("kgfs-lookups.damaged-*.sqlite"))


@pytest.mark.parametrize("damage", list(DAMAGE), ids=list(DAMAGE))
@pytest.mark.parametrize("check", [True, False], ids=["checked on opening", "found at a later read"])
def test_a_damaged_cache_is_named_in_one_warning_moved_aside_and_rebuilt(tmp_path, damage, check):
    answers = _filled(tmp_path)
    DAMAGE[damage](_memo_file(tmp_path))
    with pytest.warns(LookupsCacheWarning) as caught:
        memo = _DiskMemo(tmp_path, "one source", check=check)
        assert memo.get("types", sorted(answers)) == {}  # nothing of the damaged file is read back
    assert len(caught) == 1 and str(_memo_file(tmp_path)) in str(caught[0].message)
    (aside,) = _aside(tmp_path)
    assert aside.name in str(caught[0].message)
    memo.put("types", answers)  # the new file works, and is clean
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _DiskMemo(tmp_path, "one source").get("types", sorted(answers)) == answers


def test_damage_after_opening_is_caught_at_the_next_write(tmp_path):
    _filled(tmp_path)
    memo = _DiskMemo(tmp_path, "one source")
    _overwrite_header(_memo_file(tmp_path))
    with pytest.warns(LookupsCacheWarning, match="not a database"):
        memo.put("types", {"k": {"v"}})
    assert memo.get("types", ["k"]) == {"k": {"v"}} and len(_aside(tmp_path)) == 1


def test_shared_lookups_answer_as_the_source_over_a_damaged_cache(kg_dump_dir, tweets10, tmp_path):
    entities = [e for ents in tweets10.entities for e in ents]
    types = shared_lookups(make_source("dump", dump=kg_dump_dir), memory=tmp_path).types(entities)
    _garbage_page(_memo_file(tmp_path)) if _memo_file(tmp_path).stat().st_size > 8192 else \
        _overwrite_header(_memo_file(tmp_path))
    with pytest.warns(LookupsCacheWarning, match="kgfs-lookups.sqlite"):
        again = shared_lookups(make_source("dump", dump=kg_dump_dir), memory=tmp_path)
        assert again.types(entities) == types
    assert again.asked["types"] == len(set(entities))  # asked of the source again, not read from the damage


def test_a_file_of_another_format_is_moved_aside(tmp_path):
    db = sqlite3.connect(_memo_file(tmp_path))
    db.execute("CREATE TABLE answers (source TEXT, kind TEXT, key TEXT, value TEXT, PRIMARY KEY (source, kind, key))")
    db.execute("INSERT INTO answers VALUES ('x', 'types', 'k', '[\"stale\"]')")
    db.commit()
    db.close()
    with pytest.warns(LookupsCacheWarning, match="format 0"):
        memo = _DiskMemo(tmp_path, "one source")
    assert memo.get("types", ["k"]) == {}


def test_an_error_that_is_not_damage_names_the_file(tmp_path):
    memo = _DiskMemo(tmp_path, "one source")
    memo.timeout = 0.2
    holder = sqlite3.connect(_memo_file(tmp_path), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process's write that does not end
    try:
        with pytest.raises(KgfsError, match=r"kgfs-lookups\.sqlite: the look-up cache cannot be used \(database is "
                                            r"locked\)"):
            memo.put("types", {"k": {"v"}})
    finally:
        holder.close()
    assert not _aside(tmp_path)  # a busy file is not a damaged one


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=10)  # any text an IRI or a label has


@settings(max_examples=30, deadline=None)
@given(st.one_of(*(st.dictionaries(_TEXT, st.sets(value, max_size=4), max_size=15)  # types, or relations' pairs
                   for value in (_TEXT, st.tuples(_TEXT, _TEXT)))))
def test_answers_round_trip_with_their_digests(tmp_path_factory, answers):
    folder = tmp_path_factory.mktemp("memo")
    _DiskMemo(folder, "src").put("relations-out", answers)
    assert _DiskMemo(folder, "src").get("relations-out", list(answers)) == answers
    assert _DiskMemo(folder, "another source").get("relations-out", list(answers)) == {}


def _writer(args):
    """Write rows ``[first, first + n)`` in transactions of 10 (each a connection of its own, as SharedLookups
    writes), each row's value naming its key, reading some back between writes; some keys overlap with the other
    writers'."""
    folder, first, n, start = args
    time.sleep(max(0.0, start - time.time()))  # every process at once
    memo = _DiskMemo(Path(folder), "one source")
    for i in range(first, first + n, 10):
        memo.put("types", {f"k{j}": [f"v{j}"] for j in range(i, min(i + 10, first + n))})
        assert memo.get("types", [f"k{i}"]) == {f"k{i}": {f"v{i}"}}
    return memo.get("types", [f"k{first}"])


def test_four_processes_writing_one_cache_at_once(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    start = time.time() + 1.5
    with ctx.Pool(4) as pool:
        got = pool.map(_writer, [(str(tmp_path), w * 800, 1000, start) for w in range(4)])  # 200 keys shared
    assert got == [{f"k{w * 800}": {f"v{w * 800}"}} for w in range(4)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no damage
        memo = _DiskMemo(tmp_path, "one source")
    keys = [f"k{j}" for j in range(3400)]
    assert memo.get("types", keys) == {k: {"v" + k[1:]} for k in keys}


def test_every_process_finds_one_damaged_file_and_one_moves_it_aside(tmp_path):
    _filled(tmp_path)
    _overwrite_header(_memo_file(tmp_path))
    ctx = multiprocessing.get_context("spawn")
    start = time.time() + 1.5
    with ctx.Pool(4) as pool:
        got = pool.map(_writer, [(str(tmp_path), w * 10, 50, start) for w in range(4)])
    assert got == [{f"k{w * 10}": {f"v{w * 10}"}} for w in range(4)]
    assert len(_aside(tmp_path)) == 1  # moved aside once, not once per process (and no new file moved aside)
    assert len(_DiskMemo(tmp_path, "one source").get("types", [f"k{j}" for j in range(80)])) == 80


_KILLED_WRITER = """
import sys
from pathlib import Path
from kg.lookups import _DiskMemo
memo = _DiskMemo(Path(sys.argv[1]), "one source")
print("ready", flush=True)
i = 0
while True:
    memo.put("types", {f"k{j}": [f"v{j}"] for j in range(i, i + 200)})
    i += 200
"""


def test_a_writer_killed_mid_write_leaves_a_cache_every_row_of_which_checks(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(tmp_path)], stdout=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    try:
        assert proc.stdout.readline().strip() == b"ready"
        time.sleep(1.0)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # SQLite's journal: no damage, every committed row whole
        memo = _DiskMemo(tmp_path, "one source")
        got = memo.get("types", [f"k{j}" for j in range(200_000)])
    n = len(got)
    assert n > 0 and n % 200 == 0 and got == {f"k{j}": {f"v{j}"} for j in range(n)}
