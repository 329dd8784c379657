"""A knowledge graph is a plug-in: a route defined here, in the test (a small in-memory graph), registered
once, runs through `run_pipeline` and through the `kgfs` command line, its stages checked up front, stored,
reused and published, without any file of flows/ knowing it."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from kg.errors import KgfsError
from kg.routes import input_kinds, register, unregister
from kg.routes.base import MIN_SUPPORT, FunctionStep, Input, Option, table_step

#: The zoo: each animal's direct class, a class hierarchy with two levels, and whether it has fur.
ANIMALS = {"rex": "dog", "fido": "dog", "tom": "cat", "felix": "cat", "bella": "horse", "moby": "whale",
           "nemo": "clownfish", "dory": "tang", "kiki": "parrot", "tweety": "canary", "rango": "lizard",
           "sly": "snake"}
CLASSES = {"dog": "mammal", "cat": "mammal", "horse": "mammal", "whale": "mammal", "clownfish": "fish",
           "tang": "fish", "parrot": "bird", "canary": "bird", "lizard": "reptile", "snake": "reptile",
           "mammal": "animal", "fish": "animal", "bird": "animal", "reptile": "animal"}
FUR = {"dog", "cat", "horse"}


@dataclass(frozen=True)
class ZooInput(Input):
    """Animals of the zoo graph: each one's classes (closed upward) as features, whether it has fur as label."""

    kind = "zoo"
    route = "zoo"
    title = "the zoo graph (a test's own knowledge graph)"
    options = (Option("--zoo", "animals of the zoo graph, comma-separated (all: 'all')", metavar="NAMES"),
               MIN_SUPPORT)
    selected_by = ("zoo",)

    animals: tuple[str, ...] = ()
    min_support: int | None = None

    @classmethod
    def from_options(cls, values):
        names = tuple(ANIMALS) if values["zoo"] == "all" else tuple(values["zoo"].split(","))
        return cls(name="zoo", animals=names, min_support=values.get("min_support"))

    def check(self, ctx):
        unknown = [a for a in self.animals if a not in ANIMALS]
        if unknown:
            raise KgfsError(f"--zoo: no animal {unknown[0]!r} in the zoo graph")
        return {"classes": dict(Counter("fur" if ANIMALS[a] in FUR else "no fur" for a in self.animals))}

    def steps(self, ctx):
        def facts(folder: Path, up):
            (folder / "facts.json").write_text(json.dumps({a: ANIMALS[a] for a in self.animals}))
            return {"facts": "facts.json"}, {"n_animals": len(self.animals)}

        def table(up):
            from kg.hierarchy import FeatureHierarchy
            from kg.table import FeatureTable

            direct = json.loads(up["facts"].path("facts").read_text())
            hierarchy = FeatureHierarchy.from_edges(sorted(CLASSES.items()))
            labels = {a: "fur" if c in FUR else "no fur" for a, c in direct.items()}
            return FeatureTable.from_facts({a: [c] for a, c in direct.items()}, hierarchy, labels,
                                           min_support=self.min_support or 1, meta={"dataset": self.name})

        return [FunctionStep("facts", lambda up: {"animals": list(self.animals)}, facts),
                table_step(lambda up: {"facts": up["facts"].hash, "min_support": self.min_support},
                           table, needs=("facts",))]


@pytest.fixture
def zoo():
    register(ZooInput)
    yield ZooInput
    unregister("zoo")


def test_the_zoo_is_a_kind_of_input_and_goes_back(zoo):
    from flows.inputs import resolve_input
    from kg.routes import from_json

    assert input_kinds()["zoo"] is ZooInput
    inp = resolve_input({"zoo": "all"})
    assert inp == ZooInput(name="zoo", animals=tuple(ANIMALS)) and from_json(inp.to_json()) == inp
    with pytest.raises(KgfsError, match="give one input: --dataset or --zoo"):
        resolve_input({"zoo": "all", "dataset": "bundled/DM-BP"})
    with pytest.raises(KgfsError, match="give one input: --ontology/--obo/--annotations or --zoo, not several"):
        resolve_input({"zoo": "all", "obo": "go.obo"})
    with pytest.raises(KgfsError, match=r"--namespaces applies to the ontology route \(.*\), not to --zoo"):
        resolve_input({"zoo": "all", "namespaces": "BP"})


def test_its_options_and_its_check_come_with_it_on_the_command_line(zoo, tmp_path, capsys):
    from flows.cli import main

    assert main(["run", "--help"]) == 0
    assert "input: the zoo graph" in capsys.readouterr().out
    assert main(["run", "--zoo", "rex,nessie", "--out", str(tmp_path / "out")]) == 1
    assert capsys.readouterr().err.strip() == "kgfs: error: --zoo: no animal 'nessie' in the zoo graph"
    assert not (tmp_path / "out").exists()


@pytest.mark.integration
def test_it_runs_through_run_pipeline_and_the_command_line(zoo, prefect_harness, tmp_path, capsys, monkeypatch):
    from flows import runner
    from flows.cli import main
    from flows.inputs import resolve_input
    from flows.run_options import RunOptions

    home, options = tmp_path / "home", RunOptions(n_splits=3, artifacts=False)
    r1 = runner.run_pipeline(resolve_input({"zoo": "all"}), options, out=tmp_path / "out", home=home)
    assert list(r1.records) == ["facts", "table", "select", "evaluate", "export"] and r1.flow_run
    assert not r1.reused and r1.records["table"].summary["n_instances"] == 12
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert run["params"]["source"] == {"kind": "zoo", "name": "zoo", "animals": list(ANIMALS), "min_support": None}
    assert {"table.arff", "selected_features.csv", "summary.csv"} <= set(r1.outputs)
    # the same run from the store: every stage reused, no flow run
    r2 = runner.run_pipeline(resolve_input({"zoo": "all"}), options, out=tmp_path / "out", home=home)
    assert r2.flow_run is None and set(r2.reused) == set(r1.records)
    # and from the command line, in the same home: the stages it shares with the first run are reused
    monkeypatch.setenv("KGFS_HOME", str(home))
    assert main(["run", "--zoo", "all", "--n-splits", "3", "--no-artifacts", "--selectors", "shsel-ig-prune",
                 "--out", str(tmp_path / "cli")]) == 0
    out = capsys.readouterr().out
    assert "zoo: 12 instances x 15 features, 14 hierarchy edges" in out
    assert "stages from cache: facts, table, select, evaluate, export" in out
    assert (tmp_path / "cli" / "table.arff").read_text() == (tmp_path / "out" / "table.arff").read_text()
    # its records are keyed by this module's source too (a route outside kgfs is versioned like kgfs's)
    from kg.store import code_version

    assert r1.records["facts"].inputs["code"] == code_version("facts", ["kg.routes.base", __name__])
    assert r1.records["facts"].inputs["code"] != code_version("facts")
