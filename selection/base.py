"""Shared machinery of the hierarchical selectors: input validation and the hierarchy check.

Every selector is a scikit-learn estimator whose first constructor parameter is the
:class:`~kg.hierarchy.FeatureHierarchy` over the columns of ``X``. ``hierarchy=None`` means a
flat hierarchy (no edges), so every selector also runs on tables that come without one (and
under scikit-learn's estimator checks). :class:`HierarchicalEstimator` holds the validation
shared by all; eager selectors (one subset for every instance) derive from
:class:`HierarchicalSelector`, which adds scikit-learn's selector interface (``SelectorMixin``:
``get_support``, ``transform``); lazy selectors (a subset per test instance,
:mod:`selection.lazy`) derive from :class:`HierarchicalEstimator` directly and are not
transformers.

Features are binary. A value outside {0, 1} raises a ``ValueError`` that names it, unless
the selector is given ``binarize=t``, in which case values ``> t`` count as 1 (as
``sklearn.preprocessing.Binarizer`` does); that makes count data usable directly.

Flat selectors, which ignore the hierarchy, have no ``hierarchy`` parameter (CFS, ReliefF, mRMR,
the Fisher score, ADHOC): their signature says so, and the registry and the evaluation give
a hierarchy only to the estimators that take one. The ranking filters among them (the Fisher
score, mRMR) derive from :class:`TopKSelector`: rank every feature, keep the first ``k``
(:func:`top_k_mask` is the same cut for a score with ties broken by feature id).

The parameter constraints every family shares (scikit-learn's notation, see
:mod:`selection.params`) are defined once here: :data:`HIERARCHY`, :data:`BINARIZE`,
:data:`CHECK_IMPLICATION`.
"""

from __future__ import annotations

import logging
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from kg.hierarchy import FeatureHierarchy, binary_csr
from kg.sklearn_compat import Interval, StrOptions
from kg.table import carried_hierarchy

__all__ = ["HierarchicalEstimator", "HierarchicalSelector", "SupportMaskMixin", "TopKSelector", "as_binary_csr",
           "reads_counts",
           "check_hierarchy", "check_class_labels", "check_feature_names", "implication_violations",
           "violation_cells", "top_k_mask", "first_k_mask", "HIERARCHY", "BINARIZE", "CHECK_IMPLICATION",
           "FROM_INPUT", "resolve_hierarchy", "given_hierarchy"]


log = logging.getLogger(__name__)

#: ``hierarchy="from_input"``: the hierarchy ``X`` carries (see :func:`resolve_hierarchy`).
FROM_INPUT = "from_input"
#: ``hierarchy``: the DAG over the columns, None (a flat one), or ``"from_input"`` (the one X carries).
HIERARCHY = [FeatureHierarchy, StrOptions({FROM_INPUT}), None]
#: ``binarize``: None (values must be 0/1) or the threshold above which a value counts as 1.
BINARIZE = [Interval(Real, None, None, closed="neither"), None]
#: ``check_implication``: raise on violating rows, use them as they are, or close them upward.
CHECK_IMPLICATION = ["boolean", StrOptions({"repair"})]


def as_binary_csr(X, binarize: float | None = None, *, what: str = "X") -> sp.csr_matrix:
    """Validate ``X`` as binary data and return it as a canonical csr matrix of float 0/1.

    Nothing is densified: dense input is converted, sparse input kept sparse.

    Parameters
    ----------
    X : array-like or scipy sparse matrix
    binarize : float or None
        ``None`` demands values in {0, 1} (a ``ValueError`` names the first other value, its
        row and column); a float ``t`` maps ``value > t`` to 1 and the rest to 0.
    what : str
        The name used in error messages (``"X"``, ``"X_test"``).

    Returns
    -------
    scipy.sparse.csr_matrix
        Stored values all 1.0, canonical format (see :func:`kg.sparse.binary_csr`).

    Examples
    --------
    >>> as_binary_csr([[0, 1], [1, 1]]).toarray().tolist()
    [[0.0, 1.0], [1.0, 1.0]]
    >>> as_binary_csr([[0, 3]], binarize=2).toarray().tolist()
    [[0.0, 1.0]]
    """
    X = sp.csr_matrix(X) if sp.issparse(X) else sp.csr_matrix(np.asarray(X, dtype=np.float64))
    if binarize is None:
        bad = (X.data != 0) & (X.data != 1)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            row = int(np.searchsorted(X.indptr, k, side="right") - 1)
            raise ValueError(
                f"{what} must be binary (0/1): value {X.data[k].item()!r} at row {row}, column "
                f"{int(X.indices[k])}; pass binarize=<threshold> to binarise count data"
            )
    else:
        X = sp.csr_matrix((X.data > binarize, X.indices, X.indptr), shape=X.shape)
    return binary_csr(X, dtype=np.float64)


