"""Straightforward reference implementations of the flat baselines (tests and benchmarks only).

Dense, loop-based, written from the published descriptions (WEKA's CfsSubsetEval/BestFirst
and ReliefFAttributeEval, Peng's mRMR, the Fisher score) without any vectorisation, so the
fast versions in ``selection/flat/`` can be checked against them.
"""

from __future__ import annotations

import math

import numpy as np


def _entropy(counts) -> float:
    tot = float(sum(counts))
    return -sum(c / tot * math.log2(c / tot) for c in counts if c > 0) if tot > 0 else 0.0


def su(a: np.ndarray, b: np.ndarray) -> float:
    """Symmetrical uncertainty of two discrete vectors (0 when either entropy is 0)."""
    va, vb = np.unique(a), np.unique(b)
    ha = _entropy([(a == v).sum() for v in va])
    hb = _entropy([(b == v).sum() for v in vb])
    hab = _entropy([((a == u) & (b == v)).sum() for u in va for v in vb])
    if ha < 1e-6 or hb < 1e-6:
        return 0.0
    return min(1.0, max(0.0, 2.0 * (ha + hb - hab) / (ha + hb)))


def cfs_reference(X: np.ndarray, y: np.ndarray, max_stale: int = 5, locally_predictive: bool = True):
    """WEKA's BestFirst (forward) over CfsSubsetEval merits, one candidate at a time."""
    n = X.shape[1]
    corr_cache: dict = {}

    def corr(i, j):  # j == -1 is the class
        key = (min(i, j), max(i, j))
        if key not in corr_cache:
            if j == -1:
                v = su(X[:, i], y)
            else:
                v = su(X[:, i], X[:, j])
                v = 1.0 if v < 1e-6 else v
            corr_cache[key] = float(np.float32(v))
        return corr_cache[key]

    def merit(subset):
        if not subset:
            return 0.0
        num = sum(corr(i, -1) for i in subset)
        den = 0.0
        s = sorted(subset)
        for a, i in enumerate(s):
            den += 1.0
            for j in s[:a]:
                den += 2.0 * corr(i, j)
        den = abs(den)
        return 0.0 if den == 0 else abs(num / math.sqrt(den))

    lookup = {frozenset()}
    b2 = 0
    open_list = [(0.0, frozenset())]  # sorted by merit desc, max_stale long
    best_merit, best = 0.0, frozenset()
    stale = 0
    while stale < max_stale:
        if not open_list:
            break
        _, subset = open_list.pop(0)
        improved = False
        for f in range(n):
            if f in subset:
                continue
            cand = subset | {f}
            if cand in lookup:
                continue
            m = merit(cand)
            if m - best_merit > 1e-5:
                best_merit, best, improved = m, cand, True
            if b2 > n + 1:
                lookup = set()
                b2 = 0
            # LinkedList2.addToList
            if not open_list:
                open_list.append((m, cand))
            elif m > open_list[0][0]:
                if len(open_list) == max_stale:
                    open_list.pop()
                open_list.insert(0, (m, cand))
            elif len(open_list) != max_stale or m > open_list[-1][0]:
                for pos in range(len(open_list)):
                    if m > open_list[pos][0]:
                        if len(open_list) == max_stale:
                            open_list.pop()
                        open_list.insert(pos, (m, cand))
                        break
                    if pos == len(open_list) - 1:
                        open_list.append((m, cand))
                        break
            lookup.add(cand)
            b2 += 1
        if not improved:
            stale += 1
        else:
            stale = 0
    group = set(best)
    if locally_predictive:
        considered = set(best)
        while True:
            left = [f for f in range(n) if f not in considered]
            if not left:
                break
            j = max(left, key=lambda f: (corr(f, -1), -f))
            considered.add(j)
            if all(corr(i, j) <= corr(j, -1) for i in group):
                group.add(j)
    return sorted(best), sorted(group), best_merit


def relieff_reference(X: np.ndarray, y: np.ndarray, k: int = 10) -> np.ndarray:
    """ReliefF weights for 0/1 features: every instance, k nearest hits and misses (Hamming)."""
    n, d = X.shape
    classes, codes = np.unique(y, return_inverse=True)
    prior = np.bincount(codes) / n
    w = np.zeros(d)
    for i in range(n):
        dist = np.abs(X - X[i]).sum(axis=1)
        for c in range(len(classes)):
            idx = [j for j in range(n) if codes[j] == c and j != i]
            idx.sort(key=lambda j: (dist[j], j))
            nb = idx[:k]
            if not nb:
                continue
            diff = np.abs(X[nb] - X[i]).sum(axis=0) / len(nb)
            if c == codes[i]:
                w -= diff
            else:
                w += prior[c] / (1 - prior[codes[i]]) * diff
    return w / n


def mutual_information(a: np.ndarray, b: np.ndarray) -> float:
    va, vb = np.unique(a), np.unique(b)
    ha = _entropy([(a == v).sum() for v in va])
    hb = _entropy([(b == v).sum() for v in vb])
    hab = _entropy([((a == u) & (b == v)).sum() for u in va for v in vb])
    return max(0.0, ha + hb - hab)


def mrmr_reference(X: np.ndarray, y: np.ndarray, k: int) -> list[int]:
    n = X.shape[1]
    rel = [mutual_information(X[:, f], y) for f in range(n)]
    chosen: list[int] = []
    for _ in range(min(k, n)):
        best, best_s = None, -np.inf
        for f in range(n):
            if f in chosen:
                continue
            s = rel[f] - (np.mean([mutual_information(X[:, f], X[:, g]) for g in chosen]) if chosen else 0.0)
            if s > best_s + 1e-12:
                best, best_s = f, s
        chosen.append(best)
    return chosen


def fisher_reference(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = []
    for f in range(X.shape[1]):
        num = den = 0.0
        for c in np.unique(y):
            xc = X[y == c, f]
            num += len(xc) * (xc.mean() - X[:, f].mean()) ** 2
            den += len(xc) * xc.var()
        out.append(num / den if den > 0 else (np.inf if num > 0 else 0.0))
    return np.array(out)
