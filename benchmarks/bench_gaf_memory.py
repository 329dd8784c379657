"""Peak memory of reading a large GAF file with ``kg.ontology.read_annotations`` (streamed line by line).

Generates a GAF 2.2 file itself (seeded; 5,000,000 annotation lines by default, about 550 MB,
shaped like a model-organism GAF: a few thousand genes, GO ids, GAF 2.2 relation qualifiers
with some ``NOT``, evidence codes, references, dates), then reads it in fresh child processes,
each reporting its peak RSS and wall time:

- ``imports``: the child after importing kgfs, reading nothing (the floor of every child);
- ``splitlines``: a plain ``open(path).read().splitlines()`` of the file, what the reader did
  before it streamed (1.63 GB peak for such a file, with the parsing on top);
- ``read_annotations``: the library reader (every row parsed, ``NOT`` rows skipped);
- ``read_annotations IEA excluded``: the same with an evidence filter.

Target (issue 15): under 400 MB peak RSS for the 5M-line file. The ratio column is the peak
against the ``splitlines`` baseline of the same run.

    python benchmarks/bench_gaf_memory.py [--lines 5000000] [--genes 4000] [--keep FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

_QUALIFIERS = ["involved_in", "enables", "located_in", "part_of", "acts_upstream_of_or_within", "is_active_in",
               "contributes_to", "colocalizes_with", "NOT|involved_in", "NOT|enables"]
_QUALIFIER_P = [0.34, 0.22, 0.17, 0.08, 0.07, 0.05, 0.03, 0.02, 0.01, 0.01]
_EVIDENCE = ["IEA", "IBA", "IDA", "IMP", "ISS", "IPI", "IGI", "TAS", "NAS", "ISM", "HDA", "HMP", "EXP"]
_EVIDENCE_P = [0.42, 0.14, 0.10, 0.09, 0.05, 0.05, 0.04, 0.02, 0.02, 0.02, 0.02, 0.02, 0.01]
_ASPECT = {"involved_in": "P", "acts_upstream_of_or_within": "P", "enables": "F", "contributes_to": "F",
           "located_in": "C", "part_of": "C", "is_active_in": "C", "colocalizes_with": "C"}


def write_gaf(path: Path, n_lines: int, n_genes: int, seed: int = 0, chunk: int = 100_000) -> None:
    """A seeded GAF 2.2 file of ``n_lines`` annotation rows over ``n_genes`` genes."""
    rng = np.random.default_rng(seed)
    genes = [f"FBgn{rng.integers(0, 10**7):07d}" for _ in range(n_genes)]
    symbols = [f"CG{rng.integers(1000, 40000)}" if rng.random() < 0.6 else
               "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), rng.integers(2, 6))) for _ in range(n_genes)]
    terms = [f"GO:{t:07d}" for t in rng.choice(np.arange(1, 2_100_000), 18_000, replace=False)]
    gene_p = rng.zipf(1.6, n_genes).astype(float)
    gene_p /= gene_p.sum()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("!gaf-version: 2.2\n!generated-by: kgfs benchmarks/bench_gaf_memory.py\n"
                 "!date-generated: 2026-11-24\n")
        for start in range(0, n_lines, chunk):
            n = min(chunk, n_lines - start)
            g = rng.choice(n_genes, n, p=gene_p)
            t = rng.integers(0, len(terms), n)
            q = rng.choice(len(_QUALIFIERS), n, p=_QUALIFIER_P)
            e = rng.choice(len(_EVIDENCE), n, p=_EVIDENCE_P)
            ref = rng.integers(10**6, 4 * 10**7, n)
            date = rng.integers(0, 9000, n)
            with_from = rng.random(n) < 0.2
            lines = []
            for i in range(n):
                qual = _QUALIFIERS[q[i]]
                ev = _EVIDENCE[e[i]]
                ref_i = f"GO_REF:{ref[i] % 100:07d}" if ev == "IEA" else f"PMID:{ref[i]}"
                wf = f"InterPro:IPR{ref[i] % 10**6:06d}" if with_from[i] else ""
                lines.append(f"FB\t{genes[g[i]]}\t{symbols[g[i]]}\t{qual}\t{terms[t[i]]}\t{ref_i}\t{ev}\t{wf}\t"
                             f"{_ASPECT[qual.split('|')[-1]]}\t\t\tprotein\ttaxon:7227\t"
                             f"20{10 + date[i] // 1000:02d}{1 + date[i] % 12:02d}{1 + date[i] % 28:02d}\tFlyBase\t\t\n")
            fh.write("".join(lines))


_CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from kg.ontology import read_annotations
path, what = Path(sys.argv[1]), sys.argv[2]
t = time.perf_counter()
n = None
if what == "splitlines":
    with open(path, encoding="utf-8") as fh:
        n = len(fh.read().splitlines())
elif what == "read_annotations":
    ann = read_annotations(path)
    n = sum(map(len, ann.values()))
elif what == "read_annotations IEA excluded":
    ann = read_annotations(path, exclude_evidence={"IEA"})
    n = sum(map(len, ann.values()))
print(json.dumps({"seconds": time.perf_counter() - t, "n": n,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def measure(path: Path, what: str) -> dict:
    """Peak RSS (MB) and wall time of ``what`` in a fresh child process."""
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(path), what], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    if proc.returncode:
        raise SystemExit(f"{what} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=5_000_000)
    ap.add_argument("--genes", type=int, default=4_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", type=Path, help="write the GAF here (and reuse it when it exists)")
    ap.add_argument("--target-mb", type=float, default=400.0)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "bench.gaf"
        if not path.exists():
            t = time.perf_counter()
            write_gaf(path, args.lines, args.genes, args.seed)
            print(f"generated {path} in {time.perf_counter() - t:.1f} s")
        print(f"GAF 2.2: {args.lines:,} lines, {path.stat().st_size / 1e6:.0f} MB, "
              f"{args.genes:,} genes (seed {args.seed})")
        rows = {what: measure(path, what) for what in
                ("imports", "splitlines", "read_annotations", "read_annotations IEA excluded")}
    base = rows["splitlines"]["peak_mb"]
    print(f"{'child process':32s} {'peak RSS':>10s} {'vs splitlines':>14s} {'wall':>8s}  annotations kept")
    for what, r in rows.items():
        kept = "" if r["n"] is None or what == "splitlines" else f"{r['n']:,}"
        print(f"{what:32s} {r['peak_mb']:7.0f} MB {r['peak_mb'] / base:13.2f}x {r['seconds']:7.1f} s  {kept}")
    peak = max(rows["read_annotations"]["peak_mb"], rows["read_annotations IEA excluded"]["peak_mb"])
    ok = peak < args.target_mb
    print(f"read_annotations peak {peak:.0f} MB: {'under' if ok else 'OVER'} the {args.target_mb:.0f} MB target")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
