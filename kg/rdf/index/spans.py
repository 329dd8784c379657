"""Token spans of folded texts, their 64-bit keys and the longest-match choice, in NumPy over code points.

The lexicon annotator (:class:`kg.rdf.index.mentions.IndexedLexicon`) looks up every span of
tokens that may be a surface form. Done string by string, that is a Python slice, a hash and a
dictionary entry per span (dozens per tweet); here a batch of texts is one array of code points:

- :func:`tokens`: the tokens of the regular expression ``\\w+|[^\\w ]`` (runs of word characters,
  single other non-space characters) from masks over the code points (:func:`word_chars` is
  ``re``'s ``\\w``: ``str.isalnum()`` or ``_``, checked for every code point in the tests);
- :class:`SpanKeys`: the key of the text between any token's start and any later token's end
  in a few vector operations, from prefix sums of a polynomial hash (:func:`string_keys` gives
  the same key to the same string, wherever it stands);
- :func:`longest_first`: among overlapping candidate spans, longest first then leftmost
  (:func:`kg.rdf.annotators.lexicon.longest_matches`), as rounds of vector operations.

The keys are 64 bits: two different strings may share one (about ``n * m / 2**64`` false
matches for ``m`` spans against ``n`` keys), so they only *filter* spans; a span that passes is
looked up by its exact 128-bit key (:func:`kg.rdf.index.columns.hash_keys`). Equal strings always
get equal keys, so the filter never drops a span.

Examples
--------
>>> text = "go new  york!"
>>> starts, ends = tokens(code_points(text))
>>> [text[a:b] for a, b in zip(starts, ends)]
['go', 'new', 'york', '!']
>>> k = SpanKeys(code_points(text), starts, ends)
>>> bool(k.keys(np.array([1]), np.array([2]))[0] == string_keys(["new  york"])[0])
True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["SpanKeys", "code_points", "longest_first", "string_keys", "tokens", "word_chars"]

_U64 = np.uint64
_MASK = (1 << 64) - 1
_Q = 0x9E3779B97F4A7C15  # odd: invertible modulo 2**64
_QINV = pow(_Q, -1, 1 << 64)
_SCRAMBLE = _U64(0xBF58476D1CE4E5B9)  # code point -> summand (odd multiplier: a bijection)
_LENGTH = _U64(0x94D049BB133111EB)
_BLOCK = 1 << 16  # code points per block of the prefix sums (bounds their temporary arrays)
_POWERS: tuple[np.ndarray, np.ndarray] | None = None
# re's \w on the ASCII range; other code points are asked of str.isalnum (once per distinct one in a batch)
_ASCII_WORD = np.array([chr(c).isalnum() or c == 95 for c in range(128)], bool)


def _powers() -> tuple[np.ndarray, np.ndarray]:
    """``Q**i`` and ``Q**-i`` modulo 2**64 for ``i <= _BLOCK``."""
    global _POWERS
    if _POWERS is None:
        out = []
        for q in (_Q, _QINV):
            p = np.ones(_BLOCK + 1, _U64)
            p[1:] = np.cumprod(np.full(_BLOCK, q, _U64))  # wraps modulo 2**64, as wanted
            out.append(p)
        _POWERS = (out[0], out[1])
    return _POWERS


def code_points(text: str) -> np.ndarray:
    """The code points of a string (``uint32``; lone surrogates kept), one per character.

    Parameters
    ----------
    text : str

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> code_points("aé\\U0001F600").tolist()
    [97, 233, 128512]
    """
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), "<u4")


def word_chars(codes: np.ndarray) -> np.ndarray:
    """Which code points are word characters (``re``'s ``\\w``: ``str.isalnum()`` or ``_``).

    Parameters
    ----------
    codes : numpy.ndarray

    Returns
    -------
    numpy.ndarray
        bool, one per code point.

    Examples
    --------
    >>> word_chars(code_points("a_1 é-٣")).tolist()
    [True, True, True, False, True, False, True]
    """
    codes = np.asarray(codes)
    w = _ASCII_WORD[np.minimum(codes, 127)]  # 127 is no word character: every other code point is asked below
    high = np.flatnonzero(codes > 127)
    if len(high):
        distinct, which = np.unique(codes[high], return_inverse=True)
        is_word = np.fromiter((chr(c).isalnum() for c in distinct.tolist()), bool, len(distinct))
        w[high] = is_word[which]
    return w


def tokens(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The tokens of ``\\w+|[^\\w ]`` in folded text (every whitespace character a space): starts and ends.

    Parameters
    ----------
    codes : numpy.ndarray
        :func:`code_points` of the text.

    Returns
    -------
    starts, ends : numpy.ndarray
        ``int64``, in text order.

    Examples
    --------
    >>> [a.tolist() for a in tokens(code_points("ab, c"))]
    [[0, 2, 4], [2, 3, 5]]
    """
    w = word_chars(codes)
    other = ~w
    other &= codes != 32
    first, last = w.copy(), w.copy()
    first[1:] &= ~w[:-1]  # a run of word characters starts
    last[:-1] &= ~w[1:]  # ... and ends
    first |= other
    last |= other
    return np.flatnonzero(first), np.flatnonzero(last) + 1


def _mix(h: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The length folded in, then the bits mixed (murmur3's finaliser)."""
    h = h ^ (length.astype(_U64) * _LENGTH)
    h ^= h >> _U64(33)
    h *= _U64(0xFF51AFD7ED558CCD)
    h ^= h >> _U64(33)
    h *= _U64(0xC4CEB9FE1A85EC53)
    h ^= h >> _U64(33)
    return h


def _prefix_sums(codes: np.ndarray, at: Sequence[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """For each array of sorted positions: ``G[p] = sum(v[j] * Q**j for j < p)`` and ``Q**-p`` (mod 2**64).

    Block by block (:data:`_BLOCK` code points), so no array of the text's length is made but the values
    at the positions asked.
    """
    pw, ipw = _powers()
    n = len(codes)
    sums = [np.zeros(len(p), _U64) for p in at]
    inv = [np.ones(len(p), _U64) for p in at]
    carry, qa, qia = _U64(0), 1, 1  # G at the block's start, Q**a, Q**-a
    qb, qib = int(pw[_BLOCK]), int(ipw[_BLOCK])
    for a in range(0, max(n, 1), _BLOCK):
        b = min(a + _BLOCK, n)
        v = codes[a:b].astype(_U64)
        v += _U64(1)
        v *= _SCRAMBLE
        v *= pw[:b - a]
        g = np.cumsum(v)
        g *= _U64(qa)
        g += carry  # g[i] = G[a + i + 1]
        for p, s, iv in zip(at, sums, inv):
            i0, i1 = np.searchsorted(p, [a, b + 1])  # positions a <= p <= b
            if i1 > i0:
                q = p[i0:i1] - a
                inside = q > 0
                s[i0:i1] = np.where(inside, g[np.maximum(q - 1, 0)] if len(g) else carry, carry)
                iv[i0:i1] = ipw[q] * _U64(qia)
        if len(g):
            carry = g[-1]
        qa, qia = qa * qb & _MASK, qia * qib & _MASK
    return sums, inv


class SpanKeys:
    """The 64-bit keys of spans from a token's start to a later token's end, over one text's code points.

    Parameters
    ----------
    codes : numpy.ndarray
        :func:`code_points` of the text.
    starts, ends : numpy.ndarray
        Token bounds (sorted), as :func:`tokens` gives them.

    Examples
    --------
    See the module.
    """

    def __init__(self, codes: np.ndarray, starts: np.ndarray, ends: np.ndarray):
        (self._g_start, self._g_end), (self._inv_start, _) = _prefix_sums(codes, [starts, ends])
        self._starts, self._ends = starts, ends

    def keys(self, first: np.ndarray, last: np.ndarray) -> np.ndarray:
        """The keys of the spans from token ``first[i]``'s start to token ``last[i]``'s end.

        Parameters
        ----------
        first, last : numpy.ndarray
            Token indices.

        Returns
        -------
        numpy.ndarray
            ``uint64``, equal to :func:`string_keys` of the spans' strings.

        Examples
        --------
        See the module.
        """
        h = self._g_end[last] - self._g_start[first]
        h *= self._inv_start[first]
        return _mix(h, self._ends[last] - self._starts[first])


def string_keys(strings: Sequence[str]) -> np.ndarray:
    """The 64-bit keys of strings (those :class:`SpanKeys` gives the same strings inside a text).

    Parameters
    ----------
    strings : sequence of str

    Returns
    -------
    numpy.ndarray
        ``uint64``, one per string.

    Examples
    --------
    >>> k = string_keys(["new york", "x", "new york"])
    >>> bool(k[0] == k[2]), bool(k[0] == k[1])
    (True, False)
    """
    strings = list(strings)
    if not strings:
        return np.zeros(0, _U64)
    bounds = np.zeros(len(strings) + 1, np.int64)
    np.cumsum([len(s) for s in strings], out=bounds[1:])
    (g,), (inv,) = _prefix_sums(code_points("".join(strings)), [bounds])
    h = g[1:] - g[:-1]
    h *= inv[:-1]
    return _mix(h, np.diff(bounds))


def longest_first(lo: np.ndarray, hi: np.ndarray, *, rounds: int = 16) -> np.ndarray:
    """Which spans are kept when overlapping ones are resolved longest first, then leftmost.

    The result of taking the spans one by one in that order and keeping each that overlaps none
    kept before (:func:`kg.rdf.annotators.lexicon.longest_matches`). In vector form: in each
    round, every span that no remaining overlapping span precedes is kept, and the spans it
    overlaps are dropped (each round keeps at least the first remaining span; those kept are
    exactly the one-by-one choice). Chains of overlaps longer than ``rounds`` are finished one
    span at a time.

    Parameters
    ----------
    lo, hi : numpy.ndarray
        Non-empty spans ``[lo, hi)``, no two equal.
    rounds : int

    Returns
    -------
    numpy.ndarray
        bool, one per span.

    Examples
    --------
    >>> longest_first(np.array([0, 0, 9, 4]), np.array([8, 14, 12, 5])).tolist()
    [False, True, False, False]
    """
    lo, hi = np.asarray(lo, np.int64), np.asarray(hi, np.int64)
    n = len(lo)
    keep = np.zeros(n, bool)
    if n < 2:
        keep[:] = True
        return keep
    rank = np.empty(n, np.int64)
    rank[np.lexsort((lo, lo - hi))] = np.arange(n)  # 0: the longest, then leftmost
    # every overlapping pair once: j starts inside i (in start order, j after i)
    by = np.argsort(lo, kind="stable")
    count = np.searchsorted(lo[by], hi[by], "left") - np.arange(1, n + 1)
    i = np.repeat(np.arange(n), count)
    j = i + 1 + np.arange(len(i)) - np.repeat(np.cumsum(count) - count, count)
    i, j = by[i], by[j]
    first = rank[i] < rank[j]
    up, down = np.where(first, i, j), np.where(first, j, i)  # up precedes down
    alive = np.ones(n, bool)
    for _ in range(rounds):
        if not len(up):
            break
        beaten = np.zeros(n, bool)
        beaten[down] = True
        kept = alive & ~beaten
        keep |= kept
        alive &= ~kept
        alive[down[kept[up]]] = False
        both = alive[up] & alive[down]
        up, down = up[both], down[both]
    if len(up):  # long chains: the rest one by one, in order (none of them overlaps a span kept so far)
        rest = np.flatnonzero(alive)
        rest = rest[np.argsort(rank[rest])]
        taken = bytearray(int(hi[rest].max() - lo[rest].min()))
        base = int(lo[rest].min())
        for k, x, y in zip(rest.tolist(), (lo[rest] - base).tolist(), (hi[rest] - base).tolist()):
            if taken.find(1, x, y) == -1:
                taken[x:y] = b"\x01" * (y - x)
                keep[k] = True
    else:
        keep |= alive  # the remaining spans overlap nothing remaining
    return keep
