"""The answer of an evaluation (issue 38 point 1): per dataset, the best method against the majority class.

Tiny literal folds at the top; the verdict must agree with stats.md's row of the best method against the
baseline (the same corrected resampled t-test, Holm-adjusted over the same comparisons).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from selection.evaluation.significance import stats_blocks
from selection.evaluation.tables import BASELINE_COLUMN
from selection.evaluation.verdict import OUTCOMES, Verdict, headline_measure, verdicts

BASE = [0.70, 0.72, 0.71, 0.73, 0.70, 0.72, 0.71, 0.73, 0.70, 0.72]


def _rows(scores: dict, dataset="d", classifier="nb", status=None) -> pd.DataFrame:
    rows = []
    for sel, accs in scores.items():
        for k, a in enumerate(accs):
            rows.append({"dataset": dataset, "selector": sel, "classifier": classifier, "fold": k, "accuracy": a,
                         "n_train": 90, "n_test": 10, "status": (status or {}).get((sel, k), "ok")})
    return pd.DataFrame(rows)


def _base(dataset="d", values=BASE) -> pd.DataFrame:
    return pd.DataFrame([{"dataset": dataset, "fold": k, "accuracy": v} for k, v in enumerate(values)])


def test_no_method_beats_the_baseline_and_the_numbers_are_stats_md_s():
    r = _rows({"A": [0.6, 0.8, 0.7, 0.75, 0.65, 0.7, 0.72, 0.68, 0.74, 0.7],
               "B": [0.5, 0.7, 0.6, 0.65, 0.55, 0.6, 0.62, 0.58, 0.64, 0.6]})
    v = verdicts(r, _base(), "accuracy")[0]
    assert (v.selector, v.classifier, v.dataset, v.measure) == ("A", "nb", "d", "accuracy")
    assert v.value == pytest.approx(r[r.selector == "A"].accuracy.mean())
    assert v.baseline == pytest.approx(np.mean(BASE)) and v.difference < 0 and not v.above and not v.beats
    row = next(x for b in stats_blocks(r, ["accuracy"], baseline=_base()) for x in b["rows"]
               if x["method"] == "A" and x["against"] == BASELINE_COLUMN)
    assert (v.difference, v.ci_low, v.ci_high, v.p_value, v.p_holm) == pytest.approx(
        (row["mean_difference"], row["ci_low"], row["ci_high"], row["p_value"], row["p_holm"]))
    assert v.n_comparisons == 3 and v.n_folds == 10 and v.confidence == pytest.approx(0.95)
    assert v.outcome in ("no significant difference", "worse") and "t-test" in v.test


def test_a_method_clearly_above_is_better_and_one_clearly_below_is_worse():
    up = verdicts(_rows({"A": [b + 0.2 + 0.01 * (k % 3) for k, b in enumerate(BASE)]}), _base(), "accuracy")[0]
    assert up.outcome == "better" and up.beats and up.above and up.ci_low > 0
    down = verdicts(_rows({"A": [b - 0.2 - 0.01 * (k % 3) for k, b in enumerate(BASE)]}), _base(), "accuracy")[0]
    assert down.outcome == "worse" and not down.beats and down.ci_high < 0


def test_above_on_average_but_not_significantly():
    noisy = [0.9, 0.5, 0.95, 0.55, 0.9, 0.6, 0.95, 0.5, 0.9, 0.6]
    v = verdicts(_rows({"A": noisy}), _base(), "accuracy")[0]
    assert v.above and not v.beats and v.outcome == "no significant difference" and v.ci_low < 0 < v.ci_high


def test_a_degenerate_best_is_flagged():
    r = _rows({"A": [0.72] * 10}).assign(degenerate="only roots")
    assert verdicts(r, _base(), "accuracy")[0].degenerate
    assert not verdicts(_rows({"A": [0.72] * 10}), _base(), "accuracy")[0].degenerate


def test_a_cell_with_a_failed_fold_is_not_the_best():
    r = _rows({"A": [0.99] * 10, "B": [0.6] * 10}, status={("A", 3): "failed"})
    v = verdicts(r, _base(), "accuracy")[0]
    assert v.selector == "B" and v.n_methods == 1


def test_methods_whose_cells_failed_are_left_out_of_the_tests_not_the_whole_table():
    # hip + logreg cannot run (a lazy selector needs a lazy classifier): its rows fail, the others are still tested
    up = [b + 0.2 + 0.01 * (k % 3) for k, b in enumerate(BASE)]
    r = _rows({"A": up, "hip": [np.nan] * 10}, status={("hip", k): "failed" for k in range(10)})
    v = verdicts(r, _base(), "accuracy")[0]
    assert (v.selector, v.outcome, v.n_folds) == ("A", "better", 10) and v.ci_low > 0
    (block,) = stats_blocks(r, ["accuracy"], baseline=_base())
    assert block["kind"] == "paired" and block["left_out"] == ["hip"]
    assert {x["method"] for x in block["rows"]} == {"A"}
    from selection.evaluation.significance import stats_markdown

    assert "Left out of the tests: hip (no complete score: their cells failed" in stats_markdown(
        r, ["accuracy"], baseline=_base())


def test_one_fold_is_untested_no_results_and_no_baseline():
    one = verdicts(_rows({"A": [0.8]}), _base(values=[0.7]), "accuracy")[0]
    assert one.outcome == "untested" and one.difference == pytest.approx(0.1) and math.isnan(one.ci_low)
    none = verdicts(_rows({"A": [0.8] * 2}, status={("A", 0): "failed", ("A", 1): "failed"}), _base(), "accuracy")[0]
    assert none.outcome == "no results" and none.selector is None
    alone = verdicts(_rows({"A": [0.8] * 3}), None, "accuracy")[0]
    assert math.isnan(alone.baseline) and alone.selector == "A"
    assert {one.outcome, none.outcome, "better", "worse", "no significant difference"} <= set(OUTCOMES)


def test_one_verdict_per_dataset_with_the_classes_and_the_averaging():
    r = pd.concat([_rows({"A": [0.8] * 10}, dataset="d1"), _rows({"A": [0.4] * 10}, dataset="d2")])
    b = pd.concat([_base("d1"), _base("d2", [0.3] * 10)])
    out = verdicts(r, b, "accuracy", n_classes={"d1": 2, "d2": 4})
    assert [v.dataset for v in out] == ["d1", "d2"]
    assert (out[0].n_classes, out[0].averaging, out[1].n_classes, out[1].averaging) == (2, None, 4, "macro")


def test_the_record_round_trips_through_json():
    v = verdicts(_rows({"A": [0.8]}), _base(values=[0.7]), "accuracy")[0]
    d = v.to_dict()
    assert d["ci_low"] is None and Verdict.from_dict(d).to_dict() == d


def test_headline_measure_is_the_first_ranked_measure():
    assert headline_measure(("accuracy", "gm")) == "accuracy"
    assert headline_measure(("aucpr", "auroc", "gm")) == "aucpr"  # rpv2020's
    assert headline_measure((), ("compression", "gm")) == "gm"
