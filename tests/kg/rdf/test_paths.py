"""The paths kind (kg.rdf.paths): literal examples, and the generator against brute force on random graphs."""

from __future__ import annotations

import numpy as np
import pytest
import rdflib
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.errors import ParameterError
from kg.features import KGFeatures
from kg.hierarchy import FeatureHierarchy
from kg.rdf.kinds import FeatureSpec, parse_kinds
from kg.rdf.paths import PathOptions, _group_sum, is_path_id, parse_path_id, path_edges, path_features, path_id, short
from kg.rdf.sources.rdflib_graph import RdflibSource
from kg.rdf.vocabulary import Vocabulary
from kg.table import FeatureTable
from tests.strategies import small_graphs

X = "http://x/"
VOCAB = Vocabulary("x", type_namespaces=(X,), relations=(X,))

# a person, two papers, their co-authors and the group that publishes one of them
TTL = """
@prefix x: <http://x/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
x:ann x:wrote x:paper1 , x:paper2 .  x:bob x:wrote x:paper1 .  x:cat x:wrote x:paper2 .
x:group1 x:publishes x:paper1 .
x:paper1 a x:Article .  x:paper2 a x:Report .  x:Article rdfs:subClassOf x:Publication .
x:Report rdfs:subClassOf x:Publication .
x:wrote rdfs:subPropertyOf x:contributed .
"""


def source(text=TTL, fmt="turtle"):
    return RdflibSource(rdflib.Graph().parse(data=text, format=fmt), vocabulary=VOCAB)


def shorts(fs):
    return sorted(short(f) for f in fs)


# ------------------------------------------------------------------------------------------- ids
def test_ids_read_back():
    steps = (("out", X + "p?a=b"), ("in", X + "q"))
    for c, o in [(None, None), (X + "C", None), (None, X + "o=1")]:
        assert parse_path_id(path_id(steps, c, o)) == (steps, c, o)
    assert parse_path_id(X + "C") is None and parse_path_id("type:" + X + "C") is None
    assert not is_path_id(f"out:{X}p|{X}C") and is_path_id(f"out:{X}p|={X}o")


def test_options_are_checked():
    with pytest.raises(ParameterError, match="depth=0: paths are 1 to 3"):
        PathOptions(depth=0)
    with pytest.raises(ParameterError, match="depth=2 is the length of paths"):
        FeatureSpec.of("qualified-relations", depth=2)
    assert parse_kinds(["relations", "paths", "qualified-relations"]) == ("paths",)


# ------------------------------------------------------------------------------------------- literal example
def test_two_hops_with_objects_and_classes():
    per, counts, report = path_features([X + "ann"], source(), options=PathOptions(depth=2, direction="both"))
    got = shorts(per[X + "ann"])
    assert {"out:wrote", "out:wrote|Article", "out:wrote|Publication", "out:wrote|=paper1",
            "out:wrote>in:wrote", "out:wrote>in:wrote|=bob", "out:wrote>in:wrote|=cat",
            "out:wrote>in:publishes|=group1"} <= set(got)
    assert "out:wrote>in:wrote|=ann" not in got  # never back to the start
    assert counts[X + "ann"][f"out:{X}wrote|{X}Publication"] == 2  # two papers
    assert counts[X + "ann"][f"out:{X}wrote"] == 2
    assert report["generated_total"] >= report["kept_total"] == len(got)


def test_the_hierarchy_says_what_the_features_mean():
    fs = [f"out:{X}wrote>in:{X}wrote|={X}bob", f"out:{X}wrote|={X}paper1"]
    edges = {(short(c), short(p)) for c, p in path_edges(fs, source())}
    assert ("out:wrote|=paper1", "out:wrote|Article") in edges  # an object implies its classes
    assert ("out:wrote|Article", "out:wrote|Publication") in edges and ("out:wrote|Publication", "out:wrote") in edges
    assert ("out:wrote>in:wrote|=bob", "out:wrote>in:wrote") in edges  # bob has no class
    assert ("out:wrote>in:wrote", "out:wrote") in edges  # a longer path implies its prefix
    assert ("out:wrote>in:wrote", "out:contributed>in:wrote") in edges  # a subproperty its property
    assert ("out:wrote>in:wrote", "out:wrote>in:contributed") in edges
    assert ("out:contributed>in:wrote", "out:contributed") in edges


