"""The lexicon annotator of the dump index: surface forms in a hashed on-disk table, matched by token spans.

:class:`~kg.rdf.annotators.lexicon.LexiconAnnotator` holds every surface form in an Aho-Corasick
automaton, built in memory for each process: at DBpedia's size (millions of labels and
redirects) that takes longer and more memory than annotating a corpus. This annotator finds the
same mentions from a table on disk that opens in milliseconds:

- the table (:func:`build_lexicon`) maps each normalised surface form's key to its entity and
  prior, by the rules of :mod:`kg.rdf.index.surface` (those of the in-memory lexicon), plus the
  keys of every *token prefix* of a form (``"new"`` and ``"new york"`` of ``"new york times"``);
- a text is folded as the automaton's input is, and cut into tokens: runs of word characters
  and single other non-space characters. A mention at word boundaries starts at a token's start
  and ends at a token's end, so the candidates are the token spans; a span is looked up, and
  extended by the next token only while it is the prefix of some form. Candidates are then
  resolved exactly as the automaton's (:func:`~kg.rdf.annotators.lexicon.longest_matches`).
- a batch of texts is handled as arrays (:mod:`kg.rdf.index.spans`): tokens from masks over its
  code points, the 64-bit keys of all the spans of a round at once, looked up with
  ``searchsorted`` in the sorted keys of the forms and of their token prefixes (``spans.keys.npy``,
  each with its kind); only a span whose key is a form's is sliced and looked up by its exact
  128-bit key, and overlapping candidates are resolved in rounds of vector operations.

The two annotators give the same annotations (tested on the test dump and on random texts).

The table is built with bounded memory, whatever the number of labels: every step that needs rows
in another order than the file's is an external sort (:mod:`kg.rdf.index.extsort`), and the steps
meet by merge joins of sorted streams:

1. the redirect map: redirect sources by key, the last redirect of a page winning (its target);
2. the labels, in file order: the key of each subject and of its normalised form (and the keys of
   the form's token prefixes), sorted by subject and joined with the redirect map: a redirect
   page's labels name its target, a resource's own labels name it (not a category's);
3. the redirects without a label, in file order: the local name of the page names the target;
4. the prior: in-link counts, a link to a redirect counted for its target (sorted, joined, summed),
   or each entity's number of distinct forms;
5. the (form, entity) pairs sorted by form: each form's entity of highest prior (ties to the
   smallest IRI, read from its row).

An entity is stored as a *reference* to a row that names it (a subject of the segments' labels or
a target of their redirects), so no IRI string is carried through the sorts.

Examples
--------
>>> import tempfile, pathlib
>>> from kg.rdf.index.dumpindex import DumpIndex
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> L, R = "<http://www.w3.org/2000/01/rdf-schema#label>", "http://dbpedia.org/resource/"
>>> _ = (d / "l.nt").write_text(f'<{R}New_York> {L} "New York"@en .\\n<{R}NYT> {L} "New York Times"@en .\\n')
>>> lex = DumpIndex(d / "i").lexicon(d / "l.nt")
>>> [(a.uri[len(R):], a.offset) for a in lex.annotate_one("Read the new york times in New York!")]
[('NYT', 9), ('New_York', 27)]
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
from pathlib import Path
from urllib.parse import unquote

import numpy as np

from kg.rdf.index.blocks import BlockDamaged, manifest_key
from kg.rdf.index.columns import (
    StringColumn,
    find_sorted,
    hash_keys,
)
from kg.rdf.index.extsort import ColumnReader, NpyWriter, SortedRuns, SpillPool, write_pair_array
from kg.rdf.index.manifest import MANIFEST, check_folder, write_manifest
from kg.rdf.index.mentions import SPAN_FORM, SPAN_PREFIX, ColumnChain, IndexedLexicon
from kg.rdf.index.spans import string_keys
from kg.rdf.index.surface import normalize_form
from kg.rdf.vocabulary import DBPEDIA, Vocabulary

__all__ = ["IndexedLexicon", "build_lexicon", "open_lexicon"]

log = logging.getLogger(__name__)

LEXICON_FORMAT = 3  # 3: the 64-bit keys of the forms and of their token prefixes (spans.keys.npy, spans.kind.npy)
# on folded text (every whitespace character is a space): word runs, and any other non-space character
_TOKEN = re.compile(r"\w+|[^\w ]")
_BLOCK = 1 << 16
_OK, _OWN = 1, 2  # flags of a label row: its form is kept; its subject is an entity (not a category)




def _columns(segments, kind: str, *names: str) -> list[ColumnChain]:
    used = [s for s in segments if s.has(kind)]
    return [ColumnChain([StringColumn(s.folder, f"{kind}.{n}", s.checks) for s in used]) for n in names]


def _blocks(*columns):
    """``(first row, [block of each column])`` over equally long iterables, :data:`_BLOCK` rows at a time."""
    its = [iter(c) for c in columns]
    start = 0
    while True:
        block = [[x for _, x in zip(range(_BLOCK), it)] for it in its]
        if not block[0]:
            return
        yield start, block
        start += len(block[0])


class _Cursor:
    """A sorted table on disk (columns ``hi``, ``lo``, ...) read forward in windows, for merge joins."""

    def __init__(self, paths: dict[str, Path], step: int = 1 << 18):
        self.readers = {k: ColumnReader(p) for k, p in paths.items()}
        self.n, self.pos, self.step = len(self.readers["hi"]), 0, step
        self.buf = {k: np.zeros(0, r.dtype) for k, r in self.readers.items()}
        self.first = 0  # the table row of buf's first row

    def upto(self, hi_max) -> dict[str, np.ndarray]:
        """Every row not dropped yet up to (at least) the last with ``hi <= hi_max``; ``"row"``: its table row."""
        while self.pos < self.n and (not len(self.buf["hi"]) or self.buf["hi"][-1] <= hi_max):
            m = min(self.step, self.n - self.pos)
            self.buf = {k: np.concatenate([self.buf[k], r.read(self.pos, m)]) for k, r in self.readers.items()}
            self.pos += m
        return {**self.buf, "row": np.arange(self.first, self.first + len(self.buf["hi"]))}

    def drop_below(self, hi_min) -> None:
        """Forget the rows with ``hi < hi_min`` (no later query asks for them)."""
        k = int(np.searchsorted(self.buf["hi"], hi_min, "left"))
        if k:
            self.buf = {c: v[k:] for c, v in self.buf.items()}
            self.first += k

    def join(self, hi: np.ndarray, lo: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """For sorted query keys (ascending over successive calls): the queries found, and their rows' columns."""
        if not len(hi) or not self.n:
            return np.zeros(0, np.int64), {k: v[:0] for k, v in self.upto(0).items()}
        self.drop_below(hi[0])
        win = self.upto(hi[-1])
        q, rows = find_sorted(win["hi"], win["lo"], np.stack([hi, lo], axis=1))
        return q, {k: v[rows] for k, v in win.items()}

    def close(self) -> None:
        for r in self.readers.values():
            r.close()


