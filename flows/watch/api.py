"""The Prefect API ``kgfs serve`` serves its deployment on, chosen before Prefect is imported.

Prefect reads ``PREFECT_API_URL`` when it is imported: without it a process's flows run on a temporary server of
its own, which does not schedule, and whose address nobody else knows (issue 36: the trigger command printed for
the user's server answered "Deployment not found"). So :func:`api_for_serving` runs first: ``$PREFECT_API_URL``
when set, else the user's server (:func:`flows.server.local.ensure_server`, the one ``kgfs run`` uses: found
running or started), put in ``PREFECT_API_URL`` for this process and the flow runs it starts. This module never
imports Prefect.
"""

from __future__ import annotations

import os

__all__ = ["api_for_serving"]


def api_for_serving(home: str | os.PathLike, port: int | None, interval: int | None, *, announce=None) -> str:
    """``$PREFECT_API_URL``, or the user's server's (started if none runs; then put there); sets the runner's
    environment.

    Parameters
    ----------
    home : str or os.PathLike
        The kgfs home serving (its lease, what the server's announcement says).
    port : int, optional
        For a server that starts.
    interval : int, optional
        The schedule's interval in seconds: the runner polls for due runs at half of it (1-10 s).
    announce : callable, optional
        Called with one line when a server was started.

    Returns
    -------
    str
        The API's address (``http://127.0.0.1:PORT/api``).

    Examples
    --------
    >>> saved = dict(os.environ)
    >>> _ = os.environ.pop("PREFECT_RUNNER_POLL_FREQUENCY", None)  # a user's own setting is kept: none here
    >>> os.environ["PREFECT_API_URL"] = "http://127.0.0.1:4300/api"
    >>> api_for_serving("/my/.kgfs", None, 30), os.environ["PREFECT_RUNNER_POLL_FREQUENCY"]
    ('http://127.0.0.1:4300/api', '10')
    >>> os.environ.clear(); os.environ.update(saved)
    """
    url = os.environ.get("PREFECT_API_URL")
    if not url:
        from flows.server.local import ensure_server

        url = os.environ["PREFECT_API_URL"] = ensure_server(home, port=port, announce=announce).api_url
    os.environ.setdefault("PREFECT_RUNNER_POLL_FREQUENCY", str(max(1, min(10, int(interval or 10) // 2))))
    os.environ["PREFECT_LOGGING_LEVEL"] = "INFO"  # the flow runs are child processes: Prefect's log lines help
    return url
