"""Relations as hierarchical features: what an entity *has* (a property), and *to what* (the object's class).

The peers' most used generators (kgextension, the RapidMiner Linked Open Data extension) turn an
entity's relations into features: *unqualified* (the entity has a ``birthPlace``) and *qualified*
(it has a ``birthPlace`` to a ``City``), in either direction. They generate them flat. Here they
form a hierarchy, so every hierarchical selector applies:

- ``out:<p>`` (``in:<p>``): the entity is the subject (the object) of a triple of the relation
  predicate ``p`` (:meth:`Vocabulary.is_relation <kg.rdf.vocabulary.Vocabulary.is_relation>`);
- ``out:<p>|<C>``: ... whose other end has the class ``C`` (its instance-of types in the source's
  type namespaces, and every superclass of them);
- the implication holds along two orders: the class hierarchy of the other end
  (``out:p|City`` => ``out:p|Place`` => ``out:p``) and ``rdfs:subPropertyOf`` between predicates
  (``out:p`` => ``out:q`` and ``out:p|C`` => ``out:q|C`` when ``p`` is a subproperty of ``q``).

Feature ids are ``<direction>:<predicate IRI>`` and ``<direction>:<predicate IRI>|<class IRI>``
(``|`` never occurs in an IRI, so an id reads back unambiguously: :func:`parse_relation_id`).

Choices (documented and tested):

- A relation whose predicate is excluded (``exclude``, ``--exclude-properties``), or is a
  subproperty of an excluded one, contributes nothing: a task whose label is a property of the
  entities (a person's occupation) must not see that property among its features.
- An other end without a class in the type namespaces gives the unqualified feature only.
- The cycles of the class graph (real in Wikidata's P279) stay in the graph copied under each
  predicate; the table's hierarchy merges each copy into one feature holding every member, as the
  types' hierarchy does (:meth:`FeatureHierarchy.from_edges <kg.hierarchy.FeatureHierarchy.from_edges>`
  with ``on_cycle="merge"``), so no ancestor is lost.
- A qualified node ``(p, C)`` exists for the classes reached upward from the classes met with
  ``p`` or with one of its subproperties; a class without a parent is linked to ``p`` itself.
- With ``direction="both"`` the two directions are separate features (``out:p`` and ``in:p``).

Examples
--------
>>> import rdflib
>>> from kg.rdf.sources.rdflib_graph import RdflibSource
>>> g = rdflib.Graph().parse(format="turtle", data='''
... @prefix dbo: <http://dbpedia.org/ontology/> . @prefix dbr: <http://dbpedia.org/resource/> .
... @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
... dbr:Kobe dbo:birthPlace dbr:Philadelphia . dbr:Philadelphia a dbo:City . dbo:City rdfs:subClassOf dbo:Place .''')
>>> facts, edges, report = relation_facts(["http://dbpedia.org/resource/Kobe"], RdflibSource(g), qualified=True)
>>> [short(f) for f in sorted(facts["http://dbpedia.org/resource/Kobe"])]
['out:birthPlace', 'out:birthPlace|City']
>>> sorted((short(c), short(p)) for c, p in edges)
[('out:birthPlace|City', 'out:birthPlace|Place'), ('out:birthPlace|Place', 'out:birthPlace')]
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from kg.errors import KgfsError, ParameterError, param
from kg.sources import DIRECTIONS, breadth_first_edges

# scipy (with kg.cycles and kg.sparse) is imported inside the functions that build edges: the command line's
# early checks import this module and must stay light (tests/flows/cli/test_early_checks.py)
if TYPE_CHECKING:
    import scipy.sparse as sp

    from kg.cycles import EdgeArrays

__all__ = [
    "FEATURE_KINDS",
    "KIND_PREFIX",
    "RELATION_KINDS",
    "RelationOptions",
    "kind_of",
    "local_name",
    "parse_relation_id",
    "relation_edges",
    "relation_facts",
    "relation_features",
    "relation_groups",
    "relation_id",
    "short",
]

log = logging.getLogger(__name__)

#: Every kind of feature of the RDF route (``--features``), and those made of relations.
FEATURE_KINDS = ("types", "categories", "relations", "qualified-relations", "paths")
#: The kinds made of relations (``paths``: :mod:`kg.rdf.paths`, relations along paths with their objects).
RELATION_KINDS = ("relations", "qualified-relations", "paths")
#: How the kinds' ids are told apart in a table of several kinds (relation ids say their kind already).
KIND_PREFIX = {"types": "type:", "categories": "category:"}


@dataclass(frozen=True)
class RelationOptions:
    """How relations become features.

    Parameters
    ----------
    direction : {"out", "in", "both"}
        The entity as subject (``out``), as object (``in``), or both (``--direction``).
    exclude : tuple of str
        Predicate IRIs kept out of the features, with their subproperties (``--exclude-properties``).
    values : {"binary", "count"}
        Whether the table also holds how many relations of each feature an instance has
        (``--values count``: :meth:`FeatureTable.with_values <kg.table.FeatureTable.with_values>`).

    Examples
    --------
    >>> RelationOptions("both").directions
    ('out', 'in')
    """

    direction: str = "out"
    exclude: tuple[str, ...] = ()
    values: str = "binary"

    def __post_init__(self):
        if self.direction not in (*DIRECTIONS, "both"):
            raise ParameterError(f"{param('direction')} must be out, in or both, got {self.direction!r}")
        if self.values not in ("binary", "count"):
            raise ParameterError(f"{param('values')} must be binary or count, got {self.values!r}")
        object.__setattr__(self, "exclude", tuple(sorted(set(self.exclude))))

    @property
    def directions(self) -> tuple[str, ...]:
        """The directions asked, ``("out",)``, ``("in",)`` or ``("out", "in")``."""
        return DIRECTIONS if self.direction == "both" else (self.direction,)

    def to_json(self) -> dict:
        """The options as JSON (part of a table's provenance and of the store's keys)."""
        out = {"direction": self.direction, "exclude": list(self.exclude)}
        if self.values != "binary":  # only when asked: the keys of binary runs stay
            out["values"] = self.values
        return out


def relation_id(direction: str, predicate: str, cls: str | None = None) -> str:
    """The feature id of a relation (``cls=None``: unqualified).

    Examples
    --------
    >>> relation_id("in", "http://x/p", "http://x/C")
    'in:http://x/p|http://x/C'
    """
    return f"{direction}:{predicate}" if cls is None else f"{direction}:{predicate}|{cls}"


def parse_relation_id(fid: str) -> tuple[str, str, str | None] | None:
    """``(direction, predicate, class or None)`` of a relation feature id; ``None`` for any other id.

    Examples
    --------
    >>> parse_relation_id("out:http://x/p|http://x/C"), parse_relation_id("http://x/C")
    (('out', 'http://x/p', 'http://x/C'), None)
    """
    head, sep, rest = fid.partition(":")
    if not sep or head not in DIRECTIONS:
        return None
    pred, bar, cls = rest.partition("|")
    return head, pred, (cls if bar else None)


def kind_of(fid: str) -> str:
    """The kind of a feature id of a table of several kinds (``type:``/``category:`` prefixes, relation ids).

    Examples
    --------
    >>> kind_of("type:http://x/C"), kind_of("out:http://x/p|http://x/C"), kind_of("in:http://x/p")
    ('types', 'qualified-relations', 'relations')
    >>> kind_of("out:http://x/p>in:http://x/q"), kind_of("out:http://x/p|=http://x/o")
    ('paths', 'paths')
    """
    for kind, prefix in KIND_PREFIX.items():
        if fid.startswith(prefix):
            return kind
    rel = parse_relation_id(fid)
    if rel is None:
        return "types"
    if ">" in rel[1] or (rel[2] or "").startswith("="):  # several steps, or an object: kg.rdf.paths
        return "paths"
    return "relations" if rel[2] is None else "qualified-relations"


def short(fid: str) -> str:
    """A feature id with each IRI cut to its local name (for examples and logs).

    Examples
    --------
    >>> short("out:http://dbpedia.org/ontology/birthPlace|http://dbpedia.org/ontology/City")
    'out:birthPlace|City'
    """
    rel = parse_relation_id(fid)
    if rel is None:
        return local_name(fid)
    d, p, c = rel
    return relation_id(d, local_name(p), None if c is None else local_name(c))


def local_name(iri: str) -> str:
    """The last part of an IRI (after its last ``/`` or ``#``).

    Examples
    --------
    >>> local_name("http://dbpedia.org/ontology/City"), local_name("http://x/onto#p")
    ('City', 'p')
    """
    return iri.rstrip("/").rsplit("/", 1)[-1].rsplit("#", 1)[-1]


def _excluded(edges: set[tuple[str, str]], exclude: Sequence[str]) -> set[str]:
    """The properties that are excluded or lie below an excluded one (their features would imply it)."""
    below: dict[str, set[str]] = {}
    for c, p in edges:
        below.setdefault(p, set()).add(c)
    out, todo = set(), list(exclude)
    while todo:
        p = todo.pop()
        if p in out:
            continue
        out.add(p)
        todo.extend(below.get(p, ()))
    return out


def relation_features(
    entities: Sequence[str],
    source,
    *,
    qualified: bool,
    options: RelationOptions | None = None,
) -> tuple[dict[str, set[str]], dict]:
    """Each entity's direct relation features.

    Parameters
    ----------
    entities : sequence of str
        Entity IRIs.
    source : RelationSource
        Any source answering ``relations``, ``property_edges`` and ``types``
        (:mod:`kg.rdf.sources.common`).
    qualified : bool
        Also the ``p|C`` features (the other end's direct classes).
    options : RelationOptions, optional
        Direction and excluded predicates (``out``, none by default).

    Returns
    -------
    facts : dict of entity -> set of str
        Every entity is a key (an empty set when it has no relation).
    report : dict
        ``n_relations`` (distinct (entity, predicate, other) triples used), ``n_predicates``,
        ``excluded_predicates`` (those met and left out), ``n_classes`` (qualified: the other ends'
        distinct direct classes).

    Examples
    --------
    See the module.
    """
    facts: dict[str, set[str]] = {e: set() for e in entities}
    if hasattr(source, "relation_tally"):  # index arrays: a hub's in-links never become Python objects
        found, report = _tallied(entities, source, qualified, options or RelationOptions(), groups=False)
        for e, ids in found.items():
            facts[e].update(ids)
        return facts, report
    rows, report = _each_relation(entities, source, qualified, options or RelationOptions())
    for e, ids in rows:
        facts[e].update(ids)
    return facts, report


def relation_groups(entities: Sequence[str], source, *, qualified: bool,
                    options: RelationOptions | None = None) -> dict[str, list[list[str]]]:
    """Each entity's relations one by one, each as the direct feature ids it gives: what counts are made of.

    A relation ``(p, other)`` counts once for every feature its ids imply (``out:p|City`` and,
    above it, ``out:p|Place``, ``out:p``): an entity born in a City has a ``birthPlace`` count of 1,
    one with three ``child`` relations a ``child`` count of 3.

    Parameters
    ----------
    entities : sequence of str
    source : RelationSource
    qualified : bool
    options : RelationOptions, optional

    Returns
    -------
    dict of entity -> list of list of str
        Every entity is a key; each relation's ids sorted, the relations in a stable order (from a source
        answering ``relation_tally``, relations of the same ids are one list object repeated, consecutively).

    Examples
    --------
    >>> import rdflib
    >>> from kg.rdf.sources.rdflib_graph import RdflibSource
    >>> g = rdflib.Graph().parse(format="turtle", data='''@prefix dbo: <http://dbpedia.org/ontology/> .
    ... @prefix dbr: <http://dbpedia.org/resource/> . dbr:A dbo:child dbr:B , dbr:C .''')
    >>> relation_groups(["http://dbpedia.org/resource/A"], RdflibSource(g), qualified=False)
    {'http://dbpedia.org/resource/A': [['out:http://dbpedia.org/ontology/child'], ['out:http://dbpedia.org/ontology/child']]}
    """
    out: dict[str, list[list[str]]] = {e: [] for e in entities}
    if hasattr(source, "relation_tally"):
        found, _ = _tallied(entities, source, qualified, options or RelationOptions(), groups=True)
        out.update(found)
        return out
    rows, _ = _each_relation(entities, source, qualified, options or RelationOptions())
    for e, ids in rows:
        out[e].append(sorted(ids))
    return out


def _excluded_of(source, preds: set[str], options: RelationOptions) -> tuple[set[str], list[str]]:
    """The excluded predicates (with their subproperties), and those of them met (logged)."""
    excluded: set[str] = set()
    if options.exclude and preds:
        excluded = _excluded(source.property_edges(sorted(preds)), options.exclude)
    met_excluded = sorted(preds & excluded)
    if met_excluded:
        log.info("left out %d excluded predicate(s): %s", len(met_excluded), ", ".join(met_excluded[:5]))
    return excluded, met_excluded


def _runs(start: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positions ``start[i] .. start[i] + length[i] - 1`` of every ``i``, flat, and the ``i`` of each."""
    owner = np.repeat(np.arange(len(start)), length)
    return owner, np.repeat(start - (np.cumsum(length) - length), length) + np.arange(int(length.sum()))


def _join(other: np.ndarray, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each ``(row, class)`` of the rows' other ends: ``other`` is each row's other end and ``pairs`` the sorted
    ``(other end, class)`` pairs, both by index. Each other end's run of pairs is read from their counts (a gather
    per row, where a binary search per row cost 0.7 s for the 3.4M in-links of the hubs)."""
    if not len(other) or not len(pairs):
        return np.zeros(0, np.int64), np.zeros(0, pairs.dtype)
    count = np.bincount(pairs[:, 0], minlength=int(other.max()) + 1)
    start = np.cumsum(count) - count
    rows, at = _runs(start[other], count[other])
    return rows, pairs[at, 1]


def _class_sets(n_others: int, pairs: np.ndarray, n_classes: int) -> np.ndarray:
    """A 128-bit name of each other end's set of classes, ``(n_others, 2)``: sums of random 64-bit words of its
    classes (equal sets, equal names; unequal ones collide with probability ~ 2**-128 per pair)."""
    words = np.random.default_rng(0).integers(0, 2**63, size=(max(n_classes, 1), 2), dtype=np.uint64) * 2 + 1
    out = np.zeros((n_others, 2), np.uint64)
    if len(pairs):
        for j in (0, 1):
            np.add.at(out[:, j], pairs[:, 0], words[pairs[:, 1], j])
    return out


def _add_grouped(out: dict, names: Sequence[str], entity: np.ndarray, which: np.ndarray, ids: list[str]) -> None:
    """``out[names[e]] |= {ids[which[i]]: the rows i of e}``, the rows sorted by entity."""
    if not len(entity):
        return
    cut = (np.flatnonzero(np.diff(entity)) + 1).tolist()
    which = which.tolist()
    for a, b, e in zip([0, *cut], [*cut, len(which)], entity[[0, *cut]].tolist()):
        out[names[e]].update([ids[k] for k in which[a:b]])


def _tallied(entities, source, qualified: bool, options: RelationOptions, *, groups: bool) -> tuple[dict, dict]:
    """:func:`relation_features` (``groups=False``: each entity's direct ids) or :func:`relation_groups` (``True``)
    from a source's ``relation_tally`` (:class:`~kg.rdf.sources.common.RelationTally`), and the report: the same
    answers as the generic path, computed over index arrays. Names are built only for the distinct
    ``(entity, predicate)`` and ``(entity, predicate, class)`` features (and, for counts, once for each distinct
    ``(entity, predicate, set of classes)``), so time and memory follow those, not a hub's in-degree."""
    from kg.sparse import distinct, distinct_rows

    entities = sorted(set(entities))
    tallies = {d: source.relation_tally(entities, d, qualified=qualified) for d in options.directions}
    preds = {t.predicates[i] for t in tallies.values() for i in distinct(t.predicate).tolist()}
    excluded, met_excluded = _excluded_of(source, preds, options)
    out: dict = {e: [] if groups else set() for e in entities}
    n_relations, used, class_names = 0, set(), set()
    for d, t in tallies.items():
        names = t.entities
        drop = np.asarray([p in excluded for p in t.predicates] or [False], bool)
        keep = ~drop[t.predicate]
        ent, pred, oth = t.entity[keep], t.predicate[keep], t.other[keep]
        n_relations += len(ent)
        used.update(t.predicates[i] for i in distinct(pred).tolist())
        pairs = t.other_class if qualified and t.other_class is not None else np.zeros((0, 2), np.int64)
        if qualified:
            met = pairs[np.isin(pairs[:, 0], distinct(oth))] if len(pairs) else pairs
            class_names.update(t.classes[i] for i in distinct(met[:, 1]).tolist())
        if not groups:  # each id built once and shared by the entities that have it
            u = distinct_rows(np.stack([ent, pred], axis=1))
            _add_grouped(out, names, u[:, 0], u[:, 1], [relation_id(d, p) for p in t.predicates])
            if len(pairs):
                rows, cls = _join(oth, pairs)
                u = distinct_rows(np.stack([ent[rows], pred[rows], cls], axis=1))
                pc, which = distinct_rows(u[:, 1:], return_inverse=True)
                _add_grouped(out, names, u[:, 0], which.ravel(),
                             [relation_id(d, t.predicates[p], t.classes[c]) for p, c in pc.tolist()])
            continue
        # counts: the relations of one (entity, predicate, set of classes) give the same ids, once each
        sets = _class_sets(t.n_others, pairs, len(t.classes))
        key = np.stack([ent, pred, *(sets[oth, j].view(np.int64) for j in (0, 1))], axis=1)
        _, first, many = np.unique(key, axis=0, return_index=True, return_counts=True)
        for i, k in zip(first.tolist(), many.tolist()):
            p = t.predicates[int(pred[i])]
            o = int(oth[i])
            lo, hi = np.searchsorted(pairs[:, 0], [o, o + 1]) if len(pairs) else (0, 0)
            ids = sorted({relation_id(d, p), *(relation_id(d, p, t.classes[c]) for c in pairs[lo:hi, 1].tolist())})
            out[names[int(ent[i])]].extend([ids] * k)
    report = {"n_relations": n_relations, "n_predicates": len(used), "excluded_predicates": met_excluded}
    if qualified:
        report["n_classes"] = len(class_names)
    return out, report


def _each_relation(entities, source, qualified: bool, options: RelationOptions) -> tuple[list, dict]:
    """``[(entity, {direct ids of one relation}), ...]`` in a stable order, and the report."""
    if not hasattr(source, "relations"):
        raise KgfsError(f"{type(source).__name__} does not answer relation questions (it is no RelationSource)")
    entities = sorted(set(entities))
    pairs = {d: source.relations(entities, d) for d in options.directions}
    preds = {p for per in pairs.values() for ps in per.values() for p, _ in ps}
    excluded, met_excluded = _excluded_of(source, preds, options)
    classes: dict[str, set[str]] = {}
    if qualified:
        others = sorted({o for per in pairs.values() for ps in per.values() for p, o in ps if p not in excluded})
        classes = source.types(others) if others else {}
    wanted = set(entities)
    rows, used = [], set()
    for d, per in pairs.items():
        for e in sorted(per):
            if e not in wanted:
                continue
            for p, o in sorted(per[e]):
                if p in excluded:
                    continue
                used.add(p)
                rows.append((e, {relation_id(d, p), *(relation_id(d, p, c) for c in classes.get(o, ()))}))
    report = {"n_relations": len(rows), "n_predicates": len(used), "excluded_predicates": met_excluded}
    if qualified:
        report["n_classes"] = len({c for cs in classes.values() for c in cs})
    return rows, report


def relation_edges(features: Iterable[str], source) -> EdgeArrays:
    """The hierarchy edges above direct relation features (see the module for its two orders).

    Parameters
    ----------
    features : iterable of str
        Relation feature ids (:func:`relation_id`), as :func:`relation_features` gives them.
    source : RelationSource
        Answers ``property_edges`` and ``class_edges``.

    Returns
    -------
    EdgeArrays
        A set of ``(child, parent)`` between feature ids, held as index arrays (the in-links of hubs give millions
        of them); cycles of the property or class graphs stay (the route merges or breaks them).

    Examples
    --------
    See the module.
    """
    # direction -> predicate -> {each direct class met with it: its feature id}, and its unqualified id when met:
    # the hierarchy's names are these very strings (the facts hold them), not copies
    met: dict[str, dict[str, dict[str, str]]] = {}
    unqualified: dict[str, dict[str, str]] = {}
    for fid in features:
        rel = parse_relation_id(fid)
        if rel is None:
            raise ValueError(f"not a relation feature id: {fid!r}")
        d, p, c = rel
        cs = met.setdefault(d, {}).setdefault(p, {})
        if c is not None:
            cs[c] = fid
        else:
            unqualified.setdefault(d, {})[p] = fid
    preds = sorted({p for per in met.values() for p in per})
    pedges = source.property_edges(preds) if preds else set()
    direct = sorted({c for per in met.values() for cs in per.values() for c in cs})
    cedges = _class_graph(source.class_edges(direct)) if direct else set()
    from kg.cycles import EdgeArrays

    # each direction's ids start with it ("out:", "in:"): the parts share no name
    return EdgeArrays.disjoint([_direction_edges(d, per, unqualified.get(d, {}), pedges, cedges)
                                for d, per in met.items()])


def relation_facts(
    entities: Sequence[str],
    source,
    *,
    qualified: bool,
    options: RelationOptions | None = None,
) -> tuple[dict[str, set[str]], set[tuple[str, str]], dict]:
    """:func:`relation_features` and the :func:`relation_edges` above them, in one call.

    Returns
    -------
    facts : dict of entity -> set of str
    edges : set of (child, parent)
    report : dict

    Examples
    --------
    See the module.
    """
    facts, report = relation_features(entities, source, qualified=qualified, options=options)
    edges = relation_edges(sorted({f for fs in facts.values() for f in fs}), source)
    return facts, edges, report


def _class_graph(edges: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The class graph of the relations' other ends, as it is: its cycles (Wikidata's P279 has them) stay, so
    each qualified relation's copy of a cycle is one strongly connected component of the table's hierarchy,
    merged there into one feature holding every member (subclass-of is transitive: breaking a cycle here
    lost the ancestors behind the removed edges; :meth:`kg.rdf.kinds.FeatureSpec.on_cycle`). The walks
    above it visit each class once, so a cycle ends them."""
    return set(edges)


def _parents_in(edges: Iterable[tuple[str, str]]):
    parents: dict[str, set[str]] = {}
    for c, p in edges:
        parents.setdefault(c, set()).add(p)
    return lambda xs: {x: parents.get(x, set()) for x in xs}


def _graph(edges: Iterable[tuple[str, str]], index: Mapping[str, int], n: int) -> sp.csr_matrix:
    """``G[child, parent] = 1`` of the edges between ids of ``index``."""
    import scipy.sparse as sp

    from kg.sparse import binary_csr

    pairs = [(index[c], index[p]) for c, p in edges if c in index and p in index]
    rows, cols = (np.asarray(x, np.int64) for x in zip(*pairs)) if pairs else (np.zeros(0, np.int64),) * 2
    return binary_csr(sp.csr_matrix((np.ones(len(rows), np.int8), (rows, cols)), shape=(n, n)))


def _rows_of(m: sp.csr_matrix, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The stored columns of the rows ``at`` of ``m``, flat: ``(position in at, column)`` pairs."""
    which, pos = _runs(m.indptr[at].astype(np.int64), np.diff(m.indptr)[at])
    return which, m.indices[pos].astype(np.int64)


def _direction_edges(d: str, met: Mapping[str, Mapping[str, str]], unqualified: Mapping[str, str],
                     pedges: set[tuple[str, str]], cedges: set[tuple[str, str]]) -> EdgeArrays:
    """The edges among one direction's ``d:p`` and ``d:p|C`` nodes, as index arrays (millions of them for the
    in-links of hubs, so no pair is built). ``met`` is each predicate's direct classes met (maybe none), each
    with its feature id, ``unqualified`` the unqualified ids met: those nodes are named by those strings.

    - ``d:p -> d:q`` for every subproperty edge above the predicates met;
    - the qualified nodes: under each predicate ``q``, the classes met with ``q`` or with a predicate below it,
      and every class above them (:func:`kg.sparse.reach_upward` over the class graph);
    - ``d:q|C -> d:q|P`` for each class edge ``C -> P`` there, ``d:q|C -> d:q`` for a class without a parent,
      and ``d:q|C -> d:r|C`` for each direct superproperty ``r`` of ``q``.
    """
    import scipy.sparse as sp

    from kg.cycles import EdgeArrays
    from kg.sparse import reach_upward

    above = breadth_first_edges(met, _parents_in(pedges), None)
    props = sorted(set(met) | {x for e in above for x in e})
    pix = {p: i for i, p in enumerate(props)}
    n_p = len(props)
    prop_graph = _graph(above, pix, n_p)
    plain = prop_graph.tocoo()
    names = [unqualified.get(p) or relation_id(d, p) for p in props]
    child, parent = [plain.row.astype(np.int64)], [plain.col.astype(np.int64)]
    qualified = {p: cs for p, cs in met.items() if cs}
    if qualified:
        classes = sorted(set().union(*qualified.values()) | {x for e in cedges for x in e})
        cix = {c: i for i, c in enumerate(classes)}
        k = len(classes)
        rows = np.asarray([pix[p] for p, cs in qualified.items() for _ in cs], np.int64)
        cols = np.asarray([cix[c] for cs in qualified.values() for c in cs], np.int64)
        direct = sp.csr_matrix((np.ones(len(rows), np.int8), (rows, cols)), shape=(n_p, k))
        class_graph = _graph(cedges, cix, k)
        # the classes of each predicate: its own and its subproperties' (each class's predicates closed up the
        # property graph), then every class above them
        anc = reach_upward(reach_upward(direct.T.tocsr(), prop_graph).T.tocsr(), class_graph)
        anc.sort_indices()
        q = np.repeat(np.arange(n_p), np.diff(anc.indptr))
        c = anc.indices.astype(np.int64)
        keys = q * k + c  # sorted: one qualified node each, numbered n_p + its position
        node = n_p + np.arange(len(keys))
        # the direct ones named by their own ids, the others built (relation_id(d, p, C) is the head and C)
        qnames = np.empty(len(keys), dtype=object)
        at = np.searchsorted(keys, rows * k + cols)  # every direct (predicate, class) is among the nodes reached
        qnames[at] = [fid for cs in qualified.values() for fid in cs.values()]
        todo = np.flatnonzero(np.equal(qnames, None))
        heads = np.asarray([relation_id(d, p, "") for p in props], dtype=object)
        qnames[todo] = heads[q[todo]] + np.asarray(classes, dtype=object)[c[todo]]
        names += qnames.tolist()
        del qnames
        i, up = _rows_of(class_graph, c)  # each node's class parents
        j, sup = _rows_of(prop_graph, q)  # each node's predicate's direct superproperties
        top = np.diff(class_graph.indptr)[c] == 0
        # every (predicate, class) reached is a node: its number is n_p + its position among the sorted keys
        child += [node[i], node[top], node[j]]
        parent += [n_p + np.searchsorted(keys, q[i] * k + up), q[top], n_p + np.searchsorted(keys, sup * k + c[j])]
    # the names are distinct by construction (distinct predicates; distinct (predicate, class) keys)
    return EdgeArrays.from_distinct(names, np.concatenate(child), np.concatenate(parent))
