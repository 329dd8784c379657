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
- **Lazy selectors** (kind ``lazy``): fitted on the training part, then ``select_for(X_test)``
  gives one mask per test instance; the classifier comes from
  ``selection.lazy.selectors.make_lazy_classifier(name)`` and predicts with that mask. ``n_selected`` is
  the mean number of features selected per test instance, so ``compression`` is one minus the
  mean fraction selected per instance (the RPV paper's Table 10 reports ``100 * (1 - compression)``).
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

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.dummy import DummyClassifier
from sklearn.svm import SVC
from sklearn.model_selection import StratifiedKFold

from kg.errors import KgfsError
from selection.evaluation.metrics import fold_metrics, positive_label
from selection.registry import classifier_entry, get_classifier, get_selector, selector_entry

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
    """``["a", ("b", {"k": 1})]`` -> ``[("a", {}), ("b", {"k": 1})]``."""
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
    """Display name of a method: ``name`` or ``name[k=v,...]`` when parameters are given."""
    if not params:
        return name
    return name + "[" + ",".join(f"{k}={params[k]}" for k in sorted(params)) + "]"


def _params_json(params: Mapping) -> str:
    return json.dumps(params, sort_keys=True, default=str)


def check_folds(y, n_splits: int, dataset: str = "") -> None:
    """Raise a :class:`KgfsError` unless every class has at least ``n_splits`` members."""
    if y is None:
        raise KgfsError(f"dataset {dataset!r} has no class labels; evaluation needs y")
    labels, counts = np.unique(np.asarray(y), return_counts=True)
    if len(labels) < 2:
        raise KgfsError(f"dataset {dataset!r} has a single class ({labels[0]!r}); evaluation needs two or more")
    if n_splits < 2:
        raise KgfsError(f"n_splits must be at least 2, got {n_splits}")
    small = [(lab, int(c)) for lab, c in zip(labels.tolist(), counts) if c < n_splits]
    if small:
        desc = ", ".join(f"{lab!r} has {c}" for lab, c in small)
        raise KgfsError(
            f"dataset {dataset!r}: class {desc} member(s), fewer than the {n_splits} folds of the "
            f"stratified cross-validation; use fewer folds or drop the class"
        )


# ------------------------------------------------------------------ classifiers
class _PriorOnly:
    """Classifier for an empty feature subset: the training class priors."""

    def __init__(self):
        self._d = DummyClassifier(strategy="prior")

    def fit(self, X, y):
        self._d.fit(np.zeros((len(y), 1)), y)
        self.classes_ = self._d.classes_
        return self

    def predict(self, X):
        return self._d.predict(np.zeros((X.shape[0], 1)))

    def predict_proba(self, X):
        return self._d.predict_proba(np.zeros((X.shape[0], 1)))


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
    if len(idx) == 0:
        clf = _PriorOnly().fit(X_tr, y_tr)
        return clf.predict(X_te), clf.predict_proba(X_te), clf.classes_
    Xs_tr, Xs_te = X_tr[:, idx], X_te[:, idx]
    with warnings.catch_warnings():
        # scikit-learn 1.9 deprecates SVC's `probability` argument, which the registry's `svm` passes
        warnings.filterwarnings("ignore", message="The `probability` parameter was deprecated", category=FutureWarning)
        clf = get_classifier(cname, **cparams)
        if isinstance(clf, SVC) and clf.kernel in ("poly", "linear") and not clf.probability:
            clf = _GramSVC(clf)
        clf.fit(Xs_tr, y_tr)
    return clf.predict(Xs_te), _scores(clf, Xs_te), clf.classes_


# A lazy classifier's fit depends only on the training part, and every selector of a fold shares
# it: keep the last fitted one per (name, params), valid while the very same arrays are passed.
_LAZY_FITTED: dict[tuple, tuple] = {}


def _lazy_classify(cname, cparams, X_tr, y_tr, X_te, mask):
    from selection.lazy.classifiers import make_lazy_classifier

    key = (cname, _params_json(cparams))
    hit = _LAZY_FITTED.get(key)
    if hit is not None and hit[0] is X_tr and hit[1] is y_tr:
        clf = hit[2]
    else:
        clf = make_lazy_classifier(cname, **cparams)
        clf.fit(X_tr, y_tr)
        _LAZY_FITTED[key] = (X_tr, y_tr, clf)
    pred = clf.predict(X_te, mask)
    proba = clf.predict_proba(X_te, mask)
    classes = getattr(clf, "classes_", None)
    if classes is None:
        classes = np.unique(y_tr)
    return pred, proba, classes


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:2000]


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


