"""Registries of plug-ins in rdflib's style: a name mapped to ``"module:attribute"``, imported on first use.

kgfs's own plug-ins are registered by name here, beside where they are used (the kinds of input in
:mod:`kg.routes`), so that listing them imports nothing; a package outside kgfs adds its own under an entry-point
group (``[project.entry-points."kgfs.inputs"]`` ``name = "package.module:Class"`` in its ``pyproject.toml``),
and code (a test) calls :meth:`Plugins.register`.

Examples
--------
>>> p = Plugins("kgfs.examples", "example", {"join": "os.path:join"})
>>> p.names(), p.get("join")("a", "b")
(['join'], 'a/b')
>>> p.get("jion")
Traceback (most recent call last):
...
kg.errors.ParameterError: unknown example 'jion' (known: join) (did you mean join?)
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any

from kg.errors import ParameterError, did_you_mean, param

__all__ = ["Plugins", "load_target"]


def load_target(target: str) -> Any:
    """The object ``"module:attribute"`` names (``attribute`` may be dotted)."""
    module, _, attr = target.partition(":")
    obj = importlib.import_module(module)
    for part in filter(None, attr.split(".")):
        obj = getattr(obj, part)
    return obj


class Plugins:
    """Named plug-ins of one kind: kgfs's own, then an entry-point group's, then those registered in code.

    Parameters
    ----------
    group : str
        The entry-point group (``kgfs.inputs``).
    what : str
        What a plug-in is, for messages (``"kind of input"``).
    builtins : mapping
        Name -> ``"module:attribute"`` of kgfs's own, in the order they are listed.
    """

    def __init__(self, group: str, what: str, builtins: Mapping[str, str]):
        self.group, self.what = group, what
        self._targets: dict[str, Any] = dict(builtins)  # a "module:attr" string until loaded
        self._entry_points_read = False
        self._lock = threading.RLock()

    def _read_entry_points(self) -> None:
        with self._lock:
            if not self._entry_points_read:
                self._entry_points_read = True
                for ep in entry_points(group=self.group):
                    self._targets.setdefault(ep.name, ep.value)

    def names(self) -> list[str]:
        """The registered names, kgfs's own first (nothing is imported)."""
        self._read_entry_points()
        return list(self._targets)

    def __contains__(self, name: str) -> bool:
        return name in self.names()

    def register(self, name: str, target: Any) -> Any:
        """Register ``target`` (an object or ``"module:attribute"``) as ``name``; a name given again is replaced."""
        self._read_entry_points()
        with self._lock:
            self._targets[name] = target
        return target

    def unregister(self, name: str) -> None:
        """Forget a name (tests that registered their own)."""
        with self._lock:
            self._targets.pop(name, None)

    def get(self, name: str, parameter: str | None = None) -> Any:
        """The plug-in ``name``, imported on first use.

        Raises
        ------
        ParameterError
            An unknown name (naming ``parameter`` when given, and the known names).
        """
        names = self.names()
        if name not in self._targets:
            where = f" for {param(parameter)}" if parameter else ""
            raise ParameterError(f"unknown {self.what} {name!r}{where} (known: {', '.join(names)})"
                                 + did_you_mean(name, names))
        with self._lock:
            target = self._targets[name]
            if isinstance(target, str):
                target = self._targets[name] = load_target(target)
        return target

    def items(self) -> list[tuple[str, Any]]:
        """Every ``(name, plug-in)``, imported."""
        return [(n, self.get(n)) for n in self.names()]
