"""Declared parameters: every registered method's, read from its class; checked before any work."""

from __future__ import annotations

from numbers import Real

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from kg.errors import KgfsError
from kg.hierarchy import FeatureHierarchy
from kg.sklearn_compat import Interval, StrOptions
from selection import registry
from selection.methods_help import citation, find_method, method_help, methods_overview
from selection.param_routing import method_params
from selection.params import (
    Parameter,
    check_values,
    constraint_text,
    declared_parameters,
    docstring_parameters,
    parse_assignments,
)
from selection.registry import (
    available_classifiers,
    available_selectors,
    classifier_entry,
    register_selector,
    selector_entry,
)

ALL = {**available_selectors(), **available_classifiers()}


@pytest.mark.parametrize("name", sorted(ALL))
def test_every_registered_method_declares_every_parameter(name):
    entry = ALL[name]
    est = entry.estimator()
    est = est.steps[-1][1] if getattr(est, "steps", None) else est
    params = {p.name: p for p in entry.parameters()}
    expected = set(est.get_params(deep=False)) - {"hierarchy", *entry.fixed}
    assert set(params) == expected
    for p in params.values():
        assert p.constraints, f"{name}: {p.name} has no _parameter_constraints entry"
        assert p.meaning, f"{name}: {p.name} has no numpydoc entry"
        assert p.allowed != "any"
        assert p.default == est.get_params(deep=False)[p.name]
    assert citation(entry), f"{name} names no paper"


# a tiny table over a small DAG (a root with two children): every registered selector fits on it
_H = FeatureHierarchy.from_edges([("b", "a"), ("c", "a")])
_X = sp.csr_matrix(np.array([[1, 1, 0], [1, 0, 1], [1, 1, 0], [0, 0, 0], [1, 0, 1], [1, 1, 0]]))
_Y = np.array([0, 1, 0, 1, 1, 0])


@pytest.mark.parametrize("name", sorted(available_selectors()))
def test_fit_refuses_a_value_outside_the_declaration(name):
    """What the CLI checks up front, the estimator checks again in ``fit``: no declared parameter takes anything."""
    entry = selector_entry(name)
    assert entry.estimator(_H).fit(_X, _Y) is not None
    for p in entry.parameters():
        with pytest.raises((ValueError, TypeError)):
            entry.estimator(_H, **{p.name: object()}).fit(_X, _Y)


def test_check_params_names_the_parameter_and_lists_the_valid_ones():
    fisher = selector_entry("fisher")
    assert fisher.check_params({"k": 7}) == {"k": 7}
    with pytest.raises(KgfsError, match=r"^selector fisher: k=0 is not valid: must be int >= 1; parameters: "
                                        r"binarize \(float or None, default None\), k \(int >= 1, default 50\)$"):
        fisher.check_params({"k": 0})
    with pytest.raises(KgfsError, match="k=abc is not valid"):
        fisher.check_params({"k": "abc"})
    with pytest.raises(KgfsError, match="^selector fisher has no parameter 'kk'; parameters: binarize"):
        fisher.check_params({"kk": 3})
    with pytest.raises(KgfsError, match="classifier lazy-1nn has no parameter 'n_neighbors'"):
        classifier_entry("lazy-1nn").check_params({"n_neighbors": 3})  # fixed by its registration
    assert classifier_entry("lazy-knn").check_params({"n_neighbors": 5}) == {"n_neighbors": 5}


def test_registry_defaults_are_the_factorys_presets():
    sig = {p.name: p.default for p in selector_entry("sig").parameters()}
    sc = {p.name: p.default for p in selector_entry("sc").parameters()}
    assert sig["measure"] == "ig" and sc["measure"] == "correlation"
    assert {p.name: p.default for p in classifier_entry("knn").parameters()}["n_neighbors"] == 3


class _Plain(BaseEstimator):
    """A selector without declared constraints.

    Parameters
    ----------
    hierarchy : object
        Ignored.
    depth : int
        How deep.
    """

    def __init__(self, hierarchy=None, depth=2):
        self.hierarchy = hierarchy
        self.depth = depth


