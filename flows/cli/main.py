"""The ``kgfs`` command line: ``kgfs run`` is the Prefect flow of :mod:`flows.pipeline`; the other commands
do one step each with ``kg`` and ``selection`` (no Prefect server). Errors caused by input are one line
(``--debug``: the traceback). Exit status: 0 success, 1 error, 2 usage error, 130 interrupted.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings

from flows import settings
from flows.cli.commands import CliError, short_iris
from flows.cli.console import cli_words, error_line
from flows.cli.parser import build_parser

# The commands import what they use where they use it (flows.cli.commands), for the start-up time of
# `kgfs --help`, of `kgfs datasets list` and of a cached run.

__all__ = ["main", "build_parser"]


class _StderrHandler(logging.StreamHandler):
    """A handler writing to ``sys.stderr`` as it is when a record comes (not when the handler was made).

    While a live display runs, ``rich`` replaces ``sys.stderr`` by a proxy that prints above the
    display; a handler holding the original stream would write through it and leave a copy of the
    display's rows on the screen each time (issue 27: the "Prefect server" and "annotate" rows
    three times).
    """

    def __init__(self):
        super().__init__(sys.stderr)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value):  # logging sets it; the current sys.stderr is used anyway
        pass


LINE_LIMIT = 600


def _one_line(text: str) -> str:
    """A message on one line of at most :data:`LINE_LIMIT` characters (its lists live in the output folder's notes).

    A longer one keeps its beginning (what happened) and its end (what kgfs does about it), cut in the middle.

    Examples
    --------
    >>> s = _one_line("file " + "x" * 700 + " differs; reading it again")
    >>> len(s) <= LINE_LIMIT, s.startswith("file xx"), s.endswith("differs; reading it again"), " … " in s
    (True, True, True, True)
    """
    text = " ".join(str(text).split())
    if len(text) <= LINE_LIMIT:
        return text
    head = LINE_LIMIT * 2 // 3
    return text[:head].rstrip(", ") + " … " + text[len(text) - (LINE_LIMIT - head - 3):].lstrip(", ")


class _Quiet(logging.Filter):
    """What the terminal leaves out: Prefect's and its server's logs (its UI keeps them), a message
    said already, and the reports a command prints afterwards as notes (with their full lists in files)."""

    def __init__(self):
        super().__init__()
        self.seen: set[str] = set()

    def filter(self, record):
        if record.name.startswith(("prefect", "uvicorn", "httpx")):  # Prefect's UI shows them (--debug here)
            return False
        if getattr(record, "kgfs_noted", False):  # the table's notes say it after the run (kg.errors.NOTED)
            return False
        key = _one_line(record.getMessage())
        if key in self.seen:
            return False
        self.seen.add(key)
        return True


class _OneLine(settings.OneLine):
    """A record's first line, no traceback, well-known namespaces short, at most :data:`LINE_LIMIT` characters."""

    def format(self, record):
        return _one_line(cli_words(short_iris(super().format(record))))


def _setup_logging(debug: bool) -> None:
    level = logging.DEBUG if debug else logging.WARNING
    handler = _StderrHandler()
    handler.setLevel(level)  # propagated INFO lines (Prefect's flow logs, kept for the UI) stay out of the terminal
    if debug:
        handler.setFormatter(logging.Formatter("kgfs: %(levelname)s: %(name)s: %(message)s"))
    else:  # one line per record, never a traceback; Prefect's records of a failed run go to its UI, and the
        # error itself is the command's last line (main)
        handler.setFormatter(_OneLine("kgfs: %(levelname)s: %(message)s"))
        handler.addFilter(_Quiet())
    handler._kgfs = True  # replace only our own handler when main() is called again (tests)
    root = logging.getLogger()
    root.handlers[:] = [h for h in root.handlers if not getattr(h, "_kgfs", False)] + [handler]
    root.setLevel(level)
    for noisy in ("httpx", "httpcore", "asyncio", "uvicorn", "matplotlib", "numba"):
        logging.getLogger(noisy).setLevel(logging.WARNING)

    shown: set[str] = set()

    def showwarning(message, category, filename, lineno, file=None, line=None):
        text = _one_line(cli_words(short_iris(str(message))))
        if text not in shown:  # the same warning from several threads or stages: once
            shown.add(text)
            print(f"kgfs: warning: {text}", file=sys.stderr)

    if not debug:
        warnings.showwarning = showwarning
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.filterwarnings("ignore", category=FutureWarning)
        warnings.filterwarnings("ignore", module=r"prefect(\.|$)")


_COMMANDS = ("run", "fit", "predict", "build", "serve", "datasets", "select", "evaluate", "export", "methods",
             "server", "cache", "ingest")


def _command_of(argv: list[str]) -> str:
    """The command an argument list runs (``""`` when none: ``kgfs --help``)."""
    it = iter(argv)
    for a in it:
        if a == "--home":
            next(it, None)  # its value
        elif not a.startswith("-"):
            return a if a in _COMMANDS else ""
    return ""


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``kgfs`` console script; returns the exit status."""
    parser = build_parser(_command_of(sys.argv[1:] if argv is None else argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help or a usage error (argparse printed it)
        return int(exc.code or 0)
    for name in ("debug", "quiet", "home"):
        if not hasattr(args, name):
            setattr(args, name, None if name == "home" else False)
    debug = bool(args.debug)
    # offline Prefect settings before anything imports prefect; Prefect's own console logging
    # is silenced (the CLI reports errors in one line) unless --debug
    settings.configure(args.home, log_level="DEBUG" if debug else "CRITICAL")
    _setup_logging(debug)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("kgfs: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`kgfs ... | head`): stop quietly, as a shell tool does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except BaseException as exc:  # noqa: BLE001 - every error becomes one line unless --debug
        if debug or isinstance(exc, SystemExit):
            raise

        kind, text = ("error", " ".join(str(exc).split())) if isinstance(exc, CliError) else error_line(exc)
        print(f"kgfs: {kind}: {text}" + (" (run with --debug for the traceback)" if kind != "error" else ""),
              file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
