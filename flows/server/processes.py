"""Processes kgfs starts: children that die with it, and servers it keeps on purpose.

*Children* (the temporary Prefect API server, loky and Dask worker processes, the flow runs of
``kgfs serve``) must not outlive the kgfs process, also when it is killed with SIGKILL and none of
its own cleanup runs. :func:`start_watchdog` starts a small separate process that waits for kgfs
to end (a ``pidfd`` on Linux, polling elsewhere) and then terminates every process that carries
kgfs's *marker*: the environment variable :data:`MARKER_ENV`, which the caller puts in its
environment, so every child, grandchild and worker inherits it (SIGTERM, SIGKILL after a grace
period). The watchdog runs in its own session, so Ctrl-C and a kill of kgfs's process group do
not reach it, and carries no marker itself. ``PR_SET_PDEATHSIG`` would not do: it fires when the
*thread* that started the child ends (the temporary server is started from a helper thread) and
it is not inherited by grandchildren (uvicorn, loky workers).

*Managed* processes (a server kgfs keeps for later runs) are started by :func:`spawn_detached`:
their own session, no marker (the watchdog leaves them alone), output to a log file, and a pid
file (:func:`write_pidfile`) that :func:`read_pidfile` trusts only while that process is alive and
is the one recorded (pid and start time: a reused pid is not ours); :func:`stop_pidfile` stops it.

This module imports nothing of kgfs at its top: the watchdog runs it as a script
(``python -P processes.py watchdog ...``) without importing the ``kg`` package.

Examples
--------
>>> import os, sys, tempfile, pathlib
>>> proc = spawn_detached([sys.executable, "-c", "import time; time.sleep(30)"])
>>> pidfile = pathlib.Path(tempfile.mkdtemp()) / "sleeper.json"
>>> write_pidfile(pidfile, proc.pid, url="none")["pid"] == proc.pid
True
>>> read_pidfile(pidfile)["url"], MARKER_ENV in detached_env({MARKER_ENV: "x", "A": "1"})
('none', False)
>>> stop_pidfile(pidfile), is_alive(proc.pid), read_pidfile(pidfile)
(True, False, None)
"""

from __future__ import annotations

import json
import os
import secrets
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

__all__ = ["MARKER_ENV", "detached_env", "is_alive", "marked_processes", "process_start_time", "read_pidfile",
           "spawn_detached", "start_watchdog", "stop_pidfile", "terminate", "write_pidfile"]

MARKER_ENV = "KGFS_PROCESS_MARKER"

_WATCHDOGS: dict[str, subprocess.Popen] = {}  # marker -> this process's watchdog


def process_start_time(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch), or ``None`` when there is no such process.

    Parameters
    ----------
    pid : int

    Returns
    -------
    float or None

    Examples
    --------
    >>> import os
    >>> process_start_time(os.getpid()) > 0, process_start_time(2 ** 22 + 1)
    (True, None)
    """
    import psutil

    try:
        return psutil.Process(pid).create_time()
    except (psutil.NoSuchProcess, psutil.AccessDenied, ValueError):
        return None


def is_alive(pid: int, start_time: float | None = None) -> bool:
    """True when process ``pid`` runs (not a zombie) and, given ``start_time``, is the one that started then.

    Parameters
    ----------
    pid : int
    start_time : float, optional
        From :func:`process_start_time`: a pid reused by another process is not alive.

    Returns
    -------
    bool

    Examples
    --------
    >>> import os
    >>> me = os.getpid()
    >>> is_alive(me), is_alive(me, process_start_time(me)), is_alive(me, 1.0)
    (True, True, False)
    """
    import psutil

    try:
        p = psutil.Process(pid)
        if p.status() == psutil.STATUS_ZOMBIE:
            return False
        return start_time is None or abs(p.create_time() - float(start_time)) < 0.05
    except (psutil.NoSuchProcess, psutil.AccessDenied, ValueError):
        return False


def detached_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default ``os.environ``) without kgfs's marker: a process started with it outlives kgfs.

    Parameters
    ----------
    env : mapping, optional

    Returns
    -------
    dict

    Examples
    --------
    >>> detached_env({MARKER_ENV: "123-ab", "PATH": "/bin"})
    {'PATH': '/bin'}
    """
    return {k: v for k, v in (os.environ if env is None else env).items() if k != MARKER_ENV}


