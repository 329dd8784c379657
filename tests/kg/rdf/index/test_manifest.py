"""Nothing damaged in the dump index is used: a real index (a generated DBpedia-shaped dump) damaged as disks and
people damage files, through the command line.

Each folder of the index (a segment per dump file, a lexicon) has a manifest of its files' sizes and sha256,
written last (kg/rdf/index/manifest.py). A truncated file, an array whose header no longer matches, and a file
written since it was built are caught when the index is opened (every run); damage that left size and time
alone (a bit flipped on the disk) is caught by `kgfs cache verify` and `kgfs ingest`, which rebuilds it. The
leftovers of a killed ingest are removed by the next one; a dump path with `..` is the same file.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from flows.cli import main
from kg.errors import KgfsError
from kg.formats.folder import read_table_folder
from kg.rdf.index.dumpindex import DumpIndex
from kg.rdf.sources.index import IndexSource

ROOT = Path(__file__).resolve().parents[4]


# --------------------------------------------------------------------------- a real index, built once
@pytest.fixture(scope="module")
def pristine(tmp_path_factory, shared_data):
    """A kgfs home whose dump index holds a generated DBpedia-shaped dump of 200,000 triples (seven files: the
    real DBpedia ontology, types, categories, the category graph, redirects, labels), and a corpus of texts
    naming its entities."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_dbpedia_scale as bench
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    base = tmp_path_factory.mktemp("manifest")
    dump = base / "dump"
    bench.generate(dump, 200_000)
    names = (dump / "names.txt").read_text(encoding="utf-8").splitlines()
    for extra in ("names.txt", "meta.json"):
        (dump / extra).unlink()
    rng = np.random.default_rng(0)
    corpus = base / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": i, "text": f"{names[a]} met {names[b]} today", "label": i % 2}) + "\n"
                              for i, (a, b) in enumerate(rng.integers(0, 2000, size=(400, 2)).tolist())),
                      encoding="utf-8")
    home = base / "home"
    env = {"KGFS_HOME": str(home)}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        assert main(["ingest", "--dump", str(dump)]) == 0
    finally:
        for k, v in old.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    return {"home": home, "dump": dump, "corpus": corpus}


@pytest.fixture()
def kit(pristine, tmp_path, monkeypatch):
    """A copy of the pristine home (file times kept: the manifests' times hold), used by this test only."""
    home = tmp_path / "home"
    shutil.copytree(pristine["home"], home, copy_function=shutil.copy2)
    monkeypatch.setenv("KGFS_HOME", str(home))
    return {**pristine, "home": home, "index": DumpIndex(home / "rdf-cache" / "index"), "tmp": tmp_path}


def _build(kit, capsys, out: str) -> tuple[tuple[int, int], str]:
    """`kgfs build --corpus --dump --features categories` with an empty stage store (so the index is asked)."""
    shutil.rmtree(kit["home"] / "store", ignore_errors=True)
    rc = main(["build", "--corpus", str(kit["corpus"]), "--dump", str(kit["dump"]), "--features", "categories",
               "--out", str(kit["tmp"] / out)])
    err = capsys.readouterr().err
    assert rc == 0, err
    t = read_table_folder(kit["tmp"] / out)
    return (t.n_instances, t.n_features), err


