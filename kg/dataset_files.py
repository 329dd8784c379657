"""A dataset's files: where each is looked for, how its copy is verified, and its download.

:func:`locate_file` finds one file (a :class:`FileInfo` of the registry, :mod:`kg.datasets`) in this
order, each copy's sha256 verified (a mismatch raises :class:`~kg.errors.ChecksumError` naming the
file and both hashes): the bundled files beside the manifest, the mirror folder, the user cache,
and last a download with ``requests`` into the user cache (atomically: verified before it is moved
into place) unless offline, or, for a file that has no download of its own but a recipe (``derive``),
its derivation from its upstream files (themselves located the same way) into the user cache, verified
by its content's sha256 before it is moved into place. No path of a manifest leads outside its folder.

Examples
--------
>>> from kg.datasets import datasets_dir, dataset_info
>>> f = dataset_info("bundled/DM-BP").files["labels"]
>>> locate_file(datasets_dir(), "bundled/DM-BP", f, mirror=None, cache=Path("/no/such/cache"),
...             offline=True).name
'labels.tsv'
"""

from __future__ import annotations

import gzip
import logging
import shutil
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath, PureWindowsPath
from urllib.parse import urlsplit

from kg.errors import ChecksumError, KgfsError, param
from kg.files import atomic_write, sha256_file

__all__ = ["FileInfo", "escapes_folder", "locate_file", "stat_key"]

log = logging.getLogger(__name__)

_CHUNK = 1 << 20


@dataclass(frozen=True)
class FileInfo:
    """One file of a dataset.

    ``archive = "zip"`` with ``member`` means the upstream URL serves a zip archive whose
    member is stored gzip-compressed at ``path``; such a download is verified by
    ``content_sha256`` (the sha256 of the uncompressed member), since re-compression does not
    reproduce the mirror's bytes.

    ``derive = "module:function"`` with ``derive_from`` (roles of the dataset's ``derived_from`` files)
    means the file has no download of its own: ``function({role: path}, out)`` writes it from those
    upstream files; the result is verified by ``content_sha256`` too.

    Attributes
    ----------
    role : str
        ``table``, ``ontology``, ``hierarchy``, ``annotations`` or ``labels``; ``ontology`` datasets also
        ``ontology_terms``, ``ontology_obsolete``, ``gpi``, ``positives``, ``instances``.
    path : str
        Relative to the data mirror (or to the manifest's folder when ``bundled``).
    sha256 : str
    url : str
        The upstream copy ("" when there is none).
    size : int, optional
    bundled : bool
        The file lives in the repository's ``datasets/`` folder.
    archive, member, content_sha256 : str
        See above.
    derive : str
        See above.
    derive_from : tuple of str
        See above.

    Examples
    --------
    >>> from kg.datasets import dataset_info
    >>> f = dataset_info("bundled/DM-BP").files["labels"]
    >>> f.role, f.path, f.bundled
    ('labels', 'bundled/DM-BP/labels.tsv', True)
    """

    role: str
    path: str
    sha256: str
    url: str = ""
    size: int | None = None
    bundled: bool = False
    archive: str = ""
    member: str = ""
    content_sha256: str = ""
    derive: str = ""
    derive_from: tuple[str, ...] = ()


