"""Reading a DBpedia-shaped instance-types dump into facts, against pyoxigraph's bare parse.

Target (issue 6): reading a 1,000,000-triple ``instance_types``-style N-Triples dump into the
types of 10,000 entities within 3x the time pyoxigraph needs just to parse the file (rdflib's own
parser is ~40x), with peak memory under 1 GB.

    python benchmarks/bench_dump.py [--triples 1000000] [--entities 10000] [--rdflib]

The dump is generated (seeded) in a temporary directory: DBpedia resources with 1-6
``rdf:type`` objects each, drawn from the real DBpedia ontology classes when
``../shared/data/dbpedia`` is there (else 529 generated class IRIs), plus ``owl:Thing`` and
schema.org types like the real file. The read runs in a child process so that its peak RSS is
measured alone.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
R = "http://dbpedia.org/resource/"


def ontology_classes() -> list[str]:
    owl = ROOT.parent / "shared" / "data" / "dbpedia" / "dbpedia_3.9.owl"
    if owl.is_file():
        found = sorted(set(re.findall(r'owl:Class rdf:about="(http://dbpedia.org/ontology/[^"]+)"', owl.read_text())))
        if found:
            return found
    return [f"http://dbpedia.org/ontology/Class{i}" for i in range(529)]


def entity_name(e: int) -> str:
    # DBpedia-like local names: parentheses, commas, non-ASCII
    return f"Entity_{e}" + ("_(disambiguation)" if e % 3 == 0 else ",_Place" if e % 3 == 1 else "_Caf\u00e9")


def generate(path: Path, n_triples: int, seed: int = 0) -> int:
    rng = random.Random(seed)
    classes = ontology_classes()
    extra = ["http://www.w3.org/2002/07/owl#Thing", "http://schema.org/Person", "http://schema.org/Place"]
    n = e = 0
    with open(path, "w", encoding="utf-8") as fh:
        while n < n_triples:
            k = min(rng.randint(1, 6), n_triples - n)
            s = f"<{R}{entity_name(e)}>"
            for j in range(k):
                t = extra[rng.randrange(3)] if j == 0 and rng.random() < 0.5 else rng.choice(classes)
                fh.write(f"{s} <{RDF_TYPE}> <{t}> .\n")
            n += k
            e += 1
    return e


CHILD = r"""
import json, random, resource, sys, time
sys.path.insert(0, {root!r})
mode, path, n_ent, n_entities = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
import pyoxigraph as ox
t = time.perf_counter()
if mode == "parse":
    n = 0
    for _ in ox.parse(path=path, format=ox.RdfFormat.N_TRIPLES):
        n += 1
    out = {{"triples": n}}
elif mode == "rdflib":
    import rdflib
    g = rdflib.Graph(); g.parse(path, format="nt")
    out = {{"triples": len(g)}}
else:
    from kg.rdf.sources.dump import DumpSource
    sys.path.insert(0, {bench!r})
    from bench_dump import entity_name
    rng = random.Random(1)
    ents = ["http://dbpedia.org/resource/" + entity_name(i) for i in rng.sample(range(n_ent), n_entities)]
    t = time.perf_counter()  # choosing the entities is not part of the read
    src = DumpSource([path])
    facts = src.types(ents)
    found = {{e: v for e, v in facts.items() if v}}
    out = {{"entities_found": len(found), "type_facts": sum(len(v) for v in found.values())}}
out["seconds"] = time.perf_counter() - t
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def child(mode: str, path: Path, n_ent: int, n_entities: int) -> dict:
    code = CHILD.format(root=str(ROOT), bench=str(Path(__file__).resolve().parent))
    res = subprocess.run([sys.executable, "-c", code, mode, str(path), str(n_ent), str(n_entities)],
                         capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--triples", type=int, default=1_000_000)
    ap.add_argument("--entities", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=3, help="best of N for both timings")
    ap.add_argument("--rdflib", action="store_true", help="also time rdflib's own parser (slow)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "instance_types_en.nt"
        t = time.perf_counter()
        n_ent = generate(path, args.triples)
        print(f"generated {args.triples:,} triples about {n_ent:,} entities "
              f"({path.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t:.1f} s")
        parses, reads = [], []
        for _ in range(args.repeats):  # interleaved, best of N: the machine is shared
            parses.append(child("parse", path, n_ent, args.entities))
            reads.append(child("read", path, n_ent, args.entities))
        parse = min(parses, key=lambda r: r["seconds"])
        read = min(reads, key=lambda r: r["seconds"])
        ratio = read["seconds"] / parse["seconds"]
        print(f"pyoxigraph parse only : {parse['seconds']:.2f} s  ({parse['triples']:,} triples, "
              f"peak RSS {parse['peak_rss_mb']:.0f} MB)")
        print(f"kgfs DumpSource.types : {read['seconds']:.2f} s  ({args.entities:,} entities asked, "
              f"{read['entities_found']:,} found, {read['type_facts']:,} dbo type facts, "
              f"peak RSS {read['peak_rss_mb']:.0f} MB)")
        print(f"ratio read/parse      : {ratio:.2f}x  (target <= 3x)  {'OK' if ratio <= 3 else 'TOO SLOW'}")
        print(f"peak memory           : {read['peak_rss_mb']:.0f} MB  (target < 1024 MB)  "
              f"{'OK' if read['peak_rss_mb'] < 1024 else 'TOO MUCH'}")
        if args.rdflib:
            rl = child("rdflib", path, n_ent, args.entities)
            print(f"rdflib parse          : {rl['seconds']:.1f} s  = {rl['seconds'] / parse['seconds']:.0f}x "
                  f"pyoxigraph (peak RSS {rl['peak_rss_mb']:.0f} MB)")


if __name__ == "__main__":
    main()
