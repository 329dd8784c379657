"""Names of DBpedia features from the dump (issue 27): the index's labels (read only), then the small files."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.rdf import labels as labels_mod
from kg.rdf.index.dumpindex import index_for_cache
from kg.rdf.labels import dump_labels
from kg.rdf.route import CorpusInput
from kg.routes.base import Context

R, ONT, C = "http://dbpedia.org/resource/", "http://dbpedia.org/ontology/", "http://dbpedia.org/resource/Category:"
LABEL, PREF = "http://www.w3.org/2000/01/rdf-schema#label", "http://www.w3.org/2004/02/skos/core#prefLabel"
BROADER, SUB = "http://www.w3.org/2004/02/skos/core#broader", "http://www.w3.org/2000/01/rdf-schema#subClassOf"


@pytest.fixture()
def dump(tmp_path) -> Path:
    d = tmp_path / "dump"
    d.mkdir()
    (d / "labels.nt").write_text(  # the lexicon's labels: resources, categories among them
        f'<{R}Lyon> <{LABEL}> "Lyon"@en .\n<{C}Sports_in_Lyon> <{LABEL}> "Sports in Lyon"@en .\n'
        f'<{C}Sports_in_Lyon> <{LABEL}> "Sport à Lyon"@fr .\n')
    (d / "ontology.nt").write_text(  # classes: labelled in the ontology file only
        f'<{ONT}Athlete> <{LABEL}> "Sportler"@de .\n<{ONT}Athlete> <{LABEL}> "athlete"@en .\n'
        f'<{ONT}Athlete> <{SUB}> <{ONT}Person> .\n<{ONT}Person> <{LABEL}> "person" .\n')
    (d / "skos.nt").write_text(  # a category named by skos:prefLabel only
        f'<{C}Lyon> <{PREF}> "Lyon"@en .\n<{C}Sports_in_Lyon> <{BROADER}> <{C}Lyon> .\n')
    return d


WANTED = [f"{C}Sports_in_Lyon", f"{ONT}Athlete", f"{ONT}Person", f"{C}Lyon", f"{ONT}Unlabelled"]
EXPECTED = {f"{C}Sports_in_Lyon": "Sports in Lyon", f"{ONT}Athlete": "athlete", f"{ONT}Person": "person",
            f"{C}Lyon": "Lyon"}


def test_labels_from_the_files_without_an_index(dump):
    assert dump_labels(WANTED, [dump]) == EXPECTED  # English first, untagged next; an unlabelled IRI left out


def test_labels_from_the_index_and_the_small_files_without_changing_the_index(dump, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    index_for_cache(cache).ingest([dump])
    before = {p: p.stat().st_mtime_ns for p in (cache / "index").rglob("*") if p.is_file()}
    read = []
    real = labels_mod._from_files
    monkeypatch.setattr(labels_mod, "_from_files", lambda wanted, files, *how: read.append(
        sorted(Path(f).name for f in files)) or real(wanted, files, *how))
    assert dump_labels(WANTED, [dump], cache_dir=cache) == EXPECTED
    # the categories' labels came from the index; only the files describing classes or categories were read
    assert read == [["ontology.nt", "skos.nt"]]
    assert {p: p.stat().st_mtime_ns for p in (cache / "index").rglob("*") if p.is_file()} == before


def test_large_files_are_not_streamed(dump, monkeypatch):
    monkeypatch.setattr(labels_mod, "FILE_SCAN_LIMIT", 10)
    assert dump_labels(WANTED, [dump]) == {}


def test_the_route_hook_names_features(dump, tmp_path):
    (tmp_path / "c.csv").write_text(f"id,entity,label\n1,{R}Lyon,sport\n")
    inp = CorpusInput.from_options({"corpus": tmp_path / "c.csv", "entity_columns": ["entity"], "dump": [dump]})
    assert inp.feature_names(WANTED, Context(tmp_path / "home")) == EXPECTED
    assert CorpusInput("c", sparql_url="http://q/sparql").feature_names(WANTED) == {}  # no dump: no names asked for
