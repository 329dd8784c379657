"""The GO route refuses what it would otherwise drop silently, naming the file, line and option."""

from __future__ import annotations

import gzip

import pytest

from kg.errors import InputFormatError, UnknownFeatureError
from kg.ontology import read_obo, term_table
from kg.ontology.obo import check_obo_options

OBO = """format-version: 1.2
default-namespace: gene_ontology

[Term]
id: GO:1
name: process
namespace: biological_process

[Term]
id: GO:2
name: ageing
namespace: biological_process
is_a: GO:1
relationship: part_of GO:1

[Term]
id: GO:3
name: old
namespace: biological_process
is_obsolete: true
replaced_by: GO:2
"""


@pytest.fixture
def obo(tmp_path):
    p = tmp_path / "go.obo"
    p.write_text(OBO)
    return p


@pytest.mark.parametrize("reader", [read_obo, check_obo_options])
def test_unknown_relation_lists_those_of_the_file(obo, reader):
    with pytest.raises(InputFormatError, match=r"go\.obo: unknown relation 'regulates' \(relations\); relations "
                                               r"in this file: is_a, part_of \(or all\)"):
        reader(obo, relations=["is_a", "regulates"])
    reader(obo, relations=["is_a", "part_of"])
    reader(obo, relations="all")


@pytest.mark.parametrize("reader", [read_obo, check_obo_options])
def test_namespace_not_in_the_file_lists_those_it_has(obo, reader):
    with pytest.raises(InputFormatError, match=r"no term in namespace 'molecular_function' \(namespaces\); "
                                               r"namespaces in this file: biological_process \(BP\)$"):
        reader(obo, namespaces="BP+MF")
    with pytest.raises(InputFormatError, match="no term in namespace 'XY'"):
        reader(obo, namespaces="XY")
    reader(obo, namespaces="P")


def test_the_check_agrees_with_the_parser_on_a_gzip_file(tmp_path):
    gz = tmp_path / "go.obo.gz"
    gz.write_bytes(gzip.compress(OBO.encode()))
    assert read_obo(gz, relations=["is_a", "part_of"]).hierarchy.n_edges == 1
    check_obo_options(gz, relations=["part_of"], namespaces="BP")


def test_an_obo_file_that_is_not_utf8_names_its_line(tmp_path):
    p = tmp_path / "latin1.obo"
    p.write_bytes(OBO.replace("name: old", "name: caf\xe9").encode("latin-1"))
    with pytest.raises(InputFormatError, match=r"latin1\.obo:18: not UTF-8 \(byte 0xe9 at column 10\)"):
        read_obo(p)


def test_messages_name_the_parameters(obo):
    go = read_obo(obo)
    with pytest.raises(UnknownFeatureError, match=r"obsolete .*\(on_obsolete='replace' or drop\)"):
        term_table(go, {"g": ["GO:3"]})
    with pytest.raises(UnknownFeatureError, match=r"GO:9.*unknown='drop' drops such terms"):
        term_table(go, {"g": ["GO:9"]})
    assert "--unknown" not in str(pytest.raises(UnknownFeatureError, term_table, go, {"g": ["GO:9"]}).value)
    t = term_table(go, {"g": ["GO:2"], "h": ["GO:9"]}, {"g": 1, "h": 0, "x": 1}, unknown="drop")
    assert t.meta["unannotated_genes"] == ["h", "x"]
