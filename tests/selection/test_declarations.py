"""The parameters declared beside the registrations (selection.declarations) are what the estimators declare.

Every registered method's declaration is compared with its estimator's own (``_parameter_constraints``, the
defaults of a new instance with the registration's presets): the same names, the same words for their types,
ranges and choices, the same defaults, and the same verdict on a battery of values (those a command line gives,
JSON, checked by :mod:`selection.constraints`; and others, checked by scikit-learn through it). Then: the checks of
a command's parameters import no estimator and no scikit-learn.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kg import sklearn_compat as pv
from selection import constraints as light
from selection import registry
from selection.declarations import PARAMETERS
from selection.params import _show, declared_parameters
from selection.registry import (
    available_classifiers,
    available_selectors,
    classifier_entry,
    register_classifier,
    register_selector,
    selector_entry,
)

ROOT = Path(__file__).resolve().parents[2]
ALL = {**available_selectors(), **available_classifiers()}


def _own_constraints(entry) -> dict:
    """The estimator's own ``_parameter_constraints`` (of its final step for a pipeline)."""
    est = entry.estimator()
    est = est.steps[-1][1] if getattr(est, "steps", None) else est
    return type(est)._parameter_constraints


def _probes(constraints) -> list:
    """Values around every bound and option of ``constraints``, and values of every JSON type."""
    values = [None, True, False, 0, 1, 2, 3, -1, -2, 10, 100, 101, 2**32 - 1, 2**32, 0.0, 0.5, 1.0, 1.5, 2.0, -0.5,
              1e-9, 100.0, math.nan, math.inf, -math.inf, "", "x", "auto", "true", "1", [], [1, 2], [0.5], {},
              {"a": 1}]
    stack = list(constraints)
    while stack:
        c = stack.pop()
        if isinstance(c, (light.Hidden, pv.Hidden)):
            stack.append(c.constraint)
        elif isinstance(c, (light.Interval, pv.Interval)):
            for bound in (c.left, c.right):
                if bound is not None:
                    values += [bound, bound + 1, bound - 1, float(bound), bound + 1e-9, bound - 1e-9]
        elif isinstance(c, (light.Options, pv.Options)):
            values += [*c.options, *(f"{o}x" for o in c.options if isinstance(o, str))]
    return values


#: values no command line gives: checked by scikit-learn (selection.constraints.to_sklearn)
_OTHERS = [np.float64(0.5), np.int64(3), np.int64(-1), np.bool_(True), np.array([1.0, 2.0]), len, object(),
           np.random.RandomState(0)]


def _sklearn_satisfied(constraints, value) -> bool:
    """scikit-learn's verdict (as ``validate_parameter_constraints`` decides, without raising)."""
    return any(pv.make_constraint(c).is_satisfied_by(value) for c in constraints)


@pytest.mark.parametrize("name", sorted(ALL))
def test_the_declaration_is_what_the_estimator_declares(name):
    entry = ALL[name]
    assert isinstance(entry.target, str) and entry.target in PARAMETERS, f"{name}: no declaration"
    own = {p.name: p for p in entry.parameters()}
    declared = {p.name: p for p in entry.declared()}
    assert list(declared) == list(own), f"{name}: the declared names differ from the estimator's"
    constraints = _own_constraints(entry)
    for pname, p in declared.items():
        q = own[pname]
        assert (p.allowed, _show(p.default)) == (q.allowed, _show(q.default)), f"{name}.{pname}"
        assert p.default == q.default or (p.default != p.default and q.default != q.default), f"{name}.{pname}"
        assert p.describe() == q.describe()
        for value in [*_probes(p.constraints), *_probes(constraints[pname]), *_OTHERS]:
            assert light.satisfied(p.constraints, value) == _sklearn_satisfied(constraints[pname], value), \
                f"{name}.{pname}={value!r}"


def test_every_declaration_is_registered():
    assert set(PARAMETERS) == {e.target for e in ALL.values()}


