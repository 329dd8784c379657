"""Evaluation: cross-validation, the papers' protocols, grids, metrics, statistics and reports.

- :mod:`selection.evaluation.cv`: :func:`evaluate_table`, a seeded stratified k-fold CV of
  selectors x classifiers on one table (selection fitted inside each fold).
- :mod:`selection.evaluation.protocols`: the papers' experiments by name (``basic``,
  ``shsel2014``, ``rpv2020``; ``hifsrr2017`` in :mod:`selection.class_hierarchy.evaluation`).
- :mod:`selection.evaluation.grid`: :func:`run_grid`, datasets x selectors x classifiers x
  folds in parallel and resumably (what ``kgfs evaluate`` runs).
- :mod:`selection.evaluation.metrics`: accuracy, GM, AUROC, AUCPR, compression, harmonic mean.
- :mod:`selection.evaluation.stats`: average ranks, wins, Friedman, Holm (Demsar 2006).
- :mod:`selection.evaluation.report`: summary tables, statistics and plots a person reads.
"""

from selection.evaluation.cv import COLUMNS, choose_best_on_test, evaluate_table
from selection.evaluation.grid import GridResult, run_grid
from selection.evaluation.protocols import Protocol, available_protocols, get_protocol, register_protocol

__all__ = ["COLUMNS", "evaluate_table", "choose_best_on_test", "GridResult", "run_grid", "Protocol",
           "available_protocols", "get_protocol", "register_protocol"]
