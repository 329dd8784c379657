"""External sorting (kg.rdf.index.extsort): whatever the memory budget, the merge gives every row in key order,
groups whole, and the files it writes read back as NumPy's own."""

import tracemalloc

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.rdf.index import extsort
from kg.rdf.index.extsort import (
    ColumnReader,
    NpyWriter,
    SortedRuns,
    SpillPool,
    lex_le,
    return_freed_memory,
    sort_order,
    write_pair_array,
)

rows = st.lists(st.tuples(st.integers(0, 6), st.integers(0, 3), st.integers(-5, 5)), max_size=120)


@settings(max_examples=60, deadline=None)
@given(batches=st.lists(rows, max_size=8), budget=st.sampled_from([0, 40, 400, 1 << 30]),
       block=st.integers(1, 50), group=st.integers(0, 2))
def test_merged_rows_are_every_row_in_key_order_with_groups_whole(tmp_path_factory, batches, budget, block, group):
    d = tmp_path_factory.mktemp("runs")
    with SortedRuns(d, "t", ("a", "b"), pool=SpillPool(budget)) as runs:
        for b in batches:
            a = np.array([r[0] for r in b], np.uint64)
            runs.add(a=a, b=np.array([r[1] for r in b], np.uint64), v=np.array([r[2] for r in b], np.int64))
        blocks = list(runs.merged(block_rows=block, group=group))
        got = [(int(x), int(y), int(z)) for bl in blocks for x, y, z in zip(bl["a"], bl["b"], bl["v"])]
        want = [r for b in batches for r in b]
        assert sorted(got) == sorted(want) and len(runs) == len(want)
        assert [g[:2] for g in got] == sorted(g[:2] for g in want)
        if group:
            keys = [tuple(int(bl[k][i]) for k in ("a", "b")[:group]) for bl in blocks for i in (0, -1)]
            assert all(keys[2 * i + 1] != keys[2 * i + 2] for i in range(len(blocks) - 1))
        assert list(runs.merged(block_rows=block)) or not want  # it can be read again
    assert not list(d.iterdir())  # closing removed the runs


def test_a_small_budget_spills_runs_and_a_large_one_none(tmp_path):
    small, large = SortedRuns(tmp_path, "s", ("k",), pool=SpillPool(100)), SortedRuns(tmp_path, "l", ("k",))
    for _ in range(10):
        for r in (small, large):
            r.add(k=np.arange(20, 0, -1, dtype=np.uint64))
    assert small.n_runs >= 5 and large.n_runs == 0
    assert [b["k"].tolist() for b in small.merged()] == [b["k"].tolist() for b in large.merged()]
    small.close()
    large.close()


def test_runs_past_the_limit_are_merged_into_one(tmp_path, monkeypatch):
    monkeypatch.setattr(extsort, "MAX_RUNS", 3)
    rng = np.random.default_rng(1)
    runs = SortedRuns(tmp_path, "t", ("k",), pool=SpillPool(0))  # every add spills a run
    want = []
    for i in range(10):
        k = rng.integers(0, 50, 7).astype(np.uint64)
        runs.add(k=k, v=np.arange(7, dtype=np.int64) + 7 * i)
        want += list(zip(k.tolist(), range(7 * i, 7 * i + 7)))
        assert runs.n_runs < 3
    got = [(int(k), int(v)) for b in runs.merged(block_rows=4) for k, v in zip(b["k"], b["v"])]
    assert [k for k, _ in got] == sorted(k for k, _ in want) and sorted(got) == sorted(want)
    runs.close()
    assert not list(tmp_path.iterdir())  # the merged runs' files are gone too


def test_one_pool_spills_its_largest_member(tmp_path):
    pool = SpillPool(1000)
    big, little = SortedRuns(tmp_path, "b", ("k",), pool=pool), SortedRuns(tmp_path, "l", ("k",), pool=pool)
    little.add(k=np.arange(10, dtype=np.uint64))
    big.add(k=np.arange(200, dtype=np.uint64))
    assert big.n_runs == 1 and little.n_runs == 0 and pool.held() == 80


