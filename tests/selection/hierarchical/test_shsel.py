"""SHSEL (Ristoski & Paulheim 2014): literal examples, brute-force agreement, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from kg.hierarchy import FeatureHierarchy
from selection.base import implication_violations
from selection.hierarchical.shsel import (
    SHSEL,
    THRESHOLD_GRID,
    edge_cooccurrence_via_violations,
    initial_selection,
    prune_selection,
)
from selection.measures.relevance import (
    information_gain,
    pair_cooccurrence,
    pair_correlation,
)
from selection.registry import get_selector, selector_entry
from tests.strategies import closed_tables, dags, leaf_root_paths

# A part of the Sports Tweets T type hierarchy in the spirit of the paper's Fig. 1/2. The
# text version of the paper does not carry the figures' numbers, so the IG values are ours,
# chosen so that every rule of both algorithms is exercised; the expectations are worked out
# by hand in the comments.
NODES = [
    "Agent", "Person", "Organisation", "Athlete", "Politician", "SportsTeam",
    "BasketballPlayer", "SoccerPlayer", "BasketballTeam",
]
EDGES = [
    ("Person", "Agent"), ("Organisation", "Agent"), ("Athlete", "Person"), ("Politician", "Person"),
    ("SportsTeam", "Organisation"), ("BasketballPlayer", "Athlete"), ("SoccerPlayer", "Athlete"),
    ("BasketballTeam", "SportsTeam"),
]
IG = dict(Agent=0.10, Person=0.20, Organisation=0.30, Athlete=0.50, Politician=0.05, SportsTeam=0.45,
          BasketballPlayer=0.498, SoccerPlayer=0.30, BasketballTeam=0.449)


def fig_hierarchy():
    return FeatureHierarchy.from_edges(EDGES, nodes=NODES)


def names(h, mask):
    return sorted(h.node_ids[mask].tolist())


def test_worked_example_initial_selection():
    h = fig_hierarchy()
    ig = np.array([IG[n] for n in NODES])
    c, p = h.edges
    # BasketballPlayer/Athlete: 1 - .002 = .998; BasketballTeam/SportsTeam: .999; others <= .9
    init = initial_selection(h.n_nodes, c, p, 1 - np.abs(ig[c] - ig[p]), 0.99)
    assert names(h, ~init) == ["BasketballPlayer", "BasketballTeam"]
    # at 0.9 Person/Agent (.9) merges too; roots are never dropped
    init9 = initial_selection(h.n_nodes, c, p, 1 - np.abs(ig[c] - ig[p]), 0.9)
    assert names(h, ~init9) == ["BasketballPlayer", "BasketballTeam", "Person"]


def test_worked_example_pruning_any_and_all():
    h = fig_hierarchy()
    ig = np.array([IG[n] for n in NODES])
    c, p = h.edges
    init = initial_selection(h.n_nodes, c, p, 1 - np.abs(ig[c] - ig[p]), 0.99)
    # path means over the remaining features:
    #   BasketballPlayer-Athlete-Person-Agent  (.5+.2+.1)/3     = .267
    #   SoccerPlayer-Athlete-Person-Agent      (.3+.5+.2+.1)/4  = .275
    #   Politician-Person-Agent                (.05+.2+.1)/3    = .117
    #   BasketballTeam-SportsTeam-Organisation-Agent (.45+.3+.1)/3 = .283
    anyp = prune_selection(h, ig, init, path_rule="any")
    # Person (.2) reaches .117 on the Politician path; Agent (.1) reaches no mean
    assert names(h, anyp) == ["Athlete", "Organisation", "Person", "SoccerPlayer", "SportsTeam"]
    allp = prune_selection(h, ig, init, path_rule="all")
    assert names(h, allp) == ["Athlete", "Organisation", "SoccerPlayer", "SportsTeam"]


def test_fit_on_data_merges_identical_child_and_prunes():
    h = FeatureHierarchy.from_edges([("Athlete", "Person"), ("Politician", "Person")],
                                    nodes=["Athlete", "Politician", "Person"])
    X = np.array([[1, 0, 1], [1, 0, 1], [0, 1, 1], [0, 0, 0]])
    y = [1, 1, 0, 0]
    s = SHSEL(h, prune=False).fit(X, y)
    # Politician and Person have the same IG (0.311): Politician goes
    np.testing.assert_allclose(s.scores_, information_gain(X, y))
    assert s.get_support().tolist() == [True, False, True]
    s = SHSEL(h).fit(X, y)
    assert s.initial_support_.tolist() == [True, False, True]
    assert s.get_feature_names_out().tolist() == ["Athlete", "Person"]
    assert SHSEL(h, path_rule="all").fit(X, y).get_support().tolist() == [True, False, False]


def test_ig_unit_changes_the_merge_by_hand():
    # one edge c -> p; 8 instances, classes 4/4 (H(Y) = 1 bit)
    h = FeatureHierarchy.from_edges([("c", "p")], nodes=["c", "p"])
    X = np.array([[1, 1]] * 4 + [[0, 1]] + [[0, 0]] * 3)
    y = [1, 1, 1, 1, 0, 0, 0, 0]
    # IG(c) = 1 bit (c is the class); IG(p) = 1 - 5/8 H(4/5) = 1 - 0.625 * 0.7219 = 0.5488 bit
    # similarity 1 - |1 - 0.5488| = 0.5488 in bits, 1 - 0.4512 ln 2 = 1 - 0.3127 = 0.6873 in nats
    bits = SHSEL(h, threshold=0.6, prune=False).fit(X, y)
    nats = SHSEL(h, threshold=0.6, prune=False, ig_unit="nats").fit(X, y)
    np.testing.assert_allclose(bits.edge_similarity_, [0.5488], atol=1e-4)
    np.testing.assert_allclose(nats.edge_similarity_, [0.6873], atol=1e-4)
    np.testing.assert_allclose(nats.scores_, bits.scores_ * np.log(2))
    assert bits.get_support().tolist() == [True, True]  # 0.5488 < 0.6: c stays
    assert nats.get_support().tolist() == [False, True]  # 0.6873 >= 0.6: c merged into p


def test_rpv_paper_pruning_by_hand():
    h = fig_hierarchy()
    ig = np.array([IG[n] for n in NODES])
    c, p = h.edges
    init = initial_selection(h.n_nodes, c, p, 1 - np.abs(ig[c] - ig[p]), 0.99)
    # path means as in test_worked_example_pruning_any_and_all: .267, .275, .117, .283.
    # ">" and "all": a feature must be above the mean of every path it lies on:
    #   Athlete .5 (> .267, .275), SoccerPlayer .3 (> .275), SportsTeam .45 and Organisation .3
    #   (> .283); Person .2 is below .267; Agent .1 below every mean
    rpv = prune_selection(h, ig, init, path_rule="all", compare=">")
    assert names(h, rpv) == ["Athlete", "Organisation", "SoccerPlayer", "SportsTeam"]
    # a path whose remaining features are equally relevant: ">=" keeps them all, ">" none
    chain = FeatureHierarchy.from_edges([("b", "a")], nodes=["a", "b"])
    same = np.array([0.3, 0.3])
    assert prune_selection(chain, same, np.array([True, True])).tolist() == [True, True]
    assert prune_selection(chain, same, np.array([True, True]), compare=">").tolist() == [False, False]


def test_shsel_rpv_registry_entry():
    sel = get_selector("shsel-rpv", fig_hierarchy())
    assert (sel.relevance, sel.prune, sel.threshold, sel.prune_compare, sel.path_rule, sel.ig_unit) == (
        "ig", True, 0.99, ">", "all", "bits")
    assert "2020" in selector_entry("shsel-rpv").description
    # Athlete/Politician/Person example: Politician merges into Person (same IG 0.311);
    # paths Athlete-Person (mean (1 + 0.311) / 2) and Person alone: Person equals its own mean,
    # so ">" drops it, while the SHSEL paper's ">=" keeps it
    h = FeatureHierarchy.from_edges([("Athlete", "Person"), ("Politician", "Person")],
                                    nodes=["Athlete", "Politician", "Person"])
    X = np.array([[1, 0, 1], [1, 0, 1], [0, 1, 1], [0, 0, 0]])
    assert sel.set_params(hierarchy=h).fit(X, [1, 1, 0, 0]).get_feature_names_out().tolist() == ["Athlete"]
    assert SHSEL(h).fit(X, [1, 1, 0, 0]).get_feature_names_out().tolist() == ["Athlete", "Person"]


def test_each_protocol_lists_its_papers_variants():
    from selection.evaluation.protocols import get_protocol

    rpv_paper, shsel_paper = {"gtd-rpv", "tsel-rpv", "shsel-rpv"}, {"greedy-top-down", "tsel-lift", "shsel-ig-prune"}
    rpv, shsel = set(get_protocol("rpv2020").paper_methods), set(get_protocol("shsel2014").paper_methods)
    assert rpv_paper <= rpv and not shsel_paper & rpv
    assert shsel_paper <= shsel and not rpv_paper & shsel


def test_correlation_variant_drops_a_child_identical_to_its_parent():
    h = FeatureHierarchy.from_edges([("a", "p"), ("b", "p")], nodes=["a", "b", "p"])
    X = np.array([[1, 0, 1], [1, 0, 1], [0, 1, 1], [0, 0, 0], [0, 0, 0]])
    y = [1, 0, 1, 0, 0]
    # corr(b, p): b is rarer than p -> < 1; a/p correlation .67
    s = SHSEL(h, relevance="correlation", threshold=0.6, prune=False).fit(X, y)
    r = pair_correlation(X, np.array([0, 1]), np.array([2, 2]))
    assert s.get_support().tolist() == [bool(r[0] < 0.6), bool(r[1] < 0.6), True]
    X2 = np.array([[1, 1, 1], [0, 0, 0], [1, 1, 1], [0, 0, 0]])  # a == b == p
    s = SHSEL(h, relevance="correlation", threshold=1.0, prune=False).fit(X2, [1, 0, 0, 1])
    assert s.get_support().tolist() == [False, False, True]


@pytest.mark.parametrize("threshold", [1.01, 2, -0.5, float("nan"), float("inf")])
def test_threshold_outside_the_similarity_range_is_refused(threshold):
    """The similarity 1 - |IG(child) - IG(parent)| lies in [0, 1]: a threshold outside it is a mistake."""
    h = fig_hierarchy()
    X = h.close(sp.csr_matrix(np.eye(9)))
    with pytest.raises(ValueError, match=r"'threshold' parameter of SHSEL must be a float in the range \[0\.0, 1\.0\]"):
        SHSEL(h, threshold=threshold, prune=False).fit(X, np.arange(9) % 2)


def test_sparse_input_equals_dense_input():
    h = fig_hierarchy()
    rng = np.random.default_rng(1)
    X = h.close(sp.csr_matrix(rng.random((50, 9)) < 0.2)).astype(float)
    y = np.arange(50) % 2
    for rel in ("ig", "correlation"):
        a = SHSEL(h, relevance=rel, threshold=0.9).fit(X, y).get_support()
        b = SHSEL(h, relevance=rel, threshold=0.9).fit(X.toarray(), y).get_support()
        assert a.tolist() == b.tolist()


# ----------------------------------------------------------------------------- brute force
def brute_shsel(X, y, h, relevance, threshold, prune, rule, unit="bits", compare=">="):
    """The paper's algorithms literally: a work list from the leaves, then every path."""
    Xd = np.asarray(sp.csr_matrix(X).todense())
    ig = information_gain(X, y) * (np.log(2) if unit == "nats" else 1.0)
    keep = set(range(h.n_nodes))
    todo, seen = list(h.leaves.tolist()), set()
    while todo:  # Algorithm 1
        node = todo.pop(0)
        if node in seen:
            continue
        seen.add(node)
        for d in sorted(h.parent_indices(node).tolist()):
            if relevance == "ig":
                sim = 1 - abs(ig[d] - ig[node])
            else:
                sim = pair_correlation(Xd, np.array([node]), np.array([d]))[0]
            if sim >= threshold:
                keep.discard(node)
                break
        todo.extend(h.parent_indices(node).tolist())
    if not prune:
        return np.array([i in keep for i in range(h.n_nodes)])
    eps = 1e-12 * max(1.0, float(ig.max()))
    verdict = {i: [] for i in keep}
    for path in leaf_root_paths(h):  # Algorithm 2
        on = [k for k in path if k in keep]
        avg = np.mean(ig[on])
        for k in on:
            verdict[k].append(ig[k] >= avg - eps if compare == ">=" else ig[k] > avg + eps)
    agg = any if rule == "any" else all
    return np.array([i in keep and agg(verdict[i]) for i in range(h.n_nodes)])


