import numpy as np
import pytest
import scipy.sparse as sp

from kg.errors import HierarchyCycleWarning, ImplicationError, InputFormatError
from kg.hierarchy import FeatureHierarchy
from kg.ontology import read_obo, term_table
from kg.ontology.published import (
    GO_ROOTS,
    aire_table,
    complete_ontology,
    fix_lod_name,
    go_completion_edges,
    hierarchy_for_terms,
    read_aire_matrix,
    read_go_completion,
    read_lod,
    read_lod_hierarchy,
    read_rpv_arff,
    transitive_reduction,
    write_go_completion,
)

ORGS = ["CE", "DM", "MM", "SC"]
AIRE_SETS = ["BP", "CC", "MF", "BPCC", "BPMF", "MFCC", "BPMFCC"]
RPV_SETS = ["BP", "CC", "MF", "BP+CC", "BP+MF", "CC+MF", "BP+CC+MF"]


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


@pytest.fixture(scope="module")
def go2014(shared_data):
    return read_obo(shared_data / "go" / "gene_ontology_ext_13062014.obo.gz")


# ---------------------------------------------------------------------- small literal files
H = FeatureHierarchy.from_edges([("b", "a"), ("c", "b"), ("d", "a")])


def test_read_aire_matrix_literal(tmp_path):
    p = write(tmp_path, "x.txt", "is_a,11,22,33,\na,1,1,0,\nb,1,0,0,\nclass,1,0,1,\n")
    x, terms, genes, y = read_aire_matrix(p)
    assert terms == ["a", "b"] and genes == ["11", "22", "33"] and y.tolist() == [1, 0, 1]
    assert x.toarray().tolist() == [[1, 1], [1, 0], [0, 0]]
    t = aire_table(p, H)
    assert t.hierarchy.edge_list() == [("b", "a")]
    assert t.meta["missing_terms"] == []


@pytest.mark.parametrize(
    "text, line, msg",
    [
        ("is_a,1,2,\na,1,2,\nclass,0,1,\n", 2, "non-binary value"),
        ("is_a,1,2,\na,1,x,\nclass,0,1,\n", 2, "non-binary value 'x'"),
        ("is_a,1,2,\na,1,\nclass,0,1,\n", 2, "1 values for 2 genes"),
        ("is_a,1,2,\na,1,0,\n", 2, "missing label column"),
        ("genes,1,2,\na,1,0,\nclass,0,1,\n", 1, "must start with 'is_a'"),
        ("is_a,1,2,\nclass,0,1,\na,1,0,\n", 2, "must be the last row"),
    ],
)
def test_read_aire_matrix_errors(tmp_path, text, line, msg):
    p = write(tmp_path, "bad.txt", text)
    with pytest.raises(InputFormatError, match=msg) as err:
        read_aire_matrix(p)
    assert err.value.line == line and str(p) in str(err.value)


def test_hierarchy_for_terms_nearest_and_induced():
    h, rep = hierarchy_for_terms(H, ["c", "a", "zz"])
    assert h.node_ids.tolist() == ["c", "a", "zz"]
    assert h.edge_list() == [("c", "a")]  # through the absent b
    assert rep["missing_terms"] == ["zz"]
    h2, _ = hierarchy_for_terms(H, ["c", "a", "zz"], edges="induced")
    assert h2.n_edges == 0  # no direct c -> a edge


RPV_ARFF = """@relation 'tiny'
@attribute entrez string
@attribute a {0,1}
@attribute c {0,1}
@attribute q {0,1}
@attribute class {0,1}
@data
11,1,1,0,1
22,0,1,1,0
33,1,0,0,1
"""


def test_read_rpv_arff_literal_check_modes(tmp_path):
    p = write(tmp_path, "t.arff", RPV_ARFF)
    t = read_rpv_arff(p, H)
    assert t.instance_ids.tolist() == ["11", "22", "33"]
    assert t.feature_names.tolist() == ["a", "c", "q"]
    assert t.y.tolist() == [1, 0, 1]
    assert t.meta["missing_terms"] == ["q"]
    assert t.meta["violations"] == 1  # gene 22 has c but not its ancestor a
    r = read_rpv_arff(p, H, check="repair")
    assert r.meta["repaired_cells"] == 1 and r.X[1, 0] == 1
    with pytest.raises(ImplicationError, match="'22' has 'c' but not its parent 'a'"):
        read_rpv_arff(p, H, check="raise")
    flat = read_rpv_arff(p)
    assert flat.hierarchy.n_edges == 0
    with pytest.raises(ValueError, match="check must be"):
        read_rpv_arff(p, H, check="fix")


