"""Closure of the full 2014 GO, and building the CE-BPMFCC table the way `kgfs build` does.

Run by hand (not by pytest):

    python benchmarks/bench_closure.py [--data ../shared/data] [--repeat 3]

Prints, on the same DAG (is_a over the 39,397 live terms of gene_ontology_ext 2014-06-13):
- ``FeatureHierarchy.ancestor_matrix`` (level-wise sparse products) against
  ``networkx.transitive_closure_dag``, with the ratio (target >= 10x), and ``rustworkx``'s
  ``ancestors`` per node as a second reference (when installed: it is not a kgfs dependency);
- the whole build of CE-BPMFCC: ``read_obo`` + the gene -> most specific terms facts +
  ``term_table`` (target < 2 s), next to the AIRE reader on the same file.
Both closures are checked to give the same ancestor sets.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg.hierarchy import FeatureHierarchy  # noqa: E402
from kg.ontology import read_annotations, read_obo, term_table  # noqa: E402
from kg.ontology.published import aire_table, hierarchy_for_terms, read_aire_matrix  # noqa: E402


def timed(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times), out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    obo = args.data / "go" / "gene_ontology_ext_13062014.obo.gz"

    best, med, go = timed(lambda: read_obo(obo), args.repeat)
    h = go.hierarchy
    print(f"read_obo (41,209 terms, {h.n_nodes} live, {h.n_edges} is_a edges): best {best:.3f} s, median {med:.3f} s")

    def ours():
        fresh = FeatureHierarchy(h.node_ids, *h.edges)  # no cached closure
        return fresh.ancestor_matrix

    best_k, med_k, a = timed(ours, args.repeat)
    print(f"FeatureHierarchy.ancestor_matrix: best {best_k:.3f} s, median {med_k:.3f} s ({a.nnz} ancestor pairs)")

    import networkx as nx

    g = h.to_networkx()
    best_nx, _, tc = timed(lambda: nx.transitive_closure_dag(g), 1)
    print(f"networkx.transitive_closure_dag: {best_nx:.3f} s ({tc.number_of_edges()} pairs)")
    assert tc.number_of_edges() == a.nnz, "closures differ"
    # same pairs, not only the same count
    idx = h.index
    sample = np.random.default_rng(0).choice(h.n_nodes, 500, replace=False)
    for i in sample.tolist():
        assert set(h.ancestor_indices(i).tolist()) == {idx[p] for p in tc.successors(h.node_ids[i])}
    print(f"  ratio networkx / ours: {best_nx / best_k:.1f}x (target >= 10x)")

    try:
        import rustworkx as rx

        def rust():
            rg = rx.PyDiGraph()
            rg.add_nodes_from(range(h.n_nodes))
            c, p = h.edges
            rg.add_edges_from_no_data(list(zip(c.tolist(), p.tolist())))
            return sum(len(rx.descendants(rg, i)) for i in range(h.n_nodes))

        best_rx, _, n_rx = timed(rust, 1)
        assert n_rx == a.nnz
        print(f"rustworkx descendants per node: {best_rx:.3f} s; ratio rustworkx / ours: {best_rx / best_k:.1f}x")
    except ImportError:  # not a kgfs dependency
        print("rustworkx is not installed (pip install rustworkx): its comparison is skipped")

    # ---- building CE-BPMFCC as `kgfs build --obo ... --annotations ...` will
    aire = args.data / "ageing" / "aire" / "CE-BPMFCC.txt"
    x, terms, genes, y = read_aire_matrix(aire)
    hh, _ = hierarchy_for_terms(go, terms)
    xi = x.astype(np.int32).tocsr()
    spec = (xi - xi.multiply((xi @ hh.parent_matrix.astype(np.int32)) > 0)).tocsr()
    spec.eliminate_zeros()
    with tempfile.TemporaryDirectory() as tmp:
        ann = Path(tmp) / "annotations.tsv"
        ann.write_text(
            "gene\tgo_id\n"
            + "".join(f"{g}\t{terms[j]}\n" for i, g in enumerate(genes) for j in spec[i].indices),
            encoding="utf-8",
        )
        labels = dict(zip(genes, y.tolist()))

        def build():
            o = read_obo(obo)
            facts = read_annotations(ann)
            return term_table(o, facts, labels)

        best_b, med_b, t = timed(build, args.repeat)
    order = [t.hierarchy.index[tid] for tid in terms]
    assert (t.X[:, order] != x).nnz == 0, "rebuilt CE-BPMFCC differs from the AIRE matrix"
    print(
        f"build CE-BPMFCC ({t.n_instances} genes x {t.n_features} terms; {spec.nnz} direct annotations; "
        f"read_obo + read_annotations + term_table): best {best_b:.3f} s, median {med_b:.3f} s (target < 2 s)"
    )
    best_r, _, _ = timed(lambda: aire_table(aire, go), args.repeat)
    print(f"  for reference, reading the AIRE matrix with the parsed ontology: {best_r:.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
