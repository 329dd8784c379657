"""The protocol of kg/sources.py and the plug-in points of the RDF route.

A source and an annotator written here, in the test, each one class plus one registration, run through
`kgfs build` (in-process, real files) and through :class:`~kg.features.KGFeatures`, and give the same table.
No module of kg/ or flows/ compares a source's or an annotator's name (they ask the registered class).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from flows.cli import main
from kg.errors import KgfsError
from kg.features import KGFeatures
from kg.formats.folder import read_table_folder
from kg.rdf.annotators import ANNOTATORS
from kg.rdf.sources import SOURCES
from kg.sources import Annotation, AnnotatorBase, KnowledgeSource, SourceBase, as_source

ROOT = Path(__file__).resolve().parents[2]
R, C = "http://example.org/r/", "http://example.org/o/"
TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
SUB = "http://www.w3.org/2000/01/rdf-schema#subClassOf"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
TRIPLE = re.compile(r'^<([^>]+)> <([^>]+)> (?:<([^>]+)>|"([^"]*)"(?:@\w+)?) \.$')


class TinyTriples(SourceBase):
    """A source of our own: N-Triples read line by line with a regular expression (types and subclasses only)."""

    requires = ("dump",)

    @classmethod
    def key(cls, settings) -> dict:
        return {"dump": [list(f) for f in settings.dump_files]}

    @classmethod
    def open(cls, settings) -> TinyTriples:
        return cls(settings.dump)

    def __init__(self, paths):
        self.types_of: dict[str, set[str]] = {}
        self.parents: dict[str, set[str]] = {}
        for path in [paths] if isinstance(paths, (str, Path)) else paths:
            for line in Path(path).read_text(encoding="utf-8").splitlines():
                m = TRIPLE.match(line.strip())
                if m and m.group(2) == TYPE:
                    self.types_of.setdefault(m.group(1), set()).add(m.group(3))
                elif m and m.group(2) == SUB:
                    self.parents.setdefault(m.group(1), set()).add(m.group(3))

    def describe(self):
        return {"kind": "tiny-triples", "entities": len(self.types_of)}

    def types(self, entities):
        return {e: set(self.types_of.get(e, ())) for e in entities}

    def class_edges(self, classes):
        todo, seen, edges = list(classes), set(), set()
        while todo:
            c = todo.pop()
            if c in seen:
                continue
            seen.add(c)
            for p in self.parents.get(c, ()):
                edges.add((c, p))
                todo.append(p)
        return edges

    def categories(self, entities):
        return {e: set() for e in entities}

    def broader(self, categories, depth):
        return set()


class Capitalised(AnnotatorBase):
    """An annotator of our own: every capitalised word is the entity of that name."""

    @classmethod
    def open(cls, settings) -> Capitalised:
        return cls()

    def annotate(self, texts):
        return [[Annotation(R + m.group(0), m.group(0), m.start()) for m in re.finditer(r"\b[A-Z]\w+", t)]
                for t in texts]


@pytest.fixture()
def registered():
    SOURCES.register("tiny-triples", TinyTriples)
    ANNOTATORS.register("capitalised", Capitalised)
    yield
    SOURCES.unregister("tiny-triples")
    ANNOTATORS.unregister("capitalised")


TEXTS = ["Ada wrote to Bob", "Bob met Cy", "Cy and Ada", "Dee alone", "Bob again", "Ada and Dee"]
LABELS = [1, 0, 1, 0, 0, 1]


@pytest.fixture()
def files(tmp_path):
    lines = [f"<{R}{e}> <{TYPE}> <{C}{c}> ." for e, c in
             [("Ada", "Scientist"), ("Bob", "Poet"), ("Cy", "Scientist"), ("Dee", "Painter")]]
    lines += [f"<{C}Scientist> <{SUB}> <{C}Person> .", f"<{C}Poet> <{SUB}> <{C}Artist> .",
              f"<{C}Painter> <{SUB}> <{C}Artist> .", f"<{C}Artist> <{SUB}> <{C}Person> .",
              f'<{C}Poet> <{LABEL}> "poet"@en .']
    (tmp_path / "g.nt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "c.csv").write_text("id,text,label\n" + "".join(f"t{i},{t},{y}\n" for i, (t, y) in
                                                                 enumerate(zip(TEXTS, LABELS))), encoding="utf-8")
    return tmp_path


def test_a_source_and_an_annotator_of_our_own_run_through_kgfs_build_and_kgfeatures(registered, files, tmp_path,
                                                                                     monkeypatch):
    monkeypatch.setenv("KGFS_HOME", str(tmp_path / "home"))
    argv = ["build", "--corpus", str(files / "c.csv"), "--annotator", "capitalised", "--kg", "tiny-triples",
            "--dump", str(files / "g.nt"), "--out", str(tmp_path / "T")]
    assert main(argv) == 0
    built = read_table_folder(tmp_path / "T")
    assert built.meta["source"] == {"kind": "tiny-triples", "entities": 4}
    names = sorted(built.feature_names.tolist())
    assert names == sorted(C + c for c in ("Artist", "Painter", "Person", "Poet", "Scientist"))
    # the table is closed: a poet is an artist is a person
    X = built.X.toarray().astype(bool)
    col = {n: j for j, n in enumerate(built.feature_names.tolist())}
    assert (X[:, col[C + "Poet"]] <= X[:, col[C + "Artist"]]).all() and X[:, col[C + "Person"]].all()
    # the same features from Python, with the same objects
    kgf = KGFeatures(TinyTriples(files / "g.nt"), annotator=Capitalised(), input="texts", memory=None)
    Xp = kgf.fit_transform(TEXTS, LABELS)
    assert sorted(kgf.get_feature_names_out().tolist()) == names
    order = [list(kgf.get_feature_names_out()).index(n) for n in built.feature_names.tolist()]
    assert np.array_equal(np.asarray(Xp[:, order].todense()).astype(bool), X)


def test_an_unknown_name_and_a_missing_setting_are_named(registered, files, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KGFS_HOME", str(tmp_path / "home"))
    base = ["build", "--corpus", str(files / "c.csv"), "--out", str(tmp_path / "T")]
    assert main([*base, "--annotator", "capitalised", "--kg", "tiny-triples"]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1] == "kgfs: error: --kg tiny-triples needs --dump"
    assert main([*base, "--kg", "tiny-tripels"]) == 2  # argparse's choices come from the registry
    assert "invalid choice: 'tiny-tripels'" in capsys.readouterr().err
    from kg.rdf.table import make_source

    with pytest.raises(KgfsError, match=r"^source='tiny-triples' needs dump$"):  # the library names its parameters
        make_source("tiny-triples")
    with pytest.raises(KgfsError, match=r"unknown knowledge source 'tiny-tripels' for source .*did you mean tiny-tri"):
        make_source("tiny-tripels")


def test_a_source_from_outside_gets_the_protocols_defaults():
    class Bare:
        def types(self, entities):
            return {e: {"C"} for e in entities}

        def class_edges(self, classes):
            return set()

        def categories(self, entities):
            return {e: set() for e in entities}

        def broader(self, categories, depth):
            return set()

    s = as_source(Bare())
    assert isinstance(s, KnowledgeSource) and s.types(["e"]) == {"e": {"C"}}
    assert (s.vocabulary, s.entity_iris, s.stored, s.report, s.labels(["C"])) == (None, True, False, {}, {})
    assert as_source(s) is s and isinstance(s.describe(), str)
    with pytest.raises(TypeError, match="must be a knowledge source .* got dict"):
        as_source({})


# ---------------------------------------------------------------------------- no name is compared
def _kinds() -> set[str]:
    from kg.routes import INPUTS

    return set(INPUTS.names())


def _compared_names(path: Path, names: set[str], kinds: set[str], root: Path = ROOT) -> list[str]:
    """Comparisons with a source's or annotator's name anywhere, and of a ``.kind`` with an input's kind (the
    words "dataset" and "file" are also column names and output kinds elsewhere)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        of_kind = any(isinstance(x, ast.Attribute) and x.attr == "kind" for x in sides)
        for side in sides:
            values = [side] if isinstance(side, ast.Constant) else getattr(side, "elts", [])
            for v in values:
                if isinstance(v, ast.Constant) and (v.value in names or (of_kind and v.value in kinds)):
                    found.append(f"{path.relative_to(root)}:{node.lineno}: {v.value!r}")
    return found


