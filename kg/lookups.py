"""The answers of a knowledge source, remembered per entity and per node and shared by everyone asking it.

:class:`kg.features.KGFeatures` asks its source through :class:`SharedLookups`. scikit-learn's ``clone``
deep-copies the parameters that are not estimators, which would copy a source and its in-memory answers
at every fold and parameter setting of a grid search; :func:`shared_lookups` keeps the answers of each
source object (by identity) for the process, so every clone, fold and setting asks the source once per
entity and once per class or category. With a ``memory`` folder the answers are also kept on disk, as
JSON rows of an SQLite file keyed by the source's ``describe()``, for the worker processes of
``GridSearchCV(n_jobs=2)`` and for later runs (nothing is pickled).

Examples
--------
>>> import rdflib
>>> g = rdflib.Graph().parse(format="turtle", data='''
... @prefix dbo: <http://dbpedia.org/ontology/> .
... <http://dbpedia.org/resource/Kobe> a dbo:BasketballPlayer .''')
>>> _ = shared_lookups(g).types(["http://dbpedia.org/resource/Kobe"])
>>> _ = shared_lookups(g).types(["http://dbpedia.org/resource/Kobe"])   # a second asker: answered from memory
>>> shared_lookups(g).asked["types"]
1
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
import warnings
import weakref
from collections.abc import Iterable
from pathlib import Path

from kg.errors import KgfsError
from kg.files import file_lock
from kg.rdf.sources.common import MemoCache, check_direction
from kg.rdf.vocabulary import vocabulary_of
from kg.sources import SourceBase, as_source, breadth_first_edges

__all__ = ["LookupsCacheWarning", "SharedLookups", "reported_cycles", "shared_lookups"]


_FILE = "kgfs-lookups.sqlite"
#: ``PRAGMA user_version`` of the files this version writes: rows carry a digest (see :class:`_DiskMemo`).
_FORMAT = 2
_SCHEMA = ("CREATE TABLE answers (source TEXT, kind TEXT, key TEXT, value TEXT, digest BLOB, "
           "PRIMARY KEY (source, kind, key))")
# SQLite's primary result codes for a file that is not (or no longer) a database; every other error (locked, full,
# read-only, I/O) says nothing about the file's contents and is reported as it is
_DAMAGE_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


class LookupsCacheWarning(UserWarning):
    """A damaged look-up cache file (``kgfs-lookups.sqlite``) was moved aside and rebuilt; the warning names both
    files."""


class _Damaged(Exception):
    """What SQLite cannot see: a row whose digest does not match, a file of another format."""


def _damage(exc: BaseException) -> str | None:
    """Why ``exc`` says the file is damaged (``None``: it does not)."""
    if isinstance(exc, _Damaged):
        return str(exc)
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(exc, sqlite3.DatabaseError) and code is not None and code & 0xFF in _DAMAGE_CODES:
        return str(exc)
    return None


def _digest(*fields: bytes) -> bytes:
    return hashlib.blake2b(b"\0".join(fields), digest_size=8).digest()


def _wal(db: sqlite3.Connection, wait: float = 120.0) -> None:
    """Put the file in WAL mode (kept in the file: once set, only read). Switching needs the file alone, and SQLite
    answers "database is locked" at once, whatever the busy timeout, while another process switches or writes: the
    switch is retried until the mode is WAL (``wait`` seconds at most)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal" or \
                    db.execute("PRAGMA journal_mode=WAL").fetchone()[0].lower() == "wal":
                return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
        time.sleep(0.05)


