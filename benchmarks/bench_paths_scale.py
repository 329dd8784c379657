"""Paths at depth 2 on the Wikidata-shaped 20M dump, against today's one-hop qualified relations (issue 35, point 2).

Issue 35's goal for the ``paths`` kind (:mod:`kg.rdf.paths`): on the Wikidata-shaped index of about 20M
triples, the features of 10,000 entities at depth 2 in under 30 s and 1.5 GB, with the number of
features generated against kept. This script:

1. generates the dump with :mod:`benchmarks.bench_wikidata_scale`'s generator (seeded; kept in
   ``--work``/``wikidata-N`` and reused by later runs, whichever script made it);
2. ingests it once, with relations (``WIKIDATA.with_relations()``, what ``kgfs ingest --preset wikidata
   --relations`` and ``kgfs build --features paths`` read), into ``--work``/``home-N/rdf-cache/index``:
   the place ``kgfs --home --work/home-N`` looks for it, so the same index serves ``--cli``; a second run
   finds the file in the index and does not read it again;
3. draws ``--entities`` items uniformly (seed 11: the 10,000 items of ``bench_wikidata_scale --relations``);
4. in one fresh child process each, fits ``kg.features.KGFeatures(IndexSource(...), features=[kind],
   direction=..., min_support=..., depth=...)`` on them, for
   (a) ``qualified-relations`` (today's one-hop features: the baseline) and
   (b) ``paths --depth 2``, each with ``--direction out`` and ``both``, one after the other in the same run
   (a cold page cache favours the later ones: the first child warms it; ``--repeat`` keeps the best time);
5. prints a table: the seconds of the fit (wall and CPU: on a shared machine the wall time moves with the
   load; the stages: ``facts`` = generation + hierarchy edges (``kg.rdf.table.fetch_facts``), ``hier.`` =
   ``build_hierarchy`` (cycles broken), ``table`` = ``FeatureTable.from_facts``; the child's imports and the
   opening of the index are not in it), the child's peak RSS (its ``VmHWM``, which counts the index's
   memory-mapped pages too; ``anon`` the sampled peak of ``RssAnon`` without them;
   ``getrusage(RUSAGE_SELF).ru_maxrss`` is not used: it starts from the forking parent's peak), the ratio of
   (b) to (a) for the same direction, the goal (under 30 s and 1.5 GB for paths at depth 2), the cycle edges
   the hierarchy lost, and the number of features generated against kept: for paths, the generator's own
   count (``fit_report_["relations"]``: ``generated`` and ``kept`` per level, their totals, the ``hubs``
   not walked through); for both kinds, the nodes of the hierarchy built over what was generated
   (``n_features_found``) and the columns of the fitted table (those of at least ``--min-support`` rows).

``--against CHECKOUT`` also runs the paths cases with another checkout's code on the same index (a
before/after in one run, e.g. ``--against /work/main``). ``--profile`` also runs the paths children under
cProfile (slower; their times are not the table's) and prints where the time goes; ``--cli`` also times
the command line on the same index (``kgfs --home H build --corpus C.csv --entity-columns entity --dump D
--preset wikidata --features paths --depth 2 --direction both --min-support 3``), peak RSS from
``RUSAGE_CHILDREN`` of an intermediate process.

    python benchmarks/bench_paths_scale.py [--scale 1.0] [--entities 10000] [--work DIR] [--min-support 3]
        [--depth 2] [--directions out both] [--repeat 1] [--against CHECKOUT] [--profile] [--cli]
        [--results FILE]

``--scale 0.1`` is a quick run (2M triples; the goals are for 1.0).
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

ROOT = Path(__file__).resolve().parents[1]
FULL = 20_000_000  # triples at --scale 1
GOAL_SECONDS, GOAL_MB = 30.0, 1536.0

CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, {root!r})
mode, args = sys.argv[1], json.loads(sys.argv[2])
t0 = time.perf_counter()
out = {{}}


def rss_mb(field):
    line = next(l for l in open("/proc/self/status") if l.startswith(field + ":"))
    return int(line.split()[1]) / 1024


peaks = {{"RssAnon": 0.0, "RssFile": 0.0}}  # sampled: VmHWM counts the index's mapped pages (RssFile) too


def sample():
    while True:
        for k in peaks:
            peaks[k] = max(peaks[k], rss_mb(k))
        time.sleep(0.05)


import threading
threading.Thread(target=sample, daemon=True).start()


if mode == "ingest":
    from kg.rdf.index.dumpindex import DumpIndex
    from kg.rdf.vocabulary import WIKIDATA
    report = DumpIndex(args["index"]).ingest(args["dump"], vocabulary=WIKIDATA.with_relations())
    f = report["files"][0]
    out = {{"seconds": time.perf_counter() - t0, "read": bool(report["ingested"]), "bytes": report["bytes"],
           "lines": f["lines"], "parsed": f["triples"], "counts": f["counts"]}}
else:  # "features": KGFeatures.fit on the entities
    import numpy as np
    from kg.features import KGFeatures
    from kg.rdf.index.dumpindex import DumpIndex
    from kg.rdf.sources.index import IndexSource
    from kg.rdf.vocabulary import WD, WIKIDATA
    rng = np.random.default_rng(11)  # the items of bench_wikidata_scale --relations
    ents = [f"{{WD}}Q{{q}}" for q in (args["first_item"] + rng.choice(args["items"], args["n"],
                                                                       replace=False)).tolist()]
    src = IndexSource(args["dump"], DumpIndex(args["index"]), vocabulary=WIKIDATA.with_relations())
    src.types(ents[:1])  # opens the index's segment (memory maps), so the fit below is the features' cost
    out["imports_and_open"] = time.perf_counter() - t0
    out["rss_before_mb"] = rss_mb("VmRSS")
    kg = KGFeatures(src, features=args["features"], input="entities", direction=args["direction"],
                    min_support=args["min_support"], depth=args["depth"])
    import kg.features as F  # the stages of the fit, timed (wrapped where KGFeatures calls them)
    stages = {{}}

    def timed(name, f):
        def g(*a, **k):
            t1 = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                stages[name] = stages.get(name, 0.0) + time.perf_counter() - t1
        return g

    F.fetch_facts, F.build_hierarchy = timed("facts", F.fetch_facts), timed("hierarchy", F.build_hierarchy)
    from types import SimpleNamespace
    F.FeatureTable = SimpleNamespace(from_facts=timed("table", F.FeatureTable.from_facts))  # its one use there
    prof = None
    if args.get("profile"):
        import cProfile
        prof = cProfile.Profile()
        prof.enable()
    t, cpu = time.perf_counter(), time.process_time()
    X = kg.fit_transform(ents)
    out["seconds"] = time.perf_counter() - t
    out["cpu_seconds"] = time.process_time() - cpu  # this process's CPU: less moved by a busy machine than wall time
    out["stages"] = stages
    if prof is not None:
        import io, pstats
        prof.disable()
        prof.dump_stats(args["profile"])
        s = io.StringIO()
        st = pstats.Stats(prof, stream=s).strip_dirs()
        st.sort_stats("cumulative").print_stats(30)
        st.sort_stats("tottime").print_stats(25)
        out["profile"] = s.getvalue()
    rep = kg.fit_report_
    rel = rep.get("relations") or {{}}
    out.update({{"n_entities": rep["n_entities"], "without": len(rep["entities_without_features"]),
                "found": rep["n_features_found"], "kept": int(X.shape[1]), "nnz": int(X.nnz),
                "removed_cycle_edges": len(rep["removed_cycle_edges"]),
                "relations": {{k: v for k, v in rel.items() if k != "excluded_predicates"}}}})
# VmHWM, not getrusage(RUSAGE_SELF).ru_maxrss: Linux carries the forking parent's high-water mark over exec
# into ru_maxrss, VmHWM is this process's own
out["peak_mb"] = rss_mb("VmHWM")
out["peak_anon_mb"], out["peak_file_mb"] = peaks["RssAnon"], peaks["RssFile"]
out["ru_maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""

CLI_CHILD = r"""
import json, resource, subprocess, sys, time
t = time.perf_counter()
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(json.dumps({"rc": proc.returncode, "seconds": time.perf_counter() - t,
                  "peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
                  "out": proc.stdout[-1500:], "err": proc.stderr[-3000:]}))
