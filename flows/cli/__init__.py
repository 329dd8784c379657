"""The ``kgfs`` command line: the parser (:mod:`flows.cli.parser`), one function per command
(:mod:`flows.cli.commands`), the console, the entry point (:mod:`flows.cli.main`)."""

from flows.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
