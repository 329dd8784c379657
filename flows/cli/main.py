"""The ``kgfs`` command line: ``kgfs run`` is the Prefect flow of :mod:`flows.pipeline`; the other commands
do one step each with ``kg`` and ``selection`` (no Prefect server). Errors caused by input are one line
(``--debug``: the traceback). Exit status: 0 success, 1 error, 2 usage error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from flows import progress, settings
from flows.cli.console import (
    LineProgress,
    cache_table,
    datasets_table,
    error_line,
    make_console,
    summary_table,
    table_notes_lines,
)
from flows.cli.options import (
    EVALUATE_OPTIONS,
    RUN_EXAMPLES,
    RUN_OPTIONS,
    Parser,
    add_input_options,
    add_options,
    whole_number,
)

if TYPE_CHECKING:
    from flows.run_options import RunOptions

# Imported where they are used, for the start-up time of `kgfs --help`, of `kgfs datasets list` and of a cached
# run: the kinds of input (kg.routes, flows.inputs), the local server (urllib, subprocess), rich (the console,
# ~0.1 s), flows.runner and flows.stages (numpy, scipy), scikit-learn (selection), Prefect.

__all__ = ["main", "build_parser"]

EPILOG_SERVE = """examples:
  kgfs serve --watch genes/ --interval 300 --obo go.obo.gz --annotations gene_go.tsv --n-splits 5
  kgfs serve --watch corpora/ --cron "0 * * * *" --dump dbpedia/ --features types --out results/
"""


# --------------------------------------------------------------------------- helpers
class CliError(Exception):
    """A usage problem found after parsing (printed as one line, exit 1)."""


def _console(stderr: bool = True):
    return make_console(stderr)


def _parse_params(items: list[str] | None, option: str = "--param") -> dict:
    from selection.params import parse_assignments

    return parse_assignments(items, option)


def _methods_epilog(text: str = "", roles=("selector", "classifier", "protocol")):
    def epilog():
        from selection.methods_help import methods_overview

        return f"{text}\n{methods_overview(roles)}\n" if text else methods_overview(roles) + "\n"

    return epilog


def _mirror(args) -> str | None:
    m = getattr(args, "mirror", None) or os.environ.get("KGFS_DATA_MIRROR") or None
    return str(Path(m).absolute()) if m else None


def _input_values(args) -> dict:
    """The values of the input options given on the command line (``None``: not given)."""
    from flows.inputs import input_options

    return {o.field: getattr(args, o.field, None) for _title, opts in input_options() for o in opts}


_FULL: set[str] | None = None  # the commands whose input options are added (None: all; see build_parser)


def _add_input_options(p: argparse.ArgumentParser, watch: bool = False) -> None:
    """One group of options per kind of input (:mod:`kg.routes`); ``watch``: only the kinds a folder can feed."""
    if _FULL is not None and p.prog.split()[-1] not in _FULL:
        return  # another command runs: the kinds of input are not imported (`kgfs --help` stays fast)
    from flows.inputs import input_options
    from kg.routes import input_kinds

    watchable = {o.flag for cls in input_kinds().values() if cls.watch_field for o in cls.options}
    for title, opts in input_options():
        opts = [o for o in opts if o.flag in watchable] if watch else opts
        if opts:
            add_input_options(p.add_argument_group(f"input: {title}"), opts)


def _note(name: str, meta, files=None) -> None:
    """What a table's meta (or summary meta) reports about its input, naming a few (the full lists: ``files``)."""
    for line in table_notes_lines(meta, files=files):
        print(f"kgfs: note: {name}: {line}", file=sys.stderr)


def short_iris(text: str) -> str:
    """``text`` with the IRIs of well-known namespaces written short (``dbc:Cat_554``)."""
    from flows.cli.console import SHORT_NAMESPACES

    for ns, prefix in SHORT_NAMESPACES.items():
        text = text.replace(ns, prefix)
    return text


def _check_notes(name: str, report) -> None:
    """What an input's up-front check says a person should know (the id column it chose, ...)."""
    for line in (report or {}).get("notes") or []:
        print(f"kgfs: note: {name}: {line}", file=sys.stderr)


def _wall_seconds() -> float:
    """Seconds since this process started (what "done in" says: the command's wall time, imports included)."""
    try:
        import psutil

        return max(0.0, time.time() - psutil.Process().create_time())
    except Exception:  # noqa: BLE001 - no psutil or no /proc: from the start of main()
        return time.perf_counter() - _T0


_T0 = time.perf_counter()


def _print_summary(console, summary_csv: Path, n_rows: int = 12) -> None:
    table = summary_table(summary_csv, n_rows, width=console.width if console.is_terminal else None)
    if table is not None:
        console.print(table)


def _outputs_notes(outputs) -> dict:
    """Report key -> its full list in the output folder (``notes/<key>.csv``)."""
    return {Path(k).stem: str(v) for k, v in outputs.items() if str(k).startswith("notes/")}


