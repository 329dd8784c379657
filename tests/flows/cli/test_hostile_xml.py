"""`kgfs build --ontology` with a hostile OWL file fails at once, naming the file, and stores nothing (issue 37 point
1: a 3.5 KB billion-laughs file was rc 0 after 158 s at 12 GB; 200,000 levels of nesting never finished)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.kg.test_xmlguard import deep, laughs

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = ROOT / "datasets" / "bundled" / "DM-BP"


@pytest.mark.parametrize(("name", "said"), [
    ("laughs", ":4: refusing XML entity 'lol1': its value holds '&' or '<'"),
    ("deep", ":3: elements nested deeper than 1000 levels (the limit; set KGFS_XML_MAX_DEPTH to raise it)"),
])
def test_build_refuses_a_hostile_owl_file_quickly_and_stores_nothing(name, said, tmp_path):
    owl = tmp_path / f"{name}.owl"
    owl.write_text(laughs() if name == "laughs" else deep(200_000))
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "KGFS_"))},
           "PYTHONPATH": str(ROOT), "KGFS_HOME": str(tmp_path / "home"), "KGFS_SERVER_DIR": str(tmp_path / "srv")}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "flows.cli", "build", "--ontology", str(owl),
                           "--annotations", str(BUNDLED / "annotations.tsv"), "--labels", str(BUNDLED / "labels.tsv"),
                           "--out", str(tmp_path / "out")], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    seconds = time.perf_counter() - t0
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 1, proc.stderr
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith(f"kgfs: error: {owl}{said}"), lines[0]
    assert seconds < 30, seconds  # about 2.5 s (the interpreter and imports); the scan itself takes milliseconds
    assert not (tmp_path / "out").exists() and not (tmp_path / "home" / "store").exists()
