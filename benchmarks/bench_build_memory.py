"""Peak memory of a whole ``kgfs build`` over a large GAF of which few genes are labelled (issue 26).

Generates, seeded, a GAF 2.2 file of 3,000,000 annotation lines over 50,000 genes and 20,000 Biological
Process terms of the real Gene Ontology (``go/gene_ontology_ext_13062014.obo.gz`` of the data mirror),
shaped as :mod:`benchmarks.bench_gaf_memory` shapes it (Zipf-distributed genes, GAF 2.2 qualifiers with some
``NOT``, evidence codes, references, dates), a labels file of 1,000 of its genes, and a tiny GAF (3,000
lines over the labelled genes). Then it runs, each in a fresh process, the same command on both:

    kgfs --home H build --obo GO --annotations GAF --labels LABELS --namespaces BP --out OUT

and reports each one's peak RSS (the process and its children, ``getrusage(RUSAGE_CHILDREN)``), wall time
and table shape. The tiny GAF is the baseline of the same run: the big file's peak minus it is what the
file costs. Target: the big GAF's build peaks under 300 MB (it peaked at 530 MB before its rows of
unlabelled genes were skipped while reading; 205 MB on the tiny one). ``--against CHECKOUT`` runs the
same two builds with another checkout's code too (e.g. ``/work/main``), for a before/after in one run.

    python benchmarks/bench_build_memory.py [--lines 3000000] [--genes 50000] [--labelled 1000]
        [--mirror ../shared/data] [--keep DIR] [--against CHECKOUT]
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
sys.path.insert(0, str(ROOT))

from benchmarks.bench_gaf_memory import _ASPECT, _EVIDENCE, _EVIDENCE_P, _QUALIFIER_P, _QUALIFIERS  # noqa: E402

_CHILD = r"""
import json, resource, subprocess, sys, time
t = time.perf_counter()
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"rc": proc.returncode, "seconds": time.perf_counter() - t, "peak_mb": peak,
                  "out": proc.stdout[-400:], "err": proc.stderr[-2000:]}))
