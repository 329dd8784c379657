"""OBO ontologies (the Gene Ontology): :class:`GeneOntology` and the parser :func:`read_obo`.

``read_obo`` is a streaming OBO 1.2/1.4 parser written for speed (the full GO of 2014, 41k
terms, parses in about a second). The annotations and labels are read by
:mod:`kg.go.annotations`; :mod:`kg.go.table` builds the table.

Examples
--------
>>> go = read_obo("go.obo.gz", namespaces=["BP"])                       # doctest: +SKIP
"""

from __future__ import annotations

import gzip
import io
import logging
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kg.errors import CycleError, InputFormatError, UnknownFeatureError
from kg.hierarchy import FeatureHierarchy

__all__ = ["GeneOntology", "NAMESPACES", "normalize_namespaces", "read_obo"]

log = logging.getLogger(__name__)

#: The three GO namespaces and the spellings accepted for them.
NAMESPACES = ("biological_process", "cellular_component", "molecular_function")
_NS_ALIASES = {
    "bp": "biological_process", "p": "biological_process", "biological_process": "biological_process",
    "process": "biological_process", "biological process": "biological_process",
    "cc": "cellular_component", "c": "cellular_component", "cellular_component": "cellular_component",
    "component": "cellular_component", "cellular component": "cellular_component",
    "mf": "molecular_function", "f": "molecular_function", "molecular_function": "molecular_function",
    "function": "molecular_function", "molecular function": "molecular_function",
}
_ASPECT = {"P": "biological_process", "C": "cellular_component", "F": "molecular_function"}
_ON_OBSOLETE = ("raise", "replace", "drop")


def normalize_namespaces(namespaces: str | Iterable[str] | None) -> tuple[str, ...] | None:
    """Canonical namespace names from ``"BP"``, ``"bp"``, ``"biological_process"``, ``"P"``, ...

    A single string may hold several names separated by ``+``, ``,`` or spaces (``"BP+CC"``).
    Names that are not GO aliases are kept as given (OBO files of other ontologies).
    ``None`` means all namespaces.
    """
    if namespaces is None:
        return None
    if isinstance(namespaces, str):
        # "BP+CC", "BP,MF"; a plain long name such as "biological_process" stays whole
        namespaces = [p for p in re.split(r"[+,;]", namespaces) if p.strip()]
    out: list[str] = []
    for ns in namespaces:
        key = str(ns).strip()
        canon = _NS_ALIASES.get(key.lower(), key)
        if canon not in out:
            out.append(canon)
    if not out:
        raise ValueError("namespaces must name at least one namespace (or be None for all)")
    return tuple(out)


