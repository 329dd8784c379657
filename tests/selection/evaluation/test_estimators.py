"""The evaluation takes estimators: a user's own selectors and classifiers, beside (and equal to) registered ones.

A scikit-learn selector (``SelectKBest(chi2, k=50)``) and a user's subclass of the kgfs base are
evaluated unregistered and under a registry name; every per-fold score must be the same, through
``evaluate_table`` and through the ``rpv2020`` and ``shsel2014`` protocols.
"""

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_selection import SelectKBest, VarianceThreshold, chi2
from sklearn.naive_bayes import BernoulliNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

import selection.evaluation
from kg.errors import KgfsError
from selection import registry
from selection.base import HierarchicalSelector
from selection.evaluation.cv import CVOptions, evaluate_table
from selection.evaluation.grid import run_grid
from selection.evaluation.plan import plan_evaluation
from selection.evaluation.protocols import get_protocol
from selection.evaluation.report import ReportSettings
from selection.evaluation.specs import estimator_label, method_spec, method_specs
from selection.hierarchical import SHSEL
from selection.lazy import RPV, LazyNaiveBayes, LazySelectionClassifier
from selection.measures import information_gain

#: The columns a selector's cell is made of (timing aside).
SCORES = ["n_selected", "accuracy", "auroc", "aucpr", "gm", "compression", "harmonic_mean", "threshold",
          "threshold_choice", "status"]


class AsInformativeAsItsParents(HierarchicalSelector):
    """A user's selector: keep a feature whose information gain reaches that of each of its parents.

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
        The DAG over the columns (the table's when None in an evaluation).
    """

    def __init__(self, hierarchy=None):
        self.hierarchy = hierarchy

    def _fit(self, X, y, hierarchy):
        self.scores_ = information_gain(X, y)
        child, parent = hierarchy.edges
        below = np.zeros(X.shape[1], dtype=bool)
        np.logical_or.at(below, child, self.scores_[child] < self.scores_[parent])
        self.support_ = ~below


@pytest.fixture(scope="module")
def dmcc(shared_data):
    from kg.datasets import load_dataset

    return load_dataset("rpv/DM-CC", mirror=shared_data, check="repair")


@pytest.fixture
def registered():
    """The same two selectors under registry names, for one test."""
    registry.register_selector("test-chi2-50", SelectKBest, presets={"score_func": chi2, "k": 50})
    registry.register_selector("test-parents", AsInformativeAsItsParents)
    yield {"test-chi2-50": "SelectKBest[k=50,score_func=chi2]", "test-parents": "AsInformativeAsItsParents"}
    del registry._SELECTORS["test-chi2-50"], registry._SELECTORS["test-parents"]


def _cells(df: pd.DataFrame, selector: str) -> pd.DataFrame:
    rows = df[df["selector"] == selector].sort_values(["dataset", "classifier", "fold", "threshold"], kind="stable")
    return rows[["dataset", "classifier", "fold", *SCORES]].reset_index(drop=True)


def _assert_same_cells(df, pairs):
    for name, label in pairs.items():
        a, b = _cells(df, name), _cells(df, label)
        assert len(a) and (a["status"] == "ok").all(), a
        pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_unregistered_estimators_score_as_registered_ones_in_evaluate_table(dmcc, registered):
    mine = [SelectKBest(chi2, k=50), AsInformativeAsItsParents()]
    df = evaluate_table(dmcc, [*registered, *mine], ["nb", "1nn"], dataset="dm", n_splits=4)
    assert set(df["selector"]) == {*registered, *registered.values()}
    _assert_same_cells(df, registered)
    assert (df[df["selector"] == "SelectKBest[k=50,score_func=chi2]"]["n_selected"] == 50).all()
    assert df[df["selector"] == "SelectKBest[k=50,score_func=chi2]"]["kind"].eq("flat").all()
    assert df[df["selector"] == "AsInformativeAsItsParents"]["kind"].eq("eager").all()
    # the templates are cloned for every fit, never fitted themselves
    assert not any(hasattr(est, "support_") or hasattr(est, "scores_") for est in mine)


def test_unregistered_estimators_score_as_registered_ones_in_the_rpv2020_protocol(dmcc, registered):
    """rpv2020 scores eager selectors with the lazy NB / 1-NN: the objects meet the same classifiers."""
    rows = get_protocol("rpv2020").evaluate(dmcc, [*registered, SelectKBest(chi2, k=50), AsInformativeAsItsParents()],
                                            ["nb", "1nn"], dataset="dm", n_splits=4, random_state=0, folds=None,
                                            options=None)
    _assert_same_cells(rows, registered)


def test_unregistered_estimators_score_as_registered_ones_in_the_shsel2014_protocol(dmcc, registered, tmp_path):
    """Through run_grid and the shsel2014 protocol, with its nested threshold choice: an SHSEL object is
    swept like the registered shsel-ig-prune (the threshold grid is its class's)."""
    opts = {"thresholds": [0.5, 0.9, 0.99], "inner_splits": 3}
    selectors = [*registered, "shsel-ig-prune", SelectKBest(chi2, k=50), AsInformativeAsItsParents(),
                 ("my-shsel", SHSEL(relevance="ig", prune=True))]
    plan = plan_evaluation("shsel2014", selectors, ["nb", "knn"], n_splits=3, options=opts)
    r = run_grid({"dm": dmcc}, plan, out_dir=tmp_path, n_jobs=1, report=ReportSettings(plots=False))
    df = pd.read_csv(r.results)
    _assert_same_cells(df, {**registered, "shsel-ig-prune": "my-shsel"})
    assert set(df[df["selector"] == "my-shsel"]["threshold_choice"]) == {"nested"}
    assert "SelectKBest[k=50,score_func=chi2]" in r.report.read_text()


