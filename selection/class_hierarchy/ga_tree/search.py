"""The steady-state GA of section III-E over genomes (choices 8-9 of :mod:`selection.class_hierarchy.ga_tree`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from selection.class_hierarchy.ga_tree.fitness import _Fitness
from selection.class_hierarchy.ga_tree.genome import Genome
from selection.class_hierarchy.ga_tree.layout import GATree

__all__ = ["GAResult", "run_ga"]


@dataclass
class GAResult:
    """Outcome of :func:`run_ga`.

    Parameters
    ----------
    genome : Genome
        The best individual.
    tree : GATree
        Its layout.
    score, accuracy : float
        Its Eq. 10 score and ``A_all``.
    history : list of float
        Best score after each generation (the first entry: the initial population).
    n_evaluations, n_cache_hits, n_node_computations : int
        Fitness evaluations, of which answered by the tree cache, and base-classifier estimates
        computed.

    Examples
    --------
    >>> from selection.class_hierarchy.ga_tree.layout import flat_tree
    >>> r = GAResult(Genome(np.ones((1, 2), bool), [[0, 1]]), flat_tree(2, [0, 1]), 0.9, 1.0)
    >>> r.tree.used_features(), r.history
    ([0, 1], [])
    """

    genome: Genome
    tree: GATree
    score: float
    accuracy: float
    history: list = field(default_factory=list)
    n_evaluations: int = 0
    n_cache_hits: int = 0
    n_node_computations: int = 0


def _rank_key(score: float, tree: GATree, order: int) -> tuple:
    return (-round(score, 12), tree.n_base, tree.f_b, tree.f_t, order)


def _crossover(a: Genome, b: Genome, rng: np.random.Generator, flat: bool) -> tuple[Genome, Genome]:
    if flat or rng.random() < 0.5:  # feature part: one-point crossover
        fa, fb = a.features.ravel(), b.features.ravel()
        if flat:
            n = a.features.shape[1]
            fa, fb = fa[:n], fb[:n]
        if fa.size > 1:
            pt = int(rng.integers(1, fa.size))
            ca = np.concatenate([fa[:pt], fb[pt:]])
            cb = np.concatenate([fb[:pt], fa[pt:]])
        else:
            ca, cb = fb.copy(), fa.copy()
        if flat:
            ca = np.concatenate([ca, a.features.ravel()[ca.size:]])
            cb = np.concatenate([cb, b.features.ravel()[cb.size:]])
        ta, tb = (a.tree, b.tree) if rng.random() < 0.5 else (b.tree, a.tree)  # attached at random
        return Genome(ca.reshape(a.features.shape), ta), Genome(cb.reshape(a.features.shape), tb)
    # tree part: one-point swap
    j = int(rng.integers(a.tree.size))
    ta, tb = a.tree.copy(), b.tree.copy()
    ta.flat[j], tb.flat[j] = b.tree.flat[j], a.tree.flat[j]
    return Genome(a.features, ta), Genome(b.features, tb)


def _mutate(g: Genome, rng: np.random.Generator, flat: bool) -> Genome:
    nf = g.features.shape[1] if flat else g.features.size
    nt = 0 if flat else g.tree.size
    j = int(rng.integers(nf + nt))
    if j < nf:
        f = g.features.copy()
        f.flat[j] = not f.flat[j]
        return Genome(f, g.tree)
    j -= nf
    t = g.tree.copy()
    C = t.shape[1]
    if C > 1:
        t.flat[j] = (t.flat[j] + int(rng.integers(1, C))) % C  # a different output
    return Genome(g.features, t)


def run_ga(fitness: _Fitness, n_classes: int, n_features: int, *, population_size=500, n_replace=50,
           n_generations=70, mutation_rate=0.5, feature_prob=0.5, tournament=2, flat=False,
           rng: np.random.Generator) -> GAResult:
    """The steady-state GA of section III-E over ``fitness`` (choices 8 and 9 of the package docstring).

    Parameters
    ----------
    fitness : _Fitness
        Scores genomes on the training data (see :mod:`selection.class_hierarchy.ga_tree.fitness`).
    n_classes, n_features : int
    population_size, n_replace, n_generations : int
        Individuals, children per generation (replacing the worst), generations.
    mutation_rate : float
        Probability that a child gets a one-point mutation.
    feature_prob : float
        Probability that a feature gene of an initial genome is 1.
    tournament : int
        Tournament size of the parent selection.
    flat : bool
        Fixed tree part (every class its own output at level 0): flat GA feature selection.
    rng : numpy.random.Generator

    Returns
    -------
    GAResult

    Examples
    --------
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> from selection.class_hierarchy.ga_tree.fitness import _Fitness
    >>> from selection.synthetic.ga import make_ga_dataset
    >>> d = make_ga_dataset(2, noise=0.0, n_per_class=20, random_state=0)
    >>> fit = _Fitness(d.X, d.y, 4, scoring="count-relief", base_estimator=KNeighborsClassifier(1), alpha_t=0.05,
    ...                alpha_b=0.05, alpha_l=0.05, relief_k=1, cv=5, validation_fraction=0.25, seed=0)
    >>> res = run_ga(fit, 4, 4, population_size=60, n_replace=10, n_generations=10, rng=np.random.default_rng(0))
    >>> res.tree.n_base, res.tree.used_features(), res.accuracy   # feature 0 alone separates the 4 classes
    (1, [0], 1.0)
    """
    P = int(population_size)
    R = int(min(n_replace, P))
    if P < 2:
        raise ValueError(f"population_size must be at least 2, got {population_size}")

    def fix(g: Genome) -> Genome:
        if flat:  # the tree part is fixed: every class its own output at level 0
            t = np.zeros_like(g.tree)
            t[0] = np.arange(t.shape[1])
            f = g.features.copy()
            f[1:] = False
            return Genome(f, t)
        return g

    pop = [fix(Genome.random(n_classes, n_features, rng, feature_prob)) for _ in range(P)]
    scored = [fitness.score(g) for g in pop]
    scores = np.array([s[0] for s in scored])
    keys = [_rank_key(s[0], s[1], i) for i, s in enumerate(scored)]
    born = P
    best_i = min(range(P), key=lambda i: keys[i])
    best = (pop[best_i], scored[best_i], keys[best_i])
    history = [float(scores[best_i])]
    for _gen in range(int(n_generations)):
        children: list[Genome] = []
        while len(children) < R:
            parents = []
            for _ in range(2):
                cand = rng.integers(0, P, size=tournament)
                parents.append(pop[int(cand[np.argmax(scores[cand])])])
            c1, c2 = _crossover(parents[0], parents[1], rng, flat)
            for c in (c1, c2):
                if rng.random() < mutation_rate:
                    c = _mutate(c, rng, flat)
                children.append(fix(c))
        children = children[:R]
        # replace the R worst (lowest score; among equals the larger tree, then the newer)
        worst = sorted(range(P), key=lambda i: keys[i])[P - R:]
        for i, child in zip(worst, children):
            s = fitness.score(child)
            pop[i], scored[i], scores[i] = child, s, s[0]
            keys[i] = _rank_key(s[0], s[1], born)
            born += 1
            if keys[i] < best[2]:
                best = (child, s, keys[i])
        history.append(float(-best[2][0]))
    g, (s, tree, acc), _ = best
    return GAResult(g, tree, float(s), float(acc), history, fitness.n_evaluations, fitness.n_tree_hits,
                    fitness.n_node_computations)
