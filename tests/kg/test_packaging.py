"""pyproject.toml against the tree: every package is shipped, datasets/ travels inside kg, and the
dependencies are exactly what the library imports (``.ci/check-wheel.sh`` installs a real wheel)."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
TOP = ("kg", "selection", "flows")
# pinned only to keep prefect 3.8.8 working (GUIDE.md section 4), never imported by kgfs itself
CONSTRAINTS = {"fastapi", "sqlalchemy"}


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _imported_top_names() -> set[str]:
    names: set[str] = set()
    for top in TOP:
        for f in (ROOT / top).rglob("*.py"):
            for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names.update(a.name.split(".")[0] for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - set(TOP) - {"__future__"}


def test_every_package_of_the_tree_is_listed():
    tool = CONFIG["tool"]["setuptools"]
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for top in TOP for p in (ROOT / top).rglob("__init__.py")}
    listed = set(tool["packages"])
    assert listed - {"kg._datasets"} == on_disk, "update [tool.setuptools] packages in pyproject.toml"


def test_datasets_folder_is_shipped_inside_kg():
    tool = CONFIG["tool"]["setuptools"]
    assert tool["package-dir"] == {"kg._datasets": "datasets"}
    assert not any(p == "datasets" or p.startswith("datasets.") for p in tool["packages"])  # HuggingFace's name
    assert set(tool["package-data"]["kg._datasets"]) == {"manifest.toml", "bundled/**/*"}
    assert (ROOT / "datasets" / "manifest.toml").is_file() and (ROOT / "datasets" / "bundled").is_dir()
    assert not (ROOT / "datasets" / "__init__.py").exists()  # a regular package there would shadow HuggingFace's


def test_dependencies_are_what_the_library_imports():
    declared = {_name(r) for r in CONFIG["project"]["dependencies"]}
    dists = importlib.metadata.packages_distributions()
    imported = set()
    for name in _imported_top_names():
        assert name in dists, f"{name} is imported by the library but not installed"
        imported.update(d.lower().replace("_", "-") for d in dists[name])
    assert imported - declared == set(), "imported but not declared in [project] dependencies"
    assert declared - imported - CONSTRAINTS == set(), "declared but never imported by kg/, selection/, flows/"


def test_test_extra_holds_what_only_the_tests_need():
    test = {_name(r) for r in CONFIG["project"]["optional-dependencies"]["test"]}
    assert {"pytest", "hypothesis", "oxigraph", "liac-arff", "scikit-posthocs"} <= test
    assert not {"liac-arff", "scikit-posthocs", "rustworkx"} & {_name(r) for r in CONFIG["project"]["dependencies"]}
