"""HiFSRR speed: 10,000 samples x 500 features, a 3-level class tree with 20 leaves.

Target: HiFSRR in under 30 s, printed next to a naive version of Algorithm 1 that
recomputes ``X_i' X_i``, forms the n x n centring matrix ``H`` and the ``U_l = H W_l W_l' H``
explicitly and inverts the dense system matrix (``np.linalg.inv``) at every node and iteration,
as the equations read. Both run the same number of iterations from the same initial weights and
are checked to give the same weights.

Run by hand (not by pytest):

    python benchmarks/bench_hifsrr.py [--samples 10000] [--features 500] [--threads 1] [--wide]

``--threads`` limits the BLAS threads of both versions (default 1: the machine is shared and
thread oversubscription makes timings meaningless; pass 0 for the library default).
``--wide`` adds a case with more features than samples (600 x 3,000, 3 iterations), where
HiFSRR switches to the sample-space (Woodbury) form, timed against the n x n form.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from selection.class_hierarchy.hifsrr import fit_hifsrr, node_tasks  # noqa: E402
from selection.synthetic.class_tree import make_hierarchical_classification  # noqa: E402


def naive_hifsrr(X, leaf, tree, *, lam, alpha, beta, n_iter, random_state, eps=1e-12):
    """Algorithm 1 with explicit inverses, explicit H and Gram matrices rebuilt every iteration."""
    tasks = node_tasks(tree, leaf)
    d = max(len(t.children) for t in tasks)
    n = X.shape[1]
    rng = np.random.RandomState(random_state)
    W = [rng.standard_normal((n, d)) for _ in tasks]
    pos = {t.node: k for k, t in enumerate(tasks)}
    for _ in range(n_iter):
        for k, t in enumerate(tasks):
            Xi = X[t.rows]
            Y = np.zeros((t.rows.size, d))
            Y[np.arange(t.rows.size), t.target] = 1
            D = np.diag(1 / (2 * np.sqrt((W[k] ** 2).sum(1) + eps)))
            H = np.eye(n) - np.ones((n, n)) / n
            par = pos.get(int(tree.parent[t.node]))
            kids = [pos[c] for c in tree.children(t.node) if c in pos]
            A = Xi.T @ Xi + lam * D + alpha * ((par is not None) + len(kids)) * np.eye(n)
            B = Xi.T @ Y + alpha * sum((W[j] for j in ([par] if par is not None else []) + kids), np.zeros((n, d)))
            for s in tree.siblings(t.node):
                if s in pos:
                    U = H @ W[pos[s]] @ W[pos[s]].T @ H
                    A = A + beta * (U + U.T)
            W[k] = np.linalg.inv(A) @ B
    return W


def run(samples, features, threads, seed=0):
    n_class_features = 4
    n_noise = features - 20 * n_class_features
    d = make_hierarchical_classification(n_samples=samples, n_groups=4, n_classes_per_group=5,
                                         n_class_features=n_class_features, n_noise=n_noise, class_sep=1.0,
                                         group_sep=1.0, random_state=seed)
    X = (d.X - d.X.mean(0)) / d.X.std(0)
    leaf = d.tree.leaf_indices(d.y)
    kw = dict(lam=10.0, alpha=0.1, beta=0.1)
    print(f"data: {X.shape[0]:,} samples x {X.shape[1]} features; tree: {d.tree!r}")
    t0 = time.perf_counter()
    res = fit_hifsrr(X, leaf, d.tree, random_state=seed, **kw)
    t_fast = time.perf_counter() - t0
    print(f"HiFSRR      : {t_fast:8.2f} s  ({res.n_iter} iterations to tol 1e-5, forms {sorted(set(res.forms))}, "
          f"J {res.objective[0]:.6g} -> {res.objective[-1]:.6g})")
    t0 = time.perf_counter()
    ref = naive_hifsrr(X, leaf, d.tree, n_iter=res.n_iter, random_state=seed, **kw)
    t_naive = time.perf_counter() - t0
    print(f"naive (inv) : {t_naive:8.2f} s  (same {res.n_iter} iterations)")
    err = max(float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300)) for a, b in zip(res.W, ref))
    print(f"ratio naive / HiFSRR: {t_naive / t_fast:.1f}x   max relative difference of the weights: {err:.1e}")
    target = "met" if t_fast < 30 else "MISSED"
    print(f"target HiFSRR < 30 s: {target}  (BLAS threads: {threads or 'default'})")
    return t_fast, t_naive


def run_wide(seed=0):
    d = make_hierarchical_classification(n_samples=600, n_groups=4, n_classes_per_group=5, n_class_features=4,
                                         n_noise=3000 - 80, random_state=seed)
    X = (d.X - d.X.mean(0)) / d.X.std(0)
    leaf = d.tree.leaf_indices(d.y)
    times = {}
    for solver in ("r x r", "n x n"):
        t0 = time.perf_counter()
        fit_hifsrr(X, leaf, d.tree, max_iter=3, tol=0, solver=solver, random_state=seed)
        times[solver] = time.perf_counter() - t0
        print(f"wide 600 x 3,000, 3 iterations, {solver} form: {times[solver]:7.2f} s")
    print(f"ratio n x n / r x r (Woodbury): {times['n x n'] / times['r x r']:.1f}x")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=10_000)
    ap.add_argument("--features", type=int, default=500)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--wide", action="store_true")
    a = ap.parse_args(argv)
    from threadpoolctl import threadpool_limits

    limits = threadpool_limits(limits=a.threads) if a.threads else None
    try:
        run(a.samples, a.features, a.threads)
        if a.wide:
            run_wide()
    finally:
        if limits is not None:
            limits.restore_original_limits()


if __name__ == "__main__":
    main()
