"""Running the pipeline: from the store alone when every stage is there, else the ``kgfs-run`` Prefect flow.

:func:`run_pipeline` is the one entry point (the command line and the Python API): it looks every
stage of the run's plan up in the store first (:func:`run_from_store`: the keys computed in order,
no Prefect imported, nothing created in the store) and publishes them; only when a stage has to
be computed does it import :mod:`flows.pipeline` and run the flow. Both end in
:func:`flows.publishing.outcome.finish`:
the outputs published (:func:`flows.publishing.publish.publish`) and what a person reads first
(:func:`selection.evaluation.headline.run_results`). :func:`flows.progress.set_reporter` lets the
command line show the stages as they start, progress and finish.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path

from flows import settings
from flows.publishing.outcome import RunResult, finish
from flows.stages import RunOptions, RunPlan, look_up
from kg.routes import Input, from_json, resolve_dataset

__all__ = ["run_from_store", "run_pipeline"]

def run_from_store(source: Input | Mapping, options: RunOptions | Mapping, out: str | Path,
                   home: str | Path) -> RunResult | None:
    """The result of the ``kgfs-run`` flow when every stage is in the store (their files verified),
    without Prefect: ``None`` when some stage has to be computed. Nothing is created in the store."""
    plan = RunPlan(source, options, home)
    records = look_up(plan)
    if records is None:
        return None
    return finish(plan, records, {k: {"reused": True, "seconds": 0.0} for k in records}, out)


def run_pipeline(source: Input | Mapping | None = None, options: RunOptions | Mapping | None = None, *,
                 out: str | Path = "kgfs-output", home: str | Path | None = None, no_cache: bool = False,
                 heartbeat: bool = False, from_store: bool = True) -> RunResult:
    """Run the pipeline on ``source`` (an :class:`~kg.routes.base.Input` or its JSON; default the bundled
    ``bundled/DM-BP``) with ``options`` (:class:`~flows.stages.RunOptions`), writing into ``out``.

    Every stage in the store (and not ``no_cache``): published from there without Prefect
    (:func:`run_from_store`); else the ``kgfs-run`` flow, Prefect configured offline in ``home``
    (default ``$KGFS_HOME`` or ``./.kgfs``) unless that was done or Prefect was imported already.
    ``heartbeat`` keeps Prefect's flow heartbeat (about 1 s a run); ``from_store=False`` runs the flow
    without looking the stages up first.

    Examples
    --------
    >>> r = run_pipeline(out="out", options={"selector": "complete"})  # doctest: +SKIP
    >>> r.results["headline"]                                          # doctest: +SKIP
    """
    settings.ensure_configured(home)
    home = Path(home).absolute() if home is not None else settings.kgfs_home()
    source = from_json(source) if source is not None else resolve_dataset({})
    options = RunOptions.from_json(options)
    out = str(Path(out).absolute())
    result = run_from_store(source, options, out, home) if from_store and not no_cache else None
    if result is not None:
        return result
    Path(home, "prefect").mkdir(parents=True, exist_ok=True)
    from flows import pipeline  # imports Prefect, configured above (see flows.pipeline)

    with contextlib.nullcontext() if heartbeat else settings.no_heartbeat():
        return pipeline.kgfs_run(source, options, out, str(home), no_cache)


