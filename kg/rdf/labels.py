"""Names of features (types, categories, the objects of relations) from the dump: their ``rdfs:label`` (or
``skos:prefLabel``).

A table of the RDF route names its features by IRI; the dump holds their labels. This module finds them for the
features of a run (:meth:`kg.rdf.route.CorpusInput.feature_names`), reading the dump index without changing it:

1. a file whose segment keeps its names (:mod:`kg.rdf.index.ingest`: every labelled IRI's best label, by key) is
   answered by a ``searchsorted`` per segment (:meth:`kg.rdf.index.segment.Segment.names`): no dump file is
   opened and no column is scanned, whatever the dump's size; among the files, the best rank wins (``rdfs:label``
   before ``skos:prefLabel`` before aliases, the vocabulary's language before untagged), then the first file;
2. a file ingested by a kgfs that kept no names, or not ingested at all, is read as it used to be: the labels its
   segment keeps (``rdfs:label`` of the ``entities`` namespaces; a segment with more than
   :data:`INDEX_SCAN_LIMIT` of them is left out), then, for the IRIs still unnamed, the files that describe classes
   or categories (their segment has ``rdfs:subClassOf`` or ``skos:broader`` edges; without an index, every file),
   at most :data:`FILE_SCAN_LIMIT` bytes each, streamed once. ``kgfs ingest`` again (after ``kgfs cache clear``)
   gives such a file its names.

English (the vocabulary's language) or untagged labels are used. An IRI without a label is left out of the
result: the report shows its id.

:mod:`kg.rdf.naming` names features of every kind (relations, paths) from these labels of their parts.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "o.nt").write_text(
...     '<http://dbpedia.org/ontology/Athlete> <http://www.w3.org/2000/01/rdf-schema#label> "athlete"@en .\\n'
...     '<http://dbpedia.org/ontology/Athlete> <http://www.w3.org/2000/01/rdf-schema#label> "Sportler"@de .\\n'
...     '<http://dbpedia.org/ontology/Athlete> <http://www.w3.org/2000/01/rdf-schema#subClassOf> '
...     '<http://dbpedia.org/ontology/Person> .\\n')
>>> dump_labels(["http://dbpedia.org/ontology/Athlete", "http://dbpedia.org/ontology/Person"], [d])
{'http://dbpedia.org/ontology/Athlete': 'athlete'}
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from kg.rdf.vocabulary import DBPEDIA

__all__ = ["FILE_SCAN_LIMIT", "INDEX_SCAN_LIMIT", "LABEL_PREDICATES", "dump_labels"]

log = logging.getLogger(__name__)

#: Dump files larger than this (bytes on disk) are not streamed for labels.
FILE_SCAN_LIMIT = 64 << 20
#: Segments of the index with more labels than this are not scanned (they name entities, not features).
INDEX_SCAN_LIMIT = 5_000_000
#: The predicates read as a feature's name, in order of preference.
LABEL_PREDICATES = ("http://www.w3.org/2000/01/rdf-schema#label", "http://www.w3.org/2004/02/skos/core#prefLabel")


def _from_names(wanted: set[str], files: Sequence[Path], index, vocabulary) -> tuple[dict[str, str], list[Path]]:
    """Names of ``wanted`` from the segments that keep them (the best rank, then the first file); and the files
    whose segment keeps none (not ingested, or by an earlier kgfs)."""
    from kg.rdf.index.columns import hash_keys

    order = sorted(wanted)
    keys = None
    best: dict[int, tuple[int, int, str]] = {}
    older: list[Path] = []
    for i, f in enumerate(files):
        seg = index.known_segment(f, vocabulary)
        if seg is None or not seg.has_names:
            older.append(f)
            continue
        keys = hash_keys(order) if keys is None else keys
        query, rank, texts = seg.names(keys)
        for q, r, text in zip(query.tolist(), rank.tolist(), texts, strict=True):
            if q not in best or (r, i) < best[q][:2]:
                best[q] = (r, i, text)
    return {order[q]: text for q, (_r, _i, text) in best.items()}, older


def _from_index(wanted: set[str], files: Sequence[Path], index, vocabulary) -> tuple[dict[str, str], list[Path]]:
    """Labels of ``wanted`` kept by the index's segments; and the files that describe classes or categories."""
    from kg.rdf.index.columns import StringColumn

    found: dict[str, str] = {}
    describe: list[Path] = []
    for f in files:
        seg = index.known_segment(f, vocabulary)  # the labels it keeps: the vocabulary's, in its language
        if seg is None:
            describe.append(f)  # not ingested: its labels are only in the file
            continue
        if seg.has("subclass") or seg.has("broader"):
            describe.append(f)
        n = int(seg.info["counts"].get("labels", 0))
        if not n or n > INDEX_SCAN_LIMIT:
            continue
        subjects = StringColumn(seg.folder, "labels.subject", seg.checks)  # the segment's checks: verified as read
        rows = [i for i, s in enumerate(subjects) if s in wanted and s not in found]
        for s, text in zip(subjects.take(rows), StringColumn(seg.folder, "labels.text", seg.checks).take(rows)):
            found.setdefault(s, text)
    return found, describe