def _mask_key(mask: np.ndarray) -> bytes:
    return np.packbits(mask).tobytes()


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
        Score eager selectors with ``selection.lazy.selectors.make_lazy_classifier`` too (the eager mask
        repeated for every test instance), so eager and lazy methods share one classifier
        implementation (the RPV protocol).
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
    sel_specs = normalize_specs(selectors, "selector")
    clf_specs = normalize_specs(classifiers, "classifier")
    selector_params = {k: dict(v) for k, v in (selector_params or {}).items()}
    if threshold is not None and not isinstance(threshold, (int, float)) and threshold not in THRESHOLD_CHOICES:
        raise KgfsError(f"threshold must be a number, None, or one of {THRESHOLD_CHOICES}, got {threshold!r}")
    # resolve every name before any work, so a typo fails at once
    entries = {name: selector_entry(name) for name, _ in sel_specs}
    for cname, _ in clf_specs:
        classifier_entry(cname)
    y = None if table.y is None else np.asarray(table.y)
    check_folds(y, n_splits, dataset)
    if any(e.kind == "lazy" for e in entries.values()) or lazy_classifiers_for_eager:
        try:
            import selection.lazy.selectors  # noqa: F401
        except ImportError as exc:
            raise KgfsError(f"lazy evaluation needs selection.lazy.selectors, which cannot be imported: {exc}") from exc

    if multiclass_average not in ("macro", "weighted"):
        raise KgfsError(f"multiclass_average must be 'macro' or 'weighted', got {multiclass_average!r}")
    pos = positive_label(y, pos_label)
    labels = np.unique(y)
    X = sp.csr_matrix(table.X)
    n_features = X.shape[1]
    hierarchy = table.hierarchy
    splitter = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)
    wanted = None if folds is None else set(int(f) for f in folds)
    choice_label = threshold if isinstance(threshold, str) else ("fixed" if threshold is not None else "")

    rows: list[dict] = []
    for fold, (tr, te) in enumerate(splitter.split(np.zeros(len(y)), y)):
        if wanted is not None and fold not in wanted:
            continue
        X_tr, X_te, y_tr, y_te = X[tr], X[te], y[tr], y[te]
        base = {"dataset": dataset, "fold": fold, "n_features": n_features, "n_train": len(tr),
                "n_test": len(te), "pos_label": str(pos)}

        def row(sel_label, params, cname, kind, **kw):
            r = {**base, "selector": sel_label, "params": _params_json(params), "classifier": cname,
                 "kind": kind, "n_selected": np.nan, "accuracy": np.nan, "auroc": np.nan, "aucpr": np.nan,
                 "gm": np.nan, "compression": np.nan, "harmonic_mean": np.nan, "select_seconds": np.nan,
                 "classify_seconds": np.nan, "threshold": np.nan, "threshold_choice": "",
                 "status": "ok", "error": ""}
            r.update(kw)
            return r

        def score(pred, proba, classes, n_sel):
            return fold_metrics(y_te, pred, proba, classes, pos_label=pos, n_selected=n_sel,
                                n_features=n_features, labels=labels, multiclass=multiclass_average)

        for sname, sparams in sel_specs:
            entry = entries[sname]
            params = {**entry.defaults, **selector_params.get(sname, {}), **sparams}
            user_params = {**selector_params.get(sname, {}), **sparams}
            label = spec_label(sname, user_params)
            swept = entry.threshold_grid is not None and isinstance(threshold, str)
            if entry.threshold_grid is not None and isinstance(threshold, (int, float)) and not isinstance(threshold, bool):
                params["threshold"] = float(threshold)
            if entry.kind == "lazy":
                rows.extend(_run_lazy(sname, label, params, user_params, entry, clf_specs, hierarchy,
                                      X_tr, y_tr, X_te, row, score))
            elif swept:
                grid = np.asarray(thresholds if thresholds is not None else entry.threshold_grid, dtype=float)
                rows.extend(_run_sweep(sname, label, params, user_params, clf_specs, hierarchy, X_tr, y_tr, X_te,
                                       grid, threshold, threshold_metric, inner_splits, random_state + fold,
                                       row, score, lazy_classifiers_for_eager, labels, pos, n_features,
                                       multiclass_average))
            else:
                rows.extend(_run_eager(sname, label, params, user_params, entry, clf_specs, hierarchy,
                                       X_tr, y_tr, X_te, row, score, lazy_classifiers_for_eager, choice_label))
    _LAZY_FITTED.clear()  # drop references to this table's folds
    _CLS_CACHE.update({"X_tr": None, "X_te": None, "rows": {}})
    df = pd.DataFrame(rows, columns=COLUMNS)
    if threshold == "best-on-test" and not keep_sweep:
        df = choose_best_on_test(df, threshold_metric)
    return df


# Within one fold, selectors often choose the same columns (a sweep's plateaus, SIG at t=0 and
# CompleteFS, ...): the classifier's output for a (classifier, mask) pair is kept while the
# very same training and test arrays are passed, and reused.
_CLS_CACHE: dict = {"X_tr": None, "X_te": None, "rows": {}}


