"""Tests for selection.class_hierarchy.ga_tree (Freeman, Kulic & Basir 2011)."""

from __future__ import annotations

import logging

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from selection.class_hierarchy.ga_tree import (
    GATreeClassifier,
    GATreeSelector,
    Genome,
    build_tree,
    count_relief,
    fisher_criterion,
    flat_tree,
    penalised_score,
    relief,
    repair_tree_genes,
    separation_levels,
)
from selection.class_hierarchy.ga_tree.fitness import _Fitness
from selection.class_hierarchy.ga_tree.search import _crossover, _mutate
from selection.synthetic.ga import make_ga_dataset
from tests.selection.class_hierarchy.ga_tree_reference import (
    count_relief_loop,
    fig4_literal,
    fisher_loop,
    naive_fitness,
    naive_knn_predict,
    relief_loop,
)

# The two genomes of the paper's Fig. 2 (tree part: levels x classes). "X" genes (classes already
# separated) are written as 3 here; other values must give the same tree.
FIG2A = [[0, 0, 1, 1],   # level 0: {0,1} -> output 0, {2,3} -> output 1
         [0, 1, 0, 1],   # level 1: 0|1 and 2|3
         [3, 3, 3, 3]]   # level 2: X X X X
FIG2B = [[0, 1, 1, 1],   # level 0: class 0 alone
         [3, 0, 1, 1],   # level 1: class 1 alone (class 0's gene is X)
         [3, 3, 0, 1]]   # level 2: 2|3


def genome(tree, F=5, features=None):
    t = np.asarray(tree)
    f = np.eye(t.shape[0], F, dtype=bool) if features is None else np.asarray(features, dtype=bool)
    return Genome(f, t)


def tree_genes(C=4):
    return st.lists(st.integers(0, C - 1), min_size=C * (C - 1), max_size=C * (C - 1)).map(
        lambda v: np.array(v).reshape(C - 1, C))


# ============================================================================ Fig. 4
@pytest.mark.parametrize("tree, expected", [(FIG2A, [1, 1, 1, 1]), (FIG2B, [0, 1, 2, 2])])
def test_fig4_separation_levels_on_fig2(tree, expected):
    assert separation_levels(tree).tolist() == expected
    assert fig4_literal(tree) == expected
    assert max(expected) + 1 == (2 if tree is FIG2A else 3)  # numLayersTotal


@settings(max_examples=200)
@given(t=st.integers(3, 6).flatmap(tree_genes))
def test_fig4_vectorised_equals_literal(t):
    assert separation_levels(t).tolist() == fig4_literal(t)


# ============================================================================ Fig. 5
def test_fig5_balanced_tree_fig2a():
    t = build_tree(genome(FIG2A))
    assert t.n_base == 3 and t.n_levels == 2
    root, a, b = t.nodes
    assert root.groups() == [(0, 1), (2, 3)] and root.level == 0 and root.parent == -1
    assert a.classes == [0, 1] and a.parent == 0 and a.parent_output == 0 and a.level == 1
    assert b.classes == [2, 3] and b.parent == 0 and b.parent_output == 1 and b.level == 1
    assert root.children == {0: 1, 1: 2}
    assert t.leaf_groups() == [(0,), (1,), (2,), (3,)]
    # feature rows follow Fig. 5's creation order: root, then {0,1} (class 0), then {2,3}
    assert [n.features.tolist() for n in t.nodes] == [[0], [1], [2]]
    assert t.path_of(0) == [0, 1] and t.path_of(3) == [0, 2]


def test_fig5_long_tree_fig2b():
    t = build_tree(genome(FIG2B))
    assert t.n_base == 3 and t.n_levels == 3
    assert [n.classes for n in t.nodes] == [[0, 1, 2, 3], [1, 2, 3], [2, 3]]
    assert [n.level for n in t.nodes] == [0, 1, 2]
    assert [n.groups() for n in t.nodes] == [[(0,), (1, 2, 3)], [(1,), (2, 3)], [(2,), (3,)]]
    assert t.path_of(0) == [0] and t.path_of(1) == [0, 1] and t.path_of(2) == [0, 1, 2]


