"""Surface forms of the lexicon: which entity each normalised form names, at any size.

The rules (the lexicon annotators of :mod:`kg.rdf.annotators.lexicon` and :mod:`kg.rdf.index.lexicon`
both use this one implementation):

- a resource's ``rdfs:label`` is a surface form of it, unless the resource is a redirect page
  or a category (``/Category:``);
- with ``redirects``, a redirect page's labels (or, without one, its IRI's local name with
  ``_`` as spaces) are surface forms of its target (a page redirected twice: the later wins);
- a form is normalised (:func:`normalize_form`) and kept when it is at least ``min_length``
  characters long and has a letter;
- the prior of an entity: ``prior="auto"`` uses in-link counts (links to a redirect count for
  its target) when there are any, else each entity's number of distinct forms;
  ``"surface-forms"`` forces the latter; a mapping is used as given (0 when absent);
- a form naming several entities goes to the highest prior, ties to the smallest IRI.

Forms and entities are handled by their 128-bit keys (:func:`kg.rdf.index.columns.hash_keys`) in
NumPy arrays, and strings are read back only for the answer and for ties, so building the
lexicon of millions of labels takes arrays of a few dozen bytes per form, not Python objects.

Examples
--------
>>> R = "http://dbpedia.org/resource/"
>>> t = dump_form_table(([R + "Lyon"], ["Lyon"]), ([R + "Lyons"], [R + "Lyon"]), ([], []), keep_keys=True)
>>> sorted(t.as_dict().items())
[('lyon', ('http://dbpedia.org/resource/Lyon', 2.0)), ('lyons', ('http://dbpedia.org/resource/Lyon', 2.0))]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import unquote

import numpy as np

from kg.rdf.index.columns import find_sorted, hash_keys, key_order, unique_keys

__all__ = ["FormTable", "dump_form_table", "fold", "form_table", "normalize_form"]

#: Every whitespace character (``str.isspace``, what ``\s`` matches) -> a space.
_SPACES = dict.fromkeys(map(ord, "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
                                "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"), " ")
_BATCH = 1 << 16


def fold(text: str) -> str:
    """Lower-case and whitespace-to-space, keeping the length (and so every offset).

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> fold("İstanbul\\tNEW")  # 'İ'.lower() is two characters: kept as it is
    'İstanbul new'
    >>> all(fold(chr(c)) == " " for c in range(0x110000) if chr(c).isspace())  # every whitespace character
    True
    """
    low = text.lower()
    if len(low) != len(text):
        low = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    # str.translate, not re.sub: the same characters (str.isspace), without a list of every piece between them
    # (re.sub of a long text holds ~50 bytes per whitespace run)
    return low.translate(_SPACES)


def normalize_form(name: str) -> str:
    """A surface form as the lexicon keys it: folded (:func:`fold`), whitespace runs as one space.

    Parameters
    ----------
    name : str

    Returns
    -------
    str

    Examples
    --------
    >>> normalize_form("  Chelsea\\tF.C. ")
    'chelsea f.c.'
    """
    return " ".join(fold(str(name)).split())


def _take(source, rows) -> list[str]:
    return source.take(rows) if hasattr(source, "take") else [source[i] for i in rows]


def _batches(*columns) -> Iterable[tuple[int, list]]:
    """``(first row, [values of each column])`` in blocks of rows."""
    its = [iter(c) for c in columns]
    start = 0
    while True:
        block = [[x for _, x in zip(range(_BATCH), it)] for it in its]
        if not block[0]:
            return
        yield start, block
        start += len(block[0])


@dataclass
class FormTable:
    """The normalised forms (by key, sorted) with the entity each names and that entity's prior.

    Attributes
    ----------
    keys : numpy.ndarray
        ``(n, 2)`` keys of the forms, sorted.
    entity : numpy.ndarray
        Index into ``iris`` of each form's entity.
    weight : numpy.ndarray
        The entity's prior.
    iris : sequence of str
        The entities that some form names (read in blocks when iterated).
    stats : dict
        ``n_surface_forms``, ``n_entities`` (with a form), ``ambiguous`` (forms naming several
        entities), ``prior_source``.
    forms : list of str or None
        The forms in key order (when asked for).

    Examples
    --------
    See :func:`form_table`.
    """

    keys: np.ndarray
    entity: np.ndarray
    weight: np.ndarray
    iris: Sequence[str]
    stats: dict
    forms: list[str] | None = field(default=None)

    def as_dict(self) -> dict[str, tuple[str, float]]:
        """Form -> ``(IRI, prior)`` (needs the forms).

        Returns
        -------
        dict

        Examples
        --------
        See the module.
        """
        iris = list(self.iris)
        return {f: (iris[e], w) for f, e, w in zip(self.forms, self.entity.tolist(), self.weight.tolist())}


class _Iris:
    """The IRIs of entities, read from where the pairs found them, a block at a time."""

    def __init__(self, ids: np.ndarray, iris_of: Callable[[np.ndarray], list[str]]):
        self.ids, self.iris_of = ids, iris_of

    def __len__(self) -> int:
        return len(self.ids)

    def __iter__(self):
        for a in range(0, len(self.ids), _BATCH):
            yield from self.iris_of(self.ids[a:a + _BATCH])


class _Pairs:
    """(form, entity) pairs gathered in blocks: keys of both, and where the entity's IRI can be read."""

    def __init__(self, min_length: int, keep_forms: bool, on_forms: Callable[[list[str]], None] | None):
        self.min_length, self.keep_forms, self.on_forms = min_length, keep_forms, on_forms
        self.form_keys, self.entity_keys, self.sources, self.rows, self.forms = [], [], [], [], []

    def add(self, names: Sequence[str], entity_keys: np.ndarray, source: int, rows: np.ndarray) -> np.ndarray:
        """Add names of entities; returns which rows were kept (valid forms)."""
        forms = [normalize_form(n) for n in names]
        ok = np.fromiter((len(f) >= self.min_length and any(c.isalpha() for c in f) for f in forms), bool, len(forms))
        kept = [f for f, k in zip(forms, ok.tolist()) if k]
        if kept:
            self.form_keys.append(hash_keys(kept))
            self.entity_keys.append(np.asarray(entity_keys)[ok])
            self.sources.append(np.full(len(kept), source, np.int8))
            self.rows.append(np.asarray(rows, np.int64)[ok])
            if self.keep_forms:
                self.forms.extend(kept)
            if self.on_forms is not None:
                self.on_forms(kept)
        return ok

    def table(self, iri_sources: Sequence, prior) -> FormTable:
        """Resolve each form to one entity (see the module)."""
        if not self.form_keys:
            return FormTable(np.zeros((0, 2), np.uint64), np.zeros(0, np.int64), np.zeros(0), [],
                             {"n_surface_forms": 0, "n_entities": 0, "ambiguous": 0,
                              "prior_source": "given" if prior is not None else "surface-form count"}, [])
        # keys become dense ids at once (the 128-bit keys of every pair would take 4x the memory)
        forms_of, form = unique_keys(np.concatenate(self.form_keys))
        self.form_keys = []
        entities, ent = unique_keys(np.concatenate(self.entity_keys))
        self.entity_keys = []
        src, rows = np.concatenate(self.sources), np.concatenate(self.rows)
        self.sources, self.rows = [], []
        _, keep = np.unique(form * len(entities) + ent, return_index=True)  # one row per (form, entity)
        form, ent, src, rows = form[keep], ent[keep], src[keep], rows[keep]
        forms = [self.forms[i] for i in keep.tolist()] if self.keep_forms else None
        where = np.zeros(len(entities), np.int64)
        where[ent] = np.arange(len(ent))  # one row naming each entity (to read its IRI)

        def iris_of(ent_ids: np.ndarray) -> list[str]:
            r = where[ent_ids]
            out = [""] * len(r)
            for s, source in enumerate(iri_sources):
                sel = np.flatnonzero(src[r] == s)
                for i, iri in zip(sel.tolist(), _take(source, rows[r[sel]].tolist())):
                    out[i] = iri
            return out

        if prior is None:
            weight_of = np.bincount(ent, minlength=len(entities)).astype(float)  # distinct forms per entity
        else:
            weight_of = np.asarray(prior(entities, iris_of), dtype=float)
        return _resolve(forms_of, form, ent, weight_of, iris_of, forms,
                        "given" if prior is not None else "surface-form count", len(entities))


