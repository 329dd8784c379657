"""The hierarchical classifier a genome describes (Fig. 5 and the removal of degenerate base classifiers).

:func:`build_tree` turns a :class:`~selection.class_hierarchy.ga_tree.genome.Genome` into a
:class:`GATree` of :class:`BaseNode` s (choices 2-4 of :mod:`selection.class_hierarchy.ga_tree`);
:func:`flat_tree` is the single base classifier of the flat search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from selection.class_hierarchy.ga_tree.genome import Genome, repair_tree_genes, separation_levels
from selection.class_hierarchy.tree import ClassHierarchy

__all__ = ["BaseNode", "GATree", "build_tree", "flat_tree"]


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

    Examples
    --------
    >>> n = BaseNode(0, -1, -1, 0, 0, {0: 0, 1: 0, 2: 1}, {0: 1}, np.array([3]))
    >>> n.classes, n.outputs, n.groups(), n.output_classes(0)
    ([0, 1, 2], [0, 1], [(0, 1), (2,)], [0, 1])
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
        """The classes that reach this base classifier."""
        return sorted(self.output_of)

    @property
    def outputs(self) -> list[int]:
        """The outputs it uses."""
        return sorted(set(self.output_of.values()))

    def groups(self) -> list[tuple[int, ...]]:
        """The classes of each output, as sorted tuples, outputs ordered by their lowest class."""
        by_out: dict[int, list[int]] = {}
        for c in sorted(self.output_of):
            by_out.setdefault(self.output_of[c], []).append(c)
        return sorted((tuple(v) for v in by_out.values()), key=lambda g: g[0])

    def output_classes(self, output: int) -> list[int]:
        """The classes sent to ``output``."""
        return sorted(c for c, o in self.output_of.items() if o == output)

    def partition_key(self) -> tuple:
        """The class partition it makes (what its estimate depends on, besides its features)."""
        return tuple(self.groups())


@dataclass
class GATree:
    """A hierarchical classifier layout: base classifiers (nodes) and the classes at each leaf.

    ``nodes[0]`` is the root (when there is any base classifier). A leaf is an output of a node
    without a child; it holds one class, or several ("unresolved", only at the genome's last
    level). ``leaf_groups()`` lists them.

    Parameters
    ----------
    n_classes : int
    n_features : int
        Features of the data (-1 when unknown).
    nodes : list of BaseNode
        Parents before children.

    Examples
    --------
    >>> t = build_tree(Genome(np.eye(3, 5, dtype=bool), [[0, 0, 1, 1], [0, 1, 0, 1], [0, 0, 0, 0]]))
    >>> t.leaf_groups(), t.path_of(2), t.used_features(), t.f_t, t.f_b
    ([(0,), (1,), (2,), (3,)], [0, 2], [0, 1, 2], 3, 3)
    >>> print(t.describe())
    B0 [features: f0]
      out 0 {0,1} ->
        B1 [features: f1]
          out 0 -> class 0
          out 1 -> class 1
      out 1 {2,3} ->
        B2 [features: f2]
          out 0 -> class 2
          out 1 -> class 3
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
        """``F_t`` of Eq. 10: distinct features used."""
        return len(self.used_features())

    @property
    def f_b(self) -> int:
        """``F_b`` of Eq. 10: features summed over the base classifiers."""
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

    def route(self, n: int, node_groups, leaf_class) -> np.ndarray:
        """Class code of each of ``n`` samples sent down the tree from the root.

        ``node_groups(node, at)`` is the index into ``node.groups()`` that the node's base
        classifier gives the samples ``at``; ``leaf_class(group)`` the class a leaf holding
        ``group`` predicts (its majority class when unresolved).
        """
        if not self.nodes:
            return np.full(n, leaf_class(tuple(range(self.n_classes))))
        cur = np.zeros(n, dtype=np.int64)  # node id of every sample; -1 - class when at a leaf
        for node in self.nodes:  # parents before children
            at = np.flatnonzero(cur == node.id)
            if at.size == 0:
                continue
            pred = node_groups(node, at)
            for gi, grp in enumerate(node.groups()):
                sel = at[pred == gi]
                if sel.size == 0:
                    continue
                o = node.output_of[grp[0]]
                cur[sel] = node.children[o] if o in node.children else -1 - leaf_class(grp)
        return -1 - cur

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

    Parameters
    ----------
    genome : Genome
    _skeleton : list of dict, optional
        The layout of ``genome.tree`` when already built (the GA caches it per tree genes).

    Returns
    -------
    GATree
        Surviving base classifier ``i`` uses the features of row ``i`` (choice 3).

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
    """The single base classifier that separates every class, using ``features``.

    Parameters
    ----------
    n_classes : int
    features : sequence of int

    Returns
    -------
    GATree

    Examples
    --------
    >>> t = flat_tree(3, [1, 4])
    >>> t.n_base, t.n_levels, t.leaf_groups()
    (1, 1, [(0,), (1,), (2,)])
    """
    node = BaseNode(0, -1, -1, 0, 0, {c: c for c in range(n_classes)}, {}, np.asarray(features, dtype=np.int64))
    return GATree(n_classes, -1, [node])
