"""The pipeline's stages as plain functions over an on-disk, content-addressed stage store.

No Prefect here: :mod:`flows.pipeline` wraps these functions in cached Prefect tasks, and the
single-step commands (``kgfs build``, ``kgfs select``, ...) call the same library functions
directly. Every stage

- is named by a key: the sha256 of its inputs (upstream records' content hashes, its
  parameters, and the source hash of the code it runs, :func:`code_version`);
- writes its outputs into ``<kgfs home>/store/<stage>/<key>/``, each file atomically, and
  ``record.json`` last (a stage folder without ``record.json`` is unfinished and is recomputed;
  the evaluation keeps its finished cells, so an interrupted run resumes);
- returns a small JSON-serialisable *record*: ``{"stage", "key", "dir", "files": {role: name},
  "hash", "summary"}`` where ``hash`` is the sha256 of the output files' contents.

The work itself is done by ``kg`` (reading, building the table, export) and ``selection``
(selectors, evaluation grid).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import shutil
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from kg.errors import KgfsError
from kg.files import atomic_write, sha256_file
from kg.table import FeatureTable

__all__ = [
    "STORE_FORMAT",
    "code_version",
    "resolve_source",
    "stage_load_facts",
    "stage_build_table",
    "stage_load_dataset",
    "stage_corpus_table",
    "stage_annotate_batch",
    "stage_annotate",
    "stage_fetch_batch",
    "stage_fetch",
    "stage_dbpedia_table",
    "corpus_batches",
    "entity_batches",
    "stage_select",
    "stage_evaluate",
    "stage_export",
    "publish",
    "read_table",
    "record_valid",
    "select_features",
    "selection_frame",
    "summary_frame",
    "store_dir",
    "list_store",
    "clear_store",
]

log = logging.getLogger(__name__)

STORE_FORMAT = 1
DEFAULT_DATASET = "bundled/DM-BP"

# The modules whose source decides each stage's output (their hash is part of the stage key).
_STAGE_MODULES = {
    "facts": ["kg.go.obo", "kg.go.annotations", "kg.go.table", "flows.stages"],
    "table": ["kg.go.obo", "kg.go.annotations", "kg.go.table", "kg.table", "kg.hierarchy", "flows.stages"],
    "dataset": ["kg.datasets", "kg.formats.published", "kg.go.obo", "kg.go.annotations", "kg.go.table", "kg.table", "kg.hierarchy", "flows.stages"],
    "select": ["selection.base", "selection.measures.relevance", "selection.registry", "flows.stages"],
    "evaluate": ["selection.evaluation.cv", "selection.evaluation.grid", "selection.evaluation.metrics", "selection.evaluation.protocols",
                 "selection.evaluation.report", "selection.classifiers", "selection.lazy.selectors", "selection.lazy.classifiers", "flows.stages"],
    "export": ["kg.formats.arff", "kg.formats.csv_io", "flows.stages"],
    "dbpedia": ["kg.dbpedia.route", "kg.dbpedia.corpus", "kg.dbpedia.sources", "kg.dbpedia.sparql", "kg.dbpedia.spotlight", "kg.dbpedia.dumps", "kg.dbpedia.lexicon",
                "kg.iri", "kg.table", "kg.hierarchy", "flows.stages"],
}

_HASHES: dict[str, str] = {}


def _module_source_hash(name: str) -> str:
    if name not in _HASHES:
        spec = importlib.util.find_spec(name)
        h = hashlib.sha256(name.encode())
        if spec is not None and spec.origin and os.path.isfile(spec.origin):
            h.update(Path(spec.origin).read_bytes())
        _HASHES[name] = h.hexdigest()[:12]
    return _HASHES[name]


def code_version(stage: str, extra_modules: Sequence[str] = ()) -> str:
    """A string naming the code a stage runs: the kgfs version plus its modules' source hashes.

    Part of every stage key (and of the Prefect cache key), so editing the code recomputes
    exactly the stages that run it.
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        v = version("kgfs")
    except PackageNotFoundError:  # running from a source tree
        v = "0+src"
    mods = sorted(set(_STAGE_MODULES.get(stage, [])) | set(extra_modules))
    digest = hashlib.sha256("|".join(f"{m}={_module_source_hash(m)}" for m in mods).encode()).hexdigest()[:16]
    return f"kgfs-{v}-store{STORE_FORMAT}-{stage}-{digest}"


def selector_modules(names: Sequence) -> list[str]:
    """Modules that define the given selectors (names or ``(name, params)`` specs)."""
    from selection.registry import selector_entry

    names = [n if isinstance(n, str) else n[0] for n in names]
    return sorted({selector_entry(n).factory.__module__ for n in names})



def _jsonable(o):
    if isinstance(o, Path):
        return str(o)
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    raise TypeError(f"not JSON-serialisable: {type(o).__name__}")


def _dumps(obj) -> str:
    return json.dumps(obj, sort_keys=True, default=_jsonable, indent=1)


def _write_json(path: Path, obj) -> None:
    text = _dumps(obj)
    atomic_write(path, lambda tmp: tmp.write_text(text + "\n", encoding="utf-8"))


# --------------------------------------------------------------------------- the store
def store_dir(home: str | os.PathLike | None = None) -> Path:
    if home is None:
        from flows.settings import kgfs_home

        home = kgfs_home()
    return Path(home) / "store"


