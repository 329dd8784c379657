"""The segment pass (kg.dbpedia.ingest): what it counts does not depend on how its batches fall."""

import numpy as np

from kg.dbpedia import ingest
from kg.dbpedia.ingest import build_segment
from kg.dbpedia.vocabulary import WIKIDATA

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
