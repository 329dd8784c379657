"""The watched folder's ledger: a failing corpus is retried with a back-off and given up after
``max_attempts`` until its content changes, and the ledger says so (flows.watch.ledger)."""

from __future__ import annotations

import json
import logging

import pytest

from flows.watch.ledger import process_folder, read_ledger, tick_markdown, write_ledger

QUIET = logging.getLogger("kgfs-test-quiet")


class Runner:
    """``run`` for process_folder: fails on files whose content starts with ``bad``; counts calls."""

    def __init__(self):
        self.calls: list[str] = []

    def __call__(self, path, target):
        self.calls.append(path.name)
        if path.read_text().startswith("bad"):
            raise ValueError(f"only one class in {path.name}\nsecond line")
        return ["facts"]


@pytest.fixture
def folders(tmp_path):
    watch, out = tmp_path / "watch", tmp_path / "out"
    watch.mkdir()
    (watch / "good.tsv").write_text("gene\tlabel\n")
    (watch / "broken.tsv").write_text("bad corpus\n")
    return watch, out


def test_a_failing_corpus_backs_off_then_is_given_up(folders):
    watch, out = folders
    run = Runner()
    ticks = [process_folder(watch, out, run, QUIET, settle_seconds=0) for _ in range(8)]
    assert run.calls.count("broken.tsv") == 3 and run.calls.count("good.tsv") == 1
    # attempts on ticks 1, 2 and 4 (back-off 1, 2 ticks), then given up: later ticks do not fail
    assert [t["tick"] for t in ticks] == list(range(1, 9))
    assert [bool(t["failed"]) for t in ticks] == [True, True, False, True, False, False, False, False]
    assert [t["waiting"] for t in ticks][2] == ["broken.tsv"]
    assert all(t["given_up"] == ["broken.tsv"] for t in ticks[4:])
    entry = {e["file"]: e for e in read_ledger(out)["corpora"].values()}["broken.tsv"]
    assert entry["status"] == "gave-up" and entry["attempts"] == 3
    assert entry["error"] == "ValueError: only one class in broken.tsv"
    assert "gave up after 3 failed attempts" in entry["note"] and "content changes" in entry["note"]
    md = tick_markdown(ticks[3], read_ledger(out))
    assert "| broken.tsv | gave-up | 3 |" in md and "given up 0" in md
    assert "given up 1 (until their content changes)" in tick_markdown(ticks[5], read_ledger(out))


def test_new_content_is_tried_again_a_renamed_file_is_not(folders):
    watch, out = folders
    run = Runner()
    for _ in range(5):
        process_folder(watch, out, run, QUIET, settle_seconds=0)
    (watch / "broken.tsv").rename(watch / "renamed.tsv")  # same content: still given up
    assert process_folder(watch, out, run, QUIET, settle_seconds=0)["given_up"] == ["renamed.tsv"]
    (watch / "renamed.tsv").write_text("bad corpus, edited\n")  # new content: a new entry, attempts from 1
    tick = process_folder(watch, out, run, QUIET, settle_seconds=0)
    assert tick["failed"] == ["renamed.tsv"]
    by_sha = read_ledger(out)["corpora"]
    assert sorted((e["file"], e["status"], e["attempts"]) for e in by_sha.values()) == [
        ("broken.tsv", "gave-up", 3), ("good.tsv", "ok", 1), ("renamed.tsv", "failed", 1)]


def test_max_attempts_is_an_option(folders):
    watch, out = folders
    run = Runner()
    for _ in range(20):
        process_folder(watch, out, run, QUIET, max_attempts=5, settle_seconds=0)
    assert run.calls.count("broken.tsv") == 5  # ticks 1, 2, 4, 8, 16
    # raising the number later gives a given-up corpus its further attempts
    process_folder(watch, out, run, QUIET, max_attempts=6, settle_seconds=0)
    assert run.calls.count("broken.tsv") == 6


