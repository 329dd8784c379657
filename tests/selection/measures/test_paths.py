"""The DP path rules against brute-force path enumeration on small random DAGs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg.hierarchy import FeatureHierarchy
from selection.measures.paths import (
    PATH_RULE_EPS,
    greedy_antichain,
    most_specific,
    path_argmax,
    path_maxima,
    path_mean_rule,
    strict_ranks,
)
from tests.strategies import dags, leaf_root_paths


# ----------------------------------------------------------------------------- references
def brute_mean_rule(h, v, sel, mode, compare=">="):
    eps = PATH_RULE_EPS * max(1.0, float(np.abs(v).max())) if len(v) else 0.0
    verdicts = {i: [] for i in range(h.n_nodes)}
    for path in leaf_root_paths(h):
        on = [k for k in path if sel[k]]
        if not on:
            continue
        mean = float(np.mean(v[on]))
        for k in on:
            verdicts[k].append(v[k] >= mean - eps if compare == ">=" else v[k] > mean + eps)
    agg = any if mode == "any" else all
    return np.array([bool(verdicts[i]) and agg(verdicts[i]) for i in range(h.n_nodes)], bool)


def brute_argmax(h, ranks):
    out = np.zeros(h.n_nodes, bool)
    for path in leaf_root_paths(h):
        out[max(path, key=lambda k: ranks[k])] = True
    return out


def brute_greedy(h, order):
    anc = [set(h.ancestor_indices(i).tolist()) for i in range(h.n_nodes)]
    des = [set(h.descendant_indices(i).tolist()) for i in range(h.n_nodes)]
    gone, out = set(), np.zeros(h.n_nodes, bool)
    for i in order:
        if i in gone:
            continue
        out[i] = True
        gone |= anc[i] | des[i] | {i}
    return out


# ----------------------------------------------------------------------------- strategies
@st.composite
def dag_values(draw, max_nodes=10):
    h = draw(dags(max_nodes=max_nodes))
    # eighths are exact in binary, so sums and means have no rounding: ties are real ties
    v = np.array(draw(st.lists(st.integers(0, 8), min_size=h.n_nodes, max_size=h.n_nodes)), float) / 8
    sel = np.array(draw(st.lists(st.booleans(), min_size=h.n_nodes, max_size=h.n_nodes)), bool)
    return h, v, sel


# ----------------------------------------------------------------------------- literal examples
def diamond():
    """leaf l has two parents a, b, both under root r; c is a second leaf under b."""
    return FeatureHierarchy.from_edges(
        [("l", "a"), ("l", "b"), ("a", "r"), ("b", "r"), ("c", "b")], nodes=["l", "a", "b", "r", "c"]
    )


def test_mean_rule_any_vs_all_on_a_diamond():
    h = diamond()
    # paths: l-a-r (mean .5), l-b-r (mean .3), c-b-r (mean .3)
    v = np.array([0.3, 0.9, 0.3, 0.3, 0.3])
    anyp = path_mean_rule(h, v, mode="any")
    allp = path_mean_rule(h, v, mode="all")
    assert anyp.tolist() == [True, True, True, True, True]  # l, r reach the mean of l-b-r
    assert allp.tolist() == [False, True, True, False, True]  # l, r miss it on l-a-r


def test_mean_rule_ignores_unselected_nodes():
    h = diamond()
    v = np.array([0.3, 0.9, 0.3, 0.3, 0.3])
    sel = np.array([True, False, True, True, True])  # a removed earlier: every mean is .3
    assert path_mean_rule(h, v, sel, mode="all").tolist() == [True, False, True, True, True]


def test_mean_rule_isolated_node_and_empty():
    h = FeatureHierarchy.from_edges([], nodes=["x"])
    assert path_mean_rule(h, np.array([0.0])).tolist() == [True]
    assert path_mean_rule(FeatureHierarchy([], [], []), np.zeros(0)).tolist() == []


def test_mean_rule_bad_input():
    h = diamond()
    with pytest.raises(ValueError, match="shape"):
        path_mean_rule(h, np.zeros(3))
    with pytest.raises(ValueError, match="mode"):
        path_mean_rule(h, np.zeros(5), mode="some")
    with pytest.raises(ValueError, match="finite"):
        path_mean_rule(h, np.array([np.nan, 0, 0, 0, 0]))


def test_argmax_literal_and_ties_broken_by_rank():
    h = diamond()
    # order by value, ties toward the more general node, then id
    v = np.array([0.5, 0.5, 0.1, 0.2, 0.4])
    ranks = strict_ranks(v, -h.levels, h.node_ids)
    # l-a-r: tie l/a -> a (higher); l-b-r: l; c-b-r: c
    assert path_argmax(h, ranks).tolist() == [True, True, False, False, True]
    assert path_argmax(h, ranks).tolist() == brute_argmax(h, ranks).tolist()
    with pytest.raises(ValueError, match="distinct"):
        path_argmax(h, np.zeros(5, int))


def test_greedy_antichain_literal():
    h = diamond()
    # take l first: drops a, b, r; c is unrelated to l -> taken
    assert greedy_antichain(h, np.array([0, 3, 1, 2, 4])).tolist() == [True, False, False, False, True]
    # take r first: everything else is a descendant
    assert greedy_antichain(h, np.array([3, 0, 1, 2, 4])).tolist() == [False, False, False, True, False]
    with pytest.raises(ValueError, match="permutation"):
        greedy_antichain(h, np.array([0, 0, 1, 2, 3]))


# ----------------------------------------------------------------------------- agreement
@given(dag_values(), st.sampled_from(["any", "all"]), st.sampled_from([">=", ">"]))
def test_mean_rule_matches_brute_force(hvs, mode, compare):
    h, v, sel = hvs
    got = path_mean_rule(h, v, sel, mode=mode, compare=compare)
    assert got.tolist() == brute_mean_rule(h, v, sel, mode, compare).tolist()


def brute_maxima(h, v):
    out = np.zeros(h.n_nodes, bool)
    for path in leaf_root_paths(h):
        top = max(v[k] for k in path)
        for k in path:
            out[k] |= bool(v[k] == top)
    return out


@given(dag_values())
def test_path_maxima_matches_brute_force(hvs):
    h, v, _ = hvs  # eighths: ties are exact
    assert path_maxima(h, v).tolist() == brute_maxima(h, v).tolist()


def test_path_maxima_and_most_specific_by_hand():
    # diamond d -> b -> a, d -> c -> a; values a 0.5, b 0.5, c 0.25, d 0.25
    h = FeatureHierarchy.from_edges([("b", "a"), ("c", "a"), ("d", "b"), ("d", "c")], nodes=list("abcd"))
    v = np.array([0.5, 0.5, 0.25, 0.25])
    # path d-b-a: a and b tie at 0.5; path d-c-a: a -> {a, b}; strictly one per path would be {a}
    assert path_maxima(h, v).tolist() == [True, True, False, False]
    # most specific of {a, b, d}: d (a and b are its ancestors); of {b, c}: both
    assert most_specific(h, np.array([True, True, False, True])).tolist() == [False, False, False, True]
    assert most_specific(h, np.array([False, True, True, False])).tolist() == [False, True, True, False]
    with pytest.raises(ValueError, match="shape"):
        most_specific(h, np.array([True]))
    with pytest.raises(ValueError, match="finite"):
        path_maxima(h, np.array([0.5, np.nan, 0, 0]))


@given(dag_values())
def test_most_specific_is_an_antichain_of_the_selection(hvs):
    h, _, sel = hvs
    got = most_specific(h, sel)
    anc = h.ancestor_matrix.toarray().astype(bool)
    assert not (got & ~sel).any() and not anc[np.ix_(got, got)].any()
    # a selected node is dropped exactly when a selected node lies below it
    assert got.tolist() == [bool(sel[i] and not (anc[:, i] & sel).any()) for i in range(h.n_nodes)]


@given(dags(max_nodes=10), st.floats(0, 1), st.data())
def test_mean_rule_matches_brute_force_on_real_floats(h, scale, data):
    v = np.array(data.draw(st.lists(st.floats(0, 1), min_size=h.n_nodes, max_size=h.n_nodes)), float) * scale
    for mode in ("any", "all"):
        got = path_mean_rule(h, v, mode=mode).tolist()
        assert got == brute_mean_rule(h, v, np.ones(h.n_nodes, bool), mode).tolist()


@given(dags(max_nodes=10), st.randoms(use_true_random=False))
def test_argmax_matches_brute_force(h, rnd):
    ranks = np.array(rnd.sample(range(h.n_nodes), h.n_nodes), dtype=np.int64)
    assert path_argmax(h, ranks).tolist() == brute_argmax(h, ranks).tolist()


@given(dags(max_nodes=10), st.randoms(use_true_random=False))
def test_greedy_matches_brute_force_and_is_maximal_antichain(h, rnd):
    order = np.array(rnd.sample(range(h.n_nodes), h.n_nodes), dtype=np.int64)
    got = greedy_antichain(h, order)
    assert got.tolist() == brute_greedy(h, order.tolist()).tolist()
    chosen = np.flatnonzero(got)
    anc = h.ancestor_matrix.toarray().astype(bool)
    assert not anc[np.ix_(chosen, chosen)].any()  # antichain
    related = anc | anc.T | np.eye(h.n_nodes, dtype=bool)
    assert related[:, chosen].any(axis=1).all()  # maximal


def test_mean_rule_scales_without_path_enumeration():
    # a ladder of 60 diamonds has 2**60 leaf-root paths; the DP answers at once
    edges, prev = [], "r"
    for i in range(60):
        edges += [(f"a{i}", prev), (f"b{i}", prev), (f"m{i}", f"a{i}"), (f"m{i}", f"b{i}")]
        prev = f"m{i}"
    h = FeatureHierarchy.from_edges(edges)
    v = np.linspace(0, 1, h.n_nodes)
    got = path_mean_rule(h, v)
    assert got.dtype == bool and got.any()
    assert path_argmax(h, strict_ranks(v, h.node_ids)).sum() >= 1


def test_multiple_roots_each_root_ends_its_own_paths():
    # l has two parents that are both roots: two paths, l-r1 (mean .7) and l-r2 (mean .3)
    h = FeatureHierarchy.from_edges([("l", "r1"), ("l", "r2")], nodes=["l", "r1", "r2"])
    v = np.array([0.5, 0.9, 0.1])
    assert path_mean_rule(h, v, mode="any").tolist() == [True, True, False]
    assert path_mean_rule(h, v, mode="all").tolist() == [False, True, False]
    # argmax: r1 wins l-r1; l wins l-r2
    assert path_argmax(h, strict_ranks(v, h.node_ids)).tolist() == [True, True, False]
