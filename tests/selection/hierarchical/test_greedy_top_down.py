"""GreedyTopDown (Lu et al. 2013) as the SHSEL paper and as the RPV paper read it: literal examples,
brute-force references, the antichain (SHSEL paper) and the path maxima (RPV paper)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from kg.hierarchy import FeatureHierarchy
from selection.hierarchical.greedy_top_down import GreedyTopDown, GreedyTopDownRPV
from selection.measures.relevance import gain_ratio, information_gain
from selection.registry import get_selector, selector_entry
from tests.strategies import closed_tables, coach_hierarchy, leaf_root_paths


def brute_gtd(h, scores):
    order = sorted(range(h.n_nodes), key=lambda k: (-scores[k], h.levels[k], h.node_ids[k]))
    gone, out = set(), np.zeros(h.n_nodes, bool)
    for i in order:
        if i in gone:
            continue
        out[i] = True
        gone |= set(h.ancestor_indices(i).tolist()) | set(h.descendant_indices(i).tolist())
    return out


def test_gtd_literal():
    h = coach_hierarchy()
    rng = np.random.default_rng(5)
    Xf = h.close(sp.csr_matrix(rng.random((80, 6)) < 0.2))
    y = (np.asarray(Xf[:, 4].todense()).ravel() > 0).astype(int)
    g = GreedyTopDown(h).fit(Xf, y)
    np.testing.assert_allclose(g.scores_, gain_ratio(Xf, y))
    # Player (gain ratio 1) first: drops Athlete and Person; then Team vs Coach vs Politician
    assert g.get_support()[4] and not g.get_support()[[0, 2]].any()
    assert g.get_support().tolist() == brute_gtd(h, g.scores_).tolist()
    gi = GreedyTopDown(h, measure="ig").fit(Xf, y)
    np.testing.assert_allclose(gi.scores_, information_gain(Xf, y))


@given(closed_tables(max_nodes=10), st.sampled_from(["gain_ratio", "ig"]))
def test_gtd_matches_brute_force_and_is_a_maximal_antichain(table, measure):
    Xt, y, h = table
    g = GreedyTopDown(h, measure=measure).fit(Xt, y)
    sup = g.get_support()
    assert sup.tolist() == brute_gtd(h, g.scores_).tolist()
    anc = h.ancestor_matrix.toarray().astype(bool)
    assert not anc[np.ix_(sup, sup)].any()
    assert (anc | anc.T | np.eye(h.n_nodes, dtype=bool))[:, sup].any(axis=1).all()


def test_bad_measure():
    h = coach_hierarchy()
    Xf = h.close(sp.csr_matrix(np.eye(6)))
    with pytest.raises(ValueError,
                       match="'measure' parameter of GreedyTopDown must be a str among .*'gain_ratio'.*Got 'lift'"):
        GreedyTopDown(h, measure="lift").fit(Xf, [0, 1] * 3)


def test_registry():
    assert isinstance(get_selector("greedy-top-down", coach_hierarchy()), GreedyTopDown)


def test_real_data_matches_brute_force(closed_real_table):
    X, y, h = closed_real_table
    g = GreedyTopDown(h).fit(X, y)
    assert g.get_support().tolist() == brute_gtd(h, g.scores_).tolist()


# ----------------------------------------------------------------------------- the RPV paper's GTD
def brute_gtd_rpv(h, scores):
    """Every feature that has the largest score of some leaf-to-root path (ties included)."""
    out = np.zeros(h.n_nodes, bool)
    for path in leaf_root_paths(h):
        best = max(scores[k] for k in path)
        for k in path:
            out[k] |= bool(np.isclose(scores[k], best, rtol=0, atol=1e-12))
    return out


def test_gtd_rpv_literal_dag_by_hand():
    # r <- a <- c and r <- b <- c (c has two parents), r <- d; 8 instances, classes 4/4.
    h = FeatureHierarchy.from_edges([("a", "r"), ("b", "r"), ("c", "a"), ("c", "b"), ("d", "r")],
                                    nodes=["r", "a", "b", "c", "d"])
    #      r  a  b  c  d
    X = np.array([[1, 1, 1, 1, 0],   # class 1
                  [1, 1, 1, 1, 0],   # class 1
                  [1, 1, 1, 0, 0],   # class 1
                  [1, 1, 0, 0, 1],   # class 1
                  [1, 0, 1, 0, 1],   # class 0
                  [1, 0, 0, 0, 0],   # class 0
                  [1, 0, 0, 0, 0],   # class 0
                  [1, 0, 0, 0, 0]])  # class 0
    y = [1, 1, 1, 1, 0, 0, 0, 0]
    # gain ratios (IG / split entropy, bits): r constant -> 0; a = class -> 1;
    # c: 2 of 8, both class 1: IG = 1 - 6/8 H(2/6) = 1 - 0.75 * 0.9183 = 0.3113, H(2/8) = 0.8113 -> 0.3837;
    # b: 4 of 8, 3 class 1: IG = 1 - H(3/4) = 1 - 0.8113 = 0.1887, H(4/8) = 1 -> 0.1887;
    # d: 2 of 8, 1 per class: IG = 1 - (2/8 * 1 + 6/8 * 1) = 0 -> 0.
    sel = GreedyTopDownRPV(h).fit(X, y)
    np.testing.assert_allclose(sel.scores_, [0, 1, 0.1887, 0.3837, 0], atol=1e-4)
    # paths c-a-r (max a), c-b-r (max c: 0.38 > 0.19 > 0), d-r (d and r tie at 0: both)
    assert sel.get_feature_names_out().tolist() == ["r", "a", "c", "d"]
    # a and its descendant c are both selected (maximal on different paths); the SHSEL
    # paper's reading takes a first and drops c and r: an antichain {a, b}? b is c's parent
    # and a sibling of a: a -> drops r, c; then b (0.19) -> kept; then d (0 ties r, r gone)
    assert GreedyTopDown(h).fit(X, y).get_feature_names_out().tolist() == ["a", "b", "d"]


@given(closed_tables(max_nodes=10), st.sampled_from(["gain_ratio", "ig"]))
def test_gtd_rpv_matches_brute_force(table, measure):
    Xt, y, h = table
    g = GreedyTopDownRPV(h, measure=measure).fit(Xt, y)
    assert g.get_support().tolist() == brute_gtd_rpv(h, g.scores_).tolist()
    # every path keeps at least one feature (its maximum)
    sup = g.get_support()
    assert all(sup[path].any() for path in leaf_root_paths(h))


def test_gtd_rpv_registry_and_parameters():
    sel = get_selector("gtd-rpv", coach_hierarchy())
    assert isinstance(sel, GreedyTopDownRPV) and sel.measure == "gain_ratio"
    assert "2020" in selector_entry("gtd-rpv").description
    Xf = coach_hierarchy().close(sp.csr_matrix(np.eye(6)))
    with pytest.raises(ValueError, match="'measure' parameter of GreedyTopDownRPV must be a str among .*Got 'lift'"):
        GreedyTopDownRPV(coach_hierarchy(), measure="lift").fit(Xf, [0, 1] * 3)
    with pytest.raises(ValueError, match="'check_implication' parameter of GreedyTopDownRPV"):
        GreedyTopDownRPV(coach_hierarchy(), check_implication="yes").fit(Xf, [0, 1] * 3)


def test_gtd_rpv_real_data_matches_brute_force(closed_real_table):
    X, y, h = closed_real_table
    g = GreedyTopDownRPV(h).fit(X, y)
    assert g.get_support().tolist() == brute_gtd_rpv(h, g.scores_).tolist()
