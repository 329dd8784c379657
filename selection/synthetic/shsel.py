"""The synthetic hierarchical datasets of Ristoski & Paulheim (2014), section 5.1 / Table 2.

The paper describes the generator in one paragraph: 300 binary "middle layer" features are
generated "using a polynomial function" and discretised; the hierarchy is then built upwards
and downwards for a depth ``D``, "merging the predecessors of two or more neighbouring nodes"
with a branching factor ``B``; the implication (a child implies its parent) and transitivity
hold everywhere; 1,000 instances, 500 positive and 500 negative. Only the feature counts of
Table 2 pin the construction down.

Derivation of the feature counts
--------------------------------
Table 2 lists, for ``n = 300`` middle features:

========  =====  ==================================
setting   count  decomposition
========  =====  ==================================
D2-B2     1,201  300 + 2*300 + 2*150 + 1
D2-B5     1,021  300 + 2*300 + 2*60  + 1
D2-B10      961  300 + 2*300 + 2*30  + 1
D4-B2     2,101  300 + 4*300 + 4*150 + 1
D4-B5     1,741  300 + 4*300 + 4*60  + 1
D4-B10    1,621  300 + 4*300 + 4*30  + 1
========  =====  ==================================

Every count is ``n + D*n + D*(n/B) + 1``: subtracting the middle layer and one root leaves
``D*n*(1 + 1/B)`` (900, 720, 660 for ``D=2``; 1,800, 1,440, 1,320 for ``D=4``), which splits
uniquely into a ``B``-independent part ``D*n`` and a part ``D*n/B``. Hence:

* **downwards**: ``D`` levels of ``n`` nodes each (every middle feature is refined ``D`` times);
* **upwards**: ``D`` levels of ``n/B`` nodes each (neighbouring middle features are merged
  ``B`` at a time, once, and every further level keeps ``n/B`` nodes);
* **one root** above the top level (the "+1" of every count).

The generator builds exactly that (:func:`expected_n_features` gives the formula; with
``n`` not divisible by ``B`` the last group is smaller and ``n/B`` becomes ``ceil(n/B)``).

The construction (choices where the paper is silent)
----------------------------------------------------
The paper says only: "we start with generating features in a flat hierarchy ... The initial
features were generated using a polynomial function, and then discretizing each attribute into
a binary one. These features represent the middle layer ... used to build the hierarchy upwards
and downwards." How the class is made is not stated. Its results constrain it:

(O1) SIG and pruneSHSEL IG reach accuracy 1.0 with Naive Bayes on all six datasets (Table 4).
     A selector can only hand NB what the table holds, so some feature of the hierarchy (or a
     small set of them) must determine the class *exactly*.
(O2) Every dataset has exactly 500 positive and 500 negative instances (Table 2).
(O3) CompleteFS with k-NN is at chance (.433-.600): the features other than the class feature
     carry no class information.
(O4) CompleteFS with NB is far from 1.0 (.533-.700) although a feature equals the class: the
     class-free features outvote it. Independent class-free features cannot (Bernoulli NB gives
     one perfect feature a log-likelihood ratio near ``log(451)`` with 450 training instances per
     class, more than the summed estimation noise of ~1,000-2,000 independent features; measured
     0.956-0.984 with ``label="feature"``); mutually redundant ones can, because NB counts a chance
     correlation with the class in the training folds once per near-copy.

``label="shared"`` (the default) is the simplest construction we found consistent with the text
and with all four:

* **Middle layer.** Each middle feature ``mid.j`` has a numeric attribute
  ``f_j = a^3 + b^2 + c``, RapidMiner's "Generate Data" *polynomial* target function
  (``att1^3 + att2^2 + att3``; the authors ran their experiments in RapidMiner). ``a`` and ``b``
  are two different attributes of a pool of :data:`N_LATENT` = 5 latent attributes shared by all
  middle features (5 is that operator's default number of attributes; the pair is drawn per
  feature from the seed), ``c`` is the feature's own; every latent attribute is ``U[-10, 10]``
  (the operator's default range). Features with the same cubed attribute are therefore near
  copies of each other (O4). "Discretizing each attribute into a binary one" is the median split
  (RapidMiner's *Discretize by Frequency*, two bins): ``mid.j = 1`` for the ``n_instances // 2``
  instances with the largest ``f_j`` (ties, which have probability 0, by row order).
* **Class.** One middle feature ``mid.r`` (``r`` drawn from the seed) is made the same way from
  three attributes of its own, and the class is its median split: ``y == "positive"`` exactly
  where ``mid.r == 1`` (O1), every other middle feature is independent of the class (O3), and the
  classes are exactly ``n // 2`` / ``n - n // 2`` without rejection sampling (O2).
  ``meta["label_feature"]`` names ``mid.r``, ``meta["n_latent"]`` the pool size.
* **Downwards** (``k = 1..D``): ``down{k}.j`` is a finer frequency cut of the same polynomial,
  1 for the top ``floor((n // 2) * (D + 1 - k) / (D + 1))`` instances of ``f_j`` (at least
  one; ``D = 2``: 333 and 166 of 1,000), child of ``down{k-1}.j`` (``down0.j = mid.j``). The
  cuts are nested, so each level is a subset of the one above and the implication holds by
  construction. Below ``mid.r`` the refinements are pure (positive only) but incomplete.

Measured with seed 0 (``docs/shsel_synthetic.md``, stratified 10-fold CV): NB on all features
0.69-0.78 and 3-NN 0.54-0.57, while pruneSHSEL IG reaches 1.0 keeping 0.1-0.2% of the features,
the shape of the paper's Table 4. What is *not* reproduced is the spread between the other
methods, and the numbers themselves (the paper publishes neither its functions nor its seeds).

``label="feature"``, kept for comparison: the same, except that every middle polynomial has
three latent attributes of its own, so all middle features are independent of each other. It
satisfies (O1)-(O3) but not (O4): NB on all features reaches 0.956-0.984.

``label="polynomial"``, kept for comparison, reads "polynomial" as the class function of the
latent attributes rather than of the middle features:

* **Latent variables and class.** ``n`` latent attributes ``x_j ~ U[-10, 10]`` and the label of
  RapidMiner's *polynomial classification* function: positive iff ``a^3 + b^2 - c^2 + d > 0``
  for four of the latent attributes ``a, b, c, d`` (placed at seeded random positions among the
  ``n``). Rows are drawn until each class has ``n_instances / 2`` members, then shuffled.
* **Middle layer.** ``mid.j = [x_j > 0]``: each attribute discretised into two equal-width bins.
* **Downwards** (``k = 1..D``): ``down{k}.j = [x_j > 10 k / (D + 1)]``.

This variant violates (O1): no binary feature determines the class (the best one-feature rule,
a refinement of the cubed attribute, is right on about 84-86% of the instances), so no selector
can approach the paper's 1.0.

Shared by all variants:

* **Upwards** (``k = 1..D``, ``G = ceil(n / B)`` nodes per level): ``up1.g`` merges the ``B``
  neighbouring middle features ``mid.(gB) .. mid.(gB+B-1)``; for ``k >= 2``, ``up{k}.g`` merges the
  two neighbouring nodes ``up{k-1}.g`` and ``up{k-1}.(g+1 mod G)`` (neighbourhoods are cyclic so that
  every level keeps ``G`` nodes). Above level 1 every node therefore has two parents: the DAG has
  multiple inheritance, and the number of leaf-root paths grows as ``2^(D-1)`` per leaf. A merged
  node is the union (logical OR) of its children, the least value the implication allows.
* **Root.** ``root`` is the parent of every ``up{D}.g`` and the union of all of them.

Because every value is derived from the edges (subsets downwards, unions upwards), the table
equals its own upward closure: ``hierarchy.violations(X).nnz == 0``.

The paper's exact functions, discretisation and seeds are not published, so the classification
accuracies of its Table 4 are not reproducible number for number; the shape of the data (counts,
structure, balance) is, and with ``label="shared"`` so is what its Table 4 rests on: a feature of
the hierarchy equals the class, and redundant class-free features mislead NB and k-NN on the
complete feature set.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable

__all__ = [
    "make_dataset", "expected_n_features", "polynomial_attributes", "shared_polynomial_attributes",
    "PAPER_SETTINGS", "LABELS", "LOW", "HIGH", "N_LATENT",
]

#: Range of the latent attributes (RapidMiner "Generate Data" defaults).
LOW, HIGH = -10.0, 10.0

#: The ``label`` variants of :func:`make_dataset` (the first is the default).
LABELS = ("shared", "feature", "polynomial")

#: Size of the shared latent pool of ``label="shared"``: RapidMiner "Generate Data"'s default
#: ``number_of_attributes``.
N_LATENT = 5

#: The six settings of Table 2: name -> (depth, branching, number of features in the paper).
PAPER_SETTINGS: dict[str, tuple[int, int, int]] = {
    "S-D2-B2": (2, 2, 1201),
    "S-D2-B5": (2, 5, 1021),
    "S-D2-B10": (2, 10, 961),
    "S-D4-B2": (4, 2, 2101),
    "S-D4-B5": (4, 5, 1741),
    "S-D4-B10": (4, 10, 1621),
}


def expected_n_features(depth: int, branching: int, n_middle: int = 300) -> int:
    """``n + D*n + D*ceil(n/B) + 1``: the size of the hierarchy :func:`make_dataset` builds.

    Parameters
    ----------
    depth, branching : int
        ``D`` and ``B``.
    n_middle : int
        ``n``, the middle layer.

    Returns
    -------
    int

    Examples
    --------
    >>> [expected_n_features(d, b) for d, b, _ in PAPER_SETTINGS.values()] == [n for *_, n in PAPER_SETTINGS.values()]
    True
    """
    return n_middle + depth * n_middle + depth * math.ceil(n_middle / branching) + 1


def _check_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return int(value)


def _latent(n_instances: int, n_middle: int, rng: np.random.Generator):
    """``label="polynomial"``: latent attributes with exactly ``n_instances / 2`` rows per class
    under RapidMiner's polynomial classification function, and the class labels."""
    relevant = rng.choice(n_middle, size=4, replace=False)
    half = n_instances // 2
    pos: list[np.ndarray] = []
    neg: list[np.ndarray] = []
    n_pos = n_neg = 0
    while n_pos < half or n_neg < n_instances - half:
        x = rng.uniform(LOW, HIGH, size=(max(256, n_instances), n_middle))
        a, b, c, d = (x[:, j] for j in relevant)
        label = a**3 + b**2 - c**2 + d > 0
        pos.append(x[label])
        neg.append(x[~label])
        n_pos += int(label.sum())
        n_neg += int((~label).sum())
    xp = np.concatenate(pos)[:half]
    xn = np.concatenate(neg)[: n_instances - half]
    x = np.concatenate([xp, xn])
    y = np.array(["positive"] * half + ["negative"] * (n_instances - half), dtype=object)
    order = rng.permutation(n_instances)
    return x[order], y[order].astype(str), relevant


