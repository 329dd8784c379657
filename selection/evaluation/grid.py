"""Run a protocol over datasets x selectors x classifiers x folds, in parallel and resumably.

:func:`run_grid` is what ``kgfs evaluate`` calls. The unit of work is one dataset x fold (all
pending selectors of that fold, each scored with every classifier); units run in parallel with
joblib (``n_jobs=-1``: all cores; folds and datasets are independent). Each finished
dataset x selector x classifier x fold *cell* is written at once, atomically, to
``out_dir/cells/<key>.json``, where ``key`` hashes (dataset name and content, selector and its
parameters, classifier and its parameters, fold, protocol and its options, number of folds,
seed, code version). A grid that is interrupted and started again reuses every finished cell
and computes only the rest; a change of data, parameters or code gives new keys.

The code version covers the source of every kgfs module and the installed versions of the
numerical dependencies (:func:`kg.store.store.code_digest`), plus the modules of selectors,
classifiers and protocols registered from outside kgfs: after any code change every cell is
computed again, never reused from other code. A cell file is reused only when it parses and
carries its key; a corrupt or truncated one is computed again, with a warning naming it.

Then the outputs of :func:`selection.evaluation.report.write_outputs` are written: ``results.csv``,
``summary.csv``, ``stats.md``, ``report.md`` and PNG plots (plus ``sweep.csv`` with every
threshold of a best-on-test sweep).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import logging
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from kg.errors import KgfsError
from kg.files import atomic_write
from kg.store.store import SOURCE_PACKAGES, code_digest
from selection.evaluation.cv import COLUMNS, check_folds, normalize_specs, spec_label
from selection.evaluation.plan import check_methods
from selection.evaluation.protocols import get_protocol
from selection.registry import available_selectors, classifier_entry, selector_entry

__all__ = ["GridResult", "run_grid", "table_fingerprint", "cell_key", "read_cell"]

log = logging.getLogger(__name__)

GRID_FORMAT = 1


@dataclass
class GridResult:
    """Paths of a finished grid and what it did (returned by :func:`run_grid`).

    Attributes
    ----------
    out_dir, results, summary, stats, report : Path
        The output folder and its ``results.csv``, ``summary.csv``, ``stats.md``, ``report.md``.
    plots : list of Path
        The PNG plots.
    sweep : Path or None
        ``sweep.csv`` (every threshold of a best-on-test sweep), when there is one.
    n_cells, n_computed, n_reused, n_failed : int
        Cells of the grid, computed now, reused from ``out_dir/cells``, and failed.
    seconds : float
        Wall time of the whole grid.

    Examples
    --------
    >>> r = GridResult(Path("out"), Path("out/results.csv"), Path("out/summary.csv"),
    ...                Path("out/stats.md"), Path("out/report.md"), n_cells=4, n_reused=4)
    >>> r.n_cells - r.n_reused
    0
    """

    out_dir: Path
    results: Path
    summary: Path
    stats: Path
    report: Path
    plots: list = field(default_factory=list)
    sweep: Path | None = None
    n_cells: int = 0
    n_computed: int = 0
    n_reused: int = 0
    n_failed: int = 0
    seconds: float = 0.0

    def frame(self) -> pd.DataFrame:
        """The results as a DataFrame.

        Returns
        -------
        pandas.DataFrame
            ``results.csv``, columns :data:`selection.evaluation.cv.COLUMNS`.
        """
        return pd.read_csv(self.results)


def table_fingerprint(table) -> str:
    """A short content hash of a table (matrix, labels, feature names).

    Parameters
    ----------
    table : kg.table.FeatureTable
        Anything with ``X``, ``y`` and ``feature_names``.

    Returns
    -------
    str
        16 hex digits; part of every cell's key.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> t = SimpleNamespace(X=sp.csr_matrix([[1, 0], [0, 1]]), y=[0, 1], feature_names=["a", "b"])
    >>> len(table_fingerprint(t)), table_fingerprint(t) == table_fingerprint(t)
    (16, True)
    """
    h = hashlib.sha256()
    X = sp.csr_matrix(table.X)
    for a in (X.indptr, X.indices, np.asarray(X.shape)):
        h.update(np.ascontiguousarray(a).astype(np.int64).tobytes())
    h.update("\x1f".join(map(str, np.asarray(table.y).tolist())).encode())
    h.update("\x1f".join(map(str, table.feature_names)).encode())
    return h.hexdigest()[:16]


@lru_cache(maxsize=64)
def _source_of(fn) -> str:
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):  # no source file (a C function, a partial, ...)
        return getattr(fn, "__qualname__", repr(fn))


def _code_version(selector: str, classifier: str, evaluate=None) -> str:
    """The code a cell depends on: every kgfs module and the numerical dependencies'
    versions (:func:`kg.store.store.code_digest`), plus the modules that define the selector, the
    classifier and the protocol's function when they come from outside kgfs (and that
    function's own source, for one defined in a notebook)."""
    mods = [classifier_entry(classifier).factory.__module__]
    if selector in available_selectors():
        mods.append(selector_entry(selector).factory.__module__)
    own = ""
    if evaluate is not None:
        mods.append(getattr(evaluate, "__module__", None) or "")
        if mods[-1].split(".")[0] not in SOURCE_PACKAGES:
            own = _source_of(evaluate)
    digest = code_digest([m for m in mods if m and m.split(".")[0] not in SOURCE_PACKAGES])
    return hashlib.sha256((digest + own).encode()).hexdigest()[:24]