def resolve_hierarchy(hierarchy, X):
    """The hierarchy an estimator fits with: ``hierarchy`` itself, or for ``"from_input"`` the one ``X`` carries.

    ``hierarchy="from_input"`` is how a selector gets, inside a scikit-learn ``Pipeline``, the hierarchy
    that the previous step built while it was fitted (:class:`kg.features.KGFeatures`, whose output is a
    :class:`kg.table.HierarchicalCSR` or a DataFrame with ``attrs["hierarchy"]``). It is read from ``X``
    before ``X`` is validated (validation makes a plain matrix of it).

    scikit-learn's metadata routing cannot deliver it: routing passes what the *caller* gives to
    ``Pipeline.fit(X, y, **params)`` to the steps that request it, and a hierarchy that a step builds
    at fit time (different for every fold and every ``min_support`` or ``category_depth`` of a grid)
    is not known to the caller, so it can only travel with the data.

    Parameters
    ----------
    hierarchy : FeatureHierarchy, None or "from_input"
    X : object
        The estimator's input.

    Returns
    -------
    FeatureHierarchy or None

    Raises
    ------
    ValueError
        ``"from_input"`` and ``X`` carries no hierarchy.

    Examples
    --------
    >>> resolve_hierarchy("from_input", np.array([[1, 0]]))
    Traceback (most recent call last):
    ...
    ValueError: hierarchy='from_input' needs X produced by kg.features.KGFeatures (a kg.table.HierarchicalCSR or \
a DataFrame with attrs['hierarchy']), got ndarray; pass the hierarchy itself otherwise
    """
    if not (isinstance(hierarchy, str) and hierarchy == FROM_INPUT):
        return hierarchy
    carried = carried_hierarchy(X)
    if carried is None:
        raise ValueError(
            "hierarchy='from_input' needs X produced by kg.features.KGFeatures (a kg.table.HierarchicalCSR or "
            f"a DataFrame with attrs['hierarchy']), got {type(X).__name__}; pass the hierarchy itself otherwise"
        )
    return carried


def given_hierarchy(estimator) -> FeatureHierarchy | None:
    """The hierarchy an estimator was given: its fitted ``hierarchy_`` for ``"from_input"``, else ``hierarchy``.

    Parameters
    ----------
    estimator : object

    Returns
    -------
    FeatureHierarchy or None
        None for a flat hierarchy (or an unfitted ``"from_input"`` estimator).

    Examples
    --------
    >>> from selection.hierarchical import CompleteFS
    >>> given_hierarchy(CompleteFS()) is None, given_hierarchy(CompleteFS(hierarchy="from_input")) is None
    (True, True)
    """
    h = getattr(estimator, "hierarchy", None)
    if isinstance(h, str) and h == FROM_INPUT:
        return getattr(estimator, "hierarchy_", None)
    return h


def check_hierarchy(hierarchy: FeatureHierarchy | None, n_features: int) -> FeatureHierarchy:
    """The hierarchy to use for ``n_features`` columns; ``None`` gives a flat one.

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
        The hierarchy over the columns, in column order.
    n_features : int
        The number of columns of ``X``.

    Returns
    -------
    FeatureHierarchy
        ``hierarchy`` itself, or a flat hierarchy over ``"0", "1", ...`` when it is None.

    Examples
    --------
    >>> check_hierarchy(None, 3).node_ids.tolist()
    ['0', '1', '2']
    """
    if hierarchy is None:
        return FeatureHierarchy([str(i) for i in range(n_features)], [], [])
    if not isinstance(hierarchy, FeatureHierarchy):
        raise TypeError(f"hierarchy must be a FeatureHierarchy, None or 'from_input', got {type(hierarchy).__name__}")
    if hierarchy.n_nodes != n_features:
        raise ValueError(
            f"the hierarchy has {hierarchy.n_nodes} nodes but X has {n_features} features; "
            "the hierarchy's nodes must be X's columns, in the same order"
        )
    return hierarchy


