"""`kgfs serve --watch DIR`: the watch-folder deployment against a real local Prefect server.

The test starts `prefect server start --host 127.0.0.1 --port FREE` (its scheduler loop set to
2 s) and `kgfs serve --watch W --interval 15` against it, then drops labelled gene lists (the GO
route over the bundled ontology and annotations) into W and reads the ledger. Bounded: every
wait has a deadline, the whole test takes about 3-5 minutes. (A tick with nothing to do takes
about 12 s on a loaded 2-core machine, mostly the flow run's process start: with a shorter
interval the ticks fall behind the schedule and a tick triggered by hand waits behind them.)
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

from flows.watch.ledger import corpus_files, read_ledger

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def _wait(cond, timeout: float, what: str, procs=()):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        for p in procs:
            if p.poll() is not None:
                raise AssertionError(f"{what}: a process exited early with status {p.returncode}")
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _gene_list(bundled: Path, rows: slice) -> str:
    lab = pd.read_csv(bundled / "labels.tsv", sep="\t", dtype=str)
    return lab.iloc[rows].to_csv(sep="\t", index=False)


def _drop(folder: Path, name: str, text: str) -> None:
    """Copy a file in the way the README asks: write under a partial name, then rename."""
    tmp = folder / (name + ".part")
    tmp.write_text(text, encoding="utf-8")
    tmp.rename(folder / name)


def _ticks_after(out: Path, n: int) -> list[dict]:
    try:
        return read_ledger(out)["ticks"][n:]
    except (OSError, ValueError):
        return []


def test_corpus_files_ignores_partial_and_hidden(tmp_path):
    for name in ("a.tsv", "b.csv", ".hidden.tsv", "c.tsv.part", "d.tsv.tmp", "notes.md", "ledger.json"):
        (tmp_path / name).write_text("x")
    (tmp_path / "sub.tsv").mkdir()
    assert [p.name for p in corpus_files(tmp_path)] == ["a.tsv", "b.csv"]


@pytest.mark.integration
def test_watch_folder_deployment(tmp_path, bundled):
    t_start = time.monotonic()
    watch, out, home = tmp_path / "watch", tmp_path / "out", tmp_path / "home"
    watch.mkdir()
    port = _free_port()
    url = f"http://127.0.0.1:{port}/api"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "KGFS_HOME"))}
    env.update(PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""), DO_NOT_TRACK="1",
               PREFECT_HOME=str(tmp_path / "prefect-server"), PREFECT_SERVER_ANALYTICS_ENABLED="false",
               PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS="2")
    server = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1",
                               "--port", str(port)], env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, start_new_session=True)
    serve = None
    try:
        _wait(lambda: _healthy(url), 120, "the Prefect server", [server])
        # two new corpora before the first tick
        _drop(watch, "first.tsv", _gene_list(bundled, slice(0, 70)))
        _drop(watch, "second.tsv", _gene_list(bundled, slice(50, 127)))
        log = open(tmp_path / "serve.log", "w")
        serve = subprocess.Popen(
            [sys.executable, "-m", "flows.cli", "--home", str(home), "serve", "--watch", str(watch),
             "--interval", "15", "--settle", "1", "--out", str(out), "--obo",
             str(bundled / "go-2014-06-13-subset.obo.gz"),
             "--annotations", str(bundled / "annotations.tsv"), "--selector", "complete", "--selectors", "complete",
             "--n-splits", "3"],
            env={**env, "PREFECT_API_URL": url, "PREFECT_HOME": str(home / "prefect")}, cwd=tmp_path,
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)

        def tick_with(processed: set, n: int = 0):
            for i, t in enumerate(_ticks_after(out, n)):
                if set(t["processed"]) == processed or (processed and processed <= set(t["processed"])):
                    return n + i + 1
            return None

        n1 = _wait(lambda: tick_with({"first.tsv", "second.tsv"}), 150, "the tick processing two corpora",
                   [server, serve])
        ledger = read_ledger(out)
        assert [t["processed"] for t in ledger["ticks"][:n1 - 1]] == [[]] * (n1 - 1)  # no earlier tick did work
        # the next tick skips both (same content hashes)
        n2 = _wait(lambda: n1 + 1 if len(_ticks_after(out, n1)) else None, 90, "the next tick", [server, serve])
        nxt = read_ledger(out)["ticks"][n2 - 1]
        assert nxt["processed"] == [] and sorted(nxt["skipped"]) == ["first.tsv", "second.tsv"], nxt

        # a tick triggered by hand, as the README shows (the deployment runs it at once)
        trig = subprocess.run([sys.executable, "-m", "prefect", "deployment", "run", "kgfs-watch/kgfs-watch"],
                              env={**env, "PREFECT_API_URL": url}, capture_output=True, text=True, timeout=60)
        assert trig.returncode == 0, trig.stdout + trig.stderr
        run_id = re.search(r"UUID:\s*([0-9a-f-]{36})", trig.stdout).group(1)

        def final_state():
            with urllib.request.urlopen(f"{url}/flow_runs/{run_id}", timeout=10) as r:
                st = json.loads(r.read())["state"]
            return st["type"] if st and st["type"] in ("COMPLETED", "FAILED", "CRASHED") else None

        assert _wait(final_state, 90, "the hand-triggered tick", [server, serve]) == "COMPLETED"
        n2 = len(read_ledger(out)["ticks"])

        # a third corpus appears later, with one that fails (a single class cannot be cross-validated)
        _drop(watch, "third.tsv", _gene_list(bundled, slice(20, 100)))
        _drop(watch, "broken.tsv", "gene\tlabel\n31957\tanti-longevity\n38058\tanti-longevity\n")
        n3 = _wait(lambda: tick_with({"third.tsv"}, n2), 120, "the tick processing the third corpus",
                   [server, serve])
        t3 = read_ledger(out)["ticks"][n3 - 1]
        assert t3["processed"] == ["third.tsv"] and t3["failed"] == ["broken.tsv"], t3
        assert sorted(t3["skipped"]) == ["first.tsv", "second.tsv"]
        # the failing corpus is tried again with a back-off (ticks n3+1, n3+3), then given up until its
        # content changes: later ticks do not try it (and do not fail)
        _wait(lambda: any("broken.tsv" in t["given_up"] for t in _ticks_after(out, n3)), 150,
              "the failed corpus given up", [server, serve])
        later = _ticks_after(out, n3)
        assert [t["failed"] for t in later if t["failed"]] == [["broken.tsv"]] * 2
        assert any("broken.tsv" in t["waiting"] for t in later) and later[-1]["failed"] == []

        ledger = read_ledger(out)
        by_file = {e["file"]: e for e in ledger["corpora"].values()}
        assert {f: e["status"] for f, e in by_file.items()} == {
            "first.tsv": "ok", "second.tsv": "ok", "third.tsv": "ok", "broken.tsv": "gave-up"}
        assert all(by_file[f]["attempts"] == 1 for f in ("first.tsv", "second.tsv", "third.tsv"))
        assert by_file["broken.tsv"]["attempts"] == 3 and "class" in by_file["broken.tsv"]["error"].lower()
        for f in ("first.tsv", "second.tsv", "third.tsv"):
            d = Path(by_file[f]["out"])
            assert d.parent == out and d.name.startswith(Path(f).stem + "-")
            run = json.loads((d / "run.json").read_text())
            assert run["params"]["dataset"] == Path(f).stem
            ev = pd.read_csv(d / "evaluation.csv")
            assert len(ev) == 3 and (ev["status"] == "ok").all()
            assert (d / "table.arff").is_file() and (d / "selected_features.csv").is_file()
        # the deployment exists on the server and its runs are there to see in the UI
        req = urllib.request.Request(url + "/deployments/filter", data=b"{}",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            names = [d["name"] for d in json.loads(r.read())]
        assert "kgfs-watch" in names
        # issue 30: whatever failed (here a corpus, three times, and its ticks), kgfs serve's console shows no traceback
        assert "Traceback" not in (tmp_path / "serve.log").read_text()
    finally:
        if serve is not None:
            _stop(serve)
        _stop(server)
        print((tmp_path / "serve.log").read_text()[-3000:] if (tmp_path / "serve.log").exists() else "")
    assert time.monotonic() - t_start < 540


def test_source_for_each_route(tmp_path, bundled):
    from flows.inputs import watch_input as source_for

    genes = tmp_path / "genes.tsv"
    genes.write_text(_gene_list(bundled, slice(0, 10)))
    go = source_for(genes, {"obo": str(bundled / "go-2014-06-13-subset.obo.gz"),
                            "annotations": str(bundled / "annotations.tsv"), "min_support": 2})
    assert go.kind == "ontology" and go.name == "genes" and go.labels.path == str(genes.absolute())
    assert go.min_support == 2
    corpus = tmp_path / "tweets.csv"
    corpus.write_text("id,text,label\n1,Chris Gayle hits a six,sport\n")
    (tmp_path / "dump.nt").write_text("")
    db = source_for(corpus, {"dump": [str(tmp_path / "dump.nt")], "features": "types"})
    assert db.kind == "rdf" and db.name == "tweets" and db.features == "types"
    assert db.corpus.sha256 != go.labels.sha256


@pytest.mark.integration
def test_serve_uses_the_homes_managed_server(tmp_path, monkeypatch):
    """Without PREFECT_API_URL `kgfs serve` starts (or reuses) the home's announced server on 127.0.0.1."""
    from flows.server import local as server
    from flows.watch.serve import api_for_serving

    for var in ("PREFECT_API_URL", "PREFECT_RUNNER_POLL_FREQUENCY", "PREFECT_LOGGING_LEVEL"):
        monkeypatch.delenv(var, raising=False)  # restored after the test (api_for_serving sets them)
    monkeypatch.setenv("KGFS_SERVER_DIR", str(tmp_path / "server"))  # a user of its own: the server starts here
    home, port = tmp_path / "home", _free_port()
    try:
        url = api_for_serving(home, port, 5)
        assert url == f"http://127.0.0.1:{port}/api" and _healthy(url) and os.environ["PREFECT_API_URL"] == url
        found = server.find_server(home)
        assert found is not None and found.api_url == url  # announced: listed (`kgfs server status`)
        monkeypatch.delenv("PREFECT_API_URL")
        t0 = time.monotonic()
        assert api_for_serving(home, port, 5) == url and time.monotonic() - t0 < 5  # reused
        out = subprocess.run(["ss", "-ltn"], capture_output=True, text=True).stdout if Path("/usr/bin/ss").exists() \
            else ""
        assert f"0.0.0.0:{port}" not in out  # bound to 127.0.0.1 only
    finally:
        server.stop_server(home)
    deadline = time.monotonic() + 30
    while _healthy(url) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _healthy(url)
