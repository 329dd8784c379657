"""Friedman / Holm: a hand-computed table, scipy, statsmodels, scikit-posthocs and the RPV paper."""

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sst
from hypothesis import given
from hypothesis import strategies as st

from selection.evaluation.stats import (
    average_ranks,
    critical_difference,
    friedman,
    holm,
    holm_from_ranks,
    holm_vs_control,
    rank_table,
    wins,
)

# 4 datasets x 3 methods, higher is better; by hand:
# ranks A: 3,3,3,3 -> 3.00; B: 2,1,2,2 -> 1.75; C: 1,2,1,1 -> 1.25
# chi2_F = 12*4/(3*4) * (9 + 3.0625 + 1.5625 - 3*16/4) = 4 * 1.625 = 6.5; no ties
HAND = pd.DataFrame({"A": [1, 1, 1, 1], "B": [2, 3, 2, 2], "C": [3, 2, 3, 3]}, index=list("wxyz"))


def test_ranks_wins_and_friedman_by_hand():
    assert average_ranks(HAND).to_dict() == {"A": 3.0, "B": 1.75, "C": 1.25}
    assert wins(HAND).to_dict() == {"A": 0.0, "B": 1.0, "C": 3.0}
    r = friedman(HAND)
    assert r.statistic == pytest.approx(6.5)
    assert r.pvalue == pytest.approx(sst.chi2.sf(6.5, 2))
    # Iman-Davenport: (N-1) chi2 / (N(k-1) - chi2) = 3*6.5/(8-6.5) = 13
    assert r.iman_davenport == pytest.approx(13.0)


def test_ties_share_ranks_and_wins():
    t = pd.DataFrame({"a": [0.9, 0.5], "b": [0.9, 0.7], "c": [0.1, 0.7]})
    assert rank_table(t).values.tolist() == [[1.5, 1.5, 3.0], [3.0, 1.5, 1.5]]
    assert wins(t).to_dict() == {"a": 0.5, "b": 1.0, "c": 0.5}
    assert rank_table(t, higher_is_better=False).values.tolist() == [[2.5, 2.5, 1.0], [1.0, 2.5, 2.5]]


@given(st.integers(2, 12), st.integers(3, 7), st.integers(0, 10_000), st.booleans())
def test_friedman_equals_scipy(n, k, seed, ties):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, size=(n, k)).astype(float) if ties else rng.random((n, k))
    if np.all(a == a[:, :1]):
        return
    ours = friedman(a)
    ref = sst.friedmanchisquare(*[-a[:, j] for j in range(k)])
    assert ours.statistic == pytest.approx(ref.statistic)
    assert ours.pvalue == pytest.approx(ref.pvalue)


def test_friedman_without_tie_correction_is_demsar_formula():
    t = pd.DataFrame({"a": [1, 1, 2], "b": [1, 2, 2], "c": [0, 3, 1]})
    R = average_ranks(t).to_numpy()
    n, k = t.shape
    textbook = 12 * n / (k * (k + 1)) * (np.sum(R ** 2) - k * (k + 1) ** 2 / 4)
    assert friedman(t, tie_correction=False).statistic == pytest.approx(textbook)
    assert friedman(t).statistic > textbook  # the correction divides by a number < 1


def test_holm_by_hand_and_against_statsmodels():
    h = holm([0.01, 0.04, 0.03])
    # sorted: .01*3 = .03, .03*2 = .06, .04*1 -> max(.06, .04) = .06
    assert h["p_holm"].tolist() == pytest.approx([0.03, 0.06, 0.06])
    assert h["adjusted_alpha"].tolist() == pytest.approx([0.05 / 3, 0.05 / 1, 0.05 / 2])
    assert h["reject"].tolist() == [True, False, False]  # .03 >= .025 stops the procedure
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(3)
    for _ in range(20):
        p = rng.random(7) ** 3
        rej, padj, _, _ = multitest.multipletests(p, alpha=0.05, method="holm")
        ours = holm(p)
        assert ours["p_holm"].to_numpy() == pytest.approx(padj)
        assert ours["reject"].tolist() == rej.tolist()


def test_holm_vs_control_matches_scikit_posthocs():
    sp = pytest.importorskip("scikit_posthocs")
    rng = np.random.default_rng(7)
    a = pd.DataFrame(rng.random((15, 5)), columns=list("abcde"))
    a["c"] += 0.3  # a clearly better control
    ours = holm_vs_control(a, "c").set_index("method")
    # posthoc_demsar ranks the values as they are (higher value = higher rank); the test is
    # symmetric, so its p-values equal ours for "higher is better"
    ref = sp.posthoc_demsar(a, control="c", p_adjust="holm")
    ref = ref.loc[:, "c"] if "c" in ref.columns else ref
    for m in "abde":
        assert ours.loc[m, "p_holm"] == pytest.approx(float(ref.loc[m]), rel=1e-9, abs=1e-12)
    raw = sp.posthoc_demsar(a, control="c")
    raw = raw.loc[:, "c"] if "c" in raw.columns else raw
    for m in "abde":
        assert ours.loc[m, "p_value"] == pytest.approx(float(raw.loc[m]), rel=1e-9, abs=1e-12)
    assert ours.index[0] == "c" and ours["significant"].iloc[0] is None


# The RPV paper's Table A.1, "AUCPR (Results for Table 7)", Naive Bayes part (p. 31):
# average ranks and the Holm test's p-values over N = 17 datasets, control RPV.
A1_NB_T7 = {"RPV": (2.2, None), "HIP": (2.7, 2.2e-01), "GTD": (2.9, 1.4e-01), "MR": (3.6, 1.5e-02),
            "SHSEL": (4.3, 5.3e-04), "TSEL": (5.0, 1.3e-05)}


