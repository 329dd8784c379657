"""What every RDF source shares: the questions' semantics, namespaces, the walks, the in-memory cache.

The protocol itself (:class:`~kg.sources.KnowledgeSource`, :class:`~kg.sources.Annotator`) is :mod:`kg.sources`.

Four implementations: :class:`kg.rdf.sources.sparql.SparqlSource` (a SPARQL endpoint such as DBpedia's
Virtuoso or the Wikidata Query Service), :class:`kg.rdf.sources.index.IndexSource` (the dump index,
the offline default), :class:`kg.rdf.sources.dump.DumpSource` (local N-Triples/Turtle/RDF-XML dumps,
streamed) and :class:`kg.rdf.sources.rdflib_graph.RdflibSource` (an in-memory :class:`rdflib.Graph`).
Each reads the predicates of a :class:`~kg.rdf.vocabulary.Vocabulary` (DBpedia's by default:
``rdf:type``, ``rdfs:subClassOf``, ``dct:subject``, ``skos:broader``; Wikidata's: ``wdt:P31``,
``wdt:P279``). All answer the same four questions with the same semantics, so that the same data
gives the same facts and the same :class:`~kg.table.FeatureTable` online and offline:

``types(entities)``
    ``{entity: {class, ...}}``: the instance-of objects (``rdf:type``) of each entity that lie in
    one of the source's type namespaces (DBpedia ontology by default). Entities without such a
    type map to an empty set; every requested entity is a key.
``class_edges(classes)``
    ``{(child, parent), ...}``: every subclass-of (``rdfs:subClassOf``) edge reachable upward from
    the given classes (the traversal follows every edge), kept when both ends lie in the type
    namespaces.
``categories(entities)``
    ``{entity: {category, ...}}`` from the subject predicates (``dct:subject``).
``broader(categories, depth)``
    ``{(child, parent), ...}``: broader (``skos:broader``) edges met by a breadth-first walk upward from
    ``categories`` for at most ``depth`` steps (``depth=0``: none; ``depth=None``: unbounded).
    The walk visits each category once, so cycles of the category graph end it; the cycles
    stay in the edge set and are broken later by
    :meth:`FeatureHierarchy.from_edges(..., on_cycle="break") <kg.hierarchy.FeatureHierarchy.from_edges>`.

Sources of a vocabulary that names relation predicates (:meth:`Vocabulary.is_relation
<kg.rdf.vocabulary.Vocabulary.is_relation>`) also answer two more (:class:`RelationSource`):

``relations(entities, direction)``
    ``{entity: {(predicate, other), ...}}``: with ``direction="out"`` every triple
    ``entity predicate other``, with ``"in"`` every triple ``other predicate entity``, whose predicate
    is a relation predicate of the vocabulary and whose ``other`` is an IRI (never a literal). Every
    requested entity is a key.
``property_edges(properties)``
    ``{(child, parent), ...}``: every subproperty-of (``rdfs:subPropertyOf``) edge reachable upward
    from the given predicates (the traversal follows every edge; cycles stay in the set), between
    predicates: where a graph states them of the properties' entities (Wikidata: ``wd:P19
    wdt:P1647 wd:P276``), the walk goes through those and the edges come back as predicates
    (:func:`property_walk`).

A source may also answer ``relation_tally(entities, direction, qualified=...)``: the same relations as index
arrays (:class:`RelationTally`), with the other ends' classes as index pairs and no name built for an
other end. :func:`kg.rdf.relations.relation_facts` uses it when a source has it (the dump index's
:class:`~kg.rdf.sources.index.IndexSource` does: a hub's millions of in-links stay numpy arrays), and
``relations`` + ``types`` otherwise; both give the same features, counts and report.

Every source keeps an in-memory cache at this boundary (:class:`MemoCache`), and the SPARQL
source a per-batch disk cache.

Annotators (:class:`Annotator`: :class:`kg.rdf.annotators.spotlight.SpotlightAnnotator`,
:class:`kg.rdf.annotators.lexicon.LexiconAnnotator`) turn texts into :class:`Annotation` lists; their IRIs go
through :func:`kg.iri.normalize_iri` before any source sees them.

Examples
--------
>>> resolve_namespaces(["yago", "dbo"])
('http://dbpedia.org/class/yago/', 'http://dbpedia.org/ontology/')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from kg.rdf.vocabulary import DBPEDIA
from kg.sources import DIRECTIONS as _DIRECTIONS

__all__ = [
    "Access",
    "Settings",
    "ingest_progress",
    "vocabulary_key",
    "DBO",
    "DEFAULT_TYPE_NAMESPACES",
    "MemoCache",
    "NAMESPACES",
    "RDF_TYPE",
    "RDFS_SUBCLASSOF",
    "RDFS_LABEL",
    "DCT_SUBJECT",
    "SKOS_BROADER",
    "DBO_REDIRECTS",
    "DBO_WIKILINK",
    "DIRECTIONS",
    "check_direction",
    "edges_within",
    "in_namespaces",
    "property_walk",
    "role_predicates",
    "RelationTally",
]


@dataclass(frozen=True)
class Access:
    """How a source or annotator reaches its data: its cache, time limits, bad dump lines, progress.

    Parameters
    ----------
    cache_dir : path, optional
        SPARQL's and Spotlight's answer caches; for a dump, the folder of the dump index (the dump
        is read once into it). Without it nothing is cached and a dump is streamed.
    timeout : float, optional
        Seconds per request (the clients' defaults otherwise).
    max_total : float, optional
        Seconds a request may take with its retries (unbounded otherwise).
    skip_bad_lines : bool
        Skip (and count) malformed dump lines instead of failing.
    lenient : bool
        Read dumps without validating IRIs (pyoxigraph's lenient mode; the dump is then streamed,
        not indexed).
    progress : callable, optional
        ``progress(stage, done, total)``: a service's batches, or the bytes of a dump being indexed
        (stage ``"ingest"``).

    Examples
    --------
    >>> Access(timeout=5).limits()
    {'timeout': 5}
    """

    cache_dir: object = None
    timeout: float | None = None
    max_total: float | None = None
    skip_bad_lines: bool = False
    progress: Callable | None = None
    lenient: bool = False

    def limits(self) -> dict:
        """The time limits that are set, as keyword arguments of a client."""
        return {k: v for k, v in (("timeout", self.timeout),) if v is not None}

@dataclass(frozen=True)
class Settings:
    """What the RDF route gives a source or an annotator it opens by name (:meth:`kg.sources.Opening.open`).

    Parameters
    ----------
    sparql_url, spotlight_url : str, optional
        The services' endpoints.
    dump : path or list of paths, optional
        The graph's dump files or folders.
    dump_files : sequence, optional
        Their fingerprints (path, size, mtime, ...), for store keys.
    vocabulary : Vocabulary, optional
        The graph's vocabulary (DBpedia's by default).
    type_namespaces : sequence of str, optional
    access : Access
    graph : str, optional
        The SPARQL default graph.
    batch_size : int
        Values per SPARQL query.
    spotlight : mapping, optional
        More of Spotlight's parameters.

    Examples
    --------
    >>> Settings(sparql_url="http://q/sparql").access.limits()
    {}
    """

    sparql_url: str | None = None
    spotlight_url: str | None = None
    dump: object = None
    dump_files: Sequence = ()
    vocabulary: object = None
    type_namespaces: Sequence[str] | None = None
    access: Access = field(default_factory=lambda: Access())
    graph: str | None = None
    batch_size: int = 100
    spotlight: object = None


def vocabulary_key(vocabulary) -> dict | None:
    """A vocabulary in a store key: ``None`` for the DBpedia preset (the keys of earlier runs stay)."""
    return None if vocabulary is None or vocabulary == DBPEDIA else vocabulary.to_json()


def ingest_progress(progress: Callable | None):
    """The dump index's ``(done, total, file)`` progress as ``progress("ingest", done, total)``."""
    if progress is None:
        return None
    return lambda done, total, _name: progress("ingest", done, total)


