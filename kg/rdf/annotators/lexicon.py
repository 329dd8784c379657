"""An offline entity annotator: dictionary matching of ``rdfs:label`` (+ redirects) with Aho-Corasick.

The stand-in for DBpedia Spotlight when no Spotlight server is available: every English label of
a resource, and the label of every redirect page pointing at it, becomes a *surface form*; texts
are scanned with a pyahocorasick automaton over the case-folded surface forms.

Matching rules (each tested):

- case-insensitive (per-character ``str.lower``, so offsets stay those of the original text;
  every whitespace character counts as a space);
- word boundaries: a match may not start or end inside a word (letters, digits, ``_``), so
  ``Finn`` is not found in ``Finnish``; ``#Djokovic`` does match ``Djokovic``;
- longest match: overlapping candidates are resolved longest first (ties: leftmost), so
  ``N Lyon`` wins over ``Lyon``;
- ambiguity: a surface form naming several entities is resolved by the prior, the highest
  ``prior[iri]`` wins (ties: the smallest IRI). Without a given prior, the prior of an entity is
  its number of surface forms (label + redirects), a popularity proxy a dump always offers;
- surface forms shorter than ``min_length`` characters or without a letter are ignored.

Examples
--------
>>> lex = LexiconAnnotator({"http://dbpedia.org/resource/Kobe_Bryant": ["Kobe Bryant", "Kobe"]})
>>> [(a.uri.rsplit("/", 1)[1], a.surface_form, a.offset) for a in lex.annotate_one("KOBE scores!")]
[('Kobe_Bryant', 'KOBE', 0)]
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence

import ahocorasick

from kg.rdf.index.surface import FormTable, dump_form_table, fold, form_table
from kg.rdf.sources.common import ingest_progress, vocabulary_key
from kg.rdf.vocabulary import DBPEDIA
from kg.sources import Annotation, AnnotatorBase

__all__ = ["LexiconAnnotator", "is_word_char", "longest_matches"]

log = logging.getLogger(__name__)

def is_word_char(c: str) -> bool:
    """Letters, digits and ``_``: a match may not start or end between two of them.

    Parameters
    ----------
    c : str
        One character.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_word_char("é"), is_word_char("_"), is_word_char("#")
    (True, True, False)
    """
    return c.isalnum() or c == "_"


def longest_matches(text: str, candidates: list[tuple[int, int, str, float]]) -> list[Annotation]:
    """Non-overlapping mentions from candidate spans: longest first, then leftmost; in text order.

    Parameters
    ----------
    text : str
        The original text (offsets and surface forms refer to it).
    candidates : list of (start, end, IRI, prior)
        Spans whose folded text is a surface form, at word boundaries.

    Returns
    -------
    list of Annotation

    Examples
    --------
    >>> [a.surface_form for a in longest_matches("New York Times", [(0, 8, "NY", 1.0), (0, 14, "NYT", 1.0)])]
    ['New York Times']
    """
    if not candidates:
        return []
    if len(candidates) > 1:
        candidates = sorted(candidates, key=lambda c: (c[0] - c[1], c[0]))
    taken = bytearray(len(text))  # characters already covered by a kept match
    out = []
    for s, e, iri, w in candidates:
        if taken.find(1, s, e) != -1:
            continue
        taken[s:e] = b"\x01" * (e - s)
        out.append(Annotation(uri=iri, surface_form=text[s:e], offset=s, score=w))
    out.sort(key=lambda a: a.offset)
    return out


class LexiconAnnotator(AnnotatorBase):
    """Annotate texts with entities by longest dictionary match of their labels.

    Parameters
    ----------
    surface_forms : mapping of IRI -> iterable of str
        The names of each entity (labels, redirect labels, aliases).
    prior : mapping of IRI -> float, optional
        Popularity used to resolve a surface form shared by several entities (e.g. Spotlight's
        support or in-link counts). Default: each entity's number of surface forms.
    min_length : int
        Ignore surface forms shorter than this.

    Attributes
    ----------
    n_surface_forms : int
    ambiguous : int
        Surface forms that named more than one entity (resolved by the prior).

    Examples
    --------
    >>> lex = LexiconAnnotator(
    ...     {"http://x/Chelsea_F.C.": ["Chelsea F.C.", "Chelsea"], "http://x/Chelsea,_London": ["Chelsea"]},
    ...     prior={"http://x/Chelsea_F.C.": 10, "http://x/Chelsea,_London": 3})
    >>> [a.uri for a in lex.annotate_one("fans going to chelsea by boat")]
    ['http://x/Chelsea_F.C.']
    """

    # ---------------------------------------------------------------- opened by name (kg.rdf.annotators.ANNOTATORS)
    requires = ("dump",)
    reads_dump = True

    @classmethod
    def needs_hint(cls, need: str) -> str:
        return " (files with rdfs:label and redirects)"

    @classmethod
    def key(cls, settings) -> dict:
        out = {"spotlight_url": None, "dump": [list(f) for f in settings.dump_files]}
        vocab = vocabulary_key(settings.vocabulary)
        if vocab is not None:
            out["vocabulary"] = vocab
        return out

    @classmethod
    def open(cls, settings):
        """The lexicon of the dump index (read once into it) when the route has a cache folder, else built from
        the dump in memory."""
        access = settings.access
        if access.cache_dir is not None:
            from kg.rdf.index.dumpindex import index_for_cache

            return index_for_cache(access.cache_dir).lexicon(settings.dump, vocabulary=settings.vocabulary or DBPEDIA,
                                                             skip_bad_lines=access.skip_bad_lines,
                                                             progress=ingest_progress(access.progress))
        return cls.from_dump(settings.dump, vocabulary=settings.vocabulary, skip_bad_lines=access.skip_bad_lines)


    def __init__(
        self,
        surface_forms: Mapping[str, Iterable[str]],
        *,
        prior: Mapping[str, float] | None = None,
        min_length: int = 2,
    ):
        self._set_table(form_table(surface_forms, prior=prior, min_length=min_length))

    def _set_table(self, table: FormTable) -> None:
        stats = table.stats
        self.prior_source, self.ambiguous = stats["prior_source"], stats["ambiguous"]
        self.n_entities, self.n_surface_forms = stats["n_entities"], stats["n_surface_forms"]
        automaton = ahocorasick.Automaton()
        for key, (iri, w) in table.as_dict().items():
            automaton.add_word(key, (len(key), iri, w))
        if len(table.keys):
            automaton.make_automaton()
        self._automaton = automaton if len(table.keys) else None

    def __repr__(self) -> str:
        return (f"LexiconAnnotator(n_surface_forms={self.n_surface_forms}, n_entities={self.n_entities}, "
                f"ambiguous={self.ambiguous})")

    @classmethod
    def from_dump(
        cls,
        paths,
        *,
        vocabulary=None,
        lang: str | None = "en",
        redirects: bool = True,
        prior: Mapping[str, float] | str = "auto",
        min_length: int = 2,
        namespaces: Sequence[str] | None = None,
        skip_bad_lines: bool = False,
    ) -> LexiconAnnotator:
        """Build the annotator from the label and redirect triples of dumps (``rdfs:label`` and
        ``dbo:wikiPageRedirects`` for DBpedia; a :class:`~kg.rdf.vocabulary.Vocabulary` says which).

        A redirect page's label (or, without one, its IRI's local name with ``_`` as spaces)
        becomes a surface form of the redirect's target. Categories (``Category:``; a
        vocabulary's ``not_entities``) are skipped.

        ``prior="auto"`` uses in-link counts (``dbo:wikiPageWikiLink`` triples pointing at an
        entity or at one of its redirects; a vocabulary's ``prior_links``) when the dump has them,
        else each entity's number of surface forms; ``"surface-forms"`` forces the latter; a
        mapping is used as given. With a ``vocabulary``, its language replaces ``lang``.
        """
        from kg.rdf.sources.dump import read_lexicon_entries

        labels, redirect_map, inlinks = read_lexicon_entries(
            paths, vocabulary=vocabulary, lang=lang, namespaces=namespaces, skip_bad_lines=skip_bad_lines
        )
        pairs = [(s, name) for s, names in labels.items() for name in sorted(names)]
        table = dump_form_table(([s for s, _ in pairs], [n for _, n in pairs]),
                                (list(redirect_map), list(redirect_map.values())),
                                (list(inlinks), list(inlinks.values())), redirects=redirects, prior=prior,
                                min_length=min_length, keep_keys=True,
                                not_entities=(vocabulary or DBPEDIA).not_entities)
        log.info("lexicon: %d entities from %s", table.stats["n_entities"], paths)
        lex = cls.__new__(cls)
        lex._set_table(table)
        return lex

    def annotate_one(self, text: str) -> list[Annotation]:
        """The mentions in one text, in text order."""
        if self._automaton is None or not text:
            return []
        low = fold(text)
        n = len(low)
        cands = []
        for end, (length, iri, w) in self._automaton.iter(low):
            start = end - length + 1
            # word boundaries: no word character on both sides of either edge
            if start > 0:
                a, b = low[start - 1], low[start]
                if is_word_char(a) and is_word_char(b):
                    continue
            if end + 1 < n:
                a, b = low[end], low[end + 1]
                if is_word_char(a) and is_word_char(b):
                    continue
            cands.append((start, end + 1, iri, w))
        return longest_matches(text, cands)

    def annotate(self, texts: Sequence[str]) -> list[list[Annotation]]:
        """The mentions in each text (one list per text)."""
        return [self.annotate_one(t) for t in texts]
