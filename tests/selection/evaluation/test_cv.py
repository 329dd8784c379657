"""evaluate_table on real tables: no leakage, determinism, lazy selectors, sweeps, failures."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import BernoulliNB

from kg.errors import KgfsError
from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable
from selection.evaluation.cv import COLUMNS, CVOptions, choose_best_on_test, evaluate_table
from selection.evaluation.specs import method_spec
from selection.registry import available_selectors, get_selector


@pytest.fixture(scope="module")
def cities(shared_data):
    """LD Cities: 212 cities x 102 DBpedia types, three classes (39/67/106)."""
    from kg.datasets import load_dataset

    return load_dataset("lod/Cities", mirror=shared_data, check="repair")


@pytest.fixture(scope="module")
def dmbp(shared_data):
    """RPV DM-BP: 132 fly genes x 800 GO BP terms, 2014 GO is_a (rows closed upward)."""
    from kg.datasets import load_dataset

    return load_dataset("rpv/DM-BP", mirror=shared_data, check="repair")


def _eager(name):
    if name not in available_selectors():
        pytest.skip(f"selector {name!r} is not registered yet")
    return name


def test_columns_and_complete_baseline(cities):
    df = evaluate_table(cities, ["complete"], ["nb", "knn"], dataset="lod/Cities", n_splits=5)
    assert set(COLUMNS) <= set(df.columns)
    assert len(df) == 2 * 5
    assert (df["status"] == "ok").all()
    assert (df["n_selected"] == cities.n_features).all()
    assert (df["compression"] == 0).all() and (df["harmonic_mean"] == 0).all()
    assert df["n_test"].sum() == 2 * cities.n_instances
    # three classes: GM is the geometric mean of three recalls, AUROC macro one-vs-rest
    assert df["gm"].between(0, 1).all() and df["auroc"].between(0, 1).all()


def test_selection_is_fitted_on_the_training_part_only(dmbp):
    """Recompute every fold by hand: same folds, selector fitted on the training rows, NB on its columns."""
    sel = _eager("shsel-ig-prune")
    df = evaluate_table(dmbp, [sel], ["nb"], dataset="dm", n_splits=4, random_state=3)
    X, y = dmbp.X, np.asarray(dmbp.y)
    folds = StratifiedKFold(4, shuffle=True, random_state=3).split(np.zeros(len(y)), y)
    for k, (tr, te) in enumerate(folds):
        s = get_selector(sel, dmbp.hierarchy).fit(X[tr], y[tr])
        mask = s.get_support()
        nb = BernoulliNB(alpha=1.0).fit(X[tr][:, mask], y[tr])
        acc = float(np.mean(nb.predict(X[te][:, mask]) == y[te]))
        row = df[df["fold"] == k].iloc[0]
        assert row["n_selected"] == mask.sum()
        assert row["accuracy"] == pytest.approx(acc)
        assert row["compression"] == pytest.approx(1 - mask.sum() / X.shape[1])
    # fitted on all rows the selection differs (else this test could not see a leak)
    full = get_selector(sel, dmbp.hierarchy).fit(X, y).get_support().sum()
    assert not (df["n_selected"] == full).all()


def test_same_seed_same_rows_other_seed_other_folds(cities):
    a = evaluate_table(cities, ["complete"], ["nb"], dataset="c", n_splits=5, random_state=1)
    b = evaluate_table(cities, ["complete"], ["nb"], dataset="c", n_splits=5, random_state=1)
    c = evaluate_table(cities, ["complete"], ["nb"], dataset="c", n_splits=5, random_state=2)
    cols = ["accuracy", "auroc", "aucpr", "gm"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    assert not np.allclose(a[cols].to_numpy(), c[cols].to_numpy())


def test_positive_class_default_minority_and_explicit(dmbp):
    df = evaluate_table(dmbp, ["complete"], ["nb"], dataset="dm", n_splits=3)
    labels, counts = np.unique(dmbp.y, return_counts=True)
    assert df["pos_label"].iloc[0] == str(labels[np.argmin(counts)])
    df1 = evaluate_table(dmbp, ["complete"], ["nb"], dataset="dm", n_splits=3,
                         options=CVOptions(pos_label=labels[np.argmax(counts)]))
    assert df1["pos_label"].iloc[0] == str(labels[np.argmax(counts)])
    # GM and accuracy do not depend on the positive class; AUCPR does
    assert df["gm"].tolist() == pytest.approx(df1["gm"].tolist())
    assert not np.allclose(df["aucpr"], df1["aucpr"])


def test_class_smaller_than_folds_fails_before_any_work():
    h = FeatureHierarchy.from_edges([("b", "a")], nodes=["a", "b"])
    facts = {f"i{i}": ["b"] if i < 3 else [] for i in range(30)}
    t = FeatureTable.from_facts(facts, h, labels={f"i{i}": int(i < 3) for i in range(30)})
    with pytest.raises(KgfsError, match=r"class 1 has 3 member\(s\), fewer than the 10 folds"):
        evaluate_table(t, ["complete"], ["nb"], dataset="tiny")
    with pytest.raises(KgfsError, match="unknown selector 'nope'"):
        evaluate_table(t, ["nope"], ["nb"], dataset="tiny", n_splits=3)


def test_a_selector_that_raises_on_some_folds_marks_them_failed(dmbp):
    """A real failure: SHSEL refuses rows that break the hierarchy; one gene breaks it."""
    sel = _eager("shsel-ig-prune")
    X = dmbp.X.tolil(copy=True)
    h = dmbp.hierarchy
    child = int(h.edges[0][0])
    parent = int(h.edges[1][0])
    i = int(np.flatnonzero(np.asarray(dmbp.X[:, parent].todense()).ravel() == 0)[0])
    X[i, child] = 1  # child without its parent in instance i
    bad = FeatureTable(sp.csr_matrix(X), dmbp.feature_names, dmbp.instance_ids, dmbp.y, h, check="ignore")
    df = evaluate_table(bad, [sel, "complete"], ["nb", "1nn"], dataset="bad", n_splits=5)
    s = df[df["selector"] == sel]
    failed = s[s["status"] == "failed"]
    # instance i is in the training part of 4 folds and in the test part of one
    assert failed["fold"].nunique() == 4 and len(failed) == 8
    assert failed["error"].str.contains("violates|hierarchy|implication", case=False).all()
    assert (s[s["status"] == "ok"]["fold"].nunique()) == 1
    assert (df[df["selector"] == "complete"]["status"] == "ok").all()


def test_empty_selection_falls_back_to_the_prior(cities):
    from selection.evaluation.classify import eager_classify

    X, y = cities.X, np.asarray(cities.y)
    pred, proba, classes = eager_classify(method_spec("nb", "classifier"), X[:150], y[:150], X[150:],
                                           np.zeros(X.shape[1], bool))
    labels, counts = np.unique(y[:150], return_counts=True)
    assert set(pred.tolist()) == {labels[np.argmax(counts)]}
    assert proba[0].tolist() == pytest.approx((counts / counts.sum()).tolist())


def test_parameters_name_the_method(cities):
    sel = _eager("shsel-ig-prune")
    df = evaluate_table(cities, [(sel, {"threshold": 0.5})], ["nb"], dataset="c", n_splits=3)
    assert (df["status"] == "ok").all()
    assert df["selector"].iloc[0] == f"{sel}[threshold=0.5]"
    assert (df["threshold"] == 0.5).all()


def test_threshold_sweep_best_on_test_and_nested(dmbp):
    sel = _eager("shsel-ig-prune")
    grid = (0.0, 0.9, 0.99, 1.0)
    sweep = evaluate_table(dmbp, [sel], ["nb"], dataset="dm", n_splits=3,
                           options=CVOptions(threshold="best-on-test", thresholds=grid, keep_sweep=True))
    assert len(sweep) == 3 * len(grid)
    best = choose_best_on_test(sweep)
    means = sweep.groupby("threshold")["accuracy"].mean()
    assert len(best) == 3 and best["threshold"].nunique() == 1
    assert means[best["threshold"].iloc[0]] == pytest.approx(means.max())
    assert (best["threshold_choice"] == "best-on-test").all()
    direct = evaluate_table(dmbp, [sel], ["nb"], dataset="dm", n_splits=3,
                            options=CVOptions(threshold="best-on-test", thresholds=grid))
    timing = ["select_seconds", "classify_seconds"]
    pd.testing.assert_frame_equal(direct.drop(columns=timing).reset_index(drop=True),
                                  best.drop(columns=timing).reset_index(drop=True))
    # a fixed threshold reproduces the sweep's row for that threshold
    fixed = evaluate_table(dmbp, [sel], ["nb"], dataset="dm", n_splits=3, options=CVOptions(threshold=0.9))
    at = sweep[sweep["threshold"] == 0.9].reset_index(drop=True)
    assert fixed["accuracy"].tolist() == pytest.approx(at["accuracy"].tolist())
    assert fixed["n_selected"].tolist() == at["n_selected"].tolist()
    nested = evaluate_table(dmbp, [sel], ["nb"], dataset="dm", n_splits=3,
                            options=CVOptions(threshold="nested", thresholds=grid, inner_splits=3))
    assert len(nested) == 3 and (nested["status"] == "ok").all()
    assert nested["threshold"].isin(grid).all()
    assert (nested["threshold_choice"] == "nested").all()


def test_lazy_selectors_report_mean_features_per_instance(dmbp):
    if "all-pos" not in available_selectors():
        pytest.skip("selection.lazy.selectors not available")
    df = evaluate_table(dmbp, ["all-pos", "rpv", "complete"], ["nb", "1nn"], dataset="dm", n_splits=4,
                        options=CVOptions(lazy_classifiers_for_eager=True))
    assert (df["status"] == "ok").all(), df["error"].unique()
    y = np.asarray(dmbp.y)
    folds = list(StratifiedKFold(4, shuffle=True, random_state=0).split(np.zeros(len(y)), y))
    ap = df[(df["selector"] == "all-pos") & (df["classifier"] == "nb")].sort_values("fold")
    for (tr, te), (_, row) in zip(folds, ap.iterrows()):
        # All-Pos selects exactly the positive values of each test instance
        assert row["n_selected"] == pytest.approx(dmbp.X[te].getnnz(axis=1).mean())
    assert (df.loc[df["selector"] == "all-pos", "kind"] == "lazy").all()
    rpv = df[df["selector"] == "rpv"]
    assert (rpv["n_selected"] < ap["n_selected"].max() + 1e-9).all()
    # the lazy NB with every feature selected is the ordinary Bernoulli NB: complete agrees in accuracy
    comp = df[(df["selector"] == "complete") & (df["classifier"] == "nb")]
    plain = evaluate_table(dmbp, ["complete"], ["nb"], dataset="dm", n_splits=4)
    assert np.mean(np.abs(comp["accuracy"].to_numpy() - plain["accuracy"].to_numpy())) < 0.05


@pytest.mark.parametrize("name", ["shsel-ig-prune", "shsel-c-prune", "shsel-ig", "shsel-c", "sig", "sc"])
def test_fast_threshold_sweep_equals_refitting(cities, name):
    """The one-fit sweep gives exactly the masks of a refit at every threshold."""
    from selection.evaluation.cv import _sweep_masks

    _eager(name)
    X, y = cities.X[:160], np.asarray(cities.y)[:160]
    grid = np.round(np.arange(0, 101, 7) / 100, 2)
    masks = _sweep_masks(get_selector(name, cities.hierarchy), X, y, grid)
    for t, m in zip(grid, masks):
        ref = get_selector(name, cities.hierarchy, threshold=float(t)).fit(X, y).get_support()
        assert (m == ref).all(), t


@pytest.mark.parametrize("params", [{}, {"degree": 2, "coef0": 1.0, "gamma": "auto"}, {"kernel": "linear"}])
def test_gram_svm_is_the_same_model_as_the_svc(cities, params):
    """The precomputed-kernel SVM predicts exactly as scikit-learn's SVC on the same columns."""
    import warnings

    from sklearn.svm import SVC

    from selection.evaluation.classify import eager_classify

    X, y = cities.X, np.asarray(cities.y)
    mask = np.asarray(cities.X.sum(axis=0)).ravel() > 5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        pred, dec, classes = eager_classify(method_spec(("svm", params), "classifier"), X[:160], y[:160], X[160:],
                                             mask)
        ref = SVC(**{"kernel": "poly", **params}).fit(X[:160][:, mask], y[:160])
    assert (ref.predict(X[160:][:, mask]) == pred).all()
    assert np.allclose(ref.decision_function(X[160:][:, mask]), dec, atol=1e-8)
    assert list(classes) == list(ref.classes_)


