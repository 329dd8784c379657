"""Any ontology: OBO, OWL (RDF/XML, Turtle, N-Triples) or GO.db-style term tables, and a sub-ontology by its roots.

:func:`read_ontology` reads an ontology file of any of these forms into a
:class:`~kg.ontology.obo.GeneOntology` (the class is named for GO; it holds any OBO-style ontology: the
DAG of its live terms over ``is_a`` plus the relations asked for, names, namespaces, obsolete
terms with ``replaced_by`` / ``consider``, ``alt_id`` -> primary id) and keeps the sub-ontology
under the roots asked for (:func:`restrict_to_roots`: ``HP:0000118`` for HPO's phenotypic
abnormalities). ``--namespaces`` (GO's three namespaces) keeps working beside ``--root``.

- OBO: :func:`kg.ontology.obo.read_obo`;
- OWL: :func:`read_owl`, parsed by pyoxigraph (RDF/XML as the OBO Foundry publishes it, or any
  RDF syntax pyoxigraph reads): ``rdfs:subClassOf`` a named class is ``is_a``; ``rdfs:subClassOf``
  an ``owl:Restriction`` (``owl:onProperty P``, ``owl:someValuesFrom C``) is relation ``P``, named
  by its ``oboInOwl:shorthand`` (``part_of``), else its label, else its CURIE; ``owl:deprecated``
  marks obsolete classes, ``IAO:0100001`` their replacement, ``oboInOwl:consider``,
  ``oboInOwl:hasAlternativeId``, ``oboInOwl:hasOBONamespace``, ``rdfs:label`` as in OBO;
- term tables: :func:`read_term_tables`, the child -> parent table of Bioconductor's ``GO.db``
  (``go_parents.tsv``: ``child, parent, relationship_type[, ontology]``), with its terms table
  (``go_id, ontology, term``) and its obsolete terms.

Examples
--------
>>> import pathlib, tempfile
>>> p = pathlib.Path(tempfile.mkdtemp()) / "t.obo"
>>> _ = p.write_text("[Term]\\nid: X:1\\n\\n[Term]\\nid: X:2\\nis_a: X:1\\n\\n[Term]\\nid: X:3\\nis_a: X:2\\n")
>>> read_ontology(p, roots=["X:2"]).hierarchy.node_ids.tolist()
['X:2', 'X:3']
"""

from __future__ import annotations

import csv
import io
import logging
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from kg.errors import InputFormatError, param
from kg.hierarchy import FeatureHierarchy
from kg.iri import check_iri
from kg.ontology.obo import (
    GeneOntology,
    _check_requested,
    _open_text,
    check_obo_options,
    normalize_namespaces,
    ontology_hierarchy,
    read_obo,
)
from kg.plugins import Plugins
from kg.sparse import distinct
from kg.xmlguard import check_xml

__all__ = ["AUTO", "ONTOLOGY_READERS", "OntologyFormat", "check_ontology_options", "ontology_format", "read_ontology",
           "read_owl", "read_term_tables", "restrict_to_roots"]

log = logging.getLogger(__name__)

#: The ontology forms :func:`read_ontology` knows (``auto`` detects them from the file's first bytes).
#: ``format="auto"``: the format that claims the file (:func:`ontology_format`).
AUTO = "auto"

_OBO = "http://purl.obolibrary.org/obo/"
_OIO = "http://www.geneontology.org/formats/oboInOwl#"
_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_RDFS = "http://www.w3.org/2000/01/rdf-schema#"
_OWL = "http://www.w3.org/2002/07/owl#"
_TYPE, _LABEL, _SUBCLASS = _RDF + "type", _RDFS + "label", _RDFS + "subClassOf"
_CLASS, _RESTRICTION, _OBJECT_PROPERTY = _OWL + "Class", _OWL + "Restriction", _OWL + "ObjectProperty"
_ON_PROPERTY, _SOME = _OWL + "onProperty", _OWL + "someValuesFrom"
_DEPRECATED, _REPLACED_BY, _CONSIDER = _OWL + "deprecated", _OBO + "IAO_0100001", _OIO + "consider"
_ALT_ID, _NAMESPACE, _OIO_ID, _SHORTHAND = _OIO + "hasAlternativeId", _OIO + "hasOBONamespace", _OIO + "id", \
    _OIO + "shorthand"
