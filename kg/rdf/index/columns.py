"""The on-disk building blocks of the dump index: hashed keys, sorted key tables, string columns.

Everything is a plain NumPy ``.npy`` file (read with ``allow_pickle=False``, memory-mapped) or a
raw UTF-8 blob, so an index opens in milliseconds and a lookup touches a few pages, whatever
the size of the dump it came from.

- :func:`hash_keys`: the 128-bit BLAKE2b key of each string, as two ``uint64`` columns. Two
  distinct strings share a key with probability about ``n**2 / 2**129`` (``< 1e-20`` for a
  billion strings), so keys stand for the strings themselves.
- :class:`KeyTable`: keys sorted by ``(high, low)``; :meth:`KeyTable.find` gives the rows of
  each query key (a key may have several rows).
- :class:`StringColumn` / :class:`StringColumnWriter`: strings as one blob plus offsets, both
  written as they come (memory does not grow with the column).

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> keys = hash_keys(["b", "a", "c"])
>>> write_key_table(d, "k", keys, payload={"row": np.arange(3)})
>>> table = KeyTable(d, "k")
>>> query, rows = table.find(hash_keys(["c", "x", "a"]))
>>> query.tolist(), table.payload("row")[rows].tolist()
([0, 2], [2, 1])
"""

from __future__ import annotations

import hashlib
import os
from array import array
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from kg.rdf.index.extsort import ColumnReader, NpyWriter

__all__ = ["CheckedArray", "KeyTable", "StringColumn", "StringColumnWriter", "find_sorted", "hash_keys", "key_order",
           "load_array", "save_array", "unique_keys", "write_key_table"]


_OFFSETS_BLOCK = 1 << 16  # offsets of a string column buffered before they are written


def hash_keys(strings: Iterable[str]) -> np.ndarray:
    """The 128-bit BLAKE2b keys of strings (UTF-8), shape ``(n, 2)``, dtype ``uint64``.

    Parameters
    ----------
    strings : iterable of str

    Returns
    -------
    numpy.ndarray
        Row ``i`` is the key of the ``i``-th string (``(0, 2)`` for none).

    Examples
    --------
    >>> k = hash_keys(["Lyon", "Lyon", "lyon"])
    >>> k.shape, k.dtype.name, bool((k[0] == k[1]).all()), bool((k[0] == k[2]).all())
    ((3, 2), 'uint64', True, False)
    """
    b2 = hashlib.blake2b
    blob = b"".join([b2(s.encode("utf-8", "surrogatepass"), digest_size=16).digest() for s in strings])
    return np.frombuffer(blob, dtype="<u8").astype(np.uint64).reshape(-1, 2)


def save_array(path: Path, arr: np.ndarray) -> None:
    """Save one array as ``.npy`` (no pickled objects).

    Parameters
    ----------
    path : Path
    arr : numpy.ndarray

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.npy"
    >>> save_array(p, np.arange(3)); load_array(p).tolist()
    [0, 1, 2]
    """
    np.save(path, np.ascontiguousarray(arr), allow_pickle=False)


def load_array(path: Path, checks=None) -> np.ndarray:
    """An ``.npy`` array, memory-mapped (an empty array is read into memory: it cannot be mapped).

    Parameters
    ----------
    path : Path
    checks : kg.rdf.index.blocks.Checks, optional
        The block checksums of its folder: the whole file is verified first (once per process), so no
        damaged block is read (:class:`~kg.rdf.index.blocks.BlockDamaged` names it).

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    See :func:`save_array`.
    """
    if checks is not None:
        checks.file(path)
    try:
        return np.load(path, mmap_mode="r", allow_pickle=False)
    except ValueError:  # a zero-length array cannot be memory-mapped
        return np.load(path, allow_pickle=False)


class CheckedArray:
    """An ``.npy`` array, memory-mapped, whose reads verify the blocks they touch (not the whole file).

    For the arrays read by index (a table's payload: ``objects[rows]``): a read of ``k`` rows hashes at
    most the ``k`` blocks that hold them, the first time each is read in the process
    (:meth:`kg.rdf.index.blocks.Checks.rows`).

    Parameters
    ----------
    path : Path
    checks : kg.rdf.index.blocks.Checks, optional
        Its folder's block checksums (none: plain reads).
    row : int, optional
        Of a 2-D array, this row only (``(2, n)`` keys: the low halves are ``row=1``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.npy"
    >>> save_array(p, np.arange(10) * 2)
    >>> CheckedArray(p)[np.array([3, 1])].tolist(), len(CheckedArray(p))
    ([6, 2], 10)
    """

    def __init__(self, path: Path, checks=None, row: int | None = None):
        self.path, self.checks = Path(path), checks
        full = load_array(self.path)
        self.array = full if row is None else full[row]
        # an .npy file's data is at its end, in C order
        self.start = self.path.stat().st_size - full.nbytes + (0 if row is None else row * self.array.nbytes)

    def __len__(self) -> int:
        return len(self.array)

    def __getitem__(self, idx) -> np.ndarray:
        idx = np.asarray(idx, np.int64)
        if self.checks is not None and idx.size:
            self.checks.rows(self.path, self.start, self.array.itemsize, idx, len(self.array))
        return self.array[idx]


