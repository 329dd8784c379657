"""The user's local Prefect server (flows.server.local, `kgfs server`): start once, reuse from every kgfs home, stop,
idle stop, no orphans.

The tests that start a real server (5-30 s each on this machine) are marked ``integration``; each
uses its own server folder (``KGFS_SERVER_DIR``, as a user of its own) and a free port, and stops what it started.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from flows.server import environment
from flows.server import local as server
from kg.errors import KgfsError


def _processes_of(home: Path) -> list[psutil.Process]:
    """The supervisor and the Prefect server whose folder is under ``home`` (by command line and environment)."""
    out = []
    for p in psutil.process_iter(["cmdline"]):
        try:
            cmd = " ".join(p.info["cmdline"] or [])
            if str(home) in cmd or (("prefect" in cmd) and p.environ().get("PREFECT_HOME", "").startswith(str(home))):
                out.append(p)
        except (psutil.Error, OSError):
            continue
    return out


def _wait_gone(home: Path, timeout: float = 20.0) -> list:
    deadline = time.monotonic() + timeout
    while (left := _processes_of(home)) and time.monotonic() < deadline:
        time.sleep(0.3)
    return left


@pytest.fixture(autouse=True)
def user(tmp_path, monkeypatch) -> Path:
    """This test's user server folder (``KGFS_SERVER_DIR``; the children it starts inherit it)."""
    monkeypatch.setenv("KGFS_SERVER_DIR", str(tmp_path / "server"))
    return tmp_path / "server"


@pytest.fixture
def kgfs_home(tmp_path, user):
    home = tmp_path / "home"
    yield home
    server.stop_server(home, grace=5)


# --------------------------------------------------------------------------- without a server
def test_no_server_is_reported_and_stopping_none_is_harmless(tmp_path):
    st = server.status(tmp_path)
    assert st["running"] is False and "no Prefect server of yours runs" in st["text"]
    assert "kgfs server start" in st["text"]
    assert server.find_server(tmp_path) is None and server.stop_server(tmp_path) is False
    # a pid file of a process that ended is not a server (and is removed)
    (tmp_path / "server").mkdir()
    pidfile = tmp_path / "server" / "server.json"
    pidfile.write_text(json.dumps({"pid": 2 ** 22 + 1, "start_time": 1.0, "port": 4200, "started": "x"}))
    assert server.find_server(tmp_path) is None and not pidfile.exists()


def test_environment_is_offline_local_and_keeps_the_users_values():
    env = environment.prefect_env("/h", {"NO_PROXY": "corp.example", "PREFECT_LOGGING_LEVEL": "DEBUG"},
                                  log_level="ERROR")
    assert env["PREFECT_HOME"] == "/h/prefect" and env["PREFECT_SERVER_ANALYTICS_ENABLED"] == "false"
    assert env["DO_NOT_TRACK"] == "1" and env["NO_PROXY"] == env["no_proxy"] == "corp.example,127.0.0.1,localhost"
    assert env["PREFECT_LOGGING_LEVEL"] == "DEBUG" and env["PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"] == "ERROR"
    assert env["PREFECT_LOGGING_LOGGERS_PREFECT_FLOW_RUNS_LEVEL"] == "INFO"  # the UI's Logs tab
    srv = environment.server_env("/h", {"PREFECT_API_URL": "http://x/api", "PREFECT_HOME": "/mine",
                                   "PREFECT_SERVER_ANALYTICS_ENABLED": "true"})
    # the server's state is in the home and its telemetry is off, whatever the caller's environment says
    assert srv["PREFECT_HOME"] == "/h/prefect" and srv["PREFECT_SERVER_ANALYTICS_ENABLED"] == "false"
    assert "PREFECT_API_URL" not in srv


