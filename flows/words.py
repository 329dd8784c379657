"""How the command line names the library's parameters: the word tables of :func:`kg.errors.param` markers and of
the library's keyword hints, shared by the command line (:mod:`flows.cli`) and by what the flows write for a person
to read (the ledger and tick report of ``kgfs serve``, :mod:`flows.watch.ledger`, which runs in a flow process and
imports no :mod:`flows.cli`).

:data:`OPTION_WORDS` is the command being run's table: :data:`LIBRARY_WORDS` plus the destinations of its
parser's options (:func:`flows.cli.parser.option_words`, added when the parser is built). A flow run is another
process: ``kgfs serve`` passes its table as a flow parameter, given to :func:`cli_words` as ``words``.

Examples
--------
>>> from kg.errors import param
>>> cli_words(f"{param('sparql_url')} is required; pass skip_bad_lines=True (--skip-bad-lines)",
...           {"sparql_url": "--sparql-url"})
'--sparql-url is required; pass --skip-bad-lines'
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from kg.errors import render_params

__all__ = ["HINTS", "LIBRARY_WORDS", "OPTION_WORDS", "cli_words"]

#: The library's parameter names the options do not say by their own name.
LIBRARY_WORDS = {"source": "--kg", "annotator": "--annotator", "vocabulary": "--preset", "params": "--param",
                 "selectors": "--selector", "classifiers": "--classifier", "options": "--option"}
#: Parameter name -> the option of the command being run that sets it (:func:`kg.errors.param`; the parser
#: adds its options' destinations: :func:`flows.cli.parser.option_words`).
OPTION_WORDS: dict[str, str] = dict(LIBRARY_WORDS)

#: The library's messages name its Python keywords ("pass unknown='drop'"); the command line names
#: its options instead. A hint that already names the option in parentheses keeps only the option.
HINTS = [
    (re.compile(r"\b\w+=\S+ \((--[\w-]+)\)"), r"\1"),
    (re.compile(r"\bunknown='drop'"), "--unknown drop"),
    (re.compile(r"\bcheck='(repair|report|raise)'"), r"--check \1"),
    (re.compile(r"\bon_obsolete='(\w+)'"), r"--on-obsolete \1"),
    (re.compile(r"\bskip_bad_lines=True"), "--skip-bad-lines"),
    (re.compile(r"\bdrop_unknown=True"), "--hierarchy-drop-unknown"),
    (re.compile(r"\bmax_record_bytes=N\b"), "--max-record-bytes"),
    (re.compile(r"\bpass (binarize|check_implication|missing)=(\S+)"), r"pass --param \1=\2"),
]


def cli_words(text: str, words: Mapping[str, str] | None = None) -> str:
    """``text`` with the library's parameters (:func:`kg.errors.param`) and keyword hints said as the command
    line's options.

    Parameters
    ----------
    text : str
    words : mapping, optional
        Parameter name -> option (default :data:`OPTION_WORDS`, this process's command's).

    Returns
    -------
    str

    Examples
    --------
    >>> cli_words("bad line 3; pass skip_bad_lines=True (--skip-bad-lines) to skip it")
    'bad line 3; pass --skip-bad-lines to skip it'
    >>> cli_words("term GO:9 not in the ontology; pass unknown='drop' to drop them")
    'term GO:9 not in the ontology; pass --unknown drop to drop them'
    """
    text = render_params(text, OPTION_WORDS if words is None else words)
    for pattern, repl in HINTS:
        text = pattern.sub(repl, text)
    return text
