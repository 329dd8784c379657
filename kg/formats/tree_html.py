"""An explorable view of a hierarchy in HTML: the selected features with their ancestors in context.

:func:`hierarchy_view` gives an HTML fragment (its style and script inline, no library, no
network) that a report embeds. It shows the features a selector kept together with all their
ancestors, as a tree of native ``<details>`` elements that collapse and expand:

- a feature's line: a mark (kept or not), its id, its name, its support and score, its class
  enrichment when given (``enriched in X (p=…, q=…)``), how many of its children are not shown;
- a DAG is not a tree: a feature with several parents is shown **once**, under its deepest parent
  (the one of the largest level, so every feature sits at the depth of its level), and its other
  parents are listed beside it as links that reveal them. No path is ever enumerated: the view
  holds one entry per shown feature and one link per extra parent edge;
- the children of a feature are built when it is first opened (the data is one JSON block), so a
  view of tens of thousands of features opens at once; at start the features on the way to the
  kept ones are open when there are at most :data:`OPEN_LIMIT` of them, else the first level;
- a search box finds features by id or name and reveals them; buttons expand and collapse all.

Examples
--------
>>> from kg.hierarchy import FeatureHierarchy
>>> h = FeatureHierarchy.from_edges([("b", "a"), ("c", "a"), ("d", "b"), ("d", "c"), ("e", "c")])
>>> v = tree_data(h, selected=[False, False, False, True, False], names={"d": "dee"})
>>> v["id"], v["kids"], v["others"]
(['a', 'b', 'c', 'd'], [[1, 2], [3], [], []], [[], [], [], [2]])
>>> v["hidden"], v["open"]
([0, 0, 1, 0], [0, 1])
>>> "<details" in hierarchy_view(h, selected=[False, False, False, True, False])
False
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import numpy as np

from kg.hierarchy import FeatureHierarchy
from kg.sparse import distinct

__all__ = ["OPEN_LIMIT", "hierarchy_view", "shown_nodes", "tree_data"]

#: At most this many features are opened at start (the ancestors of the kept ones); more: the first level only.
OPEN_LIMIT = 2000


def shown_nodes(hierarchy: FeatureHierarchy, selected) -> np.ndarray:
    """The kept features and all their ancestors (a boolean mask), by a walk up the parent edges.

    Examples
    --------
    >>> h = FeatureHierarchy.from_edges([("b", "a"), ("c", "a")])
    >>> shown_nodes(h, [False, True, False]).tolist()
    [True, True, False]
    """
    sel = np.asarray(selected, dtype=bool)
    mark = sel.copy()
    frontier = np.flatnonzero(sel)
    pm = hierarchy.parent_matrix
    while frontier.size:
        parents = distinct(pm[frontier].indices)
        new = parents[~mark[parents]]
        mark[new] = True
        frontier = new
    return mark


def _num(v):
    if v is None:
        return None
    f = float(v)
    return None if f != f else (int(f) if f.is_integer() and abs(f) < 1e15 else round(f, 6))


def tree_data(hierarchy: FeatureHierarchy, *, selected, names: Mapping[str, str] | None = None,
              support: Sequence | None = None, scores: Sequence | None = None,
              enrichment: Sequence[str] | None = None) -> dict:
    """The view's data: the shown features (kept + ancestors) in topological order, each once.

    Returns
    -------
    dict
        Lists over the shown features: ``id``, ``name``, ``sel`` (0/1), ``sup``, ``score``, ``enr`` (the
        enrichment text, ``None`` when not given or empty),
        ``kids`` (its children shown under it: those whose deepest shown parent it is), ``others``
        (its other shown parents), ``hidden`` (children not shown), ``primary`` (the parent it is
        shown under, -1 for a root); ``roots``, ``open`` (opened at start), and the counts
        ``n_features``, ``n_selected``, ``n_shown``.
    """
    sel = np.asarray(selected, dtype=bool)
    n = hierarchy.n_nodes
    if sel.shape != (n,):
        raise ValueError(f"selected has {sel.shape[0]} values for {n} features")
    mask = shown_nodes(hierarchy, sel)
    order = [i for i in hierarchy.topological_order.tolist() if mask[i]]
    pos = {i: k for k, i in enumerate(order)}
    levels = hierarchy.levels
    pm, cm = hierarchy.parent_matrix, hierarchy.child_matrix
    ids = hierarchy.node_ids
    names = dict(names or {})
    kids: list[list[int]] = [[] for _ in order]
    others: list[list[int]] = [[] for _ in order]
    primary = [-1] * len(order)
    pptr, pind = pm.indptr, pm.indices
    for k, i in enumerate(order):
        ps = [p for p in pind[pptr[i]:pptr[i + 1]].tolist() if mask[p]]
        if not ps:
            continue
        best = max(ps, key=lambda p: (levels[p], -p))  # the deepest parent, then the first
        primary[k] = pos[best]
        kids[pos[best]].append(k)
        others[k] = sorted(pos[p] for p in ps if p != best)
    score = None if scores is None else np.asarray(scores, dtype=float)
    sup = None if support is None else np.asarray(support)
    enr = None if enrichment is None else list(enrichment)
    if enr is not None and len(enr) != n:
        raise ValueError(f"enrichment has {len(enr)} values for {n} features")

    def key(k):  # kept features first, then by score, then id
        i = order[k]
        return (not sel[i], -(score[i] if score is not None and score[i] == score[i] else 0.0), ids[i])

    for lst in kids:
        lst.sort(key=key)
    shown_kids = np.asarray(cm.astype(np.int64) @ mask.astype(np.int64)).ravel()
    n_kids = np.diff(cm.indptr)
    hidden = [int(n_kids[i] - shown_kids[i]) for i in order]
    roots = sorted((k for k in range(len(order)) if primary[k] < 0), key=key)
    opened: set[int] = set()
    for k, i in enumerate(order):  # every ancestor of a kept feature along the tree: the kept ones are in view
        if sel[i]:
            p = primary[k]
            while p >= 0 and p not in opened:
                opened.add(p)
                p = primary[p]
    if len(opened) > OPEN_LIMIT:  # too many to open at once: the first level only
        opened = {r for r in roots if kids[r]}
    return {"id": [str(ids[i]) for i in order], "name": [names.get(str(ids[i]), "") or "" for i in order],
            "sel": [int(sel[i]) for i in order], "sup": [None if sup is None else _num(sup[i]) for i in order],
            "score": [None if score is None else _num(score[i]) for i in order],
            "enr": [enr[i] if enr is not None and isinstance(enr[i], str) and enr[i] else None for i in order],
            "kids": kids, "others": others,
            "hidden": hidden, "primary": primary, "roots": roots, "open": sorted(opened),
            "n_features": int(n), "n_selected": int(sel.sum()), "n_shown": len(order)}


_CSS = """
#kgfs-tree-section .controls{margin:.4em 0;display:flex;gap:.5em;flex-wrap:wrap;align-items:center}
#kgfs-tree-section .controls input{padding:.2em .4em;min-width:18em}
#kgfs-tree{font-size:.9em;max-height:80vh;overflow:auto;border:1px solid #ddd;padding:.4em .6em}
#kgfs-tree details{margin-left:1.1em} #kgfs-tree>details{margin-left:0}
#kgfs-tree summary{cursor:pointer;white-space:nowrap;padding:1px 0}
#kgfs-tree details.leaf>summary{list-style:none;cursor:default}
#kgfs-tree details.leaf>summary::-webkit-details-marker{display:none}
#kgfs-tree details.leaf>summary::before{content:"\\2022";color:#bbb;display:inline-block;width:1em}
#kgfs-tree .mk{display:inline-block;width:1.2em;text-align:center} #kgfs-tree .on{color:#c77700;font-weight:700}
#kgfs-tree .off{color:#aaa} #kgfs-tree .fid{font-family:monospace} #kgfs-tree .nm{margin-left:.4em}
#kgfs-tree .kept>.fid,#kgfs-tree .kept>.nm{font-weight:700;background:#fff3c4}
#kgfs-tree .meta,#kgfs-tree .hid,#kgfs-tree .also{color:#777;margin-left:.6em;font-size:.9em}
#kgfs-tree .hit{outline:2px solid #3b5bdb}
#kgfs-tree-matches a{margin-right:.6em}
"""

_JS = r"""
(function () {
  var D = JSON.parse(document.getElementById("kgfs-tree-data").textContent);
  var box = document.getElementById("kgfs-tree"), made = {};
  function txt(tag, cls, s) {
    var e = document.createElement(tag); if (cls) e.className = cls; e.textContent = s; return e;
  }
  function fmt(v) { return v === null ? "" : (Number.isInteger(v) ? String(v) : v.toFixed(4)); }
  function line(k, sum) {
    var kept = D.sel[k] === 1, lab = document.createElement("span");
    lab.className = kept ? "kept" : "";
    lab.appendChild(txt("span", "mk " + (kept ? "on" : "off"), kept ? "\u25CF" : "\u25CB"));
    lab.appendChild(txt("span", "fid", D.id[k]));
    if (D.name[k]) lab.appendChild(txt("span", "nm", D.name[k]));
    var meta = [];
    if (D.sup[k] !== null) meta.push("support " + fmt(D.sup[k]));
    if (D.score[k] !== null) meta.push("score " + fmt(D.score[k]));
    if (D.enr[k] !== null) meta.push(D.enr[k]);
    if (meta.length) lab.appendChild(txt("span", "meta", meta.join(" \u00B7 ")));
    if (D.hidden[k]) lab.appendChild(txt("span", "hid", "+" + D.hidden[k] + " not shown"));
    if (D.others[k].length) {
      var also = txt("span", "also", "also under: ");
      D.others[k].forEach(function (p, j) {
        var a = txt("a", "", D.id[p]); a.href = "#"; a.title = D.name[p] || D.id[p];
        a.addEventListener("click", function (ev) { ev.preventDefault(); reveal(p); });
        if (j) also.appendChild(document.createTextNode(", "));
        also.appendChild(a);
      });
      lab.appendChild(also);
    }
    sum.appendChild(lab);
  }
  function node(k) {
    var d = document.createElement("details"), s = document.createElement("summary");
    d.className = "node" + (D.kids[k].length ? "" : " leaf"); d.dataset.i = k; d.id = "kgfs-node-" + k;
    line(k, s); d.appendChild(s); made[k] = d;
    if (D.kids[k].length) d.addEventListener("toggle", function () { if (d.open) fill(d, k); });
    else s.addEventListener("click", function (ev) { ev.preventDefault(); });
    return d;
  }
  function fill(d, k) {
    if (d.dataset.filled) return;
    d.dataset.filled = "1";
    var frag = document.createDocumentFragment();
    D.kids[k].forEach(function (c) { frag.appendChild(node(c)); });
    d.appendChild(frag);
  }
  function open(k) { var d = made[k]; if (d && D.kids[k].length) { fill(d, k); d.open = true; } }
  function reveal(k) {
    var chain = [], p = D.primary[k];
    while (p >= 0) { chain.unshift(p); p = D.primary[p]; }
    chain.forEach(open);
    var d = made[k]; if (!d) return;
    Array.prototype.forEach.call(box.querySelectorAll(".hit"), function (e) { e.classList.remove("hit"); });
    d.firstChild.classList.add("hit");
    d.firstChild.scrollIntoView({block: "center"});
  }
  var frag = document.createDocumentFragment();
  D.roots.forEach(function (r) { frag.appendChild(node(r)); });
  box.appendChild(frag);
  D.open.forEach(function (k) { if (made[k]) open(k); else { reveal(k); open(k); } });
  document.getElementById("kgfs-tree-expand").addEventListener("click", function () {
    for (var k = 0; k < D.id.length; k++) { if (made[k]) open(k); }
  });
  document.getElementById("kgfs-tree-collapse").addEventListener("click", function () {
    Array.prototype.forEach.call(box.querySelectorAll("details[open]"), function (e) { e.open = false; });
  });
  var q = document.getElementById("kgfs-tree-search"), out = document.getElementById("kgfs-tree-matches");
  q.addEventListener("input", function () {
    out.textContent = ""; var s = q.value.trim().toLowerCase(); if (s.length < 2) return;
    var n = 0;
    for (var k = 0; k < D.id.length && n < 50; k++) {
      if (D.id[k].toLowerCase().indexOf(s) >= 0 || D.name[k].toLowerCase().indexOf(s) >= 0) {
        (function (k) { var a = txt("a", "", D.id[k] + (D.name[k] ? " " + D.name[k] : "")); a.href = "#";
          a.addEventListener("click", function (ev) { ev.preventDefault(); reveal(k); }); out.appendChild(a); })(k);
        n++;
      }
    }
    if (!n) out.textContent = "no feature matches";
  });
})();
"""


def _json_for_script(obj) -> str:
    """JSON that cannot end the ``<script>`` element it sits in."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/").replace("<!--", "<\\!--")


