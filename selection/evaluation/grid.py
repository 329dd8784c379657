"""Run a protocol over datasets x selectors x classifiers x folds, in parallel and resumably.

:func:`run_grid` is what ``kgfs evaluate`` calls, with an
:class:`~selection.evaluation.plan.EvaluationPlan` (the protocol, the methods as estimators, the
options, the folds; :func:`~selection.evaluation.plan.plan_evaluation` makes one from names or
estimators). The unit of work is one dataset x fold (all pending selectors of that fold, each
scored with every classifier, except that a selector giving per-instance masks, a lazy one, is scored
only with the classifiers that take them: :meth:`~selection.evaluation.plan.EvaluationPlan.classifiers_for`,
the pairs left out named in the report's notes); units run in parallel with joblib (``n_jobs=-1``: all
cores; folds and datasets are independent). Each finished dataset x selector x classifier x fold *cell* is
written at once, atomically, to ``out_dir/cells/<key>.json``, where ``key`` hashes (dataset name
and content, selector and its parameters, classifier and its parameters, fold, protocol and its
options, number of folds, seed, code version). A grid that is interrupted and started again
reuses every finished cell and computes only the rest; a change of data, parameters or code
gives new keys.

The code version covers the source of every kgfs module and the installed versions of the
numerical dependencies (:func:`kg.store.keys.code_digest`), plus the classes and functions a
method is made of and the protocol's function when they come from outside kgfs (a user's
selector, a scikit-learn estimator): after any code change every cell is computed again, never
reused from other code. A cell file is reused only when it parses, carries its key and the
sha256 of its rows (:func:`cell_text`); a corrupt, truncated or edited one (a bit flipped in an
accuracy leaves valid JSON) is computed again, with a warning naming it.

A protocol that evaluates a dataset's instances rather than a table (``data="instances"``: the ``split``
protocol, which generates the features inside each fit) gets them from
:func:`kg.datasets.load_instances` (:class:`kg.instances.EntityDataset`); its cells are keyed by the
instances' :meth:`~kg.instances.EntityDataset.fingerprint`, its folds checked on the training part, its
outer units are the protocol's ``outer_folds`` (one: the fixed split) and its baseline is the majority
class of the training part scored on the test part. The extra columns a protocol's rows carry beyond
:data:`~selection.evaluation.cv.COLUMNS` (the split's confidence interval, chosen settings and selected
features) are kept in the cells and in ``results.csv``.

Then the outputs of :func:`selection.evaluation.report.write_outputs` are written: ``results.csv``,
``baseline.csv`` (the majority-class baseline on the same folds, :mod:`selection.evaluation.baseline`),
``summary.csv``, ``stats.md``, ``report.md``, ``report.html`` and PNG plots under ``plots/`` (plus
``sweep.csv`` with every threshold of a best-on-test sweep), as
:class:`~selection.evaluation.report.ReportSettings` say.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from joblib import Parallel, delayed

from kg.errors import KgfsError
from kg.files import atomic_write
from kg.store.keys import SOURCE_PACKAGES, code_digest
from selection.evaluation.baseline import majority_baseline
from selection.evaluation.cv import COLUMNS, check_folds
from selection.evaluation.plan import EvaluationPlan
from selection.evaluation.protocols import get_protocol
from selection.evaluation.report import ReportSettings, write_outputs
from selection.evaluation.specs import MethodSpec
from selection.lazy.classifiers import LAZY_CLASSIFIER_NAMES

__all__ = ["GridResult", "run_grid", "table_fingerprint", "data_fingerprint", "cell_key", "cell_text", "read_cell",
           "write_skipped"]

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
    baseline : Path or None
        ``baseline.csv``: the majority-class baseline on the same folds.
    html : Path or None
        ``report.html``: the report as one self-contained page.
    selected_features : Path or None
        ``selected_features.csv``: the final models' features of a split evaluation.
    answer : Path or None
        ``answer.json``: per dataset, the best method against the baseline (:mod:`selection.evaluation.verdict`).
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
    baseline: Path | None = None
    html: Path | None = None
    selected_features: Path | None = None
    answer: Path | None = None
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
    """A short content hash of a table (matrix, labels, feature names, and its counts when it has them).

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
    values = getattr(table, "values", None)
    if values is not None:  # the counts a count-reading selector is fitted on (the cells of a binary table stay)
        h.update(b"values" + np.ascontiguousarray(sp.csr_matrix(values).data, dtype=np.float64).tobytes())
    return h.hexdigest()[:16]


