"""Peak memory of the dump index's ingest, per phase, against a baseline version of kgfs measured in the same run.

The ingest of a Wikidata-shaped dump (``kgfs ingest --preset wikidata``) has two phases: the
*segment pass* (one pass over the file: facts hashed and sorted externally, labels written as
string columns; :mod:`kg.rdf.index.ingest`) and the *lexicon* (:mod:`kg.rdf.index.lexicon`, from the
segment's label columns). For each dump given, this script runs the ingest in a fresh process per
version of the code and prints each phase's time and peak resident memory (``VmHWM``, reset
between the phases through ``/proc/self/clear_refs``), and the ratios of this tree to the baseline.

The baseline is another version of the code: ``--baseline REF`` (a git revision, extracted with
``git archive`` into a temporary folder) or ``--baseline-tree DIR`` (a folder holding ``kg/``).
Each version runs with ``PYTHONPATH`` pointing at its tree. With ``--together`` the two versions
run at the same time (the same load for both: a fairer time ratio on a shared machine, each
slower); otherwise one after the other. The load average is printed with each result.

The dumps come from ``benchmarks/bench_wikidata_scale.py`` (``/tmp/kgfs-bench-wikidata/wikidata-N``).

Usage::

    PYTHONPATH=. python benchmarks/bench_ingest_memory.py \\
        /tmp/kgfs-bench-wikidata/wikidata-20000000/latest-truthy.nt.bz2 \\
        /tmp/kgfs-bench-wikidata/wikidata-50000000/latest-truthy.nt.bz2 --baseline ea77430 --together
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

WORKER = r"""
import json, os, sys, threading, time
from kg.rdf.index.dumpindex import DumpIndex
from kg.rdf.vocabulary import WIKIDATA

dump, root = sys.argv[1], sys.argv[2]


def status():
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(("VmHWM", "RssAnon", "RssFile")):
                out[line.split(":")[0]] = int(line.split()[1]) / 1024
    return out


peak = {"anon": 0.0}


def sample():  # the anonymous part of the peak (VmHWM also counts mapped file pages)
    while True:
        peak["anon"] = max(peak["anon"], status()["RssAnon"])
        time.sleep(0.05)


threading.Thread(target=sample, daemon=True).start()
res = {"kg": __import__("kg").__file__, "start_mb": status()["RssAnon"]}
index = DumpIndex(root)
t = time.perf_counter()
segs = index.segments(dump, vocabulary=WIKIDATA)
res["segment"] = {"seconds": time.perf_counter() - t, "peak_rss_mb": status()["VmHWM"], "peak_anon_mb": peak["anon"],
                  "counts": segs[0].info["counts"]}
with open("/proc/self/clear_refs", "w") as fh:  # VmHWM starts again from the current RSS
    fh.write("5")
peak["anon"] = 0.0
t = time.perf_counter()
lex = index.ingest(dump, vocabulary=WIKIDATA)["lexicon"]
res["lexicon"] = {"seconds": time.perf_counter() - t, "peak_rss_mb": status()["VmHWM"], "peak_anon_mb": peak["anon"],
                  "n_surface_forms": lex["n_surface_forms"], "n_entities": lex["n_entities"],
                  "ambiguous": lex["ambiguous"]}
res["load"] = os.getloadavg()
print(json.dumps(res))
"""


def _run(tree: Path, dump: Path, work: Path):
    """Start one measurement (a process with ``PYTHONPATH`` at ``tree``), indexing ``dump`` under ``work``."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.Popen([sys.executable, "-c", WORKER, str(dump), str(work / "index")], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=work)


def _result(proc, work: Path) -> dict:
    out, err = proc.communicate()
    shutil.rmtree(work, ignore_errors=True)
    if proc.returncode:
        raise SystemExit(f"a measurement failed:\n{err[-3000:]}")
    return json.loads(out.strip().splitlines()[-1])


def _line(name: str, r: dict) -> str:
    s, x = r["segment"], r["lexicon"]
    return (f"  {name:9s} segment {s['seconds']:7.1f} s  peak {s['peak_rss_mb']:6.0f} MB "
            f"(anon {s['peak_anon_mb']:5.0f})"
            f" | lexicon {x['seconds']:6.1f} s  peak {x['peak_rss_mb']:6.0f} MB (anon {x['peak_anon_mb']:5.0f})"
            f" | {x['n_surface_forms']:,} forms; load {r['load'][0]:.1f}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dumps", nargs="+", type=Path, help="Wikidata-shaped dump files (from bench_wikidata_scale.py)")
    base = ap.add_mutually_exclusive_group()
    base.add_argument("--baseline", metavar="REF", help="a git revision of this repository to compare with")
    base.add_argument("--baseline-tree", type=Path, metavar="DIR", help="a source tree (holding kg/) to compare with")
    ap.add_argument("--together", action="store_true", help="run both versions at the same time (same load)")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kgfs-bench-ingest-memory",
                    help="where the indexes are built (removed after each measurement)")
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args(argv)
    for d in args.dumps:
        if not d.is_file():
            ap.error(f"dump {d}: no such file (make it with benchmarks/bench_wikidata_scale.py)")
    trees = {"this": REPO}
    tmp = None
    if args.baseline:
        tmp = Path(tempfile.mkdtemp(prefix="kgfs-baseline-"))
        archive = subprocess.run(["git", "-C", str(REPO), "archive", args.baseline], capture_output=True, check=False)
        if archive.returncode:
            ap.error(f"--baseline {args.baseline}: {archive.stderr.decode().strip()}")
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive.stdout, check=True)
        trees = {"baseline": tmp, **trees}
    elif args.baseline_tree:
        if not (args.baseline_tree / "kg").is_dir():
            ap.error(f"--baseline-tree {args.baseline_tree}: no kg/ folder in it")
        trees = {"baseline": args.baseline_tree, **trees}
    results = []
    try:
        for dump in args.dumps:
            meta = dump.parent / "meta.json"
            triples = json.loads(meta.read_text())["triples"] if meta.is_file() else None
            print(f"{dump} ({triples or '?':,} triples), load average {os.getloadavg()[0]:.1f}", flush=True)
            started = time.time()
            got = {}
            if args.together:
                procs = {name: _run(tree, dump, args.work / name) for name, tree in trees.items()}
                got = {name: _result(p, args.work / name) for name, p in procs.items()}
            else:
                for name, tree in trees.items():
                    got[name] = _result(_run(tree, dump, args.work / name), args.work / name)
            for name, r in got.items():
                print(_line(name, r), flush=True)
            if "baseline" in got:
                b, n = got["baseline"], got["this"]
                ratio = {ph: n[ph]["peak_rss_mb"] / b[ph]["peak_rss_mb"] for ph in ("segment", "lexicon")}
                t_b = b["segment"]["seconds"] + b["lexicon"]["seconds"]
                t_n = n["segment"]["seconds"] + n["lexicon"]["seconds"]
                print(f"  this/baseline: peak segment x{ratio['segment']:.2f}, lexicon x{ratio['lexicon']:.2f}; "
                      f"ingest time x{t_n / t_b:.3f} ({t_n:.0f} s vs {t_b:.0f} s)", flush=True)
            results.append({"dump": str(dump), "triples": triples, "wall": time.time() - started, **got})
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    if len(results) > 1:
        for name in trees:
            peaks = [max(r[name]["segment"]["peak_rss_mb"], r[name]["lexicon"]["peak_rss_mb"]) for r in results]
            print(f"{name}: peak RSS of the ingest from the first to the last dump: "
                  + " -> ".join(f"{p:.0f}" for p in peaks) + " MB")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
