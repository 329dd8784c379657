"""Registry datasets of the RDF route (loader ``rdf``): a corpus of entities and an RDF dump, as one table.

A manifest entry gives the files ``corpus`` (CSV or TSV with an id, the entity and a label column),
``dump`` (N-Triples, plain or compressed) and optionally ``preset`` (the graph's vocabulary as a TOML
preset file, :func:`kg.rdf.vocabulary.load_preset`, used unless the ``preset`` option names one), and the
options of the route: ``preset``, ``entity_columns``, ``features``, ``direction``, ``exclude_properties``,
``label_property``, ``values``, ``min_support``, ``category_depth``, ``depth`` (of ``paths``), and
``split_column``: the corpus column
that gives the dataset's fixed split (``train`` / ``test`` per instance).

- :func:`load_rdf_dataset` builds the table from the dump streamed (nothing cached) in one pass per
  question: what ``kgfs build --dataset`` builds through the dump index
  (:class:`kg.rdf.route.CorpusInput`), for :func:`kg.datasets.load_dataset` and ``kgfs evaluate --datasets
  NAME``. With a split its ``meta["split"]`` lists the ``train`` and the ``test`` instance ids.
- :func:`load_rdf_instances` gives the instances themselves with the dump as their knowledge source
  (:class:`kg.instances.EntityDataset`, :func:`kg.datasets.load_instances`): for an evaluation that
  generates the features inside each fit (``kgfs evaluate --protocol split``).
- :func:`codex_truthy` is the recipe of ``wikidata/codex-people``'s dump (the manifest's ``derive``):
  the CoDEx files and the Wikidata P279 subgraph of their upstream repositories, written as
  Wikidata's truthy dump writes them.

Examples
--------
>>> from kg.datasets import load_dataset
>>> load_dataset("wikidata/codex-people", features="types").shape  # doctest: +SKIP
(7291, 62)
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from kg.errors import KgfsError
from kg.rdf.corpus import EntityColumns, load_corpus
from kg.rdf.kinds import FeatureSpec
from kg.rdf.vocabulary import vocabulary_of

__all__ = ["codex_truthy", "load_rdf_dataset", "load_rdf_instances", "read_split"]

_KNOWN = {"preset", "entity_columns", "features", "direction", "exclude_properties", "label_property", "values",
          "min_support", "category_depth", "id_column", "label_column", "split_column", "depth"}


def _check_options(options: Mapping) -> None:
    unknown = sorted(set(options) - _KNOWN)
    if unknown:
        raise KgfsError(f"the rdf loader takes no option {', '.join(unknown)} (known: {', '.join(sorted(_KNOWN))})")


def _vocabulary(paths: Mapping[str, Path], options: Mapping):
    """The ``preset`` option's vocabulary, else the dataset's ``preset`` file's, else DBpedia's."""
    given = options.get("preset")
    return vocabulary_of(given if given is not None else paths.get("preset"))


def _spec(options: Mapping, vocabulary) -> FeatureSpec:
    asked = FeatureSpec.of(options.get("features"))
    relations, paths = asked.uses_relations, asked.paths
    spec = FeatureSpec.of(
        options.get("features"), category_depth=options.get("category_depth", 2),
        direction=options.get("direction") if relations else None,
        exclude=[vocabulary.expand_property(p, "exclude_properties")
                 for p in (options.get("exclude_properties") or ()) if relations],
        values=options.get("values") if relations else None,
        depth=options.get("depth") if paths else None,  # the paths' (a dataset's depth does not apply without)
        prune=int(options.get("min_support", 1)) if paths else None)
    spec.check_label_property(options.get("label_property"), vocabulary)
    return spec


def _corpus(paths: Mapping[str, Path], options: Mapping, vocabulary):
    columns: Sequence[str] = tuple(options.get("entity_columns") or ("entity",))
    return load_corpus(paths["corpus"], id_column=options.get("id_column", "id"), text_column=None,
                       label_column=options.get("label_column", "label"),
                       entity_columns=EntityColumns(tuple(columns), vocabulary.expand_entity))


def read_split(path: Path, column: str, ids: Sequence[str], id_column: str = "id") -> list[str]:
    """The split column of a corpus file (``train`` / ``test``), in the order of the corpus's ``ids``.

    Parameters
    ----------
    path : path
        The corpus (CSV or TSV, by its name).
    column : str
    ids : sequence of str
        The corpus's instance ids (:func:`kg.rdf.corpus.load_corpus`).
    id_column : str

    Returns
    -------
    list of str

    Raises
    ------
    KgfsError
        The column is missing, or an instance has no split value.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "c.tsv"
    >>> _ = p.write_text("id\\tentity\\tlabel\\tsplit\\na\\tx\\t1\\ttrain\\nb\\ty\\t0\\tTest\\n")
    >>> read_split(p, "split", ["b", "a"])
    ['test', 'train']
    """
    import pandas as pd

    from kg.formats.csv_io import check_utf8

    check_utf8(path)  # a split is a value: a byte that is not UTF-8 is named (file, line, offset), not a traceback
    name = str(path).lower().removesuffix(".gz").removesuffix(".bz2")
    frame = pd.read_csv(path, sep="\t" if name.endswith((".tsv", ".tab")) else ",", dtype=str, keep_default_na=False)
    if column not in frame or id_column not in frame:
        raise KgfsError(f"{path}: no {column!r} column (split_column) beside {id_column!r}; it has "
                        f"{', '.join(map(repr, frame.columns))}")
    by_id = dict(zip(frame[id_column].str.strip(), frame[column].str.strip().str.lower()))
    missing = [i for i in ids if not by_id.get(i)]
    if missing:
        raise KgfsError(f"{path}: {len(missing)} instance(s) without a {column!r} value, e.g. {missing[0]!r}")
    return [by_id[i] for i in ids]


def load_rdf_dataset(paths: Mapping[str, Path], **options):
    """The table of a registry dataset of loader ``rdf`` (see the module).

    Parameters
    ----------
    paths : mapping
        Role -> file: ``corpus`` and ``dump``.
    **options
        The manifest's options and the caller's, over them (``features="types"``, ...). The relation
        options do not apply to a table without relations and are left out then.

    Returns
    -------
    FeatureTable

    Raises
    ------
    KgfsError
        An unknown option, or a label property that would be a feature.
    """
    _check_options(options)
    from kg.rdf.sources.dump import DumpSource
    from kg.rdf.table import assemble_table

    vocabulary = _vocabulary(paths, options)
    spec = _spec(options, vocabulary)
    corpus = _corpus(paths, options, vocabulary)
    source = DumpSource(paths["dump"], vocabulary=vocabulary)
    table = assemble_table(corpus, None, source, features=spec, min_support=int(options.get("min_support", 1)))
    if options.get("split_column"):
        split = read_split(paths["corpus"], options["split_column"], corpus.ids, options.get("id_column", "id"))
        table.meta["split"] = {p: [i for i, s in zip(corpus.ids, split) if s == p] for p in ("train", "test")}
    return table


def load_rdf_instances(paths: Mapping[str, Path], *, name: str = "", **options):
    """The instances of a registry dataset of loader ``rdf``, with its dump as their knowledge source.

    Parameters
    ----------
    paths : mapping
        Role -> file: ``corpus``, ``dump`` and optionally ``preset``.
    name : str
        The dataset's name.
    **options
        As :func:`load_rdf_dataset`'s; the feature options become the parameters of the dataset's
        :class:`~kg.features.KGFeatures` (``features_params`` of :class:`kg.instances.EntityDataset`), its
        ``split_column`` the split.

    Returns
    -------
    kg.instances.EntityDataset
        One entity per instance (the first of its entity columns; an instance without one has an empty
        value, which KGFeatures turns into an empty row); the source a
        :class:`~kg.rdf.sources.dump.DumpSource` over the dump (streamed, each answer kept in memory).

    Raises
    ------
    KgfsError
        An unknown option, a label property that would be a feature, an instance with several entities.
    """
    _check_options(options)
    from kg.files import sha256_file
    from kg.instances import EntityDataset
    from kg.rdf.sources.dump import DumpSource

    vocabulary = _vocabulary(paths, options)
    spec = _spec(options, vocabulary)  # the leak check of the label property, as for the table
    corpus = _corpus(paths, options, vocabulary)
    several = next((i for i, es in zip(corpus.ids, corpus.entities) if len(es) > 1), None)
    if several is not None:
        raise KgfsError(f"{paths['corpus']}: instance {several!r} has several entities; the instances of a dataset "
                        "for KGFeatures have one each")
    split = None
    if options.get("split_column"):
        split = read_split(paths["corpus"], options["split_column"], corpus.ids, options.get("id_column", "id"))
    params = {"features": list(spec.kinds), "min_support": int(options.get("min_support", 1))}
    if "categories" in spec.kinds:
        params["category_depth"] = spec.category_depth
    if spec.uses_relations:
        params["direction"] = spec.relations.direction
        params["exclude_properties"] = list(spec.relations.exclude)
        if spec.counts:
            params["values"] = spec.relations.values
    if spec.paths:
        params["depth"] = spec.relations.depth
    provenance = {role: sha256_file(p) for role, p in sorted(paths.items())}
    return EntityDataset(name or Path(paths["corpus"]).stem, corpus.ids, [es[0] if es else None
                                                                          for es in corpus.entities],
                         corpus.labels, source=DumpSource(paths["dump"], vocabulary=vocabulary), split=split,
                         features_params=params, provenance=provenance)


# ------------------------------------------------------------------------------------------- recipes
_WD, _WDT = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
_LABEL, _DESCRIPTION = "http://www.w3.org/2000/01/rdf-schema#label", "http://schema.org/description"
_WIKIDATA_ID = re.compile(r"[PQ][1-9][0-9]*")


def _en(text: str) -> str:
    """An N-Triples ``"..."@en`` literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r") + '"@en'


