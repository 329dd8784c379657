"""Look-ups of a knowledge source in a 3 x 3 grid search (3 generation settings x 3 thresholds, 5 folds).

``Pipeline([("kg", KGFeatures(source, ...)), ("select", SHSEL(hierarchy="from_input")), ("clf", BernoulliNB())])``
in ``GridSearchCV`` over ``kg__category_depth`` (DBpedia-shaped dump index, categories) or ``kg__min_support``
(bundled GO data) and ``select__threshold``: 45 fits of the pipeline plus the refit. The source is wrapped
so that every key its underlying fetch is asked for is counted:

- DBpedia-shaped: an :class:`~kg.rdf.sources.index.IndexSource` whose ``_fetch`` (entities' categories and
  types, read from the index) and ``_walk`` (the categories' broader parents) count their keys;
- GO: :class:`~kg.ontology.source.OntologyAnnotations` whose ``types`` counts the genes asked and whose file
  reading is counted.

Two runs, in the same process: ``KGFeatures`` as it is (clones share the source; :class:`kg.lookups.SharedLookups`
remembers each entity's answer and each category's parents), and the baseline, scikit-learn's default: ``clone``
deep-copies the source (and its in-memory cache) for every fit, and the transformer asks the copy directly.
Both grids must give the same scores. A third part runs the dump behind a SPARQL endpoint (the ``oxigraph``
server on loopback) and counts the keys and the queries sent; scikit-learn's deep copy cannot copy a
:class:`~kg.rdf.sources.sparql.SparqlSource` at all (thread-local state), so its baseline gives each clone a new
source. The index part counts, for the baseline's category walks, only the nodes a walk starts from (its inner
levels are read inside the index), so the baseline's ``broader`` count there is a lower bound.

Run: ``PYTHONPATH=. python benchmarks/bench_grid_lookups.py [--entities 600]`` (needs ../shared/data for the
DBpedia ontology; the GO part runs on the bundled data alone).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sklearn.base import BaseEstimator  # noqa: E402
from sklearn.model_selection import GridSearchCV, StratifiedKFold  # noqa: E402
from sklearn.naive_bayes import BernoulliNB  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402

from kg.features import KGFeatures  # noqa: E402
from kg.ontology.source import OntologyAnnotations  # noqa: E402
from kg.rdf.index.dumpindex import index_for_cache  # noqa: E402
from kg.rdf.sources.index import IndexSource  # noqa: E402
from kg.rdf.sources.sparql import SparqlSource  # noqa: E402
from selection.hierarchical import SHSEL  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("KGFS_SHARED_DATA", ROOT.parent / "shared" / "data"))
BUNDLED = ROOT / "datasets" / "bundled" / "DM-BP"
THRESHOLDS = [0.9, 0.99, 1.0]

#: Keys asked of the underlying fetch, per question (module-level: deep copies of a source count here too).
ASKED: dict[str, Counter] = {}


def count(kind: str, keys) -> None:
    ASKED.setdefault(kind, Counter()).update(keys)


class CountingIndexSource(IndexSource):
    """The dump index's source, counting the keys its index look-ups are asked for."""

    def _fetch(self, kind, todo):
        count(kind, todo)
        return super()._fetch(kind, todo)

    def _walk(self, kind, start, depth):
        start = sorted(set(start))
        count(kind, start)  # a walk of depth 1 (what SharedLookups asks): exactly these nodes' parents
        return super()._walk(kind, start, depth)


class CountingSparqlSource(SparqlSource):
    """A SPARQL source, counting the keys its queries ask for (per question) and the queries sent."""

    def _batches(self, stage, values, build):
        count(stage, values)
        return super()._batches(stage, values, build)

    def _http(self, query, timeout=None):
        count("queries sent", [query])
        return super()._http(query, timeout)


class CountingOntology(OntologyAnnotations):
    """The ontology + annotations source, counting the genes asked and the times its files are read."""

    def types(self, entities):
        entities = list(entities)
        count("genes", entities)
        return super().types(entities)

    def _load(self):
        if self._onto is None:
            count("file reads", ["ontology + annotations"])
        return super()._load()


class Uncached(KGFeatures):
    """The baseline: scikit-learn's default clone (deep copies of the source) and no shared look-ups."""

    __sklearn_clone__ = BaseEstimator.__sklearn_clone__

    def _lookups(self):
        return self.source


class UncachedNewSource(Uncached):
    """The baseline for a source that cannot be deep-copied (a SPARQL source holds thread-local state): each
    clone gets a new source over the same endpoint, as without shared look-ups it must."""

    def __sklearn_clone__(self):
        params = self.get_params(deep=False)
        params["source"] = type(self.source)(self.source.url)
        return type(self)(**params)


