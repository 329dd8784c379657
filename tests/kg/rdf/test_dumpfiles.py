import bz2

import pytest

from kg.errors import InputFormatError, KgfsError
from kg.rdf.dumpfiles import DumpReader, dump_files, iter_triples


def test_turtle_errors_cannot_be_skipped(tmp_path):
    p = tmp_path / "d.ttl"
    p.write_text("@prefix x: <http://x/> .\nx:a x:b x:c .\nx:a x:b \"oops .\n")
    with pytest.raises(InputFormatError, match=r"d\.ttl:3: .*cannot be skipped"):
        list(iter_triples(p, skip_bad_lines=True))


def test_dump_file_discovery(tmp_path, kg_dump_dir):
    assert [p.name for p in dump_files(kg_dump_dir)] == ["instances.nt", "ontology.owl"]
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(KgfsError, match="no dump files"):
        dump_files(tmp_path)
    with pytest.raises(InputFormatError, match="unknown dump format"):
        dump_files(tmp_path / "notes.txt")
    with pytest.raises(FileNotFoundError):
        dump_files(tmp_path / "missing.nt")


def test_bz2_is_decompressed_beside_the_parser_and_a_corrupt_file_is_named(kg_dump_dir, tmp_path):
    """``.bz2`` goes through ``bzip2 -dc`` (another core): same triples, the file's own sha256, no child left."""
    import hashlib

    import psutil

    plain = (kg_dump_dir / "instances.nt").read_bytes()
    good = tmp_path / "i.nt.bz2"
    good.write_bytes(bz2.compress(plain * 40))
    reader = DumpReader(good)
    assert sum(1 for _ in reader) == 40 * len(list(iter_triples(kg_dump_dir / "instances.nt")))
    assert reader.sha256 == hashlib.sha256(good.read_bytes()).hexdigest() and reader.bytes_read == reader.size
    it = iter(DumpReader(good))
    next(it)
    it.close()  # a reader stopped early ends its decompressor
    assert not [c for c in psutil.Process().children() if "bzip2" in " ".join(c.cmdline())]
    data = good.read_bytes()
    for name, blob in (("cut", data[:len(data) // 2]), ("garbled", data[:200] + b"x" * 500 + data[700:])):
        (tmp_path / f"{name}.nt.bz2").write_bytes(blob)
        with pytest.raises(InputFormatError, match=rf"{name}\.nt\.bz2: cannot read dump \((lbzip2|bzip2): "):
            sum(1 for _ in DumpReader(tmp_path / f"{name}.nt.bz2", skip_bad_lines=name == "cut"))
