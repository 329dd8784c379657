"""The majority-class baseline and degenerate selections (issue 27): literal data first, then the bundled case."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from kg.datasets import load_dataset
from selection.evaluation.baseline import BASELINE, BASELINE_CLASSIFIER, is_baseline, majority_baseline
from selection.evaluation.cv import COLUMNS, degenerate_selection, evaluate_table
from selection.evaluation.report import degenerate_text, summarize


def test_baseline_by_hand():
    # 6 of class 0, 3 of class 1; 3 folds of 3 (2 + 1 each): the training majority is 0 in every fold
    y = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1])
    rows = majority_baseline(y, dataset="d", n_splits=3, n_features=4)
    assert list(rows.columns) == COLUMNS and len(rows) == 3
    assert rows["accuracy"].tolist() == pytest.approx([2 / 3] * 3)
    assert rows["auroc"].tolist() == [0.5] * 3  # every score tied
    assert rows["aucpr"].tolist() == pytest.approx([1 / 3] * 3)  # the positive (minority) class's share
    assert rows["gm"].tolist() == [0.0] * 3  # the minority class is never predicted
    assert rows["n_selected"].tolist() == [0] * 3 and rows["compression"].tolist() == [1.0] * 3
    assert set(rows["selector"]) == {BASELINE} and set(rows["classifier"]) == {BASELINE_CLASSIFIER}
    assert is_baseline(rows).all() and rows["pos_label"].tolist() == ["1"] * 3


@given(st.lists(st.integers(0, 2), min_size=12, max_size=60), st.integers(2, 4), st.integers(0, 50))
def test_baseline_uses_the_evaluations_folds(labels, k, seed):
    y = np.array(labels)
    if np.bincount(y, minlength=3)[np.unique(y)].min() < k or len(np.unique(y)) < 2:
        return
    from kg.hierarchy import FeatureHierarchy
    from kg.table import FeatureTable

    h = FeatureHierarchy.from_edges([], nodes=["f"])
    t = FeatureTable(sp.csr_matrix(np.ones((len(y), 1), dtype=np.int8)), ["f"], [str(i) for i in range(len(y))], y, h)
    base = majority_baseline(y, dataset="d", n_splits=k, n_features=1, random_state=seed)
    ev = evaluate_table(t, ["complete"], ["nb"], dataset="d", n_splits=k, random_state=seed)
    # the same test parts: sizes per fold, and a constant feature predicts what the prior predicts
    assert base["n_test"].tolist() == ev["n_test"].tolist()
    assert base["accuracy"].tolist() == pytest.approx(ev["accuracy"].tolist())


def test_degenerate_selection_literal():
    X = sp.csr_matrix([[1, 1, 0, 0], [1, 0, 1, 0], [1, 0, 0, 0]])
    roots = np.array([True, False, False, True])
    assert degenerate_selection(np.zeros(4, bool), X, roots) == "empty"
    assert degenerate_selection(np.array([1, 0, 0, 0], bool), X, roots) == "only roots; constant"
    assert degenerate_selection(np.array([0, 0, 0, 1], bool), X, roots) == "only roots; constant"  # never present
    assert degenerate_selection(np.array([1, 1, 0, 0], bool), X, roots) == ""
    assert degenerate_selection(np.array([0, 1, 0, 0], bool), X, roots) == ""
    assert degenerate_selection(np.array([1, 0, 0, 0], bool), X, None) == "constant"  # a flat table has no roots


def test_degenerate_text():
    assert degenerate_text(["only roots; constant"] * 10) == "only roots; constant (10/10 folds)"
    assert degenerate_text(["", "empty", float("nan")]) == "empty (1/3 folds)"
    assert degenerate_text([""] * 3) == ""


@pytest.fixture(scope="module")
def bundled_runs():
    t = load_dataset("bundled/DM-BP")
    rows = evaluate_table(t, [("shsel-ig-prune", {"threshold": 0.9}), "complete"], ["nb"], dataset="DM-BP")
    return t, rows, majority_baseline(t.y, dataset="DM-BP", n_splits=10, n_features=t.n_features)


def test_threshold_09_is_degenerate_and_no_better_than_the_baseline(bundled_runs):
    """The case of issue 27: `kgfs run --param threshold=0.9` keeps the GO root in every fold."""
    _t, rows, base = bundled_runs
    shsel = rows[rows["selector"].str.startswith("shsel")]
    assert (shsel["degenerate"] == "only roots; constant").all() and (shsel["n_selected"] == 1).all()
    assert (rows.loc[rows["selector"] == "complete", "degenerate"] == "").all()
    assert round(base["accuracy"].mean(), 3) == 0.717  # 91 of 127 genes are pro-longevity
    # the degenerate selection scores exactly the majority class, fold by fold
    assert shsel["accuracy"].tolist() == pytest.approx(base["accuracy"].tolist())
    s = summarize(pd.concat([rows]), ["accuracy"], ["accuracy"], baseline=base)
    assert s["selector"].tolist()[-1] == BASELINE
    assert s["degenerate"].tolist()[0] == "only roots; constant (10/10 folds)"
    assert s["degenerate"].tolist()[1:] == ["", ""] and np.isnan(s["accuracy_rank"].iloc[-1])
