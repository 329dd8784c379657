"""The split protocol (issue 35, point 4): tuned on the training part only, the test part scored once.

Tiny literal graphs at the top; the generation happens inside each fit, so nothing of the test part reaches
``min_support`` or any other choice; the generation grid takes any KGFeatures parameter; ``logreg``'s ``C`` and a
threshold method's threshold are tuned unless fixed; the test accuracy's Wilson interval; the grid and the command
line run it as the protocol ``split``. The real benchmarks are read from ../shared/data (skipped without it).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import rdflib

from kg.errors import KgfsError
from kg.instances import EntityDataset
from selection.evaluation.grid import run_grid
from selection.evaluation.metrics import wilson_interval
from selection.evaluation.plan import plan_evaluation
from selection.evaluation.report import ReportSettings
from selection.evaluation.specs import method_spec
from selection.evaluation.split import THRESHOLDS, SplitSettings, evaluate_split, model_grid

DBO = "http://dbpedia.org/ontology/"
X = "http://x/"


def _graph(rows: dict[str, list[str]], edges=()) -> rdflib.Graph:
    g = rdflib.Graph()
    for e, types in rows.items():
        for t in types:
            g.add((rdflib.URIRef(X + e), rdflib.RDF.type, rdflib.URIRef(DBO + t)))
    for c, p in edges:
        g.add((rdflib.URIRef(DBO + c), rdflib.RDFS.subClassOf, rdflib.URIRef(DBO + p)))
    return g


def _toy(n_train=16, n_test=8, test_only=None):
    """Class ``a`` has type A (below Thing), class ``b`` type B; ``test_only`` types are on test entities only."""
    rows, ids, y, split = {}, [], [], []
    for i in range(n_train + n_test):
        lab = "a" if i % 2 else "b"
        part = "train" if i < n_train else "test"
        rows[f"e{i}"] = ["A" if lab == "a" else "B"] + (list(test_only or ()) if part == "test" else [])
        ids.append(f"e{i}")
        y.append(lab)
        split.append(part)
    g = _graph(rows, [("A", "Thing"), ("B", "Thing")])
    return EntityDataset("toy", ids, [X + i for i in ids], y, source=g, split=split,
                         generation_grid={"min_support": [1, 2]})


def test_a_fixed_split_is_tuned_on_train_and_scored_once_on_test():
    d = _toy()
    res = evaluate_split(d, ["complete", "shsel-ig-prune"], ["logreg", "nb"], inner_splits=2)
    assert [(o.selector, o.classifier) for o in res.outcomes] == [
        ("complete", "logreg"), ("complete", "nb"), ("shsel-ig-prune", "logreg"), ("shsel-ig-prune", "nb")]
    for o in res.outcomes:
        assert o.status == "ok", o.error
        assert (o.n_train, o.n_test, o.accuracy) == (16, 8, 1.0)
        assert o.chosen["kg__min_support"] in (1, 2) and o.cv_accuracy == 1.0
        assert (o.ci_low, o.ci_high) == wilson_interval(8, 8, 0.95)
        assert len(o.predictions) == 8
    logreg = res.outcomes[0]
    assert logreg.chosen["clf__C"] == 0.01  # every C ties on this table: the first, the strongest regularisation
    assert logreg.n_candidates == 2 * 5 and logreg.n_features == 3  # Thing, A, B
    shsel = res.outcomes[2]
    assert "select__threshold" in shsel.chosen and shsel.n_candidates == 2 * 5 * len(THRESHOLDS)
    assert set(shsel.selected) <= {DBO + "A", DBO + "B", DBO + "Thing"} and shsel.n_selected == len(shsel.selected)
    assert res.best("nb").classifier == "nb"


def test_nothing_of_the_test_part_reaches_the_generation(monkeypatch):
    from kg.features import KGFeatures

    d = _toy(test_only=["Leak"])  # a type only the test part has
    fitted: list[list[str]] = []
    original = KGFeatures._fit

    def spy(self, X):
        fitted.append([str(v) for v in np.asarray(X, dtype=object).ravel()])
        return original(self, X)

    monkeypatch.setattr(KGFeatures, "_fit", spy)
    (o,) = evaluate_split(d, ["complete"], ["nb"], inner_splits=2, generation={"min_support": [1]}).outcomes
    test_entities = {X + i for i, s in zip(d.ids, d.split) if s == "test"}
    assert fitted and all(not test_entities & set(f) for f in fitted)  # every fit: training rows only
    assert max(len(f) for f in fitted) == 16  # the refit on the whole training part
    assert DBO + "Leak" not in o.selected and o.n_features == 3


def test_min_support_counts_the_training_rows_only():
    # C is on 1 training entity and 6 test ones: kept at min_support 2 over all rows, dropped over the training rows
    rows = {f"e{i}": ["A" if i % 2 else "B"] for i in range(20)}
    rows["e0"].append("C")
    for i in range(14, 20):
        rows[f"e{i}"].append("C")
    d = EntityDataset("c", list(rows), [X + e for e in rows], ["a" if i % 2 else "b" for i in range(20)],
                      source=_graph(rows), split=["train"] * 14 + ["test"] * 6)
    (o,) = evaluate_split(d, ["complete"], ["nb"], inner_splits=2, generation={"min_support": [2]}).outcomes
    assert o.status == "ok" and DBO + "C" not in o.selected and sorted(o.selected) == [DBO + "A", DBO + "B"]
    # each kept feature's class enrichment, on the training rows: A is on the 7 training "a"s and no "b"
    [a] = [f for f in json.loads(o.row()["selected_features"]) if f["feature"] == DBO + "A"]
    assert (a["enriched_in"], a["support_a"], a["support_b"], a["support"]) == ("a", 7, 0, 7)
    assert a["p_enrichment"] == pytest.approx(1 / 3432)  # 1 / C(14, 7): the hypergeometric tail
    assert a["q_enrichment"] >= a["p_enrichment"]


def test_the_generation_grid_takes_any_kgfeatures_parameter():
    d = _toy()
    sel, clf = method_spec("complete", "selector"), method_spec("nb", "classifier")
    _, grid = model_grid(d, sel, clf, generation={"min_support": [1, 3], "category_depth": [1, 2]})
    assert grid == {"kg__min_support": [1, 3], "kg__category_depth": [1, 2]}
    # a parameter KGFeatures does not have (yet): the cell fails, naming it, and the others go on
    res = evaluate_split(d, ["complete"], ["nb"], inner_splits=2, generation={"depthx": [1, 2]})
    assert res.outcomes[0].status == "failed" and "KGFeatures has no parameter depthx" in res.outcomes[0].error
    # no grid: the dataset's settings as they are
    (o,) = evaluate_split(d, ["complete"], ["nb"], inner_splits=2, generation={}).outcomes
    assert o.status == "ok" and o.chosen == {} and o.n_candidates == 1


def test_a_fixed_parameter_is_not_tuned():
    d = _toy()
    res = evaluate_split(d, [("shsel-ig-prune", {"threshold": 0.9})], [("logreg", {"C": 3.0})], inner_splits=2)
    (o,) = res.outcomes
    assert o.status == "ok" and set(o.chosen) == {"kg__min_support"} and o.n_candidates == 2
    assert o.row()["threshold"] != o.row()["threshold"]  # NaN: not chosen
    settings = SplitSettings(thresholds=[0.5, 0.99], inner_splits=2)
    (o,) = evaluate_split(d, ["shsel-ig"], ["nb"], settings).outcomes
    assert o.chosen["select__threshold"] in (0.5, 0.99) and o.n_candidates == 4


def test_a_lazy_selector_reports_the_features_chosen_per_test_instance():
    (o,) = evaluate_split(_toy(), ["hip"], ["nb"], inner_splits=2).outcomes
    assert o.status == "ok" and o.kind == "lazy" and o.accuracy == 1.0
    assert o.selected_counts and sum(o.selected_counts) == pytest.approx(o.n_selected * o.n_test)
    assert o.selected_counts == sorted(o.selected_counts, reverse=True)
    row = o.row()
    assert json.loads(row["selected_features"])[0]["test_instances"] == o.selected_counts[0]


def test_errors_are_said():
    d = _toy()
    no_split = EntityDataset("n", d.ids, d.entities, d.y, source=d.source)
    with pytest.raises(KgfsError, match="has no fixed train/test split"):
        evaluate_split(no_split, ["complete"], ["nb"])
    with pytest.raises(KgfsError, match=r"toy \(training part\).*fewer than the 9 folds"):
        evaluate_split(d, ["complete"], ["nb"], inner_splits=9)


def test_wilson_interval_is_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    for k, n in [(23, 36), (0, 5), (5, 5), (52, 68), (1, 2)]:
        for conf in (0.9, 0.95, 0.99):
            lo, hi = proportion_confint(k, n, alpha=1 - conf, method="wilson")
            assert wilson_interval(k, n, conf) == pytest.approx((lo, hi), abs=1e-12)
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(1, 2, 1.0)


# ---------------------------------------------------------------------------------------------- a budget
def _noisy(seed=0):
    """48 entities: class ``a`` mostly of A1/A2 (below A), ``b`` of B1/B2 (below B), a fifth of each the other
    way; six noise types N0..N5 on 40% of the entities each (13 features with Thing)."""
    rng = np.random.default_rng(seed)
    rows, y = {}, []
    for i in range(48):
        lab = "a" if i % 2 else "b"
        types = [("A1" if rng.random() < 0.5 else "A2") if lab == "a" else ("B1" if rng.random() < 0.5 else "B2")]
        if rng.random() < 0.2:
            types = ["B1"] if lab == "a" else ["A1"]
        rows[f"e{i}"] = types + [f"N{j}" for j in range(6) if rng.random() < 0.4]
        y.append(lab)
    edges = [("A1", "A"), ("A2", "A"), ("B1", "B"), ("B2", "B"), ("A", "Thing"), ("B", "Thing")]
    g = _graph(rows, edges + [(f"N{j}", "Thing") for j in range(6)])
    return EntityDataset("noisy", list(rows), [X + e for e in rows], y, source=g, split=["train"] * 32 + ["test"] * 16,
                         generation_grid={"min_support": [1, 3]})


def _by_hand(d, selector, classifier, max_kept, inner_splits=2):
    """The budget's choice brute force: every candidate fitted on every inner fold, its share and its accuracy."""
    from sklearn.base import clone
    from sklearn.model_selection import ParameterGrid, StratifiedKFold

    pipe, grid = model_grid(d, method_spec(selector, "selector"), method_spec(classifier, "classifier"))
    train, _ = d.train_test()
    Xs, ys = np.asarray(d.entities, dtype=object)[train], np.asarray(d.y)[train]
    rows = []
    for params in ParameterGrid(grid):  # scikit-learn's own order of the candidates
        shares, accs = [], []
        for a, b in StratifiedKFold(inner_splits, shuffle=True, random_state=0).split(Xs, ys):
            m = clone(pipe).set_params(**params).fit(Xs[a], ys[a])
            n = len(m["kg"].get_feature_names_out())
            if "select" in m.named_steps:
                kept = m["select"].get_support().sum()
            else:
                masks = m["clf"].selector_.select_for(m["kg"].transform(Xs[b]))
                kept = masks.sum() / masks.shape[0]
            shares.append(kept / n)
            accs.append(np.mean(m.predict(Xs[b]) == ys[b]))
        rows.append((params, max(shares), float(np.mean(accs))))
    ok = [r for r in rows if r[1] <= max_kept]
    return max(ok, key=lambda r: r[2]) if ok else None, rows  # max: the first of equal accuracies


