"""ADHOC (selection/adhoc/): stage 1 against a per-pair loop, stage 2 against np.corrcoef,
planted factors recovered (and missed by first-order correlation), the GA's promises, input
handling (DataFrames, symbolic columns, constant features, missing values, a single feature)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import adjusted_rand_score

from kg.hierarchy import FeatureHierarchy
from selection.adhoc import (
    ADHOC,
    TEST_NAMES,
    dependence_matrix,
    equal_frequency_bins,
    factor_hierarchy,
    genetic_search,
    higher_order,
    mdl_bins,
    profile_correlation,
)
from selection.registry import classifier_entry, get_classifier, get_selector, selector_entry
from tests.selection.adhoc.adhoc_reference import (
    cramers_v_pair,
    dependence_loop,
    planted_table,
    profile_correlation_loop,
)

# ----------------------------------------------------------------------------- literal data
X_LIT = np.linspace(-1, 1, 41)
TABLE_LIT = np.column_stack([X_LIT, 2 * X_LIT, X_LIT ** 2, -X_LIT])


def _mixed(n=240, seed=0):
    X, lab, kinds, Z = planted_table(n, seed=seed)
    rng = np.random.default_rng(seed)
    y = (Z[:, 0] > 0).astype(int)
    sym = np.column_stack([
        rng.integers(0, 3, n),                                   # unrelated symbol
        (Z[:, 1] > 0).astype(int) + (Z[:, 1] > 1),               # ordinal view of factor 1
        np.zeros(n, int),                                        # constant symbol
    ])
    X[:, 5] = 3.0                                                # constant number
    return X, sym, np.array([3, 3, 1]), y


# ----------------------------------------------------------------------------- stage 1
def test_literal_dependences_and_tests():
    d = dependence_matrix(TABLE_LIT)
    assert np.allclose(d.matrix[0, [0, 1, 3]], [1, 1, -1])
    assert d.test_name(0, 1) == "spearman" and d.test_name(0, 3) == "spearman"
    # x and x^2: rank correlation 0, the binned chi-square sees the dependence
    assert d.test_name(0, 2) == "chi2-binned" and 0.5 < d.matrix[0, 2] <= 1
    assert abs(pd.Series(X_LIT).corr(pd.Series(X_LIT ** 2), method="spearman")) < 0.05
    off = dependence_matrix(TABLE_LIT, nonlinear=False)
    assert abs(off.matrix[0, 2]) < 0.05 and off.test_name(0, 2) == "spearman"
    assert np.allclose(d.matrix, d.matrix.T) and (np.abs(d.matrix) <= 1).all()


def test_stage1_equals_per_pair_loop():
    X, sym, levels, y = _mixed()
    d = dependence_matrix(X, sym, levels, y)
    ref = dependence_loop(X, sym, y)
    assert len(ref) == d.matrix.shape[0] * (d.matrix.shape[0] - 1) // 2
    for (i, j), (v, test) in ref.items():
        assert d.matrix[i, j] == pytest.approx(v, abs=1e-5), (i, j, test)
        assert TEST_NAMES[d.tests[i, j]] == test, (i, j)
    tests = {TEST_NAMES[t] for t in np.unique(d.tests)}
    assert tests == {"self", "constant", "spearman", "chi2-binned", "cramers-v", "cramers-v-mdl"}
    assert d.constant.tolist() == [i in (5, X.shape[1] + 2) for i in range(d.matrix.shape[0])]


def test_pearson_variant_equals_loop():
    X, lab, kinds, _ = planted_table(150, seed=3)
    d = dependence_matrix(X, numeric_test="pearson")
    for (i, j), (v, test) in dependence_loop(X, numeric_test="pearson").items():
        assert d.matrix[i, j] == pytest.approx(v, abs=1e-5) and TEST_NAMES[d.tests[i, j]] == test


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), density=st.floats(0.05, 0.9), rank=st.booleans())
def test_sparse_equals_dense(seed, density, rank):
    """Sparse ranks keep the sparsity pattern; negative values, ties and empty columns included."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(40, 7)).astype(float) * (rng.random((40, 7)) < density)
    X[:, 0] = 0.0
    test = "spearman" if rank else "pearson"
    a = dependence_matrix(X, numeric_test=test)
    b = dependence_matrix(sp.csr_matrix(X), numeric_test=test)
    assert np.allclose(a.matrix, b.matrix, atol=1e-9) and (a.tests == b.tests).all()


