"""The synthetic datasets of the SHSEL paper (section 5.1, Table 2)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.table import FeatureTable
from selection.measures.relevance import information_gain
from selection.synthetic.shsel import LABELS, N_LATENT, PAPER_SETTINGS, expected_n_features, make_dataset

TABLE2 = {  # Ristoski & Paulheim 2014, Table 2: name -> (D, B, number of features)
    "S-D2-B2": (2, 2, 1201),
    "S-D2-B5": (2, 5, 1021),
    "S-D2-B10": (2, 10, 961),
    "S-D4-B2": (4, 2, 2101),
    "S-D4-B5": (4, 5, 1741),
    "S-D4-B10": (4, 10, 1621),
}


@pytest.fixture(scope="module", params=[(n, v) for n in sorted(TABLE2) for v in LABELS], ids=str)
def setting(request):
    name, label = request.param
    d, b, count = TABLE2[name]
    return name, d, b, count, make_dataset(d, b, label=label)


def _column(t, name):
    return t.X.tocsc()[:, t.hierarchy.index[name]].toarray().ravel()


def _digest(t) -> str:
    X = t.X.tocsr()
    h = hashlib.sha256()
    for part in (X.indptr, X.indices, X.data, np.asarray(t.y).astype("U8"), np.asarray(t.feature_names).astype("U16")):
        h.update(np.ascontiguousarray(part).tobytes())
    return h.hexdigest()[:16]


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


@pytest.mark.parametrize("label", LABELS)
def test_reproducible_and_seeded(label):
    a, b = make_dataset(2, 5, random_state=7, label=label), make_dataset(2, 5, random_state=7, label=label)
    assert (a.X != b.X).nnz == 0 and a.y.tolist() == b.y.tolist()
    assert a.feature_names.tolist() == b.feature_names.tolist() and a.meta == b.meta
    c = make_dataset(2, 5, random_state=8, label=label)
    assert (a.X != c.X).nnz > 0
    # the same seed gives the same latent data whatever the hierarchy shape
    d = make_dataset(4, 10, random_state=7, label=label)
    mids = [i for i, n in enumerate(a.feature_names) if n.startswith("mid.")]
    mids_d = [d.hierarchy.index[n] for n in a.feature_names[mids]]
    assert (a.X[:, mids] != d.X[:, mids_d]).nnz == 0 and a.y.tolist() == d.y.tolist()
    # the two variants are different data
    other = [v for v in LABELS if v != label][0]
    assert (a.X != make_dataset(2, 5, random_state=7, label=other).X).nnz > 0


@pytest.mark.parametrize("label", ["shared", "feature"])
def test_class_is_one_middle_feature_exactly(label):
    """label="shared" (the default) and "feature": the class equals one middle feature, the paper's (O1)."""
    assert make_dataset(2, 2, n_instances=20, n_middle=8).meta["label"] == "shared" == LABELS[0]
    for name, (d, b, _) in TABLE2.items():
        t = make_dataset(d, b, label=label)
        assert t.meta["label"] == label
        f = t.meta["label_feature"]
        assert f.startswith("mid.")
        assert np.array_equal(_column(t, f) == 1, t.y == "positive"), name
        # no other feature of the hierarchy equals the class or its complement
        pos = (t.y == "positive").astype(float)
        agree = t.X.T @ pos + (t.n_instances - np.asarray(t.X.sum(axis=0)).ravel() - pos.sum() + t.X.T @ pos)
        exact = np.flatnonzero((agree == 0) | (agree == t.n_instances))
        assert t.feature_names[exact].tolist() == [f], name


