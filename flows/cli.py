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

from flows import settings

__all__ = ["main", "build_parser"]

EPILOG_RUN = """examples:
  kgfs run                                   # bundled Drosophila ageing genes (GO BP), SHSEL + NB, 10-fold CV
  kgfs run --dataset aire/DM-BP --mirror ../shared/data --out out/
  kgfs run --obo go.obo.gz --annotations genes.tsv --labels labels.tsv --min-support 3
  kgfs run --no-cache                        # recompute every stage
  kgfs run --corpus tweets.txt --dump dbpedia/ --features types                 # DBpedia route, offline
  kgfs run --corpus c.csv --annotator spotlight --spotlight-url URL --kg sparql --sparql-url URL
"""


EPILOG_SERVE = """examples:
  kgfs serve --watch genes/ --interval 300 --obo go.obo.gz --annotations gene_go.tsv --n-splits 5
  kgfs serve --watch corpora/ --cron "0 * * * *" --dump dbpedia/ --features types --out results/
"""


# --------------------------------------------------------------------------- helpers
class CliError(Exception):
    """A usage problem found after parsing (printed as one line, exit 1)."""


def _console(stderr: bool = True):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=False)


def _parse_params(items: list[str] | None) -> dict:
    """``k=v`` pairs; values are parsed as JSON when possible (numbers, true/false, lists)."""
    out: dict = {}
    for k, eq, v in (item.partition("=") for item in items or []):
        if not eq:
            raise CliError(f"--param expects key=value, got {k!r}")
        try:
            out[k.strip()] = json.loads(v)
        except ValueError:
            out[k.strip()] = v
    return out


def _mirror(args) -> str | None:
    m = getattr(args, "mirror", None) or os.environ.get("KGFS_DATA_MIRROR") or None
    return str(Path(m).absolute()) if m else None


_SOURCE_ARGS = ("dataset", "obo", "annotations", "labels", "namespaces", "evidence", "min_support", "on_obsolete",
                "unknown", "check", "name", "corpus")
_CORPUS_ARGS = ("annotator", "kg", "sparql_url", "spotlight_url", "features", "category_depth", "text_column",
                "label_column", "id_column", "entity_columns", "dump")


def _source_kwargs(args) -> dict:
    """The keyword arguments of :func:`kg.runs.inputs.resolve_source` given on the command line."""
    kw = {k: getattr(args, k, None) for k in _SOURCE_ARGS}
    return dict(kw, mirror=_mirror(args), relations=tuple(getattr(args, "relations", None) or ("is_a",)),
                corpus_options={k: getattr(args, k, None) for k in _CORPUS_ARGS})


