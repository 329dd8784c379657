"""Benchmark: the default GA (500 x 70) of the GA tree on data set 1 with count-based RELIEF.

Target: under 60 s on 2 cores. Prints the GA time, the mean time per fitness
evaluation inside the GA (caches on: identical/equivalent genomes, base-classifier estimates,
tree layouts), the time per evaluation of the vectorised fitness with the caches off, and of a
naive fitness (per-sample Python loops for distances and count-based RELIEF, no cache;
``tests/selection/class_hierarchy/ga_tree_reference.py``), all measured in this run, with the ratios.

Run by hand::

    python benchmarks/bench_ga_tree.py [--noise 0.0] [--n-per-class 100] [--seed 0] [--naive 30]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402

from selection.class_hierarchy.ga_tree import GATreeClassifier, Genome  # noqa: E402
from selection.class_hierarchy.ga_tree.fitness import _Fitness  # noqa: E402
from selection.synthetic.ga import make_ga_dataset  # noqa: E402
from tests.selection.class_hierarchy.ga_tree_reference import naive_fitness  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--noise", type=float, default=0.0)
    ap.add_argument("--n-per-class", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--naive", type=int, default=30, help="genomes timed with the naive fitness")
    args = ap.parse_args(argv)

    d = make_ga_dataset(1, args.noise, n_per_class=args.n_per_class, random_state=args.seed)
    Xtr, Xte, ytr, yte = train_test_split(d.X, d.y, test_size=0.2, stratify=d.y, random_state=args.seed)
    print(f"data set 1, {args.noise:.0%} noise, {len(ytr)} training samples, 5 features, 4 classes; "
          f"CPUs available: {os.cpu_count()}")

    t0 = time.perf_counter()
    clf = GATreeClassifier("count-relief", random_state=args.seed).fit(Xtr, ytr)
    ga_s = time.perf_counter() - t0
    per_eval_ga = ga_s / clf.n_evaluations_
    print(f"default GA (population 500, 50 replaced, 70 generations): {ga_s:.2f} s "
          f"({'under' if ga_s < 60 else 'OVER'} the 60 s target)")
    print(f"  {clf.n_evaluations_} fitness evaluations, {clf.n_cache_hits_} answered by the genome cache, "
          f"{clf.n_node_computations_} base-classifier estimates computed")
    print(f"  best tree: {clf.tree_.n_base} base classifiers, F_t={clf.tree_.f_t}, F_b={clf.tree_.f_b}, "
          f"test accuracy {clf.score(Xte, yte):.3f}")

    rng = np.random.default_rng(args.seed + 1)
    genomes = [Genome.random(4, 5, rng) for _ in range(max(args.naive, 200))]
    fit = _Fitness(Xtr, ytr, 4, scoring="count-relief", base_estimator=KNeighborsClassifier(1), alpha_t=0.05,
                   alpha_b=0.05, alpha_l=0.05, relief_k=1, cv=5, validation_fraction=0.25, seed=0, cache=False)
    t0 = time.perf_counter()
    vec_scores = [fit.score(g)[0] for g in genomes]
    per_eval_vec = (time.perf_counter() - t0) / len(genomes)

    naive = genomes[: args.naive]
    t0 = time.perf_counter()
    naive_scores = [naive_fitness(g, Xtr, ytr)[0] for g in naive]
    per_eval_naive = (time.perf_counter() - t0) / len(naive)
    assert np.allclose(naive_scores, vec_scores[: len(naive)]), "naive and vectorised fitness disagree"

    print("time per fitness evaluation:")
    print(f"  naive (loops, no cache)        {per_eval_naive * 1e3:9.3f} ms")
    print(f"  vectorised, caches off         {per_eval_vec * 1e3:9.3f} ms   naive/vectorised = "
          f"{per_eval_naive / per_eval_vec:7.1f}x")
    print(f"  in the GA (vectorised + cache) {per_eval_ga * 1e3:9.3f} ms   naive/GA = "
          f"{per_eval_naive / per_eval_ga:7.1f}x")
    print(f"  a naive GA would take about {per_eval_naive * clf.n_evaluations_:.0f} s "
          f"({per_eval_naive * clf.n_evaluations_ / ga_s:.0f}x the measured run)")
    return 0 if ga_s < 60 else 1


if __name__ == "__main__":
    raise SystemExit(main())
