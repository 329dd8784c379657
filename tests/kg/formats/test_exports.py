"""Exports that scale (issue 27): dense files only for small tables or when asked, the sparse CSV's long format."""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from hypothesis import given, settings

from kg.formats import folder
from kg.formats.csv_io import write_sparse_csv
from kg.formats.folder import DENSE_LIMIT, dense_exports, export_file, export_table
from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable
from tests.strategies import closed_tables


def _table(n=6):
    h = FeatureHierarchy.from_edges([("b,1", "a"), ("c", "a")])
    facts = {f"i{k}": (["b,1"] if k % 3 == 0 else ["c"] if k % 3 == 1 else []) for k in range(n)}
    return FeatureTable.from_facts(facts, h, labels={f"i{k}": k % 2 for k in range(n)})


def test_dense_only_when_small_or_asked(tmp_path, monkeypatch):
    t = _table()
    assert DENSE_LIMIT == 2_000_000 and dense_exports(t)
    assert sorted(export_table(t, tmp_path / "a")) == ["arff", "arff_sparse", "csv", "edges"]
    monkeypatch.setattr(folder, "DENSE_LIMIT", t.shape[0] * t.shape[1] - 1)  # one cell too many
    assert not dense_exports(t)
    (tmp_path / "b").mkdir()
    files = export_table(t, tmp_path / "b", sparse_arff=False)
    assert files == {"arff_sparse": "table.sparse.arff", "edges": "hierarchy.csv"}
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["hierarchy.csv", "table.sparse.arff"]
    (tmp_path / "c").mkdir()
    assert sorted(export_table(t, tmp_path / "c", dense=True)) == ["arff", "arff_sparse", "csv", "edges"]


@settings(max_examples=30)
@given(closed_tables())
def test_the_sparse_csv_holds_the_table(data):
    import tempfile
    from pathlib import Path

    X, y, h = data
    t = FeatureTable(X, h.node_ids, [f"i,{k}" for k in range(X.shape[0])], y, h)  # ids that need quoting
    with tempfile.TemporaryDirectory() as d:
        p = write_sparse_csv(t, Path(d) / "t.csv")
        df = pd.read_csv(p, dtype=str, keep_default_na=False)
    assert list(df.columns) == (["instance_id", "label", "feature"] if t.y is not None else ["instance_id", "feature"])
    ids, names = t.instance_ids.tolist(), t.feature_names.tolist()
    assert list(dict.fromkeys(df["instance_id"])) == ids  # every instance, in order
    ones = df[df["feature"] != ""]
    X = sp.csr_matrix((np.ones(len(ones)), ([ids.index(i) for i in ones["instance_id"]],
                                            [names.index(f) for f in ones["feature"]])), shape=t.shape)
    assert (X != t.X).nnz == 0


def test_export_file_writes_the_sparse_csv_on_request(tmp_path):
    t = _table()
    assert export_file(t, "csv", tmp_path / "s.csv", sparse=True) == "6 x 3 table as csv (sparse)"
    lines = (tmp_path / "s.csv").read_text().splitlines()
    assert lines[:4] == ["instance_id,label,feature", "i0,0,a", 'i0,0,"b,1"', "i1,1,a"] and "i2,0," in lines
