import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg.rdf.annotators.lexicon import LexiconAnnotator
from kg.sources import Annotator
from tests.kg.conftest import DEJA_VU, R

X = "http://x/"


def uris(lex, text):
    return [(a.uri[len(X):], a.surface_form, a.offset) for a in lex.annotate_one(text)]


def test_is_an_annotator():
    assert isinstance(LexiconAnnotator({}), Annotator)
    assert LexiconAnnotator({}).annotate(["anything"]) == [[]]


def test_word_boundaries():
    lex = LexiconAnnotator({X + "Finn": ["Finn"], X + "Test": ["Test"]})
    assert uris(lex, "Finnish Finn, Finns") == [("Finn", "Finn", 8)]
    assert uris(lex, "#Test.") == [("Test", "Test", 1)]  # '#' and '.' are not word characters
    assert uris(lex, "Testing retest") == []
    assert uris(lex, "finn_x x_finn 2finn finn2") == []  # '_' and digits are word characters


def test_longest_match_wins_and_matches_do_not_overlap():
    lex = LexiconAnnotator({X + "Lyon": ["Lyon"], X + "Nathan_Lyon": ["N Lyon", "Nathan Lyon"],
                            X + "New_York": ["New York"], X + "New_York_Times": ["New York Times"],
                            X + "Times_Square": ["Times Square"]})
    assert uris(lex, "1.5: N Lyon to M Vijay") == [("Nathan_Lyon", "N Lyon", 5)]
    assert uris(lex, "the New York Times Square") == [("New_York_Times", "New York Times", 4)]
    assert uris(lex, "Lyon and Nathan Lyon") == [("Lyon", "Lyon", 0), ("Nathan_Lyon", "Nathan Lyon", 9)]


def test_case_insensitive_with_original_offsets_and_whitespace():
    lex = LexiconAnnotator({X + "Istanbul": ["istanbul"], X + "New_Zealand": ["New Zealand"]})
    # 'İ'.lower() is two characters: offsets must still be those of the original text
    text = "İİ go to ISTANBUL and new\nzealand"
    got = uris(lex, text)
    assert got == [("Istanbul", "ISTANBUL", 9), ("New_Zealand", "new\nzealand", 22)]
    for a in lex.annotate_one(text):
        assert text[a.offset:a.offset + len(a.surface_form)] == a.surface_form


def test_ambiguity_resolved_by_prior_then_by_iri():
    forms = {X + "Chelsea_F.C.": ["Chelsea F.C.", "Chelsea"], X + "Chelsea,_London": ["Chelsea"]}
    assert uris(LexiconAnnotator(forms), "to Chelsea")[0][0] == "Chelsea_F.C."  # 2 surface forms > 1
    prior = {X + "Chelsea_F.C.": 1, X + "Chelsea,_London": 5}
    assert uris(LexiconAnnotator(forms, prior=prior), "to Chelsea")[0][0] == "Chelsea,_London"
    tie = LexiconAnnotator({X + "b": ["Same"], X + "a": ["Same"]})
    assert uris(tie, "same")[0][0] == "a"
    assert tie.ambiguous == 1


def test_short_and_letterless_forms_are_ignored():
    lex = LexiconAnnotator({X + "A": ["a"], X + "99": ["99"], X + "UK": ["UK"]}, min_length=2)
    assert uris(lex, "a 99 UK") == [("UK", "UK", 5)]


def test_from_the_test_dump_on_the_ten_tweets(kg_dump_dir, tweets10, shared_data):
    from kg.rdf.corpus import read_corpus

    lex = LexiconAnnotator.from_dump(kg_dump_dir)
    texts = read_corpus(shared_data / "tweets" / "sport_tweets_10_with_dbpedia_uris.tsv", text_column="tweet").texts
    got = {i: [a.uri[len(R):] for a in anns] for i, anns in zip(tweets10.ids, lex.annotate(texts))}
    assert got["1"] == ["Chris_Gayle"]
    assert got["2"] == ["Scottish_Football_League_First_Division", "Raith_Rovers_F.C."]  # via redirects
    assert got["6"] == [DEJA_VU[len(R):]]  # "Deja Vu" via the redirect's label
    assert got["8"] == ["Novak_Djokovic"]  # "#Djokovic"
    assert got["9"] == ["Nathan_Lyon", "Murali_Vijay"]  # longest match over "Lyon"
    assert got["11"] == ["River_Thames", "Chelsea_F.C."]  # prior: 4 surface forms vs 2
    assert got["5"] == []
    # redirect pages are not entities themselves
    assert all(not a.uri.endswith("/Djokovic") for anns in lex.annotate(texts) for a in anns)