class _DiskMemo:
    """``(kind, key) -> set`` answers of one source, as JSON rows of an SQLite file (shared by processes).

    Damage is never reused: the file is checked on opening (``PRAGMA quick_check``: the structure of every page),
    every row carries a digest of its source, kind, key and value (checked on reading: SQLite keeps no checksum of
    its pages, so garbage inside a row's text would otherwise be read as an answer), and any error of SQLite that
    says the file is no database or a malformed one, at any later read or write, is handled the same way: the
    file is moved aside (``kgfs-lookups.damaged-<time>.sqlite``, with its ``-wal``), named in one
    :class:`LookupsCacheWarning`, and a new one is made; the answers are asked of the source again. Processes
    share the file: WAL mode (readers never wait for the writer), a busy timeout, and writes in ``BEGIN
    IMMEDIATE`` transactions (the write lock taken up front, so a writer waits its turn instead of failing when
    another one commits first); one process at a time moves a damaged file aside (a lock file), and only the file it
    found damaged (the same inode), not one another process has just made.

    Parameters
    ----------
    folder : Path
    describe : str
        The source's ``describe()``: its rows are keyed by its digest.
    check : bool
        Run ``PRAGMA quick_check`` on opening (``benchmarks/bench_lookups_check.py`` measures its cost).
    """

    timeout = 120.0  # seconds a process waits for another's write (SQLite's busy timeout)

    def __init__(self, folder: Path, describe: str, *, check: bool = True):
        folder = Path(folder)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise KgfsError(f"{folder}: cannot make the look-up cache's folder ({exc})") from None
        self.path = folder / _FILE
        self.fingerprint = hashlib.sha256(describe.encode("utf-8")).hexdigest()
        self._inode: tuple[int, int] | None = None
        self._guarded(lambda: self._open(check))

    # ------------------------------------------------------------------ the file
    def _open(self, check: bool) -> None:
        with self._connect() as db:
            if check:
                found = [r[0] for r in db.execute("PRAGMA quick_check")]
                if found != ["ok"]:
                    raise _Damaged("PRAGMA quick_check: " + "; ".join(found[:3]))
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version == _FORMAT:
                return
            db.execute("BEGIN IMMEDIATE")  # one process makes the table; the others then find it
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            if version == 0 and not tables:
                db.execute(_SCHEMA)
                db.execute(f"PRAGMA user_version = {_FORMAT}")
            elif version != _FORMAT:
                db.execute("ROLLBACK")
                raise _Damaged(f"not a look-up cache of this kgfs (format {version}, tables {tables}; this kgfs "
                               f"writes format {_FORMAT})")
            db.execute("COMMIT")

    @contextlib.contextmanager
    def _connect(self):
        """A connection for one read or one write, closed after it (transactions explicit: ``isolation_level=None``);
        WAL lets processes share the file."""
        db = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
        try:
            st = os.stat(self.path)
            self._inode = (st.st_dev, st.st_ino)  # the file this connection reads (see _recover)
            _wal(db)
            yield db
        finally:
            db.close()

    def _guarded(self, operation):
        """``operation()``; a damaged file moved aside and made again, then ``operation()`` once more; any other
        SQLite error (or damage again) a :class:`KgfsError` naming the file."""
        for attempt in range(2):
            try:
                return operation()
            except (sqlite3.Error, _Damaged) as exc:
                why = _damage(exc)
                if why is None or attempt:
                    raise KgfsError(f"{self.path}: the look-up cache cannot be used ({exc}); delete the file or "
                                    f"give another memory folder") from None
                self._recover(why)
                self._open(check=False)  # a new file: nothing to check

    def _recover(self, why: str) -> None:
        """Move the damaged file (and its WAL) aside, under the lock file, unless another process already did."""
        found = self._inode
        with file_lock(self.path.with_name(_FILE + ".lock")):
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                return  # moved aside by another process; the caller makes the new one
            if found is not None and (st.st_dev, st.st_ino) != found:
                return  # another process made a new file since: it is not the one found damaged
            stamp, n = time.strftime("%Y%m%dT%H%M%S"), 0
            while (aside := self.path.with_name(f"kgfs-lookups.damaged-{stamp}{f'-{n}' if n else ''}.sqlite")
                   ).exists():
                n += 1
            try:
                os.replace(self.path, aside)
                for tail, keep in (("-wal", True), ("-shm", False)):  # the old WAL must never meet the new file
                    extra = Path(str(self.path) + tail)
                    if extra.exists():
                        os.replace(extra, Path(str(aside) + tail)) if keep else extra.unlink()
            except OSError as exc:
                raise KgfsError(f"{self.path}: the look-up cache is damaged ({why}) and cannot be moved aside "
                                f"({exc}); delete it") from None
        warnings.warn(f"{self.path}: the look-up cache was damaged ({why}); moved aside to {aside.name} and made "
                      "again (its answers are asked of the source again)", LookupsCacheWarning, stacklevel=4)

    # ------------------------------------------------------------------ rows
    def get(self, kind: str, keys: list[str]) -> dict[str, set[str]]:
        return self._guarded(lambda: self._get(kind, keys))

    def put(self, kind: str, answers: dict[str, Iterable[str]]) -> None:
        rows, head = [], (self.fingerprint.encode(), kind.encode())
        for k, v in answers.items():
            value = json.dumps(sorted(v))
            rows.append((self.fingerprint, kind, k, value, _digest(*head, k.encode("utf-8"), value.encode("utf-8"))))
        self._guarded(lambda: self._put(rows))

    def _get(self, kind: str, keys: list[str]) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        head = (self.fingerprint.encode(), kind.encode())
        with self._connect() as db:
            db.text_factory = bytes  # checked before decoding: damaged text is a damaged row, not a decoding error
            db.execute("BEGIN")  # one snapshot for every part
            for i in range(0, len(keys), 500):
                part = keys[i:i + 500]
                marks = ",".join("?" * len(part))
                for key, value, digest in db.execute(
                    f"SELECT key, value, digest FROM answers WHERE source = ? AND kind = ? AND key IN ({marks})",  # noqa: S608
                    [self.fingerprint, kind, *part],
                ):
                    if not isinstance(value, bytes) or not isinstance(key, bytes) or digest != _digest(*head, key,
                                                                                                         value):
                        raise _Damaged(f"a row of {kind} ({repr(key)[:80]}) does not match its digest")
                    out[key.decode("utf-8")] = {tuple(v) if isinstance(v, list) else v  # relations: pairs
                                                for v in json.loads(value)}
            db.execute("COMMIT")
        return out

    def _put(self, rows: list[tuple]) -> None:
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?)", rows)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")


