"""The command-line options of the pipeline and of an evaluation, as data, and the parser they go into.

Each option is ``(flag, argparse keyword arguments)``; :func:`add_options` adds a list of them to
a parser or argument group. The options of a run's input are declared by its kind
(:class:`kg.routes.base.Option`) and added by :func:`add_input_options`. :class:`Parser` is the
parser class (help built on demand, one-line usage errors), :func:`whole_number` and
:func:`positive_number` the types of counts and durations.

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
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kg.errors import did_you_mean
from kg.option_values import CHECK_HELP
from kg.option_values import positive_number as _positive
from kg.option_values import whole_number as _whole

if TYPE_CHECKING:
    from kg.routes.base import Option

__all__ = ["EVALUATE_OPTIONS", "RUN_EXAMPLES", "RUN_OPTIONS", "Parser", "add_input_options", "add_options",
           "argparse_type", "positive_number", "whole_number"]


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

    #: Option strings a mistyped option is compared with (set for the command being run; default: this parser's).
    suggest_from: Sequence[str] | None = None

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}{self._suggestion(message)} (`{self.prog} --help` lists the "
                     "options)\n")

    def _suggestion(self, message: str) -> str:
        """``" (did you mean --selector?)"`` for an unrecognised option close to a known one.

        Examples
        --------
        >>> p = Parser(prog="kgfs")
        >>> _ = p.add_argument("--selector")
        >>> p._suggestion("unrecognized arguments: --selctor x")
        ' (did you mean --selector?)'
        """
        if not message.startswith("unrecognized arguments:"):
            return ""
        known = list(self.suggest_from or self._option_string_actions)
        for arg in message.split(":", 1)[1].split():
            if arg.startswith("--"):
                hint = did_you_mean(arg.split("=")[0], [o for o in known if o.startswith("--")])
                if hint:
                    return hint
        return ""


def argparse_type(parse):
    """An argparse ``type`` from a value parser that raises ``ValueError`` (:class:`kg.routes.base.UsageError`).

    Examples
    --------
    >>> from kg.option_values import positive_number
    >>> argparse_type(positive_number)("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a number > 0, got '0'
    """
    def convert(text: str):
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = getattr(parse, "__name__", "value")
    return convert


def positive_number(text: str) -> float:
    """An argparse ``type``: a number > 0 (:func:`kg.option_values.positive_number`)."""
    return argparse_type(_positive)(text)


def whole_number(minimum: int = 1, all_cores: bool = False):
    """An argparse ``type``: a whole number ``>= minimum`` (:func:`kg.option_values.whole_number`).

    Examples
    --------
    >>> whole_number(1, all_cores=True)("-1"), whole_number(0)("3")
    (-1, 3)
    """
    return argparse_type(_whole(minimum, all_cores))


def add_input_options(parser, options: Sequence[Option]) -> None:
    """Add options declared as data by the kinds of input (:class:`kg.routes.base.Option`) to a parser or group.

    Examples
    --------
    >>> from kg.routes.base import Option
    >>> p = argparse.ArgumentParser()
    >>> add_input_options(p, [Option("--dump", "files", many=True), Option("--skip-bad-lines", "skip", switch=True)])
    >>> vars(p.parse_args(["--dump", "a", "b"]))
    {'dump': ['a', 'b'], 'skip_bad_lines': None}
    """
    for opt in options:
        kw: dict = {"help": opt.help, "dest": opt.field}
        if opt.switch:
            kw.update(action="store_true", default=None)
        else:
            kw.update({k: v for k, v in (("metavar", opt.metavar), ("nargs", "+" if opt.many else None),
                                         ("choices", list(opt.allowed() or ()) or None),
                                         ("type", argparse_type(opt.parse) if opt.parse else None)) if v is not None})
        parser.add_argument(opt.flag, **kw)


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
    ("--protocol", dict(default="basic", help="basic, shsel2014, rpv2020, hifsrr2017, split (a dataset's fixed "
                                              "train/test split, features generated in the fit; default basic; "
                                              "listed below)")),
    ("--n-splits", dict(type=int, help="folds (default: the protocol's; split: the inner folds on the training "
                                       "part)")),
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
    ("--check", dict(choices=["repair", "report", "raise"], default="repair", help=CHECK_HELP)),
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
