"""What the ``kgfs`` command line shows, built here so :mod:`flows.cli` only prints it.

- :func:`make_console`: a ``rich`` console that never wraps a table when the output is not a
  terminal (a pipe, a file): lines are as long as they need to be.
- :class:`LineProgress`: progress as plain lines, printed as things happen, for a stream that
  is not a terminal (``rich`` live displays show nothing there until the end).
- :func:`error_line`: any exception as the one line the command line prints (:func:`cli_words`, from
  :mod:`flows.words`: naming the command line's options, not the library's keywords).
- :func:`summary_table`, :func:`datasets_table`, :func:`cache_table`: the tables of ``kgfs run``,
  ``kgfs datasets list`` and ``kgfs cache ls``; :func:`table_notes_lines`: what a table's meta
  reports about its input (dropped terms, genes without annotations, ...), naming a few.

Examples
--------
>>> error_line(FileNotFoundError(2, "No such file or directory", "/x/go.obo"))
('error', '/x/go.obo: file not found')
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Callable, Mapping, Sequence

from flows.words import LIBRARY_WORDS, OPTION_WORDS, cli_words
from kg.errors import KgfsError, few, render_params

# the word tables live in flows.words (the flows that report to a person use them too); named here as before
__all__ = ["LIBRARY_WORDS", "OPTION_WORDS", "LineProgress", "cache_table", "cli_words", "datasets_table", "error_line",
           "make_console", "short_iri", "summary_table", "table_notes_lines"]


def make_console(stderr: bool = True):
    """A ``rich`` console on stderr (or stdout); outside a terminal, wide enough that nothing wraps.

    Parameters
    ----------
    stderr : bool

    Returns
    -------
    rich.console.Console

    Examples
    --------
    >>> make_console().width >= 80
    True
    """
    from rich.console import Console

    con = Console(stderr=stderr, highlight=False, soft_wrap=False)
    if not con.is_terminal:
        con = Console(stderr=stderr, highlight=False, soft_wrap=False, width=100_000)
    return con


class LineProgress:
    """Progress as plain lines (``kgfs: <stage>: ...``) for a stream that is not a terminal.

    Called like the run display (``progress(event, stage, **info)``), or through
    :meth:`cells` for a count of done / total; counts are printed at most every ``every``
    seconds and when the count is complete.

    Parameters
    ----------
    write : callable
        ``write(line)`` shows one line (the command line prints it; the library only builds it).
    every : float
        Seconds between two count lines.

    Examples
    --------
    >>> import io
    >>> buf = io.StringIO()
    >>> with LineProgress(lambda line: buf.write(line + "\\n"), every=0) as p:
    ...     p("done", "table", record={"summary": {"n_instances": 3, "n_features": 2}})
    ...     p.cells(4, 4)
    >>> print(buf.getvalue(), end="")
    kgfs: table: done (3 x 2)
    kgfs: evaluate: 4/4 cells
    """

    def __init__(self, write: Callable[[str], object], every: float = 5.0):
        self.write = write
        self.every = float(every)
        self._last = -1e18

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def _line(self, text: str) -> None:
        self.write(f"kgfs: {text}")

    def __call__(self, event: str, stage: str, **info) -> None:
        """One event of a stage: ``start``, ``progress`` (``done``, ``total``, ``what``) or ``done`` (``record``)."""
        if event == "start":
            self._line(f"{stage}: started")
        elif event == "progress":
            self.cells(info["done"], info["total"], stage, info.get("what") or "cells")
        elif event == "done":
            from flows.publishing.report import stage_note  # the note a run's report shows, here too

            rec = info.get("record") or {}
            s = rec.get("summary") or {}
            what = (f"{s['n_instances']} x {s['n_features']}" if "n_instances" in s and "n_features" in s
                    else stage_note("select", s) if "n_selected" in s else "")
            extra = ", ".join(x for x in (what, "cached" if rec.get("reused") else "") if x)
            self._line(f"{stage}: done" + (f" ({extra})" if extra else ""))

    def cells(self, done: int, total: int | None, stage: str = "evaluate", what: str = "cells") -> None:
        """A count: printed when ``every`` seconds passed since the last one, or when complete."""
        now = time.monotonic()
        if total is not None and (done >= total or now - self._last >= self.every):
            self._last = now
            self._line(f"{stage}: {done}/{total} {what}")


_PLAIN = {errno.ENOENT: "file not found", errno.EISDIR: "is a directory", errno.ENOTDIR: "not a directory",
          errno.EACCES: "permission denied", errno.ENOSPC: "no space left on the device",
          errno.EFBIG: "file too large (a file-size limit of this process)"}


def error_line(exc: BaseException) -> tuple[str, str]:
    """``("error", text)`` for an error caused by input or the system, ``("internal error", text)`` for a bug.

    Parameters
    ----------
    exc : BaseException

    Returns
    -------
    (str, str)
        The text is one line: an ``OSError`` names its file (``path: is a directory``), a
        decoding error says "not UTF-8".

    Examples
    --------
    >>> error_line(IsADirectoryError(21, "Is a directory", "/tmp"))
    ('error', '/tmp: is a directory')
    >>> error_line(TypeError("bad"))
    ('internal error', 'TypeError: bad')
    """
    if isinstance(exc, KgfsError) and isinstance(exc, OSError):  # MissingFileError: its message names the file
        return "error", cli_words(" ".join(exc.raw_message.split()))
    if isinstance(exc, OSError) and exc.filename:
        default = exc.errno is not None and exc.strerror == os.strerror(exc.errno)
        why = _PLAIN.get(exc.errno, exc.strerror) if default or not exc.strerror else exc.strerror
        return "error", f"{exc.filename}: {why or exc}"
    text = exc.raw_message if isinstance(exc, KgfsError) else str(exc)
    text = render_params(text, OPTION_WORDS)  # before split(): the marks of kg.errors.param are whitespace to it
    msg = " ".join((text.strip() or type(exc).__name__).split("\n")[0].split())
    if isinstance(exc, UnicodeDecodeError):
        return "error", f"not UTF-8: byte {exc.object[exc.start:exc.start + 1]!r} at offset {exc.start}"
    if isinstance(exc, (KgfsError, OSError, ValueError, KeyError, LookupError)):
        return "error", cli_words(msg)
    return "internal error", f"{type(exc).__name__}: {msg}"


def summary_table(summary_csv: str | os.PathLike, n_rows: int = 12, width: int | None = None,
                  title: str = "cross-validation, mean (±sd) over the folds"):
    """The cross-validation summary (``summary.csv``) as a ``rich`` table, the baseline beside the methods.

    Each method's row gives the mean and sd over the folds; the majority-class baseline's row
    (selector ``majority class``, classifier ``prior``) is dimmed, and a row whose selection was
    degenerate is marked ``DEGENERATE`` with why and in how many folds: in a ``note`` column when the
    table fits ``width``, else by a ``*`` after the selector and a line under the table.

    Parameters
    ----------
    summary_csv : path
    n_rows : int
        At most this many method rows (the baselines are always shown); the caption says how many more.
    width : int, optional
        The console's width (default: no limit).
    title : str
        What the numbers are (a split evaluation's: the test part's scores).

    Returns
    -------
    rich.table.Table or None
        None when the summary has no rows (the evaluation was skipped).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.csv"
    >>> _ = p.write_text("dataset,selector,classifier,degenerate,n_selected,n_features,accuracy,accuracy_sd\\n"
    ...                  "d,shsel,nb,only roots (10/10 folds),1,699,0.717,0.033\\n"
    ...                  "d,majority class,prior,,0,699,0.717,0.033\\n")
    >>> t = summary_table(p)
    >>> t.row_count, [c.header for c in t.columns][-1]
    (2, 'note')
    >>> narrow = summary_table(p, width=60)
    >>> [c.header for c in narrow.columns][-1], "* shsel / nb: DEGENERATE selection" in narrow.caption
    ('±sd', True)
    """
    import pandas as pd
    from rich import box
    from rich.table import Table

    columns = {"dataset": "dataset", "selector": "selector", "classifier": "clf", "n_selected": "features",
               "accuracy": "acc", "accuracy_sd": "±sd", "auroc": "AUROC", "aucpr": "AUCPR", "gm": "GM",
               "compression": "compr"}
    df = pd.read_csv(summary_csv)
    if df.empty:
        return None
    base = df["selector"].eq("majority class") & df["classifier"].eq("prior")
    methods = df[~base]
    more = max(0, len(methods) - n_rows)
    df = pd.concat([methods.head(n_rows), df[base & df["dataset"].isin(methods.head(n_rows)["dataset"])]])
    if "dataset" in df and df["dataset"].nunique() > 1:
        df = df.sort_values("dataset", kind="stable")  # each dataset's baseline under its methods
    else:
        df = df.drop(columns=["dataset"], errors="ignore")
    if "n_selected" in df:  # "kept/all"
        def kept(i, v):  # a failed cell has neither number
            n = df["n_features"][i] if "n_features" in df else None
            return ("-" if v != v else f"{v:.0f}") + ("" if n is None else "/-" if n != n else f"/{int(n)}")

        df["n_selected"] = [kept(i, v) for i, v in df["n_selected"].items()]
    cols = [c for c in columns if c in df]
    cells = [[("-" if v != v else f"{v:.3f}") if isinstance(v, float) else str(v) for v in row[cols]]
             for _, row in df.iterrows()]
    is_base = base.reindex(df.index).tolist()
    notes = ["baseline" if b else (f"DEGENERATE: {d}" if isinstance(d, str) and d else "")
             for b, d in zip(is_base, df.get("degenerate", pd.Series("", index=df.index)))]
    widths = [max(len(columns[c]), *(len(r[k]) for r in cells)) for k, c in enumerate(cols)]
    with_note = width is None or sum(widths) + max(len(n) for n in notes) + 2 * len(cols) + 4 <= width
    lines = []
    if more:
        lines.append(f"... and {more} more rows in {summary_csv}")
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD,
              pad_edge=False, padding=(0, 1), collapse_padding=True, caption_justify="left")
    for k, c in enumerate(cols):
        text = c in ("dataset", "selector", "classifier")
        t.add_column(columns[c], justify="left" if text else "right", no_wrap=not text,
                     overflow="fold", min_width=None if text else widths[k])
    if with_note:
        t.add_column("note", justify="left", no_wrap=True)
    for row, b, note in zip(cells, is_base, notes):
        style = "dim italic" if b else ("bold red" if note else None)
        if not with_note and note and not b:
            row = list(row)
            row[cols.index("selector")] += " *"
            clf = row[cols.index("classifier")] if "classifier" in cols else ""
            lines.append(f"* {row[cols.index('selector')][:-2]} / {clf}: DEGENERATE selection ({note[12:]}): "
                         "compare its scores with the majority-class baseline")
        t.add_row(*row, *([note] if with_note else []), style=style)
    if not with_note:
        lines.append("majority class / prior: the baseline (the most frequent class, no feature)")
    t.caption = "\n".join(lines) or None
    return t


def datasets_table(infos: Sequence):
    """``kgfs datasets list``: name, sizes, loader and description of registry datasets.

    Parameters
    ----------
    infos : sequence of kg.datasets.DatasetInfo

    Returns
    -------
    rich.table.Table

    Examples
    --------
    >>> from kg.datasets import list_datasets
    >>> datasets_table(list_datasets()[:2]).row_count
    2
    """
    from rich.table import Table

    t = Table(title=f"{len(infos)} datasets", title_justify="left")
    for c in ("name", "instances", "features", "loader", "description"):
        t.add_column(c, overflow="fold", justify="right" if c in ("instances", "features") else "left")
    for i in infos:
        t.add_row(i.name, "" if i.n_instances is None else str(i.n_instances),
                  "" if i.n_features is None else str(i.n_features), i.loader or "generator",
                  (i.description or "")[:90])
    return t


def cache_table(records: Sequence[Mapping], root) -> object:
    """``kgfs cache ls``: one row per cached stage.

    Parameters
    ----------
    records : sequence of mapping
        :meth:`kg.store.store.Store.records`.
    root : path
        The store's folder (the title).

    Returns
    -------
    rich.table.Table

    Examples
    --------
    >>> rec = {"stage": "table", "key": "ab" * 8, "bytes": 2048, "mtime": 0, "summary": {"n": 1}}
    >>> cache_table([rec], "/s").row_count
    1
    """
    from rich.table import Table

    t = Table(title=f"stage store {root}", title_justify="left")
    for c in ("stage", "key", "size", "modified", "summary"):
        t.add_column(c, overflow="fold")
    for r in records:
        brief = ", ".join(f"{k}={v}" for k, v in (r.get("summary") or {}).items()
                          if isinstance(v, (int, float, str)) and k != "report")
        t.add_row(r["stage"], r["key"][:12], f"{r['bytes'] / 1024:.0f} KiB",
                  time.strftime("%Y-%m-%d %H:%M", time.localtime(r["mtime"])), brief[:80])
    return t


_NOTES = {"unannotated_genes": "labelled {noun}(s) without a usable annotation, left out",
          "unknown_terms": "term id(s) not in the ontology, dropped (--unknown drop)",
          "obsolete_dropped": "obsolete term(s) dropped (--on-obsolete drop)",
          "replaced_terms": "obsolete term(s) replaced (--on-obsolete replace)",
          "unlabelled_genes": "annotated {noun}(s) without a label, left out",
          "repaired_cells": "cell(s) violated the hierarchy and were closed upward (--check report keeps them)",
          "violations": "cell(s) violate the hierarchy (kept: --check report)",
          "instances_without_entities": "instance(s) linked to no entity",
          "instances_without_features": "instance(s) without any feature (empty rows)",
          "unknown_features": "feature(s) unknown to the hierarchy, dropped",
          "hierarchy_unknown_nodes": "node(s) of --hierarchy that are not features, dropped (--hierarchy-drop-unknown)",
          "removed_cycle_edges": "hierarchy edge(s) removed to break cycles",
          "merged_cycles": "cycle(s) of the hierarchy merged, each into one feature holding its members",
          "entities_without_features": "linked entit(ies) without features in the source",
          "entities_without_link": "entity(ies) without an owl:sameAs link into the graph of the features (--bridge)",
          "types_without_link": "type(s) without an owl:equivalentClass in the graph of the features, dropped "
                                "(--bridge)"}


#: Namespaces written short in the console's notes (the files under notes/ keep the full IRIs).
SHORT_NAMESPACES = {"http://dbpedia.org/resource/Category:": "dbc:", "http://dbpedia.org/resource/": "dbr:",
                    "http://dbpedia.org/ontology/": "dbo:", "http://dbpedia.org/class/yago/": "yago:",
                    "http://www.w3.org/2002/07/owl#": "owl:", "http://www.wikidata.org/entity/": "wd:"}


def short_iri(value) -> str:
    """An IRI of a well-known namespace as ``prefix:name`` (others unchanged).

    Examples
    --------
    >>> short_iri("http://dbpedia.org/resource/Category:Cat_554"), short_iri("GO:0008150")
    ('dbc:Cat_554', 'GO:0008150')
    """
    s = str(value)
    for ns, prefix in SHORT_NAMESPACES.items():
        if s.startswith(ns):
            return prefix + s[len(ns):]
    return s


def table_notes_lines(meta: Mapping, n: int = 5, files: Mapping[str, str] | None = None) -> list[str]:
    """What a table's meta reports about its input, one line each, naming up to ``n`` examples.

    Parameters
    ----------
    meta : mapping
        ``FeatureTable.meta``, or a summary's ``meta`` with its ``examples``
        (:func:`kg.formats.folder.table_summary`).
    n : int
    files : mapping, optional
        Report key -> the file holding its full list (``notes/<key>.csv`` of the output folder):
        named on the line when the list is longer than what it shows.

    Returns
    -------
    list of str

    Examples
    --------
    >>> table_notes_lines({"unannotated_genes": ["g7", "g9"], "violations": 0})
    ['2 labelled gene(s) without a usable annotation, left out: g7, g9']
    >>> table_notes_lines({"unlabelled_genes": 5323, "instance_noun": "disease"})
    ['5323 annotated disease(s) without a label, left out']
    >>> table_notes_lines({"removed_cycle_edges": 7, "examples": {"removed_cycle_edges": ["a -> b"]}}, 1,
    ...                   {"removed_cycle_edges": "out/notes/removed_cycle_edges.csv"})
    ['7 hierarchy edge(s) removed to break cycles: a -> b and 6 more (the full list: out/notes/removed_cy...csv)']
    >>> table_notes_lines({"merged_cycles": {"http://www.wikidata.org/entity/Q20 ≡ http://www.wikidata.org/entity/Q30":
    ...                    ["http://www.wikidata.org/entity/Q20", "http://www.wikidata.org/entity/Q30"]}})
    ['1 cycle(s) of the hierarchy merged, each into one feature holding its members: wd:Q20 ≡ wd:Q30']
    """
    examples = meta.get("examples") or {}
    out = []
    for key, what in _NOTES.items():
        v = meta.get(key)
        if not v:
            continue
        items = list(v) if isinstance(v, (list, dict)) else examples.get(key, [])
        count = len(v) if isinstance(v, (list, dict)) else int(v)
        items = [" -> ".join(map(short_iri, x)) if isinstance(x, (list, tuple)) else
                 " ≡ ".join(short_iri(q) for q in str(x).split(" ≡ ")) if " ≡ " in str(x) else
                 " -> ".join(short_iri(p) for p in str(x).split(" -> ")) for x in items]
        shown = few(items, n) if items and count == len(items) else ", ".join(map(str, items[:n])) + (
            f" and {count - len(items[:n])} more" if items and count > len(items[:n]) else "")
        full = (files or {}).get(key)
        what = what.format(noun=meta.get("instance_noun") or "gene")  # the ontology route's instances
        out.append(f"{count} {what}" + (f": {shown}" if items else "")
                   + (f" (the full list: {full})" if full and count > min(n, len(items)) else ""))
    return out
