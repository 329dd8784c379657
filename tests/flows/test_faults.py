"""Faults injected on purpose into real kgfs processes.

- SIGKILL of `kgfs run` while it publishes a `--param threshold=0.5` run over an earlier run's
  folder: the folder holds one run's files, whole (every file has the sha256 its ``run.json``
  lists), and after the next run no temporary file and no file of the earlier run is left.
- SIGKILL of `kgfs run` (loky workers), `kgfs run --dask-address local` (Dask workers), `kgfs
  evaluate --n-jobs 2` and of a Python program calling :func:`flows.runner.run_pipeline`
  (Prefect's temporary server): no process they started is left 10 s later, but for the home's
  managed Prefect server that `kgfs run` starts on purpose, announces and lists in the user's
  ``server/server.json`` (its session is spared; the test stops it).
- Pickles planted as Prefect result files (metadata naming the pickle serializer) in the kgfs
  home's Prefect folders: a cold and a partly cached `kgfs run` never read them (and persist none).
- A truncated store file: `kgfs cache verify` names it; `--remove` deletes the folder.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import psutil
import pytest

from flows import stages
from flows.cli import main
from flows.inputs import resolve_input
from flows.server import processes
from kg.files import sha256_file
from kg.routes import run_steps
from kg.routes.base import Context

ROOT = Path(__file__).resolve().parents[2]
FAST = ["--selectors", "complete", "--classifiers", "nb", "--n-splits", "3"]
TAG_ENV = "KGFS_TEST_PROCESS_TAG"


def kgfs_env(**extra: str) -> dict:
    """The environment of a kgfs child process: this checkout, no Prefect or kgfs settings of the session (the
    caller gives its user server folder, ``KGFS_SERVER_DIR``: never the user's own)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PREFECT_", "KGFS_HOME", "KGFS_SERVER", processes.MARKER_ENV))}
    # KGFS_SERVER_PORT=0: a free port, not 4200, for the home's server: concurrent tests (xdist) racing for 4200
    # would leave the loser's kgfs talking to the winner's server (another home's), never to its own
    env.update(PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""), MPLBACKEND="Agg",
               KGFS_SERVER_PORT="0", **extra)
    return env


def kgfs(args: list[str], cwd: Path, **extra: str) -> subprocess.Popen:
    """`kgfs ARGS` (or, when ``args`` starts with ``-c``, a Python program) in a session of its own."""
    extra.setdefault("KGFS_SERVER_DIR", str(cwd / "server"))  # the user's server of this test (see _managed)
    cmd = [sys.executable, *args] if args[0] == "-c" else [sys.executable, "-m", "flows.cli", *args]
    return subprocess.Popen(cmd, cwd=cwd, env=kgfs_env(**extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True)


def finish(proc: subprocess.Popen, timeout: float = 600) -> str:
    _out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err.decode()[-2000:]
    return err.decode()


def check_whole(out: Path) -> dict:
    """``run.json`` of the one run whose files ``out`` holds, whole; fails otherwise."""
    run = json.loads((out / "run.json").read_text())
    found = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()} - {"run.json"}
    assert found == set(run["files"]), f"not one run's files: {sorted(found ^ set(run['files']))}"
    for name, sha in run["files"].items():
        assert sha256_file(out / name) == sha, f"{name} is not the file run.json lists"
    assert not [p for p in out.rglob(".*")], "temporary files in the output folder"
    return run


