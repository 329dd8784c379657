"""Hierarchies over class labels and the top-down hierarchical classifier.

Unlike :class:`kg.hierarchy.FeatureHierarchy` (a DAG over *features*), a
:class:`ClassHierarchy` is a rooted **tree over class labels** (Zhao et al., IJCAI 2017,
section 2.1): every node but the root has exactly one parent; the training labels are its
leaves; every internal node is a small classification task whose classes are its children.

A class tree is given explicitly (:meth:`ClassHierarchy.from_edges`,
:meth:`ClassHierarchy.read`: one ``child<TAB>parent`` edge per line, the same direction as the
feature hierarchy) or built from data (:meth:`ClassHierarchy.from_data`: agglomerative
clustering of the class means).

Node ids are strings. Labels in ``y`` are matched to leaves by ``str(label)``, so integer
labels ``0..9`` match leaves ``"0".."9"``; estimators still return the original labels.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.cluster.hierarchy import fcluster, linkage
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from kg.errors import CycleError, InputFormatError, KgfsError
from kg.files import atomic_write

__all__ = [
    "ClassHierarchy",
    "ClassTreeError",
    "HierarchicalClassifier",
    "as_class_hierarchy",
    "default_node_classifier",
]

log = logging.getLogger(__name__)


class ClassTreeError(KgfsError, ValueError):
    """A class tree is malformed (two roots, two parents, empty) or does not match the labels.

    Examples
    --------
    >>> try:
    ...     ClassHierarchy.from_edges([("a", "x"), ("b", "y")])
    ... except ClassTreeError as e:
    ...     print(e)
    a class tree needs exactly one root; found 2: 'x', 'y'
    """


class ClassHierarchy:
    """A rooted tree over class labels.

    Build it with :meth:`from_edges`, :meth:`read` or :meth:`from_data`; the constructor takes
    node ids and a parent index array (``-1`` for the root) and checks that they form a tree.

    Parameters
    ----------
    node_ids : sequence of str
    parent : array of int
        Index of each node's parent, ``-1`` for the root (exactly one).

    Attributes
    ----------
    node_ids : list of str
    index : dict of str -> int
    parent : ndarray of int
    root : int
    internal : ndarray of int
        Internal nodes (nodes with children) in breadth-first order, root first; the paper's
        nodes ``0..N``.
    leaves : ndarray of int
        Leaves in node order.

    Examples
    --------
    >>> t = ClassHierarchy.from_edges([("cat", "animal"), ("dog", "animal"),
    ...                                ("car", "vehicle"), ("bus", "vehicle"),
    ...                                ("animal", "object"), ("vehicle", "object")])
    >>> t.node_ids[t.root], t.children_of("animal"), t.siblings_of("car")
    ('object', ['cat', 'dog'], ['bus'])
    >>> [t.node_ids[i] for i in t.internal]
    ['object', 'animal', 'vehicle']
    """

    def __init__(self, node_ids: Sequence[str], parent: Sequence[int]):
        self.node_ids = [str(x) for x in node_ids]
        self.index = {x: i for i, x in enumerate(self.node_ids)}
        if len(self.index) != len(self.node_ids):
            seen: set[str] = set()
            dup = next(x for x in self.node_ids if x in seen or seen.add(x))
            raise ClassTreeError(f"duplicate node id {dup!r} in class tree")
        n = len(self.node_ids)
        if n == 0:
            raise ClassTreeError("the class tree is empty")
        self.parent = np.asarray(parent, dtype=np.int64)
        if self.parent.shape != (n,):
            raise ValueError("parent must have one entry per node")
        if ((self.parent < -1) | (self.parent >= n)).any():
            raise ValueError("parent index out of range")
        roots = np.flatnonzero(self.parent < 0)
        if roots.size == 0 and n:  # every node has a parent: following parents must loop
            cyc = _find_cycle(self.parent, 0)
            raise CycleError(
                "class tree has a cycle (and so no root): " + " -> ".join(self.node_ids[i] for i in cyc),
                [[self.node_ids[i] for i in cyc]],
            )
        if roots.size != 1:
            names = ", ".join(repr(self.node_ids[i]) for i in roots) or "none (every node has a parent)"
            raise ClassTreeError(f"a class tree needs exactly one root; found {roots.size}: {names}")
        self.root = int(roots[0])
        kids: list[list[int]] = [[] for _ in range(n)]
        for c, p in enumerate(self.parent.tolist()):
            if p >= 0:
                kids[p].append(c)
        # children in id order: deterministic column order of the per-node targets
        self._children = [sorted(k, key=lambda i: self.node_ids[i]) for k in kids]
        order, depth = [self.root], np.zeros(n, dtype=np.int64)
        for node in order:  # breadth-first; grows while iterating
            for c in self._children[node]:
                depth[c] = depth[node] + 1
                order.append(c)
        if len(order) != n:
            unreached = sorted(set(range(n)) - set(order))
            cyc = _find_cycle(self.parent, unreached[0])
            raise CycleError(
                "class tree has a cycle: " + " -> ".join(self.node_ids[i] for i in cyc),
                [[self.node_ids[i] for i in cyc]],
            )
        self.order = np.asarray(order, dtype=np.int64)
        self.depth = depth
        self.internal = np.asarray([i for i in order if self._children[i]], dtype=np.int64)
        self.leaves = np.asarray([i for i in range(n) if not self._children[i]], dtype=np.int64)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_edges(cls, edges: Iterable[tuple[str, str]], nodes: Iterable[str] | None = None) -> ClassHierarchy:
        """Build a tree from ``(child, parent)`` pairs.

        ``nodes`` may add isolated nodes (which makes a second root, hence an error) and fixes
        the node order; otherwise nodes are sorted. A node with two different parents, a cycle
        or a number of roots other than one raises an error naming the nodes.
        """
        pairs = [(str(c), str(p)) for c, p in edges]
        ids = [] if nodes is None else [str(x) for x in nodes]
        known = set(ids)
        ids += sorted({x for pair in pairs for x in pair} - known)
        index = {x: i for i, x in enumerate(ids)}
        parent = np.full(len(ids), -1, dtype=np.int64)
        for c, p in dict.fromkeys(pairs):  # duplicates merged, order kept
            if c == p:
                raise CycleError(f"class tree has a self-loop at {c!r}", [[c]])
            if parent[index[c]] >= 0 and parent[index[c]] != index[p]:
                raise ClassTreeError(
                    f"class {c!r} has two parents ({ids[parent[index[c]]]!r} and {p!r}); "
                    "a class hierarchy must be a tree"
                )
            parent[index[c]] = index[p]
        return cls(ids, parent)

    @classmethod
    def read(cls, path: str | Path) -> ClassHierarchy:
        """Read an edges file: one ``child<TAB>parent`` pair per line.

        Blank lines and lines starting with ``#`` are ignored; any run of whitespace also
        separates the two fields when there is no tab. Errors name the file and line.
        """
        path = Path(path)
        edges, lines = [], {}
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise InputFormatError(f"cannot read class tree: {e.strerror}", path) from None
        for no, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            fields = [f.strip() for f in line.split("\t")] if "\t" in line else line.split()
            if len(fields) != 2 or not all(fields):
                raise InputFormatError(
                    f"expected 'child<TAB>parent', got {raw!r}", path, no
                )
            c, par = fields
            if c in lines and lines[c][0] != par:
                raise InputFormatError(
                    f"class {c!r} has two parents ({lines[c][0]!r} on line {lines[c][1]} and {par!r}); "
                    "a class hierarchy must be a tree", path, no,
                )
            lines.setdefault(c, (par, no))
            edges.append((c, par))
        if not edges:
            raise InputFormatError("no edges in class tree file", path)
        try:
            return cls.from_edges(edges)
        except CycleError as e:  # name the line of the cycle's first edge
            raise InputFormatError(str(e), path, lines[e.cycles[0][0]][1]) from None
        except ClassTreeError as e:  # a whole-tree property (roots): no single line to blame
            raise InputFormatError(str(e), path) from None

    def write(self, path: str | Path) -> None:
        """Write the tree as an edges file readable by :meth:`read` (atomically)."""
        text = "# child\tparent\n" + "".join(f"{c}\t{p}\n" for c, p in self.edges())
        atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))

    @classmethod
    def flat(cls, labels: Iterable, root: str = "root") -> ClassHierarchy:
        """A two-level tree: ``root`` with every label as a child."""
        labels = [str(x) for x in labels]
        root = _fresh_name(root, labels)
        return cls.from_edges([(x, root) for x in labels], nodes=[root, *labels])

    @classmethod
    def from_data(
        cls,
        X,
        y,
        *,
        n_groups: int | str | None = "sqrt",
        method: str = "ward",
        standardize: bool = True,
    ) -> ClassHierarchy:
        """Build a class tree by agglomerative clustering of the class means.

        Each class is represented by the mean of its samples (after standardising every
        feature to zero mean and unit variance when ``standardize``, so no feature dominates
        the distances by its scale); the class means are clustered with
        :func:`scipy.cluster.hierarchy.linkage` (``method``, Euclidean).

        Parameters
        ----------
        X : array or sparse matrix (n_samples, n_features)
        y : array (n_samples,)
        n_groups : int, "sqrt" or None
            ``None``: the whole (binary) dendrogram becomes the tree; internal nodes are named
            ``"node:<k>"`` with ``"node:root"`` at the top. An int ``g``: the dendrogram is cut
            into ``g`` clusters, giving a three-level tree root -> cluster -> class (the shape
            of the paper's datasets); a cluster of a single class is attached to the root
            directly (an internal node with one child would be no classification task).
            ``"sqrt"``: ``g = round(sqrt(n_classes))``. With ``g <= 1`` or two classes the
            tree is flat (root -> classes).
        method : str
            Linkage method (``"ward"``, ``"average"``, ``"complete"``, ...).

        Examples
        --------
        >>> X = np.array([[0., 0], [0, 1], [10, 0], [10, 1], [1, 0], [1, 1]])
        >>> t = ClassHierarchy.from_data(X, ["a", "a", "b", "b", "c", "c"], n_groups=None)
        >>> sorted(t.edges())
        [('a', 'node:1'), ('b', 'node:root'), ('c', 'node:1'), ('node:1', 'node:root')]
        """
        y = np.asarray(y)
        classes = np.unique(y)
        labels = [str(c) for c in classes]
        if len(set(labels)) != len(labels):
            raise ClassTreeError("two class labels have the same string form")
        if len(classes) < 2:
            raise ClassTreeError(f"a class tree needs at least two classes; y has {len(classes)}")
        codes = np.searchsorted(classes, y)
        means = _class_means(X, codes, len(classes), standardize)
        root = _fresh_name("node:root", labels)
        if n_groups == "sqrt":
            n_groups = int(round(math.sqrt(len(classes))))
        if len(classes) == 2 or (n_groups is not None and int(n_groups) <= 1):
            return cls.flat(labels, root)
        Z = linkage(means, method=method, metric="euclidean")
        if n_groups is None:
            n = len(classes)
            names = labels + [_fresh_name(f"node:{k}", labels) for k in range(1, n - 1)] + [root]
            edges = [(names[int(a)], names[n + k]) for k, row in enumerate(Z) for a in row[:2]]
            return cls.from_edges(edges, nodes=[root, *labels])
        cut = fcluster(Z, t=min(int(n_groups), len(classes)), criterion="maxclust")
        edges = []
        for g in np.unique(cut):
            members = [labels[i] for i in np.flatnonzero(cut == g)]
            if len(members) == 1:
                edges.append((members[0], root))
            else:
                gname = _fresh_name(f"group:{len(edges)}", labels)
                edges.append((gname, root))
                edges += [(m, gname) for m in members]
        if sum(p == root for _, p in edges) == 1:  # one cluster holding everything: flat
            return cls.flat(labels, root)
        return cls.from_edges(edges, nodes=[root, *labels])

    # ------------------------------------------------------------------ queries
    @property
    def n_nodes(self) -> int:
        return len(self.node_ids)

    @property
    def leaf_ids(self) -> list[str]:
        return [self.node_ids[i] for i in self.leaves]

    @property
    def internal_ids(self) -> list[str]:
        return [self.node_ids[i] for i in self.internal]

    @property
    def height(self) -> int:
        """Number of levels (the paper's "Height"; a root with leaf children has height 2)."""
        return int(self.depth.max()) + 1

    def children(self, i: int) -> list[int]:
        return list(self._children[i])

    def siblings(self, i: int) -> list[int]:
        p = int(self.parent[i])
        return [] if p < 0 else [c for c in self._children[p] if c != i]

    def children_of(self, node: str) -> list[str]:
        return [self.node_ids[c] for c in self._children[self._idx(node)]]

    def siblings_of(self, node: str) -> list[str]:
        return [self.node_ids[c] for c in self.siblings(self._idx(node))]

    def parent_of(self, node: str) -> str | None:
        p = int(self.parent[self._idx(node)])
        return None if p < 0 else self.node_ids[p]

    def is_leaf(self, i: int) -> bool:
        return not self._children[i]

    def edges(self) -> list[tuple[str, str]]:
        """``(child, parent)`` pairs in breadth-first order."""
        return [(self.node_ids[c], self.node_ids[int(self.parent[c])]) for c in self.order if self.parent[c] >= 0]

    def route(self) -> np.ndarray:
        """``R[i, j]``: the child of node ``i`` whose subtree holds node ``j``, or -1.

        An ``n_nodes x n_nodes`` int array (class trees are small); row ``i`` is the target
        map of node ``i``'s classifier.
        """
        n = self.n_nodes
        R = np.full((n, n), -1, dtype=np.int64)
        for j in self.order[::-1]:  # children before parents: climb from j
            c, p = int(j), int(self.parent[j])
            while p >= 0:
                R[p, j] = c
                c, p = p, int(self.parent[p])
        return R

    def leaf_indices(self, y) -> np.ndarray:
        """Node index of each label in ``y``; labels must be leaves (matched by ``str``).

        Raises :class:`ClassTreeError` naming the labels that are missing from the tree or
        that are internal nodes.
        """
        y = np.asarray(y)
        classes, inv = np.unique(y, return_inverse=True)
        idx = np.array([self.index.get(str(c), -1) for c in classes], dtype=np.int64)
        missing = [c for c, i in zip(classes.tolist(), idx) if i < 0]
        if missing:
            shown = ", ".join(repr(m) for m in missing[:10]) + (" ..." if len(missing) > 10 else "")
            raise ClassTreeError(
                f"{len(missing)} label(s) of y are not in the class tree: {shown} "
                f"(tree leaves: {', '.join(self.leaf_ids[:10])}{' ...' if len(self.leaves) > 10 else ''})"
            )
        inner = [c for c, i in zip(classes.tolist(), idx) if not self.is_leaf(int(i))]
        if inner:
            raise ClassTreeError(
                f"label(s) {', '.join(repr(c) for c in inner[:10])} are internal nodes of the class "
                "tree; samples must be labelled with leaves"
            )
        return idx[inv.reshape(-1)]

    def _idx(self, node: str) -> int:
        try:
            return self.index[str(node)]
        except KeyError:
            raise ClassTreeError(f"{node!r} is not a node of the class tree") from None

    def __eq__(self, other) -> bool:
        return isinstance(other, ClassHierarchy) and sorted(self.edges()) == sorted(other.edges()) and set(
            self.node_ids
        ) == set(other.node_ids)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.edges())))

    def __repr__(self) -> str:
        return (
            f"ClassHierarchy(root={self.node_ids[self.root]!r}, nodes={self.n_nodes}, "
            f"leaves={len(self.leaves)}, internal={len(self.internal)}, height={self.height})"
        )


