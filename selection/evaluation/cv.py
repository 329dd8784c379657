"""Cross-validated evaluation of selectors x classifiers on one :class:`~kg.table.FeatureTable`.

One call, :func:`evaluate_table`, runs a seeded stratified k-fold cross-validation. In every
fold the selector is fitted on the training part only, the classifier is fitted on the selected
columns of the training part and scored on the test part. The result is a tidy
``pandas.DataFrame`` with one row per selector x classifier x fold (columns: :data:`COLUMNS`).

Choices the papers leave open (documented here, tested in ``tests/selection/evaluation/test_cv.py``):

- **Folds**: ``StratifiedKFold(n_splits, shuffle=True, random_state)``; the same seed gives the
  same folds for every selector and classifier, so methods are compared on identical splits.
- **Positive class** (AUROC, AUCPR; sensitivity/specificity in GM): ``pos_label`` if given,
  else the minority class of the whole table (see :mod:`selection.evaluation.metrics`).
- **Eager selectors** (kind ``eager``/``flat``): the selector's ``get_support()`` mask chooses
  the columns. A mask that selects nothing leaves the classifier nothing to learn from; the
  fold is then scored with a prior-only classifier (``DummyClassifier(strategy="prior")``:
  predicts the training majority class), which is what "no features" means, rather than failing.
- **Lazy selectors** (kind ``lazy``) are scored by
  :class:`~selection.lazy.estimator.LazySelectionClassifier`: the selector fitted on the
  training part gives each test instance its mask (``select_for``, a block of rows at a time)
  and the lazy classifier (``make_lazy_classifier``) scores it on that mask; with
  ``lazy_classifiers_for_eager=True`` (the RPV protocol) eager masks go through it too, repeated
  for every instance. Predictions are the most probable class of ``predict_proba``.
  ``n_selected`` is the mean number of features selected per test instance, so ``compression``
  is one minus the mean fraction selected (the RPV paper's Table 10 shows ``100 * (1 - compression)``).
- **Sharing within a fold** (one ``_Fold`` object, dropped with the fold): each lazy classifier
  is fitted once per fold and handed to the estimators frozen, a lazy selector's masks are
  computed once for all classifiers (``SharedSelection``), and a classifier's output on an
  eager mask is kept per distinct mask (a sweep's plateaus, SIG at t=0 and CompleteFS, ...).
- **Scores for AUROC/AUCPR** come from ``predict_proba``; a classifier without it (SVM with
  ``probability=False``) is scored by ``decision_function``.
- **Threshold methods** (registry ``Entry.threshold_grid`` set): ``threshold=None`` uses the
  selector's own default; a number fixes it; ``"best-on-test"`` sweeps the grid and reports, per
  selector and classifier, the threshold with the best mean ``threshold_metric`` over the test
  folds (the SHSEL paper's choice, optimistic because the test folds choose it); ``"nested"``
  (the honest one) chooses the threshold per outer fold by an inner stratified
  ``inner_splits``-fold CV on the training part and then scores it on the outer test part.
  Ties between thresholds go to the higher compression, then to the lower threshold. A sweep
  fits the selector once per fold when it offers ``supports_for_thresholds(thresholds)`` (a
  boolean ``n_thresholds x n_features`` array computed from scores fitted once); otherwise it
  refits with ``set_params(threshold=t)``. Either way the classifier is fitted once per
  *distinct* mask, so plateaus of the sweep cost nothing. ``select_seconds`` of a swept method
  is the time of the whole sweep (including the inner CV for ``nested``): what the user pays.
- **Failures**: a selector or classifier that raises marks its cells ``status="failed"`` with
  the error text, and the evaluation goes on.
"""

from __future__ import annotations

import json
import logging
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.dummy import DummyClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC

from kg.errors import KgfsError
from selection.evaluation.metrics import fold_metrics, positive_label
from selection.lazy.classifiers import make_lazy_classifier
from selection.lazy.estimator import FixedSupport, LazySelectionClassifier, SharedSelection, default_block_size
from selection.registry import Entry, classifier_entry, get_classifier, get_selector, selector_entry

