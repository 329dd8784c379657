"""WEKA ARFF files of a :class:`~kg.table.FeatureTable`: the writer (dense and sparse) and a reader.

ARFF is written by this module itself rather than by ``liac-arff``'s encoder, because
liac-arff 2.5 puts attribute names in double quotes *without escaping them* (a name holding
``"`` or ``'`` gives a file that WEKA and liac-arff itself misread) and reads quoted names
back without unescaping. The writer follows WEKA's own ``Utils.quote``: a name or value that
needs it is put in single quotes, with ``\\``, ``'``, ``"`` and ``%`` escaped by a backslash,
``\\n \\r \\t`` as such and other control characters as octal escapes (``\\001``), which is
what Java's ``StreamTokenizer`` (WEKA's ARFF tokenizer) decodes. Every file written is also
read by liac-arff, and dense files by ``scipy.io.arff`` (see the tests).

Conventions
-----------
- Features are nominal ``{0,1}`` attributes (so a WEKA sparse row omits the zeros, which
  are the first nominal value), the class is the *last* attribute, nominal over the sorted
  label values. A table without labels has no class attribute.
- Instance ids are not written to ARFF by default (WEKA classifiers would treat an id as a
  feature); ``id_attribute="id"`` writes them as a first ``STRING`` attribute, and
  :func:`read_arff` uses a first ``STRING`` attribute as the instance ids.

All files are UTF-8 and written atomically (a crash leaves the old file or none).

Examples
--------
>>> import tempfile, pathlib
>>> from kg.hierarchy import FeatureHierarchy
>>> from kg.table import FeatureTable
>>> h = FeatureHierarchy.from_edges([("Athlete", "Person")])
>>> t = FeatureTable.from_facts({"a": ["Athlete"], "b": ["Person"]}, h, labels={"a": 1, "b": 0})
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = write_arff(t, d / "t.arff", sparse=True)
>>> back = read_arff(d / "t.arff")
>>> back.feature_names.tolist(), back.X.toarray().astype(int).tolist(), back.y.tolist()
(['Athlete', 'Person'], [[1, 1], [0, 1]], [1, 0])
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from kg.errors import InputFormatError
from kg.files import atomic_write
from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable

__all__ = ["ArffTable", "arff_quote", "read_arff", "write_arff"]

# Names made only of these characters are written bare; everything else is quoted.
_BARE = re.compile(r"[A-Za-z0-9_.:\-+/#]+")
_ESCAPES = {"\\": "\\\\", "'": "\\'", '"': '\\"', "%": "\\%", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_ESCAPE = re.compile(r"[\\'\"%\x00-\x1f\x7f]")
_UNESCAPE = re.compile(r"\\([0-7]{1,3}|.)", re.DOTALL)
_JAVA_ESCAPES = {"a": "\x07", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\x0b"}
_ROWS_PER_CHUNK = 512


def arff_quote(value: str) -> str:
    """Quote ``value`` for an ARFF header or data line the way WEKA's ``Utils.quote`` does.

    >>> arff_quote("GO:0008150"), arff_quote("it's 50%"), arff_quote("?")
    ('GO:0008150', "'it\\\\'s 50\\\\%'", "'?'")
    """
    value = str(value)
    if value and _BARE.fullmatch(value):
        return value

    def esc(m: re.Match) -> str:
        c = m.group()
        return _ESCAPES.get(c) or "\\%03o" % ord(c)

    return "'" + _NEEDS_ESCAPE.sub(esc, value) + "'"


def _unescape(text: str) -> str:
    """Decode backslash escapes as Java's ``StreamTokenizer`` does (octal, \\n, \\t, ...)."""

    def sub(m: re.Match) -> str:
        s = m.group(1)
        if s[0] in "01234567":
            return chr(int(s, 8))
        return _JAVA_ESCAPES.get(s, s)

    return _UNESCAPE.sub(sub, text)


