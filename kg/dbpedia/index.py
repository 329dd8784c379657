"""The dump index: each dump file read once into an on-disk segment, then every corpus is look-ups.

``kgfs ingest`` (and the first ``kgfs run/build/serve --dump``) reads each dump file once,
streaming, into a *segment* (:func:`kg.dbpedia.ingest.build_segment`) under the index folder
(``<kgfs home>/dbpedia-cache/index``): the facts the route asks for (types, categories, the
class and category graphs) and the lexicon's raw material (labels, redirects, in-link counts).
A segment is named by the sha256 of its file's bytes, hashed during that one read: ingesting a
file again is a no-op, a copy or a renamed file is recognised, a new file adds a segment.
Unchanged files are recognised without reading them (``files.json`` remembers each path's size,
modification time and inode with its sha256, under a checksum of its own; paths are resolved, so
``d/../d/t.nt`` is ``d/t.nt``). The lexicon of a set of files (:mod:`kg.dbpedia.lexindex`) is built
from their segments once and kept beside them.

Nothing damaged is used (:mod:`kg.dbpedia.manifest`): each segment and lexicon folder gets a
``manifest.json`` of its files' sizes and sha256, written last. Opening one checks sizes and array
headers (and hashes a file written since it was built); a damaged folder is an error naming the file
and the ``kgfs ingest`` command that rebuilds it, and :meth:`DumpIndex.ingest` (``kgfs ingest``, and
``kgfs run/build/serve --dump`` before they start) rebuilds it with a warning instead. With
``full=True`` (``kgfs ingest``) and in :meth:`DumpIndex.verify` (``kgfs cache verify``) every file is
hashed. The unfinished ``.building-*`` folders of a killed ingest are removed by the next one.

:class:`IndexSource` answers the four questions of :class:`~kg.dbpedia.sources.KnowledgeSource`
from the segments of a run's dump files with the semantics of the streamed
:class:`~kg.dbpedia.dumps.DumpSource` (the same data give the same table): memory-mapped sorted
arrays, so a batch of entities costs a few page reads, whatever the dump's size.

Measured on DBpedia-shaped dumps (``benchmarks/bench_dbpedia_scale.py``): see the README.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "t.nt").write_text(
...     "<http://dbpedia.org/resource/Kobe> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
...     "<http://dbpedia.org/ontology/BasketballPlayer> .\\n"
...     "<http://dbpedia.org/ontology/BasketballPlayer> <http://www.w3.org/2000/01/rdf-schema#subClassOf> "
...     "<http://dbpedia.org/ontology/Athlete> .\\n")
>>> index = DumpIndex(d / "index")
>>> src = IndexSource(d / "t.nt", index)
>>> src.types(["http://dbpedia.org/resource/Kobe"])
{'http://dbpedia.org/resource/Kobe': {'http://dbpedia.org/ontology/BasketballPlayer'}}
>>> sorted(src.class_edges(["http://dbpedia.org/ontology/BasketballPlayer"]))
[('http://dbpedia.org/ontology/BasketballPlayer', 'http://dbpedia.org/ontology/Athlete')]
>>> index.ingest(d / "t.nt")["ingested"]  # known already: nothing read
[]
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shlex
import shutil
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from kg.dbpedia.columns import KeyTable, StringColumn, hash_keys, load_array
from kg.dbpedia.dumps import dump_files
from kg.dbpedia.ingest import FORMAT, build_segment
from kg.dbpedia.manifest import MANIFEST, IndexDamaged, Problem, check_folder, write_manifest
from kg.dbpedia.sources import MemoCache, breadth_first_edges, edges_within, resolve_namespaces
from kg.errors import InputFormatError
from kg.files import atomic_write

__all__ = ["DumpIndex", "IndexDamaged", "IndexSource", "Segment", "index_for_cache", "ingest_summary",
           "rebuild_command"]

log = logging.getLogger(__name__)

#: ``progress(done_bytes, total_bytes, file_name)`` while dump files are read (``(0, 0, "lexicon")``
#: while :meth:`DumpIndex.ingest` builds the lexicon).
Progress = Callable[[int, int, str], None]


def index_for_cache(cache_dir: str | os.PathLike) -> DumpIndex:
    """The dump index kept in a DBpedia cache folder (``<cache_dir>/index``).

    Parameters
    ----------
    cache_dir : path
        The route's cache folder (``<kgfs home>/dbpedia-cache`` for the command line).

    Returns
    -------
    DumpIndex

    Examples
    --------
    >>> index_for_cache("/tmp/c").root.as_posix()
    '/tmp/c/index'
    """
    return DumpIndex(Path(cache_dir) / "index")


def ingest_summary(report: dict, root) -> str:
    """What :meth:`DumpIndex.ingest` did, in a few lines (``kgfs ingest`` prints it).

    Parameters
    ----------
    report : dict
        From :meth:`DumpIndex.ingest`.
    root : path
        The index folder.

    Returns
    -------
    str

    Examples
    --------
    >>> print(ingest_summary({"files": [{"path": "/d/t.nt", "triples": 3, "n_bad_lines": 0}], "ingested": [],
    ...                       "lexicon": None, "bytes": 2_000_000}, "/h/index"))
    1 dump file(s), 3 triples; all were in the index already
    index: /h/index (2 MB)
    """
    files, new = report["files"], set(report["ingested"])
    read = [f for f in files if f["path"] in new]
    lines = [f"{len(files)} dump file(s), {sum(f['triples'] for f in files):,} triples; " +
             (f"read now: {', '.join(Path(f['path']).name for f in read)}" if read else
              "all were in the index already")]
    rebuilt = [Path(p).name for p in report.get("rebuilt") or []]
    if rebuilt or report.get("lexicon_rebuilt"):
        lines.append("rebuilt (their index files did not verify): " + ", ".join(
            rebuilt + (["the lexicon"] if report.get("lexicon_rebuilt") else [])))
    skipped = sum(f["n_bad_lines"] for f in files)
    if skipped:
        lines.append(f"{skipped} malformed line(s) skipped (listed in the segments' segment.json)")
    lex = report.get("lexicon")
    if lex:
        lines.append(f"lexicon: {lex['n_surface_forms']:,} surface forms of {lex['n_entities']:,} entities "
                     f"({lex['ambiguous']:,} ambiguous, prior: {lex['prior_source']})")
    lines.append(f"index: {root} ({report['bytes'] / 1e6:.0f} MB)")
    return "\n".join(lines)


def _digest(entries: dict) -> str:
    return hashlib.sha256(json.dumps(entries, sort_keys=True).encode()).hexdigest()


def rebuild_command(paths) -> str:
    """The command that reads dump files into the index again (named by the errors of damaged index files).

    Parameters
    ----------
    paths : path or list of paths

    Returns
    -------
    str

    Examples
    --------
    >>> rebuild_command(["/d/a.nt", "/d/b.nt"])
    'kgfs ingest --dump /d/a.nt /d/b.nt'
    """
    paths = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    return "kgfs ingest --dump " + " ".join(shlex.quote(str(p)) for p in paths)


def _remove_leftovers(folder: Path) -> list[Path]:
    """The ``.building-<pid>-*`` folders of ingests that were killed (called under the index lock, so no live
    ingest is writing one), removed."""
    gone = sorted(folder.glob(".building-*")) if folder.is_dir() else []
    for d in gone:
        shutil.rmtree(d, ignore_errors=True)
        log.info("removed %s, left by an ingest that was killed", d)
    return gone


def _expand(offsets_from: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Positions ``start .. start + length - 1`` of every (start, length), concatenated."""
    total = int(lengths.sum())
    base = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.arange(total, dtype=np.int64) - base + np.repeat(offsets_from, lengths)


