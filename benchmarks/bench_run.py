"""What `kgfs run` costs beyond the work itself, on the bundled default dataset (bundled/DM-BP).

Prints, each as a ratio to the library-only pipeline measured in the same run (the five stages
called directly and the outputs published, in a fresh Python process: imports included, no Prefect):

- ``kgfs run`` cold: no store, no server (it starts the home's Prefect server);
- cold with the home's server already up (``kgfs server start`` beforehand, not timed);
- cached: every stage in the store (published from the store, no Prefect);
- one parameter changed (``--param threshold=0.9``: select, evaluate and export recomputed, server up);
- ``kgfs --help`` and ``kgfs datasets list`` (wall), and ``python -X importtime`` totals (sum of the
  self times) of the imports of ``kgfs --help`` and of a cached ``kgfs run``, with whether Prefect
  and matplotlib were imported;
- bad options refused (issue 40): ``kgfs run --param threshhold=0.9``, ``kgfs run --selector shsel-ig-prun``
  and ``kgfs run --param threshold=2`` in a fresh home (each must fail with its message), with their ratio to
  ``kgfs --help`` and to ``python -c "import flows.cli"`` timed in the same run (target: each < 1 s on a quiet
  machine). ``--early-only`` runs this section alone (seconds, no server).

Targets (issue 17; quiet 2-core machine, medians of 5): cached <= 2x library and < 4 s; one
parameter changed <= 2.5x; cold <= library + 8 s, with a server up <= library + 2 s; ``kgfs --help``
< 0.5 s; ``kgfs datasets list`` < 1 s. Timings on a loaded machine are noisy: the load average is printed.

With ``--against CHECKOUT`` it first times ``kgfs --help`` and a cached ``kgfs run`` of this checkout and of
another one in turn (a ratio this/other), e.g. against the commit before a restructure.

With ``--against``, the bad options are timed for the other checkout too (a ratio this/other).

Run by hand from the repository:  python benchmarks/bench_run.py [--repeat 5] [--against /tmp/old-kgfs] [--early-only]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LIBRARY = """
from flows.inputs import resolve_input
from flows.publishing.publish import publish
from flows.run_options import RunOptions
from flows.stages import RunPlan
plan, r = RunPlan(resolve_input({}), RunOptions(eval_selectors=("shsel-ig-prune", "complete")), "lib-home"), {}
for step in plan.steps:
    r[step.name] = plan.run(step, plan.upstream(step, r), force=True)
