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
(O3) CompleteFS with NB is near chance (.533-.700), so the features other than the class
     feature carry (next to) no class information.

``label="feature"`` (the default) is the simplest construction we found consistent with the
text, with (O1) and (O2), and with what (O3) implies about the other features (not with the
near-chance number itself: see "What this does not reproduce" below):

* **Middle layer.** Each middle feature ``mid.j`` has its own numeric attribute
  ``f_j = a_j^3 + b_j^2 + c_j``, RapidMiner's "Generate Data" *polynomial* target function
  (``att1^3 + att2^2 + att3``; the authors ran their experiments in RapidMiner) of three
  latent attributes of its own, ``~ U[-10, 10]`` (that operator's default range).
  "Discretizing each attribute into a binary one" is the median split (RapidMiner's
  *Discretize by Frequency*, two bins):
  ``mid.j = 1`` for the ``n_instances // 2`` instances with the largest ``f_j`` (ties, which
  have probability 0, by row order). The ``n_middle`` features are independent of each other.
* **Class.** The class is the same discretisation of one of those polynomials, ``f_r`` with
  ``r`` drawn from the seed: positive iff the instance is in the upper half of ``f_r``. Hence
  ``y == "positive"`` exactly where ``mid.r == 1`` (O1), every other middle feature is
  independent of the class (O3), and the classes are exactly ``n // 2`` / ``n - n // 2``
  without rejection sampling (O2; the median split gives it). ``meta["label_feature"]`` names
  ``mid.r``.
* **Downwards** (``k = 1..D``): ``down{k}.j`` is a finer frequency cut of the same polynomial,
  1 for the top ``floor((n // 2) * (D + 1 - k) / (D + 1))`` instances of ``f_j`` (at least
  one; ``D = 2``: 333 and 166 of 1,000), child of ``down{k-1}.j`` (``down0.j = mid.j``). The
  cuts are nested, so each level is a subset of the one above and the implication holds by
  construction. Below ``mid.r`` the refinements are pure (positive only) but incomplete.

What this does *not* reproduce: with 900 training instances Bernoulli NB on the complete
feature set is far from chance (0.956-0.984 measured in 10-fold CV, see
``docs/shsel_synthetic.md``): one perfect feature carries a log-likelihood ratio near
``log(451)`` that the class-independent features do not outweigh. The paper's near-chance
CompleteFS (O3) appears only when NB is trained on a few dozen instances, which the doc shows
but the generator does not try to force. As far as we can see, making Bernoulli NB on all
features fail under 10-fold CV while keeping (O1) would need the class-independent features to
be strongly correlated with each other (shared latent variables, say), so that their estimation
noise adds up beyond the class feature's weight: structure the paper does not describe, so we
do not invent it.

``label="polynomial"`` is the earlier variant, kept for comparison (bit for bit what this module
generated before ``label`` existed):

* **Latent variables and class.** ``n`` latent attributes ``x_j ~ U[-10, 10]`` and the label of
  RapidMiner's *polynomial classification* function: positive iff ``a^3 + b^2 - c^2 + d > 0``
  for four of the latent attributes ``a, b, c, d`` (placed at seeded random positions among the
  ``n``). Rows are drawn until each class has ``n_instances / 2`` members, then shuffled.
* **Middle layer.** ``mid.j = [x_j > 0]``: each attribute discretised into two equal-width bins.
* **Downwards** (``k = 1..D``): ``down{k}.j = [x_j > 10 k / (D + 1)]``.

This variant violates (O1): no binary feature determines the class (the best one-feature rule,
a refinement of the cubed attribute, is right on about 84-86% of the instances), so no selector
can approach the paper's 1.0.

Shared by both variants:

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
structure, balance) is, and with ``label="feature"`` so is the property its best results rest on
(a feature of the hierarchy equals the class).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable

__all__ = [
    "make_dataset", "expected_n_features", "polynomial_attributes", "PAPER_SETTINGS", "LABELS", "LOW", "HIGH",
]

#: Range of the latent attributes (RapidMiner "Generate Data" defaults).
LOW, HIGH = -10.0, 10.0

#: The ``label`` variants of :func:`make_dataset` (the first is the default).
LABELS = ("feature", "polynomial")

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
    """``n + D*n + D*ceil(n/B) + 1``: the size of the hierarchy :func:`make_dataset` builds."""
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
    """
    z = rng.uniform(LOW, HIGH, size=(n_instances, n_middle, 3))
    return z[:, :, 0] ** 3 + z[:, :, 1] ** 2 + z[:, :, 2]


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


def make_dataset(
    depth: int,
    branching: int,
    *,
    n_instances: int = 1000,
    n_middle: int = 300,
    random_state: int = 0,
    label: str = "feature",
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
    label : {"feature", "polynomial"}
        How the middle layer and the class are made (see the module docstring).
        ``"feature"`` (default): every middle feature is the median split of its own polynomial
        ``a^3 + b^2 + c`` of three latent attributes, and the class is the same split of one of
        those polynomials, so one middle feature (``meta["label_feature"]``) equals the class and
        every other middle feature is independent of it. ``"polynomial"``: the earlier variant;
        middle features are ``[x_j > 0]`` of single latent attributes and the class is
        RapidMiner's *polynomial classification* ``a^3 + b^2 - c^2 + d > 0`` on four of them.

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
    rng = np.random.default_rng(int(random_state))
    n = n_middle
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
    for k in range(2, depth + 1):
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
    meta = {
        "generator": "selection.synthetic:make_dataset",
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
