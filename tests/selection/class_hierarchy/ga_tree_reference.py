"""Naive references for ``selection.class_hierarchy.ga_tree`` (tests and ``benchmarks/bench_ga_tree.py`` only).

Literal transcriptions: Fig. 4 as pseudocode (with the "first level" reading), count-based RELIEF
(Eq. 8-9) and RELIEF (Eq. 4-6) with a loop over samples, Fisher's criterion (Eq. 1-3) with loops
over samples and groups, and a whole naive fitness (Eq. 7 + Eq. 10) with no cache.
"""

from __future__ import annotations

import math

import numpy as np


def fig4_literal(tree):
    """Fig. 4 line by line; ``separated`` is set at the first level where numInGroup reaches 0."""
    tree = np.asarray(tree)
    n_levels, n_classes = tree.shape
    sep = [-1] * n_classes
    for c in range(n_classes):
        still = [1] * n_classes
        num = n_classes - 1
        for lvl in range(n_levels):
            outc = tree[lvl, c]
            for i in range(n_classes):
                outi = tree[lvl, i]
                if outi != outc and still[i]:
                    still[i] = 0
                    num -= 1
            if num == 0 and sep[c] < 0:
                sep[c] = lvl
    return sep


def count_relief_loop(X, groups):
    X = np.asarray(X, dtype=float).reshape(len(groups), -1)
    n = len(groups)
    out = np.zeros(n)
    for p in range(n):
        d = np.sqrt(((X - X[p]) ** 2).sum(axis=1))
        miss = min(d[i] for i in range(n) if groups[i] != groups[p])
        same = [i for i in range(n) if groups[i] == groups[p] and i != p]
        if not same:
            continue
        out[p] = sum(1 for i in same if d[i] < miss) / len(same)
    return out


def relief_loop(X, groups, k=1):
    X = np.asarray(X, dtype=float).reshape(len(groups), -1)
    n = len(groups)
    out = np.zeros(n)
    for p in range(n):
        d = np.sqrt(((X - X[p]) ** 2).sum(axis=1))
        hits = sorted(d[i] for i in range(n) if groups[i] == groups[p] and i != p)
        misses = sorted(d[i] for i in range(n) if groups[i] != groups[p])
        kk = min(k, len(hits), len(misses))
        if kk:
            out[p] = (sum(misses[:kk]) - sum(hits[:kk])) / kk
    return out


def fisher_loop(X, groups):
    X = np.asarray(X, dtype=float)
    N, d = X.shape
    labels = sorted(set(groups))
    Qw = np.zeros((d, d))
    Qb = np.zeros((d, d))
    for g in labels:
        rows = [i for i in range(N) if groups[i] == g]
        rest = [i for i in range(N) if groups[i] != g]
        M = X[rows].mean(axis=0)
        for i in rows:
            v = (X[i] - M)[:, None]
            Qw += v @ v.T / N
        Mbar = X[rest].mean(axis=0)
        v = (M - Mbar)[:, None]
        Qb += v @ v.T / len(labels)
    return float(np.trace(np.linalg.pinv(Qb + Qw) @ Qb))


def naive_fitness(genome, X, y, alphas=(0.05, 0.05, 0.05), measure="count-relief"):
    """Eq. 7 + Eq. 10 for one genome: per-node measure by loops, no cache."""
    from selection.class_hierarchy.ga_tree import build_tree, penalised_score

    tree = build_tree(genome)
    C = tree.n_classes
    prod = np.ones(C)
    for node in tree.nodes:
        rows = [i for i in range(len(y)) if y[i] in node.output_of]
        grp = [node.output_of[y[i]] for i in rows]
        Xn = X[np.ix_(rows, node.features)] if len(node.features) else np.zeros((len(rows), 1))
        if measure == "count-relief":
            per = count_relief_loop(Xn, grp)
        else:
            per = relief_loop(Xn, grp)
        for c in node.output_of:
            vals = [per[j] for j, i in enumerate(rows) if y[i] == c]
            prod[c] *= sum(vals) / len(vals)
    n_c = np.bincount(y, minlength=C)
    acc = float((n_c * prod).sum() / n_c.sum())
    return penalised_score(acc, tree, X.shape[1], C, *alphas), acc


def naive_knn_predict(Xtr, ytr, Xte):
    out = []
    for x in Xte:
        d = [math.dist(x, t) for t in Xtr]
        out.append(ytr[int(np.argmin(d))])
    return np.array(out)
