"""The manifest of a folder of the dump index: every file's size and sha256, written last, checked before use.

A folder of the dump index (a *segment* of one dump file, or a *lexicon*: :mod:`kg.rdf.index.dumpindex`,
:mod:`kg.rdf.index.lexicon`) is written by its builder, then :func:`write_manifest` lists every file
in it with its size, modification time and sha256 in ``manifest.json``, written last (as the
stage store's ``record.json``): a folder without one is unfinished, or was built by a kgfs that
wrote none, and is never used. The manifest carries the sha256 of its own entries, so an edit of
it is seen as well. The checks:

- :func:`check_folder` with ``full=False`` (on every open, so on every run): each file is there with
  its recorded size, and its head (the first 4 KiB: an array's header, with its dtype and shape)
  has its recorded sha256; a file whose modification time is not the recorded one has been
  written since it was built, and is hashed (a block overwritten in place: same size, new
  contents). It costs a ``stat`` and a 4 KiB read per file: about a millisecond per folder,
  whatever the dump's size;
- :func:`check_folder` with ``full=True`` (``kgfs cache verify``, ``kgfs ingest``): every file's
  sha256, and that each ``.npy`` file's header describes exactly the data the file holds, so damage
  that left size and time as they were (a bit flipped on the disk) is seen too.

- the block checksums (format 3: the CRC-32C of every 1 MiB block of each file, ``blocks``) are verified by
  the readers as they read (:mod:`kg.rdf.index.blocks`), so damage that left size and time as they were is
  seen by a build too, before the block is used; a format-2 manifest (a kgfs without them) is read, and
  given them on first open.

Which files are covered is whatever the builder left in the folder (no list to keep in step with
the layout): in a segment (``segments/<sha256>.v<format>/``) ``segment.json`` and every array
(``*.npy``) and string column (``*.bin``); in a lexicon (``lexicons/<key>/``) ``lexicon.json``, its
key tables and ``entities.bin``/``entities.offsets.npy``.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> np.save(d / "a.npy", np.arange(1000))
>>> _ = write_manifest(d)
>>> check_folder(d), check_folder(d, full=True)
([], [])
>>> with open(d / "a.npy", "r+b") as fh:
...     _ = fh.truncate(500)
>>> [p.problem for p in check_folder(d)]
['500 bytes, 8128 when it was built (truncated or overwritten)']
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import NamedTuple

import numpy as np
from crc32c import crc32c

from kg.errors import KgfsError
from kg.files import atomic_write, sha256_file

__all__ = ["BLOCK", "MANIFEST", "IndexDamaged", "Problem", "check_folder", "digest_file", "file_blocks",
           "require_intact", "write_entries", "write_manifest"]

MANIFEST = "manifest.json"
_FORMAT = 3  # 3: the CRC-32C of every block of each file (kg.rdf.index.blocks); 2 is read, and given them
_READ_FORMATS = (2, 3)
#: The bytes of a checksummed block (the last block of a file may be shorter): kg.rdf.index.blocks verifies them.
BLOCK = 1 << 20
_HEAD = 4096  # the bytes of a file's head checked on every open (a NumPy header is 128)


class Problem(NamedTuple):
    """A file of an index folder that cannot be used, and why.

    Attributes
    ----------
    file : Path
    problem : str

    Examples
    --------
    >>> str(Problem(Path("/i/s/a.npy"), "missing"))
    '/i/s/a.npy: missing'
    """

    file: Path
    problem: str

    def __str__(self) -> str:
        return f"{self.file}: {self.problem}"


class IndexDamaged(KgfsError):
    """A file of the dump index is damaged or unfinished; the message names it and the command that rebuilds it.

    Attributes
    ----------
    problems : list of Problem

    Examples
    --------
    >>> e = IndexDamaged([Problem(Path("/i/a.npy"), "missing")], "kgfs ingest --dump /d/t.nt")
    >>> str(e)
    'dump index file /i/a.npy: missing; `kgfs ingest --dump /d/t.nt` rebuilds it'
    """

    def __init__(self, problems: list[Problem], rebuild: str):
        self.problems = list(problems)
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        super().__init__(f"dump index file {problems[0]}{more}; `{rebuild}` rebuilds it")


def digest_file(path: str | os.PathLike, *, block: int | None = None) -> tuple[str, list[int]]:
    """The sha256 (hex) of a file and the CRC-32C of each of its blocks, in one streaming read.

    Parameters
    ----------
    path : path
    block : int, optional
        :data:`BLOCK` by default.

    Returns
    -------
    sha256 : str
    crcs : list of int
        One per block (none for an empty file).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x"; _ = p.write_bytes(b"abc")
    >>> digest_file(p)[1] == [crc32c(b"abc")], digest_file(p)[0][:8]
    (True, 'ba7816bf')
    """
    block = block or BLOCK
    h = hashlib.sha256()
    crcs = []
    with open(path, "rb") as fh:
        while chunk := fh.read(block):
            h.update(chunk)
            crcs.append(crc32c(chunk))
    return h.hexdigest(), crcs


def file_blocks(path: str | os.PathLike, *, block: int | None = None) -> list[int]:
    """The CRC-32C of each block of a file (streaming; blocks of :data:`BLOCK` bytes by default).

    Examples
    --------
    See :mod:`kg.rdf.index.blocks`.
    """
    block = block or BLOCK
    with open(path, "rb") as fh:
        return [crc32c(chunk) for chunk in iter(lambda: fh.read(block), b"")]


def _entries_digest(entries: dict) -> str:
    return hashlib.sha256(json.dumps(entries, sort_keys=True).encode()).hexdigest()


def write_manifest(folder: str | os.PathLike) -> dict:
    """List every file of a finished folder (size, mtime, sha256) in its ``manifest.json``, written last.

    Parameters
    ----------
    folder : path

    Returns
    -------
    dict
        The manifest.

    Examples
    --------
    See the module.
    """
    folder = Path(folder)
    entries = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name != MANIFEST:
            st = p.stat()
            sha256, blocks = digest_file(p)  # one read for both
            entries[p.relative_to(folder).as_posix()] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns,
                                                         "head": _head(p), "sha256": sha256, "blocks": blocks}
    return write_entries(folder, entries)


def write_entries(folder: str | os.PathLike, entries: dict) -> dict:
    """Write a folder's ``manifest.json`` (this format) of ``entries`` (file -> size, mtime, head, sha256, blocks).

    Parameters
    ----------
    folder : path
    entries : dict

    Returns
    -------
    dict
        The manifest.
    """
    manifest = {"format": _FORMAT, "block": BLOCK, "files": entries, "sha256": _entries_digest(entries)}
    text = json.dumps(manifest, indent=1, sort_keys=True)
    atomic_write(Path(folder) / MANIFEST, lambda tmp: tmp.write_text(text + "\n", encoding="utf-8"))
    return manifest


def _read_manifest(folder: Path) -> tuple[dict | None, str]:
    path = folder / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, "no manifest.json (an unfinished folder, or built by a kgfs without manifests)"
    except (OSError, ValueError) as exc:
        return None, f"unreadable manifest ({exc})"
    if not (isinstance(data, dict) and data.get("format") in _READ_FORMATS and isinstance(data.get("files"), dict)):
        return None, "not a manifest of this kgfs"
    if data.get("sha256") != _entries_digest(data["files"]):
        return None, "the manifest was edited (its entries do not have its recorded sha256)"
    return data, ""


def _head(path: Path) -> str:
    """The sha256 of a file's first :data:`_HEAD` bytes."""
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read(_HEAD)).hexdigest()


