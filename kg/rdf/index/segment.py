"""One ingested dump file, read: a segment folder of the dump index, memory-mapped (the layout:
:mod:`kg.rdf.index.dumpindex`).

A :class:`Segment` answers by keys (:func:`kg.rdf.index.columns.hash_keys`): the objects of a fact
table's subjects, the parents of graph nodes as term ids, the relations of entities (either
direction, as term ids), and the IRIs or keys of term ids (an IRI is read from the string column
only when asked for, and kept).

Examples
--------
>>> import tempfile, pathlib
>>> from kg.rdf.index.dumpindex import DumpIndex
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "t.nt").write_text("<http://c/A> <http://www.w3.org/2004/02/skos/core#broader> <http://c/B> .\\n")
>>> [seg] = DumpIndex(d / "i").segments(d / "t.nt")
>>> seg.has("broader"), seg.has("types")
(True, False)
>>> seg.parents("broader", ["http://c/A"])
[(0, 'http://c/B')]
>>> _ = (d / "n.nt").write_text('<http://c/A> <http://www.w3.org/2000/01/rdf-schema#label> "a"@en .\\n'
...                             '<http://c/A> <http://www.w3.org/2000/01/rdf-schema#label> "A" .\\n')
>>> [seg] = DumpIndex(d / "i").segments(d / "n.nt")
>>> seg.names(hash_keys(["http://c/B", "http://c/A"]))  # query 1: its English label (rank 0)
(array([1]), array([0], dtype=int8), ['a'])
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kg.rdf.index.blocks import Checks
from kg.rdf.index.columns import CheckedArray, KeyTable, StringColumn, hash_keys
from kg.rdf.index.ingest import RELATION_TABLES

__all__ = ["Segment"]


class Segment:
    """One ingested dump file (a folder written by :func:`kg.rdf.index.ingest.build_segment`), read-only.

    Parameters
    ----------
    folder : path
    rebuild : str, optional
        The command that rebuilds it (named by the error of a damaged block).

    Attributes
    ----------
    checks : kg.rdf.index.blocks.Checks
        Its files' block checksums, verified as they are read (pass them to a reader of its columns).
    info : dict
        The segment's record (``name``, ``sha256``, ``triples``, ``counts``, ``bad_lines``...).

    Examples
    --------
    See the module.
    """

    def __init__(self, folder: str | os.PathLike, rebuild: str | None = None):
        self.folder = Path(folder)
        #: the block checksums of its files: whatever it reads is verified first (kg.rdf.index.blocks)
        self.checks = Checks.of(self.folder, rebuild)
        self.checks.file(self.folder / "segment.json")
        self.info = json.loads((self.folder / "segment.json").read_text(encoding="utf-8"))
        self._facts: dict[str, tuple] = {}
        self._terms: tuple | None = None
        self._names: dict[int, str] = {}

    def __repr__(self) -> str:
        return f"Segment({self.info['name']!r}, sha256={self.info['sha256'][:12]}...)"

    def has(self, kind: str) -> bool:
        """Whether the file holds any fact of a kind (a fact table: ``types``, ``categories``, ``subclass``,
        ``broader``, ``same_as``, ``equivalent_class``, ``subproperty``; a relation table: ``relations_out``,
        ``relations_in``; or ``labels``, ``redirects``, ``inlinks``).

        Parameters
        ----------
        kind : str

        Returns
        -------
        bool

        Examples
        --------
        See the module.
        """
        return bool(self.info["counts"].get(kind))

    @property
    def has_names(self) -> bool:
        """Whether the segment keeps its labelled IRIs' names by key (segments ingested before kgfs kept them
        do not: :func:`kg.rdf.labels.dump_labels` reads their labels as it used to)."""
        return "names" in self.info["counts"]

    def names(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """The names the file gives IRIs of ``keys`` (``(m, 2)``, :func:`~kg.rdf.index.columns.hash_keys`): the
        query indices that have one (ascending), each one's rank (lower is better: see
        :mod:`kg.rdf.index.ingest`) and its text. Looked up by ``searchsorted``: no scan.

        Examples
        --------
        See the module.
        """
        if not self.has_names or not int(self.info["counts"]["names"]):
            return np.zeros(0, np.int64), np.zeros(0, np.int8), []
        query, rows = KeyTable(self.folder, "names", self.checks).find(keys)
        source = np.asarray(CheckedArray(self.folder / "names.row.npy", self.checks)[rows], np.int64)
        rank = np.asarray(CheckedArray(self.folder / "names.rank.npy", self.checks)[rows], np.int8)
        n_labels = int(self.info["counts"].get("labels", 0))
        texts = np.empty(len(source), dtype=object)
        own = source < n_labels
        for mask, name, offset in ((own, "labels.text", 0), (~own, "names.text", n_labels)):
            if mask.any():
                texts[mask] = StringColumn(self.folder, name, self.checks).take((source[mask] - offset).tolist())
        return query, rank, texts.tolist()

    def term_names(self, ids) -> list[str]:
        """The IRIs of term ids.

        Parameters
        ----------
        ids : array-like of int

        Returns
        -------
        list of str

        Examples
        --------
        See the module.
        """
        if self._terms is None:
            self._terms = (CheckedArray(self.folder / "terms.row.npy", self.checks),
                           StringColumn(self.folder, "terms", self.checks))
        rows, column = self._terms
        names = self._names
        ids = np.asarray(ids, np.int64)
        todo = sorted({int(i) for i in ids.tolist()} - names.keys())
        if todo:
            names.update(zip(todo, column.take(np.asarray(rows[todo]).tolist())))
        return [names[i] for i in ids.tolist()]

    def facts(self, kind: str, keys: np.ndarray) -> list[tuple[int, str]]:
        """The objects of the facts of one table (see :data:`kg.rdf.index.ingest.FACT_ROLES`) of subjects given by
        their keys.

        Parameters
        ----------
        kind : str
            ``types``, ``categories``, ``subclass``, ``broader``, ``same_as`` or ``equivalent_class``.
        keys : numpy.ndarray
            Subject keys (:func:`kg.rdf.index.columns.hash_keys`).

        Returns
        -------
        list of (int, str)
            ``(index into keys, object IRI)`` for every fact found.

        Examples
        --------
        See the module.
        """
        if not self.has(kind) or not len(keys):
            return []
        if kind not in self._facts:
            self._facts[kind] = (KeyTable(self.folder, kind, self.checks),
                                 CheckedArray(self.folder / f"{kind}.objects.npy", self.checks))
        table, objects = self._facts[kind]
        query, rows = table.find(keys)
        if not len(rows):
            return []
        return list(zip(query.tolist(), self.term_names(np.asarray(objects[rows]))))

    def parent_terms(self, kind: str, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The parents of nodes given by their keys along a graph table, as term ids (no string read).

        Parameters
        ----------
        kind : {"subclass", "broader", "subproperty"}
        keys : numpy.ndarray
            ``(m, 2)`` node keys.

        Returns
        -------
        query : numpy.ndarray
            Index into ``keys`` of each edge's child.
        terms : numpy.ndarray
            The parent's term id of each edge (:meth:`term_keys` gives their keys, :meth:`term_names`
            their IRIs).

        Examples
        --------
        See the module.
        """
        if not self.has(kind) or not len(keys):
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        if kind not in self._facts:
            self._facts[kind] = (KeyTable(self.folder, kind, self.checks),
                                 CheckedArray(self.folder / f"{kind}.objects.npy", self.checks))
        table, objects = self._facts[kind]
        query, rows = table.find(keys)
        return query, np.asarray(objects[rows], np.int64)

    def term_keys(self, ids: np.ndarray) -> np.ndarray:
        """The ``(m, 2)`` keys of term ids.

        Parameters
        ----------
        ids : numpy.ndarray

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        See the module.
        """
        if "terms.keys" not in self._facts:
            self._facts["terms.keys"] = tuple(CheckedArray(self.folder / "terms.keys.npy", self.checks, row=r)
                                              for r in (0, 1))
        high, low = self._facts["terms.keys"]
        ids = np.asarray(ids, np.int64)
        return np.stack([np.asarray(high[ids]), np.asarray(low[ids])], axis=1)

    def relation_terms(self, table: str, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The relations of entities given by their keys, as term ids (no string read).

        Parameters
        ----------
        table : {"relations_out", "relations_in"}
            ``relations_out``: the triples whose subject is the entity; ``relations_in``: whose object is.
        keys : numpy.ndarray
            ``(m, 2)`` entity keys.

        Returns
        -------
        query : numpy.ndarray
            Index into ``keys`` of each triple's entity.
        others : numpy.ndarray
            The term id of the triple's other end (its object for ``relations_out``, its subject for
            ``relations_in``).
        predicates : numpy.ndarray
            The term id of its predicate.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from kg.rdf.index.dumpindex import DumpIndex
        >>> from kg.rdf.vocabulary import WIKIDATA, WD, WDT
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "t.nt").write_text(f"<{WD}Q42> <{WDT}P19> <{WD}Q350> .\\n<{WD}Q42> <{WDT}P1477> \\"D\\" .\\n")
        >>> [seg] = DumpIndex(d / "i").segments(d / "t.nt", vocabulary=WIKIDATA.with_relations())
        >>> q, others, preds = seg.relation_terms("relations_in", hash_keys([WD + "Q350"]))
        >>> q.tolist(), seg.term_names(others), seg.term_names(preds)
        ([0], ['http://www.wikidata.org/entity/Q42'], ['http://www.wikidata.org/prop/direct/P19'])
        """
        if table not in RELATION_TABLES:
            raise ValueError(f"unknown relation table {table!r} (one of {', '.join(RELATION_TABLES)})")
        if not self.has(table) or not len(keys):
            empty = np.zeros(0, np.int64)
            return empty, empty, empty
        if table not in self._facts:
            other, pred = RELATION_TABLES[table]
            self._facts[table] = (KeyTable(self.folder, table, self.checks),
                                  CheckedArray(self.folder / f"{table}.{other}.npy", self.checks),
                                  CheckedArray(self.folder / f"{table}.{pred}.npy", self.checks))
        index, others, preds = self._facts[table]
        query, rows = index.find(keys)
        return query, np.asarray(others[rows], np.int64), np.asarray(preds[rows], np.int64)

    def parents(self, kind: str, nodes: Sequence[str]) -> list[tuple[int, str]]:
        """The parents of nodes along a graph table (``subclass``, ``broader`` or ``subproperty``).

        Parameters
        ----------
        kind : {"subclass", "broader", "subproperty"}
        nodes : sequence of str

        Returns
        -------
        list of (int, str)
            ``(index into nodes, parent IRI)`` for every edge found.

        Examples
        --------
        See the module.
        """
        return self.facts(kind, hash_keys(nodes)) if nodes else []
