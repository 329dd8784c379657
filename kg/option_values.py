"""Values of command-line options as the kinds of input parse them, in a module light enough for ``kgfs --help``.

:func:`positive_number` and :func:`whole_number` parse an option's text and raise
:class:`UsageError` (a ``ValueError``) for a value of the wrong form; the command line turns that
into a usage error (exit status 2). :mod:`kg.routes.base` re-exports them.
"""

from __future__ import annotations

from collections.abc import Callable

from kg.errors import KgfsError

__all__ = ["CHECK_HELP", "UsageError", "positive_number", "whole_number"]

#: The help of ``--check`` (registry tables, a user's own table, ``kgfs evaluate``).
CHECK_HELP = ("tables whose cells violate the hierarchy (child=1, parent=0; registry tables, --arff, --csv): close "
              "them upward (repair, the default; counted in the table's meta), keep them as they are (report; "
              "hierarchical selectors then refuse the table) or fail (raise)")


class UsageError(KgfsError, ValueError):
    """A value of the wrong form for an option (``--timeout abc``): a usage error of the command line."""


# --------------------------------------------------------------------------- option values
def positive_number(text: str) -> float:
    """A number > 0 (seconds, say), from an option's text.

    Parameters
    ----------
    text : str

    Returns
    -------
    float

    Raises
    ------
    UsageError

    Examples
    --------
    >>> positive_number("2.5")
    2.5
    >>> positive_number("0")
    Traceback (most recent call last):
    ...
    kg.option_values.UsageError: must be a number > 0, got '0'
    """
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise UsageError(f"must be a number > 0, got {text!r}")
    return value


def whole_number(minimum: int = 1, all_cores: bool = False) -> Callable[[str], int]:
    """A parser of whole numbers ``>= minimum`` (or ``-1``, all cores, when ``all_cores``).

    Parameters
    ----------
    minimum : int
    all_cores : bool

    Returns
    -------
    callable
        ``str -> int``, raising :class:`UsageError`.

    Examples
    --------
    >>> whole_number(1, all_cores=True)("-1"), whole_number(0)("3")
    (-1, 3)
    >>> whole_number(1, all_cores=True)("0")
    Traceback (most recent call last):
    ...
    kg.option_values.UsageError: must be a whole number >= 1 or -1 (all cores), got '0'
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or (value < minimum and not (all_cores and value == -1)):
            raise UsageError(f"must be a whole number >= {minimum}" + (" or -1 (all cores)" if all_cores else "")
                             + f", got {text!r}")
        return value

    parse.__name__ = "whole number"  # argparse names the type in its message
    return parse
