"""Tests for selection.synthetic.ga: the paper's data sets 1 and 2 (Tables II and III)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import cross_val_score
from sklearn.neighbors import KNeighborsClassifier

from selection.synthetic.ga import PAPER_NOISE_LEVELS, make_ga_dataset


def test_seeded_and_balanced():
    a = make_ga_dataset(1, 0.05, random_state=3)
    b = make_ga_dataset(1, 0.05, random_state=3)
    c = make_ga_dataset(1, 0.05, random_state=4)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert not np.array_equal(a.X, c.X)
    assert np.bincount(a.y).tolist() == [100] * 4 and a.X.shape == (400, 5)
    assert make_ga_dataset(2, 0.2, n_per_class=7, random_state=0).X.shape == (28, 4)
    assert PAPER_NOISE_LEVELS == {1: (0.0, 0.05), 2: (0.0, 0.05, 0.2)}


def test_table_ii_no_noise_values():
    d = make_ga_dataset(1, 0.0, random_state=0)
    X, y = d.X, d.y
    expect = {0: {0: 0.0, 1: 0.05, 2: 1.0}, 1: {0: 0.05, 1: 0.0, 2: 1.0},
              2: {2: 0.0, 3: 0.0, 4: 0.05}, 3: {2: 0.0, 3: 0.05, 4: 0.0}}
    for c, feats in expect.items():
        for f, v in feats.items():
            assert (X[y == c, f] == v).all(), (c, f)
    # "noise" columns are uniform on [0, 1]
    for c, f in [(0, 3), (1, 4), (2, 0), (3, 1)]:
        col = X[y == c, f]
        assert col.min() >= 0 and col.max() <= 1 and col.std() > 0.2


def test_table_ii_five_percent():
    d = make_ga_dataset(1, 0.05, random_state=0)
    X, y = d.X, d.y
    assert X[y == 0, 0].min() >= 0 and X[y == 0, 0].max() <= 0.05 and X[y == 0, 0].std() > 0
    assert X[y == 1, 0].min() >= 0.05 and X[y == 1, 0].max() <= 0.10
    assert X[y == 0, 2].min() >= 0.95 and X[y == 0, 2].max() <= 1.0  # "1 - x%"


@pytest.mark.parametrize("noise", [0.0, 0.05, 0.2])
def test_table_iii(noise):
    d = make_ga_dataset(2, noise, random_state=0)
    for c in range(4):
        col = d.X[d.y == c, 0]
        assert col.min() >= 0.25 * c - noise - 1e-12 and col.max() <= 0.25 * c + noise + 1e-12
    sep = cross_val_score(KNeighborsClassifier(1), d.X[:, [0]], d.y, cv=5).mean()
    # separable with 0% and 5% noise; not fully separable with 20% (the ranges overlap)
    assert (sep == 1.0) == (noise < 0.1)


def test_flat_knn_cannot_separate_data_set_1():
    d = make_ga_dataset(1, 0.0, random_state=0)
    acc = cross_val_score(KNeighborsClassifier(1), d.X, d.y, cv=5).mean()
    assert 0.5 < acc < 0.9  # the paper: 67.7% with all features


def test_bad_arguments():
    with pytest.raises(ValueError, match="which must be 1 or 2"):
        make_ga_dataset(3)
    with pytest.raises(ValueError, match="noise must be a fraction"):
        make_ga_dataset(1, 5)
    with pytest.raises(ValueError, match="n_per_class"):
        make_ga_dataset(1, n_per_class=0)
