"""A cycle of a transitive hierarchy loses no ancestor (issue 37 point 4), end to end.

The literal Wikidata-shaped example: ``Q1 P31 Q11``, ``Q2 P31 Q12``, ``Q11 P279 Q20``, ``Q12 P279 Q30``,
``Q20 P279 Q30``, ``Q30 P279 Q20``, ``Q20 P279 Q40``, ``Q30 P279 Q50``. Breaking the cycle gave Q2 Q30 and
Q50 but not Q20 and Q40; merged, Q1 and Q2 both have the one feature ``Q20 ≡ Q30`` and Q40 and Q50. The
command line builds it from a small N-Triples dump and names the merged cycle once (a console line,
``notes/merged_cycles.csv``), a saved table reloads equal; DBpedia categories keep breaking their cycles,
reported.
"""

from __future__ import annotations

import csv
import warnings

from flows.cli import main
from kg.errors import HierarchyCycleWarning
from kg.formats.folder import read_table_folder, write_table_folder
from kg.rdf.corpus import Corpus
from kg.rdf.sources.dump import DumpSource
from kg.rdf.table import assemble_table
from kg.rdf.vocabulary import DBPEDIA, WIKIDATA
from kg.table import FeatureTable
from tests.kg.conftest import assert_same_table

WD, WDT = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
STATEMENTS = [("Q1", "P31", "Q11"), ("Q2", "P31", "Q12"), ("Q11", "P279", "Q20"), ("Q12", "P279", "Q30"),
              ("Q20", "P279", "Q30"), ("Q30", "P279", "Q20"), ("Q20", "P279", "Q40"), ("Q30", "P279", "Q50")]
MERGED = f"{WD}Q20 ≡ {WD}Q30"


def _dump(path):
    label = "<http://www.w3.org/2000/01/rdf-schema#label>"
    path.write_text("".join(f"<{WD}{s}> <{WDT}{p}> <{WD}{o}> .\n" for s, p, o in STATEMENTS)
                    + f'<{WD}Q20> {label} "twenty"@en .\n<{WD}Q30> {label} "thirty"@en .\n', encoding="utf-8")
    return path


def _rows(table):
    return {i: {f.replace(WD, "") for f in table.feature_names[table.X[k].indices]}
            for k, i in enumerate(table.instance_ids.tolist())}


