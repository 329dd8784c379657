"""Reading RDF dump files: which files, in which format, decompressed and streamed by pyoxigraph's parser.

Accepted files: N-Triples (``.nt``), Turtle (``.ttl``; ``.n3``, as Wikidata's ``Special:EntityData`` exports
its Turtle), N-Quads (``.nq``) and RDF/XML (``.owl``, ``.rdf``, ``.xml``, e.g. the DBpedia ontology), each plain,
``.gz`` or ``.bz2``. RDF/XML is first scanned by :func:`kg.xmlguard.check_xml` (entities and nesting bounded).
A directory stands for every such file in it (sorted): :func:`dump_files`. :class:`DumpReader`
streams the triples of one file (never loaded into a store); :class:`kg.rdf.sources.dump.DumpSource`,
the dump index's ingest and the lexicon read dumps through it.

A malformed line raises :class:`~kg.errors.InputFormatError` naming the file and line; with
``skip_bad_lines=True`` the reader logs it, records it in the caller's ``bad_lines`` list and goes on
after that line (line-based formats, N-Triples/N-Quads, only: in Turtle or RDF/XML a bad
statement leaves the parser in an unknown state, so it is always an error there).

Language tags with a subtag over 8 characters (``"..."@zh-classical``, which Wikidata writes) are refused by
pyoxigraph's strict parser; on that error the file is read again leniently from where it stopped
(line-based formats: that line; Turtle / RDF/XML: from the start, the statements already given skipped and
their blank nodes kept), kgfs's own IRI check (:func:`kg.iri.check_iri`) applied to every IRI the lenient parser
returns, and a warning says so once (:attr:`DumpReader.long_language_tags`).

Examples
--------
>>> import pathlib, tempfile
>>> p = pathlib.Path(tempfile.mkdtemp()) / "t.nt.gz"
>>> import gzip; _ = p.write_bytes(gzip.compress(b"<http://x/a> <http://x/p> <http://x/b> .\\n"))
>>> dump_format(p) == ox.RdfFormat.N_TRIPLES, [q.object.value for q in DumpReader(p)]
(True, ['http://x/b'])
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import pyoxigraph as ox

from kg.errors import InputFormatError, KgfsError
from kg.iri import check_iri
from kg.rdf.lineblocks import BlockFilter, FilterProcess
from kg.rdf.streams import HashingFile, Piped, finish_reading, open_binary
from kg.xmlguard import check_xml

__all__ = ["DumpReader", "dump_files", "dump_format", "iter_triples"]

log = logging.getLogger(__name__)

_FORMATS = {
    ".nt": ox.RdfFormat.N_TRIPLES,
    ".ntriples": ox.RdfFormat.N_TRIPLES,
    ".nq": ox.RdfFormat.N_QUADS,
    ".ttl": ox.RdfFormat.TURTLE,
    ".n3": ox.RdfFormat.TURTLE,  # Wikidata's Special:EntityData/Q42.n3 is Turtle
    ".owl": ox.RdfFormat.RDF_XML,
    ".rdf": ox.RdfFormat.RDF_XML,
    ".xml": ox.RdfFormat.RDF_XML,
}
_LINE_BASED = (ox.RdfFormat.N_TRIPLES, ox.RdfFormat.N_QUADS)
_BNODE = ox.BlankNode
#: Files from this size (on disk; a compressed file's size x 8) are read and filtered in a process of their own
#: (:class:`kg.rdf.lineblocks.FilterProcess`)
FILTER_PROCESS_MIN_BYTES = 32 << 20
_LONG_TAG = re.compile(r"language tag|subtag", re.IGNORECASE)  # pyoxigraph's messages for a tag it refuses
_said_long_tags = False  # the warning about long language tags is logged once per process


def _long_tag_error(exc: SyntaxError) -> bool:
    return bool(_LONG_TAG.search(str(exc.msg if hasattr(exc, "msg") else exc)))


def _say_long_tags(path: Path) -> None:
    global _said_long_tags
    level = logging.DEBUG if _said_long_tags else logging.WARNING
    _said_long_tags = True
    log.log(level, "%s: language tags with a subtag over 8 characters (e.g. @zh-classical, as Wikidata writes) "
            "accepted: read leniently, its IRIs checked by kgfs (said once)", path)


def _split_name(path: Path) -> tuple[str, str | None]:
    """(format suffix, compression) of a dump file name."""
    name = path.name.lower()
    comp = None
    for c in (".gz", ".bz2"):
        if name.endswith(c):
            comp, name = c, name[: -len(c)]
    return os.path.splitext(name)[1], comp


def dump_files(paths: str | os.PathLike | Iterable[str | os.PathLike]) -> list[Path]:
    """Expand files and directories into the list of readable dump files (sorted per directory).

    Parameters
    ----------
    paths : path or iterable of paths
        Dump files (``.nt``, ``.ttl``, ``.n3``, ``.nq``, ``.owl``, ``.rdf``, ``.xml``, optionally
        ``.gz``/``.bz2``) and directories of them.

    Returns
    -------
    list of Path

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("types.nt.bz2", "ontology.owl", "notes.txt"):
    ...     _ = (d / name).write_bytes(b"")
    >>> [p.name for p in dump_files(d)]
    ['ontology.owl', 'types.nt.bz2']
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found = sorted(f for f in p.iterdir() if f.is_file() and _split_name(f)[0] in _FORMATS)
            if not found:
                raise KgfsError(f"{p}: no dump files (.nt/.ttl/.n3/.nq/.owl/.rdf, optionally .gz/.bz2) in this "
                                "directory")
            out.extend(found)
        elif p.is_file():
            if _split_name(p)[0] not in _FORMATS:
                raise InputFormatError(
                    "unknown dump format (expected .nt, .ttl, .n3, .nq, .owl, .rdf or .xml, optionally .gz/.bz2)", p
                )
            out.append(p)
        else:
            raise FileNotFoundError(f"dump not found: {p}")
    if not out:
        raise KgfsError("no dump files given")
    return out


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def dump_format(path: str | os.PathLike) -> ox.RdfFormat:
    """The RDF format of a dump file, from its name (``.nt``, ``.ttl``, ``.nq``, ``.owl``, ... + ``.gz``/``.bz2``).

    Parameters
    ----------
    path : path

    Returns
    -------
    pyoxigraph.RdfFormat

    Raises
    ------
    InputFormatError
        For an unknown extension.

    Examples
    --------
    >>> dump_format("instance_types_en.nt.bz2") == ox.RdfFormat.N_TRIPLES
    True
    """
    fmt = _FORMATS.get(_split_name(Path(path))[0])
    if fmt is None:
        raise InputFormatError("unknown dump format", path)
    return fmt


