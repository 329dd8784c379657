"""R (Eq. 1), LazyR (Eq. 2) and per-value IG, vectorised over features."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from selection.measures.relevance import ClassCounts
from selection.measures.values import (
    conditional_class_probabilities,
    information_gain,
    lazy_r,
    r_measure,
    value_information_gain,
    value_relevance,
)

# The table under Fig. 2 of da Silva et al. (2020)
FIG2_X = np.array([[1, 1, 0, 0], [1, 0, 1, 0], [0, 0, 1, 1]])
FIG2_Y = np.array(["C1", "C2", "C2"])


def test_fig2_eq2_on_the_printed_table():
    # Eq. 2 as printed: A=1 occurs once in C1 and once in C2 -> (0.5-0.5)^2 * 2 = 0
    # (the paper's prose says 0.25 for A and D; its sums use "probabilities" that do not add to 1)
    np.testing.assert_allclose(lazy_r(FIG2_X, FIG2_Y), [0.0, 0.5, 0.5, 0.5])
    assert lazy_r(FIG2_X, FIG2_Y)[1] > lazy_r(FIG2_X, FIG2_Y)[0]  # the paper's point: B beats its ancestor A


def test_fig2_other_measures():
    # R: A: P(.|A=1)=(.5,.5), P(.|A=0)=(0,1) -> .25+.25 = .5 ; B: (1,0) vs (0,1) -> 2
    np.testing.assert_allclose(r_measure(FIG2_X, FIG2_Y), [0.5, 2.0, 2.0, 0.5])
    h = -(1 / 3) * np.log2(1 / 3) - (2 / 3) * np.log2(2 / 3)
    np.testing.assert_allclose(value_information_gain(FIG2_X, FIG2_Y), [h - 1.0, h, h, h])
    np.testing.assert_allclose(value_information_gain(FIG2_X, FIG2_Y, value=0)[1], h)
    np.testing.assert_allclose(lazy_r(FIG2_X, FIG2_Y, value=0), [0.5, 0.5, 0.5, 0.0])


def test_unseen_values_and_constant_features():
    X = np.array([[1, 0], [1, 0], [1, 0]])
    y = [0, 1, 1]
    assert r_measure(X, y).tolist() == [0.0, 0.0]  # constant features cannot discriminate
    assert lazy_r(X, y)[1] == 0.0  # feature 1 never 1 in training
    assert lazy_r(X, y, value=0)[0] == 0.0  # feature 0 never 0
    assert value_information_gain(X, y)[1] == 0.0
    p, seen = conditional_class_probabilities(ClassCounts(X, y), 1)
    assert seen.tolist() == [True, False] and p[1].tolist() == [0.0, 0.0]


def test_three_classes_use_k_from_training():
    X = np.array([[1], [1], [0], [0]])
    y = ["a", "a", "b", "c"]
    # P(.|X=1) = (1, 0, 0): (2/3)^2 + 2 (1/3)^2 = 2/3
    np.testing.assert_allclose(lazy_r(X, y), [2 / 3])


def test_value_relevance_names():
    c = ClassCounts(FIG2_X, FIG2_Y)
    np.testing.assert_allclose(value_relevance("lazyr", counts=c), lazy_r(counts=c))
    np.testing.assert_allclose(value_relevance("ig", counts=c), information_gain(FIG2_X, FIG2_Y))
    np.testing.assert_allclose(value_relevance("r", counts=c), r_measure(counts=c))
    with pytest.raises(ValueError, match="unknown relevance 'gini'"):
        value_relevance("gini", counts=c)
    with pytest.raises(ValueError, match="0 or 1"):
        lazy_r(FIG2_X, FIG2_Y, value=2)


def _loop_reference(X, y):
    """Per-feature loops straight from Eq. 1 and Eq. 2."""
    classes = np.unique(y)
    k = len(classes)
    r, lr = [], []
    for j in range(X.shape[1]):
        col = X[:, j]
        p1 = [np.mean(y[col == 1] == c) if (col == 1).any() else np.nan for c in classes]
        p0 = [np.mean(y[col == 0] == c) if (col == 0).any() else np.nan for c in classes]
        r.append(0.0 if np.isnan(p1[0]) or np.isnan(p0[0]) else sum((a - b) ** 2 for a, b in zip(p1, p0)))
        lr.append(0.0 if np.isnan(p1[0]) else sum((a - 1 / k) ** 2 for a in p1))
    return np.array(r), np.array(lr)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n_classes=st.sampled_from([2, 3, 4]), density=st.sampled_from([0.05, 0.3, 0.7]))
def test_vectorised_equals_loops(seed, n_classes, density):
    rng = np.random.default_rng(seed)
    X = (rng.random((25, 15)) < density).astype(int)
    y = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, 25 - n_classes)])
    r, lr = _loop_reference(X, y)
    np.testing.assert_allclose(r_measure(sp.csr_matrix(X), y), r, atol=1e-12)
    np.testing.assert_allclose(lazy_r(sp.csr_matrix(X), y), lr, atol=1e-12)
    assert (lazy_r(X, y) <= 1 - 1 / n_classes + 1e-12).all()
    assert ((r_measure(X, y) >= 0) & (r_measure(X, y) <= 2 + 1e-12)).all()


def test_laplace_smoothing_by_hand():
    c = ClassCounts(FIG2_X, FIG2_Y)
    # B=1 once, in C1: (1 + 1) / (1 + 2) = 2/3; B=0 twice, in C2: C1 (0 + 1) / (2 + 2) = 1/4
    p1, seen1 = conditional_class_probabilities(c, 1, smoothing="laplace")
    p0, _ = conditional_class_probabilities(c, 0, smoothing="laplace")
    np.testing.assert_allclose(p1[1], [2 / 3, 1 / 3])
    np.testing.assert_allclose(p0[1], [1 / 4, 3 / 4])
    assert seen1.all()
    # R(B) = (2/3 - 1/4)^2 + (1/3 - 3/4)^2 = 2 (5/12)^2; LazyR(B=1) = 2 (2/3 - 1/2)^2
    assert r_measure(FIG2_X, FIG2_Y, smoothing="laplace")[1] == pytest.approx(2 * (5 / 12) ** 2)
    assert lazy_r(FIG2_X, FIG2_Y, smoothing="laplace")[1] == pytest.approx(2 * (1 / 6) ** 2)
    # a value never seen: the uniform 1/k, so LazyR 0 (as without smoothing), but R is defined
    X = np.array([[1, 0], [1, 1], [1, 0]])
    assert lazy_r(X, [0, 1, 0], value=0, smoothing="laplace")[0] == 0.0
    assert r_measure(X, [0, 1, 0])[0] == 0.0
    # feature 0 always 1: P(0|X=1) = 3/5, P(0|X=0) = 1/2 -> R = 2 (1/10)^2
    assert r_measure(X, [0, 1, 0], smoothing="laplace")[0] == pytest.approx(0.02)
    assert value_relevance("r", X, [0, 1, 0], smoothing="laplace")[0] == pytest.approx(0.02)
    with pytest.raises(ValueError, match="smoothing must be None or 'laplace'"):
        lazy_r(X, [0, 1, 0], smoothing="add-one")