# --------------------------------------------------------------------------- commands
def cmd_run(args) -> int:
    from flows.cli.display import RunDisplay
    from flows.inputs import check_output, resolve_input
    from flows.server import local as local_server
    from kg.errors import HierarchyCycleWarning
    from kg.routes.base import Context

    out, err, home = _console(stderr=False), _console(), settings.kgfs_home()
    # every input is checked before Prefect starts (or flows.pipeline is imported): bad input fails at once;
    # with nothing stored (or --no-cache) the home's server boots meanwhile (stopped again if the input is bad)
    cold = (args.no_cache or not (home / "store").is_dir()) and not os.environ.get("PREFECT_API_URL")
    from flows import runner

    with local_server.starting(home, cold, _announce):
        with err.status("checking the input…", spinner="dots") if not args.quiet else contextlib.nullcontext():
            check_output(args.out, "folder")
            inp = resolve_input(_input_values(args))
            checked = inp.check(Context(home))  # the corpus read here is the one the stages use: kept by the input
            options = _run_options(args)
        _check_notes(inp.name, checked)
        _ingest(lambda show: inp.prepare(Context(home), show), args.quiet)  # e.g. new dump files into the index
    target, api = str(Path(args.out).absolute()), None
    display = LineProgress(_say) if not (err.is_terminal or args.quiet) else RunDisplay(err, enabled=not args.quiet)
    progress.set_reporter(display)
    try:
        with display, warnings.catch_warnings():  # a run whose every stage is stored needs no Prefect
            # cycles broken in the hierarchy: one note after the run, their full list in OUT/notes/
            warnings.filterwarnings("ignore", category=HierarchyCycleWarning)
            result = None if args.no_cache else runner.run_from_store(inp, options, target, home)
            if result is None:
                api = _prefect_api(home, display)
                with local_server.lease(home) if api else contextlib.nullcontext():
                    result = runner.run_pipeline(inp, options, out=target, home=home, no_cache=args.no_cache,
                                                 from_store=False)
    finally:
        progress.set_reporter(None)
    for w in result.results["warnings"]:
        print(f"kgfs: warning: {inp.name}: degenerate selection: {short_iris(w)}", file=sys.stderr)
    if args.quiet:
        return 0
    recs = result.records
    tab, sel = recs["table"].summary, recs["select"].summary
    out.print(f"[bold]{inp.name}[/]: {tab['n_instances']} instances x {tab['n_features']} features, "
              f"{tab['n_edges']} hierarchy edges, classes {tab.get('classes')}")
    _note(inp.name, tab.get("meta") or {}, _outputs_notes(result.outputs))
    if recs["evaluate"].summary.get("note"):  # fewer folds than asked, or no evaluation
        print(f"kgfs: note: {inp.name}: {recs['evaluate'].summary['note']}", file=sys.stderr)
    _print_summary(out, recs["evaluate"].path("summary"))
    kept = result.results["kept"]
    named = ", ".join(f"{k['feature']} {k.get('name') if isinstance(k.get('name'), str) else ''}".strip()
                      for k in kept[:3]) if len(kept) <= 3 else ""
    out.print(f"{args.selector} on the whole table keeps {sel['n_selected']} of {sel['n_features']} features"
              + (f": {named}" if named else "") + " (selected_features.csv)"
              + (" -- [bold red]DEGENERATE selection[/]: " + "; ".join(w.split(" (")[0].split(":")[0] for w in
                                                                       result.results["warnings"])
                 if result.results["warnings"] else ""))
    outdir = Path(args.out).absolute()
    files = sorted(result.outputs)
    shown = [f for f in files if not f.startswith(("plots/", "notes/"))]
    more = [f"{sum(f.startswith(d) for f in files)} in {d}" for d in ("plots/", "notes/") if any(
        f.startswith(d) for f in files)]
    out.print(f"outputs in [bold]{outdir}[/] ({', '.join(shown)}" + (f"; {', '.join(more)}" if more else "") + ")")
    if "report.html" in result.outputs:
        out.print(f"report: [bold]{outdir / 'report.html'}[/] (results, baseline, statistics, the selected hierarchy)")
    if api:
        out.print(f"Prefect UI of the run: {api.ui_url}/runs/flow-run/{result.flow_run}")
    out.print(f"done in {_wall_seconds():.1f} s"
              + (f"; stages from cache: {', '.join(result.reused)}" if result.reused else "")
              + ("" if result.flow_run else "; all stages from the store: no Prefect server started"))
    return 0


def _say(line: str) -> None:  # a progress or notice line, as it happens (also when piped)
    print(line, file=sys.stderr, flush=True)


def _announce(text: str) -> None:
    _say(f"kgfs: {text}")


def _prefect_api(home: Path, display):
    """``$PREFECT_API_URL`` (None), else the home's server: started when none runs, said once, with how to stop it."""
    from flows.server import local as local_server

    if os.environ.get("PREFECT_API_URL"):
        return None
    display("start", "prefect")
    info = local_server.ensure_server(home, announce=_announce)
    os.environ["PREFECT_API_URL"] = info.api_url
    display("done", "prefect", record={"summary": {}}, note=info.ui_url)
    return info


def _run_options(args) -> RunOptions:
    """The pipeline options of `kgfs run` / `kgfs serve`, checked (names, parameters, folds)."""
    from flows.run_options import RunOptions
    from selection.evaluation.plan import plan_evaluation
    from selection.param_routing import whole_table_params

    eval_selectors = args.selectors or [args.selector, "complete"]
    if args.selector not in eval_selectors:
        eval_selectors = [args.selector, *eval_selectors]
    plan_evaluation(args.protocol, eval_selectors, args.classifiers, n_splits=args.n_splits)
    params = whole_table_params(args.selector, _parse_params(args.param))  # --selector's only; never a lazy one
    return RunOptions(selector=args.selector, selector_params=params,
                      eval_selectors=tuple(dict.fromkeys(eval_selectors)), classifiers=tuple(args.classifiers),
                      protocol=args.protocol, n_splits=args.n_splits, seed=args.seed, n_jobs=args.n_jobs,
                      artifacts=not args.no_artifacts, dask_address=args.dask_address, batch_size=args.batch_size,
                      external_concurrency=args.external_concurrency,
                      dense_exports=True if getattr(args, "dense_exports", False) else None)


