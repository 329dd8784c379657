r"""Instances, their annotations and their labels, read in the order that keeps memory small.

:func:`read_facts` finds the labels first (a ``instance<TAB>label`` table, the annotations of one
aspect such as HPO's mode of inheritance, or a list of positive instances) and then streams the
annotation file keeping only the labelled instances' rows (:func:`kg.ontology.annotations.read_annotation_set`
with ``keep``). The ontology route (:class:`kg.ontology.route.OntologyInput`) and the registry's ``ontology``
loader both read through it.

Examples
--------
>>> import pathlib, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "a.tsv").write_text("g1\tGO:1\ng2\tGO:2\ng3\tGO:1\n")
>>> _ = (d / "labels.tsv").write_text("g1\tyes\ng3\tno\n")
>>> ann, labels = read_facts(d / "a.tsv", None, LabelSource(labels=d / "labels.tsv"))
>>> ann.positive, labels, ann.report["skipped_instances"]
({'g1': ['GO:1'], 'g3': ['GO:1']}, {'g1': 'yes', 'g3': 'no'}, 1)
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from kg.errors import InputFormatError, KgfsError, param
from kg.ontology.annotations import AnnotationOptions, AnnotationSet, lines_of, read_annotation_set, read_labels

__all__ = ["LabelSource", "read_facts"]


@dataclass(frozen=True)
class LabelSource:
    """Where the labels come from (at most one of ``labels``, ``label_from_aspect``, ``positives``).

    Attributes
    ----------
    labels : path, optional
        ``instance<TAB>label``.
    label_from_aspect : str, optional
        The label of an instance is its (one) annotation of this aspect (hpoa ``I``); those
        annotations are never features.
    label_terms : tuple of str, optional
        With ``label_from_aspect``: the terms that are labels (default: every term of the aspect);
        instances with two of them are left out and counted, those with none are skipped.
    positives : path, optional
        The instances labelled ``"1"`` (first column; a first line whose first field has no digit
        is a header); every other instance is ``"0"``.
    instances, instances_where : path, str, optional
        Only the instances of this table (first column), whose column has a value
        (``gene_type=protein-coding``; needs the header).

    Examples
    --------
    >>> LabelSource(label_from_aspect="I", label_terms=("HP:0000007", "HP:0000006")).label_terms
    ('HP:0000007', 'HP:0000006')
    """

    labels: str | os.PathLike | None = None
    label_from_aspect: str | None = None
    label_terms: tuple[str, ...] | None = None
    positives: str | os.PathLike | None = None
    instances: str | os.PathLike | None = None
    instances_where: str | None = None


def read_facts(annotations: str | os.PathLike, how: AnnotationOptions | None,
               source: LabelSource) -> tuple[AnnotationSet, dict[str, str] | None]:
    """The annotations (only the labelled instances' rows kept) and the labels (``None`` without any).

    Parameters
    ----------
    annotations : path-like
        Any format :func:`kg.ontology.annotations.read_annotation_set` reads.
    how : AnnotationOptions, optional
        Its format and filters (``label_aspect`` is set from ``source``).
    source : LabelSource

    Returns
    -------
    (AnnotationSet, dict or None)
        The annotation set's ``report`` also counts the labels (``label_counts``,
        ``left_out_several_labels``, ``positives_listed``, ...) and its ``label_terms`` are the terms
        that are labels.
    """
    how = how or AnnotationOptions()
    if source.label_from_aspect:
        how = AnnotationOptions(**{**how.__dict__, "label_aspect": source.label_from_aspect})
    report: dict = {}
    label_terms: tuple[str, ...] = ()
    keep = None
    labels: dict[str, str] | None = None
    if source.labels:
        labels = read_labels(source.labels)
        keep = labels
    elif source.label_from_aspect:
        first = read_annotation_set(annotations, how, labels_only=True)
        labels, report = _labels_from_aspect(first.aspect_terms, source.label_terms, source.label_from_aspect,
                                             str(annotations))
        label_terms = source.label_terms or tuple(sorted({t for ts in first.aspect_terms.values() for t in ts}))
        keep = labels
    elif source.instances:
        keep = _instance_list(source.instances, source.instances_where)
        report["instances_listed"] = len(keep)
    ann = read_annotation_set(annotations, how, keep=keep)
    if source.positives:
        positives = _instance_list(source.positives, None)
        labels = {g: "1" if g in positives else "0" for g in ann.positive}
        report.update({"positives_listed": len(positives),
                       "positives_annotated": sum(v == "1" for v in labels.values())})
    ann.label_terms = label_terms
    ann.report.update(report)
    return ann, labels


def _labels_from_aspect(aspect_terms: Mapping[str, list[str]], label_terms: tuple[str, ...] | None, aspect: str,
                        path: str) -> tuple[dict[str, str], dict]:
    """Each instance's one label term of the label aspect; instances with several are left out and counted."""
    wanted = set(label_terms) if label_terms else None
    labels: dict[str, str] = {}
    several = 0
    for inst, terms in aspect_terms.items():
        hits = [t for t in terms if wanted is None or t in wanted]
        if len(hits) == 1:
            labels[inst] = hits[0]
        elif len(hits) > 1:
            several += 1
    if not labels:
        raise KgfsError(f"{path}: no instance has exactly one annotation of aspect {aspect!r}"
                        + (f" among {', '.join(label_terms)}" if label_terms else "")
                        + f" ({param('label_from_aspect')}, {param('label_terms')})")
    counts = Counter(labels.values())
    return labels, {"label_aspect": aspect, "labelled": len(labels), "label_counts": dict(sorted(counts.items())),
                    "left_out_several_labels": several,
                    "aspect_instances_without_label_term": sum(
                        1 for ts in aspect_terms.values() if wanted is not None and not set(ts) & wanted)}


