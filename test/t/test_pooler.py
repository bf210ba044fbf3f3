"""Runs through a real connection pooler: Debian's PgBouncer, started here
on a free port in front of a throwaway cluster, with one database in
transaction mode and one in session mode.

What decides it: the lab connects without an options startup parameter
(PgBouncer refuses one), probes the pooler and its mode before anything
starts, refuses what transaction mode cannot keep (prepared statements,
settings) with the mode or the place that works, and otherwise runs every
built-in workload, scripts and the TPC-C kit there, counting exactly the
transactions it committed.  scripts/lib.sh installs the package
(PGBL_APT_PACKAGES).
"""
import os
import re
import shutil
import subprocess
import tempfile
import time

import psycopg
import pytest

from conftest import _as_postgres, _free_port, pgbench_cluster

BUILTINS = ["select-only", "simple-update", "tpcb-like"]
CLIENTS, XACTS = 2, 4


class Bouncer:
    """A PgBouncer of our own: its config, pid file and log in a folder of
    its own, run as postgres, stopped (and the folder removed) after."""

    def __init__(self, server):
        exe = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
        assert os.path.exists(exe), "pgbouncer is missing: scripts/lib.sh installs it"
        self.base = tempfile.mkdtemp(prefix="pgbl-bouncer-")
        os.chmod(self.base, 0o755)
        if os.geteuid() == 0:
            shutil.chown(self.base, "postgres", "postgres")
        self.port = _free_port()
        path = os.path.join(self.base, "pgbouncer.ini")
        db = f"host=127.0.0.1 port={server.port} dbname=postgres"
        with open(os.path.join(self.base, "users.txt"), "w") as f:
            f.write('"postgres" ""\n')
        with open(path, "w") as f:
            f.write(f"[databases]\ntx = {db} pool_mode=transaction\nsess = {db} pool_mode=session\n"
                    f"[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {self.port}\n"
                    f"unix_socket_dir =\nauth_type = trust\n"
                    f"auth_file = {self.base}/users.txt\npidfile = {self.base}/pgbouncer.pid\n"
                    f"logfile = {self.base}/pgbouncer.log\ndefault_pool_size = 20\n"
                    f"max_client_conn = 100\n")
        subprocess.run(_as_postgres([exe, "-d", path]), check=True, capture_output=True)
        deadline = time.monotonic() + 30
        while True:
            try:
                with psycopg.connect(self.conninfo("sess"), autocommit=True) as conn:
                    conn.execute("SELECT 1")
                break
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def conninfo(self, db):
        return f"host=127.0.0.1 port={self.port} dbname={db} user=postgres"

    def stop(self):
        try:
            with open(os.path.join(self.base, "pgbouncer.pid")) as f:
                os.kill(int(f.read().strip()), 15)
        except (FileNotFoundError, ProcessLookupError, ValueError):
            pass
        shutil.rmtree(self.base, ignore_errors=True)


@pytest.fixture(scope="module")
def lab():
    for c in pgbench_cluster("pooler", {"max_worker_processes": "16", "log_statement": "all"}, scale=1):
        c.bouncer = Bouncer(c)
        try:
            yield c
        finally:
            c.bouncer.stop()


def run(lab, db, workload=None, **kw):
    """CALL run() against the pooler's database db; (status, transactions,
    query_mode, via, error) of its row, and the TPS run() returned last
    in lab.tps."""
    kw = dict(kw, target=lab.bouncer.conninfo(db))
    kw.setdefault("clients", CLIENTS)
    kw.setdefault("transactions", XACTS)
    names = "".join(f", {k} => %({k})s" for k in kw)
    with lab.connect() as conn:
        cur = conn.execute(f"CALL pgbench_lab.run(%(w)s{names})", dict(kw, w=workload))
        row = cur.fetchone()
        lab.tps = row[[d.name for d in cur.description].index("tps")]
    return lab.sql("SELECT status, transactions, query_mode, via, error FROM pgbench_lab.runs "
                   "WHERE run_id = %s", (row[0],))[0]


def done(lab, db, mode, **kw):
    clients = kw.get("clients", CLIENTS)
    row = run(lab, db, query_mode=mode, **kw)
    assert row == ("done", clients * kw.get("transactions", XACTS), mode or "prepared", "libpq", None), \
        (db, mode, kw, row)


