"""The answer every report opens with (issue 38 point 1): its wording, and the bundled `kgfs run` for real."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from flows.publishing.answer import answer_sentences, measure_word, read_answer, sentence, with_answer
from flows.publishing.report import run_markdown
from selection.evaluation.verdict import Verdict


def _v(outcome, diff, lo=-0.1, hi=0.1, **kw):
    base = dict(dataset="bundled/DM-BP", measure="accuracy", selector="shsel-ig-prune", classifier="nb",
                value=0.717 + diff, baseline=0.717, difference=diff, ci_low=lo, ci_high=hi, confidence=0.95,
                p_value=0.5, p_holm=1.0 if outcome != "better" and outcome != "worse" else 0.004, n_comparisons=3,
                n_folds=10, outcome=outcome, test="corrected resampled t-test", n_methods=2)
    return Verdict(**{**base, **kw})


def test_the_issues_sentence():
    v = _v("no significant difference", -0.008, -0.133, 0.116, value=0.709)
    assert sentence(v) == ("No method beats the majority class on accuracy (0.717): the best, shsel-ig-prune + nb, "
                           "is 0.008 below it, 95% interval [-0.133, +0.116] (corrected resampled t-test over 10 "
                           "folds: no significant difference, Holm p = 1.000).")


def test_every_outcome_is_one_sentence_saying_what_the_test_says():
    better = sentence(_v("better", 0.1, 0.05, 0.15))
    assert better.startswith("shsel-ig-prune + nb beats the majority class on accuracy (0.717): 0.817, 0.100 above")
    assert "significant, Holm p = 0.004" in better
    above = sentence(_v("no significant difference", 0.03, -0.05, 0.11))
    assert above.startswith("No method beats the majority class on accuracy (0.717) significantly: the best, "
                            "shsel-ig-prune + nb, is 0.030 above it")
    worse = sentence(_v("worse", -0.2, -0.3, -0.1))
    assert worse.startswith("No method beats") and "significantly worse, Holm p = 0.004" in worse
    degenerate = sentence(_v("no significant difference", 0.0, degenerate=True))
    assert "the best, shsel-ig-prune + nb (a degenerate selection), is level with it" in degenerate
    one = sentence(_v("untested", -0.05, float("nan"), float("nan")))
    assert "no paired test" in one and "interval" not in one
    up = sentence(_v("untested", 0.05, float("nan"), float("nan"), n_folds=1))
    assert up == ("The best on accuracy, shsel-ig-prune + nb (0.767), is 0.050 above the majority class (0.717) "
                  "(no paired test: fewer than two folds).")
    none = sentence(Verdict.from_dict({"dataset": "d", "measure": "accuracy", "outcome": "no results"}))
    assert none == "No method has a complete accuracy score: there is no answer."
    for s in (better, above, worse, one, none):
        assert s.count(". ") == 0 and s.endswith(".")  # one sentence


def test_several_datasets_are_named_and_multiclass_measures_say_their_averaging():
    two = answer_sentences([_v("better", 0.1), _v("better", 0.1, dataset="other")])
    assert two[0].startswith("bundled/DM-BP: ") and two[1].startswith("other: ")
    assert not answer_sentences([_v("better", 0.1)])[0].startswith("bundled/DM-BP")
    multi = _v("no significant difference", 0.01, measure="aucpr", n_classes=4, averaging="macro")
    assert measure_word(multi) == "macro one-vs-rest AUCPR" and "France" not in sentence(multi)
    assert measure_word(_v("better", 0.1, measure="gm", n_classes=4, averaging="macro")) == "GM over the 4 classes"


def test_with_answer_puts_the_sentences_under_the_title_once():
    md = "# Evaluation report (basic)\n\n- a note\n"
    once = with_answer(md, ["It is so."])
    assert once.splitlines()[:4] == ["# Evaluation report (basic)", "", "**It is so.**", ""]
    assert with_answer(once, ["It is so."]) == once and with_answer(md, []) == md


def test_the_prefect_report_artifact_opens_with_the_answer():
    md = run_markdown({}, {}, {"dataset": "d", "selector": "complete"}, answer=["No method beats it."])
    assert md.splitlines()[:3] == ["# kgfs run: d · complete", "", "**No method beats it.**"]


def test_read_answer_reads_answer_json(tmp_path):
    p = tmp_path / "answer.json"
    p.write_text(json.dumps({"measure": "accuracy", "datasets": [_v("better", 0.1).to_dict()]}))
    assert read_answer(p) == [_v("better", 0.1)]


@pytest.mark.slow
def test_the_bundled_kgfs_run_opens_every_report_with_its_answer(tmp_path):
    """README's main command in a fresh folder (its own home and server): report.md, report.html, answer.json,
    the console and the Prefect artifact's text open with the one sentence of the issue."""
    from flows.server import local as server

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "KGFS_HOME"))}
    env.update(KGFS_SERVER_PORT="0", KGFS_SERVER_DIR=str(tmp_path / "server"))
    try:
        proc = subprocess.run([sys.executable, "-m", "flows.cli", "run"], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=900, stdin=subprocess.DEVNULL)
    finally:
        server.stop_server(tmp_path / ".kgfs")
    assert proc.returncode == 0, proc.stderr[-3000:]
    expected = ("No method beats the majority class on accuracy (0.717): the best, shsel-ig-prune + nb, is 0.008 "
                "below it, 95% interval [-0.133, +0.116] (corrected resampled t-test over 10 folds: no significant "
                "difference, Holm p = 1.000).")
    out = tmp_path / "kgfs-output"
    assert proc.stdout.splitlines()[0] == expected  # the console: the answer, then the table
    md = (out / "report.md").read_text().splitlines()
    assert md[0] == "# Evaluation report (basic)" and md[2] == f"**{expected}**"
    acc = "\n".join(md).split("## Classification accuracy -- nb")[1].split("\n## ")[0]
    assert "| bundled/DM-BP | 0.709 ± 0.127 | 0.701 ± 0.108 | *0.717* |" in acc and "nothing is bold" in acc
    body = (out / "report.html").read_text().split("<body>")[1]
    assert body.index('<div class="answer"') < body.index("<nav") and expected in body
    sections = body.split("<nav", 1)[1]
    assert sections.index("Cross-validation") < sections.index("Selection on the whole table")  # results, features
    answer = json.loads((out / "answer.json").read_text())
    assert answer["sentences"] == [expected] and answer["datasets"][0]["outcome"] == "no significant difference"
    assert "answer.json" in json.loads((out / "run.json").read_text())["outputs"]
