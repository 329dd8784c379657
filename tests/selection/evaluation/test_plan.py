"""An evaluation checked before any work (plan_evaluation), protocol options, and the fold policy of a run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kg.errors import KgfsError, ParameterError, render_params
from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable
from selection.evaluation.cv import check_folds
from selection.evaluation.grid import write_skipped
from selection.evaluation.plan import fold_policy, plan_evaluation
from selection.evaluation.protocols import available_protocols, get_protocol

# what `kgfs evaluate` says for plan_evaluation's parameters (flows/cli: the options' destinations, LIBRARY_WORDS)
EVALUATE_WORDS = {"n_splits": "--n-splits", "threshold": "--threshold", "options": "--option",
                  "selectors": "--selectors", "params": "--param"}


def test_plan_checks_every_part_and_scopes_parameters():
    plan = plan_evaluation("shsel2014", ["shsel-ig-prune", "sig"], None, params={"sig.k": 4, "svm.C": 2.0},
                           options={"threshold_metric": "gm"}, threshold="best-on-test", n_splits=5)
    assert [s.label for s in plan.selectors] == ["shsel-ig-prune", "sig[k=4]"]
    assert [(c.label, c.params) for c in plan.classifiers] == [("nb", {}), ("knn", {}), ("svm[C=2.0]", {"C": 2.0})]
    assert plan.selectors[1].estimator.get_params()["k"] == 4 and plan.random_state == 0
    assert plan.options == {"threshold_metric": "gm", "threshold_choice": "best-on-test"} and plan.n_splits == 5
    assert plan_evaluation("rpv2020", ["rpv"]).n_splits == 10


@pytest.mark.parametrize("kwargs, message", [
    (dict(n_splits=1), "n_splits must be at least 2"),
    (dict(n_splits=2.5), "n_splits must be at least 2"),
    (dict(threshold="high"), "threshold must be a number, best-on-test or nested; got 'high'"),
    (dict(threshold="nan"), "threshold must be a finite number"),
    (dict(threshold="0.5", options={"threshold": 0.4}), "threshold and options='threshold=...' both given"),
    (dict(selectors=[]), "no selectors given (selectors)"),
    (dict(options={"inner_splits": 1}), "protocol shsel2014: inner_splits=1 is not valid: must be int >= 2"),
    (dict(options={"thresholds": "0.1"}), "thresholds=0.1 is not valid: must be array-like or None"),
    (dict(options={"foo": 1}), "protocol shsel2014 has no option 'foo'; options: inner_splits (int >= 2, default 5)"),
    (dict(params={"nb.alpha": -1}), "classifier nb: alpha=-1 is not valid"),
    (dict(classifiers=["zz"]), "unknown classifier 'zz'"),
])
def test_plan_refuses_bad_values_in_one_line(kwargs, message):
    kwargs = {"selectors": ["shsel-ig-prune"], **kwargs}
    with pytest.raises(KgfsError) as e:
        plan_evaluation("shsel2014", **kwargs)
    assert message in str(e.value) and "\n" not in str(e.value)
    assert "--" not in str(e.value)  # the library names its parameters, the command line its options


@pytest.mark.parametrize("kwargs, said", [
    (dict(n_splits=1), "--n-splits must be at least 2 (folds of the stratified cross-validation), got 1"),
    (dict(threshold="high"), "--threshold must be a number, best-on-test or nested; got 'high'"),
    (dict(threshold="0.5", options={"threshold": 0.4}), "--threshold and --option threshold=... both given; give one"),
    (dict(selectors=[]), "no selectors given (--selectors)"),
])
def test_plan_messages_mark_the_parameters_the_command_line_says_as_options(kwargs, said):
    kwargs = {"selectors": ["shsel-ig-prune"], **kwargs}
    with pytest.raises(ParameterError) as e:
        plan_evaluation("shsel2014", **kwargs)
    assert render_params(e.value.raw_message, EVALUATE_WORDS) == said


def test_plan_on_a_protocol_with_its_own_methods():
    plan = plan_evaluation("hifsrr2017", ["hifsrr", "fisher"], params={"hifsrr.lam": 5.0},
                           options={"n_features": "8,4"})
    assert [(s.label, s.name, s.params) for s in plan.selectors] == [("hifsrr[lam=5.0]", "hifsrr", {"lam": 5.0}),
                                                                      ("fisher", "fisher", {})]
    assert [c.label for c in plan.classifiers] == ["svm-linear"]
    with pytest.raises(KgfsError, match="protocol 'hifsrr2017' has no method 'shsel-ig'"):
        plan_evaluation("hifsrr2017", ["shsel-ig"])
    with pytest.raises(KgfsError, match="n_features=0 is not valid"):
        plan_evaluation("hifsrr2017", ["fisher"], options={"n_features": 0})


@pytest.mark.parametrize("name", sorted(available_protocols()))
def test_every_protocol_declares_its_options(name):
    proto = get_protocol(name)
    params = proto.parameters()
    assert params and all(p.meaning and p.constraints for p in params)
    assert proto.check_options(proto.defaults()) == proto.defaults()


def test_protocol_functions_check_their_options_as_a_library_call_too():
    h = FeatureHierarchy.from_edges([("b", "a")], nodes=["a", "b", "c"])
    facts = {f"i{i}": (["b"] if i % 2 else ["c"]) for i in range(8)}
    t = FeatureTable.from_facts(facts, h, labels={f"i{i}": i % 2 for i in range(8)})
    with pytest.raises(KgfsError, match="lazy_classifiers_for_eager=maybe is not valid"):
        get_protocol("rpv2020").evaluate(t, ["complete"], [("nb", {})], dataset="d", n_splits=2, random_state=0,
                                         folds=[0], options={"lazy_classifiers_for_eager": "maybe"})


@pytest.mark.parametrize("y, n_splits, folds, note", [
    ([0] * 20 + [1] * 20, 10, 10, ""),
    ([0] * 20 + [1] * 3, 10, 3, "class 1 has 3 member(s), fewer than 10 folds: 3-fold cross-validation instead"),
    (["a"] * 5 + ["b"], 10, 0, "class 'b' has 1 member(s): evaluation skipped"),
    (["a"] * 5, 5, 0, "one class only ('a')"),
    (None, 5, 0, "the table has no labels"),
])
def test_fold_policy(y, n_splits, folds, note):
    got, text = fold_policy(None if y is None else np.asarray(y), n_splits)
    assert got == folds and note in text and (text == "") == (note == "")


def test_check_folds_says_which_folds_would_work():
    with pytest.raises(KgfsError, match="class 'b' has 3 member.*use n_splits=3 or fewer") as e:
        check_folds(np.array(["a"] * 9 + ["b"] * 3), 5, "d")
    assert render_params(e.value.raw_message, EVALUATE_WORDS).endswith("use --n-splits 3 or fewer")
    with pytest.raises(ParameterError, match="^n_splits must be at least 2, got 1$"):
        check_folds(np.array(["a", "b"] * 3), 1, "d")
    with pytest.raises(KgfsError, match=r"single class \('a'\)"):  # the label, not its numpy repr
        check_folds(np.array(["a", "a"], dtype=np.str_), 2, "d")


def test_write_skipped_leaves_an_empty_but_readable_evaluation(tmp_path):
    res = write_skipped(tmp_path / "grid", "one class only", protocol="rpv2020")
    assert pd.read_csv(res.results).empty and pd.read_csv(res.summary).empty
    assert "Evaluation skipped: one class only." in res.report.read_text()
    assert res.n_cells == res.n_failed == 0


def test_a_selector_giving_masks_is_paired_only_with_classifiers_that_score_them():
    plan = plan_evaluation("split", ["hip", "complete"])  # the split protocol's classifiers: logreg, logreg-tfidf, nb
    assert [[c.label for c in plan.classifiers_for(s)] for s in plan.selectors] == \
        [["nb"], ["logreg", "logreg-tfidf", "nb"]]
    assert plan.skipped() == [("hip", ["logreg", "logreg-tfidf"])]
    # rpv2020 scores eager selectors with the lazy classifiers too (its default): svm scores neither
    plan = plan_evaluation("rpv2020", ["hip", "complete"], ["nb", "svm"])
    assert plan.skipped() == [("hip", ["svm"]), ("complete", ["svm"])]
    plan = plan_evaluation("rpv2020", ["complete"], ["svm"], options={"lazy_classifiers_for_eager": False})
    assert plan.skipped() == []
    # a lazy classifier's name whose parameters fail is paired: its cells say why
    assert plan_evaluation("basic", ["hip"], [("knn", {"n_neighbors": 0})]).skipped() == []


@pytest.mark.parametrize("protocol, selectors, classifiers, said", [
    ("basic", ["hip"], ["logreg"], "selector hip is a lazy selector: each test instance has its own features, and "
     "none of the classifiers logreg can score per-instance feature masks: add one that can to --classifiers "
     "(nb, 1nn, knn, or an estimator taking a mask)"),
    ("rpv2020", ["complete", "hip"], ["svm", "svm-linear"], "selector complete is an eager selector scored by the "
     "lazy classifiers (option lazy_classifiers_for_eager), and none of the classifiers svm, svm-linear can score "
     "per-instance feature masks: add one that can to --classifiers (nb, 1nn, knn, or an estimator taking a mask), "
     "or give --option lazy_classifiers_for_eager=false"),
])
def test_a_selector_no_classifier_can_score_is_refused_before_any_work(protocol, selectors, classifiers, said):
    with pytest.raises(ParameterError) as e:
        plan_evaluation(protocol, selectors, classifiers)
    assert render_params(e.value.raw_message, {**EVALUATE_WORDS, "classifiers": "--classifiers"}) == said