def test_a_class_without_constraints_lists_its_get_params_names():
    register_selector("example-plain", _Plain)
    try:
        entry = selector_entry("example-plain")
        assert entry.parameters() == [Parameter("depth", "any", 2, "How deep.")]
        assert entry.check_params({"depth": "anything"}) == {"depth": "anything"}
        with pytest.raises(KgfsError, match="has no parameter 'deep'; parameters: depth \\(any, default 2\\)"):
            entry.check_params({"deep": 1})
        assert "example-plain" in methods_overview(("selector",))
    finally:
        del registry._SELECTORS["example-plain"]


def test_method_params_scopes_keys_to_the_methods_given():
    sels, clfs = ["shsel-ig-prune", "sig", "complete"], ["nb", "knn"]
    assert method_params({"threshold": 0.5}, sels, clfs) == {"shsel-ig-prune": {"threshold": 0.5},
                                                             "sig": {"threshold": 0.5}}
    assert method_params({"sig.k": 3, "knn.n_neighbors": 5}, sels, clfs) == {"sig": {"k": 3},
                                                                             "knn": {"n_neighbors": 5}}
    assert method_params({"alpha": 0.5}, sels, clfs) == {"nb": {"alpha": 0.5}}  # no selector has alpha
    with pytest.raises(KgfsError, match="'fisher' is not among the methods given"):
        method_params({"fisher.k": 3}, sels, clfs)
    with pytest.raises(KgfsError, match="none of the methods given has a parameter 'foo' .*complete: binarize"):
        method_params({"foo": 1}, sels, clfs)
    with pytest.raises(KgfsError, match="selector sig: k=-2 is not valid"):
        method_params({"sig.k": -2}, sels, clfs)
    assert method_params({"hifsrr.lam": 1.0}, ["hifsrr"], [], free=("hifsrr",)) == {"hifsrr": {"lam": 1.0}}


def test_find_method_and_help_texts():
    assert find_method("complete")[0] == "selector" and find_method("svm-linear")[0] == "classifier"
    assert find_method("hifsrr2017")[0] == "protocol" and find_method("fsnm")[0] == "protocol method"
    with pytest.raises(KgfsError, match="unknown method 'nope'; known: .*shsel-ig-prune"):
        find_method("nope")
    text = method_help("rpv")
    assert "selector (lazy)" in text and "rpv2020 (the paper's experiment)" in text and "relevance" in text
    assert "kgfs evaluate --protocol hifsrr2017 --selectors fsnm" in method_help("fsnm")
    overview = methods_overview()
    for name in [*ALL, "basic", "shsel2014", "rpv2020", "hifsrr2017"]:
        assert f"  {name} " in overview, name


# ------------------------------------------------------------------ selection.params
def test_docstring_parameters_reads_numpydoc_entries():
    def f(a, b, c):
        """Doc.

        Parameters
        ----------
        a, b : float
            Both weights, e.g. ``0.5``. Second sentence.
        c : :class:`~kg.table.FeatureTable`

        Returns
        -------
        None
        """

    assert docstring_parameters(f) == {"a": "Both weights, e.g. 0.5.", "b": "Both weights, e.g. 0.5.",
                                       "c": "FeatureTable"}


def test_constraint_text_and_check_values():
    assert constraint_text([Interval(Real, 0, 1, closed="right")]) == "float in (0, 1]"
    assert constraint_text([StrOptions({"x"}), "boolean", None]) == "'x' or bool or None"
    assert constraint_text("no_validation") == constraint_text([]) == "any"
    p = Parameter("t", "float in [0, 1]", 0.5, "", (Interval(Real, 0, 1, closed="both"),))
    assert check_values([p], {"t": 1}, owner="x") == {"t": 1}
    with pytest.raises(KgfsError, match=r"^protocol x: t=true is not valid: must be float in \[0, 1\]; options: t"):
        check_values([p], {"t": True}, owner="protocol x", noun="option")


def test_declared_parameters_of_a_pipeline_are_its_last_steps():
    from selection.class_hierarchy.tree import default_node_classifier

    names = {p.name for p in declared_parameters(default_node_classifier())}
    assert {"C", "max_iter", "penalty"} <= names and "steps" not in names


def test_parse_assignments():
    assert parse_assignments(["a=1", "b=TRUE", "c=None", "d=x=y", "e= 2.5 ", "f=[1,2]"]) == {
        "a": 1, "b": True, "c": None, "d": "x=y", "e": 2.5, "f": [1, 2]}
    with pytest.raises(KgfsError, match="--option expects KEY=VALUE, got '=3'"):
        parse_assignments(["=3"], "--option")