@pytest.mark.parametrize("selector, classifier, max_kept", [("shsel-ig-prune", "logreg", 0.3),
                                                             ("shsel-ig-prune", "nb", 0.1), ("hip", "nb", 0.7)])
def test_a_budget_chooses_the_best_setting_that_keeps_at_most_that_share_in_every_inner_fold(selector, classifier,
                                                                                              max_kept):
    d = _noisy()
    best, rows = _by_hand(d, selector, classifier, max_kept)
    (o,) = evaluate_split(d, [selector], [classifier], inner_splits=2, max_kept=max_kept).outcomes
    assert o.status == "ok", o.error
    assert best is not None and o.chosen == best[0]
    assert o.cv_kept == pytest.approx(best[1]) and o.cv_kept <= max_kept and o.max_kept == max_kept
    assert o.cv_accuracy == pytest.approx(best[2])
    assert any(r[1] > max_kept for r in rows)  # the budget excluded settings here
    (free,) = evaluate_split(d, [selector], [classifier], inner_splits=2).outcomes
    assert free.cv_accuracy >= o.cv_accuracy and np.isnan(free.max_kept) and np.isnan(free.cv_kept)
    row = o.row()
    assert (row["max_kept"], row["cv_kept"]) == (max_kept, o.cv_kept)
    from selection.evaluation.report import split_markdown

    (line,) = split_markdown(pd.DataFrame([row]))[-1:]
    assert line.endswith(f"-> {o.n_selected:g} (at most {max_kept * 100:g}% kept in each inner fold) |")


