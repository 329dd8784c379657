"""A new annotation format is one class and one registration: a JSON lines format defined here, registered in
:data:`kg.ontology.formats.ANNOTATION_FORMATS`, read by ``kgfs build`` (chosen by name and detected) and by
``KGFeatures(source=OntologyAnnotations(...))``, giving the table the same annotations as a two-column table give."""

import json

import numpy as np
import pytest

from kg.errors import InputFormatError, ParameterError
from kg.features import KGFeatures
from kg.ontology import OntologyAnnotations
from kg.ontology.formats import ANNOTATION_FORMATS, FORMAT_CHOICES, detect_format
from kg.ontology.formats.base import AnnotationFormat
from kg.table import FeatureTable

OBO = """format-version: 1.2

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
"""
PAIRS = [("g1", "X:3"), ("g2", "X:2"), ("g3", "X:1"), ("g4", "X:3"), ("g2", "X:1")]
LABELS = "gene\tlabel\ng1\tpos\ng2\tneg\ng3\tneg\ng4\tpos\n"


class JsonLines(AnnotationFormat):
    """``{"instance": "g1", "term": "X:3", "not": false}`` per line."""

    name, title = "jsonl", "JSON lines"

    def claims(self, line):
        return line.lstrip().startswith("{")

    def read(self, path, lines, out, how, evidence):
        for lineno, raw in enumerate(lines, 1):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw)
            except ValueError as exc:
                raise InputFormatError(f"not JSON ({exc})", path, lineno) from None
            out.add(row["instance"], row["term"], bool(row.get("not")))


@pytest.fixture
def jsonl():
    ANNOTATION_FORMATS.register("jsonl", JsonLines)
    yield
    ANNOTATION_FORMATS.unregister("jsonl")


@pytest.fixture
def files(tmp_path):
    (tmp_path / "o.obo").write_text(OBO)
    (tmp_path / "a.jsonl").write_text("".join(json.dumps({"instance": g, "term": t}) + "\n" for g, t in PAIRS)
                                      + json.dumps({"instance": "g4", "term": "X:1", "not": True}) + "\n")
    (tmp_path / "a.tsv").write_text("".join(f"{g}\t{t}\n" for g, t in PAIRS))
    (tmp_path / "labels.tsv").write_text(LABELS)
    return tmp_path


def _build(tmp_path, annotations, out, *more):
    from flows.cli import main

    return main(["--home", str(tmp_path / "home"), "-q", "build", "--ontology", str(tmp_path / "o.obo"),
                 "--annotations", str(tmp_path / annotations), "--labels", str(tmp_path / "labels.tsv"),
                 "--min-support", "1", *more, "--out", str(tmp_path / out)])


def test_a_registered_format_is_a_choice_and_is_detected(jsonl):
    assert "jsonl" in FORMAT_CHOICES and list(FORMAT_CHOICES)[-1] == "jsonl"
    assert detect_format(iter(['{"instance": "g1", "term": "X:1"}'])) == "jsonl"
    assert detect_format(iter(["g1\tX:1"])) == "table"  # the others are still told apart


def test_kgfs_build_reads_a_registered_format_by_name_and_by_detection(jsonl, files, capsys):
    assert _build(files, "a.tsv", "T") == 0
    assert _build(files, "a.jsonl", "J", "--annotation-format", "jsonl") == 0
    assert _build(files, "a.jsonl", "A") == 0  # detected
    table, by_name, detected = (FeatureTable.load(files / d / "table.npz") for d in ("T", "J", "A"))
    for t in (by_name, detected):
        assert list(t.instance_ids) == list(table.instance_ids) and list(t.feature_names) == list(table.feature_names)
        assert (t.X != table.X).nnz == 0
    assert list(table.feature_names) == ["X:1", "X:2", "X:3"] and table.X.toarray().tolist() == [
        [1, 1, 1], [1, 1, 0], [1, 0, 0], [1, 1, 1]]
    summary = json.loads((files / "J" / "summary.json").read_text())
    assert summary["n_instances"] == 4


def test_an_unregistered_format_is_refused_with_the_known_names(files, capsys):
    assert _build(files, "a.jsonl", "J", "--annotation-format", "jsonl") == 2  # argparse: not a choice
    assert "invalid choice: 'jsonl'" in capsys.readouterr().err
    with pytest.raises(ParameterError, match=r"unknown annotation format 'jsonl' for annotation_format \(known: gaf"):
        OntologyAnnotations(files / "o.obo", files / "a.jsonl", annotation_format="jsonl").types(["g1"])


def test_kgfeatures_reads_a_registered_format(jsonl, files):
    genes = ["g1", "g2", "g3", "g4"]
    for fmt in ("jsonl", "auto"):
        kg = KGFeatures(source=OntologyAnnotations(files / "o.obo", files / "a.jsonl", annotation_format=fmt))
        x = kg.fit_transform(genes)
        same = KGFeatures(source=OntologyAnnotations(files / "o.obo", files / "a.tsv")).fit_transform(genes)
        assert kg.get_feature_names_out().tolist() == ["X:1", "X:2", "X:3"]
        assert np.array_equal(x.toarray(), same.toarray())
