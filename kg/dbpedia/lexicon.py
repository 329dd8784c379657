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
import re
from collections.abc import Iterable, Mapping, Sequence

import ahocorasick

from kg.dbpedia.sources import Annotation

__all__ = ["LexiconAnnotator"]

log = logging.getLogger(__name__)

_WS = re.compile(r"\s")


def _fold(text: str) -> str:
    """Lower-case and whitespace-to-space, keeping the length (and so every offset)."""
    low = text.lower()
    if len(low) != len(text):
        low = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    return _WS.sub(" ", low)


class LexiconAnnotator:
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

    def __init__(
        self,
        surface_forms: Mapping[str, Iterable[str]],
        *,
        prior: Mapping[str, float] | None = None,
        min_length: int = 2,
    ):
        forms: dict[str, set[str]] = {}
        counts: dict[str, int] = {}
        for iri, names in surface_forms.items():
            for name in names:
                key = " ".join(_fold(str(name)).split())
                if len(key) < min_length or not any(c.isalpha() for c in key):
                    continue
                if iri not in forms.setdefault(key, set()):
                    forms[key].add(iri)
                    counts[iri] = counts.get(iri, 0) + 1
        self.prior_source = "given" if prior is not None else "surface-form count"
        weight = prior if prior is not None else counts
        self.ambiguous = 0
        automaton = ahocorasick.Automaton()
        for key, iris in forms.items():
            if len(iris) > 1:
                self.ambiguous += 1
            best = min(iris, key=lambda i: (-float(weight.get(i, 0)), i))
            automaton.add_word(key, (len(key), best, float(weight.get(best, 0))))
        self.n_surface_forms = len(forms)
        self.n_entities = len(counts)
        if forms:
            automaton.make_automaton()
        self._automaton = automaton if forms else None

    def __repr__(self) -> str:
        return (f"LexiconAnnotator(n_surface_forms={self.n_surface_forms}, n_entities={self.n_entities}, "
                f"ambiguous={self.ambiguous})")

    @classmethod
    def from_dump(
        cls,
        paths,
        *,
        lang: str | None = "en",
        redirects: bool = True,
        prior: Mapping[str, float] | str = "auto",
        min_length: int = 2,
        namespaces: Sequence[str] = ("http://dbpedia.org/resource/",),
        skip_bad_lines: bool = False,
    ) -> "LexiconAnnotator":
        """Build the annotator from the ``rdfs:label`` and ``dbo:wikiPageRedirects`` triples of dumps.

        A redirect page's label (or, without one, its IRI's local name with ``_`` as spaces)
        becomes a surface form of the redirect's target. Categories (``Category:``) are skipped.

        ``prior="auto"`` uses in-link counts (``dbo:wikiPageWikiLink`` triples pointing at an
        entity or at one of its redirects) when the dump has them, else each entity's number of
        surface forms; ``"surface-forms"`` forces the latter; a mapping is used as given.
        """
        from urllib.parse import unquote

        from kg.dbpedia.dumps import read_lexicon_entries

        labels, redirect_map, inlinks = read_lexicon_entries(
            paths, lang=lang, namespaces=namespaces, skip_bad_lines=skip_bad_lines
        )
        forms: dict[str, set[str]] = {}
        for iri, names in labels.items():
            if iri in redirect_map or "/Category:" in iri:
                continue  # a redirect page is not an entity; its label names the target
            forms.setdefault(iri, set()).update(names)
        if redirects:
            for red, target in redirect_map.items():
                names = labels.get(red) or {unquote(red.rsplit("/", 1)[-1]).replace("_", " ")}
                forms.setdefault(target, set()).update(names)
        if isinstance(prior, str):
            if prior not in ("auto", "surface-forms"):
                raise ValueError(f"prior must be 'auto', 'surface-forms' or a mapping, got {prior!r}")
            weights = None
            if prior == "auto" and inlinks:
                weights = {}
                for iri, n in inlinks.items():
                    target = redirect_map.get(iri, iri)  # a link to a redirect counts for its target
                    weights[target] = weights.get(target, 0) + n
            prior = weights
        log.info("lexicon: %d entities from %s", len(forms), paths)
        return cls(forms, prior=prior, min_length=min_length)

    def annotate_one(self, text: str) -> list[Annotation]:
        """The mentions in one text, in text order."""
        if self._automaton is None or not text:
            return []
        low = _fold(text)
        n = len(low)
        cands = []
        for end, (length, iri, w) in self._automaton.iter(low):
            start = end - length + 1
            # word boundaries: no word character on both sides of either edge
            if start > 0:
                a, b = low[start - 1], low[start]
                if (a.isalnum() or a == "_") and (b.isalnum() or b == "_"):
                    continue
            if end + 1 < n:
                a, b = low[end], low[end + 1]
                if (a.isalnum() or a == "_") and (b.isalnum() or b == "_"):
                    continue
            cands.append((start, end + 1, iri, w))
        if not cands:
            return []
        if len(cands) > 1:
            cands.sort(key=lambda c: (c[0] - c[1], c[0]))  # longest first, then leftmost
        taken = bytearray(n)  # characters already covered by a kept match
        out = []
        for s, e, iri, w in cands:
            if taken.find(1, s, e) != -1:
                continue
            taken[s:e] = b"\x01" * (e - s)
            out.append(Annotation(uri=iri, surface_form=text[s:e], offset=s, score=w))
        out.sort(key=lambda a: a.offset)
        return out

    def annotate(self, texts: Sequence[str]) -> list[list[Annotation]]:
        """The mentions in each text (one list per text)."""
        return [self.annotate_one(t) for t in texts]
