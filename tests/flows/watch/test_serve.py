"""`kgfs serve` as a user runs it (issue 36): nothing set (no PREFECT_API_URL, a fresh KGFS_HOME and server folder),
a corpus dropped in, its outputs, the printed trigger command, then Ctrl-C (SIGINT to the process group, as a
terminal sends it) or SIGTERM: one line, no traceback, nothing of its own left running; the user's server stays
up (stopped when idle), as `kgfs run` leaves it. `kgfs serve --model M` (a model of `kgfs fit`): an unlabelled
corpus dropped in is predicted; a model damaged before serving is refused at once, one damaged while serving fails
the tick, the ledger saying why.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pandas as pd
import psutil
import pytest

from flows.cli.main import main
from flows.server import local as server
from flows.watch.ledger import read_ledger
from tests.kg.conftest import DBO, R, instance_triples

ROOT = Path(__file__).resolve().parents[3]


def _wait(cond, timeout: float, what: str, proc=None, log: Path | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"{what}: kgfs serve exited with status {proc.returncode}: "
                                 + (log.read_text()[-2000:] if log else ""))
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}: "
                         + (log.read_text()[-2000:] if log else ""))


def _processed(out: Path, name: str) -> dict | None:
    try:
        entries = read_ledger(out)["corpora"].values()
    except (OSError, ValueError):
        return None
    return next((e for e in entries if e["file"] == name and e["status"] == "ok"), None)


def _alive(procs) -> list:
    return [p for p in procs if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


def _user_env(tmp_path: Path) -> dict:
    """A new user's environment: no Prefect setting, a fresh kgfs home and server folder, any free port."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "KGFS_"))}
    env.update(PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""), KGFS_HOME=str(tmp_path / "home"),
               KGFS_SERVER_DIR=str(tmp_path / "server"), KGFS_SERVER_PORT="0")
    return env