__all__ = ["COLUMNS", "evaluate_table", "choose_best_on_test", "check_folds", "normalize_specs", "spec_label"]

log = logging.getLogger(__name__)

COLUMNS = [
    "dataset", "selector", "params", "classifier", "fold", "n_features", "n_train", "n_test",
    "n_selected", "accuracy", "auroc", "aucpr", "gm", "compression", "harmonic_mean",
    "select_seconds", "classify_seconds", "threshold", "threshold_choice", "kind", "pos_label",
    "status", "error",
]

THRESHOLD_CHOICES = ("best-on-test", "nested")


# ------------------------------------------------------------------ specs
def normalize_specs(specs, what: str) -> list[tuple[str, dict]]:
    """Method specs as ``(name, params)`` pairs.

    Parameters
    ----------
    specs : str, (name, params) or a list of them
        Registry names, optionally with parameters.
    what : str
        ``"selector"`` or ``"classifier"`` (for error messages).

    Returns
    -------
    list of (str, dict)

    Examples
    --------
    >>> normalize_specs(["a", ("b", {"k": 1})], "selector")
    [('a', {}), ('b', {'k': 1})]
    """
    if isinstance(specs, str) or (isinstance(specs, tuple) and len(specs) == 2 and isinstance(specs[1], Mapping)):
        specs = [specs]
    out = []
    for s in specs:
        if isinstance(s, str):
            out.append((s, {}))
        elif isinstance(s, (tuple, list)) and len(s) == 2 and isinstance(s[0], str) and isinstance(s[1], Mapping):
            out.append((s[0], dict(s[1])))
        else:
            raise KgfsError(f"a {what} must be a registry name or a (name, params) pair, got {s!r}")
    if not out:
        raise KgfsError(f"no {what}s given")
    return out


def spec_label(name: str, params: Mapping) -> str:
    """Display name of a method: ``name`` or ``name[k=v,...]`` when parameters are given.

    Parameters
    ----------
    name : str
        Registry name.
    params : mapping
        The parameters the user gave.

    Returns
    -------
    str

    Examples
    --------
    >>> spec_label("shsel-ig-prune", {"threshold": 0.5})
    'shsel-ig-prune[threshold=0.5]'
    """
    if not params:
        return name
    return name + "[" + ",".join(f"{k}={params[k]}" for k in sorted(params)) + "]"


def _params_json(params: Mapping) -> str:
    return json.dumps(params, sort_keys=True, default=str)


def check_folds(y, n_splits: int, dataset: str = "") -> None:
    """Raise a :class:`KgfsError` unless every class has at least ``n_splits`` members.

    Parameters
    ----------
    y : array-like or None
        Class labels of the table.
    n_splits : int
        Folds of the stratified cross-validation.
    dataset : str
        Name used in the error message.

    Returns
    -------
    None

    Examples
    --------
    >>> check_folds([0, 0, 1, 1], 2)
    >>> check_folds([0, 0, 1], 2, "toy")
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: dataset 'toy': class 1 has 1 member(s), fewer than the 2 folds of the stratified cross-validation; drop the class
    """
    if y is None:
        raise KgfsError(f"dataset {dataset!r} has no class labels; evaluation needs y")
    labels, counts = np.unique(np.asarray(y), return_counts=True)
    if len(labels) < 2:
        raise KgfsError(f"dataset {dataset!r} has a single class ({labels.tolist()[0]!r}); evaluation needs two or "
                        "more")
    if n_splits < 2:
        raise KgfsError(f"n_splits must be at least 2 (--n-splits), got {n_splits}")
    small = [(lab, int(c)) for lab, c in zip(labels.tolist(), counts) if c < n_splits]
    if small:
        desc = ", ".join(f"{lab!r} has {c}" for lab, c in small)
        least = min(c for _, c in small)
        raise KgfsError(
            f"dataset {dataset!r}: class {desc} member(s), fewer than the {n_splits} folds of the "
            "stratified cross-validation; " + (f"use --n-splits {least} or fewer" if least >= 2 else "drop the class")
        )


