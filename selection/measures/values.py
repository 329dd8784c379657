"""Relevance of binary features and of single feature *values*, for all features at once.

These are the measures of the RPV paper (da Silva, Plastino & Freitas 2020, section 4.1) and
of HIP/MR (Wan & Freitas 2015), computed from one sparse product ``X.T @ Y_onehot``
(:class:`selection.measures.relevance.ClassCounts`); no Python loop runs over features.

- :func:`r_measure`: the eager R measure of Eq. 1,
  ``R(X) = sum_i [P(c_i | X=1) - P(c_i | X=0)]^2``.
- :func:`lazy_r`: LazyR of Eq. 2, the relevance of one *value* ``x`` of a feature,
  ``LazyR(X=x) = sum_i [P(c_i | X=x) - 1/k]^2`` with ``k`` the number of classes.
- :func:`information_gain`: the eager IG of the feature (RPV-IG uses it), re-exported.
- :func:`value_information_gain`: ``H(C) - H(C | X=x)``, the information gain of observing
  one value (a per-value analogue of IG; not used by the paper's methods, offered for
  experiments).

Choices where the paper is silent (each tested in ``tests/selection/measures/test_values.py``):

- A value that never occurs in the training data has no conditional class distribution.
  LazyR and the per-value IG of such a value are **0** (no evidence of relevance), and the
  R of a feature that is constant in the training data is **0** (it cannot discriminate).
- ``k`` in Eq. 2 is the number of classes seen in the training labels; a class that appears
  only at test time is unknown to the measure (and to every classifier trained on those labels).

``smoothing="laplace"`` replaces the papers' raw frequencies by the Laplace-corrected estimates
``P(c | X=x) = (n(c, x) + 1) / (n(x) + k)`` that the authors' Java code uses (RPV repository
``RPV.java``, ``RLazy``; AIRE repository ``MeasurementCodes.java``: ``(count + 1) / (n + 2)``
for two classes). Every value then has an estimate (a value never seen gets ``1/k`` per
class, LazyR 0), so the "never seen" rule above does not apply. The authors' LazyR for two
classes is ``(P(pro|x) - P(anti|x))^2``, twice Eq. 2; the factor does not change any
comparison RPV makes, so Eq. 2's scale is kept. For two classes :func:`lazy_r` with
``smoothing="laplace"`` also computes it in the authors' floating-point steps (``p`` of the
second class, ``1 - p``, their difference squared, then halved, which is exact): LazyR values
that are equal in exact arithmetic but computed from mirror-image estimates ``p`` and ``1 - p``
(e.g. 2/3 and 1/3) can differ in the last bits there, and RPV's strict comparison then removes
one of the two features; computing them as the authors do makes RPV keep and remove exactly
what their code does (see :class:`selection.lazy.RPV`, "Ties").

The worked example of the paper (the table under its Fig. 2)::

             A  B  C  D  Class
    inst 1   1  1  0  0  C1
    inst 2   1  0  1  0  C2
    inst 3   0  0  1  1  C2

Eq. 2 applied to this table gives ``LazyR(A=1) = 0``, ``LazyR(B=1) = 0.5``,
``LazyR(C=1) = 0.5`` and ``LazyR(D=1) = 0.5``. The paper's prose instead states
``LazyR(A=1) = (1-0.5)^2 + (0.5-0.5)^2 = 0.25`` and ``LazyR(D=1) = 0.25``: those sums use
conditional "probabilities" (1, 0.5) and (0, 0.5) that do not sum to one, so they cannot come
from any table; with the printed table, ``P(C1|A=1) = P(C2|A=1) = 0.5`` and
``P(C2|D=1) = 1``. We implement Eq. 2 as written; the conclusion the paper draws from the
example (a descendant can be more relevant than its ancestor: ``LazyR(B=1) > LazyR(A=1)``)
still holds, the second one (``LazyR(C=1) > LazyR(D=1)``) does not (they are equal).

Examples
--------
>>> import numpy as np
>>> X = np.array([[1, 1, 0, 0], [1, 0, 1, 0], [0, 0, 1, 1]])
>>> lazy_r(X, ["C1", "C2", "C2"]).tolist()
[0.0, 0.5, 0.5, 0.5]
"""

from __future__ import annotations

import numpy as np

from selection.measures.relevance import ClassCounts, entropy, information_gain

__all__ = [
    "conditional_class_probabilities",
    "r_measure",
    "lazy_r",
    "information_gain",
    "value_information_gain",
    "value_relevance",
    "SMOOTHING",
]

#: The ``smoothing`` values the measures accept: the papers' raw frequencies (``None``) or the
#: authors' code's Laplace-corrected estimates (``"laplace"``).
SMOOTHING = (None, "laplace")


def _check_smoothing(smoothing) -> None:
    if smoothing not in SMOOTHING:
        raise ValueError(f"smoothing must be None or 'laplace', got {smoothing!r}")


def _counts(X, y, counts: ClassCounts | None) -> ClassCounts:
    return counts if counts is not None else ClassCounts(X, y)