@lru_cache(maxsize=64)
def _source_of(fn) -> str:
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):  # no source file (a C function, a partial, ...)
        return getattr(fn, "__qualname__", repr(fn))


def _outside(obj) -> bool:
    return (getattr(obj, "__module__", None) or "").split(".")[0] not in SOURCE_PACKAGES


def _code_version(selector: MethodSpec, classifier: MethodSpec, evaluate=None) -> str:
    """The code a cell depends on: every kgfs module and the numerical dependencies' versions
    (:func:`kg.store.keys.code_digest`), plus the modules and the source of the classes and
    functions the selector and the classifier are made of and of the protocol's function, when
    they come from outside kgfs (a class defined in a notebook has no module file: its own
    source counts)."""
    objs = [o for o in (*selector.code_objects(), *classifier.code_objects(), evaluate) if o is not None]
    outside = [o for o in objs if _outside(o)]
    own = "".join(_source_of(o) for o in outside)
    digest = code_digest(sorted({o.__module__ for o in outside if getattr(o, "__module__", None)}))
    return hashlib.sha256((digest + own).encode()).hexdigest()[:24]


def cell_key(plan: EvaluationPlan, dataset: str, fingerprint: str, selector: MethodSpec, classifier: MethodSpec,
             fold: int) -> str:
    """The hash that names a cell's file (``out_dir/cells/<key>.json``).

    Parameters
    ----------
    plan : EvaluationPlan
        Its protocol (name, function), options, folds and seed are part of the key.
    dataset, fingerprint : str
        The dataset's name and :func:`table_fingerprint`.
    selector, classifier : MethodSpec
        Their labels and parameters are part of the key, and the code they are made of.
    fold : int

    Returns
    -------
    str
        32 hex digits; any change of data, parameters or code (see the module docstring) gives
        another key.

    Examples
    --------
    >>> from selection.evaluation.plan import plan_evaluation
    >>> plan = plan_evaluation("basic", ["complete"], ["nb"])
    >>> k = cell_key(plan, "d", "f", plan.selectors[0], plan.classifiers[0], 0)
    >>> len(k), k == cell_key(plan, "d", "f", plan.selectors[0], plan.classifiers[0], 1)
    (32, False)
    """
    payload = {"v": GRID_FORMAT, "dataset": dataset, "data": fingerprint, "selector": selector.label,
               "sparams": selector.params, "classifier": classifier.label, "cparams": classifier.params,
               "fold": int(fold), "protocol": plan.protocol.name,
               "options": json.dumps(plan.options, sort_keys=True, default=str), "n_splits": int(plan.n_splits),
               "seed": int(plan.random_state), "code": _code_version(selector, classifier, plan.protocol.evaluate)}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:32]


def _run_unit(plan: EvaluationPlan, table, unit: tuple, selectors: list):
    """One unit ``(dataset, fold, classifier labels)`` for the given selectors, all scored with those classifiers
    (:meth:`EvaluationPlan.classifiers_for`); runs in a worker.

    The plan is sent whole (joblib pickles the protocol's function by reference or with
    cloudpickle), so protocols registered at run time work in worker processes too.
    """
    dataset, fold, _ = unit
    df = plan.protocol.evaluate(table, selectors, list(plan.classifiers_for(selectors[0])), dataset=dataset,
                                n_splits=plan.n_splits, random_state=plan.random_state, folds=[fold],
                                options=plan.options)
    return unit, df


def _load_default(name):
    from kg.datasets import load_dataset

    return load_dataset(name)


