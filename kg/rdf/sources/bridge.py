"""Between two graphs: entities through ``owl:sameAs``, classes through ``owl:equivalentClass``.

A corpus annotated with one graph's entities (DBpedia Spotlight, the DBpedia lexicon) can take its
features from another graph (Wikidata) in two ways, each a
:class:`~kg.sources.KnowledgeSource` wrapping the target graph's source:

- :class:`SameAsSource` (``--bridge same-as``): each entity is replaced by the entities its
  ``owl:sameAs`` links name in the target graph (DBpedia's ``sameas`` files link
  ``dbr:Lyon owl:sameAs wd:Q456``); its types or categories are theirs, and the hierarchy is the
  target graph's. An entity already in the target graph is kept as it is.
- :class:`EquivalentClassSource` (``--bridge equivalent-class``): each entity keeps its own graph's
  types (``rdf:type`` in DBpedia), and each type is replaced by the classes its
  ``owl:equivalentClass`` links name in the target graph (the DBpedia ontology links
  ``dbo:Actor owl:equivalentClass wd:Q33999``); the hierarchy above them is the target graph's
  (``wdt:P279``). A type without such a link is dropped (the table is the target graph's).

The links are facts of the linking graph's source (``same_as`` and ``equivalent_class``, read by
every source: the dump index, a streamed dump, rdflib, SPARQL). Which entities or classes had no
link is reported in :attr:`report` (and in the table's meta, ``entities_without_link`` /
``types_without_link``).

Examples
--------
>>> import rdflib
>>> from kg.rdf.sources.rdflib_graph import RdflibSource
>>> from kg.rdf.vocabulary import WIKIDATA
>>> links = rdflib.Graph().parse(format="turtle", data='''
... @prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix wd: <http://www.wikidata.org/entity/> .
... <http://dbpedia.org/resource/Lyon> owl:sameAs wd:Q456 .''')
>>> wikidata = rdflib.Graph().parse(format="turtle", data='''
... @prefix wd: <http://www.wikidata.org/entity/> . @prefix wdt: <http://www.wikidata.org/prop/direct/> .
... wd:Q456 wdt:P31 wd:Q484170 . wd:Q484170 wdt:P279 wd:Q515 .''')
>>> src = SameAsSource(RdflibSource(wikidata, vocabulary=WIKIDATA), RdflibSource(links))
>>> src.types(["http://dbpedia.org/resource/Lyon", "http://dbpedia.org/resource/Nowhere"])
{'http://dbpedia.org/resource/Lyon': {'http://www.wikidata.org/entity/Q484170'}, \
'http://dbpedia.org/resource/Nowhere': set()}
>>> src.report["entities_without_link"]
['http://dbpedia.org/resource/Nowhere']
"""

from __future__ import annotations

from collections.abc import Iterable

from kg.errors import ParameterError, param
from kg.sources import KnowledgeSource, SourceBase

__all__ = ["BRIDGES", "EquivalentClassSource", "SameAsSource"]

#: The ways between graphs, by their ``--bridge`` name.
BRIDGES = ("same-as", "equivalent-class")


def _in(iri: str, namespaces: tuple[str, ...]) -> bool:
    return iri.startswith(namespaces)


