"""Offline Prefect configuration, applied *before* Prefect is imported.

Prefect reads its settings, and creates its home folder, when it is imported. The entry points
(:func:`flows.cli.main`, :func:`flows.runner.run_pipeline`) call :func:`configure`, and the
modules that define Prefect flows (:mod:`flows.pipeline`, :mod:`flows.watch.serve`) call
:func:`ensure_configured` before their ``import prefect``; no other ``flows`` module imports
Prefect, so importing them changes nothing. :func:`configure` sets what
:func:`flows.server.environment.prefect_env` gives for the kgfs home (``$KGFS_HOME`` or ``./.kgfs``): state
in ``<home>/prefect``, no telemetry, no proxy for 127.0.0.1, INFO flow logs for the UI only.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from pathlib import Path

# Imported where they are used (by configure): the server's module imports urllib, which `kgfs --help` does not need.

__all__ = ["OneLine", "configure", "ensure_configured", "kgfs_home", "no_heartbeat", "prefect_imported"]

_configured: Path | None = None


def kgfs_home() -> Path:
    """The project-local folder holding stage outputs and Prefect's state."""
    return Path(os.environ.get("KGFS_HOME") or Path.cwd() / ".kgfs").absolute()


def prefect_imported() -> bool:
    return "prefect" in sys.modules


def configure(home: str | os.PathLike | None = None, *, log_level: str | None = None) -> Path:
    """Set the environment Prefect needs to run offline and quickly; returns the kgfs home.

    Idempotent. Call before the first ``import prefect``; later calls (after Prefect was
    imported) only update ``KGFS_HOME`` for kgfs's own store.
    """
    global _configured
    from flows.server.environment import prefect_env
    from flows.server.processes import MARKER_ENV, start_watchdog

    home = Path(home).absolute() if home is not None else kgfs_home()
    # children (Prefect's temporary server, loky and Dask workers) carry the marker: they end with us, even on SIGKILL
    os.environ.update(prefect_env(home, log_level=log_level), KGFS_HOME=str(home),
                      **{MARKER_ENV: start_watchdog(os.environ.get(MARKER_ENV))})
    # Prefect creates PREFECT_HOME without parents; a missing parent fails the server's database
    Path(os.environ["PREFECT_HOME"]).expanduser().mkdir(parents=True, exist_ok=True)
    _configured = home
    return home


def ensure_configured(home: str | os.PathLike | None = None) -> None:
    """:func:`configure` unless it ran already or Prefect was imported (then its settings stand)."""
    if _configured is None and not prefect_imported():
        configure(home)


@contextlib.contextmanager
def no_heartbeat():
    """Run flows without the heartbeat thread (saves about a second per flow run)."""
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

    with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        yield


class OneLine(logging.Formatter):
    """A log record as one line (its first line), without the traceback: the command line's log lines (``--debug``
    shows tracebacks). A failed run's records go to Prefect's UI whole.

    Parameters
    ----------
    fmt : str, optional

    Examples
    --------
    >>> try:
    ...     raise ValueError("bad\\nsecond line")
    ... except ValueError:
    ...     rec = logging.LogRecord("x", logging.ERROR, "f", 1, "failed: %s", ("bad\\nmore",), sys.exc_info())
    >>> OneLine("kgfs: %(levelname)s: %(message)s").format(rec)
    'kgfs: ERROR: failed: bad'
    """

    def format(self, record: logging.LogRecord) -> str:
        record = logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None, "stack_info": None})
        return " ".join(super().format(record).splitlines()[:1])

