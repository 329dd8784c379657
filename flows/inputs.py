"""A run's input from the command line's values: the registered kind they select, made and checked up front.

Every kind of input (:mod:`kg.routes`) declares its options; the command line gives their values
(``None`` when not typed). :func:`resolve_input` picks the one kind whose selecting options were
given (``--obo``/``--annotations``, ``--corpus``, ``--arff``/``--csv``, ``--dataset``; none: the
default registry dataset), refuses options that the chosen input would ignore, naming them and
where they belong, and makes the input. :func:`watch_input` does the same for each file of a
watched folder (``kgfs serve``), the file filling the kind's :attr:`~kg.routes.base.Input.watch_field`;
:func:`load_tables` reads the tables of ``kgfs evaluate``; :func:`check_output` refuses an output
path in the way.

Examples
--------
>>> inp = resolve_input({})  # the bundled default dataset
>>> inp.kind, inp.name
('go', 'bundled/DM-BP')
>>> resolve_input({"corpus": "c.csv", "namespaces": "BP"})
Traceback (most recent call last):
...
kg.errors.KgfsError: --namespaces applies to the ontology route (--ontology/--obo/--annotations or ...), not to --corpus
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.datasets import dataset_info, load_dataset, resolve_names
from kg.errors import KgfsError
from kg.routes import dataset_kind, input_kinds, resolve_dataset
from kg.routes.base import Input, Option
from kg.routes.tables import DEFAULT_DATASET, TABLE_LOADERS, RegistryDataset

if TYPE_CHECKING:
    from kg.table import FeatureTable

__all__ = ["check_output", "input_options", "load_tables", "resolve_input", "watch_input", "watch_kind",
           "watch_values"]


def input_options() -> list[tuple[str, list[Option]]]:
    """The options of every kind of input, grouped for ``--help``: ``(title, options)``.

    An option several kinds read (``--min-support``, ``--name``) is listed once, in the first
    group; a kind's group holds the options it is the first to declare.

    Examples
    --------
    >>> [title.split(" (")[0] for title, _opts in input_options()]
    ['a registry dataset', 'the ontology route', 'the DBpedia route', 'your own table']
    """
    seen: set[str] = set()
    groups = []
    for cls in input_kinds().values():
        opts = [o for o in cls.options if o.flag not in seen]
        seen.update(o.flag for o in opts)
        if opts:
            groups.append((cls.title or cls.kind, opts))
    return groups


def _flags(cls: type[Input]) -> str:
    flags = {o.field: o.flag for o in cls.options}
    return "/".join(flags[f] for f in cls.selected_by if f in flags)


def _given(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None and v is not False and v != ()}


def _owner_text(field: str, flag: str) -> str:
    """Where an option belongs: ``the ontology route (--ontology/--obo/--annotations or a GO dataset)``."""
    owners = [cls for cls in input_kinds().values() if field in cls.fields()]
    parts = []
    for cls in owners:
        names_a_file = any(o.path for o in cls.options if o.field == field)  # a registry dataset brings its own
        where = _flags(cls) + (" or a registry dataset of it" if cls.dataset_loaders and not names_a_file else "")
        parts.append(f"{(cls.title or cls.kind).split(' (')[0]} ({where})" if where else (cls.title or cls.kind))
    return " or ".join(parts) if parts else "no input"


def _flag_of(field: str) -> str:
    for cls in input_kinds().values():
        for o in cls.options:
            if o.field == field:
                return o.flag
    return "--" + field.replace("_", "-")


def _reject(given: Mapping[str, Any], allowed: set[str], chosen: str) -> None:
    """Options the chosen input would ignore are errors, never dropped silently."""
    wrong = sorted(f for f in given if f not in allowed)
    if wrong:
        flag = _flag_of(wrong[0])
        raise KgfsError(f"{flag} applies to {_owner_text(wrong[0], flag)}, not to {chosen}")


def _choose(given: Mapping[str, Any]) -> list[type[Input]]:
    kinds = list(input_kinds().values())
    chosen = [cls for cls in kinds if any(f in given for f in cls.selected_by)]
    if len(chosen) > 1:
        raise KgfsError(f"give one input: {' or '.join(_flags(c) for c in chosen)}, not several")
    return chosen


def resolve_input(values: Mapping[str, Any]) -> Input:
    """The input the option values describe (see the module).

    Parameters
    ----------
    values : mapping
        Option field -> value (``None``, ``False`` or missing: not given).

    Returns
    -------
    Input

    Raises
    ------
    KgfsError, OSError
        Several inputs, an option the input would ignore, a missing file.
    """
    given = _given(values)
    chosen = _choose(given)
    if chosen and chosen[0] is not RegistryDataset:
        cls = chosen[0]
        flags = {o.field: o.flag for o in cls.options}
        _reject(given, set(cls.fields()), next(flags[f] for f in cls.selected_by if f in given))
        return cls.from_options({f: given.get(f) for f in cls.fields()})

    name = given.get("dataset") or DEFAULT_DATASET
    loader = dataset_info(name).loader
    kind = dataset_kind(loader)  # the one rule that resolve_dataset follows too
    # a registry dataset brings its files: the kind's options that name files (--obo, --labels, ...) do not apply
    allowed = {"dataset", "mirror"} | ({o.field for o in kind.options if not o.path}
                                       if kind is not RegistryDataset else set(RegistryDataset.fields()))
    _reject(given, allowed, f"dataset {name!r} (a ready-made {loader or 'generated'} table)"
            if kind is RegistryDataset else f"dataset {name!r}")
    return resolve_dataset({**given, "dataset": name})


def watch_kind(values: Mapping[str, Any]) -> type[Input]:
    """The kind of input each file of a watched folder is, from the options given with ``kgfs serve``:
    the watchable kind whose options were given (one whose selecting options are, first), else the one
    whose watched file is a corpus."""
    given = _given(values)
    kinds = [c for c in input_kinds().values() if c.watch_field]
    for test in (lambda c: any(f in given for f in c.selected_by if f != c.watch_field),
                 lambda c: any(f in given for f in c.fields() if f not in {"name", "min_support"}),
                 lambda c: c.watch_field == "corpus"):
        found = [c for c in kinds if test(c)]
        if found:
            return found[0]
    raise KgfsError("no kind of input can watch a folder")


def watch_values(values: Mapping[str, Any]) -> dict:
    """The option values given for ``kgfs serve``, as a deployment keeps them: JSON-friendly (lists, not
    tuples), paths made absolute, options not given left out.

    Examples
    --------
    >>> watch_values({"dump": ["d/"], "features": "types", "kg": None})["features"]
    'types'
    >>> Path(watch_values({"dump": ["d/"]})["dump"][0]).is_absolute()
    True
    """
    paths = {o.field for cls in input_kinds().values() for o in cls.options if o.path}
    out = {}
    for k, v in _given(values).items():
        if k in paths:
            v = [str(Path(x).absolute()) for x in v] if isinstance(v, list | tuple) else str(Path(v).absolute())
        out[k] = list(v) if isinstance(v, tuple) else v
    return out


def watch_input(path: str | os.PathLike, values: Mapping[str, Any]) -> Input:
    """The input of one file of a watched folder: the file fills its kind's ``watch_field`` (a labels table
    over the GO route's ontology and annotations, a corpus through DBpedia), named by its stem.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> c = pathlib.Path(tempfile.mkdtemp()) / "news.csv"
    >>> _ = c.write_text("id,text,label\\n1,Kobe scores,sport\\n")
    >>> s = watch_input(c, {"features": "types", "min_support": 2})
    >>> s.kind, s.name, s.min_support
    ('dbpedia', 'news', 2)
    """
    cls = watch_kind(values)
    given = _given(values)
    _reject(given, set(cls.fields()) - {cls.watch_field}, f"kgfs serve's {cls.title.split(' (')[0]}")
    return cls.from_options({**{f: given.get(f) for f in cls.fields()}, cls.watch_field: str(path),
                             "name": given.get("name") or Path(path).stem})


def load_tables(items: Sequence[str], *, mirror=None, check: str | None = None) -> dict[str, FeatureTable]:
    """Tables by registry names, glob patterns or table folders (``kgfs evaluate --datasets``).

    Parameters
    ----------
    items : sequence of str
        A folder or ``.npz`` written by :func:`kg.formats.folder.write_table_folder`, or registry
        names and patterns. Alone, a folder's table is named by its dataset (its ``meta["dataset"]``,
        else the folder's name); beside other tables, by its folder and its dataset
        (``C (wikidata/codex-people)``), so two builds of one dataset are told apart in every table of the
        report (two folders of the same name: by their paths as given).
    mirror : path, optional
        The registry's local data mirror.
    check : str, optional
        ``repair``/``report``/``raise`` for registry file tables (AIRE, RPV, LD).

    Returns
    -------
    dict
        Name -> table: the folders first, then the registry datasets, in the order given.

    Examples
    --------
    >>> list(load_tables(["synthetic/S-D2-B2"]))
    ['synthetic/S-D2-B2']
    """
    from kg.formats.folder import read_table_folder

    names: list[str] = []
    folders: list[tuple[str, Path, FeatureTable]] = []
    for item in items:
        p = Path(item)
        if p.is_dir() or item.endswith(".npz"):
            folders.append((item, p, read_table_folder(p)))
        else:
            names.extend(resolve_names([item]))
    several = len(folders) + len(names) > 1
    tables: dict[str, FeatureTable] = {}
    for item, p, t in folders:
        dataset = str(t.meta.get("dataset") or "")
        folder = _folder_name(p)
        if sum(1 for _, q, _ in folders if _folder_name(q) == folder) > 1:
            folder = str(item).rstrip("/") or folder  # the same folder name twice: the paths as given
        name = (f"{folder} ({dataset})" if dataset and dataset != folder else folder) if several else \
            (dataset or folder)
        if name in tables:
            raise KgfsError(f"--datasets: two tables named {name!r}; give folders of different names")
        tables[name] = t
    for n in names:
        options = {"check": check} if check and dataset_info(n).loader in TABLE_LOADERS else {}
        tables[n] = load_dataset(n, mirror=mirror, **options)
    return tables


def _folder_name(p: Path) -> str:
    """What a table folder (or ``.npz``) is called: the folder's name (``T`` for ``T/`` and ``T/table.npz``)."""
    if p.suffix == ".npz":
        return (p.parent.name if p.stem == "table" else p.stem) or str(p)
    return p.name or str(p)


