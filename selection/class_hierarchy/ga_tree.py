"""Joint feature selection and hierarchical classifier design with a genetic algorithm.

Freeman, Kulic & Basir, *Joint feature selection and hierarchical classifier design*
(IEEE SMC 2011), section III. A genome describes a tree of "base classifiers" (k-NN, k=1 by
default) that split the classes into progressively smaller groups, and the features of every
base classifier; a GA searches genomes, scored by the tree's estimated accuracy minus
penalties for features and levels (Eq. 10).

Pieces (all public, all tested in ``tests/selection/class_hierarchy/test_ga_tree.py``):

- :class:`Genome` (section III-A, Fig. 3): ``features`` (C-1 x F, one 0/1 row per possible base
  classifier) and ``tree`` (C-1 levels x C classes, each gene an output number 0..C-1).
- :func:`separation_levels` (Fig. 4) and :func:`build_tree` (Fig. 5 + removal of degenerate base
  classifiers) -> :class:`GATree` of :class:`BaseNode`.
- Scoring (section III-D): method 1 (``scoring="validation"``: accuracy of the whole tree on a
  validation split) and method 2 (per-base-classifier estimates combined with Eq. 7:
  ``"cv"``, ``"fisher"`` (Eq. 1-3), ``"fisher-scaled"``, ``"relief"`` (Eq. 4-6),
  ``"count-relief"`` (Eq. 8-9)); the score of Eq. 10 (:func:`penalised_score`).
- The GA (section III-E): :func:`run_ga`; the estimator :class:`GATreeClassifier` (``fit``,
  ``predict``, ``predict_proba``, ``tree_``, ``draw``); the selector :class:`GATreeSelector`,
  registered as ``ga-tree`` (``kgfs evaluate --selectors ga-tree``).

Choices where the paper is silent or ambiguous (each tested):

1. **Separation level (Fig. 4).** The pseudocode keeps overwriting "fully separated in level
   lvl" at every level after the first one where the class is alone; the text ("in which layer
   each class is separated") means the *first* such level, which is what is used. Fig. 4-5
   assume every class is separated somewhere; a genome whose classes stay together through
   all C-1 levels is repaired when its tree is built (:func:`repair_tree_genes`: they are
   split at the last level, the genome itself is kept). Without the repair such "unresolved"
   leaves let unnormalised measures (RELIEF, Fisher) score a tree that never separates two
   classes above one that does. (The tree code still handles a leaf of several classes: it
   predicts their majority training class, and Eq. 7 counts the other classes as 0.)
2. **Shared levels (Fig. 5).** ``numShared`` of class ``c`` is ``1 + max_{i<c}`` (number of
   leading levels where ``c`` and ``i`` have the same output), at least 1 (the root, added
   before the loop, is shared by every class) and at most ``sepLvl + 1``.
3. **Feature rows.** Fig. 5 "sets the features" of each new classifier. Before removal of
   degenerate classifiers there can be more than C-1 classifiers, after it never; so the
   surviving (non-degenerate) classifiers take the feature rows ``0, 1, ...`` in the order
   Fig. 5 created them (row 0 is always the root).
4. **Degenerate classifiers** (all of their classes sent to one output) are removed bottom-up;
   their single child takes their place (or their output becomes a leaf of the parent). If
   the root is degenerate with no child, the tree has no base classifier (one leaf).
5. **What a base classifier's estimate is about.** Each base classifier solves the problem
   "which of my outputs" on the training samples of its classes; hits/misses (RELIEF), class
   scatter (Fisher) and correctness (CV, validation) are about those outputs (groups of
   classes). ``A_ic`` of Eq. 7 is the estimate averaged over the samples of class ``c``
   (RELIEF, count-based RELIEF, CV) or the node's single value for every class (Fisher, which
   has no per-class form). Count-based RELIEF normalises the hit count of a sample by the
   size of its output group minus one; when every output holds one class this is Eq. 8-9
   exactly. Fisher's J (Eq. 1) uses a pseudo-inverse (a feature constant on the node's
   samples adds nothing instead of failing); J is not bounded by 1 (the paper plugs it in
   unchanged); the scaled variant divides it by ``sqrt(#features)``.
6. **No features.** A base classifier whose feature row is empty predicts its majority output
   (CV and validation then count that); distance measures see all distances 0 (RELIEF 0,
   count-based RELIEF 0), Fisher 0.
7. **N_l** of Eq. 10 is the number of levels of the tree after degenerate classifiers are
   removed (its depth in base classifiers); ``F_t`` the distinct features, ``F_b`` the sum
   over base classifiers.
8. **GA (III-E).** Initial genomes: feature genes 1 with probability ``feature_prob``
   (default 0.5), tree genes uniform in 0..C-1. Steady state: each generation makes
   ``n_replace`` children from parents chosen by binary tournament and they replace the
   ``n_replace`` worst individuals. Crossover picks the feature part or the tree part with
   probability 1/2: the feature part gets a one-point crossover over the flattened feature
   genes and each new feature part is attached to one of the parents' tree parts at random;
   the tree part gets a "one-point swap" -- one tree gene, chosen at random, is exchanged
   between the parents (Fig. 6b is not in the text; this is our reading). Each child is
   mutated with probability ``mutation_rate`` at one point chosen uniformly over the whole
   genome (a feature bit flips; a tree gene takes a different random output).
9. **Best individual.** Highest score; exact ties (scores equal to 12 decimals) go to the
   smaller tree: fewer base classifiers, then smaller ``F_b``, then smaller ``F_t``, then the
   earlier genome -- the paper prefers the compact tree when the score cannot tell.
10. **Data.** Method 1 splits the data given to ``fit`` into training and validation parts
    (``validation_fraction=0.25`` of it, i.e. the paper's 60/20 of the whole set with 20%
    held out for testing), stratified and seeded. The final base classifiers are refitted on
    all the data given to ``fit``. CV uses ``cv=5`` stratified, seeded folds, fixed per fit.
11. **Fewer than 3 classes.** There is no tree to design (C-1 = 1 base classifier): the search
    falls back to flat GA feature selection (logged at WARNING, ``hierarchical_ = False``).
    A class with one sample raises (no hit exists for it; no split keeps it in both parts).

Speed: the fitness of identical (and of equivalent: same tree, same features per node)
genomes is cached, every base classifier's estimate is cached by (class partition, features),
tree layouts are cached by tree genes, and distances are computed for a whole node at once with
numpy (exact for ties: per-feature differences, or the Gram form on 0/1 data).
``benchmarks/bench_ga_tree.py`` compares with a naive per-genome, per-sample evaluation.

Examples
--------
>>> from selection.synthetic.ga import make_ga_dataset
>>> d = make_ga_dataset(2, noise=0.0, n_per_class=20, random_state=0)
>>> clf = GATreeClassifier(population_size=60, n_replace=10, n_generations=10, random_state=0)
>>> clf = clf.fit(d.X, d.y)
>>> clf.tree_.n_base, clf.tree_.used_features()
(1, [0])
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from selection.base import HierarchicalSelector
from selection.registry import register_selector

__all__ = [
    "SCORINGS",
    "Genome",
    "BaseNode",
    "GATree",
    "separation_levels",
    "repair_tree_genes",
    "build_tree",
    "count_relief",
    "relief",
    "fisher_criterion",
    "penalised_score",
    "run_ga",
    "GAResult",
    "GATreeClassifier",
    "GATreeSelector",
    "draw_tree",
]

log = logging.getLogger(__name__)

#: Scoring methods: method 1 ("validation") and the base-classifier estimates of method 2.
SCORINGS = ("validation", "cv", "fisher", "fisher-scaled", "relief", "count-relief")


# ============================================================================ genome
@dataclass(frozen=True, eq=False)
class Genome:
    """One individual (section III-A, Fig. 3).

    Parameters
    ----------
    features : bool array (C-1, F)
        Row ``b``: the features of base classifier ``b`` (numbered as :func:`build_tree` says).
    tree : int array (C-1, C)
        ``tree[l, c]``: the output of class ``c`` at level ``l`` (0..C-1).

    Examples
    --------
    >>> g = Genome.random(4, 5, np.random.default_rng(0))
    >>> g.features.shape, g.tree.shape, int(g.tree.max()) <= 3
    ((3, 5), (3, 4), True)
    """

    features: np.ndarray
    tree: np.ndarray

    def __post_init__(self):
        f = np.asarray(self.features, dtype=bool)
        t = np.asarray(self.tree, dtype=np.int64)
        if t.ndim != 2 or f.ndim != 2 or f.shape[0] != t.shape[0]:
            raise ValueError(f"genome parts do not match: features {f.shape}, tree {t.shape}")
        if t.size and (t.min() < 0 or t.max() >= t.shape[1]):
            raise ValueError(f"tree genes must be outputs 0..{t.shape[1] - 1}")
        object.__setattr__(self, "features", f)
        object.__setattr__(self, "tree", t)

    @classmethod
    def random(cls, n_classes: int, n_features: int, rng: np.random.Generator, feature_prob: float = 0.5) -> "Genome":
        L = max(n_classes - 1, 1)
        return cls(rng.random((L, n_features)) < feature_prob, rng.integers(0, n_classes, size=(L, n_classes)))

    def key(self) -> bytes:
        return np.packbits(self.features).tobytes() + self.tree.astype(np.int8).tobytes()


def separation_levels(tree_genes) -> np.ndarray:
    """Fig. 4: the first level at which each class is alone in its output group (-1: never).

    A class ``c`` stays "in group" with class ``i`` while they have had the same output at every
    level so far; it is separated at the first level where no other class is in its group.

    >>> separation_levels([[0, 0, 1, 1], [0, 1, 0, 1], [0, 0, 0, 0]]).tolist()  # Fig. 2a
    [1, 1, 1, 1]
    >>> separation_levels([[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1]]).tolist()  # Fig. 2b
    [0, 1, 2, 2]
    """
    t = np.asarray(tree_genes, dtype=np.int64)
    same = t[:, :, None] == t[:, None, :]  # level x c x i
    together = np.logical_and.accumulate(same, axis=0)
    alone = together.sum(axis=2) == 1  # level x c (c is always with itself)
    first = np.where(alone.any(axis=0), alone.argmax(axis=0), -1)
    return first.astype(np.int64)


# ============================================================================ tree
@dataclass
class BaseNode:
    """One base classifier of a :class:`GATree`.

    Attributes
    ----------
    id : int
        Index in ``GATree.nodes`` (creation order of Fig. 5 among the surviving classifiers; also
        the genome's feature row).
    parent, parent_output : int
        Parent node id and the parent's output that leads here (-1 for the root).
    level : int
        Depth in the tree (root 0), after degenerate classifiers were removed.
    gene_level : int
        The genome level this classifier was built from.
    output_of : dict class -> output
        The output (gene value) each of its classes is sent to.
    children : dict output -> node id
        Outputs holding several classes that are split further.
    features : int array
        Indices of the features it uses.
    """

    id: int
    parent: int
    parent_output: int
    level: int
    gene_level: int
    output_of: dict
    children: dict
    features: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def classes(self) -> list[int]:
        return sorted(self.output_of)

    @property
    def outputs(self) -> list[int]:
        return sorted(set(self.output_of.values()))

    def groups(self) -> list[tuple[int, ...]]:
        """The classes of each output, as sorted tuples, outputs ordered by their lowest class."""
        by_out: dict[int, list[int]] = {}
        for c in sorted(self.output_of):
            by_out.setdefault(self.output_of[c], []).append(c)
        return sorted((tuple(v) for v in by_out.values()), key=lambda g: g[0])

    def output_classes(self, output: int) -> list[int]:
        return sorted(c for c, o in self.output_of.items() if o == output)

    def partition_key(self) -> tuple:
        return tuple(self.groups())


@dataclass
class GATree:
    """A hierarchical classifier layout: base classifiers (nodes) and the classes at each leaf.

    ``nodes[0]`` is the root (when there is any base classifier). A leaf is an output of a node
    without a child; it holds one class, or several ("unresolved", only at the genome's last
    level). ``leaf_groups()`` lists them.
    """

    n_classes: int
    n_features: int
    nodes: list[BaseNode]

    @property
    def n_base(self) -> int:
        """Number of base classifiers."""
        return len(self.nodes)

    @property
    def n_levels(self) -> int:
        """``N_l``: levels of base classifiers (depth of the tree)."""
        return 1 + max((n.level for n in self.nodes), default=-1) if self.nodes else 0

    def used_features(self) -> list[int]:
        """Distinct features used by any base classifier (sorted)."""
        if not self.nodes:
            return []
        return sorted(set(np.concatenate([n.features for n in self.nodes]).tolist()))

    @property
    def f_t(self) -> int:
        return len(self.used_features())

    @property
    def f_b(self) -> int:
        return int(sum(len(n.features) for n in self.nodes))

    def leaf_groups(self) -> list[tuple[int, ...]]:
        """Classes of every leaf (one class, or several for an unresolved leaf)."""
        if not self.nodes:
            return [tuple(range(self.n_classes))]
        out = []
        for n in self.nodes:
            for o in n.outputs:
                if o not in n.children:
                    out.append(tuple(n.output_classes(o)))
        return sorted(out)

    def path_of(self, c: int) -> list[int]:
        """Node ids a sample of class ``c`` passes through, root first."""
        return [n.id for n in self.nodes if c in n.output_of]

    def key(self) -> tuple:
        """Identifies the classifier: every node's class partition and features."""
        return tuple(sorted((n.partition_key(), tuple(n.features.tolist())) for n in self.nodes))

    def describe(self, class_names: Sequence | None = None, feature_names: Sequence | None = None) -> str:
        """A text rendering, one line per base classifier, indented by level."""
        cn = (lambda c: str(class_names[c])) if class_names is not None else str
        fn = (lambda f: str(feature_names[f])) if feature_names is not None else (lambda f: f"f{f}")
        if not self.nodes:
            return "(no base classifier: one leaf " + "{" + ",".join(cn(c) for c in range(self.n_classes)) + "})"
        lines = []

        def walk(i: int, prefix: str) -> None:
            n = self.nodes[i]
            feats = ", ".join(fn(f) for f in n.features) or "(none)"
            lines.append(f"{prefix}B{n.id} [features: {feats}]")
            for o in n.outputs:
                cls = n.output_classes(o)
                if o in n.children:
                    lines.append(f"{prefix}  out {o} {{{','.join(cn(c) for c in cls)}}} ->")
                    walk(n.children[o], prefix + "    ")
                else:
                    tag = "class" if len(cls) == 1 else "unresolved leaf"
                    lines.append(f"{prefix}  out {o} -> {tag} {','.join(cn(c) for c in cls)}")

        walk(0, "")
        return "\n".join(lines)

    def to_class_hierarchy(self, class_names: Sequence | None = None):
        """The layout as a :class:`selection.class_hierarchy.tree.ClassHierarchy` (nodes ``B<id>``).

        An unresolved leaf becomes a node ``U<node>.<output>`` with its classes as children.
        """
        from selection.class_hierarchy.tree import ClassHierarchy

        cn = (lambda c: str(class_names[c])) if class_names is not None else str
        if not self.nodes:
            return ClassHierarchy.flat([cn(c) for c in range(self.n_classes)], "B")
        edges = []
        for n in self.nodes:
            for o in n.outputs:
                if o in n.children:
                    edges.append((f"B{n.children[o]}", f"B{n.id}"))
                else:
                    cls = n.output_classes(o)
                    if len(cls) == 1:
                        edges.append((cn(cls[0]), f"B{n.id}"))
                    else:
                        u = f"U{n.id}.{o}"
                        edges.append((u, f"B{n.id}"))
                        edges += [(cn(c), u) for c in cls]
        return ClassHierarchy.from_edges(edges)


def repair_tree_genes(tree_genes) -> np.ndarray:
    """Tree genes in which every class is separated by the last level (a copy; choice 1).

    Classes that share every output through all C-1 levels are split at the last level: the
    lowest keeps its gene, the others get the lowest outputs no class of that last-level base
    classifier uses. Genomes that already separate every class are returned unchanged.

    >>> repair_tree_genes([[0, 0, 1, 1], [2, 2, 0, 1], [3, 3, 3, 3]]).tolist()
    [[0, 0, 1, 1], [2, 2, 0, 1], [3, 0, 3, 3]]
    """
    t = np.array(tree_genes, dtype=np.int64)
    L, C = t.shape
    if (separation_levels(t) >= 0).all():
        return t
    last = L - 1
    prefix = [tuple(t[:last, c].tolist()) for c in range(C)]
    full = [tuple(t[:, c].tolist()) for c in range(C)]
    for c in range(C):
        group = [i for i in range(C) if full[i] == full[c]]
        if len(group) < 2 or group[0] != c:
            continue
        node = [i for i in range(C) if prefix[i] == prefix[c]]
        used = {int(t[last, i]) for i in node}
        free = [o for o in range(C) if o not in used]
        for i, o in zip(group[1:], free):
            t[last, i] = o
        full = [tuple(t[:, k].tolist()) for k in range(C)]
    return t


def _build_skeleton(tree_genes: np.ndarray) -> list[dict]:
    """Fig. 5 plus degenerate removal on the (repaired) tree genes; nodes without features."""
    t = repair_tree_genes(tree_genes)
    L, C = t.shape
    sep = separation_levels(t)
    sep = np.where(sep < 0, L - 1, sep)  # unresolved classes run to the last level
    # common prefix length of every pair of classes
    same = np.logical_and.accumulate(t[:, :, None] == t[:, None, :], axis=0)
    prefix = same.sum(axis=0)  # C x C
    nodes = [{"level": 0, "parent": -1, "pout": -1, "out": {}, "child": {}}]
    for c in range(C):
        shared = 1 + (int(prefix[c, :c].max()) if c > 0 else 0)
        shared = min(shared, int(sep[c]) + 1)
        cur, last, outc = 0, -1, -1
        for lvl in range(shared):
            outc = int(t[lvl, c])
            nodes[cur]["out"][c] = outc
            last = cur
            cur = nodes[cur]["child"].get(outc, -1)
        for lvl in range(shared, int(sep[c]) + 1):
            k = len(nodes)
            nodes.append({"level": lvl, "parent": last, "pout": outc, "out": {}, "child": {}})
            nodes[last]["child"][outc] = k
            outc = int(t[lvl, c])
            nodes[k]["out"][c] = outc
            last = k
    # remove degenerate classifiers, children before parents (creation order reversed)
    alive = [True] * len(nodes)
    root = 0
    for k in range(len(nodes) - 1, -1, -1):
        nd = nodes[k]
        outs = set(nd["out"].values())
        if len(outs) != 1:
            continue
        alive[k] = False
        (o,) = outs
        ch = nd["child"].get(o, -1)
        p, po = nd["parent"], nd["pout"]
        if ch >= 0:
            nodes[ch]["parent"], nodes[ch]["pout"] = p, po
        if p >= 0:
            if ch >= 0:
                nodes[p]["child"][po] = ch
            else:
                del nodes[p]["child"][po]
        elif k == root:
            root = ch  # -1 when nothing is left
    order = [k for k in range(len(nodes)) if alive[k]]
    new_id = {k: i for i, k in enumerate(order)}
    out = []
    for k in order:
        nd = nodes[k]
        out.append({
            "parent": new_id.get(nd["parent"], -1) if nd["parent"] >= 0 else -1,
            "pout": nd["pout"] if nd["parent"] >= 0 else -1,
            "gene_level": nd["level"],
            "out": dict(nd["out"]),
            "child": {o: new_id[ch] for o, ch in nd["child"].items()},
        })
    # depth after removal (parents come before children in creation order)
    for i, nd in enumerate(out):
        nd["level"] = 0 if nd["parent"] < 0 else out[nd["parent"]]["level"] + 1
    assert not out or out[0]["parent"] == -1
    return out


def build_tree(genome: Genome, *, _skeleton: list[dict] | None = None) -> GATree:
    """Build the hierarchical classifier layout of ``genome`` (Fig. 4, Fig. 5, degenerate removal).

    Examples
    --------
    >>> g = Genome(np.eye(3, 5, dtype=bool), [[0, 0, 1, 1], [0, 1, 0, 1], [0, 0, 0, 0]])
    >>> t = build_tree(g)
    >>> t.n_base, t.n_levels, [n.classes for n in t.nodes]
    (3, 2, [[0, 1, 2, 3], [0, 1], [2, 3]])
    """
    C = genome.tree.shape[1]
    sk = _skeleton if _skeleton is not None else _build_skeleton(genome.tree)
    nodes = []
    for i, nd in enumerate(sk):
        feats = np.flatnonzero(genome.features[i]) if i < genome.features.shape[0] else np.zeros(0, np.int64)
        nodes.append(BaseNode(i, nd["parent"], nd["pout"], nd["level"], nd["gene_level"], dict(nd["out"]),
                              dict(nd["child"]), feats.astype(np.int64)))
    return GATree(C, genome.features.shape[1], nodes)


def flat_tree(n_classes: int, features) -> GATree:
    """The single base classifier that separates every class, using ``features``."""
    node = BaseNode(0, -1, -1, 0, 0, {c: c for c in range(n_classes)}, {}, np.asarray(features, dtype=np.int64))
    return GATree(n_classes, -1, [node])


# ============================================================================ measures
def _sqdist(A: np.ndarray, B: np.ndarray | None = None, *, binary: bool = False) -> np.ndarray:
    """Squared Euclidean distances between the rows of ``A`` and ``B`` (``A`` when None).

    Exact for equal values: per-feature differences (few features) or the Gram form on 0/1 data
    (integers, exact in floating point).
    """
    sym = B is None
    B = A if sym else B
    if sp.issparse(A) or sp.issparse(B):
        A = sp.csr_matrix(A)
        B = sp.csr_matrix(B)
        na = np.asarray(A.multiply(A).sum(axis=1)).ravel()
        nb = np.asarray(B.multiply(B).sum(axis=1)).ravel()
        D = na[:, None] + nb[None, :] - 2.0 * (A @ B.T).toarray()
        return np.maximum(D, 0.0)
    if binary or A.shape[1] > 32:
        D = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * (A @ B.T)
        return np.maximum(D, 0.0)
    D = np.zeros((A.shape[0], B.shape[0]))
    for j in range(A.shape[1]):
        diff = A[:, j][:, None] - B[:, j][None, :]
        D += diff * diff
    return D


def _group_codes(groups_of_sample: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes 0..G-1 and group sizes."""
    u, g = np.unique(groups_of_sample, return_inverse=True)
    return g.astype(np.int64), np.bincount(g, minlength=len(u))


def count_relief(D: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Count-based RELIEF per sample (Eq. 8-9): hits closer than the nearest miss, normalised.

    ``D`` are (squared or plain -- only the order matters) distances between the samples,
    ``groups`` their labels. Sample ``p`` scores ``#{i != p in its group : d(p, i) < M_p} /
    (N_g - 1)``, ``M_p`` the distance to its nearest miss. Averaging over the samples of a class
    gives Eq. 8's ``r_c``.

    >>> x = np.array([0.0, 0.1, 0.5, 1.0, 1.2])
    >>> count_relief(np.abs(x[:, None] - x[None, :]), np.array([0, 0, 0, 1, 1])).tolist()
    [1.0, 1.0, 0.5, 1.0, 1.0]
    """
    g, sizes = _group_codes(np.asarray(groups))
    same = g[:, None] == g[None, :]
    miss = np.where(same, np.inf, D).min(axis=1)
    hits = same & (D < miss[:, None])
    np.fill_diagonal(hits, False)
    denom = sizes[g] - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        out = hits.sum(axis=1) / denom
    return np.where(denom > 0, out, 0.0)


def relief(D: np.ndarray, groups: np.ndarray, k: int = 1) -> np.ndarray:
    """RELIEF per sample (Eq. 4-6): mean of the ``k`` nearest-miss distances minus that of the hits.

    ``D`` are Euclidean distances. ``k`` is capped by the hits/misses a sample has. Averaging
    over the samples of a class gives Eq. 6's ``r_c``.

    >>> x = np.array([0.0, 0.1, 0.5, 1.0, 1.2])
    >>> np.round(relief(np.abs(x[:, None] - x[None, :]), np.array([0, 0, 0, 1, 1])), 3).tolist()
    [0.9, 0.8, 0.1, 0.3, 0.5]
    """
    g, sizes = _group_codes(np.asarray(groups))
    n = len(g)
    same = g[:, None] == g[None, :]
    H = np.where(same, D, np.inf)
    np.fill_diagonal(H, np.inf)
    M = np.where(same, np.inf, D)
    # per sample, K capped by the hits and misses it has (a one-sample group has no hit: 0)
    k_eff = np.minimum(np.minimum(k, sizes[g] - 1), n - sizes[g])
    kmax = int(k_eff.max()) if n else 0
    if kmax <= 0:
        return np.zeros(n)
    Hs = np.cumsum(np.sort(H, axis=1)[:, :kmax], axis=1)
    Ms = np.cumsum(np.sort(M, axis=1)[:, :kmax], axis=1)
    rows = np.arange(n)
    kk = np.maximum(k_eff, 1) - 1
    out = (Ms[rows, kk] - Hs[rows, kk]) / np.maximum(k_eff, 1)
    return np.where(k_eff > 0, out, 0.0)


def fisher_criterion(X: np.ndarray, groups: np.ndarray) -> float:
    """Fisher's interclass separability ``J = trace[(Q_b + Q_w)^-1 Q_b]`` (Eq. 1-3).

    ``Q_w`` is the within-group scatter over all ``N`` samples, ``Q_b`` the mean over groups of
    ``(M_c - M_not_c)(M_c - M_not_c)^T``. A pseudo-inverse is used (a constant feature adds 0).

    >>> X = np.array([[0.0], [0.0], [1.0], [1.0]])
    >>> round(fisher_criterion(X, np.array([0, 0, 1, 1])), 6)
    1.0
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] == 0:
        return 0.0
    g, sizes = _group_codes(np.asarray(groups))
    N, G = len(g), len(sizes)
    onehot = np.zeros((G, N))
    onehot[g, np.arange(N)] = 1.0
    sums = onehot @ X
    means = sums / sizes[:, None]
    R = X - means[g]
    Qw = R.T @ R / N
    total = X.sum(axis=0)
    rest = N - sizes
    with np.errstate(invalid="ignore", divide="ignore"):
        others = (total[None, :] - sums) / rest[:, None]
    diff = np.where(rest[:, None] > 0, means - others, 0.0)
    Qb = diff.T @ diff / G
    return float(np.trace(np.linalg.pinv(Qb + Qw) @ Qb))


def penalised_score(accuracy: float, tree: GATree, n_features: int, n_classes: int,
                    alpha_t: float, alpha_b: float, alpha_l: float) -> float:
    """Eq. 10: ``S = A_all - a_t F_t/F - a_b F_b/(F(C-1)) - a_l N_l/(C-1)``.

    >>> t = flat_tree(4, [0, 2])
    >>> round(penalised_score(0.9, t, 5, 4, 0.1, 0.1, 0.3), 6)  # 0.9 - 0.04 - 0.0133 - 0.1
    0.746667
    """
    Cm1 = max(n_classes - 1, 1)
    F = max(n_features, 1)
    return float(accuracy - alpha_t * tree.f_t / F - alpha_b * tree.f_b / (F * Cm1) - alpha_l * tree.n_levels / Cm1)


# ============================================================================ fitness
def _is_fast_knn(est) -> int:
    """k when ``est`` is a plain Euclidean, uniform-weight k-NN (vectorised path), else 0."""
    if type(est) is not KNeighborsClassifier:
        return 0
    p = est.get_params()
    if p["weights"] != "uniform" or p["metric_params"]:
        return 0
    if p["metric"] == "euclidean" or (p["metric"] == "minkowski" and p["p"] == 2):
        return int(p["n_neighbors"])
    return 0


def _knn_vote(D: np.ndarray, labels: np.ndarray, k: int, n_labels: int) -> np.ndarray:
    """k-NN prediction from a distance block (rows: queries); ties in votes -> lowest label."""
    if k == 1:
        return labels[np.argmin(D, axis=1)]
    k = min(k, D.shape[1])
    idx = np.argsort(D, axis=1, kind="stable")[:, :k]
    votes = np.zeros((D.shape[0], n_labels))
    np.add.at(votes, (np.repeat(np.arange(D.shape[0]), k), labels[idx].ravel()), 1.0)
    return votes.argmax(axis=1)


def _stratified_split(codes: np.ndarray, fraction: float, seed) -> tuple[np.ndarray, np.ndarray]:
    """Seeded stratified split: ``round(fraction n_c)`` validation samples per class, at least
    one when the class has two or more, none for a one-sample class."""
    rng = np.random.default_rng(seed)
    va = []
    for c in np.unique(codes):
        rows = np.flatnonzero(codes == c)
        if len(rows) < 2:
            continue
        k = int(min(max(round(fraction * len(rows)), 1), len(rows) - 1))
        va.append(rng.permutation(rows)[:k])
    va = np.sort(np.concatenate(va)) if va else np.zeros(0, dtype=np.int64)
    tr = np.setdiff1d(np.arange(len(codes)), va)
    return tr, va


class _Fitness:
    """Scores genomes on fixed data; caches layouts, base-classifier results and tree scores."""

    def __init__(self, X, codes, n_classes, *, scoring, base_estimator, alpha_t, alpha_b, alpha_l,
                 relief_k, cv, validation_fraction, seed, cache=True):
        self.scoring = scoring
        self.base = base_estimator
        self.k_fast = _is_fast_knn(base_estimator)
        self.alphas = (alpha_t, alpha_b, alpha_l)
        self.relief_k = relief_k
        self.C = n_classes
        self.sparse = sp.issparse(X)
        self.F = X.shape[1]
        self.binary = self._is_binary(X)
        self.use_cache = cache
        codes = np.asarray(codes)
        if scoring == "validation":
            tr, va = _stratified_split(codes, validation_fraction, seed)
            self.X, self.y = X[tr], codes[tr]
            self.Xv, self.yv = X[va], codes[va]
        else:
            self.X, self.y = X, codes
        self.n_c = np.bincount(self.y, minlength=self.C).astype(np.float64)
        if scoring == "cv":
            self.folds = self._folds(cv, seed)
        self.rows_of = {}
        self.skeletons: dict[bytes, list[dict]] = {}
        self.node_cache: dict = {}
        self.tree_cache: dict = {}
        self.n_evaluations = 0
        self.n_tree_hits = 0
        self.n_node_computations = 0

    @staticmethod
    def _is_binary(X) -> bool:
        data = X.data if sp.issparse(X) else np.asarray(X).ravel()
        return bool(np.isin(data, (0.0, 1.0)).all())

    def _folds(self, cv: int, seed) -> np.ndarray:
        rng = np.random.default_rng(seed)
        fold = np.empty(len(self.y), dtype=np.int64)
        for c in range(self.C):
            rows = np.flatnonzero(self.y == c)
            fold[rows[rng.permutation(len(rows))]] = np.arange(len(rows)) % cv
        return fold

    # -------------------------------------------------------------- data blocks
    def _rows(self, classes: tuple) -> np.ndarray:
        r = self.rows_of.get(classes)
        if r is None:
            r = self.rows_of[classes] = np.flatnonzero(np.isin(self.y, classes))
        return r

    def _block(self, X, rows, feats):
        if self.sparse:
            return X[:, feats] if rows is None else X[rows][:, feats]
        return X[np.ix_(rows, feats)] if rows is not None else X[:, feats]

    def _dist(self, rows, feats) -> np.ndarray:
        """Squared distances between the training samples ``rows`` on features ``feats``."""
        return _sqdist(self._block(self.X, rows, feats), binary=self.binary)

    # -------------------------------------------------------------- layouts
    def tree(self, genome: Genome) -> GATree:
        tk = genome.tree.astype(np.int8).tobytes()
        sk = self.skeletons.get(tk)
        if sk is None:
            sk = self.skeletons[tk] = _build_skeleton(genome.tree)
        return build_tree(genome, _skeleton=sk)

    # -------------------------------------------------------------- base classifiers
    def _node(self, node: BaseNode):
        key = (node.partition_key(), node.features.tobytes())
        hit = self.node_cache.get(key) if self.use_cache else None
        if hit is not None:
            return hit
        self.n_node_computations += 1
        groups = node.groups()
        classes = tuple(sorted(node.output_of))
        rows = self._rows(classes)
        gmap = np.full(self.C, -1, dtype=np.int64)
        for gi, grp in enumerate(groups):
            gmap[list(grp)] = gi
        lab = gmap[self.y[rows]]
        feats = node.features
        if self.scoring == "validation":
            res = self._predict_validation(rows, lab, feats, len(groups))
        else:
            res = self._estimate(rows, lab, feats, classes, len(groups))
        if self.use_cache:
            self.node_cache[key] = res
        return res

    def _majority(self, lab, n_labels):
        return int(np.argmax(np.bincount(lab, minlength=n_labels)))

    def _predict_validation(self, rows, lab, feats, n_groups) -> np.ndarray:
        """Predicted group of every validation sample by this base classifier."""
        if len(feats) == 0:
            return np.full(len(self.yv), self._majority(lab, n_groups))
        if self.k_fast:
            D = _sqdist(self._block(self.Xv, None, feats), self._block(self.X, rows, feats), binary=self.binary)
            return _knn_vote(D, lab, self.k_fast, n_groups)
        est = clone(self.base).fit(self._block(self.X, rows, feats), lab)
        Bv = self.Xv[:, feats]
        return np.asarray(est.predict(Bv), dtype=np.int64)

    def _estimate(self, rows, lab, feats, classes, n_groups) -> np.ndarray:
        """``A_ic`` for every class (an array over all C classes; nan outside the node)."""
        cls = self.y[rows]
        per_sample = None
        out = np.full(self.C, np.nan)
        s = self.scoring
        if s in ("fisher", "fisher-scaled"):
            if len(feats) == 0:
                J = 0.0
            else:
                B = self._block(self.X, rows, feats)
                J = fisher_criterion(B.toarray() if sp.issparse(B) else B, lab)
                if s == "fisher-scaled":
                    J /= math.sqrt(len(feats))
            out[list(classes)] = J
            return out
        if s == "cv":
            if len(feats) == 0:
                pred = np.full(len(rows), self._majority(lab, n_groups))
            elif self.k_fast:
                D = self._dist(rows, feats)
                f = self.folds[rows]
                D[f[:, None] == f[None, :]] = np.inf
                pred = _knn_vote(D, lab, self.k_fast, n_groups)
            else:
                B = self._block(self.X, rows, feats)
                k = int(min(self.folds.max() + 1, np.bincount(lab).min()))
                if k < 2:
                    pred = np.full(len(rows), self._majority(lab, n_groups))
                else:
                    pred = cross_val_predict(clone(self.base), B, lab, cv=StratifiedKFold(k, shuffle=False))
            per_sample = (pred == lab).astype(np.float64)
        else:
            D = self._dist(rows, feats) if len(feats) else np.zeros((len(rows), len(rows)))
            if s == "count-relief":
                per_sample = count_relief(D, lab)
            else:  # relief: Euclidean distances
                per_sample = relief(np.sqrt(D), lab, self.relief_k)
        sums = np.bincount(cls, weights=per_sample, minlength=self.C)
        cnt = np.bincount(cls, minlength=self.C)
        for c in classes:
            out[c] = sums[c] / cnt[c]
        return out

    # -------------------------------------------------------------- whole tree
    def accuracy(self, tree: GATree) -> float:
        """``A_all``: Eq. 7 (method 2) or the validation accuracy (method 1)."""
        C = self.C
        if self.scoring == "validation":
            return float(np.mean(self.predict_validation(tree) == self.yv))
        prod = np.ones(C)
        for n in tree.nodes:
            est = self._node(n)
            cls = n.classes
            prod[cls] *= est[cls]
        for grp in tree.leaf_groups():
            if len(grp) > 1:
                keep = self._leaf_majority(grp)
                prod[[c for c in grp if c != keep]] = 0.0
        return float((self.n_c * prod).sum() / self.n_c.sum())

    def _leaf_majority(self, grp) -> int:
        grp = list(grp)
        return int(grp[int(np.argmax(self.n_c[grp]))])

    def predict_validation(self, tree: GATree) -> np.ndarray:
        n = len(self.yv)
        if not tree.nodes:
            return np.full(n, self._leaf_majority(range(self.C)))
        cur = np.zeros(n, dtype=np.int64)  # node id of every sample; -1 - class when at a leaf
        for node in tree.nodes:  # parents before children
            at = np.flatnonzero(cur == node.id)
            if at.size == 0:
                continue
            pred_g = self._node(node)[at]
            groups = node.groups()
            for gi, grp in enumerate(groups):
                sel = at[pred_g == gi]
                if sel.size == 0:
                    continue
                o = node.output_of[grp[0]]
                if o in node.children:
                    cur[sel] = node.children[o]
                else:
                    cur[sel] = -1 - (grp[0] if len(grp) == 1 else self._leaf_majority(grp))
        return -1 - cur

    def score(self, genome: Genome, tree: GATree | None = None) -> tuple[float, GATree, float]:
        """``(S, tree, A_all)`` of a genome (Eq. 10)."""
        self.n_evaluations += 1
        tree = self.tree(genome) if tree is None else tree
        key = tree.key()
        hit = self.tree_cache.get(key) if self.use_cache else None
        if hit is not None:
            self.n_tree_hits += 1
            return hit[0], tree, hit[1]
        acc = self.accuracy(tree)
        s = penalised_score(acc, tree, self.F, self.C, *self.alphas)
        if self.use_cache:
            self.tree_cache[key] = (s, acc)
        return s, tree, acc


# ============================================================================ GA
@dataclass
class GAResult:
    """Outcome of :func:`run_ga`."""

    genome: Genome
    tree: GATree
    score: float
    accuracy: float
    history: list = field(default_factory=list)  # best score after each generation
    n_evaluations: int = 0
    n_cache_hits: int = 0
    n_node_computations: int = 0


def _rank_key(score: float, tree: GATree, order: int) -> tuple:
    return (-round(score, 12), tree.n_base, tree.f_b, tree.f_t, order)


def _crossover(a: Genome, b: Genome, rng: np.random.Generator, flat: bool) -> tuple[Genome, Genome]:
    if flat or rng.random() < 0.5:  # feature part: one-point crossover
        fa, fb = a.features.ravel(), b.features.ravel()
        if flat:
            n = a.features.shape[1]
            fa, fb = fa[:n], fb[:n]
        if fa.size > 1:
            pt = int(rng.integers(1, fa.size))
            ca = np.concatenate([fa[:pt], fb[pt:]])
            cb = np.concatenate([fb[:pt], fa[pt:]])
        else:
            ca, cb = fb.copy(), fa.copy()
        if flat:
            ca = np.concatenate([ca, a.features.ravel()[ca.size:]])
            cb = np.concatenate([cb, b.features.ravel()[cb.size:]])
        ta, tb = (a.tree, b.tree) if rng.random() < 0.5 else (b.tree, a.tree)  # attached at random
        return Genome(ca.reshape(a.features.shape), ta), Genome(cb.reshape(a.features.shape), tb)
    # tree part: one-point swap
    j = int(rng.integers(a.tree.size))
    ta, tb = a.tree.copy(), b.tree.copy()
    ta.flat[j], tb.flat[j] = b.tree.flat[j], a.tree.flat[j]
    return Genome(a.features, ta), Genome(b.features, tb)


def _mutate(g: Genome, rng: np.random.Generator, flat: bool) -> Genome:
    nf = g.features.shape[1] if flat else g.features.size
    nt = 0 if flat else g.tree.size
    j = int(rng.integers(nf + nt))
    if j < nf:
        f = g.features.copy()
        f.flat[j] = not f.flat[j]
        return Genome(f, g.tree)
    j -= nf
    t = g.tree.copy()
    C = t.shape[1]
    if C > 1:
        t.flat[j] = (t.flat[j] + int(rng.integers(1, C))) % C  # a different output
    return Genome(g.features, t)


def run_ga(fitness: _Fitness, n_classes: int, n_features: int, *, population_size=500, n_replace=50,
           n_generations=70, mutation_rate=0.5, feature_prob=0.5, tournament=2, flat=False,
           rng: np.random.Generator) -> GAResult:
    """The steady-state GA of section III-E over ``fitness`` (see the module docstring, choice 8)."""
    P = int(population_size)
    R = int(min(n_replace, P))
    if P < 2:
        raise ValueError(f"population_size must be at least 2, got {population_size}")

    def fix(g: Genome) -> Genome:
        if flat:  # the tree part is fixed: every class its own output at level 0
            t = np.zeros_like(g.tree)
            t[0] = np.arange(t.shape[1])
            f = g.features.copy()
            f[1:] = False
            return Genome(f, t)
        return g

    pop = [fix(Genome.random(n_classes, n_features, rng, feature_prob)) for _ in range(P)]
    scored = [fitness.score(g) for g in pop]
    scores = np.array([s[0] for s in scored])
    keys = [_rank_key(s[0], s[1], i) for i, s in enumerate(scored)]
    born = P
    best_i = min(range(P), key=lambda i: keys[i])
    best = (pop[best_i], scored[best_i], keys[best_i])
    history = [float(scores[best_i])]
    for _gen in range(int(n_generations)):
        children: list[Genome] = []
        while len(children) < R:
            parents = []
            for _ in range(2):
                cand = rng.integers(0, P, size=tournament)
                parents.append(pop[int(cand[np.argmax(scores[cand])])])
            c1, c2 = _crossover(parents[0], parents[1], rng, flat)
            for c in (c1, c2):
                if rng.random() < mutation_rate:
                    c = _mutate(c, rng, flat)
                children.append(fix(c))
        children = children[:R]
        # replace the R worst (lowest score; among equals the larger tree, then the newer)
        worst = sorted(range(P), key=lambda i: keys[i])[P - R:]
        for i, child in zip(worst, children):
            s = fitness.score(child)
            pop[i], scored[i], scores[i] = child, s, s[0]
            keys[i] = _rank_key(s[0], s[1], born)
            born += 1
            if keys[i] < best[2]:
                best = (child, s, keys[i])
        history.append(float(-best[2][0]))
    g, (s, tree, acc), _ = best
    return GAResult(g, tree, float(s), float(acc), history, fitness.n_evaluations, fitness.n_tree_hits,
                    fitness.n_node_computations)


# ============================================================================ estimator
def _check_numeric(X, what="X"):
    """Raise a ValueError naming the first non-numeric value of ``X`` (row, column)."""
    if sp.issparse(X):
        return
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    if pd is not None and isinstance(X, pd.DataFrame):
        cols = list(X.columns)
        arr = X.to_numpy(dtype=object)
    else:
        arr = np.asarray(X, dtype=object) if not isinstance(X, np.ndarray) else X
        if arr.dtype.kind in "biuf":
            return
        cols = None
        arr = np.asarray(arr, dtype=object)
    if arr.ndim != 2:
        return
    for (r, j), v in np.ndenumerate(arr):
        if isinstance(v, (bool, np.bool_)) or v is None:
            continue
        if isinstance(v, (int, float, np.number)):
            continue
        if isinstance(v, str):
            try:
                float(v)
                continue
            except ValueError:
                pass
        elif not isinstance(v, (str, bytes)):
            continue  # let scikit-learn's validation report other types
        name = f"column {j}" + (f" ({cols[j]!r})" if cols is not None else "")
        raise ValueError(f"{what} must be numeric: value {v!r} at row {r}, {name} is not a number")


def _check_classes(y, classes, counts):
    one = [c for c, n in zip(classes.tolist(), counts.tolist()) if n < 2]
    if one:
        raise ValueError(
            f"class {one[0]!r} has only one sample (classes with one sample: {one[:10]}); "
            "the GA tree needs at least 2 samples per class (nearest hits, the validation split "
            "and cross-validation all need a second sample)"
        )


class GATreeClassifier(ClassifierMixin, BaseEstimator):
    """Feature-selected hierarchical classifier designed by a GA (Freeman, Kulic & Basir 2011).

    Parameters
    ----------
    scoring : {"count-relief", "relief", "fisher", "fisher-scaled", "cv", "validation"}
        Accuracy estimate: ``"validation"`` is method 1 (the whole tree on a validation split);
        the others are method 2 (one estimate per base classifier, combined by Eq. 7).
    base_estimator : classifier or None
        Cloned per base classifier; default 1-NN (``KNeighborsClassifier(n_neighbors=1)``).
        Plain Euclidean k-NN is scored with vectorised distances; any other classifier is
        fitted for real during the search (``"cv"``/``"validation"``; slow).
    alpha_t, alpha_b, alpha_l : float
        Penalties of Eq. 10 for distinct features, features summed over base classifiers, and
        levels. The paper gives no values; the defaults 0.05 each were chosen on the paper's data
        sets (``docs/ga_tree.md``).
    population_size, n_replace, n_generations : int
        GA size (paper: 500, 50, 70).
    mutation_rate : float
        Probability that a child gets a one-point mutation.
    feature_prob : float
        Probability that a feature gene of a random initial genome is 1.
    hierarchical : bool
        ``False``: flat GA feature selection (one base classifier over all classes; the paper's
        "features only" comparison).
    relief_k : int
        ``K`` of RELIEF (Eq. 6).
    cv : int
        Folds of the ``"cv"`` estimate.
    validation_fraction : float
        Part of the data held out by method 1.
    cache : bool
        Cache fitness of equivalent genomes and base-classifier estimates (``False``: for timing).
    singleton_classes : {"raise", "keep"}
        A class with one sample raises (default); ``"keep"`` keeps it (its estimate is 0: it has
        no nearest hit; method 1 keeps it in the training part).
    random_state : int, Generator or None
        Seed of the GA and the splits (default 0: reproducible).

    Attributes
    ----------
    classes_ : ndarray
    tree_ : GATree
        The best layout (class codes index ``classes_``).
    genome_ : Genome
    score_, accuracy_estimate_ : float
        Eq. 10 score and ``A_all`` of the best genome.
    estimators_ : list
        Fitted base classifier per node (or an int: the only output seen in training).
    support_ : bool ndarray
        Features used anywhere in the tree.
    hierarchical_ : bool
    history_ : list of float
        Best score after each generation.
    n_evaluations_, n_cache_hits_, n_node_computations_ : int

    Examples
    --------
    >>> from selection.synthetic.ga import make_ga_dataset
    >>> d = make_ga_dataset(1, n_per_class=25, random_state=1)
    >>> clf = GATreeClassifier(population_size=100, n_replace=20, n_generations=20).fit(d.X, d.y)
    >>> clf.score(d.X, d.y) == 1.0, clf.tree_.n_base >= 2
    (True, True)
    """

    def __init__(self, scoring="count-relief", base_estimator=None, *, alpha_t=0.05, alpha_b=0.05, alpha_l=0.05,
                 population_size=500, n_replace=50, n_generations=70, mutation_rate=0.5, feature_prob=0.5,
                 hierarchical=True, relief_k=1, cv=5, validation_fraction=0.25, cache=True,
                 singleton_classes="raise", random_state=0):
        self.scoring = scoring
        self.base_estimator = base_estimator
        self.alpha_t = alpha_t
        self.alpha_b = alpha_b
        self.alpha_l = alpha_l
        self.population_size = population_size
        self.n_replace = n_replace
        self.n_generations = n_generations
        self.mutation_rate = mutation_rate
        self.feature_prob = feature_prob
        self.hierarchical = hierarchical
        self.relief_k = relief_k
        self.cv = cv
        self.validation_fraction = validation_fraction
        self.cache = cache
        self.singleton_classes = singleton_classes
        self.random_state = random_state

    def _base(self):
        return KNeighborsClassifier(n_neighbors=1) if self.base_estimator is None else self.base_estimator

    def _validate_params_here(self):
        if self.scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {SCORINGS}, got {self.scoring!r}")
        for name in ("alpha_t", "alpha_b", "alpha_l"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or v < 0:
                raise ValueError(f"{name} must be a number >= 0, got {v!r}")
        for name in ("population_size", "n_replace", "n_generations", "relief_k", "cv"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < (0 if name == "n_generations" else 1):
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        if self.singleton_classes not in ("raise", "keep"):
            raise ValueError(f"singleton_classes must be 'raise' or 'keep', got {self.singleton_classes!r}")
        if not 0 < self.validation_fraction < 1:
            raise ValueError(f"validation_fraction must be in (0, 1), got {self.validation_fraction!r}")

    def fit(self, X, y):
        """Run the GA on ``(X, y)``, then fit the best tree's base classifiers on all of it."""
        self._validate_params_here()
        _check_numeric(X)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_classification_targets(y)
        return self._fit_validated(X, y)

    def _fit_validated(self, X, y):
        self.classes_, codes, counts = np.unique(y, return_inverse=True, return_counts=True)
        codes = codes.reshape(-1)
        C = len(self.classes_)
        if C < 2:
            raise ValueError(f"y has a single class ({self.classes_[0]!r}): one class is not enough for a classifier")
        if self.singleton_classes == "raise":
            _check_classes(y, self.classes_, counts)
        elif (counts < 2).any():
            log.warning("GATreeClassifier: class(es) %s have one sample; kept, with an estimate of 0 "
                        "(no nearest hit) and never in the validation part",
                        self.classes_[counts < 2].tolist()[:10])
        if sp.issparse(X):
            X = sp.csr_matrix(X)
        self.hierarchical_ = bool(self.hierarchical) and C >= 3
        if self.hierarchical and C < 3:
            log.warning("GATreeClassifier: %d classes; a hierarchy needs at least 3 (C-1 = 1 base classifier), "
                        "so the search is flat GA feature selection", C)
        rng = np.random.default_rng(self.random_state)
        seed = int(rng.integers(2**31 - 1))
        F = X.shape[1]
        fit = _Fitness(X, codes, C, scoring=self.scoring, base_estimator=self._base(), alpha_t=self.alpha_t,
                       alpha_b=self.alpha_b, alpha_l=self.alpha_l, relief_k=self.relief_k,
                       cv=int(max(2, min(self.cv, counts.min()))) if self.scoring == "cv" else self.cv,
                       validation_fraction=self.validation_fraction, seed=seed, cache=self.cache)
        res = run_ga(fit, C, F, population_size=self.population_size, n_replace=self.n_replace,
                     n_generations=self.n_generations, mutation_rate=self.mutation_rate,
                     feature_prob=self.feature_prob, flat=not self.hierarchical_, rng=rng)
        self.genome_, self.tree_ = res.genome, res.tree
        self.score_, self.accuracy_estimate_ = res.score, res.accuracy
        self.history_ = res.history
        self.n_evaluations_, self.n_cache_hits_ = res.n_evaluations, res.n_cache_hits
        self.n_node_computations_ = res.n_node_computations
        self.support_ = np.zeros(F, dtype=bool)
        self.support_[self.tree_.used_features()] = True
        self._fit_nodes(X, codes)
        return self

    def _fit_nodes(self, X, codes):
        tree = self.tree_
        self.estimators_ = []
        self._sparse_fit = sp.issparse(X)
        counts = np.bincount(codes, minlength=len(self.classes_))
        self._leaf_majority = {}
        for grp in tree.leaf_groups():
            g = list(grp)
            self._leaf_majority[grp] = int(g[int(np.argmax(counts[g]))])
        for node in tree.nodes:
            groups = node.groups()
            gmap = np.full(len(self.classes_), -1, dtype=np.int64)
            for gi, grp in enumerate(groups):
                gmap[list(grp)] = gi
            rows = np.flatnonzero(gmap[codes] >= 0)
            lab = gmap[codes[rows]]
            if len(node.features) == 0 or np.unique(lab).size == 1:
                est = int(np.argmax(np.bincount(lab, minlength=len(groups))))
            else:
                est = clone(self._base()).fit(X[rows][:, node.features], lab)
            self.estimators_.append(est)

    def _node_block(self, X, rows, feats):
        """The per-node block, in the format the base classifiers were fitted on."""
        B = X[:, feats] if rows is None else X[rows][:, feats]
        if sp.issparse(B) and not self._sparse_fit:
            B = B.toarray()
        return B

    def _node_groups(self, node, Xb, rows):
        est = self.estimators_[node.id]
        if isinstance(est, (int, np.integer)):
            return np.full(len(rows), int(est))
        return np.asarray(est.predict(self._node_block(Xb, rows, node.features)), dtype=np.int64)

    def _validate_X(self, X):
        check_is_fitted(self, "estimators_")
        _check_numeric(X)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return sp.csr_matrix(X) if sp.issparse(X) else X

    def predict_codes(self, X) -> np.ndarray:
        """Class code (index into ``classes_``) of every sample, routed top-down."""
        X = self._validate_X(X)
        return self._route(X)

    def _route(self, X):
        n = X.shape[0]
        tree = self.tree_
        if not tree.nodes:
            return np.full(n, self._leaf_majority[tuple(range(len(self.classes_)))])
        cur = np.zeros(n, dtype=np.int64)
        for node in tree.nodes:
            at = np.flatnonzero(cur == node.id)
            if at.size == 0:
                continue
            pred = self._node_groups(node, X, at)
            for gi, grp in enumerate(node.groups()):
                sel = at[pred == gi]
                o = node.output_of[grp[0]]
                if o in node.children:
                    cur[sel] = node.children[o]
                else:
                    cur[sel] = -1 - self._leaf_majority[grp]
        return -1 - cur

    def predict(self, X):
        """Predicted labels: each sample follows its base classifiers' decisions from the root."""
        codes = self.predict_codes(X)  # checks that the classifier is fitted
        return self.classes_[codes]

    def _has_proba(self):
        return hasattr(self._base(), "predict_proba")

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Class probabilities: the product of the base classifiers' output probabilities on the
        path to each class (an unresolved leaf gives all to its majority class).

        With 1-NN every factor is 0 or 1, so the argmax equals :meth:`predict`.
        """
        X = self._validate_X(X)
        n, C = X.shape[0], len(self.classes_)
        tree = self.tree_
        P = np.zeros((n, C))
        if not tree.nodes:
            P[:, self._leaf_majority[tuple(range(C))]] = 1.0
            return P
        reach = {0: np.ones(n)}
        for node in tree.nodes:
            w = reach[node.id]
            est = self.estimators_[node.id]
            groups = node.groups()
            if isinstance(est, (int, np.integer)):
                G = np.zeros((n, len(groups)))
                G[:, int(est)] = 1.0
            else:
                G = np.zeros((n, len(groups)))
                pr = est.predict_proba(self._node_block(X, None, node.features))
                G[:, np.asarray(est.classes_, dtype=np.int64)] = pr
            for gi, grp in enumerate(groups):
                o = node.output_of[grp[0]]
                if o in node.children:
                    reach[node.children[o]] = w * G[:, gi]
                else:
                    P[:, self._leaf_majority[grp]] += w * G[:, gi]
        return P

    def describe(self) -> str:
        """The tree as text, with class labels and feature names."""
        check_is_fitted(self, "tree_")
        return self.tree_.describe(self.classes_, self._feature_names())

    def _feature_names(self):
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            names = getattr(self, "display_feature_names_", None)  # set by GATreeSelector
        return list(names) if names is not None else [f"f{j}" for j in range(self.n_features_in_)]

    def draw(self, path, *, title: str | None = None) -> Path:
        """Draw the tree (base classifiers with their features, leaves with classes) as a PNG."""
        check_is_fitted(self, "tree_")
        return draw_tree(self.tree_, path, class_names=self.classes_, feature_names=self._feature_names(),
                         title=title)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


# ============================================================================ drawing
def draw_tree(tree: GATree, path, *, class_names=None, feature_names=None, title=None) -> Path:
    """Render ``tree`` to a PNG file at ``path`` (matplotlib, Agg backend); written atomically."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    from kg.files import atomic_write

    cn = (lambda c: str(class_names[c])) if class_names is not None else str
    fn = (lambda f: str(feature_names[f])) if feature_names is not None else (lambda f: f"f{f}")
    pos: dict = {}
    boxes: list = []  # (x, y, text, kind)
    edges: list = []  # (x0, y0, x1, y1, label)
    counter = [0]

    def place(i: int, depth: int) -> float:
        n = tree.nodes[i]
        xs = []
        for o in n.outputs:
            if o in n.children:
                x = place(n.children[o], depth + 1)
                edges.append((i, ("node", n.children[o]), o))
            else:
                x = counter[0]
                counter[0] += 1
                cls = n.output_classes(o)
                boxes.append((x, -(depth + 1), ",".join(cn(c) for c in cls), "leaf"))
                edges.append((i, ("leaf", x, -(depth + 1)), o))
            xs.append(x)
        pos[i] = (float(np.mean(xs)), -depth)
        feats = ", ".join(fn(f) for f in n.features) or "none"
        boxes.append((pos[i][0], -depth, f"B{n.id}\n[{feats}]", "node"))
        return pos[i][0]

    if tree.nodes:
        place(0, 0)
    else:
        boxes.append((0.0, 0.0, ",".join(cn(c) for c in range(tree.n_classes)), "leaf"))
    width = max(counter[0], 1)
    depth = tree.n_levels + 1
    fig, ax = plt.subplots(figsize=(max(3.0, 1.6 * width), max(2.5, 1.4 * depth)))
    for i, target, o in edges:
        x0, y0 = pos[i]
        x1, y1 = pos[target[1]] if target[0] == "node" else (target[1], target[2])
        ax.plot([x0, x1], [y0, y1], color="0.4", lw=1, zorder=1)
        ax.text((x0 + x1) / 2, (y0 + y1) / 2, str(o), fontsize=8, color="0.3", ha="center", va="center",
                bbox=dict(boxstyle="circle,pad=0.15", fc="white", ec="none"), zorder=2)
    for x, yy, text, kind in boxes:
        style = dict(boxstyle="round,pad=0.3", fc="#dbe9f6" if kind == "node" else "#f6e7d8", ec="0.3")
        ax.text(x, yy, text, ha="center", va="center", fontsize=9, bbox=style, zorder=3)
    ax.set_xlim(-0.8, width - 0.2)
    ax.set_ylim(-depth + 0.4, 0.6)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    path = Path(path)

    def write(tmp):
        fig.savefig(tmp, format="png", dpi=110)

    try:
        atomic_write(path, write)
    finally:
        plt.close(fig)
    return path


# ============================================================================ selector
class GATreeSelector(HierarchicalSelector):
    """The GA tree as a feature selector: the support is the union of the best tree's features.

    Registered as ``ga-tree`` (kind ``eager``: one subset for all instances), so
    ``kgfs evaluate --selectors ga-tree`` runs it on a table's multi-class labels; the feature
    hierarchy is accepted and ignored (the method has none). The fitted
    :class:`GATreeClassifier` is ``classifier_`` (its tree: ``tree_``). With fewer than 3
    classes the search is flat GA feature selection (see :class:`GATreeClassifier`). A class
    with one sample is kept (``singleton_classes="keep"``, logged): a selector still returns a
    subset; ``kgfs evaluate``'s stratified folds never produce one.

    For tiny data (fewer than 100 training samples) the GA is scaled down: population
    ``max(20, 5 n)`` capped at ``population_size``, ``n_replace`` and ``n_generations`` in
    proportion (``scale_small=False`` keeps the given sizes). Cost grows with
    ``n_samples^2 x n_features`` per new base classifier; the paper's method is meant for few
    features.

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None (ignored)
    scoring, alpha_t, alpha_b, alpha_l, population_size, n_replace, n_generations,
    base_estimator, random_state : as :class:`GATreeClassifier`
    scale_small : bool
    binarize : float or None

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1, 2], 10)
    >>> X = np.column_stack([y == 0, y == 1, y == 2, rng.random(30) < 0.5]).astype(float)
    >>> s = GATreeSelector(random_state=0).fit(X, y)
    >>> s.get_support().tolist()  # two indicator features separate the 3 classes; the noise is dropped
    [False, True, True, False]
    """

    def __init__(self, hierarchy=None, *, scoring="count-relief", alpha_t=0.05, alpha_b=0.05, alpha_l=0.05,
                 population_size=500, n_replace=50, n_generations=70, base_estimator=None, scale_small=True,
                 random_state=0, binarize=None):
        self.hierarchy = hierarchy
        self.scoring = scoring
        self.alpha_t = alpha_t
        self.alpha_b = alpha_b
        self.alpha_l = alpha_l
        self.population_size = population_size
        self.n_replace = n_replace
        self.n_generations = n_generations
        self.base_estimator = base_estimator
        self.scale_small = scale_small
        self.random_state = random_state
        self.binarize = binarize

    def _validate(self, X, y=None, *, reset=True):
        _check_numeric(X)
        return super()._validate(X, y, reset=reset)

    def _fit(self, X, y, hierarchy):
        n = X.shape[0]
        P, R, G = int(self.population_size), int(self.n_replace), int(self.n_generations)
        if self.scale_small and n < 100:
            f = max(20, 5 * n) / max(P, 1)
            if f < 1:
                P = max(20, 5 * n)
                R = max(2, int(round(R * f)))
                G = max(5, int(round(G * f)))
        clf = GATreeClassifier(self.scoring, self.base_estimator, alpha_t=self.alpha_t, alpha_b=self.alpha_b,
                               alpha_l=self.alpha_l, population_size=P, n_replace=R, n_generations=G,
                               singleton_classes="keep", random_state=self.random_state)
        clf._validate_params_here()
        clf.n_features_in_ = X.shape[1]
        clf._fit_validated(X, np.asarray(y))
        clf.display_feature_names_ = [str(n) for n in hierarchy.node_ids]  # for describe() and draw()
        self.classifier_ = clf
        self.tree_ = clf.tree_
        self.scores_ = clf.support_.astype(np.float64)
        self.support_ = clf.support_.copy()


register_selector(
    "ga-tree", lambda hierarchy=None, **kw: GATreeSelector(hierarchy, **kw), kind="eager",
    description="GA joint feature selection and hierarchical classifier design (Freeman et al. 2011); "
                "support = features of the best tree (count-based RELIEF by default)",
)