@pytest.mark.parametrize("label", ["shared", "feature"])
def test_other_middle_features_are_class_noise(label):
    """Every other middle feature is independent of the class (the paper's (O3)): IG near 0."""
    t = make_dataset(2, 2, label=label)
    f = t.hierarchy.index[t.meta["label_feature"]]
    ig = information_gain(t.X, t.y)
    assert ig[f] == pytest.approx(1.0)  # a perfect feature of a balanced class: one bit
    mids = np.array([i for i, n in enumerate(t.feature_names) if n.startswith("mid.") and i != f])
    assert mids.size == 299
    assert np.median(ig[mids]) < 0.002 and ig[mids].max() < 0.02
    # the refinements below the class feature are pure (positive only) and nested
    below = [t.hierarchy.index[f"down{k}.{t.meta['label_feature'][4:]}"] for k in (1, 2)]
    for i in below:
        assert set(t.y[t.X.tocsc()[:, i].toarray().ravel() == 1]) == {"positive"}
    counts = [int(t.X[:, i].sum()) for i in [f, *below]]
    assert counts == [500, 333, 166]


@pytest.mark.parametrize("label", ["shared", "feature"])
def test_middle_features_are_median_splits_of_their_polynomial(label):
    """mid.j = upper half of its f_j = a^3 + b^2 + c; down{k}.j = finer frequency cuts."""
    from selection.synthetic.shsel import polynomial_attributes, shared_polynomial_attributes

    t = make_dataset(2, 5, n_instances=40, n_middle=6, random_state=3, label=label)
    rng = np.random.default_rng(3)
    target = int(rng.integers(6))
    if label == "shared":
        f = shared_polynomial_attributes(40, 6, target, N_LATENT, rng)
    else:
        f = polynomial_attributes(40, 6, rng)
    assert t.meta["label_feature"] == f"mid.{target:03d}"
    for j in range(6):
        order = np.argsort(f[:, j], kind="stable")
        top = lambda k: np.isin(np.arange(40), order[40 - k:]).astype(float)  # noqa: E731
        assert np.array_equal(_column(t, f"mid.{j:03d}"), top(20))
        assert np.array_equal(_column(t, f"down1.{j:03d}"), top(13))
        assert np.array_equal(_column(t, f"down2.{j:03d}"), top(6))
    assert np.array_equal(t.y == "positive", f[:, target] > np.median(f[:, target]))


def _phi(X):
    """Pairwise phi (Pearson on 0/1) between the columns of a dense 0/1 matrix."""
    return np.corrcoef(X, rowvar=False)


def test_shared_pool_makes_the_other_middle_features_redundant():
    """label="shared": two middle features with the same cubed pool attribute are near copies
    (the cube dominates ``a^3 + b^2 + c``), while the class feature is independent of all of them;
    with label="feature" every pair is independent."""
    from selection.synthetic.shsel import shared_polynomial_attributes

    t = make_dataset(2, 2)
    assert t.meta["n_latent"] == N_LATENT == 5
    rng = np.random.default_rng(0)
    target = int(rng.integers(300))
    f = shared_polynomial_attributes(1000, 300, target, N_LATENT, rng)
    mids = [t.hierarchy.index[f"mid.{j:03d}"] for j in range(300)]
    M = t.X.tocsc()[:, mids].toarray()
    assert np.array_equal(M, (f > np.median(f, axis=0)).astype(float))
    # the same draws again, to learn which pool attribute each polynomial cubes
    rng = np.random.default_rng(0)
    rng.integers(300)
    rng.uniform(-10, 10, size=(1000, N_LATENT))
    cubed = rng.integers(N_LATENT, size=300)
    phi = _phi(M)
    others = np.array([j for j in range(300) if j != target])
    same = cubed[others][:, None] == cubed[others][None, :]
    off = ~np.eye(others.size, dtype=bool)
    assert np.abs(phi[np.ix_(others, others)][same & off]).min() > 0.6
    assert np.abs(phi[np.ix_(others, others)][~same]).mean() < 0.1
    assert np.abs(phi[target, others]).max() < 0.15
    independent = make_dataset(2, 2, label="feature").X.tocsc()[:, mids].toarray()
    assert np.median(np.abs(_phi(independent)[np.triu_indices(300, 1)])) < 0.05