# ------------------------------------------------------------------ classifiers
class _GramSVC:
    """An ``SVC`` with a polynomial or linear kernel, fitted on its Gram matrix.

    libsvm evaluates kernels on sparse rows slowly (a 900 x 1,000 table at 50% density took
    30 s per fit here); the Gram matrix ``X X^T`` is one sparse product (instances x instances,
    never instances x features dense), and ``SVC(kernel="precomputed")`` on
    ``(gamma <x, x'> + coef0) ** degree`` is the same model (same dual problem, same
    predictions; checked in the tests).
    """

    def __init__(self, svc):
        self.svc = svc

    def _gamma(self, X):
        g = self.svc.gamma
        n, m = X.shape
        if g == "scale":
            mean = X.sum() / (n * m)
            var = X.multiply(X).sum() / (n * m) - mean * mean
            return 1.0 / (m * var) if var > 0 else 1.0
        if g == "auto":
            return 1.0 / m
        return float(g)

    def _kernel(self, A):
        dot = (A @ self._Xt.T)
        dot = dot.toarray() if sp.issparse(dot) else np.asarray(dot)
        if self.svc.kernel == "linear":
            return dot
        return (self.gamma_ * dot + self.svc.coef0) ** self.svc.degree

    def fit(self, X, y):
        X = sp.csr_matrix(X)
        self._Xt = X
        self.gamma_ = self._gamma(X)
        self.model_ = clone(self.svc).set_params(kernel="precomputed")
        self.model_.fit(self._kernel(X), y)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        return self.model_.predict(self._kernel(sp.csr_matrix(X)))

    def decision_function(self, X):
        return self.model_.decision_function(self._kernel(sp.csr_matrix(X)))


def _scores(clf, X):
    """Class scores: ``predict_proba`` if the classifier has it, else ``decision_function``."""
    try:
        return clf.predict_proba(X)
    except (AttributeError, NotImplementedError):
        pass
    if hasattr(clf, "decision_function"):
        return clf.decision_function(X)
    return None


def _eager_classify(cname, cparams, X_tr, y_tr, X_te, mask):
    idx = np.flatnonzero(mask)
    if len(idx) == 0:  # no features: the training class priors
        prior = DummyClassifier(strategy="prior").fit(np.zeros((len(y_tr), 1)), y_tr)
        none = np.zeros((X_te.shape[0], 1))
        return prior.predict(none), prior.predict_proba(none), prior.classes_
    Xs_tr, Xs_te = X_tr[:, idx], X_te[:, idx]
    with warnings.catch_warnings():
        # scikit-learn 1.9 deprecates SVC's `probability` argument, which the registry's `svm` passes
        warnings.filterwarnings("ignore", message="The `probability` parameter was deprecated", category=FutureWarning)
        clf = get_classifier(cname, **cparams)
        if isinstance(clf, SVC) and clf.kernel in ("poly", "linear") and not clf.probability:
            clf = _GramSVC(clf)
        clf.fit(Xs_tr, y_tr)
    return clf.predict(Xs_te), _scores(clf, Xs_te), clf.classes_


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:2000]


# ------------------------------------------------------------------ one run, one fold
@dataclass(frozen=True)
class _Run:
    """What every fold of one :func:`evaluate_table` call shares."""

    dataset: str
    hierarchy: object
    clf_specs: list
    pos: object
    labels: np.ndarray
    n_features: int
    multiclass: str
    use_lazy: bool  # eager masks scored by the lazy classifiers too (the RPV protocol)
    threshold: object  # None, a number, "best-on-test" or "nested"
    thresholds: Sequence | None
    metric: str
    inner_splits: int
    random_state: int


@dataclass(frozen=True)
class _Method:
    """One selector spec resolved against the registry."""

    name: str
    entry: Entry
    params: dict  # what the selector is built with (registry defaults included)
    user_params: dict  # what the user gave (names the method)
    label: str