def stage_key(stage: str, inputs: Mapping) -> str:
    payload = {"format": STORE_FORMAT, "stage": stage, "inputs": inputs}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=_jsonable).encode()).hexdigest()


def record_valid(record: Mapping | None) -> bool:
    """True when every file of a record is still on disk (a cleared store invalidates it)."""
    if not record or "dir" not in record:
        return False
    d = Path(record["dir"])
    return (d / "record.json").is_file() and all((d / f).is_file() for f in record.get("files", {}).values())


def content_sha256(path: str | os.PathLike) -> str:
    """sha256 of a file's content; for ``.npz`` the arrays (zip members carry timestamps)."""
    path = Path(path)
    if path.suffix != ".npz":
        return sha256_file(path)
    h = hashlib.sha256()
    with np.load(path, allow_pickle=False) as z:
        for name in sorted(z.files):
            a = z[name]
            h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
            h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _files_hash(d: Path, files: Mapping[str, str]) -> str:
    h = hashlib.sha256()
    for role in sorted(files):
        h.update(role.encode() + b"\0" + content_sha256(d / files[role]).encode() + b"\0")
    return h.hexdigest()


def _run_stage(
    stage: str,
    inputs: Mapping,
    compute: Callable[[Path], tuple[dict, dict]],
    *,
    home=None,
    force: bool = False,
) -> dict:
    """Return the stage's record, computing it into the store unless a finished copy exists."""
    inputs = dict(inputs)
    key = stage_key(stage, inputs)
    d = store_dir(home) / stage / key[:24]
    rec_path = d / "record.json"
    if not force and rec_path.is_file():
        try:
            rec = json.loads(rec_path.read_text(encoding="utf-8"))
            if rec.get("key") == key and record_valid(rec):
                rec["reused"] = True
                return rec
        except (OSError, ValueError):
            pass  # unreadable record: recompute
    d.mkdir(parents=True, exist_ok=True)
    if rec_path.exists():
        rec_path.unlink()
    # temporary files of a writer that was killed (atomic_write's ``.name.*.tmp``): never artifacts
    for tmp in d.rglob(".*.tmp"):
        tmp.unlink(missing_ok=True)
    files, summary = compute(d)
    rec = {
        "stage": stage,
        "key": key,
        "dir": str(d),
        "files": dict(sorted(files.items())),
        "hash": _files_hash(d, files),
        "summary": summary,
        "inputs": inputs,
    }
    _write_json(d / "record.json", rec)
    rec = json.loads(_dumps(rec))  # exactly what a reuse reads back (tuples become lists, ...)
    rec["reused"] = False
    return rec


