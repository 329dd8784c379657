"""The ``kgfs`` commands that build, select, evaluate, serve and predict: one ``cmd_*`` function per subcommand, each
given the parsed arguments (the parser: :mod:`flows.cli.parser`; the entry point, logging and one-line errors:
:mod:`flows.cli.main`; the commands that list and look after what the registry and the home hold, datasets, the
stage store, the methods: :mod:`flows.cli.catalog`)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from flows import progress, settings
from flows.cli.console import (
    SHORT_NAMESPACES,
    LineProgress,
    make_console,
    summary_table,
    table_notes_lines,
)
from kg.errors import HierarchyCycleWarning, KgfsError

__all__ = ["CliError", "cmd_build", "cmd_evaluate", "cmd_export", "cmd_fit", "cmd_ingest", "cmd_predict", "cmd_run",
           "cmd_select", "cmd_serve", "cmd_server", "short_iris"]

from kg.rdf import cache_folder

if TYPE_CHECKING:
    from flows.run_options import RunOptions

# Imported where they are used, for the start-up time of `kgfs --help`, of `kgfs datasets list` and of a cached
# run: the kinds of input (kg.routes, flows.inputs), the local server (urllib, subprocess), rich (the console,
# ~0.1 s), flows.runner and flows.stages (numpy, scipy), scikit-learn (selection), Prefect.


class CliError(Exception):
    """A usage problem found after parsing (printed as one line, exit 1)."""


def _console(stderr: bool = True):
    return make_console(stderr)


def _parse_params(items: list[str] | None, option: str = "--param") -> dict:
    from selection.params import parse_assignments

    return parse_assignments(items, option)


def _mirror(args) -> str | None:
    m = getattr(args, "mirror", None) or os.environ.get("KGFS_DATA_MIRROR") or None
    return str(Path(m).absolute()) if m else None


def _input_values(args) -> dict:
    """The values of the input options given on the command line (``None``: not given)."""
    from flows.inputs import input_options

    return {o.field: getattr(args, o.field, None) for _title, opts in input_options() for o in opts}


def _note(name: str, meta, files=None) -> None:
    """What a table's meta (or summary meta) reports about its input, naming a few (the full lists: ``files``)."""
    for line in table_notes_lines(meta, files=files):
        print(f"kgfs: note: {name}: {line}", file=sys.stderr)


def short_iris(text: str) -> str:
    """``text`` with the IRIs of well-known namespaces written short (``dbc:Cat_554``)."""
    for ns, prefix in SHORT_NAMESPACES.items():
        text = text.replace(ns, prefix)
    return text


def _check_notes(name: str, report) -> None:
    """What an input's up-front check says a person should know (the id column it chose, ...)."""
    for line in (report or {}).get("notes") or []:
        print(f"kgfs: note: {name}: {line}", file=sys.stderr)


def _labels_needed(checked, what: str) -> None:
    """Refuse an input its up-front check found without a class (``no_labels``: the file, the header expected, the
    columns found) when the command needs one: before anything is built, stored or started."""
    if (checked or {}).get("no_labels"):
        raise KgfsError(f"{checked['no_labels']}; {what} needs the class of each instance: name the last column "
                        "label or class")


def _labelled_table(table, where: str, what: str) -> None:
    """Refuse a table folder without labels (one built from an unlabelled input) when the command needs them."""
    if table.y is None:
        raise CliError(f"{where}: the table has no labels (built from an input without a class column); {what} "
                       "needs the class of each instance")


def _wall_seconds() -> float:
    """Seconds since kgfs started in this process (what "done in" says: the command's wall time, its imports
    included, a shell's time before it not: :data:`flows.cli.STARTED`)."""
    from flows.cli import STARTED

    return time.monotonic() - STARTED


def _print_summary(console, summary_csv: Path, n_rows: int = 12, **kw) -> None:
    table = summary_table(summary_csv, n_rows, width=console.width if console.is_terminal else None, **kw)
    if table is not None:
        console.print(table)


def _outputs_notes(outputs) -> dict:
    """Report key -> its full list in the output folder (``notes/<key>.csv``)."""
    return {Path(k).stem: str(v) for k, v in outputs.items() if str(k).startswith("notes/")}


def _check_selector_params(args) -> None:
    """``--selector`` and its ``--param`` values checked against the registry's declarations, before anything heavy
    is imported (no estimator, no scikit-learn: :mod:`selection.declarations`) and before a server boots: an unknown
    selector, a mistyped parameter or a value out of range fails at once, with the message :func:`_run_options` would
    give (which checks everything again, the evaluation's methods and protocol first)."""
    from selection.param_routing import whole_table_params

    whole_table_params(args.selector, _parse_params(args.param))


