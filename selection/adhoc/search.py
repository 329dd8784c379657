"""Stage 4 of ADHOC (Richeldi & Lanzi 1996): the genetic search over subsets.

The factors the GA sees: with
``ga_level="leaf"`` (default) every concept node with the features attached to it directly (the
homogeneous factors the refinement stopped at; a node's negative concept joins it), with
``ga_level="top"`` each top-level concept with everything under it; plus every undefined or
unrelated feature as a singleton factor. The paper applies "a test of homogeneity ... to every
level of the hierarchy to determine a good factorization"; the leaves are the factors that passed
ours. ``"leaf"`` is the default because it was clearly more accurate on breast cancer and
Cities in ``docs/adhoc.md`` (2-5 points: the top level merges e.g. all size and texture measures
of breast cancer into one factor) and within the fold-to-fold noise on wine.
A genome holds, per factor, one member or none. Fitness: the mean stratified ``cv``-fold accuracy of
``DecisionTreeClassifier(criterion="entropy", ccp_alpha, min_samples_leaf)`` - scikit-learn has
no C4.5; information-gain splits with cost-complexity pruning are the closest stand-in
(C4.5 uses gain ratio and error-based pruning). Symbolic features enter the tree one-hot
encoded. Ties in accuracy go to the smaller subset (the paper's "least sized" subset), then to
the lexicographically smaller index tuple (in :class:`ADHOC`: indices in the content-hash order,
so ties do not depend on the column order). Search spaces of at most ``exhaustive_limit``
genomes are enumerated; larger ones run a seeded generational GA (tournament selection,
uniform crossover, per-gene mutation, elitism, early stop after ``patience`` generations
without improvement). The paper gives no GA parameters; ours are the defaults below.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn import config_context
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

__all__ = ["c45_tree", "SearchResult", "genetic_search"]


def c45_tree(ccp_alpha: float = 0.005, min_samples_leaf: int = 2, random_state=0, **params) -> DecisionTreeClassifier:
    """The closest scikit-learn stand-in for C4.5: entropy splits, cost-complexity pruning.

    Parameters
    ----------
    ccp_alpha : float
        Cost-complexity pruning.
    min_samples_leaf : int
    random_state : int
    **params
        Further :class:`~sklearn.tree.DecisionTreeClassifier` parameters (they win over these).

    Returns
    -------
    sklearn.tree.DecisionTreeClassifier

    Examples
    --------
    >>> c45_tree().get_params()["criterion"], c45_tree(max_depth=3).max_depth
    ('entropy', 3)
    """
    return DecisionTreeClassifier(**{"criterion": "entropy", "ccp_alpha": ccp_alpha,
                                     "min_samples_leaf": min_samples_leaf, "random_state": random_state, **params})


@dataclass
class SearchResult:
    """The outcome of :func:`genetic_search`.

    Parameters
    ----------
    subset : tuple of int
        The best subset (sorted feature indices).
    accuracy : float
        Its cross-validated accuracy.
    n_evaluations : int
        Distinct subsets scored.
    exhaustive : bool
        Whether the search space was enumerated.
    history : list of float
        The best accuracy after each generation (exhaustive: one entry).

    Examples
    --------
    >>> y = np.tile([0, 1], 20)
    >>> r = genetic_search([y[:, None] * 1.0, np.ones((40, 1))], y, [[0, 1]])
    >>> r.subset, r.accuracy, r.n_evaluations, r.exhaustive
    ((0,), 1.0, 3, True)
    """

    subset: tuple
    accuracy: float
    n_evaluations: int
    exhaustive: bool
    history: list


def _folds(y: np.ndarray, cv: int, seed) -> list:
    n = y.size
    _, counts = np.unique(y, return_counts=True)
    k = int(min(cv, n))
    if k < 2:
        return [(np.arange(n), np.arange(n))]  # one instance: resubstitution (logged by caller)
    if counts.min() >= k:
        splitter = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
        return list(splitter.split(np.zeros(n), y))
    return list(KFold(n_splits=k, shuffle=True, random_state=seed).split(np.zeros(n)))


def genetic_search(blocks, y, factors, *, cv: int = 5, estimator=None, population_size: int = 30,
                   n_generations: int = 30, patience: int = 8, crossover_rate: float = 0.9,
                   mutation_rate: float | None = None, tournament_size: int = 3, n_elite: int = 2,
                   exhaustive_limit: int = 256, random_state=0) -> SearchResult:
    """Stage 4: best subset taking at most one feature from each factor.

    ``blocks[i]`` is feature ``i``'s block of design columns (n x 1, or one-hot for symbolic),
    dense or sparse; ``factors`` lists the candidate feature indices of each factor. Fitness is
    the mean ``cv``-fold (stratified, seeded) accuracy of ``estimator`` (default
    :func:`c45_tree`); the empty subset scores the majority class of each training part.

    Parameters
    ----------
    blocks : list of array or sparse matrix (n_samples, n_columns_i)
        The design columns of each feature.
    y : array (n_samples,)
        Class labels.
    factors : list of int sequences
        Candidate features of each factor.
    cv : int
        Folds of the fitness.
    estimator : classifier, optional
        Scored by cross-validation (default :func:`c45_tree`).
    population_size, n_generations, patience, crossover_rate, mutation_rate, tournament_size, n_elite
        The GA (``mutation_rate=None``: 1 / number of factors; ``n_elite`` best kept as they are).
    exhaustive_limit : int
        Search spaces of at most this many genomes are enumerated instead.
    random_state : int
        Seed of the folds and the GA.

    Returns
    -------
    SearchResult
        The subset (sorted feature indices), its accuracy, the number of distinct subsets scored,
        whether the search was exhaustive, and the best accuracy per generation.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 120)
    >>> blocks = [y[:, None] + 0.1 * rng.normal(size=(120, 1)), rng.normal(size=(120, 1))]
    >>> genetic_search(blocks, y, [[0], [1]], random_state=0).subset
    (0,)
    """
    search = _Subsets(blocks, y, factors, cv, estimator, random_state)
    space = 1
    for f in search.factors:
        space *= f.size + 1
        if space > exhaustive_limit:
            break
    if space <= exhaustive_limit:
        best = None
        for genome in itertools.product(*[range(-1, f.size) for f in search.factors]):
            s = search.subset_of(genome)
            if search.better(s, best):
                best = s
        return SearchResult(best, search.fitness(best), len(search.cache), True, [search.fitness(best)])
    best, history = _evolve(search, population_size, n_generations, patience, crossover_rate, mutation_rate,
                            tournament_size, n_elite, random_state)
    return SearchResult(best, search.fitness(best), len(search.cache), False, history)


class _Subsets:
    """Cross-validated accuracy of feature subsets (cached), and their order: accuracy, then
    fewer features, then the smaller index tuple."""

    def __init__(self, blocks, y, factors, cv, estimator, seed):
        _, self.y = np.unique(np.asarray(y), return_inverse=True)  # int codes: cheaper target checks
        self.est = c45_tree() if estimator is None else estimator
        self.folds = _folds(self.y, cv, seed)
        self.factors = [np.asarray(sorted(int(i) for i in f), dtype=np.int64) for f in factors if len(f)]
        self.blocks = blocks
        self.cache: dict[tuple, float] = {}
        self.any_sparse = any(sp.issparse(b) for b in blocks)
        self.fast = type(self.est) is DecisionTreeClassifier  # validated once here, not in every fold

    def design(self, subset):
        cols = [self.blocks[i] for i in subset]
        if self.any_sparse:
            return sp.hstack([sp.csc_matrix(c) for c in cols], format="csc", dtype=np.float32)
        return np.ascontiguousarray(np.hstack(cols), dtype=np.float32)

    def _fold_accuracy(self, Xs, tr, te) -> float:
        y = self.y
        if Xs is None:
            vals, cnt = np.unique(y[tr], return_counts=True)
            return float(np.mean(y[te] == vals[np.argmax(cnt)]))
        if self.fast:
            Xtr, Xte = Xs[tr], Xs[te]
            if self.any_sparse:
                Xtr, Xte = sp.csc_matrix(Xtr), sp.csr_matrix(Xte)
            with config_context(assume_finite=True, skip_parameter_validation=True):
                model = DecisionTreeClassifier(**self.est.get_params()).fit(Xtr, y[tr], check_input=False)
                return float(np.mean(model.predict(Xte, check_input=False) == y[te]))
        model = self.est.__class__(**self.est.get_params()).fit(Xs[tr], y[tr])
        return float(np.mean(model.predict(Xs[te]) == y[te]))

    def fitness(self, subset: tuple) -> float:
        hit = self.cache.get(subset)
        if hit is not None:
            return hit
        Xs = self.design(subset) if subset else None
        accs = [self._fold_accuracy(Xs, tr, te) for tr, te in self.folds]
        self.cache[subset] = acc = float(np.mean(accs))
        return acc

    def subset_of(self, genome) -> tuple:
        return tuple(sorted(int(self.factors[k][g]) for k, g in enumerate(genome) if g >= 0))

    def better(self, a: tuple, b: tuple | None) -> bool:
        if b is None:
            return True
        fa, fb = self.fitness(a), self.fitness(b)
        if abs(fa - fb) > 1e-12:
            return fa > fb
        return (len(a), a) < (len(b), b)


def _evolve(search: _Subsets, population_size, n_generations, patience, crossover_rate, mutation_rate,
            tournament_size, n_elite, random_state):
    """The generational GA; returns the best subset and the best accuracy per generation."""
    rng = np.random.default_rng(random_state)
    K = len(search.factors)
    sizes = np.array([f.size for f in search.factors])
    mut = (1.0 / K) if mutation_rate is None else float(mutation_rate)

    def random_genome():
        g = rng.integers(0, sizes)
        return np.where(rng.random(K) < 0.5, g, -1)

    pop = [random_genome() for _ in range(population_size)]
    best, history, stale = None, [], 0
    for _gen in range(n_generations):
        subsets = [search.subset_of(g) for g in pop]
        fit = np.array([search.fitness(s) for s in subsets])
        keyed = sorted(range(len(pop)), key=lambda i: (-fit[i], len(subsets[i]), subsets[i]))
        gen_best = subsets[keyed[0]]
        if search.better(gen_best, best) and gen_best != best:
            best, stale = gen_best, 0
        else:
            stale += 1
        history.append(search.fitness(best))
        if stale >= patience:
            break
        rank_of = np.empty(len(pop), dtype=np.int64)
        rank_of[keyed] = np.arange(len(pop))  # lower is better

        def pick():
            c = rng.integers(0, len(pop), size=tournament_size)
            return pop[int(c[np.argmin(rank_of[c])])]

        new = [pop[i].copy() for i in keyed[:n_elite]]
        while len(new) < population_size:
            a, b = pick(), pick()
            child = np.where(rng.random(K) < 0.5, a, b) if rng.random() < crossover_rate else a.copy()
            flip = rng.random(K) < mut
            if flip.any():
                child = child.copy()
                child[flip] = rng.integers(-1, sizes[flip])
            new.append(child)
        pop = new
    return best, history
