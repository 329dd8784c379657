"""The papers' synthetic data generators.

- :mod:`selection.synthetic.shsel`: the hierarchical datasets S-D{2,4}-B{2,5,10} of the SHSEL
  paper (Ristoski & Paulheim 2014, section 5.1, Table 2).
- :mod:`selection.synthetic.ga`: the artificial data sets 1 and 2 of Freeman, Kulic & Basir
  (IEEE SMC 2011, Tables II and III).
"""

from selection.synthetic.ga import GADataset, make_ga_dataset
from selection.synthetic.shsel import expected_n_features, make_dataset

__all__ = ["make_dataset", "expected_n_features", "GADataset", "make_ga_dataset"]