def cell_key(*, dataset, fingerprint, selector, sparams, classifier, cparams, fold, protocol, options,
             n_splits, seed, evaluate=None) -> str:
    """The hash that names a cell's file (``out_dir/cells/<key>.json``).

    Parameters
    ----------
    dataset, fingerprint : str
        The dataset's name and :func:`table_fingerprint`.
    selector, classifier : str
        Registry names.
    sparams, cparams : mapping
        Their parameters.
    fold, n_splits, seed : int
        The fold and the cross-validation that made it.
    protocol, options : str
        The protocol's name and its options as canonical JSON.
    evaluate : callable, optional
        The protocol's evaluation function (its source is part of the code version).

    Returns
    -------
    str
        32 hex digits; any change of data, parameters or code (see the module docstring) gives
        another key.

    Examples
    --------
    >>> k = cell_key(dataset="d", fingerprint="f", selector="complete", sparams={}, classifier="nb",
    ...              cparams={}, fold=0, protocol="basic", options="{}", n_splits=10, seed=0)
    >>> len(k), k == cell_key(dataset="d", fingerprint="f", selector="complete", sparams={}, classifier="nb",
    ...                       cparams={}, fold=1, protocol="basic", options="{}", n_splits=10, seed=0)
    (32, False)
    """
    payload = {"v": GRID_FORMAT, "dataset": dataset, "data": fingerprint, "selector": selector,
               "sparams": sparams, "classifier": classifier, "cparams": cparams, "fold": int(fold),
               "protocol": protocol, "options": options, "n_splits": int(n_splits), "seed": int(seed),
               "code": _code_version(selector, classifier, evaluate)}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:32]


def _run_unit(evaluate, table, dataset, sel_specs, clf_specs, fold, n_splits, seed, options):
    """One dataset x fold for the given selectors (runs in a worker).

    The protocol's function itself is sent (joblib pickles it by reference or with cloudpickle),
    so protocols registered at run time work in worker processes too.
    """
    df = evaluate(table, sel_specs, clf_specs, dataset=dataset, n_splits=n_splits, random_state=seed,
                        folds=[fold], options=options)
    return dataset, fold, df


def _load_default(name):
    from kg.datasets import load_dataset

    return load_dataset(name)


