"""The fitness of genomes on fixed data: method 1 (validation accuracy of the whole tree) or
method 2 (per-base-classifier estimates combined by Eq. 7), with the caches that make the GA fast.

Identical and equivalent genomes (same tree, same features per node) share one evaluation, every
base classifier's estimate is cached by (class partition, features), tree layouts by tree genes,
and distances are computed for a whole node at once (exact for ties).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.neighbors import KNeighborsClassifier

from selection.class_hierarchy.ga_tree.genome import Genome
from selection.class_hierarchy.ga_tree.layout import BaseNode, GATree, _build_skeleton, build_tree
from selection.class_hierarchy.ga_tree.measures import (
    _sqdist,
    count_relief,
    fisher_criterion,
    penalised_score,
    relief,
)

__all__ = ["SCORINGS"]

#: Scoring methods: method 1 ("validation") and the base-classifier estimates of method 2.
SCORINGS = ("validation", "cv", "fisher", "fisher-scaled", "relief", "count-relief")


def _is_fast_knn(est) -> int:
    """k when ``est`` is a plain Euclidean, uniform-weight k-NN (vectorised path), else 0."""
    if type(est) is not KNeighborsClassifier:
        return 0
    p = est.get_params()
    if p["weights"] != "uniform" or p["metric_params"]:
        return 0
    if p["metric"] == "euclidean" or (p["metric"] == "minkowski" and p["p"] == 2):
        return int(p["n_neighbors"])
    return 0


def _knn_vote(D: np.ndarray, labels: np.ndarray, k: int, n_labels: int) -> np.ndarray:
    """k-NN prediction from a distance block (rows: queries); ties in votes -> lowest label."""
    if k == 1:
        return labels[np.argmin(D, axis=1)]
    k = min(k, D.shape[1])
    idx = np.argsort(D, axis=1, kind="stable")[:, :k]
    votes = np.zeros((D.shape[0], n_labels))
    np.add.at(votes, (np.repeat(np.arange(D.shape[0]), k), labels[idx].ravel()), 1.0)
    return votes.argmax(axis=1)


def _stratified_split(codes: np.ndarray, fraction: float, seed) -> tuple[np.ndarray, np.ndarray]:
    """Seeded stratified split: ``round(fraction n_c)`` validation samples per class, at least
    one when the class has two or more, none for a one-sample class."""
    rng = np.random.default_rng(seed)
    va = []
    for c in np.unique(codes):
        rows = np.flatnonzero(codes == c)
        if len(rows) < 2:
            continue
        k = int(min(max(round(fraction * len(rows)), 1), len(rows) - 1))
        va.append(rng.permutation(rows)[:k])
    va = np.sort(np.concatenate(va)) if va else np.zeros(0, dtype=np.int64)
    tr = np.setdiff1d(np.arange(len(codes)), va)
    return tr, va


class _Fitness:
    """Scores genomes on fixed data; caches layouts, base-classifier results and tree scores."""

    def __init__(self, X, codes, n_classes, *, scoring, base_estimator, alpha_t, alpha_b, alpha_l,
                 relief_k, cv, validation_fraction, seed, cache=True):
        self.scoring = scoring
        self.base = base_estimator
        self.k_fast = _is_fast_knn(base_estimator)
        self.alphas = (alpha_t, alpha_b, alpha_l)
        self.relief_k = relief_k
        self.C = n_classes
        self.sparse = sp.issparse(X)
        self.F = X.shape[1]
        self.binary = self._is_binary(X)
        self.use_cache = cache
        codes = np.asarray(codes)
        if scoring == "validation":
            tr, va = _stratified_split(codes, validation_fraction, seed)
            self.X, self.y = X[tr], codes[tr]
            self.Xv, self.yv = X[va], codes[va]
        else:
            self.X, self.y = X, codes
        self.n_c = np.bincount(self.y, minlength=self.C).astype(np.float64)
        if scoring == "cv":
            self.folds = self._folds(cv, seed)
        self.rows_of = {}
        self.skeletons: dict[bytes, list[dict]] = {}
        self.node_cache: dict = {}
        self.tree_cache: dict = {}
        self.n_evaluations = 0
        self.n_tree_hits = 0
        self.n_node_computations = 0

    @staticmethod
    def _is_binary(X) -> bool:
        data = X.data if sp.issparse(X) else np.asarray(X).ravel()
        return bool(np.isin(data, (0.0, 1.0)).all())

    def _folds(self, cv: int, seed) -> np.ndarray:
        rng = np.random.default_rng(seed)
        fold = np.empty(len(self.y), dtype=np.int64)
        for c in range(self.C):
            rows = np.flatnonzero(self.y == c)
            fold[rows[rng.permutation(len(rows))]] = np.arange(len(rows)) % cv
        return fold

    # -------------------------------------------------------------- data blocks
    def _rows(self, classes: tuple) -> np.ndarray:
        r = self.rows_of.get(classes)
        if r is None:
            r = self.rows_of[classes] = np.flatnonzero(np.isin(self.y, classes))
        return r

    def _block(self, X, rows, feats):
        if self.sparse:
            return X[:, feats] if rows is None else X[rows][:, feats]
        return X[np.ix_(rows, feats)] if rows is not None else X[:, feats]

    def _dist(self, rows, feats) -> np.ndarray:
        """Squared distances between the training samples ``rows`` on features ``feats``."""
        return _sqdist(self._block(self.X, rows, feats), binary=self.binary)

    # -------------------------------------------------------------- layouts
    def tree(self, genome: Genome) -> GATree:
        tk = genome.tree.astype(np.int8).tobytes()
        sk = self.skeletons.get(tk)
        if sk is None:
            sk = self.skeletons[tk] = _build_skeleton(genome.tree)
        return build_tree(genome, _skeleton=sk)

    # -------------------------------------------------------------- base classifiers
    def _node(self, node: BaseNode):
        key = (node.partition_key(), node.features.tobytes())
        hit = self.node_cache.get(key) if self.use_cache else None
        if hit is not None:
            return hit
        self.n_node_computations += 1
        groups = node.groups()
        classes = tuple(sorted(node.output_of))
        rows = self._rows(classes)
        gmap = np.full(self.C, -1, dtype=np.int64)
        for gi, grp in enumerate(groups):
            gmap[list(grp)] = gi
        lab = gmap[self.y[rows]]
        feats = node.features
        if self.scoring == "validation":
            res = self._predict_validation(rows, lab, feats, len(groups))
        else:
            res = self._estimate(rows, lab, feats, classes, len(groups))
        if self.use_cache:
            self.node_cache[key] = res
        return res

    def _majority(self, lab, n_labels):
        return int(np.argmax(np.bincount(lab, minlength=n_labels)))

    def _predict_validation(self, rows, lab, feats, n_groups) -> np.ndarray:
        """Predicted group of every validation sample by this base classifier."""
        if len(feats) == 0:
            return np.full(len(self.yv), self._majority(lab, n_groups))
        if self.k_fast:
            D = _sqdist(self._block(self.Xv, None, feats), self._block(self.X, rows, feats), binary=self.binary)
            return _knn_vote(D, lab, self.k_fast, n_groups)
        est = clone(self.base).fit(self._block(self.X, rows, feats), lab)
        Bv = self.Xv[:, feats]
        return np.asarray(est.predict(Bv), dtype=np.int64)

    def _estimate(self, rows, lab, feats, classes, n_groups) -> np.ndarray:
        """``A_ic`` for every class (an array over all C classes; nan outside the node)."""
        cls = self.y[rows]
        per_sample = None
        out = np.full(self.C, np.nan)
        s = self.scoring
        if s in ("fisher", "fisher-scaled"):
            if len(feats) == 0:
                J = 0.0
            else:
                B = self._block(self.X, rows, feats)
                J = fisher_criterion(B.toarray() if sp.issparse(B) else B, lab)
                if s == "fisher-scaled":
                    J /= math.sqrt(len(feats))
            out[list(classes)] = J
            return out
        if s == "cv":
            if len(feats) == 0:
                pred = np.full(len(rows), self._majority(lab, n_groups))
            elif self.k_fast:
                D = self._dist(rows, feats)
                f = self.folds[rows]
                D[f[:, None] == f[None, :]] = np.inf
                pred = _knn_vote(D, lab, self.k_fast, n_groups)
            else:
                B = self._block(self.X, rows, feats)
                k = int(min(self.folds.max() + 1, np.bincount(lab).min()))
                if k < 2:
                    pred = np.full(len(rows), self._majority(lab, n_groups))
                else:
                    pred = cross_val_predict(clone(self.base), B, lab, cv=StratifiedKFold(k, shuffle=False))
            per_sample = (pred == lab).astype(np.float64)
        else:
            D = self._dist(rows, feats) if len(feats) else np.zeros((len(rows), len(rows)))
            if s == "count-relief":
                per_sample = count_relief(D, lab)
            else:  # relief: Euclidean distances
                per_sample = relief(np.sqrt(D), lab, self.relief_k)
        sums = np.bincount(cls, weights=per_sample, minlength=self.C)
        cnt = np.bincount(cls, minlength=self.C)
        for c in classes:
            out[c] = sums[c] / cnt[c]
        return out

    # -------------------------------------------------------------- whole tree
    def accuracy(self, tree: GATree) -> float:
        """``A_all``: Eq. 7 (method 2) or the validation accuracy (method 1)."""
        C = self.C
        if self.scoring == "validation":
            return float(np.mean(self.predict_validation(tree) == self.yv))
        prod = np.ones(C)
        for n in tree.nodes:
            est = self._node(n)
            cls = n.classes
            prod[cls] *= est[cls]
        for grp in tree.leaf_groups():
            if len(grp) > 1:
                keep = self._leaf_majority(grp)
                prod[[c for c in grp if c != keep]] = 0.0
        return float((self.n_c * prod).sum() / self.n_c.sum())

    def _leaf_majority(self, grp) -> int:
        grp = list(grp)
        return int(grp[int(np.argmax(self.n_c[grp]))])

    def predict_validation(self, tree: GATree) -> np.ndarray:
        return tree.route(len(self.yv), lambda node, at: self._node(node)[at],
                          lambda grp: grp[0] if len(grp) == 1 else self._leaf_majority(grp))

    def score(self, genome: Genome, tree: GATree | None = None) -> tuple[float, GATree, float]:
        """``(S, tree, A_all)`` of a genome (Eq. 10)."""
        self.n_evaluations += 1
        tree = self.tree(genome) if tree is None else tree
        key = tree.key()
        hit = self.tree_cache.get(key) if self.use_cache else None
        if hit is not None:
            self.n_tree_hits += 1
            return hit[0], tree, hit[1]
        acc = self.accuracy(tree)
        s = penalised_score(acc, tree, self.F, self.C, *self.alphas)
        if self.use_cache:
            self.tree_cache[key] = (s, acc)
        return s, tree, acc
