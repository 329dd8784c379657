"""Fit once, predict every new corpus: the work of ``kgfs fit`` and ``kgfs predict`` (the model folder:
:mod:`selection.model`).

:func:`stored_table` builds an input's table by its route's steps in the stage store of the kgfs home (as
``kgfs build`` and ``kgfs run`` do: a table built once is read back), with the features' names from the
knowledge graph. :func:`fit` fits the selector and the classifier on it and writes the model folder.
:func:`new_input` is the input of a new corpus generated as at fit time (the saved input with the corpus
replaced: same graph, vocabulary and feature kinds); :func:`predict_table` scores a table over the fitted
features only (a new feature dropped, a missing one 0, each row closed under the fitted hierarchy) and
:func:`write_predictions` writes ``predictions.csv``.
"""

from __future__ import annotations

import csv
import dataclasses
import warnings
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from kg.errors import EmptyTableError, HierarchyCycleWarning, KgfsError
from kg.routes import build_table, from_json
from kg.routes.base import Context, FileRef, Input, with_names
from kg.table import FeatureTable

__all__ = ["CORPUS_FIELDS", "PREDICTIONS", "fit", "new_input", "predict_table", "stored_table", "write_predictions"]

PREDICTIONS = "predictions.csv"
#: The options of a corpus that may differ from the fitted one's (how it is read, not what its features are).
CORPUS_FIELDS = ("corpus", "text_column", "label_column", "id_column", "entity_columns", "skip_bad_lines",
                 "max_record_bytes", "name")


def stored_table(inp: Input, home: str | Path, *, batch_size: int = 500, names: bool = True) -> FeatureTable:
    """The input's table by its route's steps in the home's stage store, its features named from the graph when
    its table step did not name them (:func:`~kg.routes.base.with_names`; unless ``names`` is false: a table to
    predict, whose features the model names)."""
    from flows.stages import stage_store

    ctx = Context(home, batch_size=batch_size)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=HierarchyCycleWarning)  # reported by the table's meta
        table = build_table(inp, ctx, stage_store(home))
    return with_names(table, lambda f: inp.feature_names(f, ctx)) if names else table


def fit(inp: Input, home: str | Path, folder: str | Path, *, selector: str, params: Mapping | None = None,
        classifier: str = "nb", classifier_params: Mapping | None = None, batch_size: int = 500):
    """Build the input's table (stored), fit ``selector`` and ``classifier`` on all of it, write the model folder.

    Returns
    -------
    (FittedModel, FeatureTable)
    """
    from selection.model import fit_model, save_model

    table = stored_table(inp, home, batch_size=batch_size)
    model = fit_model(table, selector, params, classifier=classifier, classifier_params=classifier_params,
                      info={"input": inp.to_json(), "source": inp.describe()})
    save_model(model, folder)
    return model, table


def new_input(saved: Mapping, values: Mapping) -> Input | None:
    """The input of a new corpus generated as the saved input was (its graph, vocabulary, feature kinds), or
    ``None`` when ``values`` (the options given) are not a corpus alone.

    The corpus may have no labels (``labels_optional``); its features are not filtered by support when they are
    generated (:func:`input_table`): the model's features decide which are kept.
    """
    given = {k: v for k, v in values.items() if v is not None and v is not False}
    if not given.get("corpus") or not saved or not set(given) <= set(CORPUS_FIELDS):
        return None
    inp = from_json(saved)
    fields = {f.name for f in dataclasses.fields(inp)}
    if "corpus" not in fields:
        raise KgfsError(f"the model was fitted on {inp.describe()}, which reads no corpus: give the new data "
                        "as --dataset, --table or the options of its kind of input")
    changes = {k: (tuple(v) if isinstance(v, list) else v) for k, v in given.items() if k != "corpus"}
    changes["corpus"] = FileRef.of(given["corpus"], "corpus")
    changes.setdefault("name", Path(given["corpus"]).stem)
    if "labels_optional" in fields:  # (min_support: input_table keeps every feature of any input)
        changes["labels_optional"] = True
    return dataclasses.replace(inp, **changes)


def input_table(inp: Input, home: str | Path, *, batch_size: int = 500) -> FeatureTable:
    """:func:`stored_table` of a table to predict (the model names its features: they are not looked up here; a
    route's table step may have named them, as the RDF route's does, stored with the table); a corpus none of whose
    entities the graph knows gives its instances with no feature."""
    if any(f.name == "min_support" for f in dataclasses.fields(inp)) and getattr(inp, "min_support", None):
        inp = dataclasses.replace(inp, min_support=None)  # the model's features decide which are kept
    try:
        return stored_table(inp, home, batch_size=batch_size, names=False)
    except EmptyTableError as exc:
        if exc.empty != "features" or not hasattr(inp, "read_corpus"):
            raise
    import scipy.sparse as sp

    from kg.hierarchy import FeatureHierarchy

    corpus = inp.read_corpus()
    ids = np.asarray([str(i) for i in corpus.ids])
    y = None if corpus.labels is None else np.asarray(corpus.labels)
    return FeatureTable(sp.csr_matrix((len(ids), 0)), np.array([], dtype=str), ids, y,
                        FeatureHierarchy.from_edges([], nodes=[]), meta={"dataset": inp.name})


