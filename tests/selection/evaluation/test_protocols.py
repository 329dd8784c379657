"""The protocol registry and the two papers' protocols."""

import numpy as np
import pandas as pd
import pytest

from kg.errors import KgfsError
from selection.evaluation import protocols
from selection.evaluation.cv import evaluate_table
from selection.evaluation.grid import run_grid
from selection.evaluation.plan import plan_evaluation
from selection.evaluation.protocols import (
    SHSEL_THRESHOLDS,
    available_protocols,
    get_protocol,
    register_protocol,
    rpv_pos_label,
)
from selection.evaluation.report import ReportSettings
from selection.registry import available_selectors


@pytest.fixture(scope="module")
def dmcc(shared_data):
    from kg.datasets import load_dataset

    return load_dataset("rpv/DM-CC", mirror=shared_data, check="repair")


def test_builtin_protocols():
    assert {"basic", "shsel2014", "rpv2020"} <= set(available_protocols())
    assert get_protocol("shsel2014").classifiers == ("nb", "knn", "svm")
    assert get_protocol("rpv2020").classifiers == ("nb", "1nn")
    assert get_protocol("rpv2020").rank_metrics == ("aucpr", "auroc", "gm")
    assert len(SHSEL_THRESHOLDS) == 101 and SHSEL_THRESHOLDS[0] == 0.0 and SHSEL_THRESHOLDS[-1] == 1.0
    assert SHSEL_THRESHOLDS[99] == 0.99
    with pytest.raises(KgfsError, match="unknown protocol 'x'; available: .*rpv2020"):
        get_protocol("x")


def test_rpv_positive_class_is_label_1():
    assert rpv_pos_label(np.array([0, 1, 1])) == 1
    assert rpv_pos_label(np.array(["0", "1"])) == "1"
    assert rpv_pos_label(np.array(["false", "true"])) == "true"  # NY Daily: 57% 'true', the paper's %Pos
    assert rpv_pos_label(np.array(["Negative", "Positive"])) == "Positive"
    assert rpv_pos_label(np.array(["low", "mid", "high"])) is None


def test_register_protocol_runs_in_a_grid(dmcc, tmp_path):
    def holdout5(table, selectors, classifiers, *, dataset, n_splits, random_state, folds, options):
        return evaluate_table(table, selectors, classifiers, dataset=dataset, n_splits=n_splits,
                              random_state=random_state + 100, folds=folds)

    register_protocol("test-shifted-seed", holdout5, classifiers=("nb",), metrics=("accuracy",),
                      rank_metrics=("accuracy",), n_splits=4)
    try:  # leave the registry as it was: later tests (the CLI's help) list every registered protocol
        r = run_grid({"dm": dmcc}, plan_evaluation("test-shifted-seed", ["complete"]), out_dir=tmp_path, n_jobs=1,
                     report=ReportSettings(plots=False))
    finally:
        del protocols._PROTOCOLS["test-shifted-seed"]
    df = pd.read_csv(r.results)
    assert len(df) == 4 and (df["classifier"] == "nb").all()
    ref = evaluate_table(dmcc, ["complete"], ["nb"], dataset="dm", n_splits=4, random_state=100)
    assert df["accuracy"].tolist() == pytest.approx(ref["accuracy"].tolist())


def test_shsel2014_best_on_test_writes_the_sweep(dmcc, tmp_path):
    if "shsel-ig-prune" not in available_selectors():
        pytest.skip("shsel-ig-prune not registered yet")
    opts = {"threshold_choice": "best-on-test", "thresholds": (0.5, 0.9, 0.99)}
    plan = plan_evaluation("shsel2014", ["shsel-ig-prune", "complete"], ["nb"], n_splits=3, options=opts)
    r = run_grid({"dm": dmcc}, plan, out_dir=tmp_path, n_jobs=1, report=ReportSettings(plots=False))
    df = pd.read_csv(r.results)
    assert len(df) == 2 * 3
    sw = pd.read_csv(r.sweep)
    assert len(sw) == 3 * 3 and set(sw["threshold"]) == {0.5, 0.9, 0.99}
    best = sw.groupby("threshold")["accuracy"].mean().max()
    assert df[df["selector"] == "shsel-ig-prune"]["accuracy"].mean() == pytest.approx(best)
    assert "best-on-test (optimistic)" in r.report.read_text()
    with pytest.raises(KgfsError, match="threshold_choice"):
        get_protocol("shsel2014").evaluate(dmcc, ["complete"], ["nb"], dataset="dm", n_splits=3, random_state=0,
                                           folds=None, options={"threshold_choice": "magic"})


def test_rpv2020_uses_lazy_classifiers_and_one_sided_holm(dmcc, shared_data, tmp_path):
    if "rpv" not in available_selectors():
        pytest.skip("selection.lazy.selectors not available")
    from kg.datasets import load_dataset

    other = load_dataset("rpv/MM-CC", mirror=shared_data, check="repair")
    r = run_grid({"DM-CC": dmcc, "MM-CC": other}, plan_evaluation("rpv2020", ["rpv", "all-pos", "complete"]),
                 out_dir=tmp_path, n_jobs=1, report=ReportSettings(plots=False))
    df = pd.read_csv(r.results)
    assert set(df["classifier"]) == {"nb", "1nn"} and (df["status"] == "ok").all()
    assert (df["pos_label"].astype(str) == "1").all()
    st = r.stats.read_text()
    assert "| rpv (control) |" in st and "one-sided" in st
    s = pd.read_csv(r.summary)
    assert {"aucpr_rank", "auroc_wins", "gm_rank", "pct_selected"} <= set(s.columns)  # report.py names means by the measure
