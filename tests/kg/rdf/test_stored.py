"""The stage payloads of the RDF route: feature ids stored once each (pack_facts / unpack_facts)."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg.cycles import EdgeArrays
from kg.rdf.stored import pack_facts, pack_groups, unpack_facts, unpack_groups

IDS = st.text(alphabet="abcT|:>=é", min_size=1, max_size=6)


def _through_files(packed, positions):
    """The payload as a stage writes and reads it: JSON, and the edges' positions as ``.npy``."""
    buf = io.BytesIO()
    np.save(buf, positions, allow_pickle=False)
    buf.seek(0)
    return json.loads(json.dumps(packed)), np.load(buf, allow_pickle=False)


@given(st.dictionaries(st.text(max_size=4), st.lists(IDS, unique=True).map(sorted), max_size=6),
       st.lists(st.tuples(IDS, IDS), max_size=8), st.booleans())
def test_packed_facts_read_back_as_they_were_through_json(per, edges, as_arrays):
    given_edges = EdgeArrays.from_pairs(sorted(set(edges))) if as_arrays else edges
    packed, positions = _through_files(*pack_facts(per, given_edges))
    got_per, got_edges = unpack_facts(packed, positions)
    assert got_per == per and isinstance(got_edges, EdgeArrays) and got_edges == set(edges)
    assert packed["ids"] == sorted(set(packed["ids"]))  # each id once: the facts' and the edges' ends
    assert set(packed["ids"]) == {f for fs in per.values() for f in fs} | {x for e in edges for x in e}
    assert all(isinstance(i, int) for row in packed["rows"].values() for i in row)
    key = positions[:, 0] * max(len(packed["ids"]), 1) + positions[:, 1]
    assert positions.dtype == np.int64 and (np.diff(key) > 0).all()  # sorted, each edge once: the same bytes


def test_bad_edge_positions_are_refused_by_name():
    packed, _ = pack_facts({"E": ["T"]}, [("T", "U")])
    for bad, match in ((np.array([[0, 2]]), "out of range"), (np.array([0, 1]), r"\(n, 2\) integer array"),
                       (np.array([[0.0, 1.0]]), "integer array")):
        with pytest.raises(ValueError, match=match):
            unpack_facts(packed, bad)


GROUP = st.one_of(st.lists(IDS, max_size=3), st.dictionaries(IDS, st.integers(1, 9), max_size=3))


@given(st.dictionaries(st.text(max_size=4), st.lists(GROUP, max_size=5), max_size=5))
def test_packed_groups_read_back_as_they_were_through_json(groups):
    got = unpack_groups(json.loads(json.dumps(pack_groups(groups))))
    assert got == groups
    for e, gs in got.items():  # equal consecutive lists: one object, weighed once by count_values
        for a, b in zip(gs, gs[1:]):
            if isinstance(a, list) and a == b:
                assert a is b


def test_every_entity_shares_one_string_per_id():
    per, _ = unpack_facts(json.loads(json.dumps(pack_facts({"E": ["out:p|C"], "F": ["out:p|C"]})[0])))
    assert per["E"][0] is per["F"][0]


def test_stored_path_counts_give_the_live_sources_values():
    """A run's stored answers (the fetch stage's payload, through JSON) give the counts the live source gives:
    the paths' ``{feature: walks}`` groups were read back as their keys, every count lost."""
    from kg.rdf.corpus import Corpus
    from kg.rdf.kinds import FeatureSpec
    from kg.rdf.stored import annotate_batch, fetch_features, fetch_hierarchy, merge_annotations, table_from_records
    from kg.rdf.table import assemble_table
    from tests.kg.rdf.test_paths import X, source

    src, ents = source(), [X + "ann", X + "bob", X + "cat"]
    corpus = Corpus(ids=["1", "2", "3"], entities=[[e] for e in ents], labels=[1, 0, 1])
    spec = FeatureSpec.of(["paths"], depth=2, direction="both", values="count")
    live = assemble_table(corpus, None, src, features=spec)
    facts, _ = fetch_hierarchy(src, fetch_features(src, ents, spec)[0], spec)
    facts["packed"], positions = pack_facts(facts.pop("per_entity"), facts.pop("edges"))
    facts["groups"] = pack_groups(spec.groups(src, ents))
    facts, positions = _through_files(facts, positions)  # as the stage stores it
    facts["per_entity"], facts["edges"] = unpack_facts(facts.pop("packed"), positions)
    facts["groups"] = unpack_groups(facts["groups"])
    stored = table_from_records(corpus, merge_annotations([annotate_batch(corpus, 0, 3, None)[0]])[0], facts,
                                features=spec)
    assert stored.feature_names.tolist() == live.feature_names.tolist()
    assert live.values.max() > 1 and (stored.values != live.values).nnz == 0
