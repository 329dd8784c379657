"""The DBpedia route at real size: the dump index against pyoxigraph's bare parse, and the cost per corpus.

Generates (seeded, cached in ``--data``) DBpedia-shaped dumps of 1M, 5M and 20M triples, ``.nt.bz2``
like the releases, with the real DBpedia 3.9 ontology (``../shared/data/dbpedia/``), in the
proportions of full DBpedia (issue 18: instance types 35, article categories 25, SKOS categories 3,
labels 10, redirects 7): Zipf-distributed types (DBpedia ontology classes, ``owl:Thing``, YAGO-like
classes) and categories, a layered category graph with cycles and self-loops, labels of entities
and of half the redirect pages. Then, each step in a fresh child process (wall time, peak RSS):

- pyoxigraph's bare parse of the bz2 files (Python's ``bz2``, every quad touched once): the baseline;
- the ingest (``DumpIndex.ingest``: one pass per file into segments, then the lexicon), its
  ratio to the baseline, the lexicon's share, the index's size on disk;
- per corpus, two different corpora of 10,000 real tweets (``../shared/data/tweets``) with entity
  labels injected (one TSV written without quoting, one JSON Lines), with types and with
  categories: the route's steps (``kg.routes.build_table``, what ``kgfs build --corpus`` and the
  pipeline's stages run) against the index, as a new corpus (the index built, nothing else cached);
- the growth exponent of per-corpus time with dump size over the sizes measured (results are
  kept in ``--results``, so sizes can be run one at a time), and the extrapolation to 100M.

With ``--against COMMIT`` (e.g. ``4756336``, the round whose per-corpus times issue 40 asks back),
the same new corpora are also run, in the same run and interleaved with this checkout's, by that
commit's code: a detached worktree of the repository at ``/tmp/kgfs-<COMMIT>`` (made by the
benchmark, kept for later runs), a child process with ``PYTHONPATH`` at it, its own kgfs home and
index (ingested from the same generated dump by its own code), and that commit's API for a corpus's
table (``kg.routes.build_table`` now; ``kg.dbpedia.batches.spec_table`` at 4756336). For types and
for categories it prints this checkout's time, the commit's and their ratio. ``--repeat N`` runs each
corpus N times and keeps the minimum (per side).

Targets (issue 18): ingest <= 2x bare parse + the lexicon build, peak RSS < 1.5 GB at 20M; per new
corpus at 20M < 10 s and < 1.5 GB (types), < 15 s (categories); per-corpus time growing at most as
(dump size)^0.3. Issue 40: at 5M a new corpus in <= 2.5 s (types), <= 5 s (categories), at 4756336's
speed or better. Timings on a loaded machine are noisy: the load average is printed (before each
corpus too).

    python benchmarks/bench_dbpedia_scale.py --sizes 1M 5M [--data DIR] [--results FILE]
    python benchmarks/bench_dbpedia_scale.py --sizes 5M --against 4756336 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("KGFS_SHARED_DATA", ROOT.parent / "shared" / "data"))
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
SUBJECT = "http://purl.org/dc/terms/subject"
BROADER = "http://www.w3.org/2004/02/skos/core#broader"
PREF = "http://www.w3.org/2004/02/skos/core#prefLabel"
CONCEPT = "http://www.w3.org/2004/02/skos/core#Concept"
REDIRECT = "http://dbpedia.org/ontology/wikiPageRedirects"
R = "http://dbpedia.org/resource/"
C = R + "Category:"
Y = "http://dbpedia.org/class/yago/"
THING = "http://www.w3.org/2002/07/owl#Thing"
GENERATOR_VERSION = 1


# --------------------------------------------------------------------------- the dumps
def zipf(rng, n: int, size: int, s: float = 1.0) -> np.ndarray:
    w = 1.0 / np.arange(1, n + 1) ** s
    return np.minimum(np.searchsorted(np.cumsum(w / w.sum()), rng.random(size)), n - 1)


def ontology_classes() -> list[str]:
    owl = (SHARED / "dbpedia" / "dbpedia_3.9.owl").read_text(encoding="utf-8")
    return sorted(set(re.findall(r'owl:Class rdf:about="(http://dbpedia.org/ontology/[^"]+)"', owl)))


def vocabulary() -> list[str]:
    words: set[str] = set()
    for f in ("training.txt", "test.txt"):
        words.update(re.findall(r"[A-Za-z][a-z]{2,}", (SHARED / "tweets" / f).read_text(encoding="utf-8")))
    return sorted(words)


def lit(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"@en'


class Bz2Out:
    """Text written through ``bzip2 -1`` (``lbzip2`` when installed) in a child process."""

    def __init__(self, path: Path):
        tool = shutil.which("lbzip2") or "bzip2"
        self.out = open(path, "wb")
        self.proc = subprocess.Popen([tool, "-1", "-c"], stdin=subprocess.PIPE, stdout=self.out)
        self.lines = 0

    def write(self, lines: list[str]) -> None:
        self.proc.stdin.write("".join(lines).encode("utf-8"))
        self.lines += len(lines)

    def close(self) -> int:
        self.proc.stdin.close()
        self.proc.wait()
        self.out.close()
        return self.lines


def entity_names(rng, prng, n: int) -> list[str]:
    vocab = vocabulary()
    perm = rng.permutation(len(vocab))
    k_words = rng.choice([1, 2, 2, 2, 3, 3, 4], size=n)
    words = zipf(rng, len(vocab), int(k_words.sum()), 0.9)
    suffixes = ["", "", "", " (film)", " (band)", " F.C.", " City", " (album)", "\u00e9", ", Texas"]
    names, seen, j = [], set(), 0
    for i in range(n):
        name = " ".join(vocab[perm[w]].capitalize() for w in words[j:j + k_words[i]]) + suffixes[i % len(suffixes)]
        j += k_words[i]
        while name in seen:
            name += f" {prng.randint(2, 99)}"
        seen.add(name)
        names.append(name)
    return names


def generate(d: Path, n: int, seed: int = 0) -> dict:
    """Write the dump files of about ``n`` triples into ``d``; returns their description."""
    d.mkdir(parents=True, exist_ok=True)
    rng, prng = np.random.default_rng(seed), random.Random(seed)
    shutil.copy(SHARED / "dbpedia" / "dbpedia_3.9.owl", d / "dbpedia_3.9.owl")
    n_types, n_cats, n_skos, n_redir = int(.4375 * n), int(.3125 * n), int(.0375 * n), int(.0875 * n)
    n_labels = n - n_types - n_cats - n_skos - n_redir
    n_ent, n_cat, classes = max(10, n_labels - n_redir // 2), max(10, n_skos // 4), ontology_classes()
    names = entity_names(rng, prng, n_ent)
    iri = [R + nm.replace(" ", "_") for nm in names]
    counts = {}
    # instance types: a DBpedia class (Zipf), owl:Thing, then YAGO-like classes (Zipf)
    out = Bz2Out(d / "instance_types_en.nt.bz2")
    typed = rng.random(n_ent) < 0.7
    per = rng.poisson(max(0.0, n_types / max(1, typed.sum()) - 1), size=n_ent) + 1
    dbo, yago = zipf(rng, len(classes), n_ent), zipf(rng, max(100, n_ent // 50), n_types)
    left, yi = n_types, 0
    for i in np.flatnonzero(typed).tolist():
        if left <= 0:
            break
        s, k = f"<{iri[i]}> <{RDF_TYPE}> ", int(min(per[i], left))
        objs = [classes[dbo[i]], THING] + [f"{Y}Class{yago[yi + x]}" for x in range(k - 2)]
        yi += max(0, k - 2)
        out.write([f"{s}<{o}> .\n" for o in objs[:k]])
        left -= k
    counts["instance_types"] = out.close()
    # article categories (Zipf over a shuffled category list)
    out = Bz2Out(d / "article_categories_en.nt.bz2")
    per = rng.poisson(n_cats / n_ent, size=n_ent)
    cz, cperm = zipf(rng, n_cat, n_cats + n_ent, 0.8), rng.permutation(n_cat)
    left, ci = n_cats, 0
    for i in range(n_ent):
        k = int(min(per[i], left))
        if k > 0:
            cats = dict.fromkeys(cperm[cz[ci:ci + k]].tolist())
            out.write([f"<{iri[i]}> <{SUBJECT}> <{C}Cat_{c}> .\n" for c in cats])
            ci += k
            left -= k
    counts["article_categories"] = out.close()
    # SKOS categories: parents have smaller numbers (a layered graph), 1% of categories also point
    # down to a descendant-to-be (cycles), 0.1% at themselves
    out = Bz2Out(d / "skos_categories_en.nt.bz2")
    left = n_skos
    for c in range(n_cat):
        if left <= 0:
            break
        s = f"<{C}Cat_{c}>"
        lines = [f"{s} <{RDF_TYPE}> <{CONCEPT}> .\n", f"{s} <{PREF}> {lit(f'Cat {c}')} .\n"]
        parents = {int(c * prng.random() ** 2) for _ in range(prng.choice([1, 2, 2, 3]))} if c else set()
        if c and prng.random() < 0.01:
            parents.add(min(n_cat - 1, c + prng.randint(1, 50)))
        if c and prng.random() < 0.001:
            parents.add(c)
        lines += [f"{s} <{BROADER}> <{C}Cat_{p}> .\n" for p in sorted(parents)]
        out.write(lines[:left])
        left -= min(left, len(lines))
    counts["skos_categories"] = out.close()
    # redirects to popular entities (name variants), and labels (entities, then half the redirects)
    out = Bz2Out(d / "redirects_en.nt.bz2")
    target, red_labels = zipf(rng, n_ent, n_redir, 0.7), []
    for r in range(n_redir):
        t = int(target[r])
        words, v = names[t].split(), prng.random()
        alt = " ".join(words[1:]) if v < 0.3 and len(words) > 1 else (
            names[t].lower() + f" {r}" if v < 0.6 else names[t] + f" ({r})")
        red = R + alt.replace(" ", "_") + "_redirect"
        out.write([f"<{red}> <{REDIRECT}> <{iri[t]}> .\n"])
        if r % 2 == 0:
            red_labels.append(f"<{red}> <{LABEL}> {lit(alt)} .\n")
    counts["redirects"] = out.close()
    out = Bz2Out(d / "labels_en.nt.bz2")
    for a in range(0, n_ent, 100_000):
        out.write([f"<{iri[i]}> <{LABEL}> {lit(names[i])} .\n" for i in range(a, min(n_ent, a + 100_000))])
    out.write(red_labels[:max(0, n_labels - n_ent)])
    counts["labels"] = out.close()
    meta = {"version": GENERATOR_VERSION, "n": n, "seed": seed, "triples": sum(counts.values()),
            "files": counts, "entities": n_ent, "categories": n_cat}
    (d / "names.txt").write_text("\n".join(names) + "\n", encoding="utf-8")
    (d / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    return meta


def dumps_for(data: Path, n: int) -> Path:
    """The generated dumps of size ``n`` (generated now unless cached)."""
    d = data / f"dbpedia-{n}"
    meta = d / "meta.json"
    if not (meta.is_file() and json.loads(meta.read_text())["version"] == GENERATOR_VERSION):
        shutil.rmtree(d, ignore_errors=True)
        t = time.perf_counter()
        info = generate(d / "dump", n)
        shutil.move(str(d / "dump" / "names.txt"), d / "names.txt")
        shutil.move(str(d / "dump" / "meta.json"), meta)
        print(f"generated {info['triples']:,} triples in {time.perf_counter() - t:.0f} s -> {d}", flush=True)
    return d


# --------------------------------------------------------------------------- the corpora
def corpora(d: Path) -> list[Path]:
    """Two different corpora of 10,000 real tweets with entity labels injected (TSV unquoted, JSONL)."""
    sys.path.insert(0, str(ROOT))
    from kg.rdf.corpus import read_sports_tweets

    out = []
    train = read_sports_tweets(SHARED / "tweets" / "training.txt")
    texts = train.texts + read_sports_tweets(SHARED / "tweets" / "test.txt").texts
    labels = train.labels + ["Unknown"] * (len(texts) - len(train))
    names = (d / "names.txt").read_text(encoding="utf-8").splitlines()
    for k, name in enumerate(("corpus_a.tsv", "corpus_b.jsonl")):
        path = d / name
        out.append(path)
        if path.is_file():
            continue
        rng, prng = np.random.default_rng(100 + k), random.Random(100 + k)
        pick = rng.permutation(len(texts))[:10_000]
        popular = zipf(rng, len(names), 30_000, 0.9)
        rows = []
        for i, t in enumerate(pick.tolist()):
            words = " ".join(texts[t].split()).split(" ")
            for _ in range(prng.choice([1, 1, 2, 3])):
                words.insert(prng.randint(0, len(words)), names[popular[(3 * i + _) % len(popular)]])
            rows.append((f"{k}-{i}", " ".join(words), labels[t]))
        if name.endswith(".tsv"):  # written as many tools write TSV: no quoting (quotes stay in texts)
            path.write_text("id\ttext\tlabel\n" + "".join(f"{a}\t{b}\t{c}\n" for a, b, c in rows), encoding="utf-8")
        else:
            path.write_text("".join(json.dumps({"id": a, "text": b, "label": c}) + "\n" for a, b, c in rows),
                            encoding="utf-8")
    return out


# --------------------------------------------------------------------------- measurements (child processes)
CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
t0 = time.perf_counter()
mode, args = sys.argv[1], json.loads(sys.argv[2])
out = {{}}
if mode == "parse":
    import bz2, glob
    import pyoxigraph as ox
    from kg.rdf.dumpfiles import dump_files, dump_format
    n = 0
    t = time.perf_counter()
    for f in dump_files(args["dump"]):
        with (bz2.open(f, "rb") if str(f).endswith(".bz2") else open(f, "rb")) as fh:
            for q in ox.parse(input=fh, format=dump_format(f)):
                n += 1
    out = {{"triples": n, "seconds": time.perf_counter() - t}}
elif mode == "ingest":
    from kg.rdf.index.dumpindex import DumpIndex
    index = DumpIndex(args["index"])
    t = time.perf_counter()
    segs = index.segments(args["dump"])
    t1 = time.perf_counter()
    report = index.ingest(args["dump"])
    out = {{"seconds": time.perf_counter() - t, "segments_seconds": t1 - t,
           "lexicon_seconds": time.perf_counter() - t1, "bytes": report["bytes"], "lexicon": report["lexicon"],
           "triples": sum(f["triples"] for f in report["files"])}}
else:
    from kg.routes import build_table
    from kg.routes.base import Context
    from kg.rdf.route import CorpusInput
    t = time.perf_counter()
    inp = CorpusInput.from_options({{"corpus": args["corpus"], "dump": [args["dump"]], "features": args["features"]}})
    table = build_table(inp, Context(home=args["home"]))  # a temporary store: a new corpus, the index built
    out = {{"seconds": time.perf_counter() - t, "shape": [table.n_instances, table.n_features],
           "mentions": table.meta.get("n_mentions"), "entities": table.meta.get("n_entities")}}
out["process_seconds"] = time.perf_counter() - t0
try:  # VmHWM starts afresh at exec; ru_maxrss keeps the forking parent's (the generator's) peak
    hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
    out["peak_rss_mb"] = int(hwm.split()[1]) / 1024
except (OSError, StopIteration):
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


# The same steps with the code of an older commit (its API: read from the commit; see --against).
OLD_CHILD = {
    # 4756336 (and the rounds before kg/rdf): the route under kg/dbpedia, a run spec and spec_table
    "kg.dbpedia": r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
t0 = time.perf_counter()
mode, args = sys.argv[1], json.loads(sys.argv[2])
if mode == "ingest":
    from kg.dbpedia.index import DumpIndex
    t = time.perf_counter()
    report = DumpIndex(args["index"]).ingest(args["dump"])
    out = {{"seconds": time.perf_counter() - t, "lexicon": report["lexicon"]}}
else:
    from kg.dbpedia.batches import spec_table
    from kg.runs.inputs import dbpedia_source
    t = time.perf_counter()
    spec = dbpedia_source(args["corpus"], {{"dump": args["dump"], "features": args["features"]}})
    table = spec_table(spec, cache_dir=args["cache"])
    out = {{"seconds": time.perf_counter() - t, "shape": [table.n_instances, table.n_features],
           "mentions": table.meta.get("n_mentions"), "entities": table.meta.get("n_entities")}}
out["process_seconds"] = time.perf_counter() - t0
hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
out["peak_rss_mb"] = int(hwm.split()[1]) / 1024
print(json.dumps(out))
""",
}


