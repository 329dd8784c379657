"""run_grid: outputs, resumability, parallel == serial, progress, failures, early errors."""

import json

import pandas as pd
import pytest

from kg.errors import KgfsError
from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable
from selection.evaluation.grid import run_grid
from selection.evaluation.plan import plan_evaluation
from selection.evaluation.report import ReportSettings
from selection.registry import available_selectors

TIMING = ["select_seconds", "classify_seconds"]


@pytest.fixture(scope="module")
def tables(shared_data):
    from kg.datasets import load_dataset

    return {n: load_dataset(n, mirror=shared_data, check="repair") for n in ("lod/Cities", "rpv/DM-MF")}


def grid(datasets, selectors, classifiers, *, protocol="basic", n_splits=None, random_state=0, plots=True, **kw):
    """run_grid of the plan of these methods (what kgfs evaluate does)."""
    plan = plan_evaluation(protocol, selectors, classifiers, n_splits=n_splits, random_state=random_state)
    return run_grid(datasets, plan, report=ReportSettings(plots=plots), **kw)


def _selectors():
    names = ["complete"]
    if "shsel-ig-prune" in available_selectors():
        names.append("shsel-ig-prune")
    return names


def test_outputs_and_resume(tables, tmp_path):
    seen = []
    r = grid(tables, _selectors(), ["nb"], protocol="basic", out_dir=tmp_path, n_jobs=1, n_splits=3,
                 progress=lambda d, t: seen.append((d, t)))
    n = 2 * len(_selectors()) * 3
    assert r.n_cells == n and r.n_computed == n and r.n_reused == 0
    for p in (r.results, r.summary, r.stats, r.report, *r.plots):
        assert p.exists() and p.stat().st_size > 0
    df = pd.read_csv(r.results)
    assert len(df) == n and (df["status"] == "ok").all()
    assert seen[0] == (0, n) and seen[-1] == (n, n)
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))
    # one file per cell, each a finished row
    cells = sorted((tmp_path / "cells").glob("*.json"))
    assert len(cells) == n
    assert json.loads(cells[0].read_text())["rows"][0]["status"] == "ok"

    # nothing is recomputed on a second run
    r2 = grid(tables, _selectors(), ["nb"], protocol="basic", out_dir=tmp_path, n_jobs=1, n_splits=3,
                  plots=False)
    assert r2.n_computed == 0 and r2.n_reused == n
    # an interruption that lost two cells: only those two are computed again, with the same values
    cells[0].unlink()
    cells[5].unlink()
    r3 = grid(tables, _selectors(), ["nb"], protocol="basic", out_dir=tmp_path, n_jobs=1, n_splits=3,
                  plots=False)
    assert r3.n_computed == 2
    pd.testing.assert_frame_equal(pd.read_csv(r3.results).drop(columns=TIMING), df.drop(columns=TIMING))
    # another seed is another grid
    r4 = grid(tables, ["complete"], ["nb"], protocol="basic", out_dir=tmp_path, n_jobs=1, n_splits=3,
                  random_state=5, plots=False)
    assert r4.n_computed == 2 * 3


@pytest.mark.slow  # starts joblib worker processes (5-10 s on a busy machine)
def test_parallel_equals_serial(tables, tmp_path):
    a = grid(tables, _selectors(), ["nb", "1nn"], out_dir=tmp_path / "a", n_jobs=1, n_splits=3, plots=False)
    b = grid(tables, _selectors(), ["nb", "1nn"], out_dir=tmp_path / "b", n_jobs=2, n_splits=3, plots=False)
    pd.testing.assert_frame_equal(pd.read_csv(a.results).drop(columns=TIMING),
                                  pd.read_csv(b.results).drop(columns=TIMING))


def test_names_loaded_with_the_load_callable(tables, tmp_path):
    loaded = []

    def load(name):
        loaded.append(name)
        return tables[name]

    r = grid(["lod/Cities"], ["complete"], ["nb"], out_dir=tmp_path, n_jobs=1, n_splits=3, load=load,
                 plots=False)
    assert loaded == ["lod/Cities"]
    assert set(pd.read_csv(r.results)["dataset"]) == {"lod/Cities"}


def test_small_class_fails_before_any_cell(tables, tmp_path):
    h = FeatureHierarchy.from_edges([("b", "a")], nodes=["a", "b"])
    tiny = FeatureTable.from_facts({f"i{i}": ["b"] for i in range(20)}, h,
                                   labels={f"i{i}": int(i < 4) for i in range(20)})
    with pytest.raises(KgfsError, match="'tiny': class 1 has 4"):
        grid({**tables, "tiny": tiny}, ["complete"], ["nb"], out_dir=tmp_path, n_jobs=1)
    assert not list((tmp_path / "cells").glob("*.json")) if (tmp_path / "cells").exists() else True