@pytest.mark.integration
@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_serve_with_nothing_set(tmp_path, bundled, stop, monkeypatch):
    watch, out, log = tmp_path / "corpora", tmp_path / "results", tmp_path / "serve.log"
    watch.mkdir()
    env = _user_env(tmp_path)
    monkeypatch.setenv("KGFS_SERVER_DIR", env["KGFS_SERVER_DIR"])  # this test's view of that user's server
    labels = pd.read_csv(bundled / "labels.tsv", sep="\t", dtype=str)
    (watch / "genes.tsv.part").write_text(labels.iloc[:70].to_csv(sep="\t", index=False))
    (watch / "genes.tsv.part").rename(watch / "genes.tsv")
    with open(log, "w") as f:
        serve = subprocess.Popen(
            [sys.executable, "-m", "flows.cli", "serve", "--watch", str(watch), "--interval", "10", "--settle", "1",
             "--out", str(out), "--obo", str(bundled / "go-2014-06-13-subset.obo.gz"),
             "--annotations", str(bundled / "annotations.tsv"), "--selector", "complete", "--selectors", "complete",
             "--n-splits", "3"],
            env=env, cwd=tmp_path, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True)
    try:
        entry = _wait(lambda: _processed(out, "genes.tsv"), 180, "the dropped corpus processed", serve, log)
        ev = pd.read_csv(Path(entry["out"]) / "evaluation.csv")
        assert len(ev) == 3 and (ev["status"] == "ok").all()
        info = server.find_server(tmp_path / "home")
        assert info is not None, "the user's server (KGFS_SERVER_DIR) serves the deployment"
        assert Path(info.folder) == tmp_path / "server"
        assert not (tmp_path / "home" / "prefect" / "prefect.db").exists()  # no temporary server of its own

        # the trigger command it printed works as printed, from a shell with nothing set
        text = log.read_text()
        command = re.search(r"^\s+(PREFECT_API_URL=\S+ prefect deployment run .+)$", text, re.M).group(1)
        assert info.api_url in command
        assign, *argv = shlex.split(command)
        trig = subprocess.run([sys.executable, "-m", *argv], env={**env, assign.split("=")[0]: assign.split("=", 1)[1]},
                              capture_output=True, text=True, timeout=90)
        assert trig.returncode == 0, trig.stdout + trig.stderr
        run_id = re.search(r"UUID:\s*([0-9a-f-]{36})", trig.stdout).group(1)

        def final_state():
            with urllib.request.urlopen(f"{info.api_url}/flow_runs/{run_id}", timeout=10) as r:
                st = json.loads(r.read())["state"]
            return st["type"] if st and st["type"] in ("COMPLETED", "FAILED", "CRASHED") else None

        assert _wait(final_state, 120, "the hand-triggered tick", serve, log) == "COMPLETED"

        ours = [p for p in psutil.Process(serve.pid).children(recursive=True) if p.pid != info.pid]
        ours = [p for p in ours if p.pid not in {c.pid for c in psutil.Process(info.pid).children(recursive=True)}]
        t0 = time.monotonic()
        if stop == "SIGINT":
            os.killpg(serve.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the whole foreground group
        else:
            serve.send_signal(signal.SIGTERM)
        status = serve.wait(timeout=15)
        took = time.monotonic() - t0
        text = log.read_text()
        assert status == 128 + getattr(signal, stop), text[-2000:]
        assert took < 10, took
        assert text.splitlines()[-1] == f"kgfs serve: stopping ({stop})", text[-2000:]
        assert "Traceback" not in text
        deadline = time.monotonic() + 10
        while _alive(ours) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(ours), [p.cmdline() for p in _alive(ours)]
        # the user's server stays up, as `kgfs run` leaves it (its idle stop): answering, no lease of ours left
        assert server.api_healthy(info.api_url) and server.status(tmp_path / "home")["clients"] == 0
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait(timeout=10)
        server.stop_server(tmp_path / "home", grace=5)


# ------------------------------------------------------------------------------------------ kgfs serve --model

SUBCLASS = "http://www.w3.org/2000/01/rdf-schema#subClassOf"
PEOPLE = ["Chris_Gayle", "Nathan_Lyon", "Murali_Vijay", "Novak_Djokovic", "Barack_Obama", "Vijay_(actor)"]
PLACES = ["Lyon", "England", "Finland", "New_Zealand", "River_Thames"]


def _corpus_model_inputs(tmp_path: Path) -> list[str]:
    """A small dump (the kg tests' instance triples and a class hierarchy above their types) and a labelled corpus of
    people and places linked by an entity column: the options of `kgfs fit` for them."""
    dump = tmp_path / "dump"
    dump.mkdir()
    classes = [("Cricketer", "Athlete"), ("TennisPlayer", "Athlete"), ("Athlete", "Person"), ("Actor", "Person"),
               ("OfficeHolder", "Person"), ("SoccerClub", "Organisation"), ("City", "Place"), ("Country", "Place"),
               ("River", "Place"), ("Settlement", "Place")]
    lines = instance_triples() + [f"<{DBO}{c}> <{SUBCLASS}> <{DBO}{p}> ." for c, p in classes]
    (dump / "instances.nt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    corpus = tmp_path / "train.csv"
    corpus.write_text("id,entity,label\n" + "".join(f"{e},{R}{e},person\n" for e in PEOPLE)
                      + "".join(f"{e},{R}{e},place\n" for e in PLACES), encoding="utf-8")
    return ["--corpus", str(corpus), "--entity-columns", "entity", "--dump", str(dump), "--selector", "complete"]


# no labels; two entities the graph does not know, and a SoccerClub (a type the model never saw)
NEW_CORPUS = ("id,entity\n" f"a,{R}Chris_Gayle\n" f"b,{R}Nobody_Knows\n" f"c,{R}Lyon\n" f"d,{R}Nowhere\n"
              f"e,{R}Dumbarton_F.C.\n")


def _drop(folder: Path, name: str, text: str) -> None:
    (folder / f"{name}.part").write_text(text, encoding="utf-8")  # copied in under a partial name, then renamed
    (folder / f"{name}.part").rename(folder / name)


@pytest.mark.integration
def test_serve_a_model_predicts_each_new_unlabelled_corpus(tmp_path, monkeypatch):
    watch, out, log, model = tmp_path / "corpora", tmp_path / "predictions", tmp_path / "serve.log", tmp_path / "M"
    watch.mkdir()
    env = _user_env(tmp_path)
    monkeypatch.setenv("KGFS_SERVER_DIR", env["KGFS_SERVER_DIR"])  # this test's view of that user's server
    fit = subprocess.run([sys.executable, "-m", "flows.cli", "fit", *_corpus_model_inputs(tmp_path), "--model",
                          str(model)], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert fit.returncode == 0, fit.stdout + fit.stderr
    assert not (tmp_path / "server" / "server.json").exists()  # fitting needs no Prefect server
    with open(log, "w") as f:
        serve = subprocess.Popen(
            [sys.executable, "-m", "flows.cli", "serve", "--watch", str(watch), "--model", str(model), "--interval",
             "5", "--settle", "1", "--out", str(out)],
            env=env, cwd=tmp_path, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True)
    try:
        _drop(watch, "new.csv", NEW_CORPUS)
        _drop(watch, "broken.csv", "id,qid\na,x\n")  # no entity column: fails, the others go on
        entry = _wait(lambda: _processed(out, "new.csv"), 180, "the dropped corpus predicted", serve, log)
        assert f"predicting each new corpus with the model {model}" in log.read_text()
        folder = Path(entry["out"])
        assert folder == out / f"new-{entry['sha256'][:12]}"  # where the pipeline's outputs of a corpus go
        frame = pd.read_csv(folder / "predictions.csv", dtype=str, keep_default_na=False)
        assert list(frame.columns) == ["instance_id", "predicted", "p_person", "p_place", "n_features", "why"]
        rows = frame.set_index("instance_id")
        assert list(rows.index) == list("abcde")
        assert rows.loc["a", "predicted"] == "person" and rows.loc["c", "predicted"] == "place"
        assert rows.loc["b", "n_features"] == "0" and rows.loc["b", "why"] == ""
        report = json.loads((folder / "predict.json").read_text())
        assert report == entry["report"]
        assert report["n_instances"] == 5 and report["n_without_features"] == 3
        assert sum(report["classes"].values()) == 5 and set(report["classes"]) == {"person", "place"}
        assert report["corpus"] == str(watch / "new.csv") and entry["version"].startswith("model:")

        failed = _wait(lambda: next((e for e in read_ledger(out)["corpora"].values()
                                     if e["file"] == "broken.csv" and e["status"] == "failed"), None), 60,
                       "the broken corpus reported", serve, log)
        assert str(watch / "broken.csv") in failed["error"] and "not found" in failed["error"]

        # the model is loaded again in every tick: damaged while serving, the tick fails and the ledger says why
        arrays = model / "arrays.npz"
        arrays.write_bytes(arrays.read_bytes()[:100])
        tick = _wait(lambda: next((t for t in read_ledger(out)["ticks"] if t.get("error")), None), 60,
                     "a tick with the damaged model", serve, log)
        assert str(arrays) in tick["error"] and not tick["processed"]
        assert read_ledger(out)["corpora"][entry["sha256"]]["status"] == "ok"  # not the corpora's fault

        info = server.find_server(tmp_path / "home")
        ours = [p for p in psutil.Process(serve.pid).children(recursive=True) if p.pid != info.pid]
        ours = [p for p in ours if p.pid not in {c.pid for c in psutil.Process(info.pid).children(recursive=True)}]
        os.killpg(serve.pid, signal.SIGINT)  # Ctrl-C
        status = serve.wait(timeout=15)
        text = log.read_text()
        assert status == 130, text[-2000:]
        assert text.splitlines()[-1] == "kgfs serve: stopping (SIGINT)" and "Traceback" not in text, text[-2000:]
        deadline = time.monotonic() + 10
        while _alive(ours) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(ours), [p.cmdline() for p in _alive(ours)]
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait(timeout=10)
        server.stop_server(tmp_path / "home", grace=5)


@pytest.fixture
def corpus_model(tmp_path, home, monkeypatch) -> Path:
    """A model of the people/places corpus, fitted in this process (`kgfs fit`); no Prefect server of the user's."""
    monkeypatch.setenv("KGFS_SERVER_DIR", str(tmp_path / "server"))
    monkeypatch.delenv("PREFECT_API_URL", raising=False)  # a refused `kgfs serve` sets none (a serving one does)
    assert main(["fit", *_corpus_model_inputs(tmp_path), "--model", str(tmp_path / "M")]) == 0
    return tmp_path / "M"


def _refused(tmp_path, capsys, *argv) -> str:
    """`kgfs serve --watch W --interval 5 --out O ARGV`: exit status 1 at once with one line, nothing started or
    written (no server, no output folder)."""
    (tmp_path / "W").mkdir(exist_ok=True)
    capsys.readouterr()
    t0 = time.monotonic()
    status = main(["serve", "--watch", str(tmp_path / "W"), "--interval", "5", "--out", str(tmp_path / "O"), *argv])
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert status == 1 and len(err) == 1 and err[0].startswith("kgfs: error: "), captured.err
    assert time.monotonic() - t0 < 20
    assert not (tmp_path / "server").exists() and not (tmp_path / "O").exists()
    assert "PREFECT_API_URL" not in os.environ
    return err[0]


def test_serve_refuses_a_damaged_model_at_once_naming_the_file(tmp_path, corpus_model, capsys):
    arrays = corpus_model / "arrays.npz"
    arrays.write_bytes(arrays.read_bytes()[:100])
    line = _refused(tmp_path, capsys, "--model", str(corpus_model))
    assert str(arrays) in line and "damaged" in line
    line = _refused(tmp_path, capsys, "--model", str(tmp_path / "nothing-here"))
    assert str(tmp_path / "nothing-here") in line


def test_serve_a_model_refuses_what_it_would_not_use(tmp_path, corpus_model, capsys):
    line = _refused(tmp_path, capsys, "--model", str(corpus_model), "--n-splits", "5")
    assert "--n-splits does not apply with --model" in line
    line = _refused(tmp_path, capsys, "--model", str(corpus_model), "--dump", str(tmp_path / "dump"))
    assert "--dump does not apply with a model" in line and "--text-column" in line  # the command line's words
    assert main(["fit", "--model", str(tmp_path / "GO")]) == 0  # bundled DM-BP: gene lists over GO, no corpus
    line = _refused(tmp_path, capsys, "--model", str(tmp_path / "GO"))
    assert "which reads no corpus" in line


def test_flow_runs_spawned_while_serving_start_with_sigint_blocked(tmp_path):
    """Every flow run Prefect spawns while serving, the first and the later ones, has SIGINT blocked (Ctrl-C reaches
    the whole process group; before, spawn's resource tracker unblocked it after the first and the second printed a
    traceback). In a fresh interpreter: pytest's own tracker may already run."""
    script = (
        "import multiprocessing, subprocess\n"
        "from flows.watch.serve import sigint_blocked_for_children\n"
        "ctx = multiprocessing.get_context('spawn')\n"
        "with sigint_blocked_for_children():\n"
        "    for _ in range(2):\n"
        "        p = ctx.Process(target=subprocess.run, args=(['grep', 'SigBlk', '/proc/self/status'],))\n"
        "        p.start(); p.join()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "KGFS_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    masks = [int(line.split()[1], 16) for line in done.stdout.splitlines()]
    assert len(masks) == 2 and all(m & (1 << (signal.SIGINT - 1)) for m in masks), done.stdout
