"""Wang et al.'s bottom-up hill climbing over a feature hierarchy, scored by kNN purity.

Ristoski & Paulheim (2014, section 3 and 5.2) use it as a baseline ("HillClimbing", ``k = 10``):
"a bottom-up hill climbing search algorithm to find an optimal subset of concepts ... they use
a kNN classifier to detect the k nearest neighbors of each instance in the training dataset,
and then use the purity of those instances to assign scores" (Wang, McKay, Abbass & Barlow,
*A comparative study for domain ontology guided feature extraction*, ACSC 2003). The search
starts from the most specific concepts and replaces concepts by their generalisations while the
score improves, which is the "strict policy for selecting features that are as high as possible
in the feature hierarchy" the SHSEL paper criticises.

What this implementation does, exactly
--------------------------------------
* **State.** A feature set ``S`` that is an *antichain* of the hierarchy (no feature together with
  one of its ancestors). It starts as the leaves (features without children).
* **Score** (Wang et al.'s fitness, as implemented by the public Python ports of these selectors,
  ``kgextension``'s ``hill_climbing_filter`` and ``hfs``'s ``BottomUpSelector``)::

      f(S) = (1 + beta * (alpha - |S|) / alpha) * purity(S)
      purity(S) = sum over training instances i of #{j in kNN_S(i) : y_j == y_i}

  ``alpha`` is the number of leaves (the size of the initial set); ``beta`` (default 0.05, the
  ``kgextension`` default) rewards smaller sets. ``kNN_S(i)`` are the ``k`` training instances
  nearest to ``i`` in the Euclidean distance over the columns of ``S`` (on 0/1 rows the squared
  Euclidean distance is the Hamming distance, which is what is computed); instance ``i`` itself
  is excluded (a leave-one-out purity: counting it would add the constant ``n`` to every score),
  and ties in distance go to the lower instance index, so the score is a deterministic function
  of ``S``. With fewer than ``k + 1`` training instances, ``k = n - 1`` is used.
* **Move** (the DAG reading of "replace a concept by its parent"): for a node ``l`` of ``S`` and a
  parent ``p`` of ``l``, the candidate set is ``S - descendants(p) + {p}``: the generalisation takes
  the place of *everything in S below it*, not only of ``l`` and ``l``'s siblings, so that ``S``
  stays an antichain when ``p`` has several children or the DAG has multiple inheritance (on a
  tree whose children of ``p`` are all in ``S`` this is exactly "replace the children by the
  parent"). On a closed table the column of ``p`` is the union of the columns it replaces.
* **Search and stopping** (first improvement, each node tried once, as in both ports): nodes are
  processed from a FIFO queue that starts with the leaves in node-id order; newly added
  generalisations are appended. For the node ``l`` taken from the queue (if it is still in
  ``S``), every parent is scored; the best one (first in node-id order on ties) is accepted if it
  scores strictly higher than ``S``, otherwise ``l`` is marked as tried and stays. Ordering by
  node id (not column position) makes the result independent of how the columns are permuted.
  The score of a parent's candidate is cached until the next accepted move (it does not depend
  on which child it was reached from). The search stops when the queue is empty: every node of
  the final ``S`` has been tried, and no parent of it improved the score when it was tried.

Speed and memory
----------------
The kNN structure is maintained incrementally and exactly (a brute-force reference in the tests
must agree). The Hamming distance matrix of the training instances (``n x n`` int32, never
``n x n_features``) is built once from sparse row-block products. A move changes only the
columns ``C`` of ``p`` and of the nodes it replaces, which are zero outside ``U`` (the rows where
one of them is 1; on a closed table, the rows where ``p`` is 1): the distance from a row of ``U``
to a row outside changes by a per-row constant ``a``, between two rows of ``U`` by ``a_i + a_j``
plus a correction that depends only on the two rows' patterns over ``C`` (a small table). Every
row keeps a sorted prefix of its nearest neighbours with a bound below which the prefix is
complete; a row's new neighbours are its prefix minus ``U`` (whose order the move does not
change) merged with the few rows of ``U`` that undercut its ``k``-th neighbour; only a row whose
prefix runs short is recomputed from the matrix. A candidate costs about ``O(n * (|U| + L))``
(``L`` = prefix length) instead of ``O(n^2 + nnz)``. On the benchmark (10,000 features, about
5 parents each, 3,000 instances at 2% density; ``benchmarks/bench_hill_climbing.py``) the whole
search takes about 10 s. The ``n x n`` int32 matrix is the only large array: a move whose ``U``
spans many rows is processed in blocks of rows (:data:`_BLOCK` elements per temporary), so the
fit's peak stays near twice that matrix (about 115 MiB traced on the benchmark, against 229 MiB
for one dense float64 copy of the table). The ``n x n`` matrix bounds the training set
(``max_instances``); the paper notes the method "is not applicable for datasets with a large
number of instances".
"""