@pytest.mark.parametrize("mode", ["simple", "extended"])
@pytest.mark.parametrize("workload", BUILTINS)
def test_transaction_mode_runs_every_builtin(lab, workload, mode):
    before = lab.scalar("SELECT count(*) FROM pgbench_history")
    logged = len(lab.log())
    done(lab, "tx", mode, workload=workload)
    if workload != "select-only":
        assert lab.scalar("SELECT count(*) FROM pgbench_history") - before == CLIENTS * XACTS
    # the lab does not own a pooled session's search_path: the text stays qualified
    qualified = re.findall(r"pgbench_accounts WHERE aid OPERATOR\(pg_catalog\.=\) (\d+|\$\d)",
                           lab.log()[logged:])
    assert len(qualified) >= CLIENTS * XACTS, lab.log()[logged:][-2000:]
    assert "WHERE aid = " not in lab.log()[logged:]


def test_transaction_mode_runs_scripts(lab):
    done(lab, "tx", "extended", scripts=["select-only@1", "tpcb-like@1"])
    done(lab, "tx", "simple", script="\\set a random(1, 100000)\n"
         "SELECT abalance FROM pgbench_accounts WHERE aid = :a;\n")


def test_transaction_mode_refuses_prepared(lab):
    for kw in ({"workload": "select-only"}, {"workload": "tpcb-like", "query_mode": "prepared"},
               {"script": "SELECT 1;\n", "query_mode": "prepared"}):
        with pytest.raises(psycopg.errors.FeatureNotSupported) as e:
            run(lab, "tx", **kw)
        assert e.value.diag.message_primary == \
            "query_mode prepared cannot run through a connection pooler in transaction mode", kw
        assert "query_mode => 'extended'" in e.value.diag.message_hint


def test_transaction_mode_refuses_settings(lab):
    with pytest.raises(psycopg.errors.FeatureNotSupported) as e:
        run(lab, "tx", "select-only", query_mode="extended", settings='{"work_mem": "5MB"}')
    assert "settings cannot be kept" in e.value.diag.message_primary
    assert "ALTER ROLE" in e.value.diag.message_hint


@pytest.mark.parametrize("mode", [None, "simple", "extended", "prepared"])
def test_session_mode_runs_every_builtin_in_every_mode(lab, mode):
    for workload in BUILTINS:
        done(lab, "sess", mode, workload=workload)


def test_session_mode_keeps_the_settings(lab):
    """The settings are live on every client's connection: a script that
    fails unless work_mem is the run's commits every transaction."""
    script = ("SELECT 1 / (pg_catalog.current_setting('work_mem') "
              "OPERATOR(pg_catalog.=) '5MB')::pg_catalog.int4;\n")
    for mode in ("simple", "extended", "prepared"):
        done(lab, "sess", mode, script=script, settings='{"work_mem": "5MB"}')
    # the check can fail: without the setting, every client fails
    row = run(lab, "sess", script=script, query_mode="simple", clients=1, transactions=1)
    assert row[0] == "failed" and "division by zero" in row[4], row

def test_a_failed_run_has_no_tps_headline(lab):
    """Two transactions committed, then the client fails: run() says
    failed, with no TPS; runs.tps keeps what was measured."""
    row = run(lab, "sess", script="\\set n :n + 1\nSELECT 1 / (3 - :n);\n", variables='{"n": 0}',
              query_mode="extended", clients=1, transactions=5)
    assert row[:2] == ("failed", 2) and "division by zero" in row[4], row
    assert lab.tps is None
    assert lab.scalar("SELECT tps > 0 FROM pgbench_lab.runs ORDER BY run_id DESC LIMIT 1")


def test_tpcc_kit_through_the_pooler(lab):
    """run('tpcc'): the kit's five scripts in its mix, over libpq through
    the pooler in transaction mode."""
    lab.sql("SELECT * FROM pgbench_lab.init_tpcc(1)")
    done(lab, "tx", "extended", workload="tpcc", transactions=10)
    assert all(ok for (ok,) in lab.sql("SELECT ok FROM pgbench_lab.tpcc_check()"))
