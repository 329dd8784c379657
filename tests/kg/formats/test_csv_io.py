"""The up-front checks of text files (UTF-8, a table CSV's header and class column) and their messages."""

from __future__ import annotations

import bz2
import gzip
import lzma
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.errors import InputFormatError
from kg.formats.csv_io import check_utf8, read_csv, table_csv_header, unlabelled_text

_LINES = st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x0b\x0c\x1c\x1d"
                                                                                         "\x1e\x85\u2028\u2029"),
                          max_size=12), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(lines=_LINES, where=st.data(), bad=st.sampled_from([b"\xe9", b"\xff", b"\xc3", b"\xed\xa0\x80"]),
       zipped=st.sampled_from([None, "gz", "bz2", "xz"]))
def test_the_first_byte_that_is_not_utf8_is_named_by_line_column_and_offset(tmp_path_factory, lines, where, bad,
                                                                            zipped):
    data = "".join(f"{ln}\n" for ln in lines).encode("utf-8")
    starts = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]
    # a place between two characters (never inside one): the start of a line or after a whole character of it
    line = where.draw(st.integers(0, len(lines) - 1))
    col_chars = where.draw(st.integers(0, len(lines[line])))
    at = starts[line] + len(lines[line][:col_chars].encode("utf-8"))
    raw = data[:at] + bad + data[at:]
    p = tmp_path_factory.mktemp("utf8") / ("t.tsv" + (f".{zipped}" if zipped else ""))
    p.write_bytes({"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[zipped](raw) if zipped else raw)
    with pytest.raises(InputFormatError) as caught:
        check_utf8(p)
    column = at - starts[line] + 1
    of = "decompressed text" if zipped else "file"
    assert str(caught.value) == (f"{p}:{line + 1}: not UTF-8 (byte 0x{bad[0]:02x} at column {column}, byte offset "
                                 f"{at} of the {of}); save it as UTF-8")
    assert caught.value.line == line + 1


@settings(max_examples=30, deadline=None)
@given(lines=_LINES, zipped=st.sampled_from([None, gzip.compress, bz2.compress, lzma.compress]))
def test_utf8_text_passes(tmp_path_factory, lines, zipped):
    p = tmp_path_factory.mktemp("utf8") / "t.tsv"
    raw = "".join(f"{ln}\n" for ln in lines).encode("utf-8")
    p.write_bytes(zipped(raw) if zipped else raw)
    check_utf8(p)


def test_a_character_cut_by_the_block_boundary_is_not_an_error(tmp_path):
    p = tmp_path / "t.txt"
    p.write_bytes(b"a" * ((1 << 20) - 1) + "é".encode() + b"\n")  # its two bytes in two blocks
    check_utf8(p)


@pytest.mark.parametrize(("text", "header", "labelled"), [
    ("id,a,b,label\nx,1,0,p\n", ["id", "a", "b", "label"], True),
    ("id,a,b, Class \nx,1,0,p\n", ["id", "a", "b", " Class "], True),
    ("id,a,b,kind\nx,1,0,1\n", ["id", "a", "b", "kind"], False),
    ('id,"a,b"\nx,1\n', ["id", "a,b"], False),
])
def test_table_csv_header(tmp_path, text, header, labelled):
    p = tmp_path / "t.csv"
    p.write_text(text, encoding="utf-8")
    assert table_csv_header(p) == (header, labelled)


@pytest.mark.parametrize(("data", "said"), [
    (b"", "t.csv:1: empty CSV file (expected a header: id, one column per feature, then label or class)"),
    (b"id\nx\n", "t.csv:1: the header has 1 column ('id'); expected id, one column per feature, then label or class"),
    (b"id,a,label\nx,1,pro\ny,0,anti-long\xe9vit\xe9\n", "t.csv:3: not UTF-8 (byte 0xe9 at column 14, byte offset "
                                                       "32 of the file)"),
])
def test_table_csv_header_refuses(tmp_path, data, said):
    p = tmp_path / "t.csv"
    p.write_bytes(data)
    with pytest.raises(InputFormatError, match=re.escape(said)):
        table_csv_header(p)


def test_unlabelled_text_names_the_file_the_header_expected_and_the_columns():
    assert unlabelled_text("t.csv", ["id", "a", "kind"]) == (
        "t.csv: no class column: the last column's header is 'kind', not 'label' or 'class' (the columns: id, a, kind)")
    many = ["id", *[f"GO:{i}" for i in range(20)], "kind"]
    assert unlabelled_text("t.csv", many).endswith("(the columns: id, GO:0, GO:1, GO:2, ..., GO:18, GO:19, kind "
                                                   "(22 in all))")


def test_a_class_under_another_name_is_hinted_at(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("id,a,kind\nx,1,pro\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"t\.csv:2: non-binary value 'pro' in column 'kind' \(the last column: "
                                               r"if it is the class, name it label or class\)"):
        read_csv(p, has_label=False)
