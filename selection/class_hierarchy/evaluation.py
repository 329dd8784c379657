"""Evaluation of per-class-node feature selection (Zhao et al., IJCAI 2017, section 3.3).

For each number ``k`` of features selected per node, in each fold of a stratified
``n_splits``-fold cross-validation (``StratifiedKFold(shuffle=True, random_state)``, the folds
of :mod:`selection.evaluation.cv`):

1. every method ranks the features of every internal node of the class tree on the training
   part only;
2. **per-node accuracy** (the paper's measure): at every internal node, a linear SVM is
   trained on the training samples of the node's subtree, with the node's children as
   targets and the node's top-``k`` features, and scored on the test samples of that subtree
   (their true child as target); the fold's score is the unweighted mean over internal nodes;
3. **top-down accuracy**: the whole :class:`~selection.class_hierarchy.tree.HierarchicalClassifier`
   (the same per-node SVMs and features) predicts a leaf for every test sample.

Methods (``METHODS``):

- ``hifsrr``: :class:`~selection.class_hierarchy.hifsrr.HiFSRR` with the given ``lam, alpha, beta``;
- ``hifsrr-flat``: HiFSRR with ``alpha = beta = 0`` (the flat l2,1 method per node, the
  paper's section 3.4 ablation);
- ``fsnm``: FSNM (Nie et al. 2010) per node;
- ``fisher``, ``mrmr``, ``relieff``: per node, on the node's samples and child targets.

``selection.flat.filters`` (Fisher, mRMR, ReliefF of the flat-selector issue) selects from *binary*
features (it is a :class:`~selection.base.HierarchicalSelector`), whereas this protocol works on
real-valued data (e.g. pixel intensities), so the three per-node baselines are implemented here
for real values:

- Fisher score (Duda et al.): ``sum_c n_c (mu_c - mu)^2 / sum_c n_c sigma_c^2`` (0/0 -> 0);
- mRMR (Peng et al. 2005, the MID criterion): features discretised into three states at
  ``mean +- std`` (Peng et al.'s own discretisation of continuous data), mutual information
  from counts, greedy ``I(f; c) - mean_{s selected} I(f; s)``;
- ReliefF (Kononenko 1994): ``n_neighbors`` nearest hits and misses per class (L1 distance of
  features scaled to [0, 1]), misses weighted by class priors, at most ``n_iter`` sampled
  instances (all when fewer).

By default features are standardised inside each fold (statistics of the training part) before
ranking and classification (``scale=True``): the l2,1 methods and ReliefF depend on feature
scale, and the paper's data (CNN and protein descriptors) are on comparable scales.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import StandardScaler

from kg.errors import KgfsError
from selection.class_hierarchy.tree import (
    ClassHierarchy,
    HierarchicalClassifier,
    as_class_hierarchy,
    default_node_classifier,
)
from selection.class_hierarchy.hifsrr import HiFSRR, fsnm, node_tasks

__all__ = [
    "METHODS",
    "evaluate_class_hierarchy",
    "summarize",
    "rank_nodes",
    "fisher_scores",
    "mrmr_ranking",
    "relieff_scores",
    "default_feature_counts",
]

log = logging.getLogger(__name__)

METHODS = ("hifsrr", "hifsrr-flat", "fsnm", "fisher", "mrmr", "relieff")
_ALIASES = {"fisher-score": "fisher", "relief": "relieff", "hifsrr-noreg": "hifsrr-flat"}

#: The paper's parameters for all data sets but CLEF.
PAPER_PARAMS = {"lam": 10.0, "alpha": 0.1, "beta": 0.1}


# ---------------------------------------------------------------------- per-node scores
def fisher_scores(X, y) -> np.ndarray:
    """Fisher score of every column of a dense ``X`` for labels ``y``."""
    X = np.asarray(X, dtype=np.float64)
    classes, codes = np.unique(y, return_inverse=True)
    mu = X.mean(axis=0)
    num = np.zeros(X.shape[1])
    den = np.zeros(X.shape[1])
    for c in range(classes.size):
        Xc = X[codes == c]
        num += Xc.shape[0] * (Xc.mean(axis=0) - mu) ** 2
        den += Xc.shape[0] * Xc.var(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = num / den
    s[(den == 0) & (num == 0)] = 0.0
    s[(den == 0) & (num > 0)] = np.inf
    return s


def _mi_from_counts(C: np.ndarray) -> np.ndarray:
    """Mutual information (nats) of joint count tables ``C[..., a, b]``."""
    N = C.sum(axis=(-2, -1), keepdims=True)
    P = C / np.maximum(N, 1)
    pa = P.sum(axis=-1, keepdims=True)
    pb = P.sum(axis=-2, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = P * np.log(P / (pa * pb))
    return np.nan_to_num(t, nan=0.0, posinf=0.0, neginf=0.0).sum(axis=(-2, -1))


def mrmr_ranking(X, y, k: int | None = None) -> np.ndarray:
    """mRMR (MID) order of the columns of dense ``X``: the first ``k`` greedily, then by relevance."""
    X = np.asarray(X, dtype=np.float64)
    m, n = X.shape
    k = n if k is None else min(int(k), n)
    mu, sd = X.mean(axis=0), X.std(axis=0)
    Z = (X > mu + sd).astype(np.int64) - (X < mu - sd).astype(np.int64) + 1  # states 0, 1, 2
    O = sp.csr_matrix((np.ones(m * n), (np.repeat(np.arange(m), n), (np.arange(n) * 3)[None, :].repeat(m, 0).ravel()
                                          + Z.ravel())), shape=(m, 3 * n))
    classes, codes = np.unique(y, return_inverse=True)
    Yoh = sp.csr_matrix((np.ones(m), (np.arange(m), codes)), shape=(m, classes.size))
    rel = _mi_from_counts(np.asarray((O.T @ Yoh).todense()).reshape(n, 3, classes.size))
    Oc = O.tocsc()
    selected: list[int] = []
    red = np.zeros(n)
    free = np.ones(n, dtype=bool)
    for step in range(k):
        score = rel - (red / step if step else 0.0)
        score[~free] = -np.inf
        j = int(np.argmax(score))
        selected.append(j)
        free[j] = False
        J = np.asarray((Oc[:, 3 * j:3 * j + 3].T @ O).todense())  # 3 x 3n joint counts with j
        red += _mi_from_counts(J.reshape(3, n, 3).transpose(1, 0, 2))
    rest = np.flatnonzero(free)
    rest = rest[np.argsort(-rel[rest], kind="stable")]
    return np.concatenate([np.asarray(selected, dtype=np.int64), rest])


def relieff_scores(X, y, *, n_neighbors: int = 10, n_iter: int | None = 1000, random_state=None) -> np.ndarray:
    """ReliefF weights of the columns of dense ``X`` (higher = more relevant)."""
    X = np.asarray(X, dtype=np.float64)
    m, n = X.shape
    lo, span = X.min(axis=0), np.ptp(X, axis=0)
    span[span == 0] = 1.0
    Xs = (X - lo) / span
    classes, codes = np.unique(y, return_inverse=True)
    prior = np.bincount(codes) / m
    rng = np.random.default_rng(random_state)
    sample = np.arange(m) if n_iter is None or n_iter >= m else np.sort(rng.choice(m, n_iter, replace=False))
    members = [np.flatnonzero(codes == c) for c in range(classes.size)]
    nns = [NearestNeighbors(metric="manhattan").fit(Xs[idx]) for idx in members]
    W = np.zeros(n)
    for c in range(classes.size):
        R_idx = sample[codes[sample] == c]
        if R_idx.size == 0:
            continue
        for start in range(0, R_idx.size, 256):
            r = R_idx[start:start + 256]
            R = Xs[r]
            kh = min(n_neighbors, members[c].size - 1)
            if kh > 0:
                ind = nns[c].kneighbors(R, kh + 1, return_distance=False)
                own = np.searchsorted(members[c], r)
                keep = np.argsort(ind == own[:, None], axis=1, kind="stable")[:, :kh]  # drop self
                H = Xs[members[c][np.take_along_axis(ind, keep, 1)]]
                W -= np.abs(R[:, None, :] - H).mean(axis=1).sum(axis=0) / sample.size
            for c2 in range(classes.size):
                if c2 == c:
                    continue
                km = min(n_neighbors, members[c2].size)
                ind = nns[c2].kneighbors(R, km, return_distance=False)
                Mx = Xs[members[c2][ind]]
                w = prior[c2] / (1.0 - prior[c])
                W += w * np.abs(R[:, None, :] - Mx).mean(axis=1).sum(axis=0) / sample.size
    return W


def _order(scores: np.ndarray) -> np.ndarray:
    return np.argsort(-scores, kind="stable")


def rank_nodes(
    method: str,
    X,
    y,
    tree: ClassHierarchy,
    *,
    params: Mapping | None = None,
    max_k: int | None = None,
    random_state=0,
) -> dict[str, np.ndarray]:
    """Feature ranking (best first) of every internal node of ``tree`` by ``method``."""
    method = _ALIASES.get(method, method)
    params = dict(params or {})
    if method in ("hifsrr", "hifsrr-flat"):
        p = {**PAPER_PARAMS, **params}
        if method == "hifsrr-flat":
            p.update(alpha=0.0, beta=0.0)
        p.setdefault("random_state", random_state)
        sel = HiFSRR(tree, k=None, **p).fit(X, y)
        return dict(sel.node_ranking_)
    if method not in METHODS:
        raise KgfsError(f"unknown class-hierarchy method {method!r}; available: {', '.join(METHODS)}")
    leaf = tree.leaf_indices(y)
    out = {}
    for t in node_tasks(tree, leaf):
        node = tree.node_ids[t.node]
        Xi = X[t.rows]
        Xi = Xi.toarray() if sp.issparse(Xi) else np.asarray(Xi)
        yi = t.target
        if np.unique(yi).size < 2:  # one child seen in training: nothing to rank by
            out[node] = np.arange(X.shape[1])
            continue
        if method == "fisher":
            out[node] = _order(fisher_scores(Xi, yi))
        elif method == "mrmr":
            out[node] = mrmr_ranking(Xi, yi, max_k)
        elif method == "relieff":
            out[node] = _order(relieff_scores(Xi, yi, random_state=random_state, **params))
        else:  # fsnm
            Y = np.zeros((yi.size, len(t.children)))
            Y[np.arange(yi.size), yi] = 1.0
            W, _ = fsnm(Xi, Y, **params)
            out[node] = _order(np.sqrt((W * W).sum(axis=1)))
    return out


def default_feature_counts(n_features: int) -> list[int]:
    """10%, 20%, ..., 50% of the features (the paper's Cifar grid), distinct, at least 1."""
    return sorted({max(1, int(round(f * n_features))) for f in (0.5, 0.4, 0.3, 0.2, 0.1)}, reverse=True)


# ---------------------------------------------------------------------- the evaluation
def evaluate_class_hierarchy(
    X,
    y,
    tree=None,
    *,
    n_features: Sequence[int] | None = None,
    methods: Sequence = METHODS,
    n_splits: int = 10,
    random_state: int = 0,
    folds: Sequence[int] | None = None,
    classifier=None,
    scale: bool = True,
    top_down: bool = True,
) -> pd.DataFrame:
    """Cross-validated per-node and top-down accuracy for each method and number of features.

    Parameters
    ----------
    X : array or sparse matrix (n_samples, n_features)
    y : array (n_samples,)
    tree : ClassHierarchy, path, (child, parent) pairs or None
        ``None``: :meth:`ClassHierarchy.from_data` on the whole data set (the class tree is
        side information fixed before the experiment).
    n_features : list of int
        Features per node (default :func:`default_feature_counts`); each must be <= n_features.
    methods : list of str or (name, params)
        Names from :data:`METHODS`; params go to the method (e.g. ``("hifsrr", {"alpha": 1})``).
    folds : list of int, optional
        Run only these folds (all by default).
    classifier : classifier, optional
        Per-node classifier (default: linear SVM, :func:`default_node_classifier`).

    Returns
    -------
    pandas.DataFrame
        One row per method x k x fold x node, with columns ``method, params, k, fold, node,
        accuracy, n_test, select_seconds``; ``node == "mean"`` is the average over internal
        nodes, ``node == "top-down"`` the accuracy of the top-down classifier.
    """
    X = X.tocsr() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    tree = ClassHierarchy.from_data(X, y) if tree is None else as_class_hierarchy(tree)
    leaf = tree.leaf_indices(y)
    ks = default_feature_counts(X.shape[1]) if n_features is None else [int(k) for k in n_features]
    bad = [k for k in ks if k < 1 or k > X.shape[1]]
    if bad:
        raise KgfsError(f"numbers of features {bad} out of range 1..{X.shape[1]} (the data has {X.shape[1]} features)")
    specs = [(m, {}) if isinstance(m, str) else (m[0], dict(m[1])) for m in methods]
    for name, _ in specs:
        if _ALIASES.get(name, name) not in METHODS:
            raise KgfsError(f"unknown class-hierarchy method {name!r}; available: {', '.join(METHODS)}")
    clf = classifier if classifier is not None else default_node_classifier()
    skf = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)
    rows = []
    for fold, (tr, te) in enumerate(skf.split(np.zeros(len(y)), y)):
        if folds is not None and fold not in folds:
            continue
        Xtr, Xte = X[tr], X[te]
        if scale:
            sc = StandardScaler(with_mean=not sp.issparse(X)).fit(Xtr)
            Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
        tasks_te = {t.node: t for t in node_tasks(tree, leaf[te])}
        tasks_tr = {t.node: t for t in node_tasks(tree, leaf[tr])}
        for name, params in specs:
            t0 = time.perf_counter()
            ranking = rank_nodes(name, Xtr, y[tr], tree, params=params, max_k=max(ks), random_state=random_state)
            secs = time.perf_counter() - t0
            pj = json.dumps(params, sort_keys=True, default=str)
            for k in ks:
                feats = {node: r[:k] for node, r in ranking.items()}
                accs = []
                for i in tree.internal:
                    node = tree.node_ids[i]
                    a, b = tasks_tr[int(i)], tasks_te[int(i)]
                    if b.rows.size == 0 or a.rows.size == 0:
                        continue
                    cols = feats[node]
                    if np.unique(a.target).size < 2:
                        pred = np.full(b.rows.size, a.target[0])
                    else:
                        model = clone(clf).fit(Xtr[a.rows][:, cols], a.target)
                        pred = model.predict(Xte[b.rows][:, cols])
                    acc = float(np.mean(pred == b.target))
                    accs.append(acc)
                    rows.append((name, pj, k, fold, node, acc, int(b.rows.size), secs))
                rows.append((name, pj, k, fold, "mean", float(np.mean(accs)), int(te.size), secs))
                if top_down:
                    hc = HierarchicalClassifier(tree, base_estimator=clf, node_features=feats).fit(Xtr, y[tr])
                    rows.append((name, pj, k, fold, "top-down", float(hc.score(Xte, y[te])), int(te.size), secs))
    return pd.DataFrame(rows, columns=["method", "params", "k", "fold", "node", "accuracy", "n_test", "select_seconds"])


