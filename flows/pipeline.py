"""The Prefect flows of ``kgfs run``: ``kgfs-run``, its subflows and its tasks, over :mod:`flows.stages`.

``kgfs-run`` (:func:`kgfs_run`) walks the run's :class:`~flows.stages.RunPlan` in order: each step
is the task ``kgfs-stage`` (its run named after the step: ``facts``, ``table``, ``select``,
``export``, ...); a route's batched step (calls to an outside service: Spotlight, SPARQL) is the
subflow ``kgfs-batches``, one ``kgfs-batch`` task per batch, at most ``external_concurrency`` in
flight, retried on transient errors and tagged ``kgfs-external``, then the merging stage; the
evaluation is the subflow ``kgfs-evaluate``. With ``dask_address`` the batches and the grid run on
a Dask cluster (prefect-dask; ``"local"``: a ``LocalCluster`` on 127.0.0.1). The one cache is
kgfs's stage store: Prefect persists no results and caches nothing. The flow run is named and
tagged after the dataset, selector, route and cache outcome (:mod:`flows.publishing.report`).

Prefect reads its settings, and creates its home folder, when it is imported: this module
configures the kgfs home's offline settings first (:func:`flows.settings.ensure_configured`).
Importing the rest of ``flows`` imports no Prefect; :func:`flows.runner.run_pipeline` imports
this module only when a stage has to be computed.
"""

# ruff: noqa: E402 (Prefect is imported after the offline configuration, see the module doc)
from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flows import settings

settings.ensure_configured()  # before `import prefect` (see the module doc): the imports below come after it

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.client.orchestration import get_client
from prefect.runtime import flow_run
from prefect.states import Completed

from flows import progress
from flows.publishing import outcome, report
from flows.publishing.report import stage_note
from flows.stages import EvaluateStep, RunOptions, RunPlan
from kg.routes import from_json
from kg.routes.base import BatchedStep, Step
from kg.store import Record

__all__ = ["batches_flow", "evaluate_flow", "kgfs_run", "run_batch", "run_stage"]

_TRANSIENT = "_kgfs_transient"  # set on an exception a step says may pass (the retry condition reads it)


def _transient(task, task_run, state) -> bool:
    """Retry a failed task only on an error its step called transient (:meth:`BatchedStep.transient`)."""
    try:
        exc = state.result(raise_on_failure=False)
    except Exception as e:  # noqa: BLE001
        exc = e
    return bool(getattr(exc, _TRANSIENT, False))


def _guarded(step: Step, call):
    """``call()``, marking an error that ``step`` calls transient (so the task's retry condition sees it)."""
    try:
        return call()
    except Exception as exc:
        if isinstance(step, BatchedStep) and step.transient(exc):
            with contextlib.suppress(AttributeError):
                setattr(exc, _TRANSIENT, True)
        raise


def _log(level: str, msg: str) -> None:
    """A line of the current flow run's log (the Prefect UI's Logs tab)."""
    getattr(get_run_logger(), level)(msg)


# --------------------------------------------------------------------------- tasks
_STAGE = dict(cache_policy=NO_CACHE, persist_result=False)
_EXTERNAL = dict(_STAGE, retries=3, retry_delay_seconds=[2, 10, 30], retry_condition_fn=_transient,
                 tags=["kgfs-external"])


@task(name="kgfs-stage", task_run_name="{step.name}", **_STAGE)
def run_stage(plan: RunPlan, step: Step, up: dict, force: bool = False) -> Record:
    """One stage of the plan, computed in the store (or taken from it)."""
    return _guarded(step, lambda: plan.run(step, up, force=force))


@task(name="kgfs-batch", task_run_name="{step.batch_name}", **_EXTERNAL)
def run_batch(plan: RunPlan, step: BatchedStep, up: dict, batch: dict, force: bool = False) -> Record:
    """One batch of a batched step (a call to an outside service), retried when its step calls the error transient."""
    return _guarded(step, lambda: plan.run(step, up, force=force, batch=batch))


