"""Annotation files in every format kgfs reads: GAF 2.x, GPAD 2.0 / 1.1 with GPI, HPO phenotype.hpoa, tables.

Small literal files at the top; NOT and excluded-frequency rows never become positives; rows of instances
outside ``keep`` are skipped while reading; a bad row names the file and line.
"""

import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.errors import InputFormatError
from kg.ontology.annotations import AnnotationOptions, read_annotation_set, read_annotations, read_gpi, sniff_format


def _gaf_row(gene, term, qualifier="involved_in", evidence="IDA", aspect="P"):
    return "\t".join(["UniProtKB", gene, gene.lower(), qualifier, term, "PMID:1", evidence, "", aspect, "", "",
                      "protein", "taxon:9606", "20200101", "UniProt", "", ""])


GAF = "!gaf-version: 2.2\n" + "\n".join([
    _gaf_row("P1", "GO:0000002"),
    _gaf_row("P1", "GO:0000001", qualifier="NOT|involved_in"),
    _gaf_row("P2", "GO:0000003", evidence="IEA"),
    _gaf_row("P2", "GO:0000005", aspect="C", qualifier="located_in"),
    _gaf_row("P3", "GO:0000004", qualifier="NOT|involved_in"),
]) + "\n"

GPAD2 = """!gpa-version: 2.0
!generated-by: test
UniProtKB:P1\t\tRO:0002331\tGO:0000002\tPMID:1\tECO:0000314\t\t\t2020-01-01\tUniProt\t\t
UniProtKB:P1\tNOT\tRO:0002331\tGO:0000001\tPMID:1\tECO:0000315\t\t\t2020-01-01\tUniProt\t\t
UniProtKB:P2\t\tRO:0002331\tGO:0000003\tGO_REF:2\tECO:0000256\t\t\t2020-01-01\tUniProt\t\t
UniProtKB:P9\t\tRO:0002331\tGO:0000003\tPMID:2\tECO:0000314\t\t\t2020-01-01\tUniProt\t\t
"""

GPI2 = """!gpi-version: 2.0
UniProtKB:P1\tSOD1\tsuperoxide dismutase\t\tPR:000000001\tNCBITaxon:9606\t\t\t\t\t
UniProtKB:P2\tTP53\tcellular tumor antigen p53\t\tPR:000000001\tNCBITaxon:9606\t\t\t\t\t
"""

GPAD1 = """!gpa-version: 1.1
UniProtKB\tP1\tinvolved_in\tGO:0000002\tPMID:1\tECO:0000314\t\t\t20200101\tUniProt\t\t
UniProtKB\tP1\tNOT|involved_in\tGO:0000001\tPMID:1\tECO:0000314\t\t\t20200101\tUniProt\t\t
"""

HPOA_HEADER = ("database_id\tdisease_name\tqualifier\thpo_id\treference\tevidence\tonset\tfrequency\tsex\tmodifier\t"
               "aspect\tbiocuration\n")
HPOA = "#description: test\n#version: 2025-01-16\n" + HPOA_HEADER + "".join("\t".join(r) + "\n" for r in [
    ["OMIM:1", "D one", "", "HP:0000002", "PMID:1", "PCS", "", "3/4", "", "", "P", "x"],
    ["OMIM:1", "D one", "NOT", "HP:0000001", "PMID:1", "PCS", "", "", "", "", "P", "x"],
    ["OMIM:1", "D one", "", "HP:0000004", "PMID:1", "PCS", "", "0/7", "", "", "P", "x"],
    ["OMIM:1", "D one", "", "HP:0000005", "PMID:1", "PCS", "", "HP:0040285", "", "", "P", "x"],
    ["OMIM:1", "D one", "", "HP:0000007", "PMID:1", "PCS", "", "", "", "", "I", "x"],
    ["OMIM:2", "D two", "", "HP:0000003", "PMID:1", "IEA", "", "HP:0040283", "", "", "P", "x"],
    ["OMIM:2", "D two", "", "HP:0000006", "PMID:1", "IEA", "", "", "", "", "I", "x"],
    ["OMIM:2", "D two", "", "HP:0001522", "PMID:1", "IEA", "", "", "", "", "C", "x"],
    ["OMIM:3", "D three", "", "HP:0000003", "PMID:1", "TAS", "", "0%", "", "", "P", "x"],
])


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, text in (("a.gaf", GAF), ("a.gpad", GPAD2), ("a.gpi", GPI2), ("b.gpad", GPAD1),
                       ("phenotype.hpoa", HPOA)):
        (tmp_path / name).write_text(text)
        out[name] = tmp_path / name
    return out


