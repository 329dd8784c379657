"""Wikidata at dump scale: the ingest against pyoxigraph's bare parse and ``lbzip2 -dc``, and the cost per corpus.

Generates (seeded, cached in ``--data``) a Wikidata-truthy-shaped dump of about N triples, one
``latest-truthy.nt.bz2`` like the real file, in the proportions of the real truthy dump per item:

- classes (one item in 30) ordered by ``wdt:P279``: a layered graph where a class has 1-3 parents
  among older classes (about 1.7 on average, as the real graph's 5M edges over 3M classes), and for
  0.5% of the classes one parent is also made its subclass (cycles, as the real graph has), every
  class with an English label;
- ``wdt:P31``: 1.2 classes per item on average, Zipf-distributed (one class, "human", takes a large
  share, as Q5 does);
- labels in 11 languages (English for 90% of the items, 3 others on average), English aliases
  (``skos:altLabel``) for 20% of the items, aliases in other languages, ``schema:description``
  in 3 languages on average;
- sitelinks: 40% of the items have Wikipedia articles (Zipf-distributed counts), each written as
  the dump writes it, four triples (``schema:about``, ``schema:isPartOf``, ``schema:inLanguage``,
  ``schema:name``);
- 7 other statements per item over 3,000 properties (Zipf), objects items (60%) or literals
  (strings, dates, quantities): the relations (``wdt:`` lines with an item object, between items
  drawn uniformly) and the literal-valued ``wdt:`` lines the line filter skips;
- ``wdt:P1647`` (subproperty of) edges between 5% of the properties and more used ones (as the
  dump writes them: between the property entities ``wd:P...``), a few both ways (cycles).

About 17% of the lines hold a predicate the ``wikidata`` preset reads in English (``P31``,
``P279``, English ``rdfs:label``/``skos:altLabel``, ``schema:about``): more than in the real dump
(about 5%), so the filter has more to parse here than there. Each measurement runs in a fresh child
process (wall time, peak RSS from ``VmHWM``):

- ``lbzip2 -dc`` of the file to ``/dev/null``: the decompression floor;
- pyoxigraph's bare parse of the same file, decompressed by ``lbzip2 -dc`` beside it, every quad
  touched once: the baseline (goal: the ingest within 2x of it);
- the ingest with the ``wikidata`` preset (``DumpIndex.ingest``: one pass into a segment, then the
  lexicon of English labels and aliases with the sitelink prior): time, peak RSS (goal <= 2 GB at
  every size, flat from 20M to 100M triples), index size;
- a new corpus of 10,000 real tweets (``../shared/data/tweets``) with English labels of items
  injected (Zipf over the items with sitelinks), through the route's steps (``kg.routes.build_table``:
  lexicon annotation, then P31 + P279 types from the index): time (goal < 10 s at 100M) and peak RSS.

With ``--relations`` (issue 25), the same run also measures:

- the line filter alone over the first 256 MB of the decompressed dump, with the ``wikidata``
  preset and with ``wikidata.with_relations()`` (which also keeps the ``wdt:`` lines with an IRI
  object): seconds and lines kept, and the ratio;
- the ingest with ``wikidata.with_relations()`` (into its own index): time, peak RSS and size,
  against the ingest above;
- a new corpus of 10,000 items drawn uniformly, from that index (a fresh process): their relations
  both ways (``IndexSource.relations``), the types of the other ends and the classes above them,
  and the subproperty edges above the properties met; then, each in a fresh process, the route's
  ``kg.rdf.table.fetch_facts`` + ``build_hierarchy`` for ``qualified-relations`` (out, both)
  and ``types qualified-relations`` (both): time and peak RSS (issue 25's goal for qualified-relation
  features: < 10 s and < 1.5 GB at 20M).

Results are kept in ``--results`` (one entry per size), so sizes can be run one at a time; the
load average is printed with each size (timings on a loaded machine are noisy).

    python benchmarks/bench_wikidata_scale.py --sizes 20M [50M 100M] [--relations] [--data DIR] [--results FILE]
    python benchmarks/bench_wikidata_scale.py --sizes 20M --reading   # issue 39 point 1: .nt and .bz2 ingest ratios
    python benchmarks/bench_wikidata_scale.py --sizes 20M --cluster   # issue 39 point 3: 1 and 2 workers, Dask
    python benchmarks/bench_wikidata_scale.py --sizes 20M --hubs [--baseline REV]   # issue 39 point 2: hubs; the
        # features and hierarchy (generic path, relation_tally, a baseline revision) and the whole table (both)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_dbpedia_scale import Bz2Out, old_checkout, vocabulary, zipf  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("KGFS_SHARED_DATA", ROOT.parent / "shared" / "data"))
WD, WDT = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
LABEL, ALT = "<http://www.w3.org/2000/01/rdf-schema#label>", "<http://www.w3.org/2004/02/skos/core#altLabel>"
DESC = "<http://schema.org/description>"
ABOUT, PART, LANG, NAME = ("<http://schema.org/about>", "<http://schema.org/isPartOf>",
                           "<http://schema.org/inLanguage>", "<http://schema.org/name>")
XSD = "http://www.w3.org/2001/XMLSchema#"
LANGS = ["de", "fr", "es", "it", "nl", "ru", "ja", "zh", "pt", "pl"]
GENERATOR_VERSION = 4  # 4: wdt:P1647 edges between the properties
TRIPLES_PER_ITEM = 20.5  # the expected lines per item of the proportions above


def lit(s: str, lang: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + f'"@{lang}'


def _names(rng, words: list[str], perm, n: int, start: int) -> list[str]:
    """Item names: 1-4 words (Zipf), capitalised; one in 97 a single word; one in 5 numbered (ambiguity)."""
    k = rng.choice(np.array([1, 2, 2, 2, 3, 3, 4]), n)
    w = zipf(rng, len(words), int(k.sum()), 0.9)
    cap = [words[perm[x]].capitalize() for x in w.tolist()]
    ends = np.cumsum(k).tolist()
    out, a = [], 0
    for i, e in enumerate(ends):
        j = start + i
        name = " ".join(cap[a:e]) if j % 97 else words[perm[j % len(words)]].capitalize()
        out.append(name + f" {j % 1000}" if j % 5 == 0 else name)
        a = e
    return out


def subproperty_lines(prng: random.Random) -> list[str]:
    """``wdt:P1647`` (subproperty of) edges between the statements' properties, as the truthy dump writes them
    (between the property entities ``wd:P...``): one property in 20 has 1-2 parents among the more used ones
    (lower numbers), and one of those edges in 50 is also made the other way round (a cycle)."""
    lines = []
    for p in range(3, 3002):
        if p in (31, 279) or prng.random() >= 0.05:
            continue
        for q in sorted({2 + int((p - 2) * prng.random() ** 2) for _ in range(prng.choice([1, 1, 2]))} - {p, 31, 279}):
            lines.append(f"<{WD}P{p}> <{WDT}P1647> <{WD}P{q}> .\n")
            if prng.random() < 0.02:
                lines.append(f"<{WD}P{q}> <{WDT}P1647> <{WD}P{p}> .\n")
    return lines


def generate(d: Path, n: int, seed: int = 0, hubs: bool = False) -> dict:
    """Write ``latest-truthy.nt.bz2`` of about ``n`` triples into ``d``; returns its description.

    ``hubs``: the relations' objects Zipf-distributed over the items (exponent 1: the first item receives about 7%
    of the relation triples at 20M, as Wikidata's top item does) instead of uniform.

    Items are made in chunks with NumPy; each item's lines are written together, as the dump groups them.
    """
    d.mkdir(parents=True, exist_ok=True)
    rng, prng = np.random.default_rng(seed), random.Random(seed)
    n_items = max(1000, int(n / TRIPLES_PER_ITEM))
    n_classes = max(200, n_items // 30)
    words = vocabulary()
    perm = rng.permutation(len(words))
    out = Bz2Out(d / "latest-truthy.nt.bz2")
    # the classes: Q1 .. Qc (Q1 the most used: "human"), parents among older classes
    lines = []
    for c in range(1, n_classes + 1):
        s = f"<{WD}Q{c}>"
        name = " ".join(words[perm[w]] for w in zipf(rng, len(words), prng.choice([1, 2, 2, 3]), 0.9)) + " class"
        lines.append(f"{s} {LABEL} {lit(name, 'en')} .\n")
        lines.append(f"{s} {LABEL} {lit(name + ' ' + LANGS[c % 10], LANGS[c % 10])} .\n")
        if c > 1:
            parents = sorted({1 + int((c - 1) * prng.random() ** 2) for _ in range(prng.choice([1, 1, 2, 2, 3]))})
            for p in parents:
                lines.append(f"{s} <{WDT}P279> <{WD}Q{p}> .\n")
            if prng.random() < 0.005:  # a cycle: a parent also made a subclass of this class
                lines.append(f"<{WD}Q{parents[-1]}> <{WDT}P279> {s} .\n")
        if len(lines) > 100_000:
            out.write(lines)
            lines = []
    out.write(lines)
    base, names, popular = n_classes + 1, [], []
    chunk = 100_000
    for a in range(0, n_items, chunk):
        m = min(chunk, n_items - a)
        idx = np.arange(a, a + m)
        q = base + idx
        nm = _names(rng, words, perm, m, a)
        names += nm
        subj = [f"<{WD}Q{x}>" for x in q.tolist()]
        parts: list[tuple[np.ndarray, list[str]]] = []  # (item of each line, the lines), merged by item

        def add(items: np.ndarray, made: list[str]) -> None:
            parts.append((np.asarray(items, np.int64), made))

        n_p31 = rng.poisson(1.2, m)
        it = np.repeat(np.arange(m), n_p31)
        cls = zipf(rng, n_classes, len(it), 1.1) + 1
        add(it, [f"{subj[i]} <{WDT}P31> <{WD}Q{c}> .\n" for i, c in zip(it.tolist(), cls.tolist())])
        it = np.flatnonzero(idx % 10 != 0)
        add(it, [f"{subj[i]} {LABEL} {lit(nm[i], 'en')} .\n" for i in it.tolist()])
        n_other = np.minimum(rng.poisson(3.0, m), 10)
        it = np.repeat(np.arange(m), n_other)
        first = np.repeat(rng.integers(0, 10, m), n_other)
        step = np.arange(len(it)) - np.repeat(np.cumsum(n_other) - n_other, n_other)
        lang = [LANGS[x] for x in ((first + step) % 10).tolist()]
        add(it, [f"{subj[i]} {LABEL} {lit(nm[i] + ' (' + g + ')', g)} .\n" for i, g in zip(it.tolist(), lang)])
        it = np.flatnonzero(idx % 5 == 1)
        n_alt = rng.choice(np.array([1, 1, 2, 3]), len(it))
        rep = np.repeat(it, n_alt)
        k = np.arange(len(rep)) - np.repeat(np.cumsum(n_alt) - n_alt, n_alt)
        add(rep, [f"{subj[i]} {ALT} {lit(nm[i].split()[0] + ' ' + str(j), 'en')} .\n"
                  for i, j in zip(rep.tolist(), k.tolist())])
        other = rng.integers(0, 10, len(it))
        add(it, [f"{subj[i]} {ALT} {lit(nm[i].lower(), LANGS[g])} .\n" for i, g in zip(it.tolist(), other.tolist())])
        n_desc = np.minimum(rng.poisson(3.0, m), 4)
        it = np.repeat(np.arange(m), n_desc)
        k = np.arange(len(it)) - np.repeat(np.cumsum(n_desc) - n_desc, n_desc)
        dl = np.where(k == 0, -1, (np.repeat(rng.integers(0, 10, m), n_desc) + k) % 10)
        add(it, [f"{subj[i]} {DESC} {lit('item of some kind ' + str((a + i) % 100), 'en' if g < 0 else LANGS[g])} .\n"
                 for i, g in zip(it.tolist(), dl.tolist())])
        links = np.minimum(np.where(rng.random(m) < 0.4, 1 + rng.geometric(0.4, m), 0), 22)
        popular += (a + np.flatnonzero(links)).tolist()
        it = np.repeat(np.arange(m), links)
        k = np.arange(len(it)) - np.repeat(np.cumsum(links) - links, links)
        site = ["en", *LANGS] * 2
        pages = [(i, site[j], f"<https://{site[j]}.wikipedia.org/wiki/{nm[i].replace(' ', '_')}_{a + i}>")
                 for i, j in zip(it.tolist(), k.tolist())]
        add(np.repeat(it, 4), [x for i, g, page in pages for x in (
            f"{page} {ABOUT} {subj[i]} .\n", f"{page} {PART} <https://{g}.wikipedia.org/> .\n",
            f'{page} {LANG} "{g}" .\n', f"{page} {NAME} {lit(nm[i], g)} .\n")])
        n_stmt = rng.poisson(7.0, m)
        it = np.repeat(np.arange(m), n_stmt)
        props = zipf(rng, 3000, len(it), 1.0) + 2
        props = np.where(props >= 31, props + 1, props)  # never P31
        props = np.where(props >= 279, props + 1, props)  # never P279
        props = np.where(props >= 1647, props + 1, props)  # never P1647 (the properties' subproperty-of)
        kind = rng.integers(0, 5, len(it))
        targets = (base + zipf(rng, n_items, len(it), 1.0)) if hubs else rng.integers(base, base + n_items, len(it))
        add(it, [f"{subj[i]} <{WDT}P{p}> " + (f"<{WD}Q{t}>" if v < 3 else
                                                f'"{1800 + t % 220}-0{1 + t % 9}-1{t % 9}T00:00:00Z"^^<{XSD}dateTime>'
                                                if v == 3 else f'"{t % 10007}"^^<{XSD}decimal>') + " .\n"
                 for i, p, v, t in zip(it.tolist(), props.tolist(), kind.tolist(), targets.tolist())])
        items = np.concatenate([p[0] for p in parts])
        made = [x for p in parts for x in p[1]]
        out.write([made[k] for k in np.argsort(items, kind="stable").tolist()])
    out.write([f"<{WD}P{p}> {LABEL} {lit('property ' + str(p), 'en')} .\n" for p in range(1, 3002)])
    out.write(subproperty_lines(prng))
    triples = out.close()
    (d / "names.txt").write_text("\n".join(names) + "\n", encoding="utf-8")
    np.save(d / "popular.npy", np.asarray(popular, np.int64))
    meta = {"version": GENERATOR_VERSION, "n": n, "seed": seed, "hubs": hubs, "triples": triples, "items": n_items,
            "classes": n_classes, "bytes": (d / "latest-truthy.nt.bz2").stat().st_size}
    (d / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    return meta


def dumps_for(data: Path, n: int, hubs: bool = False) -> Path:
    d = data / (f"wikidata-hubs-{n}" if hubs else f"wikidata-{n}")
    meta = d / "meta.json"
    if not (meta.is_file() and json.loads(meta.read_text())["version"] == GENERATOR_VERSION):
        shutil.rmtree(d, ignore_errors=True)
        t = time.perf_counter()
        info = generate(d, n, hubs=hubs)
        print(f"generated {info['triples']:,} triples ({info['bytes'] / 1e6:.0f} MB bz2) in "
              f"{time.perf_counter() - t:.0f} s -> {d}", flush=True)
    return d


def corpus(d: Path) -> Path:
    """10,000 real tweets with English labels of items injected (Zipf over the items with sitelinks)."""
    sys.path.insert(0, str(ROOT))
    from kg.rdf.corpus import read_sports_tweets

    path = d / "corpus.tsv"
    if path.is_file():
        return path
    train = read_sports_tweets(SHARED / "tweets" / "training.txt")
    texts = train.texts + read_sports_tweets(SHARED / "tweets" / "test.txt").texts
    labels = train.labels + ["Unknown"] * (len(texts) - len(train))
    names = (d / "names.txt").read_text(encoding="utf-8").splitlines()
    popular = np.load(d / "popular.npy")
    popular = popular[np.asarray([i % 10 != 0 for i in popular.tolist()], bool)]  # those with an English label
    rng, prng = np.random.default_rng(7), random.Random(7)
    pick = rng.permutation(len(texts))[:10_000]
    mention = popular[zipf(rng, len(popular), 30_000, 0.9)]
    rows = []
    for i, t in enumerate(pick.tolist()):
        words = " ".join(texts[t].split()).split(" ")
        for j in range(prng.choice([1, 1, 2, 3])):
            words.insert(prng.randint(0, len(words)), names[mention[(3 * i + j) % len(mention)]])
        rows.append((f"t{i}", " ".join(words), labels[t]))
    path.write_text("id\ttext\tlabel\n" + "".join(f"{a}\t{b}\t{c}\n" for a, b, c in rows), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- measurements (child processes)
CHILD = r"""
import json, resource, subprocess, sys, time
sys.path.insert(0, {root!r})
mode, args = sys.argv[1], json.loads(sys.argv[2])
out = {{}}


