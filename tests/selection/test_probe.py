"""The probe a kept model checks itself with: its rows, and the refusals when it predicts them differently."""

from __future__ import annotations

import logging

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from sklearn.naive_bayes import BernoulliNB
from sklearn.pipeline import Pipeline

from kg.errors import KgfsError
from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable
from selection.encoding import Encoder, trusted_classes
from selection.hierarchical import SHSEL
from selection.probe import (
    PROBE_ROWS,
    PROBE_TOLERANCE,
    check_probe,
    encode_probe,
    feature_rows,
    probe_probabilities,
    spread,
    with_empty_row,
)


@pytest.fixture(scope="module")
def fitted():
    """Features B and C under A, D alone; an SHSEL + NB pipeline over them."""
    h = FeatureHierarchy.from_edges([("B", "A"), ("C", "A")], nodes=["D"])
    features = FeatureTable.from_facts({"x": ["B"], "y": ["C"], "z": ["D"]}, h)
    X = sp.csr_matrix(features.hierarchy.close(sp.csr_matrix(np.eye(4)[[1, 2, 3, 1, 2, 3]])), dtype=np.float64)
    est = Pipeline([("s", SHSEL(hierarchy=features.hierarchy)), ("c", BernoulliNB())]).fit(X, list("ababab"))
    return est, features


def test_spread_positions_are_evenly_spaced_and_at_most_the_probe_s_rows():
    assert spread(0).tolist() == [] and spread(1).tolist() == [0]
    assert len(spread(10_000)) == PROBE_ROWS and spread(10_000)[[0, -1]].tolist() == [0, 9_999]


def test_feature_rows_are_closed_single_features_the_selector_keeps_and_an_empty_row(fitted):
    est, features = fitted
    rows = feature_rows(est, features)
    kept = est[0].get_support()
    assert rows[-1].nnz == 0 and rows.shape == (kept.sum() + 1, features.n_features)
    closed = features.hierarchy.close(rows)
    assert (sp.csr_matrix(closed) != rows).nnz == 0  # closed under the hierarchy
    assert all(kept[rows[i].indices].any() for i in range(rows.shape[0] - 1))


def test_a_model_that_predicts_its_probe_the_same_passes_with_a_note_when_versions_differ(fitted, caplog):
    est, features = fitted
    rows = feature_rows(est, features)
    saved = probe_probabilities(est, rows)
    with caplog.at_level(logging.INFO, logger="selection.probe"):
        check_probe(est, rows, saved + PROBE_TOLERANCE / 2, {"scikit-learn": sklearn.__version__}, "model.json")
        assert caplog.records == []
        check_probe(est, rows, saved, {"scikit-learn": "0.99.0"}, "model.json")
    assert [r.getMessage() for r in caplog.records] == [
        f"model.json: written with scikit-learn 0.99.0, loaded with {sklearn.__version__}: its probe of "
        f"{rows.shape[0]} rows predicts the same"]


@pytest.mark.parametrize("change, detail", [
    (lambda p: p + 1e-6, r"its probe of \d+ rows: probabilities differ by up to 1e-06, more than 1e-09"),
    (lambda p: p * np.nan, r"its probe of \d+ rows: probabilities differ by up to nan"),
    (lambda p: p[:, :1], r"its probe gives \(\d+, 2\) probabilities, not the \(\d+, 1\) saved"),
])
def test_a_probe_predicted_differently_is_refused_in_one_line_naming_the_file_and_versions(fitted, change, detail):
    est, features = fitted
    rows = feature_rows(est, features)
    with pytest.raises(KgfsError) as exc:
        check_probe(est, rows, change(probe_probabilities(est, rows)), {"scikit-learn": "0.99.0", "numpy": "1.0"},
                    "m/model.json")
    msg = str(exc.value)
    assert msg.startswith(f"m/model.json: the model predicts differently under scikit-learn {sklearn.__version__} and "
                          f"numpy {np.__version__} than under 0.99.0 and numpy 1.0 which wrote it (")
    assert msg.endswith("); fit it again") and "\n" not in msg
    import re

    assert re.search(detail, msg), msg


def test_a_model_that_cannot_predict_here_is_refused_with_the_cause(fitted):
    est, features = fitted
    rows = feature_rows(est, features)
    saved = probe_probabilities(est, rows)
    broken = Pipeline([("s", est[0]), ("c", BernoulliNB())])  # as a classifier missing what this scikit-learn reads
    with pytest.raises(KgfsError, match=r"model.json: .* which wrote it \(its probe fails: NotFittedError: .*\); "
                                        "fit it again$") as exc:
        check_probe(broken, rows, saved, {}, "model.json")
    assert "under an unknown version which wrote it" in str(exc.value) and exc.value.__cause__ is not None


def test_the_probe_is_encoded_with_its_probabilities_and_none_for_what_cannot_predict(fitted):
    est, features = fitted
    enc = Encoder(trusted_classes())
    rows = with_empty_row(sp.csr_matrix(np.eye(4)))
    probe = encode_probe(est, features, rows, enc)
    assert probe["rows"]["__kgfs__"] == "csr" and enc.arrays[probe["proba"]["ref"]].shape == (5, 2)
    assert np.array_equal(enc.arrays[probe["proba"]["ref"]], probe_probabilities(est, rows))
    assert encode_probe(est[:1], features, None, enc) is None  # a selector alone predicts nothing