def list_store(home=None) -> list[dict]:
    """Every finished stage record of the store (for ``kgfs cache ls``)."""
    out = []
    root = store_dir(home)
    if not root.is_dir():
        return out
    for rec_path in sorted(root.glob("*/*/record.json")):
        try:
            rec = json.loads(rec_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        size = sum(p.stat().st_size for p in rec_path.parent.rglob("*") if p.is_file())
        rec["bytes"] = size
        rec["mtime"] = rec_path.stat().st_mtime
        out.append(rec)
    return out


def clear_store(home=None, stage: str | None = None) -> int:
    """Remove the stage store (or one stage's folders); returns the number of folders removed."""
    root = store_dir(home)
    if not root.is_dir():
        return 0
    targets = [root / stage] if stage else [p for p in root.iterdir() if p.is_dir()]
    n = 0
    for t in targets:
        if t.is_dir():
            n += sum(1 for p in t.iterdir() if p.is_dir())
            shutil.rmtree(t)
    return n


# --------------------------------------------------------------------------- sources
def _file_entry(path) -> dict | None:
    if path is None:
        return None
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(2, "No such file", str(p))
    return {"path": str(p.absolute()), "sha256": sha256_file(p)}


def resolve_source(
    *,
    dataset: str | None = None,
    obo=None,
    annotations=None,
    labels=None,
    mirror=None,
    namespaces=None,
    relations: Sequence[str] = ("is_a",),
    evidence: Sequence[str] | None = None,
    min_support: int | None = None,
    on_obsolete: str | None = None,
    unknown: str | None = None,
    check: str | None = None,
    corpus=None,
    corpus_options: Mapping | None = None,
    name: str | None = None,
) -> dict:
    """Describe the input of a run as a JSON-serialisable spec (paths + content hashes).

    Either a registry dataset name (a ``go_bundle`` dataset such as ``bundled/DM-BP`` goes
    through the GO route stage by stage; any other is loaded by its loader in one stage), or
    an OBO file with annotations (and labels).
    """
    if corpus is not None:
        spec = _dbpedia_source(corpus, dict(corpus_options or {}), min_support)
        if name:
            spec["name"] = name
        return spec
    if obo is not None or annotations is not None:
        if obo is None or annotations is None:
            raise KgfsError("the GO route needs both --obo and --annotations")
        spec = {"kind": "go", "name": Path(annotations).stem, "ontology": _file_entry(obo),
                "annotations": _file_entry(annotations), "labels": _file_entry(labels), "options": {}}
    else:
        from kg.datasets import dataset_info, fetch

        dname = dataset or DEFAULT_DATASET
        info = dataset_info(dname)
        if info.loader == "go_bundle":
            paths = fetch(dname, mirror=mirror)
            spec = {"kind": "go", "name": dname, "ontology": _file_entry(paths["ontology"]),
                    "annotations": _file_entry(paths["annotations"]),
                    "labels": _file_entry(paths.get("labels")), "options": dict(info.options)}
        else:
            paths = fetch(dname, mirror=mirror) if info.files else {}
            files = {role: {"path": str(p), "sha256": info.files[role].sha256 or sha256_file(p)}
                     for role, p in sorted(paths.items())}
            spec = {"kind": "dataset", "name": dname, "files": files, "mirror": str(mirror) if mirror else None,
                    "options": {"check": check} if check and info.loader in ("aire", "rpv", "lod") else {}}
    opts = spec["options"]
    if spec["kind"] == "go":
        if namespaces is not None:
            opts["namespaces"] = namespaces
        if relations is not None and tuple(relations) != ("is_a",):
            opts["relations"] = sorted(relations)
        if evidence:
            opts["evidence"] = sorted(evidence)
        if on_obsolete is not None:
            opts["on_obsolete"] = on_obsolete
        if unknown is not None:
            opts["unknown"] = unknown
    if min_support is not None:
        opts["min_support"] = int(min_support)
    if name and spec["kind"] == "go":  # tables loaded by a registry loader keep their registry name
        spec["name"] = name
    return spec


# --------------------------------------------------------------------------- stage: facts
def read_facts(spec: Mapping) -> tuple[dict, dict | None]:
    """GO route: the direct annotations and labels of a ``go`` spec."""
    from kg.go import read_annotations, read_labels

    opts = spec.get("options", {})
    ann = read_annotations(spec["annotations"]["path"], evidence=opts.get("evidence"))
    labels = read_labels(spec["labels"]["path"]) if spec.get("labels") else None
    return ann, labels


def stage_load_facts(spec: Mapping, *, home=None, force=False) -> dict:
    """Read the annotations (gene -> direct GO terms) and labels into ``facts.json``."""
    inputs = {"annotations": spec["annotations"]["sha256"],
              "labels": spec["labels"]["sha256"] if spec.get("labels") else None,
              "evidence": spec.get("options", {}).get("evidence"), "code": code_version("facts")}

    def compute(d: Path):
        ann, labels = read_facts(spec)
        # pairs, not a mapping: the JSON is written with sorted keys, and the genes' order is the
        # table's row order (so `kgfs run` folds equal those of the Python API on the same files)
        _write_json(d / "facts.json", {"annotations": [[g, t] for g, t in ann.items()], "labels": labels})
        summary = {"n_genes": len(ann), "n_annotations": int(sum(len(v) for v in ann.values())),
                   "n_labels": None if labels is None else len(labels)}
        return {"facts": "facts.json"}, summary

    return _run_stage("facts", inputs, compute, home=home, force=force)


# --------------------------------------------------------------------------- stage: table
def _table_summary(table: FeatureTable) -> dict:
    out = {"n_instances": int(table.n_instances), "n_features": int(table.n_features),
           "n_edges": int(table.hierarchy.n_edges), "nnz": int(table.X.nnz)}
    if table.y is not None:
        vals, counts = np.unique(table.y.astype(str), return_counts=True)
        out["classes"] = {str(v): int(c) for v, c in zip(vals.tolist(), counts.tolist())}
    meta = {}
    for k, v in table.meta.items():
        meta[k] = (len(v) if isinstance(v, (list, dict)) else v)
    out["meta"] = meta
    return out


def build_go_table(spec: Mapping, facts: tuple[dict, dict | None] | None = None) -> FeatureTable:
    """GO route: read the ontology and build the closed table (``kg.go``)."""
    from kg.go import build_table, read_obo

    opts = dict(spec.get("options", {}))
    ann, labels = facts if facts is not None else read_facts(spec)
    go = read_obo(spec["ontology"]["path"], relations=tuple(opts.get("relations", ("is_a",))),
                  namespaces=opts.get("namespaces"))
    kw = {k: opts[k] for k in ("min_support", "unknown", "on_obsolete") if k in opts}
    table = build_table(go, ann, labels, **kw)
    table.meta.setdefault("dataset", spec.get("name", "table"))
    return table


def write_table_folder(table: FeatureTable, out: Path) -> dict:
    """``out/table.npz`` plus ``out/summary.json``; returns the summary."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    table.save(out / "table.npz")
    summary = _table_summary(table)
    summary["dataset"] = table.meta.get("dataset")
    _write_json(out / "summary.json", summary)
    return summary


def stage_build_table(spec: Mapping, facts_rec: Mapping, *, home=None, force=False) -> dict:
    """Build the GO table from the facts of :func:`stage_load_facts` (``table.npz``)."""
    inputs = {"facts": facts_rec["hash"], "ontology": spec["ontology"]["sha256"], "name": spec.get("name"),
              "options": spec.get("options", {}), "code": code_version("table")}

    def compute(d: Path):
        facts = json.loads((Path(facts_rec["dir"]) / facts_rec["files"]["facts"]).read_text(encoding="utf-8"))
        table = build_go_table(spec, (dict(facts["annotations"]), facts["labels"]))
        summary = write_table_folder(table, d)
        return {"table": "table.npz", "summary": "summary.json"}, summary

    return _run_stage("table", inputs, compute, home=home, force=force)


def stage_load_dataset(spec: Mapping, *, home=None, force=False) -> dict:
    """A registry dataset with its own loader (AIRE, RPV, LD, ...), as one stage."""
    from kg.datasets import load_dataset

    inputs = {"name": spec["name"], "files": {r: f["sha256"] for r, f in spec.get("files", {}).items()},
              "options": spec.get("options", {}), "code": code_version("dataset")}

    def compute(d: Path):
        opts = dict(spec.get("options", {}))
        ms = opts.pop("min_support", None)
        table = load_dataset(spec["name"], mirror=spec.get("mirror"), **opts)
        if ms:
            table = table.drop_rare(int(ms))
        summary = write_table_folder(table, d)
        return {"table": "table.npz", "summary": "summary.json"}, summary

    return _run_stage("table", inputs, compute, home=home, force=force)


# --------------------------------------------------------------------------- DBpedia route
_DUMP_HASH_LIMIT = 256 << 20  # dumps up to this size are hashed by content, bigger ones by size + mtime
_DBPEDIA_OPTIONS = ("annotator", "kg", "sparql_url", "spotlight_url", "features", "category_depth", "text_column",
                    "label_column", "id_column", "entity_columns", "type_namespaces", "skip_bad_lines")


def _dump_fingerprint(paths: Sequence) -> list:
    files: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*") if f.is_file()))
        elif p.is_file():
            files.append(p)
        else:
            raise FileNotFoundError(2, "No such file or directory", str(p))
    total = sum(f.stat().st_size for f in files)
    by_content = total <= _DUMP_HASH_LIMIT
    return [[str(f.absolute()), sha256_file(f) if by_content else f"size={f.stat().st_size};mtime={f.stat().st_mtime_ns}"]
            for f in files]


def _dbpedia_source(corpus, options: dict, min_support) -> dict:
    """A ``dbpedia`` spec: the corpus (content hash), the dump files (fingerprint) and the route's options."""
    unknown = sorted(set(options) - set(_DBPEDIA_OPTIONS) - {"dump"})
    if unknown:
        raise KgfsError(f"unknown DBpedia route option(s): {', '.join(unknown)}")
    dump = options.pop("dump", None)
    dumps = [dump] if isinstance(dump, (str, os.PathLike)) else list(dump or [])
    opts = {k: v for k, v in sorted(options.items()) if v is not None}
    if min_support is not None:
        opts["min_support"] = int(min_support)
    return {"kind": "dbpedia", "name": Path(corpus).stem, "corpus": _file_entry(corpus),
            "dump": [str(Path(d).absolute()) for d in dumps], "dump_files": _dump_fingerprint(dumps),
            "options": opts}


def build_dbpedia_table(spec: Mapping, *, cache_dir=None, progress=None) -> FeatureTable:
    """DBpedia route (``kg.dbpedia.route.corpus_table``): annotate, fetch types/categories, build the table."""
    from kg.dbpedia.route import corpus_table

    opts = dict(spec.get("options", {}))
    kw = {k: opts[k] for k in _DBPEDIA_OPTIONS if k in opts}
    if "min_support" in opts:
        kw["min_support"] = opts["min_support"]
    dump = spec.get("dump") or None
    if dump is not None and len(dump) == 1:
        dump = dump[0]
    table = corpus_table(spec["corpus"]["path"], dump=dump, cache_dir=cache_dir, progress=progress, **kw)
    table.meta["dataset"] = spec.get("name", table.meta.get("dataset"))
    return table


def stage_corpus_table(spec: Mapping, *, home=None, force=False, progress=None) -> dict:
    """The DBpedia route's table as one stage (``table.npz``); network answers are cached by the route.

    ``kgfs run`` runs the route as three stages instead (:func:`stage_annotate`,
    :func:`stage_fetch`, :func:`stage_dbpedia_table`); this one-stage form is for library use.
    """
    inputs = {"corpus": spec["corpus"]["sha256"], "dump": spec.get("dump_files", []), "options": spec.get("options", {}),
              "name": spec.get("name"), "code": code_version("dbpedia")}

    def compute(d: Path):
        cache = store_dir(home).parent / "dbpedia-cache"
        table = build_dbpedia_table(spec, cache_dir=cache, progress=progress)
        summary = write_table_folder(table, d)
        return {"table": "table.npz", "summary": "summary.json"}, summary

    return _run_stage("table", inputs, compute, home=home, force=force)


# --------------------------------------------------------------------------- DBpedia route, stage by stage
# annotate (per batch of texts) -> fetch facts (per batch of entities, then the hierarchy's edges)
# -> build DAG and table. The external calls (Spotlight, SPARQL) happen in the batch stages, which
# :mod:`flows.pipeline` runs as Prefect tasks with retries and a concurrency limit; the answers are
# also cached at the source boundary (``<home>/dbpedia-cache``).
_ROUTE_OBJECTS: dict[str, object] = {}
_CORPORA: dict[str, object] = {}
# batch tasks run in threads: build each lexicon/source (and read each corpus) once, not once per thread
_ROUTE_LOCK = threading.Lock()


def _dump_arg(spec: Mapping):
    dump = spec.get("dump") or None
    return dump[0] if dump is not None and len(dump) == 1 else dump


def _cache_dir(home) -> Path:
    return store_dir(home).parent / "dbpedia-cache"


def load_spec_corpus(spec: Mapping):
    """The corpus of a ``dbpedia`` spec (read once per process)."""
    from kg.dbpedia.corpus import load_corpus

    opts = spec.get("options", {})
    key = json.dumps([spec["corpus"]["sha256"], {k: opts.get(k) for k in ("text_column", "id_column", "label_column",
                                                                           "entity_columns")}], sort_keys=True)
    with _ROUTE_LOCK:
        return _load_corpus_locked(key, spec, opts, load_corpus)


def _load_corpus_locked(key, spec, opts, load_corpus):
    if key not in _CORPORA:
        _CORPORA.clear()  # one corpus at a time is enough (a watch tick processes them in turn)
        _CORPORA[key] = load_corpus(spec["corpus"]["path"], id_column=opts.get("id_column", "id"),
                                    text_column=opts.get("text_column", "text"),
                                    label_column=opts.get("label_column", "label"),
                                    entity_columns=opts.get("entity_columns"))
    return _CORPORA[key]


def _annotator_inputs(spec: Mapping) -> dict:
    opts = spec.get("options", {})
    kind = opts.get("annotator", "lexicon")
    return {"annotator": kind, "spotlight_url": opts.get("spotlight_url") if kind == "spotlight" else None,
            "dump": spec.get("dump_files", []) if kind == "lexicon" else None}


def _source_inputs(spec: Mapping) -> dict:
    opts = spec.get("options", {})
    kind = opts.get("kg") or ("sparql" if opts.get("sparql_url") else "dump")
    return {"kg": kind, "sparql_url": opts.get("sparql_url") if kind == "sparql" else None,
            "dump": spec.get("dump_files", []) if kind == "dump" else None,
            "type_namespaces": opts.get("type_namespaces"), "features": opts.get("features", "types")}


def _route_object(kind: str, spec: Mapping, home):
    """The annotator or knowledge source of a spec, built once per process (a lexicon or dump is big)."""
    opts = spec.get("options", {})
    inputs = _annotator_inputs(spec) if kind == "annotator" else _source_inputs(spec)
    key = json.dumps([kind, inputs, str(_cache_dir(home))], sort_keys=True, default=str)
    with _ROUTE_LOCK:
        return _route_object_locked(key, kind, inputs, spec, opts, home)


def _route_object_locked(key, kind, inputs, spec, opts, home):
    from kg.dbpedia.route import make_annotator, make_source

    if key not in _ROUTE_OBJECTS:
        if kind == "annotator":
            obj = make_annotator(inputs["annotator"], spotlight_url=opts.get("spotlight_url"), dump=_dump_arg(spec),
                                 cache_dir=_cache_dir(home), skip_bad_lines=bool(opts.get("skip_bad_lines")))
        else:
            obj = make_source(inputs["kg"], sparql_url=opts.get("sparql_url"), dump=_dump_arg(spec),
                              cache_dir=_cache_dir(home), type_namespaces=opts.get("type_namespaces"),
                              skip_bad_lines=bool(opts.get("skip_bad_lines")))
        _ROUTE_OBJECTS[key] = obj
    return _ROUTE_OBJECTS[key]


def corpus_batches(spec: Mapping, batch_size: int = 500) -> list[list[int]]:
    """``[start, stop)`` ranges of the corpus's instances, ``batch_size`` each."""
    n = len(load_spec_corpus(spec))
    b = max(1, int(batch_size))
    return [[i, min(i + b, n)] for i in range(0, n, b)] or [[0, 0]]


def stage_annotate_batch(spec: Mapping, start: int, stop: int, *, home=None, force=False) -> dict:
    """Entity linking of instances ``start:stop`` (Spotlight or the lexicon; or the corpus's entity columns)."""
    from kg.dbpedia.corpus import Corpus
    from kg.dbpedia.route import link_entities

    opts = spec.get("options", {})
    inputs = {"corpus": spec["corpus"]["sha256"], "range": [int(start), int(stop)], **_annotator_inputs(spec),
              "columns": {k: opts.get(k) for k in ("text_column", "id_column", "label_column", "entity_columns")},
              "code": code_version("dbpedia")}

    def compute(d: Path):
        c = load_spec_corpus(spec)
        sub = Corpus(ids=c.ids[start:stop], texts=None if c.texts is None else c.texts[start:stop],
                     entities=None if c.entities is None else c.entities[start:stop],
                     labels=None if c.labels is None else c.labels[start:stop], source=c.source)
        annotator = None if sub.entities is not None else _route_object("annotator", spec, home)
        ents, report = link_entities(sub, annotator)
        _write_json(d / "entities.json", {"ids": list(sub.ids), "entities": [ents[i] for i in sub.ids],
                                          "report": report})
        return {"entities": "entities.json"}, {"n_instances": len(sub), "n_mentions": report["n_mentions"]}

    return _run_stage("annotate-batch", inputs, compute, home=home, force=force)


def stage_annotate(spec: Mapping, batches: Sequence[Mapping], *, home=None, force=False) -> dict:
    """The corpus's entities (``entities.json``, corpus order), merged from the batch records."""
    inputs = {"batches": [b["hash"] for b in batches], "corpus": spec["corpus"]["sha256"],
              "code": code_version("dbpedia")}

    def compute(d: Path):
        ids, ents, invalid, mentions, empty = [], [], [], 0, 0
        for b in batches:
            data = json.loads((Path(b["dir"]) / b["files"]["entities"]).read_text(encoding="utf-8"))
            ids += data["ids"]
            ents += data["entities"]
            invalid += data["report"]["invalid_iris"]
            mentions += data["report"]["n_mentions"]
            empty += data["report"]["instances_without_entities"]
        report = {"invalid_iris": invalid, "n_mentions": mentions, "instances_without_entities": empty}
        _write_json(d / "entities.json", {"ids": ids, "entities": ents, "report": report})
        n_ent = len({e for es in ents for e in es})
        return {"entities": "entities.json"}, {"n_instances": len(ids), "n_entities": n_ent, **report,
                                               "invalid_iris": len(invalid)}

    return _run_stage("annotate", inputs, compute, home=home, force=force)


def entity_batches(annotate_rec: Mapping, batch_size: int = 500) -> list[list[str]]:
    """The distinct entities of an annotate record (sorted), in batches for the fetch stage."""
    data = json.loads((Path(annotate_rec["dir"]) / annotate_rec["files"]["entities"]).read_text(encoding="utf-8"))
    ents = sorted({e for es in data["entities"] for e in es})
    b = max(1, int(batch_size))
    return [ents[i:i + b] for i in range(0, len(ents), b)]


def stage_fetch_batch(spec: Mapping, entities: Sequence[str], *, home=None, force=False) -> dict:
    """Direct types (or categories) of a batch of entities, from the SPARQL endpoint or the dump."""
    entities = sorted(entities)
    inputs = {"entities": hashlib.sha256("\n".join(entities).encode()).hexdigest(), **_source_inputs(spec),
              "code": code_version("dbpedia")}

    def compute(d: Path):
        source = _route_object("source", spec, home)
        if _source_inputs(spec)["features"] == "categories":
            per = source.categories(entities)
        else:
            per = source.types(entities)
        _write_json(d / "facts.json", {e: sorted(per.get(e, ())) for e in entities})
        return {"facts": "facts.json"}, {"n_entities": len(entities),
                                         "n_with_features": sum(1 for e in entities if per.get(e))}

    return _run_stage("fetch-batch", inputs, compute, home=home, force=force)


def stage_fetch(spec: Mapping, batches: Sequence[Mapping], *, home=None, force=False) -> dict:
    """Merge the entities' direct features and fetch the hierarchy above them (``facts.json``)."""
    opts = spec.get("options", {})
    depth = opts.get("category_depth", 2)
    inputs = {"batches": [b["hash"] for b in batches], **_source_inputs(spec), "category_depth": depth,
              "code": code_version("dbpedia")}

    def compute(d: Path):
        per: dict[str, list[str]] = {}
        for b in batches:
            per.update(json.loads((Path(b["dir"]) / b["files"]["facts"]).read_text(encoding="utf-8")))
        nodes = sorted({f for fs in per.values() for f in fs})
        source = _route_object("source", spec, home)
        if _source_inputs(spec)["features"] == "categories":
            edges = source.broader(nodes, depth)
        else:
            edges = source.class_edges(nodes)
        desc = source.describe() if hasattr(source, "describe") else repr(source)
        _write_json(d / "facts.json", {"per_entity": per, "edges": sorted(map(list, edges)), "source": desc})
        return {"facts": "facts.json"}, {"n_entities": len(per), "n_direct_features": len(nodes),
                                         "n_edges": len(edges)}

    return _run_stage("fetch", inputs, compute, home=home, force=force)


class _StoredSource:
    """A knowledge source answering from a fetch record (so ``kg.dbpedia.route.build_table`` builds the table)."""

    def __init__(self, per_entity: Mapping, edges, desc):
        self._per = {e: set(v) for e, v in per_entity.items()}
        self._edges = {tuple(e) for e in edges}
        self._desc = desc

    def describe(self):
        return self._desc

    def types(self, entities):
        return {e: self._per.get(e, set()) for e in entities}

    categories = types

    def class_edges(self, classes):
        return set(self._edges)

    def broader(self, categories, depth):
        return set(self._edges)


def stage_dbpedia_table(spec: Mapping, annotate_rec: Mapping, fetch_rec: Mapping, *, home=None,
                        force=False) -> dict:
    """Build the DAG (cycles broken and reported) and the closed table (``kg.dbpedia.route.build_table``)."""
    opts = spec.get("options", {})
    inputs = {"annotate": annotate_rec["hash"], "fetch": fetch_rec["hash"], "name": spec.get("name"),
              "features": opts.get("features", "types"), "min_support": opts.get("min_support", 1),
              "category_depth": opts.get("category_depth", 2), "code": code_version("dbpedia")}

    def compute(d: Path):
        from kg.dbpedia.corpus import Corpus
        from kg.dbpedia.route import build_table

        ann = json.loads((Path(annotate_rec["dir"]) / annotate_rec["files"]["entities"]).read_text(encoding="utf-8"))
        facts = json.loads((Path(fetch_rec["dir"]) / fetch_rec["files"]["facts"]).read_text(encoding="utf-8"))
        c = load_spec_corpus(spec)
        corpus = Corpus(ids=ann["ids"], entities=ann["entities"], labels=c.labels, source=c.source)
        table = build_table(corpus, None, _StoredSource(facts["per_entity"], facts["edges"], facts["source"]),
                            features=opts.get("features", "types"), min_support=int(opts.get("min_support", 1)),
                            category_depth=opts.get("category_depth", 2), meta={"dataset": spec.get("name")})
        table.meta["annotator"] = _annotator_inputs(spec)["annotator"] if c.entities is None else None
        table.meta.update({k: v for k, v in ann["report"].items()})
        summary = write_table_folder(table, d)
        return {"table": "table.npz", "summary": "summary.json"}, summary

    return _run_stage("table", inputs, compute, home=home, force=force)


def read_table(record_or_dir) -> FeatureTable:
    """The table of a table record, or of a folder/``.npz`` written by ``kgfs build``."""
    if isinstance(record_or_dir, Mapping):
        return FeatureTable.load(Path(record_or_dir["dir"]) / record_or_dir["files"]["table"])
    p = Path(record_or_dir)
    if p.is_dir():
        p = p / "table.npz"
    if not p.is_file():
        raise KgfsError(f"{p}: no such table (expected a folder written by `kgfs build --out`, holding table.npz)")
    return FeatureTable.load(p)


# --------------------------------------------------------------------------- stage: select
def select_features(table: FeatureTable, selector: str, params: Mapping | None = None):
    """Fit ``selector`` on the whole table; returns ``(fitted selector, frame)`` (see :func:`selection_frame`)."""
    from selection.registry import get_selector

    if table.y is None:
        raise KgfsError("the table has no labels; selection needs a class")
    sel = get_selector(selector, table.hierarchy, **dict(params or {}))
    sel.fit(table.X, table.y)
    return sel, selection_frame(table, sel)


def selection_frame(table: FeatureTable, sel) -> pd.DataFrame:
    """One row per feature: id, name (when known), support, score, depth, selected."""
    mask = np.asarray(sel.get_support(), dtype=bool)
    scores = getattr(sel, "scores_", None)
    if scores is None:
        from selection.measures.relevance import information_gain

        scores = information_gain(table.X, table.y)
    h = table.hierarchy
    df = pd.DataFrame({
        "feature": table.feature_names,
        "support": table.support,
        "score": np.round(np.asarray(scores, dtype=float), 12),
        "level": np.asarray(h.levels),
        "n_parents": np.asarray(h.n_parents),
        "selected": mask,
    })
    names = table.meta.get("term_names") if isinstance(table.meta.get("term_names"), dict) else None
    if names:
        df.insert(1, "name", [names.get(f, "") for f in df["feature"]])
    return df


def stage_select(table_rec: Mapping, selector: str, params: Mapping | None = None, *, home=None,
                 force=False) -> dict:
    """Fit the selector on the whole table: ``selection.csv`` (all features) and ``selected_features.csv``."""
    params = dict(sorted((params or {}).items()))
    inputs = {"table": table_rec["hash"], "selector": selector, "params": params,
              "code": code_version("select", selector_modules([selector]))}

    def compute(d: Path):
        table = read_table(table_rec)
        sel, df = select_features(table, selector, params)
        df = df.sort_values(["selected", "score"], ascending=[False, False], kind="stable")
        atomic_write(d / "selection.csv", lambda t: df.to_csv(t, index=False))
        chosen = df[df["selected"]].drop(columns=["selected"])
        atomic_write(d / "selected_features.csv", lambda t: chosen.to_csv(t, index=False))
        summary = {"selector": selector, "params": params, "n_features": int(table.n_features),
                   "n_selected": int(df["selected"].sum())}
        return {"selection": "selection.csv", "selected": "selected_features.csv"}, summary

    return _run_stage("select", inputs, compute, home=home, force=force)


# --------------------------------------------------------------------------- stage: evaluate
def summary_frame(results: pd.DataFrame) -> pd.DataFrame:
    """Mean (and sd of accuracy) per dataset x selector x classifier over the folds."""
    ok = results[results.get("status", "ok").eq("ok")] if "status" in results else results
    g = ok.groupby(["dataset", "selector", "classifier"], sort=False)
    cols = [c for c in ("n_features", "n_selected", "accuracy", "auroc", "aucpr", "gm", "compression",
                        "harmonic_mean", "select_seconds") if c in ok]
    out = g[cols].mean()
    out.insert(cols.index("accuracy") + 1 if "accuracy" in cols else 0, "accuracy_sd", g["accuracy"].std())
    out.insert(0, "folds", g.size())
    return out.reset_index()


def stage_evaluate(
    table_rec: Mapping,
    selectors: Sequence[str],
    classifiers: Sequence[str],
    *,
    dataset: str,
    protocol: str = "basic",
    n_splits: int = 10,
    random_state: int = 0,
    n_jobs: int = 1,
    home=None,
    force=False,
    progress: Callable[[int, int], None] | None = None,
    plots: bool = True,
) -> dict:
    """Cross-validate selectors x classifiers on the table (``selection.evaluation.grid.run_grid``).

    Finished cells are kept in the stage folder, so an interrupted evaluation resumes. The
    grid's PNG plots (``plots=True``) are files of the record (roles ``plot:<name>``).
    """
    from selection.evaluation.grid import run_grid

    # a selector is a name or a [name, params] pair (JSON-friendly, as Prefect parameters are)
    selectors = [s if isinstance(s, str) else [s[0], dict(sorted(dict(s[1]).items()))] for s in selectors]
    classifiers = list(classifiers)
    inputs = {"table": table_rec["hash"], "selectors": selectors, "classifiers": classifiers,
              "dataset": dataset, "protocol": protocol, "n_splits": int(n_splits), "seed": int(random_state),
              "code": code_version("evaluate", selector_modules(selectors)), "plots": bool(plots)}

    def compute(d: Path):
        table = read_table(table_rec)
        specs = [s if isinstance(s, str) else (s[0], s[1]) for s in selectors]
        res = run_grid({dataset: table}, specs, classifiers, protocol=protocol, out_dir=d / "grid",
                       n_jobs=n_jobs, random_state=random_state, progress=progress, n_splits=n_splits,
                       plots=plots)
        results = pd.read_csv(res.results)
        atomic_write(d / "evaluation.csv", lambda t: results.to_csv(t, index=False))
        summ = summary_frame(results)
        atomic_write(d / "summary.csv", lambda t: summ.to_csv(t, index=False))
        summary = {"n_rows": len(results), "n_computed": res.n_computed, "n_reused": res.n_reused,
                   "n_failed": res.n_failed, "report": str(res.report)}
        files = {"evaluation": "evaluation.csv", "summary": "summary.csv"}
        if Path(res.report).is_file():
            files["report"] = str(Path(res.report).relative_to(d))
        for p in res.plots or []:
            files[f"plot:{Path(p).name}"] = str(Path(p).relative_to(d))
        return files, summary

    return _run_stage("evaluate", inputs, compute, home=home, force=force)


# --------------------------------------------------------------------------- stage: export
def export_table(table: FeatureTable, d: Path, *, sparse_arff: bool = True) -> dict:
    """ARFF (dense, and sparse when asked), CSV and the hierarchy's edges CSV into ``d``."""
    from kg.formats import write_arff, write_csv, write_edges_csv

    files = {"arff": "table.arff", "csv": "table.csv", "edges": "hierarchy.csv"}
    write_arff(table, d / files["arff"], sparse=False)
    if sparse_arff:
        files["arff_sparse"] = "table.sparse.arff"
        write_arff(table, d / files["arff_sparse"], sparse=True)
    write_csv(table, d / files["csv"])
    write_edges_csv(table.hierarchy, d / files["edges"])
    return files


def stage_export(table_rec: Mapping, select_rec: Mapping | None = None, *, sparse_arff: bool = True, home=None,
                 force=False) -> dict:
    """Write the table as ARFF and CSV and its hierarchy as an edges CSV; with a selection record,
    also the table reduced to the selected features (``table.selected.arff`` and its hierarchy
    ``hierarchy.selected.csv``), so the export is downstream of the selector."""
    inputs = {"table": table_rec["hash"], "select": select_rec["hash"] if select_rec else None,
              "sparse_arff": bool(sparse_arff), "code": code_version("export")}

    def compute(d: Path):
        from kg.formats import write_arff, write_edges_csv

        table = read_table(table_rec)
        files = export_table(table, d, sparse_arff=sparse_arff)
        summary = {"n_instances": table.n_instances, "n_features": table.n_features}
        if select_rec:
            chosen = pd.read_csv(Path(select_rec["dir"]) / select_rec["files"]["selected"])["feature"].astype(str)
            reduced = table.select_features(chosen.tolist())
            files["arff_selected"] = "table.selected.arff"
            files["edges_selected"] = "hierarchy.selected.csv"
            write_arff(reduced, d / files["arff_selected"], sparse=sparse_arff)
            write_edges_csv(reduced.hierarchy, d / files["edges_selected"])
            summary["n_selected"] = reduced.n_features
        return files, summary

    return _run_stage("export", inputs, compute, home=home, force=force)


# --------------------------------------------------------------------------- publishing
# output file name in the user's folder <- (record stage, file role)
OUTPUTS = {
    "table.arff": ("export", "arff"),
    "table.sparse.arff": ("export", "arff_sparse"),
    "table.csv": ("export", "csv"),
    "hierarchy.csv": ("export", "edges"),
    "table.selected.arff": ("export", "arff_selected"),
    "hierarchy.selected.csv": ("export", "edges_selected"),
    "table.npz": ("table", "table"),
    "selected_features.csv": ("select", "selected"),
    "selection.csv": ("select", "selection"),
    "evaluation.csv": ("evaluate", "evaluation"),
    "summary.csv": ("evaluate", "summary"),
    "report.md": ("evaluate", "report"),
}


def publish(records: Mapping[str, Mapping], out_dir, params: Mapping | None = None,
            runinfo: Mapping[str, Mapping] | None = None) -> dict[str, Path]:
    """Copy the stage outputs into the user's output folder (atomically) and write ``run.json``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for name, (stage, role) in OUTPUTS.items():
        rec = records.get(stage)
        if not rec or role not in rec.get("files", {}):
            continue
        src = Path(rec["dir"]) / rec["files"][role]
        atomic_write(out / name, lambda tmp, src=src: shutil.copyfile(src, tmp))
        written[name] = out / name
    ev = records.get("evaluate") or {}
    for role, rel in sorted(ev.get("files", {}).items()):
        if role.startswith("plot:"):  # the evaluation's PNG plots, under out/plots/
            name = f"plots/{role[5:]}"
            src = Path(ev["dir"]) / rel
            atomic_write(out / name, lambda tmp, src=src: shutil.copyfile(src, tmp))
            written[name] = out / name
    run = {"params": dict(params or {}),
           "stages": {k: {**{kk: v.get(kk) for kk in ("key", "hash", "dir", "summary")},
                          **dict((runinfo or {}).get(k, {}))}
                      for k, v in records.items() if v},
           "outputs": sorted(written)}
    _write_json(out / "run.json", run)
    written["run.json"] = out / "run.json"
    return written
