"""The RDF route's command-line options (:class:`kg.rdf.route.CorpusInput`): what ``kgfs --help`` lists for it.

They are data, read without importing any client, source or reader, so ``kgfs --help`` stays light.

Examples
--------
>>> [o.flag for o in CORPUS_OPTIONS][:2]
['--corpus', '--text-column']
"""

from __future__ import annotations

from kg.rdf.annotators import ANNOTATORS
from kg.rdf.relations import FEATURE_KINDS
from kg.rdf.sources import SOURCES
from kg.rdf.sources.bridge import BRIDGES
from kg.routes.base import MIN_SUPPORT, NAME, Option, positive_number, whole_number

__all__ = ["CORPUS_OPTIONS"]

CORPUS_OPTIONS = (
    Option("--corpus", "corpus: CSV/TSV/JSONL with text (or entity) and label columns, or the Sports Tweets .txt "
                       "format", metavar="FILE", path=True),
    Option("--text-column", "corpus column with the text (default text)", metavar="COL"),
    Option("--label-column", "corpus column with the class (default label)", metavar="COL"),
    Option("--id-column", "corpus column with the instance id (default id)", metavar="COL"),
    Option("--entity-columns", "columns holding entity IRIs, or short ids such as Wikidata's Q42 (the corpus is "
                               "already linked: no annotator)", metavar="COL", many=True),
    Option("--skip-bad-lines", "skip (and count) corpus records and dump lines that cannot be read, instead of "
                               "failing", switch=True),
    Option("--max-record-bytes", "the longest corpus record read (default 8388608, 8 MiB); a longer one is an "
                                 "error naming its file and line (or skipped with --skip-bad-lines)", metavar="N",
           parse=whole_number(1)),
    Option("--annotator", "entity linking: lexicon (offline, from the dump's labels; default) or a DBpedia "
                          "Spotlight server", choices=ANNOTATORS.names),
    Option("--spotlight-url", "Spotlight /annotate endpoint", metavar="URL"),
    Option("--kg", "where types/categories come from (default: sparql when --sparql-url is given, else the dump)",
           choices=SOURCES.names),
    Option("--sparql-url", "SPARQL endpoint (e.g. your Virtuoso, QLever or Oxigraph)", metavar="URL"),
    Option("--timeout", "Spotlight/SPARQL: seconds per request (default 20); a request with its retries gives "
                        "up after 3x that", metavar="SECONDS", parse=positive_number),
    Option("--dump", "dump files or folders of the graph (N-Triples, Turtle, OWL; plain, .gz, .bz2; read once "
                     "into the index of the kgfs home, see `kgfs ingest`)", metavar="PATH", many=True, path=True),
    Option("--preset", "the graph's vocabulary: dbpedia (default), wikidata, or a .toml file describing your "
                       "graph (its predicates: instance of, subclass of, labels, ...)", metavar="NAME|FILE"),
    Option("--language", "language of the labels the lexicon reads (default: the preset's, en)", metavar="TAG"),
    Option("--features", "one or more kinds: types, instance of + subclass of (default; DBpedia: rdf:type + "
                         "rdfs:subClassOf, Wikidata: P31 + P279); categories (DBpedia: dct:subject + "
                         "skos:broader); relations (has a property); qualified-relations (has a property to an "
                         "object of a class); paths (relations along paths of up to --depth hops, to objects of a "
                         "class and to which objects). Several kinds make one table",
           choices=FEATURE_KINDS, many=True),
    Option("--depth", "paths: the longest path, 1 to 3 hops (default 2); only the features of --min-support "
                      "instances are generated", metavar="N", parse=whole_number(1)),
    Option("--direction", "relations: the entity as subject (out, default), as object (in), or both",
           choices=("out", "in", "both")),
    Option("--exclude-properties", "relations: predicates kept out of the features, with their subproperties "
                                   "(IRIs, prefixed names such as dbo:occupation or wdt:P106, or Wikidata's P106)",
           metavar="P", many=True),
    Option("--values", "relations: binary (default) or count (how many relations of each feature an instance "
                       "has; the flat selectors and the exports read the counts, the hierarchical selectors "
                       "their presence)", choices=("binary", "count")),
    Option("--label-property", "the predicate the labels come from (the task is a property of the entities): a "
                               "run with relations refuses to start unless it is excluded (--exclude-properties)",
           metavar="P"),
    Option("--bridge", "the corpus's entities are of another graph (--bridge-dump): same-as takes the features "
                       "of the entities their owl:sameAs links name in --preset's graph; equivalent-class takes "
                       "their own types, mapped by owl:equivalentClass to --preset's classes",
           choices=BRIDGES),
    Option("--bridge-dump", "dump files or folders of the entities' graph: its owl:sameAs or owl:equivalentClass "
                            "links (and rdf:type for equivalent-class; labels for the lexicon)", metavar="PATH",
           many=True, path=True),
    Option("--bridge-preset", "the vocabulary of --bridge-dump (default dbpedia)", metavar="NAME|FILE"),
    Option("--category-depth", "skos:broader levels to follow (default 2)", metavar="N", parse=whole_number(0)),
    MIN_SUPPORT, NAME,
)