def test_sparse_arff(tmp_path):
    text = ("@RELATION s\n@ATTRIBUTE entrez string\n@ATTRIBUTE a {0,1}\n@ATTRIBUTE c {0,1}\n@ATTRIBUTE class {0,1}\n"
            "@DATA\n{0 11,1 1,2 1,3 1}\n{0 22,2 1}\n")
    t = read_rpv_arff(write(tmp_path, "s.arff", text), H)
    assert t.instance_ids.tolist() == ["11", "22"]
    assert t.X.toarray().tolist() == [[1, 1], [0, 1]]
    assert t.y.tolist() == [1, 0] and t.meta["violations"] == 1


def test_read_rpv_arff_bad_values(tmp_path):
    p = write(tmp_path, "t.arff",
              RPV_ARFF.replace("@attribute q {0,1}", "@attribute q numeric").replace("22,0,1,1,0", "22,0,1,2,0"))
    with pytest.raises(InputFormatError, match=r"t\.arff:9: non-binary value '2' in instance 2, attribute 'q'"):
        read_rpv_arff(p)
    p1 = write(tmp_path, "n.arff", RPV_ARFF.replace("@attribute q {0,1}", "@attribute q {0,1,2}"))
    with pytest.raises(InputFormatError, match=r"attribute 'q' is nominal \['0', '1', '2'\], not binary"):
        read_rpv_arff(p1)
    p2 = write(tmp_path, "broken.arff", "@relation x\n@attribute a {0,1\n@data\n1\n")
    with pytest.raises(InputFormatError, match=r"broken\.arff:2: unterminated nominal type"):
        read_rpv_arff(p2)


LOD_CSV = (
    '"http://x/PeopleFrom{0,1}Madrid,Spain",http://x/Person, http://x/Agent,,,,\n'
    "http://x/Person,http://x/Agent,,,,,\n"
    "http://x/Category:Econ,http://x/Category:Econ_dev,_growth,_change, http://x/Agent,,\n"
    "http://x/Loop,http://x/Loop, http://x/Agent,,,\n"
    "http://x/Pct\\%20,http://x/Agent,,,,\n"
    "http://x/Cyc1,http://x/Cyc2,,,,\n"
    "http://x/Cyc2,http://x/Cyc1,,,,\n"
)

LOD_ARFF = """@relation LDtiny
@attribute 'http://x/PeopleFrom{0,1}Madrid,Spain' {0,1}
@attribute http://x/Person {0,1}
@attribute http://x/Agent {0,1}
@attribute 'http://x/Pct\\%20' {0,1}
@attribute http://x/Unknown {0,1}
@attribute Label {high,low}
@data
1,1,1,0,0,high
1,0,1,1,1,low
0,0,0,0,0,low
"""


def test_lod_names_quotes_self_loops_cycles(tmp_path):
    assert fix_lod_name(" 'x{1,0}y\\%2C' ".strip().strip("'")) == "xRealy%2C"
    p = write(tmp_path, "h.csv", LOD_CSV)
    with pytest.warns(HierarchyCycleWarning, match="Cyc2 -> http://x/Cyc1"):
        h, rep = read_lod_hierarchy(p)
    assert rep["self_loops"] == 1
    assert rep["removed_edges"] == [["http://x/Cyc2", "http://x/Cyc1"]]
    assert h.parents("http://x/PeopleFromRealMadrid,Spain") == ["http://x/Person"]  # reduced: Agent implied
    assert h.parents("http://x/Category:Econ") == ["http://x/Agent", "http://x/Category:Econ_dev,_growth,_change"]
    assert "http://x/Pct%20" in h.index