def hierarchy_view(hierarchy: FeatureHierarchy, *, selected, names: Mapping[str, str] | None = None,
                   support: Sequence | None = None, scores: Sequence | None = None,
                   enrichment: Sequence[str] | None = None, title: str = "") -> str:
    """An HTML fragment (style, data and script inline) showing the kept features and their ancestors.

    Parameters
    ----------
    hierarchy : FeatureHierarchy
    selected : sequence of bool
        Per feature (the hierarchy's order): kept by the selector.
    names : mapping, optional
        Feature id -> name.
    support, scores : sequence, optional
        Per feature: instances having it, and the selector's score.
    enrichment : sequence of str, optional
        Per feature: its class enrichment as a report says it (``enriched in X (p=…, q=…)``; ``""``: none).
    title : str
        A heading above the view.

    Returns
    -------
    str
        ``<section id="kgfs-tree-section">`` with the tree in ``#kgfs-tree``, the controls, the data
        in ``<script type="application/json" id="kgfs-tree-data">``; the tree is built by the inline
        script when the page loads.
    """
    data = tree_data(hierarchy, selected=selected, names=names, support=support, scores=scores,
                     enrichment=enrichment)
    head = (f"<h2>{title}</h2>" if title else "")
    intro = (f"<p>{data['n_selected']} kept feature(s) (\u25CF) with their ancestors (\u25CB): {data['n_shown']} of "
             f"{data['n_features']} features. A feature with several parents is shown once, under its deepest "
             "parent; its other parents are listed beside it (click to reveal). Children are built when a "
             "feature is opened.</p>")
    controls = ('<div class="controls"><button type="button" id="kgfs-tree-expand">expand all</button>'
                '<button type="button" id="kgfs-tree-collapse">collapse all</button>'
                '<input type="search" id="kgfs-tree-search" placeholder="find a feature by id or name"/>'
                '<span id="kgfs-tree-matches"></span></div>')
    return (f'<section id="kgfs-tree-section"><style>{_CSS}</style>{head}{intro}{controls}'
            '<noscript><p>The hierarchy needs JavaScript to be shown.</p></noscript>'
            '<div id="kgfs-tree"></div>'
            f'<script type="application/json" id="kgfs-tree-data">{_json_for_script(data)}</script>'
            f"<script>{_JS}</script></section>")
