"""The output folder of a run is replaced as a whole (flows.publishing.publish).

After a kill at any moment the folder holds one run's files, whole (every file has the sha256 its
``run.json`` lists, and no other kgfs file is there), or the previous run's; no temporary file
stays once the next publish ran; a folder that is not kgfs's is never touched.
"""

from __future__ import annotations

import fcntl
import json
import os
import random
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flows.publishing import publish as publish_mod
from flows.publishing.publish import publish
from kg.errors import KgfsError
from kg.files import sha256_file
from kg.store import Record

ROOT = Path(__file__).resolve().parents[3]


def make_records(folder: Path, tag: str, *, svm: bool, size: int = 2000) -> dict:
    """Records of a run like kgfs's (export, select, evaluate with plots); ``size`` bytes per file."""
    folder.mkdir(parents=True, exist_ok=True)

    def files(stage: str, roles: dict[str, str]) -> Record:
        d = folder / stage
        d.mkdir(exist_ok=True)
        for role, name in roles.items():
            (d / name).write_bytes((f"{tag}:{stage}:{role}\n".encode() * (size // 16 + 1))[:size])
        return Record(stage, f"{stage}-{tag}", str(d), dict(roles), f"h-{tag}", summary={"tag": tag})

    plots = {"plot:bars_accuracy_nb.png": "bars_nb.png", "plot:accuracy_vs_compression.png": "avc.png"}
    if svm:
        plots["plot:bars_accuracy_svm.png"] = "bars_svm.png"
    return {"export": files("export", {"arff": "t.arff", "arff_sparse": "ts.arff", "csv": "t.csv", "edges": "h.csv",
                                       "arff_selected": "tsel.arff", "edges_selected": "hsel.csv"}),
            "select": files("select", {"selected": "s.csv", "selection": "sel.csv"}),
            "evaluate": files("evaluate", {"evaluation": "e.csv", "summary": "su.csv", "report": "r.md", **plots})}


def check_whole(out: Path) -> str:
    """The tag of the one run whose files ``out`` holds, whole; fails otherwise."""
    run = json.loads((out / "run.json").read_text())
    found = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()} - {"run.json"}
    assert found == set(run["files"]) == set(run["outputs"]), found ^ set(run["files"])
    for name, sha in run["files"].items():
        assert sha256_file(out / name) == sha, name
    assert not [p for p in out.rglob(".*")], "hidden (temporary) files in the output folder"
    tags = {run["params"]["tag"]} | {(out / n).read_bytes().split(b":")[0].decode() for n in run["files"]}
    assert len(tags) == 1, f"files of several runs: {tags}"
    return tags.pop()


def siblings(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.kgfs-"))


@pytest.fixture
def runs(tmp_path):
    return (make_records(tmp_path / "store-a", "A", svm=True), make_records(tmp_path / "store-b", "B", svm=False))


@pytest.mark.parametrize("exchange", [True, False])
def test_a_run_replaces_every_file_of_the_previous_one(tmp_path, runs, monkeypatch, exchange):
    monkeypatch.setattr(publish_mod, "_use_exchange", exchange)
    out = tmp_path / "out"
    a = publish(runs[0], out, {"tag": "A"})
    assert (out / "plots" / "bars_accuracy_svm.png").is_file() and set(a) >= {"table.arff", "run.json"}
    (out / ".table.npz.x1y2.tmp").write_text("left by a killed writer of an older kgfs")
    b = publish(runs[1], out, {"tag": "B"})
    assert not (out / "plots" / "bars_accuracy_svm.png").exists()
    assert check_whole(out) == "B" and b["run.json"] == out / "run.json"
    assert siblings(out) == []


def test_refuses_a_folder_that_is_not_kgfs(tmp_path, runs, monkeypatch):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work")
    with pytest.raises(KgfsError, match=r"mine: exists and is not a kgfs output folder \(no run.json\)"):
        publish(runs[0], mine, {"tag": "A"})
    assert [p.name for p in mine.iterdir()] == ["thesis.tex"] and siblings(mine) == []
    (tmp_path / "file").write_text("x")
    with pytest.raises(KgfsError, match="not a kgfs output folder"):
        publish(runs[0], tmp_path / "file", {"tag": "A"})
    monkeypatch.chdir(mine)
    for target in (".", "..", str(tmp_path)):
        with pytest.raises(KgfsError, match="current folder or one above it"):
            publish(runs[0], target, {"tag": "A"})
    empty = tmp_path / "empty"
    empty.mkdir()
    publish(runs[0], empty, {"tag": "A"})
    assert check_whole(empty) == "A"


def test_files_a_person_added_are_kept_and_permissions_too(tmp_path, runs):
    out = tmp_path / "out"
    publish(runs[0], out, {"tag": "A"})
    (out / "notes.txt").write_text("my notes")
    (out / "analysis").mkdir()
    (out / "analysis" / "fig.svg").write_text("<svg/>")
    os.chmod(out, 0o750)
    publish(runs[1], out, {"tag": "B"})
    assert (out / "notes.txt").read_text() == "my notes" and (out / "analysis" / "fig.svg").read_text() == "<svg/>"
    assert stat.S_IMODE(out.stat().st_mode) == 0o750
    assert not (out / "plots" / "bars_accuracy_svm.png").exists()


def test_a_symlinked_output_folder_stays_a_link(tmp_path, runs):
    real, link = tmp_path / "real", tmp_path / "link"
    publish(runs[0], real, {"tag": "A"})
    link.symlink_to(real)
    publish(runs[1], link, {"tag": "B"})
    assert link.is_symlink() and check_whole(real) == "B"


def test_next_publish_recovers_from_a_kill_between_the_two_renames(tmp_path, runs):
    out = tmp_path / "out"
    publish(runs[0], out, {"tag": "A"})
    # the state the two-rename swap leaves when killed between its renames, plus a half-built folder
    parked = out.parent / ".out.kgfs-old-0123456789ab"
    os.rename(out, parked)
    half = out.parent / ".out.kgfs-new-ba9876543210"
    half.mkdir()
    (half / "table.arff").write_text("half")
    publish_mod._recover(out)
    assert check_whole(out) == "A" and siblings(out) == []
    publish(runs[1], out, {"tag": "B"})
    assert check_whole(out) == "B"


def test_a_live_publishers_folder_is_left_alone(tmp_path, runs):
    out = tmp_path / "out"
    live = out.parent / ".out.kgfs-new-00000000live"
    live.mkdir()
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # as a publisher that is still writing holds it
    try:
        publish(runs[0], out, {"tag": "A"})
        assert live.is_dir() and check_whole(out) == "A"
    finally:
        os.close(fd)
    publish(runs[1], out, {"tag": "B"})
    assert not live.exists()


_CHILD = """
import sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from flows.publishing import publish as m
from test_publish import make_records
m._use_exchange = {exchange!r}
runs = [make_records(Path({store!r}) / t, t, svm=t == "A", size=1_500_000) for t in "AB"]
print("ready", flush=True)
i = 0
while True:
    m.publish(runs[i % 2], {out!r}, {{"tag": "AB"[i % 2]}})
    i += 1
"""


@pytest.mark.slow
@pytest.mark.parametrize("exchange", [True, False])
def test_sigkill_at_random_moments_while_publishing(tmp_path, exchange):
    """A child publishes runs A and B over each other in a loop; SIGKILL at random moments, 25 times."""
    out = tmp_path / "out"
    script = _CHILD.format(tests=str(Path(__file__).parent), exchange=exchange, store=str(tmp_path / "store"),
                           out=str(out))
    rng = random.Random(15)
    kills, mid_publish, seen, t0 = 25, 0, set(), time.monotonic()
    for _ in range(kills):
        child = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE,
                                 stdin=subprocess.DEVNULL, text=True)
        assert child.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, 0.6))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        child.stdout.close()
        left = siblings(out)
        mid_publish += bool(left)
        if (exchange or os.path.lexists(out)) and out.exists():  # the exchange: whole at every moment
            seen.add(check_whole(out))
        publish_mod._recover(out)  # what the next publish does first
        if out.exists():
            seen.add(check_whole(out))
        assert siblings(out) == []
    print(f"{kills} SIGKILLs while publishing ({'exchange' if exchange else 'two renames'}): {mid_publish} "
          f"left hidden folders, every output folder whole ({sorted(seen)}); {time.monotonic() - t0:.0f} s")
    assert mid_publish >= 5 and seen == {"A", "B"}


# ---------------------------------------------------------------- issue 27: report.html and notes/ of a run
def test_extra_outputs_are_the_runs_and_replaced_with_it(tmp_path):
    out = tmp_path / "out"
    extra = {"report.html": "<!DOCTYPE html><p>one</p>", "notes/removed_cycle_edges.csv": "child,parent\na,b\n"}
    paths = publish(make_records(tmp_path / "r1", "one", svm=False), out, {"tag": "one"}, extra=extra)
    run = json.loads((out / "run.json").read_text())
    assert {"report.html", "notes/removed_cycle_edges.csv"} <= set(run["outputs"]) and paths["report.html"].is_file()
    assert run["files"]["report.html"] == sha256_file(out / "report.html")
    (out / "mine.txt").write_text("a person's file")
    publish(make_records(tmp_path / "r2", "two", svm=False), out, {"tag": "two"}, extra={"report.html": "two"})
    assert (out / "report.html").read_text() == "two" and not (out / "notes").exists()  # the earlier run's notes go
    assert (out / "mine.txt").read_text() == "a person's file"
    with pytest.raises(ValueError, match="relative path inside"):
        publish({}, out, {"tag": "x"}, extra={"../escape.txt": "x"})
