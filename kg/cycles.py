"""The id graphs a hierarchy is built from: their edges as index arrays, and their cycles raised, broken or merged.

:meth:`kg.hierarchy.FeatureHierarchy.from_edges` indexes its ``(child, parent)`` pairs here
(:func:`indexed_edges`) and resolves their cycles (:func:`resolve_cycles`): the strongly connected
components (scipy, vectorised), a deterministic depth-first search for the back edges a break removes,
and the contraction of a component into one node named by its members (:func:`component_name`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence, Set
from functools import cached_property
from itertools import repeat

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from kg.errors import CycleError
from kg.sparse import binary_csr, distinct

__all__ = ["EdgeArrays", "NodeOrder", "component_name", "cycle_components", "edge_nodes", "first_repeat",
           "indexed_edges", "resolve_cycles"]


def first_repeat(values: Iterable[str]) -> str | None:
    """The first value met a second time (``None``: all distinct), for an error that names it.

    Examples
    --------
    >>> first_repeat(["a", "b", "a"]), first_repeat(["a"])
    ('a', None)
    """
    seen: set[str] = set()
    return next((x for x in values if x in seen or seen.add(x)), None)


def edge_nodes(edges: Iterable[tuple[str, str]]) -> set[str]:
    """The ids at either end of some edge (of an :class:`EdgeArrays` without building its pairs).

    Examples
    --------
    >>> sorted(edge_nodes([("a", "b")])), sorted(edge_nodes(EdgeArrays(["a", "b", "c"], [0], [2])))
    (['a', 'b'], ['a', 'c'])
    """
    return edges.nodes() if isinstance(edges, EdgeArrays) else {x for e in edges for x in e}


class NodeOrder(dict):
    """Distinct ids in sorted order, each mapped to its position: a hierarchy's node order and the look-up of its
    ids in one dictionary. :meth:`kg.hierarchy.FeatureHierarchy.from_edges` takes it as its ``nodes`` and keeps it
    as the look-up, updated in place when cycles are merged (the nodes of a table of 2.1M features are not put in
    a dictionary twice). Build it with :meth:`of`: its values are the positions of its keys.

    Examples
    --------
    >>> o = NodeOrder.of(["b", "a"], ["c", "a", "c"])
    >>> list(o), o["c"]
    (['a', 'b', 'c'], 2)
    """

    @classmethod
    def of(cls, distinct: Sequence[str], more: Iterable[str] = ()) -> NodeOrder:
        """The ids of ``distinct`` (no repeats: an edge set's ends) and of ``more`` (repeats allowed: the instances'
        features, most of them ends already), sorted. One dictionary is built, of the final order: the ids of
        ``more`` that are new are a set's difference (no dictionary of the ends first), and the sort is fast from
        the runs of a generator's order."""
        order = [x if type(x) is str else str(x) for x in distinct]
        new = {x if type(x) is str else str(x) for x in more}
        new.difference_update(order)
        order.sort()
        if new:
            order = sorted([*order, *sorted(new)])  # two sorted runs: one merge
        out = cls(zip(order, range(len(order))))
        if len(out) != len(order):
            raise ValueError(f"duplicate id {first_repeat(order)!r} in the distinct ids")
        return out


def _edge_keys(child, parent, n: int) -> np.ndarray:
    """The edges of index arrays into ``n`` names (checked) as keys ``child * n + parent``, distinct and sorted."""
    child, parent = np.asarray(child, np.int64), np.asarray(parent, np.int64)
    if child.shape != parent.shape or child.ndim != 1:
        raise ValueError("child and parent index arrays differ in shape")
    if child.size and (min(child.min(), parent.min()) < 0 or max(child.max(), parent.max()) >= n):
        raise ValueError("edge index out of range")
    return distinct(child * max(n, 1) + parent)