def _load_instances(name):
    from kg.datasets import load_instances

    return load_instances(name)


def _instances(data) -> bool:
    """Whether an evaluated dataset is instances with their graph (:class:`kg.instances.EntityDataset`), not a table."""
    return not hasattr(data, "X") and hasattr(data, "train_test")


def data_fingerprint(data) -> str:
    """:func:`table_fingerprint` of a table, the instances' own fingerprint of an EntityDataset.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> data_fingerprint(SimpleNamespace(X=sp.csr_matrix([[1]]), y=[0], feature_names=["a"])) == \\
    ...     table_fingerprint(SimpleNamespace(X=sp.csr_matrix([[1]]), y=[0], feature_names=["a"]))
    True
    """
    return data.fingerprint() if _instances(data) else table_fingerprint(data)


def _size(data) -> int:
    return len(data.y) if _instances(data) else data.X.nnz + data.X.shape[0]


def run_grid(datasets, plan: EvaluationPlan, *, out_dir, n_jobs: int = -1,
             progress: Callable[[int, int], None] | None = None, load: Callable | None = None,
             report: ReportSettings | None = None) -> GridResult:
    """Evaluate every dataset x selector x classifier x fold of ``plan``.

    Parameters
    ----------
    datasets : list of str or mapping name -> FeatureTable
        Registry names are loaded with ``load(name)`` (default ``kg.datasets.load_dataset``).
    plan : EvaluationPlan
        The protocol, the selectors and classifiers (names or estimators, resolved), the
        protocol's options, the folds and the seed: :func:`~selection.evaluation.plan.plan_evaluation`.
    out_dir : path
        Output folder; finished cells are kept under ``out_dir/cells``.
    n_jobs : int
        joblib workers (-1: every core; 1: in this process).
    progress : callable, optional
        ``progress(done_cells, total_cells)``, called as cells finish (reused cells count as done).
    load : callable, optional
        ``load(name) -> FeatureTable`` for dataset names (default ``kg.datasets.load_dataset``).
    report : ReportSettings, optional
        Title, Holm control, alpha, one- or two-sided p-values, plots (defaults: the protocol's).

    Returns
    -------
    GridResult

    Examples
    --------
    >>> import tempfile
    >>> from sklearn.feature_selection import SelectKBest, chi2
    >>> from kg.hierarchy import FeatureHierarchy
    >>> from kg.table import FeatureTable
    >>> from selection.evaluation.plan import plan_evaluation
    >>> h = FeatureHierarchy.from_edges([("b", "a")], nodes=["a", "b", "c"])
    >>> facts = {f"i{i}": (["b"] if i % 2 else ["c"]) for i in range(20)}
    >>> t = FeatureTable.from_facts(facts, h, labels={f"i{i}": i % 2 for i in range(20)})
    >>> plan = plan_evaluation("basic", ["complete", SelectKBest(chi2, k=1)], ["nb"], n_splits=2)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     r = run_grid({"toy": t}, plan, out_dir=d, n_jobs=1, report=ReportSettings(plots=False))
    ...     again = run_grid({"toy": t}, plan, out_dir=d, n_jobs=1, report=ReportSettings(plots=False))
    ...     accuracy = again.frame()["accuracy"].tolist()
    >>> r.n_cells, r.n_computed, again.n_reused, accuracy
    (4, 4, 4, [1.0, 1.0, 1.0, 1.0])
    """
    t_start = time.perf_counter()
    if not isinstance(plan, EvaluationPlan):
        raise TypeError(f"run_grid takes an EvaluationPlan (selection.evaluation.plan.plan_evaluation(protocol, "
                        f"selectors, classifiers, ...)), got {type(plan).__name__}")
    proto = plan.protocol
    tables = _load_tables(datasets, load, plan.n_splits, proto)
    out = Path(out_dir)
    cells = _Cells(out / "cells", tables, plan)
    if progress:
        progress(cells.done, cells.total)
    _execute(cells, n_jobs, progress)
    raw = _sort(cells.gather(), tables, plan)
    sweep = None
    if proto.postprocess is not None:
        if raw["threshold_choice"].eq("best-on-test").any():
            sweep = raw[raw["threshold_choice"].eq("best-on-test")]
        results = _sort(proto.postprocess(raw, plan.options), tables, plan)
    else:
        results = raw
    report = ReportSettings() if report is None else report
    report = replace(report, title=report.title or f"Evaluation report ({proto.name})",
                     alternative=report.alternative or proto.options.get("alternative", "two-sided"),
                     classes=report.classes or _n_classes(tables), averaging=_multiclass(plan))
    with_baseline = pd.concat([results, _baseline(tables, plan, results)], ignore_index=True)
    paths = write_outputs(with_baseline, out, metrics=proto.metrics, rank_metrics=proto.rank_metrics, settings=report,
                          default_control=proto.control, notes=_notes(plan, results, tables), sweep=sweep)
    return GridResult(
        out_dir=out, results=paths["results"], summary=paths["summary"], stats=paths["stats"],
        report=paths["report"], plots=paths["plots"], sweep=paths.get("sweep"), baseline=paths.get("baseline"),
        html=paths.get("html"), selected_features=paths.get("selected_features"), answer=paths.get("answer"),
        n_cells=cells.total,
        n_computed=cells.total - cells.n_reused, n_reused=cells.n_reused,
        n_failed=int((results["status"] != "ok").sum()), seconds=time.perf_counter() - t_start,
    )


