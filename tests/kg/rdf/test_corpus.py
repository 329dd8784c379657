import gzip
import json

import pytest

from kg.errors import InputFormatError, KgfsError
from kg.rdf.corpus import Corpus, OptionalColumn, load_corpus, read_corpus, read_sports_tweets


def test_tsv_csv_jsonl_give_the_same_corpus(tmp_path):
    rows = [("a", "Kobe Bryant scores, again", "sport"), ("b", 'Obama "speaks"', "politics")]
    (tmp_path / "c.tsv").write_text("id\ttext\tlabel\n" + "".join(f"{i}\t{t}\t{lab}\n" for i, t, lab in rows))
    (tmp_path / "c.csv").write_text('id,text,label\na,"Kobe Bryant scores, again",sport\n'
                                    'b,"Obama ""speaks""",politics\n')
    (tmp_path / "c.jsonl").write_text("".join(json.dumps({"id": i, "text": t, "label": lab}) + "\n"
                                              for i, t, lab in rows))
    with gzip.open(tmp_path / "c.jsonl.gz", "wt") as fh:
        fh.write((tmp_path / "c.jsonl").read_text())
    got = [read_corpus(tmp_path / n) for n in ("c.tsv", "c.csv", "c.jsonl", "c.jsonl.gz")]
    for c in got:
        assert c.ids == ["a", "b"]
        assert c.texts == ["Kobe Bryant scores, again", 'Obama "speaks"']
        assert c.labels == ["sport", "politics"]
        assert c.entities is None


def test_custom_columns_and_row_numbers(tmp_path):
    p = tmp_path / "c.csv"
    p.write_text("tweet,cls\nhello,1\nworld,0\n")
    c = read_corpus(p, id_column=None, text_column="tweet", label_column="cls")
    assert c.ids == ["1", "2"] and c.labels == ["1", "0"]


@pytest.mark.parametrize(("header", "entity", "like"), [
    ("qid,label", "qid", ["qid"]),  # the entity column names the rows (CoDEx's people: one QID each)
    ("qid,tweet_id,label", "qid", ["tweet_id", "qid"]),  # a column of its own first
    ("QID,valid,label", "QID", ["QID"]),  # any case; a name that only ends with "id" is not one
    ("entity,text,label", "entity", []),
])
def test_a_corpus_without_an_id_column_says_which_columns_look_like_ids(tmp_path, header, entity, like):
    p = tmp_path / "c.csv"
    cols = header.split(",")
    p.write_text(header + "\n" + ",".join("http://www.wikidata.org/entity/Q42" if c == entity else "1" if
                                          c == "label" else "x" for c in cols) + "\n")
    c = read_corpus(p, entity_columns=[entity])
    assert c.ids == ["1"] and c.meta["ids_numbered"] == like


def test_missing_column_is_named(tmp_path):
    p = tmp_path / "c.tsv"
    p.write_text("id\ttweet\tlabel\n1\tx\ty\n")
    with pytest.raises(InputFormatError, match=r"\['text'\] not found"):
        read_corpus(p)


def test_an_optional_label_column_reads_a_file_without_the_label_column_unlabelled(tmp_path):
    p = tmp_path / "new.csv"
    p.write_text("id,text\na,Lyon wins\nb,Paris\n")
    with pytest.raises(InputFormatError, match=r"\['label'\] not found"):
        read_corpus(p)
    c = load_corpus(p, label_column=OptionalColumn("label"))
    assert (c.ids, c.texts, c.labels) == (["a", "b"], ["Lyon wins", "Paris"], None)
    p.write_text("id,text,cls\na,Lyon wins,x\nb,Paris,\n")  # with the column, every label is still required
    with pytest.raises(InputFormatError, match=r":3: empty label in column 'cls'"):
        load_corpus(p, label_column=OptionalColumn("cls"))
    p.write_text("id,text,cls\na,Lyon wins,x\nb,Paris,y\n")
    assert load_corpus(p, label_column=OptionalColumn("cls")).labels == ["x", "y"]


