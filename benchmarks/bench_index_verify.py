"""What checking the dump index costs (issue 30): a new corpus with and without the checks on open, and a full check.

Every folder of the dump index (a segment per dump file, a lexicon) carries a manifest of its files' sizes, times
and sha256 (``kg/rdf/index/manifest.py``). Opening the index checks sizes and array headers (and hashes a file
written since it was built) on every run; ``kgfs cache verify`` and ``kgfs ingest`` hash every file. This script
measures, on the DBpedia-shaped dumps of ``bench_dbpedia_scale.py`` (generated there, in ``--data``; the index is
ingested in ``--home`` unless it is there):

- a new corpus of 10,000 texts through the route's steps (``kg.routes.build_table``, what ``kgfs build --corpus``
  and the pipeline's stages run) against the index, with the checks on open and with them switched off, in fresh
  child processes, alternating, ``--repeat`` times each (median wall time): the ratio is the cost on every run;
- the open alone (the segments and the lexicon of the dump), with and without the checks;
- the full check (``DumpIndex.verify``: every file hashed, what ``kgfs cache verify`` adds), next to the same
  corpus run and to the ingest (``--ingest-seconds``, or measured when this script ingests).

    python benchmarks/bench_index_verify.py --size 20M [--data DIR] [--home DIR] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

CHILD = r"""
import json, sys, time
sys.path.insert(0, {root!r})
mode, args = sys.argv[1], json.loads(sys.argv[2])
import kg.rdf.index.dumpindex, kg.rdf.index.lexicon, kg.rdf.index.manifest  # imported before the clock starts
if not args["checks"]:  # the run without verification: every check passes
    kg.rdf.index.dumpindex.check_folder = kg.rdf.index.lexicon.check_folder = lambda folder, full=False: []
out = {{}}
t = time.perf_counter()
if mode == "checks":  # the checks on open alone, every folder of the index, many times
    from kg.rdf.index.dumpindex import DumpIndex
    folders = DumpIndex(args["index"]).folders()
    times = []
    for _ in range(20):
        t1 = time.perf_counter()
        assert not any(kg.rdf.index.manifest.check_folder(f) for f in folders)
        times.append(time.perf_counter() - t1)
    out["per_open"] = sorted(times)[len(times) // 2]
    out["folders"] = len(folders)
    out["files"] = sum(len(list(f.iterdir())) for f in folders)
elif mode == "open":
    from kg.rdf.index.dumpindex import DumpIndex
    index = DumpIndex(args["index"])
    segs = index.segments(args["dump"])
    lex = index.lexicon(args["dump"])
    out["segments"] = len(segs)
elif mode == "verify":
    from kg.rdf.index.dumpindex import DumpIndex
    out["problems"] = [str(p) for p in DumpIndex(args["index"]).verify()]
elif mode == "ingest":
    from kg.rdf.index.dumpindex import DumpIndex
    DumpIndex(args["index"]).ingest(args["dump"])
else:
    from kg.routes import build_table
    from kg.routes.base import Context
    from kg.rdf.route import CorpusInput
    inp = CorpusInput.from_options({{"corpus": args["corpus"], "dump": [args["dump"]], "features": args["features"]}})
    table = build_table(inp, Context(home=args["home"]))  # no store: a new corpus, the index built
    out["shape"] = [table.n_instances, table.n_features]
out["seconds"] = time.perf_counter() - t
print(json.dumps(out))
"""


def child(mode: str, **args) -> dict:
    res = subprocess.run([sys.executable, "-c", CHILD.format(root=str(ROOT)), mode, json.dumps(args, default=str)],
                         capture_output=True, text=True)
    if res.returncode:
        raise RuntimeError(f"{mode} failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    import bench_dbpedia_scale as scale

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="1M", help="dump size, e.g. 1M 5M 20M")
    ap.add_argument("--data", default=str(Path(tempfile.gettempdir()) / "kgfs-bench-dbpedia"))
    ap.add_argument("--home", help="kgfs home holding (or to hold) the dump's index (default: in --data)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--features", default="types", choices=["types", "categories"])
    ap.add_argument("--ingest-seconds", type=float, help="the ingest's time, when the index was built before")
    args = ap.parse_args()
    n = int(float(args.size.rstrip("Mm")) * 1_000_000) if args.size[-1] in "Mm" else int(args.size)
    d = scale.dumps_for(Path(args.data), n)
    corpus = scale.corpora(d)[0]
    home = Path(args.home or d / "verify-home")
    index, dump = home / "dbpedia-cache" / "index", d / "dump"
    ingest = args.ingest_seconds
    if not (index / "files.json").is_file():
        ingest = child("ingest", index=index, dump=dump, checks=True)["seconds"]
    print(f"dump: {d} ({json.loads((d / 'meta.json').read_text())['triples']:,} triples), index {index} "
          f"({sum(p.stat().st_size for p in index.rglob('*') if p.is_file()) / 1e6:.0f} MB); "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    runs: dict[str, list[float]] = {"open:on": [], "open:off": [], "corpus:on": [], "corpus:off": []}
    for _ in range(args.repeat):
        for checks in (True, False):
            key = "on" if checks else "off"
            runs[f"open:{key}"].append(child("open", index=index, dump=dump, checks=checks)["seconds"])
            r = child("corpus", corpus=corpus, dump=dump, features=args.features, home=home, checks=checks)
            runs[f"corpus:{key}"].append(r["seconds"])
    med = {k: statistics.median(v) for k, v in runs.items()}
    c = child("checks", index=index, checks=True)
    print(f"the checks on open alone: {c['per_open'] * 1e3:.1f} ms for the {c['folders']} folders ({c['files']} files) "
          "of the index (median of 20, page cache warm)")
    print(f"open the index (segments + lexicon): {med['open:on'] * 1e3:.1f} ms with the checks, "
          f"{med['open:off'] * 1e3:.1f} ms without (+{(med['open:on'] - med['open:off']) * 1e3:.1f} ms)")
    print(f"new corpus {corpus.name} ({args.features}): {med['corpus:on']:.2f} s with the checks, "
          f"{med['corpus:off']:.2f} s without: ratio {med['corpus:on'] / med['corpus:off']:.3f} "
          f"(runs: {', '.join(f'{k}=' + '/'.join(f'{x:.2f}' for x in v) for k, v in runs.items())})", flush=True)
    t = time.perf_counter()
    v = child("verify", index=index, checks=True)
    print(f"full check (kgfs cache verify: every file hashed): {v['seconds']:.1f} s "
          f"({time.perf_counter() - t:.1f} s with the process), {len(v['problems'])} problem(s); "
          f"{v['seconds'] / med['corpus:off']:.2f}x the new corpus"
          + (f", {v['seconds'] / ingest:.3f}x the ingest ({ingest:.0f} s)" if ingest else "")
          + f"; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
