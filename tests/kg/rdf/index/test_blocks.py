"""Every block an index read uses is checked (issue 37 point 2): damage in the middle of a file that kept its size
and time is found when the block is read, named (file and block), the segment read from its dump again, and the
table built equals the undamaged one; nothing built from damaged data is stored.

A real index: a generated Wikidata-shaped dump of 200,000 triples ingested with relations, built with blocks of
32 KiB (the manifest records the size of its blocks) so its relation tables have several blocks each; a table of
qualified relations of 300 items through the route's stored steps (``kg.routes.build_table`` with a store).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.rdf import cache_folder
from kg.rdf.index import blocks, manifest
from kg.rdf.index.blocks import BLOCK, BlockDamaged, Checks, digest_file, file_blocks
from kg.rdf.index.dumpindex import DumpIndex
from kg.rdf.vocabulary import WD, WIKIDATA

ROOT = Path(__file__).resolve().parents[4]
W = WIKIDATA.with_relations()
SMALL = 32 << 10


# --------------------------------------------------------------------------- a real index, built once
@pytest.fixture(scope="module")
def pristine(tmp_path_factory, shared_data):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_wikidata_scale as wd
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    base = tmp_path_factory.mktemp("blocks")
    meta = wd.generate(base / "dump", 200_000)
    dump = base / "dump" / "latest-truthy.nt.bz2"
    rng = np.random.default_rng(3)
    items = meta["classes"] + 1 + rng.choice(meta["items"], 300, replace=False)
    corpus = base / "corpus.csv"
    corpus.write_text("id,e,label\n" + "".join(f"i{k},{WD}Q{q},{k % 2}\n" for k, q in enumerate(items.tolist())),
                      encoding="utf-8")
    home = base / "home"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(manifest, "BLOCK", SMALL)  # the blocks the manifests are written with
        DumpIndex(cache_folder(home) / "index").ingest(dump, vocabulary=W, lexicon=False)
    kit = {"home": home, "dump": dump, "corpus": corpus}
    kit["baseline"] = _table(kit, home / "store")
    return kit


@pytest.fixture()
def kit(pristine, tmp_path):
    """A copy of the pristine home (file times kept, as the manifests recorded them), for this test only."""
    home = tmp_path / "home"
    shutil.copytree(pristine["home"], home, copy_function=shutil.copy2)
    shutil.rmtree(home / "store")
    index = DumpIndex(cache_folder(home) / "index")
    seg = next((index.root / "segments").iterdir())
    return {**pristine, "home": home, "index": index, "segment": seg, "tmp": tmp_path}


def _input(kit):
    from kg.rdf.route import CorpusInput

    return CorpusInput.from_options({"corpus": kit["corpus"], "dump": [kit["dump"]], "preset": "wikidata",
                                     "entity_columns": ["e"], "features": ["qualified-relations"]})


def _table(kit, store_dir: Path):
    from kg.routes import build_table
    from kg.routes.base import Context
    from kg.store import Store

    return build_table(_input(kit), Context(home=kit["home"]), store=Store(store_dir))


def _same(a, b) -> bool:
    return (list(a.feature_names) == list(b.feature_names) and list(a.instance_ids) == list(b.instance_ids)
            and a.X.shape == b.X.shape and (a.X != b.X).nnz == 0)


def _keep_time(path: Path, change) -> None:
    """Change a file in place, then give it back its times (damage a disk does: nothing wrote it)."""
    s = path.stat()
    change(path)
    os.utime(path, ns=(s.st_atime_ns, s.st_mtime_ns))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _stored_stages(store_dir: Path) -> set[str]:
    return {json.loads(p.read_text())["stage"] for p in store_dir.rglob("record.json")} if store_dir.is_dir() else set()


def _rebuilt(kit, before: str, caplog, name: str) -> None:
    """The damage was named (file and block), the segment read from the dump again: its file as it was built."""
    target = kit["segment"] / name
    assert _sha(target) == before
    assert f"{name}: " in caplog.text and "runs again" in caplog.text
    assert "it is built again (read from its dump file)" in caplog.text


# --------------------------------------------------------------------------- the cases
def test_the_index_has_several_blocks_per_relation_table_and_their_checksums(kit):
    m = json.loads((kit["segment"] / "manifest.json").read_text())
    assert m["format"] == 3 and m["block"] == SMALL
    e = m["files"]["relations_out.objects.npy"]
    assert len(e["blocks"]) >= 3 and e["blocks"] == file_blocks(kit["segment"] / "relations_out.objects.npy",
                                                                 block=SMALL)
    assert all("blocks" in x for x in m["files"].values())


def test_a_byte_flipped_mid_file_with_its_time_kept_is_found_named_and_the_segment_read_again(kit, caplog):
    target = kit["segment"] / "relations_out.objects.npy"
    before = _sha(target)
    middle = target.stat().st_size // 2

    def flip(p):
        with open(p, "r+b") as fh:
            fh.seek(middle + 3)  # the high byte of a term id: an id out of bounds (the crash of issue 37)
            b = fh.read(1)[0]
            fh.seek(middle + 3)
            fh.write(bytes([b ^ 0x40]))

    _keep_time(target, flip)
    block = middle // SMALL
    with caplog.at_level("WARNING"):
        t = _table(kit, kit["home"] / "store")
    assert _same(t, kit["baseline"])
    assert f"relations_out.objects.npy: block {block} of " in caplog.text and "CRC-32C" in caplog.text
    _rebuilt(kit, before, caplog, "relations_out.objects.npy")


def test_one_block_copied_over_another_is_found_and_the_table_is_the_undamaged_one(kit, caplog):
    target = kit["segment"] / "relations_out.objects.npy"
    before = _sha(target)

    def copy_block(p):
        with open(p, "r+b") as fh:
            fh.seek(0)
            first = fh.read(SMALL)
            fh.seek(SMALL)
            second = fh.read(SMALL)
            assert first != second
            fh.seek(SMALL)
            fh.write(first[:len(second)])  # the header too: a plain array header in the middle

    _keep_time(target, copy_block)
    with caplog.at_level("WARNING"):
        t = _table(kit, kit["home"] / "store")
    assert _same(t, kit["baseline"])
    assert "relations_out.objects.npy: block 1 of " in caplog.text
    _rebuilt(kit, before, caplog, "relations_out.objects.npy")


def test_a_truncated_table_with_its_time_kept_is_found_on_open_and_read_again(kit, caplog):
    target = kit["segment"] / "relations_in.subjects.npy"
    before = _sha(target)
    _keep_time(target, lambda p: os.truncate(p, p.stat().st_size - SMALL // 2))
    with caplog.at_level("WARNING"):
        t = _table(kit, kit["home"] / "store")
    assert _same(t, kit["baseline"])
    assert "relations_in.subjects.npy: " in caplog.text and "truncated" in caplog.text
    _rebuilt(kit, before, caplog, "relations_in.subjects.npy")


def test_nothing_built_from_a_damaged_block_is_stored(kit, monkeypatch):
    """Without the repair (a dump that cannot be read again, say), the error names the file, the block and the
    command that rebuilds it, and the step that met the damage stored nothing (nor did the table)."""
    target = kit["segment"] / "relations_out.predicates.npy"
    _keep_time(target, lambda p: _overwrite(p, SMALL + 100, b"\xff" * 8))
    monkeypatch.setattr(BlockDamaged, "repair", lambda self: False)
    store = kit["home"] / "store"
    with pytest.raises(BlockDamaged, match=r"relations_out\.predicates\.npy: block 1 of \d+ \(bytes 32,768-65,536\) "
                                           r"has CRC-32C \w+, \w+ when it was built .*`kgfs ingest --preset wikidata "
                                           r"--relations --dump \S+latest-truthy\.nt\.bz2` rebuilds it"):
        _table(kit, store)
    stored = _stored_stages(store)
    assert "table" not in stored and not any(s.startswith("facts") for s in stored), stored


def _overwrite(path: Path, offset: int, data: bytes) -> None:
    with open(path, "r+b") as fh:
        fh.seek(offset)
        fh.write(data)


def test_an_index_without_block_checksums_is_checksummed_once_and_not_read_again(kit, caplog):
    """A format-2 manifest (a kgfs before block checksums) is trusted as it is and given its checksums on the first
    open; its files are not written again (no ingest), and later damage is found."""
    seg = kit["segment"]
    m = json.loads((seg / "manifest.json").read_text())
    files = {k: {f: v for f, v in e.items() if f != "blocks"} for k, e in m["files"].items()}
    digest = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()
    (seg / "manifest.json").write_text(json.dumps({"format": 2, "files": files, "sha256": digest}), encoding="utf-8")
    stamps = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in seg.iterdir() if p.name != "manifest.json"}
    with caplog.at_level("WARNING"):
        t = _table(kit, kit["home"] / "store")
    assert _same(t, kit["baseline"]) and "built again" not in caplog.text
    assert {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in seg.iterdir() if p.name != "manifest.json"} \
        == stamps
    new = json.loads((seg / "manifest.json").read_text())
    assert new["format"] == 3 and new["block"] == BLOCK
    assert all(new["files"][k]["blocks"] == file_blocks(seg / k) for k in files)
    assert kit["index"].verify() == []
    # and now damage is found as in an index written with them
    target = seg / "relations_out.keys.npy"  # the high halves of the keys, searched: verified whole on open
    _keep_time(target, lambda p: _overwrite(p, 5000, b"\x00\x00\x00\xff"))
    blocks._VERIFIED.clear()  # (a new process)
    with pytest.raises(BlockDamaged, match=r"relations_out\.keys\.npy: block 0 of 1"):
        DumpIndex(kit["index"].root).segments(kit["dump"], vocabulary=W)[0].relation_terms(
            "relations_out", np.zeros((1, 2), np.uint64))


def test_the_names_columns_are_read_through_the_segments_checks(kit):
    from kg.rdf.labels import dump_labels

    iris = [f"{WD}Q{i}" for i in range(1, 50)]
    names = dump_labels(iris, [kit["dump"]], cache_dir=cache_folder(kit["home"]), vocabulary=W)
    assert len(names) == 49
    target = kit["segment"] / "names.keys.npy"
    _keep_time(target, lambda p: _overwrite(p, p.stat().st_size // 3, b"\x00" * 16))
    blocks._VERIFIED.clear()  # (a new process)
    with pytest.raises(BlockDamaged, match=r"names\.keys\.npy: block \d+ of \d+"):
        dump_labels(iris, [kit["dump"]], cache_dir=cache_folder(kit["home"]), vocabulary=W)


@pytest.fixture(scope="module")
def texts(pristine, tmp_path_factory):
    """The same dump ingested with the ``wikidata`` preset (its lexicon built), and a corpus of 2,000 texts naming
    its items (as bench_wikidata_scale.py's), with the table of their types."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_wikidata_scale as wd
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    home = tmp_path_factory.mktemp("lexicon") / "home"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(manifest, "BLOCK", SMALL)
        DumpIndex(cache_folder(home) / "index").ingest(pristine["dump"], vocabulary=WIKIDATA)
    lines = wd.corpus(pristine["dump"].parent).read_text(encoding="utf-8").splitlines()
    corpus = home.parent / "texts.tsv"
    corpus.write_text("\n".join(lines[:2001]) + "\n", encoding="utf-8")
    kit = {"home": home, "dump": pristine["dump"], "corpus": corpus}
    kit["baseline"] = _text_table(kit, home / "store")
    return kit


def _text_table(kit, store_dir: Path):
    from kg.rdf.route import CorpusInput
    from kg.routes import build_table
    from kg.routes.base import Context
    from kg.store import Store

    inp = CorpusInput.from_options({"corpus": kit["corpus"], "dump": [kit["dump"]], "preset": "wikidata"})
    return build_table(inp, Context(home=kit["home"]), store=Store(store_dir))


def test_a_damaged_block_of_the_lexicon_is_found_and_the_lexicon_built_again(texts, tmp_path, caplog):
    home = tmp_path / "home"
    shutil.copytree(texts["home"], home, copy_function=shutil.copy2)
    shutil.rmtree(home / "store")
    kit = {**texts, "home": home}
    lexicon = next((cache_folder(home) / "index" / "lexicons").iterdir())
    target = lexicon / "forms.keys.npy"
    assert target.stat().st_size > 3 * SMALL
    before = _sha(target)
    _keep_time(target, lambda p: _overwrite(p, 2 * SMALL + 8, b"\x00" * 64))
    with caplog.at_level("WARNING"):
        t = _text_table(kit, home / "store")
    assert _same(t, texts["baseline"]) and t.n_features > 50
    assert "forms.keys.npy: block 2 of " in caplog.text and "built again (the lexicon)" in caplog.text
    assert _sha(target) == before


# --------------------------------------------------------------------------- the blocks themselves
SIZES = st.sampled_from([k * BLOCK + d for k in range(4) for d in (-2, -1, 0, 1, 2) if k * BLOCK + d >= 0])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(size=SIZES, data=st.data())
def test_block_boundaries(tmp_path, size, data):
    """Files around multiples of 1 MiB: one checksum per started block; a damaged byte is found by a read whose
    bytes share its block (and only then), and by the whole file's check, naming that block."""
    blocks._VERIFIED.clear()
    path = tmp_path / "f.bin"
    content = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8).tobytes()
    path.write_bytes(content)
    sha, crcs = digest_file(path)
    assert sha == hashlib.sha256(content).hexdigest() and crcs == file_blocks(path)
    assert len(crcs) == -(-size // BLOCK)
    Checks(tmp_path, {"f.bin": crcs}, "r").file(path)  # intact: passes
    if not size:
        return
    pos = data.draw(st.integers(0, size - 1))
    blocks._VERIFIED.clear()
    _keep_time(path, lambda p: _overwrite(p, pos, bytes([content[pos] ^ 1])))
    start = data.draw(st.integers(0, size - 1))
    stop = data.draw(st.integers(start + 1, min(size, start + 3 * BLOCK)))
    checks = Checks(tmp_path, {"f.bin": crcs}, "r")
    covers = start // BLOCK <= pos // BLOCK <= (stop - 1) // BLOCK
    if covers:
        with pytest.raises(BlockDamaged, match=rf"f\.bin: block {pos // BLOCK} of {len(crcs)} "):
            checks.spans(path, [start], [stop])
    else:
        checks.spans(path, [start], [stop])
    with pytest.raises(BlockDamaged, match=rf"block {pos // BLOCK} of {len(crcs)} "):
        Checks(tmp_path, {"f.bin": crcs}, "r").file(path)


def test_verification_is_switched_off_only_by_the_benchmarks_variable(tmp_path, monkeypatch):
    path = tmp_path / "f.bin"
    path.write_bytes(b"x" * 100)
    crcs = [0]  # wrong
    with pytest.raises(BlockDamaged):
        Checks(tmp_path, {"f.bin": crcs}, "r").file(path)
    monkeypatch.setenv("KGFS_BLOCK_CHECKS", "0")
    Checks(tmp_path, {"f.bin": crcs}, "r").file(path)


def test_an_array_read_by_rows_verifies_only_the_blocks_of_the_rows_read(tmp_path):
    from kg.rdf.index.columns import CheckedArray, save_array

    blocks._VERIFIED.clear()
    path = tmp_path / "a.npy"
    save_array(path, np.arange(3 * BLOCK // 8, dtype=np.int64))  # 3 MiB of data after a 128-byte header
    crcs = file_blocks(path)
    _keep_time(path, lambda p: _overwrite(p, 2 * BLOCK + 1000, b"\xff" * 8))  # in block 2
    arr = CheckedArray(path, Checks(tmp_path, {"a.npy": crcs}, "r"))
    assert arr[np.array([0, 5, BLOCK // 8])].tolist() == [0, 5, BLOCK // 8]  # blocks 0 and 1: intact
    with pytest.raises(BlockDamaged, match=r"a\.npy: block 2 of 4 "):
        arr[np.array([2 * BLOCK // 8 + 200])]


def test_a_negative_row_verifies_the_block_it_reads_and_ranges_over_blocks_verify_those_between(tmp_path):
    from kg.rdf.index.columns import CheckedArray, save_array

    blocks._VERIFIED.clear()
    path = tmp_path / "a.npy"
    save_array(path, np.arange(3 * BLOCK // 8, dtype=np.int64))
    crcs = file_blocks(path)
    _keep_time(path, lambda p: _overwrite(p, path.stat().st_size - 4, b"\xff" * 4))  # the last row, in block 3
    arr = CheckedArray(path, Checks(tmp_path, {"a.npy": crcs}, "r"))
    with pytest.raises(BlockDamaged, match=r"a\.npy: block 3 of 4 "):
        arr[np.array([-1])]
    blocks._VERIFIED.clear()
    _keep_time(path, lambda p: _overwrite(p, BLOCK + 10, b"\xfe\xfd"))  # block 1, between a range's first and last
    with pytest.raises(BlockDamaged, match=r"a\.npy: block 1 of 4 "):
        Checks(tmp_path, {"a.npy": crcs}, "r").spans(path, [BLOCK - 5, 0], [2 * BLOCK + 5, 1])
