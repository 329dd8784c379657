"""The dump index: each dump file read once into an on-disk segment, then every corpus is look-ups.

``kgfs ingest`` (and the first ``kgfs run/build/serve --dump``) reads each dump file once,
streaming, into a *segment* (:func:`kg.rdf.index.ingest.build_segment`) under the index folder
(``<kgfs home>/rdf-cache/index``): the facts a vocabulary asks for (types, categories, the
class and category graphs, ``owl:sameAs`` and ``owl:equivalentClass`` links; with a vocabulary
that indexes relations, the relation triples both ways and the subproperty graph) and the
lexicon's raw material (labels, redirects, in-link counts). A segment is named by the sha256 of its file's bytes,
hashed during that one read, and by the fingerprint of the vocabulary it was read with (a preset
reads other predicates): ingesting a file again is a no-op, a copy or a renamed file is recognised,
a new file adds a segment. New files can be read in parallel, each by one worker of an executor (worker
processes, or a Dask cluster whose workers share the storage: :meth:`DumpIndex.ingest`, ``kgfs ingest --n-jobs /
--dask-address``); the segments are those a serial ingest writes, byte for byte. A vocabulary that does not
index relations also uses the segment its relation-indexing twin (:meth:`Vocabulary.with_relations
<kg.rdf.vocabulary.Vocabulary.with_relations>`) made of a file, when there is no segment of its
own (it holds every table of the other and more). Unchanged files are recognised without reading them (``files.json``
remembers each path's size, modification time and inode with its sha256, under a checksum of its
own; paths are resolved, so ``d/../d/t.nt`` is ``d/t.nt``). The lexicon of a set of files
(:mod:`kg.rdf.index.lexicon`) is built from their segments once and kept beside them.

Nothing damaged is used (:mod:`kg.rdf.index.manifest`): each segment and lexicon folder gets a
``manifest.json`` of its files' sizes and sha256 (every file the builder left in it: arrays, string
columns, ``segment.json``/``lexicon.json``, the cycle lists), written last. Opening one checks sizes
and array headers (and hashes a file written since it was built); a damaged folder is an error naming
the file and the ``kgfs ingest`` command that rebuilds it, and :meth:`DumpIndex.ingest` (``kgfs
ingest``, and ``kgfs run/build/serve --dump`` before they start) rebuilds it with a warning instead.
With ``full=True`` (``kgfs ingest``) and in :meth:`DumpIndex.verify` (``kgfs cache verify``) every
file is hashed. What a build reads is checked too, block by block (:mod:`kg.rdf.index.blocks`: a CRC-32C
per 1 MiB block in the manifest, verified on first read): a damaged block names the file and the block,
and the step that read it stores nothing, removes the folder and runs again (the file is read again).
The unfinished ``.building-*`` folders of a killed ingest (with the sorted runs an
ingest spills into them) are removed by the next one.

A segment is read by :class:`kg.rdf.index.segment.Segment`, and
:class:`kg.rdf.sources.index.IndexSource` answers a run's questions from the segments of its dump files.

The layout on disk (the one place it is described; ``.npy`` files are plain NumPy arrays read with
``allow_pickle=False``; a *key* is the 128-bit BLAKE2b hash of a UTF-8 string as two ``uint64``,
:func:`kg.rdf.index.columns.hash_keys`; a *string column* ``X`` is ``X.bin``, the UTF-8 strings one
after another, and ``X.offsets.npy``, ``int64``, where string ``i`` is ``bin[offsets[i]:offsets[i+1]]``)::

    <index>/
      .lock                             held while files are ingested or a lexicon is built
      files.json                        {"files": resolved path -> [size, mtime_ns, inode, sha256] of every file
                                        ingested, "sha256": of those entries}
      segments/<sha256>.v<F>.<V>/       one ingested file: F = ingest.FORMAT (3), V = Vocabulary.fingerprint()
        manifest.json                   every other file of the folder: size, mtime, sha256 of its head and of
                                        its bytes (kg.rdf.index.manifest), the CRC-32C of each of its 1 MiB
                                        blocks (kg.rdf.index.blocks: verified as a build reads them), written
                                        last
        segment.json                    name, size, sha256, format, vocabulary (name, fingerprint, predicates,
                                        language; relations, not_relations when it indexes relations), triples
                                        parsed, lines read, counts per table, cycles per graph role,
                                        n_bad_lines, bad_lines (the first 100: [path, line, message]), seconds
        terms.keys.npy                  (2, T) uint64: the keys of every object IRI of a fact table (and of
                                        every subject, predicate and object of a relation table), sorted,
                                        distinct; a term's id is its position here
        terms.row.npy                   (T,) int64: the row of each term's string in the string column `terms`
        terms.bin, terms.offsets.npy    string column `terms` (a term may be written more than once; rows
                                        not pointed at are unused copies)
        <role>.keys.npy                 (2, n) uint64: subject keys, sorted (a subject with k facts has k rows)
        <role>.objects.npy              (n,) uint32: the object's term id of each row
                                        role: types (instance of), categories (subject), subclass, broader,
                                        same_as, equivalent_class (every role is written, maybe empty), and
                                        subproperty (only by a vocabulary that indexes relations)
        relations_out.keys.npy          (2, r) uint64: the subject keys of the relation triples (a relation
                                        predicate of the vocabulary, subject and object IRIs), sorted; only
                                        by a vocabulary that indexes relations (as the three files below)
        relations_out.objects.npy       (r,) uint32: the object's term id of each row
        relations_out.predicates.npy    (r,) uint32: the predicate's term id of each row
        relations_in.keys.npy           (2, r) uint64: the object keys of the same triples, sorted
        relations_in.subjects.npy       (r,) uint32: the subject's term id of each row
        relations_in.predicates.npy     (r,) uint32: the predicate's term id of each row
        subclass.cycles.tsv,            the strongly connected components of the graph (one per line, its
        broader.cycles.tsv,             IRIs tab-separated, sorted), then its self-loops (one IRI per line)
        subproperty.cycles.tsv
        labels.subject, labels.text     string columns: every label (vocabulary's labels, in its language or
                                        untagged) of a resource under its `entities` namespaces, file order
        redirects.source,               string columns: every redirect of such a resource, file order
        redirects.target
        names.text                      string column: the labels of IRIs outside the lexicon's (an ontology's
                                        classes; skos:prefLabel of categories), file order
        names.keys.npy                  (2, n) uint64: the keys of the IRIs the file labels, sorted (one each)
        names.row.npy                   (n,) int64: the row of its best label: in labels.text, or (from the
                                        number of labels on) in names.text
        names.rank.npy                  (n,) int8: that label's rank (ingest.NAME_PREDICATES, language first)
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
        spans.keys.npy, spans.kind.npy  the 64-bit keys of every form and token prefix, sorted, and which each
                                        is (what the annotator looks a batch's spans up in: kg.rdf.index.spans)

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
>>> from kg.rdf.sources.index import IndexSource
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

import dataclasses
import hashlib
import json
import logging
import os
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path

from kg.errors import InputFormatError
from kg.files import atomic_write, file_lock
from kg.rdf.dumpfiles import dump_files
from kg.rdf.index.blocks import BlockDamaged, manifest_key
from kg.rdf.index.extsort import SpillPool
from kg.rdf.index.ingest import FORMAT, build_segment_folder
from kg.rdf.index.lexicon import open_lexicon
from kg.rdf.index.manifest import MANIFEST, IndexDamaged, Problem, check_folder
from kg.rdf.index.segment import Segment
from kg.rdf.vocabulary import DBPEDIA, PRESETS, Vocabulary
from kg.store.keys import code_digest

__all__ = ["DumpIndex", "IndexDamaged", "index_for_cache", "ingest_summary", "rebuild_command"]

log = logging.getLogger(__name__)

#: ``progress(done_bytes, total_bytes, file_name)`` while dump files are read (``(0, 0, "lexicon")``
#: while :meth:`DumpIndex.ingest` builds the lexicon).
Progress = Callable[[int, int, str], None]


def index_for_cache(cache_dir: str | os.PathLike) -> DumpIndex:
    """The dump index kept in a DBpedia cache folder (``<cache_dir>/index``).

    Parameters
    ----------
    cache_dir : path
        The route's cache folder (``<kgfs home>/rdf-cache`` for the command line).

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
                # categories' cycles are data errors, broken; a transitive relation's become one feature each
                what = "broken in each table" if role == "broader" else "each merged into one feature in each table"
                lines.append(f"{Path(f['path']).name}: the {role} graph has {c['cycles']:,} cycle(s) through "
                             f"{c['nodes']:,} node(s), {what} (listed in {c['file']})")
    lex = report.get("lexicon")
    if lex:
        lines.append(f"lexicon: {lex['n_surface_forms']:,} surface forms of {lex['n_entities']:,} entities "
                     f"({lex['ambiguous']:,} ambiguous, prior: {lex['prior_source']})")
    lines.append(f"index: {root} ({report['bytes'] / 1e6:.0f} MB)")
    return "\n".join(lines)


