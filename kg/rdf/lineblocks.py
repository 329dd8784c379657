"""An N-Triples/N-Quads file as blocks of lines and what a line filter keeps of each, for
:class:`kg.rdf.dumpfiles.DumpReader`: read in this process (:class:`BlockFilter`), or read, hashed and filtered
by a child process (:class:`FilterProcess`, ``python -m kg.rdf.prefilter``) while this one parses. The same
blocks either way; the child writes them in the format of :data:`HEADER`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from kg.errors import InputFormatError, KgfsError
from kg.rdf.streams import HashingFile, finish_reading, open_binary

__all__ = ["BLOCK", "END", "FAILED", "HEADER", "BlockFilter", "FilterProcess"]

BLOCK = 8 << 20  # bytes of decompressed lines filtered and parsed at a time
#: a block's header: its line count, the kept bytes, the kept lines, the file's bytes read so far; then the kept
#: lines and their indices (int64). The last header has ``n_lines = END`` and the file's sha256 (64 hex bytes)
#: follows, or ``n_lines = FAILED`` and a message of ``kept_bytes`` bytes (UTF-8)
HEADER = np.dtype([("n_lines", "<i8"), ("kept_bytes", "<i8"), ("n_kept", "<i8"), ("count", "<i8")])
END, FAILED = -1, -2


class BlockFilter:
    """The blocks of lines of an N-Triples/N-Quads file and what a line filter keeps of each, read in this process.

    Iterating gives ``(kept, lines, n_lines)`` per block of about ``BLOCK`` decompressed bytes cut at a line end
    (:meth:`~kg.rdf.index.linefilter.LineFilter.select`); :attr:`count` is the bytes of the file read so far
    and :attr:`sha256` the file's hash once it was read to the end (a ``.gz``/``.bz2`` file through its tool,
    :func:`kg.rdf.streams.open_binary`). A file that cannot be read raises :class:`~kg.errors.InputFormatError`.
    """

    def __init__(self, path: Path, line_filter, compression: str | None):
        self.path, self.filter, self.compression = Path(path), line_filter, compression
        self.sha256: str | None = None
        self._raw: HashingFile | None = None

    @property
    def count(self) -> int:
        return 0 if self._raw is None else self._raw.count

    def __iter__(self) -> Iterator[tuple[bytes, np.ndarray, int]]:
        select = self.filter.select
        with open(self.path, "rb") as raw:
            self._raw = HashingFile(raw)
            fh = open_binary(self._raw, self.compression, piped_gzip=True)
            try:
                rest = b""  # the unfinished last line of the previous read
                while True:
                    try:
                        data = fh.read(BLOCK)
                    except (OSError, EOFError) as exc:
                        raise InputFormatError(f"cannot read dump ({exc})", self.path) from None
                    if not data:
                        block, rest = rest, b""
                    else:
                        cut = data.rfind(b"\n") + 1
                        if not cut:
                            rest += data
                            continue
                        block, rest = rest + data[:cut], data[cut:]
                    if block:
                        yield select(block)
                    if not data:
                        break
                try:
                    finish_reading(fh, self._raw)
                except OSError as exc:
                    raise InputFormatError(f"cannot read dump ({exc})", self.path) from None
            finally:
                if fh is not self._raw:
                    fh.close()
        self.sha256 = self._raw.hash.hexdigest()

    def close(self) -> None:
        pass


class FilterProcess:
    """:class:`BlockFilter` run in a child process (``python -m kg.rdf.prefilter``): the reading, the hashing,
    the decompression's feeding and the line filter (two fifths of an ingest's time on the Wikidata-shaped dump
    of ``benchmarks/bench_wikidata_scale.py``) on another core, beside the parse of the previous block here.
    The same blocks, the same :attr:`count`, :attr:`sha256` and errors; the child is ended by :meth:`close`
    (also when the reader stops early)."""

    def __init__(self, path: Path, line_filter, compression: str | None):
        self.path, self.filter = Path(path), line_filter
        self.sha256: str | None = None
        self.count = 0
        root = str(Path(__file__).resolve().parents[2])  # kgfs importable in the child, installed or not
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
        spec = {"path": str(self.path), "compression": compression, **line_filter.spec()}
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "kg.rdf.prefilter", json.dumps(spec)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)

    def _read(self, n: int) -> bytes:
        data = self._proc.stdout.read(n) if n else b""
        if len(data) < n:
            self._proc.wait()
            said = self._proc.stderr.read().decode(errors="replace").strip().splitlines()
            raise KgfsError(f"{self.path}: the line filter's process ended early (exit status "
                            f"{self._proc.returncode}){': ' + said[-1] if said else ''}")
        return data

    def __iter__(self) -> Iterator[tuple[bytes, np.ndarray, int]]:
        while True:
            head = np.frombuffer(self._read(HEADER.itemsize), dtype=HEADER)[0]
            n, size, n_kept = int(head["n_lines"]), int(head["kept_bytes"]), int(head["n_kept"])
            self.count = int(head["count"])
            if n == END:
                self.sha256 = self._read(64).decode()
                return
            if n == FAILED:
                raise InputFormatError(self._read(size).decode(errors="replace"), self.path)
            kept = self._read(size)
            lines = np.frombuffer(self._read(8 * n_kept), dtype="<i8").astype(np.int64)
            self.filter.seen, self.filter.kept = self.filter.seen + n, self.filter.kept + n_kept  # counted there
            yield kept, lines, n

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        for f in (self._proc.stdout, self._proc.stderr):
            f.close()