class EdgeArrays(Set):
    """A set of ``(child, parent)`` id pairs held as index arrays into one list of distinct names: what a
    generator of millions of edges returns instead of a Python set of tuples (a tuple and a set slot per edge).
    It is a read-only :class:`collections.abc.Set` (iterating it gives the pairs; ``==`` and ``|`` with any set
    work), and :meth:`kg.hierarchy.FeatureHierarchy.from_edges` reads its arrays without building a pair.

    Parameters
    ----------
    names : sequence of str
        Distinct ids.
    child, parent : array of int
        Indices into ``names`` of each edge's ends; duplicate edges are merged.

    Examples
    --------
    >>> e = EdgeArrays(["a", "b", "c"], [0, 1, 0], [1, 2, 1])
    >>> len(e), sorted(e), e == {("a", "b"), ("b", "c")}, sorted(e.nodes())
    (2, [('a', 'b'), ('b', 'c')], True, ['a', 'b', 'c'])
    >>> sorted(EdgeArrays.union([e, {("c", "d")}]))
    [('a', 'b'), ('b', 'c'), ('c', 'd')]
    """

    def __init__(self, names: Sequence[str], child, parent):
        self.names = list(names)
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"duplicate name {first_repeat(self.names)!r} in the edge arrays' names")
        self._set_keys(_edge_keys(child, parent, len(self.names)))

    def _set_keys(self, keys: np.ndarray) -> None:
        """The edges as keys ``child * n + parent``, distinct and sorted (``in`` searches them)."""
        n = max(len(self.names), 1)
        self._keys = keys
        self.child, self.parent = keys // n, keys % n

    @classmethod
    def _of(cls, names: list[str], keys: np.ndarray) -> EdgeArrays:
        """Distinct names and the edges' distinct sorted keys (over ``len(names)``), taken as they are."""
        out = cls.__new__(cls)
        out.names = names
        out._set_keys(keys)
        return out

    @classmethod
    def from_distinct(cls, names: list[str], child, parent) -> EdgeArrays:
        """As the constructor, for names that are distinct by construction (a generator's own numbering): they are
        not checked (a set of millions of names costs a third of a second and its table), the indices are.

        Examples
        --------
        >>> EdgeArrays.from_distinct(["a", "b"], [0, 0], [1, 1]) == {("a", "b")}
        True
        """
        return cls._of(names, _edge_keys(child, parent, len(names)))

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, str]]) -> EdgeArrays:
        """The arrays of any iterable of ``(child, parent)`` pairs of strings (pandas' factorize: one hash look-up
        per endpoint in C).

        Raises
        ------
        ValueError
            An edge that is not a pair.
        TypeError
            An id that is not a string.
        """
        import pandas as pd

        pairs = pairs if isinstance(pairs, list) else list(pairs)
        if not pairs:
            return cls([], [], [])
        arr = np.empty((len(pairs), 2), dtype=object)
        try:
            arr[:] = pairs
        except (ValueError, TypeError):
            raise ValueError("every edge must be a (child, parent) pair") from None
        codes, uniques = pd.factorize(arr.ravel())
        uniques = uniques.tolist()
        if not all(type(u) is str for u in uniques):
            raise TypeError("edge ids must be strings")
        return cls.from_distinct(uniques, codes[0::2], codes[1::2])  # factorize's uniques are distinct

    @classmethod
    def union(cls, parts: Iterable[Iterable[tuple[str, str]]]) -> EdgeArrays:
        """One :class:`EdgeArrays` of several edge sets (arrays or any iterables of pairs), names merged."""
        import pandas as pd

        parts = [p if isinstance(p, EdgeArrays) else cls.from_pairs(p) for p in parts]
        if len(parts) == 1:
            return parts[0]
        names = np.asarray([x for p in parts for x in p.names], dtype=object)
        codes, uniques = pd.factorize(names) if len(names) else (np.zeros(0, np.int64), [])
        child, parent, at = [], [], 0
        for p in parts:
            child.append(codes[at + p.child])
            parent.append(codes[at + p.parent])
            at += len(p.names)
        return cls.from_distinct(list(uniques), np.concatenate(child or [np.zeros(0, np.int64)]),
                                 np.concatenate(parent or [np.zeros(0, np.int64)]))

    @classmethod
    def disjoint(cls, parts: Sequence[EdgeArrays]) -> EdgeArrays:
        """One :class:`EdgeArrays` of parts whose names no two share (each direction's relation ids, told apart by
        their prefix): the names concatenated, neither looked up nor checked."""
        offsets = np.cumsum([0] + [len(p.names) for p in parts])
        names = [x for p in parts for x in p.names]
        n = max(len(names), 1)
        # each part's keys are sorted by child and its children are numbered after the last part's: the keys of
        # the whole are sorted and distinct as they come
        keys = [(p.child + o) * n + p.parent + o for p, o in zip(parts, offsets.tolist())]
        return cls._of(names, np.concatenate(keys or [np.zeros(0, np.int64)]))

    def prefixed(self, prefix: str) -> EdgeArrays:
        """The same edges with every name prefixed (a table of several kinds tags its ids)."""
        return EdgeArrays._of([prefix + x for x in self.names], self._keys)

    def used(self) -> np.ndarray:
        """The indices (into ``names``) at either end of some edge, sorted."""
        return distinct(np.concatenate([self.child, self.parent]))

    def nodes(self) -> set[str]:
        """The ids at either end of some edge."""
        return set(self.used_names())

    def used_names(self) -> list[str]:
        """The ids at either end of some edge, in the order of ``names`` (a generator's order: sorted runs, which
        a sort of millions of them merges in a tenth of the time it takes from a set's order)."""
        used = self.used()
        return self.names if len(used) == len(self.names) else [self.names[i] for i in used.tolist()]

    @classmethod
    def _from_iterable(cls, it):  # what Set's operators (|, &, -) build: a plain set
        return set(it)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        names = self.names
        return ((names[c], names[p]) for c, p in zip(self.child.tolist(), self.parent.tolist()))

    def __len__(self) -> int:
        return len(self.child)

    @cached_property
    def _index(self) -> dict[str, int]:
        return {x: i for i, x in enumerate(self.names)}

    def __contains__(self, pair) -> bool:
        if not isinstance(pair, tuple) or len(pair) != 2:  # as in a set of tuples
            return False
        c, p = pair
        if c not in self._index or p not in self._index:
            return False
        key = self._index[c] * max(len(self.names), 1) + self._index[p]
        at = int(np.searchsorted(self._keys, key))
        return at < len(self._keys) and int(self._keys[at]) == key

    def __repr__(self) -> str:
        return f"EdgeArrays({len(self)} edges over {len(self.names)} names)"

    __hash__ = None  # type: ignore[assignment]