def corpus_items(args):
    # the corpus of "fetch" and "table": the `top` most linked items (--hubs: the first ones, in the corpus as in
    # real ones) and the rest of 10,000 drawn uniformly (seed 11, as "relations")
    import numpy as np
    from kg.rdf.vocabulary import WD
    rng = np.random.default_rng(11)
    top = args.get("top", 0)
    pick = rng.choice(np.arange(top, args["items"]), 10_000 - top, replace=False)
    return [f"{{WD}}Q{{q}}" for q in (args["first_item"] + np.concatenate([np.arange(top), pick])).tolist()]


def table_fingerprint(table):
    # the table's cells, hierarchy and feature ids, as one digest (and its canonical matrix)
    import hashlib
    import numpy as np
    x = table.X.tocsr()
    x.sort_indices()
    c, p = table.hierarchy.edges
    digest = hashlib.sha256()
    for a in (x.indptr, x.indices, c, p):
        digest.update(np.ascontiguousarray(a, np.int64).tobytes())
    digest.update("\n".join(table.feature_names).encode())
    return x, digest.hexdigest()


t = time.perf_counter()
if mode == "lbzip2":
    subprocess.run(["lbzip2", "-dc", args["dump"]], stdout=subprocess.DEVNULL, check=True)
    out = {{"seconds": time.perf_counter() - t}}