@pytest.mark.parametrize("base", [FIG2A, FIG2B])
def test_x_genes_do_not_change_the_tree(base):
    sep = separation_levels(base)
    ref = build_tree(genome(base)).key()
    rng = np.random.default_rng(0)
    for _ in range(20):
        t = np.array(base)
        for lvl in range(t.shape[0]):
            for c in range(t.shape[1]):
                if lvl > sep[c]:
                    t[lvl, c] = rng.integers(0, 4)
        assert build_tree(genome(t)).key() == ref


def test_degenerate_root_removed():
    # level 0 sends everything to output 2: a classifier that separates nothing
    t = build_tree(genome([[2, 2, 2, 2], [0, 0, 1, 1], [0, 1, 0, 1]]))
    assert t.n_base == 3 and t.n_levels == 2
    assert t.nodes[0].groups() == [(0, 1), (2, 3)] and t.nodes[0].gene_level == 1
    assert [n.gene_level for n in t.nodes] == [1, 2, 2]
    assert [n.parent for n in t.nodes] == [-1, 0, 0]


def test_degenerate_middle_level_removed():
    t = build_tree(genome([[0, 0, 1, 1], [3, 3, 2, 2], [0, 1, 0, 1]]))
    assert t.n_base == 3 and t.n_levels == 2
    assert [n.classes for n in t.nodes] == [[0, 1, 2, 3], [0, 1], [2, 3]]
    assert [n.gene_level for n in t.nodes] == [0, 2, 2]
    assert t.nodes[0].children == {0: 1, 1: 2}


def test_single_level_classifier():
    t = build_tree(genome([[3, 1, 0, 2], [0, 0, 0, 0], [1, 1, 1, 1]]))
    assert t.n_base == 1 and t.n_levels == 1 and t.nodes[0].groups() == [(0,), (1,), (2,), (3,)]


def test_repair_splits_classes_never_separated():
    g = [[0, 0, 1, 1], [0, 0, 0, 1], [0, 0, 0, 0]]  # 0 and 1 together at every level
    assert separation_levels(g).tolist() == [-1, -1, 1, 1]
    r = repair_tree_genes(g)
    assert (separation_levels(r) >= 0).all()
    assert r[:2].tolist() == g[:2] and r[2, 0] == 0 and r[2, 1] != 0
    t = build_tree(genome(g))
    assert t.leaf_groups() == [(0,), (1,), (2,), (3,)]
    assert repair_tree_genes(FIG2A).tolist() == np.asarray(FIG2A).tolist()


@settings(max_examples=150)
@given(t=st.integers(3, 6).flatmap(tree_genes), seed=st.integers(0, 1000))
def test_tree_invariants(t, seed):
    C = t.shape[1]
    F = 4
    feats = np.random.default_rng(seed).random((C - 1, F)) < 0.5
    tree = build_tree(Genome(feats, t))
    assert 1 <= tree.n_base <= C - 1 and tree.n_levels <= C - 1
    assert sorted(c for g in tree.leaf_groups() for c in g) == list(range(C))  # each class in one leaf
    assert all(len(g) == 1 for g in tree.leaf_groups())
    for n in tree.nodes:
        assert len(n.outputs) >= 2  # no degenerate classifier left
        assert n.features.tolist() == np.flatnonzero(feats[n.id]).tolist()
        if n.parent >= 0:
            p = tree.nodes[n.parent]
            assert p.children[n.parent_output] == n.id and n.level == p.level + 1
            assert set(n.classes) == set(p.output_classes(n.parent_output))
    assert tree.n_levels == 1 + max(n.level for n in tree.nodes)