_ONTOLOGY, _VERSION_IRI, _VERSION_INFO = _OWL + "Ontology", _OWL + "versionIRI", _OWL + "versionInfo"
_OBO_IRI = re.compile(r"^http://purl\.obolibrary\.org/obo/([A-Za-z][A-Za-z0-9]*)_([A-Za-z0-9_]+)$")


class OntologyFormat:
    """An ontology file format as a plug-in (:data:`ONTOLOGY_READERS`): how its files begin, how they are read,
    what can be checked before any work."""

    #: Formats are asked in this order (highest first) whether a file's first line is theirs.
    priority = 0

    @classmethod
    def claims(cls, first_line: str) -> bool:
        """Whether a file whose first non-empty line is ``first_line`` is of this format."""
        return False

    @classmethod
    def read(cls, path, *, relations, namespaces, terms=None, obsolete=None) -> GeneOntology:
        raise NotImplementedError

    @classmethod
    def check(cls, path, *, relations, namespaces) -> None:
        """Refuse options the file cannot serve, before any work (nothing by default: the read will say)."""


class OboFormat(OntologyFormat):
    """OBO 1.2/1.4 (:func:`kg.ontology.obo.read_obo`): what a file is when no other format claims it."""

    priority = -1

    @classmethod
    def claims(cls, first_line: str) -> bool:
        return True

    @classmethod
    def read(cls, path, *, relations, namespaces, terms=None, obsolete=None) -> GeneOntology:
        return read_obo(path, relations=relations, namespaces=namespaces)

    @classmethod
    def check(cls, path, *, relations, namespaces) -> None:
        check_obo_options(path, relations=relations, namespaces=namespaces)


class OwlFormat(OntologyFormat):
    """OWL as RDF/XML or Turtle (:func:`read_owl`)."""

    priority = 2

    @classmethod
    def claims(cls, first_line: str) -> bool:
        return first_line.startswith(("<", "@prefix", "PREFIX"))

    @classmethod
    def read(cls, path, *, relations, namespaces, terms=None, obsolete=None) -> GeneOntology:
        return read_owl(path, relations=relations, namespaces=namespaces)

    @classmethod
    def check(cls, path, *, relations, namespaces) -> None:
        """Refuse hostile RDF/XML (entities, nesting: :func:`kg.xmlguard.check_xml`) before any work is stored."""
        if _first_line(Path(path)).startswith("<"):
            check_xml(path)


class TablesFormat(OntologyFormat):
    """GO.db-style tables: ``child``/``parent`` rows, with optional term tables (:func:`read_term_tables`)."""

    priority = 1

    @classmethod
    def claims(cls, first_line: str) -> bool:
        cells = [c.strip().lower() for c in first_line.split("\t")]
        return "child" in cells and "parent" in cells

    @classmethod
    def read(cls, path, *, relations, namespaces, terms=None, obsolete=None) -> GeneOntology:
        return read_term_tables(path, terms=terms, obsolete=obsolete, relations=relations, namespaces=namespaces)


#: Ontology file formats by name (``format=``), imported on first use; a package outside kgfs adds its own under the
#: entry-point group ``kgfs.ontology_formats``.
ONTOLOGY_READERS = Plugins("kgfs.ontology_formats", "ontology format", {
    "obo": "kg.ontology.read:OboFormat", "owl": "kg.ontology.read:OwlFormat",
    "tables": "kg.ontology.read:TablesFormat"})


def _first_line(path: Path) -> str:
    """The first non-empty line of a (plain or gzip) file, stripped (within its first 4 KiB)."""
    with _open_text(path) as fh:
        head = fh.read(4096)
    return next((ln for ln in head.splitlines() if ln.strip()), "").strip()


