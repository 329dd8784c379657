"""A user's own table (ARFF or CSV, and a child,parent hierarchy) read into a FeatureTable; text that is not UTF-8."""

from __future__ import annotations

import numpy as np
import pytest

from kg.errors import InputFormatError
from kg.formats import read_csv, read_edges_csv, write_arff, write_csv, write_edges_csv
from kg.formats.csv_io import utf8_error
from kg.formats.folder import read_user_table
from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable


@pytest.fixture
def table():
    h = FeatureHierarchy.from_edges([("Athlete", "Person"), ("Person", "Agent"), ("Place", "Thing")])
    facts = {"a": ["Athlete"], "b": ["Person"], "c": ["Place"], "d": []}
    return FeatureTable.from_facts(facts, h, labels={"a": "pro", "b": "pro", "c": "anti", "d": "anti"})


@pytest.mark.parametrize("fmt", ["arff", "csv"])
def test_round_trip_through_the_export_files(table, tmp_path, fmt):
    path = tmp_path / f"t.{fmt}"
    (write_arff if fmt == "arff" else write_csv)(table, path)
    write_edges_csv(table.hierarchy, tmp_path / "h.csv")
    back = read_user_table(path, hierarchy=tmp_path / "h.csv", name="mine")
    assert back.feature_names.tolist() == table.feature_names.tolist() and back.hierarchy == table.hierarchy
    assert (back.X != table.X).nnz == 0 and back.y.tolist() == table.y.tolist()
    assert back.meta["dataset"] == "mine" and back.meta["source"] == fmt


def test_hierarchy_nodes_that_are_not_columns_are_an_error_or_dropped_with_ancestry(tmp_path):
    (tmp_path / "t.csv").write_text("id,Athlete,Agent,class\na,1,1,x\nb,0,1,y\n")
    (tmp_path / "h.csv").write_text("child,parent\nAthlete,Person\nPerson,Agent\n")
    with pytest.raises(InputFormatError, match=r"h\.csv:2: 'Person' is not a feature \(a column\) of t\.csv"):
        read_user_table(tmp_path / "t.csv", hierarchy=tmp_path / "h.csv")
    t = read_user_table(tmp_path / "t.csv", hierarchy=tmp_path / "h.csv", drop_unknown=True)
    assert t.hierarchy.edge_list() == [("Athlete", "Agent")] and t.y.tolist() == ["x", "y"]
    assert t.meta["hierarchy_unknown_nodes"] == ["Person"]


def test_a_hierarchy_naming_unknown_features_is_an_error_naming_file_line_and_feature(tmp_path):
    """issue 30: edges `ZZZ,A` and `D,NOPE` over a table of A..D were dropped without a word (rc 0, 2 edges)."""
    rows = "".join(f"i{i},{i % 2},{i % 3 == 0:d},{i % 5 == 0:d},{i % 7 == 0:d},{i % 2}\n" for i in range(40))
    (tmp_path / "t.csv").write_text("id,A,B,C,D,label\n" + rows)
    (tmp_path / "edges.csv").write_text("child,parent\nB,A\nC,A\nZZZ,A\nD,NOPE\n")
    with pytest.raises(InputFormatError, match=r"edges\.csv:4: 'ZZZ' is not a feature \(a column\) of t\.csv \(2 such "
                                               r"nodes: NOPE, ZZZ\); pass drop_unknown=True to drop such "
                                               r"nodes$"):
        read_user_table(tmp_path / "t.csv", hierarchy=tmp_path / "edges.csv")
    t = read_user_table(tmp_path / "t.csv", hierarchy=tmp_path / "edges.csv", drop_unknown=True, check="report")
    assert t.n_features == 4 and t.hierarchy.n_edges == 2 and t.meta["hierarchy_unknown_nodes"] == ["NOPE", "ZZZ"]


def test_csv_without_a_label_column_is_unlabelled(tmp_path):
    (tmp_path / "t.csv").write_text("id,a,b\nx,1,0\n")
    t = read_user_table(tmp_path / "t.csv")
    assert t.y is None and t.n_features == 2


def test_violations_repaired_reported_or_refused(tmp_path):
    (tmp_path / "t.csv").write_text("id,Athlete,Person,label\na,1,0,1\nb,0,1,0\n")
    (tmp_path / "h.csv").write_text("child,parent\nAthlete,Person\n")
    args = (tmp_path / "t.csv",)
    assert read_user_table(*args, hierarchy=tmp_path / "h.csv").meta["repaired_cells"] == 1
    kept = read_user_table(*args, hierarchy=tmp_path / "h.csv", check="report")
    assert kept.meta["violations"] == 1 and kept.X.toarray().tolist() == [[1, 0], [0, 1]]
    with pytest.raises(InputFormatError, match=r"t\.csv: 1 cell\(s\) violate the implication.*\(check='repair' "
                                               r"closes them upward\)$"):
        read_user_table(*args, hierarchy=tmp_path / "h.csv", check="raise")


def test_features_missing_from_the_hierarchy_are_named(tmp_path):
    (tmp_path / "t.csv").write_text("id,a,b,label\nx,1,0,1\n")
    (tmp_path / "h.csv").write_text("child,parent\na,z\n")
    with pytest.raises(InputFormatError, match=r"h\.csv: 1 feature\(s\) of .*t\.csv are not nodes of the hierarchy "
                                               r"\(hierarchy\), e\.g\. 'b'"):
        read_user_table(tmp_path / "t.csv", hierarchy=tmp_path / "h.csv")


@pytest.mark.parametrize("reader, content", [
    (read_csv, b"id,a,label\nx,1,1\ny\xff,0,0\n"),
    (read_edges_csv, b"child,parent\na,b\nc\xff,a\n"),
    (read_user_table, b"id,a,label\nx,1,1\ny\xff,0,0\n"),
])
def test_text_that_is_not_utf8_names_file_and_line(tmp_path, reader, content):
    p = tmp_path / "f.csv"
    p.write_bytes(content)
    with pytest.raises(InputFormatError, match=r"f\.csv:3: not UTF-8 \(byte 0xff at column 2, byte offset 18 of the "
                                               r"file\); save it as UTF-8"):
        reader(p)


def test_utf8_error_of_an_arff_gives_the_weka_hint(tmp_path):
    from kg.formats import read_arff

    p = tmp_path / "w.arff"
    p.write_bytes(b"@relation r\n@attribute 'caf\xe9' {0,1}\n@data\n1\n")
    with pytest.raises(InputFormatError, match=r"w\.arff:2: not UTF-8 .*-Dfile\.encoding=UTF-8"):
        read_arff(p)
    assert str(utf8_error(tmp_path / "w.arff")).endswith("save it as UTF-8")


def test_an_empty_table_reads(tmp_path):
    (tmp_path / "t.csv").write_text("id,a,label\n")
    assert read_user_table(tmp_path / "t.csv").n_instances == 0 and np.asarray([]).size == 0
