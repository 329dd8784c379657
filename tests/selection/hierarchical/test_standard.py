"""SIG/SC (standard selection, the SHSEL paper's flat baselines): literal examples, k, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from selection.hierarchical.shsel import THRESHOLD_GRID
from selection.hierarchical.standard import StandardSelector
from selection.measures.relevance import class_correlation, information_gain
from selection.registry import get_selector, selector_entry

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


def test_registry():
    assert selector_entry("sig").threshold_grid == THRESHOLD_GRID
    assert selector_entry("sc").threshold_grid == THRESHOLD_GRID
    assert get_selector("sig").measure == "ig" and get_selector("sc").measure == "correlation"
    assert get_selector("sig", None, k=3).k == 3