def summarize(results: pd.DataFrame, node: str = "mean") -> pd.DataFrame:
    """Mean accuracy over folds: methods as rows, numbers of features as columns."""
    sub = results[results["node"] == node]
    return sub.pivot_table(index="method", columns="k", values="accuracy", aggfunc="mean").sort_index(
        axis=1, ascending=False
    )


# ---------------------------------------------------------------------- the protocol
def _protocol_tree(table, options):
    spec = options.get("class_tree")
    if spec is None:
        meta = getattr(table, "meta", None) or {}
        spec = meta.get("class_tree") if isinstance(meta, Mapping) else None
    if spec is not None:
        return as_class_hierarchy(spec)
    return ClassHierarchy.from_data(table.X, np.asarray(table.y), n_groups=options.get("n_groups", "sqrt"))


def hifsrr2017(table, selectors, classifiers, *, dataset, n_splits=10, random_state=0, folds=None, options=None):
    """Protocol ``hifsrr2017`` (see module docstring) in the rows of :data:`selection.evaluation.cv.COLUMNS`.

    ``table`` is anything with ``X`` and ``y`` (a :class:`~kg.table.FeatureTable`). Selector
    names are methods of :data:`METHODS`; classifier names come from the classifier registry
    and serve as the per-node classifier (``"svm-linear"``: the paper's linear SVM). For each
    selector x classifier x fold there is one row per number of features ``k`` (in the
    ``threshold`` column; ``n_selected = k``, ``compression = 1 - k / n_features``) and measure:
    ``threshold_choice == "node-average"`` holds the paper's average per-node accuracy,
    ``"top-down"`` the accuracy of the top-down classifier. Options: ``class_tree`` (edges file
    or pairs; default ``table.meta["class_tree"]``, else built from the data with ``n_groups``),
    ``n_features`` (list of k, an int or a string ``"32,16,8"``; default 50%, 40%, ..., 10% of
    the features), ``scale`` (bool).
    """
    from selection.evaluation.cv import COLUMNS, spec_label
    from selection.registry import get_classifier

    options = dict(options or {})
    tree = _protocol_tree(table, options)
    ks = options.get("n_features")
    if isinstance(ks, (int, np.integer)):  # `--option n_features=8`
        ks = [int(ks)]
    elif isinstance(ks, str):  # `--option n_features=32,16,8`
        try:
            ks = [int(v) for v in ks.replace(" ", "").split(",") if v]
        except ValueError:
            raise KgfsError(f"option n_features must be integers like 32,16,8, got {ks!r}") from None
    X, y = table.X, np.asarray(table.y)
    n = X.shape[1]
    out = []
    for cname, cparams in classifiers:
        clf = default_node_classifier() if cname == "svm-linear" and not cparams else get_classifier(cname, **cparams)
        res = evaluate_class_hierarchy(
            X, y, tree, n_features=ks, methods=selectors, n_splits=n_splits,
            random_state=random_state, folds=folds, classifier=clf, scale=bool(options.get("scale", True)),
        )
        res = res[res["node"].isin(["mean", "top-down"])]
        for r in res.itertuples(index=False):
            params = json.loads(r.params)
            k = int(r.k)
            out.append({
                "dataset": dataset, "selector": spec_label(r.method, params), "params": r.params,
                "classifier": cname, "fold": int(r.fold), "n_features": n,
                "n_train": int(len(y) - r.n_test), "n_test": int(r.n_test), "n_selected": k,
                "accuracy": r.accuracy, "auroc": np.nan, "aucpr": np.nan, "gm": np.nan,
                "compression": 1.0 - k / n, "harmonic_mean": np.nan, "select_seconds": r.select_seconds,
                "classify_seconds": np.nan, "threshold": k,
                "threshold_choice": "node-average" if r.node == "mean" else "top-down",
                "kind": "class-hierarchy", "pos_label": None, "status": "ok", "error": "",
            })
    return pd.DataFrame(out, columns=COLUMNS)


