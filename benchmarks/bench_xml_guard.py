"""What the XML guard costs (issue 37 point 1): :func:`kg.xmlguard.check_xml` against pyoxigraph's parse of the same
file, in the same run.

Every RDF/XML file kgfs reads (an ``.owl`` / ``.rdf`` / ``.xml`` dump, an ``--ontology`` file) is first scanned by
the guard (expat, in blocks: entities and nesting bounded) and then parsed by pyoxigraph. This script times, on the
real DBpedia ontology (``dbpedia/dbpedia_3.9.owl`` and ``classes_dbpedia_3.9.owl`` of the data mirror, as
``../shared/data/README.md`` lists them), the guard alone, the bare pyoxigraph parse (every triple iterated) and
``DumpReader`` (guard + parse + the file's sha256, what kgfs runs), alternating, ``--repeat`` times each (median),
and prints the guard's cost as a ratio to the parse. It also times the refusal of the two hostile files of the
issue (a billion-laughs OWL file, 200,000 levels of nesting), which pyoxigraph alone never finishes.

Run: ``PYTHONPATH=. python benchmarks/bench_xml_guard.py [--mirror ../shared/data] [--repeat 7]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pyoxigraph as ox  # noqa: E402

from kg.errors import InputFormatError  # noqa: E402
from kg.rdf.dumpfiles import DumpReader  # noqa: E402
from kg.xmlguard import check_xml  # noqa: E402


def _parse(path: Path) -> int:
    return sum(1 for _ in ox.parse(path=path, format=ox.RdfFormat.RDF_XML, base_iri=path.resolve().as_uri()))


def _median(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _hostile(folder: Path) -> dict[str, Path]:
    sys.path.insert(0, str(ROOT))
    from tests.kg.test_xmlguard import deep, laughs

    out = {"billion laughs": folder / "laughs.owl", "200,000 levels": folder / "deep.owl"}
    out["billion laughs"].write_text(laughs())
    out["200,000 levels"].write_text(deep(200_000))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", type=Path, default=Path(os.environ.get("KGFS_DATA_MIRROR")
                                                        or ROOT.parent / "shared" / "data"))
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    files = [args.mirror / "dbpedia" / "dbpedia_3.9.owl", args.mirror / "dbpedia" / "classes_dbpedia_3.9.owl"]
    print(f"{'file':<28} {'MB':>5} {'triples':>8} {'guard s':>8} {'parse s':>8} {'guard/parse':>12} "
          f"{'DumpReader s':>13} {'reader/parse':>13}")
    for f in files:
        n = _parse(f)  # warm the page cache
        guard, parse, reader = [], [], []
        for _ in range(args.repeat):  # alternating, so that load on the machine hits all three alike
            guard.append(_median(lambda f=f: check_xml(f), 1))
            parse.append(_median(lambda f=f: _parse(f), 1))
            reader.append(_median(lambda f=f: sum(1 for _ in DumpReader(f)), 1))
        g, p, r = (statistics.median(x) for x in (guard, parse, reader))
        print(f"{f.name:<28} {f.stat().st_size / 1e6:>5.2f} {n:>8,} {g:>8.3f} {p:>8.3f} {g / p:>12.2f} "
              f"{r:>13.3f} {r / p:>13.2f}")
    with tempfile.TemporaryDirectory() as d:
        for what, path in _hostile(Path(d)).items():
            t0 = time.perf_counter()
            try:
                check_xml(path)
                said = "ACCEPTED"
            except InputFormatError as exc:
                said = str(exc).split(": ", 1)[1][:70]
            print(f"{what:<16} {path.stat().st_size / 1e3:>9.1f} KB refused in {time.perf_counter() - t0:.4f} s: "
                  f"{said}")


if __name__ == "__main__":
    main()
