"""Flat (non-hierarchical) baselines: CFS, ReliefF, mRMR and Fisher score, on sparse counts.

The RPV paper compares against WEKA's CFS and ReliefF; the HiFSRR paper against mRMR, ReliefF
and Fisher score. The installable Python versions take a minute or more on a 1,000 x 2,000
binary table (``../shared/GUIDE.md`` section 4); these work from sparse co-occurrence counts
and a sparse instance-distance computation and take well under a second there
(``benchmarks/bench_flat.py``). They ignore the hierarchy (``kind="flat"``) and are eager
selectors: ``get_support()`` is the selected subset.

- :class:`CFS`: WEKA ``CfsSubsetEval`` + ``BestFirst`` with the defaults (forward search from
  the empty set, search termination 5, open list of 5, merit-improvement threshold 1e-5,
  visited-subset cache of ``n_features + 1`` entries) and symmetrical uncertainty as the
  correlation, including WEKA's quirks: a feature-feature SU of 0 counts as 1 (maximal
  redundancy) and correlations are stored as 32-bit floats; "locally predictive" features
  are added afterwards (WEKA's default).
- :class:`ReliefF`: WEKA ``ReliefFAttributeEval`` defaults (all instances sampled, k=10
  nearest hits and k nearest misses per other class, no distance weighting; Hamming distance,
  which is WEKA's distance on nominal 0/1 attributes; ties in distance go to the earlier
  instance) and the RPV paper's threshold: features with weight > 0.01.
- :class:`MRMR`: Peng et al.'s mRMR (MID form), greedy, ``k`` features, mutual information
  from 2x2 counts.
- :class:`FisherScore`: ``sum_c n_c (mu_fc - mu_f)^2 / sum_c n_c var_fc``, top ``k``.
  A feature constant within every class but not overall has an infinite score (perfect
  separation); a constant feature has score 0.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from selection.base import HierarchicalSelector
from selection.measures.relevance import ClassCounts, entropy, information_gain
from selection.registry import register_selector

__all__ = ["CFS", "ReliefF", "MRMR", "FisherScore", "pairwise_entropies", "symmetrical_uncertainty_row"]

_SMALL = 1e-6  # WEKA's Utils.eq tolerance


# ---------------------------------------------------------------------------- pair statistics
def _h2(p: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((p > 0) & (p < 1), -p * np.log2(p) - (1 - p) * np.log2(1 - p), 0.0)


def pairwise_entropies(n11: np.ndarray, n1_g: float, n1: np.ndarray, n: int):
    """``(H(g), H(f), H(g, f))`` in bits for binary feature ``g`` against all features ``f``.

    ``n11[f]`` = instances where both are 1, ``n1_g``/``n1[f]`` = instances where each is 1.
    """
    cells = np.stack([n11, n1_g - n11, n1 - n11, n - n1_g - n1 + n11], axis=1)
    return _h2(np.array(n1_g / n)), _h2(n1 / n), entropy(cells)


def symmetrical_uncertainty_row(Xc: sp.csc_matrix, X: sp.csr_matrix, g: int, n1: np.ndarray) -> np.ndarray:
    """SU between feature ``g`` and every feature (0 when either entropy is 0, as WEKA)."""
    col = Xc[:, g]
    n11 = np.asarray((col.T @ X).todense()).ravel()
    hg, hf, hgf = pairwise_entropies(n11, float(n1[g]), n1, X.shape[0])
    den = hg + hf
    with np.errstate(divide="ignore", invalid="ignore"):
        su = np.where((hg > _SMALL) & (hf > _SMALL), 2.0 * (hg + hf - hgf) / den, 0.0)
    return np.clip(su, 0.0, 1.0)


def _class_su(counts: ClassCounts) -> np.ndarray:
    n = counts.n
    hc = entropy(counts.class_totals)
    n1 = counts.pos.sum(axis=1)
    hf = _h2(n1 / n)
    joint = entropy(np.concatenate([counts.pos, counts.neg], axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        su = np.where((hf > _SMALL) & (hc > _SMALL), 2.0 * (hf + hc - joint) / (hf + hc), 0.0)
    return np.clip(su, 0.0, 1.0)


class _Flat(HierarchicalSelector):
    """Shared parts: the hierarchy is accepted (for a uniform API) and ignored."""

    def _scores_to_support(self, scores: np.ndarray, k: int) -> np.ndarray:
        k = max(0, min(int(k), scores.size))
        order = np.argsort(-scores, kind="stable")[:k]
        sup = np.zeros(scores.size, dtype=bool)
        sup[order] = True
        return sup


# ---------------------------------------------------------------------------- CFS
class CFS(_Flat):
    """Correlation-based Feature Selection with best-first search (WEKA defaults).

    Merit of a subset ``S``: ``sum_{f in S} SU(f, C) / sqrt(|S| + 2 sum_{f<g in S} SU(f, g))``.
    The search expands the best open subset by every feature not in it; the merits of all
    those children come from two vectors (the subset's class-correlation sum and its
    per-feature redundancy sums), so one expansion is O(n_features) array work, and the SU
    of a selected feature against all others is one sparse product (cached).

    Parameters
    ----------
    hierarchy : ignored (flat method)
    search_termination : int, non-improving expansions before stopping (WEKA: 5)
    locally_predictive : bool, add locally predictive features after the search (WEKA: True)
    binarize : float or None

    Attributes
    ----------
    merit_ : float, merit of the subset found by the search
    class_correlation_ : ndarray, SU of each feature with the class
    n_evaluations_ : int, subsets evaluated

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 1], [0, 1, 0]])
    >>> cfs = CFS().fit(X, [1, 1, 0, 0])
    >>> cfs.search_subset_.tolist()   # best first finds {0}; its complement 1 is redundant
    [0]
    >>> cfs.get_support().tolist()    # ...but "locally predictive": SU(1, C) = 1 is not > SU(0, 1) = 1
    [True, True, False]
    """

    def __init__(self, hierarchy=None, *, search_termination=5, locally_predictive=True, binarize=None):
        self.hierarchy = hierarchy
        self.search_termination = search_termination
        self.locally_predictive = locally_predictive
        self.binarize = binarize

    def _fit(self, X, y, hierarchy):
        n_feat = X.shape[1]
        counts = ClassCounts(X, y)
        rcf = _class_su(counts).astype(np.float32).astype(np.float64)
        self.class_correlation_ = rcf
        Xc = X.tocsc()
        n1 = np.asarray(X.sum(axis=0)).ravel()
        cache: dict[int, np.ndarray] = {}

        def ff(g: int) -> np.ndarray:  # SU(g, .) with WEKA's "0 means 1" for feature pairs
            row = cache.get(g)
            if row is None:
                su = symmetrical_uncertainty_row(Xc, X, g, n1)
                su = np.where(su < _SMALL, 1.0, su).astype(np.float32).astype(np.float64)
                cache[g] = row = su
            return row

        rng = np.random.default_rng(12345)
        zob = rng.integers(1, 2**63 - 1, size=n_feat, dtype=np.int64)  # subset hashes (Zobrist)
        limit = n_feat + 1  # WEKA: cacheSize (1) * numAttribs (features + class)
        visited: set[int] = {0}
        b2 = 0
        # open list entries: (merit, subset as sorted tuple, hash, class-corr sum, pair sum)
        open_list = [(0.0, (), 0, 0.0, 0.0)]
        best_merit, best = 0.0, ()
        stale = 0
        n_eval = 1
        all_idx = np.arange(n_feat)
        while stale < int(self.search_termination) and open_list:
            _, subset, h, num_s, pair_s = open_list.pop(0)
            in_s = np.zeros(n_feat, dtype=bool)
            in_s[list(subset)] = True
            red = np.zeros(n_feat)
            for g in subset:
                red += ff(g)
            cand = all_idx[~in_s]
            hashes = h ^ zob[cand]
            new = np.fromiter((int(x) not in visited for x in hashes.tolist()), bool, cand.size)
            cand, hashes = cand[new], hashes[new]
            if cand.size == 0:
                stale += 1
                continue
            k = len(subset) + 1
            num = num_s + rcf[cand]
            pair = pair_s + red[cand]
            den = np.abs(k + 2.0 * pair)
            with np.errstate(divide="ignore", invalid="ignore"):
                merit = np.where(den > 0, np.abs(num / np.sqrt(den)), 0.0)
            n_eval += cand.size
            improved = False
            for j in np.flatnonzero(merit - best_merit > 1e-5).tolist():  # sequential, as WEKA
                if merit[j] - best_merit > 1e-5:
                    best_merit, best, improved = float(merit[j]), tuple(sorted(subset + (int(cand[j]),))), True
            # visited cache with WEKA's periodic reset
            for x in hashes.tolist():
                if b2 > limit:
                    visited = set()
                    b2 = 0
                visited.add(int(x))
                b2 += 1
            # open list: stable top-5 of (old entries, new children in index order)
            top = np.argsort(-merit, kind="stable")[: int(self.search_termination)]
            children = [
                (float(merit[j]), tuple(sorted(subset + (int(cand[j]),))), int(hashes[j]), float(num[j]), float(pair[j]))
                for j in top.tolist()
            ]
            merged = open_list + children
            order = sorted(range(len(merged)), key=lambda i: -merged[i][0])  # Python sort is stable
            open_list = [merged[i] for i in order[: int(self.search_termination)]]
            if not improved:
                stale += 1
            else:
                stale = 0
        self.merit_ = best_merit
        self.n_evaluations_ = n_eval
        group = np.zeros(n_feat, dtype=bool)
        group[list(best)] = True
        if self.locally_predictive:
            maxcorr = np.full(n_feat, -np.inf)
            for g in best:
                maxcorr = np.maximum(maxcorr, ff(g))
            for j in np.argsort(-rcf, kind="stable").tolist():
                if group[j]:
                    continue
                if not group.any() or maxcorr[j] <= rcf[j]:
                    group[j] = True
                    maxcorr = np.maximum(maxcorr, ff(j))
        self.search_subset_ = np.array(best, dtype=np.int64)
        self.support_ = group
        self.scores_ = rcf


# ---------------------------------------------------------------------------- ReliefF
class ReliefF(_Flat):
    """ReliefF (Kononenko 1994) as WEKA computes it for nominal 0/1 features.

    Weight of feature ``f``: the mean over all instances ``i`` of
    ``- mean_{h in hits(i)} diff(f, i, h) + sum_{c != y_i} P(c)/(1 - P(y_i)) mean_{m in misses_c(i)} diff(f, i, m)``,
    with ``diff = |x_if - x_jf|`` and the ``n_neighbors`` nearest hits/misses by Hamming
    distance. All weights come from one sparse neighbour-coefficient matrix ``W``:
    ``w = X^T s + (1^T W) X - 2 colsum(X ∘ (W X))`` with ``s = W 1``.

    Parameters
    ----------
    hierarchy : ignored
    n_neighbors : int (10)
    threshold : float, keep features whose weight is > threshold (0.01, as in the RPV paper)
    block_size : int, rows of the distance matrix computed at once
    binarize : float or None

    Attributes
    ----------
    scores_ : ndarray, the ReliefF weights

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 1], [0, 1, 0]])
    >>> ReliefF(n_neighbors=1).fit(X, [1, 1, 0, 0]).get_support().tolist()
    [True, True, False]
    """

    def __init__(self, hierarchy=None, *, n_neighbors=10, threshold=0.01, block_size=2048, binarize=None):
        self.hierarchy = hierarchy
        self.n_neighbors = n_neighbors
        self.threshold = threshold
        self.block_size = block_size
        self.binarize = binarize

    def neighbour_weights(self, X: sp.csr_matrix, y) -> sp.csr_matrix:
        """The sparse coefficient matrix ``W`` (n x n) of hits (negative) and misses (positive)."""
        n = X.shape[0]
        classes, codes = np.unique(y, return_inverse=True)
        prior = np.bincount(codes, minlength=len(classes)) / n
        k = int(self.n_neighbors)
        if k < 1:
            raise ValueError(f"n_neighbors must be >= 1, got {self.n_neighbors!r}")
        nnz = np.diff(X.indptr).astype(np.int64)
        XT = X.T.tocsr()
        members = [np.flatnonzero(codes == c) for c in range(len(classes))]
        rows, cols, vals = [], [], []
        for s in range(0, n, int(self.block_size)):
            e = min(n, s + int(self.block_size))
            g = np.asarray((X[s:e] @ XT).todense()).astype(np.int64)
            d = nnz[s:e, None] + nnz[None, :] - 2 * g  # Hamming distances
            d[np.arange(e - s), np.arange(s, e)] = X.shape[1] + 1  # farther than anything: never its own neighbour
            ci = codes[s:e]
            for c, idx in enumerate(members):
                m = idx.size
                if m == 0:
                    continue
                sub = d[:, idx]
                key = sub * (m + 1) + np.arange(m)[None, :]  # ties -> earlier instance
                kk = min(k, m)
                nb = np.argpartition(key, kk - 1, axis=1)[:, :kk] if kk < m else np.tile(np.arange(m), (e - s, 1))
                # an instance of class c cannot use itself: drop it when it was picked
                self_pick = (idx[nb] == (np.arange(s, e)[:, None]))
                stored = kk - self_pick.sum(axis=1)  # neighbours actually found
                if kk == m and m > 0:
                    stored = np.where(ci == c, m - 1, m)
                same = ci == c
                coef = np.where(same, -1.0, prior[c] / np.maximum(1e-12, 1.0 - prior[ci]))
                with np.errstate(divide="ignore", invalid="ignore"):
                    coef = np.where(stored > 0, coef / np.maximum(stored, 1), 0.0)
                valid = ~self_pick
                r = np.repeat(np.arange(s, e), kk).reshape(e - s, kk)
                rows.append(r[valid])
                cols.append(idx[nb][valid])
                vals.append(np.broadcast_to(coef[:, None], (e - s, kk))[valid])
        W = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))
        return W / n

    def _fit(self, X, y, hierarchy):
        W = self.neighbour_weights(X, y)
        s = np.asarray(W.sum(axis=1)).ravel()
        WX = sp.csr_matrix(W @ X)
        colW = np.asarray(W.sum(axis=0)).ravel()
        w = X.T @ s + X.T @ colW - 2.0 * np.asarray(WX.multiply(X).sum(axis=0)).ravel()
        self.scores_ = np.asarray(w).ravel()
        self.support_ = self.scores_ > float(self.threshold)


# ---------------------------------------------------------------------------- mRMR
class MRMR(_Flat):
    """minimum Redundancy Maximum Relevance (Peng, Long & Ding 2005), MID form, ``k`` features.

    Greedy: first the feature with the largest ``I(f; C)``; then repeatedly the feature with
    the largest ``I(f; C) - mean_{s in S} I(f; s)``. Each step adds one sparse product (the
    co-occurrences of the newly chosen feature with all others). Ties go to the lower index.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 1], [1, 1, 0], [0, 0, 0]])
    >>> MRMR(k=2).fit(X, [1, 1, 0, 0, 1, 1]).selected_.tolist()   # 1 duplicates 0: skipped
    [2, 0]
    """

    def __init__(self, hierarchy=None, *, k=50, binarize=None):
        self.hierarchy = hierarchy
        self.k = k
        self.binarize = binarize

    def _fit(self, X, y, hierarchy):
        n_feat = X.shape[1]
        counts = ClassCounts(X, y)
        rel = information_gain(None, None, counts=counts)
        Xc = X.tocsc()
        n1 = np.asarray(X.sum(axis=0)).ravel()
        k = max(0, min(int(self.k), n_feat))
        chosen: list[int] = []
        red = np.zeros(n_feat)
        avail = np.ones(n_feat, dtype=bool)
        for step in range(k):
            score = rel - (red / step if step else 0.0)
            score = np.where(avail, score, -np.inf)
            # ties (within rounding of the sums) go to the lower index, as documented
            j = int(np.flatnonzero(score >= score.max() - 1e-12)[0])
            chosen.append(j)
            avail[j] = False
            col = Xc[:, j]
            n11 = np.asarray((col.T @ X).todense()).ravel()
            hg, hf, hgf = pairwise_entropies(n11, float(n1[j]), n1, X.shape[0])
            red += np.clip(hg + hf - hgf, 0.0, None)
        self.selected_ = np.array(chosen, dtype=np.int64)
        self.scores_ = rel
        sup = np.zeros(n_feat, dtype=bool)
        sup[chosen] = True
        self.support_ = sup


# ---------------------------------------------------------------------------- Fisher
class FisherScore(_Flat):
    """Fisher score of each binary feature; the top ``k`` are selected (ties: lower index).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 0]])
    >>> FisherScore(k=1).fit(X, [1, 1, 0, 0]).get_support().tolist()
    [True, False, False]
    """

    def __init__(self, hierarchy=None, *, k=50, binarize=None):
        self.hierarchy = hierarchy
        self.k = k
        self.binarize = binarize

    def _fit(self, X, y, hierarchy):
        c = ClassCounts(X, y)
        n_c = c.class_totals[None, :]
        mu_c = c.pos / n_c
        mu = c.pos.sum(axis=1, keepdims=True) / c.n
        num = (n_c * (mu_c - mu) ** 2).sum(axis=1)
        den = (n_c * mu_c * (1.0 - mu_c)).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            score = np.where(den > 0, num / den, np.where(num > 0, np.inf, 0.0))
        self.scores_ = score
        self.support_ = self._scores_to_support(score, self.k)


register_selector("cfs", lambda hierarchy=None, **kw: CFS(hierarchy, **kw), kind="flat",
                  description="CFS: correlation-based feature selection, best-first (WEKA defaults)")
register_selector("relieff", lambda hierarchy=None, **kw: ReliefF(hierarchy, **kw), kind="flat",
                  description="ReliefF: k=10 neighbours, weight > 0.01", defaults={"n_neighbors": 10, "threshold": 0.01})
register_selector("mrmr", lambda hierarchy=None, **kw: MRMR(hierarchy, **kw), kind="flat",
                  description="mRMR (MID), k features", defaults={"k": 50})
register_selector("fisher", lambda hierarchy=None, **kw: FisherScore(hierarchy, **kw), kind="flat",
                  description="Fisher score, top k features", defaults={"k": 50})
