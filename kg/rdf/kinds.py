"""The kinds of features of the RDF route, one or several in one table: what an entity has, and the DAG above.

Kinds (``--features``): ``types`` (instance of + subclass of), ``categories`` (subject + broader, to
``category_depth`` levels), ``relations`` and ``qualified-relations`` (:mod:`kg.rdf.relations`).
A :class:`FeatureSpec` answers the route's two questions for any of them:

- :meth:`FeatureSpec.direct`: each entity's direct features (``types(entities)``, ...);
- :meth:`FeatureSpec.edges`: the hierarchy edges above a set of direct features.

A source of a run's stored answers (``source.stored``: :class:`kg.rdf.stored.StoredSource`)
gives them as they were stored, whatever the kinds.

With several kinds the table is one closed table whose hierarchy is the union of the kinds'
hierarchies; feature ids then say their kind: ``type:<IRI>``, ``category:<IRI>``, and the relation
ids, which say it already (``out:<p>``, ``out:<p>|<C>``). With one kind the ids are as they always
were (the IRI of a type or a category), so the tables of earlier runs stay the same.
``qualified-relations`` holds the unqualified relations too (they are its top level): asking for both
is asking for the qualified ones.

Examples
--------
>>> spec = FeatureSpec.of(["types", "qualified-relations"])
>>> spec.kinds, spec.multi, spec.tag("types", "http://x/C")
(('types', 'qualified-relations'), True, 'type:http://x/C')
>>> FeatureSpec.of("categories").key()
'categories'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kg.errors import ParameterError, param
from kg.rdf.relations import (
    FEATURE_KINDS,
    KIND_PREFIX,
    RELATION_KINDS,
    RelationOptions,
    kind_of,
    relation_edges,
    relation_features,
    relation_groups,
)

if TYPE_CHECKING:
    from kg.cycles import EdgeArrays

__all__ = ["FeatureSpec", "count_values", "merge_reports", "missing_role", "parse_kinds"]


def missing_role(vocabulary, kind: str) -> str | None:
    """The vocabulary's role a kind of feature needs and ``vocabulary`` leaves empty, or None: ``subject`` for
    categories, ``instance_of`` for types and the kinds that qualify by a class, ``relations`` for the kinds made
    of relations (checked in that order).

    Examples
    --------
    >>> from kg.rdf.vocabulary import preset
    >>> missing_role(preset("wikidata"), "categories"), missing_role(preset("wikidata"), "paths")
    ('subject', None)
    """
    if kind == "categories" and not vocabulary.categories_supported:
        return "subject"
    if kind in ("types", "qualified-relations", "paths") and not vocabulary.instance_of:
        return "instance_of"
    if kind in RELATION_KINDS and not vocabulary.relations_supported:
        return "relations"
    return None


def parse_kinds(features: str | Sequence[str] | None) -> tuple[str, ...]:
    """The kinds asked (``features``), checked, in the canonical order, without repeats.

    Parameters
    ----------
    features : str, sequence of str or None
        ``None`` is ``types``.

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> parse_kinds(["qualified-relations", "types", "relations"])
    ('types', 'qualified-relations')
    >>> parse_kinds("colours")
    Traceback (most recent call last):
    ...
    kg.errors.ParameterError: features: unknown kind 'colours' (choose from types, categories, ...)
    """
    asked = ["types"] if features is None else [features] if isinstance(features, str) else list(features)
    if not asked:
        raise ParameterError(f"{param('features')}: give at least one kind ({', '.join(FEATURE_KINDS)})")
    for k in asked:
        if k not in FEATURE_KINDS:
            raise ParameterError(f"{param('features')}: unknown kind {k!r} (choose from {', '.join(FEATURE_KINDS)})")
    if "paths" in asked:  # its first level is the qualified relations
        asked = [k for k in asked if k not in ("relations", "qualified-relations")]
    if "qualified-relations" in asked:
        asked = [k for k in asked if k != "relations"]
    return tuple(k for k in FEATURE_KINDS if k in asked)


@dataclass(frozen=True)
class FeatureSpec:
    """Which features, from which facts (see the module).

    Parameters
    ----------
    kinds : tuple of str
        From :func:`parse_kinds`.
    category_depth : int or None
        Broader levels for ``categories`` (``None``: unbounded).
    relations : RelationOptions
        Direction and excluded predicates for the relation kinds.

    Examples
    --------
    >>> FeatureSpec.of("relations", direction="in").relations.direction
    'in'
    """

    kinds: tuple[str, ...] = ("types",)
    category_depth: int | None = 2
    relations: RelationOptions = field(default_factory=RelationOptions)

    @classmethod
    def of(cls, features: str | Sequence[str] | None = None, *, category_depth: int | None = 2,
           direction: str | None = None, exclude: Iterable[str] = (), values: str | None = None,
           depth: int | None = None, prune: int | None = None) -> FeatureSpec:
        """A spec from command-line-like values (``None``: the defaults).

        ``depth`` and ``prune`` are the paths' (:class:`~kg.rdf.paths.PathOptions`): their length and
        the ``min_support`` their generation prunes with.

        Examples
        --------
        >>> FeatureSpec.of().kinds, FeatureSpec.of("relations", values="count").counts
        (('types',), True)
        >>> FeatureSpec.of("paths", depth=2, prune=3).relations.to_json()
        {'direction': 'out', 'exclude': [], 'depth': 2, 'prune': 3}
        """
        kinds = parse_kinds(features)
        base = (direction or "out", tuple(exclude or ()), values or "binary")
        if "paths" in kinds:
            from kg.rdf.paths import PathOptions

            options = PathOptions(*base, depth=2 if depth is None else depth, prune=prune or 1)
        elif depth is not None:
            raise ParameterError(f"{param('depth', depth)} is the length of paths: give {param('features', 'paths')}")
        else:
            options = RelationOptions(*base)
        spec = cls(kinds, category_depth, options)
        if spec.counts and not spec.uses_relations:
            raise ParameterError(f"{param('values', 'count')} counts relations: give {param('features', 'relations')} "
                                 "or qualified-relations")
        return spec

    @property
    def multi(self) -> bool:
        """Whether the table holds several kinds (its ids then say their kind)."""
        return len(self.kinds) > 1

    @property
    def counts(self) -> bool:
        """Whether the table also holds the relations' counts (``values='count'``)."""
        return self.relations.values == "count"

    @property
    def paths(self) -> bool:
        """Whether the ``paths`` kind is asked (:mod:`kg.rdf.paths`)."""
        return "paths" in self.kinds

    @property
    def uses_relations(self) -> bool:
        """Whether a relation kind is asked (the source must answer relation questions)."""
        return any(k in RELATION_KINDS for k in self.kinds)

    def key(self) -> str | list:
        """The kinds as a store key: a single kind is its name (the keys of earlier runs stay), several a list.

        Examples
        --------
        >>> FeatureSpec.of(["types", "categories"]).key()
        ['types', 'categories']
        """
        return self.kinds[0] if not self.multi else list(self.kinds)

    def describe(self) -> dict:
        """What the spec asks, as JSON (a table's ``meta``)."""
        out: dict = {"features": self.key()}
        if "categories" in self.kinds:
            out["category_depth"] = self.category_depth
        if self.uses_relations:
            out["relations"] = self.relations.to_json()
        return out

    def cycle_choices(self) -> dict[str, str]:
        """What a cycle of each kind's hierarchy becomes: ``"merge"`` or ``"break"`` (a table's ``meta["cycles"]``).

        The relations of types (subclass of, Wikidata's P279), relations and paths (subproperty of, and
        the classes of their objects) are transitive: in a cycle every member is a subclass of every other,
        so the cycle is merged into one feature holding them all and no ancestor is lost
        (:meth:`FeatureHierarchy.from_edges(..., on_cycle="merge") <kg.hierarchy.FeatureHierarchy.from_edges>`).
        DBpedia's category graph (``skos:broader``) is not an order; its cycles are data errors, broken
        (the edges removed reported), as the SHSEL papers' hierarchies are.

        Examples
        --------
        >>> FeatureSpec.of(["types", "categories"]).cycle_choices()
        {'types': 'merge', 'categories': 'break'}
        """
        return {k: "break" if k == "categories" else "merge" for k in self.kinds}

    def on_cycle(self):
        """The ``on_cycle`` policy of the table's hierarchy (see :meth:`cycle_choices`): a string when every kind
        agrees, else a callable choosing by the kind of a cycle's members (the ids of a table of several kinds
        say their kind).

        Examples
        --------
        >>> FeatureSpec.of("types").on_cycle(), FeatureSpec.of("categories").on_cycle()
        ('merge', 'break')
        >>> FeatureSpec.of(["types", "categories"]).on_cycle()(["category:http://x/A", "category:http://x/B"])
        'break'
        """
        choices = self.cycle_choices()
        if len(set(choices.values())) == 1:
            return next(iter(choices.values()))

        def choose(members: list[str]) -> str:
            kind = kind_of(members[0])
            return choices.get("paths" if kind in RELATION_KINDS and self.paths else kind, "merge")

        return choose

    def check_label_property(self, label_property: str | None, vocabulary, option: str | None = None) -> None:
        """Refuse a table whose labels come from a property that is also among its features (they would leak).

        Parameters
        ----------
        label_property : str or None
            The predicate the labels come from, as given (an IRI, a prefixed name, Wikidata's ``P27``).
        vocabulary : Vocabulary
            Expands it (:meth:`~kg.rdf.vocabulary.Vocabulary.expand_property`).
        option : str, optional
            What the message calls the property's parameter (default: ``label_property``, marked by
            :func:`~kg.errors.param`: the command line says ``--label-property``).

        Raises
        ------
        ParameterError
            Relations are features and the property is not excluded.

        Examples
        --------
        >>> from kg.rdf.vocabulary import WIKIDATA
        >>> FeatureSpec.of("relations", exclude=["http://www.wikidata.org/prop/direct/P27"]).check_label_property(
        ...     "P27", WIKIDATA)
        >>> FeatureSpec.of("relations").check_label_property("P27", WIKIDATA)
        Traceback (most recent call last):
        ...
        kg.errors.ParameterError: label_property='P27': the labels come from http://www.wikidata.org/prop/direct/P27...
        """
        if label_property is None or not self.uses_relations:
            return
        label = vocabulary.expand_property(label_property, option or param("label_property"))
        if label not in self.relations.exclude:
            given = param("label_property", label_property) if option is None else f"{option} {label_property}"
            raise ParameterError(f"{given}: the labels come from {label}, which is also a feature "
                                 f"({param('features', ' '.join(self.kinds))}): they would leak into the features; "
                                 f"add {param('exclude_properties', label_property)}")

    def tag(self, kind: str, fid: str) -> str:
        """A feature id of ``kind`` as it appears in the table (prefixed in a table of several kinds)."""
        return KIND_PREFIX[kind] + fid if self.multi and kind in KIND_PREFIX else fid

    def untag(self, fid: str) -> tuple[str, str]:
        """``(kind, the source's id)`` of a table's feature id."""
        if not self.multi:
            return self.kinds[0], fid
        kind = kind_of(fid)
        if kind in RELATION_KINDS and self.paths:
            kind = "paths"
        prefix = KIND_PREFIX.get(kind, "")
        return kind, fid[len(prefix):]

    # ------------------------------------------------------------------ the two questions
    def direct(self, source, entities: Sequence[str], *, weights: Mapping[str, float] | None = None,
               allowed: Iterable[str] | None = None) -> tuple[dict[str, set[str]], dict]:
        """Each entity's direct features, of every kind asked.

        Parameters
        ----------
        source : KnowledgeSource
            A :class:`~kg.sources.RelationSource` too when a relation kind is asked.
        entities : sequence of str
        weights : mapping of entity -> number, optional
            Paths: how many rows each entity stands for (what their generation's support counts).
        allowed : iterable of str, optional
            Paths: generate exactly these features (a fitted vocabulary) instead of the frequent ones.

        Returns
        -------
        per_entity : dict of str -> set of str
            Every entity is a key.
        report : dict
            The relation generator's report (:func:`~kg.rdf.relations.relation_features`), if any.

        Examples
        --------
        >>> from kg.rdf.stored import StoredSource
        >>> FeatureSpec.of().direct(StoredSource({"E": ["T"]}, [], "memory"), ["E", "F"])
        ({'E': {'T'}, 'F': set()}, {})
        """
        out: dict[str, set[str]] = {e: set() for e in entities}
        report: dict = {}
        if source.stored:  # a run's stored answers: the direct features of every kind
            return source.types(entities), report
        for kind in self.kinds:
            if kind == "paths":
                from kg.rdf.paths import path_features

                per, _, report = path_features(entities, source, options=self.relations, weights=weights,
                                               allowed=allowed, counts=False)
            elif kind in RELATION_KINDS:
                per, report = relation_features(entities, source, qualified=kind == "qualified-relations",
                                                options=self.relations)
            else:
                per = source.types(entities) if kind == "types" else source.categories(entities)
                if self.multi:
                    per = {e: {self.tag(kind, f) for f in fs} for e, fs in per.items()}
            for e in entities:
                out[e].update(per.get(e, ()))
        return out, report

    def groups(self, source, entities: Sequence[str], *, weights: Mapping[str, float] | None = None,
               allowed: Iterable[str] | None = None) -> dict[str, list]:
        """Each entity's relations one by one (:func:`~kg.rdf.relations.relation_groups`), of the relation
        kind asked: what :meth:`count_values` counts. A source of stored answers gives the stored groups.
        Paths give their walks' counts at once: one ``{feature: count}`` per entity (exact, not closed).

        Examples
        --------
        >>> from kg.rdf.stored import StoredSource
        >>> FeatureSpec.of("relations").groups(StoredSource({}, [], "memory", groups={"E": [["out:p"]]}), ["E"])
        {'E': [['out:p']]}
        """
        if source.stored:
            return source.groups(entities)
        kind = next((k for k in self.kinds if k in RELATION_KINDS), None)
        if kind is None:
            return {e: [] for e in entities}
        if kind == "paths":
            from kg.rdf.paths import path_features

            _, counts, _ = path_features(entities, source, options=self.relations, weights=weights, allowed=allowed)
            return {e: [counts.get(e, {})] if counts.get(e) else [] for e in entities}
        return relation_groups(entities, source, qualified=kind == "qualified-relations", options=self.relations)

    def edges(self, source, nodes: Iterable[str]) -> set[tuple[str, str]] | EdgeArrays:
        """The hierarchy edges above direct features (ids as :meth:`direct` gives them): a set of
        ``(child, parent)``, an :class:`~kg.cycles.EdgeArrays` when relations are among the kinds.

        Examples
        --------
        >>> from kg.rdf.stored import StoredSource
        >>> FeatureSpec.of().edges(StoredSource({}, [("T", "Thing")], "memory"), ["T"])
        {('T', 'Thing')}
        """
        from kg.cycles import EdgeArrays  # with scipy: not at import (the command line's early checks)

        if source.stored:  # a run's stored answers: every edge above its direct features
            return source.class_edges(nodes)

        def group(kind: str) -> str:
            return "paths" if kind in RELATION_KINDS and self.paths else "relations" if kind in RELATION_KINDS else kind

        by_kind: dict[str, list[str]] = {}
        if self.multi:
            for fid in nodes:
                kind, raw = self.untag(fid)
                by_kind.setdefault(group(kind), []).append(raw)
        else:  # one kind, its ids as they are (untag per id: a second for the 2.1M ids of hubs)
            ids = list(nodes)
            by_kind = {group(self.kinds[0]): ids} if ids else {}
        parts: list = []
        for kind, raw in by_kind.items():
            raw = sorted(raw)
            if kind == "paths":
                from kg.rdf.paths import path_edges

                found = path_edges(raw, source)
                kind = "qualified-relations"  # path ids carry no prefix
            elif kind == "relations":
                found = relation_edges(raw, source)
                kind = "qualified-relations"  # relation ids carry no prefix
            elif kind == "types":
                found = source.class_edges(raw)
            else:
                found = source.broader(raw, self.category_depth)
            prefix = KIND_PREFIX.get(kind, "") if self.multi else ""  # as tag(): most tables add none
            if prefix:
                found = found.prefixed(prefix) if isinstance(found, EdgeArrays) else {
                    (prefix + c, prefix + p) for c, p in found}
            parts.append(found)
        if any(isinstance(p, EdgeArrays) for p in parts):  # relations: millions of edges, kept as arrays
            return EdgeArrays.union(parts)
        return set().union(*parts)


