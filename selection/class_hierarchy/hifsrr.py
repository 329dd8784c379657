"""HiFSRR (Zhao et al., IJCAI 2017) and FSNM (Nie et al., NIPS 2010): l2,1 feature selection.

HiFSRR selects a feature subset for every internal node of a **class** tree
(:class:`~selection.class_hierarchy.tree.ClassHierarchy`). Node ``i`` has a weight matrix
``W_i`` (n_features x d_max) fitted to the one-hot targets ``Y_i`` of its children on the
samples of its subtree; the objective (Eq. 4 of the paper) is::

    J = sum_i ||X_i W_i - Y_i||_F^2 + lam ||W_i||_{2,1}                  (every internal node)
        + alpha sum_{i != root} ||W_i - W_{p(i)}||_F^2                  (parent-child)
        + beta  sum_{i != root} sum_{l in S_i} tr(W_i W_i' H W_l W_l' H)  (HSIC of siblings)

with ``H = I - 11'/n`` the centring matrix over the n features. It is minimised by Algorithm 1:
the l2,1 norm is replaced by ``tr(W' D W)`` with ``D_jj = 1 / (2 ||w_j||)`` from the current
iterate (Nie et al.'s reweighting), and each ``W_i`` is updated in closed form (Eq. 9 for the
root, Eq. 11 otherwise) until the objective changes by less than ``tol`` (relative).
Features of node ``i`` are ranked by the row norms of ``W_i``; the top ``k`` are selected.

Choices where the paper is silent or ambiguous (each tested in ``tests/selection/class_hierarchy/test_hifsrr.py``):

- **Gauss-Seidel updates.** Algorithm 1 writes ``W^{(t)}`` for the neighbours in Eq. 11
  (a Jacobi sweep). Simultaneous updates of coupled blocks can increase J, whereas updating
  the nodes one at a time (root first, breadth-first) with the newest neighbours makes every
  block step the exact minimiser of a majoriser of J, so J decreases monotonically as section
  2.4 claims. ``update="jacobi"`` gives the literal reading.
- **Deeper trees.** Eq. 11 omits the parent-child terms of node ``i``'s own internal children
  (they vanish in the paper's height-3 trees, where the children of non-root internal nodes
  are leaves). We keep them: the system of node ``i`` is
  ``(X_i'X_i + lam D_i + alpha (1[i has a parent] + c_i) I + 2 beta sum_l U_l) W_i
  = X_i'Y_i + alpha (W_p + sum_{c internal child} W_c)``, with ``U_l = H W_l W_l' H`` and
  ``c_i`` the number of internal children. This is Eq. 9 at the root (whose children are all
  internal in a height-3 tree) and Eq. 11 at a node whose children are leaves; the factor
  ``2 beta`` is the paper's ``beta (U_l + U_l')`` because every sibling pair appears twice in
  Eq. 4. Only internal nodes have weights: a leaf child or leaf sibling adds no term.
- **Zero rows.** ``D_jj = 1 / (2 sqrt(||w_j||^2 + eps))``; the recorded objective uses the
  same smoothed norm ``sum_j sqrt(||w_j||^2 + eps)``, which the iteration provably decreases.
- **Targets.** ``Y_i`` is the one-hot matrix of node ``i``'s children (sorted by id), padded
  with zero columns to ``d_max``; no intercept, as in Eq. 1.
- **Initialisation.** Random (standard normal, seeded by ``random_state``), as in Algorithm 1.

Linear systems are solved by Cholesky factorisation, never by forming an inverse, in the
cheaper of two equivalent forms: the ``n x n`` form (Gram matrix ``X_i'X_i`` computed once)
when ``n <= r_i`` and otherwise the ``r_i x r_i`` form from the Woodbury identity
(``r_i = m_i`` samples of the node plus ``d_max`` per internal sibling when ``beta > 0``).

The :class:`HiFSRR` estimator is a scikit-learn selector whose ``support_`` is the union of the
per-node subsets; ``node_support_`` holds the per-node ones. It is **not** in the selector
registry: registry selectors are :class:`~selection.base.HierarchicalSelector` s whose
hierarchy is over the binary *features* and which choose one global subset, while HiFSRR
takes a tree over the *classes*, works on real-valued data and selects per class node.
It is reached through the ``hifsrr2017`` evaluation protocol
(:mod:`selection.class_hierarchy.evaluation`) instead.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state

from kg.errors import KgfsError
from selection.base import SupportMaskMixin, first_k_mask
from selection.class_hierarchy.tree import ClassHierarchy, _check_Xy, as_class_hierarchy

__all__ = [
    "HiFSRR",
    "FSNM",
    "HiFSRRError",
    "HiFSRRResult",
    "fit_hifsrr",
    "hifsrr_objective",
    "node_tasks",
    "fsnm",
]

log = logging.getLogger(__name__)


class HiFSRRError(KgfsError, ValueError):
    """Bad parameters for HiFSRR / FSNM (e.g. ``k`` larger than the number of features).

    Examples
    --------
    >>> try:
    ...     FSNM(k=5).fit(np.eye(3), [0, 1, 1])
    ... except HiFSRRError as e:
    ...     print(e)
    k=5 is larger than the number of features (3)
    """


# ---------------------------------------------------------------------- per-node tasks
@dataclass
class NodeTask:
    """The classification task of one internal node: its samples and child targets.

    Parameters
    ----------
    node : int
        Index in the tree.
    rows : int ndarray
        Sample indices of the node's subtree.
    target : int ndarray
        Position (0..|C|-1) of the child holding each of those samples.
    children : list of int
        Tree indices of the children, in target order.
    """

    node: int
    rows: np.ndarray
    target: np.ndarray
    children: list[int]


def node_tasks(tree: ClassHierarchy, leaf: np.ndarray) -> list[NodeTask]:
    """The task of every internal node (breadth-first), from each sample's leaf index.

    Parameters
    ----------
    tree : ClassHierarchy
    leaf : int array (n_samples,)
        Tree index of each sample's leaf (:meth:`ClassHierarchy.leaf_indices`).

    Returns
    -------
    list of NodeTask

    Examples
    --------
    >>> t = ClassHierarchy.from_edges([("a", "x"), ("b", "x"), ("x", "r"), ("c", "r")])
    >>> [(t.node_ids[k.node], k.rows.tolist(), k.target.tolist()) for k in node_tasks(t, t.leaf_indices(["a", "c", "b"]))]
    [('r', [0, 1, 2], [1, 0, 1]), ('x', [0, 2], [0, 1])]
    """
    R = tree.route()
    out = []
    for i in tree.internal:
        kids = tree.children(int(i))
        pos = np.full(tree.n_nodes, -1, dtype=np.int64)
        pos[kids] = np.arange(len(kids))
        child = R[i, leaf]
        rows = np.flatnonzero(child >= 0)
        out.append(NodeTask(int(i), rows, pos[child[rows]], kids))
    return out


def _rows(X, rows: np.ndarray):
    return X if rows.size == X.shape[0] else X[rows]


# ---------------------------------------------------------------------- the solver
@dataclass
class HiFSRRResult:
    """Output of :func:`fit_hifsrr`: weights per internal node (breadth-first order).

    Parameters
    ----------
    W : list of ndarray (n_features, d_max)
        The weights of every internal node.
    objective : ndarray
        J after each iteration.
    n_iter : int
    converged : bool
    forms : list of str
        The form of each node's linear system, ``"n x n"`` or ``"r x r"``.
    tasks : list of NodeTask

    Examples
    --------
    >>> from selection.synthetic.class_tree import make_hierarchical_classification
    >>> d = make_hierarchical_classification(n_samples=90, random_state=0)
    >>> res = fit_hifsrr(d.X, d.tree.leaf_indices(d.y), d.tree, random_state=0)
    >>> len(res.W), res.W[0].shape, res.forms[0], res.converged
    (4, (76, 3), 'n x n', True)
    """

    W: list[np.ndarray]
    objective: np.ndarray
    n_iter: int
    converged: bool
    forms: list[str]
    tasks: list[NodeTask] = field(repr=False, default_factory=list)


class _Problem:
    """Constants of Eq. 4 for a data set and tree, and the per-node closed-form update."""

    def __init__(self, X, tree: ClassHierarchy, leaf: np.ndarray, lam, alpha, beta, eps, solver):
        self.X = X
        self.n = X.shape[1]
        self.tasks = node_tasks(tree, leaf)
        self.d = max(len(t.children) for t in self.tasks)
        self.lam, self.alpha, self.beta, self.eps = lam, alpha, beta, eps
        pos = {t.node: k for k, t in enumerate(self.tasks)}
        self.parent = [pos.get(int(tree.parent[t.node]), -1) for t in self.tasks]
        self.kids = [[pos[c] for c in t.children if c in pos] for t in self.tasks]
        self.sibs = [[pos[s] for s in tree.siblings(t.node) if s in pos] for t in self.tasks]
        self.Xi, self.G, self.XtY, self.forms, self.yy = [], [], [], [], []
        for k, t in enumerate(self.tasks):
            Xi = _rows(X, t.rows)
            Y = np.zeros((t.rows.size, self.d))
            Y[np.arange(t.rows.size), t.target] = 1.0
            self.XtY.append(np.asarray(Xi.T @ Y))
            self.yy.append(float(t.rows.size))
            r = t.rows.size + (len(self.sibs[k]) * self.d if beta > 0 else 0)
            form = solver if solver != "auto" else ("n x n" if self.n <= r else "r x r")
            self.forms.append(form)
            if form == "n x n":
                G = Xi.T @ Xi
                self.G.append(G.toarray() if sp.issparse(G) else np.asarray(G))
                self.Xi.append(None)
            else:
                self.G.append(None)
                self.Xi.append(Xi)

    # -- pieces of the objective
    def l21(self, W):
        return float(np.sqrt((W * W).sum(axis=1) + self.eps).sum())

    def loss(self, k, W):
        if self.G[k] is not None:
            return float((W * (self.G[k] @ W)).sum() - 2 * (W * self.XtY[k]).sum() + self.yy[k])
        t = self.tasks[k]
        R = np.asarray(self.Xi[k] @ W)
        R[np.arange(t.rows.size), t.target] -= 1.0
        return float((R * R).sum())

    def objective(self, Ws) -> float:
        J = 0.0
        for k, W in enumerate(Ws):
            J += self.loss(k, W) + self.lam * self.l21(W)
            if self.parent[k] >= 0:
                J += self.alpha * float(((W - Ws[self.parent[k]]) ** 2).sum())
            if self.beta:
                HW = W - W.mean(axis=0)  # H W without forming H
                for s in self.sibs[k]:
                    J += self.beta * float(((Ws[s].T @ HW) ** 2).sum())
        return J

    # -- one block update (Eq. 9 / Eq. 11)
    def update(self, k, Ws) -> np.ndarray:
        W = Ws[k]
        dvec = 0.5 / np.sqrt((W * W).sum(axis=1) + self.eps)
        nb = (self.parent[k] >= 0) + len(self.kids[k])
        M = self.lam * dvec + self.alpha * nb  # diagonal part of the system matrix
        B = self.XtY[k].copy()
        if self.alpha and nb:
            for j in ([self.parent[k]] if self.parent[k] >= 0 else []) + self.kids[k]:
                B += self.alpha * Ws[j]
        Z = None
        if self.beta and self.sibs[k]:
            # 2 beta sum_l U_l = Z Z' with Z = sqrt(2 beta) [H W_l ...]
            Z = np.sqrt(2 * self.beta) * np.hstack([Ws[s] - Ws[s].mean(axis=0) for s in self.sibs[k]])
        if self.G[k] is not None:
            A = self.G[k].copy()
            A[np.diag_indices_from(A)] += M
            if Z is not None:
                A += Z @ Z.T
            return _spd_solve(A, B)
        # Woodbury: (M + V V')^{-1} B = M^-1 B - M^-1 V (I + V' M^-1 V)^{-1} V' M^-1 B, V = [X_i', Z]
        Xi = self.Xi[k]
        Minv = 1.0 / M
        XM = Xi.multiply(Minv[None, :]).tocsr() if sp.issparse(Xi) else Xi * Minv
        K = np.asarray(XM @ Xi.T.toarray() if sp.issparse(Xi) else XM @ Xi.T)
        MB = Minv[:, None] * B
        rhs = np.asarray(Xi @ MB)
        if Z is not None:
            MZ = Minv[:, None] * Z
            XMZ = np.asarray(Xi @ MZ)
            K = np.block([[K, XMZ], [XMZ.T, Z.T @ MZ]])
            rhs = np.vstack([rhs, Z.T @ MB])
        K[np.diag_indices_from(K)] += 1.0
        s = _spd_solve(K, rhs)
        m = Xi.shape[0]
        back = np.asarray(Xi.T @ s[:m])
        if Z is not None:
            back = back + Z @ s[m:]
        return MB - Minv[:, None] * back


def _spd_solve(A, B):
    try:
        return sla.cho_solve(sla.cho_factor(A, lower=True, check_finite=False), B, check_finite=False)
    except sla.LinAlgError:  # numerically semi-definite: symmetric indefinite solver
        return sla.solve(A, B, assume_a="sym", check_finite=False)


def _check_params(lam, alpha, beta, max_iter, tol, eps):
    for name, v, positive in (("lam", lam, True), ("alpha", alpha, False), ("beta", beta, False),
                              ("tol", tol, False), ("eps", eps, True)):
        if not np.isfinite(v) or v < 0 or (positive and v == 0):
            raise HiFSRRError(f"{name} must be {'positive' if positive else 'non-negative'}, got {v!r}")
    if int(max_iter) < 1:
        raise HiFSRRError(f"max_iter must be at least 1, got {max_iter!r}")


def fit_hifsrr(
    X,
    leaf: np.ndarray,
    tree: ClassHierarchy,
    *,
    lam: float = 10.0,
    alpha: float = 0.1,
    beta: float = 0.1,
    max_iter: int = 100,
    tol: float = 1e-5,
    eps: float = 1e-12,
    update: str = "gauss-seidel",
    solver: str = "auto",
    random_state=None,
) -> HiFSRRResult:
    """Run Algorithm 1 of Zhao et al. on ``X`` (n_samples x n_features, dense or sparse).

    ``leaf[s]`` is the tree index of sample ``s``'s leaf (see
    :meth:`ClassHierarchy.leaf_indices`). ``update`` is ``"gauss-seidel"`` (default,
    monotone) or ``"jacobi"`` (Algorithm 1 read literally); ``solver`` is ``"auto"``,
    ``"n x n"`` or ``"r x r"`` (see the module docstring).

    Parameters
    ----------
    X : array or sparse matrix (n_samples, n_features)
    leaf : int array (n_samples,)
    tree : ClassHierarchy
    lam, alpha, beta : float
        lambda (l2,1, > 0), alpha (parent-child), beta (HSIC between siblings).
    max_iter : int
    tol : float
        Stop when J changes by less than ``tol`` relative to its previous value.
    eps : float
        Smoothing of the l2,1 norm.
    update : {"gauss-seidel", "jacobi"}
    solver : {"auto", "n x n", "r x r"}
    random_state : int, RandomState or None
        Seeds the random initial weights.

    Returns
    -------
    HiFSRRResult

    Examples
    --------
    >>> from selection.synthetic.class_tree import make_hierarchical_classification
    >>> d = make_hierarchical_classification(n_samples=90, random_state=0)
    >>> res = fit_hifsrr(d.X, d.tree.leaf_indices(d.y), d.tree, random_state=0)
    >>> bool(np.all(np.diff(res.objective) <= 0))
    True
    """
    _check_params(lam, alpha, beta, max_iter, tol, eps)
    if update not in ("gauss-seidel", "jacobi"):
        raise HiFSRRError(f"update must be 'gauss-seidel' or 'jacobi', got {update!r}")
    if solver not in ("auto", "n x n", "r x r"):
        raise HiFSRRError(f"solver must be 'auto', 'n x n' or 'r x r', got {solver!r}")
    prob = _Problem(X, tree, np.asarray(leaf), lam, alpha, beta, eps, solver)
    rng = check_random_state(random_state)
    Ws = [rng.standard_normal((prob.n, prob.d)) for _ in prob.tasks]
    J_prev = prob.objective(Ws)
    history, converged = [], False
    for _ in range(int(max_iter)):
        if update == "jacobi":  # every block from the previous iterate (Algorithm 1 literally)
            old = list(Ws)
            Ws = [prob.update(k, old) for k in range(len(old))]
        else:  # each block from the newest neighbours: monotone
            for k in range(len(Ws)):
                Ws[k] = prob.update(k, Ws)
        J = prob.objective(Ws)
        history.append(J)
        if abs(J_prev - J) <= tol * max(abs(J_prev), np.finfo(float).tiny):
            converged = True
            break
        J_prev = J
    log.debug("HiFSRR: %d iterations, J=%.6g, converged=%s", len(history), history[-1], converged)
    return HiFSRRResult(Ws, np.asarray(history), len(history), converged, prob.forms, prob.tasks)


def hifsrr_objective(X, leaf, tree, W, *, lam, alpha, beta, eps=1e-12) -> float:
    """J of Eq. 4 (smoothed l2,1) for weights ``W`` (list, breadth-first internal order).

    Parameters
    ----------
    X, leaf, tree, lam, alpha, beta, eps
        As :func:`fit_hifsrr`.
    W : list of ndarray (n_features, d_max)

    Returns
    -------
    float

    Examples
    --------
    >>> from selection.synthetic.class_tree import make_hierarchical_classification
    >>> d = make_hierarchical_classification(n_samples=90, random_state=0)
    >>> leaf = d.tree.leaf_indices(d.y)
    >>> res = fit_hifsrr(d.X, leaf, d.tree, random_state=0)
    >>> bool(np.isclose(hifsrr_objective(d.X, leaf, d.tree, res.W, lam=10, alpha=0.1, beta=0.1), res.objective[-1]))
    True
    """
    return _Problem(X, tree, np.asarray(leaf), lam, alpha, beta, eps, "r x r").objective(list(W))


def _rank(W: np.ndarray):
    scores = np.sqrt((W * W).sum(axis=1))
    return scores, np.argsort(-scores, kind="stable")


def _check_k(k, n_features):
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise HiFSRRError(f"k must be a positive integer or None, got {k!r}")
    if k > n_features:
        raise HiFSRRError(f"k={k} is larger than the number of features ({n_features})")
    return int(k)


# ---------------------------------------------------------------------- estimators
class HiFSRR(SupportMaskMixin, SelectorMixin, BaseEstimator):
    """Hierarchical feature selection with recursive regularisation (per class-tree node).

    Parameters
    ----------
    class_tree : ClassHierarchy, path, (child, parent) pairs or None
        Tree over the labels of ``y`` (labels are leaves, matched by ``str``). ``None``
        builds one from the training data (:meth:`ClassHierarchy.from_data`).
    lam, alpha, beta : float
        lambda (l2,1 weight, > 0), alpha (parent-child), beta (HSIC between siblings).
        Defaults are the paper's for all but its CLEF data set (10, 0.1, 0.1).
        ``alpha = beta = 0`` is the flat l2,1 method fitted per node.
    k : int or None
        Features selected per internal node; ``None`` keeps every feature (ranking only).
    max_iter, tol : int, float
        Stop when the objective changes by less than ``tol`` relative to its previous value.
    eps : float
        Smoothing of the l2,1 norm (see module docstring).
    update, solver : str
        See :func:`fit_hifsrr`.
    random_state : int, RandomState or None
        Seeds the random initialisation.

    Attributes
    ----------
    tree_ : ClassHierarchy
    coef_ : dict of node id -> ndarray (n_features, d_max)
    node_scores_ : dict of node id -> row norms of W_i
    node_ranking_ : dict of node id -> feature indices, best first
    node_support_ : dict of node id -> bool mask of the node's top ``k``
    support_ : bool mask, union of the per-node masks
    objective_ : ndarray, the objective after each iteration
    n_iter_ : int
    converged_ : bool

    Examples
    --------
    >>> from selection.synthetic.class_tree import make_hierarchical_classification
    >>> d = make_hierarchical_classification(n_samples=300, random_state=0)
    >>> sel = HiFSRR(d.tree, k=4, random_state=0).fit(d.X, d.y)
    >>> bool(np.all(np.diff(sel.objective_) <= 1e-9 * sel.objective_[:-1]))
    True
    >>> set(np.flatnonzero(sel.node_support_["g0"])) <= set(d.relevant["g0"])
    True
    """

    def __init__(
        self,
        class_tree=None,
        *,
        lam=10.0,
        alpha=0.1,
        beta=0.1,
        k=10,
        max_iter=100,
        tol=1e-5,
        eps=1e-12,
        update="gauss-seidel",
        solver="auto",
        random_state=None,
    ):
        self.class_tree = class_tree
        self.lam = lam
        self.alpha = alpha
        self.beta = beta
        self.k = k
        self.max_iter = max_iter
        self.tol = tol
        self.eps = eps
        self.update = update
        self.solver = solver
        self.random_state = random_state

    def fit(self, X, y):
        X, y, _, _ = _check_Xy(self, X, y, "HiFSRR")
        k = _check_k(self.k, X.shape[1])
        tree = ClassHierarchy.from_data(X, y) if self.class_tree is None else as_class_hierarchy(self.class_tree)
        leaf = tree.leaf_indices(y)
        res = fit_hifsrr(
            X, leaf, tree, lam=self.lam, alpha=self.alpha, beta=self.beta, max_iter=self.max_iter,
            tol=self.tol, eps=self.eps, update=self.update, solver=self.solver, random_state=self.random_state,
        )
        self.tree_ = tree
        self.objective_, self.n_iter_, self.converged_ = res.objective, res.n_iter, res.converged
        self.coef_, self.node_scores_, self.node_ranking_, self.node_support_ = {}, {}, {}, {}
        for t, W in zip(res.tasks, res.W):
            node = tree.node_ids[t.node]
            scores, ranking = _rank(W)
            mask = first_k_mask(ranking, X.shape[1], k)
            self.coef_[node], self.node_scores_[node] = W, scores
            self.node_ranking_[node], self.node_support_[node] = ranking, mask
        self.support_ = np.logical_or.reduce(list(self.node_support_.values()))
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = True
        return tags


def fsnm(X, Y, *, gamma: float = 1.0, max_iter: int = 100, tol: float = 1e-5, eps: float = 1e-12):
    """FSNM (Nie et al. 2010): minimise ``||X W - Y||_{2,1} + gamma ||W||_{2,1}``.

    Iteratively reweighted: with ``D1 = diag(1 / 2||r_j||)`` over the residual rows and
    ``D2 = diag(1 / 2||w_j||)`` over the weight rows, ``W = (X' D1 X + gamma D2)^{-1} X' D1 Y``
    (the ``n x n`` form) or, equivalently (push-through identity, Nie et al.'s Algorithm 1),
    ``W = D2^{-1} X' (X D2^{-1} X' + gamma D1^{-1})^{-1} Y`` (the ``m x m`` form), whichever
    is smaller. Starts from ``D1 = D2 = I``. Returns ``(W, objective per iteration)``; the
    objective (norms smoothed by ``eps`` as in :func:`fit_hifsrr`) decreases monotonically.

    Parameters
    ----------
    X : array or sparse matrix (m, n)
    Y : array (m, d)
        Targets (one-hot class indicators).
    gamma : float
        Weight of the l2,1 penalty (> 0).
    max_iter : int
    tol : float
        Stop when the objective changes by less than ``tol`` relative to its value.
    eps : float
        Smoothing of the norms.

    Returns
    -------
    W : ndarray (n, d)
    objective : ndarray
        The objective after each iteration.

    Examples
    --------
    >>> X = np.array([[1., 0, 0.2], [0.9, 0, -0.1], [0, 1, 0.1], [0.1, 1.1, 0]])
    >>> W, J = fsnm(X, np.eye(2)[[0, 0, 1, 1]])
    >>> np.sqrt((W * W).sum(axis=1)).round(2).tolist(), bool(np.all(np.diff(J) <= 0))
    ([1.0, 0.91, 0.0], True)
    """
    if not gamma > 0:
        raise HiFSRRError(f"gamma must be positive, got {gamma!r}")
    m, n = X.shape
    Y = np.asarray(Y, dtype=np.float64)
    d1, d2 = np.ones(m), np.ones(n)

    def obj(W):
        R = np.asarray(X @ W) - Y
        return float(np.sqrt((R * R).sum(1) + eps).sum() + gamma * np.sqrt((W * W).sum(1) + eps).sum())

    history, J_prev, W = [], np.inf, None
    Xd = X.toarray() if sp.issparse(X) and min(m, n) <= 2000 else X
    for _ in range(int(max_iter)):
        if n <= m:
            A = np.asarray(Xd.T @ (d1[:, None] * Xd)) if not sp.issparse(Xd) else (Xd.T @ sp.diags(d1) @ Xd).toarray()
            A[np.diag_indices_from(A)] += gamma * d2
            W = _spd_solve(A, np.asarray(Xd.T @ (d1[:, None] * Y)))
        else:
            XD = Xd * (1.0 / d2) if not sp.issparse(Xd) else Xd.multiply(1.0 / d2[None, :]).tocsr()
            K = np.asarray(XD @ Xd.T) if not sp.issparse(Xd) else (XD @ Xd.T).toarray()
            K[np.diag_indices_from(K)] += gamma / d1
            W = (1.0 / d2)[:, None] * np.asarray(Xd.T @ _spd_solve(K, Y))
        R = np.asarray(Xd @ W) - Y
        d1 = 0.5 / np.sqrt((R * R).sum(1) + eps)
        d2 = 0.5 / np.sqrt((W * W).sum(1) + eps)
        J = obj(W)
        history.append(J)
        if abs(J_prev - J) <= tol * abs(J):
            break
        J_prev = J
    return W, np.asarray(history)


class FSNM(SupportMaskMixin, SelectorMixin, BaseEstimator):
    """FSNM (Nie et al. 2010): one global subset from joint l2,1-norm minimisation.

    The flat baseline of Zhao et al.; :mod:`selection.class_hierarchy.evaluation` applies it per
    class-tree node. Targets are the one-hot class indicators. Features are ranked by the
    row norms of ``W``; the top ``k`` are kept.

    Parameters
    ----------
    gamma : float
        Weight of the l2,1 penalty (> 0).
    k : int or None
        Features kept (None: all, ranking only).
    max_iter, tol : int, float
        As :func:`fsnm`.

    Attributes
    ----------
    coef_ : ndarray (n_features, n_classes)
    objective_ : ndarray
    n_iter_ : int
    scores_ : ndarray
        Row norms of ``coef_``.
    ranking_ : int ndarray
        Features, best first.
    support_ : bool ndarray

    Examples
    --------
    >>> X = np.array([[1., 0, 0.2], [0.9, 0, -0.1], [0, 1, 0.1], [0.1, 1.1, 0]])
    >>> FSNM(k=2).fit(X, [0, 0, 1, 1]).get_support().tolist()
    [True, True, False]
    """

    def __init__(self, *, gamma=1.0, k=10, max_iter=100, tol=1e-5):
        self.gamma = gamma
        self.k = k
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y):
        X, y, classes, codes = _check_Xy(self, X, y, "FSNM")
        k = _check_k(self.k, X.shape[1])
        Y = np.zeros((X.shape[0], classes.size))
        Y[np.arange(X.shape[0]), codes] = 1.0
        self.coef_, self.objective_ = fsnm(X, Y, gamma=self.gamma, max_iter=self.max_iter, tol=self.tol)
        self.n_iter_ = len(self.objective_)
        self.scores_, self.ranking_ = _rank(self.coef_)
        self.support_ = first_k_mask(self.ranking_, X.shape[1], k)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

