"""The papers' synthetic data generators.

- :mod:`selection.synthetic.shsel`: the hierarchical datasets S-D{2,4}-B{2,5,10} of the SHSEL
  paper (Ristoski & Paulheim 2014, section 5.1, Table 2), as binary tables over a feature DAG.
- :mod:`selection.synthetic.ga`: the artificial data sets 1 and 2 of Freeman, Kulic & Basir
  (IEEE SMC 2011, Tables II and III).
- :mod:`selection.synthetic.class_tree`: Gaussian data over a three-level class tree with
  planted per-node features, for HiFSRR (Zhao et al., IJCAI 2017, section 3.4).
"""

from selection.synthetic.class_tree import HierarchicalDataset, make_hierarchical_classification
from selection.synthetic.ga import GADataset, make_ga_dataset
from selection.synthetic.shsel import expected_n_features, make_dataset

__all__ = ["make_dataset", "expected_n_features", "GADataset", "make_ga_dataset", "HierarchicalDataset",
           "make_hierarchical_classification"]
