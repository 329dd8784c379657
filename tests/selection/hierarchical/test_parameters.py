"""Declared parameters of every hierarchical and lazy selector: each ``__init__`` parameter has a
constraint, and ``fit`` refuses a value outside it."""

from __future__ import annotations

import numpy as np
import pytest

from kg.sklearn_compat import InvalidParameterError
from selection.hierarchical import (
    SHSEL,
    TSEL,
    TSELRPV,
    CompleteFS,
    GreedyTopDown,
    GreedyTopDownRPV,
    HillClimbing,
    StandardSelector,
)
from selection.lazy import HIP, MR, RPV, AllNegative, AllPositive

CLASSES = [SHSEL, TSEL, TSELRPV, CompleteFS, GreedyTopDown, GreedyTopDownRPV, HillClimbing, StandardSelector,
           RPV, HIP, MR, AllPositive, AllNegative]
X = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
Y = [0, 1, 0, 1]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_parameter_is_declared(cls):
    assert set(cls._parameter_constraints) == set(cls().get_params())


@pytest.mark.parametrize("cls, bad", [
    (SHSEL, {"ig_unit": "decibans"}), (SHSEL, {"prune_compare": "<"}), (SHSEL, {"prune": "yes"}),
    (TSEL, {"chi2_k": -1}), (TSELRPV, {"measure": "gini"}), (GreedyTopDownRPV, {"measure": 3}),
    (HillClimbing, {"max_instances": 0}), (StandardSelector, {"normalize": "no"}),
    (CompleteFS, {"hierarchy": "GO"}), (RPV, {"smoothing": "add-one"}), (RPV, {"relevance": "gini"}),
    (MR, {"check_implication": "repair"}), (HIP, {"check_implication": None}), (AllPositive, {"binarize": "x"}),
])
def test_fit_refuses_values_outside_the_constraints(cls, bad):
    with pytest.raises((InvalidParameterError, ValueError, TypeError)) as err:
        cls(**bad).fit(X, Y)
    assert next(iter(bad)) in str(err.value)