class SameAsSource(SourceBase):
    """The target graph's facts of the entities an entity's ``owl:sameAs`` links name (see the module).

    Parameters
    ----------
    target : KnowledgeSource
        The graph the features come from (its ``type_namespaces`` and vocabulary say which
        entities are its own: an IRI under its ``id_namespace``, or its entity namespaces).
    links : source with ``facts(kind, entities)``
        Where the ``same_as`` links are (the linking graph's source).

    Attributes
    ----------
    report : dict
        ``entities_without_link``: the entities asked about that have no link into the target graph.

    Examples
    --------
    See the module.
    """

    def __init__(self, target: KnowledgeSource, links):
        self.target, self.links = target, links
        v = getattr(target, "vocabulary", None)
        spaces = set(getattr(v, "entities", ()) or ())
        if v is not None and v.id_namespace:
            spaces.add(v.id_namespace)
        self.namespaces = tuple(sorted(spaces)) or tuple(getattr(target, "type_namespaces", ()))
        self.report: dict = {"entities_without_link": []}
        self._map: dict[str, tuple[str, ...]] = {}

    def __repr__(self) -> str:
        return f"SameAsSource({self.target!r}, links={self.links!r})"

    def describe(self) -> dict:
        """Provenance: the target's description with the links' source.

        Returns
        -------
        dict

        Examples
        --------
        >>> import rdflib
        >>> from kg.rdf.sources.rdflib_graph import RdflibSource
        >>> SameAsSource(RdflibSource(rdflib.Graph()), RdflibSource(rdflib.Graph())).describe()["bridge"]
        'same-as'
        """
        d = self.target.describe() if hasattr(self.target, "describe") else {"source": repr(self.target)}
        return {**d, "bridge": "same-as", "links": self.links.describe() if hasattr(self.links, "describe") else
                repr(self.links)}

    def mapped(self, entities: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """Each entity's entities in the target graph (itself when it is one of them).

        Parameters
        ----------
        entities : iterable of str

        Returns
        -------
        dict of str -> tuple of str

        Examples
        --------
        See the module.
        """
        entities = list(dict.fromkeys(entities))
        todo = [e for e in entities if e not in self._map and not _in(e, self.namespaces)]
        if todo:
            found = self.links.facts("same_as", todo)
            for e in todo:
                self._map[e] = tuple(sorted(o for o in found.get(e, ()) if _in(o, self.namespaces)))
                if not self._map[e]:
                    self.report["entities_without_link"].append(e)
        return {e: (e,) if _in(e, self.namespaces) else self._map[e] for e in entities}

    def _through(self, ask, entities: Iterable[str]) -> dict[str, set[str]]:
        m = self.mapped(entities)
        answers = ask(sorted({t for ts in m.values() for t in ts}))
        return {e: set().union(*(answers.get(t, set()) for t in ts)) if ts else set() for e, ts in m.items()}

    def types(self, entities: Iterable[str]) -> dict[str, set[str]]:
        """The target graph's types of each entity's linked entities.

        Parameters
        ----------
        entities : iterable of str

        Returns
        -------
        dict

        Examples
        --------
        See the module.
        """
        return self._through(self.target.types, entities)

    def categories(self, entities: Iterable[str]) -> dict[str, set[str]]:
        """The target graph's categories of each entity's linked entities.

        Parameters
        ----------
        entities : iterable of str

        Returns
        -------
        dict

        Examples
        --------
        >>> import rdflib
        >>> from kg.rdf.sources.rdflib_graph import RdflibSource
        >>> SameAsSource(RdflibSource(rdflib.Graph()), RdflibSource(rdflib.Graph())).categories(["http://x/a"])
        {'http://x/a': set()}
        """
        return self._through(self.target.categories, entities)

    def class_edges(self, classes: Iterable[str]) -> set[tuple[str, str]]:
        """The target graph's subclass edges above the classes.

        Parameters
        ----------
        classes : iterable of str

        Returns
        -------
        set of (str, str)

        Examples
        --------
        See the module.
        """
        return self.target.class_edges(classes)

    def broader(self, categories: Iterable[str], depth: int | None) -> set[tuple[str, str]]:
        """The target graph's broader edges above the categories.

        Parameters
        ----------
        categories : iterable of str
        depth : int or None

        Returns
        -------
        set of (str, str)

        Examples
        --------
        See :meth:`categories`.
        """
        return self.target.broader(categories, depth)


class EquivalentClassSource(SourceBase):
    """An entity's own types mapped through ``owl:equivalentClass`` into the target graph's classes (see the module).

    Parameters
    ----------
    target : KnowledgeSource
        The graph of the classes and their hierarchy (its ``type_namespaces`` say which classes are its own).
    own : KnowledgeSource
        The entities' graph: their types and the ``equivalent_class`` links of those types
        (``own.facts("equivalent_class", ...)``). Its type namespaces should hold the linked types
        (DBpedia's ontology by default).

    Attributes
    ----------
    report : dict
        ``types_without_link``: the entities' types that have no link into the target graph (dropped).

    Examples
    --------
    >>> import rdflib
    >>> from kg.rdf.sources.rdflib_graph import RdflibSource
    >>> from kg.rdf.vocabulary import WIKIDATA
    >>> dbp = rdflib.Graph().parse(format="turtle", data='''
    ... @prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix dbo: <http://dbpedia.org/ontology/> .
    ... <http://dbpedia.org/resource/Kobe> a dbo:BasketballPlayer, dbo:Person .
    ... dbo:BasketballPlayer owl:equivalentClass <http://www.wikidata.org/entity/Q3665646> .''')
    >>> wd = rdflib.Graph().parse(format="turtle", data='''
    ... @prefix wd: <http://www.wikidata.org/entity/> . @prefix wdt: <http://www.wikidata.org/prop/direct/> .
    ... wd:Q3665646 wdt:P279 wd:Q2066131 .''')
    >>> src = EquivalentClassSource(RdflibSource(wd, vocabulary=WIKIDATA), RdflibSource(dbp))
    >>> src.types(["http://dbpedia.org/resource/Kobe"])
    {'http://dbpedia.org/resource/Kobe': {'http://www.wikidata.org/entity/Q3665646'}}
    >>> sorted(src.class_edges(["http://www.wikidata.org/entity/Q3665646"]))
    [('http://www.wikidata.org/entity/Q3665646', 'http://www.wikidata.org/entity/Q2066131')]
    >>> src.report["types_without_link"]
    ['http://dbpedia.org/ontology/Person']
    """

    def __init__(self, target: KnowledgeSource, own):
        self.target, self.own = target, own
        self.namespaces = tuple(getattr(target, "type_namespaces", ()))
        self.report: dict = {"types_without_link": []}
        self._map: dict[str, tuple[str, ...]] = {}

    def __repr__(self) -> str:
        return f"EquivalentClassSource({self.target!r}, own={self.own!r})"

    def describe(self) -> dict:
        """Provenance: the target's description with the entities' own source.

        Returns
        -------
        dict

        Examples
        --------
        >>> import rdflib
        >>> from kg.rdf.sources.rdflib_graph import RdflibSource
        >>> EquivalentClassSource(RdflibSource(rdflib.Graph()), RdflibSource(rdflib.Graph())).describe()["bridge"]
        'equivalent-class'
        """
        d = self.target.describe() if hasattr(self.target, "describe") else {"source": repr(self.target)}
        return {**d, "bridge": "equivalent-class", "types_from": self.own.describe() if hasattr(self.own, "describe")
                else repr(self.own)}

    def types(self, entities: Iterable[str]) -> dict[str, set[str]]:
        """Each entity's own types, as the target graph's classes they are equivalent to.

        Parameters
        ----------
        entities : iterable of str

        Returns
        -------
        dict

        Examples
        --------
        See the class.
        """
        own = self.own.types(entities)
        classes = sorted({t for ts in own.values() for t in ts})
        todo = [c for c in classes if c not in self._map]
        if todo:
            links = self.own.facts("equivalent_class", todo)
            for c in todo:
                self._map[c] = tuple(sorted(o for o in links.get(c, ()) if _in(o, self.namespaces)))
                if not self._map[c]:
                    self.report["types_without_link"].append(c)
        return {e: {m for t in ts for m in self._map[t]} for e, ts in own.items()}

    def categories(self, entities: Iterable[str]) -> dict[str, set[str]]:
        """Not available through classes: an error.

        Parameters
        ----------
        entities : iterable of str

        Raises
        ------
        ParameterError
            A ``ValueError`` naming the parameters (``bridge``, ``features``).

        Examples
        --------
        >>> import rdflib
        >>> from kg.rdf.sources.rdflib_graph import RdflibSource
        >>> EquivalentClassSource(RdflibSource(rdflib.Graph()), RdflibSource(rdflib.Graph())).categories([])
        Traceback (most recent call last):
        ...
        kg.errors.ParameterError: bridge='equivalent-class' maps types, not categories (use features='types')
        """
        raise ParameterError(f"{param('bridge', 'equivalent-class')} maps types, not categories (use "
                             f"{param('features', 'types')})")

    def class_edges(self, classes: Iterable[str]) -> set[tuple[str, str]]:
        """The target graph's subclass edges above the classes.

        Parameters
        ----------
        classes : iterable of str

        Returns
        -------
        set of (str, str)

        Examples
        --------
        See the class.
        """
        return self.target.class_edges(classes)

    def broader(self, categories: Iterable[str], depth: int | None) -> set[tuple[str, str]]:
        """Not available through classes: an error (see :meth:`categories`).

        Parameters
        ----------
        categories : iterable of str
        depth : int or None

        Raises
        ------
        ValueError

        Examples
        --------
        See :meth:`categories`.
        """
        return self.categories(categories)
