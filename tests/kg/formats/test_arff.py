"""Tests of kg/formats/arff.py: ARFF (dense, sparse), CSV and edges CSV, round trips and parsability."""

from __future__ import annotations

import csv
import io
import os

import arff as liac
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.io import arff as scipy_arff

from kg.errors import CycleError, HierarchyCycleWarning, InputFormatError
from kg.formats import read_csv, read_edges_csv, write_csv, write_edges_csv
from kg.formats.arff import _arff_text, arff_quote, read_arff, write_arff
from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable
from tests.strategies import closed_tables

# Names that break naive ARFF writers: spaces, both quotes, commas, %, braces, backslash,
# control characters, unicode, the missing-value marker and an IRI.
NASTY = [
    "a b",
    "it's",
    'say "hi"',
    "50%",
    "x,y",
    "ünïcødé 日本",
    "{br}",
    "tab\there",
    "new\nline",
    "back\\slash",
    "?",
    "bell\x07",
    "http://dbpedia.org/resource/Category:Rock_%26_roll",
    "GO:0008150",
]


def _table(names, y=None, ids=None, seed=0, hierarchy=None):
    rng = np.random.default_rng(seed)
    n = 6
    X = sp.csr_matrix((rng.random((n, len(names))) < 0.4).astype(np.int8))
    h = hierarchy or FeatureHierarchy(names, [], [])
    if y is None:
        y = np.array([0, 1] * (n // 2))
    return FeatureTable(X, names, ids or [f"g{i}" for i in range(n)], y, h)


# --------------------------------------------------------------------------- a WEKA reference tokenizer
def _weka_tokens(line: str) -> list[str]:
    """Tokens of one ARFF line as WEKA's ArffReader sees them.

    Emulates ``java.io.StreamTokenizer`` configured as in ``weka.core.converters.ArffLoader``:
    whitespace 0..' ' and ',', comment '%', quote chars ' and ", '{' '}' ordinary, every
    other char a word char; inside quotes ``\\`` escapes octal, a b f n r t v, or the char itself.
    Written independently of kg.formats.arff so the writer is checked against WEKA's rules.
    """
    out, i, n = [], 0, len(line)
    esc = {"a": "\x07", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\x0b"}
    while i < n:
        c = line[i]
        if c <= " " or c == ",":
            i += 1
        elif c == "%":
            break
        elif c in "{}":
            out.append(c)
            i += 1
        elif c in "'\"":
            q, i, buf = c, i + 1, []
            while i < n and line[i] != q and line[i] not in "\n\r":
                if line[i] == "\\":
                    i += 1
                    d = line[i]
                    if "0" <= d <= "7":
                        j = i
                        while j < n and j < i + 3 and "0" <= line[j] <= "7":
                            j += 1
                        buf.append(chr(int(line[i:j], 8)))
                        i = j
                        continue
                    buf.append(esc.get(d, d))
                    i += 1
                else:
                    buf.append(line[i])
                    i += 1
            out.append("".join(buf))
            i += 1
        else:
            j = i
            while j < n and not (line[j] <= " " or line[j] in ",%{}'\""):
                j += 1
            out.append(line[i:j])
            i = j
    return out


def _weka_header(text: str):
    """(attribute names, nominal values per attribute) as WEKA would parse the header."""
    names, values = [], []
    for line in text.split("\n"):
        if line.lower().startswith("@attribute"):
            toks = _weka_tokens(line[len("@attribute"):])
            names.append(toks[0])
            values.append([t for t in toks[2:-1]] if toks[1] == "{" else None)
    return names, values


# --------------------------------------------------------------------------- literal cases
def test_quote_rules():
    assert arff_quote("GO:0008150") == "GO:0008150"
    assert arff_quote("a b") == "'a b'"
    assert arff_quote("it's") == "'it\\'s'"
    assert arff_quote("50%") == "'50\\%'"
    assert arff_quote("?") == "'?'"
    assert arff_quote("") == "''"
    assert arff_quote("bell\x07") == "'bell\\007'"


@pytest.mark.parametrize("sparse", [False, True])
def test_nasty_names_round_trip(tmp_path, sparse):
    t = _table(NASTY, y=np.array(["pro", "anti 'x'", "pro", "a,b", "pro", "anti 'x'"]),
               ids=["i 1", "i'2", "i,3", "ü4", "%5", "6"])
    p = write_arff(t, tmp_path / "t.arff", sparse=sparse, id_attribute="id", relation="my rel%")
    back = read_arff(p)
    assert back.relation == "my rel%"
    assert back.feature_names.tolist() == NASTY
    assert back.instance_ids.tolist() == t.instance_ids.tolist()
    assert back.y.tolist() == t.y.tolist()
    assert (back.X != t.X).nnz == 0
    assert back.class_name == "class"


@pytest.mark.parametrize("sparse", [False, True])
def test_weka_tokenizer_reads_the_names(sparse):
    t = _table(NASTY, y=np.array(["p q", "it's", "p q", "it's", "p q", "it's"]))
    text = _arff_text(t, sparse=sparse)
    names, values = _weka_header(text)
    assert names == NASTY + ["class"]
    assert all(v == ["0", "1"] for v in values[:-1])
    assert values[-1] == ["it's", "p q"]
    data = text.split("@data\n", 1)[1].strip().split("\n")
    if not sparse:
        for row, line in zip(t.X.toarray().astype(int), data):
            toks = _weka_tokens(line)
            assert toks[:-1] == [str(v) for v in row]
    else:
        for i, line in enumerate(data):
            toks = _weka_tokens(line)
            assert toks[0] == "{" and toks[-1] == "}"
            pairs = dict(zip(toks[1:-1:2], toks[2:-1:2]))
            cols = sorted(int(k) for k in pairs if int(k) < len(NASTY))
            assert cols == sorted(t.X[i].indices.tolist())
            assert pairs[str(len(NASTY))] == t.y[i]


def test_liac_arff_parses_dense_and_sparse():
    names = NASTY
    t = _table(names, y=np.array(["pro", "anti", "pro", "anti", "pro", "anti"]))
    dense = liac.loads(_arff_text(t))
    assert len(dense["attributes"]) == len(names) + 1
    assert dense["attributes"][-1] == ("class", ["anti", "pro"])
    got = np.array([[int(v) for v in row[:-1]] for row in dense["data"]])
    assert (got == t.X.toarray()).all()
    assert [row[-1] for row in dense["data"]] == t.y.tolist()
    # names liac-arff can represent (no escapes) come back identical
    for (n, _), want in zip(dense["attributes"], names):
        if not any(c in want for c in "'\"\\%\t\n\x07"):
            assert n == want

    coo = liac.loads(_arff_text(t, sparse=True), return_type=liac.COO)
    data, r, c = coo["data"]
    feat = np.array(c) < len(names)
    X = sp.coo_matrix((np.ones(feat.sum()), (np.array(r)[feat], np.array(c)[feat])), shape=t.shape)
    assert (X.tocsr() != t.X).nnz == 0


def test_scipy_arff_parses_dense():
    names = ["alpha beta", "x,y", "ünï", "GO:0000001", "{b}"]
    t = _table(names)
    data, meta = scipy_arff.loadarff(io.StringIO(_arff_text(t)))
    assert meta.names() == names + ["class"]
    got = np.array([[int(row[n]) for n in names] for row in data])
    assert (got == t.X.toarray()).all()
    assert [int(row["class"]) for row in data] == t.y.tolist()


# --------------------------------------------------------------------------- properties
# NUL is excluded: numpy str arrays (FeatureTable's ids) drop trailing NULs.
_name = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), min_size=0, max_size=12)


@settings(max_examples=60, deadline=None)
@given(names=st.lists(_name, min_size=1, max_size=8, unique=True).filter(lambda ns: "class" not in ns),
       labels=st.lists(_name, min_size=2, max_size=2, unique=True),
       sparse=st.booleans(), seed=st.integers(0, 1000))
def test_any_names_round_trip(tmp_path_factory, names, labels, sparse, seed):
    y = np.array([labels[i % 2] for i in range(6)])
    t = _table(names, y=y, seed=seed)
    p = write_arff(t, tmp_path_factory.mktemp("a") / "t.arff", sparse=sparse, class_name="class")
    back = read_arff(p)
    assert back.feature_names.tolist() == names
    assert back.y.astype(str).tolist() == y.tolist()
    assert (back.X != t.X).nnz == 0
    # WEKA's tokenizer sees the same names
    wnames, wvalues = _weka_header(p.read_text(encoding="utf-8"))
    assert wnames == names + ["class"]
    assert wvalues[-1] == sorted(labels)


@settings(max_examples=40, deadline=None)
@given(case=closed_tables(), sparse=st.booleans())
def test_table_and_hierarchy_round_trip(tmp_path_factory, case, sparse):
    X, y, h = case
    t = FeatureTable(X, h.node_ids, [f"i{k}" for k in range(X.shape[0])], y, h)
    d = tmp_path_factory.mktemp("rt")
    write_arff(t, d / "t.arff", sparse=sparse)
    write_csv(t, d / "t.csv")
    write_edges_csv(h, d / "edges.csv")
    h2 = read_edges_csv(d / "edges.csv")
    assert h2 == h
    assert h2.node_ids.tolist() == h.node_ids.tolist()
    t2 = read_arff(d / "t.arff").to_table(h2)
    assert (t2.X != t.X).nnz == 0 and t2.y.tolist() == y.tolist()
    ids, names, X3, y3 = read_csv(d / "t.csv")
    assert names.tolist() == h.node_ids.tolist() and ids.tolist() == t.instance_ids.tolist()
    assert (X3 != t.X).nnz == 0 and y3.tolist() == y.tolist()


# --------------------------------------------------------------------------- CSV formats
def test_csv_layout(tmp_path):
    t = _table(["a,b", 'q"uote', "http://x.org/A"], y=np.array(["pro", "anti"] * 3))
    p = write_csv(t, tmp_path / "t.csv")
    rows = list(csv.reader(open(p, encoding="utf-8", newline="")))
    assert rows[0] == ["instance_id", "a,b", 'q"uote', "http://x.org/A", "label"]
    assert rows[1][0] == "g0" and rows[1][-1] == "pro"
    assert len(rows) == 7


def test_edges_csv_layout_and_isolated_nodes(tmp_path):
    h = FeatureHierarchy.from_edges([("b", "a"), ("c", "a"), ("c", "b")], nodes=["a", "b", "c", "lone, node"])
    p = write_edges_csv(h, tmp_path / "e.csv")
    rows = list(csv.reader(open(p, encoding="utf-8", newline="")))
    assert rows == [["child", "parent"], ["a", ""], ["b", "a"], ["c", "a"], ["c", "b"], ["lone, node", ""]]
    assert read_edges_csv(p) == h


def test_edges_csv_cycle(tmp_path):
    p = tmp_path / "e.csv"
    p.write_text("child,parent\na,b\nb,a\n")
    with pytest.raises(CycleError):
        read_edges_csv(p)
    with pytest.warns(HierarchyCycleWarning, match="b -> a"):
        assert read_edges_csv(p, on_cycle="break").n_edges == 1


def test_table_without_labels(tmp_path):
    names = ["a", "b"]
    t = FeatureTable(sp.csr_matrix(np.array([[1, 0], [0, 1]])), names, ["x", "y"], None,
                     FeatureHierarchy(names, [], []))
    back = read_arff(write_arff(t, tmp_path / "t.arff"))
    assert back.y is None and back.feature_names.tolist() == names
    ids, _, X, y = read_csv(write_csv(t, tmp_path / "t.csv"), has_label=False)
    assert y is None and (X != t.X).nnz == 0


# --------------------------------------------------------------------------- errors and atomicity
@pytest.mark.parametrize(
    "body, match",
    [
        ("@attribute a {0,1}\n@attribute class {x,y}\n@data\n2,x\n", r"t\.arff:6: non-binary value '2'"),
        ("@attribute a {0,1}\n@attribute class {x,y}\n@data\n1\n", r"t\.arff:6: 1 values, expected 2"),
        ("@attribute a {0,1}\n@attribute class {x,y}\n@data\n{0 1,7 x}\n", r"t\.arff:6: attribute index 7"),
        ("@attribute a {0,1}\n@attribute class {x,y}\n@data\n1,z\n", r"class value 'z' is not declared"),
        ("@attribute a date\n@data\n", r"t\.arff:3: unsupported attribute type 'date'"),
        ("@attribute a {0,1}\n", r"no @data section"),
        ("@attribute a {red,green}\n@attribute class {x,y}\n@data\n", r"nominal \['red', 'green'\], not binary"),
    ],
)
def test_read_arff_errors_name_file_and_line(tmp_path, body, match):
    p = tmp_path / "t.arff"
    p.write_text("% c\n@relation r\n" + body.replace("@data", "@data", 1), encoding="utf-8")
    # header is 2 lines; the attribute lines follow
    with pytest.raises(InputFormatError, match=match):
        read_arff(p)


def test_write_is_atomic(tmp_path, monkeypatch):
    t = _table(["a", "b"])
    p = write_arff(t, tmp_path / "t.arff")
    before = p.read_bytes()

    def broken(fh, *a, **k):
        fh.write("@relation half\n")
        raise RuntimeError("disk full")

    import kg.formats.arff as ex

    monkeypatch.setattr(ex, "_write_arff_stream", broken)
    with pytest.raises(RuntimeError):
        write_arff(t, p)
    assert p.read_bytes() == before
    assert os.listdir(tmp_path) == ["t.arff"]


def test_feature_named_like_class_is_refused(tmp_path):
    with pytest.raises(InputFormatError, match="class attribute name 'class'"):
        write_arff(_table(["class", "b"]), tmp_path / "t.arff")


def test_csv_quotes_carriage_returns(tmp_path):
    # csv quotes only its own line terminator ("\n"); a bare "\r" must be quoted too
    names = ["a\rb", "c"]
    t = _table(names, y=np.array(["x\ry", "z"] * 3), ids=["i\r1", "i2", "", "i4", "i5", "i6"])
    ids, got, X, y = read_csv(write_csv(t, tmp_path / "t.csv"))
    assert got.tolist() == names and ids.tolist() == t.instance_ids.tolist() and y.tolist() == t.y.tolist()
    h = FeatureHierarchy.from_edges([("a\rb", "c")])
    assert read_edges_csv(write_edges_csv(h, tmp_path / "e.csv")) == h


def test_mixed_rows_first_value_defaults_and_numeric_features(tmp_path):
    # a sparse row leaves out each attribute's *first* value: 1 for f {1,0}, 'a' for the class
    p = tmp_path / "m.arff"
    p.write_text("@relation m\n@attribute f {1,0}\n@attribute g numeric\n@attribute class {a,b}\n@data\n"
                 "{1 1}\n1, 0 ,b\n{0 0,2 b}\n% a comment\n\n0.0,1.0,a\n", encoding="utf-8")
    a = read_arff(p)
    assert a.X.toarray().astype(int).tolist() == [[1, 1], [1, 0], [0, 0], [0, 1]]
    assert a.y.tolist() == ["a", "b", "b", "a"] and a.instance_ids.tolist() == ["0", "1", "2", "3"]
    p.write_text("@relation m\n@attribute id string\n@attribute class {a,b}\n@data\nx1,a\n{0 x2}\n", encoding="utf-8")
    a = read_arff(p)
    assert a.X.shape == (2, 0) and a.instance_ids.tolist() == ["x1", "x2"] and a.y.tolist() == ["a", "a"]


def test_class_and_id_attributes_by_name_or_position(tmp_path):
    p = tmp_path / "t.arff"
    p.write_text("@relation t\n@attribute a {0,1}\n@attribute gene string\n@attribute label {0,1}\n@data\n"
                 "1,g1,0\n0,g2,1\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match="'gene' is a string; only the id attribute may be"):
        read_arff(p)  # by default ids come from a *first* string attribute only
    no_class = read_arff(p, id_attribute="gene")  # a last {0,1} attribute not named class is a feature
    assert no_class.y is None and no_class.feature_names.tolist() == ["a", "label"]
    last = read_arff(p, class_attribute=-1, id_attribute="gene")
    assert last.class_name == "label" and last.y.tolist() == [0, 1] and last.instance_ids.tolist() == ["g1", "g2"]
    assert read_arff(p, class_attribute="label", id_attribute="gene").feature_names.tolist() == ["a"]
    with pytest.raises(InputFormatError, match="missing label column: no attribute named 'y'"):
        read_arff(p, class_attribute="y")
