"""What a stored result's key covers: the source of every kgfs module and the numerical dependencies' versions.

A stage or evaluation cell can execute any module of ``kg/``, ``selection/`` and ``flows/``, so
:func:`code_version` hashes all of their sources (read once per process) and the installed versions
of the libraries that compute results: no edit and no upgrade can leave a stale result in use.
:mod:`kg.store.store` names its folders with keys (:func:`kg.store.records.stage_key`) made of these.

Examples
--------
>>> code_version("table").startswith("kgfs-")
True
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import platform
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

__all__ = ["KEY_DEPENDENCIES", "SOURCE_PACKAGES", "STORE_FORMAT", "code_digest", "code_version",
           "dependency_versions", "source_digest"]

#: The layout of store folders and records; part of every key (a new layout never reads an old folder).
STORE_FORMAT = 2
#: The packages whose every source file is part of every code version (a stage can run any of them).
SOURCE_PACKAGES = ("kg", "selection", "flows")
#: Installed distributions whose version is part of every code version (they compute results).
KEY_DEPENDENCIES = ("numpy", "scipy", "pandas", "scikit-learn", "networkx", "rdflib", "pyoxigraph",
                    "pyahocorasick", "SPARQLWrapper", "joblib", "matplotlib")

_DIGESTS: dict[tuple, str] = {}  # per process: the source is read once


def _package_roots() -> list[Path]:
    """The folders of :data:`SOURCE_PACKAGES`, found without importing them."""
    roots = []
    for name in SOURCE_PACKAGES:
        spec = importlib.util.find_spec(name)
        roots += [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []
    return roots


def source_digest(roots: Sequence[str | os.PathLike] | None = None) -> str:
    """The sha256 of every ``.py`` file under the kgfs packages (their relative paths and bytes).

    Parameters
    ----------
    roots : sequence of path, optional
        Package folders (default: those of :data:`SOURCE_PACKAGES`, wherever they are
        imported from); each file is named by its path relative to its root's parent.

    Returns
    -------
    str
        64 hexadecimal digits; computed once per process for the same roots.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "pkg"
    >>> d.mkdir(); _ = (d / "m.py").write_text("x = 1")
    >>> a = source_digest([d])
    >>> _ = (d / "m.py").write_text("x = 2"); _DIGESTS.clear()
    >>> a != source_digest([d])
    True
    """
    roots = tuple(Path(r) for r in (_package_roots() if roots is None else roots))
    key = ("source", *map(str, roots))
    if key not in _DIGESTS:
        h = hashlib.sha256()
        for root in roots:
            for f in sorted(root.rglob("*.py")):
                data = f.read_bytes()
                h.update(f"{f.relative_to(root.parent).as_posix()}\0{len(data)}\0".encode() + data)
        _DIGESTS[key] = h.hexdigest()
    return _DIGESTS[key]


def dependency_versions() -> dict[str, str]:
    """The Python version and the installed versions of :data:`KEY_DEPENDENCIES`.

    Returns
    -------
    dict
        Name -> version (``"-"`` when not installed).

    Examples
    --------
    >>> v = dependency_versions()
    >>> import numpy as np
    >>> "python" in v and v["numpy"] == np.__version__
    True
    """
    out = {"python": platform.python_version()}
    for name in KEY_DEPENDENCIES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "-"
    return out


def _module_source(name: str) -> bytes:
    """A module's source (without importing it when it is not imported); its name when it has none."""
    mod = sys.modules.get(name)
    origin = getattr(mod, "__file__", None)
    if origin is None and name != "__main__":
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        origin = spec.origin if spec is not None else None
    if origin and str(origin).endswith(".py") and os.path.isfile(origin):
        return Path(origin).read_bytes()
    return name.encode()


def code_digest(modules: Sequence[str] = ()) -> str:
    """The sha256 naming the code that may run: :func:`source_digest`, :func:`dependency_versions`
    and the source of ``modules``.

    Every kgfs module is covered whatever a stage imports, so no list of a stage's modules can go
    stale; ``modules`` adds code outside kgfs (a selector or protocol registered from a user's
    module; kgfs's own are covered already).

    Parameters
    ----------
    modules : sequence of str
        Dotted module names; order and duplicates do not matter.

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> code_digest() == code_digest() != code_digest(["json"])
    True
    """
    mods = tuple(sorted(set(modules)))
    key = ("code", *mods)
    if key not in _DIGESTS:
        h = hashlib.sha256(source_digest().encode())
        h.update(json.dumps(dependency_versions(), sort_keys=True).encode())
        for m in mods:
            h.update(f"\0{m}\0".encode() + hashlib.sha256(_module_source(m)).digest())
        _DIGESTS[key] = h.hexdigest()
    return _DIGESTS[key]


def code_version(stage: str, modules: Sequence[str] = ()) -> str:
    """A string naming the code a stage runs: the kgfs version plus :func:`code_digest`.

    Part of a stage's inputs, so that editing any kgfs module (or upgrading numpy, scikit-learn,
    ...) recomputes the stages instead of reusing results of other code.

    Parameters
    ----------
    stage : str
    modules : sequence of str
        Modules outside kgfs the stage runs (see :func:`code_digest`).

    Returns
    -------
    str
        ``kgfs-<version>-store<format>-<stage>-<16 hex digits>``.

    Examples
    --------
    >>> v = code_version("table", ["kg.table", "kg.hierarchy"])
    >>> v.startswith("kgfs-") and "-table-" in v and v == code_version("table", ["kg.hierarchy", "kg.table"])
    True
    """
    try:
        v = version("kgfs")
    except PackageNotFoundError:  # running from a source tree
        v = "0+src"
    return f"kgfs-{v}-store{STORE_FORMAT}-{stage}-{code_digest(modules)[:16]}"
