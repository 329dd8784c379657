"""Flat baselines on a 1,000 x 2,000 sparse binary table: CFS and ReliefF (also mRMR, Fisher).

Ours (``selection/flat/``, sparse counts / sparse distances) against, in the same run:

- the straightforward references in ``tests/selection/flat/flat_reference.py`` (dense loops, the
  same algorithms; results are compared, and must agree);
- with ``--installed``: skfeature-chappers' ``cfs`` and skrebate's ``ReliefF`` (the installable
  ones; about 90 s and 50 s on a quiet machine, far more under load, so they are off by default
  and each is stopped after ``--installed-timeout`` seconds, reported as a lower bound;
  ``pip install skfeature-chappers skrebate``). They implement slightly different variants
  (skfeature: greedy forward search, stops after 4 non-improving steps, no WEKA quirks; skrebate:
  its own neighbour handling and scaling), so only their time is compared.

Target: CFS and ReliefF < 5 s each at this size.

    python benchmarks/bench_flat.py [--instances 1000] [--features 2000] [--installed]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from selection.flat import CFS, MRMR, FisherScore, ReliefF  # noqa: E402
from tests.selection.flat.flat_reference import cfs_reference, relieff_reference  # noqa: E402


def table(n: int, d: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.random((n, d)) < 0.03
    X[:, :40] |= rng.random((n, 40)) < 0.15 * (1 + y[:, None])  # 40 informative features
    return sp.csr_matrix(X.astype(np.float64)), y


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def _installed_worker(name, Xd, y, queue):
    if name == "skfeature-cfs":
        from skfeature.function.statistical_based.CFS import cfs

        fn = lambda: cfs(Xd, y)  # noqa: E731
    else:
        from skrebate import ReliefF as SkReliefF

        fn = lambda: SkReliefF(n_neighbors=10, n_jobs=1).fit(Xd, y)  # noqa: E731
    _, secs = timed(fn)
    queue.put(secs)


def _installed(name: str, Xd, y, timeout: float):
    """Seconds taken by an installed baseline in a child process; inf if it hit ``timeout``."""
    import importlib.util
    import multiprocessing as mp

    if importlib.util.find_spec("skfeature" if name.startswith("skfeature") else "skrebate") is None:
        return None
    q = mp.Queue()
    proc = mp.Process(target=_installed_worker, args=(name, Xd, y, q))
    proc.start()
    proc.join(timeout)
    if proc.is_alive():
        proc.terminate()  # our own child
        proc.join()
        return float("inf")
    return q.get() if not q.empty() else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--instances", type=int, default=1000)
    ap.add_argument("--features", type=int, default=2000)
    ap.add_argument("--installed", action="store_true", help="also time skfeature CFS and skrebate ReliefF")
    ap.add_argument("--installed-timeout", type=float, default=300.0, help="seconds before an installed one is stopped")
    args = ap.parse_args()
    X, y = table(args.instances, args.features)
    Xd = X.toarray()
    print(f"table {X.shape[0]} x {X.shape[1]}, {100 * X.nnz / np.prod(X.shape):.1f}% ones")

    cfs, t_cfs = timed(lambda: CFS().fit(X, y))
    (best, group, _), t_cfs_ref = timed(lambda: cfs_reference(Xd, y))
    same = np.flatnonzero(cfs.get_support()).tolist() == group and cfs.search_subset_.tolist() == best
    print(f"CFS ours: {t_cfs:.2f} s ({cfs.get_support().sum()} features, {cfs.n_evaluations_} subsets evaluated)"
          f" | reference loop: {t_cfs_ref:.1f} s | ratio {t_cfs_ref / t_cfs:.0f}x | same subset: {same}")

    rel, t_rel = timed(lambda: ReliefF().fit(X, y))
    w_ref, t_rel_ref = timed(lambda: relieff_reference(Xd, y, 10))
    close = np.allclose(rel.scores_, w_ref, atol=1e-10)
    print(f"ReliefF ours: {t_rel:.2f} s ({rel.get_support().sum()} features with weight > 0.01)"
          f" | reference loop: {t_rel_ref:.1f} s | ratio {t_rel_ref / t_rel:.0f}x | same weights: {close}")

    _, t_mrmr = timed(lambda: MRMR(k=50).fit(X, y))
    _, t_fisher = timed(lambda: FisherScore(k=50).fit(X, y))
    print(f"mRMR (k=50) ours: {t_mrmr:.2f} s | Fisher (k=50) ours: {t_fisher:.3f} s")

    if args.installed:
        for name, ours in (("skfeature-cfs", t_cfs), ("skrebate-relieff", t_rel)):
            secs = _installed(name, Xd, y, args.installed_timeout)
            if secs is None:
                print(f"{name}: not installed")
            elif np.isinf(secs):
                print(f"{name}: stopped after {args.installed_timeout:.0f} s | ratio to ours > "
                      f"{args.installed_timeout / ours:.0f}x")
            else:
                print(f"{name}: {secs:.1f} s | ratio to ours {secs / ours:.0f}x")
    if not (same and close):
        raise SystemExit("fast and reference implementations disagree")


if __name__ == "__main__":
    main()
