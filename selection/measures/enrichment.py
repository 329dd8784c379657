"""Class enrichment of binary features: support per class, the class a feature is enriched in, p and q.

What a bioinformatician reads first about a feature (the convention of GO enrichment tools): in
which class it is over-represented, how many instances of each class have it, the p-value of that
over-representation and its false-discovery-rate-adjusted value.

For a table of ``N`` instances, a feature present in ``K`` of them and a class of ``n`` instances,
``k`` of which have the feature:

- **support per class**: ``k`` for every class, from one sparse product ``X.T @ Y_onehot`` (no Python
  loop over features);
- **enriched in**: the class of the highest ratio of observed to expected count, ``k / (n K / N)``;
  for a given feature that is the class of the highest within-class support rate ``k / n``. Ties
  (equal rates, compared exactly as fractions) go to the first class in sorted order. A feature no
  instance has (``K = 0``) is enriched in no class;
- **p**: the one-sided Fisher exact test of that over-representation on the whole table, the
  hypergeometric upper tail ``P(X >= k) = hypergeom.sf(k - 1, N, K, n)``; ``p = 1`` when ``K = 0``;
- **q**: the Benjamini-Hochberg adjusted p-values over *all* features of the table (every feature is
  tested, the ones of zero support with ``p = 1``), ``scipy.stats.false_discovery_control(p, method="bh")``.

These are descriptive statistics. Computed on the data a selector was fitted on, they are not an
independent test of the selected features: a feature kept because it separates the classes of this
table has a small p-value on this table by construction.

Examples
--------
>>> import numpy as np
>>> X = np.array([[1, 1], [1, 0], [1, 0], [0, 0]])
>>> e = class_enrichment(X, ["a", "a", "b", "b"])
>>> e.classes.tolist(), e.support.tolist(), e.enriched_labels().tolist()
(['a', 'b'], [[2, 1], [1, 0]], ['a', 'a'])
>>> np.round(e.p, 4).tolist(), np.round(e.q, 4).tolist()
([0.5, 0.5], [0.5, 0.5])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.stats import false_discovery_control, hypergeom

__all__ = ["ENRICHMENT_COLUMNS", "Enrichment", "class_enrichment", "enrichment_columns", "enrichment_text",
           "enrichment_texts"]

#: The columns of :meth:`Enrichment.frame` before the per-class supports (``support_<class>``).
ENRICHMENT_COLUMNS = ("enriched_in", "p_enrichment", "q_enrichment")


@dataclass(frozen=True)
class Enrichment:
    """Per feature: support in each class, the class it is enriched in, the p- and q-values.

    Attributes
    ----------
    classes : ndarray, shape (n_classes,)
        The sorted distinct labels.
    support : ndarray of int64, shape (n_features, n_classes)
        Instances of each class that have the feature.
    class_sizes : ndarray of int64, shape (n_classes,)
        Instances of each class.
    enriched : ndarray of int64, shape (n_features,)
        Index into ``classes`` of the class of the feature's highest share (the one ``p`` tests); -1 when no
        instance has it.
    p : ndarray of float, shape (n_features,)
        One-sided Fisher exact (hypergeometric) p-value of the over-representation in that class.
    q : ndarray of float, shape (n_features,)
        Benjamini-Hochberg adjusted ``p`` over all features.
    over : ndarray of bool, shape (n_features,)
        Whether the feature is over-represented in that class (its share there above its share overall): only
        then is it *enriched in* it (:meth:`enriched_labels`).
    """

    classes: np.ndarray
    support: np.ndarray
    class_sizes: np.ndarray
    enriched: np.ndarray
    p: np.ndarray
    q: np.ndarray
    over: np.ndarray | None = None

    def enriched_labels(self) -> np.ndarray:
        """The class each feature is enriched in (an object array; ``None`` for a feature of zero support or one
        over-represented in no class)."""
        out = np.empty(len(self.enriched), dtype=object)
        has = (self.enriched >= 0) & (True if self.over is None else self.over)
        out[has] = self.classes[self.enriched[has]]
        return out

    def frame(self, digits: int = 12) -> pd.DataFrame:
        """The columns of ``selection.csv``: ``enriched_in``, ``p_enrichment``, ``q_enrichment``, ``support_<class>``.

        Parameters
        ----------
        digits : int
            Significant digits kept of p and q (so a file does not change with the last bit of a
            library's floating point).

        Returns
        -------
        pandas.DataFrame
            One row per feature (the table's order); ``enriched_in`` is empty for a feature of zero support;
            the support columns follow the sorted classes, named as the labels are (``str``).

        Examples
        --------
        >>> e = class_enrichment([[1], [0], [0]], [1, 0, 0])
        >>> f = e.frame()
        >>> f.columns.tolist()
        ['enriched_in', 'p_enrichment', 'q_enrichment', 'support_0', 'support_1']
        >>> f.to_numpy().tolist()
        [['1', 0.333333333333, 0.333333333333, 0, 1]]
        """
        labels = self.enriched_labels()
        cols = {"enriched_in": ["" if c is None else str(c) for c in labels],
                "p_enrichment": _significant(self.p, digits), "q_enrichment": _significant(self.q, digits)}
        for j, c in enumerate(self.classes):
            cols[f"support_{c}"] = self.support[:, j]
        return pd.DataFrame(cols)


def _significant(a: np.ndarray, digits: int) -> np.ndarray:
    # through the decimal text: the shortest float that prints with `digits` significant digits
    return np.array([float(f"{v:.{digits}g}") for v in np.asarray(a, dtype=float)], dtype=float)


def class_enrichment(X, y) -> Enrichment:
    """Support per class, enriched class, hypergeometric p-value and BH q-value of every feature.

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features)
        A binary table (any nonzero value counts as 1), e.g. a ``FeatureTable``'s ``X``, closed under
        ancestors (nothing here depends on it).
    y : array-like, shape (n_instances,)
        Class labels.

    Returns
    -------
    Enrichment

    Raises
    ------
    ValueError
        When ``y`` does not have one label per row of ``X``, or the table has no instance.

    Notes
    -----
    With ``N`` instances, a feature's support ``K``, the enriched class's size ``n`` and its support
    ``k`` there: ``p = hypergeom.sf(k - 1, N, K, n)``, the probability that ``n`` instances drawn
    without replacement hold ``k`` or more of the ``K`` that have the feature. The enriched class
    maximises ``k / n`` (exactly, as fractions); ties go to the first class in sorted order. A feature is
    enriched in that class only when it is over-represented there (``k / n > K / N``): a feature whose share
    is the same in every class (the root, which every instance has) or of zero support has no class
    (``enriched_in`` empty); its ``p`` is still the test's for the class of the highest share (1 for the
    root, ``p = 1`` for zero support). ``q`` adjusts all features' p-values together
    (Benjamini-Hochberg), so it depends on how many features the table has.

    Examples
    --------
    Four instances, two of each class; feature 0 is in both of class ``a`` and one of ``b``,
    feature 1 in no instance:

    >>> e = class_enrichment([[1, 0], [1, 0], [1, 0], [0, 0]], ["a", "a", "b", "b"])
    >>> e.support.tolist(), e.enriched.tolist(), e.p.tolist(), e.q.tolist()
    ([[2, 1], [0, 0]], [0, -1], [0.5, 1.0], [1.0, 1.0])

    A feature every instance has is in no class more than in another: no class.

    >>> class_enrichment([[1], [1], [1], [1]], ["a", "a", "b", "b"]).enriched_labels().tolist()
    [None]
    """
    X = sp.csr_matrix(X) if sp.issparse(X) else sp.csr_matrix(np.asarray(X))
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y has shape {y.shape}, expected ({X.shape[0]},)")
    if X.shape[0] == 0:
        raise ValueError("the table has no instance")
    classes, codes = np.unique(y, return_inverse=True)
    N, m = X.shape[0], len(classes)
    onehot = sp.csr_matrix((np.ones(N, dtype=np.int64), (np.arange(N), codes.ravel())), shape=(N, m))
    xb = X.astype(bool).astype(np.int64)
    support = np.asarray((xb.T @ onehot).todense(), dtype=np.int64).reshape(X.shape[1], m)
    sizes = np.bincount(codes.ravel(), minlength=m).astype(np.int64)
    K = support.sum(axis=1)
    # the highest k / n, exactly: k_j / n_j > k_i / n_i  <=>  k_j * n_i > k_i * n_j (integers; a loop over the
    # few classes only). `>` keeps the earlier class on a tie.
    best = np.zeros(X.shape[1], dtype=np.int64)
    for j in range(1, m):
        better = support[:, j] * sizes[best] > support[np.arange(X.shape[1]), best] * sizes[j]
        best[better] = j
    k = support[np.arange(X.shape[1]), best]
    n = sizes[best]
    p = np.asarray(hypergeom.sf(k - 1, N, K, n), dtype=float).reshape(-1)
    none = K == 0
    p[none] = 1.0
    p = np.clip(p, 0.0, 1.0)  # sf's floating point may pass 1 by an ulp
    best[none] = -1
    over = ~none & (k * N > K * n)  # over-represented in its best class: k / n > K / N
    q = false_discovery_control(p, method="bh") if p.size else p.copy()
    return Enrichment(classes=classes, support=support, class_sizes=sizes, enriched=best, p=p,
                      q=np.asarray(q, dtype=float), over=over)


def enrichment_columns(columns) -> list[str]:
    """The enrichment columns among ``columns`` (of a ``selection.csv``), in their order.

    Examples
    --------
    >>> enrichment_columns(["feature", "support", "enriched_in", "p_enrichment", "support_a", "selected"])
    ['enriched_in', 'p_enrichment', 'support_a']
    """
    return [c for c in columns if c in ENRICHMENT_COLUMNS or str(c).startswith("support_")]


def _fmt(v) -> str:
    return f"{float(v):.2g}"


def enrichment_text(enriched_in, p, q) -> str:
    """``"enriched in X (p=…, q=…)"``, the way a report shows a feature's enrichment (``""`` without a class).

    Examples
    --------
    >>> enrichment_text("pro-longevity", 0.000123, 0.0456)
    'enriched in pro-longevity (p=0.00012, q=0.046)'
    >>> enrichment_text(float("nan"), 1.0, 1.0)
    ''
    """
    if enriched_in is None or (isinstance(enriched_in, float) and enriched_in != enriched_in) or enriched_in == "":
        return ""  # no class (a feature of zero support), or a file without the column's value
    return f"enriched in {enriched_in} (p={_fmt(p)}, q={_fmt(q)})"


def enrichment_texts(frame: pd.DataFrame) -> list[str] | None:
    """:func:`enrichment_text` of each row of a selection frame (``selection.csv``); ``None`` when it has no
    enrichment columns (a table without labels, a file of an earlier kgfs).

    Examples
    --------
    >>> enrichment_texts(pd.DataFrame({"enriched_in": ["a", ""], "p_enrichment": [0.01, 1.0],
    ...                                "q_enrichment": [0.02, 1.0]}))
    ['enriched in a (p=0.01, q=0.02)', '']
    >>> enrichment_texts(pd.DataFrame({"feature": ["x"]})) is None
    True
    """
    if not set(ENRICHMENT_COLUMNS) <= set(frame.columns):
        return None
    return [enrichment_text(c, p, q) for c, p, q in
            zip(frame["enriched_in"], frame["p_enrichment"], frame["q_enrichment"], strict=True)]
