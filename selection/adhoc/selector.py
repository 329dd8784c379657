"""ADHOC (Richeldi & Lanzi, KDD 1996): factors from higher-order correlation, then a GA that
takes at most one feature per factor, scored by a cross-validated decision tree.

The paper describes four stages in prose and gives no formulas; every choice below is ours,
written here, exposed as a parameter of :class:`ADHOC` and tested in
``tests/selection/adhoc/test_selector.py``.

**Input.** ADHOC is the one method of the project that takes numeric *and* symbolic features.

- A ``pandas.DataFrame``: columns of dtype ``category``, ``object`` or ``string`` are symbolic
  (``symbolic="auto"``); every other column (numbers, booleans) is numeric. ``symbolic`` may
  also be a list of further symbolic columns (names or positions), e.g. integer-coded
  categories; ``symbolic=None`` makes every column numeric.
- An array or sparse matrix: every column is numeric unless ``symbolic`` lists column positions.
- Missing values (NaN/None): ``missing="raise"`` (default) raises a ``ValueError`` naming the
  column and the first row; ``missing="impute"`` replaces a numeric gap by the column median and
  makes a symbolic gap its own level ``"<missing>"``.
- Constant features (one value, or one level) have no defined dependence: their row of the
  dependence matrix is 0 (test ``"constant"``), they go to the *unrelated* cluster, are flagged
  in ``constant_`` and are never selected (a constant column cannot change a tree).
- A single feature: stages 1-3 are trivial (one unrelated factor); the GA chooses between the
  feature and nothing.
- Column order does not matter: the stages run on the distinct columns in an order fixed by a
  hash of their content, and the result is mapped back. Exact duplicate columns are one feature:
  they share a factor and are selected or dropped together (test ``"duplicate"`` between them).
- ``binarize=t`` maps numeric values ``> t`` to 1 first (as the other selectors' parameter does;
  the project's estimator checks use it). ADHOC builds its own hierarchy of factors and takes
  none (a flat selector: no ``hierarchy`` parameter; registry kind ``"flat"``).

The stages: :mod:`selection.adhoc.dependence` (1), :mod:`selection.adhoc.factors` (2 and 3),
:mod:`selection.adhoc.search` (4); each module's docstring gives its choices.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> z = rng.normal(size=(300, 2))
>>> X = np.column_stack([z[:, 0] + 0.3 * rng.normal(size=300) for _ in range(4)]
...                     + [z[:, 1] + 0.3 * rng.normal(size=300) for _ in range(4)])
>>> y = (z[:, 0] > 0).astype(int)
>>> s = ADHOC(random_state=0).fit(X, y)
>>> s.factor_labels_.tolist()          # two factors of four noisy copies each
[0, 0, 0, 0, 1, 1, 1, 1]
>>> int(s.get_support()[:4].sum())     # at most one feature of the class factor
1
"""

from __future__ import annotations

import hashlib
import logging
from numbers import Integral, Real

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from kg.sklearn_compat import Interval, StrOptions
from selection.adhoc.dependence import _T, Dependence, dependence_matrix
from selection.adhoc.factors import Factor, _factor_graph, _renumber, factor_hierarchy
from selection.adhoc.search import c45_tree, genetic_search
from selection.base import BINARIZE, HierarchicalSelector, check_hierarchy

__all__ = ["ADHOC"]

log = logging.getLogger(__name__)
_POSITIVE = Interval(Integral, 1, None, closed="left")


def _is_dataframe(X) -> bool:
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")


