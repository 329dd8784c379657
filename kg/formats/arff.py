"""WEKA ARFF files of a :class:`~kg.table.FeatureTable`: the writer (dense and sparse) and the reader.

This is the one ARFF reader of kgfs (the published datasets' readers in
:mod:`kg.ontology.published` use it too). It reads what WEKA writes: dense and sparse rows
(also mixed), quoted names with WEKA's escapes, features declared nominal ``{0,1}``,
``{1.0,0.0}`` (WEKA's ``CSVLoader``) or numeric, and sparse rows that leave out each
attribute's first nominal value, whatever that value is (liac-arff reads such a row as all
zeros). Plain dense rows, the bulk of any file, are decoded a block at a time with NumPy:
the 28 RPV files load 2.5x faster than with liac-arff (``tests/kg/formats/weka/`` holds
files WEKA wrote, and the tests check the writer against WEKA itself).

ARFF is written by this module itself rather than by ``liac-arff``'s encoder, because
liac-arff 2.5 puts attribute names in double quotes *without escaping them* (a name holding
``"`` or ``'`` gives a file that WEKA and liac-arff itself misread). The writer follows
WEKA's own ``Utils.quote``: a name or value that needs it is put in single quotes, with
``\\``, ``'``, ``"`` and ``%`` escaped by a backslash, ``\\n \\r \\t`` as such and other
control characters as octal escapes (``\\001``), which is what Java's ``StreamTokenizer``
(WEKA's ARFF tokenizer) decodes.

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
import operator
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from kg.errors import InputFormatError
from kg.files import atomic_write
from kg.formats.csv_io import utf8_error
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

    Parameters
    ----------
    value : str

    Returns
    -------
    str
        ``value`` itself when it is safe bare, else single-quoted with backslash escapes.

    Examples
    --------
    >>> arff_quote("GO:0008150"), arff_quote("it's 50%"), arff_quote("?")
    ('GO:0008150', "'it\\\\'s 50\\\\%'", "'?'")
    """
    value = str(value)
    if value and _BARE.fullmatch(value):
        return value

    def esc(m: re.Match) -> str:
        c = m.group()
        return _ESCAPES.get(c) or f"\\{ord(c):03o}"

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

    Examples
    --------
    >>> import pathlib, tempfile
    >>> h = FeatureHierarchy.from_edges([("Athlete", "Person")])
    >>> t = FeatureTable.from_facts({"g 1": ["Athlete"], "g2": ["Person"]}, h, labels={"g 1": "pro", "g2": "anti"})
    >>> p = write_arff(t, pathlib.Path(tempfile.mkdtemp()) / "t.arff", sparse=True, id_attribute="gene")
    >>> print(p.read_text(), end="")
    % kgfs feature table: 2 instances, 2 binary features, class last
    @relation kgfs
    <BLANKLINE>
    @attribute gene string
    @attribute Athlete {0,1}
    @attribute Person {0,1}
    @attribute class {anti,pro}
    <BLANKLINE>
    @data
    {0 'g 1',1 1,2 1,3 pro}
    {0 g2,2 1,3 anti}
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
    counts = table.values is not None
    fh.write(f"% kgfs feature table: {n} instances, {m} {'count' if counts else 'binary'} features"
             f"{', class last' if table.y is not None else ''}\n")
    fh.write(f"@relation {arff_quote(relation)}\n\n")
    off = 0
    if id_attribute is not None:
        fh.write(f"@attribute {arff_quote(id_attribute)} string\n")
        off = 1
    kind = "numeric" if counts else "{0,1}"
    for name in table.feature_names.tolist():
        fh.write(f"@attribute {arff_quote(name)} {kind}\n")
    labels: list[str] = []
    codes = None
    if table.y is not None:
        labels, codes = _label_strings(table.y)
        fh.write(f"@attribute {arff_quote(class_name)} {{{','.join(arff_quote(v) for v in labels)}}}\n")
    fh.write("\n@data\n")
    ids = [arff_quote(i) for i in table.instance_ids.tolist()] if id_attribute is not None else None
    qlabels = [arff_quote(v) for v in labels]
    X = table.X if not counts else table.values
    cell = (lambda v: "1") if not counts else _number
    if sparse:
        indptr, indices = X.indptr, X.indices
        data = X.data
        class_col = off + m
        buf = []
        for i in range(n):
            parts = []
            if ids is not None:
                parts.append(f"0 {ids[i]}")
            order = np.argsort(indices[indptr[i]:indptr[i + 1]], kind="stable") + indptr[i]
            parts.extend(f"{c + off} {cell(v)}" for c, v in zip(indices[order].tolist(), data[order].tolist()))
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
        block = X[start:start + _ROWS_PER_CHUNK].toarray()
        lines = []
        for k, row in enumerate(block):
            i = start + k
            cells = ",".join((cell(v) if v else "0") for v in row.tolist())
            head = f"{ids[i]}," if ids is not None else ""
            tail = f",{qlabels[codes[i]]}" if codes is not None else ""
            if not cells:
                head, tail = head.rstrip(","), tail.lstrip(",")
                if head and tail:
                    head += ","
            lines.append(head + cells + tail + "\n")
        fh.write("".join(lines))


