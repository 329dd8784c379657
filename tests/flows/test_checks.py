"""Up-front checks of a run's input (flows.checks) and the command line's rendering helpers (flows.cli.console)."""

from __future__ import annotations

import io
import socket
from pathlib import Path

import pytest

from kg.errors import KgfsError
from flows.checks import check_output, check_source, check_url
from flows.cli.console import LineProgress, error_line, make_console, table_notes_lines
from flows.inputs import resolve_source

BUNDLED = Path(__file__).resolve().parents[2] / "datasets" / "bundled" / "DM-BP"
GO = dict(obo=BUNDLED / "go-2014-06-13-subset.obo.gz", annotations=BUNDLED / "annotations.tsv")


def test_go_source_classes_of_the_annotated_genes(tmp_path):
    labels = tmp_path / "labels.tsv"
    labels.write_text((BUNDLED / "labels.tsv").read_text() + "g1\tx\ng2\tx\n")
    facts = check_source(resolve_source(**GO, labels=labels))
    assert facts["classes"] == {"anti-longevity": 36, "pro-longevity": 91}  # g1, g2 have no annotation


@pytest.mark.parametrize("options, message", [
    (dict(relations=("is_a", "has_part")), "unknown relation 'has_part' (--relations)"),
    (dict(namespaces="MF"), "no term in namespace 'molecular_function' (--namespaces)"),
])
def test_go_options_checked_against_the_file(options, message):
    with pytest.raises(KgfsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_source(resolve_source(**GO, **options))


def test_labels_without_any_annotated_gene(tmp_path):
    labels = tmp_path / "labels.tsv"
    labels.write_text("g1\tx\ng2\ty\n")
    with pytest.raises(KgfsError, match=r"no gene of .*labels\.tsv \(--labels\) has an annotation in .*annotations"
                                        r"\.tsv \(--annotations\); e\.g\. g1, g2"):
        check_source(resolve_source(**GO, labels=labels))


def test_corpus_columns_and_options(tmp_path):
    corpus = tmp_path / "c.csv"
    corpus.write_text("id,tweet,label\n1,Kobe scores,1\n2,Obama signs,0\n")
    with pytest.raises(KgfsError, match=r"column\(s\) \['text'\] not found"):
        check_source(resolve_source(corpus=corpus))
    with pytest.raises(KgfsError, match="--annotator lexicon needs --dump"):
        check_source(resolve_source(corpus=corpus, corpus_options={"text_column": "tweet"}))
    with pytest.raises(KgfsError, match="--kg sparql needs --sparql-url"):
        check_source(resolve_source(corpus=corpus, corpus_options={"text_column": "tweet", "kg": "sparql",
                                                                   "annotator": "spotlight",
                                                                   "spotlight_url": "http://127.0.0.1:1/x"}))


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


def test_error_lines():
    assert error_line(PermissionError(13, "Permission denied", "/x")) == ("error", "/x: permission denied")
    assert error_line(FileNotFoundError(2, "file not found (--obo)", "/x")) == ("error", "/x: file not found (--obo)")
    assert error_line(KgfsError("bad\nsecond line")) == ("error", "bad")
    try:
        b"ab\xff".decode("utf-8")
    except UnicodeDecodeError as exc:
        assert error_line(exc) == ("error", "not UTF-8: byte b'\\xff' at offset 2")
    assert error_line(AttributeError("x"))[0] == "internal error"


def test_line_progress_prints_as_things_happen():
    buf = io.StringIO()
    p = LineProgress(lambda line: buf.write(line + "\n"), every=3600)
    p("start", "evaluate")
    p.cells(0, 10)
    p.cells(5, 10)  # within `every` of the last line: not printed
    p.cells(10, 10)  # complete: always printed
    p("done", "select", record={"summary": {"n_selected": 3, "n_features": 9}, "reused": True})
    assert buf.getvalue().splitlines() == ["kgfs: evaluate: started", "kgfs: evaluate: 0/10 cells",
                                           "kgfs: evaluate: 10/10 cells", "kgfs: select: done (3 of 9 kept, cached)"]


def test_console_outside_a_terminal_does_not_wrap():
    assert make_console(stderr=False).width >= 10_000  # pytest captures stdout: not a terminal


def test_notes_name_a_few_and_count_the_rest():
    meta = {"unannotated_genes": [f"g{i}" for i in range(8)], "instances_without_entities": 3,
            "examples": {"instances_without_entities": ["t1", "t2", "t3"]}, "repaired_cells": 0}
    assert table_notes_lines(meta) == [
        "8 labelled gene(s) without a usable annotation, left out: g0, g1, g2, g3, g4 and 3 more",
        "3 instance(s) linked to no entity: t1, t2, t3"]
