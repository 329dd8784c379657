"""HillClimbing (Wang et al. 2003, the SHSEL paper's baseline): literal cases, a brute-force
reference the incremental implementation must match exactly, properties, bad input."""

from __future__ import annotations

from collections import deque
from unittest.mock import patch

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.hierarchy import FeatureHierarchy
from selection.hierarchical import hill_climbing
from selection.hierarchical.hill_climbing import HillClimbing, knn_purity
from selection.registry import get_selector
from tests.strategies import closed_tables

# A tree: A -> {a1, a2}, B -> {b1, b2}; columns in that order.
TREE = FeatureHierarchy.from_edges(
    [("a1", "A"), ("a2", "A"), ("b1", "B"), ("b2", "B")], nodes=["A", "a1", "a2", "B", "b1", "b2"]
)


def reference(X, y, h: FeatureHierarchy, k: int = 10, beta: float = 0.05):
    """Wang's bottom-up hill climbing, recomputing the purity from scratch for every candidate."""
    X = sp.csr_matrix(X)
    n, m = X.shape
    k = min(k, n - 1)
    S = np.zeros(m, bool)
    leaves = h.leaves
    S[leaves] = True
    alpha = len(leaves)

    def fitness(T):
        return (1 + beta * (alpha - T.sum()) / alpha) * knn_purity(X[:, np.flatnonzero(T)], y, k)

    by_id = lambda idx: sorted(idx, key=lambda i: h.node_ids[i])  # noqa: E731
    current = fitness(S)
    tried = np.zeros(m, bool)
    queue = deque(by_id(leaves.tolist()))
    while queue:
        node = queue.popleft()
        if not S[node] or tried[node]:
            continue
        best = None
        for p in by_id(h.parent_indices(node).tolist()):
            T = S.copy()
            T[h.descendant_indices(p)] = False
            T[p] = True
            f = fitness(T)
            if f > current and (best is None or f > best[0]):
                best = (f, p, T)
        if best is None:
            tried[node] = True
            continue
        current, p, S = best
        queue.append(p)
    return S, current


# ----------------------------------------------------------------------------- purity
def test_knn_purity_literal():
    X = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    assert knn_purity(X, [0, 0, 1, 1], k=1) == 4
    assert knn_purity(X, [0, 1, 0, 1], k=1) == 0
    # k larger than n - 1 uses every other row: each row sees 1 same-class row among 3
    assert knn_purity(X, [0, 0, 1, 1], k=10) == 4


def test_knn_purity_tie_rule_exact():
    X = np.array([[1, 1], [1, 0], [0, 1]])
    y = np.array([0, 1, 0])
    # row 0: rows 1, 2 both at distance 1 -> row 1 (class 1): 0
    # row 1: row 0 at 1, row 2 at 2 -> row 0 (class 0): 0
    # row 2: row 0 at 1 -> class 0: 1
    assert knn_purity(X, y, k=1) == 1


# ----------------------------------------------------------------------------- literal runs
def test_docstring_case_parent_replaces_children():
    h = FeatureHierarchy.from_edges([("a1", "A"), ("a2", "A")], nodes=["A", "a1", "a2"])
    X = np.array([[1, 1, 0], [1, 0, 1], [0, 0, 0], [0, 0, 0]])
    s = HillClimbing(h, k=1).fit(X, [1, 1, 0, 0])
    assert s.get_support().tolist() == [True, False, False]
    # purity 2 -> 4; fitness (1 + 0.05 * (2 - 1) / 2) * 4
    assert s.purity_ == 4
    assert s.fitness_ == pytest.approx(4.1)
    assert s.moves_ == [(0, [1, 2])]


def test_generalising_that_mixes_classes_is_rejected():
    # a1 is class 1, a2 class 0: A would merge them; b1/b2 are noise inside class 0
    X = np.array([
        # A a1 a2 B b1 b2
        [1, 1, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0],
        [1, 0, 1, 1, 1, 0],
        [1, 0, 1, 1, 0, 1],
    ])
    y = [1, 1, 0, 0]
    s = HillClimbing(TREE, k=1).fit(X, y)
    ref, f = reference(X, y, TREE, k=1)
    assert s.get_support().tolist() == ref.tolist()
    assert not s.get_support()[0]  # A is never chosen: it would merge the classes
    assert s.get_support()[1] and s.get_support()[2]
    assert s.fitness_ == pytest.approx(f)


