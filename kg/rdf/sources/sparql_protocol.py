"""What kgfs's SPARQL client sends and receives: its User-Agent, the JSON results and the errors.

:class:`kg.rdf.sources.sparql.SparqlSource` sends every request with :func:`default_user_agent`, reads
the answers with :func:`parse_results` and raises the errors below: :class:`SparqlError` (the
endpoint rejected a query; :class:`TransitiveStartError`, :class:`TruncatedResultError`),
:class:`QueryTimeoutError` (a query ran out of time) and :class:`SourceUnavailableError` (the
endpoint kept failing).

Examples
--------
>>> parse_results({"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "uri", "value": "http://x/1"}}]}})
(['x'], [['http://x/1']])
"""

from __future__ import annotations

import json
import os
import platform
from importlib.metadata import PackageNotFoundError, version

from kg.errors import KgfsError, TransientError

__all__ = [
    "QueryTimeoutError",
    "SourceUnavailableError",
    "SparqlError",
    "TransitiveStartError",
    "TruncatedResultError",
    "default_user_agent",
    "parse_results",
]


def default_user_agent() -> str:
    """The User-Agent of kgfs's SPARQL requests (the Wikimedia policy's form: name/version (contact) library).

    ``$KGFS_USER_AGENT`` replaces it; ``$KGFS_CONTACT`` (an e-mail address or a URL that names
    you) replaces the contact.

    Returns
    -------
    str

    Examples
    --------
    >>> default_user_agent().startswith("kgfs/")
    True
    """
    if os.environ.get("KGFS_USER_AGENT"):
        return os.environ["KGFS_USER_AGENT"]

    def v(dist: str) -> str:
        try:
            return version(dist)
        except PackageNotFoundError:
            return "0"

    contact = os.environ.get("KGFS_CONTACT") or "+https://pypi.org/project/kgfs/"
    return f"kgfs/{v('kgfs')} ({contact}) SPARQLWrapper/{v('SPARQLWrapper')} Python/{platform.python_version()}"


def parse_results(data: bytes | str | dict) -> tuple[list[str], list[list]]:
    """The variables and rows of a SPARQL JSON result: an IRI as its string, a literal as
    ``{"literal": value}``, a blank node or an unbound variable as ``None``.

    Parameters
    ----------
    data : bytes, str or dict
        The ``application/sparql-results+json`` document.

    Returns
    -------
    vars : list of str
    rows : list of list

    Raises
    ------
    ValueError, KeyError, TypeError
        When it is not a SPARQL JSON result.

    Examples
    --------
    >>> parse_results('{"head": {"vars": ["a", "b"]}, "results": {"bindings": ['
    ...               '{"a": {"type": "uri", "value": "http://x/1"}, "b": {"type": "literal", "value": "1"}},'
    ...               '{"a": {"type": "bnode", "value": "t1"}}]}}')
    (['a', 'b'], [['http://x/1', {'literal': '1'}], [None, None]])
    """
    doc = json.loads(data) if isinstance(data, (bytes, str)) else data
    vars_ = list(doc["head"]["vars"])
    rows = []
    for b in doc["results"]["bindings"]:
        row = []
        for v in vars_:
            cell = b.get(v)
            kind = None if cell is None else cell.get("type")
            row.append(cell.get("value") if kind in ("uri", "iri") else
                       {"literal": cell.get("value")} if kind in ("literal", "typed-literal") else None)
        rows.append(row)
    return vars_, rows


class SparqlError(KgfsError):
    """The endpoint rejected a query (not retried).

    Examples
    --------
    >>> issubclass(TransitiveStartError, SparqlError), issubclass(SparqlError, KgfsError)
    (True, True)
    """


class TransitiveStartError(SparqlError):
    """Virtuoso's "transitive start not given": a property path without a constant start.

    ``superclasses="auto"`` catches it and walks ``rdfs:subClassOf`` one level per query.

    Examples
    --------
    >>> from kg.rdf.sources.sparql import SparqlSource
    >>> SparqlSource("http://127.0.0.1:8890/sparql", superclasses="levels").superclasses
    'levels'
    """


class TruncatedResultError(SparqlError):
    """A result was cut by the server and could not be completed by splitting or paging.

    Examples
    --------
    >>> str(TruncatedResultError("http://127.0.0.1:8890/sparql cut a page at 10000 rows"))
    'http://127.0.0.1:8890/sparql cut a page at 10000 rows'
    """


class QueryTimeoutError(TransientError):
    """A query ran out of time (the client's ``timeout``, or the server said so): split its batch, or retry
    a single value.

    Examples
    --------
    >>> issubclass(QueryTimeoutError, TransientError)
    True
    """


class SourceUnavailableError(KgfsError):
    """The endpoint could not be reached (or kept failing) after all retries.

    Examples
    --------
    >>> from kg.rdf.sources.sparql import SparqlSource
    >>> src = SparqlSource("http://127.0.0.1:9/sparql", retries=0, timeout=1)
    >>> src.types(["http://dbpedia.org/resource/Lyon"])  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    kg.rdf.sources.sparql_protocol.SourceUnavailableError: SPARQL endpoint http://127.0.0.1:9/sparql failed ...
    """
