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
    ticks = [process_folder(watch, out, run, QUIET) for _ in range(8)]
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
        process_folder(watch, out, run, QUIET)
    (watch / "broken.tsv").rename(watch / "renamed.tsv")  # same content: still given up
    assert process_folder(watch, out, run, QUIET)["given_up"] == ["renamed.tsv"]
    (watch / "renamed.tsv").write_text("bad corpus, edited\n")  # new content: a new entry, attempts from 1
    tick = process_folder(watch, out, run, QUIET)
    assert tick["failed"] == ["renamed.tsv"]
    by_sha = read_ledger(out)["corpora"]
    assert sorted((e["file"], e["status"], e["attempts"]) for e in by_sha.values()) == [
        ("broken.tsv", "gave-up", 3), ("good.tsv", "ok", 1), ("renamed.tsv", "failed", 1)]


def test_max_attempts_is_an_option(folders):
    watch, out = folders
    run = Runner()
    for _ in range(20):
        process_folder(watch, out, run, QUIET, max_attempts=5)
    assert run.calls.count("broken.tsv") == 5  # ticks 1, 2, 4, 8, 16
    # raising the number later gives a given-up corpus its further attempts
    process_folder(watch, out, run, QUIET, max_attempts=6)
    assert run.calls.count("broken.tsv") == 6


def test_a_ledger_of_an_earlier_version_is_read(folders):
    watch, out = folders
    out.mkdir()
    old = {"format": 1, "ticks": [{"started": "t"}] * 3,
           "corpora": {"x": {"file": "gone.tsv", "status": "failed", "attempts": 1, "error": "E", "out": "o"}}}
    write_ledger(out, old)
    tick = process_folder(watch, out, Runner(), QUIET)
    assert tick["tick"] == 4 and json.loads((out / "ledger.json").read_text())["tick_count"] == 4