class ADHOC(HierarchicalSelector):
    """ADHOC feature selection (Richeldi & Lanzi 1996) on numeric and symbolic features.

    Stages 1-3 discover a hierarchy of factors from higher-order correlation
    (``factor_hierarchy_``); stage 4 searches subsets with at most one feature per factor,
    scored by a cross-validated entropy decision tree. See the module docstring for every
    choice the paper leaves open.

    Parameters
    ----------
    numeric_test : {"spearman", "pearson"}
        Correlation of two numeric features in the dependence matrix (stage 1).
    nonlinear : bool
        Also test numeric pairs by chi-square on ``n_bins`` equal-frequency bins.
    n_bins : int
        Bins for the chi-square of numeric pairs and the MDL fallback (default 3).
    symbolic : "auto", list or None
        Symbolic columns: "auto" = DataFrame columns of dtype category/object/string; a list adds
        columns (names or positions) to those; None = none.
    missing : {"raise", "impute"}
        Missing values: an error naming column and row, or imputed (median; own level).
    unrelated_threshold : float
        A feature with no first-order dependence this strong with any other is unrelated (stage 3).
    cluster_threshold : float
        Average linkage is cut where the average profile similarity falls below this (stage 2).
    stop_similarity : float
        The higher orders stop once every cluster's mean similarity reaches this and the partition is stable.
    min_order, max_order : int
        The first order clustered, and the last one computed (stage 2).
    min_profile : int
        Features a profile needs (the paper: 4); with fewer, the first-order matrix is clustered.
    min_cluster_size : int
        Concepts of at least this many features are analysed again on their own (stage 3).
    split_ratio : float
        A sub-concept split is kept when the dependence between the parts is below this times the one within.
    ga_level : {"leaf", "top"}
        Which factors the GA takes at most one feature from (module docstring).
    cv : int
        Folds of the cross-validated decision tree scoring a subset (stage 4 fitness).
    ccp_alpha : float
        Cost-complexity pruning of that tree.
    min_samples_leaf : int
        Samples at a leaf of that tree.
    population_size, n_generations : int
        Genomes per generation, and generations, of the GA.
    patience : int
        The GA stops after this many generations without improvement.
    crossover_rate : float
        Probability that two parents are crossed (uniform crossover).
    mutation_rate : float or None
        Per-gene mutation probability (None: 1 / number of factors).
    tournament_size : int
        Genomes per selection tournament.
    exhaustive_limit : int
        Search spaces of at most this many subsets are enumerated instead of searched by the GA.
    random_state : int
        Seed of the GA and of the cross-validation folds.
    binarize : float or None
        Map numeric values ``> binarize`` to 1 before anything else.

    Attributes
    ----------
    dependence_ : Dependence (stage 1; ``dependence_.matrix``, ``dependence_.tests``)
    higher_order_ : int, order reached at the top level (stage 2)
    factors_ : list of Factor (stage 3)
    factor_hierarchy_ : FeatureHierarchy (factor nodes + feature leaves)
    factor_labels_ : ndarray, top-level factor of each feature, numbered by first column (undefined
        and unrelated features: one label each; constant: -1)
    ga_factors_ : list of ndarray, the factors the GA chose from
    subset_ : tuple of int, the selected features (with their exact duplicates); ``cv_accuracy_``
        its fitness
    constant_ : ndarray of bool; symbolic_ : ndarray of bool
    n_evaluations_ : int, distinct subsets scored

    Examples
    --------
    >>> import pandas as pd
    >>> rng = np.random.default_rng(1)
    >>> z = rng.normal(size=200)
    >>> df = pd.DataFrame({"a": z + 0.2 * rng.normal(size=200), "b": z + 0.2 * rng.normal(size=200),
    ...                    "c": pd.Categorical(np.where(z + rng.normal(size=200) > 0, "hi", "lo")),
    ...                    "noise": rng.normal(size=200)})
    >>> s = ADHOC().fit(df, (z > 0).astype(int))
    >>> s.symbolic_.tolist(), s.dependence_.test_name(0, 2)
    ([False, False, True, False], 'cramers-v-mdl')
    >>> s.factor_labels_.tolist()      # a, b: one factor; c undefined; noise unrelated
    [0, 0, 1, 2]
    >>> s.get_feature_names_out().tolist()
    ['a', 'c']
    """

    _parameter_constraints = {
        "numeric_test": [StrOptions({"spearman", "pearson"})], "nonlinear": ["boolean"],
        "n_bins": [Interval(Integral, 2, None, closed="left")], "symbolic": [StrOptions({"auto"}), list, tuple, None],
        "missing": [StrOptions({"raise", "impute"})], "unrelated_threshold": [Interval(Real, 0, 1, closed="both")],
        "cluster_threshold": [Interval(Real, 0, 1, closed="both")],
        "stop_similarity": [Interval(Real, 0, 1, closed="both")], "min_order": [_POSITIVE],
        "max_order": [_POSITIVE], "min_profile": [_POSITIVE], "min_cluster_size": [_POSITIVE],
        "split_ratio": [Interval(Real, 0, None, closed="neither")], "ga_level": [StrOptions({"leaf", "top"})],
        "cv": [Interval(Integral, 2, None, closed="left")], "ccp_alpha": [Interval(Real, 0, None, closed="left")],
        "min_samples_leaf": [_POSITIVE], "population_size": [Interval(Integral, 2, None, closed="left")],
        "n_generations": [_POSITIVE], "patience": [_POSITIVE], "crossover_rate": [Interval(Real, 0, 1, closed="both")],
        "mutation_rate": [Interval(Real, 0, 1, closed="both"), None], "tournament_size": [_POSITIVE],
        "exhaustive_limit": [Interval(Integral, 0, None, closed="left")], "random_state": ["random_state"],
        "binarize": BINARIZE,
    }

    def __init__(self, *, numeric_test="spearman", nonlinear=True, n_bins=3, symbolic="auto",
                 missing="raise", unrelated_threshold=0.3, cluster_threshold=0.5, stop_similarity=0.9,
                 min_order=2, max_order=4, min_profile=4, min_cluster_size=4, split_ratio=0.75, ga_level="leaf",
                 cv=5, ccp_alpha=0.005, min_samples_leaf=2, population_size=30, n_generations=30, patience=8,
                 crossover_rate=0.9, mutation_rate=None, tournament_size=3, exhaustive_limit=256,
                 random_state=0, binarize=None):
        self.numeric_test = numeric_test
        self.nonlinear = nonlinear
        self.n_bins = n_bins
        self.symbolic = symbolic
        self.missing = missing
        self.unrelated_threshold = unrelated_threshold
        self.cluster_threshold = cluster_threshold
        self.stop_similarity = stop_similarity
        self.min_order = min_order
        self.max_order = max_order
        self.min_profile = min_profile
        self.min_cluster_size = min_cluster_size
        self.split_ratio = split_ratio
        self.ga_level = ga_level
        self.cv = cv
        self.ccp_alpha = ccp_alpha
        self.min_samples_leaf = min_samples_leaf
        self.population_size = population_size
        self.n_generations = n_generations
        self.patience = patience
        self.crossover_rate = crossover_rate
        self.mutation_rate = mutation_rate
        self.tournament_size = tournament_size
        self.exhaustive_limit = exhaustive_limit
        self.random_state = random_state
        self.binarize = binarize

    # ------------------------------------------------------------------ input
    def _symbolic_columns(self, X, n_cols: int, names) -> np.ndarray:
        sym = np.zeros(n_cols, dtype=bool)
        spec = self.symbolic
        if spec is None:
            return sym
        if isinstance(spec, str) and spec != "auto":
            raise ValueError(f"symbolic must be 'auto', None or a list of columns, got {spec!r}")
        if _is_dataframe(X):  # "auto", and the base of an explicit list
            for j, dt in enumerate(X.dtypes):
                sym[j] = isinstance(dt, pd.CategoricalDtype) or pd.api.types.is_object_dtype(dt) \
                    or pd.api.types.is_string_dtype(dt)
        if isinstance(spec, str):
            return sym
        for c in spec:
            if isinstance(c, (int, np.integer)):
                if not -n_cols <= int(c) < n_cols:
                    raise ValueError(f"symbolic column {c} out of range for {n_cols} columns")
                sym[int(c)] = True
            else:
                hits = [j for j, nm in enumerate(names) if nm == str(c)]
                if not hits:
                    raise ValueError(f"symbolic column {c!r} is not a column of X")
                sym[hits[0]] = True
        return sym

    def _frame_columns(self, X):
        """A DataFrame's columns: numeric values (symbolic ones as level codes), the symbolic mask,
        symbolic codes and level counts; missing values raise or are imputed."""
        names = [str(c) for c in X.columns]
        sym = self._symbolic_columns(X, X.shape[1], names)
        frame = {}
        codes_list, levels_list = [], []
        for j, col in enumerate(X.columns):
            s = X.iloc[:, j]
            miss = np.asarray(s.isna())
            if miss.any() and self.missing == "raise":
                raise ValueError(f"missing value in column {col!r} at row {int(np.flatnonzero(miss)[0])}; "
                                 "pass missing='impute' to impute (numeric: median, symbolic: own level)")
            if sym[j]:
                vals = s.astype(object).where(~miss, "<missing>").astype(str)
                codes, uniques = pd.factorize(vals, sort=True)
                codes_list.append(codes.astype(np.int64))
                levels_list.append(max(len(uniques), 1))
                frame[col] = codes.astype(np.float64)
            else:
                v = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan).copy()
                bad = np.isnan(v) & ~miss
                if bad.any():
                    i = int(np.flatnonzero(bad)[0])
                    raise ValueError(f"column {col!r} is numeric but row {i} holds {s.iloc[i]!r}; "
                                     "list it in symbolic=[...] to treat it as symbolic")
                if miss.any():
                    v[miss] = np.nanmedian(v) if (~miss).any() else 0.0
                frame[col] = v
        Xv = pd.DataFrame(frame, index=X.index)
        Xv.columns = X.columns
        return Xv, sym, codes_list, levels_list

    def _array_columns(self, X, Xv):
        """An array's symbolic columns (``symbolic`` positions) as level codes, a NaN its own
        level; NaN in numeric columns imputed by the median (``missing="impute"``)."""
        m = Xv.shape[1]
        sym = self._symbolic_columns(X, m, [str(j) for j in range(m)])
        codes_list, levels_list = [], []
        if sym.any():
            dense_sym = Xv[:, sym].toarray() if sp.issparse(Xv) else Xv[:, sym]
            for j in range(dense_sym.shape[1]):
                col = dense_sym[:, j]
                miss = np.isnan(col)
                if miss.any():
                    col = np.where(miss, np.inf, col)  # its own level
                _, codes = np.unique(col, return_inverse=True)
                codes_list.append(codes.astype(np.int64))
                levels_list.append(int(codes.max()) + 1)
        if not sp.issparse(Xv) and np.isnan(Xv).any():  # missing="impute" on an array
            Xv = Xv.copy()
            med = np.array([np.nanmedian(c) if (~np.isnan(c)).any() else 0.0 for c in Xv.T])
            r, c = np.nonzero(np.isnan(Xv))
            Xv[r, c] = med[c]
        return Xv, sym, codes_list, levels_list

    def _numeric_block(self, Xv, num_idx: np.ndarray):
        """The numeric columns (csc when sparse), binarised when ``binarize`` is set."""
        numeric = Xv[:, num_idx] if sp.issparse(Xv) else np.asarray(Xv)[:, num_idx]
        if sp.issparse(numeric):
            numeric = sp.csc_matrix(numeric)
        if self.binarize is not None:
            if sp.issparse(numeric):
                numeric = numeric.copy()
                numeric.data = (numeric.data > self.binarize).astype(np.float64)
                numeric.eliminate_zeros()
            else:
                numeric = (numeric > self.binarize).astype(np.float64)
        return numeric

    def _prepare(self, X, y, reset: bool):
        """Validate ``X``; return (numeric block, symbolic codes, levels, order, design blocks)."""
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None (class labels)")
        frame = _is_dataframe(X)
        Xv, sym, codes_list, levels_list = self._frame_columns(X) if frame else (X, None, [], [])
        Xv, y = validate_data(self, Xv, y, accept_sparse="csr", dtype=np.float64, reset=reset,
                              ensure_all_finite=True if (self.missing == "raise" or frame) else "allow-nan")
        n, m = Xv.shape
        if sp.issparse(Xv) and np.isnan(Xv.data).any():
            raise ValueError("missing values (NaN) in sparse input are not supported; impute them first")
        if sym is None:
            Xv, sym, codes_list, levels_list = self._array_columns(X, Xv)
        num_idx = np.flatnonzero(~sym)
        sym_idx = np.flatnonzero(sym)
        numeric = self._numeric_block(Xv, num_idx) if num_idx.size else None
        codes = np.column_stack(codes_list) if codes_list else None
        levels = np.asarray(levels_list, dtype=np.int64) if levels_list else None
        # design blocks for the tree: numeric column, or one-hot of a symbolic one
        blocks: list = [None] * m
        for k, j in enumerate(num_idx):
            blocks[j] = numeric[:, [k]] if sp.issparse(numeric) else numeric[:, k:k + 1]
        for k, j in enumerate(sym_idx):
            blocks[j] = np.eye(levels[k])[codes[:, k]]
        order = np.r_[num_idx, sym_idx]
        return n, m, y, sym, numeric, codes, levels, order, blocks

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None):
        """Run the four stages on ``X`` (array, sparse matrix or DataFrame) and labels ``y``.

        Parameters
        ----------
        X : array, sparse matrix or pandas.DataFrame (n_samples, n_features)
        y : array (n_samples,)
            Class labels.

        Returns
        -------
        ADHOC
            The fitted selector.
        """
        self._validate_params()
        n, m, y, sym, numeric, codes, levels, order, blocks = self._prepare(X, y, reset=True)
        check_classification_targets(y)
        if len(np.unique(y)) < 2:
            raise ValueError(f"y has a single class ({np.unique(y)[0]!r}); feature relevance needs more than one class")
        self.hierarchy_ = check_hierarchy(None, m)  # flat: ADHOC builds its own (factor_hierarchy_)
        names = [str(c) for c in getattr(self, "feature_names_in_", [f"x{i}" for i in range(m)])]
        self.symbolic_ = sym
        if sp.issparse(numeric):
            numeric = sp.csc_matrix(numeric)
            numeric.eliminate_zeros()
            numeric.sort_indices()
        cols = _DistinctColumns(numeric, codes, sym)
        canon_num = np.flatnonzero(~sym[cols.rep])
        canon_sym = np.flatnonzero(sym[cols.rep])
        numeric_c = None if canon_num.size == 0 else numeric[:, cols.pos[cols.rep[canon_num]]]
        codes_c = None if canon_sym.size == 0 else codes[:, cols.pos[cols.rep[canon_sym]]]
        levels_c = None if canon_sym.size == 0 else levels[cols.pos[cols.rep[canon_sym]]]
        dep_u = dependence_matrix(numeric_c, codes_c, levels_c, y, numeric_test=self.numeric_test,
                                  nonlinear=self.nonlinear, n_bins=int(self.n_bins), order=np.r_[canon_num, canon_sym])
        res = self._stages_2_3(dep_u, cols, names, sym)
        if n < 2:
            log.warning("ADHOC: one instance; the tree is scored on its training data")
        ga = _ga_factors(res, dep_u.constant, self.ga_level)
        self.ga_factors_ = [cols.expand(g) for g in ga]
        est = c45_tree(self.ccp_alpha, self.min_samples_leaf, self.random_state)
        result = genetic_search([blocks[r] for r in cols.rep], y, ga, cv=self.cv, estimator=est,
                                population_size=self.population_size, n_generations=self.n_generations,
                                patience=self.patience, crossover_rate=self.crossover_rate,
                                mutation_rate=self.mutation_rate, tournament_size=self.tournament_size,
                                exhaustive_limit=self.exhaustive_limit, random_state=self.random_state)
        chosen = cols.expand(list(result.subset))
        self.subset_ = tuple(int(i) for i in chosen)
        self.cv_accuracy_ = result.accuracy
        self.n_evaluations_ = result.n_evaluations
        self.search_exhaustive_ = result.exhaustive
        self.search_history_ = result.history
        self.support_ = np.zeros(m, dtype=bool)
        self.support_[chosen] = True
        self.scores_ = self.support_.astype(np.float64)
        return self

    def _stages_2_3(self, dep_u: Dependence, cols: _DistinctColumns, names: list[str], sym: np.ndarray):
        """Stage 1's matrix over all columns, then stages 2-3 on the distinct ones; sets the
        dependence and factor attributes and returns the factor analysis (distinct columns)."""
        g = cols.group_of
        M = dep_u.matrix[np.ix_(g, g)]
        T = dep_u.tests[np.ix_(g, g)].copy()
        dup = (g[:, None] == g[None, :]) & ~np.eye(g.size, dtype=bool) & (T == _T["self"])
        T[dup] = _T["duplicate"]
        self.dependence_ = Dependence(M, T, sym, dep_u.constant[g])
        self.constant_ = self.dependence_.constant
        res = factor_hierarchy(dep_u.matrix, [names[r] for r in cols.rep], constant=dep_u.constant,
                               unrelated_threshold=self.unrelated_threshold,
                               cluster_threshold=self.cluster_threshold, stop_similarity=self.stop_similarity,
                               min_order=self.min_order, max_order=self.max_order, min_profile=self.min_profile,
                               min_cluster_size=self.min_cluster_size, split_ratio=self.split_ratio)
        self.factors_ = _renumber([Factor(f.id, f.kind, f.parent, cols.expand(f.members), cols.expand(f.direct),
                                          f.order, f.similarity) for f in res.factors])
        self.factor_hierarchy_ = _factor_graph(self.factors_, names)
        lab = res.top_labels[g]
        first = {}
        for v in lab[lab >= 0]:  # number the factors by their first column
            first.setdefault(int(v), len(first))
        self.factor_labels_ = np.array([first.get(int(v), -1) for v in lab], dtype=np.int64)
        self.higher_order_ = res.orders[0] if res.orders else 1
        return res

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.missing == "impute"
        return tags


