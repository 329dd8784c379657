"""The line filter of a large N-Triples dump in a process of its own (started by :class:`kg.rdf.dumpfiles.DumpReader`).

``python -m kg.rdf.prefilter SPEC``: ``SPEC`` is JSON, the file's ``path`` and ``compression`` (``.gz``, ``.bz2`` or
null) and the arguments of a :class:`~kg.rdf.index.linefilter.LineFilter`
(:meth:`~kg.rdf.index.linefilter.LineFilter.spec`); the blocks the filter keeps are written to the standard
output (:func:`serve_blocks`) for :class:`kg.rdf.lineblocks.FilterProcess`. Started by the reader, never by a user.
"""

from __future__ import annotations

import json
import sys

import numpy as np

from kg.errors import InputFormatError
from kg.rdf.index.linefilter import LineFilter
from kg.rdf.lineblocks import END, FAILED, HEADER, BlockFilter

__all__ = ["serve_blocks"]


def serve_blocks(path, line_filter, out, compression: str | None = None) -> int:
    """Write the blocks of :class:`~kg.rdf.lineblocks.BlockFilter` to the binary stream ``out``, each a header
    (:data:`~kg.rdf.lineblocks.HEADER`), the kept lines and their indices (int64); then the end (``END`` and the
    file's sha256 in hex) or, for a file that cannot be read, ``FAILED`` and the message. Returns the exit status
    (0; 1 after a message).
    """
    blocks = BlockFilter(path, line_filter, compression)
    try:
        for kept, lines, n in blocks:
            head = np.array([(n, len(kept), len(lines), blocks.count)], dtype=HEADER)
            out.write(head.tobytes())
            out.write(kept)
            out.write(lines.astype("<i8").tobytes())
    except InputFormatError as exc:
        msg = str(exc.args[0] if exc.args else exc).encode()
        out.write(np.array([(FAILED, len(msg), 0, blocks.count)], dtype=HEADER).tobytes() + msg)
        out.flush()
        return 1
    out.write(np.array([(END, 0, 0, blocks.count)], dtype=HEADER).tobytes() + blocks.sha256.encode())
    out.flush()
    return 0


def main(argv: list[str]) -> int:
    spec = json.loads(argv[0])
    path, compression = spec.pop("path"), spec.pop("compression")
    return serve_blocks(path, LineFilter(**spec), sys.stdout.buffer, compression)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