def cmd_serve(args) -> int:
    """Start (or reuse) the home's Prefect server on 127.0.0.1 and serve the watch-folder deployment."""
    from flows.inputs import watch_kind, watch_values
    from flows.server import local as local_server
    from kg.routes.base import Context

    watch = Path(args.watch).absolute()
    if not watch.is_dir():
        raise CliError(f"{watch}: the watched folder does not exist")
    if bool(args.cron) == bool(args.interval):
        raise CliError("give exactly one of --cron EXPR and --interval SECONDS")
    out = Path(args.out).absolute()
    out.mkdir(parents=True, exist_ok=True)
    values = watch_values(_input_values(args))  # JSON-friendly, paths absolute: a deployment's parameter
    home = settings.kgfs_home()
    kind = watch_kind(values)
    _ingest(lambda show: kind.prepare_options(values, Context(home), show), args.quiet)  # dumps read once, up front
    managed = not os.environ.get("PREFECT_API_URL")  # the home's server: held (no idle stop) while serving
    from flows.watch import serve as watch_mod  # imports Prefect, configured by main()

    url = watch_mod.api_for_serving(home, args.port, args.interval)
    params = {"watch_dir": str(watch), "out_dir": str(out), "source_options": values,
              "run_options": _run_options(args).to_json(), "home": str(home), "settle_seconds": args.settle}
    schedule = {"cron": args.cron} if args.cron else {"interval": int(args.interval)}
    ui = url[:-4] if url.endswith("/api") else url
    print(f"kgfs serve: watching {watch} ({'cron ' + args.cron if args.cron else f'every {args.interval} s'}); "
          f"outputs and ledger.json in {out}", flush=True)
    print(f"kgfs serve: Prefect UI {ui} (deployment kgfs-watch/{args.deployment}); run a tick by hand with\n"
          f"  PREFECT_API_URL={url} prefect deployment run 'kgfs-watch/{args.deployment}'", flush=True)
    with local_server.lease(home) if managed else contextlib.nullcontext():
        return watch_mod.serve(args.deployment, params, schedule)


def cmd_server(args) -> int:
    """``kgfs server start|status|stop``: the user's local Prefect server, shared by every kgfs home
    (:mod:`flows.server.local`)."""
    from flows.server import local as local_server

    _server = local_server
    home = settings.kgfs_home()
    if args.server_command == "stop":
        print(f"stopped your Prefect server ({_server.server_dir(home)})" if _server.stop_server(home)
              else _server.status(home)["text"])
        return 0
    if args.server_command == "start":
        _server.ensure_server(home, port=args.port, idle_minutes=args.idle_minutes)
    st = _server.status(home)
    print(json.dumps({k: v for k, v in st.items() if k != "text"}) if getattr(args, "json", False) else st["text"])
    return 0


def cmd_datasets_list(args) -> int:
    from kg.datasets import list_datasets, resolve_names

    names = set(resolve_names(args.patterns)) if args.patterns else None
    infos = [i for i in list_datasets() if names is None or i.name in names]
    if args.json:
        print(json.dumps([{"name": i.name, "loader": i.loader or "generator", "n_instances": i.n_instances,
                           "n_features": i.n_features, "licence": i.licence, "description": i.description,
                           "files": {r: f.path for r, f in i.files.items()}} for i in infos], indent=1))
        return 0
    _console(stderr=False).print(datasets_table(infos))
    return 0


def cmd_datasets_fetch(args) -> int:
    from kg.datasets import fetch, resolve_names

    con = _console()
    for name in resolve_names(args.names):
        with con.status(f"fetching {name}…"):
            paths = fetch(name, mirror=_mirror(args), offline=args.offline or None)
        print(f"{name}: " + ", ".join(f"{role}={p}" for role, p in sorted(paths.items())))
    return 0


def cmd_build(args) -> int:
    from flows.inputs import check_output, resolve_input
    from kg.errors import HierarchyCycleWarning
    from kg.routes import build_table
    from kg.routes.base import Context

    home = settings.kgfs_home()
    with _console().status("checking the input…"):
        check_output(args.out, "folder")
        inp = resolve_input(_input_values(args))
        checked = inp.check(Context(home))  # the cheap checks first: a bad option fails before the slow part
    _check_notes(inp.name, checked)
    _ingest(lambda show: inp.prepare(Context(home), show), args.quiet)  # e.g. new dump files, with a bar
    from flows.publishing.outcome import note_files
    from flows.stages import stage_store
    from kg.formats.folder import write_table_folder

    with _console().status("building the table…"), warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=HierarchyCycleWarning)  # a note below, the list in OUT/notes/
        table = build_table(inp, Context(home), stage_store(home))  # the run's steps, stored as `kgfs run` does
        if not table.meta.get("term_names"):  # names from the knowledge graph (the DBpedia route: the dump's labels)
            names = inp.feature_names(table.feature_names.tolist(), Context(home))
            if names:
                table.meta["term_names"] = {f: names.get(f, "") for f in table.feature_names.tolist()}
        summary = write_table_folder(table, Path(args.out))
        notes = note_files({"removed_cycle_edges": [list(e) for e in table.hierarchy.removed_edges],
                            **{k: v for k, v in table.meta.items() if v}})
        for name, text in notes.items():
            (Path(args.out) / name).parent.mkdir(parents=True, exist_ok=True)
            (Path(args.out) / name).write_text(text, encoding="utf-8")
    _note(inp.name, summary["meta"], {Path(k).stem: str(Path(args.out) / k) for k in notes})
    print(f"{inp.name}: {summary['n_instances']} instances x {summary['n_features']} features, "
          f"{summary['n_edges']} edges -> {Path(args.out) / 'table.npz'} (done in {_wall_seconds():.1f} s)")
    return 0


