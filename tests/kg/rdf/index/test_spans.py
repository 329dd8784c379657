"""The vectorised lexicon annotator (kg.rdf.index.spans) against the string-by-string one it replaced.

``reference_annotate`` is :meth:`IndexedLexicon.annotate` as it was before spans were vectorised
(commit 04d9c48: a regular expression per text, a slice, a 128-bit hash and a look-up of the
prefix table per span, longest matches one by one). The new annotator must give the same
annotations on the shared tweets and on random texts over small random lexicons, also when
texts are cut into several chunks, windows and hash blocks.
"""

import itertools
import random
import re
from array import array

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.rdf.annotators.lexicon import longest_matches
from kg.rdf.corpus import read_corpus, read_sports_tweets
from kg.rdf.index import mentions as lexicon_module  # the annotator (its chunk and window sizes)
from kg.rdf.index import spans
from kg.rdf.index.columns import hash_keys
from kg.rdf.index.dumpindex import DumpIndex
from kg.rdf.index.surface import fold
from kg.sources import Annotation

R = "http://dbpedia.org/resource/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
REDIRECT = "http://dbpedia.org/ontology/wikiPageRedirects"
_TOKEN = re.compile(r"\w+|[^\w ]")


# --------------------------------------------------------------------------- the reference (04d9c48)
def _reference_tokens(low):
    code = "i" if max(map(len, low), default=0) < (1 << 31) else "q"
    which, starts, ends = array("i"), array(code), array(code)
    for k, x in enumerate(low):
        before = len(starts)
        for m in _TOKEN.finditer(x):
            starts.append(m.start())
            ends.append(m.end())
        which.extend(itertools.repeat(k, len(starts) - before))
    return tuple(np.frombuffer(a, f"i{a.itemsize}") for a in (which, starts, ends))


def reference_annotate(lex, texts, window=1 << 14):
    texts = ["" if t is None else str(t) for t in texts]
    low = [fold(t) for t in texts]
    which, starts, ends = _reference_tokens(low)
    n = len(starts)
    more = np.zeros(n, bool)
    more[:-1] = which[1:] == which[:-1]
    found = []
    for a in range(0, n, window):
        first = np.arange(a, min(n, a + window))
        last = first
        while len(first):
            t, lo, hi = which[first], starts[first], ends[last]
            distinct = {}
            span = np.fromiter((distinct.setdefault(low[x][y:z], len(distinct))
                                for x, y, z in zip(t.tolist(), lo.tolist(), hi.tolist())), np.int64, len(t))
            keys = hash_keys(distinct)
            query, rows = lex._forms.find(keys)
            if len(rows):
                row_of = np.full(len(keys), -1, np.int64)
                row_of[query] = rows
                hit = np.flatnonzero(row_of[span] >= 0)
                found.append((t[hit], lo[hit], hi[hit], row_of[span[hit]]))
            prefix = np.zeros(len(keys), bool)
            prefix[lex._prefixes.find(keys)[0]] = True
            longer = np.flatnonzero(prefix[span])
            longer = longer[more[last[longer]]]
            first, last = first[longer], last[longer] + 1
    out = [[] for _ in texts]
    if not found:
        return out
    t, lo, hi, rows = (np.concatenate(c) for c in zip(*found))
    order = np.lexsort((lo, lo - hi, t))
    t, lo, hi, rows = t[order], lo[order], hi[order], rows[order]
    keep = np.zeros(len(t), bool)
    bounds = np.flatnonzero(np.diff(t)) + 1
    for g0, g1 in zip([0, *bounds.tolist()], [*bounds.tolist(), len(t)]):
        taken = bytearray(len(texts[int(t[g0])]))
        for i, x, y in zip(range(g0, g1), lo[g0:g1].tolist(), hi[g0:g1].tolist()):
            if taken.find(1, x, y) == -1:
                taken[x:y] = b"\x01" * (y - x)
                keep[i] = True
    t, lo, hi, rows = t[keep], lo[keep], hi[keep], rows[keep]
    order = np.lexsort((lo, t))
    t, lo, hi, rows = t[order], lo[order], hi[order], rows[order]
    for k, iri, w, x, y in zip(t.tolist(), lex._iri(rows), np.asarray(lex._weight[rows]).tolist(), lo.tolist(),
                               hi.tolist()):
        out[k].append(Annotation(uri=iri, surface_form=texts[k][x:y], offset=x, score=w))
    return out


