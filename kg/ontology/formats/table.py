"""A two-column ``instance<TAB>term`` table (or three, with an ``evidence`` column named in its header): the
format of a file no other format claims.

A term field may hold several ids separated by ``,``, ``;`` or ``|``; a first line whose term field does not
look like an ontology id (``PREFIX:local``) is a header; lines starting with ``#`` or ``!`` are comments.

Examples
--------
>>> TableFormat.fallback, TableFormat().claims("g1\\tGO:1")
(True, False)
"""

from __future__ import annotations

import re

from kg.errors import InputFormatError
from kg.ontology.formats.base import AnnotationFormat

__all__ = ["TableFormat"]

_TERM_LIKE = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*:\S+$")


class TableFormat(AnnotationFormat):
    """A two-column table; ``id_column`` is the 0-based index (0 or 1) of the instance column."""

    name, title, priority, fallback = "table", "table", 90, True

    def check(self, how) -> None:
        if how.id_column is not None and not isinstance(how.id_column, int) and str(how.id_column) not in ("0", "1"):
            raise ValueError(f"a two-column table has id_column 0 or 1, got {how.id_column!r}")

    def read(self, path, lines, out, how, evidence) -> None:
        id_column = how.id_column
        keep_ev, drop_ev = evidence.keep, evidence.drop
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
