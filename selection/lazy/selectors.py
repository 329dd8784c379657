"""Lazy hierarchical feature selection (a feature subset per test instance) and lazy classifiers.

Methods (da Silva, Plastino & Freitas 2020, sections 3-4; HIP and MR from Wan & Freitas 2015):

- :class:`RPV` (Algorithm 1): keep the positive values of the test instance, except an ancestor
  whose relevance is *lower* than that of one of its positive descendants; every negative value
  is removed. ``relevance="lazyr"`` (RPV), ``"ig"`` (RPV-IG) or ``"r"`` (RPV-R).
- :class:`HIP`: the most specific positive values and the most general negative values (the
  "core" values, which imply all the others).
- :class:`MR`: on every path of the DAG, the most relevant value (R of Eq. 1 by default):
  positive values compete on the paths from each positive feature up to the roots, negative
  values on the paths from each negative feature down to the leaves.
- :class:`AllPositive` / :class:`AllNegative`: every positive / every negative value.

Each is a scikit-learn estimator (:class:`~selection.base.HierarchicalEstimator`) whose
``fit(X, y)`` precomputes what Algorithm 1 calls the eager part (relevances, ancestor sets,
and from them one sparse "removal" matrix), and whose :meth:`LazySelector.select_for`
returns a sparse boolean mask (n_test x n_features) for a batch of test instances. The
selection of a whole batch is a few sparse products with the ancestor/descendant matrices of
the hierarchy; there is no loop over instances or paths (the per-instance loops live in the
tests, as references).

**Not transformers.** A lazy selector has no single feature subset, so it is deliberately
not a scikit-learn selector (no ``SelectorMixin``): it has ``fit`` and ``select_for`` but no
``transform``. Put in a ``Pipeline`` before a classifier it fails at ``fit`` (scikit-learn:
"All intermediate steps should be transformers") instead of silently keeping every column,
and ``get_support()`` raises a ``ValueError`` that says what to do. To classify with one,
wrap it with the lazy classifier that consumes its masks:
``LazySelectionClassifier(selector=RPV(h), classifier=LazyNaiveBayes())``
(:mod:`selection.lazy.estimator`), an ordinary classifier that works in ``Pipeline``,
``cross_val_score`` and ``GridSearchCV``.

The lazy classifiers that consume these masks are in :mod:`selection.lazy.classifiers`.

Behaviour on awkward input (tested in ``tests/selection/lazy/test_selectors.py``):

- Test data with a different number of columns than training, or (for DataFrames and
  :class:`~kg.table.FeatureTable`) different column names, raises ``ValueError``.
- Values outside {0, 1} raise ``ValueError`` naming the row and column, unless the selector
  or classifier was given ``binarize=t``.
- Classes that occur only at test time cannot be predicted: ``classes_`` (and ``k`` of LazyR)
  come from the training labels; ``predict_proba`` has one column per training class.
- A feature with no positive training occurrence has LazyR(X=1) = 0 and R = 0 (see
  :mod:`selection.measures.values`): RPV keeps it when it is positive in a test instance unless a
  positive descendant is more relevant (it never removes an ancestor, since nothing is less
  relevant than 0); Naive Bayes scores it with the Laplace estimate ``1 / (n_c + 2)``.
- Test rows that violate the implication (child = 1, parent = 0): with ``check_implication=False``
  (the default of RPV, HIP, All-Pos and All-Neg) every selector applies its rule to the values
  as given, as the authors' Java code does: RPV's Algorithm 1 literally, HIP each positive value
  removing its ancestors and each negative value its descendants, MR its path rule literally
  (see :class:`MR`). With ``check_implication=True`` (MR's default) such a row raises
  ``ValueError`` naming the first violating cell (close the table first, e.g.
  ``FeatureTable(..., check="repair")``). Training rows only feed the relevance counts and are
  used as they are.
- ``smoothing`` (RPV, RPV-R, MR): ``None`` uses the papers' equations (raw frequencies);
  ``"laplace"`` the Laplace-corrected estimates of the authors' code (see
  :mod:`selection.measures.values`). ``docs/rpv_authors_code.md`` lists the options and the
  hierarchy that reproduce the authors' code.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted, validate_data

from kg.hierarchy import binary_csr
from kg.sklearn_compat import StrOptions
from selection.base import BINARIZE, HIERARCHY, HierarchicalEstimator, as_binary_csr
from selection.lazy.masks import as_mask, mean_fraction_selected
from selection.measures.relevance import ClassCounts
from selection.measures.values import value_relevance

__all__ = [
    "LazySelector",
    "RPV",
    "HIP",
    "MR",
    "AllPositive",
    "AllNegative",
    "mean_fraction_selected",
    "as_mask",
]


# ---------------------------------------------------------------------------- helpers
_BLOCK_CELLS = 4_000_000  # dense scratch per row block (bool cells), bounds memory


def _filtered(matrix: sp.csr_matrix, keep: np.ndarray) -> sp.csr_matrix:
    """The entries of ``matrix`` (as coo) where ``keep`` (one bool per stored entry) is True."""
    coo = matrix.tocoo()
    return sp.csr_matrix(
        (np.ones(int(keep.sum()), np.float64), (coo.row[keep], coo.col[keep])), shape=matrix.shape
    )


def _minus(a: sp.csr_matrix, b: sp.csr_matrix) -> sp.csr_matrix:
    """Entries of 0/1 matrix ``a`` not stored (non-zero) in ``b``."""
    a = sp.csr_matrix(a, dtype=np.float64)
    return binary_csr(a - a.multiply(b.astype(bool)), dtype=bool)


def _extremes(k: sp.csr_matrix, reach: sp.csr_matrix) -> sp.csr_matrix:
    """The pairs ``(i, j)`` of 0/1 ``k`` such that no ``i2`` with ``reach[i, i2]`` has ``(i2, j)`` in ``k``.

    With the ancestor matrix as ``reach`` this keeps, for each ``j``, the most general ``i``;
    with the descendant matrix the most specific ones.
    """
    return _minus(k, (reach.astype(np.float64) @ k).tocsr())


def _dense_blocks(X: sp.csr_matrix, fn) -> sp.csr_matrix:
    """Apply ``fn(x_block_csr, x_block_dense_bool, first_row) -> bool block`` to row blocks of bounded
    size (``_BLOCK_CELLS`` cells) and stack the results as a csr bool matrix."""
    n_rows, n = X.shape
    step = max(1, int(_BLOCK_CELLS // max(1, n)))
    X = sp.csr_matrix(X)
    out = []
    for s in range(0, n_rows, step):
        xb = X[s : s + step]
        xd = np.zeros(xb.shape, dtype=bool)
        xd[np.repeat(np.arange(xb.shape[0]), np.diff(xb.indptr)), xb.indices] = True
        out.append(sp.csr_matrix(fn(xb, xd, s)))
    return sp.vstack(out, format="csr") if out else sp.csr_matrix((0, n), dtype=bool)


# ---------------------------------------------------------------------------- selectors
#: The constraints every lazy selector declares; subclasses add theirs.
_BASE_CONSTRAINTS = {"hierarchy": HIERARCHY, "check_implication": ["boolean"], "binarize": BINARIZE}
#: The relevance measures and smoothings RPV and MR accept.
_RELEVANCE = [StrOptions({"lazyr", "ig", "r", "value_ig"})]
_SMOOTHING = [StrOptions({"laplace"}), None]


class LazySelector(HierarchicalEstimator):
    """Base of the lazy selectors: ``fit`` precomputes, :meth:`select_for` selects per instance.

    Not a transformer (see the module docstring): there is no ``transform``, and
    :meth:`get_support` raises; wrap a lazy selector in
    :class:`~selection.lazy.estimator.LazySelectionClassifier` to classify with it.

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
        Subclasses take it as their first parameter; ``None`` is a flat hierarchy.
    check_implication : bool
        Subclasses take it: ``True`` refuses test rows that violate the implication,
        ``False`` applies the rule to them as they are (see the module docstring).

    Attributes
    ----------
    classes_ : ndarray
        Training classes (after ``fit``; None for the unsupervised methods).
    relevance_ : ndarray (n_features,)
        The relevance used (after ``fit``, where the method uses one).
    n_selected_ : ndarray (n_test,)
        Number of features selected for each instance of the last ``select_for`` call.
    mean_n_selected_ : float
        Its mean.
    mean_fraction_selected_ : float
        ``mean_n_selected_ / n_features``.

    Examples
    --------
    >>> import numpy as np
    >>> sel = AllPositive().fit(np.array([[1, 0], [1, 1]]))
    >>> sel.select_for(np.array([[0, 1]])).toarray().tolist()
    [[False, True]]
    """

    _parameter_constraints = dict(_BASE_CONSTRAINTS)

    def fit(self, X, y=None):
        """Check the parameters, then precompute the relevances and removal matrices from ``X``, ``y``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_instances, n_features)
            Binary training rows.
        y : array-like of shape (n_instances,) or None
            Class labels (None only for the unsupervised methods).

        Returns
        -------
        self
        """
        return super().fit(X, y)

    def _fit(self, X, y, hierarchy):
        counts = ClassCounts(X, y) if y is not None else None
        self.classes_ = counts.classes if counts is not None else None
        self._prepare(X, counts, hierarchy)

    def _prepare(self, X, counts, hierarchy) -> None:  # pragma: no cover - overridden
        pass

    def get_support(self, indices: bool = False):
        """Raise ``ValueError``: a lazy selector has no single subset (see the module docstring).

        Eager code that asks any selector for its support (``kgfs select``, a hand-made
        evaluation loop) gets this explanation instead of an all-True mask that would keep
        every column.

        Parameters
        ----------
        indices : bool
            Ignored (scikit-learn's ``get_support`` signature).

        Returns
        -------
        Never returns.

        Examples
        --------
        >>> RPV().get_support()
        Traceback (most recent call last):
        ...
        ValueError: RPV is a lazy selector: it selects a feature subset per test instance (select_for) and has
        no single support; to classify with it, wrap it:
        LazySelectionClassifier(selector=RPV(...), classifier=LazyNaiveBayes()) from selection.lazy
        """
        name = type(self).__name__
        raise ValueError(
            f"{name} is a lazy selector: it selects a feature subset per test instance (select_for) and has "
            f"no single support; to classify with it, wrap it: "
            f"LazySelectionClassifier(selector={name}(...), classifier=LazyNaiveBayes()) from selection.lazy"
        )

    def _validate_test(self, X) -> sp.csr_matrix:
        check_is_fitted(self, "hierarchy_")
        names = getattr(X, "feature_names", None)
        if names is not None and hasattr(X, "hierarchy") and hasattr(X, "X"):  # a FeatureTable
            if getattr(self, "hierarchy", None) is not None:
                expected = self.hierarchy_.node_ids
                got = np.asarray(names).astype(str)
                if got.shape != expected.shape or not np.array_equal(got, expected):
                    diff = np.flatnonzero(got[: expected.size] != expected[: got.size])
                    where = (f" (first difference at column {int(diff[0])}: "
                             f"{str(got[diff[0]])!r} vs {str(expected[diff[0]])!r})") if diff.size else ""
                    raise ValueError(
                        f"test table has {got.size} features that differ from the {expected.size} "
                        f"training features{where}"
                    )
            X = X.X
        X = validate_data(self, X, accept_sparse="csr", reset=False, dtype=np.float64, ensure_min_samples=0)
        X = as_binary_csr(X, getattr(self, "binarize", None), what="X_test")
        if getattr(self, "check_implication", False) and self.hierarchy_.n_edges and X.shape[0]:
            bad = self.hierarchy_.violations(X)
            if bad.nnz:
                self._raise_unclosed(X, bad)
        return X

    def _raise_unclosed(self, X, bad) -> None:
        """The ``ValueError`` for test rows that violate the implication (``check_implication=True``)."""
        bad = bad.tocoo()
        first = np.lexsort((bad.col, bad.row))[0]
        t, p = int(bad.row[first]), int(bad.col[first])
        h = self.hierarchy_
        child = next(int(c) for c in np.sort(h.child_indices(p)) if X[t, c])
        ids = h.node_ids.tolist()
        raise ValueError(
            f"{type(self).__name__} needs test rows closed under the hierarchy: instance {t} has "
            f"{ids[child]!r} = 1 but its parent {ids[p]!r} = 0 ({bad.nnz} such cells); close the table "
            "first, or pass check_implication=False to apply the rule to the rows as they are"
        )

    def select_for(self, X) -> sp.csr_matrix:
        """The features selected for each test instance.

        Also sets ``n_selected_``, ``mean_n_selected_`` and ``mean_fraction_selected_``.

        Parameters
        ----------
        X : array-like, sparse matrix or FeatureTable of shape (n_test, n_features)
            Binary test rows over the training features (same columns, same names).

        Returns
        -------
        scipy.sparse.csr_matrix of bool (n_test x n_features)
            Canonical format; row ``t`` holds the features selected for instance ``t``.

        Examples
        --------
        >>> import numpy as np
        >>> sel = AllPositive().fit(np.array([[1, 0], [0, 1]]))
        >>> sel.select_for(np.array([[1, 1], [0, 0]])).toarray().astype(int).tolist()
        [[1, 1], [0, 0]]
        """
        X = self._validate_test(X)
        mask = self._select(X) if X.shape[0] else sp.csr_matrix(X.shape, dtype=bool)
        if not (mask.dtype == bool and mask.has_canonical_format):
            mask = binary_csr(mask, dtype=bool)
        self.n_selected_ = np.diff(mask.indptr).astype(np.int64)
        self.mean_n_selected_ = float(self.n_selected_.mean()) if X.shape[0] else 0.0
        self.mean_fraction_selected_ = self.mean_n_selected_ / X.shape[1]
        return mask

    def _select(self, X: sp.csr_matrix) -> sp.csr_matrix:  # pragma: no cover - overridden
        raise NotImplementedError


class RPV(LazySelector):
    """Select Relevant Positive feature Values (Algorithm 1 of da Silva et al. 2020).

    For a test instance ``t``: every feature with value 0 is removed; a feature ``a`` with
    value 1 is removed when some feature ``d`` with value 1 in ``t`` has ``a`` among its
    ancestors and ``Relevance[a] < Relevance[d]`` (strictly; equal relevance keeps both).
    Everything else is selected. Removal is never undone, so the result does not depend on
    the order the features are processed in (the paper's argument; a property test checks it).

    **Ties.** An ancestor whose relevance *equals* that of a positive descendant is kept: the
    comparison is strict in Algorithm 1 (line 9) and in the authors' code (``RPV.java``:
    ``if (_r[_st.get(key)] < _r[_st.get(go)])``), and the paper's text keeps "those positive
    feature values whose relevance value is higher than (or equal to) the relevance of all its
    positive descendants" (section 4.2). "Equal" is equality of the computed float64 values:

    - ``smoothing=None`` (the paper's default): for two classes, LazyR values that are equal in
      exact arithmetic are computed equal (the same frequency, or mirror frequencies ``p`` and
      ``1 - p``, whose two squared terms are the same pair), so such a tie keeps both.
    - ``smoothing="laplace"`` with two classes (the authors' code): LazyR is computed in the
      authors' floating-point steps (:func:`~selection.measures.values.lazy_r`), so equality
      and its absence are theirs. Mirror-image estimates ``p`` and ``1 - p`` of the second
      class have the same exact LazyR, but their ``(p - (1 - p))^2`` need not give the same
      double: 2/3 gives 0.11111111111111106 and 1/3 gives 0.11111111111111117, so a positive
      descendant with estimate 1/3 removes an ancestor with 2/3 (not the reverse), while 3/5
      and 2/5 give the same double and keep both. No simpler rule describes it (of the
      fractions below 1/2 with denominators under 300, 15% give the larger double, 14% the
      smaller, 71% the same as their mirror), and it depends on which class is second: kgfs
      takes the second of the sorted training labels, the authors the class value 1 (the
      second declared value; ``{0,1}`` in their files). On rpv/DM-BP this decides 6 of 132
      test instances (``docs/rpv_authors_code.md``).

    Vectorised form: ``K[d, a] = 1`` when ``a`` is an ancestor of ``d`` with lower relevance
    (precomputed in ``fit``); the removed set of a whole batch is ``X_test @ K > 0``, one
    sparse product. On rows closed under the hierarchy (the usual case) ``K`` is first
    reduced to its pairs where ``d`` is a most general member of ``{d below a: rel[d] >
    rel[a]}``: any positive member implies a positive most general one, and the reduced
    product is several times cheaper. Rows that violate the implication use the full ``K``.

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
    relevance : {"lazyr", "ig", "r", "value_ig"}
        ``"lazyr"``: LazyR(X=1) of Eq. 2 (RPV); ``"ig"``: information gain (RPV-IG); ``"r"``:
        R of Eq. 1 (RPV-R); ``"value_ig"``: IG of the positive value (an extra, not in the paper).
    smoothing : {None, "laplace"}, default None
        Estimates of ``P(c | X=x)`` in LazyR and R: raw frequencies (the paper's equations) or
        ``(n + 1) / (n + k)`` (the authors' code); see :mod:`selection.measures.values`.
    check_implication : bool, default False
        ``False``: Algorithm 1 on the test rows as they are (the authors' code); ``True``:
        refuse a test row in which a feature is 1 and a parent 0.
    binarize : float or None
        See :mod:`selection.base`.

    Examples
    --------
    >>> import numpy as np
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("B", "A"), ("D", "C")], nodes=["A", "B", "C", "D"])
    >>> X = np.array([[1, 1, 0, 0], [1, 0, 1, 0], [0, 0, 1, 1]])
    >>> rpv = RPV(h).fit(X, ["C1", "C2", "C2"])
    >>> rpv.relevance_.tolist()             # LazyR(A=1), ..., LazyR(D=1)
    [0.0, 0.5, 0.5, 0.5]
    >>> rpv.select_for(np.array([[1, 1, 1, 1]])).toarray().astype(int).tolist()  # A < B removes A
    [[0, 1, 1, 1]]
    >>> RPV(h, smoothing="laplace").fit(X, ["C1", "C2", "C2"]).relevance_.round(4).tolist()
    [0.0, 0.0556, 0.125, 0.0556]
    """

    _parameter_constraints = {**_BASE_CONSTRAINTS, "relevance": _RELEVANCE, "smoothing": _SMOOTHING}

    def __init__(self, hierarchy=None, *, relevance="lazyr", smoothing=None, check_implication=False,
                 binarize=None):
        self.hierarchy = hierarchy
        self.relevance = relevance
        self.smoothing = smoothing
        self.check_implication = check_implication
        self.binarize = binarize

    def _prepare(self, X, counts, hierarchy):
        self._build(hierarchy, value_relevance(self.relevance, counts=counts, smoothing=self.smoothing))

    def _build(self, hierarchy, rel: np.ndarray) -> None:
        """Precompute the removal matrices from the relevance of each feature's positive value."""
        self.relevance_ = rel = np.asarray(rel, dtype=np.float64)
        anc = hierarchy.ancestor_matrix.tocoo()  # row: feature d, col: ancestor a
        self.removal_matrix_ = _filtered(anc, rel[anc.col] < rel[anc.row])
        # For closed rows only the most general members of {d below a: rel[d] > rel[a]} need
        # checking (a positive member implies its ancestors in the set are positive too):
        # drop (d, a) when some ancestor b of d also removes a.
        self.closed_removal_matrix_ = _extremes(self.removal_matrix_, hierarchy.ancestor_matrix).astype(np.float64)
        # one product gives both the closure check (X @ P) and the removals (X @ K_closed)
        # boolean matrices: the product is a logical or-and, one byte per cell
        self._pk = sp.hstack([hierarchy.parent_matrix, self.closed_removal_matrix_], format="csr").astype(bool)

    def _select(self, X):
        # Row blocks with a bounded dense scratch (~4M cells): the removals are read off a
        # dense block at the positions of X's entries, which avoids sorting sparse products.
        n_test, n = X.shape
        X = sp.csr_matrix(X, dtype=bool)
        X.sort_indices()
        keep = np.zeros(X.nnz, dtype=bool)
        step = max(1, int(_BLOCK_CELLS // max(1, n)))
        for s in range(0, n_test, step):
            e = min(n_test, s + step)
            lo, hi = X.indptr[s], X.indptr[e]
            if hi == lo:
                continue
            xb = X[s:e]
            prod = (xb @ self._pk).toarray()
            rows = np.repeat(np.arange(e - s), np.diff(X.indptr[s : e + 1]))
            cols = X.indices[lo:hi]
            has_child = prod[:, :n]
            xd = np.zeros((e - s, n), dtype=bool)
            xd[rows, cols] = True
            if (has_child & ~xd).any():  # a row violates the implication: the literal rule
                killed = (xb.astype(np.float64) @ self.removal_matrix_).toarray() > 0
            else:
                killed = prod[:, n:]
            keep[lo:hi] = ~killed[rows, cols]
        out = sp.csr_matrix((keep, X.indices.copy(), X.indptr.copy()), shape=X.shape)
        out.eliminate_zeros()
        out.has_sorted_indices = True
        return out


class HIP(LazySelector):
    """Select Hierarchical Information-Preserving features (Wan & Freitas 2015).

    Each positive value removes all its ancestors, each negative value all its descendants;
    what is never removed is selected. On a table closed under the hierarchy this is exactly
    the most specific positive values (no positive descendant) and the most general negative
    values (no negative ancestor): the values that imply all the others. The relevance of the
    features plays no role, and ``y`` is not used.

    Vectorised: on closed rows, a positive value is kept iff it has no positive child
    (``X @ P``) and a negative value iff all its parents are positive (``X @ P^T``), with ``P``
    the parent matrix. On rows that violate the implication the original rule is applied:
    ``f`` survives iff it is not an ancestor of a positive value (``X @ A == 0``) and all its
    ancestors are positive (``X @ D == n_ancestors``), ``A``/``D`` the ancestor/descendant
    matrices. Roots without a positive descendant are
    selected whatever their value: a root with value 0 is a most general negative value.

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
    check_implication : bool, default False
        ``False``: the rule on the test rows as they are (the original code); ``True``: refuse
        a test row in which a feature is 1 and a parent 0.
    binarize : float or None
        See :mod:`selection.base`.

    Examples
    --------
    >>> import numpy as np
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("b", "a"), ("c", "a")], nodes=["a", "b", "c"])
    >>> HIP(h).fit(np.eye(3)[[0, 1, 2, 0]] + [[0, 0, 0], [1, 0, 0], [1, 0, 0], [0, 0, 0]],
    ...            [0, 1, 0, 1]).select_for(np.array([[1, 1, 0]])).toarray().tolist()
    [[False, True, True]]
    """

    _supervised = False

    def __init__(self, hierarchy=None, *, check_implication=False, binarize=None):
        self.hierarchy = hierarchy
        self.check_implication = check_implication
        self.binarize = binarize

    def _prepare(self, X, counts, hierarchy):
        self.n_ancestors_ = np.diff(hierarchy.ancestor_matrix.indptr).astype(np.int64)
        self._anc = hierarchy.ancestor_matrix.astype(np.float64)
        self._desc = hierarchy.descendant_matrix.astype(np.float64)
        pm = hierarchy.parent_matrix.astype(np.float32)  # small counts: exact in float32, half the traffic
        self._pp = sp.hstack([pm, pm.T], format="csr")  # (t, p) has a positive child | (t, f) positive parents
        self._n_par = np.diff(hierarchy.parent_matrix.indptr)

    def _select(self, X):
        n = X.shape[1]
        roots = self.n_ancestors_ == 0

        def block(xb, xd, start):
            prod = sp.csr_matrix(xb.astype(np.float32) @ self._pp).toarray()
            has_child, n_pos_par = prod[:, :n] > 0, prod[:, n:]
            if not (has_child & ~xd).any():
                # closed rows: "no positive descendant" = no positive child, "all ancestors
                # positive" = all parents positive; products with the parent matrix only
                pos = xd & ~has_child
                neg = ~xd & ((n_pos_par == self._n_par) & (self._n_par > 0) | roots)
                return pos | neg
            # rows violating the implication: the original rule with all ancestors
            killed = (xb @ self._anc).toarray() > 0
            all_anc_pos = (xb @ self._desc).toarray() == self.n_ancestors_
            return ~killed & (all_anc_pos | roots)

        return _dense_blocks(X, block)


class MR(LazySelector):
    """Select the Most Relevant feature on each path (Wan & Freitas 2015).

    For every positive value ``x`` and every path from ``x`` up to a root, the most relevant
    feature of the path is kept and the others are removed; for every negative value and
    every path from it down to a leaf, likewise. Removal is permanent (as in the original
    Java code), so a feature survives only if it wins on every such path it lies on. Ties go
    to the feature nearer to ``x`` (the original code's tie-break): among positive values the
    more specific, among negative values the more general.

    On rows closed under the hierarchy that is, without enumerating paths:

    - a positive ``f`` is selected iff ``R(f) >= R(a)`` for every ancestor ``a`` and
      ``R(f) > R(d)`` for every positive descendant ``d``;
    - a negative ``f`` is selected iff ``R(f) >= R(d)`` for every descendant ``d`` and
      ``R(f) > R(a)`` for every negative ancestor ``a``.

    The instance-dependent conditions are one sparse product per block of test rows with
    matrices precomputed in ``fit``: "some positive descendant is at least as relevant" through
    the most general such descendants (as for RPV), and "every ancestor at least as relevant
    as f is positive" through the most specific such ancestors (positive values are closed
    upward). The tests compare against brute-force path enumeration.

    On rows that violate the implication (``check_implication=False``) the same path rule,
    applied literally as the Java code does, gives for any feature ``f``: if some feature at
    or below ``f`` is positive, ``R(f) >= R(a)`` for every ancestor ``a`` and no descendant
    ``m`` with ``R(m) >= R(f)`` has a positive value at or below it; if some feature at or
    above ``f`` is negative, ``R(f) >= R(d)`` for every descendant ``d`` and no ancestor ``m``
    with ``R(m) >= R(f)`` has a negative value at or above it. (On closed rows this reduces to
    the two conditions above.)

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
    relevance : {"r", "lazyr", "ig", "value_ig"}
        Feature relevance; Wan & Freitas use R (Eq. 1), the default.
    smoothing : {None, "laplace"}, default None
        Estimates of ``P(c | X=x)`` in R and LazyR: raw frequencies (the equations) or
        ``(n + 1) / (n + k)`` (the AIRE and RPV authors' code).
    check_implication : bool, default True
        ``True``: refuse a test row in which a feature is 1 and a parent 0; ``False``: the
        path rule literally on such rows (the authors' code).
    binarize : float or None

    Examples
    --------
    >>> import numpy as np
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("b", "a")], nodes=["a", "b"])
    >>> mr = MR(h).fit(np.array([[1, 1], [1, 0], [0, 0], [1, 1]]), [1, 0, 0, 1])
    >>> mr.relevance_.round(3).tolist()
    [0.889, 2.0]
    >>> mr.select_for(np.array([[1, 1], [0, 0], [1, 0]])).toarray().tolist()
    [[False, True], [False, True], [True, True]]
    """

    _parameter_constraints = {**_BASE_CONSTRAINTS, "relevance": _RELEVANCE, "smoothing": _SMOOTHING}

    def __init__(self, hierarchy=None, *, relevance="r", smoothing=None, check_implication=True, binarize=None):
        self.hierarchy = hierarchy
        self.relevance = relevance
        self.smoothing = smoothing
        self.check_implication = check_implication
        self.binarize = binarize

    def _prepare(self, X, counts, hierarchy):
        self._build(hierarchy, value_relevance(self.relevance, counts=counts, smoothing=self.smoothing))

    def _build(self, hierarchy, rel: np.ndarray) -> None:
        """Precompute the matrices of the path rule from the relevance of each feature."""
        self.relevance_ = rel = np.asarray(rel, dtype=np.float64)
        n = rel.size
        anc = hierarchy.ancestor_matrix.tocoo()  # (d, a)
        max_anc = np.full(n, -np.inf)
        max_desc = np.full(n, -np.inf)
        np.maximum.at(max_anc, anc.row, rel[anc.col])
        np.maximum.at(max_desc, anc.col, rel[anc.row])
        self._pos_ok = rel >= max_anc  # beats all ancestors (ties to the more specific)
        self._neg_ok = rel >= max_desc  # beats all descendants (ties to the more general)
        # K[a, f] = 1: a is an ancestor of f with R(a) >= R(f); a negative such a removes f.
        # In a closed row the positive values are closed upward, so "all of B(f) positive"
        # holds iff its most specific members are positive: keep only those (Kmin).
        k = _filtered(anc, rel[anc.col] >= rel[anc.row]).T.tocsr()
        # drop (a, f) when a has a member of B(f) below it (the transpose of the rule above)
        kmin = _extremes(k, hierarchy.descendant_matrix).astype(np.float64)
        self._neg_need = np.asarray(kmin.sum(axis=0)).ravel().astype(np.float32)
        # A positive d removes its ancestors a with R(a) <= R(d); in a closed row the most
        # general such d below a suffice (as for RPV).
        kpos_all = _filtered(anc, rel[anc.col] <= rel[anc.row])  # (m, f): m below f, R(m) >= R(f)
        kpos = _extremes(kpos_all, hierarchy.ancestor_matrix)
        # one product per row block: closure check | positive removals | negative blockers
        self._prod = sp.hstack([hierarchy.parent_matrix, kpos, kmin], format="csr").astype(np.float32)
        # the literal rule on rows that violate the implication (see the class docstring)
        self._open = (hierarchy.ancestor_matrix.astype(np.float32), hierarchy.descendant_matrix.astype(np.float32),
                      np.diff(hierarchy.ancestor_matrix.indptr), kpos_all.astype(np.float32),
                      k.T.tocsr().astype(np.float32))

    def _open_block(self, xb, xd) -> np.ndarray:
        """The path rule applied literally to rows that violate the implication."""
        anc, desc, n_anc, below, above_t = self._open
        xf = xb.astype(np.float32)
        pos_at_or_below = xd | ((xf @ anc).toarray() > 0)
        neg_at_or_above = ~xd | ((xf @ desc).toarray() < n_anc)
        beaten_below = (sp.csr_matrix(pos_at_or_below, dtype=np.float32) @ below).toarray() > 0
        beaten_above = np.asarray(above_t @ neg_at_or_above.T.astype(np.float32)).T > 0
        return ((~pos_at_or_below | self._pos_ok) & ~beaten_below
                & (~neg_at_or_above | self._neg_ok) & ~beaten_above)

    def _select(self, X):
        n = X.shape[1]

        def block(xb, xd, start):
            prod = (xb.astype(np.float32) @ self._prod).toarray()
            if ((prod[:, :n] > 0) & ~xd).any():  # only reached with check_implication=False
                return self._open_block(xb, xd)
            pos = xd & self._pos_ok & ~(prod[:, n : 2 * n] > 0)
            # negatives: f with value 0, neg_ok, and every most specific ancestor a with
            # R(a) >= R(f) positive (features without such ancestors: need = 0)
            neg = ~xd & self._neg_ok & (prod[:, 2 * n :] == self._neg_need)
            return pos | neg

        return _dense_blocks(X, block)


class AllPositive(LazySelector):
    """All-Pos: every feature with value 1 in the test instance (a baseline of the RPV paper).

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
        Not used by the rule; validated against ``X`` like every selector's.
    check_implication : bool, default False
        ``True`` refuses a test row in which a feature is 1 and a parent 0.
    binarize : float or None
        See :mod:`selection.base`.

    Examples
    --------
    >>> import numpy as np
    >>> AllPositive().fit(np.eye(2)).select_for(np.array([[1, 0]])).toarray().tolist()
    [[True, False]]
    """

    _supervised = False

    def __init__(self, hierarchy=None, *, check_implication=False, binarize=None):
        self.hierarchy = hierarchy
        self.check_implication = check_implication
        self.binarize = binarize

    def _select(self, X):
        return X


class AllNegative(LazySelector):
    """All-Neg: every feature with value 0 in the test instance (a baseline of the RPV paper).

    The mask is the complement of the (sparse) test rows, so it is nearly dense: about
    ``n_test x n_features`` entries. It is built in row blocks of bounded size (a few million
    cells); :class:`~selection.lazy.estimator.LazySelectionClassifier` asks for it a block of
    test rows at a time, so the whole mask never exists at once there.

    Parameters
    ----------
    hierarchy, check_implication, binarize
        As for :class:`AllPositive`.

    Examples
    --------
    >>> import numpy as np
    >>> AllNegative().fit(np.eye(2)).select_for(np.array([[1, 0]])).toarray().tolist()
    [[False, True]]
    """

    _supervised = False

    def __init__(self, hierarchy=None, *, check_implication=False, binarize=None):
        self.hierarchy = hierarchy
        self.check_implication = check_implication
        self.binarize = binarize

    def _select(self, X):
        return _dense_blocks(X, lambda xb, xd, start: ~xd)