def test_a_budget_no_setting_meets_is_a_failed_cell_that_names_the_smallest_share():
    d = _noisy()
    res = evaluate_split(d, ["complete", "hip", "shsel-ig-prune"], ["nb"], inner_splits=2, max_kept=0.2)
    complete, hip, shsel = res.outcomes
    assert complete.status == "failed" and "no setting keeps at most 20.0% of the generated features in every " \
        "inner fold (max_kept=0.2); the fewest: 100.0%" in complete.error
    _, rows = _by_hand(d, "hip", "nb", 0.2)
    fewest = min(r[1] for r in rows)
    assert hip.status == "failed" and f"the fewest: {fewest:.1%}" in hip.error and hip.max_kept == 0.2
    assert shsel.status == "ok"  # the others are scored


def test_the_split_protocols_option_max_kept_reaches_the_rows_and_the_reports(tmp_path):
    plan = plan_evaluation("split", ["shsel-ig-prune"], ["nb"], n_splits=2, options={"max_kept": 0.1})
    res = run_grid({"noisy": _noisy()}, plan, out_dir=tmp_path, n_jobs=1, report=ReportSettings(plots=False))
    assert (res.n_cells, res.n_failed) == (1, 0)
    row = pd.read_csv(res.results).iloc[0]
    assert row["max_kept"] == 0.1 and 0 < row["cv_kept"] <= 0.1
    assert "(at most 10% kept in each inner fold)" in res.report.read_text(encoding="utf-8")
    assert "(at most 10% kept in each inner fold)" in res.html.read_text(encoding="utf-8")