def locate_file(root: Path, dataset: str, f: FileInfo, *, mirror, cache: Path, offline: bool,
                timeout: float = 60.0, derive: Callable[[Path], None] | None = None) -> Path:
    """The local, verified path of file ``f`` of ``dataset``: bundled, mirror, cache, else downloaded or derived.

    Parameters
    ----------
    root : Path
        The manifest's folder (where bundled files are).
    dataset : str
        The dataset's name (for messages).
    f : FileInfo
    mirror : str, os.PathLike or None
        The data mirror folder.
    cache : Path
        The user cache (where a download goes).
    offline : bool
        Never download (a missing file is an error naming where it was looked for).
    timeout : float
        Of a download's requests, in seconds.
    derive : callable, optional
        ``derive(out)`` writes the file at ``out`` (``f.derive``'s recipe over its located upstream files):
        called when no copy exists and ``f`` has no download; works offline when the upstream files are in
        the mirror or the cache.

    Returns
    -------
    Path

    Examples
    --------
    >>> locate_file(Path("/no/such"), "x/y", FileInfo("table", "x/y.txt", ""), mirror=None,
    ...             cache=Path("/no/such/cache"), offline=True)
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: dataset 'x/y': file 'x/y.txt' not found (offline); looked in /no/such/cache/x/y.txt; ...
    """
    looked: list[str] = []
    if f.bundled:
        p = _inside(root, dataset, f)
        if p.is_file():
            _verify(p, f)
            return p
        looked.append(str(p))
    if mirror:
        p = _inside(Path(mirror), dataset, f)
        if p.is_file():
            _verify(p, f)
            return p
        looked.append(str(p))
    p = _inside(cache, dataset, f)
    if p.is_file():
        _verify(p, f)
        return p
    looked.append(str(p))
    if derive is not None and f.derive and not f.url:
        _derive(f, p, derive)
        return p
    if offline or not f.url:
        if f.url:  # offline: going online would fetch it
            hint = f"; upstream {f.url}; pass {param('mirror')}/KGFS_DATA_MIRROR or go online"
        else:  # derived by the data mirror's scripts: no download exists, going online cannot help
            hint = (f"; this file has no download of its own (it is derived from its upstreams: `kgfs datasets "
                    f"list {dataset} --json` gives them and its derivation): get the kgfs data mirror, which "
                    f"holds it at {f.path}, and pass {param('mirror')}/KGFS_DATA_MIRROR")
        raise KgfsError(
            f"dataset {dataset!r}: file {f.path!r} not found ({'offline' if offline else 'no upstream URL'}); "
            "looked in " + ", ".join(looked) + hint
        )
    _download(f, p, timeout)
    return p


def _derive(f: FileInfo, dest: Path, derive: Callable[[Path], None]) -> None:
    """Write ``dest`` with ``derive`` atomically; its content verified before it is moved into place."""
    log.info("deriving %s from its upstream files (%s)", f.path, ", ".join(f.derive_from))

    def write(tmp: Path) -> None:
        derive(tmp)
        actual = sha256_file(tmp, gunzip=True) if f.path.endswith(".gz") else sha256_file(tmp)
        if actual != f.content_sha256:
            raise ChecksumError(f"{f.path} derived by {f.derive} from {', '.join(f.derive_from)} has content sha256 "
                                f"{actual}, expected {f.content_sha256} (an upstream file or the recipe changed)")

    atomic_write(dest, write)


def escapes_folder(path: str) -> bool:
    """Whether a manifest path could lead outside its folder: empty, absolute, or with ``..``."""
    p = PurePosixPath(path.replace("\\", "/"))
    return not path.strip() or p.is_absolute() or ".." in p.parts or bool(PureWindowsPath(path).drive)


def _inside(root: Path, dataset: str, f: FileInfo) -> Path:
    """``root / f.path``; an error naming the dataset when it leads outside ``root`` (an absolute
    path, ``..``, or a symbolic link to elsewhere), so no file is read or written there."""
    p = root / f.path
    if escapes_folder(f.path) or not p.resolve().is_relative_to(root.resolve()):
        raise KgfsError(f"dataset {dataset!r}: file {f.role!r} has path {f.path!r}, which leads outside "
                        f"{root} (to {p.resolve()}); refusing to use it")
    return p


def _verify(path: Path, f: FileInfo) -> None:
    if f.sha256:
        actual = _cached_sha(str(path), *stat_key(path))
        if actual == f.sha256:
            return
        if f.content_sha256 and path.suffix == ".gz":
            if sha256_file(path, gunzip=True) == f.content_sha256:
                return
        raise ChecksumError(
            f"checksum mismatch for {path}: expected sha256 {f.sha256}, got {actual} "
            "(a corrupted or different file; delete it to download it again)"
        )
    actual = sha256_file(path, gunzip=True) if path.suffix == ".gz" else sha256_file(path)
    if actual != f.content_sha256:
        raise ChecksumError(
            f"checksum mismatch for {path}: expected content sha256 {f.content_sha256}, got {actual}"
        )