elif mode == "parse":
    import pyoxigraph as ox
    proc = subprocess.Popen(["lbzip2", "-dc", args["dump"]], stdout=subprocess.PIPE)
    n = 0
    for q in ox.parse(input=proc.stdout, format=ox.RdfFormat.N_TRIPLES):
        n += 1
    proc.wait()
    out = {{"triples": n, "seconds": time.perf_counter() - t}}
elif mode == "parse_nt":
    import pyoxigraph as ox
    n = 0
    for q in ox.parse(path=args["dump"], format=ox.RdfFormat.N_TRIPLES):
        n += 1
    out = {{"triples": n, "seconds": time.perf_counter() - t}}
elif mode == "filter":
    from kg.rdf.index.ingest import line_filter
    from kg.rdf.vocabulary import WIKIDATA
    proc = subprocess.Popen(["lbzip2", "-dc", args["dump"]], stdout=subprocess.PIPE)
    data = proc.stdout.read(args["bytes"])
    proc.kill()
    proc.wait()
    blocks, rest, step = [], b"", 8 << 20  # as the reader cuts them (kg.rdf.lineblocks.BLOCK)
    for a in range(0, len(data), step):
        chunk = rest + data[a:a + step]
        cut = chunk.rfind(b"\n") + 1
        blocks.append(chunk[:cut])
        rest = chunk[cut:]
    del data
    for name, vocabulary in (("types", WIKIDATA), ("relations", WIKIDATA.with_relations())):
        best = None
        for _ in range(args["repeat"]):
            f = line_filter(vocabulary)
            t0 = time.perf_counter()
            for b in blocks:
                f.keep(b)
            best = min(best or 1e9, time.perf_counter() - t0)
        out[name] = {{"seconds": best, "seen": f.seen, "kept": f.kept}}
    out["bytes"] = sum(map(len, blocks))
elif mode == "ingest":
    if args.get("one_process"):  # as before issue 39: the line filter in the ingesting process
        import kg.rdf.dumpfiles
        kg.rdf.dumpfiles.FILTER_PROCESS_MIN_BYTES = 1 << 62
    from kg.rdf.index.dumpindex import DumpIndex
    from kg.rdf.vocabulary import WIKIDATA
    vocabulary = WIKIDATA.with_relations() if args.get("relations") else WIKIDATA
    index = DumpIndex(args["index"])
    segs = index.segments(args["dump"], vocabulary=vocabulary)
    t1 = time.perf_counter()
    report = index.ingest(args["dump"], vocabulary=vocabulary)
    f = report["files"][0]
    out = {{"seconds": time.perf_counter() - t, "segments_seconds": t1 - t, "lexicon_seconds": time.perf_counter() - t1,
           "bytes": report["bytes"], "lexicon": report["lexicon"], "lines": f["lines"], "parsed": f["triples"],
           "counts": f["counts"], "cycles": f["cycles"]}}
