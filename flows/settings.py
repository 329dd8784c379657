"""Offline Prefect configuration, applied *before* Prefect is imported, and Prefect objects built late.

Importing a ``flows`` module changes nothing: the entry points (:func:`flows.cli`,
:func:`flows.pipeline.run_pipeline`) call :func:`configure`, and a module's tasks and flows are
built on first use (:class:`LazyPrefect`). :func:`configure` sets what
:func:`flows.server.local.prefect_env` gives for the kgfs home (``$KGFS_HOME`` or ``./.kgfs``): state
in ``<home>/prefect``, no telemetry, no proxy for 127.0.0.1, INFO flow logs for the UI only.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

__all__ = ["LazyPrefect", "configure", "ensure_configured", "kgfs_home", "no_heartbeat", "prefect_imported"]

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
    from flows.server.processes import MARKER_ENV, start_watchdog
    from flows.server.local import prefect_env

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


class LazyPrefect:
    """The Prefect tasks and flows of a module, made on first use (importing the module imports no Prefect).

    ``@lazy.task(**options)`` / ``@lazy.flow(**options)`` register a plain function ``_name``;
    the module's ``__getattr__ = lazy.getattr`` makes ``module.name`` the Prefect object (all of
    the module's are built together, after :func:`ensure_configured`, and bound in its globals,
    so the module's code calls them by name). The function's ``__name__`` becomes ``name``:
    Prefect's task keys, deployment entrypoints and Dask's task names use it. ``preset="x"``
    adds the options ``presets()["x"]`` (built after Prefect is imported, e.g. cache policies).
    """

    def __init__(self, namespace: dict, presets: Callable[[], dict] | None = None):
        self._ns, self._presets, self._specs = namespace, presets, {}
        self._lock = threading.Lock()

    def task(self, **options):
        return self._register("task", options)

    def flow(self, **options):
        return self._register("flow", options)

    def add_task(self, attr: str, fn: Callable, **options) -> None:
        """Make ``fn`` (left as it is) the task ``module.<attr>``."""
        self._specs[attr] = ("task", options, fn)

    def _register(self, kind: str, options: dict):
        def register(fn):
            name = fn.__name__.lstrip("_")
            fn.__name__ = fn.__qualname__ = name
            self._specs[name] = (kind, options, fn)
            return fn

        return register

    def build(self) -> None:
        """Import Prefect (configured first) and bind every registered task and flow in the module."""
        with self._lock:
            if all(name in self._ns for name in self._specs):
                return
            ensure_configured()
            from prefect import flow, task

            presets = self._presets() if self._presets else {}
            for name, (kind, options, fn) in self._specs.items():
                options = {**presets.get(options.get("preset"), {}), **options}
                options.pop("preset", None)
                self._ns[name] = (task if kind == "task" else flow)(**options)(fn)

    def plain(self, name: str):
        """The plain function of the registered ``name`` (no Prefect): a flow's, or a task's with a
        ``submit(**kwargs)`` that calls it at once and returns a done future (``.result()``)."""
        kind, _options, fn = self._specs[name]
        return fn if kind == "flow" else SimpleNamespace(submit=lambda **kw: SimpleNamespace(result=lambda v=fn(**kw): v))

    def getattr(self, name: str):
        """The module's ``__getattr__``: a registered name builds the Prefect objects."""
        if name not in self._specs:
            raise AttributeError(f"module {self._ns.get('__name__')!r} has no attribute {name!r}")
        self.build()
        return self._ns[name]


@contextlib.contextmanager
def no_heartbeat():
    """Run flows without the heartbeat thread (saves about a second per flow run)."""
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

    with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        yield
