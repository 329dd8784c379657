"""IRI validation and SPARQL-safe rendering of IRIs and strings.

Nothing read from a corpus, a Spotlight answer or a dump is interpolated into a SPARQL query
except through :func:`sparql_iri` or :func:`sparql_string`. An IRI is first normalised with
:func:`normalize_iri`: it must be absolute (``scheme:...``), and the characters the SPARQL/Turtle
``IRIREF`` production forbids (controls, space, ``<>"{}|^`\\``), and whatever else RFC 3987
does not allow, are percent-encoded, which is also how DBpedia writes them in its resource IRIs
(``"`` is ``%22``). :func:`sparql_iri` then
refuses anything that is still not a safe ``IRIREF``; it never relies on ``\\u`` escapes,
because SPARQL processes codepoint escapes before parsing and they could re-create a ``>``.

Examples
--------
>>> normalize_iri("http://dbpedia.org/resource/> } ; DROP ALL #")
'http://dbpedia.org/resource/%3E%20%7D%20;%20DROP%20ALL%20#'
>>> sparql_iri("http://dbpedia.org/resource/Chris_Gayle")
'<http://dbpedia.org/resource/Chris_Gayle>'
>>> sparql_string('say "hi"\\n')
'"say \\\\"hi\\\\"\\\\n"'
"""

from __future__ import annotations

import re

from kg.errors import InputFormatError

__all__ = ["check_iri", "is_safe_iri", "normalize_iri", "sparql_iri", "sparql_string", "InvalidIRIError"]

