"""Bad input of every kind, through the `kgfs` entry point: one line on stderr, exit status 1, no
traceback, nothing written.

Each case is ``(id, argv builder, expected text)``; the builder gets a folder of prepared inputs
and returns the arguments. The output folder or file of every case must not exist afterwards (or
be left as it was), so a failed command never leaves a partial table or report behind. None of
these start Prefect: `kgfs run` checks its input before it imports the pipeline (shown in a real
process where importing Prefect is made impossible).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from flows.cli import build_parser, main

BUNDLED = Path(__file__).resolve().parents[2] / "datasets" / "bundled" / "DM-BP"
OBO, ANN, LAB = BUNDLED / "go-2014-06-13-subset.obo.gz", BUNDLED / "annotations.tsv", BUNDLED / "labels.tsv"
GO = ["--obo", str(OBO), "--annotations", str(ANN), "--labels", str(LAB)]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """Bad (and a few good) input files, and a table folder built from the bundled data."""
    d = tmp_path_factory.mktemp("inputs")
    (d / "a_folder").mkdir()
    (d / "broken.obo").write_text("format-version: 1.2\n\n[Term]\nid: GO:0000001\nthis line is broken\n")
    (d / "latin1.obo").write_bytes(b"format-version: 1.2\n[Term]\nid: GO:1\nname: caf\xe9\n")
    (d / "no_label.tsv").write_text("gene\tlabel\n7\n")
    (d / "unknown_term.tsv").write_text("g1\tGO:0008150\ng2\tGO:9999999\n")
    (d / "nonbinary.csv").write_text("id,a,b,label\nx,1,2,1\ny,0,1,0\n")
    (d / "ok.csv").write_text("id,a,b,label\nx,1,0,1\ny,0,1,0\n")
    (d / "latin1.csv").write_bytes(b"id,a,label\nx\xe9,1,1\n")
    (d / "edges.csv").write_text("child,parent\na,z\n")
    (d / "abcd.csv").write_text("id,A,B,C,D,label\n" + "".join(
        f"i{i},1,{i % 3 == 0:d},{i % 5 == 0:d},{i % 7 == 0:d},{i % 2}\n" for i in range(40)))
    (d / "unknown_edges.csv").write_text("child,parent\nB,A\nC,A\nZZZ,A\nD,NOPE\n")
    (d / "corpus.csv").write_text("id,text,label\n1,Chris Gayle scores,1\n2,Obama signs,0\n")
    (d / "a_file").write_text("I am in the way\n")
    (d / "one_class.tsv").write_text("gene\tlabel\n31957\tx\n38058\tx\n")
    # issue 37 point 5: a labels file in latin-1 was read with U+FFFD (a third class 'pro-long\ufffdvit\ufffd')
    (d / "latin1_labels.tsv").write_bytes(LAB.read_text(encoding="utf-8").replace("pro-longevity", "pro-longévité", 1)
                                          .encode("latin-1"))
    (d / "latin1_positives.txt").write_bytes(b"31957\n3\xe98058\n")
    # a table CSV whose last column is no class: `kgfs run` stored the table stage before saying so
    (d / "nolabel.csv").write_text("id,a,b,kind\nx,1,0,1\ny,0,1,0\nz,1,1,0\n")
    assert main(["build", *GO, "--out", str(d / "T")]) == 0
    assert main(["build", "--obo", str(OBO), "--annotations", str(ANN), "--labels", str(d / "one_class.tsv"),
                 "--out", str(d / "T1")]) == 0
    assert main(["build", "--csv", str(d / "nolabel.csv"), "--out", str(d / "TU")]) == 0  # unlabelled, said
    (d / "bad_table").mkdir()
    (d / "bad_table" / "table.npz").write_bytes(b"not an npz file")
    tweet = "306624404287275009 Sports 'Chris Gayle is out'\n"
    (d / "latin1_tweets.txt").write_bytes(tweet.encode() + b"306624404287275010 Sports 'caf\xe9'\n")
    (d / "ragged.csv").write_text("id,text,label\n1,Chris Gayle,1\n2,x,y,z,0\n")
    (d / "junk_tweets.txt").write_text(tweet + "a junk line\n" + "306624404287275010 Politics 'Obama speaks'\n")
    return d


class _NotAService(BaseHTTPRequestHandler):
    """A web server that is neither Spotlight nor a SPARQL endpoint: 404 for everything."""

    def _404(self):
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = _404

    def log_message(self, *args):  # quiet
        pass


@pytest.fixture(scope="module")
def wrong_url():
    """The URL of a live HTTP server on 127.0.0.1 that answers 404 (a wrong --spotlight-url / --sparql-url)."""
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _NotAService)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/rest/annotate"
    srv.shutdown()
    srv.server_close()


def _build(*args):
    return lambda d, out: ["build", *[a(d) if callable(a) else a for a in args], "--out", str(out)]


def _f(name):
    return lambda d: str(d / name)


def _select(*args, table="T"):
    return lambda d, out: ["select", "--table", str(d / table), *args, "--out", str(out)]


def _evaluate(*args, table="T"):
    return lambda d, out: ["evaluate", "--datasets", str(d / table), "--n-jobs", "1", "--no-plots", *args,
                           "--out", str(out)]


def _run(*args):
    return lambda d, out: ["run", *[a(d) if callable(a) else a for a in args], "--out", str(out)]


CASES = [
    # files
    ("obo-missing", _build("--obo", _f("nope.obo"), "--annotations", str(ANN)), "nope.obo: file not found (--obo)"),
    ("obo-is-a-folder", _build("--obo", _f("a_folder"), "--annotations", str(ANN)), "is a directory"),
    ("annotations-missing", _build("--obo", str(OBO), "--annotations", _f("nope.tsv")), "(--annotations)"),
    ("labels-is-a-folder", _build("--obo", str(OBO), "--annotations", str(ANN), "--labels", _f("a_folder")),
     "is a directory, expected a file (--labels)"),
    ("obo-malformed-line", _build("--obo", _f("broken.obo"), "--annotations", str(ANN)), "broken.obo:5:"),
    ("obo-not-utf8", _build("--obo", _f("latin1.obo"), "--annotations", str(ANN)), "latin1.obo:4: not UTF-8"),
    ("labels-without-label-column", _build("--obo", str(OBO), "--annotations", str(ANN), "--labels",
                                           _f("no_label.tsv")), "no_label.tsv:2:"),
    ("csv-not-utf8", _build("--csv", _f("latin1.csv")), "latin1.csv:2: not UTF-8"),
    ("csv-not-binary", _build("--csv", _f("nonbinary.csv")), "nonbinary.csv:2: non-binary value '2'"),
    ("hierarchy-misses-features", _build("--csv", _f("ok.csv"), "--hierarchy", _f("edges.csv")),
     "are not nodes of the hierarchy (--hierarchy)"),
    ("table-folder-missing", _select(table="nope"), "no such table"),
    ("table-file-corrupt", lambda d, out: ["export", "--table", str(d / "bad_table"), "--out", str(out)],
     "not a kgfs table file"),
    # options of the input
    ("unknown-relation", _build(*GO, "--relations", "foo"), "unknown relation 'foo' (--relations); relations in "
                                                            "this file: is_a, negatively_regulates, part_of"),
    ("namespace-not-in-file", _build(*GO, "--namespaces", "CC"), "no term in namespace 'cellular_component' "
                                                                 "(--namespaces)"),
    ("min-support-empties-table", _build(*GO, "--min-support", "1000"), "--min-support 1000"),
    ("unknown-term", _build("--obo", str(OBO), "--annotations", _f("unknown_term.tsv")),
     "GO:9999999"),
    ("two-inputs", _build("--dataset", "bundled/DM-BP", "--obo", str(OBO)), "give one input"),
    ("labels-without-go-files", _build("--dataset", "bundled/DM-BP", "--labels", str(LAB)),
     "--labels applies to the ontology route (--ontology/--obo/--annotations), not to dataset 'bundled/DM-BP'"),
    ("corpus-option-without-corpus", _build("--text-column", "tweet"), "--text-column applies to the DBpedia route"),
    ("go-option-with-corpus", _build("--corpus", _f("corpus.csv"), "--namespaces", "BP"),
     "--namespaces applies to the ontology route"),
    ("hierarchy-without-table", _build("--hierarchy", _f("edges.csv")),
     "--hierarchy applies to your own table (--arff/--csv), not to dataset 'bundled/DM-BP'"),
    ("unknown-dataset", _build("--dataset", "rpv/XX-BP"), "rpv/XX-BP"),
    ("out-is-a-file", lambda d, out: ["build", *GO, "--out", str(d / "a_file")], "is a file, not a folder"),
    ("export-out-is-a-folder", lambda d, out: ["export", "--table", str(d / "T"), "--out", str(d / "a_folder")],
     "is a directory; the export writes one file"),
    # methods and their parameters
    ("unknown-selector", _select("--selector", "magic"), "unknown selector 'magic'; available: adhoc"),
    ("unknown-parameter", _select("--param", "foo=1"), "none of the methods given has a parameter 'foo'"),
    ("parameter-wrong-type", _select("--param", "prune=maybe"), "prune=maybe is not valid: must be bool"),
    ("parameter-out-of-range", _select("--selector", "fisher", "--param", "k=0"), "k=0 is not valid: must be int >= 1"),
    ("parameter-without-value", _select("--param", "threshold"), "--param expects KEY=VALUE"),
    ("single-class", _select(table="T1"), "single class ('x')"),
    ("qualified-parameter-of-another-method", _evaluate("--selectors", "complete", "--param", "fisher.k=3"),
     "'fisher' is not among the methods given"),
    # the evaluation
    ("n-splits-zero", _evaluate("--selectors", "complete", "--n-splits", "0"), "--n-splits must be at least 2"),
    ("n-splits-above-class-size", _evaluate("--selectors", "complete", "--n-splits", "50"),
     "class 'anti-longevity' has 36 member(s), fewer than the 50 folds"),
    ("unknown-option", _evaluate("--selectors", "complete", "--option", "foo=bar"),
     "protocol basic has no option 'foo'; options: pos_label"),
    ("option-bad-choice", _evaluate("--selectors", "shsel-ig", "--protocol", "shsel2014", "--option",
                                    "threshold_choice=sometimes"), "threshold_choice=sometimes is not valid"),
    ("threshold-not-a-number", _evaluate("--selectors", "shsel-ig", "--threshold", "abc"),
     "--threshold must be a number, best-on-test or nested; got 'abc'"),
    ("unknown-protocol", _evaluate("--selectors", "complete", "--protocol", "nope"), "unknown protocol 'nope'"),
    ("unknown-classifier", _evaluate("--selectors", "complete", "--classifiers", "zz"), "unknown classifier 'zz'"),
    ("protocol-method-unknown", _evaluate("--selectors", "complete", "--protocol", "hifsrr2017"),
     "protocol 'hifsrr2017' has no method 'complete'"),
    # kgfs run: all of it before Prefect
    ("run-unknown-relation", _run(*GO, "--relations", "foo"), "unknown relation 'foo'"),
    ("run-unknown-parameter", _run(*GO, "--param", "foo=1"), "none of the methods given has a parameter 'foo'"),
    ("run-n-splits-one", _run(*GO, "--n-splits", "1"), "--n-splits must be at least 2"),
    ("run-lazy-selector-on-the-whole-table", _run(*GO, "--selector", "hip"),
     "--selector hip is a lazy selector (a feature subset per instance, no one subset of the table): compare it"),
    ("run-spotlight-not-a-url", _run("--corpus", _f("corpus.csv"), "--dump", _f("a_folder"), "--annotator",
                                     "spotlight", "--spotlight-url", "localhost:2222/rest"),
     "--spotlight-url 'localhost:2222/rest': not an http(s) URL"),
    ("run-spotlight-refused", _run("--corpus", _f("corpus.csv"), "--dump", _f("a_folder"), "--annotator", "spotlight",
                                   "--spotlight-url", "http://127.0.0.1:9/rest/annotate"),
     "cannot connect to 127.0.0.1:9"),
    ("run-sparql-without-url", _run("--corpus", _f("corpus.csv"), "--kg", "sparql", "--dump", _f("a_folder")),
     "--kg sparql needs --sparql-url"),
    ("run-lexicon-without-dump", _run("--corpus", _f("corpus.csv")), "--annotator lexicon needs --dump"),
    ("run-spotlight-answers-404", lambda d, out, url: ["run", "--corpus", str(d / "corpus.csv"), "--dump",
                                                       str(d / "a_folder"), "--annotator", "spotlight",
                                                       "--spotlight-url", url, "--out", str(out)],
     "not a working DBpedia Spotlight annotate endpoint (answered HTTP 404)"),
    ("build-sparql-answers-404", lambda d, out, url: ["build", "--corpus", str(d / "corpus.csv"), "--dump",
                                                      str(d / "a_folder"), "--kg", "sparql", "--sparql-url", url,
                                                      "--out", str(out)],
     "not a working SPARQL endpoint"),
    # corpus records: file and line, and the option that skips them (never a Python keyword)
    ("corpus-not-utf8", _build("--corpus", _f("latin1_tweets.txt"), "--dump", _f("a_folder")),
     "latin1_tweets.txt:2: not UTF-8 (line 2)"),
    ("corpus-ragged-record", _run("--corpus", _f("ragged.csv"), "--dump", _f("a_folder")),
     "ragged.csv:3: 5 fields, the header has 3"),
    ("evaluate-single-class", _evaluate("--selectors", "complete", table="T1"), "has a single class ('x')"),
    ("shsel-threshold-above-one", _select("--param", "threshold=2"), "threshold=2 is not valid"),
    ("shsel-threshold-negative", _select("--param", "threshold=-0.5"), "threshold=-0.5 is not valid"),
    # issue 37 point 5: a labels file that is not UTF-8 (any route that reads one), a table CSV without a class
    ("labels-not-utf8", _build("--obo", str(OBO), "--annotations", str(ANN), "--labels", _f("latin1_labels.tsv")),
     "latin1_labels.tsv:5: not UTF-8 (byte 0xe9 at column 15, byte offset 88 of the file); save it as UTF-8"),
    ("labels-not-utf8-run", _run("--obo", str(OBO), "--annotations", str(ANN), "--labels", _f("latin1_labels.tsv")),
     "latin1_labels.tsv:5: not UTF-8 (byte 0xe9"),
    ("positives-not-utf8", _build("--obo", str(OBO), "--annotations", str(ANN), "--positives",
                                  _f("latin1_positives.txt")), "latin1_positives.txt:2: not UTF-8 (byte 0xe9 at "
                                                               "column 2, byte offset 7 of the file)"),
    ("csv-without-class-run", _run("--csv", _f("nolabel.csv")),
     "nolabel.csv: no class column: the last column's header is 'kind', not 'label' or 'class' (the columns: id, "
     "a, b, kind); kgfs run (it selects and evaluates against the class) needs the class of each instance"),
    ("csv-without-class-fit", lambda d, out: ["fit", "--csv", str(d / "nolabel.csv"), "--model", str(out)],
     "nolabel.csv: no class column: the last column's header is 'kind'"),
    ("csv-not-utf8-run", _run("--csv", _f("latin1.csv")), "latin1.csv:2: not UTF-8 (byte 0xe9 at column 2"),
    ("select-unlabelled-table", _select(table="TU"), "TU: the table has no labels (built from an input without a "
                                                     "class column); kgfs select (shsel-ig-prune selects against"),
    ("evaluate-unlabelled-table", _evaluate("--selectors", "complete", table="TU"),
     "--datasets nolabel: the table has no labels"),
    ("tweets-junk-line", _build("--corpus", _f("junk_tweets.txt"), "--dump", _f("a_folder")), "junk_tweets.txt:2:"),
    # issue 30: a hierarchy naming features the table does not have (ZZZ,A and D,NOPE) was dropped without a word
    ("hierarchy-names-unknown-features", _build("--csv", _f("abcd.csv"), "--hierarchy", _f("unknown_edges.csv")),
     "unknown_edges.csv:4: 'ZZZ' is not a feature (a column) of abcd.csv (2 such nodes: NOPE, ZZZ); pass "
     "--hierarchy-drop-unknown to drop such nodes"),
]


def _options_of(command: str) -> set[str]:
    sub = next(a for a in build_parser()._actions if isinstance(a.choices, dict) and command in a.choices)
    return {o for a in sub.choices[command]._actions for o in a.option_strings}


def test_thirty_kinds_of_bad_input():
    assert len(CASES) >= 30 and len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_and_writes_nothing(case, inputs, wrong_url, tmp_path, monkeypatch, capsys):
    _id, argv, expected = case
    monkeypatch.setenv("KGFS_HOME", str(tmp_path / "home"))
    out = tmp_path / "out"
    before = {p: p.stat().st_mtime_ns for p in inputs.rglob("*")}
    args = argv(inputs, out, wrong_url) if argv.__code__.co_argcount == 3 else argv(inputs, out)
    rc = main(args)
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == 1, err
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("kgfs: error: ") and expected in lines[0], lines[0]
    assert not out.exists()
    assert {p: p.stat().st_mtime_ns for p in inputs.rglob("*")} == before  # nothing else written either
    # every option the message names is one the command has; no Python keyword (``unknown='drop'``)
    named = set(re.findall(r"(?<![\w-])--[a-z][\w-]*", lines[0].partition(": error: ")[2]))
    assert named <= _options_of(args[0]), (named - _options_of(args[0]), lines[0])
    assert not re.search(r"\bpass \w+=", lines[0]), lines[0]


def test_run_fails_on_bad_input_before_prefect_is_imported(inputs, tmp_path):
    """In a real process where `import prefect` raises: the error is the input's, found in seconds."""
    code = ("import sys; sys.modules['prefect'] = None; from flows.cli import main; "
            f"sys.exit(main({['run', *GO, '--relations', 'foo', '--out', str(tmp_path / 'out')]!r}))")
    env = {**os.environ, "KGFS_HOME": str(tmp_path / "home")}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env,
                          stdin=subprocess.DEVNULL)
    seconds = time.perf_counter() - t0
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and "unknown relation 'foo'" in proc.stderr, proc.stderr
    assert seconds < 30, seconds  # about a second on a quiet machine; the bound only catches a Prefect start
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("argv", "said"), [
    (["--csv", "nolabel.csv"], "nolabel.csv: no class column: the last column's header is 'kind', not 'label' or "
                               "'class' (the columns: id, a, b, kind)"),
    (["--obo", str(OBO), "--annotations", str(ANN), "--labels", "latin1_labels.tsv"],
     "latin1_labels.tsv:5: not UTF-8 (byte 0xe9 at column 15, byte offset 88 of the file)"),
], ids=["csv-without-class", "labels-not-utf8"])
def test_run_refuses_unlabelled_or_undecodable_input_before_storing_or_starting_anything(inputs, tmp_path, argv,
                                                                                         said):
    """The real command line in a real process (issue 37 point 5: `kgfs run --csv nolabel.csv` stored the table stage
    and started a flow first; a latin-1 labels file gave rc 0 and a third class)."""
    code = ("import sys; sys.modules['prefect'] = None; from flows.cli import main; "
            f"sys.exit(main({['run', *argv, '--out', str(tmp_path / 'out')]!r}))")
    env = {**os.environ, "KGFS_HOME": str(tmp_path / "home"), "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "KGFS_SERVER_DIR": str(tmp_path / "srv")}  # a server booting meanwhile is this test's, stopped again
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env,
                          stdin=subprocess.DEVNULL, cwd=inputs)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and said in proc.stderr, proc.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "home" / "store").exists()
    assert not (tmp_path / "srv" / "server.json").exists()  # no server left running


