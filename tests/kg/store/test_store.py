"""kg.store.store: keys that cannot go stale, reuse only of what verifies, the whole-store check."""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kg.datasets import load_dataset
from kg.store import records as records_mod
from kg.store.records import Record, record_valid, stage_key
from kg.store.store import Store
from kg.table import FeatureTable


@pytest.fixture(scope="module")
def table():
    return load_dataset("bundled/DM-BP", offline=True)


def _table_stage(store: Store, table: FeatureTable, calls: list) -> Record:
    """A stage writing a real table (``table.npz``) and a small JSON summary, counting its computations."""
    def compute(d: Path):
        calls.append(d)
        table.save(d / "table.npz")
        (d / "summary.json").write_text(json.dumps({"n": table.n_features}))
        return {"table": "table.npz", "summary": "summary.json"}, {"n": table.n_features}

    return store.run("table", {"dataset": "bundled/DM-BP"}, compute)


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize("damage", ["truncate", "same-size", "delete"])
def test_a_damaged_file_is_recomputed_with_a_warning_naming_it(tmp_path, table, caplog, damage):
    """`truncate -s 10000 table.npz` (or a flipped byte, or a deleted file) is never reused."""
    store, calls = Store(tmp_path / "store"), []
    first = _table_stage(store, table, calls)
    npz = Path(first.dir) / "table.npz"
    good = npz.read_bytes()
    if damage == "truncate":
        os.truncate(npz, 10_000)
    elif damage == "same-size":
        npz.write_bytes(good[:-100] + bytes(b ^ 0xFF for b in good[-100:]))
    else:
        npz.unlink()
    with caplog.at_level(logging.WARNING, logger="kg.store.store"):
        again = _table_stage(store, table, calls)
    assert not again.reused and len(calls) == 2
    assert any(str(npz) in m and "table stage again" in m for m in _warnings(caplog)), _warnings(caplog)
    assert again.hash == first.hash  # the same arrays again
    assert (FeatureTable.load(npz).X != table.X).nnz == 0
    # and now it is whole again: reused, silently
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="kg.store.store"):
        assert _table_stage(store, table, calls).reused and len(calls) == 2
    assert _warnings(caplog) == []


def test_an_unreadable_record_is_recomputed(tmp_path, table, caplog):
    store, calls = Store(tmp_path / "store"), []
    first = _table_stage(store, table, calls)
    rec_path = Path(first.dir) / "record.json"
    os.truncate(rec_path, 20)
    with caplog.at_level(logging.WARNING, logger="kg.store.store"):
        assert not _table_stage(store, table, calls).reused
    assert any(str(rec_path) in m for m in _warnings(caplog))


def test_an_edited_record_that_stays_valid_json_is_recomputed(tmp_path, table, caplog):
    """issue 30: `n_selected` 105 -> 104 in a record.json (valid JSON, its files untouched) was reused, so the
    console said one thing and the CSV another. The record carries its own sha256."""
    store, calls = Store(tmp_path / "store"), []
    first = _table_stage(store, table, calls)
    rec_path = Path(first.dir) / "record.json"
    data = json.loads(rec_path.read_text())
    data["summary"]["n"] -= 1  # as n_selected 105 -> 104
    rec_path.write_text(json.dumps(data, indent=1, sort_keys=True))
    assert [p.file.name for p in store.verify()] == ["record.json"]
    with caplog.at_level(logging.WARNING, logger="kg.store.store"):
        again = _table_stage(store, table, calls)
    assert not again.reused and len(calls) == 2 and again.summary == first.summary
    assert any(str(rec_path) in m and "changed since it was written" in m for m in _warnings(caplog))
    assert store.verify() == [] and _table_stage(store, table, calls).reused  # whole again


def test_verify_lists_what_is_bad_and_can_remove_it(tmp_path, table):
    store, calls = Store(tmp_path / "store"), []
    rec = _table_stage(store, table, calls)
    other = store.run("select", {"k": 1}, lambda d: ({"s": "s.csv"}, {"n": (d / "s.csv").write_text("a,b\n")}))
    unfinished = store.folder("select", "f" * 64)
    unfinished.mkdir(parents=True)  # being computed, or interrupted: not a problem
    assert store.verify() == [] and record_valid(rec, verify=True)

    os.truncate(Path(rec.dir) / "table.npz", 10_000)
    (Path(other.dir) / "record.json").write_text("{")
    problems = store.verify()
    assert {(p.folder.name, p.file.name) for p in problems} == {
        (Path(rec.dir).name, "table.npz"), (Path(other.dir).name, "record.json")}
    assert all(isinstance(p, records_mod.StoreProblem) and str(p.file) in str(p) for p in problems)
    assert not record_valid(rec, verify=True) and record_valid(rec)  # the files are there, one changed

    assert len(store.verify(remove=True)) == 2
    assert store.verify() == [] and not Path(rec.dir).exists() and unfinished.is_dir()
    assert not _table_stage(store, table, calls).reused


def test_keys_cover_the_dependencies_versions(monkeypatch):
    from kg.store import keys

    before = keys.code_digest()
    versions = keys.dependency_versions()
    monkeypatch.setattr(keys, "_DIGESTS", {})
    monkeypatch.setattr(keys, "dependency_versions", lambda: {**versions, "scikit-learn": "0.0"})
    assert keys.code_digest() != before


