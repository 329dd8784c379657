"""The documentation site (mkdocs.yml, docs/) and the README: every code block is run or parsed.

- ``python`` blocks of the guide pages run as written, each in a temporary folder (as the README's did);
  the one that another test runs with stronger checks, and the one that runs the Prefect flow, are named in
  :data:`RUN_ELSEWHERE` and :data:`SLOW_BLOCKS` with the reason;
- ``bash`` blocks and the ``$ `` lines of ``console`` blocks: every ``kgfs`` command they hold names only
  options of that command's real parser, and a command written out in full (no ``[...]`` synopsis) parses;
- ``toml`` blocks parse, and a preset among them loads as a vocabulary;
- ``text`` blocks are shown output (console lines, a file tree): nothing to run.

The generated reports (the "Reports" section of mkdocs.yml) are the benchmarks scripts' output and are not
run here; the site itself is built with ``mkdocs build --strict`` when the docs extra is installed.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
LANGUAGES = {"python", "bash", "console", "toml", "text"}

# (page, heading above the block) -> the test that runs it with checks of its own output
RUN_ELSEWHERE = {
    ("python-api.md", "Your own selectors beside the registered ones"):
        "tests/selection/evaluation/test_readme_example.py",
}
# (page, heading) -> why it is slow: these run with -m slow
SLOW_BLOCKS = {
    ("python-api.md", "The whole pipeline from Python"):
        "the kgfs-run flow on the bundled data: starts the Prefect server of the tests' runs (10-30 s)",
}


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    heading: str
    language: str
    code: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def nav_pages(section: str | None = None) -> list[str]:
    """The pages of mkdocs.yml's nav (of one top-level section, or all)."""
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]

    def walk(items):
        for item in items:
            for title, value in item.items():
                if isinstance(value, list):
                    yield from ((title,) + rest for rest in walk(value))
                else:
                    yield (title, value)
    pages = list(walk(nav))
    return [p[-1] for p in pages if section is None or (len(p) > 2 and p[0] == section)]


REPORTS = set(nav_pages("Reports"))
GUIDE_PAGES = sorted(p for p in nav_pages() if p not in REPORTS and not p.startswith("api/"))


def blocks(path: Path, name: str) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    found = []
    for m in re.finditer(r"^```(\S*)\n(.*?)^```[ \t]*$", text, re.S | re.M):
        before = text[:m.start()]
        headings = re.findall(r"^#{1,4} (.+)$", before, re.M)
        found.append(Block(name, before.count("\n") + 1, headings[-1] if headings else "", m.group(1), m.group(2)))
    return found


PAGE_BLOCKS = [b for page in GUIDE_PAGES for b in blocks(DOCS / page, page)]
README_BLOCKS = blocks(README, "README.md")
ALL_BLOCKS = PAGE_BLOCKS + README_BLOCKS


def of(language: str, pool=ALL_BLOCKS) -> list:
    return [pytest.param(b, id=b.id) for b in pool if b.language == language]


# ---------------------------------------------------------------------------------------------------- the pages


def test_every_guide_page_is_in_the_nav_and_every_nav_page_exists():
    on_disk = {p.name for p in DOCS.glob("*.md")} | {f"api/{p.name}" for p in (DOCS / "api").glob("*.md")}
    assert set(nav_pages()) == on_disk
    assert {"index.md", "cli.md", "ontology.md", "rdf.md", "wikidata.md", "own-table.md", "python-api.md",
            "layout.md"} <= set(GUIDE_PAGES)


def test_every_block_says_its_language():
    unknown = [b.id for b in ALL_BLOCKS if b.language not in LANGUAGES]
    assert not unknown, f"code blocks without a known language ({sorted(LANGUAGES)}): {unknown}"


def test_readme_is_a_front_page_whose_links_lead_to_the_site():
    text = README.read_text(encoding="utf-8")
    assert text.count("\n") <= 300
    links = re.findall(r"\]\((docs/[^)#]+)", text)
    assert {"docs/cli.md", "docs/ontology.md", "docs/rdf.md", "docs/wikidata.md", "docs/own-table.md",
            "docs/python-api.md"} <= set(links)
    assert [link for link in links if not (ROOT / link).is_file()] == []


def test_the_layout_page_names_the_rooms_as_they_are():
    layout = (DOCS / "layout.md").read_text(encoding="utf-8")
    for room in ("kg/rdf", "kg/ontology"):
        assert (ROOT / room).is_dir()
    for name in ("  rdf/", "    sources/", "    annotators/", "    index/", "  ontology/", "sources.py", "plugins.py"):
        assert name in layout
    assert "dbpedia/" not in layout and "go/ " not in layout


# ------------------------------------------------------------------------------------------------------- python


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KGFS_HOME", str(tmp_path / ".kgfs"))
    return tmp_path


def _run_python(block: Block) -> dict:
    namespace = {"__name__": "docs_example"}
    exec(compile(block.code, f"{block.page}:{block.line}", "exec"), namespace)
    return namespace


PYTHON_PAGE_BLOCKS = [b for b in PAGE_BLOCKS if b.language == "python"]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("block", [pytest.param(b, id=b.id) for b in PYTHON_PAGE_BLOCKS
                                   if (b.page, b.heading) not in RUN_ELSEWHERE | SLOW_BLOCKS])
