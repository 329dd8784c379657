"""The genome of the GA tree (Freeman, Kulic & Basir 2011, section III-A, Fig. 3 and Fig. 4).

:class:`Genome` holds one feature mask per possible base classifier and one class-to-output
table per level; :func:`separation_levels` is Fig. 4 (the first level at which each class is
alone) and :func:`repair_tree_genes` splits classes that no level separates (choice 1 of
:mod:`selection.class_hierarchy.ga_tree`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Genome", "separation_levels", "repair_tree_genes"]


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
    def random(cls, n_classes: int, n_features: int, rng: np.random.Generator, feature_prob: float = 0.5) -> Genome:
        """An initial genome: feature genes 1 with probability ``feature_prob``, tree genes uniform."""
        L = max(n_classes - 1, 1)
        return cls(rng.random((L, n_features)) < feature_prob, rng.integers(0, n_classes, size=(L, n_classes)))

    def key(self) -> bytes:
        """The genes as bytes (identical genomes, identical keys)."""
        return np.packbits(self.features).tobytes() + self.tree.astype(np.int8).tobytes()


def separation_levels(tree_genes) -> np.ndarray:
    """Fig. 4: the first level at which each class is alone in its output group (-1: never).

    A class ``c`` stays "in group" with class ``i`` while they have had the same output at every
    level so far; it is separated at the first level where no other class is in its group.

    Parameters
    ----------
    tree_genes : int array (levels, C)
        ``tree_genes[l, c]``: the output of class ``c`` at level ``l``.

    Returns
    -------
    int ndarray (C,)

    Examples
    --------
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


def repair_tree_genes(tree_genes) -> np.ndarray:
    """Tree genes in which every class is separated by the last level (a copy; choice 1).

    Classes that share every output through all C-1 levels are split at the last level: the
    lowest keeps its gene, the others get the lowest outputs no class of that last-level base
    classifier uses. Genomes that already separate every class are returned unchanged.

    Parameters
    ----------
    tree_genes : int array (levels, C)

    Returns
    -------
    int ndarray (levels, C)

    Examples
    --------
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