def _find_cycle(parent: np.ndarray, start: int) -> list[int]:
    seen: dict[int, int] = {}
    i = start
    while i not in seen:
        seen[i] = len(seen)
        i = int(parent[i])
    path = list(seen)[seen[i]:]
    return path + [i]


def _fresh_name(name: str, taken: Iterable[str]) -> str:
    taken = set(taken)
    out = name
    while out in taken:
        out = "_" + out
    return out


def _class_means(X, codes: np.ndarray, n_classes: int, standardize: bool) -> np.ndarray:
    counts = np.bincount(codes, minlength=n_classes).astype(np.float64)
    onehot = sp.csr_matrix((np.ones(codes.size), (codes, np.arange(codes.size))), shape=(n_classes, codes.size))
    sums = onehot @ X
    means = np.asarray(sums.toarray() if sp.issparse(sums) else sums, dtype=np.float64) / counts[:, None]
    if standardize:
        if sp.issparse(X):
            mu = np.asarray(X.mean(axis=0)).ravel()
            var = np.asarray(X.multiply(X).mean(axis=0)).ravel() - mu**2
        else:
            X = np.asarray(X, dtype=np.float64)
            mu, var = X.mean(axis=0), X.var(axis=0)
        sd = np.sqrt(np.maximum(var, 0))
        sd[sd == 0] = 1.0
        means = (means - mu) / sd
    return means