def old_checkout(commit: str) -> tuple[Path, str]:
    """A detached worktree of the repository at ``commit`` (``/tmp/kgfs-<commit>``, reused when there), and
    which of :data:`OLD_CHILD`'s APIs its code has."""
    full = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{commit}^{{commit}}"],
                          capture_output=True, text=True, check=True).stdout.strip()
    where = Path(tempfile.gettempdir()) / f"kgfs-{commit}"
    head = subprocess.run(["git", "-C", str(where), "rev-parse", "HEAD"], capture_output=True, text=True)
    if not (where.is_dir() and head.returncode == 0 and head.stdout.strip() == full):
        if where.exists():
            raise SystemExit(f"{where} exists and is not a worktree at {commit}: remove it first")
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where), full], check=True,
                       capture_output=True)
    if (where / "kg" / "dbpedia" / "batches.py").is_file():
        return where, "kg.dbpedia"
    if (where / "kg" / "routes" / "__init__.py").is_file():
        return where, "kg.routes"
    raise SystemExit(f"no known API to build a corpus's table at {commit}")


def child(mode: str, *, code_root: Path = ROOT, api: str = "kg.routes", env: dict | None = None, **args) -> dict:
    code = (CHILD if api == "kg.routes" else OLD_CHILD[api]).format(root=str(code_root))
    t = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", code, mode, json.dumps(args, default=str)], capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(code_root), **(env or {})})
    if res.returncode:
        raise RuntimeError(f"{mode} failed ({code_root}):\n{res.stderr[-3000:]}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    out["wall"] = time.perf_counter() - t
    return out


def measure(n: int, data: Path, against: str | None = None, repeat: int = 1) -> dict:
    d = dumps_for(data, n)
    dump, meta = d / "dump", json.loads((d / "meta.json").read_text())
    load = os.getloadavg()[0]
    print(f"\n== {meta['triples']:,} triples ({sum(f.stat().st_size for f in dump.iterdir()) / 1e6:.0f} MB bz2), "
          f"load average {load:.1f}", flush=True)
    res = {"n": n, "triples": meta["triples"], "load": load}
    res["parse"] = child("parse", dump=dump)
    print(f"pyoxigraph bare parse   : {res['parse']['seconds']:7.1f} s   "
          f"peak RSS {res['parse']['peak_rss_mb']:6.0f} MB", flush=True)
    home = Path(tempfile.mkdtemp(prefix="kgfs-bench-", dir=data))
    try:
        cache = home / "dbpedia-cache"
        ing = res["ingest"] = child("ingest", dump=dump, index=cache / "index")
        ratio = ing["segments_seconds"] / res["parse"]["seconds"]
        print(f"ingest (kgfs ingest)    : {ing['seconds']:7.1f} s   peak RSS {ing['peak_rss_mb']:6.0f} MB   "
              f"= files {ing['segments_seconds']:.1f} s ({ratio:.2f}x the bare parse; target <= 2x) "
              f"+ lexicon {ing['lexicon_seconds']:.1f} s ({ing['lexicon']['n_surface_forms']:,} forms); "
              f"index {ing['bytes'] / 1e6:.0f} MB on disk", flush=True)
        old = None
        if against:
            where, api = old_checkout(against)
            old_home = home / f"old-{against}"  # its own kgfs home, cache and index
            old = {"code_root": where, "api": api, "cache": old_home / "dbpedia-cache",
                   "env": {"KGFS_HOME": str(old_home), "KGFS_CACHE": str(old_home / "cache")}}
            r = child("ingest", code_root=where, api=api, env=old["env"], dump=dump, index=old["cache"] / "index")
            print(f"ingest at {against:<13} : {r['seconds']:7.1f} s   peak RSS {r['peak_rss_mb']:6.0f} MB   "
                  f"({where}, {api})", flush=True)
        res["corpora"], res["against"] = {}, {}
        for corpus in corpora(d):
            for features in ("types", "categories"):
                key = f"{corpus.name}/{features}"
                new_runs, old_runs = [], []
                for _ in range(repeat):  # interleaved: both sides see the same load
                    new_runs.append(child("corpus", corpus=corpus, dump=dump, features=features, home=home))
                    new_runs[-1]["load"] = os.getloadavg()[0]
                    if old is not None:
                        old_runs.append(child("corpus", code_root=old["code_root"], api=old["api"], env=old["env"],
                                              corpus=corpus, dump=dump, features=features, cache=old["cache"]))
                        old_runs[-1]["load"] = os.getloadavg()[0]
                r = res["corpora"][key] = min(new_runs, key=lambda x: x["seconds"])
                r["all_seconds"] = [x["seconds"] for x in new_runs]
                print(f"new corpus {corpus.name:<15} {features:<10}: {r['seconds']:5.1f} s route "
                      f"({r['process_seconds']:.1f} s with imports)   peak RSS {r['peak_rss_mb']:6.0f} MB   "
                      f"{r['shape'][0]} x {r['shape'][1]}, {r['mentions']} mentions   (load {r['load']:.1f}"
                      f"{'; min of ' + str(repeat) if repeat > 1 else ''})", flush=True)
                if old_runs:
                    o = res["against"][key] = min(old_runs, key=lambda x: x["seconds"])
                    o["all_seconds"] = [x["seconds"] for x in old_runs]
                    print(f"  at {against:<26}: {o['seconds']:5.1f} s route ({o['process_seconds']:.1f} s with "
                          f"imports)   peak RSS {o['peak_rss_mb']:6.0f} MB   {o['shape'][0]} x {o['shape'][1]}, "
                          f"{o['mentions']} mentions   (load {o['load']:.1f})", flush=True)
                    print(f"  this checkout / {against}: {r['seconds'] / o['seconds']:.2f}x "
                          f"({r['seconds']:.2f} s vs {o['seconds']:.2f} s)", flush=True)
        if old is not None:
            loads = [x["load"] for x in res["against"].values()]
            print(f"\n== per new corpus: this checkout vs {against} (load average {min(loads):.1f}-{max(loads):.1f})")
            for features in ("types", "categories"):
                keys = [k for k in res["corpora"] if k.endswith("/" + features)]
                mine = [res["corpora"][k]["seconds"] for k in keys]
                theirs = [res["against"][k]["seconds"] for k in keys]
                each = "   ".join(f"{k.split('/')[0]} {m:.2f} s vs {t:.2f} s ({m / t:.2f}x)"
                                   for k, m, t in zip(keys, mine, theirs))
                print(f"{features:<10}: {each}   ratio of the totals {sum(mine) / sum(theirs):.2f}", flush=True)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return res


def growth(results: dict) -> None:
    """Fit time ~ size^k over the sizes measured; extrapolate to 100M triples."""
    runs = sorted(results.values(), key=lambda r: r["triples"])
    if len(runs) < 2:
        return
    x = np.log([r["triples"] for r in runs])
    sizes = ", ".join(f"{r['triples'] / 1e6:.0f}M" for r in runs)
    print(f"\n== growth over {sizes} triples (log-log slopes)")
    big = math.log(100e6)

    def fit(values, what, unit, fmt="{:.1f}"):
        k, b = np.polyfit(x, np.log(values), 1)
        print(f"{what:<34}: exponent {k:5.2f}   at 100M: {fmt.format(math.exp(b + k * big))} {unit}")
        return k

    fit([r["ingest"]["seconds"] for r in runs], "ingest time", "s", "{:.0f}")
    fit([r["ingest"]["bytes"] / 1e6 for r in runs], "index on disk", "MB", "{:.0f}")
    fit([r["ingest"]["peak_rss_mb"] for r in runs], "ingest peak RSS", "MB", "{:.0f}")
    for key in runs[0]["corpora"]:
        k = fit([r["corpora"][key]["seconds"] for r in runs], f"per corpus {key}", "s")
        fit([r["corpora"][key]["peak_rss_mb"] for r in runs], "  peak RSS", "MB", "{:.0f}")
        print(f"{'':<34}  target exponent <= 0.3: {'OK' if k <= 0.3 else 'ABOVE'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", nargs="+", default=["1M", "5M"], help="dump sizes, e.g. 1M 5M 20M")
    ap.add_argument("--data", default=str(Path(tempfile.gettempdir()) / "kgfs-bench-dbpedia"),
                    help="where generated dumps are kept (reused by later runs)")
    ap.add_argument("--results", help="JSON file of results, extended by this run (default: in --data)")
    ap.add_argument("--against", metavar="COMMIT",
                    help="also time each new corpus with this commit's code (e.g. 4756336), in the same run")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each new corpus (the minimum is kept)")
    args = ap.parse_args()
    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    path = Path(args.results or data / "results.json")
    results = json.loads(path.read_text()) if path.is_file() else {}
    for size in args.sizes:
        n = int(float(size[:-1]) * {"K": 1e3, "M": 1e6}[size[-1].upper()]) if size[-1].isalpha() else int(size)
        results[str(n)] = measure(n, data, args.against, max(1, args.repeat))
        path.write_text(json.dumps(results, indent=1))
    growth(results)


if __name__ == "__main__":
    main()