def polynomial_attributes(n_instances: int, n_middle: int, rng: np.random.Generator) -> np.ndarray:
    """``label="feature"``: one numeric attribute per middle feature, ``f_j = a^3 + b^2 + c``.

    RapidMiner's "Generate Data" *polynomial* target function (``att1^3 + att2^2 + att3``) on
    three latent attributes of its own, drawn ``U[LOW, HIGH]``; the ``n_middle`` attributes are
    therefore independent of each other.

    Parameters
    ----------
    n_instances, n_middle : int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray (n_instances, n_middle)

    Examples
    --------
    >>> polynomial_attributes(4, 3, np.random.default_rng(0)).shape
    (4, 3)
    """
    z = rng.uniform(LOW, HIGH, size=(n_instances, n_middle, 3))
    return z[:, :, 0] ** 3 + z[:, :, 1] ** 2 + z[:, :, 2]


def shared_polynomial_attributes(
    n_instances: int, n_middle: int, target: int, n_latent: int, rng: np.random.Generator
) -> np.ndarray:
    """``label="shared"``: one numeric attribute per middle feature, ``f_j = a^3 + b^2 + c``.

    For every ``j`` except ``target``, ``a`` and ``b`` are two different attributes of a pool of
    ``n_latent`` latent attributes shared by all middle features (drawn per feature, uniformly
    among the ordered pairs), and ``c`` is an attribute of the feature's own; features that share
    their cubed attribute are therefore strongly correlated with each other. ``f_target`` (the
    class polynomial) uses three attributes of its own, so it is independent of every other
    middle feature. All latent attributes are ``U[LOW, HIGH]``.

    Parameters
    ----------
    n_instances, n_middle : int
    target : int
        The middle feature that makes the class.
    n_latent : int
        Size of the shared pool (at least 2).
    rng : numpy.random.Generator

    Returns
    -------
    ndarray (n_instances, n_middle)

    Examples
    --------
    >>> v = shared_polynomial_attributes(500, 6, 0, 2, np.random.default_rng(0))
    >>> c = np.corrcoef(v.T)   # feature 0 (the target) is independent; the others share a pool of 2
    >>> off_diagonal = ~np.eye(5, dtype=bool)
    >>> v.shape, bool(abs(c[0, 1:]).max() < 0.2), bool(abs(c[1:, 1:]).max(initial=0, where=off_diagonal) > 0.9)
    ((500, 6), True, True)
    """
    pool = rng.uniform(LOW, HIGH, size=(n_instances, n_latent))
    first = rng.integers(n_latent, size=n_middle)
    second = (first + 1 + rng.integers(n_latent - 1, size=n_middle)) % n_latent  # != first
    values = pool[:, first] ** 3 + pool[:, second] ** 2 + rng.uniform(LOW, HIGH, size=(n_instances, n_middle))
    own = rng.uniform(LOW, HIGH, size=(n_instances, 3))
    values[:, target] = own[:, 0] ** 3 + own[:, 1] ** 2 + own[:, 2]
    return values