def cmd_select(args) -> int:
    from flows.inputs import check_output
    from kg.formats.folder import read_table_folder, write_table_folder
    from selection import frames
    from selection.param_routing import method_params
    from selection.registry import selector_entry

    params = method_params(_parse_params(args.param), [args.selector]).get(args.selector, {})
    check_output(args.out, "folder")
    table = read_table_folder(args.table)
    t0 = time.perf_counter()
    out = Path(args.out)
    if selector_entry(args.selector).kind == "lazy":  # a subset per instance: written per instance
        with _console().status(f"fitting {args.selector} and selecting for each instance…"):
            sel, mask = frames.select_per_instance(table, args.selector, params)
            files = frames.write_instance_selection(table, mask, out)
        print(f"{args.selector} (lazy): {sel.mean_n_selected_:.1f} of {table.n_features} features selected per "
              f"instance on average ({time.perf_counter() - t0:.1f} s) -> {out / files['instance_features']}, "
              f"counts {out / files['instance_counts']}")
        return 0
    with _console().status(f"fitting {args.selector}…"):
        _sel, frame = frames.select_features(table, args.selector, params)
    files = frames.write_selection(frame, out)
    sub = table.select_features(frame["selected"].to_numpy())  # table order
    sub.meta["selector"] = {"name": args.selector, "params": params}
    write_table_folder(sub, out)
    print(f"{args.selector}: kept {sub.n_features} of {table.n_features} features ({time.perf_counter() - t0:.1f} s) "
          f"-> {out / files['selected']}, reduced table {out / 'table.npz'}")
    _say_kept(frame, table)
    return 0


def _say_kept(frame, table, limit: int = 10) -> None:
    """A few kept features named, with what makes them useless when they are (score 0, no name), and the
    warnings of a degenerate selection."""
    from selection.evaluation.headline import kept_features, selection_warnings

    kept = kept_features(frame, None)
    if len(kept) <= limit:
        for r in kept.to_dict("records"):
            name = r.get("name") if isinstance(r.get("name"), str) and r.get("name") else None
            unnamed = name is None and "name" in kept
            flags = [w for w, bad in (("score 0: no information about the class", r.get("score") == 0),
                                      ("unnamed: the table's ontology does not know it", unnamed)) if bad]
            print(f"  {r['feature']}" + (f" {name}" if name else "") + f" (support {r.get('support')}, score "
                  f"{r.get('score')})" + (f" -- {'; '.join(flags)}" if flags else ""))
    for w in selection_warnings(frame, table.n_instances, table.hierarchy):
        print(f"kgfs: warning: degenerate selection: {short_iris(w)}", file=sys.stderr)


def cmd_evaluate(args) -> int:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from flows.inputs import check_output, load_tables
    from selection.evaluation.cv import check_folds
    from selection.evaluation.grid import run_grid
    from selection.evaluation.plan import plan_evaluation
    from selection.evaluation.report import ReportSettings

    plan = plan_evaluation(args.protocol, args.selectors, args.classifiers, params=_parse_params(args.param),
                           options=_parse_params(args.option, "--option"), threshold=args.threshold,
                           n_splits=args.n_splits, random_state=args.seed)
    check_output(args.out, "folder")
    con = _console()
    with con.status("loading the datasets…") if not args.quiet else contextlib.nullcontext():
        datasets = load_tables(args.datasets, mirror=_mirror(args), check=args.check)
    for name, table in [(n, t) for n, t in datasets.items() if check_folds(t.y, plan.n_splits, n) is None]:
        _note(name, table.meta)  # after every table's folds are checked: a bad input stays one line
    lines = LineProgress(_say) if not (con.is_terminal or args.quiet) else None
    with Progress(SpinnerColumn(), TextColumn("evaluating"), BarColumn(), MofNCompleteColumn(), TextColumn("cells"),
                  TimeElapsedColumn(), TimeRemainingColumn(), console=con, disable=args.quiet or bool(lines)) as prog:
        tid = prog.add_task("grid", total=None)
        res = run_grid(datasets, plan, out_dir=args.out, n_jobs=args.n_jobs,
                       report=ReportSettings(plots=not args.no_plots), progress=lines.cells if lines else
                       lambda done, total: prog.update(tid, total=total, completed=done))
    out = _console(stderr=False)
    _print_summary(out, res.summary, n_rows=40)
    print(f"{res.n_cells} cells ({res.n_computed} computed, {res.n_reused} reused, {res.n_failed} failed) "
          f"in {res.seconds:.1f} s; done in {_wall_seconds():.1f} s\nresults: {res.results}\nsummary: {res.summary}"
          f"\nstats:   {res.stats}\nreport:  {res.report}" + (f"\nreport.html: {res.html}" if res.html else ""))
    if res.n_failed:
        print(f"kgfs: error: {res.n_failed} cell(s) failed; their errors are in the status/error columns of "
              f"{res.results}", file=sys.stderr)
        return 1
    return 0


def cmd_export(args) -> int:
    from flows.inputs import check_output
    from kg.formats.folder import export_file, read_table_folder

    check_output(args.out, "file")
    if args.selection and args.format not in ("graphml", "dot"):
        raise CliError(f"--selection goes with --format graphml or dot (the hierarchy with selection flags), not "
                       f"--format {args.format}")
    table = read_table_folder(args.table)
    if args.format in ("graphml", "dot"):
        import numpy as np

        from kg.formats.graph import read_selection, write_graph

        names = {k: v for k, v in (table.meta.get("term_names") or {}).items() if v}
        attrs = {"support": np.asarray(table.support), "level": np.asarray(table.hierarchy.levels)}
        selected = None
        if args.selection:
            selected, more, sel_attrs = read_selection(args.selection, table.hierarchy)
            names.update(more)
            attrs.update(sel_attrs)
        write_graph(args.format, table.hierarchy, args.out, names=names, selected=selected, attributes=attrs)
        print(f"wrote the hierarchy ({table.hierarchy.n_nodes} features, {table.hierarchy.n_edges} edges, "
              f"{len(names)} named" + (f", {int(selected.sum())} selected" if selected is not None else "")
              + f") as {args.format} -> {args.out}")
        return 0
    what = export_file(table, args.format, args.out, sparse=args.sparse, relation=args.relation,
                       id_attribute=args.id_attribute)
    print(f"wrote {what} -> {args.out}")
    return 0


def _home_store():  # the stage store alone: the cache commands need none of the stages' imports
    from kg.store.store import Store

    return Store(settings.kgfs_home() / "store")


def cmd_cache_ls(args) -> int:
    store = _home_store()
    recs = store.records()
    if not recs:
        print(f"no cached stages in {store.root}")
        return 0
    _console(stderr=False).print(cache_table(recs, store.root))
    return 0