# --------------------------------------------------------------------------- commands
def cmd_run(args) -> int:
    _check_selector_params(args)
    from flows.cli.display import RunDisplay
    from flows.inputs import check_output, resolve_input
    from flows.server import local as local_server
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
            _labels_needed(checked, "kgfs run (it selects and evaluates against the class)")
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
    from rich.markup import escape

    for a in result.results.get("answer") or ():  # the answer first: the best method against the baseline
        out.print(f"[bold]{escape(a)}[/]")
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
    plan = plan_evaluation(args.protocol, eval_selectors, args.classifiers, n_splits=args.n_splits)
    if plan.protocol.data != "table":  # a run evaluates the table it built
        raise CliError(f"--protocol {args.protocol} generates the features inside each fit from a dataset's graph; "
                       f"kgfs run evaluates the table it builds: use kgfs evaluate --protocol {args.protocol} "
                       "--datasets NAME")
    params = whole_table_params(args.selector, _parse_params(args.param))  # --selector's only; never a lazy one
    return RunOptions(selector=args.selector, selector_params=params,
                      eval_selectors=tuple(dict.fromkeys(eval_selectors)), classifiers=tuple(args.classifiers),
                      protocol=args.protocol, n_splits=args.n_splits, seed=args.seed, n_jobs=args.n_jobs,
                      artifacts=not args.no_artifacts, dask_address=args.dask_address, batch_size=args.batch_size,
                      external_concurrency=args.external_concurrency,
                      dense_exports=True if getattr(args, "dense_exports", False) else None)


def cmd_serve(args) -> int:
    """Serve the watch-folder deployment on the user's Prefect server (found or started on 127.0.0.1, as `kgfs run`
    does) unless ``PREFECT_API_URL`` names one; until SIGINT or SIGTERM. With ``--model``, each new corpus is
    predicted with the model (:func:`flows.predict.predict_file`) instead of run through the pipeline."""
    from flows.inputs import watch_kind, watch_values
    from flows.server import local as local_server
    from flows.watch.api import api_for_serving
    from flows.words import OPTION_WORDS
    from kg.routes.base import Context

    watch = Path(args.watch).absolute()
    if not watch.is_dir():
        raise CliError(f"{watch}: the watched folder does not exist")
    _check_selector_params(args)
    if bool(args.cron) == bool(args.interval):
        raise CliError("give exactly one of --cron EXPR and --interval SECONDS")
    values = watch_values(_input_values(args))  # JSON-friendly, paths absolute: a deployment's parameter
    home = settings.kgfs_home()
    model = _serving_model(args, values) if args.model else None  # checked before anything starts or is written
    kind = type(model[1]) if model else watch_kind(values)
    prepare = model[1].prepare if model else lambda ctx, show: kind.prepare_options(values, ctx, show)
    out = Path(args.out).absolute()
    out.mkdir(parents=True, exist_ok=True)
    managed = not os.environ.get("PREFECT_API_URL")  # the user's server: held (no idle stop) while serving
    with local_server.starting(home, managed, _announce):  # boots meanwhile
        _ingest(lambda show: prepare(Context(home), show), args.quiet)  # dumps read up front
    # before Prefect is imported: it reads PREFECT_API_URL then (without it, a temporary server of this process)
    url = api_for_serving(home, args.port, args.interval, announce=_announce)
    from flows.watch import serve as watch_mod  # imports Prefect

    params = {"watch_dir": str(watch), "out_dir": str(out), "source_options": values, "home": str(home),
              # the errors in the ledger say this command's options; the watched file is the kind's file (--corpus)
              "ledger_options": {"settle_seconds": args.settle, "words": {**OPTION_WORDS, kind.watch_field: "--watch"}}}
    if model:
        params["prediction"] = {"model": str(Path(args.model).absolute()), "top": args.top,
                                "batch_size": args.batch_size}
    else:
        params["run_options"] = _run_options(args).to_json()
    schedule = {"cron": args.cron} if args.cron else {"interval": int(args.interval)}
    ui = url[:-4] if url.endswith("/api") else url
    when = "cron " + args.cron if args.cron else f"every {args.interval} s"
    print(f"kgfs serve: watching {watch} ({when}); " + (
        f"predicting each new corpus with the model {params['prediction']['model']} ({model[0]}); predictions and "
        f"ledger.json in {out}" if model else f"outputs and ledger.json in {out}"), flush=True)
    print(f"kgfs serve: Prefect UI {ui} (deployment kgfs-watch/{args.deployment}); run a tick by hand with\n"
          f"  PREFECT_API_URL={url} prefect deployment run 'kgfs-watch/{args.deployment}'\n"
          "kgfs serve: Ctrl-C stops serving", flush=True)
    return watch_mod.serve(args.deployment, params, schedule,
                           lease=local_server.lease(home) if managed else None)


