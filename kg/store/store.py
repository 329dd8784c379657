"""The content-addressed store of kgfs: each cached result is a folder named by its inputs' hash.

A *stage* (a step whose result is worth keeping: building a table, fitting a selector, an
evaluation, ...) is named by a *key*, the sha256 of its name and its inputs (upstream records'
content hashes, parameters, and the version of the code it runs, :func:`kg.store.keys.code_version`: the
source of every kgfs module and the versions of the numerical dependencies, so no edit or
upgrade can leave a stale result in use). Its outputs go into ``<root>/<stage>/<key[:24]>/``,
each file written atomically, and ``record.json`` last: a folder without ``record.json`` is
unfinished and is recomputed (the computation may keep finished pieces there, e.g. evaluation
cells, so an interrupted stage resumes). The *record* (:class:`Record`) is small and its JSON
form is ``record.json``::

    {"stage", "key", "dir", "files": {role: relative path}, "hash", "sha256": {role: hex},
     "summary", "inputs", "record_sha256"}

where ``hash`` is :func:`files_hash`, the sha256 over the output files' contents (an ``.npz``
is hashed by its arrays, :func:`content_sha256`, since zip members carry timestamps), so two
computations of the same content have the same hash and downstream keys do not change; and
``sha256`` holds each file's own sha256; ``record_sha256`` is :func:`record_digest`, the sha256 of
the record itself (all but ``dir``, which follows the folder), so an edit of ``record.json`` that
keeps it valid JSON (a count in its summary) is seen too.

**One copy of identical content**: every output file is also a hard link to a content-addressed
blob, ``<root>/blobs/<sha[:2]>/<sha256>``; a file whose content is already there is replaced by
a link to it, so the same 97 MB export written by ten parameter changes takes 97 MB once
(:meth:`Store.run`). A stage folder still holds its files under their names (its readers see
plain files); a blob that no stage folder uses any more is removed by :meth:`Store.clear` and
:meth:`Store.verify` (``remove=True``; a damaged blob damages the files of every stage linked to it, and
each of them is reported). Before a stage is computed
again in its folder, its linked files are unlinked there (a computation writing a file in place
must never change a blob). Where hard links are not possible the files stay plain copies.

A finished folder is reused only when its record has its own sha256 and every file still has the
sha256 of its record; otherwise a warning names the file and the stage is computed again. Each reuse so reads its
files: 0.8 ms for the five records of the bundled run (0.66 MB), 0.5 ms more than checking
that they exist, and about 0.08 s per 100 MB. :meth:`Store.verify` checks the whole store
(``kgfs cache verify``).

:class:`Store` is the one store of kgfs: ``kgfs run`` keeps its stages in
``<kgfs home>/store``. :func:`record_valid` checks that a record's files are still there
(``verify=True`` also checks their content).

Examples
--------
>>> import tempfile
>>> store = Store(tempfile.mkdtemp())
>>> def compute(folder):
...     (folder / "n.txt").write_text("42")
...     return {"n": "n.txt"}, {"n": 42}
>>> rec = store.run("answer", {"question": "?"}, compute)
>>> rec.reused, rec.summary, sorted(rec.files), rec.path("n").read_text()
(False, {'n': 42}, ['n'], '42')
>>> store.run("answer", {"question": "?"}, compute).reused
True

Why it lives in ``kg`` (the library) and not in ``flows`` (the application): the evaluation grid of
:mod:`selection.evaluation` keys its resumable cells with :func:`code_digest` too, and a user of
the library can cache a route's steps (:func:`kg.routes.build_table`) without the application.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from kg.files import atomic_write, sha256_file
from kg.store.keys import (  # what a key covers: re-exported (the store's keys are made of them)
    KEY_DEPENDENCIES,
    SOURCE_PACKAGES,
    STORE_FORMAT,
    code_digest,
    code_version,
    dependency_versions,
    source_digest,
)

__all__ = ["KEY_DEPENDENCIES", "SOURCE_PACKAGES", "STORE_FORMAT", "Record", "Store", "StoreProblem", "code_digest",
           "code_version", "content_sha256", "dependency_versions", "files_hash", "record_digest", "record_problems",
           "record_valid", "source_digest", "stage_key", "to_json", "write_json"]

Compute = Callable[[Path], "tuple[dict, dict]"]

log = logging.getLogger(__name__)


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


def _reusable(stage: str, key: str, d: Path) -> Record | None:
    """The finished record in folder ``d`` when it is this stage's and its files verify; else None,
    with a warning naming what is wrong (the stage is then computed again)."""
    rec_path = d / "record.json"
    try:
        data = json.loads(rec_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        log.warning("%s is unreadable (%s); computing the %s stage again", rec_path, exc, stage)
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        log.warning("%s is not the record of this %s stage; computing it again", rec_path, stage)
        return None
    edited = _record_edited(data)
    if edited:
        log.warning("%s: %s; computing the %s stage again", rec_path, edited, stage)
        return None
    rec = Record.from_json({**data, "dir": str(d)}, reused=True)  # where it is now (a kgfs home may have moved)
    problems = record_problems(rec)
    for p in problems:
        log.warning("%s; computing the %s stage again", p, stage)
    return None if problems else rec


class Store:
    """A folder of stage results, each in ``<root>/<stage>/<key[:24]>/`` with its ``record.json``.

    Parameters
    ----------
    root : str or os.PathLike
        The store's folder (created on the first write).

    Examples
    --------
    >>> import tempfile
    >>> store = Store(tempfile.mkdtemp())
    >>> rec = store.run("s", {"x": 1}, lambda d: ({"f": "f.txt"}, {"bytes": (d / "f.txt").write_text("1")}))
    >>> [r.stage for r in store.records()], store.clear(), store.records()
    (['s'], 1, [])
    """

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r})"

    def folder(self, stage: str, key: str) -> Path:
        """The folder of a stage's result.

        Parameters
        ----------
        stage : str
        key : str
            From :func:`stage_key`.

        Returns
        -------
        Path

        Examples
        --------
        >>> Store("/s").folder("table", "ab" * 32).as_posix()
        '/s/table/abababababababababababab'
        """
        return self.root / stage / key[:24]

    def run(self, stage: str, inputs: Mapping, compute: Compute, *, force: bool = False) -> Record:
        """The stage's record: reused when a finished copy exists, else computed into the store.

        Parameters
        ----------
        stage : str
            The stage's name (its folder under the root).
        inputs : mapping
            Everything that decides the result (see :func:`stage_key`); kept in the record.
        compute : callable
            ``compute(folder) -> (files, summary)``: writes the outputs into ``folder`` (which
            may hold pieces of an interrupted earlier attempt) and returns role -> relative path
            and a small JSON-like summary.
        force : bool
            Recompute even when a finished copy exists.

        Returns
        -------
        Record
            Its ``reused`` says whether it came from the store.

        Examples
        --------
        >>> import tempfile
        >>> store = Store(tempfile.mkdtemp())
        >>> a = store.run("s", {}, lambda d: ({"f": "f.txt"}, {"n": (d / "f.txt").write_text("x")}))
        >>> b = store.run("s", {}, lambda d: ({"f": "f.txt"}, {"n": (d / "f.txt").write_text("x")}), force=True)
        >>> a.hash == b.hash, b.reused
        (True, False)
        """
        inputs = dict(inputs)
        rec = None if force else self.lookup(stage, inputs)
        if rec is not None:
            return rec
        key = stage_key(stage, inputs)
        d, rec_path = self.folder(stage, key), self.folder(stage, key) / "record.json"
        d.mkdir(parents=True, exist_ok=True)
        if rec_path.exists():
            rec_path.unlink()
        # temporary files of a writer that was killed (atomic_write's ``.name.*.tmp``): never outputs
        for tmp in d.rglob(".*.tmp"):
            tmp.unlink(missing_ok=True)
        for f in d.rglob("*"):  # files of an earlier result linked to blobs: a writer must not change a blob in place
            if f.is_file() and not f.is_symlink() and f.stat().st_nlink > 1:
                f.unlink()
        files, summary = compute(d)
        sha = {role: sha256_file(d / rel) for role, rel in files.items()}
        for role, rel in files.items():
            self._share(d / rel, sha[role])
        rec = {"stage": stage, "key": key, "dir": str(d), "files": dict(sorted(files.items())),
               "hash": files_hash(d, files), "sha256": sha, "summary": summary, "inputs": inputs}
        rec = json.loads(to_json(rec))  # exactly what a reuse reads back (tuples become lists)
        rec["record_sha256"] = record_digest(rec)
        write_json(rec_path, rec)
        return Record.from_json(rec)

    # ------------------------------------------------------------------ one copy of identical content
    def blob(self, sha256: str) -> Path:
        """Where the content of sha256 ``sha256`` is kept (``<root>/blobs/<sha[:2]>/<sha>``).

        Examples
        --------
        >>> Store("/s").blob("ab" * 32).as_posix()
        '/s/blobs/ab/abababababababababababababababababababababababababababababababab'
        """
        return self.root / "blobs" / sha256[:2] / sha256

    def _share(self, path: Path, sha256: str) -> None:
        """Make ``path`` a hard link to the blob of its content (the blob is made from it when new)."""
        blob = self.blob(sha256)
        try:
            if blob.is_file():
                same = blob.stat().st_ino == path.stat().st_ino
                if not same and blob.stat().st_size == path.stat().st_size and sha256_file(blob) == sha256:
                    tmp = path.with_name(f".{path.name}.link.tmp")
                    tmp.unlink(missing_ok=True)
                    os.link(blob, tmp)
                    os.replace(tmp, path)  # the stage's file is now the one copy
                elif not same:  # a damaged blob: this file's content replaces it
                    log.warning("%s does not hold the content its name says; replaced", blob)
                    blob.unlink()
                    os.link(path, blob)
            else:
                blob.parent.mkdir(parents=True, exist_ok=True)
                os.link(path, blob)
        except OSError as exc:  # no hard links here (another file system, a limit): keep the plain file
            log.debug("no shared copy of %s: %s", path, exc)

    def prune_blobs(self) -> int:
        """Remove the blobs no stage folder links to any more; returns how many.

        Examples
        --------
        >>> import tempfile
        >>> store = Store(tempfile.mkdtemp())
        >>> _ = store.run("s", {}, lambda d: ({"f": "f.txt"}, {"n": (d / "f.txt").write_text("x")}))
        >>> store.clear("s"), store.prune_blobs(), list((store.root / "blobs").rglob("*.*"))
        (1, 0, [])
        """
        n = 0
        root = self.root / "blobs"
        if not root.is_dir():
            return 0
        for b in root.glob("*/*"):
            try:
                if b.is_file() and b.stat().st_nlink <= 1:
                    b.unlink()
                    n += 1
            except OSError:
                continue
        return n

    def lookup(self, stage: str, inputs: Mapping) -> Record | None:
        """The finished record of ``stage`` for ``inputs`` if its files verify (``reused`` set), else None.

        Reads only: nothing is created or removed (see :meth:`run`, which this serves).

        Parameters
        ----------
        stage : str
        inputs : mapping
            As for :meth:`run`.

        Returns
        -------
        dict or None

        Examples
        --------
        >>> import tempfile
        >>> Store(tempfile.mkdtemp()).lookup("s", {}) is None
        True
        """
        key = stage_key(stage, dict(inputs))
        d = self.folder(stage, key)
        return _reusable(stage, key, d) if (d / "record.json").is_file() else None

    def verify(self, *, remove: bool = False) -> list[StoreProblem]:
        """Check every finished stage folder of the store against its record (``kgfs cache verify``).

        Each file's content is compared with the sha256 in ``record.json``; unfinished folders
        (no ``record.json`` yet: interrupted, or being computed) are not checked.

        Parameters
        ----------
        remove : bool
            Also delete the folders with problems (the next run computes them again).

        Returns
        -------
        list of StoreProblem
            Empty when every record can be reused.

        Examples
        --------
        >>> import tempfile
        >>> store = Store(tempfile.mkdtemp())
        >>> rec = store.run("s", {}, lambda d: ({"f": "f.txt"}, {"n": (d / "f.txt").write_text("1")}))
        >>> store.verify()
        []
        >>> _ = rec.path("f").write_text("2")
        >>> [p.file.name for p in store.verify(remove=True)], store.records()
        (['f.txt'], [])
        """
        problems: list[StoreProblem] = []
        if not self.root.is_dir():
            return problems
        for rec_path in sorted(p for p in self.root.glob("*/*/record.json") if p.parent.parent.name != "blobs"):
            d = rec_path.parent
            try:
                rec = json.loads(rec_path.read_text(encoding="utf-8"))
                found = [] if isinstance(rec, dict) else [StoreProblem(d, rec_path, "not a record")]
            except (OSError, ValueError) as exc:
                found = [StoreProblem(d, rec_path, f"unreadable record ({exc})")]
            if not found and (rec.get("stage") != d.parent.name or not str(rec.get("key", "")).startswith(d.name)):
                found = [StoreProblem(d, rec_path, "the record of another stage folder")]
            if not found and _record_edited(rec):
                found = [StoreProblem(d, rec_path, _record_edited(rec))]
            if not found:
                found = record_problems(Record.from_json({**rec, "dir": str(d)}))
            if found and remove:
                shutil.rmtree(d, ignore_errors=True)
            problems += found
        if remove:
            self.prune_blobs()
        return problems

    def verify_summary(self, *, remove: bool = False) -> tuple[list[StoreProblem], str]:
        """:meth:`verify`, and the line that sums it up (``kgfs cache verify`` prints it).

        Parameters
        ----------
        remove : bool
            Also delete the folders with problems.

        Returns
        -------
        tuple of (list of StoreProblem, str)

        Examples
        --------
        >>> Store("/no/such/store").verify_summary()
        ([], 'checked 0 cached stage folder(s) in /no/such/store: ok')
        """
        n, problems = len(self.records()), self.verify(remove=remove)
        bad = len({p.folder for p in problems})
        outcome = "ok" if not bad else f"{bad} cannot be reused" + (
            ", removed (the next run computes them again)" if remove else "; --remove deletes them")
        return problems, f"checked {n} cached stage folder(s) in {self.root}: {outcome}"

    def records(self) -> list[Record]:
        """Every finished record of the store (its ``dir`` where it is now).

        Returns
        -------
        list of Record
            Sorted by stage and key; unreadable records are skipped.

        Examples
        --------
        >>> Store("/no/such/store").records()
        []
        """
        out = []
        if not self.root.is_dir():
            return out
        for rec_path in sorted(self.root.glob("*/*/record.json")):
            try:
                data = json.loads(rec_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict):
                out.append(Record.from_json({**data, "dir": str(rec_path.parent)}))
        return out

    def clear(self, stage: str | None = None) -> int:
        """Remove every stage folder (or one stage's); returns how many folders were removed.

        Parameters
        ----------
        stage : str, optional

        Returns
        -------
        int

        Examples
        --------
        >>> Store("/no/such/store").clear()
        0
        """
        if not self.root.is_dir():
            return 0
        targets = [self.root / stage] if stage else [p for p in self.root.iterdir() if p.is_dir() and p.name != "blobs"]
        n = 0
        for t in targets:
            if t.is_dir():
                n += sum(1 for p in t.iterdir() if p.is_dir())
                shutil.rmtree(t)
        self.prune_blobs()
        return n
