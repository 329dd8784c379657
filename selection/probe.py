"""A kept model's self-check: a few rows it predicted when it was saved, predicted again when it is loaded.

A model is checked against the scikit-learn that loads it, not refused for its version alone. When
:mod:`selection.model` saves a model it records its probe (:func:`encode_probe`): at most :data:`PROBE_ROWS` rows
over the model's features and a row of no feature, with the class probabilities the model gives them. On load
:func:`check_probe` predicts the rows again and, when a probability differs from the saved one by more than
:data:`PROBE_TOLERANCE` (absolute), or the prediction fails (an attribute this scikit-learn reads that the one which
wrote the model did not set), refuses the model in one line naming ``model.json`` and both scikit-learn versions
("the model predicts differently under scikit-learn X than under Y which wrote it ...; fit it again"). A model that
predicts its probe the same loads without a warning, whatever the versions (a note is logged at INFO when they
differ).

The rows are, for a model fitted on a table (:func:`selection.model.fit_model`), rows of the training table spread
evenly in its order (:func:`spread`), over the fitted features and closed under their hierarchy; for a model
without training rows (:func:`selection.model.save_pipeline`, a model made by hand) one row per feature, that
feature and its ancestors, the features spread evenly among those the selector keeps (:func:`feature_rows`). A
``Pipeline`` starting with :class:`~kg.features.KGFeatures` is probed by its steps after ``KGFeatures``, over that
step's columns: the check reads no graph. Predicting the probe takes a few milliseconds.

Examples
--------
>>> import scipy.sparse as sp
>>> from sklearn.naive_bayes import BernoulliNB
>>> nb = BernoulliNB().fit(np.eye(3), ["a", "b", "b"])
>>> rows = with_empty_row(sp.csr_matrix(np.eye(3)))
>>> saved = probe_probabilities(nb, rows)
>>> check_probe(nb, rows, saved, {"scikit-learn": "0.1"}, "model.json")  # the same probabilities: no error
>>> check_probe(nb, rows, saved + 1e-6, {"scikit-learn": "0.1"}, "model.json")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
kg.errors.InputFormatError: model.json: the model predicts differently under scikit-learn ... than under 0.1 \
which wrote it (its probe of 4 rows: probabilities differ by up to 1e-06, more than 1e-09); fit it again
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from kg.errors import InputFormatError
from kg.table import FeatureTable
from selection.encoding import Encoder

__all__ = ["PROBE_ROWS", "PROBE_TOLERANCE", "check_probe", "class_probabilities", "encode_probe", "feature_rows",
           "probe_probabilities", "spread", "with_empty_row"]

log = logging.getLogger(__name__)

#: The probe's rows at most (and a row of no feature), and how far (absolute) a probability it predicts on load may
#: be from the one it predicted when it was saved.
PROBE_ROWS, PROBE_TOLERANCE = 20, 1e-9


def class_probabilities(estimator, X) -> np.ndarray:
    """``estimator.predict_proba(X)``; a classifier without it gives 1 to its predicted class."""
    if hasattr(estimator, "predict_proba"):
        try:
            return np.asarray(estimator.predict_proba(X))
        except AttributeError:  # SVC without probability=True
            pass
    pred = np.asarray(estimator.predict(X))
    return (pred[:, None] == np.asarray(estimator.classes_)[None, :]).astype(np.float64)


def spread(n: int, k: int = PROBE_ROWS) -> np.ndarray:
    """At most ``k`` positions spread evenly over ``range(n)``.

    >>> spread(100, 5).tolist(), spread(3).tolist()
    ([0, 25, 50, 74, 99], [0, 1, 2])
    """
    return np.unique(np.linspace(0, n - 1, min(n, k)).round().astype(np.int64)) if n else np.zeros(0, np.int64)


def with_empty_row(x) -> sp.csr_matrix:
    """``x`` and a row of no feature below it (float64 CSR)."""
    x = sp.csr_matrix(x)
    return sp.csr_matrix(sp.vstack([x, sp.csr_matrix((1, x.shape[1]))], format="csr"), dtype=np.float64)


def _kg_step(estimator):
    """A ``Pipeline``'s first step when it is a :class:`~kg.features.KGFeatures` (it reads entities), else None."""
    from kg.features import KGFeatures

    steps = getattr(estimator, "steps", None)
    return steps[0][1] if steps and isinstance(steps[0][1], KGFeatures) else None


