"""kg.formats.arff against WEKA itself: files WEKA wrote (committed in ``weka/``, made by
``weka/make.sh``) and, when WEKA is installed, round trips through WEKA's own reader and writer."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from kg.formats import read_arff, write_arff
from kg.hierarchy import FeatureHierarchy
from kg.ontology.published import read_rpv_arff
from kg.table import FeatureTable

HERE = Path(__file__).resolve().parent / "weka"
FIXTURES = ["nominal_dense", "nominal_sparse", "numeric_dense", "numeric_sparse"]
WEKA_JAR = Path(os.environ.get("WEKA_JAR", "/usr/share/java/weka.jar"))


def _genes_csv():
    with open(HERE / "genes.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    head, body = rows[0], rows[1:]
    X = np.array([[int(v) for v in r[1:-1]] for r in body])
    return head[1:-1], [r[0] for r in body], X, [r[-1] for r in body]


@pytest.mark.parametrize("name", FIXTURES)
def test_files_written_by_weka(name):
    names, ids, X, y = _genes_csv()
    a = read_arff(HERE / f"{name}.arff")
    assert a.feature_names.tolist() == names  # quoted with WEKA's escapes: it\'s, 50\%
    assert a.instance_ids.tolist() == ids
    assert a.X.toarray().astype(int).tolist() == X.tolist()
    assert a.y.tolist() == y and a.class_name == "class" and a.class_values == ["pro", "anti"]


def test_weka_sparse_rows_leave_out_the_first_nominal_value():
    # CSVLoader declares GO:0008150 {1.0,0.0}: the row "{0 FBgn0000011}" has it set
    text = (HERE / "nominal_sparse.arff").read_text(encoding="utf-8")
    assert "@attribute GO:0008150 {1.0,0.0}" in text and "{0 FBgn0000011}" in text
    a = read_arff(HERE / "nominal_sparse.arff")
    assert a.X[0].toarray().astype(int).tolist() == [[1, 1, 0, 1, 0, 0]] and a.y[0] == "pro"


def test_published_reader_reads_weka_files():
    t = read_rpv_arff(HERE / "nominal_sparse.arff", id_attribute="gene")
    assert t.instance_ids.tolist()[:1] == ["FBgn0000011"] and t.hierarchy.n_edges == 0
    assert (t.X != read_arff(HERE / "numeric_dense.arff").X).nnz == 0


# --------------------------------------------------------------------------- WEKA itself
def _weka(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    # Java decodes ARFF in the platform charset unless told otherwise
    cmd = ["java", "-Dfile.encoding=UTF-8", "-cp", str(WEKA_JAR), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120, check=True)


weka_installed = pytest.mark.skipif(
    shutil.which("java") is None or not WEKA_JAR.is_file(),
    reason=f"needs java and WEKA ({WEKA_JAR}; .ci/setup-weka.sh installs them)",
)

NASTY = ["a b", "it's", 'say "hi"', "50%", "x,y", "ünïcødé 日本", "{br}", "tab\there", "new\nline",
         "back\\slash", "?", "bell\x07", "http://dbpedia.org/resource/Category:Rock_%26_roll", "GO:0008150"]


@pytest.mark.integration
@weka_installed
@pytest.mark.parametrize("sparse", [False, True])
def test_weka_reads_and_rewrites_our_files(tmp_path, sparse):
    rng = np.random.default_rng(1)
    X = sp.csr_matrix((rng.random((6, len(NASTY))) < 0.4).astype(np.int8))
    y = np.array(["pro", "anti 'x'", "pro", "a,b", "pro", "anti 'x'"])
    t = FeatureTable(X, NASTY, ["i 1", "i'2", "i,3", "ü4", "%5", "6"], y, FeatureHierarchy(NASTY, [], []))
    ours = write_arff(t, tmp_path / "ours.arff", sparse=sparse, id_attribute="id")
    theirs = tmp_path / "theirs.arff"
    convert = "SparseToNonSparse" if sparse else "NonSparseToSparse"  # WEKA writes the other layout
    _weka(f"weka.filters.unsupervised.instance.{convert}", "-i", str(ours), "-o", str(theirs))
    back = read_arff(theirs)
    assert back.feature_names.tolist() == NASTY
    assert back.instance_ids.tolist() == t.instance_ids.tolist()
    assert back.y.tolist() == y.tolist()
    assert (back.X != t.X).nnz == 0


@pytest.mark.integration
@weka_installed
def test_make_sh_reproduces_the_fixtures(tmp_path):
    subprocess.run(["sh", str(HERE / "make.sh"), str(tmp_path)], check=True, timeout=300,
                   env={**os.environ, "WEKA_JAR": str(WEKA_JAR)})
    for name in FIXTURES:
        assert (tmp_path / f"{name}.arff").read_bytes() == (HERE / f"{name}.arff").read_bytes(), name


@pytest.mark.integration
@weka_installed
@pytest.mark.parametrize("sparse", [False, True])
def test_weka_reads_the_counts_of_a_count_table(tmp_path, sparse):
    """A table with counts (``--values count``) is written with numeric attributes; WEKA's CSV saver gives every
    count back, cell for cell."""
    h = FeatureHierarchy.from_edges([("out:p|C", "out:p")], nodes=["out:p", "out:p|C", "out:q"])
    t = FeatureTable.from_facts({"a": ["out:p|C", "out:q"], "b": ["out:p"], "c": []}, h,
                                labels={"a": "x", "b": "y", "c": "x"}, instances=["a", "b", "c"])
    counts = np.array([[3, 2, 1], [1, 0, 0], [0, 0, 0]])  # laid out as the columns out:p, out:p|C, out:q
    order = [t.feature_names.tolist().index(f) for f in ["out:p", "out:p|C", "out:q"]]
    v = np.zeros((3, 3))
    v[:, order] = counts
    t = t.with_values(v)
    ours = write_arff(t, tmp_path / "ours.arff", sparse=sparse, id_attribute="id")
    _weka("weka.core.converters.CSVSaver", "-i", str(ours), "-o", str(tmp_path / "w.csv"))
    with open(tmp_path / "w.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][1:-1] == t.feature_names.tolist()
    got = np.array([[float(x) for x in r[1:-1]] for r in rows[1:]])
    assert got.tolist() == t.values.toarray().tolist()
    assert [r[-1] for r in rows[1:]] == ["x", "y", "x"]