@pytest.mark.parametrize("bad", [0, 0.0, -0.1, 1.5, True, "0.1"])
def test_a_budget_outside_0_1_is_refused_before_any_work(bad):
    with pytest.raises(KgfsError, match=r"max_kept must be a share of the generated features in \(0, 1\]"):
        evaluate_split(_noisy(), ["complete"], ["nb"], inner_splits=2, max_kept=bad)
    if not isinstance(bad, (bool, str)):
        with pytest.raises(KgfsError, match="max_kept"):
            plan_evaluation("split", ["complete"], ["nb"], options={"max_kept": bad})
    assert plan_evaluation("split", ["complete"], ["nb"], options={"max_kept": 1}).options["max_kept"] == 1


# ---------------------------------------------------------------------------------------------- the grid
def test_the_grid_runs_the_split_protocol_and_reuses_its_cells(tmp_path):
    d = _toy()
    plan = plan_evaluation("split", ["complete", "hip"], ["nb"], n_splits=2,
                           options={"generation": {"min_support": [1, 2]}, "thresholds": [0.5]})
    assert plan.protocol.n_outer(plan.n_splits) == 1
    res = run_grid({"toy": d}, plan, out_dir=tmp_path, n_jobs=1, report=ReportSettings(plots=False))
    assert (res.n_cells, res.n_computed, res.n_failed) == (2, 2, 0)
    rows = pd.read_csv(res.results)
    assert {"accuracy_ci_low", "accuracy_ci_high", "cv_accuracy", "chosen"} <= set(rows.columns)
    assert "selected_features" not in rows and rows["fold"].tolist() == [0, 0] and rows["n_test"].tolist() == [8, 8]
    base = pd.read_csv(res.baseline)
    assert base[["n_train", "n_test"]].values.tolist() == [[16, 8]] and base["accuracy"].iloc[0] == 0.5
    feats = pd.read_csv(res.selected_features)
    assert set(feats["selector"]) == {"complete", "hip"} and "test_instances" in feats
    html = res.html.read_text(encoding="utf-8")
    assert "Test split" in html and "1.000 [0.676, 1.000]" in html and "Selected features of the final models" in html
    assert "## Test split" in res.report.read_text(encoding="utf-8")
    again = run_grid({"toy": d}, plan, out_dir=tmp_path, n_jobs=1, report=ReportSettings(plots=False))
    assert again.n_reused == 2 and pd.read_csv(again.results)["accuracy"].tolist() == rows["accuracy"].tolist()


