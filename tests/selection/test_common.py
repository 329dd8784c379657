"""Checks every registered selector must pass (one list, so new selectors are checked too).

1. scikit-learn's estimator checks, with ``hierarchy=None`` (flat) and ``binarize=0.0`` so the
   checks' random float data becomes binary (values > 0 count as 1).
2. The same checks over a real DAG, for every eager selector that takes a hierarchy (see
   :func:`test_sklearn_compatible_with_hierarchy`); flat selectors take none.
3. One naming rule: a selector fitted with a hierarchy names its features by the hierarchy's ids;
   a flat one by ``X``'s column names.
4. Properties over every non-lazy selector on random closed tables over random DAGs:
   selection inside the feature set, ``transform`` width equal to the support size, no
   dependence on column order, sparse input equal to dense input.
5. Each method's hierarchy promise; the implication check; bad input.
"""

from __future__ import annotations

import re
from functools import partial

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.utils.estimator_checks import estimator_checks_generator, parametrize_with_checks

from kg.hierarchy import FeatureHierarchy
from selection.registry import available_selectors, get_selector
from tests.strategies import closed_tables, coach_hierarchy, leaf_root_paths

SELECTORS = available_selectors()
# Expensive or randomised search selectors: fewer examples in the property tests.
SLOW = {"hill-climbing", "ga-tree"}
# The selectors that choose one subset for all instances: every kind but "lazy".
NON_LAZY = [n for n, e in SELECTORS.items() if e.kind != "lazy"]
# Those that take the hierarchy (flat selectors say in their signature that they do not).
OVER_A_DAG = [n for n in NON_LAZY if SELECTORS[n].takes_hierarchy]


def _instances():
    out = []
    for name in SELECTORS:
        est = get_selector(name, None, binarize=0.0)
        est._registry_name = name  # for the ids and the expected failures below
        out.append(est)
    return out


def _expected_failed_checks(est) -> dict[str, str]:
    """Written reasons for the estimator checks a selector is expected to fail."""
    return {}


