"""Tests of selection/class_hierarchy/hifsrr.py: HiFSRR (Zhao et al. 2017, Algorithm 1) and FSNM (Nie et al. 2010)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils.estimator_checks import parametrize_with_checks

from kg.errors import KgfsError
from selection.class_hierarchy.hifsrr import FSNM, HiFSRR, HiFSRRError, fit_hifsrr, fsnm, hifsrr_objective, node_tasks
from selection.class_hierarchy.tree import ClassHierarchy, ClassTreeError
from selection.synthetic.class_tree import make_hierarchical_classification


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Small dense problems: extra BLAS threads only add overhead on a shared machine."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


# A height-4 tree: root -> {A, B, z}; A -> {a1, a2, A3}; A3 -> {x, y}; B -> {b1, b2}
DEEP = [("A", "r"), ("B", "r"), ("z", "r"), ("a1", "A"), ("a2", "A"), ("A3", "A"), ("x", "A3"), ("y", "A3"),
        ("b1", "B"), ("b2", "B")]


def small_data(seed=0, n=60, m=8, leaves=("z", "a1", "a2", "x", "y", "b1", "b2")):
    rng = np.random.default_rng(seed)
    y = np.array([leaves[i % len(leaves)] for i in range(n)])
    X = rng.normal(size=(n, m))
    for j, lab in enumerate(leaves):
        X[y == lab, j % m] += 2.0
    return X, y


def synthetic(seed=0, **kw):
    return make_hierarchical_classification(**{"n_samples": 120, "n_noise": 30, "random_state": seed, **kw})


# ---------------------------------------------------------------------- the paper's equations, naively
def paper_algorithm_1(X, y, tree, *, lam, alpha, beta, n_iter, seed, eps=1e-12):
    """Algorithm 1 as printed (Eq. 9 at the root, Eq. 11 elsewhere), with explicit inverses and
    an explicit centring matrix H, nodes updated in breadth-first order with the newest values.
    Valid for the paper's trees, where the children of non-root internal nodes are leaves."""
    leaf = tree.leaf_indices(y)
    tasks = node_tasks(tree, leaf)
    d = max(len(t.children) for t in tasks)
    n = X.shape[1]
    H = np.eye(n) - np.ones((n, n)) / n
    rng = check_random_state(seed)
    W = [rng.standard_normal((n, d)) for _ in tasks]
    pos = {t.node: k for k, t in enumerate(tasks)}
    for _ in range(n_iter):
        for k, t in enumerate(tasks):
            Xi = X[t.rows]
            Y = np.zeros((t.rows.size, d))
            Y[np.arange(t.rows.size), t.target] = 1
            D = np.diag(1 / (2 * np.sqrt((W[k] ** 2).sum(1) + eps)))
            if t.node == tree.root:  # Eq. 9
                C0 = [pos[c] for c in tree.children(tree.root)]
                A = Xi.T @ Xi + lam * D + alpha * len(C0) * np.eye(n)
                B = Xi.T @ Y + alpha * sum(W[c] for c in C0)
            else:  # Eq. 11
                U = [H @ W[pos[s]] @ W[pos[s]].T @ H for s in tree.siblings(t.node) if s in pos]
                A = Xi.T @ Xi + lam * D + alpha * np.eye(n) + beta * sum((u + u.T for u in U), np.zeros((n, n)))
                B = Xi.T @ Y + alpha * W[pos[int(tree.parent[t.node])]]
            W[k] = np.linalg.inv(A) @ B
    return W


def paper_objective(X, y, tree, W, *, lam, alpha, beta, eps=1e-12):
    """Eq. 4 with traces and an explicit H (smoothed l2,1 norm)."""
    leaf = tree.leaf_indices(y)
    tasks = node_tasks(tree, leaf)
    pos = {t.node: k for k, t in enumerate(tasks)}
    n = X.shape[1]
    H = np.eye(n) - np.ones((n, n)) / n
    J = 0.0
    for k, t in enumerate(tasks):
        Y = np.zeros((t.rows.size, W[k].shape[1]))
        Y[np.arange(t.rows.size), t.target] = 1
        J += np.linalg.norm(X[t.rows] @ W[k] - Y) ** 2 + lam * np.sqrt((W[k] ** 2).sum(1) + eps).sum()
        if t.node != tree.root:
            J += alpha * np.linalg.norm(W[k] - W[pos[int(tree.parent[t.node])]]) ** 2
            for s in tree.siblings(t.node):
                if s in pos:
                    Ki, Kl = W[k] @ W[k].T, W[pos[s]] @ W[pos[s]].T
                    J += beta * np.trace(Ki @ H @ Kl @ H)
    return J