elif mode == "ingest_parallel":  # issue 39 point 3: the files of a dump read by worker processes or a Dask cluster
    import contextlib, multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from kg.rdf.index.dumpindex import DumpIndex
    from kg.rdf.vocabulary import WIKIDATA
    index, vocabulary, workers = DumpIndex(args["index"]), WIKIDATA.with_relations(), args["workers"]
    with contextlib.ExitStack() as stack:
        executor = None
        if args["how"] == "processes" and workers > 1:
            executor = stack.enter_context(ProcessPoolExecutor(workers,
                                                               mp_context=multiprocessing.get_context("spawn")))
        elif args["how"] == "dask":
            import logging
            from distributed import Client, LocalCluster
            import dask
            logging.getLogger("distributed").setLevel(logging.WARNING)
            env = {{k: v for k, v in dask.config.get("distributed.nanny.pre-spawn-environ", {{}}).items()
                   if k != "MALLOC_TRIM_THRESHOLD_"}}  # as kgfs ingest --dask-address local (about 10% faster)
            with dask.config.set({{"distributed.nanny.pre-spawn-environ": env}}):
                cluster = stack.enter_context(LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                           host="127.0.0.1", dashboard_address=None))
            executor = stack.enter_context(Client(cluster)).get_executor(pure=False)
        t = time.perf_counter()  # the cluster started: its start-up is not the ingest's
        index.ingest(args["dump"], vocabulary=vocabulary, executor=executor, lexicon=False)
        t_seg = time.perf_counter() - t
        report = index.ingest(args["dump"], vocabulary=vocabulary)  # the files known: the lexicon only
    seconds = time.perf_counter() - t
    import hashlib, pathlib
    digest = hashlib.sha256()  # the index's files byte for byte (but the manifests' times and the ingest seconds)
    root = pathlib.Path(args["index"])
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.name not in ("manifest.json", ".lock"):
            data = p.read_bytes()
            if p.name == "segment.json":
                info = json.loads(data)
                info.pop("seconds")
                data = json.dumps(info, sort_keys=True).encode()
            digest.update(str(p.relative_to(root)).encode() + b"\0" + hashlib.sha256(data).digest())
    out = {{"seconds": seconds, "segments_seconds": t_seg, "lexicon_seconds": seconds - t_seg,
           "bytes": report["bytes"], "files": len(report["files"]),
           "lines": sum(f["lines"] for f in report["files"]), "lexicon": report["lexicon"],
           "fingerprint": digest.hexdigest(),
           "workers_peak_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
           "cpu_seconds": sum(getattr(resource.getrusage(w), a) for w in (resource.RUSAGE_SELF,
                              resource.RUSAGE_CHILDREN) for a in ("ru_utime", "ru_stime"))}}
elif mode == "relations":
    import numpy as np
    from kg.rdf.index.dumpindex import DumpIndex
    from kg.rdf.sources.index import IndexSource
    from kg.rdf.vocabulary import WD, WIKIDATA
    imports = time.perf_counter() - t
    rng = np.random.default_rng(11)
    ents = [f"{{WD}}Q{{q}}" for q in (args["first_item"] + rng.choice(args["items"], 10_000, replace=False)).tolist()]
    t = time.perf_counter()
    src = IndexSource(args["dump"], DumpIndex(args["index"]), vocabulary=WIKIDATA.with_relations())
    rel = {{d: src.relations(ents, d) for d in ("out", "in")}}
    t_rel = time.perf_counter() - t
    others = sorted({{o for d in rel.values() for pairs in d.values() for _, o in pairs}})
    props = sorted({{p for d in rel.values() for pairs in d.values() for p, _ in pairs}})
    types = src.types(others)
    classes = set().union(*types.values())
    edges = src.class_edges(classes)
    t_types = time.perf_counter() - t - t_rel
    # the dump relates the property entities (wd:P...), the triples use wdt:P...: both are asked
    sub = src.property_edges(props + [WD + p.rsplit("/", 1)[1] for p in props])
    out = {{"seconds": time.perf_counter() - t, "imports": imports, "relations_seconds": t_rel,
           "types_seconds": t_types, "n_out": sum(map(len, rel["out"].values())),
           "n_in": sum(map(len, rel["in"].values())), "others": len(others), "properties": len(props),
           "classes": len(classes), "class_edges": len(edges), "subproperty_edges": len(sub)}}
elif mode == "fetch":  # the route's qualified relations (kg.rdf.table.fetch_facts), in a process of its own
    import hashlib
    from kg.rdf.index.dumpindex import DumpIndex
    from kg.rdf.sources.index import IndexSource
    from kg.rdf.kinds import FeatureSpec
    from kg.rdf.table import build_hierarchy, fetch_facts
    from kg.rdf.vocabulary import WIKIDATA
    imports = time.perf_counter() - t
    ents = corpus_items(args)
    t = time.perf_counter()
    src = IndexSource(args["dump"], DumpIndex(args["index"]), vocabulary=WIKIDATA.with_relations())
    if args.get("generic"):  # the baseline: relations + types of the other ends, per entity (no relation_tally)
        class Generic:
            def __init__(self, source):
                self._source = source
            def __getattr__(self, name):
                if name == "relation_tally":
                    raise AttributeError(name)
                return getattr(self._source, name)
        src = Generic(src)
    spec = FeatureSpec.of(args["features"].split(), direction=args["direction"])
    facts, edges, report = fetch_facts({{e: [e] for e in ents}}, src, features=spec)
    t_fetch = time.perf_counter() - t
    try:  # the nodes as assemble_table and KGFeatures give them (sorted once, their look-up kept), where it exists
        from kg.rdf.table import hierarchy_nodes
        nodes = hierarchy_nodes(facts, edges)
    except ImportError:
        nodes = set().union(*facts.values())
    h, removed = build_hierarchy(nodes, edges)
    seconds = time.perf_counter() - t
    # the peak of the work measured, read before the fingerprint below (its JSON of every edge costs more)
    status = {{l.split(":")[0]: l.split()[1:2] for l in open("/proc/self/status")}}
    peak, file_rss = int(status["VmHWM"][0]) / 1024, int(status["RssFile"][0]) / 1024
    out = {{"seconds": seconds, "fetch_seconds": t_fetch, "imports": imports, "peak_rss_mb": peak,
           "file_rss_mb": file_rss,
           "facts": sum(map(len, facts.values())), "direct_features": len(set().union(*facts.values())),
           "edges": len(edges),
           "hierarchy_nodes": h.n_nodes, "removed": len(removed),
           "empty": len(report["entities_without_features"]),
           "fingerprint": hashlib.sha256(json.dumps([sorted((i, sorted(f)) for i, f in facts.items()), sorted(edges),
                                                     h.node_ids.tolist(), report.get("relations")],
                                                    default=str).encode()).hexdigest()}}
