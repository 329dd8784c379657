"""Who hears of a run's stages as they start, progress and finish (the command line's display).

The stages of :mod:`flows.pipeline` call :func:`emit`; the command line sets the listener with
:func:`set_reporter` for the length of a run. Without one nothing is said.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["emit", "set_reporter"]

_reporter: Callable[..., None] | None = None


def set_reporter(fn: Callable[..., None] | None) -> None:
    """Set ``fn(event, stage, **info)``, called with ``"start"``, ``"progress"`` (done, total) and ``"done"``
    (record)."""
    global _reporter
    _reporter = fn


def emit(event: str, stage: str, **info) -> None:
    """Tell the reporter (if any) about a stage."""
    if _reporter is not None:
        _reporter(event, stage, **info)
