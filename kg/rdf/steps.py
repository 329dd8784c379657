"""The stored steps of the RDF route (:class:`kg.rdf.route.CorpusInput`): ``annotate`` and ``fetch``.

:class:`AnnotateStep` links the corpus's texts to entities in batches of texts (``annotate-batch``)
and merges them in corpus order; :class:`FetchStep` asks the knowledge source for the entities'
direct types or categories in batches (``fetch-batch``), then for the hierarchy above them. Calls to
Spotlight and SPARQL happen only in the batches, which the pipeline runs a few at a time and retries
when :func:`is_transient` says the error may pass. Each step's payload is a JSON file
(:func:`write_json`, read back by :func:`read_payload`).

Examples
--------
>>> AnnotateStep.name, AnnotateStep.batch_name, FetchStep.needs
('annotate', 'annotate-batch', ('annotate',))
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import KgfsError
from kg.routes.base import BatchedStep, Context, Input

if TYPE_CHECKING:
    from kg.store import Record

__all__ = ["AnnotateStep", "FetchStep", "is_transient", "read_facts", "read_payload", "write_json"]


def is_transient(exc: BaseException | None) -> bool:
    """Whether a failed batch may succeed later: the service unreachable, a timeout, HTTP 5xx/429.

    The Spotlight and SPARQL clients already retry each request a few times; this decides whether
    the whole batch is worth retrying after a longer wait. Bad input is not, nor a request that
    ran out of its time allowed (:class:`~kg.errors.DeadlineError`: the time a batch may take is
    bounded, and the pipeline's retries would multiply it).

    Parameters
    ----------
    exc : exception or None

    Returns
    -------
    bool

    Examples
    --------
    >>> from kg.rdf.annotators.spotlight import SpotlightError
    >>> is_transient(TimeoutError()), is_transient(SpotlightError("Spotlight unavailable: HTTP 503"))
    (True, True)
    >>> is_transient(SpotlightError("HTTP 400 Bad Request")), is_transient(ValueError("x"))
    (False, False)
    >>> from kg.errors import DeadlineError
    >>> is_transient(DeadlineError("SPARQL endpoint timed out 3 time(s)"))
    False
    """
    import requests

    from kg.errors import DeadlineError
    from kg.rdf.annotators.spotlight import SpotlightError
    from kg.rdf.sources.sparql_protocol import SourceUnavailableError

    if isinstance(exc, DeadlineError):
        return False
    if isinstance(exc, (SourceUnavailableError, ConnectionError, TimeoutError, requests.ConnectionError,
                        requests.Timeout)):
        return True
    msg = str(exc).lower()
    return isinstance(exc, SpotlightError) and any(w in msg for w in ("unavailable", "timed out", "timeout",
                                                                      "connection", "429", " 5"))


def read_payload(record: Record, role: str):
    """The JSON payload of a step's file ``role`` (written by :func:`write_json`)."""
    return json.loads(record.path(role).read_text(encoding="utf-8"))


def read_facts(record: Record) -> dict:
    """The fetch step's payload (:func:`kg.rdf.stored.fetch_hierarchy`'s, its ``per_entity`` and ``edges`` stored
    packed: :func:`kg.rdf.stored.pack_facts`, the edges' positions in ``edges.npy``; the counts' ``groups``:
    :func:`kg.rdf.stored.pack_groups`)."""
    import numpy as np

    from kg.rdf.stored import unpack_facts, unpack_groups

    payload = read_payload(record, "facts")
    try:
        positions = np.load(record.path("edges"), allow_pickle=False)
        payload["per_entity"], payload["edges"] = unpack_facts(payload.pop("packed"), positions)
    except ValueError as exc:  # no .npy array, or positions that do not fit the ids
        raise KgfsError(f"{record.path('edges')}: {exc}") from None
    if "groups" in payload:
        payload["groups"] = unpack_groups(payload["groups"])
    return payload


def write_json(path: Path, obj) -> None:
    """A step's payload as compact JSON with sorted keys (the C encoder: the facts of a corpus are megabytes),
    written atomically."""
    from kg.files import atomic_write

    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    atomic_write(path, lambda tmp: tmp.write_text(text + "\n", encoding="utf-8"))


def write_array(path: Path, arr) -> None:
    """A step's array as ``.npy`` (no pickled objects), written atomically."""
    import numpy as np

    from kg.files import atomic_write

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:  # a path without the suffix would get ".npy" added
            np.save(fh, np.ascontiguousarray(arr), allow_pickle=False)

    atomic_write(path, write)


class AnnotateStep(BatchedStep):
    """Entity linking in batches of ``ctx.batch_size`` texts, merged in corpus order (``entities.json``)."""

    name, batch_name = "annotate", "annotate-batch"

    def __init__(self, inp: Input, ctx: Context):  # inp: the CorpusInput
        self.inp, self.ctx = inp, ctx

    def batches(self, up):
        from kg.rdf.stored import corpus_batches

        return [{"start": a, "stop": b} for a, b in corpus_batches(len(self.inp.read_corpus()), self.ctx.batch_size)]

    def batch_label(self, batch):
        return f"annotate {batch['start']}-{batch['stop']}"

    def batch_key(self, up, batch):
        return {"corpus": self.inp.corpus.sha256, "range": [int(batch["start"]), int(batch["stop"])],
                **self.inp.annotator_inputs(), "columns": self.inp._columns()}

    def compute_batch(self, folder, up, batch):
        from kg.rdf.stored import annotate_batch

        corpus = self.inp.read_corpus()
        annotator = None if corpus.entities is not None else self.inp.make_annotator(self.ctx)
        payload, summary = annotate_batch(corpus, batch["start"], batch["stop"], annotator)
        write_json(folder / "entities.json", payload)
        return {"entities": "entities.json"}, summary

    def key(self, up):
        return {"batches": [b.hash for b in up["batches"]], "corpus": self.inp.corpus.sha256}

    def compute(self, folder, up):
        from kg.rdf.stored import merge_annotations

        payload, summary = merge_annotations(read_payload(b, "entities") for b in up["batches"])
        write_json(folder / "entities.json", payload)
        return {"entities": "entities.json"}, summary

    def transient(self, exc):
        return is_transient(exc)


class FetchStep(BatchedStep):
    """The entities' direct types or categories in batches, then the hierarchy above them (``facts.json``)."""

    name, batch_name, needs = "fetch", "fetch-batch", ("annotate",)

    def __init__(self, inp: Input, ctx: Context):  # inp: the CorpusInput
        self.inp, self.ctx = inp, ctx

    def batches(self, up):
        from kg.rdf.stored import entity_batches

        annotations = read_payload(up["annotate"], "entities")
        if self.inp.spec().paths:  # pruned by their support over every instance: one batch, each entity weighed
            from kg.rdf.table import entity_weights

            weights = entity_weights({str(i): e for i, e in enumerate(annotations["entities"])})
            return [{"entities": sorted(weights), "weights": weights}]
        return [{"entities": b} for b in entity_batches(annotations, self.ctx.batch_size)]

    def batch_key(self, up, batch):
        entities = sorted(batch["entities"])
        key = {"entities": hashlib.sha256("\n".join(entities).encode()).hexdigest(), **self.inp.source_inputs()}
        if "weights" in batch:
            key["weights"] = hashlib.sha256(" ".join(str(batch["weights"][e]) for e in entities).encode()).hexdigest()
        return key

    def compute_batch(self, folder, up, batch):
        from kg.rdf.stored import fetch_features, pack_facts, pack_groups

        spec, source, entities = self.inp.spec(), self.inp.make_source(self.ctx), sorted(batch["entities"])
        weights = batch.get("weights")
        payload, summary = fetch_features(source, entities, spec, weights=weights)
        write_json(folder / "facts.json", pack_facts(payload)[0])  # each feature id once
        if not spec.counts:
            return {"facts": "facts.json"}, summary
        write_json(folder / "groups.json", pack_groups(spec.groups(source, entities, weights=weights)))  # the counts
        return {"facts": "facts.json", "groups": "groups.json"}, summary

    def _depth(self):
        return 2 if self.inp.category_depth is None else self.inp.category_depth

    def key(self, up):
        return {"batches": [b.hash for b in up["batches"]], **self.inp.source_inputs(), "category_depth": self._depth()}

    def compute(self, folder, up):
        from kg.rdf.kinds import merge_reports
        from kg.rdf.stored import fetch_hierarchy, pack_facts, pack_groups, unpack_facts, unpack_groups

        per: dict[str, list[str]] = {}
        for b in up["batches"]:
            per.update(unpack_facts(read_payload(b, "facts"))[0])
        payload, summary = fetch_hierarchy(self.inp.make_source(self.ctx), per, self.inp.spec())
        payload["packed"], positions = pack_facts(payload.pop("per_entity"), payload.pop("edges"))  # read_facts
        if self.inp.spec().uses_relations:
            payload["relations"] = merge_reports(b.summary.get("relations", {}) for b in up["batches"])
        if self.inp.spec().counts:
            payload["groups"] = pack_groups({e: g for b in up["batches"]
                                             for e, g in unpack_groups(read_payload(b, "groups")).items()})
        if self.inp.bridge == "same-as":
            payload["entities_without_link"] = sorted(e for b in up["batches"]
                                                      for e in b.summary.get("entities_without_link", ()))
        write_json(folder / "facts.json", payload)
        write_array(folder / "edges.npy", positions)
        return {"facts": "facts.json", "edges": "edges.npy"}, summary

    def transient(self, exc):
        return is_transient(exc)
