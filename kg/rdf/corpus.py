"""Corpus readers: labelled instances with a text (to annotate) or entity IRIs (already linked).

Formats:

- CSV / TSV / JSONL (by extension, or ``format=``): one record per row with an id column, a
  text column *or* one or more entity columns, and a label column. In entity columns, several
  IRIs in one cell are separated by whitespace; ``?`` and empty cells mean "none".
- The Sports Tweets file of the SHSEL paper (``training.txt``/``test.txt``):
  ``<id> <label> '<text>'`` per record (``<id> '<text>'`` when unlabelled), the text quoted
  with ``'`` or ``"`` as a Python literal (``\\u2019`` escapes), a record possibly spanning
  several lines. Read it with :func:`read_sports_tweets`.

Examples
--------
>>> import io, tempfile, os
>>> p = os.path.join(tempfile.mkdtemp(), "c.tsv")
>>> _ = open(p, "w").write("id\\ttext\\tlabel\\n1\\tKobe Bryant scores\\tsport\\n")
>>> c = read_corpus(p)
>>> c.ids, c.texts, c.labels
(['1'], ['Kobe Bryant scores'], ['sport'])
"""

from __future__ import annotations

import ast
import bz2
import csv
import gzip
import io
import itertools
import json
import logging
import os
import re
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kg.errors import InputFormatError, KgfsError
from kg.iri import normalize_iri

__all__ = ["MAX_RECORD_BYTES", "BadRecords", "Corpus", "EntityColumns", "OptionalColumn", "load_corpus", "read_corpus",
           "read_sports_tweets"]

log = logging.getLogger(__name__)

#: The largest record (line, or quoted record of several lines) a corpus may hold by default: 8 MiB, a long book
#: chapter or the longest Wikipedia article several times over. A longer one is an error naming its file and line
#: (``--skip-bad-lines`` skips it): it is read in pieces up to this size, so a hostile file cannot exhaust memory.
MAX_RECORD_BYTES = 8 << 20
_MISSING = {"", "?", "nan", "none", "null"}
_WS = re.compile(r"[ \t\r\n]+")  # ASCII only: DBpedia IRIs may hold U+00A0
#: Column names that name rows (besides ``id``): ``tweet_id``, ``geneId``, and these whole names, any case.
_ID_NAMES = {"qid", "pid", "uid", "uuid", "iri", "uri", "identifier", "accession", "key"}


def _looks_like_id(column: str) -> bool:
    """Whether a column's name says it names the rows (``tweet_id``, ``geneId``, ``QID``, ``iri``).

    Examples
    --------
    >>> [c for c in ("tweet_id", "geneId", "QID", "iri", "valid", "text", "ID") if _looks_like_id(c)]
    ['tweet_id', 'geneId', 'QID', 'iri', 'ID']
    """
    return bool(re.search(r"(^|[_\W])id$|[a-z]Id$", column)) or column.lower() in _ID_NAMES | {"id"}


@dataclass(frozen=True)
class EntityColumns:
    """The entity columns of a corpus, and how their values become IRIs.

    Parameters
    ----------
    columns : tuple of str
        The columns (each cell: values separated by whitespace, or a JSON list).
    expand : callable, optional
        Applied to each value before it is read as an IRI (a preset's short ids: ``Q42`` ->
        ``http://www.wikidata.org/entity/Q42``; :meth:`kg.rdf.vocabulary.Vocabulary.expand_entity`).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from kg.rdf.vocabulary import WIKIDATA
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.csv"
    >>> _ = p.write_text("id,qid,label\\n1,Q42,writer\\n", encoding="utf-8")
    >>> read_corpus(p, entity_columns=EntityColumns(("qid",), WIKIDATA.expand_entity)).entities
    [['http://www.wikidata.org/entity/Q42']]
    """

    columns: tuple[str, ...]
    expand: Callable[[str], str] | None = None


