"""A knowledge source over an in-memory :class:`rdflib.Graph`, for RDF a user already holds in rdflib.

:class:`RdflibSource` answers the four questions of
:class:`~kg.sources.KnowledgeSource` with the same semantics as
:class:`~kg.rdf.sources.dump.DumpSource` (same triples, same facts, same table): ``rdf:type``
objects in the type namespaces, ``dct:subject`` categories, every ``rdfs:subClassOf`` edge
reachable upward (kept when both ends lie in the type namespaces), and ``skos:broader`` walked
``depth`` levels, each category expanded once, so cycles end the walk and are broken later by
the hierarchy. Only IRI objects count (literals and blank nodes are skipped, as in the dump).

Lookups are triple patterns on the graph (``graph.objects(subject, predicate)``), never SPARQL
strings; every IRI asked about goes through :func:`kg.iri.check_iri` first, so this source
refuses the same values as the other two.

Examples
--------
>>> import rdflib
>>> from kg.rdf.sources.common import RDF_TYPE, RDFS_SUBCLASSOF
>>> g = rdflib.Graph()
>>> kobe, player, athlete = (rdflib.URIRef("http://dbpedia.org/" + p) for p in
...                          ("resource/Kobe", "ontology/BasketballPlayer", "ontology/Athlete"))
>>> _ = g.add((kobe, rdflib.URIRef(RDF_TYPE), player))
>>> _ = g.add((player, rdflib.URIRef(RDFS_SUBCLASSOF), athlete))
>>> src = RdflibSource(g)
>>> src.types(["http://dbpedia.org/resource/Kobe"])
{'http://dbpedia.org/resource/Kobe': {'http://dbpedia.org/ontology/BasketballPlayer'}}
>>> sorted(src.class_edges(["http://dbpedia.org/ontology/BasketballPlayer"]))
[('http://dbpedia.org/ontology/BasketballPlayer', 'http://dbpedia.org/ontology/Athlete')]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import rdflib

from kg.iri import check_iri
from kg.rdf.sources.common import (
    MemoCache,
    check_direction,
    edges_within,
    in_namespaces,
    property_walk,
    role_predicates,
)
from kg.rdf.vocabulary import DBPEDIA, Vocabulary
from kg.sources import SourceBase, breadth_first_edges

__all__ = ["RdflibSource"]


class RdflibSource(SourceBase):
    """A :class:`~kg.sources.KnowledgeSource` answering from an :class:`rdflib.Graph`.

    Parameters
    ----------
    graph : rdflib.Graph
        Instance data and schema (any rdflib graph or dataset; its default graph is read).
        It is not copied: triples added later are seen by questions asked later, except
        those already answered (the answers are memoised, as in the other sources).
    vocabulary : Vocabulary, optional
        The graph's predicates (:mod:`kg.rdf.vocabulary`; DBpedia's by default).
    type_namespaces : list of str, optional
        IRI prefixes (or the vocabulary's short names: ``dbo``/``yago``/``schema``, ``wd``) of the
        types to keep (default: the vocabulary's).

    Examples
    --------
    >>> import rdflib
    >>> from kg.rdf.sources.common import DCT_SUBJECT, SKOS_BROADER
    >>> C = "http://dbpedia.org/resource/Category:"
    >>> g = rdflib.Graph()
    >>> for s, p, o in [("http://dbpedia.org/resource/Kobe", DCT_SUBJECT, C + "Lakers_players"),
    ...                 (C + "Lakers_players", SKOS_BROADER, C + "Basketball"),
    ...                 (C + "Basketball", SKOS_BROADER, C + "Sports")]:
    ...     _ = g.add((rdflib.URIRef(s), rdflib.URIRef(p), rdflib.URIRef(o)))
    >>> src = RdflibSource(g, type_namespaces=["dbo", "yago"])
    >>> src.categories(["http://dbpedia.org/resource/Kobe"])
    {'http://dbpedia.org/resource/Kobe': {'http://dbpedia.org/resource/Category:Lakers_players'}}
    >>> len(src.broader([C + "Lakers_players"], depth=1)), len(src.broader([C + "Lakers_players"], depth=None))
    (1, 2)
    >>> src.describe()["kind"], src.describe()["triples"]
    ('rdflib', 3)
    """

    def __init__(self, graph: rdflib.Graph, *, vocabulary: Vocabulary | None = None,
                 type_namespaces: Sequence[str] | None = None):
        if not isinstance(graph, rdflib.Graph):
            raise TypeError(f"graph must be an rdflib.Graph, got {type(graph).__name__}")
        self.graph = graph
        self.vocabulary = vocabulary or DBPEDIA
        self.type_namespaces = self.vocabulary.resolve_namespaces(type_namespaces)
        self._types = MemoCache()
        self._cats = MemoCache()
        self._sub = MemoCache()
        self._broader = MemoCache()
        self._links: dict[str, MemoCache] = {}
        self._relations = {"out": MemoCache(), "in": MemoCache()}
        self._subproperty = MemoCache()

    def __repr__(self) -> str:
        return f"RdflibSource({len(self.graph)} triples, type_namespaces={list(self.type_namespaces)!r})"

    def describe(self) -> dict:
        """Provenance for table metadata.

        Returns
        -------
        dict
            ``kind`` (``"rdflib"``), the graph's ``identifier`` and number of ``triples``,
            and the ``type_namespaces``.

        Examples
        --------
        >>> RdflibSource(rdflib.Graph(identifier="urn:x:g")).describe()
        {'kind': 'rdflib', 'identifier': 'urn:x:g', 'triples': 0, 'type_namespaces': ['http://dbpedia.org/ontology/']}
        """
        out = {"kind": "rdflib", "identifier": str(self.graph.identifier), "triples": len(self.graph),
               "type_namespaces": list(self.type_namespaces)}
        if self.vocabulary is not DBPEDIA:
            out["vocabulary"] = self.vocabulary.name
        return out

    # ------------------------------------------------------------------ lookups
    def _objects(self, cache: MemoCache, predicates: Sequence[str], subjects: Iterable[str]) -> dict[str, set[str]]:
        """``{subject: {IRI object, ...}}`` of some predicates (memoised per subject)."""
        preds = [rdflib.URIRef(p) for p in predicates]
        return cache.ask(subjects, lambda todo: {
            s: {str(o) for p in preds for o in self.graph.objects(rdflib.URIRef(check_iri(s)), p)
                if isinstance(o, rdflib.URIRef)}
            for s in todo
        })

    def facts(self, kind: str, entities: Iterable[str]) -> dict[str, set[str]]:
        """``{subject: {IRI object, ...}}`` of the role ``kind`` (see
        :func:`~kg.rdf.sources.common.role_predicates`), read from the graph.

        Examples
        --------
        >>> g = rdflib.Graph()
        >>> _ = g.add((rdflib.URIRef("http://dbpedia.org/resource/Lyon"), rdflib.OWL.sameAs,
        ...            rdflib.URIRef("http://www.wikidata.org/entity/Q456")))
        >>> RdflibSource(g).facts("same_as", ["http://dbpedia.org/resource/Lyon"])
        {'http://dbpedia.org/resource/Lyon': {'http://www.wikidata.org/entity/Q456'}}
        """
        preds = role_predicates(self.vocabulary, kind)
        return self._objects(self._links.setdefault(kind, MemoCache()), preds, entities)

    # ------------------------------------------------------------------ KnowledgeSource
    def types(self, entities: Iterable[str]) -> dict[str, set[str]]:
        """The direct types of each entity that lie in the type namespaces.

        Parameters
        ----------
        entities : iterable of str
            Entity IRIs (validated with :func:`kg.iri.check_iri`).

        Returns
        -------
        dict of str -> set of str
            Every requested entity is a key (an empty set when it has no such type).

        Examples
        --------
        >>> RdflibSource(rdflib.Graph()).types(["http://dbpedia.org/resource/Nobody"])
        {'http://dbpedia.org/resource/Nobody': set()}
        """
        ns = self.type_namespaces
        return {e: {t for t in ts if in_namespaces(t, ns)}
                for e, ts in self._objects(self._types, self.vocabulary.instance_of, entities).items()}

    def categories(self, entities: Iterable[str]) -> dict[str, set[str]]:
        """The ``dct:subject`` categories of each entity.

        Parameters
        ----------
        entities : iterable of str
            Entity IRIs.

        Returns
        -------
        dict of str -> set of str
            Every requested entity is a key.

        Examples
        --------
        >>> RdflibSource(rdflib.Graph()).categories([])
        {}
        """
        return self._objects(self._cats, self.vocabulary.subject, entities)

    def class_edges(self, classes: Iterable[str]) -> set[tuple[str, str]]:
        """Every ``rdfs:subClassOf`` edge reachable upward from ``classes``, both ends in the type namespaces.

        Parameters
        ----------
        classes : iterable of str
            Class IRIs (usually the entities' direct types).

        Returns
        -------
        set of (child, parent)

        Examples
        --------
        >>> RdflibSource(rdflib.Graph()).class_edges(["http://dbpedia.org/ontology/Athlete"])
        set()
        """
        edges = breadth_first_edges(classes, lambda xs: self._objects(self._sub, self.vocabulary.subclass_of, xs), None)
        return edges_within(edges, self.type_namespaces)

    def broader(self, categories: Iterable[str], depth: int | None) -> set[tuple[str, str]]:
        """The ``skos:broader`` edges met walking up from ``categories`` at most ``depth`` levels.

        Parameters
        ----------
        categories : iterable of str
            Category IRIs.
        depth : int or None
            Levels to follow (``0``: none; ``None``: until no new category appears).

        Returns
        -------
        set of (child, parent)
            Cycles of the category graph stay in the set (each category is expanded once).

        Examples
        --------
        >>> RdflibSource(rdflib.Graph()).broader(["http://dbpedia.org/resource/Category:Sports"], 2)
        set()
        """
        return breadth_first_edges(categories, lambda xs: self._objects(self._broader, self.vocabulary.broader, xs),
                                   depth)

    def relations(self, entities: Iterable[str], direction: str) -> dict[str, set[tuple[str, str]]]:
        """``{entity: {(predicate, other), ...}}`` of the vocabulary's relation predicates (see
        :class:`~kg.sources.RelationSource`).

        Parameters
        ----------
        entities : iterable of str
            Entity IRIs.
        direction : {"out", "in"}
            The entity as the subject or as the object of the triples.

        Returns
        -------
        dict of str -> set of (str, str)
            Every requested entity is a key.

        Examples
        --------
        >>> g = rdflib.Graph()
        >>> _ = g.add((rdflib.URIRef("http://dbpedia.org/resource/Kobe"),
        ...            rdflib.URIRef("http://dbpedia.org/ontology/team"), rdflib.URIRef("http://dbpedia.org/resource/LAL")))
        >>> RdflibSource(g).relations(["http://dbpedia.org/resource/LAL"], "in")
        {'http://dbpedia.org/resource/LAL': {('http://dbpedia.org/ontology/team', 'http://dbpedia.org/resource/Kobe')}}
        """
        check_direction(direction)
        is_relation, g = self.vocabulary.is_relation, self.graph

        def fetch(todo: list[str]) -> dict[str, set[tuple[str, str]]]:
            out = {}
            for e in todo:
                node = rdflib.URIRef(check_iri(e))
                ends = g.predicate_objects(node) if direction == "out" else \
                    ((p, s) for s, p in g.subject_predicates(node))
                out[e] = {(str(p), str(x)) for p, x in ends if isinstance(x, rdflib.URIRef) and is_relation(str(p))}
            return out

        return self._relations[direction].ask(entities, fetch)

    def property_edges(self, properties: Iterable[str]) -> set[tuple[str, str]]:
        """Every subproperty-of edge reachable upward from ``properties``.

        Examples
        --------
        >>> RdflibSource(rdflib.Graph()).property_edges(["http://dbpedia.org/ontology/team"])
        set()
        """
        return property_walk(self.vocabulary, properties, lambda starts: breadth_first_edges(
            starts, lambda xs: self._objects(self._subproperty, self.vocabulary.subproperty_of, xs), None))