def resolve_cycles(ids: list[str], ci: np.ndarray, pi: np.ndarray, on_cycle: str | Callable[[list[str]], str]):
    """The cycles of the graph ``ci -> pi`` over ``ids`` raised, broken or merged as ``on_cycle`` says (see
    :meth:`kg.hierarchy.FeatureHierarchy.from_edges`).

    Returns
    -------
    (ids, ci, pi, removed_edges, merged, notes)
        The acyclic graph, the edges removed (broken back edges, dropped self-loops), the merged nodes
        (node -> members) and the sentences the caller warns with.

    Raises
    ------
    CycleError
        A cycle whose choice is ``"raise"``.
    """
    labels, comps = cycle_components(len(ids), ci, pi)
    if not comps:
        return ids, ci, pi, [], {}, []
    if callable(on_cycle):
        choice = [on_cycle(sorted(ids[i] for i in comp.tolist())) for comp in comps]
        bad = next((c for c in choice if c not in ("raise", "break", "merge")), None)
        if bad is not None:
            raise ValueError(f"on_cycle returned {bad!r} (expected 'raise', 'break' or 'merge')")
    else:
        choice = [on_cycle] * len(comps)
    if "raise" in choice:
        cycles = describe_cycles(ids, ci, pi, [c for c, k in zip(comps, choice) if k == "raise"])
        shown = _listed([" -> ".join(c + [c[0]]) for c in cycles], 5, "; ")
        raise CycleError(f"hierarchy has {len(cycles)} cycle(s): {shown}", cycles)
    removed: list[tuple[str, str]] = []
    notes: list[str] = []
    to_break = [c for c, k in zip(comps, choice) if k == "break"]
    if to_break:
        keep = cycle_back_edges(ids, ci, pi, to_break)
        back = np.flatnonzero(~keep)
        broken = sorted((ids[ci[k]], ids[pi[k]]) for k in back)
        removed += broken
        notes.append(f"hierarchy had {len(to_break)} cycle(s); removed {len(broken)} edge(s) to break them: "
                     + _listed([f"{c} -> {p}" for c, p in broken], 10, ", "))
        ci, pi = ci[keep], pi[keep]
    to_merge = [c for c, k in zip(comps, choice) if k == "merge"]
    merged: dict[str, list[str]] = {}
    if to_merge:
        ids, ci, pi, merged, loops = merge_components(ids, ci, pi, labels, to_merge)
        removed += loops
        big = [k for k in merged if len(merged[k]) > 1]
        if big:
            notes.append(f"hierarchy had {len(big)} cycle(s); each merged into one node holding its "
                         f"{sum(len(merged[k]) for k in big)} member(s) (no ancestor lost): " + _listed(big, 5, "; "))
        if loops:
            notes.append(f"hierarchy had {len(loops)} self-loop(s), dropped: "
                         + ", ".join(f"{c} -> {p}" for c, p in loops[:10]))
        merged = {k: v for k, v in merged.items() if len(v) > 1}
    return ids, ci, pi, removed, merged, notes


