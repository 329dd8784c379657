"""Hostile XML refused before the fast parser sees it: entities and nesting bounded by a streaming pre-scan.

pyoxigraph's RDF/XML parser expands XML entities without a bound (a 3.5 KB "billion laughs" file
grew to 12 GB) and its time grows with the square of the element nesting depth (200,000 levels
never finish). :func:`check_xml` reads the file once with the standard library's expat, in blocks
(``.gz`` / ``.bz2`` decompressed, detected by their magic bytes), and refuses, with an
:class:`~kg.errors.InputFormatError` naming the file, the line, the limit and how to raise it:

- parameter entities (``<!ENTITY % x ...>``), external entities (``SYSTEM`` / ``PUBLIC``: XXE),
  unparsed entities (``NDATA``);
- internal entities whose value holds ``&`` or ``<`` (an entity built of entities: the nesting that
  billion laughs needs). Plain values, as real OWL files declare their namespaces
  (``<!ENTITY owl "http://www.w3.org/2002/07/owl#">``), pass;
- an expansion amplification (text and attribute bytes delivered / bytes of the document parsed) above
  :data:`MAX_AMPLIFICATION` once more than :data:`AMPLIFICATION_FLOOR` bytes were delivered (env
  ``KGFS_XML_MAX_AMPLIFICATION``): one plain entity referenced many times (the quadratic blow-up). Counted only
  in a file that declares an entity (without one nothing expands: character references shrink). expat
  (2.4 and later) has its own bound, 100x past 8 MiB, which the variable cannot raise;
- elements nested deeper than :data:`MAX_DEPTH` (env ``KGFS_XML_MAX_DEPTH``);
- XML that is not well-formed (the parser would refuse it too; the scan says where).

What passes is parsed by pyoxigraph as before; the scan costs about half a parse (``benchmarks/bench_xml_guard.py``).
It is called by every reader of RDF/XML in kgfs: :class:`kg.rdf.dumpfiles.DumpReader` (``.owl``, ``.rdf``,
``.xml`` dumps) and :func:`kg.ontology.read.read_owl`.

Examples
--------
>>> import pathlib, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> ok = d / "ok.owl"
>>> _ = ok.write_text('<!DOCTYPE rdf:RDF [<!ENTITY owl "http://www.w3.org/2002/07/owl#">]>'
...                   '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
...                   '<rdf:Description rdf:about="&owl;Thing"/></rdf:RDF>')
>>> check_xml(ok)
>>> bad = d / "laughs.owl"
>>> _ = bad.write_text('<!DOCTYPE r [<!ENTITY a "ha"><!ENTITY b "&a;&a;">]><r>&b;</r>')
>>> try:
...     check_xml(bad)
... except InputFormatError as e:
...     print(str(e).split(": ", 1)[1][:58])
refusing XML entity 'b': its value holds '&' or '<' (entit
"""

from __future__ import annotations

import bz2
import gzip
import os
from pathlib import Path
from xml.parsers import expat

from kg.errors import InputFormatError

__all__ = ["AMPLIFICATION_FLOOR", "MAX_AMPLIFICATION", "MAX_DEPTH", "check_xml", "is_xml_format"]

#: Elements may nest this deep (env ``KGFS_XML_MAX_DEPTH``); real RDF/XML nests a few tens of levels.
MAX_DEPTH = 1000
#: Text and attribute bytes delivered per byte of the file read, at most (env ``KGFS_XML_MAX_AMPLIFICATION``) ...
MAX_AMPLIFICATION = 10.0
#: ... checked once this many bytes were delivered (a small file with a few entities is never refused for it).
AMPLIFICATION_FLOOR = 8 << 20

_BLOCK = 1 << 20  # bytes of the (decompressed) file fed to expat at a time
_DEPTH_ENV, _AMP_ENV = "KGFS_XML_MAX_DEPTH", "KGFS_XML_MAX_AMPLIFICATION"


def is_xml_format(fmt) -> bool:
    """Whether a pyoxigraph ``RdfFormat`` is RDF/XML (the one format :func:`check_xml` guards).

    Examples
    --------
    >>> import pyoxigraph as ox
    >>> is_xml_format(ox.RdfFormat.RDF_XML), is_xml_format(ox.RdfFormat.TURTLE)
    (True, False)
    """
    import pyoxigraph as ox

    return fmt == ox.RdfFormat.RDF_XML


def _limit(env: str, default, kind):
    raw = os.environ.get(env)
    if raw is None or not raw.strip():
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise InputFormatError(f"{env}={raw!r} is not a number") from None
    if value <= 0:
        raise InputFormatError(f"{env}={raw!r} must be positive")
    return value


def _open(path: Path):
    """The file's bytes, decompressed when it is gzip or bzip2 (by magic bytes, whatever its name)."""
    with open(path, "rb") as fh:
        magic = fh.read(3)
    if magic[:2] == b"\x1f\x8b":
        return gzip.open(path, "rb")
    if magic == b"BZh":
        return bz2.open(path, "rb")
    return open(path, "rb")


class _Refused(Exception):
    """Raised inside an expat handler; carries the message (the line is read from the parser)."""


