"""The DBpedia route step by step over stored results: annotate in batches, fetch in batches, build.

``kgfs run --corpus`` runs the route as stages whose results are JSON files in the stage store
(:mod:`kg.store.store`): annotate batches of texts (:func:`annotate_batch`, merged by
:func:`merge_annotations`), fetch the direct types or categories of batches of entities
(:func:`fetch_features`), then the hierarchy above them (:func:`fetch_hierarchy`), and build the
table from those stored answers (:func:`table_from_records`, through :class:`StoredSource`, a
knowledge source answering from a fetch result). The external calls (Spotlight, SPARQL) happen
only in the batch steps, which the pipeline retries and runs a few at a time.

Everything reads a ``dbpedia`` spec (:func:`flows.inputs.dbpedia_source`). :class:`RouteObjects`
keeps the corpus, annotator and source of a spec for the process (batches run in threads: each
is built once). With a cache folder (as the pipeline gives), a dump is read once into the dump
index (:mod:`kg.dbpedia.index`, on first use) and the lexicon and the facts are look-ups there.
Spotlight and SPARQL requests time out after the spec's ``timeout`` (:data:`DEFAULT_TIMEOUT`)
and a request with its retries after :data:`TOTAL_TIMEOUTS` times that, with a
:class:`~kg.errors.DeadlineError` that the pipeline does not retry (:func:`is_transient`).
:func:`spec_table` is the whole route in one call (``kgfs build --corpus``).

Examples
--------
>>> from kg.dbpedia.corpus import Corpus
>>> c = Corpus(ids=["t1", "t2"], entities=[["http://dbpedia.org/resource/Kobe_Bryant"], []], labels=[1, 0])
>>> payload, summary = annotate_batch(c, 0, 2, None)
>>> payload["entities"], summary
([['http://dbpedia.org/resource/Kobe_Bryant'], []], {'n_instances': 2, 'n_mentions': 1})
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from kg.dbpedia.corpus import Corpus

if TYPE_CHECKING:  # numpy/scipy load with the first table, not with the route's specs and checks
    from kg.table import FeatureTable

__all__ = ["DEFAULT_TIMEOUT", "RouteObjects", "StoredSource", "TOTAL_TIMEOUTS", "annotate_batch", "annotator_inputs", "corpus_batches", "entity_batches",
           "fetch_features", "fetch_hierarchy", "ingest_spec", "is_transient", "merge_annotations", "source_inputs", "spec_table",
           "table_from_records"]

_CORPUS_COLUMNS = ("text_column", "id_column", "label_column", "entity_columns", "skip_bad_lines")
#: Seconds per Spotlight or SPARQL request when the spec gives no ``timeout``.
DEFAULT_TIMEOUT = 20.0
#: A request with its retries gives up after this many timeouts (so a batch is bounded too).
TOTAL_TIMEOUTS = 3


def annotator_inputs(spec: Mapping) -> dict:
    """What decides a spec's entity linking: the annotator, and its Spotlight URL or the dump.

    Parameters
    ----------
    spec : mapping
        A ``dbpedia`` spec.

    Returns
    -------
    dict
        ``annotator``, ``spotlight_url``, ``dump`` (the dump fingerprint, for the lexicon).

    Examples
    --------
    >>> annotator_inputs({"options": {"annotator": "spotlight", "spotlight_url": "http://s/annotate"}})
    {'annotator': 'spotlight', 'spotlight_url': 'http://s/annotate', 'dump': None}
    """
    opts = spec.get("options", {})
    kind = opts.get("annotator", "lexicon")
    return {"annotator": kind, "spotlight_url": opts.get("spotlight_url") if kind == "spotlight" else None,
            "dump": spec.get("dump_files", []) if kind == "lexicon" else None}


def source_inputs(spec: Mapping) -> dict:
    """What decides a spec's facts: SPARQL endpoint or dump, type namespaces, types or categories.

    Parameters
    ----------
    spec : mapping
        A ``dbpedia`` spec.

    Returns
    -------
    dict
        ``kg`` (``sparql`` when a URL is given, else ``dump``), ``sparql_url``, ``dump``,
        ``type_namespaces``, ``features``.

    Examples
    --------
    >>> source_inputs({"options": {"sparql_url": "http://q/sparql"}})["kg"]
    'sparql'
    """
    opts = spec.get("options", {})
    kind = opts.get("kg") or ("sparql" if opts.get("sparql_url") else "dump")
    return {"kg": kind, "sparql_url": opts.get("sparql_url") if kind == "sparql" else None,
            "dump": spec.get("dump_files", []) if kind == "dump" else None,
            "type_namespaces": opts.get("type_namespaces"), "features": opts.get("features", "types")}


def is_transient(exc: BaseException | None) -> bool:
    """Whether a failed batch step may succeed later: the service unreachable, a timeout, HTTP 5xx/429.

    The Spotlight and SPARQL clients already retry each request a few times; this decides whether
    the whole batch is worth retrying after a longer wait. Bad input is not, nor a request that
    ran out of its time allowed (:class:`~kg.errors.DeadlineError`: the time a batch may take is
    bounded, and the pipeline's retries would multiply it).

    Parameters
    ----------
    exc : exception or None

    Returns
    -------
    bool

    Examples
    --------
    >>> from kg.dbpedia.spotlight import SpotlightError
    >>> is_transient(TimeoutError()), is_transient(SpotlightError("Spotlight unavailable: HTTP 503"))
    (True, True)
    >>> is_transient(SpotlightError("HTTP 400 Bad Request")), is_transient(ValueError("x"))
    (False, False)
    >>> from kg.errors import DeadlineError
    >>> is_transient(DeadlineError("SPARQL endpoint timed out 3 time(s)"))
    False
    """
    import requests

    from kg.dbpedia.sparql import SourceUnavailableError
    from kg.dbpedia.spotlight import SpotlightError
    from kg.errors import DeadlineError

    if isinstance(exc, DeadlineError):
        return False
    if isinstance(exc, (SourceUnavailableError, ConnectionError, TimeoutError, requests.ConnectionError,
                        requests.Timeout)):
        return True
    msg = str(exc).lower()
    return isinstance(exc, SpotlightError) and any(w in msg for w in ("unavailable", "timed out", "timeout",
                                                                      "connection", "429", " 5"))


def _dump_arg(spec: Mapping):
    dump = spec.get("dump") or None
    return dump[0] if dump is not None and len(dump) == 1 else dump


def ingest_spec(spec: Mapping, cache_dir, progress=None) -> dict | None:
    """Read the dump files a spec's route uses into the dump index now (only the new ones), and the
    lexicon when it links with it: what its first batch would do, up front, where a bar can show it.

    Parameters
    ----------
    spec : mapping
        Any spec; only a ``dbpedia`` spec that reads a dump (the lexicon, or ``kg`` dump) ingests.
    cache_dir : path
        The route's cache folder (the index is ``<cache_dir>/index``).
    progress : callable, optional
        ``progress(done_bytes, total_bytes, file_name)`` (see :meth:`kg.dbpedia.index.DumpIndex.ingest`).

    Returns
    -------
    dict or None
        The ingest report, or ``None`` when the spec reads no dump.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from flows.inputs import dbpedia_source
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "c.csv").write_text("id,text,label\\n1,Lyon wins,sport\\n")
    >>> _ = (d / "l.nt").write_text('<http://dbpedia.org/resource/Lyon> '
    ...                             '<http://www.w3.org/2000/01/rdf-schema#label> "Lyon"@en .\\n')
    >>> ingest_spec(dbpedia_source(d / "c.csv", {"dump": d / "l.nt"}), d / "cache")["lexicon"]["n_surface_forms"]
    1
    >>> ingest_spec(dbpedia_source(d / "c.csv", {"sparql_url": "http://q/sparql", "annotator": "spotlight"}), d)
    """
    opts = spec.get("options", {})
    lexicon = annotator_inputs(spec)["annotator"] == "lexicon" and not opts.get("entity_columns")
    if spec.get("kind") != "dbpedia" or not spec.get("dump") or not (lexicon or source_inputs(spec)["kg"] == "dump"):
        return None
    from kg.dbpedia.index import index_for_cache

    return index_for_cache(cache_dir).ingest(_dump_arg(spec), skip_bad_lines=bool(opts.get("skip_bad_lines")),
                                             progress=progress, lexicon=lexicon)


class RouteObjects:
    """The corpus, annotator and knowledge source of specs, each built once per process (thread-safe).

    One corpus is kept at a time (a watched folder's corpora are processed in turn); annotators
    and sources are kept per spec inputs and cache folder.

    Parameters
    ----------
    progress : callable, optional
        ``progress(stage, done, total)``: the bytes of a dump while the dump index reads it
        (stage ``"ingest"``), Spotlight's and SPARQL's batches.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from flows.inputs import dbpedia_source
    >>> c = pathlib.Path(tempfile.mkdtemp()) / "c.csv"
    >>> _ = c.write_text("id,text,label\\n1,Kobe scores,sport\\n")
    >>> objects = RouteObjects()
    >>> spec = dbpedia_source(c, {})
    >>> objects.corpus(spec) is objects.corpus(spec), len(objects.corpus(spec))
    (True, 1)
    """

    def __init__(self, progress=None) -> None:
        self._lock = threading.Lock()
        self._corpora: dict[str, Corpus] = {}
        self._objects: dict[str, object] = {}
        self.progress = progress

    def corpus(self, spec: Mapping) -> Corpus:
        """The corpus of a spec, read with its column options.

        Parameters
        ----------
        spec : mapping

        Returns
        -------
        Corpus

        Examples
        --------
        See the class.
        """
        from kg.dbpedia.corpus import load_corpus

        opts = spec.get("options", {})
        key = json.dumps([spec["corpus"]["sha256"], {k: opts.get(k) for k in _CORPUS_COLUMNS}], sort_keys=True)
        with self._lock:
            if key not in self._corpora:
                self._corpora.clear()
                self._corpora[key] = load_corpus(
                    spec["corpus"]["path"], id_column=opts.get("id_column", "id"),
                    text_column=opts.get("text_column", "text"), label_column=opts.get("label_column", "label"),
                    entity_columns=opts.get("entity_columns"), skip_bad_lines=bool(opts.get("skip_bad_lines")))
            return self._corpora[key]

    def annotator(self, spec: Mapping, cache_dir):
        """The spec's annotator (:func:`kg.dbpedia.route.make_annotator`).

        Parameters
        ----------
        spec : mapping
        cache_dir : path
            Where Spotlight's answers are cached.

        Returns
        -------
        Annotator

        Examples
        --------
        >>> RouteObjects().annotator({"options": {}}, None)
        Traceback (most recent call last):
        ...
        kg.errors.KgfsError: --annotator lexicon needs --dump (files with rdfs:label and redirects)
        """
        return self._get("annotator", spec, cache_dir)

    def source(self, spec: Mapping, cache_dir):
        """The spec's knowledge source (:func:`kg.dbpedia.route.make_source`).

        Parameters
        ----------
        spec : mapping
        cache_dir : path
            Where SPARQL answers are cached.

        Returns
        -------
        KnowledgeSource

        Examples
        --------
        >>> RouteObjects().source({"options": {"kg": "dump"}}, None)
        Traceback (most recent call last):
        ...
        kg.errors.KgfsError: --kg dump needs --dump (dump files or a directory)
        """
        return self._get("source", spec, cache_dir)

    def _get(self, kind: str, spec: Mapping, cache_dir):
        from kg.dbpedia.route import make_annotator, make_source

        opts = spec.get("options", {})
        inputs = annotator_inputs(spec) if kind == "annotator" else source_inputs(spec)
        timeout = float(opts.get("timeout") or DEFAULT_TIMEOUT)
        key = json.dumps([kind, inputs, str(cache_dir), timeout], sort_keys=True, default=str)
        common = dict(dump=_dump_arg(spec), cache_dir=cache_dir, skip_bad_lines=bool(opts.get("skip_bad_lines")),
                      timeout=timeout, max_total=TOTAL_TIMEOUTS * timeout, progress=self.progress)
        with self._lock:
            if key not in self._objects:
                if kind == "annotator":
                    obj = make_annotator(inputs["annotator"], spotlight_url=opts.get("spotlight_url"), **common)
                else:
                    obj = make_source(inputs["kg"], sparql_url=opts.get("sparql_url"),
                                      type_namespaces=opts.get("type_namespaces"), **common)
                self._objects[key] = obj
            return self._objects[key]


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
        ``ids``, ``entities`` (per instance), ``report`` (:func:`kg.dbpedia.route.link_entities`).
    summary : dict
        ``n_instances``, ``n_mentions``.

    Examples
    --------
    See the module.
    """
    from kg.dbpedia.route import link_entities

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


def fetch_features(source, entities: Sequence[str], features: str = "types") -> tuple[dict, dict]:
    """The direct types (or categories) of entities.

    Parameters
    ----------
    source : KnowledgeSource
    entities : sequence of str
    features : {"types", "categories"}

    Returns
    -------
    payload : dict
        Entity -> sorted feature ids (every entity, possibly with none).
    summary : dict

    Examples
    --------
    >>> src = StoredSource({"E": ["T"]}, [], "memory")
    >>> fetch_features(src, ["E", "F"])
    ({'E': ['T'], 'F': []}, {'n_entities': 2, 'n_with_features': 1})
    """
    per = source.categories(entities) if features == "categories" else source.types(entities)
    payload = {e: sorted(per.get(e, ())) for e in entities}
    return payload, {"n_entities": len(entities), "n_with_features": sum(1 for e in entities if per.get(e))}


def fetch_hierarchy(source, per_entity: Mapping[str, Sequence[str]], features: str = "types",
                    category_depth: int | None = 2) -> tuple[dict, dict]:
    """The hierarchy above the entities' direct features (subClassOf, or skos:broader to a depth).

    Parameters
    ----------
    source : KnowledgeSource
    per_entity : mapping
        Entity -> direct features (merged payloads of :func:`fetch_features`).
    features : {"types", "categories"}
    category_depth : int or None

    Returns
    -------
    payload : dict
        ``per_entity``, ``edges`` (sorted ``[child, parent]``), ``source`` (its description).
    summary : dict

    Examples
    --------
    >>> src = StoredSource({}, [("T", "Thing")], "memory")
    >>> fetch_hierarchy(src, {"E": ["T"]})[0]["edges"]
    [['T', 'Thing']]
    """
    nodes = sorted({f for fs in per_entity.values() for f in fs})
    edges = source.broader(nodes, category_depth) if features == "categories" else source.class_edges(nodes)
    desc = source.describe() if hasattr(source, "describe") else repr(source)
    payload = {"per_entity": dict(per_entity), "edges": sorted(map(list, edges)), "source": desc}
    return payload, {"n_entities": len(per_entity), "n_direct_features": len(nodes), "n_edges": len(edges)}


class StoredSource:
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

    def __init__(self, per_entity: Mapping[str, Iterable[str]], edges: Iterable[Sequence[str]], desc: str):
        self._per = {e: set(v) for e, v in per_entity.items()}
        self._edges = {tuple(e) for e in edges}
        self._desc = desc

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
        set of (str, str)

        Examples
        --------
        See the class.
        """
        return set(self._edges)

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
        return set(self._edges)


def table_from_records(spec: Mapping, corpus: Corpus, annotations: Mapping, facts: Mapping) -> FeatureTable:
    """Build the DAG (cycles broken and reported) and the closed table from stored answers.

    Parameters
    ----------
    spec : mapping
        The ``dbpedia`` spec (options ``features``, ``min_support``, ``category_depth``, the name).
    corpus : Corpus
        The corpus (its labels and source).
    annotations : mapping
        :func:`merge_annotations`'s payload.
    facts : mapping
        :func:`fetch_hierarchy`'s payload.

    Returns
    -------
    FeatureTable
        Its meta holds the annotator (when there was one) and the annotation report.

    Examples
    --------
    >>> e = "http://dbpedia.org/resource/E"
    >>> c = Corpus(ids=["1", "2"], entities=[[e], []], labels=[1, 0])
    >>> ann = merge_annotations([annotate_batch(c, 0, 2, None)[0]])[0]
    >>> facts = {"per_entity": {e: ["T"]}, "edges": [["T", "Thing"]], "source": "memory"}
    >>> t = table_from_records({"name": "d", "options": {}}, c, ann, facts)
    >>> t.X.toarray().astype(int).tolist(), t.feature_names.tolist()
    ([[1, 1], [0, 0]], ['T', 'Thing'])
    """
    from kg.dbpedia.route import build_table

    opts = spec.get("options", {})
    linked = Corpus(ids=annotations["ids"], entities=annotations["entities"], labels=corpus.labels,
                    source=corpus.source)
    table = build_table(linked, None, StoredSource(facts["per_entity"], facts["edges"], facts["source"]),
                        features=opts.get("features", "types"), min_support=int(opts.get("min_support", 1)),
                        category_depth=opts.get("category_depth", 2), meta={"dataset": spec.get("name")})
    table.meta["annotator"] = annotator_inputs(spec)["annotator"] if corpus.entities is None else None
    table.meta.update(annotations["report"])
    return table


def spec_table(spec: Mapping, *, cache_dir=None, objects: RouteObjects | None = None) -> FeatureTable:
    """The whole route of a ``dbpedia`` spec in one call: the steps of the pipeline's stages, unbatched.

    Parameters
    ----------
    spec : mapping
    cache_dir : path, optional
        Where Spotlight and SPARQL answers are cached.
    objects : RouteObjects, optional
        Reuse the corpus, annotator and source built for the spec (default: build them).

    Returns
    -------
    FeatureTable
        Named by the spec.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from flows.inputs import dbpedia_source
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "c.csv").write_text("id,entity,label\\n1,http://dbpedia.org/resource/Kobe_Bryant,sport\\n")
    >>> _ = (d / "i.nt").write_text("<http://dbpedia.org/resource/Kobe_Bryant> "
    ...     "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://dbpedia.org/ontology/Athlete> .\\n")
    >>> t = spec_table(dbpedia_source(d / "c.csv", {"entity_columns": ["entity"], "dump": d / "i.nt"}))
    >>> t.feature_names.tolist(), t.meta["dataset"]
    (['http://dbpedia.org/ontology/Athlete'], 'c')
    """
    objects = objects or RouteObjects()
    corpus = objects.corpus(spec)
    annotator = None if corpus.entities is not None else objects.annotator(spec, cache_dir)
    annotations, _ = annotate_batch(corpus, 0, len(corpus), annotator)
    source, features = objects.source(spec, cache_dir), source_inputs(spec)["features"]
    per_entity, _ = fetch_features(source, _entities(annotations), features)
    facts, _ = fetch_hierarchy(source, per_entity, features, spec.get("options", {}).get("category_depth", 2))
    return table_from_records(spec, corpus, annotations, facts)
