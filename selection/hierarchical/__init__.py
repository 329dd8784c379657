"""Eager selectors over a feature DAG: SHSEL and the methods the SHSEL paper compares with.

Ristoski & Paulheim, *Feature Selection in Hierarchical Feature Spaces* (Discovery Science 2014):

- :mod:`selection.hierarchical.shsel`: SHSEL (initial selection by IG or correlation
  similarity to a parent, then pruning by the per-path average IG).
- :mod:`selection.hierarchical.baselines`: SIG and SC (flat selection by IG / correlation),
  TSEL (Jeong & Myaeng 2013) and GreedyTopDown (Lu et al. 2013).
- :mod:`selection.hierarchical.hill_climbing`: Wang et al.'s bottom-up hill climbing.
- :mod:`selection.hierarchical.complete`: CompleteFS, every feature (the baseline of every paper).

Each is a scikit-learn selector (:class:`selection.base.HierarchicalSelector`) that chooses one
feature subset for all instances.
"""

from selection.hierarchical.baselines import (
           TSEL,
           GreedyTopDown,
           StandardSelector,
           top_k_mask,
)
from selection.hierarchical.complete import CompleteFS
from selection.hierarchical.hill_climbing import HillClimbing, knn_purity
from selection.hierarchical.shsel import (
           SHSEL,
           THRESHOLD_GRID,
           initial_selection,
           prune_selection,
)

__all__ = ["SHSEL", "THRESHOLD_GRID", "initial_selection", "prune_selection", "StandardSelector", "TSEL",
           "GreedyTopDown", "top_k_mask", "HillClimbing", "knn_purity", "CompleteFS"]