elif mode == "table":  # --hubs: the whole table of the 10,000 items (kg.rdf.table.assemble_table), as kgfs build
    from kg.rdf.corpus import Corpus
    from kg.rdf.index.dumpindex import DumpIndex
    from kg.rdf.sources.index import IndexSource
    from kg.rdf.kinds import FeatureSpec
    from kg.rdf.table import assemble_table
    from kg.rdf.vocabulary import WIKIDATA
    imports = time.perf_counter() - t
    ents = corpus_items(args)
    corpus = Corpus(ids=[f"i{{k}}" for k in range(len(ents))], entities=[[e] for e in ents],
                    labels=["a" if k % 2 else "b" for k in range(len(ents))])
    t = time.perf_counter()
    src = IndexSource(args["dump"], DumpIndex(args["index"]), vocabulary=WIKIDATA.with_relations())
    table = assemble_table(corpus, None, src, features=FeatureSpec.of(args["features"].split(),
                                                                       direction=args["direction"]))
    seconds = time.perf_counter() - t
    status = {{l.split(":")[0]: l.split()[1:2] for l in open("/proc/self/status")}}
    x, fingerprint = table_fingerprint(table)
    out = {{"seconds": seconds, "imports": imports, "peak_rss_mb": int(status["VmHWM"][0]) / 1024,
           "file_rss_mb": int(status["RssFile"][0]) / 1024, "shape": list(table.X.shape), "cells": int(x.nnz),
           "fingerprint": fingerprint}}
elif mode == "build":  # --hubs: `kgfs build` of the 10,000 items as a user types it (its stage store, its outputs)
    import contextlib, io, os
    from pathlib import Path
    os.environ["KGFS_HOME"] = args["home"]  # the index built once in it; the store emptied or kept by the parent
    from flows.cli import main
    from kg.table import FeatureTable
    imports = time.perf_counter() - t
    corpus = Path(args["home"]).parent / "hubs-corpus.tsv"  # one file for every run: its stages can be reused
    corpus.write_text("id\tlabel\tentity\n" + "".join(f"i{{k}}\t{{'a' if k % 2 else 'b'}}\t{{e}}\n"
                                                      for k, e in enumerate(corpus_items(args))))
    t = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(["build", "-q", "--corpus", str(corpus), "--entity-columns", "entity", "--kg", "dump", "--dump",
                     args["dump"], "--preset", "wikidata", "--features", "qualified-relations", "--direction",
                     args["direction"], "--out", args["out"]])
    seconds = time.perf_counter() - t
    if code:
        raise SystemExit(f"kgfs build failed ({{code}}): {{err.getvalue()[-2000:]}}")
    status = {{l.split(":")[0]: l.split()[1:2] for l in open("/proc/self/status")}}
    table = FeatureTable.load(Path(args["out"]) / "table.npz")
    x, fingerprint = table_fingerprint(table)
    out = {{"seconds": seconds, "imports": imports, "peak_rss_mb": int(status["VmHWM"][0]) / 1024,
           "file_rss_mb": int(status["RssFile"][0]) / 1024, "shape": list(table.X.shape), "cells": int(x.nnz),
           "fingerprint": fingerprint}}
else:
    from kg.routes import build_table
    from kg.routes.base import Context
    from kg.rdf.route import CorpusInput
    imports = time.perf_counter() - t
    t = time.perf_counter()
    inp = CorpusInput.from_options({{"corpus": args["corpus"], "dump": [args["dump"]], "preset": "wikidata"}})
    table = build_table(inp, Context(home=args["home"]))  # a temporary store: a new corpus, the index built
    out = {{"seconds": time.perf_counter() - t, "imports": imports, "shape": [table.n_instances, table.n_features],
           "mentions": table.meta.get("n_mentions"), "entities": table.meta.get("n_entities"),
           "empty": table.meta.get("instances_without_features")}}
hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
out.setdefault("peak_rss_mb", int(hwm.split()[1]) / 1024)
print(json.dumps(out))
"""


def child(mode: str, tree: Path = ROOT, **args) -> dict:
    """``mode`` measured in a fresh interpreter running the kgfs of ``tree`` (this checkout by default)."""
    t = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", CHILD.format(root=str(tree)), mode, json.dumps(args, default=str)],
                         capture_output=True, text=True)
    if res.returncode:
        raise RuntimeError(f"{mode} failed:\n{res.stderr[-3000:]}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    out["wall"] = time.perf_counter() - t
    return out


def measure(n: int, data: Path, keep_index: bool = False, relations: bool = False) -> dict:
    d = dumps_for(data, n)
    dump, meta = d / "latest-truthy.nt.bz2", json.loads((d / "meta.json").read_text())
    load = os.getloadavg()[0]
    print(f"\n== {meta['triples']:,} triples ({meta['bytes'] / 1e6:.0f} MB bz2, {meta['items']:,} items, "
          f"{meta['classes']:,} classes), load average {load:.1f}", flush=True)
    res = {"n": n, "triples": meta["triples"], "load": load, "meta": meta}
    res["lbzip2"] = child("lbzip2", dump=dump)
    print(f"lbzip2 -dc              : {res['lbzip2']['seconds']:7.1f} s", flush=True)
    res["parse"] = child("parse", dump=dump)
    print(f"pyoxigraph bare parse   : {res['parse']['seconds']:7.1f} s   peak RSS {res['parse']['peak_rss_mb']:6.0f} MB"
          f"   ({res['parse']['triples']:,} triples)", flush=True)
    home = Path(tempfile.mkdtemp(prefix="kgfs-bench-wd-", dir=data))
    try:
        ing = res["ingest"] = child("ingest", dump=dump, index=home / "dbpedia-cache" / "index")
        base, floor = res["parse"]["seconds"], res["lbzip2"]["seconds"]
        print(f"ingest (kgfs ingest)    : {ing['seconds']:7.1f} s = {ing['seconds'] / base:.2f}x the bare parse "
              f"(goal <= 2x), {ing['seconds'] / floor:.2f}x lbzip2 -dc; peak RSS {ing['peak_rss_mb']:6.0f} MB "
              f"(goal <= 2048)", flush=True)
        print(f"                          segment {ing['segments_seconds']:.1f} s "
              f"({ing['parsed']:,} of {ing['lines']:,} lines parsed) + lexicon {ing['lexicon_seconds']:.1f} s "
              f"({ing['lexicon']['n_surface_forms']:,} forms of {ing['lexicon']['n_entities']:,} items); "
              f"index {ing['bytes'] / 1e6:.0f} MB on disk; P279 cycles: {ing['cycles']['subclass']['cycles']}",
              flush=True)
        r = res["corpus"] = child("corpus", corpus=corpus(d), dump=dump, home=home)
        print(f"new corpus (10,000 texts): {r['seconds']:6.1f} s (goal < 10 s at 100M; + {r['imports']:.1f} s of "
              f"imports)   peak RSS "
              f"{r['peak_rss_mb']:6.0f} MB   {r['shape'][0]} x {r['shape'][1]}, {r['mentions']} mentions, "
              f"{r['entities']} items, {r['empty']} empty rows", flush=True)
        if relations:
            measure_relations(res, dump, meta, home)
    finally:
        if not keep_index:
            shutil.rmtree(home, ignore_errors=True)
    return res


def measure_reading(n: int, data: Path) -> dict:
    """Issue 39 point 1 (``--reading``): the ingest of the .nt against pyoxigraph's bare parse of it (goal <= 1.5x)
    and of the .nt.bz2 against ``lbzip2 -dc`` (goal <= 1.3x), each also with the line filter in the ingesting
    process (as before issue 39), every measure in a fresh child, one after the other."""
    d = dumps_for(data, n)
    bz, meta = d / "latest-truthy.nt.bz2", json.loads((d / "meta.json").read_text())
    nt = d / "latest-truthy.nt"
    if not nt.is_file():
        with open(nt.with_suffix(".part"), "wb") as f:
            subprocess.run(["lbzip2", "-dc", str(bz)], stdout=f, check=True)
        nt.with_suffix(".part").rename(nt)
    load = os.getloadavg()[0]
    sizes = f"{bz.stat().st_size / 1e6:.0f} MB .bz2, {nt.stat().st_size / 1e6:.0f} MB .nt"
    print(f"\n== reading {meta['triples']:,} triples ({sizes}), load average {load:.1f}, {os.cpu_count()} cores",
          flush=True)
    res = {"n": n, "triples": meta["triples"], "load": load, "cores": os.cpu_count()}
    res["lbzip2"] = child("lbzip2", dump=bz)
    res["parse_nt"] = child("parse_nt", dump=nt)
    print(f"lbzip2 -dc of the .bz2           : {res['lbzip2']['seconds']:7.1f} s", flush=True)
    print(f"pyoxigraph bare parse of the .nt : {res['parse_nt']['seconds']:7.1f} s", flush=True)
    for name, dump, base, goal in (("nt", nt, "parse_nt", 1.5), ("bz2", bz, "lbzip2", 1.3)):
        for one in (True, False):
            home = Path(tempfile.mkdtemp(prefix="kgfs-bench-wd-", dir=data))
            try:
                r = child("ingest", dump=dump, index=home / "index", one_process=one)
            finally:
                shutil.rmtree(home, ignore_errors=True)
            key = f"ingest_{name}" + ("_one_process" if one else "")
            res[key] = r
            how = "filter in the same process" if one else "filter in its own process"
            ratio = r["seconds"] / res[base]["seconds"]
            print(f"ingest of the .{name:<4} ({how}): {r['seconds']:7.1f} s = {ratio:.2f}x "
                  f"{'the bare parse' if name == 'nt' else 'lbzip2 -dc'} (goal <= {goal}x); segment "
                  f"{r['segments_seconds']:.1f} s + lexicon {r['lexicon_seconds']:.1f} s; peak RSS "
                  f"{r['peak_rss_mb']:.0f} MB", flush=True)
        gain = res[f"ingest_{name}_one_process"]["seconds"] / res[f"ingest_{name}"]["seconds"]
        print(f"  the filter in its own process: {gain:.2f}x faster", flush=True)
    return res


def split_dump(d: Path, pieces: int) -> Path:
    """The generated dump as ``pieces`` .nt.bz2 files of whole lines (as a user splits the truthy dump:
    ``lbzip2 -dc latest-truthy.nt.bz2 | split -n r/8 --filter 'lbzip2 > $FILE.nt.bz2'``), cached beside it."""
    out = d / f"split-{pieces}"
    if (out / "done").is_file():
        return out
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    t = time.perf_counter()
    src = subprocess.Popen(["lbzip2", "-dc", str(d / "latest-truthy.nt.bz2")], stdout=subprocess.PIPE)
    subprocess.run(["split", "-n", f"r/{pieces}", "-d", "--additional-suffix=.nt.bz2", "--filter",
                    "lbzip2 > $FILE", "-", str(out / "part-")], stdin=src.stdout, check=True)
    src.wait()
    (out / "done").write_text("")
    print(f"split into {pieces} files in {time.perf_counter() - t:.0f} s -> {out}", flush=True)
    return out


def measure_cluster(n: int, data: Path, pieces: int = 8) -> dict:
    """Issue 39 point 3 (``--cluster``): the dump as ``pieces`` files ingested with relations one after another, by
    2 worker processes, and on a local Dask cluster of 1 and 2 workers (127.0.0.1), each in a fresh child; the
    speed-ups, the indexes' identity, and the extrapolation to the full truthy dump on N such machines."""
    d = dumps_for(data, n)
    meta = json.loads((d / "meta.json").read_text())
    parts = split_dump(d, pieces)
    load = os.getloadavg()[0]
    size = sum(p.stat().st_size for p in parts.glob("*.bz2"))
    print(f"\n== {meta['triples']:,} triples in {pieces} .nt.bz2 files ({size / 1e6:.0f} MB), load average "
          f"{load:.1f}, {os.cpu_count()} cores", flush=True)
    res = {"n": n, "triples": meta["triples"], "pieces": pieces, "load": load, "cores": os.cpu_count()}
    runs = (("serial", "processes", 1), ("processes-2", "processes", 2), ("dask-1", "dask", 1), ("dask-2", "dask", 2))
    for name, how, workers in runs:
        home = Path(tempfile.mkdtemp(prefix="kgfs-bench-wd-", dir=data))
        try:
            r = res[name] = child("ingest_parallel", dump=parts, index=home / "index", how=how, workers=workers)
        finally:
            shutil.rmtree(home, ignore_errors=True)
        lex, seg = r["lexicon"]["n_surface_forms"], res["serial"]["segments_seconds"]
        print(f"{name:<12}: {r['seconds']:7.1f} s: the files {r['segments_seconds']:6.1f} s = "
              f"x{seg / r['segments_seconds']:.2f} the serial ingest's, then the lexicon here "
              f"{r['lexicon_seconds']:5.1f} s; {r['cpu_seconds'] / r['seconds']:.2f} cores busy on average (CPU time "
              f"of every process / wall); peak RSS {r['peak_rss_mb']:.0f} MB here, "
              f"{r['workers_peak_rss_mb']:.0f} MB in a worker; {r['lines']:,} lines, {lex:,} surface forms, index "
              f"{r['bytes'] / 1e6:.0f} MB", flush=True)
    same = len({res[k]["fingerprint"] for k, *_ in runs}) == 1
    print(f"the same index byte for byte in every run (its files but the manifests' times): {same}", flush=True)
    # the full truthy dump (7.5 billion lines) split into files: the files' part spreads over the machines, the
    # lexicon stays on the ingesting one (per line here; per labelled item it is less: docs/wikidata.md)
    full, lines = 7.5e9, res["serial"]["lines"]
    best = min((k for k, *_ in runs), key=lambda k: res[k]["segments_seconds"])
    files_h = full * res[best]["segments_seconds"] / lines / 3600
    lex_h = full * res["serial"]["lexicon_seconds"] / lines / 3600
    res["extrapolation"] = {"files_hours_one_machine": files_h, "lexicon_hours": lex_h, "best": best}
    print(f"the full truthy dump (7.5e9 lines) split into files, at this run's rates: the files {files_h:.1f} h on one "
          f"such machine ({best}), so about {files_h:.1f} / N h on N of them, then the lexicon on the ingesting "
          f"machine {lex_h:.1f} h (per line; an upper bound)", flush=True)
    return res


