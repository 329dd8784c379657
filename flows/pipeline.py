"""The Prefect flows behind ``kgfs run``: one flow per stage and ``kgfs-run`` stringing them together.

Stages: (DBpedia route) annotate -> fetch facts, or (GO route) load facts; then build DAG and
table -> select -> evaluate -> export. Flows: ``kgfs-annotate``, ``kgfs-fetch``, ``kgfs-facts``,
``kgfs-table``, ``kgfs-select``, ``kgfs-evaluate``, ``kgfs-export`` (:func:`annotate_flow`, ...),
each runnable alone; ``kgfs-run`` (:func:`kgfs_run`) calls annotate, fetch and evaluate as
subflows and runs the single-task stages' bodies itself (see :func:`_kgfs_run`).

External calls (Spotlight, SPARQL) are the ``annotate-batch``, ``fetch-batch`` and ``fetch-facts``
tasks: retried on transient errors (:func:`_transient`), at most ``external_concurrency``
batches in flight (:func:`_map_batches`), tagged ``kgfs-external`` for Prefect's tag concurrency
limits. With ``dask_address`` the evaluation grid and those batches run on a Dask cluster through
prefect-dask's ``DaskTaskRunner`` (``"local"``: a ``LocalCluster`` on 127.0.0.1 for the run).

Each stage is a Prefect task around a function of :mod:`flows.stages` (which in turn calls
``kg`` and ``selection``). Two layers of caching, both keyed by content:

- Prefect's task cache (results serialised as JSON: records are plain data, and nothing the
  pipeline reads back is a pickle): ``cache_policy = INPUTS + TASK_SOURCE``; the inputs are the upstream
  stages' small records (whose ``hash`` is the content hash of their files), the parameters
  (sorted lists, plain dicts) and a ``code`` string (:func:`flows.stages.code_version`: the
  source hashes of the library modules the stage runs; ``TASK_SOURCE`` alone covers only the
  task's own body). Results are persisted under the kgfs home.
- The stage store (``<kgfs home>/store``), whose folder names are the same kind of key: if
  Prefect's cache is gone but the store is not, the stage is still not recomputed; if the
  store was cleared, the cached record fails :func:`flows.stages.record_valid` and the task
  is run again with ``refresh_cache``.

``no_cache=True`` (``kgfs run --no-cache``) recomputes every stage (``refresh_cache`` on the
tasks, ``force`` in the store). Progress is reported through :func:`set_reporter` (the command
line draws it with rich); the library stays quiet.

Prefect is configured for offline use by :mod:`flows.settings` before it is imported here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path

from flows import settings

if not settings.prefect_imported():  # configure before the first import of prefect
    settings.configure()

from prefect import flow, task  # noqa: E402
from prefect.artifacts import create_markdown_artifact, create_table_artifact  # noqa: E402
from prefect.cache_policies import INPUTS, TASK_SOURCE  # noqa: E402

from flows import stages  # noqa: E402

__all__ = ["CACHE_POLICY", "run_pipeline", "kgfs_run", "set_reporter", "STAGES", "facts_flow", "table_flow",
           "select_flow", "evaluate_flow", "export_flow", "dask_task_runner", "report_markdown"]

# ``force`` only says "recompute" and ``dask``/``n_jobs`` only where: none changes what is computed
CACHE_POLICY = (INPUTS - "force" - "dask" - "n_jobs") + TASK_SOURCE
STAGES = ("annotate", "fetch", "facts", "table", "select", "evaluate", "export")

_reporter: Callable[..., None] | None = None


def set_reporter(fn: Callable[..., None] | None) -> None:
    """Set ``fn(event, stage, **info)`` called with ``"start"``, ``"progress"`` (done, total), ``"done"`` (record)."""
    global _reporter
    _reporter = fn


def _emit(event: str, stage: str, **info) -> None:
    if _reporter is not None:
        _reporter(event, stage, **info)


def _progress(stage: str):
    return lambda done, total: _emit("progress", stage, done=done, total=total)


# --------------------------------------------------------------------------- tasks
@task(name="load-facts", cache_policy=CACHE_POLICY, persist_result=True, result_serializer="json")
def load_facts_task(spec: dict, code: str, home: str, force: bool = False) -> dict:
    return stages.stage_load_facts(spec, home=home, force=force)


@task(name="build-table", cache_policy=CACHE_POLICY, persist_result=True, result_serializer="json")
def build_table_task(spec: dict, facts: dict, code: str, home: str, force: bool = False) -> dict:
    return stages.stage_build_table(spec, facts, home=home, force=force)


@task(name="load-dataset", cache_policy=CACHE_POLICY, persist_result=True, result_serializer="json")
def load_dataset_task(spec: dict, code: str, home: str, force: bool = False) -> dict:
    return stages.stage_load_dataset(spec, home=home, force=force)


@task(name="select", cache_policy=CACHE_POLICY, persist_result=True, result_serializer="json")
def select_task(table: dict, selector: str, params: dict, code: str, home: str, force: bool = False) -> dict:
    return stages.stage_select(table, selector, params, home=home, force=force)


@task(name="evaluate", cache_policy=CACHE_POLICY, persist_result=True, result_serializer="json")
def evaluate_task(table: dict, selectors: list, classifiers: list, dataset: str, protocol: str, n_splits: int,
                  seed: int, n_jobs: int, code: str, home: str, force: bool = False, dask: bool = False) -> dict:
    kwargs = dict(dataset=dataset, protocol=protocol, n_splits=n_splits, random_state=seed, home=home,
                  force=force, progress=_progress("evaluate"))
    if not dask:
        return stages.stage_evaluate(table, selectors, classifiers, n_jobs=n_jobs, **kwargs)
    # Running on a Dask worker (DaskTaskRunner): the grid's dataset x fold units are spread over
    # the whole cluster through joblib's Dask backend; every finished cell is still written at
    # once, atomically, into the stage folder (so a killed run resumes cell by cell).
    import joblib
    from prefect_dask import get_dask_client

    with get_dask_client(), joblib.parallel_config(backend="dask"):
        return stages.stage_evaluate(table, selectors, classifiers, n_jobs=-1, **kwargs)


@task(name="export", cache_policy=CACHE_POLICY, persist_result=True, result_serializer="json")
def export_task(table: dict, sparse_arff: bool, code: str, home: str, force: bool = False,
                select: dict | None = None) -> dict:
    return stages.stage_export(table, select, sparse_arff=sparse_arff, home=home, force=force)


# --------------------------------------------------------------------------- DBpedia route: external calls
EXTERNAL_TAG = "kgfs-external"
TRANSIENT_RETRIES = 3


def _transient(task, task_run, state) -> bool:
    """Retry a batch only on errors that may pass: the service unreachable, timeouts, HTTP 5xx/429.

    ``kg.dbpedia.spotlight`` and ``kg.dbpedia.sparql`` already retry each request a few times; a task-level
    retry (after 2, 10, 30 s) covers a service that is down for longer. Bad input is not retried.
    """
    try:
        exc = state.result(raise_on_failure=False)
    except Exception as e:  # noqa: BLE001
        exc = e
    from kg.dbpedia.sparql import SourceUnavailableError
    from kg.dbpedia.spotlight import SpotlightError

    if isinstance(exc, (SourceUnavailableError, ConnectionError, TimeoutError)):
        return True
    if isinstance(exc, SpotlightError):
        msg = str(exc).lower()
        return any(w in msg for w in ("unavailable", "timed out", "timeout", "connection", "429", " 5"))
    try:
        import requests

        return isinstance(exc, (requests.ConnectionError, requests.Timeout))
    except ImportError:  # pragma: no cover
        return False


_EXTERNAL = dict(cache_policy=CACHE_POLICY, persist_result=True, result_serializer="json",
                 retries=TRANSIENT_RETRIES, retry_delay_seconds=[2, 10, 30], retry_condition_fn=_transient,
                 tags=[EXTERNAL_TAG])


@task(name="annotate-batch", **_EXTERNAL)
def annotate_batch_task(spec: dict, start: int, stop: int, code: str, home: str, force: bool = False) -> dict:
    return stages.stage_annotate_batch(spec, start, stop, home=home, force=force)


@task(name="annotate", cache_policy=CACHE_POLICY, persist_result=True, result_serializer="json")
def annotate_task(spec: dict, batches: list, code: str, home: str, force: bool = False) -> dict:
    return stages.stage_annotate(spec, batches, home=home, force=force)


@task(name="fetch-batch", **_EXTERNAL)
def fetch_batch_task(spec: dict, entities: list, code: str, home: str, force: bool = False) -> dict:
    return stages.stage_fetch_batch(spec, entities, home=home, force=force)


@task(name="fetch-facts", **_EXTERNAL)
def fetch_task(spec: dict, batches: list, code: str, home: str, force: bool = False) -> dict:
    return stages.stage_fetch(spec, batches, home=home, force=force)


@task(name="build-dbpedia-table", cache_policy=CACHE_POLICY, persist_result=True, result_serializer="json")
def dbpedia_table_task(spec: dict, annotate: dict, fetch: dict, code: str, home: str, force: bool = False) -> dict:
    return stages.stage_dbpedia_table(spec, annotate, fetch, home=home, force=force)


def _map_batches(stage: str, tsk, home: str, no_cache: bool, batches: list[dict], limit: int, **common) -> list:
    """Run one task per batch on the flow's task runner, at most ``limit`` in flight at a time.

    The window is the concurrency limit that works everywhere (offline, thread pool, Dask): a
    big corpus never has more than ``limit`` requests' worth of batches hitting the service.
    """
    storage = Path(home) / "prefect" / "results"
    limit = max(1, int(limit))
    out: list = [None] * len(batches)
    for w in range(0, len(batches), limit):
        window = [(i, tsk.with_options(result_storage=storage, refresh_cache=no_cache).submit(
            home=home, force=no_cache, **common, **batches[i])) for i in range(w, min(w + limit, len(batches)))]
        for i, fut in window:
            fut.wait()
            rec = fut.state.result()
            if not stages.record_valid(rec):
                rec = _submit(tsk, storage, True, dict(home=home, force=False, **common, **batches[i])).result()
            out[i] = {k: v for k, v in dict(rec).items() if k != "reused"}
        _emit("progress", stage, done=min(w + limit, len(batches)), total=len(batches), what="batches")
    return out


def _submit(tsk, storage: Path, refresh: bool, kwargs: dict):
    fut = tsk.with_options(result_storage=storage, refresh_cache=refresh).submit(**kwargs)
    fut.wait()
    return fut.state


def _stage(stage: str, tsk, home: str, no_cache: bool, **kwargs) -> dict:
    """Run one stage task on the current flow's task runner; rerun it when a cached record
    points at files that are gone.

    Returns ``{"record": ..., "info": ...}``: the stage's record without volatile fields (so it
    can key downstream stages), and whether it was reused and how long it took.
    """
    _emit("start", stage)
    t0 = time.perf_counter()
    storage = Path(home) / "prefect" / "results"
    state = _submit(tsk, storage, no_cache, dict(home=home, force=no_cache, **kwargs))
    rec = state.result()
    cached = state.name == "Cached"
    if not stages.record_valid(rec):
        state = _submit(tsk, storage, True, dict(home=home, force=False, **kwargs))
        rec, cached = state.result(), False
    reused = bool(cached or rec.get("reused"))
    rec = {k: v for k, v in dict(rec).items() if k != "reused"}
    info = {"reused": reused, "prefect_cached": cached, "seconds": round(time.perf_counter() - t0, 3)}
    _emit("done", stage, record={**rec, **info})
    return {"record": rec, "info": info}


# --------------------------------------------------------------------------- one flow per stage
# Each is a thin Prefect flow around one task; `kgfs-run` calls them as subflows, and each can
# be run on its own (e.g. `select_flow(table_record, "shsel-ig-prune", {}, home=...)`).
@flow(name="kgfs-facts", persist_result=False)
def facts_flow(spec: dict, home: str, no_cache: bool = False) -> dict:
    """GO route: annotations + labels -> ``facts.json``."""
    return _stage("facts", load_facts_task, home, no_cache, spec=spec, code=stages.code_version("facts"))


@flow(name="kgfs-annotate", persist_result=False)
def annotate_flow(spec: dict, home: str, no_cache: bool = False, batch_size: int = 500,
                  concurrency: int = 4) -> dict:
    """DBpedia route: entity linking, one ``annotate-batch`` task per ``batch_size`` texts."""
    code = stages.code_version("dbpedia")
    batches = [{"start": a, "stop": b} for a, b in stages.corpus_batches(spec, batch_size)]
    _emit("start", "annotate")
    recs = _map_batches("annotate", annotate_batch_task, home, no_cache, batches, concurrency, spec=spec, code=code)
    return _stage("annotate", annotate_task, home, no_cache, spec=spec, batches=recs, code=code)


@flow(name="kgfs-fetch", persist_result=False)
def fetch_flow(spec: dict, annotate: dict, home: str, no_cache: bool = False, batch_size: int = 500,
               concurrency: int = 4) -> dict:
    """DBpedia route: types/categories of the entities (``fetch-batch`` tasks), then the edges above them."""
    code = stages.code_version("dbpedia")
    batches = [{"entities": b} for b in stages.entity_batches(annotate, batch_size)]
    _emit("start", "fetch")
    recs = _map_batches("fetch", fetch_batch_task, home, no_cache, batches, concurrency, spec=spec, code=code)
    return _stage("fetch", fetch_task, home, no_cache, spec=spec, batches=recs, code=code)


@flow(name="kgfs-table", persist_result=False)
def table_flow(spec: dict, home: str, facts: dict | None = None, no_cache: bool = False,
               annotate: dict | None = None) -> dict:
    """Build the DAG and the closed binary table (GO facts, a registry dataset, or a DBpedia corpus:
    ``annotate`` and ``facts`` records of :func:`annotate_flow` / :func:`fetch_flow`)."""
    if spec["kind"] == "go":
        return _stage("table", build_table_task, home, no_cache, spec=spec, facts=facts,
                      code=stages.code_version("table"))
    if spec["kind"] == "dbpedia":
        return _stage("table", dbpedia_table_task, home, no_cache, spec=spec, annotate=annotate, fetch=facts,
                      code=stages.code_version("dbpedia"))
    return _stage("table", load_dataset_task, home, no_cache, spec=spec, code=stages.code_version("dataset"))


@flow(name="kgfs-select", persist_result=False)
def select_flow(table: dict, selector: str, params: dict, home: str, no_cache: bool = False) -> dict:
    """Fit one selector on the whole table (selected features with their scores)."""
    return _stage("select", select_task, home, no_cache, table=table, selector=selector, params=params,
                  code=stages.code_version("select", stages.selector_modules([selector])))


@flow(name="kgfs-evaluate", persist_result=False)
def evaluate_flow(table: dict, selectors: list, classifiers: list, dataset: str, home: str, protocol: str = "basic",
                  n_splits: int = 10, seed: int = 0, n_jobs: int = 1, no_cache: bool = False,
                  dask: bool = False) -> dict:
    """Cross-validate selectors x classifiers (``selection.evaluation.grid``); on a Dask task runner the
    grid's units run on the cluster (``dask=True``)."""
    names = [s if isinstance(s, str) else s[0] for s in selectors]
    return _stage("evaluate", evaluate_task, home, no_cache, table=table, selectors=selectors,
                  classifiers=classifiers, dataset=dataset, protocol=protocol, n_splits=n_splits, seed=seed,
                  n_jobs=n_jobs, dask=dask, code=stages.code_version("evaluate", stages.selector_modules(names)))