def ontology_format(path: str | os.PathLike) -> str:
    """The name of the format that claims a (plain or gzip) file by its first non-empty line (:data:`ONTOLOGY_READERS`,
    highest priority first; OBO when no other does).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.owl"
    >>> _ = p.write_text('<?xml version="1.0"?>\\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>')
    >>> ontology_format(p)
    'owl'
    """
    first = _first_line(Path(path))
    formats = sorted(ONTOLOGY_READERS.items(), key=lambda nf: -nf[1].priority)
    return next(name for name, fmt in formats if fmt.claims(first))


def _curie(iri: str, ids: dict[str, str]) -> str:
    """The id of an IRI: its ``oboInOwl:id``, else ``PREFIX:LOCAL`` of an OBO PURL, else the IRI itself."""
    known = ids.get(iri)
    if known:
        return known
    m = _OBO_IRI.match(iri)
    return f"{m.group(1)}:{m.group(2)}" if m else iri


class _LongLanguageTags(Exception):
    """The strict parser refused a language tag with a subtag over 8 characters (``@zh-classical``)."""


_LONG_TAG = re.compile(r"language tag|subtag", re.IGNORECASE)


def read_owl(path: str | os.PathLike, *, relations: str | Sequence[str] = ("is_a",),
             namespaces: str | Iterable[str] | None = None) -> GeneOntology:
    """Read an OWL ontology (RDF/XML, or Turtle / N-Triples) with pyoxigraph into a :class:`GeneOntology`.

    Parameters
    ----------
    path : path-like
        Plain or gzip-compressed.
    relations : str or sequence of str
        ``is_a`` (named superclasses) and the object properties of ``someValuesFrom``
        restrictions that become edges, by short name (``part_of``) or CURIE (``BFO:0000050``);
        ``all`` takes every one found.
    namespaces : str or iterable of str, optional
        Keep the classes of these ``oboInOwl:hasOBONamespace`` values.

    Returns
    -------
    GeneOntology

    Raises
    ------
    InputFormatError
        Not parseable as RDF (the parser's message with its position), no ``owl:Class``, or a
        relation / namespace asked for that the file lacks.
    CycleError
        The chosen relations form a cycle.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.owl"
    >>> _ = p.write_text('''<?xml version="1.0"?>
    ... <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    ...  xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#" xmlns:owl="http://www.w3.org/2002/07/owl#">
    ...  <owl:Class rdf:about="http://purl.obolibrary.org/obo/X_1"><rdfs:label>root</rdfs:label></owl:Class>
    ...  <owl:Class rdf:about="http://purl.obolibrary.org/obo/X_2">
    ...   <rdfs:subClassOf rdf:resource="http://purl.obolibrary.org/obo/X_1"/></owl:Class>
    ... </rdf:RDF>''')
    >>> onto = read_owl(p)
    >>> onto.hierarchy.edge_list(), onto.names["X:1"]
    ([('X:2', 'X:1')], 'root')

    A language tag with a subtag over 8 characters (``@zh-classical``, which pyoxigraph's strict parser refuses)
    makes the file read again leniently, every IRI checked by :func:`kg.iri.check_iri`, with a warning.
    """
    try:
        return _read_owl(path, relations=relations, namespaces=namespaces, lenient=False)
    except _LongLanguageTags:
        log.warning("%s: language tags with a subtag over 8 characters (e.g. @zh-classical) accepted: read "
                    "leniently, its IRIs checked by kgfs", path)
        return _read_owl(path, relations=relations, namespaces=namespaces, lenient=True)