def test_failed_cells_are_reported_and_the_grid_goes_on(tables, tmp_path):
    if "shsel-ig-prune" not in available_selectors():
        pytest.skip("shsel-ig-prune not registered yet")
    bad = ("shsel-ig-prune", {"relevance": "nonsense"})  # the selector raises ValueError in fit
    r = grid(tables, ["complete", bad], ["nb"], out_dir=tmp_path, n_jobs=1, n_splits=3, plots=False)
    df = pd.read_csv(r.results)
    failed = df[df["status"] == "failed"]
    assert len(failed) == 2 * 3 and r.n_failed == 6
    assert failed["error"].str.contains("relevance").all()
    assert (df[df["selector"] == "complete"]["status"] == "ok").all()
    rep = r.report.read_text()
    assert "failed" in rep and "relevance" in rep


def test_a_lazy_selector_is_scored_only_by_the_classifiers_that_take_masks(tables, tmp_path):
    """hip x logreg is no cell (it was a failed one); the report says which pairs were not scored, and why."""
    data = {"lod/Cities": tables["lod/Cities"]}
    r = grid(data, ["hip", "complete"], ["nb", "logreg"], out_dir=tmp_path, n_jobs=1, n_splits=3, plots=False)
    df = pd.read_csv(r.results)
    assert (df["status"] == "ok").all() and r.n_failed == 0
    pairs = sorted(set(zip(df["selector"], df["classifier"])))
    assert pairs == [("complete", "logreg"), ("complete", "nb"), ("hip", "nb")]
    assert r.n_cells == 3 * 3 and len(list((tmp_path / "cells").glob("*.json"))) == 9
    assert "Not scored: hip with logreg (its features are per-instance masks" in r.report.read_text()
    again = grid(data, ["hip", "complete"], ["nb", "logreg"], out_dir=tmp_path, n_jobs=1, n_splits=3, plots=False)
    assert again.n_computed == 0 and again.n_reused == 9


def _toy():
    h = FeatureHierarchy.from_edges([("b", "a")], nodes=["a", "b", "c"])
    facts = {f"i{i}": (["b"] if i % 2 else ["c"]) for i in range(20)}
    return {"toy": FeatureTable.from_facts(facts, h, labels={f"i{i}": i % 2 for i in range(20)})}


def _flip_accuracy_bit(text: str) -> str:
    """One bit flipped in the last digit of the first accuracy: the JSON stays valid (issue 30: it was reused)."""
    i = text.index('"accuracy": ') + len('"accuracy": ')
    while text[i + 1].isdigit() or text[i + 1] == ".":
        i += 1
    assert text[i].isdigit()
    return text[:i] + chr(ord(text[i]) ^ 1) + text[i + 1:]


@pytest.mark.parametrize("damage", ["truncate", "empty", "other-key", "not-a-cell", "bit-flip"])
def test_corrupt_cell_is_computed_again_with_a_warning(tmp_path, caplog, damage):
    """A truncated, foreign or edited cell file never blocks the grid nor is reused: it is recomputed, and the
    warning names it."""
    first = grid(_toy(), ["complete"], ["nb"], out_dir=tmp_path, n_jobs=1, n_splits=2, plots=False)
    cells = sorted((tmp_path / "cells").glob("*.json"))
    bad = cells[0]
    text = bad.read_text()
    bad.write_text({"truncate": text[:20], "empty": "", "other-key": text.replace(bad.stem, "0" * 32),
                    "not-a-cell": "[1, 2]",
                    "bit-flip": _flip_accuracy_bit(text) if damage == "bit-flip" else ""}[damage])
    assert bad.read_text() != text
    with caplog.at_level("WARNING", logger="selection.evaluation.grid"):
        again = grid(_toy(), ["complete"], ["nb"], out_dir=tmp_path, n_jobs=1, n_splits=2, plots=False)
    assert again.n_computed == 1 and again.n_reused == 1
    assert any(str(bad) in r.getMessage() for r in r_warnings(caplog))
    assert json.loads(bad.read_text())["key"] == bad.stem  # rewritten whole
    pd.testing.assert_frame_equal(again.frame().drop(columns=TIMING), first.frame().drop(columns=TIMING))


def r_warnings(caplog):
    return [r for r in caplog.records if r.levelname == "WARNING"]


def test_cell_keys_change_with_any_kgfs_source(tmp_path, monkeypatch):
    """Editing a module no list names (the path rules of selection/measures/paths.py) gives new cell keys."""
    import shutil

    from kg.store import keys
    from selection.evaluation.grid import cell_key

    roots = []
    for root in keys._package_roots():
        roots.append(tmp_path / root.name)
        shutil.copytree(root, roots[-1], ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(keys, "_package_roots", lambda: roots)
    monkeypatch.setattr(keys, "_DIGESTS", {})
    plan = plan_evaluation("basic", ["shsel-ig-prune"], ["nb"])
    kw = dict(plan=plan, dataset="d", fingerprint="f", selector=plan.selectors[0], classifier=plan.classifiers[0],
              fold=0)
    before = cell_key(**kw)
    assert cell_key(**kw) == before
    paths = tmp_path / "selection" / "measures" / "paths.py"
    paths.write_text(paths.read_text() + "\n# an edit\n")
    keys._DIGESTS.clear()  # a new process
    assert cell_key(**kw) != before
