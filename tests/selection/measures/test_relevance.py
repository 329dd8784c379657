"""Relevance measures from sparse counts, against literal values and reference implementations."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import chi2_contingency, pearsonr

from selection.measures.relevance import (
    ClassCounts,
    chi_square,
    chi_square_pvalue,
    class_correlation,
    edge_cooccurrence,
    edge_correlation,
    entropy,
    gain_ratio,
    information_gain,
    lift,
    pair_cooccurrence,
    pair_correlation,
    split_information,
)

# columns: perfect predictor, half/half, constant 1, constant 0
X = np.array([[1, 1, 1, 0], [1, 0, 1, 0], [0, 1, 1, 0], [0, 0, 1, 0]], dtype=float)
Y = np.array([1, 1, 0, 0])


@st.composite
def tables(draw):
    n = draw(st.integers(2, 25))
    m = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**31))
    k = draw(st.integers(2, 3))
    rng = np.random.default_rng(seed)
    X = (rng.random((n, m)) < draw(st.sampled_from([0.1, 0.4, 0.8]))).astype(float)
    y = rng.integers(0, k, n)
    y[:2] = [0, 1]
    return X, y


def test_literal_values():
    np.testing.assert_allclose(information_gain(X, Y), [1.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(split_information(X, Y), [1.0, 1.0, 0.0, 0.0])
    np.testing.assert_allclose(gain_ratio(X, Y), [1.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(class_correlation(X, Y), [1.0, 0.0, 0.0, 0.0])
    # P(y=1 | f0) = 1 vs prior .5 -> 2; f1: .5/.5 = 1 either class; constant 1 -> 1; never 1 -> 0
    np.testing.assert_allclose(lift(X, Y), [2.0, 1.0, 1.0, 0.0])
    np.testing.assert_allclose(chi_square(X, Y), [4.0, 0.0, 0.0, 0.0])
    assert entropy(np.array([0.0, 0.0])) == 0.0


def test_sparse_equals_dense():
    Xs = sp.csr_matrix(X)
    for f in (information_gain, gain_ratio, lift, chi_square, class_correlation, split_information):
        np.testing.assert_allclose(f(Xs, Y), f(X, Y))


@given(tables())
def test_chi_square_matches_scipy(table):
    X, y = table
    c = ClassCounts(X, y)
    stat, p = chi_square(X, y, c), chi_square_pvalue(X, y, c)
    for j in range(X.shape[1]):
        t = np.stack([c.pos[j], c.neg[j]])
        if (t.sum(axis=1) == 0).any() or (t.sum(axis=0) == 0).any():
            assert stat[j] == 0.0
            continue
        ref = chi2_contingency(t, correction=False)
        assert stat[j] == pytest.approx(ref.statistic, abs=1e-9)
        assert p[j] == pytest.approx(ref.pvalue, abs=1e-9)


@given(tables())
def test_gain_ratio_and_lift_definitions(table):
    X, y = table
    ig, si, gr = information_gain(X, y), split_information(X, y), gain_ratio(X, y)
    np.testing.assert_allclose(gr[si > 0], ig[si > 0] / si[si > 0])
    assert (gr >= 0).all() and (gr <= 1 + 1e-12).all()
    classes = np.unique(y)
    for j in range(X.shape[1]):
        on = X[:, j] == 1
        want = 0.0 if not on.any() else max((y[on] == k).mean() / (y == k).mean() for k in classes)
        assert lift(X, y)[j] == pytest.approx(want)


@given(tables(), st.data())
def test_edge_cooccurrence_and_correlation_match_pairwise(table, data):
    X, y = table
    m = X.shape[1]
    a = np.array(data.draw(st.lists(st.integers(0, m - 1), max_size=8)), dtype=np.int64)
    b = np.array(data.draw(st.lists(st.integers(0, m - 1), min_size=a.size, max_size=a.size)), dtype=np.int64)
    Xs = sp.csr_matrix(X)
    np.testing.assert_array_equal(edge_cooccurrence(Xs, a, b), pair_cooccurrence(Xs, a, b))
    np.testing.assert_allclose(edge_correlation(Xs, a, b), pair_correlation(Xs, a, b), atol=1e-12)
    for k in range(a.size):  # and Pearson's r where it is defined
        xa, xb = X[:, a[k]], X[:, b[k]]
        if xa.std() > 0 and xb.std() > 0:
            assert edge_correlation(Xs, a[k : k + 1], b[k : k + 1])[0] == pytest.approx(pearsonr(xa, xb)[0], abs=1e-9)


def test_edge_cooccurrence_empty_and_zero_columns():
    assert edge_cooccurrence(sp.csr_matrix((3, 2)), np.array([0]), np.array([1])).tolist() == [0.0]
    assert edge_cooccurrence(sp.csr_matrix((3, 2)), np.zeros(0, int), np.zeros(0, int)).size == 0


def test_information_gain_units():
    X = np.array([[1, 1], [1, 0], [0, 1], [0, 0]])
    # the first feature is the class: 1 bit = ln 2 nats
    assert information_gain(X, [1, 1, 0, 0], base=np.e)[0] == pytest.approx(np.log(2))
    np.testing.assert_allclose(information_gain(X, [1, 1, 0, 1], base=np.e),
                               information_gain(X, [1, 1, 0, 1]) * np.log(2))
    with pytest.raises(ValueError, match="base"):
        information_gain(X, [1, 1, 0, 0], base=1)
