"""The command line's rendering helpers (flows.cli.console): error lines, progress lines, notes."""

from __future__ import annotations

import io

from flows.cli.console import LineProgress, error_line, make_console, table_notes_lines
from kg.errors import NOTED, KgfsError


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


# ---------------------------------------------------------------- issue 27: what the console says
import logging  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import pytest  # noqa: E402

from flows.cli.console import short_iri, summary_table  # noqa: E402

SUMMARY = ("dataset,selector,classifier,degenerate,n_selected,n_features,accuracy,accuracy_sd,auroc\n"
           "d,shsel-ig-prune[threshold=0.9],nb,only roots; constant (10/10 folds),1,699,0.7173,0.0327,0.5\n"
           "d,complete,nb,,699,699,0.7006,0.1078,0.6422\n"
           "d,majority class,prior,,0,699,0.7173,0.0327,0.5\n")


def _render(table, width):
    from rich.console import Console

    con = Console(file=io.StringIO(), width=width, force_terminal=False, color_system=None)
    con.print(table)
    return con.file.getvalue()


def test_summary_table_marks_the_degenerate_row_beside_the_baseline(tmp_path):
    p = tmp_path / "summary.csv"
    p.write_text(SUMMARY)
    wide = _render(summary_table(p), 200).splitlines()
    row = next(line for line in wide if line.startswith(" shsel-ig-prune"))
    assert "0.717" in row and "DEGENERATE: only roots; constant (10/10 folds)" in row
    base = next(line for line in wide if line.startswith(" majority class"))
    assert "0.717" in base and "0/699" in base and base.rstrip().endswith("baseline")
    # a narrow terminal: every number whole, the mark after the selector, the reason under the table
    narrow = _render(summary_table(p, width=80), 80)
    assert "0.717" in narrow and "0.701" in narrow and "…" not in narrow
    assert "shsel-ig-prune[threshold=0.9] *" in narrow.replace("\n", "").replace(" │", "") or " *" in narrow
    assert "DEGENERATE selection (only roots; constant (10/10 folds))" in " ".join(narrow.split())
    assert max(len(line) for line in narrow.splitlines()) <= 80


def test_notes_point_at_the_full_list_and_shorten_iris():
    meta = {"removed_cycle_edges": 40, "examples": {"removed_cycle_edges": [
        "http://dbpedia.org/resource/Category:A -> http://dbpedia.org/resource/Category:B"] * 5}}
    (line,) = table_notes_lines(meta, files={"removed_cycle_edges": "out/notes/removed_cycle_edges.csv"})
    assert line.startswith("40 hierarchy edge(s) removed to break cycles: dbc:A -> dbc:B, ")
    assert line.endswith("and 35 more (the full list: out/notes/removed_cycle_edges.csv)")
    assert short_iri("http://dbpedia.org/ontology/Athlete") == "dbo:Athlete" and short_iri("GO:1") == "GO:1"


def test_a_mistyped_option_gets_a_suggestion(capsys, tmp_path):
    from flows.cli import main

    assert main(["run", "--selctor", "complete"]) == 2
    assert "unrecognized arguments: --selctor complete (did you mean --selector or --selectors?)" in \
        capsys.readouterr().err
    assert main(["evaluate", "--datasets", "bundled/DM-BP", "--selectors", "complete", "--n-spilts", "3",
                 "--out", str(tmp_path / "E")]) == 2
    assert "(did you mean --n-splits or --no-plots?)" in capsys.readouterr().err


def test_log_lines_go_to_the_current_stderr_once_and_on_one_line(monkeypatch):
    from flows.cli.main import LINE_LIMIT, _setup_logging

    _setup_logging(False)
    first, second = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    log = logging.getLogger("kg.test")
    log.warning("a list: %s", ", ".join(f"http://dbpedia.org/resource/Category:C{i}" for i in range(200)))
    monkeypatch.setattr(sys, "stderr", second)  # as rich's live display replaces it: the handler follows
    log.warning("said once")
    log.warning("said once")
    logging.getLogger("prefect.flow_runs").warning("a Prefect run log: for its UI")
    logging.getLogger("kg.rdf.table").warning("%d of %d entities have no %s in the source", 3, 9, "types",
                                                  extra=NOTED)
    (line,) = first.getvalue().splitlines()
    assert line.startswith("kgfs: WARNING: a list: dbc:C0, dbc:C1") and len(line) <= LINE_LIMIT
    assert " … " in line and line.endswith("dbc:C199")  # cut in the middle: the end says what is done
    assert second.getvalue().splitlines() == ["kgfs: WARNING: said once"]


def test_each_progress_row_once_on_a_terminal_while_warnings_come():
    """The issue's DBpedia run showed its "Prefect server" and "annotate" rows three times: the warnings were
    written past the live display. Rendered by a terminal emulator, each row is on the screen once."""
    pyte = pytest.importorskip("pyte")
    from rich.console import Console

    from flows.cli.display import RunDisplay
    from flows.cli.main import _setup_logging

    tty = io.StringIO()
    con = Console(file=tty, width=100, force_terminal=True, color_system=None, force_interactive=True)
    real = sys.stderr
    try:
        sys.stderr = tty  # the terminal: the display and the log lines share it, from the start of the command
        _setup_logging(False)
        with RunDisplay(con) as show:
            show("start", "prefect")
            show("done", "prefect", record={"summary": {}}, note="http://127.0.0.1:4200")
            show("start", "annotate")
            for i in range(5):
                show("progress", "annotate", done=i, total=5, what="batches")
                logging.getLogger(f"kg.test{i}").warning("hierarchy note %d", i)
                import warnings

                warnings.warn(f"a warning {i}", UserWarning, stacklevel=1)
                time.sleep(0.15)  # the live display redraws itself meanwhile (10 times a second)
            show("done", "annotate", record={"summary": {"n_instances": 10}})
    finally:
        sys.stderr = real
    screen = pyte.HistoryScreen(100, 40, history=500)
    screen.set_mode(pyte.modes.LNM)
    pyte.Stream(screen).feed(tty.getvalue())
    lines = [("".join(c.data for c in row.values())).rstrip() for row in screen.history.top] + \
            [line.rstrip() for line in screen.display]
    assert sum("Prefect server" in line for line in lines) == 1, lines
    assert sum("annotate (entities)" in line for line in lines) == 1, lines
    assert sum("hierarchy note 3" in line for line in lines) == 1