def _describe(source) -> str:
    return json.dumps(source.describe(), sort_keys=True, default=str)


class _Answers:
    """What :class:`SharedLookups` remembers of one source: answers per question, counts, the disk memo."""

    def __init__(self, disk: _DiskMemo | None):
        self.memo = {kind: MemoCache() for kind in ("types", "categories", "broader", "relations-out", "relations-in")}
        self.class_known: dict[str, frozenset] = {}
        self.property_known: dict[str, frozenset] = {}
        self.labels: dict[str, str | None] = {}  # a feature's name, or None: the source has none
        self.asked = {"types": 0, "categories": 0, "broader": 0, "subclass": 0, "relations-out": 0, "relations-in": 0,
                      "subproperty": 0}
        self.lock = threading.RLock()
        self.disk = disk


class SharedLookups(SourceBase):
    """A knowledge source's answers, remembered per entity and per node (shared per source: :func:`shared_lookups`).

    Answers the four questions of :class:`~kg.sources.KnowledgeSource` (and the two of
    :class:`~kg.sources.RelationSource`, when the source answers them) with the source's
    semantics, asking it only for what it was not asked before:

    - ``types`` / ``categories``: per entity.
    - ``broader(categories, depth)``: per category, its parents (one ``source.broader(nodes, 1)`` per
      level of new nodes); the walk itself runs here, so any depth reuses the parents fetched.
    - ``class_edges(classes)``: the source's answer for the classes not met before; every class in
      it (a start or an ancestor: the source's walk expands each) is then known with its parents
      in the type namespaces, and later questions walk the known edges. An edge the source
      reaches only through a class outside the namespaces is not connected to the start classes
      in the returned DAG, so tables (closure and ``min_support``) are the same.
    - ``relations(entities, direction)``: per entity and direction; ``property_edges(properties)``:
      as ``class_edges``, over the subproperty graph.

    Parameters
    ----------
    source : KnowledgeSource
    disk : folder, optional
        Keep the answers in ``<disk>/kgfs-lookups.sqlite`` too (JSON rows, keyed by the source's
        ``describe()``), read before asking the source.

    Attributes
    ----------
    asked : dict of str -> int
        How many keys (entities, classes, categories) were passed to the source, per question.

    Examples
    --------
    >>> import rdflib
    >>> from kg.rdf.sources.rdflib_graph import RdflibSource
    >>> g = rdflib.Graph().parse(format="turtle", data='''
    ... @prefix dbo: <http://dbpedia.org/ontology/> .
    ... <http://dbpedia.org/resource/Kobe> a dbo:BasketballPlayer .''')
    >>> s = SharedLookups(RdflibSource(g))
    >>> _ = s.types(["http://dbpedia.org/resource/Kobe"]); _ = s.types(["http://dbpedia.org/resource/Kobe"])
    >>> s.asked["types"]
    1
    """

    def __init__(self, source, disk: Path | None = None, *, state: _Answers | None = None):
        self.source = source = as_source(source)
        if state is None:
            state = _Answers(_DiskMemo(Path(disk), _describe(source)) if disk is not None else None)
        self._state = state
        # the answers live in the state (which holds no reference to the source: see shared_lookups)
        self._memo, self._class_known, self.asked = state.memo, state.class_known, state.asked
        self._property_known, self._labels = state.property_known, state.labels
        self._lock, self._disk = state.lock, state.disk

    def __repr__(self) -> str:
        return f"SharedLookups({self.source!r})"

    def describe(self):
        """The source's ``describe()``."""
        return self.source.describe()

    # the source's own members (kg.sources.SourceBase), as the source says them
    vocabulary = property(lambda self: self.source.vocabulary)
    entity_iris = property(lambda self: self.source.entity_iris)
    stored = property(lambda self: self.source.stored)
    report = property(lambda self: self.source.report)

    def labels(self, iris):
        """The source's names of features, each asked of it once (the fits of a grid name the same features).

        Examples
        --------
        >>> from kg.ontology.source import OntologyAnnotations
        >>> class Named(OntologyAnnotations):
        ...     def __init__(self): self.asked_for = []
        ...     def labels(self, terms): self.asked_for.append(sorted(terms)); return {"GO:1": "ageing"}
        >>> s = SharedLookups(Named())
        >>> s.labels(["GO:1", "GO:2"]), s.labels(["GO:2", "GO:1"]), s.source.asked_for
        ({'GO:1': 'ageing'}, {'GO:1': 'ageing'}, [['GO:1', 'GO:2']])
        """
        iris = list(iris)
        with self._lock:
            todo = [i for i in dict.fromkeys(iris) if i not in self._labels]
            if todo:
                found = self.source.labels(todo)
                self._labels.update({i: found.get(i) for i in todo})
            return {i: self._labels[i] for i in iris if self._labels[i] is not None}

    def _ask(self, kind: str, keys: Iterable[str], fetch) -> dict[str, set[str]]:
        with self._lock:
            known, todo = self._memo[kind].split(keys)
            if todo and self._disk is not None:
                stored = self._disk.get(kind, todo)
                self._memo[kind].put(stored)
                known.update(stored)
                todo = [k for k in todo if k not in stored]
            if todo:
                self.asked[kind] += len(todo)
                found = fetch(todo)
                found = {k: set(found.get(k, ())) for k in todo}
                self._memo[kind].put(found)
                if self._disk is not None:
                    self._disk.put(kind, found)
                known.update(found)
            return known

    def types(self, entities: Iterable[str]) -> dict[str, set[str]]:
        return self._ask("types", entities, self.source.types)

    def categories(self, entities: Iterable[str]) -> dict[str, set[str]]:
        return self._ask("categories", entities, self.source.categories)

    def _category_parents(self, todo: list[str]) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {c: set() for c in todo}
        for c, p in self.source.broader(todo, 1):
            if c in out:
                out[c].add(p)
        return out

    def broader(self, categories: Iterable[str], depth: int | None) -> set[tuple[str, str]]:
        return breadth_first_edges(categories, lambda xs: self._ask("broader", xs, self._category_parents), depth)

    def class_edges(self, classes: Iterable[str]) -> set[tuple[str, str]]:
        return self._closure("subclass", self._class_known, classes, self.source.class_edges)

    def relations(self, entities: Iterable[str], direction: str) -> dict[str, set[tuple[str, str]]]:
        if not hasattr(self.source, "relations"):
            raise KgfsError(f"{type(self.source).__name__} does not answer relation questions (it is no "
                            "RelationSource)")
        check_direction(direction)
        return self._ask(f"relations-{direction}", entities, lambda todo: self.source.relations(todo, direction))

    def property_edges(self, properties: Iterable[str]) -> set[tuple[str, str]]:
        return self._closure("subproperty", self._property_known, properties, self.source.property_edges)

    def _closure(self, kind: str, known: dict[str, frozenset], nodes: Iterable[str], fetch_edges
                 ) -> set[tuple[str, str]]:
        """The edges above ``nodes`` of a graph the source walks whole (``fetch_edges(nodes)``: every edge reachable
        upward): each node of an answer is then known with its parents, and later questions walk the known edges."""
        nodes = sorted(set(nodes))
        with self._lock:
            todo = [c for c in nodes if c not in known]
            need = todo if self._disk is not None else []
            while need:  # a node on disk was stored with its ancestors: read them level by level
                stored = self._disk.get(kind, need)
                known.update((k, frozenset(v)) for k, v in stored.items())
                need = sorted({p for ps in stored.values() for p in ps if p not in known})
            todo = [c for c in todo if c not in known]
            if todo:
                self.asked[kind] += len(todo)
                # every node of the answer was expanded by the source's walk: known, with its parents
                parents: dict[str, set[str]] = {c: set() for c in todo}
                for c, p in fetch_edges(todo):
                    parents.setdefault(c, set()).add(p)
                    parents.setdefault(p, set())
                fresh = {k: v for k, v in parents.items() if k not in known}
                known.update((k, frozenset(v)) for k, v in fresh.items())
                if self._disk is not None:
                    self._disk.put(kind, fresh)
            return breadth_first_edges(nodes, lambda xs: {x: set(known.get(x, ())) for x in xs}, None)


