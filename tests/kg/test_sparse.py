"""kg.sparse: the sort-based distinct values and rows are NumPy's np.unique, and the upward walk is the closure."""

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from kg.sparse import distinct, distinct_rows, reach_upward

small = st.integers(-3, 40)
big = st.sampled_from([0, 1, 2**40, 2**62])  # three columns of these overflow one int64 key: NumPy's row sort


@given(arrays(np.int64, st.integers(0, 30), elements=small))
def test_distinct_is_np_unique(a):
    assert np.array_equal(distinct(a), np.unique(a))


@settings(max_examples=200)
@given(st.integers(1, 3).flatmap(lambda k: arrays(np.int64, st.tuples(st.integers(0, 25), st.just(k)),
                                                   elements=st.one_of(small, big))))
def test_distinct_rows_is_np_unique_by_rows(a):
    want, inverse = np.unique(a, axis=0, return_inverse=True)
    got, got_inverse = distinct_rows(a, return_inverse=True)
    assert np.array_equal(distinct_rows(a), want) and np.array_equal(got, want)
    assert np.array_equal(got_inverse, inverse.ravel())


@given(st.integers(1, 8).flatmap(lambda n: st.tuples(
    st.just(n), st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=20),
    st.lists(st.sets(st.integers(0, n - 1), max_size=3), min_size=1, max_size=4))))
def test_reach_upward_is_the_reflexive_transitive_closure(case):
    """On graphs with cycles and self-loops: every row holds its nodes and every node reachable from them."""
    n, edges, rows = case
    g = sp.csr_matrix((np.ones(len(edges)), ([c for c, _ in edges], [p for _, p in edges])), shape=(n, n))
    start = sp.csr_matrix((np.ones(sum(map(len, rows))), ([i for i, r in enumerate(rows) for _ in r],
                                                          [j for r in rows for j in r])), shape=(len(rows), n))
    got = reach_upward(start, g).toarray() > 0
    for i, r in enumerate(rows):
        seen, todo = set(r), list(r)
        while todo:
            x = todo.pop()
            for c, p in edges:
                if c == x and p not in seen:
                    seen.add(p)
                    todo.append(p)
        assert set(np.flatnonzero(got[i]).tolist()) == seen