def cmd_methods(args) -> int:
    from selection.methods_help import method_help, methods_overview

    print(method_help(args.name) if args.name else methods_overview())
    return 0


def cmd_cache_clear(args) -> int:
    store = _home_store()
    stages = sorted(d.name for d in store.root.iterdir() if d.is_dir() and d.name != "blobs") \
        if store.root.is_dir() else []
    if args.stage and args.stage not in stages:
        raise CliError(f"--stage {args.stage}: no such stage in {store.root} (stored: {', '.join(stages) or 'none'})")
    print(f"removed {store.clear(args.stage)} cached stage folder(s) from {store.root}")
    return 0


def cmd_cache_verify(args) -> int:
    problems, text = _home_store().verify_summary(remove=args.remove)
    folders, damaged = [], []
    if (settings.kgfs_home() / "dbpedia-cache" / "index").is_dir():  # (numpy, pyoxigraph: only when there is one)
        from kg.dbpedia.index import index_for_cache

        index = index_for_cache(settings.kgfs_home() / "dbpedia-cache")
        folders = index.folders()
        damaged = index.verify(remove=args.remove)  # every file of the dump index hashed against its manifest
    for p in [*problems, *damaged]:
        print(f"kgfs: {'removed' if args.remove else 'problem'}: {p}", file=sys.stderr)
    print(text)
    if folders:
        bad = len({p.file.parent if p.file.parent in folders else p.file for p in damaged})
        print(f"checked {len(folders)} folder(s) of the dump index {index.root}: " + (
            "ok" if not damaged else f"{bad} damaged" + (", removed (`kgfs ingest` builds them again)" if args.remove
                                                        else "; `kgfs ingest --dump ...` rebuilds them, --remove "
                                                             "deletes them")))
    return 1 if (problems or damaged) and not args.remove else 0