def test_the_split_protocol_refuses_a_table_and_the_others_refuse_instances(tmp_path):
    from kg.hierarchy import FeatureHierarchy
    from kg.table import FeatureTable

    h = FeatureHierarchy.from_edges([], nodes=["a"])
    table = FeatureTable.from_facts({f"i{i}": ["a"] for i in range(10)}, h, labels={f"i{i}": i % 2 for i in range(10)})
    with pytest.raises(KgfsError, match="needs the instances with their knowledge graph"):
        run_grid({"t": table}, plan_evaluation("split", ["complete"], ["nb"]), out_dir=tmp_path)
    with pytest.raises(KgfsError, match="evaluates a table"):
        run_grid({"d": _toy()}, plan_evaluation("basic", ["complete"], ["nb"], n_splits=2), out_dir=tmp_path)
    with pytest.raises(KgfsError, match="protocol split has no option 'threshold'"):
        plan_evaluation("split", ["shsel-ig"], ["nb"], threshold=0.5)
    with pytest.raises(KgfsError, match="option generation must map KGFeatures parameters to lists"):
        run_grid({"d": _toy()}, plan_evaluation("split", ["complete"], ["nb"], n_splits=2,
                                                options={"generation": {"min_support": 2}}), out_dir=tmp_path,
                 n_jobs=1)


# ---------------------------------------------------------------------------------------------- the benchmarks
def test_kgfs_evaluate_protocol_split_on_aifb(shared_data, tmp_path, monkeypatch, capsys):
    from flows.cli import main

    monkeypatch.setenv("KGFS_HOME", str(tmp_path / "home"))
    out = tmp_path / "E"
    assert main(["evaluate", "--datasets", "nodeclass/aifb", "--protocol", "split", "--selectors", "complete",
                 "--classifiers", "nb", "logreg", "--option",  # today's one-hop features, as the issue measured
                 'generation={"min_support": [2], "features": [["types", "qualified-relations"]], "depth": [null]}',
                 "--param",
                 "logreg.C=1.0", "--mirror", str(shared_data), "--n-jobs", "1", "--no-plots", "--out", str(out)]) == 0
    rows = pd.read_csv(out / "results.csv").set_index("classifier")
    assert rows.loc[:, "n_train"].tolist() == [140, 140] and rows.loc[:, "n_test"].tolist() == [36, 36]
    assert (rows["accuracy_ci_low"] < rows["accuracy"]).all() and (rows["accuracy"] < rows["accuracy_ci_high"]).all()
    chosen = json.loads(rows.loc["logreg[C=1.0]", "chosen"])
    assert chosen["kg__min_support"] == 2 and not any("C" in k for k in chosen)  # C fixed: not tuned
    assert rows.loc["logreg[C=1.0]", "accuracy"] == pytest.approx(23 / 36)  # the 0.639 (C=1, min_support 2)
    feats = pd.read_csv(out / "selected_features.csv")
    assert not feats["feature"].str.contains("affiliation|employs").any()
    assert "selected features:" in capsys.readouterr().out
    assert main(["evaluate", "--datasets", str(out), "--protocol", "split", "--selectors", "complete",
                 "--out", str(tmp_path / "F")]) == 1
    assert "a table folder; --protocol split generates the features inside each fit" in capsys.readouterr().err


def test_kgfs_run_refuses_the_split_protocol(tmp_path, monkeypatch, capsys):
    from flows.cli import main

    monkeypatch.setenv("KGFS_HOME", str(tmp_path / "home"))
    assert main(["run", "--protocol", "split", "--out", str(tmp_path / "R")]) == 1
    err = capsys.readouterr().err
    assert "kgfs run evaluates the table it builds: use kgfs evaluate --protocol split" in err
    assert not (tmp_path / "R").exists()