from __future__ import annotations

import logging
from collections import deque
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp

from kg.sklearn_compat import Interval
from selection.base import BINARIZE, HIERARCHY, HierarchicalSelector

__all__ = ["HillClimbing", "knn_purity"]

log = logging.getLogger(__name__)

_INF = np.iinfo(np.int64).max
#: Rows with at most this many new candidates from ``U`` are merged in a narrow matrix.
_NARROW = 48
#: Elements per block of a move's temporaries (``rows x |U|`` keys, ``rows x n`` distance rows):
#: a move with a large ``U`` is processed in blocks of rows, so no temporary grows to ``n x n``
#: (8 MiB of int64 per temporary instead of up to ``8 n^2`` bytes); small moves take one block.
_BLOCK = 1 << 20


def _row_blocks(n: int, width: int):
    """Consecutive ``(slice, index array)`` blocks of ``range(n)`` with ``rows * width <= _BLOCK``."""
    step = max(1, _BLOCK // max(1, int(width)))
    for start in range(0, n, step):
        stop = min(n, start + step)
        yield slice(start, stop), np.arange(start, stop)


def _hamming(Xs: sp.csr_matrix, chunk: int = 1024) -> np.ndarray:
    """Dense ``n x n`` int32 Hamming distances between the rows of a sparse 0/1 matrix.

    Built from sparse row-block products, so the only dense array is the ``n x n`` result.
    """
    Xs = sp.csr_matrix(Xs, dtype=np.float64)
    n = Xs.shape[0]
    s = np.asarray(Xs.sum(axis=1)).ravel().astype(np.int32)
    XT = Xs.T.tocsc()
    out = np.empty((n, n), dtype=np.int32)
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        gram = (Xs[start:stop] @ XT).toarray()
        block = out[start:stop]
        np.add(s[start:stop, None], s[None, :], out=block)
        block -= (2 * gram).astype(np.int32)
    return out


def knn_purity(X, y, k: int = 10) -> int:
    """Leave-one-out kNN purity of a binary table: sum over rows of same-class neighbours.

    Neighbours are the ``k`` other rows nearest in Euclidean (= Hamming on 0/1) distance, ties
    broken by the lower row index. This is the score :class:`HillClimbing` climbs (before the
    size bonus); it computes an ``n x n`` distance matrix and is meant for checks and small data.

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features)
        Binary table.
    y : array-like, shape (n_instances,)
        Class labels.
    k : int, default 10
        Neighbours per row (at most ``n_instances - 1``).

    Returns
    -------
    int
        Between 0 and ``n_instances * k``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    >>> knn_purity(X, [0, 0, 1, 1], k=1)
    4
    """
    X = sp.csr_matrix(X, dtype=np.float64)
    y = np.asarray(y)
    n = X.shape[0]
    k = min(int(k), n - 1)
    if k < 1:
        return 0
    d = _hamming(X).astype(np.int64)
    keys = d * n + np.arange(n)[None, :]
    np.fill_diagonal(keys, _INF)
    nbr = np.argpartition(keys, k - 1, axis=1)[:, :k]
    return int((y[nbr] == y[:, None]).sum())


class _KnnState:
    """Exact incremental kNN purity over a changing column set (see the module docstring)."""

    def __init__(self, X: sp.csr_matrix, in_set: np.ndarray, codes: np.ndarray, k: int, width: int):
        n = X.shape[0]
        self.n = n
        self.k = k
        self.codes = codes
        self.cols = np.arange(n, dtype=np.int64)
        self.L = max(k, min(n - 1, width))
        big = int(in_set.size) + 1  # larger than any Hamming distance: keeps i out of its own list
        self.D = _hamming(X[:, np.flatnonzero(in_set)])
        np.fill_diagonal(self.D, big)
        self.idx = np.zeros((n, self.L), dtype=np.int64)
        self.key = np.zeros((n, self.L), dtype=np.int64)
        self.length = np.zeros(n, dtype=np.int64)
        self.bound = np.zeros(n, dtype=np.int64)
        self._refill(np.arange(n))
        self.row_purity = self._list_purity()

    # -------------------------------------------------------------- neighbour lists
    def _keys(self, d: np.ndarray) -> np.ndarray:
        """Unique sort keys ``distance * n + column``: ties in distance go to the lower row."""
        return d.astype(np.int64) * self.n + self.cols[None, :]

    def _refill(self, rows: np.ndarray, chunk: int = 512) -> None:
        """Recompute the sorted prefix of the ``L`` nearest neighbours of ``rows`` from ``D``."""
        L = self.L
        for s in range(0, rows.size, chunk):
            r = rows[s : s + chunk]
            keys = self._keys(self.D[r])
            part = np.argpartition(keys, L - 1, axis=1)[:, :L]  # L <= n - 1: never the row itself
            pk = np.take_along_axis(keys, part, axis=1)
            order = np.argsort(pk, axis=1)
            self.key[r] = np.take_along_axis(pk, order, axis=1)
            self.idx[r] = np.take_along_axis(part, order, axis=1)
            self.length[r] = L
            self.bound[r] = self.key[r, L - 1]

    def _list_purity(self) -> np.ndarray:
        nbr = self.idx[:, : self.k]
        return (self.codes[nbr] == self.codes[:, None]).sum(axis=1).astype(np.int64)

    # -------------------------------------------------------------- a candidate move
    def delta(self, Xc: sp.csc_matrix, add: int, remove: np.ndarray):
        """Rows touched by a move and the pieces of its distance change.

        Returns ``(U, a, pat, corr)``: ``U`` are the sorted rows where some changed column is 1;
        ``a[u] = X[U[u], add] - sum_r X[U[u], r]`` is the change of the distance between ``U[u]``
        and any row outside ``U``; between two rows ``u, v`` of ``U`` the change is
        ``a[u] + a[v] + corr[pat[u], pat[v]]``, where ``pat`` numbers the distinct patterns of the
        rows of ``U`` over the changed columns (few: the correction is a small table, not a
        ``|U| x |U|`` product).
        """
        cols = np.concatenate([[add], remove]).astype(np.int64)
        w = np.ones(cols.size, dtype=np.int64)
        w[1:] = -1
        starts = Xc.indptr[cols]
        lens = Xc.indptr[cols + 1] - starts
        total = int(lens.sum())
        if total == 0:
            e = np.zeros(0, np.int64)
            return e, e, e, np.zeros((0, 0), np.int64)
        which = np.repeat(np.arange(cols.size), lens)
        offs = np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens)
        rows = Xc.indices[np.repeat(starts, lens) + offs].astype(np.int64)
        U, inv = np.unique(rows, return_inverse=True)
        A = np.zeros((U.size, cols.size), dtype=bool)
        A[inv, which] = True
        packed = np.packbits(A, axis=1)
        packed = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()
        first, pat = np.unique(packed, return_index=True, return_inverse=True)[1:]
        if A.size <= _BLOCK:  # the usual, small move: dense integer products
            P = A[first].astype(np.int64)
            a = A.astype(np.int64) @ w
            corr = -2 * ((P * w[None, :]) @ P.T)
        else:  # a wide generalisation: no |U| x |cols| int64 copies of A
            a = np.bincount(inv, weights=w[which], minlength=U.size).astype(np.int64)
            P = sp.csr_matrix(A[first], dtype=np.int64)
            corr = -2 * (P.multiply(w[None, :]).tocsr() @ P.T).toarray()
        return U, a, pat.astype(np.int64), corr

    def _full_rows(self, rows: np.ndarray, move, umask: np.ndarray) -> np.ndarray:
        """New distance rows for ``rows`` after the move (dense, ``len(rows) x n``)."""
        U, a, pat, corr = move
        d = self.D[rows].astype(np.int64)
        d[:, U] += a[None, :]
        inside = umask[rows]
        if inside.any():
            pos = np.searchsorted(U, rows[inside])
            d[inside] += a[pos][:, None]
            d[np.ix_(np.flatnonzero(inside), U)] += corr[pat[pos]][:, pat]
        return d

    def _u_keys(self, move, block: slice, rows: np.ndarray) -> np.ndarray:
        """New keys (``len(rows) x |U|``) of a block of consecutive rows towards the rows of ``U``."""
        U, a, pat, corr = move
        d = self.D[U, block].T.astype(np.int64)  # D is symmetric: a row gather, not a column gather
        d += a[None, :]
        pos = np.minimum(np.searchsorted(U, rows), U.size - 1)
        inside = U[pos] == rows
        if inside.any():
            q = pos[inside]
            d[inside] += a[q][:, None] + corr[pat[q]][:, pat]
        d *= self.n
        d += U[None, :]
        return d

    def evaluate(self, move) -> tuple[int, np.ndarray]:
        """Total purity after the move and the new per-row purity (the state is not changed).

        A row ``i`` outside ``U`` keeps its distances to rows outside ``U``; a row inside ``U``
        shifts them all by ``a_i``, which keeps their order. The cached prefix of a row holds every
        neighbour with key ``<= bound``, so its entries outside ``U`` (shifted) together with its
        new keys towards ``U`` hold every new neighbour with key ``<= bound + shift``: when at least
        ``k`` keys fall under that limit, the ``k`` smallest of them are the new neighbours, exactly.
        A row whose old ``k`` neighbours avoid ``U`` and that no row of ``U`` now undercuts keeps
        its neighbours; the rest are merged; a row whose prefix runs short is recomputed in full.
        """
        U, a = move[0], move[1]
        if U.size == 0:
            return int(self.row_purity.sum()), self.row_purity
        n, k = self.n, self.k
        umask = np.zeros(n, dtype=bool)
        umask[U] = True
        shift = np.zeros(n, dtype=np.int64)
        shift[U] = a * n
        purity = self.row_purity.copy()
        for block, r in _row_blocks(n, U.size):  # blocks of rows keep the temporaries small
            ukeys = self._u_keys(move, block, r)
            affected = umask[self.idx[r, :k]].any(axis=1)
            affected |= ukeys.min(axis=1) < self.key[r, k - 1] + shift[r]
            if affected.any():
                self._merge(r[affected], ukeys[affected], move, umask, shift, purity)
        return int(purity.sum()), purity

    def _merge(self, rows, uk, move, umask, shift, purity) -> None:
        """New purity of ``rows`` (affected by the move; ``uk``: their keys towards ``U``)."""
        U = move[0]
        k, L = self.k, self.L
        keep = (np.arange(L)[None, :] < self.length[rows, None]) & ~umask[self.idx[rows]]
        listkeys = np.where(keep, self.key[rows] + shift[rows, None], _INF)
        # Only keys towards U at or below a row's threshold can enter its new k nearest: the k-th
        # kept prefix entry when there are k of them, else the prefix's (shifted) bound.
        counts = np.cumsum(keep, axis=1)
        n_kept = counts[:, -1]
        kpos = np.minimum((counts < k).sum(axis=1), L - 1)
        limit = np.where(
            n_kept >= k, np.take_along_axis(listkeys, kpos[:, None], axis=1)[:, 0], self.bound[rows] + shift[rows]
        )
        intr = uk <= limit[:, None]
        n_intr = intr.sum(axis=1)
        exact = n_kept + n_intr >= k
        narrow = n_intr <= _NARROW
        if narrow.any():  # the usual case: a few rows of U undercut the old neighbours
            r = np.flatnonzero(narrow)
            width = max(1, int(n_intr[r].max()))
            ri, ci = np.nonzero(intr[r])
            pos = np.arange(ri.size) - np.repeat(np.cumsum(n_intr[r]) - n_intr[r], n_intr[r])
            ikeys = np.full((r.size, width), _INF, dtype=np.int64)
            iids = np.zeros((r.size, width), dtype=np.int64)
            ikeys[ri, pos] = uk[r][ri, ci]
            iids[ri, pos] = U[ci]
            cand = np.concatenate([listkeys[r], ikeys], axis=1)
            ids = np.concatenate([self.idx[rows[r]], iids], axis=1)
            part = np.argpartition(cand, k - 1, axis=1)[:, :k]
            nb = np.take_along_axis(ids, part, axis=1)
            purity[rows[r]] = (self.codes[nb] == self.codes[rows[r]][:, None]).sum(axis=1)
        wide = np.flatnonzero(~narrow)
        if wide.size:
            cand = np.concatenate([listkeys[wide], uk[wide]], axis=1)
            part = np.argpartition(cand, k - 1, axis=1)[:, :k]
            from_list = part < L
            nb = np.where(
                from_list,
                np.take_along_axis(self.idx[rows[wide]], np.where(from_list, part, 0), axis=1),
                U[np.where(from_list, 0, part - L)],
            )
            purity[rows[wide]] = (self.codes[nb] == self.codes[rows[wide]][:, None]).sum(axis=1)
        full = rows[~exact]
        for part, _ in _row_blocks(full.size, self.n):
            f = full[part]
            d = self._full_rows(f, move, umask)
            nb = np.argpartition(self._keys(d), k - 1, axis=1)[:, :k]
            purity[f] = (self.codes[nb] == self.codes[f][:, None]).sum(axis=1)

    def _apply_rows(self, block, r, move, umask, shift, limit) -> None:
        """Update the neighbour prefixes of the block of rows ``r`` for the move (``D`` unchanged)."""
        U = move[0]
        L = self.L
        uk = self._u_keys(move, block, r)
        valid = np.arange(L)[None, :] < self.length[r, None]
        in_list = umask[self.idx[r]] & valid
        intr = uk <= limit[r, None]
        n_intr = intr.sum(axis=1)
        touched = in_list.any(axis=1) | (n_intr > 0)
        # rows whose prefix neither holds nor gains a row of U: their keys only shift (rows of U)
        still = ~touched & (shift[r] != 0)
        if still.any():
            rs = r[still]
            self.key[rs] = np.where(valid[still], self.key[rs] + shift[rs, None], _INF)
            self.bound[rs] += shift[rs]
        if not touched.any():
            return
        rt = r[touched]
        intr, uk, ni = intr[touched], uk[touched], n_intr[touched]
        listkeys = np.where(valid[touched] & ~in_list[touched], self.key[rt] + shift[rt, None], _INF)
        width = max(1, int(ni.max()))
        if width <= _NARROW:
            ri, ci = np.nonzero(intr)
            pos = np.arange(ri.size) - np.repeat(np.cumsum(ni) - ni, ni)
            ukeys_r = np.full((rt.size, width), _INF, dtype=np.int64)
            uids = np.zeros((rt.size, width), dtype=np.int64)
            ukeys_r[ri, pos] = uk[ri, ci]
            uids[ri, pos] = U[ci]
        else:
            ukeys_r = np.where(intr, uk, _INF)
            uids = np.broadcast_to(U, (rt.size, U.size))
        cand = np.concatenate([listkeys, ukeys_r], axis=1)
        ids = np.concatenate([self.idx[rt], uids], axis=1)
        if cand.shape[1] > L:
            part = np.argpartition(cand, L - 1, axis=1)[:, :L]
            cand = np.take_along_axis(cand, part, axis=1)
            ids = np.take_along_axis(ids, part, axis=1)
        order = np.argsort(cand, axis=1)
        ck = np.take_along_axis(cand, order, axis=1)
        self.idx[rt] = np.take_along_axis(ids, order, axis=1)
        self.key[rt] = ck
        length = (ck != _INF).sum(axis=1)
        self.length[rt] = length
        self.bound[rt] = np.where(length == L, ck[:, L - 1], limit[rt])

    def apply(self, move) -> None:
        """Commit a move: update ``D``, the neighbour prefixes and the per-row purity, exactly."""
        U, a, pat, corr = move
        if U.size == 0:
            return
        n, k, L = self.n, self.k, self.L
        umask = np.zeros(n, dtype=bool)
        umask[U] = True
        shift = np.zeros(n, dtype=np.int64)
        shift[U] = a * n
        limit = self.bound + shift
        # every block reads D before it changes below
        for block, r in _row_blocks(n, U.size):
            self._apply_rows(block, r, move, umask, shift, limit)
        # the distance matrix itself, in blocks of U's rows (no |U| x n temporaries)
        for part, _ in _row_blocks(U.size, n):
            self.D[U[part], :] += a[part, None].astype(np.int32)
            self.D[np.ix_(U[part], U)] += corr[pat[part]][:, pat].astype(np.int32)
        for block, _ in _row_blocks(n, U.size):
            self.D[block, U] += a[None, :].astype(np.int32)
        # rows whose prefix got short are recomputed from D
        short = np.flatnonzero(self.length < k + (L - k) // 2)
        if short.size:
            self._refill(short)
        self.row_purity = self._list_purity()


class HillClimbing(HierarchicalSelector):
    """Bottom-up hill climbing (Wang et al. 2003) scored by kNN purity; a baseline of SHSEL.

    Starts from the leaves of the hierarchy and repeatedly replaces the features below a parent
    by that parent while ``(1 + beta (alpha - |S|) / alpha) * purity_kNN(S)`` improves; see the
    module docstring for the exact moves, score, tie-breaking and stopping rule.

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
        The DAG over the columns of ``X``; ``None`` (flat) keeps every feature (no moves exist).
    k : int, default 10
        Neighbours in the purity score (the SHSEL paper uses 10).
    beta : float, default 0.05
        Weight of the size bonus in the fitness (0 = pure purity).
    max_instances : int, default 20000
        Refuse larger training sets with a clear error instead of running out of memory: the
        search keeps an ``n x n`` int32 distance matrix (20,000 instances: 1.6 GB).
    binarize : float or None
        See :mod:`selection.base`.

    Attributes
    ----------
    support_ : ndarray of bool
        The final feature set ``S`` (an antichain of the hierarchy).
    fitness_ : float
        ``f(S)`` on the training data.
    purity_ : int
        ``purity_kNN(S)`` on the training data.
    moves_ : list of (int, list of int)
        Accepted moves in order: the parent added and the features it replaced (column indices).
    n_evaluations_ : int
        Candidate sets scored.

    Examples
    --------
    >>> import numpy as np
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("a1", "A"), ("a2", "A")], nodes=["A", "a1", "a2"])
    >>> X = np.array([[1, 1, 0], [1, 0, 1], [0, 0, 0], [0, 0, 0]])
    >>> sel = HillClimbing(h, k=1).fit(X, [1, 1, 0, 0])
    >>> sel.get_support().tolist()   # A separates the classes as well as a1, a2, with one feature
    [True, False, False]
    """

    #: Length of the cached neighbour prefix per row (default ``2k + 16``); tests shrink it to
    #: exercise the refill paths. Not a parameter: it changes speed, never the result.
    _list_width: int | None = None

    _parameter_constraints = {
        "hierarchy": HIERARCHY,
        "k": [Interval(Integral, 1, None, closed="left")],
        "beta": [Interval(Real, 0, None, closed="left")],
        "max_instances": [Interval(Integral, 1, None, closed="left")],
        "binarize": BINARIZE,
    }

    def __init__(self, hierarchy=None, *, k=10, beta=0.05, max_instances=20_000, binarize=None):
        self.hierarchy = hierarchy
        self.k = k
        self.beta = beta
        self.max_instances = max_instances
        self.binarize = binarize

    def _fit(self, X, y, hierarchy):
        k, beta = int(self.k), float(self.beta)
        n, m = X.shape
        if n > self.max_instances:
            raise ValueError(
                f"HillClimbing keeps an n x n distance matrix: {n} training instances would need "
                f"{n * n * 4 / 2**30:.1f} GB (max_instances={self.max_instances}); subsample the "
                "instances or raise max_instances"
            )
        k = min(k, n - 1)
        _, codes = np.unique(y, return_inverse=True)
        in_set = np.zeros(m, dtype=bool)
        leaves = np.asarray(hierarchy.leaves, dtype=np.int64)
        in_set[leaves] = True
        alpha = float(leaves.size)
        self.moves_ = []
        self.n_evaluations_ = 0
        if hierarchy.n_edges == 0:  # flat: no generalisation exists
            self.support_ = in_set
            self.purity_ = knn_purity(X, y, k)
            self.fitness_ = float(self.purity_)
            return

        state = _KnnState(X, in_set, codes.astype(np.int64), k, width=self._list_width or 2 * k + 16)
        Xc = X.tocsc()
        desc = hierarchy.descendant_matrix
        size = int(in_set.sum())

        def fitness(purity: int, set_size: int) -> float:
            return (1.0 + beta * (alpha - set_size) / alpha) * purity

        current = fitness(int(state.row_purity.sum()), size)
        tried = np.zeros(m, dtype=bool)
        # Ties (queue order, equally good parents) are broken by node id, not column position,
        # so permuting the columns together with the hierarchy permutes the selection.
        rank = np.empty(m, dtype=np.int64)
        rank[np.argsort(hierarchy.node_ids, kind="stable")] = np.arange(m)
        queue = deque(leaves[np.argsort(rank[leaves])].tolist())
        # The candidate of parent p is S - descendants(p) + {p}, whichever child of p it is
        # reached from: its score is cached until the next accepted move changes S.
        cache: dict[int, tuple[float, int]] = {}

        def removed_by(p: int) -> np.ndarray:
            below = desc.indices[desc.indptr[p] : desc.indptr[p + 1]]
            return np.sort(below[in_set[below]]).astype(np.int64)

        while queue:
            node = queue.popleft()
            if not in_set[node] or tried[node]:
                continue
            best = None
            parents = hierarchy.parent_indices(node)
            for p in parents[np.argsort(rank[parents])].tolist():
                if p not in cache:
                    remove = removed_by(p)
                    total, _ = state.evaluate(state.delta(Xc, p, remove))
                    self.n_evaluations_ += 1
                    cache[p] = (fitness(total, size - remove.size + 1), total)
                f = cache[p][0]
                if f > current and (best is None or f > best[0]):
                    best = (f, p)
            if best is None:
                tried[node] = True
                continue
            f, p = best
            remove = removed_by(p)
            state.apply(state.delta(Xc, p, remove))
            if int(state.row_purity.sum()) != cache[p][1]:  # pragma: no cover - a bug, not bad input
                raise AssertionError("incremental kNN purity diverged from the evaluated move")
            cache.clear()
            in_set[remove] = False
            in_set[p] = True
            size = size - remove.size + 1
            current = f
            self.moves_.append((int(p), remove.tolist()))
            queue.append(p)
            log.debug("hill climbing: %d replaces %d feature(s); fitness %.3f", p, remove.size, f)
        self.support_ = in_set
        self.purity_ = int(state.row_purity.sum())
        self.fitness_ = float(current)