# --------------------------------------------------------------------------- helpers
def _lit(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r") + '"@en'


def _lexicon(folder, labels, redirects=()):
    lines = [f"<{s}> <{LABEL}> {_lit(t)} .\n" for s, t in labels]
    lines += [f"<{a}> <{REDIRECT}> <{b}> .\n" for a, b in redirects]
    (folder / "l.nt").write_text("".join(lines), encoding="utf-8")
    return DumpIndex(folder / "i").lexicon(folder / "l.nt")


@pytest.fixture
def small_pieces(monkeypatch):
    """Chunks, windows and hash blocks a few characters or tokens long (their seams met in every text)."""
    monkeypatch.setattr(lexicon_module, "CHUNK_CHARS", 40)
    monkeypatch.setattr(lexicon_module, "SPAN_WINDOW", 3)
    monkeypatch.setattr(spans, "_BLOCK", 7)
    monkeypatch.setattr(spans, "_POWERS", None)
    yield
    spans._POWERS = None


@pytest.fixture(scope="module")
def tweets(shared_data):
    return (read_sports_tweets(shared_data / "tweets" / "training.txt").texts
            + read_sports_tweets(shared_data / "tweets" / "test.txt").texts)


@pytest.fixture(scope="module")
def tweet_lexicon(tmp_path_factory, tweets):
    """Labels made of the tweets' own word n-grams (many mentions, overlaps, ambiguities), redirects among them."""
    rng = random.Random(7)
    labels = []
    for i in range(3000):
        words = rng.choice(tweets).split()
        k = rng.choice([1, 1, 2, 2, 3, 4])
        if len(words) >= k:
            a = rng.randrange(len(words) - k + 1)
            labels.append((f"{R}E{i % 2200}", " ".join(words[a:a + k])))
    redirects = [(f"{R}Redirect_{i}", f"{R}E{rng.randrange(2200)}") for i in range(200)]
    labels += [(f"{R}Redirect_{i}", labels[rng.randrange(len(labels))][1] + " x") for i in range(0, 200, 2)]
    return _lexicon(tmp_path_factory.mktemp("tweetlex"), labels, redirects)


# --------------------------------------------------------------------------- the annotator
def test_same_annotations_as_before_on_the_shared_tweets(tweet_lexicon, tweets, shared_data):
    bundled = read_corpus(shared_data / "tweets" / "sport_tweets_10_with_dbpedia_uris.tsv", text_column="tweet").texts
    assert len(bundled) == 10
    for texts in (bundled, tweets):
        got = tweet_lexicon.annotate(texts)
        assert got == reference_annotate(tweet_lexicon, texts)
    assert sum(map(len, got)) > 5000  # many mentions: the comparison means something


def test_same_annotations_with_small_chunks_windows_and_blocks(tweet_lexicon, tweets, small_pieces):
    texts = tweets[:300] + ["", "   ", " ".join(tweets[:40])]  # one text longer than a chunk
    assert tweet_lexicon.annotate(texts) == reference_annotate(tweet_lexicon, texts)


def test_nothing_to_find(tmp_path):
    lex = _lexicon(tmp_path, [(R + "A", "x")])  # too short: no form at all
    assert lex.stats["n_span_keys"] == 0
    assert lex.annotate(["x x", None, ""]) == [[], [], []]


WORDS = ["New", "York", "new", "york", "Times", "N.Y.", "(band)", "#Lyon", "Lyon", "Café", "CAFE", "x", "'s",
         "O'Neil", "AC/DC", "-", "Ünïcode", "İstanbul", "2013", "_", "under_score", "ß", "ǅ", "٣", "\U0001F600",
         "a\u0301", "Σίσυφος", "ﬁ"]
phrase = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
entity = st.sampled_from([R + n for n in ("A", "B", "C", "D", "E", "Category:F")])
SEPARATORS = [" ", "  ", "\n", "\t", "\u00a0", "\u2028", ",", "!", "nothing", "\ud83d"]  # a lone surrogate too
text = st.lists(st.one_of(st.sampled_from(WORDS + SEPARATORS), st.text(max_size=3)), max_size=16).map("".join)


@settings(max_examples=60, deadline=None)
@given(labels=st.lists(st.tuples(entity, phrase), min_size=1, max_size=12),
       redirects=st.lists(st.tuples(entity, entity), max_size=3),
       texts=st.lists(text, min_size=1, max_size=8), small=st.booleans())
def test_same_annotations_on_random_lexicons_and_texts(tmp_path_factory, labels, redirects, texts, small):
    lex = _lexicon(tmp_path_factory.mktemp("lex"), labels, redirects)
    expected = reference_annotate(lex, texts)
    if small:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(lexicon_module, "CHUNK_CHARS", 16)
            mp.setattr(lexicon_module, "SPAN_WINDOW", 2)
            mp.setattr(spans, "_BLOCK", 5)
            mp.setattr(spans, "_POWERS", None)
            got = lex.annotate(texts)
        spans._POWERS = None
    else:
        got = lex.annotate(texts)
    assert got == expected


# --------------------------------------------------------------------------- the pieces
def test_word_chars_are_the_regular_expressions_for_every_code_point():
    every = "".join(map(chr, range(0x110000)))
    expected = np.zeros(len(every), bool)
    for m in re.finditer(r"\w+", every):
        expected[m.start():m.end()] = True
    assert (spans.word_chars(spans.code_points(every)) == expected).all()


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)) | st.sampled_from(" _-.é٣"), max_size=60))
def test_tokens_and_span_keys(s):
    low = fold(s)
    starts, ends = spans.tokens(spans.code_points(low))
    assert list(zip(starts.tolist(), ends.tolist())) == [(m.start(), m.end()) for m in _TOKEN.finditer(low)]
    n = len(starts)
    if not n:
        return
    first, last = (np.array(v, np.int64) for v in zip(*[(i, j) for i in range(n) for j in range(i, n)]))
    strings = [low[starts[i]:ends[j]] for i, j in zip(first.tolist(), last.tolist())]
    keys = spans.SpanKeys(spans.code_points(low), starts, ends).keys(first, last)
    assert keys.tolist() == spans.string_keys(strings).tolist()  # the same key wherever the string stands
    seen = {}
    for string, key in zip(strings, keys.tolist()):
        assert seen.setdefault(key, string) == string  # (no collision in these few)