def as_class_hierarchy(tree) -> ClassHierarchy:
    """Accept a :class:`ClassHierarchy`, a path to an edges file, or ``(child, parent)`` pairs.

    Parameters
    ----------
    tree : ClassHierarchy, str, Path, mapping child -> parent, or iterable of (child, parent)

    Returns
    -------
    ClassHierarchy

    Examples
    --------
    >>> as_class_hierarchy({"a": "r", "b": "r"}).leaf_ids
    ['a', 'b']
    """
    if isinstance(tree, ClassHierarchy):
        return tree
    if isinstance(tree, (str, Path)):
        return ClassHierarchy.read(tree)
    if isinstance(tree, Mapping):  # {child: parent}
        return ClassHierarchy.from_edges(tree.items())
    if isinstance(tree, Iterable):
        return ClassHierarchy.from_edges(tree)
    raise TypeError(f"class_tree must be a ClassHierarchy, a path or (child, parent) pairs, got {type(tree).__name__}")


# ---------------------------------------------------------------------- the top-down classifier
class HierarchicalClassifier(ClassifierMixin, BaseEstimator):
    """Top-down hierarchical classifier: one base classifier per internal node of a class tree.

    The classifier of internal node ``i`` is trained on the samples of ``i``'s subtree with
    ``i``'s children as targets (the child whose subtree holds the sample's label), using only
    node ``i``'s features. Prediction starts at the root and follows the predicted child
    until a leaf is reached (mandatory leaf-node prediction).

    Parameters
    ----------
    class_tree : ClassHierarchy, path, (child, parent) pairs or None
        ``None``: built from the training data with :meth:`ClassHierarchy.from_data`.
    base_estimator : classifier or None
        Cloned per node; default a linear SVM (``LinearSVC`` after standardisation).
    node_features : None, dict or fitted-per-call selector
        ``None``: every node uses all features. A dict ``{node id: indices or bool mask}``
        (nodes not in it use all features). Or an estimator with ``fit(X, y)`` and, after
        fitting, ``node_support_`` (e.g. :class:`selection.class_hierarchy.hifsrr.HiFSRR`): it is cloned and
        fitted on the same training data and tree.

    Attributes
    ----------
    tree_ : ClassHierarchy
    classes_ : ndarray
    estimators_ : dict of node id -> fitted classifier (or the single child id when the node
        saw only one child in training)
    node_features_ : dict of node id -> int index array

    Examples
    --------
    >>> from selection.synthetic.class_tree import make_hierarchical_classification
    >>> d = make_hierarchical_classification(n_samples=300, random_state=0)
    >>> clf = HierarchicalClassifier(d.tree).fit(d.X, d.y)
    >>> float(clf.score(d.X, d.y)) > 0.9
    True
    """

    def __init__(self, class_tree=None, base_estimator=None, node_features=None):
        self.class_tree = class_tree
        self.base_estimator = base_estimator
        self.node_features = node_features

    def fit(self, X, y):
        X, y, self.classes_, _ = _check_Xy(self, X, y, "a classifier")
        tree = ClassHierarchy.from_data(X, y) if self.class_tree is None else as_class_hierarchy(self.class_tree)
        leaf = tree.leaf_indices(y)
        self.tree_ = tree
        self._leaf_class = {int(tree.index[str(c)]): c for c in self.classes_}
        feats = self._resolve_features(X, y, tree)
        base = self.base_estimator if self.base_estimator is not None else default_node_classifier()
        R = tree.route()
        self.estimators_, self.node_features_ = {}, {}
        for i in tree.internal:
            node = tree.node_ids[i]
            cols = feats.get(node, None)
            cols = np.arange(X.shape[1]) if cols is None else cols
            self.node_features_[node] = cols
            target = R[i, leaf]
            rows = np.flatnonzero(target >= 0)
            if rows.size == 0:
                continue  # no training sample below this node: never reached at prediction
            t = target[rows]
            if np.unique(t).size == 1:
                self.estimators_[node] = int(t[0])
            else:
                self.estimators_[node] = clone(base).fit(X[rows][:, cols], t)
        return self

    def _resolve_features(self, X, y, tree) -> dict[str, np.ndarray]:
        nf = self.node_features
        if nf is None:
            return {}
        if hasattr(nf, "fit") and not isinstance(nf, Mapping):
            sel = clone(nf)
            if "class_tree" in sel.get_params():
                sel.set_params(class_tree=tree)
            sel.fit(X, y)
            nf = sel.node_support_
        out = {}
        for node, cols in nf.items():
            cols = np.asarray(cols)
            if cols.dtype == bool:
                if cols.size != X.shape[1]:
                    raise ValueError(
                        f"feature mask of node {node!r} has {cols.size} entries, X has {X.shape[1]} features")
                cols = np.flatnonzero(cols)
            cols = cols.astype(np.int64)
            if cols.size == 0:
                raise ValueError(f"node {node!r} has no features")
            if cols.min() < 0 or cols.max() >= X.shape[1]:
                raise ValueError(f"feature index out of range for node {node!r}")
            out[str(node)] = cols
        return out

    def predict_nodes(self, X) -> np.ndarray:
        """Node index reached by each sample (a leaf, or an internal node never trained)."""
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        tree = self.tree_
        cur = np.full(X.shape[0], tree.root, dtype=np.int64)
        for i in tree.internal:  # breadth-first: a sample reaches a node before its children
            rows = np.flatnonzero(cur == i)
            est = self.estimators_.get(tree.node_ids[i])
            if rows.size == 0 or est is None:
                continue
            if isinstance(est, (int, np.integer)):
                cur[rows] = est
            else:
                cur[rows] = est.predict(X[rows][:, self.node_features_[tree.node_ids[i]]])
        return cur

    def predict(self, X):
        cur = self.predict_nodes(X)
        # a sample can only stop at a trained leaf; an untrained internal node cannot be reached
        return np.array([self._leaf_class[int(i)] for i in cur], dtype=self.classes_.dtype)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def default_node_classifier(**params):
    """The paper's per-node classifier: a linear SVM (features standardised first).

    Parameters
    ----------
    **params
        Parameters of :class:`~sklearn.svm.LinearSVC` (default ``C=1.0, max_iter=5000``).

    Returns
    -------
    sklearn.pipeline.Pipeline
        ``StandardScaler(with_mean=False)`` (sparse input stays sparse), then ``LinearSVC``.

    Examples
    --------
    >>> default_node_classifier(C=0.5).fit([[0.0], [1.0], [3.0], [4.0]], [0, 0, 1, 1]).predict([[3.5]]).tolist()
    [1]
    """
    return make_pipeline(StandardScaler(with_mean=False), LinearSVC(**{"C": 1.0, "max_iter": 5000, **params}))


def _check_Xy(estimator, X, y, who: str):
    """``validate_data`` (csr or dense float64), classification targets, at least two classes;
    returns ``(X, y, classes, codes)``."""
    X, y = validate_data(estimator, X, y, accept_sparse="csr", dtype=np.float64)
    check_classification_targets(y)
    classes, codes = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(f"y has only one class ({classes[0]!r}); {who} needs at least two")
    return X, y, classes, codes
