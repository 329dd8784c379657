"""The split protocol: every choice tuned on the training part of a fixed split, the test part scored once.

The node-classification benchmarks (AIFB, MUTAG: ``nodeclass/*``) come with a standard train/test split,
and their published accuracies are of one model per method, tuned on the training part and scored once on
the test part. :func:`evaluate_split` does that for each selector x classifier, with the features generated
*inside the fit*:

1. the model is a scikit-learn ``Pipeline`` of :class:`kg.features.KGFeatures` (the dataset's entities ->
   the closed hierarchical table), the selector (``hierarchy="from_input"``: the hierarchy of that fit) and
   the classifier (a lazy selector and the classifier's per-instance form are one step,
   :class:`~selection.lazy.estimator.LazySelectionClassifier`);
2. ``GridSearchCV`` on the **training rows only** (stratified ``inner_splits``-fold, seeded) tunes every
   choice at once: the generation settings (a grid of KGFeatures parameters: ``min_support``, and whatever
   KGFeatures takes, e.g. a path ``depth``: ``generation={"min_support": [1, 2, 3], "depth": [1, 2]}``), the
   selector's threshold (threshold methods, unless the user fixed it) and the classifier's declared tuning
   (``logreg``: ``C``, :attr:`selection.registry.Entry.tuning`, unless fixed). Each fold of the inner CV
   generates its features from its own training rows, so ``min_support`` never counts a row it is scored
   on, and the test part is never seen;
3. the best setting is refitted on the whole training part (generation included) and scored **once** on
   the test part: accuracy (with a Wilson binomial confidence interval: :func:`wilson_interval`), GM, AUROC,
   AUCPR;
4. the final model's selected features are reported (for a lazy selector, the features selected for at
   least one test instance, with how many).

Choices (documented here, tested in ``tests/selection/evaluation/test_split.py``):

- Ties of the inner CV score go to the first candidate in scikit-learn's grid order (parameters sorted by
  name: ``clf__C`` first, then ``kg__...``, then ``select__threshold``; values in the order given):
  ``logreg``'s ``C`` grid is ascending, so a tie goes to the stronger regularisation.
- A candidate whose fit fails (``min_support`` that keeps no feature of an inner fold) scores NaN and
  loses; if every candidate fails the cell fails.
- The thresholds searched for a threshold method default to :data:`THRESHOLDS` (13 values of the class's
  sweep; its 101 would cost 8x the time for little).
- A budget of features (``max_kept``, a share of those generated): the search scores each candidate's
  share too (:func:`kept_share`: the selector's kept features over the features generated in that inner
  fold; a lazy selector: the mean per validation instance), and only candidates whose share is at most the
  budget **in every inner fold** can be chosen, the best accuracy among them (ties: grid order, as without a
  budget). The final model's share is reported beside it (``n_selected`` / ``n_features``); refitted on the
  whole training part it may differ a little from the folds'. No candidate within the budget: the cell
  fails, naming the smallest share the search reached.
- The search runs with one BLAS thread (:func:`threadpoolctl.threadpool_limits`): its fits are of small
  matrices (hundreds of rows), where BLAS threads only cost (a logistic regression on AIFB's 140 x 46 table
  took 10x longer with two threads on two cores than with one).
- A generation grid (or a dataset) of ``values="count"`` gives the model numbers of walks (how many carbon
  atoms a molecule has): the selectors that read presence are given ``binarize=0.0`` (:func:`presence`,
  unless the user set ``binarize``) and the classifier gets the counts; a selected feature's support is
  the number of training rows that have it, not the sum of its counts.
- The selected features of an eager selector are its support on the final model, each with its class
  enrichment on the training part (:func:`selection.measures.enrichment.class_enrichment` of the features'
  presence over all the final model's features: ``enriched_in``, ``p_enrichment``, the BH ``q_enrichment``,
  ``support_<class>``; descriptive, on the rows the model was fitted on); ``n_selected`` is their number,
  ``compression`` is ``1 - n_selected / n_features`` over the features generated for the final model
  (``n_features``).

Everything is callable without Prefect or the command line; ``kgfs evaluate --protocol split`` runs it
through :func:`selection.evaluation.grid.run_grid` (the protocol ``split`` of
:mod:`selection.evaluation.protocols`, one cell per dataset x selector x classifier).

Examples
--------
>>> import rdflib
>>> from kg.instances import EntityDataset
>>> g = rdflib.Graph().parse(format="turtle", data=''.join(
...     f"<http://x/e{i}> a <http://dbpedia.org/ontology/{'A' if i % 2 else 'B'}> .\\n" for i in range(20)))
>>> d = EntityDataset("toy", [f"e{i}" for i in range(20)], [f"http://x/e{i}" for i in range(20)],
...                   [i % 2 for i in range(20)], source=g, split=["train"] * 14 + ["test"] * 6)
>>> res = evaluate_split(d, ["complete"], ["logreg"], inner_splits=2, generation={"min_support": [1, 2]})
>>> o = res.outcomes[0]
>>> o.accuracy, o.n_test, o.chosen["kg__min_support"], [f.rsplit("/", 1)[1] for f in o.selected]
(1.0, 6, 1, ['A', 'B'])
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning, FitFailedWarning
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import Pipeline
from threadpoolctl import threadpool_limits

from kg.errors import KgfsError
from selection.evaluation.cv import COLUMNS, check_folds
from selection.evaluation.metrics import compression, fold_metrics, positive_label, wilson_interval
from selection.evaluation.specs import MethodSpec, method_specs, params_json
from selection.lazy.estimator import LazySelectionClassifier

__all__ = ["SPLIT_COLUMNS", "THRESHOLDS", "SplitOutcome", "SplitResult", "SplitSettings", "evaluate_split",
           "kept_share", "kg_features", "model_grid", "presence", "split_rows", "wilson_interval"]

log = logging.getLogger(__name__)

#: The thresholds a threshold method is tuned over (a subset of SHSEL's / SIG's sweep of 0, 0.01, ..., 1).
THRESHOLDS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0)

#: The columns a split row has beyond :data:`selection.evaluation.cv.COLUMNS`.
SPLIT_COLUMNS = ["accuracy_ci_low", "accuracy_ci_high", "confidence", "cv_accuracy", "chosen", "n_candidates",
                 "generation_seconds", "selected_features", "max_kept", "cv_kept"]


def _remembered_class():
    """:class:`RememberedKGFeatures`, defined on first use (kg.features imports scikit-learn and the RDF route)."""
    global RememberedKGFeatures
    if RememberedKGFeatures is not None:
        return RememberedKGFeatures
    from kg.features import KGFeatures

    class _Remembered(KGFeatures):
        """:class:`~kg.features.KGFeatures` whose fits and transforms are remembered for one search.

        A grid search fits the same generation settings on the same rows once for every setting of the selector
        and the classifier (13 thresholds x 5 values of C: 65 times per inner fold). The fitted state (every
        attribute ending in ``_``) and the output of a fit are kept by (parameters, the rows' values), the
        output of a transform by (the fit, the rows' values), in a memo shared by the clones of one search
        (``_memo``, set by :func:`model_grid`); the output is the same object each time (the selectors and
        classifiers read it, none changes it).
        """

        _memo: dict | None = None

        def __sklearn_clone__(self):
            new = super().__sklearn_clone__()
            new._memo = self._memo
            return new

        def _key(self, X) -> tuple:
            params = {k: v for k, v in self.get_params(deep=False).items() if k not in self._shared_params}
            values = np.asarray(X, dtype=object).ravel().tolist() if not hasattr(X, "iloc") else list(X)
            return (json.dumps(params, sort_keys=True, default=repr),
                    hashlib.sha256("\x1f".join(map(str, values)).encode()).hexdigest())

        def fit(self, X, y=None):
            self.fit_transform(X, y)
            return self

        def fit_transform(self, X, y=None, **fit_params):
            if self._memo is None:
                return super().fit_transform(X, y, **fit_params)
            key = ("fit", *self._key(X))
            if key not in self._memo:
                out = super().fit_transform(X, y, **fit_params)
                state = {k: v for k, v in vars(self).items() if k.endswith("_") and not k.startswith("_")}
                self._memo[key] = ({**state, "memo_key_": key}, out)
            state, out = self._memo[key]
            vars(self).update(state)
            return out

        def transform(self, X):
            if self._memo is None or not hasattr(self, "memo_key_"):
                return super().transform(X)
            key = ("transform", self.memo_key_, self._key(X)[1])
            if key not in self._memo:
                self._memo[key] = (super().transform(X), self.n_unknown_transform_)
            out, self.n_unknown_transform_ = self._memo[key]
            return out

    _Remembered.__name__ = _Remembered.__qualname__ = "RememberedKGFeatures"
    _Remembered.__module__ = __name__
    RememberedKGFeatures = _Remembered
    return _Remembered


#: :class:`~kg.features.KGFeatures` remembering its fits for one search (see :func:`_remembered_class`).
RememberedKGFeatures = None


def kg_features(data, **params):
    """The :class:`~kg.features.KGFeatures` of a dataset of instances: its source and parameters (``params`` over them).

    Parameters
    ----------
    data : kg.instances.EntityDataset
    **params
        KGFeatures parameters.

    Returns
    -------
    kg.features.KGFeatures
        Unfitted.

    Raises
    ------
    KgfsError
        A parameter KGFeatures does not have (a generation grid naming ``depth`` before KGFeatures has one).
    """
    from kg.features import KGFeatures

    known = set(KGFeatures().get_params()) - {"source"}
    merged = {**data.features_params, **params}
    unknown = sorted(set(merged) - known)
    if unknown:
        raise KgfsError(f"dataset {data.name!r}: KGFeatures has no parameter {', '.join(unknown)} (its parameters: "
                        f"{', '.join(sorted(known))})")
    return KGFeatures(source=data.source, **{"input": "entities", **merged})


def _tuned(spec: MethodSpec, thresholds: Sequence[float]) -> dict[str, list]:
    """The parameters of a method the search tunes, by name (without their step's prefix)."""
    out: dict[str, list] = {k: list(v) for k, v in spec.tuning.items()}  # the registry's (logreg: C)
    if spec.kind == "classifier":
        return out
    if spec.threshold_grid is not None and "threshold" not in spec.params and "threshold" not in out:
        out["threshold"] = [float(t) for t in thresholds]
    return out


def presence(estimator, *given: Mapping):
    """Make the binary estimators in ``estimator`` (itself and those nested in it) read counts as presence.

    A generation of ``values="count"`` gives the selectors numbers of walks; kgfs's estimators that read
    presence (the hierarchical and lazy selectors, the lazy classifiers: no ``reads_counts`` class
    attribute set true) refuse them unless given ``binarize``. Each ``binarize`` of theirs left at None (and
    not given by the user: ``given``, the specs' own parameters) is set to 0.0: the estimator reads
    ``count > 0``, and an eager selector's ``transform`` still passes the counts on to the classifier.
    Estimators that read counts (the Fisher score) and those of other libraries (scikit-learn's
    ``BernoulliNB`` binarises at 0.0 by default) are left as they are.

    Parameters
    ----------
    estimator : estimator
        Changed in place.
    *given : mapping
        Parameters the user fixed (their names without a step's prefix).

    Returns
    -------
    estimator

    Examples
    --------
    >>> from selection.hierarchical import CompleteFS
    >>> presence(CompleteFS()).binarize, presence(CompleteFS(binarize=2.0)).binarize
    (0.0, 2.0)
    """
    fixed = {k for g in given for k in g}
    params = estimator.get_params(deep=True)
    updates = {}
    for key, value in params.items():
        prefix, _, name = key.rpartition("__")
        owner = params[prefix] if prefix else estimator
        ours = type(owner).__module__.startswith("selection.") and not getattr(owner, "reads_counts", False)
        if name == "binarize" and value is None and name not in fixed and ours:
            updates[key] = 0.0
    return estimator.set_params(**updates) if updates else estimator


def model_grid(data, selector: MethodSpec, classifier: MethodSpec, *, generation: Mapping[str, Sequence] | None = None,
               thresholds: Sequence[float] = THRESHOLDS) -> tuple[Pipeline, dict[str, list]]:
    """The pipeline of one selector x classifier and the grid its search explores.

    Parameters
    ----------
    data : kg.instances.EntityDataset
    selector, classifier : MethodSpec
    generation : mapping of str -> list, optional
        KGFeatures parameters and their values (default: the dataset's ``generation_grid``).
    thresholds : sequence of float

    Returns
    -------
    pipeline : Pipeline
        ``kg`` (KGFeatures), ``select`` (an eager selector) and ``clf``; or ``kg`` and ``clf`` (a
        LazySelectionClassifier) for a lazy selector.
    grid : dict
        ``GridSearchCV``'s ``param_grid`` (names with their step's prefix).
    """
    generation = dict(data.generation_grid if generation is None else generation)
    kg_features(data, **{k: v[0] for k, v in generation.items()})  # a parameter KGFeatures lacks fails here
    kg = _remembered_class()(**kg_features(data).get_params(deep=False))
    kg._memo = {}
    grid = {f"kg__{k}": list(v) for k, v in generation.items()}
    counts = "count" in [str(v) for v in generation.get("values", [data.features_params.get("values", "binary")])]
    if selector.kind == "lazy":
        clf = LazySelectionClassifier(selector.build("from_input"), classifier.build_lazy())
        if counts:
            presence(clf, selector.params, classifier.params)
        steps = [("kg", kg), ("clf", clf)]
        grid.update({f"clf__selector__{k}": v for k, v in _tuned(selector, thresholds).items()})
        grid.update({f"clf__classifier__{k}": v for k, v in _tuned(classifier, thresholds).items()})
    else:
        steps = [("kg", kg), ("select", selector.build("from_input")), ("clf", classifier.build())]
        if counts:
            presence(steps[1][1], selector.params)
            presence(steps[2][1], classifier.params)
        grid.update({f"select__{k}": v for k, v in _tuned(selector, thresholds).items()})
        grid.update({f"clf__{k}": v for k, v in _tuned(classifier, thresholds).items()})
    return Pipeline(steps), grid


@dataclass
class SplitOutcome:
    """One selector x classifier on a fixed split: what was chosen on the training part and the test score.

    Attributes
    ----------
    dataset, selector, classifier : str
        The dataset's name and the methods' labels.
    kind : str
        The selector's kind (``eager``, ``flat``, ``lazy``).
    params : dict
        The selector's own parameters (those that name it).
    chosen : dict
        The best setting of the inner CV (``kg__min_support``, ``select__threshold``, ``clf__C``, ...).
    cv_accuracy : float
        Its mean accuracy over the inner folds of the training part.
    n_candidates : int
        Settings tried.
    max_kept : float
        The budget of the search (a share of the features generated; NaN: none).
    cv_kept : float
        The chosen setting's largest share of features kept over the inner folds (NaN without a budget).
    n_train, n_test : int
    accuracy, ci_low, ci_high : float
        Test accuracy and its Wilson interval at ``confidence``.
    measures : dict
        Every measure of :func:`~selection.evaluation.metrics.fold_metrics` on the test part.
    n_features : int
        Features generated for the final model (KGFeatures on the whole training part).
    n_selected : float
        Features kept (a lazy selector: the mean per test instance).
    selected : list of str
        The kept feature ids (a lazy selector: those selected for at least one test instance, most often first).
    selected_labels : list of str
        Their readable labels.
    selected_support : list of int
        Training instances that have each.
    selected_counts : list of int or None
        A lazy selector: test instances each was selected for.
    selected_enrichment : list of dict or None
        Each kept feature's class enrichment on the training part (``enriched_in``, ``p_enrichment``,
        ``q_enrichment``, ``support_<class>``).
    search_seconds, generation_seconds, predict_seconds : float
        The whole search with the refit; the final generation (fit on the training part); the test prediction.
    predictions : ndarray
        The test part's predicted classes, in dataset order of the test rows.
    status, error : str
    """

    dataset: str
    selector: str
    classifier: str
    kind: str = ""
    params: dict = field(default_factory=dict)
    chosen: dict = field(default_factory=dict)
    cv_accuracy: float = float("nan")
    n_candidates: int = 0
    max_kept: float = float("nan")
    cv_kept: float = float("nan")
    n_train: int = 0
    n_test: int = 0
    accuracy: float = float("nan")
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    confidence: float = 0.95
    measures: dict = field(default_factory=dict)
    n_features: int = 0
    n_selected: float = 0.0
    selected: list = field(default_factory=list)
    selected_labels: list = field(default_factory=list)
    selected_support: list = field(default_factory=list)
    selected_counts: list | None = None
    selected_enrichment: list | None = None
    search_seconds: float = 0.0
    generation_seconds: float = 0.0
    predict_seconds: float = 0.0
    pos_label: object = None
    predictions: np.ndarray | None = None
    status: str = "ok"
    error: str = ""

    def row(self) -> dict:
        """The outcome as a result row: :data:`~selection.evaluation.cv.COLUMNS` (fold 0) and :data:`SPLIT_COLUMNS`.

        Returns
        -------
        dict
        """
        m = {k: self.measures.get(k, np.nan) for k in ("accuracy", "auroc", "aucpr", "gm", "compression",
                                                        "harmonic_mean")}
        threshold = next((v for k, v in self.chosen.items() if k.endswith("__threshold")), np.nan)
        features = [{"feature": f, "label": lab, "support": s, **({"test_instances": c} if c is not None else {}),
                     **(e or {})}
                    for f, lab, s, c, e in zip(self.selected, self.selected_labels, self.selected_support,
                                               self.selected_counts or [None] * len(self.selected),
                                               self.selected_enrichment or [None] * len(self.selected))]
        return {"dataset": self.dataset, "selector": self.selector, "params": params_json(self.params),
                "classifier": self.classifier, "fold": 0, "n_features": self.n_features, "n_train": self.n_train,
                "n_test": self.n_test, "n_selected": self.n_selected, **m,
                "select_seconds": self.search_seconds, "classify_seconds": self.predict_seconds,
                "threshold": threshold, "threshold_choice": "split-cv" if np.isfinite(threshold) else "",
                "kind": self.kind, "pos_label": str(self.pos_label), "degenerate": "empty" if self.status == "ok"
                and self.n_selected == 0 else "", "status": self.status, "error": self.error,
                "accuracy_ci_low": self.ci_low, "accuracy_ci_high": self.ci_high, "confidence": self.confidence,
                "cv_accuracy": self.cv_accuracy, "chosen": json.dumps(self.chosen, sort_keys=True, default=str),
                "n_candidates": self.n_candidates, "generation_seconds": self.generation_seconds,
                "selected_features": json.dumps(features, default=_jsonable), "max_kept": self.max_kept,
                "cv_kept": self.cv_kept}


@dataclass
class SplitResult:
    """Every outcome of :func:`evaluate_split`, and the rows of a report.

    Attributes
    ----------
    outcomes : list of SplitOutcome
    inner_splits : int
    random_state : int
    """

    outcomes: list
    inner_splits: int = 5
    random_state: int = 0

    def frame(self) -> pd.DataFrame:
        """One row per outcome (:meth:`SplitOutcome.row`)."""
        return pd.DataFrame([o.row() for o in self.outcomes], columns=COLUMNS + SPLIT_COLUMNS)

    def best(self, classifier: str | None = None) -> SplitOutcome:
        """The outcome with the best inner-CV accuracy (what a user would pick without looking at the test part).

        Parameters
        ----------
        classifier : str, optional
            Among this classifier's outcomes only.

        Returns
        -------
        SplitOutcome
        """
        ok = [o for o in self.outcomes if o.status == "ok" and (classifier is None or o.classifier == classifier)]
        if not ok:
            raise KgfsError("no successful outcome" + (f" of classifier {classifier}" if classifier else ""))
        return max(ok, key=lambda o: (o.cv_accuracy, -o.n_selected))


def _jsonable(o):
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    return str(o)


def _kept(pipe: Pipeline, rows: Callable[[], object]) -> tuple[np.ndarray | sp.csr_matrix, float]:
    """What a fitted model of :func:`model_grid` keeps, and how many: an eager selector's support mask and its
    size, or a lazy selector's per-instance masks of the rows ``rows()`` gives (their generated table, asked only
    then) and the mean kept per row."""
    if "select" in pipe.named_steps:
        mask = np.asarray(pipe["select"].get_support(), dtype=bool)
        return mask, float(np.count_nonzero(mask))
    masks = sp.csr_matrix(pipe["clf"].selector_.select_for(rows()))
    return masks, float(masks.count_nonzero()) / max(1, masks.shape[0])


def _selected(pipe: Pipeline, X_train, y_train, X_test, kind: str):
    """The kept features of a fitted pipeline: ids, labels, training support, per-test-instance counts (lazy),
    the number kept, and each kept feature's class enrichment on the training part (a dict per feature)."""
    from selection.measures.enrichment import class_enrichment

    kg = pipe["kg"]
    names = np.asarray(kg.get_feature_names_out(), dtype=object)
    labels = np.asarray(kg.feature_labels_, dtype=object)
    present = (sp.csr_matrix(X_train) != 0).astype(np.int8)  # rows that have a feature, also of counts
    support = np.asarray(present.sum(axis=0)).ravel().astype(int)
    frame = class_enrichment(present, y_train).frame()  # q over every feature of the final model
    kept, n_selected = _kept(pipe, lambda: X_test)
    if kind == "lazy":
        counts = np.asarray(kept.sum(axis=0)).ravel().astype(int)
        idx = np.asarray([j for j in np.argsort(-counts, kind="stable") if counts[j] > 0], dtype=int)
        kept_counts = counts[idx].tolist()
    else:
        idx, kept_counts = np.flatnonzero(kept), None
    enrichment = frame.iloc[idx].to_dict("records")
    return (names[idx].tolist(), labels[idx].tolist(), support[idx].tolist(), kept_counts, n_selected,
            enrichment)


def kept_share(pipe: Pipeline, X, y=None) -> float:
    """The share of a fitted model's generated features its selector keeps (a scorer of the search's budget).

    Parameters
    ----------
    pipe : Pipeline
        Fitted, of :func:`model_grid`: ``kg`` + ``select`` + ``clf``, or ``kg`` + a lazy ``clf``.
    X : array-like
        The rows scored (a lazy selector's share is the mean over them of its per-instance masks).
    y : ignored

    Returns
    -------
    float
        Kept features over the features ``kg`` generated (0 when it generated none).
    """
    n = len(pipe["kg"].get_feature_names_out())
    _, kept = _kept(pipe, lambda: pipe["kg"].transform(X))
    return kept / n if n else 0.0


class _WithinBudget:
    """``GridSearchCV``'s ``refit``: the best mean accuracy among the candidates whose share of kept features is
    at most ``max_kept`` in every inner fold (ties: the first in grid order, as scikit-learn's own ranking)."""

    def __init__(self, max_kept: float):
        self.max_kept = max_kept

    @staticmethod
    def shares(cv_results) -> np.ndarray:
        """Each candidate's largest share over the inner folds (NaN where a fold failed)."""
        folds = [k for k in cv_results if k.startswith("split") and k.endswith("_test_kept")]
        return np.max([np.asarray(cv_results[k], dtype=float) for k in folds], axis=0)

    def __call__(self, cv_results) -> int:
        acc = np.asarray(cv_results["mean_test_accuracy"], dtype=float)
        shares = self.shares(cv_results)
        ok = np.isfinite(acc) & np.isfinite(shares) & (shares <= self.max_kept + 1e-12)
        if not ok.any():
            tried = np.isfinite(acc) & np.isfinite(shares)
            if not tried.any():
                raise KgfsError("every setting of the search failed on the training part")
            i = int(np.flatnonzero(tried)[np.argmin(shares[tried])])
            raise KgfsError(f"no setting keeps at most {self.max_kept:.1%} of the generated features in every inner "
                            f"fold (max_kept={self.max_kept:g}); the fewest: {shares[i]:.1%}, with "
                            f"{json.dumps(cv_results['params'][i], sort_keys=True, default=str)}")
        idx = np.flatnonzero(ok)
        return int(idx[np.argmax(acc[idx])])


@dataclass(frozen=True)
class SplitSettings:
    """How :func:`evaluate_split` tunes and scores (its keywords; the ``split`` protocol's options).

    Parameters
    ----------
    generation : mapping of str -> list, optional
        KGFeatures parameters and the values tuned (default: the dataset's ``generation_grid``; empty: the
        dataset's settings as they are).
    thresholds : sequence of float, optional
        The thresholds tuned for a threshold method (default :data:`THRESHOLDS`).
    inner_splits : int
        Folds of the stratified CV on the training part.
    random_state : int
        Seed of the inner folds.
    confidence : float
        Level of the accuracy's Wilson interval.
    pos_label : optional
        Positive class of AUROC, AUCPR and GM (default: the minority class of the whole dataset).
    n_jobs : int or None
        Workers of each grid search (joblib; the source's answers are shared in one process, so 1 is fastest
        for small graphs).
    max_kept : float, optional
        A budget: only settings whose selector keeps at most this share of the generated features (0 < share
        <= 1) in every inner fold are chosen (see the module).

    Examples
    --------
    >>> SplitSettings(inner_splits=3).thresholds_searched()[-2:]
    (0.99, 1.0)
    """

    generation: Mapping[str, Sequence] | None = None
    thresholds: Sequence[float] | None = None
    inner_splits: int = 5
    random_state: int = 0
    confidence: float = 0.95
    pos_label: object = None
    n_jobs: int | None = 1
    max_kept: float | None = None

    def __post_init__(self):
        if self.max_kept is not None and (isinstance(self.max_kept, bool) or not isinstance(self.max_kept, (int, float))
                                          or not 0 < self.max_kept <= 1):
            raise KgfsError(f"max_kept must be a share of the generated features in (0, 1], e.g. 0.1; got "
                            f"{self.max_kept!r}")

    def thresholds_searched(self) -> tuple:
        """:attr:`thresholds`, or :data:`THRESHOLDS`."""
        return THRESHOLDS if self.thresholds is None else tuple(float(v) for v in self.thresholds)


def _one(data, parts, selector: MethodSpec, classifier: MethodSpec, settings: SplitSettings, pos_label
         ) -> SplitOutcome:
    train, test = parts
    out = SplitOutcome(data.name, selector.label, classifier.label, kind=selector.kind, params=dict(selector.params),
                       n_train=len(train), n_test=len(test), confidence=settings.confidence, pos_label=pos_label)
    X = np.asarray(data.entities, dtype=object)
    y = np.asarray(data.y)
    cv = StratifiedKFold(n_splits=settings.inner_splits, shuffle=True, random_state=settings.random_state)
    try:
        pipe, grid = model_grid(data, selector, classifier, generation=settings.generation,
                                thresholds=settings.thresholds_searched())
        budget = None if settings.max_kept is None else _WithinBudget(float(settings.max_kept))
        if budget is not None:
            out.max_kept = budget.max_kept
        search = GridSearchCV(pipe, grid, cv=cv, scoring="accuracy" if budget is None else
                              {"accuracy": "accuracy", "kept": kept_share}, refit=budget or True,
                              error_score=np.nan, n_jobs=settings.n_jobs)
        t0 = time.perf_counter()
        with warnings.catch_warnings(), threadpool_limits(limits=1, user_api="blas"):
            warnings.simplefilter("ignore", FitFailedWarning)  # a candidate without features loses (NaN)
            warnings.simplefilter("ignore", ConvergenceWarning)
            warnings.filterwarnings("ignore", message="One or more of the test scores are non-finite")
            search.fit(X[train], y[train])
        out.search_seconds = time.perf_counter() - t0
        out.n_candidates = len(search.cv_results_["params"])
        if budget is None:
            out.cv_accuracy = float(search.best_score_)
        else:
            out.cv_accuracy = float(search.cv_results_["mean_test_accuracy"][search.best_index_])
            out.cv_kept = float(budget.shares(search.cv_results_)[search.best_index_])
        if not np.isfinite(out.cv_accuracy):
            raise KgfsError("every setting of the search failed on the training part")
        out.chosen = {k: search.best_params_[k] for k in sorted(search.best_params_)}
        best = search.best_estimator_
        t0 = time.perf_counter()
        X_train = best["kg"].transform(X[train])  # the final model's training table (looked up already)
        out.generation_seconds = time.perf_counter() - t0
        t0 = time.perf_counter()
        X_test = best["kg"].transform(X[test])
        rest = best[1:]
        with threadpool_limits(limits=1, user_api="blas"):
            pred = rest.predict(X_test)
            proba = rest.predict_proba(X_test) if hasattr(rest, "predict_proba") else None
        out.predict_seconds = time.perf_counter() - t0
        out.predictions = np.asarray(pred)
        out.n_features = int(X_train.shape[1])
        (out.selected, out.selected_labels, out.selected_support, out.selected_counts,
         out.n_selected, out.selected_enrichment) = _selected(best, X_train, y[train], X_test, selector.kind)
        labels = np.unique(y)
        out.measures = fold_metrics(y[test], pred, proba, rest.classes_, pos_label=pos_label,
                                    compression=compression(out.n_selected, out.n_features), labels=labels)
        out.accuracy = float(out.measures["accuracy"])
        correct = int(np.sum(np.asarray(pred) == y[test]))
        out.ci_low, out.ci_high = wilson_interval(correct, len(test), settings.confidence)
    except Exception as exc:  # noqa: BLE001 - one failed method must not lose the others' results
        log.warning("split protocol: %s / %s on %s failed: %s", selector.label, classifier.label, data.name, exc)
        out.status, out.error = "failed", f"{type(exc).__name__}: {exc}"
    return out


def evaluate_split(data, selectors, classifiers, settings: SplitSettings | None = None, **options) -> SplitResult:
    """Tune each selector x classifier on the training part of a fixed split, score the test part once (see the module).

    Parameters
    ----------
    data : kg.instances.EntityDataset
        With a split (:func:`kg.datasets.load_instances`, e.g. ``nodeclass/aifb``).
    selectors, classifiers : sequence
        Registry names, ``(name, params)`` pairs, estimators or MethodSpecs (:mod:`selection.evaluation.specs`).
    settings : SplitSettings, optional
    **options
        Fields of :class:`SplitSettings` over ``settings`` (``generation={"min_support": [1, 2]}``,
        ``inner_splits=5``, ...).

    Returns
    -------
    SplitResult

    Raises
    ------
    KgfsError
        The dataset has no split, or a class of the training part has fewer members than ``inner_splits``.
    """
    import dataclasses

    settings = dataclasses.replace(settings or SplitSettings(), **options)
    train, test = data.train_test()
    check_folds(np.asarray(data.y)[train], settings.inner_splits, f"{data.name} (training part)")
    pos = positive_label(np.asarray(data.y), settings.pos_label)
    sels = method_specs(selectors, "selector")
    clfs = method_specs(classifiers, "classifier")
    outcomes = [_one(data, (train, test), s, c, settings, pos) for s in sels for c in clfs]
    return SplitResult(outcomes, settings.inner_splits, settings.random_state)


def split_rows(data, selectors, classifiers, settings: SplitSettings | None = None, **options) -> pd.DataFrame:
    """:func:`evaluate_split` as result rows (:data:`~selection.evaluation.cv.COLUMNS` + :data:`SPLIT_COLUMNS`).

    Parameters
    ----------
    data : kg.instances.EntityDataset
    selectors, classifiers : sequence
    settings : SplitSettings, optional
    **options
        Fields of :class:`SplitSettings`.

    Returns
    -------
    pandas.DataFrame
    """
    return evaluate_split(data, selectors, classifiers, settings, **options).frame()
