"""selection.csv and selected_features.csv of a whole-table selection: the class enrichment's columns (issue 38)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable
from selection.frames import (
    read_selected,
    select_features,
    select_per_instance,
    write_instance_selection,
    write_selection,
)
from selection.measures.enrichment import class_enrichment

OLD = ["feature", "name", "support", "score", "level", "n_parents"]
ENRICHMENT = ["enriched_in", "p_enrichment", "q_enrichment", "support_case", "support_ctrl"]


@pytest.fixture
def table():
    h = FeatureHierarchy.from_edges([("Athlete", "Person"), ("Coach", "Person")])
    facts = {"a": ["Athlete"], "b": ["Athlete"], "c": ["Athlete"], "d": ["Coach"], "e": ["Coach"], "f": ["Person"],
             "g": []}
    labels = {"a": "case", "b": "case", "c": "case", "d": "ctrl", "e": "ctrl", "f": "ctrl", "g": "ctrl"}
    return FeatureTable.from_facts(facts, h, labels=labels, meta={"term_names": {"Person": "a person"}})


def test_the_columns_after_n_parents_in_both_files(table, tmp_path):
    _sel, frame = select_features(table, "complete")
    write_selection(frame, tmp_path)
    sel = pd.read_csv(tmp_path / "selected_features.csv", dtype={"enriched_in": str}, keep_default_na=False)
    allf = pd.read_csv(tmp_path / "selection.csv", dtype={"enriched_in": str}, keep_default_na=False)
    assert sel.columns.tolist() == OLD + ENRICHMENT and allf.columns.tolist() == OLD + ENRICHMENT + ["selected"]
    by = allf.set_index("feature")
    # by hand: 7 instances, 3 case; Athlete in a, b, c (all case); Coach in d, e (ctrl); Person in a-f
    assert by.loc["Athlete", ["enriched_in", "support_case", "support_ctrl"]].tolist() == ["case", 3, 0]
    assert by.loc["Coach", ["enriched_in", "support_case", "support_ctrl"]].tolist() == ["ctrl", 0, 2]
    assert by.loc["Person", ["enriched_in", "support_case", "support_ctrl"]].tolist() == ["case", 3, 3]  # 3/3 > 3/4
    assert by.loc["Athlete", "p_enrichment"] == pytest.approx(1 / 35)  # C(3,3) / C(7,3)
    assert by.loc["Coach", "p_enrichment"] == pytest.approx(2 / 7)     # C(2,2) C(5,2) / C(7,4) = 10 / 35
    assert by.loc["Person", "p_enrichment"] == pytest.approx(4 / 7)    # C(6,3) C(1,0) / C(7,3) = 20 / 35
    # supports per class add up to the support; the numbers are the module's, the same in both files
    assert (allf["support_case"] + allf["support_ctrl"] == allf["support"]).all()
    e = class_enrichment(table.X, table.y)
    order = [table.feature_names.tolist().index(f) for f in allf["feature"]]
    np.testing.assert_allclose(allf["q_enrichment"], e.q[order], rtol=1e-11)
    pd.testing.assert_frame_equal(sel[ENRICHMENT].reset_index(drop=True),
                                  allf.loc[allf["selected"], ENRICHMENT].reset_index(drop=True))
    assert read_selected(tmp_path / "selected_features.csv") == sel["feature"].tolist()


def test_a_lazy_selection_csv_has_them_too(table, tmp_path):
    _sel, mask = select_per_instance(table, "all-pos")
    write_instance_selection(table, mask, tmp_path)
    cols = pd.read_csv(tmp_path / "selection.csv").columns.tolist()
    assert cols[cols.index("n_parents") + 1:] == ENRICHMENT


def test_integer_labels_name_the_columns_as_the_labels_are(tmp_path):
    t = FeatureTable.from_facts({"a": ["x"], "b": [], "c": ["x"]}, FeatureHierarchy.from_edges([], nodes=["x"]),
                                labels={"a": 1, "b": 0, "c": 0})
    frame = select_features(t, "complete")[1]
    assert frame.columns.tolist()[-3:] == ["support_0", "support_1", "selected"]
    assert frame["enriched_in"].tolist() == ["1"]  # 1 of 1 against 1 of 2
