"""The ontology route end to end on small literal files (HPO-shaped and GO-shaped), its option checks, the
two registry datasets on the real mirror, and `kgfs build` on the command line."""

import json

import numpy as np
import pytest

from kg.errors import KgfsError, ParameterError
from kg.ontology.route import OntologyInput
from kg.routes import build_table, resolve_dataset
from tests.kg.ontology.test_annotation_formats import GPAD2, GPI2, HPOA_HEADER
from tests.kg.ontology.test_read import OBO

# diseases: d1 recessive (HP:7), d2 dominant (HP:6), d3 both (left out), d4 neither (left out), d5 recessive with
# a NOT of an ancestor of its own phenotype (reported), d6 recessive with only excluded phenotypes (no row)
ROWS = [
    ("OMIM:1", "", "HP:0000003", "1/2", "P"), ("OMIM:1", "", "HP:0000007", "", "I"),
    ("OMIM:2", "", "HP:0000009", "", "P"), ("OMIM:2", "", "HP:0000006", "", "I"),
    ("OMIM:3", "", "HP:0000002", "", "P"), ("OMIM:3", "", "HP:0000006", "", "I"), ("OMIM:3", "", "HP:0000007", "", "I"),
    ("OMIM:4", "", "HP:0000002", "", "P"),
    ("OMIM:5", "", "HP:0000003", "", "P"), ("OMIM:5", "NOT", "HP:0000002", "", "P"),
    ("OMIM:5", "", "HP:0000007", "", "I"),
    ("OMIM:6", "", "HP:0000003", "0/3", "P"), ("OMIM:6", "", "HP:0000007", "", "I"),
]
LABEL_TERMS_OBO = OBO + "\n[Term]\nid: HP:0000006\nname: Autosomal dominant\nis_a: HP:0000005\n\n" \
                        "[Term]\nid: HP:0000007\nname: Autosomal recessive\nis_a: HP:0000005\n"


@pytest.fixture
def hpo(tmp_path):
    (tmp_path / "hp.obo").write_text(LABEL_TERMS_OBO)
    (tmp_path / "phenotype.hpoa").write_text("#version: 2099-01-01\n" + HPOA_HEADER + "".join(
        f"{d}\tname\t{q}\t{t}\tPMID:1\tPCS\t\t{f}\t\t\t{a}\tx\n" for d, q, t, f, a in ROWS))
    return tmp_path


def _hpo_input(d, **more):
    return OntologyInput.from_options({"ontology": d / "hp.obo", "annotations": d / "phenotype.hpoa",
                                       "roots": ["HP:0000118"], "aspects": ["P"], "label_from_aspect": "I",
                                       "label_terms": ["HP:0000007", "HP:0000006"], **more})


def test_labels_from_aspect_i_never_features_both_and_neither_left_out(hpo):
    inp = _hpo_input(hpo)
    assert inp.check(None)["classes"] == {"HP:0000006": 1, "HP:0000007": 2}  # of the instances with a phenotype
    t = build_table(inp)
    assert t.instance_ids.tolist() == ["OMIM:1", "OMIM:2", "OMIM:5"]  # OMIM:6 has no usable phenotype
    assert t.y.tolist() == ["HP:0000007", "HP:0000006", "HP:0000007"]
    assert not {"HP:0000005", "HP:0000006", "HP:0000007", "HP:0000001"} & set(t.feature_names.tolist())
    rep = t.meta["annotation_report"]
    assert rep["left_out_several_labels"] == 1 and rep["skipped_instances"] == 2  # OMIM:3 both; OMIM:3, OMIM:4 rows
    assert t.meta["unannotated_genes"] == ["OMIM:6"] and t.meta["instance_noun"] == "disease"  # not "gene(s)"
    # OMIM:5 has Tall stature (HP:3) and NOT its parent HP:2: reported, never a positive
    assert t.meta["not_conflict_instances"] == 1 and t.meta["not_conflict_examples"][0].startswith("OMIM:5: NOT")
    assert t.X[t.instance_ids.tolist().index("OMIM:5"), t.feature_names.tolist().index("HP:0000002")] == 1
    assert t.meta["annotation_report"]["excluded_rows"] == 1 and t.meta["roots"] == ["HP:0000118"]


def test_the_python_build_and_the_steps_agree_and_json_round_trips(hpo):
    inp = _hpo_input(hpo)
    a, b = inp.build(), build_table(inp)
    assert (a.X != b.X).nnz == 0 and a.feature_names.tolist() == b.feature_names.tolist()
    from kg.routes import from_json

    assert from_json(json.loads(json.dumps(inp.to_json()))) == inp


