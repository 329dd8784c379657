import gzip
import re

import numpy as np
import pytest
from hypothesis import given, settings

from kg.errors import CycleError, HierarchyCycleWarning, InputFormatError, KgfsError, UnknownFeatureError
from kg.ontology import (
    ancestor_closure,
    normalize_namespaces,
    read_annotations,
    read_labels,
    read_obo,
    term_table,
)
from tests.strategies import dags

# A tiny ontology with the features the reader must handle: header version, namespaces,
# alt_id, obsolete terms with replaced_by / consider, relationship lines, trailing modifiers
# and comments, escaped quotes, a [Typedef] stanza.
OBO = """format-version: 1.2
data-version: releases/2099-01-01
date: 01:01:2099 00:00
default-namespace: gene_ontology

[Term]
id: GO:0000001
name: process root
namespace: biological_process

[Term]
id: GO:0000002
name: child \\"quoted\\" process
namespace: biological_process
alt_id: GO:0000020
is_a: GO:0000001 {source="x"} ! process root

[Term]
id: GO:0000003
name: grandchild process
namespace: biological_process
is_a: GO:0000002 ! child
relationship: part_of GO:0000004 ! other process

[Term]
id: GO:0000004
name: other process
namespace: biological_process
is_a: GO:0000001

[Term]
id: GO:0000005
name: component root
namespace: cellular_component

[Term]
id: GO:0000006
name: nucleus-ish
namespace: cellular_component
is_a: GO:0000005
relationship: part_of GO:0000003

[Term]
id: GO:0000007
name: old process
namespace: biological_process
is_obsolete: true
replaced_by: GO:0000003

[Term]
id: GO:0000008
name: older process
namespace: biological_process
is_obsolete: true
consider: GO:0000004
consider: GO:0000002

[Term]
id: GO:0000009
name: no namespace line

[Typedef]
id: part_of
name: part of
is_transitive: true
"""


@pytest.fixture
def obo(tmp_path):
    p = tmp_path / "tiny.obo"
    p.write_text(OBO)
    return p


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


# ---------------------------------------------------------------------- OBO
def test_read_obo_terms_edges_and_metadata(obo):
    go = read_obo(obo)
    h = go.hierarchy
    assert h.node_ids.tolist() == [f"GO:000000{i}" for i in (1, 2, 3, 4, 5, 6, 9)]
    assert sorted(h.edge_list()) == [
        ("GO:0000002", "GO:0000001"),
        ("GO:0000003", "GO:0000002"),
        ("GO:0000004", "GO:0000001"),
        ("GO:0000006", "GO:0000005"),
    ]
    assert go.version == "releases/2099-01-01"
    assert go.names["GO:0000002"] == 'child "quoted" process'
    assert go.namespace["GO:0000009"] == "gene_ontology"  # default-namespace
    assert go.alt_ids == {"GO:0000020": "GO:0000002"}
    assert go.obsolete == {
        "GO:0000007": {"replaced_by": ["GO:0000003"], "consider": []},
        "GO:0000008": {"replaced_by": [], "consider": ["GO:0000004", "GO:0000002"]},
    }
    assert go.report["relations_in_file"] == {"is_a": 4, "part_of": 2}
    assert "GO:0000007" not in go and "GO:0000003" in go


def test_read_obo_crlf_line_ends(tmp_path):
    p = tmp_path / "crlf.obo"
    p.write_bytes(OBO.replace("\n", "\r\n").encode())
    go = read_obo(p)
    assert go.hierarchy == read_obo(write(tmp_path, "lf.obo", OBO)).hierarchy
    assert go.names["GO:0000001"] == "process root" and go.version == "releases/2099-01-01"


def test_read_obo_relations_on_request(obo):
    go = read_obo(obo, relations=("is_a", "part_of"))
    assert ("GO:0000003", "GO:0000004") in go.hierarchy.edge_list()
    assert ("GO:0000006", "GO:0000003") in go.hierarchy.edge_list()  # cross-namespace part_of
    assert go.hierarchy.ancestors("GO:0000006") == ["GO:0000001", "GO:0000002", "GO:0000003", "GO:0000004",
                                                    "GO:0000005"]
    only_part = read_obo(obo, relations="part_of")
    assert sorted(only_part.hierarchy.edge_list()) == [("GO:0000003", "GO:0000004"), ("GO:0000006", "GO:0000003")]
    everything = read_obo(obo, relations=("all",))
    assert everything.relations == ("is_a", "part_of") and everything.hierarchy.n_edges == 6


