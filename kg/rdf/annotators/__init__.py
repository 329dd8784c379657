"""Annotators of the RDF route (text -> entities), registered by name (:data:`ANNOTATORS`).

- ``lexicon``: :class:`~kg.rdf.annotators.lexicon.LexiconAnnotator` (offline, from a labels dump; from the
  dump index its table :class:`~kg.rdf.index.mentions.IndexedLexicon` when the route has a cache);
- ``spotlight``: :class:`~kg.rdf.annotators.spotlight.SpotlightAnnotator` (a DBpedia Spotlight REST client).

An annotator of your own is one class (a :class:`~kg.sources.AnnotatorBase` with an ``open`` classmethod) and one
registration: ``ANNOTATORS.register("name", "package.module:Class")``, or the entry-point group ``kgfs.annotators``.
"""

from kg.plugins import Plugins

#: Annotator name (``--annotator``) -> ``"module:Class"``, imported on first use.
ANNOTATORS = Plugins("kgfs.annotators", "annotator", {"lexicon": "kg.rdf.annotators.lexicon:LexiconAnnotator",
                                                      "spotlight": "kg.rdf.annotators.spotlight:SpotlightAnnotator"})
