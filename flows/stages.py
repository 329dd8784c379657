"""The stages of a ``kgfs run``, without Prefect: the input's route steps, then select, evaluate and export.

A run is a :class:`RunPlan`: the steps of its input's route (:meth:`kg.routes.base.Input.steps`,
ending in ``table``) followed by :class:`SelectStep`, :class:`EvaluateStep` and
:class:`ExportStep`. Every step is stored in the kgfs home's store
(:class:`kg.store.Store`, ``<home>/store``) under a key made of its inputs, the upstream records'
content hashes and the version of the code it runs (:func:`kg.routes.step_inputs`). The Prefect
flow (:mod:`flows.pipeline`) runs the plan's steps as tasks; :func:`look_up` walks the same plan
reading the store only, so a run whose every stage is stored is published without Prefect
(:func:`flows.runner.run_from_store`).

Examples
--------
>>> from kg.routes import resolve_dataset
>>> plan = RunPlan(resolve_dataset({}), RunOptions(), "/tmp/kgfs-home")
>>> [s.name for s in plan.steps]
['facts', 'table', 'select', 'evaluate', 'export']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from flows.run_options import RunOptions
from kg.formats.folder import export_selected, export_table
from kg.routes import from_json, run_step, step_inputs
from kg.routes.base import BatchedStep, Context, Input, Step, with_names
from kg.store import Record, Store
from kg.table import FeatureTable

# Imported where they are used: scikit-learn, pandas and matplotlib (selection), only by the stages that run;
# a run from the store alone computes keys without them.

__all__ = ["EvaluateStep", "ExportStep", "RunOptions", "RunPlan", "SelectStep", "look_up", "read_table",
           "selector_modules", "stage_store"]  # RunOptions: re-exported from flows.run_options


def stage_store(home: str | Path) -> Store:
    """The stage store of a kgfs home (``<home>/store``)."""
    return Store(Path(home) / "store")


def read_table(record: Record) -> FeatureTable:
    """The table of a ``table`` record."""
    return FeatureTable.load(record.path("table"))


def selector_modules(names: Sequence) -> list[str]:
    """Modules that define the given selectors, for the store keys (all of kgfs is in every key;
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


# --------------------------------------------------------------------------- select, evaluate, export
class SelectStep(Step):
    """Fit the selector on the whole table: ``selection.csv`` (all features) and ``selected_features.csv``.

    ``names(features) -> {id: name}`` (the input's :meth:`~kg.routes.base.Input.feature_names`) names the
    features when the table does not (the DBpedia route's labels are in the dump, not in the table).
    """

    name, needs = "select", ("table",)

    def __init__(self, selector: str, params: Mapping | None = None,
                 names: Callable[[Sequence[str]], Mapping[str, str]] | None = None):
        self.selector, self.params = selector, dict(sorted((params or {}).items()))
        self.modules = tuple(selector_modules([selector]))
        self.names = names

    def key(self, up):
        return {"table": up["table"].hash, "selector": self.selector, "params": self.params}

    def compute(self, folder, up):
        from selection.frames import kind_counts, select_features, write_selection  # imports scikit-learn

        table = with_names(read_table(up["table"]), self.names)
        _sel, frame = select_features(table, self.selector, self.params)
        summary = {"selector": self.selector, "params": self.params, "n_features": int(table.n_features),
                   "n_selected": int(frame["selected"].sum())}
        if kind_counts(frame):  # a table of several kinds: what was kept of each
            summary["by_kind"] = kind_counts(frame)
        return write_selection(frame, folder), summary


class EvaluateStep(Step):
    """Cross-validate selectors x classifiers on the table (:func:`selection.evaluation.grid.run_grid`).

    Finished cells are kept in the stage folder, so an interrupted evaluation resumes. The grid's
    results, summary, report and PNG plots (roles ``plot:<name>``) are the record's files.
    ``progress(done, total)`` hears of the cells; ``n_jobs`` is not part of the key.
    """

    name, needs = "evaluate", ("table",)

    def __init__(self, options: RunOptions, dataset: str, *, plots: bool = True):
        self.options, self.dataset, self.plots = options, dataset, plots
        # a selector is a name or a [name, params] pair (JSON-friendly)
        self.selectors = [s if isinstance(s, str) else [s[0], dict(sorted(dict(s[1]).items()))]
                          for s in options.eval_specs()]
        self.modules = tuple(selector_modules(self.selectors))
        self.n_jobs, self.progress = options.n_jobs, None

    def key(self, up):
        o = self.options
        return {"table": up["table"].hash, "selectors": self.selectors, "classifiers": list(o.classifiers),
                "dataset": self.dataset, "protocol": o.protocol, "n_splits": int(o.n_splits), "seed": int(o.seed),
                "plots": bool(self.plots)}

    def compute(self, folder, up):
        import pandas as pd

        from selection.evaluation.grid import run_grid, write_skipped  # imports matplotlib: only when the grid runs
        from selection.evaluation.plan import fold_policy, plan_evaluation
        from selection.evaluation.report import ReportSettings

        o, table = self.options, read_table(up["table"])
        specs = [s if isinstance(s, str) else (s[0], s[1]) for s in self.selectors]
        folds, note = fold_policy(table.y, o.n_splits)  # fewer folds, or none, when a class is too small
        res = run_grid({self.dataset: table}, plan_evaluation(o.protocol, specs, list(o.classifiers), n_splits=folds,
                                                              random_state=o.seed),
                       out_dir=folder / "grid", n_jobs=self.n_jobs, progress=self.progress,
                       report=ReportSettings(plots=self.plots)) if folds else \
            write_skipped(folder / "grid", note, protocol=o.protocol)
        files = {role: str(Path(p).relative_to(folder)) for role, p in
                 (("evaluation", res.results), ("summary", res.summary), ("report", res.report), ("stats", res.stats),
                  ("baseline", res.baseline), ("answer", res.answer)) if p is not None and Path(p).is_file()}
        files.update({f"plot:{Path(p).name}": str(Path(p).relative_to(folder)) for p in res.plots or []})
        return files, {"n_rows": len(pd.read_csv(res.results)), "n_computed": res.n_computed,
                       "n_reused": res.n_reused, "n_failed": res.n_failed, "report": str(res.report),
                       "folds": folds, "note": note}


class ExportStep(Step):
    """The table as ARFF and CSV and its hierarchy as an edges CSV, and the table reduced to the selection.

    Dense files only when ``dense`` or, by default (``None``), when the table is small
    (:func:`kg.formats.folder.dense_exports`); sparse ones otherwise.
    """

    name, needs = "export", ("table", "select")

    def __init__(self, sparse_arff: bool = True, dense: bool | None = None):
        self.sparse_arff = bool(sparse_arff)
        self.dense = None if dense is None else bool(dense)

    def key(self, up):
        return {"table": up["table"].hash, "select": up["select"].hash, "sparse_arff": self.sparse_arff,
                "dense": "auto" if self.dense is None else self.dense}

    def compute(self, folder, up):
        from selection.frames import read_selected

        table = read_table(up["table"])
        files = export_table(table, folder, sparse_arff=self.sparse_arff, dense=self.dense)
        summary = {"n_instances": table.n_instances, "n_features": table.n_features}
        chosen = read_selected(up["select"].path("selected"))
        more, summary["n_selected"] = export_selected(table, chosen, folder, sparse_arff=self.sparse_arff)
        files.update(more)
        return files, summary


# --------------------------------------------------------------------------- a run's plan
class RunPlan:
    """The steps of a run, in order: the input's route, then select, evaluate, export.

    Parameters
    ----------
    inp : Input or dict
        The run's input (or its JSON form).
    options : RunOptions
    home : path
        The kgfs home (the store, the routes' caches).
    progress : callable, optional
        ``progress(stage, done, total)`` of the routes (a dump being indexed, a service's batches).
    """

    def __init__(self, inp: Input | Mapping, options: RunOptions, home: str | Path,
                 progress: Callable[..., None] | None = None):
        self.input, self.options, self.home = from_json(inp), RunOptions.from_json(options), Path(home)
        self.ctx = Context(home=self.home, progress=progress, batch_size=self.options.batch_size)
        self.store = stage_store(self.home)
        self.steps: list[Step] = [*self.input.steps(self.ctx),
                                  SelectStep(self.options.selector, self.options.selector_params, self.feature_names),
                                  EvaluateStep(self.options, self.input.name),
                                  ExportStep(self.options.sparse_arff, self.options.dense_exports)]

    def feature_names(self, features: Sequence[str]) -> dict[str, str]:
        """Names of the input's features from its knowledge graph (:meth:`kg.routes.base.Input.feature_names`)."""
        return self.input.feature_names(features, self.ctx)

    def upstream(self, step: Step, records: Mapping[str, Record]) -> dict[str, Record]:
        """The records ``step`` reads (its ``needs``)."""
        return {n: records[n] for n in step.needs}

    def inputs(self, step: Step, up: Mapping[str, Record], batch: Mapping | None = None) -> dict:
        """The store inputs (key) of a step, or of one of its batches."""
        if batch is not None:
            return step_inputs(self.input, step.batch_name, step.batch_key(up, batch), step)
        return step_inputs(self.input, step.name, step.key(up), step)

    def run(self, step: Step, up: Mapping[str, Record], *, force: bool = False,
            batch: Mapping | None = None) -> Record:
        """Run a step (or one batch of it) in the store."""
        return run_step(self.input, step, up, self.store, force=force, batch=batch)


def look_up(plan: RunPlan) -> dict[str, Record] | None:
    """Every stage's record from the store, walking the plan in order, without computing anything:
    ``None`` as soon as one stage (or batch) is not stored or does not verify."""
    records: dict[str, Record] = {}
    for step in plan.steps:
        up = plan.upstream(step, records)
        if isinstance(step, BatchedStep):
            batches = []
            for b in step.batches(up):
                rec = plan.store.lookup(step.batch_name, plan.inputs(step, up, b))
                if rec is None:
                    return None
                batches.append(rec)
            up["batches"] = batches
        rec = plan.store.lookup(step.name, plan.inputs(step, up))
        if rec is None:
            return None
        records[step.name] = rec
    return records