class DumpReader:
    """The triples (quads) of one dump file, streamed with pyoxigraph; :attr:`bytes_read` tells how far.

    Parameters
    ----------
    path : path
    skip_bad_lines : bool
        For N-Triples/N-Quads: log and skip a malformed line instead of raising.
    bad_lines : list, optional
        Receives ``(path, line, message)`` for each skipped line.
    lenient : bool
        pyoxigraph's lenient mode: IRIs and language tags are not validated (faster; accepts
        dumps with slightly invalid IRIs, as some Wikidata/DBpedia releases have).
    line_filter : kg.rdf.index.linefilter.LineFilter, optional
        For N-Triples/N-Quads: only the lines it keeps are parsed (the others are skipped unparsed:
        a malformed one among them is not seen); the file is read in blocks of lines.

    Attributes
    ----------
    size : int
        The file's size in bytes (compressed, as on disk).
    sha256 : str or None
        The sha256 of the file's bytes, once it was read to the end (the one read that parses it).
    lines : int
        The lines read so far (with a ``line_filter``; ``0`` otherwise).
    long_language_tags : bool
        Whether the file had a language tag pyoxigraph's strict parser refuses (a subtag over 8 characters)
        and was read leniently from there, its IRIs checked by :func:`kg.iri.check_iri`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.nt"
    >>> _ = p.write_text("<http://x/a> <http://x/p> <http://x/b> .\\n")
    >>> reader = DumpReader(p)
    >>> [q.object.value for q in reader], reader.bytes_read == reader.size, reader.sha256[:8]
    (['http://x/b'], True, '9d22cb0d')
    """

    def __init__(self, path: str | os.PathLike, *, skip_bad_lines: bool = False, bad_lines: list | None = None,
                 lenient: bool = False, line_filter=None):
        self.path = Path(path)
        self.format = dump_format(self.path)
        self.skip_bad_lines, self.lenient = skip_bad_lines, lenient
        self.bad_lines = [] if bad_lines is None else bad_lines
        self.line_filter = line_filter if self.format in _LINE_BASED else None
        self.size = self.path.stat().st_size
        self.sha256: str | None = None
        self.lines = 0
        self.long_language_tags = False
        self._raw: HashingFile | None = None
        self._blocks: BlockFilter | FilterProcess | None = None

    @property
    def bytes_read(self) -> int:
        """Bytes of the file read so far (of the compressed file for ``.gz``/``.bz2``).

        Returns
        -------
        int

        Examples
        --------
        See the class.
        """
        src = self._blocks if self._blocks is not None else self._raw
        return 0 if src is None else src.count

    def __iter__(self) -> Iterator[ox.Quad]:
        if self.line_filter is not None:
            yield from self._filtered()
            return
        path, fmt = self.path, self.format
        comp = _split_name(path)[1]
        # relative IRIs (RDF/XML without xml:base) resolve against the file, as the RDF specs say
        base = path.resolve().as_uri() if fmt == ox.RdfFormat.RDF_XML else None
        if fmt == ox.RdfFormat.RDF_XML:
            check_xml(path)  # entities and nesting bounded before pyoxigraph expands them (kg.xmlguard)
        start = 0  # lines already consumed (skipped past a bad line)
        given, blanks = 0, []  # quads given by a strict pass of a statement-based format; those with blank nodes
        while True:
            try:
                with open(path, "rb") as raw:
                    self._raw = HashingFile(raw)  # a reopened file is hashed from its start again
                    fh = open_binary(self._raw, comp)
                    try:
                        for _ in range(start):
                            fh.readline()
                        try:
                            relaxed = self.long_language_tags
                            quads = ox.parse(input=fh, format=fmt, base_iri=base, lenient=self.lenient or relaxed)
                            if relaxed:
                                yield from self._checked(quads, given, blanks)
                            elif fmt in _LINE_BASED:
                                yield from quads
                            else:
                                for q in quads:  # the blank nodes given, to keep them on a lenient re-read
                                    if type(q.subject) is _BNODE or type(q.object) is _BNODE:
                                        blanks.append((given, q))
                                    given += 1
                                    yield q
                        except SyntaxError:
                            if isinstance(fh, Piped):  # a corrupt file gives garbage or a cut line: say so
                                fh.check(drain=0 if self.skip_bad_lines else 2 << 20)
                            raise
                        finish_reading(fh, self._raw)
                    finally:
                        if fh is not self._raw:
                            fh.close()
                self.sha256 = self._raw.hash.hexdigest()
                return
            except SyntaxError as exc:
                if not (self.lenient or self.long_language_tags) and _long_tag_error(exc):
                    self.long_language_tags = True
                    _say_long_tags(path)
                    if fmt in _LINE_BASED:
                        start += (exc.lineno or 1) - 1  # that line again, leniently
                    continue
                start = self._bad_line(exc, start)
            except (OSError, EOFError) as exc:
                if isinstance(exc, FileNotFoundError):
                    raise
                raise InputFormatError(f"cannot read dump ({exc})", path) from None

    def _checked(self, quads, skip: int = 0, blanks=()) -> Iterator[ox.Quad]:
        """Quads of a lenient parse with kgfs's IRI check; the first ``skip`` (given by the strict pass) left out,
        their blank nodes renamed to the strict pass's (``blanks``: its ``(index, quad)`` with blank nodes; a
        parser names an anonymous blank node anew on each read)."""
        by_index, rename = dict(blanks), {}
        ok: set[str] = set()

        def iri(term):
            if isinstance(term, ox.Literal):
                term = term.datatype
            if isinstance(term, ox.NamedNode) and term.value not in ok:
                try:
                    check_iri(term.value)
                except InputFormatError:
                    raise InputFormatError(f"invalid IRI {term.value!r} (the file was read leniently for its long "
                                           f"language tags; kgfs's IRI check refuses it)", self.path) from None
                if len(ok) < 100_000:
                    ok.add(term.value)

        def same(term):
            return rename.get(term, term) if isinstance(term, ox.BlankNode) else term

        for i, q in enumerate(quads):
            if i < skip:
                strict = by_index.get(i)
                if strict is not None:
                    for a, b in ((q.subject, strict.subject), (q.object, strict.object)):
                        if isinstance(a, ox.BlankNode):
                            rename[a] = b
                continue
            iri(q.subject), iri(q.predicate), iri(q.object), iri(q.graph_name)
            if rename and (isinstance(q.subject, ox.BlankNode) or isinstance(q.object, ox.BlankNode)):
                q = ox.Quad(same(q.subject), q.predicate, same(q.object), q.graph_name)
            yield q

    def _filtered(self) -> Iterator[ox.Quad]:
        """The triples of the lines the filter keeps, parsed a block of lines at a time; reading, hashing and
        filtering in a process of their own when the file is large and a second core is there
        (:class:`~kg.rdf.lineblocks.FilterProcess`), in this one otherwise (:class:`~kg.rdf.lineblocks.BlockFilter`):
        the same blocks either way."""
        fmt, lenient, filt = self.format, self.lenient, self.line_filter
        comp = _split_name(self.path)[1]
        # a compressed file holds several times its size in lines (a dump's .bz2 about 20x, .gz 8x)
        big = self.size * (8 if comp else 1) >= FILTER_PROCESS_MIN_BYTES and _cores() > 1
        blocks = FilterProcess(self.path, filt, comp) if big else BlockFilter(self.path, filt, comp)
        self._blocks = blocks
        try:
            done = 0  # lines before this block
            for kept, lines, n in blocks:
                if len(lines):
                    yield from self._parse_block(kept, lines, done, fmt, lenient)
                done += n
                self.lines = done
        finally:
            blocks.close()
        self.sha256 = blocks.sha256

    def _parse_block(self, kept: bytes, lines: np.ndarray, done: int, fmt, lenient) -> Iterator[ox.Quad]:
        """Parse the kept lines of a block (``lines``: the index of each in the block, which starts after line
        ``done`` of the file); a malformed one is named by its line in the file."""
        start, ends = 0, None  # kept lines parsed already (a bad one skipped); where each kept line ends
        while True:
            body = kept if not start else kept[int(ends[start - 1]) + 1:]
            try:
                if self.long_language_tags:
                    yield from self._checked(ox.parse(input=body, format=fmt, lenient=True))
                else:
                    yield from ox.parse(input=body, format=fmt, lenient=lenient)
                return
            except SyntaxError as exc:
                if ends is None:
                    ends = np.flatnonzero(np.frombuffer(kept, np.uint8) == 10)  # the newline ending each kept line
                k = min(start + (exc.lineno or 1) - 1, len(lines) - 1)
                if not (lenient or self.long_language_tags) and _long_tag_error(exc):
                    self.long_language_tags = True  # that line again, leniently (and the rest of the file)
                    _say_long_tags(self.path)
                    start = k
                    continue
                self._bad_line_at(exc, done + int(lines[k]) + 1)
                start = k + 1
                if start >= len(lines):
                    return

    def _bad_line_at(self, exc: SyntaxError, line: int) -> None:
        """Raise on a malformed line (its number in the file), or record it."""
        msg = re.sub(r"^Parser error at line \d+ between columns \d+ and \d+: ", "",
                     str(exc.msg if hasattr(exc, "msg") else exc))
        if not self.skip_bad_lines:
            raise InputFormatError(f"malformed RDF: {msg}; pass skip_bad_lines=True to skip it",
                                   self.path, line) from None
        log.warning("%s:%d: skipping malformed line: %s", self.path, line, msg)
        self.bad_lines.append((str(self.path), line, msg))

    def _bad_line(self, exc: SyntaxError, start: int) -> int:
        """Raise on a malformed statement, or record it and return the lines to skip on reopening."""
        line = start + (exc.lineno or 1)
        msg = str(exc.msg if hasattr(exc, "msg") else exc)
        if not self.skip_bad_lines or self.format not in _LINE_BASED:
            hint = ("; pass skip_bad_lines=True to skip it" if self.format in _LINE_BASED
                    else " (a bad statement cannot be skipped in this format)")
            raise InputFormatError(f"malformed RDF: {msg}{hint}", self.path, line) from None
        log.warning("%s:%d: skipping malformed line: %s", self.path, line, msg)
        self.bad_lines.append((str(self.path), line, msg))
        return line


def iter_triples(
    path: str | os.PathLike, *, skip_bad_lines: bool = False, bad_lines: list | None = None,
    lenient: bool = False,
) -> Iterator[ox.Quad]:
    """Stream the triples (quads) of one dump file with pyoxigraph (see :class:`DumpReader`).

    Parameters
    ----------
    path : path
    skip_bad_lines, bad_lines, lenient
        As in :class:`DumpReader`.

    Yields
    ------
    pyoxigraph.Quad
        One per triple (the default graph for triple formats).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.nt"
    >>> _ = p.write_text("<http://x/a> <http://x/p> <http://x/b> .\\nthis is not a triple\\n"
    ...                  "<http://x/a> <http://x/p> <http://x/c> .\\n")
    >>> bad = []
    >>> [q.object.value for q in iter_triples(p, skip_bad_lines=True, bad_lines=bad)], bad[0][1]
    (['http://x/b', 'http://x/c'], 2)
    """
    return iter(DumpReader(path, skip_bad_lines=skip_bad_lines, bad_lines=bad_lines, lenient=lenient))