def test_python_block_runs_as_written(block, in_tmp):
    _run_python(block)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("block", [pytest.param(b, id=b.id) for b in PYTHON_PAGE_BLOCKS
                                   if (b.page, b.heading) in SLOW_BLOCKS])
def test_slow_python_block_runs_as_written(block, in_tmp):
    namespace = _run_python(block)
    if "run_pipeline" in block.code:
        assert (in_tmp / "out" / "selected_features.csv").is_file()
        assert namespace["result"].results["headline"]


def test_the_blocks_run_elsewhere_and_the_slow_ones_are_there():
    keys = {(b.page, b.heading) for b in PYTHON_PAGE_BLOCKS}
    assert set(RUN_ELSEWHERE) | set(SLOW_BLOCKS) <= keys
    for (page, _), test in RUN_ELSEWHERE.items():
        assert f'"{page}"' in (ROOT / test).read_text(encoding="utf-8")  # that test reads this page


def test_readme_python_blocks_are_run_by_their_test():
    from tests.kg.test_features_readme import readme_example

    python = [b for b in README_BLOCKS if b.language == "python"]
    assert [b.code for b in python] == [readme_example()]


# ------------------------------------------------------------------------------------------------- command lines

_PARSERS: dict[str, argparse.ArgumentParser] = {}


def command_parser(command: str) -> argparse.ArgumentParser:
    """The real parser of one ``kgfs`` command (with the options its kinds of input add)."""
    if command not in _PARSERS:
        from flows.cli.parser import build_parser

        _PARSERS[command] = build_parser(command)
    return _PARSERS[command]


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def shell_lines(block: Block) -> list[str]:
    """The logical lines of a shell block (continuations joined); of a console block, its ``$ `` lines."""
    code = block.code.replace("\\\n", " ")
    lines = code.splitlines()
    if block.language == "console":
        lines = [line[2:] for line in lines if line.startswith("$ ")]
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def kgfs_commands(line: str) -> list[str]:
    """Each ``kgfs ...`` command of a line, up to the next one (the words after ``kgfs``)."""
    parts = re.split(r"(?:^|(?<=[\s|&;(]))kgfs\s+", line)
    return [p for p in parts[1:] if p.strip()]


def check_command(text: str) -> None:
    words = text.split()
    parser = command_parser(words[0])
    sub = _subparsers(parser).get(words[0])
    assert sub is not None, f"no command kgfs {words[0]}"
    actions = _subparsers(sub)
    if actions:  # kgfs datasets list, kgfs cache ls, kgfs server status
        assert len(words) > 1 and words[1] in actions, f"kgfs {words[0]}: no action {words[1:2]}"
        sub = actions[words[1]]
    known = set(sub._option_string_actions)
    named = set(re.findall(r"(?<![\w-])--[a-z][\w-]*", text.split(" #", 1)[0]))
    assert named <= known, f"kgfs {' '.join(words[:2])}: no option {sorted(named - known)}"
    concrete = re.split(r"\s(?:\||&&|&|;|#)(?:\s|$)", text, maxsplit=1)[0]
    if not re.search(r"[\[\](]|\.\.\.|…", concrete):  # written out in full: it must parse
        try:
            parser.parse_args(shlex.split(concrete))
        except SystemExit as exc:
            raise AssertionError(f"kgfs {concrete}: does not parse (exit status {exc.code})") from None


SHELL_BLOCKS = [b for b in ALL_BLOCKS if b.language in ("bash", "console")]


@pytest.mark.parametrize("block", [pytest.param(b, id=b.id) for b in SHELL_BLOCKS])
def test_shell_block_names_only_real_options(block, capsys):
    commands = [c for line in shell_lines(block) for c in kgfs_commands(line)]
    for command in commands:
        check_command(command)
    capsys.readouterr()


def test_the_command_check_fails_on_a_missing_option():
    with pytest.raises(AssertionError, match="no option"):
        check_command("run --dataset bundled/DM-BP --no-such-option")
    with pytest.raises(AssertionError, match="does not parse"):
        check_command("run --n-splits abc")
    check_command("cache clear [--stage select]")  # a synopsis: options checked, not parsed


def test_every_page_with_commands_is_checked():
    pages = {b.page for b in SHELL_BLOCKS if any(kgfs_commands(line) for line in shell_lines(b))}
    assert {"README.md", "cli.md", "rdf.md", "wikidata.md", "ontology.md", "orchestration.md",
            "own-table.md", "results.md"} <= pages


# --------------------------------------------------------------------------------------------------------- toml


@pytest.mark.parametrize("block", of("toml"))
def test_toml_block_parses_and_a_preset_loads(block, tmp_path):
    data = tomllib.loads(block.code)
    if "instance_of" in data:
        from kg.rdf.vocabulary import load_preset

        path = tmp_path / f"{data['name']}.toml"
        path.write_text(block.code, encoding="utf-8")
        vocabulary = load_preset(path)
        assert vocabulary.name == data["name"]


# ------------------------------------------------------------------------------------------------------- the site


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings") is None,
                    reason='the docs extra is not installed (pip install -e ".[docs]")')
def test_the_site_builds_strictly(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "site" / "api" / "kg.rdf" / "index.html").is_file()


def test_the_hook_turns_sphinx_roles_into_references():
    import doctest

    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    assert doctest.testmod(hooks).failed == 0
    assert hooks.convert("see :class:`~kg.table.FeatureTable` and :mod:`rdflib`") == (
        "see [`FeatureTable`][kg.table.FeatureTable] and `rdflib`")