def test_the_constraints_say_what_scikit_learn_says():
    from numbers import Integral, Real

    pairs = [
        (light.Interval(Real, 0, 1, closed="both"), pv.Interval(Real, 0, 1, closed="both")),
        (light.Interval(Integral, 1, None, closed="left"), pv.Interval(Integral, 1, None, closed="left")),
        (light.Interval(light.RealNotInt, 0.0, 1.0, closed="right"),
         pv.Interval(pv.RealNotInt, 0.0, 1.0, closed="right")),
        (light.StrOptions({"b", "a"}, deprecated={"b"}), pv.StrOptions({"b", "a"}, deprecated={"b"})),
        (light.Options(Real, {0.5, 1}), pv.Options(Real, {0.5, 1})),
        (light.HasMethods(["fit", "predict"]), pv.HasMethods(["fit", "predict"])),
        (light.Hidden(light.StrOptions({"x"})), pv.Hidden(pv.StrOptions({"x"}))),
    ]
    from selection.params import constraint_text

    for mine, theirs in pairs:
        assert constraint_text([mine]) == constraint_text([theirs])
        for value in [*_probes([mine]), *_OTHERS]:
            assert light.satisfied([mine], value) == _sklearn_satisfied([theirs], value), (mine, value)
        assert type(light.to_sklearn(mine)) is type(theirs)


def test_a_registered_class_declares_through_its_estimator():
    from selection.hierarchical import CompleteFS

    entry = register_selector("example-complete", CompleteFS, presets={"binarize": 0.5})
    try:
        assert [p.describe() for p in entry.declared()] == ["binarize (float or None, default 0.5)"]
        with pytest.raises(Exception, match="selector example-complete: binarize=x is not valid"):
            entry.check_params({"binarize": "x"})
    finally:
        del registry._SELECTORS["example-complete"]


def test_a_registration_by_name_with_its_declaration_imports_nothing_until_built():
    from numbers import Real

    entry = register_classifier("example-lazy", "sklearn.naive_bayes:BernoulliNB",
                                parameters={"alpha": (1.0, [light.Interval(Real, 0, None, closed="left")])})
    try:
        assert classifier_entry("example-lazy").check_params({"alpha": 2}) == {"alpha": 2}
        with pytest.raises(Exception, match="alpha=-1 is not valid: must be float >= 0"):
            entry.check_params({"alpha": -1})
        assert entry.estimator(alpha=0.5).alpha == 0.5
    finally:
        del registry._CLASSIFIERS["example-lazy"]


_FRESH = """
import sys
from kg.errors import KgfsError
from selection.param_routing import method_params, whole_table_params
from selection.registry import selector_entry
said = []
for call in (lambda: whole_table_params("shsel-ig-prune", {"threshhold": 0.9}),
             lambda: whole_table_params("shsel-ig-prune", {"threshold": 2}),
             lambda: selector_entry("shsel-ig-prun"),
             lambda: method_params({"knn.n_neighbors": 0}, ["sig"], ["knn", "nb"])):
    try:
        call()
    except KgfsError as exc:
        said.append(str(exc).split(";")[0].split(" (")[0])
assert whole_table_params("shsel-ig-prune", {"threshold": 0.5}) == {"threshold": 0.5}
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("sklearn", "scipy", "numpy")
               or m.startswith(("selection.hierarchical", "selection.lazy", "selection.flat")))
print(heavy)
print(said)
"""


def test_checking_parameters_imports_no_estimator_and_no_scikit_learn():
    proc = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, check=True)
    heavy, said = proc.stdout.splitlines()
    assert heavy == "[]"
    assert said == str(["params='threshhold': none of the methods given has a parameter 'threshhold'",
                        "selector shsel-ig-prune: threshold=2 is not valid: must be float in [0, 1]",
                        "unknown selector 'shsel-ig-prun'",
                        "classifier knn: n_neighbors=0 is not valid: must be int >= 1 or None"])


def test_selector_entries_load_their_class_on_first_use():
    entry = selector_entry("shsel-ig-prune")
    assert entry.target == "selection.hierarchical.shsel:SHSEL"
    assert entry.factory.__name__ == "SHSEL" and entry.kind == "eager"
    assert declared_parameters(entry.estimator(), exclude=("hierarchy",)) == entry.parameters()
