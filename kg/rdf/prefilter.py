"""The line filter of a large N-Triples dump in a process of its own (started by :class:`kg.rdf.dumpfiles.DumpReader`).

``python -m kg.rdf.prefilter SPEC``: ``SPEC`` is JSON, the file's ``path`` and the arguments of a
:class:`~kg.rdf.index.linefilter.LineFilter` (:meth:`~kg.rdf.index.linefilter.LineFilter.spec`); the blocks the
filter keeps are written to the standard output in the format of ``kg.rdf.dumpfiles.serve_blocks``. Started
by the reader, never by a user.
"""

from __future__ import annotations

import json
import sys

from kg.rdf.dumpfiles import serve_blocks
from kg.rdf.index.linefilter import LineFilter


def main(argv: list[str]) -> int:
    spec = json.loads(argv[0])
    path = spec.pop("path")
    return serve_blocks(path, LineFilter(**spec), sys.stdout.buffer)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
