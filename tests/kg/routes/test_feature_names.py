"""The feature-names hook of a route input (issue 27): names from the knowledge graph, none by default."""

from dataclasses import dataclass

from kg.routes import resolve_dataset
from kg.routes.base import Input
from kg.routes.tables import OwnTable


def test_the_ontology_route_names_its_terms_from_the_ontology():
    inp = resolve_dataset({})  # the bundled GO input
    names = inp.feature_names(["GO:0008150", "GO:0008340", "GO:nope"])
    assert names == {"GO:0008150": "biological_process", "GO:0008340": "determination of adult lifespan"}
    table = inp.build()
    assert {f: table.meta["term_names"][f] for f in names} == names  # what the table's meta says


def test_by_default_no_names(tmp_path):
    @dataclass(frozen=True)
    class Plain(Input):
        kind = "plain-test"
        name: str = "p"

    assert Plain().feature_names(["a"]) == {}
    (tmp_path / "t.csv").write_text("id,x,label\na,1,1\nb,0,0\n")
    assert OwnTable.from_options({"csv": tmp_path / "t.csv"}).feature_names(["x"]) == {}


def test_records_of_earlier_versions_name_the_kinds_go_and_dbpedia():
    from kg.routes import LEGACY_KINDS, from_json, input_kinds

    assert set(LEGACY_KINDS.values()) <= set(input_kinds())
    inp = resolve_dataset({"dataset": "bundled/DM-BP"})
    old = {**inp.to_json(), "kind": "go"}  # as a run.json of 8ed8340 stored it
    assert from_json(old) == inp and from_json(old).kind == "ontology"
    corpus = from_json({"kind": "dbpedia", "name": "tweets", "dump": ()})
    assert corpus.kind == "rdf"


def test_the_table_step_names_the_table_it_stores_and_checks_every_file_of_its_folder(tmp_path):
    """table_step's ``names`` name a table its ``make`` left unnamed (never one already named); the edges its meta
    lists as removed are a file of the record, checked as the table is."""
    import warnings

    from kg.hierarchy import FeatureHierarchy
    from kg.routes.base import table_step
    from kg.store import Store
    from kg.table import FeatureTable

    def make(up, named=False):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            h = FeatureHierarchy.from_edges([("a", "b"), ("b", "a")], on_cycle="break")
        meta = {"removed_cycle_edges": [list(e) for e in h.removed_edges],
                **({"term_names": {"a": "own a", "b": ""}} if named else {})}
        return FeatureTable.from_facts({"i": ["a"]}, h, meta=meta)

    def run(n, named):
        step = table_step(lambda up: {}, lambda up: make(up, named), names=lambda f: {"a": "A"})
        return store.run("table", {"n": n}, lambda d: step.compute(d, {}))

    store = Store(tmp_path / "store")
    rec = run(1, False)
    assert FeatureTable.load(rec.path("table")).meta["term_names"] == {"a": "A", "b": ""}
    assert rec.path("removed_edges").read_text() == "child\tparent\nb\ta\n"
    rec = run(2, True)
    assert FeatureTable.load(rec.path("table")).meta["term_names"] == {"a": "own a", "b": ""}
    rec.path("removed_edges").write_text("child\tparent\n")  # changed after the step: not reused
    assert store.lookup("table", {"n": 2}) is None