def test_cramers_v_reference_literal():
    a = np.array([0, 0, 1, 1] * 10)
    assert cramers_v_pair(a, a) == pytest.approx(1.0)
    d = dependence_matrix(None, np.column_stack([a, a, 1 - a]), [2, 2, 2])
    assert np.allclose(d.matrix, 1.0) and d.test_name(0, 2) == "cramers-v"  # sign undefined: V >= 0


def test_mdl_literal_and_fallback():
    x = np.array([[1.0], [2.0], [3.0], [10.0], [11.0], [12.0]] * 5)
    codes, levels, cuts = mdl_bins(x, [0, 0, 0, 1, 1, 1] * 5)
    assert cuts[0].tolist() == [6.5] and codes[:6, 0].tolist() == [0, 0, 0, 1, 1, 1]
    # a class unrelated to x: MDL accepts no cut, 3 equal-frequency bins instead
    rng = np.random.default_rng(0)
    xr = rng.normal(size=(90, 1))
    codes, levels, cuts = mdl_bins(xr, rng.integers(0, 2, 90), 3)
    assert cuts[0].size == 0 and levels.tolist() == [3]
    assert (codes[:, 0] == equal_frequency_bins(xr, 3)[0][:, 0]).all()


# ----------------------------------------------------------------------------- stage 2
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), m=st.integers(2, 9))
def test_profile_correlation_equals_loop(seed, m):
    rng = np.random.default_rng(seed)
    A = rng.random((m, m))
    A = (A + A.T) / 2
    np.fill_diagonal(A, 1.0)
    assert np.allclose(profile_correlation(A), profile_correlation_loop(A), atol=1e-9)


def test_higher_order_stops_on_stable_tight_partition():
    A = np.array([[1, .8, .1, .1, .0], [.8, 1, .1, .0, .1], [.1, .1, 1, .7, .1],
                  [.1, .0, .7, 1, .0], [.0, .1, .1, .0, 1]])
    D, labels, order, hist = higher_order(A, min_order=1, max_order=6)
    assert labels.tolist() == [0, 0, 1, 1, 2]
    assert 1 < order < 6 and hist[-1] >= 0.9       # stopped by the rule, not by max_order
    D, labels, order, hist = higher_order(A, min_order=1, max_order=1)
    assert order == 1 and labels.tolist() == [0, 0, 1, 1, 2]
    # fewer than min_profile features: first order only
    assert higher_order(A[:3, :3])[2] == 1


# ----------------------------------------------------------------------------- planted factors
def _ari_first_order_pearson(X, lab):
    d = dependence_matrix(X, numeric_test="pearson", nonlinear=False)
    return adjusted_rand_score(lab, factor_hierarchy(d.matrix, min_order=1, max_order=1).top_labels)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_planted_factors_recovered(seed):
    X, lab, kinds, _ = planted_table(500, seed=seed)
    d = dependence_matrix(X)
    full = factor_hierarchy(d.matrix, constant=d.constant)
    first = factor_hierarchy(d.matrix, constant=d.constant, min_order=1, max_order=1)
    ari_full = adjusted_rand_score(lab, full.top_labels)
    ari_first = adjusted_rand_score(lab, first.top_labels)
    ari_pearson = _ari_first_order_pearson(X, lab)
    assert ari_full == pytest.approx(1.0)
    # the quadratic copies form separate clusters at first order (Pearson: ~0 with the linear ones)
    assert ari_pearson < 0.8 and ari_first < 0.8
    # noise features are "unrelated"; the negated copy is the negative concept of its factor
    noise = np.flatnonzero(np.array(kinds) == "noise")
    assert set(full.unrelated.tolist()) == set(noise.tolist())
    neg = [f for f in full.factors if f.kind == "negative-concept"]
    assert [f.members.tolist() for f in neg] == [np.flatnonzero(np.array(kinds) == "negated").tolist()]


