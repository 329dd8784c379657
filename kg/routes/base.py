"""The plug-in point of kgfs: an input of a run is a typed, frozen object that knows its own route.

A *route* takes what a user has (a registry dataset, an ontology with annotations, a corpus and
a knowledge graph, their own table) to a :class:`~kg.table.FeatureTable`. Each kind of input is
one frozen dataclass subclassing :class:`Input`, registered once (:func:`kg.routes.register`);
nothing outside it switches on its kind. It says:

- which command-line options it reads (:class:`Option`, data only: ``flows`` builds the parser),
  which of them select it, and how it is made from their values (:meth:`Input.from_options`);
- how it checks itself before any work (:meth:`Input.check`: files, columns, services), and
  what it reads once up front where a progress bar can show it (:meth:`Input.prepare`);
- the steps that make its table (:meth:`Input.steps`), each a :class:`Step` with the inputs of
  its store key and a function writing its outputs; a :class:`BatchedStep` fans out over
  batches first (calls to an outside service, a few at a time, retried when :meth:`BatchedStep.transient`);
- its JSON form (:meth:`Input.to_json` / :func:`kg.routes.from_json`: a Prefect parameter, a line of
  ``run.json``) and its name and route tag for the UI.

A step's key holds what decides its result: file contents (:class:`FileRef` carries a sha256),
options, the upstream records' content hashes; the runner adds the version of the code
(:func:`kg.store.code_version`, which covers the module of an input defined outside kgfs).

Examples
--------
>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Tiny(Input):
...     kind = "tiny-example"
...     route = "tiny"
...     name: str = "tiny"
>>> Tiny().to_json()
{'kind': 'tiny-example', 'name': 'tiny'}
"""

from __future__ import annotations

import dataclasses
import os
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from kg.errors import EmptyTableError, KgfsError, MissingFileError, NotAFileError, param
from kg.files import sha256_file
from kg.option_values import CHECK_HELP, UsageError, positive_number, whole_number

if typing.TYPE_CHECKING:  # numpy/scipy load with the first table, not with the options (`kgfs --help`)
    from kg.store import Record
    from kg.table import FeatureTable

# Imported where they are used: the table folder writer (numpy, scipy); `kgfs --help` reads the options.

__all__ = ["CHECK", "MIN_SUPPORT", "MIRROR", "NAME", "BatchedStep", "Context", "FileRef", "FunctionStep", "Input",
           "Option", "Output", "Step", "UsageError", "options_of",
           "check_nonempty", "positive_number", "table_step", "whole_number", "with_names"]

#: ``(files, summary)``: role -> path relative to the stage folder, and a small JSON-like summary.
Output = tuple[dict, dict]


@dataclass(frozen=True)
class Option:
    """A command-line option an input reads, as data (``flows`` makes the argparse argument).

    Parameters
    ----------
    flag : str
        ``--min-support``; the value's name is the flag without dashes (``min_support``).
    help : str
    metavar : str, optional
    many : bool
        Takes one or more values (a list).
    switch : bool
        A flag without a value (``True`` when given).
    choices : tuple of str or callable, optional
        The values it takes, or a function giving them when the parser is made (a registry's ``names``: plug-ins
        registered later are choices too).
    parse : callable, optional
        ``str -> value``, raising :class:`UsageError` (or ``ValueError``) for a value of the
        wrong form.
    path : bool
        Its values are files or folders (made absolute where they are kept for later: ``kgfs serve``).
    dest : str, optional
        The name of its value when it is not the flag's (``--check`` -> ``violations``: an input's
        ``check`` is its method).

    Examples
    --------
    >>> Option("--min-support", "drop rare features", parse=whole_number(1)).field
    'min_support'
    """

    flag: str
    help: str
    metavar: str | None = None
    many: bool = False
    switch: bool = False
    choices: tuple[str, ...] | Callable[[], Iterable[str]] | None = None
    parse: Callable[[str], Any] | None = None
    path: bool = False
    dest: str | None = None

    def allowed(self) -> tuple[str, ...] | None:
        """The values it takes (``None``: any)."""
        values = self.choices() if callable(self.choices) else self.choices
        return tuple(values) if values else None

    @property
    def field(self) -> str:
        """The name of the option's value (``--min-support`` -> ``min_support``)."""
        return self.dest or self.flag.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class FileRef:
    """A file an input reads: its absolute path and the sha256 of its content (what store keys use).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = p.write_text("abc")
    >>> FileRef.of(p).sha256[:8], FileRef.of(None)
    ('ba7816bf', None)
    >>> FileRef.of(p.parent / "b.txt", "labels")
    Traceback (most recent call last):
    ...
    kg.errors.MissingFileError: .../b.txt: file not found (labels)
    """

    path: str
    sha256: str

    @classmethod
    def of(cls, path: str | os.PathLike | None, name: str | None = None) -> FileRef | None:
        """The reference of a file (``None`` for ``None``); errors name the path and the parameter ``name`` that
        gave it (:func:`kg.errors.param`: the command line says its option)."""
        if path is None:
            return None
        p = Path(path)
        given = f" ({param(name)})" if name else ""
        if p.is_dir():
            raise NotAFileError(p, f"is a directory, expected a file{given}")
        if not p.is_file():
            raise MissingFileError(p, f"file not found{given}")
        return cls(str(p.absolute()), sha256_file(p))


