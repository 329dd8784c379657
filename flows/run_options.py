"""What a run does with its table, as one typed object (:class:`RunOptions`): a Prefect parameter with a JSON form.

Kept apart from :mod:`flows.stages` (which loads numpy and scipy) so that the command line can
make and check it before any heavy import.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kg.routes.base import Input

__all__ = ["RunOptions"]


@dataclass(frozen=True)
class RunOptions:
    """What a run does with its table: the whole-table selector, the cross-validation, the exports, the batches.

    Attributes
    ----------
    selector : str
        Fitted on the whole table (``selected_features.csv``).
    selector_params : dict
    eval_selectors : tuple of str, optional
        Compared in the cross-validation (default: ``selector``); ``selector`` runs there with its parameters.
    classifiers : tuple of str
    protocol : str
    n_splits, seed, n_jobs : int
    sparse_arff : bool
        Also write the sparse ARFF.
    dense_exports : bool, optional
        Write the dense ARFF and CSV (``True``), never (``False``), or only for a small table
        (``None``: :data:`kg.formats.folder.DENSE_LIMIT` cells; larger ones get sparse files).
    artifacts : bool
        Publish Prefect artifacts.
    dask_address : str, optional
        ``tcp://HOST:PORT`` of a Dask scheduler, or ``"local"``.
    batch_size : int
        Texts (entities) per batch of a route's batched steps.
    external_concurrency : int
        Batches in flight against an outside service.

    Examples
    --------
    >>> o = RunOptions(selector_params={"threshold": 0.9})
    >>> RunOptions.from_json(o.to_json()) == o, o.eval_specs()
    (True, [['shsel-ig-prune', {'threshold': 0.9}]])
    """

    selector: str = "shsel-ig-prune"
    selector_params: dict = field(default_factory=dict)
    eval_selectors: tuple[str, ...] | None = None
    classifiers: tuple[str, ...] = ("nb",)
    protocol: str = "basic"
    n_splits: int = 10
    seed: int = 0
    n_jobs: int = 1
    sparse_arff: bool = True
    dense_exports: bool | None = None
    artifacts: bool = True
    dask_address: str | None = None
    batch_size: int = 500
    external_concurrency: int = 4

    def to_json(self) -> dict:
        """A JSON-friendly dict (a deployment's parameter)."""
        return {f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v
                for f in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | RunOptions | None) -> RunOptions:
        """Options from :meth:`to_json`'s form (an options object is returned as it is)."""
        if isinstance(data, RunOptions):
            return data
        data = dict(data or {})
        for k in ("eval_selectors", "classifiers"):
            if data.get(k) is not None:
                data[k] = tuple(data[k])
        data["selector_params"] = dict(sorted(dict(data.get("selector_params") or {}).items()))
        return cls(**data)

    def evaluated(self) -> list[str]:
        """The cross-validation's selectors (names)."""
        return list(self.eval_selectors or [self.selector])

    def eval_specs(self) -> list:
        """The cross-validation's selectors: the whole-table selector with its parameters (``[name, params]``)."""
        sp = dict(sorted(self.selector_params.items()))
        return [[s, sp] if s == self.selector and sp else s for s in self.evaluated()]

    def params(self, inp: Input) -> dict:
        """The parameters a run records (``run.json``) and is named by."""
        return {"dataset": inp.name, "selector": self.selector,
                "selector_params": dict(sorted(self.selector_params.items())), "eval_selectors": self.evaluated(),
                "classifiers": list(self.classifiers), "protocol": self.protocol, "n_splits": self.n_splits,
                "seed": self.seed, "source": inp.to_json()}
