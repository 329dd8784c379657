"""The online knowledge source: any SPARQL endpoint (Virtuoso, the Wikidata Query Service, QLever, Oxigraph).

The predicates come from a :class:`~kg.rdf.vocabulary.Vocabulary` (DBpedia's by default; ``wdt:P31``
and ``wdt:P279`` for Wikidata; several predicates of a role are asked as a path alternative
``(<p1>|<p2>)``). Every question of :class:`~kg.sources.KnowledgeSource` becomes a few
batched ``SELECT`` queries:

- entity facts: ``VALUES ?e { <e1> <e2> ... } ?e rdf:type ?t`` (``dct:subject`` for categories),
  ``batch_size`` entities per query;
- superclasses: *anchored* property paths, one ``UNION`` branch per class of a batch,
  ``{ <C> rdfs:subClassOf* ?x . ?x rdfs:subClassOf ?p }`` (``wdt:P279`` for Wikidata). Virtuoso
  refuses an open-ended ``?c rdfs:subClassOf+ ?p`` ("transitive start not given") and gives wrong
  answers for a path whose start comes from ``VALUES``, and open ``wdt:P279*`` closures time out
  on the Wikidata Query Service, so the start is always a constant class and the walk goes upward
  only. If a server still refuses the path (:class:`~kg.rdf.sources.sparql_protocol.TransitiveStartError`),
  ``superclasses="auto"`` falls back to walking the subclass predicate one level per query, which every SPARQL 1.0
  server answers;
- categories' ancestors: ``skos:broader`` one level per query up to ``depth`` (the category graph
  has cycles, so the walk expands each category once; see :func:`kg.sources.breadth_first_edges`).

Public services' rules (the Wikidata Query Service's, which others share): every request sends a
descriptive User-Agent (``kgfs/<version> (<contact>) SPARQLWrapper/<version> Python/<version>``;
the contact is ``$KGFS_CONTACT`` when set, an e-mail address or URL that names you, else kgfs's
page; ``user_agent=`` or ``$KGFS_USER_AGENT`` replaces the whole), HTTP 429 is waited out as its
``Retry-After`` says (seconds or an HTTP date; at most :data:`MAX_RETRY_AFTER`, past the time
allowed the request fails naming the wait), and each query is kept inside the service's time
limit (60 s there): a query that times out (the client's ``timeout``, or the server's own timeout
answer: Blazegraph's ``TimeoutException``, Virtuoso's ``SR171``, QLever's "timed out") is not sent
again whole but split in two, and later batches start at the size that last worked. A batch answered
in under a quarter of the time allowed lets the next one double, up to half the size that timed out;
after ten such batches in a row a larger one is tried again (the service's load changes), never more
than ``batch_size``.

Truncation: Virtuoso cuts every result at ``ResultSetMaxRows`` (10,000 on DBpedia) and says so
only in the ``X-SPARQL-MaxRows`` response header (and refuses ``ORDER BY`` + ``OFFSET`` past that
many rows, error SR353). A cut result is never used: a batch whose answer was cut (header
present, or as many rows as the known ``max_rows``) is split in two and each half asked again;
a single value whose answer is still cut is paged with ``ORDER BY``/``LIMIT``/``OFFSET``, and if
the server refuses that too, :class:`~kg.rdf.sources.sparql_protocol.TruncatedResultError` is raised.

Reliability: timeouts, retries with exponential backoff on 5xx, 429, timeouts and refused
connections (honouring ``Retry-After``), none on other 4xx or on a query the server rejects
(HTTP 400, or a Virtuoso ``Virtuoso 22023 Error SR353: ...`` message in a 500 answer).
Each query's rows are cached on disk (``cache_dir``, JSON, atomic writes), so a run that failed
because the server went away resumes from the finished batches when rerun.

Safety: IRIs reach a query only through :func:`kg.iri.sparql_iri` (validated ``<...>``) and
namespace prefixes through :func:`kg.iri.sparql_string`.

Examples
--------
>>> src = SparqlSource("http://127.0.0.1:8890/sparql", cache_dir="cache")  # doctest: +SKIP
>>> src.types(["http://dbpedia.org/resource/Kobe_Bryant"])  # doctest: +SKIP
{'http://dbpedia.org/resource/Kobe_Bryant': {'http://dbpedia.org/ontology/BasketballPlayer', ...}}
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import math
import re
import threading
import time
import urllib.error
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from SPARQLWrapper import JSON, POST, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import (
    EndPointInternalError,
    EndPointNotFound,
    QueryBadFormed,
    SPARQLWrapperException,
    Unauthorized,
    URITooLong,
)

from kg.errors import MAX_RETRY_AFTER, RetryPolicy, TransientError, retry
from kg.files import atomic_write
from kg.iri import sparql_iri, sparql_string
from kg.rdf.sources.common import (
    MemoCache,
    check_direction,
    edges_within,
    property_walk,
    role_predicates,
)
from kg.rdf.sources.sparql_protocol import (
    QueryTimeoutError,
    SourceUnavailableError,
    SparqlError,
    TransitiveStartError,
    TruncatedResultError,
    default_user_agent,
    parse_results,
)
from kg.rdf.vocabulary import DBPEDIA, Vocabulary
from kg.sources import SourceBase, breadth_first_edges

__all__ = ["MAX_RETRY_AFTER", "SparqlSource"]

log = logging.getLogger(__name__)

_CACHE_VERSION = 1
_VIRTUOSO_ERROR = re.compile(r"Virtuoso \w{5} Error (?!CL)")  # CL...: cluster errors are transient
# a server's own answer that a query ran out of its time: Blazegraph (WDQS), Virtuoso (SR171, the estimated time
# above its limit), QLever, Oxigraph
_SERVER_TIMEOUT = re.compile(r"TimeoutException|timed? ?out|SR171|estimated execution time|time limit|"
                             r"query execution time", re.IGNORECASE)
_GROW_BELOW = 0.25  # a batch answered in under this share of the time allowed lets the next one grow
_PROBE_AFTER = 10  # fast batches in a row at the size below one that timed out before a larger one is tried


class _Split(Exception):
    """Internal: a batch's query timed out; its batch is split (not a :class:`TransientError`: not retried)."""

    def __init__(self, cause: QueryTimeoutError):
        super().__init__(str(cause))
        self.cause = cause


