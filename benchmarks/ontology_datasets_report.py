"""Markdown tables for docs/ontology_datasets.md from `kgfs evaluate` outputs (issue 26).

Reads the ``results.csv`` of evaluations (one per folder given), computes for every dataset the
majority-class baseline from the table's labels (accuracy of always answering the larger class; its
AUROC is 0.5 and its AUCPR the positive share), and prints per dataset the selectors' mean accuracy,
AUROC, AUCPR, features kept and per-fold seconds (selection, classification), then a table of how the
selection time grew from the smaller tables to the two large ones.

    python benchmarks/ontology_datasets_report.py --mirror ../shared/data OUT_DIR [OUT_DIR ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def baseline(name: str, mirror: Path, pos_label) -> dict:
    from kg.datasets import load_dataset

    t = load_dataset(name, mirror=mirror)
    labels, counts = np.unique(t.y.astype(str), return_counts=True)
    share = dict(zip(labels.tolist(), (counts / counts.sum()).tolist(), strict=True))
    return {"shape": t.shape, "classes": dict(zip(labels.tolist(), counts.tolist(), strict=True)),
            "accuracy": counts.max() / counts.sum(), "aucpr": share.get(str(pos_label), float("nan"))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outs", nargs="+", type=Path)
    ap.add_argument("--mirror", type=Path, required=True)
    args = ap.parse_args(argv)
    res = pd.concat([pd.read_csv(o / "results.csv") for o in args.outs])
    res = res[res["status"] == "ok"]
    sizes = {}
    for ds, r in res.groupby("dataset", sort=False):
        b = baseline(ds, args.mirror, r["pos_label"].iloc[0])
        sizes[ds] = b["shape"]
        g = r.groupby("selector", sort=False).agg(
            features=("n_selected", "mean"), accuracy=("accuracy", "mean"), acc_sd=("accuracy", "std"),
            auroc=("auroc", "mean"), aucpr=("aucpr", "mean"), select_s=("select_seconds", "mean"),
            classify_s=("classify_seconds", "mean"), folds=("fold", "count"))
        print(f"\n### {ds}: {b['shape'][0]:,} x {b['shape'][1]:,}, classes {b['classes']} "
              f"(positive class for AUROC/AUCPR: {r['pos_label'].iloc[0]})\n")
        print("| selector | features kept | accuracy | AUROC | AUCPR | s/fold select | s/fold classify |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        print(f"| majority class (baseline) | 0 | {b['accuracy']:.3f} | 0.500 | {b['aucpr']:.3f} | - | - |")
        for sel, x in g.iterrows():
            print(f"| {sel} | {x.features:,.0f} | {x.accuracy:.3f} ± {x.acc_sd:.3f} | {x.auroc:.3f} | {x.aucpr:.3f} | "
                  f"{x.select_s:.3f} | {x.classify_s:.3f} |")
    t = res.groupby(["dataset", "selector"], sort=False)["select_seconds"].mean().unstack()
    small = [d for d in t.index if d not in ("hpo/inheritance", "human/disease-genes-BP")]
    large = [d for d in t.index if d in ("hpo/inheritance", "human/disease-genes-BP")]
    if small and large:
        ref = small[0]
        cells = {d: sizes[d][0] * sizes[d][1] for d in t.index}
        print(f"\n### Selection time per fold (s) and its growth against {ref} "
              f"({sizes[ref][0]:,} x {sizes[ref][1]:,}, {cells[ref] / 1e6:.2f} M cells)\n")
        print("| selector | " + " | ".join(f"{d} ({cells[d] / 1e6:.1f} M cells)" for d in t.index) + " | "
              + " | ".join(f"growth {d} (cells x{cells[d] / cells[ref]:.0f})" for d in large) + " |")
        print("|---|" + "---:|" * (len(t.index) + len(large)))
        for sel in t.columns:
            row = [f"{t.loc[d, sel]:.3f}" for d in t.index]
            grow = [f"x{t.loc[d, sel] / t.loc[ref, sel]:.0f}" for d in large]
            print(f"| {sel} | " + " | ".join(row) + " | " + " | ".join(grow) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
