"""The model folder: round trips, refusals of damaged or foreign models, no pickle."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kg.errors import KgfsError
from kg.routes import build_table, resolve_dataset
from selection.model import (
    ARRAYS,
    FEATURES,
    MANIFEST,
    MODEL,
    align_table,
    explain,
    fit_model,
    load_model,
    load_pipeline,
    save_model,
    save_pipeline,
)

BUNDLED = Path(__file__).resolve().parents[2] / "datasets" / "bundled" / "DM-BP"


@pytest.fixture(scope="module")
def table():
    return build_table(resolve_dataset({}))


@pytest.fixture(scope="module")
def saved(table, tmp_path_factory):
    model = fit_model(table, "shsel-ig-prune", classifier="nb")
    return model, save_model(model, tmp_path_factory.mktemp("m") / "model")


def _copy(folder: Path, tmp_path: Path) -> Path:
    import shutil

    return Path(shutil.copytree(folder, tmp_path / "copy"))


def _rewrite_manifest(folder: Path, **versions: str) -> None:
    """The manifest's checksums made those of the files as they are now (and ``versions`` recorded instead)."""
    from kg.files import sha256_file

    m = json.loads((folder / MANIFEST).read_text())
    m["files"] = {n: sha256_file(folder / n) for n in m["files"]}
    m["versions"].update({k.replace("_", "-"): v for k, v in versions.items()})
    (folder / MANIFEST).write_text(json.dumps(m))