def stat_key(path: Path) -> tuple[int, int]:
    """A file's size and modification time in ns (the key of the caches of its hash and its parsed content)."""
    st = path.stat()
    return st.st_size, st.st_mtime_ns


@lru_cache(maxsize=256)
def _cached_sha(path: str, size: int, mtime_ns: int) -> str:  # key includes size and mtime
    return sha256_file(path)


def _download(f: FileInfo, dest: Path, timeout: float) -> None:
    """Download ``f.url`` to ``dest`` atomically; verified before it is moved into place."""
    import requests

    log.info("downloading %s", f.url)

    def write(tmp: Path) -> None:
        try:
            with requests.get(f.url, stream=True, timeout=timeout) as r:
                r.raise_for_status()
                with open(tmp, "wb") as fh:
                    for chunk in r.iter_content(_CHUNK):
                        fh.write(chunk)
        except (requests.ConnectionError, requests.Timeout) as exc:  # no network: one line saying what to do
            host = urlsplit(f.url).hostname or f.url
            raise KgfsError(f"cannot download {f.path} from {host}: the network is unreachable ({_cause(exc)}); put "
                            f"the file in a data mirror ({param('mirror', 'DIR')} or KGFS_DATA_MIRROR, as "
                            f"DIR/{f.path}) or set KGFS_OFFLINE=1 to never download") from exc
        except requests.RequestException as exc:
            raise KgfsError(f"cannot download {f.url} ({_cause(exc)}); put the file in a data mirror "
                            f"({param('mirror', 'DIR')} or KGFS_DATA_MIRROR, as DIR/{f.path})") from exc
        if f.archive == "zip":
            _unzip_to_gzip(tmp, f)
        if f.sha256 and sha256_file(tmp) == f.sha256:
            return
        if f.content_sha256:
            actual = sha256_file(tmp, gunzip=True) if f.path.endswith(".gz") else sha256_file(tmp)
            if actual == f.content_sha256:
                return
            raise ChecksumError(
                f"checksum mismatch for {f.url}: expected content sha256 {f.content_sha256}, got {actual}"
            )
        raise ChecksumError(
            f"checksum mismatch for {f.url}: expected sha256 {f.sha256}, got {sha256_file(tmp)}"
        )

    atomic_write(dest, write)


def _cause(exc: BaseException) -> str:
    """The innermost reason of a request failure, in a few words (not urllib3's nested reprs).

    Examples
    --------
    >>> _cause(OSError("[Errno -2] Name or service not known"))
    'name or service not known'
    >>> _cause(TimeoutError("read timed out")), _cause(ValueError("odd"))
    ('timed out', 'odd')
    """
    inner = exc
    while inner.__cause__ is not None or inner.__context__ is not None:
        inner = inner.__cause__ or inner.__context__
    text = str(inner)
    for known in ("Name or service not known", "Temporary failure in name resolution", "Connection refused",
                  "Network is unreachable", "timed out", "No route to host"):
        if known.lower() in str(exc).lower() or known.lower() in text.lower():
            return known[0].lower() + known[1:]
    return " ".join(text.split())[:120] or type(inner).__name__


def _unzip_to_gzip(tmp: Path, f: FileInfo) -> None:
    """Replace the downloaded zip at ``tmp`` by its member, gzip-compressed when ``path`` ends in .gz."""
    try:
        with zipfile.ZipFile(tmp) as z:
            names = z.namelist()
            member = f.member if f.member in names else (names[0] if len(names) == 1 else f.member)
            with tempfile.TemporaryFile() as raw:
                with z.open(member) as src:
                    shutil.copyfileobj(src, raw, _CHUNK)
                raw.seek(0)
                opener = gzip.GzipFile(tmp, "wb", mtime=0) if f.path.endswith(".gz") else open(tmp, "wb")
                with opener as out:
                    shutil.copyfileobj(raw, out, _CHUNK)
    except (zipfile.BadZipFile, KeyError) as exc:
        raise KgfsError(f"{f.url}: not the expected zip archive ({exc})") from exc
