"""Per-fold quality measures of the two papers' evaluation protocols.

Ristoski & Paulheim, *Feature Selection in Hierarchical Feature Spaces* (Discovery Science
2014, section 2: accuracy, compression (Eq. 4), their harmonic mean) and da Silva, Plastino &
Freitas, *Prioritizing Positive Feature Values* (Applied Intelligence 2020, section 5.2: GM,
AUROC, AUCPR).

- ``accuracy``: share of test instances classified correctly.
- ``gm``: geometric mean of sensitivity and specificity (RPV paper, Eq. 4). For more than two
  classes, ``multiclass="macro"`` (default) takes the geometric mean of the per-class recalls
  (the usual multi-class G-mean; for two classes that *is* ``sqrt(sensitivity * specificity)``);
  ``multiclass="weighted"`` takes WEKA's "weighted average" form: the one-vs-rest
  ``sqrt(sensitivity_c * specificity_c)`` of every class, averaged with the class frequencies
  as weights (the RPV paper computed its measures in WEKA; it does not define GM for three
  classes).
- ``auroc``: area under the ROC curve of the positive class's score. Multi-class: the average
  of one-vs-rest AUROCs, unweighted (``macro``) or weighted by class frequency (``weighted``,
  WEKA's).
- ``aucpr``: area under the precision-recall curve of the positive class, computed as
  scikit-learn's ``average_precision_score`` (step-wise, no interpolation; WEKA's "PRC area" is
  a trapezoidal variant, so the last digit can differ). Multi-class: average over classes,
  ``macro`` or ``weighted`` as for AUROC.
- ``compression``: feature space compression ``1 - |V'| / |V|`` (SHSEL paper, Eq. 4).
- ``harmonic_mean``: harmonic mean of accuracy and compression (SHSEL paper, section 2);
  0 when both are 0.

The *positive class* of a binary task is ``pos_label`` when given, otherwise the minority class
of the labels the caller passes (ties: the last label in sorted order). The protocols pass the
labels of the whole table, so every fold uses the same positive class.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import rankdata

__all__ = [
    "wilson_interval",
    "positive_label",
    "geometric_mean",
    "compression",
    "harmonic_mean",
    "auroc",
    "aucpr",
    "fold_metrics",
    "gm_one_vs_rest",
    "roc_auc_score",
    "average_precision_score",
]

# scikit-learn's roc_auc_score / average_precision_score validate their input at length (about
# 10 ms per call); these two plain-numpy versions give the same numbers (checked in the tests)
# at a fraction of the cost, which matters for grids of thousands of cells.


def roc_auc_score(y_bool, score) -> float:
    """AUROC of a binary problem (Mann-Whitney U with mid-ranks for ties, as scikit-learn).

    Parameters
    ----------
    y_bool : array-like of bool
        True for the positive class.
    score : array-like of float
        Higher means more likely positive.

    Returns
    -------
    float
        NaN when only one class is present.

    Examples
    --------
    >>> roc_auc_score([True, False, True, False], [0.9, 0.1, 0.4, 0.6])
    0.75
    """
    y_bool = np.asarray(y_bool, dtype=bool)
    n_pos = int(y_bool.sum())
    n_neg = len(y_bool) - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    r = rankdata(np.asarray(score, dtype=float))
    return float((r[y_bool].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


def average_precision_score(y_bool, score) -> float:
    """Average precision ``sum_k (R_k - R_{k-1}) P_k`` over distinct score thresholds (scikit-learn's).

    Parameters
    ----------
    y_bool : array-like of bool
        True for the positive class.
    score : array-like of float
        Higher means more likely positive.

    Returns
    -------
    float
        NaN when there is no positive instance.

    Examples
    --------
    >>> round(average_precision_score([True, False, True, False], [0.9, 0.1, 0.4, 0.6]), 4)
    0.8333
    """
    y_bool = np.asarray(y_bool, dtype=bool)
    if not y_bool.any():
        return float("nan")
    score = np.asarray(score, dtype=float)
    order = np.argsort(-score, kind="mergesort")
    s, t = score[order], y_bool[order]
    idx = np.r_[np.flatnonzero(np.diff(s)), len(s) - 1]
    tps = np.cumsum(t)[idx].astype(float)
    fps = (idx + 1) - tps
    precision = tps / (tps + fps)
    recall = tps / tps[-1]
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def positive_label(y, pos_label=None):
    """The positive class: ``pos_label`` if given (must occur in ``y``), else the minority class.

    Parameters
    ----------
    y : array-like
        Class labels (of the whole table, so that every fold uses the same positive class).
    pos_label : optional
        The positive class, if the caller chose one.

    Returns
    -------
    label
        A plain Python value when the labels are numpy scalars.

    Examples
    --------
    >>> positive_label([0, 0, 1, 1, 1])
    0
    >>> positive_label(["a", "b"], pos_label="a")
    'a'
    """
    labels, counts = np.unique(np.asarray(y), return_counts=True)
    if pos_label is not None:
        if pos_label not in labels.tolist():
            raise ValueError(f"pos_label {pos_label!r} is not one of the class labels {labels.tolist()!r}")
        return pos_label
    # np.unique sorts, so the last of the smallest counts wins ties
    i = len(counts) - 1 - int(np.argmin(counts[::-1]))
    return labels[i].item() if hasattr(labels[i], "item") else labels[i]


def geometric_mean(y_true, y_pred, labels=None) -> float:
    """Geometric mean of the per-class recalls (binary: sqrt(sensitivity * specificity)).

    Parameters
    ----------
    y_true, y_pred : array-like
        True and predicted labels.
    labels : array-like, optional
        The classes whose recall counts (default: those in ``y_true``); a class absent from
        ``y_true`` is skipped.

    Returns
    -------
    float
        NaN when no class counts.

    Examples
    --------
    >>> round(geometric_mean([1, 1, 0, 0], [1, 0, 0, 0]), 4)  # sens 0.5, spec 1.0
    0.7071
    """
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    labels = np.unique(y_true) if labels is None else np.asarray(labels)
    recalls = []
    for c in labels:
        m = y_true == c
        if m.any():
            recalls.append(float(np.mean(y_pred[m] == c)))
    if not recalls:
        return float("nan")
    return float(np.prod(recalls) ** (1.0 / len(recalls)))


def compression(n_selected: float, n_features: int) -> float:
    """Feature space compression ``1 - n_selected / n_features`` (SHSEL paper, Eq. 4).

    Parameters
    ----------
    n_selected : float
        Features selected (a mean over instances for lazy selectors).
    n_features : int
        Features available.

    Returns
    -------
    float
        NaN when ``n_features <= 0``.

    Examples
    --------
    >>> compression(25, 100)
    0.75
    """
    if n_features <= 0:
        return float("nan")
    return 1.0 - float(n_selected) / float(n_features)


def harmonic_mean(a: float, b: float) -> float:
    """Harmonic mean ``2ab / (a + b)``; 0 when ``a + b == 0``, NaN when either is NaN.

    Parameters
    ----------
    a, b : float
        E.g. accuracy and compression (SHSEL paper, section 2).

    Returns
    -------
    float

    Examples
    --------
    >>> round(harmonic_mean(0.8, 0.75), 4), harmonic_mean(0.0, 0.0)
    (0.7742, 0.0)
    """
    if a is None or b is None or math.isnan(a) or math.isnan(b):
        return float("nan")
    return 0.0 if a + b == 0 else 2.0 * a * b / (a + b)


def _scores_for(proba: np.ndarray, classes: np.ndarray, label) -> np.ndarray:
    idx = np.flatnonzero(classes == label)
    if len(idx) == 0:  # the classifier never saw this class: it scores it 0 everywhere
        return np.zeros(proba.shape[0])
    return proba[:, idx[0]]


def _weights(y_true, present, multiclass):
    if multiclass == "weighted":
        w = np.array([np.mean(y_true == c) for c in present])
        return w / w.sum()
    if multiclass != "macro":
        raise ValueError(f"multiclass must be 'macro' or 'weighted', got {multiclass!r}")
    return np.full(len(present), 1.0 / len(present))


def _curve_area(area, y_true, proba, classes, pos_label, multiclass) -> float:
    """``area(y_bool, score)`` of the positive class (binary) or averaged one-vs-rest over the classes."""
    y_true = np.asarray(y_true)
    classes = np.asarray(classes)
    present = np.unique(y_true)
    if len(classes) <= 2 and len(present) <= 2:
        return float(area(y_true == pos_label, _scores_for(proba, classes, pos_label)))
    vals = [area(y_true == c, _scores_for(proba, classes, c)) for c in present]
    return float(np.dot(_weights(y_true, present, multiclass), vals))


def gm_one_vs_rest(y_true, y_pred, multiclass: str = "weighted") -> float:
    """Average over classes of the one-vs-rest ``sqrt(sensitivity_c * specificity_c)``.

    Parameters
    ----------
    y_true, y_pred : array-like
        True and predicted labels.
    multiclass : {"weighted", "macro"}, default "weighted"
        Weight the classes by their frequency in ``y_true`` (WEKA's) or equally.

    Returns
    -------
    float

    Examples
    --------
    >>> round(gm_one_vs_rest([0, 0, 1, 1], [0, 1, 1, 1]), 4)  # both classes: sqrt(0.5 * 1)
    0.7071
    """
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    present = np.unique(y_true)
    vals = []
    for c in present:
        pos = y_true == c
        sens = float(np.mean(y_pred[pos] == c))
        spec = float(np.mean(y_pred[~pos] != c)) if (~pos).any() else 1.0
        vals.append(np.sqrt(sens * spec))
    return float(np.dot(_weights(y_true, present, multiclass), vals))


def auroc(y_true, proba, classes, pos_label, multiclass: str = "macro") -> float:
    """AUROC from class scores ``proba`` (columns in the order of ``classes``).

    Binary: the ROC of the positive class's score. Multi-class: one-vs-rest, averaged as
    ``multiclass`` says. NaN when the test part holds a single class (undefined).

    Parameters
    ----------
    y_true : array-like
        True labels.
    proba : ndarray, shape (n_instances, n_classes)
        Class scores.
    classes : array-like
        The classes of ``proba``'s columns; a class missing from it scores 0.
    pos_label
        The positive class of a binary task.
    multiclass : {"macro", "weighted"}, default "macro"

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[0.1, 0.9], [0.8, 0.2], [0.6, 0.4], [0.3, 0.7]])
    >>> auroc([1, 0, 1, 0], p, [0, 1], pos_label=1)
    0.75
    """
    if np.unique(np.asarray(y_true)).size < 2:
        return float("nan")
    return _curve_area(roc_auc_score, y_true, proba, classes, pos_label, multiclass)


def aucpr(y_true, proba, classes, pos_label, multiclass: str = "macro") -> float:
    """Area under the precision-recall curve (average precision) of the positive class.

    Multi-class: average over the classes present in ``y_true``, as ``multiclass`` says.

    Parameters
    ----------
    y_true : array-like
        True labels.
    proba : ndarray, shape (n_instances, n_classes)
        Class scores.
    classes : array-like
        The classes of ``proba``'s columns; a class missing from it scores 0.
    pos_label
        The positive class of a binary task.
    multiclass : {"macro", "weighted"}, default "macro"

    Returns
    -------
    float
        NaN when a binary test part holds no positive instance.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[0.1, 0.9], [0.8, 0.2], [0.6, 0.4], [0.3, 0.7]])
    >>> round(aucpr([1, 0, 1, 0], p, [0, 1], pos_label=1), 4)
    0.8333
    """
    # average_precision_score is NaN when a binary test part holds no positive instance
    return _curve_area(average_precision_score, y_true, proba, classes, pos_label, multiclass)


def fold_metrics(y_true, y_pred, proba, classes, *, pos_label, compression: float, labels=None,
                 multiclass: str = "macro") -> dict:
    """All per-fold measures as a dict (``proba`` may be None: AUROC/AUCPR are then NaN).

    ``multiclass`` (``macro`` or ``weighted``) only matters with more than two classes.

    Parameters
    ----------
    y_true, y_pred : array-like
        True and predicted labels of the test part.
    proba : ndarray or None
        Class scores (n_instances x n_classes), or a binary decision function (1-D: the
        score of ``classes[1]``).
    classes : array-like
        The classes of ``proba``'s columns.
    pos_label
        The positive class (see :func:`positive_label`).
    compression : float
        Feature space compression of the selection (:func:`compression`).
    labels : array-like, optional
        All classes of the task (default: those in ``y_true``).
    multiclass : {"macro", "weighted"}, default "macro"

    Returns
    -------
    dict
        ``accuracy``, ``gm``, ``auroc``, ``aucpr``, ``compression``, ``harmonic_mean``.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[0.1, 0.9], [0.8, 0.2], [0.6, 0.4], [0.3, 0.7]])
    >>> m = fold_metrics([1, 0, 1, 0], [1, 0, 0, 1], p, [0, 1], pos_label=1, compression=compression(25, 100))
    >>> {k: round(v, 4) for k, v in m.items()}
    {'accuracy': 0.5, 'gm': 0.5, 'auroc': 0.75, 'aucpr': 0.8333, 'compression': 0.75, 'harmonic_mean': 0.6}
    """
    y_true = np.asarray(y_true)
    acc = float(np.mean(np.asarray(y_pred) == y_true)) if len(y_true) else float("nan")
    comp = float(compression)
    n_classes = len(np.unique(y_true)) if labels is None else len(labels)
    if n_classes > 2 and multiclass == "weighted":
        gm = gm_one_vs_rest(y_true, y_pred, "weighted")
    else:
        gm = geometric_mean(y_true, y_pred, labels)
    out = {
        "accuracy": acc,
        "gm": gm,
        "auroc": float("nan"),
        "aucpr": float("nan"),
        "compression": comp,
        "harmonic_mean": harmonic_mean(acc, comp),
    }
    if proba is not None:
        proba = np.asarray(proba, dtype=float)
        if proba.ndim == 1:  # a decision function of a binary classifier: score of classes[1]
            proba = np.column_stack([-proba, proba])
        out["auroc"] = auroc(y_true, proba, classes, pos_label, multiclass)
        out["aucpr"] = aucpr(y_true, proba, classes, pos_label, multiclass)
    return out


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (an accuracy on ``n`` test instances).

    Wilson (1927): the interval of the proportions ``p`` whose normal test does not reject the observed
    ``successes / n`` at level ``1 - confidence``; unlike the normal-approximation (Wald) interval it stays inside
    [0, 1] and keeps its coverage near 0 and 1 and for the small test parts of the benchmarks (36 AIFB people).

    Parameters
    ----------
    successes : int
        Correct predictions.
    n : int
        Test instances.
    confidence : float
        Two-sided level, in (0, 1).

    Returns
    -------
    (float, float)
        The lower and upper bound; ``(nan, nan)`` for ``n == 0``.

    Examples
    --------
    >>> [round(v, 4) for v in wilson_interval(23, 36)]
    [0.4758, 0.7752]
    >>> [round(v, 4) for v in wilson_interval(10, 10)], [round(v, 4) for v in wilson_interval(0, 10)]
    ([0.7225, 1.0], [0.0, 0.2775])
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if n <= 0:
        return float("nan"), float("nan")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in [0, n], got {successes} of {n}")
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + confidence / 2))
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
