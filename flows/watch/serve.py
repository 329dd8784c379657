"""``kgfs serve --watch DIR``: the ``kgfs-watch`` flow its deployment runs on a schedule, on a local Prefect server.

Schedules need a real API server (the temporary one a flow run starts does not schedule): the user's server
(:mod:`flows.server.local`, on 127.0.0.1; the one ``kgfs run`` uses) unless ``PREFECT_API_URL`` names one, chosen
before Prefect is imported (:func:`flows.watch.api.api_for_serving`). Each tick (a scheduled flow run) runs
:func:`flows.pipeline.kgfs_run` on every new file of the folder (:func:`flows.watch.ledger.process_folder`), each
file the input of the kind the options describe (:func:`flows.inputs.watch_input`: a corpus, or a labels table over
an ontology); the stage store is shared, so what the files have in common is computed once. With a model of
``kgfs fit`` (``kgfs serve --model``) each new file is predicted instead (:func:`flows.predict.predict_file`: read
and linked as the model's corpus was), its report (counts per class, instances with none of the model's features)
kept in the ledger and the tick's artifact. A file that failed is
reported (ledger, log, artifact, a *Failed* tick), retried with a back-off and given up after ``max_attempts``
until its content changes. SIGINT (Ctrl-C) or SIGTERM stops serving within a few seconds, with one line
(:func:`serve`).

Prefect reads its settings when imported: this module configures the kgfs home first
(:func:`flows.settings.ensure_configured`); the command line imports it only for ``kgfs serve``, once
``PREFECT_API_URL`` is set.
"""

# ruff: noqa: E402 (Prefect is imported after the offline configuration, see the module doc)
from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from multiprocessing import resource_tracker
from pathlib import Path

from flows import settings

settings.ensure_configured()  # before `import prefect` (see the module doc): the imports below come after it

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact
from prefect.runner import Runner
from prefect.settings import PREFECT_API_URL, temporary_settings

from flows import pipeline
from flows.inputs import watch_input
from flows.run_options import RunOptions
from flows.watch import ledger
from flows.watch.api import api_for_serving
from flows.words import OPTION_WORDS
from kg.errors import KgfsError

__all__ = ["api_for_serving", "serve", "watch_flow"]


class _Runner(Runner):
    """Prefect's runner, without its SIGTERM handler (it waits, from inside the signal handler, for the event loop
    the handler interrupted: ``kgfs serve`` never stopped); :func:`serve` handles SIGTERM as SIGINT."""

    def handle_sigterm(self, *args, **kwargs) -> None:
        _Stopping.current.signalled(signal.SIGTERM)


class _Stopping:
    """SIGINT or SIGTERM: one line, then the runner is cancelled; a runner still not stopped ``grace`` seconds later
    (or a second signal) ends the process at once, its flow runs with it (they carry the process marker:
    :mod:`flows.server.processes`). The user's server is not this process's: it stays (stopped when idle, or by
    ``kgfs server stop``)."""

    current: _Stopping

    def __init__(self, grace: float):
        self.grace, self.signum, self.task = grace, None, None

    def signalled(self, signum: int) -> None:
        if self.signum is not None:  # asked twice: at once
            self.hard_exit()
        self.signum = signum
        print(f"kgfs serve: stopping ({signal.Signals(signum).name})", file=sys.stderr, flush=True)
        timer = threading.Timer(self.grace, self.hard_exit)
        timer.daemon = True
        timer.start()
        if self.task is not None:
            self.task.cancel()

    @property
    def status(self) -> int:
        return 128 + int(self.signum or signal.SIGINT)

    @staticmethod
    def end_flow_runs(grace: float) -> None:
        """End the flow runs (and their workers) still running: the processes carrying this process's marker."""
        from flows.server.processes import MARKER_ENV, marked_processes, terminate

        if os.environ.get(MARKER_ENV):
            terminate(marked_processes(os.environ[MARKER_ENV]), grace=grace)

    def hard_exit(self) -> None:
        with contextlib.suppress(Exception):
            self.end_flow_runs(1.0)
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        os._exit(self.status)


@contextlib.contextmanager
def sigint_blocked_for_children():
    """SIGINT blocked in this thread, so in every process it starts (a blocked signal stays blocked across fork and
    exec), until the block ends.

    Prefect starts each flow run with multiprocessing's *spawn*, whose first use starts multiprocessing's resource
    tracker and, doing so, *unblocks* SIGINT in the calling thread (CPython 3.11
    ``resource_tracker.ensure_running``): every flow run after it took Ctrl-C and printed a traceback on the way
    out. The tracker is started first here (it ignores SIGINT itself), so later spawns leave the mask alone.
    """
    resource_tracker.ensure_running()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


async def _run_until_signalled(runner: Runner, stopping: _Stopping) -> None:
    loop = asyncio.get_running_loop()
    stopping.task = asyncio.ensure_future(runner.start())
    await asyncio.sleep(0)  # runner.start() sets its SIGTERM handler first: ours replace it
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stopping.signalled, sig)
    try:
        await stopping.task
    except asyncio.CancelledError:
        if stopping.signum is None:
            raise


