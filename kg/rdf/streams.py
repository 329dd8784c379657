"""The bytes of a dump file as its readers take them: hashed (sha256) and counted as they are read, and a
``.gz``/``.bz2`` file decompressed by a tool in a child process (``lbzip2``, ``pigz``) when one is installed,
beside the parser (Python's ``bz2`` and ``gzip`` otherwise).

Used by :class:`kg.rdf.dumpfiles.DumpReader` and :mod:`kg.rdf.lineblocks`.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import hashlib
import shutil
import subprocess
import threading

__all__ = ["HashingFile", "Piped", "finish_reading", "open_binary"]


class HashingFile:
    """A binary file whose bytes are hashed (sha256) and counted as they are read."""

    def __init__(self, raw):
        self._raw = raw
        self.hash = hashlib.sha256()
        self.count = 0

    def read(self, n: int = -1) -> bytes:
        data = self._raw.read(n)
        self.hash.update(data)
        self.count += len(data)
        return data

    def readline(self, n: int = -1) -> bytes:
        data = self._raw.readline(n)
        self.hash.update(data)
        self.count += len(data)
        return data

    def readinto(self, buf) -> int:
        data = self.read(len(buf))
        buf[:len(data)] = data
        return len(data)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        self._raw.close()

    @property
    def closed(self) -> bool:
        return self._raw.closed


class Piped:
    """A compressed stream decompressed by a tool (``lbzip2 -dc``, ``gzip -dc``) in a child process, so that
    decompression (13 of the 24 s of streaming 5M triples with Python's ``bz2``) runs on another core beside
    the parser; a thread feeds it the file's bytes (read, hashed and counted there)."""

    def __init__(self, raw, tool: str):
        self._raw, self.eof = raw, False
        self._proc = subprocess.Popen([tool, "-dc"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE)
        self._feeder = threading.Thread(target=self._feed, daemon=True)
        self._feeder.start()

    def _feed(self) -> None:
        try:
            while chunk := self._raw.read(1 << 20):
                self._proc.stdin.write(chunk)
        except (OSError, ValueError):  # the reader stopped early and closed the pipe
            pass
        finally:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()

    def read(self, n: int = -1) -> bytes:
        data = self._proc.stdout.read(n)
        self.eof = self.eof or not data
        return data

    def readline(self, n: int = -1) -> bytes:
        data = self._proc.stdout.readline(n)
        self.eof = self.eof or not data
        return data

    def readinto(self, buf) -> int:
        n = self._proc.stdout.readinto(buf)
        self.eof = self.eof or not n
        return n

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def check(self, drain: int = 0) -> None:
        """Raise ``OSError`` when the decompressor failed (a corrupt file); first read up to ``drain``
        more bytes (a corrupt block is found at its end, after its bytes were written)."""
        while drain > 0 and not self.eof:
            drain -= len(self.read(min(drain, 1 << 20)))
        with contextlib.suppress(subprocess.TimeoutExpired):
            if self._proc.wait(timeout=None if self.eof else 0.2) != 0:
                said = self._proc.stderr.read().decode(errors="replace").strip().splitlines()
                raise OSError(said[0] if said else f"{self._proc.args[0]} failed")

    def finish(self) -> None:
        """Read to the end (every byte of the file fed and hashed) and check the exit status."""
        while self.read(1 << 20):
            pass
        self._feeder.join()
        self.check()

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._feeder.join()
        for f in (self._proc.stdout, self._proc.stderr):
            f.close()


def open_binary(raw, comp: str | None, piped_gzip: bool = False):
    if comp == ".gz":
        tool = shutil.which("pigz") or shutil.which("gzip") if piped_gzip else None
        return Piped(raw, tool) if tool else gzip.GzipFile(fileobj=raw, mode="rb")
    if comp == ".bz2":
        tool = shutil.which("lbzip2") or shutil.which("bzip2")
        return Piped(raw, tool) if tool else bz2.BZ2File(raw, "rb")
    return raw


def finish_reading(fh, raw: HashingFile) -> None:
    """Read what the parser left (a parser may stop before the end): the whole file is hashed."""
    if isinstance(fh, Piped):
        fh.finish()
    while raw.read(1 << 20):
        pass
