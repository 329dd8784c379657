import dataclasses
import gzip
import hashlib
import http.server
import importlib.util
import shutil
import threading
import zipfile
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from kg.datasets import (
    DatasetInfo,
    FileInfo,
    Registry,
    dataset_info,
    datasets_dir,
    fetch,
    list_datasets,
    load_dataset,
    load_hierarchy,
    resolve_names,
)
from kg.errors import ChecksumError, KgfsError
from kg.files import sha256_file
from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable

ORGS = ["CE", "DM", "MM", "SC"]


def make_table(n=3, label="x"):
    """A generator used by the generated-dataset test (imported by name through the manifest)."""
    h = FeatureHierarchy.from_edges([("b", "a")])
    facts = {f"i{k}": (["b"] if k % 2 else ["a"]) for k in range(n)}
    return FeatureTable.from_facts(facts, h, {i: label for i in facts})


@pytest.fixture
def no_env(monkeypatch, tmp_path):
    """No mirror from the environment, a private user cache."""
    monkeypatch.delenv("KGFS_DATA_MIRROR", raising=False)
    monkeypatch.delenv("KGFS_OFFLINE", raising=False)
    monkeypatch.setenv("KGFS_CACHE", str(tmp_path / "cache"))
    return tmp_path


# ---------------------------------------------------------------------- the manifest
def test_manifest_names_every_published_dataset():
    names = [d.name for d in list_datasets()]
    assert names[0] == "bundled/DM-BP"
    for org in ORGS:
        for s in ["BP", "CC", "MF", "BPCC", "BPMF", "MFCC", "BPMFCC"]:
            assert f"aire/{org}-{s}" in names
        for s in ["BP", "CC", "MF", "BP+CC", "BP+MF", "CC+MF", "BP+CC+MF"]:
            assert f"rpv/{org}-{s}" in names
    for n in ["lod/Cities", "lod/NYDailyheadings", "lod/SportsTweetsT", "lod/SportsTweetsC", "lod/StumbleUpon"]:
        assert n in names
    for d in list_datasets():
        assert d.licence and (d.generator or d.files), d.name
        for f in d.files.values():
            # bundled, or downloadable from its upstream, or a format conversion the mirror holds (then the
            # dataset's derivation names the upstream release it was converted from)
            assert len(f.sha256) == 64 and (f.bundled or f.url.startswith(("https://raw.githubusercontent.com/",
                                                                            "https://github.com/"))
                                            or (not f.url and "https://" in d.derivation)), (d.name, f)
    info = dataset_info("rpv/CE-BP")
    assert info.files["table"].path == "ageing/rpv/CE-BP-threshold-3.arff"
    assert info.files["ontology"].path == "go/gene_ontology_ext_13062014.obo.gz"
    assert dataset_info("rpv/CE-BP+CC").files["table"].path.endswith("CE-BP+CC-threshold-3.arff")
    assert "most specific GO terms" in dataset_info("bundled/DM-BP").derivation


def test_resolve_names_and_unknown_names():
    assert resolve_names(["rpv/*-BP"]) == ["rpv/CE-BP", "rpv/DM-BP", "rpv/MM-BP", "rpv/SC-BP"]
    assert resolve_names("aire/DM-*")[:2] == ["aire/DM-BP", "aire/DM-CC"]
    assert len(resolve_names(["aire/*", "aire/DM-BP"])) == 28
    with pytest.raises(KgfsError, match=r"unknown dataset 'aire/DM-PB'; did you mean .*aire/DM-BP"):
        dataset_info("aire/DM-PB")
    with pytest.raises(KgfsError, match=r"unknown dataset 'rpv/XX-\*'"):
        resolve_names(["rpv/XX-*"])


