"""The command-line options of a run's input, of the pipeline and of an evaluation, as data.

Each option is ``(flag, argparse keyword arguments)``; :func:`add_options` adds a list of them to
a parser or argument group. ``flows.cli`` builds its parsers from these lists, so the options,
their defaults and help live beside the functions that take them (:func:`flows.inputs.resolve_source`,
:func:`selection.evaluation.plan.plan_evaluation`); :class:`Parser` is the parser class (help built
on demand, one-line usage errors), :func:`whole_number` and :func:`positive_number` the types of
counts and durations. Importing this module
imports only ``argparse``.

Examples
--------
>>> import argparse
>>> p = argparse.ArgumentParser()
>>> add_options(p, RUN_OPTIONS)
>>> p.parse_args(["--n-splits", "5"]).n_splits, p.parse_args([]).selector
(5, 'shsel-ig-prune')
"""

from __future__ import annotations

import argparse

__all__ = ["CHECK_OPTION", "EVALUATE_OPTIONS", "INPUT_OPTIONS", "RUN_EXAMPLES", "RUN_OPTIONS", "TABLE_OPTIONS",
           "Parser", "add_options", "positive_number", "whole_number"]


class Parser(argparse.ArgumentParser):
    """An argument parser whose epilog may be a function (built for ``--help`` only); usage errors in one line.

    Examples
    --------
    >>> p = Parser(prog="kgfs x", epilog=lambda: "listed on demand")
    >>> "listed on demand" in p.format_help()
    True
    """

    def format_help(self):
        if callable(self.epilog):
            self.epilog = self.epilog()
        return super().format_help()

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (`{self.prog} --help` lists the options)\n")


def positive_number(text: str) -> float:
    """An argparse ``type``: a number > 0 (seconds, say).

    Parameters
    ----------
    text : str

    Returns
    -------
    float

    Examples
    --------
    >>> positive_number("2.5")
    2.5
    >>> positive_number("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a number > 0, got '0'
    """
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}")
    return value


def whole_number(minimum: int = 1, all_cores: bool = False):
    """An argparse ``type``: a whole number ``>= minimum`` (or ``-1``, all cores, when ``all_cores``).

    Parameters
    ----------
    minimum : int
    all_cores : bool

    Returns
    -------
    callable

    Examples
    --------
    >>> whole_number(1, all_cores=True)("-1"), whole_number(0)("3")
    (-1, 3)
    >>> whole_number(1, all_cores=True)("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a whole number >= 1 or -1 (all cores), got '0'
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or (value < minimum and not (all_cores and value == -1)):
            raise argparse.ArgumentTypeError(f"must be a whole number >= {minimum}"
                                             + (" or -1 (all cores)" if all_cores else "") + f", got {text!r}")
        return value

    return parse


RUN_EXAMPLES = """examples:
  kgfs run                                   # bundled Drosophila ageing genes (GO BP), SHSEL + NB, 10-fold CV
  kgfs run --dataset aire/DM-BP --mirror ../shared/data --out out/
  kgfs run --obo go.obo.gz --annotations genes.tsv --labels labels.tsv --min-support 3
  kgfs run --no-cache                        # recompute every stage
  kgfs run --param threshold=0.9 --selectors shsel-ig-prune sig complete --classifiers nb knn
  kgfs run --corpus tweets.txt --dump dbpedia/ --features types                 # DBpedia route, offline
  kgfs run --corpus c.csv --annotator spotlight --spotlight-url URL --kg sparql --sparql-url URL
  kgfs run --csv mytable.csv --hierarchy edges.csv                             # your own table
