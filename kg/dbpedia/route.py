"""The DBpedia route: corpus -> entities -> types or categories -> feature DAG -> binary table.

Section 5.1 of the SHSEL paper: annotate each text with DBpedia Spotlight, then take the types
(``rdf:type`` + ``rdfs:subClassOf``) or the categories (``dct:subject`` + ``skos:broader``) of
the entities found as hierarchical binary features. Each instance's direct features are the
union over its entities; the table is closed upward over the hierarchy (an instance with
``Cricketer`` also has ``Athlete``, ``Person``, ``Agent``).

One function per arrow (:func:`link_entities`, :func:`fetch_facts`, :func:`build_hierarchy`,
:func:`build_table`), plus :func:`make_annotator` / :func:`make_source` for the command line and
:func:`run_route`, the whole offline or online run (annotate, fetch, build, select, evaluate,
export ARFF) in one call.

Choices (documented and tested):

- An entity without a type (category) in the source is kept: its instance is a row, empty if
  no other entity of it has features. Such entities are listed in
  ``meta["entities_without_features"]`` and logged; instances without any feature are counted
  in ``meta["instances_without_features"]``.
- Category cycles (real in DBpedia) are broken by ``FeatureHierarchy.from_edges(...,
  on_cycle="break")``; the removed edges are listed in ``meta["removed_cycle_edges"]`` (and the
  core's ``HierarchyCycleWarning`` is emitted).
- Categories are followed ``category_depth`` levels up (default 2) from the entities' own
  categories; deeper walks reach most of Wikipedia's category graph.
- Feature ids are full IRIs (unambiguous across namespaces).

Examples
--------
>>> from kg.dbpedia.corpus import Corpus
>>> from kg.dbpedia.dumps import DumpSource
>>> corpus = Corpus(ids=["t1"], entities=[["http://dbpedia.org/resource/Kobe"]], labels=["sport"])
>>> table = build_table(corpus, None, DumpSource("dumps/"))  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kg.dbpedia.corpus import Corpus
from kg.errors import HierarchyCycleWarning, InputFormatError, KgfsError
from kg.hierarchy import FeatureHierarchy
from kg.iri import normalize_iri
from kg.dbpedia.sources import Annotator, KnowledgeSource
from kg.table import FeatureTable

__all__ = [
    "RouteResult",
    "build_hierarchy",
    "build_table",
    "corpus_table",
    "fetch_facts",
    "link_entities",
    "make_annotator",
    "make_source",
    "run_route",
]

log = logging.getLogger(__name__)


def link_entities(
    corpus: Corpus, annotator: Annotator | None = None, *, invalid_iri: str = "skip"
) -> tuple[dict[str, list[str]], dict]:
    """Instance id -> entity IRIs (from the corpus's entity column, or by annotating its texts).

    IRIs are normalised (:func:`kg.iri.normalize_iri`), so the SPARQL and the dump source see the
    same strings. A value that is not an absolute IRI is skipped and listed in the report
    (``invalid_iri="raise"`` makes it an error naming the instance).
    """
    report: dict = {"invalid_iris": []}
    if corpus.entities is not None:
        raw = corpus.entities
    else:
        if annotator is None:
            raise KgfsError("the corpus has texts but no annotator was given (use a lexicon or Spotlight)")
        raw = [[a.uri for a in anns] for anns in annotator.annotate(corpus.texts)]
        if len(raw) != len(corpus):
            raise KgfsError(f"the annotator returned {len(raw)} results for {len(corpus)} texts")
    out: dict[str, list[str]] = {}
    for rid, ents in zip(corpus.ids, raw):
        seen: list[str] = []
        for e in ents:
            try:
                iri = normalize_iri(e, where=f"instance {rid!r}")
            except InputFormatError:
                if invalid_iri == "raise":
                    raise
                report["invalid_iris"].append([rid, str(e)])
                continue
            if iri not in seen:
                seen.append(iri)
        out[rid] = seen
    report["n_mentions"] = sum(len(v) for v in out.values())
    report["instances_without_entities"] = sum(1 for v in out.values() if not v)
    return out, report


def fetch_facts(
    entities: Mapping[str, Sequence[str]],
    source: KnowledgeSource,
    *,
    features: str = "types",
    category_depth: int | None = 2,
) -> tuple[dict[str, set[str]], set[tuple[str, str]], dict]:
    """Direct features per instance and the hierarchy edges, from ``source``.

    Returns ``(facts, edges, report)``: ``facts[instance]`` is the union of the direct types
    (categories) of its entities; ``edges`` are the (child, parent) pairs above them.
    """
    if features not in ("types", "categories"):
        raise ValueError(f"features must be 'types' or 'categories', got {features!r}")
    all_entities = sorted({e for ents in entities.values() for e in ents})
    per_entity = source.types(all_entities) if features == "types" else source.categories(all_entities)
    nodes = sorted({f for fs in per_entity.values() for f in fs})
    if features == "types":
        edges = source.class_edges(nodes)
    else:
        edges = source.broader(nodes, category_depth)
    facts = {i: set().union(*(per_entity.get(e, set()) for e in ents)) if ents else set()
             for i, ents in entities.items()}
    empty = sorted(e for e in all_entities if not per_entity.get(e))
    if empty:
        log.warning("%d of %d entities have no %s in the source, e.g. %s", len(empty), len(all_entities),
                    features, ", ".join(empty[:3]))
    report = {
        "n_entities": len(all_entities),
        "entities_without_features": empty,
        "n_direct_features": len(nodes),
    }
    return facts, edges, report


def build_hierarchy(nodes, edges) -> tuple[FeatureHierarchy, list[tuple[str, str]]]:
    """The feature DAG; cycles are broken (``on_cycle="break"``) and the removed edges returned."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HierarchyCycleWarning)
        h = FeatureHierarchy.from_edges(sorted(edges), nodes=sorted(set(nodes)), on_cycle="break")
    for w in caught:
        if issubclass(w.category, HierarchyCycleWarning):
            log.warning("%s", w.message)
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return h, [tuple(e) for e in h.removed_edges]


def build_table(
    corpus: Corpus,
    annotator: Annotator | None,
    source: KnowledgeSource,
    *,
    features: str = "types",
    min_support: int = 1,
    category_depth: int | None = 2,
    invalid_iri: str = "skip",
    meta: dict | None = None,
) -> FeatureTable:
    """The binary instance x feature table of a corpus, closed under the feature DAG.

    Parameters
    ----------
    corpus : Corpus
        Texts (annotated with ``annotator``) or entity IRIs (``annotator`` may be ``None``).
    annotator : Annotator or None
        :class:`kg.dbpedia.spotlight.SpotlightAnnotator` or :class:`kg.dbpedia.lexicon.LexiconAnnotator`.
    source : KnowledgeSource
        :class:`kg.dbpedia.sparql.SparqlSource` or :class:`kg.dbpedia.dumps.DumpSource`.
    features : {"types", "categories"}
    min_support : int
        Drop features present in fewer instances (the papers use 3 for some datasets).
    category_depth : int or None
        ``skos:broader`` levels to follow (``features="categories"``); ``None`` = unbounded.
    invalid_iri : {"skip", "raise"}
        What to do with an entity value that is not an absolute IRI.

    Returns
    -------
    FeatureTable
        Rows in corpus order (every instance, with or without features), labels from the
        corpus, ``meta`` with the provenance and the reports described in the module doc.

    Examples
    --------
    >>> table = build_table(read_sports_tweets("training.txt"),
    ...                     LexiconAnnotator.from_dump("dump/"), DumpSource("dump/"))  # doctest: +SKIP
    """
    entities, link_report = link_entities(corpus, annotator, invalid_iri=invalid_iri)
    facts, edges, fact_report = fetch_facts(entities, source, features=features, category_depth=category_depth)
    nodes = {f for fs in facts.values() for f in fs} | {x for e in edges for x in e}
    h, removed = build_hierarchy(nodes, edges)
    m = dict(meta or {})
    m.update(
        {
            "route": "dbpedia",
            "features": features,
            "corpus": corpus.source,
            "source": source.describe() if hasattr(source, "describe") else repr(source),
            "annotator": None if annotator is None or corpus.entities is not None else repr(annotator),
            "removed_cycle_edges": [list(e) for e in removed],
            **link_report,
            **fact_report,
        }
    )
    if features == "categories":
        m["category_depth"] = category_depth
    m["instances_without_features"] = sum(1 for i in corpus.ids if not facts.get(i))
    if m["instances_without_features"]:
        log.info("%d of %d instances have no %s (kept as empty rows)", m["instances_without_features"],
                 len(corpus), features)
    if h.n_nodes == 0:
        raise KgfsError(
            f"no {features} found for any of the {fact_report['n_entities']} entities of {corpus.source}; "
            "check the annotator, the source and the type namespaces"
        )
    return FeatureTable.from_facts(
        facts, h, corpus.label_map, min_support=min_support, instances=corpus.ids, meta=m
    )


# ---------------------------------------------------------------------------------- factories
def make_annotator(
    kind: str,
    *,
    spotlight_url: str | None = None,
    dump=None,
    cache_dir: str | os.PathLike | None = None,
    confidence: float = 0.5,
    support: int = 0,
    types: str = "",
    policy: str = "whitelist",
    max_workers: int = 4,
    skip_bad_lines: bool = False,
    progress: Callable | None = None,
) -> Annotator:
    """An annotator by name: ``"spotlight"`` (needs ``spotlight_url``) or ``"lexicon"`` (needs ``dump``)."""
    if kind == "spotlight":
        if not spotlight_url:
            raise KgfsError("--annotator spotlight needs --spotlight-url")
        from kg.dbpedia.spotlight import SpotlightAnnotator

        return SpotlightAnnotator(spotlight_url, confidence=confidence, support=support, types=types,
                                  policy=policy, cache_dir=cache_dir, max_workers=max_workers, progress=progress)
    if kind == "lexicon":
        if dump is None:
            raise KgfsError("--annotator lexicon needs --dump (files with rdfs:label and redirects)")
        from kg.dbpedia.lexicon import LexiconAnnotator

        return LexiconAnnotator.from_dump(dump, skip_bad_lines=skip_bad_lines)
    raise KgfsError(f"unknown annotator {kind!r} (choose 'spotlight' or 'lexicon')")


def make_source(
    kind: str | None = None,
    *,
    sparql_url: str | None = None,
    dump=None,
    cache_dir: str | os.PathLike | None = None,
    type_namespaces: Sequence[str] | None = None,
    skip_bad_lines: bool = False,
    graph: str | None = None,
    batch_size: int = 100,
    progress: Callable | None = None,
    lenient: bool = False,
) -> KnowledgeSource:
    """A knowledge source by name: ``"sparql"`` or ``"dump"``; ``None`` = SPARQL if a URL is given, else dump."""
    if kind is None:
        kind = "sparql" if sparql_url else "dump"
    if kind == "sparql":
        if not sparql_url:
            raise KgfsError("--kg sparql needs --sparql-url")
        from kg.dbpedia.sparql import SparqlSource

        return SparqlSource(sparql_url, type_namespaces=type_namespaces, cache_dir=cache_dir, graph=graph,
                            batch_size=batch_size, progress=progress)
    if kind == "dump":
        if dump is None:
            raise KgfsError("--kg dump needs --dump (dump files or a directory)")
        from kg.dbpedia.dumps import DumpSource

        return DumpSource(dump, type_namespaces=type_namespaces, skip_bad_lines=skip_bad_lines, lenient=lenient)
    raise KgfsError(f"unknown knowledge source {kind!r} (choose 'sparql' or 'dump')")


# ---------------------------------------------------------------------------------- whole run
@dataclass
class RouteResult:
    """What :func:`run_route` produced (paths are inside ``out_dir``)."""

    table: FeatureTable
    table_path: Path
    arff_path: Path
    evaluation: object  # pandas.DataFrame
    evaluation_path: Path
    summary: dict = field(default_factory=dict)


def corpus_table(
    corpus: Corpus | str | os.PathLike,
    *,
    annotator: Annotator | str | None = "lexicon",
    kg: KnowledgeSource | str | None = None,
    dump=None,
    sparql_url: str | None = None,
    spotlight_url: str | None = None,
    features: str = "types",
    min_support: int = 1,
    category_depth: int | None = 2,
    type_namespaces: Sequence[str] | None = None,
    cache_dir: str | os.PathLike | None = None,
    skip_bad_lines: bool = False,
    text_column: str = "text",
    id_column: str | None = "id",
    label_column: str | None = "label",
    entity_columns: Sequence[str] | None = None,
    annotator_options: Mapping | None = None,
    progress: Callable | None = None,
) -> FeatureTable:
    """The feature table of a corpus file from command-line-like options (what ``kgfs run --corpus`` needs).

    ``annotator`` is ``"lexicon"`` (from ``dump``), ``"spotlight"`` (``spotlight_url``; more
    Spotlight parameters in ``annotator_options``: ``confidence``, ``support``, ``types``,
    ``policy``, ``max_workers``) or an annotator object; it is ignored when the corpus gives
    entity columns. ``kg`` is ``"dump"``, ``"sparql"``, a source object, or ``None``: SPARQL when
    ``sparql_url`` is given, else the dump (the offline default). ``cache_dir`` holds the
    Spotlight and SPARQL caches (a rerun sends nothing twice and resumes after a failure).
    """
    from kg.dbpedia.corpus import load_corpus

    if not isinstance(corpus, Corpus):
        corpus = load_corpus(corpus, id_column=id_column, text_column=text_column, label_column=label_column,
                             entity_columns=entity_columns)
    if isinstance(annotator, str):
        annotator = None if corpus.entities is not None else make_annotator(
            annotator, spotlight_url=spotlight_url, dump=dump, cache_dir=cache_dir, skip_bad_lines=skip_bad_lines,
            progress=progress, **dict(annotator_options or {}))
    if kg is None or isinstance(kg, str):
        kg = make_source(kg, sparql_url=sparql_url, dump=dump, cache_dir=cache_dir,
                         type_namespaces=type_namespaces, skip_bad_lines=skip_bad_lines, progress=progress)
    return build_table(corpus, annotator, kg, features=features, min_support=min_support,
                       category_depth=category_depth, meta={"dataset": Path(corpus.source).stem})


def run_route(
    corpus: Corpus | str | os.PathLike,
    out_dir: str | os.PathLike,
    *,
    selectors: Sequence = ("complete", "shsel-ig-prune"),
    classifiers: Sequence = ("nb",),
    n_splits: int = 10,
    random_state: int = 0,
    sparse_arff: bool = True,
    **table_options,
) -> RouteResult:
    """The whole DBpedia route in one call: annotate, fetch, build the DAG, select, evaluate, export.

    ``table_options`` are those of :func:`corpus_table` (offline by default: ``dump=`` is
    enough). Writes ``out_dir/table.npz``, ``out_dir/table.arff`` (sparse ARFF unless
    ``sparse_arff=False``) and ``out_dir/evaluation.csv`` (one row per selector x classifier x
    fold, from :func:`selection.evaluation.cv.evaluate_table`).

    Examples
    --------
    >>> res = run_route("training.txt", "out/", dump="dump/", selectors=["shsel-ig-prune"])  # doctest: +SKIP
    >>> res.evaluation.groupby("selector")["accuracy"].mean()  # doctest: +SKIP
    """
    from kg.formats import write_arff
    from selection.evaluation.cv import evaluate_table

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table = corpus_table(corpus, **table_options)
    if table.y is None:
        raise KgfsError(f"{table.meta.get('corpus')}: the corpus has no labels; evaluation needs them")
    dataset = str(table.meta.get("dataset", "corpus"))
    table_path = table.save(out / "table.npz")
    arff_path = write_arff(table, out / "table.arff", sparse=sparse_arff, relation=dataset)
    ev = evaluate_table(table, list(selectors), list(classifiers), dataset=dataset,
                        n_splits=n_splits, random_state=random_state)
    ev_path = out / "evaluation.csv"
    from kg.files import atomic_write

    atomic_write(ev_path, lambda tmp: ev.to_csv(tmp, index=False))
    means = ev.groupby(["selector", "classifier"])["accuracy"].mean()
    summary = {
        "n_instances": table.n_instances,
        "n_features": table.n_features,
        "n_edges": table.hierarchy.n_edges,
        "instances_without_features": table.meta.get("instances_without_features"),
        "mean_accuracy": {f"{sel} / {clf}": float(v) for (sel, clf), v in means.items()},
    }
    return RouteResult(table, table_path, arff_path, ev, ev_path, summary)
