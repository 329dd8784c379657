"""ADHOC: Richeldi & Lanzi, *Performing Effective Feature Selection by Investigating the Deep
Structure of the Data* (KDD 1996).

A first-order dependence matrix between features, the higher-order correlation of their
profiles, a hierarchy of factors from clustering them, and a genetic search that keeps at most
one feature per factor with a C4.5 wrapper. One module per stage:

- :mod:`selection.adhoc.dependence`: stage 1, :func:`dependence_matrix` (correlation and
  chi-square per pair of numeric and symbolic features);
- :mod:`selection.adhoc.discretize`: the binning stage 1 needs (equal frequency, Fayyad-Irani MDL);
- :mod:`selection.adhoc.factors`: stages 2 and 3, :func:`profile_correlation`,
  :func:`higher_order` and :func:`factor_hierarchy`;
- :mod:`selection.adhoc.search`: stage 4, :func:`genetic_search` with the :func:`c45_tree`
  fitness;
- :mod:`selection.adhoc.selector`: the :class:`ADHOC` selector (input handling, the stages on
  the distinct columns), registered as ``adhoc`` with the ``tree`` classifier.
"""

from selection.adhoc.dependence import TEST_NAMES, Dependence, dependence_matrix
from selection.adhoc.discretize import equal_frequency_bins, mdl_bins
from selection.adhoc.factors import Factor, FactorResult, factor_hierarchy, higher_order, profile_correlation
from selection.adhoc.search import SearchResult, c45_tree, genetic_search
from selection.adhoc.selector import ADHOC

__all__ = ["ADHOC", "TEST_NAMES", "Dependence", "dependence_matrix", "equal_frequency_bins", "mdl_bins",
           "profile_correlation", "higher_order", "Factor", "FactorResult", "factor_hierarchy", "c45_tree",
           "SearchResult", "genetic_search"]