def test_the_route_merges_the_p279_cycle(tmp_path):
    corpus = Corpus(ids=["1", "2"], entities=[[WD + "Q1"], [WD + "Q2"]], labels=["a", "b"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HierarchyCycleWarning)
        table = assemble_table(corpus, None, DumpSource(_dump(tmp_path / "wd.nt"), vocabulary=WIKIDATA))
    merged = MERGED.replace(WD, "")
    assert _rows(table) == {"1": {"Q11", merged, "Q40", "Q50"}, "2": {"Q12", merged, "Q40", "Q50"}}
    assert table.meta["merged_cycles"] == {MERGED: [WD + "Q20", WD + "Q30"]}
    assert table.meta["removed_cycle_edges"] == [] and table.meta["cycles"] == {"types": "merge"}
    assert [str(w.message) for w in caught if "merged" in str(w.message)]
    # saved and read back: the same table, the same merged cycle, the member still found
    write_table_folder(table, tmp_path / "T")
    again = read_table_folder(tmp_path / "T")
    assert_same_table(table, again)
    assert again.hierarchy.merged == table.hierarchy.merged and again.hierarchy.lookup(WD + "Q30") == MERGED
    assert again.meta["merged_cycles"] == table.meta["merged_cycles"]
    # facts naming a member map to the merged feature
    t = FeatureTable.from_facts({"x": [WD + "Q20"]}, again.hierarchy)
    assert _rows(t)["x"] == {merged, "Q40", "Q50"}


def test_the_command_line_builds_it_and_names_the_merged_cycle_once(home, tmp_path, capsys):
    dump = _dump(tmp_path / "wd.nt")
    corpus = tmp_path / "c.csv"
    corpus.write_text("id,qid,label\n1,Q1,a\n2,Q2,b\n", encoding="utf-8")
    assert main(["build", "--corpus", str(corpus), "--entity-columns", "qid", "--preset", "wikidata", "--dump",
                 str(dump), "--out", str(tmp_path / "T")]) == 0
    err = capsys.readouterr().err
    table = read_table_folder(tmp_path / "T")
    merged = MERGED.replace(WD, "")
    assert _rows(table) == {"1": {"Q11", merged, "Q40", "Q50"}, "2": {"Q12", merged, "Q40", "Q50"}}
    assert table.meta["term_names"][MERGED] == "twenty ≡ thirty"  # labelled by its members
    lines = [line for line in err.splitlines() if "merged" in line]
    assert len(lines) == 1 and "1 cycle(s) of the hierarchy merged" in lines[0] and "wd:Q20 ≡ wd:Q30" in lines[0]
    with open(tmp_path / "T" / "notes" / "merged_cycles.csv", encoding="utf-8", newline="") as fh:
        assert list(csv.reader(fh)) == [["feature", "member"], [MERGED, WD + "Q20"], [MERGED, WD + "Q30"]]


def test_the_stored_table_holds_the_names_and_a_second_build_copies_it(home, tmp_path, monkeypatch):
    """The table step names the features (the dump's labels) and stores them; `kgfs build` copies the stored table
    folder to --out: a second build names nothing and reads no table, and writes the same files."""
    from kg.rdf.route import CorpusInput

    dump = _dump(tmp_path / "wd.nt")
    corpus = tmp_path / "c.csv"
    corpus.write_text("id,qid,label\n1,Q1,a\n2,Q2,b\n", encoding="utf-8")
    argv = ["build", "--corpus", str(corpus), "--entity-columns", "qid", "--preset", "wikidata", "--dump", str(dump)]
    assert main([*argv, "--out", str(tmp_path / "T")]) == 0
    (stored,) = (home / "store" / "table").glob("*/table.npz")
    assert FeatureTable.load(stored).meta["term_names"][MERGED] == "twenty ≡ thirty"

    def fail(*args, **kwargs):
        raise AssertionError("named or read again")

    monkeypatch.setattr(CorpusInput, "feature_names", fail)
    monkeypatch.setattr(FeatureTable, "load", fail)
    monkeypatch.setattr(FeatureTable, "save", fail)
    assert main([*argv, "--out", str(tmp_path / "T2")]) == 0
    for name in ("table.npz", "summary.json", "notes/merged_cycles.csv"):
        assert (tmp_path / "T2" / name).read_bytes() == (tmp_path / "T" / name).read_bytes()
    assert (tmp_path / "T2" / "table.npz").read_bytes() == stored.read_bytes()


def test_dbpedia_categories_keep_breaking_their_cycles_reported(tmp_path):
    subject, broader = "http://purl.org/dc/terms/subject", "http://www.w3.org/2004/02/skos/core#broader"
    cat = "http://dbpedia.org/resource/Category:"
    res = "http://dbpedia.org/resource/"
    lines = [f"<{res}Kobe> <{subject}> <{cat}A> .", f"<{cat}A> <{broader}> <{cat}B> .",
             f"<{cat}B> <{broader}> <{cat}C> .", f"<{cat}C> <{broader}> <{cat}B> ."]
    (tmp_path / "d.nt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    corpus = Corpus(ids=["1"], entities=[[res + "Kobe"]], labels=["a"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HierarchyCycleWarning)
        table = assemble_table(corpus, None, DumpSource(tmp_path / "d.nt", vocabulary=DBPEDIA),
                               features="categories", category_depth=None)
    assert table.meta["cycles"] == {"categories": "break"}
    assert table.meta["removed_cycle_edges"] == [[cat + "C", cat + "B"]]
    assert "merged_cycles" not in table.meta and table.hierarchy.merged == {}
    assert any("removed 1 edge(s)" in str(w.message) for w in caught)
    # several kinds in one table: the types' cycles merge, the categories' break
    lines += [f"<{res}Kobe> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://dbpedia.org/ontology/X> .",
              "<http://dbpedia.org/ontology/X> <http://www.w3.org/2000/01/rdf-schema#subClassOf> "
              "<http://dbpedia.org/ontology/Y> .",
              "<http://dbpedia.org/ontology/Y> <http://www.w3.org/2000/01/rdf-schema#subClassOf> "
              "<http://dbpedia.org/ontology/X> ."]
    (tmp_path / "e.nt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HierarchyCycleWarning)
        both = assemble_table(corpus, None, DumpSource(tmp_path / "e.nt", vocabulary=DBPEDIA),
                              features=["types", "categories"], category_depth=None)
    assert both.meta["cycles"] == {"types": "merge", "categories": "break"}
    assert list(both.meta["merged_cycles"]) == ["type:http://dbpedia.org/ontology/X ≡ type:http://dbpedia.org/ontology/Y"]
    assert both.meta["removed_cycle_edges"] == [["category:" + cat + "C", "category:" + cat + "B"]]


def test_kgfeatures_fits_the_merged_cycle_and_maps_a_member_at_transform(tmp_path):
    from kg.features import KGFeatures

    dump = _dump(tmp_path / "wd.nt")
    with open(dump, "a", encoding="utf-8") as fh:  # an item typed with a member of the cycle itself
        fh.write(f"<{WD}Q3> <{WDT}P31> <{WD}Q30> .\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HierarchyCycleWarning)
        kg = KGFeatures(DumpSource(dump, vocabulary=WIKIDATA), vocabulary="wikidata").fit([WD + "Q1", WD + "Q2"])
        x = kg.transform([WD + "Q3"])
    assert kg.fit_report_["merged_cycles"] == {MERGED: [WD + "Q20", WD + "Q30"]}
    assert kg.fit_report_["removed_cycle_edges"] == []
    names = list(kg.vocabulary_)
    assert {names[j].replace(WD, "") for j in x[0].indices} == {MERGED.replace(WD, ""), "Q40", "Q50"}
    assert kg.feature_labels_[kg.vocabulary_[MERGED]] == "Q20 ≡ Q30"  # its members' (local names: no labels here)


def test_qualified_relations_merge_each_copy_of_the_cycle(tmp_path):
    dump = _dump(tmp_path / "wd.nt")
    with open(dump, "a", encoding="utf-8") as fh:  # Q7 relates to Q2 (of class Q12, below the cycle)
        fh.write(f"<{WD}Q7> <{WDT}P50> <{WD}Q2> .\n")
    corpus = Corpus(ids=["7"], entities=[[WD + "Q7"]], labels=["a"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HierarchyCycleWarning)
        table = assemble_table(corpus, None, DumpSource(dump, vocabulary=WIKIDATA.with_relations()),
                               features="qualified-relations")
    p = f"out:{WDT}P50"
    merged = f"{p}|{WD}Q20 ≡ {p}|{WD}Q30"
    assert table.meta["cycles"] == {"qualified-relations": "merge"}
    assert table.meta["removed_cycle_edges"] == [] and list(table.meta["merged_cycles"]) == [merged]
    assert set(table.feature_names[table.X[0].indices]) == {p, f"{p}|{WD}Q12", merged, f"{p}|{WD}Q40",
                                                            f"{p}|{WD}Q50"}