def _read_owl(path, *, relations, namespaces, lenient: bool) -> GeneOntology:
    import pyoxigraph as ox

    path = Path(path)
    rels = (relations,) if isinstance(relations, str) else tuple(relations)
    ns_keep = normalize_namespaces(namespaces)
    with _open_text(path) as fh:
        text = fh.read()
    first = next((ln for ln in text.splitlines() if ln.strip()), "").strip()
    fmt = ox.RdfFormat.RDF_XML if first.startswith("<") else ox.RdfFormat.TURTLE
    if fmt == ox.RdfFormat.RDF_XML:
        check_xml(path)  # entities and nesting bounded before pyoxigraph expands them (kg.xmlguard)
    classes: list[str] = []
    is_class: set[str] = set()
    labels: dict[str, str] = {}
    plain_label: set[str] = set()
    nspace: dict[str, str] = {}
    ids: dict[str, str] = {}
    deprecated: set[str] = set()
    repl: dict[str, list[str]] = {}
    cons: dict[str, list[str]] = {}
    alts: dict[str, list[str]] = {}
    supers: list[tuple[str, object]] = []  # (class IRI, superclass node: IRI str or blank node)
    restr: dict[object, dict[str, str]] = {}
    properties: dict[str, dict[str, str]] = {}
    version = ""
    try:
        for t in ox.parse(text, format=fmt, base_iri=path.absolute().as_uri(), lenient=lenient):
            s, p, o = t.subject, t.predicate.value, t.object
            if lenient:
                _check_iris(path, t)
            if isinstance(s, ox.BlankNode):
                if p in (_ON_PROPERTY, _SOME) and isinstance(o, ox.NamedNode):
                    restr.setdefault(s, {})[p] = o.value
                continue
            sv = s.value
            if p == _TYPE:
                if o.value == _CLASS and sv not in is_class:
                    is_class.add(sv)
                    classes.append(sv)
                elif o.value == _OBJECT_PROPERTY:
                    properties.setdefault(sv, {})
            elif p == _SUBCLASS:
                supers.append((sv, o.value if isinstance(o, ox.NamedNode) else o))
            elif p == _LABEL:  # an English (or untagged) label wins over others
                lang = getattr(o, "language", None) or ""
                if sv not in labels or (lang in ("", "en") and sv not in plain_label):
                    labels[sv] = o.value
                    if lang in ("", "en"):
                        plain_label.add(sv)
            elif p == _NAMESPACE:
                nspace[sv] = o.value
            elif p == _OIO_ID:
                ids[sv] = o.value
            elif p == _DEPRECATED:
                if o.value.strip().lower() == "true":
                    deprecated.add(sv)
            elif p == _REPLACED_BY:
                repl.setdefault(sv, []).append(o.value)
            elif p == _CONSIDER:
                cons.setdefault(sv, []).append(o.value)
            elif p == _ALT_ID:
                alts.setdefault(sv, []).append(o.value)
            elif p == _SHORTHAND:
                properties.setdefault(sv, {})["shorthand"] = o.value
            elif p in (_VERSION_IRI, _VERSION_INFO) and not version:
                version = o.value
    except SyntaxError as exc:
        if not lenient and _LONG_TAG.search(str(exc)):
            raise _LongLanguageTags from None
        raise InputFormatError(f"not readable as OWL/RDF ({exc})", path) from None
    if not classes:
        raise InputFormatError("no owl:Class found (is this an OWL ontology?)", path)

    def rel_name(prop: str) -> str:
        info = properties.get(prop, {})
        if info.get("shorthand"):
            return info["shorthand"]
        if labels.get(prop):
            return re.sub(r"\s+", "_", labels[prop].strip())
        return _curie(prop, ids)

    def term_id(iri: str) -> str:
        return _curie(iri, ids)

    tid = {c: term_id(c) for c in classes}
    names = {tid[c]: labels.get(c, "") for c in classes}
    term_ns = {tid[c]: nspace.get(c, "") for c in classes}
    obsolete = {tid[c]: {"replaced_by": [_replacement(v, ids) for v in repl.get(c, [])],
                         "consider": [_replacement(v, ids) for v in cons.get(c, [])]}
                for c in classes if c in deprecated}
    alt_ids = {a: tid[c] for c in classes for a in alts.get(c, [])}
    rel_counts: dict[str, int] = {}
    raw_edges: list[tuple[str, str, str]] = []
    for child, sup in supers:
        if child not in is_class:
            continue
        if isinstance(sup, str):
            rel, target = "is_a", sup
        else:
            r = restr.get(sup, {})
            if _ON_PROPERTY not in r or _SOME not in r:
                continue  # an anonymous class that is not a someValuesFrom restriction (unions, cardinalities)
            rel, target = rel_name(r[_ON_PROPERTY]), r[_SOME]
        rel_counts[rel] = rel_counts.get(rel, 0) + 1
        raw_edges.append((tid[child], term_id(target), rel))
    # a relation may be asked for by its CURIE too (BFO:0000050 for part_of)
    aliases = {_curie(p, ids): rel_name(p) for p in properties}
    rels = tuple(aliases.get(r, r) for r in rels)
    return _assemble(path, _Terms([tid[c] for c in classes], names, term_ns, obsolete, alt_ids, raw_edges, rel_counts),
                     rels=rels, namespaces=ns_keep, version=version, fmt="owl")