def test_the_format_is_told_from_the_first_lines(files, tmp_path):
    assert [sniff_format(files[n]) for n in ("a.gaf", "a.gpad", "b.gpad", "phenotype.hpoa")] == \
        ["gaf", "gpad", "gpad", "hpoa"]
    (tmp_path / "t.tsv").write_text("gene\tterm\ng1\tGO:1\n")
    assert sniff_format(tmp_path / "t.tsv") == "table"


# ---------------------------------------------------------------------- GAF
def test_gaf_not_rows_are_kept_apart_never_positive(files):
    s = read_annotation_set(files["a.gaf"])
    assert s.positive == {"P1": ["GO:0000002"], "P2": ["GO:0000003", "GO:0000005"]}
    assert s.negative == {"P1": ["GO:0000001"], "P3": ["GO:0000004"]}
    assert s.report["negated_rows"] == 2 and s.report["format"] == "gaf"
    # the positives are what read_annotations has always returned
    assert read_annotations(files["a.gaf"]) == s.positive


def test_gaf_aspects_evidence_and_namespaces(files):
    assert read_annotation_set(files["a.gaf"], AnnotationOptions(aspects=("C",))).positive == {"P2": ["GO:0000005"]}
    assert read_annotation_set(files["a.gaf"], AnnotationOptions(namespaces="BP", exclude_evidence=("IEA",))
                               ).positive == {"P1": ["GO:0000002"]}


def test_rows_of_instances_outside_keep_are_skipped_and_counted(files):
    s = read_annotation_set(files["a.gaf"], keep={"P2"})
    assert s.positive == {"P2": ["GO:0000003", "GO:0000005"]} and s.negative == {}
    assert (s.report["skipped_rows"], s.report["skipped_instances"]) == (3, 2)


# ---------------------------------------------------------------------- GPAD + GPI
def test_gpad_2_negation_column_and_eco_evidence(files):
    s = read_annotation_set(files["a.gpad"])
    assert s.positive == {"UniProtKB:P1": ["GO:0000002"], "UniProtKB:P2": ["GO:0000003"],
                          "UniProtKB:P9": ["GO:0000003"]}
    assert s.negative == {"UniProtKB:P1": ["GO:0000001"]}
    # a GO evidence code matches its default ECO class; an ECO id is matched as given
    assert read_annotation_set(files["a.gpad"], AnnotationOptions(evidence=("IDA",))).positive == \
        {"UniProtKB:P1": ["GO:0000002"], "UniProtKB:P9": ["GO:0000003"]}
    assert read_annotation_set(files["a.gpad"], AnnotationOptions(evidence=("ECO:0000256",))).positive == \
        {"UniProtKB:P2": ["GO:0000003"]}


def test_gpad_with_gpi_skips_unknown_products_and_can_name_by_symbol(files):
    gpi = read_gpi(files["a.gpi"])
    assert gpi["UniProtKB:P2"] == ("TP53", "PR:000000001")
    s = read_annotation_set(files["a.gpad"], AnnotationOptions(gpi=gpi))
    assert list(s.positive) == ["UniProtKB:P1", "UniProtKB:P2"] and s.report["not_in_gpi_rows"] == 1
    by_symbol = read_annotation_set(files["a.gpad"], AnnotationOptions(gpi=gpi, id_column="symbol"))
    assert by_symbol.positive == {"SOD1": ["GO:0000002"], "TP53": ["GO:0000003"]}
    assert by_symbol.negative == {"SOD1": ["GO:0000001"]}


def test_a_gpi_with_another_format_is_refused(files):
    from kg.errors import KgfsError

    with pytest.raises(KgfsError, match=r"a\.gaf: gpi goes with a GPAD annotation file; this is a gaf file"):
        read_annotation_set(files["a.gaf"], AnnotationOptions(gpi=read_gpi(files["a.gpi"])))


def test_gpad_1_1_qualifier_not(files):
    s = read_annotation_set(files["b.gpad"])
    assert s.positive == {"UniProtKB:P1": ["GO:0000002"]} and s.negative == {"UniProtKB:P1": ["GO:0000001"]}


def test_gpad_without_header_and_short_rows_name_the_line(tmp_path):
    p = tmp_path / "x.gpad"
    p.write_text("UniProtKB:P1\t\tRO:1\tGO:1\tPMID:1\tECO:1\t\t\t2020\tU\t\t\n")
    with pytest.raises(InputFormatError, match=r"x\.gpad:1: GPAD file without a '!gpa-version"):
        read_annotation_set(p, AnnotationOptions(format="gpad"))
    p.write_text("!gpa-version: 2.0\nUniProtKB:P1\t\tRO:1\tGO:1\n")
    with pytest.raises(InputFormatError, match=r"x\.gpad:2: GPAD 2\.0 row has 4 tab-separated column"):
        read_annotation_set(p)