def _add_source_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("input (a registry dataset, or the GO route from files)")
    g.add_argument("--dataset", metavar="NAME", help="registry dataset, e.g. bundled/DM-BP, aire/DM-BP, rpv/CE-BP "
                   "(see `kgfs datasets list`)")
    g.add_argument("--obo", metavar="FILE", help="ontology in OBO format (plain or .gz)")
    g.add_argument("--annotations", metavar="FILE", help="GAF 2.x file or a two-column gene<TAB>term table")
    g.add_argument("--labels", metavar="FILE", help="gene<TAB>label table (the class of each gene)")
    g.add_argument("--namespaces", metavar="NS", help="GO namespaces to keep: BP, CC, MF or e.g. BP+CC")
    g.add_argument("--relations", nargs="+", metavar="REL", help="ontology relations that become edges "
                   "(default is_a; e.g. is_a part_of, or all)")
    g.add_argument("--evidence", nargs="+", metavar="CODE", help="GAF: keep only these evidence codes")
    g.add_argument("--min-support", type=int, metavar="N", help="drop features present in fewer than N "
                   "instances (the papers use 3)")
    g.add_argument("--on-obsolete", choices=["raise", "replace", "drop"], help="obsolete GO ids in annotations")
    g.add_argument("--unknown", choices=["raise", "drop"], help="term ids not in the ontology")
    g.add_argument("--mirror", metavar="DIR", help="local data mirror folder (default $KGFS_DATA_MIRROR)")
    g.add_argument("--name", help="dataset name in the outputs (default: the annotations or corpus file name)")
    _add_check_option(g)
    d = p.add_argument_group("DBpedia route (a corpus of texts or entity IRIs -> DBpedia types/categories)")
    d.add_argument("--corpus", metavar="FILE", help="corpus: CSV/TSV/JSONL with text (or entity) and label "
                   "columns, or the Sports Tweets .txt format")
    d.add_argument("--text-column", metavar="COL", help="corpus column with the text (default text)")
    d.add_argument("--label-column", metavar="COL", help="corpus column with the class (default label)")
    d.add_argument("--id-column", metavar="COL", help="corpus column with the instance id (default id)")
    d.add_argument("--entity-columns", nargs="+", metavar="COL", help="columns holding DBpedia IRIs "
                   "(the corpus is already linked: no annotator)")
    d.add_argument("--annotator", choices=["lexicon", "spotlight"], help="entity linking: lexicon (offline, from "
                   "the dump's labels; default) or a DBpedia Spotlight server")
    d.add_argument("--spotlight-url", metavar="URL", help="Spotlight /annotate endpoint")
    d.add_argument("--kg", choices=["sparql", "dump"], help="where types/categories come from (default: sparql "
                   "when --sparql-url is given, else the dump)")
    d.add_argument("--sparql-url", metavar="URL", help="SPARQL endpoint (e.g. a local Virtuoso or Oxigraph)")
    d.add_argument("--dump", nargs="+", metavar="PATH", help="DBpedia dump files or folders (N-Triples, "
                   "ontology OWL)")
    d.add_argument("--features", choices=["types", "categories"], help="rdf:type + subClassOf (default) or "
                   "dct:subject + skos:broader")
    d.add_argument("--category-depth", type=int, metavar="N", help="skos:broader levels to follow (default 2)")


def _add_check_option(g) -> None:
    g.add_argument("--check", choices=["repair", "report", "raise"], default="repair",
                   help="registry tables (AIRE, RPV, LD files) whose cells violate the hierarchy (child=1, "
                        "parent=0): close them upward (repair, the default; counted in the table's meta), keep "
                        "them as they are (report; hierarchical selectors then refuse the table) or fail (raise)")


def _note_repairs(name: str, table) -> None:
    n = table.meta.get("repaired_cells")
    if n:
        print(f"kgfs: note: {name}: {n} cell(s) violated the hierarchy and were closed upward "
              "(--check report keeps them)", file=sys.stderr)