@dataclass
class Corpus:
    """Instances of a classification task: ids, texts or entities, labels.

    Attributes
    ----------
    ids : list of str
    texts : list of str or None
        The texts to annotate (``None`` when the corpus gives entity IRIs directly).
    entities : list of list of str or None
        Entity IRIs per instance (normalised with :func:`kg.iri.normalize_iri`).
    labels : list or None
        One label per instance, or ``None`` for an unlabelled corpus.
    source : str
        Where it was read from (for messages).

    Examples
    --------
    >>> c = Corpus(ids=["t1"], entities=[["http://dbpedia.org/resource/Kobe_Bryant"]], labels=["sport"])
    >>> len(c), c.label_map
    (1, {'t1': 'sport'})
    """

    ids: list[str]
    texts: list[str] | None = None
    entities: list[list[str]] | None = None
    labels: list | None = None
    source: str = "<memory>"
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.ids)
        if self.texts is None and self.entities is None:
            raise ValueError("a corpus needs texts or entities")
        for name in ("texts", "entities", "labels"):
            v = getattr(self, name)
            if v is not None and len(v) != n:
                raise ValueError(f"{len(v)} {name} for {n} ids")
        seen: set[str] = set()
        for i in self.ids:
            if i in seen:
                raise InputFormatError(f"duplicate instance id {i!r}", self.source)
            seen.add(i)

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def label_map(self) -> dict[str, object] | None:
        return None if self.labels is None else dict(zip(self.ids, self.labels))


