"""Tests never touch the user's state (issue 36): whatever the environment says, the suite has its own server folder,
kgfs home and Prefect settings (tests/conftest.py), and a server of the user's survives the suite's end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from flows.server import local as server
from flows.server import processes
from tests.conftest import SESSION_DIR, stop_session_server

ROOT = Path(__file__).resolve().parents[2]


def test_the_environment_of_the_user_is_overridden(tmp_path):
    user = {"KGFS_SERVER_DIR": str(tmp_path / "user-server"), "KGFS_HOME": str(tmp_path / "user-home"),
            "PREFECT_API_URL": "http://127.0.0.1:9/api", "PREFECT_HOME": str(tmp_path / "user-prefect")}
    code = ("import json, os, tests.conftest as c; print(json.dumps({k: os.environ.get(k) for k in c.ENVIRONMENT}))")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, **user}, cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen["PREFECT_API_URL"] is None
    assert all(seen[k] != user[k] and not seen[k].startswith(str(tmp_path)) for k in user if k != "PREFECT_API_URL")
    # and this session's own
    assert os.environ["KGFS_SERVER_DIR"] == str(SESSION_DIR / "server") and "PREFECT_API_URL" not in os.environ


@pytest.mark.integration
def test_a_server_of_the_user_survives_the_suite():
    user = Path(tempfile.mkdtemp(prefix="kgfs-user-")) / "server"  # outside the tests' folders, as ~/.cache/kgfs is
    env = {**os.environ, "KGFS_SERVER_DIR": str(user), "KGFS_SERVER_PORT": "0",
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    try:
        start = subprocess.run([sys.executable, "-m", "flows.cli", "server", "start"], env=env, cwd=user.parent,
                               capture_output=True, text=True, timeout=240)
        assert start.returncode == 0, start.stdout + start.stderr
        mine = processes.read_pidfile(user / "server.json")
        assert mine is not None
        url = f"http://127.0.0.1:{mine['port']}/api"
        assert server.api_healthy(url)
        # the suite's own server runs too (a test's `kgfs run` would have started it), then the suite ends
        suite = server.ensure_server(SESSION_DIR / "home", port=0)
        assert Path(suite.folder) == SESSION_DIR / "server" and suite.port != mine["port"]
        assert stop_session_server()
        assert not server.api_healthy(suite.api_url, timeout=5) and server.find_server() is None
        # the user's server still answers, untouched
        assert server.api_healthy(url) and processes.read_pidfile(user / "server.json")["pid"] == mine["pid"]
    finally:
        processes.stop_pidfile(user / "server.json", grace=5)
