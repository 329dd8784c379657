"""A scikit-learn transformer from a column of entities or texts to the closed hierarchical table.

:class:`KGFeatures` puts the knowledge-graph step inside a scikit-learn ``Pipeline``: ``fit`` looks the
training values up in a knowledge source (the DBpedia dump index, a SPARQL endpoint, a dump, an
:class:`rdflib.Graph`, or an ontology + annotation files for genes:
:class:`kg.ontology.source.OntologyAnnotations`), builds the feature hierarchy, keeps the features of
at least ``min_support`` training rows and remembers them; ``transform`` gives the sparse 0/1 table
over those columns, closed under the hierarchy, for any values. Its output carries the hierarchy
(:class:`kg.table.HierarchicalCSR`, or ``df.attrs["hierarchy"]`` of the pandas output), so a
selector built with ``hierarchy="from_input"`` (every hierarchical selector of :mod:`selection`)
reads it: the generation settings (``features``, ``category_depth``, ``min_support``) are tuned in
``GridSearchCV`` together with the selector's.

One code path for every source: :func:`kg.rdf.table.link_entities` (IRIs, ``Q42``-style ids,
or texts through an annotator), :func:`kg.rdf.table.fetch_facts`,
:func:`kg.rdf.table.build_hierarchy` and :meth:`kg.table.FeatureTable.from_facts` (closure and
``min_support``).

Look-ups are paid once. scikit-learn's ``clone`` deep-copies the parameters that are not
estimators, which would copy a source and its in-memory answers at every fold and parameter
setting of a grid. :class:`KGFeatures` therefore clones itself sharing ``source``, ``annotator``
and ``memory`` (``__sklearn_clone__``: a source is a handle on a graph, not a value), and asks the
source through :class:`kg.lookups.SharedLookups`, whose answers this process keeps per source object
(by identity, forgotten with it): each entity's types (categories) and each class's (category's)
parents; a category walk of depth 3 reuses the parents a walk of depth 2 fetched. ``memory`` (a
folder or a :class:`joblib.Memory`) also keeps the answers on disk, as JSON rows of an SQLite file
keyed by the source's ``describe()``, for the worker processes of ``GridSearchCV(n_jobs=2)`` and for
later runs (nothing is pickled).

Examples
--------
>>> import rdflib
>>> g = rdflib.Graph().parse(format="turtle", data='''
... @prefix dbo: <http://dbpedia.org/ontology/> . @prefix dbr: <http://dbpedia.org/resource/> .
... @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
... dbr:Kobe a dbo:BasketballPlayer . dbr:Messi a dbo:SoccerPlayer . dbr:Lyon a dbo:City .
... dbo:BasketballPlayer rdfs:subClassOf dbo:Athlete . dbo:SoccerPlayer rdfs:subClassOf dbo:Athlete .''')
>>> kg = KGFeatures(g, min_support=2)
>>> X = kg.fit_transform(["http://dbpedia.org/resource/Kobe", "http://dbpedia.org/resource/Messi",
...                       "http://dbpedia.org/resource/Lyon"])
>>> kg.get_feature_names_out().tolist(), X.toarray().tolist()
(['http://dbpedia.org/ontology/Athlete'], [[1.0], [1.0], [0.0]])
>>> kg.transform(["http://dbpedia.org/resource/Nobody"]).toarray().tolist(), kg.n_unknown_transform_
([[0.0]], 1)
"""

from __future__ import annotations

import copy
import logging
import re
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn import get_config
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from kg.errors import ParameterError, param
from kg.lookups import SharedLookups, reported_cycles, shared_lookups
from kg.rdf.corpus import Corpus
from kg.rdf.kinds import FeatureSpec, missing_role
from kg.rdf.relations import FEATURE_KINDS, RELATION_KINDS
from kg.rdf.table import build_hierarchy, fetch_facts, hierarchy_nodes, link_entities
from kg.sklearn_compat import Interval, StrOptions
from kg.table import FeatureTable, HierarchicalCSR

__all__ = ["FEATURE_KINDS", "KGFeatures"]

log = logging.getLogger(__name__)