def _check_iris(path: Path, quad) -> None:
    """kgfs's IRI check of what a lenient parse returned (it validates none)."""
    import pyoxigraph as ox

    for term in (quad.subject, quad.predicate, quad.object):
        if isinstance(term, ox.Literal):
            term = term.datatype
        if isinstance(term, ox.NamedNode):
            try:
                check_iri(term.value)
            except InputFormatError:
                raise InputFormatError(f"invalid IRI {term.value!r} (the file was read leniently for its long "
                                       f"language tags; kgfs's IRI check refuses it)", path) from None


def _replacement(value: str, ids: dict[str, str]) -> str:
    """A ``replaced_by`` / ``consider`` value: an IRI (to its id) or a literal id."""
    return _curie(value, ids) if value.startswith("http") else value


@dataclass
class _Terms:
    """What a non-OBO reader found: term ids in file order, names, namespaces, obsolete terms, alternative ids,
    typed edges ``(child, parent, relation)`` and the count of each relation."""

    ids: list[str]
    names: dict[str, str]
    term_ns: dict[str, str]
    obsolete: dict[str, dict[str, list[str]]]
    alt_ids: dict[str, str]
    raw_edges: list[tuple[str, str, str]]
    rel_counts: dict[str, int]


def _assemble(path: Path, terms: _Terms, *, rels: tuple[str, ...], namespaces: tuple[str, ...] | None,
              version: str, fmt: str, on_cycle: str = "merge") -> GeneOntology:
    """A :class:`GeneOntology` from the terms and typed edges of a non-OBO reader (as read_obo builds it)."""
    ids, names, term_ns, obsolete = terms.ids, terms.names, terms.term_ns, terms.obsolete
    alt_ids, raw_edges, rel_counts = terms.alt_ids, terms.raw_edges, terms.rel_counts
    take_all = "all" in rels
    _check_requested(path, rels, namespaces, rel_counts, term_ns.values())
    live = [t for t in ids if t not in obsolete and (namespaces is None or term_ns.get(t, "") in namespaces)]
    live_set = set(live)
    edges: list[tuple[str, str]] = []
    kept_by_rel: dict[str, int] = {}
    dangling: list[str] = []
    n_dangling = 0
    for child, target, rel in raw_edges:
        if child not in live_set or not (take_all or rel in rels):
            continue
        parent = alt_ids.get(target, target)
        if parent not in live_set:
            n_dangling += 1
            if len(dangling) < 5:
                why = ("obsolete" if parent in obsolete else f"namespace {term_ns[parent]}" if parent in term_ns
                       else "not defined")
                dangling.append(f"{child} {rel} {target} ({why})")
            continue
        edges.append((child, parent))
        kept_by_rel[rel] = kept_by_rel.get(rel, 0) + 1
    hierarchy = ontology_hierarchy(path, edges, live, on_cycle)  # a cycle merged into one term
    report = {"n_terms": len(ids), "n_live": len(live), "n_obsolete": len(obsolete),
              "relations_in_file": dict(sorted(rel_counts.items())),
              "edges_by_relation": dict(sorted(kept_by_rel.items())),
              "dangling_edges": n_dangling, "dangling_examples": dangling, "format_version": fmt,
              **({"merged_cycles": dict(hierarchy.merged)} if hierarchy.merged else {})}
    return GeneOntology(hierarchy=hierarchy, names=names, namespace=term_ns, obsolete=obsolete, alt_ids=alt_ids,
                        version=version, relations=tuple(sorted(rel_counts)) if take_all
                        else tuple(r for r in rels if r != "all"),
                        namespaces=namespaces, path=str(path), report=report)


