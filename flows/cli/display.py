"""The live display of a pipeline run in a terminal (``kgfs run``): one line per stage, as it happens.

:class:`RunDisplay` is called like a reporter of :func:`flows.pipeline.set_reporter`:
``display(event, stage, **info)`` with ``start``, ``progress`` (``done``, ``total``, ``what``) and
``done`` (``record``, or a ``note``). Each stage gets a spinner, a bar with the time left for the
evaluation's cells, and when done the note of :func:`flows.publishing.report.stage_note` (``105 of 699
kept``), marked *cached* when the stage came from the store. ``rich`` is imported when a display is made.

Examples
--------
>>> import io
>>> from rich.console import Console
>>> con = Console(file=io.StringIO(), width=100, force_terminal=False)
>>> with RunDisplay(con) as show:
...     show("start", "select")
...     show("done", "select", record={"summary": {"n_selected": 3, "n_features": 9}, "reused": True})
>>> "3 of 9 kept cached" in con.file.getvalue()
True
"""

from __future__ import annotations

from flows.publishing.report import stage_note

__all__ = ["RunDisplay"]


class RunDisplay:
    """Rich progress for the pipeline's stages (spinner per stage, a bar with ETA for evaluation).

    Parameters
    ----------
    console : rich.console.Console
    enabled : bool
        False shows nothing (``--quiet``).

    Examples
    --------
    >>> from rich.console import Console
    >>> RunDisplay(Console(), enabled=False).LABELS["select"]
    'select features'
    """

    LABELS = {"prefect": "Prefect server", "annotate": "annotate (entities)", "fetch": "fetch facts",
              "facts": "load facts", "table": "build table", "select": "select features", "evaluate": "evaluate (CV)",
              "export": "export", "publish": "write outputs"}

    def __init__(self, console, enabled: bool = True):
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description:<28}"), BarColumn(bar_width=24),
                                 TextColumn("{task.fields[info]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                                 console=console, transient=False, disable=not enabled)
        self.tasks: dict[str, int] = {}

    def __enter__(self):
        self.progress.__enter__()
        return self

    def __exit__(self, *exc):
        for tid in self.tasks.values():
            if not self.progress.tasks[tid].finished:
                self.progress.update(tid, total=1, completed=0, info="[red]stopped")
                self.progress.stop_task(tid)
        self.progress.__exit__(*exc)

    def _task(self, stage: str) -> int:
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(self.LABELS.get(stage, stage), total=None, info="")
        return self.tasks[stage]

    def __call__(self, event: str, stage: str, **info) -> None:
        tid = self._task(stage)
        if event == "progress":
            self.progress.update(tid, total=info["total"], completed=info["done"],
                                 info=f"{info['done']}/{info['total']} {info.get('what') or 'cells'}")
        elif event == "done":
            rec = info.get("record") or {}
            note = info.get("note") or stage_note(stage, rec.get("summary"))
            info = f"{note} [dim]cached[/]" if rec.get("reused") else note
            self.progress.update(tid, total=1, completed=1, info=info)