_WHITESPACE = re.compile(r"[ \t\n\r\f\v]")  # ASCII: an IRI may hold a no-break space


# ------------------------------------------------------------------------------------------- input
def _column(X) -> tuple[list, object]:
    """The values of a one-column input, and its index (a pandas index, or None)."""
    index = getattr(X, "index", None)
    if hasattr(X, "columns") and hasattr(X, "iloc"):  # a DataFrame
        if X.shape[1] != 1:
            raise ValueError(f"KGFeatures takes one column of entities or texts, got a DataFrame with {X.shape[1]} "
                             "columns; pass one (df[['entity']] or df['entity'])")
        values = X.iloc[:, 0].tolist()
    elif hasattr(X, "iloc"):  # a Series
        values = X.tolist()
    else:
        if sp.issparse(X):
            raise TypeError("KGFeatures takes a column of entities or texts, got a sparse matrix")
        arr = np.asarray(X, dtype=object)
        if arr.ndim == 2 and arr.shape[1] == 0:
            raise ValueError(f"0 feature(s) (shape={arr.shape}) while a minimum of 1 is required: KGFeatures takes "
                             "one column of entities or texts")
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        if arr.ndim != 1:
            raise ValueError(f"KGFeatures takes one column of entities or texts (a list, a 1-D array, a Series or "
                             f"a one-column DataFrame), got an array of shape {arr.shape}")
        values = arr.tolist()
        index = None
    if not values:
        raise ValueError("KGFeatures got no values (0 rows)")
    bad = next((v for v in values if isinstance(v, complex | np.complexfloating)), None)
    if bad is not None:
        raise ValueError(f"Complex data not supported: {bad!r} is neither an entity nor a text")
    return values, index


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and v != v) or (isinstance(v, str) and not v.strip())