def test_bundled_files_are_small_and_need_nothing_but_the_repository(no_env):
    info = dataset_info("bundled/DM-BP")
    paths = fetch("bundled/DM-BP", offline=True)
    assert set(paths) == {"ontology", "annotations", "labels"}
    assert all(p.is_relative_to(datasets_dir()) for p in paths.values())
    assert sum(p.stat().st_size for p in paths.values()) < 100_000
    assert all(info.files[r].bundled for r in paths)
    t = load_dataset("bundled/DM-BP", offline=True)
    assert t.shape == (127, 699)
    assert set(t.y.tolist()) == {"pro-longevity", "anti-longevity"}
    assert t.meta["unknown_terms"] == [] and t.meta["dataset"] == "bundled/DM-BP"


def test_bundled_dm_bp_equals_the_aire_matrix(shared_data, no_env):
    b = load_dataset("bundled/DM-BP")
    a = load_dataset("aire/DM-BP", mirror=shared_data)
    assert b.feature_names.tolist() == a.feature_names.tolist()
    assert b.instance_ids.tolist() == a.instance_ids.tolist()
    assert (b.X != a.X).nnz == 0
    assert b.hierarchy == a.hierarchy
    assert [{"pro-longevity": 1, "anti-longevity": 0}[v] for v in b.y.tolist()] == a.y.tolist()


def test_make_bundled_is_reproducible(shared_data, tmp_path):
    spec = importlib.util.spec_from_file_location("make_bundled", datasets_dir() / "make_bundled.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = mod.make_bundled(shared_data, tmp_path / "DM-BP")
    for role, p in out.items():
        committed = datasets_dir() / "bundled" / "DM-BP" / p.name
        assert p.read_bytes() == committed.read_bytes(), role
        assert sha256_file(p) == dataset_info("bundled/DM-BP").files[role].sha256


# ---------------------------------------------------------------------- mirror, cache, checksums
def test_fetch_from_mirror_argument_and_environment(shared_data, no_env, monkeypatch):
    paths = fetch("aire/DM-BP", mirror=shared_data)
    assert paths["table"] == shared_data / "ageing" / "aire" / "DM-BP.txt"
    monkeypatch.setenv("KGFS_DATA_MIRROR", str(shared_data))
    assert fetch("rpv/DM-BP")["table"].name == "DM-BP-threshold-3.arff"
    t = load_dataset("rpv/DM-BP")
    # the 2014 GO lacks 20 of the file's terms; the 2022 is_a completion places 18 of them
    assert t.shape == (132, 800) and len(t.meta["missing_terms"]) == 2
    assert len(t.meta["completion"]["placed_terms"]) == 18


def test_tampered_mirror_copy_raises_checksum_error(shared_data, no_env):
    mirror = no_env / "mirror"
    dest = mirror / "ageing" / "aire" / "DM-CC.txt"
    dest.parent.mkdir(parents=True)
    shutil.copy(shared_data / "go" / "gene_ontology_ext_13062014.obo.gz", mirror / "go.obo.gz")
    (mirror / "go").mkdir()
    shutil.move(mirror / "go.obo.gz", mirror / "go" / "gene_ontology_ext_13062014.obo.gz")
    text = (shared_data / "ageing" / "aire" / "DM-CC.txt").read_text()
    dest.write_text(text.replace("class,0", "class,1", 1))
    expected = dataset_info("aire/DM-CC").files["table"].sha256
    actual = hashlib.sha256(dest.read_bytes()).hexdigest()
    with pytest.raises(ChecksumError) as err:
        fetch("aire/DM-CC", mirror=mirror)
    msg = str(err.value)
    assert str(dest) in msg and expected in msg and actual in msg
    with pytest.raises(ChecksumError):
        load_dataset("aire/DM-CC", mirror=mirror)


def test_user_cache_is_used_and_verified(shared_data, no_env):
    cache = no_env / "cache"
    for role, f in dataset_info("lod/Cities").files.items():
        dst = cache / f.path
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(shared_data / f.path, dst)
    paths = fetch("lod/Cities", offline=True)  # KGFS_CACHE
    assert paths["table"] == cache / "lod" / "LDCities.arff"
    assert load_dataset("lod/Cities", offline=True).shape == (212, 102)
    other = no_env / "other"
    with pytest.raises(KgfsError, match=r"not found \(offline\); looked in .*other.*upstream https://"):
        fetch("lod/Cities", cache_dir=other, offline=True)
    (cache / "lod" / "LDCities.csv").write_text("tampered\n")
    with pytest.raises(ChecksumError, match="LDCities.csv"):
        fetch("lod/Cities", offline=True)


def test_a_file_with_no_download_and_no_recipe_says_what_to_get_not_to_go_online(no_env, tmp_path):
    """A file derived by scripts outside kgfs: online, kgfs still cannot fetch it, and says so."""
    reg = _registry({"table": FileInfo("table", "x/made.arff", "0" * 64)}, tmp_path)
    with pytest.raises(KgfsError) as e:
        reg.fetch("test/tiny", offline=False)
    msg = str(e.value)
    assert "no upstream URL" in msg and "go online" not in msg
    assert "x/made.arff" in msg and "KGFS_DATA_MIRROR" in msg
    assert "kgfs datasets list test/tiny --json" in msg


# ---------------------------------------------------------------------- a file derived from its upstreams
CODEX = "wikidata/codex-people"


def _codex_upstreams(shared_data: Path, dest: Path) -> dict[str, Path]:
    """Copies of the seven upstream files of the CoDEx dump at their mirror paths under ``dest``."""
    out = {}
    for role, f in dataset_info(CODEX).derived_from.items():
        out[role] = dest / f.path
        out[role].parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shared_data / f.path, out[role])
    return out


