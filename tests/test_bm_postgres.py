"""The benchmark server's store on SQLite and on a throw-away PostgreSQL cluster (``initdb``, ``pg_ctl``; skipped
where they are not installed): the same answers on both, a run never claimed twice by concurrent servers, and
two ``acpc-bm-server`` processes sharing one PostgreSQL database playing every run once."""

from __future__ import annotations

import functools
import random
import subprocess
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from acpc_arena.dealer.benchmark_server.store import Result, Store, StoreError
from tests.helpers.bm import (
    LIMIT,
    Line,
    Postgres,
    api,
    metric,
    postgres_cluster,
    start_web_server,
    write_config,
)
from tests.helpers.processes import program, wait_until

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Postgres]:
    yield from postgres_cluster()


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty database: a SQLite file, or a database of the module's PostgreSQL cluster."""
    if request.param == "sqlite":
        return str(tmp_path / "bm.sqlite3")
    cluster: Postgres = request.getfixturevalue("cluster")
    return cluster.create(f"bm_{uuid.uuid4().hex[:12]}")


def test_users_jobs_claims_leases_and_results_read_back_the_same_on_both(target: str) -> None:
    store = Store(target)
    store.add_user("neil", "hash-1", quota=3)
    with pytest.raises(StoreError, match="exists already"):
        store.add_user("neil", "hash-2")
    assert store.password_hash("neil") == "hash-1"
    assert store.users() == [("neil", 3, 0)]
    job = store.add_job("neil", "g.game", "t1", 7, ["LOCAL", "cfr"], [11, 12])
    assert store.users() == [("neil", 3, 2)]
    with pytest.raises(StoreError, match="over quota: 2 of 3 runs used, 2 asked for"):
        store.add_job("neil", "g.game", "t2", 7, ["LOCAL", "cfr"], [1, 2])
    first, second = store.queued_runs()
    assert (first.job_id, first.run_index, first.seed, first.players) == (job, 0, 11, ("LOCAL", "cfr"))
    assert (second.run_index, second.seed) == (1, 12)

    assert store.start_run(first.match_id, job, "server-a")
    assert not store.start_run(first.match_id, job, "server-b")  # claimed already
    assert not store.start_run(second.match_id, job, "server-b")  # one run of a job at a time
    assert not store.finish_run(first.match_id, "server-b", True, "/x.log", None, [])  # not b's run
    results = [Result(0, "a-neil", 5.0, 10), Result(1, "b-cfr", -5.0, 10)]
    assert store.finish_run(first.match_id, "server-a", True, "/x.log", None, results)
    assert store.results(first.match_id) == results
    assert store.run_logs("neil", job, None) == [(f"{job}.0", "/x.log", "done"), (f"{job}.1", None, "queued")]
    assert store.run_logs("ann", job, None) == []

    # server b takes the second run, then stops renewing it: its lease runs out and the run is queued again
    assert store.start_run(second.match_id, job, "server-b")
    assert store.requeue_stale(lease_s=3600) == 0
    assert store.requeue_stale(lease_s=0) == 1
    assert not store.finish_run(second.match_id, "server-b", True, "/late.log", None, [])  # too late: not written
    assert store.state_counts() == {"done": 1, "queued": 1}
    assert store.start_run(second.match_id, job, "server-a")
    assert store.finish_run(second.match_id, "server-a", False, None, "the bot left", [])
    (status,) = store.job_statuses(active_only=False)
    assert (status.runs_left, status.running, status.state) == (0, False, "done")
    assert [(run.run_index, run.state) for run in store.runs(("done", "failed"))] == [(0, "done"), (1, "failed")]
    store.close()

    reader = Store(target, read_only=True)
    assert reader.state_counts() == {"done": 1, "failed": 1}
    with pytest.raises(Exception):  # noqa: B017 (sqlite3's and psycopg's read-only errors differ)
        reader.add_user("zoe", "hash")
    reader.close()


