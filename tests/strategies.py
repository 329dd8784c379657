"""Hypothesis strategies shared by the test suite: random DAGs and tables consistent with them."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import strategies as st

from kg.hierarchy import FeatureHierarchy


@st.composite
def dags(draw, min_nodes: int = 1, max_nodes: int = 12, max_parents: int = 3) -> FeatureHierarchy:
    """A random DAG with multiple inheritance; node order is a random permutation."""
    n = draw(st.integers(min_nodes, max_nodes))
    ids = [f"f{i}" for i in range(n)]
    edges = []
    for i in range(1, n):
        k = draw(st.integers(0, min(max_parents, i)))
        parents = draw(st.lists(st.integers(0, i - 1), min_size=k, max_size=k, unique=True))
        edges += [(ids[i], ids[p]) for p in parents]
    perm = draw(st.permutations(range(n)))
    return FeatureHierarchy.from_edges(edges, nodes=[ids[p] for p in perm])


@st.composite
def closed_tables(
    draw,
    hierarchy: FeatureHierarchy | None = None,
    min_rows: int = 4,
    max_rows: int = 30,
    n_classes: int = 2,
    max_nodes: int = 12,
):
    """``(X, y, hierarchy)``: a binary csr table closed under the hierarchy, every class present."""
    h = hierarchy if hierarchy is not None else draw(dags(max_nodes=max_nodes))
    n = draw(st.integers(max(min_rows, n_classes), max_rows))
    seed = draw(st.integers(0, 2**32 - 1))
    density = draw(st.sampled_from([0.05, 0.15, 0.3]))
    rng = np.random.default_rng(seed)
    direct = sp.csr_matrix((rng.random((n, h.n_nodes)) < density).astype(np.int8))
    X = h.close(direct).astype(np.float64)
    y = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, n - n_classes)])
    rng.shuffle(y)
    return X, y, h


def leaf_root_paths(h: FeatureHierarchy) -> list[list[int]]:
    """Every path from a leaf up to a root, as index lists (leaf first). Brute force: tests only."""
    out: list[list[int]] = []

    def walk(path: list[int]) -> None:
        ps = h.parent_indices(path[-1])
        if ps.size == 0:
            out.append(list(path))
            return
        for p in sorted(ps.tolist()):
            walk(path + [p])

    for leaf in h.leaves.tolist():
        walk([leaf])
    return out


def coach_hierarchy() -> FeatureHierarchy:
    """A literal DAG with a diamond (a Coach is both a Person and in a Team) and readable ids."""
    return FeatureHierarchy.from_edges(
        [("Athlete", "Person"), ("Coach", "Person"), ("Coach", "Team"), ("Player", "Athlete"),
         ("Politician", "Person")],
        nodes=["Person", "Team", "Athlete", "Coach", "Player", "Politician"],
    )


@st.composite
def small_graphs(draw, max_nodes: int = 7, max_triples: int = 14):
    """A random graph of relations between a few nodes, their classes and a class hierarchy (acyclic),
    as N-Triples text under ``http://x/``: ``(ntriples, relation triples, direct types, class edges)``."""
    n = draw(st.integers(2, max_nodes))
    nodes = [f"http://x/n{i}" for i in range(n)]
    preds = ["http://x/p", "http://x/q"]
    classes = [f"http://x/C{i}" for i in range(4)]
    triples = draw(st.lists(st.tuples(st.sampled_from(nodes), st.sampled_from(preds), st.sampled_from(nodes)),
                            max_size=max_triples, unique=True))
    types = draw(st.lists(st.tuples(st.sampled_from(nodes), st.sampled_from(classes)), max_size=8, unique=True))
    class_edges = [(classes[i], classes[j]) for i in range(1, 4) for j in range(i)
                   if draw(st.booleans())]
    rdf_type = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
    sub = "http://www.w3.org/2000/01/rdf-schema#subClassOf"
    lines = [f"<{s}> <{p}> <{o}> ." for s, p, o in triples]
    lines += [f"<{s}> <{rdf_type}> <{c}> ." for s, c in types]
    lines += [f"<{c}> <{sub}> <{p}> ." for c, p in class_edges]
    return "\n".join(lines) + "\n", triples, types, class_edges


@st.composite
def digraphs(draw, min_nodes: int = 1, max_nodes: int = 10, max_edges: int = 25, instances: int = 6):
    """A random directed graph that may have cycles (self-loops, 2-cycles, larger strongly connected components),
    with a few instances' direct features: ``(edges, nodes, facts)``; ``edges`` are ``(child, parent)`` ids."""
    n = draw(st.integers(min_nodes, max_nodes))
    ids = [f"c{i}" for i in range(n)]
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=max_edges))
    if n > 1 and draw(st.booleans()):  # make a cycle through a few nodes likely
        ring = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=min(n, 5), unique=True))
        pairs += list(zip(ring, ring[1:] + ring[:1]))
    edges = [(ids[c], ids[p]) for c, p in pairs]
    nodes = draw(st.permutations(ids))
    facts = {f"i{k}": draw(st.lists(st.sampled_from(ids), max_size=3)) for k in range(instances)}
    return edges, list(nodes), facts


WD_ENTITY, WD_DIRECT = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"


@st.composite
def hub_graphs(draw, max_items: int = 12) -> tuple[list[str], list[str]]:
    """``(files, entities)``: a small Wikidata-shaped graph in one to three N-Triples texts (lines may repeat across
    files), with a hub item (``Q0``) that most relations point to, typed other ends (some with a type outside the
    type namespaces, some untyped, some with the same set of types), subclass edges (cycles allowed), a stated
    subproperty (``wd:P40 wdt:P1647 wd:P50``) and literals; the entities asked: some items, the hub, an unknown."""
    n = draw(st.integers(2, max_items))
    items = [f"<{WD_ENTITY}Q{i}>" for i in range(n)]
    preds = [f"<{WD_DIRECT}{p}>" for p in ("P19", "P27", "P40", "P50")]
    classes = [f"<{WD_ENTITY}Q{1000 + i}>" for i in range(5)] + ["<http://other.org/Thing>"]
    lines = []
    for _ in range(draw(st.integers(1, 40))):
        s = draw(st.integers(0, n - 1))
        o = 0 if draw(st.integers(0, 3)) else draw(st.integers(0, n - 1))  # three in four go to the hub
        lines.append(f"{items[s]} {draw(st.sampled_from(preds))} {items[o]} .")
    for i in range(n):
        for c in draw(st.lists(st.integers(0, len(classes) - 1), max_size=3, unique=True)):
            lines.append(f"{items[i]} <{WD_DIRECT}P31> {classes[c]} .")
    for c, p in draw(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), max_size=5)):
        if c != p:
            lines.append(f"{classes[c]} <{WD_DIRECT}P279> {classes[p]} .")
    if draw(st.booleans()):
        lines.append(f"<{WD_ENTITY}P40> <{WD_DIRECT}P1647> <{WD_ENTITY}P50> .")
    lines.append(f'{items[0]} <{WD_DIRECT}P1477> "a hub" .')
    k = draw(st.integers(1, 3))
    owner = draw(st.lists(st.integers(0, k - 1), min_size=len(lines), max_size=len(lines)))
    files = ["".join(f"{line}\n" for line, j in zip(lines, owner) if j == f) for f in range(k)]
    if k > 1 and lines:
        files[-1] += f"{lines[0]}\n"  # a line in two files: one relation
    asked = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    entities = [items[i][1:-1] for i in sorted({0, *asked})] + [f"{WD_ENTITY}Q404404"]
    return files, entities
