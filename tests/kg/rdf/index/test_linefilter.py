"""The line filter never loses a wanted triple: parsing only the lines it keeps gives every triple of the
wanted predicates (labels in the wanted language or untagged) that parsing everything gives."""

import numpy as np
import pyoxigraph as ox
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.rdf.index.linefilter import LineFilter

P, L = "http://x/p", "http://x/label"
PREDS = [P, L, "http://x/q", "http://x/p2", "http://x/labelled"]
subject = st.sampled_from(["<http://x/s>", "<http://x/p>", "_:b1", "<http://x/label>"])
obj = st.one_of(
    st.sampled_from(["<http://x/o>", "<http://x/p>", "<http://x/label>", "_:b2"]),
    st.builds(lambda t, tag: '"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"' + tag,
              st.text(alphabet=st.sampled_from('ab <>"@.\\é\t'), max_size=8),
              st.sampled_from(["", "@en", "@EN", "@en-gb", "@de", "@eng", "^^<http://www.w3.org/2001/XMLSchema#string>"])))
line = st.builds(lambda s, p, o, sep, end: f"{s}{sep}<{p}>{sep}{o}{end}", subject, st.sampled_from(PREDS), obj,
                 st.sampled_from([" ", "\t", "  "]), st.sampled_from([" .", ".", " . ", "\t."]))


def _wanted(data: bytes, language: str):
    out = []
    for q in ox.parse(input=data, format=ox.RdfFormat.N_TRIPLES):
        p = q.predicate.value
        if p == P or (p == L and not (isinstance(q.object, ox.Literal) and q.object.language not in (None, language))):
            out.append((str(q.subject), p, str(q.object)))
    return out


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(line, max_size=30), cut=st.integers(0, 30))
def test_the_kept_lines_hold_every_wanted_triple(lines, cut):
    data = "".join(x + "\n" for x in lines).encode()
    f = LineFilter([P, L], label_predicates=[L], language="en")
    kept, offsets = f.keep(data)
    assert _wanted(kept, "en") == _wanted(data, "en")
    starts = [0] + [i + 1 for i, c in enumerate(data) if c == 10][:-1]
    assert set(offsets.tolist()) <= set(starts) and f.kept == len(offsets) <= f.seen == len(lines)
    # blocks cut anywhere between lines lose nothing either (a block may keep other extra lines)
    at = starts[min(cut, len(starts) - 1)] if lines else 0
    a, b = f.keep(data[:at]), f.keep(data[at:])
    assert _wanted(a[0] + b[0], "en") == _wanted(data, "en")


def test_literal_lines_of_other_languages_are_dropped_before_parsing():
    block = (b'<http://x/s> <http://x/label> "A"@en .\n<http://x/s> <http://x/label> "A"@de .\n'
             b'<http://x/s> <http://x/label> "B" .\n<http://x/s> <http://x/q> <http://x/o> .\n'
             b'<http://x/s> <http://x/label> "say \\"hi\\"@de"@en .\n')
    kept, offsets = LineFilter([L], label_predicates=[L], language="en").keep(block)
    assert kept.decode().splitlines() == ['<http://x/s> <http://x/label> "A"@en .',
                                          '<http://x/s> <http://x/label> "B" .',
                                          '<http://x/s> <http://x/label> "say \\"hi\\"@de"@en .']
    assert LineFilter([L]).keep(block)[0].count(b"\n") == 4  # no language given: every label


# --------------------------------------------------------------------------- relation namespaces (issue 25)
NS = "http://x/r/"
R_PREDS = [P, NS + "1", NS + "22", "http://x/rr", "http://x/r"]
r_obj = st.one_of(obj, st.sampled_from([f"<{NS}1>", f"<{NS}o>", "<http://x/o#a>"]))
r_line = st.builds(lambda s, p, o, sep, end: f"{s}{sep}<{p}>{sep}{o}{end}", subject, st.sampled_from(R_PREDS), r_obj,
                   st.sampled_from([" ", "\t", "  "]), st.sampled_from([" .", ".", " . ", "\t."]))


def _wanted_relations(data: bytes):
    """The triples of P, and of the predicates under NS whose object is an IRI."""
    quads = ox.parse(input=data, format=ox.RdfFormat.N_TRIPLES)
    return [(str(q.subject), q.predicate.value, str(q.object)) for q in quads
            if q.predicate.value == P or (q.predicate.value.startswith(NS) and isinstance(q.object, ox.NamedNode))]


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(r_line, max_size=30))
def test_relation_lines_are_kept_only_with_an_iri_object(lines):
    data = "".join(x + "\n" for x in lines).encode()
    f = LineFilter([P], relation_namespaces=[NS])
    kept, _ = f.keep(data)
    assert _wanted_relations(kept) == _wanted_relations(data)  # nothing wanted is lost
    for text in kept.decode().splitlines():
        [q] = ox.parse(input=text.encode(), format=ox.RdfFormat.N_TRIPLES)
        # a kept line of a relation predicate with a literal or blank object was kept for P (its IRI is in the line)
        if q.predicate.value.startswith(NS) and not isinstance(q.object, ox.NamedNode):
            assert f"<{P}>" in text
    assert LineFilter([P]).keep(data)[0] == LineFilter([P], relation_namespaces=[]).keep(data)[0]