def measure_relations(res: dict, dump: Path, meta: dict, home: Path) -> None:
    """The line filter, the ingest and a new 10,000-item corpus with relations (``--relations``), beside the
    measurements of the same run without."""
    f = res["filter"] = child("filter", dump=dump, bytes=256 << 20, repeat=3)
    t, r = f["types"], f["relations"]
    print(f"line filter, {f['bytes'] / 1e6:.0f} MB decompressed: {t['seconds']:.2f} s keeping {t['kept']:,} of "
          f"{t['seen']:,} lines (wikidata) -> {r['seconds']:.2f} s keeping {r['kept']:,} (with relations): "
          f"x{r['seconds'] / t['seconds']:.2f} the time, {t['seen'] / r['seconds'] / 1e6:.1f}M lines/s", flush=True)
    ing, base = child("ingest", dump=dump, index=home / "rel-index", relations=True), res["ingest"]
    res["ingest_relations"] = ing
    c = ing["counts"]
    print(f"ingest with relations   : {ing['seconds']:7.1f} s = x{ing['seconds'] / base['seconds']:.2f} the ingest "
          f"without (segment {ing['segments_seconds']:.1f} s vs {base['segments_seconds']:.1f} s); peak RSS "
          f"{ing['peak_rss_mb']:6.0f} MB vs {base['peak_rss_mb']:.0f} MB; index {ing['bytes'] / 1e6:.0f} MB vs "
          f"{base['bytes'] / 1e6:.0f} MB; {ing['parsed']:,} lines parsed vs {base['parsed']:,}; "
          f"{c['relations_out']:,} relation triples, {c['subproperty']:,} subproperty edges, "
          f"{c['terms']:,} terms", flush=True)
    q = res["relations"] = child("relations", dump=dump, index=home / "rel-index", first_item=meta["classes"] + 1,
                                 items=meta["items"])
    print(f"new corpus (10,000 items): {q['seconds']:6.2f} s (relations {q['relations_seconds']:.2f} s, types + "
          f"classes of the other ends {q['types_seconds']:.2f} s; + {q['imports']:.1f} s of imports), peak RSS "
          f"{q['peak_rss_mb']:6.0f} MB (goal < 10 s and < 1536 MB); {q['n_out']:,} out / {q['n_in']:,} in relations, "
          f"{q['others']:,} other ends, {q['properties']:,} properties, {q['classes']:,} classes, "
          f"{q['class_edges']:,} class edges, {q['subproperty_edges']} subproperty edges", flush=True)
    for features, direction in (("qualified-relations", "out"), ("qualified-relations", "both"),
                                ("types qualified-relations", "both")):
        try:
            ff = child("fetch", dump=dump, index=home / "rel-index", first_item=meta["classes"] + 1,
                       items=meta["items"], features=features, direction=direction)
        except RuntimeError as exc:  # a route without qualified relations (before issue 25's generators)
            print(f"fetch_facts({features}, {direction}): failed: {str(exc).splitlines()[-1]}", flush=True)
            continue
        res.setdefault("fetch", {})[f"{features}/{direction}"] = ff
        print(f"fetch_facts + build_hierarchy, --features {features} --direction {direction}: {ff['seconds']:6.2f} s "
              f"(fetch {ff['fetch_seconds']:.2f} s; + {ff['imports']:.1f} s of imports), peak RSS "
              f"{ff['peak_rss_mb']:6.0f} MB (goal < 10 s and < 1536 MB); {ff['direct_features']:,} direct features, "
              f"{ff['facts']:,} instance facts, {ff['edges']:,} edges, {ff['hierarchy_nodes']:,} nodes, "
              f"{ff['removed']} cycle edges removed, {ff['empty']} items without features", flush=True)