# Characters IRIREF excludes: [^<>"{}|^`\]-[#x00-#x20]
_FORBIDDEN = set('<>"{}|^`\\') | {chr(c) for c in range(0x21)} | {"\x7f"}
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_SAFE = re.compile(r'[A-Za-z][A-Za-z0-9+.\-]*:[^<>"{}|^`\\\x00-\x20\x7f]*')
# an absolute IRI of ASCII characters that never need encoding (no %, [, ], #): normalize_iri returns it as it is
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[A-Za-z0-9\-._~:/?@!$&'()*+,;=]*")


class InvalidIRIError(InputFormatError):
    """A value that should be an absolute IRI is not one (named in the message).

    Examples
    --------
    >>> try:
    ...     normalize_iri("Chris Gayle", where="instance 't1'")
    ... except InvalidIRIError as e:
    ...     print(e)
    not an absolute IRI: 'Chris Gayle' (instance 't1')
    """


def is_safe_iri(iri: str) -> bool:
    """Whether ``iri`` is absolute and can be written as ``<iri>`` in SPARQL as it is.

    Parameters
    ----------
    iri : str

    Returns
    -------
    bool

    Examples
    --------
    >>> is_safe_iri("http://dbpedia.org/resource/Lyon"), is_safe_iri("http://x.org/a b"), is_safe_iri("Lyon")
    (True, False, False)
    """
    return isinstance(iri, str) and bool(_SAFE.fullmatch(iri))


_ASCII_OK = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=")
_HEX = set("0123456789abcdefABCDEF")


def _ucs_ok(c: str) -> bool:
    """RFC 3987 ``ucschar``: the non-ASCII characters an IRI may hold unencoded anywhere.

    (``iprivate`` characters are allowed in a query part only; they are encoded everywhere.)
    """
    o = ord(c)
    return (
        0xA0 <= o <= 0xD7FF
        or 0xF900 <= o <= 0xFDCF
        or 0xFDF0 <= o <= 0xFFEF
        or (0x10000 <= o <= 0xDFFFD and (o & 0xFFFF) <= 0xFFFD)
        or 0xE1000 <= o <= 0xEFFFD
    )


def _pct(c: str) -> str:
    return "".join(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass"))


def normalize_iri(value: str, *, where: str | None = None) -> str:
    """Return ``value`` as a valid, SPARQL-safe absolute IRI, percent-encoding what must be.

    Characters an IRI (RFC 3987) may not hold, and so every character the SPARQL ``IRIREF``
    production forbids, are percent-encoded as UTF-8; a ``%`` not followed by two hex digits
    becomes ``%25``; ``[``/``]`` outside the authority and every ``#`` after the first are
    encoded. Valid IRIs are returned unchanged (so the function is idempotent).

    Parameters
    ----------
    value : str
        A candidate IRI (surrounding whitespace and one pair of ``<...>`` are stripped).
    where : str, optional
        Where the value came from (file/line/instance), used in the error message.

    Returns
    -------
    str
        The IRI, percent-encoded where it had to be.

    Raises
    ------
    InvalidIRIError
        When the value is empty or has no scheme (it is not an absolute IRI).

    Examples
    --------
    >>> normalize_iri("<http://dbpedia.org/resource/Chelsea,_London>")
    'http://dbpedia.org/resource/Chelsea,_London'
    >>> normalize_iri('http://dbpedia.org/resource/"Weird_Al"_Yankovic')
    'http://dbpedia.org/resource/%22Weird_Al%22_Yankovic'
    """
    if not isinstance(value, str):
        raise InvalidIRIError(f"not an IRI: {value!r}" + (f" ({where})" if where else ""))
    v = value.strip()
    if len(v) >= 2 and v[0] == "<" and v[-1] == ">":
        v = v[1:-1]
    if _PLAIN.fullmatch(v):  # the common case, at a regular expression's speed
        return v
    m = _SCHEME.match(v)
    if not m:
        raise InvalidIRIError(
            f"not an absolute IRI: {value!r}" + (f" ({where})" if where else "")
        )
    head, rest = m.group(0), v[m.end():]
    auth_end = 0
    if rest.startswith("//"):
        auth_end = len(rest)
        for stop in "/?#":
            k = rest.find(stop, 2)
            if k != -1:
                auth_end = min(auth_end, k)
    out = []
    seen_hash = False
    n = len(rest)
    for i, c in enumerate(rest):
        if c == "%":
            ok = i + 2 < n and rest[i + 1] in _HEX and rest[i + 2] in _HEX
            out.append("%" if ok else "%25")
        elif c in "[]":
            out.append(c if i < auth_end else _pct(c))
        elif c == "#":
            out.append(_pct(c) if seen_hash else c)
            seen_hash = True
        elif c in _ASCII_OK or (ord(c) > 0x7F and _ucs_ok(c)):
            out.append(c)
        else:
            out.append(_pct(c))
    return head + "".join(out)


def check_iri(iri: str) -> str:
    """Return ``iri`` if it is a normalised, valid absolute IRI; else raise :class:`InvalidIRIError`.

    Never repairs: callers normalise corpus values with :func:`normalize_iri` first, so that
    every source (SPARQL, dump or rdflib graph) sees the same IRI and refuses the same values.

    Parameters
    ----------
    iri : str

    Returns
    -------
    str
        ``iri`` itself.

    Examples
    --------
    >>> check_iri("http://dbpedia.org/resource/Lyon")
    'http://dbpedia.org/resource/Lyon'
    >>> check_iri("http://dbpedia.org/resource/x> . ?s ?p ?o")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    kg.iri.InvalidIRIError: refusing an invalid or unsafe IRI (normalise it first): ...
    """
    try:
        ok = is_safe_iri(iri) and normalize_iri(iri) == iri
    except InvalidIRIError:
        ok = False
    if not ok:
        raise InvalidIRIError(f"refusing an invalid or unsafe IRI (normalise it first): {iri!r}")
    return iri


def sparql_iri(iri: str) -> str:
    """``<iri>`` for a SPARQL query; raises :class:`InvalidIRIError` unless ``iri`` is valid and safe.

    Parameters
    ----------
    iri : str

    Returns
    -------
    str

    Examples
    --------
    >>> sparql_iri("http://dbpedia.org/ontology/Athlete")
    '<http://dbpedia.org/ontology/Athlete>'
    """
    return f"<{check_iri(iri)}>"


def sparql_string(value: str) -> str:
    """A double-quoted SPARQL string literal with ``\\``, quotes and line breaks escaped.

    Parameters
    ----------
    value : str

    Returns
    -------
    str

    Examples
    --------
    >>> print(sparql_string('http://dbpedia.org/ontology/'), sparql_string('a "b" \\\\u0022'))
    "http://dbpedia.org/ontology/" "a \\"b\\" \\\\u0022"
    """
    s = str(value)
    s = (
        s.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\n", "\\n")
        .replace("\r", "\\r")
        .replace("\t", "\\t")
        .replace("\b", "\\b")
        .replace("\f", "\\f")
    )
    # A literal "\u" would be decoded by the server before parsing; the backslash is already
    # doubled above, so "\\u0022" stays four characters and cannot close the string.
    return f'"{s}"'
