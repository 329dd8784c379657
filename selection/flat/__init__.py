"""Flat (non-hierarchical) filters the papers compare with, one module per method.

- :mod:`selection.flat.cfs`: :class:`CFS`, WEKA's ``CfsSubsetEval`` + ``BestFirst`` (the RPV
  paper's baseline), and the symmetrical-uncertainty helpers it runs on.
- :mod:`selection.flat.relieff`: :func:`relieff_scores` and :class:`ReliefF`, WEKA's
  ``ReliefFAttributeEval`` (the RPV and HiFSRR papers' baseline).
- :mod:`selection.flat.mrmr`: :func:`mrmr_ranking` and :class:`MRMR`, Peng et al.'s mRMR (MID)
  (the HiFSRR paper's baseline).
- :mod:`selection.flat.fisher`: :func:`fisher_scores` and :class:`FisherScore` (the HiFSRR
  paper's baseline).

The measures take binary sparse tables (kept sparse, from co-occurrence counts) and real-valued
dense data alike: the selectors apply them to the project's binary tables, the ``hifsrr2017``
protocol per class-tree node (:mod:`selection.class_hierarchy.evaluation`). The installable
Python versions take a minute or more on a 1,000 x 2,000 binary table (``../shared/GUIDE.md``
section 4); these take well under a second there (``benchmarks/bench_flat.py``). The selectors
ignore the hierarchy (registry kind ``"flat"``) and are eager: ``get_support()`` is the subset.
The registry (:mod:`selection.registry`) names them ``cfs``, ``relieff``, ``mrmr`` and ``fisher``.
"""

from selection.flat.cfs import CFS, pairwise_entropies, symmetrical_uncertainty_row
from selection.flat.fisher import FisherScore, fisher_scores
from selection.flat.mrmr import MRMR, mean_std_states, mrmr_ranking
from selection.flat.relieff import ReliefF, neighbour_weights, relieff_scores

__all__ = ["CFS", "ReliefF", "MRMR", "FisherScore", "fisher_scores", "mrmr_ranking", "mean_std_states",
           "relieff_scores", "neighbour_weights", "pairwise_entropies", "symmetrical_uncertainty_row"]
