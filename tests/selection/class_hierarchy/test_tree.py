"""Tests of selection/class_hierarchy/tree.py: the class tree, the top-down classifier, the generator."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from sklearn.datasets import load_digits
from sklearn.utils.estimator_checks import parametrize_with_checks

from kg.errors import CycleError, InputFormatError, KgfsError
from selection.class_hierarchy.tree import (
    ClassHierarchy,
    ClassTreeError,
    HierarchicalClassifier,
)
from selection.synthetic.class_tree import make_hierarchical_classification


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Small dense problems: extra BLAS threads only add overhead on a shared machine."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


# The tree of the paper's Figure 1 style example (and of its Example 1): 0 -> {1, 2}, 1 -> {3, 4}
FIG1 = [("1", "0"), ("2", "0"), ("3", "1"), ("4", "1"), ("5", "2"), ("6", "2")]


def test_paper_example_1():
    t = ClassHierarchy.from_edges(FIG1)
    assert t.parent_of("1") == "0"  # p_1 = 0
    assert t.children_of("0") == ["1", "2"]  # C_0 = {1, 2}
    assert t.siblings_of("3") == ["4"]  # S_3 = {4}
    assert t.internal_ids == ["0", "1", "2"]
    assert t.leaf_ids == ["3", "4", "5", "6"]
    assert t.height == 3
    assert t.parent_of("0") is None


def test_route_targets():
    t = ClassHierarchy.from_edges(FIG1)
    R = t.route()
    i = t.index
    assert R[i["0"], i["3"]] == i["1"] and R[i["0"], i["6"]] == i["2"]
    assert R[i["1"], i["4"]] == i["4"] and R[i["1"], i["5"]] == -1
    assert (R[i["3"]] == -1).all()


@pytest.mark.parametrize("edges, err, match", [
    ([("a", "r"), ("b", "s")], ClassTreeError, "exactly one root; found 2: 'r', 's'"),
    ([("a", "b"), ("b", "a")], CycleError, "cycle .and so no root.: a -> b -> a"),
    ([("a", "r"), ("b", "a"), ("c", "b"), ("b", "c")], ClassTreeError, "two parents"),
    ([("a", "a")], CycleError, "self-loop"),
])
def test_bad_trees(edges, err, match):
    with pytest.raises(err, match=match):
        ClassHierarchy.from_edges(edges)


def test_cycle_beside_a_root_is_named():
    # r is the only root; a -> b -> c -> a is a cycle unreachable from r
    with pytest.raises(CycleError, match="cycle: .*a.*b.*c|cycle: .*b.*c.*a|cycle: .*c.*a.*b"):
        ClassHierarchy(["r", "x", "a", "b", "c"], [-1, 0, 3, 4, 2])


def test_errors_are_kgfs_errors():
    with pytest.raises(KgfsError):
        ClassHierarchy.from_edges([("a", "r"), ("b", "s")])


def test_read_write_roundtrip(tmp_path):
    p = tmp_path / "tree.tsv"
    p.write_text("# child\tparent\n\n3\t1\n4\t1\n5\t2\n6 2\n1\t0\n2\t0\n")
    t = ClassHierarchy.read(p)
    assert t == ClassHierarchy.from_edges(FIG1)
    q = tmp_path / "out.tsv"
    t.write(q)
    assert ClassHierarchy.read(q) == t


def test_read_errors_name_file_and_line(tmp_path):
    p = tmp_path / "bad.tsv"
    p.write_text("a\tr\nb\tr\tz\n")
    with pytest.raises(InputFormatError, match=r"bad.tsv:2: expected 'child<TAB>parent'"):
        ClassHierarchy.read(p)
    p.write_text("a\tr\nb\ts\n")
    with pytest.raises(InputFormatError, match=r"bad.tsv.*exactly one root; found 2"):
        ClassHierarchy.read(p)
    p.write_text("a\tr\nb\tr\nc\tb\nb\tc\n")
    with pytest.raises(InputFormatError, match=r"bad.tsv:4: class .b. has two parents .*line 2"):
        ClassHierarchy.read(p)
    with pytest.raises(InputFormatError, match="cannot read"):
        ClassHierarchy.read(tmp_path / "missing.tsv")
    (tmp_path / "empty.tsv").write_text("# nothing\n")
    with pytest.raises(InputFormatError, match="no edges"):
        ClassHierarchy.read(tmp_path / "empty.tsv")


def test_labels_missing_from_tree():
    t = ClassHierarchy.from_edges(FIG1)
    with pytest.raises(ClassTreeError, match=r"1 label\(s\) of y are not in the class tree: 'cat'"):
        t.leaf_indices(["3", "cat", "4"])
    with pytest.raises(ClassTreeError, match="internal nodes"):
        t.leaf_indices(["3", "1"])
    # integer labels match string leaves
    assert t.leaf_indices(np.array([3, 6])).tolist() == [t.index["3"], t.index["6"]]


def test_from_data_shapes():
    X = np.array([[0.0, 0], [0, 1], [10, 0], [10, 1], [1, 0], [1, 1], [30, 30], [30, 31]])
    y = ["a", "a", "b", "b", "c", "c", "d", "d"]
    full = ClassHierarchy.from_data(X, y, n_groups=None)
    assert len(full.internal) == 3 and sorted(full.leaf_ids) == ["a", "b", "c", "d"]
    # a and c are the closest class means: merged first
    assert full.parent_of("a") == full.parent_of("c") != full.parent_of("b")
    two = ClassHierarchy.from_data(X, y, n_groups=2, standardize=False)
    assert two.height == 3
    assert two.parent_of("d") == two.node_ids[two.root]  # a one-class cluster hangs from the root
    assert ClassHierarchy.from_data(X[:4], y[:4]).height == 2  # two classes: flat
    assert ClassHierarchy.from_data(X, y, n_groups=1).height == 2


def test_from_data_name_clash():
    X = np.arange(6.0)[:, None]
    t = ClassHierarchy.from_data(X, ["node:root", "node:root", "b", "b", "c", "c"], n_groups=None)
    assert t.node_ids[t.root] != "node:root" and "node:root" in t.leaf_ids


def test_digits_tree_is_deterministic_and_sensible():
    X, y = load_digits(return_X_y=True)
    t = ClassHierarchy.from_data(X, y, n_groups=3)
    assert t == ClassHierarchy.from_data(X, y, n_groups=3)
    assert sorted(t.leaf_ids) == [str(d) for d in range(10)]
    assert t.height == 3
    # round digits 0, 4 and 6 have close class means: same cluster
    assert t.parent_of("0") == t.parent_of("6") != t.node_ids[t.root]


@st.composite
def random_trees(draw):
    n = draw(st.integers(2, 25))
    parent = [-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)]
    perm = draw(st.permutations(list(range(n))))
    ids = [f"n{p}" for p in perm]
    return ids, parent


@given(random_trees())
def test_tree_invariants(tree):
    ids, parent = tree
    t = ClassHierarchy(ids, parent)
    assert len(t.internal) + len(t.leaves) == t.n_nodes
    assert t.internal[0] == t.root or len(t.internal) == 0
    pos = {int(v): k for k, v in enumerate(t.order)}
    for c in range(t.n_nodes):
        p = int(t.parent[c])
        if p >= 0:
            assert pos[p] < pos[c]  # breadth-first: parents first
            assert c in t.children(p)
            assert set(t.siblings(c)) == set(t.children(p)) - {c}
    R = t.route()
    for j in range(t.n_nodes):  # R[i, j] >= 0 exactly for the strict ancestors i of j
        anc, p = set(), int(t.parent[j])
        while p >= 0:
            anc.add(p)
            p = int(t.parent[p])
        assert set(np.flatnonzero(R[:, j] >= 0)) == anc
    assert ClassHierarchy.from_edges(t.edges()) == t


# ---------------------------------------------------------------------- classifier
def test_top_down_classifier_uses_node_features():
    d = make_hierarchical_classification(n_samples=300, n_noise=20, random_state=1)
    all_feats = HierarchicalClassifier(d.tree).fit(d.X, d.y)
    assert all_feats.score(d.X, d.y) > 0.9
    good = HierarchicalClassifier(d.tree, node_features=d.relevant).fit(d.X, d.y)
    assert good.node_features_["g1"].tolist() == d.relevant["g1"].tolist()
    noise = np.setdiff1d(np.arange(d.X.shape[1]), d.relevant["root"])
    bad = HierarchicalClassifier(d.tree, node_features={n: noise[:5] for n in d.relevant}).fit(d.X, d.y)
    assert good.score(d.X, d.y) > 0.9 > 0.5 > bad.score(d.X, d.y)
    # boolean masks work the same as indices
    masks = {n: np.isin(np.arange(d.X.shape[1]), c) for n, c in d.relevant.items()}
    np.testing.assert_array_equal(HierarchicalClassifier(d.tree, node_features=masks).fit(d.X, d.y).predict(d.X),
                                  good.predict(d.X))


def test_top_down_classifier_routes_per_node():
    """The node classifier only sees the samples of its subtree and its children as targets."""
    d = make_hierarchical_classification(n_samples=120, n_noise=5, random_state=0)
    clf = HierarchicalClassifier(d.tree).fit(d.X, d.y)
    est = clf.estimators_["g0"]
    assert sorted(est.classes_.tolist()) == [d.tree.index[c] for c in d.tree.children_of("g0")]
    assert est[-1].n_features_in_ == d.X.shape[1]
    nodes = clf.predict_nodes(d.X)
    assert set(nodes.tolist()) <= set(d.tree.leaves.tolist())


def test_top_down_classifier_sparse_and_labels():
    d = make_hierarchical_classification(n_samples=120, n_noise=5, random_state=0)
    a = HierarchicalClassifier(d.tree).fit(d.X, d.y).predict(d.X)
    b = HierarchicalClassifier(d.tree).fit(sp.csr_matrix(d.X), d.y).predict(sp.csr_matrix(d.X))
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ClassTreeError, match="not in the class tree"):
        HierarchicalClassifier(d.tree).fit(d.X, np.where(d.y == "c0.0", "zzz", d.y))


def test_top_down_with_a_selector():
    from selection.class_hierarchy.hifsrr import HiFSRR

    d = make_hierarchical_classification(n_samples=150, n_noise=30, random_state=0)
    clf = HierarchicalClassifier(d.tree, node_features=HiFSRR(k=8, random_state=0)).fit(d.X, d.y)
    assert all(len(v) == 8 for v in clf.node_features_.values())
    assert set(clf.node_features_["g2"]) <= set(d.relevant["g2"])  # the tree was handed to the selector
    assert clf.score(d.X, d.y) > 0.9


def test_generator():
    d = make_hierarchical_classification(n_samples=200, random_state=3)
    d2 = make_hierarchical_classification(n_samples=200, random_state=3)
    np.testing.assert_array_equal(d.X, d2.X)
    assert d.tree.leaf_ids == sorted(set(d.y))
    counts = np.unique(d.y, return_counts=True)[1]
    assert counts.max() - counts.min() <= 1
    # the shift is where the generator says: class features differ between siblings
    g0 = d.tree.children_of("g0")
    for c in g0:
        own = d.relevant["g0"][[i for i in range(len(d.relevant["g0"]))]]
        mu = d.X[d.y == c][:, own].mean(axis=0)
        assert (mu > 1.0).sum() >= 4  # group shift everywhere, plus its own class shift
    noise = np.setdiff1d(np.arange(d.X.shape[1]), d.relevant["root"])
    assert np.abs(d.X[:, noise].mean(axis=0)).max() < 0.35
    with pytest.raises(ValueError, match="smaller than the number of classes"):
        make_hierarchical_classification(n_samples=5)


@parametrize_with_checks([HierarchicalClassifier()])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_read_cycle_names_a_line(tmp_path):
    p = tmp_path / "cyc.tsv"
    p.write_text("x\tr\na\tb\nb\tc\nc\ta\n")
    with pytest.raises(InputFormatError, match=r"cyc.tsv:\d: class tree has a cycle"):
        ClassHierarchy.read(p)
