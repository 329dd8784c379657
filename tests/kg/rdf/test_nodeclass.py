"""The node-classification benchmarks as registry datasets (issue 35, point 3): nodeclass/aifb and nodeclass/mutag.

Their manifest entries name every upstream file (latent-GCN @ 9a3b709, raw.githubusercontent.com) with its sha256 and
size; the bundled corpora are derived from the standard split files exactly; the graph, the presets and the split
make the tables and the instances of the registry; the label relations are out of the graphs and the label-property
leak check still holds. The real files are read from ../shared/data (skipped without it).
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from flows.cli import main
from kg.datasets import dataset_info, datasets_dir, load_dataset, load_instances
from kg.errors import KgfsError, ParameterError
from kg.formats.folder import read_table_folder
from kg.rdf.vocabulary import load_preset
from tests.kg.conftest import assert_same_table
from tests.kg.rdf.conftest import cli_error

COMMIT = "9a3b70966ae041f41105315ca4fc55e13af89681"
SWRC = "http://swrc.ontoware.org/ontology#"
CG = "http://dl-learner.org/carcinogenesis#"
#: name -> (instances, train, test, label relations, classes)
EXPECTED = {"nodeclass/aifb": (176, 140, 36, (SWRC + "affiliation", SWRC + "employs"), 4),
            "nodeclass/mutag": (340, 272, 68, (CG + "isMutagenic",), 2)}


def _make_nodeclass():
    spec = importlib.util.spec_from_file_location("make_nodeclass", datasets_dir() / "make_nodeclass.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---------------------------------------------------------------------------------------------- the manifest
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_file_names_its_upstream_with_sha256_and_size(name):
    info = dataset_info(name)
    assert info.loader == "rdf" and info.licence.startswith("none stated")
    assert info.n_instances == EXPECTED[name][0]
    assert info.n_features == {"nodeclass/aifb": 10030, "nodeclass/mutag": 182}[name]
    bench = name.split("/")[1]
    assert info.files["dump"].url == (f"https://raw.githubusercontent.com/alexanderdesouza/latent-GCN/{COMMIT}/data/"
                                      f"{bench}/{bench}_stripped.nt.gz")
    roles = {"train": "trainingSet.tsv", "test": "testSet.tsv", **({"complete": "completeDataset.tsv"}
                                                                     if bench == "aifb" else {})}
    assert set(info.derived_from) == set(roles)
    for role, file in roles.items():
        f = info.derived_from[role]
        assert f.url == f"https://raw.githubusercontent.com/alexanderdesouza/latent-GCN/{COMMIT}/data/{bench}/{file}"
        assert f.path == f"nodeclass/{bench}/{file}" and len(f.sha256) == 64 and f.size > 0
    for role in ("corpus", "preset"):  # bundled: their bytes are the manifest's
        f = info.files[role]
        data = (datasets_dir() / f.path).read_bytes()
        assert f.bundled and hashlib.sha256(data).hexdigest() == f.sha256 and len(data) == f.size
    assert info.evaluation["protocol"] == "split" and info.evaluation["generation"]["min_support"]
    assert info.options["split_column"] == "split"
    assert set(EXPECTED[name][3]) <= set(info.options["exclude_properties"])


def test_the_presets_say_the_vocabularies():
    swrc = load_preset(datasets_dir() / dataset_info("nodeclass/aifb").files["preset"].path)
    assert swrc.type_namespaces == (SWRC,) and swrc.is_relation(SWRC + "author")
    assert not swrc.is_relation(SWRC + "name") and not swrc.is_relation(SWRC + "affiliation")  # literal / label
    assert swrc.expand_property("swrc:member") == SWRC + "member"  # its own prefix
    cg = load_preset(datasets_dir() / dataset_info("nodeclass/mutag").files["preset"].path)
    assert cg.type_namespaces == (CG,) and cg.is_relation(CG + "hasAtom") and cg.subclass_of[0].endswith("subClassOf")


def test_bad_split_values_are_refused():
    from kg.instances import EntityDataset

    with pytest.raises(KgfsError, match="split values must be train or test, got 'dev'"):
        EntityDataset("d", ["a", "b"], ["x", "y"], [0, 1], source=None, split=["train", "dev"])
    with pytest.raises(KgfsError, match="the split has no test instance"):
        EntityDataset("d", ["a", "b"], ["x", "y"], [0, 1], source=None, split=["train", "train"])
    with pytest.raises(KgfsError, match="has no fixed train/test split"):
        EntityDataset("d", ["a"], ["x"], [0], source=None).train_test()


# ---------------------------------------------------------------------------------------------- the real files
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_shared_files_are_the_named_upstream_files(name, shared_data):
    info = dataset_info(name)
    for f in [info.files["dump"], *info.derived_from.values()]:
        data = (shared_data / f.path).read_bytes()
        assert hashlib.sha256(data).hexdigest() == f.sha256 and len(data) == f.size, f.path


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_bundled_corpus_is_derived_from_the_split_files_exactly(name, shared_data):
    info, bench = dataset_info(name), name.split("/")[1]
    train, test = ((shared_data / info.derived_from[r].path).read_bytes() for r in ("train", "test"))
    assert train.count(b"\r\n") > 0  # the upstream files end lines with CRLF
    rows = _make_nodeclass().rows(bench, train, test)
    lines = (datasets_dir() / info.files["corpus"].path).read_text(encoding="utf-8").splitlines()
    assert lines[0] == "id\tentity\tlabel\tsplit"
    assert [tuple(line.split("\t")) for line in lines[1:]] == rows
    n, n_train, n_test, _, n_classes = EXPECTED[name]
    assert [r[3] for r in rows] == ["train"] * n_train + ["test"] * n_test and len({r[2] for r in rows}) == n_classes
    if "complete" in info.derived_from:  # AIFB's completeDataset.tsv is the union of the two parts
        complete = (shared_data / info.derived_from["complete"].path).read_text().replace("\r", "").splitlines()[1:]
        assert sorted(line.split("\t")[1] for line in complete) == sorted(r[1] for r in rows)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_graph_holds_every_instance_and_no_label_relation(name, shared_data):
    info = dataset_info(name)
    with gzip.open(shared_data / info.files["dump"].path, "rt", encoding="utf-8") as fh:
        text = fh.read()
    predicates = {line.split(" ", 2)[1] for line in text.splitlines() if line.count(" ") >= 2}
    assert predicates and not predicates & {f"<{p}>" for p in EXPECTED[name][3]}  # (the schema still names them)
    lines = (datasets_dir() / info.files["corpus"].path).read_text(encoding="utf-8").splitlines()[1:]
    assert all(f"<{line.split(chr(9))[1]}> " in text for line in lines)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_table_and_the_instances_carry_the_split(name, shared_data):
    n, n_train, n_test, labels, n_classes = EXPECTED[name]
    table = load_dataset(name, mirror=shared_data)
    assert table.n_instances == n and len(set(table.y)) == n_classes
    assert {k: len(v) for k, v in table.meta["split"].items()} == {"train": n_train, "test": n_test}
    assert set(table.meta["split"]["train"]) | set(table.meta["split"]["test"]) == set(table.instance_ids)
    kinds = {f.split(":", 1)[0] for f in table.feature_names}
    # types, and relations in both directions (MUTAG's compounds are never an object)
    assert kinds == ({"type", "out", "in"} if name == "nodeclass/aifb" else {"type", "out"})
    assert not any(p in f for f in table.feature_names for p in labels)
    d = load_instances(name, mirror=shared_data)
    assert len(d) == n and d.split_counts() == {"train": n_train, "test": n_test}
    assert d.features_params["direction"] == "both" and d.features_params["depth"] == 2
    assert d.generation_grid == ({"min_support": [1, 2, 3, 5], "depth": [1, 2]} if name == "nodeclass/aifb" else
                                 {"min_support": [2, 3], "depth": [1, 2], "values": ["binary", "count"]})
    train, test = d.train_test()
    assert set(np.asarray(d.ids)[test]) == set(table.meta["split"]["test"])
    assert d.fingerprint() == load_instances(name, mirror=shared_data).fingerprint()


def test_the_label_property_leak_check_holds_for_the_benchmarks(shared_data):
    with pytest.raises(ParameterError, match="add exclude_properties="):
        load_dataset("nodeclass/aifb", mirror=shared_data, exclude_properties=[SWRC + "member"])
    with pytest.raises(ParameterError, match="the labels come from http://dl-learner.org/carcinogenesis#charge"):
        load_instances("nodeclass/mutag", mirror=shared_data, label_property="cg:charge")
    t = load_dataset("nodeclass/aifb", mirror=shared_data, exclude_properties=[
        "swrc:affiliation", "swrc:employs", "swrc:member", "swrc:head"])  # the preset's own prefix
    assert not any(f"{SWRC}member" in f or f"{SWRC}head" in f for f in t.feature_names)


def test_kgfs_build_dataset_nodeclass_aifb(shared_data, home, tmp_path, capsys):
    argv = ["build", "--dataset", "nodeclass/aifb", "--mirror", str(shared_data), "--out", str(tmp_path / "B")]
    assert main(argv) == 0
    t = read_table_folder(tmp_path / "B")
    assert_same_table(t, load_dataset("nodeclass/aifb", mirror=shared_data))  # the index and the stream agree
    assert {k: len(v) for k, v in t.meta["split"].items()} == {"train": 140, "test": 36}
    capsys.readouterr()
    line = cli_error(capsys, ["build", "--dataset", "nodeclass/aifb", "--mirror", str(shared_data),
                              "--exclude-properties", "swrc:member", "--out", str(tmp_path / "C")])
    assert f"--label-property {SWRC}affiliation" in line and "add --exclude-properties" in line
    assert main(["build", "--dataset", "nodeclass/mutag", "--mirror", str(shared_data), "--features",
                 "qualified-relations", "--direction", "out", "--min-support", "5", "--out", str(tmp_path / "M")]) == 0
    m = read_table_folder(tmp_path / "M")
    assert m.n_instances == 340 and all(f.startswith("out:" + CG) for f in m.feature_names)
    edges = set(m.hierarchy.edge_list())  # the class hierarchy, under the relation
    assert (f"out:{CG}hasAtom|{CG}Carbon-22", f"out:{CG}hasAtom|{CG}Carbon") in edges


def test_the_corpus_paths_are_inside_the_data_folder():
    for name in EXPECTED:
        for f in dataset_info(name).files.values():
            assert not Path(f.path).is_absolute() and ".." not in Path(f.path).parts