def test_no_module_compares_a_source_annotator_format_or_kind_name():
    from kg.ontology.formats import ANNOTATION_FORMATS
    from kg.ontology.read import ONTOLOGY_READERS

    # "table"/"tables" (a two-column annotation file, GO.db tables) are also words of stages, roles and exports
    formats = (set(ANNOTATION_FORMATS.names()) | set(ONTOLOGY_READERS.names())) - {"table", "tables"}
    names = set(SOURCES.names()) | set(ANNOTATORS.names()) | formats
    assert {"sparql", "dump", "lexicon", "spotlight", "gaf", "gpad", "hpoa", "obo", "owl"} <= names
    found = [hit for folder in ("kg", "flows") for p in sorted((ROOT / folder).rglob("*.py"))
             for hit in _compared_names(p, names, _kinds())]
    assert not found, "name comparisons (ask the registered class instead):\n" + "\n".join(found)


def test_the_name_check_finds_a_comparison(tmp_path):
    p = tmp_path / "probe.py"
    p.write_text('def f(kind, inp):\n    return kind == "sparql" or kind in ("dump", "x") or inp.kind == "go"\n')
    hits = [h.rsplit(" ", 1)[1] for h in _compared_names(p, {"sparql", "dump"}, {"go"}, tmp_path)]
    assert hits == ["'sparql'", "'dump'", "'go'"]
