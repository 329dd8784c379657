"""Exports that scale (issue 27): the export stage's time and the store's growth over parameter changes.

Runs the select and export stages of ``kgfs run`` (:class:`flows.stages.RunPlan`, no Prefect) on one stored
table for a few thresholds, in a fresh kgfs home, and prints per threshold the export stage's seconds and how
much the store grew (bytes on disk, hard links counted once). With ``--against CHECKOUT`` it measures another
checkout of kgfs in the same run (a child process with that checkout on ``PYTHONPATH``, its own fresh home) and
prints the ratios this/other:

    python benchmarks/bench_exports.py --table T/table.npz --home /tmp/h --against /tmp/old-kgfs

The table is any ``table.npz`` (``kgfs build ... --out T``); the DBpedia categories table of issue 27 is
10,000 x 4,850 (made from ``benchmarks/bench_dbpedia_scale.py``'s 1M-triple dump and a corpus of 10,000
tweets). Timings on a loaded machine are noisy: the load average is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path


def disk_bytes(folder: Path) -> int:
    """Bytes the files under ``folder`` take, each inode once (hard links are one copy)."""
    seen, total = set(), 0
    for p in folder.rglob("*"):
        if p.is_file() and not p.is_symlink():
            st = p.stat()
            if st.st_ino not in seen:
                seen.add(st.st_ino)
                total += st.st_blocks * 512
    return total


def measure(table: Path, home: Path, thresholds) -> dict:
    """Select and export ``table`` at each threshold in a fresh kgfs home; prints a line per threshold."""
    from flows.run_options import RunOptions
    from flows.stages import ExportStep, SelectStep, stage_store
    from kg.files import sha256_file

    shutil.rmtree(home, ignore_errors=True)
    store = stage_store(home)
    # the table as a stored record, as the route's table step leaves it
    tab = store.run("table", {"file": sha256_file(table)}, lambda d: (
        {"table": "table.npz"}, {"bytes": shutil.copyfile(table, d / "table.npz") and 0}))
    base = disk_bytes(store.root)
    total_s = 0.0
    dense_option = "dense" in " ".join(ExportStep.__init__.__code__.co_varnames)  # older checkouts have none
    for t in thresholds:
        options = RunOptions(selector_params={"threshold": t})
        sel_step = SelectStep(options.selector, options.selector_params)
        sel = store.run("select", {**sel_step.key({"table": tab}), "v": 1},
                        lambda d, s=sel_step: s.compute(d, {"table": tab}))
        exp = (ExportStep(options.sparse_arff, getattr(options, "dense_exports", None)) if dense_option
               else ExportStep(options.sparse_arff))
        up = {"table": tab, "select": sel}
        t0 = time.perf_counter()
        rec = store.run("export", exp.key(up), lambda d: exp.compute(d, up))
        secs = time.perf_counter() - t0
        total_s += secs
        print(f"  threshold {t}: {sel.summary['n_selected']} kept; export {secs:.1f} s "
              f"({', '.join(sorted(rec.files))}); store grew by {(disk_bytes(store.root) - base) / 1e6:.0f} MB so far",
              flush=True)
    return {"seconds": total_s, "bytes": disk_bytes(store.root) - base}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", required=True, help="a table.npz")
    ap.add_argument("--home", required=True, help="a scratch folder for the fresh kgfs homes (emptied first)")
    ap.add_argument("--thresholds", nargs="+", type=float, default=[0.99, 0.9, 0.8])
    ap.add_argument("--against", help="another checkout of kgfs, measured in the same run (a ratio this/other)")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # the --against child's last line
    args = ap.parse_args()
    table, home = Path(args.table).resolve(), Path(args.home)
    if args.json:
        print(json.dumps(measure(table, home, args.thresholds)))
        return
    print(f"load average {os.getloadavg()[0]:.1f}; table {table} ({table.stat().st_size / 1e6:.0f} MB)")
    print("this checkout:")
    this = measure(table, home / "this", args.thresholds)
    print(f"this checkout: export {this['seconds']:.1f} s over {len(args.thresholds)} thresholds; "
          f"store grew by {this['bytes'] / 1e6:.0f} MB")
    if args.against:
        other_root = Path(args.against).resolve()
        print(f"{other_root}:")
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--table", str(table), "--home",
                               str((home / "other").resolve()), "--thresholds", *map(str, args.thresholds), "--json"],
                              cwd=other_root, env={**os.environ, "PYTHONPATH": str(other_root)},
                              stdout=subprocess.PIPE, text=True, check=True)
        lines = proc.stdout.rstrip().splitlines()
        print("\n".join(lines[:-1]))
        other = json.loads(lines[-1])
        print(f"{other_root}: export {other['seconds']:.1f} s; store grew by {other['bytes'] / 1e6:.0f} MB")
        print(f"ratio this/other: export time {this['seconds'] / max(other['seconds'], 1e-9):.3f}, "
              f"store growth {this['bytes'] / max(other['bytes'], 1):.3f}")
    print(f"load average {os.getloadavg()[0]:.1f} after")


if __name__ == "__main__":
    main()
