import json
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.errors import ImplicationError, InputFormatError, KgfsError, UnknownFeatureError
from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable
from tests.strategies import closed_tables

H = FeatureHierarchy.from_edges([("Athlete", "Person"), ("Person", "Agent"), ("Team", "Agent")])
FACTS = {"t1": ["Athlete"], "t2": ["Team"], "t3": ["Athlete", "Team"], "t4": []}
LABELS = {"t1": "Sports", "t2": "Sports", "t3": "Sports", "t4": "Politics"}


def test_from_facts_closes_upward():
    t = FeatureTable.from_facts(FACTS, H, LABELS)
    assert t.feature_names.tolist() == ["Agent", "Athlete", "Person", "Team"]
    assert t.X.toarray().astype(int).tolist() == [[1, 1, 1, 0], [1, 0, 0, 1], [1, 1, 1, 1], [0, 0, 0, 0]]
    assert t.y.tolist() == ["Sports", "Sports", "Sports", "Politics"]
    assert t.support.tolist() == [3, 2, 2, 2]


def test_min_support_keeps_the_implication():
    t = FeatureTable.from_facts(FACTS, H, LABELS, min_support=3)
    assert t.feature_names.tolist() == ["Agent"]
    t2 = FeatureTable.from_facts({"a": ["Athlete"], "b": ["Athlete"], "c": ["Team"]}, H, min_support=2)
    assert t2.feature_names.tolist() == ["Agent", "Athlete", "Person"]
    assert t2.hierarchy.edge_list() == [("Athlete", "Person"), ("Person", "Agent")]


def test_unknown_feature_raises_or_is_dropped():
    with pytest.raises(UnknownFeatureError, match="'Robot'.*instance 'x'"):
        FeatureTable.from_facts({"x": ["Robot"]}, H)
    t = FeatureTable.from_facts({"x": ["Robot", "Team"]}, H, unknown="drop")
    assert t.meta["unknown_features"] == ["Robot"]


def test_empty_corpus_and_missing_label():
    with pytest.raises(KgfsError, match="empty"):
        FeatureTable.from_facts({}, H)
    with pytest.raises(KgfsError, match="no label.*'t4'"):
        FeatureTable.from_facts(FACTS, H, {k: v for k, v in LABELS.items() if k != "t4"})


def test_violation_raises_names_cell_or_repairs():
    x = sp.csr_matrix(np.array([[0, 1, 0, 0]]))  # Athlete without Person and Agent
    h = H.restrict(["Agent", "Athlete", "Person", "Team"])
    with pytest.raises(ImplicationError, match="'i0' has 'Athlete' but not its parent 'Person'"):
        FeatureTable(x, h.node_ids, ["i0"], None, h)
    t = FeatureTable(x, h.node_ids, ["i0"], None, h, check="repair")
    assert t.X.toarray().tolist() == [[1, 1, 1, 0]] and t.meta["repaired_cells"] == 2
    t = FeatureTable(x, h.node_ids, ["i0"], None, h, check="ignore")
    assert t.meta["violations"] == 1


def test_non_binary_value_is_named():
    h = H.restrict(["Agent", "Athlete", "Person", "Team"])
    with pytest.raises(InputFormatError, match="non-binary value 2"):
        FeatureTable(sp.csr_matrix(np.array([[2, 0, 0, 0]])), h.node_ids, ["i0"], None, h)


def test_features_must_match_hierarchy():
    with pytest.raises(ValueError, match="same order"):
        FeatureTable(sp.csr_matrix((1, 4)), ["Agent", "Person", "Athlete", "Team"], ["i"], None,
                     H.restrict(["Agent", "Athlete", "Person", "Team"]))


def test_save_load_roundtrip(tmp_path):
    t = FeatureTable.from_facts(FACTS, H, LABELS, meta={"source": "test"})
    path = t.save(tmp_path / "t.npz")
    u = FeatureTable.load(path)
    assert (u.X != t.X).nnz == 0
    assert u.y.tolist() == t.y.tolist()
    assert u.hierarchy == t.hierarchy
    assert u.meta["source"] == "test"
    assert not list(tmp_path.glob(".*tmp"))