@dataclass
class Context:
    """Where a route keeps what it builds beyond the store, and who hears of its progress.

    Parameters
    ----------
    home : path, optional
        The kgfs home: a route's caches are ``<home>/<name>`` (:meth:`cache_dir`); without it
        nothing is cached (dumps are streamed, services asked every time).
    progress : callable, optional
        ``progress(stage, done, total)`` (bytes of a dump being indexed, batches of a service).
    batch_size : int
        Items per batch of a :class:`BatchedStep` (texts to annotate, entities to look up).

    Examples
    --------
    >>> Context("/h").cache_dir("rdf-cache").as_posix(), Context().cache_dir("x")
    ('/h/rdf-cache', None)
    """

    home: str | os.PathLike | None = None
    progress: Callable[..., None] | None = None
    batch_size: int = 500

    def cache_dir(self, name: str) -> Path | None:
        """The folder of a route's own cache (``None`` without a home)."""
        return None if self.home is None else Path(self.home) / name


# --------------------------------------------------------------------------- steps
class Step:
    """One stage of a route: a store folder named by :meth:`key`, filled by :meth:`compute`.

    Attributes
    ----------
    name : str
        The stage's name (its store folder, its row in the console and the Prefect UI).
    needs : tuple of str
        The earlier steps whose records it reads (``up`` holds them by name).
    modules : tuple of str
        Modules outside kgfs whose source decides the result too (their source is in the key).

    The last step of a route is named ``"table"`` and writes ``table.npz`` and ``summary.json``
    (:func:`kg.formats.folder.write_table_folder`).
    """

    name: str = ""
    needs: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()

    def key(self, up: Mapping[str, Record]) -> dict:
        """What decides the result (JSON-like; upstream records by their ``hash``)."""
        raise NotImplementedError

    def compute(self, folder: Path, up: Mapping[str, Record]) -> Output:
        """Write the outputs into ``folder``; returns ``(files, summary)``."""
        raise NotImplementedError


class BatchedStep(Step):
    """A step that runs one sub-stage per batch (:attr:`batch_name`), then merges their records.

    The batches of an outside service (Spotlight, SPARQL) run a few at a time, each stored on its
    own (an interrupted run resumes with the batches it has) and retried when
    :meth:`transient` says the error may pass. :meth:`key` and :meth:`compute` find the batches'
    records in ``up["batches"]`` (a list, in the order of :meth:`batches`).
    """

    batch_name: str = ""

    def batches(self, up: Mapping[str, Record]) -> list[dict]:
        """The batches (small JSON-like descriptions: a range of rows, a list of entities)."""
        raise NotImplementedError

    def batch_key(self, up: Mapping[str, Record], batch: Mapping) -> dict:
        """What decides one batch's result."""
        raise NotImplementedError

    def compute_batch(self, folder: Path, up: Mapping[str, Record], batch: Mapping) -> Output:
        """Write one batch's outputs into ``folder``."""
        raise NotImplementedError

    def batch_label(self, batch: Mapping) -> str:
        """A batch's name in the UI."""
        return self.batch_name

    def transient(self, exc: BaseException | None) -> bool:
        """Whether a failed batch may succeed when retried later (default: never)."""
        return False


