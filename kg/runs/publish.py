"""What a pipeline run leaves for a person: its output folder, ``run.json`` and a markdown report.

A run is a set of stage *records* (:mod:`kg.runs.store`), one per stage name (``facts``, ``table``,
``select``, ``evaluate``, ``export``, ...), plus per stage whether it was reused and how long it
took (*runinfo*). :func:`publish` copies the records' files into the output folder under the
names of :data:`OUTPUTS` (the evaluation's PNG plots under ``plots/``) and writes ``run.json``;
:func:`run_markdown` is the run's report (parameters, stages, plots, outputs).

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "s.csv").write_text("feature\\nGO:1\\n")
>>> records = {"select": {"dir": str(d), "files": {"selected": "s.csv"}, "key": "k", "hash": "h"}}
>>> sorted(publish(records, d / "out", {"selector": "complete"}))
['run.json', 'selected_features.csv']
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from kg.files import atomic_write
from kg.runs.store import write_json

__all__ = ["OUTPUTS", "publish", "run_markdown"]

# output file name in the user's folder <- (stage, file role of its record)
OUTPUTS = {
    "table.arff": ("export", "arff"), "table.sparse.arff": ("export", "arff_sparse"), "table.csv": ("export", "csv"),
    "hierarchy.csv": ("export", "edges"), "table.selected.arff": ("export", "arff_selected"),
    "hierarchy.selected.csv": ("export", "edges_selected"), "table.npz": ("table", "table"),
    "selected_features.csv": ("select", "selected"), "selection.csv": ("select", "selection"),
    "evaluation.csv": ("evaluate", "evaluation"), "summary.csv": ("evaluate", "summary"),
    "report.md": ("evaluate", "report"),
}


def publish(records: Mapping[str, Mapping], out_dir: str | os.PathLike, params: Mapping | None = None,
            runinfo: Mapping[str, Mapping] | None = None) -> dict[str, Path]:
    """Copy the records' files into ``out_dir`` (each atomically) and write ``run.json``.

    Parameters
    ----------
    records : mapping
        Stage name -> record (``dir``, ``files``, ``key``, ``hash``, ``summary``).
    out_dir : str or os.PathLike
        Created when missing; existing files of the same names are replaced.
    params : mapping, optional
        The run's parameters (in ``run.json``).
    runinfo : mapping, optional
        Stage name -> extra fields for ``run.json`` (e.g. ``reused``, ``seconds``).

    Returns
    -------
    dict
        Output name (:data:`OUTPUTS`, ``plots/<name>.png``, ``run.json``) -> path.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> _ = publish({}, out, {"dataset": "d"})
    >>> json.loads((out / "run.json").read_text())
    {'outputs': [], 'params': {'dataset': 'd'}, 'stages': {}}
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    sources = dict(OUTPUTS)
    sources.update({f"plots/{role[5:]}": ("evaluate", role) for role in
                    sorted((records.get("evaluate") or {}).get("files", {})) if role.startswith("plot:")})
    written: dict[str, Path] = {}
    for name, (stage, role) in sources.items():
        rec = records.get(stage)
        if not rec or role not in rec.get("files", {}):
            continue
        src = Path(rec["dir"]) / rec["files"][role]
        atomic_write(out / name, lambda tmp, src=src: shutil.copyfile(src, tmp))
        written[name] = out / name
    run = {"params": dict(params or {}),
           "stages": {k: {**{kk: v.get(kk) for kk in ("key", "hash", "dir", "summary")},
                          **dict((runinfo or {}).get(k, {}))} for k, v in records.items() if v},
           "outputs": sorted(written)}
    write_json(out / "run.json", run)
    written["run.json"] = out / "run.json"
    return written


def run_markdown(records: Mapping[str, Mapping], runinfo: Mapping[str, Mapping], params: Mapping,
                 outputs: Mapping[str, str] | None = None) -> str:
    """The markdown report of a run: parameters, stages (reused or not), plots and outputs.

    Parameters
    ----------
    records : mapping
        Stage name -> record.
    runinfo : mapping
        Stage name -> ``reused``, ``seconds``.
    params : mapping
        The run's parameters (``source`` is left out: it is long).
    outputs : mapping, optional
        Output name -> path (from :func:`publish`); without it the plots are found in the
        evaluation record.

    Returns
    -------
    str

    Examples
    --------
    >>> md = run_markdown({"table": {"dir": "/s/t"}}, {"table": {"reused": True, "seconds": 0.1}}, {"dataset": "d"})
    >>> md.splitlines()[0], "| table | True | 0.1 | `/s/t` |" in md
    ('# kgfs run: d', True)
    """
    lines = [f"# kgfs run: {params.get('dataset')}", "", "## Parameters", "", "| parameter | value |", "|---|---|"]
    lines += [f"| {k} | `{v}` |" for k, v in params.items() if k != "source"]
    lines += ["", "## Stages", "", "| stage | reused | seconds | folder |", "|---|---|---|---|"]
    lines += [f"| {k} | {runinfo.get(k, {}).get('reused')} | {runinfo.get(k, {}).get('seconds')} | `{r.get('dir')}` |"
              for k, r in records.items()]
    ev = records.get("evaluate") or {}
    plots = [p for n, p in sorted((outputs or {}).items()) if n.endswith(".png")]
    if not plots and ev:
        plots = [str(Path(ev["dir"]) / f) for r, f in sorted(ev.get("files", {}).items()) if f.endswith(".png")]
    if plots:
        lines += ["", "## Plots", ""] + [f"- `{p}`" for p in plots]
    if outputs:
        lines += ["", "## Outputs", ""] + [f"- `{p}`" for _n, p in sorted(outputs.items()) if not p.endswith(".png")]
    return "\n".join(lines) + "\n"
