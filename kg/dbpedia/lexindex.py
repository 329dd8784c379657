"""The lexicon annotator of the dump index: surface forms in a hashed on-disk table, matched by token spans.

:class:`~kg.dbpedia.lexicon.LexiconAnnotator` holds every surface form in an Aho-Corasick
automaton, built in memory for each process: at DBpedia's size (millions of labels and
redirects) that takes longer and more memory than annotating a corpus. This annotator finds the
same mentions from a table on disk that opens in milliseconds:

- the table (:func:`build_lexicon`) maps each normalised surface form's key to its entity and
  prior, by the rules of :mod:`kg.dbpedia.surface` (those of the in-memory lexicon), plus the
  keys of every *token prefix* of a form (``"new"`` and ``"new york"`` of ``"new york times"``);
- a text is folded as the automaton's input is, and cut into tokens: runs of word characters
  and single other non-space characters. A mention at word boundaries starts at a token's start
  and ends at a token's end, so the candidates are the token spans; a span is looked up, and
  extended by the next token only while it is the prefix of some form. Candidates are then
  resolved exactly as the automaton's (:func:`~kg.dbpedia.lexicon.longest_matches`).

The two annotators give the same annotations (tested on the test dump and on random texts).

Examples
--------
>>> import tempfile, pathlib
>>> from kg.dbpedia.index import DumpIndex
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> L, R = "<http://www.w3.org/2000/01/rdf-schema#label>", "http://dbpedia.org/resource/"
>>> _ = (d / "l.nt").write_text(f'<{R}New_York> {L} "New York"@en .\\n<{R}NYT> {L} "New York Times"@en .\\n')
>>> lex = DumpIndex(d / "i").lexicon(d / "l.nt")
>>> [(a.uri[len(R):], a.offset) for a in lex.annotate_one("Read the new york times in New York!")]
[('NYT', 9), ('New_York', 27)]
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import re
import shutil
from array import array
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kg.dbpedia.columns import KeyTable, StringColumn, StringColumnWriter, hash_keys, unique_keys, write_key_table
from kg.dbpedia.manifest import MANIFEST, IndexDamaged, check_folder, write_manifest
from kg.dbpedia.sources import Annotation
from kg.dbpedia.surface import dump_form_table, fold

__all__ = ["IndexedLexicon", "build_lexicon", "open_lexicon"]

log = logging.getLogger(__name__)

LEXICON_FORMAT = 1
# on folded text (every whitespace character is a space): word runs, and any other non-space character
_TOKEN = re.compile(r"\w+|[^\w ]")


#: Candidate spans looked up at once (bounds the memory of a long text's look-ups).
SPAN_WINDOW = 1 << 14


def _tokens(low: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every token of folded texts: its text's index, start and end (integer arrays, text order)."""
    code = "i" if max(map(len, low), default=0) < (1 << 31) else "q"  # 4 bytes a position unless a text is huge
    which, starts, ends = array("i"), array(code), array(code)
    for k, x in enumerate(low):
        before = len(starts)
        for m in _TOKEN.finditer(x):
            starts.append(m.start())
            ends.append(m.end())
        which.extend(itertools.repeat(k, len(starts) - before))
    return tuple(np.frombuffer(a, f"i{a.itemsize}") for a in (which, starts, ends))


class _Chain:
    """String columns of several segments as one (rows numbered across them)."""

    def __init__(self, columns: Sequence[StringColumn]):
        self.columns = list(columns)
        self.starts = np.cumsum([0] + [len(c) for c in self.columns])

    def __len__(self) -> int:
        return int(self.starts[-1])

    def __iter__(self):
        for c in self.columns:
            yield from c

    def take(self, rows: Sequence[int]) -> list[str]:
        rows = np.asarray(rows, np.int64)
        part = np.searchsorted(self.starts, rows, "right") - 1
        out = [""] * len(rows)
        for k in np.unique(part).tolist():
            sel = np.flatnonzero(part == k)
            for i, v in zip(sel.tolist(), self.columns[k].take((rows[sel] - self.starts[k]).tolist())):
                out[i] = v
        return out