class _DistinctColumns:
    """The distinct columns in a canonical order: the stages run on them, sorted by a hash of
    their content, so the result does not depend on the column order, and exact duplicate
    columns are one feature (selected or dropped together).

    ``group_of[j]`` is column ``j``'s distinct column, ``rep[g]`` the first column of distinct
    column ``g``, ``pos[j]`` column ``j``'s position in its numeric or symbolic block.
    """

    def __init__(self, numeric, codes, sym: np.ndarray):
        m = sym.size
        num_idx, sym_idx = np.flatnonzero(~sym), np.flatnonzero(sym)
        self.pos = np.empty(m, dtype=np.int64)
        self.pos[num_idx] = np.arange(num_idx.size)
        self.pos[sym_idx] = np.arange(sym_idx.size)
        keys = [hashlib.blake2b(self._content(numeric, codes, bool(sym[j]), int(self.pos[j])), digest_size=16).digest()
                for j in range(m)]
        gid = {key: g for g, key in enumerate(sorted(set(keys)))}
        self.group_of = np.array([gid[key] for key in keys], dtype=np.int64)
        self.members_of = [np.flatnonzero(self.group_of == g) for g in range(len(gid))]
        self.rep = np.array([mem[0] for mem in self.members_of], dtype=np.int64)

    @staticmethod
    def _content(numeric, codes, symbolic: bool, k: int) -> bytes:
        if symbolic:
            return b"S" + np.ascontiguousarray(codes[:, k]).tobytes()
        # the same key for sparse and dense input: non-zero rows, then their values
        if sp.issparse(numeric):
            a, b = numeric.indptr[k], numeric.indptr[k + 1]
            rows, vals = numeric.indices[a:b], numeric.data[a:b]
        else:
            rows = np.flatnonzero(numeric[:, k])
            vals = numeric[rows, k]
        return b"N" + rows.astype(np.int64).tobytes() + b"|" + (vals.astype(np.float64) + 0.0).tobytes()

    def expand(self, idx) -> np.ndarray:
        """All columns of the distinct columns ``idx``, sorted."""
        idx = np.asarray(idx, dtype=np.int64)
        return np.sort(np.concatenate([self.members_of[g] for g in idx])) if idx.size else np.zeros(0, np.int64)


def _ga_factors(res, constant: np.ndarray, ga_level: str) -> list[np.ndarray]:
    """The factors the GA takes at most one feature from (distinct columns; see the module docstring
    of :mod:`selection.adhoc.search`), constant features removed, ordered by first member."""
    ga = []
    if ga_level == "top":
        ga += [f.members for f in res.factors if f.parent is None and f.kind == "positive-concept"]
    else:  # every concept node: the features attached to it directly, with its negative concept
        neg = {f.parent: f.members for f in res.factors if f.kind == "negative-concept"}
        ga += [np.r_[f.direct, neg.get(f.id, np.zeros(0, np.int64))].astype(np.int64)
               for f in res.factors if f.kind == "positive-concept"]
    ga += [np.array([i]) for i in np.r_[res.undefined, res.unrelated].astype(np.int64)]
    ga = [g[~constant[g]] for g in ga]
    ga = [np.sort(g) for g in ga if g.size]
    ga.sort(key=lambda g: int(g[0]))
    return ga
