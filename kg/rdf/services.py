"""Is a service there before any work: a URL that accepts connections and answers one small request as itself.

:func:`check_url` tries a TCP connection only (nothing is sent); :func:`check_service` asks one
annotation of DBpedia Spotlight or the types of one entity of a SPARQL endpoint, without retries
or cache, so a wrong path or a server that is not that service fails in seconds, not after a
batch's retries.
"""

from __future__ import annotations

import re
import socket
from urllib.parse import urlsplit

from kg.errors import KgfsError

__all__ = ["check_service", "check_url"]


def check_url(url: str, option: str, *, timeout: float = 2.0) -> None:
    """Raise a :class:`KgfsError` unless ``url`` is an http(s) URL whose host accepts connections.

    Only a TCP connection is tried (no request), so nothing is sent to the service.

    Parameters
    ----------
    url : str
    option : str
        The parameter that gave the URL, named in the message: ``param("spotlight_url")``
        (:func:`~kg.errors.param`: the command line says its option, ``--spotlight-url``), or plain text.
    timeout : float
        Seconds to wait for the connection.

    Returns
    -------
    None

    Examples
    --------
    >>> from kg.errors import param
    >>> check_url("localhost:2222/rest", param("spotlight_url"))
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: spotlight_url 'localhost:2222/rest': not an http(s) URL (e.g. http://127.0.0.1:2222/rest/annotate)
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


def check_service(url: str, option: str, plugin, *, timeout: float = 10.0) -> None:
    """Raise a :class:`KgfsError` unless ``url`` answers one small request as ``plugin``'s service should.

    ``plugin`` is the registered source or annotator that will use the service (its ``probe``: Spotlight
    annotates the text "Berlin", SPARQL asks the types of one entity). No retry and nothing cached: a wrong path,
    a server that is not Spotlight (or not a SPARQL endpoint), or one that does not answer within ``timeout``
    fails here, in seconds, not after the stage's retries.

    Parameters
    ----------
    url : str
    option : str
        The parameter that gave the URL, named in the message (as in :func:`check_url`).
    plugin : type
        A :class:`~kg.sources.Opening` with ``probe`` and ``service``.
    timeout : float
        Seconds to wait for the answer.

    Returns
    -------
    None

    Examples
    --------
    >>> from kg.errors import param
    >>> from kg.rdf.annotators.spotlight import SpotlightAnnotator
    >>> check_service("http://127.0.0.1:9/rest/annotate", param("spotlight_url"), SpotlightAnnotator, timeout=1)
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: spotlight_url http://127.0.0.1:9/rest/annotate: not a working DBpedia Spotlight ...
    """
    try:
        plugin.probe(url, timeout)
    except KgfsError as exc:
        why = str(exc).rpartition("last: ")[2] if "last: " in str(exc) else str(exc)
        why = re.sub(r"https?://\S+:?\s*|: ''$", "", " ".join(why.split()))  # the URL is said once, first
        raise KgfsError(f"{option} {url}: not a working {plugin.service} ({why[:200]})") from None
