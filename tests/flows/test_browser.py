"""The Prefect UI tells each run's story: a real browser (headless Chromium) against the home's server.

Two `kgfs run`s on the bundled data (the default, then ``--param threshold=0.9``, whose selection
keeps only the GO root) leave the home's Prefect server running; the browser then checks the runs
list (names, tags, cache outcome), the run page (stage names, the flow's INFO log lines), the
report (headline results, the degenerate-selection warning, the plots as images that load) and the
evaluation table (a few rounded columns that fit the page). Screenshots go to ``$KGFS_SCREENSHOTS``
(when set) or the test's folder. Needs Debian's chromium (``.ci/setup-chromium.sh``) and the
``playwright`` package (never its own browser download).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
# as root, in a sandbox with no network: no sandbox, no GPU, nothing that calls out (it would wait on it)
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.integration


def _need_browser():
    missing = [] if Path(CHROMIUM).is_file() else [f"{CHROMIUM} (.ci/setup-chromium.sh)"]
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("the playwright package (pip install playwright)")
    if missing and os.environ.get("CI"):
        pytest.fail("the browser test needs " + " and ".join(missing))
    if missing:
        pytest.skip("needs " + " and ".join(missing))


def _api(url: str, path: str, body: dict) -> list:
    req = urllib.request.Request(f"{url}/api/{path}", data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:  # noqa: S310 - 127.0.0.1
        return json.load(r)


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """The two runs in a fresh folder; yields the server's UI address and the runs (newest first)."""
    from flows.server import local as server

    _need_browser()
    d = tmp_path_factory.mktemp("ui")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "KGFS_HOME"))}
    env["KGFS_SERVER_PORT"] = "0"
    session_server = os.environ["KGFS_SERVER_DIR"]
    env["KGFS_SERVER_DIR"] = os.environ["KGFS_SERVER_DIR"] = str(d / "server")  # its own: only these two runs
    try:
        for args in ([], ["--param", "threshold=0.9"]):
            proc = subprocess.run([sys.executable, "-m", "flows.cli", "run", *args], cwd=d, env=env,
                                  capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
            assert proc.returncode == 0, proc.stderr[-3000:]
        assert "degenerate selection: only roots of the hierarchy were kept" in proc.stderr
        info = server.find_server(d / ".kgfs")
        runs = _api(info.ui_url, "flow_runs/filter", {"sort": "START_TIME_DESC",
                                                      "flow_runs": {"parent_task_run_id": {"is_null_": True}}})
        yield info.ui_url, runs, d
    finally:
        server.stop_server(d / ".kgfs")
        os.environ["KGFS_SERVER_DIR"] = session_server


@pytest.fixture(scope="module")
def page(two_runs):
    from playwright.sync_api import sync_playwright

    shots = Path(os.environ.get("KGFS_SCREENSHOTS") or two_runs[2] / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pg = browser.new_page(viewport={"width": 1400, "height": 1000})

        def visit(url: str, name: str, tab: str | None = None, until: str | None = None) -> str:
            pg.goto(url, wait_until="networkidle")
            if until:  # the UI renders its lists after its API calls: on a loaded machine that takes a while
                pg.get_by_text(until).first.wait_for(timeout=60_000)
            pg.wait_for_timeout(1500)
            if tab:
                pg.get_by_text(tab, exact=True).last.click()
                pg.wait_for_timeout(1500)
            pg.screenshot(path=str(shots / f"{name}.png"))
            return pg.inner_text("body")

        pg.visit = visit
        yield pg
        browser.close()


def test_runs_are_named_and_tagged_by_dataset_selector_route_and_cache(two_runs, page):
    ui, runs, _ = two_runs
    assert [r["name"] for r in runs] == ["bundled/DM-BP · shsel-ig-prune threshold=0.9",
                                         "bundled/DM-BP · shsel-ig-prune"]
    assert {"dataset:bundled/DM-BP", "selector:shsel-ig-prune", "route:ontology", "cache:partial"} <= set(
        runs[0]["tags"])
    assert "cache:none" in runs[1]["tags"] and "degenerate-selection" in runs[0]["tags"]
    assert runs[0]["state"]["message"] == (
        "2 of 5 stages from the store (facts, table); degenerate selection: only roots "
        "of the hierarchy were kept; every kept feature is constant over the instances")
    assert runs[0]["tags"][0] == "cache:partial" and runs[1]["tags"][0] == "cache:none"
    # the list shows the names, and of each run's tags (sorted by the UI) the last that fit, with "+N" for the rest
    text = page.visit(f"{ui}/runs", "runs", until="bundled/DM-BP · shsel-ig-prune threshold=0.9")
    for expected in ("bundled/DM-BP · shsel-ig-prune threshold=0.9", "bundled/DM-BP · shsel-ig-prune",
                     "selector:shsel-ig-prune"):
        assert expected in text, expected


def test_run_page_shows_stage_names_and_the_flows_info_logs(two_runs, page):
    ui, runs, _ = two_runs
    first = page.visit(f"{ui}/runs/flow-run/{runs[1]['id']}", "run-first", until="outputs in")
    assert "select: computed in" in first and "105 of 699 kept" in first and "outputs in" in first
    second = page.visit(f"{ui}/runs/flow-run/{runs[0]['id']}", "run-second", until="degenerate selection")
    assert "facts: from the store" in second and "table: from the store" in second
    assert "degenerate selection: only roots of the hierarchy were kept" in second
    # task runs carry the report's stage names
    tasks = _api(ui, "task_runs/filter", {"flow_runs": {"id": {"any_": [runs[0]["id"]]}}})
    assert {"facts", "table", "select", "export"} <= {t["name"] for t in tasks}


def test_report_has_results_warnings_and_plots_that_load(two_runs, page):
    ui, runs, _ = two_runs
    query = {"artifacts": {"flow_run_id": {"any_": [runs[0]["id"]]}}}
    arts = {a["key"]: a for a in _api(ui, "artifacts/filter", query)}
    assert set(arts) == {"kgfs-run-report-bundled-dm-bp", "evaluation-summary-bundled-dm-bp",
                         "selected-features-bundled-dm-bp"}
    text = page.visit(f"{ui}/artifacts/artifact/{arts['kgfs-run-report-bundled-dm-bp']['id']}", "report",
                      until="features kept")
    assert "kgfs run: bundled/DM-BP · shsel-ig-prune threshold=0.9" in text
    assert "1 of 699 features kept" in text and "Warning: only roots of the hierarchy were kept" in text
    assert "GO:0008150 biological_process" in text and "2 of 5 stages from the store" in text
    assert "Cross-validation (10 folds, mean ± sd over the folds;" in text and "/.kgfs/store/evaluate/" in text
    images = page.eval_on_selector_all("img[src^='data:image/png']", "els => els.map(e => e.naturalWidth)")
    assert len(images) >= 2 and min(images) > 100, images  # the plots are shown, not local paths
    table = page.visit(f"{ui}/artifacts/artifact/{arts['evaluation-summary-bundled-dm-bp']['id']}", "evaluation",
                       until="features kept (CV mean)")
    assert re.search(r"\b0\.\d{3} ± 0\.\d{3}\b", table) and "features kept (CV mean)" in table
    # the columns read first fit a 1400 px window: the note (degenerate, baseline) beside the method, then the
    # accuracy; the table scrolls for the rest
    heads = page.eval_on_selector_all(
        "th", "els => els.map(e => [e.innerText.trim(), e.getBoundingClientRect().right])")
    right = dict(heads)
    assert [h for h, _ in heads][:3] == ["selector", "classifier", "note"] and right["accuracy"] <= 1400, heads
    assert "DEGENERATE selection: only roots; constant (10/10 folds)" in table
    shots = {p.name for p in (Path(os.environ.get("KGFS_SCREENSHOTS") or two_runs[2] / "screenshots")).iterdir()}
    assert {"runs.png", "run-first.png", "run-second.png", "report.png", "evaluation.png"} <= shots
