"""Ready-made tables as inputs: a registry dataset with its own loader, and a user's own ARFF or CSV table.

Both are one step (``table``): the table is read as it is (no knowledge graph is asked), its
hierarchy violations repaired, reported or refused (``--check``), rare features dropped
(``--min-support``). A registry dataset whose loader another kind of input claims (the GO
bundles: :class:`kg.ontology.route.OntologyInput`) is made into that kind instead (:func:`kg.routes.resolve_dataset`).

Examples
--------
>>> t = RegistryDataset.from_options({"dataset": "synthetic/S-D2-B2", "min_support": 2})
>>> t.kind, t.name, t.route
('dataset', 'synthetic/S-D2-B2', 'registry-table')
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.datasets import dataset_info, fetch, load_dataset
from kg.errors import ParameterError, param
from kg.files import sha256_file
from kg.routes.base import CHECK, MIN_SUPPORT, MIRROR, NAME, Context, FileRef, Input, Option, check_nonempty, table_step

if TYPE_CHECKING:
    from kg.table import FeatureTable

# Imported where they are used: the dataset registry and the table readers (tomllib, numpy, scipy); `kgfs --help`
# reads this module's options.

__all__ = ["DEFAULT_DATASET", "TABLE_LOADERS", "OwnTable", "RegistryDataset"]

#: The dataset of a run given no input: the bundled Drosophila ageing genes x GO BP.
DEFAULT_DATASET = "bundled/DM-BP"
#: Registry loaders of tables read from files, which take ``check``.
TABLE_LOADERS = ("aire", "rpv", "lod")


def _filtered(table: FeatureTable, min_support: int | None) -> FeatureTable:
    return check_nonempty(table.drop_rare(int(min_support)), int(min_support), table) if min_support else \
        check_nonempty(table)


@dataclass(frozen=True)
class RegistryDataset(Input):
    """A dataset of the registry (:mod:`kg.datasets`) read by its own loader (AIRE, RPV, LD, generators).

    Attributes
    ----------
    name : str
        The registry name.
    files : dict
        Role -> :class:`FileRef` of the fetched files.
    mirror : str, optional
        The data mirror the files were found in (the loader may read more from it).
    violations : str, optional
        Cells that violate the hierarchy (``--check``): ``repair`` (the default), ``report`` or
        ``raise``, for the loaders of file tables.
    min_support : int, optional
    """

    kind = "dataset"
    route = "registry-table"
    title = "a registry dataset"
    options = (Option("--dataset", "registry dataset, e.g. bundled/DM-BP, aire/DM-BP, rpv/CE-BP (see `kgfs datasets "
                                   "list`)", metavar="NAME"), MIRROR, CHECK, MIN_SUPPORT)
    selected_by = ("dataset",)

    files: dict[str, FileRef] | None = None
    mirror: str | None = None
    violations: str | None = None
    min_support: int | None = None

    @classmethod
    def from_options(cls, values: Mapping[str, Any]) -> RegistryDataset:
        name = values.get("dataset") or DEFAULT_DATASET
        info, mirror = dataset_info(name), values.get("mirror") or os.environ.get("KGFS_DATA_MIRROR") or None
        if values.get("violations") and info.loader not in TABLE_LOADERS:
            raise ParameterError(f"{param('violations')} applies to tables read from files; dataset {name!r} is a "
                                 f"{info.loader or 'generated'} dataset")
        paths = fetch(name, mirror=mirror) if info.files else {}
        files = {role: FileRef(str(p), info.files[role].sha256 or sha256_file(p)) for role, p in sorted(paths.items())}
        return cls(name=name, files=files, mirror=str(Path(mirror).absolute()) if mirror else None,
                   violations=values.get("violations") or ("repair" if info.loader in TABLE_LOADERS else None),
                   min_support=values.get("min_support"))

    def load(self) -> FeatureTable:
        """The table, by the dataset's registry loader, ``min_support`` applied after loading."""
        table = load_dataset(self.name, mirror=self.mirror, **({"check": self.violations} if self.violations else {}))
        return _filtered(table, self.min_support)

    def steps(self, ctx: Context):
        files = {r: f.sha256 for r, f in (self.files or {}).items()}
        options = {k: v for k, v in (("check", self.violations), ("min_support", self.min_support)) if v is not None}
        return [table_step(lambda up: {"name": self.name, "files": files, "options": options},
                           lambda up: self.load())]