def _npy_problem(path: Path, size: int) -> str | None:
    """Whether an ``.npy`` file's header announces the number of bytes the file has."""
    try:
        with open(path, "rb") as fh:
            version = np.lib.format.read_magic(fh)
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, _fortran, dtype = read(fh, max_header_size=1 << 16)
            start = fh.tell()
    except (OSError, ValueError, SyntaxError) as exc:
        return f"not a NumPy array file ({' '.join(str(exc).split())[:120]})"
    if dtype.hasobject:
        return "holds Python objects (never read back)"
    expected = start + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if expected != size:
        return f"its header announces {expected} bytes, the file has {size} (truncated or overwritten)"
    return None


def check_folder(folder: str | os.PathLike, *, full: bool = False) -> list[Problem]:
    """What keeps an index folder from being used (empty: it is as it was built).

    Parameters
    ----------
    folder : path
    full : bool
        Hash every file (``kgfs cache verify``, ``kgfs ingest``); else sizes, ``.npy`` headers, and the
        hash of the files written since the build (see the module).

    Returns
    -------
    list of Problem

    Examples
    --------
    >>> [p.problem for p in check_folder("/no/such/folder")][0].startswith("no manifest.json")
    True
    """
    folder = Path(folder)
    manifest, why = _read_manifest(folder)
    if manifest is None:
        return [Problem(folder / MANIFEST, why)]
    out = []
    for rel, entry in sorted(manifest["files"].items()):
        p = folder / rel
        try:
            st = p.stat()
        except OSError:
            out.append(Problem(p, "missing"))
            continue
        if st.st_size != entry["size"]:
            out.append(Problem(p, f"{st.st_size} bytes, {entry['size']} when it was built (truncated or overwritten)"))
            continue
        try:
            head = _head(p)
        except OSError as exc:
            out.append(Problem(p, f"unreadable ({exc.strerror or exc})"))
            continue
        bad = "its head (an array's header) differs from when it was built" if head != entry["head"] else \
            _npy_problem(p, st.st_size) if full and p.suffix == ".npy" else None
        if bad:
            out.append(Problem(p, bad))
            continue
        if full or st.st_mtime_ns != entry["mtime_ns"]:
            actual = sha256_file(p)
            if actual != entry["sha256"]:
                out.append(Problem(p, f"content differs from when it was built (sha256 {actual[:12]}..., "
                                      f"recorded {entry['sha256'][:12]}...)"))
    return out


def require_intact(folder: str | os.PathLike, rebuild: str, *, full: bool = False) -> None:
    """Raise :class:`IndexDamaged` (naming the file and ``rebuild``, the command) unless the folder checks.

    Parameters
    ----------
    folder : path
    rebuild : str
        The command that rebuilds it (``kgfs ingest --dump FILE``).
    full : bool
        See :func:`check_folder`.

    Examples
    --------
    >>> try:
    ...     require_intact("/no/such/folder", "kgfs ingest --dump t.nt")
    ... except IndexDamaged as e:
    ...     print(str(e).endswith("`kgfs ingest --dump t.nt` rebuilds it"))
    True
    """
    problems = check_folder(folder, full=full)
    if problems:
        raise IndexDamaged(problems, rebuild)
