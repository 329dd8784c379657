"""The synthetic datasets of the SHSEL paper (section 5.1, Table 2)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.table import FeatureTable
from selection.measures import information_gain
from selection.synthetic import PAPER_SETTINGS, expected_n_features, make_dataset

TABLE2 = {  # Ristoski & Paulheim 2014, Table 2: name -> (D, B, number of features)
    "S-D2-B2": (2, 2, 1201),
    "S-D2-B5": (2, 5, 1021),
    "S-D2-B10": (2, 10, 961),
    "S-D4-B2": (4, 2, 2101),
    "S-D4-B5": (4, 5, 1741),
    "S-D4-B10": (4, 10, 1621),
}


@pytest.fixture(scope="module", params=sorted(TABLE2))
def setting(request):
    d, b, count = TABLE2[request.param]
    return request.param, d, b, count, make_dataset(d, b)


def test_settings_are_the_papers():
    assert PAPER_SETTINGS == TABLE2


def test_feature_counts_match_table_2(setting):
    name, d, b, count, t = setting
    assert isinstance(t, FeatureTable)
    assert t.n_features == count == expected_n_features(d, b)
    assert t.n_instances == 1000


def test_implication_holds_everywhere(setting):
    *_, t = setting
    assert t.hierarchy.violations(t.X).nnz == 0
    # transitivity too: the table equals its own upward closure
    assert (t.hierarchy.close(t.X) != t.X.astype(bool)).nnz == 0


def test_classes_are_balanced(setting):
    *_, t = setting
    classes, counts = np.unique(t.y, return_counts=True)
    assert classes.tolist() == ["negative", "positive"] and counts.tolist() == [500, 500]


def test_structure_levels_and_edges(setting):
    name, d, b, count, t = setting
    h = t.hierarchy
    names = t.feature_names.tolist()
    groups = -(-300 // b)
    prefix = lambda p: sum(x.startswith(p) for x in names)  # noqa: E731
    assert prefix("mid.") == 300 and prefix("root") == 1
    for k in range(1, d + 1):
        assert prefix(f"down{k}.") == 300 and prefix(f"up{k}.") == groups
    assert h.node_ids[h.roots].tolist() == ["root"]
    assert sorted(h.node_ids[h.leaves].tolist()) == sorted(x for x in names if x.startswith(f"down{d}."))
    assert h.levels.max() == 2 * d + 1  # root, D upper levels, middle, D lower levels
    # level 1 merges B neighbouring middle nodes; above it every node has two parents (DAG)
    assert h.parents("mid.000") == ["up1.000"] and h.children("up1.000") == [f"mid.{j:03d}" for j in range(b)]
    assert h.parents("up1.001") == ["up2.000", "up2.001"]
    assert h.parents(f"down{d}.007") == [f"down{d - 1}.007" if d > 1 else "mid.007"]
    # values: an upper node is the union of its children; a lower node a subset of its parent
    X = t.X.tocsc()
    col = lambda n: X[:, h.index[n]].toarray().ravel()  # noqa: E731
    union = np.max([col(c) for c in h.children("up2.003")], axis=0)
    assert np.array_equal(col("up2.003"), union)
    assert (col("down1.010") <= col("mid.010")).all() and col("down1.010").sum() < col("mid.010").sum()


def test_reproducible_and_seeded():
    a, b = make_dataset(2, 5, random_state=7), make_dataset(2, 5, random_state=7)
    assert (a.X != b.X).nnz == 0 and a.y.tolist() == b.y.tolist()
    assert a.feature_names.tolist() == b.feature_names.tolist()
    c = make_dataset(2, 5, random_state=8)
    assert (a.X != c.X).nnz > 0
    # the same seed gives the same latent data whatever the hierarchy shape
    d = make_dataset(4, 10, random_state=7)
    mids = [i for i, n in enumerate(a.feature_names) if n.startswith("mid.")]
    mids_d = [d.hierarchy.index[n] for n in a.feature_names[mids]]
    assert (a.X[:, mids] != d.X[:, mids_d]).nnz == 0 and a.y.tolist() == d.y.tolist()


def test_the_class_signal_sits_in_the_relevant_middle_feature():
    t = make_dataset(2, 2)
    a = t.meta["relevant_attributes"][0]  # the cubed attribute dominates the polynomial
    ig = information_gain(t.X, t.y)
    mids = [i for i, n in enumerate(t.feature_names) if n.startswith("mid.")]
    assert t.feature_names[mids][np.argmax(ig[mids])] == a
    assert ig[t.hierarchy.index[a]] > 0.3
    assert np.median(ig[mids]) < 0.01  # the other middle features are noise


def test_other_sizes_follow_the_formula():
    t = make_dataset(3, 4, n_instances=61, n_middle=10, random_state=1)
    assert t.n_features == 10 + 3 * 10 + 3 * 3 + 1 == expected_n_features(3, 4, 10)
    assert t.n_instances == 61 and sorted(np.unique(t.y, return_counts=True)[1].tolist()) == [30, 31]
    assert t.hierarchy.violations(t.X).nnz == 0
    # a single upper group (B >= n_middle): levels above 1 have one node with one parent
    u = make_dataset(2, 20, n_instances=10, n_middle=6)
    assert u.n_features == 6 + 2 * 6 + 2 * 1 + 1
    assert u.hierarchy.parents("up1.000") == ["up2.000"]


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        ({"depth": 0, "branching": 2}, ValueError, "depth must be >= 1"),
        ({"depth": 2, "branching": 1}, ValueError, "branching must be >= 2"),
        ({"depth": 2.0, "branching": 2}, TypeError, "depth must be an int"),
        ({"depth": 2, "branching": 2, "n_instances": 1}, ValueError, "n_instances must be >= 2"),
        ({"depth": 2, "branching": 2, "n_middle": 3}, ValueError, "n_middle must be >= 4"),
        ({"depth": 2, "branching": 2, "random_state": "x"}, TypeError, "random_state"),
    ],
)
def test_bad_input(kwargs, err, match):
    with pytest.raises(err, match=match):
        make_dataset(**kwargs)


def test_registered_in_the_dataset_registry():
    from kg.datasets import load_dataset

    t = load_dataset("synthetic/S-D2-B10")
    ref = make_dataset(2, 10)
    assert t.n_features == 961 and (t.X != ref.X).nnz == 0 and t.y.tolist() == ref.y.tolist()
    assert t.meta["dataset"] == "synthetic/S-D2-B10"


def test_sparse_output():
    t = make_dataset(2, 2, n_instances=20, n_middle=8)
    assert sp.isspmatrix_csr(t.X) or sp.issparse(t.X)


@settings(max_examples=40, deadline=None)
@given(
    depth=st.integers(1, 5),
    branching=st.integers(2, 12),
    n_middle=st.integers(4, 40),
    n_instances=st.integers(2, 60),
    seed=st.integers(0, 2**31),
)
def test_any_shape_is_closed_balanced_and_counted(depth, branching, n_middle, n_instances, seed):
    t = make_dataset(depth, branching, n_instances=n_instances, n_middle=n_middle, random_state=seed)
    assert t.n_features == expected_n_features(depth, branching, n_middle)
    assert t.hierarchy.violations(t.X).nnz == 0
    assert (t.hierarchy.close(t.X) != t.X.astype(bool)).nnz == 0
    assert (t.y == "positive").sum() == n_instances // 2
    assert t.hierarchy.roots.size == 1 and t.hierarchy.levels.max() == 2 * depth + 1