# ============================================================================ measures
# Hand-computed count-based RELIEF (Eq. 8-9) on 1-D points. Group A = {0, 1, 3}, B = {4, 10}.
#   p=0:  nearest miss 4 (d=4); hits 1 (d=1 < 4) and 3 (d=3 < 4)    -> 2 of 2
#   p=1:  nearest miss 4 (d=3); hits 0 (d=1) and 3 (d=2)             -> 2 of 2
#   p=3:  nearest miss 4 (d=1); hits 0 (d=3) and 1 (d=2) are farther -> 0 of 2
#   p=4:  nearest miss 3 (d=1); hit 10 (d=6)                          -> 0 of 1
#   p=10: nearest miss 3 (d=7); hit 4 (d=6 < 7)                       -> 1 of 1
#   r_A = (2 + 2 + 0) / (3 * 2) = 2/3;  r_B = (0 + 1) / (2 * 1) = 1/2
X1 = np.array([0.0, 1.0, 3.0, 4.0, 10.0])
G1 = np.array([0, 0, 0, 1, 1])


def test_count_relief_hand_example():
    D = np.abs(X1[:, None] - X1[None, :])
    per = count_relief(D, G1)
    assert per.tolist() == [1.0, 1.0, 0.0, 0.0, 1.0]
    assert per[G1 == 0].mean() == pytest.approx(2 / 3) and per[G1 == 1].mean() == pytest.approx(1 / 2)
    assert count_relief(D**2, G1).tolist() == per.tolist()  # only the order of distances matters
    assert count_relief_loop(X1, G1).tolist() == per.tolist()


def test_count_relief_tie_with_nearest_miss_is_not_a_hit():
    x = np.array([0.0, 2.0, -2.0])  # p=0: hit at 2 and miss at 2 -> d < M_p fails
    assert count_relief(np.abs(x[:, None] - x[None, :]), np.array([0, 0, 1]))[0] == 0.0


def test_count_relief_through_eq7():
    # one base classifier with one class per output: A_all = (3 * 2/3 + 2 * 1/2) / 5 = 3/5
    fit = _Fitness(X1[:, None], G1, 2, scoring="count-relief", base_estimator=KNeighborsClassifier(1),
                   alpha_t=0, alpha_b=0, alpha_l=0, relief_k=1, cv=5, validation_fraction=0.25, seed=0)
    assert fit.accuracy(flat_tree(2, [0])) == pytest.approx(3 / 5)


def test_relief_hand_example():
    # K=1: nearest miss minus nearest hit: p=0: 4-1=3, p=1: 3-1=2, p=3: 1-2=-1, p=4: 1-6=-5, p=10: 7-6=1
    per = relief(np.abs(X1[:, None] - X1[None, :]), G1, k=1)
    assert per.tolist() == pytest.approx([3, 2, -1, -5, 1])
    assert per[G1 == 0].mean() == pytest.approx(4 / 3)  # Eq. 6 r_A


@settings(max_examples=60)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 25), d=st.integers(1, 4), k=st.integers(1, 3))
def test_measures_equal_loop_references(seed, n, d, k):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, d)).astype(float)  # small integers: many exact ties
    g = rng.integers(0, 3, size=n)
    if len(np.unique(g)) < 2:
        g[0], g[1] = 0, 1
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    assert count_relief(D2, g).tolist() == pytest.approx(count_relief_loop(X, g).tolist())
    assert relief(np.sqrt(D2), g, k).tolist() == pytest.approx(relief_loop(X, g, k).tolist())
    assert fisher_criterion(X, g) == pytest.approx(fisher_loop(X, g), abs=1e-9)


def test_fisher_values():
    g = np.array([0, 0, 1, 1])
    assert fisher_criterion(np.array([[0.0], [0.0], [1.0], [1.0]]), g) == pytest.approx(1.0)
    # a constant feature adds nothing (pseudo-inverse) instead of failing
    X = np.array([[0.0, 5], [0.0, 5], [1.0, 5], [1.0, 5]])
    assert fisher_criterion(X, g) == pytest.approx(1.0)
    assert fisher_criterion(np.zeros((4, 0)), g) == 0.0


