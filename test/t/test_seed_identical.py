"""The built-in workloads commit pgbench's rows for the same seed.

run(workload => 'tpcb-like' | 'simple-update', random_seed => s) draws what
`pgbench --random-seed=s` draws, client by client (aid, bid, tid, delta, in
that order, from the generator pgbench seeds for its client of the same
number), in the server and over libpq alike, in every query mode; so with a fixed
number of transactions per client both commit the same pgbench_history rows
and move the same sums into the balances.

One cluster with pgbench's tables (scale 2: the draws of bid and tid have a
range); before each run the data set is put back to pgbench -i's (balances
0, no history), and pgbench's own run and ours are compared row for row.
"""
from collections import Counter

import pytest

from conftest import call_run, pgbench_cluster

SCALE = 2
TRANSACTIONS = 25   # per client: few, so that it stays quick under ASan
SEED = 20260117


@pytest.fixture(scope="module")
def lab():
    yield from pgbench_cluster("seedident", scale=SCALE)


def fresh(lab):
    """The data set as pgbench -i leaves it: every balance 0, no history."""
    with lab.connect() as conn:
        conn.execute("TRUNCATE pgbench_history")
        for table, col in (("pgbench_accounts", "abalance"), ("pgbench_tellers", "tbalance"),
                           ("pgbench_branches", "bbalance")):
            conn.execute(f"UPDATE {table} SET {col} = 0 WHERE {col} <> 0")


def committed(lab):
    """What the run committed: its history rows as a multiset, and the sums."""
    rows = Counter(lab.sql("SELECT aid, bid, tid, delta FROM pgbench_history"))
    sums = lab.sql("SELECT (SELECT sum(abalance) FROM pgbench_accounts), "
                   "(SELECT sum(bbalance) FROM pgbench_branches), "
                   "(SELECT sum(tbalance) FROM pgbench_tellers)")[0]
    changed = lab.sql("SELECT (SELECT count(*) FROM pgbench_accounts WHERE abalance <> 0), "
                      "(SELECT count(*) FROM pgbench_tellers WHERE tbalance <> 0), "
                      "(SELECT count(*) FROM pgbench_branches WHERE bbalance <> 0)")[0]
    return rows, sums, changed


def pgbench_commits(lab, builtin, clients, mode):
    fresh(lab)
    args = ["-n", "-b", builtin, "-t", str(TRANSACTIONS), f"--random-seed={SEED}",
            "-c", str(clients), "-j", str(clients)]
    if mode:
        args += ["-M", mode]
    out = lab.run_client("pgbench", *args, "postgres", check=False)
    assert out.returncode == 0, out.stderr
    return committed(lab)


def lab_commits(lab, workload, clients, via, mode=None):
    fresh(lab)
    kw = dict(clients=clients, transactions=TRANSACTIONS, random_seed=SEED)
    if via:
        kw["via"] = via
    if mode:
        kw["query_mode"] = mode
    run_id = call_run(lab, workload, **kw)
    assert lab.sql("SELECT transactions, query_mode FROM pgbench_lab.runs WHERE run_id = %s",
                   (run_id,))[0] == (clients * TRANSACTIONS, mode or "prepared")
    return committed(lab)


@pytest.mark.parametrize("clients,mode", [(1, "prepared"), (3, "simple")])
@pytest.mark.parametrize("workload", ["tpcb-like", "simple-update"])
def test_builtin_commits_pgbench_rows(lab, workload, clients, mode):
    theirs = pgbench_commits(lab, workload, clients, mode)
    rows, sums, changed = theirs
    assert sum(rows.values()) == clients * TRANSACTIONS
    # the comparison means something: the draws vary, and the balances moved
    assert len({r[0] for r in rows}) > TRANSACTIONS // 2, rows
    assert sums[0] == sum(r[3] for r in rows.elements())
    if workload == "tpcb-like":
        assert sums[1] == sums[2] == sums[0]
    else:
        assert sums[1] == sums[2] == 0
    # every query mode: pgbench's own (NULL is prepared), and extended
    for via in (None, "libpq"):
        for ours_mode in (mode, "extended"):
            ours = lab_commits(lab, workload, clients, via, ours_mode)
            assert ours[0] == rows, (via, ours_mode, ours[0] - rows, rows - ours[0])
            assert ours[1:] == theirs[1:], (via, ours_mode, ours[1:], theirs[1:])


def test_other_seed_other_rows(lab):
    """The comparison above can fail: another seed commits other rows."""
    theirs = pgbench_commits(lab, "tpcb-like", 1, None)
    fresh(lab)
    call_run(lab, "tpcb-like", clients=1, transactions=TRANSACTIONS, random_seed=SEED + 1)
    assert committed(lab)[0] != theirs[0]


def script_commits(lab, name, clients, via):
    """scripts => '{name}': the built-in's script text, through the interpreter."""
    fresh(lab)
    with lab.connect() as conn:
        row = conn.execute("CALL pgbench_lab.run(scripts => %s, clients => %s, transactions => %s, "
                           "random_seed => %s, via => %s)",
                           ([name], clients, TRANSACTIONS, SEED, via)).fetchone()
    assert row[1] == "done", row
    return committed(lab)


@pytest.mark.parametrize("workload", ["tpcb-like", "simple-update"])
def test_builtin_script_commits_what_the_workload_commits(lab, workload):
    """The three forms of a built-in (the in-server plans, the libpq
    statements, the script text the interpreter runs) come from one
    definition: by name among scripts, in the server and over libpq, it
    commits the rows the workload commits, which are pgbench's."""
    theirs = lab_commits(lab, workload, 3, None)
    for via in ("spi", "libpq"):
        assert script_commits(lab, workload, 3, via) == theirs, via