"""


def child(mode: str, root: Path = ROOT, **args) -> dict:
    """A measurement in a fresh process, with the code of the checkout ``root``."""
    t = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    res = subprocess.run([sys.executable, "-c", CHILD.format(root=str(root)), mode, json.dumps(args, default=str)],
                         capture_output=True, text=True, env=env, cwd=root)
    if res.returncode:
        raise RuntimeError(f"{mode} {args.get('features', '')} failed:\n{res.stderr[-4000:]}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    out["wall"] = time.perf_counter() - t
    return out


def dump_folder(work: Path, n: int) -> Path:
    """``bench_wikidata_scale.dumps_for``, in a child process (the generator holds GBs at 20M: the parent, whose
    memory every child starts from, stays small)."""
    code = ("import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
            "from bench_wikidata_scale import dumps_for; print(dumps_for(Path(sys.argv[2]), int(sys.argv[3])))")
    res = subprocess.run([sys.executable, "-c", code, str(Path(__file__).resolve().parent), str(work), str(n)],
                         stdout=subprocess.PIPE, text=True, check=True)
    return Path(res.stdout.strip().splitlines()[-1])


def cli_build(home: Path, dump: Path, corpus: Path, out: Path, args: argparse.Namespace) -> dict:
    """``kgfs build`` of the corpus file with paths (both directions), in an intermediate process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "PREFECT_HOME": str(home / "prefect"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1",
           "NO_PROXY": ",".join(filter(None, [os.environ.get("NO_PROXY"), "127.0.0.1,localhost"])),
           "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120"}
    env.pop("PREFECT_API_URL", None)
    cmd = [sys.executable, "-m", "flows.cli", "--home", str(home), "build", "--corpus", str(corpus),
           "--entity-columns", "entity", "--dump", str(dump), "--preset", "wikidata", "--features", "paths",
           "--depth", str(args.depth), "--direction", "both", "--min-support", str(args.min_support),
           "--out", str(out), "-q"]
    res = subprocess.run([sys.executable, "-c", CLI_CHILD, *cmd], capture_output=True, text=True, env=env, cwd=ROOT)
    r = json.loads(res.stdout.strip().splitlines()[-1])
    r["command"] = " ".join(cmd[2:])
    return r


