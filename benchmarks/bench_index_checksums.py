"""What the dump index's block checksums cost (issue 37 point 2): a new corpus with and without verification.

Every file of the dump index has the CRC-32C of each 1 MiB block in its folder's manifest
(``kg/rdf/index/blocks.py``), and a build verifies what it reads: an array whole on its first open in the
process, a string column's blob block by block as strings are read. This script measures, on the
Wikidata-shaped dump of ``bench_wikidata_scale.py`` (generated there, cached in ``--data``; ``--triples``
sets its size, 20M by default) ingested with the ``wikidata`` preset:

- a new corpus of 10,000 texts (real tweets with English labels of items, as ``bench_wikidata_scale.py``'s)
  through the route's steps (``kg.routes.build_table``: lexicon annotation, then P31 + P279 types from the
  index, a temporary store), in fresh child processes, alternating with and without the verification
  (``KGFS_BLOCK_CHECKS=0``, which only this benchmark sets), ``--repeat`` times each: median wall times and
  their ratio (goal: under 5% more), the same for their CPU time (on a loaded machine the wall times of
  the same run vary by 2x), and the verification's own time in the run with it (the time spent in
  ``Checks.file``/``spans``/``rows``, and the bytes they hashed); every child with one ``PYTHONHASHSEED``
  (one cause fewer of the runs' differences: the table's dicts and sets are hashed alike in every run);
- with ``--relations``: the same, on the dump ingested with relations (``wikidata.with_relations()``), for a
  table of the qualified relations, both ways, of ``--items`` items drawn uniformly (their ids in a CSV): the
  build reads the relation tables (``relations_out.objects.npy``...: the case of issue 37);
- checksumming an index written by a kgfs without block checksums (the manifests rewritten as format 2,
  then the first open: every file of the opened folders checksummed once), in a fresh process;
- the ingest (once, when the index is not in ``--home`` yet), with its checksums written.

    python benchmarks/bench_index_checksums.py [--triples 20M] [--repeat 5] [--relations [--items 2000]] [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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
import kg.rdf.index.blocks as blocks
from kg.routes import build_table
from kg.routes.base import Context
from kg.rdf.route import CorpusInput
from kg.rdf.index.dumpindex import DumpIndex
from kg.rdf.vocabulary import WIKIDATA
spent = {{"seconds": 0.0, "bytes": 0}}
for name in ("file", "spans", "rows"):  # the verification's own time
    def timed(self, *a, _f=getattr(blocks.Checks, name), **k):
        t0 = time.perf_counter()
        try:
            return _f(self, *a, **k)
        finally:
            spent["seconds"] += time.perf_counter() - t0
    setattr(blocks.Checks, name, timed)
verify = blocks.Checks._verify
def counted(self, path, crcs, done, size, todo):
    spent["bytes"] += sum(min(self.block, size - b * self.block) for b in todo if not done[b])
    return verify(self, path, crcs, done, size, todo)
blocks.Checks._verify = counted
t, cpu = time.perf_counter(), time.process_time()
out = {{}}
if mode == "ingest":
    vocabulary = WIKIDATA.with_relations() if args.get("relations") else WIKIDATA
    report = DumpIndex(args["index"]).ingest(args["dump"], vocabulary=vocabulary, lexicon=not args.get("relations"))
    out["bytes"] = report["bytes"]
elif mode == "open":  # an index of format-2 manifests: its first open checksums its folders
    index = DumpIndex(args["index"])
    index.segments(args["dump"], vocabulary=WIKIDATA.with_relations() if args.get("relations") else WIKIDATA)
    if not args.get("relations"):
        index.lexicon(args["dump"], vocabulary=WIKIDATA)
elif mode == "items":  # 10,000 items by their ids: qualified relations both ways from the relation tables
    inp = CorpusInput.from_options({{"corpus": args["corpus"], "dump": [args["dump"]], "preset": "wikidata",
                                    "entity_columns": ["e"], "features": ["qualified-relations"],
                                    "direction": "both"}})
    table = build_table(inp, Context(home=args["home"]))
    out["shape"] = [table.n_instances, table.n_features]
else:
    inp = CorpusInput.from_options({{"corpus": args["corpus"], "dump": [args["dump"]], "preset": "wikidata"}})
    table = build_table(inp, Context(home=args["home"]))  # a temporary store: a new corpus, the index built
    out["shape"] = [table.n_instances, table.n_features]
out["seconds"], out["cpu_seconds"] = time.perf_counter() - t, time.process_time() - cpu
out["verify_seconds"], out["verified_bytes"] = spent["seconds"], spent["bytes"]
print(json.dumps(out))
"""


