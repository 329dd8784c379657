"""Checks of a run's input before any stage runs: what ``kgfs run`` and ``kgfs build`` verify up front.

:func:`check_source` reads what is cheap to read of a spec (:mod:`flows.inputs`) and raises
the error a stage would raise later, so a bad input fails in about a second, before Prefect
starts:

- GO route: the relations and namespaces asked for occur in the OBO file
  (:func:`kg.go.obo.check_obo_options`), the annotations and labels parse, some labelled gene
  has annotations;
- DBpedia route: the corpus parses with the given columns, the annotator and knowledge source
  have what they need (a dump, a URL), and a Spotlight or SPARQL URL is well formed, accepts
  connections and answers one small request as that service;
- every route: the class sizes (so the caller can choose the folds).

Examples
--------
>>> from flows.inputs import resolve_source
>>> facts = check_source(resolve_source())
>>> facts["classes"]
{'anti-longevity': 36, 'pro-longevity': 91}
"""

from __future__ import annotations

import re
import socket
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from kg.errors import KgfsError

__all__ = ["check_output", "check_service", "check_source", "check_url", "few"]


def few(items, n: int = 5) -> str:
    """The first ``n`` items, comma-separated, with how many more there are.

    Parameters
    ----------
    items : sequence
    n : int

    Returns
    -------
    str

    Examples
    --------
    >>> few(["a", "b", "c"], 2), few(["a"])
    ('a, b and 1 more', 'a')
    """
    items = [str(i) for i in items]
    more = f" and {len(items) - n} more" if len(items) > n else ""
    return ", ".join(items[:n]) + more


def check_output(path, kind: str = "folder", option: str = "--out") -> None:
    """Raise a :class:`KgfsError` when an output path cannot be what a command writes.

    Parameters
    ----------
    path : path
    kind : {"folder", "file"}
        A folder (an existing file is in the way) or one file (an existing folder is in the way).
    option : str

    Returns
    -------
    None

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> check_output(d, "folder")
    >>> check_output(d, "file")
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: --out ...: is a directory; the export writes one file (give a file name)
    """
    p = Path(path)
    if kind == "file" and p.is_dir():
        raise KgfsError(f"{option} {p}: is a directory; the export writes one file (give a file name)")
    if kind == "folder" and p.exists() and not p.is_dir():
        raise KgfsError(f"{option} {p}: is a file, not a folder")
    for parent in p.parents:
        if parent.exists():
            if not parent.is_dir():
                raise KgfsError(f"{option} {p}: {parent} is a file, not a folder")
            break


def check_url(url: str, option: str, *, timeout: float = 2.0) -> None:
    """Raise a :class:`KgfsError` unless ``url`` is an http(s) URL whose host accepts connections.

    Only a TCP connection is tried (no request), so nothing is sent to the service.

    Parameters
    ----------
    url : str
    option : str
        The command-line option, named in the message.
    timeout : float
        Seconds to wait for the connection.

    Returns
    -------
    None

    Examples
    --------
    >>> check_url("localhost:2222/rest", "--spotlight-url")
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: --spotlight-url 'localhost:2222/rest': not an http(s) URL (e.g. http://127.0.0.1:2222/rest/annotate)
    """
    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise KgfsError(f"{option} {url!r}: not an http(s) URL (e.g. http://127.0.0.1:2222/rest/annotate)")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise KgfsError(f"{option} {url!r}: bad port") from None
    try:
        socket.create_connection((parts.hostname, port), timeout=timeout).close()
    except OSError as exc:
        why = getattr(exc, "strerror", None) or type(exc).__name__
        raise KgfsError(f"{option} {url}: cannot connect to {parts.hostname}:{port} ({why})") from None


def check_service(url: str, option: str, *, timeout: float = 10.0) -> None:
    """Raise a :class:`KgfsError` unless ``url`` answers one small request as the service ``option`` names.

    ``--spotlight-url``: one annotation of the text "Berlin"; ``--sparql-url``: the types of one
    entity. No retry and nothing cached: a wrong path, a server that is not Spotlight (or not a
    SPARQL endpoint), or one that does not answer within ``timeout`` fails here, in seconds, not
    after the stage's retries.

    Parameters
    ----------
    url : str
    option : {"--spotlight-url", "--sparql-url"}
    timeout : float
        Seconds to wait for the answer.

    Returns
    -------
    None

    Examples
    --------
    >>> check_service("http://127.0.0.1:9/rest/annotate", "--spotlight-url", timeout=1)
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: --spotlight-url http://127.0.0.1:9/rest/annotate: not a working DBpedia Spotlight ...
    """
    if option == "--spotlight-url":
        from kg.dbpedia.spotlight import SpotlightAnnotator

        what, ask = "DBpedia Spotlight annotate endpoint", SpotlightAnnotator(url, retries=0, timeout=timeout).annotate
        probe = ["Berlin"]
    else:
        from kg.dbpedia.sparql import SparqlSource

        what, ask = "SPARQL endpoint", SparqlSource(url, retries=0, timeout=timeout).types
        probe = ["http://dbpedia.org/resource/Berlin"]
    try:
        ask(probe)
    except KgfsError as exc:
        why = str(exc).rpartition("last: ")[2] if "last: " in str(exc) else str(exc)
        why = re.sub(r"https?://\S+:?\s*|: ''$", "", " ".join(why.split()))  # the URL is said once, first
        raise KgfsError(f"{option} {url}: not a working {what} ({why[:200]})") from None


