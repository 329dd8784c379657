"""The lexicon's surface-form rules (kg.rdf.index.surface) against a plain dictionary reference.

The reference below is the rules written the obvious way, with dictionaries of sets (what the
lexicon did before it had to scale); the array implementation must give the same table.
"""

from urllib.parse import unquote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.rdf.index.surface import dump_form_table, form_table, normalize_form

R = "http://dbpedia.org/resource/"


def reference(labels, redirects, inlinks, *, use_redirects=True, prior="auto", min_length=2):
    """Form -> (IRI, prior) by the rules of the module doc, with dictionaries."""
    by_subject: dict[str, set[str]] = {}
    for s, text in zip(*labels):
        by_subject.setdefault(s, set()).add(text)
    red = dict(zip(*redirects))  # a later redirect of the same page wins
    forms: dict[str, set[str]] = {}
    for iri, names in by_subject.items():
        if iri in red or "/Category:" in iri:
            continue
        forms.setdefault(iri, set()).update(names)
    if use_redirects:
        for r, target in red.items():
            names = by_subject.get(r) or {unquote(r.rsplit("/", 1)[-1]).replace("_", " ")}
            forms.setdefault(target, set()).update(names)
    weights = None
    if not isinstance(prior, str):
        weights = prior
    elif prior == "auto" and inlinks[0]:
        weights = {}
        for iri, n in zip(*inlinks):
            t = red.get(iri, iri)
            weights[t] = weights.get(t, 0) + n
    keyed: dict[str, set[str]] = {}
    counts: dict[str, int] = {}
    for iri, names in forms.items():
        for name in names:
            key = normalize_form(name)
            if len(key) < min_length or not any(c.isalpha() for c in key):
                continue
            if iri not in keyed.setdefault(key, set()):
                keyed[key].add(iri)
                counts[iri] = counts.get(iri, 0) + 1
    w = weights if weights is not None else counts
    table = {}
    for key, iris in keyed.items():
        best = min(iris, key=lambda i: (-float(w.get(i, 0)), i))
        table[key] = (best, float(w.get(best, 0)))
    stats = {"n_surface_forms": len(table), "n_entities": len(counts),
             "ambiguous": sum(1 for v in keyed.values() if len(v) > 1)}
    return table, stats


WORDS = ["Lyon", "lyon", "New", "York", "Times", "a", "Ab", "Café", "CAFÉ", "x1", "12", "Chelsea", "F.C.", " "]
iris = st.sampled_from([R + n for n in ("Lyon", "Lyons", "Chelsea_F.C.", "Chelsea", "NY", "Category:Cities", "A_b",
                                        "Zed", "Caf%C3%A9")])
names = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(labels=st.lists(st.tuples(iris, names), max_size=12), redirects=st.lists(st.tuples(iris, iris), max_size=6),
       inlinks=st.lists(st.tuples(iris, st.integers(1, 5)), max_size=5),
       use_redirects=st.booleans(), prior=st.sampled_from(["auto", "surface-forms", "mapping"]),
       min_length=st.integers(1, 4))
def test_same_table_as_the_reference(labels, redirects, inlinks, use_redirects, prior, min_length):
    def cols(pairs):
        return [a for a, _ in pairs], [b for _, b in pairs]

    if prior == "mapping":
        prior = {R + "Lyon": 3, R + "Chelsea": 1.5, R + "Zed": 0}
    expected, stats = reference(cols(labels), cols(redirects), cols(inlinks), use_redirects=use_redirects,
                                prior=prior, min_length=min_length)
    got = dump_form_table(cols(labels), cols(redirects), cols(inlinks), redirects=use_redirects, prior=prior,
                          min_length=min_length, keep_keys=True)
    assert got.as_dict() == expected
    assert {k: got.stats[k] for k in stats} == stats


def test_given_surface_forms():
    t = form_table({R + "Chelsea_F.C.": ["Chelsea F.C.", "Chelsea"], R + "Chelsea,_London": ["Chelsea"]},
                   prior={R + "Chelsea,_London": 5})
    assert t.as_dict() == {"chelsea f.c.": (R + "Chelsea_F.C.", 0.0), "chelsea": (R + "Chelsea,_London", 5.0)}
    assert t.stats == {"n_surface_forms": 2, "n_entities": 2, "ambiguous": 1, "prior_source": "given"}
    empty = form_table({R + "X": ["x", "1"]})
    assert empty.as_dict() == {} and empty.stats["n_surface_forms"] == 0


def test_a_tie_goes_to_the_smallest_iri_even_when_the_keys_sort_otherwise():
    many = {R + f"E{i:03d}": ["Same"] for i in range(50)}
    assert form_table(many).as_dict()["same"] == (R + "E000", 1.0)


def test_bad_prior():
    with pytest.raises(ValueError, match="prior must be"):
        dump_form_table(([], []), ([], []), ([], []), prior="popularity")