@pytest.mark.parametrize("solver", ["n x n", "r x r"])
def test_matches_the_papers_equations(solver):
    d = synthetic(n_samples=60, n_noise=10)
    leaf = d.tree.leaf_indices(d.y)
    kw = dict(lam=2.0, alpha=0.7, beta=0.3)
    res = fit_hifsrr(d.X, leaf, d.tree, max_iter=6, tol=0.0, solver=solver, random_state=5, **kw)
    ref = paper_algorithm_1(d.X, d.y, d.tree, n_iter=6, seed=5, **kw)
    assert res.n_iter == 6 and set(res.forms) == {solver}
    for a, b in zip(res.W, ref):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)
    J = paper_objective(d.X, d.y, d.tree, ref, **kw)
    assert res.objective[-1] == pytest.approx(J, rel=1e-9)
    assert hifsrr_objective(d.X, leaf, d.tree, res.W, **kw) == pytest.approx(J, rel=1e-9)


def test_woodbury_form_chosen_when_features_outnumber_samples():
    d = synthetic(n_samples=40, n_noise=300)
    leaf = d.tree.leaf_indices(d.y)
    auto = fit_hifsrr(d.X, leaf, d.tree, random_state=0, max_iter=5, tol=0)
    assert set(auto.forms) == {"r x r"}
    dense = fit_hifsrr(d.X, leaf, d.tree, random_state=0, max_iter=5, tol=0, solver="n x n")
    spar = fit_hifsrr(sp.csr_matrix(d.X), leaf, d.tree, random_state=0, max_iter=5, tol=0)
    for a, b, c in zip(auto.W, dense.W, spar.W):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(a, c, rtol=1e-6, atol=1e-9)
    big = synthetic(n_samples=400, n_noise=10)
    assert set(fit_hifsrr(big.X, big.tree.leaf_indices(big.y), big.tree, max_iter=1).forms) == {"n x n"}


def test_converged_weights_are_stationary_on_a_deep_tree():
    """Finite differences of the objective vanish at the fixed point, so the closed-form update
    (with the child terms Eq. 11 leaves out for deeper trees) is the right one."""
    tree = ClassHierarchy.from_edges(DEEP)
    X, y = small_data()
    leaf = tree.leaf_indices(y)
    kw = dict(lam=0.5, alpha=2.0, beta=1.5)
    res = fit_hifsrr(X, leaf, tree, max_iter=3000, tol=1e-15, random_state=0, **kw)
    assert [tree.node_ids[t.node] for t in res.tasks] == ["r", "A", "B", "A3"]
    W = [w.copy() for w in res.W]
    J0 = hifsrr_objective(X, leaf, tree, W, **kw)
    h = 1e-6
    rng = np.random.default_rng(0)
    for k in range(len(W)):
        for _ in range(5):
            i, j = rng.integers(W[k].shape[0]), rng.integers(W[k].shape[1])
            Wp = [w.copy() for w in W]
            Wm = [w.copy() for w in W]
            Wp[k][i, j] += h
            Wm[k][i, j] -= h
            g = (hifsrr_objective(X, leaf, tree, Wp, **kw) - hifsrr_objective(X, leaf, tree, Wm, **kw)) / (2 * h)
            assert abs(g) < 1e-4 * max(1.0, J0), (k, i, j, g)


@pytest.mark.parametrize("params", [
    dict(lam=10, alpha=0.1, beta=0.1),
    dict(lam=1, alpha=1, beta=1),
    dict(lam=10, alpha=30, beta=30),
    dict(lam=0.1, alpha=0, beta=5),
])
@pytest.mark.parametrize("sparse", [False, True])
def test_objective_decreases_monotonically_and_converges(params, sparse):
    d = synthetic(seed=2)
    X = sp.csr_matrix(d.X) if sparse else d.X
    sel = HiFSRR(d.tree, k=4, random_state=0, **params).fit(X, d.y)
    J = sel.objective_
    assert sel.converged_ and sel.n_iter_ == len(J) <= 60  # "a few tens of iterations"
    steps = np.diff(J)
    assert (steps <= 1e-10 * J[:-1]).all(), steps.max()
    assert J[-1] < J[0]


