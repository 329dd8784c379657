"""Gene annotations and labels of the GO route: GAF 2.x files, two-column tables, label tables.

``read_annotations`` reads a GAF file (rows with the ``NOT`` qualifier are skipped; evidence
codes and namespaces can be filtered) or a two-column ``gene<TAB>term`` table into a mapping
gene -> direct GO terms; ``read_labels`` reads ``gene<TAB>label``. Both read their file a
line at a time (plain or gzip), so their memory grows with what they keep, not with the file:
a 5-million-line GAF (550 MB) is read in under 200 MB (``benchmarks/bench_gaf_memory.py``).
"""

from __future__ import annotations

import itertools
import logging
import os
from collections.abc import Collection, Iterable
from pathlib import Path

from kg.errors import InputFormatError, ParameterError, param
from kg.ontology.formats import AUTO, annotation_format, annotation_formats, detect_format
from kg.ontology.formats.base import GO_EVIDENCE_ECO, AnnotationOptions, AnnotationSet, Collector, Evidence, lines_of
from kg.ontology.formats.gpad import read_gpi
from kg.ontology.obo import _ASPECT, normalize_namespaces

__all__ = ["GO_EVIDENCE_ECO", "AnnotationOptions", "AnnotationSet", "lines_of", "read_annotation_set",
           "read_annotations", "read_gpi", "read_labels", "sniff_format"]

log = logging.getLogger(__name__)


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
        For a table there is no aspect column: filter by namespace in :func:`term_table`
        (terms of namespaces the ontology was not read with are dropped and counted there).
    id_column : int or str, optional
        GAF: the column naming the gene, 1-based as in the GAF specification, or one of
        ``"db_object_id"`` (column 2, the default), ``"symbol"`` (column 3). Table: the
        0-based index (0 or 1) of the gene column; the other column is the term.
    format : str
        A registered format's name (``"gaf"``, ``"table"``, ``"gpad"``, ``"hpoa"``, ...) or ``"auto"``:
        a file whose first line is a ``!`` comment (``!gaf-version: 2.x``) or whose
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
    """The annotation format of a file from its first lines: ``gaf``, ``gpad``, ``hpoa``, ``table`` or another
    registered format's name (:func:`kg.ontology.formats.detect_format`).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.gpad"
    >>> _ = p.write_text("!gpa-version: 2.0\\n")
    >>> sniff_format(p)
    'gpad'
    """
    with lines_of(path) as lines:
        return detect_format(lines)


def read_annotation_set(path: str | os.PathLike, how: AnnotationOptions | None = None, *,
                        keep: Collection[str] | None = None, labels_only: bool = False) -> AnnotationSet:
    """Read an annotation file (GAF 2.x, GPAD 1.1/2.0, HPO ``phenotype.hpoa``, two-column table), streamed.

    Every format is a plug-in (:data:`kg.ontology.formats.ANNOTATION_FORMATS`) whose reader gives rows
    ``(instance, term, negated, aspect)``; one collector sorts them. The file is read a line at a time and
    only what is kept stays in memory: with ``keep``, the rows of other instances are counted and dropped
    as they are read.

    Parameters
    ----------
    path : path-like
        Plain or gzip-compressed.
    how : AnnotationOptions, optional
        The format, filters, id column, GPI and label aspect (default: detect the format, keep all).
    keep : collection of str, optional
        Only these instances (the labelled ones); rows of others are skipped while reading.
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
    namespaces, aspects = how.namespaces, how.aspects
    fmt = None if how.format == AUTO else annotation_format(how.format)  # an unknown name fails before reading
    if namespaces is not None:
        ns = normalize_namespaces(namespaces)
        unknown_ns = [n for n in ns if n not in _ASPECT.values()]
        if unknown_ns:
            raise ValueError(f"unknown GO namespace(s) {unknown_ns}; use BP, CC or MF")
        ns_aspects = {a for a, n in _ASPECT.items() if n in ns}
        aspects = ns_aspects if aspects is None else ns_aspects & {str(a) for a in aspects}
    aspect_set = None if aspects is None else {str(a).strip() for a in aspects}
    evidence = Evidence.of(how.evidence, how.exclude_evidence)
    with lines_of(path) as lines:
        head: list[str] = []
        if fmt is None:
            fmt = annotation_format(detect_format(lines, head))
        lines = itertools.chain(head, lines)
        if how.gpi is not None and "gpi" not in fmt.extra_files:
            takes = " or ".join(f.title for f in annotation_formats() if "gpi" in f.extra_files)
            raise ParameterError(f"{path}: {param('gpi')} goes with a {takes} annotation file; "
                                 f"this is a {fmt.name} file")
        fmt.check(how)
        out = Collector(fmt.name, None if keep is None else set(keep), aspect_set, how.label_aspect, labels_only)
        fmt.read(path, lines, out, how, evidence)
        return out.result()


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
        A line without a label column, a gene given two different labels, a byte that is not
        UTF-8 (naming the file and line; the byte's column and offset).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "labels.tsv"
    >>> _ = p.write_text("gene\\tlabel\\nFBgn1\\tpro-longevity\\nFBgn2\\tanti-longevity\\n")
    >>> read_labels(p)
    {'FBgn1': 'pro-longevity', 'FBgn2': 'anti-longevity'}
    """
    path = Path(path)
    with lines_of(path, strict=True) as lines:  # a label is a value: a byte that is not UTF-8 is refused
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
