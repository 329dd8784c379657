"""The machinery of a pipeline run, without Prefect: inputs, the stage store, publishing, the watch ledger.

- :mod:`kg.runs.inputs`: what a run reads, described as a JSON-serialisable *spec* (paths and
  content hashes): a registry dataset, the GO route's files, or a DBpedia corpus.
- :mod:`kg.runs.store`: the content-addressed stage store (``<kgfs home>/store``): a stage's key
  hashes its inputs, parameters and code; its folder holds its files and ``record.json``.
- :mod:`kg.runs.publish`: the output folder a person reads (``run.json``, the report).
- :mod:`kg.runs.ledger`: the ledger of a watched folder (``kgfs serve``): which corpora were processed.

:mod:`flows` wires these into Prefect flows and the ``kgfs`` command line.
"""