def _baseline(tables: Mapping, plan: EvaluationPlan, results: pd.DataFrame) -> pd.DataFrame:
    """The majority-class baseline of every dataset on the plan's folds, with the positive class the results used."""
    frames = []
    for name, t in tables.items():
        r = results[results["dataset"] == name]
        pos = r["pos_label"].dropna().iloc[0] if len(r) and r["pos_label"].notna().any() else None
        if _instances(t):  # the fixed split: the training part's majority class scored on the test part
            n_features = int(r["n_features"].max()) if len(r) and r["n_features"].notna().any() else 0
            folds = [t.train_test()]
        else:
            n_features, folds = t.X.shape[1], None
        frames.append(majority_baseline(np.asarray(t.y), dataset=name, n_splits=plan.n_splits,
                                        n_features=n_features, random_state=plan.random_state,
                                        pos_label=None if pos in (None, "None", "") else pos,
                                        multiclass=_multiclass(plan), folds=folds))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)


def _n_classes(tables: Mapping) -> dict:
    """Dataset -> its number of classes (unlabelled: left out)."""
    out = {}
    for name, t in tables.items():
        y = getattr(t, "y", None)
        if y is not None:
            out[name] = int(len(pd.unique(pd.Series(np.asarray(y)).dropna())))
    return out


def _multiclass(plan: EvaluationPlan) -> str:
    """How the plan's protocol averages GM, AUROC and AUCPR over more than two classes."""
    try:
        return plan.protocol.defaults(plan.options).get("multiclass_average") or "macro"
    except Exception:  # noqa: BLE001 - a protocol without declared options
        return "macro"


def _load_tables(datasets, load, n_splits: int, proto=None) -> dict:
    """Every dataset loaded (tables, or instances for a protocol of ``data="instances"``) and its folds checked
    before any work."""
    wants = getattr(proto, "data", "table")
    if isinstance(datasets, Mapping):
        tables = dict(datasets)
    else:
        if isinstance(datasets, str):
            datasets = [datasets]
        load = load or (_load_instances if wants == "instances" else _load_default)
        tables = {str(name): load(name) for name in datasets}
    if not tables:
        raise KgfsError("no datasets given")
    for name, t in tables.items():
        if wants == "instances" and not _instances(t):
            raise KgfsError(f"dataset {name!r}: protocol {proto.name} generates the features inside each fit and "
                            "needs the instances with their knowledge graph (kg.datasets.load_instances, a registry "
                            "dataset such as nodeclass/aifb), not a table")
        if wants == "table" and _instances(t):
            raise KgfsError(f"dataset {name!r}: protocol {proto.name} evaluates a table; instances with their graph "
                            "go to a protocol that generates the features in the fit (split)")
        if _instances(t):
            train, _ = t.train_test()  # a dataset without a split says so
            check_folds(np.asarray(t.y)[train], n_splits, f"{name} (training part)")
        else:
            check_folds(None if t.y is None else np.asarray(t.y), n_splits, name)
    return tables


