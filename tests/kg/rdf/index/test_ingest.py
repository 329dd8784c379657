"""The segment pass (kg.rdf.index.ingest): what it counts does not depend on how its batches fall."""

import numpy as np

from kg.rdf.index import columns, ingest
from kg.rdf.index.ingest import build_segment
from kg.rdf.vocabulary import WIKIDATA

ABOUT, Q = "<http://schema.org/about>", "http://www.wikidata.org/entity/Q"


def test_every_link_counts_for_the_prior_past_the_first_batch(tmp_path):
    # more links than one batch: each batch is counted, and none is held until the end (was: the first batch
    # counted, the others gathered in memory for the whole pass and then dropped)
    n, targets = ingest._BATCH * 2 + 1234, 1000
    with open(tmp_path / "l.nt", "w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(f"<https://en.wikipedia.org/wiki/A{i}> {ABOUT} <{Q}{i % targets}> .\n")
    info = build_segment(tmp_path / "l.nt", tmp_path / "seg", vocabulary=WIKIDATA)
    counts = np.load(tmp_path / "seg" / "inlinks.count.npy")
    assert info["counts"]["inlinks"] == targets
    assert int(counts.sum()) == n
    assert sorted(set(counts.tolist())) == [n // targets, n // targets + 1]


def _scan_peak(tmp_path, items: int) -> int:
    """Peak traced memory of the segment pass's scan over ``items`` Wikidata-shaped items (a type, a label, a
    sitelink), with a 256 kB sort budget."""
    import tracemalloc

    import pyoxigraph as ox

    from kg.rdf.index.extsort import SpillPool

    entity = "http://www.wikidata.org/entity/Q"
    p31, label = ox.NamedNode("http://www.wikidata.org/prop/direct/P31"), ox.NamedNode(WIKIDATA.labels[0])
    about = ox.NamedNode("http://schema.org/about")

    def quads():
        for i in range(items):
            s = ox.NamedNode(f"{entity}{i}")
            yield s, p31, ox.NamedNode(f"{entity}{i % 50}"), None
            yield s, label, ox.Literal(f"item number {i}", language="en"), None
            yield ox.NamedNode(f"https://en.wikipedia.org/wiki/Item_{i}"), about, s, None

    folder = tmp_path / f"seg{items}"
    folder.mkdir()
    builder = ingest._Builder(folder, WIKIDATA, SpillPool(1 << 18))
    tracemalloc.start()
    try:
        assert builder.scan(quads(), lambda: None) == 3 * items
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert builder.write()["counts"]["inlinks"] == items
    return peak


def test_the_passs_peak_memory_does_not_grow_with_the_file(tmp_path, monkeypatch):
    # batches of 1,024 rows, a 256 kB sort budget: a file four times longer peaks at about the same memory
    # (was: the link objects of every batch after the first, and 16 bytes per label, held for the whole pass)
    monkeypatch.setattr(ingest, "_BATCH", 1 << 10)
    monkeypatch.setattr(ingest, "_PROGRESS_EVERY", 1 << 10)
    monkeypatch.setattr(columns, "_OFFSETS_BLOCK", 1 << 10)  # (a string column's offsets written 1,024 at a time)
    small, large = _scan_peak(tmp_path, 10_000), _scan_peak(tmp_path, 40_000)
    assert large < small * 1.15, (small, large)