def test_lazy_rows_are_the_selector_and_classifier_by_hand(dmbp):
    """Each RPV row is RPV's masks for the test part scored by the lazy classifier fitted on the
    training part; each eager row under lazy classifiers is its support repeated per instance."""
    from selection.evaluation.metrics import aucpr, auroc, geometric_mean
    from selection.lazy import LazyKNN, LazyNaiveBayes

    df = evaluate_table(dmbp, ["rpv", "complete"], ["nb", "1nn"], dataset="dm", n_splits=4,
                        options=CVOptions(pos_label=1, lazy_classifiers_for_eager=True))
    X, y = dmbp.X, np.asarray(dmbp.y)
    folds = StratifiedKFold(4, shuffle=True, random_state=0).split(np.zeros(len(y)), y)
    for k, (tr, te) in enumerate(folds):
        masks = {"rpv": get_selector("rpv", dmbp.hierarchy).fit(X[tr], y[tr]).select_for(X[te]),
                 "complete": np.ones(X.shape[1], dtype=bool)}
        for cname, clf in (("nb", LazyNaiveBayes()), ("1nn", LazyKNN(n_neighbors=1))):
            clf.fit(X[tr], y[tr])
            for sel, mask in masks.items():
                proba = clf.predict_proba(X[te], mask)
                row = df[(df["selector"] == sel) & (df["classifier"] == cname) & (df["fold"] == k)].iloc[0]
                assert row["auroc"] == auroc(y[te], proba, clf.classes_, 1)
                assert row["aucpr"] == aucpr(y[te], proba, clf.classes_, 1)
                assert row["gm"] == geometric_mean(y[te], clf.classes_[np.argmax(proba, axis=1)])
                n_sel = mask.sum() / len(te) if sp.issparse(mask) else mask.sum()
                assert row["n_selected"] == pytest.approx(n_sel)


