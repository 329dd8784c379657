"""The content-addressed store of kgfs: each cached result is a folder named by its inputs' hash.

A *stage* (a step whose result is worth keeping: building a table, fitting a selector, an
evaluation, ...) is named by a *key*, the sha256 of its name and its inputs (upstream records'
content hashes, parameters, and the version of the code it runs, :func:`kg.store.keys.code_version`: the
source of every kgfs module and the versions of the numerical dependencies, so no edit or
upgrade can leave a stale result in use). Its outputs go into ``<root>/<stage>/<key[:24]>/``,
each file written atomically, and ``record.json`` last: a folder without ``record.json`` is
unfinished and is recomputed (the computation may keep finished pieces there, e.g. evaluation
cells, so an interrupted stage resumes). The *record* (:class:`kg.store.records.Record`) is small
and its JSON form is ``record.json``: the stage, its key, its files with their content hash
(:func:`kg.store.records.files_hash`, the same for the same content, so downstream keys do not
change) and each file's sha256, a summary, its inputs, and the record's own sha256 (see
:mod:`kg.store.records`).

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
``<kgfs home>/store``. :func:`kg.store.records.record_valid` checks that a record's files are still there
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
:mod:`selection.evaluation` keys its resumable cells with :func:`kg.store.keys.code_digest` too, and a user of
the library can cache a route's steps (:func:`kg.routes.build_table`) without the application.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

from kg.files import sha256_file
from kg.store.records import (
    Record,
    StoreProblem,
    _record_edited,
    files_hash,
    record_digest,
    record_problems,
    stage_key,
    to_json,
    write_json,
)

__all__ = ["Store"]

Compute = Callable[[Path], "tuple[dict, dict]"]

log = logging.getLogger(__name__)


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
        created = not d.exists()
        d.mkdir(parents=True, exist_ok=True)
        if rec_path.exists():
            rec_path.unlink()
        # temporary files of a writer that was killed (atomic_write's ``.name.*.tmp``): never outputs
        for tmp in d.rglob(".*.tmp"):
            tmp.unlink(missing_ok=True)
        for f in d.rglob("*"):  # files of an earlier result linked to blobs: a writer must not change a blob in place
            if f.is_file() and not f.is_symlink() and f.stat().st_nlink > 1:
                f.unlink()
        try:
            files, summary = compute(d)
        except BaseException:
            if created:  # a stage that failed before writing anything leaves no empty folder behind
                with contextlib.suppress(OSError):
                    d.rmdir()
            raise
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
