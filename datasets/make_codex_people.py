"""Derive the bundled corpus of ``wikidata/codex-people`` from the real Wikidata facts of CoDEx.

Usage (from the repository root; the data folder is ``../shared/data`` by default)::

    python datasets/make_codex_people.py [--data ../shared/data]

``bundled/codex-people/people.csv`` lists the humans of ``wikidata/codex_truthy.nt.gz`` (``wdt:P31
wd:Q5``) that have exactly one country of citizenship (``wdt:P27``) and that country is one of the
four most frequent (United States Q30, Germany Q183, United Kingdom Q145, France Q142), sorted by
QID: ``id`` and ``entity`` are the QID, ``label`` the country's name. The task is then to tell a
person's country of citizenship from the rest of what Wikidata says about them, P27 itself excluded
(``--exclude-properties P27``; the registry entry says so). Nothing is added to the facts: the file
is a selection of the dump's own statements.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
WD, WDT = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
COUNTRIES = {"Q30": "United States", "Q183": "Germany", "Q145": "United Kingdom", "Q142": "France"}


def people(dump: Path) -> list[tuple[str, str]]:
    """``(QID, country name)`` of the humans with one P27, among :data:`COUNTRIES`, sorted by QID number."""
    human, country = set(), defaultdict(set)
    with gzip.open(dump, "rt", encoding="utf-8") as fh:
        for line in fh:
            s, p, o = line.split(" ", 2)
            o = o.rstrip().removesuffix(" .")
            if p == f"<{WDT}P31>" and o == f"<{WD}Q5>":
                human.add(s[len(WD) + 1:-1])
            elif p == f"<{WDT}P27>" and o.startswith(f"<{WD}"):
                country[s[len(WD) + 1:-1]].add(o[len(WD) + 1:-1])
    rows = [(q, COUNTRIES[next(iter(c))]) for q, c in country.items()
            if q in human and len(c) == 1 and next(iter(c)) in COUNTRIES]
    return sorted(rows, key=lambda r: int(r[0][1:]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=HERE.parent.parent / "shared" / "data")
    args = ap.parse_args()
    out = HERE / "bundled" / "codex-people" / "people.csv"
    rows = people(args.data / "wikidata" / "codex_truthy.nt.gz")
    with open(out, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["id", "entity", "label"])
        w.writerows((q, q, c) for q, c in rows)
    data = out.read_bytes()
    print(f"{out}: {len(rows)} people; sha256 = {hashlib.sha256(data).hexdigest()}, size = {len(data)}")


if __name__ == "__main__":
    main()