def _columns(segments, kind: str, *names: str) -> list[_Chain]:
    used = [s for s in segments if s.has(kind)]
    return [_Chain([StringColumn(s.folder, f"{kind}.{n}") for s in used]) for n in names]


def _prefix_keys(blocks: list[np.ndarray]) -> np.ndarray:
    """The distinct keys of blocks of prefix keys, sorted."""
    keys = np.concatenate(blocks) if blocks else np.zeros((0, 2), np.uint64)
    return unique_keys(keys)[0]


def build_lexicon(segments, folder, *, min_length: int = 2, prior: str = "auto") -> dict:
    """Write the lexicon table of segments into ``folder`` (created; must not exist).

    Parameters
    ----------
    segments : list of kg.dbpedia.index.Segment
        In the order of the dump files (a later redirect of the same page wins, as when streaming).
    folder : path
    min_length : int
    prior : {"auto", "surface-forms"}

    Returns
    -------
    dict
        Its statistics (``n_surface_forms``, ``n_entities``, ``ambiguous``, ``prior_source``),
        also written as ``lexicon.json``.

    Examples
    --------
    See the module.
    """
    folder = Path(folder)
    folder.mkdir(parents=True)
    prefixes: list[np.ndarray] = []

    def token_prefixes(forms: list[str]) -> None:
        # every proper prefix of a form that ends at the end of one of its tokens
        found = {f[:m.end()] for f in forms for m in list(_TOKEN.finditer(f))[:-1]}
        prefixes.append(unique_keys(hash_keys(found))[0])

    inlinks = [s for s in segments if s.has("inlinks")]
    counts = np.concatenate([np.load(s.folder / "inlinks.count.npy", allow_pickle=False) for s in inlinks] or
                            [np.zeros(0, np.int64)])
    table = dump_form_table(_columns(segments, "labels", "subject", "text"),
                            _columns(segments, "redirects", "source", "target"),
                            (_columns(segments, "inlinks", "iri")[0], counts), prior=prior, min_length=min_length,
                            on_forms=token_prefixes)
    entities = StringColumnWriter(folder, "entities")
    for iri in table.iris:
        entities.add(iri)
    entities.close()
    write_key_table(folder, "forms", table.keys, {"entity": table.entity, "weight": table.weight})
    write_key_table(folder, "prefixes", _prefix_keys(prefixes))
    stats = {"format": LEXICON_FORMAT, **table.stats, "min_length": int(min_length),
             "segments": [s.info["sha256"] for s in segments]}
    (folder / "lexicon.json").write_text(json.dumps(stats, indent=1), encoding="utf-8")
    return stats


