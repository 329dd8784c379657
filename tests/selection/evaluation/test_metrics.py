"""Per-fold measures: literal values, and the fast AUROC/AP against scikit-learn."""

import math

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st

from selection.evaluation.metrics import (
    aucpr,
    auroc,
    average_precision_score,
    compression,
    fold_metrics,
    geometric_mean,
    harmonic_mean,
    positive_label,
    roc_auc_score,
)

# tiny literal example: 4 positives, 6 negatives
Y = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
PRED = np.array([1, 1, 1, 0, 0, 0, 0, 0, 1, 1])  # sensitivity 3/4, specificity 4/6


def test_gm_binary_is_sqrt_sens_spec():
    assert geometric_mean(Y, PRED) == pytest.approx(math.sqrt(0.75 * 4 / 6))


def test_gm_multiclass_is_geometric_mean_of_recalls():
    y = np.array(["a", "a", "b", "b", "c", "c", "c", "c"])
    p = np.array(["a", "b", "b", "b", "c", "c", "a", "a"])
    assert geometric_mean(y, p) == pytest.approx((0.5 * 1.0 * 0.5) ** (1 / 3))


def test_gm_zero_when_a_class_is_never_predicted():
    assert geometric_mean(Y, np.zeros_like(Y)) == 0.0


def test_compression_and_harmonic_mean_literals():
    # SHSEL paper Eq. 4: 1 - |V'|/|V|
    assert compression(25, 100) == 0.75
    assert compression(0, 10) == 1.0
    assert harmonic_mean(0.8, 0.5) == pytest.approx(2 * 0.8 * 0.5 / 1.3)
    assert harmonic_mean(0.0, 0.0) == 0.0
    assert math.isnan(harmonic_mean(float("nan"), 0.5))
    # a value printed in the SHSEL paper's Table 3 (pruneSHSEL IG, Sports Tweets T, NB):
    # accuracy .791, compression .985 -> harmonic mean .877
    assert round(harmonic_mean(0.791, 0.985), 3) == 0.877


def test_positive_label_minority_ties_and_explicit():
    assert positive_label([0, 0, 0, 1]) == 1
    assert positive_label([0, 1, 1, 1]) == 0
    assert positive_label(["x", "y"]) == "y"  # tie: last in sorted order
    assert positive_label([0, 0, 1], pos_label=0) == 0
    with pytest.raises(ValueError, match="pos_label 5"):
        positive_label([0, 1], pos_label=5)


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 6)), min_size=2, max_size=40))
def test_fast_auroc_and_ap_equal_sklearn(pairs):
    y = np.array([p[0] for p in pairs])
    s = np.array([p[1] for p in pairs], dtype=float) / 6
    if y.all() or not y.any():
        assert math.isnan(roc_auc_score(y, s))
        return
    assert roc_auc_score(y, s) == pytest.approx(skm.roc_auc_score(y, s))
    assert average_precision_score(y, s) == pytest.approx(skm.average_precision_score(y, s))


def test_auroc_aucpr_use_the_positive_class_column():
    y = np.array([0, 0, 1, 1])
    proba = np.array([[0.9, 0.1], [0.6, 0.4], [0.35, 0.65], [0.2, 0.8]])
    assert auroc(y, proba, [0, 1], 1) == 1.0
    assert auroc(y, proba, [0, 1], 0) == 1.0  # class 0 scored by its own column
    assert aucpr(y, proba, [0, 1], 1) == 1.0
    # multi-class: macro one-vs-rest
    y3 = np.array([0, 1, 2, 0, 1, 2])
    p3 = np.eye(3)[y3] * 0.7 + 0.1
    assert auroc(y3, p3, [0, 1, 2], 0) == 1.0
    assert aucpr(y3, p3, [0, 1, 2], 0) == 1.0


def test_fold_metrics_with_decision_function_scores():
    y = np.array([0, 0, 1, 1])
    m = fold_metrics(y, np.array([0, 1, 1, 1]), np.array([-2.0, 0.5, 1.0, 3.0]), np.array([0, 1]),
                     pos_label=1, compression=compression(3, 12))
    assert m["accuracy"] == 0.75
    assert m["auroc"] == 1.0
    assert m["compression"] == 0.75
    assert m["harmonic_mean"] == pytest.approx(0.75)
    assert m["gm"] == pytest.approx(math.sqrt(0.5))
    m2 = fold_metrics(y, y, None, np.array([0, 1]), pos_label=1, compression=compression(1, 2))
    assert math.isnan(m2["auroc"]) and m2["accuracy"] == 1.0


def test_weighted_multiclass_measures_are_frequency_weighted_one_vs_rest():
    y = np.array([0, 0, 0, 0, 1, 1, 2, 2])
    p = np.array([0, 0, 0, 1, 1, 2, 2, 2])
    # one-vs-rest: class 0 sens 3/4 spec 4/4; class 1 sens 1/2 spec 5/6; class 2 sens 1 spec 5/6
    expect = 0.5 * np.sqrt(0.75) + 0.25 * np.sqrt(0.5 * 5 / 6) + 0.25 * np.sqrt(5 / 6)
    m = fold_metrics(y, p, np.eye(3)[p], np.array([0, 1, 2]), pos_label=0, compression=compression(1, 2),
                     multiclass="weighted")
    assert m["gm"] == pytest.approx(expect)
    per = [skm.roc_auc_score(y == c, np.eye(3)[p][:, c]) for c in range(3)]
    assert m["auroc"] == pytest.approx(np.dot([0.5, 0.25, 0.25], per))
    macro = fold_metrics(y, p, np.eye(3)[p], np.array([0, 1, 2]), pos_label=0, compression=compression(1, 2))
    assert macro["gm"] == pytest.approx((0.75 * 0.5 * 1.0) ** (1 / 3))
    assert macro["auroc"] == pytest.approx(np.mean(per))
    # two classes: both forms are sqrt(sens * spec) of the positive class
    y2, p2 = np.array([1, 1, 0, 0]), np.array([1, 0, 0, 0])
    assert fold_metrics(y2, p2, None, [0, 1], pos_label=1, compression=compression(1, 1),
                        multiclass="weighted")["gm"] == pytest.approx(np.sqrt(0.5))