@flow(name="kgfs-export", persist_result=False)
def export_flow(table: dict, home: str, sparse_arff: bool = True, no_cache: bool = False,
                select: dict | None = None) -> dict:
    """ARFF (dense and sparse), CSV and the hierarchy's edges; with a selection, the reduced table too."""
    return _stage("export", export_task, home, no_cache, table=table, select=select, sparse_arff=sparse_arff,
                  code=stages.code_version("export"))


# --------------------------------------------------------------------------- Dask
def dask_task_runner(address: str):
    """A prefect-dask ``DaskTaskRunner`` on an existing cluster (``tcp://HOST:PORT``)."""
    from prefect_dask import DaskTaskRunner

    return DaskTaskRunner(address=address)


class _dask_cluster:
    """``"local"``: a ``distributed.LocalCluster`` on 127.0.0.1 for this run (``n_workers``
    single-threaded worker processes); any other address is used as it is."""

    def __init__(self, address: str | None, n_workers: int = 2):
        self.address, self.n_workers, self.cluster, self.env = address, max(1, int(n_workers)), None, None

    def __enter__(self) -> str | None:
        if self.address != "local":
            return self.address
        from distributed import LocalCluster

        self.env = _api_env().__enter__()
        self.cluster = LocalCluster(n_workers=self.n_workers, threads_per_worker=1, processes=True,
                                    host="127.0.0.1", dashboard_address="127.0.0.1:0")
        return self.cluster.scheduler_address

    def __exit__(self, *exc):
        if self.cluster is not None:
            self.cluster.close()
            self.env.__exit__(*exc)
        return False


