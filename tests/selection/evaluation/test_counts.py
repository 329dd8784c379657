"""A table with counts (``--values count``): the Fisher score and scikit-learn selectors are fitted on the counts, the
hierarchical selectors and the binary measures on their presence; the cache tells the two tables apart, and the
report says which read what."""

from __future__ import annotations

import numpy as np
from sklearn.feature_selection import SelectKBest, chi2

from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable
from selection.base import reads_counts
from selection.evaluation.cv import evaluate_table
from selection.evaluation.grid import run_grid, table_fingerprint
from selection.evaluation.plan import plan_evaluation
from selection.flat import FisherScore
from selection.frames import select_features
from selection.hierarchical.shsel import SHSEL


def _table(counts: bool) -> FeatureTable:
    """``a``: every instance has it, class 1 five times, class 0 once (only its count tells the classes apart);
    ``b``: present in 14 of the 20 class-1 instances and 6 of the 20 class-0 ones."""
    n = 40
    y = np.array([1] * 20 + [0] * 20)
    facts = {f"i{i}": ["a"] + (["b"] if (i < 14 or 20 <= i < 26) else []) for i in range(n)}
    h = FeatureHierarchy.from_edges([], nodes=["a", "b"])
    t = FeatureTable.from_facts(facts, h, labels={f"i{i}": y[i] for i in range(n)}, instances=list(facts))
    if not counts:
        return t
    v = t.X.toarray()
    v[:20, 0] = 5
    return t.with_values(v)


def test_which_selectors_read_counts():
    assert reads_counts(FisherScore()) and reads_counts(SelectKBest(chi2))
    assert not reads_counts(SHSEL())


def test_the_fisher_score_reads_the_counts_the_hierarchical_selectors_their_presence():
    pick = lambda t, name, **p: select_features(t, name, p)[1].query("selected")["feature"].tolist()  # noqa: E731
    assert pick(_table(False), "fisher", k=1) == ["b"]  # on presence, a is constant
    assert pick(_table(True), "fisher", k=1) == ["a"]  # its counts separate the classes
    assert pick(_table(True), "shsel-ig-prune") == pick(_table(False), "shsel-ig-prune")


def test_cross_validation_fits_count_readers_on_the_counts_and_the_cache_tells_the_tables_apart(tmp_path):
    binary, counted = _table(False), _table(True)
    assert table_fingerprint(binary) != table_fingerprint(counted)
    sel = [("fisher", {"k": 1})]
    a = evaluate_table(binary, sel, ["nb"], dataset="t", n_splits=4)
    b = evaluate_table(counted, sel, ["nb"], dataset="t", n_splits=4)
    # the classifier reads presence: with a selected (counts) it sees a constant column, with b it learns
    assert b["accuracy"].mean() < a["accuracy"].mean()
    plan = plan_evaluation("basic", ["fisher", "shsel-ig-prune"], ["nb"], n_splits=4)
    res = run_grid({"counted": counted}, plan, out_dir=tmp_path / "E", n_jobs=1)
    assert "counted: the table holds counts (`--values count`)" in res.report.read_text(encoding="utf-8")
