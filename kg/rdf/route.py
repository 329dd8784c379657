"""The RDF route as an input of a run: a corpus -> entities -> types or categories -> the closed table.

The route serves any RDF knowledge graph (its kind: ``rdf``; ``dbpedia`` in earlier versions): its vocabulary is
data (``--preset dbpedia``, the default; ``--preset wikidata``; or a TOML file describing your graph:
:mod:`kg.rdf.vocabulary`), read from dumps (the dump index), any
SPARQL endpoint, or an ``rdflib.Graph`` from Python. ``--bridge same-as`` / ``equivalent-class``
takes the features from the preset's graph for a corpus linked to another graph (DBpedia
Spotlight, the DBpedia lexicon): :mod:`kg.rdf.sources.bridge`.

Three steps, each stored: ``annotate`` (entity linking in batches of texts, ``annotate-batch``:
Spotlight or the dump's lexicon; or the corpus's entity columns), ``fetch`` (the entities' direct
types or categories in batches, ``fetch-batch``, then the hierarchy above them) and ``table``
(the DAG with cycles broken and reported, and the closed table, from the stored answers:
:func:`kg.rdf.stored.table_from_records`). Calls to Spotlight and SPARQL happen only in the
batches, which the pipeline runs a few at a time and retries on transient errors
(:func:`kg.rdf.steps.is_transient`; the steps: :mod:`kg.rdf.steps`). With a
kgfs home, a dump is read once into the dump index (:mod:`kg.rdf.index.dumpindex`;
:meth:`CorpusInput.prepare` does it up front, with a bar) and every question is a look-up there.

The corpus, annotator and knowledge source are built once per input object and process (its
memo), so the up-front check and the steps read the corpus once.

Examples
--------
>>> import tempfile, pathlib
>>> from kg.routes import build_table
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "c.csv").write_text("id,entity,label\\n1,http://dbpedia.org/resource/Kobe_Bryant,sport\\n")
>>> _ = (d / "i.nt").write_text("<http://dbpedia.org/resource/Kobe_Bryant> "
...     "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://dbpedia.org/ontology/Athlete> .\\n")
>>> inp = CorpusInput.from_options({"corpus": d / "c.csv", "entity_columns": ["entity"], "dump": [d / "i.nt"]})
>>> inp.name, inp.check(None)["classes"]
('c', {'sport': 1})
>>> t = build_table(inp)
>>> t.feature_names.tolist(), t.meta["dataset"]
(['http://dbpedia.org/ontology/Athlete'], 'c')
"""

from __future__ import annotations

import dataclasses
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.errors import KgfsError, MissingFileError, ParameterError, param
from kg.files import sha256_file
from kg.rdf.options import CORPUS_OPTIONS
from kg.rdf.sources.common import Access
from kg.rdf.steps import AnnotateStep, FetchStep, read_facts, read_payload
from kg.routes.base import Context, FileRef, Input, check_nonempty, table_step

if TYPE_CHECKING:
    from kg.rdf.corpus import Corpus
    from kg.store import Record

# Imported where they are used: the clients, the corpus readers, the dump index and the store (requests,
# SPARQLWrapper, numpy, pyoxigraph); the command line reads this module's options for `kgfs --help`, which stays
# light.

__all__ = ["CorpusInput", "DEFAULT_TIMEOUT", "DUMP_HASH_LIMIT", "TOTAL_TIMEOUTS", "dump_fingerprint"]

#: Seconds per Spotlight or SPARQL request when the input gives no ``timeout``.
DEFAULT_TIMEOUT = 20.0
#: A request with its retries gives up after this many timeouts (so a batch is bounded too).
TOTAL_TIMEOUTS = 3
#: Dumps up to this size in total are fingerprinted by content, bigger ones by size and mtime (hashing
#: them would cost more than the run).
DUMP_HASH_LIMIT = 256 << 20
_LOCK = threading.RLock()  # inputs' memos are filled by batches running in threads


def _cache_dir(ctx: Context | None) -> Path | None:
    """The route's cache folder in the context's kgfs home (:func:`kg.rdf.cache_folder`), ``None`` without one."""
    from kg.rdf import cache_folder

    return None if ctx is None or ctx.home is None else cache_folder(ctx.home)


