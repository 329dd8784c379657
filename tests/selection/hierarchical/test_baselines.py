"""SIG/SC, TSEL and GreedyTopDown: literal examples, brute-force path references, bad input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from kg.hierarchy import FeatureHierarchy
from selection.hierarchical.baselines import TSEL, GreedyTopDown, StandardSelector
from selection.measures.relevance import chi_square, chi_square_pvalue, class_correlation, gain_ratio, information_gain, lift
from selection.registry import get_selector, selector_entry
from selection.hierarchical.shsel import THRESHOLD_GRID
from tests.strategies import closed_tables, leaf_root_paths

# ----------------------------------------------------------------------------- SIG / SC
# columns: perfect predictor (IG 1), half (IG 0), weak (IG .311), constant (IG 0)
X = np.array([[1, 1, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 0, 1]])
Y = np.array([1, 1, 0, 0])


def test_sig_threshold_on_normalised_ig():
    s = StandardSelector(measure="ig", threshold=0.3).fit(X, Y)
    np.testing.assert_allclose(s.scores_, information_gain(X, Y))
    np.testing.assert_allclose(s.normalized_scores_, s.scores_ / s.scores_.max())
    assert s.get_support().tolist() == [True, False, True, False]
    assert StandardSelector(threshold=0.0).fit(X, Y).get_support().all()
    assert StandardSelector(threshold=1.0).fit(X, Y).get_support().tolist() == [True, False, False, False]
    raw = StandardSelector(threshold=0.3, normalize=False).fit(X, Y)
    assert raw.get_support().tolist() == (raw.scores_ >= 0.3).tolist()


def test_sc_uses_class_correlation_and_k_percentile():
    s = StandardSelector(measure="correlation", k=2).fit(X, Y)
    np.testing.assert_allclose(s.scores_, class_correlation(X, Y))
    assert s.get_support().tolist() == [True, False, True, False]
    # ties (columns 1 and 3 both 0) go to the smaller id
    assert StandardSelector(k=3).fit(X, Y).get_support().tolist() == [True, True, True, False]
    assert StandardSelector(percentile=50).fit(X, Y).get_support().sum() == 2
    assert StandardSelector(percentile=10).fit(X, Y).get_support().sum() == 1  # rounded up
    assert StandardSelector(percentile=0).fit(X, Y).get_support().sum() == 0
    assert StandardSelector(k=0).fit(X, Y).get_support().sum() == 0


def test_supports_for_thresholds_equal_refits():
    grid = np.linspace(0, 1, 11)
    for measure in ("ig", "correlation"):
        s = StandardSelector(measure=measure).fit(X, Y)
        masks = s.supports_for_thresholds(grid)
        for t, mask in zip(grid, masks):
            assert mask.tolist() == StandardSelector(measure=measure, threshold=t).fit(X, Y).get_support().tolist()
    s = StandardSelector(k=2).fit(X, Y)
    assert (s.supports_for_thresholds(grid) == s.get_support()).all()


def test_standard_bad_params():
    with pytest.raises(ValueError, match="at most one"):
        StandardSelector(k=1, percentile=5).fit(X, Y)
    with pytest.raises(ValueError, match="k=9 is more than the 4"):
        StandardSelector(k=9).fit(X, Y)
    with pytest.raises(ValueError, match="percentile"):
        StandardSelector(percentile=101).fit(X, Y)
    with pytest.raises(ValueError, match="measure"):
        StandardSelector(measure="lift").fit(X, Y)
    with pytest.raises(ValueError, match="threshold"):
        StandardSelector(threshold=None).fit(X, Y)


# ----------------------------------------------------------------------------- TSEL
def fig():
    # person/athlete/team hierarchy with a diamond: a coach is both a Person and in a Team
    return FeatureHierarchy.from_edges(
        [("Athlete", "Person"), ("Coach", "Person"), ("Coach", "Team"), ("Player", "Athlete"),
         ("Politician", "Person")],
        nodes=["Person", "Team", "Athlete", "Coach", "Player", "Politician"],
    )


def brute_tsel_representatives(h, scores):
    reps = np.zeros(h.n_nodes, bool)
    for path in leaf_root_paths(h):
        # highest score; ties to the more general node (smaller level), then smaller id
        best = max(path, key=lambda k: (scores[k], -h.levels[k], tuple(-ord(ch) for ch in h.node_ids[k])))
        reps[best] = True
    return reps


def test_tsel_literal():
    h = fig()
    rng = np.random.default_rng(3)
    direct = sp.csr_matrix(rng.random((60, 6)) < 0.25)
    Xf = h.close(direct)
    y = (np.asarray(Xf[:, 4].todense()).ravel() > 0).astype(int)  # class = has a Player
    t = TSEL(h, chi2_alpha=1.0).fit(Xf, y)
    np.testing.assert_allclose(t.scores_, lift(Xf, y))
    # Player predicts the class perfectly: lift 1/P(y=1) is the largest possible -> it represents
    # its path; Politician's path (Politician-Person) and Coach's two paths get their own best
    assert t.representatives_.tolist() == brute_tsel_representatives(h, t.scores_).tolist()
    assert t.representatives_[4]
    assert t.get_support().tolist() == t.representatives_.tolist()  # alpha 1 keeps all
    t05 = TSEL(h).fit(Xf, y)
    np.testing.assert_allclose(t05.chi2_, chi_square(Xf, y))
    want = t05.representatives_ & (chi_square_pvalue(Xf, y) <= 0.05)
    assert t05.get_support().tolist() == want.tolist()
    assert t05.get_support()[4]
    t1 = TSEL(h, chi2_k=1).fit(Xf, y)
    assert t1.get_support().tolist() == [False, False, False, False, True, False]


def test_tsel_ties_go_to_the_more_general_node():
    h = FeatureHierarchy.from_edges([("c", "p")], nodes=["c", "p"])
    Xc = np.array([[1, 1], [1, 1], [0, 0], [0, 0]])  # identical columns: identical scores
    t = TSEL(h, measure="ig", chi2_alpha=1.0).fit(Xc, [1, 1, 0, 0])
    assert t.get_support().tolist() == [False, True]


def test_tsel_never_empty_and_bad_params():
    h = fig()
    Xf = h.close(sp.csr_matrix(np.eye(6)))
    y = [0, 1, 0, 1, 0, 1]
    t = TSEL(h, chi2_alpha=0.0).fit(Xf, y)  # nothing is significant at alpha 0
    assert t.get_support().sum() == 1 and t.representatives_[t.get_support()].all()
    with pytest.raises(ValueError, match="chi2_alpha"):
        TSEL(h, chi2_alpha=2).fit(Xf, y)
    with pytest.raises(ValueError, match="measure"):
        TSEL(h, measure="gain_ratio").fit(Xf, y)
    with pytest.raises(ValueError, match="chi2_k=99 is more than"):
        TSEL(h, chi2_k=99).fit(Xf, y)


@given(closed_tables(max_nodes=10), st.sampled_from(["lift", "ig"]))
def test_tsel_matches_brute_force(table, measure):
    Xt, y, h = table
    t = TSEL(h, measure=measure, chi2_alpha=0.5).fit(Xt, y)
    reps = brute_tsel_representatives(h, t.scores_)
    assert t.representatives_.tolist() == reps.tolist()
    assert not (t.get_support() & ~reps).any()
    # every path has exactly one representative... of its own; every representative is a path max
    for path in leaf_root_paths(h):
        assert reps[path].any()


# ----------------------------------------------------------------------------- GTD
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
    h = fig()
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


# ----------------------------------------------------------------------------- registry, bad input
def test_registry():
    assert selector_entry("sig").threshold_grid == THRESHOLD_GRID
    assert selector_entry("sc").threshold_grid == THRESHOLD_GRID
    assert get_selector("sig").measure == "ig" and get_selector("sc").measure == "correlation"
    assert get_selector("sig", None, k=3).k == 3
    assert get_selector("tsel-lift", fig()).measure == "lift"
    assert get_selector("tsel-ig", fig(), chi2_k=2).chi2_k == 2
    assert isinstance(get_selector("greedy-top-down", fig()), GreedyTopDown)


@pytest.mark.parametrize("cls", [TSEL, GreedyTopDown])
def test_hierarchical_bad_input(cls):
    h = fig()
    Xf = h.close(sp.csr_matrix(np.eye(6)))
    with pytest.raises(ValueError, match="single class"):
        cls(h).fit(Xf, np.ones(6))
    with pytest.raises(ValueError, match="violates the hierarchy"):
        cls(h).fit(sp.csr_matrix(np.eye(6)), [0, 1] * 3)
    fixed = cls(h, check_implication="repair").fit(sp.csr_matrix(np.eye(6)), [0, 1] * 3)
    assert fixed.get_support().tolist() == cls(h).fit(Xf, [0, 1] * 3).get_support().tolist()
    with pytest.raises(ValueError, match="binary"):
        cls(h).fit(Xf * 3, [0, 1] * 3)
    with pytest.raises(ValueError, match="hierarchy has 2 nodes but X has 6"):
        cls(FeatureHierarchy.from_edges([("a", "b")])).fit(Xf, [0, 1] * 3)


def test_docstring_examples():
    import doctest

    import selection.hierarchical.baselines

    assert doctest.testmod(selection.hierarchical.baselines).failed == 0


@pytest.mark.slow
@pytest.mark.parametrize("dataset", ["aire/DM-BP", "lod/SportsTweetsT"])
def test_real_data_matches_brute_force(shared_data, dataset):
    from kg.datasets import load_dataset

    t = load_dataset(dataset, mirror=shared_data)
    h, X, y = t.hierarchy, h_close(t), np.asarray(t.y)  # repair the 6 violating cells
    tl = TSEL(h, chi2_alpha=1.0).fit(X, y)
    assert tl.representatives_.tolist() == brute_tsel_representatives(h, tl.scores_).tolist()
    g = GreedyTopDown(h).fit(X, y)
    assert g.get_support().tolist() == brute_gtd(h, g.scores_).tolist()


def h_close(table):
    return table.hierarchy.close(sp.csr_matrix(table.X)).astype(float)
