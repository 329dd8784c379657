"""Vocabularies as data: the presets, preset files (TOML) and their errors, short entity ids."""

import pytest

from flows.cli.console import cli_words, error_line
from kg.errors import InputFormatError, KgfsError
from kg.rdf.vocabulary import DBPEDIA, PRESETS, WIKIDATA, Vocabulary, load_preset, preset, vocabulary_of

WD = "http://www.wikidata.org/entity/"


def test_the_presets():
    assert set(PRESETS) == {"dbpedia", "wikidata"}
    assert WIKIDATA.instance_of == ("http://www.wikidata.org/prop/direct/P31",)
    assert WIKIDATA.subclass_of == ("http://www.wikidata.org/prop/direct/P279",)
    assert WIKIDATA.labels == ("http://www.w3.org/2000/01/rdf-schema#label",
                               "http://www.w3.org/2004/02/skos/core#altLabel")
    assert WIKIDATA.skip_unused_lines and not DBPEDIA.skip_unused_lines
    assert not WIKIDATA.categories_supported and DBPEDIA.categories_supported
    assert DBPEDIA.resolve_namespaces(None) == ("http://dbpedia.org/ontology/",)
    assert WIKIDATA.resolve_namespaces(["wd"]) == (WD,)
    with pytest.raises(ValueError, match="unknown namespace 'yago'"):
        WIKIDATA.resolve_namespaces(["yago"])
    with pytest.raises(KgfsError, match="unknown preset 'yago'"):
        preset("yago")


@pytest.mark.parametrize("value,iri", [("Q42", WD + "Q42"), (" Q42", WD + "Q42"), ("wd:Q42", WD + "Q42"),
                                       (WD + "Q42", WD + "Q42"), ("https://www.wikidata.org/wiki/Q42", WD + "Q42"),
                                       ("Q0", "Q0"), ("q42", "q42"), ("P31", "P31"), ("Douglas Adams", "Douglas Adams"),
                                       ("http://dbpedia.org/resource/Q42", "http://dbpedia.org/resource/Q42")])
def test_short_ids_of_wikidata(value, iri):
    assert WIKIDATA.expand_entity(value) == iri
    assert DBPEDIA.expand_entity(value) == value  # no short ids


def test_a_preset_file_describes_any_graph(tmp_path):
    p = tmp_path / "yago.toml"
    p.write_text('name = "yago"\ninstance_of = "rdf:type"\nsubclass_of = ["rdfs:subClassOf"]\n'
                 'type_namespaces = ["yago:", "schema:"]\nlabels = ["rdfs:label", "skos:prefLabel"]\n'
                 'language = "de"\nentities = ["yago:"]\nskip_unused_lines = true\n'
                 '[prefixes]\nyago = "http://yago-knowledge.org/resource/"\n', encoding="utf-8")
    v = load_preset(p)
    assert v.name == "yago" and v.instance_of == ("http://www.w3.org/1999/02/22-rdf-syntax-ns#type",)
    assert v.type_namespaces == ("http://yago-knowledge.org/resource/", "http://schema.org/")
    assert v.labels[1] == "http://www.w3.org/2004/02/skos/core#prefLabel" and v.language == "de"
    assert v.skip_unused_lines and v.subject == () and vocabulary_of(p, "fr").language == "fr"
    assert Vocabulary.from_json(v.to_json()) == v


@pytest.mark.parametrize("text,message", [
    ("instance_of = [\"rdf:type\"\n", r"not a TOML preset file"),
    ("instance_of = [\"rdf:type\"]\ncolour = 1\n", r"unknown key\(s\) colour"),
    ("instance_of = [\"a b\"]\n", r"instance_of has 'a b', not an absolute IRI"),
    ("instance_of = [\"http://x/<p>\"]\n", r"not an absolute IRI"),
    ("instance_of = []\nsubject = []\n", r"give instance_of \(types\) or subject"),
    ("instance_of = [\"rdf:type\"]\nlanguage = \"english!\"\n", r"is not a language tag"),
    ("instance_of = [\"rdf:type\"]\nid_pattern = \"Q\\\\d+\"\n", r"id_pattern and id_namespace together"),
    ("instance_of = 3\n", r"instance_of: expected a list of IRIs"),
])
def test_a_bad_preset_file_is_one_error_naming_it_and_the_option(tmp_path, text, message):
    p = tmp_path / "mine.toml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(InputFormatError, match=rf"mine\.toml: .*{message}.*\(vocabulary\)$") as info:
        load_preset(p)  # the library names its parameter, the command line its option
    assert cli_words(info.value.raw_message).endswith("(--preset)")


def test_a_missing_preset_file_is_named():
    with pytest.raises(FileNotFoundError, match=r"graph.toml: preset file not found \(vocabulary\)") as info:
        vocabulary_of("/no/such/graph.toml")
    assert error_line(info.value) == ("error", "/no/such/graph.toml: preset file not found (--preset)")


def test_the_fingerprint_is_what_decides_how_a_dump_is_read():
    assert WIKIDATA.fingerprint() != DBPEDIA.fingerprint()
    assert WIKIDATA.with_language("de").fingerprint() != WIKIDATA.fingerprint()
    import dataclasses

    renamed = dataclasses.replace(WIKIDATA, name="my-wikidata", type_namespaces=("http://x/",))
    assert renamed.fingerprint() == WIKIDATA.fingerprint()  # the index keeps every type: the namespaces are per query