# --------------------------------------------------------------------------- progress for `kgfs run`
class RunDisplay:
    """Rich progress for the pipeline's stages (spinner per stage, a bar with ETA for evaluation)."""

    LABELS = {"prefect": "start Prefect (local API)", "annotate": "annotate (entities)",
              "fetch": "fetch types/categories", "facts": "load facts", "table": "build table",
              "select": "select features", "evaluate": "evaluate (CV)", "export": "export", "publish": "write outputs"}
    NOTES = {"table": ("n_instances", "{n_instances} x {n_features} "), "facts": ("n_genes", "{n_genes} genes "),
             "select": ("n_selected", "{n_selected} of {n_features} kept ")}

    def __init__(self, console, enabled: bool = True):
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn, \
            TimeRemainingColumn

        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description:<28}"), BarColumn(bar_width=24),
                                 TextColumn("{task.fields[info]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                                 console=console, transient=False, disable=not enabled)
        self.tasks: dict[str, int] = {}

    def __enter__(self):
        if os.environ.get("PREFECT_API_URL"):
            self.LABELS = {**self.LABELS, "prefect": "connect to Prefect API"}
        self.progress.__enter__()
        self._task("prefect")
        return self

    def __exit__(self, *exc):
        for tid in self.tasks.values():
            if not self.progress.tasks[tid].finished:
                self.progress.update(tid, total=1, completed=0, info="[red]stopped")
                self.progress.stop_task(tid)
        self.progress.__exit__(*exc)

    def _task(self, stage) -> int:
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(self.LABELS.get(stage, stage), total=None, info="")
        return self.tasks[stage]

    def __call__(self, event, stage, **info):
        if not self.progress.tasks[self.tasks["prefect"]].finished:  # the API answered: a stage reports
            self.progress.update(self.tasks["prefect"], total=1, completed=1, info="")
        tid = self._task(stage)
        if event == "progress":
            self.progress.update(tid, total=info["total"], completed=info["done"],
                                 info=f"{info['done']}/{info['total']} {info.get('what') or 'cells'}")
        elif event == "done":
            rec = info.get("record") or {}
            key, fmt = self.NOTES.get(stage, (None, ""))
            note = fmt.format(**rec["summary"]) if key in (rec.get("summary") or {}) else ""
            self.progress.update(tid, total=1, completed=1,
                                 info=(note + ("[dim]cached[/]" if rec.get("reused") else "")).strip())


_SUMMARY_COLUMNS = {"selector": "selector", "classifier": "clf", "n_selected": "features", "accuracy": "acc",
                    "accuracy_sd": "±sd", "auroc": "AUROC", "aucpr": "AUCPR", "gm": "GM", "compression": "compr"}


def _print_summary(console, summary_csv: Path, n_rows: int = 12) -> None:
    import pandas as pd
    from rich import box
    from rich.table import Table

    df = pd.read_csv(summary_csv).head(n_rows)
    if "n_selected" in df:  # "kept/all"
        df["n_selected"] = [f"{v:.0f}" + (f"/{int(df['n_features'][i])}" if "n_features" in df else "")
                            for i, v in df["n_selected"].items()]
    t = Table(title="cross-validation, mean over folds", title_justify="left", box=box.SIMPLE_HEAD,
              pad_edge=False, padding=(0, 1), collapse_padding=True)
    cols = [c for c in _SUMMARY_COLUMNS if c in df]
    for c in cols:
        t.add_column(_SUMMARY_COLUMNS[c], justify="left" if c in ("selector", "classifier") else "right", no_wrap=True)
    for row in df[cols].itertuples(index=False):
        t.add_row(*(("-" if v != v else f"{v:.3f}") if isinstance(v, float) else str(v) for v in row))
    console.print(t)


# --------------------------------------------------------------------------- commands
def cmd_run(args) -> int:
    from flows import pipeline
    from kg.runs.inputs import resolve_source
    from selection.registry import classifier_entry, selector_entry

    # the temporary Prefect API boots in its own process (3-5 s) while the input is resolved and
    # the selectors are imported; nothing runs on it before those checks pass
    pipeline.start_api_in_background()
    out, err = _console(stderr=False), _console()
    with err.status("resolving the input…", spinner="dots") if not args.quiet else contextlib.nullcontext():
        source = resolve_source(**_source_kwargs(args))
    for name in [args.selector, *(args.selectors or []), "complete"]:  # unknown names fail before any flow runs
        selector_entry(name)
    for name in args.classifiers:
        classifier_entry(name)
    t0 = time.perf_counter()
    display = RunDisplay(err, enabled=not args.quiet)
    pipeline.set_reporter(display)
    try:
        with display:
            result = pipeline.run_pipeline(source, out=args.out, home=settings.kgfs_home(), no_cache=args.no_cache,
                                           **_run_params(args))
    finally:
        pipeline.set_reporter(None)
    if args.quiet:
        return 0
    recs, seconds = result["records"], time.perf_counter() - t0
    tab, sel = recs["table"]["summary"], recs["select"]["summary"]
    out.print(f"[bold]{source['name']}[/]: {tab['n_instances']} instances x {tab['n_features']} features, "
              f"{tab['n_edges']} hierarchy edges, classes {tab.get('classes')}")
    _print_summary(out, Path(recs["evaluate"]["dir"]) / recs["evaluate"]["files"]["summary"])
    out.print(f"{args.selector} on the whole table keeps {sel['n_selected']} of {sel['n_features']} features "
              "(selected_features.csv)")
    reused = [k for k, r in result["runinfo"].items() if r.get("reused")]
    out.print(f"outputs in [bold]{Path(args.out).absolute()}[/] ({', '.join(sorted(result['outputs']))})")
    out.print(f"done in {seconds:.1f} s" + (f"; stages from cache: {', '.join(reused)}" if reused else ""))
    return 0


def _run_params(args) -> dict:
    """The pipeline parameters of `kgfs run` / `kgfs serve` (JSON-friendly: deployment parameters)."""
    eval_selectors = args.selectors or [args.selector, "complete"]
    if args.selector not in eval_selectors:
        eval_selectors = [args.selector, *eval_selectors]
    return dict(selector=args.selector, selector_params=_parse_params(args.param),
                eval_selectors=list(dict.fromkeys(eval_selectors)), classifiers=list(args.classifiers),
                protocol=args.protocol, n_splits=args.n_splits, seed=args.seed, n_jobs=args.n_jobs,
                artifacts=not args.no_artifacts, dask_address=args.dask_address, batch_size=args.batch_size,
                external_concurrency=args.external_concurrency)


def cmd_serve(args) -> int:
    """Start (or reuse) a Prefect server on 127.0.0.1 and serve the watch-folder deployment."""
    from flows import watch as watch_mod
    from kg.runs.inputs import watch_options

    watch = Path(args.watch).absolute()
    if not watch.is_dir():
        raise CliError(f"{watch}: the watched folder does not exist")
    if bool(args.cron) == bool(args.interval):
        raise CliError("give exactly one of --cron EXPR and --interval SECONDS")
    out = Path(args.out).absolute()
    out.mkdir(parents=True, exist_ok=True)
    source_options = watch_options(obo=args.obo, annotations=args.annotations, relations=args.relations,
                                   namespaces=args.namespaces, evidence=args.evidence, on_obsolete=args.on_obsolete,
                                   unknown=args.unknown, min_support=args.min_support,
                                   corpus_options=_source_kwargs(args)["corpus_options"])
    home = settings.kgfs_home()
    url = watch_mod.api_for_serving(home, args.port, args.interval)
    params = {"watch_dir": str(watch), "out_dir": str(out), "source_options": source_options,
              "run_options": _run_params(args), "home": str(home)}
    schedule = {"cron": args.cron} if args.cron else {"interval": int(args.interval)}
    ui = url[:-4] if url.endswith("/api") else url
    print(f"kgfs serve: watching {watch} ({'cron ' + args.cron if args.cron else f'every {args.interval} s'}); "
          f"outputs and ledger.json in {out}", flush=True)
    print(f"kgfs serve: Prefect UI {ui} (deployment kgfs-watch/{args.deployment}); run a tick by hand with\n"
          f"  PREFECT_API_URL={url} prefect deployment run 'kgfs-watch/{args.deployment}'", flush=True)
    return watch_mod.serve(args.deployment, params, schedule)


def cmd_datasets_list(args) -> int:
    from rich.table import Table

    from kg.datasets import list_datasets, resolve_names

    names = set(resolve_names(args.patterns)) if args.patterns else None
    infos = [i for i in list_datasets() if names is None or i.name in names]
    if args.json:
        print(json.dumps([{"name": i.name, "loader": i.loader or "generator", "n_instances": i.n_instances,
                           "n_features": i.n_features, "licence": i.licence, "description": i.description,
                           "files": {r: f.path for r, f in i.files.items()}} for i in infos], indent=1))
        return 0
    t = Table(title=f"{len(infos)} datasets", title_justify="left")
    for c in ("name", "instances", "features", "loader", "description"):
        t.add_column(c, overflow="fold", justify="right" if c in ("instances", "features") else "left")
    for i in infos:
        t.add_row(i.name, "" if i.n_instances is None else str(i.n_instances),
                  "" if i.n_features is None else str(i.n_features), i.loader or "generator",
                  (i.description or "")[:90])
    _console(stderr=False).print(t)
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
    from kg.formats.folder import table_notes, write_table_folder
    from kg.runs.inputs import resolve_source, table_from_spec

    t0 = time.perf_counter()
    with _console().status("building the table…"):
        source = resolve_source(**_source_kwargs(args))
        table = table_from_spec(source, cache_dir=settings.kgfs_home() / "dbpedia-cache")
        _note_repairs(source["name"], table)
        summary = write_table_folder(table, Path(args.out))
    print(f"{source['name']}: {summary['n_instances']} instances x {summary['n_features']} features, "
          f"{summary['n_edges']} edges -> {Path(args.out) / 'table.npz'} ({time.perf_counter() - t0:.1f} s)")
    reports = table_notes(summary)
    if reports:
        print("notes: " + ", ".join(f"{k}={v}" for k, v in reports.items()) + " (details in summary.json / table meta)")
    return 0


def cmd_select(args) -> int:
    from kg.formats.folder import read_table_folder, write_table_folder
    from selection.frames import select_features, write_selection

    table = read_table_folder(args.table)
    params = _parse_params(args.param)
    t0 = time.perf_counter()
    with _console().status(f"fitting {args.selector}…"):
        _sel, frame = select_features(table, args.selector, params)
    out = Path(args.out)
    files = write_selection(frame, out)
    sub = table.select_features(frame["selected"].to_numpy())  # table order
    sub.meta["selector"] = {"name": args.selector, "params": params}
    write_table_folder(sub, out)
    print(f"{args.selector}: kept {sub.n_features} of {table.n_features} features ({time.perf_counter() - t0:.1f} s) "
          f"-> {out / files['selected']}, reduced table {out / 'table.npz'}")
    return 0


def cmd_evaluate(args) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, \
        TimeElapsedColumn, TimeRemainingColumn

    from kg.runs.inputs import load_tables
    from selection.evaluation.grid import run_grid

    con = _console()
    with con.status("loading the datasets…") if not args.quiet else contextlib.nullcontext():
        datasets = load_tables(args.datasets, mirror=_mirror(args), check=args.check)
    for name, table in datasets.items():
        _note_repairs(name, table)
    options = _parse_params(args.option)
    if args.threshold in ("best-on-test", "nested"):
        options["threshold_choice"] = args.threshold
    elif args.threshold is not None:
        options["threshold"] = float(args.threshold)
    with Progress(SpinnerColumn(), TextColumn("evaluating"), BarColumn(), MofNCompleteColumn(), TextColumn("cells"),
                  TimeElapsedColumn(), TimeRemainingColumn(), console=con, disable=args.quiet) as prog:
        tid = prog.add_task("grid", total=None)
        res = run_grid(datasets, args.selectors, args.classifiers, protocol=args.protocol, out_dir=args.out,
                       n_jobs=args.n_jobs, random_state=args.seed, n_splits=args.n_splits, options=options or None,
                       plots=not args.no_plots, progress=lambda done, total: prog.update(tid, total=total, completed=done))
    print(f"{res.n_cells} cells ({res.n_computed} computed, {res.n_reused} reused, {res.n_failed} failed) "
          f"in {res.seconds:.1f} s\nresults: {res.results}\nsummary: {res.summary}\nreport:  {res.report}")
    if res.n_failed:
        print(f"kgfs: error: {res.n_failed} cell(s) failed; their errors are in the status/error columns of "
              f"{res.results}", file=sys.stderr)
        return 1
    return 0


def cmd_export(args) -> int:
    from kg.formats.folder import export_file, read_table_folder

    what = export_file(read_table_folder(args.table), args.format, args.out, sparse=args.sparse,
                       relation=args.relation, id_attribute=args.id_attribute)
    print(f"wrote {what} -> {args.out}")
    return 0


def cmd_cache_ls(args) -> int:
    from rich.table import Table

    from flows import stages

    store = stages.stage_store(settings.kgfs_home())
    recs = store.records()
    if not recs:
        print(f"no cached stages in {store.root}")
        return 0
    t = Table(title=f"stage store {store.root}", title_justify="left")
    for c in ("stage", "key", "size", "modified", "summary"):
        t.add_column(c, overflow="fold")
    for r in recs:
        brief = ", ".join(f"{k}={v}" for k, v in (r.get("summary") or {}).items()
                          if isinstance(v, (int, float, str)) and k != "report")
        t.add_row(r["stage"], r["key"][:12], f"{r['bytes'] / 1024:.0f} KiB",
                  time.strftime("%Y-%m-%d %H:%M", time.localtime(r["mtime"])), brief[:80])
    _console(stderr=False).print(t)
    return 0


def cmd_cache_clear(args) -> int:
    from flows import stages

    store = stages.stage_store(settings.kgfs_home())
    print(f"removed {store.clear(args.stage)} cached stage folder(s) from {store.root}")
    return 0


# --------------------------------------------------------------------------- parser
def _add_run_options(r) -> None:
    r.add_argument("--selector", default="shsel-ig-prune", help="selector fitted on the whole table "
                   "(default shsel-ig-prune: SHSEL, IG, threshold 0.99, initial + prune)")
    r.add_argument("--param", action="append", metavar="KEY=VALUE", help="selector parameter, e.g. threshold=0.9")
    r.add_argument("--selectors", nargs="+", metavar="NAME", help="selectors compared in the cross-validation "
                   "(default: --selector and complete)")
    r.add_argument("--classifiers", nargs="+", default=["nb"], metavar="NAME", help="classifiers (default nb)")
    r.add_argument("--protocol", default="basic", help="evaluation protocol (default basic)")
    r.add_argument("--n-splits", type=int, default=10, help="folds of the stratified CV (default 10)")
    r.add_argument("--seed", type=int, default=0, help="seed of the folds (default 0)")
    r.add_argument("--n-jobs", type=int, default=1, help="parallel workers for the evaluation (default 1)")
    r.add_argument("--dask-address", metavar="ADDR", help="run the evaluation grid on a Dask cluster through "
                   "prefect-dask: tcp://HOST:PORT of a running `dask scheduler`, or `local` (a local cluster of "
                   "--n-jobs worker processes on 127.0.0.1)")
    r.add_argument("--batch-size", type=int, default=500, metavar="N", help="DBpedia route: texts (entities) per "
                   "annotation (fetch) task (default 500)")
    r.add_argument("--external-concurrency", type=int, default=4, metavar="N", help="DBpedia route: at most N "
                   "annotation/fetch batches in flight against Spotlight/SPARQL (default 4)")
    r.add_argument("--no-artifacts", action="store_true", help="do not publish Prefect artifacts")


def _command(sub, common, name: str, func, raw: bool = True, **kwargs) -> argparse.ArgumentParser:
    """A subcommand parser with the common options, running ``func``."""
    if raw:
        kwargs["formatter_class"] = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser(name, parents=[common], **kwargs)
    p.set_defaults(func=func)
    return p


def _add_run(sub, common) -> None:
    r = _command(sub, common, "run", cmd_run, epilog=EPILOG_RUN,
                 help="the whole pipeline (default: bundled DM-BP data) as a cached Prefect flow",
                 description="Load facts, build the DAG and table, select features, cross-validate, "
                             "export. Stages are cached in the kgfs home; a second run reuses them.")
    _add_source_options(r)
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
                              "until interrupted (Ctrl-C); the server keeps running (`prefect server stop`).")
    sv.add_argument("--watch", required=True, metavar="DIR", help="folder of corpus files (with --obo and "
                    "--annotations: labels tables gene<TAB>label)")
    sv.add_argument("--cron", metavar="EXPR", help='tick schedule, e.g. "*/15 * * * *"')
    sv.add_argument("--interval", type=int, metavar="SECONDS", help="tick every SECONDS instead of a cron")
    sv.add_argument("--out", default="kgfs-watch-output", metavar="DIR",
                    help="outputs (one folder per corpus) and ledger.json (default ./kgfs-watch-output)")
    sv.add_argument("--deployment", default="kgfs-watch", metavar="NAME",
                    help="deployment name (default kgfs-watch)")
    sv.add_argument("--port", type=int, default=4200, help="port of the local Prefect server (default 4200)")
    _add_source_options(sv)
    _add_run_options(sv)


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
    c = sub.add_parser("cache", parents=[common], help="list or clear the stage cache",
                       description="The stage store of `kgfs run` in the kgfs home.")
    csub = c.add_subparsers(dest="cache_command", metavar="ACTION", required=True)
    _command(csub, common, "ls", cmd_cache_ls, False, help="list cached stages", description="List cached stages.")
    cc = _command(csub, common, "clear", cmd_cache_clear, False, help="remove cached stages",
                  description="Remove cached stage outputs (all, or one stage).")
    cc.add_argument("--stage", choices=["annotate-batch", "annotate", "fetch-batch", "fetch", "facts", "table",
                                        "select", "evaluate", "export"])