def check_class_labels(y) -> None:
    """Raise ``ValueError`` unless ``y`` holds class labels (scikit-learn's ``check_classification_targets``).

    A 1-D array of integers, booleans or strings always does, so it skips scikit-learn's
    inspection of the values (a tenth of a millisecond per call, paid by every fit of every fold
    of an evaluation); anything else (floats, objects) goes through it.

    Parameters
    ----------
    y : array-like
        Labels, e.g. as returned by ``validate_data``.

    Returns
    -------
    None

    Examples
    --------
    >>> check_class_labels(np.array(["a", "b", "a"]))
    >>> check_class_labels(np.array([0.5, 1.5]))
    Traceback (most recent call last):
    ...
    ValueError: Unknown label type: continuous. Maybe you are trying to fit a classifier, which expects discrete classes
    on a regression target with continuous values.
    """
    y_arr = np.asarray(y)
    if not (y_arr.ndim == 1 and y_arr.dtype.kind in "biuU"):
        check_classification_targets(y)


def check_feature_names(names, hierarchy: FeatureHierarchy | None) -> None:
    """Raise ``ValueError`` unless ``X``'s column ``names`` are the ``hierarchy``'s node ids, in order.

    Parameters
    ----------
    names : array-like of str or None
        ``feature_names_in_`` of an estimator fitted on a DataFrame; None skips the check.
    hierarchy : FeatureHierarchy or None
        None (a flat hierarchy over positions) skips the check.

    Returns
    -------
    None

    Examples
    --------
    >>> h = FeatureHierarchy.from_edges([("b", "a")], nodes=["a", "b"])
    >>> check_feature_names(["a", "b"], h)
    >>> check_feature_names(["a", "c"], h)
    Traceback (most recent call last):
    ...
    ValueError: X's column 1 is 'c' but the hierarchy's node 1 is 'b'; the hierarchy's nodes must be X's columns,
    in the same order
    """
    if names is None or hierarchy is None:
        return
    ids = hierarchy.node_ids
    bad = np.flatnonzero(np.asarray(names, dtype=str) != ids)
    if bad.size:
        k = int(bad[0])
        raise ValueError(
            f"X's column {k} is {str(names[k])!r} but the hierarchy's node {k} is {str(ids[k])!r}; "
            "the hierarchy's nodes must be X's columns, in the same order"
        )


class SupportMaskMixin:
    """``_get_support_mask`` for selectors that store their boolean mask in ``support_``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.base import BaseEstimator
    >>> from sklearn.feature_selection import SelectorMixin
    >>> class Fixed(SupportMaskMixin, SelectorMixin, BaseEstimator):
    ...     def fit(self, X, y=None):
    ...         self.support_ = np.array([True, False])
    ...         return self
    >>> Fixed().fit([[0, 1]]).transform([[5, 6]]).tolist()
    [[5]]
    """

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_


def reads_counts(estimator) -> bool:
    """Whether a selector is fitted on a table's counts (``--values count``) rather than on their presence.

    kgfs's estimators say so with a class attribute ``reads_counts`` (the Fisher score, defined on
    numbers, does; the hierarchical selectors and the binary measures -- information gain, CFS,
    mRMR, ReliefF -- read presence); any other scikit-learn estimator (``SelectKBest(chi2)``)
    takes numbers, so it reads the counts.

    Examples
    --------
    >>> from sklearn.feature_selection import SelectKBest
    >>> from selection.flat import FisherScore
    >>> from selection.hierarchical.shsel import SHSEL
    >>> reads_counts(SelectKBest()), reads_counts(FisherScore()), reads_counts(SHSEL())
    (True, True, False)
    """
    return bool(getattr(estimator, "reads_counts", not isinstance(estimator, HierarchicalEstimator)))