def _top_counts(n_instances: int, depth: int) -> list[int]:
    """How many instances have a 1 in ``mid`` (k=0) and in ``down{k}`` (k=1..D), frequency bins.

    ``mid`` is the upper half (``n // 2``: the median split of "Discretize by Frequency" with two
    bins); ``down{k}`` keeps the top ``(D + 1 - k) / (D + 1)`` of that half (nested, never empty
    unless the half is).
    """
    half = n_instances // 2
    return [half] + [
        max(1, (half * (depth + 1 - k)) // (depth + 1)) if half else 0 for k in range(1, depth + 1)
    ]


def _middle_scores(label: str, n_instances: int, n_middle: int, depth: int, n_latent: int,
                   rng: np.random.Generator):
    """Per instance and middle feature, the score whose cuts make ``mid`` (``score > mid_cut``)
    and ``down{k}`` (``score > cuts[k - 1]``); the labels and what ``meta`` records about them."""
    if label == "polynomial":
        # score = the latent attribute itself; equal-width bins of [LOW, HIGH]
        score, y, relevant = _latent(n_instances, n_middle, rng)
        mid_cut = (LOW + HIGH) / 2
        cuts = [mid_cut + (HIGH - mid_cut) * k / (depth + 1) for k in range(1, depth + 1)]
        label_meta = {
            "relevant_attributes": [f"mid.{j:03d}" for j in relevant.tolist()],
            "class_function": "a^3 + b^2 - c^2 + d > 0 over the relevant attributes (in order)",
        }
    else:
        target = int(rng.integers(n_middle))
        if label == "shared":
            values = shared_polynomial_attributes(n_instances, n_middle, target, n_latent, rng)
        else:
            values = polynomial_attributes(n_instances, n_middle, rng)
        # score = rank of the instance on each polynomial (0 = smallest; ties by row order):
        # "Discretize by Frequency" cuts, so a 1 in mid means "in the upper half"
        score = np.empty((n_instances, n_middle), dtype=np.int64)
        np.put_along_axis(score, np.argsort(values, axis=0, kind="stable"),
                          np.arange(n_instances)[:, None], axis=0)
        counts = _top_counts(n_instances, depth)
        mid_cut = n_instances - counts[0] - 0.5
        cuts = [n_instances - c - 0.5 for c in counts[1:]]
        y = np.where(score[:, target] > mid_cut, "positive", "negative").astype(str)
        label_meta = {
            "label_feature": f"mid.{target:03d}",
            "class_function": (f"positive iff f_{target} = a^3 + b^2 + c is in the upper half "
                               f"(the median split that defines mid.{target:03d})"),
        }
        if label == "shared":
            label_meta["n_latent"] = n_latent
    return score, y, mid_cut, cuts, label_meta


def _layers(score: np.ndarray, mid_cut: float, cuts: list, n: int, branching: int):
    """The binary table, node names and hierarchy: the middle layer, ``D = len(cuts)`` levels down
    (nested cuts), ``D`` levels up (unions of neighbours) and the root (see the module docstring)."""
    groups = math.ceil(n / branching)
    names: list[str] = []
    columns: list[sp.csc_matrix] = []
    child_edges: list[np.ndarray] = []
    parent_edges: list[np.ndarray] = []

    def add_block(block_names: list[str], values: sp.spmatrix) -> int:
        start = len(names)
        names.extend(block_names)
        columns.append(sp.csc_matrix(values, dtype=np.float64))
        return start

    def link(child: np.ndarray, parent: np.ndarray) -> None:
        child_edges.append(np.asarray(child, np.int64))
        parent_edges.append(np.asarray(parent, np.int64))

    # middle layer: the binary discretisation of each attribute
    mid = sp.csc_matrix(score > mid_cut, dtype=np.float64)
    mid_start = add_block([f"mid.{j:03d}" for j in range(n)], mid)

    # downwards: nested, ever higher cuts of the same attribute (each level a subset of the last)
    above_start = mid_start
    for k, t in enumerate(cuts, start=1):
        start = add_block([f"down{k}.{j:03d}" for j in range(n)], sp.csc_matrix(score > t, dtype=np.float64))
        link(start + np.arange(n), above_start + np.arange(n))
        above_start = start

    # upwards: level 1 merges B neighbouring middle nodes, later levels two cyclic neighbours
    group_of = np.arange(n) // branching
    merge = sp.csr_matrix((np.ones(n), (np.arange(n), group_of)), shape=(n, groups))
    level = (mid @ merge).tocsc()
    level.data[:] = 1.0
    start = add_block([f"up1.{g:03d}" for g in range(groups)], level)
    link(mid_start + np.arange(n), start + group_of)
    prev_start, prev = start, level
    for k in range(2, len(cuts) + 1):
        g = np.arange(groups)
        nxt = (g + 1) % groups
        rows = np.concatenate([g, nxt])
        cols = np.concatenate([g, g])
        pair = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(groups, groups))
        pair.data[:] = 1.0  # groups == 1: both neighbours are the same node
        level = (prev @ pair).tocsc()
        level.data[:] = 1.0
        start = add_block([f"up{k}.{j:03d}" for j in range(groups)], level)
        link(prev_start + rows, start + cols)
        prev_start, prev = start, level

    # root: the union of the top level
    root = sp.csc_matrix(prev.sum(axis=1) > 0, dtype=np.float64)
    root_start = add_block(["root"], root)
    link(prev_start + np.arange(groups), np.full(groups, root_start))

    X = sp.hstack(columns, format="csr")
    X.eliminate_zeros()
    c = np.concatenate(child_edges)
    p = np.concatenate(parent_edges)
    edges = np.unique(np.stack([c, p], axis=1), axis=0)  # groups == 1 or 2 repeats an edge
    hierarchy = FeatureHierarchy(names, edges[:, 0], edges[:, 1])
    return X, names, hierarchy