@pytest.mark.parametrize("ns", ["BP", "bp", "biological_process", "P", ["BP"]])
def test_read_obo_namespace_selection(obo, ns):
    go = read_obo(obo, relations=("is_a", "part_of"), namespaces=ns)
    assert go.hierarchy.node_ids.tolist() == ["GO:0000001", "GO:0000002", "GO:0000003", "GO:0000004"]
    assert go.namespaces == ("biological_process",)
    assert go.names["GO:0000006"] == "nucleus-ish"  # names of all terms stay available


def test_namespace_selection_drops_edges_leaving_it(obo):
    go = read_obo(obo, relations=("is_a", "part_of"), namespaces="CC")
    assert go.hierarchy.edge_list() == [("GO:0000006", "GO:0000005")]
    assert go.report["dangling_edges"] == 1
    assert "namespace biological_process" in go.report["dangling_examples"][0]
    assert normalize_namespaces("BP+CC") == ("biological_process", "cellular_component")
    assert normalize_namespaces(["mf", "MF"]) == ("molecular_function",)


def test_read_obo_gzip_and_date_fallback(tmp_path):
    p = tmp_path / "x.obo.gz"
    with gzip.open(p, "wt") as fh:
        fh.write(OBO.replace("data-version: releases/2099-01-01\n", ""))
    go = read_obo(p)
    assert go.version == "01:01:2099 00:00"
    assert go.hierarchy.n_nodes == 7


def test_resolve(obo):
    go = read_obo(obo, namespaces="BP")
    assert go.resolve("GO:0000003") == "GO:0000003"
    assert go.resolve("GO:0000020") == "GO:0000002"  # alt_id
    with pytest.raises(UnknownFeatureError, match=r"'GO:0000007' is obsolete.*replaced_by GO:0000003"):
        go.resolve("GO:0000007")
    with pytest.raises(UnknownFeatureError, match=r"consider GO:0000004, GO:0000002"):
        go.resolve("GO:0000008")
    assert go.resolve("GO:0000007", on_obsolete="replace") == "GO:0000003"
    assert go.resolve("GO:0000008", on_obsolete="replace") is None  # consider is no replacement
    assert go.resolve("GO:0000007", on_obsolete="drop") is None
    with pytest.raises(UnknownFeatureError, match=r"unknown term id 'GO:1234567'.*tiny.obo"):
        go.resolve("GO:1234567")
    with pytest.raises(UnknownFeatureError, match="namespace 'cellular_component', which was not selected"):
        go.resolve("GO:0000006")
    with pytest.raises(ValueError, match="on_obsolete"):
        go.resolve("GO:0000003", on_obsolete="keep")


@pytest.mark.parametrize(
    "bad, line, msg",
    [
        ("[Term]\nid: A:1\nthis line has no tag\n", 3, "expected 'tag: value'"),
        ("[Term]\nname: nameless\n\n[Term]\nid: A:2\n", 1, "no 'id' tag"),
        ("[Term]\nid: A:1\n\n[Term\nid: A:2\n", 4, "malformed stanza header"),
        ("[Term]\nid: A:1\nid: A:2\n", 3, "second 'id'"),
        ("[Term]\nid: A:1\nis_a:\n", 3, "'is_a' without a target"),
        ("[Term]\nid: A:1\nrelationship: part_of\n", 3, "needs a type and a target"),
        ("[Term]\nid: A:1\n\n[Term]\nid: A:1\n", 4, "duplicate term id"),
    ],
)
def test_malformed_stanza_names_file_and_line(tmp_path, bad, line, msg):
    p = write(tmp_path, "bad.obo", bad)
    with pytest.raises(InputFormatError, match=re.escape(msg)) as err:
        read_obo(p)
    assert err.value.line == line
    assert str(err.value).startswith(f"{p}:{line}: ")


def test_not_an_obo_file(tmp_path):
    with pytest.raises(InputFormatError, match="no \\[Term\\] stanza"):
        read_obo(write(tmp_path, "empty.obo", "format-version: 1.2\n"))


