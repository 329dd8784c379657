"""Stages 2 and 3 of ADHOC (Richeldi & Lanzi 1996): higher-order correlation and the hierarchy of factors.

**Higher-order correlation** (:func:`profile_correlation`, :func:`higher_order`).
The profile of a feature is its row of ``|D_k|`` (dependence strength; the sign of a negative
concept is kept aside for stage 3, so a feature and its negation have the same profile). Our
stand-in for the paper's R statistic: ``D_{k+1}[i, j]`` is the Pearson correlation of the
profiles (rows of ``D_k``) of ``i`` and ``j``, whole rows with the self entry 1 included, as in
the paper's example profile (so two features related only to each other are similar).
Features are clustered at every order (average linkage on ``1 - D_k``, cut where the average
similarity falls below ``cluster_threshold``); the recursion starts at ``min_order`` and stops
when the mean within-cluster similarity of every cluster reaches ``stop_similarity`` *and* the
partition is the one of the previous order (our reading of the paper's rule: tight clusters
alone would stop before indirect associations had time to merge clusters), or at
``max_order``. Profiles need at least ``min_profile`` (paper: 4) features; with fewer the
first-order matrix is clustered.

**Hierarchy of factors** (:func:`factor_hierarchy`). The paper's four kinds:

- *unrelated*: no first-order dependence of size ``unrelated_threshold`` with any feature
  (and constant features);
- *positive concept*: a cluster of two or more features; its members with a negative
  first-order correlation to the cluster's pivot (the member most dependent on the others) form
  its *negative concept* child;
- *undefined*: the remaining features (related to something, but in no cluster). The analysis
  is repeated on the undefined features alone, to find relations masked by the other features;
  clusters found there become concepts.
- Refinement: a concept of at least ``min_cluster_size`` features is analysed again on its own
  features; the split into sub-concepts is kept unless the cluster is homogeneous - our test of
  homogeneity: the mean first-order dependence between the sub-concepts is at least
  ``split_ratio`` times the mean within them. Recursion ends below ``min_cluster_size``.

The result is a :class:`~kg.hierarchy.FeatureHierarchy` whose leaves are the features and whose
inner nodes are ``adhoc:F1``, ``adhoc:F1.2``, ``adhoc:F1:neg``, ``adhoc:undefined``,
``adhoc:unrelated`` (drawn and exported like any other hierarchy).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform

from kg.hierarchy import FeatureHierarchy

__all__ = ["profile_correlation", "higher_order", "Factor", "FactorResult", "factor_hierarchy"]


def profile_correlation(D: np.ndarray) -> np.ndarray:
    """One step of higher-order correlation: Pearson correlation of the rows of symmetric ``D``.

    The profile of a feature is its whole row, its own entry (1) included, as in the paper's
    example ``<0.2, 0.1, 0.8, 0.3, 0.9, 1.0>``: two features related only to each other have
    similar profiles. One product ``D D^T`` gives all pairs. A row without variation gives 0.

    Parameters
    ----------
    D : ndarray (m, m)
        Symmetric dependence matrix of order ``k``.

    Returns
    -------
    ndarray (m, m)
        The order ``k + 1`` matrix, symmetric, diagonal 1, in [-1, 1].

    Examples
    --------
    >>> D = np.array([[1, .9, .1, .8], [.9, 1, .2, .7], [.1, .2, 1, .1], [.8, .7, .1, 1]])
    >>> np.round(profile_correlation(D), 2)[0].tolist()
    [1.0, 0.96, -0.97, 0.89]
    """
    D = np.asarray(D, dtype=np.float64)
    m = D.shape[0]
    if m < 2:
        return np.ones((m, m))
    C = D - D.mean(axis=1, keepdims=True)
    G = C @ C.T
    var = np.diag(G).copy()
    ok = var > 1e-12 * max(1.0, float(var.max(initial=0.0)))
    sd = np.sqrt(np.where(ok, var, 1.0))
    out = G / np.outer(sd, sd)
    out[~ok, :] = 0.0
    out[:, ~ok] = 0.0
    out = np.clip((out + out.T) / 2.0, -1.0, 1.0)
    np.fill_diagonal(out, 1.0)
    return out


def _cluster(S: np.ndarray, threshold: float) -> np.ndarray:
    """Average-linkage clusters of similarity ``S`` cut at mean similarity ``threshold``.

    Labels are renumbered by each cluster's smallest member (deterministic).
    """
    m = S.shape[0]
    if m == 1:
        return np.zeros(1, dtype=np.int64)
    dist = np.clip(1.0 - S, 0.0, 2.0)
    dist = (dist + dist.T) / 2.0
    np.fill_diagonal(dist, 0.0)
    Z = linkage(squareform(dist, checks=False), method="average")
    raw = fcluster(Z, t=1.0 - threshold + 1e-12, criterion="distance")
    _, first = np.unique(raw, return_index=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first)] = np.arange(first.size)
    _, inv = np.unique(raw, return_inverse=True)
    return rank[inv]


def _within(S: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Mean off-diagonal similarity inside each cluster (nan for singletons)."""
    k = labels.max() + 1
    A = sp.csr_matrix((np.ones(labels.size), (labels, np.arange(labels.size))), shape=(k, labels.size))
    tot = np.asarray((A @ np.asarray(A @ S).T).T)  # k x k block sums
    size = np.asarray(A.sum(axis=1)).ravel()
    diag = np.asarray(A @ np.diag(S)).ravel()
    pairs = size * (size - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(pairs > 0, (np.diag(tot) - diag) / np.where(pairs > 0, pairs, 1), np.nan)


def higher_order(A: np.ndarray, *, cluster_threshold: float = 0.5, stop_similarity: float = 0.9,
                 min_order: int = 2, max_order: int = 4, min_profile: int = 4):
    """Stage 2: recursive profile correlation with the paper's stopping rule.

    ``A`` is the first-order dependence strength (``|D1|``). Clusters are formed from order
    ``min_order`` on; the recursion stops when every cluster's mean within similarity is at
    least ``stop_similarity`` and the partition equals the previous order's, or at
    ``max_order``.

    Parameters
    ----------
    A : ndarray (m, m)
        First-order dependence strength.
    cluster_threshold : float
        Average-linkage clusters are cut where the mean similarity falls below it.
    stop_similarity : float
        Mean within-cluster similarity every cluster must reach to stop.
    min_order, max_order : int
        First order clustered; last order computed.
    min_profile : int
        With fewer features, only the first order is clustered.

    Returns
    -------
    D : ndarray (m, m)
        The matrix of the order reached.
    labels : int ndarray (m,)
        Its clusters, numbered by their smallest member.
    order : int
        The order reached.
    history : list of float
        Per clustered order, the mean within-cluster similarity of the least coherent cluster of
        two or more features.

    Examples
    --------
    >>> A = np.array([[1, .8, .1, .1, .0], [.8, 1, .1, .0, .1], [.1, .1, 1, .7, .1],
    ...               [.1, .0, .7, 1, .0], [.0, .1, .1, .0, 1]])
    >>> D, labels, order, hist = higher_order(A, min_order=1)
    >>> labels.tolist(), order
    ([0, 0, 1, 1, 2], 3)
    """
    A = np.asarray(A, dtype=np.float64)
    m = A.shape[0]
    if max_order < 1 or min_order < 1:
        raise ValueError("min_order and max_order must be at least 1")
    D, order, history, prev = A, 1, [], None
    if m < min_profile:  # profiles too short to compare: first order only
        labels = _cluster(D, cluster_threshold)
        w = _within(D, labels)
        history.append(float(np.nanmin(w)) if np.isfinite(w).any() else 1.0)
        return D, labels, 1, history
    while True:
        if order >= min_order:
            labels = _cluster(D, cluster_threshold)
            w = _within(D, labels)
            worst = float(np.nanmin(w)) if np.isfinite(w).any() else 1.0
            history.append(worst)
            stable = prev is not None and np.array_equal(prev, labels)
            if (worst >= stop_similarity and stable) or order >= max_order:
                return D, labels, order, history
            prev = labels
        D = profile_correlation(D)
        order += 1


@dataclass
class Factor:
    """A node of the factor hierarchy.

    Parameters
    ----------
    id : str
        Node id (``adhoc:F1``, ``adhoc:F1.2``, ``adhoc:F1:neg``, ``adhoc:undefined``, ``adhoc:unrelated``).
    kind : str
        ``"positive-concept"``, ``"negative-concept"``, ``"undefined"`` or ``"unrelated"``.
    parent : str or None
        Id of the parent factor (None at the top level).
    members : int ndarray
        All features under the node.
    direct : int ndarray
        The features attached to the node itself (not to a sub-concept).
    order : int
        Order of the higher-order correlation that formed it.
    similarity : float
        Its mean within-cluster similarity at that order.

    Examples
    --------
    >>> f = Factor("adhoc:F1", "positive-concept", None, np.array([0, 2]), np.array([0, 2]))
    >>> f.id, f.members.tolist(), f.order
    ('adhoc:F1', [0, 2], 1)
    """

    id: str
    kind: str
    parent: str | None
    members: np.ndarray
    direct: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    order: int = 1
    similarity: float = float("nan")


@dataclass
class FactorResult:
    """The outcome of :func:`factor_hierarchy`.

    Parameters
    ----------
    factors : list of Factor
        Concepts depth-first (each followed by its negative concept), then the undefined and
        unrelated nodes.
    hierarchy : FeatureHierarchy
        Factor nodes over the features (the leaves).
    top_labels : int ndarray (m,)
        Top-level factor of each feature: concepts first, then one label per undefined or
        unrelated feature; constant features -1.
    unrelated, undefined : int ndarray
        The features of those two kinds.
    orders : list of int
        The order reached by every clustering (the first: the top level).

    Examples
    --------
    >>> r = factor_hierarchy(np.eye(3), list("abc"))
    >>> [f.id for f in r.factors], r.top_labels.tolist(), r.unrelated.tolist()
    (['adhoc:unrelated'], [0, 1, 2], [0, 1, 2])
    """

    factors: list
    hierarchy: FeatureHierarchy
    top_labels: np.ndarray
    unrelated: np.ndarray
    undefined: np.ndarray
    orders: list


class _Factorizer:
    """The recursive analysis of stage 3 on one first-order matrix: clusters, signs, refinement."""

    def __init__(self, D1: np.ndarray, cluster_kw: dict, min_cluster_size: int, split_ratio: float):
        self.D1, self.A = D1, np.abs(D1)
        self.kw = cluster_kw
        self.min_cluster_size, self.split_ratio = min_cluster_size, split_ratio
        self.orders: list = []
        self.factors: list[Factor] = []

    def groups_of(self, idx: np.ndarray) -> list:
        """Clusters of the features ``idx``: ``(members, within similarity, order)`` each."""
        if idx.size == 0:
            return []
        D, labels, order, _ = higher_order(self.A[np.ix_(idx, idx)], **self.kw)
        self.orders.append(order)
        w = _within(D, labels)
        groups = [idx[labels == g] for g in range(labels.max() + 1)]
        sims = [float(w[g]) for g in range(labels.max() + 1)]
        return list(zip(groups, sims, [order] * len(groups)))

    def concepts(self, related: np.ndarray):
        """Top-level clusters of two or more, then again on the undefined features alone
        (relations masked by the others); returns ``(concepts, undefined features)``."""
        found = self.groups_of(related)
        concepts = [g for g in found if g[0].size >= 2]
        undefined = _singletons(found)
        while undefined.size >= self.min_cluster_size:
            again = self.groups_of(undefined)
            new = [g for g in again if g[0].size >= 2]
            if not new:
                break
            concepts += new
            undefined = _singletons(again)
        concepts.sort(key=lambda g: int(g[0].min()))
        return concepts, undefined

    def split_sign(self, members: np.ndarray):
        """Positive and negative concept: the sign of the correlation with the pivot (the member
        most dependent on the others); the larger side is the positive one."""
        sub = self.A[np.ix_(members, members)]
        pivot = members[int(np.argmax(sub.sum(axis=1) - np.diag(sub)))]
        neg = self.D1[pivot, members] < 0
        if neg.sum() > (~neg).sum():
            neg = ~neg
        return members[~neg], members[neg]

    def heterogeneous(self, members: np.ndarray, sub: list) -> bool:
        """Whether the sub-clusters ``sub`` of ``members`` depend on each other less than
        ``split_ratio`` times the dependence within them (then the split is kept)."""
        lab = np.full(self.A.shape[0], -1)
        for gi, g in enumerate(sub):
            lab[g[0]] = gi
        same = lab[members][:, None] == lab[members][None, :]
        blk = self.A[np.ix_(members, members)]
        eye = np.eye(members.size, dtype=bool)
        within = blk[same & ~eye].mean() if (same & ~eye).any() else np.nan
        return bool(np.isfinite(within) and blk[~same].mean() < self.split_ratio * within)

    def build(self, fid: str, parent, members: np.ndarray, sim: float, order: int) -> None:
        """Add the concept ``fid`` and, recursively, its sub-concepts and negative concept."""
        node = Factor(fid, "positive-concept", parent, np.sort(members), order=order, similarity=sim)
        self.factors.append(node)
        direct = members
        if members.size >= self.min_cluster_size:
            sub = self.groups_of(members)
            subc = [g for g in sub if g[0].size >= 2]
            if len(sub) >= 2 and subc and self.heterogeneous(members, sub):
                direct = _singletons(sub)
                for ci, g in enumerate(sorted(subc, key=lambda g: int(g[0].min())), start=1):
                    self.build(f"{fid}.{ci}", fid, g[0], g[1], g[2])
        pos, neg = self.split_sign(direct) if direct.size else (direct, direct)
        node.direct = np.sort(pos)
        if neg.size:
            self.factors.append(Factor(f"{fid}:neg", "negative-concept", fid, np.sort(neg), np.sort(neg), order=order))


def _singletons(groups: list) -> np.ndarray:
    """The features of the one-feature clusters, sorted."""
    return np.array(sorted(int(i) for g in groups if g[0].size < 2 for i in g[0]), dtype=np.int64)


def _factor_graph(factors: list, names: list[str]) -> FeatureHierarchy:
    """Factor nodes over their features (the leaves)."""
    clash = set(names) & {f.id for f in factors}
    if clash:
        raise ValueError(f"feature name {sorted(clash)[0]!r} collides with a factor node id; rename the feature")
    edges = [(f.id, f.parent) for f in factors if f.parent is not None]
    edges += [(names[i], f.id) for f in factors for i in f.direct]
    return FeatureHierarchy.from_edges(edges, nodes=names + [f.id for f in factors])


def _top_labels(factors: list, singles: np.ndarray, constant: np.ndarray) -> np.ndarray:
    """Top-level factor of each feature: concepts first, then one label per undefined or
    unrelated feature; constant features -1."""
    labels = np.full(constant.size, -1, dtype=np.int64)
    nxt = 0
    for f in factors:
        if f.parent is None and f.kind == "positive-concept":
            labels[f.members] = nxt
            nxt += 1
    for i in singles.astype(np.int64):
        if not constant[i]:
            labels[i] = nxt
            nxt += 1
    return labels


def factor_hierarchy(D1: np.ndarray, feature_names=None, *, constant=None, unrelated_threshold: float = 0.3,
                     cluster_threshold: float = 0.5, stop_similarity: float = 0.9, min_order: int = 2,
                     max_order: int = 4, min_profile: int = 4, min_cluster_size: int = 4,
                     split_ratio: float = 0.75) -> FactorResult:
    """Stage 3: cluster the features into the paper's four kinds, refined recursively.

    See the module docstring for the rules.

    Parameters
    ----------
    D1 : ndarray (m, m)
        First-order dependence matrix (signed; :func:`~selection.adhoc.dependence.dependence_matrix`).
    feature_names : list of str, optional
        Leaf ids (default ``x0, x1, ...``).
    constant : bool array (m,), optional
        Constant features (unrelated, never in a concept).
    unrelated_threshold : float
        A feature without a first-order dependence of this size is unrelated.
    cluster_threshold, stop_similarity, min_order, max_order, min_profile
        As :func:`higher_order`.
    min_cluster_size : int
        Concepts at least this large are analysed again (refinement); also the size from which
        the undefined features are analysed again.
    split_ratio : float
        A concept is split into its sub-concepts when the mean dependence between them is below
        ``split_ratio`` times the mean within them.

    Returns
    -------
    FactorResult

    Examples
    --------
    >>> D1 = np.eye(6)
    >>> D1[:3, :3] = D1[3:5, 3:5] = 0.8; np.fill_diagonal(D1, 1.0)
    >>> r = factor_hierarchy(D1, list("abcdef"), min_order=1)
    >>> [(f.id, f.kind, f.members.tolist()) for f in r.factors]
    [('adhoc:F1', 'positive-concept', [0, 1, 2]), ('adhoc:F2', 'positive-concept', [3, 4]),
     ('adhoc:unrelated', 'unrelated', [5])]
    """
    D1 = np.asarray(D1, dtype=np.float64)
    m = D1.shape[0]
    names = [f"x{i}" for i in range(m)] if feature_names is None else [str(f) for f in feature_names]
    constant = np.zeros(m, bool) if constant is None else np.asarray(constant, bool)
    A = np.abs(D1)
    off = A - np.diag(np.diag(A))
    unrelated = constant | (off.max(axis=1, initial=0.0) < unrelated_threshold)
    kw = dict(cluster_threshold=cluster_threshold, stop_similarity=stop_similarity, min_order=min_order,
              max_order=max_order, min_profile=min_profile)
    fz = _Factorizer(D1, kw, min_cluster_size, split_ratio)
    concepts, undefined = fz.concepts(np.flatnonzero(~unrelated))
    for k, (members, sim, order) in enumerate(concepts, start=1):
        fz.build(f"adhoc:F{k}", None, members, sim, order)
    factors = fz.factors
    unrelated_idx = np.flatnonzero(unrelated)
    if undefined.size:
        factors.append(Factor("adhoc:undefined", "undefined", None, undefined, undefined))
    if unrelated_idx.size:
        factors.append(Factor("adhoc:unrelated", "unrelated", None, unrelated_idx, unrelated_idx))
    labels = _top_labels(factors, np.r_[undefined, unrelated_idx], constant)
    return FactorResult(factors, _factor_graph(factors, names), labels, unrelated_idx, undefined, fz.orders)


def _renumber(factors: list) -> list:
    """Name concept nodes by position of their first column (F1 holds the earliest column, ...).

    Returns the factors depth-first (concepts, each followed by its negative concept), then the
    undefined and unrelated nodes.
    """
    kids: dict = {}
    for f in factors:
        if f.kind == "positive-concept":
            kids.setdefault(f.parent, []).append(f)
    neg = {f.parent: f for f in factors if f.kind == "negative-concept"}
    out: list = []

    def walk(parent_old, parent_new):
        for i, f in enumerate(sorted(kids.get(parent_old, []), key=lambda f: int(f.members.min())), start=1):
            old = f.id
            f.id = f"adhoc:F{i}" if parent_new is None else f"{parent_new}.{i}"
            f.parent = parent_new
            out.append(f)
            if old in neg:
                neg[old].id, neg[old].parent = f"{f.id}:neg", f.id
                out.append(neg[old])
            walk(old, f.id)

    walk(None, None)
    return out + [f for f in factors if f.kind in ("undefined", "unrelated")]
