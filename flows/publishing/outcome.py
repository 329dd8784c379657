"""The end of a run: its records published into the output folder, and what a person reads first.

:func:`finish` is shared by the ``kgfs-run`` flow (:mod:`flows.pipeline`) and the run from the
store alone (:func:`flows.runner.run_from_store`), so both leave the same :class:`RunResult`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from flows.publishing.publish import publish
from flows.stages import RunPlan
from kg.store import Record

__all__ = ["RunResult", "finish"]


@dataclass
class RunResult:
    """What a run leaves: its stage records, per stage whether it was reused, the published outputs.

    Attributes
    ----------
    records : dict
        Stage -> :class:`~kg.store.Record`.
    runinfo : dict
        Stage -> ``{"reused": bool, "seconds": float}``.
    outputs : dict
        Output name -> path in the output folder.
    params : dict
        The run's parameters (``run.json``).
    results : dict
        ``headline`` rows, ``kept`` features and ``warnings`` (:func:`selection.evaluation.headline.run_results`).
    flow_run : str, optional
        The Prefect flow run's id (``None``: published from the store, without Prefect).
    """

    records: dict[str, Record]
    runinfo: dict[str, dict]
    outputs: dict[str, str]
    params: dict
    results: dict
    flow_run: str | None = field(default=None)

    @property
    def reused(self) -> list[str]:
        """The stages taken from the store."""
        return [k for k, i in self.runinfo.items() if i.get("reused")]


def finish(plan: RunPlan, records: Mapping[str, Record], runinfo: Mapping[str, dict], out: str | Path) -> RunResult:
    """Publish a run's records into ``out`` and read its headline results."""
    from selection.evaluation.headline import run_results

    params = plan.options.params(plan.input)
    outputs = {k: str(v) for k, v in publish(records, out, params, runinfo).items()}
    ev, sel, tab = records.get("evaluate"), records.get("select"), records.get("table")
    results = run_results(summary=ev.path("summary") if ev and "summary" in ev.files else None,
                          selection=sel.path("selection") if sel and "selection" in sel.files else None,
                          n_instances=tab.summary.get("n_instances") if tab else None)
    return RunResult(dict(records), dict(runinfo), outputs, params, results)
