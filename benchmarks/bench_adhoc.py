"""ADHOC stages 1-3 on 2,000 features x 1,000 instances (target: under 20 s), against a per-pair loop.

The table has planted structure (``tests/selection/adhoc/adhoc_reference.planted_table``): latent
factors with linear, negated and quadratic noisy copies, plus pure-noise features. Timed:

- vectorised stage 1 (``dependence_matrix``: rank correlation of all pairs + chi-square of all
  pairs on 3 equal-frequency bins), stage 2 + 3 (``factor_hierarchy``: higher-order profile
  correlation, clustering, refinement);
- the baseline, one pair at a time with ``scipy.stats`` (``spearmanr`` + ``chi2_contingency``;
  ``tests/selection/adhoc/adhoc_reference.dependence_loop``) and one higher-order step with
  ``np.corrcoef`` per pair. The loop is far too slow for all 1,999,000 pairs, so it is timed on
  the pairs of the first ``--loop-features`` features and extrapolated linearly in the number of
  pairs (said so in the output).

Run by hand: ``python benchmarks/bench_adhoc.py [--features 2000 --instances 1000]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from selection.adhoc import dependence_matrix, factor_hierarchy, profile_correlation  # noqa: E402
from tests.selection.adhoc.adhoc_reference import (  # noqa: E402
    dependence_loop,
    planted_table,
    profile_correlation_loop,
)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--features", type=int, default=2000)
    ap.add_argument("--instances", type=int, default=1000)
    ap.add_argument("--loop-features", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)

    # ~ 12 copies per latent factor (8 linear, 2 negated, 2 quadratic) and 10% noise features
    n_noise = a.features // 10
    per = 12
    n_groups = (a.features - n_noise) // per
    groups = [(8, 2, 2)] * n_groups
    n_noise = a.features - per * n_groups
    X, lab, kinds, _ = planted_table(a.instances, groups=groups, n_noise=n_noise, noise=0.7, seed=a.seed)
    m = X.shape[1]
    print(f"table: {a.instances} instances x {m} features ({n_groups} planted factors, {n_noise} noise)")

    t0 = time.perf_counter()
    dep = dependence_matrix(X)
    t1 = time.perf_counter()
    res = factor_hierarchy(dep.matrix, constant=dep.constant)
    t2 = time.perf_counter()
    stage1, stage23 = t1 - t0, t2 - t1
    total = stage1 + stage23
    from sklearn.metrics import adjusted_rand_score
    ari = adjusted_rand_score(lab, res.top_labels)
    print(f"vectorised stage 1 (dependence matrix): {stage1:8.2f} s")
    print(f"vectorised stages 2-3 (orders reached {sorted(set(res.orders))}, {len(res.factors)} factor nodes): "
          f"{stage23:8.2f} s")
    print(f"stages 1-3 total:                       {total:8.2f} s  "
          f"(target < 20 s: {'PASS' if total < 20 else 'FAIL'})")
    print(f"adjusted Rand index of the top-level factors vs the planted groups: {ari:.3f}")

    # per-pair baseline on a subset, extrapolated
    k = min(a.loop_features, m)
    idx = np.linspace(0, m - 1, k).astype(int)
    t0 = time.perf_counter()
    ref = dependence_loop(X[:, idx])
    t_loop1 = time.perf_counter() - t0
    pairs_sub, pairs_all = k * (k - 1) / 2, m * (m - 1) / 2
    D = np.abs(dep.matrix)
    t0 = time.perf_counter()
    profile_correlation_loop(D[np.ix_(idx, idx)][:, :])  # k x k pairs over k-long rows...
    t_sub = time.perf_counter() - t0
    # ...one higher-order step over full-length rows costs per pair about what np.corrcoef of two
    # m-long rows costs; time that on the subset's pairs with full rows
    t0 = time.perf_counter()
    for i in range(k):
        for j in range(i + 1, k):
            np.corrcoef(D[idx[i]], D[idx[j]])
    t_loop2 = time.perf_counter() - t0
    del t_sub
    est1 = t_loop1 / pairs_sub * pairs_all
    est2 = t_loop2 / pairs_sub * pairs_all
    t0 = time.perf_counter()
    profile_correlation(D)
    t_vec2 = time.perf_counter() - t0
    err = max(abs(dep.matrix[idx[i], idx[j]] - v) for (i, j), (v, _) in ref.items())
    print(f"per-pair loop, stage 1: {t_loop1:.2f} s for {int(pairs_sub)} pairs -> extrapolated to "
          f"{int(pairs_all)} pairs: {est1:,.0f} s (ratio loop/vectorised: {est1 / stage1:,.0f}x); "
          f"max |difference| on the subset: {err:.1e}")
    print(f"per-pair loop, one higher-order step: {t_loop2:.2f} s for {int(pairs_sub)} pairs -> extrapolated: "
          f"{est2:,.0f} s vs vectorised {t_vec2:.2f} s (ratio {est2 / t_vec2:,.0f}x)")
    print(f"stages 1 + one higher-order step, loop (extrapolated) / vectorised: "
          f"{(est1 + est2) / (stage1 + t_vec2):,.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
