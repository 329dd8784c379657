"""Scheduled runs on new corpora: the ``kgfs-watch`` flow behind ``kgfs serve --watch DIR``.

Each tick (a flow run created by the deployment's cron or interval schedule) lists the corpus
files of the watched folder, hashes each (sha256 of its content), and runs the whole pipeline
(:func:`flows.pipeline.kgfs_run`, as a subflow) on every file whose hash the ledger does not
record as done. Outputs go to ``OUT/<file stem>-<hash[:12]>/`` beside the others; the stage
store is shared, so what two corpora have in common (e.g. the ontology) is computed once.

The ledger (``OUT/ledger.json``, rewritten atomically after every corpus) records, per content
hash, the file, status (``ok`` or ``failed``), attempts, the error's first line and the output
folder, and per tick what was processed, skipped and failed. A corpus that fails is reported
(in the ledger, the flow's log, a markdown artifact, and by the tick's run ending *Failed*)
and is tried again on the next tick; it never stops the other corpora of the tick. A renamed
file with the same content is not processed again; an edited file is (new hash).

What a file is depends on the options given to ``kgfs serve``:

- with ``--obo`` and ``--annotations`` (GO route): each file is a labels table
  (``gene<TAB>label``), i.e. a labelled gene list over the shared ontology and annotations;
- otherwise (DBpedia route): each file is a corpus (CSV/TSV/JSONL/tweets ``.txt``) read with
  the ``--text-column``/``--label-column``/... options and linked with ``--annotator`` against
  ``--dump`` or ``--sparql-url``.

Files whose name starts with ``.`` or ends with ``.tmp``/``.part`` are ignored: copy a corpus
in under such a name and rename it when complete.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from pathlib import Path

from flows import settings

if not settings.prefect_imported():  # configure before the first import of prefect
    settings.configure()

from prefect import flow, get_run_logger  # noqa: E402
from prefect.artifacts import create_markdown_artifact  # noqa: E402

from flows import stages  # noqa: E402
from flows.pipeline import kgfs_run  # noqa: E402
from kg.files import atomic_write, sha256_file  # noqa: E402

__all__ = ["CORPUS_SUFFIXES", "LEDGER_NAME", "watch_flow", "corpus_files", "read_ledger", "process_folder"]

log = logging.getLogger(__name__)

CORPUS_SUFFIXES = (".csv", ".tsv", ".txt", ".jsonl", ".json", ".gz")
LEDGER_NAME = "ledger.json"
LEDGER_FORMAT = 1
MAX_TICKS_KEPT = 500  # the ledger keeps the last ticks only (corpora are kept forever)


def corpus_files(folder: str | Path) -> list[Path]:
    """The corpus files of ``folder`` (sorted by name; hidden and partial files ignored)."""
    out = []
    for p in sorted(Path(folder).iterdir()):
        name = p.name
        if not p.is_file() or name.startswith(".") or name.endswith((".tmp", ".part")) or name == LEDGER_NAME:
            continue
        if name.lower().endswith(CORPUS_SUFFIXES):
            out.append(p)
    return out


def read_ledger(out_dir: str | Path) -> dict:
    """The ledger of an output folder (empty when none was written yet)."""
    path = Path(out_dir) / LEDGER_NAME
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") == LEDGER_FORMAT:
            return data
    return {"format": LEDGER_FORMAT, "corpora": {}, "ticks": []}


def _write_ledger(out_dir: Path, ledger: dict) -> None:
    ledger["ticks"] = ledger["ticks"][-MAX_TICKS_KEPT:]
    text = json.dumps(ledger, indent=1, sort_keys=True)
    atomic_write(out_dir / LEDGER_NAME, lambda tmp: tmp.write_text(text + "\n", encoding="utf-8"))


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _one_line(exc: BaseException) -> str:
    msg = str(exc).strip() or type(exc).__name__
    return f"{type(exc).__name__}: {' '.join(msg.splitlines()[0].split())}"


def source_for(path: Path, source_options: Mapping) -> dict:
    """The run's input spec for one watched file (GO labels file, or a DBpedia corpus)."""
    opts = dict(source_options)
    if opts.get("obo") or opts.get("annotations"):
        opts["labels"] = str(path)
        opts.setdefault("name", path.stem)
        return stages.resolve_source(**opts)
    corpus_options = dict(opts.pop("corpus_options", None) or {})
    return stages.resolve_source(corpus=str(path), corpus_options=corpus_options,
                                 **{k: v for k, v in opts.items() if k in ("min_support", "name")})


