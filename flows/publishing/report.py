"""What a pipeline run tells a person: its name and tags, a note per stage, the cache outcome, the report.

A run is a set of stage records (:mod:`kg.store.records`) with, per stage, whether it came from the
store and how long it took (*runinfo*), and its parameters (``dataset``, ``selector``,
``selector_params``, ``source``, ...). This module turns them into text, with no Prefect and no
selection code (the evaluation's headline rows and the selection's warnings are given by the caller):

- :func:`run_labels`: the run's name and tags (dataset, selector, route), as the Prefect UI lists them;
- :func:`stage_note`: one short note per stage (``105 of 699 kept``), shared by the terminal and the logs;
- :func:`cache_outcome`: how many stages came from the store;
- :func:`artifact_key`: artifact keys per dataset (a Prefect key: lowercase letters, digits, dashes);
- :func:`run_markdown`: the run's report: the answer (:mod:`flows.publishing.answer`), headline results,
  warnings, the plots as inline images,
  each stage's immutable store folder, the parameters; :func:`artifacts`: it and the run's tables,
  as the Prefect artifacts of the run.

Examples
--------
>>> run_labels({"dataset": "aire/MM-BPMFCC", "selector": "shsel-ig-prune", "selector_params": {"threshold": 0.9},
...             "source": {"kind": "dataset"}})
('aire/MM-BPMFCC · shsel-ig-prune threshold=0.9',
 ['dataset:aire/MM-BPMFCC', 'selector:shsel-ig-prune', 'route:registry-table'])
>>> artifact_key("kgfs-run-report", "aire/MM-BPMFCC")
'kgfs-run-report-aire-mm-bpmfcc'
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kg.routes import LEGACY_KINDS, input_kinds

if TYPE_CHECKING:
    from kg.store import Record

__all__ = ["DEGENERATE_TAG", "artifact_key", "artifacts", "cache_outcome", "degenerate_note", "markdown_rows",
           "run_labels", "run_markdown", "stage_note"]

#: The Prefect tag of a run whose selection is degenerate.
DEGENERATE_TAG = "degenerate-selection"

_NOTES = {"facts": "{n_genes} {instance_noun}s", "table": "{n_instances} x {n_features}",
          "select": "{n_selected} of {n_features} kept", "annotate": "{n_instances} instances",
          "evaluate": "{n_rows} fold rows"}


def artifact_key(kind: str, dataset: str) -> str:
    """A Prefect artifact key for ``kind`` and a dataset: lowercase letters, digits and dashes.

    Parameters
    ----------
    kind : str
        E.g. ``"selected-features"``.
    dataset : str
        The dataset's name (``bundled/DM-BP``, a file name, ...).

    Returns
    -------
    str

    Examples
    --------
    >>> artifact_key("selected-features", "bundled/DM-BP"), artifact_key("x", "Tweets (train).csv")
    ('selected-features-bundled-dm-bp', 'x-tweets-train-csv')
    """
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9]+", "-", f"{kind}-{dataset}".lower())).strip("-")[:120]


def _params_text(params: Mapping | None) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted((params or {}).items()))


def run_labels(params: Mapping) -> tuple[str, list[str]]:
    """The run's name (dataset · selector and its parameters) and tags (dataset, selector, route).

    Parameters
    ----------
    params : mapping
        ``dataset``, ``selector``, ``selector_params`` and ``source`` (its ``kind``).

    Returns
    -------
    (str, list of str)

    Examples
    --------
    >>> run_labels({"dataset": "bundled/DM-BP", "selector": "complete", "source": {"kind": "ontology"}})[0]
    'bundled/DM-BP · complete'
    """
    name = f"{params.get('dataset')} · {params.get('selector')} {_params_text(params.get('selector_params'))}".strip()
    kind = (params.get("source") or {}).get("kind")
    kind = LEGACY_KINDS.get(kind, kind) if kind not in input_kinds() else kind  # a run of an earlier version
    route = getattr(input_kinds().get(kind), "route", kind)  # the input's route tag (its kind when unknown)
    return name, [f"dataset:{params.get('dataset')}", f"selector:{params.get('selector')}", f"route:{route}"]


def stage_note(stage: str, summary: Mapping | None) -> str:
    """A short note on a stage's result (``105 of 699 kept``), or ``""`` when there is none.

    Parameters
    ----------
    stage : str
    summary : mapping or None
        The record's summary.

    Returns
    -------
    str

    Examples
    --------
    >>> stage_note("select", {"n_selected": 105, "n_features": 699}), stage_note("export", {})
    ('105 of 699 kept', '')
    >>> stage_note("select", {"n_selected": 5, "n_features": 9, "by_kind": {"types": [1, 4], "relations": [4, 5]}})
    '5 of 9 kept (types 1 of 4, relations 4 of 5)'
    """
    try:
        note = _NOTES[stage].format(**{"instance_noun": "gene", **(summary or {})})  # a record of before the noun
    except (KeyError, IndexError):
        return ""
    by_kind = (summary or {}).get("by_kind")
    if note and isinstance(by_kind, Mapping) and by_kind:
        note += " (" + ", ".join(f"{k} {a} of {b}" for k, (a, b) in by_kind.items()) + ")"
    return note


def cache_outcome(runinfo: Mapping[str, Mapping]) -> str:
    """How many of the run's stages came from the store, and which.

    Parameters
    ----------
    runinfo : mapping
        Stage -> ``{"reused": bool, ...}``.

    Returns
    -------
    str

    Examples
    --------
    >>> cache_outcome({"facts": {"reused": True}, "table": {"reused": True}, "select": {"reused": False}})
    '2 of 3 stages from the store (facts, table)'
    >>> cache_outcome({"facts": {"reused": False}}), cache_outcome({"facts": {"reused": True}})
    ('no stage from the store', 'all 1 stages from the store')
    """
    reused = [k for k, i in runinfo.items() if i.get("reused")]
    if not reused:
        return "no stage from the store"
    if len(reused) == len(runinfo):
        return f"all {len(reused)} stages from the store"
    return f"{len(reused)} of {len(runinfo)} stages from the store ({', '.join(reused)})"


def degenerate_note(results: Mapping) -> str:
    """One line on a degenerate selection (whole table, or in the cross-validation's folds); ``""`` when none.

    Parameters
    ----------
    results : mapping
        ``warnings`` (the whole-table selection's, :func:`selection.evaluation.headline.selection_warnings`)
        and ``headline`` rows (their ``note``).

    Returns
    -------
    str

    Examples
    --------
    >>> degenerate_note({"warnings": ["only roots of the hierarchy were kept (1: GO:1 bp): says nothing",
    ...                               "every kept feature is constant over the instances (GO:1 bp): no use"],
    ...                  "headline": []})
    'degenerate selection: only roots of the hierarchy were kept; every kept feature is constant over the instances'
    >>> degenerate_note({"warnings": [], "headline": [{"selector": "s",
    ...                                                "note": "DEGENERATE selection: empty (1/10 folds)"}]})
    'degenerate selection in the cross-validation: s: empty (1/10 folds)'
    >>> degenerate_note({"warnings": [], "headline": []})
    ''
    """
    whole = [w.split(" (")[0].split(":")[0] for w in results.get("warnings") or []]
    if whole:
        return "degenerate selection: " + "; ".join(whole)
    cv = [f"{r.get('selector')}: {str(r.get('note')).split(': ', 1)[1]}" for r in results.get("headline") or []
          if str(r.get("note") or "").startswith("DEGENERATE")]
    return "degenerate selection in the cross-validation: " + "; ".join(cv) if cv else ""


def markdown_rows(rows: Sequence[Mapping], columns: Sequence[str] | None = None) -> str:
    """A markdown table of ``rows`` (dicts); text columns left-aligned, numbers right-aligned.

    Parameters
    ----------
    rows : sequence of mapping
    columns : sequence of str, optional
        Default: the first row's keys.

    Returns
    -------
    str

    Examples
    --------
    >>> print(markdown_rows([{"stage": "table", "seconds": 0.1}]))
    | stage | seconds |
    |---|---:|
    | table | 0.1 |
    """
    if not rows:
        return ""
    columns = list(columns or rows[0])
    right = [all(isinstance(r.get(c), (int, float)) and not isinstance(r.get(c), bool) for r in rows) for c in columns]
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---:" if r else "---" for r in right) + "|"]
    cell = lambda v: "" if v is None else str(v).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    return "\n".join(lines + ["| " + " | ".join(cell(r.get(c)) for c in columns) + " |" for r in rows])


def _png_uri(path: Path) -> str:
    """The PNG as a ``data:`` URI: the Prefect UI shows it inline (a local path it cannot open)."""
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _stage_rows(records: Mapping[str, Record], runinfo: Mapping[str, Mapping]) -> list[dict]:
    return [{"stage": k, "from the store": "yes" if runinfo.get(k, {}).get("reused") else "no",
             "seconds": runinfo.get(k, {}).get("seconds"), "result": stage_note(k, r.summary),
             "folder (immutable)": f"`{r.dir}`"} for k, r in records.items() if r]


def run_markdown(records: Mapping[str, Record], runinfo: Mapping[str, Mapping], params: Mapping,
                 outputs: Mapping[str, str] | None = None, *, headline: Sequence[Mapping] = (),
                 warnings: Sequence[str] = (), answer: Sequence[str] = ()) -> str:
    """The run's report: headline results, warnings, plots (inline images), stages and their store folders.

    Every path it names is a stage folder of the store (content-addressed: never overwritten), so
    the report of an old run stays true after later runs replace the output folder.

    Parameters
    ----------
    records : mapping
        Stage name -> :class:`~kg.store.Record`.
    runinfo : mapping
        Stage name -> ``reused``, ``seconds``.
    params : mapping
        The run's parameters (``source`` is left out: it is long).
    outputs : mapping, optional
        Output name -> path (from :func:`flows.publishing.publish.publish`): the folder is named once.
    headline : sequence of mapping
        The cross-validation's rows (e.g. :func:`selection.evaluation.headline.headline`).
    warnings : sequence of str
        Shown at the top (e.g. :func:`selection.evaluation.headline.selection_warnings`).
    answer : sequence of str
        The answer, one sentence per dataset (:mod:`flows.publishing.answer`): the report opens with it.

    Returns
    -------
    str

    Examples
    --------
    >>> from kg.store import Record
    >>> sel = Record("select", "k", "/s/select/k", {}, "h", summary={"n_selected": 3, "n_features": 9})
    >>> md = run_markdown({"select": sel},
    ...                   {"select": {"reused": True, "seconds": 0.1}}, {"dataset": "d", "selector": "complete"},
    ...                   warnings=["no feature was kept"])
    >>> md.splitlines()[0], "**3 of 9 features kept** by `complete`" in md, "| select | yes | 0.1 | 3 of 9 kept |" in md
    ('# kgfs run: d · complete', True, True)
    """
    name, _tags = run_labels(params)
    tab = records["table"].summary if records.get("table") else {}
    sel = records["select"].summary if records.get("select") else {}
    lines = [f"# kgfs run: {name}", ""]
    lines += [x for a in answer for x in (f"**{a}**", "")]
    if tab:
        lines.append(f"{tab.get('n_instances')} instances × {tab.get('n_features')} features"
                     + (f", {tab['n_edges']} hierarchy edges" if "n_edges" in tab else "") + ".")
    if sel:
        lines.append(f"**{sel.get('n_selected')} of {sel.get('n_features')} features kept** by "
                     f"`{params.get('selector')}` on the whole table.")
    lines += [f"{cache_outcome(runinfo).capitalize()}.", ""]
    lines += [f"> **Warning:** {w}\n" for w in warnings]
    ev = records.get("evaluate")
    files = ev.files if ev else {}
    if outputs and outputs.get("report.html"):
        html = Path(outputs["report.html"])
        lines += [f"**The full report** (the selected hierarchy, explorable; the statistics; the baseline): "
                  f"[{html}]({html.as_uri()}) (in the output folder: the next run writing there replaces it).", ""]
    if headline:
        lines += [f"## Cross-validation ({params.get('n_splits', '?')} folds, mean ± sd over the folds; the "
                  "majority-class baseline beside the methods)", "",
                  markdown_rows(headline), "",
                  "Every column, per fold and summarised: " + ", ".join(
                      f"`{ev.path(r)}`" for r in ("evaluation", "summary") if r in files), ""]
    plots = [ev.path(r) for r in sorted(files) if r.startswith("plot:")]
    if plots:
        lines += ["## Plots", ""] + [f"![{p.stem}]({_png_uri(p)})\n" for p in plots if p.is_file()]
    lines += ["## Stages", "", markdown_rows(_stage_rows(records, runinfo)), "", "## Parameters", "",
              markdown_rows([{"parameter": k, "value": f"`{v}`"} for k, v in params.items() if k != "source"]), ""]
    if outputs:
        folder = Path(outputs.get("run.json") or next(iter(outputs.values()))).parent
        lines.append(f"Published to `{folder}` ({len(outputs)} files; the next run writing there replaces them, "
                     "the stage folders above stay).")
    return "\n".join(lines) + "\n"


def artifacts(result: Mapping) -> list[tuple[str, str, object, str]]:
    """The artifacts of a run, keyed per dataset: the kept features and the cross-validation (tables)
    and the report (markdown), for :func:`prefect.artifacts.create_table_artifact` and its markdown sibling.

    Parameters
    ----------
    result : RunResult
        A run's ``records``, ``runinfo``, ``outputs``, ``params`` and ``results`` (``headline`` and
        ``kept`` rows, ``warnings``), as :func:`flows.runner.run_pipeline` returns them.

    Returns
    -------
    list of (kind, key, data, description)
        ``kind`` is ``"table"`` (``data``: rows) or ``"markdown"`` (``data``: text).

    Examples
    --------
    >>> from flows.publishing.outcome import RunResult
    >>> res = RunResult({}, {}, {}, {"dataset": "d", "selector": "complete"},
    ...                 {"headline": [], "kept": [{"feature": "a"}], "warnings": []})
    >>> [(kind, key) for kind, key, _data, _desc in artifacts(res)]
    [('table', 'selected-features-d'), ('markdown', 'kgfs-run-report-d')]
    """
    p, res = result.params, result.results
    ds, name = p["dataset"], run_labels(p)[0]
    out = []
    if res["kept"]:
        out.append(("table", artifact_key("selected-features", ds), res["kept"],
                    f"{name}: the kept features by score ({len(res['kept'])} shown)"))
    if res["headline"]:
        # the note (degenerate, baseline) beside the method's name: the UI's table is read from the left and scrolls
        rows = [{k: r[k] for k in sorted(r, key=lambda k: 0 if k in ("selector", "classifier", "note") else 1)}
                for r in res["headline"]]
        out.append(("table", artifact_key("evaluation-summary", ds), rows,
                    f"{name}: cross-validation, mean ± sd over the folds (every column: summary.csv)"))
    md = run_markdown(result.records, result.runinfo, p, result.outputs, headline=res["headline"],
                      warnings=res["warnings"], answer=res.get("answer") or ())
    return out + [("markdown", artifact_key("kgfs-run-report", ds), md, f"{name}: the report")]
