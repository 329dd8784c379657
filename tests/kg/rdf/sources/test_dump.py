import bz2
import gzip
import shutil

import pyoxigraph as ox
import pytest

from kg.errors import InputFormatError
from kg.rdf.sources.dump import DumpSource, read_lexicon_entries
from kg.sources import KnowledgeSource
from tests.kg.conftest import BROADER_EDGES, DBO, DEJA_VU, ENTITIES, C, R

ENTS = [R + n for n in ENTITIES]


@pytest.fixture(scope="module")
def src(kg_dump_dir):
    return DumpSource(kg_dump_dir)


def test_is_a_knowledge_source(src):
    assert isinstance(src, KnowledgeSource)


def test_types_of_entities_restricted_to_the_ontology(src):
    t = src.types(ENTS)
    assert set(t) == set(ENTS)
    assert t[R + "Chris_Gayle"] == {DBO + "Cricketer"}  # owl:Thing and schema:Person dropped
    assert t[R + "Novak_Djokovic"] == {DBO + "TennisPlayer"}
    assert t[R + "LGBT"] == set()  # no types: kept, empty
    assert t[DEJA_VU] == set()
    assert src.types([R + "Not_in_the_dump"]) == {R + "Not_in_the_dump": set()}


def test_other_namespaces_on_request(kg_dump_dir):
    s = DumpSource(kg_dump_dir, type_namespaces=["dbo", "yago", "schema"])
    assert s.types([R + "Novak_Djokovic"])[R + "Novak_Djokovic"] == {
        DBO + "TennisPlayer", "http://schema.org/Person", "http://dbpedia.org/class/yago/SerbianTennisPlayers"}
    with pytest.raises(ValueError, match="unknown namespace"):
        DumpSource(kg_dump_dir, type_namespaces=["nope"])


def test_class_edges_follow_the_real_ontology_to_the_top(src):
    edges = src.class_edges([DBO + "Cricketer", DBO + "River"])
    assert (DBO + "Cricketer", DBO + "Athlete") in edges
    assert (DBO + "Athlete", DBO + "Person") in edges
    assert (DBO + "Person", DBO + "Agent") in edges
    assert (DBO + "River", DBO + "Stream") in edges
    # owl:Thing is not in the dbo namespace: no edge to it
    assert all(p.startswith(DBO) for _, p in edges)
    children = {c for c, _ in edges}
    assert DBO + "Agent" not in children


def test_categories_and_broader_with_depth_and_cycles(src):
    cats = src.categories([R + "Chris_Gayle", R + "LGBT"])
    assert cats[R + "Chris_Gayle"] == {C + "West_Indies_Test_cricketers", C + "Jamaican_cricketers"}
    assert cats[R + "LGBT"] == set()
    start = cats[R + "Chris_Gayle"]
    assert src.broader(start, 0) == set()
    one = src.broader(start, 1)
    assert one == {(C + "West_Indies_Test_cricketers", C + "Test_cricketers"),
                   (C + "Jamaican_cricketers", C + "Cricketers")}
    full = src.broader(start, None)
    assert (C + "Sports", C + "Recreation") in full and (C + "Recreation", C + "Sports") in full
    assert (C + "Cricket", C + "Cricket") in full
    assert full <= {(C + a, C + b) for a, b in BROADER_EDGES}
    assert src.broader(start, 50) == full  # the cycle ends the walk
    with pytest.raises(ValueError):
        src.broader(start, -1)


def test_files_are_read_once_and_cached(kg_dump_dir):
    s = DumpSource(kg_dump_dir)
    assert s.report["scans"] == 0  # no I/O in the constructor
    s.types(ENTS[:5])
    s.categories(ENTS[:5])
    s.class_edges([DBO + "Cricketer"])
    assert s.report["scans"] == 1
    s.types(ENTS[:8])
    assert s.report["scans"] == 2  # only the new entities are looked up