def _digest(entries: dict) -> str:
    return hashlib.sha256(json.dumps(entries, sort_keys=True).encode()).hexdigest()


def rebuild_command(paths, vocabulary: Vocabulary = DBPEDIA) -> str:
    """The command that reads dump files into the index again (named by the errors of damaged index files).

    Parameters
    ----------
    paths : path or list of paths
    vocabulary : Vocabulary
        The vocabulary the files were read with (``--preset`` unless DBpedia's; ``--relations`` when it
        indexes relations).

    Returns
    -------
    str

    Examples
    --------
    >>> rebuild_command(["/d/a.nt", "/d/b.nt"])
    'kgfs ingest --dump /d/a.nt /d/b.nt'
    >>> from kg.rdf.vocabulary import WIKIDATA
    >>> rebuild_command("/d/latest-truthy.nt.bz2", WIKIDATA.with_language("de"))
    'kgfs ingest --preset wikidata --language de --dump /d/latest-truthy.nt.bz2'
    >>> rebuild_command("/d/latest-truthy.nt.bz2", WIKIDATA.with_relations())
    'kgfs ingest --preset wikidata --relations --dump /d/latest-truthy.nt.bz2'
    """
    paths = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    preset = ""
    plain = dataclasses.replace(vocabulary, index_relations=False)
    if plain != DBPEDIA:  # a preset by its name (a TOML file's path is the user's)
        base = PRESETS.get(vocabulary.name)
        preset = f"--preset {vocabulary.name} " if base is not None else "--preset YOUR_PRESET.toml "
        if base is not None and vocabulary.language != base.language:
            preset += f"--language {shlex.quote(str(vocabulary.language))} "
    if vocabulary.index_relations:
        preset += "--relations "
    return f"kgfs ingest {preset}--dump " + " ".join(shlex.quote(str(p)) for p in paths)