def open_lexicon(segments, root, *, min_length: int = 2, prior: str = "auto", rebuild: str = "kgfs ingest",
                 repair: dict | None = None) -> IndexedLexicon:
    """The lexicon of segments under ``root``, built when missing (named by its inputs).

    Only segments with labels or redirects take part (adding a file of types keeps the lexicon).
    Its folder is checked first (:func:`kg.dbpedia.manifest.check_folder`): a damaged lexicon is an
    error naming the file and ``rebuild``, or with ``repair`` built again.

    Parameters
    ----------
    segments : list of kg.dbpedia.index.Segment
    root : path
        The index's ``lexicons`` folder.
    min_length : int
    prior : {"auto", "surface-forms"}
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
    key = json.dumps([LEXICON_FORMAT, [s.info["sha256"] for s in used], int(min_length), prior])
    folder = Path(root) / hashlib.sha256(key.encode()).hexdigest()[:32]
    problems = check_folder(folder, full=bool(repair and repair.get("full"))) if folder.is_dir() else []
    if problems and repair is None:
        raise IndexDamaged(problems, rebuild)
    if problems:
        log.warning("dump index file %s; building the lexicon again", problems[0])
        repair["problem"] = str(problems[0])
    if problems or not (folder / MANIFEST).is_file():
        tmp = folder.with_name(f".building-{os.getpid()}-{folder.name}")
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            build_lexicon(used, tmp, min_length=min_length, prior=prior)
            write_manifest(tmp)  # last: a folder without one is never used
            shutil.rmtree(folder, ignore_errors=True)
            os.replace(tmp, folder)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return IndexedLexicon(folder)


class IndexedLexicon:
    """An :class:`~kg.dbpedia.sources.Annotator` over a lexicon table (see the module).

    Parameters
    ----------
    folder : path
        Written by :func:`build_lexicon`.

    Attributes
    ----------
    stats : dict
        ``n_surface_forms``, ``n_entities``, ``ambiguous``, ``prior_source``.

    Examples
    --------
    See the module.
    """

    def __init__(self, folder):
        self.folder = Path(folder)
        self.stats = json.loads((self.folder / "lexicon.json").read_text(encoding="utf-8"))
        self._forms = KeyTable(self.folder, "forms")
        self._entity, self._weight = self._forms.payload("entity"), self._forms.payload("weight")
        self._prefixes = KeyTable(self.folder, "prefixes")
        self._iris = StringColumn(self.folder, "entities")
        self._names: dict[int, str] = {}

    def __repr__(self) -> str:
        s = self.stats
        return (f"IndexedLexicon(n_surface_forms={s['n_surface_forms']}, n_entities={s['n_entities']}, "
                f"ambiguous={s['ambiguous']})")

    def _iri(self, rows: np.ndarray) -> list[str]:
        ids = np.asarray(self._entity[rows]).tolist()
        todo = sorted(set(ids) - self._names.keys())
        self._names.update(zip(todo, self._iris.take(todo)))
        return [self._names[i] for i in ids]

    def annotate(self, texts: Sequence[str]) -> list[list[Annotation]]:
        """The mentions in each text (one list per text), as :meth:`LexiconAnnotator.annotate` finds them.

        Memory is a small multiple of the texts, whatever their length: tokens, candidate spans and
        candidates are NumPy arrays (a few dozen bytes per token), spans are looked up
        :data:`SPAN_WINDOW` at a time, and only the mentions kept become objects.

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
        low = [fold(t) for t in texts]
        which, starts, ends = _tokens(low)
        n = len(starts)
        # the next token continues a span only within the same text
        more = np.zeros(n, bool)
        more[:-1] = which[1:] == which[:-1]
        found: list[tuple[np.ndarray, ...]] = []
        for a in range(0, n, SPAN_WINDOW):  # spans starting in this window, one token longer per round
            first = np.arange(a, min(n, a + SPAN_WINDOW))
            last = first
            while len(first):
                t, lo, hi = which[first], starts[first], ends[last]
                keys = hash_keys([low[x][y:z] for x, y, z in zip(t.tolist(), lo.tolist(), hi.tolist())])
                query, rows = self._forms.find(keys)
                if len(rows):
                    found.append((t[query], lo[query], hi[query], rows))
                longer, _ = self._prefixes.find(keys)
                longer = longer[more[last[longer]]]
                first, last = first[longer], last[longer] + 1
        out: list[list[Annotation]] = [[] for _ in texts]
        if not found:
            return out
        del which, starts, ends, more, keys  # the candidates alone from here on
        t, lo, hi, rows = (np.concatenate(c) for c in zip(*found))
        found.clear()
        # per text, longest first then leftmost (as longest_matches), non-overlapping
        order = np.lexsort((lo, lo - hi, t))
        t, lo, hi, rows = t[order], lo[order], hi[order], rows[order]
        keep = np.zeros(len(t), bool)
        bounds = np.flatnonzero(np.diff(t)) + 1
        for g0, g1 in zip([0, *bounds.tolist()], [*bounds.tolist(), len(t)]):
            taken = bytearray(len(texts[int(t[g0])]))
            for i, x, y in zip(range(g0, g1), lo[g0:g1].tolist(), hi[g0:g1].tolist()):
                if taken.find(1, x, y) == -1:
                    taken[x:y] = b"\x01" * (y - x)
                    keep[i] = True
        t, lo, hi, rows = t[keep], lo[keep], hi[keep], rows[keep]
        order = np.lexsort((lo, t))
        t, lo, hi, rows = t[order], lo[order], hi[order], rows[order]
        for k, iri, w, x, y in zip(t.tolist(), self._iri(rows), np.asarray(self._weight[rows]).tolist(), lo.tolist(),
                                   hi.tolist()):
            out[k].append(Annotation(uri=iri, surface_form=texts[k][x:y], offset=x, score=w))
        return out

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