def test_a_port_in_use_is_refused_before_anything_starts(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(KgfsError, match=f"port {port} on 127.0.0.1 is in use"):
            server.start_server(tmp_path, port=port)
    assert server.find_server(tmp_path) is None and not (tmp_path / "server" / "server.json").exists()


def test_leases_of_ended_processes_do_not_keep_a_server(tmp_path):
    d = server.server_dir(tmp_path)
    with server.lease(tmp_path) as path:
        assert path.read_text() and server._busy(d)
        dead = d / "clients" / str(2 ** 22 + 1)
        dead.write_text("1.0")
        assert server._busy(d) and not dead.exists()  # ours keeps it busy; the dead one is removed
    assert not path.exists() and not server._busy(d)
    assert time.time() - (d / "last-used").stat().st_mtime < 60


# --------------------------------------------------------------------------- a real server
@pytest.mark.integration
def test_server_starts_once_answers_offline_is_reused_and_stops(kgfs_home):
    t0 = time.monotonic()
    info, started = server.start_server(kgfs_home, port=0)
    again, started_again = server.start_server(kgfs_home, port=0)  # while it boots: the same one
    assert started and not started_again and again == info
    server.wait_until_ready(info)
    print(f"server ready after {time.monotonic() - t0:.1f} s")
    # the telemetry that kills an offline server after ~6 s is off: it still answers later
    time.sleep(8)
    assert server.api_healthy(info.api_url)
    assert (server.server_dir() / "prefect" / "prefect.db").is_file()  # the user's, not the home's
    st = server.status(kgfs_home)
    assert st["running"] and st["healthy"] and st["ui"] == f"http://127.0.0.1:{info.port}" and st["clients"] == 0
    procs = _processes_of(server.server_dir())
    assert any("supervise" in " ".join(p.cmdline()) for p in procs)
    assert any("prefect" in " ".join(p.cmdline()) and "server" in p.cmdline() for p in procs)
    # the CLI sees the same server, and its UI page is served with the right API address
    env = {**os.environ, "KGFS_HOME": str(kgfs_home)}
    out = subprocess.run([sys.executable, "-m", "flows.cli", "server", "status", "--json"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert json.loads(out.stdout)["pid"] == info.pid
    assert server.stop_server(kgfs_home)
    assert _wait_gone(server.server_dir()) == [] and server.find_server(kgfs_home) is None
    assert not server.api_healthy(info.api_url)


@pytest.mark.integration
def test_idle_server_stops_itself_but_not_while_a_run_holds_it(kgfs_home):
    info, _ = server.start_server(kgfs_home, port=0, idle_minutes=0.05)  # 3 s
    with server.lease(kgfs_home):
        server.wait_until_ready(info)
        time.sleep(6)
        assert server.api_healthy(info.api_url)  # held by this process: not idle
    assert _wait_gone(server.server_dir(), timeout=30) == []
    assert server.find_server(kgfs_home) is None
    assert "stopping (idle for 0.05 min)" in (server.server_dir() / "server.log").read_text()


@pytest.mark.integration
def test_killing_the_supervisor_or_deleting_its_folder_leaves_no_server(kgfs_home):
    info, _ = server.start_server(kgfs_home, port=0)
    server.wait_until_ready(info)
    os.kill(info.pid, signal.SIGKILL)  # the Prefect server is ended by the supervisor's watchdog
    assert _wait_gone(server.server_dir()) == []
    info, _ = server.start_server(kgfs_home, port=0)  # a new one in the same folder (its database is kept)
    server.wait_until_ready(info)
    (server.server_dir() / "server.json").unlink()  # e.g. the folder was removed
    assert _wait_gone(server.server_dir()) == []


@pytest.mark.integration
def test_cli_server_start_status_stop(kgfs_home):
    env = {**os.environ, "KGFS_HOME": str(kgfs_home), "KGFS_SERVER_PORT": "0"}

    def kgfs(*args):
        return subprocess.run([sys.executable, "-m", "flows.cli", "server", *args], env=env, capture_output=True,
                              text=True, timeout=300)

    started = kgfs("start", "--idle-minutes", "5")
    assert started.returncode == 0, started.stderr
    assert "your Prefect server (for every kgfs home): running" in started.stdout
    assert "stops after 5 min" in started.stdout
    status = json.loads(kgfs("status", "--json").stdout)
    assert status["running"] and status["healthy"] and status["idle_minutes"] == 5
    stopped = kgfs("stop")
    assert stopped.stdout.strip() == f"stopped your Prefect server ({server.server_dir()})"
    assert _wait_gone(server.server_dir()) == [] and "no Prefect server of yours runs" in kgfs("status").stdout
    assert "no Prefect server of yours runs" in kgfs("stop").stdout


@pytest.mark.integration
def test_kgfs_run_in_three_folders_leaves_one_server_and_tags_each_run_with_its_home(tmp_path, user):
    """issue 30: each folder where `kgfs run` ran kept its own Prefect server for 30 minutes (three folders: three
    servers, nine processes, 824 MB). One server per user now, its runs tagged with their kgfs home."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "KGFS_HOME"))}
    env.update(KGFS_SERVER_PORT="0")
    folders = [tmp_path / name for name in ("alpha", "beta", "gamma")]
    said = []
    for f in folders:
        f.mkdir()
        proc = subprocess.run([sys.executable, "-m", "flows.cli", "run", "--selectors", "complete", "--n-splits", "3",
                               "--no-artifacts", "--out", "out"], cwd=f, env=env, capture_output=True, text=True,
                              timeout=900, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stderr[-3000:]
        said.append(proc.stderr)
    procs = _processes_of(tmp_path)  # every supervisor and server of this test, wherever its folder
    supervisors = [p for p in procs if "supervise" in " ".join(p.cmdline())]
    servers = [p for p in procs if "prefect" in " ".join(p.cmdline()) and "server" in p.cmdline()]
    assert len(supervisors) == 1 and len(servers) == 1, [p.cmdline() for p in procs]
    print(f"one server for three homes: {sum(p.memory_info().rss for p in procs) / 1e6:.0f} MB in {len(procs)} "
          "processes")
    assert ["started your Prefect server" in text for text in said] == [True, False, False]  # the first starts it
    assert not [f for f in folders if (f / ".kgfs" / "server").exists()]  # no server of a home
    info = server.find_server()
    req = urllib.request.Request(info.api_url + "/flow_runs/filter", data=b'{"limit": 50}',
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:  # noqa: S310 - 127.0.0.1
        runs = [run for run in json.loads(r.read()) if run["name"] and run.get("parent_task_run_id") is None]
    tagged = {t for run in runs for t in run["tags"] if t.startswith("home:")}
    assert tagged == {f"home:{f / '.kgfs'}" for f in folders}, tagged
    assert server.stop_server() and _wait_gone(user) == []
