"""Flat baselines CFS, ReliefF, mRMR and Fisher score against loop-based references."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils.estimator_checks import parametrize_with_checks

from selection.flat import CFS, MRMR, FisherScore, ReliefF
from selection.registry import get_selector, selector_entry
from tests.selection.flat.flat_reference import cfs_reference, fisher_reference, mrmr_reference, relieff_reference


def _data(seed, n=40, d=12, n_classes=2, density=0.3):
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, n - n_classes)])
    X = rng.random((n, d)) < density
    # a few class-related features so the searches have something to find
    X[:, : d // 3] |= rng.random((n, d // 3)) < 0.5 * (y[:, None] == 0)
    return X.astype(float), y


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n_classes=st.sampled_from([2, 3]), density=st.sampled_from([0.1, 0.3]))
def test_cfs_matches_weka_style_reference(seed, n_classes, density):
    X, y = _data(seed, n_classes=n_classes, density=density)
    cfs = CFS().fit(sp.csr_matrix(X), y)
    best, group, merit = cfs_reference(X, y)
    assert cfs.search_subset_.tolist() == best
    assert np.flatnonzero(cfs.get_support()).tolist() == group
    assert cfs.merit_ == pytest.approx(merit, abs=1e-9)


def test_cfs_without_locally_predictive_and_termination():
    X, y = _data(3, n=60, d=20)
    a = CFS(locally_predictive=False).fit(X, y)
    best, group, _ = cfs_reference(X, y, locally_predictive=False)
    assert np.flatnonzero(a.get_support()).tolist() == best == group
    b = CFS(search_termination=1).fit(X, y)
    best1, _, _ = cfs_reference(X, y, max_stale=1)
    assert b.search_subset_.tolist() == best1


def test_cfs_picks_the_informative_feature():
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    X = np.column_stack([y, np.array([1, 0, 1, 0, 1, 0, 1, 0]), np.array([0, 0, 0, 1, 1, 0, 0, 0])])
    assert CFS(locally_predictive=False).fit(X, y).get_support().tolist() == [True, False, False]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n_classes=st.sampled_from([2, 3]), k=st.sampled_from([1, 3, 10]))
def test_relieff_matches_reference(seed, n_classes, k):
    X, y = _data(seed, n=30, d=10, n_classes=n_classes)
    r = ReliefF(n_neighbors=k, block_size=7).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(r.scores_, relieff_reference(X, y, k), atol=1e-12)
    assert (r.get_support() == (r.scores_ > 0.01)).all()


def test_relieff_separates_an_informative_feature():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    X = np.column_stack([y, rng.integers(0, 2, 200), rng.integers(0, 2, 200)]).astype(float)
    r = ReliefF().fit(X, y)
    assert r.scores_[0] > 0.5 and abs(r.scores_[1]) < 0.1
    assert r.get_support().tolist() == [True, False, False] or r.get_support()[0]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), k=st.sampled_from([1, 4, 12]))
def test_mrmr_matches_reference(seed, k):
    X, y = _data(seed, n=30, d=10)
    m = MRMR(k=k).fit(X, y)
    assert m.selected_.tolist() == mrmr_reference(X, y, k)
    assert m.get_support().sum() == min(k, 10)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), n_classes=st.sampled_from([2, 4]))
def test_fisher_matches_reference(seed, n_classes):
    X, y = _data(seed, n=30, d=10, n_classes=n_classes)
    f = FisherScore(k=3).fit(X, y)
    np.testing.assert_allclose(f.scores_, fisher_reference(X, y), rtol=1e-12)
    top = np.argsort(-f.scores_, kind="stable")[:3]
    assert set(np.flatnonzero(f.get_support())) == set(top)


def test_fisher_constant_and_perfect_features():
    y = np.array([0, 0, 1, 1])
    X = np.array([[1, 1, 0], [1, 1, 1], [1, 0, 0], [1, 0, 1]])
    s = FisherScore(k=1).fit(X, y).scores_
    assert s[0] == 0.0 and np.isinf(s[1]) and s[2] == 0.0


def test_registry_names_and_kind():
    for name in ["cfs", "relieff", "mrmr", "fisher"]:
        assert selector_entry(name).kind == "flat"
    assert get_selector("relieff").n_neighbors == 10 and get_selector("relieff").threshold == 0.01
    assert get_selector("mrmr", k=5).k == 5


def test_bad_input():
    with pytest.raises(ValueError, match="must be binary"):
        CFS().fit(np.array([[0, 2], [1, 0]]), [0, 1])
    with pytest.raises(ValueError, match="n_neighbors"):
        ReliefF(n_neighbors=0).fit(np.array([[0, 1], [1, 0]]), [0, 1])
    with pytest.raises(ValueError, match="single class"):
        FisherScore().fit(np.array([[0, 1], [1, 0]]), [0, 0])


from tests.selection.lazy.test_selectors import _expected_failures  # noqa: E402  (same base-class reasons)


@parametrize_with_checks(
    [CFS(binarize=0.5), ReliefF(binarize=0.5), MRMR(k=3, binarize=0.5), FisherScore(k=3, binarize=0.5)],
    expected_failed_checks=_expected_failures,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
