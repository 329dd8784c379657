"""HPO annotations (``phenotype.hpoa``): a ``#`` header, a column header naming ``database_id``, ``qualifier``,
``hpo_id``, ``frequency``, ``aspect``; rows whose frequency is 0 (``0/n``, ``0%``, HP:0040285 "Excluded") are
negative, as ``NOT`` rows are.

Examples
--------
>>> HpoaFormat().skips("#version: 2025-01-16"), HpoaFormat().claims("database_id\\tdisease_name")
(True, True)
"""

from __future__ import annotations

import re

from kg.errors import InputFormatError
from kg.ontology.formats.base import AnnotationFormat

__all__ = ["HpoaFormat"]

#: hpoa frequencies that mean "excluded": the HPO term Excluded (0%) and fractions or percentages of 0.
_HPO_EXCLUDED = "HP:0040285"
_ZERO_FREQUENCY = re.compile(r"^\s*0+(?:\.0*)?\s*(?:/\s*\d+|%)\s*$")
_HEADER_LINE = re.compile(r"#\s*(description|version|hpo-version|tracker|date)\s*:")
_HPOA_COLUMNS = ("database_id", "disease_name", "qualifier", "hpo_id", "reference", "evidence", "onset",
                 "frequency", "sex", "modifier", "aspect", "biocuration")


class HpoaFormat(AnnotationFormat):
    """HPO ``phenotype.hpoa``: a file whose first line (after its ``#description:``, ``#version:``, ... lines)
    is the column header ``database_id<TAB>...`` (or the older ``DatabaseID<TAB>...``)."""

    name, title, priority = "hpoa", "hpoa", 20
    instance_noun = "disease"

    def skips(self, line: str) -> bool:
        return bool(_HEADER_LINE.match(line))

    def claims(self, line: str) -> bool:
        return line.startswith("database_id\t") or line.startswith("DatabaseID\t")

    def read(self, path, lines, out, how, evidence) -> None:
        keep_ev, drop_ev = evidence.keep, evidence.drop
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
