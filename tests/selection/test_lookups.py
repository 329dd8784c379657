"""Each registry name is looked up once on its way to the fitted estimator (issue 34): the planner and the
whole-table selection resolve a name to its entry and pass the entry on. Counted on selection.registry._lookup,
the one function that reads the registry's tables."""

from __future__ import annotations

import collections

import pytest

import selection.registry as registry
from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable
from selection.evaluation.plan import plan_evaluation
from selection.frames import select_features
from selection.param_routing import whole_table_params


@pytest.fixture
def lookups(monkeypatch):
    counted = collections.Counter()
    real = registry._lookup

    def counting(table, name, what):
        counted[what, name] += 1
        return real(table, name, what)

    monkeypatch.setattr(registry, "_lookup", counting)
    return counted


def test_the_planner_looks_up_each_name_once(lookups):
    plan = plan_evaluation("basic", ["shsel-ig-prune", ("sig", {"k": 3}), "complete"], ["nb", "knn"],
                           params={"threshold": 0.9, "knn.n_neighbors": 3}, n_splits=3)
    assert [s.label for s in plan.selectors] == ["shsel-ig-prune[threshold=0.9]", "sig[k=3,threshold=0.9]", "complete"]
    assert [c.label for c in plan.classifiers] == ["nb", "knn[n_neighbors=3]"]
    assert lookups == {("selector", "shsel-ig-prune"): 1, ("selector", "sig"): 1, ("selector", "complete"): 1,
                       ("classifier", "nb"): 1, ("classifier", "knn"): 1}


def test_whole_table_params_and_selection_look_up_the_selector_once_each(lookups):
    assert whole_table_params("shsel-ig-prune", {"threshold": 0.9}) == {"threshold": 0.9}
    assert lookups == {("selector", "shsel-ig-prune"): 1}
    t = FeatureTable.from_facts({"a": ["x"], "b": []}, FeatureHierarchy.from_edges([], nodes=["x"]),
                                labels={"a": 1, "b": 0})
    entry = registry.selector_entry("complete")
    select_features(t, entry)  # an entry resolved before: not looked up again
    assert lookups == {("selector", "shsel-ig-prune"): 1, ("selector", "complete"): 1}
    select_features(t, "complete")
    assert lookups[("selector", "complete")] == 2
