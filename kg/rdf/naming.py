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
    # a table's ids share few heads (``d:p``, a path's steps) and classes: each is parsed, looked up and written
    # once (2.1M relation ids at the in-links of hubs: 55 s per id as a closure, seconds this way)
    entity_of: dict[str, str] = {}
    heads: dict[str, tuple | None] = {}  # head -> (its steps, their predicates' entities), None: no path

    def head_of(head: str):
        if head not in heads:
            rel = parse_path_id(head)  # a head holds no "|": no class nor object
            if rel is None:
                heads[head] = None
            else:
                steps = rel[0]
                for _, p in steps:
                    if p not in entity_of:
                        entity_of[p] = property_entity(p)
                heads[head] = (steps, tuple(entity_of[p] for _, p in steps))
        return heads[head]

    def plan(fid: str) -> tuple:
        """``(IRI,)`` of a type, a category or any other IRI; ``(head, class, object)`` of a relation or path."""
        for prefix in KIND_PREFIX.values():
            if fid.startswith(prefix):
                return (fid[len(prefix):],)
        head, bar, tail = fid.partition("|")
        if head_of(head) is None:
            return (fid,)
        if not bar:
            return head, None, None
        return (head, None, tail[1:]) if tail.startswith("=") else (head, tail, None)

    def members_of(f: str) -> tuple[list[str], str]:
        """A merged cycle's members (one shortened to its first member: and how many), or the id itself."""
        cut_at, cut, rest = f.partition(" ≡ … (")
        return cut_at.split(" ≡ "), cut + rest

    # two passes over the ids (a plan of each of millions held between them cost more than parsing them again)
    features = list(dict.fromkeys(str(f) for f in features))
    wanted: set[str] = set()
    for f in features:
        for m in members_of(f)[0]:
            p = plan(m)
            wanted.update(x for x in (p if len(p) == 1 else p[1:]) if x)
    wanted.update(e for h in heads.values() if h is not None for e in h[1])
    found = labels(sorted(wanted))
    head_text: dict[str, tuple[str, bool]] = {}  # head -> its words, and whether one of its predicates is labelled
    word: dict[str, str] = {}  # a class or an object -> its label or local name

    def written(x: str) -> str:
        if x not in word:
            word[x] = found.get(x) or local_name(x)
        return word[x]

    def name(p: tuple) -> str | None:
        if len(p) == 1:
            return found.get(p[0])
        head, cls, obj = p
        if head not in head_text:
            steps, entities = heads[head]
            words = " > ".join(f"{d}: {found.get(e) or local_name(q)}" for (d, q), e in zip(steps, entities))
            head_text[head] = words, any(e in found for e in entities)
        text, labelled = head_text[head]
        tail = cls or obj
        if not labelled and not (tail and tail in found):
            return None
        return text + (f" | {written(cls)}" if cls else "") + (f" = {written(obj)}" if obj else "")

    out = {}
    for f in features:
        members, more = members_of(f)
        names = [name(plan(m)) for m in members]
        if any(names):
            out[f] = " ≡ ".join(n or m for n, m in zip(names, members)) + more
    return out