class HierarchicalEstimator(BaseEstimator):
    """Validation shared by every estimator over a feature DAG, eager or lazy.

    ``fit(X, y)`` validates ``X`` as binary (see :func:`as_binary_csr`) and ``y`` as class
    labels, stores the validated hierarchy as ``hierarchy_`` and calls the subclass's
    ``_fit(X, y, hierarchy)`` with ``X`` as a binary csr matrix. It is the base of the eager
    selectors (:class:`HierarchicalSelector`, which add the scikit-learn selector interface) and
    of the lazy ones (:class:`selection.lazy.selectors.LazySelector`, which are not transformers).

    * When ``X`` came with column names and a hierarchy is given, the names must be the
      hierarchy's node ids in the same order (checked by :meth:`_check_table`).
    * Estimators whose rules assume the implication of the SHSEL paper's Eq. (1) (an instance
      that has a feature has its parents) call :meth:`_check_table`: with
      ``check_implication=True`` (their default) a violating table raises a ``ValueError``
      naming the first such cell; ``"repair"`` selects on the table closed upward (the missing
      ancestors set to 1; logged); ``False`` runs on it as it is.

    * ``hierarchy="from_input"`` takes the hierarchy ``X`` carries (the output of
      :class:`kg.features.KGFeatures` in a ``Pipeline``; see :func:`resolve_hierarchy`, which also says
      why metadata routing cannot do it); ``hierarchy_`` is then the one the estimator saw.

    Parameters
    ----------
    hierarchy : FeatureHierarchy, None or "from_input"
        Subclasses take it as their first parameter; ``None`` is a flat hierarchy.

    Examples
    --------
    >>> import numpy as np
    >>> class Count(HierarchicalEstimator):
    ...     _supervised = False
    ...     def __init__(self, hierarchy=None):
    ...         self.hierarchy = hierarchy
    ...     def _fit(self, X, y, hierarchy):
    ...         self.count_ = X.nnz
    >>> Count().fit(np.array([[1, 0], [1, 1]])).count_
    3
    """

    _supervised = True
    #: Fitted on counts as they are (see :func:`reads_counts`); the others demand 0/1 (or ``binarize``).
    reads_counts = False

    def _validate(self, X, y=None, *, reset: bool = True):
        if y is None and self._supervised:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None (class labels)")
        if y is not None:
            X, y = validate_data(
                self, X, y, accept_sparse="csr", reset=reset, dtype=np.float64,
                ensure_min_features=1,
            )
            check_class_labels(y)
            if len(np.unique(y)) < 2:
                raise ValueError(
                    f"y has a single class ({np.unique(y)[0].item()!r}); feature relevance needs more than one class"
                )
        else:
            X = validate_data(self, X, accept_sparse="csr", reset=reset, dtype=np.float64)
        if self.reads_counts and getattr(self, "binarize", None) is None:
            X = sp.csr_matrix(X, dtype=np.float64)
            if X.nnz and X.data.min() < 0:
                raise ValueError(f"{type(self).__name__} reads counts: X must not be negative")
            return X, y
        X = as_binary_csr(X, getattr(self, "binarize", None))
        return X, y

    def fit(self, X, y=None):
        """Fit on a binary table ``X`` (n_instances x n_features) and labels ``y``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_instances, n_features)
            Binary features (see the subclass's ``binarize``).
        y : array-like of shape (n_instances,) or None
            Class labels (None only for the unsupervised methods).

        Returns
        -------
        self
        """
        if hasattr(type(self), "_parameter_constraints"):
            # the declared parameters first: a wrong value is named before X is read
            self._validate_params()
        hierarchy = resolve_hierarchy(getattr(self, "hierarchy", None), X)  # before validation drops it
        X, y = self._validate(X, y)
        self.hierarchy_ = check_hierarchy(hierarchy, X.shape[1])
        self._fit(X, y, self.hierarchy_)
        return self

    def _fit(self, X: sp.csr_matrix, y, hierarchy: FeatureHierarchy) -> None:  # pragma: no cover
        raise NotImplementedError

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = self._supervised
        return tags

    def _check_table(self, X, hierarchy: FeatureHierarchy, diff: sp.csr_matrix | None = None):
        """Validate names and the implication; returns ``(X, diff)``, repaired if asked to."""
        if getattr(self, "hierarchy", None) is not None:  # a flat default hierarchy names nothing
            check_feature_names(getattr(self, "feature_names_in_", None), hierarchy)  # "from_input": X's own
        mode = getattr(self, "check_implication", True)
        if not (isinstance(mode, (bool, np.bool_)) or mode == "repair"):
            raise ValueError(f"check_implication must be True, False or 'repair', got {mode!r}")
        if mode is not False and hierarchy.n_edges:
            n_bad, first = implication_violations(X, hierarchy, diff)
            if n_bad and mode == "repair":
                log.info("closing X upward: %d (row, ancestor) cell(s) were missing", n_bad)
                return hierarchy.close(X).astype(np.float64), sp.csr_matrix(X.shape)
            if n_bad:
                row, child, parent = first
                raise ValueError(
                    f"X violates the hierarchy in {n_bad} cell(s): row {row} has feature "
                    f"{str(hierarchy.node_ids[child])!r} but not its parent {str(hierarchy.node_ids[parent])!r}; "
                    "close or repair the table (FeatureTable check='repair') or pass "
                    "check_implication='repair' (close it upward) or False (use it as it is)"
                )
        return X, diff