@pytest.mark.parametrize("kind", ["gz", "bz2", "ttl"])
def test_compressed_and_turtle_dumps_give_the_same_facts(kg_dump_dir, tmp_path, src, kind):
    data = (kg_dump_dir / "instances.nt").read_bytes()
    shutil.copy(kg_dump_dir / "ontology.owl", tmp_path / "ontology.owl")
    if kind == "gz":
        (tmp_path / "instances.nt.gz").write_bytes(gzip.compress(data))
    elif kind == "bz2":
        (tmp_path / "instances.nt.bz2").write_bytes(bz2.compress(data))
    else:
        quads = list(ox.parse(data, ox.RdfFormat.N_TRIPLES))
        (tmp_path / "instances.ttl").write_bytes(
            ox.serialize([q.triple for q in quads], format=ox.RdfFormat.TURTLE,
                         prefixes={"dbo": DBO, "dbr": R}))
    other = DumpSource(tmp_path)
    assert other.types(ENTS) == src.types(ENTS)
    assert other.categories(ENTS) == src.categories(ENTS)
    cl = {DBO + "Cricketer", DBO + "City"}
    assert other.class_edges(cl) == src.class_edges(cl)


def _with_bad_line(kg_dump_dir, tmp_path, suffix=".nt", compress=None):
    lines = (kg_dump_dir / "instances.nt").read_text(encoding="utf-8").splitlines()
    lines.insert(4, '<http://dbpedia.org/resource/Broken> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> '
                    '"unterminated .')
    text = ("\n".join(lines) + "\n").encode("utf-8")
    p = tmp_path / ("bad" + suffix + (compress or ""))
    p.write_bytes(gzip.compress(text) if compress == ".gz" else text)
    return p


@pytest.mark.parametrize("compress", [None, ".gz"])
def test_malformed_line_is_named_and_can_be_skipped(kg_dump_dir, tmp_path, src, compress):
    bad = _with_bad_line(kg_dump_dir, tmp_path, compress=compress)
    with pytest.raises(InputFormatError, match=rf"{bad.name}:5: malformed RDF.*skip_bad_lines"):
        DumpSource([bad]).types(ENTS)
    s = DumpSource([kg_dump_dir / "ontology.owl", bad], skip_bad_lines=True)
    assert s.types(ENTS) == src.types(ENTS)  # every other line still read
    assert [(b[0], b[1]) for b in s.report["bad_lines"]] == [(str(bad), 5)]


def test_two_bad_lines_are_both_reported(tmp_path):
    good = "<http://x/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://dbpedia.org/ontology/City> .\n"
    p = tmp_path / "d.nt"
    p.write_text(good + "<http://x/b> oops\n" + good.replace("/a>", "/c>") + "not rdf at all\n"
                 + good.replace("/a>", "/d>"))
    s = DumpSource([p], skip_bad_lines=True)
    t = s.types(["http://x/a", "http://x/c", "http://x/d"])
    assert all(v == {"http://dbpedia.org/ontology/City"} for v in t.values())
    assert [b[1] for b in s.report["bad_lines"]] == [2, 4]






def test_lexicon_entries(kg_dump_dir):
    labels, redirects, inlinks = read_lexicon_entries(kg_dump_dir)
    assert inlinks == {}  # the test dump has no page links
    assert labels[R + "Chris_Gayle"] == {"Chris Gayle"}
    assert redirects[R + "Djokovic"] == R + "Novak_Djokovic"
    assert not any(k.startswith(DBO) for k in labels)  # ontology class labels are not entities


def test_invalid_entities_are_refused_like_the_sparql_source(src):
    from kg.iri import InvalidIRIError

    for bad in ["http://dbpedia.org/resource/> } ; DROP ALL #", "Chris_Gayle", "http://x/100%_sure"]:
        with pytest.raises(InvalidIRIError):
            src.types([bad])


def test_lenient_mode_reads_slightly_invalid_iris(tmp_path):
    p = tmp_path / "d.nt"
    rdf_type, city = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>", "<http://dbpedia.org/ontology/City>"
    p.write_text(f"<http://x/a b> {rdf_type} {city} .\n<http://x/c> {rdf_type} {city} .\n")
    with pytest.raises(InputFormatError, match=":1:"):
        DumpSource([p]).types(["http://x/c"])
    assert DumpSource([p], lenient=True).types(["http://x/c"]) == {"http://x/c": {"http://dbpedia.org/ontology/City"}}
