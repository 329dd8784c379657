"""The line filter in a process of its own (kg.rdf.lineblocks.FilterProcess, kg.rdf.prefilter): the same triples,
line numbers, counts and sha256 as in this process, for .nt, .nt.gz and .nt.bz2; a bad line named by its line in
the file; a corrupt file named; a reader stopped early ends the child; a child that dies is said, never taken for
the end of the file."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import os
import signal

import psutil
import pytest

import kg.rdf.dumpfiles as dumpfiles
from kg.errors import InputFormatError, KgfsError
from kg.rdf.dumpfiles import DumpReader
from kg.rdf.index.ingest import line_filter
from kg.rdf.lineblocks import FilterProcess
from kg.rdf.vocabulary import WIKIDATA

WD, WDT = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


def _lines(n: int) -> list[str]:
    out = ["# a comment line, as some dumps begin", ""]
    for i in range(n):
        q = f"<{WD}Q{i}>"
        out += [f'{q} <{LABEL}> "item {i}"@en .', f'{q} <{LABEL}> "Ding {i}"@de .',
                f"{q} <{WDT}P31> <{WD}Q{i % 7}> .", f'{q} <{WDT}P569> "1952-03-11"^^<http://x/date> .',
                f"{q} <{WDT}P19> <{WD}Q{(i * 13) % n}> .", f'{q} <http://schema.org/description> "d {i}"@en .']
    return out


def _write(path, lines: list[str]) -> None:
    data = "".join(x + "\n" for x in lines).encode()
    opener = {".gz": gzip.compress, ".bz2": bz2.compress}.get(path.suffix, lambda b: b)
    path.write_bytes(opener(data))


def _read(path, monkeypatch, in_child: bool, **kw):
    monkeypatch.setattr(dumpfiles, "FILTER_PROCESS_MIN_BYTES", 0 if in_child else 1 << 62)
    monkeypatch.setattr(dumpfiles, "_cores", lambda: 2)
    filt = line_filter(WIKIDATA.with_relations())
    reader = DumpReader(path, line_filter=filt, **kw)
    quads = [str(q) for q in reader]
    assert isinstance(reader._blocks, FilterProcess) is in_child
    return quads, reader.lines, reader.sha256, reader.bytes_read, filt.seen, filt.kept


@pytest.mark.parametrize("name", ["d.nt", "d.nt.gz", "d.nt.bz2"])
def test_the_child_gives_what_this_process_gives(tmp_path, monkeypatch, name):
    path = tmp_path / name
    _write(path, _lines(3000))
    here = _read(path, monkeypatch, in_child=False)
    there = _read(path, monkeypatch, in_child=True)
    assert there == here
    quads, lines, sha, count, seen, kept = there
    assert len(quads) == 3 * 3000 and lines == seen == 2 + 6 * 3000 and kept == 3 * 3000
    assert sha == hashlib.sha256(path.read_bytes()).hexdigest() and count == path.stat().st_size


def test_a_bad_line_is_named_by_its_line_in_the_file_from_the_child(tmp_path, monkeypatch):
    lines = _lines(2000)
    lines[5003] = f"<{WD}Q1> <{WDT}P31> <not an iri> ."
    path = tmp_path / "bad.nt"
    _write(path, lines)
    for in_child in (False, True):
        with pytest.raises(InputFormatError, match=r"bad\.nt:5004: malformed RDF"):
            _read(path, monkeypatch, in_child)
        bad: list = []
        quads = _read(path, monkeypatch, in_child, skip_bad_lines=True, bad_lines=bad)[0]
        assert len(quads) == 3 * 2000 and [b[1] for b in bad] == [5004]  # it replaced a line not kept


def test_a_corrupt_file_is_named_by_the_child(tmp_path, monkeypatch):
    good = tmp_path / "g.nt.bz2"
    _write(good, _lines(3000))
    data = good.read_bytes()
    cut = tmp_path / "cut.nt.bz2"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputFormatError, match=r"cut\.nt\.bz2: cannot read dump \((lbzip2|bzip2): "):
        _read(cut, monkeypatch, in_child=True)


def _children() -> list:
    return [c for c in psutil.Process().children(recursive=True) if "kg.rdf.prefilter" in " ".join(c.cmdline())]


def test_a_reader_stopped_early_ends_the_child_and_a_dead_child_is_said(tmp_path, monkeypatch):
    path = tmp_path / "d.nt"
    _write(path, _lines(20000))  # more than a pipe holds: the child is still writing when it is stopped
    monkeypatch.setattr(dumpfiles, "FILTER_PROCESS_MIN_BYTES", 0)
    monkeypatch.setattr(dumpfiles, "_cores", lambda: 2)
    it = iter(DumpReader(path, line_filter=line_filter(WIKIDATA)))
    next(it)
    assert _children()
    it.close()
    assert not _children()
    reader = DumpReader(path, line_filter=line_filter(WIKIDATA))
    it = iter(reader)
    next(it)
    os.kill(reader._blocks._proc.pid, signal.SIGKILL)
    with pytest.raises(KgfsError, match=r"d\.nt: the line filter's process ended early \(exit status -9\)"):
        sum(1 for _ in it)
    assert reader.sha256 is None and not _children()  # never reported as read to the end