def _classify(cname, cparams, X_tr, y_tr, X_te, mask, use_lazy):
    c = _CLS_CACHE
    if c["X_tr"] is not X_tr or c["X_te"] is not X_te:
        c["X_tr"], c["X_te"], c["rows"] = X_tr, X_te, {}
    key = (cname, _params_json(cparams), bool(use_lazy), _mask_key(np.asarray(mask, dtype=bool)))
    if key not in c["rows"]:
        c["rows"][key] = _classify_uncached(cname, cparams, X_tr, y_tr, X_te, mask, use_lazy)
    return c["rows"][key]


def _classify_uncached(cname, cparams, X_tr, y_tr, X_te, mask, use_lazy):
    t0 = time.perf_counter()
    if use_lazy:
        # the same mask for every test instance (the lazy classifiers take a 1-D mask as that)
        pred, proba, classes = _lazy_classify(cname, cparams, X_tr, y_tr, X_te, np.asarray(mask, dtype=bool))
    else:
        pred, proba, classes = _eager_classify(cname, cparams, X_tr, y_tr, X_te, mask)
    return pred, proba, classes, time.perf_counter() - t0


def _run_eager(sname, label, params, user_params, entry, clf_specs, hierarchy, X_tr, y_tr, X_te, row, score,
               use_lazy, choice_label):
    out = []
    thr = params.get("threshold", np.nan) if entry.threshold_grid is not None else np.nan
    t0 = time.perf_counter()
    try:
        sel = get_selector(sname, hierarchy, **params)
        sel.fit(X_tr, y_tr)
        mask = np.asarray(sel.get_support(), dtype=bool)
        if entry.threshold_grid is not None and "threshold" not in params:
            thr = getattr(sel, "threshold", np.nan)
    except Exception as exc:  # noqa: BLE001 - a failing selector must not stop the grid
        log.warning("selector %s failed: %s", label, exc)
        err = _error_text(exc)
        return [row(label, user_params, c, entry.kind, status="failed", error=err, threshold=thr)
                for c, _ in clf_specs]
    secs = time.perf_counter() - t0
    for cname, cparams in clf_specs:
        try:
            pred, proba, classes, csecs = _classify(cname, cparams, X_tr, y_tr, X_te, mask, use_lazy)
            m = score(pred, proba, classes, int(mask.sum()))
            out.append(row(label, user_params, cname, entry.kind, n_selected=int(mask.sum()), select_seconds=secs,
                           classify_seconds=csecs, threshold=thr,
                           threshold_choice=choice_label if entry.threshold_grid is not None else "", **m))
        except Exception as exc:  # noqa: BLE001
            log.warning("classifier %s after %s failed: %s", cname, label, exc)
            out.append(row(label, user_params, cname, entry.kind, status="failed", error=_error_text(exc),
                           n_selected=int(mask.sum()), select_seconds=secs, threshold=thr))
    return out


def _run_lazy(sname, label, params, user_params, entry, clf_specs, hierarchy, X_tr, y_tr, X_te, row, score):
    out = []
    t0 = time.perf_counter()
    try:
        sel = get_selector(sname, hierarchy, **params)
        sel.fit(X_tr, y_tr)
        mask = sp.csr_matrix(sel.select_for(X_te)).astype(bool)
        if mask.shape != X_te.shape:
            raise ValueError(f"select_for returned shape {mask.shape}, expected {X_te.shape}")
    except Exception as exc:  # noqa: BLE001
        log.warning("lazy selector %s failed: %s", label, exc)
        return [row(label, user_params, c, "lazy", status="failed", error=_error_text(exc)) for c, _ in clf_specs]
    secs = time.perf_counter() - t0
    n_sel = float(np.asarray(mask.sum(axis=1)).ravel().mean()) if mask.shape[0] else 0.0
    for cname, cparams in clf_specs:
        try:
            t1 = time.perf_counter()
            pred, proba, classes = _lazy_classify(cname, cparams, X_tr, y_tr, X_te, mask)
            m = score(pred, proba, classes, n_sel)
            out.append(row(label, user_params, cname, "lazy", n_selected=n_sel, select_seconds=secs,
                           classify_seconds=time.perf_counter() - t1, **m))
        except Exception as exc:  # noqa: BLE001
            log.warning("lazy classifier %s after %s failed: %s", cname, label, exc)
            out.append(row(label, user_params, cname, "lazy", status="failed", error=_error_text(exc),
                           n_selected=n_sel, select_seconds=secs))
    return out