def test_naive_bayes_on_all_features_is_misled_and_shsel_is_not():
    """The paper's Table 4 in small: on the default data NB with every feature is far from the
    class feature's 1.0 (the redundant noise outvotes it), NB after pruneSHSEL IG is not."""
    from selection.evaluation.cv import evaluate_table

    for label, low, high in (("shared", 0.55, 0.85), ("feature", 0.93, 1.0)):
        t = make_dataset(2, 5, label=label)
        df = evaluate_table(t, ["complete", ("shsel-ig-prune", {"threshold": 0.5})], ["nb"], dataset=label)
        acc = df.groupby("selector")["accuracy"].mean()
        comp = df.groupby("selector")["compression"].mean()
        prune = [s for s in acc.index if s != "complete"][0]
        assert low < acc["complete"] < high, (label, acc["complete"])
        assert acc[prune] == 1.0 and comp[prune] > 0.8, label


def test_polynomial_label_signal_sits_in_the_relevant_middle_feature():
    t = make_dataset(2, 2, label="polynomial")
    assert t.meta["label"] == "polynomial" and "label_feature" not in t.meta
    a = t.meta["relevant_attributes"][0]  # the cubed attribute dominates the polynomial
    ig = information_gain(t.X, t.y)
    mids = [i for i, n in enumerate(t.feature_names) if n.startswith("mid.")]
    assert t.feature_names[mids][np.argmax(ig[mids])] == a
    assert 0.3 < ig[t.hierarchy.index[a]] < 0.9  # strong, but no feature determines this class
    assert np.median(ig[mids]) < 0.01  # the other middle features are noise


@pytest.mark.parametrize(
    "label, digest",
    [("shared", "b698f4978221c5f8"), ("feature", "5dbc6f29bf8a7938"), ("polynomial", "7f10637d4bce89ef")],
)
def test_pinned_output(label, digest):
    """Seeded output pinned: the registry's datasets must not change silently between versions."""
    assert _digest(make_dataset(2, 3, n_instances=40, n_middle=9, random_state=11, label=label)) == digest


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
        ({"depth": 2, "branching": 2, "label": "linear"}, ValueError,
         "label must be one of 'shared', 'feature', 'polynomial'"),
        ({"depth": 2, "branching": 2, "n_latent": 1}, ValueError, "n_latent must be >= 2"),
        ({"depth": 2, "branching": 2, "n_latent": 2.5}, TypeError, "n_latent must be an int"),
        ({"depth": 2, "branching": 2, "label": "feature", "n_latent": 5}, ValueError,
         "n_latent applies only to label='shared'"),
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
    assert t.meta["dataset"] == "synthetic/S-D2-B10" and t.meta["label"] == "shared"
    # the earlier variants stay reachable through the registry
    p = load_dataset("synthetic/S-D2-B10", label="polynomial")
    assert (p.X != make_dataset(2, 10, label="polynomial").X).nnz == 0 and p.meta["label"] == "polynomial"


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
    label=st.sampled_from(LABELS),
)
def test_any_shape_is_closed_balanced_and_counted(depth, branching, n_middle, n_instances, seed, label):
    t = make_dataset(depth, branching, n_instances=n_instances, n_middle=n_middle, random_state=seed, label=label)
    assert t.n_features == expected_n_features(depth, branching, n_middle)
    assert t.hierarchy.violations(t.X).nnz == 0
    assert (t.hierarchy.close(t.X) != t.X.astype(bool)).nnz == 0
    assert (t.y == "positive").sum() == n_instances // 2
    assert t.hierarchy.roots.size == 1 and t.hierarchy.levels.max() == 2 * depth + 1
    if label != "polynomial":
        assert np.array_equal(_column(t, t.meta["label_feature"]) == 1, t.y == "positive")
