"""The dump index: each file read once into a segment, then look-ups with the streamed dump's answers.

Identical tables from the index, from the streamed dumps and from a SPARQL server (Oxigraph on
127.0.0.1; Virtuoso in test_virtuoso.py) over the same data, types and categories, the category
graph's cycles included; the lexicon of the index finds what the in-memory lexicon finds.
"""

import json
import shutil
import threading
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.errors import HierarchyCycleWarning, InputFormatError
from kg.rdf.annotators.lexicon import LexiconAnnotator
from kg.rdf.corpus import Corpus, read_sports_tweets
from kg.rdf.index.dumpindex import DumpIndex, index_for_cache
from kg.rdf.index.lexicon import IndexedLexicon
from kg.rdf.sources.common import Access
from kg.rdf.sources.dump import DumpSource
from kg.rdf.sources.index import IndexSource
from kg.rdf.sources.sparql import SparqlSource
from kg.rdf.table import assemble_table, make_annotator, make_source
from kg.sources import Annotator, KnowledgeSource
from tests.kg.conftest import BROADER_EDGES, DBO, ENTITIES, C, R, assert_same_table

ENTS = [R + n for n in ENTITIES] + [R + "Not_in_the_dump"]
ALL_NS = ["dbo", "yago", "schema", "owl"]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return DumpIndex(tmp_path_factory.mktemp("index"))


@pytest.fixture(scope="module")
def training(shared_data):
    return read_sports_tweets(shared_data / "tweets" / "training.txt")


def test_is_a_knowledge_source_and_reads_nothing_until_asked(kg_dump_dir, tmp_path):
    src = IndexSource(kg_dump_dir, DumpIndex(tmp_path / "i"))
    assert isinstance(src, KnowledgeSource)
    assert not (tmp_path / "i").exists()  # no I/O in the constructor
    src.types(ENTS[:1])
    assert len(list((tmp_path / "i" / "segments").iterdir())) == 2


@pytest.mark.parametrize("ns", [None, ALL_NS])
def test_same_answers_as_the_streamed_dump(kg_dump_dir, index, ns):
    src, dump = IndexSource(kg_dump_dir, index, type_namespaces=ns), DumpSource(kg_dump_dir, type_namespaces=ns)
    types = src.types(ENTS)
    assert types == dump.types(ENTS) and types[R + "Not_in_the_dump"] == set()
    classes = set().union(*types.values()) | {DBO + "River", DBO + "Nope"}
    assert src.class_edges(classes) == dump.class_edges(classes)
    cats = src.categories(ENTS)
    assert cats == dump.categories(ENTS)
    start = set().union(*cats.values())
    for depth in (0, 1, 2, 3, None):
        assert src.broader(start, depth) == dump.broader(start, depth)
    full = src.broader(start, None)
    assert (C + "Sports", C + "Recreation") in full and (C + "Recreation", C + "Sports") in full
    assert (C + "Cricket", C + "Cricket") in full and full <= {(C + a, C + b) for a, b in BROADER_EDGES}


@pytest.mark.parametrize("features,depth", [("types", 2), ("categories", 2), ("categories", None)])
def test_identical_tables_from_the_index_the_dump_and_a_sparql_server(kg_dump_dir, index, oxigraph_server, tweets10,
                                                                      training, features, depth):
    streamed_lexicon = LexiconAnnotator.from_dump(kg_dump_dir)
    indexed_lexicon = index.lexicon(kg_dump_dir)
    texts = Corpus(ids=training.ids[:2000], texts=training.texts[:2000], labels=training.labels[:2000])
    for corpus, lexicons in ((tweets10, (None, None, None)),
                             (texts, (indexed_lexicon, streamed_lexicon, streamed_lexicon))):
        tables = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", HierarchyCycleWarning)
            for annotator, source in zip(lexicons, (IndexSource(kg_dump_dir, index), DumpSource(kg_dump_dir),
                                                    SparqlSource(oxigraph_server.url, batch_size=7))):
                tables.append(assemble_table(corpus, annotator, source, features=features, category_depth=depth))
        for t in tables[1:]:
            assert_same_table(tables[0], t)
            assert t.meta["removed_cycle_edges"] == tables[0].meta["removed_cycle_edges"]
        if features == "categories" and depth is None:
            assert tables[0].meta["removed_cycle_edges"] and caught  # the cycles were met and broken
        assert tables[0].n_features > 5


def test_the_index_lexicon_finds_what_the_in_memory_lexicon_finds(kg_dump_dir, index, training):
    lex = index.lexicon(kg_dump_dir)
    assert isinstance(lex, Annotator) and isinstance(lex, IndexedLexicon)
    ref = LexiconAnnotator.from_dump(kg_dump_dir)
    got = lex.annotate(training.texts)
    assert got == ref.annotate(training.texts)
    assert sum(map(len, got)) > 500
    assert repr(lex).replace("IndexedLexicon", "") == repr(ref).replace("LexiconAnnotator", "")
    assert lex.annotate(["", None, "   "]) == [[], [], []]


