"""A :class:`~kg.sources.KnowledgeSource` answering from the dump index (:mod:`kg.rdf.index.dumpindex`).

:class:`IndexSource` answers the four questions of :class:`~kg.sources.KnowledgeSource`
from the segments of a run's dump files with the semantics of the streamed
:class:`~kg.rdf.sources.dump.DumpSource` (the same data give the same table): memory-mapped sorted
arrays, so a batch of entities costs a few page reads, whatever the dump's size.

The hierarchy above classes or categories is walked in the space of keys (:meth:`IndexSource.broader`):
each level is one batched look-up per segment, and IRIs are read once, for the edges found.

It also answers the two questions of :class:`~kg.sources.RelationSource`, when its vocabulary names relation
predicates (Wikidata's and DBpedia's presets do): :meth:`IndexSource.relations` (one batched look-up
per segment in its ``relations_out`` or ``relations_in`` table) and :meth:`IndexSource.property_edges`
(the walk above, over the ``subproperty`` table). Those tables are in the segments of the vocabulary's
relation-indexing twin (:meth:`Vocabulary.with_relations <kg.rdf.vocabulary.Vocabulary.with_relations>`): a source
made with it reads them from the start; a source made with the plain vocabulary reads types and categories from
its own segments and, on the first relation question only, opens the twin's segments of the same dump index,
building those that are missing (under the index's lock, the same bytes a ``with_relations()`` source builds) and
saying so in one ``logging`` info message. A types or categories table never pays for relation segments.

Examples
--------
>>> import tempfile, pathlib
>>> from kg.rdf.index.dumpindex import DumpIndex
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "t.nt").write_text(
...     "<http://dbpedia.org/resource/Kobe> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
...     "<http://dbpedia.org/ontology/BasketballPlayer> .\\n"
...     "<http://dbpedia.org/ontology/BasketballPlayer> <http://www.w3.org/2000/01/rdf-schema#subClassOf> "
...     "<http://dbpedia.org/ontology/Athlete> .\\n")
>>> src = IndexSource(d / "t.nt", DumpIndex(d / "index"))
>>> src.types(["http://dbpedia.org/resource/Kobe"])
{'http://dbpedia.org/resource/Kobe': {'http://dbpedia.org/ontology/BasketballPlayer'}}
>>> sorted(src.class_edges(["http://dbpedia.org/ontology/BasketballPlayer"]))
[('http://dbpedia.org/ontology/BasketballPlayer', 'http://dbpedia.org/ontology/Athlete')]
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

import numpy as np

from kg.errors import KgfsError
from kg.rdf.dumpfiles import dump_files
from kg.rdf.index.columns import hash_keys
from kg.rdf.index.dumpindex import DumpIndex, Progress
from kg.rdf.index.ingest import FACT_ROLES
from kg.rdf.index.segment import Segment
from kg.rdf.sources.common import MemoCache, RelationTally, check_direction, edges_within, property_walk
from kg.rdf.vocabulary import DBPEDIA, Vocabulary
from kg.sources import SourceBase
from kg.sparse import distinct_rows

__all__ = ["IndexSource"]

log = logging.getLogger(__name__)


def _as_void(keys: np.ndarray) -> np.ndarray:
    """``(n, 2)`` keys as ``n`` 16-byte values (NumPy sorts, joins and compares them whole)."""
    keys = np.ascontiguousarray(keys, dtype=np.uint64).reshape(-1, 2)
    return keys.view(np.dtype((np.void, 16))).ravel()



class IndexSource(SourceBase):
    """A :class:`~kg.sources.KnowledgeSource` answering from the dump index (same answers as
    :class:`~kg.rdf.sources.dump.DumpSource` over the same files).

    Parameters
    ----------
    paths : path or list of paths
        Dump files and/or directories (see :func:`~kg.rdf.dumpfiles.dump_files`).
    index : DumpIndex
        Where the files' segments are (or are built, on the first question).
    vocabulary : Vocabulary, optional
        The graph's vocabulary (DBpedia's by default).
    type_namespaces : list of str, optional
        IRI prefixes (or the vocabulary's short names: ``dbo``, ``yago``, ``schema``, ``wd``...) of
        the types to keep (default: the vocabulary's).
    skip_bad_lines : bool
        See :meth:`DumpIndex.segments`.
    progress : callable, optional
        ``progress(done_bytes, total_bytes, file_name)`` while files are ingested.

    Examples
    --------
    See the module.
    """

    def __init__(self, paths, index: DumpIndex, *, vocabulary: Vocabulary | None = None,
                 type_namespaces: Sequence[str] | None = None, skip_bad_lines: bool = False,
                 progress: Progress | None = None):
        self.paths, self.index = paths, index
        self.vocabulary = vocabulary or DBPEDIA
        self.type_namespaces = self.vocabulary.resolve_namespaces(type_namespaces)
        self.skip_bad_lines, self.progress = skip_bad_lines, progress
        self._segments: list[Segment] | None = None
        self._relation_segments: list[Segment] | None = None  # the twin's, on the first relation question
        self._memo = {kind: MemoCache() for kind in FACT_ROLES}
        self._relations = {"out": MemoCache(), "in": MemoCache()}

    def __getstate__(self) -> dict:
        # a copy for a worker process (GridSearchCV(n_jobs=2) pickles the estimator and its source): the segments map
        # the index's files, the copy opens them again on first use
        return {**self.__dict__, "_segments": None, "_relation_segments": None}

    def __repr__(self) -> str:
        return f"IndexSource({self.paths!r}, {self.index!r}, type_namespaces={list(self.type_namespaces)!r})"

    @property
    def segments(self) -> list[Segment]:
        """The dump files' segments (ingested on first use).

        Returns
        -------
        list of Segment

        Examples
        --------
        See the module.
        """
        if self._segments is None:
            self._segments = self.index.segments(self.paths, vocabulary=self.vocabulary,
                                                 skip_bad_lines=self.skip_bad_lines, progress=self.progress)
        return self._segments

    def labels(self, iris) -> dict[str, str]:
        """The labels of ``iris`` in the dump (:func:`kg.rdf.labels.dump_labels`: the names the index keeps, read
        without changing it); unlabelled IRIs left out.

        Returns
        -------
        dict of str -> str
        """
        from kg.rdf.labels import dump_labels

        _ = self.segments  # the files' segments (ingested on first use), where the names are kept
        paths = self.paths if isinstance(self.paths, (list, tuple)) else [self.paths]
        return dump_labels(iris, paths, vocabulary=self.vocabulary, index=self.index)

    def describe(self) -> dict:
        """Provenance for table metadata (as :meth:`DumpSource.describe`, plus the segments' sha256).

        Returns
        -------
        dict

        Examples
        --------
        See the module.
        """
        out = {"kind": "dump", "files": [str(p) for p in dump_files(self.paths)],
               "type_namespaces": list(self.type_namespaces), "index": [s.info["sha256"] for s in self.segments]}
        if self.vocabulary is not DBPEDIA:
            out["vocabulary"] = self.vocabulary.name
        return out

    def _ask(self, kind: str, items: Iterable[str]) -> dict[str, set[str]]:
        return self._memo[kind].ask(items, lambda todo: self._fetch(kind, todo))

    def _fetch(self, kind: str, todo: list[str]) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {x: set() for x in todo}
        keys = hash_keys(todo)
        for seg in self.segments:
            for q, iri in seg.facts(kind, keys):
                found[todo[q]].add(iri)
        return found

    def facts(self, kind: str, entities: Iterable[str]) -> dict[str, set[str]]:
        """The objects of one fact table (``same_as``, ``equivalent_class``, ...) for each subject.

        Parameters
        ----------
        kind : str
            One of :data:`kg.rdf.index.ingest.FACT_ROLES`.
        entities : iterable of str

        Returns
        -------
        dict

        Examples
        --------
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "s.nt").write_text("<http://dbpedia.org/resource/Lyon> <http://www.w3.org/2002/07/owl#sameAs> "
        ...                             "<http://www.wikidata.org/entity/Q456> .\\n")
        >>> IndexSource(d / "s.nt", DumpIndex(d / "i")).facts("same_as", ["http://dbpedia.org/resource/Lyon"])
        {'http://dbpedia.org/resource/Lyon': {'http://www.wikidata.org/entity/Q456'}}
        """
        if kind not in self._memo:
            raise ValueError(f"unknown fact table {kind!r} (one of {', '.join(FACT_ROLES)})")
        return self._ask(kind, entities)

    def types(self, entities: Iterable[str]) -> dict[str, set[str]]:
        """The instance-of objects of each entity in the type namespaces (see the module).

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
        ns = self.type_namespaces
        return {e: {t for t in ts if t.startswith(ns)} for e, ts in self._ask("types", entities).items()}

    def categories(self, entities: Iterable[str]) -> dict[str, set[str]]:
        """The categories (subject objects) of each entity.

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
        return self._ask("categories", entities)

    def class_edges(self, classes: Iterable[str]) -> set[tuple[str, str]]:
        """Every subclass-of edge above the classes, both ends in the type namespaces.

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
        return edges_within(self._walk("subclass", classes, None), self.type_namespaces)

    def broader(self, categories: Iterable[str], depth: int | None) -> set[tuple[str, str]]:
        """Broader edges up to ``depth`` levels above the categories (cycles end the walk).

        Parameters
        ----------
        categories : iterable of str
        depth : int or None

        Returns
        -------
        set of (str, str)

        Examples
        --------
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> B = "<http://www.w3.org/2004/02/skos/core#broader>"
        >>> _ = (d / "s.nt").write_text(f"<http://c/A> {B} <http://c/B> .\\n<http://c/B> {B} <http://c/A> .\\n")
        >>> sorted(IndexSource(d / "s.nt", DumpIndex(d / "i")).broader(["http://c/A"], None))
        [('http://c/A', 'http://c/B'), ('http://c/B', 'http://c/A')]
        """
        return self._walk("broader", categories, depth)

    def _walk(self, kind: str, start: Iterable[str], depth: int | None,
              segments: list[Segment] | None = None) -> set[tuple[str, str]]:
        """:func:`~kg.sources.breadth_first_edges` over a graph table (of ``segments``, the source's by default), in
        the space of keys: each level is one batched look-up per segment, and IRIs are read once, for the edges
        found."""
        if depth is not None and depth < 0:
            raise ValueError(f"depth must be >= 0 or None, got {depth}")
        start = sorted(set(start))
        if not start:
            return set()
        keys = hash_keys(start)
        seen = _as_void(keys)
        order = np.argsort(seen)
        seen = seen[order]
        names = dict(zip(seen.tolist(), [start[i] for i in order.tolist()]))
        segments = [s for s in (self.segments if segments is None else segments) if s.has(kind)]
        edges_c, edges_p, owner, owner_term = [], [], [], []
        frontier, level = keys, 0
        while len(frontier) and (depth is None or level < depth):
            found_p = []
            for k, seg in enumerate(segments):
                q, terms = seg.parent_terms(kind, frontier)
                if not len(q):
                    continue
                pk = _as_void(seg.term_keys(terms))
                edges_c.append(_as_void(frontier[q]))
                edges_p.append(pk)
                found_p.append(pk)
                owner.append(np.full(len(pk), k))
                owner_term.append(terms)
            if not found_p:
                break
            new = np.setdiff1d(np.concatenate(found_p), seen)  # sorted, distinct
            seen = np.union1d(seen, new)
            frontier = np.frombuffer(new.tobytes(), np.uint64).reshape(-1, 2)
            level += 1
        if not edges_c:
            return set()
        # the IRI of every parent that is not a start node, read from one segment that holds it
        pk, seg_of, term_of = np.concatenate(edges_p), np.concatenate(owner), np.concatenate(owner_term)
        _, first = np.unique(pk, return_index=True)
        unnamed = first[~np.isin(pk[first], np.asarray(list(names), dtype=pk.dtype))] if names else first
        for k in np.unique(seg_of[unnamed]).tolist():
            sel = unnamed[seg_of[unnamed] == k]
            names.update(zip(pk[sel].tolist(), segments[k].term_names(term_of[sel])))
        return {(names[a], names[b]) for a, b in zip(np.concatenate(edges_c).tolist(), pk.tolist())}

    # ------------------------------------------------------------------ relations
    @property
    def relation_segments(self) -> list[Segment]:
        """The segments that hold the relation tables: :attr:`segments` for a vocabulary that indexes relations,
        else those of its relation-indexing twin in the same dump index (opened, and built where missing, on
        first use; one ``logging`` info message says so).

        Returns
        -------
        list of Segment

        Raises
        ------
        KgfsError
            The vocabulary names no relation predicates.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from kg.rdf.vocabulary import WIKIDATA, WD, WDT
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "t.nt").write_text(f"<{WD}Q42> <{WDT}P19> <{WD}Q350> .\\n<{WD}Q42> <{WDT}P31> <{WD}Q5> .\\n")
        >>> src = IndexSource(d / "t.nt", DumpIndex(d / "i"), vocabulary=WIKIDATA)
        >>> src.segments[0].has("relations_out"), src.relation_segments[0].has("relations_out")
        (False, True)
        """
        v = self.vocabulary
        if v.index_relations:
            return self.segments
        if self._relation_segments is None:
            if not v.relations_supported:
                raise KgfsError(f"IndexSource: vocabulary {v.name!r} names no relation predicates, so its dump index "
                                "keeps no relation triples (give `relations`, the namespaces of its relation "
                                "predicates, in its preset file)")
            twin = v.with_relations()
            files = dump_files(self.paths)
            missing = [f.name for f in files if self.index.known_segment(f, twin) is None]
            log.info("IndexSource: relations asked with vocabulary %r, which does not index them: reading the "
                     "relation-indexing segments of %s (vocabulary.with_relations())%s", v.name, self.index,
                     f", building them for {len(missing)} of {len(files)} dump file(s): {', '.join(missing)}"
                     if missing else "")
            self._relation_segments = self.index.segments(self.paths, vocabulary=twin,
                                                          skip_bad_lines=self.skip_bad_lines, progress=self.progress)
        return self._relation_segments

    def relations(self, entities: Iterable[str], direction: str) -> dict[str, set[tuple[str, str]]]:
        """The relation triples of each entity: ``{entity: {(predicate, other), ...}}`` (see
        :mod:`kg.rdf.sources.common`).

        Parameters
        ----------
        entities : iterable of str
        direction : {"out", "in"}
            ``"out"``: the triples ``entity predicate other``; ``"in"``: ``other predicate entity``.

        Returns
        -------
        dict of str -> set of (str, str)
            Every requested entity is a key.

        Raises
        ------
        KgfsError
            The source's vocabulary names no relation predicates.
        ValueError
            Another direction.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from kg.rdf.vocabulary import WIKIDATA, WD, WDT
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "t.nt").write_text(f"<{WD}Q42> <{WDT}P19> <{WD}Q350> .\\n<{WD}Q42> <{WDT}P1477> \\"D\\" .\\n")
        >>> src = IndexSource(d / "t.nt", DumpIndex(d / "i"), vocabulary=WIKIDATA)  # or WIKIDATA.with_relations()
        >>> src.relations([WD + "Q42"], "out")
        {'http://www.wikidata.org/entity/Q42': {('http://www.wikidata.org/prop/direct/P19', \
'http://www.wikidata.org/entity/Q350')}}
        >>> src.relations([WD + "Q42"], "in")
        {'http://www.wikidata.org/entity/Q42': set()}
        """
        check_direction(direction)
        return self._relations[direction].ask(entities, lambda todo: self._fetch_relations(direction, todo))

    def _fetch_relations(self, direction: str, todo: list[str]) -> dict[str, set[tuple[str, str]]]:
        table = "relations_out" if direction == "out" else "relations_in"
        found: dict[str, set[tuple[str, str]]] = {x: set() for x in todo}
        keys = hash_keys(todo)
        for seg in self.relation_segments:
            q, others, preds = seg.relation_terms(table, keys)
            if not len(q):
                continue
            ids, inverse = np.unique(np.concatenate([others, preds]), return_inverse=True)
            names = seg.term_names(ids)  # each distinct term's string read once
            n = len(q)
            other_names = [names[i] for i in inverse[:n].tolist()]
            pred_names = [names[i] for i in inverse[n:].tolist()]
            for i, p, o in zip(q.tolist(), pred_names, other_names):
                found[todo[i]].add((p, o))
        return found

    def relation_tally(self, entities: Iterable[str], direction: str, *, qualified: bool = True) -> RelationTally:
        """The relations of each entity as index arrays, and (``qualified``) the other ends' classes as index pairs:
        what :meth:`relations` and :meth:`types` of the other ends say, computed over term keys with NumPy. No IRI
        of an other end is read, so a hub's millions of in-links cost arrays, not Python sets of names.

        Parameters
        ----------
        entities : iterable of str
        direction : {"out", "in"}
        qualified : bool
            Also the other ends' types in the type namespaces.

        Returns
        -------
        RelationTally

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from kg.rdf.vocabulary import WIKIDATA, WD, WDT
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "t.nt").write_text(f"<{WD}Q1> <{WDT}P19> <{WD}Q9> .\\n<{WD}Q2> <{WDT}P19> <{WD}Q9> .\\n"
        ...                             f"<{WD}Q1> <{WDT}P31> <{WD}Q5> .\\n")
        >>> t = IndexSource(d / "t.nt", DumpIndex(d / "i"), vocabulary=WIKIDATA).relation_tally([WD + "Q9"], "in")
        >>> len(t), t.n_others, t.predicates, t.classes, t.other_class.tolist()
        (2, 2, ['http://www.wikidata.org/prop/direct/P19'], ['http://www.wikidata.org/entity/Q5'], [[0, 0]])
        """
        check_direction(direction)
        table = "relations_out" if direction == "out" else "relations_in"
        todo = sorted(set(entities))
        keys = hash_keys(todo) if todo else np.zeros((0, 2), np.uint64)
        qs, other_keys, pred_ids = [], [], []
        pred_index: dict[str, int] = {}
        for seg in self.relation_segments:
            q, others, preds = seg.relation_terms(table, keys)
            if not len(q):
                continue
            ids, inverse = np.unique(preds, return_inverse=True)
            names = seg.term_names(ids)  # the few distinct predicates' IRIs
            local = np.asarray([pred_index.setdefault(n, len(pred_index)) for n in names], np.int64)
            qs.append(np.asarray(q, np.int64))
            other_keys.append(_as_void(seg.term_keys(others)))
            pred_ids.append(local[inverse.ravel()])
        empty = np.zeros(0, np.int64)
        if not qs:
            return RelationTally(todo, [], empty, empty, empty, [], np.zeros((0, 2), np.int64))
        # distinct others by key (the same IRI in several files is one other end)
        distinct, other = np.unique(np.concatenate(other_keys), return_inverse=True)
        other = other.ravel().astype(np.int64)
        q, pred = np.concatenate(qs), np.concatenate(pred_ids)
        triples = distinct_rows(np.stack([q, pred, other], axis=1))  # sorted, distinct (entity, predicate, other)
        classes, pairs = [], np.zeros((0, 2), np.int64)
        if qualified and len(distinct):
            classes, pairs = self._classes_of(np.frombuffer(distinct.tobytes(), np.uint64).reshape(-1, 2))
        return RelationTally(todo, list(pred_index), triples[:, 0], triples[:, 1], triples[:, 2], classes, pairs)

    def _classes_of(self, keys: np.ndarray) -> tuple[list[str], np.ndarray]:
        """The types in the type namespaces of entities given by their keys (as :meth:`types`): the classes met and
        the distinct ``(index into keys, class index)`` pairs; only the classes' IRIs are read."""
        qs, class_keys, owner, owner_term = [], [], [], []
        segments = [s for s in self.segments if s.has("types")]
        for k, seg in enumerate(segments):
            q, terms = seg.parent_terms("types", keys)
            if not len(q):
                continue
            qs.append(np.asarray(q, np.int64))
            class_keys.append(_as_void(seg.term_keys(terms)))
            owner.append(np.full(len(q), k))
            owner_term.append(terms)
        if not qs:
            return [], np.zeros((0, 2), np.int64)
        ck, seg_of, term_of = np.concatenate(class_keys), np.concatenate(owner), np.concatenate(owner_term)
        distinct, first, cls = np.unique(ck, return_index=True, return_inverse=True)
        names: list[str] = [""] * len(distinct)
        for k in np.unique(seg_of[first]).tolist():  # each class's IRI read from one segment that holds it
            sel = np.flatnonzero(seg_of[first] == k)
            for i, name in zip(sel.tolist(), segments[k].term_names(term_of[first[sel]])):
                names[i] = name
        ns = self.type_namespaces
        keep = np.asarray([n.startswith(ns) for n in names], bool)
        new = np.cumsum(keep) - 1  # the kept classes renumbered
        q, cls = np.concatenate(qs), cls.ravel()
        sel = keep[cls]
        pairs = distinct_rows(np.stack([q[sel], new[cls[sel]]], axis=1)) if sel.any() else np.zeros((0, 2))
        return [n for n, k in zip(names, keep.tolist()) if k], pairs.astype(np.int64)

    def property_edges(self, properties: Iterable[str]) -> set[tuple[str, str]]:
        """Every subproperty-of edge reachable upward from the properties (cycles stay in the set).

        Parameters
        ----------
        properties : iterable of str
            Predicate IRIs.

        Returns
        -------
        set of (str, str)
            ``(child, parent)`` edges.

        Raises
        ------
        KgfsError
            The source's vocabulary names no relation predicates.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from kg.rdf.vocabulary import DBPEDIA
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> SUB = "<http://www.w3.org/2000/01/rdf-schema#subPropertyOf>"
        >>> _ = (d / "o.nt").write_text(f"<http://x/capital> {SUB} <http://x/city> .\\n"
        ...                             f"<http://x/city> {SUB} <http://x/place> .\\n")
        >>> src = IndexSource(d / "o.nt", DumpIndex(d / "i"), vocabulary=DBPEDIA.with_relations())
        >>> sorted(src.property_edges(["http://x/capital"]))
        [('http://x/capital', 'http://x/city'), ('http://x/city', 'http://x/place')]
        """
        return property_walk(self.vocabulary, properties,
                             lambda starts: self._walk("subproperty", starts, None, self.relation_segments))