# the columns of a row that the measures fill in
_BLANK_ROW = {**dict.fromkeys(["n_selected", "accuracy", "auroc", "aucpr", "gm", "compression", "harmonic_mean",
                               "select_seconds", "classify_seconds", "threshold"], np.nan),
              "threshold_choice": "", "status": "ok", "error": ""}


class _Fold:
    """One train/test split, its row and score helpers, and what its selectors share.

    Every selector of the fold has the same training part: each lazy classifier is fitted once
    (:meth:`lazy_classifier`) and a classifier's output on an eager mask is kept per distinct
    mask (:meth:`evaluate_mask`). Nothing outlives the object; nested CV builds one per inner split.
    """

    def __init__(self, run: _Run, index: int, X_tr, y_tr, X_te, y_te):
        self.run, self.index = run, index
        self.X_tr, self.y_tr, self.X_te, self.y_te = X_tr, y_tr, X_te, y_te
        self.block_rows = default_block_size(run.n_features, X_tr.shape[0])
        self._lazy: dict[tuple, object] = {}
        self._scored: dict[tuple, tuple] = {}
        self._base = {"dataset": run.dataset, "fold": index, "n_features": run.n_features,
                      "n_train": X_tr.shape[0], "n_test": X_te.shape[0], "pos_label": str(run.pos)}

    def inner(self, itr, iva) -> _Fold:
        """The fold of an inner split of this fold's training part."""
        return _Fold(self.run, self.index, self.X_tr[itr], self.y_tr[itr], self.X_tr[iva], self.y_tr[iva])

    def row(self, method: _Method, cname: str, **kw) -> dict:
        return {**self._base, **_BLANK_ROW, "selector": method.label, "params": _params_json(method.user_params),
                "classifier": cname, "kind": method.entry.kind, **kw}

    def failed(self, method: _Method, exc: BaseException, **kw) -> list[dict]:
        """One failed row per classifier."""
        return [self.row(method, c, status="failed", error=_error_text(exc), **kw) for c, _ in self.run.clf_specs]

    def score(self, pred, proba, classes, n_selected) -> dict:
        r = self.run
        return fold_metrics(self.y_te, pred, proba, classes, pos_label=r.pos, n_selected=n_selected,
                            n_features=r.n_features, labels=r.labels, multiclass=r.multiclass)

    def lazy_classifier(self, cname: str, cparams: Mapping):
        """The lazy classifier ``cname`` fitted on the training part (once per fold)."""
        key = (cname, _params_json(cparams))
        if key not in self._lazy:
            self._lazy[key] = make_lazy_classifier(cname, **cparams).fit(self.X_tr, self.y_tr)
        return self._lazy[key]

    def lazy_scores(self, selector, cname: str, cparams: Mapping):
        """``(pred, proba, classes)`` of :class:`LazySelectionClassifier` on the test part."""
        model = LazySelectionClassifier(selector=selector, block_size=self.block_rows,
                                        classifier=FrozenEstimator(self.lazy_classifier(cname, cparams)))
        proba = model.fit(self.X_tr, self.y_tr).predict_proba(self.X_te)
        return model.classes_[np.argmax(proba, axis=1)], proba, model.classes_

    def evaluate_mask(self, cname: str, cparams: Mapping, mask: np.ndarray) -> tuple[dict, float]:
        """Metrics of ``cname`` on the columns of an eager ``mask``, and the seconds it took."""
        key = (cname, _params_json(cparams), np.packbits(mask).tobytes())
        if key not in self._scored:
            t0 = time.perf_counter()
            if self.run.use_lazy:  # the same mask for every test instance
                pred, proba, classes = self.lazy_scores(FixedSupport(mask), cname, cparams)
            else:
                pred, proba, classes = _eager_classify(cname, cparams, self.X_tr, self.y_tr, self.X_te, mask)
            self._scored[key] = (self.score(pred, proba, classes, int(mask.sum())), time.perf_counter() - t0)
        return self._scored[key]


def _folds(run: _Run, X, y, n_splits: int, folds) -> Iterable[_Fold]:
    wanted = None if folds is None else {int(f) for f in folds}
    splitter = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=run.random_state)
    for k, (tr, te) in enumerate(splitter.split(np.zeros(len(y)), y)):
        if wanted is None or k in wanted:
            yield _Fold(run, k, X[tr], y[tr], X[te], y[te])


