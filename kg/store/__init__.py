"""The content-addressed stage store (:mod:`kg.store.store`), its records (:mod:`kg.store.records`) and what its
keys are made of (:mod:`kg.store.keys`).

A result worth keeping (a route's step, a selection, an evaluation) lives in a folder named by a
hash of its inputs' contents, its parameters and the source of the code that computes it, with a
:class:`Record` written last. It is part of the library because :mod:`selection.evaluation`'s
grid keys its resumable cells with :func:`code_digest`, and a route's steps can be cached without
the application (:func:`kg.routes.build_table`); ``kgfs run`` keeps its stages in
``<kgfs home>/store``.
"""

from kg.store.keys import code_digest, code_version
from kg.store.records import (
           Record,
           StoreProblem,
           content_sha256,
           record_problems,
           record_valid,
           stage_key,
           to_json,
           write_json,
)
from kg.store.store import Store

__all__ = ["Record", "Store", "StoreProblem", "code_digest", "code_version", "content_sha256", "record_problems",
           "record_valid", "stage_key", "to_json", "write_json"]
