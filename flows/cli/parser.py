"""The ``kgfs`` argument parser: one subcommand per ``cmd_*`` function of :mod:`flows.cli.commands` and
:mod:`flows.cli.catalog`, the options of the kinds of input added only to the command being run."""

from __future__ import annotations

import argparse

from flows.cli.catalog import (
    cmd_cache_clear,
    cmd_cache_ls,
    cmd_cache_verify,
    cmd_datasets_fetch,
    cmd_datasets_list,
    cmd_methods,
)
from flows.cli.commands import (
    cmd_build,
    cmd_evaluate,
    cmd_export,
    cmd_fit,
    cmd_ingest,
    cmd_predict,
    cmd_run,
    cmd_select,
    cmd_serve,
    cmd_server,
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
from flows.words import OPTION_WORDS

__all__ = ["build_parser"]

EPILOG_SERVE = """examples:
  kgfs serve --watch genes/ --interval 300 --obo go.obo.gz --annotations gene_go.tsv --n-splits 5
  kgfs serve --watch corpora/ --cron "0 * * * *" --dump dbpedia/ --features types --out results/
  kgfs serve --watch new-corpora/ --interval 300 --model M --out predictions/   # predict with a model of kgfs fit
"""


# --------------------------------------------------------------------------- helpers


def _methods_epilog(text: str = "", roles=("selector", "classifier", "protocol")):
    def epilog():
        from selection.methods_help import methods_overview

        return f"{text}\n{methods_overview(roles)}\n" if text else methods_overview(roles) + "\n"

    return epilog


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


def _add_fit_predict(sub, common) -> None:
    f = _command(sub, common, "fit", cmd_fit, epilog=_methods_epilog(
        "examples:\n  kgfs fit --model M                       # bundled DM-BP, shsel-ig-prune + nb\n"
        "  kgfs fit --corpus people.csv --entity-columns qid --preset wikidata --dump truthy.nt.bz2 "
        "--selector hip --classifiers nb --model M\n"
        "  kgfs predict --model M --corpus new-people.csv --out P\n", ("selector", "classifier")),
                 help="fit --selector and a classifier on a whole table and keep them as a model folder",
                 description="Build the table of the input as `kgfs run` does (same inputs and options, the "
                             "stages stored), fit --selector and the first of --classifiers on all of it, and write "
                             "the model folder --model: the input's settings, the feature ids and hierarchy, the "
                             "fitted selector and classifier, the training data's fingerprint and the kgfs "
                             "version, every file checksummed (JSON and NumPy arrays; no pickle). A lazy selector "
                             "(rpv, hip, mr) selects for each new instance at predict time. fit evaluates nothing: "
                             "the evaluation's options of `kgfs run` (--selectors, --protocol, --n-splits, --n-jobs, "
                             "--dask-address) are accepted and not used.")
    _add_input_options(f)
    _add_run_options(f)
    f.add_argument("--model", required=True, metavar="DIR", help="the model folder to write")

    p = _command(sub, common, "predict", cmd_predict,
                 epilog="examples:\n  kgfs predict --model M --dataset bundled/DM-BP --out P\n"
                        "  kgfs predict --model M --corpus new.csv --out P   # read and linked as the fitted corpus\n"
                        "  kgfs predict --model M --table T --out P          # a table folder of `kgfs build`\n",
                 help="score new data with a model of `kgfs fit`: predictions.csv",
                 description="Generate the features of the input exactly as at fit time (--corpus alone: the "
                             "model's graph, vocabulary and feature kinds; the fitted features only: a new feature "
                             "is dropped, a missing one is 0, each row closed under the fitted hierarchy) and "
                             "write OUT/predictions.csv: instance_id, predicted, p_<class> per class, n_features, "
                             "why (the selected features present that weigh most, with their weight), and label "
                             "when the input has labels. Instances with none of the model's features (entities "
                             "unknown to the graph) are counted and predicted from no feature.")
    p.add_argument("--model", required=True, metavar="DIR", help="model folder of `kgfs fit`")
    p.add_argument("--table", metavar="DIR", help="a table folder (`kgfs build`) instead of an input")
    _add_input_options(p)
    p.add_argument("--top", type=whole_number(0), default=3, metavar="N", help="features named in the why column "
                   "(default 3)")
    p.add_argument("--batch-size", type=whole_number(), default=500, metavar="N", help="DBpedia route: texts "
                   "(entities) per annotation (fetch) task (default 500)")
    p.add_argument("--out", default="kgfs-predictions", metavar="DIR", help="output folder (default "
                   "./kgfs-predictions)")


def _add_serve(sub, common) -> None:
    sv = _command(sub, common, "serve", cmd_serve, epilog=EPILOG_SERVE,
                  help="scheduled runs (or predictions) on new corpus files of a folder (Prefect deployment)",
                  description="Start a local Prefect server on 127.0.0.1 (unless PREFECT_API_URL points at "
                              "one) and serve the kgfs-watch deployment: on every tick, run the pipeline on "
                              "each corpus file of --watch not processed yet (by content hash), write its "
                              "outputs under --out and record what was done in --out/ledger.json. With --model "
                              "(a model folder of `kgfs fit`), predict each new corpus instead, read and linked as "
                              "the model's was (labels optional; only how a corpus is read may be given: "
                              "--text-column, --id-column, ...; the evaluation's options do not apply): "
                              "predictions.csv and predict.json per corpus. Runs until interrupted (Ctrl-C); the "
                              "server keeps running (`kgfs server stop`).")
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
    sv.add_argument("--model", metavar="DIR", help="a model folder of `kgfs fit`: predict each new corpus with it "
                    "(OUT/<corpus>-<hash>/predictions.csv and predict.json) instead of running the pipeline")
    sv.add_argument("--top", type=whole_number(0), default=3, metavar="N", help="with --model: features named in the "
                    "why column (default 3)")
    _add_input_options(sv, watch=True)
    first = len(sv._actions)
    _add_run_options(sv)
    # the pipeline's options that a prediction does not use (--batch-size it does): refused with --model when given
    sv.set_defaults(evaluation_options={a.dest: (max(a.option_strings, key=len), a.default)
                                        for a in sv._actions[first:] if a.dest != "batch_size"})


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
                             "GraphML or Graphviz DOT (with the features' names, support, level and, for a labelled "
                             "table, class enrichment as in selection.csv; with --selection, which ones a selector "
                             "kept).",
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
                        "  kgfs ingest --dump dbpedia/ --dask-address tcp://10.0.0.5:8786\n"
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
    g.add_argument("--n-jobs", type=whole_number(1, all_cores=True), default=1, metavar="N", help="read N new files "
                   "at once, each in a worker process (-1: one per core; default 1: one after another); the index "
                   "is the same byte for byte")
    g.add_argument("--dask-address", metavar="ADDR", help="read the new files on a Dask cluster, each by one worker: "
                   "tcp://HOST:PORT of a running `dask scheduler` (its workers must see the dump files and the kgfs "
                   "home at the same paths, and run the same kgfs), or `local` (a local cluster of --n-jobs, at least "
                   "2, worker processes on 127.0.0.1); one file is read by one worker")


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
    for add in (_add_run, _add_fit_predict, _add_datasets, _add_one_step_commands, _add_serve, _add_server, _add_cache,
                _add_ingest):
        add(sub, common)
    if command and command in sub.choices:  # a mistyped option of this command: "did you mean"
        parsers = [sub.choices[command]]
        for a in sub.choices[command]._actions:
            if isinstance(a, argparse._SubParsersAction):
                parsers += list(a.choices.values())
        p.suggest_from = sorted({o for q in parsers for o in q._option_string_actions})
        OPTION_WORDS.update(option_words(sub.choices[command]))  # what the console says for a parameter
    return p



def option_words(parser: argparse.ArgumentParser) -> dict[str, str]:
    """A parser's destinations -> their long options (``{"sparql_url": "--sparql-url"}``), with its subparsers',
    so that a library message naming a parameter (:func:`kg.errors.param`) says the option the user typed.

    Examples
    --------
    >>> q = argparse.ArgumentParser()
    >>> _ = q.add_argument("--sparql-url", "-s")
    >>> option_words(q)["sparql_url"]
    '--sparql-url'
    """
    words: dict[str, str] = {}
    stack = [parser]
    while stack:
        q = stack.pop()
        for a in q._actions:
            if isinstance(a, argparse._SubParsersAction):
                stack += list(a.choices.values())
            elif a.option_strings and a.dest not in (argparse.SUPPRESS, "help"):
                longest = max(a.option_strings, key=len)
                words.setdefault(a.dest, longest)
    return words


# --------------------------------------------------------------------------- entry point


#: Longest warning or log line shown in the terminal: room for two long paths (a longer one, a list, is cut).