def test_build_of_a_table_without_a_class_says_it_is_unlabelled(inputs, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KGFS_HOME", str(tmp_path / "home"))
    assert main(["build", "--csv", str(inputs / "nolabel.csv"), "--out", str(tmp_path / "T")]) == 0
    err = capsys.readouterr().err
    assert (f"kgfs: note: nolabel: {inputs / 'nolabel.csv'}: no class column: the last column's header is 'kind', "
            "not 'label' or 'class' (the columns: id, a, b, kind); building the table without labels") in err, err
    from kg.formats.folder import read_table_folder

    table = read_table_folder(tmp_path / "T")
    assert table.y is None and table.feature_names.tolist() == ["a", "b", "kind"]


def test_hierarchy_drop_unknown_drops_and_counts(inputs, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KGFS_HOME", str(tmp_path / "home"))
    assert main(["build", "--csv", str(inputs / "abcd.csv"), "--hierarchy", str(inputs / "unknown_edges.csv"),
                 "--hierarchy-drop-unknown", "--out", str(tmp_path / "T")]) == 0
    cap = capsys.readouterr()
    assert "40 instances x 4 features, 2 edges" in cap.out
    assert "2 node(s) of --hierarchy that are not features, dropped (--hierarchy-drop-unknown): NOPE, ZZZ" in cap.err