def test_published_table_a1_p_values_are_one_sided_demsar():
    ranks = pd.Series({m: r for m, (r, _) in A1_NB_T7.items()})
    h = holm_from_ranks(ranks, 17, "RPV", alternative="one-sided").set_index("method")
    for m, (r, p_paper) in A1_NB_T7.items():
        if p_paper is None:
            continue
        # the printed ranks are rounded to 0.1: the p-value of every rank pair within +-0.05
        se = np.sqrt(6 * 7 / (6 * 17))
        lo = sst.norm.sf((r + 0.05 - (2.2 - 0.05)) / se)
        hi = sst.norm.sf((r - 0.05 - (2.2 + 0.05)) / se)
        # the printed p-values have two significant digits: +-4% covers their rounding
        assert lo <= p_paper * 1.04 and p_paper * 0.96 <= hi, m
        assert lo <= h.loc[m, "p_value"] <= hi
    # two-sided p-values are twice as large: not what the paper printed
    two = holm_from_ranks(ranks, 17, "RPV").set_index("method")
    assert two.loc["HIP", "p_value"] == pytest.approx(2 * h.loc["HIP", "p_value"])


def test_critical_difference_matches_demsar_table():
    # Demsar (2006) Table 5(a): q_0.05 = 2.850 for k = 6, 2.343 for k = 3
    assert critical_difference(6, 17) == pytest.approx(2.850 * np.sqrt(6 * 7 / (6 * 17)), rel=1e-3)
    assert critical_difference(3, 10) == pytest.approx(2.343 * np.sqrt(3 * 4 / 60), rel=1e-3)


def test_bad_input():
    with pytest.raises(ValueError, match="two methods"):
        friedman([[1], [2]])
    with pytest.raises(ValueError, match="control method 'z'"):
        holm_vs_control(HAND, "z")
    # rows with a missing score are dropped before ranking
    t = HAND.copy().astype(float)
    t.loc["extra"] = [np.nan, 1, 2]
    assert friedman(t).n_datasets == 4


# ---------------------------------------------------------------- issue 27: one dataset; what a verdict needs
from selection.evaluation.stats import (  # noqa: E402
    MIN_DATASETS,
    corrected_resampled_ttest,
    verdict_allowed,
)


def test_corrected_resampled_ttest_by_hand():
    # d = (0.1, 0.2, 0.3): mean 0.2, s^2 = 0.01; corrected variance (1/3 + 10/20) * 0.01 = 0.008333
    r = corrected_resampled_ttest([0.9, 0.8, 0.7], [0.8, 0.6, 0.4], n_train=20, n_test=10)
    se = np.sqrt((1 / 3 + 0.5) * 0.01)
    assert r.mean_difference == pytest.approx(0.2) and r.t == pytest.approx(0.2 / se) and r.df == 2
    assert r.pvalue == pytest.approx(2 * sst.t.sf(0.2 / se, 2))
    q = sst.t.ppf(0.975, 2)
    assert (r.ci_low, r.ci_high) == pytest.approx((0.2 - q * se, 0.2 + q * se))


@given(st.lists(st.floats(0, 1), min_size=3, max_size=15), st.integers(0, 10_000))
def test_corrected_ttest_is_the_paired_ttest_widened(a, seed):
    rng = np.random.default_rng(seed)
    a = np.array(a)
    b = np.clip(a + rng.normal(0, 0.1, len(a)), 0, 1)
    if np.allclose(a - b, (a - b)[0]):
        return
    r = corrected_resampled_ttest(a, b, n_train=90, n_test=10)
    plain = corrected_resampled_ttest(a, b, n_train=1e12, n_test=1e-12)  # no overlap term: the plain paired test
    assert plain.pvalue == pytest.approx(float(sst.ttest_rel(a, b).pvalue), rel=1e-6)
    assert r.pvalue >= plain.pvalue - 1e-12 and (r.ci_high - r.ci_low) >= (plain.ci_high - plain.ci_low)
    assert r.ci_low <= r.mean_difference <= r.ci_high
    swapped = corrected_resampled_ttest(b, a, n_train=90, n_test=10)  # antisymmetric
    assert swapped.mean_difference == pytest.approx(-r.mean_difference) and swapped.pvalue == pytest.approx(r.pvalue)


def test_corrected_ttest_edge_cases():
    same = corrected_resampled_ttest([0.7, 0.8], [0.7, 0.8], n_train=9, n_test=1)
    assert (same.mean_difference, same.pvalue, same.differs()) == (0.0, 1.0, False)
    constant = corrected_resampled_ttest([0.8, 0.8], [0.7, 0.7], n_train=9, n_test=1)
    assert constant.pvalue == 0.0 and constant.ci_low == constant.ci_high == pytest.approx(0.1)
    with pytest.raises(ValueError, match="two folds"):
        corrected_resampled_ttest([0.8], [0.7], n_train=9, n_test=1)


def test_verdicts_need_enough_datasets_and_a_rejecting_omnibus_test():
    assert MIN_DATASETS == 11 and not verdict_allowed(10) and verdict_allowed(11)
    # Iman-Davenport is the omnibus verdict: here Friedman does not reject at 0.05 but Iman-Davenport does
    rng = np.random.default_rng(0)
    for _ in range(200):
        t = rng.random((6, 4))
        r = friedman(t)
        if r.pvalue >= 0.05 > r.iman_davenport_pvalue:
            assert r.rejects() and not r.significant()
            break
    else:
        pytest.fail("no table where the two tests disagree")