class _api_env:
    """Put this process's Prefect API URL into the environment while a local cluster starts, so
    its worker processes report to the same API instead of starting their own temporary server."""

    def __enter__(self):
        import os

        self._old = os.environ.get("PREFECT_API_URL")
        if not self._old:
            from prefect.client.orchestration import get_client

            with get_client(sync_client=True) as client:
                url = str(client.api_url)
            os.environ["PREFECT_API_URL"] = url.rstrip("/")
        return self

    def __exit__(self, *exc):
        import os

        if not self._old:
            os.environ.pop("PREFECT_API_URL", None)
        return False


# --------------------------------------------------------------------------- artifacts
def _frame_records(df) -> list[dict]:
    return df.astype(object).where(df.notna(), None).to_dict("records")


def _artifacts(records: Mapping[str, Mapping], runinfo: Mapping[str, Mapping], params: Mapping,
               outputs: Mapping[str, str] | None = None) -> None:
    """Table and markdown artifacts a person sees in the Prefect UI (Artifacts tab of the run)."""
    import pandas as pd

    sel = records.get("select")
    if sel:
        df = pd.read_csv(Path(sel["dir"]) / sel["files"]["selected"]).head(500)
        create_table_artifact(_frame_records(df), key="selected-features",
                              description=f"features kept by {params['selector']}, with their scores "
                                          f"({len(df)} shown)")
    ev = records.get("evaluate")
    if ev:
        df = pd.read_csv(Path(ev["dir"]) / ev["files"]["summary"]).round(4)
        create_table_artifact(_frame_records(df), key="evaluation-summary",
                              description="cross-validation: mean over the folds per selector x classifier")
    create_markdown_artifact(report_markdown(records, runinfo, params, outputs), key="kgfs-run-report",
                             description="run parameters, stage records and plots")


