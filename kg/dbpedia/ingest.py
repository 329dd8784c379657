"""One pass over one dump file into a *segment* of the dump index (see :mod:`kg.dbpedia.index`).

A segment holds what the DBpedia route asks of a file, in the forms of :mod:`kg.dbpedia.columns`:

- ``types`` and ``categories``: for each subject IRI (by its hashed key) the ``rdf:type``
  (``dct:subject``) objects, as runs ``[start, stop)`` into an array of term ids. DBpedia's
  files list a subject's triples together, so a subject is usually one run; a subject seen in
  several places of a file has several runs, and a lookup reads them all;
- ``subclass`` and ``broader``: the ``rdfs:subClassOf`` / ``skos:broader`` edges as pairs of
  term ids, sorted by child;
- ``terms``: every IRI these point at (classes, categories), a string column and a key table;
- the lexicon's raw material: ``rdfs:label`` literals (English or untagged) and
  ``dbo:wikiPageRedirects`` of resources (``http://dbpedia.org/resource/``), in-link counts of
  ``dbo:wikiPageWikiLink`` (string columns; :mod:`kg.dbpedia.lexindex` builds the lexicon);
- ``segment.json``: the file's name, size and sha256, triple counts and the malformed lines
  skipped (with ``skip_bad_lines``).

Memory grows with the terms and the number of subject runs, not with the file: facts, labels and
redirects go to disk as they come. Types are kept whatever their namespace (the namespaces are
chosen per query), and every term is kept: the index answers what the file says.

Examples
--------
>>> import tempfile, pathlib, json
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "t.nt").write_text(
...     "<http://dbpedia.org/resource/Kobe> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
...     "<http://dbpedia.org/ontology/BasketballPlayer> .\\n")
>>> info = build_segment(d / "t.nt", d / "seg")
>>> info["triples"], info["counts"]["types"], len(info["sha256"])
(1, 1, 64)
"""

from __future__ import annotations

import json
import time
from array import array
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyoxigraph as ox

from kg.dbpedia.columns import StringColumnWriter, hash_keys, save_array, write_key_table
from kg.dbpedia.dumps import DumpReader
from kg.dbpedia.sources import (
    DBO_REDIRECTS,
    DBO_WIKILINK,
    DCT_SUBJECT,
    RDF_TYPE,
    RDFS_LABEL,
    RDFS_SUBCLASSOF,
    SKOS_BROADER,
)

__all__ = ["FORMAT", "LEXICON_LANG", "LEXICON_NAMESPACE", "build_segment"]

#: The version of the segment layout (part of a segment's folder name).
FORMAT = 1
#: The label language the lexicon keeps (untagged labels too) and the namespace of its resources.
LEXICON_LANG = "en"
LEXICON_NAMESPACE = "http://dbpedia.org/resource/"

_TYPES, _CATS, _SUB, _BROAD, _LABEL, _REDIR, _LINK = range(7)
_PREDICATES = {RDF_TYPE: _TYPES, DCT_SUBJECT: _CATS, RDFS_SUBCLASSOF: _SUB, SKOS_BROADER: _BROAD,
               RDFS_LABEL: _LABEL, DBO_REDIRECTS: _REDIR, DBO_WIKILINK: _LINK}
_HASH_BATCH = 1 << 16
_PROGRESS_EVERY = 1 << 16  # triples between two progress reports


class _Runs:
    """Facts of one predicate: subject runs (hashed in batches) and the term id of every fact."""

    def __init__(self) -> None:
        self.terms = array("I")
        self.starts = array("q")
        self.keys: list[np.ndarray] = []
        self.pending: list[str] = []
        self.current: str | None = None

    def new_run(self, subject: str) -> None:
        self.current = subject
        self.starts.append(len(self.terms))
        self.pending.append(subject)
        if len(self.pending) >= _HASH_BATCH:
            self.keys.append(hash_keys(self.pending))
            self.pending = []

    def write(self, folder: Path, name: str) -> int:
        if self.pending:
            self.keys.append(hash_keys(self.pending))
        keys = np.concatenate(self.keys) if self.keys else np.zeros((0, 2), np.uint64)
        starts = np.frombuffer(self.starts, dtype=np.int64)
        stops = np.append(starts[1:], len(self.terms)).astype(np.int64)
        write_key_table(folder, name, keys, {"start": starts, "stop": stops})
        save_array(folder / f"{name}.terms.npy", np.frombuffer(self.terms, dtype=np.uint32))
        return len(self.terms)