class _Cells:
    """The cells of a grid: their keys, which units (dataset x fold x the classifiers of their selectors) still have
    work, and the store."""

    def __init__(self, cells_dir: Path, tables, plan: EvaluationPlan):
        self.cells_dir, self.tables, self.plan = cells_dir, tables, plan
        cells_dir.mkdir(parents=True, exist_ok=True)
        self.keys: dict[tuple, str] = {}
        self.units: dict[tuple, list] = {}
        self.rows: dict[str, list] = {}  # key -> the rows of each finished cell
        scored = {s.label: plan.classifiers_for(s) for s in plan.selectors}
        for dname, t in tables.items():
            fp = data_fingerprint(t)
            for fold in range(plan.protocol.n_outer(plan.n_splits)):
                for s in plan.selectors:
                    pending = False
                    for c in scored[s.label]:
                        k = cell_key(plan, dname, fp, s, c, fold)
                        self.keys[(dname, s.label, c.label, fold)] = k
                        rows = read_cell(cells_dir / f"{k}.json", k)
                        if rows is None:
                            pending = True
                        else:
                            self.rows[k] = rows
                    if pending:
                        group = tuple(c.label for c in scored[s.label])
                        self.units.setdefault((dname, fold, group), []).append(s)
        self.total = len(self.keys)
        # a selector with an unusable cell in a fold is run again there with every classifier it is scored with
        self.n_reused = self.done = self.total - sum(len(v) * len(u[2]) for u, v in self.units.items())

    def jobs(self) -> list[tuple]:
        """Pending ``(unit, selector specs)``, biggest first (a large dataset must not start last and leave the
        other cores idle)."""
        size = {d: _size(t) for d, t in self.tables.items()}
        return sorted(self.units.items(), key=lambda j: -size[j[0][0]] * len(j[1]) * len(j[0][2]))

    def store(self, unit: tuple, df: pd.DataFrame) -> None:
        """Write each finished cell of a unit at once, atomically."""
        dname, fold, _ = unit
        for s in self.units[unit]:
            for c in self.plan.classifiers_for(s):
                sub = df[(df["selector"] == s.label) & (df["classifier"] == c.label)]
                k = self.keys[(dname, s.label, c.label, fold)]
                payload = cell_text(k, sub.to_dict("records"))
                atomic_write(self.cells_dir / f"{k}.json", lambda p, s_=payload: p.write_text(s_, encoding="utf-8"))
                self.rows[k] = json.loads(payload)["rows"]  # as a later run reads it back
                self.done += 1

    def gather(self) -> pd.DataFrame:
        """This grid's cells (only its own keys: an out_dir may hold older cells)."""
        rows = [r for k in self.keys.values() for r in self.rows[k]]
        extra = list(dict.fromkeys(c for r in rows for c in r if c not in COLUMNS))  # a protocol's own columns
        return pd.DataFrame(rows, columns=COLUMNS + extra)


def _rows_sha256(rows: list) -> str:
    return hashlib.sha256(json.dumps(rows, sort_keys=True, default=_jsonable).encode()).hexdigest()


def cell_text(key: str, rows: list) -> str:
    """The JSON text of a cell file: its key, its rows and the sha256 of the rows (as they read back).

    Parameters
    ----------
    key : str
        :func:`cell_key`.
    rows : list of dict
        The cell's result rows (numpy values are converted).

    Returns
    -------
    str

    Examples
    --------
    >>> sorted(json.loads(cell_text("k", [{"accuracy": 0.7}])))
    ['key', 'rows', 'sha256']
    """
    rows = json.loads(json.dumps(rows, default=_jsonable))
    return json.dumps({"key": key, "rows": rows, "sha256": _rows_sha256(rows)})


