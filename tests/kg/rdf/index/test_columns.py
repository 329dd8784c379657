"""String columns (kg.rdf.index.columns): written as they come, whatever their length, and read back as written."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.rdf.index import columns
from kg.rdf.index.columns import StringColumn, StringColumnWriter


@settings(max_examples=40, deadline=None)
@given(strings=st.lists(st.text(max_size=6), max_size=60), block=st.integers(1, 7),
       cuts=st.lists(st.integers(0, 60), max_size=6))
def test_a_column_reads_back_what_was_written_whatever_the_block(tmp_path_factory, strings, block, cuts):
    """Strings added one by one and in batches (``extend``, as the terms are), across the blocks of offsets."""
    d = tmp_path_factory.mktemp("col")
    old, columns._OFFSETS_BLOCK = columns._OFFSETS_BLOCK, block
    try:
        w = StringColumnWriter(d, "s")
        bounds = sorted({0, len(strings), *(c for c in cuts if c <= len(strings))})
        for k, (a, b) in enumerate(zip(bounds, bounds[1:])):
            if k % 2:
                w.extend(strings[a:b])
            else:
                for s in strings[a:b]:
                    w.add(s)
            assert len(w) == b  # a term's row is the column's length when it is written
        assert len(w) == len(strings)
        assert w.close() == len(strings)
    finally:
        columns._OFFSETS_BLOCK = old
    col = StringColumn(d, "s")
    assert len(col) == len(strings)
    assert list(col) == strings == col.take(range(len(strings))) == col.read(range(len(strings)))
    lengths = [len(s.encode("utf-8", "surrogatepass")) for s in strings]
    assert np.load(d / "s.offsets.npy").tolist() == np.cumsum([0, *lengths]).tolist()


def test_the_writer_holds_one_block_of_offsets_not_the_column(tmp_path):
    w = StringColumnWriter(tmp_path, "s")
    n = columns._OFFSETS_BLOCK * 3 + 5
    for i in range(n):
        w.add(str(i))
        assert len(w._offsets) <= columns._OFFSETS_BLOCK
    assert w.close() == n
    assert StringColumn(tmp_path, "s")[n - 1] == str(n - 1)


def test_an_empty_column(tmp_path):
    assert StringColumnWriter(tmp_path, "e").close() == 0
    col = StringColumn(tmp_path, "e")
    assert len(col) == 0 and list(col) == [] and np.load(tmp_path / "e.offsets.npy").tolist() == [0]