def report_markdown(records: Mapping[str, Mapping], runinfo: Mapping[str, Mapping], params: Mapping,
                    outputs: Mapping[str, str] | None = None) -> str:
    """The markdown report of a run: parameters, stages (reused or not), outputs and plot paths."""
    lines = [f"# kgfs run: {params.get('dataset')}", "", "## Parameters", "", "| parameter | value |", "|---|---|"]
    lines += [f"| {k} | `{v}` |" for k, v in params.items() if k != "source"]
    lines += ["", "## Stages", "", "| stage | reused | seconds | folder |", "|---|---|---|---|"]
    lines += [f"| {k} | {runinfo.get(k, {}).get('reused')} | {runinfo.get(k, {}).get('seconds')} | `{r.get('dir')}` |"
              for k, r in records.items()]
    ev = records.get("evaluate") or {}
    plots = [p for n, p in sorted((outputs or {}).items()) if n.endswith(".png")]
    if not plots and ev:
        plots = [str(Path(ev["dir"]) / f) for r, f in sorted(ev.get("files", {}).items()) if f.endswith(".png")]
    if plots:
        lines += ["", "## Plots", ""] + [f"- `{p}`" for p in plots]
    if outputs:
        lines += ["", "## Outputs", ""] + [f"- `{p}`" for _n, p in sorted(outputs.items()) if not p.endswith(".png")]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- the pipeline flow
