"""What ``kgfs methods`` and the commands' ``--help`` say about the registered methods and the protocols.

- :func:`methods_overview`: every selector, classifier and protocol with its one-line description;
- :func:`method_help`: one method or protocol: kind, class, paper, the protocols that run it, its
  parameters (or options) with their allowed values and defaults;
- :func:`find_method`: which of the three a name is;
- :func:`citation`: the paper of a registered method.

Command-line text, kept out of the registry (:mod:`selection.registry` is the name -> class
table only) so that the registry imports no evaluation.

Examples
--------
>>> print(method_help("fisher").splitlines()[0])
fisher: selector (flat): Fisher score, top k features
"""

from __future__ import annotations

import inspect
import re
import textwrap

from kg.errors import KgfsError
from selection.evaluation.protocols import available_protocols
from selection.params import Parameter
from selection.registry import Entry, available_classifiers, available_selectors

__all__ = ["citation", "find_method", "method_help", "methods_overview"]

# "Wan & Freitas 2015", "da Silva et al. 2020", "Ristoski & Paulheim, *Title* (Venue 2014"
_NAME = r"(?:(?:da|de|van|von|der) )?[A-Z][\w-]+"
_CITATION = re.compile(rf"({_NAME}(?:(?:, | & | and ){_NAME})*(?: et al\.)?),? (?:\*([^*]+)\* \(([^()]*?) ?)?((?:19|20)\d\d)\b")


def _cited(doc: str) -> str:
    """The first citation (authors, year; title and venue when given) in a docstring."""
    m = _CITATION.search(" ".join(doc.split()))
    if m is None:
        return ""
    authors, title, venue, year = m.groups()
    return f"{authors}, {title} ({venue} {year})" if title else f"{authors} {year}"


def _final_class(entry: Entry) -> type:
    est = entry.estimator()
    return type(est.steps[-1][1] if getattr(est, "steps", None) else est)


def citation(entry: Entry) -> str:
    """The entry's ``paper``, or the first sentence citing a year in its class's or module's docstring.

    Parameters
    ----------
    entry : Entry

    Returns
    -------
    str

    Examples
    --------
    >>> from selection.registry import selector_entry
    >>> "2015" in citation(selector_entry("hip"))
    True
    """
    if entry.paper:
        return entry.paper
    cls = _final_class(entry)
    for obj in (cls, inspect.getmodule(cls)):
        found = _cited(inspect.getdoc(obj) or "")
        if found:
            return found
    return ""


def find_method(name: str):
    """The selector, classifier or protocol called ``name``, or a method a protocol resolves itself.

    Parameters
    ----------
    name : str

    Returns
    -------
    (str, object)
        ``("selector", Entry)``, ``("classifier", Entry)``, ``("protocol", Protocol)`` or
        ``("protocol method", Protocol)`` (a method only that protocol runs, e.g. ``hifsrr``).

    Raises
    ------
    KgfsError
        Listing every known name.

    Examples
    --------
    >>> find_method("nb")[0], find_method("rpv2020")[0], find_method("hifsrr")[0]
    ('classifier', 'protocol', 'protocol method')
    """
    selectors, classifiers, protocols = available_selectors(), available_classifiers(), available_protocols()
    for role, table in (("selector", selectors), ("classifier", classifiers), ("protocol", protocols)):
        if name in table:
            return role, table[name]
    for p in protocols.values():
        if p.methods is not None and name in p.methods:
            return "protocol method", p
    known = sorted({*selectors, *classifiers, *protocols})
    raise KgfsError(f"unknown method {name!r}; known: {', '.join(known)}")


def _protocols_of(name: str, role: str) -> str:
    papers, runs = [], []
    for p in available_protocols().values():
        if name in p.paper_methods:
            papers.append(p.name)
        elif (p.methods is None if role == "selector" else True) or name in (p.methods or ()):
            runs.append(p.name)
    text = ", ".join(f"{p} (the paper's experiment)" for p in papers)
    if runs:
        text += ("; also " if text else "") + "runs under " + ", ".join(runs)
    return text