def test_read_lod_literal(tmp_path):
    csv_p = write(tmp_path, "h.csv", LOD_CSV)
    arff_p = write(tmp_path, "t.arff", LOD_ARFF)
    with pytest.warns(HierarchyCycleWarning):
        t = read_lod(arff_p, csv_p)
    assert t.feature_names.tolist() == [
        "http://x/PeopleFromRealMadrid,Spain", "http://x/Person", "http://x/Agent", "http://x/Pct%20", "http://x/Unknown",
    ]
    assert t.y.tolist() == ["high", "low", "low"]
    assert t.meta["missing_terms"] == ["http://x/Unknown"]
    # WEKA's tokenizer reads the quoted 'http://x/Pct\\%20' as http://x/Pct%20: nothing to repair there
    assert t.meta["renamed_features"] == {
        "http://x/PeopleFrom{0,1}Madrid,Spain": "http://x/PeopleFromRealMadrid,Spain",
    }
    assert t.meta["violations"] == 1  # row 2: PeopleFrom... = 1 but Person = 0
    with pytest.warns(HierarchyCycleWarning):
        r = read_lod(arff_p, csv_p, check="repair")
    assert r.X[1, 1] == 1 and r.meta["repaired_cells"] == 1


def test_transitive_reduction():
    h = FeatureHierarchy.from_edges([("c", "b"), ("b", "a"), ("c", "a"), ("d", "a")])
    r = transitive_reduction(h)
    assert sorted(r.edge_list()) == [("b", "a"), ("c", "b"), ("d", "a")]
    assert (r.ancestor_matrix != h.ancestor_matrix).nnz == 0


# ---------------------------------------------------------------------- real files
def most_specific(x: sp.csr_matrix, h: FeatureHierarchy) -> sp.csr_matrix:
    """Cells whose term has no child present in the same row."""
    xi = x.astype(np.int32).tocsr()
    has_child = (xi @ h.parent_matrix.astype(np.int32)) > 0
    out = (xi - xi.multiply(has_child)).tocsr()
    out.eliminate_zeros()
    return out


def test_aire_tables_are_closed_under_go_2014(shared_data, go2014):
    for org in ORGS:
        for s in AIRE_SETS:
            t = aire_table(shared_data / "ageing" / "aire" / f"{org}-{s}.txt", go2014, check="raise")
            assert t.meta["missing_terms"] == []
            assert set(np.unique(t.y).tolist()) == {0, 1}
    dm = aire_table(shared_data / "ageing" / "aire" / "DM-BP.txt", go2014)
    assert dm.shape == (127, 699)


def test_rebuild_all_28_aire_datasets_from_most_specific_terms(shared_data, go2014):
    """The end-to-end check of the DAG and the closure: gene -> most specific GO terms, plus
    the 2014 GO, rebuilt with term_table, gives back exactly each AIRE matrix."""
    for org in ORGS:
        for s in AIRE_SETS:
            x, terms, genes, y = read_aire_matrix(shared_data / "ageing" / "aire" / f"{org}-{s}.txt")
            h, _ = hierarchy_for_terms(go2014, terms)
            spec = most_specific(x, h)
            facts = {g: [terms[j] for j in spec[i].indices] for i, g in enumerate(genes)}
            assert sum(len(v) for v in facts.values()) < x.nnz  # really only the most specific
            t = term_table(go2014, facts, dict(zip(genes, y.tolist())))
            assert t.instance_ids.tolist() == genes, (org, s)
            assert sorted(t.feature_names.tolist()) == sorted(terms), (org, s)
            order = [t.hierarchy.index[tid] for tid in terms]
            assert (t.X[:, order] != x).nnz == 0, (org, s)
            assert t.y.tolist() == y.tolist()


def test_all_28_rpv_arffs_load_and_report_missing_terms(shared_data, go2014):
    seen = 0
    for org in ORGS:
        for s in RPV_SETS:
            t = read_rpv_arff(shared_data / "ageing" / "rpv" / f"{org}-{s}-threshold-3.arff", go2014)
            missing = t.meta["missing_terms"]
            assert 3 <= len(missing) <= 60, (org, s, len(missing))  # terms newer than 2014
            assert all(m.startswith("GO:") and m not in go2014.hierarchy.index for m in missing)
            roots = set(t.hierarchy.node_ids[t.hierarchy.roots].tolist())
            assert set(missing) <= roots
            assert "entrez" not in t.feature_names.tolist()
            assert set(np.unique(t.y).tolist()) == {0, 1}
            seen += 1
    assert seen == 28


