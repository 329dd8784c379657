"""Routes: every kind of input of a run is a plug-in, a subclass of :class:`~kg.routes.base.Input`.

:mod:`kg.routes.base` is the plug-in point (the input, its options, its steps). The kinds kgfs ships
are one module each, registered below by name, one line each (:data:`BUILTIN_KINDS`, imported on first use):
:mod:`kg.routes.tables` (registry datasets, a user's own table), :mod:`kg.ontology.route` (an ontology
and its annotations) and :mod:`kg.rdf.route` (a corpus or entities through any RDF graph). A package outside
kgfs adds its own under the entry-point group ``kgfs.inputs`` (``name = "package.module:InputClass"``
in its ``pyproject.toml``), and code can call :func:`register` (a test's own route does). A new
knowledge graph is one module with its input class plus one line here (or an entry point).
Everything else (the command line, the checks, the Prefect flows, the store keys) works from an
input object and never switches on its kind. The knowledge-graph code a route uses lives in its
own package (:mod:`kg.ontology`, :mod:`kg.rdf`), which knows nothing of routes.

- :func:`input_kinds`: the registered kinds; :func:`from_json`: an input from its JSON form;
- :func:`resolve_dataset`: a registry dataset as the input of the kind that claims its loader;
- :func:`run_step` / :func:`run_steps`: one step (or batch), or all of them, in a :class:`~kg.store.Store`;
- :func:`build_table`: the input's table (a temporary store by default): the one way from an
  input to its table without the pipeline.

Examples
--------
>>> sorted(input_kinds())
['dataset', 'file', 'ontology', 'rdf']
>>> resolve_dataset({"dataset": "bundled/DM-BP"}).kind
'ontology'
>>> inp = from_json({"kind": "dataset", "name": "synthetic/S-D2-B2", "files": {}})
>>> build_table(inp).shape
(1000, 1201)
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.datasets import dataset_info, fetch
from kg.errors import KgfsError, RepairableError
from kg.plugins import Plugins
from kg.routes.base import BatchedStep, Context, Input, Step
from kg.routes.tables import DEFAULT_DATASET, RegistryDataset

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from kg.store import Record, Store
    from kg.table import FeatureTable

# Imported where they are used: the dataset registry, the store and the table (tomllib, numpy, scipy), not needed
# to list the kinds' options for `kgfs --help`.

__all__ = ["BUILTIN_KINDS", "INPUTS", "LEGACY_KINDS", "Context", "Input", "build_table", "dataset_kind", "from_json",
           "input_kinds", "register", "resolve_dataset", "run_step", "run_steps", "step_inputs", "unregister"]

#: The kinds of input kgfs ships (kind -> its class, imported on first use), in the order the command line lists
#: their options.
BUILTIN_KINDS: dict[str, str] = {"dataset": "kg.routes.tables:RegistryDataset",
                                 "ontology": "kg.ontology.route:OntologyInput", "rdf": "kg.rdf.route:CorpusInput",
                                 "file": "kg.routes.tables:OwnTable"}
#: The kinds' names of earlier versions (stored run records and watch folders still read).
LEGACY_KINDS = {"go": "ontology", "dbpedia": "rdf"}
INPUTS = Plugins("kgfs.inputs", "kind of input", BUILTIN_KINDS)


def register(cls: type[Input]) -> type[Input]:
    """Register a kind of input (usable as a class decorator); a kind registered again replaces the old one."""
    if not (isinstance(cls, type) and issubclass(cls, Input)) or not cls.kind:
        raise TypeError(f"{cls!r} is not an Input subclass with a kind")
    INPUTS.register(cls.kind, cls)
    return cls


def unregister(kind: str) -> None:
    """Forget a registered kind (tests that registered their own)."""
    INPUTS.unregister(kind)


def input_kinds() -> dict[str, type[Input]]:
    """Kind -> input class: kgfs's own, then the entry points of the group ``kgfs.inputs``, then :func:`register`'s."""
    return dict(INPUTS.items())


def from_json(data: Mapping[str, Any] | Input) -> Input:
    """An input from its JSON form (:meth:`Input.to_json`); an input is returned as it is.

    Raises
    ------
    KgfsError
        An unknown kind, or fields that kind does not have.
    """
    if isinstance(data, Input):
        return data
    kinds = input_kinds()
    kind = data.get("kind") if isinstance(data, Mapping) else None
    if kind in LEGACY_KINDS and kind not in kinds:
        kind = LEGACY_KINDS[kind]
    if kind not in kinds:
        raise KgfsError(f"unknown kind of input {kind!r} (known: {', '.join(sorted(kinds))})")
    return kinds[kind]._from_fields(data)


def resolve_dataset(values: Mapping[str, Any]) -> Input:
    """The input of registry dataset ``values["dataset"]``: of the kind that claims its loader, else a
    :class:`~kg.routes.tables.RegistryDataset`.

    Parameters
    ----------
    values : mapping
        ``dataset``, ``mirror`` and the options given (only the chosen kind's are read).

    Returns
    -------
    Input

    Examples
    --------
    >>> resolve_dataset({"dataset": "rpv/CE-BP", "mirror": "/no/mirror"}).kind  # doctest: +SKIP
    'dataset'
    """
    name = values.get("dataset") or DEFAULT_DATASET
    info = dataset_info(name)
    cls = dataset_kind(info.loader)
    if cls is RegistryDataset:
        return RegistryDataset.from_options({**values, "dataset": name})
    return cls.from_dataset(name, fetch(name, mirror=values.get("mirror")), dict(info.options), values)


def dataset_kind(loader: str) -> type[Input]:
    """The kind of input that builds a registry dataset of this ``loader`` (the kind that claims it, e.g. the
    ontology route's ``ontology``); :class:`~kg.routes.tables.RegistryDataset` for a ready-made table.

    Examples
    --------
    >>> dataset_kind("ontology").kind, dataset_kind("aire").kind, dataset_kind("").kind
    ('ontology', 'dataset', 'dataset')
    """
    return next((c for c in input_kinds().values() if loader and loader in c.dataset_loaders), RegistryDataset)


# --------------------------------------------------------------------------- running the steps
def step_inputs(inp: Input, step_name: str, key: Mapping, step: Step | None = None) -> dict:
    """A step's store inputs: its key, and the version of the code it runs (every kgfs module, and the
    modules of an input or step defined outside kgfs: :func:`kg.store.code_version`)."""
    from kg.store import code_version

    modules = sorted({type(inp).__module__, type(step).__module__ if step else type(inp).__module__,
                      *(step.modules if step else ())})
    return {**dict(key), "code": code_version(step_name, modules)}


def run_step(inp: Input, step: Step, up: Mapping[str, Record], store: Store, *, force: bool = False,
             batch: Mapping | None = None) -> Record:
    """Run one step (or one batch of a :class:`~kg.routes.base.BatchedStep`) in ``store``; returns its record.

    Damaged data met on the way that can be repaired (:class:`~kg.errors.RepairableError`: a block of the dump
    index that does not have its checksum) stores nothing of the step: it is repaired (the segment read from
    its dump file again), what the input built is forgotten (its source and annotator hold the damaged files
    open), and the step runs again, at most :data:`REPAIRS` times.
    """
    for attempt in range(REPAIRS + 1):
        try:
            if batch is not None:
                name = step.batch_name
                return store.run(name, step_inputs(inp, name, step.batch_key(up, batch), step),
                                 lambda d: step.compute_batch(d, up, batch), force=force)
            return store.run(step.name, step_inputs(inp, step.name, step.key(up), step),
                             lambda d: step.compute(d, up), force=force)
        except RepairableError as exc:
            if attempt == REPAIRS or not exc.repair():
                raise
            log.warning("the %s step runs again (%s)", step.name, exc)
            inp.memo().clear()
    raise AssertionError("unreachable")  # pragma: no cover


#: How many times a step is repaired and run again (:func:`run_step`) before its error is raised.
REPAIRS = 2


def run_steps(inp: Input, store: Store, ctx: Context | None = None, *, force: bool = False) -> dict[str, Record]:
    """Every step of the input's route in order, in ``store`` (batches one after another); step -> record."""
    records: dict[str, Record] = {}
    for step in inp.steps(ctx or Context()):
        up = {n: records[n] for n in step.needs}
        if isinstance(step, BatchedStep):
            up["batches"] = [run_step(inp, step, up, store, force=force, batch=b) for b in step.batches(up)]
        records[step.name] = run_step(inp, step, up, store, force=force)
    return records


def build_table(inp: Input, ctx: Context | None = None, store: Store | None = None) -> FeatureTable:
    """The input's table, by its route's steps (in ``store``, or a temporary store removed afterwards).

    Parameters
    ----------
    inp : Input
    ctx : Context, optional
        The kgfs home (the routes' caches) and a progress callback.
    store : Store, optional

    Returns
    -------
    FeatureTable
    """
    from kg.store import Store
    from kg.table import FeatureTable

    if store is not None:
        return FeatureTable.load(run_steps(inp, store, ctx)["table"].path("table"))
    with tempfile.TemporaryDirectory(prefix="kgfs-steps-") as tmp:
        return FeatureTable.load(run_steps(inp, Store(Path(tmp)), ctx)["table"].path("table"))
