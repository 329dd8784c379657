"""Cycles of a Wikidata-shaped P279 graph: broken (before) against merged (issue 37 point 4).

The class graph is the one :mod:`benchmarks.bench_wikidata_scale` writes into its dump for the same
``--triples`` and seed (the same draws of its ``random.Random(seed)``: a layered graph where a class has
1-3 parents among older classes, and for 0.5% of the classes one parent also made its subclass: the
cycles), without the rest of the dump (no ingest: the hierarchy is what is measured). ``--entities``
items each have ``wdt:P31`` classes (Poisson(1.2) of them, Zipf(1.1) over the classes, as the dump's
items). The edges are those above the items' classes (what a source answers for them).

Each case builds ``FeatureHierarchy.from_edges`` and the closed table (``FeatureTable.from_facts``):

- ``break (before)``: the code of ``--before`` (a git revision of this checkout, default the commit
  before cycles were merged), ``on_cycle="break"``;
- ``break (now)``: this checkout, ``on_cycle="break"`` (the categories' policy);
- ``merge (now)``: this checkout, ``on_cycle="merge"`` (the types' policy).

For each: seconds (best of ``--repeat``; the objects the script holds are frozen out of the garbage
collector's passes, which otherwise traverse the millions of edge tuples again and again and move
the times by several times from one run to the next), and the number of items whose features differ from the true
transitive closure of the original graph (computed apart: ``E <- E + E @ A`` until it stops growing, on
the items x classes matrix; for the merged hierarchy mapped through ``lookup``). ``--copies K`` also
copies the class graph under K predicates (ids ``out:Pk|Q..``, as qualified relations copy it) for a
bigger graph with K times the cycles (the slow case of the break path at 20M).

    python benchmarks/bench_cycles.py [--triples 20M] [--entities 10000] [--copies 0 30] [--repeat 1]
        [--before REV]

Measured here on 2026-12-03 (``--triples 20M --entities 10000 --copies 0 30 150 --repeat 2``, load 6-8 on 2
shared cores; 32,520 classes, 10,349 P279 edges above the items' 3,005 classes):

=====================  ==========  ===========  ============  =========================================
graph                  break before break now    merge now     items differing from the closure (b / m)
=====================  ==========  ===========  ============  =========================================
P279 (10,349 edges)    0.03 s      0.02 s       0.02 s        306 / 0 of 10,000 (76 edges removed, 75 cycles)
x30 (310,470 edges)    2.07 s      1.28 s       1.20 s        306 / 0
x150 (1,552,350 edges) 31.1 s      6.0 s        5.1 s         306 / 0 (11,400 edges removed, 11,250 merged)
=====================  ==========  ===========  ============  =========================================

(x150 without ``gc.freeze``, in an earlier run: 181.7 s before, 15.9 s merged.)
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import random
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_dbpedia_scale import zipf  # noqa: E402
from bench_wikidata_scale import TRIPLES_PER_ITEM  # noqa: E402

from kg.hierarchy import FeatureHierarchy  # noqa: E402
from kg.table import FeatureTable  # noqa: E402

BEFORE = "42a8815"  # branch hier's base: cycles broken whatever the relation


def class_graph(n_triples: int, seed: int = 0) -> tuple[int, np.ndarray, np.ndarray]:
    """``(n_classes, child, parent)`` (class numbers from 1) of bench_wikidata_scale's P279 lines."""
    prng = random.Random(seed)
    n_items = max(1000, int(n_triples / TRIPLES_PER_ITEM))
    n_classes = max(200, n_items // 30)
    child, parent = [], []
    for c in range(1, n_classes + 1):
        prng.choice([1, 2, 2, 3])  # the words of the class's label
        if c > 1:
            parents = sorted({1 + int((c - 1) * prng.random() ** 2) for _ in range(prng.choice([1, 1, 2, 2, 3]))})
            child += [c] * len(parents)
            parent += parents
            if prng.random() < 0.005:
                child.append(parents[-1])
                parent.append(c)
    return n_classes, np.asarray(child, np.int64), np.asarray(parent, np.int64)


def items(n_classes: int, n: int, seed: int = 11) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    k = rng.poisson(1.2, n)
    cls = zipf(rng, n_classes, int(k.sum()), 1.1) + 1
    return np.split(cls, np.cumsum(k)[:-1])


def above(n_classes: int, child: np.ndarray, parent: np.ndarray, start: np.ndarray) -> np.ndarray:
    """The edges reachable upward from the classes ``start`` (a mask over the edges)."""
    n = n_classes + 2  # class numbers from 1, and a virtual root n - 1 pointing at the start classes
    rows = np.concatenate([child, np.full(len(start), n - 1)])
    cols = np.concatenate([parent, start])
    g = sp.csr_matrix((np.ones(len(rows), np.int8), (rows, cols)), shape=(n, n))
    seen = np.zeros(n, bool)
    seen[breadth_first_order(g, n - 1, directed=True, return_predecessors=False)] = True
    return seen[child]


def true_closure(direct: sp.csr_matrix, a: sp.csr_matrix) -> sp.csr_matrix:
    """Items x classes reachability in the original graph (cycles and all): ``E <- E + E @ A`` to a fixpoint."""
    e = direct.astype(np.int32).tocsr()
    e.data[:] = 1
    a = a.astype(np.int32).tocsr()
    while True:
        nxt = (e + e @ a).tocsr()
        nxt.data[:] = 1
        if nxt.nnz == e.nnz:
            return nxt
        e = nxt


def load_before(rev: str):
    """``kg/hierarchy.py`` at ``rev``, as a module of its own (the table is built with this checkout's code)."""
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:kg/hierarchy.py"], check=True,
                         capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "hierarchy_before.py"
    path.write_text(src, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("hierarchy_before", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.FeatureHierarchy


def run_case(cls, edges, facts, on_cycle, repeat):
    best, h = float("inf"), None
    gc.collect()
    gc.freeze()  # the edges, facts and true closure held here are not traversed by every collection of the case
    for _ in range(repeat):
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            h = cls.from_edges(edges, on_cycle=on_cycle)
        t1 = time.perf_counter()
        best = min(best, t1 - t0)
    if cls is not FeatureHierarchy:  # the old hierarchy's nodes and edges, in today's class (for the table)
        h = FeatureHierarchy(h.node_ids, *h.edges, removed_edges=h.removed_edges)
    t0 = time.perf_counter()
    table = FeatureTable.from_facts(facts, h)
    took = time.perf_counter() - t0
    gc.unfreeze()
    return best, took, h, table


def differing(table: FeatureTable, h: FeatureHierarchy, truth: sp.csr_matrix, class_ids: list[str]) -> int:
    """Items whose closed features differ from the true closure mapped through ``h.lookup``."""
    col = table.hierarchy.column_index  # the columns of the table (features of no item dropped)
    mapped = np.asarray([col.get(x, -1) for x in class_ids], np.int64)
    t = truth.tocoo()
    ok = mapped[t.col] >= 0
    want = sp.csr_matrix((np.ones(int(ok.sum()), np.int8), (t.row[ok], mapped[t.col[ok]])), shape=table.X.shape)
    want.sum_duplicates()
    want.data[:] = 1
    got = table.X.astype(np.int8).tocsr()
    diff = abs(got.astype(np.int16) - want.astype(np.int16)).tocsr()
    diff.eliminate_zeros()
    return int((np.diff(diff.indptr) > 0).sum())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--triples", default="20M", help="the dump's size the class graph is drawn for (e.g. 20M)")
    ap.add_argument("--entities", type=int, default=10_000)
    ap.add_argument("--copies", type=int, nargs="+", default=[0, 30])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--before", default=BEFORE)
    args = ap.parse_args(argv)
    n_triples = int(float(args.triples.rstrip("MmKk")) * (1e6 if args.triples[-1] in "Mm" else
                                                          1e3 if args.triples[-1] in "Kk" else 1))
    n_classes, child, parent = class_graph(n_triples)
    per_item = items(n_classes, args.entities)
    start = np.unique(np.concatenate(per_item))
    keep = above(n_classes, child, parent, start)
    child, parent = child[keep], parent[keep]
    Before = load_before(args.before)
    print(f"class graph of a {args.triples}-triple dump: {n_classes:,} classes; above the {args.entities:,} items' "
          f"{len(start):,} classes: {len(child):,} P279 edges", flush=True)
    for k in args.copies:
        tags = [""] if k == 0 else [f"out:P{j}|" for j in range(k)]
        names = [f"Q{c}" for c in range(n_classes + 1)]
        class_ids = [t + names[c] for t in tags for c in range(1, n_classes + 1)]
        edges = [(t + names[c], t + names[p]) for t in tags for c, p in zip(child.tolist(), parent.tolist())]
        facts = {f"i{i}": [t + names[c] for t in tags for c in cs.tolist()] for i, cs in enumerate(per_item)}
        # the true closure, on the original graph (ids: class_ids' order)
        m = len(class_ids)
        pos = {x: j for j, x in enumerate(class_ids)}
        a = sp.csr_matrix((np.ones(len(edges), np.int8), ([pos[c] for c, _ in edges], [pos[p] for _, p in edges])),
                          shape=(m, m))
        rows = [r for r, fs in enumerate(facts.values()) for _ in fs]
        cols = [pos[f] for fs in facts.values() for f in fs]
        direct = sp.csr_matrix((np.ones(len(rows), np.int8), (rows, cols)), shape=(len(facts), m))
        t0 = time.perf_counter()
        truth = true_closure(direct, a)
        print(f"\n{'' if k == 0 else f'x{k} copies (qualified-relations-like): '}{len(edges):,} edges; true closure "
              f"{truth.nnz:,} cells in {time.perf_counter() - t0:.1f} s", flush=True)
        rows_out = {}
        for name, cls, policy in (("break (before)", Before, "break"), ("break (now)", FeatureHierarchy, "break"),
                                  ("merge (now)", FeatureHierarchy, "merge")):
            secs, table_secs, h, table = run_case(cls, edges, facts, policy, args.repeat)
            lost = differing(table, h, truth, class_ids)
            rows_out[name] = secs
            print(f"  {name:15s} from_edges {secs:8.2f} s, table {table_secs:6.2f} s; {h.n_nodes:,} nodes, "
                  f"{len(h.removed_edges):,} edges removed, {len(h.merged):,} cycles merged; "
                  f"items whose features differ from the closure: {lost:,} of {len(facts):,}", flush=True)
        before = rows_out["break (before)"]
        print(f"  ratio from_edges break (before) / merge (now): {before / rows_out['merge (now)']:.1f}x;"
              f" break (before) / break (now): {before / rows_out['break (now)']:.1f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