def _readers(vocabulary: Vocabulary) -> tuple[Vocabulary, ...]:
    """The vocabularies whose segments answer ``vocabulary``'s questions, preferred first: itself, then (for one
    that does not index relations) its twin that does (same roles, labels and language; its line filter keeps
    more lines, so it holds every fact of the other)."""
    if vocabulary.index_relations or not vocabulary.relations_supported:
        return (vocabulary,)
    return vocabulary, vocabulary.with_relations()


def _remove_leftovers(folder: Path) -> list[Path]:
    """The ``.building-<pid>-*`` folders of ingests that were killed (called under the index lock, so no live
    ingest is writing one), removed."""
    gone = sorted(folder.glob(".building-*")) if folder.is_dir() else []
    for d in gone:
        shutil.rmtree(d, ignore_errors=True)
        log.info("removed %s, left by an ingest that was killed", d)
    return gone


class DumpIndex:
    """The segments of ingested dump files (and their lexicons) in a folder.

    Parameters
    ----------
    root : path
        The index folder (created on first ingest).
    spill_bytes : int, optional
        The memory an ingest or a lexicon build may hold in rows before it sorts them into runs
        on disk (:class:`~kg.rdf.index.extsort.SpillPool`; its default otherwise). Its peak memory
        is about twice this plus the blocks being read, whatever the dump's size.

    Examples
    --------
    See the module.
    """

    def __init__(self, root: str | os.PathLike, *, spill_bytes: int | None = None):
        self.root = Path(root)
        self.spill_bytes = spill_bytes

    def _pool(self):
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
        path = Path(path).resolve()
        folder = self._known_folder(path, vocabulary)
        return None if folder is None else Segment(folder, rebuild_command(path, vocabulary))

    def _known_folder(self, path: Path, vocabulary: Vocabulary) -> Path | None:
        """The segment folder of a resolved path ingested with ``vocabulary`` (or its relation-indexing twin, a
        superset) and unchanged since (not checked), else ``None``."""
        entry = self._known().get(str(path))
        if entry is None or entry[:3] != self._stat_key(path):
            return None
        for v in _readers(vocabulary):
            folder = self._segment_dir(entry[3], v)
            if (folder / MANIFEST).is_file():
                return folder
        return None

    def _remember(self, path: Path, stat_key: list, sha256: str) -> None:
        known = self._known()
        known[str(path)] = [*stat_key, sha256]
        text = json.dumps({"files": known, "sha256": _digest(known)}, indent=0, sort_keys=True)  # any order of ingest
        atomic_write(self.root / "files.json", lambda tmp: tmp.write_text(text, encoding="utf-8"))

    # ------------------------------------------------------------------ ingest
    def _ingest_file(self, path: Path, vocabulary: Vocabulary, skip_bad_lines: bool,
                     progress: Callable[[int], None] | None) -> Segment:
        stat_key = self._stat_key(path)
        tmp = self.root / "segments" / f".building-{os.getpid()}-{path.name}"
        try:
            info = build_segment_folder(str(path), str(tmp), vocabulary, skip_bad_lines, self.spill_bytes, progress)
            return self._place(path, stat_key, tmp, info, vocabulary)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _place(self, path: Path, stat_key: list, tmp: Path, info: dict, vocabulary: Vocabulary) -> Segment:
        """A segment built in ``tmp`` (with its manifest) moved into place, and its file remembered."""
        final = self._segment_dir(info["sha256"], vocabulary)
        if not check_folder(final, full=True):  # the same content was ingested under another name
            shutil.rmtree(tmp)
        else:
            shutil.rmtree(final, ignore_errors=True)  # unfinished, damaged, or of a kgfs without manifests
            os.replace(tmp, final)
        self._remember(path, stat_key, info["sha256"])
        log.info("ingested %s: %d triples in %.1f s", path, info["triples"], info["seconds"])
        return Segment(final, rebuild_command(path, vocabulary))

    def _ingest_files(self, todo: list[Path], vocabulary: Vocabulary, skip_bad_lines: bool,
                      progress: Progress | None, executor) -> dict[Path, Segment]:
        """New files read into segments: one after another, or each by a worker of ``executor`` (into a
        ``.building-*`` folder under the index's ``segments``, on storage the workers share); every file that was
        read is kept, then the first error is raised."""
        total = sum(f.stat().st_size for f in todo)
        (self.root / "segments").mkdir(parents=True, exist_ok=True)
        if executor is None or len(todo) < 2:
            out, done = {}, 0
            for f in todo:
                report = None
                if progress is not None:
                    def report(n, base=done, name=f.name):
                        progress(base + n, total, name)
                out[f] = self._ingest_file(f, vocabulary, skip_bad_lines, report)  # (checksummed as written)
                done += f.stat().st_size
            return out
        from concurrent.futures import as_completed

        code = code_digest()
        jobs = {}
        for i, f in enumerate(todo):
            tmp = self.root / "segments" / f".building-{os.getpid()}-{i}-{f.name}"
            jobs[executor.submit(build_segment_folder, str(f), str(tmp), vocabulary, skip_bad_lines,
                                 self.spill_bytes, None, code)] = (f, self._stat_key(f), tmp)
        out, done, errors = {}, 0, []
        if progress is not None:
            progress(0, total, f"{len(todo)} files in parallel")
        finished = 0
        for fut in as_completed(jobs):
            f, stat_key, tmp = jobs[fut]
            try:
                out[f] = self._place(f, stat_key, tmp, fut.result(), vocabulary)
            except Exception as exc:  # noqa: BLE001 - the other files' segments are kept; the first error raised
                errors.append((todo.index(f), exc))
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            done, finished = done + f.stat().st_size, finished + 1
            if progress is not None:
                progress(done, total, f"{len(todo)} files in parallel, {finished} done")
        if errors:
            raise min(errors, key=lambda e: e[0])[1]
        return out

    def _open(self, files: list[Path], vocabulary: Vocabulary, skip_bad_lines: bool, progress: Progress | None,
              repair: bool, full: bool, executor=None) -> tuple[list[Segment], list[Path]]:
        """The segments of resolved dump files, ingesting new ones (and, with ``repair``, damaged ones), and the
        files read now."""
        found: dict[Path, Segment | None] = {}
        for f in files:  # each folder checked before anything of it is read (its segment.json too)
            folder = self._known_folder(f, vocabulary)
            problems = check_folder(folder, full=full) if folder is not None else []
            if problems and not repair:  # (repairable: a run's step removes the folder and runs again)
                raise BlockDamaged(problems, rebuild_command(f, vocabulary), folder, manifest_key(folder))
            if problems:  # one line: the file under the index folder, the dump file by its name
                bad = problems[0].file
                log.warning("dump index file %s: %s; reading %s into the index again",
                            bad.relative_to(self.root) if bad.is_relative_to(self.root) else bad, problems[0].problem,
                            f.name)
            found[f] = Segment(folder, rebuild_command(f, vocabulary)) \
                if folder is not None and not problems else None
        todo = [f for f in files if found[f] is None]
        if todo or repair:  # ``repair`` (an ingest): also to remove what killed ingests left
            with file_lock(self.root / ".lock"):  # another process may have ingested them meanwhile
                _remove_leftovers(self.root / "segments")
                for f in todo:
                    folder = self._known_folder(f, vocabulary)
                    found[f] = Segment(folder, rebuild_command(f, vocabulary)) \
                        if folder is not None and not check_folder(folder, full=full) else None
                todo = [f for f in todo if found[f] is None]
                found.update(self._ingest_files(todo, vocabulary, skip_bad_lines, progress, executor))
        out = [found[f] for f in files]
        for seg, f in zip(out, files):
            if seg.info["n_bad_lines"] and not skip_bad_lines:
                _path, line, msg = seg.info["bad_lines"][0]
                raise InputFormatError(f"malformed RDF: {msg}; pass skip_bad_lines=True to "
                                       "skip it", f, line)
        return out, todo

    def segments(self, paths, *, vocabulary: Vocabulary = DBPEDIA, skip_bad_lines: bool = False,
                 progress: Progress | None = None) -> list[Segment]:
        """The segments of dump files and folders (in :func:`~kg.rdf.dumpfiles.dump_files` order), ingested if new.

        Each segment is checked first (sizes and array headers, :func:`kg.rdf.index.manifest.check_folder`).

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
            As in :meth:`kg.rdf.annotators.lexicon.LexiconAnnotator.from_dump`.

        Returns
        -------
        kg.rdf.index.mentions.IndexedLexicon

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
        with file_lock(self.root / ".lock"):
            _remove_leftovers(self.root / "lexicons")
            return open_lexicon(segs, self.root / "lexicons", vocabulary=vocabulary, min_length=min_length,
                                prior=prior, pool=self._pool(), rebuild=rebuild_command(files, vocabulary),
                                repair=repair)

    def ingest(self, paths, *, vocabulary: Vocabulary = DBPEDIA, skip_bad_lines: bool = False,
               progress: Progress | None = None, lexicon: bool = True, full: bool = False, executor=None) -> dict:
        """Ingest dump files (the new ones) and build their lexicon: what ``kgfs ingest`` does.

        A segment or lexicon that does not check (:mod:`kg.rdf.index.manifest`) is built again, with a warning.

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
        executor : concurrent.futures.Executor, optional
            Read the new files in parallel, each by one of its workers (a ``ProcessPoolExecutor``, or a Dask
            cluster's ``Client.get_executor()``: ``kgfs ingest --n-jobs / --dask-address``) into a folder under
            the index, which must be on storage every worker sees at the same path, as the dump files; the
            segments are those of a serial ingest, byte for byte (:func:`build_segment_folder`; a worker with
            other code is refused). This process places them and builds the lexicon. One file is read by one
            worker: a dump that is one file (Wikidata's truthy dump) is not spread.

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
        for attempt in range(3):  # a block that does not have its checksum: its folder removed, built again
            try:
                return self._ingest(files, known, vocabulary, skip_bad_lines, progress, lexicon, full, executor)
            except BlockDamaged as exc:
                if attempt == 2:
                    raise
                exc.repair()
        raise AssertionError("unreachable")  # pragma: no cover

    def _ingest(self, files: list[Path], known: set[Path], vocabulary: Vocabulary, skip_bad_lines: bool,
                progress: Progress | None, lexicon: bool, full: bool, executor=None) -> dict:
        segs, read = self._open(files, vocabulary, skip_bad_lines, progress, True, full, executor)
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
