"""The ``kgfs`` commands that list and look after what there is: the registry's datasets (``kgfs datasets list``,
``fetch``), the home's stage store and dump index (``kgfs cache ls``, ``clear``, ``verify``) and the methods
(``kgfs methods``). Each ``cmd_*`` function is given the parsed arguments (:mod:`flows.cli.parser`); none imports a
stage, so these commands start in the time of kgfs's own imports."""

from __future__ import annotations

import json
import sys

from flows import settings
from flows.cli.commands import CliError, _console, _mirror
from flows.cli.console import cache_table, datasets_table
from kg.rdf import cache_folder

__all__ = ["cmd_cache_clear", "cmd_cache_ls", "cmd_cache_verify", "cmd_datasets_fetch", "cmd_datasets_list",
           "cmd_methods"]


def cmd_datasets_list(args) -> int:
    from kg.datasets import list_datasets, resolve_names

    names = set(resolve_names(args.patterns)) if args.patterns else None
    infos = [i for i in list_datasets() if names is None or i.name in names]
    if args.json:
        print(json.dumps([{"name": i.name, "loader": i.loader or "generator", "n_instances": i.n_instances,
                           "n_features": i.n_features, "licence": i.licence, "description": i.description,
                           "upstream": i.upstream, "derivation": i.derivation,
                           "files": {r: f.path for r, f in i.files.items()},
                           # what a file without a download of its own is made from, and by which recipe
                           "derived": {r: {"recipe": f.derive, "from": list(f.derive_from)}
                                       for r, f in i.files.items() if f.derive},
                           "derived_from": {r: {"path": f.path, "url": f.url, "sha256": f.sha256}
                                            for r, f in i.derived_from.items()}} for i in infos], indent=1))
        return 0
    _console(stderr=False).print(datasets_table(infos))
    return 0


def cmd_datasets_fetch(args) -> int:
    from kg.datasets import fetch, resolve_names

    con = _console()
    for name in resolve_names(args.names):
        with con.status(f"fetching {name}…"):
            paths = fetch(name, mirror=_mirror(args), offline=args.offline or None)
        print(f"{name}: " + ", ".join(f"{role}={p}" for role, p in sorted(paths.items())))
    return 0


def _home_store():  # the stage store alone: the cache commands need none of the stages' imports
    from kg.store.store import Store

    return Store(settings.kgfs_home() / "store")


def cmd_cache_ls(args) -> int:
    store = _home_store()
    recs = store.records()
    if not recs:
        print(f"no cached stages in {store.root}")
        return 0
    _console(stderr=False).print(cache_table(recs, store.root))
    return 0


def cmd_methods(args) -> int:
    from selection.methods_help import method_help, methods_overview

    print(method_help(args.name) if args.name else methods_overview())
    return 0


def cmd_cache_clear(args) -> int:
    store = _home_store()
    stages = sorted(d.name for d in store.root.iterdir() if d.is_dir() and d.name != "blobs") \
        if store.root.is_dir() else []
    if args.stage and args.stage not in stages:
        raise CliError(f"--stage {args.stage}: no such stage in {store.root} (stored: {', '.join(stages) or 'none'})")
    print(f"removed {store.clear(args.stage)} cached stage folder(s) from {store.root}")
    return 0


def cmd_cache_verify(args) -> int:
    problems, text = _home_store().verify_summary(remove=args.remove)
    folders, damaged = [], []
    if (cache_folder(settings.kgfs_home()) / "index").is_dir():  # (numpy, pyoxigraph: only when there is one)
        from kg.rdf.index.dumpindex import index_for_cache

        index = index_for_cache(cache_folder(settings.kgfs_home()))
        folders = index.folders()
        damaged = index.verify(remove=args.remove)  # every file of the dump index hashed against its manifest
    for p in [*problems, *damaged]:
        print(f"kgfs: {'removed' if args.remove else 'problem'}: {p}", file=sys.stderr)
    print(text)
    if folders:
        bad = len({p.file.parent if p.file.parent in folders else p.file for p in damaged})
        print(f"checked {len(folders)} folder(s) of the dump index {index.root}: " + (
            "ok" if not damaged else f"{bad} damaged" + (", removed (`kgfs ingest` builds them again)" if args.remove
                                                        else "; `kgfs ingest --dump ...` rebuilds them, --remove "
                                                             "deletes them")))
    return 1 if (problems or damaged) and not args.remove else 0
