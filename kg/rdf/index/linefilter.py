"""Skipping the N-Triples lines a vocabulary does not read, before they are parsed.

Wikidata's truthy dump holds billions of lines, most of them of predicates no preset uses
(descriptions, labels in other languages, statements of thousands of properties). Parsing every
one of them would cost more than everything else of an ingest, so :class:`LineFilter` looks at
the raw bytes of a block of lines and keeps only the lines that *may* hold a wanted triple:

- a line is kept when it contains one of the wanted predicates written as ``<IRI>`` (one pass of
  a regular expression over the block, the alternatives of every predicate at once, found after
  the space that separates the terms; in a block holding a tab, anywhere). A line that holds the
  IRI elsewhere, in its object or inside a literal, is kept too and dropped after parsing, so
  nothing wanted is ever lost;
- a line kept for a label predicate (``rdfs:label``, ``skos:altLabel``) is dropped when its
  literal carries another language tag than the one asked for (``"..."@de .``); untagged and
  datatyped literals are kept (the parser and the reader decide);
- with ``relation_namespaces`` (the relations of a vocabulary that indexes them, such as
  ``wdt:``), a line is also kept when its predicate is an IRI under one of them *and its object is
  an IRI*: ``<ns...> <...> .`` in the same pass of the expression. Most ``wdt:`` lines of the
  truthy dump have a literal object (identifiers, dates, quantities): they are still skipped
  unparsed.

Only N-Triples spelled as dumps write them can be skipped this way: an IRI written with
``\\u`` escapes (legal, never seen in dumps) would not be recognised. The kept lines are parsed
as usual, and a malformed one is reported with its line number in the file
(:meth:`LineFilter.keep` returns the offset of every kept line).

Examples
--------
>>> f = LineFilter(["http://x/p", "http://x/label"], label_predicates=["http://x/label"], language="en")
>>> block = (b'<http://x/a> <http://x/p> <http://x/b> .\\n<http://x/a> <http://x/q> <http://x/c> .\\n'
...          b'<http://x/a> <http://x/label> "A"@en .\\n<http://x/a> <http://x/label> "A"@de .\\n')
>>> kept, offsets = f.keep(block)
>>> kept.decode().splitlines()
['<http://x/a> <http://x/p> <http://x/b> .', '<http://x/a> <http://x/label> "A"@en .']
>>> offsets.tolist()
[0, 82]
>>> r = LineFilter(["http://x/p"], relation_namespaces=["http://x/r/"])
>>> r.keep(b'<http://x/a> <http://x/r/1> <http://x/b> .\\n<http://x/a> <http://x/r/2> "5"^^<http://x/int> .\\n'
...        b'<http://x/a> <http://x/p> "c" .\\n')[0].decode().splitlines()
['<http://x/a> <http://x/r/1> <http://x/b> .', '<http://x/a> <http://x/p> "c" .']
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from operator import attrgetter

import numpy as np

__all__ = ["LineFilter"]

_NL, _QUOTE, _AT, _SPACE, _DOT, _TAB, _CR = 10, 34, 64, 32, 46, 9, 13
_TAIL = 32  # bytes at the end of a label line that hold its language tag
_START, _GROUP = re.Match.start, attrgetter("lastindex")  # a match's offset, and which group matched
_IRI_BODY = rb'[^\x00-\x20<>"]*'  # the characters of an IRI as dumps write it (no escapes of those)


class LineFilter:
    """Which lines of an N-Triples block may hold one of the wanted predicates (see the module).

    Parameters
    ----------
    predicates : iterable of str
        The predicate IRIs wanted.
    label_predicates : iterable of str
        Those of ``predicates`` whose literals are kept only in ``language`` (or untagged).
    language : str, optional
        The language tag of the labels kept (``None``: every language).
    relation_namespaces : iterable of str
        IRI prefixes: a line of a predicate under one of them is kept when its object is an IRI.

    Attributes
    ----------
    seen, kept : int
        Lines looked at and lines kept so far.

    Examples
    --------
    See the module.
    """

    def __init__(self, predicates: Iterable[str], *, label_predicates: Iterable[str] = (),
                 language: str | None = None, relation_namespaces: Iterable[str] = ()):
        labels = set(label_predicates)
        self.relation_namespaces = tuple(sorted(set(relation_namespaces)))
        self.needles = [(f"<{p}>".encode(), p in labels and language is not None) for p in sorted(set(predicates))]
        self.language = None if language is None else language.lower().encode()
        self.seen = self.kept = 0
        plain = b"|".join(re.escape(n[1:-1]) for n, by_language in self.needles if not by_language) or b"(?!)"
        tagged = b"|".join(re.escape(n[1:-1]) for n, by_language in self.needles if by_language) or b"(?!)"
        # group 1: a predicate kept whatever its object; 2: a label's (its language checked after); 3: a relation
        # namespace's, then an IRI object and the end of the statement (no third branch without namespaces: each
        # branch is tried at every " <")
        body = b"<(?:(" + plain + b")|(" + tagged + b"))>"
        if self.relation_namespaces:
            related = b"|".join(re.escape(ns.encode()) for ns in self.relation_namespaces)
            body = (b"<(?:(" + plain + b")>|(" + tagged + b")>|(" + related + b")" + _IRI_BODY + b">[ \t]+<" +
                    _IRI_BODY + b">[ \t]*\\.)")
        # terms are separated by spaces in dumps: " <" is a literal prefix the search skips to quickly;
        # a block with a tab anywhere is searched without it
        self._spaced, self._anywhere = re.compile(b" " + body), re.compile(body)

    def __repr__(self) -> str:
        rel = f", {len(self.relation_namespaces)} relation namespace(s)" if self.relation_namespaces else ""
        return f"LineFilter({len(self.needles)} predicates{rel}, language={self.language!r})"

    def _language_ok(self, arr: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """For the lines ``[starts, ends)`` (``ends``: their newline): not tagged with another language."""
        n = len(ends)
        if not n:
            return np.zeros(0, bool)
        idx = ends[:, None] - _TAIL + np.arange(_TAIL)[None, :]
        tail = arr[np.clip(idx, 0, None)]
        tail[idx < starts[:, None]] = 0  # only this line's bytes
        is_quote = tail == _QUOTE
        has_quote = is_quote.any(axis=1)
        q = _TAIL - 1 - np.argmax(is_quote[:, ::-1], axis=1)  # the last quote: the literal's end
        rows = np.arange(n)
        at = np.where(q + 1 < _TAIL, tail[rows, np.minimum(q + 1, _TAIL - 1)], 0) == _AT
        keep = ~(has_quote & at)  # no literal in reach, or not tagged: the parser decides
        lang, m = self.language, len(self.language)
        tagged = np.flatnonzero(has_quote & at)
        if len(tagged):
            pos = q[tagged][:, None] + 2 + np.arange(m + 1)[None, :]
            inside = pos < _TAIL
            got = tail[tagged[:, None], np.minimum(pos, _TAIL - 1)]
            got = np.where(inside, got, 0)
            letters = got | ((got >= 65) & (got <= 90)) * 32  # ASCII lower case
            want = np.frombuffer(lang, np.uint8)
            same = (letters[:, :m] == want).all(axis=1) & inside[:, :m].all(axis=1)
            after = got[:, m]
            ends_tag = np.isin(after, (_SPACE, _DOT, _TAB, _CR)) & inside[:, m]
            keep[tagged] = same & ends_tag
            # a tail cut too short to judge (a very long tag) is kept
            keep[tagged] |= ~inside[:, m]
        return keep

    def keep(self, block: bytes) -> tuple[bytes, np.ndarray]:
        """The lines of ``block`` that may hold a wanted triple, and the offset of each in ``block``.

        Parameters
        ----------
        block : bytes
            Whole lines (the last one may lack its newline).

        Returns
        -------
        kept : bytes
            The kept lines, in their order, each ending with a newline.
        offsets : numpy.ndarray
            The offset of each kept line in ``block`` (int64).

        Examples
        --------
        See the module.
        """
        if block and block[-1] != _NL:
            block += b"\n"
        arr = np.frombuffer(block, np.uint8)
        newlines = np.flatnonzero(arr == _NL)
        self.seen += len(newlines)
        pattern = self._anywhere if b"\t" in block else self._spaced
        found = list(pattern.finditer(block))
        if not found:
            return b"", np.zeros(0, np.int64)
        # C-level maps, not a tuple per match: a fifth of the filter's time with relations (many matches)
        pos = np.fromiter(map(_START, found), np.int64, len(found))
        by_lang = np.fromiter(map(_GROUP, found), np.int64, len(found)) == 2
        line = np.searchsorted(newlines, pos)
        if by_lang.any():
            ok = np.ones(len(pos), bool)
            sel = line[by_lang]
            ok[by_lang] = self._language_ok(arr, np.where(sel > 0, newlines[np.maximum(sel - 1, 0)] + 1, 0),
                                            newlines[sel])
            line = line[ok]
        line = np.unique(line)
        starts = np.where(line > 0, newlines[np.maximum(line - 1, 0)] + 1, 0)
        stops = newlines[line] + 1
        self.kept += len(line)
        return b"".join(map(block.__getitem__, map(slice, starts.tolist(), stops.tolist()))), starts.astype(np.int64)