def predict_table(model, table: FeatureTable, top: int = 3) -> tuple[list[dict], dict]:
    """Rows of ``predictions.csv`` for a table, and a report (``n_instances``, ``n_without_features``: instances
    with none of the model's features, predicted from no feature; ``n_new_features``, ``n_missing_features``;
    ``classes``: the predicted counts; ``training``: whether the table is the training data)."""
    from selection.model import align_table, explain, table_fingerprint

    X, report = align_table(table, model.features)
    proba, why = explain(model, X, top=top)
    classes = [str(c) for c in model.classes]
    names = model.names()
    best = np.argmax(proba, axis=1) if len(classes) else np.zeros(0, int)
    rows = []
    labels = None if table.y is None else np.asarray(table.y)
    for i, iid in enumerate(table.instance_ids.tolist()):
        row = {"instance_id": iid, "predicted": classes[best[i]]}
        row.update({f"p_{c}": f"{proba[i, j]:.6g}" for j, c in enumerate(classes)})
        row["n_features"] = int(X.indptr[i + 1] - X.indptr[i])
        row["why"] = "; ".join(f"{names[j]} ({w:+.3g})" for j, w in why[i])
        if labels is not None:
            row["label"] = str(labels[i])
        rows.append(row)
    counts = {c: int((best == j).sum()) for j, c in enumerate(classes)}
    report.update({"n_instances": int(table.n_instances), "classes": counts,
                   "training": table_fingerprint(table) == (model.info.get("training") or {}).get("fingerprint")})
    if labels is not None:
        pred = np.asarray(classes, dtype=object)[best]
        report["accuracy"] = float(np.mean(pred == labels.astype(str))) if len(pred) else None
    return rows, report


