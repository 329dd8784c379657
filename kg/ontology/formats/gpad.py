"""GPAD 2.0 / 1.1 (Gene Product Association Data) with its GPI file (the gene products it annotates).

GPAD rows carry ECO evidence ids: GO evidence codes are matched through
:data:`kg.ontology.formats.base.GO_EVIDENCE_ECO`. The GPI file is this format's extra file (``gpi``): rows of
gene products it lacks are skipped and counted (``not_in_gpi_rows``), and ``id_column="symbol"`` names the
instances by its symbols.

Examples
--------
>>> GpadFormat().claims("!gpa-version: 2.0"), GpadFormat().claims("!gaf-version: 2.2"), dict(GpadFormat.extra_files)
(True, False, {'gpi': 'the GPI file of its gene products'})
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from kg.errors import InputFormatError, ParameterError, param
from kg.ontology.formats.base import AnnotationFormat, lines_of

__all__ = ["GpadFormat", "read_gpi"]


class GpadFormat(AnnotationFormat):
    """GPAD 2.0 or 1.1: a file whose first line is ``!gpa-version: ...``."""

    name, title, priority = "gpad", "GPAD", 10
    extra_files = {"gpi": "the GPI file of its gene products"}

    def claims(self, line: str) -> bool:
        return bool(re.match(r"!\s*gpa-version", line))

    def read_extra(self, name: str, path) -> dict[str, tuple[str, str]]:
        if name != "gpi":
            raise NotImplementedError(name)
        return read_gpi(path)

    def read(self, path, lines, out, how, evidence) -> None:
        id_column, gpi = how.id_column, how.gpi
        eco = evidence.as_eco()
        keep_ev, drop_ev = eco.keep, eco.drop
        version = None
        by_symbol = str(id_column).lower() == "symbol"
        if by_symbol and gpi is None:
            raise ParameterError(f"GPAD: naming instances by symbol needs the GPI file ({param('gpi')})")
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
    with lines_of(path) as lines:
        for lineno, raw in enumerate(lines, 1):
            if not raw.strip():
                continue
            if raw[0] == "!":
                m = re.match(r"!\s*gpi-version:\s*(\S+)", raw)
                if m:
                    version = m.group(1)
                continue
            if version is None:
                raise InputFormatError(f"GPI file without a '!gpi-version: 2.0' (or 1.2) header ({param('gpi')})",
                                       path, lineno)
            cols = raw.rstrip("\r\n").split("\t")
            if version.startswith("1"):
                if len(cols) < 6:
                    raise InputFormatError(f"GPI {version} row has {len(cols)} column(s), expected 10 ({param('gpi')})",
                                           path, lineno)
                out[f"{cols[0].strip()}:{cols[1].strip()}"] = (cols[2].strip(), cols[5].strip())
            else:
                if len(cols) < 6:
                    raise InputFormatError(f"GPI {version} row has {len(cols)} column(s), expected 11 ({param('gpi')})",
                                           path, lineno)
                out[cols[0].strip()] = (cols[1].strip(), cols[4].strip())
    if not out:
        raise InputFormatError(f"no gene product in the GPI file ({param('gpi')})", path)
    return out