def test_a_ledger_of_an_earlier_version_is_read(folders):
    watch, out = folders
    out.mkdir()
    old = {"format": 1, "ticks": [{"started": "t"}] * 3,
           "corpora": {"x": {"file": "gone.tsv", "status": "failed", "attempts": 1, "error": "E", "out": "o"}}}
    write_ledger(out, old)
    tick = process_folder(watch, out, Runner(), QUIET, settle_seconds=0)
    assert tick["tick"] == 4 and json.loads((out / "ledger.json").read_text())["tick_count"] == 4


# --------------------------------------------------------------------------- issue 30: incomplete and vanishing corpora
def test_a_corpus_written_in_two_halves_is_processed_once_whole(tmp_path):
    """issue 30: a corpus written in place in two halves 20 s apart was processed and published "ok" at its first
    half, then again whole (two ledger entries). A file written within the settle time is left for a later tick."""
    import os
    import threading
    import time

    watch, out = tmp_path / "watch", tmp_path / "out"
    watch.mkdir()
    seen: list[str] = []

    def run(path, target):
        seen.append(path.read_text())
        return []

    corpus = watch / "c.tsv"
    with open(corpus, "w") as fh:  # a writer that pauses half-way, as a slow copy does
        fh.write("gene\tlabel\n" + "".join(f"g{i}\t{i % 2}\n" for i in range(50)))
        fh.flush()
        first = process_folder(watch, out, run, QUIET)  # the default settle time (60 s)
        done = threading.Event()
        threading.Thread(target=lambda: (time.sleep(0.3), fh.write("g50\t0\n"), fh.flush(), done.set())).start()
        assert first["settling"] == ["c.tsv"] and first["processed"] == [] and seen == []
        assert process_folder(watch, out, run, QUIET, settle_seconds=2)["settling"] == ["c.tsv"]
        done.wait(5)
    assert process_folder(watch, out, run, QUIET, settle_seconds=2)["settling"] == ["c.tsv"]  # just written
    old = time.time() - 3
    os.utime(corpus, (old, old))  # nothing wrote to it for 3 s
    tick = process_folder(watch, out, run, QUIET, settle_seconds=2)
    assert tick["processed"] == ["c.tsv"] and len(seen) == 1 and seen[0].endswith("g50\t0\n")
    assert [e["status"] for e in read_ledger(out)["corpora"].values()] == ["ok"]  # one entry: the whole file


def test_a_corpus_that_disappears_is_recorded_as_gone_and_the_tick_goes_on(tmp_path):
    """issue 30: a corpus deleted while another one was processed failed the whole tick (FileNotFoundError), the
    tick was missing from the ledger and a third corpus waited a tick."""
    import os
    import time

    watch, out = tmp_path / "watch", tmp_path / "out"
    watch.mkdir()
    for name in ("a.tsv", "b.tsv", "c.tsv", "d.tsv"):
        (watch / name).write_text(f"gene\tlabel\n{name}\t1\n")
        os.utime(watch / name, (time.time() - 120, time.time() - 120))

    def run(path, target):
        if path.name == "a.tsv":
            (watch / "b.tsv").unlink()  # deleted while a.tsv is processed
        if path.name == "c.tsv":
            text = path.read_text()
            path.unlink()  # deleted while it is processed
            raise FileNotFoundError(2, "No such file or directory", str(path) + text[:0])
        return []

    tick = process_folder(watch, out, run, QUIET)
    assert tick["processed"] == ["a.tsv", "d.tsv"] and tick["gone"] == ["b.tsv", "c.tsv"] and tick["failed"] == []
    ledger = read_ledger(out)
    assert ledger["ticks"][-1]["gone"] == ["b.tsv", "c.tsv"]
    assert sorted((e["file"], e["status"]) for e in ledger["corpora"].values()) == [
        ("a.tsv", "ok"), ("c.tsv", "gone"), ("d.tsv", "ok")]


