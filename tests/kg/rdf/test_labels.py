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


def _opened_under(folder: Path):
    """The paths under ``folder`` opened from now on (an audit hook: every ``open`` of Python and of NumPy)."""
    import sys

    opened: list[str] = []
    root = str(folder)
    active = [True]

    def hook(event, args):
        if active[0] and event == "open" and args and str(args[0]).startswith(root):
            opened.append(str(args[0]))

    sys.addaudithook(hook)  # hooks cannot be removed: this one stops recording when asked
    return opened, lambda: active.__setitem__(0, False)


def test_names_from_the_index_alone_no_dump_file_opened_nor_the_index_changed(dump, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    index_for_cache(cache).ingest([dump])
    before = {p: p.stat().st_mtime_ns for p in (cache / "index").rglob("*") if p.is_file()}
    streamed = []
    monkeypatch.setattr(labels_mod, "_from_files", lambda wanted, files, *how: streamed.append(files) or {})
    opened, stop = _opened_under(dump)
    try:
        # every feature named, across files: a category's label in the lexicon's labels file, a class's in the
        # ontology's, a category's prefLabel in the SKOS file
        assert dump_labels(WANTED, [dump], cache_dir=cache) == EXPECTED
    finally:
        stop()
    assert opened == [] and streamed == []
    assert {p: p.stat().st_mtime_ns for p in (cache / "index").rglob("*") if p.is_file()} == before


def test_segments_of_an_earlier_kgfs_without_names_are_read_as_they_were(dump, tmp_path, monkeypatch):
    from kg.rdf.index.segment import Segment

    cache = tmp_path / "cache"
    index_for_cache(cache).ingest([dump])
    monkeypatch.setattr(Segment, "has_names", property(lambda self: False))
    read = []
    real = labels_mod._from_files
    monkeypatch.setattr(labels_mod, "_from_files", lambda wanted, files, *how: read.append(
        sorted(Path(f).name for f in files)) or real(wanted, files, *how))
    assert dump_labels(WANTED, [dump], cache_dir=cache) == EXPECTED
    # the categories' labels came from the index; only the files describing classes or categories were read
    assert read == [["ontology.nt", "skos.nt"]]


def test_the_best_name_across_files_label_before_preflabel_language_before_untagged_alias_last(tmp_path):
    from kg.rdf.vocabulary import preset

    wd, alt = "http://www.wikidata.org/entity/", "http://www.w3.org/2004/02/skos/core#altLabel"
    d = tmp_path / "wd"
    d.mkdir()
    (d / "a.nt").write_text(f'<{wd}Q1> <{alt}> "an alias"@en .\n<{wd}Q2> <{LABEL}> "untagged" .\n'
                            f'<{wd}Q3> <{alt}> "only an alias"@en .\n<{wd}P31> <{LABEL}> "instance of"@en .\n')
    (d / "b.nt").write_text(f'<{wd}Q1> <{LABEL}> "universe"@en .\n<{wd}Q2> <{LABEL}> "English"@en .\n'
                            f'<{wd}Q1> <{LABEL}> "Universum"@de .\n')
    cache = tmp_path / "cache"
    v = preset("wikidata")
    index_for_cache(cache).ingest([d], vocabulary=v)
    got = dump_labels([f"{wd}Q1", f"{wd}Q2", f"{wd}Q3", f"{wd}P31", f"{wd}Q4"], [d], cache_dir=cache, vocabulary=v)
    assert got == {f"{wd}Q1": "universe", f"{wd}Q2": "English", f"{wd}Q3": "only an alias",
                   f"{wd}P31": "instance of"}


def test_large_files_are_not_streamed(dump, monkeypatch):
    monkeypatch.setattr(labels_mod, "FILE_SCAN_LIMIT", 10)
    assert dump_labels(WANTED, [dump]) == {}


def test_the_route_hook_names_features(dump, tmp_path):
    (tmp_path / "c.csv").write_text(f"id,entity,label\n1,{R}Lyon,sport\n")
    inp = CorpusInput.from_options({"corpus": tmp_path / "c.csv", "entity_columns": ["entity"], "dump": [dump]})
    assert inp.feature_names(WANTED, Context(tmp_path / "home")) == EXPECTED
    assert CorpusInput("c", sparql_url="http://q/sparql").feature_names(WANTED) == {}  # no dump: no names asked for


@pytest.mark.parametrize("features", ["types", "categories"])
def test_a_new_corpus_after_ingest_opens_no_dump_file_and_keeps_its_names(dump, tmp_path, monkeypatch, features):
    from kg.rdf import route
    from kg.routes import build_table

    (dump / "types.nt").write_text(f"<{R}Lyon> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{ONT}Athlete> .\n"
                                   f"<{R}Lyon> <http://purl.org/dc/terms/subject> <{C}Sports_in_Lyon> .\n")
    monkeypatch.setattr(route, "DUMP_HASH_LIMIT", 0)  # a dump of real size: fingerprinted by size and time
    ctx = Context(tmp_path / "home")
    (tmp_path / "first.csv").write_text("id,text,label\n1,Lyon wins,a\n2,nothing,b\n")
    first = CorpusInput.from_options({"corpus": tmp_path / "first.csv", "dump": [dump], "features": features})
    first.prepare(ctx)
    build_table(first, ctx)
    (tmp_path / "second.csv").write_text("id,text,label\nx,In Lyon again,a\ny,nothing at all,b\n")
    opened, stop = _opened_under(dump)
    try:
        second = CorpusInput.from_options({"corpus": tmp_path / "second.csv", "dump": [dump], "features": features})
        second.check(ctx)
        second.prepare(ctx)
        table = build_table(second, ctx)
        names = second.feature_names(table.feature_names.tolist(), ctx)
    finally:
        stop()
    assert opened == []
    expected = {"types": {f"{ONT}Athlete": "athlete", f"{ONT}Person": "person"},
                "categories": {f"{C}Sports_in_Lyon": "Sports in Lyon", f"{C}Lyon": "Lyon"}}[features]
    assert set(table.feature_names.tolist()) == set(expected) and names == expected


def test_relations_and_paths_are_named_by_their_parts_labels(dump):
    from kg.rdf.naming import feature_labels

    (dump / "properties.nt").write_text(f'<{ONT}team> <{LABEL}> "team"@en .\n<{ONT}team> <{SUB}> <{ONT}x> .\n'
                                        f'<{R}Lakers> <{LABEL}> "Los Angeles Lakers"@en .\n')
    wanted = [f"out:{ONT}team|{ONT}Athlete", f"out:{ONT}team>in:{ONT}team|={R}Lakers", f"in:{ONT}unnamed",
              f"type:{ONT}Athlete", f"category:{C}Lyon", f"{ONT}Athlete ≡ {ONT}Unlabelled",
              f"{ONT}Unlabelled ≡ … (3 members)", f"{ONT}Person ≡ … (2 members)"]
    assert feature_labels(wanted, [dump]) == {
        f"out:{ONT}team|{ONT}Athlete": "out: team | athlete",
        f"out:{ONT}team>in:{ONT}team|={R}Lakers": "out: team > in: team = Los Angeles Lakers",
        f"type:{ONT}Athlete": "athlete", f"category:{C}Lyon": "Lyon",
        f"{ONT}Athlete ≡ {ONT}Unlabelled": f"athlete ≡ {ONT}Unlabelled",  # a member without a label: its id
        f"{ONT}Person ≡ … (2 members)": "person ≡ … (2 members)"}  # nothing labelled: left out (in:unnamed, ...)
