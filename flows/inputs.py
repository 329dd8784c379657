"""The input of a run as a JSON spec (paths + content hashes), and the table each kind of spec gives.

A *spec* names everything a run reads, so it can be a Prefect parameter and part of cache keys:

- ``{"kind": "go", "name", "ontology", "annotations", "labels", "options"}``: the GO route from
  an OBO file, annotations and labels (a registry ``go_bundle`` dataset such as ``bundled/DM-BP``
  resolves to this too, so it goes through the GO route stage by stage);
- ``{"kind": "dataset", "name", "files", "mirror", "options"}``: any other registry dataset,
  loaded by its loader (:func:`kg.datasets.load_dataset`);
- ``{"kind": "dbpedia", "name", "corpus", "dump", "dump_files", "options"}``: a corpus through
  the DBpedia route (:mod:`kg.dbpedia.batches` reads this kind);
- ``{"kind": "file", "name", "files", "options"}``: a user's own ARFF or CSV table and its
  hierarchy edges (``files``: ``table``, ``hierarchy``), read like a registry table (:func:`load_spec_dataset`).

Files are ``{"path", "sha256"}``; dumps bigger than 256 MiB in total are fingerprinted by size
and modification time instead of their content (hashing them would cost more than the run).

:func:`resolve_source` makes a spec from command-line-like options; :func:`source_for_file` the
spec of one file of a watched folder; :func:`table_from_spec` builds the table of any spec in
one call (the pipeline builds GO and DBpedia tables stage by stage instead, from
:func:`read_facts` + :func:`build_go_table` and :mod:`kg.dbpedia.batches`).

Examples
--------
>>> spec = resolve_source()  # the bundled default dataset
>>> spec["kind"], spec["name"]
('go', 'bundled/DM-BP')
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import KgfsError
from kg.files import sha256_file
from flows.cli.options import positive_number, whole_number

if TYPE_CHECKING:  # numpy/scipy load with the first table, not with `kgfs --help`
    from kg.table import FeatureTable

__all__ = ["DBPEDIA_CLI_OPTIONS", "DBPEDIA_OPTIONS", "DEFAULT_DATASET", "build_go_table", "check_nonempty", "dbpedia_source", "dump_fingerprint", "file_entry",
           "load_spec_dataset", "load_tables", "read_facts", "resolve_source", "source_for_file", "table_from_spec",
           "watch_options"]

DEFAULT_DATASET = "bundled/DM-BP"
DUMP_HASH_LIMIT = 256 << 20  # dumps up to this size are hashed by content, bigger ones by size + mtime
DBPEDIA_OPTIONS = ("annotator", "kg", "sparql_url", "spotlight_url", "features", "category_depth", "text_column",
                   "label_column", "id_column", "entity_columns", "type_namespaces", "skip_bad_lines", "timeout")
#: The DBpedia route's command-line options (``kgfs run/build/serve``), as
#: :func:`flows.cli.options.add_options` takes them; each is a key of :data:`DBPEDIA_OPTIONS` (or ``dump``).
DBPEDIA_CLI_OPTIONS = [
    ("--corpus", dict(metavar="FILE", help="corpus: CSV/TSV/JSONL with text (or entity) and label columns, or the "
                                           "Sports Tweets .txt format")),
    ("--text-column", dict(metavar="COL", help="corpus column with the text (default text)")),
    ("--label-column", dict(metavar="COL", help="corpus column with the class (default label)")),
    ("--id-column", dict(metavar="COL", help="corpus column with the instance id (default id)")),
    ("--entity-columns", dict(nargs="+", metavar="COL", help="columns holding DBpedia IRIs (the corpus is already "
                                                             "linked: no annotator)")),
    ("--skip-bad-lines", dict(action="store_true", default=None, help="skip (and count) corpus records and dump "
                                                                      "lines that cannot be read, instead of failing")),
    ("--annotator", dict(choices=["lexicon", "spotlight"], help="entity linking: lexicon (offline, from the dump's "
                                                                "labels; default) or a DBpedia Spotlight server")),
    ("--spotlight-url", dict(metavar="URL", help="Spotlight /annotate endpoint")),
    ("--kg", dict(choices=["sparql", "dump"], help="where types/categories come from (default: sparql when "
                                                   "--sparql-url is given, else the dump)")),
    ("--sparql-url", dict(metavar="URL", help="SPARQL endpoint (e.g. your Virtuoso, QLever or Oxigraph)")),
    ("--timeout", dict(type=positive_number, metavar="SECONDS", help="Spotlight/SPARQL: seconds per request (default 20); a "
                                                           "request with its retries gives up after 3x that")),
    ("--dump", dict(nargs="+", metavar="PATH", help="DBpedia dump files or folders (N-Triples, ontology OWL; "
                                                    "read once into the index of the kgfs home, see `kgfs ingest`)")),
    ("--features", dict(choices=["types", "categories"], help="rdf:type + subClassOf (default) or dct:subject + "
                                                              "skos:broader")),
    ("--category-depth", dict(type=whole_number(0), metavar="N", help="skos:broader levels to follow (default 2)")),
]
_TABLE_LOADERS = ("aire", "rpv", "lod")  # registry loaders of file tables, which take ``check``


def file_entry(path, option: str | None = None) -> dict | None:
    """``{"path": absolute path, "sha256": content hash}`` of a file (``None`` for ``None``).

    Parameters
    ----------
    path : str, os.PathLike or None
    option : str, optional
        The command-line option that gave the path, named in the error.

    Returns
    -------
    dict or None

    Raises
    ------
    FileNotFoundError, IsADirectoryError
        Naming the path (and the option).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = p.write_text("abc")
    >>> file_entry(p)["sha256"][:8], file_entry(None)
    ('ba7816bf', None)
    """
    if path is None:
        return None
    p = Path(path)
    given = f" ({option})" if option else ""
    if p.is_dir():
        raise IsADirectoryError(21, f"is a directory, expected a file{given}", str(p))
    if not p.is_file():
        raise FileNotFoundError(2, f"file not found{given}", str(p))
    return {"path": str(p.absolute()), "sha256": sha256_file(p)}


def dump_fingerprint(paths: Sequence) -> list[list[str]]:
    """``[absolute path, content hash or size+mtime]`` of every file of the dump files and folders.

    Parameters
    ----------
    paths : sequence of path
        Files, or folders (every file below them, sorted).

    Returns
    -------
    list of [str, str]

    Raises
    ------
    FileNotFoundError

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "i.nt").write_text("")
    >>> [Path(p).name for p, _h in dump_fingerprint([d])]
    ['i.nt']
    """
    files: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*") if f.is_file()))
        elif p.is_file():
            files.append(p)
        else:
            raise FileNotFoundError(2, "no such file or folder (--dump)", str(p))
    by_content = sum(f.stat().st_size for f in files) <= DUMP_HASH_LIMIT
    return [[str(f.absolute()), sha256_file(f) if by_content else f"size={f.stat().st_size};mtime={f.stat().st_mtime_ns}"]
            for f in files]


def dbpedia_source(corpus, options: Mapping, min_support: int | None = None) -> dict:
    """A ``dbpedia`` spec: the corpus (content hash), the dump (fingerprint) and the route's options.

    Parameters
    ----------
    corpus : path
        A corpus file (see :func:`kg.dbpedia.corpus.load_corpus`).
    options : mapping
        :data:`DBPEDIA_OPTIONS` and ``dump`` (a path or a list of paths); ``None`` values are dropped.
    min_support : int, optional

    Returns
    -------
    dict

    Raises
    ------
    KgfsError
        On an unknown option.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> c = pathlib.Path(tempfile.mkdtemp()) / "tweets.csv"
    >>> _ = c.write_text("id,text,label\\n1,Kobe scores,sport\\n")
    >>> s = dbpedia_source(c, {"features": "types", "kg": None})
    >>> s["kind"], s["name"], s["options"]
    ('dbpedia', 'tweets', {'features': 'types'})
    """
    options = dict(options)
    unknown = sorted(set(options) - set(DBPEDIA_OPTIONS) - {"dump"})
    if unknown:
        raise KgfsError(f"unknown DBpedia route option(s): {', '.join(unknown)}")
    dump = options.pop("dump", None)
    dumps = [dump] if isinstance(dump, (str, os.PathLike)) else list(dump or [])
    opts = {k: v for k, v in sorted(options.items()) if v is not None}
    if min_support is not None:
        opts["min_support"] = int(min_support)
    return {"kind": "dbpedia", "name": Path(corpus).stem, "corpus": file_entry(corpus, "--corpus"),
            "dump": [str(Path(d).absolute()) for d in dumps], "dump_files": dump_fingerprint(dumps),
            "options": opts}


def _registry_source(dataset: str, mirror, check: str | None) -> dict:
    from kg.datasets import dataset_info, fetch

    info = dataset_info(dataset)
    if info.loader == "go_bundle":
        paths = fetch(dataset, mirror=mirror)
        return {"kind": "go", "name": dataset, "ontology": file_entry(paths["ontology"]),
                "annotations": file_entry(paths["annotations"]), "labels": file_entry(paths.get("labels")),
                "options": dict(info.options)}
    paths = fetch(dataset, mirror=mirror) if info.files else {}
    files = {role: {"path": str(p), "sha256": info.files[role].sha256 or sha256_file(p)}
             for role, p in sorted(paths.items())}
    return {"kind": "dataset", "name": dataset, "files": files, "mirror": str(mirror) if mirror else None,
            "options": {"check": check} if check and info.loader in _TABLE_LOADERS else {}}


def _reject_unused(dataset, go_files, labels, corpus, go_options: Mapping, corpus_options: Mapping | None,
                   own_table=None, hierarchy=None) -> None:
    """Options that the chosen input would ignore are errors, never dropped silently."""
    given = [o for o, v in (("--dataset", dataset), ("--obo/--annotations", go_files), ("--corpus", corpus),
                            ("--arff/--csv", own_table)) if v]
    if len(given) > 1:
        raise KgfsError(f"give one input: {' or '.join(given)}, not several")
    if labels is not None and not go_files:
        raise KgfsError("--labels goes with --obo and --annotations (a registry dataset or corpus has its labels)")
    if hierarchy is not None and not own_table:
        raise KgfsError("--hierarchy goes with --arff or --csv (the hierarchy of your own table)")
    if corpus is not None or own_table:
        wrong = [o for o, v in go_options.items() if v is not None]
        if wrong:
            raise KgfsError(f"{wrong[0]} applies to the GO route (--obo/--annotations or a GO dataset), not to "
                            f"{given[0]}")
    if corpus is not None:
        wrong = [o for o, v in go_options.items() if v is not None]
        if wrong:
            raise KgfsError(f"{wrong[0]} applies to the GO route (--obo/--annotations or a GO dataset), not to --corpus")
        return
    wrong = [k for k, v in sorted((corpus_options or {}).items()) if v is not None]
    if wrong:
        raise KgfsError(f"--{wrong[0].replace('_', '-')} applies to the DBpedia route (--corpus)")
    if not go_files:
        from kg.datasets import dataset_info

        loader = dataset_info(dataset or DEFAULT_DATASET).loader
        wrong = [o for o, v in go_options.items() if v is not None]
        if wrong and loader != "go_bundle":
            raise KgfsError(f"{wrong[0]} applies to the GO route; dataset {dataset!r} is a ready-made "
                            f"{loader or 'generated'} table")


def resolve_source(
    *,
    dataset: str | None = None,
    obo=None,
    annotations=None,
    labels=None,
    mirror=None,
    namespaces=None,
    relations: Sequence[str] = ("is_a",),
    evidence: Sequence[str] | None = None,
    min_support: int | None = None,
    on_obsolete: str | None = None,
    unknown: str | None = None,
    check: str | None = None,
    corpus=None,
    corpus_options: Mapping | None = None,
    name: str | None = None,
    arff=None,
    csv=None,
    hierarchy=None,
) -> dict:
    """The spec of a run's input: a corpus, OBO + annotations (+ labels), or a registry dataset.

    Parameters
    ----------
    dataset : str, optional
        A registry name (default :data:`DEFAULT_DATASET` when neither files nor a corpus are given).
    obo, annotations, labels : path, optional
        The GO route from files (``obo`` and ``annotations`` together).
    mirror : path, optional
        The local data mirror of the registry.
    namespaces, relations, evidence, on_obsolete, unknown : optional
        GO route options (see :func:`kg.go.read_obo`, :func:`kg.go.read_annotations`,
        :func:`kg.go.build_table`); ``relations`` other than ``("is_a",)`` are kept sorted.
    min_support : int, optional
        Drop features present in fewer instances (any route).
    check : str, optional
        ``repair``/``report``/``raise`` for registry file tables (AIRE, RPV, LD).
    corpus : path, optional
        The DBpedia route (see :func:`dbpedia_source`), with ``corpus_options``.
    corpus_options : mapping, optional
    name : str, optional
        The dataset name in the outputs (GO and DBpedia routes, own tables; registry tables keep theirs).
    arff, csv : path, optional
        A user's own table (``{"kind": "file"}``; :func:`kg.formats.folder.read_user_table`),
        over the ``hierarchy`` edges CSV when given.
    hierarchy : path, optional

    Returns
    -------
    dict
        JSON-serialisable (a Prefect parameter).

    Raises
    ------
    KgfsError
        ``obo`` without ``annotations`` (or the reverse), an unknown dataset or option.

    Examples
    --------
    >>> resolve_source(obo="go.obo")
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: the GO route needs both --obo and --annotations
    """
    go_options = {"--namespaces": namespaces, "--evidence": evidence, "--on-obsolete": on_obsolete, "--unknown": unknown,
                  "--relations": None if relations is None or tuple(relations) == ("is_a",) else relations}
    _reject_unused(dataset, obo or annotations, labels, corpus, go_options, corpus_options, arff or csv, hierarchy)
    _check_min_support(min_support)
    if arff is not None or csv is not None:
        files = {"table": file_entry(arff or csv, "--arff" if arff else "--csv")}
        if hierarchy is not None:
            files["hierarchy"] = file_entry(hierarchy, "--hierarchy")
        opts = {"format": "arff" if arff else "csv", "check": check or "repair",
                **({"min_support": int(min_support)} if min_support is not None else {})}
        return {"kind": "file", "name": name or Path(arff or csv).stem, "files": files, "options": opts}
    if corpus is not None:
        spec = dbpedia_source(corpus, dict(corpus_options or {}), min_support)
        if name:
            spec["name"] = name
        return spec
    if obo is not None or annotations is not None:
        if obo is None or annotations is None:
            raise KgfsError("the GO route needs both --obo and --annotations")
        spec = {"kind": "go", "name": Path(annotations).stem, "ontology": file_entry(obo, "--obo"),
                "annotations": file_entry(annotations, "--annotations"), "labels": file_entry(labels, "--labels"),
                "options": {}}
    else:
        spec = _registry_source(dataset or DEFAULT_DATASET, mirror, check)
    opts = spec["options"]
    if spec["kind"] == "go":
        if namespaces is not None:
            opts["namespaces"] = namespaces
        if relations is not None and tuple(relations) != ("is_a",):
            opts["relations"] = sorted(relations)
        if evidence:
            opts["evidence"] = sorted(evidence)
        opts.update({k: v for k, v in (("on_obsolete", on_obsolete), ("unknown", unknown)) if v is not None})
        if name:  # tables loaded by a registry loader keep their registry name
            spec["name"] = name
    if min_support is not None:
        opts["min_support"] = int(min_support)
    return spec


def _check_min_support(min_support) -> None:
    if min_support is not None and (isinstance(min_support, bool) or int(min_support) != min_support
                                    or min_support < 1):
        raise KgfsError(f"--min-support must be a whole number >= 1, got {min_support!r}")


def source_for_file(path: str | os.PathLike, source_options: Mapping) -> dict:
    """The spec of one file of a watched folder: a labels table (GO route) or a corpus (DBpedia route).

    Parameters
    ----------
    path : path
        The watched file.
    source_options : mapping
        With ``obo`` and ``annotations``: GO options of :func:`resolve_source`, and the file is a
        ``gene<TAB>label`` table named by its stem. Otherwise ``corpus_options`` (and
        ``min_support``, ``name``) for the DBpedia route, the file being the corpus.

    Returns
    -------
    dict

    Examples
    --------
    >>> import tempfile, pathlib
    >>> c = pathlib.Path(tempfile.mkdtemp()) / "news.csv"
    >>> _ = c.write_text("id,text,label\\n1,Kobe scores,sport\\n")
    >>> s = source_for_file(c, {"corpus_options": {"features": "types"}, "min_support": 2})
    >>> s["kind"], s["name"], s["options"]["min_support"]
    ('dbpedia', 'news', 2)
    """
    opts = dict(source_options)
    if opts.get("obo") or opts.get("annotations"):
        opts["labels"] = str(path)
        opts.setdefault("name", Path(path).stem)
        return resolve_source(**opts)
    corpus_options = dict(opts.pop("corpus_options", None) or {})
    return resolve_source(corpus=str(path), corpus_options=corpus_options,
                          **{k: v for k, v in opts.items() if k in ("min_support", "name")})


def watch_options(*, obo=None, annotations=None, relations: Sequence[str] | None = None, namespaces=None,
                  evidence: Sequence[str] | None = None, on_obsolete: str | None = None, unknown: str | None = None,
                  min_support: int | None = None, corpus_options: Mapping | None = None) -> dict:
    """The ``source_options`` of :func:`source_for_file` for every file of a watched folder.

    Parameters
    ----------
    obo, annotations : path, optional
        Together: the GO route, each watched file being a labels table over them (paths made absolute).
    relations, namespaces, evidence, on_obsolete, unknown : optional
        GO route options of :func:`resolve_source` (``None`` values are left out).
    min_support : int, optional
    corpus_options : mapping, optional
        Without ``obo``/``annotations``: the DBpedia route's options (``None`` values left
        out, ``dump`` paths made absolute), each watched file being a corpus.

    Returns
    -------
    dict
        JSON-serialisable (a deployment parameter).

    Raises
    ------
    KgfsError
        ``obo`` without ``annotations`` or the reverse.

    Examples
    --------
    >>> watch_options(corpus_options={"features": "types", "kg": None}, min_support=2)
    {'corpus_options': {'features': 'types'}, 'min_support': 2}
    """
    if obo or annotations:
        if not (obo and annotations):
            raise KgfsError("the GO route needs both --obo and --annotations (each watched file is then a labels "
                            "table)")
        opts = {k: v for k, v in (("namespaces", namespaces), ("evidence", evidence), ("min_support", min_support),
                                  ("on_obsolete", on_obsolete), ("unknown", unknown)) if v is not None}
        opts.update(obo=str(Path(obo).absolute()), annotations=str(Path(annotations).absolute()))
        if relations:
            opts["relations"] = list(relations)
        return opts
    corpus = {k: v for k, v in dict(corpus_options or {}).items() if v is not None}
    if corpus.get("dump"):
        corpus["dump"] = [str(Path(d).absolute()) for d in corpus["dump"]]
    return {"corpus_options": corpus, **({"min_support": min_support} if min_support is not None else {})}


def read_facts(spec: Mapping) -> tuple[dict, dict | None]:
    """GO route: the direct annotations (gene -> GO terms, file order) and the labels of a ``go`` spec.

    Parameters
    ----------
    spec : mapping
        A ``go`` spec (its ``options["evidence"]`` filters GAF rows).

    Returns
    -------
    annotations : dict
    labels : dict or None

    Examples
    --------
    >>> ann, labels = read_facts(resolve_source())
    >>> len(ann), len(labels)
    (127, 127)
    """
    from kg.go import read_annotations, read_labels

    opts = spec.get("options", {})
    ann = read_annotations(spec["annotations"]["path"], evidence=opts.get("evidence"))
    labels = read_labels(spec["labels"]["path"]) if spec.get("labels") else None
    return ann, labels


def build_go_table(spec: Mapping, facts: tuple[dict, dict | None] | None = None) -> FeatureTable:
    """GO route: read the ontology and build the closed table of a ``go`` spec (:func:`kg.go.build_table`).

    Parameters
    ----------
    spec : mapping
        A ``go`` spec; its options ``relations``, ``namespaces``, ``min_support``, ``unknown``,
        ``on_obsolete`` apply.
    facts : (annotations, labels), optional
        From :func:`read_facts` (read from the spec when not given).

    Returns
    -------
    FeatureTable
        With ``meta["dataset"]`` set to the spec's name.

    Examples
    --------
    >>> build_go_table(resolve_source()).shape
    (127, 699)
    """
    from kg.go import build_table, read_obo

    opts = dict(spec.get("options", {}))
    ann, labels = facts if facts is not None else read_facts(spec)
    go = read_obo(spec["ontology"]["path"], relations=tuple(opts.get("relations", ("is_a",))),
                  namespaces=opts.get("namespaces"))
    kw = {k: opts[k] for k in ("min_support", "unknown", "on_obsolete") if k in opts}
    table = build_table(go, ann, labels, **kw)
    if table.n_features == 0:  # the most frequent term says which --min-support would work
        check_nonempty(table, kw.get("min_support"), build_table(go, ann, labels, **{**kw, "min_support": 1}))
    table.meta.setdefault("dataset", spec.get("name", "table"))
    return table


def check_nonempty(table: FeatureTable, min_support: int | None = None, unfiltered: FeatureTable | None = None):
    """Raise a :class:`KgfsError` when a table has no instance or no feature; returns the table.

    Parameters
    ----------
    table : FeatureTable
    min_support : int, optional
        The ``--min-support`` that filtered it (named in the message).
    unfiltered : FeatureTable, optional
        The table before that filter (its most frequent feature is named in the message).

    Returns
    -------
    FeatureTable

    Examples
    --------
    >>> t = load_spec_dataset(resolve_source(dataset="synthetic/S-D2-B2"))
    >>> check_nonempty(t.drop_rare(5000), 5000, t)
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: no feature is present in 5000 instances or more (--min-support 5000): the table would be empty; its most frequent feature is in 995 instance(s)
    """
    if table.n_instances == 0:
        raise KgfsError("the table has no instances (no instance has a feature and a label)")
    if table.n_features == 0:
        most = f"; its most frequent feature is in {int(unfiltered.support.max())} instance(s)" \
            if unfiltered is not None and unfiltered.n_features else ""
        if min_support and min_support > 1:
            raise KgfsError(f"no feature is present in {min_support} instances or more (--min-support {min_support}): "
                            f"the table would be empty{most}")
        raise KgfsError("the table has no features (no instance has a known feature)")
    return table


def load_spec_dataset(spec: Mapping) -> FeatureTable:
    """A ``dataset`` spec's table, by its registry loader (a ``file`` spec's: the user's table), ``min_support`` applied after loading.

    Parameters
    ----------
    spec : mapping
        A ``dataset`` or ``file`` spec.

    Returns
    -------
    FeatureTable

    Examples
    --------
    >>> load_spec_dataset(resolve_source(dataset="synthetic/S-D2-B2", min_support=2)).n_instances
    1000
    """
    from kg.datasets import load_dataset

    opts = dict(spec.get("options", {}))
    ms = opts.pop("min_support", None)
    if spec["kind"] == "file":
        from kg.formats.folder import read_user_table

        hierarchy = spec["files"].get("hierarchy")
        table = read_user_table(spec["files"]["table"]["path"], fmt=opts["format"], check=opts.get("check", "repair"),
                                hierarchy=hierarchy["path"] if hierarchy else None, name=spec["name"])
    else:
        table = load_dataset(spec["name"], mirror=spec.get("mirror"), **opts)
    return check_nonempty(table.drop_rare(int(ms)), int(ms), table) if ms else check_nonempty(table)


def table_from_spec(spec: Mapping, *, cache_dir=None, objects=None) -> FeatureTable:
    """The table of any spec in one call (what ``kgfs build`` writes), by the functions of the pipeline's stages.

    Parameters
    ----------
    spec : mapping
        From :func:`resolve_source`.
    cache_dir : path, optional
        DBpedia route: where the Spotlight and SPARQL answers are cached.
    objects : kg.dbpedia.batches.RouteObjects, optional
        DBpedia route: the corpus (annotator, source) already built, e.g. by
        :func:`flows.checks.check_source`.

    Returns
    -------
    FeatureTable

    Examples
    --------
    >>> table_from_spec(resolve_source()).meta["dataset"]
    'bundled/DM-BP'
    """
    if spec["kind"] == "go":
        return build_go_table(spec)
    if spec["kind"] == "dbpedia":
        from kg.dbpedia.batches import spec_table

        return check_nonempty(spec_table(spec, cache_dir=cache_dir, objects=objects),
                              spec.get("options", {}).get("min_support"))
    return load_spec_dataset(spec)


def load_tables(items: Sequence[str], *, mirror=None, check: str | None = None) -> dict[str, FeatureTable]:
    """Tables by registry names, glob patterns or table folders (``kgfs evaluate --datasets``).

    Parameters
    ----------
    items : sequence of str
        A folder or ``.npz`` written by :func:`kg.formats.folder.write_table_folder` (named by
        its ``meta["dataset"]``, else the folder's name), or registry names and patterns.
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
    from kg.datasets import dataset_info, load_dataset, resolve_names
    from kg.formats.folder import read_table_folder

    names: list[str] = []
    tables: dict[str, FeatureTable] = {}
    for item in items:
        p = Path(item)
        if p.is_dir() or item.endswith(".npz"):
            t = read_table_folder(p)
            tables[str(t.meta.get("dataset") or p.name)] = t
        else:
            names.extend(resolve_names([item]))
    for n in names:
        options = {"check": check} if check and dataset_info(n).loader in _TABLE_LOADERS else {}
        tables[n] = load_dataset(n, mirror=mirror, **options)
    return tables