def test_eq10_penalties():
    tree = build_tree(genome(FIG2A, features=[[1, 0, 1, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 1, 1]]))
    assert (tree.f_t, tree.f_b, tree.n_levels) == (4, 5, 2)
    S = penalised_score(0.9, tree, 5, 4, 0.1, 0.2, 0.3)
    assert S == pytest.approx(0.9 - 0.1 * 4 / 5 - 0.2 * 5 / 15 - 0.3 * 2 / 3)


# ============================================================================ fitness
D1 = make_ga_dataset(1, 0.0, n_per_class=30, random_state=3)
D1N = make_ga_dataset(1, 0.05, n_per_class=30, random_state=3)


def _fitness(d, scoring, **kw):
    args = dict(scoring=scoring, base_estimator=KNeighborsClassifier(1), alpha_t=0.05, alpha_b=0.05,
                alpha_l=0.05, relief_k=1, cv=5, validation_fraction=0.25, seed=0)
    args.update(kw)
    return _Fitness(d.X, d.y, 4, **args)


def test_envisioned_tree_scores_perfectly():
    # Fig. 7d: feature 2 at the root, 0 for {0,1}, 3 for {2,3}
    g = genome(FIG2A, features=[[0, 0, 1, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 1, 0]])
    for scoring in ("count-relief", "cv", "validation", "fisher"):
        assert _fitness(D1, scoring).accuracy(build_tree(g)) == pytest.approx(1.0), scoring


@pytest.mark.parametrize("measure", ["count-relief", "relief"])
def test_fitness_equals_naive(measure):
    fit = _fitness(D1N, measure)
    rng = np.random.default_rng(1)
    for _ in range(15):
        g = Genome.random(4, 5, rng)
        s, _, acc = fit.score(g)
        s_ref, acc_ref = naive_fitness(g, D1N.X, D1N.y, measure=measure)
        assert acc == pytest.approx(acc_ref) and s == pytest.approx(s_ref)


def test_validation_fast_knn_equals_sklearn_and_naive():
    fast = _fitness(D1N, "validation")
    slow = _fitness(D1N, "validation", base_estimator=KNeighborsClassifier(1, algorithm="brute", p=1))  # generic
    assert fast.k_fast == 1 and slow.k_fast == 0
    rng = np.random.default_rng(2)
    for _ in range(10):
        tree = build_tree(Genome.random(4, 5, rng))
        pf = fast.predict_validation(tree)
        node = tree.nodes[0]
        assert pf.shape == fast.yv.shape
        # the root's fast predictions equal an explicit 1-NN (continuous data: no ties)
        if len(node.features):
            rows = np.flatnonzero(np.isin(fast.y, node.classes))
            lab = np.array([node.groups().index(next(g for g in node.groups() if c in g)) for c in fast.y[rows]])
            ref = naive_knn_predict(fast.X[np.ix_(rows, node.features)], lab, fast.Xv[:, node.features])
            assert fast._node(node).tolist() == ref.tolist()
    # Euclidean k-NN through scikit-learn (generic path) equals the vectorised path
    gen = _fitness(D1N, "validation", base_estimator=KNeighborsClassifier(1, algorithm="brute", metric="cityblock"))
    assert gen.k_fast == 0


def test_cv_estimate_generic_estimator_runs():
    fit = _fitness(D1N, "cv", base_estimator=GaussianNB())
    s, tree, acc = fit.score(Genome.random(4, 5, np.random.default_rng(0)))
    assert 0.0 <= acc <= 1.0


