"""The ledger of a watched folder: which corpus files were processed, by content hash.

``kgfs serve --watch DIR`` runs a *tick* now and then: :func:`process_folder` lists the corpus
files of the folder (:func:`corpus_files`), hashes each (sha256 of its content), and runs the
pipeline, or the prediction of a model (a callable), on every file whose hash the ledger does not record as
done (with this model: ``version``). Outputs go to ``OUT/<file stem>-<hash[:12]>/``.

The ledger (``OUT/ledger.json``, rewritten atomically after every corpus) records, per content
hash, the file, status (``ok``, ``failed`` or ``gave-up``), attempts, the error's first line (naming the
command line's options, as ``kgfs run`` says it: :mod:`flows.words`), the output folder and what the callable
reported (a prediction's counts per class and of instances with none of the model's features), and per tick
(numbered) what was processed, skipped, failed, waiting and given up.
A corpus that fails never stops the other corpora of the tick; it is tried again with a back-off
in ticks (the 2nd attempt on the next tick, the 3rd two ticks later, then four, ...) and given up
after ``max_attempts`` attempts (default 3; the ledger says ``gave-up`` and why) until its content
changes: an edited file has a new hash and starts again, a renamed file with the same content is
not processed again. Files whose name starts with ``.`` or ends with ``.tmp``/``.part`` are ignored:
copy a corpus in under such a name and rename it when complete. A corpus written in place is processed
only once it is complete: nothing wrote to it for ``settle_seconds`` (default :data:`SETTLE_SECONDS`; its
modification time that old, and its size and time unchanged while it was hashed); until then the tick
lists it as ``settling``. A corpus that disappears before or while it is processed is listed as ``gone``
(with its last attempt's entry marked so), and the tick goes on with the others.

Examples
--------
>>> import tempfile, pathlib
>>> watch, out = pathlib.Path(tempfile.mkdtemp()), pathlib.Path(tempfile.mkdtemp())
>>> _ = (watch / "a.tsv").write_text("g1\\tx\\n")
>>> tick = process_folder(watch, out, lambda path, target: ["facts"], settle_seconds=0)
>>> tick["processed"], process_folder(watch, out, lambda path, target: [], settle_seconds=0)["skipped"]
(['a.tsv'], ['a.tsv'])
>>> [e["status"] for e in read_ledger(out)["corpora"].values()]
['ok']
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from flows.words import cli_words
from kg.errors import KgfsError
from kg.files import atomic_write, sha256_file

__all__ = ["CORPUS_SUFFIXES", "LEDGER_NAME", "MAX_ATTEMPTS", "SETTLE_SECONDS", "corpus_files", "failed_tick",
           "process_folder", "read_ledger", "report_line", "tick_markdown", "write_ledger"]

log = logging.getLogger(__name__)

CORPUS_SUFFIXES = (".csv", ".tsv", ".txt", ".jsonl", ".json", ".gz")
LEDGER_NAME = "ledger.json"
LEDGER_FORMAT = 1
MAX_TICKS_KEPT = 500  # the ledger keeps the last ticks only (corpora are kept forever)
MAX_ATTEMPTS = 3
#: Seconds without a write after which a corpus written in place counts as complete.
SETTLE_SECONDS = 60.0


def corpus_files(folder: str | os.PathLike) -> list[Path]:
    """The corpus files of ``folder`` (sorted by name; hidden, partial and ledger files ignored).

    Parameters
    ----------
    folder : str or os.PathLike

    Returns
    -------
    list of Path

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("b.csv", "a.tsv", ".hidden.tsv", "c.tsv.part", "notes.md"):
    ...     _ = (d / name).write_text("")
    >>> [p.name for p in corpus_files(d)]
    ['a.tsv', 'b.csv']
    """
    out = []
    for p in sorted(Path(folder).iterdir()):
        name = p.name
        if not p.is_file() or name.startswith(".") or name.endswith((".tmp", ".part")) or name == LEDGER_NAME:
            continue
        if name.lower().endswith(CORPUS_SUFFIXES):
            out.append(p)
    return out


def read_ledger(out_dir: str | os.PathLike) -> dict:
    """The ledger of an output folder (empty when none was written yet).

    Parameters
    ----------
    out_dir : str or os.PathLike

    Returns
    -------
    dict
        ``format``, ``corpora`` (content hash -> entry), ``ticks``.

    Examples
    --------
    >>> read_ledger("/no/such/folder")
    {'format': 1, 'corpora': {}, 'ticks': []}
    """
    path = Path(out_dir) / LEDGER_NAME
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") == LEDGER_FORMAT:
            return data
    return {"format": LEDGER_FORMAT, "corpora": {}, "ticks": []}


def write_ledger(out_dir: str | os.PathLike, ledger: dict) -> None:
    """Write the ledger atomically, keeping its last :data:`MAX_TICKS_KEPT` ticks.

    Parameters
    ----------
    out_dir : str or os.PathLike
    ledger : dict
        From :func:`read_ledger`.

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> write_ledger(d, {"format": 1, "corpora": {}, "ticks": [{}] * 600})
    >>> len(read_ledger(d)["ticks"])
    500
    """
    ledger["ticks"] = ledger["ticks"][-MAX_TICKS_KEPT:]
    text = json.dumps(ledger, indent=1, sort_keys=True)
    atomic_write(Path(out_dir) / LEDGER_NAME, lambda tmp: tmp.write_text(text + "\n", encoding="utf-8"))


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _one_line(exc: BaseException, words: Mapping[str, str] | None = None) -> str:
    """The error's type and first line, its parameters and keyword hints said as the command line's options
    (``words``: :func:`flows.words.cli_words`), as ``kgfs run`` would say them.

    Examples
    --------
    >>> from kg.errors import param
    >>> _one_line(KgfsError(f"{param('sparql_url')} is required\\nmore"), {"sparql_url": "--sparql-url"})
    'KgfsError: --sparql-url is required'
    >>> _one_line(ValueError("bad line 3; pass skip_bad_lines=True (--skip-bad-lines)"))
    'ValueError: bad line 3; pass --skip-bad-lines'
    """
    text = exc.raw_message if isinstance(exc, KgfsError) else str(exc)
    text = cli_words(text.strip(), words)  # before splitting: the markers of kg.errors.param are whitespace to it
    msg = " ".join((text.strip() or type(exc).__name__).splitlines()[0].split())
    return f"{type(exc).__name__}: {msg}"


def _settled(path: Path, settle_seconds: float) -> tuple[str, str | None]:
    """``("ok", sha256)`` of a complete file, ``("settling", None)`` of one written recently (or while it was
    hashed), ``("gone", None)`` of one that disappeared."""
    try:
        before = path.stat()
        if time.time() - before.st_mtime < settle_seconds:
            return "settling", None
        sha = sha256_file(path)
        after = path.stat()
    except FileNotFoundError:
        return "gone", None
    if (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
        return "settling", None
    return "ok", sha


def process_folder(watch_dir: str | os.PathLike, out_dir: str | os.PathLike,
                   run: Callable[[Path, Path], Iterable[str] | Mapping], logger=None, *,
                   max_attempts: int = MAX_ATTEMPTS, settle_seconds: float = SETTLE_SECONDS,
                   words: Mapping[str, str] | None = None, version: str | None = None) -> dict:
    """One tick: ``run`` every corpus file not processed yet (failed ones with a back-off); returns the tick's record.

    Parameters
    ----------
    watch_dir : str or os.PathLike
        The watched folder.
    out_dir : str or os.PathLike
        Outputs (one folder per corpus) and the ledger.
    run : callable
        ``run(corpus file, output folder)`` processes one corpus and returns the names of the
        stages it reused, or a report (a mapping: kept as the entry's ``report``, e.g. the counts of a
        prediction); an exception marks the corpus failed (retried on a later tick).
    logger : logging.Logger, optional
        Where processed and failed corpora are reported (default this module's logger).
    max_attempts : int
        Attempts before a failing corpus is given up (until its content changes).
    settle_seconds : float
        A corpus written less than this long ago is not complete yet (see the module).
    words : mapping, optional
        Parameter name -> the command line's option, for the errors (:func:`flows.words.cli_words`; default: this
        process's :data:`flows.words.OPTION_WORDS`).
    version : str, optional
        What the corpora are processed with (``kgfs serve --model``: the model's checksum), kept in each entry: a
        corpus processed (or given up) with another version is processed again, its attempts counted anew.

    Returns
    -------
    dict
        ``tick`` (its number), ``started``, ``finished``, ``processed``, ``skipped`` (done before),
        ``failed`` (this tick), ``waiting`` (failed before, retried on a later tick), ``given_up``,
        ``settling`` (still being written), ``gone`` (disappeared) (file names).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> watch, out = pathlib.Path(tempfile.mkdtemp()), pathlib.Path(tempfile.mkdtemp())
    >>> _ = (watch / "bad.csv").write_text("x")
    >>> def fail(path, target):
    ...     raise ValueError("no label column")
    >>> ticks = [process_folder(watch, out, fail, logging.getLogger("quiet"), max_attempts=2, settle_seconds=0)
    ...          for _ in range(4)]
    >>> [(t["failed"], t["waiting"], t["given_up"]) for t in ticks]
    [(['bad.csv'], [], []), (['bad.csv'], [], []), ([], [], ['bad.csv']), ([], [], ['bad.csv'])]
    >>> [(e["status"], e["attempts"], e["error"]) for e in read_ledger(out)["corpora"].values()]
    [('gave-up', 2, 'ValueError: no label column')]
    """
    logger = logger or log
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ledger = read_ledger(out)
    number = int(ledger.get("tick_count", len(ledger["ticks"]))) + 1
    ledger["tick_count"] = number
    tick = {"tick": number, "started": _now(), "processed": [], "skipped": [], "failed": [], "waiting": [],
            "given_up": [], "settling": [], "gone": []}
    for path in corpus_files(watch_dir):
        state, sha = _settled(path, settle_seconds)
        if sha is None:
            tick[state].append(path.name)
            logger.info("corpus %s %s", path.name, "disappeared" if state == "gone" else
                        f"is still being written (changed within {settle_seconds:g} s): processed when complete")
            continue
        entry = ledger["corpora"].get(sha) or {}
        if entry and entry.get("version") != version:  # done with another model: to do again with this one
            entry = {"first_seen": entry.get("first_seen")} if entry.get("first_seen") else {}
        attempts = int(entry.get("attempts", 0))
        if entry.get("status") == "ok":
            tick["skipped"].append(path.name)
            continue
        if entry and attempts >= max_attempts:
            tick["given_up"].append(path.name)
            continue
        if number < int(entry.get("retry_tick", 0)):
            tick["waiting"].append(path.name)
            continue
        ledger["corpora"][sha] = _attempt(path, sha, entry, out / f"{path.stem}-{sha[:12]}", tick,
                                          _How(run, max_attempts, logger, words, version))
        write_ledger(out, ledger)  # after every corpus: a killed tick loses at most the one in progress
    tick["finished"] = _now()
    ledger["ticks"].append(tick)
    write_ledger(out, ledger)
    return tick


class _How(NamedTuple):
    """How a tick processes its corpora (:func:`process_folder`'s arguments)."""

    run: Callable[[Path, Path], Iterable[str] | Mapping]
    max_attempts: int
    logger: logging.Logger
    words: Mapping[str, str] | None
    version: str | None


def _attempt(path: Path, sha: str, entry: Mapping, target: Path, tick: dict, how: _How) -> dict:
    """Process one corpus; its new ledger entry (the tick's lists are updated)."""
    run, max_attempts, logger, words, version = how
    attempts = int(entry.get("attempts", 0)) + 1
    new = {"file": path.name, "path": str(path.absolute()), "sha256": sha, "out": str(target), "attempts": attempts,
           "first_seen": entry.get("first_seen", tick["started"]), "started": _now()}
    if version is not None:
        new["version"] = version
    try:
        result = run(path, target)
        if isinstance(result, Mapping):
            new.update(status="ok", error=None, finished=_now(), report=dict(result))
        else:
            new.update(status="ok", error=None, finished=_now(), stages_reused=sorted(result))
        tick["processed"].append(path.name)
        logger.info("processed %s -> %s%s", path.name, target,
                    f": {report_line(new['report'])}" if isinstance(result, Mapping) else "")
        return new
    except Exception as exc:  # noqa: BLE001 - one bad corpus must not stop the others
        new.update(status="failed", error=_one_line(exc, words), finished=_now())
    if not path.exists():  # it disappeared while it was processed: not its fault, no attempt counted
        new.update(status="gone", attempts=attempts - 1, note="the file disappeared while it was processed")
        tick["gone"].append(path.name)
        logger.warning("corpus %s disappeared while it was processed: %s", path.name, new["error"])
        return new
    tick["failed"].append(path.name)
    if attempts >= max_attempts:
        new.update(status="gave-up", note=f"gave up after {attempts} failed attempts; processed again when the "
                                          "file's content changes")
        logger.error("corpus %s failed (attempt %d of %d, given up until its content changes): %s", path.name,
                     attempts, max_attempts, new["error"])
    else:
        new["retry_tick"] = tick["tick"] + 2 ** (attempts - 1)
        logger.error("corpus %s failed (attempt %d of %d, retried on tick %d): %s", path.name, attempts,
                     max_attempts, new["retry_tick"], new["error"])
    return new


def failed_tick(out_dir: str | os.PathLike, exc: BaseException, words: Mapping[str, str] | None = None) -> dict:
    """Record a tick that processed no corpus because what processes them failed (``kgfs serve --model``: the model
    damaged since serving started): its ``error`` in one line, the corpora's attempts untouched (not their fault).

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> failed_tick(d, KgfsError("/m/arrays.npz: damaged"))["error"]
    'KgfsError: /m/arrays.npz: damaged'
    >>> read_ledger(d)["ticks"][-1]["tick"]
    1
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ledger = read_ledger(out)
    number = int(ledger.get("tick_count", len(ledger["ticks"]))) + 1
    ledger["tick_count"] = number
    tick = {"tick": number, "started": _now(), "finished": _now(), "error": _one_line(exc, words), "processed": [],
            "skipped": [], "failed": [], "waiting": [], "given_up": [], "settling": [], "gone": []}
    ledger["ticks"].append(tick)
    write_ledger(out, ledger)
    return tick


def tick_markdown(tick: Mapping, ledger: Mapping) -> str:
    """A markdown summary of a tick: counts, and the corpora processed or failed in it.

    Parameters
    ----------
    tick : mapping
        From :func:`process_folder`.
    ledger : mapping
        From :func:`read_ledger` (after the tick).

    Returns
    -------
    str

    Examples
    --------
    >>> tick = {"started": "t0", "processed": ["a.tsv"], "skipped": [], "failed": []}
    >>> ledger = {"corpora": {"h": {"file": "a.tsv", "status": "ok", "attempts": 1, "error": None, "out": "o/a"}}}
    >>> print(tick_markdown(tick, ledger).splitlines()[-1])
    | a.tsv | ok | 1 | `o/a` |
    """
    counts = (f"processed {len(tick['processed'])}, skipped {len(tick['skipped'])} (already done), failed "
              f"{len(tick['failed'])}, waiting {len(tick.get('waiting', []))} (retried later), given up "
              f"{len(tick.get('given_up', []))} (until their content changes), settling "
              f"{len(tick.get('settling', []))} (still being written), gone {len(tick.get('gone', []))}")
    if tick.get("error"):
        return f"# kgfs watch tick {tick['started']}\n\nno corpus processed: `{tick['error']}`\n"
    lines = [f"# kgfs watch tick {tick['started']}", "", counts, "", "| file | status | attempts | output / error |",
             "|---|---|---|---|"]
    shown = [e for e in sorted(ledger["corpora"].values(), key=lambda e: e["file"])
             if e["file"] in tick["processed"] or e["file"] in tick["failed"]]
    for e in shown:
        lines.append(f"| {e['file']} | {e['status']} | {e['attempts']} | `{e['error'] or e['out']}` |")
    predicted = [e for e in shown if e["status"] == "ok" and e.get("report")]
    if predicted:
        lines += ["", "## Predictions", "", "| file | instances | without the model's features | predicted |",
                  "|---|---|---|---|"]
        for e in predicted:
            r = e["report"]
            lines.append(f"| {e['file']} | {r.get('n_instances')} | {r.get('n_without_features')} | "
                         + ", ".join(f"{c} {n}" for c, n in (r.get("classes") or {}).items()) + " |")
    return "\n".join(lines) + "\n"


def report_line(report: Mapping) -> str:
    """A prediction report (:func:`flows.predict.predict_into`) in one line: instances, predicted classes, the
    instances with none of the model's features (entities the graph does not know, or not linked).

    Examples
    --------
    >>> report_line({"n_instances": 5, "classes": {"person": 2, "place": 3}, "n_without_features": 3})
    "5 instances predicted: person 2, place 3; 3 with none of the model's features (predicted from no feature)"
    """
    classes = ", ".join(f"{c} {n}" for c, n in (report.get("classes") or {}).items())
    unknown = report.get("n_without_features") or 0
    accuracy = report.get("accuracy")
    return (f"{report.get('n_instances')} instances predicted: {classes or 'none'}"
            + (f"; {unknown} with none of the model's features (predicted from no feature)" if unknown else "")
            + (f"; accuracy {accuracy:.3f} against its labels" if accuracy is not None else ""))