def spawn_detached(args: Sequence[str], *, env: Mapping[str, str] | None = None,
                   log: str | os.PathLike | None = None, cwd: str | os.PathLike | None = None) -> subprocess.Popen:
    """Start a process kgfs keeps on purpose: own session, no marker, output to ``log`` (or nowhere).

    Parameters
    ----------
    args : sequence of str
        The command.
    env : mapping, optional
        Its environment (default ``os.environ``); the marker is removed.
    log : str or os.PathLike, optional
        File its stdout and stderr are appended to (its folder is created).
    cwd : str or os.PathLike, optional

    Returns
    -------
    subprocess.Popen
        Its process group is its pid (:func:`stop_pidfile` signals the group).

    Examples
    --------
    >>> import sys
    >>> p = spawn_detached([sys.executable, "-c", "pass"])
    >>> p.wait(timeout=30)
    0
    """
    out = subprocess.DEVNULL
    if log is not None:
        Path(log).parent.mkdir(parents=True, exist_ok=True)
        out = open(log, "ab")  # noqa: SIM115 - handed to the child, closed below
    try:
        return subprocess.Popen(list(args), env=detached_env(env), cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True, close_fds=True)
    finally:
        if out is not subprocess.DEVNULL:
            out.close()


def write_pidfile(path: str | os.PathLike, pid: int, **info) -> dict:
    """Record process ``pid`` (with its start time and ``info``, e.g. a URL) in the JSON file ``path``.

    Parameters
    ----------
    path : str or os.PathLike
        Written atomically; its folder is created.
    pid : int
    **info
        JSON-serialisable fields kept with it.

    Returns
    -------
    dict
        What was written: ``pid``, ``start_time``, ``started`` (ISO time) and ``info``.

    Examples
    --------
    >>> import os, tempfile, pathlib
    >>> rec = write_pidfile(pathlib.Path(tempfile.mkdtemp()) / "me.json", os.getpid(), port=4200)
    >>> rec["pid"] == os.getpid(), rec["port"]
    (True, 4200)
    """
    from kg.files import atomic_write

    start = process_start_time(pid)
    rec = {**info, "pid": int(pid), "start_time": start,
           "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start or time.time()))}
    text = json.dumps(rec, indent=1, sort_keys=True)
    atomic_write(path, lambda tmp: tmp.write_text(text + "\n", encoding="utf-8"))
    return rec


def read_pidfile(path: str | os.PathLike) -> dict | None:
    """The record of :func:`write_pidfile`, or ``None`` when the file is missing or unreadable, or the
    process it names has ended (a pid now used by another process counts as ended).

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    dict or None

    Examples
    --------
    >>> read_pidfile("/no/such/file.json") is None
    True
    """
    try:
        rec = json.loads(Path(path).read_text(encoding="utf-8"))
        pid, start = int(rec["pid"]), rec.get("start_time")
    except (OSError, ValueError, TypeError, KeyError):
        return None
    return rec if start is not None and is_alive(pid, start) else None


def stop_pidfile(path: str | os.PathLike, *, grace: float = 10.0) -> bool:
    """Stop the process recorded in ``path`` and its process group (SIGTERM, SIGKILL after ``grace``
    seconds); the file is removed. False when no recorded process was running.

    Parameters
    ----------
    path : str or os.PathLike
    grace : float

    Returns
    -------
    bool

    Examples
    --------
    >>> stop_pidfile("/no/such/file.json")
    False
    """
    import psutil

    rec = read_pidfile(path)
    Path(path).unlink(missing_ok=True)
    if rec is None:
        return False
    try:
        leader = psutil.Process(rec["pid"])
        children = leader.children(recursive=True)
    except psutil.Error:
        return False
    terminate([leader] + [c for c in children if _pgid(c.pid) == rec["pid"]], grace=grace)
    return True


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def marked_processes(marker: str) -> list:
    """Every process (of this user) whose environment holds ``MARKER_ENV=marker``, this one excepted.

    Parameters
    ----------
    marker : str

    Returns
    -------
    list of psutil.Process

    Examples
    --------
    >>> marked_processes("no-such-marker")
    []
    """
    import psutil

    out = []
    for p in psutil.process_iter():
        if p.pid == os.getpid():
            continue
        try:
            if p.environ().get(MARKER_ENV) == marker:
                out.append(p)
        except (psutil.Error, OSError):  # gone, a zombie, or another user's
            continue
    return out


def terminate(procs: Iterable, *, grace: float = 3.0) -> int:
    """SIGTERM ``procs`` (psutil processes), SIGKILL those still running after ``grace`` seconds.

    Parameters
    ----------
    procs : iterable of psutil.Process
    grace : float

    Returns
    -------
    int
        How many were signalled.

    Examples
    --------
    >>> import sys, psutil, subprocess
    >>> p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    >>> terminate([psutil.Process(p.pid)], grace=5), is_alive(p.pid)
    (1, False)
    """
    import psutil

    sent = []
    for p in procs:
        try:
            p.terminate()
            sent.append(p)
        except psutil.Error:
            pass
    for p in _wait_ended(sent, grace):
        try:
            p.kill()
        except psutil.Error:
            pass
    _wait_ended(sent, grace)
    return len(sent)


def _running(p) -> bool:
    import psutil

    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE  # is_running: the same process (start time)
    except psutil.Error:
        return False


def _wait_ended(procs: list, timeout: float) -> list:
    """Wait until ``procs`` have ended (a zombie has: an orphan's may never be reaped); those still running."""
    deadline = time.monotonic() + timeout
    while True:
        running = [p for p in procs if _running(p)]
        if not running or time.monotonic() >= deadline:
            return running
        time.sleep(0.05)


def start_watchdog(marker: str | None = None, *, grace: float = 3.0) -> str:
    """Start the watchdog of this process (see the module doc); returns the marker its children must carry.

    The caller puts the marker in its environment (``os.environ[MARKER_ENV] = marker``) before it
    starts children. Calling it again with the marker it returned (e.g. ``os.environ.get(MARKER_ENV)``)
    returns the same marker while that watchdog runs; a marker inherited from a parent kgfs starts a
    watchdog of this process (the parent's watchdog still ends this process with the parent).

    Parameters
    ----------
    marker : str, optional
        The marker of an earlier call.
    grace : float
        Seconds between SIGTERM and SIGKILL.

    Returns
    -------
    str

    Examples
    --------
    >>> m = start_watchdog()
    >>> m.startswith(f"{os.getpid()}-") and start_watchdog(m) == m
    True
    """
    if marker in _WATCHDOGS and _WATCHDOGS[marker].poll() is None:
        return marker
    pid = os.getpid()
    marker = f"{pid}-{secrets.token_hex(8)}"
    cmd = [sys.executable, "-P", str(Path(__file__).absolute()), "watchdog", str(pid),
           repr(process_start_time(pid)), marker, str(float(grace))]
    _WATCHDOGS[marker] = subprocess.Popen(cmd, env=detached_env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
    return marker


def _wait_for_exit(pid: int, start_time: float, poll: float = 0.5) -> None:
    """Return when process ``pid`` (started at ``start_time``) has ended."""
    fd = None
    if hasattr(os, "pidfd_open"):
        try:
            fd = os.pidfd_open(pid)
        except OSError:
            fd = None
    try:
        if fd is not None and is_alive(pid, start_time):  # the pidfd names that very process
            select.select([fd], [], [])
            return
    finally:
        if fd is not None:
            os.close(fd)
    while is_alive(pid, start_time):
        time.sleep(poll)


def _watch(pid: int, start_time: float, marker: str, grace: float) -> int:
    """The watchdog: wait for process ``pid`` to end, then end the processes carrying ``marker``."""
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    _wait_for_exit(pid, start_time)
    for _round in range(3):  # a child may start another while being stopped
        procs = marked_processes(marker)
        if not procs:
            break
        terminate(procs, grace=grace)
    return 0


if __name__ == "__main__":  # the watchdog process (started by start_watchdog)
    if len(sys.argv) != 6 or sys.argv[1] != "watchdog":
        sys.exit("usage: processes.py watchdog PID START_TIME MARKER GRACE")
    sys.exit(_watch(int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], float(sys.argv[5])))