def test_cycle_raises_cycle_error(tmp_path):
    text = "[Term]\nid: A:1\nis_a: A:3\n\n[Term]\nid: A:2\nis_a: A:1\n\n[Term]\nid: A:3\nis_a: A:2\n\n[Term]\nid: A:4\n"
    p = write(tmp_path, "cyc.obo", text)
    with pytest.raises(CycleError, match=r"cyc\.obo.*A:1 -> A:3 -> A:2 -> A:1") as err:
        read_obo(p, on_cycle="raise")
    assert err.value.cycles == [["A:1", "A:3", "A:2"]]
    # merged by default (is_a is transitive: the three terms imply each other), warned naming the file
    with pytest.warns(HierarchyCycleWarning, match=r"cyc\.obo: .*A:1 ≡ A:2 ≡ A:3"):
        onto = read_obo(p)
    assert onto.hierarchy.node_ids.tolist() == ["A:1 ≡ A:2 ≡ A:3", "A:4"]
    assert onto.report["merged_cycles"] == {"A:1 ≡ A:2 ≡ A:3": ["A:1", "A:2", "A:3"]}
    assert onto.resolve("A:2") == "A:1 ≡ A:2 ≡ A:3" and "A:3" in onto  # an annotation to a member is to the merged term
    # the cycle is only there through part_of: is_a alone is fine
    text2 = "[Term]\nid: A:1\nrelationship: part_of A:2\n\n[Term]\nid: A:2\nis_a: A:1\n"
    p2 = write(tmp_path, "cyc2.obo", text2)
    assert read_obo(p2).hierarchy.n_edges == 1
    with pytest.raises(CycleError):
        read_obo(p2, relations=("is_a", "part_of"), on_cycle="raise")
    with pytest.warns(HierarchyCycleWarning):
        assert read_obo(p2, relations=("is_a", "part_of")).hierarchy.node_ids.tolist() == ["A:1 ≡ A:2"]


@settings(max_examples=40)
@given(dags(max_nodes=15))
def test_obo_round_trip_of_random_dags(tmp_path_factory, h):
    lines = ["format-version: 1.2", ""]
    for i, node in enumerate(h.node_ids.tolist()):
        lines += ["[Term]", f"id: {node}", f"name: term {i}", "namespace: test"]
        lines += [f"is_a: {h.node_ids[p]} ! parent" for p in h.parent_indices(i)]
        lines.append("")
    p = tmp_path_factory.mktemp("obo") / "r.obo"
    p.write_text("\n".join(lines))
    go = read_obo(p)
    assert go.hierarchy == h
    assert (go.hierarchy.ancestor_matrix != h.ancestor_matrix).nnz == 0


def test_ancestor_closure_matches_the_ancestor_matrix(obo):
    h = read_obo(obo, relations=("is_a", "part_of")).hierarchy
    for i in range(h.n_nodes):
        mask = ancestor_closure(h, [i])
        expect = set(h.ancestor_indices(i).tolist()) | {i}
        assert set(np.flatnonzero(mask).tolist()) == expect


# ---------------------------------------------------------------------- GAF and tables
def gaf_row(gene, term, qualifier="", evidence="IDA", aspect="P", symbol=None, ncol=17):
    cols = ["FB", gene, symbol or f"sym{gene}", qualifier, term, "PMID:1", evidence, "", aspect,
            "name", "", "protein", "taxon:7227", "20140101", "FlyBase", "", ""]
    return "\t".join(cols[:ncol])


GAF = "\n".join(
    [
        "!gaf-version: 2.0",
        "!generated for a test",
        gaf_row("g1", "GO:0000003"),
        gaf_row("g1", "GO:0000004", evidence="IEA"),
        gaf_row("g1", "GO:0000003", evidence="IMP"),  # duplicate pair
        gaf_row("g2", "GO:0000002", qualifier="NOT"),
        gaf_row("g2", "GO:0000004", qualifier="contributes_to|NOT"),
        gaf_row("g2", "GO:0000006", aspect="C"),
        gaf_row("g3", "GO:0000020", qualifier="colocalizes_with", evidence="EXP"),
        "",
    ]
)


def test_read_gaf_not_qualifier_and_filters(tmp_path):
    p = write(tmp_path, "a.gaf", GAF)
    assert read_annotations(p) == {
        "g1": ["GO:0000003", "GO:0000004"],
        "g2": ["GO:0000006"],
        "g3": ["GO:0000020"],
    }
    assert read_annotations(p, evidence={"IDA", "EXP"}) == {
        "g1": ["GO:0000003"], "g2": ["GO:0000006"], "g3": ["GO:0000020"],
    }
    assert read_annotations(p, exclude_evidence=["IEA"])["g1"] == ["GO:0000003"]
    assert read_annotations(p, namespaces="BP") == {"g1": ["GO:0000003", "GO:0000004"], "g3": ["GO:0000020"]}
    assert list(read_annotations(p, id_column="symbol")) == ["symg1", "symg2", "symg3"]
    assert list(read_annotations(p, id_column=3)) == ["symg1", "symg2", "symg3"]


def test_gaf_gzip_and_auto_detect_without_header(tmp_path):
    p = tmp_path / "a.gaf.gz"
    with gzip.open(p, "wt") as fh:
        fh.write(gaf_row("g1", "GO:0000003") + "\n")
    assert read_annotations(p) == {"g1": ["GO:0000003"]}