def _listed(items: list[str], n: int, sep: str) -> str:
    """The first ``n`` of ``items`` joined, and how many more there are."""
    return sep.join(items[:n]) + (f" (and {len(items) - n} more)" if len(items) > n else "")


_HASHED_INDEX = 20_000


def indexed_edges(edges: Iterable[tuple[str, str]], nodes: Iterable[str] | None
                   ) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Node ids (``nodes`` first, then the other endpoints sorted) and the distinct edges as index arrays."""
    return indexed_edges_and_positions(edges, nodes)[:3]


def indexed_edges_and_positions(edges: Iterable[tuple[str, str]], nodes: Iterable[str] | None
                                ) -> tuple[list[str], np.ndarray, np.ndarray, dict[str, int]]:
    """:func:`indexed_edges`, and the positions it looked the ids up in: ``{id: its index}`` of a prefix of the
    ids (``nodes`` at least), which :func:`complete_positions` extends to all of them."""
    if isinstance(nodes, NodeOrder):  # the ids and their look-up, built once
        order, known = list(nodes), nodes
    else:
        order = [] if nodes is None else [x if type(x) is str else str(x) for x in nodes]
        known = dict(zip(order, range(len(order))))
        if len(known) != len(order):
            raise ValueError("duplicate node ids in `nodes`")
    empty = np.zeros(0, np.int64)
    if isinstance(edges, EdgeArrays):
        return (*_from_arrays(edges, order, known), known)
    pairs = edges if isinstance(edges, list) else list(edges)
    if not pairs:
        return order, empty, empty, known
    if len(pairs) >= _HASHED_INDEX:  # no Python loop over the edges when they are all pairs of strings
        try:
            return (*_from_arrays(EdgeArrays.from_pairs(pairs), order, known), known)
        except (TypeError, ValueError):
            pass  # the loop below checks and converts them
    flat = [str(x) for pair in pairs for x in pair]
    if len(flat) != 2 * len(pairs):
        raise ValueError("every edge must be a (child, parent) pair")
    ids = order + sorted(set(flat).difference(known))
    index = {x: i for i, x in enumerate(ids)}
    codes = np.fromiter(map(index.__getitem__, flat), np.int64, len(flat))
    n = len(ids)
    m = binary_csr(sp.csr_matrix((np.ones(len(pairs), np.int8), (codes[0::2], codes[1::2])), shape=(n, n)))
    m = m.tocoo()
    return ids, m.row.astype(np.int64), m.col.astype(np.int64), index


def complete_positions(ids: list[str], positions: dict[str, int]) -> dict[str, int]:
    """``positions`` (of a prefix of ``ids``, from :func:`indexed_edges_and_positions`) extended to every id, in
    place: the index of a hierarchy whose ids are those (no cycle merged), without a second dictionary of them."""
    at = len(positions)
    positions.update(zip(ids[at:], range(at, len(ids))))
    return positions


def merged_positions(indexed: list[str], positions: dict[str, int], ids: list[str],
                     merged: dict[str, list[str]]) -> dict[str, int]:
    """The index of the ids after cycles were merged (:func:`resolve_cycles`), made of ``positions`` (of a prefix of
    the ``indexed`` ids) in place: the members leave it, the merged nodes enter, every id takes its new position.
    No second dictionary of millions of ids is held beside the first (102,953 cycles at the in-links of hubs)."""
    complete_positions(indexed, positions)
    for members in merged.values():
        for m in members:
            del positions[m]
    positions.update(zip(ids, range(len(ids))))
    return positions


def _from_arrays(edges: EdgeArrays, order: list[str], known: dict[str, int]
                 ) -> tuple[list[str], np.ndarray, np.ndarray]:
    """:func:`indexed_edges` of an :class:`EdgeArrays`: its names placed in the node order (``known``: each id of
    ``order`` and its position; the endpoints not in it appended sorted), one look-up per distinct name, none
    per edge."""
    if not len(edges):
        return order, np.zeros(0, np.int64), np.zeros(0, np.int64)
    used = edges.used()
    names = edges.used_names()
    where = np.fromiter(map(known.get, names, repeat(-1)), np.int64, len(names))
    new = np.flatnonzero(where < 0)
    extra = sorted(range(len(new)), key=[names[i] for i in new.tolist()].__getitem__)  # the others, sorted
    where[new[extra]] = len(order) + np.arange(len(new))
    ids = order + [names[i] for i in new[extra].tolist()]
    place = np.full(len(edges.names), -1, np.int64)
    place[used] = where
    ci, pi = place[edges.child], place[edges.parent]
    key = distinct(ci * len(ids) + pi)  # sorted by (child, parent) in the new numbering
    return ids, key // len(ids), key % len(ids)


def cycle_components(n: int, ci: np.ndarray, pi: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """The strong component label of every node, and the components with a cycle (size > 1, or a self-loop),
    each as its sorted node indices (grouped in one sort, not one scan of the nodes per component)."""
    if ci.size == 0:
        return np.arange(n), []
    g = sp.csr_matrix((np.ones(ci.size, np.int8), (ci, pi)), shape=(n, n))
    ncomp, labels = connected_components(g, directed=True, connection="strong")
    sizes = np.bincount(labels, minlength=ncomp)
    cyclic = sizes > 1
    cyclic[labels[ci[ci == pi]]] = True
    if not cyclic.any():
        return labels, []
    members = np.flatnonzero(cyclic[labels])
    members = members[np.argsort(labels[members], kind="stable")]
    bounds = np.flatnonzero(np.diff(labels[members])) + 1
    return labels, np.split(members, bounds)


def component_name(members: list[str]) -> str:
    """A merged node's id: its sorted members joined with `` ≡ ``, or the first and the count when long."""
    joined = " ≡ ".join(members)
    if len(members) <= 4 and len(joined) <= 160:
        return joined
    return f"{members[0]} ≡ … ({len(members)} members)"