def process_folder(watch_dir: str, out_dir: str, source_options: Mapping, run_options: Mapping,
                   home: str) -> dict:
    """One tick: run the pipeline on every not-yet-processed corpus file; returns the tick record."""
    logger = get_run_logger()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ledger = read_ledger(out)
    tick = {"started": _now(), "processed": [], "skipped": [], "failed": []}
    for path in corpus_files(watch_dir):
        sha = sha256_file(path)
        entry = ledger["corpora"].get(sha)
        if entry and entry.get("status") == "ok":
            tick["skipped"].append(path.name)
            continue
        target = out / f"{path.stem}-{sha[:12]}"
        entry = {"file": path.name, "path": str(path.absolute()), "sha256": sha, "out": str(target),
                 "attempts": int((entry or {}).get("attempts", 0)) + 1, "first_seen": (entry or {}).get(
                     "first_seen", tick["started"]), "started": _now()}
        try:
            source = source_for(path, source_options)
            result = kgfs_run.with_options(flow_run_name=f"kgfs-run {path.name}")(
                source=source, out=str(target), home=home, **dict(run_options))
            entry.update(status="ok", error=None, finished=_now(),
                         stages_reused=sorted(k for k, i in result["runinfo"].items() if i.get("reused")))
            tick["processed"].append(path.name)
            logger.info("processed %s -> %s", path.name, target)
        except Exception as exc:  # noqa: BLE001 - one bad corpus must not stop the others
            entry.update(status="failed", error=_one_line(exc), finished=_now())
            tick["failed"].append(path.name)
            logger.error("corpus %s failed (attempt %d, retried next tick): %s", path.name, entry["attempts"],
                         entry["error"])
        ledger["corpora"][sha] = entry
        _write_ledger(out, ledger)  # after every corpus: a killed tick loses at most the one in progress
    tick["finished"] = _now()
    ledger["ticks"].append(tick)
    _write_ledger(out, ledger)
    return tick


def _tick_markdown(tick: Mapping, ledger: Mapping) -> str:
    lines = [f"# kgfs watch tick {tick['started']}", "",
             f"processed {len(tick['processed'])}, skipped {len(tick['skipped'])} (already done), "
             f"failed {len(tick['failed'])}", "", "| file | status | attempts | output / error |", "|---|---|---|---|"]
    for e in sorted(ledger["corpora"].values(), key=lambda e: e["file"]):
        if e["file"] in tick["processed"] or e["file"] in tick["failed"]:
            lines.append(f"| {e['file']} | {e['status']} | {e['attempts']} | `{e['error'] or e['out']}` |")
    return "\n".join(lines) + "\n"


@flow(name="kgfs-watch", persist_result=False, log_prints=False)
def watch_flow(watch_dir: str, out_dir: str, source_options: dict | None = None, run_options: dict | None = None,
               home: str | None = None) -> dict:
    """Process every new corpus file of ``watch_dir`` (see the module doc); fails when a corpus failed."""
    from kg.errors import KgfsError

    home = str(Path(home).absolute()) if home else str(settings.kgfs_home())
    tick = process_folder(watch_dir, out_dir, source_options or {}, run_options or {}, home)
    ledger = read_ledger(out_dir)
    if tick["processed"] or tick["failed"]:
        create_markdown_artifact(_tick_markdown(tick, ledger), key="kgfs-watch-tick",
                                 description=f"corpora processed from {watch_dir}")
    if tick["failed"]:
        raise KgfsError(f"{len(tick['failed'])} corpus file(s) failed and will be retried on the next tick: "
                        + ", ".join(tick["failed"]))
    return tick