def write_predictions(rows: list[dict], folder: str | Path, classes) -> Path:
    """``predictions.csv`` in ``folder``: instance_id, predicted, one p_<class> column per class, n_features (the
    model's features the instance has), why (the selected features present that weigh most, with their weight),
    and label when the input has labels."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    fields = ["instance_id", "predicted", *[f"p_{c}" for c in classes], "n_features", "why"]
    if rows and "label" in rows[0]:
        fields.append("label")
    path = folder / PREDICTIONS
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    return path


# ------------------------------------------------------------------ one corpus, one input, one table: predicted

#: The prediction's report next to ``predictions.csv`` (written last: its presence says the folder is complete).
REPORT = "predict.json"
#: What a table's meta counts about its instances' entities (reported with the prediction, as counts).
ENTITY_NOTES = ("instances_without_entities", "entities_without_features", "entities_without_link",
                "instances_without_features", "skipped_records")


def _given(options: Mapping | None) -> dict:
    return {k: v for k, v in (options or {}).items() if v is not None and v is not False and v != ()}


def model_input(model, options: Mapping | None = None) -> Input:
    """The input the model was fitted on, once it is checked that a new corpus can be read as its corpus was: it
    reads a corpus, and ``options`` are only a corpus's reading options (``text_column``, ``id_column``, ...:
    :data:`CORPUS_FIELDS`). What ``kgfs serve --model`` checks before serving (and reads up front: its dumps).

    Raises
    ------
    KgfsError
        An option that is not a corpus's reading option (named as the caller's option, :func:`kg.errors.param`),
        a model that keeps no input or was fitted on an input that reads no corpus.

    Examples
    --------
    >>> from selection.model import FittedModel
    >>> model_input(FittedModel(None, None, {"input": {"kind": "dbpedia", "name": "c"}}), {"dump": ["d/"]})
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: dump does not apply with a model: a new corpus is read and linked as the model's was ...
    """
    from kg.errors import param

    # the corpus is the file given, named by its stem
    wrong = sorted(k for k in _given(options) if k not in CORPUS_FIELDS or k in ("corpus", "name"))
    if wrong:
        reading = ", ".join(param(f) for f in CORPUS_FIELDS if f not in ("corpus", "name"))
        raise KgfsError(f"{param(wrong[0])} does not apply with a model: a new corpus is read and linked as the "
                        f"model's was ({(model.info or {}).get('source') or 'its input'}); only how the corpus is read "
                        f"may differ ({reading})")
    saved = (model.info or {}).get("input")
    if not saved:
        raise KgfsError("the model keeps no input to generate a corpus's features as at fit time (write it again "
                        "with `kgfs fit`)")
    inp = from_json(saved)
    if not any(f.name == "corpus" for f in dataclasses.fields(inp)):
        raise KgfsError(f"the model was fitted on {inp.describe()}, which reads no corpus: it cannot predict corpus "
                        "files (`kgfs predict --model M --dataset/--table/...` scores data of its kind)")
    return inp


def corpus_input(model, path: str | Path, options: Mapping | None = None) -> Input:
    """The input of the corpus file ``path`` generated as the model's training input was (:func:`new_input`), read
    with the reading ``options`` given (checked by :func:`model_input`)."""
    model_input(model, options)
    return new_input(model.info["input"], {**_given(options), "corpus": str(path)})


def predict_into(model, table: FeatureTable, out_dir: str | Path, *, top: int = 3, name: str | None = None,
                 notes=(), corpus: str | Path | None = None) -> dict:
    """Predict ``table`` with ``model`` into ``out_dir``: ``predictions.csv`` (:func:`write_predictions`), then the
    report ``predict.json`` (last). Returns the report.

    The report is :func:`predict_table`'s (``n_instances``, ``n_without_features``: instances with none of the
    model's features, entities the graph does not know; ``n_new_features``, ``n_missing_features``, ``classes``: the
    predicted count per class, ``training``, ``accuracy`` when the table has labels) with ``name``, ``model`` (the
    model's one-line description), ``n_model_features``, ``notes`` (the input check's), ``entities`` (what the
    table's meta counts of entities not linked or without features: :data:`ENTITY_NOTES`), ``predictions``
    (the file) and ``corpus`` (the corpus file predicted, when there is one).
    """
    import json

    from kg.files import atomic_write
    from selection.model import describe_model

    rows, report = predict_table(model, table, top=top)
    path = write_predictions(rows, out_dir, [str(c) for c in model.classes])
    meta = table.meta or {}
    entities = {k: (len(meta[k]) if isinstance(meta[k], list | dict) else int(meta[k]))
                for k in ENTITY_NOTES if meta.get(k)}
    report.update(name=name or str(meta.get("dataset") or ""), model=describe_model(model.info),
                  n_model_features=int(model.features.n_features), notes=list(notes or ()), entities=entities,
                  predictions=str(Path(path).absolute()))
    if corpus is not None:
        report["corpus"] = str(Path(corpus).absolute())
    text = json.dumps(report, indent=1, sort_keys=True)
    atomic_write(Path(out_dir) / REPORT, lambda tmp: tmp.write_text(text + "\n", encoding="utf-8"))
    return report


def predict_input(model, inp: Input, home: str | Path, out_dir: str | Path, *, top: int = 3, batch_size: int = 500,
                  status=None, ingest=None) -> dict:
    """Check ``inp``, read what its route reads up front, generate its features (the stage store of ``home``,
    :func:`input_table`) and predict them into ``out_dir`` (:func:`predict_into`). Returns the report.

    Parameters
    ----------
    status : callable, optional
        ``status(text)``: a context manager shown while a phase runs (``checking the input``, ``generating the
        features``; the command line's spinner).
    ingest : callable, optional
        ``ingest(read)`` calls ``read(progress)``, the input's :meth:`~kg.routes.base.Input.prepare` (the command
        line: under a bar of the bytes read); default ``read(None)``.
    """
    import contextlib

    from kg.routes.base import Context

    status = status or (lambda text: contextlib.nullcontext())
    ctx = Context(home)
    with status("checking the input"):
        checked = inp.check(ctx) or {}
    (ingest or (lambda read: read(None)))(lambda progress: inp.prepare(ctx, progress))
    with status("generating the features"):
        table = input_table(inp, home, batch_size=batch_size)
    corpus = getattr(inp, "corpus", None)
    return predict_into(model, table, out_dir, top=top, name=inp.name, notes=checked.get("notes") or (),
                        corpus=getattr(corpus, "path", None))


def predict_file(model, path: str | Path, home: str | Path, out_dir: str | Path, corpus_options: Mapping | None = None,
                 *, top: int = 3, batch_size: int = 500) -> dict:
    """Predict the corpus file ``path`` with ``model`` (read and linked as the model's corpus was:
    :func:`corpus_input`) into ``out_dir``: ``predictions.csv`` and ``predict.json``; returns the report
    (:func:`predict_into`). What ``kgfs serve --model`` does with each new file.

    Examples
    --------
    >>> from selection.model import FittedModel
    >>> predict_file(FittedModel(None, None, {}), "new.csv", "home", "out")  # fitted in Python, not by kgfs fit
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: the model keeps no input to generate a corpus's features as at fit time (write it ...)
    """
    return predict_input(model, corpus_input(model, path, corpus_options), home, out_dir, top=top,
                         batch_size=batch_size)


__all__ += ["ENTITY_NOTES", "REPORT", "corpus_input", "model_input", "predict_file", "predict_input", "predict_into"]