def _nt(triples):
    return "".join(f"<{s}> <{p}> {o} .\n" for s, p, o in triples)


LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
REDIRECT = "http://dbpedia.org/ontology/wikiPageRedirects"
LINK = "http://dbpedia.org/ontology/wikiPageWikiLink"
TOKENS = ["New", "York", "new", "york", "Times", "N.Y.", "(band)", "#Lyon", "Lyon", "Café", "CAFE", "x", "'s", "O'Neil",
          "AC/DC", "-", "Ünïcode", "İstanbul", "2013", "_", "under_score"]
phrase = st.lists(st.sampled_from(TOKENS), min_size=1, max_size=4).map(" ".join)
entity = st.sampled_from([R + n for n in ("A", "B", "C", "D", "E", "Category:F")])


@settings(max_examples=40, deadline=None)
@given(labels=st.lists(st.tuples(entity, phrase), min_size=1, max_size=10),
       redirects=st.lists(st.tuples(entity, entity), max_size=3), links=st.lists(entity, max_size=4),
       texts=st.lists(st.lists(st.sampled_from(TOKENS + [" ", "  ", "\n", ",", "!", "nothing"]), max_size=14)
                      .map("".join), min_size=1, max_size=6))
def test_the_two_lexicons_agree_on_random_dumps_and_texts(tmp_path_factory, labels, redirects, links, texts):
    d = tmp_path_factory.mktemp("lex")

    def lit(s):
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"@en'

    (d / "l.nt").write_text(_nt([(s, LABEL, lit(t)) for s, t in labels]
                                + [(a, REDIRECT, f"<{b}>") for a, b in redirects]
                                + [(R + "Page", LINK, f"<{e}>") for e in links]), encoding="utf-8")
    ref = LexiconAnnotator.from_dump(d / "l.nt")
    lex = DumpIndex(d / "i").lexicon(d / "l.nt")
    assert lex.annotate(texts) == ref.annotate(texts)