def test_min_support_prunes_while_generating():
    ents = [X + "ann", X + "bob", X + "cat"]
    every, _, r1 = path_features(ents, source(), options=PathOptions(depth=2, direction="both"))
    two, _, r2 = path_features(ents, source(), options=PathOptions(depth=2, direction="both", prune=2))
    support = {}
    for fs in every.values():
        for f in fs:
            support[f] = support.get(f, 0) + 1
    assert {f for fs in two.values() for f in fs} == {f for f, k in support.items() if k >= 2}
    assert r2["kept_total"] < r1["kept_total"]
    # weights: an entity standing for two rows makes its own features frequent
    heavy, _, _ = path_features(ents, source(), options=PathOptions(depth=2, direction="both", prune=2),
                                weights={X + "cat": 2})
    assert f"out:{X}wrote|={X}paper2" in heavy[X + "cat"]


def test_hubs_are_not_walked_through():
    text = "".join(f"<{X}e{i}> <{X}p> <{X}hub> .\n" for i in range(5))
    per, _, report = path_features([X + "e0"], source(text, "nt"),
                                   options=PathOptions(depth=2, direction="both", max_fanout=3))
    assert report["hubs"] == 1 and "hub" in report["hub_examples"][0]
    assert shorts(per[X + "e0"]) == ["out:p", "out:p|=hub"]


# ------------------------------------------------------------------------------------------- brute force
def brute_force(triples, types, class_edges, entities, depth, walks=None):
    """Every walk of every entity, enumerated: the features and their supports (and, into ``walks``, how many
    walks stand behind each feature of each entity)."""
    out_e, in_e = {}, {}
    for s, p, o in triples:
        out_e.setdefault(s, []).append((("out", p), o))
        in_e.setdefault(o, []).append((("in", p), s))
    parents = {}
    for c, p in class_edges:
        parents.setdefault(c, set()).add(p)

    def closed(cs):
        seen, todo = set(), list(cs)
        while todo:
            c = todo.pop()
            if c not in seen:
                seen.add(c)
                todo += parents.get(c, ())
        return seen

    direct = {}
    for s, c in types:
        direct.setdefault(s, set()).add(c)
    per = {}
    for e in entities:
        fs, frontier = set(), [((), e)]
        for level in range(depth):
            nxt = []
            for steps, node in frontier:
                for step, other in out_e.get(node, []) + in_e.get(node, []):
                    if level > 0 and other == e:
                        continue
                    path = steps + (step,)
                    got = {path_id(path), path_id(path, obj=other)} | {path_id(path, c)
                                                                       for c in closed(direct.get(other, ()))}
                    fs |= got
                    if walks is not None:
                        for f in got:
                            walks.setdefault(e, {})[f] = walks.get(e, {}).get(f, 0) + 1
                    nxt.append((path, other))
            frontier = nxt
        per[e] = fs
    return per


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=small_graphs(), depth=st.integers(1, 3), min_support=st.integers(1, 3))
def test_generator_matches_brute_force_and_the_table_is_closed(graph, depth, min_support):
    text, triples, types, class_edges = graph
    src = source(text, "nt")
    entities = sorted({s for s, _, _ in triples} | {X + "n0", X + "n1"})
    per, counts, _ = path_features(entities, src, options=PathOptions(depth=depth, direction="both",
                                                                      prune=min_support))
    walks: dict = {}
    every = brute_force(triples, types, class_edges, entities, depth, walks)
    support = {}
    for fs in every.values():
        for f in fs:
            support[f] = support.get(f, 0) + 1
    frequent = {f for f, k in support.items() if k >= min_support}
    assert per == {e: fs & frequent for e, fs in every.items()}
    assert counts == {e: {f: walks[e][f] for f in fs} for e, fs in per.items()}  # the walks behind each
    # the table over the hierarchy is closed, and closing adds nothing the generator did not give
    nodes = {f for fs in per.values() for f in fs}
    if not nodes:
        return
    h = FeatureHierarchy.from_edges(sorted(path_edges(sorted(nodes), src)), nodes=sorted(nodes), on_cycle="break")
    t = FeatureTable.from_facts(per, h, instances=entities)
    x = t.X.toarray()
    col = {f: j for j, f in enumerate(t.feature_names.tolist())}
    for c, p in h.edge_list():
        assert (x[:, col[c]] <= x[:, col[p]]).all()
    assert {e: {f for f in t.feature_names[np.flatnonzero(x[i])]} for i, e in enumerate(entities)} == per