publish(r, "lib-out", {"dataset": plan.input.name})
"""


def _env(root: Path = ROOT) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "KGFS_HOME"))}
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    env["KGFS_SERVER_PORT"] = "0"  # a free port: never the user's server on 4200
    return env


def _timed(cmd: list[str], cwd, *, check: bool = True, root: Path = ROOT) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=_env(root), capture_output=True, text=True, stdin=subprocess.DEVNULL)
    dt = time.perf_counter() - t0
    if check and proc.returncode:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    return dt, proc


def kgfs(args: list[str], cwd, root: Path = ROOT) -> tuple[float, subprocess.CompletedProcess]:
    """Wall time of ``kgfs ARGS`` (``python -m flows.cli`` of the checkout ``root``) in ``cwd`` (its ``.kgfs`` home)."""
    return _timed([sys.executable, "-m", "flows.cli", *args], cwd, root=root)


def against(other: Path, repeat: int) -> None:
    """``kgfs --help`` and a cached ``kgfs run`` of this checkout and of ``other`` (another version of kgfs,
    e.g. a ``git worktree`` of an older commit), in turn, ``repeat`` times: medians and the ratio this/other."""
    times: dict[str, list[float]] = {"help this": [], "help other": [], "cached this": [], "cached other": []}
    with tempfile.TemporaryDirectory(prefix="kgfs-bench-") as tmp:
        homes = {"this": Path(tmp, "this"), "other": Path(tmp, "other")}
        roots = {"this": ROOT, "other": other}
        for who, d in homes.items():
            d.mkdir()
            try:
                kgfs(["-q", "run"], d, roots[who])  # fills the store (starts the home's server once)
            finally:
                kgfs(["server", "stop"], d, roots[who])
        for _ in range(repeat):
            for who in ("this", "other"):
                times[f"help {who}"].append(_timed([sys.executable, "-m", "flows.cli", "--help"], homes[who],
                                                   root=roots[who])[0])
                dt, proc = kgfs(["run"], homes[who], roots[who])
                assert "no Prefect server started" in proc.stdout, proc.stdout
                times[f"cached {who}"].append(dt)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"this checkout against {other} (medians of {repeat}, taken in turn)")
    for what in ("help", "cached"):
        label = "kgfs --help" if what == "help" else "kgfs run, cached"
        print(f"{label:<24}{med[what + ' this']:6.2f} s  vs {med[what + ' other']:6.2f} s   "
              f"ratio {med[what + ' this'] / med[what + ' other']:5.2f}")


#: bad options of `kgfs run` -> the start of the one-line error each must print
EARLY_FAILURES = {
    "--param threshhold=0.9": "kgfs: error: --param threshhold: none of the methods given has a parameter "
                              "'threshhold' (did you mean threshold?)",
    "--selector shsel-ig-prun": "kgfs: error: unknown selector 'shsel-ig-prun' (did you mean shsel-ig-prune",
    "--param threshold=2": "kgfs: error: selector shsel-ig-prune: threshold=2 is not valid: must be float in [0, 1]",
}


def early_failures(repeat: int, roots: dict[str, Path]) -> dict[str, float]:
    """Medians of ``repeat`` timings of each bad option (:data:`EARLY_FAILURES`) and of the two baselines, for each
    checkout of ``roots`` in turn, each in a fresh folder (no store, no server); an option that does not fail with
    its message stops the benchmark."""
    times: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="kgfs-bench-early-") as tmp:
        for _ in range(repeat):
            for who, root in roots.items():
                d = Path(tmp, f"{who}-{len(times.get(f'{who} help', []))}")
                d.mkdir()
                cases = {"help": [sys.executable, "-m", "flows.cli", "--help"],
                         "import": [sys.executable, "-c", "import flows.cli"],
                         **{opt: [sys.executable, "-m", "flows.cli", "run", *opt.split()] for opt in EARLY_FAILURES}}
                for what, cmd in cases.items():
                    dt, proc = _timed(cmd, d, check=what in ("help", "import"), root=root)
                    if what in EARLY_FAILURES:
                        last = (proc.stderr.strip().splitlines() or [""])[-1]
                        if proc.returncode != 1 or not last.startswith(EARLY_FAILURES[what]):
                            sys.exit(f"{who}: kgfs run {what} did not fail with its message:\n{proc.stderr[-2000:]}")
                    times.setdefault(f"{who} {what}", []).append(dt)
    return {k: statistics.median(v) for k, v in times.items()}


def print_early(med: dict[str, float], repeat: int, other: Path | None) -> None:
    """The bad-options section: each time, its ratio to both baselines, the target, and this/other."""
    print(f"bad options refused by `kgfs run` (fresh home; medians of {repeat}); baselines in the same run: "
          f"kgfs --help {med['this help']:.2f} s, python -c 'import flows.cli' {med['this import']:.2f} s")
    head = f"{'':<36}{'time':>7}  {'/help':>6}  {'/import':>7}   {'target':<8}"
    print(head + (f"{'other':>8}  {'this/other':>10}" if other else ""))
    for opt in EARLY_FAILURES:
        t = med[f"this {opt}"]
        line = (f"{'kgfs run ' + opt:<36}{t:6.2f}s  {t / med['this help']:5.2f}x  {t / med['this import']:6.2f}x   "
                f"{'< 1 s':<8}{'OK' if t < 1 else 'MISSED':<6}")
        if other:
            line += f"{med[f'other {opt}']:6.2f}s  {t / med[f'other {opt}']:9.2f}"
        print(line)
    if other:
        print(f"(other: {other}; its kgfs --help {med['other help']:.2f} s)")


def import_total(args: list[str], cwd) -> tuple[float, bool, bool]:
    """``-X importtime`` total (s) of ``kgfs ARGS``, and whether Prefect / matplotlib were imported."""
    _dt, proc = _timed([sys.executable, "-X", "importtime", "-m", "flows.cli", *args], cwd, check=False)
    rows = [line.split("|") for line in proc.stderr.splitlines() if line.startswith("import time:")]
    names = {r[2].strip() for r in rows[1:]}
    total = sum(int(r[0].split(":")[1]) for r in rows[1:]) / 1e6
    return total, "prefect" in names, "matplotlib" in names


def one_round() -> dict:
    out = {}
    with tempfile.TemporaryDirectory(prefix="kgfs-bench-") as tmp:
        d, e = Path(tmp, "a"), Path(tmp, "b")
        d.mkdir()
        e.mkdir()
        out["library"] = _timed([sys.executable, "-c", LIBRARY], d)[0]
        try:
            out["cold"], proc = kgfs(["-q", "run"], d)
            out["cached"], proc = kgfs(["run"], d)
            assert "no Prefect server started" in proc.stdout, proc.stdout
            out["param"], _ = kgfs(["-q", "run", "--param", "threshold=0.9"], d)
            out["imports_run"] = import_total(["-q", "run"], d)  # cached: everything a cached run imports
        finally:
            kgfs(["server", "stop"], d)
        try:
            kgfs(["server", "start"], e)
            out["cold_server_up"], _ = kgfs(["-q", "run"], e)
        finally:
            kgfs(["server", "stop"], e)
        out["help"] = _timed([sys.executable, "-m", "flows.cli", "--help"], d)[0]
        out["datasets"] = _timed([sys.executable, "-m", "flows.cli", "datasets", "list"], d)[0]
        out["imports_help"] = import_total(["--help"], d)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=1, help="rounds; medians are printed (the targets: 5)")
    ap.add_argument("--against", type=Path, metavar="CHECKOUT", help="also time `kgfs --help` and a cached run "
                    "against another checkout of kgfs (e.g. `git worktree add /tmp/old COMMIT`), in turn")
    ap.add_argument("--early-only", action="store_true", help="only the bad options refused by `kgfs run` (seconds; "
                    "no server)")
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    roots = {"this": ROOT, **({"other": args.against.resolve()} if args.against else {})}
    early = early_failures(max(3, args.repeat), roots)
    if args.early_only:
        print_early(early, max(3, args.repeat), args.against)
        print(f"load average: {load0:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores")
        return
    if args.against:
        against(args.against.resolve(), max(5, args.repeat))
    rounds = [one_round() for _ in range(args.repeat)]
    med = {k: statistics.median(r[k] for r in rounds) for k in rounds[0] if not k.startswith("imports")}
    lib = med["library"]

    def row(label, key, target: str, ok: bool):
        print(f"{label:<46}{med[key]:6.1f} s  {med[key] / lib:5.2f}x   {target:<24}{'OK' if ok else 'MISSED'}")

    print(f"medians of {args.repeat} round(s); ratio to the library-only pipeline")
    print(f"{'library only (5 stages + publish, no Prefect)':<46}{lib:6.1f} s  1.00x")
    row("kgfs run, cold (no store, no server)", "cold", "<= library + 8 s", med["cold"] <= lib + 8)
    row("kgfs run, cold, the home's server up", "cold_server_up", "<= library + 2 s", med["cold_server_up"] <= lib + 2)
    row("kgfs run, cached (every stage stored)", "cached", "<= 2x and < 4 s", med["cached"] <= min(2 * lib, 4))
    row("kgfs run --param threshold=0.9 (after cached)", "param", "<= 2.5x", med["param"] <= 2.5 * lib)
    print(f"{'kgfs --help':<46}{med['help']:6.2f} s{'':9}{'< 0.5 s':<24}{'OK' if med['help'] < 0.5 else 'MISSED'}")
    print(f"{'kgfs datasets list':<46}{med['datasets']:6.2f} s{'':9}{'< 1 s':<24}"
          f"{'OK' if med['datasets'] < 1 else 'MISSED'}")
    for label, key in (("kgfs --help", "imports_help"), ("kgfs run (cached)", "imports_run")):
        total, prefect, mpl = rounds[-1][key]
        print(f"-X importtime total, {label:<25}{total:6.2f} s   prefect imported: {prefect}, matplotlib: {mpl}")
    print_early(early, max(3, args.repeat), args.against)
    print(f"load average: {load0:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