def test_a_code_edit_anywhere_changes_stage_and_cell_keys(tmp_path):
    """Editing selection/measures/paths.py (which no hand-kept list named) gives new stage and cell keys,
    in a fresh process importing kgfs from a copy of the tree."""
    tree = tmp_path / "tree"
    for root in (Path(importlib.util.find_spec(name).origin).parent for name in ("kg", "selection", "flows")):
        shutil.copytree(root, tree / root.name, ignore=shutil.ignore_patterns("__pycache__"))
    code = (
        "import flows.stages as s\n"
        "from kg.store import code_version\n"
        "from selection.evaluation.grid import cell_key\n"
        "from selection.evaluation.plan import plan_evaluation\n"
        f"assert s.__file__.startswith({str(tree)!r}), s.__file__\n"
        "print(code_version('select', s.selector_modules(['shsel-ig-prune'])))\n"
        "print(code_version('evaluate', s.selector_modules(['shsel-ig-prune', 'complete'])))\n"
        "plan = plan_evaluation('basic', ['shsel-ig-prune'], ['nb'])\n"
        "print(cell_key(plan, 'd', 'f', plan.selectors[0], plan.classifiers[0], 0))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tree)}

    def keys() -> list[str]:
        proc = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc.stdout.split()

    before = keys()
    assert len(before) == 3 and keys() == before  # stable across processes
    paths = tree / "selection" / "measures" / "paths.py"
    paths.write_text(paths.read_text().replace("def ", "def _unused_edit():\n    pass\n\n\ndef ", 1))
    after = keys()
    assert all(a != b for a, b in zip(after, before)), (before, after)


# ---------------------------------------------------------------- issue 27: one copy of identical content
def _write(name: str, text: str):
    def compute(d: Path):
        (d / name).write_text(text)
        return {"f": name}, {}
    return compute


def test_identical_content_is_stored_once(tmp_path):
    store = Store(tmp_path / "store")
    a = store.run("export", {"threshold": 0.9}, _write("table.arff", "x" * 10_000))
    b = store.run("export", {"threshold": 0.8}, _write("table.arff", "x" * 10_000))  # another key, the same bytes
    c = store.run("export", {"threshold": 0.7}, _write("table.arff", "y" * 10_000))
    fa, fb, fc = a.path("f"), b.path("f"), c.path("f")
    assert a.dir != b.dir and fa.stat().st_ino == fb.stat().st_ino != fc.stat().st_ino
    assert store.blob(a.sha256["f"]).stat().st_ino == fa.stat().st_ino and fa.stat().st_nlink == 3
    blocks = sum(p.stat().st_size for p in {p.stat().st_ino: p for p in (tmp_path / "store").rglob("*.arff")}.values())
    assert blocks == 20_000  # two contents, each once
    assert store.verify() == [] and store.lookup("export", {"threshold": 0.8}).reused


def test_a_recomputed_stage_never_writes_into_a_shared_blob(tmp_path):
    store = Store(tmp_path / "store")
    a = store.run("s", {"k": 1}, _write("f.txt", "same"))
    b = store.run("s", {"k": 2}, _write("f.txt", "same"))
    assert a.path("f").stat().st_ino == b.path("f").stat().st_ino
    # computed again in its folder by a writer that opens the file in place: the other stage keeps its content
    again = store.run("s", {"k": 1}, _write("f.txt", "other"), force=True)
    assert again.path("f").read_text() == "other" and b.path("f").read_text() == "same"
    assert store.verify() == []


def test_clear_and_verify_remove_blobs_nothing_uses(tmp_path):
    store = Store(tmp_path / "store")
    a = store.run("s", {"k": 1}, _write("f.txt", "one"))
    store.run("t", {"k": 1}, _write("g.txt", "two"))
    assert len(list((tmp_path / "store" / "blobs").rglob("*"))) == 4  # 2 folders, 2 blobs
    store.clear("t")
    assert [p.name for p in (tmp_path / "store" / "blobs").rglob("*") if p.is_file()] == [a.sha256["f"]]
    a.path("f").write_text("ONE")  # damaged in place: the stage's file and its blob are one
    assert [p.file.name for p in store.verify()] == ["f.txt"]
    store.verify(remove=True)
    assert not [p for p in (tmp_path / "store" / "blobs").rglob("*") if p.is_file()] and store.records() == []
    again = store.run("s", {"k": 1}, _write("f.txt", "one"))
    assert not again.reused and again.path("f").read_text() == "one" and store.verify() == []


def test_a_stage_that_fails_before_writing_leaves_no_empty_folder(tmp_path):
    store = Store(tmp_path)

    def fails(d):
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        store.run("table", {"x": 1}, fails)
    assert not store.folder("table", stage_key("table", {"x": 1})).exists()

    def writes_then_fails(d):
        (d / "part.npy").write_bytes(b"piece")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        store.run("table", {"x": 2}, writes_then_fails)
    # the pieces of an interrupted attempt stay for the next one (they are never reused as a result)
    d = store.folder("table", stage_key("table", {"x": 2}))
    assert (d / "part.npy").is_file() and not (d / "record.json").exists()
    assert store.lookup("table", {"x": 2}) is None