"""


def bp_terms(mirror: Path, n: int, rng: np.random.Generator) -> list[str]:
    """``n`` live Biological Process terms of GO 2014-06-13 (the mirror's OBO), drawn at random."""
    from kg.ontology import read_obo

    go = read_obo(mirror / "go" / "gene_ontology_ext_13062014.obo.gz", namespaces="BP")
    ids = go.hierarchy.node_ids
    return sorted(rng.choice(ids, min(n, ids.size), replace=False).tolist())


def write_gaf(path: Path, n_lines: int, genes: list[str], terms: list[str], seed: int, chunk: int = 100_000) -> None:
    """A seeded GAF 2.2 file of ``n_lines`` rows over ``genes`` and ``terms``.

    Gene ``i`` (in a seeded random order) gets a share proportional to ``1 / (i + 50)``: a long tail as
    in real GAFs, yet every gene has rows (at 3M lines and 50,000 genes, at least about 8 each).
    """
    rng = np.random.default_rng(seed)
    gene_p = 1.0 / (rng.permutation(len(genes)) + 50.0)
    gene_p /= gene_p.sum()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("!gaf-version: 2.2\n!generated-by: kgfs benchmarks/bench_build_memory.py\n")
        for start in range(0, n_lines, chunk):
            n = min(chunk, n_lines - start)
            g = rng.choice(len(genes), n, p=gene_p)
            t = rng.integers(0, len(terms), n)
            q = rng.choice(len(_QUALIFIERS), n, p=_QUALIFIER_P)
            e = rng.choice(len(_EVIDENCE), n, p=_EVIDENCE_P)
            ref = rng.integers(10**6, 4 * 10**7, n)
            lines = []
            for i in range(n):
                qual, ev = _QUALIFIERS[q[i]], _EVIDENCE[e[i]]
                ref_i = f"GO_REF:{ref[i] % 100:07d}" if ev == "IEA" else f"PMID:{ref[i]}"
                lines.append(f"FB\t{genes[g[i]]}\tsym{g[i]}\t{qual}\t{terms[t[i]]}\t{ref_i}\t{ev}\t\t"
                             f"{_ASPECT[qual.split('|')[-1]]}\t\t\tprotein\ttaxon:7227\t20200101\tFlyBase\t\t\n")
            fh.write("".join(lines))


def make_inputs(folder: Path, args) -> dict[str, Path]:
    rng = np.random.default_rng(args.seed)
    genes = [f"FBgn{i:07d}" for i in rng.choice(10**7, args.genes, replace=False)]
    terms = bp_terms(args.mirror, args.terms, rng)
    big, tiny, labels = folder / "big.gaf", folder / "tiny.gaf", folder / "labels.tsv"
    if not big.exists():
        t = time.perf_counter()
        write_gaf(big, args.lines, genes, terms, args.seed)
        print(f"generated {big} in {time.perf_counter() - t:.0f} s")
    chosen = sorted(rng.choice(genes, min(args.labelled, len(genes)), replace=False).tolist())
    if not tiny.exists():  # the labelled genes' rows only: a table of the same genes from a tiny file
        write_gaf(tiny, args.tiny_lines, chosen, terms, args.seed + 1)
    if not labels.exists():
        labels.write_text("gene\tlabel\n" + "".join(f"{g}\t{'pos' if i % 3 == 0 else 'neg'}\n"
                                                    for i, g in enumerate(sorted(chosen))), encoding="utf-8")
    return {"big": big, "tiny": tiny, "labels": labels}


def measure(code: Path, gaf: Path, files: dict[str, Path], mirror: Path, work: Path) -> dict:
    """Peak RSS of ``kgfs build`` (fresh home, so nothing is reused) with ``code`` on PYTHONPATH."""
    home = Path(tempfile.mkdtemp(prefix="home-", dir=work))
    out = Path(tempfile.mkdtemp(prefix="out-", dir=work))
    cmd = [sys.executable, "-m", "flows.cli", "-q", "--home", str(home), "build",
           "--obo", str(mirror / "go" / "gene_ontology_ext_13062014.obo.gz"), "--annotations", str(gaf),
           "--labels", str(files["labels"]), "--namespaces", "BP", "--out", str(out)]
    proc = subprocess.run([sys.executable, "-c", _CHILD, *cmd], cwd=code, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(code)})
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    if r["rc"]:
        raise SystemExit(f"kgfs build failed ({code}):\n{r['err']}")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    r["shape"] = f"{summary.get('n_instances')} x {summary.get('n_features')}"
    return r


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=3_000_000)
    ap.add_argument("--tiny-lines", type=int, default=3_000)
    ap.add_argument("--genes", type=int, default=50_000)
    ap.add_argument("--terms", type=int, default=20_000)
    ap.add_argument("--labelled", type=int, default=1_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mirror", type=Path, default=Path(os.environ.get("KGFS_DATA_MIRROR") or ROOT.parent / "shared"
                                                          / "data"))
    ap.add_argument("--keep", type=Path, help="write the inputs here (and reuse them when they exist)")
    ap.add_argument("--against", type=Path, help="another checkout to run the same builds with (before/after)")
    ap.add_argument("--target-mb", type=float, default=300.0)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        files = make_inputs(folder, args)
        big_mb = files["big"].stat().st_size / 1e6
        print(f"GAF 2.2: {args.lines:,} lines ({big_mb:.0f} MB), {args.genes:,} genes, {args.terms:,} BP terms, "
              f"{args.labelled:,} labelled; tiny GAF {args.tiny_lines:,} lines; load {os.getloadavg()[0]:.2f}")
        codes = [("this checkout", ROOT)] + ([("--against " + str(args.against), args.against)] if args.against else [])
        rows = []
        for label, code in codes:
            for which in ("tiny", "big"):
                rows.append((label, which, measure(code, files[which], files, args.mirror, Path(tmp))))
    print(f"{'code':32s} {'GAF':5s} {'peak RSS':>9s} {'vs tiny':>8s} {'wall':>7s}  table")
    ok = True
    for label, which, r in rows:
        base = next(x for lb, w, x in rows if lb == label and w == "tiny")["peak_mb"]
        print(f"{label:32s} {which:5s} {r['peak_mb']:6.0f} MB {r['peak_mb'] / base:7.2f}x {r['seconds']:6.1f}s  "
              f"{r['shape']}")
        if label == "this checkout" and which == "big":
            ok = r["peak_mb"] < args.target_mb
            verdict = f"kgfs build of the big GAF peaks at {r['peak_mb']:.0f} MB"
    print(f"{verdict}: {'under' if ok else 'OVER'} the {args.target_mb:.0f} MB target")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