def make_dataset(
    depth: int,
    branching: int,
    *,
    n_instances: int = 1000,
    n_middle: int = 300,
    random_state: int = 0,
    label: str = "shared",
    n_latent: int | None = None,
) -> FeatureTable:
    """Generate one synthetic hierarchical dataset of the SHSEL paper (section 5.1, Table 2).

    Parameters
    ----------
    depth : int
        ``D``: the number of levels built below and above the middle layer (>= 1).
    branching : int
        ``B``: how many neighbouring middle features the first upper level merges (>= 2).
    n_instances : int
        Rows; half are ``"positive"``, half ``"negative"`` (an odd count gives the extra row to
        ``"negative"``).
    n_middle : int
        Features in the middle layer (300 in the paper).
    random_state : int
        Seed; the same arguments always give the same table.
    label : {"shared", "feature", "polynomial"}
        How the middle layer and the class are made (see the module docstring).
        ``"shared"`` (default): every middle feature is the median split of a polynomial
        ``a^3 + b^2 + c``; ``a`` and ``b`` come from a pool of ``n_latent`` latent attributes
        shared by all middle features, ``c`` is the feature's own; the class is the median split
        of one middle feature's polynomial (``meta["label_feature"]``) made of attributes of its
        own, so that feature equals the class and every other middle feature is independent of
        it, while the other features are strongly correlated with each other.
        ``"feature"``: the same, but every polynomial has three attributes of its own (all middle
        features independent). ``"polynomial"``: middle features are
        ``[x_j > 0]`` of single latent attributes and the class is RapidMiner's *polynomial
        classification* ``a^3 + b^2 - c^2 + d > 0`` on four of them.
    n_latent : int, optional
        Size of the shared pool of ``label="shared"`` (default :data:`N_LATENT` = 5, RapidMiner
        "Generate Data"'s default number of attributes; >= 2). Only valid with ``"shared"``.

    Returns
    -------
    FeatureTable
        ``n_middle + D*n_middle + D*ceil(n_middle/B) + 1`` features (see the module docstring),
        closed under the hierarchy; ``meta`` records the parameters and where the class comes from.

    Examples
    --------
    >>> t = make_dataset(2, 2)
    >>> t.n_features, t.n_instances
    (1201, 1000)
    >>> sorted(np.unique(t.y, return_counts=True)[1].tolist())
    [500, 500]
    >>> f = t.hierarchy.index[t.meta["label_feature"]]
    >>> bool(((t.X[:, f].toarray().ravel() == 1) == (t.y == "positive")).all())
    True
    """
    depth = _check_int("depth", depth, 1)
    branching = _check_int("branching", branching, 2)
    n_instances = _check_int("n_instances", n_instances, 2)
    n_middle = _check_int("n_middle", n_middle, 4)
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)):
        raise TypeError(f"random_state must be an int seed, got {random_state!r}")
    if label not in LABELS:
        raise ValueError(f"label must be one of {', '.join(map(repr, LABELS))}, got {label!r}")
    if n_latent is not None and label != "shared":
        raise ValueError(f"n_latent applies only to label='shared', got label={label!r}")
    n_latent = N_LATENT if n_latent is None else _check_int("n_latent", n_latent, 2)
    rng = np.random.default_rng(int(random_state))
    score, y, mid_cut, cuts, label_meta = _middle_scores(label, n_instances, n_middle, depth, n_latent, rng)
    X, names, hierarchy = _layers(score, mid_cut, cuts, n_middle, branching)
    meta = {
        "generator": "selection.synthetic.shsel:make_dataset",
        "paper": "Ristoski & Paulheim 2014, section 5.1, Table 2",
        "depth": depth,
        "branching": branching,
        "n_instances": n_instances,
        "n_middle": n_middle,
        "random_state": int(random_state),
        "label": label,
        **label_meta,
    }
    instance_ids = [f"s{i:05d}" for i in range(n_instances)]
    return FeatureTable(X, names, instance_ids, y, hierarchy, meta=meta)
