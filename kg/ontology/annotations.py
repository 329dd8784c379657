"""Gene annotations and labels of the GO route: GAF 2.x files, two-column tables, label tables.

``read_annotations`` reads a GAF file (rows with the ``NOT`` qualifier are skipped; evidence
codes and namespaces can be filtered) or a two-column ``gene<TAB>term`` table into a mapping
gene -> direct GO terms; ``read_labels`` reads ``gene<TAB>label``. Both read their file a
line at a time (plain or gzip), so their memory grows with what they keep, not with the file:
a 5-million-line GAF (550 MB) is read in under 200 MB (``benchmarks/bench_gaf_memory.py``).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import re
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kg.errors import InputFormatError, KgfsError
from kg.ontology.obo import _ASPECT, _open_text, normalize_namespaces

__all__ = ["FORMATS", "GO_EVIDENCE_ECO", "AnnotationOptions", "AnnotationSet", "read_annotation_set",
           "read_annotations", "read_gpi", "read_labels", "sniff_format"]

log = logging.getLogger(__name__)


_TERM_LIKE = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*:\S+$")
_GAF_COLUMNS = {
    "db": 1, "db_object_id": 2, "id": 2, "db_object_symbol": 3, "symbol": 3,
    "db_object_synonym": 11, "synonym": 11,
}


def _gaf_min_columns(version: str | None) -> int:
    return 17 if version and version.startswith("2") else 15


#: The annotation formats :func:`read_annotation_set` reads (``auto`` detects them).
FORMATS = ("gaf", "gpad", "hpoa", "table")

#: GO evidence codes -> the ECO class GO's own mapping uses by default (GPAD rows carry ECO ids).
#: A GPAD row matches ``--evidence IDA`` when its ECO id is IDA's default; ECO subclasses (e.g. the
#: ECO:0000256 of automatic sequence-model annotations) are matched only when given as ECO ids.
GO_EVIDENCE_ECO = {
    "EXP": "ECO:0000269", "IDA": "ECO:0000314", "IPI": "ECO:0000353", "IMP": "ECO:0000315",
    "IGI": "ECO:0000316", "IEP": "ECO:0000270", "HTP": "ECO:0006056", "HDA": "ECO:0007005",
    "HMP": "ECO:0007001", "HGI": "ECO:0007003", "HEP": "ECO:0007007", "IBA": "ECO:0000318",
    "IBD": "ECO:0000319", "IKR": "ECO:0000320", "IRD": "ECO:0000321", "ISS": "ECO:0000250",
    "ISO": "ECO:0000266", "ISA": "ECO:0000247", "ISM": "ECO:0000255", "IGC": "ECO:0000317",
    "RCA": "ECO:0000245", "TAS": "ECO:0000304", "NAS": "ECO:0000303", "IC": "ECO:0000305",
    "ND": "ECO:0000307", "IEA": "ECO:0000501",
}
#: hpoa frequencies that mean "excluded": the HPO term Excluded (0%) and fractions or percentages of 0.
_HPO_EXCLUDED = "HP:0040285"
_ZERO_FREQUENCY = re.compile(r"^\s*0+(?:\.0*)?\s*(?:/\s*\d+|%)\s*$")


@dataclass
class AnnotationSet:
    """What an annotation file says, as read by :func:`read_annotation_set`.

    Attributes
    ----------
    positive : dict of instance -> list of term ids
        Instances in order of first appearance, terms without duplicates, in file order.
    negative : dict of instance -> list of term ids
        ``NOT`` annotations (GAF/GPAD qualifier or negation column, hpoa qualifier) and, in an
        hpoa file, rows whose frequency is 0 (``0/n``, ``0%`` or HP:0040285 "Excluded"). They never
        become positives; :func:`kg.ontology.build_table` reports an instance annotated with a term and
        with ``NOT`` of one of its ancestors.
    aspect_terms : dict of instance -> list of term ids
        The positive annotations of the label aspect (``label_aspect``), kept apart: they are
        labels, never features.
    report : dict
        ``format``, ``rows`` (annotation rows read), ``negated_rows``, ``excluded_rows`` (frequency 0),
        ``other_aspect_rows``, ``skipped_rows`` / ``skipped_instances`` (rows and distinct instances
        outside ``keep``: not kept in memory), ``not_in_gpi_rows``.
    label_terms : tuple of str
        Terms that are labels (set by whoever derived the labels): :func:`kg.ontology.build_table`
        never makes them features.

    Examples
    --------
    >>> s = AnnotationSet({"d1": ["HP:1"]}, {"d1": ["HP:2"]}, {}, {"format": "hpoa"})
    >>> s.positive, s.negative
    ({'d1': ['HP:1']}, {'d1': ['HP:2']})
    """

    positive: dict[str, list[str]]
    negative: dict[str, list[str]] = field(default_factory=dict)
    aspect_terms: dict[str, list[str]] = field(default_factory=dict)
    report: dict = field(default_factory=dict)
    label_terms: tuple[str, ...] = ()


class _Collector:
    """Sorts rows into positives, negatives and label-aspect terms; skips (and counts) the rest."""

    def __init__(self, fmt: str, keep, aspects, label_aspect: str | None, labels_only: bool):
        self.keep, self.aspects = keep, aspects
        self.label_aspect, self.labels_only = label_aspect, labels_only
        self.sets = AnnotationSet({}, {}, {}, {"format": fmt})
        self._seen: dict[tuple[int, str], set[str]] = {}
        self.rows = self.negated = self.excluded = self.other_aspect = self.skipped = 0
        self.skipped_instances: set[str] = set()

    def _add(self, which: int, target: dict, inst: str, term: str) -> None:
        key = (which, inst)
        s = self._seen.get(key)
        if s is None:
            target[inst] = [term]
            self._seen[key] = {term}
        elif term not in s:
            s.add(term)
            target[inst].append(term)

    def add(self, inst: str, term: str, negated: bool = False, aspect: str = "", excluded: bool = False) -> None:
        self.rows += 1
        if self.label_aspect is not None and aspect == self.label_aspect:
            if not negated and not excluded:
                self._add(2, self.sets.aspect_terms, inst, term)
            return
        if self.labels_only:
            return
        if self.aspects is not None and aspect not in self.aspects:
            self.other_aspect += 1
            return
        if self.keep is not None and inst not in self.keep:
            self.skipped += 1
            self.skipped_instances.add(inst)
            return
        if negated or excluded:
            self.negated += negated
            self.excluded += excluded and not negated
            self._add(1, self.sets.negative, inst, term)
            return
        self._add(0, self.sets.positive, inst, term)

    def result(self, **extra) -> AnnotationSet:
        self.sets.report.update({"rows": self.rows, "negated_rows": self.negated, "excluded_rows": self.excluded,
                                 "other_aspect_rows": self.other_aspect, "skipped_rows": self.skipped,
                                 "skipped_instances": len(self.skipped_instances), **extra})
        return self.sets


def read_annotations(
    path: str | os.PathLike,
    *,
    evidence: Iterable[str] | None = None,
    namespaces: str | Iterable[str] | None = None,
    id_column: int | str | None = None,
    format: str = "auto",  # noqa: A002 - the natural name for a file format option
    exclude_evidence: Iterable[str] | None = None,
) -> dict[str, list[str]]:
    """Read gene -> GO term annotations from a GAF 2.x file or a two-column table.

    The positive annotations of :func:`read_annotation_set` (which also reads GPAD and hpoa
    files, keeps the ``NOT`` annotations apart and can skip instances without a label).

    Parameters
    ----------
    path : path-like
        Plain or gzip-compressed.
    evidence : iterable of str, optional
        Keep only GAF rows with these evidence codes (``{"EXP", "IDA", ...}``).
    namespaces : str or iterable of str, optional
        Keep only GAF rows whose Aspect (column 9) is in these namespaces (``"BP"``, ...).
        For a table there is no aspect column: filter by namespace in :func:`build_table`
        (terms of namespaces the ontology was not read with are dropped and counted there).
    id_column : int or str, optional
        GAF: the column naming the gene, 1-based as in the GAF specification, or one of
        ``"db_object_id"`` (column 2, the default), ``"symbol"`` (column 3). Table: the
        0-based index (0 or 1) of the gene column; the other column is the term.
    format : {"auto", "gaf", "table", "gpad", "hpoa"}
        ``"auto"``: a file whose first line is a ``!`` comment (``!gaf-version: 2.x``) or whose
        first data row has 15 or more tab-separated columns is a GAF; ``!gpa-version`` a GPAD, a
        ``database_id`` header an hpoa file; otherwise a table.
    exclude_evidence : iterable of str, optional
        GAF rows with these evidence codes are skipped (e.g. ``{"IEA"}``).

    Returns
    -------
    dict of gene -> list of term ids
        Genes in order of first appearance; terms without duplicates, in file order. GAF rows
        whose Qualifier (column 4) contains ``NOT`` are skipped.

    Notes
    -----
    A table has one ``gene<TAB>term`` pair per line; the term field may hold several ids
    separated by ``,``, ``;`` or ``|``. A first line whose term field does not look like an
    ontology id (``PREFIX:local``) is a header. Lines starting with ``#`` or ``!`` are comments.
    A table whose header names a third column ``evidence`` has an evidence code on every row.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "genes.tsv").write_text("gene\\tgo\\nFBgn1\\tGO:0008340,GO:0006979\\nFBgn2\\tGO:0008340\\n")
    >>> read_annotations(d / "genes.tsv")
    {'FBgn1': ['GO:0008340', 'GO:0006979'], 'FBgn2': ['GO:0008340']}
    >>> row = ["FB", "FBgn1", "Sod1", "", "GO:0006979", "PMID:1", "IDA", "", "P", "", "", "protein", "taxon:7227",
    ...        "20140101", "FlyBase", "", ""]
    >>> not_row = row[:3] + ["NOT"] + row[4:]
    >>> _ = (d / "genes.gaf").write_text("!gaf-version: 2.0\\n" + "\\t".join(row) + "\\n" + "\\t".join(not_row) + "\\n")
    >>> read_annotations(d / "genes.gaf", evidence={"IDA"})
    {'FBgn1': ['GO:0006979']}
    """
    how = AnnotationOptions(format=format, evidence=evidence, exclude_evidence=exclude_evidence, namespaces=namespaces,
                            id_column=id_column)
    return read_annotation_set(path, how).positive


def sniff_format(path: str | os.PathLike) -> str:
    """The annotation format of a file from its first lines: ``gaf``, ``gpad``, ``hpoa`` or ``table``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.gpad"
    >>> _ = p.write_text("!gpa-version: 2.0\\n")
    >>> sniff_format(p)
    'gpad'
    """
    with _lines(Path(path)) as lines:
        return _sniff(lines, [])


def _sniff(lines: Iterator[str], head: list[str]) -> str:
    for raw in lines:  # the first non-empty line decides (after an hpoa file's '#' header)
        head.append(raw)
        if not raw.strip():
            continue
        if raw.startswith("!"):
            return "gpad" if re.match(r"!\s*gpa-version", raw) else "gaf"
        if raw.startswith("#"):
            if re.match(r"#\s*(description|version|hpo-version|tracker|date)\s*:", raw):
                continue  # an hpoa header line; the column header follows
            return "table"
        if raw.startswith("database_id\t") or raw.startswith("DatabaseID\t"):
            return "hpoa"
        return "gaf" if raw.count("\t") >= 14 else "table"
    return "table"


@dataclass(frozen=True)
class AnnotationOptions:
    """How :func:`read_annotation_set` reads a file (every field optional).

    Attributes
    ----------
    format : {"auto", "gaf", "gpad", "hpoa", "table"}
        See :func:`sniff_format`.
    evidence, exclude_evidence : tuple of str, optional
        Evidence codes to keep / to skip (GAF column 7, hpoa ``evidence``, a table's ``evidence``
        column; GPAD: ECO ids, or GO codes through :data:`GO_EVIDENCE_ECO`).
    namespaces : str or tuple of str, optional
        GAF only: keep the rows of these GO namespaces (column 9, as ``aspects`` ``P``, ``C``, ``F``).
    aspects : tuple of str, optional
        Keep the rows of these aspects: GAF column 9 (``P``, ``C``, ``F``), hpoa ``aspect``
        (``P`` phenotype, ``I`` inheritance, ``C`` clinical course, ``M`` modifier).
    id_column : int or str, optional
        Which column names the instance (GAF: 1-based or ``"symbol"``; table: 0 or 1; GPAD with
        ``gpi``: ``"symbol"`` names instances by the GPI's symbol).
    gpi : mapping, optional
        GPAD: object id -> ``(symbol, type)`` from :func:`read_gpi`; rows of objects it lacks are
        skipped and counted (``not_in_gpi_rows``).
    label_aspect : str, optional
        Rows of this aspect are labels (:attr:`AnnotationSet.aspect_terms`), never features.

    Examples
    --------
    >>> AnnotationOptions(format="hpoa", aspects=("P",), label_aspect="I").label_aspect
    'I'
    """

    format: str = "auto"
    evidence: Iterable[str] | None = None
    exclude_evidence: Iterable[str] | None = None
    namespaces: str | Iterable[str] | None = None
    aspects: Iterable[str] | None = None
    id_column: int | str | None = None
    gpi: Mapping[str, tuple[str, str]] | None = None
    label_aspect: str | None = None


def read_annotation_set(path: str | os.PathLike, how: AnnotationOptions | None = None, *,
                        keep: Collection[str] | None = None, labels_only: bool = False) -> AnnotationSet:
    """Read an annotation file (GAF 2.x, GPAD 1.1/2.0, HPO ``phenotype.hpoa``, two-column table), streamed.

    Every format is a small reader of rows ``(instance, term, negated, aspect)``; one collector
    sorts them. The file is read a line at a time and only what is kept stays in memory: with
    ``keep``, the rows of other instances are counted and dropped as they are read.

    Parameters
    ----------
    path : path-like
        Plain or gzip-compressed.
    how : AnnotationOptions, optional
        The format, filters, id column, GPI and label aspect (default: detect the format, keep all).
    keep : collection of str, optional
        Only these instances (the labelled ones); rows of others are skipped while reading.
    gpi : mapping, optional
        GPAD: object id -> ``(symbol, type)`` from :func:`read_gpi`; rows of objects it lacks are
        skipped and counted (``not_in_gpi_rows``).
    labels_only : bool
        Read only the label aspect's rows (a first pass that finds the labelled instances).

    Returns
    -------
    AnnotationSet

    Raises
    ------
    InputFormatError
        A row with too few columns, an empty instance or term, naming the file and line.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "phenotype.hpoa"
    >>> rows = [["OMIM:1", "D1", "", "HP:0001250", "PMID:1", "PCS", "", "1/2", "", "", "P", "x"],
    ...         ["OMIM:1", "D1", "NOT", "HP:0000707", "PMID:1", "PCS", "", "", "", "", "P", "x"],
    ...         ["OMIM:1", "D1", "", "HP:0001263", "PMID:1", "PCS", "", "0/5", "", "", "P", "x"],
    ...         ["OMIM:1", "D1", "", "HP:0000007", "PMID:1", "PCS", "", "", "", "", "I", "x"]]
    >>> header = "database_id\\tdisease_name\\tqualifier\\thpo_id\\treference\\tevidence\\tonset\\tfrequency\\t" \\
    ...          "sex\\tmodifier\\taspect\\tbiocuration\\n"
    >>> _ = p.write_text("#version: 2025-01-16\\n" + header + "".join("\\t".join(r) + "\\n" for r in rows))
    >>> s = read_annotation_set(p, AnnotationOptions(aspects=("P",), label_aspect="I"))
    >>> s.positive, s.negative, s.aspect_terms, s.report["excluded_rows"]
    ({'OMIM:1': ['HP:0001250']}, {'OMIM:1': ['HP:0000707', 'HP:0001263']}, {'OMIM:1': ['HP:0000007']}, 1)
    """
    path = Path(path)
    how = how or AnnotationOptions()
    format, namespaces, aspects, id_column = how.format, how.namespaces, how.aspects, how.id_column
    evidence, exclude_evidence, gpi, label_aspect = how.evidence, how.exclude_evidence, how.gpi, how.label_aspect
    if format not in ("auto", *FORMATS):
        raise ValueError(f"format must be 'auto' or one of {', '.join(FORMATS)}, got {format!r}")
    if namespaces is not None:
        ns = normalize_namespaces(namespaces)
        unknown_ns = [n for n in ns if n not in _ASPECT.values()]
        if unknown_ns:
            raise ValueError(f"unknown GO namespace(s) {unknown_ns}; use BP, CC or MF")
        ns_aspects = {a for a, n in _ASPECT.items() if n in ns}
        aspects = ns_aspects if aspects is None else ns_aspects & {str(a) for a in aspects}
    aspect_set = None if aspects is None else {str(a).strip() for a in aspects}
    keep_ev = None if evidence is None else {e.strip().upper() for e in evidence}
    drop_ev = set() if exclude_evidence is None else {e.strip().upper() for e in exclude_evidence}
    with _lines(path) as lines:
        head: list[str] = []
        if format == "auto":
            format = _sniff(lines, head)
        lines = itertools.chain(head, lines)
        if gpi is not None and format != "gpad":
            raise KgfsError(f"{path}: --gpi goes with a GPAD annotation file; this is a {format} file")
        out = _Collector(format, None if keep is None else set(keep), aspect_set, label_aspect, labels_only)
        if format == "gaf":
            _gaf_rows(path, lines, out, keep_ev, drop_ev, id_column)
        elif format == "gpad":
            _gpad_rows(path, lines, out, _eco(keep_ev), _eco(drop_ev) if drop_ev else set(), id_column, gpi)
        elif format == "hpoa":
            _hpoa_rows(path, lines, out, keep_ev, drop_ev)
        else:
            if id_column is not None and not isinstance(id_column, int) and str(id_column) not in ("0", "1"):
                raise ValueError(f"a two-column table has id_column 0 or 1, got {id_column!r}")
            _table_rows(path, lines, out, keep_ev, drop_ev, id_column)
        return out.result()


def _eco(codes: set[str] | None) -> set[str] | None:
    """Evidence codes as ECO ids (GO codes mapped by :data:`GO_EVIDENCE_ECO`, ECO ids kept)."""
    if codes is None:
        return None
    return {GO_EVIDENCE_ECO.get(c, c) for c in codes}


@contextlib.contextmanager
def _lines(path: Path) -> Iterator[Iterator[str]]:
    """The file's lines, as ``read().splitlines()`` would give them, read one at a time (the
    memory of a reader grows with what it keeps, not with the file); closed on exit."""
    with _open_text(path) as fh:

        def split():
            try:
                for raw in fh:
                    yield from raw.splitlines()  # the other line breaks splitlines knows (\f, \x1c, ...)
            except (OSError, EOFError) as exc:  # truncated / corrupt gzip
                raise InputFormatError(f"cannot read file ({exc})", path) from exc

        yield split()


def _gaf_id_column(id_column) -> int:
    if id_column is None:
        col = 2
    elif isinstance(id_column, str):
        try:
            col = _GAF_COLUMNS[id_column.lower()]
        except KeyError:
            raise ValueError(f"unknown GAF id column {id_column!r}; use one of {sorted(_GAF_COLUMNS)}") from None
    else:
        col = int(id_column)
    if not 1 <= col <= 17:
        raise ValueError(f"GAF id_column must be between 1 and 17, got {col}")
    return col


def _gaf_rows(path, lines, out: _Collector, keep_ev, drop_ev, id_column) -> None:
    col = _gaf_id_column(id_column)
    version = None
    need = 15
    add = out.add
    for lineno, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        if raw[0] == "!":
            m = re.match(r"!\s*gaf-version:\s*(\S+)", raw)
            if m:
                version = m.group(1)
                need = _gaf_min_columns(version)
            continue
        cols = raw.rstrip("\r\n").split("\t")
        if len(cols) < need:
            raise InputFormatError(
                f"GAF row has {len(cols)} tab-separated column(s), expected {need}"
                + (f" (gaf-version {version})" if version else ""),
                path,
                lineno,
            )
        negated = "NOT" in cols[3].upper().split("|")
        code = cols[6].strip().upper()
        if keep_ev is not None and code not in keep_ev:
            continue
        if code in drop_ev:
            continue
        gene = cols[col - 1].strip()
        term = cols[4].strip()
        if not gene or not term:
            if negated:
                continue
            raise InputFormatError(
                f"empty {'gene (column ' + str(col) + ')' if not gene else 'GO ID (column 5)'}", path, lineno
            )
        add(gene, term, negated, cols[8].strip())


def _gpad_rows(path, lines, out: _Collector, keep_ev, drop_ev, id_column, gpi) -> None:
    version = None
    by_symbol = str(id_column).lower() == "symbol"
    if by_symbol and gpi is None:
        raise ValueError("GPAD: naming instances by symbol needs the GPI file (--gpi)")
    not_in_gpi = 0
    add = out.add
    for lineno, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        if raw[0] == "!":
            m = re.match(r"!\s*gpa-version:\s*(\S+)", raw)
            if m:
                version = m.group(1)
            continue
        if version is None:
            raise InputFormatError("GPAD file without a '!gpa-version: 2.0' (or 1.1) header before its rows",
                                   path, lineno)
        cols = raw.rstrip("\r\n").split("\t")
        if len(cols) < 10:
            raise InputFormatError(f"GPAD {version} row has {len(cols)} tab-separated column(s), expected 12",
                                   path, lineno)
        if version.startswith("1"):  # DB, DB_Object_ID, Qualifier (NOT|...), GO ID, Reference, ECO
            obj = f"{cols[0].strip()}:{cols[1].strip()}"
            negated = "NOT" in cols[2].upper().split("|")
            term, eco = cols[3].strip(), cols[5].strip()
        else:  # DB:DB_Object_ID, Negation, Relation, Ontology_Class_ID, Reference, Evidence_type (ECO)
            obj = cols[0].strip()
            negated = cols[1].strip().upper() == "NOT"
            term, eco = cols[3].strip(), cols[5].strip()
        if keep_ev is not None and eco.upper() not in keep_ev:
            continue
        if eco.upper() in drop_ev:
            continue
        if not obj.strip(":") or not term:
            raise InputFormatError(f"empty {'object id' if not obj.strip(':') else 'ontology class id'}",
                                   path, lineno)
        if gpi is not None:
            entry = gpi.get(obj)
            if entry is None:
                not_in_gpi += 1
                continue
            if by_symbol:
                obj = entry[0] or obj
        add(obj, term, negated, "")
    out.sets.report["not_in_gpi_rows"] = not_in_gpi


def read_gpi(path: str | os.PathLike) -> dict[str, tuple[str, str]]:
    """Read a GPI 1.2 or 2.0 file (the gene products a GPAD file annotates): id -> ``(symbol, type)``.

    Parameters
    ----------
    path : path-like
        Plain or gzip-compressed; ``!gpi-version: 2.0`` (``DB:DB_Object_ID`` in column 1) or
        ``1.2`` (``DB`` and ``DB_Object_ID`` in columns 1-2).

    Returns
    -------
    dict of object id -> (symbol, type)

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.gpi"
    >>> _ = p.write_text("!gpi-version: 2.0\\nUniProtKB:P1\\tSOD1\\tsuperoxide dismutase\\t\\tPR:000000001\\t"
    ...                  "NCBITaxon:9606\\t\\t\\t\\t\\t\\n")
    >>> read_gpi(p)
    {'UniProtKB:P1': ('SOD1', 'PR:000000001')}
    """
    path = Path(path)
    out: dict[str, tuple[str, str]] = {}
    version = None
    with _lines(path) as lines:
        for lineno, raw in enumerate(lines, 1):
            if not raw.strip():
                continue
            if raw[0] == "!":
                m = re.match(r"!\s*gpi-version:\s*(\S+)", raw)
                if m:
                    version = m.group(1)
                continue
            if version is None:
                raise InputFormatError("GPI file without a '!gpi-version: 2.0' (or 1.2) header (--gpi)", path, lineno)
            cols = raw.rstrip("\r\n").split("\t")
            if version.startswith("1"):
                if len(cols) < 6:
                    raise InputFormatError(f"GPI {version} row has {len(cols)} column(s), expected 10 (--gpi)",
                                           path, lineno)
                out[f"{cols[0].strip()}:{cols[1].strip()}"] = (cols[2].strip(), cols[5].strip())
            else:
                if len(cols) < 6:
                    raise InputFormatError(f"GPI {version} row has {len(cols)} column(s), expected 11 (--gpi)",
                                           path, lineno)
                out[cols[0].strip()] = (cols[1].strip(), cols[4].strip())
    if not out:
        raise InputFormatError("no gene product in the GPI file (--gpi)", path)
    return out


_HPOA_COLUMNS = ("database_id", "disease_name", "qualifier", "hpo_id", "reference", "evidence", "onset",
                 "frequency", "sex", "modifier", "aspect", "biocuration")


def _hpoa_rows(path, lines, out: _Collector, keep_ev, drop_ev) -> None:
    header = None
    add = out.add
    for lineno, raw in enumerate(lines, 1):
        if not raw.strip() or raw[0] == "#":
            continue
        cols = raw.rstrip("\r\n").split("\t")
        if header is None:
            names = [c.strip().lower() for c in cols]
            missing = [c for c in ("database_id", "qualifier", "hpo_id", "frequency", "aspect") if c not in names]
            if missing:
                raise InputFormatError(f"not an HPO annotation (phenotype.hpoa) header: no column {missing[0]!r} "
                                       f"(expected {', '.join(_HPOA_COLUMNS)})", path, lineno)
            header = names
            i_id, i_q, i_t = names.index("database_id"), names.index("qualifier"), names.index("hpo_id")
            i_f, i_a = names.index("frequency"), names.index("aspect")
            i_e = names.index("evidence") if "evidence" in names else None
            need = max(i_id, i_q, i_t, i_f, i_a) + 1
            continue
        if len(cols) < need:
            raise InputFormatError(f"hpoa row has {len(cols)} tab-separated column(s), expected {len(header)}",
                                   path, lineno)
        if i_e is not None:
            code = cols[i_e].strip().upper()
            if (keep_ev is not None and code not in keep_ev) or code in drop_ev:
                continue
        inst, term = cols[i_id].strip(), cols[i_t].strip()
        if not inst or not term:
            raise InputFormatError(f"empty {'database_id' if not inst else 'hpo_id'}", path, lineno)
        freq = cols[i_f].strip()
        excluded = freq == _HPO_EXCLUDED or bool(freq and _ZERO_FREQUENCY.match(freq))
        add(inst, term, cols[i_q].strip().upper() == "NOT", cols[i_a].strip(), excluded)
    if header is None:
        raise InputFormatError("no hpoa column header (database_id, disease_name, qualifier, ...)", path)


def _table_rows(path, lines, out: _Collector, keep_ev, drop_ev, id_column) -> None:
    gcol = 0 if id_column is None else int(id_column)
    if gcol not in (0, 1):
        raise ValueError(f"a two-column table has id_column 0 or 1, got {id_column!r}")
    tcol = 1 - gcol
    first = True
    ncols = 2
    add = out.add
    for lineno, raw in enumerate(lines, 1):
        if not raw.strip() or raw[0] in "#!":
            continue
        cols = raw.rstrip("\r\n").split("\t")
        if first and len(cols) == 3 and cols[2].strip().lower() == "evidence" \
                and not _TERM_LIKE.match(cols[tcol].strip()):
            ncols = 3  # gene<TAB>term<TAB>evidence with a header
            first = False
            continue
        if len(cols) != ncols:
            what = "(gene, term)" if ncols == 2 else "(gene, term, evidence)"
            raise InputFormatError(
                f"expected {ncols} tab-separated columns {what}, got {len(cols)}", path, lineno
            )
        if ncols == 3:
            code = cols[2].strip().upper()
            if (keep_ev is not None and code not in keep_ev) or code in drop_ev:
                continue
        elif keep_ev is not None or drop_ev:
            raise ValueError(f"{path}: an evidence filter needs a GAF file (or a table with an evidence column); "
                             "this is a two-column table")
        gene, terms = cols[gcol].strip(), cols[tcol].strip()
        parts = [t.strip() for t in re.split(r"[,;|]", terms) if t.strip()]
        if first:
            first = False
            if not parts or not _TERM_LIKE.match(parts[0]):
                continue  # a header row such as "gene<TAB>go_id"
        if not gene:
            raise InputFormatError("empty gene id", path, lineno)
        if not parts:
            raise InputFormatError(f"gene {gene!r} has an empty term field", path, lineno)
        for t in parts:
            add(gene, t)


_LABEL_HEADER_WORDS = {"label", "labels", "class", "target", "y", "longevity", "longevity_influence"}


def read_labels(path: str | os.PathLike) -> dict[str, str]:
    """Read ``gene<TAB>label`` lines into a dict (labels kept as strings).

    A first line whose second field is a column name (``label``, ``class``, ``target``,
    ``y``) is a header. Lines starting with ``#`` are comments.

    Parameters
    ----------
    path : path-like
        Plain or gzip-compressed.

    Returns
    -------
    dict of gene -> label

    Raises
    ------
    InputFormatError
        A line without a label column, or a gene given two different labels (naming the
        file and line).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "labels.tsv"
    >>> _ = p.write_text("gene\\tlabel\\nFBgn1\\tpro-longevity\\nFBgn2\\tanti-longevity\\n")
    >>> read_labels(p)
    {'FBgn1': 'pro-longevity', 'FBgn2': 'anti-longevity'}
    """
    path = Path(path)
    with _lines(path) as lines:
        return _read_label_lines(path, lines)


def _read_label_lines(path: Path, lines: Iterable[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    first = True
    for lineno, raw in enumerate(lines, 1):
        if not raw.strip() or raw[0] == "#":
            continue
        cols = raw.rstrip("\r\n").split("\t")
        if len(cols) < 2 or not cols[1].strip():
            raise InputFormatError(
                "missing label column (expected 'gene<TAB>label')", path, lineno
            )
        if len(cols) > 2:
            raise InputFormatError(f"expected 2 tab-separated columns, got {len(cols)}", path, lineno)
        gene, label = cols[0].strip(), cols[1].strip()
        if first:
            first = False
            if label.lower() in _LABEL_HEADER_WORDS:
                continue
        if gene in out and out[gene] != label:
            raise InputFormatError(
                f"gene {gene!r} has two labels: {out[gene]!r} and {label!r}", path, lineno
            )
        out[gene] = label
    if not out:
        raise InputFormatError("no labels found", path)
    return out


# ---------------------------------------------------------------------- tables