def _authors_laplace_lazy_r(counts: ClassCounts, value: int) -> np.ndarray:
    """LazyR (Eq. 2's scale) of two classes with Laplace estimates, in the authors' double arithmetic.

    ``RPV.java`` (``RLazy``, pablonsilva/RPV at 75dc728) computes, for the class value 1 (the
    second of the two classes; ``inst.classValue() == 1``)::

        p_pro = (count_pro + 1) / (count + 2);  p_anti = 1 - p_pro;  Math.pow(p_pro - p_anti, 2)

    The same IEEE operations in the same order give the same doubles (``Math.pow(d, 2)`` is
    ``d * d``); halving is exact, so every comparison and every equality is theirs.
    """
    table = counts.pos if value == 1 else counts.neg
    p = (table[:, 1] + 1.0) / (table.sum(axis=1) + 2.0)
    d = p - (1.0 - p)
    return d * d / 2.0


def conditional_class_probabilities(
    counts: ClassCounts, value: int = 1, *, smoothing: str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``P(c | X=value)`` for every feature (rows) and class (columns), and which rows are defined.

    Parameters
    ----------
    counts : ClassCounts
        Counts of the training table against its labels.
    value : {0, 1}, default 1
        The feature value conditioned on.
    smoothing : {None, "laplace"}, default None
        Raw frequencies (the papers' equations) or ``(n(c, x) + 1) / (n(x) + k)`` (the
        authors' code).

    Returns
    -------
    p : ndarray, shape (n_features, n_classes)
        Columns in the order of ``counts.classes``; without smoothing 0 on rows where the
        value never occurs in the training data.
    seen : ndarray of bool, shape (n_features,)
        False where the value never occurs (always True with Laplace smoothing).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0, 0], [1, 0, 1, 0], [0, 0, 1, 1]])   # the table under Fig. 2
    >>> p, seen = conditional_class_probabilities(ClassCounts(X, ["C1", "C2", "C2"]))
    >>> p.tolist(), seen.tolist()
    ([[0.5, 0.5], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]], [True, True, True, True])
    >>> p, _ = conditional_class_probabilities(ClassCounts(X, ["C1", "C2", "C2"]), smoothing="laplace")
    >>> p[1].tolist()   # B=1 once, in C1: (1 + 1) / (1 + 2), (0 + 1) / (1 + 2)
    [0.6666666666666666, 0.3333333333333333]
    """
    if value not in (0, 1):
        raise ValueError(f"a binary feature value is 0 or 1, got {value!r}")
    _check_smoothing(smoothing)
    table = counts.pos if value == 1 else counts.neg
    tot = table.sum(axis=1, keepdims=True)
    if smoothing == "laplace":
        k = table.shape[1]
        return (table + 1.0) / (tot + k), np.ones(table.shape[0], dtype=bool)
    seen = tot[:, 0] > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(tot > 0, table / np.where(tot > 0, tot, 1.0), 0.0)
    return p, seen


def r_measure(X=None, y=None, counts: ClassCounts | None = None, *, smoothing: str | None = None) -> np.ndarray:
    """The R measure of Eq. 1 for every feature: ``sum_i [P(c_i|X=1) - P(c_i|X=0)]^2``.

    A feature that is constant in the training data (one of its values never occurs) gets 0
    (without smoothing; with ``smoothing="laplace"`` the unseen value's estimate is ``1/k``).
    Values lie in [0, 2]; 2 means each value determines a different class.

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features), optional
        Binary training table (not read when ``counts`` is given).
    y : array-like, shape (n_instances,), optional
        Training labels (not read when ``counts`` is given).
    counts : ClassCounts, optional
        The counts of ``X`` and ``y`` when already computed.
    smoothing : {None, "laplace"}, default None
        See :func:`conditional_class_probabilities`.

    Returns
    -------
    ndarray, shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0, 0], [1, 0, 1, 0], [0, 0, 1, 1]])   # the table under Fig. 2
    >>> r_measure(X, ["C1", "C2", "C2"]).tolist()
    [0.5, 2.0, 2.0, 0.5]
    >>> r_measure(X, ["C1", "C2", "C2"], smoothing="laplace").round(4).tolist()   # B: 2 (2/3 - 1/4)^2
    [0.0556, 0.3472, 0.3472, 0.0556]
    """
    c = _counts(X, y, counts)
    p1, seen1 = conditional_class_probabilities(c, 1, smoothing=smoothing)
    p0, seen0 = conditional_class_probabilities(c, 0, smoothing=smoothing)
    r = ((p1 - p0) ** 2).sum(axis=1)
    return np.where(seen1 & seen0, r, 0.0)


def lazy_r(
    X=None, y=None, value: int = 1, counts: ClassCounts | None = None, *, smoothing: str | None = None
) -> np.ndarray:
    """LazyR of Eq. 2 for every feature taking ``value``: ``sum_i [P(c_i|X=value) - 1/k]^2``.

    ``k`` is the number of training classes. A value never seen in training gets 0. Values
    lie in [0, 1 - 1/k]; the maximum means the value occurs in one class only. See the module
    docstring for the paper's worked example and its discrepancy with Eq. 2.

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features), optional
        Binary training table (not read when ``counts`` is given).
    y : array-like, shape (n_instances,), optional
        Training labels (not read when ``counts`` is given).
    value : {0, 1}, default 1
        The feature value whose relevance is measured.
    counts : ClassCounts, optional
        The counts of ``X`` and ``y`` when already computed.
    smoothing : {None, "laplace"}, default None
        See :func:`conditional_class_probabilities`. With ``"laplace"`` and two classes the
        value is computed in the authors' floating-point steps (see the module docstring).

    Returns
    -------
    ndarray, shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0, 0], [1, 0, 1, 0], [0, 0, 1, 1]])   # the table under Fig. 2
    >>> lazy_r(X, ["C1", "C2", "C2"], value=0).tolist()
    [0.5, 0.5, 0.5, 0.0]
    >>> lazy_r(X, ["C1", "C2", "C2"], smoothing="laplace").round(4).tolist()  # C=1: 2 (3/4 - 1/2)^2
    [0.0, 0.0556, 0.125, 0.0556]
    """
    c = _counts(X, y, counts)
    k = len(c.classes)
    if smoothing == "laplace" and k == 2 and value in (0, 1):
        return _authors_laplace_lazy_r(c, value)
    p, seen = conditional_class_probabilities(c, value, smoothing=smoothing)
    lr = ((p - 1.0 / k) ** 2).sum(axis=1)
    return np.where(seen, lr, 0.0)


def value_information_gain(X=None, y=None, value: int = 1, counts: ClassCounts | None = None) -> np.ndarray:
    """``H(C) - H(C | X=value)`` in bits, for every feature; 0 for a value never seen.

    Unlike the eager IG this can be negative (a value can make the class *less* certain than
    the prior); it is the per-value analogue of IG, offered for experiments with RPV.

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features), optional
        Binary training table (not read when ``counts`` is given).
    y : array-like, shape (n_instances,), optional
        Training labels (not read when ``counts`` is given).
    value : {0, 1}, default 1
        The feature value observed.
    counts : ClassCounts, optional
        The counts of ``X`` and ``y`` when already computed.

    Returns
    -------
    ndarray, shape (n_features,)
        In bits.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0, 0], [1, 0, 1, 0], [0, 0, 1, 1]])   # the table under Fig. 2
    >>> value_information_gain(X, ["C1", "C2", "C2"]).round(4).tolist()   # A=1 leaves a 50/50 class
    [-0.0817, 0.9183, 0.9183, 0.9183]
    """
    c = _counts(X, y, counts)
    table = c.pos if value == 1 else c.neg
    seen = table.sum(axis=1) > 0
    h = entropy(c.class_totals)
    return np.where(seen, h - entropy(table), 0.0)


def value_relevance(
    name: str, X=None, y=None, counts: ClassCounts | None = None, *, smoothing: str | None = None
) -> np.ndarray:
    """The relevance RPV uses for a *positive* feature value, by name.

    ``"lazyr"``: LazyR(X=1) (RPV); ``"ig"``: eager information gain (RPV-IG); ``"r"``: eager
    R of Eq. 1 (RPV-R); ``"value_ig"``: :func:`value_information_gain` at 1. ``smoothing``
    applies to the probability-based measures (``"lazyr"``, ``"r"``); information gain has no
    Laplace variant in the papers or the authors' code, so ``"ig"`` and ``"value_ig"`` refuse it.

    Parameters
    ----------
    name : {"lazyr", "ig", "r", "value_ig"}
    X : array-like or scipy sparse matrix, shape (n_instances, n_features), optional
        Binary training table (not read when ``counts`` is given).
    y : array-like, shape (n_instances,), optional
        Training labels (not read when ``counts`` is given).
    counts : ClassCounts, optional
        The counts of ``X`` and ``y`` when already computed.
    smoothing : {None, "laplace"}, default None
        See :func:`conditional_class_probabilities`.

    Returns
    -------
    ndarray, shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0, 0], [1, 0, 1, 0], [0, 0, 1, 1]])   # the table under Fig. 2
    >>> value_relevance("r", X, ["C1", "C2", "C2"]).tolist()
    [0.5, 2.0, 2.0, 0.5]
    >>> value_relevance("ig", X, ["C1", "C2", "C2"], smoothing="laplace")
    Traceback (most recent call last):
    ...
    ValueError: smoothing='laplace' applies to the relevance 'lazyr' or 'r', not 'ig'
    """
    _check_smoothing(smoothing)
    if name not in ("lazyr", "ig", "r", "value_ig"):
        raise ValueError(f"unknown relevance {name!r}; use 'lazyr', 'ig', 'r' or 'value_ig'")
    if smoothing is not None and name not in ("lazyr", "r"):
        raise ValueError(f"smoothing={smoothing!r} applies to the relevance 'lazyr' or 'r', not {name!r}")
    c = _counts(X, y, counts)
    if name == "lazyr":
        return lazy_r(counts=c, value=1, smoothing=smoothing)
    if name == "r":
        return r_measure(counts=c, smoothing=smoothing)
    if name == "ig":
        return information_gain(None, None, counts=c)
    return value_information_gain(counts=c, value=1)
