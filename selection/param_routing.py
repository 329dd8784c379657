"""Which method a ``--param`` value is for: ``NAME.KEY`` or a plain ``KEY`` routed to the methods of a command.

:func:`method_params` gives each registered method named on the command line the parameters meant
for it, checked against its declaration (:meth:`selection.registry.Entry.check_params`; the declarations are
read without importing the estimators: :mod:`selection.declarations`);
:func:`whole_table_params` does the same for the one selector ``kgfs run`` fits on a whole table.
``KEY=VALUE`` items themselves are parsed by :func:`selection.params.parse_assignments`.

Examples
--------
>>> method_params({"threshold": 0.5, "knn.n_neighbors": 5}, ["shsel-ig", "complete"], ["knn"])
{'shsel-ig': {'threshold': 0.5}, 'knn': {'n_neighbors': 5}}
"""

from __future__ import annotations

from collections.abc import Mapping

from kg.errors import ParameterError, did_you_mean, param
from selection.registry import Entry, classifier_entry, selector_entry

__all__ = ["method_params", "whole_table_params"]


def whole_table_params(name: str | Entry, assignments: Mapping) -> dict:
    """The checked ``--param`` values of ``--selector NAME`` fitted on a whole table (``kgfs run``).

    Parameters
    ----------
    name : str
        The registered selector.
    assignments : mapping
        ``KEY`` or ``NAME.KEY`` -> value (see :func:`method_params`).

    Returns
    -------
    dict
        Its parameters.

    Raises
    ------
    KgfsError
        An unknown selector or parameter, a value out of range, or a lazy selector (it has no one
        subset of the table: the message says where lazy selectors are used).

    Examples
    --------
    >>> whole_table_params("shsel-ig-prune", {"threshold": 0.9})
    {'threshold': 0.9}
    >>> whole_table_params("hip", {})
    Traceback (most recent call last):
    ...
    kg.errors.ParameterError: selector='hip' is a lazy selector (a feature subset per instance, no one subset ...
    """
    entry = selector_entry(name)  # looked up once; method_params takes the entry
    name = entry.name
    if entry.kind == "lazy":
        raise ParameterError(
            f"{param('selector', name)} is a lazy selector (a feature subset per instance, no one subset of the "
            f"table): compare it in the cross-validation ({param('selectors', f'{name} complete')} "
            f"{param('classifiers', 'lazy-nb')}, or {param('protocol', 'rpv2020')}), or write its selection per "
            f"instance with `kgfs select --selector {name}`")
    return method_params(assignments, [entry]).get(name, {})


def method_params(assignments: Mapping, selectors, classifiers=(), *, free=()) -> dict[str, dict]:
    """``--param`` assignments given to the methods of a command, each checked against its declaration.

    ``NAME.KEY`` goes to method ``NAME``; a plain ``KEY`` to every selector that declares it
    (else every classifier that does).

    Parameters
    ----------
    assignments : mapping
        ``KEY`` or ``NAME.KEY`` -> value (:func:`selection.params.parse_assignments`).
    selectors, classifiers : sequence of str or Entry
        The registry names the command runs, or their entries already looked up
        (:func:`selection.registry.selector_entry`; each name is looked up once).
    free : sequence of str
        Methods a protocol resolves itself (their parameters are not declared here: passed as given).

    Returns
    -------
    dict of str -> dict
        Method name -> its checked parameters (methods without any are left out).

    Raises
    ------
    KgfsError
        An unknown method or parameter, a value out of range.

    Examples
    --------
    >>> method_params({"alpha": 0.5}, ["complete"], ["nb"])  # no selector declares alpha: the classifier's
    {'nb': {'alpha': 0.5}}
    """
    entries = {e.name: e for e in (selector_entry(n) for n in selectors if n not in free)}
    clfs = [classifier_entry(n) for n in classifiers]
    classifiers = [e.name for e in clfs]
    entries.update({e.name: e for e in clfs})
    given: dict[str, dict] = {}
    for key, value in assignments.items():
        name, dot, pname = key.rpartition(".")
        if dot:
            if name not in entries and name not in free:
                raise ParameterError(f"{param('params', key)}: {name!r} is not among the methods given"
                                f"{did_you_mean(name, [*entries, *free])} ({', '.join([*entries, *free])})")
            given.setdefault(name, {})[pname] = value
            continue
        for group in ([n for n in entries if entries[n].role == "selector"], [n for n in entries if n in classifiers]):
            hits = [n for n in group if pname in {p.name for p in entries[n].declared()}]
            if hits:
                break
        hits = hits or list(free)
        if not hits:
            known = "; ".join(f"{n}: {', '.join(p.name for p in e.declared()) or '(none)'}"
                              for n, e in entries.items())
            names = {p.name for e in entries.values() for p in e.declared()}
            raise ParameterError(f"{param('params', pname)}: none of the methods given has a parameter {pname!r}"
                            f"{did_you_mean(pname, names)} ({known})")
        for n in hits:
            given.setdefault(n, {})[pname] = value
    return {n: (entries[n].check_params(p) if n in entries else p) for n, p in given.items()}