def _number(v: float) -> str:
    """A count as ARFF writes it: ``3``, or ``2.5`` when it is not whole."""
    return str(int(v)) if float(v).is_integer() else repr(float(v))


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
# characters that send a data line to the tokenizer instead of the fast split
_SPECIAL = re.compile(r"""['"%{}]""")
_BINARY = frozenset(("0", "1"))
_ONE = frozenset(("1", "1.0"))
_JUST_ONE = frozenset(("1",))
_ZERO = frozenset(("0", "0.0"))
_BINARY_VALUES = _ONE | _ZERO  # what a feature may declare (WEKA's CSVLoader writes {1.0,0.0})


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
        From the id attribute (see :func:`read_arff`), else ``"0", "1", ...`` (row numbers).
    y : ndarray or None
        Class values; integers when every value is an integer literal, else strings.
    class_name : str or None
    class_values : list of str
        The declared nominal values of the class attribute.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> a = ArffTable("r", sp.csr_matrix(np.array([[1.0, 0.0]])), np.array(["b", "a"]), np.array(["i0"]),
    ...               np.array([1]), "class", ["0", "1"])
    >>> h = FeatureHierarchy.from_edges([("b", "a")], nodes=["a", "b"])
    >>> t = a.to_table(h, check="ignore")
    >>> t.feature_names.tolist(), t.X.toarray().astype(int).tolist(), t.meta["violations"]
    (['a', 'b'], [[0, 1]], 1)
    """

    relation: str
    X: sp.csr_matrix
    feature_names: np.ndarray
    instance_ids: np.ndarray
    y: np.ndarray | None
    class_name: str | None
    class_values: list[str] = field(default_factory=list)

    def to_table(self, hierarchy: FeatureHierarchy | None = None, *, check: str = "raise") -> FeatureTable:
        """A :class:`FeatureTable` of these parts.

        Parameters
        ----------
        hierarchy : FeatureHierarchy, optional
            Must have exactly the file's features as nodes (any order; the columns are
            reordered to the hierarchy's order). ``None`` gives a flat table (no edges).
        check : {"raise", "repair", "ignore"}
            What to do with implication violations (see :class:`~kg.table.FeatureTable`).

        Returns
        -------
        FeatureTable
            ``meta["dataset"]`` is the relation name.

        Examples
        --------
        >>> import numpy as np, scipy.sparse as sp
        >>> a = ArffTable("r", sp.csr_matrix(np.eye(2)), np.array(["a", "b"]), np.array(["x", "y"]), None, None)
        >>> a.to_table().hierarchy.n_edges
        0
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


@dataclass
class _Attribute:
    name: str
    kind: str  # "nominal", "numeric" or "string"
    values: list[str] | None = None  # nominal values, in declared order

    @property
    def default(self) -> str:
        """The value a WEKA sparse row leaves out: the first nominal value, else 0."""
        return self.values[0] if self.kind == "nominal" and self.values else "0"


def _read_lines(path: Path) -> list[str]:
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except UnicodeDecodeError:
        raise utf8_error(path, "WEKA writes the platform charset: run java with -Dfile.encoding=UTF-8") from None
    # only \n and \r end lines (as in Java); str.splitlines would also split on \x85, \u2028, ...
    return [ln.rstrip("\r") for ln in text.split("\n")]


def _parse_attribute(s: str, path, ln: int) -> _Attribute:
    toks = _tokens(s[10:], path, ln)
    if len(toks) < 2 or toks[0][0] == "p":
        raise InputFormatError(f"malformed @attribute line {s!r}", path, ln)
    name = toks[0][1]
    if toks[1] == ("p", "{"):
        if toks[-1] != ("p", "}"):
            raise InputFormatError(f"unterminated nominal type in {s!r}", path, ln)
        return _Attribute(name, "nominal", [v for k, v in toks[2:-1] if k != "p"])
    kind = toks[1][1].lower()
    if kind not in ("numeric", "real", "integer", "string"):
        raise InputFormatError(f"unsupported attribute type {toks[1][1]!r} of {name!r}", path, ln)
    return _Attribute(name, "string" if kind == "string" else "numeric")


