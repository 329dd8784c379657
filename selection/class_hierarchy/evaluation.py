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

The three filter baselines are the measures of :mod:`selection.flat`, applied to the node's
real values:

- Fisher score (:func:`~selection.flat.fisher.fisher_scores`);
- mRMR (:func:`~selection.flat.mrmr.mrmr_ranking`): features discretised into three states at
  ``mean +- std`` (Peng et al.'s own discretisation of continuous data), the first ``max(k)``
  features greedily, the rest by relevance;
- ReliefF (:func:`~selection.flat.relieff.relieff_scores`): features scaled to [0, 1], L1
  distance, ``n_neighbors=10`` nearest hits and misses per class, at most ``n_iter=1000``
  sampled instances (all when fewer; seeded by ``random_state``).

By default features are standardised inside each fold (statistics of the training part) before
ranking and classification (``scale=True``): the l2,1 methods and ReliefF depend on feature
scale, and the paper's data (CNN and protein descriptors) are on comparable scales.

The ``hifsrr2017`` protocol (:func:`selection.evaluation.protocols.hifsrr2017`) runs
:func:`evaluate_class_hierarchy` on a table and writes its rows in the evaluation's columns.
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
from sklearn.preprocessing import StandardScaler

from kg.errors import KgfsError
from selection.class_hierarchy.hifsrr import HiFSRR, fsnm, node_tasks
from selection.class_hierarchy.tree import (
    ClassHierarchy,
    HierarchicalClassifier,
    as_class_hierarchy,
    default_node_classifier,
)
from selection.flat import fisher_scores, mrmr_ranking, relieff_scores

__all__ = [
    "ALIASES",
    "METHODS",
    "evaluate_class_hierarchy",
    "summarize",
    "rank_nodes",
    "default_feature_counts",
]

log = logging.getLogger(__name__)

METHODS = ("hifsrr", "hifsrr-flat", "fsnm", "fisher", "mrmr", "relieff")
#: Other names of the methods (``kgfs evaluate --protocol hifsrr2017 --selectors relief``).
ALIASES = {"fisher-score": "fisher", "relief": "relieff", "hifsrr-noreg": "hifsrr-flat"}

#: The paper's parameters for all data sets but CLEF.
PAPER_PARAMS = {"lam": 10.0, "alpha": 0.1, "beta": 0.1}


# ---------------------------------------------------------------------- per-node rankings
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
    """Feature ranking (best first) of every internal node of ``tree`` by ``method``.

    Parameters
    ----------
    method : str
        A name of :data:`METHODS` (or an alias such as ``"relief"``).
    X : array or sparse matrix (n_samples, n_features)
    y : array (n_samples,)
        Leaf labels of ``tree``.
    tree : ClassHierarchy
    params : mapping, optional
        Parameters of the method (HiFSRR: on top of :data:`PAPER_PARAMS`).
    max_k : int, optional
        Features mRMR chooses greedily (the others follow by relevance).
    random_state : int
        Seed of HiFSRR's initial weights and of ReliefF's sample.

    Returns
    -------
    dict of node id -> int ndarray
        Every feature, best first; a node that saw one child only keeps the column order.

    Examples
    --------
    >>> from selection.synthetic.class_tree import make_hierarchical_classification
    >>> d = make_hierarchical_classification(n_samples=90, n_noise=10, random_state=0)
    >>> r = rank_nodes("fisher", d.X, d.y, d.tree)
    >>> sorted(r), bool(np.isin(r["g0"][:4], d.relevant["g0"]).all())
    (['g0', 'g1', 'g2', 'root'], True)
    """
    method = ALIASES.get(method, method)
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
            out[node] = mrmr_ranking(Xi, yi, max_k, discretize="mean-std")
        elif method == "relieff":
            out[node] = _order(relieff_scores(Xi, yi, random_state=random_state, **{"n_iter": 1000, **params}))
        else:  # fsnm
            Y = np.zeros((yi.size, len(t.children)))
            Y[np.arange(yi.size), yi] = 1.0
            W, _ = fsnm(Xi, Y, **params)
            out[node] = _order(np.sqrt((W * W).sum(axis=1)))
    return out


def default_feature_counts(n_features: int) -> list[int]:
    """10%, 20%, ..., 50% of the features (the paper's Cifar grid), distinct, at least 1.

    Parameters
    ----------
    n_features : int

    Returns
    -------
    list of int
        Decreasing.

    Examples
    --------
    >>> default_feature_counts(512)
    [256, 205, 154, 102, 51]
    """
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

    Examples
    --------
    >>> from selection.synthetic.class_tree import make_hierarchical_classification
    >>> d = make_hierarchical_classification(n_samples=90, n_noise=10, random_state=0)
    >>> res = evaluate_class_hierarchy(d.X, d.y, d.tree, n_features=[8], methods=["fisher"], n_splits=3)
    >>> sorted(set(res["node"])), bool(summarize(res)[8].item() > 0.8)
    (['g0', 'g1', 'g2', 'mean', 'root', 'top-down'], True)
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
        if ALIASES.get(name, name) not in METHODS:
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
    """Mean accuracy over folds: methods as rows, numbers of features as columns.

    Parameters
    ----------
    results : pandas.DataFrame
        Rows of :func:`evaluate_class_hierarchy`.
    node : str
        ``"mean"`` (the paper's measure), ``"top-down"`` or an internal node id.

    Returns
    -------
    pandas.DataFrame
        Columns in decreasing ``k``.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"method": ["a", "a", "a"], "k": [2, 2, 4], "node": "mean", "accuracy": [0.5, 0.7, 0.9]})
    >>> summarize(rows).round(2).values.tolist()
    [[0.9, 0.6]]
    """
    sub = results[results["node"] == node]
    return sub.pivot_table(index="method", columns="k", values="accuracy", aggfunc="mean").sort_index(
        axis=1, ascending=False
    )