class _Segment:
    """What one file contributes, gathered while it is parsed."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.term_ids: dict[str, int] = {}
        self.terms = StringColumnWriter(folder, "terms")
        self.runs = {_TYPES: _Runs(), _CATS: _Runs()}
        self.edges = {_SUB: (array("I"), array("I")), _BROAD: (array("I"), array("I"))}
        self.columns = {name: StringColumnWriter(folder, name) for name in
                        ("labels.subject", "labels.text", "redirects.source", "redirects.target")}
        self.inlinks: dict[str, int] = {}

    def term(self, iri: str) -> int:
        t = self.term_ids.get(iri)
        if t is None:
            t = self.term_ids[iri] = len(self.term_ids)
            self.terms.add(iri)
        return t

    def scan(self, reader: DumpReader, tick: Callable[[], None]) -> int:
        """The hot loop: one dictionary look-up per triple, the rest only for the predicates kept."""
        named, literal = ox.NamedNode, ox.Literal
        get, term, runs, edges = _PREDICATES.get, self.term, self.runs, self.edges
        lab_s, lab_t = self.columns["labels.subject"].add, self.columns["labels.text"].add
        red_s, red_t = self.columns["redirects.source"].add, self.columns["redirects.target"].add
        inlinks, ns, langs = self.inlinks, LEXICON_NAMESPACE, (LEXICON_LANG, None)
        n = 0
        for s, p, o, _g in reader:
            n += 1
            if not n & (_PROGRESS_EVERY - 1):
                tick()
            k = get(p.value)
            if k is None or type(s) is not named:
                continue
            if k <= _CATS:
                if type(o) is named:
                    r, sv = runs[k], s.value
                    if sv != r.current:
                        r.new_run(sv)
                    r.terms.append(term(o.value))
            elif k <= _BROAD:
                if type(o) is named:
                    child, parent = edges[k]
                    child.append(term(s.value))
                    parent.append(term(o.value))
            elif k == _LABEL:
                if type(o) is literal and o.language in langs:
                    sv = s.value
                    if sv.startswith(ns):
                        lab_s(sv)
                        lab_t(o.value)
            elif type(o) is named:
                if k == _REDIR:
                    sv = s.value
                    if sv.startswith(ns):
                        red_s(sv)
                        red_t(o.value)
                else:
                    ov = o.value
                    if ov.startswith(ns):
                        inlinks[ov] = inlinks.get(ov, 0) + 1
        return n

    def write(self) -> dict:
        counts = {"types": self.runs[_TYPES].write(self.folder, "types"),
                  "categories": self.runs[_CATS].write(self.folder, "categories")}
        for k, name in ((_SUB, "subclass"), (_BROAD, "broader")):
            child, parent = (np.frombuffer(a, dtype=np.uint32) for a in self.edges[k])
            order = np.lexsort((parent, child))
            save_array(self.folder / f"{name}.child.npy", child[order])
            save_array(self.folder / f"{name}.parent.npy", parent[order])
            counts[name] = len(child)
        self.terms.close()
        iris = list(self.term_ids)
        write_key_table(self.folder, "terms", hash_keys(iris), {"id": np.arange(len(iris), dtype=np.uint32)})
        for name, col in self.columns.items():
            counts[name.split(".")[0]] = col.close()
        links = StringColumnWriter(self.folder, "inlinks.iri")
        for iri in self.inlinks:
            links.add(iri)
        links.close()
        save_array(self.folder / "inlinks.count.npy", np.fromiter(self.inlinks.values(), np.int64, len(self.inlinks)))
        counts.update(terms=len(iris), inlinks=len(self.inlinks))
        return counts


def build_segment(path, folder, *, skip_bad_lines: bool = False,
                  progress: Callable[[int], None] | None = None) -> dict:
    """Parse one dump file once and write its segment into ``folder`` (created; must not exist).

    Parameters
    ----------
    path : path
        A dump file (see :func:`kg.dbpedia.dumps.dump_files`).
    folder : path
        Where the segment is written.
    skip_bad_lines : bool
        Skip malformed N-Triples lines (recorded in the segment) instead of failing.
    progress : callable, optional
        ``progress(bytes_read)`` every 65,536 triples and at the end (bytes of the file as on disk).

    Returns
    -------
    dict
        The segment's record (also written as ``segment.json``), with the ``sha256`` of the
        file's bytes (hashed while they are parsed: the file is read once).

    Raises
    ------
    InputFormatError
        A malformed statement (without ``skip_bad_lines``), naming the file and line.

    Examples
    --------
    See the module.
    """
    path, folder = Path(path), Path(folder)
    folder.mkdir(parents=True)
    t0 = time.perf_counter()
    reader = DumpReader(path, skip_bad_lines=skip_bad_lines)
    seg = _Segment(folder)
    n = seg.scan(reader, (lambda: progress(reader.bytes_read)) if progress else (lambda: None))
    counts = seg.write()
    if progress is not None:
        progress(reader.size)
    info = {"format": FORMAT, "name": path.name, "size": reader.size, "sha256": reader.sha256, "triples": n,
            "counts": counts, "n_bad_lines": len(reader.bad_lines),
            "bad_lines": [list(b) for b in reader.bad_lines[:100]], "seconds": round(time.perf_counter() - t0, 3)}
    (folder / "segment.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    return info