# The DBpedia preset's predicates (:data:`kg.rdf.vocabulary.DBPEDIA`), by their usual names.
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS_SUBCLASSOF = "http://www.w3.org/2000/01/rdf-schema#subClassOf"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
DCT_SUBJECT = DBPEDIA.subject[0]
SKOS_BROADER = DBPEDIA.broader[0]
DBO_REDIRECTS = DBPEDIA.redirects[0]
DBO_WIKILINK = DBPEDIA.prior_links[0]
DBO = "http://dbpedia.org/ontology/"

#: Type namespaces by short name (``--type-namespaces dbo,yago``), DBpedia's.
NAMESPACES = dict(DBPEDIA.namespaces)
DEFAULT_TYPE_NAMESPACES: tuple[str, ...] = DBPEDIA.type_namespaces


def resolve_namespaces(namespaces: Iterable[str] | None) -> tuple[str, ...]:
    """Expand DBpedia's short names (``dbo``, ``yago``, ``schema``) and return a sorted tuple
    (:meth:`Vocabulary.resolve_namespaces <kg.rdf.vocabulary.Vocabulary.resolve_namespaces>` of the preset)."""
    return DBPEDIA.resolve_namespaces(namespaces)


def in_namespaces(iri: str, namespaces: Sequence[str]) -> bool:
    """Whether ``iri`` starts with one of the namespace prefixes.

    Parameters
    ----------
    iri : str
    namespaces : sequence of str
        Full IRI prefixes (see :func:`resolve_namespaces`).

    Returns
    -------
    bool

    Examples
    --------
    >>> in_namespaces("http://dbpedia.org/ontology/Athlete", DEFAULT_TYPE_NAMESPACES)
    True
    >>> in_namespaces("http://schema.org/Person", DEFAULT_TYPE_NAMESPACES)
    False
    """
    return iri.startswith(tuple(namespaces))