def run_grid(
    datasets,
    selectors,
    classifiers=None,
    *,
    protocol: str = "basic",
    out_dir,
    n_jobs: int = -1,
    random_state: int = 0,
    progress: Callable[[int, int], None] | None = None,
    load: Callable | None = None,
    n_splits: int | None = None,
    options: Mapping | None = None,
    control: str | None = None,
    alpha: float = 0.05,
    plots: bool = True,
    title: str | None = None,
    alternative: str | None = None,
) -> GridResult:
    """Evaluate every dataset x selector x classifier x fold under ``protocol``.

    Parameters
    ----------
    datasets : list of str or mapping name -> FeatureTable
        Registry names are loaded with ``load(name)`` (default ``kg.datasets.load_dataset``).
    selectors, classifiers : list of str or (name, params)
        ``classifiers=None`` takes the protocol's (e.g. NB, 3-NN, SVM for ``shsel2014``).
    protocol : str
        ``basic``, ``shsel2014``, ``rpv2020`` or one added with
        :func:`selection.evaluation.protocols.register_protocol`.
    out_dir : path
        Output folder; finished cells are kept under ``out_dir/cells``.
    n_jobs : int
        joblib workers (-1: every core; 1: in this process).
    random_state : int
        Seed of the folds (and of inner CV folds).
    progress : callable, optional
        ``progress(done_cells, total_cells)``, called as cells finish (reused cells count as done).
    load : callable, optional
        ``load(name) -> FeatureTable`` for dataset names (default ``kg.datasets.load_dataset``).
    n_splits : int, optional
        Folds (default: the protocol's, 10).
    options : mapping, optional
        Protocol options, e.g. ``{"threshold_choice": "best-on-test"}`` for ``shsel2014``.
    control : str, optional
        Control method of the Holm test (default: the protocol's, else the first selector).
    alpha : float
        Significance level of the tests in the report.
    plots : bool
        Write the PNG plots.
    title : str, optional
        Title of the report (default: "Evaluation report (<protocol>)").
    alternative : {"two-sided", "one-sided"}, optional
        Holm test p-values (default: the protocol's, ``one-sided`` for ``rpv2020`` as the paper,
        else ``two-sided``).

    Returns
    -------
    GridResult

    Examples
    --------
    >>> import tempfile
    >>> from kg.hierarchy import FeatureHierarchy
    >>> from kg.table import FeatureTable
    >>> h = FeatureHierarchy.from_edges([("b", "a")], nodes=["a", "b", "c"])
    >>> facts = {f"i{i}": (["b"] if i % 2 else ["c"]) for i in range(20)}
    >>> t = FeatureTable.from_facts(facts, h, labels={f"i{i}": i % 2 for i in range(20)})
    >>> with tempfile.TemporaryDirectory() as d:
    ...     r = run_grid({"toy": t}, ["complete"], ["nb"], out_dir=d, n_jobs=1, n_splits=2, plots=False)
    ...     again = run_grid({"toy": t}, ["complete"], ["nb"], out_dir=d, n_jobs=1, n_splits=2, plots=False)
    ...     accuracy = again.frame()["accuracy"].tolist()
    >>> r.n_cells, r.n_computed, again.n_reused, accuracy
    (2, 2, 2, [1.0, 1.0])
    """
    t_start = time.perf_counter()
    proto = get_protocol(protocol)
    n_splits = int(n_splits or proto.n_splits)
    options = dict(options or {})
    sel_specs, clf_specs = _checked_specs(proto, selectors, classifiers)
    labels = [spec_label(s, p) for s, p in sel_specs]
    tables = _load_tables(datasets, load, n_splits)
    out = Path(out_dir)
    plan = _Plan(out / "cells", tables, sel_specs, clf_specs, protocol=protocol, options=options,
                 n_splits=n_splits, seed=random_state, evaluate=proto.evaluate)
    if progress:
        progress(plan.done, plan.total)
    _execute(plan, n_jobs, progress)
    raw = _sort(plan.gather(), tables, labels, clf_specs)
    sweep = None
    if proto.postprocess is not None:
        if raw["threshold_choice"].eq("best-on-test").any():
            sweep = raw[raw["threshold_choice"].eq("best-on-test")]
        results = _sort(proto.postprocess(raw, options), tables, labels, clf_specs)
    else:
        results = raw
    notes = _notes(proto, options, n_splits, random_state, results)
    alternative = alternative or proto.options.get("alternative", "two-sided")
    paths = _write(results, out, proto, control, alpha, title, notes, sweep, plots, alternative)
    return GridResult(
        out_dir=out, results=paths["results"], summary=paths["summary"], stats=paths["stats"],
        report=paths["report"], plots=paths["plots"], sweep=paths.get("sweep"), n_cells=plan.total,
        n_computed=plan.total - plan.n_reused, n_reused=plan.n_reused,
        n_failed=int((results["status"] != "ok").sum()), seconds=time.perf_counter() - t_start,
    )


def _checked_specs(proto, selectors, classifiers) -> tuple[list, list]:
    """Selector and classifier specs, every name resolved before any work."""
    sel_specs = normalize_specs(selectors, "selector")
    clf_specs = normalize_specs(classifiers if classifiers is not None else list(proto.classifiers), "classifier")
    check_methods(proto, [s for s, _ in sel_specs], [c for c, _ in clf_specs])
    labels = [spec_label(s, p) for s, p in sel_specs]
    if len(set(labels)) != len(labels):
        raise KgfsError(f"selectors given twice: {labels}")
    return sel_specs, clf_specs


