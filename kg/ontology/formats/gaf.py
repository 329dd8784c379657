"""GAF 2.x (GO Annotation File): 15 or 17 tab-separated columns, ``!`` comments, the ``NOT`` qualifier.

Examples
--------
>>> GafFormat().claims("!gaf-version: 2.2"), GafFormat().claims("g1\\tGO:1")
(True, False)
"""

from __future__ import annotations

import re

from kg.errors import InputFormatError
from kg.ontology.formats.base import AnnotationFormat

__all__ = ["GafFormat"]

_GAF_COLUMNS = {
    "db": 1, "db_object_id": 2, "id": 2, "db_object_symbol": 3, "symbol": 3,
    "db_object_synonym": 11, "synonym": 11,
}
_GPAD_HEADER = re.compile(r"!\s*gpa-version")


def _gaf_min_columns(version: str | None) -> int:
    return 17 if version and version.startswith("2") else 15


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


class GafFormat(AnnotationFormat):
    """GAF 2.x: a file whose first line is a ``!`` comment (not GPAD's ``!gpa-version``) or whose first data row
    has 15 or more tab-separated columns. ``id_column``: 1-based as in the specification, or ``"symbol"``."""

    name, title, priority = "gaf", "GAF", 30

    def claims(self, line: str) -> bool:
        if line.startswith("!"):
            return not _GPAD_HEADER.match(line)
        return not line.startswith("#") and line.count("\t") >= 14

    def read(self, path, lines, out, how, evidence) -> None:
        col = _gaf_id_column(how.id_column)
        keep_ev, drop_ev = evidence.keep, evidence.drop  # bound once: this loop runs once per row
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
