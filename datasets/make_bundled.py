"""Derive the bundled default dataset and (re)write the dataset manifest.

Usage (from the repository root; the data folder is ``../shared/data`` by default)::

    python datasets/make_bundled.py [--data ../shared/data] [--no-manifest]

``bundled/DM-BP`` is derived from the AIRE file ``ageing/aire/DM-BP.txt`` and the GO release
of 2014-06-13 (``go/gene_ontology_ext_13062014.obo.gz``):

1. ``annotations.tsv``: for each gene (file order), its most specific GO terms: the terms of
   its row that have no child (under ``is_a``) in the row. Since every row is closed under
   ``is_a`` ancestors, this is the smallest set whose upward closure gives the row back.
2. ``go-2014-06-13-subset.obo.gz``: the GO stanzas of every term used and all of its
   ``is_a`` ancestors (all namespaces of the terms used), in the AIRE file's column order, with
   the tags the reader needs (``id``, ``name``, ``namespace``, ``alt_id``, ``is_a``, and
   ``relationship`` lines whose target is in the subset); definitions, synonyms and
   cross-references are left out to keep it small. Obsolete terms are not included.
   gzip with mtime 0, so the bytes are reproducible.
3. ``labels.tsv``: class 1 -> ``pro-longevity``, 0 -> ``anti-longevity``.

The manifest (``datasets/manifest.toml``) is then rewritten with sha256 and size of every file,
the upstream URLs, and each dataset's shape; entries it does not generate (e.g. ``synthetic/*``
added by hand) are kept as they are.
"""

from __future__ import annotations

import argparse
import gzip
import io
import sys
import tomllib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from kg.datasets import Registry, _parse_entry  # noqa: E402
from kg.files import sha256_file  # noqa: E402
from kg.ontology import read_obo  # noqa: E402
from kg.ontology.published import hierarchy_for_terms, read_aire_matrix  # noqa: E402

GO_REL = "go/gene_ontology_ext_13062014.obo.gz"
AIRE_RAW = "https://raw.githubusercontent.com/andywan0125/AIRE-Journal/HEAD/"
RPV_RAW = "https://raw.githubusercontent.com/pablonsilva/RPV/HEAD/Data/datasets/"
ORGANISMS = {"CE": "Worm", "DM": "Fly", "MM": "Mouse", "SC": "Yeast"}
SPECIES = {"CE": "C. elegans", "DM": "D. melanogaster", "MM": "M. musculus", "SC": "S. cerevisiae"}
AIRE_SETS = ["BP", "CC", "MF", "BPCC", "BPMF", "MFCC", "BPMFCC"]
RPV_SETS = ["BP", "CC", "MF", "BP+CC", "BP+MF", "CC+MF", "BP+CC+MF"]
LOD = {  # name -> (arff stem, csv stem, description)
    "lod/Cities": ("LDCities", "LDCities", "212 cities, quality of living (high/medium/low); DBpedia/YAGO types"),
    "lod/NYDailyheadings": ("LDNYDailyheadings", "LDNYDailyheadings",
                            "1016 NY Daily News headlines, positive/negative; DBpedia/YAGO types"),
    "lod/SportsTweetsT": ("LDSportsTweetst", "LDSportsTweetst", "1179 tweets, sports or not; DBpedia/YAGO types"),
}
LOD_HIER = {
    "lod/SportsTweetsC": ("LDSportsTweetsc",
                          "Sports Tweets category hierarchy (direct skos:broader, cyclic); hierarchy only"),
    "lod/StumbleUpon": ("LDStumbleupon", "StumbleUpon DMOZ path labels (not unique); hierarchy only"),
}
LIC_AIRE = "none stated by the authors; GO: CC BY 4.0"
LIC_RPV = "none stated by the authors; GO: CC BY 4.0"
LIC_LOD = "none stated by the authors; DBpedia: CC BY-SA 3.0"


