"""The dump index: each dump file read once into an on-disk segment, then every corpus is look-ups.

``kgfs ingest`` (and the first ``kgfs run/build/serve --dump``) reads each dump file once,
streaming, into a *segment* (:func:`kg.dbpedia.ingest.build_segment`) under the index folder
(``<kgfs home>/dbpedia-cache/index``): the facts a vocabulary asks for (types, categories, the
class and category graphs, ``owl:sameAs`` and ``owl:equivalentClass`` links) and the lexicon's raw
material (labels, redirects, in-link counts). A segment is named by the sha256 of its file's bytes,
hashed during that one read, and by the fingerprint of the vocabulary it was read with (a preset
reads other predicates): ingesting a file again is a no-op, a copy or a renamed file is recognised,
a new file adds a segment. Unchanged files are recognised without reading them (``files.json``
remembers each path's size, modification time and inode with its sha256, under a checksum of its
own; paths are resolved, so ``d/../d/t.nt`` is ``d/t.nt``). The lexicon of a set of files
(:mod:`kg.dbpedia.lexindex`) is built from their segments once and kept beside them.

Nothing damaged is used (:mod:`kg.dbpedia.manifest`): each segment and lexicon folder gets a
``manifest.json`` of its files' sizes and sha256 (every file the builder left in it: arrays, string
columns, ``segment.json``/``lexicon.json``, the cycle lists), written last. Opening one checks sizes
and array headers (and hashes a file written since it was built); a damaged folder is an error naming
the file and the ``kgfs ingest`` command that rebuilds it, and :meth:`DumpIndex.ingest` (``kgfs
ingest``, and ``kgfs run/build/serve --dump`` before they start) rebuilds it with a warning instead.
With ``full=True`` (``kgfs ingest``) and in :meth:`DumpIndex.verify` (``kgfs cache verify``) every
file is hashed. The unfinished ``.building-*`` folders of a killed ingest (with the sorted runs an
ingest spills into them) are removed by the next one.

:class:`IndexSource` answers the four questions of :class:`~kg.dbpedia.sources.KnowledgeSource`
from the segments of a run's dump files with the semantics of the streamed
:class:`~kg.dbpedia.dumps.DumpSource` (the same data give the same table): memory-mapped sorted
arrays, so a batch of entities costs a few page reads, whatever the dump's size.

The layout on disk (the one place it is described; ``.npy`` files are plain NumPy arrays read with
``allow_pickle=False``; a *key* is the 128-bit BLAKE2b hash of a UTF-8 string as two ``uint64``,
:func:`kg.dbpedia.columns.hash_keys`; a *string column* ``X`` is ``X.bin``, the UTF-8 strings one
after another, and ``X.offsets.npy``, ``int64``, where string ``i`` is ``bin[offsets[i]:offsets[i+1]]``)::

    <index>/
      .lock                             held while files are ingested or a lexicon is built
      files.json                        {"files": resolved path -> [size, mtime_ns, inode, sha256] of every file
                                        ingested, "sha256": of those entries}
      segments/<sha256>.v<F>.<V>/       one ingested file: F = ingest.FORMAT (2), V = Vocabulary.fingerprint()
        manifest.json                   every other file of the folder: size, mtime, sha256 of its head and of
                                        its bytes (kg.dbpedia.manifest), written last
        segment.json                    name, size, sha256, format, vocabulary (name, fingerprint, predicates,
                                        language), triples parsed, lines read, counts per table, cycles per
                                        graph role, n_bad_lines, bad_lines (the first 100: [path, line, message]),
                                        seconds
        terms.keys.npy                  (2, T) uint64: the keys of every object IRI of a fact table, sorted,
                                        distinct; a term's id is its position here
        terms.row.npy                   (T,) int64: the row of each term's string in the string column `terms`
        terms.bin, terms.offsets.npy    string column `terms` (a term may be written more than once; rows
                                        not pointed at are unused copies)
        <role>.keys.npy                 (2, n) uint64: subject keys, sorted (a subject with k facts has k rows)
        <role>.objects.npy              (n,) uint32: the object's term id of each row
                                        role: types (instance of), categories (subject), subclass, broader,
                                        same_as, equivalent_class (every role is written, maybe empty)
        subclass.cycles.tsv,            the strongly connected components of the graph (one per line, its
        broader.cycles.tsv              IRIs tab-separated, sorted), then its self-loops (one IRI per line)
        labels.subject, labels.text     string columns: every label (vocabulary's labels, in its language or
                                        untagged) of a resource under its `entities` namespaces, file order
        redirects.source,               string columns: every redirect of such a resource, file order
        redirects.target
        inlinks.keys.npy                (2, m) uint64: the keys of the resources the prior_links point at, sorted
        inlinks.count.npy               (m,) int64: how many such links point at each
      lexicons/<hash>/                  the lexicon of some segments (hash of the format, their sha256 and
                                        vocabulary fingerprints, min_length, prior)
        manifest.json                   as a segment's
        lexicon.json                    format, n_surface_forms, n_entities, ambiguous, prior_source,
                                        min_length, segments (folder names, in the order of `entity` refs)
        forms.keys.npy                  (2, F) uint64: the keys of the normalised surface forms, sorted
        forms.entity.npy                (F,) int64: the form's entity, a row of the segments' `labels.subject`
                                        columns one after another, then of their `redirects.target` columns
        forms.weight.npy                (F,) float64: the entity's prior
        prefixes.keys.npy               (2, P) uint64: the keys of every proper token prefix of a form, sorted

Everything but ``files.json`` is written into a temporary folder first and renamed into place
whole (the sorted runs an ingest spills go under it, in ``.runs/``, a lexicon's in ``.work/``, and
are removed before); a reader opens only folders with their ``manifest.json``.

Measured on DBpedia-shaped dumps (``benchmarks/bench_dbpedia_scale.py``) and Wikidata-shaped ones
(``benchmarks/bench_wikidata_scale.py``): see the README.

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
from kg.dbpedia.ingest import FACT_ROLES, FORMAT, build_segment
from kg.dbpedia.manifest import MANIFEST, IndexDamaged, Problem, check_folder, write_manifest
from kg.dbpedia.sources import MemoCache, edges_within
from kg.dbpedia.vocabulary import DBPEDIA, PRESETS, Vocabulary
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
    >>> print(ingest_summary({"files": [{"path": "/d/t.nt", "triples": 3, "lines": 3, "n_bad_lines": 0}],
    ...                       "ingested": [], "lexicon": None, "bytes": 2_000_000}, "/h/index"))
    1 dump file(s), 3 triples; all were in the index already
    index: /h/index (2 MB)
    """
    files, new = report["files"], set(report["ingested"])
    read = [f for f in files if f["path"] in new]
    lines_read, parsed = sum(f.get("lines", f["triples"]) for f in files), sum(f["triples"] for f in files)
    size = f"{parsed:,} triples" if lines_read == parsed else f"{lines_read:,} lines ({parsed:,} of them parsed: " \
                                                             "the others hold no predicate of the vocabulary)"
    lines = [f"{len(files)} dump file(s), {size}; " +
             (f"read now: {', '.join(Path(f['path']).name for f in read)}" if read else
              "all were in the index already")]
    rebuilt = [Path(p).name for p in report.get("rebuilt") or []]
    if rebuilt or report.get("lexicon_rebuilt"):
        lines.append("rebuilt (their index files did not verify): " + ", ".join(
            rebuilt + (["the lexicon"] if report.get("lexicon_rebuilt") else [])))
    skipped = sum(f["n_bad_lines"] for f in files)
    if skipped:
        lines.append(f"{skipped} malformed line(s) skipped (listed in the segments' segment.json)")
    for f in files:
        for role, c in (f.get("cycles") or {}).items():
            if c["cycles"]:
                lines.append(f"{Path(f['path']).name}: the {role} graph has {c['cycles']:,} cycle(s) through "
                             f"{c['nodes']:,} node(s), broken in each table (listed in {c['file']})")
    lex = report.get("lexicon")
    if lex:
        lines.append(f"lexicon: {lex['n_surface_forms']:,} surface forms of {lex['n_entities']:,} entities "
                     f"({lex['ambiguous']:,} ambiguous, prior: {lex['prior_source']})")
    lines.append(f"index: {root} ({report['bytes'] / 1e6:.0f} MB)")
    return "\n".join(lines)


