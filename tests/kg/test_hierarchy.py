import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from kg.errors import CycleError, HierarchyCycleWarning, UnknownFeatureError
from kg.hierarchy import FeatureHierarchy, product_nnz
from tests.strategies import dags

# A diamond with an extra branch:  e -> a -> b -> c,  e -> d -> b
EDGES = [("a", "b"), ("b", "c"), ("d", "b"), ("e", "a"), ("e", "d")]


def test_structure_of_a_small_dag():
    h = FeatureHierarchy.from_edges(EDGES)
    assert h.node_ids.tolist() == ["a", "b", "c", "d", "e"]
    assert h.parents("e") == ["a", "d"]
    assert h.children("b") == ["a", "d"]
    assert h.node_ids[h.roots].tolist() == ["c"]
    assert h.node_ids[h.leaves].tolist() == ["e"]
    assert h.ancestors("e") == ["a", "b", "c", "d"]
    assert h.descendants("b") == ["a", "d", "e"]
    assert h.levels.tolist() == [2, 1, 0, 2, 3]
    assert h.heights.tolist() == [1, 2, 3, 1, 0]


def test_node_order_and_isolated_nodes():
    h = FeatureHierarchy.from_edges([("x", "y")], nodes=["y", "z", "x"])
    assert h.node_ids.tolist() == ["y", "z", "x"]
    assert h.node_ids[h.roots].tolist() == ["y", "z"]
    assert h.ancestors("z") == []


def test_duplicate_edges_are_merged():
    h = FeatureHierarchy.from_edges([("x", "y"), ("x", "y")])
    assert h.n_edges == 1


def test_unknown_node_is_named():
    h = FeatureHierarchy.from_edges(EDGES)
    with pytest.raises(UnknownFeatureError, match="'zzz'"):
        h.ancestors("zzz")


def test_cycle_raises_and_names_it():
    with pytest.raises(CycleError, match=r"a -> b -> c -> a") as info:
        FeatureHierarchy.from_edges([("a", "b"), ("b", "c"), ("c", "a"), ("c", "r")])
    assert info.value.cycles == [["a", "b", "c"]]


def test_self_loop_is_a_cycle():
    with pytest.raises(CycleError, match="x -> x"):
        FeatureHierarchy.from_edges([("x", "x")])


def test_cycle_break_is_deterministic_and_reported():
    edges = [("a", "b"), ("b", "c"), ("c", "a"), ("x", "x"), ("c", "r")]
    with pytest.warns(HierarchyCycleWarning, match=r"removed 2 edge\(s\).*c -> a"):
        h1 = FeatureHierarchy.from_edges(edges, on_cycle="break")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        h2 = FeatureHierarchy.from_edges(list(reversed(edges)), on_cycle="break")
    assert h1.removed_edges == h2.removed_edges == [("c", "a"), ("x", "x")]
    assert sorted(h1.edge_list()) == sorted(h2.edge_list())
    assert nx.is_directed_acyclic_graph(h1.to_networkx())


def test_bad_on_cycle_value():
    with pytest.raises(ValueError, match="on_cycle"):
        FeatureHierarchy.from_edges(EDGES, on_cycle="ignore")


@given(dags(max_nodes=15))
def test_closure_matches_networkx(h):
    g = h.to_networkx()
    a = h.ancestor_matrix
    for i, name in enumerate(h.node_ids.tolist()):
        expected = sorted(nx.descendants(g, name))  # child -> parent edges: descendants in nx = ancestors
        assert sorted(h.node_ids[a[i].indices].tolist()) == expected
    assert (h.descendant_matrix != a.T).nnz == 0


@given(dags(max_nodes=15))
def test_topological_order_puts_parents_first(h):
    pos = np.empty(h.n_nodes, int)
    pos[h.topological_order] = np.arange(h.n_nodes)
    c, p = h.edges
    assert np.all(pos[p] < pos[c])
    assert np.all(h.levels[c] > h.levels[p])
    assert sorted(h.topological_order.tolist()) == list(range(h.n_nodes))