# source object's id -> (a weak reference to it, {settings: _Answers}). By identity, not equality (two rdflib graphs
# with the same identifier are equal, yet hold different triples). The answers hold no reference to the source, so
# an entry goes when its source goes; a source that cannot be weakly referenced is kept alive with its answers.
_SHARED: dict[int, tuple[object, dict]] = {}
_SHARED_LOCK = threading.Lock()


def _answers_of(source) -> dict:
    key = id(source)
    entry = _SHARED.get(key)
    if entry is not None and entry[0]() is source:
        return entry[1]

    def forget(ref, k=key):
        if _SHARED.get(k, (None,))[0] is ref:
            del _SHARED[k]

    try:
        ref = weakref.ref(source, forget)
    except TypeError:

        def ref(s=source):
            return s
    _SHARED[key] = (ref, {})
    return _SHARED[key][1]


def reported_cycles(source) -> set:
    """The hierarchy cycles already reported for ``source`` (by identity, forgotten with it): what
    :func:`kg.rdf.table.build_hierarchy` is given as ``reported``, so that the fits of one source (a grid's
    clones share it) warn about a cycle once.

    Parameters
    ----------
    source : object
        A knowledge source, an ``rdflib.Graph``, ... (the object a :class:`~kg.features.KGFeatures` was given).

    Returns
    -------
    set
        The same set for the same object, a new one for another.

    Examples
    --------
    >>> import rdflib
    >>> g = rdflib.Graph()
    >>> reported_cycles(g) is reported_cycles(g), reported_cycles(g) is reported_cycles(rdflib.Graph())
    (True, False)
    """
    with _SHARED_LOCK:
        return _answers_of(source).setdefault("reported-cycles", set())


