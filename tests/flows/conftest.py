"""Fixtures of the flow/CLI tests.

Prefect reads its settings when first imported, so the offline configuration (a throw-away
kgfs home holding PREFECT_HOME) is applied here, at collection, before any test imports
``flows.pipeline``. Flow tests share one session-scoped ``prefect_test_harness`` (it starts a
temporary API server once: 8-30 s on this machine); everything else calls the stage functions,
the task bodies (``task.fn``) or the CLI's ``main`` without a server.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from flows import settings

_SESSION_HOME = Path(tempfile.mkdtemp(prefix="kgfs-test-home-"))
if not settings.prefect_imported():
    os.environ.pop("PREFECT_HOME", None)  # this session's state stays in the throw-away home
settings.configure(_SESSION_HOME, log_level="WARNING")

BUNDLED = Path(__file__).resolve().parents[2] / "datasets" / "bundled" / "DM-BP"


@pytest.fixture(scope="session", autouse=True)
def _stop_managed_servers(tmp_path_factory):
    """Stop every local Prefect server a test's ``kgfs run`` started (they outlive kgfs on purpose)."""
    yield
    from flows.server import local as server

    for info in tmp_path_factory.getbasetemp().rglob("server.json"):  # the servers of tests with a folder of their own
        old = os.environ.get("KGFS_SERVER_DIR")
        os.environ["KGFS_SERVER_DIR"] = str(info.parent)
        try:
            server.stop_server()
        finally:
            os.environ["KGFS_SERVER_DIR"] = old if old is not None else os.environ.pop("KGFS_SERVER_DIR")


@pytest.fixture(scope="session")
def bundled() -> Path:
    """The bundled default dataset's folder (OBO subset, annotations, labels)."""
    assert (BUNDLED / "annotations.tsv").is_file(), "datasets/bundled/DM-BP is missing"
    return BUNDLED


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A fresh kgfs home (stage store) for one test."""
    h = tmp_path / "home"
    monkeypatch.setenv("KGFS_HOME", str(h))
    return h


@pytest.fixture(scope="session")
def prefect_harness():
    """One temporary Prefect API server (and database) for every flow test of the session."""
    from prefect.testing.utilities import prefect_test_harness

    if os.environ.get("PREFECT_HOME"):
        Path(os.environ["PREFECT_HOME"]).expanduser().mkdir(parents=True, exist_ok=True)
    with prefect_test_harness(server_startup_timeout=None):
        yield
