"""The RDF route's arrows: corpus -> entities -> types, categories or relations -> feature DAG -> binary table.

Section 5.1 of the SHSEL paper: annotate each text with DBpedia Spotlight, then take the types
(``rdf:type`` + ``rdfs:subClassOf``) or the categories (``dct:subject`` + ``skos:broader``) of
the entities found as hierarchical binary features. Each instance's direct features are the
union over its entities; the table is closed upward over the hierarchy (an instance with
``Cricketer`` also has ``Athlete``, ``Person``, ``Agent``).

One function per arrow (:func:`link_entities`, :func:`fetch_facts`, :func:`build_hierarchy`,
:func:`assemble_table`), plus :func:`make_annotator` / :func:`make_source`, which make an annotator
and a knowledge source by their registered names. The same arrows in batches over a run's stored answers are
:mod:`kg.rdf.stored`. From a corpus file and
command-line-like options, the route is an input of a run (:class:`kg.rdf.route.CorpusInput`, stored step by step).

Choices (documented and tested):

- An entity without a type (category) in the source is kept: its instance is a row, empty if
  no other entity of it has features. Such entities are listed in
  ``meta["entities_without_features"]`` and logged; instances without any feature are counted
  in ``meta["instances_without_features"]``.
- Cycles of a transitive relation (subclass of: Wikidata's P279 has them; subproperty of) are merged,
  each into one feature that holds every member (``FeatureHierarchy.from_edges(..., on_cycle="merge")``:
  no ancestor is lost), listed in ``meta["merged_cycles"]`` (feature -> members). Category cycles (real
  in DBpedia, data errors) are broken (``on_cycle="break"``); the removed edges are listed in
  ``meta["removed_cycle_edges"]``. Which kind does which is ``meta["cycles"]``
  (:meth:`~kg.rdf.kinds.FeatureSpec.cycle_choices`); the core's ``HierarchyCycleWarning`` is emitted.
- Categories are followed ``category_depth`` levels up (default 2) from the entities' own
  categories; deeper walks reach most of Wikipedia's category graph.
- Feature ids are full IRIs (unambiguous across namespaces).

Examples
--------
>>> from kg.rdf.corpus import Corpus
>>> from kg.rdf.sources.dump import DumpSource
>>> corpus = Corpus(ids=["t1"], entities=[["http://dbpedia.org/resource/Kobe"]], labels=["sport"])
>>> table = assemble_table(corpus, None, DumpSource("dumps/"))  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence

from kg.collector import collector_paused
from kg.cycles import EdgeArrays, NodeOrder, edge_nodes
from kg.errors import NOTED, EmptyTableError, HierarchyCycleWarning, InputFormatError, KgfsError
from kg.hierarchy import FeatureHierarchy
from kg.iri import normalize_iri
from kg.rdf.corpus import Corpus
from kg.rdf.kinds import FeatureSpec
from kg.rdf.sources.common import Access, Settings
from kg.rdf.vocabulary import Vocabulary
from kg.sources import Annotator, KnowledgeSource, as_source
from kg.table import FeatureTable

# Imported where they are used: each annotator and source (requests, SPARQLWrapper, pyoxigraph, the dump index),
# so a route that uses one does not load the others.

__all__ = ["assemble_table", "build_hierarchy", "entity_weights", "fetch_facts", "hierarchy_nodes", "link_entities",
           "make_annotator", "make_source"]

log = logging.getLogger(__name__)


def link_entities(
    corpus: Corpus, annotator: Annotator | None = None, *, invalid_iri: str = "skip",
    expand: Callable[[str], str] | None = None,
) -> tuple[dict[str, list[str]], dict]:
    """Instance id -> entity IRIs (from the corpus's entity column, or by annotating its texts).

    IRIs are normalised (:func:`kg.iri.normalize_iri`), so every source sees the same strings.

    Parameters
    ----------
    corpus : Corpus
    annotator : Annotator, optional
        Needed when the corpus has texts rather than entities.
    invalid_iri : {"skip", "raise"}
        A value that is not an absolute IRI is skipped and listed in the report, or an error
        naming the instance.
    expand : callable, optional
        Applied to each entity value first (:meth:`Vocabulary.expand_entity
        <kg.rdf.vocabulary.Vocabulary.expand_entity>`: ``Q42`` -> its IRI).

    Returns
    -------
    entities : dict of instance id -> list of str
        Each instance's distinct entity IRIs, in order of appearance.
    report : dict
        ``invalid_iris``, ``n_mentions``, ``instances_without_entities``.

    Examples
    --------
    >>> from kg.rdf.corpus import Corpus
    >>> c = Corpus(ids=["a", "b"], entities=[["http://dbpedia.org/resource/Chelsea,_London", "Chelsea"], []])
    >>> entities, report = link_entities(c)
    >>> entities, report["invalid_iris"], report["instances_without_entities"]
    ({'a': ['http://dbpedia.org/resource/Chelsea,_London'], 'b': []}, [['a', 'Chelsea']], ['b'])
    """
    report: dict = {"invalid_iris": []}
    if corpus.entities is not None:
        raw = corpus.entities
    else:
        if annotator is None:
            raise KgfsError("the corpus has texts but no annotator was given (use a lexicon or Spotlight)")
        raw = [[a.uri for a in anns] for anns in annotator.annotate(corpus.texts)]
        if len(raw) != len(corpus):
            raise KgfsError(f"the annotator returned {len(raw)} results for {len(corpus)} texts")
    out: dict[str, list[str]] = {}
    known: dict[str, str] = {}  # an entity is mentioned many times: normalised once
    for rid, ents in zip(corpus.ids, raw):
        seen: list[str] = []
        for e in ents:
            iri = known.get(e) if isinstance(e, str) else None
            if iri is None:
                try:
                    iri = normalize_iri(expand(e) if expand is not None and isinstance(e, str) else e,
                                        where=f"instance {rid!r}")
                except InputFormatError:
                    if invalid_iri == "raise":
                        raise
                    report["invalid_iris"].append([rid, str(e)])
                    continue
                if isinstance(e, str):
                    known[e] = iri
            if iri not in seen:
                seen.append(iri)
        out[rid] = seen
    report["n_mentions"] = sum(len(v) for v in out.values())
    report["instances_without_entities"] = [rid for rid, v in out.items() if not v]  # named on the console
    return out, report


def fetch_facts(
    entities: Mapping[str, Sequence[str]],
    source: KnowledgeSource,
    *,
    features: str | Sequence[str] | FeatureSpec = "types",
    category_depth: int | None = 2,
    allowed=None,
) -> tuple[dict[str, set[str]], set[tuple[str, str]], dict]:
    """Direct features per instance and the hierarchy edges, from ``source``.

    Parameters
    ----------
    entities : mapping of instance id -> entity IRIs
        From :func:`link_entities`.
    source : KnowledgeSource
        A :class:`~kg.sources.RelationSource` for the relation kinds.
    features : str, sequence of str or FeatureSpec
        One kind or several (:mod:`kg.rdf.kinds`: ``types``, ``categories``, ``relations``,
        ``qualified-relations``), or a :class:`~kg.rdf.kinds.FeatureSpec` (which also says the
        relations' direction and excluded predicates).
    category_depth : int or None
        ``skos:broader`` levels to follow for categories (``None``: unbounded; a spec's own otherwise).
    allowed : iterable of str, optional
        Paths: the features to generate (a fitted vocabulary), instead of those of at least the spec's
        ``prune`` instances (each entity weighs the number of instances it occurs in).

    Returns
    -------
    facts : dict of instance id -> set of str
        The union of the direct types (categories) of each instance's entities.
    edges : set of (child, parent)
        The hierarchy edges above them.
    report : dict
        ``n_entities``, ``entities_without_features``, ``n_direct_features``.

    Examples
    --------
    >>> import rdflib
    >>> from kg.rdf.sources.rdflib_graph import RdflibSource
    >>> g = rdflib.Graph().parse(format="turtle", data='''
    ... @prefix dct: <http://purl.org/dc/terms/> . @prefix skos: <http://www.w3.org/2004/02/skos/core#> .
    ... @prefix cat: <http://dbpedia.org/resource/Category:> .
    ... <http://dbpedia.org/resource/Kobe> dct:subject cat:Basketball_players .
    ... cat:Basketball_players skos:broader cat:Sportspeople .''')
    >>> facts, edges, report = fetch_facts({"t1": ["http://dbpedia.org/resource/Kobe"]}, RdflibSource(g),
    ...                                    features="categories")
    >>> facts
    {'t1': {'http://dbpedia.org/resource/Category:Basketball_players'}}
    >>> [(c.rsplit(":", 1)[1], p.rsplit(":", 1)[1]) for c, p in edges], report["n_direct_features"]
    ([('Basketball_players', 'Sportspeople')], 1)
    """
    # millions of small objects at the in-links of hubs, none in a reference cycle (kg.collector)
    with collector_paused():
        spec = features if isinstance(features, FeatureSpec) else FeatureSpec.of(features,
                                                                                category_depth=category_depth)
        all_entities = sorted({e for ents in entities.values() for e in ents})
        per_entity, relation_report = spec.direct(source, all_entities, weights=entity_weights(entities),
                                                  allowed=allowed)
        nodes = sorted({f for fs in per_entity.values() for f in fs})
        edges = spec.edges(source, nodes)
        facts = {i: set().union(*(per_entity.get(e, set()) for e in ents)) if ents else set()
                 for i, ents in entities.items()}
        empty = sorted(e for e in all_entities if not per_entity.get(e))
        if empty:
            log.warning("%d of %d entities have no %s in the source, e.g. %s", len(empty), len(all_entities),
                        " or ".join(spec.kinds), ", ".join(empty[:3]), extra=NOTED)
        report = {
            "n_entities": len(all_entities),
            "entities_without_features": empty,
            "n_direct_features": len(nodes),
        }
        if relation_report:
            report["relations"] = relation_report
        return facts, edges, report


def entity_weights(entities: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """How many instances each entity occurs in (what a path's support at generation counts).

    Examples
    --------
    >>> entity_weights({"t1": ["a", "b", "a"], "t2": ["a"]})
    {'a': 2, 'b': 1}
    """
    out: dict[str, int] = {}
    for ents in entities.values():
        for e in dict.fromkeys(ents):
            out[e] = out.get(e, 0) + 1
    return out


def hierarchy_nodes(facts: Mapping[str, Iterable[str]], edges: Iterable[tuple[str, str]]) -> NodeOrder:
    """Every feature of a table, for :func:`build_hierarchy`: the ids at either end of an edge and the instances'
    direct features, sorted, with their positions (:class:`kg.cycles.NodeOrder`: the hierarchy's look-up, built
    once; sorted from the edges' own order, :meth:`kg.cycles.EdgeArrays.used_names`, whose runs sort fast).

    Examples
    --------
    >>> list(hierarchy_nodes({"t1": {"A"}, "t2": {"B"}}, [("B", "C")]))
    ['A', 'B', 'C']
    """
    ends = edges.used_names() if isinstance(edges, EdgeArrays) else edge_nodes(edges)
    return NodeOrder.of(ends, (f for fs in facts.values() for f in fs))


def build_hierarchy(nodes, edges, on_cycle="break", *, reported: set | None = None,
                    quiet: bool = False) -> tuple[FeatureHierarchy, list[tuple[str, str]]]:
    """The feature DAG; cycles are broken or merged (``on_cycle``) and the removed edges returned.

    Parameters
    ----------
    nodes : iterable of str, or NodeOrder
        The nodes (repeats allowed), or :func:`hierarchy_nodes` of a table (sorted already, with their look-up).
    edges : iterable of (child, parent)
    on_cycle : {"break", "merge"} or callable
        :meth:`FeatureHierarchy.from_edges`'s policy (a spec's :meth:`~kg.rdf.kinds.FeatureSpec.on_cycle`);
        merged cycles are in the hierarchy's ``merged``.
    reported : set, optional
        The cycles already reported (a merged cycle as the tuple of its members, a removed edge as its pair): the
        cycles are logged and warned about only when one of them is not in it, and then added to it. Default:
        always.
    quiet : bool
        Report no cycle (the caller reported them before: a fitted transformer's ``transform``).

    Returns
    -------
    hierarchy : FeatureHierarchy
        Nodes and edges in sorted order (so any source gives the same DAG).
    removed : list of (child, parent)
        The edges removed to break cycles (also logged and warned about).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     h, removed = build_hierarchy(["Sports"], [("Sports", "Recreation"), ("Recreation", "Sports")])
    >>> h.edge_list(), removed
    ([('Recreation', 'Sports')], [('Sports', 'Recreation')])
    >>> seen = set()
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     for _ in range(3):
    ...         _ = build_hierarchy(["A"], [("A", "B"), ("B", "A")], "merge", reported=seen)
    >>> len(caught), seen
    (1, {('A', 'B')})
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HierarchyCycleWarning)
        # the edges' order does not matter (the DAG and the cycles broken depend on the edge set alone)
        # each id once (in its first place: a sort is fast from the sorted runs of a generator's order)
        if not isinstance(nodes, NodeOrder):
            nodes = sorted(nodes if isinstance(nodes, (set, frozenset)) else dict.fromkeys(nodes))
        h = FeatureHierarchy.from_edges(edges, nodes=nodes, on_cycle=on_cycle)
    removed = [tuple(e) for e in h.removed_edges]
    tell = not quiet
    if reported is not None and tell:
        cycles = {tuple(m) for m in h.merged.values()} | set(removed)
        tell = not cycles <= reported
        reported |= cycles
    for w in caught:
        if issubclass(w.category, HierarchyCycleWarning):
            if not tell:
                continue
            log.warning("%s", w.message, extra=NOTED)
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return h, removed


def assemble_table(
    corpus: Corpus,
    annotator: Annotator | None,
    source: KnowledgeSource,
    *,
    features: str | Sequence[str] | FeatureSpec = "types",
    min_support: int = 1,
    category_depth: int | None = 2,
    invalid_iri: str = "skip",
    meta: dict | None = None,
) -> FeatureTable:
    """The binary instance x feature table of a corpus, closed under the feature DAG.

    Parameters
    ----------
    corpus : Corpus
        Texts (annotated with ``annotator``) or entity IRIs (``annotator`` may be ``None``).
    annotator : Annotator or None
        :class:`kg.rdf.annotators.spotlight.SpotlightAnnotator` or :class:`kg.rdf.annotators.lexicon.LexiconAnnotator`.
    source : KnowledgeSource
        :class:`kg.rdf.sources.sparql.SparqlSource` or :class:`kg.rdf.sources.dump.DumpSource`.
    features : str, sequence of str or FeatureSpec
        One kind or several (see :func:`fetch_facts`).
    min_support : int
        Drop features present in fewer instances (the papers use 3 for some datasets).
    category_depth : int or None
        ``skos:broader`` levels to follow (``features="categories"``); ``None`` = unbounded.
    invalid_iri : {"skip", "raise"}
        What to do with an entity value that is not an absolute IRI.

    Returns
    -------
    FeatureTable
        Rows in corpus order (every instance, with or without features), labels from the
        corpus, ``meta`` with the provenance and the reports described in the module doc.

    Examples
    --------
    >>> from kg.rdf.corpus import Corpus
    >>> import rdflib
    >>> from kg.rdf.sources.rdflib_graph import RdflibSource
    >>> g = rdflib.Graph().parse(format="turtle", data='''
    ... @prefix dbo: <http://dbpedia.org/ontology/> . @prefix dbr: <http://dbpedia.org/resource/> .
    ... dbr:Kobe a dbo:BasketballPlayer . dbr:Lyon a dbo:City .
    ... dbo:BasketballPlayer <http://www.w3.org/2000/01/rdf-schema#subClassOf> dbo:Athlete .''')
    >>> corpus = Corpus(ids=["t1", "t2"], entities=[["http://dbpedia.org/resource/Kobe"],
    ...                                             ["http://dbpedia.org/resource/Lyon"]], labels=["sport", "city"])
    >>> t = assemble_table(corpus, None, RdflibSource(g))
    >>> [f.rsplit("/", 1)[1] for f in t.feature_names], t.X.toarray().astype(int).tolist()
    (['Athlete', 'BasketballPlayer', 'City'], [[1, 1, 0], [0, 0, 1]])
    >>> table = assemble_table(read_sports_tweets("training.txt"),
    ...                     LexiconAnnotator.from_dump("dump/"), DumpSource("dump/"))  # doctest: +SKIP
    """
    spec = features if isinstance(features, FeatureSpec) else FeatureSpec.of(features, category_depth=category_depth)
    entities, link_report = link_entities(corpus, annotator, invalid_iri=invalid_iri)
    facts, edges, fact_report = fetch_facts(entities, source, features=spec)
    h, removed = build_hierarchy(hierarchy_nodes(facts, edges), edges, spec.on_cycle())
    del edges  # in the hierarchy now (the arrays of 4M edges at the in-links of hubs: 100 MB not held further)
    m = dict(meta or {})
    m.update(
        {
            "route": "dbpedia",
            "corpus": corpus.source,
            "source": as_source(source).describe(),
            "annotator": None if annotator is None or corpus.entities is not None else repr(annotator),
            "removed_cycle_edges": [list(e) for e in removed],
            "cycles": spec.cycle_choices(),
            **link_report,
            **fact_report,
            **spec.describe(),
        }
    )
    if spec.uses_relations:  # the generator's report and the options it ran with
        m["relations"] = {**fact_report.get("relations", {}), **spec.describe()["relations"]}
    kinds = " or ".join(spec.kinds)
    m["instances_without_features"] = sum(1 for i in corpus.ids if not facts.get(i))
    if m["instances_without_features"]:
        log.info("%d of %d instances have no %s (kept as empty rows)", m["instances_without_features"],
                 len(corpus), kinds)
    if h.n_nodes == 0:
        raise EmptyTableError(
            f"no {kinds} found for any of the {fact_report['n_entities']} entities of {corpus.source}; "
            "check the annotator, the source and the type namespaces", empty="features")
    table = FeatureTable.from_facts(facts, h, corpus.label_map, min_support=min_support, instances=corpus.ids, meta=m)
    if spec.counts:  # the relations' counts behind the cells (the hierarchical selectors read their presence)
        from kg.rdf.kinds import count_values

        groups = spec.groups(source, sorted({e for ents in entities.values() for e in ents}),
                             weights=entity_weights(entities))
        table = table.with_values(count_values(table, h, entities, groups))
    return table


# ---------------------------------------------------------------------------------- factories
def make_annotator(kind: str, *, spotlight_url: str | None = None, dump=None, access: Access | None = None,
                   spotlight: Mapping | None = None, vocabulary: Vocabulary | None = None) -> Annotator:
    """An annotator by its registered name (:data:`kg.rdf.annotators.ANNOTATORS`: ``"lexicon"``, needing
    ``dump``; ``"spotlight"``, needing ``spotlight_url``; or one of your own).

    Parameters
    ----------
    kind : str
        The annotator's name.
    spotlight_url : str, optional
        The Spotlight REST endpoint.
    dump : path or list of paths, optional
        Label and redirect dumps for the lexicon.
    vocabulary : Vocabulary, optional
        For the lexicon: which labels (and language), redirects and links (DBpedia's by default).
    access : Access, optional
        Spotlight's answer cache, or for the lexicon the folder of the dump index (the dump is
        read once into it, later runs open the lexicon from it; without it the lexicon is built
        from the dump in memory); time limits, bad lines, progress.
    spotlight : mapping, optional
        More of Spotlight's parameters: ``confidence``, ``support``, ``types``, ``policy``,
        ``max_workers`` (see :class:`~kg.rdf.annotators.spotlight.SpotlightAnnotator`).

    Returns
    -------
    Annotator

    Examples
    --------
    >>> make_annotator("spotlight", spotlight_url="http://127.0.0.1:2222/rest", spotlight={"confidence": 0.4}).url
    'http://127.0.0.1:2222/rest/annotate'
    >>> make_annotator("lexicon")
    Traceback (most recent call last):
    ...
    kg.errors.ParameterError: annotator='lexicon' needs dump (files with rdfs:label and redirects)
    """
    from kg.rdf.annotators import ANNOTATORS

    settings = Settings(spotlight_url=spotlight_url, dump=dump, access=access or Access(), spotlight=spotlight,
                        vocabulary=vocabulary)
    cls = ANNOTATORS.get(kind, "annotator")
    cls.check(settings, kind, "annotator")
    return cls.open(settings)


def make_source(kind: str | None = None, *, sparql_url: str | None = None, dump=None,
                vocabulary: Vocabulary | None = None, type_namespaces: Sequence[str] | None = None,
                access: Access | None = None, graph: str | None = None, batch_size: int = 100) -> KnowledgeSource:
    """A knowledge source by its registered name (:data:`kg.rdf.sources.SOURCES`: ``"sparql"``, ``"dump"``, or
    one of your own); ``None`` = SPARQL if a URL is given, else the dump.

    Parameters
    ----------
    kind : str, optional
    sparql_url : str, optional
    dump : path or list of paths, optional
    vocabulary : Vocabulary, optional
        The graph's predicates (DBpedia's by default; :mod:`kg.rdf.vocabulary`).
    type_namespaces : list of str, optional
        Prefixes (or the vocabulary's short names: ``dbo``, ``yago``, ``schema``, ``wd``) of the types to keep.
    access : Access, optional
        The SPARQL source's query cache, or for a dump the folder of the dump index: the source is
        then an :class:`~kg.rdf.sources.index.IndexSource` (each file read once into the index, every
        question a look-up); without it (or with ``access.lenient``) the dump is streamed
        (:class:`~kg.rdf.sources.dump.DumpSource`). Time limits, bad lines, progress.
    graph : str, optional
        The SPARQL default graph.
    batch_size : int
        Values per SPARQL query.

    Returns
    -------
    KnowledgeSource
        A :class:`~kg.rdf.sources.sparql.SparqlSource`, :class:`~kg.rdf.sources.index.IndexSource` or
        :class:`~kg.rdf.sources.dump.DumpSource`
        (an rdflib graph is wrapped by :class:`~kg.rdf.sources.rdflib_graph.RdflibSource` directly).

    Examples
    --------
    >>> src = make_source(sparql_url="http://127.0.0.1:8890/sparql", type_namespaces=["dbo", "yago"])
    >>> type(src).__name__, src.type_namespaces
    ('SparqlSource', ('http://dbpedia.org/class/yago/', 'http://dbpedia.org/ontology/'))
    >>> make_source("sparql")
    Traceback (most recent call last):
    ...
    kg.errors.ParameterError: source='sparql' needs sparql_url
    """
    from kg.rdf.sources import SOURCES

    if kind is None:
        kind = "sparql" if sparql_url else "dump"
    settings = Settings(sparql_url=sparql_url, dump=dump, vocabulary=vocabulary, type_namespaces=type_namespaces,
                        access=access or Access(), graph=graph, batch_size=batch_size)
    cls = SOURCES.get(kind, "source")
    cls.check(settings, kind, "source")
    return cls.open(settings)
