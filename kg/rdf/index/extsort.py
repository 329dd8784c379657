"""External sorting: rows that do not fit in memory, sorted in runs on disk and merged in blocks.

The dump index is built from tables far larger than the memory an ingest may use (the subject of
every ``wdt:P31`` statement of Wikidata, the surface form of every label): they are gathered as
named NumPy columns, sorted in *runs* of bounded size spilled to disk, and read back in key order
by a block-wise k-way merge (:meth:`SortedRuns.merged`), so memory depends on the run and block
sizes, never on the table. The budget is small (:data:`DEFAULT_BUDGET`): the rows of a large dump
spill early, and an ingest's peak memory is about the same at 20 million triples as at a billion.
A table of more than :data:`MAX_RUNS` runs has them merged into one as they come (the files a
merge opens at once stay few).

- :class:`SpillPool`: the memory budget shared by every :class:`SortedRuns` of an ingest (the one
  holding the most rows spills first when the sum is over budget);
- :class:`SortedRuns`: add columns, read them back sorted by some of them;
- :class:`NpyWriter`: an ``.npy`` file written block by block with plain writes (its length is
  known at the end);
- :class:`ColumnReader`: slices of an ``.npy`` file read with plain reads.

Files are read and written with ``read``/``write``, not memory-mapped: mapped pages would count in
the process's resident memory while an ingest streams gigabytes through them.

Freed blocks go back to the system: glibc's ``malloc`` serves a block under its *mmap threshold*
from its heap, which keeps freed memory, and raises that threshold (up to 32 MB) each time a larger
block is freed; the blocks of a sort (megabytes each) would then pile up in the heap, resident
after they are freed (hundreds of megabytes after a segment's pass). A :class:`SpillPool` fixes
the threshold at :data:`MMAP_THRESHOLD` (:func:`return_freed_memory`), so such blocks are mapped
and unmapped when freed.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> runs = SortedRuns(d, "t", key=("k",), pool=SpillPool(budget_bytes=16))  # tiny: every add spills
>>> for k in ([5, 1], [4, 2], [3, 3]):
...     runs.add(k=np.array(k, np.uint64), v=np.array(k, np.int32) * 10)
>>> [b["k"].tolist() for b in runs.merged()]
[[1, 2, 3, 3, 4, 5]]
>>> runs.n_runs, len(runs)
(3, 6)
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

__all__ = ["BLOCK_ROWS", "DEFAULT_BUDGET", "MAX_RUNS", "ColumnReader", "NpyWriter", "SortedRuns", "SpillPool", "lex_le",
           "return_freed_memory", "sort_order", "write_pair_array"]

_HEADER = 128  # bytes reserved for an .npy header written before the data's length is known
#: The default budget of a :class:`SpillPool`: small enough that a large dump's rows spill early (the peak
#: memory of an ingest is then about the same from tens of millions of triples on), large enough that a run
#: holds millions of rows.
DEFAULT_BUDGET = 32 << 20
#: Rows of a block read by :meth:`SortedRuns.merged` (a merge holds a few copies of one block at a time).
BLOCK_ROWS = 1 << 18
#: Runs a :class:`SortedRuns` keeps before it merges them into one (a merge opens every run's columns at once).
MAX_RUNS = 64
#: Bytes from which glibc's malloc maps a block by itself (returned to the system when freed).
MMAP_THRESHOLD = 256 << 10
_M_MMAP_THRESHOLD = -3  # mallopt's parameter (malloc.h)
_malloc_set: list[bool] = []


def return_freed_memory() -> bool:
    """Make glibc's ``malloc`` give freed blocks of :data:`MMAP_THRESHOLD` bytes or more back to the system.

    Sets its mmap threshold once per process (which also stops glibc from raising it); does
    nothing without glibc.

    Returns
    -------
    bool
        Whether the threshold is set.

    Examples
    --------
    >>> return_freed_memory() in (True, False)
    True
    """
    if not _malloc_set:
        ok = False
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            ok = bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
        except (OSError, AttributeError):  # no glibc (another C library, or another system)
            pass
        _malloc_set.append(ok)
    return _malloc_set[0]


def sort_order(columns: Sequence[np.ndarray]) -> np.ndarray:
    """The stable order of rows by several columns (the first most significant).

    Sorting by the first column alone is enough unless equal values of it come with other
    columns out of order (checked): then a full ``lexsort``.

    Parameters
    ----------
    columns : sequence of numpy.ndarray

    Returns
    -------
    numpy.ndarray
        Row indices (int64).

    Examples
    --------
    >>> sort_order([np.array([2, 1, 2]), np.array([1, 5, 0])]).tolist()
    [1, 2, 0]
    """
    order = np.argsort(columns[0], kind="stable")
    if len(columns) == 1 or len(order) < 2:
        return order
    first = columns[0][order]
    tie = np.flatnonzero(first[1:] == first[:-1])
    if len(tie):
        rest = [c[order] for c in columns[1:]]
        a, b = tie, tie + 1
        le, eq = np.zeros(len(tie), bool), np.ones(len(tie), bool)
        for c in rest:
            le |= eq & (c[a] < c[b])
            eq &= c[a] == c[b]
        if not (le | eq).all():
            return np.lexsort(tuple(reversed(columns)))
    return order


def lex_le(columns: Sequence[np.ndarray], bound: Sequence) -> np.ndarray:
    """Which rows are ``<=`` a key, comparing the columns lexicographically.

    Parameters
    ----------
    columns : sequence of numpy.ndarray
    bound : sequence
        One value per column.

    Returns
    -------
    numpy.ndarray of bool

    Examples
    --------
    >>> lex_le([np.array([1, 2, 2, 3]), np.array([9, 0, 5, 0])], (2, 4)).tolist()
    [True, True, False, False]
    """
    n = len(columns[0])
    less, eq = np.zeros(n, bool), np.ones(n, bool)
    for c, b in zip(columns, bound):
        less |= eq & (c < b)
        eq &= c == b
    return less | eq


class SpillPool:
    """The memory budget of the rows held by several :class:`SortedRuns` before they spill.

    Parameters
    ----------
    budget_bytes : int
        When the rows held by all members pass this, the member holding the most spills a run
        (:data:`DEFAULT_BUDGET` by default).

    Examples
    --------
    >>> SpillPool(budget_bytes=1 << 20).budget_bytes
    1048576
    """

    def __init__(self, budget_bytes: int = DEFAULT_BUDGET):
        self.budget_bytes = int(budget_bytes)
        self.members: list[SortedRuns] = []
        return_freed_memory()  # else the freed blocks of sorts stay resident (see the module)

    def held(self) -> int:
        """Bytes of rows held in memory by the members.

        Returns
        -------
        int

        Examples
        --------
        >>> SpillPool().held()
        0
        """
        return sum(m.held_bytes for m in self.members)

    def check(self) -> None:
        """Spill the largest members until the rows held fit the budget.

        Examples
        --------
        See the module.
        """
        while self.members and self.held() > self.budget_bytes:
            # a member being read from memory is not spilled: its rows stay alive for its reader anyway
            largest = max((m for m in self.members if not m._reading), key=lambda m: m.held_bytes, default=None)
            if largest is None or not largest.held_bytes:
                return
            largest.spill()


class SortedRuns:
    """Rows of named columns, sorted by ``key`` in runs (spilled to ``folder``) and merged on reading.

    Parameters
    ----------
    folder : path
        Where runs are written (``<name>.run<k>.<column>.npy``); :meth:`close` removes them.
    name : str
    key : sequence of str
        The columns to sort by, most significant first. Rows with equal keys come out in no
        particular order: add a sequence column to the key when their order matters.
    pool : SpillPool, optional
        The shared budget (a private pool of the default size otherwise).

    Examples
    --------
    See the module.
    """

    def __init__(self, folder, name: str, key: Sequence[str], *, pool: SpillPool | None = None):
        self.folder, self.name, self.key = Path(folder), name, tuple(key)
        self.pool = pool or SpillPool()
        self.pool.members.append(self)
        self._pieces: list[dict[str, np.ndarray]] = []
        self.held_bytes = 0
        self._runs: list[dict[str, Path]] = []
        self._lengths: list[int] = []
        self._columns: dict[str, np.dtype] | None = None
        self._n = 0
        self._made = 0  # run files named so far
        self._reading = 0  # readers of the rows held in memory (while any, the pool does not spill them)

    def __len__(self) -> int:
        return self._n

    @property
    def n_runs(self) -> int:
        """Runs written to disk so far.

        Returns
        -------
        int

        Examples
        --------
        See the module.
        """
        return len(self._runs)

    def add(self, **columns: np.ndarray) -> None:
        """Add rows: one array per column, all of the same length (the same columns every time).

        Parameters
        ----------
        **columns : numpy.ndarray

        Examples
        --------
        See the module.
        """
        cols = {k: np.asarray(v) for k, v in columns.items()}
        lengths = {len(v) for v in cols.values()}
        if len(lengths) != 1:
            raise ValueError(f"{self.name}: columns of different lengths {sorted(lengths)}")
        if self._columns is None:
            missing = [k for k in self.key if k not in cols]
            if missing:
                raise ValueError(f"{self.name}: no key column(s) {missing}")
            self._columns = {k: v.dtype for k, v in cols.items()}
        elif set(cols) != set(self._columns):
            raise ValueError(f"{self.name}: columns {sorted(cols)}, expected {sorted(self._columns)}")
        n = lengths.pop()
        if not n:
            return
        self._pieces.append({k: cols[k].astype(t, copy=False) for k, t in self._columns.items()})
        self.held_bytes += sum(v.nbytes for v in self._pieces[-1].values())
        self._n += n
        self.pool.check()

    def _sorted_columns(self) -> Iterator[tuple[str, np.ndarray]]:
        """The rows held, sorted, one column at a time; each piece is freed when copied, so a caller that writes
        each column out holds one sorted column at a time (not a second copy of them all)."""
        pieces, self._pieces, self.held_bytes = self._pieces, [], 0
        keys = {k: np.concatenate([p.pop(k) for p in pieces]) for k in self.key}
        order = sort_order(list(keys.values()))
        for k in self._columns:
            v = keys.pop(k) if k in keys else np.concatenate([p.pop(k) for p in pieces])
            out = v[order]
            del v
            yield k, out
            del out

    def spill(self) -> None:
        """Sort the rows held in memory and write them as a run.

        Examples
        --------
        See the module.
        """
        if not self._pieces:
            return
        paths = self._run_paths()
        n = 0
        for name, values in self._sorted_columns():
            with NpyWriter(paths[name], values.dtype) as w:
                w.write(values)
            n = len(values)
            del values
        self._runs.append(paths)
        self._lengths.append(n)
        if len(self._runs) >= MAX_RUNS:
            self._compact()

    def _run_paths(self) -> dict[str, Path]:
        self._made += 1
        return {name: self.folder / f"{self.name}.run{self._made}.{name}.npy" for name in self._columns}

    def _compact(self) -> None:
        """Merge every run into one (so that a merge never opens more than :data:`MAX_RUNS` runs' files)."""
        paths = self._run_paths()
        writers = {k: NpyWriter(p, self._columns[k]) for k, p in paths.items()}
        try:
            for b in _merge(self._runs, self._lengths, self.key, BLOCK_ROWS, 0, self._columns):
                for k, w in writers.items():
                    w.write(b[k])
        finally:
            for w in writers.values():
                w.close()
        for old in self._runs:
            for p in old.values():
                p.unlink(missing_ok=True)
        self._runs, self._lengths = [paths], [writers[self.key[0]].n]

    def merged(self, block_rows: int = BLOCK_ROWS, group: int = 0) -> Iterator[dict[str, np.ndarray]]:
        """Every row, in key order, in blocks of about ``block_rows``.

        Parameters
        ----------
        block_rows : int
        group : int
            With ``group=k``, no block ends inside a group of rows sharing their first ``k`` key
            columns (a group may make a block longer).

        Yields
        ------
        dict of str -> numpy.ndarray

        Examples
        --------
        See the module.
        """
        if self._columns is None:
            return
        if not self._runs:  # everything fits in memory: one sorted run, no disk
            if not self._pieces:
                return
            cols = dict(self._sorted_columns())
            self._pieces, self.held_bytes = [dict(cols)], sum(v.nbytes for v in cols.values())  # it may be read again
            self._reading += 1
            try:
                yield from _blocks(cols, self.key[:group], block_rows)
            finally:
                self._reading -= 1
            return
        self.spill()
        yield from _merge(self._runs, self._lengths, self.key, block_rows, group, self._columns)

    def close(self) -> None:
        """Remove the runs' files and leave the pool.

        Examples
        --------
        See the module.
        """
        for paths in self._runs:
            for p in paths.values():
                p.unlink(missing_ok=True)
        self._runs, self._lengths, self._pieces, self.held_bytes = [], [], [], 0
        if self in self.pool.members:
            self.pool.members.remove(self)

    def __enter__(self) -> SortedRuns:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _group_end(cols: dict[str, np.ndarray], group_key: Sequence[str]) -> int:
    """Rows before the last group (the rows sharing the last row's group columns)."""
    n = len(cols[group_key[0]])
    same = np.ones(n, bool)
    for k in group_key:
        c = cols[k]
        same &= c == c[-1]
    return int(np.flatnonzero(~same)[-1]) + 1 if not same.all() else 0


def _blocks(cols: dict[str, np.ndarray], group_key: Sequence[str], block_rows: int) -> Iterator[dict]:
    n = len(next(iter(cols.values())))
    a = 0
    while a < n:
        b = min(n, a + block_rows)
        if group_key and b < n:  # extend to the end of the group at b
            same = np.ones(n - b, bool)
            for k in group_key:
                same &= cols[k][b:] == cols[k][b - 1]
            stop = np.flatnonzero(~same)
            b = b + (int(stop[0]) if len(stop) else n - b)
        yield {k: v[a:b] for k, v in cols.items()}
        a = b


def _merge(runs, lengths, key, block_rows: int, group: int, dtypes) -> Iterator[dict[str, np.ndarray]]:
    readers = [{k: ColumnReader(p) for k, p in paths.items()} for paths in runs]
    per = max(1, block_rows // max(1, len(runs)))
    pos = [0] * len(runs)
    bufs: list[dict[str, np.ndarray] | None] = [None] * len(runs)
    carry: dict[str, np.ndarray] | None = None
    group_key = key[:group]
    try:
        while True:
            for r in range(len(runs)):
                if (bufs[r] is None or not len(bufs[r][key[0]])) and pos[r] < lengths[r]:
                    m = min(per, lengths[r] - pos[r])
                    bufs[r] = {k: rd.read(pos[r], m) for k, rd in readers[r].items()}
                    pos[r] += m
            active = [r for r in range(len(runs)) if bufs[r] is not None and len(bufs[r][key[0]])]
            if not active:
                break
            limited = [r for r in active if pos[r] < lengths[r]]
            bound = min((tuple(bufs[r][k][-1] for k in key) for r in limited), default=None)
            taken = []
            for r in active:
                b = bufs[r]
                n = len(b[key[0]]) if bound is None else int(lex_le([b[k] for k in key], bound).sum())
                if n:
                    taken.append({k: v[:n] for k, v in b.items()})
                    bufs[r] = {k: v[n:] for k, v in b.items()}
            if carry is not None:
                taken.insert(0, carry)
                carry = None
            cols = {k: np.concatenate([t[k] for t in taken]) for k in dtypes}
            order = sort_order([cols[k] for k in key])
            cols = {k: v[order] for k, v in cols.items()}
            finished = all(pos[r] >= lengths[r] and not len(bufs[r][key[0]]) for r in range(len(runs))
                           if bufs[r] is not None)
            if group_key and not finished:
                end = _group_end(cols, group_key)
                carry = {k: v[end:] for k, v in cols.items()}
                cols = {k: v[:end] for k, v in cols.items()}
            if len(cols[key[0]]):
                yield cols
        if carry is not None and len(carry[key[0]]):
            yield carry
    finally:
        for rd in readers:
            for c in rd.values():
                c.close()


class NpyWriter:
    """An ``.npy`` file of a 1-D array written block by block (plain writes; the length is known at the end).

    Parameters
    ----------
    path : path
    dtype : numpy.dtype

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.npy"
    >>> with NpyWriter(p, np.int64) as w:
    ...     w.write(np.arange(3)); w.write(np.arange(2))
    >>> np.load(p).tolist()
    [0, 1, 2, 0, 1]
    """

    def __init__(self, path, dtype):
        self.path, self.dtype = Path(path), np.dtype(dtype)
        self._fh = open(self.path, "wb")
        self._fh.write(b"\0" * _HEADER)
        self.n = 0

    def write(self, values: np.ndarray) -> None:
        """Append values (cast to the file's dtype).

        Parameters
        ----------
        values : numpy.ndarray

        Examples
        --------
        See the class.
        """
        a = np.ascontiguousarray(values, dtype=self.dtype)
        self._fh.write(memoryview(a).cast("B"))  # the array's bytes, not a copy of them
        self.n += len(a)

    def close(self) -> None:
        """Write the header (the final length) and close.

        Examples
        --------
        See the class.
        """
        if self._fh.closed:
            return
        self._fh.seek(0)
        self._fh.write(_npy_header(self.dtype, (self.n,)))
        self._fh.close()

    def __enter__(self) -> NpyWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _npy_header(dtype: np.dtype, shape: tuple) -> bytes:
    """A version 1.0 ``.npy`` header padded to :data:`_HEADER` bytes."""
    d = f"{{'descr': {np.lib.format.dtype_to_descr(dtype)!r}, 'fortran_order': False, 'shape': {shape!r}, }}"
    head = b"\x93NUMPY\x01\x00"
    body = d.encode("latin1")
    pad = _HEADER - len(head) - 2 - len(body) - 1
    if pad < 0:
        raise ValueError("npy header too long")
    body = body + b" " * pad + b"\n"
    return head + len(body).to_bytes(2, "little") + body


def write_pair_array(path, first: Path, second: Path, dtype, n: int) -> None:
    """Write a ``(2, n)`` ``.npy`` from two raw files of ``n`` values each (their bytes copied in blocks).

    Parameters
    ----------
    path : path
    first, second : Path
        Raw little-endian values (no header), removed afterwards.
    dtype : numpy.dtype
    n : int

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a").write_bytes(np.arange(2, dtype="<u8").tobytes())
    >>> _ = (d / "b").write_bytes(np.arange(5, 7, dtype="<u8").tobytes())
    >>> write_pair_array(d / "k.npy", d / "a", d / "b", np.uint64, 2)
    >>> np.load(d / "k.npy").tolist()
    [[0, 1], [5, 6]]
    """
    with open(path, "wb") as out:
        out.write(_npy_header(np.dtype(dtype), (2, int(n))))
        for src in (first, second):
            with open(src, "rb") as fh:
                while chunk := fh.read(16 << 20):
                    out.write(chunk)
            Path(src).unlink()


class ColumnReader:
    """Slices of a 1-D ``.npy`` file (or of one row of a 2-D one), read with ``pread`` (no memory map).

    Parameters
    ----------
    path : path
    row : int, optional
        For a 2-D C-ordered array: the row read (the keys of :func:`write_pair_array` have two).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.npy"
    >>> np.save(p, np.arange(10, dtype=np.int32))
    >>> r = ColumnReader(p)
    >>> len(r), r.read(3, 4).tolist()
    (10, [3, 4, 5, 6])
    >>> r.close()
    """

    def __init__(self, path, row: int | None = None):
        self.path = Path(path)
        self._fd = os.open(self.path, os.O_RDONLY)
        with open(self.path, "rb") as fh:
            version = np.lib.format.read_magic(fh)
            read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                np.lib.format.read_array_header_2_0
            shape, fortran, dtype = read_header(fh)
            self._offset = fh.tell()
        if fortran or len(shape) != (1 if row is None else 2):
            os.close(self._fd)
            raise ValueError(f"{path}: expected a {'1' if row is None else '2'}-D C-ordered array, got shape {shape}")
        self.dtype, self.n = np.dtype(dtype), int(shape[-1])
        if row is not None:
            self._offset += int(row) * self.n * self.dtype.itemsize

    def __len__(self) -> int:
        return self.n

    def read(self, start: int, count: int) -> np.ndarray:
        """Values ``start .. start + count - 1``.

        Parameters
        ----------
        start, count : int

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        See the class.
        """
        size = self.dtype.itemsize
        data = os.pread(self._fd, int(count) * size, self._offset + int(start) * size)
        return np.frombuffer(data, dtype=self.dtype).copy() if data else np.zeros(0, self.dtype)

    def close(self) -> None:
        """Close the file.

        Examples
        --------
        See the class.
        """
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