def test_the_codex_dump_is_derived_from_its_upstream_files_in_a_mirror(shared_data, no_env):
    """Issue 38: a mirror (or cache) with CoDEx's and the taxonomy's files, not the derived dump, is enough."""
    mirror = no_env / "mirror"
    _codex_upstreams(shared_data, mirror)
    paths = fetch(CODEX, mirror=mirror, offline=True)
    dump = paths["dump"]
    assert dump == no_env / "cache" / "wikidata" / "codex_truthy.nt.gz"
    # the same triples as the data mirror's copy (made by its own script), not the same gzip bytes
    mirrored = shared_data / "wikidata/codex_truthy.nt.gz"
    assert gzip.decompress(dump.read_bytes()) == gzip.decompress(mirrored.read_bytes())
    assert sha256_file(dump) != dataset_info(CODEX).files["dump"].sha256
    stamp = dump.stat().st_mtime_ns
    assert fetch(CODEX, mirror=mirror, offline=True)["dump"] == dump and dump.stat().st_mtime_ns == stamp  # reused
    assert not [p for p in dump.parent.iterdir() if p != dump]  # no temporary file left


def test_the_codex_dump_is_derived_from_its_upstream_files_downloaded(shared_data, no_env, http_root):
    """The user with only the repository and the internet: the seven files are downloaded, the dump derived."""
    root, url = http_root
    info = dataset_info(CODEX)
    here = _codex_upstreams(shared_data, root)
    upstreams = {r: dataclasses.replace(f, url=f"{url}/{f.path}") for r, f in info.derived_from.items()}
    reg = Registry({CODEX: dataclasses.replace(info, derived_from=upstreams)}, datasets_dir())
    with pytest.raises(KgfsError) as e:  # offline, nothing anywhere: what is missing, and where to get it
        reg.fetch(CODEX, offline=True)
    msg = str(e.value)
    assert msg.startswith(f"dataset {CODEX!r}: wikidata/codex_truthy.nt.gz is derived from its upstream files "
                          "(entity_types, p279, train, valid, test, types_en, relations_en) and one of them is missing")
    assert f"upstream {url}/wikidata/codex/entity2types.json" in msg
    dump = reg.fetch(CODEX, offline=False)["dump"]
    mirrored = shared_data / "wikidata/codex_truthy.nt.gz"
    assert gzip.decompress(dump.read_bytes()) == gzip.decompress(mirrored.read_bytes())
    assert (no_env / "cache" / "wikidata" / "codex" / "entity2types.json").is_file()  # kept, verified, in the cache

    # a changed upstream file is refused by its own checksum, and nothing is derived from it
    shutil.rmtree(no_env / "cache")
    here["train"].write_text("Q1\tP19\tQ2\n")
    with pytest.raises(ChecksumError,
                       match=r"one of them is not the file it should be: .*train.txt: expected sha256 d99c3437"):
        reg.fetch(CODEX, offline=False)
    assert not (no_env / "cache" / "wikidata" / "codex_truthy.nt.gz").exists()


