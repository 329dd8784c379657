"""The Prefect flow behind ``kgfs run``: ``kgfs-run`` and its subflows.

``kgfs-run`` (:func:`kgfs_run`) runs the stages in order (:func:`_run_stages`): (DBpedia route) the
subflows ``kgfs-annotate`` and ``kgfs-fetch``, or (GO route) the task ``load-facts``; then the tasks
``build-table``, ``select``, the subflow ``kgfs-evaluate`` and the task ``export``: functions of
:mod:`flows.stages`, whose runs are named after their stage (as in the report), in flow runs named
and tagged after the dataset, selector, route and cache outcome (:mod:`flows.publishing.report`). The one
cache is kgfs's stage store: Prefect persists no results and caches nothing, and
:func:`run_from_store` computes every stage's key in order without Prefect (a run whose stages are
all stored needs no server). External calls (Spotlight, SPARQL) are batch tasks retried on
transient errors, at most ``external_concurrency`` in flight (:func:`_map_batches`), tagged
``kgfs-external``. With ``dask_address`` the grid and the batches run on a Dask cluster
(prefect-dask; ``"local"``: a ``LocalCluster`` on 127.0.0.1). Importing this module imports no Prefect.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from flows import settings, stages
from flows.publishing import report
from flows.publishing.lookup import ONLY_STORED, NotInStore
from flows.publishing.publish import publish
from flows.publishing.report import stage_note

__all__ = ["annotate_flow", "evaluate_flow", "fetch_flow", "kgfs_run", "run_from_store", "run_pipeline",
           "set_reporter"]

_reporter: Callable[..., None] | None = None


def set_reporter(fn: Callable[..., None] | None) -> None:
    """Set ``fn(event, stage, **info)`` called with ``"start"``, ``"progress"`` (done, total), ``"done"`` (record)."""
    global _reporter
    _reporter = fn


def _emit(event: str, stage: str, **info) -> None:
    if _reporter is not None and not ONLY_STORED.get():
        _reporter(event, stage, **info)


def _transient(task, task_run, state) -> bool:
    """Retry a failed batch task only on errors that may pass (:func:`kg.dbpedia.batches.is_transient`)."""
    from kg.dbpedia.batches import is_transient

    try:
        exc = state.result(raise_on_failure=False)
    except Exception as e:  # noqa: BLE001
        exc = e
    return is_transient(exc)


def _presets() -> dict:
    from prefect.cache_policies import NO_CACHE

    stage = dict(cache_policy=NO_CACHE, persist_result=False)
    return {"stage": stage, "flow": dict(persist_result=False),
            "external": dict(stage, retries=3, retry_delay_seconds=[2, 10, 30], retry_condition_fn=_transient,
                             tags=["kgfs-external"])}


_prefect = settings.LazyPrefect(globals(), _presets)
__getattr__ = _prefect.getattr


# --------------------------------------------------------------------------- tasks
# Each stage function of flows.stages is a task as it is: attribute, Prefect name, function, preset, and
# the name of its runs: the stage's name in the report and the terminal.
for _attr, _name, _fn, _preset, _run in (
        ("load_facts_task", "load-facts", stages.stage_load_facts, "stage", "facts"),
        ("build_table_task", "build-table", stages.stage_build_table, "stage", "table"),
        ("load_dataset_task", "load-dataset", stages.stage_load_dataset, "stage", "table"),
        ("select_task", "select", stages.stage_select, "stage", "select"),
        ("export_task", "export", stages.stage_export, "stage", "export"),
        ("annotate_batch_task", "annotate-batch", stages.stage_annotate_batch, "external", "annotate {start}-{stop}"),
        ("annotate_task", "annotate", stages.stage_annotate, "stage", "annotate"),
        ("fetch_batch_task", "fetch-batch", stages.stage_fetch_batch, "external", "fetch-batch"),
        ("fetch_task", "fetch-facts", stages.stage_fetch, "external", "fetch"),
        ("dbpedia_table_task", "build-dbpedia-table", stages.stage_dbpedia_table, "stage", "table")):
    _prefect.add_task(_attr, _fn, name=_name, preset=_preset, task_run_name=_run)


def _get(name: str):
    """The task or subflow ``name``; while :func:`run_from_store` looks the stages up, its plain function."""
    return _prefect.plain(name) if ONLY_STORED.get() else globals()[name]


def _log(level: str, msg: str) -> None:
    """A line of the current flow run's log (the Prefect UI's Logs tab); nothing while looking up."""
    if not ONLY_STORED.get():
        from prefect import get_run_logger

        getattr(get_run_logger(), level)(msg)


@_prefect.task(name="evaluate", preset="stage", task_run_name="evaluate")
def _evaluate_task(table_rec: dict, selectors: list, classifiers: list, dataset: str, protocol: str, n_splits: int,
                   seed: int, n_jobs: int, home: str, force: bool = False, dask: bool = False) -> dict:
    kwargs = dict(dataset=dataset, protocol=protocol, n_splits=n_splits, random_state=seed, home=home,
                  force=force, progress=lambda done, total: _emit("progress", "evaluate", done=done, total=total))
    if not dask:
        return stages.stage_evaluate(table_rec, selectors, classifiers, n_jobs=n_jobs, **kwargs)
    # On a Dask worker (DaskTaskRunner) the grid's dataset x fold units spread over the cluster through
    # joblib's Dask backend; every finished cell is still written at once into the stage folder.
    import joblib
    from prefect_dask import get_dask_client

    with get_dask_client(), joblib.parallel_config(backend="dask"):
        return stages.stage_evaluate(table_rec, selectors, classifiers, n_jobs=-1, **kwargs)


def _map_batches(stage: str, tsk, home: str, no_cache: bool, batches: list[dict], limit: int, **common) -> list:
    """Run one task per batch on the flow's task runner, at most ``limit`` in flight at a time (the
    concurrency limit that works everywhere: offline, thread pool, Dask)."""
    limit, out = max(1, int(limit)), []
    for w in range(0, len(batches), limit):
        futures = [tsk.submit(home=home, force=no_cache, **common, **b) for b in batches[w:w + limit]]
        out += [{k: v for k, v in fut.result().items() if k != "reused"} for fut in futures]
        _emit("progress", stage, done=len(out), total=len(batches), what="batches")
    return out


def _stage(stage: str, tsk, home: str, no_cache: bool, **kwargs) -> dict:
    """Run one stage task on the current flow's task runner; returns ``{"record": ..., "info": ...}``:
    the record without volatile fields (it keys downstream stages), whether it was reused, how long it took."""
    _emit("start", stage)
    t0 = time.perf_counter()
    rec = dict(tsk.submit(home=home, force=no_cache, **kwargs).result())
    reused = rec.pop("reused", False)  # volatile: not part of the record that keys downstream stages
    info = {"reused": bool(reused), "seconds": round(time.perf_counter() - t0, 3)}
    _log("info", f"{stage}: {'from the store' if reused else 'computed'} in {info['seconds']} s"
                 f"{'; ' + note if (note := stage_note(stage, rec.get('summary'))) else ''} ({rec['dir']})")
    _emit("done", stage, record={**rec, **info})
    return {"record": rec, "info": info}


# --------------------------------------------------------------------------- stages with many tasks: subflows
# Annotation, fetching and evaluation (many tasks, possibly on a Dask cluster) are subflows of
# `kgfs-run`, each runnable alone; a single-task stage is a task of `kgfs-run` itself.
@_prefect.flow(name="kgfs-annotate", preset="flow", flow_run_name="annotate")
def _annotate_flow(spec: dict, home: str, no_cache: bool = False, batch_size: int = 500,
                   concurrency: int = 4) -> dict:
    """DBpedia route: entity linking, one ``annotate-batch`` task per ``batch_size`` texts."""
    batches = [{"start": a, "stop": b} for a, b in stages.corpus_batches(spec, batch_size)]
    _emit("start", "annotate")
    recs = _map_batches("annotate", _get("annotate_batch_task"), home, no_cache, batches, concurrency, spec=spec)
    return _stage("annotate", _get("annotate_task"), home, no_cache, spec=spec, batches=recs)


@_prefect.flow(name="kgfs-fetch", preset="flow", flow_run_name="fetch")
def _fetch_flow(spec: dict, annotate: dict, home: str, no_cache: bool = False, batch_size: int = 500,
                concurrency: int = 4) -> dict:
    """DBpedia route: types/categories of the entities (``fetch-batch`` tasks), then the edges above them."""
    batches = [{"entities": b} for b in stages.entity_batches(annotate, batch_size)]
    _emit("start", "fetch")
    recs = _map_batches("fetch", _get("fetch_batch_task"), home, no_cache, batches, concurrency, spec=spec)
    return _stage("fetch", _get("fetch_task"), home, no_cache, spec=spec, batches=recs)


@_prefect.flow(name="kgfs-evaluate", preset="flow", flow_run_name="evaluate")
def _evaluate_flow(table: dict, selectors: list, classifiers: list, dataset: str, home: str, protocol: str = "basic",
                   n_splits: int = 10, seed: int = 0, n_jobs: int = 1, no_cache: bool = False,
                   dask: bool = False) -> dict:
    """Cross-validate selectors x classifiers; on a Dask task runner the grid's units run on the cluster."""
    return _stage("evaluate", _get("evaluate_task"), home, no_cache, table_rec=table, selectors=selectors,
                  classifiers=classifiers, dataset=dataset, protocol=protocol, n_splits=n_splits, seed=seed,
                  n_jobs=n_jobs, dask=dask)


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
    from prefect.client.orchestration import get_client

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


