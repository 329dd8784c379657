"""The feature hierarchy as a graph file: GraphML (yEd, Gephi, Cytoscape, networkx) and Graphviz DOT.

Each node is a feature: its id, its name (a GO term's name, a DBpedia label) and, when given,
whether a selector kept it and its per-feature attributes (support, score, level, ...); each edge
goes from a child to its parent (the ``child,parent`` rows of ``hierarchy.csv``). Files are
streamed and written atomically, so a hierarchy of 90,000 nodes costs no more than its text.

- GraphML: keys ``name`` (string), ``selected`` (boolean) and one key per attribute (``int`` or
  ``double`` after the values, else ``string``), ``edgedefault="directed"``; text is XML-escaped.
- DOT: ``digraph`` with ``rankdir=BT`` (roots on top), a node's label ``id\\nname``, the selected
  features filled; node ids and labels quoted with ``"`` and ``\\`` escaped.

Examples
--------
>>> import tempfile, pathlib
>>> from kg.hierarchy import FeatureHierarchy
>>> h = FeatureHierarchy.from_edges([("Athlete", "Person")])
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = write_graphml(h, d / "h.graphml", names={"Person": "a person"}, selected=[True, False])
>>> import networkx as nx
>>> g = nx.read_graphml(d / "h.graphml")
>>> sorted(g.edges()), g.nodes["Person"]["name"], g.nodes["Athlete"]["selected"]
([('Athlete', 'Person')], 'a person', True)
>>> print(write_dot(h, d / "h.dot", selected=[True, False]).read_text(), end="")  # doctest: +NORMALIZE_WHITESPACE
digraph hierarchy {
  rankdir=BT;
  node [shape=box, style="rounded", fontname="Helvetica"];
  "Person" [label="Person", selected="false"];
  "Athlete" [label="Athlete", selected="true", style="rounded,filled", fillcolor="#ffd24d"];
  "Athlete" -> "Person";
}
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from kg.errors import KgfsError, few, param
from kg.files import atomic_write
from kg.hierarchy import FeatureHierarchy

__all__ = ["GRAPH_FORMATS", "read_selection", "write_dot", "write_graph", "write_graphml"]

#: The graph formats of ``kgfs export --format``.
GRAPH_FORMATS = ("graphml", "dot")

_XML_INVALID = {c: None for c in range(32) if c not in (9, 10, 13)}  # characters XML 1.0 cannot hold


def _text(v) -> str:
    return str(v).translate(_XML_INVALID)


def _graphml_type(values: np.ndarray) -> str:
    if values.dtype.kind in "iub":
        return "int" if values.dtype.kind != "b" else "boolean"
    if values.dtype.kind == "f":
        return "double"
    return "string"


def _value(v, kind: str) -> str:
    if kind == "boolean":
        return "true" if bool(v) else "false"
    if kind == "double":
        f = float(v)
        return "NaN" if math.isnan(f) else repr(f)
    if kind == "int":
        return str(int(v))
    return _text(v)


def _columns(hierarchy: FeatureHierarchy, names, selected, attributes) -> tuple[list, np.ndarray | None, dict]:
    n = hierarchy.n_nodes
    ids = hierarchy.node_ids.tolist()
    names = dict(names or {})
    label = [names.get(i, "") or "" for i in ids]
    sel = None if selected is None else np.asarray(selected, dtype=bool)
    if sel is not None and sel.shape != (n,):
        raise ValueError(f"selected has {sel.shape[0]} values for {n} nodes")
    attrs = {}
    for k, v in (attributes or {}).items():
        a = np.asarray(v)
        if a.shape != (n,):
            raise ValueError(f"attribute {k!r} has {a.shape[0]} values for {n} nodes")
        attrs[str(k)] = a
    return label, sel, attrs


def write_graphml(hierarchy: FeatureHierarchy, path: str | os.PathLike, *, names: Mapping[str, str] | None = None,
                  selected: Sequence[bool] | None = None, attributes: Mapping[str, Sequence] | None = None) -> Path:
    """Write the hierarchy as GraphML (see the module).

    Parameters
    ----------
    hierarchy : FeatureHierarchy
    path : str or os.PathLike
    names : mapping, optional
        Feature id -> name.
    selected : sequence of bool, optional
        Per node (the hierarchy's order): kept by the selector.
    attributes : mapping, optional
        Attribute name -> one value per node (support, score, level, ...).

    Returns
    -------
    Path
    """
    ids = hierarchy.node_ids.tolist()
    label, sel, attrs = _columns(hierarchy, names, selected, attributes)
    kinds = {k: _graphml_type(a) for k, a in attrs.items()}
    child, parent = hierarchy.edges

    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                     '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
                     'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
                     'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
                     'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n')
            fh.write('  <key id="name" for="node" attr.name="name" attr.type="string"/>\n')
            if sel is not None:
                fh.write('  <key id="selected" for="node" attr.name="selected" attr.type="boolean"/>\n')
            for k, kind in kinds.items():
                fh.write(f'  <key id={quoteattr("a_" + k)} for="node" attr.name={quoteattr(k)} attr.type="{kind}"/>\n')
            fh.write('  <graph id="hierarchy" edgedefault="directed">\n')
            for i, node in enumerate(ids):
                parts = [f'<data key="name">{escape(_text(label[i]))}</data>']
                if sel is not None:
                    parts.append(f'<data key="selected">{"true" if sel[i] else "false"}</data>')
                parts += [f'<data key={quoteattr("a_" + k)}>{escape(_value(a[i], kinds[k]))}</data>'
                          for k, a in attrs.items()]
                fh.write(f'    <node id={quoteattr(_text(node))}>{"".join(parts)}</node>\n')
            for e, (c, p) in enumerate(zip(child.tolist(), parent.tolist())):
                fh.write(f'    <edge id="e{e}" source={quoteattr(_text(ids[c]))} target={quoteattr(_text(ids[p]))}/>\n')
            fh.write("  </graph>\n</graphml>\n")

    atomic_write(path, write)
    return Path(path)


def _dot_quote(s) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "") + '"'


def _dot_id(name: str) -> str:
    """An attribute name as DOT reads it: bare when an identifier, else quoted (``support_pro-longevity``)."""
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else _dot_quote(name)


def write_dot(hierarchy: FeatureHierarchy, path: str | os.PathLike, *, names: Mapping[str, str] | None = None,
              selected: Sequence[bool] | None = None, attributes: Mapping[str, Sequence] | None = None) -> Path:
    """Write the hierarchy as Graphviz DOT (see the module); arguments as :func:`write_graphml`.

    Returns
    -------
    Path
    """
    ids = hierarchy.node_ids.tolist()
    label, sel, attrs = _columns(hierarchy, names, selected, attributes)
    kinds = {k: _graphml_type(a) for k, a in attrs.items()}
    child, parent = hierarchy.edges

    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write('digraph hierarchy {\n  rankdir=BT;\n  node [shape=box, style="rounded", fontname="Helvetica"];\n')
            for i in hierarchy.topological_order.tolist():  # roots first
                text = ids[i] + (f"\n{label[i]}" if label[i] else "")
                parts = [f"label={_dot_quote(text)}"]
                if sel is not None:
                    parts.append(f'selected="{"true" if sel[i] else "false"}"')
                parts += [f"{_dot_id(k)}={_dot_quote(_value(a[i], kinds[k]))}" for k, a in attrs.items()]
                if sel is not None and sel[i]:
                    parts += ['style="rounded,filled"', 'fillcolor="#ffd24d"']
                fh.write(f"  {_dot_quote(ids[i])} [{', '.join(parts)}];\n")
            for c, p in zip(child.tolist(), parent.tolist()):
                fh.write(f"  {_dot_quote(ids[c])} -> {_dot_quote(ids[p])};\n")
            fh.write("}\n")

    atomic_write(path, write)
    return Path(path)


def write_graph(fmt: str, hierarchy: FeatureHierarchy, path: str | os.PathLike, **kw) -> Path:
    """:func:`write_graphml` or :func:`write_dot` by ``fmt`` (one of :data:`GRAPH_FORMATS`).

    Examples
    --------
    >>> write_graph("svg", FeatureHierarchy.from_edges([]), "x")
    Traceback (most recent call last):
    ...
    ValueError: unknown graph format 'svg' (graphml or dot)
    """
    if fmt == "graphml":
        return write_graphml(hierarchy, path, **kw)
    if fmt == "dot":
        return write_dot(hierarchy, path, **kw)
    raise ValueError(f"unknown graph format {fmt!r} (graphml or dot)")


def read_selection(path: str | os.PathLike, hierarchy: FeatureHierarchy) -> tuple[np.ndarray, dict, dict]:
    """The selection flags, names and per-feature columns of a ``selection.csv`` (or ``selected_features.csv``).

    Parameters
    ----------
    path : str or os.PathLike
        ``selection.csv`` (every feature, a ``selected`` column) or ``selected_features.csv`` (the
        kept ones: all selected), as ``kgfs select`` and ``kgfs run`` write them.
    hierarchy : FeatureHierarchy
        The table's hierarchy: the flags are given in its node order.

    Returns
    -------
    selected : ndarray of bool
    names : dict
        Feature id -> name (the file's ``name`` column).
    attributes : dict
        ``support``, ``score``, ``level`` and the class enrichment's ``enriched_in`` (``""``: no class),
        ``p_enrichment``, ``q_enrichment``, ``support_<class>`` (the columns present) in the hierarchy's node
        order (NaN, or ``""``, where the file does not list a feature).

    Raises
    ------
    KgfsError
        No ``feature`` column, or features the hierarchy does not have (named).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "selection.csv"
    >>> _ = p.write_text("feature,name,score,selected\\nPerson,a person,0.5,True\\nAthlete,,0.1,False\\n")
    >>> sel, names, attrs = read_selection(p, FeatureHierarchy.from_edges([("Athlete", "Person")]))
    >>> sel.tolist(), names, attrs["score"].tolist()
    ([False, True], {'Person': 'a person'}, [0.1, 0.5])
    """
    import pandas as pd

    frame = pd.read_csv(path, dtype={"feature": str, "name": str, "enriched_in": str})
    if "feature" not in frame:
        raise KgfsError(f"{path}: no 'feature' column (expected the selection.csv or selected_features.csv of "
                        f"`kgfs select` or `kgfs run`) ({param('selection')})")
    unknown = sorted(set(frame["feature"]) - set(hierarchy.index))
    if unknown:
        raise KgfsError(f"{path}: {len(unknown)} feature(s) are not in the table: {few(unknown, 3)} "
                        f"({param('selection')})")
    by = frame.set_index("feature")
    ids = hierarchy.node_ids.tolist()
    listed = by.reindex(ids)
    selected = (listed["selected"].fillna(False).astype(bool) if "selected" in by
                else pd.Series([i in by.index for i in ids], index=ids)).to_numpy()
    names = {f: n for f, n in by["name"].items() if isinstance(n, str) and n} if "name" in by else {}
    attrs = {}
    for c in by.columns:  # the file's order: support, score, level, then the class enrichment's
        if c == "enriched_in":
            attrs[c] = listed[c].fillna("").astype(str).to_numpy(dtype=object)
        elif c in ("support", "score", "level", "p_enrichment", "q_enrichment") or str(c).startswith("support_"):
            a = pd.to_numeric(listed[c], errors="coerce").to_numpy(dtype=float)
            whole = (np.isfinite(a).all() and np.array_equal(a, np.round(a))
                     and c not in ("score", "p_enrichment", "q_enrichment"))
            attrs[c] = a.astype(np.int64) if whole else a
    return selected, names, attrs
