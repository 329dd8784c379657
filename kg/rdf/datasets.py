"""Registry datasets of the RDF route (loader ``rdf``): a corpus of entities and an RDF dump, as one table.

A manifest entry gives the files ``corpus`` (CSV with an id, the entity and a label column) and
``dump`` (N-Triples, plain or compressed), and the options of the route: ``preset``,
``entity_columns``, ``features``, ``direction``, ``exclude_properties``, ``label_property``,
``values``, ``min_support``, ``category_depth``. :func:`load_rdf_dataset` builds the table from the
dump streamed (nothing cached) in one pass per question: what ``kgfs build --dataset`` builds
through the dump index (:class:`kg.rdf.route.CorpusInput`), for
:func:`kg.datasets.load_dataset` and ``kgfs evaluate --datasets NAME``.

Examples
--------
>>> from kg.datasets import load_dataset
>>> load_dataset("wikidata/codex-people", features="types").shape  # doctest: +SKIP
(7291, 62)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from kg.errors import KgfsError
from kg.rdf.corpus import EntityColumns, load_corpus
from kg.rdf.kinds import FeatureSpec
from kg.rdf.vocabulary import vocabulary_of

__all__ = ["load_rdf_dataset"]

_KNOWN = {"preset", "entity_columns", "features", "direction", "exclude_properties", "label_property", "values",
          "min_support", "category_depth", "id_column", "label_column"}


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
    unknown = sorted(set(options) - _KNOWN)
    if unknown:
        raise KgfsError(f"the rdf loader takes no option {', '.join(unknown)} (known: {', '.join(sorted(_KNOWN))})")
    from kg.rdf.sources.dump import DumpSource
    from kg.rdf.table import assemble_table

    vocabulary = vocabulary_of(options.get("preset"))
    relations = FeatureSpec.of(options.get("features")).uses_relations
    spec = FeatureSpec.of(
        options.get("features"), category_depth=options.get("category_depth", 2),
        direction=options.get("direction") if relations else None,
        exclude=[vocabulary.expand_property(p, "exclude_properties")
                 for p in (options.get("exclude_properties") or ()) if relations],
        values=options.get("values") if relations else None)
    spec.check_label_property(options.get("label_property"), vocabulary)
    columns: Sequence[str] = tuple(options.get("entity_columns") or ("entity",))
    corpus = load_corpus(paths["corpus"], id_column=options.get("id_column", "id"), text_column=None,
                         label_column=options.get("label_column", "label"),
                         entity_columns=EntityColumns(tuple(columns), vocabulary.expand_entity))
    source = DumpSource(paths["dump"], vocabulary=vocabulary)
    return assemble_table(corpus, None, source, features=spec, min_support=int(options.get("min_support", 1)))