def _load_tables(datasets, load, n_splits: int) -> dict:
    """Every dataset loaded and checked for the folds before any work."""
    if isinstance(datasets, Mapping):
        tables = dict(datasets)
    else:
        if isinstance(datasets, str):
            datasets = [datasets]
        load = load or _load_default
        tables = {str(name): load(name) for name in datasets}
    if not tables:
        raise KgfsError("no datasets given")
    for name, t in tables.items():
        check_folds(None if t.y is None else np.asarray(t.y), n_splits, name)
    return tables


class _Plan:
    """The cells of a grid: their keys, which dataset x fold units still have work, and the store."""

    def __init__(self, cells_dir: Path, tables, sel_specs, clf_specs, *, protocol, options, n_splits, seed,
                 evaluate):
        self.cells_dir, self.tables, self.clf_specs = cells_dir, tables, clf_specs
        self.n_splits, self.seed, self.options, self.evaluate = n_splits, seed, options, evaluate
        cells_dir.mkdir(parents=True, exist_ok=True)
        opt_key = json.dumps(options, sort_keys=True, default=str)
        self.keys: dict[tuple, str] = {}
        self.units: dict[tuple, list] = {}
        self.rows: dict[str, list] = {}  # key -> the rows of each finished cell
        for dname, t in tables.items():
            fp = table_fingerprint(t)
            for fold in range(n_splits):
                for s, sp_ in sel_specs:
                    pending = False
                    for c, cp in clf_specs:
                        k = cell_key(dataset=dname, fingerprint=fp, selector=s, sparams=sp_, classifier=c,
                                     cparams=cp, fold=fold, protocol=protocol, options=opt_key, n_splits=n_splits,
                                     seed=seed, evaluate=evaluate)
                        self.keys[(dname, spec_label(s, sp_), c, fold)] = k
                        rows = read_cell(cells_dir / f"{k}.json", k)
                        if rows is None:
                            pending = True
                        else:
                            self.rows[k] = rows
                    if pending:
                        self.units.setdefault((dname, fold), []).append((s, sp_))
        self.total = len(self.keys)
        # a selector with an unusable cell in a fold is run again there with every classifier
        self.n_reused = self.done = self.total - sum(len(v) * len(clf_specs) for v in self.units.values())

    def jobs(self) -> list[tuple]:
        """Pending ``(dataset, fold, selector specs)``, biggest first (a large dataset must not
        start last and leave the other cores idle)."""
        size = {d: (t.X.nnz + t.X.shape[0]) for d, t in self.tables.items()}
        return sorted(((d, f, specs) for (d, f), specs in self.units.items()), key=lambda j: -size[j[0]] * len(j[2]))

    def store(self, dname: str, fold: int, df: pd.DataFrame) -> None:
        """Write each finished cell of a unit at once, atomically."""
        for s, sp_ in self.units[(dname, fold)]:
            lab = spec_label(s, sp_)
            for c, _cp in self.clf_specs:
                sub = df[(df["selector"] == lab) & (df["classifier"] == c)]
                k = self.keys[(dname, lab, c, fold)]
                payload = json.dumps({"key": k, "rows": sub.to_dict("records")}, default=_jsonable)
                atomic_write(self.cells_dir / f"{k}.json", lambda p, s_=payload: p.write_text(s_, encoding="utf-8"))
                self.rows[k] = json.loads(payload)["rows"]  # as a later run reads it back
                self.done += 1

    def gather(self) -> pd.DataFrame:
        """This grid's cells (only its own keys: an out_dir may hold older cells)."""
        rows = [r for k in self.keys.values() for r in self.rows[k]]
        return pd.DataFrame(rows, columns=COLUMNS)