def measure_hubs(n: int, data: Path, top: int = 100, baseline: str | None = None) -> dict:
    """``--hubs``: a dump whose relation objects are Zipf-distributed (hubs), ingested with relations, and the route's
    ``fetch_facts`` + ``build_hierarchy`` of qualified relations (out, both) for 10,000 items (the ``top`` most linked
    and the rest drawn uniformly), each in a fresh process, through the generic path (relations + types per
    entity: the baseline, measured in the same run) and through ``IndexSource.relation_tally``: time, peak RSS, and
    whether both give the same facts, edges, hierarchy and report. With ``baseline`` (a git revision), the
    ``relation_tally`` path of that version too, in the same run: the ratio of its time and peak to this tree's.
    For ``both``, also the whole table (``assemble_table``, what ``kgfs build`` makes: the goal's command) of this
    tree and of the baseline, and whether they are the same table."""
    d = dumps_for(data, n, hubs=True)
    dump, meta = d / "latest-truthy.nt.bz2", json.loads((d / "meta.json").read_text())
    print(f"\n== hubs: {meta['triples']:,} triples ({meta['bytes'] / 1e6:.0f} MB bz2, {meta['items']:,} items), "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    res: dict = {"n": n, "triples": meta["triples"], "meta": meta, "top": top}
    home = Path(tempfile.mkdtemp(prefix="kgfs-bench-wd-hubs-", dir=data))
    try:
        ing = res["ingest_relations"] = child("ingest", dump=dump, index=home / "rel-index", relations=True)
        c = ing["counts"]
        print(f"ingest with relations   : {ing['seconds']:7.1f} s, peak RSS {ing['peak_rss_mb']:6.0f} MB, index "
              f"{ing['bytes'] / 1e6:.0f} MB; {c['relations_out']:,} relation triples", flush=True)
        tree = old_checkout(baseline)[0] if baseline else None  # a worktree in the temporary folder, kept for reuse
        res["baseline"] = baseline
        for direction in ("out", "both"):
            got = {}
            for path in ("generic", "tally", *(["baseline"] if tree else [])):
                got[path] = child("fetch", tree=tree if path == "baseline" else ROOT, dump=dump,
                                  index=home / "rel-index", first_item=meta["classes"] + 1,
                                  items=meta["items"], features="qualified-relations", direction=direction, top=top,
                                  generic=path == "generic")
                ff = got[path]
                print(f"fetch_facts + build_hierarchy, qualified-relations --direction {direction:4} ({path:7}): "
                      f"{ff['seconds']:6.2f} s, peak RSS {ff['peak_rss_mb']:6.0f} MB (the index's pages mapped from "
                      f"disk at the end: {ff['file_rss_mb']:.0f} MB); {ff['direct_features']:,} "
                      f"direct features, {ff['edges']:,} edges, {ff['hierarchy_nodes']:,} nodes", flush=True)
            g, t = got["generic"], got["tally"]
            same = g["fingerprint"] == t["fingerprint"]
            res[f"fetch/{direction}"] = got
            print(f"  --direction {direction}: generic / tally = x{g['seconds'] / t['seconds']:.2f} the time, "
                  f"x{g['peak_rss_mb'] / t['peak_rss_mb']:.2f} the peak RSS; same facts, edges, hierarchy and "
                  f"report: {same}", flush=True)
            if tree:
                b = got["baseline"]
                print(f"  --direction {direction}: baseline {baseline} / this tree = "
                      f"x{b['seconds'] / t['seconds']:.2f} the time, x{b['peak_rss_mb'] / t['peak_rss_mb']:.2f} "
                      f"the peak RSS; the same table: "
                      f"{b['fingerprint'] == t['fingerprint']}", flush=True)
                same = same and b["fingerprint"] == t["fingerprint"]
            if not same:
                raise SystemExit("the paths differ")
            if direction == "both":  # the goal's command: the whole table (kgfs build), this tree and the baseline
                tables = {}
                for path in ("tally", *(["baseline"] if tree else [])):
                    tables[path] = tb = child("table", tree=tree if path == "baseline" else ROOT, dump=dump,
                                              index=home / "rel-index", first_item=meta["classes"] + 1,
                                              items=meta["items"], features="qualified-relations",
                                              direction=direction, top=top)
                    print(f"assemble_table, qualified-relations --direction both ({path:7}): {tb['seconds']:6.2f} s, "
                          f"peak RSS {tb['peak_rss_mb']:6.0f} MB (mapped from disk at the end: "
                          f"{tb['file_rss_mb']:.0f} MB); {tb['shape'][0]:,} x {tb['shape'][1]:,}, {tb['cells']:,} "
                          f"cells (goal: 15 s and 1 GB)", flush=True)
                res["table/both"] = tables
                if tree:
                    b, t = tables["baseline"], tables["tally"]
                    print(f"  the whole table: baseline {baseline} / this tree = x{b['seconds'] / t['seconds']:.2f} "
                          f"the time, x{b['peak_rss_mb'] / t['peak_rss_mb']:.2f} the peak RSS; the same table: "
                          f"{b['fingerprint'] == t['fingerprint']}", flush=True)
                    if b["fingerprint"] != t["fingerprint"]:
                        raise SystemExit("the tables differ")
                res["build/both"] = cli_builds(home, dump, meta, top, tree, baseline)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return res


def cli_builds(home: Path, dump: Path, meta: dict, top: int, tree: Path | None, baseline: str | None) -> dict:
    """``kgfs build`` of the hub corpus (``--direction both``), the issue's own command, in a fresh process each:
    with an empty stage store (``cold``: every stage computed; the index built beforehand, once) and again with
    its stages stored (``warm``: the stored table folder copied to ``--out``; before 238df62 the table was read
    back, named and written again), this tree and the baseline."""
    kgfs_home = home / "cli-home"
    common = dict(dump=dump, home=kgfs_home, first_item=meta["classes"] + 1, items=meta["items"], top=top,
                  direction="both")
    child("build", out=home / "cli-warm-up", **common)  # the index of the dump, built once for every run below
    got: dict = {}
    for path in ("this tree", *(["baseline"] if tree else [])):
        shutil.rmtree(kgfs_home / "store", ignore_errors=True)
        for run in ("cold", "warm"):
            got[f"{path}/{run}"] = b = child("build", tree=tree if path == "baseline" else ROOT,
                                             out=home / f"cli-{path.replace(' ', '-')}-{run}", **common)
            print(f"kgfs build --direction both ({path}, {run} store): {b['seconds']:6.2f} s, peak RSS "
                  f"{b['peak_rss_mb']:6.0f} MB; {b['shape'][0]:,} x {b['shape'][1]:,}, {b['cells']:,} cells",
                  flush=True)
    if tree:
        for run in ("cold", "warm"):
            b, t = got[f"baseline/{run}"], got[f"this tree/{run}"]
            print(f"  kgfs build, {run} store: baseline {baseline} / this tree = x{b['seconds'] / t['seconds']:.2f} "
                  f"the time, x{b['peak_rss_mb'] / t['peak_rss_mb']:.2f} the peak RSS; the same table: "
                  f"{b['fingerprint'] == t['fingerprint']}", flush=True)
            if b["fingerprint"] != t["fingerprint"]:
                raise SystemExit("the built tables differ")
    return got


def summary(results: dict) -> None:
    runs = sorted((r for r in results.values() if "ingest" in r), key=lambda r: r["triples"])
    print("\n== summary (each size measured in its own run; ratios against baselines of the same run)")
    print(f"{'triples':>12} {'load':>5} {'lbzip2 s':>9} {'parse s':>8} {'ingest s':>9} {'x parse':>8} {'x lbzip2':>9} "
          f"{'peak MB':>8} {'index MB':>9} {'corpus s':>9} {'corpus MB':>10}")
    for r in runs:
        i, c = r["ingest"], r["corpus"]
        print(f"{r['triples']:>12,} {r['load']:>5.1f} {r['lbzip2']['seconds']:>9.1f} {r['parse']['seconds']:>8.1f} "
              f"{i['seconds']:>9.1f} {i['seconds'] / r['parse']['seconds']:>8.2f} "
              f"{i['seconds'] / r['lbzip2']['seconds']:>9.2f} {i['peak_rss_mb']:>8.0f} {i['bytes'] / 1e6:>9.0f} "
              f"{c['seconds']:>9.1f} {c['peak_rss_mb']:>10.0f}")
    if len(runs) > 1:
        peaks = [r["ingest"]["peak_rss_mb"] for r in runs]
        print(f"ingest peak RSS from {runs[0]['triples'] / 1e6:.0f}M to {runs[-1]['triples'] / 1e6:.0f}M triples: "
              f"{min(peaks):.0f}-{max(peaks):.0f} MB (x{max(peaks) / min(peaks):.2f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", nargs="+", default=["20M"], help="dump sizes, e.g. 20M 50M 100M")
    ap.add_argument("--data", default=str(Path(tempfile.gettempdir()) / "kgfs-bench-wikidata-rel"),
                    help="where generated dumps are kept (reused by later runs)")
    ap.add_argument("--results", help="JSON file of results, extended by this run (default: in --data)")
    ap.add_argument("--keep-index", action="store_true", help="keep the index built (to look at it)")
    ap.add_argument("--relations", action="store_true",
                    help="also the line filter, the ingest and a new corpus with relations (issue 25)")
    ap.add_argument("--hubs", action="store_true",
                    help="only the hub-shaped dump: qualified relations out/both, generic path vs relation_tally "
                         "(issue 39)")
    ap.add_argument("--baseline", metavar="REF",
                    help="with --hubs: also a git revision of kgfs (e.g. the one before a change), in the same run")
    ap.add_argument("--cluster", action="store_true",
                    help="only the dump split into files, ingested one after another, by 2 worker processes and on "
                         "a local Dask cluster of 1 and 2 workers (issue 39 point 3)")
    ap.add_argument("--reading", action="store_true",
                    help="only the reading of the dump: the ingest of the .nt against the bare parse, of the .bz2 "
                         "against lbzip2 -dc, with the line filter in its own process and without (issue 39)")
    args = ap.parse_args()
    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    path = Path(args.results or data / "results.json")
    results = json.loads(path.read_text()) if path.is_file() else {}
    for size in args.sizes:
        n = int(float(size[:-1]) * {"K": 1e3, "M": 1e6}[size[-1].upper()]) if size[-1].isalpha() else int(size)
        if args.reading:
            results[f"reading-{n}"] = measure_reading(n, data)
            path.write_text(json.dumps(results, indent=1))
            continue
        if args.cluster:
            results[f"cluster-{n}"] = measure_cluster(n, data)
            path.write_text(json.dumps(results, indent=1))
            continue
        if args.hubs:
            results[f"hubs-{n}"] = measure_hubs(n, data, baseline=args.baseline)
            path.write_text(json.dumps(results, indent=1))
            continue
        results[str(n)] = measure(n, data, args.keep_index, args.relations)
        path.write_text(json.dumps(results, indent=1))
    if not (args.hubs or args.reading or args.cluster):
        summary(results)


if __name__ == "__main__":
    main()
