"""kg.rdf.naming: names composed from the labels of their parts, once per distinct part, are the names composed
feature by feature (the reference below, the module's former form)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.rdf.naming import compose_names
from kg.rdf.paths import parse_path_id
from kg.rdf.relations import KIND_PREFIX, local_name

X = "http://x/"
IRIS = [f"{X}p1", f"{X}p2", f"{X}onto#q", f"{X}C", f"{X}D/", f"{X}o1"]


def reference(features, labels, property_entity=str):
    """Each feature's parts parsed and its name written on its own."""
    def parts(fid):
        for prefix in KIND_PREFIX.values():
            if fid.startswith(prefix):
                return [fid[len(prefix):]], lambda got: got.get(fid[len(prefix):])
        rel = parse_path_id(fid)
        if rel is None:
            return [fid], lambda got: got.get(fid)
        steps, cls, obj = rel
        props = [property_entity(p) for _, p in steps]
        iris = props + [x for x in (cls, obj) if x]

        def name(got):
            if not any(i in got for i in iris):
                return None
            text = " > ".join(f"{d}: {got.get(e) or local_name(p)}" for (d, p), e in zip(steps, props))
            return text + (f" | {got.get(cls) or local_name(cls)}" if cls else "") + (
                f" = {got.get(obj) or local_name(obj)}" if obj else "")
        return iris, name

    plans = {}
    for f in dict.fromkeys(str(f) for f in features):
        head, cut, rest = f.partition(" ≡ … (")
        members = head.split(" ≡ ")
        plans[f] = [parts(m) for m in members], members, cut + rest
    found = labels(sorted({i for plan, _, _ in plans.values() for iris, _ in plan for i in iris if i}))  # no "" asked
    out = {}
    for f, (plan, members, more) in plans.items():
        names = [name(found) for _, name in plan]
        if any(names):
            out[f] = " ≡ ".join(n or m for n, m in zip(names, members)) + more
    return out


iri = st.sampled_from(IRIS)
step = st.tuples(st.sampled_from(["out", "in", "sideways", ""]), st.sampled_from(IRIS + [""]))
head = st.lists(step, min_size=1, max_size=3).map(lambda ss: ">".join(f"{d}:{p}" if d else p for d, p in ss))
relation = st.tuples(head, st.sampled_from(["", "|", "|="]), st.sampled_from(IRIS + [""])).map("".join)
member = st.one_of(iri, relation, st.tuples(st.sampled_from(list(KIND_PREFIX.values())), iri).map("".join))
feature = st.one_of(member, st.lists(member, min_size=2, max_size=3).map(" ≡ ".join),
                    st.tuples(member, st.integers(2, 9)).map(lambda m: f"{m[0]} ≡ … ({m[1]} members)"))


@settings(max_examples=300, deadline=None)
@given(st.lists(feature, max_size=12), st.dictionaries(st.sampled_from(IRIS + [f"{X}P1", f"{X}P2"]),
                                                        st.sampled_from(["one", "two", "three"])))
def test_names_are_the_feature_by_feature_names(features, known):
    asked = []

    def labels(iris):
        asked.append(list(iris))
        return {i: known[i] for i in iris if i in known}

    def entity(p):  # Wikidata-like: a predicate's label is stated of another IRI
        return p.replace("/p", "/P")

    want = reference(features, labels, entity)
    assert compose_names(features, labels, entity) == want
    assert len(asked) == 2 and asked[1] == asked[0]  # the same IRIs asked, once, sorted


def test_a_literal_relation_path_and_cycle():
    known = {f"{X}P1": "team", f"{X}C": "city"}
    got = compose_names([f"out:{X}p1|{X}C", f"in:{X}p2>out:{X}p1|={X}o1", f"out:{X}p2", f"{X}C ≡ {X}D/"],
                        lambda iris: {i: known[i] for i in iris if i in known}, lambda p: p.replace("/p", "/P"))
    assert got == {f"out:{X}p1|{X}C": "out: team | city", f"in:{X}p2>out:{X}p1|={X}o1": "in: p2 > out: team = o1",
                   f"{X}C ≡ {X}D/": f"city ≡ {X}D/"}


def test_repeats_kinds_and_empty_labels():
    """A repeated id keeps its first place; a prefixed id's IRI is all after its prefix ("|" too); an empty label
    names no IRI, and a class or object by its local name; ids from an iterator of numpy strings."""
    known = {f"{X}C": "city", f"{X}P1": "team", f"{X}D/": "", f"{X}C|x": "odd"}
    asked = []

    def labels(iris):
        asked.append(list(iris))
        return {i: known[i] for i in iris if i in known}

    ids = [f"out:{X}p1|{X}C", f"type:{X}C|x", f"{X}D/", f"out:{X}p2|={X}D/", f"out:{X}p2|", f"out:{X}p1|{X}C",
           f"type:{X}C", f"out:{X}p2|{X}D/ ≡ category:{X}C ≡ … (3 members)", f"out:{X}p2"]
    got = compose_names(iter(np.array(ids)), labels, lambda p: p.replace("/p", "/P"))
    assert list(got.items()) == [(f"out:{X}p1|{X}C", "out: team | city"), (f"type:{X}C|x", "odd"),
                                 (f"out:{X}p2|={X}D/", "out: p2 = D"), (f"type:{X}C", "city"),
                                 (f"out:{X}p2|{X}D/ ≡ category:{X}C ≡ … (3 members)",
                                  "out: p2 | D ≡ city ≡ … (3 members)")]
    assert asked == [[f"{X}C", f"{X}C|x", f"{X}D/", f"{X}P1", f"{X}P2"]]