def test_bad_jsonl_line_is_named(tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_text('{"id": 1, "text": "a", "label": 0}\n{"id": 2, "text": \n')
    with pytest.raises(InputFormatError, match=r"c\.jsonl:2"):
        read_corpus(p)


def test_duplicate_ids_and_empty_labels(tmp_path):
    p = tmp_path / "c.tsv"
    p.write_text("id\ttext\tlabel\n1\ta\tx\n1\tb\ty\n")
    with pytest.raises(InputFormatError, match="duplicate instance id '1'"):
        read_corpus(p)
    p.write_text("id\ttext\tlabel\n1\ta\t\n")
    with pytest.raises(InputFormatError, match=":2: empty label"):
        read_corpus(p)


def test_entity_columns_on_the_real_ten_tweets(shared_data):
    c = read_corpus(
        shared_data / "tweets" / "sport_tweets_10_with_dbpedia_uris.tsv",
        entity_columns=["Dbpedia_URI_1", "Dbpedia_URI_2", "Dbpedia_URI_3"],
    )
    assert c.ids == ["1", "2", "3", "4", "5", "6", "8", "9", "11", "12"]
    assert c.texts is None
    assert c.entities[0] == ["http://dbpedia.org/resource/Chris_Gayle"]  # "?" cells dropped
    assert len(c.entities[1]) == 3
    # the U+00A0 inside this (mis-encoded) IRI is part of the IRI, not a separator
    assert c.entities[5][0] == "http://dbpedia.org/resource/DÃ©jÃ\xa0_vu"
    assert c.labels.count("1.0") == 7


def test_hostile_entity_values(tmp_path):
    p = tmp_path / "c.tsv"
    p.write_text("id\tentity\tlabel\n1\thttp://dbpedia.org/resource/>}DROP_ALL#\t0\n2\t> } ; DROP ALL #\t1\n")
    with pytest.raises(InputFormatError, match=r"c\.tsv:3, column 'entity'"):
        read_corpus(p, entity_columns="entity")
    c = read_corpus(p, entity_columns="entity", invalid_iri="skip")
    assert c.entities[0] == ["http://dbpedia.org/resource/%3E%7DDROP_ALL#"]
    assert c.entities[1] == [">"] or c.entities[1] == []  # whitespace-split pieces are not IRIs
    assert c.meta["skipped_invalid_iris"]


def test_sports_tweets_training_file(shared_data):
    c = read_sports_tweets(shared_data / "tweets" / "training.txt")
    assert len(c) == 6525
    assert set(c.labels) == {"Sports", "Politics"}
    assert c.ids[0] == "306624404287275009"
    # Python-literal text: the \u2019 escape is decoded
    assert c.texts[0].endswith("the event\u2019s history to be dismissed for 99?")
    assert c.texts[1].startswith("Tonight's Scottish First Division")  # double-quoted record


def test_sports_tweets_unlabelled_test_file(shared_data):
    c = read_sports_tweets(shared_data / "tweets" / "test.txt")
    assert c.labels is None and len(c) > 3000
    assert c.texts[16].startswith('Obama: "Republicans')


def test_records_spanning_lines(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text(
        "1 Sports 'first line\n"
        "10 off the over continues it'\n"
        "2 Politics \"one 'quoted' line\"\n"
        "3 Sports 'ends with \\' quote\n"
        "still going'\n"
    )
    c = read_sports_tweets(p)
    assert c.ids == ["1", "2", "3"]
    assert c.texts == ["first line\n10 off the over continues it", "one 'quoted' line",
                       "ends with ' quote\nstill going"]
    assert c.labels == ["Sports", "Politics", "Sports"]


def test_unclosed_record_is_named(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("1 Sports 'fine'\n2 Sports 'never closed\n")
    with pytest.raises(InputFormatError, match=r"t\.txt:2: tweet 2 has no closing '"):
        read_sports_tweets(p)
    p.write_text("garbage\n")
    with pytest.raises(InputFormatError, match=":1:"):
        read_sports_tweets(p)


def test_corpus_checks():
    with pytest.raises(ValueError):
        Corpus(ids=["a"])
    with pytest.raises(ValueError):
        Corpus(ids=["a"], texts=["x", "y"])
    assert Corpus(ids=["a"], texts=["x"], labels=[1]).label_map == {"a": 1}


def test_empty_corpus(tmp_path):
    p = tmp_path / "c.tsv"
    p.write_text("id\ttext\tlabel\n")
    with pytest.raises(KgfsError, match="no records"):
        read_corpus(p)


def test_load_corpus_dispatches_on_the_format(shared_data, tmp_path):
    assert len(load_corpus(shared_data / "tweets" / "training.txt")) == 6525
    p = tmp_path / "c.jsonl"
    p.write_text('{"id": "x", "text": "hi", "label": 1}\n')
    assert load_corpus(p).texts == ["hi"]


def test_a_junk_line_after_a_closed_tweet_is_named_or_skipped(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("1 Sports 'Chris Gayle is out'\na junk line\n\n2 Politics 'Obama speaks'\n")
    with pytest.raises(InputFormatError, match=r"t\.txt:2: expected .*; pass skip_bad_lines=True to skip such "
                                               r"records$"):
        read_sports_tweets(p)
    c = read_sports_tweets(p, skip_bad_lines=True)
    assert c.ids == ["1", "2"] and c.texts == ["Chris Gayle is out", "Obama speaks"]  # nothing joined to a tweet


# --------------------------------------------------------------------------- hostile input: one huge record (issue 30)
def _huge_jsonl(path, size: int, n: int = 200) -> int:
    """``n`` normal records and, in the middle, one whose text has ``size`` characters; returns its line."""
    line = n // 2 + 1
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            if i == line - 1:
                fh.write('{"id": "huge", "label": 1, "text": "')
                chunk = "Lyon beat Chelsea F.C. in London " * 32_768  # 1 MiB
                for _ in range(size // len(chunk)):
                    fh.write(chunk)
                fh.write('"}\n')
            fh.write(json.dumps({"id": i, "text": f"Lyon wins game {i}", "label": i % 2}) + "\n")
    return line


def _peak(fn):
    import time
    import tracemalloc

    tracemalloc.start()
    t = time.perf_counter()
    try:
        out = fn()
    except Exception as exc:  # noqa: BLE001 - returned for the caller to check
        out = exc
    seconds = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, peak, seconds


def test_a_200_mb_record_is_an_error_naming_file_and_line_within_seconds(tmp_path):
    """issue 30: a 200 MB JSON Lines record ran 208 s and peaked at 20.9 GB; now it is never read whole."""
    p = tmp_path / "big.jsonl"
    line = _huge_jsonl(p, 200 << 20)
    err, peak, seconds = _peak(lambda: read_corpus(p))
    assert isinstance(err, InputFormatError), err
    assert f"big.jsonl:{line}: a record of more than 8,388,608 bytes" in str(err)
    assert "(pass max_record_bytes=N for longer ones)" in str(err) and "pass skip_bad_lines=True" in str(err)
    assert "--" not in str(err)  # the library's words; the command line says its options (tests/kg/test_errors.py)
    assert peak < 40 << 20 and seconds < 10, (peak, seconds)
    corpus, peak, seconds = _peak(lambda: read_corpus(p, skip_bad_lines=True))  # skipped piece by piece, counted
    assert len(corpus) == 200 and corpus.meta["bad_lines"] == [line] and "huge" not in corpus.ids
    assert peak < 40 << 20, peak


@pytest.mark.parametrize("fmt", ["tsv", "csv", "tweets"])
def test_the_record_limit_holds_for_every_format(tmp_path, fmt):
    long = "word " * 300
    if fmt == "tweets":
        p = tmp_path / "t.txt"
        p.write_text(f"1 Sports 'short one'\n2 Sports 'a tweet\n{long}\n{long}'\n3 Politics 'short'\n")
        read = read_sports_tweets
    else:
        sep = "\t" if fmt == "tsv" else ","
        p = tmp_path / f"c.{fmt}"
        p.write_text(f"id{sep}text{sep}label\n1{sep}short{sep}a\n2{sep}\"{long}\n{long}\"{sep}b\n3{sep}x{sep}a\n")
        read = load_corpus
    assert len(read(p, max_record_bytes=4000)) == 3  # under the limit: read as before
    with pytest.raises(InputFormatError, match=r":3: .*more than 1,000 bytes|:3: .*fields"):
        read(p, max_record_bytes=1000)
    assert len(read(p, max_record_bytes=1000, skip_bad_lines=True)) >= 2
