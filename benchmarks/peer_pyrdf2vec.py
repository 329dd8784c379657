"""The pyRDF2Vec side of ``benchmarks/bench_nodeclass.py``: run inside the peer's own virtual environment.

Reads one JSON request (a file named on the command line), embeds the request's entities with pyRDF2Vec
(random walks + Word2Vec) and writes one JSON reply (the embeddings as lists of floats, the times and the
peak memory of this process and its walker pool). Only the standard library and pyRDF2Vec are imported:
this file never imports kgfs, and nothing is pickled across the process boundary.

Request keys: ``graph`` (an N-Triples file, ``.nt`` or ``.nt.gz``), ``entities`` (IRIs), ``skip_predicates``
(IRIs left out of the walks: the label relations), ``max_depth``, ``max_walks``, ``with_reverse``,
``vector_size``, ``epochs``, ``seed``, ``reply`` (the path of the reply).

Reply keys: ``entities`` (as requested, in order), ``embeddings`` (one list of floats per entity),
``seconds`` (``load``, ``walks``, ``embed``, ``total``), ``peak_rss_mb`` (the largest of this process, its VmHWM,
and of its children, from ``resource.getrusage``), ``import_rss_mb`` (after importing pyRDF2Vec), ``n_walks``,
``walks_sha256`` and ``embeddings_sha256`` (to compare two runs), ``versions``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import resource
import shutil
import sys
import tempfile
import time


def _rss_mb() -> float:
    """Peak resident memory of this process (and of its waited-for children, e.g. a walker pool), in MB.

    This process's own peak is ``VmHWM`` of /proc/self/status: the high-water mark of its current address space.
    ``getrusage(RUSAGE_SELF).ru_maxrss`` is not used for it: Linux carries the high-water mark of the address
    space replaced by ``exec`` into it, so a process started by a large parent reports the parent's peak (the
    benchmark's 537 MB for both kgfs and pyRDF2Vec on MUTAG, before this). Children forked without ``exec``
    start from their parent's resident set, which they share: ``RUSAGE_CHILDREN`` is right for them.
    """
    own = None
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            own = next((int(line.split()[1]) for line in fh if line.startswith("VmHWM:")), None)
    except OSError:
        pass
    if own is None:
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024.0


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: peer_pyrdf2vec.py REQUEST.json", file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as fh:
        req = json.load(fh)
    t_start = time.perf_counter()
    import gensim
    import pyrdf2vec
    from pyrdf2vec import RDF2VecTransformer
    from pyrdf2vec.embedders import Word2Vec
    from pyrdf2vec.graphs import KG
    from pyrdf2vec.walkers import RandomWalker

    import_rss = _rss_mb()
    t0 = time.perf_counter()
    graph = req["graph"]
    tmp = None
    if graph.endswith(".gz"):  # rdflib 5 (pyRDF2Vec's) does not read gzip: decompress (timed, part of loading)
        tmp = tempfile.mkdtemp(prefix="peer_pyrdf2vec_")
        plain = os.path.join(tmp, "graph.nt")
        with gzip.open(graph, "rb") as src, open(plain, "wb") as dst:
            shutil.copyfileobj(src, dst)
        graph = plain
    try:
        kg = KG(graph, fmt="nt", skip_predicates=set(req["skip_predicates"]))
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    t_load = time.perf_counter() - t0
    entities = list(req["entities"])
    transformer = RDF2VecTransformer(
        Word2Vec(vector_size=int(req["vector_size"]), epochs=int(req["epochs"]), workers=1, seed=int(req["seed"])),
        walkers=[RandomWalker(int(req["max_depth"]), int(req["max_walks"]), with_reverse=bool(req["with_reverse"]),
                              n_jobs=1, random_state=int(req["seed"]))],
        verbose=0)
    t0 = time.perf_counter()
    walks = transformer.get_walks(kg, entities)
    t_walks = time.perf_counter() - t0
    t0 = time.perf_counter()
    transformer.fit(walks)
    embeddings, _ = transformer.transform(kg, entities)
    t_embed = time.perf_counter() - t0
    reply = {
        "entities": entities,
        "embeddings": [[float(v) for v in e] for e in embeddings],
        "seconds": {"load": t_load, "walks": t_walks, "embed": t_embed,
                    "total": time.perf_counter() - t_start},
        "peak_rss_mb": _rss_mb(),
        "import_rss_mb": import_rss,
        "n_walks": int(sum(len(w) for w in walks)),
        # fingerprints of the walks and of the embeddings: two runs with one seed can be compared
        "walks_sha256": hashlib.sha256(json.dumps(walks).encode("utf-8")).hexdigest(),
        "embeddings_sha256": hashlib.sha256(json.dumps([[float(v) for v in e] for e in embeddings]).encode(
            "utf-8")).hexdigest(),
        "versions": {"pyrdf2vec": getattr(pyrdf2vec, "__version__", "?"), "gensim": gensim.__version__,
                     "python": sys.version.split()[0]},
    }
    with open(req["reply"], "w", encoding="utf-8") as fh:
        json.dump(reply, fh)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
