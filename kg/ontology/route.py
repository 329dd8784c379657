"""The ontology route as an input of a run: any ontology, an annotation file and labels -> the closed table.

Any ontology :func:`kg.ontology.read.read_ontology` reads (OBO, OWL, GO.db-style tables; a sub-ontology by
``--root``), any annotation format :func:`kg.ontology.annotations.read_annotation_set` reads (GAF 2.x, GPAD + GPI,
HPO ``phenotype.hpoa``, two-column tables), labels from a table, from an aspect of the annotations or from
a list of positives (:func:`kg.ontology.facts.read_facts`). Two steps: ``facts`` finds the labels, then reads the
annotations of the labelled instances (the others' rows are dropped as the file is read) into ``facts.json``;
``table`` reads the ontology and builds the table (:func:`kg.ontology.term_table`). The up-front check
(:meth:`OntologyInput.check`) refuses relations, namespaces and roots the ontology lacks and labels of
instances without annotations. The registry's GO bundles (loader ``go_bundle``, such as the default
``bundled/DM-BP``) and ontology datasets (loader ``ontology``: ``hpo/inheritance``,
``human/disease-genes-BP``) are inputs of this kind (:meth:`OntologyInput.from_dataset`).

Examples
--------
>>> from kg.routes import resolve_dataset
>>> inp = resolve_dataset({"dataset": "bundled/DM-BP"})
>>> inp.kind, inp.name, inp.check(None)["classes"]
('ontology', 'bundled/DM-BP', {'anti-longevity': 36, 'pro-longevity': 91})
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.errors import KgfsError, ParameterError, few, param
from kg.ontology.formats import FORMAT_CHOICES, chosen_format, instance_noun
from kg.routes.base import MIN_SUPPORT, NAME, Context, FileRef, FunctionStep, Input, Option, check_nonempty, table_step

if TYPE_CHECKING:
    from kg.table import FeatureTable

# Imported where they are used: the ontology reader and the store (numpy, scipy); the command line reads this
# module's options for `kgfs --help`, which stays light.

__all__ = ["OntologyInput"]


#: Registry file roles (besides ontology, annotations, labels) and the fields they fill.
_EXTRA_FILES = ("ontology_terms", "ontology_obsolete", "gpi", "positives", "instances")


def _ids(values) -> tuple[str, ...] | None:
    """Term ids from an option's values (``HP:1 HP:2``, ``HP:1+HP:2``), ``None`` when none."""
    if values is None:
        return None
    if isinstance(values, str):
        values = [values]
    out = tuple(dict.fromkeys(p.strip() for v in values for p in re.split(r"[+,;\s]", str(v)) if p.strip()))
    return out or None