# ------------------------------------------------------------------ threshold sweep
def _sweep_masks(name, params, hierarchy, X, y, grid) -> np.ndarray:
    """Boolean masks (len(grid) x n_features), one per threshold, fitted on ``(X, y)``.

    Cheap when the selector offers ``supports_for_thresholds`` (scores fitted once, only the
    cut varies; SHSEL, SIG/SC; checked against refits in their tests); otherwise a refit per
    threshold.
    """
    sel = get_selector(name, hierarchy, **params)
    grid = np.asarray(grid, dtype=float)
    if hasattr(sel, "supports_for_thresholds"):
        sel.fit(X, y)
        masks = np.asarray(sel.supports_for_thresholds(grid), dtype=bool)
        if masks.shape != (len(grid), X.shape[1]):
            raise ValueError(f"supports_for_thresholds returned shape {masks.shape}, "
                             f"expected {(len(grid), X.shape[1])}")
        return masks
    out = np.zeros((len(grid), X.shape[1]), dtype=bool)
    for i, t in enumerate(grid):
        sel.set_params(threshold=float(t))
        sel.fit(X, y)
        out[i] = np.asarray(sel.get_support(), dtype=bool)
    return out


def _pick(values: np.ndarray, compressions: np.ndarray, grid: np.ndarray) -> int:
    """Index of the best threshold: max value, then max compression, then lowest threshold."""
    v = np.where(np.isnan(values), -np.inf, values)
    c = np.where(np.isnan(compressions), -np.inf, compressions)
    order = np.lexsort((grid, -c, -v))  # last key is primary
    return int(order[0])