# --------------------------------------------------------------------------- the input
def _jsonable(value):
    if isinstance(value, FileRef):
        return {"path": value.path, "sha256": value.sha256}
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def _from_json(hint, value):
    """A field's value from its JSON form, by the field's type hint (FileRef, tuples, mappings)."""
    if value is None:
        return None
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        return _from_json(inner[0], value) if len(inner) == 1 else value
    if hint is FileRef:
        return value if isinstance(value, FileRef) else FileRef(**value)
    if origin is tuple:
        inner = args[0] if args else Any
        return tuple(_from_json(inner, v) for v in value)
    if origin in (dict, Mapping) or hint in (dict, Mapping):
        inner = args[1] if len(args) == 2 else Any
        return {k: _from_json(inner, v) for k, v in dict(value).items()}
    return value


@dataclass(frozen=True)
class Input:
    """An input of a run: a frozen dataclass that knows its route (see the module).

    Subclasses set the class attributes, declare their fields (``name`` first, every field
    JSON-like: str, numbers, bools, tuples, :class:`FileRef`, mappings) and implement
    :meth:`from_options`, :meth:`steps` and, when there is something to check, :meth:`check`.
    Objects an input builds while it runs (a parsed corpus, an annotator) are kept in a private
    memo (:meth:`memo`), outside its fields: equality, JSON and pickling ignore them.
    """

    kind: ClassVar[str] = ""
    #: The route's tag in the UI (``route:<route>``).
    route: ClassVar[str] = ""
    #: A short title of the route (the heading of its options in ``--help``).
    title: ClassVar[str] = ""
    #: The command-line options it reads (shared ones, such as ``--min-support``, may be listed by several kinds).
    options: ClassVar[tuple[Option, ...]] = ()
    #: Option fields whose presence selects this kind of input.
    selected_by: ClassVar[tuple[str, ...]] = ()
    #: For ``kgfs serve --watch``: the option a watched folder's file fills (``None``: not watchable).
    watch_field: ClassVar[str | None] = None
    #: Registry loaders (:mod:`kg.datasets`) whose datasets are inputs of this kind (:meth:`from_dataset`).
    dataset_loaders: ClassVar[tuple[str, ...]] = ()

    name: str

    # ----------------------------------------------------------------- making one
    @classmethod
    def from_options(cls, values: Mapping[str, Any]) -> Input:
        """The input from its options' values (only its own options' fields, ``None`` when not given).

        Raises
        ------
        KgfsError, OSError
            A missing file, options that do not go together, naming the options.
        """
        raise NotImplementedError

    @classmethod
    def from_dataset(cls, name: str, paths: Mapping[str, Path], options: Mapping, values: Mapping[str, Any]) -> Input:
        """The input of a registry dataset whose loader is one of :attr:`dataset_loaders`.

        Parameters
        ----------
        name : str
        paths : mapping
            Role -> the dataset's fetched files.
        options : mapping
            The dataset's options in the registry.
        values : mapping
            The options given on the command line that this kind reads.
        """
        raise NotImplementedError

    @classmethod
    def fields(cls) -> tuple[str, ...]:
        """The option fields this kind reads."""
        return tuple(o.field for o in cls.options)

    # ----------------------------------------------------------------- JSON
    def to_json(self) -> dict:
        """The JSON form: ``{"kind": ..., field: value, ...}`` (files as ``{"path", "sha256"}``)."""
        return {"kind": self.kind, **{f.name: _jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)}}

    @classmethod
    def _from_fields(cls, data: Mapping[str, Any]) -> Input:
        hints = typing.get_type_hints(cls)
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names - {"kind"})
        if unknown:
            raise KgfsError(f"a {cls.kind!r} input has no field(s) {', '.join(unknown)}")
        return cls(**{k: _from_json(hints.get(k, Any), v) for k, v in data.items() if k != "kind"})

    # ----------------------------------------------------------------- a run
    def check(self, ctx: Context) -> dict:
        """Check the input before any work; returns what was learnt.

        Returns
        -------
        dict
            ``classes`` (label -> count of the rows to come) when known, and what else the
            route counted.

        Raises
        ------
        KgfsError, OSError
            What a step would raise later, naming the file, line and option.
        """
        return {}

    def prepare(self, ctx: Context, progress: Callable[[int, int, str], None] | None = None) -> dict | None:
        """Read what the route reads once up front (a dump into its index), where a bar can show it.

        ``progress(done_bytes, total_bytes, file_name)``. Returns a report, or ``None`` when
        there was nothing to read.
        """
        return None

    def steps(self, ctx: Context) -> Sequence[Step]:
        """The steps that make the table, in order; the last one is ``"table"``."""
        raise NotImplementedError

    @classmethod
    def prepare_options(cls, values: Mapping[str, Any], ctx: Context,
                        progress: Callable[[int, int, str], None] | None = None) -> dict | None:
        """:meth:`prepare` for the options of a watched folder, before any of its files is there (default: nothing)."""
        return None

    def describe(self) -> str:
        """One line naming the input (for logs and the UI)."""
        return f"{self.name} ({self.route})"

    def feature_names(self, features: Sequence[str], ctx: Context | None = None) -> dict[str, str]:
        """Readable names of features (id -> name) from the route's knowledge graph; default: none.

        A table's meta may hold names already (``term_names``: the ontology route puts them there, the
        RDF route's table step asks this hook, :func:`table_step`'s ``names``, and stores them); a run
        asks it for the names a table lacks (:func:`with_names`), for ``selection.csv``, the report and
        the graph exports. Features without a name are left out.

        Parameters
        ----------
        features : sequence of str
            Feature ids (of the route's table).
        ctx : Context, optional
            The kgfs home (a route's caches, read only).

        Returns
        -------
        dict of str -> str

        Examples
        --------
        >>> from dataclasses import dataclass
        >>> @dataclass(frozen=True)
        ... class Plain(Input):
        ...     kind = "plain-example"
        ...     name: str = "p"
        >>> Plain().feature_names(["a", "b"])
        {}
        """
        return {}

    # ----------------------------------------------------------------- the memo
    def memo(self) -> dict:
        """A private dict for the objects this input builds (a corpus, an annotator), kept for the process."""
        memo = self.__dict__.get("_memo")
        if memo is None:
            memo = {}
            object.__setattr__(self, "_memo", memo)
        return memo

    def __getstate__(self):  # pickled (a Dask worker) without what it built
        return {k: v for k, v in self.__dict__.items() if k != "_memo"}

    def __setstate__(self, state):
        for k, v in state.items():
            object.__setattr__(self, k, v)