def key_order(keys: np.ndarray) -> np.ndarray:
    """The stable order of ``(n, 2)`` keys by ``(high, low)`` (as ``np.lexsort((low, high))``).

    Sorting by the high half alone is exact unless two keys share it with different low halves
    (about ``n**2 / 2**65``: practically never, but checked): a third of a two-key lexsort's time.

    Parameters
    ----------
    keys : numpy.ndarray
        ``(n, 2)`` ``uint64``.

    Returns
    -------
    numpy.ndarray
        Row indices.

    Examples
    --------
    >>> key_order(np.array([[2, 1], [1, 9], [2, 0], [2, 1]], np.uint64)).tolist()
    [1, 2, 0, 3]
    """
    order = np.argsort(keys[:, 0], kind="stable")
    high, low = keys[order, 0], keys[order, 1]
    if ((high[1:] == high[:-1]) & (low[1:] < low[:-1])).any():
        order = np.lexsort((keys[:, 1], keys[:, 0]))
    return order


def write_key_table(folder: Path, name: str, keys: np.ndarray, payload: Mapping[str, np.ndarray] | None = None) -> None:
    """Sort keys (and their payload rows with them) and save them as ``<name>.keys.npy`` + payloads.

    Parameters
    ----------
    folder : Path
    name : str
    keys : numpy.ndarray
        ``(n, 2)`` ``uint64`` from :func:`hash_keys`.
    payload : mapping of str to numpy.ndarray, optional
        Arrays of ``n`` rows saved as ``<name>.<field>.npy`` in key order.

    Examples
    --------
    See the module.
    """
    keys = np.asarray(keys, dtype=np.uint64).reshape(-1, 2)
    order = key_order(keys)
    save_array(folder / f"{name}.keys.npy", keys[order].T)  # (2, n): each half contiguous
    for field, values in (payload or {}).items():
        save_array(folder / f"{name}.{field}.npy", np.asarray(values)[order])