def _edit_probe(folder: Path, change) -> None:
    """``change(proba)`` applied to the probe's saved probabilities in arrays.npz, the manifest re-hashed."""
    ref = json.loads((folder / MODEL).read_text())["probe"]["proba"]["ref"]
    with np.load(folder / ARRAYS, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays[ref] = change(arrays[ref].copy())
    np.savez(folder / ARRAYS, **arrays)
    _rewrite_manifest(folder)


@pytest.mark.parametrize("selector, classifier", [("shsel-ig-prune", "nb"), ("hip", "nb"), ("mr", "1nn"),
                                                  ("sig", "svm"), ("complete", "tree"), ("tsel-ig", "svm-linear")])
def test_a_saved_model_predicts_and_explains_as_the_fitted_one(table, tmp_path, selector, classifier):
    model = fit_model(table, selector, classifier=classifier)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same scikit-learn: no version warning
        again = load_model(save_model(model, tmp_path / "m"))
    p1, why1 = explain(model, table)
    p2, why2 = explain(again, table)
    assert np.array_equal(p1, p2) and why1 == why2
    assert np.array_equal(model.predict(table), again.predict(table))
    assert again.info["training"]["fingerprint"] == model.info["training"]["fingerprint"]
    assert again.info["selector"]["name"] == selector and again.info["versions"]["kgfs"]


def test_a_lazy_model_selects_for_each_new_instance(table):
    model = fit_model(table, "hip", classifier="nb")
    assert type(model.estimator).__name__ == "LazySelectionClassifier"
    masks = model.estimator.selector_.select_for(model.matrix(table))
    assert len({tuple(masks[i].indices) for i in range(10)}) > 1  # instances have their own features


def test_nb_weights_are_the_log_odds_each_present_feature_adds(table):
    model = fit_model(table, "shsel-ig-prune", classifier="nb")
    proba, why = explain(model, table, top=1000)
    sel, nb = model.estimator.steps[0][1], model.estimator.steps[1][1]
    X = model.matrix(table)
    i = 0
    best, other = np.argsort(-proba[i])[:2]
    cols = [c for c in X[i].indices if sel.get_support()[c]]
    lp1 = nb.feature_log_prob_
    lp0 = np.log1p(-np.exp(lp1))
    support = np.flatnonzero(sel.get_support())
    where = {c: k for k, c in enumerate(support)}
    expected = {c: (lp1[best, where[c]] - lp0[best, where[c]]) - (lp1[other, where[c]] - lp0[other, where[c]])
                for c in cols}
    assert {c: pytest.approx(w) for c, w in why[i]} == {c: w for c, w in expected.items() if w > 0}
    # the weights and the constant part make the log-odds of the prediction
    jll = nb.predict_joint_log_proba(sel.transform(X[i]))[0]
    const = (lp0[best] - lp0[other]).sum() + nb.class_log_prior_[best] - nb.class_log_prior_[other]
    assert jll[best] - jll[other] == pytest.approx(const + sum(expected.values()))


def test_align_drops_new_features_zeroes_missing_ones_and_closes_rows():
    from kg.hierarchy import FeatureHierarchy
    from kg.table import FeatureTable

    fitted = FeatureTable.from_facts({"a": ["B"], "b": ["C"]}, FeatureHierarchy.from_edges([("B", "A"), ("C", "A")]))
    # the new table has B without its parent A (its own graph), a feature D the model does not know, no C
    new = FeatureTable.from_facts({"x": ["B"], "y": ["D"]}, FeatureHierarchy.from_edges([], nodes=["B", "D"]))
    X, report = align_table(new, fitted)
    assert fitted.feature_names.tolist() == ["A", "B", "C"]
    assert X.toarray().tolist() == [[1, 1, 0], [0, 0, 0]]
    assert report == {"n_new_features": 1, "n_missing_features": 2, "n_without_features": 1}


def test_truncated_arrays_are_refused_naming_the_file(saved, tmp_path):
    folder = _copy(saved[1], tmp_path)
    data = (folder / ARRAYS).read_bytes()
    (folder / ARRAYS).write_bytes(data[: len(data) // 2])
    with pytest.raises(KgfsError, match=f"{ARRAYS}: damaged") as exc:
        load_model(folder)
    assert "\n" not in str(exc.value) and str(folder / ARRAYS) in str(exc.value)


@pytest.mark.parametrize("name", [MODEL, FEATURES])
def test_an_edited_file_is_refused_naming_it(saved, tmp_path, name):
    folder = _copy(saved[1], tmp_path)
    with open(folder / name, "ab") as fh:
        fh.write(b" ")
    with pytest.raises(KgfsError, match=f"{name}: damaged"):
        load_model(folder)


def test_another_format_version_is_refused_naming_the_manifest(saved, tmp_path):
    folder = _copy(saved[1], tmp_path)
    m = json.loads((folder / MANIFEST).read_text())
    m["format_version"] = 99
    (folder / MANIFEST).write_text(json.dumps(m))
    with pytest.raises(KgfsError, match=f"{MANIFEST}: model format version 99"):
        load_model(folder)


def test_a_folder_without_manifest_or_a_broken_one_is_refused(saved, tmp_path):
    folder = _copy(saved[1], tmp_path)
    (folder / MANIFEST).write_text("{not json")
    with pytest.raises(KgfsError, match=f"{MANIFEST}: the manifest is not JSON"):
        load_model(folder)
    (folder / MANIFEST).unlink()
    with pytest.raises(KgfsError, match="no manifest"):
        load_model(folder)


def test_an_object_array_is_never_unpickled(saved, tmp_path):
    folder = _copy(saved[1], tmp_path)
    with np.load(folder / ARRAYS, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["a0"] = np.array([{"x": 1}], dtype=object)  # np.savez pickles it; np.load(allow_pickle=False) refuses
    np.savez(folder / ARRAYS, **arrays)
    _rewrite_manifest(folder)  # the checksums say nothing: the loader itself must refuse
    with pytest.raises(KgfsError, match=f"{ARRAYS}: cannot read the arrays"):
        load_model(folder)


def test_a_class_outside_the_trusted_list_is_never_built(saved, tmp_path):
    folder = _copy(saved[1], tmp_path)
    info = json.loads((folder / MODEL).read_text())
    info["estimator"]["class"] = "subprocess:Popen"
    (folder / MODEL).write_text(json.dumps(info))
    _rewrite_manifest(folder)
    model = load_model(folder)  # scored by its linear form: the estimator is built when asked for, and refused
    with pytest.raises(KgfsError, match="subprocess:Popen, not one of the classes"):
        model.estimator  # noqa: B018
    folder = _copy(saved[1], tmp_path / "without-form")
    info = json.loads((folder / MODEL).read_text())
    info["estimator"]["class"] = "subprocess:Popen"
    (folder / MODEL).write_text(json.dumps(info))
    with np.load(folder / ARRAYS) as z:  # a model without a linear form is built, so refused, on load
        arrays = {k: z[k] for k in z.files if not k.startswith("form.")}
    np.savez(folder / ARRAYS, **arrays)
    _rewrite_manifest(folder)
    with pytest.raises(KgfsError, match="subprocess:Popen, not one of the classes"):
        load_model(folder)


def test_what_a_model_cannot_keep_is_refused_when_saving(table, tmp_path):
    from sklearn.feature_selection import SelectKBest, chi2
    from sklearn.naive_bayes import BernoulliNB
    from sklearn.pipeline import Pipeline

    model = fit_model(table, "complete", classifier="nb")
    model.estimator = Pipeline([("s", SelectKBest(chi2, k=5)), ("c", BernoulliNB())]).fit(table.X, table.y)
    with pytest.raises(KgfsError, match="cannot save .*SelectKBest is not one of"):  # see test_encoding.py
        save_model(model, tmp_path / "m")
    assert not (tmp_path / "m" / MANIFEST).exists()  # nothing written


def test_a_pipeline_of_kgfeatures_round_trips_with_its_source_passed_again(tmp_path):
    from sklearn.naive_bayes import BernoulliNB
    from sklearn.pipeline import Pipeline

    from kg.features import KGFeatures
    from kg.ontology import OntologyAnnotations
    from selection.hierarchical import SHSEL

    genes = pd.read_csv(BUNDLED / "labels.tsv", sep="\t", dtype=str)

    def go():
        return OntologyAnnotations(BUNDLED / "go-2014-06-13-subset.obo.gz", BUNDLED / "annotations.tsv")
    pipe = Pipeline([("kg", KGFeatures(go(), min_support=3)), ("select", SHSEL(hierarchy="from_input")),
                     ("clf", BernoulliNB())]).fit(genes["gene"], genes["label"])
    folder = save_pipeline(pipe, tmp_path / "p")
    assert json.loads((folder / MODEL).read_text())["source"]["kind"] == "ontology"  # its describe()
    again = load_pipeline(folder, go())
    assert np.array_equal(pipe.predict_proba(genes["gene"]), again.predict_proba(genes["gene"]))
    # its probe (no training table): one feature each with its ancestors, among those the selector keeps; an empty row
    probe = load_model(folder, source=go()).probe
    kept = pipe["select"].get_support()
    assert probe.shape == (21, pipe["kg"].hierarchy_.n_nodes) and probe[-1].nnz == 0
    assert all(kept[probe[i].indices].any() for i in range(20))
    assert again["select"].hierarchy_ is again["kg"].hierarchy_  # one hierarchy, saved once
    new = ["FBgn_unknown", genes["gene"][0]]
    assert np.array_equal(pipe.predict_proba(new), again.predict_proba(new))


def test_a_selection_and_nb_is_scored_and_explained_by_its_linear_form_without_scikit_learn(saved, table):
    import subprocess
    import sys

    from selection.model import FittedModel, explain

    fitted, folder = saved
    assert fitted.form is not None and load_model(folder).form is not None
    by_estimator = FittedModel(fitted.estimator, fitted.features, fitted.info)  # no form: the estimator scores
    assert np.allclose(fitted.predict_proba(table), by_estimator.predict_proba(table), rtol=0, atol=1e-12)
    proba, why = explain(fitted, table)
    proba_e, why_e = explain(by_estimator, table)
    assert np.allclose(proba, proba_e, rtol=0, atol=1e-12)
    assert [[c for c, _w in row] for row in why] == [[c for c, _w in row] for row in why_e]
    assert np.allclose([w for row in why for _c, w in row], [w for row in why_e for _c, w in row], atol=1e-9)
    code = ("import sys; from selection.model import load_model; from kg.table import FeatureTable; "
            f"m = load_model({str(folder)!r}); import numpy as np; import scipy.sparse as sp; "
            "p = m.predict_proba(sp.csr_matrix((3, m.features.n_features))); "
            "print(p.shape, 'sklearn' in sys.modules, 'scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2]).stdout.split()
    assert out == ["(3,", "2)", "False", "False"]


def test_a_lazy_selector_has_no_linear_form_and_is_built_on_load(table, tmp_path):
    model = fit_model(table, "hip", classifier="nb")
    assert model.form is None
    again = load_model(save_model(model, tmp_path / "m"))
    assert again.form is None and again._estimator is not None
    assert np.array_equal(again.predict_proba(table), model.predict_proba(table))


# --------------------------------------------------------------------------- the probe: a model checks itself on load
def test_fit_model_s_probe_is_training_rows_and_an_empty_one(saved, table):
    model, folder = saved
    X = model.matrix(table)
    rows = model.probe
    assert rows.shape[0] == 21 and rows[-1].nnz == 0
    assert {tuple(rows[i].indices) for i in range(20)} <= {tuple(X[i].indices) for i in range(X.shape[0])}
    again = load_model(folder)
    assert (again.probe != rows).nnz == 0  # kept: saving the loaded model again records the same rows


def test_a_model_that_predicts_its_probe_differently_is_refused_naming_model_json(saved, tmp_path):
    import sklearn

    folder = _copy(saved[1], tmp_path)

    def nudge(proba):
        proba[3, 0] += 1e-6
        return proba
    _edit_probe(folder, nudge)
    _rewrite_manifest(folder, scikit_learn="0.99.0")
    with pytest.raises(KgfsError) as exc:
        load_model(folder)
    msg = str(exc.value)
    assert msg.startswith(f"{folder / MODEL}: the model predicts differently under scikit-learn "
                          f"{sklearn.__version__} than under 0.99.0 which wrote it (its probe of 21 rows")
    assert msg.endswith("; fit it again") and "\n" not in msg and "1e-06" in msg


def test_a_probe_of_another_shape_is_refused_as_unreadable(saved, tmp_path):
    folder = _copy(saved[1], tmp_path)
    _edit_probe(folder, lambda p: p[:-1])
    with pytest.raises(KgfsError, match=f"{MODEL}: its probe is not rows over the model's features"):
        load_model(folder)


def test_a_difference_within_the_tolerance_is_accepted(saved, tmp_path):
    from selection.probe import PROBE_TOLERANCE

    folder = _copy(saved[1], tmp_path)
    _edit_probe(folder, lambda p: p + PROBE_TOLERANCE / 2)
    load_model(folder)


def test_another_scikit_learn_whose_probe_agrees_loads_without_a_warning(saved, tmp_path, table, caplog):
    import logging

    folder = _copy(saved[1], tmp_path)
    _rewrite_manifest(folder, scikit_learn="0.99.0")
    with warnings.catch_warnings(), caplog.at_level(logging.INFO, logger="selection.probe"):
        warnings.simplefilter("error")
        again = load_model(folder)
        assert caplog.records == []  # scored by its linear form: the estimator is built (and checked) when asked for
        again.estimator  # noqa: B018
    assert np.array_equal(again.predict_proba(table), saved[0].predict_proba(table))
    assert again.info["versions"]["scikit-learn"] == "0.99.0"
    assert [r.getMessage() for r in caplog.records] == [
        f"{folder / MODEL}: written with scikit-learn 0.99.0, loaded with {__import__('sklearn').__version__}: "
        "its probe of 21 rows predicts the same"]


def test_a_model_this_scikit_learn_cannot_predict_with_is_refused(saved, tmp_path):
    folder = _copy(saved[1], tmp_path)
    info = json.loads((folder / MODEL).read_text())
    nb = info["estimator"]["state"]["steps"][1]["items"][1]  # ("classifier", BernoulliNB)
    del nb["state"]["feature_log_prob_"]  # as an attribute a newer scikit-learn reads and an older one did not set
    (folder / MODEL).write_text(json.dumps(info))
    _rewrite_manifest(folder, scikit_learn="0.99.0")
    model = load_model(folder)  # its linear form scores it, whatever scikit-learn: the estimator is refused when built
    with pytest.raises(KgfsError, match=r"model.json: the model predicts differently under scikit-learn \S+ than "
                                        r"under 0.99.0 which wrote it \(its probe fails: AttributeError: .*\); "
                                        "fit it again$"):
        model.estimator  # noqa: B018


def test_a_model_without_a_probe_is_checked_by_its_version_alone(saved, tmp_path):
    folder = _copy(saved[1], tmp_path)
    info = json.loads((folder / MODEL).read_text())
    del info["probe"]  # as kgfs wrote models before the probe
    (folder / MODEL).write_text(json.dumps(info))
    _rewrite_manifest(folder, scikit_learn="0.99.0")
    with pytest.warns(UserWarning, match="written with scikit-learn 0.99.0"):
        again = load_model(folder)
    assert again.probe is None
    _rewrite_manifest(folder, scikit_learn=__import__("sklearn").__version__)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_model(folder)


def test_a_linear_form_that_does_not_give_the_probe_s_probabilities_is_refused_naming_model_json(saved, tmp_path):
    folder = _copy(saved[1], tmp_path)
    with np.load(folder / ARRAYS, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["form.bias"] = arrays["form.bias"] + np.array([0.5, -0.5])  # the estimator still agrees with its probe
    np.savez(folder / ARRAYS, **arrays)
    _rewrite_manifest(folder)
    with pytest.raises(KgfsError, match=r"model.json: its linear form does not give its probe's probabilities"):
        load_model(folder)
