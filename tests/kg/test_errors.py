"""The retry rule and loop shared by the HTTP clients (kg.rdf.sources.sparql, kg.rdf.annotators.spotlight), and
messages that name the library's parameters in Python and the options on the command line (issue 34)."""

import pytest

from kg.errors import TransientError


@pytest.mark.parametrize(
    "retry_after, attempt, expected",
    [
        (None, 0, 0.5),        # exponential backoff from the client's base
        (None, 3, 4.0),
        (None, 10, 60.0),      # capped
        ("7", 0, 7.0),         # the server's Retry-After wins when longer
        ("0.1", 3, 4.0),       # ... but never shortens the backoff
        ("3600", 0, 3600.0),   # honoured past the cap (retry refuses one above MAX_RETRY_AFTER: the error names it)
        ("Wed, 21 Oct 2015 07:28:00 GMT", 1, 1.0),  # an HTTP date in the past: no longer than the backoff
        (2.5, 0, 2.5),
    ],
)
def test_wait(retry_after, attempt, expected):
    assert TransientError("HTTP 503", retry_after).wait(attempt, 0.5) == pytest.approx(expected)


def test_is_internal_not_a_user_error():
    from kg.errors import KgfsError

    assert not issubclass(TransientError, KgfsError)
    assert str(TransientError("HTTP 429", "1")) == "HTTP 429 (Retry-After: 1 s)"  # the message names the wait
    assert str(TransientError("HTTP 503")) == "HTTP 503"


def test_retry_gives_up_with_the_clients_error_and_passes_other_errors_through():
    from kg.errors import KgfsError, RetryPolicy, retry

    calls, waits, counted = [], [], []

    def always_503():
        calls.append(1)
        raise TransientError("HTTP 503", "3")

    with pytest.raises(KgfsError, match=r"failed 3 time\(s\), last: HTTP 503"):
        retry(always_503, RetryPolicy(retries=2, backoff=1.0, sleep=waits.append), what="test",
              on_retry=lambda: counted.append(1), give_up=lambda n, e: KgfsError(f"failed {n} time(s), last: {e}"))
    assert len(calls) == 3 and waits == [3.0, 3.0] and len(counted) == 2  # Retry-After 3 > 1, 2

    def rejected():
        calls.append(1)
        raise ValueError("HTTP 400")

    calls.clear()
    with pytest.raises(ValueError, match="HTTP 400"):
        retry(rejected, RetryPolicy(retries=5, backoff=1.0, sleep=waits.append), what="test", give_up=lambda n, e: e)
    assert len(calls) == 1  # never retried


def test_a_deadline_bounds_the_retries_whatever_their_number():
    """The time a request may take with its retries is bounded: a server that never answers fails in time."""
    from kg.errors import DeadlineError, KgfsError, RetryPolicy, retry

    now, calls, waits = [0.0], [], []

    def timed_out():  # each attempt takes 10 s of the fake clock
        calls.append(now[0])
        now[0] += 10.0
        raise TransientError("timed out")

    def sleep(s):
        waits.append(s)
        now[0] += s

    with pytest.raises(DeadlineError, match=r"gave up after 3\d s \(the time allowed\): failed 3 time\(s\), "
                                            r"last: timed out; rerun to resume") as info:
        retry(timed_out, RetryPolicy(retries=100, backoff=1.0, sleep=sleep, deadline=35.0, clock=lambda: now[0]),
              what="test", give_up=lambda n, e: KgfsError(f"failed {n} time(s), last: {e}; rerun to resume"))
    assert calls == [0.0, 11.0, 23.0] and waits == [1.0, 2.0]  # no attempt starts after the deadline
    assert isinstance(info.value, KgfsError)


def test_without_a_deadline_the_number_of_retries_bounds_the_loop():
    from kg.errors import DeadlineError, KgfsError, RetryPolicy, retry

    def always():
        raise TransientError("HTTP 503")

    with pytest.raises(KgfsError, match="failed 3 time") as info:
        retry(always, RetryPolicy(retries=2, backoff=0.1, sleep=lambda s: None), what="test",
              give_up=lambda n, e: KgfsError(f"failed {n} time(s)"))
    assert not isinstance(info.value, DeadlineError)


# --------------------------------------------------------------------------- messages name parameters (issue 34)
# A message of the library names its parameters as Python calls them (kg.errors.param, or a keyword hint such as
# ``drop_unknown=True``); the command line says the option its user typed. Each case: the library's words, then the
# same error through `kgfs build`, in-process.


def _cli_error(capsys, argv) -> str:
    from flows.cli import main

    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err and err[-1].startswith("kgfs: error: "), err
    return err[-1].removeprefix("kgfs: error: ")


def test_kinds_name_features_and_values(kg_dump_dir, tmp_path, monkeypatch, capsys):
    from kg.errors import ParameterError
    from kg.rdf.kinds import FeatureSpec

    with pytest.raises(ParameterError) as err:
        FeatureSpec.of("types", values="count")
    assert str(err.value) == "values='count' counts relations: give features='relations' or qualified-relations"
    monkeypatch.setenv("KGFS_HOME", str(tmp_path / "home"))
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": 1, "text": "Lyon beat Chelsea F.C.", "label": 1}\n')
    line = _cli_error(capsys, ["build", "--corpus", str(corpus), "--dump", str(kg_dump_dir), "--features", "types",
                               "--values", "count", "--out", str(tmp_path / "T")])
    assert line == "--values count counts relations: give --features relations or qualified-relations"


def test_a_user_table_names_drop_unknown_and_hierarchy(tmp_path, capsys):
    from kg.errors import InputFormatError
    from kg.formats.folder import read_user_table

    table, edges = tmp_path / "t.csv", tmp_path / "h.csv"
    table.write_text("id,A,B,label\nx,1,1,1\ny,1,0,0\n")
    edges.write_text("child,parent\nB,A\nZZZ,A\n")
    with pytest.raises(InputFormatError) as err:
        read_user_table(table, hierarchy=edges)
    assert str(err.value) == f"{edges}:3: 'ZZZ' is not a feature (a column) of t.csv; pass drop_unknown=True to drop " \
                             "such nodes"
    line = _cli_error(capsys, ["build", "--csv", str(table), "--hierarchy", str(edges), "--out", str(tmp_path / "T")])
    assert line == f"{edges}:3: 'ZZZ' is not a feature (a column) of t.csv; pass --hierarchy-drop-unknown to drop " \
                   "such nodes"


def test_an_emptied_table_names_min_support(tmp_path, capsys):
    from kg.errors import KgfsError
    from kg.routes.base import check_nonempty
    from kg.routes.tables import RegistryDataset

    table = RegistryDataset.from_options({"dataset": "synthetic/S-D2-B2"}).load()
    with pytest.raises(KgfsError) as err:
        check_nonempty(table.drop_rare(5000), 5000, table)
    python = str(err.value)
    assert "(min_support=5000): the table would be empty" in python and "--" not in python
    line = _cli_error(capsys, ["build", "--dataset", "synthetic/S-D2-B2", "--min-support", "5000",
                               "--out", str(tmp_path / "T")])
    assert line == python.replace("min_support=5000", "--min-support 5000")