@flow(name="kgfs-run", persist_result=False, log_prints=False)
def kgfs_run(
    source: dict,
    selector: str = "shsel-ig-prune",
    selector_params: dict | None = None,
    eval_selectors: list | None = None,
    classifiers: list | None = None,
    protocol: str = "basic",
    n_splits: int = 10,
    seed: int = 0,
    n_jobs: int = 1,
    sparse_arff: bool = True,
    out: str = "kgfs-output",
    home: str = ".kgfs",
    no_cache: bool = False,
    artifacts: bool = True,
    dask_address: str | None = None,
    batch_size: int = 500,
    external_concurrency: int = 4,
) -> dict:
    """The whole pipeline on one input (see :func:`run_pipeline`): the stage flows as subflows."""
    with _dask_cluster(dask_address, n_jobs if n_jobs > 1 else 2) as address:
        return _kgfs_run(source, selector, selector_params, eval_selectors, classifiers, protocol, n_splits, seed,
                         n_jobs, sparse_arff, out, home, no_cache, artifacts, address, batch_size,
                         external_concurrency)


def _kgfs_run(source, selector, selector_params, eval_selectors, classifiers, protocol, n_splits, seed, n_jobs,
              sparse_arff, out, home, no_cache, artifacts, dask_address, batch_size, external_concurrency):
    def on_cluster(fl):  # a stage flow whose tasks run on the Dask cluster, when there is one
        return fl.with_options(task_runner=dask_task_runner(dask_address)) if dask_address else fl

    # Single-task stages (facts, table, select, export) run their stage flow's body inside this
    # flow (their task is still a cached Prefect task of this run): a subflow would only add a
    # flow run, about 0.4 s each on the temporary server, which a fully cached run would pay
    # four times. Annotation, fetching and evaluation (many tasks, possibly on a Dask cluster)
    # are subflows.
    def inline(fl):
        return fl.fn

    selector_params = dict(sorted((selector_params or {}).items()))
    eval_selectors = list(eval_selectors or [selector])
    # the whole-table selector's parameters apply in the cross-validation too
    eval_specs = [[s, selector_params] if s == selector and selector_params else s for s in eval_selectors]
    classifiers = list(classifiers or ["nb"])
    runs: dict[str, dict] = {}
    if source["kind"] == "go":
        runs["facts"] = inline(facts_flow)(source, home, no_cache)
        runs["table"] = inline(table_flow)(source, home, runs["facts"]["record"], no_cache)
    elif source["kind"] == "dbpedia":
        batching = dict(batch_size=batch_size, concurrency=external_concurrency)
        runs["annotate"] = on_cluster(annotate_flow)(source, home, no_cache, **batching)
        runs["fetch"] = on_cluster(fetch_flow)(source, runs["annotate"]["record"], home, no_cache, **batching)
        runs["table"] = inline(table_flow)(source, home, runs["fetch"]["record"], no_cache,
                                           annotate=runs["annotate"]["record"])
    else:
        runs["table"] = inline(table_flow)(source, home, None, no_cache)
    table = runs["table"]["record"]
    runs["select"] = inline(select_flow)(table, selector, selector_params, home, no_cache)
    ev_kwargs = dict(table=table, selectors=eval_specs, classifiers=classifiers, dataset=source["name"], home=home,
                     protocol=protocol, n_splits=n_splits, seed=seed, n_jobs=n_jobs, no_cache=no_cache)
    runs["evaluate"] = on_cluster(evaluate_flow)(dask=bool(dask_address), **ev_kwargs)
    runs["export"] = inline(export_flow)(table, home, sparse_arff, no_cache, select=runs["select"]["record"])
    records = {k: v["record"] for k, v in runs.items()}
    runinfo = {k: v["info"] for k, v in runs.items()}
    params = {"dataset": source["name"], "selector": selector, "selector_params": selector_params,
              "eval_selectors": eval_selectors, "classifiers": classifiers, "protocol": protocol,
              "n_splits": n_splits, "seed": seed, "source": source}
    _emit("start", "publish")
    written = stages.publish(records, out, params, runinfo)
    _emit("done", "publish", record={"dir": str(out), "files": {k: k for k in written}, "reused": False})
    outputs = {k: str(v) for k, v in written.items()}
    if artifacts:
        _artifacts(records, runinfo, params, outputs)
    return {"records": records, "runinfo": runinfo, "outputs": outputs, "params": params}


