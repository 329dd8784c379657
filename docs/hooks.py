"""mkdocs hook: the docstrings' Sphinx roles as mkdocstrings cross-references.

kgfs's numpydoc docstrings write ``:class:`~kg.table.FeatureTable```, ``:func:`read_obo``` or
``:mod:`kg.rdf.index.dumpindex```, which mkdocs' Markdown would show as raw text. Before a page's docstrings
are rendered, each role becomes an autorefs cross-reference (``[FeatureTable][kg.table.FeatureTable]``) when
it names a dotted object path, and a code span otherwise (a name relative to its module, or outside kgfs), so
that ``mkdocs build --strict`` fails on a reference that names a missing kgfs object and not on the roles.
"""

from __future__ import annotations

import importlib
import logging
import re
from functools import cache

# :role:`target`, :role:`~target`, :role:`title <target>` (the roles kgfs's docstrings use)
ROLE = re.compile(r":(?:py:)?(class|func|meth|mod|data|attr|obj|exc|const|ref|doc|term):`([^`]+)`")
OURS = ("kg.", "selection.", "flows.")

# References of the source's docstrings to a name that has moved: linked to where it is now. Each is a docstring
# to correct in the source (then remove its line here).
MOVED = {
    "flows.pipeline.run_pipeline": "flows.runner.run_pipeline",  # flows/__init__.py
    "flows.pipeline.set_reporter": "flows.progress.set_reporter",  # flows/cli/display.py
}
# Warnings of the docstrings' own form, known and tolerated by name (each a docstring to correct in the source,
# then remove its line here); any other warning fails `mkdocs build --strict`.
KNOWN_DOCSTRING_WARNINGS = (
    # LazyKNN's paragraph after its Parameters section has no section header of its own (numpydoc: Notes)
    "selection/lazy/classifiers.py:146: Could not parse line '``predict_proba`` follows IBk",
)


def role_to_markdown(match: re.Match) -> str:
    """One role as Markdown: a cross-reference to a kgfs object, else a code span.

    >>> role_to_markdown(ROLE.search(":class:`~kg.table.FeatureTable`"))
    '[`FeatureTable`][kg.table.FeatureTable]'
    >>> role_to_markdown(ROLE.search(":func:`read_obo`"))
    '`read_obo()`'
    >>> role_to_markdown(ROLE.search(":class:`rdflib.Graph`"))
    '`rdflib.Graph`'
    """
    role, text = match.groups()
    title, target = text, text
    if m := re.fullmatch(r"(.+?)\s*<(.+)>", text):
        title, target = m.groups()
    elif text.startswith("~"):
        target = text[1:]
        title = target.rsplit(".", 1)[-1]
    if role in ("func", "meth") and not title.endswith(")"):
        title += "()"
    target = canonical(MOVED.get(target.rstrip("()"), target.rstrip("()")))
    if target.startswith(OURS) and role not in ("ref", "doc", "term"):
        return f"[`{title}`][{target}]"
    return f"`{title}`"


@cache
def canonical(target: str) -> str:
    """Where the API reference shows an object: a name a package re-exports is shown in its own module.

    >>> canonical("kg.ontology.term_table")
    'kg.ontology.table.term_table'
    >>> canonical("kg.table.FeatureTable.X")  # not a function, class or module: as written
    'kg.table.FeatureTable.X'
    """
    if not target.startswith(OURS):
        return target
    parts = target.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for name in parts[i:]:
                obj = getattr(obj, name)
        except AttributeError:
            return target  # not there: the build says so
        module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if i < len(parts) and isinstance(module, str) and isinstance(qualname, str) and "<" not in qualname:
            return f"{module}.{qualname}"
        return target
    return target


def convert(text: str) -> str:
    """Every Sphinx role of a docstring as Markdown (see :func:`role_to_markdown`)."""
    return ROLE.sub(role_to_markdown, text)


def on_config(config, **kwargs):  # noqa: ARG001 (mkdocs' hook signature)
    """Patch griffe's docstring parsing once: the roles are replaced before numpydoc sections are parsed."""
    import griffe

    original = griffe.Docstring.__init__
    if getattr(original, "_kgfs_roles", False):
        return config

    def __init__(self, value, *args, **kw):
        original(self, convert(value), *args, **kw)

    __init__._kgfs_roles = True
    griffe.Docstring.__init__ = __init__
    for name in ("mkdocs.plugins.griffe", "griffe"):
        logging.getLogger(name).addFilter(_known_warnings)
    return config


def _known_warnings(record: logging.LogRecord) -> bool:
    """Drop exactly the warnings of :data:`KNOWN_DOCSTRING_WARNINGS`."""
    message = record.getMessage()
    return not any(known in message for known in KNOWN_DOCSTRING_WARNINGS)
