import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("default", max_examples=60, deadline=None)
# CI explores a fixed sequence of examples, so a submission's CI result does not depend on luck;
# local runs keep drawing new examples (that is how new counterexamples are found)
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "default"))

# the tests' runs share one Prefect server per user, as kgfs runs do: never the user's own (~/.cache/kgfs/server)
os.environ.setdefault("KGFS_SERVER_DIR", str(Path(tempfile.mkdtemp(prefix="kgfs-test-")) / "server"))

SHARED_DATA = Path(os.environ.get("KGFS_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real datasets folder (``../shared/data`` beside the checkout, or $KGFS_SHARED_DATA)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session", autouse=True)
def _stop_the_test_server():
    """Stop the Prefect server the tests' runs started (kgfs keeps it running on purpose)."""
    yield
    if (Path(os.environ["KGFS_SERVER_DIR"]) / "server.json").exists():
        from flows.server import local

        local.stop_server()
