"""A stage's record: its JSON form, the content hashes it carries, and the checks that it can be reused.

The *record* (:class:`Record`) of a finished stage (:mod:`kg.store.store`) is small and its JSON form
is the stage folder's ``record.json``::

    {"stage", "key", "dir", "files": {role: relative path}, "hash", "sha256": {role: hex},
     "summary", "inputs", "record_sha256"}

where ``key`` is :func:`stage_key`; ``hash`` is :func:`files_hash`, the sha256 over the output files'
contents (an ``.npz`` is hashed by its arrays, :func:`content_sha256`, since zip members carry
timestamps), so two computations of the same content have the same hash and downstream keys do not
change; and ``sha256`` holds each file's own sha256; ``record_sha256`` is :func:`record_digest`, the
sha256 of the record itself (all but ``dir``, which follows the folder), so an edit of ``record.json``
that keeps it valid JSON (a count in its summary) is seen too.

:func:`record_problems` says what keeps a record from being reused (a missing file, a changed
content, as :class:`StoreProblem`), :func:`record_valid` whether it can be; :func:`to_json` and
:func:`write_json` are the JSON writers of the store.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "f.txt").write_text("x")
>>> rec = Record("s", "k", str(d), {"f": "f.txt"}, files_hash(d, {"f": "f.txt"}))
>>> [p.problem for p in record_problems(rec)]
['no record.json (unfinished or removed)']
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from kg.files import atomic_write, sha256_file
from kg.store.keys import STORE_FORMAT

__all__ = ["Record", "StoreProblem", "content_sha256", "files_hash", "record_digest", "record_problems",
           "record_valid", "stage_key", "to_json", "write_json"]


def _jsonable(o):
    if isinstance(o, Path):
        return str(o)
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    raise TypeError(f"not JSON-serialisable: {type(o).__name__}")


def to_json(obj) -> str:
    """JSON text with sorted keys (numpy scalars and arrays, paths and sets are converted).

    Parameters
    ----------
    obj : JSON-like
        Dicts, lists, strings, numbers; numpy values, ``Path`` and ``set`` are converted.

    Returns
    -------
    str

    Examples
    --------
    >>> import numpy as np
    >>> print(to_json({"b": np.int64(2), "a": {"y", "x"}}))
    {
     "a": [
      "x",
      "y"
     ],
     "b": 2
    }
    """
    return json.dumps(obj, sort_keys=True, default=_jsonable, indent=1)


def write_json(path: str | os.PathLike, obj) -> None:
    """Write :func:`to_json` of ``obj`` (and a newline) to ``path`` atomically.

    Parameters
    ----------
    path : str or os.PathLike
    obj : JSON-like

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.json"
    >>> write_json(p, {"n": 1})
    >>> json.loads(p.read_text())
    {'n': 1}
    """
    text = to_json(obj)
    atomic_write(path, lambda tmp: tmp.write_text(text + "\n", encoding="utf-8"))


@dataclass(frozen=True)
class Record:
    """A finished stage result: where its files are, their content hash, a small summary, its inputs.

    Its JSON form (:meth:`to_json`) is the stage folder's ``record.json``; ``reused`` (whether
    the result came from the store) belongs to one run, not to the record, and is not written.

    Attributes
    ----------
    stage, key : str
        The stage's name and key (:func:`stage_key`).
    dir : str
        The stage folder.
    files : dict
        Role -> path relative to ``dir``.
    hash : str
        :func:`files_hash` of the files (what downstream keys use).
    sha256 : dict
        Role -> the file's own sha256.
    summary : dict
        A small JSON-like summary (counts, parameters).
    inputs : dict
        The inputs the key was made of.
    reused : bool
        Whether :meth:`Store.run` took it from the store.

    Examples
    --------
    >>> r = Record("s", "ab", "/st/s/ab", {"f": "f.txt"}, "h", {"f": "x"}, {"n": 1}, {})
    >>> r.path("f").as_posix(), Record.from_json(r.to_json()) == r
    ('/st/s/ab/f.txt', True)
    """

    stage: str
    key: str
    dir: str
    files: dict
    hash: str
    sha256: dict = field(default_factory=dict)
    summary: dict = field(default_factory=dict)
    inputs: dict = field(default_factory=dict)
    reused: bool = field(default=False, compare=False)

    def path(self, role: str) -> Path:
        """The file of ``role``."""
        return Path(self.dir) / self.files[role]

    def to_json(self) -> dict:
        """The record as ``record.json`` holds it (without ``reused``)."""
        return {"stage": self.stage, "key": self.key, "dir": self.dir, "files": dict(self.files), "hash": self.hash,
                "sha256": dict(self.sha256), "summary": self.summary, "inputs": self.inputs}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, reused: bool = False) -> Record:
        """A record from its JSON form (a ``record.json``; unknown keys are ignored)."""
        return cls(stage=str(data.get("stage", "")), key=str(data.get("key", "")), dir=str(data.get("dir", "")),
                   files=dict(data.get("files") or {}), hash=str(data.get("hash", "")),
                   sha256=dict(data.get("sha256") or {}) if isinstance(data.get("sha256"), Mapping) else {},
                   summary=dict(data.get("summary") or {}), inputs=dict(data.get("inputs") or {}), reused=reused)

    def with_reused(self, reused: bool) -> Record:
        """The same record, marked as taken from the store (or not)."""
        return Record(**{**self.__dict__, "reused": bool(reused)})


def stage_key(stage: str, inputs: Mapping) -> str:
    """The key of a stage: sha256 of the store format, the stage name and its inputs.

    Parameters
    ----------
    stage : str
    inputs : mapping
        JSON-like values (sorted lists, not sets: the key must be the same in every process).

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> stage_key("select", {"k": 1}) == stage_key("select", {"k": 1}) != stage_key("select", {"k": 2})
    True
    """
    payload = {"format": STORE_FORMAT, "stage": stage, "inputs": inputs}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=_jsonable).encode()).hexdigest()


def content_sha256(path: str | os.PathLike) -> str:
    """The sha256 of a file's content; for ``.npz`` of its arrays (zip members carry timestamps).

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    str

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> np.savez(d / "a.npz", x=np.arange(3))
    >>> content_sha256(d / "a.npz") == content_sha256(d / "a.npz")
    True
    """
    path = Path(path)
    if path.suffix != ".npz":
        return sha256_file(path)
    h = hashlib.sha256()
    with np.load(path, allow_pickle=False) as z:
        for name in sorted(z.files):
            a = z[name]
            h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
            h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def files_hash(folder: str | os.PathLike, files: Mapping[str, str]) -> str:
    """The content hash of a record: sha256 over its files' roles and :func:`content_sha256`.

    Parameters
    ----------
    folder : str or os.PathLike
        The stage folder.
    files : mapping
        Role -> path relative to ``folder``.

    Returns
    -------
    str

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.txt").write_text("x")
    >>> files_hash(d, {"a": "a.txt"}) == files_hash(d, {"a": "a.txt"}) != files_hash(d, {"b": "a.txt"})
    True
    """
    h = hashlib.sha256()
    for role in sorted(files):
        h.update(role.encode() + b"\0" + content_sha256(Path(folder) / files[role]).encode() + b"\0")
    return h.hexdigest()


def record_digest(data: Mapping) -> str:
    """The sha256 of a record's JSON form, but for ``dir`` (where it is now) and ``record_sha256`` (this digest).

    Parameters
    ----------
    data : mapping
        A record as ``record.json`` holds it.

    Returns
    -------
    str

    Examples
    --------
    >>> a = {"stage": "s", "key": "k", "dir": "/a", "summary": {"n_selected": 105}}
    >>> record_digest(a) == record_digest({**a, "dir": "/b"}) != record_digest({**a, "summary": {"n_selected": 104}})
    True
    """
    body = {k: v for k, v in data.items() if k not in ("dir", "record_sha256")}
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=_jsonable).encode()).hexdigest()


def _record_edited(data: Mapping) -> str | None:
    """Why a ``record.json``'s content cannot be trusted (None: it has its own sha256)."""
    if "record_sha256" not in data:
        return "the record has no sha256 of its own (written by an older kgfs)"
    if data["record_sha256"] != record_digest(data):
        return "record.json was changed since it was written (it does not have its recorded sha256)"
    return None


