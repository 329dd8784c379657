"""A fitted model kept in a folder: the selector and the classifier, the features they read, and how they came to be.

A model folder holds

- ``manifest.json``: the format and its version, the kgfs and scikit-learn versions that wrote it, and the
  sha256 of every other file (a file truncated or edited since is refused, named);
- ``model.json``: the settings (the run's input as JSON, the source's description, the selector and the
  classifier with their parameters), the training data's fingerprint (:func:`table_fingerprint`), and the
  fitted estimator as a tree of its classes' attributes (JSON values; arrays by name), and its ``probe``: a few
  rows over its features and the class probabilities it gave them when it was saved (see below);
- ``arrays.npz``: the estimator's arrays, and the probe's (NumPy's format, read with ``allow_pickle=False``);
- ``features.npz``: the fitted feature ids and their hierarchy, with their readable names (a table of no
  instances, :meth:`kg.table.FeatureTable.save`).

An eager selection followed by Bernoulli naive Bayes (``kgfs fit``'s default) also keeps its linear form
(:mod:`selection.scoring`: the arrays ``form.*``, kept only when they give the estimator's probabilities on the
training table): a loaded model then scores and explains new data with NumPy alone, and the estimator is built
from ``model.json`` (importing scikit-learn) only when it is asked for (:attr:`FittedModel.estimator`).

Nothing is pickled. An estimator is saved as its class and its attributes (:mod:`selection.encoding`); only the
classes of :func:`~selection.encoding.trusted_classes` are built on load (the estimators :mod:`selection.registry`
registers, the ones they build, ``Pipeline``, :class:`~selection.lazy.LazySelectionClassifier` and
:class:`~kg.features.KGFeatures`); an attribute of another type (a function, an object of another class) is
refused when the model is saved, naming it. A :class:`~kg.features.KGFeatures` step is saved without its
``source``, ``annotator`` and ``memory`` (handles on a graph, not values: the source's ``describe()`` is kept);
they are passed again on load.

A model checks itself when it is loaded (:mod:`selection.probe`): it predicts again a few rows (its probe: rows of
the training table, or for :func:`save_pipeline` one feature each) whose probabilities were saved with it, and is
refused in one line naming ``model.json`` and both scikit-learn versions when they differ; one that agrees loads
without a warning whatever the versions. A model written before the probe is checked by its version only (a
warning when its scikit-learn minor version differs). The probe's saved probabilities are the estimator's: a model
with a linear form checks the form against them on load (no scikit-learn needed), and its estimator when it is
built.

This module holds the model: :class:`FittedModel` and :func:`fit_model`, the rows of a new table over its features
(:func:`align_table`) and why it predicts what it does (:func:`explain`), and its folder (:func:`save_model`,
:func:`load_model` and their manifest checks; :func:`save_pipeline` and :func:`load_pipeline` for a scikit-learn
``Pipeline`` of :class:`~kg.features.KGFeatures`). ``trusted_classes`` is importable from here too.

Examples
--------
>>> import tempfile
>>> from kg.routes import build_table, resolve_dataset
>>> table = build_table(resolve_dataset({}))
>>> fitted = fit_model(table, "shsel-ig-prune", classifier="nb")
>>> folder = save_model(fitted, tempfile.mkdtemp() + "/m")
>>> again = load_model(folder)
>>> bool((again.predict_proba(table) == fitted.predict_proba(table)).all())
True
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from kg.errors import InputFormatError, KgfsError
from kg.files import atomic_write, sha256_file
from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable
from selection.encoding import Decoder, Encoder, trusted_classes
from selection.probe import PROBE_TOLERANCE, check_probe, class_probabilities, encode_probe, spread, with_empty_row
from selection.scoring import LinearForm

__all__ = ["FORMAT", "FORMAT_VERSION", "FittedModel", "align_table", "explain", "fit_model", "load_model",
           "load_pipeline", "save_model", "save_pipeline", "table_fingerprint", "trusted_classes"]

FORMAT = "kgfs-model"
#: The version of the folder's layout; a model of another version is refused.
FORMAT_VERSION = 1
MANIFEST, MODEL, ARRAYS, FEATURES = "manifest.json", "model.json", "arrays.npz", "features.npz"


# --------------------------------------------------------------------------- fitting
def table_fingerprint(table: FeatureTable) -> str:
    """The sha256 of a table's content: its cells, feature and instance ids, labels and hierarchy edges.

    Examples
    --------
    >>> from kg.routes import build_table, resolve_dataset
    >>> t = build_table(resolve_dataset({}))
    >>> table_fingerprint(t) == table_fingerprint(t.select_instances(range(t.n_instances))), len(table_fingerprint(t))
    (True, 64)
    """
    h = hashlib.sha256()
    x = sp.csr_matrix(table.X)
    x.sort_indices()
    c, p = table.hierarchy.edges
    parts = [np.asarray(x.shape, np.int64), x.indptr.astype(np.int64), x.indices.astype(np.int64),
             table.feature_names.astype(str), table.instance_ids.astype(str), np.asarray(c, np.int64),
             np.asarray(p, np.int64)]
    if table.y is not None:
        parts.append(np.asarray(table.y).astype(str))
    for a in parts:
        h.update(str(a.dtype).encode() + str(a.shape).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


class FittedModel:
    """A fitted estimator over fixed features, with what made it.

    Attributes
    ----------
    estimator : estimator
        ``Pipeline([("selector", ...), ("classifier", ...)])`` for an eager or flat selector,
        :class:`~selection.lazy.LazySelectionClassifier` for a lazy one (each instance its own features), or any
        fitted estimator with ``predict`` over ``features``' columns (a ``Pipeline`` starting with
        :class:`~kg.features.KGFeatures` takes entities instead).
    features : FeatureTable
        No instances: the fitted feature ids (columns), their hierarchy and ``meta["term_names"]``.
    info : dict
        JSON: ``input`` (a run's input as JSON), ``source`` (its description), ``selector``, ``classifier``,
        ``training`` (``fingerprint``, ``n_instances``, ``classes``), ...
    probe : csr_matrix, optional
        The rows over ``features``' columns whose probabilities :func:`save_model` records and :func:`load_model`
        checks (see the module): :func:`fit_model` keeps some of the training table's, a loaded model the saved
        ones; ``None``: one row per feature, made when the model is saved.
    form : selection.scoring.LinearForm or None
        The estimator's linear form, when it has one: what scores and explains (no scikit-learn needed).
    """

    def __init__(self, estimator: Any, features: FeatureTable, info: Mapping | None = None,
                 probe: sp.csr_matrix | None = None, *, form: LinearForm | None = None,
                 decode: Callable[[], Any] | None = None):
        self._estimator, self._decode = estimator, decode
        self.features, self.info, self.probe, self.form = features, dict(info or {}), probe, form

    @property
    def estimator(self) -> Any:
        """The fitted estimator (built from the model folder on first use when the model was loaded)."""
        if self._estimator is None and self._decode is not None:
            self._estimator, self._decode = self._decode(), None
        return self._estimator

    @estimator.setter
    def estimator(self, value: Any) -> None:  # its linear form with it (not checked: no table here)
        self._estimator, self._decode = value, None
        self.form = LinearForm.of(value, self.features.n_features)

    def __repr__(self) -> str:
        return f"FittedModel({describe_model(self.info)}, linear form: {self.form is not None})"

    @property
    def classes(self) -> np.ndarray:
        return self.form.classes if self.form is not None else np.asarray(self.estimator.classes_)

    def names(self) -> list[str]:
        """A readable name per feature: the term name when the table had one, else its id."""
        names = self.features.meta.get("term_names") or {}
        return [str(names.get(f) or f) for f in self.features.feature_names.tolist()]

    def matrix(self, X) -> sp.csr_matrix:
        """``X`` (a table over the model's features, or a matrix over them) as a CSR matrix of the model's columns."""
        if isinstance(X, FeatureTable):
            X = align_table(X, self.features)[0]
        return sp.csr_matrix(X, dtype=np.float64)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities (columns: :attr:`classes`); a classifier without ``predict_proba`` gives 1 to its
        predicted class."""
        X = self.matrix(X)
        return self.form.predict_proba(X) if self.form is not None else class_probabilities(self.estimator, X)

    def predict(self, X) -> np.ndarray:
        proba = self.predict_proba(X)
        return self.classes[np.argmax(proba, axis=1)]


def fit_model(table: FeatureTable, selector: str, params: Mapping | None = None, *, classifier: str = "nb",
              classifier_params: Mapping | None = None, info: Mapping | None = None) -> FittedModel:
    """Fit the registered ``selector`` and ``classifier`` on the whole table.

    An eager or flat selector gives ``Pipeline([("selector", selector), ("classifier", classifier)])``
    (the classifier fitted on the selected columns); a lazy one (RPV, HIP, MR, ...) a
    :class:`~selection.lazy.LazySelectionClassifier` of it and the classifier's per-instance form (``nb``,
    ``1nn``, ``knn``), which selects for each new instance at predict time.

    Parameters
    ----------
    table : FeatureTable
        Labelled.
    selector, classifier : str
        Names of :mod:`selection.registry`.
    params, classifier_params : mapping, optional
    info : mapping, optional
        More of the model's JSON description (a run's ``input``, its ``source``).

    Returns
    -------
    FittedModel
    """
    from sklearn.pipeline import Pipeline

    from selection.evaluation.specs import method_spec
    from selection.frames import _fitted
    from selection.lazy import LazySelectionClassifier
    from selection.registry import classifier_entry, selector_entry

    sentry, centry = selector_entry(selector), classifier_entry(classifier)
    params, classifier_params = dict(params or {}), dict(classifier_params or {})
    spec = method_spec((centry.name, classifier_params), "classifier")
    if sentry.kind == "lazy":
        if spec.lazy is None:
            raise KgfsError(f"classifier {centry.name!r} cannot score the per-instance features of the lazy selector "
                            f"{sentry.name!r}: {spec.lazy_error}")
        sel = _fitted(table, sentry, params)  # checks the labels, as `kgfs select` does
        est = LazySelectionClassifier(sel, spec.lazy)
        est.fit(table.X, table.y)
        est.selector_ = sel  # the selector fitted above (fit cloned it; the same data, the same state)
    else:
        sel = _fitted(table, sentry, params)
        est = Pipeline([("selector", sel), ("classifier", spec.estimator)])
        est.steps[1] = ("classifier", spec.estimator.fit(sel.transform(table.X), table.y))
    features = _features_table(table.feature_names, table.hierarchy, table.meta.get("term_names") or {})
    y = np.asarray(table.y)
    described = {"selector": {"name": sentry.name, "params": params, "kind": sentry.kind},
                 "classifier": {"name": centry.name, "params": classifier_params},
                 "training": {"fingerprint": table_fingerprint(table), "n_instances": int(table.n_instances),
                              "n_features": int(table.n_features),
                              "classes": {str(c): int((y == c).sum()) for c in np.unique(y)},
                              "dataset": table.meta.get("dataset")}}
    probe = with_empty_row(align_table(table.select_instances(spread(table.n_instances)), features)[0])
    form = LinearForm.of(est, table.n_features, check=table.X)
    return FittedModel(est, features, {**described, **dict(info or {})}, probe=probe, form=form)


def _features_table(ids, hierarchy: FeatureHierarchy, names: Mapping) -> FeatureTable:
    ids = np.asarray(ids).astype(str)
    return FeatureTable(sp.csr_matrix((0, len(ids))), ids, np.array([], dtype=str), None, hierarchy,
                        meta={"term_names": {f: str(names.get(f) or "") for f in ids.tolist()}})


# --------------------------------------------------------------------------- new data over the fitted features
def align_table(table: FeatureTable, features: FeatureTable) -> tuple[sp.csr_matrix, dict]:
    """A table's rows over the fitted features: a feature the model does not know is dropped, a fitted one the
    table lacks is 0, and each row is closed under the fitted hierarchy.

    Returns
    -------
    X : csr_matrix of float64, shape (table.n_instances, features.n_features)
    report : dict
        ``n_new_features`` (dropped), ``n_missing_features`` (zero), ``n_without_features`` (rows with none of
        the fitted features: predicted from no feature).

    Examples
    --------
    >>> from kg.hierarchy import FeatureHierarchy
    >>> fitted = FeatureTable.from_facts({"a": ["B"]}, FeatureHierarchy.from_edges([("B", "A")]))
    >>> new = FeatureTable.from_facts({"x": ["B"], "y": ["C"]}, FeatureHierarchy.from_edges([], nodes=["B", "C"]))
    >>> X, report = align_table(new, fitted)
    >>> fitted.feature_names.tolist(), X.toarray().tolist(), report["n_without_features"]
    (['A', 'B'], [[1.0, 1.0], [0.0, 0.0]], 1)
    """
    where = {f: j for j, f in enumerate(features.feature_names.tolist())}
    cols = np.array([where.get(f, -1) for f in table.feature_names.tolist()], dtype=np.int64)
    keep = np.flatnonzero(cols >= 0)
    sub = sp.csr_matrix(table.X)[:, keep].tocsr()
    x = sp.csr_matrix((np.ones(sub.nnz), cols[keep][sub.indices], sub.indptr),
                      shape=(table.n_instances, features.n_features))
    x = sp.csr_matrix(features.hierarchy.close(x), dtype=np.float64)
    x.data[:] = 1.0
    x.sort_indices()
    return x, {"n_new_features": int(len(cols) - len(keep)), "n_missing_features": int(features.n_features - len(keep)),
               "n_without_features": int((np.diff(x.indptr) == 0).sum())}


def _nb_weights(model: FittedModel):
    """``(n_features, n_classes)`` log-odds a present feature adds (NB), or ``None`` for another classifier."""
    from sklearn.naive_bayes import BernoulliNB

    from selection.lazy import LazyNaiveBayes, LazySelectionClassifier

    est = model.estimator
    if isinstance(est, LazySelectionClassifier) and isinstance(est.classifier_, LazyNaiveBayes):
        return est.classifier_.log_p1_ - est.classifier_.log_p0_, None
    steps = getattr(est, "steps", None)
    if steps and isinstance(steps[-1][1], BernoulliNB) and hasattr(steps[0][1], "get_support"):
        nb, support = steps[-1][1], np.asarray(steps[0][1].get_support(), bool)
        lp1 = nb.feature_log_prob_.T  # (n_selected, n_classes)
        w = np.zeros((model.features.n_features, lp1.shape[1]))
        w[support] = lp1 - np.log1p(-np.exp(lp1))
        return w, support
    return None, None


def explain(model: FittedModel, X, top: int = 3) -> tuple[np.ndarray, list[list[tuple[int, float]]]]:
    """Class probabilities and, per instance, the selected features present in it that weigh most in its
    prediction: ``(column, weight)`` pairs, the heaviest first (at most ``top``, those of positive weight).

    What "weigh" means, by classifier:

    - Bernoulli NB (``nb``, and the per-instance ``lazy-nb`` of a lazy selector): the log-probability a present
      feature adds to the predicted class against the runner-up class, ``[log P(x=1|c) - log P(x=0|c)] -
      [log P(x=1|c') - log P(x=0|c')]``: the log-odds of the prediction decompose exactly into these terms;
    - any other classifier: how much the predicted class's probability drops when that feature is set to 0
      (the instance scored again without it and its more specific features, so that the row stays closed under
      the hierarchy).

    The features "selected" are the selector's (an eager one's support; a lazy one's features of that instance).
    """
    X = model.matrix(X)
    if model.form is not None:  # the same terms, vectorised
        return model.form.explain(X, top=top)
    proba = model.predict_proba(X)
    k = proba.shape[1]
    order = np.argsort(-proba, axis=1, kind="stable")
    best = order[:, 0]
    second = order[:, 1] if k > 1 else order[:, 0]
    mask = _selected(model, X)
    row_mask = mask if sp.issparse(mask) else sp.csr_matrix(np.asarray(mask, dtype=np.float64)[None, :])
    present = sp.csr_matrix(X.multiply(row_mask))
    present.eliminate_zeros()
    w, _ = _nb_weights(model)
    out: list[list[tuple[int, float]]] = []
    if w is not None:
        for i in range(X.shape[0]):
            cols = present.indices[present.indptr[i]:present.indptr[i + 1]]
            weights = w[cols, best[i]] - w[cols, second[i]]
            out.append(_top(cols, weights, top))
        return proba, out
    rows, cols_all = [], []
    for i in range(X.shape[0]):
        cols = present.indices[present.indptr[i]:present.indptr[i + 1]]
        rows += [i] * len(cols)
        cols_all += cols.tolist()
    if rows:  # every instance again without one of its features (and the more specific ones), all in one call
        h = model.features.hierarchy
        below = sp.csr_matrix(h.descendant_matrix + sp.identity(h.n_nodes, format="csr"), dtype=np.float64)
        base = X[rows]
        base = sp.csr_matrix(base - base.multiply(below[cols_all] > 0))
        base.eliminate_zeros()
        p = model.predict_proba(base)
        drop = proba[rows, best[rows]] - p[np.arange(len(rows)), best[rows]]
    start = 0
    for i in range(X.shape[0]):
        n = present.indptr[i + 1] - present.indptr[i]
        out.append(_top(np.asarray(cols_all[start:start + n]), drop[start:start + n] if n else np.zeros(0), top))
        start += n
    return proba, out


def _top(cols: np.ndarray, weights: np.ndarray, top: int) -> list[tuple[int, float]]:
    keep = weights > 0
    cols, weights = cols[keep], weights[keep]
    order = np.lexsort((cols, -weights))[:top]
    return [(int(cols[j]), float(weights[j])) for j in order]


def _selected(model: FittedModel, X: sp.csr_matrix):
    """The features selected for each row: a boolean vector (eager), or a sparse mask (lazy)."""
    if model.form is not None:
        return model.form.support
    from selection.lazy import LazySelectionClassifier

    est = model.estimator
    if isinstance(est, LazySelectionClassifier):
        if est.selector_ is None:
            return np.ones(X.shape[1], bool)
        if est.support_ is not None:
            return np.asarray(est.support_, bool)
        return sp.csr_matrix(est.selector_.select_for(X), dtype=np.float64)
    steps = getattr(est, "steps", None)
    if steps and hasattr(steps[0][1], "get_support"):
        from kg.features import KGFeatures

        first = next((s for _, s in steps if not isinstance(s, KGFeatures)), None)
        if first is not None and hasattr(first, "get_support"):
            return np.asarray(first.get_support(), bool)
    return np.ones(X.shape[1], bool)


# --------------------------------------------------------------------------- the folder
def _versions() -> dict:
    import importlib.metadata

    import sklearn

    try:
        kgfs = importlib.metadata.version("kgfs")
    except importlib.metadata.PackageNotFoundError:
        kgfs = "unknown"
    return {"kgfs": kgfs, "scikit-learn": sklearn.__version__, "numpy": np.__version__}


def _write_npz(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    def write(tmp: Path) -> None:
        with open(tmp, "wb") as fh, zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
            for name, value in arrays.items():
                with zf.open(name + ".npy", "w", force_zip64=True) as out:
                    np.lib.format.write_array(out, np.asanyarray(value), allow_pickle=False)

    atomic_write(path, write)


def save_model(model: FittedModel, folder: str | os.PathLike) -> Path:
    """Write ``model`` into ``folder`` (created; its model files replaced): see the module for what it holds.

    Raises
    ------
    KgfsError
        The estimator holds something a model cannot keep (named: an object of a class not in
        :func:`trusted_classes`, a function).
    """
    folder = Path(folder)
    writer = Encoder(trusted_classes())
    tree = writer.value(model.estimator, "the estimator")
    probe = encode_probe(model.estimator, model.features, model.probe, writer)  # after the estimator: as it was
    folder.mkdir(parents=True, exist_ok=True)
    _write_npz(folder / ARRAYS, {**writer.arrays, **(model.form.to_arrays() if model.form is not None else {})})
    model.features.save(folder / FEATURES)
    body = json.dumps({**model.info, "estimator": tree, "probe": probe}, indent=1, sort_keys=True, default=str)
    atomic_write(folder / MODEL, lambda tmp: Path(tmp).write_text(body, encoding="utf-8"))
    manifest = {"format": FORMAT, "format_version": FORMAT_VERSION, "versions": _versions(),
                "files": {n: sha256_file(folder / n) for n in (MODEL, ARRAYS, FEATURES)}}
    text = json.dumps(manifest, indent=1, sort_keys=True)
    atomic_write(folder / MANIFEST, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    return folder


def _refuse(path: Path, why: str) -> KgfsError:
    return InputFormatError(f"{why}; not a model kgfs can load (write it again with `kgfs fit`)", str(path))


def _manifest(folder: Path) -> dict:
    path = folder / MANIFEST
    if not folder.is_dir():
        raise KgfsError(f"{folder}: no model folder there")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _refuse(path, "no manifest: not a model folder") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise _refuse(path, f"the manifest is not JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise _refuse(path, "not a kgfs model manifest")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        wrote = (manifest.get("versions") or {}).get("kgfs", "an unknown version")
        raise _refuse(path, f"model format version {version!r} (written by kgfs {wrote}); this kgfs reads "
                            f"version {FORMAT_VERSION}")
    files = manifest.get("files")
    if not isinstance(files, dict) or set(files) != {MODEL, ARRAYS, FEATURES}:
        raise _refuse(path, "the manifest does not list the model's files")
    for name, digest in sorted(files.items()):
        f = folder / name
        if not f.is_file():
            raise _refuse(f, "missing from the model folder")
        if sha256_file(f) != digest:
            raise _refuse(f, "damaged: its content is not what the model's manifest recorded (truncated or edited)")
    return manifest


def load_model(folder: str | os.PathLike, *, source=None, annotator=None, memory=None) -> FittedModel:
    """Read a model written by :func:`save_model`, checking every file against the manifest first.

    Parameters
    ----------
    folder : path
    source, annotator, memory : optional
        Given to a :class:`~kg.features.KGFeatures` step (not saved: see the module).

    Raises
    ------
    KgfsError
        One line naming the file: not a model folder, another format version, a file missing, truncated or
        edited since it was written; a model that predicts its probe differently here (:mod:`selection.probe`).
    """
    folder = Path(folder)
    manifest = _manifest(folder)
    try:
        with np.load(folder / ARRAYS, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (ValueError, OSError, zipfile.BadZipFile) as exc:
        raise _refuse(folder / ARRAYS, f"cannot read the arrays ({exc})") from None
    try:
        info = json.loads((folder / MODEL).read_text(encoding="utf-8"))
    except ValueError as exc:
        raise _refuse(folder / MODEL, f"not JSON ({exc})") from None
    features = FeatureTable.load(folder / FEATURES)
    supplied = {"source": source, "annotator": annotator, "memory": memory}
    probe, tree = info.pop("probe", None), info.pop("estimator", None)
    try:
        # the probe holds no estimator: read without the trusted classes (which import the registry)
        values = Decoder(arrays, {}, supplied, folder / MODEL, arrays_file=ARRAYS)
        rows, proba = (None, None) if probe is None else (values.value(probe["rows"]), values.value(probe["proba"]))
        form = LinearForm.from_arrays(arrays)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, KgfsError):
            raise
        raise _refuse(folder / MODEL, f"the model cannot be read ({exc})") from None
    if tree is None:
        raise _refuse(folder / MODEL, "no estimator in it")
    if probe is not None and not (sp.issparse(rows) and rows.shape[1] == features.n_features
                                  and np.ndim(proba) == 2 and len(proba) == rows.shape[0]):
        raise _refuse(folder / MODEL, "its probe is not rows over the model's features and their probabilities")
    info["versions"] = manifest.get("versions")
    wrote = manifest.get("versions") or {}

    def decode():
        try:
            estimator = Decoder(arrays, trusted_classes(), supplied, folder / MODEL, arrays_file=ARRAYS).value(tree)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, KgfsError):
                raise
            raise _refuse(folder / MODEL, f"the estimator cannot be read ({exc})") from None
        if probe is not None:
            check_probe(estimator, rows, np.asarray(proba), wrote, folder / MODEL)
        else:  # a model written before the probe: its version alone
            _warn_of_version(folder / MANIFEST, wrote.get("scikit-learn"))
        return estimator

    model = FittedModel(None, features, info, probe=rows, form=form, decode=decode)
    if form is not None and probe is not None and not _form_agrees(form, rows, np.asarray(proba)):
        model.estimator  # noqa: B018 - a model that predicts differently here is refused so, naming the versions
        raise _refuse(folder / MODEL, "its linear form does not give its probe's probabilities")
    if form is None or probe is None or any(v is not None for v in supplied.values()):
        model.estimator  # noqa: B018 - built (and checked) now: a model it cannot build is refused on load
    return model


def _form_agrees(form: LinearForm, rows: sp.csr_matrix, expected: np.ndarray) -> bool:
    """Whether a linear form gives the probe's saved probabilities (the estimator's)."""
    got = form.predict_proba(rows)
    return got.shape == expected.shape and bool(np.max(np.abs(got - expected), initial=0.0) <= PROBE_TOLERANCE)


def _warn_of_version(path: Path, wrote: str | None) -> None:
    import sklearn

    if wrote and wrote.split(".")[:2] != sklearn.__version__.split(".")[:2]:
        import warnings

        warnings.warn(f"{path}: the model was written with scikit-learn {wrote}, this is {sklearn.__version__}: its "
                      "estimators may not behave the same (a model written by this kgfs checks itself)", stacklevel=3)


# --------------------------------------------------------------------------- a scikit-learn Pipeline
def save_pipeline(pipeline, folder: str | os.PathLike, info: Mapping | None = None) -> Path:
    """Save a fitted ``Pipeline`` of :class:`~kg.features.KGFeatures`, a selector and a classifier.

    The ``KGFeatures`` step's ``source`` and ``annotator`` are not saved: its source's ``describe()`` is (in
    ``model.json``); :func:`load_pipeline` takes them again.

    With no training table at hand, the probe that :func:`load_model` checks is one row per feature (that feature
    and its ancestors: the closed rows ``KGFeatures`` gives), the features spread among those the selector keeps,
    and a row of no feature; it is predicted by the steps after ``KGFeatures``, so that the check reads no graph.

    Returns
    -------
    Path
        The folder.
    """
    from kg.features import KGFeatures

    steps = getattr(pipeline, "steps", None)
    if not steps or not isinstance(steps[0][1], KGFeatures):
        raise KgfsError("save_pipeline saves a Pipeline whose first step is a KGFeatures (save_model saves a "
                        "FittedModel)")
    kg = steps[0][1]
    if not hasattr(kg, "vocabulary_"):
        raise KgfsError("the pipeline is not fitted (fit it before saving it)")
    source = kg.source
    described = source.describe() if hasattr(source, "describe") else type(source).__name__
    names = dict(zip(kg.hierarchy_.node_ids.tolist(), np.asarray(kg.feature_labels_).astype(str).tolist(), strict=True))
    features = _features_table(kg.hierarchy_.node_ids, kg.hierarchy_, names)
    return save_model(FittedModel(pipeline, features, {"source": described, "kind": "pipeline", **dict(info or {})}),
                      folder)


def load_pipeline(folder: str | os.PathLike, source, *, annotator=None, memory=None):
    """The ``Pipeline`` :func:`save_pipeline` wrote, its ``KGFeatures`` step given ``source`` (and ``annotator``)
    again.

    Examples
    --------
    See ``docs/python-api.md`` (a model you can keep).
    """
    return load_model(folder, source=source, annotator=annotator, memory=memory).estimator


def describe_model(info: Mapping) -> str:
    """One line: selector, classifier, training size."""
    t = info.get("training") or {}
    return (f"{(info.get('selector') or {}).get('name')} + {(info.get('classifier') or {}).get('name')}, fitted on "
            f"{t.get('n_instances')} instances x {t.get('n_features')} features")

