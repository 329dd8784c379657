"""kg.files: atomic writes (whole files, the user's umask) and content hashes."""

from __future__ import annotations

import os
import stat
import threading

import pytest

import kg.files
from kg.files import atomic_write, sha256_file


@pytest.fixture
def umask():
    """Set the process umask for one test, restoring it afterwards."""
    old = os.umask(0o022)
    os.umask(old)
    yield lambda mask: os.umask(mask)
    os.umask(old)


def _mode(p) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


@pytest.mark.parametrize("mask, expected", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_atomic_write_follows_the_umask(tmp_path, umask, mask, expected):
    umask(mask)
    p = tmp_path / "sub" / "a.txt"
    atomic_write(p, lambda tmp: tmp.write_text("x"))
    assert _mode(p) == expected
    # a rewrite gets the same mode (not the temporary file's 0600)
    atomic_write(p, lambda tmp: tmp.write_text("y"))
    assert _mode(p) == expected and p.read_text() == "y"
    assert [q.name for q in p.parent.iterdir()] == ["a.txt"]


def test_umask_is_read_without_changing_it(umask, monkeypatch):
    from kg.files import current_umask

    umask(0o027)
    assert current_umask() == 0o027
    # without /proc (another system), the fallback gives the same answer and restores the umask
    def no_proc(*args, **kwargs):
        raise OSError("no /proc here")

    monkeypatch.setattr(kg.files, "open", no_proc, raising=False)
    assert current_umask() == 0o027
    assert os.umask(0o027) == 0o027


def test_umask_of_other_threads_is_not_disturbed(tmp_path, umask):
    """Reading the umask (on Linux) never sets it, so a thread creating files meanwhile keeps its mode."""
    umask(0o022)
    seen = []

    def create(i):
        p = tmp_path / f"plain{i}"
        p.write_text("x")
        seen.append(_mode(p))

    threads = [threading.Thread(target=create, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for i in range(200):
        atomic_write(tmp_path / f"a{i}", lambda tmp: tmp.write_text("x"))
    for t in threads:
        t.join()
    assert set(seen) == {0o644}


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    p = tmp_path / "a.txt"
    p.write_text("old")

    def broken(tmp):
        tmp.write_text("half")
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        atomic_write(p, broken)
    assert p.read_text() == "old" and [q.name for q in tmp_path.iterdir()] == ["a.txt"]


def test_sha256_of_gzip_content(tmp_path):
    import gzip

    (tmp_path / "a.txt").write_bytes(b"abc")
    with gzip.open(tmp_path / "a.txt.gz", "wb") as fh:
        fh.write(b"abc")
    assert sha256_file(tmp_path / "a.txt.gz", gunzip=True) == sha256_file(tmp_path / "a.txt")


def test_atomic_write_names_the_file_of_an_error_that_names_none(tmp_path):
    import errno

    def full(tmp):
        raise OSError(errno.ENOSPC, "No space left on device")  # what write() raises on a full disk

    with pytest.raises(OSError) as e:
        atomic_write(tmp_path / "a.json", full)
    assert e.value.errno == errno.ENOSPC and e.value.filename == str(tmp_path / "a.json")
    assert list(tmp_path.iterdir()) == []
