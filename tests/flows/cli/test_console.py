"""The command line's rendering helpers (flows.cli.console): error lines, progress lines, notes."""

from __future__ import annotations

import io

from flows.cli.console import LineProgress, error_line, make_console, table_notes_lines
from kg.errors import KgfsError


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
