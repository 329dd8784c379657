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
