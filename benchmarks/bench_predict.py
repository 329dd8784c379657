"""Predicting a new corpus with a kept model against building its table (issue 36), on the Wikidata-shaped dump.

The dump is :mod:`bench_wikidata_scale`'s generator (seeded, cached in ``--data``: ``latest-truthy.nt.bz2`` of
about ``--size`` triples). In one kgfs home (the dump ingested once, by the first command):

1. ``kgfs fit`` on 2,000 items (short ids, ``--entity-columns qid --preset wikidata``) with seeded random labels
   (shsel-ig-prune + nb; the labels carry no signal, the work is what is measured);
2. a new corpus of 10,000 other items drawn uniformly (and 500 ids the graph does not know), twice, in two row
   orders (two files, two contents: neither command reuses the other's stored steps);
3. ``kgfs build`` of the first copy and ``kgfs predict`` of the second, each in a fresh process (wall time,
   imports included): the ratio predict / build is printed (goal: < 1.5);
4. the time to load the model (``selection.model.load_model``, in a fresh process after the imports; goal < 1 s).

    python benchmarks/bench_predict.py [--size 20M] [--data DIR]
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
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from bench_wikidata_scale import dumps_for  # noqa: E402 - the generator of the Wikidata-shaped dump


def _size(text: str) -> int:
    text = text.upper()
    return int(float(text[:-1]) * {"K": 1e3, "M": 1e6}[text[-1]]) if text[-1] in "KM" else int(text)


def _kgfs(home: Path, *argv: str) -> float:
    """Wall seconds of one ``kgfs`` command in a fresh process (its output checked)."""
    env = {**os.environ, "KGFS_HOME": str(home), "PYTHONPATH": str(ROOT)}
    t = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "flows.cli", "-q", *argv], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t
    if res.returncode:
        raise RuntimeError(f"kgfs {' '.join(argv)} failed:\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}")
    return seconds


def _write(path: Path, ids: list[int], labels: list[str] | None = None) -> Path:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("id,qid" + (",label" if labels else "") + "\n")
        for i, q in enumerate(ids):
            fh.write(f"r{q},Q{q}" + (f",{labels[i]}" if labels else "") + "\n")
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="20M", help="triples of the dump (default 20M; e.g. 2M for a quick run)")
    ap.add_argument("--data", default=str(Path(tempfile.gettempdir()) / "kgfs-bench-wikidata-rel"),
                    help="folder of the generated dumps (shared with bench_wikidata_scale.py)")
    args = ap.parse_args()
    d = dumps_for(Path(args.data), _size(args.size))
    dump, meta = d / "latest-truthy.nt.bz2", json.loads((d / "meta.json").read_text())
    work = Path(tempfile.mkdtemp(prefix="kgfs-bench-predict-", dir=args.data))
    home = work / "home"
    print(f"== {meta['triples']:,} triples, {meta['items']:,} items, load average {os.getloadavg()[0]:.1f}",
          flush=True)
    rng = np.random.default_rng(0)
    first = meta["classes"] + 1
    drawn = (first + rng.choice(meta["items"], 12_000, replace=False)).tolist()
    train = _write(work / "train.csv", drawn[:2000], rng.choice(["a", "b"], 2000).tolist())
    new = drawn[2000:] + list(range(10**9, 10**9 + 500))  # + 500 ids the graph does not know
    labels = rng.choice(["a", "b"], len(new)).tolist()  # `kgfs build` reads a label column (predict needs none)
    a = _write(work / "new_a.csv", rng.permutation(new).tolist(), labels)
    b = _write(work / "new_b.csv", rng.permutation(new).tolist(), labels)
    common = ["--entity-columns", "qid", "--preset", "wikidata", "--dump", str(dump)]
    t = _kgfs(home, "fit", "--corpus", str(train), *common, "--model", str(work / "M"))
    print(f"kgfs fit (2,000 items; the dump ingested first): {t:.1f} s", flush=True)
    build = _kgfs(home, "build", "--corpus", str(a), *common, "--out", str(work / "T"))
    predict = _kgfs(home, "predict", "--model", str(work / "M"), "--corpus", str(b), "--out", str(work / "P"))
    with open(work / "P" / "predictions.csv", encoding="utf-8") as fh:
        rows = fh.read().count("\n") - 1
    print(f"new corpus of {len(new):,} items: kgfs build {build:.2f} s, kgfs predict {predict:.2f} s "
          f"({rows:,} predictions): ratio {predict / build:.2f} (goal < 1.5)", flush=True)
    code = ("import time, sys; sys.path.insert(0, {root!r}); from selection.model import load_model; "
            "t = time.perf_counter(); load_model({m!r}); print(time.perf_counter() - t)")
    res = subprocess.run([sys.executable, "-c", code.format(root=str(ROOT), m=str(work / "M"))], capture_output=True,
                         text=True, check=True)
    size = sum(f.stat().st_size for f in (work / "M").iterdir())
    print(f"load the model ({size / 1e6:.1f} MB): {float(res.stdout.strip().splitlines()[-1]):.3f} s (goal < 1 s)")


if __name__ == "__main__":
    main()