# ---------------------------------------------------------------------- bundled DM-BP
def _stanzas(obo_gz: Path) -> tuple[list[str], dict[str, list[str]]]:
    header: list[str] = []
    terms: dict[str, list[str]] = {}
    cur: list[str] | None = None
    kind = None
    with gzip.open(obo_gz, "rt", encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.startswith("["):
                kind = line
                cur = []
                continue
            if kind is None:
                header.append(line)
            elif kind == "[Term]":
                if line.startswith("id: "):
                    terms[line[4:].strip()] = cur
                cur.append(line)
    return header, terms


def make_bundled(data: Path, out: Path) -> dict[str, Path]:
    go_path = data / GO_REL
    go = read_obo(go_path)
    x, terms, genes, y = read_aire_matrix(data / "ageing/aire/DM-BP.txt")
    h, report = hierarchy_for_terms(go, terms)
    assert not report["missing_terms"], report
    xi = x.astype(np.int32).tocsr()
    has_child = (xi @ h.parent_matrix.astype(np.int32)).tocsr()  # (gene, term): some child present
    specific = xi - xi.multiply(has_child > 0)
    specific.eliminate_zeros()
    specific = specific.tocsr()
    out.mkdir(parents=True, exist_ok=True)

    lines = ["gene\tgo_id"]
    for i, g in enumerate(genes):
        for j in sorted(specific.indices[specific.indptr[i] : specific.indptr[i + 1]], key=lambda j: terms[j]):
            lines.append(f"{g}\t{terms[j]}")
    (out / "annotations.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")

    names = {1: "pro-longevity", 0: "anti-longevity"}
    lab = ["gene\tlabel"] + [f"{g}\t{names[int(v)]}" for g, v in zip(genes, y)]
    (out / "labels.tsv").write_text("\n".join(lab) + "\n", encoding="utf-8")

    # every ancestor of the used terms (all namespaces), AIRE column order first
    from kg.ontology import ancestor_closure

    used = sorted({terms[j] for j in specific.indices})
    full = go.hierarchy
    keep_mask = ancestor_closure(full, [full.index[t] for t in used])
    keep_ids = full.node_ids[keep_mask].tolist()
    order = [t for t in terms if keep_mask[full.index[t]]] + [t for t in keep_ids if t not in set(terms)]
    keep = set(order)
    header, stanzas = _stanzas(go_path)
    head_keep = ("format-version:", "data-version:", "date:", "default-namespace:", "ontology:")
    text = [ln for ln in header if ln.startswith(head_keep)]
    text.append(
        "remark: subset of gene_ontology_ext_13062014.obo: the terms of the AIRE DM-BP dataset and all "
        "their is_a ancestors; def/synonym/xref removed; made by kgfs datasets/make_bundled.py"
    )
    tags = ("id:", "name:", "namespace:", "alt_id:", "is_a:")
    for t in order:
        text.append("")
        text.append("[Term]")
        for ln in stanzas[t]:
            if ln.startswith(tags):
                text.append(ln)
            elif ln.startswith("relationship:"):
                parts = ln.split()
                if len(parts) >= 3 and parts[2] in keep:
                    text.append(ln)
    raw = ("\n".join(text) + "\n").encode("utf-8")
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write(raw)
    (out / "go-2014-06-13-subset.obo.gz").write_bytes(buf.getvalue())
    return {
        "ontology": out / "go-2014-06-13-subset.obo.gz",
        "annotations": out / "annotations.tsv",
        "labels": out / "labels.tsv",
    }


# ---------------------------------------------------------------------- manifest
def _file(data: Path, rel: str, url: str, **extra) -> dict:
    p = data / rel
    return {"path": rel, "url": url, "sha256": sha256_file(p), "size": p.stat().st_size, **extra}


def _go_file(data: Path) -> dict:
    p = data / GO_REL
    with gzip.open(p, "rb") as fh:
        import hashlib

        content = hashlib.sha256(fh.read()).hexdigest()
    return _file(
        data, GO_REL, AIRE_RAW + "Datasets/SourceData/gene_ontology_ext_13062014.obo.zip",
        archive="zip", member="gene_ontology_ext_13062014.obo", content_sha256=content,
    )


def build_entries(data: Path, bundled: dict[str, Path]) -> dict[str, dict]:
    e: dict[str, dict] = {}
    files = {}
    for role, p in bundled.items():
        rel = p.relative_to(HERE).as_posix()
        files[role] = {"path": rel, "bundled": True, "sha256": sha256_file(p), "size": p.stat().st_size}
    e["bundled/DM-BP"] = {
        "loader": "go_bundle",
        "description": "D. melanogaster ageing genes (GenAge 2014), pro- vs anti-longevity, GO Biological "
        "Process terms (GO 2014-06-13); the default dataset of `kgfs run`",
        "licence": "derived from AIRE-Journal data (no licence stated) and GO (CC BY 4.0)",
        "upstream": AIRE_RAW + "Datasets/GeneratedDatasets/ExperimentalDatasets/Fly/DM-BP.txt",
        "derivation": "datasets/make_bundled.py: annotations.tsv = for each gene of ageing/aire/DM-BP.txt "
        "its most specific GO terms (the terms of its row without an is_a child in the row, i.e. the "
        "smallest set whose is_a closure gives the row back); go-2014-06-13-subset.obo.gz = the stanzas "
        "of those terms and all their is_a ancestors from go/gene_ontology_ext_13062014.obo.gz "
        "(id/name/namespace/alt_id/is_a, relationship lines inside the subset); labels.tsv = class "
        "1 -> pro-longevity, 0 -> anti-longevity. Loading it rebuilds aire/DM-BP exactly.",
        "files": files,
    }
    go = _go_file(data)
    for org in ORGANISMS:
        for s in AIRE_SETS:
            rel = f"ageing/aire/{org}-{s}.txt"
            e[f"aire/{org}-{s}"] = {
                "loader": "aire",
                "description": f"{SPECIES[org]} ageing genes (Wan & Freitas, AIRE), GO {s}, closed under is_a",
                "licence": LIC_AIRE,
                "upstream": "https://github.com/andywan0125/AIRE-Journal",
                "files": {
                    "table": _file(
                        data, rel,
                        AIRE_RAW + f"Datasets/GeneratedDatasets/ExperimentalDatasets/{ORGANISMS[org]}/{org}-{s}.txt",
                    ),
                    "ontology": go,
                },
            }
    for org in ORGANISMS:
        for s in RPV_SETS:
            fname = f"{org}-{s}-threshold-3.arff"
            e[f"rpv/{org}-{s}"] = {
                "loader": "rpv",
                "description": f"{SPECIES[org]} ageing genes (da Silva et al., RPV), GO {s}, terms in >= 3 genes; "
                "hierarchy from the 2014-06-13 GO is_a (the authors' 2015 GO is not available)",
                "licence": LIC_RPV,
                "upstream": "https://github.com/pablonsilva/RPV",
                "files": {"table": _file(data, f"ageing/rpv/{fname}", RPV_RAW + fname), "ontology": go},
            }
    for name, (a, c, desc) in LOD.items():
        e[name] = {
            "loader": "lod",
            "description": desc + " (SHSEL/RPV papers, frequency >= 3)",
            "licence": LIC_LOD,
            "upstream": "https://github.com/pablonsilva/RPV",
            "files": {
                "table": _file(data, f"lod/{a}.arff", RPV_RAW + f"{a}.arff"),
                "hierarchy": _file(data, f"lod/{c}.csv", RPV_RAW + f"{c}.csv"),
            },
        }
    for name, (c, desc) in LOD_HIER.items():
        e[name] = {
            "loader": "lod_hierarchy",
            "description": desc,
            "licence": LIC_LOD,
            "upstream": "https://github.com/pablonsilva/RPV",
            "files": {"hierarchy": _file(data, f"lod/{c}.csv", RPV_RAW + f"{c}.csv")},
        }
    return e


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v)} to TOML")


