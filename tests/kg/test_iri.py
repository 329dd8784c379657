import pyoxigraph as ox
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg.errors import InputFormatError
from kg.iri import InvalidIRIError, is_safe_iri, normalize_iri, sparql_iri, sparql_string

HOSTILE = "> } ; DROP ALL #"


def _values_of(query_value: str) -> list[str]:
    """Run ``SELECT ?x { VALUES ?x { <value> } }`` in an empty pyoxigraph store (a real SPARQL parser)."""
    store = ox.Store()
    res = store.query(f"SELECT ?x WHERE {{ VALUES ?x {{ {query_value} }} }}")
    return [sol["x"].value for sol in res]


def test_hostile_iri_is_percent_encoded_and_stays_one_iri():
    iri = normalize_iri("http://dbpedia.org/resource/" + HOSTILE)
    assert iri == "http://dbpedia.org/resource/%3E%20%7D%20;%20DROP%20ALL%20#"
    assert is_safe_iri(iri)
    assert _values_of(sparql_iri(iri)) == [iri]


def test_values_without_scheme_are_rejected_with_the_value_named():
    with pytest.raises(InvalidIRIError, match=r"DROP ALL"):
        normalize_iri(HOSTILE)
    with pytest.raises(InputFormatError, match="instance 'x'"):
        normalize_iri("Chris_Gayle", where="instance 'x'")
    with pytest.raises(InvalidIRIError):
        normalize_iri("")


def test_sparql_iri_refuses_unsafe_values_instead_of_repairing():
    for bad in ["http://x/a>b", "http://x/a b", 'http://x/"', "http://x/\\u003E", "http://x/{", "nope", "http://x/\n"]:
        with pytest.raises(InvalidIRIError):
            sparql_iri(bad)


def test_angle_brackets_are_stripped_and_safe_iris_kept_verbatim():
    assert normalize_iri(" <http://dbpedia.org/resource/Chelsea,_London> ") == "http://dbpedia.org/resource/Chelsea,_London"
    s = "http://dbpedia.org/resource/DÃ©jÃ\xa0_vu"
    assert normalize_iri(s) == s  # non-ASCII is allowed in IRIs (U+00A0 > U+0020)


def test_sparql_string_escapes():
    assert sparql_string('a"b\\c\nd') == '"a\\"b\\\\c\\nd"'
    store = ox.Store()
    for text in ['x" } ; DROP ALL #', "\\u0022", "tab\there", "'single'"]:
        res = list(store.query(f"SELECT ?s WHERE {{ BIND({sparql_string(text)} AS ?s) }}"))
        assert res[0]["s"].value == text


@given(st.text(max_size=40))
def test_any_text_becomes_exactly_one_valid_iri_in_a_query(text):
    iri = normalize_iri("http://dbpedia.org/resource/" + text)
    assert is_safe_iri(iri)
    assert normalize_iri(iri) == iri  # idempotent: both sources see the same string
    ox.NamedNode(iri)  # a valid IRI for a strict parser (Oxigraph rejects invalid ones with HTTP 400)
    assert _values_of(sparql_iri(iri)) == [iri]


def test_percent_and_brackets():
    assert normalize_iri("http://x/100%_sure") == "http://x/100%25_sure"
    assert normalize_iri("http://x/a%20b") == "http://x/a%20b"
    assert normalize_iri("http://[::1]/a[b]#c#d") == "http://[::1]/a%5Bb%5D#c%23d"


@given(st.text(max_size=30))
def test_any_text_is_one_string_literal(text):
    text = text.replace("\x00", "")
    res = list(ox.Store().query(f"SELECT ?s WHERE {{ BIND({sparql_string(text)} AS ?s) }}"))
    assert res[0]["s"].value == text