def test_rpv_dm_bp_matches_the_data_readme(shared_data, go2014):
    p = shared_data / "ageing" / "rpv" / "DM-BP-threshold-3.arff"
    induced = read_rpv_arff(p, go2014, edges="induced")
    assert len(induced.meta["missing_terms"]) == 20
    assert len(induced.hierarchy.roots) == 23
    assert induced.meta["violations"] == 41
    nearest = read_rpv_arff(p, go2014)
    assert len(nearest.hierarchy.roots) == 21  # missing terms + GO:0008150
    repaired = read_rpv_arff(p, go2014, check="repair")
    assert repaired.hierarchy.violations(repaired.X).nnz == 0
    assert repaired.meta["repaired_cells"] > 0


@pytest.mark.parametrize(
    "arff, csv, shape, classes",
    [
        ("LDCities", "LDCities", (212, 102), {"high", "medium", "low"}),
        ("LDNYDailyheadings", "LDNYDailyheadings", (1016, 1303), {"true", "false"}),
        ("LDSportsTweetst", "LDSportsTweetst", (1179, 912), {0, 1}),
    ],
)
def test_real_lod_datasets(shared_data, arff, csv, shape, classes):
    t = read_lod(shared_data / "lod" / f"{arff}.arff", shared_data / "lod" / f"{csv}.csv")
    assert t.shape == shape
    assert set(t.y.tolist()) == classes
    assert t.meta["missing_terms"] == []  # after the name repair every feature is in the CSV
    assert not any("{0,1}" in n or "\\%" in n for n in t.feature_names.tolist())
    assert t.hierarchy.n_edges > 0
    r = read_lod(shared_data / "lod" / f"{arff}.arff", shared_data / "lod" / f"{csv}.csv", check="repair")
    assert r.hierarchy.violations(r.X).nnz == 0
    assert r.meta.get("repaired_cells", 0) == t.meta.get("violations", 0) or t.meta.get("violations", 0) > 0


def test_real_lod_hierarchy_only_files(shared_data):
    with pytest.warns(HierarchyCycleWarning):
        h, rep = read_lod_hierarchy(shared_data / "lod" / "LDSportsTweetsc.csv")
    assert h.n_nodes > 10000 and rep["removed_edges"]
    assert "http://dbpedia.org/resource/Category:Reality_television_participants" in h.index
    assert rep["self_loops"] == 0  # the apparent self-loops come from unquoted commas, rejoined
    h2, _ = read_lod_hierarchy(shared_data / "lod" / "LDStumbleupon.csv")
    assert "Top" in h2.index and h2.node_ids[h2.roots].tolist()


# ---------------------------------------------------------------------- completing the 2014 GO
def test_go_completion_edges_and_complete_ontology_by_hand(tmp_path):
    # older release: GO:3 -> GO:1 -> GO:0 (GO:5 an alt id of GO:3); later release adds GO:9 between
    # GO:1 and GO:0, GO:8 below GO:9, re-parents GO:3 under GO:9, and knows GO:7 only as obsolete
    old = write(tmp_path, "old.obo", "[Term]\nid: GO:0\nname: r\n\n[Term]\nid: GO:1\nname: a\nis_a: GO:0\n\n"
                                     "[Term]\nid: GO:3\nname: b\nalt_id: GO:5\nis_a: GO:1\n")
    go = read_obo(old)
    parents = write(tmp_path, "p.tsv", "child\tparent\trelationship_type\tontology\n"
                                       "GO:9\tGO:1\tisa\tBP\nGO:8\tGO:9\tisa\tBP\nGO:5\tGO:9\tisa\tBP\n"
                                       "GO:1\tGO:0\tisa\tBP\nGO:8\tGO:3\tpart of\tBP\n")
    obsolete = write(tmp_path, "o.tsv", "go_id\tontology\tterm\nGO:7\tBP\tobsolete x\n")
    edges, report = go_completion_edges(go, ["GO:8", "GO:3", "GO:7", "GO:0"], parents, obsolete_tsv=obsolete)
    # GO:1 -> GO:0 is known to both releases (not taken); GO:5 is GO:3's alt id; part_of is skipped
    assert edges == [("GO:3", "GO:9"), ("GO:8", "GO:9"), ("GO:9", "GO:1")]
    assert report == {"placed": ["GO:8"], "unplaced": {"GO:7": "obsolete in the later release"}}
    done = complete_ontology(go, edges, label="later")
    assert done.version.endswith("+later") and go.hierarchy.n_edges == 2  # the input is unchanged
    assert sorted(done.hierarchy.ancestors("GO:8")) == ["GO:0", "GO:1", "GO:9"]
    # restricted to the file's terms: GO:8 hangs under GO:1 (nearest) / is a root (induced: GO:9 absent)
    near, rep = hierarchy_for_terms(done, ["GO:0", "GO:1", "GO:8", "GO:7"])
    assert sorted(near.edge_list()) == [("GO:1", "GO:0"), ("GO:8", "GO:1")] and rep["missing_terms"] == ["GO:7"]
    ind, _ = hierarchy_for_terms(done, ["GO:0", "GO:1", "GO:8"], edges="induced")
    assert ind.edge_list() == [("GO:1", "GO:0")]
    path = tmp_path / "c.tsv"
    write_go_completion(path, edges, ["test"])
    assert read_go_completion(path) == edges