def _add_one_step_commands(sub, common) -> None:
    b = _command(sub, common, "build", cmd_build, help="build a feature table (DAG + binary matrix)",
                 description="Build the feature table of a registry dataset or of OBO + annotations; "
                             "writes OUT/table.npz and OUT/summary.json.",
                 epilog="examples:\n  kgfs build --dataset rpv/CE-BP --out T\n"
                        "  kgfs build --obo go.obo.gz --annotations genes.tsv --labels labels.tsv --out T")
    _add_source_options(b)
    b.add_argument("--out", required=True, metavar="DIR", help="output folder")

    s = _command(sub, common, "select", cmd_select, help="select features of a table",
                 description="Fit a selector on a whole table; writes OUT/selected_features.csv, "
                             "OUT/selection.csv (every feature with its score) and the reduced table.",
                 epilog="example:\n  kgfs select --table T --selector shsel-ig-prune --out S")
    s.add_argument("--table", required=True, metavar="DIR", help="table folder from `kgfs build`")
    s.add_argument("--selector", default="shsel-ig-prune", help="registered selector (default shsel-ig-prune)")
    s.add_argument("--param", action="append", metavar="KEY=VALUE", help="selector parameter")
    s.add_argument("--out", required=True, metavar="DIR", help="output folder")

    e = _command(sub, common, "evaluate", cmd_evaluate, help="cross-validate selectors x classifiers on datasets",
                 description="Evaluate selectors x classifiers x datasets under a protocol; finished cells "
                             "are kept, so an interrupted evaluation resumes.",
                 epilog="example:\n  kgfs evaluate --datasets aire/DM-BP rpv/DM-BP "
                        "--selectors shsel-ig-prune complete --classifiers nb --out E")
    e.add_argument("--datasets", nargs="+", required=True, metavar="NAME", help="registry names, glob patterns "
                   "or table folders")
    e.add_argument("--selectors", nargs="+", required=True, metavar="NAME")
    e.add_argument("--classifiers", nargs="+", metavar="NAME", help="default: the protocol's")
    e.add_argument("--protocol", default="basic", help="basic, shsel2014, rpv2020, hifsrr2017 (default basic)")
    e.add_argument("--n-splits", type=int, help="folds (default: the protocol's)")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--n-jobs", type=int, default=-1, help="parallel workers (default: all cores)")
    e.add_argument("--threshold", help="threshold methods: a number, best-on-test or nested")
    e.add_argument("--option", action="append", metavar="KEY=VALUE", help="protocol option")
    e.add_argument("--mirror", metavar="DIR", help="local data mirror folder (default $KGFS_DATA_MIRROR)")
    _add_check_option(e)
    e.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    e.add_argument("--out", required=True, metavar="DIR", help="output folder")

    x = _command(sub, common, "export", cmd_export, help="export a table as ARFF, CSV or hierarchy edges",
                 description="Export a table folder: WEKA ARFF (dense or --sparse), CSV (id, features, "
                             "label) or the hierarchy as a child,parent edges CSV.",
                 epilog="example:\n  kgfs export --table T --format arff --sparse --out t.arff")
    x.add_argument("--table", required=True, metavar="DIR", help="table folder from `kgfs build`")
    x.add_argument("--format", choices=["arff", "csv", "edges"], default="arff")
    x.add_argument("--sparse", action="store_true", help="ARFF: WEKA sparse format")
    x.add_argument("--relation", help="ARFF @relation name")
    x.add_argument("--id-attribute", metavar="NAME", help="ARFF: write the instance ids as a first string "
                   "attribute of this name (WEKA classifiers would otherwise need it removed)")
    x.add_argument("--out", required=True, metavar="FILE")


