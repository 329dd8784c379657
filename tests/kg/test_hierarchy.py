import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.errors import CycleError, HierarchyCycleWarning, UnknownFeatureError
from kg.hierarchy import FeatureHierarchy, product_nnz
from tests.strategies import dags, digraphs

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


# ---------------------------------------------------------------------- cycles merged (issue 37 point 4)
# Q1's class Q11 is below Q20, Q2's class Q12 below Q30; Q20 and Q30 are subclasses of each other
WIKIDATA_CYCLE = [("Q11", "Q20"), ("Q12", "Q30"), ("Q20", "Q30"), ("Q30", "Q20"), ("Q20", "Q40"), ("Q30", "Q50")]


def _merged(edges, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HierarchyCycleWarning)
        return FeatureHierarchy.from_edges(edges, on_cycle="merge", **kw)


def test_break_loses_ancestors_merge_keeps_them():
    with pytest.warns(HierarchyCycleWarning, match=r"removed 1 edge\(s\).*Q30 -> Q20"):
        broken = FeatureHierarchy.from_edges(WIKIDATA_CYCLE, on_cycle="break")
    assert broken.ancestors("Q12") == ["Q30", "Q50"]  # Q20 and Q40 lost
    with pytest.warns(HierarchyCycleWarning, match=r"1 cycle\(s\); each merged into one node .*Q20 ≡ Q30"):
        h = FeatureHierarchy.from_edges(WIKIDATA_CYCLE, on_cycle="merge")
    assert h.node_ids.tolist() == ["Q11", "Q12", "Q20 ≡ Q30", "Q40", "Q50"]
    assert h.ancestors("Q11") == h.ancestors("Q12") == ["Q20 ≡ Q30", "Q40", "Q50"]
    assert h.merged == {"Q20 ≡ Q30": ["Q20", "Q30"]}
    assert h.aliases == {"Q20": "Q20 ≡ Q30", "Q30": "Q20 ≡ Q30"}
    assert h.lookup("Q30") == "Q20 ≡ Q30" and h.lookup("Q40") == "Q40"
    assert h.merged_report() == [{"feature": "Q20 ≡ Q30", "n_members": 2, "members": ["Q20", "Q30"]}]
    assert h.removed_edges == []


def test_merged_node_takes_its_first_members_place_and_long_names_are_cut():
    h = _merged([("b", "a"), ("a", "b"), ("z", "b")], nodes=["z", "b", "x", "a"])
    assert h.node_ids.tolist() == ["z", "a ≡ b", "x"]
    ring = [f"m{i}" for i in range(5)]
    big = _merged(list(zip(ring, ring[1:] + ring[:1])))
    assert big.node_ids.tolist() == ["m0 ≡ … (5 members)"] and big.merged["m0 ≡ … (5 members)"] == ring
    long = ["x" * 60 + str(i) for i in range(3)]
    cut = _merged(list(zip(long, long[1:] + long[:1])))
    assert cut.node_ids.tolist() == [f"{long[0]} ≡ … (3 members)"]
    four = _merged([("a", "b"), ("b", "c"), ("c", "d"), ("d", "a")])
    assert four.node_ids.tolist() == ["a ≡ b ≡ c ≡ d"]


def test_merge_drops_self_loops_and_keeps_a_name_that_is_taken():
    h = _merged([("a", "a"), ("a", "b")])
    assert h.edge_list() == [("a", "b")] and h.merged == {} and h.removed_edges == [("a", "a")]
    clash = _merged([("a", "b"), ("b", "a")], nodes=["a ≡ b"])
    assert sorted(clash.node_ids.tolist()) == ["a ≡ b", "a ≡ b (merged)"]


def test_on_cycle_callable_chooses_per_component():
    edges = [("k:a", "k:b"), ("k:b", "k:a"), ("c:x", "c:y"), ("c:y", "c:x")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HierarchyCycleWarning)
        h = FeatureHierarchy.from_edges(edges, on_cycle=lambda ms: "break" if ms[0].startswith("c:") else "merge")
    assert h.merged == {"k:a ≡ k:b": ["k:a", "k:b"]}
    assert h.removed_edges == [("c:y", "c:x")]
    with pytest.raises(ValueError, match="on_cycle returned 'skip'"):
        FeatureHierarchy.from_edges(edges, on_cycle=lambda ms: "skip")
    with pytest.raises(CycleError):
        FeatureHierarchy.from_edges(edges, on_cycle=lambda ms: "raise")


