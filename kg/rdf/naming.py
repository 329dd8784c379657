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

#: Ids named at a time before their names go into the dict (a list of them all: 45 MB more at 2M ids, 0.1 s less)
_BLOCK = 1 << 18


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
    # A table's ids share few heads (the part before "|": ``in:d:p``, a path's steps) and few tails (after it: a
    # class, ``=object``): each is classified, parsed, looked up and written once, and an id costs a partition and
    # dict look-ups (2.1M relation ids at the in-links of hubs: 55 s per id as a closure, 8.6 s made unique and
    # parsed twice each, 3.0 s so). Two passes over the ids; nothing per id is held between them.
    entity_of: dict[str, str] = {}  # a predicate -> the IRI its label is stated of
    start: dict[str, int | None] = {}  # head -> where its ids' IRI starts (after its prefix), None: a path's head
    steps_of: dict[str, tuple] = {}  # a path's head -> its steps

    def kind(head: str) -> int | None:
        """Where the IRI of an id with this head starts: after ``type:``/``category:`` (which hold no "|": an id has
        the prefix its head has), 0 for any other IRI; ``None`` for a relation or path (its steps noted)."""
        for prefix in KIND_PREFIX.values():
            if head.startswith(prefix):
                return len(prefix)
        rel = parse_path_id(head)  # a head holds no "|": no class nor object
        if rel is None:
            return 0
        steps_of[head] = rel[0]
        for _, p in rel[0]:
            if p not in entity_of:
                entity_of[p] = property_entity(p)
        return None

    # not made unique: a repeated id is named again, the same, and keeps its first place in the dict
    features = list(map(str, features))
    wanted: set[str] = set()  # the IRIs named by their labels (a type's, a category's, another IRI's)
    tails: set[str] = set()  # the tails of relations and paths

    for f in features:
        # each member of a merged cycle, or the id itself (most ids: no call per id, which costs more than the rest)
        for m in _split(f)[0] if " ≡ " in f else (f,):
            head, _, tail = m.partition("|")
            at = start.get(head, -1)
            if at == -1:
                at = start[head] = kind(head)
            if at is None:
                tails.add(tail)
            elif len(m) > at:
                wanted.add(m[at:])
    tail_iris = {t: (t[1:], "=") if t.startswith("=") else (t, "|") for t in tails}  # tail -> (IRI, its sign)
    wanted.update(x for x, _ in tail_iris.values() if x)
    wanted.update(entity_of.values())
    found = labels(sorted(wanted))

    # a path's head -> its words, and whether one of its predicates is labelled (an IRI's head: not there)
    head_text = {head: (" > ".join(f"{d}: {found.get(entity_of[p]) or local_name(p)}" for d, p in steps),
                        any(entity_of[p] in found for _, p in steps)) for head, steps in steps_of.items()}
    # a tail -> its words (its class's or object's label or local name; none for no class nor object), and whether
    # its class or object is labelled
    tail_text = {t: (f" {sign} {found.get(x) or local_name(x)}", x in found) if x else ("", False)
                 for t, (x, sign) in tail_iris.items()}

    # a block's names first, then them all into the dict, less the ids left out after: faster than a dict grown id
    # by id between the look-ups (0.35 s less in 2M), or one built from the named alone (0.2 s)
    out: dict[str, str | None] = {}
    left_out: list[str] = []  # the ids without a labelled part (few, mostly)
    for i in range(0, len(features), _BLOCK):
        block = features[i:i + _BLOCK]
        names: list[str | None] = []
        for f in block:
            members, more = _split(f) if " ≡ " in f else ((f,), "")
            parts = []  # each member's name; None for one without a labelled part
            for m in members:
                head, _, tail = m.partition("|")
                text = head_text.get(head)  # (words, labelled); None: an IRI
                if text is None:
                    parts.append(found.get(m[start[head]:]))
                else:
                    words, labelled = tail_text[tail]
                    parts.append(text[0] + words if text[1] or labelled else None)
            if more or len(parts) > 1:  # a merged cycle: by its members' names
                n = " ≡ ".join(p or m for p, m in zip(parts, members)) + more if any(parts) else None
            else:
                n = parts[0]
            names.append(n)
            if not n:
                left_out.append(f)
        out.update(zip(block, names))
    for f in left_out:
        out.pop(f, None)  # (a repeated id is left out once)
    return out


def _split(f: str) -> tuple[list[str], str]:
    """A merged cycle's members (one shortened to its first member: and how many), or the id itself."""
    cut_at, cut, rest = f.partition(" ≡ … (")
    return cut_at.split(" ≡ "), cut + rest