@task(name="kgfs-merge", task_run_name="{step.name}", **_EXTERNAL)
def merge_batches(plan: RunPlan, step: BatchedStep, up: dict, force: bool = False) -> Record:
    """The stage that merges a batched step's batches (it may ask the service too: retried like a batch)."""
    return _guarded(step, lambda: plan.run(step, up, force=force))


@task(name="kgfs-evaluate", task_run_name="evaluate", **_STAGE)
def evaluate_task(plan: RunPlan, step: EvaluateStep, up: dict, force: bool = False, dask: bool = False) -> Record:
    """The cross-validation; on a Dask worker its grid's units spread over the cluster (joblib's Dask backend)."""
    step.progress = lambda done, total: progress.emit("progress", "evaluate", done=done, total=total)
    if not dask:
        return plan.run(step, up, force=force)
    import joblib
    from prefect_dask import get_dask_client

    step.n_jobs = -1
    with get_dask_client(), joblib.parallel_config(backend="dask"):
        return plan.run(step, up, force=force)


def _finished(stage: str, rec: Record, t0: float) -> dict:
    """Report a finished stage (log line, display); its runinfo (whether reused, seconds)."""
    info = {"reused": bool(rec.reused), "seconds": round(time.perf_counter() - t0, 3)}
    note = stage_note(stage, rec.summary)
    _log("info", f"{stage}: {'from the store' if rec.reused else 'computed'} in {info['seconds']} s"
                 f"{'; ' + note if note else ''} ({rec.dir})")
    progress.emit("done", stage, record={**rec.to_json(), **info})
    return info


# --------------------------------------------------------------------------- subflows
@flow(name="kgfs-batches", flow_run_name="{step.name}", persist_result=False, validate_parameters=False)
def batches_flow(plan: RunPlan, step: BatchedStep, up: dict, force: bool = False) -> tuple[Record, dict]:
    """A batched step: one ``kgfs-batch`` task per batch, a few in flight at a time, then the merging stage."""
    progress.emit("start", step.name)
    t0, batches = time.perf_counter(), step.batches(up)
    limit, records = max(1, int(plan.options.external_concurrency)), []
    for w in range(0, len(batches), limit):
        futures = [run_batch.with_options(task_run_name=step.batch_label(b)).submit(plan, step, up, b, force)
                   for b in batches[w:w + limit]]
        records += [f.result() for f in futures]
        progress.emit("progress", step.name, done=len(records), total=len(batches), what="batches")
    rec = merge_batches.submit(plan, step, {**up, "batches": records}, force).result()
    return rec, _finished(step.name, rec, t0)


@flow(name="kgfs-evaluate", flow_run_name="evaluate", persist_result=False, validate_parameters=False)
def evaluate_flow(plan: RunPlan, step: EvaluateStep, up: dict, force: bool = False,
                  dask: bool = False) -> tuple[Record, dict]:
    """Cross-validate selectors x classifiers; on a Dask task runner the grid's units run on the cluster."""
    progress.emit("start", "evaluate")
    t0 = time.perf_counter()
    rec = evaluate_task.submit(plan, step, up, force, dask).result()
    return rec, _finished("evaluate", rec, t0)


# --------------------------------------------------------------------------- Dask
@contextlib.contextmanager
def _dask_cluster(address: str | None, n_workers: int = 2):
    """``"local"``: a ``distributed.LocalCluster`` on 127.0.0.1 for the run (single-threaded worker
    processes reporting to this process's Prefect API instead of starting their own temporary
    servers); any other address is used as it is."""
    if address != "local":
        yield address
        return
    from distributed import LocalCluster

    old_url = os.environ.get("PREFECT_API_URL")
    if not old_url:
        with get_client(sync_client=True) as client:
            os.environ["PREFECT_API_URL"] = str(client.api_url).rstrip("/")
    try:
        with LocalCluster(n_workers=max(1, int(n_workers)), threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address="127.0.0.1:0") as cluster:
            yield cluster.scheduler_address
    finally:
        if not old_url:
            os.environ.pop("PREFECT_API_URL", None)


