"""Report building blocks: tables with the best in bold, failed cells, stats layout, PNG plots."""

import numpy as np
import pandas as pd
import pytest

from selection.evaluation import stats
from selection.evaluation.report import (
    dataset_means,
    markdown_table,
    plot_accuracy_vs_compression,
    plot_cd_diagram,
    plot_per_dataset,
    stats_markdown,
    summarize,
    write_outputs,
)

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
                             "status": "failed" if v is None else "ok", "error": "ValueError: boom" if v is None else "",
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
    s = summarize(_rows(), ["accuracy"], ["accuracy"]).set_index("selector")
    # d3 is left out of the ranks (B failed there): d1 ranks A 2.5 B 1 C 2.5; d2: A 1 B 2 C 3
    assert s.loc["A", "accuracy_rank"] == pytest.approx(1.75)
    assert s.loc["B", "accuracy_rank"] == pytest.approx(1.5)
    assert s.loc["B", "accuracy_wins"] == 1.0 and s.loc["A", "accuracy_wins"] == 1.0
    assert s.loc["B", "failed"] == 1
    assert s.loc["C", "pct_selected_mean"] == pytest.approx(10.0)


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
    r = _rows()
    ranks = pd.Series({"A": 1.2, "B": 2.0, "C": 2.8, "D": 3.5})
    for p in (plot_cd_diagram(ranks, 10, tmp_path / "cd.png", title="cd"),
              plot_accuracy_vs_compression(r, tmp_path / "ac.png"),
              plot_per_dataset(r, "accuracy", "nb", tmp_path / "bars.png")):
        assert p.read_bytes()[:8] == PNG


def test_write_outputs(tmp_path):
    paths = write_outputs(_rows(), tmp_path, metrics=("accuracy", "gm"), rank_metrics=("accuracy",),
                          title="T", notes=["a note"])
    rep = paths["report"].read_text()
    assert rep.startswith("# T") and "- a note" in rep and "failed" in rep
    assert "## % of features selected" in rep
    for p in paths["plots"]:
        assert f"]({p.name})" in rep and p.read_bytes()[:8] == PNG
    assert pd.read_csv(paths["results"]).shape[0] == len(_rows())