def test_gaf_with_too_few_columns(tmp_path):
    p = write(tmp_path, "short.gaf",
              "!gaf-version: 2.1\n" + gaf_row("g1", "GO:1") + "\n" + gaf_row("g2", "GO:1", ncol=15) + "\n")
    with pytest.raises(InputFormatError, match=r"short\.gaf:3: GAF row has 15 .*expected 17") as err:
        read_annotations(p)
    assert err.value.line == 3
    p = write(tmp_path, "tiny.gaf", "!gaf-version: 2.0\nFB\tg1\tsym\t\tGO:1\n")
    with pytest.raises(InputFormatError, match=r"tiny\.gaf:2: .*5 tab-separated"):
        read_annotations(p, format="gaf")


def test_two_column_tables(tmp_path):
    with_header = write(tmp_path, "h.tsv",
                        "gene\tgo_id\ng1\tGO:0000003\ng1\tGO:0000004\ng2\tGO:0000002\ng1\tGO:0000003\n")
    assert read_annotations(with_header) == {"g1": ["GO:0000003", "GO:0000004"], "g2": ["GO:0000002"]}
    no_header = write(tmp_path, "n.tsv", "# comment\ng1\tGO:0000003,GO:0000004\ng2\tGO:0000002\n")
    assert read_annotations(no_header) == {"g1": ["GO:0000003", "GO:0000004"], "g2": ["GO:0000002"]}
    swapped = write(tmp_path, "s.tsv", "GO:0000003\tg1\n")
    assert read_annotations(swapped, id_column=1) == {"g1": ["GO:0000003"]}
    bad = write(tmp_path, "b.tsv", "g1\tGO:0000003\ng2\tGO:0000002\textra\n")
    with pytest.raises(InputFormatError, match=r"b\.tsv:2: expected 2 tab-separated columns"):
        read_annotations(bad)
    with pytest.raises(ValueError, match="evidence filter needs a GAF"):
        read_annotations(no_header, evidence={"IDA"})


def test_read_labels(tmp_path):
    p = write(tmp_path, "l.tsv", "gene\tlabel\ng1\tpro\ng2\tanti\ng1\tpro\n")
    assert read_labels(p) == {"g1": "pro", "g2": "anti"}
    missing = write(tmp_path, "m.tsv", "g1\tpro\ng2\n")
    with pytest.raises(InputFormatError, match=r"m\.tsv:2: missing label column"):
        read_labels(missing)
    conflict = write(tmp_path, "c.tsv", "g1\tpro\ng1\tanti\n")
    with pytest.raises(InputFormatError, match=r"c\.tsv:2: gene 'g1' has two labels"):
        read_labels(conflict)


def test_readers_stream_the_file(tmp_path):
    """Peak memory grows with what is kept (a few genes), not with the file (a 3 MB GAF)."""
    import tracemalloc

    rows = [gaf_row(f"g{i % 50}", f"GO:{i % 400:07d}", evidence="IEA" if i % 3 else "IDA") for i in range(30_000)]
    p = write(tmp_path, "big.gaf", "!gaf-version: 2.2\n" + "\n".join(rows) + "\n")
    tracemalloc.start()
    try:
        ann = read_annotations(p, exclude_evidence={"IEA"})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(ann) == 50 and sum(map(len, ann.values())) == 400
    assert peak < p.stat().st_size / 8, (peak, p.stat().st_size)


def test_streamed_lines_are_those_of_splitlines(tmp_path):
    """Every line break ``str.splitlines`` knows still ends a line (and numbers the lines in errors)."""
    text = "gene\tgo\r\ng1\tGO:0000001\rg2\tGO:0000002\x0cg3\tGO:0000003\u2028\ng4\tGO:0000004\ng5\tGO:5"
    p = tmp_path / "t.tsv"
    p.write_bytes(text.encode())
    assert read_annotations(p) == {f"g{i}": [f"GO:{i:07d}" if i < 5 else "GO:5"] for i in range(1, 6)}
    p.write_bytes((text + "\x1cbad line\n").encode())
    expected = len(text.splitlines()) + 1
    with pytest.raises(InputFormatError, match=rf"t\.tsv:{expected}: expected 2 tab-separated"):
        read_annotations(p)
    lab = tmp_path / "l.tsv"
    lab.write_bytes(b"g1\tpro\r\ng2\tanti\x0cg3")
    with pytest.raises(InputFormatError, match=r"l\.tsv:3: missing label column"):
        read_labels(lab)


