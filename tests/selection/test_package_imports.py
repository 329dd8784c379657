"""A module of selection/ imports its siblings as modules, never through the ``__init__`` of its own package
(``from selection.evaluation import stats`` inside ``selection/evaluation/`` reads as a cycle: the package imports
the module that imports the package)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _through_own_package(source: str, module: str) -> list[int]:
    """Lines of ``source`` (the text of ``module``) that import from a package enclosing ``module``."""
    enclosing = {module.rsplit(".", i)[0] for i in range(1, module.count(".") + 1)}
    return sorted(n.lineno for n in ast.walk(ast.parse(source))
                  if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module in enclosing)


def test_the_finder_sees_an_import_through_the_own_package():
    source = ("from selection.evaluation import stats\n"
              "import selection.evaluation.stats as stats\n"
              "from selection.evaluation.stats import wins\n"
              "from selection import registry\n"
              "from selection.lazy import RPV\n")
    assert _through_own_package(source, "selection.evaluation.report") == [1, 4]


def test_no_module_of_selection_imports_through_its_own_package():
    found = []
    for path in sorted((ROOT / "selection").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found += [f"{path.relative_to(ROOT)}:{n}" for n in _through_own_package(path.read_text(encoding="utf-8"),
                                                                                  module)]
    assert not found, "import the module itself: " + ", ".join(found)
