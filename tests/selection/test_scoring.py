"""selection.scoring: the linear form of an eager selection + Bernoulli NB gives the estimator's probabilities."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_selection import SelectKBest, VarianceThreshold, chi2
from sklearn.naive_bayes import BernoulliNB, MultinomialNB
from sklearn.pipeline import Pipeline

from selection.registry import get_selector
from selection.scoring import LinearForm
from tests.strategies import closed_tables


class _Doubling(VarianceThreshold):
    """A selector whose transform does more than keep columns: it has no linear form."""

    def transform(self, X):
        return super().transform(X) * 2


def _fitted(selector, X, y, **nb):
    est = Pipeline([("selector", selector), ("classifier", BernoulliNB(**nb))])
    return est.fit(X, y)


@settings(max_examples=40, deadline=None)
@given(data=closed_tables(n_classes=3), k=st.integers(1, 12), binarize=st.sampled_from([0.0, 0.5, None]))
def test_the_form_gives_the_estimator_s_probabilities_on_any_table(data, k, binarize):
    X, y, h = data
    counts = X.copy()
    if binarize is not None:  # values="count" tables too (NB without binarize expects 0/1)
        counts.data = counts.data * np.random.default_rng(k).integers(1, 4, counts.nnz)
    est = _fitted(SelectKBest(chi2, k=min(k, X.shape[1])), counts, y, binarize=binarize)
    form = LinearForm.of(est, X.shape[1], check=counts)
    assert form is not None
    assert np.allclose(form.predict_proba(counts), est.predict_proba(counts), rtol=0, atol=1e-12)
    assert (form.predict(counts) == est.predict(counts)).all()
    assert form.support.tolist() == est[0].get_support().tolist()
    assert not form.weights[~form.support].any()  # an unselected feature weighs 0
    again = LinearForm.from_arrays(form.to_arrays())
    assert np.array_equal(again.predict_proba(counts), form.predict_proba(counts))
    assert again.binarize == form.binarize


def test_a_hierarchical_selector_of_the_registry_with_integer_classes():
    rng = np.random.default_rng(0)
    from tests.strategies import coach_hierarchy

    h = coach_hierarchy()
    X = sp.csr_matrix((rng.random((40, h.n_nodes)) < 0.4).astype(float))
    X = sp.csr_matrix(X @ (h.ancestor_matrix + sp.identity(h.n_nodes)) > 0, dtype=float)  # closed
    y = rng.integers(0, 2, 40)
    est = _fitted(get_selector("shsel-ig-prune", hierarchy=h), X, y)
    form = LinearForm.of(est, h.n_nodes, check=X)
    assert form is not None and form.classes.dtype.kind == "i"
    assert np.allclose(form.predict_proba(X), est.predict_proba(X), rtol=0, atol=1e-12)


def test_no_form_for_another_classifier_a_transforming_selector_or_a_failed_check(monkeypatch):
    X = sp.csr_matrix(np.array([[1, 0, 1], [1, 1, 0], [0, 1, 0], [0, 0, 1]], dtype=float))
    y = ["a", "a", "b", "b"]
    other = Pipeline([("selector", VarianceThreshold()), ("classifier", MultinomialNB())]).fit(X, y)
    assert LinearForm.of(other, 3) is None
    assert LinearForm.of(_fitted(_Doubling(), X, y), 3) is None
    assert LinearForm.of(BernoulliNB().fit(X, y), 3) is None  # not a selection + NB
    assert LinearForm.of(_fitted(VarianceThreshold(), X, y), 4) is None  # not the model's columns
    est = _fitted(VarianceThreshold(), X, y)
    assert LinearForm.of(est, 3, check=X) is not None
    monkeypatch.setattr(BernoulliNB, "predict_proba", lambda self, X: np.full((X.shape[0], 2), 0.5))
    assert LinearForm.of(est, 3, check=X) is None  # the estimator says otherwise: the form is not kept


def test_arrays_that_are_not_a_form_are_refused():
    X = sp.csr_matrix(np.eye(3))
    form = LinearForm.of(_fitted(VarianceThreshold(), X, [0, 1, 1]), 3)
    arrays = form.to_arrays()
    assert LinearForm.from_arrays({}) is None
    with pytest.raises(ValueError, match="do not fit together"):
        LinearForm.from_arrays({**arrays, "form.bias": np.zeros(5)})


@settings(max_examples=30, deadline=None)
@given(data=closed_tables(n_classes=3), k=st.integers(1, 12), top=st.integers(1, 4))
def test_explain_gives_the_per_row_terms_of_the_log_odds_heaviest_first(data, k, top):
    X, y, h = data
    est = _fitted(SelectKBest(chi2, k=min(k, X.shape[1])), X, y)
    form = LinearForm.of(est, X.shape[1])
    proba, why = form.explain(X, top=top)
    assert np.allclose(proba, est.predict_proba(X), rtol=0, atol=1e-12)
    for i in range(X.shape[0]):  # the row-by-row reference
        order = np.argsort(-proba[i], kind="stable")
        best, second = order[0], order[1]
        cols = [j for j in X[i].indices.tolist() if form.support[j]]
        terms = sorted(((form.weights[j, best] - form.weights[j, second], j) for j in cols),
                       key=lambda t: (-t[0], t[1]))
        assert why[i] == [(j, w) for w, j in terms if w > 0][:top]