def build_parser() -> argparse.ArgumentParser:
    """The ``kgfs`` argument parser (one subcommand per ``cmd_*`` function)."""
    common = argparse.ArgumentParser(add_help=False)
    # SUPPRESS: a subcommand's parser must not reset a value given before the subcommand
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show tracebacks and debug logs")
    common.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS, help="no progress display")
    common.add_argument("--home", metavar="DIR", default=argparse.SUPPRESS,
                        help="kgfs home: stage store and Prefect state (default $KGFS_HOME or ./.kgfs)")
    p = argparse.ArgumentParser(
        prog="kgfs", parents=[common],
        description="Hierarchical binary features from knowledge graphs (Gene Ontology, DBpedia) and "
                    "hierarchical feature selection (SHSEL and others).",
        epilog="Run `kgfs COMMAND --help` for the options of a command.",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in (_add_run, _add_datasets, _add_one_step_commands, _add_serve, _add_cache):
        add(sub, common)
    return p


# --------------------------------------------------------------------------- entry point
def _one_line(exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"{exc.filename}: file not found"
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror or exc}"
    msg = str(exc).strip() or type(exc).__name__
    return " ".join(msg.split("\n")[0].split()) if "\n" in msg else msg


def _setup_logging(debug: bool) -> None:
    level = logging.DEBUG if debug else logging.WARNING
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("kgfs: %(levelname)s: %(name)s: %(message)s" if debug
                                           else "kgfs: %(levelname)s: %(message)s"))
    handler._kgfs = True  # replace only our own handler when main() is called again (tests)
    root = logging.getLogger()
    root.handlers[:] = [h for h in root.handlers if not getattr(h, "_kgfs", False)] + [handler]
    root.setLevel(level)
    for noisy in ("httpx", "httpcore", "asyncio", "uvicorn", "matplotlib", "numba"):
        logging.getLogger(noisy).setLevel(logging.WARNING)

    def showwarning(message, category, filename, lineno, file=None, line=None):
        print(f"kgfs: warning: {message}", file=sys.stderr)

    if not debug:
        warnings.showwarning = showwarning
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.filterwarnings("ignore", category=FutureWarning)
        warnings.filterwarnings("ignore", module=r"prefect(\.|$)")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``kgfs`` console script; returns the exit status."""
    parser = build_parser()
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
    except BaseException as exc:  # noqa: BLE001 - every error becomes one line unless --debug
        if debug or isinstance(exc, SystemExit):
            raise
        from kg.errors import KgfsError

        if isinstance(exc, (KgfsError, CliError, OSError, ValueError, KeyError, LookupError)):
            print(f"kgfs: error: {_one_line(exc)}", file=sys.stderr)
        else:
            print(f"kgfs: internal error: {type(exc).__name__}: {_one_line(exc)} (run with --debug for the "
                  "traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
