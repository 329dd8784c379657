"""Report building blocks: tables with the best in bold, failed cells, stats layout, PNG plots."""

import numpy as np
import pandas as pd
import pytest

from selection.evaluation import stats
from selection.evaluation.report import (
    ReportSettings,
    dataset_means,
    markdown_table,
    plot_accuracy_vs_compression,
    plot_cd_diagram,
    plot_per_dataset,
    summarize,
    write_outputs,
)
from selection.evaluation.significance import stats_markdown

PNG = b"\x89PNG\r\n\x1a\n"


def _rows():
    """Literal results: 3 datasets x 3 methods x 1 classifier x 2 folds; B fails once on d3."""
    acc = {"d1": {"A": (0.5, 0.7), "B": (0.8, 0.8), "C": (0.6, 0.6)},
           "d2": {"A": (0.9, 0.9), "B": (0.7, 0.9), "C": (0.5, 0.7)},
           "d3": {"A": (0.4, 0.6), "B": (0.9, None), "C": (0.3, 0.3)}}
    rows = []
    for d, per in acc.items():
        for m, vals in per.items():
            for f, v in enumerate(vals):
                rows.append({"dataset": d, "selector": m, "classifier": "nb", "fold": f,
                             "accuracy": np.nan if v is None else v, "gm": np.nan if v is None else v,
                             "compression": {"A": 0.0, "B": 0.5, "C": 0.9}[m], "select_seconds": 0.01,
                             "status": "failed" if v is None else "ok",
                             "error": "ValueError: boom" if v is None else "",
                             "pos_label": "1", "threshold": np.nan})
    return pd.DataFrame(rows)


def test_dataset_means_and_failed_cells():
    t = dataset_means(_rows(), "accuracy", "nb")
    assert t.index.tolist() == ["d1", "d2", "d3"] and t.columns.tolist() == ["A", "B", "C"]
    assert t.loc["d1", "A"] == pytest.approx(0.6)
    assert np.isnan(t.loc["d3", "B"])  # one failed fold: the cell is failed, not a mean of the rest


def test_markdown_table_bold_best_and_failed():
    t = dataset_means(_rows(), "accuracy", "nb")
    md = markdown_table(t, extra_rows={"Avg. Rank": pd.Series({"A": 1.5, "B": 2.0, "C": 2.5})})
    lines = md.splitlines()
    assert lines[0] == "| Dataset | A | B | C |"
    assert lines[2] == "| d1 | 0.600 | **0.800** | 0.600 |"
    assert lines[3] == "| d2 | **0.900** | 0.800 | 0.600 |"
    assert lines[4] == "| d3 | **0.500** | failed | 0.300 |"
    assert lines[5] == "| *Avg. Rank* | 1.50 | 2.00 | 2.50 |"
    low = markdown_table(t, higher_is_better=False)
    assert "| d1 | **0.600** | 0.800 | **0.600** |" in low


def test_summary_ranks_use_complete_datasets():
    s = summarize(_rows(), ["accuracy"], ["accuracy"])
    assert s[["dataset", "selector", "classifier"]].values.tolist() == [
        [d, m, "nb"] for d in ("d1", "d2", "d3") for m in "ABC"]
    by = s.set_index(["dataset", "selector"])
    # d3 is left out of the ranks (B failed there): d1 ranks A 2.5 B 1 C 2.5; d2: A 1 B 2 C 3
    assert by.loc[("d1", "A"), "accuracy_rank"] == 2.5 and by.loc[("d1", "B"), "accuracy_rank"] == 1.0
    assert by.loc[("d2", "C"), "accuracy_rank"] == 3.0 and by["accuracy_rank"].loc["d3"].isna().all()
    per = s.drop_duplicates("selector").set_index("selector")  # the same on every dataset's row
    assert per.loc["A", "accuracy_avg_rank"] == pytest.approx(1.75)
    assert per.loc["B", "accuracy_avg_rank"] == pytest.approx(1.5)
    assert per.loc["B", "accuracy_wins"] == 1.0 and per.loc["A", "accuracy_wins"] == 1.0
    assert s.groupby("selector")["failed"].sum()["B"] == 1 and by.loc[("d3", "B"), "folds"] == 1
    assert by.loc[("d3", "B"), "accuracy"] == pytest.approx(0.9)  # the successful fold
    assert per.loc["C", "pct_selected"] == pytest.approx(10.0)
    assert by.loc[("d1", "A"), "accuracy_sd"] == pytest.approx(np.std([0.5, 0.7], ddof=1))