def test_restrict_and_equality_keep_merged():
    h = _merged(WIKIDATA_CYCLE)
    sub = h.restrict(["Q20 ≡ Q30", "Q40"])
    assert sub.merged == {"Q20 ≡ Q30": ["Q20", "Q30"]}
    assert h.restrict(["Q40", "Q50"]).merged == {}
    assert h == _merged(list(reversed(WIKIDATA_CYCLE)))
    plain = FeatureHierarchy(h.node_ids, *h.edges)
    assert plain != h


@settings(max_examples=150, deadline=None)
@given(digraphs(), st.randoms(use_true_random=False))
def test_merge_loses_no_ancestor_is_a_dag_and_ignores_edge_order(graph, rnd):
    from kg.table import FeatureTable

    edges, nodes, facts = graph
    h = _merged(edges, nodes=nodes)
    # a DAG (the constructor checks it), every original node held by exactly one node
    assert all(h.lookup(x) in h.index for x in nodes)
    assert set(h.aliases) == {m for ms in h.merged.values() for m in ms}
    # closure of the table == networkx's transitive closure of the original graph, mapped through lookup
    g = nx.DiGraph()
    g.add_nodes_from(nodes)
    g.add_edges_from(edges)
    t = FeatureTable.from_facts(facts, h)
    for r, inst in enumerate(t.instance_ids.tolist()):
        want = set()
        for f in facts[inst]:
            want |= {h.lookup(x) for x in nx.descendants(g, f) | {f}}
        got = set(t.feature_names[t.X[r].indices].tolist())
        assert got == want, (inst, facts[inst])
    # ancestors of every node: the closure mapped, minus the node itself
    for x in nodes:
        assert set(h.ancestors(h.lookup(x))) == {h.lookup(y) for y in nx.descendants(g, x)} - {h.lookup(x)}
    shuffled = list(edges)
    rnd.shuffle(shuffled)
    again = _merged(shuffled, nodes=nodes)
    assert again == h and again.edge_list() == h.edge_list() and again.removed_edges == h.removed_edges


def test_a_self_loop_inside_a_merged_cycle_is_not_reported_apart():
    h = _merged([("a", "b"), ("b", "a"), ("a", "a"), ("c", "c")])
    assert h.merged == {"a ≡ b": ["a", "b"]} and h.removed_edges == [("c", "c")] and h.n_edges == 0


@settings(max_examples=60, deadline=None)
@given(digraphs())
def test_the_hashed_index_of_many_edges_builds_the_same_hierarchy(monkeypatch_graph):
    import kg.cycles as kh  # where the edges are indexed

    edges, nodes, _ = monkeypatch_graph
    for policy in ("break", "merge"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HierarchyCycleWarning)
            looped = FeatureHierarchy.from_edges(edges, nodes=nodes[: len(nodes) // 2], on_cycle=policy)
            old, kh._HASHED_INDEX = kh._HASHED_INDEX, 1
            try:
                hashed = FeatureHierarchy.from_edges(edges, nodes=nodes[: len(nodes) // 2], on_cycle=policy)
            finally:
                kh._HASHED_INDEX = old
        assert hashed == looped and hashed.removed_edges == looped.removed_edges


@settings(max_examples=80, deadline=None)
@given(dags(max_nodes=14), st.data())
def test_close_by_walking_the_parents_is_the_closure_product(h, data):
    """Above CLOSE_BY_WALK_NODES nodes, close() walks up the parents instead of building the ancestor closure:
    the same matrix, and the closure is not built."""
    import kg.hierarchy as module

    rows = data.draw(st.lists(st.lists(st.integers(0, h.n_nodes - 1), max_size=4), min_size=1, max_size=5))
    direct = sp.csr_matrix((np.ones(sum(map(len, rows)), np.int8),
                            ([i for i, r in enumerate(rows) for _ in r], [j for r in rows for j in r])),
                           shape=(len(rows), h.n_nodes))
    walked = FeatureHierarchy(h.node_ids, *h.edges)
    limit = module.CLOSE_BY_WALK_NODES
    module.CLOSE_BY_WALK_NODES = 0
    try:
        by_walk = walked.close(direct)
    finally:
        module.CLOSE_BY_WALK_NODES = limit
    assert "_self_and_ancestors" not in walked.__dict__
    by_product = h.close(direct)
    assert (by_walk != by_product).nnz == 0 and h.is_closed(by_walk)