def options_of(values: Mapping[str, Any], kind: type[Input]) -> dict:
    """The values of ``kind``'s own options among ``values`` (missing ones as ``None``)."""
    return {f: values.get(f) for f in kind.fields()}


class FunctionStep(Step):
    """A step made of two functions: ``key(up) -> dict`` and ``compute(folder, up) -> (files, summary)``.

    Examples
    --------
    >>> s = FunctionStep("facts", lambda up: {"n": 1}, lambda d, up: ({}, {"n": 1}))
    >>> s.name, s.key({})
    ('facts', {'n': 1})
    """

    def __init__(self, name: str, key: Callable[[Mapping], dict], compute: Callable[[Path, Mapping], Output],
                 needs: Sequence[str] = ()):
        self.name, self.needs = name, tuple(needs)
        self._key, self._compute = key, compute

    def key(self, up):
        return self._key(up)

    def compute(self, folder, up):
        return self._compute(folder, up)


def table_step(key: Callable[[Mapping], dict], make: Callable[[Mapping], Any], needs: Sequence[str] = (),
               names: Callable[[list[str]], Mapping[str, str]] | None = None) -> Step:
    """The ``"table"`` step: ``make(up)``'s :class:`~kg.table.FeatureTable` as ``table.npz`` + ``summary.json``.

    Parameters
    ----------
    key : callable
        ``key(up) -> dict``.
    make : callable
        ``make(up) -> FeatureTable``.
    needs : sequence of str
    names : callable, optional
        ``names(features) -> {id: name}`` (the input's :meth:`Input.feature_names`): the stored table's features
        are named (:func:`with_names`) when ``make`` did not name them, so every later use of the step reads
        them (the key must then say what they come from).

    Returns
    -------
    Step
    """
    def compute(folder: Path, up: Mapping) -> Output:
        from kg.formats.folder import REMOVED_EDGES, write_table_folder

        summary = write_table_folder(with_names(make(up), names), folder)
        files = {"table": "table.npz", "summary": "summary.json"}
        if (folder / REMOVED_EDGES).is_file():  # a file of the folder (copied by kgfs build): checked as the others
            files["removed_edges"] = REMOVED_EDGES
        return files, summary

    return FunctionStep("table", key, compute, needs)


