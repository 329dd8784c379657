"""selection.linear.TfidfLogisticRegression: scikit-learn's checks, the weighting it promises, bad input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from selection.linear import TfidfLogisticRegression
from selection.registry import get_classifier

# four instances, three features: "f0" held by every one (a hub), "f1" by the a's, "f2" by the b's
X = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1], [1, 0, 1]], dtype=float)
Y = np.array(["a", "a", "b", "b"])


EXPECTED_FAILURES = {
    "check_decision_proba_consistency": "it predicts on blobs with negative values (only its training part is made "
                                        "non-negative for a positive_only estimator), which this estimator refuses: "
                                        "features are presence or counts",
}


@parametrize_with_checks([TfidfLogisticRegression()], expected_failed_checks=lambda est: EXPECTED_FAILURES)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_the_weights_are_idf_and_rows_have_unit_length():
    clf = TfidfLogisticRegression(C=10.0).fit(X, Y)
    # idf = ln((1 + n) / (1 + df)) + 1: the hub 1.0, the others ln(5 / 3) + 1
    assert clf.idf_ == pytest.approx([1.0, np.log(5 / 3) + 1, np.log(5 / 3) + 1])
    w = clf.tfidf_.transform(sp.csr_matrix(X))
    assert np.sqrt(w.multiply(w).sum(axis=1)).A.ravel() == pytest.approx(np.ones(4))
    assert clf.predict([[1, 1, 0], [0, 0, 1], [1, 0, 1]]).tolist() == ["a", "b", "b"]
    assert clf.coef_.shape == (1, 3) and clf.intercept_.shape == (1,)


def test_it_is_the_pipeline_of_scikit_learn_it_describes_sparse_or_dense():
    rng = np.random.default_rng(0)
    Xr = (rng.random((60, 25)) < 0.2).astype(float) * rng.integers(1, 4, (60, 25))  # counts
    yr = rng.integers(0, 3, 60)
    ref = make_pipeline(TfidfTransformer(), LogisticRegression(C=100.0, max_iter=5000)).fit(Xr, yr)
    ours = TfidfLogisticRegression(C=100.0).fit(sp.csr_matrix(Xr), yr)
    assert np.allclose(ours.predict_proba(Xr), ref.predict_proba(Xr))
    assert (ours.predict(sp.csr_matrix(Xr)) == ref.predict(Xr)).all()


def test_negative_values_are_refused_and_the_registry_builds_it():
    with pytest.raises(ValueError, match="Negative values in data passed to TfidfLogisticRegression"):
        TfidfLogisticRegression().fit(-X, Y)
    clf = get_classifier("logreg-tfidf")
    assert isinstance(clf, TfidfLogisticRegression) and clf.max_iter == 5000
