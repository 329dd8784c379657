"""`kgfs fit` and `kgfs predict` as a user runs them (in-process, flows.cli.main)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from flows.cli.main import main
from tests.kg.conftest import DBO, R, instance_triples

SUBCLASS = "http://www.w3.org/2000/01/rdf-schema#subClassOf"


def _rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_fit_then_predict_the_bundled_data_gives_the_fitted_model_s_predictions(tmp_path, home, capsys):
    from kg.routes import build_table, resolve_dataset
    from selection.model import fit_model, load_model

    assert main(["fit", "--model", str(tmp_path / "M")]) == 0
    assert "shsel-ig-prune + nb, fitted on 127 instances" in capsys.readouterr().out
    assert main(["predict", "--model", str(tmp_path / "M"), "--dataset", "bundled/DM-BP",
                 "--out", str(tmp_path / "P")]) == 0
    out = capsys.readouterr().out
    assert "predicted 127 instances" in out and "every instance has some of the model's" in out
    rows = _rows(tmp_path / "P" / "predictions.csv")
    assert list(rows[0]) == ["instance_id", "predicted", "p_anti-longevity", "p_pro-longevity", "n_features", "why",
                             "label"]
    table = build_table(resolve_dataset({}))
    fitted = fit_model(table, "shsel-ig-prune", classifier="nb")
    proba = fitted.predict_proba(table)
    assert [r["instance_id"] for r in rows] == table.instance_ids.tolist()
    assert np.allclose([[float(r["p_anti-longevity"]), float(r["p_pro-longevity"])] for r in rows], proba, rtol=1e-5)
    assert [r["predicted"] for r in rows] == fitted.predict(table).tolist()
    assert np.array_equal(load_model(tmp_path / "M").predict_proba(table), proba)
    assert any(r["why"] for r in rows)


def test_a_lazy_selector_is_fitted_and_selects_at_predict_time(tmp_path, home, capsys):
    assert main(["fit", "--selector", "hip", "--classifiers", "knn", "--model", str(tmp_path / "M")]) == 0
    assert main(["predict", "--model", str(tmp_path / "M"), "--out", str(tmp_path / "P")]) == 0
    assert "hip + knn" in capsys.readouterr().out
    rows = _rows(tmp_path / "P" / "predictions.csv")
    assert len(rows) == 127 and len({r["why"] for r in rows}) > 10


def test_a_damaged_model_is_one_line_naming_the_file(tmp_path, home, capsys):
    assert main(["fit", "--model", str(tmp_path / "M")]) == 0
    arrays = tmp_path / "M" / "arrays.npz"
    arrays.write_bytes(arrays.read_bytes()[:100])
    capsys.readouterr()
    assert main(["predict", "--model", str(tmp_path / "M"), "--out", str(tmp_path / "P")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(arrays) in err[0] and "damaged" in err[0]
    assert not (tmp_path / "P" / "predictions.csv").exists()


@pytest.fixture
def dump(tmp_path) -> Path:
    """The kg tests' instance triples with a small class hierarchy above their types."""
    d = tmp_path / "dump"
    d.mkdir()
    classes = [("Cricketer", "Athlete"), ("TennisPlayer", "Athlete"), ("Athlete", "Person"), ("Actor", "Person"),
               ("OfficeHolder", "Person"), ("SoccerClub", "Organisation"), ("City", "Place"), ("Country", "Place"),
               ("River", "Place"), ("Settlement", "Place")]
    lines = instance_triples() + [f"<{DBO}{c}> <{SUBCLASS}> <{DBO}{p}> ." for c, p in classes]
    (d / "instances.nt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return d


def test_a_new_corpus_is_predicted_with_its_unknown_entities_counted(tmp_path, home, dump, capsys):
    people = ["Chris_Gayle", "Nathan_Lyon", "Murali_Vijay", "Novak_Djokovic", "Barack_Obama", "Vijay_(actor)"]
    places = ["Lyon", "England", "Finland", "New_Zealand", "River_Thames"]
    corpus = tmp_path / "train.csv"
    corpus.write_text("id,entity,label\n" + "".join(f"{e},{R}{e},person\n" for e in people)
                      + "".join(f"{e},{R}{e},place\n" for e in places), encoding="utf-8")
    assert main(["fit", "--corpus", str(corpus), "--entity-columns", "entity", "--dump", str(dump),
                 "--selector", "complete", "--model", str(tmp_path / "M")]) == 0
    new = tmp_path / "new.csv"  # no labels; two entities the graph does not know, one with a type never seen
    new.write_text("id,entity\n" f"a,{R}Chris_Gayle\n" f"b,{R}Nobody_Knows\n" f"c,{R}Lyon\n" f"d,{R}Nowhere\n"
                   f"e,{R}Dumbarton_F.C.\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["predict", "--model", str(tmp_path / "M"), "--corpus", str(new), "--out", str(tmp_path / "P")]) == 0
    out = capsys.readouterr().out
    assert "predicted 5 instances" in out
    assert "3 of 5 instances have none of the model's features" in out  # Dumbarton F.C.: a SoccerClub, unseen
    rows = {r["instance_id"]: r for r in _rows(tmp_path / "P" / "predictions.csv")}
    assert rows["a"]["predicted"] == "person" and rows["c"]["predicted"] == "place"
    assert [rows[i]["n_features"] for i in "abcde"] == ["3", "0", "2", "0", "0"]
    assert rows["b"]["why"] == "" and "label" not in rows["a"]
    assert "Athlete" in rows["a"]["why"] or "Cricketer" in rows["a"]["why"] or "Person" in rows["a"]["why"]


def test_a_table_folder_of_kgfs_build_is_predicted_as_the_corpus_it_came_from(tmp_path, home, capsys):
    assert main(["fit", "--model", str(tmp_path / "M")]) == 0
    assert main(["build", "--out", str(tmp_path / "T")]) == 0
    assert main(["predict", "--model", str(tmp_path / "M"), "--out", str(tmp_path / "P1")]) == 0
    capsys.readouterr()
    assert main(["predict", "--model", str(tmp_path / "M"), "--table", str(tmp_path / "T"),
                 "--out", str(tmp_path / "P2")]) == 0
    out = capsys.readouterr().out
    assert "T: predicted 127 instances" in out and "accuracy" in out
    assert _rows(tmp_path / "P2" / "predictions.csv") == _rows(tmp_path / "P1" / "predictions.csv")
    assert main(["predict", "--model", str(tmp_path / "M"), "--table", str(tmp_path / "T"), "--dataset",
                 "bundled/DM-BP", "--out", str(tmp_path / "P3")]) == 1
    assert capsys.readouterr().err.startswith("kgfs: error: --table goes alone: ")


def test_a_corpus_whose_entities_the_graph_all_ignores_is_predicted_from_no_feature(tmp_path, home, dump, capsys):
    corpus = tmp_path / "train.csv"
    corpus.write_text("id,entity,label\n" + "".join(f"{e},{R}{e},person\n" for e in ["Chris_Gayle", "Barack_Obama"])
                      + "".join(f"{e},{R}{e},place\n" for e in ["Lyon", "England"]), encoding="utf-8")
    assert main(["fit", "--corpus", str(corpus), "--entity-columns", "entity", "--dump", str(dump),
                 "--selector", "complete", "--model", str(tmp_path / "M")]) == 0
    new = tmp_path / "unknown.csv"  # labelled, but none of its entities is in the graph
    new.write_text("id,entity,label\n" f"x,{R}Nobody_Knows,person\n" f"y,{R}Nowhere,place\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["predict", "--model", str(tmp_path / "M"), "--corpus", str(new), "--out", str(tmp_path / "P")]) == 0
    out = capsys.readouterr().out
    assert "predicted 2 instances" in out and "2 of 2 instances have none of the model's features" in out
    assert "accuracy 0.500 against its labels" in out  # one prior for both: one of the two right
    rows = _rows(tmp_path / "P" / "predictions.csv")
    assert [r["instance_id"] for r in rows] == ["x", "y"] and {r["n_features"] for r in rows} == {"0"}
    assert [r["label"] for r in rows] == ["person", "place"]


def test_a_new_corpus_file_that_is_missing_names_the_option(tmp_path, home, dump, capsys):
    corpus = tmp_path / "train.csv"
    corpus.write_text("id,entity,label\n" f"a,{R}Chris_Gayle,person\n" f"b,{R}Lyon,place\n", encoding="utf-8")
    assert main(["fit", "--corpus", str(corpus), "--entity-columns", "entity", "--dump", str(dump),
                 "--selector", "complete", "--model", str(tmp_path / "M")]) == 0
    capsys.readouterr()
    assert main(["predict", "--model", str(tmp_path / "M"), "--corpus", str(tmp_path / "no.csv"),
                 "--out", str(tmp_path / "P")]) == 1
    assert capsys.readouterr().err.strip() == f"kgfs: error: {tmp_path / 'no.csv'}: file not found (--corpus)"


def test_a_model_that_predicts_differently_here_is_one_line_naming_model_json(tmp_path, home, capsys):
    import json

    from kg.files import sha256_file

    assert main(["fit", "--model", str(tmp_path / "M")]) == 0
    folder = tmp_path / "M"
    ref = json.loads((folder / "model.json").read_text())["probe"]["proba"]["ref"]
    with np.load(folder / "arrays.npz", allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays[ref] = arrays[ref] + 1e-3  # as another scikit-learn would predict
    np.savez(folder / "arrays.npz", **arrays)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"] = {n: sha256_file(folder / n) for n in manifest["files"]}
    manifest["versions"]["scikit-learn"] = "0.99.0"
    (folder / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert main(["predict", "--model", str(folder), "--out", str(tmp_path / "P")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(folder / "model.json") in err[0] and "than under 0.99.0 which wrote it" in err[0]
    assert err[0].endswith("fit it again") and not (tmp_path / "P" / "predictions.csv").exists()