def _as_void(keys: np.ndarray) -> np.ndarray:
    """``(n, 2)`` keys as ``n`` 16-byte values (NumPy sorts, joins and compares them whole)."""
    keys = np.ascontiguousarray(keys, dtype=np.uint64).reshape(-1, 2)
    return keys.view(np.dtype((np.void, 16))).ravel()


def _digest(entries: dict) -> str:
    return hashlib.sha256(json.dumps(entries, sort_keys=True).encode()).hexdigest()


def rebuild_command(paths, vocabulary: Vocabulary = DBPEDIA) -> str:
    """The command that reads dump files into the index again (named by the errors of damaged index files).

    Parameters
    ----------
    paths : path or list of paths
    vocabulary : Vocabulary
        The vocabulary the files were read with (``--preset`` unless DBpedia's).

    Returns
    -------
    str

    Examples
    --------
    >>> rebuild_command(["/d/a.nt", "/d/b.nt"])
    'kgfs ingest --dump /d/a.nt /d/b.nt'
    >>> from kg.dbpedia.vocabulary import WIKIDATA
    >>> rebuild_command("/d/latest-truthy.nt.bz2", WIKIDATA.with_language("de"))
    'kgfs ingest --preset wikidata --language de --dump /d/latest-truthy.nt.bz2'
    """
    paths = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    preset = ""
    if vocabulary != DBPEDIA:  # a preset by its name (a TOML file's path is the user's)
        base = PRESETS.get(vocabulary.name)
        preset = f"--preset {vocabulary.name} " if base is not None else "--preset YOUR_PRESET.toml "
        if base is not None and vocabulary.language != base.language:
            preset += f"--language {shlex.quote(str(vocabulary.language))} "
    return f"kgfs ingest {preset}--dump " + " ".join(shlex.quote(str(p)) for p in paths)


