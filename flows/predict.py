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
from kg.routes.base import Context, FileRef, Input
from kg.table import FeatureTable

__all__ = ["CORPUS_FIELDS", "PREDICTIONS", "fit", "new_input", "predict_table", "stored_table", "write_predictions"]

PREDICTIONS = "predictions.csv"
#: The options of a corpus that may differ from the fitted one's (how it is read, not what its features are).
CORPUS_FIELDS = ("corpus", "text_column", "label_column", "id_column", "entity_columns", "skip_bad_lines",
                 "max_record_bytes", "name")


def stored_table(inp: Input, home: str | Path, *, batch_size: int = 500, names: bool = True) -> FeatureTable:
    """The input's table by its route's steps in the home's stage store, its features named from the graph
    (unless ``names`` is false: a table to predict, whose features the model names)."""
    from flows.stages import stage_store

    ctx = Context(home, batch_size=batch_size)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=HierarchyCycleWarning)  # reported by the table's meta
        table = build_table(inp, ctx, stage_store(home))
    if names and not table.meta.get("term_names"):
        names = inp.feature_names(table.feature_names.tolist(), ctx)
        if names:
            table.meta["term_names"] = {f: names.get(f, "") for f in table.feature_names.tolist()}
    return table


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

    The corpus may have no labels (``labels_optional``), and the features are not filtered by support
    (``min_support`` 1): the model's features decide which are kept.
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
    changes.update({k: v for k, v in (("min_support", None), ("labels_optional", True)) if k in fields})
    return dataclasses.replace(inp, **changes)


def input_table(inp: Input, home: str | Path, *, batch_size: int = 500) -> FeatureTable:
    """:func:`stored_table` of a table to predict (the model names its features: they are not looked up); a
    corpus none of whose entities the graph knows gives its instances with no feature."""
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
