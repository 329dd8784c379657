"""A run's input from the command line's values (flows.inputs) and its up-front checks (Input.check)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from flows.inputs import check_output, resolve_input
from kg.errors import KgfsError
from kg.rdf.services import check_url

BUNDLED = Path(__file__).resolve().parents[2] / "datasets" / "bundled" / "DM-BP"
GO = dict(obo=BUNDLED / "go-2014-06-13-subset.obo.gz", annotations=BUNDLED / "annotations.tsv")


def check(**values) -> dict:
    """The up-front check of the input the option values describe."""
    return resolve_input(values).check(None)


def test_go_source_classes_of_the_annotated_genes(tmp_path):
    labels = tmp_path / "labels.tsv"
    labels.write_text((BUNDLED / "labels.tsv").read_text() + "g1\tx\ng2\tx\n")
    facts = check(**GO, labels=labels)
    assert facts["classes"] == {"anti-longevity": 36, "pro-longevity": 91}  # g1, g2 have no annotation


@pytest.mark.parametrize("options, message", [
    (dict(relations=["is_a", "has_part"]), "unknown relation 'has_part' (relations)"),
    (dict(namespaces="MF"), "no term in namespace 'molecular_function' (namespaces)"),
])
def test_go_options_checked_against_the_file(options, message):
    with pytest.raises(KgfsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check(**GO, **options)


def test_labels_without_any_annotated_gene(tmp_path):
    labels = tmp_path / "labels.tsv"
    labels.write_text("g1\tx\ng2\ty\n")
    with pytest.raises(KgfsError, match=r"no gene of .*labels\.tsv \(labels\) has an annotation in .*annotations"
                                        r"\.tsv \(annotations\); e\.g\. g1, g2"):
        check(**GO, labels=labels)


def test_corpus_columns_and_options(tmp_path):
    corpus = tmp_path / "c.csv"
    corpus.write_text("id,tweet,label\n1,Kobe scores,1\n2,Obama signs,0\n")
    with pytest.raises(KgfsError, match=r"column\(s\) \['text'\] not found"):
        check(corpus=corpus)
    # the library names its parameters (the command line says them as options: tests/flows/test_bad_inputs.py)
    with pytest.raises(KgfsError, match="annotator='lexicon' needs dump"):
        check(corpus=corpus, text_column="tweet")
    with pytest.raises(KgfsError, match="source='sparql' needs sparql_url"):
        check(corpus=corpus, text_column="tweet", kg="sparql", annotator="spotlight",
              spotlight_url="http://127.0.0.1:1/x")


def test_check_url_connects_without_sending_anything():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]
    try:
        check_url(f"http://127.0.0.1:{port}/sparql", "--sparql-url")
    finally:
        srv.close()
    with pytest.raises(KgfsError, match=rf"--sparql-url http://127\.0\.0\.1:{port}/sparql: cannot connect"):
        check_url(f"http://127.0.0.1:{port}/sparql", "--sparql-url", timeout=1)
    with pytest.raises(KgfsError, match="not an http"):
        check_url("ftp://host/x", "--sparql-url")


def test_check_output(tmp_path):
    (tmp_path / "f").write_text("x")
    check_output(tmp_path / "new" / "deeper", "folder")
    with pytest.raises(KgfsError, match="--out .*f: is a file, not a folder"):
        check_output(tmp_path / "f", "folder")
    with pytest.raises(KgfsError, match=r"--out .*f/t\.arff: .*f is a file, not a folder"):
        check_output(tmp_path / "f" / "t.arff", "file")


# --------------------------------------------------------------------------- issue 38 point 7: tables by folder
def _build(folder: Path, dataset: str, features) -> Path:
    from kg.formats.folder import write_table_folder
    from kg.hierarchy import FeatureHierarchy
    from kg.table import FeatureTable

    h = FeatureHierarchy.from_edges([], nodes=list(features))
    facts = {f"i{i}": [features[i % len(features)]] for i in range(12)}
    t = FeatureTable.from_facts(facts, h, labels={f"i{i}": i % 2 for i in range(12)})
    t.meta["dataset"] = dataset
    write_table_folder(t, folder)
    return folder


def test_table_folders_beside_others_are_named_by_folder_and_dataset(tmp_path):
    """Two builds of one dataset with different features are told apart in every table of the report."""
    from flows.inputs import load_tables

    a = _build(tmp_path / "types", "wikidata/codex-people", ["a", "b"])
    b = _build(tmp_path / "relations", "wikidata/codex-people", ["a", "b", "c"])
    assert list(load_tables([str(a), str(b)])) == ["types (wikidata/codex-people)",
                                                    "relations (wikidata/codex-people)"]
    assert list(load_tables([str(a)])) == ["wikidata/codex-people"]  # alone: its dataset's name
    assert list(load_tables([str(a / "table.npz"), "synthetic/S-D2-B2"]))[0] == "types (wikidata/codex-people)"
    # two folders of the same name: their paths as given
    c = _build(tmp_path / "x" / "types", "wikidata/codex-people", ["a"])
    assert list(load_tables([str(a), str(c)])) == [f"{a} (wikidata/codex-people)", f"{c} (wikidata/codex-people)"]
    # a folder named like its dataset is not named twice
    d = _build(tmp_path / "S", "S", ["a"])
    assert list(load_tables([str(d), str(a)]))[0] == "S"
