"""The DBpedia route through the `kgfs` command line: the dump index, corpus records, a hanging server.

- `kgfs ingest` reads each dump file once into the index of the kgfs home; `kgfs build --dump`
  (and `run`, `serve`) ingest up front and then only look up.
- Corpus records are never lost silently: a stray ``"`` in a TSV text keeps every record; a record
  that cannot be read is a one-line error naming the file and line and ``--skip-bad-lines``,
  which skips and counts it.
- A SPARQL server that accepts the connection, passes the up-front check and then never answers
  fails `kgfs run` within two minutes, with a last line that says how to resume (``--timeout``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flows.cli import main
from kg.formats.folder import read_table_folder
from tests.kg.conftest import R
from tests.kg.servers import HangingServer

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture()
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("KGFS_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _error(capsys, argv) -> str:
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err and err[-1].startswith("kgfs: error: ") and "Traceback" not in "\n".join(err)
    return err[-1]


def _segments(home: Path) -> list[Path]:
    return sorted((home / "rdf-cache" / "index" / "segments").iterdir())


def test_ingest_reads_files_in_worker_processes_into_the_same_index(kg_dump_dir, home, tmp_path, capsys,
                                                                    monkeypatch):
    assert main(["ingest", "--dump", str(kg_dump_dir), "--n-jobs", "2"]) == 0
    assert "read now: instances.nt, ontology.owl" in capsys.readouterr().out
    parallel = {p.name: sorted(f.name for f in p.iterdir()) for p in _segments(home)}
    monkeypatch.setenv("KGFS_HOME", str(tmp_path / "serial"))
    assert main(["ingest", "--dump", str(kg_dump_dir)]) == 0
    serial = sorted((tmp_path / "serial" / "rdf-cache" / "index" / "segments").iterdir())
    assert parallel == {p.name: sorted(f.name for f in p.iterdir()) for p in serial}  # (the bytes: test_dumpindex)


@pytest.mark.parametrize("address, said", [
    ("127.0.0.1:8786", "--dask-address '127.0.0.1:8786': give tcp://HOST:PORT of a running `dask scheduler`, or local"),
    pytest.param("tcp://127.0.0.1:1", "--dask-address tcp://127.0.0.1:1: no Dask scheduler answers there",
                 marks=pytest.mark.slow),  # the client's 10 s timeout
])
def test_ingest_on_a_cluster_that_cannot_be_reached_fails_before_reading(kg_dump_dir, home, capsys, address, said):
    line = _error(capsys, ["ingest", "--dump", str(kg_dump_dir), "--dask-address", address])
    assert line.startswith("kgfs: error: " + said)
    assert not (home / "rdf-cache" / "index" / "segments").exists()


def test_ingest_once_then_build_looks_up(kg_dump_dir, home, tmp_path, capsys):
    assert main(["ingest", "--dump", str(kg_dump_dir)]) == 0
    out = capsys.readouterr().out
    assert "2 dump file(s)" in out and "read now: instances.nt, ontology.owl" in out and "surface forms" in out
    stamps = [p.stat().st_mtime_ns for p in _segments(home)]
    assert main(["ingest", "--dump", str(kg_dump_dir)]) == 0
    assert "all were in the index already" in capsys.readouterr().out
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"id": i, "text": t, "label": i % 2}) + "\n" for i, t in enumerate(
        ["Chris Gayle hits a six", "Lyon beat Chelsea F.C.", "Barack Obama in England", "Novak Djokovic wins"])))
    assert main(["build", "--corpus", str(corpus), "--dump", str(kg_dump_dir), "--out", str(tmp_path / "T")]) == 0
    assert [p.stat().st_mtime_ns for p in _segments(home)] == stamps  # looked up, nothing read again
    table = read_table_folder(tmp_path / "T")
    assert table.n_instances == 4 and "http://dbpedia.org/ontology/Cricketer" in table.feature_names.tolist()


def test_corpus_records_are_never_lost_silently(kg_dump_dir, home, tmp_path, capsys):
    texts = ['"Chris Gayle hits a six', 'Lyon "beat" Chelsea F.C.', 'England 2 Finland 1 "', 'Novak Djokovic wins',
             '"Barack Obama" in England', 'New Zealand win "again']  # stray and paired quotes, unescaped
    rows = [f"{i}\t{t}\t{i % 2}" for i, t in enumerate(texts * 2)]
    tsv = tmp_path / "c.tsv"
    tsv.write_text("id\ttext\tlabel\n" + "\n".join(rows) + "\n")
    args = ["build", "--corpus", str(tsv), "--dump", str(kg_dump_dir)]
    assert main([*args, "--out", str(tmp_path / "T1")]) == 0
    table = read_table_folder(tmp_path / "T1")
    assert table.instance_ids.tolist() == [str(i) for i in range(12)]  # every record, none swallowed by a quote
    # a record with too many fields: an error naming file and line, or skipped and counted
    tsv.write_text("id\ttext\tlabel\n" + "\n".join(rows[:3] + ["99\tx\ty\tz"] + rows[3:]) + "\n")
    line = _error(capsys, [*args, "--out", str(tmp_path / "T2")])
    assert f"{tsv}:5: 4 fields, the header has 3" in line and "--skip-bad-lines" in line
    assert not (tmp_path / "T2").exists()
    assert main([*args, "--skip-bad-lines", "--out", str(tmp_path / "T2")]) == 0
    assert "skipped 1 record(s) that could not be read (lines 5)" in capsys.readouterr().err
    assert read_table_folder(tmp_path / "T2").n_instances == 12
    # JSON Lines: a broken line is named the same way
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text('{"id": 1, "text": "Lyon", "label": 0}\n{"id": 2, "text": \n')
    line = _error(capsys, ["build", "--corpus", str(jsonl), "--dump", str(kg_dump_dir), "--out", str(tmp_path / "T3")])
    assert f"{jsonl}:2: invalid JSON" in line and "--skip-bad-lines" in line


def test_a_malformed_dump_line_is_named_by_kgfs_ingest(kg_dump_dir, home, tmp_path, capsys):
    bad = tmp_path / "bad.nt"
    bad.write_text((kg_dump_dir / "instances.nt").read_text() + "<http://x/a> <http://x/p> oops .\n")
    n = len(bad.read_text().splitlines())
    line = _error(capsys, ["ingest", "--dump", str(bad)])
    assert f"{bad}:{n}: malformed RDF" in line and "--skip-bad-lines" in line
    assert main(["ingest", "--dump", str(bad), "--skip-bad-lines"]) == 0
    assert "1 malformed line(s) skipped" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.integration
def test_a_sparql_server_that_never_answers_fails_kgfs_run_within_two_minutes(tmp_path):
    corpus = tmp_path / "c.tsv"
    corpus.write_text("id\turi\tlabel\n" + "".join(f"{i}\t{R}E{i}\t{i % 2}\n" for i in range(12)))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "KGFS_HOME", "KGFS_SERVER"))}
    env.update(KGFS_HOME=str(tmp_path / "home"), KGFS_SERVER_PORT="0", MPLBACKEND="Agg",
               PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    kgfs = [sys.executable, "-m", "flows.cli"]
    try:
        with HangingServer(answers=1) as srv:  # answers kgfs's up-front check, then hangs
            t0 = time.monotonic()
            proc = subprocess.run([*kgfs, "run", "--corpus", str(corpus), "--entity-columns", "uri", "--sparql-url",
                                   srv.url, "--timeout", "3", "--n-splits", "2", "--out", str(tmp_path / "out")],
                                  capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=300)
            seconds = time.monotonic() - t0
            assert srv.answered == 1 and srv.connections >= 2
    finally:
        subprocess.run([*kgfs, "server", "stop"], env=env, capture_output=True, timeout=120)
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert seconds < 120
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("kgfs: error: gave up after ") and "(the time allowed)" in last, last
    assert "timed out" in last and "rerun the same command to resume" in last
    assert not (tmp_path / "out").exists()


_PEAK = ("import sys\nfrom flows.cli import main\nrc = main(sys.argv[1:])\n"
         "print(next(l for l in open('/proc/self/status') if l.startswith('VmHWM')).split()[1], file=sys.stderr)\n"
         "sys.exit(rc)\n")


def test_a_200_mb_corpus_record_is_one_line_within_seconds_and_skipped_on_request(kg_dump_dir, tmp_path):
    """issue 30: `kgfs build --corpus` on 200 normal records and one of 200 MB ran 208 s and peaked at 20.9 GB."""
    from tests.kg.rdf.test_corpus import _huge_jsonl

    corpus = tmp_path / "big.jsonl"
    line = _huge_jsonl(corpus, 200 << 20)
    env = {**os.environ, "KGFS_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}

    def build(*extra):
        t = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", _PEAK, "build", "--corpus", str(corpus), "--dump",
                               str(kg_dump_dir), "--out", str(tmp_path / "T"), *extra], env=env, capture_output=True,
                              text=True, timeout=600, stdin=subprocess.DEVNULL)
        *lines, peak_kb = proc.stderr.strip().splitlines()
        return proc.returncode, lines, int(peak_kb) << 10, time.perf_counter() - t

    rc, lines, peak, seconds = build()
    assert rc == 1 and len(lines) == 1, lines
    assert lines[0] == (f"kgfs: error: {corpus}:{line}: a record of more than 8,388,608 bytes (pass --max-record-bytes "
                        "for longer ones); pass --skip-bad-lines to skip such records")
    assert seconds < 60 and peak < 1 << 30, (seconds, peak)
    rc, lines, peak, seconds = build("--skip-bad-lines")
    assert rc == 0, lines
    assert read_table_folder(tmp_path / "T").n_instances == 200 and peak < 1 << 30, peak