def test_fitness_cache_counts():
    fit = _fitness(D1, "count-relief")
    g = genome(FIG2A)
    a = fit.score(g)
    b = fit.score(Genome(g.features.copy(), np.array(FIG2A)))  # identical genome
    c = fit.score(genome([[0, 0, 1, 1], [0, 1, 0, 1], [1, 2, 0, 0]]))  # differs only in X genes
    assert a[0] == b[0] == c[0] and fit.n_tree_hits == 2 and fit.n_evaluations == 3


# ============================================================================ GA operators
def test_crossover_feature_part_and_tree_swap():
    rng = np.random.default_rng(0)
    a, b = Genome.random(4, 5, rng), Genome.random(4, 5, rng)
    fa, fb = a.features.ravel(), b.features.ravel()
    cuts = [(np.concatenate([fa[:p], fb[p:]]), np.concatenate([fb[:p], fa[p:]])) for p in range(1, fa.size)]
    kinds = set()
    for _ in range(60):
        c1, c2 = _crossover(a, b, rng, flat=False)
        d = np.flatnonzero(c1.tree.ravel() != a.tree.ravel())
        tree_swap = (np.array_equal(c1.features, a.features) and np.array_equal(c2.features, b.features)
                     and len(d) == 1 and c1.tree.flat[d[0]] == b.tree.flat[d[0]]
                     and c2.tree.flat[d[0]] == a.tree.flat[d[0]]
                     and np.array_equal(np.delete(c2.tree.ravel(), d), np.delete(b.tree.ravel(), d)))
        unchanged = (np.array_equal(c1.features, a.features) and np.array_equal(c1.tree, a.tree)
                     and np.array_equal(c2.features, b.features) and np.array_equal(c2.tree, b.tree))
        if unchanged:  # a swap of a gene both parents share
            continue
        if tree_swap:
            kinds.add("tree")
            continue
        # feature part: a one-point crossover of the flattened features; whole tree parts reattached
        f1, f2 = c1.features.ravel(), c2.features.ravel()
        assert any(np.array_equal(f1, x) and np.array_equal(f2, y) for x, y in cuts)
        assert {c1.tree.tobytes(), c2.tree.tobytes()} == {a.tree.tobytes(), b.tree.tobytes()}
        kinds.add("features")
    assert kinds == {"tree", "features"}


def test_mutation_changes_one_point():
    rng = np.random.default_rng(0)
    g = Genome.random(4, 5, rng)
    for _ in range(50):
        m = _mutate(g, rng, flat=False)
        changed = (m.features != g.features).sum() + (m.tree != g.tree).sum()
        assert changed == 1 and m.tree.max() <= 3


# ============================================================================ estimator
SMALL = dict(population_size=80, n_replace=16, n_generations=15)


def test_reproducible_and_cache_transparent():
    a = GATreeClassifier(random_state=7, **SMALL).fit(D1N.X, D1N.y)
    b = GATreeClassifier(random_state=7, **SMALL).fit(D1N.X, D1N.y)
    c = GATreeClassifier(random_state=7, cache=False, **SMALL).fit(D1N.X, D1N.y)
    assert a.genome_.key() == b.genome_.key() == c.genome_.key()
    assert a.history_ == b.history_ == c.history_
    assert a.n_cache_hits_ > 0 and c.n_cache_hits_ == 0
    assert all(x <= y + 1e-12 for x, y in zip(a.history_, a.history_[1:]))  # the best never gets worse


def test_classifier_api(tmp_path):
    Xtr, Xte, ytr, yte = train_test_split(D1N.X, D1N.y, test_size=0.25, stratify=D1N.y, random_state=0)
    labels = np.array(["a", "b", "c", "d"])
    clf = GATreeClassifier(**SMALL).fit(Xtr, labels[ytr])
    pred = clf.predict(Xte)
    assert set(pred) <= set(labels)
    P = clf.predict_proba(Xte)
    assert P.shape == (len(Xte), 4) and np.allclose(P.sum(1), 1)
    assert (clf.classes_[P.argmax(1)] == pred).all()
    assert clf.support_.tolist() == [j in clf.tree_.used_features() for j in range(5)]
    text = clf.describe()
    assert "B0" in text and "class" in text
    png = clf.draw(tmp_path / "tree.png", title="test")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    h = clf.tree_.to_class_hierarchy(clf.classes_)
    assert sorted(h.leaf_ids) == list(labels)
    # sparse input gives the same predictions
    assert (clf.predict(sp.csr_matrix(Xte)) == pred).all()