def _open_text(path: Path):
    """Open a plain or gzip-compressed text file (detected by magic bytes, not by suffix)."""
    with open(path, "rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def _read_lines(path: Path) -> list[str]:
    with _open_text(path) as fh:
        try:
            return fh.read().splitlines()
        except (OSError, EOFError) as exc:  # truncated / corrupt gzip
            raise InputFormatError(f"cannot read file ({exc})", path) from exc


_UNESCAPE = re.compile(r"\\(.)")


def _unescape(value: str) -> str:
    """Resolve OBO backslash escapes (``\\"``, ``\\!``, ``\\n``, ...)."""
    if "\\" not in value:
        return value
    return _UNESCAPE.sub(lambda m: {"n": "\n", "t": "\t", "W": " "}.get(m.group(1), m.group(1)), value)


def _strip_value(value: str) -> str:
    """Drop an OBO trailing comment (`` ! ...``) and trailing modifier (``{...}``) from a value."""
    bang = value.find("!")
    while bang > 0 and value[bang - 1] == "\\":
        bang = value.find("!", bang + 1)
    if bang >= 0:
        value = value[:bang]
    value = value.rstrip()
    if value.endswith("}"):
        brace = value.rfind("{")
        if brace > 0:
            value = value[:brace].rstrip()
    return value


def _read_text(path: Path) -> str:
    with open(path, "rb") as fh:
        data = fh.read()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:  # truncated / corrupt gzip
            raise InputFormatError(f"cannot read file ({exc})", path) from exc
    return "\n" + data.decode("utf-8", errors="replace")  # see _TOKENS


# Patterns start with a literal newline (the text is read with one prepended) so that the
# regex engine can jump from line to line: 4x faster than ``^`` with re.M on 30 MB of GO.
# a line that is not blank, a comment, a stanza header or "tag: value"
_BAD_LINE = re.compile(r"\n[ \t]*(?![!\[\s])(?![^\s:]+:)[^\n]+")
# a stanza header that is not closed on its line
_BAD_HEADER = re.compile(r"\n[ \t]*\[(?![^\]\n]*\][ \t\r]*(?:\n|$))[^\n]*")
_STANZA_START = re.compile(r"\n[ \t]*\[")
_TOKENS = re.compile(
    r"\n[ \t]*(?:\[([^\]\n]*)\]|(id|name|namespace|alt_id|is_a|relationship|is_obsolete|replaced_by|consider)"
    r":[ \t]*([^\n]*))"
)


def _check_lines(text: str, path: Path) -> None:
    found = []
    for rx, what in ((_BAD_LINE, "malformed line {!r} (expected 'tag: value')"), (_BAD_HEADER, "malformed stanza header {!r}")):
        m = rx.search(text)
        if m:
            found.append((m.start(), what.format(m.group(0).strip()[:80])))
    if found:
        pos, msg = min(found)  # the first problem in the file
        raise InputFormatError(msg, path, text.count("\n", 0, pos) + 1)


def _first_token(value: str) -> str:
    """The identifier at the start of a value (before a space, a ``{`` modifier or ``!`` comment)."""
    tok = value.split(None, 1)[0] if value else ""
    if "{" in tok or "!" in tok:
        tok = _strip_value(tok).split(" ", 1)[0]
    return tok


@dataclass
class GeneOntology:
    """An OBO ontology read by :func:`read_obo`.

    Attributes
    ----------
    hierarchy : FeatureHierarchy
        The DAG over the live (non-obsolete) terms of the chosen namespaces, edges of the
        chosen relations (child -> parent), in file order.
    names : dict of id -> name
        Every term of the file (all namespaces, obsolete ones included).
    namespace : dict of id -> namespace
        Every term of the file.
    obsolete : dict of id -> {"replaced_by": [...], "consider": [...]}
        Obsolete terms (not in the hierarchy).
    alt_ids : dict of alternative id -> primary id
    version : str
        ``data-version`` of the header, else its ``date``, else ``""``.
    relations : tuple of str
        The relations that became edges.
    namespaces : tuple of str or None
        The namespaces kept (``None`` = all).
    path : str
    report : dict
        Counts from parsing: edges per relation, edges dropped because their target is not
        a live term of the chosen namespaces (``dangling_edges``, with a few examples).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.obo"
    >>> _ = p.write_text("[Term]\\nid: X:1\\nname: root\\n\\n[Term]\\nid: X:2\\nname: leaf\\nis_a: X:1\\n")
    >>> go = read_obo(p)
    >>> go.hierarchy.ancestors("X:2")
    ['X:1']
    >>> go.resolve("X:2")
    'X:2'
    """

    hierarchy: FeatureHierarchy
    names: dict[str, str]
    namespace: dict[str, str]
    obsolete: dict[str, dict[str, list[str]]]
    alt_ids: dict[str, str]
    version: str = ""
    relations: tuple[str, ...] = ("is_a",)
    namespaces: tuple[str, ...] | None = None
    path: str = ""
    report: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        return (
            f"GeneOntology(version={self.version!r}, n_terms={self.hierarchy.n_nodes}, "
            f"n_edges={self.hierarchy.n_edges}, relations={self.relations}, namespaces={self.namespaces})"
        )

    def __contains__(self, term_id: object) -> bool:
        return term_id in self.hierarchy.index

    def resolve(self, term_id: str, on_obsolete: str = "raise") -> str | None:
        """The live term id of the hierarchy that ``term_id`` stands for.

        Alternative ids map to their primary id. An obsolete term raises
        (``on_obsolete="raise"``), is replaced by its ``replaced_by`` term (``"replace"``;
        the first in sorted order when there are several; ``None`` when it has none, since
        ``consider`` lists are suggestions, not replacements), or gives ``None`` (``"drop"``).
        An unknown id, or a term of a namespace that was not selected, raises
        :class:`~kg.errors.UnknownFeatureError`.
        """
        if on_obsolete not in _ON_OBSOLETE:
            raise ValueError(f"on_obsolete must be one of {_ON_OBSOLETE}, got {on_obsolete!r}")
        kind, value = self._classify(str(term_id).strip(), on_obsolete)
        if kind in ("ok", "alt", "replaced"):
            return value
        if kind == "obsolete_dropped":
            return None
        raise UnknownFeatureError(value)

    def _classify(self, tid: str, on_obsolete: str, _depth: int = 0) -> tuple[str, str | None]:
        """("ok"|"alt"|"replaced"|"obsolete_dropped"|"obsolete"|"other_namespace"|"unknown", id or message)."""
        index = self.hierarchy.index
        if tid in index:
            return "ok", tid
        primary = self.alt_ids.get(tid)
        if primary is not None and primary != tid:
            kind, value = self._classify(primary, on_obsolete, _depth + 1)
            return ("alt", value) if kind == "ok" else (kind, value)
        if tid in self.obsolete:
            info = self.obsolete[tid]
            if on_obsolete == "raise":
                hint = ""
                if info.get("replaced_by"):
                    hint = f"; replaced_by {', '.join(info['replaced_by'])}"
                elif info.get("consider"):
                    hint = f"; consider {', '.join(info['consider'])}"
                return "obsolete", (
                    f"GO term {tid!r} is obsolete in {self._where()}{hint} "
                    "(pass on_obsolete='replace' or 'drop')"
                )
            if on_obsolete == "replace" and info.get("replaced_by") and _depth < 10:
                target = sorted(info["replaced_by"])[0]
                kind, value = self._classify(target, on_obsolete, _depth + 1)
                if kind in ("ok", "alt", "replaced"):
                    return "replaced", value
                return kind, value
            return "obsolete_dropped", None
        if tid in self.namespace:
            return "other_namespace", (
                f"term {tid!r} is in namespace {self.namespace[tid]!r}, which was not selected "
                f"(namespaces={list(self.namespaces or [])})"
            )
        return "unknown", f"unknown term id {tid!r}: not in {self._where()}"

    def _where(self) -> str:
        name = Path(self.path).name if self.path else "the ontology"
        return f"{name} ({self.version})" if self.version else name


def read_obo(
    path: str | os.PathLike,
    *,
    relations: str | Sequence[str] = ("is_a",),
    namespaces: str | Iterable[str] | None = None,
) -> GeneOntology:
    """Read an OBO 1.2/1.4 ontology (plain or gzip-compressed) into a :class:`GeneOntology`.

    Parameters
    ----------
    path : path-like
    relations : str or sequence of str
        Relations that become hierarchy edges: ``"is_a"`` (the default) and any
        ``relationship:`` type such as ``"part_of"``, ``"regulates"``; ``"all"`` takes every
        relation found. ``intersection_of`` lines are logical definitions, never edges.
    namespaces : str or iterable of str, optional
        Keep only terms of these namespaces (``"BP"``, ``"biological_process"``, ``"BP+CC"``,
        ...). Edges whose target lies outside them are dropped (counted in ``report``).

    Raises
    ------
    InputFormatError
        A malformed stanza: a tag line without ``tag: value``, a stanza without ``id``,
        two ``id`` lines, an ``is_a``/``relationship`` without a target, an unclosed header.
        The message names the file and line.
    CycleError
        The chosen relations form a cycle (an ontology must be acyclic).
    """
    path = Path(path)
    rels = (relations,) if isinstance(relations, str) else tuple(relations)
    take_all = "all" in rels
    want_rel = set(rels)
    ns_keep = normalize_namespaces(namespaces)
    text = _read_text(path)
    _check_lines(text, path)

    def line_of(pos: int) -> int:  # pos: the newline before the line (text starts with "\n")
        return text.count("\n", 0, pos + 1)

    first = _STANZA_START.search(text)
    header: dict[str, str] = {}
    for hl in text[: first.start() if first else len(text)].splitlines():
        tag, sep, value = hl.strip().partition(":")
        if sep and tag and tag[0] != "!":
            header.setdefault(tag, value.strip())

    ids: list[str] = []
    names: dict[str, str] = {}
    nspace: dict[str, str] = {}
    obsolete: dict[str, dict[str, list[str]]] = {}
    alt_ids: dict[str, str] = {}
    raw_edges: list[tuple[str, str, str, int]] = []  # child, parent, relation, text position
    rel_counts: dict[str, int] = {}
    default_ns = header.get("default-namespace", "")

    in_term = False
    cur_id: str | None = None
    cur_pos = 0
    cur_ns: str | None = None
    cur_obsolete = False
    cur_repl: list[str] = []
    cur_cons: list[str] = []
    cur_edges: list[tuple[str, str, int]] = []
    cur_alts: list[str] = []
    cur_name = ""

    def finish() -> None:
        if not in_term:
            return
        if cur_id is None:
            raise InputFormatError("[Term] stanza has no 'id' tag", path, line_of(cur_pos))
        if cur_id in names:
            raise InputFormatError(f"duplicate term id {cur_id!r}", path, line_of(cur_pos))
        ids.append(cur_id)
        names[cur_id] = cur_name
        nspace[cur_id] = cur_ns or default_ns
        for alt in cur_alts:
            alt_ids[alt] = cur_id
        if cur_obsolete:
            obsolete[cur_id] = {"replaced_by": cur_repl, "consider": cur_cons}
        else:
            for rel, target, pos in cur_edges:
                raw_edges.append((cur_id, target, rel, pos))

    # only the lines that matter are visited (C regex scan); the rest were checked above
    for m in _TOKENS.finditer(text, first.start() if first else len(text)):
        stanza, tag, value = m.group(1, 2, 3)
        if stanza is not None:
            finish()
            in_term = stanza.strip() == "Term"
            if m.end() < len(text) and text[m.end()] not in "\r\n \t":
                raise InputFormatError(f"text after the stanza header [{stanza}]", path, line_of(m.start()))
            cur_id, cur_pos, cur_ns, cur_obsolete, cur_name = None, m.start(), None, False, ""
            cur_repl, cur_cons, cur_edges, cur_alts = [], [], [], []
            continue
        if not in_term:
            continue
        if tag == "is_a":
            target = _first_token(value)
            if not target:
                raise InputFormatError("'is_a' without a target term", path, line_of(m.start()))
            rel_counts["is_a"] = rel_counts.get("is_a", 0) + 1
            if take_all or "is_a" in want_rel:
                cur_edges.append(("is_a", target, m.start()))
        elif tag == "relationship":
            parts = _strip_value(value).split()
            if len(parts) < 2:
                raise InputFormatError(
                    f"'relationship' needs a type and a target, got {value!r}", path, line_of(m.start())
                )
            rel_counts[parts[0]] = rel_counts.get(parts[0], 0) + 1
            if take_all or parts[0] in want_rel:
                cur_edges.append((parts[0], parts[1], m.start()))
        elif tag == "id":
            if cur_id is not None:
                raise InputFormatError(f"second 'id' in the stanza of {cur_id!r}", path, line_of(m.start()))
            cur_id = _first_token(value)
            if not cur_id:
                raise InputFormatError("empty 'id'", path, line_of(m.start()))
        elif tag == "name":
            cur_name = _unescape(value.rstrip())
        elif tag == "namespace":
            cur_ns = _first_token(value)
        elif tag == "alt_id":
            cur_alts.append(_first_token(value))
        elif tag == "is_obsolete":
            cur_obsolete = _first_token(value).lower() == "true"
        elif tag == "replaced_by":
            cur_repl.append(_first_token(value))
        elif tag == "consider":
            cur_cons.append(_first_token(value))
    finish()

    if not ids:
        raise InputFormatError("no [Term] stanza found (is this an OBO file?)", path)

    # ids.index order = file order; keep the live terms of the chosen namespaces
    live = [t for t in ids if t not in obsolete and (ns_keep is None or nspace[t] in ns_keep)]
    live_set = set(live)
    edges: list[tuple[str, str]] = []
    kept_by_rel: dict[str, int] = {}
    dangling: list[str] = []
    n_dangling = 0
    for child, target, rel, ln in raw_edges:
        if child not in live_set:
            continue
        parent = alt_ids.get(target, target)
        if parent not in live_set:
            n_dangling += 1
            if len(dangling) < 5:
                why = (
                    "obsolete" if parent in obsolete
                    else f"namespace {nspace[parent]}" if parent in nspace
                    else "not defined"
                )
                dangling.append(f"{child} {rel} {target} (line {line_of(ln)}: {why})")
            continue
        edges.append((child, parent))
        kept_by_rel[rel] = kept_by_rel.get(rel, 0) + 1
    try:
        hierarchy = FeatureHierarchy.from_edges(edges, nodes=live, on_cycle="raise")
    except CycleError as exc:
        raise CycleError(f"{path}: {exc}", exc.cycles) from None

    version = header.get("data-version") or header.get("date") or ""
    used = tuple(sorted(rel_counts)) if take_all else tuple(r for r in rels if r != "all")
    report = {
        "n_terms": len(ids),
        "n_live": len(live),
        "n_obsolete": len(obsolete),
        "relations_in_file": dict(sorted(rel_counts.items())),
        "edges_by_relation": dict(sorted(kept_by_rel.items())),
        "dangling_edges": n_dangling,
        "dangling_examples": dangling,
        "format_version": header.get("format-version", ""),
    }
    if n_dangling:
        log.info("%s: %d edge(s) point outside the kept terms, e.g. %s", path, n_dangling, dangling[:1])
    return GeneOntology(
        hierarchy=hierarchy,
        names=names,
        namespace=nspace,
        obsolete=obsolete,
        alt_ids=alt_ids,
        version=version,
        relations=used,
        namespaces=ns_keep,
        path=str(path),
        report=report,
    )


# ---------------------------------------------------------------------- annotations
