"""TSEL (Jeong & Myaeng 2013) as the SHSEL and the RPV paper ran it: literal examples, the
brute-force path reference, bad parameters; TSEL-RPV's output holds no ancestor-descendant pair."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from kg.hierarchy import FeatureHierarchy
from selection.hierarchical.tsel import TSEL, TSELRPV
from selection.measures.relevance import chi_square, chi_square_pvalue, lift
from selection.registry import get_selector, selector_entry
from tests.strategies import closed_tables, coach_hierarchy, leaf_root_paths


def brute_tsel_representatives(h, scores):
    reps = np.zeros(h.n_nodes, bool)
    for path in leaf_root_paths(h):
        # highest score; ties to the more general node (smaller level), then smaller id
        best = max(path, key=lambda k: (scores[k], -h.levels[k], tuple(-ord(ch) for ch in h.node_ids[k])))
        reps[best] = True
    return reps


def test_tsel_literal():
    h = coach_hierarchy()
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
    h = coach_hierarchy()
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


def test_registry():
    assert get_selector("tsel-lift", coach_hierarchy()).measure == "lift"
    assert get_selector("tsel-ig", coach_hierarchy(), chi2_k=2).chi2_k == 2


def test_real_data_matches_brute_force(closed_real_table):
    X, y, h = closed_real_table
    tl = TSEL(h, chi2_alpha=1.0).fit(X, y)
    assert tl.representatives_.tolist() == brute_tsel_representatives(h, tl.scores_).tolist()


# ----------------------------------------------------------------------------- the RPV paper's TSEL
def test_tsel_rpv_literal_dag_by_hand():
    # Person <- Athlete <- Player, Person <- Politician; 8 instances, class 1 = 2 of 8 (prior 1/4)
    h = FeatureHierarchy.from_edges([("Athlete", "Person"), ("Player", "Athlete"), ("Politician", "Person")],
                                    nodes=["Person", "Athlete", "Player", "Politician"])
    #              Person Athlete Player Politician   class
    X = np.array([[1, 1, 1, 0],                      # 1
                  [1, 1, 0, 0],                      # 1
                  [1, 1, 1, 0],                      # 0
                  [1, 0, 0, 1],                      # 0
                  [1, 0, 0, 1],                      # 0
                  [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    y = [1, 1, 0, 0, 0, 0, 0, 0]
    # lift = max over classes of P(c | f=1) / P(c):
    #   Person: class 1 2/5 / (1/4) = 1.6, class 0 3/5 / (3/4) = 0.8 -> 1.6
    #   Athlete: 2/3 / (1/4) = 2.67;  Player: 1/2 / (1/4) = 2;  Politician: class 0 1 / (3/4) = 1.33
    sel = TSELRPV(h).fit(X, y)
    np.testing.assert_allclose(sel.scores_, [1.6, 8 / 3, 2.0, 4 / 3])
    # path Player-Athlete-Person: Athlete; path Politician-Person: Person (1.6 > 1.33)
    assert sel.representatives_.tolist() == [True, True, False, False]
    # Person is Athlete's ancestor: only the most specific representative stays
    assert sel.get_feature_names_out().tolist() == ["Athlete"]
    # the SHSEL paper's TSEL (chi-square step off) keeps both, an ancestor-descendant pair
    assert TSEL(h, chi2_alpha=1.0).fit(X, y).get_feature_names_out().tolist() == ["Person", "Athlete"]


@given(closed_tables(max_nodes=10), st.sampled_from(["lift", "ig"]))
def test_tsel_rpv_is_the_most_specific_path_representatives(table, measure):
    Xt, y, h = table
    t = TSELRPV(h, measure=measure).fit(Xt, y)
    reps = brute_tsel_representatives(h, t.scores_)
    assert t.representatives_.tolist() == reps.tolist()
    sup = t.get_support()
    anc = h.ancestor_matrix.toarray().astype(bool)   # anc[d, a]: a is an ancestor of d
    assert not anc[np.ix_(sup, sup)].any()  # no ancestor-descendant pair
    # a representative is dropped exactly when another representative lies below it
    assert sup.tolist() == [bool(reps[i] and not (anc[:, i] & reps).any()) for i in range(h.n_nodes)]


def test_tsel_rpv_registry():
    sel = get_selector("tsel-rpv", coach_hierarchy())
    assert isinstance(sel, TSELRPV) and sel.measure == "lift"
    assert "2020" in selector_entry("tsel-rpv").description
    with pytest.raises(ValueError, match="measure"):
        TSELRPV(coach_hierarchy(), measure="gain_ratio").fit(coach_hierarchy().close(sp.csr_matrix(np.eye(6))),
                                                             [0, 1] * 3)
