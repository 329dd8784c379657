"""The ``kgfs`` command line: option parsing, the console, one function per command (:mod:`flows.cli.main`)."""

from flows.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