def check_xml(path: str | os.PathLike, *, max_depth: int | None = None,
              max_amplification: float | None = None) -> None:
    """Refuse an XML file whose entities or nesting could make a parser explode; return ``None`` if it is safe.

    Parameters
    ----------
    path : path-like
        An XML file (RDF/XML, OWL), plain, ``.gz`` or ``.bz2``.
    max_depth : int, optional
        The deepest element nesting allowed (default: env ``KGFS_XML_MAX_DEPTH``, else :data:`MAX_DEPTH`).
    max_amplification : float, optional
        The expansion allowed past :data:`AMPLIFICATION_FLOOR` bytes (default: env
        ``KGFS_XML_MAX_AMPLIFICATION``, else :data:`MAX_AMPLIFICATION`).

    Raises
    ------
    InputFormatError
        Naming the file, the line, what was refused and (for a limit) the env variable that raises it.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "deep.xml"
    >>> _ = p.write_text("<a>" * 20 + "</a>" * 20)
    >>> check_xml(p, max_depth=20)
    >>> try:
    ...     check_xml(p, max_depth=10)
    ... except InputFormatError as e:
    ...     print(str(e).split(": ", 1)[1])
    elements nested deeper than 10 levels (the limit; set KGFS_XML_MAX_DEPTH to raise it)
    """
    path = Path(path)
    depth_max = max_depth if max_depth is not None else _limit(_DEPTH_ENV, MAX_DEPTH, int)
    amp_max = max_amplification if max_amplification is not None else _limit(_AMP_ENV, MAX_AMPLIFICATION, float)
    parser = expat.ParserCreate()
    parser.buffer_text = True
    parser.buffer_size = 1 << 16
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.ordered_attributes = True  # [name, value, ...]: cheaper than a dict per element
    depth = out = 0
    out_check = AMPLIFICATION_FLOOR

    def amplified() -> None:
        nonlocal out_check
        out_check = out + (1 << 20)  # checked again after each further MiB delivered
        read = max(parser.CurrentByteIndex, 1)  # bytes of the document parsed so far (decompressed)
        if out > amp_max * read:
            raise _Refused(f"XML entity expansion above {amp_max:g}x the bytes read past 8 MiB ({out:,} "
                           f"bytes from {read:,}; the limit; set {_AMP_ENV} to raise it)")

    def too_deep():
        raise _Refused(f"elements nested deeper than {depth_max} levels (the limit; set {_DEPTH_ENV} to raise it)")

    def start(name, attrs):  # no entity declared: nothing can expand, only the depth is counted
        nonlocal depth
        depth += 1
        if depth > depth_max:
            too_deep()

    def counting_start(name, attrs):  # entities declared: attribute values (expanded) count as output
        nonlocal depth, out
        depth += 1
        if depth > depth_max:
            too_deep()
        if attrs:
            out += sum(map(len, attrs[1::2]))
            if out > out_check:
                amplified()

    def end(name):
        nonlocal depth
        depth -= 1

    def text(data):
        nonlocal out
        out += len(data)
        if out > out_check:
            amplified()

    def entity(name, is_parameter, value, base, system_id, public_id, notation):
        if is_parameter:
            raise _Refused(f"refusing XML parameter entity '%{name}' (parameter entities are not read)")
        if notation:
            raise _Refused(f"refusing unparsed XML entity '{name}' (NDATA {notation})")
        if value is None:
            raise _Refused(f"refusing external XML entity '{name}' ({system_id or public_id!r}: files and URLs "
                           f"named by a document are never read)")
        if "&" in value or "<" in value:
            raise _Refused(f"refusing XML entity '{name}': its value holds '&' or '<' (entities built of entities "
                           f"or markup, as in 'billion laughs', are not expanded)")
        # a plain internal entity: from here (the DTD comes before any element) the output is counted
        parser.StartElementHandler, parser.CharacterDataHandler = counting_start, text

    def external(context, base, system_id, public_id):
        raise _Refused(f"refusing external XML entity reference ({system_id or public_id!r})")

    parser.EntityDeclHandler = entity
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.ExternalEntityRefHandler = external
    try:
        with _open(path) as fh:
            while True:
                block = fh.read(_BLOCK)
                parser.Parse(block, not block)
                if not block:
                    break
    except _Refused as exc:
        raise InputFormatError(str(exc), path, parser.CurrentLineNumber) from None
    except expat.ExpatError as exc:
        if exc.code == expat.errors.codes[expat.errors.XML_ERROR_UNKNOWN_ENCODING]:
            return  # an encoding expat lacks: the RDF parser decides
        line = getattr(exc, "lineno", None) or parser.ErrorLineNumber
        why = expat.errors.messages[exc.code]
        if "amplification" in why:  # expat's own bound (expat >= 2.4: 100x past 8 MiB), which no variable raises
            raise InputFormatError(f"XML entity expansion above 100x the bytes read past 8 MiB (expat's own limit, "
                                   f"which no setting raises; kgfs's is {amp_max:g}x, {_AMP_ENV})",
                                   path, line) from None
        raise InputFormatError(f"not well-formed XML ({why})", path, line) from None
    except (OSError, EOFError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise InputFormatError(f"cannot read ({exc})", path) from None
