"""The RDF route in pieces over stored results: annotate in batches, fetch in batches, build.

The steps of :class:`kg.rdf.route.CorpusInput` are made of these functions: annotate a
range of texts (:func:`annotate_batch`, merged by :func:`merge_annotations`), fetch the direct
types or categories of a batch of entities (:func:`fetch_features`), then the hierarchy above
them (:func:`fetch_hierarchy`), and build the table from those stored answers
(:func:`table_from_records`, through :class:`StoredSource`, a knowledge source answering from a
fetch result). The external calls (Spotlight, SPARQL) happen only in the batch functions.

Examples
--------
>>> from kg.rdf.corpus import Corpus
>>> c = Corpus(ids=["t1", "t2"], entities=[["http://dbpedia.org/resource/Kobe_Bryant"], []], labels=[1, 0])
>>> payload, summary = annotate_batch(c, 0, 2, None)
>>> payload["entities"], summary
([['http://dbpedia.org/resource/Kobe_Bryant'], []], {'n_instances': 2, 'n_mentions': 1})
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from kg.rdf.corpus import Corpus
from kg.rdf.kinds import FeatureSpec
from kg.rdf.table import assemble_table
from kg.sources import SourceBase, as_source

if TYPE_CHECKING:  # numpy/scipy load with the first table, not with the route's specs and checks
    from kg.table import FeatureTable

__all__ = ["StoredSource", "annotate_batch", "corpus_batches", "entity_batches", "fetch_features", "fetch_hierarchy",
           "merge_annotations", "pack_facts", "pack_groups", "table_from_records", "unpack_facts", "unpack_groups"]


def corpus_batches(n: int, batch_size: int = 500) -> list[list[int]]:
    """``[start, stop)`` ranges over ``n`` instances, ``batch_size`` each (one empty range for none).

    Parameters
    ----------
    n : int
    batch_size : int

    Returns
    -------
    list of [int, int]

    Examples
    --------
    >>> corpus_batches(5, 2), corpus_batches(0)
    ([[0, 2], [2, 4], [4, 5]], [[0, 0]])
    """
    b = max(1, int(batch_size))
    return [[i, min(i + b, n)] for i in range(0, n, b)] or [[0, 0]]


def annotate_batch(corpus: Corpus, start: int, stop: int, annotator) -> tuple[dict, dict]:
    """Entity linking of instances ``start:stop`` (the annotator, or the corpus's entity columns).

    Parameters
    ----------
    corpus : Corpus
    start, stop : int
    annotator : Annotator or None
        Not used when the corpus gives entities.

    Returns
    -------
    payload : dict
        ``ids``, ``entities`` (per instance), ``report`` (:func:`kg.rdf.table.link_entities`).
    summary : dict
        ``n_instances``, ``n_mentions``.

    Examples
    --------
    See the module.
    """
    from kg.rdf.table import link_entities

    def part(v):
        return None if v is None else v[start:stop]

    sub = Corpus(ids=corpus.ids[start:stop], texts=part(corpus.texts), entities=part(corpus.entities),
                 labels=part(corpus.labels), source=corpus.source)
    ents, report = link_entities(sub, None if sub.entities is not None else annotator)
    payload = {"ids": list(sub.ids), "entities": [ents[i] for i in sub.ids], "report": report}
    return payload, {"n_instances": len(sub), "n_mentions": report["n_mentions"]}


def merge_annotations(batches: Iterable[Mapping]) -> tuple[dict, dict]:
    """The corpus's entities from its batches' payloads (in the batches' order).

    Parameters
    ----------
    batches : iterable of mapping
        Payloads of :func:`annotate_batch`.

    Returns
    -------
    payload : dict
        ``ids``, ``entities``, ``report`` (invalid IRIs, mentions, instances without entities).
    summary : dict

    Examples
    --------
    >>> a = {"ids": ["1"], "entities": [["E"]], "report": {"invalid_iris": [], "n_mentions": 1,
    ...                                                    "instances_without_entities": []}}
    >>> merge_annotations([a, a])[1]["n_entities"]
    1
    """
    ids, ents, invalid, mentions, empty = [], [], [], 0, []
    for data in batches:
        ids += data["ids"]
        ents += data["entities"]
        invalid += data["report"]["invalid_iris"]
        mentions += data["report"]["n_mentions"]
        empty += data["report"]["instances_without_entities"]
    report = {"invalid_iris": invalid, "n_mentions": mentions, "instances_without_entities": empty}
    n_ent = len({e for es in ents for e in es})
    summary = {"n_instances": len(ids), "n_entities": n_ent, **report, "invalid_iris": len(invalid)}
    return {"ids": ids, "entities": ents, "report": report}, summary


def _entities(annotations: Mapping) -> list[str]:
    return sorted({e for es in annotations["entities"] for e in es})


def entity_batches(annotations: Mapping, batch_size: int = 500) -> list[list[str]]:
    """The distinct entities of an annotation payload (sorted), in batches.

    Parameters
    ----------
    annotations : mapping
        From :func:`merge_annotations`.
    batch_size : int

    Returns
    -------
    list of list of str

    Examples
    --------
    >>> entity_batches({"entities": [["b", "a"], ["a"], ["c"]]}, 2)
    [['a', 'b'], ['c']]
    """
    ents = _entities(annotations)
    b = max(1, int(batch_size))
    return [ents[i:i + b] for i in range(0, len(ents), b)]


def fetch_features(source, entities: Sequence[str], features: str | Sequence[str] | FeatureSpec = "types",
                   *, weights: Mapping[str, float] | None = None) -> tuple[dict, dict]:
    """The direct features (types, categories, relations; :mod:`kg.rdf.kinds`) of entities.

    Parameters
    ----------
    source : KnowledgeSource
    entities : sequence of str
    features : str, sequence of str or FeatureSpec
    weights : mapping of entity -> number, optional
        Paths: how many instances each entity occurs in (their generation's support).

    Returns
    -------
    payload : dict
        Entity -> sorted feature ids (every entity, possibly with none).
    summary : dict
        With a bridge (:mod:`kg.rdf.sources.bridge`), ``entities_without_link``: the entities with no
        link into the graph of the features.

    Examples
    --------
    >>> src = StoredSource({"E": ["T"]}, [], "memory")
    >>> fetch_features(src, ["E", "F"])
    ({'E': ['T'], 'F': []}, {'n_entities': 2, 'n_with_features': 1})
    """
    spec = features if isinstance(features, FeatureSpec) else FeatureSpec.of(features)
    per, relation_report = spec.direct(source, entities, weights=weights)
    payload = {e: sorted(per.get(e, ())) for e in entities}
    summary = {"n_entities": len(entities), "n_with_features": sum(1 for e in entities if per.get(e))}
    if relation_report:
        summary["relations"] = relation_report
    if hasattr(source, "mapped"):  # entities of another graph, through owl:sameAs
        links = source.mapped(entities)
        summary["entities_without_link"] = [e for e in entities if not links.get(e)]
    return payload, summary


def fetch_hierarchy(source, per_entity: Mapping[str, Sequence[str]],
                    features: str | Sequence[str] | FeatureSpec = "types",
                    category_depth: int | None = 2) -> tuple[dict, dict]:
    """The hierarchy above the entities' direct features (subClassOf, skos:broader to a depth, the relations'
    two orders; :mod:`kg.rdf.kinds`).

    Parameters
    ----------
    source : KnowledgeSource
    per_entity : mapping
        Entity -> direct features (merged payloads of :func:`fetch_features`).
    features : str, sequence of str or FeatureSpec
    category_depth : int or None
        Used when ``features`` is not a spec.

    Returns
    -------
    payload : dict
        ``per_entity``, ``edges`` (the set of ``(child, parent)`` the spec gives: an
        :class:`~kg.cycles.EdgeArrays` for relations, stored as arrays by :func:`pack_facts`), ``source`` (its
        description); with an ``owl:equivalentClass`` bridge, ``types_without_link`` (the entities' own types that
        had no equivalent class in the graph of the features, dropped).
    summary : dict

    Examples
    --------
    >>> src = StoredSource({}, [("T", "Thing")], "memory")
    >>> sorted(fetch_hierarchy(src, {"E": ["T"]})[0]["edges"])
    [('T', 'Thing')]
    """
    nodes = sorted({f for fs in per_entity.values() for f in fs})
    spec = features if isinstance(features, FeatureSpec) else FeatureSpec.of(features, category_depth=category_depth)
    edges = spec.edges(source, nodes)
    source = as_source(source)
    desc = source.describe()
    payload = {"per_entity": dict(per_entity), "edges": edges, "source": desc}
    if "types_without_link" in source.report:
        payload["types_without_link"] = sorted(source.report["types_without_link"])
    return payload, {"n_entities": len(per_entity), "n_direct_features": len(nodes), "n_edges": len(edges)}


def pack_facts(per_entity: Mapping[str, Sequence[str]], edges: Iterable[Sequence[str]] = ()) -> tuple[dict, object]:
    """Entities' feature ids and the edges between ids as a stage stores them: each id once (``ids``, sorted), each
    entity's ids as positions in it (``rows``), and each edge as the positions of its ends, in an array (written
    out whole, every entity repeats its ids: paths at depth 2 made a 613 MB ``facts.json`` of the CoDEx people's
    7,291 entities this way, 37 MB packed; the 4M edges of the in-links of hubs as JSON pairs took 250 MB and
    gigabytes to read back).

    Parameters
    ----------
    per_entity : mapping of entity -> sequence of str
    edges : iterable of (child, parent), or EdgeArrays

    Returns
    -------
    packed : dict
        JSON-ready: ``ids`` and ``rows``.
    positions : numpy.ndarray
        ``(n_edges, 2)`` int64, sorted: each edge's child and parent as positions in ``ids`` (an ``.npy`` file of
        the stage). :func:`unpack_facts` gives back both.

    Examples
    --------
    >>> packed, positions = pack_facts({"E": ["T", "U"], "F": ["T"]}, [("T", "Thing")])
    >>> packed, positions.tolist()
    ({'ids': ['T', 'Thing', 'U'], 'rows': {'E': [0, 2], 'F': [0]}}, [[0, 1]])
    >>> per, edges = unpack_facts(packed, positions)
    >>> per, sorted(edges)
    ({'E': ['T', 'U'], 'F': ['T']}, [('T', 'Thing')])
    """
    from itertools import repeat

    import numpy as np

    from kg.cycles import EdgeArrays, NodeOrder

    pairs = edges if isinstance(edges, EdgeArrays) else EdgeArrays.from_pairs(sorted({tuple(e) for e in edges}))
    order = NodeOrder.of(pairs.used_names(), (f for fs in per_entity.values() for f in fs))
    packed = {"ids": list(order), "rows": {e: [order[f] for f in fs] for e, fs in per_entity.items()}}
    place = np.fromiter(map(order.get, pairs.names, repeat(-1)), np.int64, len(pairs.names))
    n = max(len(order), 1)
    key = np.sort(place[pairs.child] * n + place[pairs.parent])  # distinct edges: distinct keys
    return packed, np.stack([key // n, key % n], axis=1)


def unpack_facts(packed: Mapping, positions=None) -> tuple[dict[str, list[str]], object]:
    """The entities' feature ids and the edges of :func:`pack_facts` (each id one shared string; the edges as an
    :class:`~kg.cycles.EdgeArrays` over the ids, its positions checked; none without ``positions``).

    Raises
    ------
    ValueError
        Positions that are no ``(n, 2)`` integer array, or out of the ids' range.

    Examples
    --------
    See :func:`pack_facts`.
    """
    ids = packed["ids"]
    per = {e: [ids[i] for i in row] for e, row in packed["rows"].items()}
    if positions is None:
        return per, ()
    import numpy as np

    from kg.cycles import EdgeArrays

    positions = np.asarray(positions)
    if positions.ndim != 2 or positions.shape[1] != 2 or positions.dtype.kind not in "iu":
        raise ValueError(f"edge positions must be an (n, 2) integer array, got {positions.dtype} {positions.shape}")
    return per, EdgeArrays.from_distinct(ids, positions[:, 0], positions[:, 1])  # the ids: sorted, distinct


def pack_groups(groups: Mapping[str, Sequence]) -> dict:
    """The entities' counted groups (:meth:`kg.rdf.kinds.FeatureSpec.groups`: an id list per relation, or a paths'
    ``{id: walks}``) as a stage stores them: each id once (``ids``), a list as its positions, a mapping as
    ``{"k": positions, "v": counts}``.

    Examples
    --------
    >>> packed = pack_groups({"E": [["out:p", "out:p|C"], ["out:p", "out:p|C"]], "F": [{"out:q": 3}]})
    >>> packed
    {'ids': ['out:p', 'out:p|C', 'out:q'], 'groups': {'E': [[0, 1], [0, 1]], 'F': [{'k': [2], 'v': [3]}]}}
    >>> unpack_groups(packed)
    {'E': [['out:p', 'out:p|C'], ['out:p', 'out:p|C']], 'F': [{'out:q': 3}]}
    """
    ids = sorted({f for gs in groups.values() for g in gs for f in g})
    pos = {f: i for i, f in enumerate(ids)}
    return {"ids": ids, "groups": {e: [{"k": [pos[f] for f in g], "v": list(g.values())} if isinstance(g, Mapping)
                                       else [pos[f] for f in g] for g in gs] for e, gs in groups.items()}}


def unpack_groups(packed: Mapping) -> dict[str, list]:
    """The groups of a :func:`pack_groups` payload; equal consecutive lists of an entity are one shared list, as
    :meth:`kg.rdf.kinds.FeatureSpec.groups` gives a hub's many relations of the same ids (weighed once by
    :func:`kg.rdf.kinds.count_values`).

    Examples
    --------
    See :func:`pack_groups`.
    """
    ids = packed["ids"]
    out: dict[str, list] = {}
    for e, gs in packed["groups"].items():
        row: list = []
        last = None
        for g in gs:
            if isinstance(g, Mapping):
                row.append({ids[i]: c for i, c in zip(g["k"], g["v"])})
                last = None
            elif last is not None and g == last[0]:
                row.append(last[1])
            else:
                last = (g, [ids[i] for i in g])
                row.append(last[1])
        out[e] = row
    return out


class StoredSource(SourceBase):
    """A knowledge source answering from a fetch result (:func:`fetch_hierarchy`'s payload).

    Its types and categories are the stored direct features; its edges are every stored edge
    whatever is asked (the stored hierarchy is exactly the one above those features).

    Parameters
    ----------
    per_entity : mapping
        Entity -> direct features.
    edges : iterable of (child, parent)
    desc : str
        What the answers came from (:meth:`describe`).

    Examples
    --------
    >>> s = StoredSource({"E": ["T"]}, [["T", "Thing"]], "dump d/")
    >>> s.types(["E", "F"]), s.class_edges(["T"]), s.describe()
    ({'E': {'T'}, 'F': set()}, {('T', 'Thing')}, 'dump d/')
    """

    #: Its answers are a run's stored direct features and edges, of any kind (:mod:`kg.rdf.kinds`).
    stored = True

    def __init__(self, per_entity: Mapping[str, Iterable[str]], edges: Iterable[Sequence[str]], desc: str, *,
                 groups: Mapping[str, Sequence[Sequence[str]]] | None = None):
        from kg.cycles import EdgeArrays

        self._per = {e: set(v) for e, v in per_entity.items()}
        # arrays as they are (a read-only set: millions of relation edges, no pair built)
        self._edges = edges if isinstance(edges, EdgeArrays) else {tuple(e) for e in edges}
        self._desc = desc
        self._groups = dict(groups or {})

    def groups(self, entities: Iterable[str]) -> dict[str, list]:
        """The stored relations of each entity (``--values count``): one id list per relation, or (paths) one
        ``{id: count}`` of its walks, kept as stored (a list of its keys lost the counts)."""
        return {e: [dict(g) if isinstance(g, Mapping) else list(g) for g in self._groups.get(e, ())]
                for e in entities}

    def describe(self) -> str:
        """Where the stored answers came from.

        Returns
        -------
        str

        Examples
        --------
        See the class.
        """
        return self._desc

    def types(self, entities: Iterable[str]) -> dict[str, set[str]]:
        """The stored direct features of each entity (empty for an unknown one).

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
        return {e: self._per.get(e, set()) for e in entities}

    categories = types

    def class_edges(self, classes: Iterable[str]) -> set[tuple[str, str]]:
        """Every stored edge.

        Parameters
        ----------
        classes : iterable of str
            Not used: the stored edges are those above the stored features.

        Returns
        -------
        set of (str, str), or EdgeArrays
            As stored (arrays: a read-only set of pairs).

        Examples
        --------
        See the class.
        """
        return set(self._edges) if isinstance(self._edges, set) else self._edges  # arrays: read-only already

    def broader(self, categories: Iterable[str], depth: int | None) -> set[tuple[str, str]]:
        """Every stored edge (see :meth:`class_edges`).

        Parameters
        ----------
        categories : iterable of str
        depth : int or None

        Returns
        -------
        set of (str, str)

        Examples
        --------
        >>> StoredSource({}, [["C", "B"]], "d").broader(["C"], 2)
        {('C', 'B')}
        """
        return self.class_edges(categories)


def table_from_records(corpus: Corpus, annotations: Mapping, facts: Mapping, *, name: str | None = None,
                       features: str | Sequence[str] | FeatureSpec = "types", min_support: int = 1,
                       category_depth: int | None = 2, annotator: str | None = None) -> FeatureTable:
    """Build the DAG (cycles broken and reported) and the closed table from stored answers.

    Parameters
    ----------
    corpus : Corpus
        The corpus (its labels and source).
    annotations : mapping
        :func:`merge_annotations`'s payload.
    facts : mapping
        :func:`fetch_hierarchy`'s payload.
    name : str, optional
        The dataset's name (``meta["dataset"]``).
    features, min_support, category_depth
        As in :func:`kg.rdf.table.assemble_table`.
    annotator : str, optional
        The annotator the entities came from (kept in the meta).

    Returns
    -------
    FeatureTable
        Its meta holds the annotator and the annotation report.

    Examples
    --------
    >>> e = "http://dbpedia.org/resource/E"
    >>> c = Corpus(ids=["1", "2"], entities=[[e], []], labels=[1, 0])
    >>> ann = merge_annotations([annotate_batch(c, 0, 2, None)[0]])[0]
    >>> facts = {"per_entity": {e: ["T"]}, "edges": [["T", "Thing"]], "source": "memory"}
    >>> t = table_from_records(c, ann, facts, name="d")
    >>> t.X.toarray().astype(int).tolist(), t.feature_names.tolist()
    ([[1, 1], [0, 0]], ['T', 'Thing'])
    """
    linked = Corpus(ids=annotations["ids"], entities=annotations["entities"], labels=corpus.labels,
                    source=corpus.source)
    spec = features if isinstance(features, FeatureSpec) else FeatureSpec.of(features, category_depth=category_depth)
    table = assemble_table(linked, None, StoredSource(facts["per_entity"], facts["edges"], facts["source"],
                                                   groups=facts.get("groups")),
                        features=spec, min_support=int(min_support), meta={"dataset": name})
    table.meta["annotator"] = annotator
    table.meta.update(annotations["report"])
    if "relations" in facts:  # the relations' report, of every batch
        table.meta["relations"] = {**facts["relations"], **table.meta.get("relations", {})}
    for k in ("entities_without_link", "types_without_link"):  # a bridge between graphs
        if k in facts:
            table.meta[k] = facts[k]
    return table