# --------------------------------------------------------------------------- ARFF writing
def _label_strings(y: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Sorted distinct class values as strings, and each row's index into them."""
    values, codes = np.unique(np.asarray(y), return_inverse=True)
    return [str(v) for v in values.tolist()], codes.ravel()


def write_arff(
    table: FeatureTable,
    path: str | os.PathLike,
    *,
    sparse: bool = False,
    relation: str | None = None,
    id_attribute: str | None = None,
    class_name: str = "class",
) -> Path:
    """Write ``table`` as a WEKA ARFF file (dense or sparse), atomically.

    Parameters
    ----------
    table : FeatureTable
    path : path
    sparse : bool
        WEKA sparse format (``{index value, ...}`` rows listing the 1s only).
    relation : str, optional
        The ``@relation`` name; default ``table.meta["dataset"]`` or ``"kgfs"``.
    id_attribute : str, optional
        When given, the instance ids are written as a first ``STRING`` attribute of that name.
    class_name : str
        Name of the class attribute (last; nominal over the sorted label values).

    Returns
    -------
    Path
        ``path``.
    """
    path = Path(path)
    relation = relation or str(table.meta.get("dataset") or "kgfs")
    names = table.feature_names.tolist()
    taken = set(names)
    if id_attribute is not None and id_attribute in taken:
        raise InputFormatError(f"id attribute name {id_attribute!r} is also a feature name")
    if table.y is not None and class_name in taken:
        raise InputFormatError(f"class attribute name {class_name!r} is also a feature name; pass class_name=")

    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            _write_arff_stream(fh, table, sparse, relation, id_attribute, class_name)

    atomic_write(path, write)
    return path


def _write_arff_stream(fh, table, sparse, relation, id_attribute, class_name) -> None:
    n, m = table.shape
    fh.write(f"% kgfs feature table: {n} instances, {m} binary features"
             f"{', class last' if table.y is not None else ''}\n")
    fh.write(f"@relation {arff_quote(relation)}\n\n")
    off = 0
    if id_attribute is not None:
        fh.write(f"@attribute {arff_quote(id_attribute)} string\n")
        off = 1
    for name in table.feature_names.tolist():
        fh.write(f"@attribute {arff_quote(name)} {{0,1}}\n")
    labels: list[str] = []
    codes = None
    if table.y is not None:
        labels, codes = _label_strings(table.y)
        fh.write(f"@attribute {arff_quote(class_name)} {{{','.join(arff_quote(v) for v in labels)}}}\n")
    fh.write("\n@data\n")
    ids = [arff_quote(i) for i in table.instance_ids.tolist()] if id_attribute is not None else None
    qlabels = [arff_quote(v) for v in labels]
    X = table.X
    if sparse:
        indptr, indices = X.indptr, X.indices
        class_col = off + m
        buf = []
        for i in range(n):
            parts = []
            if ids is not None:
                parts.append(f"0 {ids[i]}")
            cols = np.sort(indices[indptr[i]:indptr[i + 1]]) + off
            parts.extend(f"{c} 1" for c in cols.tolist())
            if codes is not None:  # written even when it is the first value, for readability
                parts.append(f"{class_col} {qlabels[codes[i]]}")
            buf.append("{" + ",".join(parts) + "}\n")
            if len(buf) >= 4096:
                fh.write("".join(buf))
                buf.clear()
        fh.write("".join(buf))
        return
    for start in range(0, n, _ROWS_PER_CHUNK):
        # a few hundred rows at a time: never the whole table densified
        block = X[start:start + _ROWS_PER_CHUNK].toarray().astype(np.int8)
        lines = []
        for k, row in enumerate(block):
            i = start + k
            cells = ",".join("1" if v else "0" for v in row.tolist())
            head = f"{ids[i]}," if ids is not None else ""
            tail = f",{qlabels[codes[i]]}" if codes is not None else ""
            if not cells:
                head, tail = head.rstrip(","), tail.lstrip(",")
                if head and tail:
                    head += ","
            lines.append(head + cells + tail + "\n")
        fh.write("".join(lines))


# --------------------------------------------------------------------------- ARFF reading
_TOKEN = re.compile(
    r"""\s*(?:
        '((?:[^'\\]|\\.)*)'        # 1 single-quoted
      | "((?:[^"\\]|\\.)*)"        # 2 double-quoted
      | ([{},])                    # 3 punctuation
      | (%.*)                      # 4 comment to end of line
      | ([^\s,{}'"%]+)             # 5 bare word
    )""",
    re.VERBOSE | re.DOTALL,
)


def _tokens(text: str, path, line: int) -> list[tuple[str, str]]:
    """Split one ARFF line into ``(kind, value)`` tokens; kind is ``q`` (quoted), ``w`` or ``p``."""
    out = []
    pos = 0
    end = len(text.rstrip())
    while pos < end:
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise InputFormatError(f"cannot parse ARFF text at {text[pos:pos + 30]!r}", path, line)
        pos = m.end()
        if m.group(4) is not None:
            break
        if m.group(1) is not None:
            out.append(("q", _unescape(m.group(1))))
        elif m.group(2) is not None:
            out.append(("q", _unescape(m.group(2))))
        elif m.group(3) is not None:
            out.append(("p", m.group(3)))
        else:
            out.append(("w", m.group(5)))
    return out


@dataclass
class ArffTable:
    """The parts of a binary ARFF table, ready for :class:`~kg.table.FeatureTable`.

    Attributes
    ----------
    relation : str
    X : csr_matrix of float 0/1 (n_instances x n_features)
    feature_names : ndarray of str
    instance_ids : ndarray of str
        From a first ``STRING`` attribute, else ``"0", "1", ...`` (row numbers).
    y : ndarray or None
        Class values; integers when every value is an integer literal, else strings.
    class_name : str or None
    class_values : list of str
        The declared nominal values of the class attribute.
    """

    relation: str
    X: sp.csr_matrix
    feature_names: np.ndarray
    instance_ids: np.ndarray
    y: np.ndarray | None
    class_name: str | None
    class_values: list[str] = field(default_factory=list)

    def to_table(self, hierarchy: FeatureHierarchy | None = None, *, check: str = "raise") -> FeatureTable:
        """A :class:`FeatureTable`; ``hierarchy=None`` gives a flat one (no edges).

        A given hierarchy must have exactly the file's features as nodes (any order; the
        columns are reordered to the hierarchy's order).
        """
        X, names = self.X, self.feature_names
        if hierarchy is None:
            hierarchy = FeatureHierarchy(names, [], [])
        else:
            if sorted(hierarchy.node_ids.tolist()) != sorted(names.tolist()):
                extra = sorted(set(names.tolist()) - set(hierarchy.node_ids.tolist()))
                raise InputFormatError(
                    "the hierarchy's nodes differ from the ARFF features"
                    + (f", e.g. {extra[0]!r} is not in the hierarchy" if extra else "")
                )
            pos = {n: i for i, n in enumerate(names.tolist())}
            order = np.array([pos[n] for n in hierarchy.node_ids.tolist()], dtype=np.int64)
            X, names = X[:, order], names[order]
        return FeatureTable(X, names, self.instance_ids, self.y, hierarchy,
                            meta={"dataset": self.relation}, check=check)


def read_arff(path: str | os.PathLike, *, class_attribute: str | None = None) -> ArffTable:
    """Read a binary ARFF table (dense or sparse), as written by :func:`write_arff` or WEKA.

    Parameters
    ----------
    path : path
    class_attribute : str, optional
        Name of the class attribute. Default: the last attribute, if it is nominal and
        either named ``class`` (any case) or has values other than 0/1; otherwise the file
        has no class (``y`` is ``None``).

    Every other attribute must be numeric or nominal with values 0/1 (a first ``STRING``
    attribute is taken as the instance ids). Errors name the file, line and value.
    """
    path = Path(path)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    # only \n and \r end lines (as in Java); str.splitlines would also split on \x85, \u2028, ...
    lines = [ln.rstrip("\r") for ln in text.split("\n")]
    relation = ""
    attrs: list[tuple[str, str, list[str] | None]] = []  # name, kind, nominal values
    data_start = None
    for ln, raw in enumerate(lines, start=1):
        s = raw.strip()
        if not s or s.startswith("%"):
            continue
        low = s[:10].lower()
        if low.startswith("@relation"):
            toks = _tokens(s[9:], path, ln)
            relation = toks[0][1] if toks else ""
        elif low.startswith("@attribute"):
            toks = _tokens(s[10:], path, ln)
            if len(toks) < 2 or toks[0][0] == "p":
                raise InputFormatError(f"malformed @attribute line {s!r}", path, ln)
            name = toks[0][1]
            if toks[1] == ("p", "{"):
                if toks[-1] != ("p", "}"):
                    raise InputFormatError(f"unterminated nominal type in {s!r}", path, ln)
                values = [v for k, v in toks[2:-1] if k != "p"]
                attrs.append((name, "nominal", values))
            else:
                kind = toks[1][1].lower()
                if kind not in ("numeric", "real", "integer", "string"):
                    raise InputFormatError(f"unsupported attribute type {toks[1][1]!r} of {name!r}", path, ln)
                attrs.append((name, "string" if kind == "string" else "numeric", None))
        elif low.startswith("@data"):
            data_start = ln
            break
        else:
            raise InputFormatError(f"unexpected header line {s[:60]!r}", path, ln)
    if data_start is None:
        raise InputFormatError("no @data section", path)
    if not attrs:
        raise InputFormatError("no @attribute declarations", path)

    names = [a[0] for a in attrs]
    if len(set(names)) != len(names):
        dup = next(n for i, n in enumerate(names) if n in names[:i])
        raise InputFormatError(f"duplicate attribute name {dup!r}", path)
    # the class: named, or the last attribute if nominal with values beyond {0,1} or named class
    if class_attribute is not None:
        if class_attribute not in names:
            raise InputFormatError(f"no attribute named {class_attribute!r}", path)
        ci = names.index(class_attribute)
    else:
        last = attrs[-1]
        ci = len(attrs) - 1 if last[1] == "nominal" and (
            last[0].lower() == "class" or sorted(last[2]) != ["0", "1"]) else None
    id_col = 0 if attrs[0][1] == "string" and ci != 0 else None
    feat_cols = [j for j in range(len(attrs)) if j != ci and j != id_col]
    for j in feat_cols:
        name, kind, values = attrs[j]
        if kind == "string":
            raise InputFormatError(f"attribute {name!r} is a string; only the first attribute may be (ids)", path)
        if kind == "nominal" and not set(values) <= {"0", "1"}:
            raise InputFormatError(f"attribute {name!r} is nominal {values!r}, not binary {{0,1}}", path)
    col_of = np.full(len(attrs), -1, dtype=np.int64)
    col_of[feat_cols] = np.arange(len(feat_cols))
    nominal_zero = {j: attrs[j][2][0] for j in range(len(attrs)) if attrs[j][1] == "nominal" and attrs[j][2]}

    rows: list[int] = []
    cols: list[int] = []
    ids: list[str] = []
    ys: list[str | None] = []
    n = 0
    for ln in range(data_start + 1, len(lines) + 1):
        s = lines[ln - 1].strip()
        if not s or s.startswith("%"):
            continue
        if s.startswith("{"):
            cells = _sparse_cells(s, path, ln, len(attrs))
        else:
            if "'" in s or '"' in s or "%" in s:
                vals = [None if (k, v) == ("w", "?") else v for k, v in _tokens(s, path, ln) if k != "p"]
            else:
                vals = [None if v.strip() == "?" else v.strip() for v in s.split(",")]
            if len(vals) != len(attrs):
                raise InputFormatError(f"{len(vals)} values, expected {len(attrs)}", path, ln)
            cells = dict(enumerate(vals))
        ident = cells.get(id_col) if id_col is not None else None
        ids.append(str(n) if ident is None else ident)
        if ci is not None:
            ys.append(cells.get(ci, nominal_zero.get(ci)))
        for j, v in cells.items():
            c = col_of[j]
            if c < 0:
                continue
            if v is None:
                raise InputFormatError(f"missing value '?' of attribute {attrs[j][0]!r}", path, ln)
            if v in ("1", "1.0"):
                rows.append(n)
                cols.append(int(c))
            elif v not in ("0", "0.0"):
                raise InputFormatError(
                    f"non-binary value {v!r} of attribute {attrs[j][0]!r} (features must be 0/1)", path, ln)
        n += 1
    X = sp.csr_matrix((np.ones(len(rows)), (np.asarray(rows, np.int64), np.asarray(cols, np.int64))),
                      shape=(n, len(feat_cols)))
    y = None
    class_values: list[str] = []
    if ci is not None:
        class_values = list(attrs[ci][2] or [])
        if any(v is None for v in ys):
            k = next(i for i, v in enumerate(ys) if v is None)
            raise InputFormatError(f"instance {k} has a missing class value", path)
        bad = sorted(set(ys) - set(class_values)) if class_values else []
        if bad:
            raise InputFormatError(f"class value {bad[0]!r} is not declared in {class_values!r}", path)
        y = np.asarray(ys, dtype=str)
        if all(re.fullmatch(r"[+-]?\d+", v) for v in class_values):
            y = y.astype(np.int64)
    return ArffTable(
        relation=relation,
        X=X,
        feature_names=np.asarray([names[j] for j in feat_cols], dtype=str) if feat_cols else np.zeros(0, "<U1"),
        instance_ids=np.asarray(ids, dtype=str),
        y=y,
        class_name=names[ci] if ci is not None else None,
        class_values=class_values,
    )


def _sparse_cells(s: str, path, ln: int, n_attrs: int) -> dict[int, str]:
    if not s.endswith("}"):
        raise InputFormatError(f"sparse row without closing brace: {s[:60]!r}", path, ln)
    body = s[1:-1]
    cells: dict[int, str] = {}
    if "'" in body or '"' in body:
        toks = _tokens(body, path, ln)
        # pairs: index (word) then value, separated by commas; a bare ? is a missing value
        items, cur = [], []
        for k, v in toks:
            if (k, v) == ("p", ","):
                items.append(cur)
                cur = []
            else:
                cur.append(None if (k, v) == ("w", "?") else v)
        items.append(cur)
        pairs = [it for it in items if it]
        if any(len(it) != 2 for it in pairs):
            raise InputFormatError(f"malformed sparse row {s[:60]!r}", path, ln)
    else:
        pairs = [p.split() for p in body.split(",") if p.strip()]
        if any(len(p) != 2 for p in pairs):
            raise InputFormatError(f"malformed sparse row {s[:60]!r}", path, ln)
        pairs = [(j, None if v == "?" else v) for j, v in pairs]
    for idx, v in pairs:
        try:
            j = int(idx)
        except ValueError:
            raise InputFormatError(f"bad attribute index {idx!r} in sparse row", path, ln) from None
        if not 0 <= j < n_attrs:
            raise InputFormatError(f"attribute index {j} out of range (0..{n_attrs - 1})", path, ln)
        cells[j] = v
    return cells


def _arff_text(table: FeatureTable, **kw) -> str:
    """The ARFF text :func:`write_arff` would write (for tests and previews)."""
    buf = io.StringIO()
    _write_arff_stream(buf, table, kw.get("sparse", False), kw.get("relation") or "kgfs",
                       kw.get("id_attribute"), kw.get("class_name", "class"))
    return buf.getvalue()