def fmt_levels(rel: dict) -> str:
    g, k = rel.get("generated") or [], rel.get("kept") or []
    return " + ".join(f"{a:,}/{b:,}" for a, b in zip(g, k))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="the dump's size as a share of 20M triples (0.1: 2M)")
    ap.add_argument("--entities", type=int, default=10_000, help="entities to build features for")
    ap.add_argument("--work", default=str(Path(tempfile.gettempdir()) / "kgfs-bench-paths"),
                    help="where the dump and the index are kept (reused when present)")
    ap.add_argument("--min-support", type=int, default=3)
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--directions", nargs="+", default=["out", "both"], choices=["out", "in", "both"])
    ap.add_argument("--repeat", type=int, default=1, help="measure each case this many times, keep the fastest")
    ap.add_argument("--against", metavar="CHECKOUT",
                    help="also the paths cases with another checkout's code (e.g. /work/main): before/after")
    ap.add_argument("--profile", action="store_true", help="also profile the paths children (cProfile)")
    ap.add_argument("--cli", action="store_true", help="also time `kgfs build ... --features paths` on the index")
    ap.add_argument("--results", help="JSON file of this run's figures (default: in --work)")
    args = ap.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    n = int(FULL * args.scale)
    d = dump_folder(work, n)
    dump, meta = d / "latest-truthy.nt.bz2", json.loads((d / "meta.json").read_text())
    home = work / f"home-{n}"
    index = home / "rdf-cache" / "index"  # kg.rdf.cache_folder(home) / "index": where `kgfs --home` looks
    load = os.getloadavg()
    print(f"== {meta['triples']:,} triples ({meta['bytes'] / 1e6:.0f} MB bz2, {meta['items']:,} items, "
          f"{meta['classes']:,} classes): {dump}; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; "
          f"{os.cpu_count()} cores", flush=True)
    ing = child("ingest", dump=dump, index=index)
    print(f"ingest with relations: {ing['seconds']:.1f} s " + ("(read now)" if ing["read"] else "(in the index "
          "already)") + f", peak RSS {ing['peak_mb']:.0f} MB; index {ing['bytes'] / 1e6:.0f} MB at {index}; "
          f"{ing['parsed']:,} of {ing['lines']:,} lines parsed; "
          + ", ".join(f"{k} {v:,}" for k, v in sorted(ing["counts"].items()) if isinstance(v, int)), flush=True)
    common = dict(dump=dump, index=index, first_item=meta["classes"] + 1, items=meta["items"], n=args.entities,
                  min_support=args.min_support)
    against = Path(args.against).resolve() if args.against else None
    cases = []  # (key, kind, direction, depth, checkout)
    for direction in args.directions:
        cases.append((f"qualified-relations/{direction}", "qualified-relations", direction, None, ROOT))
        cases.append((f"paths/{direction}", "paths", direction, args.depth, ROOT))
        if against is not None:
            cases.append((f"paths/{direction}/against", "paths", direction, args.depth, against))
    results: dict[str, dict] = {}
    for rep in range(args.repeat):
        for key, kind, direction, depth, root in cases:
            r = child("features", root=root, features=[kind], direction=direction, depth=depth, **common)
            r["load"] = os.getloadavg()[0]
            code = "" if root == ROOT else f" ({root})"
            print(f"  [{rep + 1}/{args.repeat}] {kind:<19} --direction {direction:<4}{code}: fit {r['seconds']:7.2f} s "
                  f"({r['cpu_seconds']:.1f} s CPU; "
                  f"facts {r['stages'].get('facts', 0):.1f}, hierarchy {r['stages'].get('hierarchy', 0):.1f}, "
                  f"table {r['stages'].get('table', 0):.1f}), peak RSS {r['peak_mb']:6.0f} MB (anon "
                  f"{r['peak_anon_mb']:.0f}, mapped files {r['peak_file_mb']:.0f}; {r['rss_before_mb']:.0f} before "
                  f"the fit), child {r['wall']:.1f} s, load {r['load']:.1f}", flush=True)
            best = results.get(key)
            if best is None or r["seconds"] < best["seconds"]:
                results[key] = r
    profiles = {}
    if args.profile:
        for direction in args.directions:
            pfile = work / f"paths-{n}-{direction}.prof"
            r = child("features", features=["paths"], direction=direction, depth=args.depth, profile=str(pfile),
                      **common)
            profiles[direction] = {k: v for k, v in r.items() if k != "profile"}
            print(f"\n== cProfile of paths --depth {args.depth} --direction {direction} (fit {r['seconds']:.1f} s "
                  f"under the profiler; stats in {pfile})\n{r['profile']}", flush=True)
    cli = None
    if args.cli:
        corpus = work / f"entities-{n}-{args.entities}.csv"
        import numpy as np

        rng = np.random.default_rng(11)  # the same items
        q = (meta["classes"] + 1 + rng.choice(meta["items"], args.entities, replace=False)).tolist()
        corpus.write_text("id,entity,label\n" + "".join(f"e{i},Q{x},{'ab'[x % 2]}\n" for i, x in enumerate(q)),
                          encoding="utf-8")  # a label column (the build needs one): the item number's parity
        cli = cli_build(home, dump, corpus, Path(tempfile.mkdtemp(prefix="paths-cli-", dir=work)) / "out", args)
        print(f"\n== {cli['command']}\n   rc {cli['rc']}, {cli['seconds']:.1f} s, peak RSS {cli['peak_mb']:.0f} MB"
              f"\n{cli['out']}" + (f"\n{cli['err']}" if cli["rc"] else ""), flush=True)
    table(results, meta, args, against)
    path = Path(args.results or work / f"results-paths-{n}.json")
    path.write_text(json.dumps({"meta": meta, "load": load, "ingest": ing, "results": results, "cli": cli,
                                "profiles": profiles, "args": vars(args)}, indent=1, default=str))
    print(f"figures in {path}")


