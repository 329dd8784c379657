"""The hierarchy as GraphML and DOT (issue 27): names and selection flags, read back by networkx, pydot, Graphviz."""

from __future__ import annotations

import shutil
import subprocess

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.errors import KgfsError
from kg.formats.graph import read_selection, write_dot, write_graph, write_graphml
from kg.hierarchy import FeatureHierarchy
from tests.strategies import dags

# names a writer must escape: quotes, XML markup, a backslash, a comma, a control character, non-ASCII
ODD = ['a "quoted" <b>&amp;', "back\\slash, comma", "tab\there\x01", "Zürich ünïcode"]


def _h():
    return FeatureHierarchy.from_edges([("GO:2", "GO:1"), ("GO:3", "GO:1"), ("GO:4", "GO:2"), ("GO:4", "GO:3")])


def test_graphml_has_names_flags_attributes_and_edges(tmp_path):
    h = _h()
    names = dict(zip(h.node_ids.tolist(), ODD))
    sel = np.array([False, True, False, True])
    write_graphml(h, tmp_path / "h.graphml", names=names, selected=sel,
                  attributes={"support": np.array([9, 5, 4, 2]), "score": np.array([0.0, 0.5, np.nan, 0.25])})
    g = nx.read_graphml(tmp_path / "h.graphml")
    assert set(g.edges()) == set(h.edge_list())
    assert {n: g.nodes[n]["name"] for n in g} == {k: v.replace("\x01", "") for k, v in names.items()}
    assert [g.nodes[n]["selected"] for n in h.node_ids] == sel.tolist()
    assert g.nodes["GO:1"]["support"] == 9 and g.nodes["GO:2"]["score"] == 0.5 and np.isnan(g.nodes["GO:3"]["score"])


def test_dot_is_read_by_pydot_and_drawn_by_graphviz(tmp_path):
    pydot = pytest.importorskip("pydot")
    h = _h()
    names = dict(zip(h.node_ids.tolist(), ODD))
    p = write_dot(h, tmp_path / "h.dot", names=names, selected=[False, True, False, True],
                  attributes={"support": [9, 5, 4, 2]})
    (g,) = pydot.graph_from_dot_file(str(p))
    edges = {(e.get_source().strip('"'), e.get_destination().strip('"')) for e in g.get_edges()}
    assert edges == set(h.edge_list())
    node = {n.get_name().strip('"'): n for n in g.get_nodes() if n.get_name() not in ("node", "edge", "graph")}
    assert node["GO:2"].get("selected") == '"true"' and node["GO:1"].get("selected") == '"false"'
    assert node["GO:2"].get("fillcolor") == '"#ffd24d"'
    if shutil.which("dot"):  # Graphviz itself (Debian's graphviz)
        svg = subprocess.run(["dot", "-Tsvg", str(p)], capture_output=True, text=True, timeout=60)
        assert svg.returncode == 0, svg.stderr
        assert "Zürich ünïcode" in svg.stdout and "back\\slash, comma" in svg.stdout


@settings(max_examples=40)
@given(dags(max_nodes=25), st.data())
def test_graph_files_round_trip_any_dag(h, data):
    import tempfile
    from pathlib import Path

    sel = np.array(data.draw(st.lists(st.booleans(), min_size=h.n_nodes, max_size=h.n_nodes)), dtype=bool)
    with tempfile.TemporaryDirectory() as d:
        g = nx.read_graphml(write_graph("graphml", h, Path(d) / "h.graphml", selected=sel))
        assert set(g.nodes) == set(h.node_ids.tolist()) and set(g.edges) == set(h.edge_list())
        assert [g.nodes[n]["selected"] for n in h.node_ids] == sel.tolist()
        text = write_graph("dot", h, Path(d) / "h.dot").read_text()
        assert text.count(" -> ") == h.n_edges


def test_read_selection_of_a_run_or_select_output(tmp_path):
    h = _h()
    (tmp_path / "selection.csv").write_text("feature,name,support,score,level,n_parents,selected\n"
                                            "GO:2,two,5,0.5,1,1,True\nGO:1,root,9,0.0,0,0,False\n"
                                            "GO:3,three,4,0.1,1,1,False\nGO:4,,2,0.2,2,2,True\n")
    sel, names, attrs = read_selection(tmp_path / "selection.csv", h)
    assert sel.tolist() == [False, True, False, True] and names == {"GO:2": "two", "GO:1": "root", "GO:3": "three"}
    assert attrs["support"].dtype.kind == "i" and attrs["score"].tolist() == [0.0, 0.5, 0.1, 0.2]
    (tmp_path / "selected_features.csv").write_text("feature,score\nGO:3,0.1\n")  # the kept ones only
    assert read_selection(tmp_path / "selected_features.csv", h)[0].tolist() == [False, False, True, False]
    (tmp_path / "bad.csv").write_text("feature,selected\nGO:9,True\n")
    with pytest.raises(KgfsError, match="1 feature\\(s\\) are not in the table: GO:9 \\(selection\\)$"):
        read_selection(tmp_path / "bad.csv", h)


def test_the_class_enrichment_of_a_selection_file_becomes_node_attributes(tmp_path):
    h = _h()
    (tmp_path / "selected_features.csv").write_text(
        "feature,name,support,score,level,n_parents,enriched_in,p_enrichment,q_enrichment,support_1,support_pro-x\n"
        "GO:2,two,5,0.5,1,1,1,0.01,0.04,5,0\nGO:4,,2,0.2,2,2,,1.0,1.0,0,0\n")
    sel, _names, attrs = read_selection(tmp_path / "selected_features.csv", h)
    assert list(attrs) == ["support", "score", "level", "enriched_in", "p_enrichment", "q_enrichment", "support_1",
                           "support_pro-x"]
    assert attrs["enriched_in"].tolist() == ["", "1", "", ""]  # a label "1" stays text; unlisted and no class: ""
    assert attrs["p_enrichment"].tolist()[1] == 0.01 and np.isnan(attrs["q_enrichment"][0])
    g = nx.read_graphml(write_graphml(h, tmp_path / "h.graphml", selected=sel, attributes=attrs))
    assert g.nodes["GO:2"]["enriched_in"] == "1" and g.nodes["GO:2"]["q_enrichment"] == 0.04
    assert g.nodes["GO:2"]["support_1"] == 5.0 and g.nodes["GO:2"]["support_pro-x"] == 0.0  # NaN elsewhere: doubles
    dot = write_dot(h, tmp_path / "h.dot", selected=sel, attributes=attrs).read_text()
    # an attribute name that is not an identifier is quoted (DOT would stop at the hyphen)
    assert '"support_pro-x"="0.0"' in dot and 'enriched_in="1"' in dot and "support_1=" in dot


def test_pydot_reads_quoted_attribute_names(tmp_path):
    import pydot

    h = _h()
    attrs = {"support_anti-longevity": np.arange(4), "enriched_in": np.array(["a", "", "b-c", "a"], dtype=object)}
    (g,) = pydot.graph_from_dot_data(write_dot(h, tmp_path / "h.dot", attributes=attrs).read_text())
    node = g.get_node('"GO:3"')[0].get_attributes()
    assert node['"support_anti-longevity"'] == '"2"' and node["enriched_in"] == '"b-c"'