def test_ingest_is_keyed_by_content(kg_dump_dir, tmp_path):
    dump = tmp_path / "dump"
    shutil.copytree(kg_dump_dir, dump)
    index = DumpIndex(tmp_path / "index")
    first = index.ingest(dump)
    assert len(first["ingested"]) == 2 and first["lexicon"]["n_surface_forms"] > 30
    segments = sorted((tmp_path / "index" / "segments").iterdir())
    stamps = [p.stat().st_mtime_ns for p in segments]
    again = index.ingest(dump)  # the same files: nothing read, nothing written
    assert again["ingested"] == [] and again["lexicon"] == first["lexicon"]
    assert [p.stat().st_mtime_ns for p in sorted((tmp_path / "index" / "segments").iterdir())] == stamps
    # a renamed copy is the same content: the same segment
    shutil.copy(dump / "instances.nt", tmp_path / "copy.nt")
    assert index.ingest(tmp_path / "copy.nt")["files"][0]["sha256"] == first["files"][0]["sha256"]
    assert len(list((tmp_path / "index" / "segments").iterdir())) == 2
    # a new file adds a segment; the lexicon is kept when the file has no labels
    (dump / "more.nt").write_text(
        _nt([(R + "Lyon", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type", f"<{DBO}Town>")]))
    added = index.ingest(dump)
    assert added["ingested"] == [str((dump / "more.nt").absolute())]
    assert len(list((tmp_path / "index" / "lexicons").iterdir())) == 1
    assert IndexSource(dump, index).types([R + "Lyon"])[R + "Lyon"] == {DBO + "City", DBO + "Town"}
    # a changed file is read again
    (dump / "more.nt").write_text(
        _nt([(R + "Lyon", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type", f"<{DBO}Place>")]))
    assert IndexSource(dump, index).types([R + "Lyon"])[R + "Lyon"] == {DBO + "City", DBO + "Place"}
    known = json.loads((tmp_path / "index" / "files.json").read_text())
    assert str((dump / "more.nt").resolve()) in known["files"]
    assert not list((tmp_path / "index" / "segments").glob(".building-*"))


def test_a_malformed_line_is_named_or_skipped(kg_dump_dir, tmp_path):
    bad = tmp_path / "bad.nt"
    lines = (kg_dump_dir / "instances.nt").read_text(encoding="utf-8").splitlines()
    bad.write_text("\n".join(lines[:2] + ["<http://x/a> <http://x/p> oops ."] + lines[2:]) + "\n", encoding="utf-8")
    index = DumpIndex(tmp_path / "index")
    with pytest.raises(InputFormatError, match=r"bad\.nt:3: malformed RDF.*skip_bad_lines"):
        IndexSource(bad, index).types(ENTS)
    assert not list((tmp_path / "index" / "segments").iterdir())  # nothing half-written stays
    got = IndexSource(bad, index, skip_bad_lines=True).types(ENTS)
    assert got == DumpSource(kg_dump_dir / "instances.nt").types(ENTS)  # every other line is there
    with pytest.raises(InputFormatError, match=r"bad\.nt:3: malformed RDF"):  # recorded in the segment
        IndexSource(bad, index).types(ENTS)


def test_the_route_uses_the_index_when_given_a_cache_folder(kg_dump_dir, tmp_path, shared_data):
    from kg.rdf.route import CorpusInput
    from kg.routes import build_table as input_table
    from kg.routes.base import Context

    assert isinstance(make_source("dump", dump=kg_dump_dir, access=Access(cache_dir=tmp_path)), IndexSource)
    assert isinstance(make_source("dump", dump=kg_dump_dir), DumpSource)  # the streamed dump, as before
    assert isinstance(make_annotator("lexicon", dump=kg_dump_dir, access=Access(cache_dir=tmp_path)), IndexedLexicon)
    assert index_for_cache(tmp_path).root == tmp_path / "index"
    corpus = shared_data / "tweets" / "training.txt"
    for features in ("types", "categories"):
        inp = CorpusInput.from_options({"corpus": corpus, "dump": [kg_dump_dir], "features": features})
        # the input's source and annotator: the index with a kgfs home (its rdf-cache), the dump without
        assert isinstance(inp.make_source(Context(home=tmp_path / "home")), IndexSource)
        assert isinstance(inp.make_annotator(Context(home=tmp_path / "home")), IndexedLexicon)
        assert isinstance(inp.make_source(Context()), DumpSource)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HierarchyCycleWarning)
            a = input_table(inp, Context(home=tmp_path / "home"))
            b = input_table(CorpusInput.from_options({"corpus": corpus, "dump": [kg_dump_dir],
                                                      "features": features}))
        assert_same_table(a, b)


def test_threads_asking_at_once_ingest_each_file_once(kg_dump_dir, tmp_path):
    index, errors = DumpIndex(tmp_path / "index"), []

    def ask():
        try:
            IndexSource(kg_dump_dir, index).types(ENTS)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(list((tmp_path / "index" / "segments").iterdir())) == 2


def test_describe_names_the_segments(kg_dump_dir, index):
    d = IndexSource(kg_dump_dir, index).describe()
    assert d["kind"] == "dump" and len(d["index"]) == 2 and len(d["files"]) == 2


def test_annotating_one_long_record_takes_a_small_multiple_of_its_size(kg_dump_dir, index):
    """issue 30: annotation took about 100 bytes of memory per byte of text (a 20 MB record: 2.2 GB). Now spans are
    arrays looked up a window at a time: here under 25 bytes per byte for a text with a mention every 30 characters
    (most of it the mentions found), and the same mentions as the in-memory lexicon's."""
    import tracemalloc

    lex = index.lexicon(kg_dump_dir)
    text = "Chris Gayle hits a six, Lyon beat Chelsea F.C. at home; " * 20_000  # 1.1 MB
    tracemalloc.start()
    found = lex.annotate([text])[0]
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(found) >= 3 * 20_000 and peak < 25 * len(text), (len(found), peak / len(text))
    ref = LexiconAnnotator.from_dump(kg_dump_dir).annotate([text[:50_000]])[0]
    assert [(a.uri, a.offset) for a in lex.annotate([text[:50_000]])[0]] == [(a.uri, a.offset) for a in ref]


# ------------------------------------------------------------------ parallel ingest
def _split_truthy(shared_data, folder):
    """Real Wikidata facts (the truthy dump's shape) in three files, plain, gzip and bzip2."""
    import bz2
    import gzip

    lines = gzip.decompress((shared_data / "wikidata" / "codex_truthy.nt.gz").read_bytes()).splitlines(keepends=True)
    n = len(lines) // 3
    folder.mkdir()
    parts = {"a.nt": (lambda b: b), "b.nt.gz": gzip.compress, "c.nt.bz2": bz2.compress}
    for i, (name, pack) in enumerate(parts.items()):
        (folder / name).write_bytes(pack(b"".join(lines[i * n:(i + 1) * n if i < 2 else None])))
    return folder


def _index_files(root):
    """Every file of an index's segments and lexicons by its path under the root, as bytes (manifests, which hold
    modification times, left out; a segment's ingest seconds too)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.name != "manifest.json" and p.name != ".lock":
            data = p.read_bytes()
            if p.name == "segment.json":
                info = json.loads(data)
                info.pop("seconds")
                data = json.dumps(info, sort_keys=True).encode()
            out[str(p.relative_to(root))] = data
    return out


def _facts(report):
    """A report's files without the paths of their cycle lists (under the index's root)."""
    return [{**f, "cycles": {r: {k: v for k, v in c.items() if k != "file"} for r, c in f["cycles"].items()}}
            for f in report["files"]]


@pytest.fixture(scope="module")
def truthy_parts(shared_data, tmp_path_factory):
    return _split_truthy(shared_data, tmp_path_factory.mktemp("truthy") / "dump")


@pytest.fixture(scope="module")
def serial_index(truthy_parts, tmp_path_factory):
    from kg.rdf.vocabulary import WIKIDATA

    root = tmp_path_factory.mktemp("serial")
    report = DumpIndex(root).ingest(truthy_parts, vocabulary=WIKIDATA.with_relations())
    return root, report


def test_files_read_by_worker_processes_give_the_serial_index_byte_for_byte(truthy_parts, serial_index, tmp_path):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from kg.rdf.vocabulary import WIKIDATA

    root, serial = serial_index
    seen = []
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        report = DumpIndex(tmp_path).ingest(truthy_parts, vocabulary=WIKIDATA.with_relations(), executor=pool,
                                            progress=lambda d, t, what: seen.append((d, t, what)))
    assert len(report["ingested"]) == 3 and _facts(report) == _facts(serial) and report["lexicon"] == serial["lexicon"]
    mine, theirs = _index_files(tmp_path), _index_files(root)
    assert sorted(mine) == sorted(theirs) and len([k for k in mine if k.endswith("segment.json")]) == 3
    assert [k for k in mine if mine[k] != theirs[k]] == []
    total = sum(f.stat().st_size for f in truthy_parts.iterdir())
    assert seen[0] == (0, total, "3 files in parallel") and (total, total, "3 files in parallel, 3 done") in seen
    assert not list((tmp_path / "segments").glob(".building-*"))
    assert DumpIndex(tmp_path).ingest(truthy_parts, vocabulary=WIKIDATA.with_relations(), executor=pool)[
        "ingested"] == []  # known: no worker asked (the pool is shut down)


def test_a_file_that_fails_on_a_worker_is_named_and_the_others_are_kept(truthy_parts, tmp_path):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    dump = tmp_path / "dump"
    shutil.copytree(truthy_parts, dump)
    (dump / "bad.nt").write_text("<http://x/a> <http://x/p> <http://x/b> .\n<http://x/a> <http://x/p> oops .\n")
    index = DumpIndex(tmp_path / "index")
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool, \
            pytest.raises(InputFormatError, match=r"bad\.nt:2: malformed RDF"):
        index.ingest(dump, executor=pool)
    for f in truthy_parts.iterdir():  # read once, kept: a second ingest reads only what failed
        assert index.known_segment(dump / f.name) is not None
    assert index.known_segment(dump / "bad.nt") is None
    assert not list((tmp_path / "index" / "segments").glob(".building-*"))


def test_a_worker_with_other_code_or_without_the_files_is_refused(truthy_parts, tmp_path):
    from kg.errors import KgfsError
    from kg.rdf.index.ingest import build_segment_folder
    from kg.rdf.vocabulary import WIKIDATA

    with pytest.raises(KgfsError, match="runs another kgfs .* install the same kgfs on every worker"):
        build_segment_folder(str(truthy_parts / "a.nt"), str(tmp_path / "s"), WIKIDATA, code="0" * 64)
    with pytest.raises(KgfsError, match=r"dump file /no/such\.nt is not visible on .*shared storage"):
        build_segment_folder("/no/such.nt", str(tmp_path / "s"), WIKIDATA)
    with pytest.raises(KgfsError, match="the dump index folder /no/index is not visible on"):
        build_segment_folder(str(truthy_parts / "a.nt"), "/no/index/s", WIKIDATA)
    assert not (tmp_path / "s").exists()


@pytest.mark.integration  # a Dask cluster of two worker processes on 127.0.0.1 (5-10 s to start)
def test_files_read_on_a_dask_cluster_give_the_serial_index_byte_for_byte(truthy_parts, serial_index, tmp_path):
    from distributed import Client, LocalCluster

    from kg.rdf.vocabulary import WIKIDATA

    root, serial = serial_index
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        report = DumpIndex(tmp_path).ingest(truthy_parts, vocabulary=WIKIDATA.with_relations(),
                                            executor=client.get_executor(pure=False))
        ran = {w for w, n in client.run(lambda dask_worker: dask_worker.state.executed_count).items() if n}
    assert len(ran) == 2 and _facts(report) == _facts(serial)
    assert _index_files(tmp_path) == _index_files(root)
