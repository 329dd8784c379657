"""`kgfs serve` as a user runs it (issue 36): nothing set (no PREFECT_API_URL, a fresh KGFS_HOME and server folder),
a corpus dropped in, its outputs, the printed trigger command, then Ctrl-C (SIGINT to the process group, as a
terminal sends it) or SIGTERM: one line, no traceback, nothing of its own left running; the user's server stays
up (stopped when idle), as `kgfs run` leaves it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pandas as pd
import psutil
import pytest

from flows.server import local as server
from flows.watch.ledger import read_ledger

ROOT = Path(__file__).resolve().parents[3]


def _wait(cond, timeout: float, what: str, proc=None, log: Path | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"{what}: kgfs serve exited with status {proc.returncode}: "
                                 + (log.read_text()[-2000:] if log else ""))
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}: "
                         + (log.read_text()[-2000:] if log else ""))


def _processed(out: Path, name: str) -> dict | None:
    try:
        entries = read_ledger(out)["corpora"].values()
    except (OSError, ValueError):
        return None
    return next((e for e in entries if e["file"] == name and e["status"] == "ok"), None)


def _alive(procs) -> list:
    return [p for p in procs if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


def _user_env(tmp_path: Path) -> dict:
    """A new user's environment: no Prefect setting, a fresh kgfs home and server folder, any free port."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "KGFS_"))}
    env.update(PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""), KGFS_HOME=str(tmp_path / "home"),
               KGFS_SERVER_DIR=str(tmp_path / "server"), KGFS_SERVER_PORT="0")
    return env


@pytest.mark.integration
@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_serve_with_nothing_set(tmp_path, bundled, stop, monkeypatch):
    watch, out, log = tmp_path / "corpora", tmp_path / "results", tmp_path / "serve.log"
    watch.mkdir()
    env = _user_env(tmp_path)
    monkeypatch.setenv("KGFS_SERVER_DIR", env["KGFS_SERVER_DIR"])  # this test's view of that user's server
    labels = pd.read_csv(bundled / "labels.tsv", sep="\t", dtype=str)
    (watch / "genes.tsv.part").write_text(labels.iloc[:70].to_csv(sep="\t", index=False))
    (watch / "genes.tsv.part").rename(watch / "genes.tsv")
    with open(log, "w") as f:
        serve = subprocess.Popen(
            [sys.executable, "-m", "flows.cli", "serve", "--watch", str(watch), "--interval", "10", "--settle", "1",
             "--out", str(out), "--obo", str(bundled / "go-2014-06-13-subset.obo.gz"),
             "--annotations", str(bundled / "annotations.tsv"), "--selector", "complete", "--selectors", "complete",
             "--n-splits", "3"],
            env=env, cwd=tmp_path, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True)
    try:
        entry = _wait(lambda: _processed(out, "genes.tsv"), 180, "the dropped corpus processed", serve, log)
        ev = pd.read_csv(Path(entry["out"]) / "evaluation.csv")
        assert len(ev) == 3 and (ev["status"] == "ok").all()
        info = server.find_server(tmp_path / "home")
        assert info is not None, "the user's server (KGFS_SERVER_DIR) serves the deployment"
        assert Path(info.folder) == tmp_path / "server"
        assert not (tmp_path / "home" / "prefect" / "prefect.db").exists()  # no temporary server of its own

        # the trigger command it printed works as printed, from a shell with nothing set
        text = log.read_text()
        command = re.search(r"^\s+(PREFECT_API_URL=\S+ prefect deployment run .+)$", text, re.M).group(1)
        assert info.api_url in command
        assign, *argv = shlex.split(command)
        trig = subprocess.run([sys.executable, "-m", *argv], env={**env, assign.split("=")[0]: assign.split("=", 1)[1]},
                              capture_output=True, text=True, timeout=90)
        assert trig.returncode == 0, trig.stdout + trig.stderr
        run_id = re.search(r"UUID:\s*([0-9a-f-]{36})", trig.stdout).group(1)

        def final_state():
            with urllib.request.urlopen(f"{info.api_url}/flow_runs/{run_id}", timeout=10) as r:
                st = json.loads(r.read())["state"]
            return st["type"] if st and st["type"] in ("COMPLETED", "FAILED", "CRASHED") else None

        assert _wait(final_state, 120, "the hand-triggered tick", serve, log) == "COMPLETED"

        ours = [p for p in psutil.Process(serve.pid).children(recursive=True) if p.pid != info.pid]
        ours = [p for p in ours if p.pid not in {c.pid for c in psutil.Process(info.pid).children(recursive=True)}]
        t0 = time.monotonic()
        if stop == "SIGINT":
            os.killpg(serve.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the whole foreground group
        else:
            serve.send_signal(signal.SIGTERM)
        status = serve.wait(timeout=15)
        took = time.monotonic() - t0
        text = log.read_text()
        assert status == 128 + getattr(signal, stop), text[-2000:]
        assert took < 10, took
        assert text.splitlines()[-1] == f"kgfs serve: stopping ({stop})", text[-2000:]
        assert "Traceback" not in text
        deadline = time.monotonic() + 10
        while _alive(ours) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(ours), [p.cmdline() for p in _alive(ours)]
        # the user's server stays up, as `kgfs run` leaves it (its idle stop): answering, no lease of ours left
        assert server.api_healthy(info.api_url) and server.status(tmp_path / "home")["clients"] == 0
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait(timeout=10)
        server.stop_server(tmp_path / "home", grace=5)
