"""The content-addressed store of kgfs: each cached result is a folder named by its inputs' hash.

A *stage* (a step whose result is worth keeping: building a table, fitting a selector, an
evaluation, ...) is named by a *key*, the sha256 of its name and its inputs (upstream records'
content hashes, parameters, and the version of the code it runs, :func:`code_version`). Its
outputs go into ``<root>/<stage>/<key[:24]>/``, each file written atomically, and
``record.json`` last: a folder without ``record.json`` is unfinished and is recomputed (the
computation may keep finished pieces there, e.g. evaluation cells, so an interrupted stage
resumes). The *record* is small and JSON-serialisable::

    {"stage", "key", "dir", "files": {role: relative path}, "hash", "summary", "inputs"}

where ``hash`` is :func:`files_hash`, the sha256 over the output files' contents (an ``.npz``
is hashed by its arrays, :func:`content_sha256`, since zip members carry timestamps), so two
computations of the same content have the same hash and downstream keys do not change.

:class:`Store` is the one store of kgfs: ``kgfs run`` keeps its stages in
``<kgfs home>/store``. :func:`record_valid` checks that a record's files are still there
(``verify=True`` also recomputes their content hash).

Examples
--------
>>> import tempfile
>>> store = Store(tempfile.mkdtemp())
>>> def compute(folder):
...     (folder / "n.txt").write_text("42")
...     return {"n": "n.txt"}, {"n": 42}
>>> rec = store.run("answer", {"question": "?"}, compute)
>>> rec["reused"], rec["summary"], sorted(rec["files"])
(False, {'n': 42}, ['n'])
>>> store.run("answer", {"question": "?"}, compute)["reused"]
True
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from kg.files import atomic_write, sha256_file

__all__ = ["STORE_FORMAT", "Store", "code_version", "content_sha256", "files_hash", "record_valid", "stage_key",
           "to_json", "write_json"]

STORE_FORMAT = 1

Compute = Callable[[Path], "tuple[dict, dict]"]


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


def record_valid(record: Mapping | None, *, verify: bool = False) -> bool:
    """True when a record's folder is finished and all its files are on disk.

    Parameters
    ----------
    record : mapping or None
        A record returned by :meth:`Store.run`.
    verify : bool
        Also recompute the files' content hash and compare it with ``record["hash"]`` (reads
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
    if not record or "dir" not in record:
        return False
    d = Path(record["dir"])
    files = record.get("files", {})
    if not ((d / "record.json").is_file() and all((d / f).is_file() for f in files.values())):
        return False
    return not verify or files_hash(d, files) == record.get("hash")


_SOURCE_HASHES: dict[str, str] = {}


def _module_source_hash(name: str) -> str:
    if name not in _SOURCE_HASHES:
        spec = importlib.util.find_spec(name)
        h = hashlib.sha256(name.encode())
        if spec is not None and spec.origin and os.path.isfile(spec.origin):
            h.update(Path(spec.origin).read_bytes())
        _SOURCE_HASHES[name] = h.hexdigest()[:12]
    return _SOURCE_HASHES[name]


def code_version(stage: str, modules: Sequence[str]) -> str:
    """A string naming the code a stage runs: the kgfs version plus its modules' source hashes.

    Part of a stage's inputs, so that editing the code recomputes exactly the stages that run
    it. The modules are found without being imported (their files are read once per process).

    Parameters
    ----------
    stage : str
    modules : sequence of str
        Dotted module names (``"kg.table"``); duplicates and order do not matter.

    Returns
    -------
    str
        ``kgfs-<version>-store<format>-<stage>-<16 hex digits>``.

    Examples
    --------
    >>> v = code_version("table", ["kg.table", "kg.hierarchy"])
    >>> v.startswith("kgfs-") and "-table-" in v and v == code_version("table", ["kg.hierarchy", "kg.table"])
    True
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        v = version("kgfs")
    except PackageNotFoundError:  # running from a source tree
        v = "0+src"
    mods = sorted(set(modules))
    digest = hashlib.sha256("|".join(f"{m}={_module_source_hash(m)}" for m in mods).encode()).hexdigest()[:16]
    return f"kgfs-{v}-store{STORE_FORMAT}-{stage}-{digest}"


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
    >>> [r["stage"] for r in store.records()], store.clear(), store.records()
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

    def run(self, stage: str, inputs: Mapping, compute: Compute, *, force: bool = False) -> dict:
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
        dict
            The record, plus ``"reused"`` (whether it came from the store).

        Examples
        --------
        >>> import tempfile
        >>> store = Store(tempfile.mkdtemp())
        >>> a = store.run("s", {}, lambda d: ({"f": "f.txt"}, {"n": (d / "f.txt").write_text("x")}))
        >>> b = store.run("s", {}, lambda d: ({"f": "f.txt"}, {"n": (d / "f.txt").write_text("x")}), force=True)
        >>> a["hash"] == b["hash"], b["reused"]
        (True, False)
        """
        inputs = dict(inputs)
        key = stage_key(stage, inputs)
        d = self.folder(stage, key)
        rec_path = d / "record.json"
        if not force and rec_path.is_file():
            try:
                rec = json.loads(rec_path.read_text(encoding="utf-8"))
                if rec.get("key") == key and record_valid(rec):
                    rec["reused"] = True
                    return rec
            except (OSError, ValueError):
                pass  # unreadable record: recompute
        d.mkdir(parents=True, exist_ok=True)
        if rec_path.exists():
            rec_path.unlink()
        # temporary files of a writer that was killed (atomic_write's ``.name.*.tmp``): never outputs
        for tmp in d.rglob(".*.tmp"):
            tmp.unlink(missing_ok=True)
        files, summary = compute(d)
        rec = {"stage": stage, "key": key, "dir": str(d), "files": dict(sorted(files.items())),
               "hash": files_hash(d, files), "summary": summary, "inputs": inputs}
        write_json(rec_path, rec)
        rec = json.loads(to_json(rec))  # exactly what a reuse reads back (tuples become lists, ...)
        rec["reused"] = False
        return rec

    def records(self) -> list[dict]:
        """Every finished record of the store, with its folder's size (``bytes``) and ``mtime``.

        Returns
        -------
        list of dict
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
                rec = json.loads(rec_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            rec["bytes"] = sum(p.stat().st_size for p in rec_path.parent.rglob("*") if p.is_file())
            rec["mtime"] = rec_path.stat().st_mtime
            out.append(rec)
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
        targets = [self.root / stage] if stage else [p for p in self.root.iterdir() if p.is_dir()]
        n = 0
        for t in targets:
            if t.is_dir():
                n += sum(1 for p in t.iterdir() if p.is_dir())
                shutil.rmtree(t)
        return n