def test_label_terms_default_to_every_term_of_the_aspect(hpo):
    t = build_table(_hpo_input(hpo, label_terms=None))
    assert sorted(set(t.y.tolist())) == ["HP:0000006", "HP:0000007"]


@pytest.mark.parametrize("values, message", [
    ({"label_from_aspect": None}, "^label_terms goes with label_from_aspect$"),
    ({"instances_where": "gene_type=x"}, "^instances_where goes with instances$"),
    ({"labels": "LAB"}, "^labels come from one source: labels or label_from_aspect, not both$"),
])
def test_options_that_do_not_go_together(hpo, values, message):
    if values.get("labels") == "LAB":
        (hpo / "l.tsv").write_text("OMIM:1\tx\n")
        values = {"labels": hpo / "l.tsv"}
    with pytest.raises(ParameterError, match=message):  # a Python user reads the parameters' names
        _hpo_input(hpo, **values)


@pytest.mark.parametrize("options, python, cli", [
    (["--label-terms", "HP:0000007"], "label_terms goes with label_from_aspect",
     "kgfs: error: --label-terms goes with --label-from-aspect"),
    (["--evidence", "TAS"],
     "no annotation (annotations, evidence='TAS', aspects='P')",
     "no annotation (--annotations, --evidence TAS, --aspects P)"),
])
def test_messages_name_parameters_in_python_and_options_on_the_command_line(hpo, tmp_path, capsys, options, python,
                                                                             cli):
    from flows.cli import main

    values = {"ontology": hpo / "hp.obo", "annotations": hpo / "phenotype.hpoa", "aspects": ["P"]}
    values.update({o.lstrip("-").replace("-", "_"): v for o, v in zip(options[::2], options[1::2])})
    values = {k: [v] if k in ("label_terms", "evidence") else v for k, v in values.items()}
    with pytest.raises(KgfsError) as python_error:
        OntologyInput.from_options(values).check(None)
    assert python in str(python_error.value) and "--" not in str(python_error.value)
    argv = ["--home", str(tmp_path / "home"), "-q", "build", "--ontology", str(hpo / "hp.obo"), "--annotations",
            str(hpo / "phenotype.hpoa"), "--aspects", "P", *options, "--out", str(tmp_path / "T")]
    assert main(argv) != 0
    err = capsys.readouterr().err
    assert cli in err and python not in err, err


def test_a_root_the_ontology_lacks_fails_in_the_check(hpo):
    with pytest.raises(KgfsError, match=r"root 'HP:9999999' is not a term of the ontology \(roots\)"):
        _hpo_input(hpo, roots=["HP:9999999"]).check(None)


def test_positives_and_instances_with_a_filter(tmp_path):
    (tmp_path / "p.tsv").write_text("child\tparent\trelationship_type\tontology\nGO:2\tGO:1\tisa\tBP\n"
                                    "GO:3\tGO:1\tisa\tBP\n")
    (tmp_path / "g.tsv").write_text("entrez_id\tgo_id\tevidence\n1\tGO:2\tIDA\n2\tGO:3\tIEA\n3\tGO:2\tIDA\n"
                                    "4\tGO:3\tIDA\n")
    (tmp_path / "info.tsv").write_text("entrez_id\tsymbol\tgene_type\n1\tA\tprotein-coding\n2\tB\tprotein-coding\n"
                                       "3\tC\tpseudo\n4\tD\tprotein-coding\n")
    (tmp_path / "dis.tsv").write_text("ncbi_gene_id\tgene_symbol\n2\tB\n3\tC\n99\tZ\n")
    inp = OntologyInput.from_options({"ontology": tmp_path / "p.tsv", "annotations": tmp_path / "g.tsv",
                                      "positives": tmp_path / "dis.tsv", "instances": tmp_path / "info.tsv",
                                      "instances_where": "gene_type=protein-coding"})
    t = build_table(inp)
    assert dict(zip(t.instance_ids.tolist(), t.y.tolist(), strict=True)) == {"1": "0", "2": "1", "4": "0"}
    rep = t.meta["annotation_report"]
    assert (rep["instances_listed"], rep["positives_listed"], rep["positives_annotated"]) == (3, 3, 1)
    bad = OntologyInput.from_options({"ontology": tmp_path / "p.tsv", "annotations": tmp_path / "g.tsv",
                                      "positives": tmp_path / "dis.tsv", "instances": tmp_path / "info.tsv",
                                      "instances_where": "type=protein-coding"})
    with pytest.raises(KgfsError, match=r"info\.tsv:1: no column 'type' \(instances_where\)"):
        bad.read_facts()


