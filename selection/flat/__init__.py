"""Flat (non-hierarchical) filters the papers compare with: CFS, ReliefF, mRMR and Fisher score.

The RPV paper compares with WEKA's CFS and ReliefF, the HiFSRR paper with mRMR, ReliefF and the
Fisher score. They ignore the hierarchy and work from sparse counts (see
:mod:`selection.flat.filters`).
"""

from selection.flat.filters import CFS, MRMR, FisherScore, ReliefF, pairwise_entropies, symmetrical_uncertainty_row

__all__ = ["CFS", "ReliefF", "MRMR", "FisherScore", "pairwise_entropies", "symmetrical_uncertainty_row"]
