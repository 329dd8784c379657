"""OntologyAnnotations: an ontology and an annotation file answering a knowledge source's questions."""

import pytest

from kg.ontology.source import OntologyAnnotations

OBO = """format-version: 1.2
data-version: test

[Term]
id: X:1
name: root

[Term]
id: X:2
name: middle
is_a: X:1

[Term]
id: X:3
name: leaf
is_a: X:2
alt_id: X:9

[Term]
id: X:4
name: gone
is_obsolete: true
replaced_by: X:3

[Term]
id: X:5
name: gone for good
is_obsolete: true
"""
TABLE = "gene\tterm\ng1\tX:9\ng1\tX:1\ng2\tX:4\ng3\tX:5\ng3\tX:77\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "o.obo").write_text(OBO)
    (tmp_path / "a.tsv").write_text(TABLE)
    return tmp_path / "o.obo", tmp_path / "a.tsv"


def test_terms_are_resolved_and_what_is_dropped_is_reported(files):
    src = OntologyAnnotations(*files)
    assert src.types(["g1", "g2", "g3", "g4"]) == {"g1": {"X:3", "X:1"}, "g2": {"X:3"}, "g3": set(), "g4": set()}
    assert src.report["dropped_terms"] == ["X:5", "X:77"]
    dropping = OntologyAnnotations(*files, on_obsolete="drop")
    assert dropping.types(["g2"]) == {"g2": set()}
    assert src.categories(["g1"]) == src.types(["g1"])


def test_edges_above_terms(files):
    src = OntologyAnnotations(*files)
    assert src.class_edges(["X:3"]) == {("X:3", "X:2"), ("X:2", "X:1")}
    assert src.class_edges(["X:1", "nope"]) == set()
    assert src.broader(["X:3"], 1) == {("X:3", "X:2")}
    assert src.broader(["X:3"], None) == src.class_edges(["X:3"])
    assert src.labels(["X:2", "X:1"]) == {"X:2": "middle", "X:1": "root"}


def test_files_are_read_on_the_first_question_and_named_when_missing(tmp_path, files):
    src = OntologyAnnotations(tmp_path / "missing.obo", files[1])  # no I/O in the constructor
    with pytest.raises(FileNotFoundError, match="missing.obo: no such ontology file"):
        src.types(["g1"])
    with pytest.raises(ValueError, match="on_obsolete must be 'replace' or 'drop'"):
        OntologyAnnotations(*files, on_obsolete="raise")


def test_describe_names_the_files_by_content(files):
    a = OntologyAnnotations(*files).describe()
    files[1].write_text(TABLE + "g5\tX:2\n")
    b = OntologyAnnotations(*files).describe()
    assert a["annotations_sha256"] != b["annotations_sha256"] and a["ontology_sha256"] == b["ontology_sha256"]