def _on_cluster(fl, address: str | None):
    """A subflow whose tasks run on the Dask cluster, when there is one."""
    if not address:
        return fl
    from prefect_dask import DaskTaskRunner

    return fl.with_options(task_runner=DaskTaskRunner(address=address))


# --------------------------------------------------------------------------- the pipeline flow
def _run_name() -> str:
    """A ``kgfs-run`` flow run's name: its dataset, selector and parameters."""
    params = flow_run.parameters
    options = RunOptions.from_json(params["options"])
    return report.run_labels(options.params(from_json(params["source"])))[0]


def _home_tag(home: str) -> str:
    """The tag of a run's kgfs home: the user's one server shows the runs of every home."""
    return f"home:{Path(home).absolute()}"


def _tag_run(params: Mapping, runinfo: Mapping, home: str, degenerate: bool = False) -> str:
    """Tag the current flow run with its dataset, selector, route, cache outcome, kgfs home (and a degenerate
    selection); returns its id."""
    tags = ["cache:partial" if any(i["reused"] for i in runinfo.values()) else "cache:none",
            *([report.DEGENERATE_TAG] if degenerate else []),
            *report.run_labels(params)[1], _home_tag(home),
            *flow_run.get_tags()]  # the cache outcome first: the list shows a few
    with get_client(sync_client=True) as client:
        client.update_flow_run(flow_run.get_id(), tags=list(dict.fromkeys(tags)))
    return str(flow_run.get_id())


@flow(name="kgfs-run", persist_result=False, log_prints=False, flow_run_name=_run_name, validate_parameters=False)
def kgfs_run(source: Any, options: Any, out: str, home: str, no_cache: bool = False) -> Any:
    """The whole pipeline on one input (see :func:`flows.runner.run_pipeline`): every stage of its plan.

    Parameters
    ----------
    source : Input or dict
        The input, or its JSON form (a deployment's parameter).
    options : RunOptions or dict
    out : str
        The output folder.
    home : str
        The kgfs home.
    no_cache : bool
        Recompute every stage.
    """
    inp, options = from_json(source), RunOptions.from_json(options)
    with get_client(sync_client=True) as client:  # from the start: a failed run is found by its home too
        client.update_flow_run(flow_run.get_id(), tags=list(dict.fromkeys([*flow_run.get_tags(), _home_tag(home)])))
    plan = RunPlan(inp, options, home, progress=lambda stage, done, total: progress.emit(
        "progress", stage, done=done, total=total))
    records: dict[str, Record] = {}
    runinfo: dict[str, dict] = {}
    with _dask_cluster(options.dask_address, options.n_jobs if options.n_jobs > 1 else 2) as address:
        for step in plan.steps:
            up = plan.upstream(step, records)
            if isinstance(step, BatchedStep):
                rec, info = _on_cluster(batches_flow, address)(plan, step, up, no_cache)
            elif isinstance(step, EvaluateStep):
                rec, info = _on_cluster(evaluate_flow, address)(plan, step, up, no_cache, bool(address))
            else:
                progress.emit("start", step.name)
                t0 = time.perf_counter()
                rec = run_stage.submit(plan, step, up, no_cache).result()
                info = _finished(step.name, rec, t0)
            records[step.name], runinfo[step.name] = rec, info
    progress.emit("start", "publish")
    result = outcome.finish(plan, records, runinfo, out)
    progress.emit("done", "publish", record={"dir": str(out), "files": {k: k for k in result.outputs}, "reused": False})
    for w in result.results["warnings"]:
        _log("warning", f"degenerate selection: {w}")
    _log("info", f"{report.cache_outcome(runinfo)}; outputs in {out}")
    if options.artifacts:  # the tables and the report a person sees in the Prefect UI
        for kind, key, data, description in report.artifacts(result):
            (create_table_artifact if kind == "table" else create_markdown_artifact)(data, key=key,
                                                                                     description=description)
    degenerate = report.degenerate_note(result.results)
    result.flow_run = _tag_run(result.params, runinfo, home, bool(degenerate))
    return Completed(message=report.cache_outcome(runinfo) + (f"; {degenerate}" if degenerate else ""), data=result)