def test_monotone_on_a_deep_tree_and_woodbury():
    tree = ClassHierarchy.from_edges(DEEP)
    X, y = small_data(n=30, m=50)
    res = fit_hifsrr(X, tree.leaf_indices(y), tree, lam=1, alpha=3, beta=3, random_state=1, tol=1e-8)
    assert "r x r" in res.forms
    assert (np.diff(res.objective) <= 1e-10 * res.objective[:-1]).all()


def test_jacobi_reading_of_algorithm_1_runs():
    d = synthetic(seed=3)
    a = HiFSRR(d.tree, k=4, update="jacobi", random_state=0).fit(d.X, d.y)
    b = HiFSRR(d.tree, k=4, random_state=0).fit(d.X, d.y)
    assert a.converged_
    # the same problem: both reach the same objective value
    assert a.objective_[-1] == pytest.approx(b.objective_[-1], rel=1e-3)


def test_flat_when_alpha_and_beta_are_zero():
    """alpha = beta = 0: every node is the flat l2,1 problem on its own samples and children."""
    d = synthetic(seed=4)
    sel = HiFSRR(d.tree, k=4, alpha=0, beta=0, tol=1e-12, max_iter=2000, random_state=0).fit(d.X, d.y)
    for node in d.tree.internal_ids:
        kids = d.tree.children_of(node)
        mask = np.isin(d.y, [lab for lab in d.y if _under(d.tree, lab, node)])
        sub_y = np.array([next(c for c in kids if _under(d.tree, lab, c)) for lab in d.y[mask]])
        flat = ClassHierarchy.from_edges([(c, "top") for c in kids])
        one = HiFSRR(flat, k=4, tol=1e-12, max_iter=2000, random_state=1).fit(d.X[mask], sub_y)
        W = sel.coef_[node][:, : len(kids)]
        np.testing.assert_allclose(W, one.coef_["top"], rtol=1e-3, atol=1e-5)
        np.testing.assert_allclose(sel.coef_[node][:, len(kids):], 0, atol=1e-6)  # padding columns
        assert set(np.flatnonzero(sel.node_support_[node])) == set(np.flatnonzero(one.node_support_["top"]))


def _under(tree, label, node):
    i, target = tree.index[str(label)], tree.index[node]
    while i >= 0:
        if i == target:
            return True
        i = int(tree.parent[i])
    return False


def test_selects_the_planted_features():
    d = synthetic(seed=0, n_samples=300)
    sel = HiFSRR(d.tree, k=12, random_state=0).fit(d.X, d.y)
    for node in ("root", "g0", "g1", "g2"):
        top = sel.node_ranking_[node][: len(d.relevant[node])]
        assert np.isin(top, d.relevant[node]).mean() >= 0.9, node
    assert all(m.sum() == 12 for m in sel.node_support_.values())
    assert sel.support_.sum() == len(set().union(*(np.flatnonzero(m) for m in sel.node_support_.values())))
    assert sel.transform(d.X).shape == (300, sel.support_.sum())
    ranking = sel.node_ranking_["g1"]
    assert np.all(np.diff(sel.node_scores_["g1"][ranking]) <= 0)


def test_hierarchy_terms_help_with_few_features():
    """The paper's section 3.4 on the synthetic data: with few features per node (k=2), many noise
    features and few samples, alpha = beta > 0 finds more of the planted features than 0."""
    found = {0: [], 30: []}
    for seed in range(6):
        d = make_hierarchical_classification(n_samples=90, n_noise=500, group_sep=1.0, class_sep=0.7,
                                             random_state=seed)
        X = (d.X - d.X.mean(0)) / d.X.std(0)
        for a in found:
            sel = HiFSRR(d.tree, k=2, lam=10, alpha=a, beta=a, random_state=0).fit(X, d.y)
            found[a].append(np.mean([np.isin(np.flatnonzero(sel.node_support_[g]), d.relevant[g]).mean()
                                     for g in ("g0", "g1", "g2")]))
    assert np.mean(found[30]) > np.mean(found[0]) + 0.05, found