# --------------------------------------------------------------------------- results and artifacts
def _run_name() -> str:
    """A ``kgfs-run`` flow run's name: its dataset, selector and parameters (:func:`flows.publishing.report.run_labels`)."""
    from prefect.runtime import flow_run

    return report.run_labels({"dataset": flow_run.parameters["source"]["name"], **flow_run.parameters})[0]


def _tag_run(params: Mapping, runinfo: Mapping) -> str:
    """Tag the current flow run with its dataset, selector, route and cache outcome; returns its id."""
    from prefect.client.orchestration import get_client
    from prefect.runtime import flow_run

    tags = ["cache:partial" if any(i["reused"] for i in runinfo.values()) else "cache:none",
            *report.run_labels(params)[1], *flow_run.get_tags()]  # the cache outcome first: the list shows a few
    with get_client(sync_client=True) as client:
        client.update_flow_run(flow_run.get_id(), tags=list(dict.fromkeys(tags)))
    return str(flow_run.get_id())


# --------------------------------------------------------------------------- the pipeline flow
def _run_stages(source: dict, p: dict, home: str, no_cache: bool, address: str | None, batching: dict) -> dict:
    """Every stage of the run in order (tasks and subflows; the plain functions while looking up)."""
    def on_cluster(fl):  # a stage flow whose tasks run on the Dask cluster, when there is one
        if not address:
            return fl
        from prefect_dask import DaskTaskRunner

        return fl.with_options(task_runner=DaskTaskRunner(address=address))

    runs: dict[str, dict] = {}
    if source["kind"] == "go":
        runs["facts"] = _stage("facts", _get("load_facts_task"), home, no_cache, spec=source)
        runs["table"] = _stage("table", _get("build_table_task"), home, no_cache, spec=source,
                               facts_rec=runs["facts"]["record"])
    elif source["kind"] == "dbpedia":
        runs["annotate"] = on_cluster(_get("annotate_flow"))(source, home, no_cache, **batching)
        runs["fetch"] = on_cluster(_get("fetch_flow"))(source, runs["annotate"]["record"], home, no_cache, **batching)
        runs["table"] = _stage("table", _get("dbpedia_table_task"), home, no_cache, spec=source,
                               annotate_rec=runs["annotate"]["record"], fetch_rec=runs["fetch"]["record"])
    else:
        runs["table"] = _stage("table", _get("load_dataset_task"), home, no_cache, spec=source)
    table = runs["table"]["record"]
    runs["select"] = _stage("select", _get("select_task"), home, no_cache, table_rec=table, selector=p["selector"],
                            params=p["selector_params"])
    runs["evaluate"] = on_cluster(_get("evaluate_flow"))(
        table=table, selectors=p["eval_specs"], classifiers=p["classifiers"], dataset=source["name"], home=home,
        protocol=p["protocol"], n_splits=p["n_splits"], seed=p["seed"], n_jobs=p["n_jobs"], no_cache=no_cache,
        dask=bool(address))
    runs["export"] = _stage("export", _get("export_task"), home, no_cache, table_rec=table,
                            select_rec=runs["select"]["record"], sparse_arff=p["sparse_arff"])
    return runs