@pytest.fixture(scope="module")
def baseline(pristine, tmp_path_factory):
    """The table of the undamaged index."""
    home = tmp_path_factory.mktemp("baseline") / "home"
    shutil.copytree(pristine["home"], home, copy_function=shutil.copy2)
    out = home.parent / "T"
    proc = subprocess.run([sys.executable, "-m", "flows.cli", "-q", "build", "--corpus", str(pristine["corpus"]),
                           "--dump", str(pristine["dump"]), "--features", "categories", "--out", str(out)],
                          env={**os.environ, "KGFS_HOME": str(home)}, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    t = read_table_folder(out)
    assert t.n_instances == 400 and t.n_features > 100
    return (t.n_instances, t.n_features)


def _segment(kit, dump_file: str) -> Path:
    sha = next(v[3] for k, v in json.loads((kit["index"].root / "files.json").read_text())["files"].items()
               if k.endswith("/" + dump_file))
    return next((kit["index"].root / "segments").glob(sha + ".v*"))


def _keep_time(path: Path, change) -> None:
    """Change a file in place, then give it back its modification time (damage a disk does: nothing wrote it)."""
    st = path.stat()
    change(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _zero_block(path: Path, offset: int = 4096, size: int = 64 << 10) -> None:
    assert path.stat().st_size >= offset + size
    with open(path, "r+b") as fh:
        fh.seek(offset)
        fh.write(b"\0" * size)


def _flip_bit(path: Path, offset: int) -> None:
    with open(path, "r+b") as fh:
        fh.seek(offset)
        b = fh.read(1)[0]
        fh.seek(offset)
        fh.write(bytes([b ^ 0x10]))


def _truncate_half(path: Path) -> None:
    with open(path, "r+b") as fh:
        fh.truncate(path.stat().st_size // 2)


def _verify(capsys) -> tuple[int, str]:
    rc = main(["cache", "verify"])
    cap = capsys.readouterr()
    return rc, cap.out + cap.err


# --------------------------------------------------------------------------- the cases of issue 30
def test_a_truncated_lexicon_file_is_named_and_rebuilt(kit, baseline, capsys):
    lexicon = next((kit["index"].root / "lexicons").iterdir())
    _truncate_half(lexicon / "forms.entity.npy")
    # opened by a run's annotate step: an error naming the file and the command that rebuilds it
    with pytest.raises(KgfsError, match=r"forms\.entity\.npy: .*truncated.*`kgfs ingest --dump .*rebuilds it"):
        kit["index"].lexicon(kit["dump"])
    # the command line reads the dump index up front: it rebuilds the lexicon, says so, and the table is whole
    shape, err = _build(kit, capsys, "T")
    assert shape == baseline
    assert "forms.entity.npy" in err and "building the lexicon again" in err


def test_a_zeroed_block_in_a_segment_array_is_caught_on_open(kit, baseline, capsys):
    terms = _segment(kit, "article_categories_en.nt.bz2") / "categories.objects.npy"
    _zero_block(terms)  # same size, valid header: only the contents changed (and the file's time)
    with pytest.raises(KgfsError, match=r"categories\.objects\.npy: content differs.*kgfs ingest --dump "
                                        r"\S*article_categories_en\.nt\.bz2"):
        IndexSource(kit["dump"], kit["index"]).categories(["http://dbpedia.org/resource/X"])
    shape, err = _build(kit, capsys, "T")
    assert shape == baseline and "categories.objects.npy" in err and "into the index again" in err


def test_a_zeroed_block_with_its_time_kept_is_caught_by_verify_and_rebuilt_by_ingest(kit, baseline, capsys):
    terms = _segment(kit, "article_categories_en.nt.bz2") / "categories.objects.npy"
    _keep_time(terms, _zero_block)
    rc, text = _verify(capsys)
    assert rc == 1 and "categories.objects.npy: content differs" in text and "1 damaged" in text
    assert main(["ingest", "--dump", str(kit["dump"])]) == 0
    assert "rebuilt (their index files did not verify): article_categories_en.nt.bz2" in capsys.readouterr().out
    assert _verify(capsys)[0] == 0
    assert _build(kit, capsys, "T")[0] == baseline


def test_a_flipped_bit_is_caught_by_verify_and_rebuilt_by_ingest(kit, baseline, capsys):
    terms = _segment(kit, "article_categories_en.nt.bz2") / "categories.objects.npy"
    _keep_time(terms, lambda p: _flip_bit(p, p.stat().st_size // 2))
    rc, text = _verify(capsys)
    assert rc == 1 and "categories.objects.npy: content differs" in text
    assert main(["ingest", "--dump", str(kit["dump"])]) == 0
    assert "rebuilt" in capsys.readouterr().out
    assert _build(kit, capsys, "T")[0] == baseline


def test_a_truncated_segment_array_is_one_line_naming_it_then_ingest_rebuilds_it(kit, baseline, capsys):
    keys = _segment(kit, "article_categories_en.nt.bz2") / "categories.keys.npy"
    _keep_time(keys, _truncate_half)
    with pytest.raises(KgfsError, match=r"categories\.keys\.npy: .*(truncated|header).*kgfs ingest --dump"):
        IndexSource(kit["dump"], kit["index"]).categories(["http://dbpedia.org/resource/X"])
    rc, text = _verify(capsys)
    assert rc == 1 and "categories.keys.npy" in text
    assert main(["ingest", "--dump", str(kit["dump"])]) == 0
    assert "rebuilt" in capsys.readouterr().out
    assert _build(kit, capsys, "T")[0] == baseline


def test_an_edited_manifest_is_not_trusted(kit, capsys):
    seg = _segment(kit, "instance_types_en.nt.bz2")
    m = json.loads((seg / "manifest.json").read_text())
    m["files"]["types.objects.npy"]["size"] += 4
    (seg / "manifest.json").write_text(json.dumps(m))
    rc, text = _verify(capsys)
    assert rc == 1 and "the manifest was edited" in text
    assert main(["ingest", "--dump", str(kit["dump"])]) == 0
    assert "rebuilt (their index files did not verify): instance_types_en.nt.bz2" in capsys.readouterr().out


def test_verify_remove_deletes_the_damaged_folders_and_the_next_run_rebuilds_them(kit, baseline, capsys):
    lexicon = next((kit["index"].root / "lexicons").iterdir())
    _keep_time(lexicon / "forms.keys.npy", lambda p: _flip_bit(p, p.stat().st_size - 3))
    assert main(["cache", "verify", "--remove"]) == 0
    assert not lexicon.exists() and "removed" in capsys.readouterr().err
    assert _build(kit, capsys, "T")[0] == baseline


# --------------------------------------------------------------------------- leftovers, paths
def test_a_killed_ingest_leaves_nothing_behind_after_the_next(pristine, tmp_path):
    """SIGKILL in the middle of `kgfs ingest`: its `.building-<pid>-*` folder is removed by the next ingest."""
    home = tmp_path / "home"
    env = {**os.environ, "KGFS_HOME": str(home)}
    proc = subprocess.Popen([sys.executable, "-m", "flows.cli", "-q", "ingest", "--dump", str(pristine["dump"])],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    segments = home / "rdf-cache" / "index" / "segments"
    deadline = time.monotonic() + 120
    while not list(segments.glob(".building-*")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert list(segments.glob(".building-*")), "the ingest ended before it could be killed"
    done = subprocess.run([sys.executable, "-m", "flows.cli", "-q", "ingest", "--dump", str(pristine["dump"])],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert not list((home / "rdf-cache" / "index").rglob(".building-*"))


def test_a_dump_path_with_dotdot_is_the_same_file(kit, capsys):
    dump = kit["dump"]
    roundabout = dump.parent / dump.name / ".." / dump.name / "labels_en.nt.bz2"
    report = kit["index"].ingest(roundabout)
    assert report["ingested"] == [] and report["files"][0]["path"] == str(dump / "labels_en.nt.bz2")


def test_an_edited_files_json_is_not_trusted(kit, caplog):
    """files.json maps a path to its segment: pointing a file at another file's segment is seen (its checksum)."""
    path = kit["index"].root / "files.json"
    data = json.loads(path.read_text())
    files = data["files"]
    a, b = (next(k for k in files if k.endswith(n)) for n in ("labels_en.nt.bz2", "redirects_en.nt.bz2"))
    files[a][3] = files[b][3]
    path.write_text(json.dumps(data))
    labels = kit["dump"] / "labels_en.nt.bz2"
    with caplog.at_level("WARNING"):
        seg = kit["index"].segments(labels)[0]
    assert seg.has("labels") and "does not have its recorded checksum" in caplog.text


def test_a_damaged_segment_json_is_named_not_parsed(kit, capsys):
    seg = _segment(kit, "labels_en.nt.bz2")
    (seg / "segment.json").write_text("{ not json")
    with pytest.raises(KgfsError, match=r"segment\.json: .*kgfs ingest --dump \S*labels_en\.nt\.bz2"):
        kit["index"].segments(kit["dump"] / "labels_en.nt.bz2")
    assert main(["ingest", "--dump", str(kit["dump"])]) == 0
    assert "rebuilt (their index files did not verify): labels_en.nt.bz2" in capsys.readouterr().out


# --------------------------------------------------------------------------- segment format 2 (issue 24)
def test_every_file_of_a_wikidata_segment_and_lexicon_is_in_its_manifest_cycle_lists_too(tmp_path):
    from kg.rdf.index.manifest import check_folder
    from kg.rdf.vocabulary import WIKIDATA

    wd, wdt = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
    label = "<http://www.w3.org/2000/01/rdf-schema#label>"
    lines = [f"<{wd}Q1> <{wdt}P31> <{wd}Q5> .", f"<{wd}Q5> <{wdt}P279> <{wd}Q6> .", f"<{wd}Q6> <{wdt}P279> <{wd}Q5> .",
             f'<{wd}Q1> {label} "Ada"@en .', f'<{wd}Q5> {label} "human"@en .', f"<{wd}Q1> <{wdt}P9> <{wd}Q2> ."]
    dump = tmp_path / "truthy.nt"
    dump.write_text("\n".join(lines) + "\n", encoding="utf-8")
    index = DumpIndex(tmp_path / "index", spill_bytes=64)  # runs spilled to disk: none of them may remain
    report = index.ingest(dump, vocabulary=WIKIDATA, full=True)
    assert report["files"][0]["cycles"]["subclass"]["cycles"] == 1
    folders = index.folders()
    assert len(folders) == 2 and not any(d.name.startswith(".") for d in folders)
    listed = {}
    for d in folders:
        listed[d.parent.name] = set(json.loads((d / "manifest.json").read_text())["files"])
        on_disk = {p.relative_to(d).as_posix() for p in d.rglob("*") if p.is_file() and p.name != "manifest.json"}
        assert listed[d.parent.name] == on_disk
    assert {"subclass.cycles.tsv", "segment.json", "types.keys.npy", "terms.bin"} <= listed["segments"]
    assert {"lexicon.json", "forms.keys.npy", "prefixes.keys.npy"} <= listed["lexicons"]
    seg = next(d for d in folders if d.parent.name == "segments")
    _keep_time(seg / "subclass.cycles.tsv", lambda p: _flip_bit(p, 3))  # a list of cycles changed: seen too
    assert [p.file.name for p in check_folder(seg, full=True)] == ["subclass.cycles.tsv"]
    assert [p.file.name for p in index.verify()] == ["subclass.cycles.tsv"]
    assert index.ingest(dump, vocabulary=WIKIDATA, full=True)["rebuilt"] == [str(dump.resolve())]
    assert index.verify() == []
