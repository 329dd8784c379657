"""The Prefect flow behind ``kgfs run``: load facts -> build table -> select -> evaluate -> export.

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

__all__ = ["CACHE_POLICY", "run_pipeline", "kgfs_run", "set_reporter", "STAGES"]

# ``force`` only says "recompute"; it must not change the key of what is computed
CACHE_POLICY = (INPUTS - "force") + TASK_SOURCE
STAGES = ("facts", "table", "select", "evaluate", "export")

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


@task(name="corpus-table", cache_policy=CACHE_POLICY, persist_result=True, result_serializer="json")
def corpus_table_task(spec: dict, code: str, home: str, force: bool = False) -> dict:
    return stages.stage_corpus_table(spec, home=home, force=force,
                                     progress=lambda what, done, total: _emit("progress", "table", done=done,
                                                                              total=total, what=what))


@task(name="select", cache_policy=CACHE_POLICY, persist_result=True, result_serializer="json")
def select_task(table: dict, selector: str, params: dict, code: str, home: str, force: bool = False) -> dict:
    return stages.stage_select(table, selector, params, home=home, force=force)


@task(name="evaluate", cache_policy=CACHE_POLICY, persist_result=True, result_serializer="json")
def evaluate_task(table: dict, selectors: list, classifiers: list, dataset: str, protocol: str, n_splits: int,
                  seed: int, n_jobs: int, code: str, home: str, force: bool = False) -> dict:
    return stages.stage_evaluate(table, selectors, classifiers, dataset=dataset, protocol=protocol,
                                 n_splits=n_splits, random_state=seed, n_jobs=n_jobs, home=home, force=force,
                                 progress=_progress("evaluate"))


@task(name="export", cache_policy=CACHE_POLICY, persist_result=True, result_serializer="json")
def export_task(table: dict, sparse_arff: bool, code: str, home: str, force: bool = False) -> dict:
    return stages.stage_export(table, sparse_arff=sparse_arff, home=home, force=force)


def _call(stage: str, tsk, home: str, no_cache: bool, runinfo: dict, **kwargs) -> dict:
    """Run one stage task; rerun it when a cached record points at files that are gone.

    Returns the stage's record without volatile fields (so it can key downstream stages);
    whether it was reused and how long it took go to ``runinfo[stage]``.
    """
    _emit("start", stage)
    t0 = time.perf_counter()
    storage = Path(home) / "prefect" / "results"
    state = tsk.with_options(result_storage=storage, refresh_cache=no_cache)(
        home=home, force=no_cache, return_state=True, **kwargs)
    rec = state.result()
    cached = state.name == "Cached"
    if not stages.record_valid(rec):
        state = tsk.with_options(result_storage=storage, refresh_cache=True)(
            home=home, force=False, return_state=True, **kwargs)
        rec, cached = state.result(), False
    rec = {k: v for k, v in dict(rec).items() if k != "reused"}
    info = {"reused": bool(cached or state.result().get("reused")), "prefect_cached": cached,
            "seconds": round(time.perf_counter() - t0, 3)}
    runinfo[stage] = info
    _emit("done", stage, record={**rec, **info})
    return rec


def _artifacts(records: Mapping[str, Mapping], runinfo: Mapping[str, Mapping], params: Mapping) -> None:
    """Table and markdown artifacts a person sees in the Prefect UI."""
    import pandas as pd

    sel = records.get("select")
    if sel:
        df = pd.read_csv(Path(sel["dir"]) / sel["files"]["selected"]).head(200)
        create_table_artifact(df.astype(object).where(df.notna(), None).to_dict("records"),
                              key="selected-features", description=f"features kept by {params['selector']}")
    ev = records.get("evaluate")
    if ev:
        df = pd.read_csv(Path(ev["dir"]) / ev["files"]["summary"]).round(4)
        create_table_artifact(df.astype(object).where(df.notna(), None).to_dict("records"),
                              key="evaluation-summary", description="mean over the folds")
    lines = ["# kgfs run", "", "| parameter | value |", "|---|---|"]
    lines += [f"| {k} | `{v}` |" for k, v in params.items() if k != "source"]
    lines += ["", "| stage | reused | seconds | folder |", "|---|---|---|---|"]
    lines += [f"| {k} | {runinfo.get(k, {}).get('reused')} | {runinfo.get(k, {}).get('seconds')} | `{r.get('dir')}` |"
              for k, r in records.items()]
    create_markdown_artifact("\n".join(lines), key="kgfs-run", description="parameters and stage records")


# --------------------------------------------------------------------------- the flow
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
) -> dict:
    """The whole pipeline on one input (see :func:`run_pipeline`)."""
    selector_params = dict(sorted((selector_params or {}).items()))
    eval_selectors = list(eval_selectors or [selector])
    # the whole-table selector's parameters apply in the cross-validation too
    eval_specs = [[s, selector_params] if s == selector and selector_params else s for s in eval_selectors]
    classifiers = list(classifiers or ["nb"])
    records: dict[str, dict] = {}
    runinfo: dict[str, dict] = {}
    if source["kind"] == "go":
        records["facts"] = _call("facts", load_facts_task, home, no_cache, runinfo, spec=source,
                                 code=stages.code_version("facts"))
        records["table"] = _call("table", build_table_task, home, no_cache, runinfo, spec=source, facts=records["facts"],
                                 code=stages.code_version("table"))
    elif source["kind"] == "dbpedia":
        records["table"] = _call("table", corpus_table_task, home, no_cache, runinfo, spec=source,
                                 code=stages.code_version("dbpedia"))
    else:
        records["table"] = _call("table", load_dataset_task, home, no_cache, runinfo, spec=source,
                                 code=stages.code_version("dataset"))
    table = records["table"]
    records["select"] = _call("select", select_task, home, no_cache, runinfo, table=table, selector=selector,
                              params=selector_params,
                              code=stages.code_version("select", stages.selector_modules([selector])))
    records["evaluate"] = _call("evaluate", evaluate_task, home, no_cache, runinfo, table=table,
                                selectors=eval_specs, classifiers=classifiers, dataset=source["name"],
                                protocol=protocol, n_splits=n_splits, seed=seed, n_jobs=n_jobs,
                                code=stages.code_version("evaluate", stages.selector_modules(eval_selectors)))
    records["export"] = _call("export", export_task, home, no_cache, runinfo, table=table, sparse_arff=sparse_arff,
                              code=stages.code_version("export"))
    params = {"dataset": source["name"], "selector": selector, "selector_params": selector_params,
              "eval_selectors": eval_selectors, "classifiers": classifiers, "protocol": protocol,
              "n_splits": n_splits, "seed": seed, "source": source}
    _emit("start", "publish")
    written = stages.publish(records, out, params, runinfo)
    _emit("done", "publish", record={"dir": str(out), "files": {k: k for k in written}, "reused": False})
    if artifacts:
        _artifacts(records, runinfo, params)
    return {"records": records, "runinfo": runinfo, "outputs": {k: str(v) for k, v in written.items()},
            "params": params}


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
        ``n_splits``, ``seed``, ``n_jobs``, ``sparse_arff``, ``artifacts``.

    Returns
    -------
    dict with ``records`` (stage -> record), ``outputs`` (file name -> path) and ``params``.
    """
    home = Path(home).absolute() if home is not None else settings.kgfs_home()
    Path(home, "prefect").mkdir(parents=True, exist_ok=True)
    if source is None:
        source = stages.resolve_source()
    kwargs = dict(source=source, out=str(Path(out).absolute()), home=str(home), no_cache=no_cache, **params)
    if heartbeat:
        return kgfs_run(**kwargs)
    with settings.no_heartbeat():
        return kgfs_run(**kwargs)