def test_the_path_depth_is_tuned_like_any_generation_setting():
    # the class is told by the league of the entity's team: two hops (dbo:team, then dbo:league)
    g = rdflib.Graph()
    ids, y = [f"p{i}" for i in range(24)], []
    for i, e in enumerate(ids):
        team = f"T{i % 4}"
        g.add((rdflib.URIRef(X + e), rdflib.URIRef(DBO + "team"), rdflib.URIRef(X + team)))
        y.append("east" if i % 4 < 2 else "west")
    for k in range(4):
        g.add((rdflib.URIRef(X + f"T{k}"), rdflib.URIRef(DBO + "league"), rdflib.URIRef(X + ("E" if k < 2 else "W"))))
    d = EntityDataset("teams", ids, [X + e for e in ids], y, source=g, split=["train"] * 16 + ["test"] * 8,
                      features_params={"features": ["paths"], "direction": "out"})
    (o,) = evaluate_split(d, ["complete"], ["nb"], inner_splits=2,
                          generation={"depth": [1, 2], "min_support": [1]}).outcomes
    assert o.status == "ok", o.error
    assert o.chosen["kg__depth"] in (1, 2) and o.accuracy == 1.0
    assert any("league" in f for f in o.selected) == (o.chosen["kg__depth"] == 2)


def _molecules():
    """Every molecule has atoms of one class; class ``many`` three of them, ``few`` one: only the counts tell."""
    g = rdflib.Graph()
    ids, y = [f"m{i}" for i in range(24)], []
    for i, m in enumerate(ids):
        many = i % 2 == 0
        for k in range(3 if many else 1):
            atom = rdflib.URIRef(X + f"{m}_a{k}")
            g.add((rdflib.URIRef(X + m), rdflib.URIRef(DBO + "hasAtom"), atom))
            g.add((atom, rdflib.RDF.type, rdflib.URIRef(DBO + "Carbon")))
        y.append("many" if many else "few")
    return EntityDataset("molecules", ids, [X + m for m in ids], y, source=g, split=["train"] * 16 + ["test"] * 8,
                         features_params={"features": ["paths"], "direction": "out", "depth": 1})


def test_counts_reach_the_classifier_and_the_selectors_read_their_presence():
    d = _molecules()
    res = evaluate_split(d, ["complete", "shsel-ig-prune", "hip"], ["logreg", "nb"], inner_splits=2,
                         generation={"min_support": [2], "values": ["binary", "count"]})
    out = {(o.selector, o.classifier): o for o in res.outcomes}
    out.pop(("hip", "logreg"))  # a lazy selector needs a lazy classifier: logreg has none
    assert all(o.status == "ok" for o in out.values()), [o.error for o in out.values()]
    a = out["complete", "logreg"]
    assert a.chosen["kg__values"] == "count" and a.accuracy == 1.0  # presence alone is the same for both classes
    # a selected feature's support is the rows that have it, not the sum of its counts
    assert a.selected_support and max(a.selected_support) <= a.n_train
    # presence only: nothing to tell the classes apart
    (b,) = evaluate_split(d, ["complete"], ["logreg"], inner_splits=2,
                          generation={"min_support": [2], "values": ["binary"]}).outcomes
    assert b.status == "ok" and b.accuracy == 0.5


def test_presence_sets_binarize_of_kgfs_estimators_only_where_the_user_left_it():
    from sklearn.naive_bayes import BernoulliNB

    from selection.evaluation.split import presence
    from selection.flat import FisherScore
    from selection.hierarchical import CompleteFS
    from selection.lazy.classifiers import LazyNaiveBayes
    from selection.lazy.estimator import LazySelectionClassifier
    from selection.lazy.selectors import HIP

    lazy = presence(LazySelectionClassifier(HIP(), LazyNaiveBayes()))
    assert lazy.selector.binarize == 0.0 and lazy.classifier.binarize == 0.0
    assert presence(CompleteFS(binarize=2.0)).binarize == 2.0
    assert presence(CompleteFS(), {"binarize": None}).binarize is None  # given by the user: kept
    assert presence(FisherScore()).get_params().get("binarize") is None  # reads counts
    assert presence(BernoulliNB(binarize=None)).binarize is None  # not kgfs's
    # the grid gives them only when a generation gives counts
    sel, clf = method_spec("complete", "selector"), method_spec("nb", "classifier")
    pipe, _ = model_grid(_molecules(), sel, clf, generation={"values": ["binary", "count"]})
    assert pipe["select"].binarize == 0.0
    pipe, _ = model_grid(_molecules(), sel, clf, generation={"values": ["binary"]})
    assert pipe["select"].binarize is None