class Segment:
    """One ingested dump file (a folder written by :func:`kg.dbpedia.ingest.build_segment`), read-only.

    Parameters
    ----------
    folder : path

    Attributes
    ----------
    info : dict
        The segment's record (``name``, ``sha256``, ``triples``, ``counts``, ``bad_lines``...).

    Examples
    --------
    See :class:`IndexSource`.
    """

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)
        self.info = json.loads((self.folder / "segment.json").read_text(encoding="utf-8"))
        self._facts: dict[str, tuple] = {}
        self._edges: dict[str, tuple] = {}
        self._terms: tuple | None = None
        self._names: dict[int, str] = {}

    def __repr__(self) -> str:
        return f"Segment({self.info['name']!r}, sha256={self.info['sha256'][:12]}...)"

    def has(self, kind: str) -> bool:
        """Whether the file holds any fact of a kind (``types``, ``categories``, ``subclass``, ``broader``,
        ``labels``, ``redirects``, ``inlinks``).

        Parameters
        ----------
        kind : str

        Returns
        -------
        bool

        Examples
        --------
        See :class:`IndexSource`.
        """
        return bool(self.info["counts"].get(kind))

    def _term_table(self) -> tuple:
        if self._terms is None:
            table = KeyTable(self.folder, "terms")
            self._terms = (table, table.payload("id"), StringColumn(self.folder, "terms"))
        return self._terms

    def _term_names(self, ids: np.ndarray) -> list[str]:
        names, column = self._names, self._term_table()[2]
        todo = sorted({int(i) for i in ids.tolist()} - names.keys())
        names.update(zip(todo, column.take(todo)))
        return [names[i] for i in ids.tolist()]

    def _ranges(self, query: np.ndarray, first: np.ndarray, lengths: np.ndarray,
                term_ids: np.ndarray) -> list[tuple[int, str]]:
        """``(query index, term)`` for each ``term_ids[first:first + length]`` range of each query."""
        ids = np.asarray(term_ids[_expand(first, lengths)])
        return list(zip(np.repeat(query, lengths).tolist(), self._term_names(ids)))

    def facts(self, kind: str, keys: np.ndarray) -> list[tuple[int, str]]:
        """The ``types`` (or ``categories``) of subjects given by their keys.

        Parameters
        ----------
        kind : {"types", "categories"}
        keys : numpy.ndarray
            Subject keys (:func:`kg.dbpedia.columns.hash_keys`).

        Returns
        -------
        list of (int, str)
            ``(index into keys, object IRI)`` for every fact found.

        Examples
        --------
        See :class:`IndexSource`.
        """
        if not self.has(kind):
            return []
        if kind not in self._facts:
            table = KeyTable(self.folder, kind)
            self._facts[kind] = (table, table.payload("start"), table.payload("stop"),
                                 load_array(self.folder / f"{kind}.terms.npy"))
        table, start, stop, terms = self._facts[kind]
        query, rows = table.find(keys)
        if not len(rows):
            return []
        first = np.asarray(start[rows])
        return self._ranges(query, first, np.asarray(stop[rows]) - first, terms)

    def parents(self, kind: str, nodes: Sequence[str]) -> list[tuple[int, str]]:
        """The parents of nodes along ``subclass`` (``rdfs:subClassOf``) or ``broader`` (``skos:broader``).

        Parameters
        ----------
        kind : {"subclass", "broader"}
        nodes : sequence of str

        Returns
        -------
        list of (int, str)
            ``(index into nodes, parent IRI)`` for every edge found.

        Examples
        --------
        See :class:`IndexSource`.
        """
        if not self.has(kind) or not nodes:
            return []
        if kind not in self._edges:
            self._edges[kind] = (load_array(self.folder / f"{kind}.child.npy"),
                                 load_array(self.folder / f"{kind}.parent.npy"))
        child, parent = self._edges[kind]
        table, ids, _ = self._term_table()
        query, rows = table.find(hash_keys(nodes))
        node_ids = np.asarray(ids[rows])
        lo, hi = np.searchsorted(child, node_ids, "left"), np.searchsorted(child, node_ids, "right")
        return self._ranges(query, lo, hi - lo, parent)


