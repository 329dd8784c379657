"""What checking the look-up cache on opening costs (``PRAGMA quick_check``, issue 37 point 3).

:class:`kg.lookups._DiskMemo` opens ``kgfs-lookups.sqlite`` once per process and source (every worker of a
``GridSearchCV(n_jobs=...)``); with ``check=True`` it first runs ``PRAGMA quick_check``, which reads every page
of the file. This script fills caches of DBpedia-shaped answers (an entity IRI -> a few class IRIs) of several
sizes and times, in the same run: opening without the check (the baseline), opening with it, and the work the
cache saves a fit at that size (reading every stored answer back); it prints the check's cost as a ratio to both.
The page cache is warm (the file was just written), as it is for the second and later processes of a grid.

Run: ``PYTHONPATH=. python benchmarks/bench_lookups_check.py [--sizes 10000 100000 500000]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg.lookups import _DiskMemo  # noqa: E402


def _best(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 500_000])
    args = ap.parse_args()
    print(f"{'rows':>8} {'MB':>7} {'open':>8} {'open+check':>11} {'check x open':>13} {'read all':>9} "
          f"{'check / read all':>17}")
    for n in args.sizes:
        folder = Path(tempfile.mkdtemp(prefix="kgfs-bench-lookups-"))
        memo = _DiskMemo(folder, "bench source")
        keys = [f"http://dbpedia.org/resource/Entity_{i}" for i in range(n)]
        for i in range(0, n, 50_000):
            memo.put("types", {k: [f"http://dbpedia.org/ontology/Class{(j * 7 + c) % 800}" for c in range(4)]
                               for j, k in enumerate(keys[i:i + 50_000], start=i)})
        mb = (folder / "kgfs-lookups.sqlite").stat().st_size / 1e6
        plain = _best(lambda: _DiskMemo(folder, "bench source", check=False))
        checked = _best(lambda: _DiskMemo(folder, "bench source", check=True))
        read = _best(lambda: memo.get("types", keys), repeat=3)
        print(f"{n:>8} {mb:>7.1f} {plain * 1e3:>6.1f}ms {checked * 1e3:>9.1f}ms {checked / plain:>12.1f}x "
              f"{read:>8.2f}s {(checked - plain) / read:>16.1%}")


if __name__ == "__main__":
    main()
