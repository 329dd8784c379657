"""`kgfs run` refuses an unknown --selector, a mistyped --param and a value out of range before anything heavy:
no input read, no server, no estimator, no scikit-learn (the registry's declarations: selection.declarations)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

# main() in a fresh process, then what it imported and whether it left a home behind
_RUN = """
import sys
from flows.cli.main import main
rc = main(sys.argv[1:])
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("sklearn", "scipy", "prefect", "pandas")
               or m.startswith(("selection.hierarchical", "selection.evaluation", "flows.runner")))
print(rc, heavy)
"""


@pytest.mark.parametrize(("args", "said"), [
    (["--param", "threshhold=0.9"], "kgfs: error: --param threshhold: none of the methods given has a parameter "
                                    "'threshhold' (did you mean threshold?) (shsel-ig-prune: binarize, "
                                    "check_implication, ig_unit, path_rule, prune, prune_compare, relevance, "
                                    "threshold)"),
    (["--selector", "shsel-ig-prun"], "kgfs: error: unknown selector 'shsel-ig-prun' (did you mean shsel-ig-prune, "
                                      "shsel-c-prune or shsel-ig?); available: adhoc, all-neg, all-pos, cfs, "),
    (["--param", "threshold=2"], "kgfs: error: selector shsel-ig-prune: threshold=2 is not valid: must be float in "
                                 "[0, 1]; parameters: binarize (float or None, default None), check_implication "),
    (["--selector", "hip"], "kgfs: error: --selector hip is a lazy selector (a feature subset per instance, no one "
                            "subset of the table)"),
])
def test_run_refuses_a_bad_selector_or_parameter_at_once(tmp_path, args, said):
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "KGFS_"))},
           "PYTHONPATH": str(ROOT), "KGFS_HOME": str(tmp_path / "home"), "KGFS_SERVER_DIR": str(tmp_path / "srv")}
    proc = subprocess.run([sys.executable, "-c", _RUN, "run", "--out", str(tmp_path / "out"), *args], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "1 []", proc.stdout + proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith(said), proc.stderr
    assert not (tmp_path / "srv").exists() and not (tmp_path / "out").exists()  # no server, no output
    assert not (tmp_path / "home" / "store").exists()
