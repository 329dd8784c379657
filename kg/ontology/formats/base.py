"""What every annotation format shares: the options of a reading, the rows' collector, the set it fills, the
evidence filter, and :class:`AnnotationFormat`, the small class a format is (its name, how ``auto`` recognises
its files, the extra files it reads, its reader of rows).

A format is one module with one such class, registered by name in :data:`kg.ontology.formats.ANNOTATION_FORMATS`
(``"module:Class"``; a package outside kgfs under the entry-point group ``kgfs.annotation_formats``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from kg.errors import InputFormatError
from kg.ontology.obo import _open_text

__all__ = ["GO_EVIDENCE_ECO", "AnnotationFormat", "AnnotationOptions", "AnnotationSet", "Collector", "Evidence",
           "lines_of"]

#: GO evidence codes -> the ECO class GO's own mapping uses by default (GPAD rows carry ECO ids).
#: A GPAD row matches ``evidence=("IDA",)`` when its ECO id is IDA's default; ECO subclasses (e.g. the
#: ECO:0000256 of automatic sequence-model annotations) are matched only when given as ECO ids.
GO_EVIDENCE_ECO = {
    "EXP": "ECO:0000269", "IDA": "ECO:0000314", "IPI": "ECO:0000353", "IMP": "ECO:0000315",
    "IGI": "ECO:0000316", "IEP": "ECO:0000270", "HTP": "ECO:0006056", "HDA": "ECO:0007005",
    "HMP": "ECO:0007001", "HGI": "ECO:0007003", "HEP": "ECO:0007007", "IBA": "ECO:0000318",
    "IBD": "ECO:0000319", "IKR": "ECO:0000320", "IRD": "ECO:0000321", "ISS": "ECO:0000250",
    "ISO": "ECO:0000266", "ISA": "ECO:0000247", "ISM": "ECO:0000255", "IGC": "ECO:0000317",
    "RCA": "ECO:0000245", "TAS": "ECO:0000304", "NAS": "ECO:0000303", "IC": "ECO:0000305",
    "ND": "ECO:0000307", "IEA": "ECO:0000501",
}
#: hpoa frequencies that mean "excluded": the HPO term Excluded (0%) and fractions or percentages of 0.


@dataclass
class AnnotationSet:
    """What an annotation file says, as read by :func:`~kg.ontology.annotations.read_annotation_set`.

    Attributes
    ----------
    positive : dict of instance -> list of term ids
        Instances in order of first appearance, terms without duplicates, in file order.
    negative : dict of instance -> list of term ids
        ``NOT`` annotations (GAF/GPAD qualifier or negation column, hpoa qualifier) and, in an
        hpoa file, rows whose frequency is 0 (``0/n``, ``0%`` or HP:0040285 "Excluded"). They never
        become positives; :func:`kg.ontology.term_table` reports an instance annotated with a term and
        with ``NOT`` of one of its ancestors.
    aspect_terms : dict of instance -> list of term ids
        The positive annotations of the label aspect (``label_aspect``), kept apart: they are
        labels, never features.
    report : dict
        ``format``, ``rows`` (annotation rows read), ``negated_rows``, ``excluded_rows`` (frequency 0),
        ``other_aspect_rows``, ``skipped_rows`` / ``skipped_instances`` (rows and distinct instances
        outside ``keep``: not kept in memory), ``not_in_gpi_rows``.
    label_terms : tuple of str
        Terms that are labels (set by whoever derived the labels): :func:`kg.ontology.term_table`
        never makes them features.

    Examples
    --------
    >>> s = AnnotationSet({"d1": ["HP:1"]}, {"d1": ["HP:2"]}, {}, {"format": "hpoa"})
    >>> s.positive, s.negative
    ({'d1': ['HP:1']}, {'d1': ['HP:2']})
    """

    positive: dict[str, list[str]]
    negative: dict[str, list[str]] = field(default_factory=dict)
    aspect_terms: dict[str, list[str]] = field(default_factory=dict)
    report: dict = field(default_factory=dict)
    label_terms: tuple[str, ...] = ()



@dataclass(frozen=True)
class AnnotationOptions:
    """How :func:`~kg.ontology.annotations.read_annotation_set` reads a file (every field optional).

    Attributes
    ----------
    format : str
        ``"auto"`` (detected: :func:`kg.ontology.formats.detect_format`) or a registered format's name
        (:data:`kg.ontology.formats.ANNOTATION_FORMATS`: ``gaf``, ``gpad``, ``hpoa``, ``table``, ...).
    evidence, exclude_evidence : tuple of str, optional
        Evidence codes to keep / to skip (GAF column 7, hpoa ``evidence``, a table's ``evidence``
        column; GPAD: ECO ids, or GO codes through :data:`GO_EVIDENCE_ECO`).
    namespaces : str or tuple of str, optional
        GAF only: keep the rows of these GO namespaces (column 9, as ``aspects`` ``P``, ``C``, ``F``).
    aspects : tuple of str, optional
        Keep the rows of these aspects: GAF column 9 (``P``, ``C``, ``F``), hpoa ``aspect``
        (``P`` phenotype, ``I`` inheritance, ``C`` clinical course, ``M`` modifier).
    id_column : int or str, optional
        Which column names the instance (GAF: 1-based or ``"symbol"``; table: 0 or 1; GPAD with
        ``gpi``: ``"symbol"`` names instances by the GPI's symbol).
    gpi : mapping, optional
        GPAD: object id -> ``(symbol, type)`` from :func:`kg.ontology.formats.gpad.read_gpi`; rows of
        objects it lacks are skipped and counted (``not_in_gpi_rows``).
    label_aspect : str, optional
        Rows of this aspect are labels (:attr:`AnnotationSet.aspect_terms`), never features.

    Examples
    --------
    >>> AnnotationOptions(format="hpoa", aspects=("P",), label_aspect="I").label_aspect
    'I'
    """

    format: str = "auto"
    evidence: Iterable[str] | None = None
    exclude_evidence: Iterable[str] | None = None
    namespaces: str | Iterable[str] | None = None
    aspects: Iterable[str] | None = None
    id_column: int | str | None = None
    gpi: Mapping[str, tuple[str, str]] | None = None
    label_aspect: str | None = None



class Collector:
    """Sorts rows into positives, negatives and label-aspect terms; skips (and counts) the rest.

    A format's reader calls :meth:`add` once per annotation row it reads.
    """

    def __init__(self, fmt: str, keep, aspects, label_aspect: str | None, labels_only: bool):
        self.keep, self.aspects = keep, aspects
        self.label_aspect, self.labels_only = label_aspect, labels_only
        self.sets = AnnotationSet({}, {}, {}, {"format": fmt})
        self._seen: dict[tuple[int, str], set[str]] = {}
        self.rows = self.negated = self.excluded = self.other_aspect = self.skipped = 0
        self.skipped_instances: set[str] = set()

    def _add(self, which: int, target: dict, inst: str, term: str) -> None:
        key = (which, inst)
        s = self._seen.get(key)
        if s is None:
            target[inst] = [term]
            self._seen[key] = {term}
        elif term not in s:
            s.add(term)
            target[inst].append(term)

    def add(self, inst: str, term: str, negated: bool = False, aspect: str = "", excluded: bool = False) -> None:
        self.rows += 1
        if self.label_aspect is not None and aspect == self.label_aspect:
            if not negated and not excluded:
                self._add(2, self.sets.aspect_terms, inst, term)
            return
        if self.labels_only:
            return
        if self.aspects is not None and aspect not in self.aspects:
            self.other_aspect += 1
            return
        if self.keep is not None and inst not in self.keep:
            self.skipped += 1
            self.skipped_instances.add(inst)
            return
        if negated or excluded:
            self.negated += negated
            self.excluded += excluded and not negated
            self._add(1, self.sets.negative, inst, term)
            return
        self._add(0, self.sets.positive, inst, term)

    def result(self, **extra) -> AnnotationSet:
        self.sets.report.update({"rows": self.rows, "negated_rows": self.negated, "excluded_rows": self.excluded,
                                 "other_aspect_rows": self.other_aspect, "skipped_rows": self.skipped,
                                 "skipped_instances": len(self.skipped_instances), **extra})
        return self.sets


@contextlib.contextmanager
def lines_of(path: str | os.PathLike, *, strict: bool = False) -> Iterator[Iterator[str]]:
    """The file's lines, as ``read().splitlines()`` would give them, read one at a time (the
    memory of a reader grows with what it keeps, not with the file); closed on exit.

    Plain or gzip-compressed; a truncated or corrupt gzip raises :class:`~kg.errors.InputFormatError`.
    ``strict``: a byte that is not UTF-8 raises one too, naming its line, column and offset (for the files whose
    text becomes a value: labels, instance ids); otherwise it reads as U+FFFD.
    """
    path = Path(path)
    with _open_text(path, "strict" if strict else "replace") as fh:

        def split():
            try:
                for raw in fh:
                    yield from raw.splitlines()  # the other line breaks splitlines knows (\f, \x1c, ...)
            except UnicodeDecodeError:
                from kg.formats.csv_io import utf8_error

                raise utf8_error(path) from None
            except (OSError, EOFError) as exc:  # truncated / corrupt gzip
                raise InputFormatError(f"cannot read file ({exc})", path) from exc

        yield split()


@dataclass(frozen=True)
class Evidence:
    """The evidence codes a reading keeps (``keep``; ``None``: all) and skips (``drop``), upper-cased.

    Examples
    --------
    >>> ev = Evidence.of(["ida"], ["IEA"])
    >>> ev.skips("IDA"), ev.skips("iea"), ev.skips("EXP"), Evidence.of(None, None).skips("IEA")
    (False, True, True, False)
    >>> sorted(ev.as_eco().keep)
    ['ECO:0000314']
    """

    keep: frozenset[str] | None = None
    drop: frozenset[str] = frozenset()

    @classmethod
    def of(cls, evidence: Iterable[str] | None, exclude: Iterable[str] | None) -> Evidence:
        return cls(None if evidence is None else frozenset(e.strip().upper() for e in evidence),
                   frozenset() if exclude is None else frozenset(e.strip().upper() for e in exclude))

    @property
    def filters(self) -> bool:
        """Whether any code is kept or dropped."""
        return self.keep is not None or bool(self.drop)

    def skips(self, code: str) -> bool:
        """Whether a row with evidence ``code`` is skipped."""
        code = code.strip().upper()
        return (self.keep is not None and code not in self.keep) or code in self.drop

    def as_eco(self) -> Evidence:
        """The same filter with GO evidence codes as ECO ids (:data:`GO_EVIDENCE_ECO`; ECO ids kept)."""
        def eco(codes):
            return None if codes is None else frozenset(GO_EVIDENCE_ECO.get(c, c) for c in codes)

        return Evidence(eco(self.keep), eco(self.drop))


class AnnotationFormat:
    """An annotation format: how ``auto`` recognises its files, the extra files it reads, and its reader.

    A subclass sets :attr:`name` and :attr:`title` and defines :meth:`read`; :meth:`claims` (and
    :meth:`skips`) let ``auto`` detection (:func:`kg.ontology.formats.detect_format`) choose it from a file's
    first lines. Register it in :data:`kg.ontology.formats.ANNOTATION_FORMATS`.

    Attributes
    ----------
    name : str
        What ``annotation_format`` says (``"gaf"``).
    title : str
        What messages say (``"GAF"``).
    priority : int
        The order in which ``auto`` asks the formats (lower first).
    fallback : bool
        The format of a file no format claims (the two-column table).
    extra_files : mapping
        Parameter -> what it is, for the files the format reads besides the annotations (GPAD: ``gpi``).
    instance_noun : str
        What the format's instances are called in messages and reports (``"gene"``; hpoa: ``"disease"``).

    Examples
    --------
    >>> class Pairs(AnnotationFormat):
    ...     name, title = "pairs", "pair list"
    ...     def claims(self, line):
    ...         return line.startswith("pairs:")
    ...     def read(self, path, lines, out, how, evidence):
    ...         for raw in lines:
    ...             if not raw.startswith("pairs:"):
    ...                 inst, term = raw.split()
    ...                 out.add(inst, term)
    >>> out = Collector("pairs", None, None, None, False)
    >>> Pairs().read("x", iter(["pairs: 1", "g1 X:1"]), out, AnnotationOptions(), Evidence())
    >>> out.result().positive
    {'g1': ['X:1']}
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    priority: ClassVar[int] = 50
    fallback: ClassVar[bool] = False
    extra_files: ClassVar[Mapping[str, str]] = {}
    instance_noun: ClassVar[str] = "gene"

    def claims(self, line: str) -> bool:
        """Whether a file whose first significant line is ``line`` is in this format."""
        return False

    def skips(self, line: str) -> bool:
        """Whether ``line`` is a header line that comes before the line that tells the format (hpoa's ``#``)."""
        return False

    def read_extra(self, name: str, path: str | os.PathLike) -> Any:
        """Read the extra file ``name`` (one of :attr:`extra_files`) for :class:`AnnotationOptions`."""
        raise NotImplementedError(name)

    def check(self, how: AnnotationOptions) -> None:
        """Refuse options this format cannot honour, before the file is read (default: none)."""

    def read(self, path: Path, lines: Iterator[str], out: Collector, how: AnnotationOptions,
             evidence: Evidence) -> None:
        """Read the rows of ``lines`` (the file's, from its first) into ``out`` (:meth:`Collector.add`).

        Parameters
        ----------
        path : Path
            For messages (:class:`~kg.errors.InputFormatError` names the file and line).
        lines : iterator of str
        out : Collector
        how : AnnotationOptions
            ``id_column``, ``gpi`` and the rest; aspects and ``keep`` are applied by ``out``.
        evidence : Evidence
            The evidence codes to keep and skip.
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<annotation format {self.name}>"
