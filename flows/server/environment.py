"""The environment of kgfs's Prefect processes: offline and local, set before Prefect is imported.

:func:`prefect_env` is what a Prefect process of a kgfs home runs with (:func:`flows.settings.configure` applies
it to the current process), :func:`server_env` what the user's local server runs with
(:mod:`flows.server.local`).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["prefect_env", "server_env"]


def prefect_env(home: str | os.PathLike, env=None, *, log_level: str | None = None) -> dict[str, str]:
    """The settings a Prefect process of a kgfs home runs with, before it imports Prefect: offline and quick.

    ``PREFECT_HOME=<home>/prefect`` (never ``~/.prefect``), no telemetry
    (``PREFECT_SERVER_ANALYTICS_ENABLED=false``, ``DO_NOT_TRACK=1``), a 120 s startup timeout for a
    temporary API server (20 s fails when several start together), the console at ``log_level``
    (default ``WARNING``) while the flow and task run loggers keep ``INFO`` for the API (the Prefect
    UI's Logs tab); each unless ``env`` sets it. ``NO_PROXY`` always gets ``127.0.0.1,localhost``
    (the server is local: never through a proxy).

    Parameters
    ----------
    home : str or os.PathLike
        The kgfs home.
    env : mapping, optional
        The current environment (default ``os.environ``): its values win.
    log_level : str, optional

    Returns
    -------
    dict
        The variables to set (``os.environ.update``).

    Examples
    --------
    >>> e = prefect_env("/h", {"NO_PROXY": "example.org", "DO_NOT_TRACK": "0"})
    >>> e["PREFECT_HOME"], e["DO_NOT_TRACK"], e["NO_PROXY"]
    ('/h/prefect', '0', 'example.org,127.0.0.1,localhost')
    """
    env = os.environ if env is None else env
    hosts = [h for h in env.get("NO_PROXY", env.get("no_proxy", "")).split(",") if h.strip()]
    no_proxy = ",".join(hosts + [h for h in ("127.0.0.1", "localhost") if h not in hosts])
    level = log_level or "WARNING"
    defaults = {"PREFECT_HOME": str(Path(home).absolute() / "prefect"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
                "DO_NOT_TRACK": "1", "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
                "PREFECT_LOGGING_LEVEL": level, "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": level,
                "PREFECT_LOGGING_LOGGERS_PREFECT_FLOW_RUNS_LEVEL": "INFO",
                "PREFECT_LOGGING_LOGGERS_PREFECT_TASK_RUNS_LEVEL": "INFO"}
    return {**defaults, **{k: env[k] for k in defaults if k in env}, "NO_PROXY": no_proxy, "no_proxy": no_proxy}


def server_env(folder: str | os.PathLike, env=None) -> dict[str, str]:
    """The environment of the user's Prefect server: :func:`prefect_env`, state in ``<folder>/prefect`` and no
    telemetry whatever ``env`` says (an offline server with analytics on dies after its first attempt).

    Parameters
    ----------
    folder : str or os.PathLike
        The server folder (:func:`server_dir`).
    env : mapping, optional
        The starting environment (default ``os.environ``); ``PREFECT_API_URL`` is dropped.

    Returns
    -------
    dict

    Examples
    --------
    >>> e = server_env("/u/server", {"PREFECT_API_URL": "http://x/api", "PREFECT_HOME": "/elsewhere"})
    >>> e["PREFECT_HOME"], e["PREFECT_SERVER_ANALYTICS_ENABLED"], "PREFECT_API_URL" in e
    ('/u/server/prefect', 'false', False)
    """
    env = {k: v for k, v in (os.environ if env is None else env).items() if k != "PREFECT_API_URL"}
    return {**env, **prefect_env(folder, env), "PREFECT_HOME": str(Path(folder).absolute() / "prefect"),
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",
            # `kgfs serve`'s short intervals: the scheduler looks for due runs every 5 s (Prefect: 60)
            "PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS": "5"}
