"""Knowledge sources of the RDF route, registered by name (:data:`SOURCES`).

- :mod:`~kg.rdf.sources.common`: what every RDF source shares (the questions' semantics, namespaces, the walks,
  :class:`~kg.rdf.sources.common.Settings`);
- ``sparql``: :class:`~kg.rdf.sources.sparql.SparqlSource` (any SPARQL endpoint; its protocol
  :mod:`~kg.rdf.sources.sparql_protocol`);
- ``dump``: :class:`~kg.rdf.sources.dump.DumpSource` (dump files, streamed), which opens as
  :class:`~kg.rdf.sources.index.IndexSource` (the dump index) when the route has a cache;
- :class:`~kg.rdf.sources.rdflib_graph.RdflibSource` (an in-memory :class:`rdflib.Graph`, given as an object);
- :mod:`~kg.rdf.sources.bridge`: two graphs linked by ``owl:sameAs`` or ``owl:equivalentClass``.

A source of your own is one class (a :class:`~kg.sources.SourceBase` with an ``open`` classmethod) and one
registration: ``SOURCES.register("name", "package.module:Class")``, or the entry-point group ``kgfs.sources``.
"""

from kg.plugins import Plugins

#: Source name (``--kg``) -> ``"module:Class"``, imported on first use.
SOURCES = Plugins("kgfs.sources", "knowledge source", {"sparql": "kg.rdf.sources.sparql:SparqlSource",
                                                       "dump": "kg.rdf.sources.dump:DumpSource"})
