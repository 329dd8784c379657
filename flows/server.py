"""A local Prefect server for scheduled runs, and serving the watch-folder deployment.

Prefect's schedules need a real API server (the temporary one a flow run starts by itself does
not run the scheduler). :func:`start_local_server` starts ``prefect server start --background
--host 127.0.0.1`` with the kgfs home's ``PREFECT_HOME`` (its database and pid file) and waits
until ``/api/health`` answers; a server already answering on that port is reused.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

__all__ = ["api_healthy", "start_local_server", "serve_watch"]


def api_healthy(url: str, timeout: float = 2.0) -> bool:
    """True when a Prefect API answers at ``url`` (``http://127.0.0.1:PORT/api``)."""
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/health", timeout=timeout) as r:  # noqa: S310 - 127.0.0.1
            return r.status == 200
    except (OSError, urllib.error.URLError):
        return False


def start_local_server(home: str | os.PathLike, *, port: int = 4200, scheduler_seconds: int = 60,
                       timeout: float = 120.0) -> str:
    """Start (or reuse) a Prefect server on 127.0.0.1:``port``; returns its API URL.

    The scheduler service's loop is set to ``scheduler_seconds`` (Prefect's default is 60 s, so a
    short ``--interval`` would otherwise wait a minute for its first run).
    """
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


def serve_watch(name: str, parameters: dict, schedule: dict) -> int:
    """Register the ``kgfs-watch/<name>`` deployment and run its scheduled flow runs (blocks)."""
    from flows.watch import watch_flow

    # limit=1: ticks run one after another, so two ticks never process the same new file
    watch_flow.serve(name=name, parameters=parameters, limit=1, print_starting_message=True, **schedule)
    return 0
