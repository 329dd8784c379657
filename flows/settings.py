"""Offline Prefect configuration, applied *before* Prefect is imported, and Prefect objects built late.

Importing a ``flows`` module changes nothing: the entry points (:func:`flows.cli.main`,
:func:`flows.pipeline.run_pipeline`) call :func:`configure`, and a module's tasks and flows are
built on first use (:class:`LazyPrefect`). :func:`configure` sets, unless set already:
``PREFECT_HOME=<kgfs home>/prefect`` (never ``~/.prefect``; the kgfs home is ``$KGFS_HOME`` or
``./.kgfs``), no telemetry (``PREFECT_SERVER_ANALYTICS_ENABLED=false``, ``DO_NOT_TRACK=1``),
``NO_PROXY`` with ``127.0.0.1,localhost``, a 120 s startup timeout for the temporary API server (20 s
fails when several start together) and ``PREFECT_LOGGING_LEVEL=WARNING``.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

__all__ = ["LazyPrefect", "configure", "ensure_configured", "kgfs_home", "no_heartbeat", "prefect_imported"]

_configured: Path | None = None


def kgfs_home() -> Path:
    """The project-local folder holding stage outputs and Prefect's state."""
    return Path(os.environ.get("KGFS_HOME") or Path.cwd() / ".kgfs").absolute()


def prefect_imported() -> bool:
    return "prefect" in sys.modules


def _add_no_proxy(value: str | None) -> str:
    hosts = [h.strip() for h in (value or "").split(",") if h.strip()]
    return ",".join(hosts + [h for h in ("127.0.0.1", "localhost") if h not in hosts])


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
