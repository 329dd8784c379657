"""Derive the bundled corpora of ``nodeclass/aifb`` and ``nodeclass/mutag`` from their standard splits.

Usage (from the repository root; the data folder is ``../shared/data`` by default, else ``--download``
fetches the upstream files the manifest names, checking their sha256)::

    python datasets/make_nodeclass.py [--data ../shared/data | --download]

The two benchmarks of the R-GCN paper (Schlichtkrull et al. 2018, Table 2) are distributed as an RDF graph
without the label relation and two TSV files, ``trainingSet.tsv`` and ``testSet.tsv`` (GitHub
alexanderdesouza/latent-GCN @ 9a3b709, ``data/aifb``, ``data/mutag``; lines end with CRLF). Their columns are
the entity (AIFB ``person``, MUTAG ``bond``: a compound), a row number written as a float (``id``: ``2.0``)
and the label (AIFB ``label_affiliation``: the IRI of one of 4 research groups; MUTAG ``label_mutagenic``:
``1.0`` / ``0.0``).

``bundled/nodeclass/<name>.tsv`` holds the same instances in one file, the training rows first and then the
test rows, each in its file's order, with four columns:

- ``id``: the entity IRI's local name (``id1909instance``, ``d187``; unique in each benchmark);
- ``entity``: the entity IRI, as the split file gives it;
- ``label``: AIFB: the research group's IRI, as given; MUTAG: ``1`` (mutagenic) or ``0`` (``1.0`` / ``0.0``
  written as integers);
- ``split``: ``train`` or ``test``, the file the row comes from: the benchmark's standard split.

Nothing else changes: every instance and label of the two files, no other. The registry's loader reads the
``split`` column (:mod:`kg.rdf.datasets`); ``kgfs evaluate --protocol split`` tunes on the ``train`` rows
and scores the ``test`` rows once (:mod:`selection.evaluation.split`).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import re
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: benchmark -> (entity column, label column)
COLUMNS = {"aifb": ("person", "label_affiliation"), "mutag": ("bond", "label_mutagenic")}


def _local_name(iri: str) -> str:
    return re.split(r"[/#]", iri)[-1]


def _label(name: str, value: str) -> str:
    if name == "mutag":  # 1.0 / 0.0
        return str(int(float(value)))
    return value


def rows(name: str, train: bytes, test: bytes) -> list[tuple[str, str, str, str]]:
    """``(id, entity, label, split)`` of the training rows, then the test rows (each file's order).

    Examples
    --------
    >>> rows("mutag", b"bond\\tid\\tlabel_mutagenic\\r\\nhttp://x#d1\\t1.0\\t1.0\\r\\n",
    ...      b"bond\\tid\\tlabel_mutagenic\\r\\nhttp://x#d2\\t2.0\\t0.0\\r\\n")
    [('d1', 'http://x#d1', '1', 'train'), ('d2', 'http://x#d2', '0', 'test')]
    """
    entity_col, label_col = COLUMNS[name]
    out, seen = [], set()
    for split, data in (("train", train), ("test", test)):
        reader = csv.DictReader(io.StringIO(data.decode("utf-8").replace("\r\n", "\n")), delimiter="\t")
        for r in reader:
            entity = r[entity_col].strip()
            ident = _local_name(entity)
            if ident in seen:
                raise ValueError(f"{name}: {ident} twice in the split files")
            seen.add(ident)
            out.append((ident, entity, _label(name, r[label_col].strip()), split))
    return out


def _upstream(name: str, role: str, data_dir: Path | None) -> bytes:
    """An upstream split file (``derived_from`` of the manifest entry), from the data folder or downloaded,
    checked against its sha256."""
    with open(HERE / "manifest.toml", "rb") as fh:
        entry = tomllib.load(fh)["datasets"][f"nodeclass/{name}"]["derived_from"][role]
    if data_dir is not None:
        data = (data_dir / entry["path"]).read_bytes()
    else:
        import requests

        resp = requests.get(entry["url"], timeout=60)
        resp.raise_for_status()
        data = resp.content
    got = hashlib.sha256(data).hexdigest()
    if got != entry["sha256"]:
        raise SystemExit(f"{entry['path']}: sha256 {got}, the manifest says {entry['sha256']}")
    return data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=HERE.parent.parent / "shared" / "data")
    ap.add_argument("--download", action="store_true", help="fetch the split files from their upstream URLs")
    args = ap.parse_args()
    for name in COLUMNS:
        data_dir = None if args.download else args.data
        out = HERE / "bundled" / "nodeclass" / f"{name}.tsv"
        found = rows(name, _upstream(name, "train", data_dir), _upstream(name, "test", data_dir))
        with open(out, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, delimiter="\t", lineterminator="\n")
            w.writerow(["id", "entity", "label", "split"])
            w.writerows(found)
        data = out.read_bytes()
        n_test = sum(r[3] == "test" for r in found)
        print(f"{out}: {len(found)} instances ({len(found) - n_test} train, {n_test} test); "
              f"sha256 = {hashlib.sha256(data).hexdigest()}, size = {len(data)}")


if __name__ == "__main__":
    main()