@_prefect.flow(name="kgfs-run", persist_result=False, log_prints=False, flow_run_name=_run_name)
def _kgfs_run(source: dict, selector: str = "shsel-ig-prune", selector_params: dict | None = None,
              eval_selectors: list | None = None, classifiers: list | None = None, protocol: str = "basic",
              n_splits: int = 10, seed: int = 0, n_jobs: int = 1, sparse_arff: bool = True, out: str = "kgfs-output",
              home: str = ".kgfs", no_cache: bool = False, artifacts: bool = True, dask_address: str | None = None,
              batch_size: int = 500, external_concurrency: int = 4) -> dict:
    """The whole pipeline on one input (see :func:`run_pipeline`): the stage flows as subflows."""
    params = report.run_params(source, selector, selector_params, eval_selectors, classifiers, protocol, n_splits,
                               seed)
    p = dict(params, n_jobs=n_jobs, sparse_arff=sparse_arff, eval_specs=report.eval_specs(params))
    looking_up = ONLY_STORED.get()
    with _dask_cluster(None if looking_up else dask_address, n_jobs if n_jobs > 1 else 2) as address:
        runs = _run_stages(source, p, home, no_cache, address,
                           dict(batch_size=batch_size, concurrency=external_concurrency))
    records, runinfo = {k: v["record"] for k, v in runs.items()}, {k: v["info"] for k, v in runs.items()}
    _emit("start", "publish")
    outputs = {k: str(v) for k, v in publish(records, out, params, runinfo).items()}
    _emit("done", "publish", record={"dir": str(out), "files": {k: k for k in outputs}, "reused": False})
    from selection.evaluation.headline import run_results

    result = {"records": records, "runinfo": runinfo, "outputs": outputs, "params": params,
              "results": run_results(records)}
    for w in result["results"]["warnings"]:
        _log("warning", f"degenerate selection: {w}")
    _log("info", f"{report.cache_outcome(runinfo)}; outputs in {out}")
    if looking_up:
        return result
    if artifacts:  # the tables and the report a person sees in the Prefect UI
        from prefect import artifacts as prefect_artifacts

        for kind, key, data, description in report.artifacts(result):
            getattr(prefect_artifacts, f"create_{kind}_artifact")(data, key=key, description=description)
    result["flow_run"] = _tag_run(params, runinfo)
    from prefect.states import Completed

    return Completed(message=report.cache_outcome(runinfo), data=result)