@dataclass(frozen=True)
class OntologyInput(Input):
    """Instances (genes, diseases, ...) annotated with the terms of an ontology, and their labels.

    Any ontology kgfs reads (:func:`kg.ontology.read.read_ontology`: OBO, OWL, GO.db-style tables)
    with any annotation file (:func:`kg.ontology.annotations.read_annotation_set`: GAF 2.x, GPAD + GPI,
    HPO ``phenotype.hpoa``, two-column tables). Labels come from a ``instance<TAB>label`` table, from
    the annotations themselves (``label_from_aspect``: the mode of inheritance of an HPO disease
    is its aspect-``I`` annotation), or from a list of the positive instances. Only the labelled
    instances' annotations are kept while the file is read.

    Attributes
    ----------
    name : str
    ontology, annotations : FileRef
        The ontology (OBO, OWL, or a child -> parent table; plain or ``.gz``); the annotation file.
    labels : FileRef, optional
        ``instance<TAB>label``.
    namespaces : str, optional
        ``BP``, ``BP+CC``, ... (must occur in the ontology).
    relations : tuple of str
        Relations that become edges (default ``("is_a",)``).
    evidence : tuple of str, optional
        Evidence codes to keep.
    on_obsolete, unknown : str, optional
        Obsolete and unknown term ids in the annotations (see :func:`kg.ontology.term_table`).
    min_support : int, optional
    roots : tuple of str, optional
        The sub-ontology under these terms (``HP:0000118``).
    ontology_terms, ontology_obsolete : FileRef, optional
        The term tables of a child -> parent table ontology.
    annotation_format : str, optional
        A registered format (:data:`kg.ontology.formats.ANNOTATION_FORMATS`: ``gaf``, ``gpad``, ``hpoa``,
        ``table``, ...; default: detected).
    gpi : FileRef, optional
        GPAD: the GPI file of its gene products.
    aspects : tuple of str, optional
        Keep annotations of these aspects (GAF ``P``/``C``/``F``, hpoa ``P``/``I``/``C``/``M``).
    label_from_aspect : str, optional
        The label of an instance is its annotation of this aspect (hpoa ``I``).
    label_terms : tuple of str, optional
        With ``label_from_aspect``: the terms that are labels (default: every term of that aspect);
        instances with two of them or none are left out and counted.
    positives : FileRef, optional
        The instances labelled ``1`` (first column; a first line without a digit is a header);
        the other instances are labelled ``0``.
    instances : FileRef, optional
        The instances of the table (first column of a table with a header), filtered by
        ``instances_where`` (``column=value``).
    instances_where : str, optional

    Examples
    --------
    >>> from kg.routes import resolve_dataset
    >>> resolve_dataset({"dataset": "bundled/DM-BP"}).relations
    ('is_a',)
    """

    kind = "ontology"
    route = "ontology"
    title = "the ontology route (GO, HPO or any OBO/OWL ontology; GAF, GPAD, hpoa or table annotations; labels)"
    options = (
        Option("--ontology", "ontology: OBO, OWL (RDF/XML) or a child<TAB>parent table such as GO.db's "
                             "go_parents.tsv (plain or .gz)", metavar="FILE", path=True),
        Option("--obo", "the same as --ontology (the name it had when only OBO was read)", metavar="FILE", path=True),
        Option("--annotations", "annotations: GAF 2.x, GPAD 1.1/2.0, HPO phenotype.hpoa or a two-column "
                                "instance<TAB>term table", metavar="FILE", path=True),
        Option("--labels", "instance<TAB>label table (the class of each instance)", metavar="FILE", path=True),
        Option("--namespaces", "GO namespaces to keep: BP, CC, MF or e.g. BP+CC (must occur in the ontology)",
               metavar="NS"),
        Option("--root", "keep the sub-ontology under these terms, e.g. HP:0000118 (HPO's phenotypic "
                         "abnormalities)", metavar="ID", many=True, dest="roots"),
        Option("--relations", "ontology relations that become edges (default is_a; e.g. is_a part_of, or all; "
                              "must occur in the ontology)", metavar="REL", many=True),
        Option("--evidence", "keep only these evidence codes (GAF, hpoa, GPAD as ECO ids or GO codes)",
               metavar="CODE", many=True),
        Option("--on-obsolete", "obsolete term ids in annotations", choices=("raise", "replace", "drop")),
        Option("--unknown", "term ids not in the ontology", choices=("raise", "drop")),
        Option("--annotation-format", "format of --annotations (default: detected)", choices=FORMAT_CHOICES),
        Option("--gpi", "GPAD: the GPI file of its gene products (annotations of others are skipped)",
               metavar="FILE", path=True),
        Option("--aspects", "keep annotations of these aspects: GAF P C F, hpoa P (phenotype) I (inheritance) "
                            "C (course) M (modifier)", metavar="A", many=True),
        Option("--label-from-aspect", "labels from the annotations of this aspect (hpoa I: mode of inheritance); "
                                      "they never become features", metavar="A"),
        Option("--label-terms", "with --label-from-aspect: the terms that are labels, e.g. HP:0000007 HP:0000006 "
                                "(instances with two or none are left out)", metavar="ID", many=True),
        Option("--positives", "instances labelled 1 (first column); every other instance is labelled 0",
               metavar="FILE", path=True),
        Option("--instances", "the instances of the table (first column of a table with a header)",
               metavar="FILE", path=True),
        Option("--instances-where", "filter --instances rows by a column, e.g. gene_type=protein-coding",
               metavar="COL=VALUE"),
        Option("--ontology-terms", "a child<TAB>parent ontology's terms table (id, namespace, name)",
               metavar="FILE", path=True),
        Option("--ontology-obsolete", "a child<TAB>parent ontology's obsolete terms table", metavar="FILE",
               path=True),
        MIN_SUPPORT, NAME,
    )
    selected_by = ("ontology", "obo", "annotations")
    watch_field = "labels"
    dataset_loaders = ("go_bundle", "ontology")

    ontology: FileRef | None = None
    annotations: FileRef | None = None
    labels: FileRef | None = None
    namespaces: str | None = None
    relations: tuple[str, ...] = ("is_a",)
    evidence: tuple[str, ...] | None = None
    on_obsolete: str | None = None
    unknown: str | None = None
    min_support: int | None = None
    roots: tuple[str, ...] | None = None
    ontology_terms: FileRef | None = None
    ontology_obsolete: FileRef | None = None
    annotation_format: str | None = None
    gpi: FileRef | None = None
    aspects: tuple[str, ...] | None = None
    label_from_aspect: str | None = None
    label_terms: tuple[str, ...] | None = None
    positives: FileRef | None = None
    instances: FileRef | None = None
    instances_where: str | None = None

    # ----------------------------------------------------------------- making one
    @classmethod
    def from_options(cls, values: Mapping[str, Any]) -> OntologyInput:
        onto = values.get("ontology") or values.get("obo")
        if onto is None or values.get("annotations") is None:
            raise ParameterError(f"the ontology route needs both {param('ontology')} (or {param('obo')}) and "
                                 f"{param('annotations')}")
        given = "ontology" if values.get("ontology") else "obo"
        files = {"ontology": FileRef.of(onto, given), "annotations": FileRef.of(values["annotations"], "annotations"),
                 "labels": FileRef.of(values.get("labels"), "labels")}
        for role in _EXTRA_FILES:
            files[role] = FileRef.of(values.get(role), role)
        return cls._with_options(values.get("name") or Path(values["annotations"]).stem, files, {}, values)

    @classmethod
    def from_dataset(cls, name, paths, options, values) -> OntologyInput:
        files = {role: FileRef.of(paths.get(role)) for role in ("ontology", "annotations", "labels", *_EXTRA_FILES)}
        return cls._with_options(values.get("name") or name, files, options, values)

    @classmethod
    def _with_options(cls, name, files: Mapping[str, FileRef | None], defaults: Mapping,
                      values: Mapping) -> OntologyInput:
        opts = {**dict(defaults), **{k: v for k, v in values.items() if v is not None}}
        relations = tuple(opts.get("relations") or ("is_a",))
        if opts.get("label_terms") and not opts.get("label_from_aspect"):
            raise ParameterError(f"{param('label_terms')} goes with {param('label_from_aspect')}")
        if opts.get("instances_where") and not files.get("instances"):
            raise ParameterError(f"{param('instances_where')} goes with {param('instances')}")
        if opts.get("instances_where") and "=" not in str(opts["instances_where"]):
            raise ParameterError(f"{param('instances_where')} must look like COLUMN=VALUE, "
                                 f"got {opts['instances_where']!r}")
        sources = [param(f) for f, on in (("labels", files.get("labels")), ("positives", files.get("positives")),
                                          ("label_from_aspect", opts.get("label_from_aspect"))) if on]
        if len(sources) > 1:
            raise ParameterError(f"labels come from one source: {' or '.join(sources)}, not both")
        return cls(name=name, ontology=files["ontology"], annotations=files["annotations"], labels=files.get("labels"),
                   namespaces=opts.get("namespaces"),
                   relations=("is_a",) if relations == ("is_a",) else tuple(sorted(relations)),
                   evidence=tuple(sorted(opts["evidence"])) if opts.get("evidence") else None,
                   on_obsolete=opts.get("on_obsolete"), unknown=opts.get("unknown"),
                   min_support=opts.get("min_support"), roots=_ids(opts.get("roots")),
                   ontology_terms=files.get("ontology_terms"), ontology_obsolete=files.get("ontology_obsolete"),
                   annotation_format=chosen_format(opts.get("annotation_format")),
                   gpi=files.get("gpi"), aspects=tuple(sorted(_ids(opts["aspects"]))) if opts.get("aspects") else None,
                   label_from_aspect=opts.get("label_from_aspect"), label_terms=_ids(opts.get("label_terms")),
                   positives=files.get("positives"), instances=files.get("instances"),
                   instances_where=opts.get("instances_where"))

    # ----------------------------------------------------------------- reading
    def _how(self):
        from kg.ontology.annotations import AnnotationOptions
        from kg.ontology.formats import AUTO, read_extra_file

        return AnnotationOptions(format=self.annotation_format or AUTO, evidence=self.evidence, aspects=self.aspects,
                                 gpi=read_extra_file("gpi", self.gpi.path) if self.gpi else None)

    def read_facts(self) -> tuple[Any, dict | None]:
        """The annotations (an :class:`~kg.ontology.annotations.AnnotationSet`) and the labels (``None`` without any).

        The labels are found first, so that the annotations of unlabelled instances are skipped
        while the file is read (a GAF of 50,000 genes of which 1,000 are labelled keeps 1,000).

        Examples
        --------
        >>> from kg.routes import resolve_dataset
        >>> ann, labels = resolve_dataset({}).read_facts()
        >>> len(ann.positive), len(labels)
        (127, 127)
        """
        from kg.ontology.facts import read_facts

        return read_facts(self.annotations.path, self._how(), self._label_source())

    def _label_source(self):
        from kg.ontology.facts import LabelSource

        return LabelSource(labels=self.labels.path if self.labels else None,
                           label_from_aspect=self.label_from_aspect, label_terms=self.label_terms,
                           positives=self.positives.path if self.positives else None,
                           instances=self.instances.path if self.instances else None,
                           instances_where=self.instances_where)

    def read_ontology(self):
        """The ontology, its sub-ontology under :attr:`roots` (:func:`kg.ontology.read.read_ontology`)."""
        from kg.ontology.read import read_ontology

        return read_ontology(self.ontology.path, relations=self.relations, namespaces=self.namespaces,
                             roots=self.roots, terms=self.ontology_terms.path if self.ontology_terms else None,
                             obsolete=self.ontology_obsolete.path if self.ontology_obsolete else None)

    def feature_names(self, features, ctx=None) -> dict[str, str]:
        """The terms' names in the ontology (the table's meta has them too: ``term_names``).

        Examples
        --------
        >>> from kg.routes import resolve_dataset
        >>> resolve_dataset({}).feature_names(["GO:0008150", "GO:9999999"])
        {'GO:0008150': 'biological_process'}
        """
        names = self.read_ontology().names
        return {f: names[f] for f in features if names.get(f)}

    def build(self, facts: tuple[Any, dict | None] | None = None) -> FeatureTable:
        """The closed table from the facts (read when not given) and the ontology.

        Examples
        --------
        >>> from kg.routes import resolve_dataset
        >>> resolve_dataset({}).build().shape
        (127, 699)
        """
        from kg.ontology import term_table

        ann, labels = facts if facts is not None else self.read_facts()
        go = self.read_ontology()
        kw = {k: v for k, v in (("min_support", self.min_support), ("unknown", self.unknown),
                                ("on_obsolete", self.on_obsolete)) if v is not None}
        table = term_table(go, ann, labels, **kw)
        if table.n_features == 0:  # the most frequent term says which min_support would work
            check_nonempty(table, self.min_support, term_table(go, ann, labels, **{**kw, "min_support": 1}))
        table.meta.setdefault("dataset", self.name)
        return table

    # ----------------------------------------------------------------- a run
    def check(self, ctx: Context | None) -> dict:
        from kg.ontology.read import check_ontology_options

        check_ontology_options(self.ontology.path, relations=self.relations, namespaces=self.namespaces)
        if self.roots:
            self.read_ontology()  # an unknown or obsolete --root fails here, naming it
        ann, labels = self.read_facts()
        where = None if labels is None else (self.labels or self.positives or self.annotations).path
        if labels is not None and not labels:
            raise KgfsError(f"{where}: no labels")
        if labels is not None and not ann.positive and ann.report.get("skipped_instances"):
            raise KgfsError(f"no gene of {where} ({param('labels')}) has an annotation in "
                            f"{self.annotations.path} ({param('annotations')}); e.g. {few(list(labels), 3)}")
        if not ann.positive:
            raise KgfsError(f"{self.annotations.path}: no annotation ({param('annotations')}"
                            + (f", {param('evidence', ' '.join(self.evidence))}" if self.evidence else "")
                            + (f", {param('aspects', ' '.join(self.aspects))}" if self.aspects else "") + ")")
        out: dict = {"n_annotated": len(ann.positive)}
        if labels is not None:
            missing = [g for g in labels if g not in ann.positive]
            if len(missing) == len(labels):
                raise KgfsError(f"no gene of {where} ({param('labels')}) has an annotation in "
                                f"{self.annotations.path} ({param('annotations')}); e.g. {few(missing, 3)}")
            out["classes"] = dict(sorted(Counter(str(v) for g, v in labels.items() if g in ann.positive).items()))
        return out

    def _options(self) -> dict:
        opts = {"namespaces": self.namespaces, "relations": list(self.relations) if self.relations != ("is_a",)
                else None, "evidence": list(self.evidence) if self.evidence else None,
                "on_obsolete": self.on_obsolete, "unknown": self.unknown, "min_support": self.min_support,
                "roots": list(self.roots) if self.roots else None,
                "ontology_terms": self.ontology_terms.sha256 if self.ontology_terms else None,
                "ontology_obsolete": self.ontology_obsolete.sha256 if self.ontology_obsolete else None}
        return {k: v for k, v in sorted(opts.items()) if v is not None}

    def _facts_options(self) -> dict:
        opts = {"annotation_format": self.annotation_format, "gpi": self.gpi.sha256 if self.gpi else None,
                "aspects": list(self.aspects) if self.aspects else None, "label_from_aspect": self.label_from_aspect,
                "label_terms": list(self.label_terms) if self.label_terms else None,
                "positives": self.positives.sha256 if self.positives else None,
                "instances": self.instances.sha256 if self.instances else None,
                "instances_where": self.instances_where}
        return {k: v for k, v in sorted(opts.items()) if v is not None}

    def steps(self, ctx: Context):
        def facts_key(up):
            key = {"annotations": self.annotations.sha256, "labels": self.labels.sha256 if self.labels else None,
                   "evidence": list(self.evidence) if self.evidence else None}
            more = self._facts_options()
            return {**key, "reading": more} if more else key

        def facts(folder: Path, up) -> tuple[dict, dict]:
            from kg.store import write_json

            ann, labels = self.read_facts()
            # pairs, not mappings: the JSON is written with sorted keys, and the genes' order is the table's
            # row order (so `kgfs run` folds equal those of the Python API on the same files) and the labels'
            # order that of the file (the genes left out are named in it)
            pairs = None if labels is None else [[g, v] for g, v in labels.items()]
            write_json(folder / "facts.json", {"annotations": [[g, t] for g, t in ann.positive.items()],
                                               "negative": [[g, t] for g, t in ann.negative.items()],
                                               "report": ann.report, "label_terms": list(ann.label_terms),
                                               "labels": pairs})
            n_annotations = int(sum(len(v) for v in ann.positive.values()))
            return {"facts": "facts.json"}, {"n_genes": len(ann.positive), "n_annotations": n_annotations,
                                             "n_labels": None if labels is None else len(labels),
                                             "instance_noun": instance_noun(ann.report.get("format"))}

        def table(up) -> FeatureTable:
            from kg.ontology.annotations import AnnotationSet

            stored = json.loads(up["facts"].path("facts").read_text(encoding="utf-8"))
            labels = stored["labels"]
            ann = AnnotationSet(dict(stored["annotations"]), dict(stored.get("negative") or []), {},
                                dict(stored.get("report") or {}), tuple(stored.get("label_terms") or ()))
            return self.build((ann, None if labels is None else dict(labels)))

        return [FunctionStep("facts", facts_key, facts),
                table_step(lambda up: {"facts": up["facts"].hash, "ontology": self.ontology.sha256, "name": self.name,
                                       "options": self._options()}, table, needs=("facts",))]