class HierarchicalSelector(SupportMaskMixin, SelectorMixin, HierarchicalEstimator):
    """Base class of every eager selector over a feature DAG: one feature subset for all instances.

    A scikit-learn selector (``get_support``, ``transform``, ``get_feature_names_out``) on top of
    :class:`HierarchicalEstimator` (validation, the names and implication checks). Subclasses
    set ``support_`` (boolean mask over features) and may set ``scores_`` in
    ``_fit(X, y, hierarchy)``, where ``X`` is a binary csr matrix and ``y`` a label array.

    ``get_feature_names_out()`` names the selected features by ``X``'s column names when ``X``
    had them (a DataFrame), else by the hierarchy's node ids, else ``x0, x1, ...``.

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
        As for :class:`HierarchicalEstimator`.

    Examples
    --------
    >>> import numpy as np
    >>> from kg.hierarchy import FeatureHierarchy
    >>> from selection.hierarchical import CompleteFS
    >>> h = FeatureHierarchy.from_edges([("Athlete", "Person")])
    >>> CompleteFS(h).fit(np.array([[1, 1], [0, 1]]), [1, 0]).get_feature_names_out().tolist()
    ['Athlete', 'Person']
    """

    def get_feature_names_out(self, input_features=None):
        """Selected feature names: ``X``'s column names, else the hierarchy's node ids.

        Parameters
        ----------
        input_features : array-like of str or None
            As in scikit-learn's ``SelectorMixin.get_feature_names_out``.

        Returns
        -------
        ndarray of object
            The names of the selected features, in column order.
        """
        if input_features is None and getattr(self, "feature_names_in_", None) is None:
            h = given_hierarchy(self)
            if h is not None:
                return np.asarray(h.node_ids[self.get_support()], dtype=object)
        return super().get_feature_names_out(input_features)



# ---------------------------------------------------------------------------- top-k
def top_k_mask(scores: np.ndarray, k: int, ids: np.ndarray | None = None,
               among: np.ndarray | None = None) -> np.ndarray:
    """The ``k`` best of ``scores`` (restricted to ``among``); ties go to the smaller id (without ids: the lower index).

    Breaking ties by feature id (not column position) keeps the result independent of the
    column order.

    Parameters
    ----------
    scores : array of float, shape (n_features,)
    k : int
        How many to keep (at most the number of candidates; ``k <= 0`` keeps none).
    ids : array of str, shape (n_features,), optional
        The feature ids that break ties (e.g. ``hierarchy.node_ids``); None: the column index.
    among : array of bool, shape (n_features,), optional
        The candidates (default: every feature).

    Returns
    -------
    ndarray of bool, shape (n_features,)

    Examples
    --------
    >>> ids = np.array(["c", "a", "b"])
    >>> top_k_mask(np.array([0.2, 0.5, 0.5]), 1, ids).tolist()   # tie: "a" before "b"
    [False, True, False]
    >>> top_k_mask(np.array([0.2, 0.5, 0.5]), 1, ids, among=np.array([True, False, False])).tolist()
    [True, False, False]
    >>> top_k_mask(np.array([0.5, 0.2, 0.5]), 1).tolist()   # no ids: the lower index
    [True, False, False]
    """
    n = scores.size
    among = np.ones(n, bool) if among is None else among
    cand = np.flatnonzero(among)
    tie = cand if ids is None else ids[cand]
    order = cand[np.lexsort((tie, -scores[cand]))]
    return first_k_mask(order, n, max(0, int(k)))