def test_redirect_without_label_uses_its_local_name(tmp_path):
    p = tmp_path / "d.nt"
    p.write_text(
        '<http://dbpedia.org/resource/Kobe_Bryant> <http://www.w3.org/2000/01/rdf-schema#label> "Kobe Bryant"@en .\n'
        '<http://dbpedia.org/resource/Kobe_Bryant> <http://www.w3.org/2000/01/rdf-schema#label> '
        '"Kobe Bryant (fr)"@fr .\n'
        '<http://dbpedia.org/resource/Black_Mamba_%28player%29> <http://dbpedia.org/ontology/wikiPageRedirects> '
        '<http://dbpedia.org/resource/Kobe_Bryant> .\n'
    )
    lex = LexiconAnnotator.from_dump(p)
    assert [a.surface_form for a in lex.annotate_one("black mamba (player) and Kobe Bryant (fr)")] == [
        "black mamba (player)", "Kobe Bryant"]
    no_redirects = LexiconAnnotator.from_dump(p, redirects=False)
    assert [a.surface_form for a in no_redirects.annotate_one("Black Mamba (player)")] == []


def test_in_link_counts_are_the_prior_when_the_dump_has_them(tmp_path):
    L = "<http://www.w3.org/2000/01/rdf-schema#label>"
    W = "<http://dbpedia.org/ontology/wikiPageWikiLink>"
    p = tmp_path / "d.nt"
    lines = [f'<{R}Chelsea_F.C.> {L} "Chelsea"@en .', f'<{R}Chelsea,_London> {L} "Chelsea"@en .',
             f'<{R}Chelsea_F.C.> {L} "Chelsea FC"@en .', f'<{R}Chelsea_F.C.> {L} "The Blues"@en .',  # more forms...
             f'<{R}Chelsea_(London)> <http://dbpedia.org/ontology/wikiPageRedirects> <{R}Chelsea,_London> .']
    lines += [f"<{R}Page_{i}> {W} <{R}Chelsea_(London)> ." for i in range(3)]  # ...but more in-links
    lines += [f"<{R}Page_{i}> {W} <{R}Chelsea_F.C.> ." for i in range(2)]
    p.write_text("\n".join(lines) + "\n")
    assert [a.uri for a in LexiconAnnotator.from_dump(p).annotate_one("chelsea")] == [R + "Chelsea,_London"]
    by_forms = LexiconAnnotator.from_dump(p, prior="surface-forms")
    assert [a.uri for a in by_forms.annotate_one("chelsea")] == [R + "Chelsea_F.C."]
    with pytest.raises(ValueError):
        LexiconAnnotator.from_dump(p, prior="magic")


WORDS = st.sampled_from(["ab", "abc", "b c", "cd", "c", "x y z", "y"])


@given(st.lists(WORDS, min_size=1, max_size=6, unique=True),
       st.text(alphabet="abcdxyz .#", max_size=40))
def test_matches_are_disjoint_exact_and_on_word_boundaries(forms, text):
    lex = LexiconAnnotator({X + f.replace(" ", "_"): [f] for f in forms}, min_length=1)
    anns = lex.annotate_one(text)
    spans = [(a.offset, a.offset + len(a.surface_form)) for a in anns]
    assert spans == sorted(spans)
    for (s1, e1), (s2, _) in zip(spans, spans[1:]):
        assert e1 <= s2
    for a, (s, e) in zip(anns, spans):
        assert text[s:e] == a.surface_form and a.surface_form.lower() in forms
        assert s == 0 or not (text[s - 1].isalnum() and text[s].isalnum())
        assert e == len(text) or not (text[e].isalnum() and text[e - 1].isalnum())


def test_speed_smoke():
    # the real target (100k labels, 10k tweets < 2 s) is benchmarks/bench_lexicon.py
    lex = LexiconAnnotator({f"{X}E{i}": [f"entity number {i}"] for i in range(5000)})
    t = time.perf_counter()
    out = lex.annotate(["we saw entity number 42 and entity number 4999 today"] * 1000)
    assert time.perf_counter() - t < 2
    assert [a.uri for a in out[0]] == [X + "E42", X + "E4999"]
