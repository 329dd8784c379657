"""A picture of a GA tree: base classifiers with their features, leaves with their classes (PNG).

Drawn with matplotlib's object API (a :class:`~matplotlib.figure.Figure` on its own Agg canvas),
so pyplot's global state and the process's backend are never touched.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kg.files import atomic_write
from selection.class_hierarchy.ga_tree.layout import GATree

__all__ = ["draw_tree"]


def _positions(tree: GATree, cn, fn):
    """Where everything goes: node centres, boxes ``(x, y, text, kind)``, edges, leaf count.

    Leaves take consecutive x positions from left to right; a node sits above the mean of its
    outputs; depth is the negative y.
    """
    pos: dict = {}
    boxes: list = []
    edges: list = []  # (node id, ("node", child id) or ("leaf", x, y), output)
    counter = [0]

    def place(i: int, depth: int) -> float:
        n = tree.nodes[i]
        xs = []
        for o in n.outputs:
            if o in n.children:
                x = place(n.children[o], depth + 1)
                edges.append((i, ("node", n.children[o]), o))
            else:
                x = counter[0]
                counter[0] += 1
                cls = n.output_classes(o)
                boxes.append((x, -(depth + 1), ",".join(cn(c) for c in cls), "leaf"))
                edges.append((i, ("leaf", x, -(depth + 1)), o))
            xs.append(x)
        pos[i] = (float(np.mean(xs)), -depth)
        feats = ", ".join(fn(f) for f in n.features) or "none"
        boxes.append((pos[i][0], -depth, f"B{n.id}\n[{feats}]", "node"))
        return pos[i][0]

    if tree.nodes:
        place(0, 0)
    else:
        boxes.append((0.0, 0.0, ",".join(cn(c) for c in range(tree.n_classes)), "leaf"))
    return pos, boxes, edges, max(counter[0], 1)


def draw_tree(tree: GATree, path, *, class_names=None, feature_names=None, title=None) -> Path:
    """Render ``tree`` to a PNG file at ``path``, written atomically.

    Parameters
    ----------
    tree : GATree
    path : str or Path
        The PNG file.
    class_names, feature_names : sequence, optional
        Labels of the class codes and feature indices (default: the codes, ``f<index>``).
    title : str, optional

    Returns
    -------
    Path
        ``path``.

    Examples
    --------
    >>> import tempfile
    >>> from selection.class_hierarchy.ga_tree.layout import flat_tree
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = draw_tree(flat_tree(3, [0, 2]), Path(d) / "tree.png", class_names=["a", "b", "c"])
    ...     p.read_bytes()[1:4]
    b'PNG'
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    cn = (lambda c: str(class_names[c])) if class_names is not None else str
    fn = (lambda f: str(feature_names[f])) if feature_names is not None else (lambda f: f"f{f}")
    pos, boxes, edges, width = _positions(tree, cn, fn)
    depth = tree.n_levels + 1
    fig = Figure(figsize=(max(3.0, 1.6 * width), max(2.5, 1.4 * depth)))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    for i, target, o in edges:
        x0, y0 = pos[i]
        x1, y1 = pos[target[1]] if target[0] == "node" else (target[1], target[2])
        ax.plot([x0, x1], [y0, y1], color="0.4", lw=1, zorder=1)
        ax.text((x0 + x1) / 2, (y0 + y1) / 2, str(o), fontsize=8, color="0.3", ha="center", va="center",
                bbox=dict(boxstyle="circle,pad=0.15", fc="white", ec="none"), zorder=2)
    for x, yy, text, kind in boxes:
        style = dict(boxstyle="round,pad=0.3", fc="#dbe9f6" if kind == "node" else "#f6e7d8", ec="0.3")
        ax.text(x, yy, text, ha="center", va="center", fontsize=9, bbox=style, zorder=3)
    ax.set_xlim(-0.8, width - 0.2)
    ax.set_ylim(-depth + 0.4, 0.6)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    path = Path(path)
    atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=110))
    return path
