"""README.md and .ci/run agree: CI runs exactly the test command README names."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _ci_command() -> str:
    m = re.search(r"^README_TEST_COMMAND='(.+)'$", (ROOT / ".ci" / "run").read_text(), re.M)
    assert m, "README_TEST_COMMAND not found in .ci/run"
    return m.group(1)


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", readme, re.S)
    assert blocks[0].strip() == "pip install -e . && kgfs run"
    assert blocks[1].strip() == _ci_command()


def test_ci_script_is_strict_and_treats_no_tests_as_failure():
    text = (ROOT / ".ci" / "run").read_text()
    assert text.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in text
    assert "rc -eq 5" in text
    assert "KGFS_DATA_MIRROR" in text and ".ci/setup-*.sh" in text
    assert "kgfs run" in text


def test_ci_smoke_test_asserts_the_cached_run_started_no_server_and_leaves_no_server():
    text = (ROOT / ".ci" / "run").read_text()
    smoke = text[text.index('step "kgfs run (smoke test'):text.index('step "wheel install')]
    # cold, the announced server stopped, then cached: that run must say and show that no server started
    assert smoke.count('"${KGFS[@]}" run --out') == 2
    assert ("started your Prefect server in the background (one for every kgfs home of yours; state in "
            "$SCRATCH/server): UI http://127.0.0.1:") in smoke
    assert '"${KGFS[@]}" server stop' in smoke and "no Prefect server started" in smoke
    assert '"${KGFS[@]}" server status --json' in smoke and '"running": false' in smoke
    # every server a test or the smoke test started is stopped (after each suite, at the end, on failure)
    assert 'export PYTEST_ADDOPTS="--basetemp=$PYTEST_TMP/pytest' in text
    assert 'export KGFS_SERVER_DIR="$PYTEST_TMP/server"' in text  # the one server of the tests' runs
    assert text.count('stop_servers "$PYTEST_TMP"') == 2 and 'stop_servers "$SCRATCH"' in text
    assert 'cleanup() { for d in ${TMPDIRS[@]+"${TMPDIRS[@]}"}; do stop_servers "$d"' in text