def _resolve(forms_of, form, ent, weight_of, iris_of, forms, prior_source: str, n_entities: int) -> FormTable:
    """For each distinct form, its entity of highest prior; ties to the smallest IRI."""
    w = weight_of[ent]
    order = np.lexsort((-w, form))  # by form, then prior descending
    f_sorted, w_sorted = form[order], w[order]
    start = np.flatnonzero(np.r_[True, f_sorted[1:] != f_sorted[:-1]])
    size = np.diff(np.r_[start, len(order)])
    top = w_sorted[start]
    best = ent[order[start]]
    tied_n = np.add.reduceat((w_sorted == np.repeat(top, size)).astype(np.int64), start)
    for g in np.flatnonzero(tied_n > 1).tolist():  # rare: several entities with the top prior
        cand = np.unique(ent[order[start[g]:start[g] + tied_n[g]]])
        names = iris_of(cand)
        best[g] = cand[min(range(len(cand)), key=names.__getitem__)]
    ids, best_id = np.unique(best, return_inverse=True)
    stats = {"n_surface_forms": len(start), "n_entities": n_entities, "ambiguous": int((size > 1).sum()),
             "prior_source": prior_source}
    return FormTable(forms_of, best_id.astype(np.int64), weight_of[best], _Iris(ids, iris_of), stats,
                     None if forms is None else [forms[i] for i in order[start].tolist()])


