"""A DBpedia Spotlight client: the ``/annotate`` REST call over ``requests``, batched, retried, cached.

Spotlight answers ``/annotate`` with JSON whose values are all strings (``"@offset": "57"``) and
that has no ``Resources`` key when nothing was found (see ``../shared/data/spotlight/``). Some
Spotlight versions give a single resource as an object rather than a one-element list; both are
read.

Each text is one ``POST`` (form fields ``text``, ``confidence``, ``support``, ``types``,
``policy``; ``Accept: application/json``). Texts are sent in batches through at most
``max_workers`` concurrent requests; 5xx, 429, timeouts, refused connections and malformed JSON
are retried with exponential backoff (``Retry-After`` honoured), other 4xx are not. Every answer
is cached on disk per text *and* parameters (one JSON file per key, written atomically), so a
rerun, or a rerun after a failure, sends nothing twice.

Examples
--------
>>> sp = SpotlightAnnotator("http://127.0.0.1:2222/rest/annotate", confidence=0.4,
...                         cache_dir="cache")  # doctest: +SKIP
>>> sp.annotate(["Kobe Bryant scores"])  # doctest: +SKIP
[[Annotation(uri='http://dbpedia.org/resource/Kobe_Bryant', surface_form='Kobe Bryant', offset=0, ...)]]
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

from kg.errors import KgfsError, RetryPolicy, TransientError, retry
from kg.files import atomic_write
from kg.sources import Annotation, AnnotatorBase

__all__ = ["SpotlightAnnotator", "SpotlightError", "parse_annotate_response"]

log = logging.getLogger(__name__)

_CACHE_VERSION = 1


class SpotlightError(KgfsError):
    """Spotlight rejected a request, or stayed unavailable after every retry.

    Examples
    --------
    >>> sp = SpotlightAnnotator("http://127.0.0.1:9/rest", retries=0, timeout=1)
    >>> sp.annotate(["Chris Gayle"])  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    kg.rdf.annotators.spotlight.SpotlightError: Spotlight at http://127.0.0.1:9/rest/annotate failed 1 time(s) ...
    """


def parse_annotate_response(data: dict) -> list[Annotation]:
    """Annotations of one ``/annotate`` JSON answer (all values are strings there).

    Parameters
    ----------
    data : dict
        The decoded JSON answer.

    Returns
    -------
    list of Annotation
        Empty when the answer has no ``Resources``.

    Raises
    ------
    ValueError
        When the answer does not have Spotlight's shape.

    Examples
    --------
    >>> parse_annotate_response({"@text": "Chris Gayle hits", "Resources": {
    ...     "@URI": "http://dbpedia.org/resource/Chris_Gayle", "@surfaceForm": "Chris Gayle", "@offset": "0",
    ...     "@support": "310", "@similarityScore": "0.99", "@types": "DBpedia:Cricketer,DBpedia:Athlete"}})
    ... # doctest: +NORMALIZE_WHITESPACE
    [Annotation(uri='http://dbpedia.org/resource/Chris_Gayle', surface_form='Chris Gayle', offset=0,
                support=310, score=0.99, types=('DBpedia:Cricketer', 'DBpedia:Athlete'))]
    >>> parse_annotate_response({"@text": "nothing here"})
    []
    """
    if not isinstance(data, dict):
        raise ValueError("the answer is not a JSON object")
    res = data.get("Resources")
    if res is None:
        return []
    if isinstance(res, dict):
        res = [res]
    if not isinstance(res, list):
        raise ValueError("'Resources' is neither a list nor an object")
    out = []
    for r in res:
        uri = r["@URI"]
        types = tuple(t.strip() for t in str(r.get("@types") or "").split(",") if t.strip())
        out.append(
            Annotation(
                uri=str(uri),
                surface_form=str(r.get("@surfaceForm", "")),
                offset=int(r.get("@offset", -1)),
                support=int(r["@support"]) if r.get("@support") not in (None, "") else None,
                score=float(r["@similarityScore"]) if r.get("@similarityScore") not in (None, "") else None,
                types=types,
            )
        )
    return out


class SpotlightAnnotator(AnnotatorBase):
    """Annotate texts with a DBpedia Spotlight server.

    Parameters
    ----------
    url : str
        The annotate endpoint (``http://host:2222/rest/annotate``); a URL not ending in
        ``/annotate`` gets ``/annotate`` appended.
    confidence : float
        Spotlight's disambiguation confidence threshold (0-1).
    support : int
        Minimum number of in-links of an entity.
    types : str
        Comma-separated type filter (``DBpedia:Person,Schema:Place``); empty = all.
    policy : {"whitelist", "blacklist"}
        Whether ``types`` keeps or removes.
    cache_dir : path, optional
        Disk cache of answers (one JSON file per text+parameters). ``None``: no cache.
    max_workers : int
        Concurrent requests at most.
    batch_size : int
        Texts per batch (the progress callback is called after each).
    timeout : float
        Seconds per request.
    retries : int
        Further attempts after a retryable failure.
    max_total : float, optional
        Seconds one text may take with all its retries; then :class:`~kg.errors.DeadlineError`
        (``None``: bounded by ``retries`` only).
    backoff : float
        First wait in seconds, doubled per retry (capped at 60 s).
    progress : callable, optional
        ``progress("annotate", done_batches, total_batches)``.

    Attributes
    ----------
    stats : dict
        ``requests`` sent, ``cache_hits``, ``retries``.

    Examples
    --------
    >>> sp = SpotlightAnnotator("http://127.0.0.1:2222/rest", confidence=0.35, cache_dir="cache")
    >>> sp.url
    'http://127.0.0.1:2222/rest/annotate'
    >>> sp.annotate(["Kobe Bryant scores"])[0][0].uri  # doctest: +SKIP
    'http://dbpedia.org/resource/Kobe_Bryant'
    """

    # ---------------------------------------------------------------- opened by name (kg.rdf.annotators.ANNOTATORS)
    requires = ("spotlight_url",)

    @classmethod
    def key(cls, settings) -> dict:
        out = {"spotlight_url": settings.spotlight_url, "dump": None}
        if settings.spotlight:
            out["spotlight"] = dict(sorted(settings.spotlight.items()))  # only when given: the keys of others stay
        return out

    @classmethod
    def services(cls, settings) -> list[tuple[str, str]]:
        return [(settings.spotlight_url, "spotlight_url")]

    #: What :meth:`probe` expects to find at the URL (named when it does not).
    service = "DBpedia Spotlight annotate endpoint"

    @classmethod
    def probe(cls, url: str, timeout: float) -> None:
        """One annotation of the text "Berlin", no retry, nothing cached."""
        cls(url, retries=0, timeout=timeout).annotate(["Berlin"])

    @classmethod
    def open(cls, settings) -> SpotlightAnnotator:
        access = settings.access
        return cls(settings.spotlight_url, cache_dir=access.cache_dir, progress=access.progress,
                   max_total=access.max_total, **access.limits(), **dict(settings.spotlight or {}))


    def __init__(
        self,
        url: str,
        *,
        confidence: float = 0.5,
        support: int = 0,
        types: str = "",
        policy: str = "whitelist",
        cache_dir: str | Path | None = None,
        max_workers: int = 4,
        batch_size: int = 64,
        timeout: float = 30.0,
        retries: int = 4,
        backoff: float = 0.5,
        max_total: float | None = None,
        progress: Callable[[str, int, int], None] | None = None,
    ):
        if policy not in ("whitelist", "blacklist"):
            raise ValueError(f"policy must be 'whitelist' or 'blacklist', got {policy!r}")
        if not 0 <= float(confidence) <= 1:
            raise ValueError(f"confidence must be in [0, 1], got {confidence}")
        if max_workers < 1 or batch_size < 1:
            raise ValueError("max_workers and batch_size must be >= 1")
        url = url.rstrip("/")
        self.url = url if url.endswith("/annotate") else url + "/annotate"
        self.params = {
            "confidence": str(float(confidence)),
            "support": str(int(support)),
            "types": str(types),
            "policy": policy,
        }
        self.cache_dir = None if cache_dir is None else Path(cache_dir)
        self.max_workers = int(max_workers)
        self.batch_size = int(batch_size)
        self.timeout = float(timeout)
        self.retries = int(retries)
        self.backoff = float(backoff)
        self.max_total = None if max_total is None else float(max_total)
        self.progress = progress
        self.stats = {"requests": 0, "cache_hits": 0, "retries": 0}
        self._lock = threading.Lock()
        self._local = threading.local()

    def __repr__(self) -> str:
        return f"SpotlightAnnotator({self.url!r}, {self.params!r})"

    # ------------------------------------------------------------------ cache
    def _key(self, text: str) -> str:
        blob = json.dumps({"v": _CACHE_VERSION, "url": self.url, "text": text, **self.params}, sort_keys=True)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _cache_path(self, key: str) -> Path | None:
        return None if self.cache_dir is None else self.cache_dir / "spotlight" / key[:2] / f"{key}.json"

    def _cached(self, key: str) -> dict | None:
        path = self._cache_path(key)
        if path is None or not path.is_file():
            return None
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, OSError):
            log.warning("ignoring unreadable cache file %s", path)
            return None

    def _store(self, key: str, data: dict) -> None:
        path = self._cache_path(key)
        if path is not None:
            payload = json.dumps(data, ensure_ascii=False)
            atomic_write(path, lambda tmp: tmp.write_text(payload, encoding="utf-8"))

    # ------------------------------------------------------------------ HTTP
    def _session(self) -> requests.Session:
        s = getattr(self._local, "session", None)
        if s is None:
            s = self._local.session = requests.Session()
            s.headers["Accept"] = "application/json"
        return s

    def _request(self, text: str, timeout: float | None = None) -> dict:
        try:
            with self._lock:
                self.stats["requests"] += 1
            r = self._session().post(self.url, data={"text": text, **self.params},
                                     timeout=self.timeout if timeout is None else max(0.1, timeout))
        except (requests.Timeout, requests.ConnectionError) as exc:
            raise TransientError(f"{type(exc).__name__}: {exc}") from None
        if r.status_code == 429 or r.status_code >= 500:
            raise TransientError(f"HTTP {r.status_code}", r.headers.get("Retry-After"))
        if r.status_code != 200:
            raise SpotlightError(f"{self.url} answered HTTP {r.status_code}: {r.text[:200]!r}")
        try:
            data = r.json()
            parse_annotate_response(data)
        except (ValueError, KeyError, TypeError) as exc:
            raise TransientError(f"malformed JSON from Spotlight ({exc})") from None
        return data

    def _annotate_text(self, index: int, text: str) -> dict:
        def give_up(attempts: int, exc: TransientError) -> SpotlightError:
            return SpotlightError(
                f"Spotlight at {self.url} failed {attempts} time(s) on text #{index} ({text[:40]!r}...), last: {exc}"
                + (f"; answers so far are cached in {self.cache_dir}, rerun to resume"
                   if self.cache_dir is not None else "")
            )

        deadline = None if self.max_total is None else time.monotonic() + self.max_total

        def attempt() -> dict:
            return self._request(text, None if deadline is None else min(self.timeout, deadline - time.monotonic()))

        return retry(attempt, RetryPolicy(self.retries, self.backoff, deadline), what="Spotlight request",
                     give_up=give_up, on_retry=self._count_retry)

    def _count_retry(self) -> None:
        with self._lock:
            self.stats["retries"] += 1

    # ------------------------------------------------------------------ public
    def annotate(self, texts: Sequence[str]) -> list[list[Annotation]]:
        """The annotations of each text (one list per text, in text order)."""
        answers: dict[str, dict] = {}
        todo: dict[str, tuple[int, str]] = {}  # key -> (first index, text); duplicates sent once
        keys = []
        for i, t in enumerate(texts):
            t = "" if t is None else str(t)
            k = self._key(t)
            keys.append(k)
            if k in answers or k in todo:
                continue
            if not t.strip():
                answers[k] = {"@text": t}
                continue
            hit = self._cached(k)
            if hit is not None:
                self.stats["cache_hits"] += 1
                answers[k] = hit
            else:
                todo[k] = (i, t)
        items = list(todo.items())
        total = (len(items) + self.batch_size - 1) // self.batch_size
        if items:
            with ThreadPoolExecutor(max_workers=self.max_workers) as pool:
                for b in range(total):
                    batch = items[b * self.batch_size:(b + 1) * self.batch_size]
                    futures = [(k, pool.submit(self._annotate_text, i, t)) for k, (i, t) in batch]
                    try:
                        for k, fut in futures:
                            data = fut.result()
                            self._store(k, data)
                            answers[k] = data
                    except BaseException:
                        for _, fut in futures:
                            fut.cancel()
                        # keep what finished in this batch before failing
                        for k, fut in futures:
                            if fut.done() and not fut.cancelled() and fut.exception() is None:
                                self._store(k, fut.result())
                        raise
                    if self.progress is not None:
                        self.progress("annotate", b + 1, total)
        return [parse_annotate_response(answers[k]) for k in keys]