def test_other_base_estimator_without_proba():
    from sklearn.svm import LinearSVC

    clf = GATreeClassifier("validation", LinearSVC(), **SMALL).fit(D1N.X, D1N.y)
    assert not hasattr(clf, "predict_proba")
    assert clf.predict(D1N.X).shape == (len(D1N.y),)


def test_flat_ga():
    clf = GATreeClassifier("validation", hierarchical=False, **SMALL).fit(D1.X, D1.y)
    assert clf.tree_.n_base == 1 and clf.tree_.nodes[0].groups() == [(0,), (1,), (2,), (3,)]
    assert not clf.hierarchical_


def test_all_scorings_run():
    for s in ("validation", "cv", "fisher", "fisher-scaled", "relief", "count-relief"):
        clf = GATreeClassifier(s, population_size=30, n_replace=6, n_generations=3).fit(D1N.X, D1N.y)
        assert np.isfinite(clf.score_) and 1 <= clf.tree_.n_base <= 3


# ============================================================================ paper results
def _split(d):
    return train_test_split(d.X, d.y, test_size=0.2, stratify=d.y, random_state=0)


def test_data_set_1_no_noise_two_base_classifiers():
    """Table IV, count-based RELIEF, 0% noise: 100% with 2 base classifiers, 3 features (default GA)."""
    d = make_ga_dataset(1, 0.0, random_state=0)
    Xtr, Xte, ytr, yte = _split(d)
    clf = GATreeClassifier("count-relief", random_state=0).fit(Xtr, ytr)
    assert clf.score(Xte, yte) == 1.0
    assert clf.tree_.n_base == 2 and clf.tree_.f_t <= 3


@pytest.mark.parametrize("noise", [0.0, 0.05])
def test_data_set_2_single_level_on_feature_0(noise):
    """Table V, count-based RELIEF: the one-level classifier on feature 0."""
    d = make_ga_dataset(2, noise, random_state=0)
    Xtr, Xte, ytr, yte = _split(d)
    clf = GATreeClassifier("count-relief", population_size=200, n_replace=20, n_generations=30).fit(Xtr, ytr)
    assert clf.tree_.n_base == 1 and clf.tree_.used_features() == [0]
    assert clf.score(Xte, yte) == 1.0


# ============================================================================ bad input
def test_two_classes_fall_back_to_flat(caplog):
    X, y = D1.X[D1.y < 2], D1.y[D1.y < 2]
    with caplog.at_level(logging.WARNING, logger="selection.class_hierarchy.ga_tree"):
        clf = GATreeClassifier(**SMALL).fit(X, y)
    assert "at least 3" in caplog.text and not clf.hierarchical_
    assert clf.tree_.n_base == 1 and clf.score(X, y) > 0.9


def test_one_sample_class_raises():
    y = D1.y.copy()
    y[0] = 9
    with pytest.raises(ValueError, match="class 9 has only one sample"):
        GATreeClassifier(**SMALL).fit(D1.X, y)
    clf = GATreeClassifier(singleton_classes="keep", **SMALL).fit(D1.X, y)
    assert 9 in clf.classes_


def test_single_class_raises():
    with pytest.raises(ValueError, match="single class"):
        GATreeClassifier(**SMALL).fit(D1.X, np.zeros(len(D1.y)))


