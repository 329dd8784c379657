"""File formats: WEKA ARFF and CSV tables, hierarchy edge lists, and the published datasets' files.

- :mod:`kg.formats.arff`: WEKA ARFF (dense and sparse) of a :class:`~kg.table.FeatureTable`:
  the writer and the one ARFF reader of kgfs.
- :mod:`kg.formats.csv_io`: the table as CSV, and the ``child,parent`` edges CSV of a hierarchy.
- :mod:`kg.formats.folder`: a table as a folder (``table.npz`` + ``summary.json``) and its exports.
- :mod:`kg.ontology.published`: the files of the papers' datasets (the AIRE GO matrices, the RPV
  ARFFs, the LD datasets' CSV hierarchies).
"""

from kg.formats.arff import ArffTable, read_arff, write_arff
from kg.formats.csv_io import read_csv, read_edges_csv, write_csv, write_edges_csv

__all__ = ["ArffTable", "read_arff", "read_csv", "read_edges_csv", "write_arff", "write_csv", "write_edges_csv"]
