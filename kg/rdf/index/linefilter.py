"""Skipping the N-Triples lines a vocabulary does not read, before they are parsed.

Wikidata's truthy dump holds billions of lines, most of them of predicates no preset uses
(descriptions, labels in other languages, statements of thousands of properties). Parsing every
one of them would cost more than everything else of an ingest, so :class:`LineFilter` looks at
the raw bytes of a block of lines and keeps only the lines that *may* hold a wanted triple:

- a line is kept when its predicate is one of the wanted ones. In a block whose every line is spelled as
  dumps spell them (``<subject> <predicate> ...``, one space between; comments and empty lines aside)
  the predicate is found by position: each IRI ends at its first ``>``. Any other block is searched
  by one pass of a regular expression (the alternatives of every predicate at once, found after the
  space that separates the terms; in a block holding a tab, anywhere), which also keeps a line that
  holds the IRI elsewhere, in its object or inside a literal: such a line is dropped after parsing,
  so nothing wanted is ever lost;
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
_LT, _GT, _HASH = 60, 62, 35
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
        predicates, labels = sorted(set(predicates)), set(label_predicates)
        # what it was made of, as JSON (spec(): another process builds the same filter)
        self._spec = {"predicates": predicates, "label_predicates": sorted(labels), "language": language,
                      "relation_namespaces": sorted(set(relation_namespaces))}
        self.relation_namespaces = tuple(sorted(set(relation_namespaces)))
        self.needles = [(f"<{p}>".encode(), p in labels and language is not None) for p in predicates]
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
        # the needles by length, as byte rows, and the namespaces (for LineFilter._by_position)
        self._by_length: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for length in sorted({len(nd) for nd, _ in self.needles}):
            same = [(nd, lang) for nd, lang in self.needles if len(nd) == length]
            self._by_length[length] = (np.array([np.frombuffer(nd, np.uint8) for nd, _ in same]),
                                       np.array([lang for _, lang in same], bool))
        self._namespaces = [np.frombuffer(b"<" + ns.encode(), np.uint8) for ns in self.relation_namespaces]
        # each needle's last 8 bytes (a needle of fewer bytes: the bytes before it in its line, unknown, so no tail
        # test for its length: every tail of that length is a candidate)
        self._tails = {n: np.array([np.frombuffer(nd[-8:], "<u8")[0] for nd, _ in self.needles if len(nd) == n])
                       if n >= 8 else None for n in self._by_length}

    def spec(self) -> dict:
        """The filter's arguments as JSON-able data: ``LineFilter(**f.spec())`` keeps the same lines.

        Returns
        -------
        dict

        Examples
        --------
        >>> f = LineFilter(["http://x/p"], relation_namespaces=["http://x/r/"])
        >>> LineFilter(**f.spec()).keep(b'<http://x/a> <http://x/r/1> <http://x/b> .\\n')[0] != b""
        True
        """
        return {k: list(v) if isinstance(v, list) else v for k, v in self._spec.items()}

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

    def _by_position(self, arr: np.ndarray, newlines: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """The lines whose predicate (the second term) is wanted, and which of them by a label predicate: the
        terms found by position (each IRI ends at its first ``>``), without a regular expression (the whole
        filter about 1.5x faster on the Wikidata-shaped dump of ``benchmarks/bench_wikidata_scale.py``).
        ``None`` when a line of the block is not spelled as dumps spell them (``<subject> <predicate>`` with
        one space between; comments and empty lines aside; a blank-node subject): the expression reads that
        block."""
        n, size = len(newlines), len(arr)
        none = np.zeros(0, np.int64), np.zeros(0, bool)
        if not n:
            return none
        starts = np.empty(n, np.int64)
        starts[0], starts[1:] = 0, newlines[:-1] + 1
        first = arr[starts]
        skip = (first == _HASH) | (first == _NL) | (first == _CR)  # comments and empty lines hold no triple
        if not ((first == _LT) | skip).all():
            return None
        body = np.flatnonzero(~skip)
        if not len(body):
            return none
        st, ends = starts[body], newlines[body]
        gts = np.flatnonzero(arr == _GT)
        j = np.searchsorted(gts, st)
        if (j + 1 >= len(gts)).any():
            return None
        ps = gts[j] + 2  # the subject's '>', one space, then the predicate's '<'
        pe = gts[j + 1] + 1  # the predicate's '>' (none between: arr[ps - 1] is a space, arr[ps] a '<')
        if (pe > ends).any() or (arr[st + 1] == _LT).any() or (arr[ps - 1] != _SPACE).any() or \
                (arr[ps] != _LT).any():  # '<<' (a quoted triple), or two spaces, a tab, ...
            return None
        plen = pe - ps
        hit, lab = np.zeros(len(body), bool), np.zeros(len(body), bool)
        # the last 8 bytes of each predicate (its tail: "direct/P31>"), against the needles' tails, then the whole
        # IRI of the few candidates: no gather of every line's predicate
        tails = arr[np.maximum(pe - 8, 0)[:, None] + np.arange(8)].view("<u8").ravel()
        for length, (needles, by_language) in self._by_length.items():
            tail = self._tails[length]
            rows = np.flatnonzero((plen == length) & (np.isin(tails, tail) if tail is not None else True))
            if not len(rows):
                continue
            window = arr[ps[rows, None] + np.arange(length)]
            same = (window[:, None, :] == needles[None, :, :]).all(axis=2)  # rows x needles of this length
            matched = same.any(axis=1)
            hit[rows[matched]] = True
            lab[rows[matched]] = (same[matched] & by_language[None, :]).any(axis=1)
        for ns in self._namespaces:  # "<ns" then at least the closing '>'; the object an IRI
            rows = np.flatnonzero(plen > len(ns))
            if not len(rows):
                continue
            rows = rows[(arr[ps[rows, None] + np.arange(len(ns))] == ns).all(axis=1)]
            at = pe[rows]
            at = at + (arr[np.minimum(at, size - 1)] == _SPACE)
            if (arr[np.minimum(at, size - 1)] == _SPACE).any():  # two spaces before the object
                return None
            hit[rows[arr[np.minimum(at, size - 1)] == _LT]] = True
        keep = np.flatnonzero(hit)
        return body[keep], lab[keep]

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
        kept, _lines, starts, _n = self._select(block)
        return kept, starts

    def select(self, block: bytes) -> tuple[bytes, np.ndarray, int]:
        """As :meth:`keep` (the same ``block``, the same ``kept``), but each kept line by its index among the
        block's lines, and the block's line count.

        Returns
        -------
        kept : bytes
        lines : numpy.ndarray
            The index (from 0) of each kept line among the lines of ``block`` (int64).
        n_lines : int
            The lines of ``block``.

        Examples
        --------
        >>> f = LineFilter(["http://x/p"])
        >>> kept, lines, n = f.select(b'<http://x/a> <http://x/q> "1" .\\n<http://x/a> <http://x/p> "2" .')
        >>> lines.tolist(), n
        ([1], 2)
        """
        kept, lines, _starts, n = self._select(block)
        return kept, lines, n

    def _select(self, block: bytes) -> tuple[bytes, np.ndarray, np.ndarray, int]:
        if block and block[-1] != _NL:
            block += b"\n"
        arr = np.frombuffer(block, np.uint8)
        newlines = np.flatnonzero(arr == _NL)
        self.seen += len(newlines)
        tabbed = b"\t" in block
        fast = None if tabbed else self._by_position(arr, newlines)
        if fast is not None:
            line, by_lang = fast
        else:
            found = list((self._anywhere if tabbed else self._spaced).finditer(block))
            # C-level maps, not a tuple per match: a fifth of the filter's time with relations (many matches)
            pos = np.fromiter(map(_START, found), np.int64, len(found))
            by_lang = np.fromiter(map(_GROUP, found), np.int64, len(found)) == 2
            line = np.searchsorted(newlines, pos)
        if not len(line):
            return b"", np.zeros(0, np.int64), np.zeros(0, np.int64), len(newlines)
        if by_lang.any():
            ok = np.ones(len(line), bool)
            sel = line[by_lang]
            ok[by_lang] = self._language_ok(arr, np.where(sel > 0, newlines[np.maximum(sel - 1, 0)] + 1, 0),
                                            newlines[sel])
            line = line[ok]
        if fast is None:
            line = np.unique(line)  # by position: one match per line, in order already
        if not len(line):
            return b"", np.zeros(0, np.int64), np.zeros(0, np.int64), len(newlines)
        starts = np.where(line > 0, newlines[np.maximum(line - 1, 0)] + 1, 0)
        stops = newlines[line] + 1
        self.kept += len(line)
        # runs of consecutive kept lines as one slice each (an item's lines are together in a dump)
        first = np.flatnonzero(np.r_[True, line[1:] != line[:-1] + 1])
        last = np.r_[first[1:], len(line)] - 1
        kept = b"".join(map(block.__getitem__, map(slice, starts[first].tolist(), stops[last].tolist())))
        return kept, line.astype(np.int64), starts.astype(np.int64), len(newlines)
