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
* **Latent variables and class.** ``n`` latent attributes ``x_j ~ U[-10, 10]`` (the range of
  RapidMiner's "Generate Data" operator, which the authors used) and the label of RapidMiner's
  *polynomial classification* function: positive iff ``a^3 + b^2 - c^2 + d > 0`` for four of the
  latent attributes ``a, b, c, d`` (placed at seeded random positions among the ``n``). Rows are
  drawn until each class has ``n_instances / 2`` members (the paper's 500/500), then shuffled.
* **Middle layer.** ``mid.j = [x_j > 0]``: each attribute discretised into two equal-width bins.
* **Downwards** (``k = 1..D``): ``down{k}.j = [x_j > 10 k / (D + 1)]``, a finer discretisation of
  the same attribute, child of ``down{k-1}.j`` (``down0.j = mid.j``). Nested thresholds make each
  level a subset of the one above, so the implication holds by construction.
* **Upwards** (``k = 1..D``, ``G = ceil(n / B)`` nodes per level): ``up1.g`` merges the ``B``
  neighbouring middle features ``mid.(gB) .. mid.(gB+B-1)``; for ``k >= 2``, ``up{k}.g`` merges the
  two neighbouring nodes ``up{k-1}.g`` and ``up{k-1}.(g+1 mod G)`` (neighbourhoods are cyclic so that
  every level keeps ``G`` nodes). Above level 1 every node therefore has two parents: the DAG has
  multiple inheritance, and the number of leaf-root paths grows as ``2^(D-1)`` per leaf. A merged
  node is the union (logical OR) of its children, the least value the implication allows.
* **Root.** ``root`` is the parent of every ``up{D}.g`` and the union of all of them.

Because every value is derived from the edges (subsets downwards, unions upwards), the table
equals its own upward closure: ``hierarchy.violations(X).nnz == 0``.

The paper's exact class function, discretisation and seeds are not published, so the
classification accuracies of its Table 4 are not reproducible number for number; the shape of
the data (counts, structure, balance) is.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable

__all__ = ["make_dataset", "expected_n_features", "PAPER_SETTINGS", "LOW", "HIGH"]

#: Range of the latent attributes (RapidMiner "Generate Data" defaults).
LOW, HIGH = -10.0, 10.0

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
    """Latent attributes with exactly ``n_instances / 2`` rows per class, and the class labels."""
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


def make_dataset(
    depth: int,
    branching: int,
    *,
    n_instances: int = 1000,
    n_middle: int = 300,
    random_state: int = 0,
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

    Returns
    -------
    FeatureTable
        ``n_middle + D*n_middle + D*ceil(n_middle/B) + 1`` features (see the module docstring),
        closed under the hierarchy; ``meta`` records the parameters and the relevant attributes.

    Examples
    --------
    >>> t = make_dataset(2, 2)
    >>> t.n_features, t.n_instances
    (1201, 1000)
    >>> sorted(np.unique(t.y, return_counts=True)[1].tolist())
    [500, 500]
    """
    depth = _check_int("depth", depth, 1)
    branching = _check_int("branching", branching, 2)
    n_instances = _check_int("n_instances", n_instances, 2)
    n_middle = _check_int("n_middle", n_middle, 4)
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)):
        raise TypeError(f"random_state must be an int seed, got {random_state!r}")
    rng = np.random.default_rng(int(random_state))
    x, y, relevant = _latent(n_instances, n_middle, rng)

    n = n_middle
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

    # middle layer: two equal-width bins of [LOW, HIGH]
    mid = sp.csc_matrix(x > (LOW + HIGH) / 2, dtype=np.float64)
    mid_start = add_block([f"mid.{j:03d}" for j in range(n)], mid)

    # downwards: nested thresholds on the same attribute
    above_start = mid_start
    for k in range(1, depth + 1):
        t = (LOW + HIGH) / 2 + (HIGH - (LOW + HIGH) / 2) * k / (depth + 1)
        start = add_block([f"down{k}.{j:03d}" for j in range(n)], sp.csc_matrix(x > t, dtype=np.float64))
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
        "relevant_attributes": [f"mid.{j:03d}" for j in relevant.tolist()],
        "class_function": "a^3 + b^2 - c^2 + d > 0 over the relevant attributes (in order)",
    }
    instance_ids = [f"s{i:05d}" for i in range(n_instances)]
    return FeatureTable(X, names, instance_ids, y, hierarchy, meta=meta)