def _remove_leftovers(folder: Path) -> list[Path]:
    """The ``.building-<pid>-*`` folders of ingests that were killed (called under the index lock, so no live
    ingest is writing one), removed."""
    gone = sorted(folder.glob(".building-*")) if folder.is_dir() else []
    for d in gone:
        shutil.rmtree(d, ignore_errors=True)
        log.info("removed %s, left by an ingest that was killed", d)
    return gone


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
        self._terms: tuple | None = None
        self._names: dict[int, str] = {}

    def __repr__(self) -> str:
        return f"Segment({self.info['name']!r}, sha256={self.info['sha256'][:12]}...)"

    def has(self, kind: str) -> bool:
        """Whether the file holds any fact of a kind (a fact table: ``types``, ``categories``, ``subclass``,
        ``broader``, ``same_as``, ``equivalent_class``; or ``labels``, ``redirects``, ``inlinks``).

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

    def term_names(self, ids) -> list[str]:
        """The IRIs of term ids.

        Parameters
        ----------
        ids : array-like of int

        Returns
        -------
        list of str

        Examples
        --------
        See :class:`IndexSource`.
        """
        if self._terms is None:
            self._terms = (load_array(self.folder / "terms.row.npy"), StringColumn(self.folder, "terms"))
        rows, column = self._terms
        names = self._names
        ids = np.asarray(ids, np.int64)
        todo = sorted({int(i) for i in ids.tolist()} - names.keys())
        if todo:
            names.update(zip(todo, column.take(np.asarray(rows[todo]).tolist())))
        return [names[i] for i in ids.tolist()]

    def facts(self, kind: str, keys: np.ndarray) -> list[tuple[int, str]]:
        """The objects of the facts of one table (see :data:`kg.dbpedia.ingest.FACT_ROLES`) of subjects given by
        their keys.

        Parameters
        ----------
        kind : str
            ``types``, ``categories``, ``subclass``, ``broader``, ``same_as`` or ``equivalent_class``.
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
        if not self.has(kind) or not len(keys):
            return []
        if kind not in self._facts:
            self._facts[kind] = (KeyTable(self.folder, kind), load_array(self.folder / f"{kind}.objects.npy"))
        table, objects = self._facts[kind]
        query, rows = table.find(keys)
        if not len(rows):
            return []
        return list(zip(query.tolist(), self.term_names(np.asarray(objects[rows]))))

    def parent_terms(self, kind: str, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The parents of nodes given by their keys along a graph table, as term ids (no string read).

        Parameters
        ----------
        kind : {"subclass", "broader"}
        keys : numpy.ndarray
            ``(m, 2)`` node keys.

        Returns
        -------
        query : numpy.ndarray
            Index into ``keys`` of each edge's child.
        terms : numpy.ndarray
            The parent's term id of each edge (:meth:`term_keys` gives their keys, :meth:`term_names`
            their IRIs).

        Examples
        --------
        See :class:`IndexSource`.
        """
        if not self.has(kind) or not len(keys):
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        if kind not in self._facts:
            self._facts[kind] = (KeyTable(self.folder, kind), load_array(self.folder / f"{kind}.objects.npy"))
        table, objects = self._facts[kind]
        query, rows = table.find(keys)
        return query, np.asarray(objects[rows], np.int64)

    def term_keys(self, ids: np.ndarray) -> np.ndarray:
        """The ``(m, 2)`` keys of term ids.

        Parameters
        ----------
        ids : numpy.ndarray

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        See :class:`IndexSource`.
        """
        if "terms.keys" not in self._facts:
            self._facts["terms.keys"] = (load_array(self.folder / "terms.keys.npy"),)
        (keys,) = self._facts["terms.keys"]
        ids = np.asarray(ids, np.int64)
        return np.stack([np.asarray(keys[0][ids]), np.asarray(keys[1][ids])], axis=1)

    def parents(self, kind: str, nodes: Sequence[str]) -> list[tuple[int, str]]:
        """The parents of nodes along a graph table (``subclass`` or ``broader``).

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
        return self.facts(kind, hash_keys(nodes)) if nodes else []


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
    spill_bytes : int, optional
        The memory an ingest or a lexicon build may hold in rows before it sorts them into runs
        on disk (:class:`~kg.dbpedia.extsort.SpillPool`; its default otherwise). Its peak memory
        is about twice this plus the blocks being read, whatever the dump's size.

    Examples
    --------
    See the module.
    """

    def __init__(self, root: str | os.PathLike, *, spill_bytes: int | None = None):
        self.root = Path(root)
        self.spill_bytes = spill_bytes

    def _pool(self):
        from kg.dbpedia.extsort import SpillPool

        return SpillPool() if self.spill_bytes is None else SpillPool(self.spill_bytes)

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

    def _segment_dir(self, sha256: str, vocabulary: Vocabulary) -> Path:
        return self.root / "segments" / f"{sha256}.v{FORMAT}.{vocabulary.fingerprint()}"

    def known_segment(self, path: str | os.PathLike, vocabulary: Vocabulary = DBPEDIA) -> Segment | None:
        """The segment of a file already ingested with ``vocabulary`` and unchanged since (by size, mtime and
        inode), else ``None``.

        Parameters
        ----------
        path : path
        vocabulary : Vocabulary

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
        folder = self._known_folder(Path(path).resolve(), vocabulary)
        return None if folder is None else Segment(folder)

    def _known_folder(self, path: Path, vocabulary: Vocabulary) -> Path | None:
        """The segment folder of a resolved path ingested with ``vocabulary`` and unchanged since (not checked),
        else ``None``."""
        entry = self._known().get(str(path))
        if entry is None or entry[:3] != self._stat_key(path):
            return None
        folder = self._segment_dir(entry[3], vocabulary)
        return folder if (folder / MANIFEST).is_file() else None

    def _remember(self, path: Path, stat_key: list, sha256: str) -> None:
        known = self._known()
        known[str(path)] = [*stat_key, sha256]
        text = json.dumps({"files": known, "sha256": _digest(known)}, indent=0)
        atomic_write(self.root / "files.json", lambda tmp: tmp.write_text(text, encoding="utf-8"))

    # ------------------------------------------------------------------ ingest
    def _ingest_file(self, path: Path, vocabulary: Vocabulary, skip_bad_lines: bool,
                     progress: Callable[[int], None] | None) -> Segment:
        stat_key = self._stat_key(path)
        tmp = self.root / "segments" / f".building-{os.getpid()}-{path.name}"
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            info = build_segment(path, tmp, vocabulary=vocabulary, skip_bad_lines=skip_bad_lines, progress=progress,
                                 pool=self._pool())
            write_manifest(tmp)  # last: a folder without one is never used
            final = self._segment_dir(info["sha256"], vocabulary)
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

    def _open(self, files: list[Path], vocabulary: Vocabulary, skip_bad_lines: bool, progress: Progress | None,
              repair: bool, full: bool) -> tuple[list[Segment], list[Path]]:
        """The segments of resolved dump files, ingesting new ones (and, with ``repair``, damaged ones), and the
        files read now."""
        found: dict[Path, Segment | None] = {}
        for f in files:  # each folder checked before anything of it is read (its segment.json too)
            folder = self._known_folder(f, vocabulary)
            problems = check_folder(folder, full=full) if folder is not None else []
            if problems and not repair:
                raise IndexDamaged(problems, rebuild_command(f, vocabulary))
            if problems:  # one line: the file under the index folder, the dump file by its name
                bad = problems[0].file
                log.warning("dump index file %s: %s; reading %s into the index again",
                            bad.relative_to(self.root) if bad.is_relative_to(self.root) else bad, problems[0].problem,
                            f.name)
            found[f] = Segment(folder) if folder is not None and not problems else None
        todo = [f for f in files if found[f] is None]
        if todo or repair:  # ``repair`` (an ingest): also to remove what killed ingests left
            with _locked(self.root / ".lock"):  # another process may have ingested them meanwhile
                _remove_leftovers(self.root / "segments")
                for f in todo:
                    folder = self._known_folder(f, vocabulary)
                    found[f] = Segment(folder) if folder is not None and not check_folder(folder, full=full) else None
                todo = [f for f in todo if found[f] is None]
                total, done = sum(f.stat().st_size for f in todo), 0
                for f in todo:
                    report = None
                    if progress is not None:
                        def report(n, base=done, name=f.name):
                            progress(base + n, total, name)
                    found[f] = self._ingest_file(f, vocabulary, skip_bad_lines, report)
                    done += f.stat().st_size
        out = [found[f] for f in files]
        for seg, f in zip(out, files):
            if seg.info["n_bad_lines"] and not skip_bad_lines:
                _path, line, msg = seg.info["bad_lines"][0]
                raise InputFormatError(f"malformed RDF: {msg}; pass skip_bad_lines=True (--skip-bad-lines) to "
                                       "skip it", f, line)
        return out, todo

    def segments(self, paths, *, vocabulary: Vocabulary = DBPEDIA, skip_bad_lines: bool = False,
                 progress: Progress | None = None) -> list[Segment]:
        """The segments of dump files and folders (in :func:`~kg.dbpedia.dumps.dump_files` order), ingesting new ones.

        Each segment is checked first (sizes and array headers, :func:`kg.dbpedia.manifest.check_folder`).

        Parameters
        ----------
        paths : path or list of paths
        vocabulary : Vocabulary
            What the segments keep (a file read with another vocabulary is read again).
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
        return self._open([f.resolve() for f in dump_files(paths)], vocabulary, skip_bad_lines, progress, False,
                          False)[0]

    def lexicon(self, paths, *, vocabulary: Vocabulary = DBPEDIA, skip_bad_lines: bool = False,
                progress: Progress | None = None, min_length: int = 2, prior: str = "auto"):
        """The lexicon annotator of dump files (ingesting them, building the lexicon when new).

        Its folder is checked as the segments are (:meth:`segments`).

        Parameters
        ----------
        paths : path or list of paths
        vocabulary : Vocabulary
            Which labels, redirects and links make the lexicon.
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
        segs = self._open(files, vocabulary, skip_bad_lines, progress, False, False)[0]
        return self._lexicon(files, segs, vocabulary, min_length, prior, None)

    def _lexicon(self, files: list[Path], segs: list[Segment], vocabulary: Vocabulary, min_length: int, prior: str,
                 repair: dict | None):
        """The lexicon of segments; ``repair``: rebuild a damaged one (noting it in the dict, with ``full``)."""
        from kg.dbpedia.lexindex import open_lexicon

        with _locked(self.root / ".lock"):
            _remove_leftovers(self.root / "lexicons")
            return open_lexicon(segs, self.root / "lexicons", vocabulary=vocabulary, min_length=min_length,
                                prior=prior, pool=self._pool(), rebuild=rebuild_command(files, vocabulary),
                                repair=repair)

    def ingest(self, paths, *, vocabulary: Vocabulary = DBPEDIA, skip_bad_lines: bool = False,
               progress: Progress | None = None, lexicon: bool = True, full: bool = False) -> dict:
        """Ingest dump files (the new ones) and build their lexicon: what ``kgfs ingest`` does.

        A segment or lexicon that does not check (:mod:`kg.dbpedia.manifest`) is built again, with a warning.

        Parameters
        ----------
        paths : path or list of paths
        vocabulary : Vocabulary
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
            ``files`` (name, sha256, triples, lines, counts and cycles per file), ``ingested`` (the
            files read now), ``rebuilt`` (those of them whose segment was damaged), ``lexicon`` (its
            statistics, or ``None``), ``lexicon_rebuilt`` (its damage, or ``None``), ``bytes`` (on
            disk), ``vocabulary`` (its name).

        Examples
        --------
        See the module.
        """
        files = [f.resolve() for f in dump_files(paths)]
        known = {f for f in files if self._known_folder(f, vocabulary) is not None}
        segs, read = self._open(files, vocabulary, skip_bad_lines, progress, True, full)
        lex, repaired = None, {"full": full}
        if lexicon and any(s.has("labels") or s.has("redirects") for s in segs):
            if progress is not None:
                progress(0, 0, "lexicon")
            lex = self._lexicon(files, segs, vocabulary, 2, "auto", repaired).stats

        def cycles(seg: Segment) -> dict:
            return {role: {**c, "file": str(seg.folder / f"{role}.cycles.tsv")}
                    for role, c in (seg.info.get("cycles") or {}).items()}

        return {"files": [{"path": str(f), **{k: s.info[k] for k in ("sha256", "triples", "counts", "n_bad_lines")},
                           "lines": s.info.get("lines", s.info["triples"]), "cycles": cycles(s)}
                          for f, s in zip(files, segs)],
                "ingested": [str(f) for f in read], "rebuilt": [str(f) for f in read if f in known],
                "lexicon": lex, "lexicon_rebuilt": repaired.get("problem"), "vocabulary": vocabulary.name,
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
    vocabulary : Vocabulary, optional
        The graph's vocabulary (DBpedia's by default).
    type_namespaces : list of str, optional
        IRI prefixes (or the vocabulary's short names: ``dbo``, ``yago``, ``schema``, ``wd``...) of
        the types to keep (default: the vocabulary's).
    skip_bad_lines : bool
        See :meth:`DumpIndex.segments`.
    progress : callable, optional
        ``progress(done_bytes, total_bytes, file_name)`` while files are ingested.

    Examples
    --------
    See the module.
    """

    def __init__(self, paths, index: DumpIndex, *, vocabulary: Vocabulary | None = None,
                 type_namespaces: Sequence[str] | None = None, skip_bad_lines: bool = False,
                 progress: Progress | None = None):
        self.paths, self.index = paths, index
        self.vocabulary = vocabulary or DBPEDIA
        self.type_namespaces = self.vocabulary.resolve_namespaces(type_namespaces)
        self.skip_bad_lines, self.progress = skip_bad_lines, progress
        self._segments: list[Segment] | None = None
        self._memo = {kind: MemoCache() for kind in FACT_ROLES}

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
            self._segments = self.index.segments(self.paths, vocabulary=self.vocabulary,
                                                 skip_bad_lines=self.skip_bad_lines, progress=self.progress)
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
        out = {"kind": "dump", "files": [str(p) for p in dump_files(self.paths)],
               "type_namespaces": list(self.type_namespaces), "index": [s.info["sha256"] for s in self.segments]}
        if self.vocabulary is not DBPEDIA:
            out["vocabulary"] = self.vocabulary.name
        return out

    def _ask(self, kind: str, items: Iterable[str]) -> dict[str, set[str]]:
        return self._memo[kind].ask(items, lambda todo: self._fetch(kind, todo))

    def _fetch(self, kind: str, todo: list[str]) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {x: set() for x in todo}
        keys = hash_keys(todo)
        for seg in self.segments:
            for q, iri in seg.facts(kind, keys):
                found[todo[q]].add(iri)
        return found

    def facts(self, kind: str, entities: Iterable[str]) -> dict[str, set[str]]:
        """The objects of one fact table (``same_as``, ``equivalent_class``, ...) for each subject.

        Parameters
        ----------
        kind : str
            One of :data:`kg.dbpedia.ingest.FACT_ROLES`.
        entities : iterable of str

        Returns
        -------
        dict

        Examples
        --------
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "s.nt").write_text("<http://dbpedia.org/resource/Lyon> <http://www.w3.org/2002/07/owl#sameAs> "
        ...                             "<http://www.wikidata.org/entity/Q456> .\\n")
        >>> IndexSource(d / "s.nt", DumpIndex(d / "i")).facts("same_as", ["http://dbpedia.org/resource/Lyon"])
        {'http://dbpedia.org/resource/Lyon': {'http://www.wikidata.org/entity/Q456'}}
        """
        if kind not in self._memo:
            raise ValueError(f"unknown fact table {kind!r} (one of {', '.join(FACT_ROLES)})")
        return self._ask(kind, entities)

    def types(self, entities: Iterable[str]) -> dict[str, set[str]]:
        """The instance-of objects of each entity in the type namespaces (see the module).

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
        """The categories (subject objects) of each entity.

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
        """Every subclass-of edge above the classes, both ends in the type namespaces.

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
        return edges_within(self._walk("subclass", classes, None), self.type_namespaces)

    def broader(self, categories: Iterable[str], depth: int | None) -> set[tuple[str, str]]:
        """Broader edges up to ``depth`` levels above the categories (cycles end the walk).

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
        return self._walk("broader", categories, depth)

    def _walk(self, kind: str, start: Iterable[str], depth: int | None) -> set[tuple[str, str]]:
        """:func:`~kg.dbpedia.sources.breadth_first_edges` over a graph table, in the space of keys: each level
        is one batched look-up per segment, and IRIs are read once, for the edges found."""
        if depth is not None and depth < 0:
            raise ValueError(f"depth must be >= 0 or None, got {depth}")
        start = sorted(set(start))
        if not start:
            return set()
        keys = hash_keys(start)
        seen = _as_void(keys)
        order = np.argsort(seen)
        seen = seen[order]
        names = dict(zip(seen.tolist(), [start[i] for i in order.tolist()]))
        segments = [s for s in self.segments if s.has(kind)]
        edges_c, edges_p, owner, owner_term = [], [], [], []
        frontier, level = keys, 0
        while len(frontier) and (depth is None or level < depth):
            found_p = []
            for k, seg in enumerate(segments):
                q, terms = seg.parent_terms(kind, frontier)
                if not len(q):
                    continue
                pk = _as_void(seg.term_keys(terms))
                edges_c.append(_as_void(frontier[q]))
                edges_p.append(pk)
                found_p.append(pk)
                owner.append(np.full(len(pk), k))
                owner_term.append(terms)
            if not found_p:
                break
            new = np.setdiff1d(np.concatenate(found_p), seen)  # sorted, distinct
            seen = np.union1d(seen, new)
            frontier = np.frombuffer(new.tobytes(), np.uint64).reshape(-1, 2)
            level += 1
        if not edges_c:
            return set()
        # the IRI of every parent that is not a start node, read from one segment that holds it
        pk, seg_of, term_of = np.concatenate(edges_p), np.concatenate(owner), np.concatenate(owner_term)
        _, first = np.unique(pk, return_index=True)
        unnamed = first[~np.isin(pk[first], np.asarray(list(names), dtype=pk.dtype))] if names else first
        for k in np.unique(seg_of[unnamed]).tolist():
            sel = unnamed[seg_of[unnamed] == k]
            names.update(zip(pk[sel].tolist(), segments[k].term_names(term_of[sel])))
        return {(names[a], names[b]) for a, b in zip(np.concatenate(edges_c).tolist(), pk.tolist())}
