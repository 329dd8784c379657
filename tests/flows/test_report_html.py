"""report.html in a real browser (headless Chromium, as tests/flows/test_browser.py): issue 27.

Two `kgfs run`s on the bundled data (the default, and ``--param threshold=0.9``, whose selection keeps only the
GO root) each leave a ``report.html``; the browser opens it from the file, with every request outside the file
refused, and checks what a scientist reads: the degenerate row beside the majority-class baseline (0.717), the
spread, the statistics, the plots (inline images that decode), and the selected hierarchy (open on the kept
features, expand and collapse all, a search that reveals a feature, a DAG feature shown once with its other
parents as links); the console has no error. A hierarchy of thousands of features opens and expands in a few
seconds. The Prefect report artifact links to the file. Screenshots go to ``$KGFS_SCREENSHOTS`` (when set) or
the test's folder. Needs Debian's chromium (``.ci/setup-chromium.sh``) and the ``playwright`` package.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from tests.flows.test_browser import ARGS, CHROMIUM, _need_browser

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The two runs in a fresh folder: their output folders, and the home's Prefect UI address."""
    from flows.server import local as server

    _need_browser()
    d = tmp_path_factory.mktemp("html")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "KGFS_HOME"))}
    env["KGFS_SERVER_PORT"] = "0"
    try:
        outs = {}
        for name, args in (("default", []), ("threshold-0.9", ["--param", "threshold=0.9"])):
            proc = subprocess.run([sys.executable, "-m", "flows.cli", "run", *args, "--out", name], cwd=d, env=env,
                                  capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
            assert proc.returncode == 0, proc.stderr[-3000:]
            assert f"report: {d / name / 'report.html'}" in proc.stdout
            outs[name] = d / name
        yield outs, server.find_server(d / ".kgfs").ui_url, d
    finally:
        server.stop_server(d / ".kgfs")


@pytest.fixture(scope="module")
def browser(runs):
    from playwright.sync_api import sync_playwright

    shots = Path(os.environ.get("KGFS_SCREENSHOTS") or runs[2] / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b, shots
        b.close()


def _open(browser, path: Path, viewport=(1300, 1000)):
    """A page of ``path`` that may load nothing but the file; returns it and its console errors."""
    b, _shots = browser
    page = b.new_page(viewport={"width": viewport[0], "height": viewport[1]})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    outside: list[str] = []

    def route(r):
        if r.request.url.startswith(("file:", "data:")):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.goto(path.as_uri(), wait_until="load")
    page.wait_for_timeout(300)
    page.outside = outside
    return page, errors


def test_the_degenerate_run_reads_at_a_glance(runs, browser):
    page, errors = _open(browser, runs[0]["threshold-0.9"] / "report.html")
    assert page.inner_text("h1") == "kgfs run: bundled/DM-BP · shsel-ig-prune threshold=0.9"
    # issue 38: the page opens with its answer, above the links to its sections
    answer = page.inner_text("div.answer")
    assert answer.startswith("No method beats the majority class on accuracy (0.717): the best, ") and \
        "95% interval [" in answer
    assert page.evaluate("document.querySelector('div.answer').getBoundingClientRect().top") < \
        page.evaluate("document.querySelector('nav.toc').getBoundingClientRect().top")
    warn = page.inner_text("div.warning")
    assert "Degenerate selection" in warn and "only roots of the hierarchy were kept" in warn
    degenerate = page.inner_text("#summary tr.degenerate")
    assert "0.717 ± 0.033" in degenerate and "degenerate" in degenerate and "only roots; constant (10/10 folds)" in \
        degenerate
    baseline = page.inner_text("#summary tr.baseline")
    assert "majority class" in baseline and "0.717 ± 0.033" in baseline and "0 ± 0 of 699" in baseline
    complete = page.inner_text("#summary tbody tr:nth-child(2)")
    assert "complete" in complete and "0.701 ± 0.108" in complete
    body = page.inner_text("body")
    assert "corrected resampled t-test" in body and "no significant difference" in body
    widths = page.eval_on_selector_all("img", "els => els.map(e => e.naturalWidth)")
    assert len(widths) == 8 and min(widths) > 100  # every plot inline, decoded
    tree = page.inner_text("#kgfs-tree")
    assert "GO:0008150" in tree and "biological_process" in tree and "support 127" in tree
    page.screenshot(path=str(browser[1] / "report-degenerate.png"), full_page=False)
    assert errors == [] and page.outside == []


def test_the_selected_hierarchy_is_explorable(runs, browser):
    page, errors = _open(browser, runs[0]["default"] / "report.html")
    page.locator("#kgfs-tree-section").scroll_into_view_if_needed()
    data = json.loads(page.inner_text("#kgfs-tree-data").replace("<\\/", "</"))
    kept = sum(data["sel"])
    assert kept == 105 and data["n_shown"] > kept
    # at start the way to every kept feature is open: each kept one is on the page, once
    assert page.locator("#kgfs-tree .kept").count() == kept
    page.screenshot(path=str(browser[1] / "report-hierarchy.png"), full_page=False)
    # a DAG feature with several shown parents: shown once, its other parents are links that reveal them
    k = next(k for k, o in enumerate(data["others"]) if o)
    other = data["others"][k][0]
    node = page.locator(f"#kgfs-node-{k} > summary .also a").first
    node.scroll_into_view_if_needed()
    node.click()
    assert page.locator(f"#kgfs-node-{other} > summary").evaluate("e => e.classList.contains('hit')")
    # search by name: reveal a feature (collapsed first: the search opens the way to it)
    page.click("#kgfs-tree-collapse")
    target = max((k for k in range(len(data["id"])) if data["name"][k] and data["primary"][k] >= 0),
                 key=lambda k: len(data["name"][k]))
    page.fill("#kgfs-tree-search", data["name"][target])
    page.locator("#kgfs-tree-matches a").first.click()
    hit = page.locator("#kgfs-tree summary.hit")
    assert hit.count() == 1 and data["name"][target] in hit.inner_text() and hit.is_visible()
    # expand everything, then collapse everything
    page.click("#kgfs-tree-expand")
    assert page.locator("#kgfs-tree details").count() == data["n_shown"]
    assert page.locator("#kgfs-tree details[open]").count() == sum(1 for kids in data["kids"] if kids)
    page.click("#kgfs-tree-collapse")
    assert page.locator("#kgfs-tree details[open]").count() == 0
    assert errors == [] and page.outside == []
    page.close()
    # the whole page, for the README (docs/report-html.png is one of these)
    page, errors = _open(browser, runs[0]["default"] / "report.html", viewport=(1300, 1500))
    page.screenshot(path=str(browser[1] / "report-top.png"), full_page=False)
    assert errors == []


def test_thousands_of_features_open_and_expand_quickly(runs, browser, tmp_path):
    """A DAG of 6,000 features with multiple inheritance, half of them kept: the page opens and expands."""
    from kg.formats.tree_html import hierarchy_view
    from kg.hierarchy import FeatureHierarchy
    from selection.evaluation.html import page as html_page

    rng = np.random.default_rng(0)
    n = 6000
    edges = [(f"c{i}", f"c{p}") for i in range(1, n) for p in set(rng.integers(0, i, size=min(i, 3)).tolist())]
    h = FeatureHierarchy.from_edges(edges, nodes=[f"c{i}" for i in range(n)])
    sel = rng.random(n) < 0.5
    path = tmp_path / "big.html"
    path.write_text(html_page("big", [hierarchy_view(h, selected=sel, support=np.arange(n))]), encoding="utf-8")
    t0 = time.perf_counter()
    page, errors = _open(browser, path)
    opened = time.perf_counter() - t0
    data = json.loads(page.inner_text("#kgfs-tree-data"))
    assert data["n_shown"] > 3000 and sum(map(len, data["others"])) > 3000  # a DAG: many extra parents, links
    t0 = time.perf_counter()
    page.click("#kgfs-tree-expand")
    assert page.locator("#kgfs-tree details").count() == data["n_shown"]
    expanded = time.perf_counter() - t0
    assert opened < 20 and expanded < 30, (opened, expanded)  # seconds, on 2 shared cores
    page.screenshot(path=str(browser[1] / "report-big-hierarchy.png"), full_page=False)
    assert errors == []


def test_the_prefect_report_links_to_report_html(runs):
    _outs, ui, _d = runs
    req = urllib.request.Request(f"{ui}/api/artifacts/filter", data=json.dumps({"sort": "CREATED_DESC"}).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:  # noqa: S310 - 127.0.0.1
        arts = json.load(r)
    reports = [a for a in arts if a["key"] == "kgfs-run-report-bundled-dm-bp"]
    assert reports and all("report.html" in a["data"] and "file://" in a["data"] for a in reports)
    assert any(str(runs[0]["threshold-0.9"] / "report.html") in a["data"] for a in reports)


def test_report_md_links_point_at_files_that_are_there(runs):
    """Issue 27: report.md linked `bars_accuracy_nb.png` while the images were in plots/."""
    import re

    for out in runs[0].values():
        links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", (out / "report.md").read_text())
        assert len(links) == 8 and all(link.startswith("plots/") and (out / link).is_file() for link in links)
        assert {"baseline.csv", "stats.md", "report.html"} <= {p.name for p in out.iterdir()}
