"""Exceptions of the kgfs library.

Every error a user can cause by bad input is a :class:`KgfsError` whose message names the
file, line or value at fault, so the command line can print it as one line.
"""

from __future__ import annotations


class KgfsError(Exception):
    """Base class of all errors caused by bad input or configuration."""


class InputFormatError(KgfsError, ValueError):
    """A file or value does not have the expected format.

    Parameters
    ----------
    message : str
        What is wrong.
    path : str, optional
        The file at fault.
    line : int, optional
        The 1-based line number at fault.
    """

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        self.path = None if path is None else str(path)
        self.line = line
        where = ""
        if self.path is not None:
            where = self.path + (f":{line}" if line is not None else "") + ": "
        elif line is not None:
            where = f"line {line}: "
        super().__init__(where + message)


class CycleError(KgfsError, ValueError):
    """A hierarchy that must be acyclic has a cycle; ``cycles`` lists them as node-id lists."""

    def __init__(self, message: str, cycles: list[list[str]]):
        self.cycles = cycles
        super().__init__(message)


class ImplicationError(KgfsError, ValueError):
    """A table has an instance with a feature but without one of its ancestors."""


class UnknownFeatureError(KgfsError, KeyError):
    """A feature id (e.g. a GO term) is not in the hierarchy."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else ""


class ChecksumError(KgfsError):
    """A dataset file does not have the sha256 the registry expects."""


class HierarchyCycleWarning(UserWarning):
    """Cycles were found in a hierarchy and broken by removing the named edges."""


class TransientError(Exception):
    """A request failure worth retrying (HTTP 5xx or 429, a timeout, a dropped connection).

    Internal to the HTTP clients (:mod:`kg.dbpedia.sparql`, :mod:`kg.dbpedia.spotlight`): it never reaches the
    user, who sees the client's own error once the retries are used up. ``retry_after`` is the
    server's ``Retry-After`` header (seconds; anything unparsable counts as absent).
    """

    def __init__(self, reason: str, retry_after=None):
        super().__init__(reason)
        try:
            self.retry_after = None if retry_after is None else float(retry_after)
        except (TypeError, ValueError):
            self.retry_after = None

    def wait(self, attempt: int, backoff: float, cap: float = 60.0) -> float:
        """Seconds before retry ``attempt + 1``: exponential backoff, at least ``Retry-After``,
        at most ``cap``."""
        w = min(cap, backoff * 2**attempt)
        return w if self.retry_after is None else min(cap, max(w, self.retry_after))
