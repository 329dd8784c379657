"""Relevance measures and the exact leaf-to-root path rules the selectors are built from.

- :mod:`selection.measures.relevance`: relevance of binary features from sparse class counts
  (information gain, correlation with the class, gain ratio, lift, chi-square, pairwise and
  edge correlations): the measures of the SHSEL paper (Ristoski & Paulheim 2014) and of the
  methods it compares with, also by name (:func:`feature_relevance`).
- :mod:`selection.measures.values`: relevance of single feature *values* (R, LazyR, value IG):
  the measures of the RPV paper (da Silva, Plastino & Freitas 2020) and of HIP/MR.
- :mod:`selection.measures.paths`: "for every leaf-to-root path" rules computed exactly on
  DAGs by dynamic programming (SHSEL pruning, TSEL, GreedyTopDown and the RPV paper's GTD),
  never enumerating paths,
  and the strict tie-breaking order those rules use (:func:`preference_ranks`).
- :mod:`selection.measures.enrichment`: per feature, its support in each class, the class it is
  enriched in, a one-sided Fisher exact (hypergeometric) p-value and its Benjamini-Hochberg q-value
  (the columns of ``selection.csv`` a bioinformatician reads first).
"""

from selection.measures.enrichment import Enrichment, class_enrichment, enrichment_text
from selection.measures.paths import (
    PATH_RULE_EPS,
    greedy_antichain,
    most_specific,
    path_argmax,
    path_maxima,
    path_mean_rule,
    preference_ranks,
    strict_ranks,
)
from selection.measures.relevance import (
    MEASURES,
    ClassCounts,
    chi_square,
    chi_square_pvalue,
    class_correlation,
    class_counts,
    edge_cooccurrence,
    edge_correlation,
    entropy,
    feature_relevance,
    gain_ratio,
    information_gain,
    lift,
    pair_cooccurrence,
    pair_correlation,
    pair_information_gain_similarity,
    split_information,
)
from selection.measures.values import (
    SMOOTHING,
    conditional_class_probabilities,
    lazy_r,
    r_measure,
    value_information_gain,
    value_relevance,
)

__all__ = [
    "MEASURES", "ClassCounts", "chi_square", "chi_square_pvalue", "class_correlation", "class_counts",
    "edge_cooccurrence", "edge_correlation", "entropy", "feature_relevance", "gain_ratio", "information_gain",
    "lift", "pair_cooccurrence", "pair_correlation", "pair_information_gain_similarity", "split_information",
    "conditional_class_probabilities", "lazy_r", "r_measure", "value_information_gain", "value_relevance",
    "SMOOTHING", "most_specific", "path_maxima",
    "PATH_RULE_EPS", "greedy_antichain", "path_argmax", "path_mean_rule", "preference_ranks", "strict_ranks",
    "Enrichment", "class_enrichment", "enrichment_text",
]
