"""Lazy (per-instance) hierarchical feature selection and the lazy classifiers: the RPV paper.

da Silva, Plastino & Freitas, *Prioritizing Positive Feature Values: a New Hierarchical Feature
Selection Method* (Applied Intelligence 2020), with HIP and MR of Wan & Freitas (2015):

- :mod:`selection.lazy.selectors`: RPV (LazyR, IG, R), HIP, MR, All-Pos, All-Neg; ``fit`` on
  the training data, ``select_for(X_test)`` gives one feature subset per test instance.
- :mod:`selection.lazy.classifiers`: the lazy Naive Bayes and k-NN that classify each test
  instance on its own subset.
"""

from selection.lazy.classifiers import LazyKNN, LazyNaiveBayes, make_lazy_classifier
from selection.lazy.selectors import (
    HIP,
    MR,
    RPV,
    AllNegative,
    AllPositive,
    LazySelector,
    as_mask,
    mean_fraction_selected,
)

__all__ = ["LazySelector", "RPV", "HIP", "MR", "AllPositive", "AllNegative", "LazyNaiveBayes", "LazyKNN",
           "make_lazy_classifier", "mean_fraction_selected", "as_mask"]