def run_from_store(source: dict, **params) -> dict | None:
    """The result of :func:`kgfs_run` when every stage is in the store (their files verified), without
    Prefect: each stage's key is computed in order from its upstream records and the outputs are
    published; ``None`` when some stage has to be computed. Arguments as :func:`kgfs_run`."""
    token = ONLY_STORED.set(True)
    try:
        return _kgfs_run(source, **params)
    except NotInStore:
        return None
    finally:
        ONLY_STORED.reset(token)


def run_pipeline(source: dict | None = None, *, out: str | Path = "kgfs-output", home: str | Path | None = None,
                 no_cache: bool = False, heartbeat: bool = False, from_store: bool = True, **params) -> dict:
    """Run the pipeline on ``source`` (:func:`flows.inputs.resolve_source`; default the bundled
    ``bundled/DM-BP``), writing into ``out``: from the store when every stage is there
    (:func:`run_from_store`, no Prefect), else the ``kgfs-run`` flow; Prefect is configured offline in
    ``home`` (default ``$KGFS_HOME`` or ``./.kgfs``) unless that was done or Prefect was imported already.

    ``params`` are those of :func:`kgfs_run` (``selector``, ``selector_params``, ``eval_selectors``,
    ``classifiers``, ``protocol``, ``n_splits``, ``seed``, ``n_jobs``, ``sparse_arff``, ``artifacts``,
    ``dask_address``: ``tcp://HOST:PORT`` or ``"local"``, ``batch_size``, ``external_concurrency``);
    ``no_cache`` recomputes every stage; ``heartbeat`` keeps Prefect's flow heartbeat (~1 s a run);
    ``from_store=False`` runs the flow without looking the stages up first.
    Returns ``records`` (stage -> record), ``runinfo``, ``outputs`` (name -> path), ``params`` and
    ``results`` (``headline`` rows, ``kept`` features, ``warnings``).
    """
    settings.ensure_configured(home)
    home = Path(home).absolute() if home is not None else settings.kgfs_home()
    if source is None:
        from flows.inputs import resolve_source

        source = resolve_source()
    kwargs = dict(source=source, out=str(Path(out).absolute()), home=str(home), no_cache=no_cache, **params)
    result = run_from_store(**kwargs) if from_store and not no_cache else None
    if result is not None:
        return result
    Path(home, "prefect").mkdir(parents=True, exist_ok=True)
    _prefect.build()
    with contextlib.nullcontext() if heartbeat else settings.no_heartbeat():
        return kgfs_run(**kwargs)