def serve(name: str, parameters: dict, schedule: dict, *, grace: float = 5.0, lease=None) -> int:
    """Register the ``kgfs-watch/<name>`` deployment and run its scheduled flow runs until SIGINT or SIGTERM; returns
    the exit status (0, or 130 after SIGINT, 143 after SIGTERM).

    ``lease`` is a context manager held while serving (the user's server's lease). Ctrl-C in a terminal signals the
    whole process group: the flow runs (this process's children) start with SIGINT blocked, so a tick is ended by
    this process (SIGTERM), never interrupted half-way with a traceback on the console.
    """
    stopping = _Stopping.current = _Stopping(grace)
    # limit=1: ticks run one after another, so two ticks never process the same new file
    runner = _Runner(name=name, limit=1)
    # Prefect read its settings when imported: the API chosen since (a caller that imported it first) applies too
    api = {PREFECT_API_URL: os.environ["PREFECT_API_URL"]} if os.environ.get("PREFECT_API_URL") else {}
    # a thread that takes SIGINT for this process (signals blocked in a thread are delivered to another one)
    threading.Thread(target=threading.Event().wait, name="kgfs-serve-signals", daemon=True).start()
    with lease if lease is not None else contextlib.nullcontext(), temporary_settings(updates=api):
        runner.add_flow(watch_flow, name=name, parameters=parameters,
                        tags=[f"home:{Path(parameters['home']).absolute()}"], **schedule)  # one server, every home
        with sigint_blocked_for_children():
            asyncio.run(_run_until_signalled(runner, stopping))
    if stopping.signum is None:
        return 0
    stopping.end_flow_runs(3.0)
    return stopping.status


@flow(name="kgfs-watch", persist_result=False, log_prints=False)
def watch_flow(watch_dir: str, out_dir: str, source_options: dict | None = None, run_options: dict | None = None,
               home: str | None = None, ledger_options: dict | None = None, prediction: dict | None = None) -> dict:
    """Process every new file of ``watch_dir`` (see the module doc); fails when one failed.

    ``source_options`` are the input options given to ``kgfs serve`` (:func:`flows.inputs.watch_values`),
    ``run_options`` a :class:`~flows.run_options.RunOptions` in its JSON form; a corpus is processed once nothing
    wrote to it for ``ledger_options["settle_seconds"]`` (default :data:`~flows.watch.ledger.SETTLE_SECONDS`), and
    given up after ``ledger_options["max_attempts"]`` (default 3) failed attempts. With ``prediction``
    (``model``: a model folder of ``kgfs fit``, loaded and so checked again in this process on every tick;
    ``top``, ``batch_size``) each corpus is predicted instead (:func:`flows.predict.predict_file`;
    ``source_options`` are then how a corpus is read), the ledger keeping each one's report and the model it was
    done with (a corpus done with another model is done again).
    ``ledger_options["words"]`` (:data:`flows.words.OPTION_WORDS` of the command that serves) name the options in
    the errors.
    """
    home = str(Path(home).absolute()) if home else str(settings.kgfs_home())
    how = dict(ledger_options or {})
    words = {**OPTION_WORDS, **(how.get("words") or {})}
    max_attempts = int(how.get("max_attempts", 3))
    settle_seconds = float(how.get("settle_seconds", ledger.SETTLE_SECONDS))
    version = None
    predict_options = dict(prediction or {})
    model = predict_options.pop("model", None)
    if model:
        from flows import predict
        from kg.files import sha256_file
        from selection.model import MANIFEST, load_model

        try:
            fitted = load_model(model)  # checked again: changed since serving started, it fails the tick
            version = f"model:{sha256_file(Path(model) / MANIFEST)}"
        except (KgfsError, OSError) as exc:
            tick = ledger.failed_tick(out_dir, exc, words)  # the ledger says why nothing was predicted
            create_markdown_artifact(ledger.tick_markdown(tick, ledger.read_ledger(out_dir)), key="kgfs-watch-tick",
                                     description=f"the model {model} could not be loaded")
            raise KgfsError(f"--model {model}: {tick['error']} (no corpus predicted in this tick)") from None

        def run(path: Path, target: Path) -> dict:
            return predict.predict_file(fitted, path, home, target, source_options, **(predict_options or {}))
    else:
        options = RunOptions.from_json(run_options)

        def run(path: Path, target: Path) -> list[str]:
            result = pipeline.kgfs_run.with_options(flow_run_name=f"kgfs-run {path.name}")(
                watch_input(path, source_options or {}), options, str(target), home)
            return result.reused

    tick = ledger.process_folder(watch_dir, out_dir, run, get_run_logger(), max_attempts=max_attempts,
                                 settle_seconds=settle_seconds, words=words, version=version)
    if tick["processed"] or tick["failed"]:
        create_markdown_artifact(ledger.tick_markdown(tick, ledger.read_ledger(out_dir)), key="kgfs-watch-tick",
                                 description=f"corpora {'predicted' if model else 'processed'} from {watch_dir}")
    if tick["failed"]:
        raise KgfsError(f"{len(tick['failed'])} corpus file(s) failed (retried on a later tick, given up after "
                        f"{max_attempts} attempts: see the ledger): " + ", ".join(tick["failed"]))
    return tick