@given(closed_tables(max_nodes=10), st.sampled_from(["ig", "correlation"]),
       st.sampled_from([0.5, 0.8, 0.9, 0.99, 1.0]), st.booleans(), st.sampled_from(["any", "all"]),
       st.sampled_from(["bits", "nats"]), st.sampled_from([">=", ">"]))
def test_matches_brute_force_on_random_dags(table, relevance, threshold, prune, rule, unit, compare):
    X, y, h = table
    got = SHSEL(h, relevance=relevance, threshold=threshold, prune=prune, path_rule=rule, ig_unit=unit,
                prune_compare=compare).fit(X, y)
    want = brute_shsel(X, y, h, relevance, threshold, prune, rule, unit, compare)
    assert got.get_support().tolist() == want.tolist()


@given(closed_tables(max_nodes=10))
def test_hierarchy_promises(table):
    X, y, h = table
    s = SHSEL(h, threshold=0.95).fit(X, y)
    init, sup = s.initial_support_, s.get_support()
    assert init[h.roots].all()  # roots never merged away
    assert not (sup & ~init).any()  # pruning only removes
    # on every path the best remaining feature survives the pruning, so no path is emptied
    for path in leaf_root_paths(h):
        on = [k for k in path if init[k]]
        assert sup[max(on, key=lambda k: s.scores_[k])]


