"""The retry rule and loop shared by the HTTP clients (kg.rdf.sources.sparql, kg.rdf.annotators.spotlight)."""

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
