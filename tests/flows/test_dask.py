"""The evaluation grid on a Dask cluster (prefect-dask ``DaskTaskRunner(address=...)``) gives the
same results as the local run.

The test starts a real ``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1; the
workers report their task runs to the session's Prefect test server (``PREFECT_API_URL``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from flows import stages
from flows.inputs import resolve_input
from flows.run_options import RunOptions
from kg.store import Record

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


@pytest.fixture(scope="module")
def dask_cluster(prefect_harness, tmp_path_factory):
    """``dask scheduler`` + 2 ``dask worker`` processes on 127.0.0.1; yields the scheduler address."""
    from distributed import Client
    from prefect.settings import PREFECT_API_URL

    tmp_path = tmp_path_factory.mktemp("dask")
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PREFECT_API_URL=str(PREFECT_API_URL.value()), PREFECT_LOGGING_LEVEL="WARNING")
    bin_dir = Path(sys.executable).parent
    dask = ([str(bin_dir / "dask")] if (bin_dir / "dask").exists()
            else [sys.executable, "-m", "distributed.cli.dask_scheduler"])
    addr = f"tcp://127.0.0.1:{port}"
    procs = [subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--dashboard-address", "127.0.0.1:0"], env=env, cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    try:
        _wait_port(port, 60)
        for i in range(2):
            procs.append(subprocess.Popen([*dask, "worker", addr, "--nthreads", "1", "--host", "127.0.0.1",
                                           "--dashboard-address", "127.0.0.1:0", "--name", f"w{i}"],
                                          env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, start_new_session=True))
        with Client(addr, timeout=60) as client:
            client.wait_for_workers(2, timeout=90)
        yield addr
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def _results(rec: Record) -> pd.DataFrame:
    df = pd.read_csv(Path(rec.dir) / "grid" / "results.csv")
    return df.drop(columns=[c for c in df if c.endswith("seconds")])  # timings differ run to run


@pytest.mark.integration
def test_dask_grid_matches_local(dask_cluster, tmp_path):
    from distributed import Client

    from flows.runner import run_pipeline

    kw = dict(eval_selectors=("shsel-ig-prune", "complete"), classifiers=("nb", "knn"), n_splits=5,
              artifacts=False)
    local = run_pipeline(None, RunOptions(**kw), out=tmp_path / "local", home=tmp_path / "h1")
    remote = run_pipeline(None, RunOptions(**kw, dask_address=dask_cluster), out=tmp_path / "dask",
                          home=tmp_path / "h2")
    assert not remote.runinfo["evaluate"]["reused"]
    a, b = _results(local.records["evaluate"]), _results(remote.records["evaluate"])
    assert len(a) == 2 * 2 * 5
    pd.testing.assert_frame_equal(a, b)
    # the same stage key (and store content) whichever runner computed it
    assert local.records["evaluate"].key == remote.records["evaluate"].key
    # the units really ran on the cluster: the scheduler knows the grid's unit function
    with Client(dask_cluster, timeout=30) as client:
        prefixes = client.run_on_scheduler(lambda dask_scheduler: sorted(map(str, dask_scheduler.task_prefixes)))
    assert any("_run_unit" in p for p in prefixes), prefixes
    assert any("evaluate" in p for p in prefixes), prefixes
    ev = stages.read_table(remote.records["table"])
    assert ev.shape == (127, 699)


@pytest.mark.integration
def test_dask_annotation_and_fetch_batches(dask_cluster, tmp_path, shared_data):
    """The DBpedia route's per-batch annotation and fetch tasks on the cluster build the same table."""
    import shutil

    from distributed import Client

    from flows.runner import run_pipeline
    from tests.kg.conftest import instance_triples

    dump = tmp_path / "dump"
    dump.mkdir()
    shutil.copy(shared_data / "dbpedia" / "dbpedia_3.9.owl", dump / "ontology.owl")
    (dump / "instances.nt").write_text("\n".join(instance_triples()) + "\n", encoding="utf-8")
    source = resolve_input({"corpus": shared_data / "tweets" / "training.txt", "dump": [str(dump)],
                            "features": "types"})
    kw = dict(eval_selectors=("complete",), selector="complete", n_splits=3, artifacts=False, batch_size=1500,
              external_concurrency=2)
    local = run_pipeline(source, RunOptions(**kw), out=tmp_path / "local", home=tmp_path / "h1")
    remote = run_pipeline(source, RunOptions(**kw, dask_address=dask_cluster), out=tmp_path / "dask",
                          home=tmp_path / "h2")
    for stage in ("annotate", "fetch", "table"):
        assert local.records[stage].hash == remote.records[stage].hash, stage
    n_batches = len(list((tmp_path / "h2" / "store" / "annotate-batch").iterdir()))
    assert n_batches == 5  # 6525 texts / 1500
    n_fetch = len(list((tmp_path / "h2" / "store" / "fetch-batch").iterdir()))
    assert n_fetch >= 1
    with Client(dask_cluster, timeout=30) as client:
        prefixes = client.run_on_scheduler(lambda dask_scheduler: {
            str(k): dict(p.state_counts) for k, p in dask_scheduler.task_prefixes.items()})
    # the batch tasks (one task, `run_batch`, for the annotate and the fetch batches): every one of them ran there
    assert "run_batch" in prefixes, sorted(prefixes)
    assert prefixes["run_batch"].get("memory") == n_batches + n_fetch, prefixes["run_batch"]