def _ingest(ingest, quiet: bool):
    """``ingest(progress)`` (new dump files into the index) under a bar of the bytes read, then of the lexicon."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn("{task.description:<40}"), BarColumn(), DownloadColumn(), TimeRemainingColumn(),
                  console=_console(), disable=quiet, transient=True) as prog:
        tid = prog.add_task("checking the dump files", total=None)
        return ingest(lambda done, total, what: prog.update(tid, **(dict(
            completed=done, total=total, description=f"dump index: reading {what}") if total else
            dict(description="dump index: building the lexicon", total=None))))


def cmd_ingest(args) -> int:
    from kg.dbpedia.index import index_for_cache, ingest_summary
    from kg.dbpedia.vocabulary import vocabulary_of
    from kg.errors import KgfsError

    vocabulary = vocabulary_of(args.preset, args.language)  # a preset file's errors name it, before any reading
    if args.relations:
        try:
            vocabulary = vocabulary.with_relations()
        except KgfsError as exc:
            raise KgfsError(f"--relations: {exc}") from None
    index = index_for_cache(settings.kgfs_home() / "dbpedia-cache")
    print(ingest_summary(_ingest(lambda show: index.ingest(args.dump, vocabulary=vocabulary,
                                                           skip_bad_lines=args.skip_bad_lines, progress=show,
                                                           full=True),
                                 args.quiet), index.root))
    return 0


# --------------------------------------------------------------------------- parser
def _add_run_options(r) -> None:
    add_options(r, RUN_OPTIONS)
    r.add_argument("--dask-address", metavar="ADDR", help="run the evaluation grid on a Dask cluster through "
                   "prefect-dask: tcp://HOST:PORT of a running `dask scheduler`, or `local` (a local cluster of "
                   "--n-jobs worker processes on 127.0.0.1)")
    r.add_argument("--batch-size", type=whole_number(), default=500, metavar="N", help="DBpedia route: texts "
                   "(entities) per annotation (fetch) task (default 500)")
    r.add_argument("--external-concurrency", type=whole_number(), default=4, metavar="N", help="DBpedia route: at "
                   "most N annotation/fetch batches in flight against Spotlight/SPARQL (default 4)")
    r.add_argument("--no-artifacts", action="store_true", help="do not publish Prefect artifacts")
    r.add_argument("--dense-exports", action="store_true", help="also write the dense table.arff and table.csv of a "
                   "large table (by default only for tables of at most 2,000,000 cells; larger ones get "
                   "table.sparse.arff and table.npz; `kgfs export --format csv --sparse` writes a sparse CSV)")


def _command(sub, common, name: str, func, raw: bool = True, **kwargs) -> argparse.ArgumentParser:
    """A subcommand parser with the common options, running ``func``."""
    if raw:
        kwargs["formatter_class"] = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser(name, parents=[common], **kwargs)
    p.set_defaults(func=func)
    return p


def _add_run(sub, common) -> None:
    r = _command(sub, common, "run", cmd_run, epilog=_methods_epilog(RUN_EXAMPLES),
                 help="the whole pipeline (default: bundled DM-BP data) as a cached Prefect flow",
                 description="Load facts, build the DAG and table, select features, cross-validate, "
                             "export. Stages are cached in the kgfs home; a second run reuses them.")
    _add_input_options(r)
    _add_run_options(r)
    r.add_argument("--out", default="kgfs-output", help="output folder (default ./kgfs-output)")
    r.add_argument("--no-cache", action="store_true", help="recompute every stage")


def _add_serve(sub, common) -> None:
    sv = _command(sub, common, "serve", cmd_serve, epilog=EPILOG_SERVE,
                  help="scheduled runs on new corpus files of a folder (Prefect deployment)",
                  description="Start a local Prefect server on 127.0.0.1 (unless PREFECT_API_URL points at "
                              "one) and serve the kgfs-watch deployment: on every tick, run the pipeline on "
                              "each corpus file of --watch not processed yet (by content hash), write its "
                              "outputs under --out and record what was done in --out/ledger.json. Runs "
                              "until interrupted (Ctrl-C); the server keeps running (`kgfs server stop`).")
    sv.add_argument("--watch", required=True, metavar="DIR", help="folder of corpus files (with --obo and "
                    "--annotations: labels tables gene<TAB>label)")
    sv.add_argument("--cron", metavar="EXPR", help='tick schedule, e.g. "*/15 * * * *"')
    sv.add_argument("--interval", type=int, metavar="SECONDS", help="tick every SECONDS instead of a cron")
    sv.add_argument("--out", default="kgfs-watch-output", metavar="DIR",
                    help="outputs (one folder per corpus) and ledger.json (default ./kgfs-watch-output)")
    sv.add_argument("--deployment", default="kgfs-watch", metavar="NAME",
                    help="deployment name (default kgfs-watch)")
    sv.add_argument("--port", type=int, help="port of the home's Prefect server when it starts (default 4200 when "
                    "free)")
    sv.add_argument("--settle", type=float, default=60.0, metavar="SECONDS",
                    help="a corpus is processed once nothing wrote to it for SECONDS (default 60): a file still being "
                         "copied in is left for a later tick")
    _add_input_options(sv, watch=True)
    _add_run_options(sv)


def _add_server(sub, common) -> None:
    s = sub.add_parser("server", parents=[common], help="your local Prefect server: start, status, stop",
                       description="The Prefect server `kgfs run` starts on 127.0.0.1 when a stage has to be "
                                   "computed, one per user, reused by every kgfs home (its runs tagged "
                                   "home:<path>; state in $KGFS_SERVER_DIR, else ~/.cache/kgfs/server), and stops "
                                   "after an idle time.")
    ssub = s.add_subparsers(dest="server_command", metavar="ACTION", required=True)
    st = _command(ssub, common, "start", cmd_server, False, help="start it (or find it running)",
                  description="Start your Prefect server in the background and wait until it answers.")
    st.add_argument("--port", type=int, help="on 127.0.0.1 (default $KGFS_SERVER_PORT, else 4200 when free, else any)")
    st.add_argument("--idle-minutes", type=float, help="stop after this many minutes without a kgfs run "
                    "(default $KGFS_SERVER_IDLE_MINUTES, else 30; 0: never)")
    _command(ssub, common, "status", cmd_server, False, help="whether it runs, its UI, its idle time",
             description="Whether your Prefect server runs, where its UI is, who uses it, when it stops.").add_argument(
        "--json", action="store_true", help="machine-readable output")
    _command(ssub, common, "stop", cmd_server, False, help="stop it", description="Stop your Prefect server.")


def _add_datasets(sub, common) -> None:
    d = sub.add_parser("datasets", parents=[common], help="the dataset registry: list, fetch",
                       description="The dataset registry (the manifest that ships with kgfs). Files are found in the "
                                   "repository, the mirror (--mirror / KGFS_DATA_MIRROR), the user cache, or "
                                   "downloaded with their sha256 checked.")
    dsub = d.add_subparsers(dest="datasets_command", metavar="ACTION", required=True)
    dl = _command(dsub, common, "list", cmd_datasets_list, False, help="list the datasets",
                  description="List the datasets.")
    dl.add_argument("patterns", nargs="*", help="glob patterns, e.g. 'rpv/*-BP'")
    dl.add_argument("--json", action="store_true", help="machine-readable output")
    df = _command(dsub, common, "fetch", cmd_datasets_fetch, False, help="find or download dataset files",
                  description="Find (mirror, cache) or download the files of datasets; prints their paths.")
    df.add_argument("names", nargs="+", help="dataset names or glob patterns")
    df.add_argument("--mirror", metavar="DIR", help="local data mirror folder (default $KGFS_DATA_MIRROR)")
    df.add_argument("--offline", action="store_true", help="never download")


def _add_cache(sub, common) -> None:
    c = sub.add_parser("cache", parents=[common], help="list, verify or clear the stage cache",
                       description="The stage store of `kgfs run` in the kgfs home.")
    csub = c.add_subparsers(dest="cache_command", metavar="ACTION", required=True)
    _command(csub, common, "ls", cmd_cache_ls, False, help="list cached stages", description="List cached stages.")
    cc = _command(csub, common, "clear", cmd_cache_clear, False, help="remove cached stages",
                  description="Remove cached stage outputs (all, or one stage).")
    cc.add_argument("--stage", metavar="STAGE", help="one stage (a folder of the store: facts, table, select, "
                                                     "evaluate, export, a route's steps and batches, ...)")
    cv = _command(csub, common, "verify", cmd_cache_verify, False, help="check every cached file against its record",
                  description="Check the content (sha256) of every cached stage file and of every file of the dump "
                              "index against its record or manifest; exit status 1 on a problem.")
    cv.add_argument("--remove", action="store_true", help="delete the stage (and dump index) folders that do not "
                                                          "verify")


def _add_one_step_commands(sub, common) -> None:
    b = _command(sub, common, "build", cmd_build, help="build a feature table (DAG + binary matrix)",
                 description="Build the feature table of a registry dataset or of OBO + annotations; "
                             "writes OUT/table.npz and OUT/summary.json.",
                 epilog="examples:\n  kgfs build --dataset rpv/CE-BP --out T\n"
                        "  kgfs build --obo go.obo.gz --annotations genes.tsv --labels labels.tsv --out T\n"
                        "  kgfs build --csv mytable.csv --hierarchy edges.csv --out T")
    _add_input_options(b)
    b.add_argument("--out", required=True, metavar="DIR", help="output folder")

    s = _command(sub, common, "select", cmd_select, help="select features of a table",
                 description="Fit a selector on a whole table; writes OUT/selected_features.csv, "
                             "OUT/selection.csv (every feature with its score) and the reduced table. A lazy "
                             "selector (a subset per instance) writes OUT/instance_features.csv (instance, "
                             "feature, value), OUT/instance_counts.csv and OUT/selection.csv instead.",
                 epilog=_methods_epilog("example:\n  kgfs select --table T --selector shsel-ig-prune --param "
                                        "threshold=0.9 --out S\n", ("selector",)))
    s.add_argument("--table", required=True, metavar="DIR", help="table folder from `kgfs build`")
    s.add_argument("--selector", default="shsel-ig-prune", help="registered selector (default shsel-ig-prune)")
    s.add_argument("--param", action="append", metavar="KEY=VALUE", help="selector parameter, e.g. threshold=0.9 "
                   "(`kgfs methods NAME` lists them)")
    s.add_argument("--out", required=True, metavar="DIR", help="output folder")

    e = _command(sub, common, "evaluate", cmd_evaluate, help="cross-validate selectors x classifiers on datasets",
                 description="Evaluate selectors x classifiers x datasets under a protocol; finished cells "
                             "are kept, so an interrupted evaluation resumes.",
                 epilog=_methods_epilog("example:\n  kgfs evaluate --datasets aire/DM-BP rpv/DM-BP --selectors "
                                        "shsel-ig-prune complete --classifiers nb --param threshold=0.9 --out E\n"))
    add_options(e, EVALUATE_OPTIONS)

    x = _command(sub, common, "export", cmd_export, help="export a table as ARFF, CSV, or its hierarchy as edges, "
                                                         "GraphML or DOT",
                 description="Export a table folder: WEKA ARFF (dense or --sparse), CSV (id, features, "
                             "label; or --sparse: long format), or the hierarchy as a child,parent edges CSV, "
                             "GraphML or Graphviz DOT (with the features' names and, with --selection, which ones a "
                             "selector kept).",
                 epilog="examples:\n  kgfs export --table T --format arff --sparse --out t.arff\n"
                        "  kgfs export --table kgfs-output --format graphml --selection kgfs-output/selection.csv "
                        "--out hierarchy.graphml")
    x.add_argument("--table", required=True, metavar="DIR", help="table folder from `kgfs build` (or a run's output)")
    x.add_argument("--format", choices=["arff", "csv", "edges", "graphml", "dot"], default="arff")
    x.add_argument("--selection", metavar="CSV", help="graphml/dot: the selection.csv (or selected_features.csv) of "
                   "`kgfs select` or `kgfs run`: each node says whether it was kept, with its score")
    x.add_argument("--sparse", action="store_true", help="ARFF: WEKA's sparse format; CSV: one instance_id,label,"
                   "feature row per feature an instance has (for large tables)")
    x.add_argument("--relation", help="ARFF @relation name")
    x.add_argument("--id-attribute", metavar="NAME", help="ARFF: write the instance ids as a first string "
                   "attribute of this name (WEKA classifiers would otherwise need it removed)")
    x.add_argument("--out", required=True, metavar="FILE")

    m = _command(sub, common, "methods", cmd_methods, help="list selectors, classifiers and protocols, or show one",
                 description="Without NAME: every registered selector, classifier and protocol. With NAME: its "
                             "parameters (type, range or choices, default, meaning), paper and protocols.")
    m.add_argument("name", nargs="?", metavar="NAME", help="a selector, classifier or protocol")


def _add_ingest(sub, common) -> None:
    g = _command(sub, common, "ingest", cmd_ingest, help="read RDF dumps (DBpedia, Wikidata, yours) once into the "
                                                         "index of the kgfs home",
                 description="Read each dump file once (the new ones: a file is known by its content) into the "
                             "index of the kgfs home, keeping what the preset reads, and build the lexicon; "
                             "`kgfs run/build/serve --dump` (with the same --preset) then look entities up there "
                             "(they ingest on first use too). Every file of the files' index folders is checked "
                             "against its recorded sha256 first; what does not verify is built again.",
                 epilog="examples:\n  kgfs ingest --dump dbpedia/\n  kgfs run --corpus tweets.tsv --dump dbpedia/\n"
                        "  kgfs ingest --preset wikidata --dump latest-truthy.nt.bz2\n"
                        "  kgfs ingest --preset wikidata --relations --dump latest-truthy.nt.bz2\n"
                        "  kgfs run --corpus people.csv --entity-columns qid --preset wikidata "
                        "--dump latest-truthy.nt.bz2")
    g.add_argument("--dump", nargs="+", required=True, metavar="PATH", help="dump files or folders")
    g.add_argument("--preset", metavar="NAME|FILE", help="the graph's vocabulary: dbpedia (default), wikidata, or a "
                   ".toml file describing your graph")
    g.add_argument("--language", metavar="TAG", help="language of the labels kept for the lexicon (default: the "
                   "preset's, en)")
    g.add_argument("--skip-bad-lines", action="store_true", help="skip (and count) malformed N-Triples lines")
    g.add_argument("--relations", action="store_true", help="also keep the relation triples (entity, relation "
                   "predicate, IRI) for --features relations / qualified-relations (a run asking for them reads "
                   "the files once more otherwise); the index then serves types-only runs too")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``kgfs`` argument parser (one subcommand per ``cmd_*`` function).

    With ``command`` (the one being run), only that command's parser gets the options of the kinds of
    input, which come from the registered routes (:mod:`kg.routes`): ``kgfs --help`` and the other
    commands do not import them.
    """
    global _FULL
    _FULL = None if command is None else {command}
    common = argparse.ArgumentParser(add_help=False)
    # SUPPRESS: a subcommand's parser must not reset a value given before the subcommand
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show tracebacks and debug logs")
    common.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS, help="no progress display")
    common.add_argument("--home", metavar="DIR", default=argparse.SUPPRESS,
                        help="kgfs home: stage store and Prefect state (default $KGFS_HOME or ./.kgfs)")
    p = Parser(
        prog="kgfs", parents=[common],
        description="Hierarchical binary features from knowledge graphs (Gene Ontology, DBpedia) and "
                    "hierarchical feature selection (SHSEL and others).",
        epilog="Run `kgfs COMMAND --help` for the options of a command.",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in (_add_run, _add_datasets, _add_one_step_commands, _add_serve, _add_server, _add_cache, _add_ingest):
        add(sub, common)
    if command and command in sub.choices:  # a mistyped option of this command: "did you mean"
        parsers = [sub.choices[command]]
        for a in sub.choices[command]._actions:
            if isinstance(a, argparse._SubParsersAction):
                parsers += list(a.choices.values())
        p.suggest_from = sorted({o for q in parsers for o in q._option_string_actions})
    return p


# --------------------------------------------------------------------------- entry point
class _StderrHandler(logging.StreamHandler):
    """A handler writing to ``sys.stderr`` as it is when a record comes (not when the handler was made).

    While a live display runs, ``rich`` replaces ``sys.stderr`` by a proxy that prints above the
    display; a handler holding the original stream would write through it and leave a copy of the
    display's rows on the screen each time (issue 27: the "Prefect server" and "annotate" rows
    three times).
    """

    def __init__(self):
        super().__init__(sys.stderr)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value):  # logging sets it; the current sys.stderr is used anyway
        pass


