"""The Prefect flow behind ``kgfs run``: ``kgfs-run`` and its subflows.

``kgfs-run`` (:func:`kgfs_run`) runs the stages in order: (DBpedia route) the subflows
``kgfs-annotate`` and ``kgfs-fetch``, or (GO route) the task ``load-facts``; then the tasks
``build-table``, ``select``, the subflow ``kgfs-evaluate`` and the task ``export``. Each task is a
function of :mod:`flows.stages`; each subflow can also be run alone (:func:`annotate_flow`, ...). The one cache is kgfs's stage store (:class:`kg.runs.store.Store`, keyed by content):
Prefect persists no results and caches nothing (so it never reads a result file back), and a task
whose stage is in the store returns its record at once. The external calls (Spotlight, SPARQL) are batch tasks retried on
transient errors, at most ``external_concurrency`` in flight (:func:`_map_batches`), tagged
``kgfs-external``. With ``dask_address`` the grid and the batches run on a Dask cluster
(prefect-dask's ``DaskTaskRunner``; ``"local"``: a ``LocalCluster`` on 127.0.0.1). Importing this
module imports no Prefect (:class:`flows.settings.LazyPrefect`).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from flows import settings, stages
from kg.runs.publish import publish

__all__ = ["annotate_flow", "evaluate_flow", "fetch_flow", "kgfs_run", "run_pipeline", "set_reporter",
           "start_api_in_background"]

_reporter: Callable[..., None] | None = None


def set_reporter(fn: Callable[..., None] | None) -> None:
    """Set ``fn(event, stage, **info)`` called with ``"start"``, ``"progress"`` (done, total), ``"done"`` (record)."""
    global _reporter
    _reporter = fn


def _emit(event: str, stage: str, **info) -> None:
    if _reporter is not None:
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
# Each stage function of flows.stages is a task as it is: attribute name, Prefect name, function, preset.
for _attr, _name, _fn, _preset in (
        ("load_facts_task", "load-facts", stages.stage_load_facts, "stage"),
        ("build_table_task", "build-table", stages.stage_build_table, "stage"),
        ("load_dataset_task", "load-dataset", stages.stage_load_dataset, "stage"),
        ("select_task", "select", stages.stage_select, "stage"),
        ("export_task", "export", stages.stage_export, "stage"),
        ("annotate_batch_task", "annotate-batch", stages.stage_annotate_batch, "external"),
        ("annotate_task", "annotate", stages.stage_annotate, "stage"),
        ("fetch_batch_task", "fetch-batch", stages.stage_fetch_batch, "external"),
        ("fetch_task", "fetch-facts", stages.stage_fetch, "external"),
        ("dbpedia_table_task", "build-dbpedia-table", stages.stage_dbpedia_table, "stage")):
    _prefect.add_task(_attr, _fn, name=_name, preset=_preset)


@_prefect.task(name="evaluate", preset="stage")
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
    _emit("done", stage, record={**rec, **info})
    return {"record": rec, "info": info}


# --------------------------------------------------------------------------- stages with many tasks: subflows
# Annotation, fetching and evaluation (many tasks, possibly on a Dask cluster) are subflows of
# `kgfs-run`, each runnable alone; a single-task stage is a task of `kgfs-run` itself.
@_prefect.flow(name="kgfs-annotate", preset="flow")
def _annotate_flow(spec: dict, home: str, no_cache: bool = False, batch_size: int = 500,
                   concurrency: int = 4) -> dict:
    """DBpedia route: entity linking, one ``annotate-batch`` task per ``batch_size`` texts."""
    batches = [{"start": a, "stop": b} for a, b in stages.corpus_batches(spec, batch_size)]
    _emit("start", "annotate")
    recs = _map_batches("annotate", annotate_batch_task, home, no_cache, batches, concurrency, spec=spec)
    return _stage("annotate", annotate_task, home, no_cache, spec=spec, batches=recs)


@_prefect.flow(name="kgfs-fetch", preset="flow")
def _fetch_flow(spec: dict, annotate: dict, home: str, no_cache: bool = False, batch_size: int = 500,
                concurrency: int = 4) -> dict:
    """DBpedia route: types/categories of the entities (``fetch-batch`` tasks), then the edges above them."""
    batches = [{"entities": b} for b in stages.entity_batches(annotate, batch_size)]
    _emit("start", "fetch")
    recs = _map_batches("fetch", fetch_batch_task, home, no_cache, batches, concurrency, spec=spec)
    return _stage("fetch", fetch_task, home, no_cache, spec=spec, batches=recs)


@_prefect.flow(name="kgfs-evaluate", preset="flow")
def _evaluate_flow(table: dict, selectors: list, classifiers: list, dataset: str, home: str, protocol: str = "basic",
                   n_splits: int = 10, seed: int = 0, n_jobs: int = 1, no_cache: bool = False,
                   dask: bool = False) -> dict:
    """Cross-validate selectors x classifiers; on a Dask task runner the grid's units run on the cluster."""
    return _stage("evaluate", evaluate_task, home, no_cache, table_rec=table, selectors=selectors,
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


# --------------------------------------------------------------------------- artifacts
def _artifacts(records: Mapping[str, Mapping], runinfo: Mapping[str, Mapping], params: Mapping,
               outputs: Mapping[str, str] | None = None) -> None:
    """Table and markdown artifacts a person sees in the Prefect UI (Artifacts tab of the run)."""
    import pandas as pd
    from prefect.artifacts import create_markdown_artifact, create_table_artifact

    from kg.runs.publish import run_markdown

    def rows(rec, role, frame=lambda df: df):
        df = frame(pd.read_csv(Path(rec["dir"]) / rec["files"][role]))
        return df.astype(object).where(df.notna(), None).to_dict("records")

    if records.get("select"):
        sel = rows(records["select"], "selected", lambda df: df.head(500))
        create_table_artifact(sel, key="selected-features", description=f"features kept by {params['selector']}, "
                                                                        f"with their scores ({len(sel)} shown)")
    if records.get("evaluate"):
        create_table_artifact(rows(records["evaluate"], "summary", lambda df: df.round(4)), key="evaluation-summary",
                              description="cross-validation: mean over the folds per selector x classifier")
    create_markdown_artifact(run_markdown(records, runinfo, params, outputs), key="kgfs-run-report",
                             description="run parameters, stage records and plots")


# --------------------------------------------------------------------------- the pipeline flow
@_prefect.flow(name="kgfs-run", persist_result=False, log_prints=False)
def _kgfs_run(source: dict, selector: str = "shsel-ig-prune", selector_params: dict | None = None,
              eval_selectors: list | None = None, classifiers: list | None = None, protocol: str = "basic",
              n_splits: int = 10, seed: int = 0, n_jobs: int = 1, sparse_arff: bool = True, out: str = "kgfs-output",
              home: str = ".kgfs", no_cache: bool = False, artifacts: bool = True, dask_address: str | None = None,
              batch_size: int = 500, external_concurrency: int = 4) -> dict:
    """The whole pipeline on one input (see :func:`run_pipeline`): the stage flows as subflows."""
    selector_params = dict(sorted((selector_params or {}).items()))
    eval_selectors = list(eval_selectors or [selector])
    # the whole-table selector's parameters apply in the cross-validation too
    eval_specs = [[s, selector_params] if s == selector and selector_params else s for s in eval_selectors]
    params = {"dataset": source["name"], "selector": selector, "selector_params": selector_params,
              "eval_selectors": eval_selectors, "classifiers": list(classifiers or ["nb"]), "protocol": protocol,
              "n_splits": n_splits, "seed": seed, "source": source}
    with _dask_cluster(dask_address, n_jobs if n_jobs > 1 else 2) as address:
        def on_cluster(fl):  # a stage flow whose tasks run on the Dask cluster, when there is one
            from prefect_dask import DaskTaskRunner

            return fl.with_options(task_runner=DaskTaskRunner(address=address)) if address else fl

        runs: dict[str, dict] = {}
        if source["kind"] == "go":
            runs["facts"] = _stage("facts", load_facts_task, home, no_cache, spec=source)
            runs["table"] = _stage("table", build_table_task, home, no_cache, spec=source,
                                   facts_rec=runs["facts"]["record"])
        elif source["kind"] == "dbpedia":
            batching = dict(batch_size=batch_size, concurrency=external_concurrency)
            runs["annotate"] = on_cluster(annotate_flow)(source, home, no_cache, **batching)
            runs["fetch"] = on_cluster(fetch_flow)(source, runs["annotate"]["record"], home, no_cache, **batching)
            runs["table"] = _stage("table", dbpedia_table_task, home, no_cache, spec=source,
                                   annotate_rec=runs["annotate"]["record"], fetch_rec=runs["fetch"]["record"])
        else:
            runs["table"] = _stage("table", load_dataset_task, home, no_cache, spec=source)
        table = runs["table"]["record"]
        runs["select"] = _stage("select", select_task, home, no_cache, table_rec=table, selector=selector,
                                params=selector_params)
        runs["evaluate"] = on_cluster(evaluate_flow)(
            table=table, selectors=eval_specs, classifiers=params["classifiers"], dataset=source["name"], home=home,
            protocol=protocol, n_splits=n_splits, seed=seed, n_jobs=n_jobs, no_cache=no_cache, dask=bool(address))
        runs["export"] = _stage("export", export_task, home, no_cache, table_rec=table,
                                select_rec=runs["select"]["record"], sparse_arff=sparse_arff)
    records, runinfo = {k: v["record"] for k, v in runs.items()}, {k: v["info"] for k, v in runs.items()}
    _emit("start", "publish")
    outputs = {k: str(v) for k, v in publish(records, out, params, runinfo).items()}
    _emit("done", "publish", record={"dir": str(out), "files": {k: k for k in outputs}, "reused": False})
    if artifacts:
        _artifacts(records, runinfo, params, outputs)
    return {"records": records, "runinfo": runinfo, "outputs": outputs, "params": params}


_api_thread = None


def start_api_in_background() -> None:
    """Start Prefect's temporary API server in a thread (unless ``PREFECT_API_URL`` is set): it boots in
    3-5 s while the caller resolves its inputs; :func:`run_pipeline` waits for it (so the flow never
    starts a second one)."""
    global _api_thread
    settings.ensure_configured()
    from prefect.settings import PREFECT_API_URL

    if PREFECT_API_URL.value() or _api_thread is not None:
        return

    def start():
        from prefect.server.api.server import SubprocessASGIServer

        try:
            SubprocessASGIServer().start(
                timeout=int(os.environ.get("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")))
        except Exception:  # noqa: BLE001 - the flow's own client start reports the problem
            pass

    _api_thread = threading.Thread(target=start, name="kgfs-prefect-api", daemon=True)
    _api_thread.start()


def run_pipeline(source: dict | None = None, *, out: str | Path = "kgfs-output", home: str | Path | None = None,
                 no_cache: bool = False, heartbeat: bool = False, **params) -> dict:
    """Run the ``kgfs-run`` flow on ``source`` (:func:`kg.runs.inputs.resolve_source`; default the bundled
    ``bundled/DM-BP``), writing into ``out``; Prefect is configured offline in ``home`` (default
    ``$KGFS_HOME`` or ``./.kgfs``) unless that was done or Prefect was imported already.

    ``params`` are those of :func:`kgfs_run` (``selector``, ``selector_params``, ``eval_selectors``,
    ``classifiers``, ``protocol``, ``n_splits``, ``seed``, ``n_jobs``, ``sparse_arff``, ``artifacts``,
    ``dask_address``: ``tcp://HOST:PORT`` or ``"local"``, ``batch_size``, ``external_concurrency``);
    ``no_cache`` recomputes every stage; ``heartbeat`` keeps Prefect's flow heartbeat (~1 s a run).
    Returns ``records`` (stage -> record), ``runinfo``, ``outputs`` (name -> path) and ``params``.
    """
    settings.ensure_configured(home)
    home = Path(home).absolute() if home is not None else settings.kgfs_home()
    Path(home, "prefect").mkdir(parents=True, exist_ok=True)
    if source is None:
        from kg.runs.inputs import resolve_source

        source = resolve_source()
    _prefect.build()
    kwargs = dict(source=source, out=str(Path(out).absolute()), home=str(home), no_cache=no_cache, **params)
    if _api_thread is not None:
        _api_thread.join()
    if heartbeat:
        return kgfs_run(**kwargs)
    with settings.no_heartbeat():
        return kgfs_run(**kwargs)