def test_a_fold_shares_fits_and_outputs_only_within_itself(dmbp):
    """What the selectors of a fold share lives in the fold object; the module keeps no caches."""
    import selection.evaluation.cv as cv
    from selection.evaluation.specs import method_specs
    from selection.lazy import SharedSelection

    assert not hasattr(cv, "_CLS_CACHE") and not hasattr(cv, "_LAZY_FITTED")
    methods = method_specs(["rpv", "complete"], "selector")
    nb, nn = method_specs(["nb", "1nn"], "classifier")
    run = cv._Run(dataset="dm", hierarchy=dmbp.hierarchy, classifiers=[nb, nn], options=CVOptions(
                  lazy_classifiers_for_eager=True), pos=1, labels=np.unique(dmbp.y), n_features=dmbp.n_features,
                  random_state=0)
    X, y = sp.csr_matrix(dmbp.X), np.asarray(dmbp.y)
    a, b = list(cv._folds(run, X, y, 3, [0, 1]))
    assert a.lazy_classifier(nb) is a.lazy_classifier(nb)
    assert a.lazy_classifier(nb) is not b.lazy_classifier(nb)
    mask = np.ones(X.shape[1], dtype=bool)
    assert a.evaluate_mask(nb, mask) is a.evaluate_mask(nb, mask.copy())  # same mask, same output
    shared = SharedSelection(get_selector("rpv", dmbp.hierarchy).fit(a.X_tr, a.y_tr))
    n_sel = shared.mean_selected(a.X_te, a.block_rows)
    for c in (nb, nn):
        a.lazy_scores(shared, c)
    assert shared.n_computed == 1  # the test part is one block: selected once for both classifiers
    rows = cv._run_method(a, methods[0])
    assert [r["n_selected"] for r in rows] == [n_sel, n_sel]