def table(results: dict, meta: dict, args, against: Path | None) -> None:
    print(f"\n== {args.entities:,} entities, {meta['triples']:,} triples, min_support {args.min_support}, load "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores. fit = KGFeatures.fit_transform: facts (generation "
          f"and hierarchy edges, kg.rdf.table.fetch_facts) + hierarchy (build_hierarchy, cycles broken) + table "
          f"(FeatureTable.from_facts) + labels; CPU s: the child's CPU time in the fit (the machine is shared: wall "
          f"time moves with its load). x = paths / qualified-relations, same direction. Goal for paths "
          f"--depth {args.depth}: < {GOAL_SECONDS:.0f} s and < {GOAL_MB:.0f} MB (at --scale 1). Peak RSS = VmHWM "
          f"(anon = sampled peak of RssAnon: without the index's mapped pages)")
    head = (f"{'features':<26} {'dir':<5} {'fit s':>7} {'CPU s':>6} {'x':>5} {'facts':>6} {'hier.':>6} {'table':>6} "
            f"{'peak MB':>8} {'anon':>6} {'x':>5} {'goal':>5} {'hier. nodes':>12} {'columns':>9} {'nnz':>10}  "
            f"generated/kept (paths: total = level 1 + level 2)  hubs  cycle edges")
    print(head)
    print("-" * len(head))
    for direction in args.directions:
        base = results[f"qualified-relations/{direction}"]
        rows = [("qualified-relations", "qualified-relations", results[f"qualified-relations/{direction}"]),
                (f"paths --depth {args.depth}", "paths", results[f"paths/{direction}"])]
        if against is not None:
            rows.append((f"  (code of {against.name})", "paths", results[f"paths/{direction}/against"]))
        for name, kind, r in rows:
            rel, st = r["relations"], r.get("stages", {})
            paths = kind == "paths"
            goal = "" if not paths else "ok" if r["seconds"] < GOAL_SECONDS and r["peak_mb"] < GOAL_MB else "MISS"
            gen = (f"{rel['generated_total']:,}/{rel['kept_total']:,} = {fmt_levels(rel)}" if "generated_total" in rel
                   else f"{r['found']:,}/{r['kept']:,} (hierarchy nodes/columns)")
            xt = f"{r['seconds'] / base['seconds']:.1f}" if paths else ""
            xm = f"{r['peak_mb'] / base['peak_mb']:.1f}" if paths else ""
            print(f"{name:<26} {direction:<5} {r['seconds']:>7.1f} {r.get('cpu_seconds', 0):>6.1f} {xt:>5} "
                  f"{st.get('facts', 0):>6.1f} "
                  f"{st.get('hierarchy', 0):>6.1f} {st.get('table', 0):>6.1f} {r['peak_mb']:>8.0f} "
                  f"{r['peak_anon_mb']:>6.0f} {xm:>5} "
                  f"{goal:>5} {r['found']:>12,} {r['kept']:>9,} {r['nnz']:>10,}  {gen}  "
                  f"{(str(rel.get('hubs', 0)) if paths else ''):>4}  {r['removed_cycle_edges']:,}")
    print("(first-hop relations used: " + ", ".join(
        f"{k} {results[k]['relations'].get('n_relations', 0):,}" for k in results) + ")")
    for k, r in results.items():
        ex = r["relations"].get("hub_examples")
        if ex:
            print(f"hubs of {k}, e.g.: {', '.join(ex)}")


if __name__ == "__main__":
    main()