# ----------------------------------------------------------------------------- registry, bad input
def test_registry_entries():
    for name, rel, prune in [("shsel-ig", "ig", False), ("shsel-c", "correlation", False),
                             ("shsel-ig-prune", "ig", True), ("shsel-c-prune", "correlation", True)]:
        sel = get_selector(name, fig_hierarchy())
        assert isinstance(sel, SHSEL) and sel.relevance == rel and sel.prune is prune
        assert sel.threshold == 0.99
        assert selector_entry(name).threshold_grid == THRESHOLD_GRID
    assert len(THRESHOLD_GRID) == 101 and THRESHOLD_GRID[0] == 0.0 and THRESHOLD_GRID[-1] == 1.0
    assert get_selector("shsel-ig-prune", None, threshold=0.5).threshold == 0.5


def test_bad_input():
    h = fig_hierarchy()
    X = h.close(sp.csr_matrix(np.eye(9)))
    y = np.arange(9) % 2
    with pytest.raises(ValueError, match="single class"):
        SHSEL(h).fit(X, np.zeros(9))
    with pytest.raises(ValueError, match="3 nodes but X has 9"):
        SHSEL(FeatureHierarchy.from_edges([("a", "b"), ("c", "b")])).fit(X, y)
    with pytest.raises(ValueError, match="binary"):
        SHSEL(h).fit(X.toarray() * 2, y)
    with pytest.raises(ValueError, match="violates the hierarchy in 8 cell.*"
                                         "row 1 has feature 'Person' but not its parent 'Agent'"):
        SHSEL(h).fit(sp.csr_matrix(np.eye(9)), y)
    assert SHSEL(h, check_implication=False).fit(sp.csr_matrix(np.eye(9)), y).get_support().any()
    repaired = SHSEL(h, check_implication="repair").fit(sp.csr_matrix(np.eye(9)), y)
    assert repaired.get_support().tolist() == SHSEL(h).fit(X, y).get_support().tolist()
    with pytest.raises(ValueError, match="'check_implication' parameter of SHSEL"):
        SHSEL(h, check_implication="fix").fit(X, y)
    with pytest.raises(ValueError, match="0 feature"):
        SHSEL().fit(np.zeros((4, 0)), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="relevance"):
        SHSEL(h, relevance="gini").fit(X, y)
    with pytest.raises(ValueError, match="threshold"):
        SHSEL(h, threshold="high").fit(X, y)
    with pytest.raises(ValueError, match="path_rule"):
        SHSEL(h, path_rule="most").fit(X, y)
    df = pd.DataFrame(X.toarray(), columns=list(reversed(NODES)))
    with pytest.raises(ValueError, match="column 0 is 'BasketballTeam' but the hierarchy's node 0 is 'Agent'"):
        SHSEL(h).fit(df, y)
    ok = SHSEL(h).fit(pd.DataFrame(X.toarray(), columns=NODES), y)
    assert set(ok.get_feature_names_out()) <= set(NODES)