def test_read_rpv_arff_completion_and_dropped_roots(tmp_path):
    p = write(tmp_path, "t.arff", "@relation 'DM - XX'\n@attribute entrez string\n@attribute GO:0008150 {0,1}\n"
                                  "@attribute GO:2 {0,1}\n@attribute GO:9 {0,1}\n@attribute class {0,1}\n"
                                  "@data\n1,1,1,1,1\n2,1,0,0,0\n")
    h = FeatureHierarchy.from_edges([("GO:2", "GO:0008150")])
    plain = read_rpv_arff(p, h)
    assert plain.meta["missing_terms"] == ["GO:9"] and plain.meta["dropped_terms"] == []
    done = read_rpv_arff(p, h, completion=[("GO:2", "GO:9"), ("GO:9", "GO:0008150")], drop_terms=GO_ROOTS)
    assert done.feature_names.tolist() == ["GO:2", "GO:9"] and done.meta["dropped_terms"] == ["GO:0008150"]
    assert done.hierarchy.edge_list() == [("GO:2", "GO:9")]
    assert done.meta["completion"] == {"edges": 2, "placed_terms": ["GO:9"]} and done.meta["missing_terms"] == []
    assert done.X.toarray().tolist() == [[1, 1], [0, 0]]


def test_bundled_completion_is_current_and_closer_to_table_1(shared_data, go2014):
    """The registry's completion file equals a fresh derivation; with it the edge counts of the 12
    single-ontology datasets are closer to the RPV paper's Table 1 than with the 2014 GO alone."""
    from kg.datasets import datasets_dir

    bundled = read_go_completion(datasets_dir() / "bundled" / "rpv" / "go-2022-07-01-isa-completion.tsv")
    files = sorted((shared_data / "ageing" / "rpv").glob("*-threshold-3.arff"))
    terms = sorted({t for f in files for t in read_rpv_arff(f).feature_names.tolist()})
    edges, report = go_completion_edges(go2014, terms, shared_data / "go" / "go_parents.tsv",
                                        obsolete_tsv=shared_data / "go" / "go_obsolete.tsv")
    assert bundled == edges and len(report["placed"]) == 83 and len(report["unplaced"]) == 9
    table1 = {"CE-BP": 1707, "CE-CC": 277, "CE-MF": 331, "DM-BP": 1355, "DM-CC": 130, "DM-MF": 182,
              "MM-BP": 2406, "MM-CC": 214, "MM-MF": 289, "SC-BP": 1511, "SC-CC": 230, "SC-MF": 277}
    off = {"2014": 0, "completed": 0}
    for name, n_edges in table1.items():
        p = shared_data / "ageing" / "rpv" / f"{name}-threshold-3.arff"
        off["2014"] += abs(read_rpv_arff(p, go2014).hierarchy.n_edges - n_edges)
        off["completed"] += abs(read_rpv_arff(p, go2014, completion=bundled).hierarchy.n_edges - n_edges)
    assert off["completed"] < off["2014"] / 4, off
