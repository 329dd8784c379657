"""ADHOC: Richeldi & Lanzi, *Performing Effective Feature Selection by Investigating the Deep
Structure of the Data* (KDD 1996).

A first-order dependence matrix between features, the higher-order correlation of their
profiles, a hierarchy of factors from clustering them, and a genetic search that keeps at most
one feature per factor with a C4.5 wrapper (:mod:`selection.adhoc.selector`).
"""

from selection.adhoc.selector import ADHOC, dependence_matrix, factor_hierarchy, genetic_search, profile_correlation

__all__ = ["ADHOC", "dependence_matrix", "profile_correlation", "factor_hierarchy", "genetic_search"]