_GODB_NAMESPACE = {"BP": "biological_process", "CC": "cellular_component", "MF": "molecular_function"}


def _table_rows(path: Path, option: str) -> tuple[list[str], list[list[str]]]:
    with _open_text(path) as fh:
        rows = [r for r in csv.reader(io.StringIO(fh.read()), delimiter="\t") if r and any(c.strip() for c in r)]
    if not rows:
        raise InputFormatError(f"empty table ({option})", path)
    return [c.strip().lower() for c in rows[0]], rows[1:]


def _column(header: list[str], names: Sequence[str], path: Path, option: str) -> int:
    for n in names:
        if n in header:
            return header.index(n)
    raise InputFormatError(f"no column {' or '.join(repr(n) for n in names)} in the header ({option}); "
                           f"columns: {', '.join(header)}", path, 1)


def read_term_tables(parents: str | os.PathLike, *, terms: str | os.PathLike | None = None,
                     obsolete: str | os.PathLike | None = None, relations: str | Sequence[str] = ("is_a",),
                     namespaces: str | Iterable[str] | None = None) -> GeneOntology:
    """Read an ontology given as tables, such as Bioconductor ``GO.db``'s (``go/go_parents.tsv`` and friends).

    Parameters
    ----------
    parents : path-like
        Tab-separated with a header: ``child``, ``parent``, optionally ``relationship_type``
        (``isa`` or ``is_a`` is ``is_a``; others such as ``part of`` become ``part_of``) and
        ``ontology`` (``BP``/``CC``/``MF`` or a namespace: the child's namespace).
    terms : path-like, optional
        ``id`` (or ``go_id``), optionally ``ontology``/``namespace`` and ``term``/``name``: the live
        terms with their names (terms only in ``parents`` are live too).
    obsolete : path-like, optional
        The same columns: obsolete terms (no replacement known; dropped or refused as
        ``--on-obsolete`` says).
    relations, namespaces
        As for :func:`kg.ontology.obo.read_obo`.

    Returns
    -------
    GeneOntology

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "p.tsv").write_text("child\\tparent\\trelationship_type\\tontology\\n"
    ...                              "GO:2\\tGO:1\\tisa\\tBP\\nGO:3\\tGO:2\\tpart of\\tBP\\n")
    >>> _ = (d / "t.tsv").write_text("go_id\\tontology\\tterm\\nGO:1\\tBP\\tprocess\\nGO:2\\tBP\\tageing\\n")
    >>> onto = read_term_tables(d / "p.tsv", terms=d / "t.tsv", relations=["is_a", "part_of"], namespaces="BP")
    >>> onto.hierarchy.edge_list(), onto.names["GO:2"]
    ([('GO:2', 'GO:1'), ('GO:3', 'GO:2')], 'ageing')
    """
    parents = Path(parents)
    rels = (relations,) if isinstance(relations, str) else tuple(relations)
    ids: list[str] = []
    seen: set[str] = set()
    names: dict[str, str] = {}
    term_ns: dict[str, str] = {}
    gone: dict[str, dict[str, list[str]]] = {}

    def add(t: str, ns: str = "", name: str = "") -> None:
        if t not in seen:
            seen.add(t)
            ids.append(t)
        if ns:
            term_ns[t] = _GODB_NAMESPACE.get(ns, ns)
        if name:
            names[t] = name

    for table, option, is_obsolete in ((terms, param("ontology_terms"), False),
                                       (obsolete, param("ontology_obsolete"), True)):
        if table is None:
            continue
        header, rows = _table_rows(Path(table), option)
        i_id = _column(header, ("go_id", "id", "term_id"), Path(table), option)
        i_ns = next((header.index(n) for n in ("ontology", "namespace") if n in header), None)
        i_nm = next((header.index(n) for n in ("term", "name", "label") if n in header), None)
        for r in rows:
            t = r[i_id].strip()
            add(t, r[i_ns].strip() if i_ns is not None and i_ns < len(r) else "",
                r[i_nm].strip() if i_nm is not None and i_nm < len(r) else "")
            if is_obsolete:
                gone[t] = {"replaced_by": [], "consider": []}
    option = param("ontology")
    header, rows = _table_rows(parents, option)
    i_c, i_p = _column(header, ("child",), parents, option), _column(header, ("parent",), parents, option)
    i_r = header.index("relationship_type") if "relationship_type" in header else None
    i_ns = header.index("ontology") if "ontology" in header else None
    raw_edges: list[tuple[str, str, str]] = []
    rel_counts: dict[str, int] = {}
    for lineno, r in enumerate(rows, 2):
        if len(r) <= max(i_c, i_p):
            raise InputFormatError(f"row has {len(r)} column(s), expected {len(header)} ({option})", parents,
                                   lineno)
        c, p = r[i_c].strip(), r[i_p].strip()
        rel = r[i_r].strip() if i_r is not None and i_r < len(r) else "is_a"
        rel = "is_a" if rel in ("isa", "is_a", "is a") else re.sub(r"\s+", "_", rel)
        add(c, r[i_ns].strip() if i_ns is not None and i_ns < len(r) and c not in term_ns else "")
        add(p)
        rel_counts[rel] = rel_counts.get(rel, 0) + 1
        raw_edges.append((c, p, rel))
    if not raw_edges:
        raise InputFormatError(f"no child -> parent row ({option})", parents)
    # a parent never seen as a child in a namespaced table takes its children's namespace (the roots)
    for c, p, _ in raw_edges:
        if p not in term_ns and c in term_ns:
            term_ns[p] = term_ns[c]
    return _assemble(parents, _Terms(ids, names, term_ns, gone, {}, raw_edges, rel_counts), rels=rels,
                     namespaces=normalize_namespaces(namespaces), version="", fmt="tables")


