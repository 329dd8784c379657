"""GreedyTopDown (Lu et al. 2013): literal example, the brute-force reference, maximal antichain."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from selection.hierarchical.greedy_top_down import GreedyTopDown
from selection.measures.relevance import gain_ratio, information_gain
from selection.registry import get_selector
from tests.strategies import closed_tables, coach_hierarchy


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
    with pytest.raises(ValueError, match="measure must be one of 'gain_ratio', 'ig', got 'lift'"):
        GreedyTopDown(h, measure="lift").fit(Xf, [0, 1] * 3)


def test_registry():
    assert isinstance(get_selector("greedy-top-down", coach_hierarchy()), GreedyTopDown)


def test_real_data_matches_brute_force(closed_real_table):
    X, y, h = closed_real_table
    g = GreedyTopDown(h).fit(X, y)
    assert g.get_support().tolist() == brute_gtd(h, g.scores_).tolist()