class KeyTable:
    """Sorted hashed keys on disk (from :func:`write_key_table`), looked up in batches.

    Parameters
    ----------
    folder : Path
    name : str
    checks : kg.rdf.index.blocks.Checks, optional
        Its folder's block checksums (every file read is verified first).

    Examples
    --------
    See the module.
    """

    def __init__(self, folder: Path, name: str, checks=None):
        self.folder, self.name, self.checks = Path(folder), name, checks
        path = self.folder / f"{name}.keys.npy"
        keys = load_array(path)
        self._high = keys[0]
        if checks is not None and len(self._high):  # searched: every block of the high halves is verified
            start = path.stat().st_size - keys.nbytes
            checks.spans(path, [start], [start + self._high.nbytes])
        self._low = CheckedArray(path, checks, row=1) if checks is not None else keys[1]  # read by row

    def __len__(self) -> int:
        return len(self._high)

    def payload(self, field: str) -> np.ndarray:
        """A payload array (memory-mapped), in key order.

        Parameters
        ----------
        field : str

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        See the module.
        """
        return load_array(self.folder / f"{self.name}.{field}.npy", self.checks)

    def find(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every ``(query index, row)`` pair whose keys are equal.

        Parameters
        ----------
        keys : numpy.ndarray
            ``(m, 2)`` ``uint64`` query keys.

        Returns
        -------
        query : numpy.ndarray
            Indices into ``keys`` (ascending), one per matching row.
        rows : numpy.ndarray
            The matching rows of the table.

        Examples
        --------
        See the module.
        """
        return find_sorted(self._high, self._low, keys)


def find_sorted(high: np.ndarray, low: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every ``(query index, row)`` pair of equal keys, the table's keys sorted by ``(high, low)``.

    Parameters
    ----------
    high, low : numpy.ndarray
        The two halves of the table's sorted keys (``uint64``).
    keys : numpy.ndarray
        ``(m, 2)`` ``uint64`` query keys.

    Returns
    -------
    query, rows : numpy.ndarray
        As :meth:`KeyTable.find`.

    Examples
    --------
    >>> k = np.array([[1, 5], [1, 6], [3, 0]], dtype=np.uint64)
    >>> [a.tolist() for a in find_sorted(k[:, 0], k[:, 1], np.array([[3, 0], [1, 6], [2, 0]], np.uint64))]
    [[0, 1], [2, 1]]
    """
    keys = np.asarray(keys, dtype=np.uint64).reshape(-1, 2)
    if not len(keys) or not len(high):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    # queries in key order touch the table's pages in order (and numpy's search reuses bounds)
    order = np.argsort(keys[:, 0], kind="stable")
    first = keys[order, 0]
    lo = np.searchsorted(high, first, "left")
    n = np.searchsorted(high, first, "right") - lo
    if not n.any():
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    query = np.repeat(order, n)
    rows = np.repeat(lo - (np.cumsum(n) - n), n) + np.arange(int(n.sum()))
    keep = np.asarray(low[rows]) == keys[query, 1]
    query, rows = query[keep], rows[keep]
    by_query = np.argsort(query, kind="stable")
    return query[by_query].astype(np.int64), rows[by_query].astype(np.int64)


def unique_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct keys, and the group of each input key.

    Parameters
    ----------
    keys : numpy.ndarray
        ``(n, 2)`` ``uint64``.

    Returns
    -------
    distinct : numpy.ndarray
        ``(k, 2)``, sorted by ``(high, low)``.
    inverse : numpy.ndarray
        ``distinct[inverse[i]] == keys[i]``.

    Examples
    --------
    >>> d, inv = unique_keys(np.array([[2, 1], [1, 9], [2, 1]], np.uint64))
    >>> d.tolist(), inv.tolist()
    ([[1, 9], [2, 1]], [1, 0, 1])
    """
    keys = np.asarray(keys, dtype=np.uint64).reshape(-1, 2)
    order = key_order(keys)
    ordered = keys[order]
    new = np.ones(len(keys), bool)
    new[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    group = np.cumsum(new) - 1
    inverse = np.empty(len(keys), np.int64)
    inverse[order] = group
    return ordered[new], inverse


class StringColumnWriter:
    """Append strings to ``<name>.bin`` (UTF-8) as they come, and their end offsets to ``<name>.offsets.npy``.

    Both files are written as the strings come (the offsets :data:`_OFFSETS_BLOCK` at a time), so
    memory does not grow with the column; :meth:`close` writes the offsets' header (their number).

    Parameters
    ----------
    folder : Path
    name : str

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> w = StringColumnWriter(d, "s")
    >>> w.add("Lyon"); w.add("Zürich"); w.close()
    2
    >>> col = StringColumn(d, "s")
    >>> len(col), col[1], col.take([1, 0])
    (2, 'Zürich', ['Zürich', 'Lyon'])
    """

    def __init__(self, folder: Path, name: str):
        self.folder, self.name = Path(folder), name
        self._fh = open(self.folder / f"{name}.bin", "wb")
        self._offsets_out = NpyWriter(self.folder / f"{name}.offsets.npy", np.int64)
        self._offsets = array("q", [0])  # the offsets not written yet
        self._pos = 0
        self._n = 0

    def add(self, s: str) -> None:
        """Append one string.

        Parameters
        ----------
        s : str

        Examples
        --------
        See the class.
        """
        b = s.encode("utf-8", "surrogatepass")
        self._fh.write(b)
        self._pos += len(b)
        self._offsets.append(self._pos)
        self._n += 1
        if len(self._offsets) >= _OFFSETS_BLOCK:
            self._flush()

    def _flush(self) -> None:
        self._offsets_out.write(np.frombuffer(self._offsets, dtype=np.int64))
        self._offsets = array("q")

    def extend(self, strings: list[str]) -> None:
        """Append several strings (one write).

        Parameters
        ----------
        strings : list of str

        Examples
        --------
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> w = StringColumnWriter(d, "s")
        >>> w.extend(["Lyon", "Zürich"]); w.add("Bern"); w.close()
        3
        >>> StringColumn(d, "s").take([1, 2])
        ['Zürich', 'Bern']
        """
        encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
        self._fh.write(b"".join(encoded))
        ends = np.cumsum(np.fromiter(map(len, encoded), np.int64, len(encoded))) + self._pos
        self._offsets.extend(ends.tolist())
        if len(ends):
            self._pos = int(ends[-1])
        self._n += len(encoded)
        if len(self._offsets) >= _OFFSETS_BLOCK:
            self._flush()

    def __len__(self) -> int:
        return self._n

    def close(self) -> int:
        """Finish the column; returns its number of strings.

        Returns
        -------
        int

        Examples
        --------
        See the class.
        """
        if not self._fh.closed:
            self._fh.close()
            self._flush()
            self._offsets_out.close()
        return len(self)


class StringColumn:
    """A column written by :class:`StringColumnWriter`, read on demand (memory-mapped).

    Parameters
    ----------
    folder : Path
    name : str
    checks : kg.rdf.index.blocks.Checks, optional
        Its folder's block checksums: the offsets are verified whole on open, the blob's blocks as the
        strings read cover them (once per process).

    Examples
    --------
    See :class:`StringColumnWriter`.
    """

    def __init__(self, folder: Path, name: str, checks=None):
        self._offsets_path = Path(folder) / f"{name}.offsets.npy"
        self._offsets = load_array(self._offsets_path, checks)
        self._checks = checks
        self._path = path = Path(folder) / f"{name}.bin"
        blob = np.memmap(path, dtype=np.uint8, mode="r") if path.stat().st_size else np.zeros(0, np.uint8)
        self._blob = memoryview(blob)  # slices of a memoryview cost a tenth of a memmap's

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __getitem__(self, i: int) -> str:
        a, b = int(self._offsets[i]), int(self._offsets[i + 1])
        if self._checks is not None:
            self._checks.spans(self._path, [a], [b])
        return str(self._blob[a:b], "utf-8", "surrogatepass")

    def take(self, rows: Sequence[int]) -> list[str]:
        """The strings of several rows.

        Parameters
        ----------
        rows : sequence of int

        Returns
        -------
        list of str

        Examples
        --------
        See :class:`StringColumnWriter`.
        """
        rows = np.asarray(rows, dtype=np.int64)
        if not len(rows):
            return []
        starts, stops = np.asarray(self._offsets[rows]), np.asarray(self._offsets[rows + 1])
        if self._checks is not None:
            self._checks.spans(self._path, starts, stops)
        blob, starts, stops = self._blob, starts.tolist(), stops.tolist()
        return [str(blob[a:b], "utf-8", "surrogatepass") for a, b in zip(starts, stops)]

    def read(self, rows: Sequence[int]) -> list[str]:
        """The strings of several rows, as :meth:`take`, read with ``pread`` (no mapped page stays resident).

        For a long pass that reads rows all over the column: :meth:`take` maps their pages into
        the process, up to the whole column.

        Parameters
        ----------
        rows : sequence of int

        Returns
        -------
        list of str

        Examples
        --------
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> w = StringColumnWriter(d, "s")
        >>> w.add("Lyon"); w.add("Zürich"); w.close()
        2
        >>> StringColumn(d, "s").read([1, 0])
        ['Zürich', 'Lyon']
        """
        rows = np.asarray(rows, dtype=np.int64).tolist()
        if not rows:
            return []
        offsets = ColumnReader(self._offsets_path)
        fd = os.open(self._path, os.O_RDONLY)
        try:
            spans = [offsets.read(r, 2).tolist() for r in rows]
            if self._checks is not None:  # the blocks these strings cover, verified before any is read
                self._checks.spans(self._path, [a for a, _ in spans], [b for _, b in spans])
            out = [os.pread(fd, b - a, a).decode("utf-8", "surrogatepass") for a, b in spans]
            return out
        finally:
            os.close(fd)
            offsets.close()

    def __iter__(self):
        """All strings in order, read in blocks with plain reads (the pages stay out of the process)."""
        step = 1 << 16
        if self._checks is not None:  # read whole: verified whole first
            self._checks.file(self._path)
        with open(self._path, "rb") as fh, open(self._offsets_path, "rb") as fo:
            version = np.lib.format.read_magic(fo)  # the offsets are read too, not mapped
            (np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0)(fo)
            first = np.fromfile(fo, self._offsets.dtype, 1)
            for a in range(0, len(self), step):
                b = min(len(self), a + step)
                off = np.concatenate([first, np.fromfile(fo, self._offsets.dtype, b - a)])
                first = off[-1:]
                chunk = fh.read(int(off[-1] - off[0]))
                ends = (off[1:] - off[0]).tolist()
                start = 0
                for e in ends:
                    yield chunk[start:e].decode("utf-8", "surrogatepass")
                    start = e
