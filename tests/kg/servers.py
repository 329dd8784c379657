"""Real servers on 127.0.0.1 for the kg tests: Oxigraph, Virtuoso and a Spotlight-format HTTP server.

Nothing here is a mock of the code under test: the SPARQL servers are the real programs
(``oxigraph`` from PyPI, Debian's ``virtuoso-opensource``), and the Spotlight server is a plain
``http.server`` that answers ``/annotate`` in DBpedia Spotlight's real JSON format (Spotlight
itself cannot run here).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HOST = "127.0.0.1"


def free_port() -> int:
    """A TCP port that is free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _wait_http(url: str, timeout: float, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:  # noqa: S310 - 127.0.0.1 only
                r.read()
                return
        except urllib.error.HTTPError:
            return  # the server answers, even if with an error
        except OSError as exc:
            last = exc
            time.sleep(0.1)
    raise TimeoutError(f"{url} did not come up in {timeout} s ({last})")


# ---------------------------------------------------------------------------------- Oxigraph
class OxigraphServer:
    """``oxigraph serve-read-only`` over a store loaded from RDF files; restartable on the same port."""

    def __init__(self, files: list[Path], workdir: Path):
        self.location = Path(workdir) / "oxigraph-store"
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        for f in files:
            fmt = ["--format", "application/rdf+xml"] if Path(f).suffix in (".owl", ".rdf", ".xml") else []
            subprocess.run(
                ["oxigraph", "load", "--location", str(self.location), "--file", str(f), *fmt],
                check=True,
                capture_output=True,
            )

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/query"

    def start(self) -> OxigraphServer:
        self.proc = subprocess.Popen(
            ["oxigraph", "serve-read-only", "--location", str(self.location), "--bind", f"{HOST}:{self.port}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_http(self.url + "?query=ASK%7B%7D", 20, self.proc)
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


# ---------------------------------------------------------------------------------- Virtuoso
VIRTUOSO_BIN = shutil.which("virtuoso-t")
ISQL_BIN = shutil.which("isql-vt") or shutil.which("isql")

_INI = """\
[Database]
DatabaseFile = {d}/virtuoso.db
ErrorLogFile = {d}/virtuoso.log
LockFile = {d}/virtuoso.lck
TransactionFile = {d}/virtuoso.trx
xa_persistent_file = {d}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = {d}/virtuoso-temp.db
TransactionFile = {d}/virtuoso-temp.trx
Striping = 0

[Parameters]
ServerPort = {host}:{sql_port}
DisableUnixSocket = 1
CheckpointInterval = 0
DirsAllowed = ., {d}, {load}
NumberOfBuffers = 10000
MaxDirtyBuffers = 6000
ThreadsPerQuery = 2
CaseMode = 2

[HTTPServer]
ServerPort = {host}:{http_port}
ServerRoot = {d}
ServerThreads = 4
MaxClientConnections = 4
Charset = UTF-8
EnabledGzipContent = 0

[SPARQL]
ResultSetMaxRows = {max_rows}
MaxQueryExecutionTime = 60
MaxQueryCostEstimationTime = 400
DefaultGraph = http://dbpedia.org
"""


class VirtuosoServer:
    """Debian's Virtuoso 7 in a private directory, bound to 127.0.0.1, loaded with ``ld_dir``.

    Like DBpedia's endpoint it cuts every result at ``ResultSetMaxRows`` (10,000) rows and says so
    only in the ``X-SPARQL-MaxRows`` response header.
    """

    def __init__(self, workdir: Path, load_dir: Path, *, max_rows: int = 10000, graph: str = "http://dbpedia.org"):
        self.dir = Path(workdir) / "virtuoso"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.load_dir = Path(load_dir)
        self.graph = graph
        self.sql_port = free_port()
        self.http_port = free_port()
        self.ini = self.dir / "virtuoso.ini"
        self.ini.write_text(
            _INI.format(
                d=self.dir, load=self.load_dir, host=HOST, sql_port=self.sql_port,
                http_port=self.http_port, max_rows=max_rows,
            )
        )
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.http_port}/sparql"

    def start(self, timeout: float = 120) -> VirtuosoServer:
        self.proc = subprocess.Popen(
            [VIRTUOSO_BIN, "+foreground", "+configfile", str(self.ini)],
            cwd=self.dir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            _wait_http(self.url + "?query=" + urllib.parse.quote("ASK {}"), timeout, self.proc)
        except (RuntimeError, TimeoutError) as exc:
            log = self.dir / "virtuoso.log"
            tail = log.read_text(errors="replace")[-2000:] if log.is_file() else "(no log)"
            self.stop()
            raise RuntimeError(f"Virtuoso did not start: {exc}\n{tail}") from None
        return self

    def isql(self, sql: str) -> str:
        out = subprocess.run(
            [ISQL_BIN, f"{HOST}:{self.sql_port}", "dba", "dba", "VERBOSE=OFF", "PROMPT=OFF", f"EXEC={sql}"],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if out.returncode != 0 or "*** Error" in out.stdout + out.stderr:
            raise RuntimeError(f"isql failed on {sql!r}: {out.stdout}{out.stderr}")
        return out.stdout

    def load(self) -> None:
        """Bulk-load every file of ``load_dir`` into ``graph`` (``ld_dir`` + ``rdf_loader_run``)."""
        self.isql(f"ld_dir('{self.load_dir}', '*', '{self.graph}');")
        self.isql("rdf_loader_run();")
        self.isql("checkpoint;")
        errs = self.isql("SELECT ll_file, ll_error FROM DB.DBA.load_list WHERE ll_error IS NOT NULL;")
        if "Error" in errs or "error" in errs.lower().replace("ll_error", ""):
            raise RuntimeError(f"Virtuoso failed to load files: {errs}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None


# ---------------------------------------------------------------------------------- Spotlight
class SpotlightServer:
    """An HTTP server on 127.0.0.1 answering ``/annotate`` in DBpedia Spotlight's JSON format.

    ``surface_forms`` maps a surface form to ``(uri, support, types)``; a request's text is
    searched for each surface form (case-sensitive, like a gazetteer) and the found ones are
    returned as ``Resources`` with every value a string. Nothing found: no ``Resources`` key.

    ``faults`` is a list consumed one per request (``None`` = answer normally): ``("status",
    503)``, ``("slow", seconds)``, ``("malformed", None)``. ``requests`` records every request's
    parameters; ``max_concurrent`` the highest number of requests served at once.
    """

    def __init__(self, surface_forms: dict[str, tuple[str, int, str]]):
        self.surface_forms = surface_forms
        self.faults: list = []
        self.always: tuple | None = None
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.active = 0
        self.max_concurrent = 0
        self.delay = 0.0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def _params(self) -> dict:
                parsed = urllib.parse.urlparse(self.path)
                params = dict(urllib.parse.parse_qsl(parsed.query, keep_blank_values=True))
                n = int(self.headers.get("Content-Length") or 0)
                if n:
                    body = self.rfile.read(n).decode("utf-8")
                    params.update(urllib.parse.parse_qsl(body, keep_blank_values=True))
                return parsed.path, params

            def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                self._handle()

            def do_POST(self):
                self._handle()

            def _handle(self):
                path, params = self._params()
                with server.lock:
                    server.requests.append(params)
                    fault = server.faults.pop(0) if server.faults else server.always
                    server.active += 1
                    server.max_concurrent = max(server.max_concurrent, server.active)
                try:
                    if server.delay:
                        time.sleep(server.delay)
                    if path.rstrip("/") != "/rest/annotate":
                        self._send(404, b"not found", "text/plain")
                        return
                    if fault is not None:
                        kind, arg = fault
                        if kind == "status":
                            self._send(arg, b"<html>Service Unavailable</html>", "text/html")
                            return
                        if kind == "slow":
                            time.sleep(arg)
                        if kind == "malformed":
                            self._send(200, b'{"@text": "truncated", "Resources": [{"@URI": ')
                            return
                    if "text" not in params:
                        self._send(400, b"missing text", "text/plain")
                        return
                    self._send(200, json.dumps(server.answer(params)).encode("utf-8"))
                finally:
                    with server.lock:
                        server.active -= 1

        self.httpd = ThreadingHTTPServer((HOST, 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/rest/annotate"

    def answer(self, params: dict) -> dict:
        text = params["text"]
        out = {
            "@text": text,
            "@confidence": params.get("confidence", "0.5"),
            "@support": params.get("support", "0"),
            "@types": params.get("types", ""),
            "@sparql": "",
            "@policy": params.get("policy", "whitelist"),
        }
        found = []
        for sf, (uri, support, types) in self.surface_forms.items():
            start = text.find(sf)
            if start >= 0:
                found.append(
                    {
                        "@URI": uri,
                        "@support": str(support),
                        "@types": types,
                        "@surfaceForm": sf,
                        "@offset": str(start),
                        "@similarityScore": "0.9987339927561958",
                        "@percentageOfSecondRank": "0.00126761204984631",
                    }
                )
        if found:
            out["Resources"] = sorted(found, key=lambda r: int(r["@offset"]))
        return out

    def __enter__(self) -> SpotlightServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# ---------------------------------------------------------------------------------- faulty proxy
class FaultyProxy:
    """An HTTP proxy on 127.0.0.1 in front of a real SPARQL server, injecting faults.

    ``faults`` is consumed one per request (``None`` = forward as is): ``("status", 503)``,
    ``("slow", seconds)`` then forward, ``("malformed", None)``. With ``max_rows`` set, every
    SPARQL JSON result longer than that is cut to ``max_rows`` bindings and flagged with the
    ``X-SPARQL-MaxRows`` header, exactly as Virtuoso does. ``queries`` records each query text.
    """

    def __init__(self, upstream: str, *, max_rows: int | None = None):
        self.upstream = upstream
        self.max_rows = max_rows
        self.faults: list = []
        self.queries: list[str] = []
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _send(self, status, body: bytes, headers: dict):
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n)
                params = dict(urllib.parse.parse_qsl(body.decode("utf-8"), keep_blank_values=True))
                with proxy.lock:
                    proxy.queries.append(params.get("query", ""))
                    fault = proxy.faults.pop(0) if proxy.faults else None
                if fault is not None:
                    kind, arg = fault
                    if kind == "status":
                        self._send(arg, b"temporarily unavailable", {"Content-Type": "text/plain"})
                        return
                    if kind == "malformed":
                        self._send(200, b'{"head": {"vars": ["a"]}, "results": {"bindi',
                                   {"Content-Type": "application/sparql-results+json"})
                        return
                    if kind == "slow":
                        time.sleep(arg)
                req = urllib.request.Request(
                    proxy.upstream, data=body, method="POST",
                    headers={"Content-Type": self.headers.get("Content-Type", "application/x-www-form-urlencoded"),
                             "Accept": "application/sparql-results+json"},
                )
                try:
                    with urllib.request.urlopen(req, timeout=30) as r:  # noqa: S310 - 127.0.0.1
                        status, data, ctype = r.status, r.read(), r.headers.get("Content-Type", "")
                except urllib.error.HTTPError as exc:
                    status, data, ctype = exc.code, exc.read(), exc.headers.get("Content-Type", "text/plain")
                headers = {"Content-Type": ctype}
                if status == 200 and proxy.max_rows is not None and "json" in ctype:
                    doc = json.loads(data)
                    rows = doc.get("results", {}).get("bindings", [])
                    if len(rows) > proxy.max_rows:
                        doc["results"]["bindings"] = rows[: proxy.max_rows]
                        data = json.dumps(doc).encode("utf-8")
                        headers["X-SPARQL-MaxRows"] = str(proxy.max_rows)
                self._send(status, data, headers)

        self.httpd = ThreadingHTTPServer((HOST, 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/sparql"

    def __enter__(self) -> FaultyProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# ---------------------------------------------------------------------------------- a server that never answers
class HangingServer:
    """A TCP server on 127.0.0.1 that accepts every connection, reads what is sent and never answers.

    The fault a timeout must bound: the connection succeeds, so only the read timeout (and a
    deadline over the retries) ends the wait. ``connections`` counts the connections accepted.
    The first ``answers`` requests get an empty SPARQL result (a server that passes kgfs's
    up-front check of the endpoint, then hangs).
    """

    EMPTY = json.dumps({"head": {"vars": ["s", "o"]}, "results": {"bindings": []}}).encode()

    def __init__(self, answers: int = 0):
        self.answers, self.answered = answers, 0
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((HOST, 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.held: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/sparql"

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:  # closed
                return
            self.connections += 1
            if self.answered < self.answers:
                try:
                    self.answered += self._answer(conn)
                except OSError:
                    pass
                finally:
                    conn.close()
            else:
                self.held.append(conn)  # kept open, never written to

    def _answer(self, conn: socket.socket) -> int:
        """Answer one HTTP request (1), or nothing when the client sent none (0: a connection probe)."""
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return 0
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)
        while len(body) < length:
            body += conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/sparql-results+json\r\n"
                     b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(self.EMPTY), self.EMPTY))
        return 1

    def __enter__(self) -> HangingServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.sock.close()
        for c in self.held:
            c.close()


# ---------------------------------------------------------------------------------- a public service's rules
class PolicyServer:
    """A loopback HTTP server with the Wikidata Query Service's rules, in front of a real SPARQL server.

    Real sockets and real answers (forwarded to ``upstream``, e.g. Oxigraph), with the service's rules:

    - the User-Agent: a request whose User-Agent does not look like the Wikimedia policy's
      ``name/version (contact) library/version`` (a contact: an e-mail address or a URL) is refused
      with HTTP 403 and a text naming the policy, as the service refuses generic clients;
    - the rate: with ``limit_every`` set, every request arriving less than ``limit_every`` seconds
      after the previous accepted one is answered HTTP 429 with ``Retry-After`` (``retry_after``
      seconds, or as an HTTP date with ``date_retry_after``);
    - the time limit: a query with more than ``max_values`` values (``VALUES`` entries or ``UNION``
      branches) is answered HTTP 500 with Blazegraph's ``java.util.concurrent.TimeoutException``
      body after ``timeout_delay`` seconds, as the service answers a query that ran out of its 60 s;
    - ``responses``: when given, each request is answered with the next of these bodies (real
      query-service JSON files) instead of forwarding.

    ``requests`` records ``(time, user agent, query, status)`` of every request.
    """

    UA = re.compile(r"^[\w.\-]+/[\w.\-]+ \((?:[^()]*@[^()]*|[^()]*https?://[^()]*)\)( [\w.\-]+/[\w.\-]+)*$")

    def __init__(self, upstream: str | None = None, *, limit_every: float | None = None, retry_after: int = 1,
                 date_retry_after: bool = False, max_values: int | None = None, timeout_delay: float = 0.0,
                 responses: list[bytes] | None = None):
        self.upstream, self.limit_every, self.retry_after = upstream, limit_every, retry_after
        self.date_retry_after, self.max_values, self.timeout_delay = date_retry_after, max_values, timeout_delay
        self.responses = list(responses or [])
        self.requests: list[tuple[float, str, str, int]] = []
        self.lock = threading.Lock()
        self._last: float | None = None
        srv = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _send(self, status, body: bytes, headers: dict):
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                query = dict(urllib.parse.parse_qsl(body.decode("utf-8"), keep_blank_values=True)).get("query", "")
                status, data, headers = srv._answer(self.headers.get("User-Agent", ""), query, body,
                                                    self.headers.get("Content-Type"))
                self._send(status, data, headers)

        self.httpd = ThreadingHTTPServer((HOST, 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/sparql"

    def _answer(self, agent: str, query: str, body: bytes, ctype) -> tuple[int, bytes, dict]:
        text = {"Content-Type": "text/plain; charset=utf-8"}
        now = time.monotonic()
        with self.lock:
            if not self.UA.match(agent):
                status, data, headers = 403, (
                    b"Please set a user-agent and respect our robot policy "
                    b"https://meta.wikimedia.org/wiki/User-Agent_policy"), text
            elif self.limit_every is not None and self._last is not None and now - self._last < self.limit_every:
                if self.date_retry_after:
                    from email.utils import formatdate

                    after = formatdate(time.time() + self.retry_after + 1, usegmt=True)
                else:
                    after = str(self.retry_after)
                status, data, headers = 429, b"Too Many Requests", {**text, "Retry-After": after}
            else:
                status = None
                self._last = now
            if status is None and self.responses:
                status, data, headers = 200, self.responses.pop(0), {"Content-Type": "application/sparql-results+json"}
            self.requests.append((now, agent, query, status or 0))
            index = len(self.requests) - 1
        if status is not None:
            return status, data, headers
        n_values = max(query.count("UNION") + 1 if "UNION" in query else 0,
                       len(re.findall(r"<[^>]+>", query.split("VALUES", 1)[1].split("}", 1)[0]))
                       if "VALUES" in query else 0)
        if self.max_values is not None and n_values > self.max_values:
            time.sleep(self.timeout_delay)
            status, data, headers = 500, (
                b"SPARQL-QUERY: queryStr=...\njava.util.concurrent.ExecutionException: "
                b"java.util.concurrent.TimeoutException"), text
        else:
            req = urllib.request.Request(self.upstream, data=body, method="POST", headers={
                "Content-Type": ctype or "application/x-www-form-urlencoded",
                "Accept": "application/sparql-results+json"})
            with urllib.request.urlopen(req, timeout=30) as r:  # noqa: S310 - 127.0.0.1
                status, data, headers = r.status, r.read(), {"Content-Type": r.headers.get("Content-Type", "")}
        with self.lock:
            t, a, q, _ = self.requests[index]
            self.requests[index] = (t, a, q, status)
        return status, data, headers

    def __enter__(self) -> PolicyServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