def dump_fingerprint(paths: Sequence) -> tuple[tuple[str, str], ...]:
    """``(absolute path, content hash or size+mtime)`` of every file of the dump files and folders.

    Parameters
    ----------
    paths : sequence of path
        Files, or folders (every file below them, sorted).

    Returns
    -------
    tuple of (str, str)

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
            raise MissingFileError(p, f"no such file or folder ({param('dump')})")
    by_content = sum(f.stat().st_size for f in files) <= DUMP_HASH_LIMIT
    return tuple((str(f.resolve()), sha256_file(f) if by_content else
                  f"size={f.stat().st_size};mtime={f.stat().st_mtime_ns}") for f in files)


@dataclass(frozen=True)
class CorpusInput(Input):
    """A corpus of texts (or of entity IRIs) through DBpedia: its types or its categories as features.

    Attributes
    ----------
    name : str
        The corpus file's stem unless given.
    corpus : FileRef
        CSV/TSV/JSON Lines (plain, ``.gz``, ``.bz2``) or the Sports Tweets ``.txt`` format.
    dump : tuple of str
        Dump files or folders (absolute paths), and ``dump_files`` their fingerprint.
    annotator : {"lexicon", "spotlight"}, optional
        Default ``lexicon`` (from the dump's labels); not used with ``entity_columns``.
    kg : {"sparql", "dump"}, optional
        Where the types/categories come from (default ``sparql`` with ``sparql_url``, else the dump).
    sparql_url, spotlight_url : str, optional
    features : {"types", "categories"}
    category_depth : int, optional
        ``skos:broader`` levels to follow (default 2).
    text_column, label_column, id_column : str, optional
    entity_columns : tuple of str, optional
    type_namespaces : tuple of str, optional
    skip_bad_lines : bool, optional
    max_record_bytes : int, optional
        The longest corpus record read (default :data:`kg.rdf.corpus.MAX_RECORD_BYTES`).
    timeout : float, optional
        Seconds per Spotlight/SPARQL request (default :data:`DEFAULT_TIMEOUT`).
    min_support : int, optional
    spotlight : dict, optional
        More of Spotlight's parameters (``confidence``, ``support``, ``types``, ``policy``, ``max_workers``:
        :class:`~kg.rdf.annotators.spotlight.SpotlightAnnotator`), from Python (no command-line option).
    preset : str, optional
        The graph's vocabulary: ``dbpedia`` (default), ``wikidata``, or the absolute path of a TOML file.
    language : str, optional
        The lexicon's label language (default: the preset's).
    bridge : {"same-as", "equivalent-class"}, optional
        The corpus's entities are of the graph of ``bridge_dump`` (:mod:`kg.rdf.sources.bridge`).
    bridge_dump : tuple of str
        Dump files or folders of that graph (absolute paths), and ``bridge_dump_files`` their fingerprint.
    bridge_preset : str, optional
        Its vocabulary (default ``dbpedia``).
    labels_optional : bool, optional
        A corpus without the label column is read unlabelled (a new corpus to predict: :mod:`flows.predict`)
        instead of refused. From Python (no command-line option).
    split_column : str, optional
        The corpus column of a fixed train/test split (a registry dataset's ``split_column`` option): the
        table's ``meta["split"]`` then lists the ``train`` and the ``test`` instance ids. No command-line option.
    """

    kind = "rdf"
    route = "rdf"
    title = ("the DBpedia route (a corpus of texts or entity IRIs -> types, categories, relations of DBpedia, "
             "Wikidata or any RDF graph)")
    options = CORPUS_OPTIONS
    selected_by = ("corpus",)
    watch_field = "corpus"
    dataset_loaders = ("rdf",)

    corpus: FileRef | None = None
    dump: tuple[str, ...] = ()
    dump_files: tuple[tuple[str, str], ...] = ()
    annotator: str | None = None
    kg: str | None = None
    sparql_url: str | None = None
    spotlight_url: str | None = None
    features: str | tuple[str, ...] | None = None
    category_depth: int | None = None
    text_column: str | None = None
    label_column: str | None = None
    id_column: str | None = None
    entity_columns: tuple[str, ...] | None = None
    type_namespaces: tuple[str, ...] | None = None
    skip_bad_lines: bool | None = None
    max_record_bytes: int | None = None
    timeout: float | None = None
    min_support: int | None = None
    spotlight: dict | None = None
    preset: str | None = None
    language: str | None = None
    bridge: str | None = None
    bridge_dump: tuple[str, ...] = ()
    bridge_dump_files: tuple[tuple[str, str], ...] = ()
    bridge_preset: str | None = None
    direction: str | None = None
    exclude_properties: tuple[str, ...] | None = None
    label_property: str | None = None
    values: str | None = None
    labels_optional: bool | None = None
    depth: int | None = None
    split_column: str | None = None

    # ----------------------------------------------------------------- making one
    @classmethod
    def from_options(cls, values: Mapping[str, Any]) -> CorpusInput:
        """The input of a corpus file and the route's options (``None`` values are defaults).

        Without ``corpus`` the input has no corpus: it can only :meth:`prepare` its dump (``kgfs serve``
        reads the dump once before any corpus arrives).
        """
        v = {f.name: values.get(f.name) for f in dataclasses.fields(cls)
             if f.name not in ("dump_files", "bridge_dump_files")}
        dumps = {}
        for k in ("dump", "bridge_dump"):
            d = v.pop(k) or ()
            dumps[k] = (d,) if isinstance(d, str | Path) else tuple(d)
        corpus = v.pop("corpus")
        for k in ("entity_columns", "type_namespaces", "exclude_properties"):  # lists from the command line,
            v[k] = tuple(v[k]) if v.get(k) else None                            # tuples in a frozen input
        f = v.get("features")
        if f is not None and not isinstance(f, str):  # one kind is kept as its name (the keys of earlier runs stay)
            v["features"] = f[0] if len(f) == 1 else tuple(f)
        for k in ("preset", "bridge_preset"):  # a preset file is kept by its absolute path
            if v.get(k) is not None and (str(v[k]).endswith(".toml") or Path(str(v[k])).is_file()):
                v[k] = str(Path(v[k]).absolute())
        return cls(**{**v, "name": v.get("name") or (Path(corpus).stem if corpus is not None else "")},
                   corpus=FileRef.of(corpus, "corpus"), dump=tuple(str(Path(d).resolve()) for d in dumps["dump"]),
                   dump_files=dump_fingerprint(dumps["dump"]),
                   bridge_dump=tuple(str(Path(d).resolve()) for d in dumps["bridge_dump"]),
                   bridge_dump_files=dump_fingerprint(dumps["bridge_dump"]))

    @classmethod
    def from_dataset(cls, name, paths, options, values) -> CorpusInput:
        """A registry dataset of loader ``rdf``: its ``corpus`` and ``dump`` files, its options (``preset``,
        ``entity_columns``, ``features``, ``exclude_properties``, ``label_property``, ...), the command line's
        values over them.

        Examples
        --------
        >>> from kg.datasets import dataset_info
        >>> dict(dataset_info("wikidata/codex-people").options)["label_property"]
        'P27'
        """
        from kg.rdf.kinds import FeatureSpec

        given = {k: v for k, v in values.items() if v is not None}
        merged = {**dict(options), **given, "name": given.get("name") or name, "corpus": paths["corpus"],
                  "dump": [paths["dump"]]}
        if merged.get("preset") is None and "preset" in paths:  # the dataset's own preset file
            merged["preset"] = str(paths["preset"])
        if not FeatureSpec.of(merged.get("features")).uses_relations:  # the dataset's relation options do not
            for k in ("direction", "exclude_properties", "values"):     # apply to a run without relations
                if k not in given:
                    merged.pop(k, None)
        if not FeatureSpec.of(merged.get("features")).paths and "depth" not in given:
            merged.pop("depth", None)
        return cls.from_options(merged)

    # ----------------------------------------------------------------- what decides what
    def _dump_arg(self, bridge: bool = False):
        d = self.bridge_dump if bridge else self.dump
        return None if not d else (d[0] if len(d) == 1 else list(d))

    def vocabulary(self):
        """The graph's vocabulary (``--preset``, ``--language``; DBpedia's by default), read once.

        Examples
        --------
        >>> CorpusInput("c", preset="wikidata", language="de").vocabulary().language
        'de'
        """
        from kg.rdf.vocabulary import vocabulary_of

        lexicon_here = not self.bridge  # --language is the lexicon's: of the bridged graph with --bridge
        return self._memoized("vocabulary", lambda: vocabulary_of(self.preset, self.language if lexicon_here
                                                                  else None))

    def spec(self):
        """Which features (:class:`~kg.rdf.kinds.FeatureSpec`: ``--features``, ``--category-depth``,
        ``--direction``, ``--exclude-properties`` expanded by the vocabulary).

        Examples
        --------
        >>> s = CorpusInput("c", preset="wikidata", features=("types", "relations"),
        ...                 exclude_properties=("P106",)).spec()
        >>> s.kinds, s.relations.exclude
        (('types', 'relations'), ('http://www.wikidata.org/prop/direct/P106',))
        """
        from kg.rdf.kinds import FeatureSpec

        v = self.vocabulary()
        return self._memoized("spec", lambda: FeatureSpec.of(
            self.features, category_depth=2 if self.category_depth is None else self.category_depth,
            direction=self.direction, exclude=[v.expand_property(p, "--exclude-properties")
                                               for p in self.exclude_properties or ()], values=self.values,
            depth=self.depth, prune=(self.min_support or 1) if self.features and "paths" in self.features else None))

    def source_vocabulary(self):
        """The vocabulary the knowledge source reads with: :meth:`vocabulary`, indexing relations when asked."""
        v = self.vocabulary()
        return v.with_relations() if self.spec().uses_relations else v

    def bridge_vocabulary(self):
        """The vocabulary of the bridged graph (``--bridge-preset``, default DBpedia's), or ``None`` without a bridge.

        Examples
        --------
        >>> CorpusInput("c").bridge_vocabulary() is None
        True
        """
        from kg.rdf.vocabulary import vocabulary_of

        if not self.bridge:
            return None
        return self._memoized("bridge_vocabulary", lambda: vocabulary_of(self.bridge_preset or "dbpedia",
                                                                         self.language))

    def _lexicon_vocabulary(self):
        return self.bridge_vocabulary() or self.vocabulary()

    # ----------------------------------------------------------------- the plug-ins it opens by name
    def annotator_name(self) -> str:
        """The annotator's registered name (:data:`kg.rdf.annotators.ANNOTATORS`; the lexicon by default)."""
        return self.annotator or "lexicon"

    def source_name(self) -> str:
        """The source's registered name (:data:`kg.rdf.sources.SOURCES`): SPARQL when a URL is given, else the dump."""
        return self.kg or ("sparql" if self.sparql_url else "dump")

    def annotator_plugin(self):
        """The annotator's class (imported on first use; an unknown name is an error naming ``annotator``)."""
        from kg.rdf.annotators import ANNOTATORS

        return ANNOTATORS.get(self.annotator_name(), "annotator")

    def source_plugin(self):
        """The source's class (imported on first use; an unknown name is an error naming ``source``)."""
        from kg.rdf.sources import SOURCES

        return SOURCES.get(self.source_name(), "source")

    def annotator_settings(self, ctx: Context | None = None):
        """What the annotator is opened with: the corpus's graph (the bridged one's dump and vocabulary)."""
        from kg.rdf.sources.common import Settings

        files = self.bridge_dump_files if self.bridge else self.dump_files
        return Settings(spotlight_url=self.spotlight_url, dump=self._dump_arg(bridge=bool(self.bridge)),
                        dump_files=files, vocabulary=self._lexicon_vocabulary(), access=self.access(ctx),
                        spotlight=self.spotlight)

    def source_settings(self, ctx: Context | None = None):
        """What the source is opened with: the features' graph."""
        from kg.rdf.sources.common import Settings

        return Settings(sparql_url=self.sparql_url, dump=self._dump_arg(), dump_files=self.dump_files,
                        vocabulary=self.source_vocabulary(), type_namespaces=self.type_namespaces,
                        access=self.access(ctx))

    def annotator_inputs(self) -> dict:
        """What decides the entity linking: the annotator, and its Spotlight URL or the dump (and vocabulary).

        Examples
        --------
        >>> CorpusInput("c", annotator="spotlight", spotlight_url="http://s/annotate").annotator_inputs()
        {'annotator': 'spotlight', 'spotlight_url': 'http://s/annotate', 'dump': None}
        """
        out = {"annotator": self.annotator_name(), **self.annotator_plugin().key(self.annotator_settings())}
        if self.vocabulary().id_pattern:  # short ids in entity columns are expanded by it
            out["expand"] = [self.vocabulary().id_pattern, self.vocabulary().id_namespace]
        return out

    def source_inputs(self) -> dict:
        """What decides the facts: SPARQL endpoint or dump, vocabulary, type namespaces, types or categories,
        the bridge.

        Examples
        --------
        >>> CorpusInput("c", sparql_url="http://q/sparql").source_inputs()["kg"]
        'sparql'
        """
        from kg.rdf.sources.common import vocabulary_key

        out = {"kg": self.source_name(), **self.source_plugin().key(self.source_settings()),
               "type_namespaces": list(self.type_namespaces) if self.type_namespaces else None,
               "features": self.spec().key()}
        if self.spec().uses_relations:
            out["relations"] = self.spec().relations.to_json()
        vocab = vocabulary_key(self.vocabulary())
        if vocab is not None:
            out["vocabulary"] = vocab
        if self.bridge:
            out["bridge"] = {"kind": self.bridge, "dump": [list(f) for f in self.bridge_dump_files],
                             "vocabulary": self.bridge_vocabulary().to_json()}
        return out

    def _columns(self) -> dict:
        # the records read depend on the size limit too (with --skip-bad-lines, longer ones are left out)
        return {"text_column": self.text_column, "id_column": self.id_column, "label_column": self.label_column,
                "entity_columns": list(self.entity_columns) if self.entity_columns else None,
                **({"max_record_bytes": self.max_record_bytes} if self.max_record_bytes else {}),
                **({"labels_optional": True} if self.labels_optional else {})}

    # ----------------------------------------------------------------- the objects it builds (memo)
    def _memoized(self, key: str, make: Callable[[], Any]):
        memo = self.memo()
        with _LOCK:
            if key not in memo:
                memo[key] = make()
            return memo[key]

    def read_corpus(self) -> Corpus:
        """The corpus, read once (:func:`kg.rdf.corpus.load_corpus` with the column options)."""
        from kg.rdf.corpus import MAX_RECORD_BYTES, EntityColumns, OptionalColumn, load_corpus

        v = self.bridge_vocabulary() or self.vocabulary()  # the corpus's entities are of the bridged graph
        columns = self.entity_columns
        if columns and v.id_pattern:  # short ids (Wikidata's Q42) expanded by the vocabulary
            columns = EntityColumns(tuple(columns), v.expand_entity)
        return self._memoized("corpus", lambda: load_corpus(
            self.corpus.path, id_column=self.id_column or "id", text_column=self.text_column or "text",
            label_column=(OptionalColumn if self.labels_optional else str)(self.label_column or "label"),
            entity_columns=columns,
            skip_bad_lines=bool(self.skip_bad_lines), max_record_bytes=self.max_record_bytes or MAX_RECORD_BYTES))

    def access(self, ctx: Context | None) -> Access:
        """The caches (in the kgfs home of ``ctx``), time limits, bad-line rule and progress of the route."""
        timeout = float(self.timeout or DEFAULT_TIMEOUT)
        return Access(cache_dir=_cache_dir(ctx) if ctx else None, timeout=timeout,
                      max_total=TOTAL_TIMEOUTS * timeout, skip_bad_lines=bool(self.skip_bad_lines),
                      progress=ctx.progress if ctx else None)

    def make_annotator(self, ctx: Context | None):
        """The annotator (:func:`kg.rdf.table.make_annotator`), built once per cache folder."""
        settings = self.annotator_settings(ctx)
        cls = self.annotator_plugin()

        def make():
            cls.check(settings, self.annotator_name(), "annotator")
            return cls.open(settings)

        return self._memoized(f"annotator:{settings.access.cache_dir}", make)

    def make_source(self, ctx: Context | None):
        """The knowledge source (:func:`kg.rdf.table.make_source`; wrapped by the bridge), built once per
        cache folder."""
        from kg.rdf.table import make_source

        access = self.access(ctx)

        def make():
            cls, settings = self.source_plugin(), self.source_settings(ctx)
            cls.check(settings, self.source_name(), "source")
            src = cls.open(settings)
            if not self.bridge:
                return src
            from kg.rdf.sources.bridge import EquivalentClassSource, SameAsSource

            own = make_source("dump", dump=self._dump_arg(bridge=True), vocabulary=self.bridge_vocabulary(),
                              access=access)
            return SameAsSource(src, own) if self.bridge == "same-as" else EquivalentClassSource(src, own)

        return self._memoized(f"source:{access.cache_dir}", make)

    # ----------------------------------------------------------------- a run
    def _links(self) -> bool:
        """Whether the corpus needs an annotator (it has texts, not entity columns)."""
        return not self.entity_columns

    def _check_vocabulary(self) -> None:
        """The presets load (a TOML file's errors name it and --preset), and go with --features and --bridge."""
        from kg.rdf.kinds import missing_role

        v = self.vocabulary()
        bv = self.bridge_vocabulary()
        spec = self.spec()
        kinds = spec.kinds
        lacking = {missing_role(v, k) for k in kinds}
        if "subject" in lacking:
            raise ParameterError(f"{param('features', 'categories')}: the {v.name} preset has no category predicates "
                                 f"(subject); use {param('features', 'types')}, or describe them in a preset file "
                                 f"({param('preset')})")
        if "instance_of" in lacking:
            raise ParameterError(f"{param('features', ' '.join(kinds))}: the {v.name} preset has no instance-of "
                                 "predicates")
        if "relations" in lacking:
            raise ParameterError(f"{param('features', ' '.join(kinds))}: the {v.name} preset names no relation "
                                 "predicates; give their namespaces as `relations` in a preset file "
                                 f"({param('preset')})")
        if not spec.uses_relations:
            for name, value in (("direction", self.direction), ("exclude_properties", self.exclude_properties),
                                ("values", self.values if self.values != "binary" else None)):
                if value:
                    raise ParameterError(f"{param(name)} needs {param('features', 'relations')} or "
                                         "qualified-relations")
        spec.check_label_property(self.label_property, v)
        if self.bridge and spec.uses_relations:
            raise ParameterError(f"{param('bridge')} maps types and categories, not relations (use "
                                 f"{param('features', 'types')} or categories)")
        if self.bridge and not self.bridge_dump:
            raise ParameterError(f"{param('bridge', self.bridge)} needs {param('bridge_dump')} (the dump files of the "
                                 "corpus's graph with its owl:sameAs or owl:equivalentClass links)")
        if not self.bridge and (self.bridge_dump or self.bridge_preset):
            raise ParameterError(f"{param('bridge_dump' if self.bridge_dump else 'bridge_preset')} needs "
                                 f"{param('bridge')} (same-as or equivalent-class)")
        if self.bridge == "equivalent-class" and kinds != ("types",):
            raise ParameterError(f"{param('bridge', 'equivalent-class')} maps types, not categories (use "
                                 f"{param('features', 'types')})")
        if bv is not None and bv == v:
            raise ParameterError(f"{param('bridge')}: the corpus's graph ({param('bridge_preset', bv.name)}) is the "
                                 f"graph of the features ({param('preset', v.name)}); give the other graph's preset")

    def check(self, ctx: Context | None) -> dict:
        from kg.rdf.services import check_service, check_url

        self._check_vocabulary()
        corpus = self.read_corpus()
        if len(corpus) == 0:
            raise KgfsError(f"{self.corpus.path}: the corpus has no instances ({param('corpus')})")
        # what is missing first (nothing is read), then the services the chosen plug-ins reach
        used = [(self.source_plugin(), self.source_settings(), self.source_name(), "source")]
        if corpus.entities is None:
            used.insert(0, (self.annotator_plugin(), self.annotator_settings(), self.annotator_name(), "annotator"))
        for cls, settings, name, parameter in used:
            cls.check(settings, name, parameter)
        for cls, settings, _, _ in used:
            for url, setting in cls.services(settings):
                check_url(url, param(setting))
                check_service(url, param(setting), cls, timeout=max(10.0, float(self.timeout or 0)))  # as --timeout
        out: dict = {"n_instances": len(corpus)}
        if corpus.labels is not None:
            out["classes"] = dict(sorted(Counter(str(v) for v in corpus.labels).items()))
        if "ids_numbered" in corpus.meta:  # the id column: chosen explicitly, or said how the rows are named
            like = corpus.meta["ids_numbered"]
            out["notes"] = [f"{Path(self.corpus.path).name} has no {self.id_column or 'id'!r} column: its instances "
                            f"are numbered by row (1 to {len(corpus)})" + (
                                f"; it has {', '.join(repr(c) for c in like)}: pass --id-column {like[0]} to name "
                                "them by it" if like else "; --id-column COL names them by a column")]
        return out

    def prepare(self, ctx: Context, progress=None) -> dict | None:
        """Read the dump files the route uses into the dump index now (only the new ones), and the lexicon
        when it links with it: what its first batch would do, up front, where a bar can show it.

        Returns the ingest report, or ``None`` when the route reads no dump.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "l.nt").write_text('<http://dbpedia.org/resource/Lyon> '
        ...                             '<http://www.w3.org/2000/01/rdf-schema#label> "Lyon"@en .\\n')
        >>> CorpusInput.from_options({"dump": [d / "l.nt"]}).prepare(Context(d))["lexicon"]["n_surface_forms"]
        1
        >>> CorpusInput("c", sparql_url="http://q/sparql", annotator="spotlight").prepare(Context(d)) is None
        True
        """
        lexicon = self.annotator_plugin().reads_dump and self._links()  # it links with the dump's lexicon
        if _cache_dir(ctx) is None:
            return None
        from kg.rdf.index.dumpindex import index_for_cache

        index, report = index_for_cache(_cache_dir(ctx)), None
        source_reads_dump = self.source_plugin().reads_dump
        if self.dump and ((lexicon and not self.bridge) or source_reads_dump):
            # the source's vocabulary (its relation-indexing segments serve the lexicon too), else the lexicon's
            vocab = self.source_vocabulary() if source_reads_dump else self.vocabulary()
            report = index.ingest(self._dump_arg(), vocabulary=vocab, progress=progress,
                                  skip_bad_lines=bool(self.skip_bad_lines), lexicon=lexicon and not self.bridge)
        if self.bridge and self.bridge_dump:  # the links (and the lexicon) of the corpus's own graph
            bridged = index.ingest(self._dump_arg(bridge=True), vocabulary=self.bridge_vocabulary(), progress=progress,
                                   skip_bad_lines=bool(self.skip_bad_lines), lexicon=lexicon)
            report = bridged if report is None else {**report, "files": report["files"] + bridged["files"],
                                                     "ingested": report["ingested"] + bridged["ingested"],
                                                     "lexicon": bridged["lexicon"], "bytes": bridged["bytes"]}
        return report

    @classmethod
    def prepare_options(cls, values: Mapping[str, Any], ctx: Context, progress=None) -> dict | None:
        """:meth:`prepare` for the options of a watched folder, before any corpus is there."""
        return cls.from_options({**values, "corpus": None}).prepare(ctx, progress)

    def feature_names(self, features, ctx=None) -> dict[str, str]:
        """The features' names from the labels in the dump (:func:`kg.rdf.naming.feature_labels`: types and
        categories by their labels, relations and paths by their predicates', classes' and objects'; the dump
        index of the kgfs home is read, never changed); none without a dump (a SPARQL endpoint is not asked).

        Examples
        --------
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "o.nt").write_text('<http://dbpedia.org/ontology/Athlete> '
        ...                             '<http://www.w3.org/2000/01/rdf-schema#label> "athlete"@en .\\n')
        >>> CorpusInput("c", dump=(str(d),)).feature_names(["http://dbpedia.org/ontology/Athlete"])
        {'http://dbpedia.org/ontology/Athlete': 'athlete'}
        """
        if not self.dump:
            return {}
        from kg.rdf.naming import feature_labels

        return feature_labels(features, self.dump, cache_dir=_cache_dir(ctx) if ctx else None,
                              vocabulary=self.vocabulary())

    def steps(self, ctx: Context):
        return [AnnotateStep(self, ctx), FetchStep(self, ctx),
                table_step(lambda up: {"annotate": up["annotate"].hash, "fetch": up["fetch"].hash, "name": self.name,
                                       "features": self.spec().key(), "min_support": self.min_support or 1,
                                       "category_depth": 2 if self.category_depth is None else self.category_depth,
                                       **({"relations": self.spec().relations.to_json()}
                                          if self.spec().uses_relations else {}),
                                       **({"split_column": self.split_column} if self.split_column else {}),
                                       # the features' names: the dump's labels (feature_names)
                                       **({"labels": [list(f) for f in self.dump_files]} if self.dump else {})},
                           self._table, needs=("annotate", "fetch"), names=lambda f: self.feature_names(f, ctx))]

    def _table(self, up: Mapping[str, Record]):
        from kg.rdf.stored import table_from_records

        corpus = self.read_corpus()
        table = table_from_records(corpus, read_payload(up["annotate"], "entities"),
                                   read_facts(up["fetch"]),
                                   name=self.name, features=self.spec(), min_support=self.min_support or 1,
                                   annotator=self.annotator_inputs()["annotator"] if corpus.entities is None else None)
        if self.split_column:
            from kg.rdf.datasets import read_split

            split = read_split(Path(self.corpus.path), self.split_column, corpus.ids, self.id_column or "id")
            table.meta["split"] = {p: [i for i, s in zip(corpus.ids, split) if s == p] for p in ("train", "test")}
        return check_nonempty(table, self.min_support)
