"""What a pipeline run leaves for a person: its output folder and ``run.json``.

A run is a set of stage *records* (:mod:`kg.store.records`), one per stage name (``facts``, ``table``,
``select``, ``evaluate``, ``export``, ...), plus per stage whether it was reused and how long it
took (*runinfo*). :func:`publish` copies the records' files into the output folder under the
names of :data:`OUTPUTS` (the evaluation's PNG plots under ``plots/``) and writes ``run.json``;
the run's report is :func:`flows.publishing.report.run_markdown`.

The output folder is replaced as a whole: the run is written into a fresh hidden sibling
(``.<name>.kgfs-new-<random>``) and swapped in at once (Linux ``renameat2(RENAME_EXCHANGE)``;
elsewhere two renames, the old folder parked as ``.<name>.kgfs-old-<random>``), so a reader or a
kill at any moment sees one run's files, whole, or the previous run's, never a mix, and files of
earlier runs that this run did not write are gone. A kill can leave hidden siblings behind (or,
between the two renames, no folder); the next :func:`publish` to that folder removes them (or puts
the previous folder back first). A sibling that a live publisher holds (an exclusive ``flock`` on
the folder) is left alone. Files a person added to an output folder (names that are not kgfs's:
``run.json``, the outputs its ``run.json`` lists, :data:`OUTPUTS`, ``plots/``) are carried over;
an existing folder that is not a kgfs output folder (no ``run.json``) and is not empty is refused.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "s.csv").write_text("feature\\nGO:1\\n")
>>> from kg.store import Record
>>> records = {"select": Record("select", "k", str(d), {"selected": "s.csv"}, "h")}
>>> sorted(publish(records, d / "out", {"selector": "complete"}))
['run.json', 'selected_features.csv']
>>> records = {"select": Record("select", "k", str(d), {"selection": "s.csv"}, "h")}  # a second run: another file
>>> sorted(publish(records, d / "out", {"selector": "complete"})), sorted(p.name for p in (d / "out").iterdir())
(['run.json', 'selection.csv'], ['run.json', 'selection.csv'])
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import secrets
import shutil
import stat
import sys
from collections.abc import Mapping
from pathlib import Path

from kg.errors import KgfsError
from kg.files import sha256_file
from kg.store.records import Record, to_json

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no locks, a concurrent publisher may lose its sibling
    fcntl = None

__all__ = ["OUTPUTS", "RUN_FILE", "publish"]

# output file name in the user's folder <- (stage, file role of its record)
OUTPUTS = {
    "table.arff": ("export", "arff"), "table.sparse.arff": ("export", "arff_sparse"), "table.csv": ("export", "csv"),
    "hierarchy.csv": ("export", "edges"), "table.selected.arff": ("export", "arff_selected"),
    "hierarchy.selected.csv": ("export", "edges_selected"), "table.npz": ("table", "table"),
    "selected_features.csv": ("select", "selected"), "selection.csv": ("select", "selection"),
    "evaluation.csv": ("evaluate", "evaluation"), "baseline.csv": ("evaluate", "baseline"),
    "summary.csv": ("evaluate", "summary"), "stats.md": ("evaluate", "stats"), "report.md": ("evaluate", "report"),
    "answer.json": ("evaluate", "answer"),
}
RUN_FILE = "run.json"

_use_exchange = True  # False: the two-rename swap of systems without RENAME_EXCHANGE (tests set it)


def publish(records: Mapping[str, Record], out_dir: str | os.PathLike, params: Mapping | None = None,
            runinfo: Mapping[str, Mapping] | None = None,
            extra: Mapping[str, str | bytes] | None = None) -> dict[str, Path]:
    """Replace ``out_dir`` by a folder of the records' files and ``run.json``, in one swap (module doc).

    Parameters
    ----------
    records : mapping
        Stage name -> :class:`~kg.store.Record`.
    out_dir : str or os.PathLike
        The output folder: created when missing; an existing kgfs output folder is replaced (the
        files a person added are kept); any other non-empty folder is refused.
    params : mapping, optional
        The run's parameters (in ``run.json``).
    runinfo : mapping, optional
        Stage name -> extra fields for ``run.json`` (e.g. ``reused``, ``seconds``).
    extra : mapping, optional
        Output name (a relative path: ``report.html``, ``notes/x.csv``) -> content (text or bytes)
        made for this run, written beside the records' files and listed in ``run.json`` like them.

    Returns
    -------
    dict
        Output name (:data:`OUTPUTS`, ``plots/<name>.png``, ``run.json``) -> path. ``run.json``
        lists the outputs and their sha256 (``files``).

    Raises
    ------
    KgfsError
        ``out_dir`` is a file, the current folder or one above it, or a folder with files that is
        not a kgfs output folder.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> _ = publish({}, out, {"dataset": "d"})
    >>> json.loads((out / "run.json").read_text())
    {'files': {}, 'outputs': [], 'params': {'dataset': 'd'}, 'stages': {}}
    >>> _ = (out / "notes.txt").write_text("mine")
    >>> _ = publish({}, out, {"dataset": "e"})
    >>> (out / "notes.txt").read_text(), json.loads((out / "run.json").read_text())["params"]
    ('mine', {'dataset': 'e'})
    """
    out = check_output_folder(out_dir)
    _recover(out)
    previous = _kgfs_names(out)
    new = _sibling(out, "new")
    locks = [_lock(new)]
    try:
        if previous is not None:
            os.chmod(new, stat.S_IMODE(out.stat().st_mode))  # the folder keeps its permissions
        sources = dict(OUTPUTS)
        ev = records.get("evaluate")
        sources.update({f"plots/{role[5:]}": ("evaluate", role) for role in sorted(ev.files if ev else ())
                        if role.startswith("plot:")})
        hashes: dict[str, str] = {}
        for name, (stage, role) in sources.items():
            rec = records.get(stage)
            if rec and role in rec.files:
                (new / name).parent.mkdir(exist_ok=True)
                shutil.copyfile(rec.path(role), new / name)
                # a byte copy of a stored file whose sha256 the record holds (verified when reused)
                hashes[name] = rec.sha256.get(role) or sha256_file(new / name)
        for name, content in sorted((extra or {}).items()):
            target = new / name
            if Path(name).is_absolute() or ".." in Path(name).parts:
                raise ValueError(f"an extra output must be a relative path inside the folder, got {name!r}")
            target.parent.mkdir(parents=True, exist_ok=True)
            (target.write_bytes if isinstance(content, bytes) else
             lambda c, t=target: t.write_text(c, encoding="utf-8"))(content)
            hashes[name] = sha256_file(target)
        if previous is not None:
            _carry_over(out, new, previous | set(sources) | {str(n).split("/")[0] for n in (extra or {})})
        run = {"params": dict(params or {}),
               "stages": {k: {"key": v.key, "hash": v.hash, "dir": v.dir, "summary": v.summary,
                              **dict((runinfo or {}).get(k, {}))} for k, v in records.items() if v},
               "outputs": sorted(hashes), "files": hashes}
        (new / RUN_FILE).write_text(to_json(run) + "\n", encoding="utf-8")  # last: the folder is complete
        if previous is not None:
            locks.append(_lock(out))
        old = _swap(new, out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise
    finally:
        for fd in locks:
            os.close(fd)
    return {name: out / name for name in [*hashes, RUN_FILE]}


def check_output_folder(out_dir: str | os.PathLike) -> Path:
    """The absolute folder :func:`publish` will replace (a symbolic link is followed), checked before a run.

    Parameters
    ----------
    out_dir : str or os.PathLike

    Returns
    -------
    Path

    Raises
    ------
    KgfsError
        ``out_dir`` is a file, the current folder or one above it, or a folder with files that is
        not a kgfs output folder (no ``run.json``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> check_output_folder(d / "new") == d / "new"
    True
    >>> _ = (d / "thesis.tex").write_text("years of work")
    >>> check_output_folder(d)
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: ...: exists and is not a kgfs output folder (no run.json); ...: choose a new or empty folder
    """
    out = Path(out_dir)
    out = out.resolve() if out.is_symlink() else Path(os.path.abspath(out))
    cwd = Path.cwd().resolve()
    if out == cwd or out in cwd.parents or out.parent == out:
        raise KgfsError(f"{out}: the output folder would be the current folder or one above it; "
                        "kgfs replaces its output folder as a whole: choose a folder of its own")
    if out.exists() and _kgfs_names(out) is None:
        raise KgfsError(f"{out}: exists and is not a kgfs output folder (no {RUN_FILE}); kgfs replaces its output "
                        "folder as a whole, so it never writes into a folder holding other files: choose a new "
                        "or empty folder")
    return out


def _kgfs_names(out: Path) -> set[str] | None:
    """The names kgfs wrote in an existing output folder (``None``: no such folder, or not kgfs's)."""
    if not out.is_dir():
        return None
    entries = {p.name for p in out.iterdir()}
    if not entries:
        return set()
    try:
        run = json.loads((out / RUN_FILE).read_text(encoding="utf-8"))
        listed = {str(n).split("/")[0] for n in run["outputs"]}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return listed | {RUN_FILE, "plots"} | {n for n in entries if n.startswith(".") and n.endswith(".tmp")}


def _carry_over(out: Path, new: Path, kgfs_names: set[str]) -> None:
    """Hard-link (or copy) into ``new`` the top-level entries of ``out`` that kgfs did not write."""
    def link(src, dst):
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    for p in out.iterdir():
        if p.name in kgfs_names or os.path.lexists(new / p.name):
            continue
        if p.is_symlink():
            os.symlink(os.readlink(p), new / p.name)
        elif p.is_dir():
            shutil.copytree(p, new / p.name, symlinks=True, copy_function=link)
        else:
            link(p, new / p.name)


def _sibling(out: Path, kind: str) -> Path:
    """A fresh hidden folder next to ``out`` (mode as any new folder: 0777 less the umask)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    while True:
        p = out.parent / f".{out.name}.kgfs-{kind}-{secrets.token_hex(6)}"
        try:
            os.mkdir(p)
            return p
        except FileExistsError:
            continue


def _lock(folder: Path, wait: bool = True) -> int | None:
    """An open descriptor of ``folder`` holding an exclusive flock (``None``: ``wait=False`` and it is held)."""
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            os.close(fd)
            return None
    return fd


def _recover(out: Path) -> None:
    """Clean up after killed publishers: put a parked previous folder back when ``out`` is missing,
    remove the hidden siblings no live publisher holds."""
    if not out.parent.is_dir():
        return
    prefix = f".{out.name}.kgfs-"
    free: dict[Path, int] = {}
    try:
        for p in out.parent.iterdir():
            if p.name.startswith(prefix) and p.is_dir() and not p.is_symlink():
                fd = _lock(p, wait=False)
                if fd is not None:
                    free[p] = fd
        parked = sorted((p for p in free if p.name.startswith(prefix + "old-")), key=lambda p: p.stat().st_mtime)
        if parked and not os.path.lexists(out):
            os.rename(parked[-1], out)
            os.close(free.pop(parked[-1]))
        for p in free:
            shutil.rmtree(p, ignore_errors=True)
    finally:
        for fd in free.values():
            os.close(fd)


def _swap(new: Path, out: Path) -> Path | None:
    """Put folder ``new`` at ``out`` atomically; returns where the previous folder went (to remove)."""
    if not os.path.lexists(out):
        os.rename(new, out)
        return None
    if _use_exchange and _rename_exchange(new, out):
        return new  # the names were exchanged: ``new`` now holds the previous folder
    old = _sibling(out, "old")
    os.rename(out, old)  # a kill here leaves no ``out``: the next publish puts ``old`` back
    os.rename(new, out)
    return old


def _rename_exchange(a: Path, b: Path) -> bool:
    """Exchange two paths atomically (Linux ``renameat2``); False where that is not supported."""
    if not sys.platform.startswith("linux"):
        return False
    fn = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)  # glibc >= 2.28
    if fn is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    if fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):  # the file system cannot exchange
        return False
    raise OSError(err, os.strerror(err), str(b))
