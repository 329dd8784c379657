"""Class enrichment (support per class, enriched class, hypergeometric p, BH q) against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import fisher_exact

from selection.measures.enrichment import class_enrichment, enrichment_columns, enrichment_text
from tests.strategies import closed_tables

# 10 instances: 4 "case", 6 "ctrl" (sorted classes: case, ctrl)
Y = np.array(["case"] * 4 + ["ctrl"] * 6)
X = np.zeros((10, 5), dtype=np.int8)
X[[0, 1, 2, 4], 0] = 1   # f0: 3 of 4 case, 1 of 6 ctrl
X[:, 1] = 1              # f1: every instance (equal rates: a tie)
#                          f2: no instance
X[9, 3] = 1              # f3: one ctrl instance
X[[0, 1, 4, 5, 6], 4] = 1  # f4: 2 of 4 case, 3 of 6 ctrl (rates 1/2 and 1/2: a tie)


def test_literal_supports_classes_and_hypergeometric_p():
    e = class_enrichment(sp.csr_matrix(X), Y)
    assert e.classes.tolist() == ["case", "ctrl"]
    assert e.class_sizes.tolist() == [4, 6]
    assert e.support.tolist() == [[3, 1], [4, 6], [0, 0], [0, 1], [2, 3]]
    # ties (f1, f4) go to the first class in sorted order (the class p tests); f2 has no class
    assert e.enriched.tolist() == [0, 0, -1, 1, 0]
    # enriched in a class only when over-represented there: f1 (every instance) and f4 (1/2 in each) in none
    assert e.over.tolist() == [True, False, False, True, False]
    assert e.enriched_labels().tolist() == ["case", None, None, "ctrl", None]
    # by hand, N=10:
    # f0: K=4, n=4, k=3: (C(4,3) C(6,1) + C(4,4)) / C(10,4) = (24 + 1) / 210
    # f1: K=10: every draw has it, p = 1; f2: zero support, p = 1
    # f3: K=1, n=6, k=1: 6/10
    # f4: K=5, n=4, k=2: 1 - (C(5,4) + C(5,1) C(5,3)) / 210 = 1 - 55/210
    np.testing.assert_allclose(e.p, [25 / 210, 1.0, 1.0, 0.6, 155 / 210], rtol=1e-12)
    # Benjamini-Hochberg over the 5: the smallest p times 5/1; every other adjusted value reaches 1 (capped)
    np.testing.assert_allclose(e.q, [5 * 25 / 210, 1.0, 1.0, 1.0, 1.0], rtol=1e-12)


def test_the_enriched_class_is_the_highest_rate_not_the_highest_count():
    # class A: 2 instances, both have the feature; class B: 8 instances, 3 have it. B has more, A the higher rate.
    y = np.array(["A"] * 2 + ["B"] * 8)
    x = np.zeros((10, 1))
    x[[0, 1, 2, 3, 4], 0] = 1
    e = class_enrichment(x, y)
    assert e.support.tolist() == [[2, 3]] and e.enriched_labels().tolist() == ["A"]
    np.testing.assert_allclose(e.p, [10 / 45])  # K=5, n=2, k=2: C(5,2) / C(10,2)


def test_three_classes_and_counts_are_read_as_presence():
    y = np.array([2, 2, 0, 0, 0, 1])
    x = np.array([[3], [1], [0], [0], [5], [0]])  # counts: any nonzero value is 1
    e = class_enrichment(sp.csr_matrix(x), y)
    assert e.classes.tolist() == [0, 1, 2] and e.support.tolist() == [[1, 0, 2]]
    assert e.enriched.tolist() == [2]
    np.testing.assert_allclose(e.p, [3 / 15], rtol=1e-12)  # N=6, K=3, n=2, k=2: C(3,2) / C(6,2)


def test_the_frame_names_the_support_columns_after_the_labels():
    f = class_enrichment(sp.csr_matrix(X), Y).frame()
    assert f.columns.tolist() == ["enriched_in", "p_enrichment", "q_enrichment", "support_case", "support_ctrl"]
    assert f["enriched_in"].tolist() == ["case", "", "", "ctrl", ""]
    assert f["p_enrichment"].tolist()[0] == float(f"{25 / 210:.12g}")
    assert enrichment_columns(["feature", *f.columns, "selected"]) == f.columns.tolist()


def test_text():
    assert enrichment_text("case", 25 / 210, 25 / 42) == "enriched in case (p=0.12, q=0.6)"
    assert enrichment_text("", 1.0, 1.0) == "" and enrichment_text(None, 1.0, 1.0) == ""


def test_bad_input():
    with pytest.raises(ValueError, match=r"y has shape \(3,\), expected \(10,\)"):
        class_enrichment(X, ["a", "b", "c"])
    with pytest.raises(ValueError, match="no instance"):
        class_enrichment(np.zeros((0, 2)), [])


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 3).flatmap(lambda k: closed_tables(n_classes=k)))
def test_properties(data):
    X, y, _h = data
    e = class_enrichment(X, y)
    Xd = np.asarray(X.todense()) > 0
    # supports per class sum to the feature's support
    np.testing.assert_array_equal(e.support.sum(axis=1), Xd.sum(axis=0))
    for j, c in enumerate(e.classes):
        np.testing.assert_array_equal(e.support[:, j], Xd[y == c].sum(axis=0))
    # q >= p, q in [0, 1], q monotone in p
    assert np.all(e.q >= e.p - 1e-15) and np.all((e.q >= 0) & (e.q <= 1))
    order = np.argsort(e.p, kind="stable")
    assert np.all(np.diff(e.q[order]) >= -1e-15)
    # the enriched class has the highest rate (the first of the ties), and p is Fisher's one-sided exact test
    N = len(y)
    for i in range(X.shape[1]):
        K = int(Xd[:, i].sum())
        if K == 0:
            assert e.enriched[i] == -1 and e.p[i] == 1.0
            continue
        rates = e.support[i] / e.class_sizes
        assert e.enriched[i] == int(np.flatnonzero(np.isclose(rates, rates.max()))[0])
        # named only when over-represented: its share in the class above its share overall
        assert (e.enriched_labels()[i] is not None) == (rates.max() > K / N + 1e-12)
        k, n = int(e.support[i, e.enriched[i]]), int(e.class_sizes[e.enriched[i]])
        ref = fisher_exact([[k, n - k], [K - k, N - n - K + k]], alternative="greater").pvalue
        np.testing.assert_allclose(e.p[i], ref, rtol=1e-9, atol=1e-15)