def read_cell(path: Path, key: str) -> list | None:
    """The rows of a finished cell file, or None when it is missing or unusable.

    A cell that does not parse, is truncated, carries another key (a partial copy, a disk error)
    or whose rows do not have its recorded sha256 (an edit that kept it valid JSON) is not
    reused: a warning names the file and the cell is computed again.

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
    >>> _ = p.write_text(cell_text("k", [{"accuracy": 1.0}]))
    >>> read_cell(p, "k"), read_cell(p.with_name("missing.json"), "k")
    ([{'accuracy': 1.0}], None)
    >>> _ = p.write_text(p.read_text().replace("1.0", "0.9"))  # still valid JSON
    >>> read_cell(p, "k") is None
    True
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
    if cell.get("sha256") != _rows_sha256(cell["rows"]):
        log.warning("evaluation cell %s was changed since it was written (its rows do not have its recorded sha256); "
                    "computing it again", path)
        return None
    return cell["rows"]


def _execute(cells: _Cells, n_jobs: int, progress) -> None:
    """Run the pending units, in this process or with joblib workers, storing cells as they finish."""
    jobs = [(cells.plan, cells.tables[u[0]], u, specs) for u, specs in cells.jobs()]
    if n_jobs == 1 or len(jobs) <= 1:
        results = (_run_unit(*job) for job in jobs)
    else:
        results = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(delayed(_run_unit)(*job) for job in jobs)
    for unit, df in results:
        cells.store(unit, df)
        if progress:
            progress(cells.done, cells.total)


def _jsonable(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.bool_):
        return bool(o)
    return str(o)


def _sort(df, tables, plan: EvaluationPlan):
    if df.empty:
        return df
    dorder = {d: i for i, d in enumerate(tables)}
    sorder = {s.label: i for i, s in enumerate(plan.selectors)}
    corder = {c.label: i for i, c in enumerate(plan.classifiers)}
    key = (df["dataset"].map(dorder).fillna(1e9) * 1e6 + df["selector"].map(sorder).fillna(1e4) * 1e3
           + df["classifier"].map(corder).fillna(100) * 1e1)
    df = df.assign(_k=key, _t=df["threshold"].astype(float).fillna(-1))
    return df.sort_values(["_k", "fold", "_t"], kind="stable").drop(columns=["_k", "_t"]).reset_index(drop=True)


def _notes(plan: EvaluationPlan, results, tables: Mapping) -> list[str]:
    proto = plan.protocol
    if proto.data == "instances":
        parts = "; ".join(f"{d}: train {c['train']}, test {c['test']}" for d, t in tables.items()
                          for c in [t.split_counts()])
        how = (f"Fixed train/test split ({parts}). Features generated inside every fit (KGFeatures in the "
               f"Pipeline); every setting tuned by a stratified {plan.n_splits}-fold cross-validation on the "
               f"training part (seed {plan.random_state}), the best refitted on the whole training part and the "
               "test part scored once: values are test-part scores (no sd: one split); the accuracy's Wilson "
               "interval is in results.csv and report.html.")
    else:
        how = (f"Stratified {plan.n_splits}-fold cross-validation, seed {plan.random_state}; selection fitted on the "
               "training part of each fold only. Values are means over folds.")
    notes = [f"Protocol `{proto.name}`: {proto.description}.", how, _classes_note(plan, results, tables)]
    skipped = plan.skipped()
    if skipped:
        notes.append("Not scored: " + "; ".join(f"{s} with {', '.join(c)}" for s, c in skipped)
                     + " (its features are per-instance masks, a lazy selector's or, under lazy_classifiers_for_eager, "
                       "any selector's, and these classifiers cannot score them; the lazy NB and k-NN can: "
                       f"{', '.join(LAZY_CLASSIFIER_NAMES)}).")
    choice = plan.options.get("threshold_choice")
    if proto.name == "shsel2014":
        choice = choice or "nested"
        if choice == "best-on-test":
            notes.append("Thresholds: **best-on-test (optimistic)**: for each dataset, method and classifier "
                         "the threshold with the best mean accuracy over the *test* folds, as the SHSEL paper "
                         "reports; these numbers overstate what a user would get. Every threshold is in sweep.csv.")
        else:
            notes.append("Thresholds: nested cross-validation (honest): in every outer fold an inner stratified "
                         "CV on the training part chooses the threshold with the best mean accuracy.")
    counted = [d for d, t in tables.items() if getattr(t, "values", None) is not None]
    if counted:
        notes.append(f"{', '.join(counted)}: the table holds counts (`--values count`). The Fisher score and "
                     "scikit-learn selectors were fitted on them; the hierarchical selectors and the binary "
                     "measures (information gain, CFS, mRMR, ReliefF), and every classifier, on their presence (0/1).")
    sel_time = results.groupby("selector")["select_seconds"].sum() if len(results) else None
    if sel_time is not None and len(sel_time):
        notes.append("Selection time (s, all folds and datasets): "
                     + ", ".join(f"{k} {v:.2f}" for k, v in sel_time.items()) + ".")
    return notes


def _classes_note(plan: EvaluationPlan, results, tables: Mapping) -> str:
    """What GM, AUROC and AUCPR are of: the positive class of a binary task, the averaging over a multi-class one's
    classes (which claims no positive class: :mod:`selection.evaluation.metrics` averages over all of them)."""
    if not len(results):
        return "No results."
    k = _n_classes(tables)
    binary = [d for d in tables if k.get(d, 2) <= 2]
    multi = [d for d in tables if k.get(d, 2) > 2]
    parts = []
    if binary:
        pos = results[results["dataset"].isin(binary)]["pos_label"].dropna()
        if len(pos):
            parts.append(f"Positive class for AUROC / AUCPR / GM: `{pos.iloc[0]}`"
                         + (" (per dataset; see results.csv)" if pos.nunique() > 1 else "")
                         + (f" ({', '.join(binary)})" if multi else ""))
    if multi:
        how = {"weighted": "weighted by class frequency (WEKA's)"}.get(_multiclass(plan), "macro (unweighted)")
        ks = sorted({k[d] for d in multi})
        gm = ("the class-frequency-weighted mean of the one-vs-rest geometric means of sensitivity and specificity"
              if _multiclass(plan) == "weighted" else "the geometric mean of the per-class recalls")
        parts.append(f"{', '.join(multi)}: {' / '.join(map(str, ks))} classes, no positive class: AUROC and AUCPR "
                     f"are the one-vs-rest areas of every class averaged {how}; GM is {gm}")
    return "; ".join(parts) + "." if parts else "No results."


def write_skipped(out_dir, note: str, *, protocol: str = "basic") -> GridResult:
    """The outputs of an evaluation that was skipped: empty ``results.csv`` and ``summary.csv``, a report saying why.

    Parameters
    ----------
    out_dir : path
    note : str
        Why (from :func:`selection.evaluation.plan.fold_policy`).
    protocol : str
        The protocol that would have run (its measures head the empty summary).

    Returns
    -------
    GridResult
        With no cells.

    Examples
    --------
    >>> import tempfile
    >>> res = write_skipped(tempfile.mkdtemp(), "one class only")
    >>> "Evaluation skipped: one class only." in res.report.read_text(), res.n_cells
    (True, 0)
    """
    proto = get_protocol(protocol)
    p = write_outputs(pd.DataFrame(columns=COLUMNS), out_dir, metrics=proto.metrics, rank_metrics=proto.rank_metrics,
                      settings=ReportSettings(title=f"Evaluation report ({proto.name})", plots=False),
                      notes=[f"Evaluation skipped: {note}."])
    return GridResult(Path(out_dir), p["results"], p["summary"], p["stats"], p["report"], html=p.get("html"))