def test_sort_order_and_lex_le_on_literal_rows():
    a, b = np.array([3, 1, 3, 1], np.uint64), np.array([0, 9, 0, 2], np.uint64)
    assert sort_order([a, b]).tolist() == [3, 1, 0, 2]
    assert sort_order([np.array([2, 2, 1]), np.array([5, 4, 9])]).tolist() == [2, 1, 0]  # ties out of order
    assert lex_le([a, b], (1, 9)).tolist() == [False, True, False, True]


def test_npy_files_written_in_blocks_are_numpys(tmp_path):
    with NpyWriter(tmp_path / "a.npy", np.uint32) as w:
        for k in range(5):
            w.write(np.arange(k, dtype=np.int64))
    assert np.load(tmp_path / "a.npy").tolist() == [0, 0, 1, 0, 1, 2, 0, 1, 2, 3]
    assert np.load(tmp_path / "a.npy").dtype == np.uint32
    (tmp_path / "hi").write_bytes(np.arange(3, dtype="<u8").tobytes())
    (tmp_path / "lo").write_bytes(np.arange(3, 6, dtype="<u8").tobytes())
    write_pair_array(tmp_path / "k.npy", tmp_path / "hi", tmp_path / "lo", np.uint64, 3)
    assert np.load(tmp_path / "k.npy", mmap_mode="r").tolist() == [[0, 1, 2], [3, 4, 5]]
    r = ColumnReader(tmp_path / "k.npy", row=1)
    assert r.read(1, 2).tolist() == [4, 5] and len(r) == 3
    r.close()


def test_a_member_read_from_memory_is_not_spilled_the_others_are(tmp_path):
    pool = SpillPool(budget_bytes=3000)
    read = SortedRuns(tmp_path, "read", ("k",), pool=pool)
    other = SortedRuns(tmp_path, "other", ("k",), pool=pool)
    read.add(k=np.arange(200, 0, -1, dtype=np.uint64))  # 1,600 bytes: held, no run
    got = []
    for b in read.merged(block_rows=50):  # while it is read, the other member passes the budget
        got += b["k"].tolist()
        other.add(k=b["k"].copy())
    assert got == list(range(1, 201))
    assert read.n_runs == 0 and other.n_runs >= 1  # spilling the one read would only have copied its rows
    assert [x for b in other.merged() for x in b["k"].tolist()] == got


def test_a_spill_holds_one_column_more_not_a_second_copy_of_every_column(tmp_path):
    n, columns = 200_000, [f"c{i}" for i in range(8)]
    runs = SortedRuns(tmp_path, "t", ("c0",), pool=SpillPool(1 << 40))
    rng = np.random.default_rng(0)
    for a in range(0, n, n // 4):
        runs.add(**{c: rng.integers(0, 1 << 40, n // 4).astype(np.uint64) for c in columns})
    held = runs.held_bytes  # 12.8 MB
    tracemalloc.start()
    try:
        runs.spill()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # the sorted rows (written out), the order and one column's concatenation; was: every column twice, and more
    assert peak < held * 1.5
    assert runs.n_runs == 1 and runs.held_bytes == 0
    k = np.concatenate([b["c0"] for b in runs.merged()])
    assert (np.diff(k.astype(np.int64)) >= 0).all() and len(k) == n
    runs.close()


def _rss_anon_mb() -> float:
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("RssAnon:")) / 1024


def test_freed_blocks_go_back_to_the_system():
    if not return_freed_memory():
        import pytest

        pytest.skip("not glibc")
    big = np.ones(8 << 17)  # 8 MB freed: glibc would have raised its mmap threshold past the blocks below
    del big
    before = _rss_anon_mb()
    blocks, small = [], []
    for _ in range(64):  # 1 MB blocks with small survivors between them (a heap could not shrink)
        blocks.append(np.ones(1 << 17))
        small.append(bytearray(4096))  # malloc's (over pymalloc's 512 bytes), above each block
    del blocks
    assert _rss_anon_mb() - before < 16
