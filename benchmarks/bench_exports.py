"""Exports that scale (issue 27): the export stage's time and the store's growth over parameter changes.

Runs the select and export stages of ``kgfs run`` (:class:`flows.stages.RunPlan`, no Prefect) on one stored
table for a few thresholds, in a fresh kgfs home, and prints per threshold the export stage's seconds and how
much the store grew (bytes on disk, hard links counted once). Run it with the code to compare on
``PYTHONPATH`` (e.g. a checkout of main, then this one) on the same table, and compare the two lines of totals:

    PYTHONPATH=../main python benchmarks/bench_exports.py --table T/table.npz --home /tmp/h-main
    PYTHONPATH=. python benchmarks/bench_exports.py --table T/table.npz --home /tmp/h-new

The table is any ``table.npz`` (``kgfs build ... --out T``); the DBpedia categories table of issue 27 is
10,000 x 4,850 (made from ``benchmarks/bench_dbpedia_scale.py``'s 1M-triple dump and a corpus of 10,000
tweets). Timings on a loaded machine are noisy: the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import shutil
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", required=True, help="a table.npz")
    ap.add_argument("--home", required=True, help="a fresh kgfs home (removed first)")
    ap.add_argument("--thresholds", nargs="+", type=float, default=[0.99, 0.9, 0.8])
    args = ap.parse_args()
    from flows.run_options import RunOptions
    from flows.stages import ExportStep, SelectStep, stage_store
    from kg.files import sha256_file
    from kg.store import Record
    from kg.store.records import files_hash

    home = Path(args.home)
    shutil.rmtree(home, ignore_errors=True)
    store = stage_store(home)
    src = Path(args.table)
    # the table as a stored record, as the route's table step leaves it
    tab = store.run("table", {"file": sha256_file(src)}, lambda d: (
        {"table": "table.npz"}, {"bytes": shutil.copyfile(src, d / "table.npz") and 0}))
    print(f"load average {os.getloadavg()[0]:.1f}; table {src} ({src.stat().st_size / 1e6:.0f} MB)")
    base = disk_bytes(store.root)
    total_s = 0.0
    for t in args.thresholds:
        options = RunOptions(selector_params={"threshold": t})
        sel_step = SelectStep(options.selector, options.selector_params)
        sel = store.run("select", {**sel_step.key({"table": tab}), "v": 1},
                        lambda d, s=sel_step: s.compute(d, {"table": tab}))
        exp = ExportStep(options.sparse_arff, getattr(options, "dense_exports", None)) \
            if "dense" in ExportStep.__init__.__code__.co_varnames else ExportStep(options.sparse_arff)
        up = {"table": tab, "select": sel}
        t0 = time.perf_counter()
        rec = store.run("export", exp.key(up), lambda d: exp.compute(d, up))
        secs = time.perf_counter() - t0
        total_s += secs
        grown = disk_bytes(store.root) - base
        print(f"threshold {t}: {sel.summary['n_selected']} kept; export {secs:.1f} s "
              f"({', '.join(sorted(rec.files))}); store grew by {grown / 1e6:.0f} MB so far")
    print(f"total: export {total_s:.1f} s over {len(args.thresholds)} thresholds; store grew by "
          f"{(disk_bytes(store.root) - base) / 1e6:.0f} MB")
    _ = Record, files_hash


if __name__ == "__main__":
    main()