def run_grid(kg, grid, X, y) -> tuple[GridSearchCV, float]:
    pipe = Pipeline([("kg", kg), ("select", SHSEL(hierarchy="from_input")), ("clf", BernoulliNB())])
    ASKED.clear()
    t0 = time.perf_counter()
    search = GridSearchCV(pipe, grid, cv=StratifiedKFold(5, shuffle=True, random_state=0)).fit(X, y)
    return search, time.perf_counter() - t0


def report(name: str, runs: dict, n_values: int) -> None:
    print(f"\n== {name}: 3 x 3 grid, 5 folds (45 pipeline fits + refit), {n_values} values")
    rows = []
    for label, (search, seconds, asked) in runs.items():
        row = {"run": label, "seconds": round(seconds, 2), "best score": round(float(search.best_score_), 4)}
        for kind, c in sorted(asked.items()):
            row[f"{kind}: asked"] = sum(c.values())
            row[f"{kind}: distinct"] = len(c)
            row[f"{kind}: max per key"] = max(c.values())
        rows.append(row)
    frame = pd.DataFrame(rows).set_index("run").T
    print(frame.to_string())
    (shared, s_sec, s_asked), (base, b_sec, b_asked) = runs["shared look-ups"], runs["baseline (no sharing)"]
    same = np.array_equal(shared.cv_results_["mean_test_score"], base.cv_results_["mean_test_score"])
    once = all(max(c.values()) == 1 for c in s_asked.values())
    ratio = sum(sum(c.values()) for c in b_asked.values()) / max(1, sum(sum(c.values()) for c in s_asked.values()))
    print(f"each key looked up once with KGFeatures: {once}; baseline / shared look-ups: {ratio:.1f}x; "
          f"time baseline / shared: {b_sec / s_sec:.2f}x; same scores: {same}")


def dbpedia(n: int, workdir: Path) -> None:
    from tests.kg.dbpedia_shaped import write_dump

    iris, labels = write_dump(workdir / "dump", SHARED, n=n)
    X, y = np.array(iris, dtype=object), np.array(labels)
    index = index_for_cache(workdir / "index")
    CountingIndexSource(workdir / "dump", index).segments  # the index is built once, before the runs
    grid = {"kg__category_depth": [1, 2, 3], "select__threshold": THRESHOLDS}
    runs = {}
    for label, cls in (("shared look-ups", KGFeatures), ("baseline (no sharing)", Uncached)):
        source = CountingIndexSource(workdir / "dump", index)
        search, seconds = run_grid(cls(source, features="categories"), grid, X, y)
        runs[label] = (search, seconds, {k: Counter(v) for k, v in ASKED.items()})
    report(f"DBpedia-shaped dump index (categories; {n} entities)", runs, n)
    if shutil.which("oxigraph") is None:
        print("\n(SPARQL part skipped: the oxigraph server binary is not installed)")
        return
    from tests.kg.servers import OxigraphServer

    server = OxigraphServer([workdir / "dump" / "ontology.owl", workdir / "dump" / "instances.nt"], workdir).start()
    try:
        runs = {}
        try:
            Uncached(CountingSparqlSource(server.url)).__sklearn_clone__()
        except TypeError as exc:
            print(f"\n(scikit-learn's default clone cannot deep-copy a SparqlSource: {exc}; the baseline gives each "
                  "clone a new source over the endpoint)")
        for label, cls in (("shared look-ups", KGFeatures), ("baseline (no sharing)", UncachedNewSource)):
            source = CountingSparqlSource(server.url)
            search, seconds = run_grid(cls(source, features="categories"), grid, X, y)
            runs[label] = (search, seconds, {k: Counter(v) for k, v in ASKED.items()})
        report(f"the same dump behind a SPARQL endpoint (oxigraph on loopback; {n} entities)", runs, n)
    finally:
        server.stop()


def go() -> None:
    genes = pd.read_csv(BUNDLED / "labels.tsv", sep="\t", dtype=str)
    grid = {"kg__min_support": [1, 3, 5], "select__threshold": THRESHOLDS}
    runs = {}
    for label, cls in (("shared look-ups", KGFeatures), ("baseline (no sharing)", Uncached)):
        source = CountingOntology(BUNDLED / "go-2014-06-13-subset.obo.gz", BUNDLED / "annotations.tsv")
        search, seconds = run_grid(cls(source), grid, genes["gene"], genes["label"])
        runs[label] = (search, seconds, {k: Counter(v) for k, v in ASKED.items()})
    report("bundled GO data (DM-BP genes, types = GO BP terms)", runs, len(genes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=600, help="entities of the DBpedia-shaped dump")
    args = parser.parse_args()
    print(f"load average: {', '.join(f'{v:.2f}' for v in os.getloadavg())}")
    go()
    if (SHARED / "dbpedia" / "dbpedia_3.9.owl").is_file():
        with tempfile.TemporaryDirectory() as tmp:
            dbpedia(args.entities, Path(tmp))
    else:
        print(f"\n(DBpedia-shaped part skipped: {SHARED / 'dbpedia' / 'dbpedia_3.9.owl'} not found)")


if __name__ == "__main__":
    main()
