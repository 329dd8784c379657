"""Tests of selection/class_hierarchy/evaluation.py: per-node rankings, and the hifsrr2017 protocol that runs them."""

from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.datasets import load_digits

from kg.errors import KgfsError
from selection.class_hierarchy.tree import ClassHierarchy
from selection.synthetic.class_tree import make_hierarchical_classification
from selection.class_hierarchy.evaluation import (
    METHODS,
    default_feature_counts,
    evaluate_class_hierarchy,
    rank_nodes,
    summarize,
)


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Small dense problems: extra BLAS threads only add overhead on a shared machine."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


def test_rank_nodes_every_method():
    d = make_hierarchical_classification(n_samples=150, n_noise=20, random_state=0)
    X = (d.X - d.X.mean(0)) / d.X.std(0)  # as the evaluation does (scale=True)
    for m in METHODS:
        r = rank_nodes(m, X, d.y, d.tree, max_k=10)
        assert set(r) == set(d.tree.internal_ids)
        for node, order in r.items():
            assert sorted(order.tolist()) == list(range(d.X.shape[1]))
            if node != "root":
                assert np.isin(order[:6], d.relevant[node]).mean() >= 0.5, (m, node)
    with pytest.raises(KgfsError, match="unknown class-hierarchy method"):
        rank_nodes("nope", d.X, d.y, d.tree)


def test_evaluate_small():
    d = make_hierarchical_classification(n_samples=120, n_noise=20, random_state=0)
    res = evaluate_class_hierarchy(d.X, d.y, d.tree, n_features=[8, 2], methods=["fisher", ("hifsrr", {"alpha": 1})],
                                   n_splits=3, random_state=0)
    assert set(res["node"]) == {"root", "g0", "g1", "g2", "mean", "top-down"}
    assert len(res) == 2 * 2 * 3 * 6
    mean = summarize(res)
    assert list(mean.columns) == [8, 2]
    assert (mean[8] > 0.7).all() and (mean[8] > mean[2]).all()
    # the node mean is the mean of the node rows
    sub = res[(res.method == "fisher") & (res.k == 8) & (res.fold == 0)]
    assert sub[sub.node == "mean"].accuracy.item() == pytest.approx(sub[sub.node.isin(["root", "g0", "g1", "g2"])]
                                                                    .accuracy.mean())
    with pytest.raises(KgfsError, match=r"out of range 1..56"):
        evaluate_class_hierarchy(d.X, d.y, d.tree, n_features=[100], n_splits=3)


def test_default_feature_counts():
    assert default_feature_counts(512) == [256, 205, 154, 102, 51]  # the paper's Cifar grid (it rounds 102.4 up)
    assert default_feature_counts(3) == [2, 1]


def test_protocol_registered_and_rows():
    protocols = pytest.importorskip("selection.evaluation.protocols")
    from selection.evaluation.cv import COLUMNS

    p = protocols.get_protocol("hifsrr2017")
    d = make_hierarchical_classification(n_samples=90, n_noise=10, random_state=0)
    table = SimpleNamespace(X=d.X, y=d.y, meta={"class_tree": d.tree.edges()})
    rows = p.evaluate(table, [("hifsrr", {}), ("fisher", {})], [("svm-linear", {})], dataset="syn", n_splits=3,
                      random_state=0, folds=[1], options={"n_features": "4"})
    assert list(rows.columns) == COLUMNS
    assert len(rows) == 2 * 2  # two methods x (node-average, top-down)
    assert set(rows.threshold_choice) == {"node-average", "top-down"}
    assert (rows.fold == 1).all() and (rows.n_selected == 4).all() and (rows.status == "ok").all()


@pytest.mark.slow
def test_digits_end_to_end():
    X, y = load_digits(return_X_y=True)
    tree = ClassHierarchy.from_data(X, y, n_groups=3)
    res = evaluate_class_hierarchy(X, y, tree, n_features=[16, 4], methods=["hifsrr", "fisher"], n_splits=10)
    s = summarize(res)
    assert (s[16] > 0.9).all()
    assert (summarize(res, "top-down")[16] > 0.85).all()


def test_protocol_through_the_grid(tmp_path):
    """run_grid stores the rows and its report shows one column per method and k."""
    grid = pytest.importorskip("selection.evaluation.grid")
    import pandas as pd
    import scipy.sparse as sp

    d = make_hierarchical_classification(n_samples=60, n_noise=6, random_state=0)
    table = SimpleNamespace(X=sp.csr_matrix((d.X > 0.5).astype(float)), y=d.y,
                            feature_names=[f"f{i}" for i in range(d.X.shape[1])],
                            meta={"class_tree": d.tree.edges()})
    from selection.evaluation.plan import plan_evaluation
    from selection.evaluation.report import ReportSettings

    plan = plan_evaluation("hifsrr2017", ["fisher"], n_splits=3, options={"n_features": [6, 3]})
    r = grid.run_grid({"syn": table}, plan, out_dir=tmp_path, n_jobs=1, report=ReportSettings(plots=False))
    res = pd.read_csv(r.results)
    assert set(res.selector) == {"fisher k=6", "fisher k=3"}
    assert set(res.classifier) == {"svm-linear", "svm-linear top-down"}
    assert len(res) == 2 * 2 * 3
    assert "fisher k=3" in r.report.read_text()


def test_hifsrr2017_by_name_from_the_cli(shared_data, tmp_path):
    """`kgfs evaluate --protocol hifsrr2017` finds the protocol (loaded on first lookup) and accepts
    its own method names, which are not in the selector registry; an unknown method is one clear line."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "KGFS_DATA_MIRROR": str(shared_data)}
    cmd = [sys.executable, "-m", "flows.cli", "evaluate", "--datasets", "lod/Cities", "--protocol",
           "hifsrr2017", "--n-splits", "3", "--option", "n_features=8", "--n-jobs", "1", "--out"]
    ok = subprocess.run(cmd + [str(tmp_path / "ok"), "--selectors", "hifsrr", "fisher"],
                        capture_output=True, text=True, env=env, timeout=300)
    assert ok.returncode == 0, ok.stderr
    import pandas as pd

    rows = pd.read_csv(tmp_path / "ok" / "results.csv")
    assert set(rows["status"]) == {"ok"} and rows["accuracy"].between(0, 1).all()
    assert {"hifsrr k=8", "fisher k=8"} <= set(rows["selector"])
    bad = subprocess.run(cmd + [str(tmp_path / "bad"), "--selectors", "nope"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert bad.returncode != 0 and "protocol 'hifsrr2017' has no method 'nope'" in bad.stderr
    assert "Traceback" not in bad.stderr
