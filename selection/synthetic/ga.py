"""The artificial data sets 1 and 2 of Freeman, Kulic & Basir (IEEE SMC 2011), Tables II and III.

Both have four classes and continuous features in about ``[0, 1]``. The paper gives the value of
every feature per class as a constant plus "x% of noise", or as "noise":

- **Data set 1** (Table II, ``x`` = 0% or 5%): feature 2 separates classes {0, 1} from {2, 3};
  features 0 and 1 separate class 0 from class 1 and are noise for classes 2 and 3; features 3
  and 4 separate class 2 from class 3 and are noise for classes 0 and 1.
- **Data set 2** (Table III, ``x`` = 0%, 5% or 20%): feature 0 alone separates all four classes
  (class ``c`` at ``0.25 c``); features 1-3 are noise.

Choices the paper leaves open (documented here, tested in ``tests/selection/synthetic/test_ga.py``):

- "noise" is uniform on ``[0, 1]``;
- ``x%`` is a fraction of that unit range: Table II's "``v + x%``" is ``v + U(0, x)`` and
  "``1 - x%``" is ``1 - U(0, x)`` (so values stay in ``[0, 1]``); Table III's "``v +- x%``" is
  ``v + U(-x, x)``;
- the paper does not give the number of samples: ``n_per_class=100`` by default (400 samples),
  balanced classes, in a seeded random order.

With 0% noise, the informative features are constant within a class, so distances between
samples of one class are exactly 0 on them (the count-based RELIEF and the tie rules of the
nearest-neighbour search see exact ties; :mod:`selection.class_hierarchy.ga_tree` handles them exactly).

Examples
--------
>>> d = make_ga_dataset(1, noise=0.05, random_state=0)
>>> d.X.shape, sorted(set(d.y.tolist()))
((400, 5), [0, 1, 2, 3])
>>> d = make_ga_dataset(2, noise=0.0, n_per_class=3, random_state=0)
>>> sorted(set(d.X[:, 0].tolist()))
[0.0, 0.25, 0.5, 0.75]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["GADataset", "make_ga_dataset", "TABLE_II", "TABLE_III", "PAPER_NOISE_LEVELS"]

# Table II: per class, per feature: ("+", v) = v + U(0, x); ("-", v) = v - U(0, x); None = noise U(0, 1)
TABLE_II = {
    0: [("+", 0.0), ("+", 0.05), ("-", 1.0), None, None],
    1: [("+", 0.05), ("+", 0.0), ("-", 1.0), None, None],
    2: [None, None, ("+", 0.0), ("+", 0.0), ("+", 0.05)],
    3: [None, None, ("+", 0.0), ("+", 0.05), ("+", 0.0)],
}
# Table III: ("+-", v) = v + U(-x, x)
TABLE_III = {c: [("+-", 0.25 * c), None, None, None] for c in range(4)}

#: The noise levels each data set is run with in the paper.
PAPER_NOISE_LEVELS = {1: (0.0, 0.05), 2: (0.0, 0.05, 0.20)}


@dataclass
class GADataset:
    """An artificial data set: ``X`` (float), ``y`` (int classes 0..3) and what is relevant.

    ``relevant`` lists, for each group of classes a base classifier may have to separate, the
    features that do it (ground truth of the generator), e.g. ``{(0, 1, 2, 3): [2], (0, 1): [0, 1],
    (2, 3): [3, 4]}`` for data set 1.

    Parameters
    ----------
    X : ndarray (n_samples, n_features)
    y : int ndarray (n_samples,)
    which : int
        The paper's data set (1 or 2).
    noise : float
        The paper's ``x`` as a fraction.
    relevant : dict of class tuple -> list of int
    description : str

    Examples
    --------
    >>> d = make_ga_dataset(1, n_per_class=2, random_state=0)
    >>> d.which, d.relevant[(0, 1)], d.description.split(":")[0]
    (1, [0, 1], 'data set 1 (Table II), 0% noise')
    """

    X: np.ndarray
    y: np.ndarray
    which: int
    noise: float
    relevant: dict = field(default_factory=dict)
    description: str = ""


def _draw(spec, x: float, n: int, rng: np.random.Generator) -> np.ndarray:
    if spec is None:
        return rng.uniform(0.0, 1.0, n)
    kind, v = spec
    if kind == "+":
        return v + rng.uniform(0.0, x, n) if x > 0 else np.full(n, v)
    if kind == "-":
        return v - rng.uniform(0.0, x, n) if x > 0 else np.full(n, v)
    return v + rng.uniform(-x, x, n) if x > 0 else np.full(n, v)


def make_ga_dataset(which: int, noise: float = 0.0, *, n_per_class: int = 100, random_state=None) -> GADataset:
    """Generate the paper's data set ``which`` (1 or 2) with ``noise`` (a fraction: 0.05 = 5%).

    Parameters
    ----------
    which : {1, 2}
        Data set 1 (Table II, 5 features) or 2 (Table III, 4 features).
    noise : float in [0, 1)
        The paper's ``x``: 0 or 0.05 for data set 1; 0, 0.05 or 0.2 for data set 2 (other values
        are allowed).
    n_per_class : int
        Samples per class (the paper does not say; default 100).
    random_state : int, Generator or None
        Seed; the same seed gives the same data.

    Returns
    -------
    GADataset

    Examples
    --------
    >>> d = make_ga_dataset(1, noise=0.05, n_per_class=5, random_state=0)
    >>> d.X.shape, bool(((d.X >= 0) & (d.X <= 1)).all())
    ((20, 5), True)
    """
    if which not in (1, 2):
        raise ValueError(f"which must be 1 or 2 (the paper's data sets), got {which!r}")
    noise = float(noise)
    if not 0.0 <= noise < 1.0:
        raise ValueError(f"noise must be a fraction in [0, 1), e.g. 0.05 for 5%; got {noise!r}")
    if int(n_per_class) < 1:
        raise ValueError(f"n_per_class must be at least 1, got {n_per_class!r}")
    n_per_class = int(n_per_class)
    rng = np.random.default_rng(random_state)
    table = TABLE_II if which == 1 else TABLE_III
    n_feat = len(table[0])
    blocks, labels = [], []
    for c in range(4):
        cols = [_draw(spec, noise, n_per_class, rng) for spec in table[c]]
        blocks.append(np.column_stack(cols))
        labels.append(np.full(n_per_class, c))
    X, y = np.vstack(blocks), np.concatenate(labels)
    order = rng.permutation(len(y))
    X, y = X[order], y[order]
    if which == 1:
        relevant = {(0, 1, 2, 3): [2], (0, 1): [0, 1], (2, 3): [3, 4]}
        desc = (f"data set 1 (Table II), {noise:.0%} noise: feature 2 splits {{0,1}} from {{2,3}}, "
                f"features 0/1 split 0 from 1, features 3/4 split 2 from 3; {n_per_class} samples per class")
    else:
        relevant = {(0, 1, 2, 3): [0]}
        desc = (f"data set 2 (Table III), {noise:.0%} noise on feature 0: feature 0 separates all four classes, "
                f"features 1-3 are noise; {n_per_class} samples per class")
    assert X.shape[1] == n_feat
    return GADataset(X, y, which, noise, relevant, desc)
