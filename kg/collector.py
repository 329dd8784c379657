"""Python's cyclic garbage collector paused while a table's millions of small objects are built.

Building the features of a corpus makes millions of ids, tuples and sets that live on (2.1M feature ids and 1.4M
instance facts at the in-links of hubs). Each of them counts toward the collector's thresholds, and each full pass
walks every live object: measured on the hubs' corpus of ``benchmarks/bench_wikidata_scale.py --hubs``, 2.7 s of the
16.9 s of ``fetch_facts`` + ``build_hierarchy``, and 0.5 s of the 4.0 s of ``FeatureTable.from_facts`` (its lists
of the 102,953 merged cycles' members). What is built there holds no reference cycle to reclaim, so the
steps that build it run with the collector paused (reference counting still frees everything as usual), and
it runs again as before when the outermost of them returns. A source's questions run inside too (a SPARQL
endpoint's requests): the few reference cycles they may leave (a retried request's exception) wait for the end
of the step. Pausing only the in-memory parts was measured too: about 1 s slower on that corpus (a collection
then walks the millions of ids already built), so the whole step is paused.
"""

from __future__ import annotations

import gc
import threading
from contextlib import ContextDecorator

__all__ = ["collector_paused"]

_lock = threading.Lock()
_depth = 0
_was_enabled = False


class collector_paused(ContextDecorator):  # noqa: N801 (used as a decorator, named as one)
    """Pause the cyclic garbage collector for a block or a function; nested and threaded uses resume it once, when
    the last one ends, and only if it was enabled before the first.

    Examples
    --------
    >>> import gc
    >>> with collector_paused():
    ...     with collector_paused():
    ...         inside = gc.isenabled()
    ...     still = gc.isenabled()
    >>> inside, still, gc.isenabled()
    (False, False, True)
    """

    def __enter__(self):
        global _depth, _was_enabled
        with _lock:
            if _depth == 0:
                _was_enabled = gc.isenabled()
                gc.disable()
            _depth += 1
        return self

    def __exit__(self, *exc):
        global _depth
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
        return False