def _toml_key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else _toml_value(k)


def to_toml(entries: dict[str, dict]) -> str:
    out = [
        "# kgfs dataset registry: one entry per dataset `source/dataset`.",
        "# Files: `path` is relative to the data mirror (or to this folder when `bundled = true`),",
        "# `url` the upstream copy, `sha256`/`size` of the file. A dataset has a `loader`",
        "# (aire, rpv, lod, lod_hierarchy, go_bundle) or a `generator = \"module:function\"` with `params`.",
        "# Regenerate the generated entries with `python datasets/make_bundled.py`; other entries are kept.",
        "",
        "schema = 1",
    ]
    for name, e in entries.items():
        out.append("")
        out.append(f"[datasets.{_toml_value(name)}]")
        for k, v in e.items():
            if k != "files":
                out.append(f"{_toml_key(k)} = {_toml_value(v)}")
        for role, f in e.get("files", {}).items():
            out.append(f"[datasets.{_toml_value(name)}.files.{_toml_key(role)}]")
            for k, v in f.items():
                out.append(f"{_toml_key(k)} = {_toml_value(v)}")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=HERE.parent.parent / "shared" / "data")
    ap.add_argument("--no-manifest", action="store_true", help="only derive the bundled files")
    args = ap.parse_args(argv)
    bundled = make_bundled(args.data, HERE / "bundled" / "DM-BP")
    for p in bundled.values():
        print(f"{p.relative_to(HERE)}: {p.stat().st_size} bytes")
    if args.no_manifest:
        return 0
    manifest = HERE / "manifest.toml"
    entries = build_entries(args.data, bundled)
    if manifest.is_file():  # keep entries this script does not generate
        old = tomllib.loads(manifest.read_text(encoding="utf-8")).get("datasets", {})
        for name, e in old.items():
            if name not in entries:
                entries[name] = e
    # shapes, by loading each dataset through the registry itself
    reg = Registry({n: _parse_entry(n, e) for n, e in entries.items()}, HERE)
    for name, e in entries.items():
        if e.get("loader") in (None, "lod_hierarchy") or e.get("generator"):
            continue
        t = reg.load(name, mirror=args.data, offline=True)
        e["n_instances"], e["n_features"] = int(t.n_instances), int(t.n_features)
    text = to_toml(entries)
    tomllib.loads(text)  # what we write must parse
    manifest.write_text(text, encoding="utf-8")
    print(f"{manifest.relative_to(HERE.parent)}: {len(entries)} datasets")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
