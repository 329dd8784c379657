"""Block checksums of the dump index: CRC-32C per 1 MiB block of every file, written at ingest, verified when read.

The manifest of a folder (:mod:`kg.rdf.index.manifest`) checks sizes and the first 4 KiB of each file on
every open; damage in the middle of a file that kept its size and modification time (a bit flipped on the
disk, a restore that keeps times, one block copied over another) is not seen there. So every file of a
folder also has the CRC-32C (hardware, the ``crc32c`` package) of each of its :data:`BLOCK` bytes in the
manifest (format 3), computed in the same pass as its sha256 (:func:`digest_file`), and the readers of a
folder (:class:`kg.rdf.index.segment.Segment`, :class:`kg.rdf.index.mentions.IndexedLexicon`, the lexicon's
build, :func:`kg.rdf.labels.dump_labels`) check what they read through the folder's :class:`Checks`:

- the keys a segment searches (the high halves of a key table: a binary search touches blocks nobody can
  list beforehand) are verified whole the first time they are opened in a process, hashed through a map of
  the file (about 0.4 ms per MiB with the page cache warm on a loaded machine; the pages are then in the
  cache for the reads that follow), and so are the arrays read whole or by slices (:meth:`Checks.file`);
- the arrays a segment reads by row (a table's payload, ``objects[rows]``, the low halves of its keys, the
  terms' rows and keys: :class:`kg.rdf.index.columns.CheckedArray`) block by block: the blocks that the rows
  read fall in (:meth:`Checks.rows`);
- a string column's blob (``*.bin``, the largest files, read a few strings at a time) block by block: the
  blocks that the strings read cover, the first time each is read (:meth:`Checks.spans`);
- what was verified is remembered for the process (by path, inode, size and time), so a block is hashed
  at most once per process.

A mismatch raises :class:`BlockDamaged`, naming the file and the block; nothing read from it is used.
It is a :class:`~kg.errors.RepairableError`: :meth:`BlockDamaged.repair` removes the damaged folder
(under the index's lock), so the step that met it (:func:`kg.routes.run_step`: nothing of it stored) runs
again and reads the dump file into a new segment (the lexicon is built again) as for a file never ingested.

A folder written by a kgfs without block checksums (manifest format 2) is trusted as its manifest's
checks leave it and checksummed once, on its first open (:meth:`Checks.of`): the manifest is written
again with the checksums (format 3), nothing is read from the dump again.

``KGFS_BLOCK_CHECKS=0`` turns the verification off (for ``benchmarks/bench_index_checksums.py`` only,
to measure what it costs).

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "a.bin").write_bytes(bytes(range(256)) * 10_000)
>>> sha, crcs = digest_file(d / "a.bin", block=1 << 20)
>>> len(crcs), crcs == file_blocks(d / "a.bin")
(3, True)
>>> checks = Checks(d, {"a.bin": crcs}, "kgfs ingest --dump t.nt")
>>> checks.spans(d / "a.bin", [0, 2_100_000], [10, 2_100_010])  # blocks 0 and 2 read, and verified
>>> with open(d / "a.bin", "r+b") as fh:
...     _ = fh.seek(1_500_000); _ = fh.write(b"!")
>>> try:
...     Checks(d, {"a.bin": crcs}, "kgfs ingest --dump t.nt").file(d / "a.bin")
... except BlockDamaged as e:
...     print(e.problems[0].problem.split(" (")[0])
block 1 of 3
"""

from __future__ import annotations

import json
import logging
import mmap
import os
import shutil
import threading
from pathlib import Path

import numpy as np
from crc32c import crc32c

from kg.errors import RepairableError
from kg.files import file_lock
from kg.rdf.index import manifest as _manifest
from kg.rdf.index.manifest import BLOCK, IndexDamaged, Problem, digest_file, file_blocks, write_entries

__all__ = ["BLOCK", "BlockDamaged", "Checks", "checks_enabled", "digest_file", "file_blocks", "manifest_key",
           "upgrade_manifest"]

