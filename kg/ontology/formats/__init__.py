"""Annotation formats as plug-ins: a name mapped to ``"module:Class"`` (an :class:`~.base.AnnotationFormat`).

kgfs's own are GAF (:mod:`.gaf`), GPAD + GPI (:mod:`.gpad`), HPO ``phenotype.hpoa`` (:mod:`.hpoa`) and the
two-column table (:mod:`.table`); ``"auto"`` asks each format in turn whether a file's first lines are its own
(:func:`detect_format`). A new format is one module with one class and one registration:
``ANNOTATION_FORMATS.register("jsonl", "mypackage.jsonl:JsonLines")`` in code, or, from a package,
``[project.entry-points."kgfs.annotation_formats"] jsonl = "mypackage.jsonl:JsonLines"``. Listing the names
imports nothing (``kgfs --help`` stays light).

Examples
--------
>>> ANNOTATION_FORMATS.names()[:4], list(FORMAT_CHOICES)[:2]
(['gaf', 'gpad', 'hpoa', 'table'], ['auto', 'gaf'])
>>> annotation_format("gpad").title
'GPAD'
>>> detect_format(iter(["#version: 2025-01-16", "database_id\\tdisease_name\\tqualifier"]))
'hpoa'
"""

from __future__ import annotations

from collections.abc import Iterator

from kg.errors import ParameterError
from kg.plugins import Plugins

__all__ = ["ANNOTATION_FORMATS", "AUTO", "FORMAT_CHOICES", "annotation_format", "annotation_formats", "chosen_format",
           "detect_format", "instance_noun", "read_extra_file"]

#: The registered annotation formats.
ANNOTATION_FORMATS = Plugins("kgfs.annotation_formats", "annotation format", {
    "gaf": "kg.ontology.formats.gaf:GafFormat",
    "gpad": "kg.ontology.formats.gpad:GpadFormat",
    "hpoa": "kg.ontology.formats.hpoa:HpoaFormat",
    "table": "kg.ontology.formats.table:TableFormat",
})

#: The name that asks for detection.
AUTO = "auto"


class _Choices:
    """``auto`` and the registered formats' names, read when iterated (a format registered later is a choice)."""

    def __iter__(self) -> Iterator[str]:
        return iter([AUTO, *ANNOTATION_FORMATS.names()])

    def __contains__(self, name) -> bool:
        return name == AUTO or name in ANNOTATION_FORMATS

    def __len__(self) -> int:
        return 1 + len(ANNOTATION_FORMATS.names())

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return repr(tuple(self))


#: The values ``annotation_format`` (``--annotation-format``) accepts.
FORMAT_CHOICES = _Choices()


def annotation_format(name: str, parameter: str | None = "annotation_format"):
    """The format registered as ``name`` (an instance of its class).

    Raises
    ------
    ParameterError
        An unknown name, naming ``parameter`` and the known names.
    """
    return ANNOTATION_FORMATS.get(name, parameter)()


def instance_noun(name: str | None) -> str:
    """What the instances of the format registered as ``name`` are called (``"gene"`` when it is not known).

    Examples
    --------
    >>> instance_noun("hpoa"), instance_noun("gaf"), instance_noun(None)
    ('disease', 'gene', 'gene')
    """
    return ANNOTATION_FORMATS.get(name, None)().instance_noun if name in ANNOTATION_FORMATS.names() else "gene"


def annotation_formats() -> list:
    """Every registered format (instances), in the order ``auto`` asks them."""
    return sorted((cls() for _, cls in ANNOTATION_FORMATS.items()), key=lambda f: f.priority)


def detect_format(lines: Iterator[str], head: list[str] | None = None) -> str:
    """The name of the format of the file whose lines ``lines`` gives, from its first significant line.

    Lines a format :meth:`~.base.AnnotationFormat.skips` (hpoa's ``#version:``) and blank lines are passed
    over; the first other line goes to each format's :meth:`~.base.AnnotationFormat.claims` in order of
    ``priority``; a line none claims, or a file without one, is the fallback format's (the table's).

    Parameters
    ----------
    lines : iterator of str
    head : list, optional
        Receives the lines read (to be read again by the format's reader).
    """
    head = [] if head is None else head
    formats = annotation_formats()
    fallback = next((f.name for f in formats if f.fallback), formats[-1].name)
    for raw in lines:
        head.append(raw)
        if not raw.strip() or any(f.skips(raw) for f in formats):
            continue
        return next((f.name for f in formats if not f.fallback and f.claims(raw)), fallback)
    return fallback


def chosen_format(name: str | None, parameter: str | None = "annotation_format") -> str | None:
    """A format's name as a reading keeps it: ``None`` for detection (``None`` or ``"auto"``), else a registered
    name (an unknown one raises :class:`~kg.errors.ParameterError` naming ``parameter``).

    Examples
    --------
    >>> chosen_format("auto"), chosen_format(None), chosen_format("gaf")
    (None, None, 'gaf')
    """
    if name is None or name == AUTO:
        return None
    return annotation_format(name, parameter).name


def read_extra_file(role: str, path):
    """Read an extra file of an annotation format (``gpi``) by the format that declares it.

    Examples
    --------
    >>> read_extra_file("nonesuch", "x")
    Traceback (most recent call last):
    ...
    kg.errors.ParameterError: no annotation format reads a 'nonesuch' file
    """
    for fmt in annotation_formats():
        if role in fmt.extra_files:
            return fmt.read_extra(role, path)
    raise ParameterError(f"no annotation format reads a {role!r} file")