def _memory_folder(memory) -> Path | None:
    if memory is None:
        return None
    location = getattr(memory, "location", memory)  # joblib.Memory (its folder) or a path
    if location is None:  # joblib.Memory(None) caches nothing
        return None
    return Path(location)


def shared_lookups(source, *, vocabulary=None, type_namespaces=None, memory=None) -> SharedLookups:
    """A :class:`SharedLookups` over the answers this process remembers of ``source`` (with these settings).

    Every call for the same source object (by identity) shares one set of answers; they are forgotten when
    the source is.

    Parameters
    ----------
    source : KnowledgeSource or rdflib.Graph
        A graph is read through :class:`~kg.rdf.sources.rdflib_graph.RdflibSource`.
    vocabulary : Vocabulary or str, optional
        For a graph: its predicates (``"dbpedia"``, ``"wikidata"`` or a
        :class:`~kg.rdf.vocabulary.Vocabulary`).
    type_namespaces : sequence of str, optional
        For a graph: the type namespaces.
    memory : folder or joblib.Memory, optional
        Also keep the answers on disk there.

    Returns
    -------
    SharedLookups

    Examples
    --------
    >>> import rdflib
    >>> g = rdflib.Graph()
    >>> asked = shared_lookups(g).asked
    >>> shared_lookups(g).asked is asked, shared_lookups(rdflib.Graph()).asked is asked
    (True, False)
    >>> shared_lookups(g).asked is shared_lookups(rdflib.Graph(identifier=g.identifier)).asked  # equal, not the same
    False
    """
    folder = _memory_folder(memory)
    vocab_key = getattr(vocabulary, "name", vocabulary)
    key = (vocab_key, None if type_namespaces is None else tuple(type_namespaces), None if folder is None
           else str(folder.resolve()))
    inner = _as_source(source, vocabulary, type_namespaces)
    with _SHARED_LOCK:
        per_source = _answers_of(source)
        state = per_source.get(key)
        if state is None:
            state = per_source[key] = _Answers(None if folder is None else _DiskMemo(folder, _describe(inner)))
    return SharedLookups(inner, state=state)


def _as_source(source, vocabulary, type_namespaces):
    import rdflib

    if isinstance(source, rdflib.Graph):
        from kg.rdf.sources.rdflib_graph import RdflibSource

        vocab = vocabulary_of(vocabulary)  # a preset's name, a TOML file or a vocabulary: as --preset
        return RdflibSource(source, vocabulary=vocab, type_namespaces=type_namespaces)
    return as_source(source)