class _Table:
    """Columns written block by block as ``.npy`` files (for a :class:`_Cursor`)."""

    def __init__(self, folder: Path, name: str, dtypes: dict):
        self.paths = {k: folder / f"{name}.{k}.npy" for k in dtypes}
        self.writers = {k: NpyWriter(p, t) for (k, t), p in zip(dtypes.items(), self.paths.values())}

    def write(self, **cols) -> None:
        for k, w in self.writers.items():
            w.write(cols[k])

    def close(self) -> dict[str, Path]:
        for w in self.writers.values():
            w.close()
        return self.paths


class _KeyWriter:
    """A ``(2, n)`` key array (``<name>.keys.npy``) and payload columns, written in key order block by block."""

    def __init__(self, folder: Path, name: str, payload: dict | None = None):
        self.folder, self.name, self.n = folder, name, 0
        self._hi, self._lo = folder / f".{name}.hi", folder / f".{name}.lo"
        self._fh, self._fl = open(self._hi, "wb"), open(self._lo, "wb")
        self.payload = {k: NpyWriter(folder / f"{name}.{k}.npy", t) for k, t in (payload or {}).items()}

    def write(self, hi: np.ndarray, lo: np.ndarray, **payload) -> None:
        self._fh.write(np.ascontiguousarray(hi, "<u8").tobytes())
        self._fl.write(np.ascontiguousarray(lo, "<u8").tobytes())
        for k, w in self.payload.items():
            w.write(payload[k])
        self.n += len(hi)

    def close(self) -> int:
        self._fh.close()
        self._fl.close()
        for w in self.payload.values():
            w.close()
        write_pair_array(self.folder / f"{self.name}.keys.npy", self._hi, self._lo, np.uint64, self.n)
        return self.n


