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