def _sweep_scores(sname, params, clf_specs, hierarchy, X_fit, y_fit, X_eval, y_eval, grid, labels, pos,
                  n_features, use_lazy, multiclass="macro"):
    """Per classifier: arrays (metric dicts) over the grid; the classifier runs once per distinct mask."""
    masks = _sweep_masks(sname, params, hierarchy, X_fit, y_fit, grid)
    result = {}
    for cname, cparams in clf_specs:
        cache: dict[bytes, dict] = {}
        per_t = []
        for mask in masks:
            k = _mask_key(mask)
            if k not in cache:
                pred, proba, classes, _ = _classify(cname, cparams, X_fit, y_fit, X_eval, mask, use_lazy)
                cache[k] = fold_metrics(y_eval, pred, proba, classes, pos_label=pos, n_selected=int(mask.sum()),
                                        n_features=n_features, labels=labels, multiclass=multiclass)
            per_t.append(cache[k])
        result[cname] = per_t
    return masks, result


def _run_sweep(sname, label, params, user_params, clf_specs, hierarchy, X_tr, y_tr, X_te, grid, choice, metric,
               inner_splits, seed, row, score, use_lazy, labels, pos, n_features, multiclass="macro"):
    out = []
    kind = selector_entry(sname).kind
    t0 = time.perf_counter()
    try:
        if choice == "best-on-test":
            masks = _sweep_masks(sname, params, hierarchy, X_tr, y_tr, grid)
            secs = time.perf_counter() - t0
            for cname, cparams in clf_specs:
                cache: dict[bytes, dict] = {}
                for t, mask in zip(grid, masks):
                    k = _mask_key(mask)
                    try:
                        if k not in cache:
                            pred, proba, classes, csecs = _classify(cname, cparams, X_tr, y_tr, X_te, mask, use_lazy)
                            cache[k] = (score(pred, proba, classes, int(mask.sum())), csecs, "")
                        m, csecs, _ = cache[k]
                        out.append(row(label, user_params, cname, kind, n_selected=int(mask.sum()),
                                       select_seconds=secs, classify_seconds=csecs, threshold=float(t),
                                       threshold_choice="best-on-test", **m))
                    except Exception as exc:  # noqa: BLE001
                        out.append(row(label, user_params, cname, kind, status="failed", error=_error_text(exc),
                                       threshold=float(t), threshold_choice="best-on-test"))
            return out
        # nested: the inner CV of the training part chooses the threshold per classifier
        y_tr = np.asarray(y_tr)
        min_count = int(np.unique(y_tr, return_counts=True)[1].min())
        k_inner = min(inner_splits, min_count)
        chosen = {}
        if k_inner >= 2:
            inner = StratifiedKFold(n_splits=k_inner, shuffle=True, random_state=seed)
            acc = {c: np.zeros(len(grid)) for c, _ in clf_specs}
            comp = {c: np.zeros(len(grid)) for c, _ in clf_specs}
            for itr, iva in inner.split(np.zeros(len(y_tr)), y_tr):
                _, res = _sweep_scores(sname, params, clf_specs, hierarchy, X_tr[itr], y_tr[itr], X_tr[iva],
                                       y_tr[iva], grid, labels, pos, n_features, use_lazy, multiclass)
                for c, per_t in res.items():
                    acc[c] += np.array([d[metric] for d in per_t]) / k_inner
                    comp[c] += np.array([d["compression"] for d in per_t]) / k_inner
            for c, _ in clf_specs:
                chosen[c] = float(grid[_pick(acc[c], comp[c], grid)])
        else:  # too few training instances for an inner CV: the selector's default threshold
            log.warning("%s: no inner CV possible (smallest class has %d training instances); "
                        "using the default threshold", label, min_count)
        masks = _sweep_masks(sname, params, hierarchy, X_tr, y_tr, grid)
        secs = time.perf_counter() - t0
        default_t = params.get("threshold")
        for cname, cparams in clf_specs:
            t = chosen.get(cname, default_t)
            if t is None:
                t = float(grid[-1])
            i = int(np.argmin(np.abs(grid - float(t))))
            mask = masks[i]
            try:
                pred, proba, classes, csecs = _classify(cname, cparams, X_tr, y_tr, X_te, mask, use_lazy)
                m = score(pred, proba, classes, int(mask.sum()))
                out.append(row(label, user_params, cname, kind, n_selected=int(mask.sum()), select_seconds=secs,
                               classify_seconds=csecs, threshold=float(grid[i]), threshold_choice="nested", **m))
            except Exception as exc:  # noqa: BLE001
                out.append(row(label, user_params, cname, kind, status="failed", error=_error_text(exc),
                               threshold=float(grid[i]), threshold_choice="nested"))
        return out
    except Exception as exc:  # noqa: BLE001
        log.warning("threshold sweep of %s failed: %s", label, exc)
        return [row(label, user_params, c, kind, status="failed", error=_error_text(exc),
                    threshold_choice=str(choice)) for c, _ in clf_specs]
