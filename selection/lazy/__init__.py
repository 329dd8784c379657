"""Lazy (per-instance) hierarchical feature selection and the lazy classifiers: the RPV paper.

da Silva, Plastino & Freitas, *Prioritizing Positive Feature Values: a New Hierarchical Feature
Selection Method* (Applied Intelligence 2020), with HIP and MR of Wan & Freitas (2015):

- :mod:`selection.lazy.selectors`: RPV (LazyR, IG, R), HIP, MR, All-Pos, All-Neg; ``fit`` on
  the training data, ``select_for(X_test)`` gives one feature subset per test instance. They
  are not transformers (no single subset): ``get_support()`` raises.
- :mod:`selection.lazy.classifiers`: the lazy Naive Bayes and k-NN that classify each test
  instance on its own subset (``predict_proba(X, mask)``).
- :mod:`selection.lazy.estimator`: :class:`LazySelectionClassifier`, a selector and a lazy
  classifier as one ordinary scikit-learn classifier (``Pipeline``, ``GridSearchCV``).
"""

from selection.lazy.classifiers import LazyKNN, LazyNaiveBayes, make_lazy_classifier
from selection.lazy.estimator import (
    FixedSupport,
    LazySelectionClassifier,
    SharedSelection,
    default_block_size,
)
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
           "LazySelectionClassifier", "FixedSupport", "SharedSelection", "default_block_size", "make_lazy_classifier",
           "mean_fraction_selected", "as_mask"]
