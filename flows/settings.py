"""Offline Prefect configuration, applied *before* Prefect is imported.

Prefect reads its settings from the environment when it is first imported, so
:func:`configure` must run first: ``flows/__init__.py`` calls it, and every module of
``flows`` imports Prefect only after that. What it sets (each only when the user has not set
it already, so a user's own Prefect server or profile still wins):

- ``PREFECT_HOME`` -> ``<kgfs home>/prefect``: the temporary API server's database, results and
  logs stay in the project folder, never in ``~/.prefect``.
- ``PREFECT_SERVER_ANALYTICS_ENABLED=false`` and ``DO_NOT_TRACK=1``: no telemetry hosts are
  contacted (there is no internet here; the attempt would only cost time).
- ``NO_PROXY``/``no_proxy`` include ``127.0.0.1,localhost``: the client must reach the
  temporary local API server directly even when a proxy is configured.
- ``PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS=120``: the default 20 s fails when several
  processes start their temporary servers together on a loaded machine.
- ``PREFECT_LOGGING_LEVEL=WARNING`` unless ``--debug``: the command line shows its own progress.

The flow heartbeat (about 1 s per flow run) is switched off in code with
:func:`no_heartbeat`, a ``temporary_settings`` context.

The kgfs home is ``$KGFS_HOME`` or ``./.kgfs`` (project-local, relative to the current
directory).
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

__all__ = ["configure", "kgfs_home", "no_heartbeat", "prefect_imported"]

_configured: Path | None = None


def kgfs_home() -> Path:
    """The project-local folder holding stage outputs and Prefect's state."""
    return Path(os.environ.get("KGFS_HOME") or Path.cwd() / ".kgfs").absolute()


def prefect_imported() -> bool:
    return "prefect" in sys.modules


def _add_no_proxy(value: str | None) -> str:
    hosts = [h.strip() for h in (value or "").split(",") if h.strip()]
    for h in ("127.0.0.1", "localhost"):
        if h not in hosts:
            hosts.append(h)
    return ",".join(hosts)


def configure(home: str | os.PathLike | None = None, *, log_level: str | None = None) -> Path:
    """Set the environment Prefect needs to run offline and quickly; returns the kgfs home.

    Idempotent. Call before the first ``import prefect``; later calls (after Prefect was
    imported) only update ``KGFS_HOME`` for kgfs's own store.
    """
    global _configured
    home = Path(home).absolute() if home is not None else kgfs_home()
    os.environ["KGFS_HOME"] = str(home)
    env = os.environ
    env.setdefault("PREFECT_HOME", str(home / "prefect"))
    env.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    env.setdefault("DO_NOT_TRACK", "1")
    env.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    env.setdefault("PREFECT_LOGGING_LEVEL", log_level or "WARNING")
    # the temporary server is on 127.0.0.1: never route it through a proxy
    for var in ("NO_PROXY", "no_proxy"):
        env[var] = _add_no_proxy(env.get(var))
    # Prefect creates PREFECT_HOME without parents; a missing parent fails the server's database
    Path(env["PREFECT_HOME"]).expanduser().mkdir(parents=True, exist_ok=True)
    _configured = home
    return home


@contextlib.contextmanager
def no_heartbeat():
    """Run flows without the heartbeat thread (saves about a second per flow run)."""
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

    with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        yield
