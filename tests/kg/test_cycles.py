"""kg.cycles: edges held as index arrays (EdgeArrays) are the same graph as the pairs they stand for."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.cycles import EdgeArrays, NodeOrder, edge_nodes, indexed_edges
from kg.hierarchy import FeatureHierarchy

NAMES = [f"n{i}" for i in range(8)]
pairs = st.sets(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES)), max_size=20)


def test_a_literal_edge_set():
    e = EdgeArrays(["a", "b", "c", "unused"], [0, 1, 0], [1, 2, 1])  # a duplicate edge is one
    assert len(e) == 2 and sorted(e) == [("a", "b"), ("b", "c")]
    assert e == {("a", "b"), ("b", "c")} and {("a", "b"), ("b", "c")} == e
    assert ("a", "b") in e and ("b", "a") not in e and ("a", "zz") not in e and "ab" not in e
    assert edge_nodes(e) == {"a", "b", "c"}  # a name on no edge is no node
    assert e.used_names() == ["a", "b", "c"] and EdgeArrays(["b", "a"], [0], [1]).used_names() == ["b", "a"]
    assert e | {("c", "d")} == {("a", "b"), ("b", "c"), ("c", "d")}
    assert sorted(e.prefixed("type:")) == [("type:a", "type:b"), ("type:b", "type:c")]


def test_bad_arrays_are_refused():
    with pytest.raises(ValueError, match="out of range"):
        EdgeArrays(["a"], [0], [1])
    with pytest.raises(ValueError, match="differ in shape"):
        EdgeArrays(["a", "b"], [0, 1], [1])
    with pytest.raises(ValueError, match="duplicate name 'a'"):
        EdgeArrays(["a", "b", "a"], [0], [1])
    with pytest.raises(ValueError, match="out of range"):  # a generator's names are taken as distinct, not its indices
        EdgeArrays.from_distinct(["a", "b"], [0, -1], [1, 0])
    with pytest.raises(ValueError, match="differ in shape"):
        EdgeArrays.from_distinct(["a", "b"], [[0]], [[1]])


@settings(max_examples=200, deadline=None)
@given(pairs, st.lists(st.sampled_from(NAMES), unique=True, max_size=5), pairs)
def test_arrays_index_and_build_as_their_pairs(edges, nodes, more):
    arrays = EdgeArrays.from_pairs(sorted(edges))
    assert arrays == edges and len(arrays) == len(edges)
    ids, ci, pi = indexed_edges(arrays, nodes)
    want_ids, want_ci, want_pi = indexed_edges(sorted(edges), nodes)
    assert ids == want_ids and np.array_equal(ci, want_ci) and np.array_equal(pi, want_pi)
    assert EdgeArrays.union([arrays, more]) == edges | more
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for policy in ("break", "merge"):
            built = [FeatureHierarchy.from_edges(e, nodes, on_cycle=policy) for e in (arrays, sorted(edges))]
            assert built[0] == built[1]
            for h in built:  # the look-up's positions (no cycle merged) or a new index (merged): each id's column
                assert h.index == {x: i for i, x in enumerate(h.node_ids.tolist())}


@given(st.lists(st.sampled_from(NAMES), unique=True), st.lists(st.sampled_from(NAMES + ["x", "y"])))
def test_a_node_order_is_every_id_sorted_with_its_position(distinct, more):
    order = NodeOrder.of(distinct, more)
    want = sorted(set(distinct) | set(more))
    assert list(order) == want and order == {x: i for i, x in enumerate(want)}


def test_a_node_order_refuses_repeats_of_its_distinct_ids_and_converts_other_ids():
    with pytest.raises(ValueError, match="duplicate id 'a'"):
        NodeOrder.of(["a", "b", "a"])
    assert NodeOrder.of([2, "10"], [1, "2"]) == {"1": 0, "10": 1, "2": 2}


@settings(max_examples=100, deadline=None)
@given(pairs, st.lists(st.sampled_from(NAMES + ["x", "y"])))
def test_a_node_order_builds_the_hierarchy_of_its_sorted_ids(edges, facts):
    """:func:`kg.rdf.table.hierarchy_nodes` (a NodeOrder, the look-up kept by the hierarchy) gives the hierarchy of
    every id sorted, from pairs or arrays, with ids only in the facts (isolated), cycles broken or merged."""
    from kg.rdf.table import build_hierarchy, hierarchy_nodes

    every = sorted(edge_nodes(edges) | set(facts))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for policy in ("break", "merge"):
            want, _ = build_hierarchy(every, sorted(edges), policy)
            for e in (sorted(edges), EdgeArrays.from_pairs(sorted(edges))):
                h, _ = build_hierarchy(hierarchy_nodes({"i": facts}, e), e, policy)
                assert h == want and h.index == {x: i for i, x in enumerate(h.node_ids.tolist())}


@given(pairs, pairs)
def test_disjoint_parts_concatenate(a, b):
    left = EdgeArrays.from_pairs(sorted(a)).prefixed("out:")
    right = EdgeArrays.from_pairs(sorted(b)).prefixed("in:")
    both = EdgeArrays.disjoint([left, right])
    assert both == set(left) | set(right) and len(both) == len(a) + len(b)
    assert all(e in both for e in set(left) | set(right))  # its keys are searched: sorted across the parts
    assert not any((f"out:{c}", f"in:{p}") in both for c, p in a)
    assert both.names == left.names + right.names


def test_pairs_are_checked_and_ids_that_are_no_strings_take_the_loop(monkeypatch):
    import kg.cycles as module

    with pytest.raises(ValueError, match=r"every edge must be a \(child, parent\) pair"):
        EdgeArrays.from_pairs([("a", "b", "c")])
    with pytest.raises(TypeError, match="edge ids must be strings"):
        EdgeArrays.from_pairs([("a", 1)])
    monkeypatch.setattr(module, "_HASHED_INDEX", 1)  # the factorised path for any list: ints fall back, converted
    ids, ci, pi = indexed_edges([(2, 1), ("a", 1)], None)
    assert ids == ["1", "2", "a"] and ci.tolist() == [1, 2] and pi.tolist() == [0, 0]
    with pytest.raises(ValueError, match=r"every edge must be a \(child, parent\) pair"):
        indexed_edges([("a", "b", "c")], None)
