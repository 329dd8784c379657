"""Per-pair reference for ADHOC's first-order dependence, and tables with planted factors.

Tests and benchmarks only. :func:`dependence_loop` computes each pair on its own with
``scipy.stats`` (``spearmanr``/``pearsonr``, ``chi2_contingency``), the straightforward way the
vectorised :func:`selection.adhoc.dependence.dependence_matrix` must agree with. :func:`planted_table`
generates features that are noisy copies (linear, negated or quadratic) of a few latent factors
plus pure-noise features, with the planted group of every feature.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import chi2_contingency, pearsonr, rankdata, spearmanr

from selection.adhoc.discretize import mdl_bins


def cramers_v_pair(a: np.ndarray, b: np.ndarray) -> float:
    """Bias-corrected Cramer's V (Bergsma 2013) of two code vectors, from scipy's chi-square."""
    ua, ia = np.unique(a, return_inverse=True)
    ub, ib = np.unique(b, return_inverse=True)
    if ua.size < 2 or ub.size < 2:
        return 0.0
    table = np.zeros((ua.size, ub.size))
    np.add.at(table, (ia, ib), 1)
    n = a.size
    chi2 = chi2_contingency(table, correction=False)[0]
    phi2 = chi2 / n
    r, k = ua.size, ub.size
    phi2c = max(0.0, phi2 - (k - 1) * (r - 1) / (n - 1))
    rc = r - (r - 1) ** 2 / (n - 1)
    kc = k - (k - 1) ** 2 / (n - 1)
    den = min(kc - 1, rc - 1)
    return float(min(1.0, np.sqrt(phi2c / den))) if den > 1e-12 else 0.0


def _bins(x: np.ndarray, n_bins: int) -> np.ndarray:
    r = rankdata(x)
    return np.minimum(((r - 1.0) * n_bins / x.size).astype(int), n_bins - 1)


def dependence_loop(numeric=None, symbolic_codes=None, y=None, *, numeric_test="spearman", nonlinear=True,
                    n_bins=3, pairs=None):
    """Entries ``(i, j) -> (value, test name)`` computed one pair at a time (numeric columns first).

    ``pairs``: the pairs to compute (default: all ``i < j``).
    """
    num = np.zeros((0, 0)) if numeric is None else np.asarray(numeric, dtype=float)
    sym = None if symbolic_codes is None else np.asarray(symbolic_codes)
    p = num.shape[1] if numeric is not None else 0
    s = sym.shape[1] if sym is not None else 0
    m = p + s
    cols = [num[:, j] for j in range(p)] + ([sym[:, j] for j in range(s)] if s else [])
    is_sym = [False] * p + [True] * s
    mdl = None
    if s and p:
        if y is None:
            mdl = np.column_stack([_bins(num[:, j], n_bins) for j in range(p)])
        else:
            mdl = mdl_bins(num, y, n_bins)[0]
    const = [np.unique(c).size < 2 for c in cols]
    out = {}
    if pairs is None:
        pairs = [(i, j) for i in range(m) for j in range(i + 1, m)]
    for i, j in pairs:
        a, b = cols[i], cols[j]
        if const[i] or const[j]:
            out[i, j] = (0.0, "constant")
        elif not is_sym[i] and not is_sym[j]:
            r = (spearmanr(a, b)[0] if numeric_test == "spearman" else pearsonr(a, b)[0])
            val, test = float(r), numeric_test
            if nonlinear and np.unique(a).size > 2 and np.unique(b).size > 2:
                v = cramers_v_pair(_bins(a, n_bins), _bins(b, n_bins))
                if v > abs(val):
                    val, test = v, "chi2-binned"
            out[i, j] = (val, test)
        elif is_sym[i] and is_sym[j]:
            out[i, j] = (cramers_v_pair(a, b), "cramers-v")
        else:
            ni = i if not is_sym[i] else j
            si = j if ni == i else i
            out[i, j] = (cramers_v_pair(mdl[:, ni], cols[si]), "cramers-v-mdl")
    return out


def profile_correlation_loop(D: np.ndarray) -> np.ndarray:
    """Higher-order correlation one pair at a time: ``np.corrcoef`` of two rows."""
    m = D.shape[0]
    out = np.eye(m)
    for i in range(m):
        for j in range(i + 1, m):
            a, b = D[i], D[j]
            if a.std() < 1e-12 or b.std() < 1e-12:
                c = 0.0
            else:
                c = float(np.corrcoef(a, b)[0, 1])
            out[i, j] = out[j, i] = c
    return out


def planted_table(n=500, *, groups=((4, 3), (4, 0, 1), (3, 2), (4,)), n_noise=6, noise=0.5, seed=0):
    """Features planted on latent factors; returns ``(X, groups_of_features, kinds, Z)``.

    ``groups``: per latent factor ``(linear, quadratic[, negated])`` copy counts. Latent factors
    are standard normal, so ``z`` and ``z**2`` are uncorrelated (Pearson ~0) but dependent.
    Noise features get their own group each (label ``>= len(groups)``).
    """
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, len(groups)))
    cols, lab, kinds = [], [], []
    for g, spec in enumerate(groups):
        lin, quad, neg = (tuple(spec) + (0, 0, 0))[:3]
        for _ in range(lin):
            cols.append(Z[:, g] + noise * rng.normal(size=n))
            lab.append(g)
            kinds.append("linear")
        for _ in range(quad):
            cols.append(Z[:, g] ** 2 + noise * rng.normal(size=n))
            lab.append(g)
            kinds.append("quadratic")
        for _ in range(neg):
            cols.append(-Z[:, g] + noise * rng.normal(size=n))
            lab.append(g)
            kinds.append("negated")
    for k in range(n_noise):
        cols.append(rng.normal(size=n))
        lab.append(len(groups) + k)
        kinds.append("noise")
    return np.column_stack(cols), np.array(lab), kinds, Z
