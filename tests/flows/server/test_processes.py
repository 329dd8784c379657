"""Children end with the process that started them, even on SIGKILL; managed processes stay and are
found again through their pid files (flows.server.processes), with real processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from flows.server import processes

ROOT = Path(__file__).resolve().parents[3]
SLEEP = "import time; time.sleep(120)"

# A kgfs-like parent: its watchdog, the marker in its environment, a child with a grandchild (both
# inherit the marker, as the temporary Prefect server and loky workers do), and a managed process.
_PARENT = f"""
import os, subprocess, sys, time
from flows.server import processes
os.environ[processes.MARKER_ENV] = processes.start_watchdog(os.environ.get(processes.MARKER_ENV), grace=2)
child = subprocess.Popen([sys.executable, "-c",
                          "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', {SLEEP!r}]); "
                          "time.sleep(120)"])
managed = processes.spawn_detached([sys.executable, "-c", {SLEEP!r}])
print(os.environ[processes.MARKER_ENV], managed.pid, flush=True)
time.sleep(120)
"""


def _start_parent(**popen):
    env = {k: v for k, v in os.environ.items() if k != processes.MARKER_ENV}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen([sys.executable, "-c", _PARENT], env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL, **popen)
    marker, managed = proc.stdout.readline().split()
    deadline = time.monotonic() + 30
    while len(processes.marked_processes(marker)) < 2 and time.monotonic() < deadline:  # child, grandchild
        time.sleep(0.05)
    return proc, marker, psutil.Process(int(managed))


def _wait_gone(marker: str, timeout: float = 10.0) -> float:
    t0 = time.monotonic()
    while processes.marked_processes(marker) and time.monotonic() - t0 < timeout:
        time.sleep(0.1)
    return time.monotonic() - t0


def _still_running(procs, timeout: float = 10.0) -> list:
    """The processes of ``procs`` still running (a zombie has ended) after waiting up to ``timeout``: a process
    killed a moment ago has already lost its environment (so it is no longer marked) but may not have finished
    exiting yet."""
    def running(p):
        try:
            return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False

    deadline = time.monotonic() + timeout
    while (left := [p for p in procs if running(p)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.mark.parametrize("how", ["sigkill", "sigkill-group", "normal-exit"])
def test_children_end_with_their_parent_managed_processes_stay(how):
    proc, marker, managed = _start_parent(start_new_session=True)
    try:
        kids = processes.marked_processes(marker)
        assert len(kids) == 2 and proc.pid not in [k.pid for k in kids]  # set after it started: not in its own
        watchdog = [p for p in psutil.Process(proc.pid).children() if "watchdog" in p.cmdline()]
        assert len(watchdog) == 1 and os.getsid(watchdog[0].pid) != os.getsid(proc.pid)
        if how == "sigkill":
            os.kill(proc.pid, signal.SIGKILL)
        elif how == "sigkill-group":  # the whole process group, as a terminal's job control would
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            os.kill(proc.pid, signal.SIGTERM)  # ends without its own cleanup of the children
        proc.wait(timeout=10)
        took = _wait_gone(marker)
        assert processes.marked_processes(marker) == [], f"children left {took:.1f} s after the parent ended"
        assert _still_running(kids) == []
        assert managed.is_running() and managed.status() != psutil.STATUS_ZOMBIE  # a managed process stays
        assert psutil.wait_procs(watchdog, timeout=10)[1] == []  # and the watchdog ends too
    finally:
        processes.terminate([managed, *processes.marked_processes(marker)], grace=1)
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


def test_a_parents_marker_gives_way_to_this_processes_own():
    inherited = "1-feedface"
    mine = processes.start_watchdog(inherited)
    assert mine != inherited and mine.startswith(f"{os.getpid()}-")
    assert processes.start_watchdog(mine) == mine  # one watchdog per process


def test_pidfile_trusts_only_the_process_it_recorded(tmp_path):
    proc = processes.spawn_detached([sys.executable, "-c", SLEEP], log=tmp_path / "logs" / "sleeper.log")
    path = tmp_path / "run" / "sleeper.json"
    try:
        rec = processes.write_pidfile(path, proc.pid, port=1234)
        assert processes.read_pidfile(path) == rec and os.getpgid(proc.pid) == proc.pid
        assert processes.MARKER_ENV not in psutil.Process(proc.pid).environ()
        # the same pid with another start time: a reused pid, not ours
        path.write_text(json.dumps({**rec, "start_time": rec["start_time"] - 100}))
        assert processes.read_pidfile(path) is None and processes.stop_pidfile(path) is False
        assert proc.poll() is None  # left alone
        processes.write_pidfile(path, proc.pid)
        assert processes.stop_pidfile(path, grace=5) is True and not path.exists()
        proc.wait(timeout=10)
        assert not processes.is_alive(proc.pid)
    finally:
        if proc.poll() is None:
            proc.kill()
    for bad in ("", "{", '{"pid": "x"}', "[1]"):
        path.write_text(bad)
        assert processes.read_pidfile(path) is None


def test_stop_pidfile_ends_the_whole_group(tmp_path):
    parent = f"import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', {SLEEP!r}]); time.sleep(120)"
    proc = processes.spawn_detached([sys.executable, "-c", parent])
    deadline = time.monotonic() + 20
    while not psutil.Process(proc.pid).children() and time.monotonic() < deadline:
        time.sleep(0.05)
    child = psutil.Process(proc.pid).children()[0]
    processes.write_pidfile(tmp_path / "p.json", proc.pid)
    assert processes.stop_pidfile(tmp_path / "p.json", grace=5)
    proc.wait(timeout=10)
    assert psutil.wait_procs([child], timeout=10)[1] == []
