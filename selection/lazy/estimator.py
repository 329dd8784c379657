"""A lazy selector and a lazy classifier as one ordinary scikit-learn classifier.

:class:`LazySelectionClassifier` ``(selector=RPV(h), classifier=LazyNaiveBayes())`` has the
usual ``fit(X, y)`` / ``predict(X)`` / ``predict_proba(X)`` / ``classes_``, so lazy selection
works in ``Pipeline``, ``cross_val_score`` and ``GridSearchCV`` (e.g. a grid over
``selector__relevance``), which a lazy selector alone cannot do: it has no single feature
subset to ``transform`` with (:mod:`selection.lazy.selectors`).

- ``fit`` clones the selector and the classifier and fits both on the training data.
- ``predict_proba`` goes through the test rows **a block at a time**: the selector gives the
  block's per-instance masks (``select_for``) and the classifier scores each instance on its
  own mask (``predict_proba(X_block, mask)``). Masks and the classifier's scratch exist for one
  block only, so the peak memory is bounded by the block, not by rows x features (All-Neg's
  mask, for instance, is nearly dense). ``block_size=None`` sizes the blocks: the first spans
  about four million cells of ``rows x max(n_features, n_training_rows)`` (as if its masks were
  dense); the next ones about four million mask entries, from twice the mean entries per row
  of the masks so far, and at most four million cells of ``rows x n_training_rows`` (a k-NN
  block's distances). Sparse masks (RPV, HIP) so get blocks of hundreds of rows, and the
  fixed cost of each call is paid a few times instead of once per twenty rows at 200,000
  features; nearly dense ones (All-Neg) keep small blocks.
- An **eager** selector (one ``get_support()`` for every row) is accepted too: its support is
  the mask of every test instance. That is how the RPV protocol scores eager selectors with the
  same lazy Naive Bayes / 1-NN as the lazy ones.
- A selector built with ``hierarchy="from_input"`` gets the hierarchy ``X`` carries (the output of
  :class:`kg.features.KGFeatures` in a ``Pipeline``): ``selector_`` is fitted with it as its ``hierarchy``.
- ``selector=None`` selects every feature (the lazy classifier alone); ``classifier=None`` is
  :class:`~selection.lazy.classifiers.LazyNaiveBayes`.

The classifier must take a mask: ``predict_proba(X, mask)`` (the lazy classifiers of
:mod:`selection.lazy.classifiers`). ``predict`` is the most probable class of
``predict_proba`` (the first of ``classes_`` on ties). Sparse input is never densified: the
selector and the classifier get csr slices of one block. The classifier's own ``fit`` checks
that ``y`` holds class labels. When ``X`` is a DataFrame and the selector has a hierarchy, its
column names must be the hierarchy's node ids, in order (as for the selectors themselves).

Two already-fitted stand-ins for a selector help when the selection is made elsewhere:
:class:`FixedSupport` (a precomputed subset, e.g. one threshold of a sweep) and
:class:`SharedSelection` (a fitted lazy selector whose masks several estimators share, e.g. one
per classifier, so each block is selected once). Cloning either returns it unchanged and its
``fit`` does nothing, as for scikit-learn's ``FrozenEstimator``.
"""

from __future__ import annotations

import hashlib
import inspect

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted, validate_data

from selection.base import FROM_INPUT, check_feature_names, resolve_hierarchy
from selection.lazy.classifiers import LazyNaiveBayes

__all__ = ["LazySelectionClassifier", "FixedSupport", "SharedSelection", "default_block_size", "takes_mask"]

#: Cells of ``rows x max(n_features, n_training_rows)`` per block when ``block_size=None``.
BLOCK_CELLS = 4_000_000


