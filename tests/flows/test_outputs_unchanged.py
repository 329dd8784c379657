"""`kgfs run` on the bundled data writes what main wrote before the layers were restructured (issue 22).

The fixtures in ``fixtures/main-run/`` were written by ``kgfs run`` at commit 4756336 (see their README);
the timing columns of the evaluation differ from run to run and are left out.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "main-run"
SAME_BYTES = ["selected_features.csv", "selection.csv", "table.csv", "hierarchy.csv", "hierarchy.selected.csv",
              "table.sparse.arff", "table.selected.arff"]


@pytest.mark.integration
def test_default_run_writes_the_files_main_wrote(prefect_harness, tmp_path):
    from flows import runner
    from flows.run_options import RunOptions

    # `kgfs run`'s defaults: the whole-table selector beside `complete` in the cross-validation
    runner.run_pipeline(options=RunOptions(eval_selectors=("shsel-ig-prune", "complete")), out=tmp_path / "out",
                        home=tmp_path / "home")
    for name in SAME_BYTES:
        assert (tmp_path / "out" / name).read_bytes() == (FIXTURES / name).read_bytes(), name
    for name in ("evaluation.csv", "summary.csv"):
        now, before = pd.read_csv(tmp_path / "out" / name), pd.read_csv(FIXTURES / name)
        assert list(now.columns) == list(before.columns), name
        same = [c for c in now.columns if "seconds" not in c]
        pd.testing.assert_frame_equal(now[same], before[same], check_exact=True, obj=name)
