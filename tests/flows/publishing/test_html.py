"""report.html of a run (flows.publishing.html): the features' class enrichment in the table and the hierarchy."""

from __future__ import annotations

import json
import re

from flows.publishing.html import ENRICHMENT_NOTE, run_html
from kg.hierarchy import FeatureHierarchy
from kg.store import Record
from kg.table import FeatureTable
from selection.evaluation.headline import run_results
from selection.evaluation.html import esc
from selection.frames import select_features, write_selection


def test_the_kept_features_say_where_they_are_enriched_and_the_page_says_once_what_that_is(tmp_path):
    h = FeatureHierarchy.from_edges([("Athlete", "Person"), ("Coach", "Person")])
    facts = {"a": ["Athlete"], "b": ["Athlete"], "c": ["Athlete"], "d": ["Coach"], "e": ["Coach"], "f": ["Person"],
             "g": []}
    labels = {"a": "case", "b": "case", "c": "case", "d": "ctrl", "e": "ctrl", "f": "ctrl", "g": "ctrl"}
    table = FeatureTable.from_facts(facts, h, labels=labels)
    _sel, frame = select_features(table, "complete")
    files = write_selection(frame, tmp_path)
    sel = Record("select", "k", str(tmp_path), files, "h", summary={"n_selected": 3, "n_features": 3})
    tab = Record("table", "t", str(tmp_path), {}, "t", summary={"n_instances": 7, "n_features": 3, "n_edges": 2,
                                                                 "classes": {"case": 3, "ctrl": 4}})
    results = run_results(selection=tmp_path / "selection.csv")
    page = run_html({"table": tab, "select": sel}, {}, {"dataset": "d", "selector": "complete"}, results, table=table)
    # the table: Athlete is in 3 of 3 case instances, p = 1 / C(7,3); q over the 3 features by Benjamini-Hochberg
    kept = page.split("Selection on the whole table</h2>")[1].split("</table>")[0]
    assert "<th>enrichment</th>" in kept
    assert "<td>enriched in case (p=0.029, q=0.086)</td>" in kept
    assert "<td>enriched in ctrl (p=0.29, q=0.43)</td>" in kept
    assert page.count(esc(ENRICHMENT_NOTE)) == 1 and kept.index(esc(ENRICHMENT_NOTE)) < kept.index("<table")
    assert "descriptive statistics on the same data the selection saw" in ENRICHMENT_NOTE
    # the hierarchy view: the same words per feature
    data = json.loads(re.search(r'id="kgfs-tree-data">(.*?)</script>', page).group(1).replace("<\\/", "</"))
    assert dict(zip(data["id"], data["enr"]))["Athlete"] == "enriched in case (p=0.029, q=0.086)"