class SparqlSource(SourceBase):
    """A :class:`~kg.sources.KnowledgeSource` answering from a SPARQL endpoint.

    Parameters
    ----------
    url : str
        The endpoint (``https://dbpedia.org/sparql``, ``https://query.wikidata.org/sparql``,
        ``http://127.0.0.1:7878/query``).
    vocabulary : Vocabulary, optional
        The graph's predicates (:mod:`kg.rdf.vocabulary`; DBpedia's by default).
    type_namespaces : list of str, optional
        Prefixes (or the vocabulary's short names: ``dbo``, ``yago``, ``schema``, ``wd``) of the types
        to keep; the vocabulary's by default (the DBpedia ontology for DBpedia).
    batch_size : int
        Values per ``VALUES``/``UNION`` query (the most; smaller after a query timed out).
    timeout : float
        Seconds per HTTP request (rounded up to whole seconds, as SPARQLWrapper keeps an int); a
        query that takes longer counts as timed out (keep it at or below the service's limit:
        60 s at the Wikidata Query Service).
    retries : int
        Further attempts after a retryable failure (5xx, 429, timeout, connection refused).
    max_total : float, optional
        Seconds one batch may take with all its retries and splits; then :class:`~kg.errors.DeadlineError`
        (``None``: bounded by ``retries`` only).
    backoff : float
        First wait in seconds; doubled on each retry (capped at 60 s; a longer ``Retry-After`` is honoured).
    cache_dir : path, optional
        Where each query's rows are cached (one JSON file per query). ``None``: memory only.
    max_rows : int, optional
        The server's row cap when it is known but not announced in a header.
    superclasses : {"auto", "path", "levels"}
        How superclasses are fetched (see the module doc).
    graph : str, optional
        Default graph IRI sent with each query (DBpedia: ``http://dbpedia.org``).
    progress : callable, optional
        ``progress(stage, done, total)`` after each batch (for the CLI's progress bar).
    user_agent : str, optional
        The User-Agent header (default :func:`~kg.rdf.sources.sparql_protocol.default_user_agent`).

    Attributes
    ----------
    stats : dict
        ``queries`` sent, ``cache_hits``, ``retries``, ``splits`` (a cut result), ``pages``,
        ``timeouts`` (a query split after it timed out).
    batch_limit : int
        The batch size queries are sent at now (adapted; at most ``batch_size``).

    Examples
    --------
    >>> src = SparqlSource("http://127.0.0.1:8890/sparql", type_namespaces=["dbo", "yago"])
    >>> src.type_namespaces
    ('http://dbpedia.org/class/yago/', 'http://dbpedia.org/ontology/')
    >>> src.types(["http://dbpedia.org/resource/Chris_Gayle"])  # doctest: +SKIP
    {'http://dbpedia.org/resource/Chris_Gayle': {'http://dbpedia.org/ontology/Cricketer'}}
    >>> from kg.rdf.vocabulary import WIKIDATA
    >>> wd = SparqlSource("https://query.wikidata.org/sparql", vocabulary=WIKIDATA, timeout=55)
    >>> print(wd._superclass_path_query(["http://www.wikidata.org/entity/Q5"]))
    SELECT DISTINCT ?a ?b WHERE {
      { <http://www.wikidata.org/entity/Q5> <http://www.wikidata.org/prop/direct/P279>* ?a . \
?a <http://www.wikidata.org/prop/direct/P279> ?b . }
      FILTER(isIRI(?a) && isIRI(?b))
    }
    """

    # ---------------------------------------------------------------- opened by name (kg.rdf.sources.SOURCES)
    requires = ("sparql_url",)

    @classmethod
    def key(cls, settings) -> dict:
        return {"sparql_url": settings.sparql_url, "dump": None}

    @classmethod
    def services(cls, settings) -> list[tuple[str, str]]:
        return [(settings.sparql_url, "sparql_url")]

    @classmethod
    def probe(cls, url: str, timeout: float) -> None:
        """The types of one entity, no retry, nothing cached."""
        cls(url, retries=0, timeout=timeout).types(["http://dbpedia.org/resource/Berlin"])

    #: What :meth:`probe` expects to find at the URL (named when it does not).
    service = "SPARQL endpoint"

    @classmethod
    def open(cls, settings) -> SparqlSource:
        access = settings.access
        return cls(settings.sparql_url, vocabulary=settings.vocabulary, type_namespaces=settings.type_namespaces,
                   cache_dir=access.cache_dir, graph=settings.graph, batch_size=settings.batch_size,
                   progress=access.progress, max_total=access.max_total, **access.limits())


    def __init__(
        self,
        url: str,
        *,
        vocabulary: Vocabulary | None = None,
        type_namespaces: Sequence[str] | None = None,
        batch_size: int = 100,
        timeout: float = 60.0,
        retries: int = 4,
        backoff: float = 1.0,
        max_total: float | None = None,
        cache_dir: str | Path | None = None,
        max_rows: int | None = None,
        superclasses: str = "auto",
        graph: str | None = None,
        progress: Callable[[str, int, int], None] | None = None,
        user_agent: str | None = None,
    ):
        if superclasses not in ("auto", "path", "levels"):
            raise ValueError(f"superclasses must be 'auto', 'path' or 'levels', got {superclasses!r}")
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self.url = url
        self.vocabulary = vocabulary or DBPEDIA
        self.type_namespaces = self.vocabulary.resolve_namespaces(type_namespaces)
        self.batch_size = int(batch_size)
        self.batch_limit = int(batch_size)
        self._ceiling, self._fast = int(batch_size), 0
        self._local = threading.local()  # the batch being answered in this thread: its deadline, its last timing
        self.timeout = float(timeout)
        self.retries = int(retries)
        self.backoff = float(backoff)
        self.max_total = None if max_total is None else float(max_total)
        self.cache_dir = None if cache_dir is None else Path(cache_dir)
        self.max_rows = max_rows
        self.superclasses = superclasses
        self.graph = graph
        self.progress = progress
        self.user_agent = user_agent or default_user_agent()
        self.stats = {"queries": 0, "cache_hits": 0, "retries": 0, "splits": 0, "pages": 0, "timeouts": 0}
        self._types = MemoCache()
        self._cats = MemoCache()
        self._sub = MemoCache()
        self._broader = MemoCache()
        self._links: dict[str, MemoCache] = {}
        self._relations = {"out": MemoCache(), "in": MemoCache()}
        self._subproperty = MemoCache()
        self._path_ok: bool | None = None if superclasses == "auto" else superclasses == "path"
        # superclass edges from path queries: every node seen has its whole upward closure known
        self._sc_edges: dict[str, set[str]] = {}
        self._sc_done: set[str] = set()

    def __getstate__(self) -> dict:
        # a copy for a worker process (GridSearchCV(n_jobs=2) pickles the estimator and its source): the per-thread
        # state of the batch being answered stays behind
        return {k: v for k, v in self.__dict__.items() if k != "_local"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._local = threading.local()

    def __repr__(self) -> str:
        return f"SparqlSource({self.url!r}, type_namespaces={list(self.type_namespaces)!r})"

    def describe(self) -> dict:
        out = {"kind": "sparql", "url": self.url, "type_namespaces": list(self.type_namespaces)}
        if self.vocabulary is not DBPEDIA:
            out["vocabulary"] = self.vocabulary.name
        return out

    # ------------------------------------------------------------------ HTTP
    def _cache_path(self, query: str) -> Path | None:
        if self.cache_dir is None:
            return None
        key = hashlib.sha256(f"{_CACHE_VERSION}\n{self.url}\n{self.graph}\n{query}".encode()).hexdigest()
        return self.cache_dir / "sparql" / key[:2] / f"{key}.json"

    def _http(self, query: str, timeout: float | None = None) -> tuple[list[str], list[list], bool]:
        """One request: (vars, rows, truncated). Raises TransientError (QueryTimeoutError) or SparqlError."""
        sw = SPARQLWrapper(self.url, agent=self.user_agent)
        sw.setMethod(POST)
        sw.setReturnFormat(JSON)
        # SPARQLWrapper keeps whole seconds (int())
        sw.setTimeout(max(1, math.ceil(self.timeout if timeout is None else timeout)))
        if self.graph:
            sw.addDefaultGraph(self.graph)
        sw.setQuery(query)
        try:
            res = sw.query()
            headers = res.info()
            body = res.response.read()
        except EndPointInternalError as exc:
            msg = str(exc)
            if "transitive start not given" in msg.lower():
                raise TransitiveStartError(f"{self.url}: {_first_line(msg)}") from None
            if _SERVER_TIMEOUT.search(msg):
                raise QueryTimeoutError(f"the server timed out the query (HTTP 500: {_first_line(msg)[:120]})") \
                    from None
            if _VIRTUOSO_ERROR.search(msg):
                # Virtuoso understood the query and refused it (e.g. SR353, paging past the row
                # cap): asking again gives the same answer
                raise SparqlError(f"{self.url} refused the query: {_first_line(msg)}") from None
            raise TransientError(f"HTTP 500: {_first_line(msg)}") from None
        except (QueryBadFormed, EndPointNotFound, Unauthorized, URITooLong) as exc:
            if isinstance(exc, QueryBadFormed) and _SERVER_TIMEOUT.search(str(exc)):  # QLever says 400
                raise QueryTimeoutError(f"the server timed out the query ({_first_line(str(exc))[:120]})") from None
            raise SparqlError(f"{self.url} rejected the query: {_first_line(str(exc))}") from None
        except urllib.error.HTTPError as exc:
            text = _error_body(exc)
            if exc.code in (500, 502, 503, 504) and _SERVER_TIMEOUT.search(text + " " + str(exc.reason)):
                raise QueryTimeoutError(f"the server timed out the query (HTTP {exc.code})") from None
            if exc.code == 429 or exc.code >= 500:
                ra = exc.headers.get("Retry-After") if exc.headers else None
                raise TransientError(f"HTTP {exc.code}", ra) from None
            if exc.code == 403 and "user-agent" in text.lower():
                raise SparqlError(f"{self.url} refused the request for its User-Agent ({self.user_agent!r}): "
                                  f"{_first_line(text)}; set KGFS_CONTACT to an e-mail address or URL that names "
                                  "you (or KGFS_USER_AGENT)") from None
            raise SparqlError(f"{self.url} answered HTTP {exc.code}: {exc.reason}") from None
        except (TimeoutError, OSError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(exc, TimeoutError) or isinstance(reason, TimeoutError) or "timed out" in str(reason):
                raise QueryTimeoutError(f"timed out after {self.timeout if timeout is None else timeout:.0f} s") \
                    from None
            raise TransientError(f"{type(exc).__name__}: {reason}") from None
        except SPARQLWrapperException as exc:
            raise SparqlError(f"{self.url}: {_first_line(str(exc))}") from None
        try:
            _vars, rows = parse_results(body)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise TransientError(f"malformed SPARQL JSON result ({exc})") from None
        cut = headers.get("X-SPARQL-MaxRows") or headers.get("x-sparql-maxrows")
        truncated = cut is not None or (self.max_rows is not None and len(rows) >= self.max_rows)
        if cut is not None:
            try:
                self.max_rows = int(cut)
            except ValueError:
                pass
        return _vars, rows, truncated

    def _fetch(self, query: str, splittable: bool = False) -> tuple[list[list], bool]:
        """Rows of a query (cached when complete), with retries; returns (rows, truncated).

        With ``splittable``, a query that times out raises :class:`_Split` at once (its batch is
        split) instead of being sent again whole.
        """
        path = self._cache_path(query)
        if path is not None and path.is_file():
            try:
                cached = json.loads(path.read_text(encoding="utf-8"))
                if cached.get("query") == query:
                    self.stats["cache_hits"] += 1
                    return cached["rows"], False
            except (ValueError, OSError):
                log.warning("ignoring unreadable cache file %s", path)

        deadline = getattr(self._local, "deadline", None)  # the batch's: its retries and splits share it
        if deadline is None and self.max_total is not None:
            deadline = time.monotonic() + self.max_total

        def attempt() -> tuple[list[list], bool]:
            self.stats["queries"] += 1
            left = None if deadline is None else min(self.timeout, deadline - time.monotonic())
            t0 = time.monotonic()
            try:
                _, rows, truncated = self._http(query, left)
            except QueryTimeoutError as exc:
                if splittable:
                    raise _Split(exc) from None
                raise
            self._local.seconds = time.monotonic() - t0
            return rows, truncated

        def give_up(attempts: int, exc: TransientError) -> SourceUnavailableError:
            done = ""
            if self.cache_dir is not None:
                done = f"; finished batches are cached in {self.cache_dir}, rerun the same command to resume from them"
            return SourceUnavailableError(f"SPARQL endpoint {self.url} failed {attempts} time(s), last: {exc}{done}")

        rows, truncated = retry(attempt, RetryPolicy(self.retries, self.backoff, deadline), what="SPARQL request",
                                give_up=give_up, on_retry=self._count_retry)
        if not truncated and path is not None:
            payload = json.dumps({"query": query, "rows": rows}, ensure_ascii=False)
            atomic_write(path, lambda tmp: tmp.write_text(payload, encoding="utf-8"))
        return rows, truncated

    def _count_retry(self) -> None:
        self.stats["retries"] += 1

    def _complete(self, build: Callable[[list[str]], str], values: list[str]) -> list[list]:
        """All rows of ``build(values)``: split on truncation or a timeout, page a single value."""
        try:
            rows, truncated = self._fetch(build(values), splittable=len(values) > 1)
        except _Split as exc:
            self.stats["timeouts"] += 1
            mid = len(values) // 2
            self.batch_limit = max(1, min(self.batch_limit, mid))
            self._ceiling, self._fast = min(self._ceiling, max(1, mid)), 0  # growth stops below what timed out
            log.info("%s; splitting a batch of %d (batches of %d from now on)", exc.cause, len(values),
                     self.batch_limit)
            return self._complete(build, values[:mid]) + self._complete(build, values[mid:])
        if not truncated:
            return rows
        if len(values) > 1:
            self.stats["splits"] += 1
            mid = len(values) // 2
            log.info("result cut at %s rows; splitting a batch of %d", self.max_rows, len(values))
            return self._complete(build, values[:mid]) + self._complete(build, values[mid:])
        return self._paged(build(values))

    def _paged(self, query: str) -> list[list]:
        page = int(self.max_rows or 10000)
        # every selected variable, so that the pages cut one total order
        order = " ".join(dict.fromkeys(re.findall(r"\?\w+", query.split("WHERE", 1)[0])))
        out: list[list] = []
        offset = 0
        while True:
            q = f"{query}\nORDER BY {order}\nLIMIT {page}\nOFFSET {offset}"
            self.stats["pages"] += 1
            try:
                rows, truncated = self._fetch(q)
            except SparqlError as exc:
                raise TruncatedResultError(
                    f"{self.url} cut a single value's result at {page} rows and refused to page past "
                    f"offset {offset} ({exc}); raise the server's ResultSetMaxRows"
                ) from None
            if truncated and len(rows) < page:
                raise TruncatedResultError(f"{self.url} cut a page at {len(rows)} rows (page size {page})")
            out.extend(rows)
            if len(rows) < page:
                return out
            offset += page

    def _batches(self, stage: str, values: list[str], build) -> list[list]:
        """Rows of every batch of values, at the adapted batch size (see the module)."""
        rows: list[list] = []
        done = batches = 0
        while done < len(values):
            size = self.batch_limit
            chunk = values[done:done + size]
            self._local.seconds = None
            self._local.deadline = None if self.max_total is None else time.monotonic() + self.max_total
            try:
                rows.extend(self._complete(build, chunk))
            finally:
                self._local.deadline = None
            done += len(chunk)
            self._grow(size, len(chunk))
            batches += 1
            if self.progress is not None:  # batches done, of those done and to come at the present size
                self.progress(stage, batches, batches + math.ceil((len(values) - done) / self.batch_limit))
        return rows

    def _grow(self, size: int, sent: int) -> None:
        """After a batch: double the batch size when it was answered fast (under a quarter of the time allowed),
        up to the size that last timed out; past that only after :data:`_PROBE_AFTER` fast batches in a row."""
        seconds = getattr(self._local, "seconds", None)
        fast = seconds is not None and seconds < _GROW_BELOW * self.timeout
        if not (fast and sent == size and size == self.batch_limit and size < self.batch_size):
            self._fast = 0
            return
        if 2 * size <= self._ceiling:
            self.batch_limit = min(self.batch_size, 2 * size)
            return
        self._fast += 1
        if self._fast >= _PROBE_AFTER:  # the service may have room again: try a larger batch
            self._ceiling, self._fast = min(self.batch_size, 2 * self._ceiling), 0
            self.batch_limit = min(self._ceiling, 2 * size)

    # ------------------------------------------------------------------ queries
    @staticmethod
    def _values(values: Sequence[str]) -> str:
        return " ".join(sparql_iri(v) for v in values)

    @staticmethod
    def _path(preds: Sequence[str]) -> str:
        """One predicate as ``<p>``; several as the alternative path ``(<p1>|<p2>)``."""
        return sparql_iri(preds[0]) if len(preds) == 1 else "(" + "|".join(sparql_iri(p) for p in preds) + ")"

    def _pairs_query(self, preds: Sequence[str], values: Sequence[str], condition: str | None = None) -> str:
        # ?a ?b are the variable names every query uses, so that paging can ORDER BY them.
        keep = "isIRI(?b)" if condition is None else f"isIRI(?b) && ({condition})"
        return (
            "SELECT DISTINCT ?a ?b WHERE {\n"
            f"  VALUES ?a {{ {self._values(values)} }}\n"
            f"  ?a {self._path(preds)} ?b .\n"
            f"  FILTER({keep})\n}}"
        )

    def _types_query(self, values: Sequence[str]) -> str:
        ns = " || ".join(f"STRSTARTS(STR(?b), {sparql_string(n)})" for n in self.type_namespaces)
        return self._pairs_query(self.vocabulary.instance_of, values, ns)

    def _relations_query(self, direction: str, values: Sequence[str]) -> str:
        """The relations of a batch of entities: ``?a`` the entity, ``?c`` the predicate, ``?b`` the other end."""
        v = self.vocabulary
        keep = " || ".join(f"STRSTARTS(STR(?c), {sparql_string(n)})" for n in v.relations)
        drop = "".join(f" && !STRSTARTS(STR(?c), {sparql_string(n)})" for n in v.not_relations)
        others = sorted(v._other_roles())
        not_in = f" && ?c NOT IN ({', '.join(sparql_iri(p) for p in others)})" if others else ""
        triple = "?a ?c ?b ." if direction == "out" else "?b ?c ?a ."
        return (
            "SELECT DISTINCT ?a ?c ?b WHERE {\n"
            f"  VALUES ?a {{ {self._values(values)} }}\n"
            f"  {triple}\n"
            f"  FILTER(isIRI(?b) && ({keep}){drop}{not_in})\n}}"
        )

    def relations(self, entities: Iterable[str], direction: str) -> dict[str, set[tuple[str, str]]]:
        """``{entity: {(predicate, other), ...}}`` (see :class:`~kg.sources.RelationSource`): one query
        per batch of entities not asked about yet; the predicates are chosen in the query (the vocabulary's
        relation namespaces) and checked again here.

        Examples
        --------
        >>> SparqlSource("http://127.0.0.1:1/sparql").relations([], "out")
        {}
        """
        check_direction(direction)
        if not self.vocabulary.relations:
            return {e: set() for e in entities}
        is_relation = self.vocabulary.is_relation

        def fetch(todo: list[str]) -> dict[str, set[tuple[str, str]]]:
            found: dict[str, set[tuple[str, str]]] = {e: set() for e in todo}
            for row in self._batches(f"relations-{direction}", todo,
                                     lambda vs: self._relations_query(direction, vs)):
                a, c, b = (row + [None, None, None])[:3]
                if isinstance(a, str) and isinstance(b, str) and isinstance(c, str) and a in found \
                        and is_relation(c):
                    found[a].add((c, b))
            return found

        return self._relations[direction].ask(entities, fetch)

    def property_edges(self, properties: Iterable[str]) -> set[tuple[str, str]]:
        """Every subproperty-of edge reachable upward from ``properties`` (one query per level and batch).

        Examples
        --------
        >>> SparqlSource("http://127.0.0.1:1/sparql").property_edges([])
        set()
        """
        if not self.vocabulary.subproperty_of:
            return set()
        return property_walk(self.vocabulary, properties, lambda starts: breadth_first_edges(
            starts, lambda xs: self._one_hop(self._subproperty, "subproperties", self.vocabulary.subproperty_of, xs),
            None))

    def _superclass_path_query(self, values: Sequence[str]) -> str:
        sc = self._path(self.vocabulary.subclass_of)
        branches = "\n  UNION\n".join(
            f"  {{ {sparql_iri(c)} {sc}* ?a . ?a {sc} ?b . }}" for c in values
        )
        return f"SELECT DISTINCT ?a ?b WHERE {{\n{branches}\n  FILTER(isIRI(?a) && isIRI(?b))\n}}"

    def _facts(self, cache: MemoCache, stage: str, entities, build) -> dict[str, set[str]]:
        return cache.ask(entities, lambda todo: self._fetch_facts(stage, todo, build))

    def _fetch_facts(self, stage: str, todo: list[str], build) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {e: set() for e in todo}
        stray = 0
        for a, b in self._batches(stage, todo, build):
            if isinstance(a, str) and isinstance(b, str):
                if a in found:
                    found[a].add(b)
                else:
                    stray += 1
        if stray:  # the server rewrote an IRI we sent: its facts would be lost silently
            log.warning("%s: %d %s row(s) name an entity that was not asked for (IRI rewritten by the "
                        "server?)", self.url, stray, stage)
        return found

    def _one_hop(self, cache: MemoCache, stage: str, preds: Sequence[str], nodes: list[str]) -> dict[str, set[str]]:
        return self._facts(cache, stage, nodes, lambda vs: self._pairs_query(preds, vs))

    def facts(self, kind: str, entities: Iterable[str]) -> dict[str, set[str]]:
        """``{subject: {IRI object, ...}}`` of the role ``kind`` (see
        :func:`~kg.rdf.sources.common.role_predicates`): one query per batch of subjects not asked about yet.

        Examples
        --------
        >>> SparqlSource("http://127.0.0.1:1/sparql").facts("nope", [])
        Traceback (most recent call last):
        ...
        ValueError: unknown fact table 'nope' (one of types, categories, subclass, broader, same_as, equivalent_class)
        """
        preds = role_predicates(self.vocabulary, kind)
        if not preds:
            return {e: set() for e in entities}
        return self._facts(self._links.setdefault(kind, MemoCache()), kind, entities,
                           lambda vs: self._pairs_query(preds, vs))

    # ------------------------------------------------------------------ KnowledgeSource
    def types(self, entities: Iterable[str]) -> dict[str, set[str]]:
        return self._facts(self._types, "types", entities, self._types_query)

    def categories(self, entities: Iterable[str]) -> dict[str, set[str]]:
        if not self.vocabulary.subject:
            return {e: set() for e in entities}
        return self._facts(self._cats, "categories", entities,
                           lambda vs: self._pairs_query(self.vocabulary.subject, vs))

    def class_edges(self, classes: Iterable[str]) -> set[tuple[str, str]]:
        classes = sorted(set(classes))
        edges: set[tuple[str, str]] | None = None
        if not self.vocabulary.subclass_of:
            return set()
        if self._path_ok is not False and classes:
            try:
                todo = [c for c in classes if c not in self._sc_done]
                if todo:
                    rows = self._batches("superclasses", todo, self._superclass_path_query)
                    for a, b in rows:
                        if isinstance(a, str) and isinstance(b, str):
                            self._sc_edges.setdefault(a, set()).add(b)
                    # a path query returns the closure above each start, so every node in it is done
                    self._sc_done.update(todo)
                    self._sc_done.update(self._sc_edges)
                    self._sc_done.update(p for ps in self._sc_edges.values() for p in ps)
                known = self._sc_edges
                edges = breadth_first_edges(classes, lambda xs: {x: known.get(x, set()) for x in xs}, None)
                self._path_ok = True
            except TransitiveStartError as exc:
                if self.superclasses == "path":
                    raise
                log.warning("%s; walking the subclass predicate one level per query instead", exc)
                self._path_ok = False
        if edges is None:
            edges = breadth_first_edges(
                classes, lambda xs: self._one_hop(self._sub, "superclasses", self.vocabulary.subclass_of, xs), None
            )
        return edges_within(edges, self.type_namespaces)

    def broader(self, categories: Iterable[str], depth: int | None) -> set[tuple[str, str]]:
        if not self.vocabulary.broader:
            return set()
        return breadth_first_edges(
            categories, lambda xs: self._one_hop(self._broader, "broader", self.vocabulary.broader, xs), depth
        )


def _error_body(exc: urllib.error.HTTPError) -> str:
    """The start of an HTTP error's body (a server says why there)."""
    try:
        return exc.read(2000).decode("utf-8", "replace")
    except Exception:  # noqa: BLE001 - a body that cannot be read says nothing
        return ""


def _first_line(msg: str) -> str:
    msg = msg.replace("\\n", "\n")
    for line in msg.splitlines():
        line = line.strip().lstrip("b'\"")
        if line and not line.startswith(("EndPointInternalError", "QueryBadFormed", "Response:")):
            return line[:300]
    return msg.strip()[:300]
