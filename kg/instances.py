"""A dataset as its instances: entities, labels and a fixed split, with the knowledge source their features come from.

A :class:`~kg.table.FeatureTable` is the features already generated, with one ``min_support`` over every
instance. An evaluation that tunes the generation itself (``min_support``, a path depth) must generate the
features inside each fit, from the training rows only, so that nothing of the test part decides which
features exist: it needs the instances and the graph, not a table. :class:`EntityDataset` is that: the
column of entities a :class:`~kg.features.KGFeatures` reads, the labels, the split (which instance is
``train``, which is ``test``), the source, and the KGFeatures parameters of the dataset
(``features_params``), plus the grid of generation settings its evaluation tunes. (A KGFeatures is
``KGFeatures(d.source, input="entities", **d.features_params)``; :func:`selection.evaluation.split.kg_features`
makes one; this module imports no estimator.)

:func:`kg.datasets.load_instances` gives the one of a registry dataset (``nodeclass/aifb``); any column of
entities and any source make one too.

Examples
--------
>>> import rdflib
>>> g = rdflib.Graph().parse(format="turtle", data='''
... @prefix dbo: <http://dbpedia.org/ontology/> . @prefix dbr: <http://dbpedia.org/resource/> .
... dbr:Kobe a dbo:BasketballPlayer . dbr:Messi a dbo:SoccerPlayer . dbr:Lyon a dbo:City .''')
>>> d = EntityDataset("toy", ["k", "m", "l"], ["http://dbpedia.org/resource/" + e for e in ("Kobe", "Messi", "Lyon")],
...                   ["sport", "sport", "city"], source=g, split=["train", "train", "test"])
>>> d.split_counts(), d.train_test()[1].tolist()
({'train': 2, 'test': 1}, [2])
>>> from kg.features import KGFeatures
>>> KGFeatures(d.source, **d.features_params).fit(d.entities[:2]).get_feature_names_out().tolist()
['http://dbpedia.org/ontology/BasketballPlayer', 'http://dbpedia.org/ontology/SoccerPlayer']
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence

import numpy as np

from kg.errors import KgfsError

__all__ = ["EntityDataset", "SPLIT_VALUES"]

#: The values of a split column: the rows a model is tuned and fitted on, and those it is scored on once.
SPLIT_VALUES = ("train", "test")


class EntityDataset:
    """Instances of a classification task as entities of a knowledge graph (see the module).

    Parameters
    ----------
    name : str
    ids : sequence of str
        Instance ids (unique).
    entities : sequence
        One value per instance, what :class:`~kg.features.KGFeatures` reads (an IRI, a short id, a text).
    y : sequence
        One label per instance.
    source : KnowledgeSource or rdflib.Graph
        The source of the features (shared by every KGFeatures this dataset makes).
    split : sequence of {"train", "test"}, optional
        The fixed split (None: the dataset has none).
    features_params : mapping, optional
        :class:`~kg.features.KGFeatures` parameters of the dataset (``features``, ``direction``,
        ``exclude_properties``, ``min_support``, ...; not ``source``).
    generation_grid : mapping of str -> list, optional
        KGFeatures parameters and the values an evaluation tunes them over (``{"min_support": [1, 2, 3]}``).
    provenance : mapping, optional
        What the instances and the source were read from (file hashes): part of :meth:`fingerprint`.

    Attributes
    ----------
    y : ndarray
    split : ndarray of str or None
    """

    def __init__(self, name: str, ids: Sequence[str], entities: Sequence, y: Sequence, *, source,
                 split: Sequence[str] | None = None, features_params: Mapping | None = None,
                 generation_grid: Mapping[str, Sequence] | None = None, provenance: Mapping | None = None):
        self.name = str(name)
        self.ids = tuple(str(i) for i in ids)
        self.entities = list(entities)
        self.y = np.asarray(list(y))
        self.source = source
        n = len(self.ids)
        if len(self.entities) != n or len(self.y) != n:
            raise KgfsError(f"dataset {name!r}: {n} ids, {len(self.entities)} entities and {len(self.y)} labels")
        if len(set(self.ids)) != n:
            raise KgfsError(f"dataset {name!r}: duplicate instance ids")
        if split is not None:
            split = np.asarray([str(s).strip().lower() for s in split], dtype=object)
            if len(split) != n:
                raise KgfsError(f"dataset {name!r}: {len(split)} split values for {n} instances")
            bad = sorted(set(split.tolist()) - set(SPLIT_VALUES))
            if bad:
                raise KgfsError(f"dataset {name!r}: split values must be train or test, got "
                                f"{', '.join(map(repr, bad))}")
            for part in SPLIT_VALUES:
                if not (split == part).any():
                    raise KgfsError(f"dataset {name!r}: the split has no {part} instance")
        self.split = split
        self.features_params = dict(features_params or {})
        self.generation_grid = {k: list(v) for k, v in (generation_grid or {}).items()}
        self.provenance = dict(provenance or {})

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        split = f", split={self.split_counts()}" if self.split is not None else ""
        return f"EntityDataset({self.name!r}, {len(self)} instances{split})"

    # ------------------------------------------------------------------ the split
    @property
    def has_split(self) -> bool:
        """Whether the dataset carries a fixed train/test split."""
        return self.split is not None

    def split_counts(self) -> dict[str, int]:
        """Instances of each part of the split.

        Returns
        -------
        dict
            ``{"train": n, "test": m}``.
        """
        self._need_split()
        return {p: int((self.split == p).sum()) for p in SPLIT_VALUES}

    def train_test(self) -> tuple[np.ndarray, np.ndarray]:
        """The row positions of the training part and of the test part, in dataset order.

        Returns
        -------
        (ndarray, ndarray)

        Raises
        ------
        KgfsError
            The dataset has no split.
        """
        self._need_split()
        return np.flatnonzero(self.split == "train"), np.flatnonzero(self.split == "test")

    def _need_split(self) -> None:
        if self.split is None:
            raise KgfsError(f"dataset {self.name!r} has no fixed train/test split (a split column, "
                            "e.g. the registry option split_column)")

    # ------------------------------------------------------------------ the features
    def with_generation_grid(self, grid: Mapping[str, Sequence]) -> EntityDataset:
        """The same dataset with another grid of generation settings.

        Parameters
        ----------
        grid : mapping of str -> list

        Returns
        -------
        EntityDataset
        """
        return EntityDataset(self.name, self.ids, self.entities, self.y, source=self.source,
                             split=None if self.split is None else self.split.tolist(),
                             features_params=self.features_params, generation_grid=grid, provenance=self.provenance)

    def fingerprint(self) -> str:
        """A short content hash of the instances, labels, split, feature parameters and provenance.

        Returns
        -------
        str
            16 hexadecimal digits (an evaluation's cell keys).
        """
        payload = {"ids": self.ids, "entities": [str(e) for e in self.entities], "y": [str(v) for v in self.y],
                   "split": None if self.split is None else self.split.tolist(),
                   "features": self.features_params, "provenance": self.provenance}
        text = json.dumps(payload, sort_keys=True, default=str)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