def child(mode: str, checks: bool = True, **args) -> dict:
    env = {**os.environ, "KGFS_BLOCK_CHECKS": "1" if checks else "0", "PYTHONHASHSEED": "0"}
    res = subprocess.run([sys.executable, "-c", CHILD.format(root=str(ROOT)), mode, json.dumps(args, default=str)],
                         capture_output=True, text=True, env=env)
    if res.returncode:
        raise RuntimeError(f"{mode} failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def as_format_2(index: Path) -> int:
    """Rewrite every manifest of the index as a kgfs without block checksums wrote it (format 2); its files."""
    import hashlib

    n = 0
    for m in index.glob("*/*/manifest.json"):
        data = json.loads(m.read_text(encoding="utf-8"))
        files = {k: {f: v for f, v in e.items() if f != "blocks"} for k, e in data["files"].items()}
        digest = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()
        m.write_text(json.dumps({"format": 2, "files": files, "sha256": digest}, indent=1, sort_keys=True) + "\n",
                     encoding="utf-8")
        n += len(files)
    return n


def main() -> None:
    import bench_wikidata_scale as wd

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--triples", default="20M", help="dump size, e.g. 5M 20M")
    ap.add_argument("--data", default=str(Path(tempfile.gettempdir()) / "kgfs-bench-wikidata-rel"))
    ap.add_argument("--home", help="kgfs home holding (or to hold) the dump's index (default: in --data)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--relations", action="store_true",
                    help="instead: the dump ingested with relations, a table of qualified relations (both directions) "
                         "of --items items (the relation tables read: the case of issue 37)")
    ap.add_argument("--items", type=int, default=2000, help="items of the --relations table")
    args = ap.parse_args()
    n = int(float(args.triples.rstrip("Mm")) * 1_000_000) if args.triples[-1] in "Mm" else int(args.triples)
    d = wd.dumps_for(Path(args.data), n)
    dump, corpus = d / "latest-truthy.nt.bz2", wd.corpus(d)
    home = Path(args.home or d / ("checksums-home-relations" if args.relations else "checksums-home"))
    index = home / "rdf-cache" / "index"
    mode = "corpus"
    if args.relations:
        import numpy as np

        mode, meta = "items", json.loads((d / "meta.json").read_text())
        rng = np.random.default_rng(11)
        items = meta["classes"] + 1 + rng.choice(meta["items"], min(args.items, meta["items"]), replace=False)
        corpus = d / "items.csv"
        corpus.write_text("id,e,label\n" + "".join(f"i{k},{wd.WD}Q{q},{k % 2}\n" for k, q in enumerate(items.tolist())),
                          encoding="utf-8")
    if not (index / "files.json").is_file():
        t = time.perf_counter()
        ing = child("ingest", index=index, dump=dump, relations=args.relations)
        print(f"ingest (checksums written): {time.perf_counter() - t:.1f} s, index {ing['bytes'] / 1e6:.0f} MB",
              flush=True)
    size = sum(p.stat().st_size for p in index.rglob("*") if p.is_file())
    meta = json.loads((d / "meta.json").read_text())
    print(f"dump: {dump} ({meta['triples']:,} triples), index {index} ({size / 1e6:.0f} MB); "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    child(mode, corpus=corpus, dump=dump, home=home)  # warm the page cache (not counted)
    runs: dict[str, list[dict]] = {"on": [], "off": []}
    for _ in range(args.repeat):
        for checks in (True, False):
            runs["on" if checks else "off"].append(child(mode, checks, corpus=corpus, dump=dump, home=home))
    on, off = (statistics.median(r["seconds"] for r in runs[k]) for k in ("on", "off"))
    cpu_on, cpu_off = (statistics.median(r["cpu_seconds"] for r in runs[k]) for k in ("on", "off"))
    ver = statistics.median(r["verify_seconds"] for r in runs["on"])
    hashed = statistics.median(r["verified_bytes"] for r in runs["on"])
    times = {k: "/".join(f"{r['seconds']:.2f}" for r in v) for k, v in runs.items()}
    what = f"{args.items:,} items, qualified relations both ways" if args.relations else "10,000 texts"
    print(f"new corpus ({what}, {runs['on'][0]['shape'][0]} x {runs['on'][0]['shape'][1]}): {on:.2f} s with "
          f"the block checks, {off:.2f} s without: ratio {on / off:.3f} (goal < 1.05); the verification itself "
          f"{ver:.3f} s ({hashed / 1e6:.0f} MB hashed, {ver / on:.1%} of the run); medians of {args.repeat}, "
          f"runs on={times['on']} off={times['off']}; load average {os.getloadavg()[0]:.1f}",
          flush=True)
    print(f"  the same runs' CPU time (less sensitive to a loaded machine): {cpu_on:.2f} s with, {cpu_off:.2f} s "
          f"without: ratio {cpu_on / cpu_off:.3f}", flush=True)
    old = home.parent / "checksums-home-format2"
    shutil.rmtree(old, ignore_errors=True)
    shutil.copytree(home, old, copy_function=shutil.copy2)
    try:
        files = as_format_2(old / "rdf-cache" / "index")
        o = child("open", index=old / "rdf-cache" / "index", dump=dump, relations=args.relations)
        again = child("open", index=old / "rdf-cache" / "index", dump=dump, relations=args.relations)
        print(f"an index of a kgfs without block checksums ({files} files, {size / 1e6:.0f} MB): its first open "
              f"{o['seconds']:.2f} s (checksumming its folders, the manifests written again as format 3), the next "
              f"{again['seconds']:.2f} s; nothing ingested again", flush=True)
    finally:
        shutil.rmtree(old, ignore_errors=True)


if __name__ == "__main__":
    main()
