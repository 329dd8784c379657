"""The GO route as an input of a run: an OBO ontology, gene annotations and labels -> the closed table.

Two steps: ``facts`` reads the annotations (gene -> direct terms, GAF rows filtered by evidence)
and the labels into ``facts.json``; ``table`` reads the ontology and builds the table
(:func:`kg.go.build_table`). The up-front check (:meth:`OntologyInput.check`) refuses relations
and namespaces the OBO file lacks and labels of genes without annotations, in about a second.
The registry's GO bundles (loader ``go_bundle``, such as the default ``bundled/DM-BP``) are
inputs of this kind (:meth:`OntologyInput.from_dataset`), so they run the route step by step too.

Examples
--------
>>> from kg.routes import resolve_dataset
>>> inp = resolve_dataset({"dataset": "bundled/DM-BP"})
>>> inp.kind, inp.name, inp.check(None)["classes"]
('go', 'bundled/DM-BP', {'anti-longevity': 36, 'pro-longevity': 91})
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.errors import KgfsError, few
from kg.routes.base import MIN_SUPPORT, NAME, Context, FileRef, FunctionStep, Input, Option, check_nonempty, table_step

if TYPE_CHECKING:
    from kg.table import FeatureTable

# Imported where they are used: the ontology reader and the store (numpy, scipy); the command line reads this
# module's options for `kgfs --help`, which stays light.

__all__ = ["OntologyInput"]


@dataclass(frozen=True)
class OntologyInput(Input):
    """Genes annotated with the terms of an ontology (OBO), labelled by a ``gene<TAB>label`` table.

    Attributes
    ----------
    name : str
    ontology, annotations : FileRef
        The OBO file (plain or ``.gz``); a GAF 2.x file or a two-column ``gene<TAB>term`` table.
    labels : FileRef, optional
        ``gene<TAB>label``.
    namespaces : str, optional
        ``BP``, ``BP+CC``, ... (must occur in the OBO file).
    relations : tuple of str
        Relations that become edges (default ``("is_a",)``).
    evidence : tuple of str, optional
        GAF evidence codes to keep.
    on_obsolete, unknown : str, optional
        Obsolete and unknown term ids in the annotations (see :func:`kg.go.build_table`).
    min_support : int, optional
    """

    kind = "go"
    route = "go"
    title = "the GO route (an ontology, gene annotations and labels)"
    options = (
        Option("--obo", "ontology in OBO format (plain or .gz)", metavar="FILE", path=True),
        Option("--annotations", "GAF 2.x file or a two-column gene<TAB>term table", metavar="FILE", path=True),
        Option("--labels", "gene<TAB>label table (the class of each gene)", metavar="FILE", path=True),
        Option("--namespaces", "GO namespaces to keep: BP, CC, MF or e.g. BP+CC (must occur in the OBO file)",
               metavar="NS"),
        Option("--relations", "ontology relations that become edges (default is_a; e.g. is_a part_of, or all; "
                              "must occur in the OBO file)", metavar="REL", many=True),
        Option("--evidence", "GAF: keep only these evidence codes", metavar="CODE", many=True),
        Option("--on-obsolete", "obsolete GO ids in annotations", choices=("raise", "replace", "drop")),
        Option("--unknown", "term ids not in the ontology", choices=("raise", "drop")),
        MIN_SUPPORT, NAME,
    )
    selected_by = ("obo", "annotations")
    watch_field = "labels"
    dataset_loaders = ("go_bundle",)

    ontology: FileRef | None = None
    annotations: FileRef | None = None
    labels: FileRef | None = None
    namespaces: str | None = None
    relations: tuple[str, ...] = ("is_a",)
    evidence: tuple[str, ...] | None = None
    on_obsolete: str | None = None
    unknown: str | None = None
    min_support: int | None = None

    # ----------------------------------------------------------------- making one
    @classmethod
    def from_options(cls, values: Mapping[str, Any]) -> OntologyInput:
        if values.get("obo") is None or values.get("annotations") is None:
            raise KgfsError("the GO route needs both --obo and --annotations")
        return cls._with_options(values.get("name") or Path(values["annotations"]).stem,
                                 FileRef.of(values["obo"], "--obo"), FileRef.of(values["annotations"], "--annotations"),
                                 FileRef.of(values.get("labels"), "--labels"), {}, values)

    @classmethod
    def from_dataset(cls, name, paths, options, values) -> OntologyInput:
        return cls._with_options(values.get("name") or name, FileRef.of(paths["ontology"]),
                                 FileRef.of(paths["annotations"]), FileRef.of(paths.get("labels")), options, values)

    @classmethod
    def _with_options(cls, name, ontology, annotations, labels, defaults: Mapping, values: Mapping) -> OntologyInput:
        opts = {**dict(defaults), **{k: v for k, v in values.items() if v is not None}}
        relations = tuple(opts.get("relations") or ("is_a",))
        return cls(name=name, ontology=ontology, annotations=annotations, labels=labels,
                   namespaces=opts.get("namespaces"),
                   relations=("is_a",) if relations == ("is_a",) else tuple(sorted(relations)),
                   evidence=tuple(sorted(opts["evidence"])) if opts.get("evidence") else None,
                   on_obsolete=opts.get("on_obsolete"), unknown=opts.get("unknown"),
                   min_support=opts.get("min_support"))

    # ----------------------------------------------------------------- reading
    def read_facts(self) -> tuple[dict, dict | None]:
        """The direct annotations (gene -> terms, file order) and the labels (``None`` without a labels file).

        Examples
        --------
        >>> from kg.routes import resolve_dataset
        >>> ann, labels = resolve_dataset({}).read_facts()
        >>> len(ann), len(labels)
        (127, 127)
        """
        from kg.go import read_annotations, read_labels

        ann = read_annotations(self.annotations.path, evidence=self.evidence)
        return ann, read_labels(self.labels.path) if self.labels else None

    def build(self, facts: tuple[dict, dict | None] | None = None) -> FeatureTable:
        """The closed table from the facts (read when not given) and the ontology.

        Examples
        --------
        >>> from kg.routes import resolve_dataset
        >>> resolve_dataset({}).build().shape
        (127, 699)
        """
        from kg.go import build_table, read_obo

        ann, labels = facts if facts is not None else self.read_facts()
        go = read_obo(self.ontology.path, relations=self.relations, namespaces=self.namespaces)
        kw = {k: v for k, v in (("min_support", self.min_support), ("unknown", self.unknown),
                                ("on_obsolete", self.on_obsolete)) if v is not None}
        table = build_table(go, ann, labels, **kw)
        if table.n_features == 0:  # the most frequent term says which --min-support would work
            check_nonempty(table, self.min_support, build_table(go, ann, labels, **{**kw, "min_support": 1}))
        table.meta.setdefault("dataset", self.name)
        return table

    # ----------------------------------------------------------------- a run
    def check(self, ctx: Context | None) -> dict:
        from kg.go.obo import check_obo_options

        check_obo_options(self.ontology.path, relations=self.relations, namespaces=self.namespaces)
        ann, labels = self.read_facts()
        if not ann:
            raise KgfsError(f"{self.annotations.path}: no annotation (--annotations"
                            + (f", --evidence {' '.join(self.evidence)}" if self.evidence else "") + ")")
        out: dict = {"n_annotated": len(ann)}
        if labels is not None:
            if not labels:
                raise KgfsError(f"{self.labels.path}: no labels (--labels)")
            missing = [g for g in labels if g not in ann]
            if len(missing) == len(labels):
                raise KgfsError(f"no gene of {self.labels.path} (--labels) has an annotation in "
                                f"{self.annotations.path} (--annotations); e.g. {few(missing, 3)}")
            out["classes"] = dict(sorted(Counter(str(v) for g, v in labels.items() if g in ann).items()))
        return out

    def _options(self) -> dict:
        opts = {"namespaces": self.namespaces, "relations": list(self.relations) if self.relations != ("is_a",)
                else None, "evidence": list(self.evidence) if self.evidence else None,
                "on_obsolete": self.on_obsolete, "unknown": self.unknown, "min_support": self.min_support}
        return {k: v for k, v in sorted(opts.items()) if v is not None}

    def steps(self, ctx: Context):
        def facts_key(up):
            return {"annotations": self.annotations.sha256, "labels": self.labels.sha256 if self.labels else None,
                    "evidence": list(self.evidence) if self.evidence else None}

        def facts(folder: Path, up) -> tuple[dict, dict]:
            from kg.store import write_json

            ann, labels = self.read_facts()
            # pairs, not mappings: the JSON is written with sorted keys, and the genes' order is the table's
            # row order (so `kgfs run` folds equal those of the Python API on the same files) and the labels'
            # order that of the file (the genes left out are named in it)
            pairs = None if labels is None else [[g, v] for g, v in labels.items()]
            write_json(folder / "facts.json", {"annotations": [[g, t] for g, t in ann.items()], "labels": pairs})
            n_annotations = int(sum(len(v) for v in ann.values()))
            return {"facts": "facts.json"}, {"n_genes": len(ann), "n_annotations": n_annotations,
                                             "n_labels": None if labels is None else len(labels)}

        def table(up) -> FeatureTable:
            stored = json.loads(up["facts"].path("facts").read_text(encoding="utf-8"))
            labels = stored["labels"]
            return self.build((dict(stored["annotations"]), None if labels is None else dict(labels)))

        return [FunctionStep("facts", facts_key, facts),
                table_step(lambda up: {"facts": up["facts"].hash, "ontology": self.ontology.sha256, "name": self.name,
                                       "options": self._options()}, table, needs=("facts",))]
