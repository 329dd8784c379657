"""The retry rule shared by the HTTP clients (kg.dbpedia.sparql, kg.dbpedia.spotlight)."""

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
        ("3600", 0, 60.0),     # capped too
        ("Wed, 21 Oct 2026 07:28:00 GMT", 1, 1.0),  # an HTTP-date is not parsed: absent
        (2.5, 0, 2.5),
    ],
)
def test_wait(retry_after, attempt, expected):
    assert TransientError("HTTP 503", retry_after).wait(attempt, 0.5) == pytest.approx(expected)


def test_is_internal_not_a_user_error():
    from kg.errors import KgfsError

    assert not issubclass(TransientError, KgfsError)
    assert str(TransientError("HTTP 429", "1")) == "HTTP 429"