def default_block_size(n_features: int, n_train: int, cells: int = BLOCK_CELLS) -> int:
    """Rows per block of :class:`LazySelectionClassifier` when ``block_size=None``.

    Parameters
    ----------
    n_features : int
        Columns of the data (a mask block has at most ``rows x n_features`` entries), or the
        expected mask entries per row.
    n_train : int
        Training rows (a k-NN block has ``rows x n_train`` distances).
    cells : int
        The budget per block.

    Returns
    -------
    int
        ``max(1, cells // max(n_features, n_train))``.

    Examples
    --------
    >>> default_block_size(200_000, 18_000)
    20
    >>> default_block_size(1_000, 600)
    4000
    """
    return max(1, int(cells) // max(1, int(n_features), int(n_train)))


def takes_mask(classifier) -> bool:
    """Whether a classifier scores per-instance masks: its ``predict_proba`` takes a ``mask``.

    Parameters
    ----------
    classifier : estimator

    Returns
    -------
    bool

    Examples
    --------
    >>> from sklearn.naive_bayes import BernoulliNB
    >>> takes_mask(LazyNaiveBayes()), takes_mask(BernoulliNB())
    (True, False)
    """
    try:
        return "mask" in inspect.signature(classifier.predict_proba).parameters
    except (AttributeError, TypeError, ValueError):
        return False


class LazySelectionClassifier(ClassifierMixin, BaseEstimator):
    """Classify each instance on the features a (lazy) selector chose for it.

    Parameters
    ----------
    selector : estimator or None
        A lazy selector (``fit`` + ``select_for``: RPV, HIP, MR, All-Pos, All-Neg), an eager one
        (``fit`` + ``get_support``), or None for every feature. Cloned in ``fit``.
    classifier : estimator or None
        A lazy classifier (``fit`` + ``predict_proba(X, mask)``: LazyNaiveBayes, LazyKNN);
        None is ``LazyNaiveBayes()``. Cloned in ``fit``.
    block_size : int or None
        Test rows per block of :meth:`predict_proba`; None chooses :func:`default_block_size`
        from the training data's shape for the first block and from the masks' density for
        the next ones (see the module docstring).

    Attributes
    ----------
    selector_ : estimator or None
        The fitted selector.
    classifier_ : estimator
        The fitted classifier.
    support_ : ndarray of bool or None
        The support of an eager selector (the mask of every instance); None otherwise.
    classes_ : ndarray
        The training classes, the columns of :meth:`predict_proba`.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When ``X`` had column names.

    Examples
    --------
    >>> import numpy as np
    >>> from kg.hierarchy import FeatureHierarchy
    >>> from selection.lazy import RPV, LazyNaiveBayes
    >>> h = FeatureHierarchy.from_edges([("B", "A"), ("D", "C")], nodes=["A", "B", "C", "D"])
    >>> X = np.array([[1, 1, 0, 0], [1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 0, 0]])
    >>> model = LazySelectionClassifier(RPV(h), LazyNaiveBayes()).fit(X, ["a", "b", "b", "a"])
    >>> model.predict(np.array([[1, 1, 0, 0], [0, 0, 1, 1]])).tolist()
    ['a', 'b']
    >>> model.predict_proba(np.array([[1, 1, 0, 0]])).round(3).tolist()
    [[0.75, 0.25]]

    In a grid search over the selector's relevance measure:

    >>> from sklearn.model_selection import GridSearchCV
    >>> grid = GridSearchCV(model, {"selector__relevance": ["lazyr", "ig"]}, cv=2)
    >>> sorted(grid.fit(X, ["a", "b", "b", "a"]).best_params_)
    ['selector__relevance']
    """

    def __init__(self, selector=None, classifier=None, *, block_size=None):
        self.selector = selector
        self.classifier = classifier
        self.block_size = block_size

    def fit(self, X, y):
        """Fit the selector and the classifier on the training data.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_instances, n_features)
            Binary training data (see the parts' ``binarize``).
        y : array-like of shape (n_instances,)
            Class labels.

        Returns
        -------
        self
        """
        if self.block_size is not None and (isinstance(self.block_size, bool) or int(self.block_size) < 1):
            raise ValueError(f"block_size must be a positive number of rows or None, got {self.block_size!r}")
        given = X  # a selector with hierarchy="from_input" reads the hierarchy X carries, before validation
        # the classifier's fit checks that y holds class labels (a frozen one was checked when fitted)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        classifier = clone(LazyNaiveBayes() if self.classifier is None else self.classifier)
        if not takes_mask(classifier):
            raise ValueError(
                f"classifier must be a lazy classifier with predict_proba(X, mask) (LazyNaiveBayes, LazyKNN), "
                f"got {classifier!r}; for an eager selector and an ordinary classifier use a Pipeline"
            )
        selector = None if self.selector is None else clone(self.selector)
        if selector is not None:
            h = getattr(selector, "hierarchy", None)
            if isinstance(h, str) and h == FROM_INPUT:  # the selector sees the hierarchy X carried
                h = resolve_hierarchy(h, given)
                selector.set_params(hierarchy=h)
            check_feature_names(getattr(self, "feature_names_in_", None), h)
            selector.fit(X, y)
        self.support_ = None
        if selector is not None and not hasattr(selector, "select_for"):
            self.support_ = np.asarray(selector.get_support(), dtype=bool)
        self.selector_ = selector
        self.classifier_ = classifier.fit(X, y)
        self.classes_ = self.classifier_.classes_
        self._n_train = X.shape[0]
        return self

    def _block_rows(self) -> int:
        if self.block_size is not None:
            return int(self.block_size)
        return default_block_size(self.n_features_in_, self._n_train)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, each instance scored on its own selected features.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_test, n_features)
            Binary test rows over the training features.

        Returns
        -------
        ndarray of shape (n_test, n_classes)
            Columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        n, step = X.shape[0], self._block_rows()
        parts, start, entries = [], 0, 0
        while start < n:
            stop = min(n, start + step)
            xb = X if stop - start == n else X[start:stop]
            if self.selector_ is None:
                mask = None
            elif self.support_ is not None:
                mask = self.support_
            else:
                mask = self.selector_.select_for(xb)
            parts.append(np.asarray(self.classifier_.predict_proba(xb, mask)))
            if self.block_size is None and sp.issparse(mask):
                # the next blocks from the density of the masks so far (twice it: rows vary)
                entries += mask.nnz
                per_row = min(self.n_features_in_, 2 * entries / stop)
                step = default_block_size(max(1, int(per_row)), self._n_train)
            start = stop
        return np.vstack(parts) if parts else np.zeros((0, len(self.classes_)))

    def predict(self, X) -> np.ndarray:
        """The most probable class of each instance (the first of ``classes_`` on ties).

        Parameters
        ----------
        X : array-like or sparse matrix
            As for :meth:`predict_proba`.

        Returns
        -------
        ndarray of shape (n_test,)
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class _Prefitted:
    """An already-fitted stand-in for a selector: cloning returns it, ``fit`` does nothing."""

    def __sklearn_clone__(self):
        return self

    def fit(self, X, y=None):
        """Do nothing (already fitted).

        Parameters
        ----------
        X, y : ignored

        Returns
        -------
        self
        """
        return self


class FixedSupport(_Prefitted):
    """A precomputed feature subset as an already-fitted eager selector.

    Gives :class:`LazySelectionClassifier` the same mask for every instance without a selector
    to fit: ``fit`` does nothing and cloning returns the object itself (like scikit-learn's
    ``FrozenEstimator``), so it can carry a subset chosen elsewhere (one threshold of a sweep,
    a published subset).

    Parameters
    ----------
    mask : array-like of bool (n_features,)
        The selected features.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [0, 1], [0, 1]])
    >>> model = LazySelectionClassifier(FixedSupport([True, False])).fit(X, [0, 1, 1])
    >>> model.support_.tolist(), model.predict(np.array([[1, 0]])).tolist()
    ([True, False], [0])
    """

    def __init__(self, mask):
        self.mask = np.asarray(mask, dtype=bool)

    def get_support(self) -> np.ndarray:
        """The subset.

        Returns
        -------
        ndarray of bool (n_features,)
        """
        return self.mask


def _content_key(X) -> tuple:
    X = sp.csr_matrix(X)
    h = hashlib.blake2b(digest_size=16)
    for a in (X.indptr, X.indices, np.asarray(X.data, dtype=np.float64)):
        h.update(np.ascontiguousarray(a).tobytes())
    return X.shape, h.hexdigest()


class SharedSelection(_Prefitted):
    """A fitted lazy selector whose masks several :class:`LazySelectionClassifier` share.

    Scoring one selection with several classifiers (one estimator each) would ask the selector
    for the same masks once per classifier. Wrapped in this, each distinct block of test rows
    is selected once: :meth:`select_for` is memoised on the content of the block. At most
    ``max_cells`` mask entries are kept; blocks beyond that are selected again on each request,
    so the memory stays bounded by the estimators' blocks (All-Neg's masks are nearly dense).
    Already fitted: ``fit`` does nothing and cloning returns the object itself.

    Parameters
    ----------
    selector : fitted lazy selector
        Anything with ``select_for(X)``.
    max_cells : int
        Mask entries kept at most.

    Attributes
    ----------
    n_computed : int
        How many blocks the selector was asked for.

    Examples
    --------
    >>> import numpy as np
    >>> from selection.lazy import RPV, LazyKNN, LazyNaiveBayes
    >>> X, y = np.array([[1, 0], [0, 1], [1, 1], [0, 0]]), [0, 1, 1, 0]
    >>> shared = SharedSelection(RPV().fit(X, y))
    >>> for clf in (LazyNaiveBayes(), LazyKNN()):
    ...     _ = LazySelectionClassifier(shared, clf).fit(X, y).predict_proba(X)
    >>> shared.n_computed
    1
    """

    def __init__(self, selector, max_cells: int = 16_000_000):
        self.selector = selector
        self.max_cells = max_cells
        self.n_computed = 0
        self._masks: dict[tuple, object] = {}
        self._cells = 0

    def select_for(self, X):
        """The selector's masks for ``X``, computed once per distinct block.

        Parameters
        ----------
        X : sparse matrix or array-like (n_rows, n_features)

        Returns
        -------
        scipy.sparse.csr_matrix of bool (n_rows x n_features)
        """
        key = _content_key(X)
        mask = self._masks.get(key)
        if mask is None:
            mask = self.selector.select_for(X)
            self.n_computed += 1
            if mask.shape != X.shape:
                raise ValueError(f"select_for returned shape {mask.shape}, expected {X.shape}")
            if self._cells + mask.nnz <= self.max_cells:
                self._masks[key] = mask
                self._cells += mask.nnz
        return mask

    def mean_selected(self, X, block_size: int) -> float:
        """Mean number of features selected per row of ``X``, a block of rows at a time.

        The blocks are those of ``LazySelectionClassifier(block_size=block_size)``, so the
        estimators' later requests for them are memo hits.

        Parameters
        ----------
        X : sparse matrix or array-like (n_rows, n_features)
        block_size : int
            Rows per block.

        Returns
        -------
        float
        """
        n = X.shape[0]
        total = 0
        for start in range(0, n, block_size):
            total += int(self.select_for(X if block_size >= n else X[start : start + block_size]).sum())
        return total / n if n else 0.0