def merge_components(ids: list[str], ci: np.ndarray, pi: np.ndarray, labels: np.ndarray,
                      comps: list[np.ndarray]):
    """Contract each component of ``comps`` into one node (vectorised over the edges).

    Returns the new ids, edges, ``merged`` (node -> members, singletons of self-loops included) and the
    self-loops dropped. The node of a component takes the place of its first member in ``ids``.
    """
    n = len(ids)
    rep = np.arange(n)
    if comps:  # each member's component's first index (a component is sorted: its first index is its smallest)
        rep[np.concatenate(comps)] = np.repeat([int(c[0]) for c in comps], [len(c) for c in comps])
    alone = np.bincount(rep, minlength=n)[rep] == 1  # a node not merged with others
    loops = (ci == pi) & alone[ci]  # a self-loop inside a merged cycle is part of it, not reported apart
    dropped = sorted((ids[c], ids[c]) for c in ci[loops].tolist())
    kept = rep == np.arange(n)
    new_of_old = np.cumsum(kept) - 1
    new_of_old = new_of_old[rep]
    nc, npar = new_of_old[ci], new_of_old[pi]
    outside = nc != npar
    new_ids = [ids[i] for i in np.flatnonzero(kept).tolist()]
    merged: dict[str, list[str]] = {}
    taken = {x for x in new_ids if " ≡ " in x}  # the ids a merged node's name (members joined so) could meet
    for comp in comps:
        members = sorted(ids[i] for i in comp.tolist())
        if len(members) == 1:
            continue
        name = component_name(members)
        while name in taken:  # an id of the graph already reads like this: keep both apart
            name += " (merged)"
        taken.add(name)
        new_ids[int(new_of_old[comp[0]])] = name
        merged[name] = members
    m = len(new_ids)
    g = binary_csr(sp.csr_matrix((np.ones(int(outside.sum()), np.int8), (nc[outside], npar[outside])), shape=(m, m)))
    g = g.tocoo()
    return new_ids, g.row.astype(np.int64), g.col.astype(np.int64), merged, dropped