def _serving_model(args, values: dict):
    """``kgfs serve --model``: the model loaded (a damaged one refused in one line naming its file), the evaluation's
    options refused, the input options checked to be a corpus's reading options; ``(description, the model's
    training input)``."""
    from flows import predict
    from selection.model import describe_model, load_model

    given = [flag for dest, (flag, default) in getattr(args, "evaluation_options", {}).items()
             if getattr(args, dest, default) != default]
    if given:
        raise CliError(f"{given[0]} does not apply with --model: the model's selector and classifier predict, "
                       "nothing is evaluated (give it without --model to run the pipeline on each corpus)")
    model = load_model(args.model)
    return describe_model(model.info), predict.model_input(model, values)


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


def cmd_build(args) -> int:
    from flows.inputs import check_output, resolve_input
    from kg.routes import run_steps
    from kg.routes.base import Context, with_names

    home = settings.kgfs_home()
    with _console().status("checking the input…"):
        check_output(args.out, "folder")
        inp = resolve_input(_input_values(args))
        checked = inp.check(Context(home))  # the cheap checks first: a bad option fails before the slow part
    _check_notes(inp.name, checked)
    if checked.get("no_labels"):  # a table of features alone is a table kgfs can build
        print(f"kgfs: note: {inp.name}: {checked['no_labels']}; building the table without labels (kgfs select, "
              "evaluate, run and fit need them)", file=sys.stderr)
    _ingest(lambda show: inp.prepare(Context(home), show), args.quiet)  # e.g. new dump files, with a bar
    from flows.publishing.outcome import note_files
    from flows.stages import stage_store
    from kg.formats.folder import copy_table_folder, write_table_folder
    from kg.table import FeatureTable

    with _console().status("building the table…"), warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=HierarchyCycleWarning)  # a note below, the list in OUT/notes/
        stored = run_steps(inp, stage_store(home), Context(home))["table"]  # stored as `kgfs run` does
        table_file = stored.path("table")
        meta, removed, named = FeatureTable.load_notes(table_file)
        table = None if named else with_names(FeatureTable.load(table_file),
                                              lambda f: inp.feature_names(f, Context(home)))
        if table is None or not table.meta.get("term_names"):  # the stored table as it is (not read and written)
            summary = copy_table_folder(table_file.parent, Path(args.out))
        else:  # named from the knowledge graph here: its route's table step did not name them
            summary = write_table_folder(table, Path(args.out))
        notes = note_files({"removed_cycle_edges": [list(e) for e in removed], **{k: v for k, v in meta.items() if v}})
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
    _labelled_table(table, f"--table {args.table}", f"kgfs select ({args.selector} selects against the class)")
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
    from rich.markup import escape
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from flows.inputs import check_output, load_instances_named, load_tables
    from flows.publishing.answer import answer_sentences, read_answer
    from selection.evaluation.cv import check_folds
    from selection.evaluation.grid import run_grid
    from selection.evaluation.plan import plan_evaluation
    from selection.evaluation.report import ReportSettings

    plan = plan_evaluation(args.protocol, args.selectors, args.classifiers, params=_parse_params(args.param),
                           options=_parse_params(args.option, "--option"), threshold=args.threshold,
                           n_splits=args.n_splits, random_state=args.seed)
    check_output(args.out, "folder")
    con = _console()
    instances = plan.protocol.data == "instances"  # the protocol generates the features in the fit (split)
    with con.status("loading the datasets…") if not args.quiet else contextlib.nullcontext():
        datasets = load_instances_named(args.datasets, mirror=_mirror(args)) if instances else \
            load_tables(args.datasets, mirror=_mirror(args), check=args.check)
    for name, table in [] if instances else datasets.items():
        _labelled_table(table, f"--datasets {name}", "kgfs evaluate")
    for name, table in [] if instances else [(n, t) for n, t in datasets.items()
                                             if check_folds(t.y, plan.n_splits, n) is None]:
        _note(name, table.meta)  # after every table's folds are checked: a bad input stays one line
    lines = LineProgress(_say) if not (con.is_terminal or args.quiet) else None
    with Progress(SpinnerColumn(), TextColumn("evaluating"), BarColumn(), MofNCompleteColumn(), TextColumn("cells"),
                  TimeElapsedColumn(), TimeRemainingColumn(), console=con, disable=args.quiet or bool(lines)) as prog:
        tid = prog.add_task("grid", total=None)
        res = run_grid(datasets, plan, out_dir=args.out, n_jobs=args.n_jobs,
                       report=ReportSettings(plots=not args.no_plots, answer=answer_sentences),
                       progress=lines.cells if lines else
                       lambda done, total: prog.update(tid, total=total, completed=done))
    out = _console(stderr=False)
    for a in answer_sentences(read_answer(res.answer)) if res.answer else ():  # the answer first
        out.print(f"[bold]{escape(a)}[/]")
    _print_summary(out, res.summary, n_rows=40, **({"title": "fixed split: the test part scored once, every setting "
                                                             "tuned on the training part (report.html: the intervals, "
                                                             "the settings chosen)"} if instances else {}))
    print(f"{res.n_cells} cells ({res.n_computed} computed, {res.n_reused} reused, {res.n_failed} failed) "
          f"in {res.seconds:.1f} s; done in {_wall_seconds():.1f} s\nresults: {res.results}\nsummary: {res.summary}"
          f"\nstats:   {res.stats}\nreport:  {res.report}" + (f"\nreport.html: {res.html}" if res.html else "")
          + (f"\nselected features: {res.selected_features}" if res.selected_features else ""))
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
        enriched = set()
        if table.y is not None:  # the class enrichment of every feature, as selection.csv has it
            from selection.measures.enrichment import class_enrichment

            frame = class_enrichment(table.X, table.y).frame()
            attrs.update({c: frame[c].to_numpy() for c in frame})
            enriched = set(frame)
        selected = None
        if args.selection:
            selected, more, sel_attrs = read_selection(args.selection, table.hierarchy)
            names.update(more)
            # the table's enrichment kept: a selected_features.csv lists the kept features only (the same numbers)
            attrs.update({k: v for k, v in sel_attrs.items() if k not in enriched})
        write_graph(args.format, table.hierarchy, args.out, names=names, selected=selected, attributes=attrs)
        print(f"wrote the hierarchy ({table.hierarchy.n_nodes} features, {table.hierarchy.n_edges} edges, "
              f"{len(names)} named" + (f", {int(selected.sum())} selected" if selected is not None else "")
              + f") as {args.format} -> {args.out}")
        return 0
    what = export_file(table, args.format, args.out, sparse=args.sparse, relation=args.relation,
                       id_attribute=args.id_attribute)
    print(f"wrote {what} -> {args.out}")
    return 0


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
    from kg.rdf.index.dumpindex import index_for_cache, ingest_summary
    from kg.rdf.vocabulary import vocabulary_of

    vocabulary = vocabulary_of(args.preset, args.language)  # a preset file's errors name it, before any reading
    if args.relations:
        try:
            vocabulary = vocabulary.with_relations()
        except KgfsError as exc:
            raise KgfsError(f"--relations: {exc}") from None
    index = index_for_cache(cache_folder(settings.kgfs_home()))
    with _ingest_workers(args.n_jobs, args.dask_address) as executor:
        print(ingest_summary(_ingest(lambda show: index.ingest(args.dump, vocabulary=vocabulary,
                                                               skip_bad_lines=args.skip_bad_lines, progress=show,
                                                               full=True, executor=executor),
                                     args.quiet), index.root))
    return 0


