"""The lexicon read: :class:`IndexedLexicon`, the offline annotator over a lexicon folder that
:func:`kg.rdf.index.lexicon.build_lexicon` wrote (the layout and the matching rules: :mod:`kg.rdf.index.lexicon`).

A batch of texts is annotated as arrays (:mod:`kg.rdf.index.spans`): texts folded and joined into chunks of about
:data:`CHUNK_CHARS` characters, tokens from masks over their code points, every span's 64-bit key looked up with
``searchsorted`` in the forms' and token prefixes' keys (a window of :data:`SPAN_WINDOW` spans at a time), only the
hits sliced and checked by their 128-bit key, the longest leftmost kept; only the mentions kept become objects.
The entities' IRIs are read from the segments' label and redirect columns when a mention names them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kg.rdf.index.blocks import Checks
from kg.rdf.index.columns import KeyTable, StringColumn, hash_keys, load_array
from kg.rdf.index.spans import SpanKeys, code_points, longest_first, tokens
from kg.rdf.index.surface import fold
from kg.sources import Annotation

__all__ = ["CHUNK_CHARS", "SPAN_FORM", "SPAN_PREFIX", "SPAN_WINDOW", "ColumnChain", "IndexedLexicon"]

SPAN_FORM, SPAN_PREFIX = 1, 2  # kinds of a span key: the key of a form; of a token prefix of a form
#: Candidate spans looked up at once (bounds the memory of a long text's look-ups).
SPAN_WINDOW = 1 << 14
#: Characters of the texts annotated together (a longer text alone).
CHUNK_CHARS = 1 << 20


class ColumnChain:
    """String columns of several segments as one (rows numbered across them)."""

    def __init__(self, columns: Sequence[StringColumn]):
        self.columns = list(columns)
        self.starts = np.cumsum([0] + [len(c) for c in self.columns])

    def __len__(self) -> int:
        return int(self.starts[-1])

    def __iter__(self):
        for c in self.columns:
            yield from c

    def read(self, rows: Sequence[int]) -> list[str]:
        """As :meth:`take`, with plain reads (:meth:`StringColumn.read`: no mapped page stays resident)."""
        rows = np.asarray(rows, np.int64)
        part = np.searchsorted(self.starts, rows, "right") - 1
        out = [""] * len(rows)
        for k in np.unique(part).tolist():
            sel = np.flatnonzero(part == k)
            for i, v in zip(sel.tolist(), self.columns[k].read(rows[sel] - self.starts[k])):
                out[i] = v
        return out

    def take(self, rows: Sequence[int]) -> list[str]:
        rows = np.asarray(rows, np.int64)
        part = np.searchsorted(self.starts, rows, "right") - 1
        out = [""] * len(rows)
        for k in np.unique(part).tolist():
            sel = np.flatnonzero(part == k)
            for i, v in zip(sel.tolist(), self.columns[k].take((rows[sel] - self.starts[k]).tolist())):
                out[i] = v
        return out


class IndexedLexicon:
    """An :class:`~kg.sources.Annotator` over a lexicon table (see the module).

    Parameters
    ----------
    folder : path
        Written by :func:`build_lexicon`.
    rebuild : str, optional
        The command that rebuilds it (named by the error of a damaged block).

    Attributes
    ----------
    stats : dict
        ``n_surface_forms``, ``n_entities``, ``ambiguous``, ``prior_source``.

    Examples
    --------
    See the module.
    """

    def __init__(self, folder, rebuild: str | None = None):
        self.folder = Path(folder)
        # its files' block checksums, and its segments' (whose columns name the entities): verified as read
        self.checks = checks = Checks.of(self.folder, rebuild)
        checks.file(self.folder / "lexicon.json")
        self.stats = json.loads((self.folder / "lexicon.json").read_text(encoding="utf-8"))
        self._forms = KeyTable(self.folder, "forms", checks)
        self._entity, self._weight = self._forms.payload("entity"), self._forms.payload("weight")
        self._prefixes = KeyTable(self.folder, "prefixes", checks)
        # plain views of the mapped files (a memmap's indexing goes through Python)
        self._span_keys = np.asarray(load_array(self.folder / "spans.keys.npy", checks))
        self._span_kind = np.asarray(load_array(self.folder / "spans.kind.npy", checks))
        segments = self.folder.parent.parent / "segments"
        cols = self.stats["columns"]
        self._subjects = ColumnChain([StringColumn(segments / n, "labels.subject", Checks.of(segments / n, rebuild))
                                      for n in cols["labels"]])
        self._targets = ColumnChain([StringColumn(segments / n, "redirects.target", Checks.of(segments / n, rebuild))
                                     for n in cols["redirects"]])
        self._names: dict[int, str] = {}

    def __repr__(self) -> str:
        s = self.stats
        return (f"IndexedLexicon(n_surface_forms={s['n_surface_forms']}, n_entities={s['n_entities']}, "
                f"ambiguous={s['ambiguous']})")

    def _iri(self, rows: np.ndarray) -> list[str]:
        ids = np.asarray(self._entity[rows]).tolist()
        todo = np.asarray(sorted(set(ids) - self._names.keys()), np.int64)
        if len(todo):
            n = len(self._subjects)
            own = todo < n
            self._names.update(zip(todo[own].tolist(), self._subjects.take(todo[own])))
            self._names.update(zip(todo[~own].tolist(), self._targets.take(todo[~own] - n)))
        return [self._names[i] for i in ids]

    def _kinds(self, keys: np.ndarray) -> np.ndarray:
        """The kinds (:data:`SPAN_FORM`, :data:`SPAN_PREFIX` bits) of span keys; 0 for a key of no form or prefix."""
        table = self._span_keys
        out = np.zeros(len(keys), np.uint8)
        if not len(keys) or not len(table):
            return out
        order = np.argsort(keys)  # sorted queries: each search starts where the last ended
        keys = keys[order]
        pos = np.searchsorted(table, keys)
        np.minimum(pos, len(table) - 1, out=pos)
        hit = table[pos] == keys
        out[order[hit]] = self._span_kind[pos[hit]]
        return out

    def _candidates(self, low: str, starts: np.ndarray, ends: np.ndarray, more: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The token spans of ``low`` that are forms: start, end and the form's row (in start order).

        Spans grow one token per round while they are a form's prefix: their 64-bit keys are
        computed and looked up in vector form (:mod:`kg.rdf.index.spans`); only those whose key is a
        form's are sliced and looked up by their exact key.
        """
        spans = SpanKeys(code_points(low), starts, ends)
        firsts, lasts = [], []
        n = len(starts)
        for a in range(0, n, SPAN_WINDOW):  # spans starting in this window, one token longer per round
            first = np.arange(a, min(n, a + SPAN_WINDOW))
            last = first
            while len(first):
                kind = self._kinds(spans.keys(first, last))
                form = (kind & SPAN_FORM).astype(bool)
                firsts.append(first[form])
                lasts.append(last[form])
                longer = (kind & SPAN_PREFIX).astype(bool)
                longer &= more[last]
                first, last = first[longer], last[longer] + 1
        del spans
        if not firsts:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
        lo, hi = starts[np.concatenate(firsts)], ends[np.concatenate(lasts)]
        distinct: dict[str, int] = {}  # a name mentioned many times is hashed once
        span = np.fromiter([distinct.setdefault(low[x:y], len(distinct)) for x, y in zip(lo.tolist(), hi.tolist())],
                           np.int64, len(lo))
        query, rows = self._forms.find(hash_keys(distinct))
        del distinct
        row_of = np.full(int(span.max(initial=-1)) + 1, -1, np.int64)
        row_of[query] = rows
        rows = row_of[span]
        found = rows >= 0
        lo, hi, rows = lo[found], hi[found], rows[found]
        order = np.argsort(lo, kind="stable")
        return lo[order], hi[order], rows[order]

    def annotate(self, texts: Sequence[str]) -> list[list[Annotation]]:
        """The mentions in each text (one list per text), as :meth:`LexiconAnnotator.annotate` finds them.

        Texts are folded and joined by spaces (no token crosses one) into chunks of about
        :data:`CHUNK_CHARS` characters; a chunk is tokenised, its candidate spans found
        (:meth:`_candidates`) and resolved longest first (:func:`kg.rdf.index.spans.longest_first`)
        in vector operations. Memory is a small multiple of a chunk, whatever the number of texts:
        its code points (4 bytes a character) and about 40 bytes a token; only the mentions kept
        become objects.

        Parameters
        ----------
        texts : sequence of str

        Returns
        -------
        list of list of Annotation

        Examples
        --------
        See the module.
        """
        texts = ["" if t is None else str(t) for t in texts]
        out: list[list[Annotation]] = [[] for _ in texts]
        if not len(self._span_keys):
            return out
        a = 0
        while a < len(texts):
            b, size = a + 1, len(texts[a])
            while b < len(texts) and size + len(texts[b]) < CHUNK_CHARS:
                size += len(texts[b]) + 1
                b += 1
            self._annotate_chunk(texts, a, b, out)
            a = b
        return out

    def _annotate_chunk(self, texts: list[str], a: int, b: int, out: list[list[Annotation]]) -> None:
        low = " ".join([fold(t) for t in texts[a:b]])
        begin = np.zeros(b - a, np.int64)  # where each text starts in ``low``
        np.cumsum([len(t) + 1 for t in texts[a:b - 1]], out=begin[1:])
        starts, ends = tokens(code_points(low))
        which = np.searchsorted(begin, starts, "right") - 1
        more = np.zeros(len(starts), bool)  # the next token continues a span only within the same text
        more[:-1] = which[1:] == which[:-1]
        del which
        lo, hi, rows = self._candidates(low, starts, ends, more)
        del low, starts, ends, more
        keep = longest_first(lo, hi)  # spans of different texts never overlap
        lo, hi, rows = lo[keep], hi[keep], rows[keep]
        which = np.searchsorted(begin, lo, "right") - 1
        lo, hi = lo - begin[which], hi - begin[which]
        for k, iri, w, x, y in zip((which + a).tolist(), self._iri(rows), np.asarray(self._weight[rows]).tolist(),
                                   lo.tolist(), hi.tolist()):
            out[k].append(Annotation(uri=iri, surface_form=texts[k][x:y], offset=x, score=w))

    def annotate_one(self, text: str) -> list[Annotation]:
        """The mentions in one text, in text order.

        Parameters
        ----------
        text : str

        Returns
        -------
        list of Annotation

        Examples
        --------
        See the module.
        """
        return self.annotate([text])[0]