def read_cell(path: Path, key: str) -> list | None:
    """The rows of a finished cell file, or None when it is missing or unusable.

    A cell that does not parse, is truncated or carries another key (a partial copy, a
    disk error) is not reused: a warning names the file and the cell is computed again.

    Parameters
    ----------
    path : Path
        ``out_dir/cells/<key>.json``.
    key : str
        The key it must carry (:func:`cell_key`).

    Returns
    -------
    list of dict or None
        The cell's result rows.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "k.json"
    >>> _ = p.write_text('{"key": "k", "rows": [{"accuracy": 1.0}]}')
    >>> read_cell(p, "k"), read_cell(p.with_name("missing.json"), "k")
    ([{'accuracy': 1.0}], None)
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("evaluation cell %s cannot be read (%s); computing it again", path, exc)
        return None
    try:
        cell = json.loads(text)
    except ValueError as exc:
        log.warning("evaluation cell %s is not valid JSON (%s); computing it again", path, exc)
        return None
    if not (isinstance(cell, dict) and cell.get("key") == key and isinstance(cell.get("rows"), list)
            and all(isinstance(r, dict) for r in cell["rows"])):
        log.warning("evaluation cell %s does not hold the result of cell %s; computing it again", path, key)
        return None
    return cell["rows"]


def _execute(plan: _Plan, n_jobs: int, progress) -> None:
    """Run the pending units, in this process or with joblib workers, storing cells as they finish."""
    jobs = [(plan.evaluate, plan.tables[d], d, specs, plan.clf_specs, f, plan.n_splits, plan.seed, plan.options)
            for d, f, specs in plan.jobs()]
    if n_jobs == 1 or len(jobs) <= 1:
        results = (_run_unit(*job) for job in jobs)
    else:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(delayed(_run_unit)(*job) for job in jobs)
    for dname, fold, df in results:
        plan.store(dname, fold, df)
        if progress:
            progress(plan.done, plan.total)


def _jsonable(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.bool_):
        return bool(o)
    return str(o)


def _sort(df, tables, labels, clf_specs):
    if df.empty:
        return df
    dorder = {d: i for i, d in enumerate(tables)}
    sorder = {s: i for i, s in enumerate(labels)}
    corder = {c: i for i, (c, _) in enumerate(clf_specs)}
    key = (df["dataset"].map(dorder).fillna(1e9) * 1e6 + df["selector"].map(sorder).fillna(1e4) * 1e3
           + df["classifier"].map(corder).fillna(100) * 1e1)
    df = df.assign(_k=key, _t=df["threshold"].astype(float).fillna(-1))
    return df.sort_values(["_k", "fold", "_t"], kind="stable").drop(columns=["_k", "_t"]).reset_index(drop=True)


def _notes(proto, options, n_splits, seed, results) -> list[str]:
    notes = [f"Protocol `{proto.name}`: {proto.description}.",
             f"Stratified {n_splits}-fold cross-validation, seed {seed}; selection fitted on the training part "
             "of each fold only. Values are means over folds.",
             f"Positive class for AUROC / AUCPR / GM: `{results['pos_label'].iloc[0]}`"
             + (" (per dataset; see results.csv)" if results["pos_label"].nunique() > 1 else "") + "."
             if len(results) else "No results."]
    choice = options.get("threshold_choice")
    if proto.name == "shsel2014":
        choice = choice or "nested"
        if choice == "best-on-test":
            notes.append("Thresholds: **best-on-test (optimistic)**: for each dataset, method and classifier "
                         "the threshold with the best mean accuracy over the *test* folds, as the SHSEL paper "
                         "reports; these numbers overstate what a user would get. Every threshold is in sweep.csv.")
        else:
            notes.append("Thresholds: nested cross-validation (honest): in every outer fold an inner stratified "
                         "CV on the training part chooses the threshold with the best mean accuracy.")
    sel_time = results.groupby("selector")["select_seconds"].sum() if len(results) else None
    if sel_time is not None and len(sel_time):
        notes.append("Selection time (s, all folds and datasets): "
                     + ", ".join(f"{k} {v:.2f}" for k, v in sel_time.items()) + ".")
    return notes


def _write(results, out, proto, control, alpha, title, notes, sweep, plots, alternative):
    from selection.evaluation.report import write_outputs

    return write_outputs(results, out, metrics=proto.metrics, rank_metrics=proto.rank_metrics,
                         title=title or f"Evaluation report ({proto.name})", control=control,
                         default_control=proto.control, alpha=alpha, notes=notes, sweep=sweep, plots=plots,
                         alternative=alternative)


def default_jobs() -> int:
    """Workers for ``n_jobs=-1``: the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        return os.cpu_count() or 1