@parametrize_with_checks(_instances(), expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ----------------------------------------------------------------------------- checks over a DAG
def ladder_dag(width: int) -> FeatureHierarchy:
    """``n0 .. n{width-1}``, node ``i`` with parents ``i+1`` and ``i+2``: one root, multiple
    inheritance from width 3 on, and leaf-to-root paths of different lengths."""
    ids = [f"n{i}" for i in range(width)]
    return FeatureHierarchy.from_edges(
        [(ids[i], ids[j]) for i in range(width) for j in (i + 1, i + 2) if j < width], nodes=ids
    )


# A hierarchy has a fixed width but the estimator checks generate their own X: most of them
# with 3 columns (the width given first), a few with 1, 2, 4, 5 or 10. Such a check's first fit
# fails with this message, naming X's width; the check is then rerun over a DAG of that width.
_WIDTH_MISMATCH = re.compile(r"the hierarchy has \d+ nodes but X has (\d+) features")

# Over a DAG with the slow suite only, with the reason.
_SLOW_OVER_A_DAG = {
    "ga-tree": "GATreeSelector ignores the feature hierarchy (it only names the features); its genetic "
               "search makes the checks cost about 5 s, and the flat run above covers them",
}


def _check_id(check) -> str:
    """``check_name`` or ``check_name(keyword=value)`` for a (nested) partial of a check."""
    keywords = {}
    while isinstance(check, partial):
        keywords.update(check.keywords)
        check = check.func
    args = ",".join(f"{k}={v}" for k, v in sorted(keywords.items()))
    return f"{check.__name__}({args})" if args else check.__name__


def _checks_over_a_dag():
    """One ``pytest.param(estimator, check)`` per selector over a DAG and estimator check."""
    for name in OVER_A_DAG:
        est = get_selector(name, ladder_dag(3), binarize=0.0)
        if "check_implication" in est.get_params():
            # the checks' random data is not closed under the DAG: select on its upward closure
            est.set_params(check_implication="repair")
        slow = [pytest.mark.slow] if name in _SLOW_OVER_A_DAG else []
        for estimator, check in estimator_checks_generator(est):
            cid = _check_id(check)
            marks = list(slow)
            yield pytest.param(estimator, check, marks=marks, id=f"{name}-{cid}")


def _width_of_x(exc: BaseException | None) -> int | None:
    """X's width when ``exc`` (or an exception it was raised from) is the width mismatch."""
    while exc is not None:
        m = _WIDTH_MISMATCH.search(str(exc))
        if m:
            return int(m[1])
        exc = exc.__cause__ or exc.__context__
    return None


@pytest.mark.parametrize("estimator, check", list(_checks_over_a_dag()))
def test_sklearn_compatible_with_hierarchy(estimator, check):
    """scikit-learn's estimator checks for every selector that takes a hierarchy, over a real DAG."""
    try:
        check(estimator)
    except Exception as exc:
        width = _width_of_x(exc)
        if width is None:
            raise
        check(clone(estimator).set_params(hierarchy=ladder_dag(width)))


# ----------------------------------------------------------------------------- naming
@pytest.mark.parametrize("name", NON_LAZY)
def test_feature_names_are_the_hierarchy_ids(name):
    """Fitted with a hierarchy, every selector names the selected features by the node ids;
    given a DataFrame whose columns are those ids, by its columns (the same names). A flat
    selector (no hierarchy) names them ``x0, x1, ...`` without column names."""
    h = coach_hierarchy()
    rng = np.random.default_rng(0)
    X = h.close(sp.csr_matrix(rng.random((40, h.n_nodes)) < 0.3)).astype(np.float64)
    y = (np.asarray(X[:, h.idx("Player")].todense()).ravel() > 0).astype(int)
    y[:3] = 1 - y[:3]  # not a perfect predictor: leaves the selectors something to weigh
    s = get_selector(name, h).fit(X, y)
    names = s.get_feature_names_out()
    ids = h.node_ids if name in OVER_A_DAG else np.array([f"x{i}" for i in range(h.n_nodes)])
    assert names.size > 0 and names.tolist() == ids[s.get_support()].tolist()
    frame = pd.DataFrame(X.toarray(), columns=h.node_ids)
    named = get_selector(name, h).fit(frame, y).get_feature_names_out().tolist()
    assert named == h.node_ids[s.get_support()].tolist()


# ----------------------------------------------------------------------------- properties
def _fit(name, h, X, y):
    return get_selector(name, h).fit(X, y)


def _permute(h: FeatureHierarchy, perm: np.ndarray) -> FeatureHierarchy:
    """The same hierarchy with its nodes in the order ``perm``."""
    return FeatureHierarchy.from_edges(h.edge_list(), nodes=h.node_ids[perm].tolist())


# Selectors whose result depends on the column order, with the reason (the column-order
# property is not checked for them; every other property is).
ORDER_DEPENDENT = {
    "cfs": "ties between equally good features are broken by column position",
    "ga-tree": "a genetic algorithm: its random operators act on column positions, so the same seed "
               "searches differently after a permutation",
}


@pytest.mark.parametrize("name", NON_LAZY)
@settings(max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(table=closed_tables(max_nodes=10), seed=st.integers(0, 2**31))
def test_properties(name, table, seed):
    X, y, h = table
    s = _fit(name, h, X, y)
    sup = s.get_support()
    assert sup.dtype == bool and sup.shape == (h.n_nodes,)
    assert s.transform(X).shape == (X.shape[0], int(sup.sum()))
    assert set(s.get_support(indices=True)) <= set(range(h.n_nodes))
    if name in OVER_A_DAG:
        assert s.get_feature_names_out().tolist() == h.node_ids[sup].tolist()
    # sparse and dense input give the same selection
    assert _fit(name, h, X.toarray(), y).get_support().tolist() == sup.tolist()
    # permuting the columns and the hierarchy together permutes the selection
    if name not in ORDER_DEPENDENT:
        perm = np.random.default_rng(seed).permutation(h.n_nodes)
        s2 = _fit(name, _permute(h, perm), X[:, perm], y)
        assert s2.get_support().tolist() == sup[perm].tolist()


# ----------------------------------------------------------------------------- promises
def _ancestors(h):
    return h.ancestor_matrix.toarray().astype(bool)


def _promise_shsel(s, h, X, y):
    init, sup = s.initial_support_, s.get_support()
    assert init[h.roots].all()
    assert not (sup & ~init).any()
    c, p = h.edges
    ig = s.scores_
    if s.relevance == "ig":  # every dropped node has a parent of similar IG; no kept node has
        sim = 1 - np.abs(ig[c] - ig[p])
        similar = np.zeros(h.n_nodes, bool)
        similar[c[sim >= s.threshold]] = True
        assert (similar == ~init).all()
    if s.prune:
        for path in leaf_root_paths(h):  # the best remaining feature of every path stays
            on = [k for k in path if init[k]]
            assert sup[max(on, key=lambda k: ig[k])]


def _promise_tsel(s, h, X, y):
    sup, reps = s.get_support(), s.representatives_
    assert not (sup & ~reps).any() and sup.any()
    for path in leaf_root_paths(h):  # every path's best feature is a representative
        assert reps[max(path, key=lambda k: (s.scores_[k], -h.levels[k]))]


def _promise_gtd(s, h, X, y):
    sup, anc = s.get_support(), _ancestors(h)
    assert not anc[np.ix_(sup, sup)].any()  # an antichain
    assert (anc | anc.T | np.eye(h.n_nodes, dtype=bool))[:, sup].any(axis=1).all()  # maximal


def _promise_standard(s, h, X, y):
    sup = s.get_support()
    if sup.any() and (~sup).any():  # every kept feature scores at least every dropped one
        assert s.scores_[sup].min() >= s.scores_[~sup].max()


def _promise_complete(s, h, X, y):
    assert s.get_support().all()


PROMISES = {
    "shsel-ig": _promise_shsel, "shsel-c": _promise_shsel,
    "shsel-ig-prune": _promise_shsel, "shsel-c-prune": _promise_shsel,
    "tsel-lift": _promise_tsel, "tsel-ig": _promise_tsel,
    "greedy-top-down": _promise_gtd,
    "sig": _promise_standard, "sc": _promise_standard,
    "complete": _promise_complete,
}


@pytest.mark.parametrize("name", sorted(PROMISES))
@settings(max_examples=20)
@given(table=closed_tables(max_nodes=10), threshold=st.sampled_from([0.5, 0.9, 0.99]))
def test_hierarchy_promise(name, table, threshold):
    X, y, h = table
    params = {"threshold": threshold} if name.startswith(("shsel", "sig", "sc")) else {}
    s = get_selector(name, h, **params).fit(X, y)
    PROMISES[name](s, h, X, y)


# ----------------------------------------------------------------------------- bad input
H3 = FeatureHierarchy.from_edges([("a", "r"), ("b", "r")], nodes=["a", "b", "r"])
X3 = sp.csr_matrix(np.array([[1, 0, 1], [0, 1, 1], [0, 0, 0], [1, 0, 1]], dtype=float))
Y3 = np.array([1, 0, 0, 1])


# Selectors that accept non-binary features by design, with the reason.
NUMERIC_OK = {
    "adhoc": "ADHOC works on numeric features (rank correlation, binned chi-square); it does not binarise",
    "fisher": "the Fisher score is defined on numbers: it reads a table's counts (--values count) as they are",
}


@pytest.mark.parametrize("name", [n for n in NON_LAZY if n not in SLOW])
def test_bad_input(name):
    with pytest.raises(ValueError, match="single class"):
        get_selector(name, H3).fit(X3, np.ones(4))
    if name in OVER_A_DAG:
        with pytest.raises(ValueError, match="hierarchy has 3 nodes but X has 2"):
            get_selector(name, H3).fit(X3[:, :2], Y3)
    with pytest.raises(ValueError, match="0 feature"):
        get_selector(name, None).fit(np.zeros((4, 0)), Y3)
    if name not in NUMERIC_OK:
        with pytest.raises(ValueError, match="binary"):
            get_selector(name, H3).fit(X3 * 0.5, Y3)


IMPLICATION_CHECKED = [n for n in NON_LAZY if "check_implication" in get_selector(n).get_params()]


@pytest.mark.parametrize("name", IMPLICATION_CHECKED)
def test_implication_check(name):
    """A table where a feature is 1 and a parent 0 raises; ``"repair"`` selects on its closure."""
    h = coach_hierarchy()
    open_table = sp.csr_matrix(np.eye(h.n_nodes))
    y = [0, 1] * 3
    with pytest.raises(ValueError, match="violates the hierarchy"):
        get_selector(name, h).fit(open_table, y)
    fixed = get_selector(name, h, check_implication="repair").fit(open_table, y)
    closed = get_selector(name, h).fit(h.close(open_table), y)
    assert fixed.get_support().tolist() == closed.get_support().tolist()


# ----------------------------------------------------------------------------- sparse stays sparse
# The SHSEL paper's selectors that work from sparse counts (hill climbing keeps an n x n
# distance matrix by design and refuses this many instances).
SPARSE_COUNTS = ["shsel-ig", "shsel-c", "shsel-ig-prune", "shsel-c-prune", "sig", "sc", "tsel-lift", "tsel-ig",
                 "greedy-top-down", "complete"]


@pytest.mark.slow
@pytest.mark.parametrize("name", SPARSE_COUNTS)
def test_never_densifies(name):
    """100,000 x 40,000 with 0.01% ones: a dense float64 copy would need 32 GB and fail."""
    rng = np.random.default_rng(0)
    n, m = 100_000, 40_000
    edges = [(f"f{i}", f"f{i // 4}") for i in range(1, 2_000)]  # a 4-ary tree over the first 2,000
    h = FeatureHierarchy.from_edges(edges, nodes=[f"f{i}" for i in range(m)])
    direct = sp.csr_matrix((np.ones(400_000), (rng.integers(0, n, 400_000), rng.integers(0, m, 400_000))),
                           shape=(n, m))
    X = h.close(direct).astype(np.float64)
    y = rng.integers(0, 2, n)
    s = get_selector(name, h).fit(X, y)
    assert s.transform(X).shape == (n, int(s.get_support().sum()))
    assert sp.issparse(s.transform(X))