# ------------------------------------------------------------------------------------------- transformer
class KGFeatures(TransformerMixin, BaseEstimator, auto_wrap_output_keys=None):
    """Closed hierarchical 0/1 features of a column of entities (IRIs, ids) or texts, from a knowledge source.

    Parameters
    ----------
    source : KnowledgeSource or rdflib.Graph
        :class:`~kg.rdf.sources.index.IndexSource` (the dump index), :class:`~kg.rdf.sources.sparql.SparqlSource`,
        :class:`~kg.rdf.sources.dump.DumpSource`, :class:`~kg.rdf.sources.rdflib_graph.RdflibSource` (or an
        ``rdflib.Graph``, wrapped in one), :class:`~kg.ontology.source.OntologyAnnotations` (genes), or
        any object with the same four methods. Shared, not copied, by :func:`sklearn.base.clone`.
    features : {"types", "categories", "relations", "qualified-relations"} or list of them
        Instance-of classes (``rdf:type`` + ``rdfs:subClassOf``; GO terms + ``is_a``), categories
        (``dct:subject`` + ``skos:broader``, followed ``category_depth`` levels up), relations (has a
        property; qualified: to an object of a class, :mod:`kg.rdf.relations`), or several
        (``["types", "categories"]``: one table over the union, each kind under its own hierarchy, the
        ids prefixed by their kind as :mod:`kg.rdf.kinds` says).
    input : {"auto", "entities", "texts"}
        What the values are. ``"auto"``: entities (IRIs, short ids such as ``Q42``, gene ids) when no
        value contains whitespace, texts otherwise (texts need ``annotator``). Missing values (None,
        NaN, empty strings) give empty rows.
    annotator : Annotator, optional
        Finds the entities of texts (:class:`~kg.rdf.annotators.lexicon.LexiconAnnotator`,
        :class:`~kg.rdf.annotators.spotlight.SpotlightAnnotator`). Shared by clones.
    vocabulary : str or Vocabulary, optional
        For an ``rdflib.Graph`` source: its predicates (``"dbpedia"``, the default, or ``"wikidata"``).
        Short ids (``Q42``) are expanded by the source's vocabulary.
    min_support : int
        Keep the features of at least this many training rows (after closure; the kept set stays
        closed upward).
    category_depth : int or None
        ``skos:broader`` levels to follow for ``features="categories"`` (``None``: unbounded).
    type_namespaces : sequence of str, optional
        For an ``rdflib.Graph`` source: the type namespaces (``dbo``, ``yago``, ... or prefixes).
    memory : str, path or joblib.Memory, optional
        Also keep the source's answers on disk in this folder (``joblib.Memory``: its location), for
        the worker processes of a parallel grid search and for later runs. Shared by clones.
    direction : {"out", "in", "both"}
        Relations: the entity as subject, as object, or both.
    exclude_properties : sequence of str
        Relations: predicates kept out of the features with their subproperties (IRIs, prefixed names,
        Wikidata's ``P106``): exclude the one the labels come from.
    depth : int, optional
        ``features="paths"``: the longest path, 1 to 3 (default 2; :mod:`kg.rdf.paths`). Their
        generation keeps only the features of at least ``min_support`` training rows at every level.
    values : {"binary", "count"}
        Relations and paths: the output holds how many relations (walks) stand behind each cell instead
        of 1 (the hierarchical selectors read their presence).

    Attributes
    ----------
    vocabulary_ : dict of str -> int
        Feature id -> column.
    hierarchy_ : FeatureHierarchy
        The DAG over exactly the output columns, in column order.
    feature_labels_ : ndarray of str
        A readable label per column: the ontology's term name or the graph's label; a relation or a path by its
        parts' labels (``out: occupation | author``); without a label, the IRI's local name (``out:P106|Q36180``).
    n_unknown_ : int
        Training rows without any feature (missing value, not an IRI, or unknown to the source).
    n_unknown_transform_ : int
        The same for the last :meth:`transform`: such rows are empty, never an error.
    fit_report_ : dict
        ``n_entities``, ``entities_without_features``, ``removed_cycle_edges``, ``merged_cycles``
        (merged feature -> its members), ``n_features_found``.

    Raises
    ------
    kg.errors.ParameterError
        At :meth:`fit`, before any look-up: the source cannot give a kind of ``features`` (a vocabulary without
        category predicates, as Wikidata's, asked for categories; no relation predicates, or a source without
        ``relations()``, asked for relations). The message names ``features=...``, what is missing and what to
        pass instead. ``GridSearchCV`` turns it into a NaN score unless given ``error_score="raise"``.

    Notes
    -----
    An :class:`~kg.rdf.sources.index.IndexSource` made with a plain vocabulary (``WIKIDATA``) gives relation
    features too: it reads (and builds, once) its vocabulary's relation-indexing segments of the dump index.

    A cycle of the hierarchy is reported (a :class:`~kg.errors.HierarchyCycleWarning` and a ``logging``
    warning) by the first fit that meets it on a source object, not by later fits on the same object (a grid's
    clones share it; :func:`kg.lookups.reported_cycles`) nor by :meth:`transform`; ``fit_report_`` records the
    cycles of every fit.

    At transform time each value's ancestors come from the source (cached), so a new entity whose
    class was not seen in training still gets the fitted ancestors of that class. Category cycles
    are broken per call, cycles of subclass-of (Wikidata's P279) and of the relation kinds merged into one
    feature holding every member (:meth:`kg.rdf.kinds.FeatureSpec.on_cycle`,
    :func:`kg.rdf.table.build_hierarchy`): a value of a member class gets that feature.

    ``set_output(transform="pandas")`` returns a sparse DataFrame (columns: the feature ids; index:
    the input's, when it had one) with ``df.attrs["hierarchy"]``. scikit-learn's own output
    wrapper refuses sparse output, so this class implements ``set_output`` itself; the global
    ``sklearn.set_config(transform_output="pandas")`` is honoured too.

    Examples
    --------
    Genes with the bundled GO data, in a Pipeline with a selector that reads the hierarchy:

    >>> from pathlib import Path
    >>> import pandas as pd
    >>> from sklearn.naive_bayes import BernoulliNB
    >>> from sklearn.pipeline import Pipeline
    >>> from kg.ontology import OntologyAnnotations
    >>> from selection.hierarchical import SHSEL
    >>> d = Path(__file__).resolve().parents[1] / "datasets" / "bundled" / "DM-BP"
    >>> genes = pd.read_csv(d / "labels.tsv", sep="\\t", dtype=str)
    >>> go = OntologyAnnotations(d / "go-2014-06-13-subset.obo.gz", d / "annotations.tsv")
    >>> pipe = Pipeline([("kg", KGFeatures(go, min_support=3)), ("select", SHSEL(hierarchy="from_input")),
    ...                  ("clf", BernoulliNB())]).fit(genes["gene"], genes["label"])
    >>> pipe["select"].hierarchy_ is pipe["kg"].hierarchy_, pipe["kg"].hierarchy_.n_nodes
    (True, 698)
    """

    _parameter_constraints = {
        "features": [StrOptions(set(FEATURE_KINDS)), list, tuple],
        "input": [StrOptions({"auto", "entities", "texts"})],
        "min_support": [Interval(Integral, 1, None, closed="left")],
        "category_depth": [Interval(Integral, 0, None, closed="left"), None],
        "source": "no_validation", "annotator": "no_validation", "vocabulary": "no_validation",
        "type_namespaces": "no_validation", "memory": "no_validation",
        "direction": [StrOptions({"out", "in", "both"})], "exclude_properties": [list, tuple],
        "depth": [Interval(Integral, 1, 3, closed="both"), None], "values": [StrOptions({"binary", "count"})],
    }

    #: Parameters that are handles (a graph, an annotator, a cache): shared by clones, never copied.
    _shared_params = ("source", "annotator", "memory")

    def __init__(self, source=None, features="types", input="auto", annotator=None,  # noqa: A002 - sklearn's name
                 vocabulary=None, min_support=1, category_depth=2, type_namespaces=None, memory=None,
                 direction="out", exclude_properties=(), depth=None, values="binary"):
        self.source = source
        self.features = features
        self.input = input
        self.annotator = annotator
        self.vocabulary = vocabulary
        self.min_support = min_support
        self.category_depth = category_depth
        self.type_namespaces = type_namespaces
        self.memory = memory
        self.direction = direction
        self.exclude_properties = exclude_properties
        self.depth = depth
        self.values = values

    # ------------------------------------------------------------------ scikit-learn plumbing
    def __sklearn_clone__(self):
        """A clone that shares the source, the annotator and the disk memory (see the module doc)."""
        params = self.get_params(deep=False)
        new = type(self)(**{k: v if k in self._shared_params else clone(v, safe=False) for k, v in params.items()})
        if hasattr(self, "_sklearn_output_config"):
            new._sklearn_output_config = copy.deepcopy(self._sklearn_output_config)
        return new

    def set_output(self, *, transform=None):
        """Choose the output of :meth:`transform`: ``"default"`` (a csr matrix) or ``"pandas"`` (a sparse DataFrame).

        Parameters
        ----------
        transform : {"default", "pandas"} or None
            None leaves the choice as it is.

        Returns
        -------
        self
        """
        if transform is None:
            return self
        if transform not in ("default", "pandas"):
            raise ValueError(f"KGFeatures output is sparse: transform must be 'default' or 'pandas', got {transform!r}")
        self._sklearn_output_config = {"transform": transform}
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = True  # a one-column array or DataFrame
        tags.input_tags.one_d_array = True
        tags.input_tags.string = True
        tags.requires_fit = True
        return tags

    # ------------------------------------------------------------------ the work
    def _kinds(self) -> tuple[str, ...]:
        kinds = (self.features,) if isinstance(self.features, str) else tuple(self.features)
        bad = [k for k in kinds if k not in FEATURE_KINDS]
        if not kinds or bad or len(set(kinds)) != len(kinds):
            raise ValueError(f"features must be one of {', '.join(FEATURE_KINDS)} or a list of them without repeats, "
                             f"got {self.features!r}")
        return kinds

    def _what(self) -> str:
        return " or ".join(self._kinds())

    def _lookups(self) -> SharedLookups:
        if self.source is None:
            raise ValueError("KGFeatures needs a source (a knowledge source, an rdflib.Graph or "
                             "kg.ontology.OntologyAnnotations)")
        return shared_lookups(self.source, vocabulary=self.vocabulary, type_namespaces=self.type_namespaces,
                              memory=self.memory)

    def _check_source(self, lookups: SharedLookups) -> None:
        """Raise a :class:`~kg.errors.ParameterError` when the source cannot give every kind of ``features``, before
        anything is looked up (in ``GridSearchCV`` an error at fit is a NaN score unless ``error_score="raise"``)."""
        src = lookups.source
        if src.stored:  # a run's stored answers: whatever kinds it stored
            return
        v, kinds = src.vocabulary, self._kinds()
        name = self._source_name()
        of_vocabulary = None if v is None else f"{name}'s vocabulary {v.name!r}"

        def missing(kind: str) -> tuple[str, str] | None:
            """What the source lacks to give ``kind`` (said of it) and what would have it, or None."""
            role = None if v is None else missing_role(v, kind)
            if role == "subject":
                return f"{of_vocabulary} has no category predicates (its `subject` is empty)", \
                    "a vocabulary with `subject` predicates"
            if role == "instance_of":
                return f"{of_vocabulary} has no instance-of predicates (its `instance_of` is empty)", \
                    "a vocabulary with `instance_of` predicates"
            if kind in RELATION_KINDS and not (hasattr(src, "relations") and hasattr(src, "property_edges")):
                return f"{name} does not answer relation questions (it has no relations() and " \
                    "property_edges())", "a source that answers them (IndexSource, DumpSource, SparqlSource or " \
                    "RdflibSource)"
            if role == "relations":
                return f"{of_vocabulary} names no relation predicates (its `relations` namespaces are empty)", \
                    "a vocabulary with `relations` namespaces (in a preset file, or Vocabulary(relations=...))"
            return None

        lacking = next(((k, m) for k in kinds if (m := missing(k)) is not None), None)
        if lacking is None:
            return
        kind, (what, other) = lacking
        keep = [k for k in kinds if missing(k) is None] or [k for k in ("types",) if missing(k) is None]
        instead = f"{param('features', keep[0] if len(keep) == 1 else keep)}, or " if keep else ""
        asked = self.features if isinstance(self.features, str) else list(self.features)
        needed = f" ({kind!r} needs them)" if len(kinds) > 1 else ""
        raise ParameterError(f"{param('features', asked)}: {what}{needed}; pass {instead}{other}")

    def _kind(self, values: list) -> str:
        if self.input != "auto":
            kind = self.input
        else:
            kind = "texts" if any(isinstance(v, str) and _WHITESPACE.search(v.strip()) for v in values) else "entities"
        if kind == "texts" and self.annotator is None:
            example = next(v for v in values if isinstance(v, str) and _WHITESPACE.search(v.strip())) \
                if self.input == "auto" else values[0]
            raise ValueError(f"KGFeatures got texts (e.g. {str(example)[:60]!r}) but no annotator; pass "
                             "annotator=... or input='entities'")
        return kind

    def _row_entities(self, values: list, lookups: SharedLookups) -> dict[str, list[str]]:
        """Row position (as str) -> entity ids."""
        ids = [str(i) for i in range(len(values))]
        kind = self._kind(values)
        if kind == "entities" and not lookups.entity_iris:
            return {i: ([] if _missing(v) else [str(v).strip()]) for i, v in zip(ids, values)}
        if kind == "texts":
            corpus = Corpus(ids=ids, texts=["" if _missing(v) else str(v) for v in values])
            entities, _ = link_entities(corpus, self.annotator)
            return entities
        expand = getattr(lookups.vocabulary, "expand_entity", None)
        corpus = Corpus(ids=ids, entities=[[] if _missing(v) else [str(v).strip()] for v in values])
        entities, _ = link_entities(corpus, None, expand=expand)
        return entities

    def _facts(self, X, allowed=None):
        values, index = _column(X)
        lookups = self._lookups()
        rows = self._row_entities(values, lookups)
        spec = self._spec(lookups)
        facts, edges, report = fetch_facts(rows, lookups, features=spec, allowed=allowed)
        return list(rows), {i: set(facts.get(i, ())) for i in rows}, edges, report, index, rows, spec

    def _spec(self, lookups) -> FeatureSpec:
        """The kinds and the relations' options (the excluded predicates expanded by the source's vocabulary;
        the paths pruned at ``min_support`` as they are generated)."""
        expand = getattr(lookups.vocabulary, "expand_property", None)
        exclude = [expand(p, "exclude_properties") if expand else p for p in self.exclude_properties or ()]
        paths = "paths" in self._kinds()
        return FeatureSpec.of(list(self._kinds()), category_depth=self.category_depth, direction=self.direction,
                              exclude=exclude, values=self.values, depth=self.depth,
                              prune=self.min_support if paths else None)

    def _counts(self, spec, rows, table, hierarchy, allowed=None):
        """The counts behind the cells of ``table`` (``values="count"``), laid out as its ``X``, closed under the
        whole ``hierarchy`` the table was built from."""
        from kg.rdf.kinds import count_values
        from kg.rdf.table import entity_weights

        ents = sorted({e for es in rows.values() for e in es})
        groups = spec.groups(self._lookups(), ents, weights=entity_weights(rows), allowed=allowed)
        return count_values(table, hierarchy, rows, groups)

    def fit(self, X, y=None):
        """Look the training values up, build the hierarchy, keep the features of ``min_support`` rows.

        Parameters
        ----------
        X : list, 1-D array, Series or one-column DataFrame
            Entities (IRIs, ids) or texts.
        y : ignored

        Returns
        -------
        self
        """
        self._fit(X)
        return self

    def fit_transform(self, X, y=None, **fit_params):
        """:meth:`fit`, then the training table (the same as ``fit(X).transform(X)``, without looking X up twice).

        Parameters
        ----------
        X : list, 1-D array, Series or one-column DataFrame
        y : ignored

        Returns
        -------
        HierarchicalCSR or pandas.DataFrame
        """
        table, index = self._fit(X)
        self.n_unknown_transform_ = self.n_unknown_
        return self._output(table.values if table.values is not None else table.X, index)

    def _fit(self, X):
        self._validate_params()
        self._check_source(self._lookups())
        ids, facts, edges, report, index, rows, spec = self._facts(X)
        nodes = hierarchy_nodes(facts, edges)
        if not nodes:
            raise ValueError(f"no {self._what()} found for any of the {len(ids)} training values "
                             f"({report['n_entities']} entities) in {self._source_name()}")
        # a cycle is reported once per source object: a grid's fits (its clones share the source) repeat it
        h, removed = build_hierarchy(nodes, edges, spec.on_cycle(), reported=reported_cycles(self.source))
        table = FeatureTable.from_facts(facts, h, min_support=self.min_support, instances=ids)
        if table.n_features == 0:
            raise ValueError(f"min_support={self.min_support} keeps none of the {h.n_nodes} features of the "
                             f"{len(ids)} training values")
        if spec.counts:
            table = table.with_values(self._counts(spec, rows, table, h))
        names = table.feature_names
        self.vocabulary_ = {str(f): j for j, f in enumerate(names.tolist())}
        self.hierarchy_ = table.hierarchy
        self.feature_labels_ = self._labels(names.tolist())
        self.n_unknown_ = int(sum(1 for i in ids if not facts.get(i)))
        self.fit_report_ = {"n_entities": report["n_entities"],
                            "entities_without_features": report["entities_without_features"],
                            "removed_cycle_edges": [list(e) for e in removed],
                            "merged_cycles": {k: list(v) for k, v in h.merged.items()}, "n_features_found": h.n_nodes}
        if self.n_unknown_:
            log.info("%d of %d training rows have no %s (empty rows)", self.n_unknown_, len(ids), self._what())
        self.fit_report_["relations"] = report.get("relations", {})
        return table, index

    def _source_name(self) -> str:
        cls = type(self.source)
        return f"{cls.__module__.split('.')[0]}.{cls.__name__}" if cls.__module__.startswith("rdflib") else cls.__name__

    def _labels(self, names: list[str]) -> np.ndarray:
        from kg.rdf.naming import compose_names
        from kg.rdf.paths import parse_path_id, short

        lookups = self._lookups()
        merged = self.hierarchy_.merged if hasattr(self, "hierarchy_") else {}
        vocabulary = getattr(lookups.source, "vocabulary", None)
        # relations and paths by their parts' labels (``out: occupation | author``), as the command line names them
        found = compose_names([m for n in names for m in merged.get(n, (n,))], lookups.labels,
                              getattr(vocabulary, "property_entity", str))

        def label(n: str) -> str:
            if n in found:
                return found[n]
            return short(n) if parse_path_id(n) else (re.split(r"[/#]", n)[-1] or n)

        # a merged cycle: its members' labels (the shortened id of a long one names its first member only)
        out = [" ≡ ".join(map(label, merged[n])) if n in merged else label(n) for n in names]
        return np.asarray(out, dtype=object)

    def transform(self, X):
        """The closed 0/1 table of ``X`` over the fitted columns; unknown values give empty rows.

        Parameters
        ----------
        X : list, 1-D array, Series or one-column DataFrame

        Returns
        -------
        HierarchicalCSR or pandas.DataFrame
            ``(n_rows, len(vocabulary_))``, carrying ``hierarchy_`` (see :meth:`set_output`).
        """
        check_is_fitted(self, "vocabulary_")
        ids, facts, edges, _, index, row_entities, spec = self._facts(X, allowed=self.vocabulary_)
        n, m = len(ids), len(self.vocabulary_)
        nodes = hierarchy_nodes(facts, edges)
        if nodes:
            h, _ = build_hierarchy(nodes, edges, spec.on_cycle(), quiet=True)  # cycles were reported by fit
            flat = [f for i in ids for f in facts.get(i, ())]
            rows = [r for r, i in enumerate(ids) for _ in facts.get(i, ())]
            cols = h.columns(flat)  # a member of a merged cycle is its node
            if (cols < 0).any():  # every fact is a node of its own hierarchy
                raise KeyError(flat[int(np.flatnonzero(cols < 0)[0])])
            direct = sp.csr_matrix((np.ones(len(rows), np.int8), (rows, cols)), shape=(n, h.n_nodes))
            closed = h.close(direct).tocsr()
            if spec.counts:
                whole = FeatureTable(closed, h.node_ids, ids, None, h, check="ignore")
                closed = sp.csr_matrix(self._counts(spec, row_entities, whole, h, allowed=self.vocabulary_))
            col_map = np.array([self.vocabulary_.get(str(f), -1) for f in h.node_ids.tolist()], dtype=np.int64)
            keep = np.flatnonzero(col_map >= 0)
            sub = closed[:, keep].tocsr()
            x = sp.csr_matrix((sub.data.astype(np.float64) if spec.counts else np.ones(sub.nnz),
                               col_map[keep][sub.indices], sub.indptr), shape=(n, m))
            x.sort_indices()
        else:
            x = sp.csr_matrix((n, m), dtype=np.float64)
        self.n_unknown_transform_ = int(sum(1 for i in ids if not facts.get(i)))
        if self.n_unknown_transform_:
            log.info("%d of %d rows have no %s (empty rows)", self.n_unknown_transform_, n, self._what())
        return self._output(x, index)

    def _output(self, x, index):
        x = HierarchicalCSR.wrap(sp.csr_matrix(x, dtype=np.float64), self.hierarchy_)
        config = getattr(self, "_sklearn_output_config", {}).get("transform") or get_config()["transform_output"]
        if config == "pandas":
            import pandas as pd

            dtype = np.float64 if self.values == "count" else np.int8
            df = pd.DataFrame.sparse.from_spmatrix(sp.csr_matrix(x, dtype=dtype), index=index,
                                                   columns=self.hierarchy_.node_ids.tolist())
            df.attrs["hierarchy"] = self.hierarchy_
            return df
        if config not in ("default", None):
            raise ValueError(f"KGFeatures output is sparse: transform_output {config!r} is not supported "
                             "('default' or 'pandas')")
        return x

    def get_feature_names_out(self, input_features=None):
        """The feature ids of the output columns (readable labels: :attr:`feature_labels_`).

        Parameters
        ----------
        input_features : ignored

        Returns
        -------
        ndarray of object
        """
        check_is_fitted(self, "vocabulary_")
        return np.asarray(self.hierarchy_.node_ids.tolist(), dtype=object)