def _component_edges(n: int, ci: np.ndarray, pi: np.ndarray, comps: list[np.ndarray]) -> list[np.ndarray]:
    """The indices of the edges inside each component (both ends in it), found in one pass over the edges."""
    label = np.full(n, -1, np.int64)
    for k, comp in enumerate(comps):
        label[comp] = k
    lc = label[ci]
    inside = np.flatnonzero((lc >= 0) & (lc == label[pi]))
    order = inside[np.argsort(lc[inside], kind="stable")]
    bounds = np.searchsorted(lc[order], np.arange(len(comps) + 1))
    return [order[bounds[k]:bounds[k + 1]] for k in range(len(comps))]


def _dfs_back_edges(ids: list[str], ci: np.ndarray, pi: np.ndarray, comp: np.ndarray,
                    edges: np.ndarray | None = None):
    """Deterministic DFS inside one component; yields (edge index, stack path) for back edges.

    ``edges``: the indices of the edges inside the component (:func:`_component_edges`), when known.
    """
    inside = set(comp.tolist())
    out: dict[int, list[tuple[str, int, int]]] = {}
    if edges is None:
        edges = np.flatnonzero(np.isin(ci, comp) & np.isin(pi, comp))
    for k in edges.tolist():
        out.setdefault(int(ci[k]), []).append((ids[pi[k]], int(pi[k]), int(k)))
    for v in out.values():
        v.sort()
    state: dict[int, int] = {}  # 1 = on stack, 2 = done
    for start in sorted(inside, key=lambda i: ids[i]):
        if start in state:
            continue
        stack = [(start, iter(out.get(start, [])))]
        path = [start]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            step = next(it, None)
            if step is None:
                state[node] = 2
                stack.pop()
                path.pop()
                continue
            _, nxt, k = step
            s = state.get(nxt)
            if s == 1:
                yield k, path[path.index(nxt) :]
            elif s is None:
                state[nxt] = 1
                stack.append((nxt, iter(out.get(nxt, []))))
                path.append(nxt)


def cycle_back_edges(ids: list[str], ci: np.ndarray, pi: np.ndarray, comps: list[np.ndarray]) -> np.ndarray:
    """Mask of the edges to keep when the cycles of ``comps`` are broken (the back edges of a DFS removed)."""
    keep = np.ones(ci.size, dtype=bool)
    for comp, edges in zip(comps, _component_edges(len(ids), ci, pi, comps)):
        for k, _ in _dfs_back_edges(ids, ci, pi, comp, edges):
            keep[k] = False
    return keep


def describe_cycles(ids: list[str], ci: np.ndarray, pi: np.ndarray, comps: list[np.ndarray]) -> list[list[str]]:
    """One cycle (as a list of ids, child first) per cyclic strongly connected component."""
    cycles = []
    for comp, edges in zip(comps, _component_edges(len(ids), ci, pi, comps)):
        _, path = next(_dfs_back_edges(ids, ci, pi, comp, edges))
        cycles.append([ids[i] for i in path])
    return sorted(cycles)
