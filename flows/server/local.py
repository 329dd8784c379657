"""The local Prefect server of a user: started on first need, reused by every kgfs home, stopped when idle.

``kgfs run`` needs a Prefect API only when a stage has to be computed. Rather than a temporary
server per run (5-25 s each on 2 cores), :func:`start_server` starts one server per user in the
background, and later runs reuse it, from any kgfs home (a project folder's ``.kgfs``): three projects
make one server, not three (each server is a supervisor, Prefect's API and its services: about 270 MB).
The runs of each home are told apart in the UI by their ``home:<path>`` tag (:mod:`flows.pipeline`).
Everything lives in the user's server folder (:func:`server_dir`: ``$KGFS_SERVER_DIR``, else
``server/`` in ``$KGFS_CACHE`` or ``~/.cache/kgfs``):

- ``server.json``: the *supervisor*'s pid file (:func:`flows.server.processes.write_pidfile`: pid, start
  time, port, idle minutes): a small process (``python -P server.py supervise``) in its own session
  that runs ``python -m prefect server start --host 127.0.0.1 --port PORT`` as its child (which
  dies with it: :func:`flows.server.processes.start_watchdog`), with the Prefect state (its database)
  in ``prefect/`` beside it and no telemetry (``PREFECT_SERVER_ANALYTICS_ENABLED=false``: with it on,
  an offline server dies after its first attempt);
- ``server.log``: what the supervisor and the server print;
- ``clients/<pid>``: a lease per kgfs process using the server (:func:`lease`: its start time and its
  kgfs home), and ``last-used``.

The supervisor stops the server and exits when no live process holds a lease and ``last-used`` is
older than the idle time (``KGFS_SERVER_IDLE_MINUTES``, default 30; 0 keeps it), when its pid file
is gone (:func:`stop_server`, or the folder was deleted) or when the server ends. A fresh server
folder's Prefect database is a copy of an empty migrated one kept per Prefect version in the user cache
(``$KGFS_CACHE`` or ``~/.cache/kgfs``, ``prefect-db/<version>/``), made by the first server that
started without one: Prefect's 114 migrations cost about 4 s of CPU otherwise.

The functions take the kgfs home that asks (for its lease, and what they say); the server is the
user's whichever home asks.

This module never imports Prefect; run as a script it imports nothing of the ``kg`` package
(importing ``kg`` costs ~1 s of numpy/scipy, competing with the server's own start).

Examples
--------
>>> import tempfile
>>> os.environ["KGFS_SERVER_DIR"], home = tempfile.mkdtemp(), tempfile.mkdtemp()
>>> find_server(home) is None, stop_server(home)
(True, False)
>>> with lease(home):
...     sorted(p.name for p in (server_dir() / "clients").iterdir()) == [str(os.getpid())]
True
>>> del os.environ["KGFS_SERVER_DIR"]
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import json
import logging
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from flows.server.environment import server_env

log = logging.getLogger(__name__)

__all__ = ["DEFAULT_IDLE_MINUTES", "DEFAULT_PORT", "ServerInfo", "api_healthy", "ensure_server", "find_server",
           "lease", "server_dir", "start_server", "starting", "status", "stop_server",
           "user_dir", "wait_until_ready"]

DEFAULT_PORT = 4200
DEFAULT_IDLE_MINUTES = 30.0
_PIDFILE, _LOG, _CLIENTS, _LAST_USED = "server.json", "server.log", "clients", "last-used"
_DB_FILES = ("prefect.db", "memo_store.toml")


@dataclass(frozen=True)
class ServerInfo:
    """A running kgfs-managed Prefect server (the user's: every kgfs home uses it).

    Parameters
    ----------
    folder : str
        Its server folder (:func:`server_dir`).
    pid : int
        The supervisor's pid (the server is its child, in its process group).
    port : int
        On 127.0.0.1.
    started : str
        ISO time of the start.
    idle_minutes : float
        Idle time after which it stops (0: never).

    Examples
    --------
    >>> s = ServerInfo("/u/server", 1, 4200, "2026-01-01T00:00:00Z", 30.0)
    >>> s.ui_url, s.api_url
    ('http://127.0.0.1:4200', 'http://127.0.0.1:4200/api')
    """

    folder: str
    pid: int
    port: int
    started: str
    idle_minutes: float

    @property
    def ui_url(self) -> str:
        """The Prefect UI's address."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        """The value for ``PREFECT_API_URL``."""
        return f"{self.ui_url}/api"

    @property
    def log(self) -> Path:
        """The supervisor's and server's log file."""
        return Path(self.folder) / _LOG


def user_dir() -> Path:
    """The user's kgfs folder: ``$KGFS_CACHE``, else ``~/.cache/kgfs`` (downloads, the template database).

    Returns
    -------
    Path

    Examples
    --------
    >>> user_dir().is_absolute()
    True
    """
    return Path(os.environ.get("KGFS_CACHE") or Path.home() / ".cache" / "kgfs").absolute()


def server_dir(home: str | os.PathLike | None = None) -> Path:
    """The user's server folder (pid file, log, leases, Prefect state): ``$KGFS_SERVER_DIR``, else
    :func:`user_dir` ``/server``; the same for every kgfs home.

    Parameters
    ----------
    home : str or os.PathLike, optional
        The kgfs home asking (not used: the server is the user's).

    Returns
    -------
    Path

    Examples
    --------
    >>> server_dir("/a/.kgfs") == server_dir("/b/.kgfs")
    True
    """
    return Path(os.environ.get("KGFS_SERVER_DIR") or user_dir() / "server").absolute()


def _processes():
    """:mod:`flows.server.processes`; in the supervisor script, loaded from its file (no ``kg`` package import)."""
    if __name__ != "__main__":
        from flows.server import processes

        return processes
    if "kgfs_processes" not in sys.modules:
        spec = importlib.util.spec_from_file_location("kgfs_processes", Path(__file__).with_name("processes.py"))
        sys.modules["kgfs_processes"] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules["kgfs_processes"]


def api_healthy(url: str, timeout: float = 2.0) -> bool:
    """True when a Prefect API answers at ``url`` (``http://127.0.0.1:PORT/api``).

    Parameters
    ----------
    url : str
    timeout : float

    Returns
    -------
    bool

    Examples
    --------
    >>> api_healthy("http://127.0.0.1:9/api", timeout=0.5)
    False
    """
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/health", timeout=timeout) as r:  # noqa: S310 - 127.0.0.1
            return r.status == 200
    except (OSError, urllib.error.URLError):
        return False


def find_server(home: str | os.PathLike | None = None) -> ServerInfo | None:
    """The user's running server, or ``None`` (a pid file of an ended supervisor is removed).

    Parameters
    ----------
    home : str or os.PathLike, optional
        The kgfs home asking.

    Returns
    -------
    ServerInfo or None

    Examples
    --------
    >>> os.environ["KGFS_SERVER_DIR"] = "/no/such/folder"
    >>> find_server("/my/.kgfs") is None
    True
    >>> del os.environ["KGFS_SERVER_DIR"]
    """
    path = server_dir(home) / _PIDFILE
    rec = _processes().read_pidfile(path)
    if rec is None:
        if path.exists():
            path.unlink(missing_ok=True)
        return None
    return ServerInfo(str(path.parent), int(rec["pid"]), int(rec["port"]), str(rec["started"]),
                      float(rec.get("idle_minutes", DEFAULT_IDLE_MINUTES)))


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", int(port)))
        except OSError:
            return False
    return True


def _choose_port(port: int | None) -> int:
    """``port`` (it must be free), else ``KGFS_SERVER_PORT`` or 4200 when free, else a free port (0: any)."""
    if port is not None and int(port) != 0:
        if not _port_free(port):
            from kg.errors import KgfsError

            raise KgfsError(f"port {port} on 127.0.0.1 is in use: choose another (--port) or stop what uses it")
        return int(port)
    preferred = int(os.environ.get("KGFS_SERVER_PORT") or DEFAULT_PORT) if port is None else 0
    if preferred and _port_free(preferred):
        return preferred
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _template_dir() -> Path:
    return user_dir() / "prefect-db" / version("prefect")


def _restore_template(prefect_home: Path) -> None:
    """A fresh Prefect home gets the template database (when there is one)."""
    from kg.files import atomic_write

    src = _template_dir()
    if (prefect_home / "prefect.db").exists() or not all((src / f).is_file() for f in _DB_FILES):
        return
    for f in _DB_FILES:
        atomic_write(prefect_home / f, lambda tmp, f=f: tmp.write_bytes((src / f).read_bytes()))


def _save_template(prefect_home: Path) -> None:
    """Keep the database of a server that just started in a fresh home as the template (consistent copy)."""
    from kg.files import atomic_write

    dst = _template_dir()
    if all((dst / f).is_file() for f in _DB_FILES) or not all((prefect_home / f).is_file() for f in _DB_FILES):
        return
    dst.mkdir(parents=True, exist_ok=True)

    def backup(tmp: Path) -> None:
        with contextlib.closing(sqlite3.connect(prefect_home / "prefect.db")) as a, \
                contextlib.closing(sqlite3.connect(tmp)) as b:
            a.backup(b)

    atomic_write(dst / "memo_store.toml", lambda tmp: tmp.write_bytes((prefect_home / "memo_store.toml").read_bytes()))
    atomic_write(dst / "prefect.db", backup)


def start_server(home: str | os.PathLike | None = None, *, port: int | None = None,
                 idle_minutes: float | None = None) -> tuple[ServerInfo, bool]:
    """The user's server, started in the background when none runs; returns it and whether it was started.

    It answers a few seconds later (:func:`wait_until_ready`). Two kgfs processes starting one at
    once get the same server (a lock file).

    Parameters
    ----------
    home : str or os.PathLike, optional
        The kgfs home asking.
    port : int, optional
        On 127.0.0.1 (0: any free port). Default: ``KGFS_SERVER_PORT`` or 4200 when free, else any.
    idle_minutes : float, optional
        Default ``KGFS_SERVER_IDLE_MINUTES`` or 30; 0 keeps it until :func:`stop_server`.

    Returns
    -------
    (ServerInfo, bool)

    Examples
    --------
    >>> import socket, tempfile
    >>> os.environ["KGFS_SERVER_DIR"] = tempfile.mkdtemp()
    >>> with socket.socket() as busy:
    ...     busy.bind(("127.0.0.1", 0))
    ...     try:  # a port that is taken is refused before anything starts
    ...         start_server(tempfile.mkdtemp(), port=busy.getsockname()[1])
    ...     except Exception as e:
    ...         print(type(e).__name__, "in use" in str(e))
    KgfsError True
    >>> del os.environ["KGFS_SERVER_DIR"]
    """
    d = server_dir(home)
    d.mkdir(parents=True, exist_ok=True)
    with open(d / "lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = find_server(home)
        if found is not None:
            return found, False
        idle = float(os.environ.get("KGFS_SERVER_IDLE_MINUTES") or DEFAULT_IDLE_MINUTES) if idle_minutes is None \
            else float(idle_minutes)
        port = _choose_port(port)
        env = server_env(d)
        Path(env["PREFECT_HOME"]).mkdir(parents=True, exist_ok=True)
        _restore_template(Path(env["PREFECT_HOME"]))
        (d / _LAST_USED).touch()
        proc = _processes().spawn_detached(
            [sys.executable, "-P", str(Path(__file__).absolute()), "supervise", str(d), str(port), repr(idle)],
            env=env, log=d / _LOG, cwd=d)
        rec = _processes().write_pidfile(d / _PIDFILE, proc.pid, port=port, idle_minutes=idle,
                                         prefect_home=env["PREFECT_HOME"])
    return ServerInfo(str(d), proc.pid, port, rec["started"], idle), True


def _log_tail(info: ServerInfo, n: int = 800) -> str:
    try:
        return " ".join(info.log.read_text(encoding="utf-8", errors="replace")[-n:].split())
    except OSError:
        return ""


def _listens(info: ServerInfo) -> bool:
    """Whether the port is held by this supervisor or its children: another server that took the port first
    (another user's, or of another server folder, starting at once) answers the API too, and must not be
    mistaken for ours."""
    import psutil

    try:
        lead = psutil.Process(info.pid)
        tree = [lead, *lead.children(recursive=True)]
    except psutil.Error:
        return False
    for p in tree:
        with contextlib.suppress(psutil.Error):
            if any(c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == info.port
                   for c in p.net_connections(kind="tcp")):
                return True
    return False


def wait_until_ready(info: ServerInfo, timeout: float = 180.0) -> ServerInfo:
    """Wait until the server answers; a fresh home's database then becomes the template if there is none.

    Parameters
    ----------
    info : ServerInfo
    timeout : float
        Seconds.

    Returns
    -------
    ServerInfo

    Raises
    ------
    KgfsError
        The server ended or did not answer in time (with the end of its log).

    Examples
    --------
    >>> gone = ServerInfo("/no/such/folder", 1, 9, "2026-01-01T00:00:00Z", 30.0)
    >>> os.environ["KGFS_SERVER_DIR"] = "/no/such/folder"
    >>> try:
    ...     wait_until_ready(gone)
    ... except Exception as e:
    ...     print(str(e).split(":")[0])
    the Prefect server in /no/such/folder ended while starting
    >>> del os.environ["KGFS_SERVER_DIR"]
    """
    from kg.errors import KgfsError

    deadline = time.monotonic() + timeout
    while not (api_healthy(info.api_url, timeout=1.0) and _listens(info)):
        if find_server() is None:
            raise KgfsError(f"the Prefect server in {info.folder} ended while starting: {_log_tail(info)} "
                            f"(log: {info.log})")
        if time.monotonic() > deadline:
            raise KgfsError(f"the Prefect server on {info.ui_url} did not answer within {timeout:.0f} s "
                            f"(log: {info.log}); `kgfs server stop` and try again")
        time.sleep(0.1)
    with contextlib.suppress(OSError, sqlite3.Error):
        _save_template(Path(info.folder) / "prefect")
    return info


def _announcement(info: ServerInfo) -> str:
    stops = f"after {info.idle_minutes:g} min without runs, or" if info.idle_minutes > 0 else "only"
    return (f"started your Prefect server in the background (one for every kgfs home of yours; state in "
            f"{info.folder}): UI {info.ui_url}; it stops {stops} with `kgfs server stop`")


@contextlib.contextmanager
def starting(home: str | os.PathLike, start: bool = True, announce=None):
    """Start the user's server in the background while the block runs (when ``start`` and none runs), so it
    boots while the caller checks its input; stop it again if the block raises (it was never used), else
    announce it.

    Parameters
    ----------
    home : str or os.PathLike
    start : bool
        False: do nothing (e.g. a run that may need no server).
    announce : callable, optional
        Called with one line of text (where its UI is, how it stops) after the block, when a server was started.

    Yields
    ------
    ServerInfo or None
        The server started, or None.

    Examples
    --------
    >>> with starting("/no/such/home", start=False) as info:
    ...     print(info)
    None
    """
    info, started = start_server(home) if start else (None, False)
    try:
        yield info if started else None
    except BaseException:
        if started:
            stop_server(home)
        raise
    if started and announce is not None:
        announce(_announcement(info))


def ensure_server(home: str | os.PathLike | None = None, *, port: int | None = None,
                  idle_minutes: float | None = None, announce=None, timeout: float = 180.0) -> ServerInfo:
    """The user's server, answering: found running, or started (then ``announce(text)`` says where its UI
    is and how it stops) and waited for (:func:`start_server`, :func:`wait_until_ready`).

    Parameters
    ----------
    home : str or os.PathLike, optional
        The kgfs home asking.
    port, idle_minutes : optional
        For a server that starts (:func:`start_server`).
    announce : callable, optional
        Called with one line of text when the server was started by this call.
    timeout : float
        Seconds to wait for it to answer.

    Returns
    -------
    ServerInfo

    Examples
    --------
    >>> import socket, tempfile
    >>> os.environ["KGFS_SERVER_DIR"] = tempfile.mkdtemp()
    >>> with socket.socket() as busy:
    ...     busy.bind(("127.0.0.1", 0))
    ...     try:
    ...         ensure_server(tempfile.mkdtemp(), port=busy.getsockname()[1], announce=print)
    ...     except Exception as e:
    ...         print(type(e).__name__)
    KgfsError
    >>> del os.environ["KGFS_SERVER_DIR"]
    """
    info, started = start_server(home, port=port, idle_minutes=idle_minutes)
    if started and announce is not None:
        announce(_announcement(info))
    return wait_until_ready(info, timeout)


def stop_server(home: str | os.PathLike | None = None, *, grace: float = 10.0) -> bool:
    """Stop the user's server (supervisor and server; SIGKILL after ``grace`` s); False when none ran.

    Parameters
    ----------
    home : str or os.PathLike, optional
        The kgfs home asking.
    grace : float

    Returns
    -------
    bool

    Examples
    --------
    >>> os.environ["KGFS_SERVER_DIR"] = "/no/such/folder"
    >>> stop_server("/my/.kgfs")
    False
    >>> del os.environ["KGFS_SERVER_DIR"]
    """
    return _processes().stop_pidfile(server_dir(home) / _PIDFILE, grace=grace)


@contextlib.contextmanager
def lease(home: str | os.PathLike):
    """Mark this process (of kgfs home ``home``) as using the user's server (the idle timer waits for it), and
    touch ``last-used``.

    Parameters
    ----------
    home : str or os.PathLike

    Yields
    ------
    Path
        The lease file.

    Examples
    --------
    >>> import tempfile
    >>> os.environ["KGFS_SERVER_DIR"] = tempfile.mkdtemp()
    >>> with lease("/my/project/.kgfs") as path:
    ...     path.name == str(os.getpid()), _lease_of(path)[1]
    (True, '/my/project/.kgfs')
    >>> path.exists()
    False
    >>> del os.environ["KGFS_SERVER_DIR"]
    """
    d = server_dir(home)
    (d / _CLIENTS).mkdir(parents=True, exist_ok=True)
    path = d / _CLIENTS / str(os.getpid())
    path.write_text(json.dumps({"start": _processes().process_start_time(os.getpid()),
                                "home": str(Path(home).absolute())}), encoding="utf-8")
    (d / _LAST_USED).touch()
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            (d / _LAST_USED).touch()


def status(home: str | os.PathLike | None = None) -> dict:
    """The state of the user's server, for ``kgfs server status`` (and tests that clean up after themselves).

    Parameters
    ----------
    home : str or os.PathLike, optional
        The kgfs home asking.

    Returns
    -------
    dict
        ``running``, ``folder`` and ``text`` (what to tell a person); when running also ``pid``,
        ``port``, ``ui``, ``api``, ``started``, ``idle_minutes``, ``clients`` (processes using it),
        ``homes`` (their kgfs homes), ``idle_seconds``, ``healthy``, ``prefect_home`` and ``log``.

    Examples
    --------
    >>> os.environ["KGFS_SERVER_DIR"] = "/no/such/folder"
    >>> st = status("/my/.kgfs")
    >>> st["running"], st["text"].startswith("no Prefect server of yours runs (/no/such/folder;")
    (False, True)
    >>> del os.environ["KGFS_SERVER_DIR"]
    """
    d = server_dir(home)
    info = find_server(home)
    if info is None:
        return {"running": False, "folder": str(d), "text": f"no Prefect server of yours runs ({d}; `kgfs run` "
                "starts one when a stage has to be computed, for every kgfs home; `kgfs server start` starts one now)"}
    homes = _busy(d)
    idle = max(0.0, time.time() - _mtime(d / _LAST_USED))
    st = {"running": True, "folder": str(d), "pid": info.pid, "port": info.port, "ui": info.ui_url,
          "api": info.api_url, "started": info.started, "idle_minutes": info.idle_minutes, "clients": len(homes),
          "homes": sorted(set(homes)), "idle_seconds": round(idle, 1), "healthy": api_healthy(info.api_url),
          "prefect_home": str(d / "prefect"), "log": str(info.log)}
    stops = f"stops after {info.idle_minutes:g} min without runs" if info.idle_minutes > 0 else \
        "never stops by itself"
    using = f" ({', '.join(st['homes'])})" if st["homes"] else ""
    st["text"] = "\n".join([
        f"your Prefect server (for every kgfs home): {'running' if st['healthy'] else 'starting'} since "
        f"{info.started} (pid {info.pid})",
        f"  UI   {info.ui_url}   (PREFECT_API_URL={info.api_url}; each run is tagged home:<its kgfs home>)",
        f"  {len(homes)} kgfs process(es) using it{using}, idle for {idle / 60:.1f} min; it {stops}; "
        "`kgfs server stop` stops it",
        f"  state {d / 'prefect'}, log {info.log}"])
    return st


def _lease_of(path: Path) -> tuple[float, str]:
    """A lease's process start time and kgfs home."""
    text = path.read_text(encoding="utf-8")
    data = json.loads(text) if text.startswith("{") else {"start": float(text or "nan"), "home": ""}
    return float(data["start"]), str(data.get("home", ""))


def _busy(d: Path) -> list[str]:
    """The kgfs homes of the live processes holding a lease, one per process (leases of ended processes are
    removed); empty when none."""
    homes = []
    for p in (d / _CLIENTS).glob("*"):
        try:
            start, home = _lease_of(p)
            alive = _processes().is_alive(int(p.name), start)
        except (OSError, ValueError, KeyError):
            alive, home = True, ""  # being written
        if alive:
            homes.append(home)
        else:
            p.unlink(missing_ok=True)
    return homes


class _Stop(Exception):
    """A signal asked the supervisor to stop."""


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _supervise(d: Path, port: int, idle_minutes: float) -> int:
    """The supervisor: run the server as a child and stop it when idle, when asked, or when it ends."""
    procs = _processes()

    def asked(*_):
        raise _Stop

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, asked)
    env = dict(os.environ, **{procs.MARKER_ENV: procs.start_watchdog(grace=5.0)})  # the server dies with us
    # the UI finds its API through these settings, not through --port
    env.update(PREFECT_SERVER_API_HOST="127.0.0.1", PREFECT_SERVER_API_PORT=str(port),
               PREFECT_UI_API_URL=f"http://127.0.0.1:{port}/api")
    child = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port",
                              str(port)], env=env, stdin=subprocess.DEVNULL)
    me, why = os.getpid(), "asked to stop"
    period = min(5.0, max(0.2, idle_minutes * 60 / 4)) if idle_minutes > 0 else 5.0
    try:
        while True:
            time.sleep(period)
            rec = procs.read_pidfile(d / _PIDFILE)
            if child.poll() is not None:
                why = f"the server ended (status {child.returncode})"
            elif rec is None or int(rec["pid"]) != me:
                why = "its pid file is gone"
            elif idle_minutes > 0 and not _busy(d) and time.time() - _mtime(d / _LAST_USED) > idle_minutes * 60:
                why = f"idle for {idle_minutes:g} min"
            else:
                continue
            break
    except _Stop:
        pass
    log.info("stopping (%s)", why)
    if child.poll() is None:
        child.terminate()
        try:
            child.wait(timeout=15)
        except subprocess.TimeoutExpired:
            child.kill()
    rec = procs.read_pidfile(d / _PIDFILE)
    if rec is not None and int(rec["pid"]) == me:
        (d / _PIDFILE).unlink(missing_ok=True)
    return 0


if __name__ == "__main__":  # the supervisor (started by start_server): its stdout is the server's log
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="kgfs server supervisor: %(message)s")
    if len(sys.argv) != 5 or sys.argv[1] != "supervise":
        sys.exit("usage: server.py supervise SERVER_DIR PORT IDLE_MINUTES")
    sys.exit(_supervise(Path(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])))
