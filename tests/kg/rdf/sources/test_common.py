import networkx as nx
from hypothesis import given
from hypothesis import strategies as st

from kg.rdf.sources.common import MemoCache, edges_within, in_namespaces, resolve_namespaces
from kg.sources import breadth_first_edges

GRAPHS = st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)), max_size=40)  # cycles and self-loops allowed


def reference(edges, start, depth):
    """Edges (u, v) with u at BFS distance < depth from ``start`` (networkx shortest paths)."""
    g = nx.DiGraph()
    g.add_edges_from(edges)
    g.add_nodes_from(start)
    dist = {}
    for s in start:
        for node, d in nx.single_source_shortest_path_length(g, s).items():
            dist[node] = min(d, dist.get(node, d))
    return {(u, v) for u, v in set(edges) if u in dist and (depth is None or dist[u] < depth)}


@given(GRAPHS, st.sets(st.integers(0, 12), max_size=4), st.one_of(st.none(), st.integers(0, 6)))
def test_breadth_first_edges_match_shortest_path_levels(edges, start, depth):
    parents: dict[int, set[int]] = {}
    for u, v in edges:
        parents.setdefault(u, set()).add(v)
    calls = []

    def lookup(nodes):
        calls.append(list(nodes))
        return {n: parents.get(n, set()) for n in nodes}

    got = breadth_first_edges(start, lookup, depth)
    assert got == reference(edges, start, depth)
    seen = [n for c in calls for n in c]
    assert len(seen) == len(set(seen))  # each node expanded at most once: cycles end the walk


def test_memo_cache():
    m = MemoCache()
    m.put({"a": {"x"}})
    known, todo = m.split(["b", "a", "b"])
    assert known == {"a": {"x"}} and todo == ["b"]
    known["a"].add("y")
    assert m.split(["a"])[0] == {"a": {"x"}}  # answers are copies


def test_memo_cache_ask_fetches_each_unknown_key_once():
    m, calls = MemoCache(), []

    def fetch(todo):
        calls.append(todo)
        return {k: {k * 2} for k in todo}

    assert m.ask(["b", "a", "b"], fetch) == {"a": {"aa"}, "b": {"bb"}}
    assert m.ask(["a", "c"], fetch) == {"a": {"aa"}, "c": {"cc"}}
    assert m.ask(["c"], fetch) == {"c": {"cc"}}
    assert calls == [["a", "b"], ["c"]]  # sorted, deduplicated, never the known keys, never empty


def test_edges_within_keeps_edges_with_both_ends_in_the_namespaces():
    ns = ("http://x/", "http://y/")
    edges = {("http://x/a", "http://y/b"), ("http://x/a", "http://z/c"), ("http://z/c", "http://x/a")}
    assert edges_within(edges, ns) == {("http://x/a", "http://y/b")}


def test_namespaces():
    assert resolve_namespaces(None) == ("http://dbpedia.org/ontology/",)
    assert resolve_namespaces(["schema", "http://x/"]) == ("http://schema.org/", "http://x/")
    assert in_namespaces("http://schema.org/Person", ("http://schema.org/",))