@given(dags(max_nodes=12))
def test_restrict_preserves_ancestry(h):
    rng = np.random.default_rng(h.n_nodes)
    keep = np.flatnonzero(rng.random(h.n_nodes) < 0.6)
    r = h.restrict(keep)
    names = h.node_ids[keep].tolist()
    assert r.node_ids.tolist() == names
    for name in names:
        assert r.ancestors(name) == sorted(set(h.ancestors(name)) & set(names))
    # an edge that was not in h is never implied by a longer path (no shortcut is invented)
    g = r.to_networkx()
    reduced = set(nx.transitive_reduction(g).edges)
    original = set(h.edge_list())
    assert all(e in reduced or e in original for e in r.edge_list())


@given(dags(max_nodes=12))
def test_close_and_violations(h):
    rng = np.random.default_rng(0)
    direct = sp.csr_matrix((rng.random((6, h.n_nodes)) < 0.3).astype(np.int8))
    x = h.close(direct)
    assert h.violations(x).nnz == 0
    expected = (direct.toarray() + direct.toarray() @ h.ancestor_matrix.toarray()) > 0
    assert np.array_equal(x.toarray() > 0, expected)
    if h.n_edges:
        c, p = h.edges
        broken = x.tolil()
        broken[0, c[0]] = 1
        broken[0, p[0]] = 0
        v = h.violations(broken.tocsr())
        assert (0, p[0]) in set(zip(v.row.tolist(), v.col.tolist()))


@given(dags(max_nodes=12), st.integers(0, 2**32 - 1), st.sampled_from([0.05, 0.3, 0.7]))
def test_is_closed_agrees_with_the_edge_by_edge_definition(h, seed, density):
    """is_closed (one symbolic product) against the definition: no edge (c, p) with a row that
    has c and not p; on random, closed, and closed-then-broken tables, with stored zeros and
    duplicates in the input."""
    rng = np.random.default_rng(seed)
    x = (rng.random((5, h.n_nodes)) < density).astype(np.int8)

    def reference(a):
        c, p = h.edges
        return not (a[:, c].astype(bool) & ~a[:, p].astype(bool)).any()

    for a in (x, h.close(sp.csr_matrix(x)).toarray()):
        assert h.is_closed(sp.csr_matrix(a)) == reference(a) == (h.violations(sp.csr_matrix(a)).nnz == 0)
        if h.n_edges and reference(a) and a.any():
            c, p = h.edges
            k = int(rng.integers(c.size))
            b = a.copy()
            b[0, c[k]], b[0, p[k]] = 1, 0
            assert not h.is_closed(sp.csr_matrix(b)) and not reference(b)
    # stored zeros and duplicate entries: the closure of {p} plus a stored 0 for its child c
    # and a duplicate (p, 0) entry is closed; with a stored 1 for c it is closed exactly when
    # c has no other parents outside that closure
    if h.n_edges:
        c, p = h.edges
        up = np.flatnonzero(h.close(sp.csr_matrix(([1], ([0], [p[0]])), shape=(1, h.n_nodes))).toarray()[0])
        others = set(h.parent_indices(int(c[0])).tolist()) - set(up.tolist())
        for value, closed in ((0, True), (1, not others)):
            cols = np.concatenate([up, [c[0], p[0]]])
            data = np.concatenate([np.ones(up.size, np.int8), [value, 0]]).astype(np.int8)
            m = sp.csr_matrix((data, cols, np.array([0, cols.size])), shape=(1, h.n_nodes))
            assert h.is_closed(m) is closed


def test_product_nnz_is_the_structural_count():
    rng = np.random.default_rng(1)
    for _ in range(20):
        a = sp.random(30, 40, density=rng.random() * 0.3, format="csr", random_state=rng)
        b = sp.random(40, 25, density=rng.random() * 0.3, format="csr", random_state=rng)
        a.data[:], b.data[:] = 1, 1
        assert product_nnz(a, b) == (a @ b).nnz == np.count_nonzero(a.toarray() @ b.toarray())


def test_close_rejects_wrong_width():
    h = FeatureHierarchy.from_edges(EDGES)
    with pytest.raises(ValueError, match="5 nodes"):
        h.close(sp.csr_matrix((2, 3)))


def test_empty_hierarchy():
    h = FeatureHierarchy([], [], [])
    assert h.n_nodes == 0 and h.ancestor_matrix.shape == (0, 0)