def test_quadratic_copies_are_a_subfactor():
    X, lab, kinds, _ = planted_table(500, seed=0)
    d = dependence_matrix(X)
    r = factor_hierarchy(d.matrix, constant=d.constant)
    kinds = np.array(kinds)
    f1 = {f.id: f for f in r.factors}
    top = f1["adhoc:F1"]
    assert top.members.tolist() == np.flatnonzero(lab == 0).tolist()
    subs = sorted((f for f in r.factors if f.parent == "adhoc:F1"), key=lambda f: f.id)
    assert [set(kinds[f.members]) for f in subs] == [{"linear"}, {"quadratic"}]


def test_factor_hierarchy_exports_and_draws(tmp_path):
    from kg.formats import read_edges_csv, write_edges_csv

    X, lab, kinds, Z = planted_table(200, seed=6)
    s = ADHOC(random_state=0).fit(X, (Z[:, 0] > 0).astype(int))
    path = write_edges_csv(s.factor_hierarchy_, tmp_path / "factors.csv")
    back = read_edges_csv(path)
    assert sorted(back.edge_list()) == sorted(s.factor_hierarchy_.edge_list())
    g = s.factor_hierarchy_.to_networkx()
    assert g.number_of_nodes() == s.factor_hierarchy_.n_nodes


def test_hierarchy_is_a_feature_hierarchy():
    X, lab, kinds, _ = planted_table(300, seed=1)
    names = [f"f{i}" for i in range(X.shape[1])]
    s = ADHOC(random_state=0).fit(pd.DataFrame(X, columns=names), (X[:, 0] > 0).astype(int))
    h = s.factor_hierarchy_
    assert isinstance(h, FeatureHierarchy)
    ids = h.node_ids.tolist()
    assert ids[:len(names)] == names
    for i, nm in enumerate(names):  # every feature is a leaf with exactly one parent factor
        assert h.children(nm) == [] and len(h.parents(nm)) == 1 and h.parents(nm)[0].startswith("adhoc:")
    assert all(ids[r].startswith("adhoc:") for r in h.roots)
    assert "adhoc:unrelated" in ids and any(i.endswith(":neg") for i in ids)
    # factor members are the features below each node
    for f in s.factors_:
        below = {ids[k] for k in h.descendant_indices(h.idx(f.id))} & set(names)
        assert below == {names[k] for k in f.members}


# ----------------------------------------------------------------------------- stage 4
def test_at_most_one_feature_per_factor_and_seeded():
    X, lab, kinds, Z = planted_table(300, seed=2)
    y = ((Z[:, 0] > 0) ^ (Z[:, 3] > 0.5)).astype(int)
    a = ADHOC(random_state=3, exhaustive_limit=0, ga_level="top").fit(X, y)
    b = ADHOC(random_state=3, exhaustive_limit=0, ga_level="top").fit(X, y)
    assert a.subset_ == b.subset_ and not a.search_exhaustive_
    sup = a.get_support()
    for g in a.ga_factors_:
        assert sup[g].sum() <= 1
    for f in a.factors_:
        if f.parent is None and f.kind == "positive-concept":
            assert sup[f.members].sum() <= 1
    # both relevant dimensions are covered
    assert set(lab[sup]) >= {0, 3}


def test_exhaustive_is_optimal_and_ga_matches_on_small_space():
    rng = np.random.default_rng(0)
    n = 120
    y = rng.integers(0, 2, n)
    blocks = [(y + 0.4 * rng.normal(size=n))[:, None], (y + 0.8 * rng.normal(size=n))[:, None],
              rng.normal(size=(n, 1)), rng.normal(size=(n, 1)), ((1 - y) + 0.5 * rng.normal(size=n))[:, None]]
    factors = [[0, 1], [2], [3, 4]]
    ex = genetic_search(blocks, y, factors, exhaustive_limit=1000)
    ga = genetic_search(blocks, y, factors, exhaustive_limit=0, random_state=1)
    assert ex.exhaustive and not ga.exhaustive
    assert ex.n_evaluations == 3 * 2 * 3
    assert ga.accuracy <= ex.accuracy + 1e-12
    assert ga.subset == ex.subset
    # ties go to the smaller subset: two identical perfect features in separate factors
    perfect = [y[:, None].astype(float), y[:, None].astype(float)]
    assert genetic_search(perfect, y, [[0], [1]]).subset == (0,)


def test_empty_subset_scores_majority():
    y = np.array([0] * 30 + [1] * 10)
    noise = [np.random.default_rng(0).normal(size=(40, 1))]
    r = genetic_search(noise, y, [[0]], cv=4)
    assert r.accuracy >= 0.75 - 1e-12