def load_instances_named(items: Sequence[str], *, mirror=None) -> dict:
    """The instances of registry datasets (names or patterns), with their graphs: ``kgfs evaluate`` under a protocol
    that generates the features inside each fit (``--protocol split``; :func:`kg.datasets.load_instances`).

    Parameters
    ----------
    items : sequence of str
        Registry names or glob patterns (a table folder has no graph: refused).
    mirror : path, optional

    Returns
    -------
    dict
        Name -> :class:`kg.instances.EntityDataset`, in the order given.

    Examples
    --------
    >>> load_instances_named(["some-table-folder/"])  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    kg.errors.KgfsError: --datasets some-table-folder/: a table folder; ...
    """
    from kg.datasets import load_instances

    out = {}
    for item in items:
        if Path(item).is_dir() or item.endswith(".npz") or item.endswith("/"):
            raise KgfsError(f"--datasets {item}: a table folder; --protocol split generates the features inside "
                            "each fit from a dataset's graph: give a registry dataset of the rdf loader "
                            "(nodeclass/aifb, nodeclass/mutag, wikidata/codex-people)")
        for n in resolve_names([item]):
            out[n] = load_instances(n, mirror=mirror)
    return out


def check_output(path, kind: str = "folder", option: str = "--out") -> None:
    """Raise a :class:`KgfsError` when an output path cannot be what a command writes.

    Parameters
    ----------
    path : path
    kind : {"folder", "file"}
        A folder (an existing file is in the way) or one file (an existing folder is in the way).
    option : str

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> check_output(d, "folder")
    >>> check_output(d, "file")
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: --out ...: is a directory; the export writes one file (give a file name)
    """
    p = Path(path)
    if kind == "file" and p.is_dir():
        raise KgfsError(f"{option} {p}: is a directory; the export writes one file (give a file name)")
    if kind == "folder" and p.exists() and not p.is_dir():
        raise KgfsError(f"{option} {p}: is a file, not a folder")
    for parent in p.parents:
        if parent.exists():
            if not parent.is_dir():
                raise KgfsError(f"{option} {p}: {parent} is a file, not a folder")
            break
