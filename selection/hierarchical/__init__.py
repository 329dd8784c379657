"""Eager selectors over a feature DAG: SHSEL and the methods the SHSEL paper compares with.

Ristoski & Paulheim, *Feature Selection in Hierarchical Feature Spaces* (Discovery Science 2014),
one module per method:

- :mod:`selection.hierarchical.shsel`: SHSEL (initial selection by IG or correlation
  similarity to a parent, then pruning by the per-path average IG); ``shsel-rpv`` as the RPV
  paper ran it.
- :mod:`selection.hierarchical.standard`: SIG and SC (standard, flat selection by information
  gain / correlation with the class).
- :mod:`selection.hierarchical.tsel`: TSEL (Jeong & Myaeng 2013), by lift or IG; and TSEL as
  the RPV paper (da Silva, Plastino & Freitas 2020) ran it (``tsel-rpv``).
- :mod:`selection.hierarchical.greedy_top_down`: GreedyTopDown (Lu et al. 2013), as the SHSEL
  paper reads it and as the RPV paper ran it (``gtd-rpv``).
- :mod:`selection.hierarchical.hill_climbing`: Wang et al.'s bottom-up hill climbing.
- :mod:`selection.hierarchical.complete`: CompleteFS, every feature (the baseline of every paper).

Each is a scikit-learn selector (:class:`selection.base.HierarchicalSelector`) that chooses one
feature subset for all instances and declares its parameters (``_parameter_constraints``, shared
entries in :mod:`selection.base`).
"""

from selection.hierarchical.complete import CompleteFS
from selection.hierarchical.greedy_top_down import GreedyTopDown, GreedyTopDownRPV
from selection.hierarchical.hill_climbing import HillClimbing, knn_purity
from selection.hierarchical.shsel import (
    SHSEL,
    THRESHOLD_GRID,
    initial_selection,
    prune_selection,
)
from selection.hierarchical.standard import StandardSelector
from selection.hierarchical.tsel import TSEL, TSELRPV

__all__ = ["SHSEL", "THRESHOLD_GRID", "initial_selection", "prune_selection", "StandardSelector", "TSEL", "TSELRPV",
           "GreedyTopDown", "GreedyTopDownRPV", "HillClimbing", "knn_purity", "CompleteFS"]
