"""The flat measures on real-valued dense data, as the hifsrr2017 protocol uses them per node."""

import numpy as np
import pytest

from selection.flat import fisher_scores, mrmr_ranking, relieff_scores
from selection.synthetic.class_tree import make_hierarchical_classification

# feature 0 separates the classes perfectly, feature 1 a little, feature 2 not at all (constant),
# feature 3 is a copy of feature 0 (redundant for mRMR)
X_LIT = np.array([[0.0, 1, 5, 0], [0, 0, 5, 0], [0, 1, 5, 0], [1, 1, 5, 1], [1, 0, 5, 1], [1, 1, 5, 1]])
Y_LIT = np.array([0, 0, 0, 1, 1, 1])


def test_fisher_literal():
    s = fisher_scores(X_LIT, Y_LIT)
    # feature 0: within-class variance 0, between > 0 -> inf; feature 1: equal means -> 0; constant -> 0
    assert np.isinf(s[0]) and s[1] == 0 and s[2] == 0 and np.isinf(s[3])
    X = np.array([[0.0], [2], [4], [6]])
    # means 1 and 5, overall 3: between 2*(4+4) = 16, within 2*1 + 2*1 = 4
    assert fisher_scores(X, [0, 0, 1, 1])[0] == pytest.approx(4.0)


def test_mrmr_avoids_redundant_copy():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 50)
    a = y + rng.normal(0, 0.3, 100)
    b = (rng.random(100) < 0.5) * 1.0 + 0.3 * y + rng.normal(0, 0.3, 100)
    X = np.column_stack([a, a + 1e-9 * rng.normal(size=100), b])
    order = mrmr_ranking(X, y, k=3)
    assert order[0] in (0, 1)
    assert order[1] == 2  # the copy of the first feature is redundant: the weaker, new one comes first
    assert sorted(order.tolist()) == [0, 1, 2]


def test_relieff_finds_relevant():
    d = make_hierarchical_classification(n_samples=150, n_noise=20, random_state=0)
    w = relieff_scores(d.X, d.y, random_state=0)
    top = np.argsort(-w)[: len(d.relevant["root"])]
    assert np.isin(top, d.relevant["root"]).mean() > 0.8


def test_relieff_real_values_match_reference():
    """Real values: features scaled to [0, 1] by their range, L1 distance (the 0/1 reference on scaled data)."""
    import scipy.sparse as sp

    from tests.selection.flat.flat_reference import relieff_reference

    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 6)) * [1, 10, 0.1, 1, 1, 5]
    y = rng.integers(0, 3, 40)
    expected = relieff_reference((X - X.min(0)) / np.ptp(X, 0), y, 3)
    np.testing.assert_allclose(relieff_scores(X, y, n_neighbors=3), expected, atol=1e-12)
    np.testing.assert_allclose(relieff_scores(sp.csr_matrix(X), y, n_neighbors=3), expected, atol=1e-12)
    assert np.array_equal(relieff_scores(X, y, n_iter=40), relieff_scores(X, y))


def test_binary_input_dense_or_sparse_and_real_fisher_sparse():
    import scipy.sparse as sp

    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 50)
    B = (rng.random((50, 8)) < 0.3).astype(float)
    assert np.array_equal(relieff_scores(B, y), relieff_scores(sp.csr_matrix(B), y))
    assert np.array_equal(mrmr_ranking(B, y, 4, discretize=None), mrmr_ranking(sp.csr_matrix(B), y, 4, discretize=None))
    R = rng.normal(size=(50, 8))
    np.testing.assert_allclose(fisher_scores(sp.csr_matrix(R), y), fisher_scores(R, y), rtol=1e-10)