"""

CHECK_OPTION = [
    ("--check", dict(choices=["repair", "report", "raise"], default="repair",
                     help="tables whose cells violate the hierarchy (child=1, parent=0; registry tables, --arff, "
                          "--csv): close them upward (repair, the default; counted in the table's meta), keep them "
                          "as they are (report; hierarchical selectors then refuse the table) or fail (raise)")),
]

#: A registry dataset, or the GO route from files.
INPUT_OPTIONS = [
    ("--dataset", dict(metavar="NAME", help="registry dataset, e.g. bundled/DM-BP, aire/DM-BP, rpv/CE-BP "
                                            "(see `kgfs datasets list`)")),
    ("--obo", dict(metavar="FILE", help="ontology in OBO format (plain or .gz)")),
    ("--annotations", dict(metavar="FILE", help="GAF 2.x file or a two-column gene<TAB>term table")),
    ("--labels", dict(metavar="FILE", help="gene<TAB>label table (the class of each gene)")),
    ("--namespaces", dict(metavar="NS", help="GO namespaces to keep: BP, CC, MF or e.g. BP+CC (must occur in "
                                             "the OBO file)")),
    ("--relations", dict(nargs="+", metavar="REL", help="ontology relations that become edges (default is_a; "
                                                        "e.g. is_a part_of, or all; must occur in the OBO file)")),
    ("--evidence", dict(nargs="+", metavar="CODE", help="GAF: keep only these evidence codes")),
    ("--min-support", dict(type=int, metavar="N", help="drop features present in fewer than N instances (the "
                                                       "papers use 3)")),
    ("--on-obsolete", dict(choices=["raise", "replace", "drop"], help="obsolete GO ids in annotations")),
    ("--unknown", dict(choices=["raise", "drop"], help="term ids not in the ontology")),
    ("--mirror", dict(metavar="DIR", help="local data mirror folder (default $KGFS_DATA_MIRROR)")),
    ("--name", dict(help="dataset name in the outputs (default: the annotations, corpus or table file name)")),
    *CHECK_OPTION,
]

#: A user's own table (``kgfs build`` and ``kgfs run``).
TABLE_OPTIONS = [
    ("--arff", dict(metavar="FILE", help="a WEKA ARFF table (dense or sparse; the class: last attribute)")),
    ("--csv", dict(metavar="FILE", help="a CSV table: id, one 0/1 column per feature, then label (or class)")),
    ("--hierarchy", dict(metavar="EDGES", help="the features' hierarchy as a child,parent CSV (default: none)")),
]

#: The pipeline's selection and evaluation (``kgfs run``, ``kgfs serve``).
RUN_OPTIONS = [
    ("--selector", dict(default="shsel-ig-prune", help="selector fitted on the whole table (default "
                                                       "shsel-ig-prune: SHSEL, IG, threshold 0.99, initial + prune)")),
    ("--param", dict(action="append", metavar="KEY=VALUE", help="parameter of --selector, e.g. threshold=0.9 (also "
                                                                "in the cross-validation; `kgfs methods NAME` lists "
                                                                "them)")),
    ("--selectors", dict(nargs="+", metavar="NAME", help="selectors compared in the cross-validation (default: "
                                                         "--selector and complete)")),
    ("--classifiers", dict(nargs="+", default=["nb"], metavar="NAME", help="classifiers (default nb)")),
    ("--protocol", dict(default="basic", help="evaluation protocol (default basic; listed below)")),
    ("--n-splits", dict(type=int, default=10, help="folds of the stratified CV (default 10; fewer when a class "
                                                   "is smaller, and said so)")),
    ("--seed", dict(type=whole_number(0), default=0, help="seed of the folds (default 0)")),
    ("--n-jobs", dict(type=whole_number(1, all_cores=True), default=1, help="parallel workers for the evaluation "
                                                                            "(default 1; -1: all cores)")),
]

#: ``kgfs evaluate``.
EVALUATE_OPTIONS = [
    ("--datasets", dict(nargs="+", required=True, metavar="NAME", help="registry names, glob patterns or table "
                                                                      "folders")),
    ("--selectors", dict(nargs="+", required=True, metavar="NAME", help="selectors (listed below)")),
    ("--classifiers", dict(nargs="+", metavar="NAME", help="default: the protocol's")),
    ("--protocol", dict(default="basic", help="basic, shsel2014, rpv2020, hifsrr2017 (default basic; listed "
                                              "below)")),
    ("--n-splits", dict(type=int, help="folds (default: the protocol's)")),
    ("--seed", dict(type=whole_number(0), default=0, help="seed of the folds (default 0)")),
    ("--n-jobs", dict(type=whole_number(1, all_cores=True), default=-1, help="parallel workers (default -1: all "
                                                                             "cores)")),
    ("--param", dict(action="append", metavar="[NAME.]KEY=VALUE", help="method parameter: KEY goes to every "
                                                                       "selector declaring it, NAME.KEY to method "
                                                                       "NAME (a selector or classifier)")),
    ("--option", dict(action="append", metavar="KEY=VALUE", help="protocol option (`kgfs methods PROTOCOL` lists "
                                                                 "them)")),
    ("--threshold", dict(help="threshold methods: a number, best-on-test or nested (short for --option "
                              "threshold=X or threshold_choice=...)")),
    ("--mirror", dict(metavar="DIR", help="local data mirror folder (default $KGFS_DATA_MIRROR)")),
    *CHECK_OPTION,
    ("--no-plots", dict(action="store_true", help="skip the PNG plots")),
    ("--out", dict(required=True, metavar="DIR", help="output folder")),
]


def add_options(parser, options) -> None:
    """Add ``(flag, keyword arguments)`` options to an argparse parser or argument group.

    Parameters
    ----------
    parser : argparse.ArgumentParser or argument group
    options : list of (str, dict)

    Returns
    -------
    None

    Examples
    --------
    See the module.
    """
    for flag, kwargs in options:
        parser.add_argument(flag, **kwargs)