def _from_files(wanted: set[str], files: Iterable[Path], predicates: Sequence[str] = LABEL_PREDICATES,
                language: str | None = "en") -> dict[str, str]:
    """Labels (``predicates``, in order of preference) of ``wanted`` in small dump files (``language`` first, then
    untagged)."""
    import pyoxigraph as ox

    from kg.rdf.dumpfiles import DumpReader

    rank = {p: i for i, p in enumerate(predicates)}
    best: dict[str, tuple[tuple[int, int], str]] = {}
    for f in files:
        if f.stat().st_size > FILE_SCAN_LIMIT:
            continue
        try:
            for s, p, o, _g in DumpReader(f, skip_bad_lines=True):
                r = rank.get(p.value)
                if r is None or type(o) is not ox.Literal or s.value not in wanted:
                    continue
                lang = o.language
                if lang not in (language, None):
                    continue
                key = (r, 0 if lang == language else 1)
                if s.value not in best or key < best[s.value][0]:
                    best[s.value] = (key, o.value)
        except (OSError, SyntaxError, ValueError) as exc:  # a file that cannot be read names nothing
            log.debug("no labels from %s: %s", f, exc)
    return {s: v for s, (_k, v) in best.items()}


def dump_labels(iris: Iterable[str], dump: Sequence[str | os.PathLike], *, cache_dir=None,
                vocabulary=None, index=None) -> dict[str, str]:
    """The labels of ``iris`` found in the dump files (see the module): IRI -> label, unnamed IRIs left out.

    Parameters
    ----------
    iris : iterable of str
        The features' IRIs.
    dump : sequence of path
        The dump's files and folders (as ``--dump`` gives them).
    cache_dir : path, optional
        The route's cache folder (``<kgfs home>/rdf-cache``): its dump index is read, never written.
    vocabulary : kg.rdf.vocabulary.Vocabulary, optional
        The graph's (DBpedia's by default): the segments read with it, its label predicates and language.
    index : kg.rdf.index.dumpindex.DumpIndex, optional
        The dump index to read instead of ``cache_dir``'s (an :class:`~kg.rdf.sources.index.IndexSource`'s).

    Returns
    -------
    dict of str -> str

    Examples
    --------
    See the module.
    """
    from kg.rdf.dumpfiles import dump_files

    vocabulary = vocabulary or DBPEDIA
    wanted = {str(i) for i in iris}
    if not wanted or not dump:
        return {}
    files = [Path(f) for f in dump_files(list(dump))]
    found: dict[str, str] = {}
    describe = files
    if index is None and cache_dir is not None and (Path(cache_dir) / "index").is_dir():
        from kg.rdf.index.dumpindex import index_for_cache

        index = index_for_cache(cache_dir)
    if index is not None:
        found, older = _from_names(wanted, files, index, vocabulary)
        describe = []
        if older and wanted - found.keys():
            more, describe = _from_index(wanted - found.keys(), older, index, vocabulary)
            found.update(more)
    rest = wanted - found.keys()
    if rest and describe:
        predicates = tuple(dict.fromkeys([*vocabulary.labels, *LABEL_PREDICATES]))
        found.update(_from_files(rest, describe, predicates, vocabulary.language or "en"))
    return found