def test_truncated_gzip_is_an_input_error(tmp_path):
    p = tmp_path / "a.gaf.gz"
    with gzip.open(p, "wt") as fh:
        fh.write("".join(gaf_row(f"g{i}", "GO:0000003") + "\n" for i in range(5000)))
    p.write_bytes(p.read_bytes()[:-200])
    with pytest.raises(InputFormatError, match=r"a\.gaf\.gz: cannot read file"):
        read_annotations(p)


# ---------------------------------------------------------------------- term_table
def test_build_table_closes_and_reports(obo):
    go = read_obo(obo, namespaces="BP")
    ann = {"g1": ["GO:0000003"], "g2": ["GO:0000020", "GO:0000006"], "g3": ["GO:0000004"]}
    t = term_table(go, ann, {"g1": "pro", "g2": "anti", "g3": "pro", "g9": "anti"})
    assert t.instance_ids.tolist() == ["g1", "g2", "g3"]
    assert t.feature_names.tolist() == ["GO:0000001", "GO:0000002", "GO:0000003", "GO:0000004"]
    assert t.X.toarray().astype(int).tolist() == [[1, 1, 1, 0], [1, 1, 0, 0], [1, 0, 0, 1]]
    assert t.y.tolist() == ["pro", "anti", "pro"]
    assert t.meta["alt_ids_mapped"] == {"GO:0000020": "GO:0000002"}
    assert t.meta["other_namespace_terms"] == 1
    assert t.meta["unannotated_genes"] == ["g9"]
    assert t.meta["ontology_version"] == "releases/2099-01-01"


def test_build_table_obsolete_and_unknown_terms(obo):
    go = read_obo(obo, namespaces="BP")
    ann = {"g1": ["GO:0000007", "GO:0000004"], "g2": ["GO:0000008", "GO:4242424"]}
    with pytest.raises(UnknownFeatureError, match=r"'GO:0000007' is obsolete.*gene 'g1'"):
        term_table(go, ann, unknown="drop")
    with pytest.raises(UnknownFeatureError, match=r"unknown term id 'GO:4242424'.*gene 'g2'.*unknown\W+drop"):
        term_table(go, ann, on_obsolete="replace")
    t = term_table(go, ann, on_obsolete="replace", unknown="drop")
    assert t.meta["replaced_terms"] == {"GO:0000007": "GO:0000003"}
    assert t.meta["obsolete_dropped"] == ["GO:0000008"]
    assert t.meta["unknown_terms"] == ["GO:4242424"]
    assert t.instance_ids.tolist() == ["g1"]  # g2 lost all its terms
    assert t.meta["unannotated_genes"] == ["g2"]
    t2 = term_table(go, ann, on_obsolete="drop", unknown="drop", keep_unannotated=True)
    assert t2.instance_ids.tolist() == ["g1", "g2"] and t2.X[1].nnz == 0
    with pytest.raises(KgfsError, match="no gene has a usable annotation"):
        term_table(go, {"g": ["GO:0000006"]})


def test_build_table_min_support(obo):
    go = read_obo(obo)
    ann = {"a": ["GO:0000003"], "b": ["GO:0000002"], "c": ["GO:0000004"]}
    t = term_table(go, ann, min_support=2)
    assert t.feature_names.tolist() == ["GO:0000001", "GO:0000002"]
    assert t.hierarchy.edge_list() == [("GO:0000002", "GO:0000001")]


# ---------------------------------------------------------------------- the real 2014 GO
@pytest.fixture(scope="module")
def go2014(shared_data):
    return read_obo(shared_data / "go" / "gene_ontology_ext_13062014.obo.gz")


def test_real_go_2014(go2014):
    assert go2014.version == "releases/2014-06-13"
    assert go2014.report["n_terms"] == 41209
    assert len(go2014.obsolete) == 1812
    assert go2014.hierarchy.n_nodes == 41209 - 1812
    roots = sorted(go2014.hierarchy.node_ids[go2014.hierarchy.roots].tolist())
    assert roots == ["GO:0003674", "GO:0005575", "GO:0008150"]
    assert go2014.names["GO:0008340"] == "determination of adult lifespan"
    assert "GO:0008150" in go2014.hierarchy.ancestors("GO:0008340")


def test_real_go_2014_namespaces_and_part_of(shared_data):
    bp = read_obo(shared_data / "go" / "gene_ontology_ext_13062014.obo.gz", relations=("is_a", "part_of"),
                  namespaces="BP")
    assert set(bp.namespace[t] for t in bp.hierarchy.node_ids.tolist()) == {"biological_process"}
    assert bp.report["edges_by_relation"]["part_of"] > 0
    assert bp.hierarchy.node_ids[bp.hierarchy.roots].tolist() == ["GO:0008150"]