#: Longest warning or log line shown in the terminal: room for two long paths (a longer one, a list, is cut).
LINE_LIMIT = 600


def _one_line(text: str) -> str:
    """A message on one line of at most :data:`LINE_LIMIT` characters (its lists live in the output folder's notes).

    A longer one keeps its beginning (what happened) and its end (what kgfs does about it), cut in the middle.

    Examples
    --------
    >>> s = _one_line("file " + "x" * 400 + " differs; reading it again")
    >>> len(s) <= LINE_LIMIT, s.startswith("file xx"), s.endswith("differs; reading it again"), " … " in s
    (True, True, True, True)
    """
    text = " ".join(str(text).split())
    if len(text) <= LINE_LIMIT:
        return text
    head = LINE_LIMIT * 2 // 3
    return text[:head].rstrip(", ") + " … " + text[len(text) - (LINE_LIMIT - head - 3):].lstrip(", ")


class _Quiet(logging.Filter):
    """What the terminal leaves out: Prefect's and its server's logs (its UI keeps them), a message
    said already, and the reports a command prints afterwards as notes (with their full lists in files)."""

    def __init__(self):
        super().__init__()
        self.seen: set[str] = set()

    def filter(self, record):
        if record.name.startswith(("prefect", "uvicorn", "httpx")):  # Prefect's UI shows them (--debug here)
            return False
        if getattr(record, "kgfs_noted", False):  # the table's notes say it after the run (kg.errors.NOTED)
            return False
        key = _one_line(record.getMessage())
        if key in self.seen:
            return False
        self.seen.add(key)
        return True