def test_gpad_with_gpi_through_the_route(tmp_path):
    (tmp_path / "go.obo").write_text("[Term]\nid: GO:0000001\n\n[Term]\nid: GO:0000002\nis_a: GO:0000001\n\n"
                                     "[Term]\nid: GO:0000003\nis_a: GO:0000001\n")
    (tmp_path / "a.gpad").write_text(GPAD2)
    (tmp_path / "a.gpi").write_text(GPI2)
    (tmp_path / "labels.tsv").write_text("UniProtKB:P1\tyes\nUniProtKB:P2\tno\n")
    inp = OntologyInput.from_options({"ontology": tmp_path / "go.obo", "annotations": tmp_path / "a.gpad",
                                      "gpi": tmp_path / "a.gpi", "labels": tmp_path / "labels.tsv"})
    t = build_table(inp)
    assert t.instance_ids.tolist() == ["UniProtKB:P1", "UniProtKB:P2"]
    # P1 is annotated with GO:2 and NOT with its parent GO:1: reported
    assert t.meta["not_conflict_instances"] == 1


def test_kgfs_build_on_the_command_line(hpo, tmp_path, capsys):
    from flows.cli import main

    out = tmp_path / "T"
    assert main(["--home", str(tmp_path / "home"), "-q", "build", "--ontology", str(hpo / "hp.obo"),
                 "--annotations", str(hpo / "phenotype.hpoa"), "--root", "HP:0000118", "--aspects", "P",
                 "--label-from-aspect", "I", "--label-terms", "HP:0000007", "HP:0000006", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["n_instances"], summary["dataset"]) == (3, "phenotype")
    # the notes call hpoa's instances diseases (a GAF's or a gene table's: genes)
    assert "phenotype: 1 labelled disease(s) without a usable annotation, left out: OMIM:6" in capsys.readouterr().err


# ---------------------------------------------------------------------- the real datasets
def test_hpo_inheritance_from_the_mirror(shared_data):
    inp = resolve_dataset({"dataset": "hpo/inheritance", "mirror": shared_data})
    assert inp.kind == "ontology" and inp.roots == ("HP:0000118",)
    t = build_table(inp)
    rep = t.meta["annotation_report"]
    # the mirror's README: 4,195 recessive and 3,512 dominant diseases; those with both are left out
    both = rep["left_out_several_labels"]
    assert (rep["label_counts"]["HP:0000007"] + both, rep["label_counts"]["HP:0000006"] + both) == (4195, 3512)
    assert t.shape == (7356, 10620) and set(np.unique(t.y)) == {"HP:0000006", "HP:0000007"}
    assert not {"HP:0000006", "HP:0000007", "HP:0000005"} & set(t.feature_names.tolist())
    assert t.meta["ontology_version"] == "hp/releases/2025-01-16"


def test_human_disease_genes_from_the_mirror(shared_data):
    t = build_table(resolve_dataset({"dataset": "human/disease-genes-BP", "mirror": shared_data}))
    assert t.n_instances == 17198 and int((t.y == "1").sum()) == 4993
    assert t.hierarchy.n_nodes == t.n_features and "GO:0008150" in t.feature_names.tolist()


def test_the_registry_loader_builds_the_route_s_table(hpo):
    from kg.ontology.facts import ontology_table

    options = {"roots": ["HP:0000118"], "aspects": ["P"], "label_from_aspect": "I",
               "label_terms": ["HP:0000007", "HP:0000006"], "annotation_format": "hpoa"}
    paths = {"ontology": hpo / "hp.obo", "annotations": hpo / "phenotype.hpoa"}
    a = ontology_table(paths, options)
    b = build_table(OntologyInput.from_dataset("x", paths, options, {}))
    assert a.instance_ids.tolist() == b.instance_ids.tolist() and a.feature_names.tolist() == b.feature_names.tolist()
    assert (a.X != b.X).nnz == 0 and a.y.tolist() == b.y.tolist()
    with pytest.raises(KgfsError, match="unknown option.* of an ontology dataset: rooots"):
        ontology_table(paths, {"rooots": ["HP:0000118"]})