def form_table(surface_forms: Mapping[str, Iterable[str]], *, prior: Mapping[str, float] | None = None,
               min_length: int = 2, on_forms: Callable[[list[str]], None] | None = None) -> FormTable:
    """The form table of given surface forms (each entity's names as given; no redirect rules).

    Parameters
    ----------
    surface_forms : mapping of IRI -> iterable of str
    prior : mapping of IRI -> float, optional
        Default: each entity's number of distinct forms.
    min_length : int
    on_forms : callable, optional
        Called with each block of kept forms.

    Returns
    -------
    FormTable
        With its ``forms``.

    Examples
    --------
    >>> t = form_table({"http://x/a": ["Same", "Ay"], "http://x/b": ["same"]})
    >>> t.as_dict()["same"], t.stats["ambiguous"]
    (('http://x/a', 2.0), 1)
    """
    iris = list(surface_forms)
    pairs = _Pairs(min_length, True, on_forms)
    owner = [i for i, iri in enumerate(iris) for _ in surface_forms[iri]]
    names = [n for iri in iris for n in surface_forms[iri]]
    keys = hash_keys(iris)
    for a in range(0, len(names), _BATCH):
        o = np.asarray(owner[a:a + _BATCH], np.int64)
        pairs.add(names[a:a + _BATCH], keys[o], 0, o)
    return pairs.table([iris], None if prior is None else _given_prior(prior))


def _given_prior(prior: Mapping[str, float]):
    """``prior(entity keys, iris_of)`` from a mapping of IRI -> prior (0 when absent)."""
    def weights(keys, iris_of):
        return [float(prior.get(i, 0)) for i in iris_of(np.arange(len(keys)))]

    return weights


def _column_keys(column) -> np.ndarray:
    """The keys of a column's strings, hashed a block at a time."""
    return np.concatenate([hash_keys(b[0]) for _, b in _batches(column)] or [np.zeros((0, 2), np.uint64)])