def codex_truthy(inputs: Mapping[str, Path], out: Path) -> None:
    """Write the dump of ``wikidata/codex-people`` from its upstream files, as Wikidata's truthy dump writes them.

    A format conversion, no fact added: ``wdt:P31`` from CoDEx's entity types (``entity_types``),
    ``wdt:P279`` from the Wikidata subclass-of subgraph (``p279``, networkx node-link JSON whose
    ``source`` is the superclass), the CoDEx-M relation triples (``train``, ``valid``, ``test``:
    ``head<TAB>property<TAB>tail``) as ``wdt:P..``, and the English ``rdfs:label`` and
    ``schema:description`` of the types (``types_en``) and properties (``relations_en``). The lines are
    distinct and sorted, the gzip header carries no time or name: the same inputs give the same bytes.

    Parameters
    ----------
    inputs : mapping of role -> Path
        ``entity_types``, ``p279``, ``train``, ``valid``, ``test``, ``types_en``, ``relations_en``.
    out : Path
        The ``.nt.gz`` file to write.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "e.json").write_text('{"Q1": ["Q5"]}')
    >>> _ = (d / "g.json").write_text('{"links": [{"source": "Q7", "target": "Q5"}]}')
    >>> _ = (d / "t.txt").write_text("Q1\\tP19\\tQ2\\n")
    >>> _ = (d / "l.json").write_text('{"Q5": {"label": "human", "description": "a \\\\"person\\\\""}}')
    >>> _ = (d / "none.json").write_text("{}"), (d / "none.txt").write_text("")
    >>> codex_truthy({"entity_types": d / "e.json", "p279": d / "g.json", "train": d / "t.txt", "valid": d / "none.txt",
    ...               "test": d / "none.txt", "types_en": d / "l.json", "relations_en": d / "none.json"}, d / "o.nt.gz")
    >>> print(gzip.decompress((d / "o.nt.gz").read_bytes()).decode(), end="")
    <http://www.wikidata.org/entity/Q1> <http://www.wikidata.org/prop/direct/P19> <http://www.wikidata.org/entity/Q2> .
    <http://www.wikidata.org/entity/Q1> <http://www.wikidata.org/prop/direct/P31> <http://www.wikidata.org/entity/Q5> .
    <http://www.wikidata.org/entity/Q5> <http://schema.org/description> "a \\"person\\""@en .
    <http://www.wikidata.org/entity/Q5> <http://www.w3.org/2000/01/rdf-schema#label> "human"@en .
    <http://www.wikidata.org/entity/Q5> <http://www.wikidata.org/prop/direct/P279> <http://www.wikidata.org/entity/Q7> .
    """
    def item(q: str, role: str, ns: str = _WD) -> str:  # an id, never an IRI of the file's choosing
        if not _WIKIDATA_ID.fullmatch(q):
            raise KgfsError(f"{inputs[role]} ({role}): {q!r} is not a Wikidata id (Q123, P31)")
        return f"<{ns}{q}>"

    def read_json(role: str):
        with open(inputs[role], encoding="utf-8") as fh:
            return json.load(fh)

    lines: set[str] = set()
    for e, types in read_json("entity_types").items():
        lines.update(f"{item(e, 'entity_types')} <{_WDT}P31> {item(t, 'entity_types')} ." for t in types)
    for link in read_json("p279").get("links", ()):
        lines.add(f"{item(link['target'], 'p279')} <{_WDT}P279> {item(link['source'], 'p279')} .")
    for part in ("train", "valid", "test"):
        with open(inputs[part], encoding="utf-8") as fh:
            for n, row in enumerate(fh, 1):
                if not row.strip():
                    continue
                fields = row.split()
                if len(fields) != 3:
                    raise KgfsError(f"{inputs[part]}, line {n}: expected head, property and tail, got {row.strip()!r}")
                h, r, t = fields
                lines.add(f"{item(h, part)} {item(r, part, _WDT)} {item(t, part)} .")
    for role in ("types_en", "relations_en"):
        for q, d in read_json(role).items():
            if d.get("label"):
                lines.add(f"{item(q, role)} <{_LABEL}> {_en(d['label'])} .")
            if d.get("description"):
                lines.add(f"{item(q, role)} <{_DESCRIPTION}> {_en(d['description'])} .")
    with open(out, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as gz:
        gz.write("".join(line + "\n" for line in sorted(lines)).encode("utf-8"))
