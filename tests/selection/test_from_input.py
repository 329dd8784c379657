"""``hierarchy="from_input"``: every selector over a DAG reads the hierarchy that X carries.

X carries a hierarchy as a :class:`kg.table.HierarchicalCSR` (what :class:`kg.features.KGFeatures`
returns) or as a DataFrame's ``attrs["hierarchy"]`` (its pandas output). The selector fitted so must
select exactly what it selects when given the same hierarchy as an argument.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from kg.hierarchy import FeatureHierarchy
from kg.table import HierarchicalCSR
from selection.base import resolve_hierarchy
from selection.lazy import RPV, LazyNaiveBayes, LazySelectionClassifier
from selection.registry import available_selectors, get_selector

SELECTORS = available_selectors()
OVER_A_DAG = sorted(n for n, e in SELECTORS.items() if e.takes_hierarchy)

# a small closed table: Athlete, Cricketer, Person, City, Place (Cricketer -> Athlete -> Person, City -> Place)
H = FeatureHierarchy.from_edges([("Cricketer", "Athlete"), ("Athlete", "Person"), ("City", "Place")],
                                nodes=["Athlete", "Cricketer", "Person", "City", "Place"])
ROWS = [[1, 1, 1, 0, 0], [1, 0, 1, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 1], [0, 0, 0, 0, 1], [1, 1, 1, 1, 1],
        [0, 0, 0, 1, 1], [1, 0, 1, 0, 0], [0, 0, 0, 0, 1], [1, 1, 1, 0, 0], [0, 0, 1, 1, 1], [0, 0, 0, 1, 1]]
X = sp.csr_matrix(np.array(ROWS, dtype=float))
Y = np.array(["sport"] * 3 + ["place", "place", "sport", "place", "sport", "place", "sport", "place", "place"])


def carried() -> HierarchicalCSR:
    return HierarchicalCSR.wrap(X, H)


def frame() -> pd.DataFrame:
    df = pd.DataFrame.sparse.from_spmatrix(X, columns=H.node_ids.tolist())
    df.attrs["hierarchy"] = H
    return df


def _result(est, data):
    if hasattr(est, "select_for"):
        return est.select_for(sp.csr_matrix(X)).toarray()
    return est.get_support()


@pytest.mark.parametrize("name", OVER_A_DAG)
def test_every_selector_over_a_dag_reads_the_hierarchy_x_carries(name):
    given = get_selector(name, H).fit(X, Y)
    for data in (carried(), frame()):
        est = get_selector(name, "from_input")
        assert est.get_params()["hierarchy"] == "from_input"
        est.fit(data, Y)
        assert est.hierarchy_ is H
        np.testing.assert_array_equal(_result(est, data), _result(given, X))
        assert clone(est).hierarchy == "from_input"


@pytest.mark.parametrize("name", OVER_A_DAG)
def test_from_input_without_a_carried_hierarchy_is_a_clear_error(name):
    for data in (X, X.toarray(), HierarchicalCSR.wrap(X, H)[:, :4]):
        with pytest.raises(ValueError, match="hierarchy='from_input' needs X produced by kg.features.KGFeatures"):
            get_selector(name, "from_input").fit(data, Y)


def test_eager_names_come_from_the_carried_hierarchy():
    est = get_selector("complete", "from_input").fit(carried(), Y)
    assert est.get_feature_names_out().tolist() == H.node_ids.tolist()


def test_a_wrong_string_is_refused_by_the_parameter_check():
    with pytest.raises(ValueError, match="'hierarchy' parameter .* Got 'from-input' instead"):
        get_selector("shsel-ig-prune", "from-input").fit(carried(), Y)


def test_lazy_selection_classifier_gives_its_selector_the_carried_hierarchy():
    model = LazySelectionClassifier(RPV(hierarchy="from_input"), LazyNaiveBayes())
    for data in (carried(), frame()):
        fitted = clone(model).fit(data, Y)
        assert fitted.selector_.hierarchy_ is H
        want = LazySelectionClassifier(RPV(H), LazyNaiveBayes()).fit(X, Y)
        np.testing.assert_array_equal(fitted.predict_proba(X), want.predict_proba(X))
    assert model.selector.hierarchy == "from_input"  # the user's selector is not changed
    with pytest.raises(ValueError, match="hierarchy='from_input' needs X"):
        clone(model).fit(X, Y)
    search = GridSearchCV(model, {"selector__relevance": ["lazyr", "ig"]}, cv=2).fit(carried(), Y)
    assert search.best_estimator_.selector_.hierarchy_ is H


def test_resolve_hierarchy_passes_other_values_through():
    assert resolve_hierarchy(H, X) is H and resolve_hierarchy(None, X) is None
    assert resolve_hierarchy("from_input", carried()) is H


def test_the_evaluation_gives_a_from_input_selector_the_tables_hierarchy():
    from kg.datasets import load_dataset
    from selection.evaluation import evaluate_table
    from selection.hierarchical import SHSEL

    table = load_dataset("bundled/DM-BP")
    rows = evaluate_table(table, [("from-input", SHSEL(hierarchy="from_input")), ("given", SHSEL())], ["nb"],
                          dataset="DM-BP", n_splits=3, random_state=0)
    assert (rows["status"] == "ok").all()
    by = rows.set_index(["selector", "fold"])
    np.testing.assert_array_equal(by.loc["from-input", "n_selected"], by.loc["given", "n_selected"])
