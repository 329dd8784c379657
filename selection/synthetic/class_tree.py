"""Synthetic data over a class tree, for the class-hierarchy methods (HiFSRR, Zhao et al. 2017).

:func:`make_hierarchical_classification` draws Gaussian data over a three-level class tree
(root -> groups -> classes) in which a parent and its children share features and siblings do
not, the structure HiFSRR's regularisers assume (section 3.4 of the paper uses such data);
:class:`HierarchicalDataset` carries the data, the
:class:`~selection.class_hierarchy.tree.ClassHierarchy` and the ground truth.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from selection.class_hierarchy.tree import ClassHierarchy

__all__ = ["HierarchicalDataset", "make_hierarchical_classification"]


@dataclass
class HierarchicalDataset:
    """A dataset with a class tree: ``X``, ``y``, ``tree`` and the truly relevant features.

    Parameters
    ----------
    X : ndarray (n_samples, n_features)
    y : ndarray of str (n_samples,)
        Leaf labels of the tree.
    tree : ClassHierarchy
    relevant : dict of node id -> int ndarray
        For every internal node, the features that separate its children (the generator's
        ground truth).
    description : str
        One line on how it was generated.

    Examples
    --------
    >>> d = make_hierarchical_classification(n_samples=90, n_noise=0, random_state=0)
    >>> d.X.shape, d.tree.node_ids[d.tree.root], d.relevant["g0"].tolist()
    ((90, 36), 'root', [0, 1, 2, 3, 4, 11, 18, 20, 21, 26, 30, 34])
    """

    X: np.ndarray
    y: np.ndarray
    tree: ClassHierarchy
    relevant: dict[str, np.ndarray]
    description: str = ""


def make_hierarchical_classification(
    n_samples: int = 600,
    *,
    n_groups: int = 3,
    n_classes_per_group: int = 3,
    n_group_features: int = 0,
    n_class_features: int = 4,
    n_noise: int = 40,
    group_sep: float = 1.5,
    class_sep: float = 1.5,
    noise: float = 1.0,
    shuffle_features: bool = True,
    random_state=None,
) -> HierarchicalDataset:
    """Synthetic data over a three-level class tree (root -> groups -> classes).

    Every feature is Gaussian noise (sd ``noise``) plus a shift:

    - each class ``c`` owns ``n_class_features`` features, disjoint from those of every other
      class. They are shifted by ``class_sep`` for the samples of ``c`` and by ``group_sep``
      for every sample of ``c``'s group. So sibling classes are separated by disjoint feature
      groups (the group node's task), and the union of a group's class features -- shared by
      the group node and its parent -- separates the groups (the root's task): a parent and
      its children share features, siblings do not (the structure HiFSRR's regularisers
      assume);
    - each group may also own ``n_group_features`` features shifted by ``group_sep`` for the
      whole group only (useful at the root, useless inside the group);
    - ``n_noise`` features carry no signal.

    Classes are balanced (up to one sample). Labels are ``"c<g>.<k>"``; groups ``"g<g>"``;
    the root ``"root"``. Columns are shuffled when ``shuffle_features``. The generator is
    deterministic given ``random_state``. ``relevant["root"]`` lists every group and class
    feature, ``relevant["g<g>"]`` the class features of group ``g``.

    Parameters
    ----------
    n_samples : int
        Samples, spread evenly over the ``n_groups * n_classes_per_group`` classes.
    n_groups, n_classes_per_group : int
        Shape of the tree (each at least 2).
    n_group_features, n_class_features, n_noise : int
        Features owned by each group, by each class, and without signal.
    group_sep, class_sep : float
        Shifts of the group and class features (see above).
    noise : float
        Standard deviation of the Gaussian noise.
    shuffle_features : bool
        Shuffle the columns.
    random_state : int, Generator or None

    Returns
    -------
    HierarchicalDataset

    Examples
    --------
    >>> d = make_hierarchical_classification(n_samples=90, random_state=0)
    >>> d.X.shape, d.tree.height, sorted(d.relevant)
    ((90, 76), 3, ['g0', 'g1', 'g2', 'root'])
    """
    rng = np.random.default_rng(random_state)
    if n_groups < 2 or n_classes_per_group < 2:
        raise ValueError("n_groups and n_classes_per_group must be at least 2")
    n_classes = n_groups * n_classes_per_group
    if n_samples < n_classes:
        raise ValueError(f"n_samples={n_samples} is smaller than the number of classes ({n_classes})")
    n_features = n_groups * n_group_features + n_classes * n_class_features + n_noise
    cols = rng.permutation(n_features) if shuffle_features else np.arange(n_features)
    codes = np.arange(n_samples) % n_classes
    rng.shuffle(codes)
    X = rng.normal(0.0, noise, size=(n_samples, n_features))
    relevant: dict[str, list[int]] = {"root": []}
    edges = []
    pos = 0
    group_cols = {}
    for g in range(n_groups):
        group_cols[g] = cols[pos:pos + n_group_features]
        pos += n_group_features
        relevant["root"] += group_cols[g].tolist()
        relevant[f"g{g}"] = []
        edges.append((f"g{g}", "root"))
    labels = np.empty(n_classes, dtype=object)
    for c in range(n_classes):
        g, k = divmod(c, n_classes_per_group)
        labels[c] = f"c{g}.{k}"
        edges.append((labels[c], f"g{g}"))
        ccols = cols[pos:pos + n_class_features]
        pos += n_class_features
        relevant[f"g{g}"] += ccols.tolist()
        relevant["root"] += ccols.tolist()
        rows = np.flatnonzero(codes == c)
        in_group = np.flatnonzero(codes // n_classes_per_group == g)
        X[np.ix_(rows, group_cols[g])] += group_sep
        X[np.ix_(in_group, ccols)] += group_sep
        X[np.ix_(rows, ccols)] += class_sep
    y = labels[codes].astype(str)
    tree = ClassHierarchy.from_edges(edges)
    desc = (
        f"{n_groups} groups x {n_classes_per_group} classes, {n_class_features} features per class (class sep "
        f"{class_sep}, group sep {group_sep}), {n_group_features} group-only features per group, "
        f"{n_noise} noise features"
    )
    relevant_sorted = {k: np.sort(np.asarray(v, dtype=np.int64)) for k, v in relevant.items()}
    return HierarchicalDataset(X, y, tree, relevant_sorted, desc)
