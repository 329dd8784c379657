"""One pass over one dump file into a *segment* of the dump index (the layout: :mod:`kg.rdf.index.dumpindex`).

A segment holds what a :class:`~kg.rdf.vocabulary.Vocabulary` asks of a file:

- its *fact tables*, one per role of the vocabulary (``types``, ``categories``, ``subclass``,
  ``broader``, ``same_as``, ``equivalent_class``; ``subproperty`` for a vocabulary that indexes
  relations): every ``subject predicate object`` triple of the role's predicates whose object is
  an IRI, as the subject's 128-bit key and the object's term id, sorted by subject key;
- for a vocabulary that indexes relations (:meth:`~kg.rdf.vocabulary.Vocabulary.with_relations`),
  its *relation tables*: every triple whose predicate is a relation
  (:meth:`~kg.rdf.vocabulary.Vocabulary.is_relation`) and whose subject and object are IRIs,
  twice: ``relations_out`` by the subject's key (the object's and the predicate's term ids) and
  ``relations_in`` by the object's key (the subject's and the predicate's term ids);
- the *terms*: every object IRI of those facts (and every subject and predicate of a relation),
  by key, with its string;
- the lexicon's raw material: labels (in the vocabulary's language, or untagged) and redirects
  of the resources under its ``entities`` namespaces (string columns, in file order), and the
  in-link counts of its ``prior_links`` predicates (keys and counts);
- the *names*: the best label of every IRI the file labels, by key (``names.keys.npy``, sorted; the
  row of its text and its rank), so that a feature's name is a ``searchsorted`` away, whatever the
  dump's size (:func:`kg.rdf.labels.dump_labels`): the labels above and those of other IRIs (an
  ontology's classes; ``rdfs:label`` and ``skos:prefLabel``, the latter for IRIs outside the
  ``entities`` namespaces or under ``not_entities``, such as DBpedia's categories; ``names.text``).
  The rank prefers ``rdfs:label``, then ``skos:prefLabel``, then the vocabulary's other label
  predicates (aliases), and the vocabulary's language before untagged; the first in the file among
  equals;
- the strongly connected components of the ``subclass``, ``broader`` (and ``subproperty``) graphs
  of the file (their cycles), listed one per line.

Memory does not grow with the file: facts are hashed and gathered in bounded blocks, spilled as
sorted runs (:mod:`kg.rdf.index.extsort`) and merged into the tables at the end; labels and redirects
go to disk as they come; the strings of terms are written once each (a bounded cache of the
recent ones; the term table keeps the first copy of a repeated one). With a vocabulary that skips
unused lines (Wikidata's), the lines of other predicates are not parsed at all
(:mod:`kg.rdf.index.linefilter`; a relation's line only when its object is an IRI).

The scan costs one dictionary look-up per triple: relation predicates are recognised by their
namespace, once per distinct predicate, and the decision is kept in the same dictionary.

Types are kept whatever their namespace (the namespaces are chosen per query), and every term is
kept: the index answers what the file says.

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

import contextlib
import itertools
import json
import shutil
import time
from array import array
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyoxigraph as ox

from kg.errors import KgfsError
from kg.rdf.dumpfiles import DumpReader
from kg.rdf.index.columns import StringColumn, StringColumnWriter, find_sorted, hash_keys, load_array, save_array
from kg.rdf.index.extsort import NpyWriter, SortedRuns, SpillPool, write_pair_array
from kg.rdf.index.linefilter import LineFilter
from kg.rdf.index.manifest import write_manifest
from kg.rdf.vocabulary import DBPEDIA, RDFS, SKOS, Vocabulary
from kg.sparse import distinct
from kg.store.keys import code_digest

__all__ = ["FACT_ROLES", "FORMAT", "GRAPH_ROLES", "RELATION_TABLES", "build_segment", "build_segment_folder",
           "line_filter"]

#: The version of the segment layout (part of a segment's folder name).
FORMAT = 3  # 3: every in-link counted (format 2 counted the first 65,536 links of a file: a wrong prior)
#: The fact tables of a segment, and those that are graphs (whose cycles are listed). ``subproperty`` is
#: written only by a vocabulary that indexes relations (its segments have their own fingerprint).
FACT_ROLES = ("types", "categories", "subclass", "broader", "same_as", "equivalent_class", "subproperty")
GRAPH_ROLES = ("subclass", "broader", "subproperty")
#: The relation tables (a vocabulary that indexes relations): the table -> the term columns of each row.
RELATION_TABLES = {"relations_out": ("objects", "predicates"), "relations_in": ("subjects", "predicates")}

_BATCH = 1 << 16  # facts hashed at a time
_PROGRESS_EVERY = 1 << 16  # triples between two progress reports
_RECENT = 1 << 16  # object IRIs whose key is cached (the cache is emptied when full: a bounded memory)
_LABEL, _REDIR, _LINK, _NAME = "label", "redirect", "link", "name"
#: The predicates that name an IRI, best first (then the vocabulary's other label predicates: aliases).
NAME_PREDICATES = (RDFS + "label", SKOS + "prefLabel")
_ROW_BITS = 40  # a name's sort order: its rank above the row (rows < 2**40)
_REL = ("relation",)  # the action of a relation predicate (compared by identity)
_MAX_DECIDED = 1 << 20  # distinct predicates whose decision is kept (a bounded memory on any dump)


class _Facts:
    """The facts of one role as they come: subject and object strings (appended by the scan), hashed and sorted
    in batches."""

    def __init__(self, role: str, runs: SortedRuns, terms: _Terms):
        self.role, self.runs, self.terms = role, runs, terms
        self.subjects: list[str] = []
        self.objects: list[str] = []
        self.n = 0

    def flush(self, at_least: int = 1) -> None:
        """Hash and hand the gathered facts to the runs (when there are ``at_least`` of them)."""
        if not self.subjects or len(self.subjects) < at_least:
            return
        sk = _subject_keys(self.subjects)
        ok = self.terms.keys(self.objects)
        self.runs.add(s_hi=sk[:, 0], s_lo=sk[:, 1], o_hi=ok[:, 0], o_lo=ok[:, 1])
        self.n += len(self.subjects)
        self.subjects.clear()  # in place: the scan appends through these lists' bound methods
        self.objects.clear()


def _subject_keys(subjects: list[str]) -> np.ndarray:
    """Keys of subjects, hashing each run of equal consecutive subjects once (dumps group a subject's lines)."""
    arr = np.empty(len(subjects), dtype=object)
    arr[:] = subjects
    starts = np.flatnonzero(np.r_[True, arr[1:] != arr[:-1]])
    keys = hash_keys(arr[starts].tolist())
    if len(starts) == len(subjects):
        return keys
    return np.repeat(keys, np.diff(np.append(starts, len(subjects))), axis=0)


class _Relations:
    """The relation triples as they come (three lists appended by the scan), hashed and sorted twice in batches:
    by subject (``relations_out``) and by object (``relations_in``)."""

    def __init__(self, tmp: Path, pool: SpillPool, terms: _Terms):
        self.terms = terms
        self.out = SortedRuns(tmp, "relations_out", ("s_hi", "s_lo"), pool=pool)
        self.inn = SortedRuns(tmp, "relations_in", ("s_hi", "s_lo"), pool=pool)
        self.subjects: list[str] = []
        self.predicates: list[str] = []
        self.objects: list[str] = []

    def flush(self, at_least: int = 1) -> None:
        """Hash the gathered triples (each end and predicate a term) and hand them to both runs."""
        if not self.subjects or len(self.subjects) < at_least:
            return
        sk, pk, ok = (self.terms.keys(x) for x in (self.subjects, self.predicates, self.objects))
        self.out.add(s_hi=sk[:, 0], s_lo=sk[:, 1], o_hi=ok[:, 0], o_lo=ok[:, 1], p_hi=pk[:, 0], p_lo=pk[:, 1])
        self.inn.add(s_hi=ok[:, 0], s_lo=ok[:, 1], o_hi=sk[:, 0], o_lo=sk[:, 1], p_hi=pk[:, 0], p_lo=pk[:, 1])
        for x in (self.subjects, self.predicates, self.objects):
            x.clear()  # in place: the scan appends through these lists' bound methods


class _Terms:
    """Object IRIs: each string written once per epoch of the recent-keys cache, its key run-sorted.

    The cache maps a string to its row in ``table`` (the keys of the epoch), so a batch's keys are
    gathered with C-level maps and one fancy index, not a tuple per string.
    """

    def __init__(self, folder: Path, runs: SortedRuns):
        self.column = StringColumnWriter(folder, "terms")
        self.runs = runs
        self.recent: dict[str, int] = {}
        self.table = np.zeros((1 << 16, 2), np.uint64)

    def keys(self, strings: list[str]) -> np.ndarray:
        """The ``(n, 2)`` keys of strings, each string new in this epoch written to the column and the runs."""
        n = len(strings)
        recent = self.recent
        idx = np.fromiter(map(recent.get, strings, itertools.repeat(-1, n)), np.int64, n)
        miss = np.flatnonzero(idx < 0)
        if len(miss):
            missed = [strings[i] for i in miss.tolist()]
            new = list(dict.fromkeys(missed))
            keys = hash_keys(new)
            start = len(recent)
            if start + len(new) > len(self.table):
                grown = np.zeros((max(2 * len(self.table), start + len(new)), 2), np.uint64)
                grown[:start] = self.table[:start]
                self.table = grown
            self.table[start:start + len(new)] = keys
            recent.update(zip(new, range(start, start + len(new))))
            rows = np.arange(len(self.column), len(self.column) + len(new), dtype=np.int64)
            self.column.extend(new)
            self.runs.add(hi=keys[:, 0], lo=keys[:, 1], row=rows)
            idx[miss] = np.fromiter(map(recent.__getitem__, missed), np.int64, len(missed))
        out = self.table[idx]  # a copy: the next epoch may reuse the rows
        if len(recent) > _RECENT:  # a new epoch (between batches: a batch's rows stay valid while it is read)
            self.recent = {}
        return out


class _Ranks:
    """An ``int8`` column appended one value at a time, written in blocks (a bounded memory)."""

    def __init__(self, path: Path):
        self.path, self._out, self._buf = path, NpyWriter(path, np.int8), array("b")

    def add(self, value: int) -> None:
        self._buf.append(value)
        if len(self._buf) >= _BATCH:
            self._flush()

    def _flush(self) -> None:
        self._out.write(np.frombuffer(self._buf, dtype=np.int8))
        self._buf = array("b")

    def close(self) -> None:
        self._flush()
        self._out.close()


class _Builder:
    """What one file contributes, gathered while it is read."""

    def __init__(self, folder: Path, vocabulary: Vocabulary, pool: SpillPool):
        self.folder, self.vocabulary, self.pool = folder, vocabulary, pool
        self.tmp = folder / ".runs"
        self.tmp.mkdir()
        self.terms = _Terms(folder, SortedRuns(self.tmp, "terms", ("hi", "lo", "row"), pool=pool))
        self.facts = {role: _Facts(role, SortedRuns(self.tmp, role, ("s_hi", "s_lo"), pool=pool), self.terms)
                      for role, preds in vocabulary.roles().items() if preds}
        self.actions: dict[str, list] = {}
        for role, preds in vocabulary.roles().items():
            for p in preds:
                f = self.facts[role]
                self.actions.setdefault(p, []).append((f.subjects.append, f.objects.append))
        for kind, preds in ((_LABEL, vocabulary.labels), (_REDIR, vocabulary.redirects),
                            (_LINK, vocabulary.prior_links),
                            (_NAME, [p for p in NAME_PREDICATES if p not in vocabulary.labels])):
            for p in preds:
                self.actions.setdefault(p, []).append(kind)
        names = dict.fromkeys([*NAME_PREDICATES, *vocabulary.labels])
        self.name_rank = {p: 2 * i for i, p in enumerate(names)}  # + 1: not in the vocabulary's language
        self.columns = {name: StringColumnWriter(folder, name) for name in
                        ("labels.subject", "labels.text", "redirects.source", "redirects.target")}
        self.names = (StringColumnWriter(self.tmp, "names.subject"), StringColumnWriter(folder, "names.text"))
        self.ranks = {"labels": _Ranks(self.tmp / "labels.rank.npy"), "names": _Ranks(self.tmp / "names.rank.npy")}
        self.links = SortedRuns(self.tmp, "inlinks", ("hi", "lo"), pool=pool)
        self.link_objects: list[str] = []
        self.relations = _Relations(self.tmp, pool, self.terms) if vocabulary.index_relations else None

    def decide(self, predicate: str) -> list | tuple:
        """The actions of a predicate met for the first time and not of the vocabulary's roles: a relation's
        (by namespace) or none, kept in ``actions`` (while they are not too many)."""
        acts = [_REL] if self.vocabulary.is_relation(predicate) else ()
        if len(self.actions) < _MAX_DECIDED:
            self.actions[predicate] = acts
        return acts

    def scan(self, reader: DumpReader, tick: Callable[[], None]) -> int:
        """The hot loop: one dictionary look-up per triple, the rest only for the predicates kept."""
        named, literal = ox.NamedNode, ox.Literal
        get = self.actions.get
        lab_s, lab_t = self.columns["labels.subject"].add, self.columns["labels.text"].add
        red_s, red_t = self.columns["redirects.source"].add, self.columns["redirects.target"].add
        links = self.link_objects
        ns = tuple(self.vocabulary.entities)
        not_entities = tuple(self.vocabulary.not_entities)
        lab_r, nam_r = self.ranks["labels"].add, self.ranks["names"].add
        nam_s, nam_t = self.names[0].add, self.names[1].add
        rank_of = self.name_rank
        lang = self.vocabulary.language
        langs = (lang, None) if lang is not None else None
        facts: list = list(self.facts.values())
        rel = self.relations
        decide = rel_s = rel_p = rel_o = None
        if rel is not None:
            facts.append(rel)
            decide = self.decide
            rel_s, rel_p, rel_o = rel.subjects.append, rel.predicates.append, rel.objects.append
        n = 0
        for s, p, o, _g in reader:
            n += 1
            if not n & (_PROGRESS_EVERY - 1):
                tick()
                for f in facts:  # a batch of each fact table's rows, hashed
                    f.flush(_BATCH)
            pv = p.value
            acts = get(pv)
            if not acts:
                if acts is not None or decide is None:
                    continue
                acts = decide(pv)  # once per predicate: a relation, or nothing
                if not acts:
                    continue
            if type(s) is not named:
                continue
            for act in acts:
                if act is _REL:
                    if type(o) is named:
                        rel_s(s.value)
                        rel_p(pv)
                        rel_o(o.value)
                elif type(act) is tuple:  # a fact table's two lists
                    if type(o) is named:
                        act[0](s.value)
                        act[1](o.value)
                elif act == _LABEL:
                    if type(o) is literal and (langs is None or o.language in langs):
                        sv = s.value
                        if sv.startswith(ns):
                            lab_s(sv)
                            lab_t(o.value)
                            lab_r(rank_of[pv] + (o.language != lang))
                        else:  # not the lexicon's (an ontology's class): a name only
                            nam_s(sv)
                            nam_t(o.value)
                            nam_r(rank_of[pv] + (o.language != lang))
                elif act == _NAME:
                    if type(o) is literal and (langs is None or o.language in langs):
                        sv = s.value
                        if not sv.startswith(ns) or (not_entities and any(x in sv for x in not_entities)):
                            nam_s(sv)
                            nam_t(o.value)
                            nam_r(rank_of[pv] + (o.language != lang))
                elif type(o) is named:
                    if act == _REDIR:
                        sv = s.value
                        if sv.startswith(ns):
                            red_s(sv)
                            red_t(o.value)
                    else:
                        ov = o.value
                        if ov.startswith(ns):
                            links.append(ov)
                            if len(links) >= _BATCH:
                                self._flush_links()
        return n

    def _flush_links(self) -> None:
        if self.link_objects:
            keys, counts = np.unique(hash_keys(self.link_objects), axis=0, return_counts=True)
            self.links.add(hi=keys[:, 0], lo=keys[:, 1], count=counts.astype(np.int64))
            self.link_objects.clear()  # in place: the scan appends to this list (a new one would never be flushed)

    # ------------------------------------------------------------------ the tables
    def write(self) -> dict:
        for f in self.facts.values():
            f.flush()
        if self.relations is not None:
            self.relations.flush()
        self._flush_links()
        counts = {}
        self.terms.column.close()
        term_hi, term_lo = self._write_terms()
        counts["terms"] = len(term_hi)
        cycles = {}
        roles = self.vocabulary.roles()
        for role in FACT_ROLES:
            if role not in roles:  # (subproperty: only a vocabulary that indexes relations)
                continue
            facts = self.facts.get(role)
            counts[role] = self._write_facts(role, None if facts is None else facts.runs, term_hi, term_lo)
            if role in GRAPH_ROLES and counts[role]:
                cycles[role] = self._write_cycles(role, term_hi, term_lo)
        runs = [self.terms.runs, self.links, *(f.runs for f in self.facts.values())]
        if self.relations is not None:
            for table, runs_of in (("relations_out", self.relations.out), ("relations_in", self.relations.inn)):
                counts[table] = self._write_facts(table, runs_of, term_hi, term_lo,
                                                  tuple(zip(RELATION_TABLES[table], ("o", "p"))))
                runs.append(runs_of)
        for name, col in self.columns.items():
            counts[name.split(".")[0]] = col.close()
        counts["names"] = self._write_names(counts["labels"])
        counts["inlinks"] = self._write_links()
        for r in runs:
            r.close()
        self.tmp.rmdir()
        return {"counts": counts, "cycles": cycles}

    def _write_terms(self) -> tuple[np.ndarray, np.ndarray]:
        """``terms.keys.npy`` (distinct keys, sorted) and ``terms.row.npy`` (the row of each one's string)."""
        his, los, rows = [], [], []
        last = None
        for b in self.terms.runs.merged():
            hi, lo, row = b["hi"], b["lo"], b["row"]
            new = np.ones(len(hi), bool)
            new[1:] = (hi[1:] != hi[:-1]) | (lo[1:] != lo[:-1])
            if last is not None and len(hi) and hi[0] == last[0] and lo[0] == last[1]:
                new[0] = False
            if len(hi):
                last = (hi[-1], lo[-1])
            his.append(hi[new])
            los.append(lo[new])
            rows.append(row[new])
        hi = np.concatenate(his) if his else np.zeros(0, np.uint64)
        lo = np.concatenate(los) if los else np.zeros(0, np.uint64)
        save_array(self.folder / "terms.keys.npy", np.stack([hi, lo]))
        save_array(self.folder / "terms.row.npy", np.concatenate(rows) if rows else np.zeros(0, np.int64))
        return hi, lo

    def _write_facts(self, role: str, runs: SortedRuns | None, term_hi, term_lo,
                     columns: tuple[tuple[str, str], ...] = (("objects", "o"),)) -> int:
        """``<role>.keys.npy`` (the keys ``s_hi``/``s_lo`` of the runs, sorted, one row per fact) and, for each
        ``(name, c)`` of ``columns``, ``<role>.<name>.npy``: the term ids of the keys ``c_hi``/``c_lo``."""
        hi_raw, lo_raw = self.tmp / f"{role}.hi", self.tmp / f"{role}.lo"
        n = 0
        with open(hi_raw, "wb") as fh, open(lo_raw, "wb") as fl, contextlib.ExitStack() as stack:
            writers = [(stack.enter_context(NpyWriter(self.folder / f"{role}.{name}.npy", np.uint32)), c)
                       for name, c in columns]
            for b in ([] if runs is None else runs.merged()):
                for writer, c in writers:
                    q, rows = find_sorted(term_hi, term_lo, np.stack([b[c + "_hi"], b[c + "_lo"]], axis=1))
                    ids = np.empty(len(b["s_hi"]), np.uint32)
                    ids[q] = rows
                    writer.write(ids)
                fh.write(np.ascontiguousarray(b["s_hi"], "<u8").tobytes())
                fl.write(np.ascontiguousarray(b["s_lo"], "<u8").tobytes())
                n += len(b["s_hi"])
        write_pair_array(self.folder / f"{role}.keys.npy", hi_raw, lo_raw, np.uint64, n)
        return n

    def _write_cycles(self, role: str, term_hi, term_lo) -> dict:
        """The strongly connected components of a graph role (its cycles), one per line of ``<role>.cycles.tsv``."""
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import connected_components

        keys = load_array(self.folder / f"{role}.keys.npy")
        parent = np.asarray(load_array(self.folder / f"{role}.objects.npy"), np.int64)
        q, rows = find_sorted(term_hi, term_lo, np.asarray(keys).T)
        child = np.full(len(parent), -1, np.int64)
        child[q] = rows
        ok = child >= 0  # a subject that is no term is no one's parent: in no cycle
        child, parent = child[ok], parent[ok]
        n = len(term_hi)
        loops = distinct(child[child == parent])
        m = csr_matrix((np.ones(len(child), np.int8), (child, parent)), shape=(n, n))
        _, label = connected_components(m, directed=True, connection="strong")
        sizes = np.bincount(label)
        big = np.flatnonzero(sizes > 1)
        members = np.flatnonzero(np.isin(label, big))
        column = StringColumn(self.folder, "terms")
        rows_of = np.asarray(load_array(self.folder / "terms.row.npy"))
        groups: dict[int, list[str]] = {}
        for t, name in zip(members.tolist(), column.take(rows_of[members].tolist())):
            groups.setdefault(int(label[t]), []).append(name)
        lines = sorted("\t".join(sorted(g)) for g in groups.values())
        lines += sorted(column.take(rows_of[loops].tolist()))  # a self-loop is a cycle of one
        (self.folder / f"{role}.cycles.tsv").write_text("".join(x + "\n" for x in lines), encoding="utf-8")
        return {"cycles": len(lines), "nodes": int(len(members) + len(np.setdiff1d(loops, members)))}

    def _write_names(self, n_labels: int) -> int:
        """``names.keys.npy`` (the distinct labelled IRIs' keys, sorted), ``names.row.npy`` (the row of each one's
        best label: below ``n_labels`` in ``labels.text``, else in ``names.text``) and ``names.rank.npy``; the
        labels are hashed block by block and sorted in runs (a bounded memory)."""
        for c in self.names:
            c.close()
        for r in self.ranks.values():
            r.close()
        runs = SortedRuns(self.tmp, "names", ("hi", "lo", "order"), pool=self.pool)
        for folder, name, offset in ((self.folder, "labels", 0), (self.tmp, "names", n_labels)):
            column = StringColumn(folder, f"{name}.subject")
            ranks = load_array(self.tmp / f"{name}.rank.npy")  # mapped: a block at a time is read
            strings = iter(column)
            for start in range(0, len(column), _BATCH):
                keys = hash_keys(itertools.islice(strings, _BATCH))
                rows = np.arange(start, start + len(keys), dtype=np.int64) + offset
                rank = np.asarray(ranks[start:start + len(keys)], np.int64)
                runs.add(hi=keys[:, 0], lo=keys[:, 1], order=(rank << _ROW_BITS) | rows)
            del column, ranks
        hi_raw, lo_raw = self.tmp / "names.hi", self.tmp / "names.lo"
        n = 0
        with open(hi_raw, "wb") as fh, open(lo_raw, "wb") as fl, \
                NpyWriter(self.folder / "names.row.npy", np.int64) as row_out, \
                NpyWriter(self.folder / "names.rank.npy", np.int8) as rank_out:
            for b in runs.merged(group=2):  # an IRI's labels in one block, its best first
                hi, lo, order = b["hi"], b["lo"], b["order"]
                first = np.flatnonzero(np.r_[True, (hi[1:] != hi[:-1]) | (lo[1:] != lo[:-1])])
                fh.write(np.ascontiguousarray(hi[first], "<u8").tobytes())
                fl.write(np.ascontiguousarray(lo[first], "<u8").tobytes())
                row_out.write(order[first] & ((1 << _ROW_BITS) - 1))
                rank_out.write(order[first] >> _ROW_BITS)
                n += len(first)
        write_pair_array(self.folder / "names.keys.npy", hi_raw, lo_raw, np.uint64, n)
        runs.close()
        for f in ("names.subject.bin", "names.subject.offsets.npy", "labels.rank.npy", "names.rank.npy"):
            (self.tmp / f).unlink()
        return n

    def _write_links(self) -> int:
        """``inlinks.keys.npy`` (distinct linked resources, sorted) and ``inlinks.count.npy``, written block by block
        (a resource's rows are in one block)."""
        hi_raw, lo_raw = self.tmp / "inlinks.hi", self.tmp / "inlinks.lo"
        n = 0
        with open(hi_raw, "wb") as fh, open(lo_raw, "wb") as fl, \
                NpyWriter(self.folder / "inlinks.count.npy", np.int64) as counts:
            for b in self.links.merged(group=2):
                hi, lo, c = b["hi"], b["lo"], b["count"]
                start = np.flatnonzero(np.r_[True, (hi[1:] != hi[:-1]) | (lo[1:] != lo[:-1])])
                fh.write(np.ascontiguousarray(hi[start], "<u8").tobytes())
                fl.write(np.ascontiguousarray(lo[start], "<u8").tobytes())
                counts.write(np.add.reduceat(c, start))
                n += len(start)
        write_pair_array(self.folder / "inlinks.keys.npy", hi_raw, lo_raw, np.uint64, n)
        return n


def line_filter(vocabulary: Vocabulary) -> LineFilter | None:
    """The filter of the N-Triples lines a vocabulary reads (``None`` when it parses every line).

    A vocabulary that indexes relations also reads the lines of its relation namespaces whose
    object is an IRI.

    Parameters
    ----------
    vocabulary : Vocabulary

    Returns
    -------
    LineFilter or None

    Examples
    --------
    >>> from kg.rdf.vocabulary import WIKIDATA
    >>> line_filter(WIKIDATA), line_filter(DBPEDIA)
    (LineFilter(7 predicates, language=b'en'), None)
    >>> line_filter(WIKIDATA.with_relations())
    LineFilter(8 predicates, 1 relation namespace(s), language=b'en')
    """
    if not vocabulary.skip_unused_lines:
        return None
    return LineFilter(vocabulary.predicates(), label_predicates=vocabulary.labels, language=vocabulary.language,
                      relation_namespaces=vocabulary.relations if vocabulary.index_relations else ())


def build_segment(path, folder, *, vocabulary: Vocabulary = DBPEDIA, skip_bad_lines: bool = False,
                  progress: Callable[[int], None] | None = None, pool: SpillPool | None = None) -> dict:
    """Parse one dump file once and write its segment into ``folder`` (created; must not exist).

    Parameters
    ----------
    path : path
        A dump file (see :func:`kg.rdf.dumpfiles.dump_files`).
    folder : path
        Where the segment is written.
    vocabulary : Vocabulary
        What to keep (the DBpedia preset by default).
    skip_bad_lines : bool
        Skip malformed N-Triples lines (recorded in the segment) instead of failing.
    progress : callable, optional
        ``progress(bytes_read)`` every 65,536 triples and at the end (bytes of the file as on disk).
    pool : SpillPool, optional
        The memory budget of the rows gathered before they are sorted (the default budget otherwise).

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
    reader = DumpReader(path, skip_bad_lines=skip_bad_lines, line_filter=line_filter(vocabulary))
    builder = _Builder(folder, vocabulary, pool or SpillPool())
    n = builder.scan(reader, (lambda: progress(reader.bytes_read)) if progress else (lambda: None))
    tables = builder.write()
    if progress is not None:
        progress(reader.size)
    info = {"format": FORMAT, "name": path.name, "size": reader.size, "sha256": reader.sha256, "triples": n,
            "lines": reader.lines if reader.line_filter is not None else n,
            "vocabulary": {"name": vocabulary.name, "fingerprint": vocabulary.fingerprint(),
                           "predicates": list(vocabulary.predicates()), "language": vocabulary.language,
                           **({"relations": list(vocabulary.relations), "not_relations": list(vocabulary.not_relations)}
                              if vocabulary.index_relations else {})},
            **tables, "n_bad_lines": len(reader.bad_lines),
            "bad_lines": [list(b) for b in reader.bad_lines[:100]], "seconds": round(time.perf_counter() - t0, 3)}
    (folder / "segment.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    return info


def build_segment_folder(path: str, folder: str, vocabulary: Vocabulary, skip_bad_lines: bool = False,
                         spill_bytes: int | None = None, progress: Callable[[int], None] | None = None,
                         code: str | None = None) -> dict:
    """Read one dump file into a segment folder with its manifest (:func:`build_segment`, then
    :func:`~kg.rdf.index.manifest.write_manifest`): what a worker of a parallel ingest runs
    (:meth:`kg.rdf.index.dumpindex.DumpIndex.ingest` with ``executor``), and what an ingest runs itself, file
    after file.

    Parameters
    ----------
    path, folder : str
        The dump file and the folder to write (replaced), both on storage the workers see at the same paths.
    vocabulary : Vocabulary
    skip_bad_lines : bool
    spill_bytes : int, optional
        See :class:`kg.rdf.index.dumpindex.DumpIndex`.
    progress : callable, optional
        ``progress(bytes_read)``.
    code : str, optional
        The :func:`~kg.store.keys.code_digest` of the process that asks: another kgfs (or other versions of
        its numerical packages) on a worker would write other segments, and is refused.

    Returns
    -------
    dict
        The segment's record (``segment.json``).

    Raises
    ------
    KgfsError
        The worker runs other code, or does not see the file or the index folder.
    """
    import socket

    here = socket.gethostname()
    if code is not None and code != code_digest():
        raise KgfsError(f"the worker on {here} runs another kgfs (or other versions of its numerical packages) "
                        f"than the ingest that sent it {Path(path).name}: install the same kgfs on every worker")
    if not Path(path).is_file():
        raise KgfsError(f"dump file {path} is not visible on {here}: the workers of a parallel ingest must see the "
                        "dump files and the kgfs home at the same paths (shared storage)")
    if not Path(folder).parent.is_dir():
        raise KgfsError(f"the dump index folder {Path(folder).parent} is not visible on {here}: the workers of a "
                        "parallel ingest must see the dump files and the kgfs home at the same paths (shared storage)")
    shutil.rmtree(folder, ignore_errors=True)
    try:
        info = build_segment(path, folder, vocabulary=vocabulary, skip_bad_lines=skip_bad_lines, progress=progress,
                             pool=SpillPool() if spill_bytes is None else SpillPool(spill_bytes))
        write_manifest(folder)  # last: a folder without one is never used
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return info