def _parse_header(lines: list[str], path) -> tuple[str, list[_Attribute], int]:
    """``(relation, attributes, line number of @data)``."""
    relation = ""
    attrs: list[_Attribute] = []
    for ln, raw in enumerate(lines, start=1):
        s = raw.strip()
        if not s or s.startswith("%"):
            continue
        low = s[:10].lower()
        if low.startswith("@relation"):
            toks = _tokens(s[9:], path, ln)
            relation = toks[0][1] if toks else ""
        elif low.startswith("@attribute"):
            attrs.append(_parse_attribute(s, path, ln))
        elif low.startswith("@data"):
            if not attrs:
                raise InputFormatError("no @attribute declarations", path)
            return relation, attrs, ln
        else:
            raise InputFormatError(f"unexpected header line {s[:60]!r}", path, ln)
    raise InputFormatError("no @data section", path)


def _roles(attrs: list[_Attribute], class_attribute, id_attribute, path) -> tuple[int | None, int | None, list[int]]:
    """Column numbers of the class and the ids (or ``None``) and of the features."""
    names = [a.name for a in attrs]
    if len(set(names)) != len(names):
        dup = next(n for i, n in enumerate(names) if n in names[:i])
        raise InputFormatError(f"duplicate attribute name {dup!r}", path)
    if isinstance(class_attribute, int) and not isinstance(class_attribute, bool):
        if not -len(attrs) <= class_attribute < len(attrs):
            raise InputFormatError(f"no attribute number {class_attribute} ({len(attrs)} attributes)", path)
        ci = class_attribute % len(attrs)
    elif class_attribute is not None:
        if class_attribute not in names:
            raise InputFormatError(f"missing label column: no attribute named {class_attribute!r}", path)
        ci = names.index(class_attribute)
    else:  # the last attribute, if nominal and named class or with values other than {0,1}
        last = attrs[-1]
        ci = len(attrs) - 1 if last.kind == "nominal" and (
            last.name.lower() == "class" or not set(last.values) <= _BINARY_VALUES) else None
    if id_attribute is not None and id_attribute in names and names.index(id_attribute) != ci:
        id_col = names.index(id_attribute)
    else:
        id_col = 0 if attrs[0].kind == "string" and ci != 0 else None
    feat_cols = [j for j in range(len(attrs)) if j != ci and j != id_col]
    for j in feat_cols:
        a = attrs[j]
        if a.kind == "string":
            raise InputFormatError(f"attribute {a.name!r} is a string; only the id attribute may be", path)
        if a.kind == "nominal" and not set(a.values) <= _BINARY_VALUES:
            raise InputFormatError(f"attribute {a.name!r} is nominal {a.values!r}, not binary {{0,1}}", path)
    return ci, id_col, feat_cols