# ----------------------------------------------------------------------------- tables that violate the implication
@st.composite
def open_tables(draw):
    """Random tables that are *not* closed under a random DAG (and two classes)."""
    h = draw(dags(max_nodes=9))
    n = draw(st.integers(4, 20))
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    X = sp.csr_matrix((rng.random((n, h.n_nodes)) < draw(st.sampled_from([0.2, 0.5]))).astype(float))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    return X, y, h


@given(open_tables())
def test_violation_counts_and_cooccurrence_match_brute_force(table):
    X, y, h = table
    Xd = X.toarray()
    c, p = h.edges
    cells = {(i, pp) for i in range(X.shape[0]) for cc, pp in zip(c, p) if Xd[i, cc] and not Xd[i, pp]}
    n_bad, first = implication_violations(X, h)
    assert n_bad == len(cells)
    if cells:
        row, child, parent = first
        assert (row, parent) == min(cells) and Xd[row, child] and child in h.child_indices(parent)
    np.testing.assert_array_equal(edge_cooccurrence_via_violations(X, h), pair_cooccurrence(X, c, p))


@given(open_tables(), st.sampled_from([0.3, 0.6, 0.9]), st.booleans())
def test_correlation_variant_on_open_tables_matches_brute_force(table, threshold, prune):
    X, y, h = table
    got = SHSEL(h, relevance="correlation", threshold=threshold, prune=prune, check_implication=False).fit(X, y)
    assert got.get_support().tolist() == brute_shsel(X, y, h, "correlation", threshold, prune, "any").tolist()


