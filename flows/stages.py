"""The pipeline's stages (no Prefect: :mod:`flows.pipeline` makes them tasks): each names the inputs of
its key (upstream records' content hashes, parameters, :func:`code_version`) and runs ``kg``/``selection``
functions in the stage store (:class:`kg.runs.store.Store`, ``<kgfs home>/store``), which returns its record.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from kg.dbpedia import batches as dbpedia
from kg.formats.folder import export_selected, export_table, write_table_folder
from kg.runs.inputs import build_go_table, load_spec_dataset, read_facts
from kg.runs.lookup import store_at
from kg.runs.store import Store, code_version, record_valid, write_json
from kg.table import FeatureTable

__all__ = ["code_version", "corpus_batches", "entity_batches", "read_table",
           "record_valid", "selector_modules", "stage_annotate", "stage_annotate_batch", "stage_build_table",
           "stage_dbpedia_table", "stage_evaluate", "stage_export", "stage_fetch", "stage_fetch_batch",
           "stage_load_dataset", "stage_load_facts", "stage_select", "stage_store"]

ROUTE = dbpedia.RouteObjects()  # a spec's corpus, lexicon and source, built once per process (also for kgfs run's checks)
_TABLE_FILES = {"table": "table.npz", "summary": "summary.json"}


def selector_modules(names: Sequence) -> list[str]:
    """Modules that define the given selectors, for :func:`code_version` (all of kgfs is in every key;
    a selector registered from a module outside kgfs is keyed by that module's source too).

    Parameters
    ----------
    names : sequence of str or (name, params)

    Returns
    -------
    list of str

    Examples
    --------
    >>> selector_modules(["complete", ("complete", {})])
    ['selection.hierarchical.complete']
    """
    from selection.registry import selector_entry

    names = [n if isinstance(n, str) else n[0] for n in names]
    return sorted({selector_entry(n).factory.__module__ for n in names})


def stage_store(home=None) -> Store:
    """The stage store ``<kgfs home>/store`` (the home defaults to :func:`flows.settings.kgfs_home`)."""
    from flows.settings import kgfs_home

    return store_at(Path(kgfs_home() if home is None else home) / "store")


def _cache_dir(home) -> Path:
    return stage_store(home).root.parent / "dbpedia-cache"


def _load(rec: Mapping, role: str):
    return json.loads((Path(rec["dir"]) / rec["files"][role]).read_text(encoding="utf-8"))


def read_table(record: Mapping) -> FeatureTable:
    """The table of a table record."""
    return FeatureTable.load(Path(record["dir"]) / record["files"]["table"])


def _table_stage(inputs: Mapping, make: Callable[[], FeatureTable], home, force) -> dict:
    """The ``table`` stage: ``make()``'s table as ``table.npz`` + ``summary.json``."""
    return stage_store(home).run("table", inputs, lambda d: (dict(_TABLE_FILES), write_table_folder(make(), d)),
                                 force=force)


def _json_stage(stage: str, inputs: Mapping, file: str, make: Callable[[], tuple], home, force) -> dict:
    """A stage whose output is one JSON file (its role is the file's stem): ``make() -> (payload, summary)``."""
    def compute(d: Path):
        payload, summary = make()
        write_json(d / file, payload)
        return {file.split(".")[0]: file}, summary

    return stage_store(home).run(stage, inputs, compute, force=force)


# --------------------------------------------------------------------------- GO route and registry tables
def stage_load_facts(spec: Mapping, *, home=None, force=False) -> dict:
    """Read the annotations (gene -> direct GO terms) and labels into ``facts.json``."""
    inputs = {"annotations": spec["annotations"]["sha256"],
              "labels": spec["labels"]["sha256"] if spec.get("labels") else None,
              "evidence": spec.get("options", {}).get("evidence"), "code": code_version("facts")}

    def make():
        ann, labels = read_facts(spec)
        # pairs, not a mapping: the JSON is written with sorted keys, and the genes' order is the
        # table's row order (so `kgfs run` folds equal those of the Python API on the same files)
        return {"annotations": [[g, t] for g, t in ann.items()], "labels": labels}, {
            "n_genes": len(ann), "n_annotations": int(sum(len(v) for v in ann.values())),
            "n_labels": None if labels is None else len(labels)}

    return _json_stage("facts", inputs, "facts.json", make, home, force)


def stage_build_table(spec: Mapping, facts_rec: Mapping, *, home=None, force=False) -> dict:
    """Build the GO table from the facts of :func:`stage_load_facts` (``table.npz``)."""
    inputs = {"facts": facts_rec["hash"], "ontology": spec["ontology"]["sha256"], "name": spec.get("name"),
              "options": spec.get("options", {}), "code": code_version("table")}

    def make():
        facts = _load(facts_rec, "facts")
        return build_go_table(spec, (dict(facts["annotations"]), facts["labels"]))

    return _table_stage(inputs, make, home, force)


def stage_load_dataset(spec: Mapping, *, home=None, force=False) -> dict:
    """A registry dataset with its own loader (AIRE, RPV, LD, ...), as one stage."""
    inputs = {"name": spec["name"], "files": {r: f["sha256"] for r, f in spec.get("files", {}).items()},
              "options": spec.get("options", {}), "code": code_version("dataset")}
    return _table_stage(inputs, lambda: load_spec_dataset(spec), home, force)


# --------------------------------------------------------------------------- DBpedia route
def corpus_batches(spec: Mapping, batch_size: int = 500) -> list[list[int]]:
    """``[start, stop)`` ranges of the spec's corpus, ``batch_size`` instances each."""
    return dbpedia.corpus_batches(len(ROUTE.corpus(spec)), batch_size)


def stage_annotate_batch(spec: Mapping, start: int, stop: int, *, home=None, force=False) -> dict:
    """Entity linking of instances ``start:stop`` (Spotlight or the lexicon; or the corpus's entity columns)."""
    opts = spec.get("options", {})
    inputs = {"corpus": spec["corpus"]["sha256"], "range": [int(start), int(stop)], **dbpedia.annotator_inputs(spec),
              "columns": {k: opts.get(k) for k in ("text_column", "id_column", "label_column", "entity_columns")},
              "code": code_version("dbpedia")}

    def make():
        corpus = ROUTE.corpus(spec)
        annotator = None if corpus.entities is not None else ROUTE.annotator(spec, _cache_dir(home))
        return dbpedia.annotate_batch(corpus, start, stop, annotator)

    return _json_stage("annotate-batch", inputs, "entities.json", make, home, force)


def stage_annotate(spec: Mapping, batches: Sequence[Mapping], *, home=None, force=False) -> dict:
    """The corpus's entities (``entities.json``, corpus order), merged from the batch records."""
    inputs = {"batches": [b["hash"] for b in batches], "corpus": spec["corpus"]["sha256"],
              "code": code_version("dbpedia")}
    return _json_stage("annotate", inputs, "entities.json",
                       lambda: dbpedia.merge_annotations(_load(b, "entities") for b in batches), home, force)


def entity_batches(annotate_rec: Mapping, batch_size: int = 500) -> list[list[str]]:
    """The distinct entities of an annotate record (sorted), in batches for the fetch stage."""
    return dbpedia.entity_batches(_load(annotate_rec, "entities"), batch_size)


def stage_fetch_batch(spec: Mapping, entities: Sequence[str], *, home=None, force=False) -> dict:
    """Direct types (or categories) of a batch of entities, from the SPARQL endpoint or the dump."""
    entities = sorted(entities)
    inputs = {"entities": hashlib.sha256("\n".join(entities).encode()).hexdigest(), **dbpedia.source_inputs(spec),
              "code": code_version("dbpedia")}
    return _json_stage("fetch-batch", inputs, "facts.json", lambda: dbpedia.fetch_features(
        ROUTE.source(spec, _cache_dir(home)), entities, dbpedia.source_inputs(spec)["features"]), home, force)


def stage_fetch(spec: Mapping, batches: Sequence[Mapping], *, home=None, force=False) -> dict:
    """Merge the entities' direct features and fetch the hierarchy above them (``facts.json``)."""
    depth = spec.get("options", {}).get("category_depth", 2)
    inputs = {"batches": [b["hash"] for b in batches], **dbpedia.source_inputs(spec), "category_depth": depth,
              "code": code_version("dbpedia")}

    def make():
        per: dict[str, list[str]] = {}
        for b in batches:
            per.update(_load(b, "facts"))
        source = ROUTE.source(spec, _cache_dir(home))
        return dbpedia.fetch_hierarchy(source, per, dbpedia.source_inputs(spec)["features"], depth)

    return _json_stage("fetch", inputs, "facts.json", make, home, force)


def stage_dbpedia_table(spec: Mapping, annotate_rec: Mapping, fetch_rec: Mapping, *, home=None,
                        force=False) -> dict:
    """Build the DAG (cycles broken and reported) and the closed table from the stored answers."""
    opts = spec.get("options", {})
    inputs = {"annotate": annotate_rec["hash"], "fetch": fetch_rec["hash"], "name": spec.get("name"),
              "features": opts.get("features", "types"), "min_support": opts.get("min_support", 1),
              "category_depth": opts.get("category_depth", 2), "code": code_version("dbpedia")}
    return _table_stage(inputs, lambda: dbpedia.table_from_records(
        spec, ROUTE.corpus(spec), _load(annotate_rec, "entities"), _load(fetch_rec, "facts")), home, force)


# --------------------------------------------------------------------------- select, evaluate, export
def stage_select(table_rec: Mapping, selector: str, params: Mapping | None = None, *, home=None,
                 force=False) -> dict:
    """Fit the selector on the whole table: ``selection.csv`` (all features) and ``selected_features.csv``."""
    params = dict(sorted((params or {}).items()))
    inputs = {"table": table_rec["hash"], "selector": selector, "params": params,
              "code": code_version("select", selector_modules([selector]))}

    def compute(d: Path):
        from selection.frames import select_features, write_selection  # imports scikit-learn

        table = read_table(table_rec)
        _sel, frame = select_features(table, selector, params)
        return write_selection(frame, d), {"selector": selector, "params": params, "n_features": int(table.n_features),
                                           "n_selected": int(frame["selected"].sum())}

    return stage_store(home).run("select", inputs, compute, force=force)


def stage_evaluate(table_rec: Mapping, selectors: Sequence, classifiers: Sequence[str], *, dataset: str,
                   protocol: str = "basic", n_splits: int = 10, random_state: int = 0, n_jobs: int = 1, home=None,
                   force=False, progress: Callable[[int, int], None] | None = None, plots: bool = True) -> dict:
    """Cross-validate selectors x classifiers on the table (:func:`selection.evaluation.grid.run_grid`).

    Finished cells are kept in the stage folder, so an interrupted evaluation resumes. The
    grid's results, summary, report and PNG plots (roles ``plot:<name>``) are the record's files.
    """
    # a selector is a name or a [name, params] pair (JSON-friendly, as Prefect parameters are)
    selectors = [s if isinstance(s, str) else [s[0], dict(sorted(dict(s[1]).items()))] for s in selectors]
    classifiers = list(classifiers)
    inputs = {"table": table_rec["hash"], "selectors": selectors, "classifiers": classifiers,
              "dataset": dataset, "protocol": protocol, "n_splits": int(n_splits), "seed": int(random_state),
              "code": code_version("evaluate", selector_modules(selectors)), "plots": bool(plots)}

    def compute(d: Path):
        import pandas as pd

        from selection.evaluation.grid import run_grid, write_skipped  # imports matplotlib: only when the grid runs
        from selection.evaluation.plan import fold_policy, plan_evaluation
        from selection.evaluation.report import ReportSettings

        specs = [s if isinstance(s, str) else (s[0], s[1]) for s in selectors]
        table = read_table(table_rec)
        folds, note = fold_policy(table.y, n_splits)  # fewer folds, or none, when a class is too small
        res = run_grid({dataset: table}, plan_evaluation(protocol, specs, classifiers, n_splits=folds,
                                                         random_state=random_state),
                       out_dir=d / "grid", n_jobs=n_jobs, progress=progress,
                       report=ReportSettings(plots=plots)) if folds else \
            write_skipped(d / "grid", note, protocol=protocol)
        files = {role: str(Path(p).relative_to(d)) for role, p in
                 (("evaluation", res.results), ("summary", res.summary), ("report", res.report)) if Path(p).is_file()}
        files.update({f"plot:{Path(p).name}": str(Path(p).relative_to(d)) for p in res.plots or []})
        return files, {"n_rows": len(pd.read_csv(res.results)), "n_computed": res.n_computed,
                       "n_reused": res.n_reused, "n_failed": res.n_failed, "report": str(res.report),
                       "folds": folds, "note": note}

    return stage_store(home).run("evaluate", inputs, compute, force=force)


def stage_export(table_rec: Mapping, select_rec: Mapping | None = None, *, sparse_arff: bool = True, home=None,
                 force=False) -> dict:
    """The table as ARFF and CSV and its hierarchy as an edges CSV; with a selection record, also the
    table reduced to the selected features (so the export is downstream of the selector)."""
    inputs = {"table": table_rec["hash"], "select": select_rec["hash"] if select_rec else None,
              "sparse_arff": bool(sparse_arff), "code": code_version("export")}

    def compute(d: Path):
        table = read_table(table_rec)
        files = export_table(table, d, sparse_arff=sparse_arff)
        summary = {"n_instances": table.n_instances, "n_features": table.n_features}
        if select_rec:
            from selection.frames import read_selected

            chosen = read_selected(Path(select_rec["dir"]) / select_rec["files"]["selected"])
            more, summary["n_selected"] = export_selected(table, chosen, d, sparse_arff=sparse_arff)
            files.update(more)
        return files, summary

    return stage_store(home).run("export", inputs, compute, force=force)