@settings(max_examples=80, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 6), st.integers(0, 3), st.integers(0, 40)), max_size=40),
       big=st.booleans())
def test_group_sum_is_unique_rows_and_their_sums(rows, big):
    """The packed sort of ``_group_sum`` gives ``np.unique(axis=0)``'s rows, order and groups; ids too large to
    pack (``big``) take ``np.unique`` itself."""
    keys = np.asarray(rows, dtype=np.int64).reshape(-1, 3)
    if big and len(keys):
        keys[:, 1] += 2 ** 40  # 7 * 2**40 * 41 > 2**62: not packed
    values = np.arange(len(keys), dtype=np.float64) + 0.5
    uniq, sums, group = _group_sum(keys, values, inverse=True)
    if not len(keys):
        assert len(uniq) == len(sums) == len(group) == 0
        return
    want, inv = np.unique(keys, axis=0, return_inverse=True)
    np.testing.assert_array_equal(uniq, want)
    np.testing.assert_array_equal(group, inv.ravel())
    np.testing.assert_allclose(sums, np.bincount(inv.ravel(), weights=values, minlength=len(want)))
    u2, s2 = _group_sum(keys[:, :2], values)
    np.testing.assert_array_equal(u2, np.unique(keys[:, :2], axis=0))


# ------------------------------------------------------------------------------------------- KGFeatures
def test_kgfeatures_fits_paths_and_transforms_new_entities():
    src = source()
    kg = KGFeatures(src, features=["types", "paths"], depth=2, direction="both", min_support=1)
    x = kg.fit_transform([X + "ann", X + "bob"])
    names = kg.get_feature_names_out().tolist()
    assert f"out:{X}wrote>in:{X}wrote|={X}cat" in names and x.shape == (2, len(names))
    xt = kg.transform([X + "cat"]).toarray()[0]
    got = {short(f) for f, v in zip(names, xt) if v}
    assert {"out:wrote", "out:wrote|Report", "out:wrote>in:wrote|=ann"} <= got
    counts = KGFeatures(src, features="paths", depth=1, values="count").fit(
        [X + "ann", X + "bob"])
    j = counts.vocabulary_[f"out:{X}wrote"]
    assert counts.transform([X + "ann"]).toarray()[0, j] == 2


def test_allowed_features_only_are_generated():
    allowed = {f"out:{X}wrote", f"out:{X}wrote|={X}paper2"}
    per, _, _ = path_features([X + "cat", X + "ann"], source(), options=PathOptions(depth=2, direction="both"),
                              allowed=allowed)
    assert per == {X + "ann": allowed, X + "cat": allowed}


def test_kgfeatures_min_support_is_the_generations():
    kg = KGFeatures(source(), features="paths", depth=2, direction="both", min_support=2)
    x = kg.fit_transform([X + "ann", X + "bob", X + "cat"])
    assert (np.asarray(x.sum(axis=0)).ravel() >= 2).all()
    assert kg.fit_report_["relations"]["generated_total"] > kg.fit_report_["relations"]["kept_total"]


def test_weights_of_corpus_rows():
    from kg.rdf.table import entity_weights

    assert entity_weights({"a": ["e", "e", "f"], "b": ["e"]}) == {"e": 2, "f": 1}