@dataclass(frozen=True)
class OwnTable(Input):
    """A user's own binary table (ARFF or CSV) over a ``child,parent`` hierarchy file.

    Attributes
    ----------
    name : str
    table : FileRef
    format : {"arff", "csv"}
    hierarchy : FileRef, optional
    violations : str
        Cells that violate the hierarchy (``--check``): ``repair`` (default), ``report`` or ``raise``.
    min_support : int, optional
    hierarchy_drop_unknown : bool, optional
        Drop the hierarchy's nodes that are not features (``--hierarchy-drop-unknown``); default: an error.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "t.csv").write_text("id,a,b,label\\n1,1,0,x\\n2,1,1,y\\n")
    >>> _ = (d / "e.csv").write_text("child,parent\\nb,a\\n")
    >>> t = OwnTable.from_options({"csv": d / "t.csv", "hierarchy": d / "e.csv"})
    >>> t.name, t.format, t.load().shape
    ('t', 'csv', (2, 2))
    """

    kind = "file"
    route = "own-table"
    title = "your own table (instances x binary features, and the features' hierarchy)"
    options = (Option("--arff", "a WEKA ARFF table (dense or sparse; the class: last attribute)", metavar="FILE",
                      path=True),
               Option("--csv", "a CSV table: id, one 0/1 column per feature, then label (or class)", metavar="FILE",
                      path=True),
               Option("--hierarchy", "the features' hierarchy as a child,parent CSV (default: none)",
                      metavar="EDGES", path=True),
               Option("--hierarchy-drop-unknown", "drop (and count) the nodes of --hierarchy that are not features "
                                                  "of the table, keeping the ancestry through them (default: an error "
                                                  "naming the file, line and node)", switch=True),
               CHECK, MIN_SUPPORT, NAME)
    selected_by = ("arff", "csv")

    table: FileRef | None = None
    format: str = "csv"
    hierarchy: FileRef | None = None
    violations: str = "repair"
    min_support: int | None = None
    hierarchy_drop_unknown: bool | None = None

    @classmethod
    def from_options(cls, values: Mapping[str, Any]) -> OwnTable:
        arff, csv = values.get("arff"), values.get("csv")
        if arff is not None and csv is not None:
            raise ParameterError(f"give one table: {param('arff')} or {param('csv')}, not both")
        path, option = (arff, "arff") if arff is not None else (csv, "csv")
        return cls(name=values.get("name") or Path(path).stem, table=FileRef.of(path, option),
                   format="arff" if arff is not None else "csv",
                   hierarchy=FileRef.of(values.get("hierarchy"), "hierarchy"),
                   violations=values.get("violations") or "repair", min_support=values.get("min_support"),
                   hierarchy_drop_unknown=values.get("hierarchy_drop_unknown") or None)

    def load(self) -> FeatureTable:
        """The table (:func:`kg.formats.folder.read_user_table`), ``min_support`` applied."""
        from kg.formats.folder import read_user_table

        table = read_user_table(self.table.path, fmt=self.format, check=self.violations,
                                hierarchy=self.hierarchy.path if self.hierarchy else None, name=self.name,
                                drop_unknown=bool(self.hierarchy_drop_unknown))
        return _filtered(table, self.min_support)

    def check(self, ctx: Context | None) -> dict:
        """A CSV table's text and header, before any work (no row parsed): the whole file UTF-8, a header; a table
        without a class column is reported (``no_labels``: the file, the header expected, the columns found), and
        the command decides (``kgfs build`` builds it unlabelled, with a note; ``kgfs run`` and ``kgfs fit`` refuse it).
        """
        if self.format != "csv":
            return {}
        from kg.formats.csv_io import table_csv_header, unlabelled_text

        header, labelled = table_csv_header(self.table.path)
        return {} if labelled else {"no_labels": unlabelled_text(self.table.path, header)}

    def steps(self, ctx: Context):
        files = {"table": self.table.sha256, **({"hierarchy": self.hierarchy.sha256} if self.hierarchy else {})}
        options = {"format": self.format, "check": self.violations,
                   **({"min_support": self.min_support} if self.min_support is not None else {}),
                   **({"drop_unknown": True} if self.hierarchy_drop_unknown else {})}
        return [table_step(lambda up: {"name": self.name, "files": files, "options": options},
                           lambda up: self.load())]