@contextlib.contextmanager
def _ingest_workers(n_jobs: int, address: str | None):
    """The executor of ``kgfs ingest``'s workers: none (one file after another), worker processes (``--n-jobs``), or
    a Dask cluster (``--dask-address``: a scheduler's address, or ``local``), reached before any file is read."""
    n = (os.cpu_count() or 1) if n_jobs == -1 else n_jobs
    if address is None:
        if n <= 1:
            yield None
            return
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("spawn")) as pool:
            yield pool
        return
    import logging

    from distributed import Client, LocalCluster

    logging.getLogger("distributed").setLevel(logging.WARNING)  # its INFO lines (workers starting, closing) are noise
    with contextlib.ExitStack() as stack:
        if address == "local":
            import dask

            # Dask's nanny sets MALLOC_TRIM_THRESHOLD_=65536 in its workers: it costs an ingest about 10%
            env = {k: v for k, v in dask.config.get("distributed.nanny.pre-spawn-environ", {}).items()
                   if k != "MALLOC_TRIM_THRESHOLD_"}
            with dask.config.set({"distributed.nanny.pre-spawn-environ": env}):
                cluster = stack.enter_context(LocalCluster(n_workers=max(2, n), threads_per_worker=1, processes=True,
                                                           host="127.0.0.1", dashboard_address=None))
            address = cluster.scheduler_address
        elif not re.fullmatch(r"(tcp|tls)://[^/\s]+:\d+", address):
            raise CliError(f"--dask-address {address!r}: give tcp://HOST:PORT of a running `dask scheduler`, or local")
        try:
            client = stack.enter_context(Client(address, timeout="10s"))
        except (OSError, TimeoutError) as exc:
            raise CliError(f"--dask-address {address}: no Dask scheduler answers there ({exc})") from None
        yield client.get_executor(pure=False)


