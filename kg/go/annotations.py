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
from collections.abc import Iterable, Iterator
from pathlib import Path

from kg.errors import InputFormatError
from kg.go.obo import _ASPECT, _open_text, normalize_namespaces

__all__ = ["read_annotations", "read_labels"]

log = logging.getLogger(__name__)


_TERM_LIKE = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*:\S+$")
_GAF_COLUMNS = {
    "db": 1, "db_object_id": 2, "id": 2, "db_object_symbol": 3, "symbol": 3,
    "db_object_synonym": 11, "synonym": 11,
}


def _gaf_min_columns(version: str | None) -> int:
    return 17 if version and version.startswith("2") else 15


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
    format : {"auto", "gaf", "table"}
        ``"auto"``: a file whose first line is a ``!`` comment (``!gaf-version: 2.x``) or whose
        first data row has 15 or more tab-separated columns is a GAF; otherwise a table.
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
    path = Path(path)
    if format not in ("auto", "gaf", "table"):
        raise ValueError(f"format must be 'auto', 'gaf' or 'table', got {format!r}")
    with _lines(path) as lines:
        head: list[str] = []
        if format == "auto":
            format = "table"
            for raw in lines:  # the first non-empty line decides
                head.append(raw)
                if not raw.strip():
                    continue
                if raw.startswith("!") or raw.count("\t") >= 14:
                    format = "gaf"
                break
        lines = itertools.chain(head, lines)
        if format == "gaf":
            return _read_gaf(path, lines, evidence, exclude_evidence, namespaces, id_column)
        if evidence is not None or exclude_evidence is not None:
            raise ValueError(f"{path}: an evidence filter needs a GAF file; this is a two-column table")
        return _read_table(path, lines, id_column)


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


def _read_gaf(path, lines, evidence, exclude_evidence, namespaces, id_column) -> dict[str, list[str]]:
    keep_ev = None if evidence is None else {e.strip().upper() for e in evidence}
    drop_ev = set() if exclude_evidence is None else {e.strip().upper() for e in exclude_evidence}
    ns = normalize_namespaces(namespaces)
    keep_aspects = None
    if ns is not None:
        keep_aspects = {a for a, n in _ASPECT.items() if n in ns}
        unknown_ns = [n for n in ns if n not in _ASPECT.values()]
        if unknown_ns:
            raise ValueError(f"unknown GO namespace(s) {unknown_ns}; use BP, CC or MF")
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
    version = None
    need = 15
    out: dict[str, list[str]] = {}
    seen: dict[str, set[str]] = {}
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
        if "NOT" in cols[3].upper().split("|"):
            continue
        code = cols[6].strip().upper()
        if keep_ev is not None and code not in keep_ev:
            continue
        if code in drop_ev:
            continue
        if keep_aspects is not None and cols[8].strip() not in keep_aspects:
            continue
        gene = cols[col - 1].strip()
        term = cols[4].strip()
        if not gene or not term:
            raise InputFormatError(
                f"empty {'gene (column ' + str(col) + ')' if not gene else 'GO ID (column 5)'}", path, lineno
            )
        s = seen.get(gene)
        if s is None:
            out[gene] = [term]
            seen[gene] = {term}
        elif term not in s:
            s.add(term)
            out[gene].append(term)
    return out


def _read_table(path, lines, id_column) -> dict[str, list[str]]:
    gcol = 0 if id_column is None else int(id_column)
    if gcol not in (0, 1):
        raise ValueError(f"a two-column table has id_column 0 or 1, got {id_column!r}")
    tcol = 1 - gcol
    out: dict[str, list[str]] = {}
    seen: dict[str, set[str]] = {}
    first = True
    for lineno, raw in enumerate(lines, 1):
        if not raw.strip() or raw[0] in "#!":
            continue
        cols = raw.rstrip("\r\n").split("\t")
        if len(cols) != 2:
            raise InputFormatError(
                f"expected 2 tab-separated columns (gene, term), got {len(cols)}", path, lineno
            )
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
        s = seen.get(gene)
        if s is None:
            s = seen[gene] = set()
            out[gene] = []
        for t in parts:
            if t not in s:
                s.add(t)
                out[gene].append(t)
    return out


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