def _parameter_lines(params: list[Parameter], width: int = 110) -> list[str]:
    if not params:
        return ["  (none)"]
    rows = [("name", "allowed", "default", "meaning")]
    rows += [(p.name, p.allowed, repr(p.default) if isinstance(p.default, str) else str(p.default), p.meaning)
             for p in params]
    w = [min(max(len(r[i]) for r in rows), cap) for i, cap in ((0, 28), (1, 40), (2, 16))]
    out = []
    for name, allowed, default, meaning in rows:
        allowed = allowed if len(allowed) <= 40 else allowed[:37] + "..."
        meaning = meaning if len(meaning) <= width else meaning[: width - 3] + "..."
        out.append(f"  {name:<{w[0]}}  {allowed:<{w[1]}}  {default:<{w[2]}}  {meaning}".rstrip())
    return out


def method_help(name: str) -> str:
    """The text of ``kgfs methods NAME``: description, kind, paper, protocols, parameters and defaults.

    Parameters
    ----------
    name : str
        A selector, classifier or protocol (see :func:`find_method`).

    Returns
    -------
    str

    Examples
    --------
    >>> print(method_help("knn").splitlines()[1])
    class: sklearn.neighbors._classification.KNeighborsClassifier
    """
    role, obj = find_method(name)
    if role == "protocol method":
        return (f"{name}: a method of protocol {obj.name} (resolved by the protocol, not a registry selector)\n"
                f"protocol: {obj.description}\nusage: kgfs evaluate --protocol {obj.name} --selectors {name} ...")
    if role == "protocol":
        lines = [f"{name}: protocol: {obj.description}",
                 f"classifiers (default): {', '.join(obj.classifiers)}; folds: {obj.n_splits}"
                 + (f"; Holm control: {obj.control}" if obj.control else ""),
                 "methods: " + (", ".join(obj.methods) if obj.methods is not None else "every registered selector"),
                 "options (--option KEY=VALUE):", *_parameter_lines(obj.parameters())]
        return "\n".join(lines)
    kind = "" if role == "classifier" else f" ({obj.kind})"
    cls = _final_class(obj)
    lines = [f"{name}: {role}{kind}: {obj.description}", f"class: {cls.__module__}.{cls.__qualname__}"]
    paper = citation(obj)
    if paper:
        lines.append(f"paper: {paper}")
    lines.append(f"protocols: {_protocols_of(name, role)}")
    if obj.kind == "lazy":
        lines.append("lazy: a feature subset per instance; `kgfs select` writes it per instance, "
                     "`kgfs evaluate`/`kgfs run` score it with the lazy classifiers")
    lines += ["parameters (--param KEY=VALUE, or --param NAME.KEY=VALUE when several methods are given):",
              *_parameter_lines(obj.parameters())]
    return "\n".join(lines)


def methods_overview(roles=("selector", "classifier", "protocol"), width: int = 100) -> str:
    """Every registered selector, classifier and protocol with its description (the commands' ``--help``).

    Parameters
    ----------
    roles : sequence of str
        Which lists, in order.
    width : int
        Descriptions are wrapped to this width.

    Returns
    -------
    str

    Examples
    --------
    >>> text = methods_overview(("classifier",))
    >>> text.splitlines()[0], "  nb " in text
    ('classifiers (kgfs methods NAME shows the parameters):', True)
    """
    tables = {"selector": {n: f"[{e.kind}] {e.description}" for n, e in available_selectors().items()},
              "classifier": {n: e.description for n, e in available_classifiers().items()}}
    if "protocol" in roles:
        tables["protocol"] = {n: p.description for n, p in available_protocols().items()}
    out = []
    for role in roles:
        items = tables[role]
        w = max(len(n) for n in items) + 2
        out.append(f"{role}s (kgfs methods NAME shows the {'options' if role == 'protocol' else 'parameters'}):")
        for n, desc in items.items():
            out += textwrap.wrap(desc, width, initial_indent=f"  {n:<{w}}", subsequent_indent=" " * (w + 2)) or [
                f"  {n}"]
    return "\n".join(out)