def choose_best_on_test(sweep: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    """From sweep rows (every threshold x fold), keep the threshold with the best mean ``metric``.

    Chosen per dataset x selector x params x classifier, over all folds at once (optimistic:
    the test folds choose). Rows of methods without a sweep pass through unchanged.

    Parameters
    ----------
    sweep : pandas.DataFrame
        Rows with the columns :data:`COLUMNS`, e.g. ``evaluate_table(..., keep_sweep=True)``.
    metric : str
        The column maximised (ties: higher compression, then lower threshold).

    Returns
    -------
    pandas.DataFrame
        One row per dataset x selector x classifier x fold.

    Examples
    --------
    >>> rows = pd.DataFrame({"dataset": "d", "selector": "s", "params": "{}", "classifier": "nb",
    ...                      "fold": [0, 0, 1, 1], "threshold": [0.5, 0.9, 0.5, 0.9],
    ...                      "accuracy": [0.7, 0.8, 0.7, 0.9], "compression": 0.5,
    ...                      "threshold_choice": "best-on-test", "status": "ok"})
    >>> choose_best_on_test(rows)["threshold"].tolist()
    [0.9, 0.9]
    """
    if sweep.empty:
        return sweep
    keys = ["dataset", "selector", "params", "classifier"]
    is_sweep = sweep["threshold_choice"].eq("best-on-test")
    out = [sweep[~is_sweep]]
    sw = sweep[is_sweep]
    for _, g in sw.groupby(keys, sort=False, dropna=False):
        ok = g[g["status"] == "ok"]
        if ok.empty:
            out.append(g.drop_duplicates("fold"))
            continue
        m = ok.groupby("threshold")[[metric, "compression"]].mean()
        grid = m.index.to_numpy(dtype=float)
        best = grid[_pick(m[metric].to_numpy(), m["compression"].to_numpy(), grid)]
        chosen = g[np.isclose(g["threshold"].astype(float), best) | (g["status"] != "ok")]
        out.append(chosen.drop_duplicates("fold"))
    res = pd.concat(out, ignore_index=True)
    return res.sort_values(["dataset", "selector", "classifier", "fold"], kind="stable").reset_index(drop=True)


# ------------------------------------------------------------------ main entry point
def evaluate_table(
    table,
    selectors,
    classifiers,
    *,
    dataset: str,
    n_splits: int = 10,
    random_state: int = 0,
    selector_params: Mapping[str, Mapping] | None = None,
    threshold=None,
    thresholds: Sequence[float] | None = None,
    threshold_metric: str = "accuracy",
    inner_splits: int = 5,
    pos_label=None,
    folds: Iterable[int] | None = None,
    lazy_classifiers_for_eager: bool = False,
    keep_sweep: bool = False,
    multiclass_average: str = "macro",
) -> pd.DataFrame:
    """Cross-validate ``selectors`` x ``classifiers`` on ``table``.

    Parameters
    ----------
    table : kg.table.FeatureTable
        Binary table with labels ``y``; its hierarchy is given to every selector.
    selectors, classifiers : list of str or (name, params)
        Registry names (:mod:`selection.registry`), optionally with parameters.
    dataset : str
        Name written in the ``dataset`` column.
    n_splits, random_state : int
        Stratified k-fold with shuffling, seeded.
    selector_params : dict, optional
        Extra parameters per selector name (merged under those of a ``(name, params)`` spec).
    threshold : None, float, "best-on-test" or "nested"
        Threshold handling for methods with a ``threshold_grid`` (see the module docstring).
    thresholds : sequence of float, optional
        The sweep grid (default: the registry entry's ``threshold_grid``).
    threshold_metric : str
        Column maximised when choosing a threshold (default ``accuracy``, as the SHSEL paper).
    inner_splits : int
        Inner folds of ``threshold="nested"`` (reduced to the smallest class count of the
        training part if needed).
    pos_label : optional
        Positive class for AUROC/AUCPR (default: the minority class of ``table.y``).
    folds : iterable of int, optional
        Only these fold indices (0-based) -- the grid runs one fold per task.
    lazy_classifiers_for_eager : bool
        Score eager selectors with the lazy classifiers too (``make_lazy_classifier``, through
        :class:`~selection.lazy.estimator.LazySelectionClassifier`: the eager mask repeated for
        every test instance), so eager and lazy methods share one classifier implementation
        (the RPV protocol).
    keep_sweep : bool
        With ``threshold="best-on-test"``, return every threshold's rows (before the choice);
        :func:`choose_best_on_test` makes the choice later (the grid does this across folds).
    multiclass_average : {"macro", "weighted"}
        How GM, AUROC and AUCPR average over classes when there are more than two (see
        :mod:`selection.evaluation.metrics`; ``weighted`` is WEKA's weighted average).

    Returns
    -------
    pandas.DataFrame with the columns :data:`COLUMNS`, one row per selector x classifier x fold.

    Examples
    --------
    >>> from kg.hierarchy import FeatureHierarchy
    >>> from kg.table import FeatureTable
    >>> h = FeatureHierarchy.from_edges([("b", "a")], nodes=["a", "b", "c"])
    >>> facts = {f"i{i}": (["b"] if i % 2 else ["c"]) for i in range(20)}
    >>> t = FeatureTable.from_facts(facts, h, labels={f"i{i}": i % 2 for i in range(20)})
    >>> df = evaluate_table(t, ["complete"], ["nb"], dataset="toy", n_splits=5)
    >>> len(df), df["accuracy"].tolist()[:2], int(df["n_selected"].iloc[0])
    (5, [1.0, 1.0], 3)
    """
    if threshold is not None and not isinstance(threshold, (int, float)) and threshold not in THRESHOLD_CHOICES:
        raise KgfsError(f"threshold must be a number, None, or one of {THRESHOLD_CHOICES}, got {threshold!r}")
    if multiclass_average not in ("macro", "weighted"):
        raise KgfsError(f"multiclass_average must be 'macro' or 'weighted', got {multiclass_average!r}")
    clf_specs = normalize_specs(classifiers, "classifier")
    methods = _methods(selectors, selector_params, threshold)  # every name resolved before any work
    for cname, _ in clf_specs:
        classifier_entry(cname)
    y = None if table.y is None else np.asarray(table.y)
    check_folds(y, n_splits, dataset)
    X = sp.csr_matrix(table.X)
    run = _Run(dataset=dataset, hierarchy=table.hierarchy, clf_specs=clf_specs, pos=positive_label(y, pos_label),
               labels=np.unique(y), n_features=X.shape[1], multiclass=multiclass_average,
               use_lazy=bool(lazy_classifiers_for_eager), threshold=threshold, thresholds=thresholds,
               metric=threshold_metric, inner_splits=inner_splits, random_state=random_state)
    rows = [r for fold in _folds(run, X, y, n_splits, folds) for method in methods for r in _run_method(fold, method)]
    df = pd.DataFrame(rows, columns=COLUMNS)
    if threshold == "best-on-test" and not keep_sweep:
        df = choose_best_on_test(df, threshold_metric)
    return df


def _methods(selectors, selector_params, threshold) -> list[_Method]:
    """The selector specs resolved against the registry, with their parameters merged."""
    extra = {k: dict(v) for k, v in (selector_params or {}).items()}
    out = []
    for name, sparams in normalize_specs(selectors, "selector"):
        entry = selector_entry(name)
        user_params = {**extra.get(name, {}), **sparams}
        params = dict(user_params)
        if entry.threshold_grid is not None:  # the preset threshold: the nested choice's fallback
            params.setdefault("threshold", entry.estimator().get_params()["threshold"])
        if entry.threshold_grid is not None and isinstance(threshold, (int, float)) and not isinstance(threshold, bool):
            params["threshold"] = float(threshold)
        out.append(_Method(name, entry, params, user_params, spec_label(name, user_params)))
    return out


def _run_method(fold: _Fold, method: _Method) -> list[dict]:
    if method.entry.kind == "lazy":
        return _run_lazy(fold, method)
    if method.entry.threshold_grid is not None and isinstance(fold.run.threshold, str):
        grid = fold.run.thresholds if fold.run.thresholds is not None else method.entry.threshold_grid
        return _run_sweep(fold, method, np.asarray(grid, dtype=float))
    return _run_eager(fold, method)


def _run_eager(fold: _Fold, method: _Method) -> list[dict]:
    entry, params = method.entry, method.params
    thr = params.get("threshold", np.nan) if entry.threshold_grid is not None else np.nan
    t0 = time.perf_counter()
    try:
        sel = get_selector(method.name, fold.run.hierarchy, **params)
        sel.fit(fold.X_tr, fold.y_tr)
        mask = np.asarray(sel.get_support(), dtype=bool)
        if entry.threshold_grid is not None and "threshold" not in params:
            thr = getattr(sel, "threshold", np.nan)
    except Exception as exc:  # noqa: BLE001 - a failing selector must not stop the grid
        log.warning("selector %s failed: %s", method.label, exc)
        return fold.failed(method, exc, threshold=thr)
    secs = time.perf_counter() - t0
    t = fold.run.threshold
    choice = "" if entry.threshold_grid is None else (t if isinstance(t, str) else ("" if t is None else "fixed"))
    out = []
    for cname, cparams in fold.run.clf_specs:
        try:
            m, csecs = fold.evaluate_mask(cname, cparams, mask)
            out.append(fold.row(method, cname, n_selected=int(mask.sum()), select_seconds=secs,
                                classify_seconds=csecs, threshold=thr, threshold_choice=choice, **m))
        except Exception as exc:  # noqa: BLE001
            log.warning("classifier %s after %s failed: %s", cname, method.label, exc)
            out.append(fold.row(method, cname, status="failed", error=_error_text(exc),
                                n_selected=int(mask.sum()), select_seconds=secs, threshold=thr))
    return out


def _run_lazy(fold: _Fold, method: _Method) -> list[dict]:
    t0 = time.perf_counter()
    try:
        sel = get_selector(method.name, fold.run.hierarchy, **method.params)
        sel.fit(fold.X_tr, fold.y_tr)
        shared = SharedSelection(sel)
        n_sel = shared.mean_selected(fold.X_te, fold.block_rows)
    except Exception as exc:  # noqa: BLE001
        log.warning("lazy selector %s failed: %s", method.label, exc)
        return fold.failed(method, exc)
    secs = time.perf_counter() - t0
    out = []
    for cname, cparams in fold.run.clf_specs:
        try:
            t1 = time.perf_counter()
            m = fold.score(*fold.lazy_scores(shared, cname, cparams), n_sel)
            out.append(fold.row(method, cname, n_selected=n_sel, select_seconds=secs,
                                classify_seconds=time.perf_counter() - t1, **m))
        except Exception as exc:  # noqa: BLE001
            log.warning("lazy classifier %s after %s failed: %s", cname, method.label, exc)
            out.append(fold.row(method, cname, status="failed", error=_error_text(exc), n_selected=n_sel,
                                select_seconds=secs))
    return out


def _run_sweep(fold: _Fold, method: _Method, grid: np.ndarray) -> list[dict]:
    """A threshold method under ``best-on-test`` (every threshold scored on the test part; the
    choice comes after all folds) or ``nested`` (the threshold an inner CV chose, per classifier)."""
    choice = fold.run.threshold
    t0 = time.perf_counter()
    try:
        chosen = _nested_choice(fold, method, grid) if choice == "nested" else None
        masks = _sweep_masks(method.name, method.params, fold.run.hierarchy, fold.X_tr, fold.y_tr, grid)
    except Exception as exc:  # noqa: BLE001
        log.warning("threshold sweep of %s failed: %s", method.label, exc)
        return fold.failed(method, exc, threshold_choice=choice)
    secs = time.perf_counter() - t0
    if chosen is None:
        picks = [(cname, cparams, i) for cname, cparams in fold.run.clf_specs for i in range(len(grid))]
    else:  # the inner CV's choice per classifier; without one the default threshold, else the last
        picks = []
        for cname, cparams in fold.run.clf_specs:
            t = chosen.get(cname, method.params.get("threshold"))
            picks.append((cname, cparams, int(np.argmin(np.abs(grid - float(grid[-1] if t is None else t))))))
    out = []
    for cname, cparams, i in picks:
        mask = masks[i]
        try:
            m, csecs = fold.evaluate_mask(cname, cparams, mask)
            out.append(fold.row(method, cname, n_selected=int(mask.sum()), select_seconds=secs,
                                classify_seconds=csecs, threshold=float(grid[i]), threshold_choice=choice, **m))
        except Exception as exc:  # noqa: BLE001
            out.append(fold.row(method, cname, status="failed", error=_error_text(exc), threshold=float(grid[i]),
                                threshold_choice=choice))
    return out


def _nested_choice(fold: _Fold, method: _Method, grid: np.ndarray) -> dict[str, float]:
    """Per classifier name, the threshold an inner stratified CV of the training part chooses
    (best mean ``metric``, then compression); empty when the training part is too small."""
    run, y_tr = fold.run, fold.y_tr
    min_count = int(np.unique(y_tr, return_counts=True)[1].min())
    k_inner = min(run.inner_splits, min_count)
    if k_inner < 2:
        log.warning("%s: no inner CV possible (smallest class has %d training instances); "
                    "using the default threshold", method.label, min_count)
        return {}
    inner = StratifiedKFold(n_splits=k_inner, shuffle=True, random_state=run.random_state + fold.index)
    value = {c: np.zeros(len(grid)) for c, _ in run.clf_specs}
    comp = {c: np.zeros(len(grid)) for c, _ in run.clf_specs}
    for itr, iva in inner.split(np.zeros(len(y_tr)), y_tr):
        sub = fold.inner(itr, iva)
        masks = _sweep_masks(method.name, method.params, run.hierarchy, sub.X_tr, sub.y_tr, grid)
        for cname, cparams in run.clf_specs:
            per_t = [sub.evaluate_mask(cname, cparams, mask)[0] for mask in masks]
            value[cname] += np.array([d[run.metric] for d in per_t]) / k_inner
            comp[cname] += np.array([d["compression"] for d in per_t]) / k_inner
    return {c: float(grid[_pick(value[c], comp[c], grid)]) for c, _ in run.clf_specs}
