"""Exact leaf-to-root path rules on DAGs, by dynamic programming over the topological order.

The hierarchical selectors of Ristoski & Paulheim (2014) and of the methods they compare with
state their rules "for every path from a leaf to a root". On DAGs with multiple inheritance
the number of such paths is exponential (DBpedia types of Sports Tweets T: 4,081 nodes,
36,019 edges), so nothing here enumerates paths. Every rule is rewritten as a quantity over
the paths *through* a node ``n``, which splits into an independent lower half (a path from
some leaf up to ``n``) and an upper half (a path from ``n`` up to some root):

* :func:`path_mean_rule` - "``v[n]`` is at least the mean of ``v`` over the selected nodes of
  some (or every) leaf-root path through ``n``" (SHSEL pruning, Algorithm 2). For a fixed
  number ``c`` of selected nodes on the path, "some path has mean <= v[n]" is
  "the minimum sum over paths with ``c`` selected nodes is <= c v[n]", so one min-plus DP
  per half, grouped by ``c``, and a min-plus convolution of the halves decide it exactly
  ("every path" uses the maximum sum instead).
* :func:`path_argmax` - "``n`` has the largest key on some leaf-root path" (TSEL's most
  representative node per path). With a strict order this is "below ``n`` there is a
  leaf path, and above ``n`` a root path, whose largest key is smaller than ``n``'s": two
  minimax DPs. :func:`path_maxima` is the same with ties kept (every node that attains the
  maximum of some path: the RPV paper's GTD).
* :func:`most_specific` - the selected nodes without a selected descendant (one sparse product).
* :func:`greedy_antichain` - GreedyTopDown's "take the best remaining node, drop its
  ancestors and descendants": marks spread along edges and stop at nodes already marked,
  so the work is linear in the number of edges.

Each DP runs level by level: all nodes of one height (or depth) are updated together with
one ``reduceat`` over their child (or parent) edges, so the Python loop has as many steps
as the DAG is deep, not as many as it has nodes. The brute-force references that enumerate
paths live only in the tests (``tests/strategies.leaf_root_paths``).

A *leaf* is a node without children, a *root* a node without parents (there may be many);
an isolated node is a path of its own.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from kg.hierarchy import FeatureHierarchy

__all__ = ["path_mean_rule", "path_argmax", "path_maxima", "most_specific", "greedy_antichain", "strict_ranks",
           "preference_ranks", "PATH_RULE_EPS"]

#: Relative tolerance of the mean comparison: ``v[n] >= mean - PATH_RULE_EPS * scale`` counts
#: as "at least the mean" (sums and means of the same floats may differ in the last bit).
PATH_RULE_EPS = 1e-12


# --------------------------------------------------------------------------- level groups
def _groups(order_key: np.ndarray, adjacency: sp.csr_matrix, start: int):
    """Yield ``(nodes, neighbours, segment_starts)`` per value of ``order_key`` >= ``start``.

    ``adjacency`` rows are the nodes; ``neighbours`` concatenates the adjacency rows of
    ``nodes`` and ``segment_starts`` are the row offsets into it (every row non-empty).
    """
    if order_key.size == 0:
        return
    sort = np.argsort(order_key, kind="stable")
    keys = order_key[sort]
    bounds = np.flatnonzero(np.diff(keys)) + 1
    for block in np.split(sort, bounds):
        if order_key[block[0]] < start:
            continue
        sub = adjacency[block]
        lengths = np.diff(sub.indptr)
        yield block, sub.indices.astype(np.int64), sub.indptr[:-1][lengths > 0], lengths


def _children_groups(h: FeatureHierarchy):
    """Internal nodes grouped by height (children are always in lower groups)."""
    return _groups(h.heights, h.child_matrix, 1)


def _parent_groups(h: FeatureHierarchy):
    """Non-root nodes grouped by depth (parents are always in lower groups)."""
    return _groups(h.levels, h.parent_matrix, 1)


def _node_values(h: FeatureHierarchy, values) -> np.ndarray:
    """``values`` as finite floats, one per node (a ``ValueError`` otherwise)."""
    v = np.asarray(values, dtype=np.float64)
    if v.shape != (h.n_nodes,):
        raise ValueError(f"values has shape {v.shape}, expected ({h.n_nodes},)")
    if not np.all(np.isfinite(v)):
        raise ValueError("values must be finite")
    return v


# --------------------------------------------------------------------------- mean rule
def _halves(h: FeatureHierarchy, v: np.ndarray, sel: np.ndarray, width: int, best, fill: float):
    """Best (min or max) sums of ``v`` over selected nodes of path halves, by count.

    ``down[n, c]``: over paths from a leaf up to ``n`` (``n`` included) with ``c`` selected
    nodes. ``up[n, c]``: over paths from ``n`` (excluded) up to a root. ``fill`` marks "no such
    path".
    """
    n = h.n_nodes
    w = np.where(sel, v, 0.0)
    down = np.full((n, width + 1), fill)
    up = np.full((n, width + 1), fill)

    def include(rows: np.ndarray, block: np.ndarray) -> np.ndarray:
        # add the nodes themselves: a selected node shifts the count by one and adds its value
        shifted = np.empty_like(block)
        shifted[:, 0] = fill
        shifted[:, 1:] = block[:, :-1] + w[rows, None]
        return np.where(sel[rows, None], shifted, block)

    leaves = h.leaves
    base = np.full((leaves.size, width + 1), fill)
    base[:, 0] = 0.0
    down[leaves] = include(leaves, base)
    for nodes, kids, starts, _ in _children_groups(h):
        down[nodes] = include(nodes, best.reduceat(down[kids], starts, axis=0))

    # upper halves with the node itself added, filled in level by level (parents first)
    up_incl = np.full((n, width + 1), fill)
    roots = h.roots
    up[roots, 0] = 0.0
    up_incl[roots] = include(roots, up[roots])
    for nodes, pars, starts, _ in _parent_groups(h):
        up[nodes] = best.reduceat(up_incl[pars], starts, axis=0)
        up_incl[nodes] = include(nodes, up[nodes])
    return down, up


def _convolve(down: np.ndarray, up: np.ndarray, best, fill: float) -> np.ndarray:
    """``tot[n, c] = best over c1 + c2 = c of down[n, c1] + up[n, c2]`` (min/max-plus)."""
    width = down.shape[1] - 1
    tot = np.full_like(down, fill)
    with np.errstate(invalid="ignore"):
        for c2 in range(width + 1):
            cand = down[:, : width + 1 - c2] + up[:, c2 : c2 + 1]
            tot[:, c2:] = best(tot[:, c2:], cand)
    return tot


def path_mean_rule(
    hierarchy: FeatureHierarchy,
    values: np.ndarray,
    selected: np.ndarray | None = None,
    *,
    mode: str = "any",
    compare: str = ">=",
) -> np.ndarray:
    """Which selected nodes reach the mean of ``values`` on their leaf-to-root paths.

    For a selected node ``n`` and a leaf-root path ``p`` through it, let ``mean(p)`` be the
    mean of ``values`` over the selected nodes of ``p`` (``n`` is one of them, so the mean
    exists). ``mode="any"`` returns True for ``n`` when ``values[n] >= mean(p)`` for at least
    one such path (SHSEL's pruning rule as the paper states it); ``mode="all"`` when it
    holds for every such path. ``compare=">"`` asks for ``values[n] > mean(p)`` instead
    (how the RPV paper describes SHSEL: "features whose relevance is higher than the
    average"): a path whose selected nodes all have the same value keeps none of them.
    Unselected nodes get False.

    Exact on DAGs with any number of roots and paths; ``O((nodes + edges) * depth)`` time.
    Differences within ``PATH_RULE_EPS * max(1, max|values|)`` count as equality.

    Parameters
    ----------
    hierarchy : FeatureHierarchy
    values : array of float, one per node
    selected : bool array, one per node, optional (default: all nodes)
    mode : {"any", "all"}
    compare : {">=", ">"}

    Returns
    -------
    ndarray of bool, shape (n_nodes,)

    Examples
    --------
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("a", "r"), ("b", "r")], nodes=["a", "b", "r"])
    >>> path_mean_rule(h, np.array([0.9, 0.1, 0.2])).tolist()   # means: a-r 0.55, b-r 0.15
    [True, False, True]
    >>> path_mean_rule(h, np.array([0.0, 0.0, 0.0]), compare=">").tolist()   # nothing above a mean
    [False, False, False]
    """
    if mode not in ("any", "all"):
        raise ValueError(f"mode must be 'any' or 'all', got {mode!r}")
    if compare not in (">=", ">"):
        raise ValueError(f"compare must be '>=' or '>', got {compare!r}")
    n = hierarchy.n_nodes
    v = _node_values(hierarchy, values)
    sel = np.ones(n, bool) if selected is None else np.asarray(selected, dtype=bool)
    if sel.shape != (n,):
        raise ValueError(f"selected has shape {sel.shape}, expected ({n},)")
    if n == 0:
        return np.zeros(0, bool)
    width = int(hierarchy.levels.max()) + 1  # most nodes a path can hold
    if mode == "any":
        best, fill = np.minimum, np.inf
    else:
        best, fill = np.maximum, -np.inf
    down, up = _halves(hierarchy, v, sel, width, best, fill)
    tot = _convolve(down, up, best, fill)
    counts = np.arange(width + 1, dtype=np.float64)
    eps = PATH_RULE_EPS * max(1.0, float(np.abs(v).max()))
    # ">=": sum(p) <= c v[n] + c eps  <=>  mean(p) <= v[n] + eps;  ">": mean(p) <= v[n] - eps
    slack = tot - counts[None, :] * (v[:, None] + (eps if compare == ">=" else -eps))
    exists = np.isfinite(tot)
    exists[:, 0] = False  # n itself is selected: c >= 1 on every path through it
    with np.errstate(invalid="ignore"):
        ok = slack <= 0
    if mode == "any":
        out = (ok & exists).any(axis=1)
    else:
        out = (ok | ~exists).all(axis=1) & exists.any(axis=1)
    return out & sel


# --------------------------------------------------------------------------- argmax rule
def strict_ranks(*keys: np.ndarray) -> np.ndarray:
    """Dense ranks ``0..n-1`` of the lexicographic order of ``keys`` (first key most significant).

    Equal rows get distinct ranks in the order of the *last* key, so pass a unique key last
    (e.g. the node ids) to make the order strict and independent of column order.

    Parameters
    ----------
    *keys : arrays of the same length
        Sort keys, the most significant first; larger values get larger ranks.

    Returns
    -------
    ndarray of int64
        A permutation of ``0..n-1``.

    Examples
    --------
    >>> strict_ranks(np.array([0.5, 0.9, 0.5]), np.array([2, 0, 1])).tolist()
    [1, 2, 0]
    """
    order = np.lexsort(tuple(reversed(keys)))
    ranks = np.empty(order.size, dtype=np.int64)
    ranks[order] = np.arange(order.size)
    return ranks


def preference_ranks(scores: np.ndarray, hierarchy: FeatureHierarchy) -> np.ndarray:
    """Strict ranks of the nodes: higher score first, then the more general node, then the smaller id.

    The order TSEL's and GreedyTopDown's ties follow: among equal scores the node closer to
    the roots covers more instances with the same score. Ties go to the node id, not the
    column position, so the result does not depend on the column order.

    Parameters
    ----------
    scores : array of float, shape (n_nodes,)
    hierarchy : FeatureHierarchy

    Returns
    -------
    ndarray of int64, shape (n_nodes,)
        Distinct ranks, larger is preferred (the input of :func:`path_argmax`).

    Examples
    --------
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("a", "r"), ("b", "r")], nodes=["a", "b", "r"])
    >>> preference_ranks(np.array([0.5, 0.5, 0.5]), h).tolist()   # r is more general; a < b
    [1, 0, 2]
    """
    ids = hierarchy.node_ids
    id_rank = np.empty(ids.size, dtype=np.int64)
    id_rank[np.argsort(ids, kind="stable")] = np.arange(ids.size)
    return strict_ranks(scores, -hierarchy.levels, -id_rank)


def path_argmax(hierarchy: FeatureHierarchy, ranks: np.ndarray) -> np.ndarray:
    """Nodes that have the largest rank on at least one leaf-to-root path.

    ``ranks`` must be distinct integers (a strict order, see :func:`strict_ranks`), so every
    path has exactly one argmax. ``n`` is the argmax of some path through it iff some leaf
    path below ``n`` and some root path above ``n`` contain only smaller ranks; both are
    minimax DPs over the levels of the DAG.

    Parameters
    ----------
    hierarchy : FeatureHierarchy
    ranks : array of int, shape (n_nodes,)
        Distinct ranks, larger is better.

    Returns
    -------
    ndarray of bool, shape (n_nodes,)

    Examples
    --------
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("a", "r"), ("b", "r")], nodes=["a", "b", "r"])
    >>> path_argmax(h, np.array([2, 0, 1])).tolist()   # a-r: a; b-r: r
    [True, False, True]
    """
    n = hierarchy.n_nodes
    r = np.asarray(ranks, dtype=np.int64)
    if r.shape != (n,):
        raise ValueError(f"ranks has shape {r.shape}, expected ({n},)")
    if np.unique(r).size != n:
        raise ValueError("ranks must be distinct (a strict order)")
    below, above = _minimax_halves(hierarchy, r, -1)
    return (below < r) & (above < r)


def _minimax_halves(h: FeatureHierarchy, keys: np.ndarray, fill):
    """``below[n]``: the smallest, over paths from a leaf up to ``n`` (``n`` excluded), of the
    largest key on the path; ``above[n]`` the same over paths from ``n`` up to a root. ``fill``
    (smaller than every key) where there is no such node (``n`` a leaf / a root)."""
    n = h.n_nodes
    below = np.full(n, fill, dtype=keys.dtype)
    for nodes, kids, starts, _ in _children_groups(h):
        below[nodes] = np.minimum.reduceat(np.maximum(keys[kids], below[kids]), starts)
    above = np.full(n, fill, dtype=keys.dtype)
    for nodes, pars, starts, _ in _parent_groups(h):
        above[nodes] = np.minimum.reduceat(np.maximum(keys[pars], above[pars]), starts)
    return below, above


def path_maxima(hierarchy: FeatureHierarchy, values: np.ndarray) -> np.ndarray:
    """Nodes whose value is the maximum of at least one leaf-to-root path, ties included.

    Unlike :func:`path_argmax` (one node per path, by a strict order), every node that
    attains the largest value of some path through it is returned: ``n`` qualifies iff some
    leaf path below it and some root path above it hold no larger value. Values that differ
    by at most ``PATH_RULE_EPS * max(1, max|values|)`` count as equal.

    Parameters
    ----------
    hierarchy : FeatureHierarchy
    values : array of float, shape (n_nodes,)

    Returns
    -------
    ndarray of bool, shape (n_nodes,)

    Examples
    --------
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("a", "r"), ("b", "r")], nodes=["a", "b", "r"])
    >>> path_maxima(h, np.array([0.5, 0.2, 0.5])).tolist()   # a-r: a and r tie; b-r: r
    [True, False, True]
    """
    v = _node_values(hierarchy, values)
    if v.size == 0:
        return np.zeros(0, bool)
    below, above = _minimax_halves(hierarchy, v, -np.inf)
    eps = PATH_RULE_EPS * max(1.0, float(np.abs(v).max()))
    return (below <= v + eps) & (above <= v + eps)


def most_specific(hierarchy: FeatureHierarchy, selected: np.ndarray) -> np.ndarray:
    """The selected nodes that have no selected descendant.

    Parameters
    ----------
    hierarchy : FeatureHierarchy
    selected : array of bool, shape (n_nodes,)

    Returns
    -------
    ndarray of bool, shape (n_nodes,)
        An antichain: no returned node is an ancestor of another.

    Examples
    --------
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("a", "r"), ("b", "r")], nodes=["a", "b", "r"])
    >>> most_specific(h, np.array([True, False, True])).tolist()   # r is a's ancestor
    [True, False, False]
    """
    sel = np.asarray(selected, dtype=bool)
    if sel.shape != (hierarchy.n_nodes,):
        raise ValueError(f"selected has shape {sel.shape}, expected ({hierarchy.n_nodes},)")
    if not sel.any():
        return sel.copy()
    # row d of the ancestor matrix lists d's ancestors: the ancestors of selected nodes
    covered = np.asarray(hierarchy.ancestor_matrix[np.flatnonzero(sel)].sum(axis=0)).ravel() > 0
    return sel & ~covered


# --------------------------------------------------------------------------- greedy antichain
def greedy_antichain(hierarchy: FeatureHierarchy, order: np.ndarray) -> np.ndarray:
    """Greedy selection: visit nodes in ``order``; take each node that is still available
    and make its ancestors and descendants unavailable.

    The result is an antichain (no selected node is an ancestor of another) that is maximal
    (every other node is an ancestor or descendant of a selected one). Marks propagate along
    edges and stop at nodes already marked in the same direction (their relatives are
    marked already), so each edge is walked at most once per direction.

    Parameters
    ----------
    hierarchy : FeatureHierarchy
    order : array of int, shape (n_nodes,)
        A permutation of the node indices, the most preferred first.

    Returns
    -------
    ndarray of bool, shape (n_nodes,)
        The selected nodes.

    Examples
    --------
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("a", "r"), ("b", "r")], nodes=["a", "b", "r"])
    >>> greedy_antichain(h, np.array([0, 2, 1])).tolist()   # a first: drops r; then b
    [True, True, False]
    """
    n = hierarchy.n_nodes
    order = np.asarray(order, dtype=np.int64)
    if order.shape != (n,) or (n and not np.array_equal(np.sort(order), np.arange(n))):
        raise ValueError("order must be a permutation of the node indices")
    pm, cm = hierarchy.parent_matrix, hierarchy.child_matrix
    p_ptr, p_idx = pm.indptr.tolist(), pm.indices.tolist()
    c_ptr, c_idx = cm.indptr.tolist(), cm.indices.tolist()
    up_mark = [False] * n  # is an ancestor of a selected node
    down_mark = [False] * n  # is a descendant of a selected node
    chosen = np.zeros(n, dtype=bool)
    for i in order.tolist():
        if up_mark[i] or down_mark[i]:
            continue
        chosen[i] = True
        _mark_reachable(i, p_ptr, p_idx, up_mark)
        _mark_reachable(i, c_ptr, c_idx, down_mark)
    return chosen


def _mark_reachable(i: int, ptr: list, idx: list, mark: list) -> None:
    """Set ``mark`` on every node reachable from ``i`` (not ``i`` itself) in the csr graph ``ptr, idx``."""
    stack = idx[ptr[i] : ptr[i + 1]]
    while stack:
        j = stack.pop()
        if not mark[j]:
            mark[j] = True
            stack.extend(idx[ptr[j] : ptr[j + 1]])