def _distinct(hi: np.ndarray, lo: np.ndarray, last) -> np.ndarray:
    """Which rows of sorted keys start a new key (``last``: the key before the block)."""
    new = np.ones(len(hi), bool)
    new[1:] = (hi[1:] != hi[:-1]) | (lo[1:] != lo[:-1])
    if len(hi) and last is not None and hi[0] == last[0] and lo[0] == last[1]:
        new[0] = False
    return new


class _Builder:
    """The steps of :func:`build_lexicon` (see the module)."""

    def __init__(self, segments, folder: Path, vocabulary: Vocabulary, min_length: int, pool: SpillPool):
        self.folder, self.min_length, self.pool = folder, int(min_length), pool
        self.tmp = folder / ".work"
        self.tmp.mkdir()
        self.not_entities = tuple(vocabulary.not_entities)
        self.subjects, self.texts = _columns(segments, "labels", "subject", "text")
        self.sources, self.targets = _columns(segments, "redirects", "source", "target")
        self.n_labels = len(self.subjects)
        self.links = [s for s in segments if s.has("inlinks")]
        self.prefixes = SortedRuns(self.tmp, "prefixes", ("hi", "lo"), pool=pool)
        self.spans = SortedRuns(self.tmp, "spans", ("key",), pool=pool)
        self.pairs = SortedRuns(self.tmp, "pairs", ("e_hi", "e_lo", "f_hi", "f_lo"), pool=pool)

    def iri(self, refs) -> list[str]:
        """The IRIs of entity references (label subjects, then redirect targets)."""
        refs = np.asarray(refs, np.int64)
        out = [""] * len(refs)
        own = refs < self.n_labels
        for sel, column, base in ((np.flatnonzero(own), self.subjects, 0),
                                  (np.flatnonzero(~own), self.targets, self.n_labels)):
            for i, v in zip(sel.tolist(), column.read(refs[sel] - base)):  # pread: the build reads all over
                out[i] = v
        return out

    def forms(self, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """The kept forms' keys (rows of the others are zero) and which rows are kept; their prefixes are noted."""
        forms = [normalize_form(n) for n in names]
        ok = np.fromiter((len(f) >= self.min_length and any(c.isalpha() for c in f) for f in forms), bool,
                         len(forms))
        kept = [f for f, k in zip(forms, ok.tolist()) if k]
        keys = np.zeros((len(forms), 2), np.uint64)
        if kept:
            keys[ok] = hash_keys(kept)
            self.spans.add(key=string_keys(kept), kind=np.full(len(kept), SPAN_FORM, np.uint8))
            found = list({f[:m.end()] for f in kept for m in list(_TOKEN.finditer(f))[:-1]})
            if found:
                p = hash_keys(found)
                self.prefixes.add(hi=p[:, 0], lo=p[:, 1])
                self.spans.add(key=string_keys(found), kind=np.full(len(found), SPAN_PREFIX, np.uint8))
        return keys, ok

    # 1. the redirect map
    def redirect_map(self) -> dict[str, Path]:
        with SortedRuns(self.tmp, "redirects", ("hi", "lo", "seq"), pool=self.pool) as runs:
            for start, (src, tgt) in _blocks(self.sources, self.targets):
                k, t = hash_keys(src), hash_keys(tgt)
                runs.add(hi=k[:, 0], lo=k[:, 1], seq=np.arange(start, start + len(src), dtype=np.int64),
                         t_hi=t[:, 0], t_lo=t[:, 1])
            table = _Table(self.tmp, "rmap", {"hi": np.uint64, "lo": np.uint64, "win": np.int64,
                                              "t_hi": np.uint64, "t_lo": np.uint64})
            for b in runs.merged(group=2):
                hi, lo = b["hi"], b["lo"]
                last = np.ones(len(hi), bool)  # the last row of each source key (the greatest seq) wins
                last[:-1] = (hi[1:] != hi[:-1]) | (lo[1:] != lo[:-1])
                table.write(hi=hi[last], lo=lo[last], win=b["seq"][last], t_hi=b["t_hi"][last], t_lo=b["t_lo"][last])
            return table.close()

    # 2. the labels
    def labels(self, rmap: dict[str, Path]) -> np.ndarray:
        """Pairs from every label; returns which redirect-map rows have a label."""
        with SortedRuns(self.tmp, "labels", ("s_hi", "s_lo"), pool=self.pool) as runs:
            for start, (subj, text) in _blocks(self.subjects, self.texts):
                s = hash_keys(subj)
                f, ok = self.forms(text)
                own = np.fromiter((not any(x in v for x in self.not_entities) for v in subj), bool, len(subj))
                runs.add(s_hi=s[:, 0], s_lo=s[:, 1], f_hi=f[:, 0], f_lo=f[:, 1],
                         row=np.arange(start, start + len(subj), dtype=np.int64),
                         flags=(ok * _OK + own * _OWN).astype(np.uint8))
            cursor = _Cursor(rmap)
            labelled = np.zeros(cursor.n, bool)
            try:
                for b in runs.merged(group=2):
                    q, r = cursor.join(b["s_hi"], b["s_lo"])
                    labelled[r["row"]] = True
                    red = np.zeros(len(b["s_hi"]), bool)
                    red[q] = True
                    ok, own = (b["flags"] & _OK).astype(bool), (b["flags"] & _OWN).astype(bool)
                    take = ok[q]  # a redirect page's label names the target (the winning redirect's)
                    self.pairs.add(e_hi=r["t_hi"][take], e_lo=r["t_lo"][take], f_hi=b["f_hi"][q][take],
                                   f_lo=b["f_lo"][q][take], ref=self.n_labels + r["win"][take])
                    mine = ok & own & ~red
                    self.pairs.add(e_hi=b["s_hi"][mine], e_lo=b["s_lo"][mine], f_hi=b["f_hi"][mine],
                                   f_lo=b["f_lo"][mine], ref=b["row"][mine])
            finally:
                cursor.close()
        return labelled

    # 3. the redirects without a label
    def bare_redirects(self, rmap: dict[str, Path], labelled: np.ndarray) -> None:
        bare = np.zeros(len(self.sources), bool)
        win = ColumnReader(rmap["win"])
        try:
            for a in range(0, len(win), 1 << 20):
                w = win.read(a, min(1 << 20, len(win) - a))
                bare[w[~labelled[a:a + len(w)]]] = True
        finally:
            win.close()
        for start, (src, tgt) in _blocks(self.sources, self.targets):
            sel = np.flatnonzero(bare[start:start + len(src)])
            if not len(sel):
                continue
            names = [unquote(src[i].rsplit("/", 1)[-1]).replace("_", " ") for i in sel.tolist()]
            f, ok = self.forms(names)
            sel, f = sel[ok], f[ok]
            t = hash_keys([tgt[i] for i in sel.tolist()])
            self.pairs.add(e_hi=t[:, 0], e_lo=t[:, 1], f_hi=f[:, 0], f_lo=f[:, 1], ref=self.n_labels + start + sel)

    # 4. the prior from links
    def link_weights(self, rmap: dict[str, Path]) -> dict[str, Path] | None:
        """Entity key -> in-links (a link to a redirect counted for its target), or ``None`` without links."""
        if not self.links:
            return None
        with SortedRuns(self.tmp, "links", ("hi", "lo"), pool=self.pool) as linked, \
                SortedRuns(self.tmp, "weights", ("hi", "lo"), pool=self.pool) as rekeyed:
            for seg in self.links:
                for f in ("inlinks.keys.npy", "inlinks.count.npy"):  # read with plain reads: verified first
                    seg.checks.file(seg.folder / f)
                hi, lo = (ColumnReader(seg.folder / "inlinks.keys.npy", row=r) for r in (0, 1))
                count = ColumnReader(seg.folder / "inlinks.count.npy")
                try:
                    for a in range(0, len(count), 1 << 20):
                        m = min(1 << 20, len(count) - a)
                        linked.add(hi=hi.read(a, m), lo=lo.read(a, m), count=count.read(a, m))
                finally:
                    for r in (hi, lo, count):
                        r.close()
            cursor = _Cursor(rmap)
            try:
                for b in linked.merged():
                    hi, lo = b["hi"].copy(), b["lo"].copy()
                    q, r = cursor.join(hi, lo)
                    hi[q], lo[q] = r["t_hi"], r["t_lo"]
                    rekeyed.add(hi=hi, lo=lo, count=b["count"])
            finally:
                cursor.close()
            table = _Table(self.tmp, "weights", {"hi": np.uint64, "lo": np.uint64, "w": np.float64})
            for b in rekeyed.merged(group=2):
                start = np.flatnonzero(_distinct(b["hi"], b["lo"], None))
                table.write(hi=b["hi"][start], lo=b["lo"][start],
                            w=np.add.reduceat(b["count"].astype(np.float64), start))
            return table.close()

    # 5. one entity per form
    def resolve(self, weights: dict[str, Path] | None) -> dict:
        n_entities = 0
        cursor = _Cursor(weights) if weights is not None else None
        try:
            with SortedRuns(self.tmp, "candidates", ("f_hi", "f_lo"), pool=self.pool) as cands:
                for b in self.pairs.merged(group=2):  # by entity, then form
                    e_hi, e_lo, f_hi, f_lo = b["e_hi"], b["e_lo"], b["f_hi"], b["f_lo"]
                    keep = np.ones(len(e_hi), bool)  # one row per (entity, form)
                    keep[1:] = (e_hi[1:] != e_hi[:-1]) | (e_lo[1:] != e_lo[:-1]) | (f_hi[1:] != f_hi[:-1]) | \
                        (f_lo[1:] != f_lo[:-1])
                    e_hi, e_lo, f_hi, f_lo, ref = e_hi[keep], e_lo[keep], f_hi[keep], f_lo[keep], b["ref"][keep]
                    start = np.flatnonzero(_distinct(e_hi, e_lo, None))  # an entity's rows are in one block
                    n_entities += len(start)
                    if cursor is None:  # the number of distinct forms of each entity
                        w = np.repeat(np.diff(np.append(start, len(e_hi))), np.diff(np.append(start, len(e_hi))))
                        w = w.astype(np.float64)
                    else:
                        w = np.zeros(len(e_hi))
                        q, r = cursor.join(e_hi[start], e_lo[start])
                        per = np.zeros(len(start))
                        per[q] = r["w"]
                        w = np.repeat(per, np.diff(np.append(start, len(e_hi))))
                    cands.add(f_hi=f_hi, f_lo=f_lo, w=w, e_hi=e_hi, e_lo=e_lo, ref=ref)
                self.pairs.close()
                return self._choose(cands, n_entities)
        finally:
            if cursor is not None:
                cursor.close()

    def _choose(self, cands: SortedRuns, n_entities: int) -> dict:
        forms = _KeyWriter(self.folder, "forms", {"entity": np.int64, "weight": np.float64})
        ambiguous = 0
        for b in cands.merged(group=2):  # by form
            f_hi, f_lo, w, ref = b["f_hi"], b["f_lo"], b["w"], b["ref"]
            order = np.lexsort((-w, f_lo, f_hi))
            f_hi, f_lo, w, ref = f_hi[order], f_lo[order], w[order], ref[order]
            start = np.flatnonzero(_distinct(f_hi, f_lo, None))
            size = np.diff(np.append(start, len(f_hi)))
            ambiguous += int((size > 1).sum())
            best = ref[start].copy()
            tied = np.add.reduceat((w == np.repeat(w[start], size)).astype(np.int64), start)
            for g in np.flatnonzero(tied > 1).tolist():  # rare: several entities with the top prior
                cand = ref[start[g]:start[g] + tied[g]]
                names = self.iri(cand)
                best[g] = cand[min(range(len(cand)), key=names.__getitem__)]
            forms.write(f_hi[start], f_lo[start], entity=best, weight=w[start])
        n = forms.close()
        return {"n_surface_forms": n, "n_entities": n_entities, "ambiguous": ambiguous}

    def write_prefixes(self) -> None:
        out = _KeyWriter(self.folder, "prefixes")
        last = None
        for b in self.prefixes.merged():
            new = _distinct(b["hi"], b["lo"], last)
            if len(b["hi"]):
                last = (b["hi"][-1], b["lo"][-1])
            out.write(b["hi"][new], b["lo"][new])
        out.close()
        self.prefixes.close()

    def write_spans(self) -> int:
        """The distinct span keys of forms and prefixes, sorted, with their kinds (or-ed); returns their number."""
        n = 0
        with NpyWriter(self.folder / "spans.keys.npy", np.uint64) as keys, \
                NpyWriter(self.folder / "spans.kind.npy", np.uint8) as kinds:
            for b in self.spans.merged(group=1):  # a key's rows in one block
                k = b["key"]
                if not len(k):
                    continue
                start = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
                keys.write(k[start])
                kinds.write(np.bitwise_or.reduceat(b["kind"], start))
                n += len(start)
        self.spans.close()
        return n


def build_lexicon(segments, folder, *, vocabulary: Vocabulary = DBPEDIA, min_length: int = 2, prior: str = "auto",
                  pool: SpillPool | None = None) -> dict:
    """Write the lexicon table of segments into ``folder`` (created; must not exist), in bounded memory.

    Parameters
    ----------
    segments : list of kg.rdf.index.segment.Segment
        In the order of the dump files (a later redirect of the same page wins, as when streaming).
    folder : path
    vocabulary : Vocabulary
        Which resources are no entities (``not_entities``).
    min_length : int
    prior : {"auto", "surface-forms"}
    pool : SpillPool, optional
        The memory budget of the rows sorted (the default budget otherwise).

    Returns
    -------
    dict
        Its statistics (``n_surface_forms``, ``n_entities``, ``ambiguous``, ``prior_source``),
        also written as ``lexicon.json``.

    Examples
    --------
    See the module.
    """
    if prior not in ("auto", "surface-forms"):
        raise ValueError(f"prior must be 'auto' or 'surface-forms', got {prior!r}")
    folder = Path(folder)
    folder.mkdir(parents=True)
    b = _Builder(segments, folder, vocabulary, min_length, pool or SpillPool())
    rmap = b.redirect_map()
    labelled = b.labels(rmap)
    b.bare_redirects(rmap, labelled)
    weights = b.link_weights(rmap) if prior == "auto" else None
    counts = b.resolve(weights)
    b.write_prefixes()
    n_spans = b.write_spans()
    shutil.rmtree(b.tmp)
    stats = {"format": LEXICON_FORMAT, **counts, "n_span_keys": n_spans,
             "prior_source": "given" if weights is not None else "surface-form count",
             "min_length": int(min_length), "vocabulary": vocabulary.name,
             "segments": [s.folder.name for s in segments],
             "columns": {"labels": [s.folder.name for s in segments if s.has("labels")],
                         "redirects": [s.folder.name for s in segments if s.has("redirects")]}}
    (folder / "lexicon.json").write_text(json.dumps(stats, indent=1), encoding="utf-8")
    return stats


def open_lexicon(segments, root, *, vocabulary: Vocabulary = DBPEDIA, min_length: int = 2, prior: str = "auto",
                 pool: SpillPool | None = None, rebuild: str = "kgfs ingest", repair: dict | None = None
                 ) -> IndexedLexicon:
    """The lexicon of segments under ``root``, built when missing (named by its inputs).

    Only segments with labels, redirects or links take part (adding a file of types keeps the lexicon).
    Its folder is checked first (:func:`kg.rdf.index.manifest.check_folder`): a damaged lexicon is an
    error naming the file and ``rebuild``, or with ``repair`` built again.

    Parameters
    ----------
    segments : list of kg.rdf.index.segment.Segment
    root : path
        The index's ``lexicons`` folder.
    vocabulary : Vocabulary
    min_length : int
    prior : {"auto", "surface-forms"}
    pool : SpillPool, optional
        The memory budget of a build (see :func:`build_lexicon`).
    rebuild : str
        The command that rebuilds it (for the error).
    repair : dict, optional
        Rebuild a damaged lexicon (its first problem is put in ``repair["problem"]``); ``repair["full"]``:
        hash its files (else sizes and array headers).

    Returns
    -------
    IndexedLexicon

    Raises
    ------
    IndexDamaged

    Examples
    --------
    See the module.
    """
    used = {}  # the same content given twice (a copy of a file) counts once
    for s in segments:
        if s.has("labels") or s.has("redirects") or s.has("inlinks"):
            used.setdefault(s.info["sha256"], s)
    used = list(used.values())
    key = json.dumps([LEXICON_FORMAT, [s.folder.name for s in used], vocabulary.fingerprint(), int(min_length), prior])
    folder = Path(root) / hashlib.sha256(key.encode()).hexdigest()[:32]
    problems = check_folder(folder, full=bool(repair and repair.get("full"))) if folder.is_dir() else []
    if problems and repair is None:  # (repairable: a run's step removes the folder and runs again)
        raise BlockDamaged(problems, rebuild, folder, manifest_key(folder))
    if problems:
        log.warning("dump index file %s; building the lexicon again", problems[0])
        repair["problem"] = str(problems[0])
    if problems or not (folder / MANIFEST).is_file():
        tmp = folder.with_name(f".building-{os.getpid()}-{folder.name}")
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            build_lexicon(used, tmp, vocabulary=vocabulary, min_length=min_length, prior=prior, pool=pool)
            write_manifest(tmp)  # last: a folder without one is never used
            shutil.rmtree(folder, ignore_errors=True)
            os.replace(tmp, folder)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return IndexedLexicon(folder, rebuild)