_api_thread = None


def start_api_in_background() -> None:
    """Start Prefect's temporary API server in a thread (only when no ``PREFECT_API_URL`` is set).

    The server boots in its own process in 3-5 s; starting it first lets the caller resolve its
    inputs and import the selectors meanwhile. :func:`run_pipeline` waits for it before the flow
    starts (so the flow never starts a second one).
    """
    global _api_thread
    import os
    import threading

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


def run_pipeline(
    source: dict | None = None,
    *,
    out: str | Path = "kgfs-output",
    home: str | Path | None = None,
    no_cache: bool = False,
    heartbeat: bool = False,
    **params,
) -> dict:
    """Run the ``kgfs-run`` flow (default: the bundled ``bundled/DM-BP`` dataset).

    Parameters
    ----------
    source : dict, optional
        From :func:`flows.stages.resolve_source`; default the bundled dataset.
    out : path
        Output folder (ARFF, CSV, hierarchy, selected features, evaluation, ``run.json``).
    home : path, optional
        The kgfs home (stage store and Prefect state); default ``$KGFS_HOME`` or ``./.kgfs``.
    no_cache : bool
        Recompute every stage.
    heartbeat : bool
        Keep Prefect's flow heartbeat (off by default: it costs about a second per run).
    **params
        ``selector``, ``selector_params``, ``eval_selectors``, ``classifiers``, ``protocol``,
        ``n_splits``, ``seed``, ``n_jobs``, ``sparse_arff``, ``artifacts``, ``dask_address``
        (``tcp://HOST:PORT`` of a running Dask scheduler, or ``"local"`` for a local cluster of
        ``n_jobs`` workers: the evaluation grid then runs through prefect-dask's ``DaskTaskRunner``).

    Returns
    -------
    dict with ``records`` (stage -> record), ``outputs`` (file name -> path) and ``params``.
    """
    home = Path(home).absolute() if home is not None else settings.kgfs_home()
    Path(home, "prefect").mkdir(parents=True, exist_ok=True)
    if source is None:
        source = stages.resolve_source()
    kwargs = dict(source=source, out=str(Path(out).absolute()), home=str(home), no_cache=no_cache, **params)
    if _api_thread is not None:
        _api_thread.join()
    if heartbeat:
        return kgfs_run(**kwargs)
    with settings.no_heartbeat():
        return kgfs_run(**kwargs)

