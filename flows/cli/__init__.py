"""The ``kgfs`` command line: the parser (:mod:`flows.cli.parser`), one function per command
(:mod:`flows.cli.commands`; those that list datasets, caches and methods: :mod:`flows.cli.catalog`), the console,
the entry point (:mod:`flows.cli.main`)."""

import time

#: When kgfs's own code started in this process (``time.monotonic()``; the first module of the command line that
#: ``kgfs`` and ``python -m flows.cli`` import): what "done in" counts from. Not the process's creation time: a
#: shell ``exec``s its last command in its own process (``bash -c 'sleep 10 && kgfs run'``), so that time includes
#: whatever the shell ran first. Python's own start before this line (tens of milliseconds) is not counted.
STARTED = time.monotonic()

from flows.cli.main import build_parser, main  # noqa: E402 - after STARTED: the imports are part of the command

__all__ = ["STARTED", "build_parser", "main"]
