"""Evaluation: cross-validation, the papers' protocols, grids, metrics, statistics and reports.

Selectors and classifiers are registry names or estimators (a scikit-learn selector, a kgfs
selector, a ``Pipeline``, a :class:`~selection.lazy.LazySelectionClassifier`, ...), cloned for
every fit (:mod:`selection.evaluation.specs`).

- :mod:`selection.evaluation.cv`: :func:`evaluate_table`, a seeded stratified k-fold CV of
  selectors x classifiers on one table (selection fitted inside each fold); :class:`CVOptions`.
- :mod:`selection.evaluation.classify`: a classifier fitted on the columns an eager selection kept.
- :mod:`selection.evaluation.protocols`: the papers' experiments by name (``basic``,
  ``shsel2014``, ``rpv2020``, ``hifsrr2017``) and the fixed split (``split``).
- :mod:`selection.evaluation.split`: :func:`evaluate_split`, a fixed train/test split with the features
  generated inside the fit (a ``KGFeatures`` Pipeline tuned on the training part, the test part scored once;
  the protocol ``split``).
- :mod:`selection.evaluation.plan`: :func:`plan_evaluation`, an :class:`EvaluationPlan` checked
  before any work.
- :mod:`selection.evaluation.grid`: :func:`run_grid`, datasets x selectors x classifiers x
  folds of a plan in parallel and resumably (what ``kgfs evaluate`` runs).
- :mod:`selection.evaluation.metrics`: accuracy, GM, AUROC, AUCPR, compression, harmonic mean.
- :mod:`selection.evaluation.stats`: average ranks, wins, Friedman, Holm (Demsar 2006).
- :mod:`selection.evaluation.significance`: what the statistical tests say, per ranked measure
  and classifier (``stats.md``).
- :mod:`selection.evaluation.report`: summary tables, statistics and plots a person reads
  (:class:`ReportSettings`).
"""

from selection.evaluation.cv import COLUMNS, CVOptions, choose_best_on_test, evaluate_table
from selection.evaluation.grid import GridResult, run_grid
from selection.evaluation.plan import EvaluationPlan, plan_evaluation
from selection.evaluation.protocols import Protocol, available_protocols, get_protocol, register_protocol
from selection.evaluation.report import ReportSettings
from selection.evaluation.specs import MethodSpec, method_specs

__all__ = ["COLUMNS", "CVOptions", "evaluate_table", "choose_best_on_test", "GridResult", "run_grid",
           "EvaluationPlan", "plan_evaluation", "Protocol", "available_protocols", "get_protocol",
           "register_protocol", "ReportSettings", "MethodSpec", "method_specs"]