def restrict_to_roots(onto: GeneOntology, roots: str | Iterable[str] | None) -> GeneOntology:
    """The sub-ontology of the terms under ``roots`` (roots included), over the ontology's relations.

    Edges from a kept term to a parent outside (a term with parents in two branches) are dropped
    and counted (``report["edges_leaving_roots"]``); the terms left out stay known (their
    annotations are dropped as outside the roots, like terms of other namespaces).

    Parameters
    ----------
    onto : GeneOntology
    roots : str or iterable of str or None
        Term ids (alternative ids map to their primary id); ``"HP:0000118+HP:0000005"`` or a list.
        ``None`` returns ``onto`` unchanged.

    Returns
    -------
    GeneOntology

    Raises
    ------
    InputFormatError
        A root that is not a live term of the ontology (obsolete, unknown, or of a namespace left
        out), naming ``--root``.

    Examples
    --------
    >>> h = FeatureHierarchy.from_edges([("b", "a"), ("c", "b"), ("c", "x"), ("x", "a")])
    >>> onto = GeneOntology(h, {}, {n: "" for n in "abcx"}, {}, {})
    >>> sub = restrict_to_roots(onto, ["b"])
    >>> sub.hierarchy.edge_list(), sub.report["edges_leaving_roots"]  # b -> a and c -> x leave
    ([('c', 'b')], 2)
    """
    if roots is None:
        return onto
    if isinstance(roots, str):
        roots = [r for r in re.split(r"[+,;\s]", roots) if r.strip()]
    roots = tuple(dict.fromkeys(onto.alt_ids.get(r.strip(), r.strip()) for r in roots))
    if not roots:
        return onto
    h = onto.hierarchy
    roots = tuple(dict.fromkeys(h.lookup(r) for r in roots))  # a member of a merged cycle: its term
    for r in roots:
        if r not in h.index:
            why = ("is obsolete" if r in onto.obsolete
                   else f"is in namespace {onto.namespace[r]!r}, which was not selected" if r in onto.namespace
                   else "is not a term of the ontology")
            raise InputFormatError(f"root {r!r} {why} ({param('roots')})", onto.path or None)
    mask = np.zeros(h.n_nodes, dtype=bool)
    frontier = np.asarray([h.index[r] for r in roots], dtype=np.int64)
    mask[frontier] = True
    cm = h.child_matrix
    while frontier.size:
        kids = distinct(cm[frontier].indices)
        frontier = kids[~mask[kids]]
        mask[frontier] = True
    keep = np.flatnonzero(mask)
    pm = h.parent_matrix[keep]
    leaving = int(pm[:, ~mask].nnz)
    sub = pm[:, keep].tocoo()
    kept = h.node_ids[keep].tolist()
    hierarchy = FeatureHierarchy(kept, sub.row, sub.col, removed_edges=h.removed_edges,
                                 merged={k: h.merged[k] for k in kept if k in h.merged})
    report = {**onto.report, "roots": list(roots), "n_under_roots": int(keep.size),
              "n_outside_roots": int(h.n_nodes - keep.size), "edges_leaving_roots": leaving}
    return replace(onto, hierarchy=hierarchy, roots=roots, report=report)


