"""Kill test: `kgfs run` killed with SIGKILL during the evaluation, then run again.

The rerun must take the finished stages (facts, table, select) from the store/cache, keep every
evaluation cell that was finished before the kill (same file, not rewritten), compute only the
rest, and nothing in the store may be half-written (every file parses; a stage folder without
``record.json`` is unfinished and is never reused).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from flows import stages
from tests.flows.test_faults import kgfs_env

ARGS = ["--selectors", "shsel-ig-prune", "complete", "--classifiers", "nb", "knn", "svm", "--n-splits", "10"]


def _cells(home: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in (home / "store" / "evaluate").glob("*/grid/cells/*.json")}


def _check_store_is_whole(home: Path) -> None:
    """Every artifact in the store parses; leftovers of killed writers are only atomic_write temp files."""
    for p in (home / "store").rglob("*"):
        if not p.is_file():
            continue
        assert not p.name.startswith(".") or p.name.endswith(".tmp"), p
        if p.name.endswith(".tmp"):
            continue
        if p.suffix == ".json":
            json.loads(p.read_text(encoding="utf-8"))
        elif p.suffix == ".npz":
            with np.load(p, allow_pickle=False) as z:
                [z[k] for k in z.files]
        elif p.suffix == ".csv":
            pd.read_csv(p)


@pytest.mark.slow
@pytest.mark.integration
def test_killed_during_evaluation_resumes(tmp_path):
    home, out = tmp_path / "home", tmp_path / "out"
    cmd = [sys.executable, "-m", "flows.cli", "-q", "--home", str(home), "run", "--out", str(out), *ARGS]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=kgfs_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            if len(_cells(home)) >= 6 or proc.poll() is not None:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the run finished before it could be killed: " + proc.stderr.read().decode()[-800:]
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    before = _cells(home)
    ev_dirs = list((home / "store" / "evaluate").iterdir())
    assert len(ev_dirs) == 1 and not (ev_dirs[0] / "record.json").exists()  # unfinished: never reused
    assert 6 <= len(before) < 60
    finished = {Path(r.dir).parent.name for r in stages.stage_store(home).records()}
    assert {"facts", "table", "select"} <= finished and "evaluate" not in finished
    _check_store_is_whole(home)

    rerun = subprocess.run(cmd, cwd=tmp_path, env=kgfs_env(), capture_output=True, text=True, timeout=600,
                           stdin=subprocess.DEVNULL)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    run = json.loads((out / "run.json").read_text())
    st = run["stages"]
    assert st["facts"]["reused"] and st["table"]["reused"] and st["select"]["reused"]
    assert not st["evaluate"]["reused"]
    summ = st["evaluate"]["summary"]
    # the cells finished before the kill were reused, not recomputed (files untouched)
    assert summ["n_reused"] >= len(before) and summ["n_computed"] == 60 - summ["n_reused"]
    after = _cells(home)
    assert all(after[p] == m for p, m in before.items())
    assert len(after) == 60
    ev = pd.read_csv(out / "evaluation.csv")
    assert len(ev) == 60 and (ev["status"] == "ok").all()
    _check_store_is_whole(home)
    assert not list((home / "store").rglob(".*.tmp"))  # a recomputed stage clears its killed writer's temp files
