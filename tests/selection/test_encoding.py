"""An estimator as JSON values and named arrays: what is kept, what is refused, what is never built."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp

from kg.errors import KgfsError
from kg.hierarchy import FeatureHierarchy
from selection.encoding import Decoder, Encoder, trusted_classes


def _round_trip(value, where="v"):
    enc = Encoder(trusted_classes())
    tree = json.loads(json.dumps(enc.value(value, where)))  # what model.json holds
    return Decoder(enc.arrays, trusted_classes()).value(tree), enc


def test_values_of_every_kind_come_back_equal_with_their_types():
    h = FeatureHierarchy.from_edges([("B", "A")])
    value = {"t": (1, 2.5, "x"), "n": None, "b": True, 3: "int key", "s": np.float32(0.5), "d": np.dtype("<i4"),
             "a": np.arange(4, dtype=np.int16), "o": np.array(["p", "q"], dtype=object),
             "m": sp.csr_matrix(np.eye(2)), "sa": sp.csr_array(np.eye(2)), "h": [h, h]}
    again, enc = _round_trip(value)
    assert again["t"] == (1, 2.5, "x") and again["n"] is None and again["b"] is True and again[3] == "int key"
    assert type(again["s"]) is np.float32 and again["d"] == np.dtype("<i4")
    assert again["a"].dtype == np.int16 and again["a"].tolist() == [0, 1, 2, 3]
    assert again["o"].dtype == object and again["o"].tolist() == ["p", "q"]
    assert isinstance(again["m"], sp.csr_matrix) and not isinstance(again["m"], sp.sparray)
    assert isinstance(again["sa"], sp.csr_array) and (again["sa"].toarray() == np.eye(2)).all()
    assert again["h"][0] is again["h"][1] and again["h"][0].edges[0].tolist() == h.edges[0].tolist()
    assert sum(k.startswith("h") for k in enc.arrays) == 4  # one hierarchy, its arrays written once


def test_a_hierarchy_with_a_merged_cycle_comes_back_with_it():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        h = FeatureHierarchy.from_edges([("A", "B"), ("B", "A"), ("C", "A")], on_cycle="merge")
    again, _ = _round_trip(h)
    assert again == h and again.merged == {"A ≡ B": ["A", "B"]} and again.lookup("B") == "A ≡ B"


def test_a_fitted_tree_is_rebuilt_from_its_arrays():
    from sklearn.tree import DecisionTreeClassifier

    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    tree = DecisionTreeClassifier(random_state=0).fit(X, ["a", "b", "b", "a"])
    again, _ = _round_trip(tree)
    assert again.predict_proba(X).tolist() == tree.predict_proba(X).tolist()


def test_the_trusted_list_is_the_registry_s_classes():
    from selection.registry import available_classifiers, available_selectors

    names = trusted_classes()
    for entry in [*available_selectors().values(), *available_classifiers().values()]:
        if isinstance(entry.factory, type):
            assert f"{entry.factory.__module__}:{entry.factory.__qualname__}" in names
    assert "sklearn.preprocessing._data:StandardScaler" in names  # what svm-linear builds
    assert not [n for n in names if n.startswith(("builtins:", "subprocess:", "os:"))]


@pytest.mark.parametrize("value, message", [
    (print, "cannot save v: a builtins.builtin_function_or_method"),
    (np.array([{"x": 1}], dtype=object), "cannot save v: an array of Python objects that are not all strings"),
    (np.zeros(1, dtype=[("o", object)]), "cannot save v: an array of Python objects"),
])
def test_what_an_encoding_cannot_keep_is_refused_naming_it(value, message):
    with pytest.raises(KgfsError, match=message):
        Encoder(trusted_classes()).value(value, "v")


def test_an_estimator_outside_the_trusted_list_is_refused_when_encoded():
    from sklearn.feature_selection import SelectKBest, chi2

    with pytest.raises(KgfsError, match=r"cannot save the estimator: .*SelectKBest is not one of"):
        Encoder(trusted_classes()).value(SelectKBest(chi2, k=5), "the estimator")


def test_a_class_outside_the_trusted_list_is_never_built():
    from sklearn.naive_bayes import BernoulliNB

    enc = Encoder(trusted_classes())
    tree = enc.value(BernoulliNB(), "nb")
    tree["class"] = "subprocess:Popen"
    with pytest.raises(KgfsError, match="model.json: the model holds a subprocess:Popen, not one of the classes"):
        Decoder(enc.arrays, trusted_classes(), path="model.json").value(tree)


def test_a_missing_array_is_refused_naming_both_files():
    enc = Encoder(trusted_classes())
    tree = enc.value(np.arange(3), "a")
    with pytest.raises(KgfsError, match="model.json: the model names an array 'a0' that arrays.npz does not hold"):
        Decoder({}, trusted_classes(), path="model.json").value(tree)


def test_a_kgfeatures_step_is_kept_without_its_graph_handles_which_are_given_again():
    from kg.features import KGFeatures

    kg = KGFeatures(source="a graph", min_support=3)
    enc = Encoder(trusted_classes())
    tree = json.loads(json.dumps(enc.value(kg, "kg")))
    assert tree["state"]["source"] == {"__kgfs__": "supplied", "name": "source"}
    again = Decoder(enc.arrays, trusted_classes(), {"source": "the graph again"}).value(tree)
    assert again.source == "the graph again" and again.min_support == 3 and again.annotator is None
