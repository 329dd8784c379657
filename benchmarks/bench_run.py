"""Wall time of `kgfs run` on the bundled default dataset: cold (fresh home), cached, and --no-cache.

Targets: the cold run under 60 s on 2 cores (issue 2); a fully cached run under 15 s (issue 7).
Baseline measured in the same run: the library alone (the same five stages called directly,
without Prefect), so the ratio shows what the orchestration costs.

Where a cached run's time goes (measured here, 2 loaded cores): importing Prefect, pandas and
scikit-learn (~2-3 s), the temporary Prefect API server (~4-5 s to boot in its own process; `kgfs run`
starts it in the background while it resolves the inputs and imports the selectors), the flow run
with its cached tasks and the evaluate subflow (~1-2 s), publishing the outputs and artifacts.
With `PREFECT_API_URL` pointing at a running server the boot disappears.

Run by hand from the repository:  python benchmarks/bench_run.py [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def kgfs(args, cwd) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "KGFS_HOME"))}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "flows.cli", "-q", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)
    dt = time.perf_counter() - t0
    if proc.returncode:
        sys.exit(f"kgfs {' '.join(args)} failed:\n{proc.stderr[-3000:]}")
    return dt


def library_only(cwd) -> float:
    code = (
        "import time; t=time.perf_counter()\n"
        "from flows import stages\n"
        "from kg.runs.inputs import resolve_source\n"
        "s = resolve_source()\n"
        "h = 'lib-home'\n"
        "f = stages.stage_load_facts(s, home=h, force=True)\n"
        "t_ = stages.stage_build_table(s, f, home=h, force=True)\n"
        "stages.stage_select(t_, 'shsel-ig-prune', {}, home=h, force=True)\n"
        "stages.stage_evaluate(t_, ['shsel-ig-prune', 'complete'], ['nb'], dataset='bundled/DM-BP', home=h, force=True)\n"
        "stages.stage_export(t_, home=h, force=True)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, check=True, stdin=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="kgfs-bench-") as d:
            lib = library_only(d)
            cold = kgfs(["run"], d)
            cached = kgfs(["run"], d)
            forced = kgfs(["run", "--no-cache"], d)
        print(f"library only (5 stages, no Prefect): {lib:6.1f} s")
        print(f"kgfs run, cold (fresh .kgfs):         {cold:6.1f} s   target < 60 s   {'OK' if cold < 60 else 'MISSED'}")
        print(f"kgfs run, cached:                     {cached:6.1f} s   target < 15 s   {'OK' if cached < 15 else 'MISSED'}")
        print(f"kgfs run --no-cache (warm server db): {forced:6.1f} s")
        print(f"ratio cached / cold: {cached / cold:.2f}; cached / library-only: {cached / lib:.2f}; "
              f"cold / library-only: {cold / lib:.2f}")
        print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