def _bad_recipe(inputs, out):
    out.write_bytes(gzip.compress(b"not the triples\n"))


def test_a_recipe_whose_result_differs_leaves_nothing(no_env, tmp_path):
    (tmp_path / "up.txt").write_text("x\n")
    up = FileInfo("up", "up.txt", sha256_file(tmp_path / "up.txt"))
    made = FileInfo("table", "made.txt.gz", "", content_sha256="0" * 64,
                    derive="tests.kg.test_datasets:_bad_recipe", derive_from=("up",))
    reg = Registry({"test/tiny": DatasetInfo(name="test/tiny", loader="rpv", files={"table": made},
                                             derived_from={"up": up})}, tmp_path)
    with pytest.raises(ChecksumError, match=r"made.txt.gz derived by tests.kg.test_datasets:_bad_recipe from up "
                                            r"has content sha256 [0-9a-f]{64}, expected 0{64}"):
        reg.fetch("test/tiny", mirror=tmp_path, offline=True)
    assert not list((no_env / "cache").rglob("*"))


@pytest.mark.parametrize(("extra", "error"), [
    ('derive_from = ["up"]\n', "needs 'content_sha256'"),
    (f'content_sha256 = "{"0" * 64}"\n', "needs 'derive_from'"),
    (f'content_sha256 = "{"0" * 64}"\nderive_from = ["down"]\n',
     r"needs .derive_from., roles of its derived_from files \(not among them: down; known: up\)"),
    (f'content_sha256 = "{"0" * 64}"\nderive_from = ["up"]\nurl = "http://127.0.0.1:9/x"\n', "has a download too"),
])
def test_a_recipe_entry_is_checked_when_the_manifest_is_read(tmp_path, extra, error):
    manifest = tmp_path / "manifest.toml"
    manifest.write_text('[datasets."test/made"]\nloader = "rpv"\nlicence = "x"\n'
                        '[datasets."test/made".files.table]\npath = "made.gz"\nderive = "m:f"\n'
                        f'sha256 = "{"0" * 64}"\n{extra}'
                        f'[datasets."test/made".derived_from.up]\npath = "up.txt"\nsha256 = "{"0" * 64}"\n')
    with pytest.raises(KgfsError, match=r"manifest: file 'table' of 'test/made' \(derive = 'm:f'\) " + error):
        Registry.from_file(manifest)


def test_hierarchy_only_datasets(shared_data, no_env):
    h = load_hierarchy("lod/StumbleUpon", mirror=shared_data)
    assert "Top" in h.index
    with pytest.raises(KgfsError, match="hierarchy without a table; use load_hierarchy"):
        load_dataset("lod/StumbleUpon", mirror=shared_data)