def first_k_mask(ranking: np.ndarray, n_features: int, k: int | None) -> np.ndarray:
    """Boolean mask of the first ``k`` features of ``ranking`` (all of them when ``k`` is None).

    Parameters
    ----------
    ranking : int array
        Feature indices, best first.
    n_features : int
    k : int or None

    Returns
    -------
    ndarray of bool, shape (n_features,)

    Examples
    --------
    >>> first_k_mask(np.array([2, 0, 1]), 3, 2).tolist()
    [True, False, True]
    """
    mask = np.zeros(n_features, dtype=bool)
    mask[np.asarray(ranking)[: (n_features if k is None else k)]] = True
    return mask


class TopKSelector(HierarchicalSelector):
    """Base of the ranking filters: rank the features on the training data, keep the first ``k``.

    Subclasses implement ``_ranking(X, y, k)``: the feature indices best first (at least the
    first ``k``), setting ``scores_`` on the way. ``k`` larger than the number of features keeps
    them all. A ranking filter is flat: it takes no hierarchy.

    Parameters
    ----------
    k : int
        Number of features kept.
    binarize : float or None
        Map values ``> binarize`` to 1 first.

    Attributes
    ----------
    selected_ : int ndarray
        The kept features, best first.
    support_ : ndarray of bool

    Examples
    --------
    >>> class FirstColumns(TopKSelector):
    ...     def _ranking(self, X, y, k):
    ...         return np.arange(X.shape[1])
    >>> FirstColumns(k=2).fit(np.array([[1, 0, 1], [0, 1, 1]]), [0, 1]).get_support().tolist()
    [True, True, False]
    """

    _parameter_constraints = {"k": [Interval(Integral, 1, None, closed="left")], "binarize": BINARIZE}

    def __init__(self, k=50, *, binarize=None):
        self.k = k
        self.binarize = binarize

    def _ranking(self, X: sp.csr_matrix, y, k: int) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _fit(self, X, y, hierarchy):
        k = max(0, min(int(self.k), X.shape[1]))
        self.selected_ = np.asarray(self._ranking(X, y, k), dtype=np.int64)[:k]
        self.support_ = first_k_mask(self.selected_, X.shape[1], k)


def violation_cells(X, hierarchy: FeatureHierarchy) -> sp.csr_matrix:
    """The (row, parent) cells where some child of ``parent`` is 1 but ``parent`` is 0.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_instances, n_features)
        A binary table over ``hierarchy``'s nodes.
    hierarchy : FeatureHierarchy

    Returns
    -------
    scipy.sparse.csr_matrix
        Sorted csr (n_instances x n_features), non-zero at the violating cells
        (:meth:`FeatureHierarchy.violations`: one symbolic product when the table is closed).

    Examples
    --------
    >>> h = FeatureHierarchy.from_edges([("b", "a")], nodes=["a", "b"])
    >>> violation_cells([[0, 1], [1, 1]], h).nonzero()[0].tolist()
    [0]
    """
    diff = hierarchy.violations(binary_csr(X, dtype=np.float64)).tocsr()
    diff.sort_indices()
    return diff


def implication_violations(
    X, hierarchy: FeatureHierarchy, diff: sp.csr_matrix | None = None
) -> tuple[int, tuple[int, int, int] | None]:
    """Number of (row, parent) cells where a child is 1 and the parent 0, and the first one.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_instances, n_features)
        A binary table over ``hierarchy``'s nodes.
    hierarchy : FeatureHierarchy
    diff : scipy.sparse.csr_matrix, optional
        :func:`violation_cells` of ``X`` when already computed.

    Returns
    -------
    (int, tuple or None)
        The number of violating cells, and the first as ``(row, child, parent)``: the smallest
        ``(row, parent)`` with its first present child (None when there is none).

    Examples
    --------
    >>> h = FeatureHierarchy.from_edges([("b", "a")], nodes=["a", "b"])
    >>> implication_violations([[1, 1], [0, 1]], h)
    (1, (1, 1, 0))
    """
    diff = violation_cells(X, hierarchy) if diff is None else diff
    if diff.nnz == 0:
        return 0, None
    row = int(np.flatnonzero(np.diff(diff.indptr))[0])
    parent = int(diff.indices[diff.indptr[row]])
    kids = hierarchy.child_indices(parent)
    present = np.asarray(sp.csr_matrix(X)[row, kids].todense()).ravel() != 0
    return int(diff.nnz), (row, int(np.sort(kids[present])[0]), parent)