def read_ontology(path: str | os.PathLike, *, relations: str | Sequence[str] = ("is_a",),
                  namespaces: str | Iterable[str] | None = None, roots: str | Iterable[str] | None = None,
                  terms: str | os.PathLike | None = None, obsolete: str | os.PathLike | None = None,
                  format: str = AUTO) -> GeneOntology:  # noqa: A002 - the natural name for a file format option
    """Read an ontology in any form kgfs knows and keep the sub-ontology under ``roots``.

    Parameters
    ----------
    path : path-like
        OBO, OWL, or a child -> parent table (:func:`ontology_format` tells them apart).
    relations, namespaces
        As for :func:`kg.ontology.obo.read_obo`.
    roots : str or iterable of str, optional
        See :func:`restrict_to_roots`.
    terms, obsolete : path-like, optional
        The term tables of a child -> parent table (:func:`read_term_tables`).
    format : str
        ``"auto"`` (by the file's first line) or a registered format: ``obo``, ``owl``, ``tables``.

    Returns
    -------
    GeneOntology

    Examples
    --------
    >>> read_ontology("hp.obo", roots="HP:0000118")                      # doctest: +SKIP
    """
    name = ontology_format(path) if format == AUTO else format
    fmt = ONTOLOGY_READERS.get(name, "format")
    onto = fmt.read(path, relations=relations, namespaces=namespaces, terms=terms, obsolete=obsolete)
    return restrict_to_roots(onto, roots)


def check_ontology_options(path: str | os.PathLike, *, relations: str | Sequence[str] = ("is_a",),
                           namespaces: str | Iterable[str] | None = None) -> None:
    """Refuse relations and namespaces an ontology file lacks before any work (OBO: one regex pass; others: read).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.obo"
    >>> _ = p.write_text("[Term]\\nid: X:1\\n")
    >>> check_ontology_options(p, relations=["part_of"])
    Traceback (most recent call last):
    ...
    kg.errors.InputFormatError: ...t.obo: unknown relation 'part_of' (relations); relations in this file: ...
    """
    ONTOLOGY_READERS.get(ontology_format(path)).check(path, relations=relations, namespaces=namespaces)
