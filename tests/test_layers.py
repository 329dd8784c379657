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