# ---------------------------------------------------------------------- bad input
def test_bad_input():
    d = synthetic()
    with pytest.raises(HiFSRRError, match=r"k=1000 is larger than the number of features \(66\)"):
        HiFSRR(d.tree, k=1000).fit(d.X, d.y)
    with pytest.raises(KgfsError, match="k must be a positive integer"):
        HiFSRR(d.tree, k=0).fit(d.X, d.y)
    with pytest.raises(HiFSRRError, match="lam must be positive"):
        HiFSRR(d.tree, lam=0).fit(d.X, d.y)
    with pytest.raises(HiFSRRError, match="alpha must be non-negative"):
        HiFSRR(d.tree, alpha=-1).fit(d.X, d.y)
    with pytest.raises(ClassTreeError, match="not in the class tree: 'c9.9'"):
        HiFSRR(d.tree).fit(d.X, np.where(d.y == "c0.0", "c9.9", d.y))
    with pytest.raises(ClassTreeError, match="exactly one root; found 2"):
        HiFSRR([("a", "r"), ("b", "s")]).fit(d.X[:4], ["a", "b", "a", "b"])
    with pytest.raises(KgfsError, match="cycle"):
        HiFSRR([("a", "r"), ("b", "r"), ("r", "a")]).fit(d.X[:4], ["a", "b", "a", "b"])
    with pytest.raises(HiFSRRError, match="update must be"):
        HiFSRR(d.tree, update="sideways").fit(d.X, d.y)
    with pytest.raises(HiFSRRError, match="k=7 is larger"):
        FSNM(k=7).fit(d.X[:, :6], d.y)


def test_tree_from_file_and_from_data(tmp_path):
    d = synthetic()
    p = tmp_path / "tree.tsv"
    d.tree.write(p)
    a = HiFSRR(str(p), k=3, random_state=0).fit(d.X, d.y)
    b = HiFSRR(d.tree, k=3, random_state=0).fit(d.X, d.y)
    assert a.tree_ == b.tree_
    np.testing.assert_array_equal(a.support_, b.support_)
    c = HiFSRR(k=3, random_state=0).fit(d.X, d.y)  # tree from the data
    assert sorted(c.tree_.leaf_ids) == sorted(set(d.y))


# ---------------------------------------------------------------------- FSNM
def test_fsnm_forms_agree_and_decrease():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 12))
    Y = np.eye(3)[rng.integers(0, 3, 30)]
    W_nn, J1 = fsnm(X, Y, gamma=0.5, tol=1e-12, max_iter=300)
    W_mm, J2 = fsnm(X[:10], Y[:10], gamma=0.5, tol=1e-12, max_iter=300)  # 10 < 12: m x m form
    assert (np.diff(J1) <= 1e-10 * J1[:-1]).all() and (np.diff(J2) <= 1e-10 * J2[:-1]).all()
    # the m x m form solves the same problem: compare with the n x n update on the same data
    Xw = np.hstack([X[:10], np.zeros((10, 0))])
    W_ref, _ = _fsnm_nn(Xw, Y[:10], 0.5, 300)
    np.testing.assert_allclose(W_mm, W_ref, rtol=1e-4, atol=1e-6)


def _fsnm_nn(X, Y, gamma, n_iter, eps=1e-12):
    d1, d2 = np.ones(X.shape[0]), np.ones(X.shape[1])
    for _ in range(n_iter):
        W = np.linalg.solve(X.T @ (d1[:, None] * X) + gamma * np.diag(d2), X.T @ (d1[:, None] * Y))
        R = X @ W - Y
        d1 = 0.5 / np.sqrt((R * R).sum(1) + eps)
        d2 = 0.5 / np.sqrt((W * W).sum(1) + eps)
    return W, None


def test_fsnm_selects_informative_features():
    d = synthetic(seed=1, n_samples=300)
    sel = FSNM(k=36).fit(d.X, d.y)
    assert len(d.relevant["root"]) == 36
    assert np.isin(np.flatnonzero(sel.get_support()), d.relevant["root"]).mean() >= 0.9
    assert (np.diff(sel.objective_) <= 1e-10 * sel.objective_[:-1]).all()


@parametrize_with_checks([HiFSRR(k=1, random_state=0), FSNM(k=1)])
def test_sklearn_compatible(estimator, check):
    check(estimator)