def _redirect_map(sources, targets) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted distinct redirect keys, the row that wins for each (the last), and its target's key."""
    keys = _column_keys(sources)
    n = len(keys)
    order = key_order(keys)  # stable: the last of equal keys is the last row
    ordered = keys[order]
    last = np.ones(n, bool)
    last[:-1] = (ordered[1:] != ordered[:-1]).any(axis=1)
    win = order[last]
    target_keys = np.concatenate([hash_keys(_take(targets, win[a:a + _BATCH].tolist()))
                                  for a in range(0, len(win), _BATCH)] or [np.zeros((0, 2), np.uint64)])
    return ordered[last], win, target_keys


def _link_prior(inlinks, red_keys, red_targets):
    """``prior(entity keys, iris_of)`` from in-link counts (a link to a redirect counts for its target)."""
    iris, counts = inlinks
    keys = _column_keys(iris)
    q, pos = find_sorted(red_keys[:, 0], red_keys[:, 1], keys)
    keys[q] = red_targets[pos]
    linked, group = unique_keys(keys)
    total = np.bincount(group, weights=np.asarray(counts, float), minlength=len(linked))

    def prior(entity_keys, _iris_of):
        w = np.zeros(len(entity_keys))
        q, rows = find_sorted(linked[:, 0], linked[:, 1], entity_keys)
        w[q] = total[rows]
        return w

    return prior


def dump_form_table(labels, redirect_pairs, inlinks, *, redirects: bool = True, prior: Mapping | str = "auto",
                    min_length: int = 2, keep_keys: bool = False,
                    not_entities: Sequence[str] = ("/Category:",)) -> FormTable:
    """The form table of a dump's labels, redirects and in-links (the rules of the module).

    Parameters
    ----------
    labels : (subjects, texts)
        Two equally long string sequences (lists, or columns with ``take``): each label triple.
    redirect_pairs : (sources, targets)
        Each ``dbo:wikiPageRedirects`` triple, in file order.
    inlinks : (iris, counts)
        ``dbo:wikiPageWikiLink`` counts per linked resource (an IRI may repeat: counts add up).
    redirects : bool
    prior : {"auto", "surface-forms"} or mapping
        A mapping of IRI -> prior is used as given.
    min_length : int
    keep_keys : bool
        Keep the forms' strings (:attr:`FormTable.forms`).
    not_entities : sequence of str
        A resource whose IRI holds one of these is no entity (its own labels are no forms).

    Returns
    -------
    FormTable

    Examples
    --------
    See the module.
    """
    if isinstance(prior, str) and prior not in ("auto", "surface-forms"):
        raise ValueError(f"prior must be 'auto', 'surface-forms' or a mapping, got {prior!r}")
    subjects, texts = labels
    red_keys, red_rows, red_targets = _redirect_map(*redirect_pairs)
    labelled = np.zeros(len(red_keys), bool)
    pairs = _Pairs(min_length, keep_keys, None)
    for start, (subj, text) in _batches(subjects, texts):
        keys = hash_keys(subj)
        rows = np.arange(start, start + len(subj))
        q, pos = find_sorted(red_keys[:, 0], red_keys[:, 1], keys)
        labelled[pos] = True
        own = np.ones(len(subj), bool)
        own[q] = False  # a redirect page is not an entity; its labels name the target
        own &= np.fromiter((not any(x in s for x in not_entities) for s in subj), bool, len(subj))
        sel = np.flatnonzero(own)
        pairs.add([text[i] for i in sel.tolist()], keys[sel], 0, rows[sel])
        if redirects and len(q):
            pairs.add([text[i] for i in q.tolist()], red_targets[pos], 1, red_rows[pos])
    if redirects:
        bare = np.flatnonzero(~labelled)
        for a in range(0, len(bare), _BATCH):
            pos = bare[a:a + _BATCH]
            names = [unquote(s.rsplit("/", 1)[-1]).replace("_", " ")
                     for s in _take(redirect_pairs[0], red_rows[pos].tolist())]
            pairs.add(names, red_targets[pos], 1, red_rows[pos])
    weights = None
    if not isinstance(prior, str):
        weights = _given_prior(prior)
    elif prior == "auto" and len(inlinks[0]):
        weights = _link_prior(inlinks, red_keys, red_targets)
    return pairs.table([subjects, redirect_pairs[1]], weights)
