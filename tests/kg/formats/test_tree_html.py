"""The explorable hierarchy view (issue 27): every shown feature once, its other parents as links, no path listed."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg.formats.tree_html import OPEN_LIMIT, hierarchy_view, shown_nodes, tree_data
from kg.hierarchy import FeatureHierarchy
from tests.strategies import dags


@given(dags(max_nodes=30, max_parents=4), st.data())
def test_every_shown_feature_once_and_its_other_parents_listed(h, data):
    sel = np.array(data.draw(st.lists(st.booleans(), min_size=h.n_nodes, max_size=h.n_nodes)), dtype=bool)
    v = tree_data(h, selected=sel, support=np.arange(h.n_nodes), scores=np.linspace(0, 1, h.n_nodes))
    ids = h.node_ids.tolist()
    # shown = kept + all their ancestors (brute force)
    expected = {ids[i] for i in np.flatnonzero(sel)} | {a for i in np.flatnonzero(sel) for a in h.ancestors(ids[i])}
    assert set(v["id"]) == expected and len(v["id"]) == len(set(v["id"])) == v["n_shown"]
    # each feature is placed once: under its primary parent, or a root
    placed = [k for kids in v["kids"] for k in kids] + v["roots"]
    assert sorted(placed) == list(range(len(v["id"])))
    for k, p in enumerate(v["primary"]):
        parents = {v["id"].index(q) for q in h.parents(v["id"][k])}
        assert (p == -1) == (not parents)
        if p >= 0:
            assert k in v["kids"][p] and set(v["others"][k]) == parents - {p}
            assert h.levels[h.idx(v["id"][p])] == max(h.levels[h.idx(v["id"][q])] for q in parents)  # the deepest
    # one entry per shown edge, never a path: kids + other-parent links = the edges among shown features
    assert sum(map(len, v["kids"])) + sum(map(len, v["others"])) == sum(
        1 for c, p in h.edge_list() if c in expected and p in expected)
    for k, f in enumerate(v["id"]):
        assert v["hidden"][k] == sum(1 for c in h.children(f) if c not in expected)
    assert v["sel"] == [int(sel[h.idx(f)]) for f in v["id"]]


def test_the_kept_features_are_open_at_start_and_the_data_cannot_end_its_script():
    h = FeatureHierarchy.from_edges([("b", "a"), ("c", "b"), ("d", "a")])
    v = tree_data(h, selected=[False, False, True, False])
    assert [v["id"][k] for k in v["open"]] == ["a", "b"]  # the ancestors of c
    page = hierarchy_view(h, selected=[False, False, True, False], names={"c": "</script><b>x"})
    data = page.split('id="kgfs-tree-data">')[1].split("</script>")[0]
    assert json.loads(data.replace("<\\/", "</"))["name"][2] == "</script><b>x"


def test_a_large_selection_opens_only_the_first_level():
    n = 2 * OPEN_LIMIT + 100  # a binary tree: more than OPEN_LIMIT internal features
    h = FeatureHierarchy.from_edges([(f"f{i}", f"f{i // 2}") for i in range(1, n)])
    v = tree_data(h, selected=np.ones(n, bool))
    assert v["open"] == v["roots"] == [0] and shown_nodes(h, np.ones(n, bool)).all()


def test_a_feature_line_carries_its_enrichment_when_given():
    h = FeatureHierarchy.from_edges([("b", "a"), ("c", "a")])
    text = ["enriched in x (p=0.5, q=0.5)", "", "enriched in y (p=0.01, q=0.02)"]
    v = tree_data(h, selected=[False, False, True], enrichment=text)
    assert dict(zip(v["id"], v["enr"])) == {"a": text[0], "c": text[2]}  # b is not shown; "" is no text
    assert tree_data(h, selected=[False, False, True])["enr"] == [None, None]
    page = hierarchy_view(h, selected=[False, False, True], enrichment=text)
    assert "enriched in y (p=0.01, q=0.02)" in page and "D.enr[k]" in page
    with pytest.raises(ValueError, match="enrichment has 2 values for 3 features"):
        tree_data(h, selected=[False, False, True], enrichment=text[:2])