def edges_within(edges: Iterable[tuple[str, str]], namespaces: Sequence[str]) -> set[tuple[str, str]]:
    """The edges whose both ends lie in the namespaces (what ``class_edges`` keeps).

    Parameters
    ----------
    edges : iterable of (child, parent)
    namespaces : sequence of str
        Full IRI prefixes (see :func:`resolve_namespaces`).

    Returns
    -------
    set of (child, parent)

    Examples
    --------
    >>> sorted(edges_within([(DBO + "A", DBO + "B"), (DBO + "A", "http://x/C")], [DBO]))
    [('http://dbpedia.org/ontology/A', 'http://dbpedia.org/ontology/B')]
    """
    return {(c, p) for c, p in edges if in_namespaces(c, namespaces) and in_namespaces(p, namespaces)}


def role_predicates(vocabulary, kind: str) -> tuple[str, ...]:
    """The predicates of one role of a vocabulary: what ``facts(kind, entities)`` of a source reads.

    Every source's ``facts(kind, entities)`` answers ``{subject: {IRI object, ...}}`` for the
    predicates of this role.

    Parameters
    ----------
    vocabulary : Vocabulary
        The source's :class:`~kg.rdf.vocabulary.Vocabulary`.
    kind : str
        A key of :meth:`Vocabulary.roles <kg.rdf.vocabulary.Vocabulary.roles>` (``same_as``,
        ``equivalent_class``, ...).

    Returns
    -------
    tuple of str
        The role's predicates (empty when the vocabulary has none for it).

    Raises
    ------
    ValueError
        ``kind`` is not a role of the vocabulary.

    Examples
    --------
    >>> role_predicates(DBPEDIA, "same_as")
    ('http://www.w3.org/2002/07/owl#sameAs',)
    """
    roles = vocabulary.roles()
    if kind not in roles:
        raise ValueError(f"unknown fact table {kind!r} (one of {', '.join(roles)})")
    return roles[kind]