def test_summary_of_one_dataset_has_no_cross_dataset_columns():
    one = _rows()[lambda r: r["dataset"] == "d1"]
    s = summarize(one, ["accuracy"], ["accuracy"])
    assert s["accuracy_rank"].tolist() == [2.5, 1.0, 2.5]
    assert "accuracy_avg_rank" not in s and "accuracy_wins" not in s
    assert s["folds"].tolist() == [2, 2, 2] and s["failed"].tolist() == [0, 0, 0]


def test_stats_markdown_in_table_a1_layout():
    rows = _rows()
    rows = rows[rows["dataset"] != "d3"]
    more = rows.assign(dataset=rows["dataset"] + "x")
    r = pd.concat([rows, more])
    md = stats_markdown(r, ["accuracy"], control="B")
    assert "| Methods | Avg. Rank | p-value | adjusted α | Sig? |" in md
    assert "| B (control) | 1.50 | | | |" in md
    t = dataset_means(r, "accuracy", "nb")
    fr = stats.friedman(t)
    assert f"Friedman's X²_F = {fr.statistic:.2f}" in md
    h = stats.holm_vs_control(t, "B").set_index("method")
    assert f"| A | {h.loc['A', 'avg_rank']:.2f} | {h.loc['A', 'p_value']:.1E} |" in md


def test_plots_are_pngs(tmp_path):
    import sys

    r = _rows()
    ranks = pd.Series({"A": 1.2, "B": 2.0, "C": 2.8, "D": 3.5})
    for p in (plot_cd_diagram(ranks, 10, tmp_path / "cd.png", title="cd"),
              plot_accuracy_vs_compression(r, tmp_path / "ac.png"),
              plot_per_dataset(r, "accuracy", "nb", tmp_path / "bars.png")):
        assert p.read_bytes()[:8] == PNG
    # outside pyplot: no backend switch, no figure left open
    assert "matplotlib.pyplot" not in sys.modules or sys.modules["matplotlib.pyplot"].get_fignums() == []