log = logging.getLogger(__name__)

# (path, inode, size, mtime_ns) -> the blocks of that file verified in this process
_VERIFIED: dict[tuple, np.ndarray] = {}
_LOCK = threading.Lock()
# folder -> (manifest stat key, Checks): a folder's manifest read once per process (again when it changes)
_FOLDERS: dict[str, tuple[tuple, Checks]] = {}
_UNSET = object()


def checks_enabled() -> bool:
    """Whether reads verify their blocks (``KGFS_BLOCK_CHECKS=0``: not, for the benchmark of their cost)."""
    return os.environ.get("KGFS_BLOCK_CHECKS", "1") != "0"


class BlockDamaged(IndexDamaged, RepairableError):
    """A block of a file of the dump index does not have the CRC-32C it had when it was built (or, found by the
    checks on open, a file of a folder is truncated or was written since).

    The message names the file and the block, and the command that rebuilds it; :meth:`repair` removes
    the folder (a segment is read from its dump file again, a lexicon built again, on next use).

    Attributes
    ----------
    problems : list of kg.rdf.index.manifest.Problem
    folder : Path

    Examples
    --------
    >>> e = BlockDamaged(Problem(Path("/i/s/a.npy"), "block 2 of 9 (bytes ...)"), "kgfs ingest --dump t.nt",
    ...                  Path("/i/s"))
    >>> isinstance(e, IndexDamaged), str(e)
    (True, 'dump index file /i/s/a.npy: block 2 of 9 (bytes ...); `kgfs ingest --dump t.nt` rebuilds it')
    """

    def __init__(self, problems, rebuild: str, folder: Path, manifest_key: tuple | None = None):
        IndexDamaged.__init__(self, problems if isinstance(problems, list) else [problems], rebuild)
        self.folder, self.manifest_key = Path(folder), manifest_key

    def repair(self) -> bool:
        """Remove the damaged folder (unless another process rebuilt it meanwhile), under the index's lock.

        Returns
        -------
        bool
            Whether it is gone (removed now, or rebuilt by someone else): the next read builds it again.
        """
        folder = self.folder
        root = folder.parent.parent  # <index>/segments/<folder>, <index>/lexicons/<folder>
        with file_lock(root / ".lock"):
            key = _stat_key(folder / "manifest.json")
            if key is not None and key == self.manifest_key:
                gone = folder.with_name(f".building-{os.getpid()}-damaged-{folder.name}")
                shutil.rmtree(gone, ignore_errors=True)
                os.replace(folder, gone)  # at once: no reader finds half a folder
                shutil.rmtree(gone, ignore_errors=True)
        _FOLDERS.pop(str(folder), None)
        log.warning("%s; it is built again (%s)", self.problems[0],
                    "read from its dump file" if folder.parent.name == "segments" else "the lexicon")
        return True


def manifest_key(folder) -> tuple | None:
    """A folder's ``manifest.json`` as ``(inode, size, mtime_ns)`` (``None`` without one): which build it is.

    Examples
    --------
    >>> manifest_key("/no/such/folder") is None
    True
    """
    return _stat_key(Path(folder) / "manifest.json")


def _stat_key(path: Path) -> tuple | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


