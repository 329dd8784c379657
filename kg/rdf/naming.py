"""Names of the RDF route's features of every kind from the labels of their parts (:mod:`kg.rdf.labels`).

A type or a category (``type:``/``category:`` ids too) is named by its label; a relation or a path by its
predicates' labels (of their property entities: Wikidata labels ``wd:P27``, not ``wdt:P27``), its class's and
its object's, written as the id is: ``out: country of citizenship | country``, ``out: team > in: team = Shaquille
O'Neal``; a part without a label keeps its local name, and a feature none of whose parts has a label is left out.
The command line's names (:func:`feature_labels`, from the dump) and ``KGFeatures.feature_labels_``
(:func:`compose_names` over a source's labels) are made the same way.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence

from kg.rdf.labels import dump_labels
from kg.rdf.paths import parse_path_id
from kg.rdf.relations import KIND_PREFIX, local_name
from kg.rdf.vocabulary import DBPEDIA

__all__ = ["compose_names", "feature_labels"]


def feature_labels(features: Iterable[str], dump: Sequence[str | os.PathLike], *, cache_dir=None,
                   vocabulary=None) -> dict[str, str]:
    """Names of the route's features of any kind from the labels of their parts (see the module).

    A cycle merged into one feature (``a ≡ b``) is named by its members' names; one shortened to its first member
    (``a ≡ … (3 members)``) by its first member's, shortened the same way.

    Parameters
    ----------
    features : iterable of str
        Feature ids (IRIs, ``type:``/``category:`` ids, relation and path ids).
    dump, cache_dir, vocabulary
        As :func:`kg.rdf.labels.dump_labels`.

    Returns
    -------
    dict of str -> str
        Feature id -> name, for the features with a labelled part.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> from kg.rdf.labels import LABEL_PREDICATES
    >>> from kg.rdf.vocabulary import preset
    >>> wd = "http://www.wikidata.org/entity/"
    >>> _ = (d / "t.nt").write_text(f'<{wd}P27> <{LABEL_PREDICATES[0]}> "country of citizenship"@en .\\n'
    ...                             f'<{wd}Q6256> <{LABEL_PREDICATES[0]}> "country"@en .\\n')
    >>> wdt = "http://www.wikidata.org/prop/direct/"
    >>> names = feature_labels([f"out:{wdt}P27|{wd}Q6256", f"type:{wd}Q6256", f"in:{wdt}P27>out:{wdt}P9|={wd}Q1",
    ...                         f"{wd}Q5"], [d], vocabulary=preset("wikidata"))
    >>> for fid, name in names.items():
    ...     print(fid.replace(wd, "wd:").replace(wdt, "wdt:"), "->", name)
    out:wdt:P27|wd:Q6256 -> out: country of citizenship | country
    type:wd:Q6256 -> country
    in:wdt:P27>out:wdt:P9|=wd:Q1 -> in: country of citizenship > out: P9 = Q1
    """
    vocabulary = vocabulary or DBPEDIA
    return compose_names(features, lambda iris: dump_labels(iris, dump, cache_dir=cache_dir, vocabulary=vocabulary),
                         vocabulary.property_entity)


def compose_names(features: Iterable[str], labels: Callable[[list[str]], Mapping[str, str]],
                  property_entity: Callable[[str], str] = str) -> dict[str, str]:
    """Names of feature ids of any kind from the labels of their parts, asked once (see the module).

    Parameters
    ----------
    features : iterable of str
    labels : callable
        IRIs (sorted) -> the labels found (IRI -> label; unlabelled IRIs left out): the dump's
        (:func:`kg.rdf.labels.dump_labels`), or a knowledge source's look-ups.
    property_entity : callable
        A relation predicate -> the IRI its label is stated of (:meth:`Vocabulary.property_entity
        <kg.rdf.vocabulary.Vocabulary.property_entity>`; default: the predicate itself).

    Returns
    -------
    dict of str -> str

    Examples
    --------
    >>> known = {"http://x/C": "city"}
    >>> compose_names(["out:http://x/p|http://x/C", "http://x/C", "http://x/D"],
    ...               lambda iris: {i: known[i] for i in iris if i in known})
    {'out:http://x/p|http://x/C': 'out: p | city', 'http://x/C': 'city'}
    """
    def parts(fid: str):
        """``(IRIs to label, how to write the name from them)`` of one feature id."""
        for prefix in KIND_PREFIX.values():
            if fid.startswith(prefix):
                return [fid[len(prefix):]], lambda got: got.get(fid[len(prefix):])
        rel = parse_path_id(fid)
        if rel is None:
            return [fid], lambda got: got.get(fid)
        steps, cls, obj = rel
        props = [property_entity(p) for _, p in steps]
        iris = props + [x for x in (cls, obj) if x]

        def name(got):
            if not any(i in got for i in iris):
                return None
            text = " > ".join(f"{d}: {got.get(e) or local_name(p)}" for (d, p), e in zip(steps, props))
            return text + (f" | {got.get(cls) or local_name(cls)}" if cls else "") + (
                f" = {got.get(obj) or local_name(obj)}" if obj else "")
        return iris, name

    plans: dict[str, tuple[list, list[str], str]] = {}
    for f in dict.fromkeys(str(f) for f in features):
        head, cut, rest = f.partition(" ≡ … (")  # a merged cycle shortened to its first member, and how many
        members = head.split(" ≡ ")
        plans[f] = [parts(m) for m in members], members, cut + rest
    found = labels(sorted({i for plan, _, _ in plans.values() for iris, _ in plan for i in iris}))
    out = {}
    for f, (plan, members, more) in plans.items():
        names = [name(found) for _, name in plan]
        if any(names):
            out[f] = " ≡ ".join(n or m for n, m in zip(names, members)) + more
    return out