@given(closed_tables(max_nodes=9), st.sampled_from(["ig", "correlation"]), st.booleans())
def test_supports_for_thresholds_equal_refits(table, relevance, prune):
    X, y, h = table
    grid = [0.0, 0.3, 0.8, 0.95, 0.99, 1.0]
    s = SHSEL(h, relevance=relevance, prune=prune).fit(X, y)
    masks = s.supports_for_thresholds(grid)
    for t, mask in zip(grid, masks):
        want = SHSEL(h, relevance=relevance, prune=prune, threshold=t).fit(X, y).get_support()
        assert mask.tolist() == want.tolist()


# ----------------------------------------------------------------------------- real data
@pytest.mark.slow
@pytest.mark.parametrize("dataset", ["aire/DM-BP", "aire/CE-BP", "lod/SportsTweetsT"])
def test_real_data_matches_brute_force(shared_data, dataset):
    """Real GO / DBpedia hierarchies (up to 5,133 leaf-root paths): DP == path enumeration."""
    from kg.datasets import load_dataset

    t = load_dataset(dataset, mirror=shared_data)
    h, X, y = t.hierarchy, sp.csr_matrix(t.X), np.asarray(t.y)
    closed = h.close(X).astype(float)  # Sports Tweets T has 6 violating cells: compare on the repair
    for relevance in ("ig", "correlation"):
        for threshold in (0.6, 0.99):
            s = SHSEL(h, relevance=relevance, threshold=threshold, check_implication="repair").fit(X, y)
            want = brute_shsel(closed, y, h, relevance, threshold, True, "any")
            assert s.get_support().tolist() == want.tolist()
            assert s.get_support().any() and s.get_support().sum() < h.n_nodes