def _check_go(spec: Mapping) -> dict:
    from kg.go.obo import check_obo_options
    from flows.inputs import read_facts

    opts = spec.get("options", {})
    check_obo_options(spec["ontology"]["path"], relations=opts.get("relations", ("is_a",)),
                      namespaces=opts.get("namespaces"))
    ann, labels = read_facts(spec)
    if not ann:
        raise KgfsError(f"{spec['annotations']['path']}: no annotation (--annotations"
                        + (f", --evidence {' '.join(opts['evidence'])}" if opts.get("evidence") else "") + ")")
    out: dict = {"n_annotated": len(ann)}
    if labels is not None:
        if not labels:
            raise KgfsError(f"{spec['labels']['path']}: no labels (--labels)")
        missing = [g for g in labels if g not in ann]
        if len(missing) == len(labels):
            raise KgfsError(f"no gene of {spec['labels']['path']} (--labels) has an annotation in "
                            f"{spec['annotations']['path']} (--annotations); e.g. {few(missing, 3)}")
        out["classes"] = dict(sorted(Counter(str(v) for g, v in labels.items() if g in ann).items()))
    return out


def _check_dbpedia(spec: Mapping, objects=None) -> dict:
    from kg.dbpedia.batches import RouteObjects, _dump_arg, annotator_inputs, source_inputs
    from kg.dbpedia.route import make_annotator, make_source

    opts = spec.get("options", {})
    objects = objects or RouteObjects()
    corpus = objects.corpus(spec)
    if len(corpus) == 0:
        raise KgfsError(f"{spec['corpus']['path']}: the corpus has no instances (--corpus)")
    dump = _dump_arg(spec)
    ann = annotator_inputs(spec)["annotator"] if corpus.entities is None else None
    src = source_inputs(spec)["kg"]
    # what is missing first (cheap to build when it raises: no dump is read), then the services
    if ann is not None and (ann == "spotlight" or dump is None):
        make_annotator(ann, spotlight_url=opts.get("spotlight_url"), dump=dump)
    if src == "sparql" or dump is None:
        make_source(src, sparql_url=opts.get("sparql_url"), dump=dump)
    for url, option in ((opts.get("spotlight_url"), "--spotlight-url"), (opts.get("sparql_url"), "--sparql-url")):
        if url and (ann == "spotlight" if option == "--spotlight-url" else src == "sparql"):
            check_url(url, option)
            check_service(url, option, timeout=max(10.0, float(opts.get("timeout") or 0)))  # as slow as --timeout
    out: dict = {"n_instances": len(corpus), "objects": objects}
    if corpus.labels is not None:
        out["classes"] = dict(sorted(Counter(str(v) for v in corpus.labels).items()))
    return out


def check_source(spec: Mapping, *, objects=None) -> dict:
    """Check a spec's input up front; returns what was learnt (class sizes).

    Parameters
    ----------
    spec : mapping
        From :func:`flows.inputs.resolve_source`.
    objects : kg.dbpedia.batches.RouteObjects, optional
        Where the DBpedia route's corpus is kept (so the stages do not read it again).

    Returns
    -------
    dict
        ``classes`` (label -> count of the instances that will be rows) when known, and
        ``n_annotated`` (GO) or ``n_instances`` and ``objects`` (DBpedia: the ``RouteObjects``
        holding the corpus read, for :func:`flows.inputs.table_from_spec` to reuse).

    Raises
    ------
    KgfsError, OSError
        What the stages would raise later, naming the file, line and option.

    Examples
    --------
    See the module.
    """
    if spec["kind"] == "go":
        return _check_go(spec)
    if spec["kind"] == "dbpedia":
        return _check_dbpedia(spec, objects)
    return {}
