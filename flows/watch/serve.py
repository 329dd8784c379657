"""``kgfs serve --watch DIR``: the ``kgfs-watch`` flow its deployment runs on a schedule, on a local Prefect server.

Schedules need a real API server (the temporary one a flow run starts does not schedule): the
home's managed server (:mod:`flows.server.local`, on 127.0.0.1) unless ``PREFECT_API_URL`` names one
(:func:`api_for_serving`). Each tick (a scheduled flow run) runs :func:`flows.pipeline.kgfs_run` on
every new file of the folder (:func:`flows.watch.ledger.process_folder`), each file the input of the
kind the options describe (:func:`flows.inputs.watch_input`: a corpus, or a labels table over an
ontology); the stage store is shared, so what the files have in common is computed once. A file
that failed is reported (ledger, log, artifact, a *Failed* tick), retried with a back-off and given
up after ``max_attempts`` until its content changes.

Prefect reads its settings when imported: this module configures the kgfs home first
(:func:`flows.settings.ensure_configured`); the command line imports it only for ``kgfs serve``.
"""

# ruff: noqa: E402 (Prefect is imported after the offline configuration, see the module doc)
from __future__ import annotations

import os
from pathlib import Path

from flows import settings

settings.ensure_configured()  # before `import prefect` (see the module doc): the imports below come after it

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact

from flows import pipeline
from flows.inputs import watch_input
from flows.run_options import RunOptions
from flows.server.local import ensure_server
from flows.watch import ledger
from kg.errors import KgfsError

__all__ = ["api_for_serving", "serve", "watch_flow"]


def api_for_serving(home: str | os.PathLike, port: int, interval: int | None) -> str:
    """``$PREFECT_API_URL``, or the home's managed server's (:func:`flows.server.local.ensure_server`; then put
    there); sets the runner's environment."""
    url = os.environ.get("PREFECT_API_URL")
    if not url:
        url = os.environ["PREFECT_API_URL"] = ensure_server(home, port=port).api_url
    os.environ.setdefault("PREFECT_RUNNER_POLL_FREQUENCY", str(max(1, min(10, int(interval or 10) // 2))))
    os.environ["PREFECT_LOGGING_LEVEL"] = "INFO"  # the flow runs are child processes: Prefect's log lines help
    return url


def serve(name: str, parameters: dict, schedule: dict) -> int:
    """Register the ``kgfs-watch/<name>`` deployment and run its scheduled flow runs (blocks)."""
    # limit=1: ticks run one after another, so two ticks never process the same new file
    watch_flow.serve(name=name, parameters=parameters, limit=1, print_starting_message=True,
                     tags=[f"home:{Path(parameters['home']).absolute()}"], **schedule)  # one server, every home
    return 0


@flow(name="kgfs-watch", persist_result=False, log_prints=False)
def watch_flow(watch_dir: str, out_dir: str, source_options: dict | None = None, run_options: dict | None = None,
               home: str | None = None, max_attempts: int = 3, settle_seconds: float = ledger.SETTLE_SECONDS) -> dict:
    """Process every new file of ``watch_dir`` (see the module doc); fails when one failed.

    ``source_options`` are the input options given to ``kgfs serve`` (:func:`flows.inputs.watch_values`),
    ``run_options`` a :class:`~flows.run_options.RunOptions` in its JSON form; a corpus is processed once nothing
    wrote to it for ``settle_seconds``.
    """
    home = str(Path(home).absolute()) if home else str(settings.kgfs_home())
    options = RunOptions.from_json(run_options)

    def run(path: Path, target: Path) -> list[str]:
        result = pipeline.kgfs_run.with_options(flow_run_name=f"kgfs-run {path.name}")(
            watch_input(path, source_options or {}), options, str(target), home)
        return result.reused

    tick = ledger.process_folder(watch_dir, out_dir, run, get_run_logger(), max_attempts=max_attempts,
                                 settle_seconds=settle_seconds)
    if tick["processed"] or tick["failed"]:
        create_markdown_artifact(ledger.tick_markdown(tick, ledger.read_ledger(out_dir)), key="kgfs-watch-tick",
                                 description=f"corpora processed from {watch_dir}")
    if tick["failed"]:
        raise KgfsError(f"{len(tick['failed'])} corpus file(s) failed (retried on a later tick, given up after "
                        f"{max_attempts} attempts: see the ledger): " + ", ".join(tick["failed"]))
    return tick