def test_knn_with_two_k_in_one_nested_sweep_keeps_separate_inner_scores(dmcc):
    """k-NN with k=1 and k=5 are two classifiers: each chooses its own thresholds in the inner CV, as
    when it is evaluated alone (keyed by the classifier's name alone, their inner scores merged)."""
    opts = CVOptions(threshold="nested", thresholds=(0.0, 0.5, 0.8, 0.9, 0.95, 0.99, 1.0), inner_splits=3)
    k1, k5 = ("knn", {"n_neighbors": 1}), ("knn", {"n_neighbors": 5})
    both = evaluate_table(dmcc, ["shsel-ig-prune"], [k1, k5], dataset="dm", n_splits=4, options=opts)
    assert set(both["classifier"]) == {"knn[n_neighbors=1]", "knn[n_neighbors=5]"}
    chosen = {}
    for spec in (k1, k5):
        alone = evaluate_table(dmcc, ["shsel-ig-prune"], [spec], dataset="dm", n_splits=4, options=opts)
        label = alone["classifier"].iloc[0]
        mine = both[both["classifier"] == label].reset_index(drop=True)
        pd.testing.assert_frame_equal(mine[["fold", *SCORES]], alone[["fold", *SCORES]])
        chosen[label] = mine["threshold"].tolist()
    assert chosen["knn[n_neighbors=1]"] != chosen["knn[n_neighbors=5]"]  # else the test could not see a merge


def test_a_lazy_selection_classifier_and_a_pipeline_are_classifiers(dmcc):
    """LazySelectionClassifier(RPV, lazy NB) on every feature scores as the evaluation's own lazy path of
    rpv with nb; a Pipeline of a scaler and a linear SVM scores as the registered svm-linear."""
    lazy = LazySelectionClassifier(selector=RPV(), classifier=LazyNaiveBayes())  # RPV gets the table's hierarchy
    svm = make_pipeline(StandardScaler(with_mean=False), LinearSVC(max_iter=5000, random_state=0))
    a = evaluate_table(dmcc, ["complete"], [lazy, svm, ("svm-linear", {"random_state": 0})], dataset="dm", n_splits=3)
    b = evaluate_table(dmcc, ["rpv"], ["nb"], dataset="dm", n_splits=3)
    measures = ["accuracy", "auroc", "aucpr", "gm"]
    mine = a[a["classifier"] == estimator_label(lazy)].reset_index(drop=True)
    assert mine[measures].to_numpy().tolist() == b[measures].to_numpy().tolist()
    pipe = a[a["classifier"] == estimator_label(svm)].reset_index(drop=True)
    reg = a[a["classifier"] == "svm-linear[random_state=0]"].reset_index(drop=True)
    assert pipe[measures].to_numpy().tolist() == reg[measures].to_numpy().tolist()


def test_a_pipeline_of_selectors_selects_its_composed_subset(dmcc):
    pipe = make_pipeline(VarianceThreshold(), SelectKBest(chi2, k=10))
    df = evaluate_table(dmcc, [pipe], ["nb"], dataset="dm", n_splits=3)
    assert (df["status"] == "ok").all() and (df["n_selected"] == 10).all()
    assert df["selector"].iloc[0] == "Pipeline(VarianceThreshold,SelectKBest[score_func=chi2])"


def test_a_classifier_without_a_per_instance_form_fails_its_lazy_cells_only(dmcc):
    df = evaluate_table(dmcc, ["all-pos", "complete"], [BernoulliNB()], dataset="dm", n_splits=3)
    lazy = df[df["selector"] == "all-pos"]
    assert (lazy["status"] == "failed").all()
    assert lazy["error"].str.contains("cannot score per-instance feature masks").all()
    assert (df[df["selector"] == "complete"]["status"] == "ok").all()


def test_specs_identity_templates_and_errors(dmcc):
    chi = method_spec(SelectKBest(chi2, k=50), "selector")
    assert chi.params == {"k": 50, "score_func": "sklearn.feature_selection._univariate_selection.chi2"}
    assert method_spec(("knn", {"n_neighbors": 5}), "classifier").label == "knn[n_neighbors=5]"
    # a hierarchy left at None is the table's; one given is kept, and not copied per fold
    given = SHSEL(dmcc.hierarchy)
    assert method_spec(given, "selector").build(None).hierarchy is dmcc.hierarchy
    assert method_spec(SHSEL(), "selector").build(dmcc.hierarchy).hierarchy is dmcc.hierarchy
    assert given.hierarchy is dmcc.hierarchy
    with pytest.raises(KgfsError, match="selector BernoulliNB has neither get_support"):
        method_spec(BernoulliNB(), "selector")
    with pytest.raises(KgfsError, match="selectors given twice: SelectKBest"):
        method_specs([SelectKBest(), SelectKBest()], "selector")
    with pytest.raises(KgfsError, match="protocol 'hifsrr2017' has no method"):
        plan_evaluation("hifsrr2017", [SelectKBest()])


def test_no_function_of_the_evaluation_takes_more_than_eight_parameters():
    """The evaluation's signatures stay small: many settings are one object (CVOptions, EvaluationPlan,
    ReportSettings)."""
    too_many = []
    for path in sorted(Path(selection.evaluation.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x is not None]
                n = len([x for x in names if x not in ("self", "cls")])
                if n > 8:
                    too_many.append(f"{path.name}:{node.lineno} {node.name} ({n})")
    assert not too_many, too_many