def with_names(table: FeatureTable, names: Callable[[list[str]], Mapping[str, str]] | None) -> FeatureTable:
    """``table`` with its features' names (``meta["term_names"]``, ``""`` for a feature without one) from
    ``names(features)`` when it has none and ``names`` gives some; the table itself is changed and returned.

    Examples
    --------
    >>> from kg.hierarchy import FeatureHierarchy
    >>> from kg.table import FeatureTable
    >>> t = FeatureTable.from_facts({"i": ["a", "b"]}, FeatureHierarchy.from_edges([], nodes=["a", "b"]))
    >>> with_names(t, lambda features: {"a": "the a"}).meta["term_names"]
    {'a': 'the a', 'b': ''}
    """
    if names is None or table.meta.get("term_names"):
        return table
    features = table.feature_names.tolist()
    found = names(features)
    if found:
        table.meta["term_names"] = {f: found.get(f, "") for f in features}
    return table


def check_nonempty(table: FeatureTable, min_support: int | None = None, unfiltered: FeatureTable | None = None):
    """Raise a :class:`KgfsError` when a table has no instance or no feature; returns the table.

    Parameters
    ----------
    table : FeatureTable
    min_support : int, optional
        The ``min_support`` that filtered it (named in the message).
    unfiltered : FeatureTable, optional
        The table before that filter (its most frequent feature is named in the message).

    Returns
    -------
    FeatureTable

    Examples
    --------
    >>> from kg.routes.tables import RegistryDataset
    >>> t = RegistryDataset.from_options({"dataset": "synthetic/S-D2-B2"}).load()
    >>> check_nonempty(t.drop_rare(5000), 5000, t)
    Traceback (most recent call last):
    ...
    kg.errors.EmptyTableError: no feature is present in 5000 instances or more (min_support=5000): ...instance(s)
    """
    if table.n_instances == 0:
        raise EmptyTableError("the table has no instances (no instance has a feature and a label)", empty="instances")
    if table.n_features == 0:
        most = f"; its most frequent feature is in {int(unfiltered.support.max())} instance(s)" \
            if unfiltered is not None and unfiltered.n_features else ""
        if min_support and min_support > 1:
            raise EmptyTableError(f"no feature is present in {min_support} instances or more "
                                  f"({param('min_support', min_support)}): the table would be empty{most}",
                                  empty="features")
        raise EmptyTableError("the table has no features (no instance has a known feature)", empty="features")
    return table


# --------------------------------------------------------------------------- options several kinds read
MIN_SUPPORT = Option("--min-support", "drop features present in fewer than N instances (the papers use 3)",
                     metavar="N", parse=whole_number(1))
NAME = Option("--name", "dataset name in the outputs (default: the annotations, corpus or table file name)")
MIRROR = Option("--mirror", "local data mirror folder (default $KGFS_DATA_MIRROR)", metavar="DIR", path=True)
CHECK = Option("--check", CHECK_HELP, choices=("repair", "report", "raise"), dest="violations")
