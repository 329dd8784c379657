"""The layers are a contract (README, "Layout"): import-linter's contracts of pyproject.toml hold (flows over
selection over kg, no application package in the libraries, no import cycle), and no function of kg/ or flows/
takes more than 8 parameters (constructors in scikit-learn's style, with documented keyword arguments, may)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("lint-imports") is None, reason="import-linter is not installed (test extras)")
def test_import_contracts_hold():
    proc = subprocess.run(["lint-imports", "--config", str(ROOT / "pyproject.toml")], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_the_rdf_and_ontology_rooms_are_independent_by_contract():
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert any(c["type"] == "independence" and set(c["modules"]) == {"kg.rdf", "kg.ontology"} for c in contracts)


def _parameters(fn: ast.FunctionDef) -> int:
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args]
    n = len(names) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)
    return n - (1 if names and names[0] in ("self", "cls") else 0)


def test_no_function_of_kg_or_flows_takes_more_than_eight_parameters():
    wide = []
    for package in ("kg", "flows"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name != "__init__" \
                        and _parameters(node) > 8:
                    wide.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({_parameters(node)})")
    assert not wide, "parameter bags should be objects: " + ", ".join(wide)


def test_the_libraries_import_no_application_package():
    """Also at run time: importing every module of kg/ and selection/ loads no Prefect (argparse, rich and psutil
    come with third-party packages too, so only import-linter, which sees direct imports, can check those)."""
    code = ("import importlib, pkgutil, sys\n"
            "import kg, selection\n"
            "for pkg in (kg, selection):\n"
            "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
            "        importlib.import_module(m.name)\n"
            "print(sorted(m for m in ('prefect', 'prefect_dask', 'flows') if m in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "[]"


def _private_sklearn_imports(tree: ast.AST) -> list[int]:
    """Lines of ``tree`` that import a private scikit-learn name: a module of the path or an imported name that
    starts with ``_`` (``from sklearn.utils._param_validation import Interval``, ``from sklearn.utils import
    _safe_indexing``, ``import sklearn.utils._testing``)."""

    def private(dotted: str) -> bool:
        parts = dotted.split(".")
        return parts[0] == "sklearn" and any(p.startswith("_") for p in parts[1:])

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            hit = any(private(a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            hit = private(node.module) or (node.module.split(".")[0] == "sklearn"
                                          and any(a.name.startswith("_") for a in node.names))
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) \
                == "import_module" and node.args and isinstance(node.args[0], ast.Constant):
            hit = isinstance(node.args[0].value, str) and private(node.args[0].value)
        else:
            continue
        if hit:
            lines.append(node.lineno)
    return sorted(lines)


def test_the_private_import_finder_finds_each_form():
    code = ("from sklearn.utils._param_validation import Interval\n"
            "from sklearn.utils import _safe_indexing\n"
            "import sklearn.utils._testing\n"
            "def f():\n"
            "    import importlib; importlib.import_module('sklearn.neighbors._base')\n"
            "from sklearn.utils.validation import check_is_fitted\n"
            "import sklearn.metrics\n"
            "from kg.sklearn_compat import Interval\n")
    assert _private_sklearn_imports(ast.parse(code)) == [1, 2, 3, 5]


def test_private_sklearn_names_are_imported_in_one_module():
    """scikit-learn may move its private modules in any release: kg/sklearn_compat.py is the one place to mend."""
    found = []
    for package in ("kg", "selection", "flows"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == ROOT / "kg" / "sklearn_compat.py":
                continue
            found += [f"{path.relative_to(ROOT)}:{n}"
                      for n in _private_sklearn_imports(ast.parse(path.read_text(encoding="utf-8")))]
    assert not found, "import these from kg.sklearn_compat: " + ", ".join(found)
    assert _private_sklearn_imports(ast.parse((ROOT / "kg" / "sklearn_compat.py").read_text(encoding="utf-8")))