class _OneLine(settings.OneLine):
    """A record's first line, no traceback, well-known namespaces short, at most :data:`LINE_LIMIT` characters."""

    def format(self, record):
        return _one_line(short_iris(super().format(record)))


def _setup_logging(debug: bool) -> None:
    level = logging.DEBUG if debug else logging.WARNING
    handler = _StderrHandler()
    handler.setLevel(level)  # propagated INFO lines (Prefect's flow logs, kept for the UI) stay out of the terminal
    if debug:
        handler.setFormatter(logging.Formatter("kgfs: %(levelname)s: %(name)s: %(message)s"))
    else:  # one line per record, never a traceback; Prefect's records of a failed run go to its UI, and the
        # error itself is the command's last line (main)
        handler.setFormatter(_OneLine("kgfs: %(levelname)s: %(message)s"))
        handler.addFilter(_Quiet())
    handler._kgfs = True  # replace only our own handler when main() is called again (tests)
    root = logging.getLogger()
    root.handlers[:] = [h for h in root.handlers if not getattr(h, "_kgfs", False)] + [handler]
    root.setLevel(level)
    for noisy in ("httpx", "httpcore", "asyncio", "uvicorn", "matplotlib", "numba"):
        logging.getLogger(noisy).setLevel(logging.WARNING)

    shown: set[str] = set()

    def showwarning(message, category, filename, lineno, file=None, line=None):
        text = _one_line(short_iris(str(message)))
        if text not in shown:  # the same warning from several threads or stages: once
            shown.add(text)
            print(f"kgfs: warning: {text}", file=sys.stderr)

    if not debug:
        warnings.showwarning = showwarning
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.filterwarnings("ignore", category=FutureWarning)
        warnings.filterwarnings("ignore", module=r"prefect(\.|$)")


_COMMANDS = ("run", "build", "serve", "datasets", "select", "evaluate", "export", "methods", "server", "cache",
             "ingest")


def _command_of(argv: list[str]) -> str:
    """The command an argument list runs (``""`` when none: ``kgfs --help``)."""
    it = iter(argv)
    for a in it:
        if a == "--home":
            next(it, None)  # its value
        elif not a.startswith("-"):
            return a if a in _COMMANDS else ""
    return ""


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``kgfs`` console script; returns the exit status."""
    parser = build_parser(_command_of(sys.argv[1:] if argv is None else argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help or a usage error (argparse printed it)
        return int(exc.code or 0)
    for name in ("debug", "quiet", "home"):
        if not hasattr(args, name):
            setattr(args, name, None if name == "home" else False)
    debug = bool(args.debug)
    # offline Prefect settings before anything imports prefect; Prefect's own console logging
    # is silenced (the CLI reports errors in one line) unless --debug
    settings.configure(args.home, log_level="DEBUG" if debug else "CRITICAL")
    _setup_logging(debug)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("kgfs: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`kgfs ... | head`): stop quietly, as a shell tool does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except BaseException as exc:  # noqa: BLE001 - every error becomes one line unless --debug
        if debug or isinstance(exc, SystemExit):
            raise

        kind, text = error_line(exc)
        kind = "error" if isinstance(exc, CliError) else kind
        print(f"kgfs: {kind}: {text}" + (" (run with --debug for the traceback)" if kind != "error" else ""),
              file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