def test_ledger_errors_name_options_not_python_keywords(tmp_path):
    watch, out = tmp_path / "watch", tmp_path / "out"
    watch.mkdir()
    (watch / "a.tsv").write_text("x")

    def run(path, target):
        raise ValueError(f"{path}:3: malformed; pass skip_bad_lines=True (--skip-bad-lines) to skip such records")

    process_folder(watch, out, run, QUIET, settle_seconds=0)
    error = next(iter(read_ledger(out)["corpora"].values()))["error"]
    assert error.endswith("malformed; pass --skip-bad-lines to skip such records") and "skip_bad_lines" not in error


def test_ledger_errors_say_the_parameters_as_the_serving_command_s_options(tmp_path):
    """The ledger runs in the flow process (no flows.cli there): the words of the command that serves are given."""
    from kg.errors import ParameterError, param

    watch, out = tmp_path / "watch", tmp_path / "out"
    watch.mkdir()
    (watch / "a.tsv").write_text("x")

    def run(path, target):
        raise ParameterError(f"{param('sparql_url')} is required when {param('source', 'sparql')}\nmore")

    words = {"sparql_url": "--sparql-url", "source": "--kg"}
    tick = process_folder(watch, out, run, QUIET, settle_seconds=0, words=words)
    error = next(iter(read_ledger(out)["corpora"].values()))["error"]
    assert error == "ParameterError: --sparql-url is required when --kg sparql"
    assert f"`{error}`" in tick_markdown(tick, read_ledger(out))


def test_a_prediction_s_report_is_kept_and_another_model_predicts_again(folders):
    """``kgfs serve --model``: the callable returns a report (kept, in the tick's markdown too); a corpus done with
    one model (``version``) is done again with another, even one given up before."""
    watch, out = folders
    calls: list[tuple[str, str]] = []

    def predict(version):
        def run(path, target):
            calls.append((path.name, version))
            if path.read_text().startswith("bad"):
                raise ValueError("no entity column")
            return {"n_instances": 2, "n_without_features": 1, "classes": {"person": 2, "place": 0}}
        return run

    for _ in range(6):
        tick = process_folder(watch, out, predict("m1"), QUIET, settle_seconds=0, version="m1")
    entries = {e["file"]: e for e in read_ledger(out)["corpora"].values()}
    assert entries["good.tsv"]["report"]["classes"] == {"person": 2, "place": 0}
    assert entries["good.tsv"]["version"] == "m1" and "stages_reused" not in entries["good.tsv"]
    assert entries["broken.tsv"]["status"] == "gave-up" and tick["given_up"] == ["broken.tsv"]
    first = process_folder(watch, out, predict("m1"), QUIET, settle_seconds=0, version="m1")
    assert first["skipped"] == ["good.tsv"]
    tick = process_folder(watch, out, predict("m2"), QUIET, settle_seconds=0, version="m2")
    assert tick["processed"] == ["good.tsv"] and tick["failed"] == ["broken.tsv"]
    entries = {e["file"]: e for e in read_ledger(out)["corpora"].values()}
    assert entries["broken.tsv"]["attempts"] == 1 and entries["good.tsv"]["version"] == "m2"
    md = tick_markdown(tick, read_ledger(out))
    assert "## Predictions" in md and "| good.tsv | 2 | 1 | person 2, place 0 |" in md


def test_a_tick_whose_model_cannot_be_loaded_is_recorded_with_why(folders):
    from flows.watch.ledger import failed_tick
    from kg.errors import KgfsError

    watch, out = folders
    process_folder(watch, out, Runner(), QUIET, settle_seconds=0)
    tick = failed_tick(out, KgfsError("/m/arrays.npz: truncated\nmore"))
    ledger = read_ledger(out)
    assert tick["tick"] == 2 and ledger["ticks"][-1]["error"] == "KgfsError: /m/arrays.npz: truncated"
    assert {e["file"]: e["attempts"] for e in ledger["corpora"].values()} == {"good.tsv": 1, "broken.tsv": 1}
    assert "no corpus processed: `KgfsError: /m/arrays.npz: truncated`" in tick_markdown(tick, ledger)