def test_load_rejects_foreign_file(tmp_path):
    bad = tmp_path / "x.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(InputFormatError, match="x.npz"):
        FeatureTable.load(bad)


@given(closed_tables())
def test_select_features_keeps_implication(data):
    X, y, h = data
    t = FeatureTable(X, h.node_ids, [f"i{k}" for k in range(X.shape[0])], y, h)
    keep = np.arange(h.n_nodes) % 2 == 0
    s = t.select_features(keep)
    assert s.hierarchy.violations(s.X).nnz == 0
    assert s.feature_names.tolist() == h.node_ids[keep].tolist()


NAMES = [f"n{i}" for i in range(7)]


@settings(max_examples=150, deadline=None)
@given(st.sets(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES)), max_size=14),
       st.lists(st.lists(st.sampled_from(NAMES + ["unknown"]), max_size=4), min_size=1, max_size=5),
       st.integers(1, 3))
def test_from_facts_is_each_fact_and_its_ancestors_with_merged_members_as_their_node(edges, rows, min_support):
    """Against a brute force: a member of a merged cycle is its node (looked up apart from the index), an unknown id
    dropped, every ancestor added; the table is closed (its implication not checked again: it holds by
    construction) and behaves as any other afterwards."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        h = FeatureHierarchy.from_edges(sorted(edges), nodes=NAMES, on_cycle="merge")
    facts = {f"i{k}": r for k, r in enumerate(rows)}
    t = FeatureTable.from_facts(facts, h, min_support=min_support, unknown="drop")
    want = np.zeros((len(rows), h.n_nodes), int)
    for k, r in enumerate(rows):
        for f in r:
            if f in h.column_index:
                j = h.column_index[f]
                want[k, [j, *h.ancestor_indices(j).tolist()]] = 1
    keep = want.sum(axis=0) >= min_support
    assert t.feature_names.tolist() == h.node_ids[keep].tolist()
    assert np.array_equal(t.X.toarray(), want[:, keep])
    assert t.check == "raise" and t.hierarchy.is_closed(t.X)
    assert ("unknown" in {f for r in rows for f in r}) == ("unknown_features" in t.meta)
    again = FeatureTable(t.X, t.feature_names, t.instance_ids, t.y, t.hierarchy)  # the checked constructor agrees
    assert np.array_equal(again.X.toarray(), t.X.toarray())


def _cyclic_table():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        h = FeatureHierarchy.from_edges([("Zürich", "Stadt"), ("Stadt", "Zürich"), ("Stadt", "Ort"), ("a", "a"),
                                         ("x", "y"), ("y", "x")], on_cycle="merge")
    return FeatureTable.from_facts({"tweet é": ["Zürich"], "t2": ["a", "x"]}, h, {"tweet é": 1, "t2": 0})


def test_ids_are_stored_as_text_and_read_back_with_the_merged_and_removed_edges(tmp_path):
    t = _cyclic_table()
    u = FeatureTable.load(t.save(tmp_path / "t.npz"))
    assert u.feature_names.tolist() == t.feature_names.tolist() == ["Ort", "Stadt ≡ Zürich", "a", "x ≡ y"]
    assert u.instance_ids.tolist() == ["tweet é", "t2"] and u.hierarchy == t.hierarchy
    assert u.hierarchy.merged == {"Stadt ≡ Zürich": ["Stadt", "Zürich"], "x ≡ y": ["x", "y"]}
    assert u.hierarchy.removed_edges == [("a", "a")] and (u.X != t.X).nnz == 0
    with np.load(tmp_path / "t.npz") as z:  # text and ends, no fixed-width unicode array
        assert z["feature_names.text"].dtype == np.uint8 and "feature_names" not in z


def test_a_table_file_of_format_1_is_read(tmp_path):
    """Format 1 stored the ids as fixed-width unicode arrays (tables written before): still read, the same table."""
    t = _cyclic_table()
    c, p = t.hierarchy.edges
    np.savez(tmp_path / "v1.npz", format_version=np.array(1), data_indices=t.X.indices, data_indptr=t.X.indptr,
             shape=np.array(t.X.shape), feature_names=t.feature_names.astype(str),
             instance_ids=t.instance_ids.astype(str), edge_child=c, edge_parent=p,
             removed_edges=np.array(t.hierarchy.removed_edges, dtype=str).reshape(-1, 2),
             merged=np.array([[k, v] for k, vs in t.hierarchy.merged.items() for v in vs], dtype=str),
             meta=np.array("{}"), check=np.array("raise"), y=t.y)
    u = FeatureTable.load(tmp_path / "v1.npz")
    assert u.feature_names.tolist() == t.feature_names.tolist() and u.hierarchy == t.hierarchy
    assert u.instance_ids.tolist() == t.instance_ids.tolist() and (u.X != t.X).nnz == 0


def test_text_whose_ends_do_not_fit_is_refused_naming_the_file(tmp_path):
    path = _cyclic_table().save(tmp_path / "t.npz")
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["feature_names.ends"] = arrays["feature_names.ends"] + 1
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(InputFormatError, match=r"bad\.npz.*feature_names do not fit"):
        FeatureTable.load(tmp_path / "bad.npz")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=6), max_size=12), st.integers(1, 4))
def test_any_strings_are_stored_as_text_and_read_back(values, block):
    """Blocks of strings encoded into their places, and the text cut at character offsets, give the strings back
    (ASCII, beyond it, empty ones, any block size)."""
    import kg.table as kt

    old, kt._BLOCK = kt._BLOCK, block
    try:
        arrays = kt._text("v", values)
    finally:
        kt._BLOCK = old
    assert arrays["v.text"].tobytes() == "".join(values).encode("utf-8")
    assert arrays["v.ends"].tolist() == np.cumsum([len(v.encode("utf-8")) for v in values]).tolist()
    assert kt._read_text(arrays, "v", "f.npz") == values


def test_text_that_is_no_byte_array_is_refused_naming_the_file(tmp_path):
    path = _cyclic_table().save(tmp_path / "t.npz")
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["feature_names.text"] = arrays["feature_names.text"].astype(np.int16)
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(InputFormatError, match=r"bad\.npz.*feature_names do not fit"):
        FeatureTable.load(tmp_path / "bad.npz")


def test_text_whose_ends_cut_a_character_is_refused_naming_the_file(tmp_path):
    path = _cyclic_table().save(tmp_path / "t.npz")
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    at = arrays["feature_names.text"].tobytes().index("≡".encode())  # in the second id, "Stadt ≡ Zürich"
    arrays["feature_names.ends"][0] = at + 1  # the first id, "Ort", ends after the first byte of its ≡
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(InputFormatError, match=r"bad\.npz.*feature_names are no UTF-8 text"):
        FeatureTable.load(tmp_path / "bad.npz")


def test_the_notes_of_a_table_file_are_read_without_the_table(tmp_path):
    t = _cyclic_table()
    t.meta.update(dataset="d", term_names={f: f.upper() for f in t.feature_names.tolist()})
    notes = FeatureTable.load_notes(t.save(tmp_path / "t.npz"))
    assert notes.removed_edges == t.hierarchy.removed_edges == [("a", "a")] and notes.named
    assert notes.meta == {k: v for k, v in FeatureTable.load(tmp_path / "t.npz").meta.items() if k != "term_names"}
    del t.meta["term_names"]
    assert not FeatureTable.load_notes(t.save(tmp_path / "u.npz")).named


@pytest.mark.parametrize("names", [None, "aligned", "partial"])
def test_the_meta_and_its_term_names_are_read_back_as_they_were(tmp_path, names):
    """Term names of every feature, in column order, are stored as text beside the features; any other meta (and
    names of some features only) as JSON: either way the same meta comes back."""
    t = _cyclic_table()
    t.meta["source"] = "tést"
    if names == "aligned":
        t.meta["term_names"] = {f: f"name of {f}" if i % 2 else "" for i, f in enumerate(t.feature_names.tolist())}
    elif names == "partial":
        t.meta["term_names"] = {"a": "the a"}
    u = FeatureTable.load(t.save(tmp_path / "t.npz"))
    assert u.meta == json.loads(json.dumps(t.meta, sort_keys=True, default=str))
    with np.load(tmp_path / "t.npz") as z:
        assert ("term_names.text" in z) == (names == "aligned")