def test_non_numeric_features():
    X = D1.X.astype(object)
    X[3, 2] = "high"
    with pytest.raises(ValueError, match=r"numeric: value 'high' at row 3, column 2"):
        GATreeClassifier(**SMALL).fit(X, D1.y)
    import pandas as pd

    df = pd.DataFrame(D1.X, columns=[f"g{i}" for i in range(5)]).astype(object)
    df.iloc[1, 4] = "n/a"
    with pytest.raises(ValueError, match=r"row 1, column 4 \('g4'\)"):
        GATreeClassifier(**SMALL).fit(df, D1.y)
    with pytest.raises(ValueError, match="numeric"):
        GATreeSelector(binarize=0.5).fit(X, D1.y)


def test_bad_parameters():
    with pytest.raises(ValueError, match="scoring must be one of"):
        GATreeClassifier("gini").fit(D1.X, D1.y)
    with pytest.raises(ValueError, match="alpha_t"):
        GATreeClassifier(alpha_t=-1).fit(D1.X, D1.y)


# ============================================================================ selector / kgfs evaluate
def _binary_table():
    from kg.hierarchy import FeatureHierarchy
    from kg.table import FeatureTable

    h = FeatureHierarchy.from_edges([("a1", "a"), ("b1", "b")], nodes=["a", "a1", "b", "b1", "n"])
    rng = np.random.default_rng(0)
    facts, labels = {}, {}
    for i in range(60):
        c = i % 3
        f = {0: ["a1"], 1: ["b1"], 2: []}[c] + (["n"] if rng.random() < 0.5 else [])
        facts[f"i{i}"] = f
        labels[f"i{i}"] = f"class{c}"
    return FeatureTable.from_facts(facts, h, labels=labels)


def test_selector_registry_and_evaluate():
    from selection.evaluation.cv import evaluate_table
    from selection.registry import get_selector, selector_entry

    assert selector_entry("ga-tree").kind == "eager"
    t = _binary_table()
    s = get_selector("ga-tree", t.hierarchy, population_size=60, n_replace=10, n_generations=10).fit(t.X, t.y)
    assert not s.get_support()[4]  # the noise feature is not used
    assert s.get_support().sum() >= 2 and s.tree_.n_base >= 1
    df = evaluate_table(t, [("ga-tree", {"population_size": 40, "n_replace": 8, "n_generations": 5})],
                        ["1nn"], dataset="toy", n_splits=3)
    assert (df["status"] == "ok").all() and df["accuracy"].mean() > 0.9


def test_selector_requires_binary():
    with pytest.raises(ValueError, match="binary"):
        GATreeSelector().fit(D1.X, D1.y)


def test_selector_scales_the_ga_down_on_tiny_data():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 10)
    X = (rng.random((30, 4)) < 0.5).astype(float)
    X[:, 0] = y == 0
    s = GATreeSelector().fit(X, y)
    c = s.classifier_
    assert (c.population_size, c.n_replace, c.n_generations) == (150, 15, 21)
    full = GATreeSelector(scale_small=False, population_size=40, n_replace=4, n_generations=2).fit(X, y)
    assert full.classifier_.population_size == 40
    assert s.classifier_.describe().count("B") >= 1 and "0" in s.classifier_._feature_names()


# The classifier itself is a scikit-learn classifier too (small GA: the checks fit it many times).
@parametrize_with_checks([GATreeClassifier(population_size=30, n_replace=6, n_generations=5)])
def test_classifier_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("scoring", ["count-relief", "validation", "cv", "fisher"])
def test_sparse_binary_input_equals_dense(scoring):
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1, 2, 3], 12)
    X = (rng.random((48, 6)) < 0.3).astype(float)
    X[:, 0] = y < 2
    X[:, 1] = y % 2
    a = GATreeClassifier(scoring, **SMALL).fit(X, y)
    b = GATreeClassifier(scoring, **SMALL).fit(sp.csr_matrix(X), y)
    assert a.genome_.key() == b.genome_.key() and a.score_ == pytest.approx(b.score_)
    assert (a.predict(X) == b.predict(sp.csr_matrix(X))).all()