def test_literal_valued_relation_lines_are_skipped_before_parsing():
    wdt, q1, xsd = "http://www.wikidata.org/prop/direct/", "<http://www.wikidata.org/entity/Q1>", \
        "http://www.w3.org/2001/XMLSchema#"
    block = (f'{q1} <{wdt}P19> <http://www.wikidata.org/entity/Q2> .\n'
             f'{q1} <{wdt}P569> "1952-03-11T00:00:00Z"^^<{xsd}dateTime> .\n'
             f'{q1} <{wdt}P214> "113230702" .\n'
             f'{q1} <{wdt}P1082> "+8908081"^^<{xsd}decimal> .\n'
             f'{q1} <{wdt}P40> _:b .\n'
             f'{q1}\t<{wdt}P27>\t<http://www.wikidata.org/entity/Q3>\t.\n'
             f'{q1} <http://www.wikidata.org/prop/direct-normalized/P214> <http://x/> .\n'
             f'{q1} <{wdt}P31> "odd" .\n').encode()
    f = LineFilter([wdt + "P31"], relation_namespaces=[wdt])
    kept, offsets = f.keep(block)
    assert [x.split()[1] for x in kept.decode().splitlines()] == [f"<{wdt}P19>", f"<{wdt}P27>", f"<{wdt}P31>"]
    assert f.seen == 8 and f.kept == 3 and repr(f) == "LineFilter(1 predicates, 1 relation namespace(s), language=None)"
    assert not LineFilter([wdt + "P31"]).keep(block)[0].count(b"P19")  # without the namespace: no relation line


# ------------------------------------------------------------------ by position (LineFilter._by_position)
# lines spelled as dumps spell them (one space between the terms, no tab): read by position, not by the expression
plain_obj = st.one_of(
    st.sampled_from(["<http://x/o>", "<http://x/p>", "<http://x/label>", f"<{NS}1>", "_:b2"]),
    st.builds(lambda t, tag: '"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"' + tag,
              st.text(alphabet=st.sampled_from('ab <>"@.\\é'), max_size=8),
              st.sampled_from(["", "@en", "@EN", "@en-gb", "@de", "^^<http://www.w3.org/2001/XMLSchema#string>"])))
dump_line = st.builds(lambda s, p, o, end: f"{s} <{p}> {o}{end}",
                      st.sampled_from(["<http://x/s>", "<http://x/p>", "<http://x/label>", f"<{NS}1>"]),
                      st.sampled_from(PREDS + R_PREDS), plain_obj, st.sampled_from([" .", ".", " . "]))
# lines that make a block go to the expression (a blank-node subject, two spaces), or that hold no triple
IRREGULAR = ["_:b1 <http://x/p> <http://x/o> .", "<http://x/s>  <http://x/p> <http://x/o> .",
             f"<http://x/s> <{NS}1>  <http://x/o> ."]
odd_line = st.sampled_from(IRREGULAR + ["# <http://x/s> <http://x/p> <http://x/o> .", "",
                                        '<http://x/s> <http://x/label>  "a"@en .'])


def _wanted_all(data: bytes, language: str):
    out = []
    for q in ox.parse(input=data, format=ox.RdfFormat.N_TRIPLES):
        p = q.predicate.value
        lang_ok = not (isinstance(q.object, ox.Literal) and q.object.language not in (None, language))
        if p == P or (p == L and lang_ok) or (p.startswith(NS) and isinstance(q.object, ox.NamedNode)):
            out.append((str(q.subject), p, str(q.object)))
    return out


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(dump_line, max_size=30), odd=st.lists(st.tuples(st.integers(0, 30), odd_line), max_size=2))
def test_lines_read_by_position_hold_every_wanted_triple(lines, odd):
    for at, x in odd:
        lines.insert(min(at, len(lines)), x)
    data = "".join(x + "\n" for x in lines).encode()
    f = LineFilter([P, L], label_predicates=[L], language="en", relation_namespaces=[NS])
    kept, lines_kept, n = f.select(data)
    assert _wanted_all(kept, "en") == _wanted_all(data, "en") and n == len(lines)
    assert lines_kept.tolist() == sorted(set(lines_kept.tolist()))
    arr = np.frombuffer(data, np.uint8)
    by_position = f._by_position(arr, np.flatnonzero(arr == 10))
    irregular = any(x in IRREGULAR for _, x in odd)
    assert (by_position is None) == irregular  # the expression reads only the blocks it must
    if by_position is not None:  # what it keeps is a subset of the expression's (only the predicate's position)
        regex = LineFilter([P, L], label_predicates=[L], language="en", relation_namespaces=[NS])
        regex._by_position = lambda *a: None
        assert set(lines_kept.tolist()) <= set(regex.select(data)[1].tolist())