class _Rows:
    """The data section, row by row: ids, class values and the 1-cells of the features.

    Dense rows of plain ``0``/``1`` (the bulk of any file) take a fast path: their feature
    values are joined into one string of ``0``/``1`` characters and turned into cells by
    NumPy a block at a time; everything else (quotes, ``?``, ``1.0``, sparse rows) goes
    through the general code.
    """

    def __init__(self, attrs: list[_Attribute], ci, id_col, feat_cols, path):
        self.attrs, self.ci, self.id_col, self.path = attrs, ci, id_col, path
        self.n_attrs = len(attrs)
        self.m = len(feat_cols)
        self.col_of = dict(zip(feat_cols, range(self.m)))
        self.feat_cols = feat_cols
        # WEKA sparse rows leave out each attribute's first nominal value; {1,0} makes that a 1
        self.default_ones = [self.col_of[j] for j in feat_cols if attrs[j].default in _ONE]
        if self.m == 0:
            self.take = lambda vals: ()
        elif self.m == 1:
            j = feat_cols[0]
            self.take = lambda vals: (vals[j],)
        else:
            self.take = operator.itemgetter(*feat_cols)
        self.n = 0
        self.ids: list[str] = []
        self.ys: list[str | None] = []
        self.rows: list[np.ndarray] = []
        self.cols: list[np.ndarray] = []
        self._dense: list[str] = []  # "0101..." per row of the current block
        self._dense_rows: list[int] = []
        self._r: list[int] = []
        self._c: list[int] = []

    def add(self, s: str, ln: int) -> None:
        if s[0] == "{":
            self._sparse(s, ln)
        else:
            self._dense_row(s, ln)
        self.n += 1

    def _finish(self, ident: str | None, cls: str | None) -> None:
        self.ids.append(str(self.n) if ident is None else ident)
        if self.ci is not None:
            self.ys.append(cls)

    def _dense_row(self, s: str, ln: int) -> None:
        if _SPECIAL.search(s):
            toks = _tokens(s, self.path, ln)
            if any(t == ("p", "{") or t == ("p", "}") for t in toks):
                raise InputFormatError(f"brace in a dense row {s[:60]!r}", self.path, ln)
            vals = [None if t == ("w", "?") else t[1] for t in toks if t[0] != "p"]
        else:  # commas and blanks both separate values (WEKA's tokenizer)
            vals = [None if v == "?" else v for v in s.replace(",", " ").split()]
        if len(vals) != self.n_attrs:
            raise InputFormatError(f"{len(vals)} values, expected {self.n_attrs}", self.path, ln)
        self._finish(vals[self.id_col] if self.id_col is not None else None,
                     vals[self.ci] if self.ci is not None else None)
        feats = self.take(vals)
        if not _BINARY.issuperset(feats):
            feats = [self._bit(j, v, ln) for j, v in zip(self.feat_cols, feats)]
        self._dense.append("".join(feats))
        self._dense_rows.append(self.n)
        if len(self._dense) >= _ROWS_PER_CHUNK:
            self._flush()

    def _bit(self, j: int, v: str | None, ln: int) -> str:
        if v in _ONE:
            return "1"
        if v in _ZERO:
            return "0"
        name = self.attrs[j].name
        if v is None:
            raise InputFormatError(f"missing value '?' of attribute {name!r} in instance {self.n + 1}", self.path, ln)
        raise InputFormatError(
            f"non-binary value {v!r} in instance {self.n + 1}, attribute {name!r} (features must be 0/1)",
            self.path, ln)

    def _sparse(self, s: str, ln: int) -> None:
        if not s.endswith("}"):
            raise InputFormatError(f"sparse row without closing brace: {s[:60]!r}", self.path, ln)
        body = s[1:-1]
        if _SPECIAL.search(body):
            pairs = self._quoted_pairs(body, s, ln)
        else:
            flat = body.replace(",", " ").split()
            if len(flat) % 2:
                raise InputFormatError(f"malformed sparse row {s[:60]!r}", self.path, ln)
            pairs = zip(flat[0::2], (None if v == "?" else v for v in flat[1::2]))
        cells: dict[int, str | None] = {}
        for idx, v in pairs:
            try:
                j = int(idx)
            except ValueError:
                raise InputFormatError(f"bad attribute index {idx!r} in sparse row", self.path, ln) from None
            if not 0 <= j < self.n_attrs:
                raise InputFormatError(f"attribute index {j} out of range (0..{self.n_attrs - 1})", self.path, ln)
            cells[j] = v
        ident = cells.pop(self.id_col, None) if self.id_col is not None else None
        cls = None
        if self.ci is not None:
            cls = cells.pop(self.ci) if self.ci in cells else self.attrs[self.ci].default
        self._finish(ident, cls)
        col_of = self.col_of
        if _JUST_ONE.issuperset(cells.values()):
            ones = {col_of[j] for j in cells}
        else:
            ones = {col_of[j] for j, v in cells.items() if self._bit(j, v, ln) == "1"}
        for c in self.default_ones:
            if self.feat_cols[c] not in cells:
                ones.add(c)
        self._r.extend([self.n] * len(ones))
        self._c.extend(ones)

    def _quoted_pairs(self, body: str, s: str, ln: int) -> list[list]:
        items, cur = [], []
        for k, v in _tokens(body, self.path, ln):
            if (k, v) == ("p", ","):
                items.append(cur)
                cur = []
            else:  # a bare ? is a missing value
                cur.append(None if (k, v) == ("w", "?") else v)
        items.append(cur)
        pairs = [it for it in items if it]
        if any(len(it) != 2 for it in pairs):
            raise InputFormatError(f"malformed sparse row {s[:60]!r}", self.path, ln)
        return pairs

    def _flush(self) -> None:
        if self._dense:
            block = np.frombuffer("".join(self._dense).encode("ascii"), dtype=np.uint8)
            r, c = np.nonzero(block.reshape(len(self._dense), self.m) == ord("1"))
            self.rows.append(np.asarray(self._dense_rows, dtype=np.int64)[r])
            self.cols.append(c.astype(np.int64))
            self._dense, self._dense_rows = [], []
        if self._r:
            self.rows.append(np.asarray(self._r, dtype=np.int64))
            self.cols.append(np.asarray(self._c, dtype=np.int64))
            self._r, self._c = [], []

    def matrix(self) -> sp.csr_matrix:
        self._flush()
        r = np.concatenate(self.rows) if self.rows else np.zeros(0, np.int64)
        c = np.concatenate(self.cols) if self.cols else np.zeros(0, np.int64)
        return sp.csr_matrix((np.ones(r.size), (r, c)), shape=(self.n, self.m))


