"""The offline knowledge source: DBpedia-style RDF dumps read with pyoxigraph's streaming parser.

The files (N-Triples, Turtle, N-Quads, RDF/XML; plain, ``.gz`` or ``.bz2``; a directory stands for
every such file in it) are read by :mod:`kg.rdf.dumpfiles`, streamed, never loaded into a
store: for the entities a corpus needs only their ``rdf:type`` and ``dct:subject`` objects are
kept, and of the schema only ``rdfs:subClassOf`` and ``skos:broader`` edges (small next to the
instance data). Reading a million-triple instance dump costs about 1.3x pyoxigraph's bare parse
(``benchmarks/bench_dump.py``); rdflib's own parser is ~40x.

A malformed line raises :class:`~kg.errors.InputFormatError` naming the file and line; with
``skip_bad_lines=True`` it is logged, recorded in :attr:`DumpSource.report` and skipped
(N-Triples/N-Quads only: see :mod:`kg.rdf.dumpfiles`).

Examples
--------
>>> import tempfile, os
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "t.nt")
>>> _ = open(p, "w").write(
...     "<http://dbpedia.org/resource/Kobe> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
...     "<http://dbpedia.org/ontology/BasketballPlayer> .\\n"
...     "<http://dbpedia.org/ontology/BasketballPlayer> <http://www.w3.org/2000/01/rdf-schema#subClassOf> "
...     "<http://dbpedia.org/ontology/Athlete> .\\n")
>>> src = DumpSource([p])
>>> src.types(["http://dbpedia.org/resource/Kobe"])
{'http://dbpedia.org/resource/Kobe': {'http://dbpedia.org/ontology/BasketballPlayer'}}
>>> sorted(src.class_edges(["http://dbpedia.org/ontology/BasketballPlayer"]))
[('http://dbpedia.org/ontology/BasketballPlayer', 'http://dbpedia.org/ontology/Athlete')]
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

import pyoxigraph as ox

from kg.iri import check_iri
from kg.rdf.dumpfiles import DumpReader, dump_files
from kg.rdf.index.dumpindex import index_for_cache
from kg.rdf.index.linefilter import LineFilter
from kg.rdf.sources.common import (
    MemoCache,
    check_direction,
    edges_within,
    ingest_progress,
    property_walk,
    role_predicates,
)
from kg.rdf.sources.index import IndexSource
from kg.rdf.vocabulary import DBPEDIA, Vocabulary
from kg.sources import SourceBase, breadth_first_edges

__all__ = ["DumpSource", "read_lexicon_entries"]

log = logging.getLogger(__name__)


class DumpSource(SourceBase):
    """A :class:`~kg.sources.KnowledgeSource` over local RDF dump files (no server needed).

    Parameters
    ----------
    paths : path or list of paths
        Dump files and/or directories (see :func:`~kg.rdf.dumpfiles.dump_files`). Typical DBpedia set: the ontology
        (``dbpedia_*.owl``), ``instance_types_en.nt.bz2``, ``article_categories_en.nt.bz2``,
        ``skos_categories_en.nt.bz2``; Wikidata: ``latest-truthy.nt.bz2``.
    vocabulary : Vocabulary, optional
        The graph's predicates (:mod:`kg.rdf.vocabulary`; DBpedia's by default). With one
        that skips unused lines (Wikidata's), the lines of other predicates are not parsed.
    type_namespaces : list of str, optional
        IRI prefixes (or the vocabulary's short names: ``dbo``/``yago``/``schema``, ``wd``) of the
        types to keep (default: the vocabulary's, the DBpedia ontology for DBpedia).
    skip_bad_lines : bool
        Skip (and report) malformed N-Triples lines instead of failing.
    lenient : bool
        Do not validate IRIs while parsing (see :class:`~kg.rdf.dumpfiles.DumpReader`).

    Notes
    -----
    Nothing is read until the first question. The first ``types``/``categories`` call reads
    every file once, keeping the facts of the requested entities and all subclass-of /
    broader edges; asking about new entities later reads the files again for those only.

    Examples
    --------
    >>> src = DumpSource(["ontology.owl", "instance_types_en.nt.bz2"])  # doctest: +SKIP
    >>> src.types(["http://dbpedia.org/resource/Kobe_Bryant"])  # doctest: +SKIP
    {'http://dbpedia.org/resource/Kobe_Bryant': {'http://dbpedia.org/ontology/BasketballPlayer'}}
    """

    # ---------------------------------------------------------------- opened by name (kg.rdf.sources.SOURCES)
    requires = ("dump",)
    reads_dump = True

    @classmethod
    def needs_hint(cls, need: str) -> str:
        return " (dump files or a directory)"

    @classmethod
    def key(cls, settings) -> dict:
        return {"sparql_url": None, "dump": [list(f) for f in settings.dump_files]}

    @classmethod
    def open(cls, settings):
        """The dump index's source (:class:`~kg.rdf.sources.index.IndexSource`) when the route has a cache folder
        (each file read once into the index, every question a look-up); else (or lenient) the dump streamed."""
        access = settings.access
        if access.cache_dir is not None and not access.lenient:
            return IndexSource(settings.dump, index_for_cache(access.cache_dir), vocabulary=settings.vocabulary,
                               type_namespaces=settings.type_namespaces, skip_bad_lines=access.skip_bad_lines,
                               progress=ingest_progress(access.progress))
        return cls(settings.dump, vocabulary=settings.vocabulary, type_namespaces=settings.type_namespaces,
                   skip_bad_lines=access.skip_bad_lines, lenient=access.lenient)


    def __init__(
        self,
        paths,
        *,
        vocabulary: Vocabulary | None = None,
        type_namespaces: Sequence[str] | None = None,
        skip_bad_lines: bool = False,
        lenient: bool = False,
    ):
        self.paths = paths
        self.lenient = lenient
        self.vocabulary = vocabulary or DBPEDIA
        self.type_namespaces = self.vocabulary.resolve_namespaces(type_namespaces)
        self.skip_bad_lines = skip_bad_lines
        self.report: dict = {"bad_lines": [], "scans": 0, "triples": 0}
        self._types = MemoCache()
        self._cats = MemoCache()
        self._subclass: dict[str, set[str]] | None = None
        self._broader: dict[str, set[str]] | None = None
        self._links: dict[str, MemoCache] = {}
        self._relations = {"out": MemoCache(), "in": MemoCache()}
        self._subproperty: dict[str, set[str]] | None = None

    def __repr__(self) -> str:
        return f"DumpSource({self.paths!r}, type_namespaces={list(self.type_namespaces)!r})"

    def describe(self) -> dict:
        """Provenance for table metadata."""
        out = {"kind": "dump", "files": [str(p) for p in dump_files(self.paths)],
               "type_namespaces": list(self.type_namespaces)}
        if self.vocabulary is not DBPEDIA:
            out["vocabulary"] = self.vocabulary.name
        return out

    # ------------------------------------------------------------------ reading
    def _scan(self, entities: Sequence[str]) -> None:
        files = dump_files(self.paths)
        want = {ox.NamedNode(check_iri(e)) for e in entities}
        v = self.vocabulary
        p_type, p_subj = {ox.NamedNode(p) for p in v.instance_of}, {ox.NamedNode(p) for p in v.subject}
        p_sub, p_broad = {ox.NamedNode(p) for p in v.subclass_of}, {ox.NamedNode(p) for p in v.broader}
        filt = None
        if v.skip_unused_lines:
            filt = LineFilter({p.value for p in p_type | p_subj | p_sub | p_broad})
        types: dict[str, set[str]] = {e: set() for e in entities}
        cats: dict[str, set[str]] = {e: set() for e in entities}
        keep_schema = self._subclass is None
        subclass: dict[str, set[str]] = {}
        broader: dict[str, set[str]] = {}
        canon: dict[str, str] = {}  # one string object per IRI: the schema maps repeat them
        named = ox.NamedNode
        n = 0
        bad = self.report["bad_lines"]
        for f in files:
            # hot loop: touch only what is needed (every attribute access builds a Python object)
            reader = DumpReader(f, skip_bad_lines=self.skip_bad_lines, bad_lines=bad, lenient=self.lenient,
                                line_filter=filt)
            for q in reader:
                n += 1
                s = q.subject
                if s in want:
                    p = q.predicate
                    if p in p_type:
                        o = q.object
                        if type(o) is named:
                            types[s.value].add(o.value)
                        if p not in p_sub and p not in p_broad:
                            continue
                    if p in p_subj:
                        o = q.object
                        if type(o) is named:
                            cats[s.value].add(o.value)
                        if p not in p_sub and p not in p_broad:
                            continue
                elif not keep_schema:
                    continue
                else:
                    p = q.predicate
                if keep_schema and (p in p_sub or p in p_broad):
                    o = q.object
                    if type(o) is named and type(s) is named:
                        sv, ov = s.value, o.value
                        for edges, preds in ((subclass, p_sub), (broader, p_broad)):
                            if p in preds:
                                edges.setdefault(canon.setdefault(sv, sv), set()).add(canon.setdefault(ov, ov))
        self.report["scans"] += 1
        self.report["triples"] += n
        if keep_schema:
            self._subclass, self._broader = subclass, broader
        ns = self.type_namespaces
        self._types.put({e: {t for t in ts if t.startswith(ns)} for e, ts in types.items()})
        self._cats.put(cats)
        log.info("read %d triples from %d dump file(s) for %d entities", n, len(files), len(entities))

    def facts(self, kind: str, entities: Iterable[str]) -> dict[str, set[str]]:
        """``{subject: {IRI object, ...}}`` of the role ``kind`` (see
        :func:`~kg.rdf.sources.common.role_predicates`): one more read of the files for the subjects
        not asked about yet.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.nt"
        >>> _ = p.write_text("<http://dbpedia.org/resource/Lyon> <http://www.w3.org/2002/07/owl#sameAs> "
        ...                  "<http://www.wikidata.org/entity/Q456> .\\n")
        >>> DumpSource(p).facts("same_as", ["http://dbpedia.org/resource/Lyon"])
        {'http://dbpedia.org/resource/Lyon': {'http://www.wikidata.org/entity/Q456'}}
        """
        preds = role_predicates(self.vocabulary, kind)
        memo = self._links.setdefault(kind, MemoCache())
        return memo.ask(entities, lambda todo: self._scan_role(preds, todo))

    def _scan_role(self, preds: Sequence[str], todo: list[str]) -> dict[str, set[str]]:
        want = {ox.NamedNode(check_iri(e)) for e in todo}
        p_set = {ox.NamedNode(p) for p in preds}
        found: dict[str, set[str]] = {e: set() for e in todo}
        filt = None
        if self.vocabulary.skip_unused_lines:
            filt = LineFilter(preds)
        for f in dump_files(self.paths):
            reader = DumpReader(f, skip_bad_lines=self.skip_bad_lines, bad_lines=self.report["bad_lines"],
                                lenient=self.lenient, line_filter=filt)
            for q in reader:
                if q.predicate in p_set and q.subject in want and type(q.object) is ox.NamedNode:
                    found[q.subject.value].add(q.object.value)
        self.report["scans"] += 1
        return found

    # ------------------------------------------------------------------ relations
    def _scan_relations(self, todo: list[str]) -> None:
        """One read of the files for the relations of ``todo``, in both directions (both are remembered), and
        the subproperty-of edges the first time."""
        want = {ox.NamedNode(check_iri(e)) for e in todo}
        found = {d: {e: set() for e in todo} for d in ("out", "in")}
        out, into = found["out"], found["in"]
        is_relation = self.vocabulary.is_relation
        decided: dict = {}  # predicate -> whether it is a relation (one test per distinct predicate)
        named = ox.NamedNode
        sub_preds = {named(p) for p in self.vocabulary.subproperty_of} if self._subproperty is None else set()
        subproperty: dict[str, set[str]] = {}
        for f in dump_files(self.paths):
            reader = DumpReader(f, skip_bad_lines=self.skip_bad_lines, bad_lines=self.report["bad_lines"],
                                lenient=self.lenient)
            for q in reader:
                s, o = q.subject, q.object
                s_in, o_in = s in want, o in want
                if not (s_in or o_in):
                    if sub_preds and q.predicate in sub_preds and type(o) is named and type(s) is named:
                        subproperty.setdefault(s.value, set()).add(o.value)
                    continue
                if type(o) is not named or type(s) is not named:
                    continue
                p = q.predicate
                if sub_preds and p in sub_preds:
                    subproperty.setdefault(s.value, set()).add(o.value)
                rel = decided.get(p)
                if rel is None:
                    rel = decided[p] = is_relation(p.value)
                if rel:
                    if s_in:
                        out[s.value].add((p.value, o.value))
                    if o_in:
                        into[o.value].add((p.value, s.value))
        self.report["scans"] += 1
        for d, per in found.items():
            self._relations[d].put(per)
        if sub_preds:
            self._subproperty = subproperty

    def relations(self, entities: Iterable[str], direction: str) -> dict[str, set[tuple[str, str]]]:
        """``{entity: {(predicate, other), ...}}`` (see :class:`~kg.sources.RelationSource`): one read
        of the files for the entities not asked about yet, which answers both directions.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.nt"
        >>> _ = p.write_text("<http://dbpedia.org/resource/Kobe> <http://dbpedia.org/ontology/team> "
        ...                  "<http://dbpedia.org/resource/LAL> .\\n")
        >>> DumpSource(p).relations(["http://dbpedia.org/resource/Kobe"], "out")
        {'http://dbpedia.org/resource/Kobe': {('http://dbpedia.org/ontology/team', 'http://dbpedia.org/resource/LAL')}}
        """
        memo = self._relations[check_direction(direction)]
        known, todo = memo.split(entities)
        if todo:
            self._scan_relations(todo)
            known.update(memo.split(todo)[0])
        return known

    def property_edges(self, properties: Iterable[str]) -> set[tuple[str, str]]:
        """Every subproperty-of edge reachable upward from ``properties`` (the files read once for all of them)."""
        if self._subproperty is None:
            self._scan_relations([])
        sub = self._subproperty
        return property_walk(self.vocabulary, properties, lambda starts: breadth_first_edges(
            starts, lambda xs: {x: sub.get(x, set()) for x in xs}, None))

    # ------------------------------------------------------------------ KnowledgeSource
    def types(self, entities: Iterable[str]) -> dict[str, set[str]]:
        return self._lookup(self._types, entities)

    def categories(self, entities: Iterable[str]) -> dict[str, set[str]]:
        return self._lookup(self._cats, entities)

    def _lookup(self, cache: MemoCache, entities: Iterable[str]) -> dict[str, set[str]]:
        # one scan of the dump fills both caches for the entities not seen yet
        known, todo = cache.split(entities)
        if todo:
            self._scan(todo)
            known.update(cache.split(todo)[0])
        return known

    def _schema(self) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
        if self._subclass is None:
            self._scan([])
        return self._subclass, self._broader  # type: ignore[return-value]

    def class_edges(self, classes: Iterable[str]) -> set[tuple[str, str]]:
        sub, _ = self._schema()
        edges = breadth_first_edges(classes, lambda xs: {x: sub.get(x, set()) for x in xs}, None)
        return edges_within(edges, self.type_namespaces)

    def broader(self, categories: Iterable[str], depth: int | None) -> set[tuple[str, str]]:
        _, br = self._schema()
        return breadth_first_edges(categories, lambda xs: {x: br.get(x, set()) for x in xs}, depth)


def read_lexicon_entries(
    paths,
    *,
    vocabulary: Vocabulary | None = None,
    lang: str | None = "en",
    namespaces: Sequence[str] | None = None,
    skip_bad_lines: bool = False,
) -> tuple[dict[str, set[str]], dict[str, str], dict[str, int]]:
    """Labels, redirects and in-link counts of the resources of a dump, for the lexicon annotator.

    Parameters
    ----------
    paths : path or list of paths
        Dump files and/or directories (see :func:`~kg.rdf.dumpfiles.dump_files`).
    vocabulary : Vocabulary, optional
        Its label, redirect and link predicates (DBpedia's by default); its language and entity
        namespaces when ``lang`` / ``namespaces`` are not given.
    lang : str or None
        Language of the labels to keep (untagged labels are always kept); ``None`` keeps all.
        With a ``vocabulary``, its language.
    namespaces : sequence of str, optional
        IRI prefixes of the resources whose labels and redirects are read (default: the
        vocabulary's ``entities``).
    skip_bad_lines : bool
        Skip (and log) malformed N-Triples lines.

    Returns
    -------
    labels : dict of IRI -> set of label strings
        ``rdfs:label`` literals (language ``lang``, or untagged; ``lang=None`` keeps all) of
        subjects in ``namespaces``.
    redirects : dict of redirect IRI -> target IRI
        From ``dbo:wikiPageRedirects``; a redirect page's label (or its IRI's local name) is a
        surface form of the target.
    inlinks : dict of IRI -> int
        Number of ``dbo:wikiPageWikiLink`` triples pointing at each resource (DBpedia's
        ``page_links`` dump), a popularity prior; empty when the dump has none.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> R, L = "http://dbpedia.org/resource/", "<http://www.w3.org/2000/01/rdf-schema#label>"
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "labels.nt"
    >>> _ = p.write_text(f'<{R}Lyon> {L} "Lyon"@en .\\n<{R}Lyon> {L} "Lyons"@fr .\\n'
    ...                  f'<{R}Lyons> <http://dbpedia.org/ontology/wikiPageRedirects> <{R}Lyon> .\\n')
    >>> labels, redirects, inlinks = read_lexicon_entries(p)
    >>> labels, inlinks
    ({'http://dbpedia.org/resource/Lyon': {'Lyon'}}, {})
    >>> redirects
    {'http://dbpedia.org/resource/Lyons': 'http://dbpedia.org/resource/Lyon'}
    """
    if vocabulary is not None:
        lang = vocabulary.language
    v = vocabulary or DBPEDIA
    ns = tuple(v.entities if namespaces is None else namespaces)
    p_label = {ox.NamedNode(p) for p in v.labels}
    p_redir = {ox.NamedNode(p) for p in v.redirects}
    p_link = {ox.NamedNode(p) for p in v.prior_links}
    labels: dict[str, set[str]] = {}
    redirects: dict[str, str] = {}
    inlinks: dict[str, int] = {}
    filt = None
    if v.skip_unused_lines:
        filt = LineFilter(v.labels + v.redirects + v.prior_links, label_predicates=v.labels, language=lang)
    for f in dump_files(paths):
        for q in DumpReader(f, skip_bad_lines=skip_bad_lines, line_filter=filt):
            p = q.predicate
            if type(q.subject) is not ox.NamedNode:
                continue
            if p in p_label:
                o = q.object
                if type(o) is ox.Literal and (lang is None or o.language in (lang, None)):
                    s = q.subject.value
                    if s.startswith(ns):
                        labels.setdefault(s, set()).add(o.value)
            if p in p_redir and type(q.object) is ox.NamedNode:
                s = q.subject.value
                if s.startswith(ns):
                    redirects[s] = q.object.value
            if p in p_link and type(q.object) is ox.NamedNode:
                o = q.object.value
                if o.startswith(ns):
                    inlinks[o] = inlinks.get(o, 0) + 1
    return labels, redirects, inlinks