# ---------------------------------------------------------------------- downloads (local server)
@pytest.fixture
def http_root(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None  # keep the test output quiet
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _registry(files: dict[str, FileInfo], root: Path, loader="rpv") -> Registry:
    return Registry({"test/tiny": DatasetInfo(name="test/tiny", loader=loader, licence="test", files=files)}, root)


def test_download_verifies_and_writes_atomically(http_root, tmp_path, shared_data, monkeypatch):
    monkeypatch.delenv("KGFS_DATA_MIRROR", raising=False)  # CI sets it; this test must miss every mirror
    root, url = http_root
    src = shared_data / "ageing" / "rpv" / "DM-MF-threshold-3.arff"
    shutil.copy(src, root / "DM-MF.arff")
    good = FileInfo("table", "ageing/rpv/DM-MF-threshold-3.arff", sha256_file(src), url=f"{url}/DM-MF.arff")
    cache = tmp_path / "cache"
    reg = _registry({"table": good}, tmp_path)
    with pytest.raises(KgfsError, match="offline"):
        reg.fetch("test/tiny", cache_dir=cache, offline=True)
    paths = reg.fetch("test/tiny", cache_dir=cache, offline=False)
    assert paths["table"] == cache / good.path and paths["table"].read_bytes() == src.read_bytes()
    t = reg.load("test/tiny", cache_dir=cache, offline=True)  # now from the cache, no network
    assert t.shape == (126, 145)

    bad = FileInfo("table", "x/bad.arff", "0" * 64, url=f"{url}/DM-MF.arff")
    with pytest.raises(ChecksumError, match=f"{url}/DM-MF.arff: expected sha256 0{{64}}, got {sha256_file(src)}"):
        _registry({"table": bad}, tmp_path).fetch("test/tiny", cache_dir=cache, offline=False)
    assert not (cache / "x" / "bad.arff").exists()
    assert not [p for p in (cache / "x").iterdir()]  # no temporary file left behind

    missing = FileInfo("table", "x/missing.arff", "0" * 64, url=f"{url}/nope.arff")
    with pytest.raises(KgfsError, match="cannot download .*404"):
        _registry({"table": missing}, tmp_path).fetch("test/tiny", cache_dir=cache, offline=False)


def test_download_of_a_zip_member_stored_gzipped(http_root, tmp_path):
    root, url = http_root
    content = b"format-version: 1.2\n\n[Term]\nid: X:1\nname: root\n\n[Term]\nid: X:2\nname: leaf\nis_a: X:1\n"
    with zipfile.ZipFile(root / "go.obo.zip", "w") as z:
        z.writestr("go.obo", content)
    f = FileInfo(
        "ontology", "go/go.obo.gz", "f" * 64, url=f"{url}/go.obo.zip", archive="zip", member="go.obo",
        content_sha256=hashlib.sha256(content).hexdigest(),
    )
    reg = _registry({"ontology": f}, tmp_path)
    p = reg.fetch("test/tiny", cache_dir=tmp_path / "c", offline=False)["ontology"]
    assert gzip.decompress(p.read_bytes()) == content
    assert reg.fetch("test/tiny", cache_dir=tmp_path / "c", offline=True)["ontology"] == p  # verified by content


# ---------------------------------------------------------------------- generated datasets
def test_generated_dataset_through_importlib(tmp_path):
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(
        'schema = 1\n[datasets."synthetic/tiny"]\ngenerator = "tests.kg.test_datasets:make_table"\n'
        'licence = "generated"\nparams = { n = 5, label = "p" }\n'
        '[datasets."synthetic/broken"]\ngenerator = "tests.kg.test_datasets:nope"\nlicence = "x"\n'
    )
    reg = Registry.from_file(manifest)
    t = reg.load("synthetic/tiny")
    assert t.shape == (5, 2) and t.meta["dataset"] == "synthetic/tiny"
    assert reg.load("synthetic/tiny", n=7).n_instances == 7
    assert reg.fetch("synthetic/tiny") == {}
    with pytest.raises(KgfsError, match="cannot import generator 'tests.kg.test_datasets:nope'"):
        reg.load("synthetic/broken")
    bad = tmp_path / "bad.toml"
    bad.write_text('[datasets."x/y"]\ndescription = "no loader"\n')
    with pytest.raises(KgfsError, match="needs a 'loader' or a 'generator'"):
        Registry.from_file(bad)


@pytest.mark.slow
def test_every_registered_dataset_loads_from_the_mirror(shared_data, no_env):
    for d in list_datasets():
        if d.generator or not d.has_table:
            continue
        t = load_dataset(d.name, mirror=shared_data)
        assert (t.n_instances, t.n_features) == (d.n_instances, d.n_features), d.name
        assert np.unique(t.y).size >= 2


# ---------------------------------------------------------------------- paths stay inside their folder
@pytest.mark.parametrize("path", ["../../x", "/etc/passwd", "go/../../x", "..\\..\\x", ""])
def test_manifest_path_that_leaves_its_folder_is_an_error_naming_the_entry(tmp_path, path):
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(f'[datasets."test/escape"]\nloader = "rpv"\nlicence = "x"\n'
                        f'[datasets."test/escape".files.table]\npath = {path!r}\nsha256 = "{"0" * 64}"\n'
                        'url = "http://127.0.0.1:9/x"\n')
    with pytest.raises(KgfsError, match=r"file 'table' of 'test/escape' has path .*leaves its folder"):
        Registry.from_file(manifest)


def test_fetch_never_reads_or_writes_outside_its_folders(tmp_path, http_root, monkeypatch):
    """A registry built in code (no manifest check) or a symbolic link in the cache cannot lead a
    download (or a read) outside the cache: the error names the dataset and nothing is written."""
    monkeypatch.delenv("KGFS_DATA_MIRROR", raising=False)
    root, url = http_root
    (root / "x").write_bytes(b"data")
    digest = hashlib.sha256(b"data").hexdigest()
    cache = tmp_path / "cache"
    cache.mkdir()
    escape = _registry({"table": FileInfo("table", "../../x", digest, url=f"{url}/x")}, tmp_path)
    with pytest.raises(KgfsError, match=r"dataset 'test/tiny': file 'table' has path '../../x', which leads outside"):
        escape.fetch("test/tiny", cache_dir=cache / "a" / "b", offline=False)
    assert not (tmp_path / "x").exists() and not (cache / "x").exists()

    outside = tmp_path / "outside"
    outside.mkdir()
    (cache / "go").symlink_to(outside)
    linked = _registry({"table": FileInfo("table", "go/x", digest, url=f"{url}/x")}, tmp_path)
    with pytest.raises(KgfsError, match=r"dataset 'test/tiny': file 'table' has path 'go/x', which leads outside"):
        linked.fetch("test/tiny", cache_dir=cache, offline=False)
    assert list(outside.iterdir()) == []
    # a link inside the folder is fine
    (cache / "go").unlink()
    (cache / "real").mkdir()
    (cache / "go").symlink_to(cache / "real")
    assert linked.fetch("test/tiny", cache_dir=cache, offline=False)["table"].read_bytes() == b"data"


def test_a_network_error_is_one_line_naming_the_mirror_and_offline(tmp_path, monkeypatch):
    """Issue 27: fetching without a mirror, offline, printed urllib3's NameResolutionError."""
    monkeypatch.delenv("KGFS_DATA_MIRROR", raising=False)
    f = FileInfo("table", "ageing/x.arff", "0" * 64, url="http://kgfs-no-such-host.invalid/x.arff")
    reg = _registry({"table": f}, tmp_path / "root")
    with pytest.raises(KgfsError) as err:
        reg.fetch("test/tiny", cache_dir=tmp_path / "cache", offline=False, timeout=5)
    msg = str(err.value)
    assert "\n" not in msg and "NameResolutionError" not in msg and "HTTPConnectionPool" not in msg
    assert msg.startswith("cannot download ageing/x.arff from kgfs-no-such-host.invalid: the network is unreachable")
    assert "mirror='DIR' or KGFS_DATA_MIRROR, as DIR/ageing/x.arff" in msg and "KGFS_OFFLINE=1" in msg