def _sniff_format(path: Path, fmt: str | None) -> str:
    if fmt:
        fmt = fmt.lower()
        if fmt not in ("csv", "tsv", "jsonl"):
            raise ValueError(f"format must be 'csv', 'tsv' or 'jsonl', got {fmt!r}")
        return fmt
    name = path.name.lower()
    for suffix in (".gz", ".bz2"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if name.endswith((".tsv", ".tab")):
        return "tsv"
    if name.endswith(".csv"):
        return "csv"
    raise InputFormatError("cannot tell the corpus format from the file name; pass format='csv'|'tsv'|'jsonl'", path)


def _open_binary(path: Path):
    name = path.name.lower()
    if name.endswith(".gz"):
        return gzip.open(path, "rb")
    if name.endswith(".bz2"):
        return bz2.open(path, "rb")
    return open(path, "rb")


@dataclass(frozen=True)
class BadRecords:
    """What a reader does with records it cannot read: skip (and count) them or fail; and the longest record read.

    Attributes
    ----------
    skip : bool
        Skip and count them (``--skip-bad-lines``); else the first is an error naming file and line.
    max_bytes : int
        A longer record cannot be read (``--max-record-bytes``; default :data:`MAX_RECORD_BYTES`).

    Examples
    --------
    >>> BadRecords(skip=True).max_bytes == MAX_RECORD_BYTES
    True
    """

    skip: bool = False
    max_bytes: int = MAX_RECORD_BYTES


class _Bad:
    """Records that could not be read: an error naming file and line, or counted and skipped; and the size limit."""

    def __init__(self, path: Path, skip: bool | BadRecords, max_bytes: int = MAX_RECORD_BYTES):
        if isinstance(skip, BadRecords):
            skip, max_bytes = skip.skip, skip.max_bytes
        self.path, self.skip, self.lines = path, bool(skip), []
        self.max_bytes = int(max_bytes)
        if self.max_bytes < 1:
            raise ValueError(f"max_record_bytes must be at least 1, got {max_bytes!r}")

    def __call__(self, message: str, line: int) -> None:
        if not self.skip:
            raise InputFormatError(f"{message}; pass skip_bad_lines=True to skip such records",
                                   self.path, line)
        log.warning("%s:%d: skipping a record: %s", self.path, line, message)
        self.lines.append(line)


def _too_long(bad: _Bad, n: int) -> str:
    return f"a record of more than {bad.max_bytes:,} bytes (pass max_record_bytes=N for longer ones)"


def _lines(path: Path, bad: _Bad):
    """``(line number, text)`` of each line (without its end), decoded as UTF-8 one at a time; a line longer than
    ``bad.max_bytes`` is never held whole (an error, or skipped piece by piece)."""
    limit = bad.max_bytes
    with _open_binary(path) as fh:
        n = 0
        while True:
            raw = fh.readline(limit + 1)
            if not raw:
                return
            n += 1
            if len(raw) > limit and not raw.endswith(b"\n"):
                bad(_too_long(bad, n), n)
                while raw and not raw.endswith(b"\n"):  # skipped: the rest of the line, in pieces
                    raw = fh.readline(1 << 20)
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                bad(f"not UTF-8 (line {n}): byte {raw[exc.start:exc.start + 1]!r} at column {exc.start + 1}", n)
                continue
            if n == 1:
                line = line.lstrip("\ufeff")  # a byte-order mark, as spreadsheets write
            yield n, line.rstrip("\r\n")


def _quoted(text: str, delimiter: str, n_fields: int) -> list[str] | str | None:
    """The fields of one record under CSV quoting; ``"more"`` when a quoted field is still open."""
    try:
        rows = list(csv.reader(io.StringIO(text), delimiter=delimiter, strict=True))
    except csv.Error as exc:
        return "more" if "unexpected end of data" in str(exc) else None
    return rows[0] if len(rows) == 1 and len(rows[0]) == n_fields else None


def _literal(text: str, delimiter: str, n_fields: int) -> list[str] | None:
    fields = text.split(delimiter)
    return fields if len(fields) == n_fields else None


_MAX_RECORD_LINES = 200  # a quoted field spanning more lines is taken for a stray quote


def _delimited(path: Path, delimiter: str, bad: _Bad):
    """Records of a CSV/TSV file, one line each unless a quoted field holds line breaks.

    A line is a record when it parses as one under CSV quoting (``"a ""b"" c"``), else when it
    has the header's number of fields as it is (a stray ``"`` in an unquoted text). A line that
    opens a quoted field and does not close it is joined with the next lines when that gives a
    validly quoted record; in a TSV file, not when each of those lines is a record by itself
    (texts rarely hold tabs, so that is the mark of a stray quote, which must not swallow the
    next records; in a CSV file commas in texts make any line look like one).
    """
    lines = _lines(path, bad)
    header = next(((n, t) for n, t in lines if t.strip()), None)
    if header is None:
        return
    names = next(csv.reader([header[1]], delimiter=delimiter))
    width = len(names)
    ahead: deque[tuple[int, str]] = deque()  # lines read ahead while looking for the end of a quoted field
    while True:
        if not ahead:
            ahead.extend(itertools.islice(lines, 1))
            if not ahead:
                return
        n, text = ahead.popleft()
        if not text.strip():
            continue
        fields = _quoted(text, delimiter, width) if '"' in text else None
        if fields == "more":
            joined, k = text, 0
            while fields == "more" and k < _MAX_RECORD_LINES and len(joined) <= bad.max_bytes:
                if len(ahead) <= k:
                    ahead.extend(itertools.islice(lines, 1))
                    if len(ahead) <= k:
                        break
                joined += "\n" + ahead[k][1]
                k += 1
                fields = _quoted(joined, delimiter, width)
            own = [text] + [ahead[i][1] for i in range(k)]
            if isinstance(fields, list) and (delimiter != "\t" or not all(_literal(x, delimiter, width) for x in own)):
                for _ in range(k):  # the lines that belonged to the record
                    ahead.popleft()
            else:
                fields = None
        if not isinstance(fields, list):
            fields = _literal(text, delimiter, width)
        if fields is None:
            bad(f"{len(text.split(delimiter))} fields, the header has {width} (or an unclosed quote)", n)
            continue
        yield n, dict(zip(names, fields))


def _jsonl(path: Path, bad: _Bad):
    for n, line in _lines(path, bad):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            bad(f"invalid JSON ({exc.msg})", n)
            continue
        if not isinstance(rec, dict):
            bad("each JSONL line must be an object", n)
            continue
        yield n, rec


def _rows(path: Path, fmt: str, bad: _Bad):
    """Yield ``(line_number, dict)`` records, streaming."""
    if fmt == "jsonl":
        return _jsonl(path, bad)
    return _delimited(path, "\t" if fmt == "tsv" else ",", bad)


class OptionalColumn(str):
    """The name of a column a file may lack (``read_corpus(label_column=OptionalColumn("label"))``: a corpus with
    or without labels).

    Examples
    --------
    >>> c = OptionalColumn("label")
    >>> c == "label", isinstance(c, str)
    (True, True)
    """

    __slots__ = ()


def read_corpus(
    path: str | os.PathLike,
    *,
    id_column: str | None = "id",
    text_column: str | None = "text",
    entity_columns: Sequence[str] | str | None = None,
    label_column: str | None = "label",
    format: str | None = None,
    invalid_iri: str = "raise",
    skip_bad_lines: bool | BadRecords = False,
) -> Corpus:
    """Read a CSV/TSV/JSONL corpus, streaming (memory grows with the records kept).

    CSV and TSV fields may be quoted (``"a ""b"" c"``) or not; a quote inside an unquoted text
    is part of the text. A record that cannot be read (the wrong number of fields, invalid
    JSON, bytes that are not UTF-8) is an error naming the file and line, or, with
    ``skip_bad_lines``, skipped and counted (``meta["bad_lines"]``, and a logged warning).

    Parameters
    ----------
    path : path
        ``.csv``, ``.tsv``/``.tab``, ``.jsonl``/``.ndjson`` (optionally ``.gz``/``.bz2``).
    id_column : str or None
        Column of instance ids; ``None`` (or a missing ``"id"`` column) numbers rows from 1.
    text_column : str or None
        Column of texts to annotate; ignored when ``entity_columns`` is given.
    entity_columns : str, list of str or EntityColumns, optional
        Column(s) holding entity IRIs (whitespace-separated; ``?``/empty = none); an
        :class:`EntityColumns` also says how short ids are expanded.
    label_column : str, OptionalColumn or None
        Column of class labels; ``None`` for an unlabelled corpus; an :class:`OptionalColumn`: a file without it
        is read unlabelled instead of refused (a new corpus to predict), and with it every record needs its label.
    invalid_iri : {"raise", "skip"}
        What to do with a value of an entity column that is not an absolute IRI. Unsafe
        characters of absolute IRIs are always percent-encoded (see :mod:`kg.iri`).
    format : {"csv", "tsv", "jsonl"}, optional
        Default: from the file name.
    skip_bad_lines : bool or BadRecords
        Skip (and count) records that cannot be read instead of failing; a :class:`BadRecords` also
        sets the longest record read (default :data:`MAX_RECORD_BYTES`): a longer one cannot be read
        (an error, or skipped and counted), and is never read whole.

    Returns
    -------
    Corpus
        Texts, or entity IRIs when ``entity_columns`` is given; ``source`` is the path.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.tsv"
    >>> _ = p.write_text("id\\turi\\tlabel\\nt1\\thttp://dbpedia.org/resource/Lyon\\tsport\\n", encoding="utf-8")
    >>> c = read_corpus(p, entity_columns="uri")
    >>> c.ids, c.entities, c.labels
    (['t1'], [['http://dbpedia.org/resource/Lyon']], ['sport'])
    """
    path = Path(path)
    fmt = _sniff_format(path, format)
    expand = None
    if isinstance(entity_columns, EntityColumns):
        entity_columns, expand = list(entity_columns.columns), entity_columns.expand
    if isinstance(entity_columns, str):
        entity_columns = [entity_columns]
    if invalid_iri not in ("raise", "skip"):
        raise ValueError(f"invalid_iri must be 'raise' or 'skip', got {invalid_iri!r}")
    ids: list[str] = []
    texts: list[str] = []
    entities: list[list[str]] = []
    labels: list = []
    skipped: list[str] = []
    checked = False
    numbered = None
    bad = _Bad(path, skip_bad_lines)
    for n, rec in _rows(path, fmt, bad):
        if not checked:
            cols = set(rec)
            if isinstance(label_column, OptionalColumn) and label_column not in cols:
                label_column = None
            wanted = [c for c in (label_column,) if c is not None]
            wanted += list(entity_columns) if entity_columns else [text_column] if text_column else []
            if id_column is not None and id_column != "id":
                wanted.append(id_column)
            missing = [c for c in wanted if c not in cols]
            if missing:
                raise InputFormatError(
                    f"column(s) {missing} not found; the file has {sorted(cols)}", path, n if fmt == "jsonl" else 1
                )
            if not entity_columns and not text_column:
                raise ValueError("give text_column or entity_columns")
            checked = True
            if id_column is None or id_column not in cols:  # numbered rows: said (with the columns that look like ids)
                like = [c for c in rec if c not in (label_column, text_column) and _looks_like_id(str(c))]
                # the other columns first; an entity column (one entity per row: a QID, an IRI) names rows too
                numbered = sorted(like, key=lambda c: c in (entity_columns or ()))
        rid = rec.get(id_column) if id_column is not None and id_column in rec else len(ids) + 1
        rid = str(rid).strip()
        if rid.endswith(".0") and rid[:-2].isdigit():  # ids written as floats by pandas ("1.0")
            rid = rid[:-2]
        ids.append(rid)
        if label_column is not None:
            lab = rec[label_column]
            if lab is None or (isinstance(lab, str) and lab.strip() == ""):
                raise InputFormatError(f"empty label in column {label_column!r}", path, n)
            labels.append(lab.strip() if isinstance(lab, str) else lab)
        if entity_columns:
            ents: list[str] = []
            for col in entity_columns:
                cell = rec[col]
                values = cell if isinstance(cell, list) else _WS.split(str(cell or "").strip())
                for v in values:
                    if str(v).strip().lower() in _MISSING:
                        continue
                    try:
                        iri = normalize_iri(expand(str(v)) if expand else str(v), where=f"{path}:{n}, column {col!r}")
                    except InputFormatError:
                        if invalid_iri == "raise":
                            raise
                        skipped.append(str(v))
                        continue
                    if iri not in ents:
                        ents.append(iri)
            entities.append(ents)
        else:
            t = rec[text_column]
            texts.append("" if t is None else str(t))
    if not ids:
        raise KgfsError(f"{path}: the corpus has no records")
    meta = {"skipped_invalid_iris": skipped} if skipped else {}
    if numbered is not None:
        meta["ids_numbered"] = numbered  # no id column: instances are numbered from 1 (these columns look like ids)
    if bad.lines:
        meta["bad_lines"] = bad.lines
        log.warning("%s: skipped %d record(s) that could not be read (lines %s)", path, len(bad.lines),
                    ", ".join(map(str, bad.lines[:10])) + (", ..." if len(bad.lines) > 10 else ""))
    return Corpus(
        ids=ids,
        texts=None if entity_columns else texts,
        entities=entities if entity_columns else None,
        labels=labels if label_column is not None else None,
        source=str(path),
        meta=meta,
    )


_START = re.compile(r"^(\d+) (?:([^\s'\"]\S*) )?(['\"])")


def _unquote(body: str, quote: str) -> str:
    """The text of a Python-literal-quoted tweet; falls back to stripping the quotes."""
    try:
        # a record spanning lines holds raw newlines, which a one-line literal may not
        v = ast.literal_eval(body.replace("\r", "\\r").replace("\n", "\\n"))
        if isinstance(v, str):
            return v
    except (ValueError, SyntaxError):
        pass
    inner = body[1:-1] if len(body) >= 2 and body.endswith(quote) else body[1:]
    return inner


def read_sports_tweets(path: str | os.PathLike, *, labelled: bool | None = None,
                       skip_bad_lines: bool = False, max_record_bytes: int = MAX_RECORD_BYTES) -> Corpus:
    """Read the Sports Tweets files (``<id> <label> '<text>'``; records may span lines).

    A record starts at a line ``<digits> [<label>] <quote>`` once the previous record's text is
    closed by its opening quote; other lines continue the previous record (joined with ``\\n``).
    Texts are Python literals (``'...'`` or ``"..."`` with ``\\u2019`` escapes) and are decoded.

    Parameters
    ----------
    path : path
    labelled : bool, optional
        Whether records carry a label; default: guessed from the first record.
    skip_bad_lines : bool
        Skip (and log) lines that are not UTF-8, or that start no record where one must start
        (after a closed tweet), instead of failing.
    max_record_bytes : int
        As in :func:`read_corpus` (a record of several lines counts whole).

    Returns
    -------
    Corpus
        Ids, decoded texts and (when labelled) labels.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "training.txt"
    >>> lines = ["1 Sports 'Gayle hits a six'", '2 Politics "Obama', 'speaks"']
    >>> _ = p.write_text("\\n".join(lines) + "\\n", encoding="utf-8")
    >>> c = read_sports_tweets(p)
    >>> c.ids, c.texts, c.labels
    (['1', '2'], ['Gayle hits a six', 'Obama\\nspeaks'], ['Sports', 'Politics'])
    """
    path = Path(path)
    records: list[list] = []  # [id, label, quote, body, line]
    bad = _Bad(path, skip_bad_lines, max_record_bytes)
    for n, line in _lines(path, bad):
        m = _START.match(line)
        closed = not records or (
            len(records[-1][3]) >= 2 and records[-1][3].endswith(records[-1][2])
            and not records[-1][3].endswith("\\" + records[-1][2])
        )
        if m and closed:
            if labelled is None:
                labelled = m.group(2) is not None
            if labelled and m.group(2) is None:
                raise InputFormatError("record without a label", path, n)
            label = m.group(2) if labelled else None
            if not labelled and m.group(2) is not None:
                raise InputFormatError(f"unexpected token {m.group(2)!r} before the text", path, n)
            records.append([m.group(1), label, m.group(3), line[m.start(3):], n])
        elif records and not closed:  # the text goes on
            records[-1][3] += "\n" + line
            if len(records[-1][3]) > bad.max_bytes:
                bad(_too_long(bad, records[-1][4]), records[-1][4])
                records.pop()  # skipped (without skip_bad_lines, bad() raised)
        elif line.strip():  # after a closed tweet (or before the first): starts no record
            bad("expected `<id> <label> '<text>'`", n)
    if not records:
        raise KgfsError(f"{path}: no tweets found")
    ids, texts, labels = [], [], []
    for rid, label, quote, body, n in records:
        body = body.rstrip("\n")
        if not (len(body) >= 2 and body.endswith(quote)):
            raise InputFormatError(f"tweet {rid} has no closing {quote}", path, n)
        ids.append(rid)
        texts.append(_unquote(body, quote))
        labels.append(label)
    return Corpus(ids=ids, texts=texts, labels=labels if labelled else None, source=str(path))


def load_corpus(
    path: str | os.PathLike,
    *,
    id_column: str | None = "id",
    text_column: str | None = "text",
    entity_columns: Sequence[str] | str | EntityColumns | None = None,
    label_column: str | None = "label",
    format: str | None = None,
    skip_bad_lines: bool = False,
    max_record_bytes: int = MAX_RECORD_BYTES,
) -> Corpus:
    """Read any supported corpus: ``.txt`` is the Sports Tweets format, else CSV/TSV/JSONL.

    This is what ``kgfs run --corpus PATH`` reads.

    Parameters
    ----------
    path : path
    id_column, text_column, entity_columns, label_column
        As in :func:`read_corpus` (ignored for the tweets format).
    format : {"tweets", "csv", "tsv", "jsonl"}, optional
        Default: from the file name; ``"tweets"`` forces :func:`read_sports_tweets`.
    skip_bad_lines : bool
        Skip (and count) records that cannot be read (CSV/TSV/JSONL) instead of failing.
    max_record_bytes : int
        The largest record (default :data:`MAX_RECORD_BYTES`; see :func:`read_corpus`).
    Returns
    -------
    Corpus

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.jsonl"
    >>> _ = p.write_text('{"id": "a", "text": "Lyon wins", "label": 1}\\n', encoding="utf-8")
    >>> c = load_corpus(p)
    >>> c.texts, c.labels
    (['Lyon wins'], [1])
    """
    p = Path(path)
    if format == "tweets" or (format is None and p.suffix.lower() == ".txt"):
        return read_sports_tweets(p, skip_bad_lines=skip_bad_lines, max_record_bytes=max_record_bytes)
    return read_corpus(p, id_column=id_column, text_column=text_column, entity_columns=entity_columns,
                       label_column=label_column, format=format,
                       skip_bad_lines=BadRecords(bool(skip_bad_lines), max_record_bytes))