def count_values(table, hierarchy, entities: Mapping[str, Sequence[str]],
                 groups: Mapping[str, Sequence[Sequence[str]]]):
    """The counts behind a table's cells: each instance's relations, each counted once for every feature it implies.

    Parameters
    ----------
    table : FeatureTable
        Built from ``hierarchy`` (maybe restricted to its frequent features).
    hierarchy : FeatureHierarchy
        The whole hierarchy the table was closed under (the counts are closed under it too).
    entities : mapping of instance id -> entity IRIs
    groups : mapping of entity -> list of id lists (or of ``{id: count}``)
        :meth:`FeatureSpec.groups`: each id list one relation, counted once for every feature it implies;
        each mapping exact counts (paths' walks), taken as they are.
        A list repeated consecutively (the same object) is one row weighing its repeats (a hub's many relations
        of the same ids).

    Returns
    -------
    scipy.sparse.csr_matrix
        Laid out as ``table.X``: the count where a relation feature is, 1 for every other feature
        (a type, a category) the instance has.

    Examples
    --------
    >>> from kg.hierarchy import FeatureHierarchy
    >>> from kg.table import FeatureTable
    >>> h = FeatureHierarchy.from_edges([("out:p|C", "out:p")])
    >>> t = FeatureTable.from_facts({"i": ["out:p|C", "out:p"]}, h)
    >>> count_values(t, h, {"i": ["e"]}, {"e": [["out:p", "out:p|C"], ["out:p"]]}).toarray().tolist()
    [[2.0, 1.0]]
    """
    import numpy as np
    import scipy.sparse as sp

    index = hierarchy.column_index  # a member of a merged cycle counts for its node
    rows, cols, owner = [], [], {}
    e_rows, e_cols, e_vals = [], [], []  # exact counts (paths: {feature: walks}), not closed again
    weight: list[int] = []  # how many relations each row stands for: a list repeated (the same object) is one row
    g = 0
    for e, gs in groups.items():
        first, prev = g, None
        for ids in gs:
            if ids is prev:
                weight[-1] += 1
                continue
            prev = ids
            weight.append(1)
            if isinstance(ids, Mapping):
                for f, k in ids.items():
                    j = index.get(f)
                    if j is not None:
                        e_rows.append(g)
                        e_cols.append(j)
                        e_vals.append(float(k))
            else:
                for f in ids:
                    j = index.get(f)
                    if j is not None:
                        rows.append(g)
                        cols.append(j)
            g += 1
        owner[e] = (first, g)
    closed = hierarchy.close(sp.csr_matrix((np.ones(len(rows), np.int8), (rows, cols)), shape=(g, hierarchy.n_nodes)))
    if e_rows:
        exact = sp.csr_matrix((e_vals, (e_rows, e_cols)), shape=(g, hierarchy.n_nodes))
        closed = sp.csr_matrix(closed.astype(np.float64) + exact)
    a_rows, a_cols = [], []
    for r, inst in enumerate(table.instance_ids.tolist()):
        for e in dict.fromkeys(entities.get(inst, ())):
            first, last = owner.get(e, (0, 0))
            a_rows.extend([r] * (last - first))
            a_cols.extend(range(first, last))
    a = sp.csr_matrix((np.asarray(weight, np.float64)[np.asarray(a_cols, np.int64)], (a_rows, a_cols)),
                      shape=(table.n_instances, g))
    idx = np.asarray([index[f] for f in table.feature_names.tolist()], dtype=np.int64)
    counts = sp.csr_matrix((a @ closed.astype(np.float64))[:, idx])
    x = table.X
    return sp.csr_matrix(counts + x - x.multiply(counts > 0))


def merge_reports(reports: Iterable[Mapping]) -> dict:
    """The relation reports of several batches of entities as one: relations counted, excluded predicates united
    (the distinct predicates and classes are counted on the whole table, not here).

    Examples
    --------
    >>> merge_reports([{"n_relations": 2, "excluded_predicates": ["p"], "n_predicates": 1},
    ...                {"n_relations": 1, "excluded_predicates": ["q", "p"]}])
    {'n_relations': 3, 'excluded_predicates': ['p', 'q']}
    """
    out: dict = {"n_relations": 0, "excluded_predicates": []}
    for r in reports:
        out["n_relations"] += int(r.get("n_relations", 0))
        out["excluded_predicates"] = sorted(set(out["excluded_predicates"]) | set(r.get("excluded_predicates", ())))
    return out
