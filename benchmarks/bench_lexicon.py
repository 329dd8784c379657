"""The lexicon annotator: 100,000 labels, 10,000 tweets, against a bare pyahocorasick scan.

Target (issue 6): annotating 10,000 tweets with a 100,000-label lexicon in under 2 s.

    python benchmarks/bench_lexicon.py [--labels 100000] [--tweets 10000]

Tweets are the real Sports Tweets (``../shared/data/tweets/training.txt`` + ``test.txt``,
repeated to the wanted count) when available, else generated sentences. Labels are generated
DBpedia-like names (1-4 capitalised words from a vocabulary that includes words of the tweets,
so that there are real matches, overlaps and ambiguities), plus redirect-style aliases.
The baseline is the raw automaton scan (``Automaton.iter`` over the lower-cased texts) with
no boundary checks, longest-match resolution or annotation objects.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.rdf.annotators.lexicon import LexiconAnnotator  # noqa: E402


def tweets(n: int) -> list[str]:
    data = ROOT.parent / "shared" / "data" / "tweets"
    texts: list[str] = []
    if (data / "training.txt").is_file():
        from kg.rdf.corpus import read_sports_tweets

        texts = read_sports_tweets(data / "training.txt").texts + read_sports_tweets(data / "test.txt").texts
    if not texts:
        rng = random.Random(1)
        vocab = [f"word{i}" for i in range(5000)]
        texts = [" ".join(rng.choice(vocab) for _ in range(15)) for _ in range(n)]
    return (texts * (n // len(texts) + 1))[:n]


def labels(n: int, texts: list[str]) -> dict[str, list[str]]:
    rng = random.Random(0)
    words = sorted({w for t in texts[:5000] for w in re.findall(r"[A-Za-z][a-z]{2,}", t)})
    vocab = words + [f"Name{i}" for i in range(20000)]
    out: dict[str, list[str]] = {}
    while len(out) < n:
        k = rng.choice([1, 1, 2, 2, 2, 3, 4])
        name = " ".join(rng.choice(vocab).capitalize() for _ in range(k))
        iri = "http://dbpedia.org/resource/" + name.replace(" ", "_") + f"_{len(out)}"
        forms = [name]
        if rng.random() < 0.3:  # a redirect-style alias
            forms.append(" ".join(rng.choice(vocab) for _ in range(rng.choice([1, 2]))))
        out[iri] = forms
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--labels", type=int, default=100_000)
    ap.add_argument("--tweets", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    texts = tweets(args.tweets)
    forms = labels(args.labels, texts)
    t = time.perf_counter()
    lex = LexiconAnnotator(forms)
    build = time.perf_counter() - t
    print(f"built {lex!r} from {args.labels:,} entities in {build:.2f} s")

    base, full, n_found = [], [], 0
    automaton = lex._automaton
    for _ in range(args.repeats):
        t = time.perf_counter()
        hits = 0
        for text in texts:
            for _ in automaton.iter(text.lower()):
                hits += 1
        base.append(time.perf_counter() - t)
        t = time.perf_counter()
        out = lex.annotate(texts)
        full.append(time.perf_counter() - t)
        n_found = sum(len(a) for a in out)
    b, f = min(base), min(full)
    print(f"raw automaton scan    : {b:.3f} s  ({hits:,} raw hits in {len(texts):,} tweets)")
    print(f"LexiconAnnotator      : {f:.3f} s  ({n_found:,} annotations after boundaries/longest match)")
    print(f"ratio annotate/scan   : {f / b:.1f}x")
    print(f"10,000 tweets target  : {f:.2f} s  (target < 2 s)  {'OK' if f < 2 else 'TOO SLOW'}")


if __name__ == "__main__":
    main()
