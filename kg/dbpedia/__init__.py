"""The RDF route (named after its first graph, DBpedia): a corpus of texts (or entity IRIs) -> entities ->
types or categories -> table, for any RDF knowledge graph.

- :mod:`kg.dbpedia.vocabulary`: what the route reads of a graph, as data (presets ``dbpedia`` and
  ``wikidata``; a TOML file for any other graph).
- :mod:`kg.dbpedia.corpus`: corpus readers (CSV/TSV/JSON Lines, the Sports Tweets format).
- :mod:`kg.dbpedia.sources`: the two narrow interfaces, ``Annotator`` (text -> entities) and
  ``KnowledgeSource`` (entities -> direct types/categories, and the class/category graph).
- annotators: :mod:`kg.dbpedia.lexicon` (offline, from a labels dump) and
  :mod:`kg.dbpedia.spotlight` (a DBpedia Spotlight REST client).
- knowledge sources: :mod:`kg.dbpedia.sparql` (a SPARQL endpoint; its requests, answers and errors
  :mod:`kg.dbpedia.sparql_protocol`), :mod:`kg.dbpedia.index_source` (the dump index :mod:`kg.dbpedia.index`
  of segments :mod:`kg.dbpedia.segment`, built by :mod:`kg.dbpedia.ingest` with :mod:`kg.dbpedia.linefilter`
  and :mod:`kg.dbpedia.extsort`; its lexicon :mod:`kg.dbpedia.lexindex`), :mod:`kg.dbpedia.dumps`
  (RDF dump files, streamed by :mod:`kg.dbpedia.dumpfiles`) and :mod:`kg.dbpedia.rdflib_source` (an in-memory
  :class:`rdflib.Graph`);
  :mod:`kg.dbpedia.bridge` between two graphs (``owl:sameAs``, ``owl:equivalentClass``).
- :mod:`kg.dbpedia.route`: linking, fetching and building the DAG and the table.
- :mod:`kg.dbpedia.batches`: the route in batches over stored results (``kgfs run --corpus``).

Submodules are imported on use (the services' clients are not needed for the dump route).
"""
