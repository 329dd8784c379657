"""What the RDF route's tests share: the real CoDEx dump, a kgfs home per test, the command line's one-line errors."""

from __future__ import annotations

import pytest

from flows.cli import main


@pytest.fixture(scope="module")
def codex(shared_data):
    """Real Wikidata in the truthy dump's shape (``../shared/data/wikidata/codex_truthy.nt.gz``)."""
    return shared_data / "wikidata" / "codex_truthy.nt.gz"


@pytest.fixture()
def home(tmp_path, monkeypatch):
    """A kgfs home of the test's own (``KGFS_HOME``)."""
    monkeypatch.setenv("KGFS_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def cli_error(capsys, argv) -> str:
    """The one line ``kgfs ARGV`` fails with (exit code 1, no traceback)."""
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err and err[-1].startswith("kgfs: error: ") and "Traceback" not in "\n".join(err)
    return err[-1]
