"""Table folders: written from a table, or copied from a folder written so (a stored table step's)."""

import warnings

import pytest

from kg.errors import KgfsError
from kg.formats.folder import TABLE_FILES, copy_table_folder, read_table_folder, write_table_folder
from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable


def _table(removed: bool) -> FeatureTable:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        h = FeatureHierarchy.from_edges([("a", "b"), ("b", "a"), ("b", "c")], on_cycle="break")
    meta = {"dataset": "d", "term_names": {"a": "A", "b": "", "c": "C"}}
    if removed:
        meta["removed_cycle_edges"] = [list(e) for e in h.removed_edges]
    return FeatureTable.from_facts({"i": ["a"], "j": ["c"]}, h, {"i": 1, "j": 0}, meta=meta)


@pytest.mark.parametrize("removed", [True, False])
def test_a_copied_folder_is_the_written_one(tmp_path, removed):
    summary = write_table_folder(_table(removed), tmp_path / "stored")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "removed_cycle_edges.tsv").write_text("child\tparent\nold\tedge\n")  # an earlier table's
    assert copy_table_folder(tmp_path / "stored", tmp_path / "out") == summary
    write_table_folder(_table(removed), tmp_path / "written")
    for name in TABLE_FILES:
        assert (tmp_path / "out" / name).is_file() == (tmp_path / "written" / name).is_file() == (
            removed or name != "removed_cycle_edges.tsv")
        if (tmp_path / "written" / name).is_file():
            assert (tmp_path / "out" / name).read_bytes() == (tmp_path / "written" / name).read_bytes()
    assert read_table_folder(tmp_path / "out").meta["term_names"] == {"a": "A", "b": "", "c": "C"}


def test_a_folder_without_its_table_is_not_copied(tmp_path):
    write_table_folder(_table(False), tmp_path / "stored")
    (tmp_path / "stored" / "table.npz").unlink()
    with pytest.raises(KgfsError, match=r"stored/table\.npz: missing"):
        copy_table_folder(tmp_path / "stored", tmp_path / "out")
    assert not (tmp_path / "out" / "summary.json").exists()