def test_gpi_without_header_is_refused(tmp_path):
    p = tmp_path / "x.gpi"
    p.write_text("UniProtKB:P1\tSOD1\tname\t\tprotein\ttaxon\n")
    with pytest.raises(InputFormatError, match=r"x\.gpi:1: GPI file without .*\(gpi\)"):
        read_gpi(p)


# ---------------------------------------------------------------------- hpoa
def test_hpoa_not_and_frequency_zero_are_negative_and_aspect_i_is_a_label(files):
    s = read_annotation_set(files["phenotype.hpoa"], AnnotationOptions(aspects=("P",), label_aspect="I"))
    assert s.positive == {"OMIM:1": ["HP:0000002"], "OMIM:2": ["HP:0000003"]}
    assert s.negative == {"OMIM:1": ["HP:0000001", "HP:0000004", "HP:0000005"], "OMIM:3": ["HP:0000003"]}
    assert s.aspect_terms == {"OMIM:1": ["HP:0000007"], "OMIM:2": ["HP:0000006"]}
    assert (s.report["negated_rows"], s.report["excluded_rows"], s.report["other_aspect_rows"]) == (1, 3, 1)


def test_hpoa_labels_only_pass_and_evidence(files):
    first = read_annotation_set(files["phenotype.hpoa"], AnnotationOptions(label_aspect="I"), labels_only=True)
    assert first.positive == {} and first.aspect_terms == {"OMIM:1": ["HP:0000007"], "OMIM:2": ["HP:0000006"]}
    ev = read_annotation_set(files["phenotype.hpoa"], AnnotationOptions(aspects=("P",), evidence=("PCS",)))
    assert ev.positive == {"OMIM:1": ["HP:0000002"]}


def test_hpoa_without_its_header_names_the_line(tmp_path):
    p = tmp_path / "bad.hpoa"
    p.write_text("database_id\tdisease_name\thpo_id\nOMIM:1\tD\tHP:1\n")
    with pytest.raises(InputFormatError, match=r"bad\.hpoa:1: not an HPO annotation .*no column 'qualifier'"):
        read_annotation_set(p, AnnotationOptions(format="hpoa"))
    p.write_text(HPOA_HEADER + "OMIM:1\tD\t\tHP:1\n")
    with pytest.raises(InputFormatError, match=r"bad\.hpoa:2: hpoa row has 4 tab-separated column"):
        read_annotation_set(p)


# ---------------------------------------------------------------------- tables
def test_a_table_with_an_evidence_column_filters_by_it(tmp_path):
    p = tmp_path / "genes.tsv.gz"
    with gzip.open(p, "wt") as fh:
        fh.write("entrez_id\tgo_id\tevidence\n1\tGO:1\tND\n2\tGO:2\tIEA\n2\tGO:3\tIDA\n")
    assert read_annotations(p) == {"1": ["GO:1"], "2": ["GO:2", "GO:3"]}
    assert read_annotations(p, evidence={"IDA"}) == {"2": ["GO:3"]}
    plain = tmp_path / "plain.tsv"
    plain.write_text("1\tGO:1\n")
    with pytest.raises(ValueError, match="an evidence filter needs a GAF file"):
        read_annotations(plain, evidence={"IDA"})


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["g1", "g2", "g3", "g4"]), st.sampled_from(["T:1", "T:2", "T:3"]),
                          st.booleans()), min_size=1, max_size=30),
       st.sets(st.sampled_from(["g1", "g2", "g3", "g4"])))
def test_keep_gives_the_same_rows_as_filtering_afterwards(rows, keep):
    """Skipping while reading keeps exactly what reading everything and filtering would keep; NOT never positive."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "a.gaf"
        p.write_text("!gaf-version: 2.2\n" + "".join(
            _gaf_row(g, t, qualifier="NOT|involved_in" if neg else "involved_in") + "\n" for g, t, neg in rows))
        everything = read_annotation_set(p)
        kept = read_annotation_set(p, keep=keep)
    assert kept.positive == {g: ts for g, ts in everything.positive.items() if g in keep}
    assert kept.negative == {g: ts for g, ts in everything.negative.items() if g in keep}
    for g, t, neg in rows:
        if neg and not any(g2 == g and t2 == t and not n2 for g2, t2, n2 in rows):
            assert t not in everything.positive.get(g, [])
