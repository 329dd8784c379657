"""The stage payloads of the RDF route: feature ids stored once each (pack_facts / unpack_facts)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from kg.rdf.stored import pack_facts, unpack_facts

IDS = st.text(alphabet="abcT|:>=é", min_size=1, max_size=6)


@given(st.dictionaries(st.text(max_size=4), st.lists(IDS, unique=True).map(sorted), max_size=6),
       st.lists(st.tuples(IDS, IDS), max_size=8))
def test_packed_facts_read_back_as_they_were_through_json(per, edges):
    packed = json.loads(json.dumps(pack_facts(per, edges)))  # as a stage writes and reads it
    got_per, got_edges = unpack_facts(packed)
    assert got_per == per and got_edges == [list(e) for e in edges]
    assert packed["ids"] == sorted(set(packed["ids"]))  # each id once
    assert all(isinstance(i, int) for row in packed["rows"].values() for i in row)


def test_every_entity_shares_one_string_per_id():
    per, _ = unpack_facts(json.loads(json.dumps(pack_facts({"E": ["out:p|C"], "F": ["out:p|C"]}))))
    assert per["E"][0] is per["F"][0]
