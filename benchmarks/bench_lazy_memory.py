"""Peak memory of lazy selection at scale: MR, HIP and RPV predicting every row of a large table.

A seeded synthetic DAG of 200,000 features (14 levels of growing width; every node below the top
has one parent in the level above and 10% of them a second one near it, the multiple
inheritance of the benchmarks' generator, :func:`bench_lazy.go_like`, at a tenth of its rate)
and a 20,000-instance sparse binary table closed under it (8-32 direct annotations per
instance, biased to deep terms; labels depending on a few deep features).
``LazySelectionClassifier(method(h), LazyNaiveBayes())`` is fitted on the table and predicts all
20,000 rows, a block of rows at a time; each method runs in a fresh child process that reports
its peak RSS and wall times. Measured in the same run:

- ``floor``: a child that builds the table and fits the estimator but predicts nothing;
- ``fixed vs adaptive blocks``: the CPU time of predicting the first ``--sample`` rows in fixed
  blocks of the first block's size (20 rows at 200,000 features, the blocks before they
  adapted) and in the adaptive blocks of ``block_size=None``, and their ratio;
- ``one-shot mask``: the memory of the whole test set's masks at once (``select_for`` of all
  rows, what an evaluation did before it worked in blocks), extrapolated from the masks of
  the first 1,000 rows: ``nnz x 5 bytes`` (bool data + int32 index) per row, times the rows.

Target (issue 15): under 2 GB peak RSS per method.

    python benchmarks/bench_lazy_memory.py [--features 200000] [--instances 20000] [--methods MR HIP RPV]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parents[1]


def synthetic(n_features: int, n_instances: int, multi_parent: float = 0.10, seed: int = 0):
    """A seeded layered DAG (``multi_parent`` of its nodes with two parents) and a closed table."""
    from kg.hierarchy import FeatureHierarchy

    rng = np.random.default_rng(seed)
    n_levels = 14
    widths = np.geomspace(3, 1, n_levels)[::-1] ** 2.5
    level = np.minimum(np.searchsorted(np.cumsum(widths) / widths.sum() * n_features, np.arange(n_features),
                                       side="right"), n_levels - 1)
    starts = np.searchsorted(level, np.arange(n_levels + 1))
    child, parent = [], []
    for lv in range(1, n_levels):
        lo, hi = starts[lv - 1], starts[lv]
        nodes = np.arange(starts[lv], starts[lv + 1])
        first = np.sort(rng.integers(lo, hi, nodes.size))  # neighbours share related parents
        second = np.clip(first + rng.choice([-2, -1, 1, 2], nodes.size), lo, hi - 1)
        extra = (rng.random(nodes.size) < multi_parent) & (second != first)
        child += [nodes, nodes[extra]]
        parent += [first, second[extra]]
    h = FeatureHierarchy([f"f{i}" for i in range(n_features)], np.concatenate(child), np.concatenate(parent))
    n_direct = rng.integers(8, 33, n_instances)
    rows = np.repeat(np.arange(n_instances), n_direct)
    cols = (n_features - 1 - (rng.pareto(1.5, rows.size) * n_features / 8).astype(int)).clip(0, n_features - 1)
    X = h.close(sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n_instances, n_features)))
    signal = np.asarray(X[:, -50:].sum(axis=1)).ravel()
    y = (signal + rng.normal(0, 1, n_instances) > np.median(signal)).astype(int)
    return X.astype(np.float64), y, h


def child(method: str, n_features: int, n_instances: int, sample: int) -> dict:
    """Build, fit and (unless ``method`` is ``floor``) predict every row; the child's figures."""
    import resource

    from selection.lazy import HIP, MR, RPV, LazyNaiveBayes, LazySelectionClassifier

    t = time.perf_counter()
    X, y, h = synthetic(n_features, n_instances)
    out = {"build_s": time.perf_counter() - t, "nnz": int(X.nnz)}
    cls = {"MR": MR, "HIP": HIP, "RPV": RPV, "floor": RPV}[method]
    t = time.perf_counter()
    model = LazySelectionClassifier(cls(h), LazyNaiveBayes()).fit(X, y)
    out["fit_s"] = time.perf_counter() - t
    if method == "floor":
        out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        # the masks of the first rows, to extrapolate what all rows' masks at once would take
        for name, c in (("MR", MR), ("HIP", HIP), ("RPV", RPV)):
            mask = c(h).fit(X, y).select_for(X[:sample])
            out[f"mask_nnz_per_row_{name}"] = mask.nnz / sample
        return out
    t, cpu = time.perf_counter(), time.process_time()
    pred = model.predict(X)
    out["predict_s"], out["predict_cpu_s"] = time.perf_counter() - t, time.process_time() - cpu
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["accuracy"] = float(np.mean(pred == y))
    # the same rows in fixed blocks of the first block's size (the blocks before they adapted)
    fixed = LazySelectionClassifier(cls(h), LazyNaiveBayes(), block_size=model._block_rows()).fit(X, y)
    for name, m in (("fixed_s", fixed), ("adaptive_s", model)):
        cpu = time.process_time()
        m.predict_proba(X[:sample])
        out[name] = time.process_time() - cpu
    return out


def run_child(method: str, args) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", method, "--features", str(args.features),
                           "--instances", str(args.instances), "--sample", str(args.sample)],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if proc.returncode:
        return {"error": (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1],
                "returncode": proc.returncode}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--features", type=int, default=200_000)
    ap.add_argument("--instances", type=int, default=20_000)
    ap.add_argument("--methods", nargs="+", default=["MR", "HIP", "RPV"], choices=["MR", "HIP", "RPV"])
    ap.add_argument("--sample", type=int, default=1_000, help="rows whose masks estimate the one-shot size")
    ap.add_argument("--target-mb", type=float, default=2048.0)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.features, args.instances, args.sample)))
        return 0

    floor = run_child("floor", args)
    if "error" in floor:
        raise SystemExit(f"the floor child failed: {floor['error']}")
    print(f"table {args.instances:,} x {args.features:,} ({floor['nnz']:,} positive values, "
          f"{100 * floor['nnz'] / args.instances / args.features:.3f}%), built in {floor['build_s']:.1f} s; "
          f"floor (table + fitted estimator, no prediction): {floor['peak_mb']:.0f} MB peak RSS")
    print(f"{'method':6s} {'peak RSS':>10s} {'one-shot mask':>14s} {'peak/mask':>10s} {'fit':>7s} "
          f"{'predict all (CPU)':>18s} {'accuracy':>9s}   {args.sample} rows, CPU: fixed vs adaptive blocks")
    ok = True
    for m in args.methods:
        r = run_child(m, args)
        mask_mb = floor[f"mask_nnz_per_row_{m}"] * 5 * args.instances / 2**20
        if "error" in r:
            ok = False
            print(f"{m:6s} FAILED ({r['error']}); one-shot mask {mask_mb:,.0f} MB")
            continue
        ok &= r["peak_mb"] < args.target_mb
        print(f"{m:6s} {r['peak_mb']:7.0f} MB {mask_mb:11,.0f} MB {r['peak_mb'] / mask_mb:9.2f}x "
              f"{r['fit_s']:6.1f}s {r['predict_s']:8.1f}s ({r['predict_cpu_s']:5.1f}s) {r['accuracy']:9.3f}   "
              f"{r['fixed_s']:.1f} s vs "
              f"{r['adaptive_s']:.1f} s ({r['fixed_s'] / r['adaptive_s']:.1f}x)")
    print(f"target: every method under {args.target_mb:.0f} MB peak RSS: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