def hidden_siblings(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


def _publishing(out: Path) -> bool:
    """A publish has begun: a hidden sibling of the folder, or (a writer of earlier kgfs) a temp file in it."""
    return bool(hidden_siblings(out)) or (out.is_dir() and any(p.name.startswith(".") for p in out.iterdir()))


@pytest.mark.slow
@pytest.mark.integration
def test_sigkill_while_publishing_leaves_one_runs_folder(tmp_path):
    home, out = tmp_path / "home", tmp_path / "out"
    common = ["-q", "--home", str(home), "run", "--out", str(out)]
    finish(kgfs([*common, "--classifiers", "nb", "svm", "--n-splits", "3"], tmp_path))
    first = check_whole(out)
    assert "plots/bars_accuracy_svm.png" in first["files"]
    second_args = [*common, "--param", "threshold=0.5", "--classifiers", "nb", "--n-splits", "3"]
    rng, kills, mid = random.Random(4), 0, 0
    for _attempt in range(6):
        proc = kgfs(second_args, tmp_path)
        while proc.poll() is None and not _publishing(out):
            time.sleep(0.0005)
        if proc.poll() is not None:
            continue  # finished between two looks (the last publish went through whole)
        time.sleep(rng.uniform(0, 0.03))
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        kills += 1
        mid += bool(hidden_siblings(out))
        run = check_whole(out)  # the earlier run's folder or the new one's, whole, at any moment
        assert run["params"]["selector_params"] in ({}, {"threshold": 0.5})
    assert kills >= 3
    finish(kgfs(second_args, tmp_path))
    run = check_whole(out)
    assert run["params"]["selector_params"] == {"threshold": 0.5}
    assert not (out / "plots" / "bars_accuracy_svm.png").exists() and hidden_siblings(out) == []
    print(f"{kills} SIGKILLs of `kgfs run` while publishing ({mid} mid-swap): every folder whole")


class ProcessWatcher:
    """Every process a child started (its descendants, polled, and whatever carries the test's tag)."""

    def __init__(self, root: psutil.Process, tag: str):
        self.root, self.tag, self.seen = root, tag, {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _poll(self):
        while not self._stop.is_set():
            try:
                for p in self.root.children(recursive=True):
                    if p.pid not in self.seen:
                        self.seen[p.pid] = (p.create_time(), " ".join(p.cmdline())[:160])
            except psutil.Error:
                pass
            time.sleep(0.05)

    def stop(self):
        self._stop.set()
        self._thread.join()  # idempotent

    def alive(self, spared: set[int]) -> list[str]:
        left: dict[int, psutil.Process] = {}
        for p in psutil.process_iter():
            try:
                if p.environ().get(TAG_ENV) == self.tag:
                    left[p.pid] = p
            except psutil.Error:
                continue
        for pid, (start, _cmd) in self.seen.items():
            if processes.is_alive(pid, start):
                left[pid] = psutil.Process(pid)
        out = []
        for pid, p in left.items():
            try:
                if p.status() != psutil.STATUS_ZOMBIE and pid not in spared:
                    out.append(f"{pid}: {' '.join(p.cmdline())[:160]}")
            except (psutil.Error, OSError):
                continue
        return out


def test_children_of_a_kgfs_process_end_with_it_on_sigkill(tmp_path):
    """Every entry point calls :func:`flows.settings.configure`, which starts the process's watchdog: a child
    it starts afterwards (a sleeper here, as loky's workers and Prefect's server are) carries the marker and
    ends within seconds of a SIGKILL of the parent (the fast form of the test below)."""
    code = ("import subprocess, sys, time\n"
            "from flows import settings\n"
            f"settings.configure({str(tmp_path / 'home')!r})\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
            "print(child.pid, flush=True)\n"
            "time.sleep(120)\n")
    proc = kgfs(["-c", code], tmp_path)
    child = None
    try:
        child = psutil.Process(int(proc.stdout.readline()))
        start = child.create_time()
        assert processes.MARKER_ENV in child.environ()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while processes.is_alive(child.pid, start) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not processes.is_alive(child.pid, start), "the child outlived its kgfs parent by 10 s"
    finally:
        if proc.poll() is None:
            proc.kill()
        if child is not None and child.is_running():
            child.kill()
        proc.communicate(timeout=30)


def _managed(home: Path) -> set[int]:
    """The processes of the announced managed server of the test whose kgfs home is ``home`` (its user server
    folder is beside it: :func:`kgfs`), if one runs: its supervisor and the processes of the supervisor's session
    and tree (its watchdog has a session of its own)."""
    rec = processes.read_pidfile(home.parent / "server" / "server.json")
    if not rec:
        return set()
    tree = {int(rec["pid"])} | {p.pid for p in psutil.Process(int(rec["pid"])).children(recursive=True)}
    return tree | {p.pid for p in psutil.process_iter() if _sid(p.pid) == int(rec["pid"])}


def _sid(pid: int) -> int | None:
    try:
        return os.getsid(pid)
    except OSError:
        return None


def _cells(folder: Path, pattern: str) -> int:
    return len(list(folder.glob(pattern))) if folder.exists() else 0


_GRID = ["--selectors", "shsel-ig-prune", "complete", "--classifiers", "nb", "knn", "svm", "--n-jobs", "2"]
_STORE_CELLS = "home/store/evaluate/*/grid/cells/*.json"
# case -> (arguments after `--home home`, or a Python program; the cells whose appearance triggers the kill)
_KILL_CASES = {
    # the home's managed Prefect server (announced, kept) and loky workers
    "run": (["run", *_GRID], _STORE_CELLS),
    # ... and a local Dask cluster's worker processes
    "run-dask": (["run", *_GRID, "--dask-address", "local"], _STORE_CELLS),
    "evaluate": (["evaluate", "--datasets", "bundled/DM-BP", *_GRID, "--no-plots", "--out", "E"], "E/cells/*.json"),
    # the Python API without PREFECT_API_URL: Prefect's temporary server (uvicorn) and loky workers
    "python-api": (["-c", "from flows.runner import run_pipeline; from flows.run_options import RunOptions; "
                    "run_pipeline(None, RunOptions(n_jobs=2, eval_selectors=('shsel-ig-prune', 'complete'), "
                    "classifiers=('nb', 'knn', 'svm')), out='out', home='home')"], _STORE_CELLS),
}


@pytest.mark.slow
@pytest.mark.integration
@pytest.mark.parametrize("case", sorted(_KILL_CASES))
def test_sigkill_leaves_no_process_behind(tmp_path, case):
    args, cells = _KILL_CASES[case]
    home, tag = tmp_path / "home", uuid.uuid4().hex
    proc = kgfs(args if args[0] == "-c" else ["-q", "--home", str(home), *args], tmp_path, **{TAG_ENV: tag})
    watcher = ProcessWatcher(psutil.Process(proc.pid), tag)
    try:
        deadline = time.monotonic() + 300
        while proc.poll() is None and _cells(tmp_path, cells) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "finished before it could be killed: " + proc.stderr.read().decode()[-800:]
        time.sleep(0.5)
        os.kill(proc.pid, signal.SIGKILL)  # the kgfs process only: what `kill -9 PID` does
        proc.wait(timeout=30)
        killed = time.monotonic()
        watcher.stop()
        spared = _managed(home)
        while watcher.alive(spared) and time.monotonic() - killed < 10:
            time.sleep(0.25)
        left = watcher.alive(spared)
        kinds = sorted({k for _s, cmd in watcher.seen.values() for k in ("uvicorn", "loky", "spawn_main") if k in cmd})
        print(f"{case}: SIGKILL with {len(watcher.seen)} processes started ({', '.join(kinds)}); "
              f"{len(left)} left after {time.monotonic() - killed:.1f} s")
        assert not left, "left running after SIGKILL of kgfs:\n" + "\n".join(left)
        assert ("spawn_main" if case == "run-dask" else "loky") in kinds  # the workers (Dask's: spawned) were there
        if spared:  # what is left is the home's server, and kgfs said so
            assert "kgfs server stop" in proc.stderr.read().decode()
        elif case != "evaluate":
            assert "uvicorn" in kinds  # the temporary Prefect server
    finally:
        watcher.stop()
        for line in watcher.alive(set()):
            psutil.Process(int(line.split(":")[0])).kill()
        processes.stop_pidfile(home.parent / "server" / "server.json", grace=5)


@pytest.mark.slow
@pytest.mark.integration
def test_planted_pickles_are_never_read(tmp_path):
    from prefect.results import ResultRecord, ResultRecordMetadata
    from prefect.serializers import PickleSerializer

    home, out, marker = tmp_path / "home", tmp_path / "out", tmp_path / "pickle-was-loaded"
    common = ["-q", "--home", str(home), "run", "--out", str(out), *FAST]
    finish(kgfs(common, tmp_path))
    folders = [home / "prefect" / "results", home / "prefect" / "storage"]
    persisted = [p for d in folders if d.exists() for p in d.rglob("*") if p.is_file()]
    assert persisted == [], f"Prefect persisted results: {persisted[:3]}"

    class Payload:
        def __reduce__(self):
            return exec, (f"open({str(marker)!r}, 'w').write('unpickled')",)

    names = [p.name for p in persisted] + ["planted", uuid.uuid4().hex, "0" * 64]
    for d in folders:
        d.mkdir(parents=True, exist_ok=True)
        for name in names:
            meta = ResultRecordMetadata(storage_key=str(d / name), serializer=PickleSerializer())
            (d / name).write_bytes(ResultRecord(metadata=meta, result=Payload()).serialize())
    assert json.loads((folders[0] / "planted").read_text())["metadata"]["serializer"]["type"] == "pickle"
    # partly cached (facts, table reused; select, evaluate, export computed): Prefect runs the flow
    finish(kgfs([*common, "--param", "threshold=0.5"], tmp_path))
    assert json.loads((out / "run.json").read_text())["stages"]["table"]["reused"]
    assert not marker.exists(), "a planted pickle was loaded"


def test_cache_verify_names_a_corrupt_file(tmp_path, capsys):
    home = tmp_path / "home"
    source = resolve_input({})
    recs = run_steps(source, stages.stage_store(home), Context(home=home))
    facts, table = recs["facts"], recs["table"]
    assert main(["--home", str(home), "cache", "verify"]) == 0
    assert "checked 2 cached stage folder(s)" in capsys.readouterr().out
    npz = table.path("table")
    with open(npz, "r+b") as fh:
        fh.truncate(npz.stat().st_size // 2)
    assert main(["--home", str(home), "cache", "verify"]) == 1
    cap = capsys.readouterr()
    assert str(npz) in cap.err and "1 cannot be reused; --remove deletes them" in cap.out
    assert main(["--home", str(home), "cache", "verify", "--remove"]) == 0
    assert not Path(table.dir).exists() and Path(facts.dir).exists()
    capsys.readouterr()
    assert main(["--home", str(home), "cache", "verify"]) == 0
    assert "checked 1 cached stage folder(s)" in capsys.readouterr().out


def _file_size_limit(limit: int):
    """In the child: writes past ``limit`` bytes fail with EFBIG, as writes on a full disk fail with ENOSPC."""
    import resource

    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an error from write(), not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_full_disk_mid_build_names_the_file_keeps_what_was_done_and_stores_nothing_partial(tmp_path):
    """A build whose facts step is stored and whose table step has no room for its table.npz (files limited to
    half its size; the bundled facts.json, 33 KB, is larger than the table, 29 KB, so the facts step is stored by a
    first build and its table step removed) fails in one line naming the table's file; the facts step stays
    stored and is reused, the table step leaves no folder (nothing half-written can be reused), and the next
    build gives the table a fresh home gives."""
    from kg.table import FeatureTable

    argv = [sys.executable, "-m", "flows.cli", "build", "--dataset", "bundled/DM-BP"]
    env = kgfs_env(KGFS_HOME=str(tmp_path / "home"), KGFS_SERVER_DIR=str(tmp_path / "server"))
    first = subprocess.run([*argv, "--out", "T0"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    for done in (tmp_path / "home" / "store" / "table").iterdir():  # what is left of that build: its facts step
        shutil.rmtree(done)
    full = subprocess.run([*argv, "--out", "T"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          preexec_fn=_file_size_limit((tmp_path / "T0" / "table.npz").stat().st_size // 2),
                          timeout=300)
    assert full.returncode == 1
    (line,) = full.stderr.strip().splitlines()
    assert line.startswith(f"kgfs: error: {tmp_path / 'home' / 'store' / 'table'}") and "table.npz: file too large" \
        in line, line
    store = tmp_path / "home" / "store"
    assert [p.parent.name for p in store.glob("*/*/record.json")] and not list((store / "table").iterdir())
    assert not list(store.rglob(".*.tmp")) and not (tmp_path / "T").exists()

    again = subprocess.run([*argv, "--out", "T"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    fresh = subprocess.run([*argv, "--out", "F"], cwd=tmp_path, text=True, capture_output=True, timeout=300,
                           env=kgfs_env(KGFS_HOME=str(tmp_path / "fresh"), KGFS_SERVER_DIR=str(tmp_path / "server")))
    assert fresh.returncode == 0, fresh.stderr
    a, b = FeatureTable.load(tmp_path / "T" / "table.npz"), FeatureTable.load(tmp_path / "F" / "table.npz")
    assert list(a.feature_names) == list(b.feature_names) and (a.X != b.X).nnz == 0
    assert main(["--home", str(tmp_path / "home"), "cache", "verify"]) == 0