def _instance_list(path: str | os.PathLike, where: str | None) -> set[str]:
    """The ids in the first column of a table (a first line whose first field has no digit is a header);
    with ``where`` (``column=value``, needs the header), only the rows whose column has that value."""
    col = value = None
    if where:
        col, _, value = where.partition("=")
        col, value = col.strip().lower(), value.strip()
    out: set[str] = set()
    idx = None
    with lines_of(path, strict=True) as lines:
        for lineno, raw in enumerate(lines, 1):
            if not raw.strip() or raw[0] == "#":
                continue
            cells = raw.rstrip("\r\n").split("\t")
            if idx is None and not out and not any(ch.isdigit() for ch in cells[0]):
                names = [c.strip().lower() for c in cells]
                if col is not None:
                    if col not in names:
                        raise InputFormatError(f"no column {col!r} ({param('instances_where')}); columns: "
                                               f"{', '.join(names)}",
                                               path, lineno)
                    idx = names.index(col)
                else:
                    idx = -1
                continue
            if col is not None and idx is None:
                raise InputFormatError(f"{param('instances_where')} needs a header row naming the columns", path,
                                       lineno)
            if col is not None and (idx >= len(cells) or cells[idx].strip() != value):
                continue
            if cells[0].strip():
                out.add(cells[0].strip())
    if not out:
        raise InputFormatError("no instance listed" + (f" with {where}" if where else ""), path)
    return out


_TABLE_OPTIONS = {"annotation_format", "evidence", "aspects", "label_from_aspect", "label_terms", "instances_where",
                  "roots", "namespaces", "relations", "min_support", "unknown", "on_obsolete"}


def ontology_table(paths: Mapping[str, str | os.PathLike], options: Mapping):
    """The table of an ontology with its annotations, from files by role and the ontology route's options.

    What the registry's ``ontology`` loader builds (``kgfs evaluate --datasets hpo/inheritance``); the
    ontology route (:class:`kg.ontology.route.OntologyInput`) builds the same table step by step.

    Parameters
    ----------
    paths : mapping
        Role -> file: ``ontology``, ``annotations`` and optionally ``labels``, ``ontology_terms``,
        ``ontology_obsolete``, ``gpi``, ``positives``, ``instances``.
    options : mapping
        ``roots``, ``namespaces``, ``relations``, ``aspects``, ``evidence``, ``annotation_format``,
        ``label_from_aspect``, ``label_terms``, ``instances_where``, ``min_support``, ``unknown``,
        ``on_obsolete``.

    Returns
    -------
    FeatureTable

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "o.obo").write_text("[Term]\\nid: X:1\\n\\n[Term]\\nid: X:2\\nis_a: X:1\\n")
    >>> _ = (d / "a.tsv").write_text("g1\\tX:2\\ng2\\tX:1\\n")
    >>> _ = (d / "p.tsv").write_text("g1\\n")
    >>> t = ontology_table({"ontology": d / "o.obo", "annotations": d / "a.tsv", "positives": d / "p.tsv"}, {})
    >>> t.X.toarray().tolist(), t.y.tolist()
    ([[1.0, 1.0], [1.0, 0.0]], ['1', '0'])
    """
    from kg.ontology.formats import AUTO, chosen_format, read_extra_file
    from kg.ontology.read import read_ontology
    from kg.ontology.table import term_table

    bad = sorted(set(options) - _TABLE_OPTIONS)
    if bad:
        raise KgfsError(f"unknown option(s) of an ontology dataset: {', '.join(bad)}")
    o = dict(options)

    def ids(key):
        v = o.get(key)
        return None if v is None else ((v,) if isinstance(v, str) else tuple(v))

    how = AnnotationOptions(format=chosen_format(o.get("annotation_format")) or AUTO, evidence=ids("evidence"),
                            aspects=ids("aspects"),
                            gpi=read_extra_file("gpi", paths["gpi"]) if paths.get("gpi") else None)
    source = LabelSource(labels=paths.get("labels"), label_from_aspect=o.get("label_from_aspect"),
                         label_terms=ids("label_terms"), positives=paths.get("positives"),
                         instances=paths.get("instances"), instances_where=o.get("instances_where"))
    ann, labels = read_facts(paths["annotations"], how, source)
    onto = read_ontology(paths["ontology"], relations=ids("relations") or ("is_a",), namespaces=o.get("namespaces"),
                         roots=ids("roots"), terms=paths.get("ontology_terms"), obsolete=paths.get("ontology_obsolete"))
    kw = {k: o[k] for k in ("min_support", "unknown", "on_obsolete") if o.get(k) is not None}
    return term_table(onto, ann, labels, **kw)