# ----------------------------------------------------------------------------- selector input
def test_dataframe_symbolic_detection_and_transform():
    rng = np.random.default_rng(1)
    n = 200
    z = rng.normal(size=n)
    df = pd.DataFrame({
        "a": z + 0.2 * rng.normal(size=n),
        "cat": pd.Categorical(np.where(z > 0.3, "hi", "lo")),
        "obj": np.where(rng.random(n) < 0.5, "x", "y").astype(object),
        "s": pd.array(np.where(z > 0, "p", "q"), dtype="string"),
        "flag": rng.random(n) < 0.5,
        "k": rng.integers(0, 4, n),
    })
    y = (z > 0).astype(int)
    s = ADHOC(random_state=0).fit(df, y)
    assert s.symbolic_.tolist() == [False, True, True, True, False, False]
    assert s.dependence_.test_name(0, 1) == "cramers-v-mdl"
    assert s.dependence_.test_name(1, 2) == "cramers-v"
    out = s.transform(df)
    assert out.shape == (n, int(s.get_support().sum()))
    assert list(s.get_feature_names_out()) == [c for c, k in zip(df.columns, s.get_support()) if k]
    # integer-coded categories are symbolic only when listed
    s2 = ADHOC(symbolic=["k"], random_state=0).fit(df, y)
    assert s2.symbolic_.tolist() == [False, True, True, True, False, True]
    s3 = ADHOC(symbolic=[1], random_state=0).fit(df[["a", "k"]].to_numpy(), y)
    assert s3.symbolic_.tolist() == [False, True]
    assert s3.dependence_.test_name(0, 1) == "cramers-v-mdl"


def test_constant_features_flagged_and_never_selected():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 80)
    X = np.column_stack([np.full(80, 2.0), y + 0.1 * rng.normal(size=80), np.zeros(80)])
    s = ADHOC().fit(X, y)
    assert s.constant_.tolist() == [True, False, True]
    assert not s.get_support()[[0, 2]].any() and s.get_support()[1]
    assert s.dependence_.test_name(0, 1) == "constant" and s.dependence_.matrix[0, 0] == 0
    assert s.factor_labels_[0] == -1
    unrel = [f for f in s.factors_ if f.kind == "unrelated"][0]
    assert {0, 2} <= set(unrel.members.tolist())
    # all constant: nothing to select
    s = ADHOC().fit(np.ones((10, 3)), [0, 1] * 5)
    assert not s.get_support().any()


def test_missing_values():
    df = pd.DataFrame({"a": [1.0, 2.0, np.nan, 4.0] * 10, "c": ["x", None, "y", "x"] * 10})
    y = [0, 1] * 20
    with pytest.raises(ValueError, match=r"missing value in column 'a' at row 2"):
        ADHOC().fit(df, y)
    with pytest.raises(ValueError, match=r"missing value in column 'c' at row 1"):
        ADHOC().fit(df[["c"]], y)
    s = ADHOC(missing="impute").fit(df, y)
    assert s.symbolic_.tolist() == [False, True]
    assert s.dependence_.matrix.shape == (2, 2)
    X = df[["a"]].to_numpy()
    with pytest.raises(ValueError, match="NaN"):
        ADHOC().fit(X, y)
    assert ADHOC(missing="impute").fit(X, y).get_support().shape == (1,)
    with pytest.raises(ValueError, match="in sparse input are not supported"):
        ADHOC(missing="impute").fit(sp.csr_matrix(X), y)
    with pytest.raises(ValueError, match="column 'n' is numeric but row 0 holds 'abc'"):
        ADHOC(symbolic=None).fit(pd.DataFrame({"n": ["abc", "1"] * 5}).astype(object), [0, 1] * 5)