def test_beta_zero_needs_a_strict_purity_gain():
    # each class is a pair of identical rows: the leaves already reach the maximal purity 4,
    # so with beta=0 no move is a strict improvement; with beta > 0 the smaller sets win
    X = np.array([
        [0, 0, 0, 1, 1, 0],
        [0, 0, 0, 1, 1, 0],
        [1, 1, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0],
    ])
    y = [0, 0, 1, 1]
    keep_leaves = HillClimbing(TREE, k=1, beta=0.0).fit(X, y).get_support()
    assert keep_leaves.tolist() == [False, True, True, False, True, True]
    merged = HillClimbing(TREE, k=1, beta=0.5).fit(X, y).get_support()
    assert merged.tolist() == [True, False, False, True, False, False]


def test_dag_move_replaces_every_selected_descendant():
    # r -> {p, q}; p -> {x}; x -> {l1, l2}; q -> {l2}: moving l1 up to x removes l1 and l2;
    # a later move up to r must remove everything below r
    h = FeatureHierarchy.from_edges(
        [("x", "p"), ("l1", "x"), ("l2", "x"), ("l2", "q"), ("p", "r"), ("q", "r")],
        nodes=["l1", "l2", "p", "q", "r", "x"],
    )
    rng = np.random.default_rng(1)
    direct = sp.csr_matrix((rng.random((40, 6)) < 0.3).astype(float))
    X = h.close(direct)
    y = np.r_[np.zeros(20), np.ones(20)]
    s = HillClimbing(h, k=3, beta=0.5).fit(X, y)
    sup = s.get_support()
    anc = h.ancestor_matrix.toarray().astype(bool)
    assert not (anc[sup][:, sup]).any()  # antichain
    for parent, removed in s.moves_:
        # every move removed exactly the descendants that were selected at the time
        assert set(removed) <= set(h.descendant_indices(parent).tolist())
    ref, f = reference(X, y, h, k=3, beta=0.5)
    assert sup.tolist() == ref.tolist()


def test_flat_hierarchy_keeps_everything():
    X = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]])
    s = HillClimbing(None, k=2).fit(X, [0, 1, 0, 1])
    assert s.get_support().all()
    assert s.moves_ == [] and s.n_evaluations_ == 0
    assert s.purity_ == knn_purity(X, [0, 1, 0, 1], k=2)


def test_registered_with_the_paper_k():
    s = get_selector("hill-climbing", TREE)
    assert isinstance(s, HillClimbing) and s.k == 10 and s.hierarchy is TREE


def test_small_training_set_uses_n_minus_one_neighbours():
    X = np.array([[1, 1, 0, 0, 0, 0], [1, 0, 1, 0, 0, 0], [0, 0, 0, 1, 1, 0]])
    y = [1, 1, 0]
    s = HillClimbing(TREE, k=10).fit(X, y)
    ref, f = reference(X, y, TREE, k=10)
    assert s.get_support().tolist() == ref.tolist() and s.fitness_ == pytest.approx(f)


# ----------------------------------------------------------------------------- reference
@settings(max_examples=80, deadline=None)
@given(
    table=closed_tables(max_rows=50, max_nodes=14),
    k=st.integers(1, 6),
    beta=st.sampled_from([0.0, 0.05, 0.5]),
    extra=st.integers(0, 3),
    narrow=st.sampled_from([0, 2, 48]),
    block=st.sampled_from([1, 7, 50, 1 << 21]),
)
def test_matches_brute_force_reference(table, k, beta, extra, narrow, block):
    """The incremental kNN state gives exactly the from-scratch result; a tiny cached prefix
    (``k + extra`` neighbours per row) forces the merge, refill and full-row paths, the
    narrow/wide split of the merge is exercised on both sides, and small row blocks
    (``_BLOCK`` elements) split every move's update across blocks."""
    X, y, h = table
    s = HillClimbing(h, k=k, beta=beta)
    s._list_width = k + extra
    with patch.object(hill_climbing, "_NARROW", narrow), patch.object(hill_climbing, "_BLOCK", block):
        s.fit(X, y)
    ref, f = reference(X, y, h, k=k, beta=beta)
    assert s.get_support().tolist() == ref.tolist()
    assert s.fitness_ == pytest.approx(f, rel=1e-12)
    assert s.purity_ == knn_purity(X[:, s.get_support()], y, min(k, X.shape[0] - 1))


