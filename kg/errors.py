"""Exceptions of the kgfs library, and the retry rule of its HTTP clients.

Every error a user can cause by bad input is a :class:`KgfsError` whose message names the
file, line or value at fault, so the command line can print it as one line.
:class:`TransientError`, :class:`RetryPolicy` and :func:`retry` are how the SPARQL and Spotlight clients retry a
failed request; a ``deadline`` bounds the whole (:class:`DeadlineError`: a service that
accepts connections and never answers fails in bounded time, and is not retried again by the
pipeline).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Mapping
from typing import NamedTuple, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")


# A parameter named in a message: ``param("sparql_url")`` is marked in the text, so that a Python user reads
# ``sparql_url`` and the command line the option its user typed (``--sparql-url``, :func:`render_params`).
_MARK, _VALUE = "\ue000", "\ue001"  # private-use characters: no text has them, no split() eats them
_MARKED = re.compile(_MARK + "([^" + _MARK + _VALUE + "]+)(?:" + _VALUE + "([^" + _MARK + "]*))?" + _MARK)


def param(name: str, value=None) -> str:
    """A parameter (and the value given to it) as a message names it; see :func:`render_params`.

    Parameters
    ----------
    name : str
        The parameter's name in the library (``sparql_url``, ``source``).
    value : optional
        The value given to it, when the message names one (``param("source", "sparql")``).

    Returns
    -------
    str
        A marked string: put it in a :class:`KgfsError`'s message, whose ``str()`` reads
        ``sparql_url`` or ``source='sparql'``.

    Examples
    --------
    >>> str(KgfsError(f"{param('sparql_url')} is required when {param('source', 'sparql')}"))
    "sparql_url is required when source='sparql'"
    """
    if value is None:
        return _MARK + name + _MARK
    # a string as it is ("s"), anything else as its repr ("r"): Python quotes the one, the command line neither
    return _MARK + name + _VALUE + ("s" + value if isinstance(value, str) else "r" + repr(value)) + _MARK


def render_params(text: str, words: Mapping[str, str] | None = None) -> str:
    """``text`` with its marked parameters (:func:`param`) said in words: by ``words`` (a parameter's name -> the
    option that sets it, e.g. ``{"sparql_url": "--sparql-url"}``, as the command line does), else by name.

    A parameter with a value reads ``name='value'`` (``name=5``) in Python and ``--option value`` through ``words``
    (``True``: the switch alone).

    Examples
    --------
    >>> text = f"{param('sparql_url')} is required when {param('source', 'sparql')}"
    >>> render_params(text, {"sparql_url": "--sparql-url", "source": "--kg"})
    '--sparql-url is required when --kg sparql'
    >>> render_params(text)
    "sparql_url is required when source='sparql'"
    >>> render_params(f"{param('min_support', 5000)} keeps none; {param('skip', True)}", {"skip": "--skip"})
    'min_support=5000 keeps none; --skip'
    """
    words = words or {}

    def said(m: re.Match) -> str:
        name, value = m.group(1), m.group(2)
        if value is None:
            return words.get(name, name)
        text, python = value[1:], repr(value[1:]) if value[:1] == "s" else value[1:]
        if name not in words:
            return f"{name}={python}"
        return words[name] if python == "True" else f"{words[name]} {text}"

    return _MARKED.sub(said, text)


def marked_params(text: str) -> list[str]:
    """The names of the parameters marked in ``text`` (:func:`param`), in order.

    Examples
    --------
    >>> marked_params(f"{param('a')} with {param('b', 1)}")
    ['a', 'b']
    """
    return [m.group(1) for m in _MARKED.finditer(text)]


class KgfsError(Exception):
    """Base class of all errors caused by bad input or configuration.

    The command line prints these as one line (no traceback); anything else is a bug. A message names the
    library's parameters through :func:`param`: ``str()`` says them by name, the command line as its options.

    Examples
    --------
    >>> issubclass(InputFormatError, KgfsError), issubclass(TransientError, KgfsError)
    (True, False)
    """

    def __str__(self) -> str:
        return render_params(super().__str__())

    @property
    def raw_message(self) -> str:
        """The message with its parameters still marked (for :func:`render_params` with the caller's words)."""
        return super().__str__()


class MissingFileError(KgfsError, FileNotFoundError):
    """A file a parameter names does not exist (the message names the file and the parameter).

    Examples
    --------
    >>> err = MissingFileError("/no/such.toml", f"preset file not found ({param('vocabulary')})")
    >>> str(err), isinstance(err, FileNotFoundError), err.filename
    ('/no/such.toml: preset file not found (vocabulary)', True, '/no/such.toml')
    """

    def __init__(self, path, message: str):
        KgfsError.__init__(self, f"{path}: {message}")
        self.filename, self.errno, self.strerror = str(path), 2, render_params(message)

    def __str__(self) -> str:
        return render_params(self.args[0])

    @property
    def raw_message(self) -> str:
        return self.args[0]


class NotAFileError(MissingFileError, IsADirectoryError):
    """A file a parameter names is a directory (the message names it and the parameter).

    Examples
    --------
    >>> err = NotAFileError("/tmp", f"is a directory, expected a file ({param('labels')})")
    >>> str(err), isinstance(err, IsADirectoryError), err.errno
    ('/tmp: is a directory, expected a file (labels)', True, 21)
    """

    def __init__(self, path, message: str):
        super().__init__(path, message)
        self.errno = 21


class ParameterError(KgfsError, ValueError):
    """A parameter's value is missing, out of range or inconsistent with another's (names them with :func:`param`).

    Examples
    --------
    >>> err = ParameterError(f"{param('depth', 0)} must be at least 1")
    >>> str(err), isinstance(err, ValueError)
    ('depth=0 must be at least 1', True)
    """


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

    Examples
    --------
    >>> str(InputFormatError("malformed line", "go.obo", 12))
    'go.obo:12: malformed line'
    >>> InputFormatError("bad value", line=3).line
    3
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
    """A hierarchy that must be acyclic has a cycle.

    Parameters
    ----------
    message : str
        What is wrong, naming a cycle.
    cycles : list of list of str
        The cycles found, each as node ids (``cycles`` attribute).

    Examples
    --------
    >>> from kg.hierarchy import FeatureHierarchy
    >>> try:
    ...     FeatureHierarchy.from_edges([("a", "b"), ("b", "a")])
    ... except CycleError as e:
    ...     sorted(e.cycles[0])
    ['a', 'b']
    """

    def __init__(self, message: str, cycles: list[list[str]]):
        self.cycles = cycles
        super().__init__(message)


class ImplicationError(KgfsError, ValueError):
    """A table has an instance with a feature but without one of its ancestors.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from kg.hierarchy import FeatureHierarchy
    >>> from kg.table import FeatureTable
    >>> h = FeatureHierarchy.from_edges([("Athlete", "Person")])
    >>> try:
    ...     FeatureTable(sp.csr_matrix(np.array([[1, 0]])), ["Athlete", "Person"], ["i"], None, h)
    ... except ImplicationError as e:
    ...     print(str(e).split(";")[0])
    1 cell(s) violate the implication, e.g. instance 'i' has 'Athlete' but not its parent 'Person'
    """


class UnknownFeatureError(KgfsError, KeyError):
    """A feature id (e.g. a GO term) is not in the hierarchy.

    Examples
    --------
    >>> str(UnknownFeatureError("unknown term id 'GO:1'"))  # not quoted as KeyError would
    "unknown term id 'GO:1'"
    """

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return render_params(str(self.args[0])) if self.args else ""


class RepairableError(KgfsError):
    """Damaged data that the caller can repair, then do again what it was doing (:meth:`repair`).

    A step of a route that meets one (:func:`kg.routes.run_step`) stores nothing, repairs, and runs again.

    Examples
    --------
    >>> RepairableError("x").repair()
    False
    """

    def repair(self) -> bool:
        """Repair what is damaged (e.g. remove it, so that it is built again); whether it was done."""
        return False


class ChecksumError(KgfsError):
    """A dataset file does not have the sha256 the registry expects.

    Examples
    --------
    >>> issubclass(ChecksumError, KgfsError)
    True
    """


class EmptyTableError(KgfsError):
    """A table would have no instances or no features; :attr:`empty` says which (``"instances"`` or
    ``"features"``).

    Examples
    --------
    >>> err = EmptyTableError("the table has no features", empty="features")
    >>> str(err), err.empty
    ('the table has no features', 'features')
    """

    def __init__(self, message: str, *, empty: str):
        super().__init__(message)
        self.empty = empty


class HierarchyCycleWarning(UserWarning):
    """Cycles were found in a hierarchy and broken by removing the named edges, or merged into the named nodes.

    Examples
    --------
    >>> import warnings
    >>> from kg.hierarchy import FeatureHierarchy
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     h = FeatureHierarchy.from_edges([("a", "b"), ("b", "a")], on_cycle="break")
    >>> caught[0].category is HierarchyCycleWarning, h.removed_edges
    (True, [('b', 'a')])
    """


class DeadlineError(KgfsError):
    """A service kept failing until the time allowed for a batch ran out (not worth retrying soon).

    Examples
    --------
    >>> issubclass(DeadlineError, KgfsError)
    True
    """


#: The longest ``Retry-After`` waited for (seconds); a server asking for more makes the request fail, naming it.
MAX_RETRY_AFTER = 900.0

#: ``extra=`` of a log record whose content the table's notes give again, with the full list in a file: an
#: application that prints those notes may leave the record out of its terminal (``record.kgfs_noted``).
NOTED = {"kgfs_noted": True}


def parse_retry_after(value) -> float | None:
    """Seconds from a ``Retry-After`` header: a number of seconds or an HTTP date (``None`` if neither).

    Parameters
    ----------
    value : str, float or None

    Returns
    -------
    float or None

    Examples
    --------
    >>> parse_retry_after("5"), parse_retry_after(None), parse_retry_after("soon")
    (5.0, None, None)
    >>> parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT")  # in the past: no wait
    0.0
    """
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        pass
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(str(value))
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


class TransientError(Exception):
    """A request failure worth retrying (HTTP 5xx or 429, a timeout, a dropped connection).

    Internal to the HTTP clients (:mod:`kg.rdf.sources.sparql`, :mod:`kg.rdf.annotators.spotlight`), which
    raise it from one request and run the request through :func:`retry`: it never reaches the
    user, who sees the client's own error once the retries are used up.

    Parameters
    ----------
    reason : str
        What went wrong (``"HTTP 503"``), for the log and the final error.
    retry_after : str or float, optional
        The server's ``Retry-After`` header: seconds or an HTTP date (:func:`parse_retry_after`);
        anything unparsable counts as absent. It is named in the message.

    Examples
    --------
    >>> e = TransientError("HTTP 429", retry_after="5")
    >>> e.retry_after, e.wait(0, backoff=1.0), e.wait(4, backoff=1.0), str(e)
    (5.0, 5.0, 16.0, 'HTTP 429 (Retry-After: 5 s)')
    """

    def __init__(self, reason: str, retry_after=None):
        self.retry_after = parse_retry_after(retry_after)
        super().__init__(reason if self.retry_after is None else f"{reason} (Retry-After: {self.retry_after:.0f} s)")

    def wait(self, attempt: int, backoff: float, cap: float = 60.0) -> float:
        """Seconds to wait before retry ``attempt + 1``.

        Parameters
        ----------
        attempt : int
            Retries already made (0 before the first retry).
        backoff : float
            The first wait; doubled on every retry.
        cap : float
            The longest wait, whatever the server asks.

        Returns
        -------
        float
            ``backoff * 2**attempt`` (at most ``cap``), or ``Retry-After`` when the server asks for longer
            (honoured whatever ``cap``: :func:`retry` refuses one above :data:`MAX_RETRY_AFTER`).

        Examples
        --------
        >>> TransientError("HTTP 503").wait(2, backoff=0.5), TransientError("HTTP 429", "120").wait(0, 1.0)
        (2.0, 120.0)
        """
        w = min(cap, backoff * 2**attempt)
        return w if self.retry_after is None else max(w, self.retry_after)


class RetryPolicy(NamedTuple):
    """How a request is retried: ``retries`` further attempts after the first, the first wait ``backoff``
    seconds (doubled per retry, capped at 60 s, or ``Retry-After``), none starting after ``deadline``.

    Attributes
    ----------
    retries : int
    backoff : float
    deadline : float, optional
        A ``clock()`` time after which no attempt starts (:class:`DeadlineError`).
    sleep : callable
        How to wait (``time.sleep``; a test passes its own).
    clock : callable
        The clock of ``deadline`` (``time.monotonic``).

    Examples
    --------
    >>> RetryPolicy(retries=2, backoff=0.5).retries
    2
    """

    retries: int = 3
    backoff: float = 1.0
    deadline: float | None = None
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic


def retry(call: Callable[[], T], policy: RetryPolicy, *, what: str,
          give_up: Callable[[int, TransientError], Exception], on_retry: Callable[[], None] | None = None) -> T:
    """``call()``, called again after each :class:`TransientError` as ``policy`` says.

    The one retry loop of the HTTP clients: the wait is :meth:`TransientError.wait` (capped
    exponential backoff honouring ``Retry-After``); any other exception passes through at once.

    Parameters
    ----------
    call : callable
        One attempt; raises :class:`TransientError` when it is worth trying again. With a
        deadline, the call should not outlast it (the clients cut their request timeout).
    policy : RetryPolicy
    what : str
        Names the request in the log (``"SPARQL request"``).
    give_up : callable
        ``give_up(attempts, last_error)`` builds the exception raised when every attempt failed.
    on_retry : callable, optional
        Called before each wait (e.g. to count retries).

    Returns
    -------
    object
        What ``call()`` returned.

    Raises
    ------
    DeadlineError
        When the next attempt would start after the policy's deadline.

    Examples
    --------
    >>> answers = iter([TransientError("HTTP 503"), TransientError("HTTP 429", "2"), "ok"])
    >>> def call():
    ...     a = next(answers)
    ...     if isinstance(a, Exception):
    ...         raise a
    ...     return a
    >>> waits = []
    >>> retry(call, RetryPolicy(retries=3, backoff=0.5, sleep=waits.append), what="test",
    ...       give_up=lambda n, e: RuntimeError(f"failed {n} time(s), last: {e}"))
    'ok'
    >>> waits
    [0.5, 2.0]
    >>> def hang():
    ...     raise TransientError("timed out")
    >>> retry(hang, RetryPolicy(retries=9, sleep=lambda s: None, deadline=0.0, clock=lambda: 0.0), what="test",
    ...       give_up=lambda n, e: RuntimeError(f"failed {n} time(s), last: {e}"))
    Traceback (most recent call last):
    ...
    kg.errors.DeadlineError: gave up after 0 s (the time allowed): failed 1 time(s), last: timed out
    """
    clock, deadline = policy.clock, policy.deadline
    attempt, start = 0, clock()
    while True:
        try:
            return call()
        except TransientError as exc:
            wait = exc.wait(attempt, policy.backoff)
            if wait > MAX_RETRY_AFTER:
                raise give_up(attempt + 1, exc) from None
            if deadline is not None and clock() + wait >= deadline:
                msg = str(give_up(attempt + 1, exc))
                raise DeadlineError(f"gave up after {clock() - start:.0f} s (the time allowed): {msg}") from None
            if attempt >= policy.retries:
                raise give_up(attempt + 1, exc) from None
            log.warning("%s failed (%s); retry %d/%d in %.1f s", what, exc, attempt + 1, policy.retries, wait)
            if on_retry is not None:
                on_retry()
            attempt += 1
            policy.sleep(wait)


def few(items, n: int = 5) -> str:
    """The first ``n`` items, comma-separated, with how many more there are (for messages that name a few).

    Parameters
    ----------
    items : sequence
    n : int

    Returns
    -------
    str

    Examples
    --------
    >>> few(["a", "b", "c"], 2), few(["a"])
    ('a, b and 1 more', 'a')
    """
    items = [str(i) for i in items]
    more = f" and {len(items) - n} more" if len(items) > n else ""
    return ", ".join(items[:n]) + more


def did_you_mean(name, choices, n: int = 3) -> str:
    """`` (did you mean X?)`` for the choices closest to a mistyped ``name`` (``""`` when none is close).

    Parameters
    ----------
    name : str
    choices : iterable of str
    n : int
        At most this many suggestions.

    Returns
    -------
    str

    Examples
    --------
    >>> did_you_mean("shsel-ig-prun", ["shsel-ig-prune", "shsel-ig", "complete"])
    ' (did you mean shsel-ig-prune or shsel-ig?)'
    >>> did_you_mean("--selctor", ["--selector", "--aspects"]), did_you_mean("xyz", ["complete"])
    (' (did you mean --selector?)', '')
    """
    import difflib

    choices = [str(c) for c in choices]
    bare = {c.lstrip("-"): c for c in choices}
    close = [bare[c] for c in difflib.get_close_matches(str(name).lstrip("-"), list(bare), n=n, cutoff=0.7)]
    if not close:
        return ""
    return " (did you mean " + (close[0] if len(close) == 1 else ", ".join(close[:-1]) + " or " + close[-1]) + "?)"