@contextlib.contextmanager
def _locked(path: Path):
    """An exclusive lock on a file (other processes ingesting into the same index wait)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as fh:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: one process at a time is the user's job
            yield
            return
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class DumpIndex:
    """The segments of ingested dump files (and their lexicons) in a folder.

    Parameters
    ----------
    root : path
        The index folder (created on first ingest).

    Examples
    --------
    See the module.
    """

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"DumpIndex({str(self.root)!r})"

    # ------------------------------------------------------------------ which files are known
    def _known(self) -> dict:
        """``files.json``: resolved path -> [size, mtime_ns, inode, sha256]; empty when missing or damaged (then
        each file is recognised by reading it)."""
        path = self.root / "files.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("%s is unreadable (%s); the dump files will be recognised by their content", path, exc)
            return {}
        files = data.get("files") if isinstance(data, dict) else None
        if not isinstance(files, dict) or data.get("sha256") != _digest(files):
            log.warning("%s does not have its recorded checksum; the dump files will be recognised by their content",
                        path)
            return {}
        return files

    @staticmethod
    def _stat_key(path: Path) -> list:
        st = path.stat()
        return [st.st_size, st.st_mtime_ns, st.st_ino]

    def _segment_dir(self, sha256: str) -> Path:
        return self.root / "segments" / f"{sha256}.v{FORMAT}"

    def known_segment(self, path: str | os.PathLike) -> Segment | None:
        """The segment of a file already ingested and unchanged since (by size, mtime and inode), else ``None``.

        Parameters
        ----------
        path : path

        Returns
        -------
        Segment or None

        Examples
        --------
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp()); p = d / "t.nt"; _ = p.write_text("")
        >>> DumpIndex(d / "i").known_segment(p) is None
        True
        """
        folder = self._known_folder(Path(path).resolve())
        return None if folder is None else Segment(folder)

    def _known_folder(self, path: Path) -> Path | None:
        """The segment folder of a resolved path ingested and unchanged since (not checked), else ``None``."""
        entry = self._known().get(str(path))
        if entry is None or entry[:3] != self._stat_key(path):
            return None
        folder = self._segment_dir(entry[3])
        return folder if (folder / MANIFEST).is_file() else None

    def _remember(self, path: Path, stat_key: list, sha256: str) -> None:
        known = self._known()
        known[str(path)] = [*stat_key, sha256]
        text = json.dumps({"files": known, "sha256": _digest(known)}, indent=0)
        atomic_write(self.root / "files.json", lambda tmp: tmp.write_text(text, encoding="utf-8"))

    # ------------------------------------------------------------------ ingest
    def _ingest_file(self, path: Path, skip_bad_lines: bool, progress: Callable[[int], None] | None) -> Segment:
        stat_key = self._stat_key(path)
        tmp = self.root / "segments" / f".building-{os.getpid()}-{path.name}"
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            info = build_segment(path, tmp, skip_bad_lines=skip_bad_lines, progress=progress)
            write_manifest(tmp)  # last: a folder without one is never used
            final = self._segment_dir(info["sha256"])
            if not check_folder(final, full=True):  # the same content was ingested under another name
                shutil.rmtree(tmp)
            else:
                shutil.rmtree(final, ignore_errors=True)  # unfinished, damaged, or of a kgfs without manifests
                os.replace(tmp, final)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        self._remember(path, stat_key, info["sha256"])
        log.info("ingested %s: %d triples in %.1f s", path, info["triples"], info["seconds"])
        return Segment(final)

    def _open(self, files: list[Path], skip_bad_lines: bool, progress: Progress | None, repair: bool,
              full: bool) -> tuple[list[Segment], list[Path]]:
        """The segments of resolved dump files, ingesting new ones (and, with ``repair``, damaged ones), and the
        files read now."""
        found: dict[Path, Segment | None] = {}
        for f in files:  # each folder checked before anything of it is read (its segment.json too)
            folder = self._known_folder(f)
            problems = check_folder(folder, full=full) if folder is not None else []
            if problems and not repair:
                raise IndexDamaged(problems, rebuild_command(f))
            if problems:
                log.warning("dump index file %s; reading %s into the index again", problems[0], f)
            found[f] = Segment(folder) if folder is not None and not problems else None
        todo = [f for f in files if found[f] is None]
        if todo or repair:  # ``repair`` (an ingest): also to remove what killed ingests left
            with _locked(self.root / ".lock"):  # another process may have ingested them meanwhile
                _remove_leftovers(self.root / "segments")
                for f in todo:
                    folder = self._known_folder(f)
                    found[f] = Segment(folder) if folder is not None and not check_folder(folder, full=full) else None
                todo = [f for f in todo if found[f] is None]
                total, done = sum(f.stat().st_size for f in todo), 0
                for f in todo:
                    report = None
                    if progress is not None:
                        def report(n, base=done, name=f.name):
                            progress(base + n, total, name)
                    found[f] = self._ingest_file(f, skip_bad_lines, report)
                    done += f.stat().st_size
        out = [found[f] for f in files]
        for seg, f in zip(out, files):
            if seg.info["n_bad_lines"] and not skip_bad_lines:
                _path, line, msg = seg.info["bad_lines"][0]
                raise InputFormatError(f"malformed RDF: {msg}; pass skip_bad_lines=True (--skip-bad-lines) to "
                                       "skip it", f, line)
        return out, todo

    def segments(self, paths, *, skip_bad_lines: bool = False, progress: Progress | None = None) -> list[Segment]:
        """The segments of dump files and folders (in :func:`~kg.dbpedia.dumps.dump_files` order), ingesting new ones.

        Each segment is checked first (sizes and array headers, :func:`kg.dbpedia.manifest.check_folder`).

        Parameters
        ----------
        paths : path or list of paths
        skip_bad_lines : bool
            Skip malformed N-Triples lines while ingesting. A segment that skipped lines is an
            error for a caller that does not pass ``skip_bad_lines`` (as reading the file would be).
        progress : callable, optional
            ``progress(done_bytes, total_bytes, file_name)`` while new files are read.

        Returns
        -------
        list of Segment

        Raises
        ------
        InputFormatError
            A malformed line, naming the file and line.
        IndexDamaged
            A segment's file is damaged, naming it and the ``kgfs ingest`` command that rebuilds it.

        Examples
        --------
        See the module.
        """
        return self._open([f.resolve() for f in dump_files(paths)], skip_bad_lines, progress, False, False)[0]

    def lexicon(self, paths, *, skip_bad_lines: bool = False, progress: Progress | None = None,
                min_length: int = 2, prior: str = "auto"):
        """The lexicon annotator of dump files (ingesting them, building the lexicon when new).

        Its folder is checked as the segments are (:meth:`segments`).

        Parameters
        ----------
        paths : path or list of paths
        skip_bad_lines : bool
        progress : callable, optional
            See :meth:`segments`.
        min_length : int
        prior : {"auto", "surface-forms"}
            As in :meth:`kg.dbpedia.lexicon.LexiconAnnotator.from_dump`.

        Returns
        -------
        kg.dbpedia.lexindex.IndexedLexicon

        Raises
        ------
        IndexDamaged
            A file of the lexicon (or of a segment) is damaged, naming it and the command that rebuilds it.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "l.nt").write_text('<http://dbpedia.org/resource/Lyon> '
        ...                             '<http://www.w3.org/2000/01/rdf-schema#label> "Lyon"@en .\\n')
        >>> lex = DumpIndex(d / "i").lexicon(d / "l.nt")
        >>> [a.uri for a in lex.annotate_one("Lyon wins")]
        ['http://dbpedia.org/resource/Lyon']
        """
        files = [f.resolve() for f in dump_files(paths)]
        segs = self._open(files, skip_bad_lines, progress, False, False)[0]
        return self._lexicon(files, segs, min_length, prior, None)

    def _lexicon(self, files: list[Path], segs: list[Segment], min_length: int, prior: str, repair: dict | None):
        """The lexicon of segments; ``repair``: rebuild a damaged one (noting it in the dict, with ``full``)."""
        from kg.dbpedia.lexindex import open_lexicon

        with _locked(self.root / ".lock"):
            _remove_leftovers(self.root / "lexicons")
            return open_lexicon(segs, self.root / "lexicons", min_length=min_length, prior=prior,
                                rebuild=rebuild_command(files), repair=repair)

    def ingest(self, paths, *, skip_bad_lines: bool = False, progress: Progress | None = None,
               lexicon: bool = True, full: bool = False) -> dict:
        """Ingest dump files (the new ones) and build their lexicon: what ``kgfs ingest`` does.

        A segment or lexicon that does not check (:mod:`kg.dbpedia.manifest`) is built again, with a warning.

        Parameters
        ----------
        paths : path or list of paths
        skip_bad_lines : bool
        progress : callable, optional
            See :meth:`segments`.
        lexicon : bool
            Also build the lexicon of the files (when they have labels or redirects).
        full : bool
            Check the contents of the files' segments and lexicon (hash them: ``kgfs ingest``), not only
            their sizes and array headers (``kgfs run/build/serve --dump`` before they start).

        Returns
        -------
        dict
            ``files`` (name, sha256, triples, counts per file), ``ingested`` (the files read
            now), ``rebuilt`` (those of them whose segment was damaged), ``lexicon`` (its
            statistics, or ``None``), ``lexicon_rebuilt`` (its damage, or ``None``), ``bytes`` (on disk).

        Examples
        --------
        See the module.
        """
        files = [f.resolve() for f in dump_files(paths)]
        known = {f for f in files if self._known_folder(f) is not None}
        segs, read = self._open(files, skip_bad_lines, progress, True, full)
        lex, repaired = None, {"full": full}
        if lexicon and any(s.has("labels") or s.has("redirects") for s in segs):
            if progress is not None:
                progress(0, 0, "lexicon")
            lex = self._lexicon(files, segs, 2, "auto", repaired).stats
        return {"files": [{"path": str(f), **{k: s.info[k] for k in ("sha256", "triples", "counts", "n_bad_lines")}}
                          for f, s in zip(files, segs)],
                "ingested": [str(f) for f in read], "rebuilt": [str(f) for f in read if f in known],
                "lexicon": lex, "lexicon_rebuilt": repaired.get("problem"),
                "bytes": sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file())}

    def verify(self, *, remove: bool = False) -> list[Problem]:
        """Hash every file of every segment and lexicon of the index against its manifest (``kgfs cache verify``).

        Parameters
        ----------
        remove : bool
            Also delete the folders with problems (and unfinished ``.building-*`` folders): the next
            ``kgfs ingest`` (or run with ``--dump``) builds them again.

        Returns
        -------
        list of Problem
            Empty when every folder checks.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "t.nt").write_text("<http://c/A> <http://www.w3.org/2004/02/skos/core#broader> <http://c/B> .\\n")
        >>> index = DumpIndex(d / "i"); _ = index.segments(d / "t.nt")
        >>> index.verify()
        []
        """
        problems: list[Problem] = []
        for d in self.folders():
            found = [Problem(d, "unfinished (left by an ingest that was killed)")] if d.name.startswith(".") else \
                check_folder(d, full=True)
            if found and remove:
                shutil.rmtree(d, ignore_errors=True)
            problems += found
        return problems

    def folders(self) -> list[Path]:
        """Every segment and lexicon folder of the index (unfinished ones too).

        Returns
        -------
        list of Path

        Examples
        --------
        >>> DumpIndex("/no/such/index").folders()
        []
        """
        return sorted(d for sub in ("segments", "lexicons") if (self.root / sub).is_dir()
                      for d in (self.root / sub).iterdir() if d.is_dir())


class IndexSource:
    """A :class:`~kg.dbpedia.sources.KnowledgeSource` answering from the dump index (same answers as
    :class:`~kg.dbpedia.dumps.DumpSource` over the same files).

    Parameters
    ----------
    paths : path or list of paths
        Dump files and/or directories (see :func:`~kg.dbpedia.dumps.dump_files`).
    index : DumpIndex
        Where the files' segments are (or are built, on the first question).
    type_namespaces : list of str, optional
        IRI prefixes (or ``dbo``/``yago``/``schema``) of the types to keep (default: DBpedia ontology).
    skip_bad_lines : bool
        See :meth:`DumpIndex.segments`.
    progress : callable, optional
        ``progress(done_bytes, total_bytes, file_name)`` while files are ingested.

    Examples
    --------
    See the module.
    """

    def __init__(self, paths, index: DumpIndex, *, type_namespaces: Sequence[str] | None = None,
                 skip_bad_lines: bool = False, progress: Progress | None = None):
        self.paths, self.index = paths, index
        self.type_namespaces = resolve_namespaces(type_namespaces)
        self.skip_bad_lines, self.progress = skip_bad_lines, progress
        self._segments: list[Segment] | None = None
        self._memo = {kind: MemoCache() for kind in ("types", "categories", "subclass", "broader")}

    def __repr__(self) -> str:
        return f"IndexSource({self.paths!r}, {self.index!r}, type_namespaces={list(self.type_namespaces)!r})"

    @property
    def segments(self) -> list[Segment]:
        """The dump files' segments (ingested on first use).

        Returns
        -------
        list of Segment

        Examples
        --------
        See the module.
        """
        if self._segments is None:
            self._segments = self.index.segments(self.paths, skip_bad_lines=self.skip_bad_lines,
                                                 progress=self.progress)
        return self._segments

    def describe(self) -> dict:
        """Provenance for table metadata (as :meth:`DumpSource.describe`, plus the segments' sha256).

        Returns
        -------
        dict

        Examples
        --------
        See the module.
        """
        return {"kind": "dump", "files": [str(p) for p in dump_files(self.paths)],
                "type_namespaces": list(self.type_namespaces), "index": [s.info["sha256"] for s in self.segments]}

    def _ask(self, kind: str, items: Iterable[str]) -> dict[str, set[str]]:
        return self._memo[kind].ask(items, lambda todo: self._fetch(kind, todo))

    def _fetch(self, kind: str, todo: list[str]) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {x: set() for x in todo}
        keys = hash_keys(todo) if kind in ("types", "categories") else None
        for seg in self.segments:
            pairs = seg.facts(kind, keys) if keys is not None else seg.parents(kind, todo)
            for q, iri in pairs:
                found[todo[q]].add(iri)
        return found

    def types(self, entities: Iterable[str]) -> dict[str, set[str]]:
        """The ``rdf:type`` objects of each entity in the type namespaces (see the module).

        Parameters
        ----------
        entities : iterable of str

        Returns
        -------
        dict

        Examples
        --------
        See the module.
        """
        ns = self.type_namespaces
        return {e: {t for t in ts if t.startswith(ns)} for e, ts in self._ask("types", entities).items()}

    def categories(self, entities: Iterable[str]) -> dict[str, set[str]]:
        """The ``dct:subject`` objects of each entity.

        Parameters
        ----------
        entities : iterable of str

        Returns
        -------
        dict

        Examples
        --------
        See the module.
        """
        return self._ask("categories", entities)

    def class_edges(self, classes: Iterable[str]) -> set[tuple[str, str]]:
        """Every ``rdfs:subClassOf`` edge above the classes, both ends in the type namespaces.

        Parameters
        ----------
        classes : iterable of str

        Returns
        -------
        set of (str, str)

        Examples
        --------
        See the module.
        """
        edges = breadth_first_edges(classes, lambda xs: self._ask("subclass", xs), None)
        return edges_within(edges, self.type_namespaces)

    def broader(self, categories: Iterable[str], depth: int | None) -> set[tuple[str, str]]:
        """``skos:broader`` edges up to ``depth`` levels above the categories (cycles end the walk).

        Parameters
        ----------
        categories : iterable of str
        depth : int or None

        Returns
        -------
        set of (str, str)

        Examples
        --------
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> B = "<http://www.w3.org/2004/02/skos/core#broader>"
        >>> _ = (d / "s.nt").write_text(f"<http://c/A> {B} <http://c/B> .\\n<http://c/B> {B} <http://c/A> .\\n")
        >>> sorted(IndexSource(d / "s.nt", DumpIndex(d / "i")).broader(["http://c/A"], None))
        [('http://c/A', 'http://c/B'), ('http://c/B', 'http://c/A')]
        """
        return breadth_first_edges(categories, lambda xs: self._ask("broader", xs), depth)