def test_single_feature():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 50)
    s = ADHOC().fit((y + 0.1 * rng.normal(size=50))[:, None], y)
    assert s.get_support().tolist() == [True]
    assert [f.kind for f in s.factors_] == ["unrelated"]
    s = ADHOC().fit(rng.normal(size=(50, 1)), y)
    assert s.get_support().shape == (1,)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_column_order_and_duplicates(seed):
    """Permuting the columns permutes the result; exact duplicates are one feature."""
    rng = np.random.default_rng(seed)
    n = 60
    y = rng.integers(0, 2, n)
    base = np.column_stack([y + 0.5 * rng.normal(size=n), rng.normal(size=n), (y ^ (rng.random(n) < 0.2)),
                            rng.normal(size=n)])
    X = np.column_stack([base, base[:, 0]])           # column 4 duplicates column 0
    perm = rng.permutation(X.shape[1])
    a = ADHOC(random_state=0, exhaustive_limit=0, population_size=8, n_generations=4).fit(X, y)
    b = ADHOC(random_state=0, exhaustive_limit=0, population_size=8, n_generations=4).fit(X[:, perm], y)
    assert b.get_support().tolist() == a.get_support()[perm].tolist()
    assert np.allclose(b.dependence_.matrix, a.dependence_.matrix[np.ix_(perm, perm)])
    assert a.get_support()[0] == a.get_support()[4]
    assert a.dependence_.test_name(0, 4) == "duplicate" and a.dependence_.matrix[0, 4] == 1
    assert a.factor_labels_[0] == a.factor_labels_[4]


def test_bad_parameters_and_labels():
    X = np.random.default_rng(0).normal(size=(20, 3))
    y = [0, 1] * 10
    with pytest.raises(ValueError, match="numeric_test"):
        ADHOC(numeric_test="kendall").fit(X, y)
    with pytest.raises(ValueError, match="missing"):
        ADHOC(missing="drop").fit(X, y)
    with pytest.raises(ValueError, match="ga_level"):
        ADHOC(ga_level="middle").fit(X, y)
    with pytest.raises(ValueError, match="single class"):
        ADHOC().fit(X, np.zeros(20))
    with pytest.raises(ValueError, match="requires y"):
        ADHOC().fit(X)
    with pytest.raises(ValueError, match="symbolic column 7 out of range"):
        ADHOC(symbolic=[7]).fit(X, y)
    h = FeatureHierarchy.from_edges([("a", "r")], nodes=["a", "r"])
    with pytest.raises(TypeError):  # a flat selector: it takes no hierarchy
        ADHOC(h)
    with pytest.raises(ValueError, match="0 feature"):
        ADHOC().fit(np.zeros((20, 0)), y)
    with pytest.raises(ValueError, match="collides with a factor node id"):
        ADHOC().fit(pd.DataFrame(X, columns=["adhoc:unrelated", "b", "c"]), y)


def test_binarize_and_leaf_level():
    X, lab, kinds, Z = planted_table(200, seed=4)
    y = (Z[:, 0] > 0).astype(int)
    s = ADHOC(random_state=0).fit(X, y)                 # ga_level="leaf"
    top = ADHOC(ga_level="top", random_state=0).fit(X, y)
    assert len(s.ga_factors_) > len(top.ga_factors_)  # F1 and F3 split into linear/quadratic leaves
    for g in s.ga_factors_:
        assert s.get_support()[g].sum() <= 1
    b = ADHOC(binarize=0.0, random_state=0).fit(X, y)
    assert b.dependence_.matrix.shape == (X.shape[1],) * 2
    assert "chi2-binned" not in {b.dependence_.test_name(i, j) for i in range(5) for j in range(5)}


# ----------------------------------------------------------------------------- registry
def test_registry_and_evaluation():
    from selection.evaluation.cv import evaluate_table

    assert selector_entry("adhoc").kind == "flat"
    assert isinstance(get_selector("adhoc", None, cv=3), ADHOC)
    tree = get_classifier("tree")
    assert tree.criterion == "entropy" and tree.ccp_alpha > 0
    assert classifier_entry("tree").kind == "classifier"

    class Table:  # evaluate_table reads X, y and hierarchy only
        def __init__(self, X, y):
            self.X, self.y, self.hierarchy = sp.csr_matrix(X), y, None

    X, lab, kinds, Z = planted_table(120, seed=5)
    y = (Z[:, 1] > 0).astype(int)
    df = evaluate_table(Table(X, y), [("adhoc", {"population_size": 10, "n_generations": 5})], ["tree"],
                        dataset="planted", n_splits=3)
    assert (df["status"] == "ok").all(), df["error"].tolist()
    assert (df["n_selected"] <= len(set(lab))).all() and df["accuracy"].mean() > 0.7
