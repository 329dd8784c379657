"""Short names for selectors and classifiers: the name -> class table of ``kgfs select`` / ``kgfs evaluate``.

Each entry names an estimator class and the presets that make the method (``sig`` is
``StandardSelector`` with ``measure="ig"``); every other parameter keeps the class's default. A
method's presets are written once, in the tables below; its other defaults once, in the class's
``__init__``. The tables name the classes as ``"module:Class"``, imported on first use
(:func:`kg.plugins.load_target`, as kg's registries do): looking a name up, and checking the
parameters given to it, import no estimator and no scikit-learn. Nothing the classes import imports
the registry back: the selectors, classifiers and the evaluation work without names (the
evaluation takes estimators; :mod:`selection.evaluation.specs` turns names into them).

Every entry declares its parameters through its estimator class (:mod:`selection.params`:
``_parameter_constraints``, the numpydoc ``Parameters`` section, the instance's defaults):
:meth:`Entry.parameters` lists them (importing the class). Their names, types, ranges, choices and
defaults are also declared beside the registration (:mod:`selection.declarations`, checked equal to
the classes' by the tests): :meth:`Entry.declared` reads them without importing anything, and
:meth:`Entry.check_params` checks user values against them before any work. The texts of
``kgfs methods`` are in :mod:`selection.methods_help`, the routing of ``--param`` values to the
methods of a command in :mod:`selection.param_routing`.

Examples
--------
>>> get_selector("sig")
StandardSelector()
>>> get_selector("sc", threshold=0.3)
StandardSelector(measure='correlation', threshold=0.3)
>>> get_classifier("knn"), get_classifier("svm", C=10.0)
(KNeighborsClassifier(n_neighbors=3), SVC(C=10.0, kernel='poly'))
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache

from kg.errors import KgfsError, did_you_mean
from kg.plugins import load_target
from selection.declarations import PARAMETERS
from selection.params import Parameter, check_values, constraint_text, declared_parameters

__all__ = [
    "Entry",
    "register_selector",
    "register_classifier",
    "get_selector",
    "get_classifier",
    "selector_entry",
    "classifier_entry",
    "available_selectors",
    "available_classifiers",
    "selector_kind",
]

KINDS = ("eager", "lazy", "flat")


@cache
def _takes_hierarchy(factory) -> bool:
    try:
        return "hierarchy" in inspect.signature(factory).parameters
    except (TypeError, ValueError):  # pragma: no cover - a builtin without a signature
        return False


def selector_kind(factory) -> str:
    """The kind of a selector class: ``"lazy"`` (``select_for``), ``"flat"`` (no ``hierarchy``) or ``"eager"``.

    Parameters
    ----------
    factory : class or callable
        A selector class (or a function that builds one).

    Returns
    -------
    str

    Examples
    --------
    >>> from selection.flat import FisherScore
    >>> from selection.hierarchical import SHSEL
    >>> from selection.lazy import RPV
    >>> selector_kind(RPV), selector_kind(SHSEL), selector_kind(FisherScore)
    ('lazy', 'eager', 'flat')
    """
    factory = load_target(factory) if isinstance(factory, str) else factory
    if hasattr(factory, "select_for"):
        return "lazy"
    return "eager" if _takes_hierarchy(factory) else "flat"


@dataclass(frozen=True)
class Entry:
    """A registered method: its estimator class, the presets that make it, its kind and a description.

    Parameters
    ----------
    name : str
    target : class, callable or str
        The estimator class; for a composite estimator (a ``Pipeline``), the named function that
        builds it; or its ``"module:attribute"``, imported on first use (:attr:`factory`). Called with
        the presets and the user's parameters (and ``hierarchy=`` when it takes one).
    kind : {"eager", "lazy", "flat", "classifier"}
        ``"eager"``: one feature subset for all instances (``get_support``); ``"lazy"``: a
        subset per test instance (``select_for``; not a transformer, see
        :mod:`selection.lazy.selectors`); ``"flat"``: ignores the hierarchy's structure.
    description : str
    presets : mapping
        The parameters the name sets (the class's defaults otherwise); the user's win.
    paper : str
        The paper the method comes from (default: the first citation with a year in the
        docstring of its class or module, see :func:`selection.methods_help.citation`).
    fixed : tuple of str
        Presets the user may not change (not among :meth:`parameters`).
    declaration : mapping or None
        The estimator's parameters, name -> ``(default, constraints)`` (:mod:`selection.declarations`;
        default: its entry in :data:`~selection.declarations.PARAMETERS`, else read from the class by
        :meth:`declared`, which imports it then).
    tuning : mapping
        The values a protocol that tunes the method searches, parameter -> tuple of values (the ``split``
        protocol's grid search on the training part, :mod:`selection.evaluation.split`: ``logreg``'s ``C``);
        a parameter the user sets is not tuned.

    Examples
    --------
    >>> selector_entry("rpv").kind, selector_entry("complete").kind, selector_entry("fisher").kind
    ('lazy', 'eager', 'flat')
    >>> selector_entry("rpv-ig").presets, selector_entry("rpv-ig").estimator()
    ({'relevance': 'ig'}, RPV(relevance='ig'))
    >>> [p.name for p in classifier_entry("1nn").parameters()][:3]
    ['algorithm', 'leaf_size', 'metric']
    """

    name: str
    target: Callable | str
    kind: str
    description: str = ""
    presets: Mapping = field(default_factory=dict)
    paper: str = ""
    fixed: tuple = ()
    declaration: Mapping | None = None
    tuning: Mapping = field(default_factory=dict)

    @property
    def factory(self) -> Callable:
        """The estimator class (or the function building the estimator), imported on first use."""
        return load_target(self.target) if isinstance(self.target, str) else self.target

    @property
    def role(self) -> str:
        """``"selector"`` or ``"classifier"``."""
        return "classifier" if self.kind == "classifier" else "selector"

    @property
    def takes_hierarchy(self) -> bool:
        """Whether the estimator takes the feature hierarchy (a ``hierarchy`` parameter)."""
        return _takes_hierarchy(self.factory)

    @property
    def threshold_grid(self) -> tuple | None:
        """The thresholds the protocols sweep, declared by the class (``threshold_grid``); None for other methods."""
        return getattr(self.factory, "threshold_grid", None)

    def estimator(self, hierarchy=None, **params):
        """A new, unfitted instance: the presets, then ``params`` (fixed presets win).

        Parameters
        ----------
        hierarchy : FeatureHierarchy or None
            Given to selectors that take one (a flat one when None); ignored by the others.
        **params
            Constructor parameters.

        Returns
        -------
        estimator
        """
        kw = {**self.presets, **params, **{k: self.presets[k] for k in self.fixed}}
        if self.takes_hierarchy:
            kw["hierarchy"] = hierarchy
        return self.factory(**kw)

    def parameters(self) -> list[Parameter]:
        """The parameters a user may set, declared by the estimator class (see :mod:`selection.params`).

        Returns
        -------
        list of Parameter
            Sorted by name; ``hierarchy`` (the table's) and :attr:`fixed` ones left out; the
            defaults are those of :meth:`estimator` (the presets included).

        Examples
        --------
        >>> [(p.name, p.default) for p in classifier_entry("nb").parameters()][:2]
        [('alpha', 1.0), ('binarize', 0.0)]
        """
        key = (self.kind, self.name, id(self.factory))
        if key not in _PARAMETERS:
            _PARAMETERS[key] = declared_parameters(self.estimator(), exclude=("hierarchy", *self.fixed))
        return list(_PARAMETERS[key])

    def declared(self) -> list[Parameter]:
        """The parameters a user may set, as declared beside the registration: :meth:`parameters` without
        their meanings, read without importing the estimator.

        Returns
        -------
        list of Parameter
            Sorted by name, as :meth:`parameters` (``meaning`` empty); read from the class (imported) when
            the registration declares none.

        Examples
        --------
        >>> [p.describe() for p in selector_entry("sig").declared()][2:3]
        ["measure ('correlation' or 'ig', default 'ig')"]
        """
        declaration = self.declaration
        if declaration is None and isinstance(self.target, str):
            declaration = PARAMETERS.get(self.target)
        if declaration is None:
            return [Parameter(p.name, p.allowed, p.default, "", p.constraints) for p in self.parameters()]
        skip = {"hierarchy", *self.fixed}
        out = []
        for name, (default, constraints) in sorted(declaration.items()):
            if name not in skip:
                cons = tuple(constraints)
                out.append(Parameter(name, constraint_text(cons), self.presets.get(name, default), "", cons))
        return out

    def check_params(self, params: Mapping | None) -> dict:
        """``params`` checked against :meth:`declared` (names, types, ranges, choices).

        Parameters
        ----------
        params : mapping or None

        Returns
        -------
        dict

        Raises
        ------
        KgfsError
            One line naming the parameter and listing the valid ones.

        Examples
        --------
        >>> classifier_entry("knn").check_params({"n_neighbors": 5})
        {'n_neighbors': 5}
        """
        return check_values(self.declared(), dict(params or {}), owner=f"{self.role} {self.name}")


_PARAMETERS: dict[tuple, list[Parameter]] = {}

_SHSEL_PAPER = "Ristoski & Paulheim, Feature Selection in Hierarchical Feature Spaces (Discovery Science 2014), s.5.3"
_RPV_PAPER = "da Silva, Plastino & Freitas, Prioritizing Positive Feature Values (Applied Intelligence 2020)"
#: ``shsel-rpv``'s presets (see :mod:`selection.hierarchical.shsel`).
_RPV_SHSEL = {"relevance": "ig", "prune": True, "prune_compare": ">", "path_rule": "all", "ig_unit": "bits"}

# the estimators, imported on first use (Entry.factory)
_SHSEL = "selection.hierarchical.shsel:SHSEL"
_STANDARD = "selection.hierarchical.standard:StandardSelector"
_TSEL = "selection.hierarchical.tsel:TSEL"
_GTD = "selection.hierarchical.greedy_top_down:GreedyTopDown"
_HILL_CLIMBING = "selection.hierarchical.hill_climbing:HillClimbing"
_COMPLETE = "selection.hierarchical.complete:CompleteFS"
_RPV = "selection.lazy.selectors:RPV"
_HIP = "selection.lazy.selectors:HIP"
_MR = "selection.lazy.selectors:MR"
_ALL_POS = "selection.lazy.selectors:AllPositive"
_ALL_NEG = "selection.lazy.selectors:AllNegative"
_GTD_RPV = "selection.hierarchical.greedy_top_down:GreedyTopDownRPV"
_TSEL_RPV = "selection.hierarchical.tsel:TSELRPV"
_CFS = "selection.flat.cfs:CFS"
_RELIEFF = "selection.flat.relieff:ReliefF"
_MRMR = "selection.flat.mrmr:MRMR"
_FISHER = "selection.flat.fisher:FisherScore"
_GA_TREE = "selection.class_hierarchy.ga_tree.selector:GATreeSelector"
_ADHOC = "selection.adhoc.selector:ADHOC"
_BNB = "sklearn.naive_bayes:BernoulliNB"
_KNN = "sklearn.neighbors:KNeighborsClassifier"
_SVC = "sklearn.svm:SVC"
_LOGREG = "sklearn.linear_model:LogisticRegression"
#: ``logreg``'s C, searched by the split protocol (strongest regularisation first: ties go to it)
LOGREG_C = (0.01, 0.1, 1.0, 10.0, 100.0)
_LOGREG_TFIDF = "selection.linear:TfidfLogisticRegression"
#: ``logreg-tfidf``'s C: its rows have unit length, so weaker regularisation than ``logreg``'s is useful
LOGREG_TFIDF_C = (1.0, 10.0, 100.0, 1000.0, 10000.0)
_LAZY_NB = "selection.lazy.classifiers:LazyNaiveBayes"
_LAZY_KNN = "selection.lazy.classifiers:LazyKNN"
_LINEAR_SVM = "selection.class_hierarchy.tree:default_node_classifier"
_TREE = "selection.adhoc.search:c45_tree"

_SELECTORS: dict[str, Entry] = {e.name: e for e in (
    # the SHSEL paper (Ristoski & Paulheim 2014) and its baselines
    Entry("shsel-ig", _SHSEL, "eager", "initialSHSEL IG: drop features whose IG is similar to a parent's",
          {"relevance": "ig", "prune": False}),
    Entry("shsel-c", _SHSEL, "eager", "initialSHSEL C: drop features correlated with a parent",
          {"relevance": "correlation", "prune": False}),
    Entry("shsel-ig-prune", _SHSEL, "eager", "pruneSHSEL IG: initial selection by IG, then per-path IG pruning",
          {"relevance": "ig", "prune": True}),
    Entry("shsel-c-prune", _SHSEL, "eager", "pruneSHSEL C: initial selection by correlation, then pruning",
          {"relevance": "correlation", "prune": True}),
    Entry("sig", _STANDARD, "flat", "SIG: standard selection by information gain (threshold, k or percentile)",
          {"measure": "ig"}),
    Entry("sc", _STANDARD, "flat",
          "SC: standard selection by correlation with the class (threshold, k or percentile)",
          {"measure": "correlation"}),
    Entry("tsel-lift", _TSEL, "eager", "TSEL Lift: most representative feature per path by lift, then chi-square",
          {"measure": "lift"}),
    Entry("tsel-ig", _TSEL, "eager", "TSEL IG: most representative feature per path by IG, then chi-square",
          {"measure": "ig"}),
    Entry("greedy-top-down", _GTD, "eager",
          "GreedyTopDown (SHSEL paper's reading): best gain ratio first, dropping ancestors and descendants"),
    Entry("hill-climbing", _HILL_CLIMBING, "eager",
          "HillClimbing (Wang et al. 2003): bottom-up generalisation scored by kNN purity, k=10"),
    Entry("complete", _COMPLETE, "eager", "CompleteFS: all features (no selection)"),
    # the RPV paper (da Silva, Plastino & Freitas 2020): lazy selectors and its readings of GTD, TSEL, SHSEL
    Entry("rpv", _RPV, "lazy", "RPV: relevant positive values, LazyR (da Silva et al. 2020)"),
    Entry("rpv-ig", _RPV, "lazy", "RPV with information gain as relevance", {"relevance": "ig"}),
    Entry("rpv-r", _RPV, "lazy", "RPV with the R measure (Eq. 1) as relevance", {"relevance": "r"}),
    Entry("hip", _HIP, "lazy", "HIP: most specific positive and most general negative values (Wan & Freitas 2015)"),
    Entry("mr", _MR, "lazy", "MR: most relevant value (R) on each path (Wan & Freitas 2015)"),
    Entry("all-pos", _ALL_POS, "lazy", "All-Pos: every positive value of the test instance"),
    Entry("all-neg", _ALL_NEG, "lazy", "All-Neg: every negative value of the test instance"),
    Entry("gtd-rpv", _GTD_RPV, "eager",
          "GTD as the RPV paper (da Silva et al. 2020) ran it: the features with the largest gain ratio of each "
          "leaf-to-root path"),
    Entry("tsel-rpv", _TSEL_RPV, "eager",
          "TSEL as the RPV paper (da Silva et al. 2020) ran it: the most specific of the paths' highest-lift "
          "features (no chi-square step)"),
    Entry("shsel-rpv", _SHSEL, "eager",
          "SHSEL as the RPV paper (da Silva et al. 2020) ran it: IG similarity t = 0.99, then keep the features "
          "whose IG is higher than the average of every path they lie on", _RPV_SHSEL),
    # flat filters
    Entry("cfs", _CFS, "flat", "CFS: correlation-based feature selection, best-first (WEKA defaults)"),
    Entry("relieff", _RELIEFF, "flat", "ReliefF: k=10 neighbours, weight > 0.01"),
    Entry("mrmr", _MRMR, "flat", "mRMR (MID), k features"),
    Entry("fisher", _FISHER, "flat", "Fisher score, top k features",
          paper="Duda, Hart & Stork, Pattern Classification (2001); a baseline of Zhao et al. 2017"),
    # other papers
    Entry("ga-tree", _GA_TREE, "eager",
          "GA joint feature selection and hierarchical classifier design (Freeman et al. 2011); support = features "
          "of the best tree (count-based RELIEF by default)",
          paper="Freeman, Kulic & Basir, Joint Feature Selection and Hierarchical Classifier Design (IEEE SMC 2011)"),
    Entry("adhoc", _ADHOC, "flat",
          "ADHOC (Richeldi & Lanzi 1996): factors from higher-order correlation, GA with at most one feature per "
          "factor, entropy decision tree fitness; builds its own hierarchy"),
)}

_CLASSIFIERS: dict[str, Entry] = {e.name: e for e in (
    Entry("nb", _BNB, "classifier", "Bernoulli Naive Bayes, Laplace smoothing", {"alpha": 1.0},
          paper=f"{_SHSEL_PAPER}; {_RPV_PAPER}, s.5.2"),
    Entry("knn", _KNN, "classifier", "k-NN, k=3, Euclidean", {"n_neighbors": 3}, paper=_SHSEL_PAPER),
    Entry("1nn", _KNN, "classifier", "1-NN, Euclidean", {"n_neighbors": 1},
          paper=f"{_RPV_PAPER}, s.5.2"),
    Entry("svm", _SVC, "classifier", "SVM, polynomial kernel", {"kernel": "poly"}, paper=_SHSEL_PAPER),
    Entry("logreg", _LOGREG, "classifier", "logistic regression (L2, lbfgs); the split protocol tunes C",
          {"max_iter": 5000}, tuning={"C": LOGREG_C},
          paper="the classifier of kgbench's feature baseline (Bloem et al., kgbench, ESWC 2021)"),
    Entry("logreg-tfidf", _LOGREG_TFIDF, "classifier",
          "logistic regression on TF-IDF-weighted, L2-normalised features (rare features weigh more); the split "
          "protocol tunes C", tuning={"C": LOGREG_TFIDF_C},
          paper="the term weighting of Salton & Buckley, Term-weighting approaches in automatic text retrieval "
                "(1988), over the feature table"),
    Entry("lazy-nb", _LAZY_NB, "classifier", "Bernoulli NB scoring each instance on its selected features (lazy)",
          paper=_RPV_PAPER),
    Entry("lazy-1nn", _LAZY_KNN, "classifier", "1-NN, Euclidean over each instance's selected features (lazy)",
          {"n_neighbors": 1}, paper=_RPV_PAPER, fixed=("n_neighbors",)),
    Entry("lazy-knn", _LAZY_KNN, "classifier", "k-NN (k=3), Euclidean over each instance's selected features (lazy)",
          {"n_neighbors": 3}, paper=_RPV_PAPER),
    Entry("svm-linear", _LINEAR_SVM, "classifier", "linear SVM (LinearSVC, standardised features)",
          paper="Zhao et al., Hierarchical Feature Selection with Recursive Regularization (IJCAI 2017)"),
    Entry("tree", _TREE, "classifier",
          "decision tree, entropy criterion, cost-complexity pruning (stand-in for C4.5)",
          paper="Richeldi & Lanzi, Performing Effective Feature Selection by Investigating the Deep Structure of the "
                "Data (KDD 1996): ADHOC's C4.5 wrapper"),
)}


def _checked_factory(name: str, factory) -> None:
    if isinstance(factory, str) and ":" in factory:
        return  # "module:attribute", imported on first use
    if not callable(factory) or getattr(factory, "__name__", "") == "<lambda>":
        raise TypeError(f"register {name!r} with its estimator class (and presets=...) or a named function "
                        f"that builds the estimator, not {factory!r}")


def register_selector(name: str, factory, *, kind: str | None = None, description: str = "",
                      presets: Mapping | None = None, paper: str = "", fixed: tuple = (),
                      parameters: Mapping | None = None, tuning: Mapping | None = None) -> Entry:
    """Register a selector class under ``name`` (``kgfs select --selector NAME``, names in the evaluation).

    Parameters
    ----------
    name : str
    factory : class, callable or str
        The selector class, or a named function building the selector (not a lambda: the
        presets go in ``presets``), or its ``"module:attribute"`` (imported on first use).
    kind : {"eager", "lazy", "flat"}, optional
        Default :func:`selector_kind` (which imports a ``"module:attribute"``).
    description : str
    presets : mapping, optional
    paper : str, optional
    fixed : tuple of str, optional
        See :class:`Entry`.
    parameters : mapping, optional
        Its parameters, name -> ``(default, constraints)`` (:mod:`selection.declarations`), for checks that
        import nothing; default: read from the class when first checked.
    tuning : mapping, optional
        Parameter -> values the split protocol searches (see :class:`Entry`; a threshold method's threshold is
        searched without it).

    Returns
    -------
    Entry

    Examples
    --------
    >>> from selection.hierarchical import CompleteFS
    >>> register_selector("example-all", CompleteFS).kind
    'eager'
    >>> get_selector("example-all")
    CompleteFS()
    >>> del _SELECTORS["example-all"]  # leave the registry as it was
    """
    _checked_factory(name, factory)
    kind = selector_kind(factory) if kind is None else kind
    if kind not in KINDS:
        raise ValueError(f"selector kind must be eager, lazy or flat, got {kind!r}")
    entry = Entry(name, factory, kind, description, dict(presets or {}), paper, tuple(fixed),
                  None if parameters is None else dict(parameters), dict(tuning or {}))
    _SELECTORS[name] = entry
    return entry


def register_classifier(name: str, factory, *, description: str = "", presets: Mapping | None = None,
                        paper: str = "", fixed: tuple = (), parameters: Mapping | None = None,
                        tuning: Mapping | None = None) -> Entry:
    """Register a classifier class under ``name``.

    Parameters
    ----------
    name : str
    factory : class, callable or str
        The classifier class, or a named function building it (e.g. a ``Pipeline``), or its
        ``"module:attribute"``.
    description : str
    presets : mapping, optional
    paper : str, optional
    fixed : tuple of str, optional
        See :class:`Entry`.
    parameters : mapping, optional
        See :func:`register_selector`.
    tuning : mapping, optional
        Parameter -> values the split protocol searches (see :class:`Entry`).

    Returns
    -------
    Entry

    Examples
    --------
    >>> from sklearn.naive_bayes import BernoulliNB
    >>> _ = register_classifier("example-bnb", BernoulliNB, presets={"alpha": 0.5})
    >>> get_classifier("example-bnb"), get_classifier("example-bnb", alpha=2.0)
    (BernoulliNB(alpha=0.5), BernoulliNB(alpha=2.0))
    >>> del _CLASSIFIERS["example-bnb"]  # leave the registry as it was
    """
    _checked_factory(name, factory)
    entry = Entry(name, factory, "classifier", description, dict(presets or {}), paper, tuple(fixed),
                  None if parameters is None else dict(parameters), dict(tuning or {}))
    _CLASSIFIERS[name] = entry
    return entry


def _lookup(table: dict[str, Entry], name: str, what: str) -> Entry:
    try:
        return table[name]
    except (KeyError, TypeError):
        raise KgfsError(
            f"unknown {what} {name!r}{did_you_mean(name, table)}; available: {', '.join(sorted(table)) or '(none)'}"
        ) from None


def selector_entry(name: str | Entry) -> Entry:
    """The registry entry of selector ``name`` (a :class:`KgfsError` lists the known ones).

    Parameters
    ----------
    name : str or Entry
        A name, or an entry already looked up (returned as it is: a value is resolved once, by the first function
        that takes it, and passed on resolved).

    Returns
    -------
    Entry

    Examples
    --------
    >>> selector_entry("shsel-ig-prune").threshold_grid is not None
    True
    """
    return name if isinstance(name, Entry) else _lookup(_SELECTORS, name, "selector")


def classifier_entry(name: str | Entry) -> Entry:
    """The registry entry of classifier ``name`` (a :class:`KgfsError` lists the known ones).

    Parameters
    ----------
    name : str or Entry
        A name, or an entry already looked up (returned as it is).

    Returns
    -------
    Entry

    Examples
    --------
    >>> classifier_entry("nb").kind
    'classifier'
    """
    return name if isinstance(name, Entry) else _lookup(_CLASSIFIERS, name, "classifier")


def get_selector(name: str | Entry, hierarchy=None, **params):
    """A new, unfitted selector registered as ``name`` over ``hierarchy``.

    Parameters
    ----------
    name : str or Entry
    hierarchy : FeatureHierarchy, None or "from_input"
        Given to selectors that take one (flat selectors do not); ``"from_input"``: the hierarchy that
        ``X`` carries when fitted (the output of :class:`kg.features.KGFeatures` in a ``Pipeline``).
    **params
        Constructor parameters.

    Returns
    -------
    estimator

    Examples
    --------
    >>> get_selector("rpv-ig")
    RPV(relevance='ig')
    """
    return selector_entry(name).estimator(hierarchy, **params)


def get_classifier(name: str | Entry, **params):
    """A new, unfitted classifier registered as ``name``.

    Parameters
    ----------
    name : str or Entry
    **params
        Constructor parameters.

    Returns
    -------
    estimator

    Examples
    --------
    >>> get_classifier("lazy-1nn")
    LazyKNN()
    """
    return classifier_entry(name).estimator(**params)


def available_selectors() -> dict[str, Entry]:
    """Every registered selector, by name.

    Returns
    -------
    dict of str -> Entry

    Examples
    --------
    >>> {"rpv", "hip", "mr", "complete"} <= set(available_selectors())
    True
    """
    return dict(sorted(_SELECTORS.items()))


def available_classifiers() -> dict[str, Entry]:
    """Every registered classifier, by name.

    Returns
    -------
    dict of str -> Entry

    Examples
    --------
    >>> {"nb", "lazy-nb"} <= set(available_classifiers())
    True
    """
    return dict(sorted(_CLASSIFIERS.items()))