def test_plots_leave_matplotlib_global_state_alone(tmp_path):
    import subprocess
    import sys

    code = ("import sys, matplotlib, pandas as pd\n"
            "before = dict.__getitem__(matplotlib.rcParams, 'backend')\n"
            "from selection.evaluation.report import plot_cd_diagram\n"
            f"plot_cd_diagram(pd.Series({{'A': 1.0, 'B': 2.0}}), 5, {str(tmp_path / 'cd.png')!r})\n"
            "print('matplotlib.pyplot' in sys.modules, dict.__getitem__(matplotlib.rcParams, 'backend') == before)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "True"]
    assert (tmp_path / "cd.png").read_bytes()[:8] == PNG


def test_write_outputs(tmp_path):
    paths = write_outputs(_rows(), tmp_path, metrics=("accuracy", "gm"), rank_metrics=("accuracy",),
                          settings=ReportSettings(title="T"), notes=["a note"])
    rep = paths["report"].read_text()
    assert rep.startswith("# T") and "- a note" in rep and "failed" in rep
    assert "## % of features selected" in rep
    for p in paths["plots"]:  # under plots/, and linked there (issue 27: the links of report.md were dead)
        assert p.parent == tmp_path / "plots" and f"](plots/{p.name})" in rep and p.read_bytes()[:8] == PNG
    assert pd.read_csv(paths["results"]).shape[0] == len(_rows())


# ---------------------------------------------------------------- what a person reads first (headline)
from selection.evaluation.headline import headline, kept_features, run_results, selection_warnings  # noqa: E402


def test_headline_has_the_first_columns_rounded_with_their_spread():
    s = pd.DataFrame({"dataset": "d", "selector": ["shsel", "complete"], "classifier": "nb", "folds": [10, 9],
                      "failed": [0, 1], "n_features": [699.0, 699.0], "n_selected": [113.1, 699.0],
                      "n_selected_sd": [5.4457, 0.0], "accuracy": [0.708974358974359, 0.70064],
                      "accuracy_sd": [0.126816, 0.107776], "auroc": [0.713981, np.nan], "auroc_sd": [0.1637, np.nan],
                      "aucpr": [0.58, 0.52], "gm": [0.55, 0.53], "compression": [0.84, 0.0]})
    h = headline(s)
    assert list(h.columns) == ["selector", "classifier", "features kept (CV mean)", "accuracy", "AUROC", "folds"]
    assert h.iloc[0].tolist() == ["shsel", "nb", "113 ± 5 of 699", "0.709 ± 0.127", "0.714 ± 0.164", "10"]
    assert h.iloc[1].tolist() == ["complete", "nb", "699 ± 0 of 699", "0.701 ± 0.108", "-", "9 (1 failed)"]
    # several datasets: the dataset comes first
    two = headline(pd.concat([s, s.assign(dataset="e")], ignore_index=True))
    assert list(two.columns)[0] == "dataset" and len(two) == 4


def _frame(selected, n_parents, support, names=None):
    return pd.DataFrame({"feature": [f"GO:{i}" for i in range(len(selected))],
                         "name": names or [f"t{i}" for i in range(len(selected))], "support": support,
                         "score": np.linspace(0.1, 0.9, len(selected)), "level": n_parents,
                         "n_parents": n_parents, "selected": selected})


def test_degenerate_selections_are_named():
    ok = _frame([True, True, False], [0, 1, 1], [102, 40, 3])
    assert selection_warnings(ok, 102) == []
    assert selection_warnings(_frame([False, False], [0, 1], [5, 3]), 10) == [
        "no feature was kept: the selection is empty"]
    roots = selection_warnings(_frame([True, True, False], [0, 0, 1], [102, 40, 3], ["bp", "cc", "x"]), 102)
    assert roots == ["only roots of the hierarchy were kept (2: GO:0 bp, GO:1 cc): the selection says nothing "
                     "below the top"]
    const = selection_warnings(_frame([True, True, False], [1, 1, 0], [102, 0, 3]), 102)
    assert const == ["every kept feature is constant over the instances (GO:0 t0, GO:1 t1): no classifier can "
                     "use them"]
    # the MM-BPMFCC case of issue 17: three GO roots kept, one of them in every gene
    both = selection_warnings(_frame([True] * 3 + [False], [0, 0, 0, 1], [102, 102, 102, 5]), 102)
    assert len(both) == 2
    # a flat table (no edges: every feature a root) is not "only roots"
    assert selection_warnings(_frame([True, False], [0, 0], [5, 3]), 10) == []


def test_kept_features_by_score_rounded_and_limited():
    f = _frame([True, False, True, True], [0, 1, 1, 2], [9, 8, 7, 6])
    k = kept_features(f, limit=2)
    assert list(k.columns) == ["feature", "name", "support", "score", "level"]
    assert list(k["feature"]) == ["GO:3", "GO:2"]
    assert k["score"].tolist() == [0.9, 0.6333]


def test_run_results_read_the_runs_files(tmp_path):
    _frame([True, False], [0, 1], [5, 3]).to_csv(tmp_path / "selection.csv", index=False)
    pd.DataFrame({"dataset": "d", "selector": ["A"], "classifier": "nb", "folds": [3], "failed": [0],
                  "accuracy": [0.5], "accuracy_sd": [0.1]}).to_csv(tmp_path / "summary.csv", index=False)
    res = run_results(summary=tmp_path / "summary.csv", selection=tmp_path / "selection.csv", n_instances=5)
    assert res["headline"] == [{"selector": "A", "classifier": "nb", "accuracy": "0.500 ± 0.100", "folds": "3"}]
    assert [r["feature"] for r in res["kept"]] == ["GO:0"] and len(res["warnings"]) == 2  # a root, in every instance
    assert run_results() == {"headline": [], "kept": [], "warnings": []}


# ---------------------------------------------------------------- issue 27: baseline, spread, statistics, plots
from selection.evaluation.baseline import BASELINE, majority_baseline  # noqa: E402
from selection.evaluation.plots import metric_vs_compression_figure, per_dataset_figure  # noqa: E402
from selection.evaluation.report import report_markdown  # noqa: E402
from selection.evaluation.significance import stats_blocks  # noqa: E402


def _grid(n_datasets, effect, seed=0, folds=5):
    """n datasets x methods A, B, C x nb x folds; B is better than A by ``effect`` on every dataset."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(n_datasets):
        for m, shift in (("A", 0.0), ("B", effect), ("C", effect / 2)):
            for f in range(folds):
                acc = float(np.clip(0.6 + shift + rng.normal(0, 0.02), 0, 1))
                rows.append({"dataset": f"d{d}", "selector": m, "classifier": "nb", "fold": f, "accuracy": acc,
                             "compression": 0.5, "n_train": 80, "n_test": 20, "status": "ok", "error": "",
                             "degenerate": ""})
    return pd.DataFrame(rows)


def test_post_hoc_verdicts_only_when_the_omnibus_test_rejects_with_enough_datasets():
    strong = stats_blocks(_grid(12, 0.2), ["accuracy"], control="A")[0]
    assert strong["kind"] == "ranks" and strong["friedman"].rejects() and not strong["exploratory"] and strong["cd"]
    assert {r["verdict"] for r in strong["rows"][1:]} == {"Yes"} and strong["warnings"][0].startswith("k = 3 methods")
    # no effect: the omnibus test does not reject, and no "Sig? Yes" may appear
    none = stats_blocks(_grid(12, 0.0, seed=1), ["accuracy"], control="A")[0]
    assert not none["friedman"].rejects() and none["exploratory"] and not none["cd"]
    assert {r["verdict"] for r in none["rows"][1:]} == {"exploratory"}
    assert any("does not reject" in w for w in none["warnings"])
    md = stats_markdown(_grid(12, 0.0, seed=1), ["accuracy"], control="A")
    assert "| Yes |" not in md and "Sig? = differs" not in md and "*Exploratory*" in md
    # the case: 2 datasets, 3 methods: a warning, exploratory, no CD verdict, even when it would reject
    two = stats_blocks(_grid(2, 0.3), ["accuracy"], control="A")[0]
    assert two["exploratory"] and not two["cd"] and "only 2 datasets" in two["warnings"][0]


def test_one_dataset_is_compared_over_its_folds_against_the_control_and_the_baseline():
    r = _grid(1, 0.2, folds=10)
    base = majority_baseline(np.array([0] * 70 + [1] * 30), dataset="d0", n_splits=10, n_features=5)
    b = stats_blocks(r, ["accuracy"], control="A", baseline=base)[0]
    assert b["kind"] == "paired" and b["control"] == "A"
    pairs = [(x["method"], x["against"]) for x in b["rows"]]
    assert pairs == [("B", "A"), ("C", "A"), ("A", "majority class (prior)"), ("B", "majority class (prior)"),
                     ("C", "majority class (prior)")]
    ba = b["rows"][0]
    assert ba["mean_difference"] == pytest.approx(0.2, abs=0.03) and ba["verdict"] == "B better than A"
    assert ba["ci_low"] < ba["mean_difference"] < ba["ci_high"] and ba["p_holm"] >= ba["p_value"]
    md = report_markdown(r, ["accuracy"], ["accuracy"], title="T", baseline=base)
    assert "Avg. Rank" not in md and "#Win" not in md  # ranks over one dataset say nothing
    assert "| Dataset | A | B | C | *majority class (prior)* |" in md and "| d0 | 0.6" in md and " ± 0.0" in md
    assert "*0.700*" in md  # the baseline: 70% majority


def test_summary_has_the_baseline_row_and_the_report_marks_degenerate_cells():
    r = _grid(1, 0.1, folds=4)
    r.loc[r["selector"] == "C", "degenerate"] = "only roots"
    base = majority_baseline(np.array([0] * 6 + [1] * 2), dataset="d0", n_splits=4, n_features=5)
    s = summarize(r, ["accuracy"], ["accuracy"], baseline=base)
    assert s["selector"].tolist() == ["A", "B", "C", BASELINE]
    assert s["degenerate"].tolist() == ["", "", "only roots (4/4 folds)", ""]
    md = report_markdown(r, ["accuracy"], ["accuracy"], title="T", baseline=base)
    assert "† Degenerate selection" in md and "- d0 / C / nb: only roots (4/4 folds)" in md
    assert md.count(" †") == 2  # accuracy and % selected


def test_plots_show_the_spread_the_baseline_and_the_whole_axis():
    r = _grid(1, 0.1, folds=5)
    base = majority_baseline(np.array([0] * 7 + [1] * 3), dataset="d0", n_splits=5, n_features=5)
    fig = metric_vs_compression_figure(r, metric="accuracy", baseline=base)
    ax = fig.axes[0]
    assert ax.get_ylim() == (-0.02, 1.02) and ax.get_xlim() == (-0.02, 1.02)
    assert "axis from 0 to 1" in ax.get_ylabel()
    assert len(ax.containers) == 3  # one error bar per method
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(lab.startswith("majority class (prior) 0.700") for lab in labels)
    bars = per_dataset_figure(r, "accuracy", "nb", baseline=base).axes[0]
    assert bars.get_ylim() == (-0.02, 1.02)
    assert sum(type(c).__name__ == "ErrorbarContainer" for c in bars.containers) == 3  # ± sd on every bar group
    # a degenerate method is said so in the legend
    r.loc[r["selector"] == "C", "degenerate"] = "empty"
    ax = metric_vs_compression_figure(r, metric="accuracy").axes[0]
    assert "C / nb (degenerate selection)" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_every_ranked_measure_is_plotted_and_only_allowed_cd_diagrams(tmp_path):
    from selection.evaluation.report import write_plots

    r = _grid(2, 0.2).assign(gm=lambda d: d["accuracy"])
    names = [p.name for p in write_plots(r, tmp_path, rank_metrics=["gm", "accuracy"],
                                         blocks=stats_blocks(r, ["gm", "accuracy"]))]
    assert names == ["bars_gm_nb.png", "gm_vs_compression.png", "bars_accuracy_nb.png", "accuracy_vs_compression.png"]
    r12 = _grid(12, 0.2)
    names = [p.name for p in write_plots(r12, tmp_path, rank_metrics=["accuracy"],
                                         blocks=stats_blocks(r12, ["accuracy"]))]
    assert names[0] == "cd_accuracy_nb.png"


def test_write_outputs_splits_the_baseline_rows_and_writes_report_html(tmp_path):
    r = _grid(1, 0.1, folds=4)
    base = majority_baseline(np.array([0] * 6 + [1] * 2), dataset="d0", n_splits=4, n_features=5)
    paths = write_outputs(pd.concat([r, base], ignore_index=True), tmp_path, metrics=["accuracy"],
                          rank_metrics=["accuracy"], settings=ReportSettings(plots=False))
    assert len(pd.read_csv(paths["results"])) == len(r) and len(pd.read_csv(paths["baseline"])) == 4
    assert pd.read_csv(paths["summary"])["selector"].tolist()[-1] == BASELINE
    html = paths["html"].read_text()
    assert html.startswith("<!DOCTYPE html>") and 'class="baseline"' in html and "corrected resampled t-test" in html


# --------------------------------------------------------------------------- issue 38: bold, order, answer, names
from selection.evaluation.html import measures_section  # noqa: E402
from selection.evaluation.tables import BOLD_RULE, best_cells, metric_names, unbeaten_note  # noqa: E402


def test_bold_marks_the_best_only_among_methods_above_the_baseline():
    """The issue's case: 0.709 is not bold beside the baseline's 0.717; a row where none is above says so."""
    t = pd.DataFrame({"shsel": [0.709, 0.90], "complete": [0.701, 0.80]}, index=["DM-BP", "d2"])
    base = pd.Series({"DM-BP": 0.717, "d2": 0.85})
    md = markdown_table(t, baseline=base).splitlines()
    assert md[2] == "| DM-BP | 0.709 | 0.701 | *0.717* |"
    assert md[3] == "| d2 | **0.900** | 0.800 | *0.850* |"
    assert unbeaten_note(t, base) == "No method is above the majority-class baseline on DM-BP: nothing is bold there."
    # equal to the baseline is not above it; without a baseline the best is bold as before
    assert not best_cells(t, pd.Series({"DM-BP": 0.709, "d2": 0.95})).to_numpy().any()
    assert best_cells(t).to_numpy().tolist() == [[True, False], [True, False]]
    assert unbeaten_note(t, pd.Series({"DM-BP": 0.8, "d2": 0.95})) == \
        "No method is above the majority-class baseline here: nothing is bold."


def test_report_md_and_html_say_so_instead_of_bolding():
    r = _grid(1, -0.05, folds=10)  # every method around 0.55-0.6, the baseline 0.7
    base = majority_baseline(np.array([0] * 70 + [1] * 30), dataset="d0", n_splits=10, n_features=5)
    md = report_markdown(r, ["accuracy"], ["accuracy"], title="T", baseline=base)
    acc = md.split("## Classification accuracy -- nb")[1].split("\n## ")[0]
    assert "**" not in acc and "*No method is above the majority-class baseline here: nothing is bold.*" in acc
    assert BOLD_RULE in md
    html = measures_section(r, ["accuracy"], base)
    acc = html.split("Classification accuracy -- nb")[1].split("<h3>")[0]
    assert 'class="best"' not in acc and "No method is above the majority-class baseline here" in acc
    # % selected has no baseline column: its best (the fewest) is bold as before
    assert "**" in md.split("## % of features selected")[1]


def test_summary_has_each_datasets_baseline_after_its_methods():
    r = _grid(3, 0.1, folds=4)
    base = pd.concat([majority_baseline(np.array([0] * 6 + [1] * 2), dataset=f"d{d}", n_splits=4, n_features=5)
                      for d in range(3)], ignore_index=True)
    s = summarize(r, ["accuracy"], ["accuracy"], baseline=base)
    assert list(zip(s["dataset"], s["selector"])) == [
        (f"d{d}", m) for d in range(3) for m in ("A", "B", "C", BASELINE)]


def test_write_outputs_writes_answer_json_and_the_report_opens_with_the_answer(tmp_path):
    import json

    r = _grid(1, 0.1, folds=10)
    base = majority_baseline(np.array([0] * 70 + [1] * 30), dataset="d0", n_splits=10, n_features=5)
    said = lambda vs: [f"{v.dataset}: best {v.selector} + {v.classifier}, {v.outcome}" for v in vs]  # noqa: E731
    paths = write_outputs(pd.concat([r, base], ignore_index=True), tmp_path, metrics=["accuracy"],
                          rank_metrics=["accuracy"], settings=ReportSettings(plots=False, answer=said))
    answer = json.loads(paths["answer"].read_text())
    assert answer["measure"] == "accuracy" and [d["selector"] for d in answer["datasets"]] == ["B"]
    assert answer["sentences"] == [f"d0: best B + nb, {answer['datasets'][0]['outcome']}"]
    lines = paths["report"].read_text().splitlines()
    assert lines[0] == "# Evaluation report" and lines[2] == f"**{answer['sentences'][0]}**"
    body = paths["html"].read_text().split("<body>")[1]
    assert body.index('class="answer"') < body.index("<nav") and answer["sentences"][0] in body
    # without a wording only the numbers
    plain = write_outputs(pd.concat([r, base], ignore_index=True), tmp_path / "p", metrics=["accuracy"],
                          rank_metrics=["accuracy"], settings=ReportSettings(plots=False))
    assert "sentences" not in json.loads(plain["answer"].read_text())


def test_multiclass_measures_name_their_averaging_and_no_positive_class(tmp_path):
    """A 4-class task (the CoDEx case): macro one-vs-rest AUROC/AUCPR, GM over the classes' recalls, as
    selection.evaluation.metrics computes them; the report claims no positive class."""
    from kg.hierarchy import FeatureHierarchy
    from kg.table import FeatureTable
    from selection.evaluation.grid import run_grid
    from selection.evaluation.plan import plan_evaluation

    rng = np.random.default_rng(0)
    h = FeatureHierarchy.from_edges([("b", "a")], nodes=["a", "b", "c", "d"])
    labels = {f"i{i}": ["France", "Italy", "Spain", "Peru"][i % 4] for i in range(40)}
    facts = {i: [f for f in ("b", "c", "d") if rng.random() < 0.5] for i in labels}
    t = FeatureTable.from_facts(facts, h, labels=labels)
    res = run_grid({"codex": t}, plan_evaluation("basic", ["complete"], ["nb"], n_splits=4), out_dir=tmp_path,
                   n_jobs=1, report=ReportSettings(plots=False))
    md = res.report.read_text()
    assert "Positive class" not in md and "no positive class" in md
    assert "## AUROC (macro average of the one-vs-rest AUROCs over the classes) -- nb" in md
    assert "## GM (geometric mean of the per-class recalls) -- nb" in md
    assert "## AUCPR (macro average of the one-vs-rest AUCPRs over the classes) -- nb" in res.stats.read_text()
    html = res.html.read_text()
    assert "Positive class" not in html and "macro average of the one-vs-rest AUROCs" in html
    # the baseline's macro AUCPR is the mean of the class shares (1/4 here), not one class's share
    b = pd.read_csv(res.baseline)
    assert b["aucpr"].mean() == pytest.approx(0.25, abs=0.01)
    # results.csv and baseline.csv name no positive class either
    assert pd.read_csv(res.results)["pos_label"].isna().all() and b["pos_label"].isna().all()
    # binary and multi-class datasets together: both forms named
    assert "binary: of the positive class; multi-class: macro" in metric_names([2, 4])["auroc"]
