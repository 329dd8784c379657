"""What the commands say of themselves: "done in" is kgfs's own time, not the shell's before it (issue 37 point 7)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_done_in_counts_from_kgfs_start_not_from_the_shell_that_execs_it(tmp_path):
    """``bash -c 'sleep S && kgfs ...'``: bash runs its last command in its own process (exec), so the process was
    created S seconds before kgfs started; "done in" must not count them."""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "KGFS_"))},
           "PYTHONPATH": str(ROOT), "KGFS_HOME": str(tmp_path / "home")}
    pause = 3
    t0 = time.monotonic()
    proc = subprocess.run(["bash", "-c", f"sleep {pause} && exec {sys.executable} -m flows.cli build --dataset "
                                         f"synthetic/S-D2-B2 --out {tmp_path / 'out'}"],
                          env=env, capture_output=True, text=True, timeout=300)
    wall = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr
    said = float(re.search(r"done in ([\d.]+) s", proc.stdout).group(1))
    assert 0 < said <= wall - pause + 0.1, (said, wall)  # the command's own seconds (rounded to 0.1 s)


def test_evaluate_of_two_builds_answers_first_per_table_and_names_them_by_folder(tmp_path, monkeypatch, capsys):
    """Issue 38 points 1 and 7: the console opens with one answer per table; the tables are named by their folders
    (two builds of one dataset), and summary.csv has each one's baseline right after its methods."""
    import pandas as pd

    from flows.cli import main
    from tests.flows.test_inputs import _build

    monkeypatch.setenv("KGFS_HOME", str(tmp_path / "home"))
    a = _build(tmp_path / "types", "wikidata/codex-people", ["a", "b"])
    b = _build(tmp_path / "relations", "wikidata/codex-people", ["a", "b", "c"])
    E = tmp_path / "E"
    assert main(["evaluate", "--datasets", str(a), str(b), "--selectors", "complete", "--n-splits", "3",
                 "--n-jobs", "1", "--no-plots", "--out", str(E)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("types (wikidata/codex-people): ") and "majority class on accuracy" in lines[0]
    assert lines[1].startswith("relations (wikidata/codex-people): ")
    s = pd.read_csv(E / "summary.csv")
    assert list(zip(s["dataset"], s["selector"])) == [
        ("types (wikidata/codex-people)", "complete"), ("types (wikidata/codex-people)", "majority class"),
        ("relations (wikidata/codex-people)", "complete"), ("relations (wikidata/codex-people)", "majority class")]
    md = (E / "report.md").read_text().splitlines()
    assert md[2].startswith("**types (wikidata/codex-people): ") and md[4].startswith("**relations (")