# ----------------------------------------------------------------------------- properties
@settings(max_examples=40, deadline=None)
@given(table=closed_tables(max_rows=40, max_nodes=14, n_classes=3), seed=st.integers(0, 2**31))
def test_properties(table, seed):
    X, y, h = table
    s = HillClimbing(h, k=4).fit(X, y)
    sup = s.get_support()
    anc = h.ancestor_matrix.toarray().astype(bool)
    # an antichain that still covers every leaf (a leaf or one of its ancestors is selected)
    assert not anc[sup][:, sup].any()
    for leaf in h.leaves.tolist():
        assert sup[leaf] or sup[anc[leaf]].any()
    assert s.transform(X).shape == (X.shape[0], int(sup.sum()))
    # fitness never below the starting point (moves only ever improve it)
    start = np.zeros(h.n_nodes, bool)
    start[h.leaves] = True
    assert s.purity_ * (1 + 0.05 * (h.leaves.size - sup.sum()) / h.leaves.size) == pytest.approx(s.fitness_)
    assert s.fitness_ >= knn_purity(X[:, start], y, min(4, X.shape[0] - 1)) - 1e-9
    # permuting the columns together with the hierarchy permutes the selection
    perm = np.random.default_rng(seed).permutation(h.n_nodes)
    hp = FeatureHierarchy.from_edges(h.edge_list(), nodes=h.node_ids[perm].tolist())
    s2 = HillClimbing(hp, k=4).fit(X[:, perm], y)
    assert s2.get_support().tolist() == sup[perm].tolist()
    # sparse and dense input agree
    assert HillClimbing(h, k=4).fit(X.toarray(), y).get_support().tolist() == sup.tolist()


# ----------------------------------------------------------------------------- bad input
H3 = FeatureHierarchy.from_edges([("a", "r"), ("b", "r")], nodes=["a", "b", "r"])
X3 = sp.csr_matrix(np.array([[1, 0, 1], [0, 1, 1], [0, 0, 0], [1, 0, 1]], dtype=float))
Y3 = np.array([1, 0, 0, 1])


@pytest.mark.parametrize("k", [0, -1, 2.5, "10"])
def test_bad_k(k):
    with pytest.raises(ValueError, match="'k' parameter of HillClimbing must be an int in the range \\[1, inf\\)"):
        HillClimbing(H3, k=k).fit(X3, Y3)


@pytest.mark.parametrize("beta", [-0.1, float("nan"), float("inf"), "0.05"])
def test_bad_beta(beta):
    with pytest.raises(ValueError,
                       match="'beta' parameter of HillClimbing must be a float in the range \\[0\\.0, inf\\)"):
        HillClimbing(H3, beta=beta).fit(X3, Y3)


def test_bad_input():
    with pytest.raises(ValueError, match="single class"):
        HillClimbing(H3).fit(X3, np.ones(4))
    with pytest.raises(ValueError, match="hierarchy has 3 nodes but X has 2"):
        HillClimbing(H3).fit(X3[:, :2], Y3)
    with pytest.raises(ValueError, match="binary"):
        HillClimbing(H3).fit(X3 * 0.5, Y3)
    with pytest.raises(TypeError, match="FeatureHierarchy"):
        HillClimbing(hierarchy=[("a", "r")]).fit(X3, Y3)
    # binarize makes count data usable
    s = HillClimbing(H3, binarize=0.0).fit(X3 * 3, Y3)
    assert s.get_support().tolist() == HillClimbing(H3).fit(X3, Y3).get_support().tolist()


def test_too_many_instances_is_a_clear_error():
    X = sp.csr_matrix(np.tile(X3.toarray(), (3, 1)))
    with pytest.raises(ValueError, match=r"n x n distance matrix: 12 training instances.*max_instances=10"):
        HillClimbing(H3, max_instances=10).fit(X, np.tile(Y3, 3))


@pytest.mark.slow
def test_matches_reference_at_medium_scale():
    """400 instances x 500 features over a layered DAG (~4 parents per node): the default cached
    prefix, the narrow and wide merges and dozens of accepted moves, against the brute force."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
    from bench_hill_climbing import make_dag, make_table

    rng = np.random.default_rng(0)
    h = make_dag(500, 4, rng)
    X, y = make_table(h, 400, 0.05, rng)
    s = HillClimbing(h, k=10).fit(X, y)
    ref, f = reference(X, y, h, k=10)
    assert len(s.moves_) > 20
    assert s.get_support().tolist() == ref.tolist()
    assert s.fitness_ == pytest.approx(f, rel=1e-12)