def cmd_fit(args) -> int:
    """Build the table of the input (through the stage store, as `kgfs run`), fit --selector and the first
    --classifier on all of it and write the model folder (:mod:`selection.model`)."""
    from flows import predict
    from flows.inputs import check_output, resolve_input
    from kg.routes.base import Context
    from selection.model import describe_model
    from selection.param_routing import method_params

    home = settings.kgfs_home()
    classifier = args.classifiers[0]
    with _console().status("checking the input…") if not args.quiet else contextlib.nullcontext():
        check_output(args.model, "folder", "--model")
        params = method_params(_parse_params(args.param), [args.selector], [classifier])
        inp = resolve_input(_input_values(args))
        checked = inp.check(Context(home))
        _labels_needed(checked, "kgfs fit (its selector and classifier learn the class)")
    _check_notes(inp.name, checked)
    _ingest(lambda show: inp.prepare(Context(home), show), args.quiet)
    with _console().status(f"building the table and fitting {args.selector} + {classifier}…") \
            if not args.quiet else contextlib.nullcontext():
        model, table = predict.fit(inp, home, args.model, selector=args.selector,
                                   params=params.get(args.selector, {}), classifier=classifier,
                                   classifier_params=params.get(classifier, {}), batch_size=args.batch_size)
    _note(inp.name, table.meta)
    print(f"{inp.name}: {describe_model(model.info)}, classes {model.info['training']['classes']} -> model "
          f"{Path(args.model).absolute()} (done in {_wall_seconds():.1f} s)")
    return 0


def cmd_predict(args) -> int:
    """Score new data with a model of `kgfs fit`: OUT/predictions.csv and OUT/predict.json (see :mod:`flows.predict`:
    the work ``kgfs serve --model`` does with each new corpus file, too)."""
    from flows import predict
    from flows.inputs import check_output, resolve_input
    from kg.formats.folder import read_table_folder
    from selection.model import load_model

    home = settings.kgfs_home()
    check_output(args.out, "folder")
    model = load_model(args.model)  # a damaged or foreign model is refused before any work
    values = _input_values(args)
    given = sorted(k for k, v in values.items() if v is not None and v is not False)
    if args.table:
        if given:
            raise CliError("--table goes alone: the table's features are the model's already (give --corpus or "
                           "--dataset to generate them)")
        report = predict.predict_into(model, read_table_folder(args.table), args.out, top=args.top,
                                      name=Path(args.table).name)
    else:
        inp = predict.new_input(model.info.get("input") or {}, values) or resolve_input(values)
        report = predict.predict_input(
            model, inp, home, args.out, top=args.top, batch_size=args.batch_size,
            status=None if args.quiet else lambda text: _console().status(f"{text}…"),
            ingest=lambda read: _ingest(read, args.quiet))
        _check_notes(inp.name, report)
    name, unknown = report["name"], report["n_without_features"]
    print(f"{name}: predicted {report['n_instances']} instances with {report['model']}: "
          + ", ".join(f"{c} {n}" for c, n in report["classes"].items())
          + (f"; accuracy {report['accuracy']:.3f} against its labels" if report.get("accuracy") is not None else ""))
    print(f"{unknown} of {report['n_instances']} instances have none of the model's features (entities unknown to "
          f"the graph, or not linked): predicted from no feature" if unknown else
          f"every instance has some of the model's {report['n_model_features']} features", flush=True)
    if report["n_new_features"]:
        print(f"kgfs: note: {name}: {report['n_new_features']} features the model was not fitted on were dropped",
              file=sys.stderr)
    print(f"predictions -> {report['predictions']} (report {Path(args.out) / predict.REPORT}; done in "
          f"{_wall_seconds():.1f} s)")
    return 0