def property_walk(vocabulary, properties: Iterable[str], walk: Callable[[list[str]], set]) -> set[tuple[str, str]]:
    """``property_edges`` of every source: ``walk`` (the source's upward walk of the subproperty predicates) from
    the properties' entities, its edges given back between predicates (see the module doc).

    Examples
    --------
    >>> from kg.rdf.vocabulary import WIKIDATA
    >>> wd, wdt = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
    >>> property_walk(WIKIDATA, [wdt + "P19"], lambda xs: {(wd + "P19", wd + "P276")})
    {('http://www.wikidata.org/prop/direct/P19', 'http://www.wikidata.org/prop/direct/P276')}
    """
    starts = sorted({vocabulary.property_entity(p) for p in properties})
    if not starts:
        return set()
    back = vocabulary.property_predicate
    return {(back(c), back(p)) for c, p in walk(starts)}


#: The directions of ``relations(entities, direction)`` (:data:`kg.sources.DIRECTIONS`).
DIRECTIONS = _DIRECTIONS


def check_direction(direction: str) -> str:
    """``direction`` if it is ``"out"`` or ``"in"``, else a ``ValueError`` naming it.

    Examples
    --------
    >>> check_direction("in")
    'in'
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be 'out' or 'in', got {direction!r}")
    return direction


class MemoCache:
    """Per-key in-memory memo of ``key -> set`` answers (the boundary cache of a source).

    Examples
    --------
    >>> c = MemoCache()
    >>> c.put({"a": {"x"}})
    >>> c.split(["b", "a", "b"])
    ({'a': {'x'}}, ['b'])
    """

    def __init__(self) -> None:
        self._d: dict[str, frozenset] = {}

    def split(self, keys: Iterable[str]) -> tuple[dict[str, set], list[str]]:
        """Known answers and the keys still to fetch (sorted, deduplicated)."""
        known, todo = {}, set()
        for k in keys:
            v = self._d.get(k)
            if v is None:
                todo.add(k)
            else:
                known[k] = set(v)
        return known, sorted(todo)

    def put(self, answers: dict[str, set]) -> None:
        """Remember each key's answer."""
        for k, v in answers.items():
            self._d[k] = frozenset(v)

    def ask(self, keys: Iterable[str], fetch: Callable[[list[str]], dict[str, set]]) -> dict[str, set]:
        """Every key's answer: the known ones from the memo, the others from one ``fetch`` (then remembered).

        Parameters
        ----------
        keys : iterable of str
        fetch : callable
            ``fetch(todo)`` answers the keys not known yet (sorted, deduplicated; never called with none).

        Returns
        -------
        dict of str -> set

        Examples
        --------
        >>> c = MemoCache()
        >>> c.ask(["a"], lambda todo: {k: {k.upper()} for k in todo})
        {'a': {'A'}}
        >>> c.ask(["a"], lambda todo: 1 / 0)  # known: not fetched again
        {'a': {'A'}}
        """
        known, todo = self.split(keys)
        if todo:
            found = fetch(todo)
            self.put(found)
            known.update(found)
        return known


@dataclass(frozen=True)
class RelationTally:
    """The relations of entities in one direction as index arrays (a source's ``relation_tally`` answer).

    Attributes
    ----------
    entities : list of str
        The entities asked, distinct and sorted; ``entity`` indexes them.
    predicates : list of str
        The predicates met; ``predicate`` indexes them.
    entity, predicate, other : numpy.ndarray
        One entry per distinct ``(entity, predicate, other end)`` triple; ``other`` numbers the distinct
        other ends (``0 .. n_others - 1``; their IRIs are never read).
    classes : list of str
        The other ends' classes (their types in the source's type namespaces); empty when not asked.
    other_class : numpy.ndarray
        ``(k, 2)`` distinct ``(other, class index)`` pairs, sorted.

    Examples
    --------
    >>> import numpy as np
    >>> t = RelationTally(["E"], ["p"], np.array([0]), np.array([0]), np.array([0]), ["C"], np.array([[0, 0]]))
    >>> len(t), t.n_others
    (1, 1)
    """

    entities: list
    predicates: list
    entity: object
    predicate: object
    other: object
    classes: list = field(default_factory=list)
    other_class: object = None

    def __len__(self) -> int:
        return len(self.entity)

    @property
    def n_others(self) -> int:
        """How many distinct other ends."""
        return int(self.other.max()) + 1 if len(self.other) else 0
