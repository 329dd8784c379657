"""``kgfs serve --watch DIR``: a local Prefect server and the ``kgfs-watch`` flow its deployment runs.

Schedules need a real API server (the temporary one a flow run starts does not schedule):
:func:`start_local_server` starts ``prefect server start --background --host 127.0.0.1`` with the
kgfs home's ``PREFECT_HOME``, or reuses one answering on the port. Each tick (a scheduled flow run)
runs :func:`flows.pipeline.kgfs_run` on every new corpus file of the folder
(:func:`kg.runs.ledger.process_folder`, :func:`kg.runs.inputs.source_for_file`); the stage store is shared, so
what corpora have in common is computed once. A corpus that failed is reported (ledger, log,
artifact, a *Failed* tick) and retried on the next tick.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from flows import settings

__all__ = ["api_for_serving", "api_healthy", "serve", "start_local_server", "watch_flow"]

_prefect = settings.LazyPrefect(globals())
__getattr__ = _prefect.getattr


def api_healthy(url: str, timeout: float = 2.0) -> bool:
    """True when a Prefect API answers at ``url`` (``http://127.0.0.1:PORT/api``)."""
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/health", timeout=timeout) as r:  # noqa: S310 - 127.0.0.1
            return r.status == 200
    except (OSError, urllib.error.URLError):
        return False


def start_local_server(home: str | os.PathLike, *, port: int = 4200, scheduler_seconds: int = 60,
                       timeout: float = 120.0) -> str:
    """Start (or reuse) a Prefect server on 127.0.0.1:``port``; returns its API URL. Its scheduler loop
    runs every ``scheduler_seconds`` (Prefect's 60 s would delay a short ``--interval``'s first run)."""
    url = f"http://127.0.0.1:{int(port)}/api"
    if api_healthy(url):
        return url
    env = dict(os.environ)
    env.pop("PREFECT_API_URL", None)
    env.setdefault("PREFECT_HOME", str(Path(home) / "prefect"))
    env["PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS"] = str(max(1, int(scheduler_seconds)))
    env["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
    Path(env["PREFECT_HOME"]).mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([sys.executable, "-m", "prefect", "server", "start", "--background", "--host", "127.0.0.1",
                           "--port", str(int(port))], env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=timeout)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if api_healthy(url):
            return url
        time.sleep(0.5)
    raise RuntimeError(f"the Prefect server on 127.0.0.1:{port} did not come up within {timeout:.0f} s: "
                       f"{(proc.stderr or proc.stdout).strip()[-500:]}")


def api_for_serving(home: str | os.PathLike, port: int, interval: int | None) -> str:
    """``$PREFECT_API_URL``, or a local server's (then put there); sets the runner's environment."""
    url = os.environ.get("PREFECT_API_URL")
    if not url:
        url = start_local_server(home, port=port, scheduler_seconds=min(60, int(interval or 60)))
        os.environ["PREFECT_API_URL"] = url
    os.environ.setdefault("PREFECT_RUNNER_POLL_FREQUENCY", str(max(1, min(10, int(interval or 10) // 2))))
    os.environ["PREFECT_LOGGING_LEVEL"] = "INFO"  # the flow runs are child processes: Prefect's log lines help
    return url


def serve(name: str, parameters: dict, schedule: dict) -> int:
    """Register the ``kgfs-watch/<name>`` deployment and run its scheduled flow runs (blocks)."""
    # limit=1: ticks run one after another, so two ticks never process the same new file
    _prefect.getattr("watch_flow").serve(name=name, parameters=parameters, limit=1, print_starting_message=True, **schedule)
    return 0


@_prefect.flow(name="kgfs-watch", persist_result=False, log_prints=False)
def _watch_flow(watch_dir: str, out_dir: str, source_options: dict | None = None, run_options: dict | None = None,
                home: str | None = None) -> dict:
    """Process every new corpus file of ``watch_dir`` (see the module doc); fails when a corpus failed."""
    from prefect import get_run_logger
    from prefect.artifacts import create_markdown_artifact

    from flows import pipeline
    from kg import ledger
    from kg.errors import KgfsError
    from kg.runs.inputs import source_for_file

    home = str(Path(home).absolute()) if home else str(settings.kgfs_home())

    def run(path: Path, target: Path) -> list[str]:
        result = pipeline.kgfs_run.with_options(flow_run_name=f"kgfs-run {path.name}")(
            source=source_for_file(path, source_options or {}), out=str(target), home=home, **dict(run_options or {}))
        return [k for k, i in result["runinfo"].items() if i.get("reused")]

    tick = ledger.process_folder(watch_dir, out_dir, run, get_run_logger())
    if tick["processed"] or tick["failed"]:
        create_markdown_artifact(ledger.tick_markdown(tick, ledger.read_ledger(out_dir)), key="kgfs-watch-tick",
                                 description=f"corpora processed from {watch_dir}")
    if tick["failed"]:
        raise KgfsError(f"{len(tick['failed'])} corpus file(s) failed and will be retried on the next tick: "
                        + ", ".join(tick["failed"]))
    return tick
