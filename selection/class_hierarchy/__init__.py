"""Methods over a hierarchy of *classes* (a tree over the labels), not of features.

- :mod:`selection.class_hierarchy.tree`: :class:`ClassHierarchy` (the class tree) and the
  top-down :class:`HierarchicalClassifier` (Zhao et al., IJCAI 2017, section 2.1).
- :mod:`selection.class_hierarchy.hifsrr`: HiFSRR and FSNM, Zhao et al., *Hierarchical Feature
  Selection with Recursive Regularization* (IJCAI 2017), and Nie et al. (NIPS 2010).
- :mod:`selection.class_hierarchy.evaluation`: that paper's evaluation (per internal node, SVM
  accuracy against the number of selected features), run by the ``hifsrr2017`` protocol of
  :mod:`selection.evaluation.protocols`.
- :mod:`selection.class_hierarchy.ga_tree`: Freeman, Kulic & Basir, *Joint Feature Selection
  and Hierarchical Classifier Design* (IEEE SMC 2011): a GA over per-node feature masks and
  the class tree's layout (a sub-package: genome, layout, measures, fitness, search,
  classifier, drawing, selector).

Synthetic data over a class tree is in :mod:`selection.synthetic.class_tree`. The registry
(:mod:`selection.registry`) names :class:`GATreeSelector` ``ga-tree`` and
:func:`default_node_classifier` ``svm-linear``.
"""

from selection.class_hierarchy.tree import (
    ClassHierarchy,
    ClassTreeError,
    HierarchicalClassifier,
    as_class_hierarchy,
    default_node_classifier,
)
from selection.class_hierarchy.hifsrr import FSNM, HiFSRR, HiFSRRError, fit_hifsrr, fsnm
from selection.class_hierarchy.ga_tree import GATreeClassifier, GATreeSelector

__all__ = ["ClassHierarchy", "ClassTreeError", "HierarchicalClassifier", "as_class_hierarchy",
           "default_node_classifier", "HiFSRR", "FSNM", "HiFSRRError", "fit_hifsrr", "fsnm",
           "GATreeClassifier", "GATreeSelector"]