def _hifsrr2017_post(rows: pd.DataFrame, options) -> pd.DataFrame:
    """For the grid's report: one column per method and ``k``, one table per measure.

    Selector labels become ``"<method> k=<k>"``; top-down rows get the classifier label
    ``"<classifier> top-down"`` (the node-average rows keep the classifier's name), so the report
    tables show the paper's measure and the top-down accuracy separately, for every k.
    """
    if rows.empty or not rows["kind"].eq("class-hierarchy").any():
        return rows
    rows = rows.copy()
    k = pd.to_numeric(rows["threshold"]).astype(int).astype(str)
    rows["selector"] = rows["selector"] + " k=" + k
    td = rows["threshold_choice"].eq("top-down")
    rows.loc[td, "classifier"] = rows.loc[td, "classifier"] + " top-down"
    return rows


def _register() -> None:
    try:
        from selection.evaluation.protocols import register_protocol
    except ImportError:  # pragma: no cover - the evaluation core is not there
        return
    register_protocol(
        "hifsrr2017", hifsrr2017, classifiers=("svm-linear",), metrics=("accuracy", "compression"),
        rank_metrics=("accuracy",), n_splits=10, control=None, postprocess=_hifsrr2017_post,
        methods=METHODS + tuple(_ALIASES),
        description="HiFSRR paper (2017) s.3.3: features selected per internal node of a class tree, "
                    "10-fold CV, average accuracy of the per-node linear SVMs for each number of features "
                    "per node (threshold column), plus top-down accuracy",
    )


_register()
