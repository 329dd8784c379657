"""Running a pipeline from the store alone: a run whose every stage is stored needs no orchestration.

While :data:`ONLY_STORED` is set (a :class:`contextvars.ContextVar`, so only the code that set it
is affected), :func:`store_at` gives a :class:`StoredOnly` store: it reuses a stage exactly as
:meth:`kg.store.store.Store.run` does (its files verified against the record) and raises
:class:`NotInStore` instead of computing one. The stage functions run unchanged, so every key is
computed in order from the upstream records, as in a real run (:func:`flows.pipeline.run_from_store`).

Examples
--------
>>> import tempfile
>>> root = tempfile.mkdtemp()
>>> store_at(root).run("s", {}, lambda d: ({"f": "f.txt"}, {"n": (d / "f.txt").write_text("x")}))["reused"]
False
>>> token = ONLY_STORED.set(True)
>>> store_at(root).run("s", {}, None)["reused"]
True
>>> try:
...     store_at(root).run("s", {"other": 1}, None)
... except NotInStore as e:
...     print(e)
s
>>> ONLY_STORED.reset(token)
"""

from __future__ import annotations

import os
from contextvars import ContextVar

from kg.store.store import Store

__all__ = ["ONLY_STORED", "NotInStore", "StoredOnly", "store_at"]

#: While True, :func:`store_at` gives a store that refuses to compute (:class:`StoredOnly`).
ONLY_STORED: ContextVar[bool] = ContextVar("kgfs_only_stored", default=False)


class NotInStore(LookupError):
    """A stage's result is not in the store, or does not verify (its message: the stage).

    Examples
    --------
    >>> str(NotInStore("select"))
    'select'
    """


class StoredOnly(Store):
    """A store that reuses what it holds and raises :class:`NotInStore` for anything else.

    Parameters
    ----------
    root : str or os.PathLike

    Examples
    --------
    >>> import tempfile
    >>> try:
    ...     StoredOnly(tempfile.mkdtemp()).run("table", {}, None)
    ... except NotInStore:
    ...     print("not stored")
    not stored
    """

    def run(self, stage, inputs, compute, *, force=False):
        """:meth:`kg.store.store.Store.lookup`, raising :class:`NotInStore` when not stored (nothing is written)."""
        rec = None if force else self.lookup(stage, inputs)
        if rec is None:
            raise NotInStore(stage)
        return rec


def store_at(root: str | os.PathLike) -> Store:
    """The store at ``root``: a :class:`StoredOnly` one while :data:`ONLY_STORED` is set.

    Parameters
    ----------
    root : str or os.PathLike

    Returns
    -------
    Store

    Examples
    --------
    >>> type(store_at("/s")).__name__
    'Store'
    """
    return (StoredOnly if ONLY_STORED.get() else Store)(root)