class StoreProblem(NamedTuple):
    """A stage folder that cannot be reused, and why (from :meth:`Store.verify`).

    Attributes
    ----------
    folder : Path
        The stage folder.
    file : Path or None
        The file at fault (None when the whole record is).
    problem : str
        What is wrong (``"missing"``, ``"content differs from its record (sha256 ...)"``, ...).

    Examples
    --------
    >>> str(StoreProblem(Path("/s/table/ab"), Path("/s/table/ab/table.npz"), "missing"))
    '/s/table/ab/table.npz: missing'
    """

    folder: Path
    file: Path | None
    problem: str

    def __str__(self) -> str:
        return f"{self.file or self.folder}: {self.problem}"


def record_problems(record: Record | Mapping, *, verify: bool = True) -> list[StoreProblem]:
    """What keeps a finished record from being reused: missing files or changed contents.

    Parameters
    ----------
    record : Record or mapping
        A record returned by :meth:`Store.run`, or the JSON of a ``record.json``.
    verify : bool
        Also compare each file's sha256 with the one in the record (reads every file; the
        record of an older store without per-file hashes is compared by its ``hash``).

    Returns
    -------
    list of StoreProblem
        Empty when the record can be reused.

    Examples
    --------
    >>> [p.problem for p in record_problems({"dir": "/no/such", "files": {"f": "f.txt"}})]
    ['no record.json (unfinished or removed)', 'missing']
    """
    if not isinstance(record, Record):
        record = Record.from_json(record)
    d = Path(record.dir)
    files = dict(record.files)
    out = [] if (d / "record.json").is_file() else [StoreProblem(d, None, "no record.json (unfinished or removed)")]
    missing = {role for role, rel in files.items() if not (d / rel).is_file()}
    out += [StoreProblem(d, d / files[role], "missing") for role in sorted(missing)]
    if not verify or missing:
        return out
    if not record.sha256:
        if files_hash(d, files) != record.hash:
            out.append(StoreProblem(d, None, "files differ from the record's content hash"))
        return out
    for role in sorted(files):
        actual = sha256_file(d / files[role])
        if actual != record.sha256.get(role):
            out.append(StoreProblem(d, d / files[role], f"content differs from its record (sha256 {actual[:12]}..., "
                                                        f"recorded {str(record.sha256.get(role))[:12]}...)"))
    return out


def record_valid(record: Record | Mapping | None, *, verify: bool = False) -> bool:
    """True when a record's folder is finished and all its files are on disk.

    Parameters
    ----------
    record : Record, mapping or None
        A record returned by :meth:`Store.run`.
    verify : bool
        Also check the files' contents against the record (:func:`record_problems`; reads
        every file).

    Returns
    -------
    bool
        ``False`` for ``None``, a record of a cleared store, or (with ``verify``) changed files.

    Examples
    --------
    >>> record_valid(None), record_valid({"dir": "/no/such/folder", "files": {}})
    (False, False)
    """
    if not record:
        return False
    return not record_problems(record, verify=verify)
