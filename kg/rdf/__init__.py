"""The RDF route (named after its first graph, DBpedia): a corpus of texts (or entity IRIs) -> entities ->
types or categories -> table, for any RDF knowledge graph.

- :mod:`kg.rdf.vocabulary`: what the route reads of a graph, as data (presets ``dbpedia`` and
  ``wikidata``; a TOML file for any other graph).
- :mod:`kg.rdf.corpus`: corpus readers (CSV/TSV/JSON Lines, the Sports Tweets format).
- :mod:`kg.rdf.sources.common`: the two narrow interfaces, ``Annotator`` (text -> entities) and
  ``KnowledgeSource`` (entities -> direct types/categories, and the class/category graph).
- annotators: :mod:`kg.rdf.annotators.lexicon` (offline, from a labels dump) and
  :mod:`kg.rdf.annotators.spotlight` (a DBpedia Spotlight REST client).
- knowledge sources: :mod:`kg.rdf.sources.sparql` (a SPARQL endpoint; its requests, answers and errors
  :mod:`kg.rdf.sources.sparql_protocol`), :mod:`kg.rdf.sources.index` (the dump index :mod:`kg.rdf.index.dumpindex`
  of segments :mod:`kg.rdf.index.segment`, built by :mod:`kg.rdf.index.ingest` with :mod:`kg.rdf.index.linefilter`
  and :mod:`kg.rdf.index.extsort`; its lexicon :mod:`kg.rdf.index.lexicon`), :mod:`kg.rdf.sources.dump`
  (RDF dump files, streamed by :mod:`kg.rdf.dumpfiles`) and :mod:`kg.rdf.sources.rdflib_graph` (an in-memory
  :class:`rdflib.Graph`);
  :mod:`kg.rdf.sources.bridge` between two graphs (``owl:sameAs``, ``owl:equivalentClass``).
- :mod:`kg.rdf.table`: linking, fetching and building the DAG and the table.
- :mod:`kg.rdf.table`: the route in batches over stored results (``kgfs run --corpus``).

Submodules are imported on use (the services' clients are not needed for the dump route).
The route's caches (the dump index, SPARQL's and Spotlight's answers) live in ``<kgfs home>/rdf-cache``
(:func:`cache_folder`).
"""

from __future__ import annotations

import os
from pathlib import Path

#: The route's cache folder in a kgfs home, and the name earlier versions gave it (renamed once, on first use).
CACHE_FOLDER, OLD_CACHE_FOLDER = "rdf-cache", "dbpedia-cache"


def cache_folder(home: str | os.PathLike) -> Path:
    """``<home>/rdf-cache``: the RDF route's caches; a ``dbpedia-cache`` of an earlier version is renamed to it.

    Examples
    --------
    >>> import tempfile
    >>> home = Path(tempfile.mkdtemp())
    >>> (home / "dbpedia-cache" / "index").mkdir(parents=True)
    >>> cache_folder(home).name, (cache_folder(home) / "index").is_dir(), (home / "dbpedia-cache").exists()
    ('rdf-cache', True, False)
    """
    new, old = Path(home) / CACHE_FOLDER, Path(home) / OLD_CACHE_FOLDER
    if not new.exists() and old.is_dir():
        try:
            os.rename(old, new)  # atomic; another process may have done it first
        except OSError:
            if not new.exists():
                raise
    return new

