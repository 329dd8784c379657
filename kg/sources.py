"""The protocol between kgfs and a knowledge source or an annotator: every member callers use.

A **knowledge source** answers four questions about entities (:class:`KnowledgeSource`; the semantics are
those of :mod:`kg.rdf.sources.common`), and two more when it knows relations (:class:`RelationSource`). Beside
them, callers read a few members that every kgfs source has through :class:`SourceBase`:

``describe()``
    Provenance (a JSON-able value) for the table's ``meta["source"]`` and the caches' keys.
``vocabulary``
    The :class:`~kg.rdf.vocabulary.Vocabulary` the source reads (``None`` for a source of another kind:
    an ontology's annotations).
``entity_iris``
    Whether the source's entities are IRIs (an annotator's, or ``prefix:local`` names expanded by the
    vocabulary) or plain identifiers taken as they are (genes of an annotation file).
``stored``
    Whether its answers are a run's stored direct features and edges (:class:`kg.rdf.stored.StoredSource`).
``report``
    What the source met on the way (bad dump lines, entities without a link): a dict, empty by default.
``labels(iris)``
    Names of features, ``{iri: label}`` for those it knows (none by default).

A source written outside kgfs needs only the four questions: :func:`as_source` gives it the rest.

An **annotator** finds entities in texts (:class:`Annotator`), as :class:`Annotation` lists.

Examples
--------
>>> class Tiny:
...     def types(self, entities): return {e: {"C"} for e in entities}
...     def class_edges(self, classes): return set()
...     def categories(self, entities): return {e: set() for e in entities}
...     def broader(self, categories, depth): return set()
>>> s = as_source(Tiny())
>>> s.types(["E"]), s.entity_iris, s.stored, s.report, s.labels(["C"])
({'E': {'C'}}, True, False, {}, {})
>>> isinstance(s, KnowledgeSource), isinstance(s, RelationSource)
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from kg.errors import ParameterError, param

__all__ = ["Annotation", "Annotator", "AnnotatorBase", "KnowledgeSource", "Opening", "RelationSource", "SourceBase",
           "as_source",
           "breadth_first_edges", "DIRECTIONS"]

QUESTIONS = ("types", "class_edges", "categories", "broader")
#: The directions of a :class:`RelationSource`'s ``relations(entities, direction)`` (here, outside ``kg.rdf``, so
#: that the relation generators need nothing of ``kg.rdf.sources``: the sources' labels use them).
DIRECTIONS = ("out", "in")


@runtime_checkable
class KnowledgeSource(Protocol):
    """What :func:`kg.rdf.table.assemble_table` needs from a knowledge graph (see the module doc).

    kgfs's sources also have the members of :class:`SourceBase` (see the module doc).

    Examples
    --------
    >>> import rdflib
    >>> from kg.rdf.sources.rdflib_graph import RdflibSource
    >>> isinstance(RdflibSource(rdflib.Graph()), KnowledgeSource), isinstance(object(), KnowledgeSource)
    (True, False)
    """

    def types(self, entities: Iterable[str]) -> dict[str, set[str]]: ...

    def class_edges(self, classes: Iterable[str]) -> set[tuple[str, str]]: ...

    def categories(self, entities: Iterable[str]) -> dict[str, set[str]]: ...

    def broader(self, categories: Iterable[str], depth: int | None) -> set[tuple[str, str]]: ...


@runtime_checkable
class RelationSource(Protocol):
    """A :class:`KnowledgeSource` that also answers the relation questions (see the module doc).

    Examples
    --------
    >>> import rdflib
    >>> from kg.rdf.sources.rdflib_graph import RdflibSource
    >>> isinstance(RdflibSource(rdflib.Graph()), RelationSource)
    True
    """

    def relations(self, entities: Iterable[str], direction: str) -> dict[str, set[tuple[str, str]]]: ...

    def property_edges(self, properties: Iterable[str]) -> set[tuple[str, str]]: ...


class Opening:
    """How a registered source or annotator is opened by name (:data:`kg.rdf.sources.SOURCES`,
    :data:`kg.rdf.annotators.ANNOTATORS`): what it needs, what decides its answers, what it reaches.

    ``settings`` is the route's :class:`~kg.rdf.sources.common.Settings` (URLs, dump files, vocabulary, access).
    A plug-in overrides :meth:`open` and, where it has them, :attr:`requires`, :meth:`key`, :attr:`reads_dump`
    and :meth:`services`; the route asks these instead of comparing names.
    """

    #: The settings it cannot open without (checked by :meth:`check` before any work, named by the error).
    requires: tuple[str, ...] = ()
    #: It answers from the route's dump files (the dump index ingests them up front).
    reads_dump: bool = False

    @classmethod
    def check(cls, settings, name: str, parameter: str) -> None:
        """Raise a :class:`~kg.errors.ParameterError` naming the first missing requirement (nothing is read)."""
        for need in cls.requires:
            if getattr(settings, need, None) in (None, "", (), []):
                raise ParameterError(f"{param(parameter, name)} needs {param(need)}{cls.needs_hint(need)}")

    @classmethod
    def needs_hint(cls, need: str) -> str:
        """More words after "needs X" (what the files must hold)."""
        return ""

    @classmethod
    def key(cls, settings) -> dict:
        """What decides its answers besides its name (part of the stage's store key)."""
        return {}

    @classmethod
    def services(cls, settings) -> list[tuple[str, str]]:
        """``(url, setting)`` of each service it reaches (the run's checks try them first)."""
        return []

    @classmethod
    def probe(cls, url: str, timeout: float) -> None:
        """Ask the service at ``url`` one small question (raises when it does not answer as it should)."""

    @classmethod
    def open(cls, settings):
        """The source or annotator for ``settings``."""
        raise NotImplementedError(f"{cls.__name__} cannot be opened by name")


class SourceBase(Opening):
    """The members every kgfs knowledge source has beside the questions, with their defaults (see the module doc).

    Examples
    --------
    >>> SourceBase().describe(), SourceBase().vocabulary, SourceBase().entity_iris
    ('SourceBase', None, True)
    """

    #: The vocabulary the source reads (``None``: not an RDF source).
    vocabulary: Any = None
    #: Entities are IRIs (else plain identifiers, taken as they are).
    entity_iris: bool = True
    #: The answers are a run's stored direct features and edges.
    stored: bool = False

    @property
    def report(self) -> dict:
        """What the source met on the way (empty unless the source keeps one in ``self._report``)."""
        return self.__dict__.setdefault("_report", {})

    @report.setter
    def report(self, value: dict) -> None:
        self.__dict__["_report"] = value

    def describe(self):
        """Provenance of the answers (a JSON-able value)."""
        return type(self).__name__

    def labels(self, iris: Iterable[str]) -> dict[str, str]:
        """``{iri: label}`` for the features the source can name (none by default)."""
        return {}


class _Adapted(SourceBase):
    """A source written outside kgfs with :class:`SourceBase`'s defaults for what it does not have."""

    def __init__(self, inner):
        self.__dict__["_inner"] = inner

    def __getattr__(self, name):  # the inner source's own members (relations, ...) win over nothing
        return getattr(self.__dict__["_inner"], name)

    def __repr__(self) -> str:
        return repr(self.__dict__["_inner"])

    def _own(self, name, default):
        inner = self.__dict__["_inner"]
        return getattr(inner, name) if hasattr(inner, name) else default

    vocabulary = property(lambda self: self._own("vocabulary", None))
    entity_iris = property(lambda self: self._own("entity_iris", True))
    stored = property(lambda self: self._own("stored", False))
    report = property(lambda self: self._own("report", {}))

    def describe(self):
        inner = self.__dict__["_inner"]
        return inner.describe() if hasattr(inner, "describe") else repr(inner)

    def labels(self, iris):
        inner = self.__dict__["_inner"]
        return inner.labels(iris) if hasattr(inner, "labels") else {}

    for _q in QUESTIONS:
        locals()[_q] = (lambda name: lambda self, *a, **k: getattr(self.__dict__["_inner"], name)(*a, **k))(_q)
    del _q


def as_source(source, name: str = "source") -> SourceBase:
    """``source`` with every member of the protocol: a kgfs source as it is, another one adapted.

    Parameters
    ----------
    source : object
        Anything that answers the four questions (``types``, ``class_edges``, ``categories``, ``broader``).
    name : str
        The parameter it was given as (named by the error).

    Raises
    ------
    TypeError
        ``source`` lacks one of the questions.
    """
    if isinstance(source, SourceBase):
        return source
    missing = [m for m in QUESTIONS if not callable(getattr(source, m, None))]
    if missing:
        raise TypeError(f"{name} must be a knowledge source ({', '.join(QUESTIONS)}) or an rdflib.Graph, got "
                        f"{type(source).__name__} (no {', '.join(missing)})")
    return _Adapted(source)


class AnnotatorBase(Opening):
    """What every kgfs annotator is besides ``annotate``: a plug-in opened by name (:class:`Opening`)."""


@dataclass(frozen=True, slots=True)  # slots: a long text's mentions are many (a third of the memory)
class Annotation:
    """One entity mention found in a text.

    Attributes
    ----------
    uri : str
        The entity IRI.
    surface_form : str
        The text span as it appears in the text.
    offset : int
        Character offset of the span in the text.
    support : int, optional
        Spotlight's ``@support`` (in-link count), when known.
    score : float, optional
        Spotlight's ``@similarityScore`` or the lexicon's prior.
    types : tuple of str
        Spotlight's ``@types`` (``DBpedia:Person``, ...), when given.

    Examples
    --------
    >>> a = Annotation("http://dbpedia.org/resource/Lyon", "Lyon", 10, support=2500)
    >>> a.surface_form, a.offset, a.score
    ('Lyon', 10, None)
    """

    uri: str
    surface_form: str
    offset: int
    support: int | None = None
    score: float | None = None
    types: tuple[str, ...] = ()


@runtime_checkable
class Annotator(Protocol):
    """Finds entities in texts: ``annotate(texts) -> [[Annotation, ...], ...]`` (one list per text).

    Examples
    --------
    >>> from kg.rdf.annotators.lexicon import LexiconAnnotator
    >>> isinstance(LexiconAnnotator({"http://dbpedia.org/resource/Lyon": ["Lyon"]}), Annotator)
    True
    """

    def annotate(self, texts: Sequence[str]) -> list[list[Annotation]]: ...


def breadth_first_edges(
    start: Iterable[str],
    parents_of: Callable[[list[str]], dict[str, set[str]]],
    depth: int | None,
) -> set[tuple[str, str]]:
    """Edges met walking upward from ``start`` level by level, each node expanded once.

    Parameters
    ----------
    start : iterable of str
        The nodes to walk up from.
    parents_of : callable
        ``parents_of(nodes)`` returns the direct parents of a list of nodes (one batched
        lookup per level).
    depth : int or None
        Levels to walk; ``None`` walks until no new node appears.

    Returns
    -------
    set of (child, parent)
        Cycles stay in the set (each node is expanded once, so they end the walk).

    Examples
    --------
    >>> graph = {"a": {"b"}, "b": {"c"}, "c": {"d"}}
    >>> sorted(breadth_first_edges(["a"], lambda xs: {x: graph.get(x, set()) for x in xs}, 2))
    [('a', 'b'), ('b', 'c')]
    """
    if depth is not None and depth < 0:
        raise ValueError(f"depth must be >= 0 or None, got {depth}")
    seen = set(start)
    frontier = sorted(seen)
    edges: set[tuple[str, str]] = set()
    level = 0
    while frontier and (depth is None or level < depth):
        found = parents_of(frontier)
        nxt = set()
        for child in frontier:
            for p in found.get(child, ()):
                edges.add((child, p))
                if p not in seen:
                    seen.add(p)
                    nxt.add(p)
        frontier = sorted(nxt)
        level += 1
    return edges
