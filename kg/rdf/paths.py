"""Paths with their objects as one hierarchy: which relation, to what class, to *which* object, up to ``depth`` hops.

:mod:`kg.rdf.relations` stops at an entity's first hop and at the class of its neighbour
(``out:p``, ``out:p|C``). The answer of many tasks lies in *which* neighbour an entity has (the
projects of a person, the atoms of a molecule) or two hops away (the group that publishes a person's
papers). The ``paths`` kind (``--features paths --depth 2``) says, for each entity ``e``:

- ``d1:p1>d2:p2>...>dk:pk`` (a *path*, ``k <= depth``): ``e`` reaches some node along these steps,
  each step a relation predicate ``p`` followed forward (``out``, ``e p x``) or backward (``in``,
  ``x p e``), as the ``--direction`` allows;
- ``<path>|<C>``: ... a node of the class ``C`` (its types in the source's type namespaces and every
  superclass of them);
- ``<path>|=<o>``: ... the node ``o`` itself (an IRI).

A depth-1 path and its classes are the ids of :mod:`kg.rdf.relations` (``out:p``, ``out:p|C``), so
``paths --depth 1`` is ``qualified-relations`` plus the objects. ``|`` and ``>`` never occur in an
IRI, so an id reads back unambiguously (:func:`parse_path_id`).

The hierarchy is what the features mean (:func:`path_edges`): an object implies its classes
(``out:p|=o`` => ``out:p|C`` for each class ``C`` of ``o``; an object without a class => ``out:p``),
a class its superclasses and, at the top, the bare path, a longer path its prefix
(``out:p>in:q`` => ``out:p``), and a subproperty its property on any step (``out:p>in:q`` =>
``out:r>in:q`` when ``p`` is a subproperty of ``r``). The table built over it is closed.

Generation never materialises what ``min_support`` drops (:func:`path_features`). Support only falls
down the hierarchy, so the generator goes level by level, Apriori's rule: the paths of a level are
counted from each node's *steps* before any walk is followed, only the frequent ones are followed,
and their classes and objects are counted and kept only when frequent. The support counted is the
number of fitting rows that can have the feature (an entity counts for every row it occurs in), an
upper bound of the table's own support: nothing the table keeps is ever dropped here.

Choices (documented and tested):

- A walk never comes back to the entity it started from after the first hop (``out:author>in:author``
  are the co-authors, not the person); first-hop self-loops are relations like any other.
- Hubs are bounded: a node with more than ``max_fanout`` relations in a direction is not walked through
  in that direction beyond the first hop (its own first-hop relations stay). The nodes skipped are
  counted in the report (``hubs``, with examples): deterministic, and said.
- Excluded predicates (``--exclude-properties``) and their subproperties are on no step.
- Cycles of the class graph are broken once, as :mod:`kg.rdf.relations` breaks them for the
  qualified relations; cycles of the property and class graphs are merged by the route.
- Counts (``values="count"``) are numbers of walks: ``out:hasAtom|Carbon`` counts a molecule's
  carbon atoms, ``out:p>in:q`` the (node, node) walks of the path.

Examples
--------
>>> import rdflib
>>> from kg.rdf.sources.rdflib_graph import RdflibSource
>>> g = rdflib.Graph().parse(format="turtle", data='''
... @prefix dbo: <http://dbpedia.org/ontology/> . @prefix dbr: <http://dbpedia.org/resource/> .
... dbr:Kobe dbo:team dbr:Lakers . dbr:Shaq dbo:team dbr:Lakers . dbr:Lakers a dbo:SportsTeam .''')
>>> per, counts, report = path_features(["http://dbpedia.org/resource/Kobe", "http://dbpedia.org/resource/Shaq"],
...                                     RdflibSource(g), options=PathOptions(depth=2, direction="both"))
>>> sorted(short(f) for f in per["http://dbpedia.org/resource/Kobe"])
['out:team', 'out:team>in:team', 'out:team>in:team|=Shaq', 'out:team|=Lakers', 'out:team|SportsTeam']
>>> sorted((short(c), short(p)) for c, p in path_edges(per["http://dbpedia.org/resource/Kobe"], RdflibSource(g)))
[('out:team>in:team', 'out:team'), ('out:team>in:team|=Shaq', 'out:team>in:team'),
 ('out:team|=Lakers', 'out:team|SportsTeam'), ('out:team|SportsTeam', 'out:team')]
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kg.errors import KgfsError, ParameterError, param
from kg.rdf.relations import RelationOptions, _class_graph, _excluded, local_name
from kg.sources import DIRECTIONS, breadth_first_edges
from kg.sparse import distinct, distinct_rows

__all__ = ["MAX_DEPTH", "PathOptions", "is_path_id", "parse_path_id", "path_edges", "path_features", "path_id",
           "short"]

log = logging.getLogger(__name__)

#: The deepest paths asked (the walks grow with the depth's power of the graph's degree).
MAX_DEPTH = 3
#: A node with more relations than this in a direction is not walked through (``max_fanout``).
DEFAULT_MAX_FANOUT = 1000


@dataclass(frozen=True)
class PathOptions(RelationOptions):
    """How paths become features (:class:`~kg.rdf.relations.RelationOptions` and three more).

    Parameters
    ----------
    depth : int
        The longest path, 1 to :data:`MAX_DEPTH` (``--depth``).
    objects : bool
        Also the ``|=o`` features (which object a path reaches).
    max_fanout : int
        Nodes with more relations in a direction are not walked through (see the module).
    prune : int
        Generate only the features of at least this many fitting rows (the table's ``min_support``:
        Apriori's rule, see the module; 1 generates every feature).

    Examples
    --------
    >>> PathOptions(depth=2, direction="both").to_json()
    {'direction': 'both', 'exclude': [], 'depth': 2}
    >>> PathOptions(depth=4)
    Traceback (most recent call last):
    ...
    kg.errors.ParameterError: depth=4: paths are 1 to 3 steps long
    """

    depth: int = 2
    objects: bool = True
    max_fanout: int = DEFAULT_MAX_FANOUT
    prune: int = 1

    def __post_init__(self):
        super().__post_init__()
        if isinstance(self.prune, bool) or not isinstance(self.prune, int | np.integer) or self.prune < 1:
            raise ParameterError(f"{param('min_support', self.prune)}: give a positive number of rows")
        object.__setattr__(self, "prune", int(self.prune))
        if isinstance(self.depth, bool) or not isinstance(self.depth, int | np.integer) \
                or not 1 <= self.depth <= MAX_DEPTH:
            raise ParameterError(f"{param('depth', self.depth)}: paths are 1 to {MAX_DEPTH} steps long")
        if isinstance(self.max_fanout, bool) or not isinstance(self.max_fanout, int | np.integer) \
                or self.max_fanout < 1:
            raise ParameterError(f"{param('max_fanout', self.max_fanout)}: give a positive number of relations")
        object.__setattr__(self, "depth", int(self.depth))

    def to_json(self) -> dict:
        out = {**super().to_json(), "depth": self.depth}
        if not self.objects:
            out["objects"] = False
        if self.max_fanout != DEFAULT_MAX_FANOUT:
            out["max_fanout"] = int(self.max_fanout)
        if self.prune != 1:
            out["prune"] = self.prune
        return out


# ------------------------------------------------------------------------------------------- ids
def path_id(steps: Sequence[tuple[str, str]], cls: str | None = None, obj: str | None = None) -> str:
    """The id of a path feature: ``steps`` as ``(direction, predicate)``, with a class or an object.

    Examples
    --------
    >>> path_id([("out", "http://x/p"), ("in", "http://x/q")], obj="http://x/o")
    'out:http://x/p>in:http://x/q|=http://x/o'
    """
    return _with_tail(">".join(f"{d}:{p}" for d, p in steps), cls, obj)


def _with_tail(head: str, cls: str | None, obj: str | None) -> str:
    """A path's id with its class (``|C``) or its object (``|=o``)."""
    if obj is not None:
        return f"{head}|={obj}"
    return head if cls is None else f"{head}|{cls}"


def parse_path_id(fid: str) -> tuple[tuple[tuple[str, str], ...], str | None, str | None] | None:
    """``(steps, class or None, object or None)`` of a path (or relation) feature id; ``None`` for any other id.

    Examples
    --------
    >>> parse_path_id("out:http://x/p>in:http://x/q|http://x/C")
    ((('out', 'http://x/p'), ('in', 'http://x/q')), 'http://x/C', None)
    >>> parse_path_id("http://x/C") is None
    True
    """
    head, bar, tail = fid.partition("|")
    steps = []
    for part in head.split(">"):
        d, sep, p = part.partition(":")
        if not sep or d not in DIRECTIONS or not p:
            return None
        steps.append((d, p))
    if not bar:
        return tuple(steps), None, None
    if tail.startswith("="):
        return tuple(steps), None, tail[1:]
    return tuple(steps), tail, None


def is_path_id(fid: str) -> bool:
    """Whether an id says more than a relation id can: several steps, or an object.

    Examples
    --------
    >>> is_path_id("out:http://x/p>in:http://x/q"), is_path_id("out:http://x/p|=http://x/o"), is_path_id("out:p|C")
    (True, True, False)
    """
    rel = parse_path_id(fid)
    return rel is not None and (len(rel[0]) > 1 or rel[2] is not None)


def short(fid: str) -> str:
    """A path id with each IRI cut to its local name (for examples and logs).

    Examples
    --------
    >>> short("out:http://x/p>in:http://x/q|=http://x/o")
    'out:p>in:q|=o'
    """
    rel = parse_path_id(fid)
    if rel is None:
        return local_name(fid)
    steps, c, o = rel
    return path_id([(d, local_name(p)) for d, p in steps], c and local_name(c), o and local_name(o))


# ------------------------------------------------------------------------------------------- generation
class _Index:
    """IRIs <-> ints, in the order first met."""

    def __init__(self):
        self.ids: dict[str, int] = {}
        self.items: list[str] = []

    def __call__(self, iri: str) -> int:
        j = self.ids.get(iri)
        if j is None:
            j = self.ids[iri] = len(self.items)
            self.items.append(iri)
        return j


def _group_sum(keys: np.ndarray, values: np.ndarray, inverse: bool = False):
    """The distinct rows of ``keys`` (n x k non-negative ints) in lexicographic order, the sum of ``values`` over
    each (and, with ``inverse``, the group of every row).

    The rows are packed into one int64 each when they fit (:func:`kg.sparse.distinct_rows`).
    """
    if len(keys) == 0:
        return (keys, values, np.zeros(0, np.int64)) if inverse else (keys, values)
    uniq, inv = distinct_rows(np.asarray(keys, dtype=np.int64), return_inverse=True)
    inv = inv.ravel()
    sums = np.bincount(inv, weights=values, minlength=len(uniq))
    return (uniq, sums, inv) if inverse else (uniq, sums)


def path_features(
    entities: Sequence[str],
    source,
    *,
    options: PathOptions | None = None,
    min_support: float | None = None,
    weights: Mapping[str, float] | None = None,
    allowed: Iterable[str] | None = None,
    counts: bool = True,
) -> tuple[dict[str, set[str]], dict[str, dict[str, int]], dict]:
    """Each entity's path features that are frequent (or ``allowed``), and their counts.

    Parameters
    ----------
    entities : sequence of str
        Entity IRIs.
    source : RelationSource
        Answers ``relations``, ``types``, ``class_edges`` and ``property_edges``.
    options : PathOptions, optional
        Depth, direction, excluded predicates, objects, the hub bound.
    min_support : number, optional
        Keep a feature when the entities that have it weigh at least this much together (see the module;
        default: the options' ``prune``).
    weights : mapping of entity -> number, optional
        How many rows each entity stands for (default 1 each).
    allowed : iterable of str, optional
        Keep exactly the features in this set instead (a fitted vocabulary: what a transform may give).
    counts : bool
        Also count the walks behind each feature (``False``: the second result is empty, for binary tables).

    Returns
    -------
    per_entity : dict of entity -> set of str
        Every entity is a key; the features kept, closed under prefixes and classes.
    counts : dict of entity -> dict of str -> int
        The number of walks behind each of them (see the module).
    report : dict
        ``n_relations`` (first-hop relations used), ``n_predicates``, ``excluded_predicates``,
        ``generated`` (features counted, per level and in all), ``kept``, ``hubs`` (nodes not walked
        through), ``hub_examples``.

    Examples
    --------
    See the module.
    """
    if not hasattr(source, "relations"):
        raise KgfsError(f"{type(source).__name__} does not answer relation questions (it is no RelationSource)")
    opts = options or PathOptions()
    min_support = opts.prune if min_support is None else min_support
    ents = sorted(set(entities))
    allow = None if allowed is None else set(allowed)
    w = np.asarray([float((weights or {}).get(e, 1)) for e in ents], dtype=np.float64)
    nodes = _Index()
    start = np.asarray([nodes(e) for e in ents], dtype=np.int64)
    steps = _Index()  # "d p" -> step id
    paths: list[tuple[int, ...]] = []  # path id -> step ids
    path_of: dict[tuple[int, ...], int] = {}
    per: dict[str, set[str]] = {e: set() for e in ents}
    walks_of: dict[str, dict[str, int]] = {e: {} for e in ents}
    report = {"generated": [], "kept": [], "hubs": 0, "hub_examples": []}

    def step_label(sid: int) -> tuple[str, str]:
        d, p = steps.items[sid].split(" ", 1)
        return d, p

    def label(pid: int) -> list[tuple[str, str]]:
        return [step_label(s) for s in paths[pid]]

    def keep(support: np.ndarray, name) -> tuple[np.ndarray, list[str]]:
        """Which candidates are kept, and the names of those only (``name(i)``: the id of candidate ``i``);
        against a vocabulary every candidate is named, otherwise only the frequent ones."""
        if allow is not None:
            fids = [name(i) for i in range(len(support))]
            ok = np.fromiter((f in allow for f in fids), dtype=bool, count=len(fids))
            return ok, [f for f, o in zip(fids, ok.tolist()) if o]
        ok = support >= min_support - 1e-9
        return ok, [name(i) for i in np.flatnonzero(ok).tolist()]

    def add(rows: np.ndarray, name_ids: np.ndarray, walks: np.ndarray, names: list[str]) -> None:
        """Each ``rows[i]`` has the feature ``names[name_ids[i]]``, behind ``walks[i]`` walks."""
        if not counts:
            for r, j in zip(rows.tolist(), name_ids.tolist()):
                per[ents[r]].add(names[j])
            return
        for r, j, k in zip(rows.tolist(), name_ids.tolist(), walks.tolist()):
            f = names[j]
            per[ents[r]].add(f)
            walks_of[ents[r]][f] = int(k)

    # ---- the first hop: every relation of the entities
    first = {d: source.relations(ents, d) for d in opts.directions}
    preds = {p for per_d in first.values() for ps in per_d.values() for p, _ in ps}
    excluded = _excluded(source.property_edges(sorted(preds)), opts.exclude) if opts.exclude and preds else set()
    rows, sids, dst = [], [], []
    for d, per_d in first.items():
        for i, e in enumerate(ents):
            for p, o in sorted(per_d.get(e, ())):
                if p in excluded:
                    continue
                rows.append(i)
                sids.append(steps(f"{d} {p}"))
                dst.append(nodes(o))
    report["n_relations"] = len(rows)
    report["n_predicates"] = len({steps.items[s].split(" ", 1)[1] for s in set(sids)})
    report["excluded_predicates"] = sorted(preds & excluded)
    # the walks of a level: (row, path, node) and how many walks end there; level 1's paths are its steps
    for s in sorted(set(sids)):
        path_of[(s,)] = len(paths)
        paths.append((s,))
    walk_row = np.asarray(rows, dtype=np.int64)
    walk_path = np.asarray([path_of[(s,)] for s in sids], dtype=np.int64)
    walk_node = np.asarray(dst, dtype=np.int64)
    walk_count = np.ones(len(rows), dtype=np.float64)
    classes_of: dict[int, np.ndarray] = {}  # node -> closed class ids
    class_index = _Index()
    class_parents = None

    for level in range(1, opts.depth + 1):
        if len(walk_row) == 0:
            break
        # the paths of this level: support over the rows that have a walk of them
        pairs, _ = _group_sum(np.stack([walk_path, walk_row], axis=1), np.zeros(len(walk_row)))
        psupport = np.bincount(pairs[:, 0], weights=w[pairs[:, 1]], minlength=len(paths)) if len(pairs) else \
            np.zeros(len(paths))
        level_paths = distinct(walk_path)
        ok, names = keep(psupport[level_paths], lambda i: path_id(label(int(level_paths[i]))))
        kept_paths = level_paths[ok]
        generated, kept = len(level_paths), int(ok.sum())
        mask = np.isin(walk_path, kept_paths) if len(kept_paths) else np.zeros(len(walk_path), bool)
        walk_row, walk_path, walk_node, walk_count = (walk_row[mask], walk_path[mask], walk_node[mask],
                                                      walk_count[mask])
        path_names = dict(zip(kept_paths.tolist(), names))
        # the bare paths and their counts
        keys, c = _group_sum(np.stack([walk_row, walk_path], axis=1), walk_count)
        if len(keys):
            rank = np.searchsorted(kept_paths, keys[:, 1])
            add(keys[:, 0], rank, c, names)
        # the classes of the nodes reached, closed upward
        todo = sorted({int(x) for x in distinct(walk_node)} - classes_of.keys())
        if todo:
            direct = source.types([nodes.items[j] for j in todo])
            met = sorted({c for cs in direct.values() for c in cs})
            if met:
                new_edges = _class_graph(source.class_edges(met))
                class_parents = _parents_map(new_edges, class_parents)
            # closed once for each class and for each set of classes met (with this level's class graph)
            up: dict[str, frozenset[int]] = {}
            closure: dict[frozenset, np.ndarray] = {frozenset(): np.zeros(0, dtype=np.int64)}
            for j in todo:
                cs = frozenset(direct.get(nodes.items[j], ()))
                got = closure.get(cs)
                if got is None:
                    ids: set[int] = set()
                    for c in cs:
                        above = up.get(c)
                        if above is None:
                            above = up[c] = frozenset(class_index(x) for x in sorted(_closed((c,), class_parents)))
                        ids |= above
                    got = closure[cs] = np.asarray(sorted(ids), dtype=np.int64)
                classes_of[j] = got
        g_cls, k_cls = _class_features(walk_row, walk_path, walk_node, walk_count, classes_of, len(class_index.items))
        if len(g_cls):
            pc, csupport, group = _group_sum(g_cls[:, 1:3], w[g_cls[:, 0]], inverse=True)  # (path, class) -> support
            ok, cnames = keep(csupport, lambda i: f"{path_names[int(pc[i, 0])]}|{class_index.items[int(pc[i, 1])]}")
            generated += len(pc)
            kept += int(ok.sum())
            sel = ok[group]
            add(g_cls[sel, 0], (np.cumsum(ok) - 1)[group[sel]], k_cls[sel], cnames)
        if opts.objects:
            okeys, osupport, group = _group_sum(np.stack([walk_path, walk_node], axis=1), w[walk_row], inverse=True)
            ok, onames = keep(osupport, lambda i: f"{path_names[int(okeys[i, 0])]}|={nodes.items[int(okeys[i, 1])]}")
            generated += len(okeys)
            kept += int(ok.sum())
            sel = ok[group]
            add(walk_row[sel], (np.cumsum(ok) - 1)[group[sel]], walk_count[sel], onames)
        report["generated"].append(generated)
        report["kept"].append(kept)
        if level == opts.depth:
            break
        # ---- the next level: the steps out of every node reached, then only the frequent extensions are walked
        frontier = distinct(walk_node)
        e_src, e_sid, e_dst = _node_relations(frontier, nodes, steps, source, opts, excluded, report)
        if len(e_src) == 0:
            break
        order = np.lexsort((e_dst, e_sid, e_src))
        e_src, e_sid, e_dst = e_src[order], e_sid[order], e_dst[order]
        # Apriori on the paths: which (row, path) reaches a node with a step s, before any walk is followed
        node_steps, _ = _group_sum(np.stack([e_src, e_sid], axis=1), np.zeros(len(e_src)))
        ns_lo = np.searchsorted(node_steps[:, 0], walk_node, "left")
        ns_hi = np.searchsorted(node_steps[:, 0], walk_node, "right")
        rep = ns_hi - ns_lo
        idx = np.repeat(np.arange(len(walk_node)), rep)
        offs = np.arange(rep.sum()) - np.repeat(np.cumsum(rep) - rep, rep)
        ext_step = node_steps[ns_lo[idx] + offs, 1]
        rp, _ = _group_sum(np.stack([walk_path[idx], ext_step, walk_row[idx]], axis=1), np.zeros(len(idx)))
        del idx, offs, ext_step
        ext_keys, ext_support = _group_sum(rp[:, :2], w[rp[:, 2]])
        del rp
        ok, ext_names = keep(ext_support, lambda i: path_id([*label(int(ext_keys[i, 0])),
                                                              step_label(int(ext_keys[i, 1]))]))
        if not ok.any():
            report["generated"].append(len(ext_keys))
            report["kept"].append(0)
            break
        # the frequent extensions become paths (the others are never named nor numbered)
        wanted_code, wanted_path = [], []
        n_steps = len(steps.items)
        for p, st in ext_keys[ok].tolist():
            key = (*paths[p], st)
            if key not in path_of:
                path_of[key] = len(paths)
                paths.append(key)
            wanted_code.append(p * n_steps + st)
            wanted_path.append(path_of[key])
        wanted_code = np.asarray(wanted_code, dtype=np.int64)  # sorted: ext_keys are
        wanted_path = np.asarray(wanted_path, dtype=np.int64)
        # follow the walks of the frequent extensions only
        lo = np.searchsorted(e_src, walk_node, "left")
        hi = np.searchsorted(e_src, walk_node, "right")
        rep = hi - lo
        idx = np.repeat(np.arange(len(walk_node)), rep)
        offs = np.arange(rep.sum()) - np.repeat(np.cumsum(rep) - rep, rep)
        edge = lo[idx] + offs
        del offs
        code = walk_path[idx] * n_steps + e_sid[edge]
        at = np.minimum(np.searchsorted(wanted_code, code), len(wanted_code) - 1)
        new_path = np.where(wanted_code[at] == code, wanted_path[at], -1)
        del code, at
        new_row, new_node, new_count = walk_row[idx], e_dst[edge], walk_count[idx]
        ok = (new_path >= 0) & (new_node != start[new_row])  # never back to the start
        keys, c = _group_sum(np.stack([new_row[ok], new_path[ok], new_node[ok]], axis=1), new_count[ok])
        del idx, edge, new_row, new_node, new_count, new_path, ok
        if len(keys) == 0:
            break
        walk_row, walk_path, walk_node, walk_count = keys[:, 0], keys[:, 1], keys[:, 2], c
    report["generated_total"] = int(sum(report["generated"]))
    report["kept_total"] = int(sum(report["kept"]))
    if report["hubs"]:
        log.info("%d node(s) with more than %d relations in a direction were not walked through (e.g. %s)",
                 report["hubs"], opts.max_fanout, ", ".join(report["hub_examples"]))
    return per, walks_of, report


def _parents_map(edges: Iterable[tuple[str, str]], into: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    """child -> its parents (added to ``into`` when given)."""
    out = {} if into is None else into
    for c, p in edges:
        out.setdefault(c, set()).add(p)
    return out


def _closed(start: Iterable[str], parents: Mapping[str, set[str]] | None) -> set[str]:
    """``start`` and every ancestor of it."""
    start = list(start)
    walk = breadth_first_edges(start, lambda xs: {x: (parents or {}).get(x, set()) for x in xs}, None)
    return set(start) | {p for _, p in walk}


def _class_features(walk_row, walk_path, walk_node, walk_count, classes_of, n_classes):
    """``(row, path, class)`` for every class of every node reached, and the walks behind each."""
    uniq, inv = np.unique(walk_node, return_inverse=True)  # each node's classes looked up once
    got = [classes_of.get(j, ()) for j in uniq.tolist()]
    lens_u = np.fromiter((len(cs) for cs in got), dtype=np.int64, count=len(got))
    if lens_u.sum() == 0:
        return np.zeros((0, 3), np.int64), np.zeros(0)
    flat = np.concatenate([cs for cs in got if len(cs)])
    lens = lens_u[inv]
    idx = np.repeat(np.arange(len(walk_node)), lens)
    offs = np.arange(len(idx)) - np.repeat(np.cumsum(lens) - lens, lens)
    cls = flat[np.repeat((np.cumsum(lens_u) - lens_u)[inv], lens) + offs]
    return _group_sum(np.stack([walk_row[idx], walk_path[idx], cls], axis=1), walk_count[idx])


def _node_relations(frontier: np.ndarray, nodes: _Index, steps: _Index, source, opts: PathOptions,
                    excluded: set[str], report: dict):
    """The relations out of the frontier's nodes, as (source node, step, destination node) arrays, hubs left out."""
    src, sid, dst = [], [], []
    iris = [nodes.items[j] for j in frontier.tolist()]
    for d in opts.directions:
        rel = source.relations(iris, d)
        step_of: dict[str, int] = {}  # predicate -> step id, this direction
        for j, iri in zip(frontier.tolist(), iris):
            pairs = rel.get(iri, ())
            if excluded:
                pairs = [(p, o) for p, o in pairs if p not in excluded]
            if len(pairs) > opts.max_fanout:
                report["hubs"] += 1
                if len(report["hub_examples"]) < 5:
                    report["hub_examples"].append(f"{iri} ({d}: {len(pairs)})")
                continue
            for p, o in sorted(pairs):
                s = step_of.get(p)
                if s is None:
                    s = step_of[p] = steps(f"{d} {p}")
                src.append(j)
                sid.append(s)
                dst.append(nodes(o))
    return (np.asarray(src, dtype=np.int64), np.asarray(sid, dtype=np.int64), np.asarray(dst, dtype=np.int64))


# ------------------------------------------------------------------------------------------- the hierarchy
def path_edges(features: Iterable[str], source) -> set[tuple[str, str]]:
    """The hierarchy edges above path features, up to the bare first steps (see the module for its rules).

    Parameters
    ----------
    features : iterable of str
        Path (and relation) feature ids.
    source : RelationSource
        Answers ``types`` (of the objects), ``class_edges`` and ``property_edges``.

    Returns
    -------
    set of (child, parent)
        Between feature ids; every parent is a node too, with its own parents (cycles of the property
        graph stay: the route breaks them).

    Examples
    --------
    See the module.
    """
    parsed = {}
    for f in features:
        rel = parse_path_id(f)
        if rel is None:
            raise ValueError(f"not a path feature id: {f!r}")
        parsed[f] = rel
    objects = sorted({o for _, _, o in parsed.values() if o is not None})
    object_types = source.types(objects) if objects else {}
    classes = sorted({c for _, c, _ in parsed.values() if c is not None} |
                     {c for cs in object_types.values() for c in cs})
    class_parents = _sorted_parents(_class_graph(source.class_edges(classes)) if classes else ())
    preds = sorted({p for steps, _, _ in parsed.values() for _, p in steps})
    prop_parents = _sorted_parents(source.property_edges(preds) if preds else ())
    object_classes = {o: tuple(sorted(cs)) for o, cs in object_types.items()}
    heads: dict[tuple, str] = {}  # steps -> their part of the ids (each path is the head of many ids)
    ids: dict[tuple, str] = {}  # node -> its id: one string for all the edges of a node

    def fid(steps, c, o) -> str:
        got = ids.get((steps, c, o))
        if got is None:
            head = heads.get(steps)
            if head is None:
                head = heads[steps] = path_id(steps)
            got = ids[steps, c, o] = _with_tail(head, c, o)
        return got

    edges: set[tuple[str, str]] = set()
    seen: set[tuple] = set()
    todo = list(parsed.values())
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        steps, c, o = node
        parents = []
        if o is not None:
            parents += [(steps, x, None) for x in object_classes.get(o, ())] or [(steps, None, None)]
        elif c is not None:
            parents += [(steps, x, None) for x in class_parents.get(c, ())] or [(steps, None, None)]
        elif len(steps) > 1:
            parents.append((steps[:-1], None, None))
        for i, (d, p) in enumerate(steps):
            for q in prop_parents.get(p, ()):
                parents.append((steps[:i] + ((d, q),) + steps[i + 1:], c, o))
        child = fid(steps, c, o)
        for par in parents:
            edges.add((child, fid(*par)))
            if par not in seen:
                todo.append(par)
    return edges


def _sorted_parents(edges: Iterable[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    """child -> its parents, sorted."""
    return {c: tuple(sorted(ps)) for c, ps in _parents_map(edges).items()}