def _class_labels(attr: _Attribute, ys: list[str | None], path) -> np.ndarray:
    """The class column: checked against the declared values; ints when all are integer literals."""
    if any(v is None for v in ys):
        k = next(i for i, v in enumerate(ys) if v is None)
        raise InputFormatError(f"instance {k + 1} has a missing class value", path)
    declared = list(attr.values or [])
    bad = sorted(set(ys) - set(declared)) if declared else []
    if bad:
        raise InputFormatError(f"class value {bad[0]!r} is not declared in {declared!r}", path)
    y = np.asarray(ys, dtype=str)
    if all(re.fullmatch(r"[+-]?\d+", v) for v in (declared or ys)):
        y = y.astype(np.int64)
    return y


def read_arff(
    path: str | os.PathLike, *, class_attribute: str | int | None = None, id_attribute: str | None = None
) -> ArffTable:
    """Read a binary ARFF table (dense or sparse rows), as written by :func:`write_arff` or WEKA.

    Parameters
    ----------
    path : path
    class_attribute : str or int, optional
        Name or position (``-1``: the last) of the class attribute. Default: the last
        attribute, if it is nominal and either named ``class`` (any case) or has values
        other than 0/1; otherwise the file has no class (``y`` is ``None``).
    id_attribute : str, optional
        Name of the attribute holding the instance ids. Default (and when the file has no
        attribute of that name): the first attribute, if it is a ``STRING`` attribute;
        otherwise the ids are row numbers.

    Returns
    -------
    ArffTable
        Every attribute but the class and the ids is a feature; it must be numeric or
        nominal over (a subset of) ``{0,1}``, with values ``0``/``1`` (or ``0.0``/``1.0``).

    Raises
    ------
    InputFormatError
        Naming the file, line and value at fault.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "w.arff"
    >>> _ = p.write_text("@relation w\\n@attribute gene string\\n@attribute 'GO:1' {0,1}\\n"
    ...                  "@attribute 'GO:2' {0,1}\\n@attribute class {neg,pos}\\n@data\\n"
    ...                  "g1,1,0,pos\\n{0 g2,2 1}\\n")
    >>> a = read_arff(p)
    >>> a.instance_ids.tolist(), a.feature_names.tolist(), a.X.toarray().astype(int).tolist(), a.y.tolist()
    (['g1', 'g2'], ['GO:1', 'GO:2'], [[1, 0], [0, 1]], ['pos', 'neg'])
    """
    path = Path(path)
    lines = _read_lines(path)
    relation, attrs, data_start = _parse_header(lines, path)
    ci, id_col, feat_cols = _roles(attrs, class_attribute, id_attribute, path)
    rows = _Rows(attrs, ci, id_col, feat_cols, path)
    for ln in range(data_start + 1, len(lines) + 1):
        s = lines[ln - 1].strip()
        if s and not s.startswith("%"):
            rows.add(s, ln)
    X = rows.matrix()
    return ArffTable(
        relation=relation,
        X=X,
        feature_names=np.asarray([attrs[j].name for j in feat_cols], dtype=str) if feat_cols else np.zeros(0, "<U1"),
        instance_ids=np.asarray(rows.ids, dtype=str),
        y=None if ci is None else _class_labels(attrs[ci], rows.ys, path),
        class_name=None if ci is None else attrs[ci].name,
        class_values=[] if ci is None else list(attrs[ci].values or []),
    )


def _arff_text(table: FeatureTable, **kw) -> str:
    """The ARFF text :func:`write_arff` would write (for tests and previews)."""
    buf = io.StringIO()
    _write_arff_stream(buf, table, kw.get("sparse", False), kw.get("relation") or "kgfs",
                       kw.get("id_attribute"), kw.get("class_name", "class"))
    return buf.getvalue()
