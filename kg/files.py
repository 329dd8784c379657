"""Files: atomic writes and content hashes (the one implementation every part of kgfs uses)."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write", "current_umask", "sha256_file"]

_CHUNK = 1 << 20


def current_umask() -> int:
    """The process's umask, read without changing it.

    ``os.umask`` can only be read by setting it, which races with other threads creating files;
    Linux reports it in ``/proc/self/status`` instead. Elsewhere it is set and restored at once.

    Returns
    -------
    int
        The permission bits a new file or folder does not get (``0o022`` usually).

    Examples
    --------
    >>> 0 <= current_umask() <= 0o777
    True
    """
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike, write) -> None:
    """Call ``write(tmp_path)`` and move the result onto ``path`` atomically.

    A crash leaves either the old file or no file, never a half-written one. The file gets the
    mode of any newly created file, ``0o666`` less the umask (``0o644`` under umask 022), not
    the private ``0o600`` of a temporary file.

    Parameters
    ----------
    path : str or os.PathLike
        The file to (re)write; its folder is created when missing.
    write : callable
        ``write(tmp_path)`` writes the whole content to ``tmp_path`` (a file in the same folder).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> atomic_write(p, lambda tmp: tmp.write_text("hello"))
    >>> p.read_text()
    'hello'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        try:
            os.fchmod(fd, 0o666 & ~current_umask())
        finally:
            os.close(fd)
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError) and exc.filename is None and exc.errno is not None:
            # a write's error names no file (a full disk: "[Errno 28] No space left on device"): say which
            raise OSError(exc.errno, exc.strerror, str(path)) from exc  # OSError picks the subclass of the errno
        raise


def sha256_file(path: str | os.PathLike, *, gunzip: bool = False) -> str:
    """The sha256 (hex) of a file's bytes, read in 1 MiB chunks.

    Parameters
    ----------
    path : str or os.PathLike
    gunzip : bool
        Hash the decompressed content of a gzip file instead (re-compressing a file changes
        its bytes, not its content).

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = p.write_bytes(b"abc")
    >>> sha256_file(p)[:16]
    'ba7816bf8f01cfea'
    """
    h = hashlib.sha256()
    with (gzip.open(path, "rb") if gunzip else open(path, "rb")) as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


@contextlib.contextmanager
def file_lock(path: str | os.PathLike):
    """An exclusive advisory lock on the file ``path`` between processes (created, with its folder, when
    missing; held until the block ends; a no-op where ``fcntl`` is missing, Windows).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with file_lock(pathlib.Path(tempfile.mkdtemp()) / "sub" / ".lock"):
    ...     pass
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    with open(path, "a+b") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