def _past_the_graph(estimator):
    """The estimator that reads the features: a Pipeline of KGFeatures without that step."""
    return estimator if _kg_step(estimator) is None else estimator[1:]


def feature_rows(estimator, features: FeatureTable) -> sp.csr_matrix:
    """One row per feature (that feature and its ancestors), the features spread among those the selector keeps
    (all when it keeps none or has no support); and a row of no feature."""
    n = features.n_features
    steps = getattr(estimator, "steps", None) or []
    first = 1 if _kg_step(estimator) is not None else 0
    step = steps[first][1] if len(steps) > first else None
    kept = np.asarray(step.get_support(), bool) if hasattr(step, "get_support") else np.zeros(n, bool)
    cols = np.flatnonzero(kept) if kept.shape == (n,) and kept.any() else np.arange(n)
    pick = cols[spread(len(cols))]
    direct = sp.csr_matrix((np.ones(len(pick)), (np.arange(len(pick)), pick)), shape=(len(pick), n))
    x = sp.csr_matrix(features.hierarchy.close(direct), dtype=np.float64)
    x.data[:] = 1.0
    x.sort_indices()
    return with_empty_row(x)


def probe_probabilities(estimator, rows) -> np.ndarray:
    """The class probabilities of the probe's rows (a Pipeline of KGFeatures: by its steps after KGFeatures)."""
    kg = _kg_step(estimator)
    if kg is None:
        return class_probabilities(estimator, sp.csr_matrix(rows, dtype=np.float64))
    from kg.table import HierarchicalCSR

    return class_probabilities(estimator[1:], HierarchicalCSR.wrap(rows, kg.hierarchy_))


def encode_probe(estimator, features: FeatureTable, rows, encoder: Encoder) -> dict | None:
    """The probe as model.json holds it, its arrays in ``encoder``'s: ``rows`` (None: :func:`feature_rows`) and their
    probabilities; None for an estimator that cannot predict (a Pipeline of KGFeatures alone)."""
    if not hasattr(_past_the_graph(estimator), "predict"):
        return None
    rows = sp.csr_matrix(rows if rows is not None else feature_rows(estimator, features), dtype=np.float64)
    proba = np.asarray(probe_probabilities(estimator, rows), dtype=np.float64)
    return {"rows": encoder.value(rows, "the probe"), "proba": encoder.value(proba, "the probe")}


def check_probe(estimator, rows, expected: np.ndarray, wrote: Mapping, path: str | Path) -> None:
    """Refuse the model when its probe's probabilities are not the saved ones (see the module).

    Parameters
    ----------
    estimator, rows, expected
        The loaded estimator, the probe's rows and the probabilities saved with them.
    wrote : mapping
        The versions that wrote the model (``scikit-learn``, ``numpy``: its manifest's).
    path : path
        The file named in the refusal (``model.json``).

    Raises
    ------
    InputFormatError
    """
    import sklearn

    now = {"scikit-learn": sklearn.__version__, "numpy": np.__version__}
    failure = None
    try:
        got = probe_probabilities(estimator, rows)
        same_shape = got.shape == expected.shape
        diff = float(np.max(np.abs(got - expected), initial=0.0)) if same_shape else np.inf
        detail = (f"its probe of {rows.shape[0]} rows: probabilities differ by up to {diff:.3g}, more than "
                  f"{PROBE_TOLERANCE:g}" if same_shape else
                  f"its probe gives {got.shape} probabilities, not the {expected.shape} saved")
    except Exception as exc:  # what this scikit-learn reads and the one that wrote the model did not set, ...
        diff, failure = np.inf, exc
        detail = " ".join(f"its probe fails: {type(exc).__name__}: {exc}".split())
    sk = wrote.get("scikit-learn") or "an unknown version"
    if not diff <= PROBE_TOLERANCE:  # NaN too
        also = wrote.get("numpy") not in (None, now["numpy"])
        here = f"scikit-learn {now['scikit-learn']}" + (f" and numpy {now['numpy']}" if also else "")
        there = sk + (f" and numpy {wrote.get('numpy')}" if also else "")
        raise InputFormatError(f"the model predicts differently under {here} than under {there} which wrote it "
                               f"({detail}); fit it again", str(path)) from failure
    if sk != now["scikit-learn"]:
        log.info("%s: written with scikit-learn %s, loaded with %s: its probe of %d rows predicts the same", path,
                 sk, now["scikit-learn"], rows.shape[0])