def test_span_keys_across_hash_blocks(small_pieces):
    low = fold("a bb ccc dddd eeeee " * 5)
    starts, ends = spans.tokens(spans.code_points(low))
    keys = spans.SpanKeys(spans.code_points(low), starts, ends).keys(np.arange(len(starts)), np.arange(len(starts)))
    assert keys.tolist() == spans.string_keys([low[a:b] for a, b in zip(starts, ends)]).tolist()
    assert len(set(keys.tolist())) == 5
    assert spans.string_keys(["", "", "a" * 14, ""]).tolist() == spans.string_keys(["", "", "a" * 14, ""]).tolist()


intervals = st.lists(st.tuples(st.integers(0, 40), st.integers(1, 12)), max_size=40).map(
    lambda v: sorted({(a, a + k) for a, k in v}))


@settings(max_examples=300, deadline=None)
@given(intervals, st.sampled_from([0, 1, 2, 16]), st.randoms(use_true_random=False))
def test_longest_first_is_the_one_by_one_choice(iv, rounds, rnd):
    rnd.shuffle(iv)
    lo = np.array([a for a, _ in iv], np.int64)
    hi = np.array([b for _, b in iv], np.int64)
    keep = spans.longest_first(lo, hi, rounds=rounds)
    expected = longest_matches("x" * 60, [(a, b, str(i), 1.0) for i, (a, b) in enumerate(iv)])
    assert sorted(np.flatnonzero(keep).tolist()) == sorted(int(a.uri) for a in expected)