class Checks:
    """The block checksums of one folder's files, and their verification as the blocks are read.

    Parameters
    ----------
    folder : path
    crcs : dict
        File (relative to ``folder``, as in the manifest) -> its blocks' CRC-32C.
    rebuild : str
        The command that rebuilds the folder (named by the error).
    block : int
    manifest_key : tuple, optional
        The manifest's ``(inode, size, mtime_ns)`` when it was read (:meth:`BlockDamaged.repair` removes the
        folder only if it is still that one).

    Examples
    --------
    See the module.
    """

    def __init__(self, folder, crcs: dict[str, list[int]], rebuild: str, *, block: int = BLOCK,
                 manifest_key: tuple | None = None):
        self.folder, self.crcs, self.rebuild, self.block = Path(folder), crcs, rebuild, block
        self.manifest_key = manifest_key
        self.enabled = checks_enabled()
        self._entries: dict[str, list[int] | None] = {}  # path as read -> its CRCs (None: not in the manifest)

    def __repr__(self) -> str:
        return f"Checks({str(self.folder)!r}, {len(self.crcs)} files)"

    @classmethod
    def of(cls, folder, rebuild: str | None = None) -> Checks:
        """The checks of a folder, from its manifest (read once per process; a format-2 manifest is given its
        block checksums now: :func:`upgrade_manifest`).

        Parameters
        ----------
        folder : path
            A segment or lexicon folder with a ``manifest.json`` (checked by its opener).
        rebuild : str, optional
            The command named by an error (default: ``kgfs ingest``).

        Returns
        -------
        Checks
        """
        folder = Path(folder)
        path = folder / "manifest.json"
        key = _stat_key(path)
        hit = _FOLDERS.get(str(folder))
        if hit is not None and hit[0] == key and (rebuild is None or hit[1].rebuild == rebuild):
            return hit[1]
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # checked by the folder's opener: nothing to verify against
            manifest = {"files": {}}
        if "block" not in manifest and manifest.get("files") and checks_enabled():
            manifest = upgrade_manifest(folder, manifest)
            key = _stat_key(path)
        crcs = {rel: e["blocks"] for rel, e in manifest.get("files", {}).items() if "blocks" in e}
        checks = cls(folder, crcs, rebuild or "kgfs ingest", block=int(manifest.get("block", BLOCK)), manifest_key=key)
        _FOLDERS[str(folder)] = (key, checks)
        return checks

    # ------------------------------------------------------------------ verification
    def _state(self, path) -> tuple[list[int] | None, np.ndarray | None, int]:
        """The recorded CRCs of a file, its bitmap of blocks verified in this process, and its size now.

        Called on every read: the file's manifest entry is looked up once per path (a dict hit after
        that, not ``Path.relative_to``), the file is stat'ed every time (a file replaced since is
        verified again: the bitmap is by inode, size and time).
        """
        name = os.fspath(path)
        crcs = self._entries.get(name, _UNSET)
        if crcs is _UNSET:
            path = Path(name)
            rel = path.relative_to(self.folder).as_posix() if path.is_relative_to(self.folder) else None
            crcs = self._entries[name] = self.crcs.get(rel) if rel is not None else None
        if crcs is None:
            return None, None, -1
        st = os.stat(name)
        k = (name, st.st_ino, st.st_size, st.st_mtime_ns)
        done = _VERIFIED.get(k)
        if done is None:
            with _LOCK:
                done = _VERIFIED.get(k)
                if done is None:
                    done = _VERIFIED[k] = np.zeros(len(crcs), bool)
        return crcs, done, st.st_size

    def _verify(self, path: Path, crcs: list[int], done: np.ndarray, size: int, blocks) -> None:
        n = len(crcs)
        want = (size + self.block - 1) // self.block
        if want != n:  # the manifest's size check is on open; a file that changed size since is damaged too
            self._damaged(path, f"{size} bytes: {want} blocks of {self.block}, {n} when it was built (truncated or "
                                "extended)")
        todo = [b for b in blocks if not done[b]]
        if not todo:
            return
        # hashed through a map of the file: no copy (a tenth of the time of reading it into buffers), and its pages
        # are then in the cache for the reads that follow
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:
            view = memoryview(m)
            try:
                for b in todo:
                    data = view[b * self.block:(b + 1) * self.block]
                    got = crc32c(data)
                    if got != crcs[b]:
                        end = b * self.block + len(data)
                        self._damaged(path, f"block {b} of {n} (bytes {b * self.block:,}-{end:,}) has CRC-32C "
                                            f"{got:08x}, {crcs[b]:08x} when it was built (damaged since)")
                    done[b] = True
            finally:
                data = None
                view.release()

    def _damaged(self, path: Path, what: str):
        raise BlockDamaged(Problem(path, what), self.rebuild, self.folder, self.manifest_key)

    def file(self, path) -> None:
        """Verify every block of a file not verified yet in this process (a file without checksums: nothing).

        Raises
        ------
        BlockDamaged
        """
        if not self.enabled:
            return
        crcs, done, size = self._state(path)
        if crcs is not None and not done.all():
            self._verify(Path(path), crcs, done, size, range(len(crcs)))

    def spans(self, path, starts, stops) -> None:
        """Verify the blocks that the byte ranges ``[starts[i], stops[i])`` of a file cover (each once per process).

        Raises
        ------
        BlockDamaged
        """
        if not self.enabled:
            return
        crcs, done, size = self._state(path)  # (the path as given: a Path is made only to hash)
        if crcs is not None and not done.all():
            self._spans(Path(path), crcs, done, size, starts, stops)

    def rows(self, path, start: int, itemsize: int, rows, n: int | None = None) -> None:
        """Verify the blocks that rows of an array of ``itemsize`` bytes from byte ``start`` of a file fall in: as
        :meth:`spans` of ``start + rows * itemsize`` (computed only if some block of the file is not verified yet;
        with the array's length ``n``, negative rows count from its end, as NumPy reads them).

        Raises
        ------
        BlockDamaged
        """
        if not self.enabled:
            return
        crcs, done, size = self._state(path)
        if crcs is not None and not done.all():
            rows = np.asarray(rows, np.int64).ravel()
            if n is not None and len(rows) and rows.min() < 0:
                rows = np.where(rows < 0, rows + n, rows)
            first = start + rows * itemsize
            self._spans(Path(path), crcs, done, size, first, first + itemsize)

    def _spans(self, path: Path, crcs: list[int], done: np.ndarray, size: int, starts, stops) -> None:
        n = len(crcs)
        if (size + self.block - 1) // self.block != n:
            self._verify(path, crcs, done, size, [])  # changed size since: named there
        starts = np.asarray(starts, np.int64).ravel()
        stops = np.asarray(stops, np.int64).ravel()
        keep = stops > starts
        if not keep.all():
            starts, stops = starts[keep], stops[keep]
        if not len(starts):
            return
        if int(stops.max()) > size or int(starts.min()) < 0:  # outside the file: every block verified (and named)
            self._verify(path, crcs, done, size, range(n))
            return
        first, last = starts // self.block, (stops - 1) // self.block
        # a bitmap of the blocks the ranges cover (no sort: the reads may be millions of rows)
        need = np.zeros(n, bool)
        need[first] = True
        need[last] = True
        for i in np.flatnonzero(last - first > 1).tolist():  # a range over more than two blocks: those between too
            need[first[i]:last[i] + 1] = True
        need &= ~done
        if need.any():
            self._verify(path, crcs, done, size, np.flatnonzero(need).tolist())


def upgrade_manifest(folder: Path, manifest: dict) -> dict:
    """Give a folder's format-2 manifest (a kgfs without block checksums) the CRC-32C of its files' blocks.

    The folder is trusted as its manifest's checks on open leave it (as that kgfs did): its files are
    checksummed once, and the manifest is written again (format 3) with the checksums; a folder that cannot
    be written keeps its old manifest (checksummed again by the next process).

    Parameters
    ----------
    folder : Path
    manifest : dict

    Returns
    -------
    dict
        The new manifest.
    """
    block = _manifest.BLOCK  # (looked up now: a test writes smaller blocks)
    entries = {}
    for rel, e in manifest["files"].items():
        try:
            entries[rel] = {**e, "blocks": file_blocks(folder / rel, block=block)}
        except OSError:
            entries[rel] = e
    try:
        new = write_entries(folder, entries)
    except OSError as exc:
        log.info("%s: the manifest could not be given block checksums (%s)", folder, exc)
        return {**manifest, "files": entries, "block": block}  # (for this process's reads)
    log.info("%s: block checksums added to the manifest of a kgfs without them", folder)
    return new