def test_concurrent_claimers_claim_each_run_once_and_one_run_of_a_job_at_a_time(target: str) -> None:
    setup = Store(target)
    setup.add_user("neil", "hash")
    jobs = [setup.add_job("neil", "g.game", f"t{i}", 0, ["random", "random"], [i, i + 1000]) for i in range(40)]
    setup.close()
    claimed: dict[str, list[int]] = {"a": [], "b": []}

    def claim(name: str) -> None:
        store = Store(target)
        order = random.Random(name)
        for _ in range(3):  # each sweeps the queue several times in an order of its own, racing the other
            queued = store.queued_runs()
            order.shuffle(queued)
            for run in queued:
                if store.start_run(run.match_id, run.job_id, name):
                    claimed[name].append(run.match_id)
        store.close()

    claimers = [threading.Thread(target=claim, args=(name,)) for name in claimed]
    for claimer in claimers:
        claimer.start()
    for claimer in claimers:
        claimer.join(120)
    every = claimed["a"] + claimed["b"]
    assert len(every) == len(set(every)) == 40  # each run once, and only one of each job's two runs
    store = Store(target)
    running = store.runs(("running",))
    assert sorted(run.job_id for run in running) == sorted(jobs)  # one run of each job
    store.close()


def test_two_servers_sharing_one_postgresql_database_play_every_run_once(cluster: Postgres, tmp_path: Path) -> None:
    url = cluster.create("shared")
    folders = [tmp_path / "a", tmp_path / "b"]
    ports = []
    for folder in folders:
        folder.mkdir()
        write_config(folder, hands=20)
        ports.append(start_web_server(folder, "--db", url, "--web", "0")[1:])
    requests = []
    for index in range(4):  # two jobs asked of each server, of hosted bots alone: either server may play them
        request = Line(ports[index % 2][0])
        request.send(f"neil test run 2pl ./unused.sh 3 job{index} {index + 1} random random\n")
        requests.append(request)
    for request in requests:
        lines = request.read_until("Matches finished")
        assert lines[0].startswith("# QUEUED job ") and lines[-1] == "Matches finished\n"
        request.close()

    store = Store(url, read_only=True)
    runs = store.runs(("queued", "running", "done", "failed", "cancelled"))
    assert len(runs) == 12 and all(run.state == "done" for run in runs)
    played = {folder.name: sorted(folder.glob("logs/job*/run*")) for folder in folders}
    assert len(played["a"]) + len(played["b"]) == 12  # no run played by both servers
    assert played["a"] and played["b"]  # and each played some
    attempts = store.db.execute("SELECT attempts FROM matches").fetchall()
    assert [row[0] for row in attempts] == [1] * 12
    for run in runs:
        assert run.log is not None and Path(run.log).is_file()
        assert [r.hands for r in store.results(run.match_id)] == [20, 20]
    store.close()

    def every_run_done(page: str) -> bool:
        return bool(api(page)["counts"] == {"done": 12})

    # each server's page reads the shared database (read-only): every run done, wherever it was played
    for _, page in ports:
        wait_until(functools.partial(every_run_done, page), 10, "the page's count of runs")
        assert metric(page, f'acpc_bm_runs_finished_total{{game="{LIMIT}.game"}}') == 12


def test_acpc_bm_user_keeps_its_users_in_postgresql(cluster: Postgres) -> None:
    url = cluster.create("users")
    user = [program("acpc-bm-user"), "--db", url]
    added = subprocess.run([*user, "add", "zoe", "--quota", "5"], input="secret\n", capture_output=True, text=True)
    assert added.returncode == 0, added.stderr
    again = subprocess.run([*user, "add", "zoe"], input="other\n", capture_output=True, text=True)
    assert (again.returncode, again.stderr) == (
        1,
        "acpc-bm-user: user zoe exists already (change the password with passwd)\n",
    )
    listed = subprocess.run([*user, "list"], capture_output=True, text=True)
    assert listed.stdout == "zoe 0 runs of 5\n"
    store = Store(url, read_only=True)
    stored = store.password_hash("zoe")
    store.close()
    assert stored is not None and stored.startswith("$argon2id$")
