"""The client path: runs whose clients send the workload over libpq.

One cluster with pgbench's tables (scale 1); role alice must authenticate
with a password over TCP (scram-sha-256), every other role is trusted.
"""
import os
import re
import socket
import threading
import time

import psycopg
import pytest

from conftest import Background, Cluster

START_SIG = "pgbench_lab.start"


@pytest.fixture(scope="module")
def lab():
    c = Cluster("libpq", hba=["host all alice 127.0.0.1/32 scram-sha-256"])
    try:  # a failed set-up must not leave a server running
        c.start()
        c.sql("CREATE EXTENSION pgbench_lab CASCADE")
        c.run_client("pgbench", "-i", "-s", "1", "-q", "postgres")
        c.sql("CREATE ROLE alice LOGIN PASSWORD 'sesame-4711'")
        c.sql("CREATE ROLE bob LOGIN PASSWORD 'bob-pw-0815'")
        for role in ("alice", "bob"):
            c.sql(f"GRANT EXECUTE ON FUNCTION {START_SIG} TO {role}")
            c.sql(f"GRANT SELECT, UPDATE, INSERT ON pgbench_accounts, pgbench_branches, "
                  f"pgbench_tellers, pgbench_history TO {role}")
        yield c
    finally:
        c.destroy()


# the run has stopped when its client workers are gone (an in-server client
# stuck on a lock would stay until the coordinator's 5 s grace ends)
NO_CLIENTS = ("SELECT count(*) = 0 FROM pg_stat_activity "
              "WHERE backend_type = 'pgbench_lab client'")


def tcp_target(lab, user, password=None):
    t = f"host=127.0.0.1 port={lab.port} dbname=postgres user={user}"
    return t + (f" password={password}" if password else "")


def run_row(lab, run_id):
    return lab.sql("SELECT status, transactions, via, connections, connection_avg_ms, "
                   "tps, tps_without_connections, target_display, error "
                   "FROM pgbench_lab.runs WHERE run_id = %s", (run_id,))[0]


def client_workers(lab):
    return lab.scalar("SELECT count(*) FROM pg_stat_activity "
                      "WHERE backend_type = 'pgbench_lab client'")


def test_tpcb_reports_exactly_what_it_committed(lab):
    lab.sql("TRUNCATE pgbench_history")
    before = lab.scalar("SELECT sum(abalance) FROM pgbench_accounts")
    with lab.connect() as conn:
        r = conn.execute("CALL pgbench_lab.run('tpcb-like', clients => 2, transactions => 40, "
                         "via => 'libpq')").fetchone()
    run_id, status, done = r[0], r[1], r[2]
    assert status == "done", r
    assert done == 80
    assert lab.scalar("SELECT count(*) FROM pgbench_history") == 80
    # every committed transaction moved its delta into accounts, tellers, branches
    moved = lab.scalar("SELECT sum(delta) FROM pgbench_history")
    assert lab.scalar("SELECT sum(abalance) FROM pgbench_accounts") - before == moved
    row = run_row(lab, run_id)
    assert row[2] == "libpq"
    assert row[3] == 2                      # one connection per client, before the clock
    assert row[4] > 0
    assert row[6] == pytest.approx(row[5])  # no connecting during the run
    assert "host=" in row[7] and "password" not in row[7]


def test_report_and_compare_name_the_path(lab):
    """A libpq run is never called in-server: report() names the path and
    the target, and compare() shows each run's path."""
    with lab.connect() as conn:
        spi = conn.execute("CALL pgbench_lab.run('select-only', transactions => 20)").fetchone()[0]
        lpq = conn.execute("CALL pgbench_lab.run('select-only', transactions => 20, "
                           "via => 'libpq')").fetchone()[0]
    text = " ".join(r[0].strip() for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (lpq,)))
    assert "in-server" not in text and "no network round trips" not in text, text
    assert "Figures (over libpq, one connection per client, to host=" in text, text
    assert "target server: PostgreSQL" in text
    text = " ".join(r[0].strip() for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (spi,)))
    assert "Figures (in-server: no network round trips)" in text
    vias = lab.sql("SELECT via FROM pgbench_lab.compare(ARRAY[%s, %s]::bigint[])", (spi, lpq))
    assert vias[0] == ("spi",) and vias[1][0].startswith("libpq to host="), vias


def test_a_remote_run_is_labelled_with_its_target(lab):
    """A run against another server records that server's version and
    settings (and its system_info() where it has pgbench_lab), read there:
    report() and compare() show the target, not the launching server."""
    other = Cluster("libpq_target", {"shared_buffers": "48MB", "work_mem": "7MB"})
    try:
        other.start()
        other.run_client("pgbench", "-i", "-s", "1", "-q", "postgres")
        other.sql("CREATE EXTENSION pgbench_lab CASCADE")
        target = f"host=127.0.0.1 port={other.port} dbname=postgres user=postgres"
        with lab.connect() as conn:
            here = conn.execute("CALL pgbench_lab.run('select-only', transactions => 20)").fetchone()[0]
            there = conn.execute("CALL pgbench_lab.run('select-only', transactions => 20, via => 'libpq', "
                                 "target => %s)", (target,)).fetchone()[0]
        server, system = lab.sql("SELECT settings->'server', system FROM pgbench_lab.runs "
                                 "WHERE run_id = %s", (there,))[0]
        assert server["shared_buffers"] == "48MB" and server["work_mem"] == "7MB", server
        assert server["server_version"] == other.scalar("SHOW server_version")
        assert lab.scalar("SHOW shared_buffers") != "48MB"
        assert system is not None and system["data_directory"] == os.path.realpath(other.scalar("SHOW data_directory")), system
        text = " ".join(r[0].strip() for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (there,)))
        assert "target server: PostgreSQL" in text and "shared_buffers 48MB" in text, text
        diff = lab.sql("SELECT via, server_differences FROM pgbench_lab.compare(ARRAY[%s, %s]::bigint[])",
                       (here, there))
        assert diff[1][0].startswith("libpq to ") and f"port='{other.port}'" in diff[1][0], diff
        assert "shared_buffers=48MB" in diff[1][1] and "work_mem=7MB" in diff[1][1], diff
    finally:
        other.destroy()


def test_libpq_connect_records_connection_time(lab):
    with lab.connect() as conn:
        r = conn.execute("CALL pgbench_lab.run('select-only', clients => 1, duration => '2 s', "
                         "via => 'libpq-connect')").fetchone()
    assert r[1] == "done", r
    status, xacts, via, conns, conn_ms, tps, tps_wo, _, _ = run_row(lab, r[0])
    assert via == "libpq-connect"
    assert xacts > 0
    assert conns == xacts                   # one connection per transaction
    assert conn_ms > 0
    assert tps_wo > tps                     # connecting took part of the time


def test_the_statements_are_pgbench_s(lab):
    """pgbench's statements, with the tables' schema: the lab pinned the
    connection's search_path, so the operators go bare, as pgbench's."""
    run_id = lab.scalar("SELECT pgbench_lab.start('tpcb-like', clients => 1, duration => '30 s', "
                        "via => 'libpq')")
    try:
        lab.poll("SELECT count(*) > 0 FROM pg_stat_activity WHERE application_name = 'pgbench_lab' "
                 "AND query = 'UPDATE \"public\".pgbench_accounts SET abalance = abalance "
                 "+ $1 WHERE aid = $2;'")
    finally:
        assert lab.scalar("SELECT pgbench_lab.cancel(%s)", (run_id,))


# look-alikes of what the workload's statements use, planted in public
LOOKALIKES = [("+", "int", "int", "int"), ("=", "int", "int", "bool"),
              ("=", "bigint", "bigint", "bool"), ("+", "bigint", "bigint", "bigint"),
              ("=", "int", "bigint", "bool"), ("<>", "float8", "float8", "bool")]


def test_statements_resolve_nothing_through_the_target_s_search_path(lab):
    """A database owner who plants public.+ and public.= and puts public
    first in the database's search_path gets no code run by a libpq run:
    the statements name their tables, and their bare operators run on a
    connection whose search_path the lab pinned."""
    lab.sql("CREATE DATABASE planted")
    lab.run_client("pgbench", "-i", "-s", "1", "-q", "planted")
    with lab.connect(dbname="planted") as conn:
        for i, (op, left, right, ret) in enumerate(LOOKALIKES):
            conn.execute(f"CREATE FUNCTION public.trojan_{i}(a {left}, b {right}) RETURNS {ret} "
                         f"LANGUAGE plpgsql AS $t$ BEGIN RAISE WARNING 'TROJAN {left} {op} {right} "
                         f"called by %', current_user; RETURN NULL; END $t$")
            conn.execute(f"CREATE OPERATOR public.{op} (LEFTARG = {left}, RIGHTARG = {right}, "
                         f"FUNCTION = public.trojan_{i})")
    lab.sql("ALTER DATABASE planted SET search_path = public, pg_catalog")
    mark = len(lab.log())
    # the look-alikes work: pgbench's own text, resolved through that path, calls them
    with lab.connect(dbname="planted") as conn:
        conn.execute("SELECT abalance FROM pgbench_accounts WHERE aid = 1")
    assert "TROJAN int = int" in lab.log()[mark:]
    mark = len(lab.log())
    target = f"host=127.0.0.1 port={lab.port} dbname=planted user=postgres"
    try:
        for via in ("libpq", "libpq-connect"):
            with lab.connect() as conn:
                r = conn.execute("CALL pgbench_lab.run('tpcb-like', clients => 1, transactions => 10, "
                                 "via => %s, target => %s)", (via, target)).fetchone()
            assert r[1] == "done" and r[2] == 10, r
        assert "TROJAN" not in lab.log()[mark:]
        # and the statements did their work: pgbench's sums agree
        a, t, b, h = lab.sql("""SELECT (SELECT sum(abalance) FROM pgbench_accounts),
                                       (SELECT sum(tbalance) FROM pgbench_tellers),
                                       (SELECT sum(bbalance) FROM pgbench_branches),
                                       (SELECT sum(delta) FROM pgbench_history)""",
                             dbname="planted")[0]
        assert a == t == b == h
        assert lab.scalar("SELECT count(*) FROM pgbench_history", dbname="planted") == 20
    finally:
        lab.sql("DROP DATABASE planted WITH (FORCE)")


def test_cancel_during_connection_setup(lab):
    """A target that accepts TCP connections and never answers."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(4)
    silent.settimeout(30)
    port = silent.getsockname()[1]
    runs = lab.scalar("SELECT count(*) FROM pgbench_lab.runs")
    outcome = {}
    conn = lab.connect()
    pid = conn.info.backend_pid

    def call_start():
        try:
            conn.execute("SELECT pgbench_lab.start('select-only', via => 'libpq', target => %s)",
                         (f"host=127.0.0.1 port={port} dbname=postgres user=postgres",))
        except psycopg.Error as e:
            outcome["error"] = e
        outcome["at"] = time.monotonic()

    t = threading.Thread(target=call_start)
    t.start()
    peer, _ = silent.accept()               # the connection attempt arrived
    try:
        lab.poll("SELECT wait_event = 'Extension' FROM pg_stat_activity WHERE pid = %s", (pid,))
        t0 = time.monotonic()
        assert lab.scalar("SELECT pg_cancel_backend(%s)", (pid,))
        t.join(10)
        assert not t.is_alive()
        assert isinstance(outcome.get("error"), psycopg.errors.QueryCanceled), outcome
        assert outcome["at"] - t0 < 1.0
    finally:
        peer.close()
        silent.close()
        conn.close()
    assert_nothing_started(lab, runs)


def assert_nothing_started(lab, runs):
    """A refused or failed start leaves no run row and no client worker."""
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs") == runs
    assert client_workers(lab) == 0


class Silent:
    """A TCP listener that accepts connections and never says a word: a
    target whose server hangs before it answers (the connection itself
    succeeds, so only a timeout on the whole start-up can end the wait)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.peers = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                self.peers.append(self.sock.accept()[0])
            except OSError:
                return

    def target(self, extra=""):
        return f"host=127.0.0.1 port={self.port} dbname=postgres user=postgres {extra}"

    def wait_peers(self, n, timeout=30):
        deadline = time.monotonic() + timeout
        while len(self.peers) < n and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(self.peers) >= n, f"{len(self.peers)} of {n} connection attempts arrived"

    def close(self):
        self.sock.close()
        for p in self.peers:
            p.close()


START_LIBPQ = "SELECT pgbench_lab.start('select-only', via => 'libpq', target => %s)"


def assert_timed_out(error, seconds):
    assert isinstance(error, psycopg.errors.SqlclientUnableToEstablishSqlconnection), error
    assert error.diag.sqlstate == "08001"
    assert error.diag.message_primary == \
        f"could not connect to the target server: timeout expired after {seconds} s"
    assert "connect_timeout" in error.diag.message_hint


def test_connect_timeout_bounds_start(lab):
    """start() gives up on a silent target after the target's connect_timeout;
    connect_timeout=0 waits until cancelled, and a cancel ends it at once."""
    silent = Silent()
    runs = lab.scalar("SELECT count(*) FROM pgbench_lab.runs")
    waiting = lab.connect()
    bounded = lab.connect()
    try:
        unbounded = Background(waiting, START_LIBPQ, (silent.target("connect_timeout=0"),))
        silent.wait_peers(1)
        t0 = time.monotonic()
        timed = Background(bounded, START_LIBPQ, (silent.target("connect_timeout=2"),))
        silent.wait_peers(2)
        assert_timed_out(timed.join(30), 2)
        assert timed.ended_at - t0 < 2 + 5      # a bound on the hang, not a speed
        # connect_timeout=0: no limit; it waited longer than the other one and goes on
        assert unbounded.is_alive()
        lab.poll("SELECT wait_event = 'Extension' FROM pg_stat_activity WHERE pid = %s",
                 (unbounded.pid,))
        t1 = time.monotonic()
        assert lab.scalar("SELECT pg_cancel_backend(%s)", (unbounded.pid,))
        assert isinstance(unbounded.join(10), psycopg.errors.QueryCanceled)
        assert unbounded.ended_at - t1 < 5
    finally:
        silent.close()
        waiting.close()
        bounded.close()
    assert_nothing_started(lab, runs)


def test_connect_timeout_default_is_10_s(lab):
    silent = Silent()
    conn = lab.connect()
    try:
        t0 = time.monotonic()
        call = Background(conn, START_LIBPQ, (silent.target(),))
        error = call.join(60)
        assert_timed_out(error, 10)
        assert call.ended_at - t0 < 10 + 5
    finally:
        silent.close()      # first: a statement still waiting then ends
        conn.close()
    assert client_workers(lab) == 0


class Proxy:
    """TCP forwarder to the cluster that can stop answering new connections
    (silent, or after the first `forward` connections)."""

    def __init__(self, port, forward=None):
        self.port_to = port
        self.silent = False
        self.forward = forward
        self.held = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            if self.forward is not None:
                self.silent = self.forward <= 0
                self.forward -= 1
            if self.silent:
                self.held.append(c)
                continue
            s = socket.create_connection(("127.0.0.1", self.port_to))
            for a, b in ((c, s), (s, c)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a, b):
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for x in (a, b):
            try:
                x.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.sock.close()
        for c in self.held:
            c.close()


def silence_during_run(lab, proxy, run_id):
    """Once the run commits transactions, the proxy stops answering; returns
    when a client (reconnecting for its next transaction) is held there."""
    lab.poll("SELECT transactions > 0 FROM pgbench_lab_internal.run_live(%s)", (run_id,))
    proxy.silent = True
    deadline = time.monotonic() + 30
    while not proxy.held and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proxy.held, "the client did not try to connect again"


def test_cancel_while_a_client_connects_during_the_run(lab):
    proxy = Proxy(lab.port)
    try:
        run_id = lab.scalar("SELECT pgbench_lab.start('select-only', duration => '60 s', "
                            "via => 'libpq-connect', target => %s)",
                            (f"host=127.0.0.1 port={proxy.port} dbname=postgres user=postgres",))
        silence_during_run(lab, proxy, run_id)
        t0 = time.monotonic()
        assert lab.scalar("SELECT pgbench_lab.cancel(%s)", (run_id,))
        lab.poll(NO_CLIENTS, timeout=10)
        assert time.monotonic() - t0 < 1.0
    finally:
        proxy.close()
    lab.poll("SELECT status <> 'running' FROM pgbench_lab.runs WHERE run_id = %s", (run_id,))
    assert run_row(lab, run_id)[0] == "cancelled"


def test_connect_timeout_bounds_a_client_worker(lab):
    """A client worker gives up on a target that stopped answering, both
    before the clock (via libpq) and during the run (libpq-connect)."""
    # the launching session's connection gets through, the client's does not
    proxy = Proxy(lab.port, forward=1)
    conn = lab.connect()
    try:
        target = f"host=127.0.0.1 port={proxy.port} dbname=postgres user=postgres connect_timeout=2"
        call = Background(conn, START_LIBPQ, (target,))
        error = call.join(60)
        assert len(proxy.held) == 1
        assert isinstance(error, psycopg.errors.SqlclientUnableToEstablishSqlconnection), error
        assert "client 1 could not start: could not connect to the target server: " \
               "timeout expired after 2 s" == error.diag.message_primary
    finally:
        proxy.close()
        conn.close()
    assert client_workers(lab) == 0

    proxy = Proxy(lab.port)
    try:
        target = f"host=127.0.0.1 port={proxy.port} dbname=postgres user=postgres connect_timeout=2"
        run_id = lab.scalar("SELECT pgbench_lab.start('select-only', duration => '60 s', "
                            "via => 'libpq-connect', target => %s)", (target,))
        silence_during_run(lab, proxy, run_id)
        t0 = time.monotonic()
        with lab.connect() as conn:
            row = conn.execute("CALL pgbench_lab.wait(%s)", (run_id,)).fetchone()
        assert time.monotonic() - t0 < 2 + 5
    finally:
        proxy.close()
    assert row[1] == "failed", row
    # the run's error is the client's, then its detail (which server did not answer)
    assert row[7].startswith("client 1: could not connect to the target server: timeout expired "
                             "after 2 s (SQLSTATE 08001)"), row[7]
    lab.poll(NO_CLIENTS, timeout=10)


def test_cancel_during_a_query(lab):
    with lab.connect(autocommit=False) as holder:
        holder.execute("SELECT * FROM pgbench_branches FOR UPDATE")
        run_id = lab.scalar("SELECT pgbench_lab.start('tpcb-like', clients => 1, "
                            "duration => '60 s', via => 'libpq')")
        lab.poll("SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = 'pgbench_lab' "
                 "AND wait_event_type = 'Lock'")
        t0 = time.monotonic()
        assert lab.scalar("SELECT pgbench_lab.cancel(%s)", (run_id,))
        lab.poll(NO_CLIENTS, timeout=10)
        elapsed = time.monotonic() - t0
        # this server's query was cancelled too: nobody waits for the lock
        lab.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench_lab' "
                 "AND wait_event_type = 'Lock'", timeout=5)
        holder.rollback()
    assert elapsed < 1.0
    lab.poll("SELECT status <> 'running' FROM pgbench_lab.runs WHERE run_id = %s", (run_id,))
    assert run_row(lab, run_id)[0] == "cancelled"


def refused(lab, user, target):
    runs = lab.scalar("SELECT count(*) FROM pgbench_lab.runs")
    with pytest.raises(psycopg.errors.ProhibitedSqlStatementAttempted) as e:
        lab.sql("SELECT pgbench_lab.start('select-only', transactions => 1, via => 'libpq', "
                "target => %s)", (target,), user=user)
    assert "password is required" in str(e.value)
    assert_nothing_started(lab, runs)


def test_non_superuser_needs_a_password(lab):
    with lab.connect(user="alice", password="sesame-4711") as conn:
        with pytest.raises(psycopg.errors.ProhibitedSqlStatementAttempted):
            conn.execute("SELECT pgbench_lab.start('select-only', via => 'libpq')")
    # no password in target
    runs = lab.scalar("SELECT count(*) FROM pgbench_lab.runs")
    with lab.connect(user="alice", password="sesame-4711") as conn:
        with pytest.raises(psycopg.errors.ProhibitedSqlStatementAttempted):
            conn.execute("SELECT pgbench_lab.start('select-only', via => 'libpq', target => %s)",
                         (tcp_target(lab, "alice"),))
    # bob gives a password, but the server trusts him and never asks for it
    refused(lab, "bob", tcp_target(lab, "bob", "bob-pw-0815"))
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs") == runs


def test_password_works_and_is_never_recorded(lab):
    with lab.connect(user="alice", password="sesame-4711") as conn:
        run_id = conn.execute("SELECT pgbench_lab.start('select-only', transactions => 5, "
                              "via => 'libpq', target => %s)",
                              (tcp_target(lab, "alice", "sesame-4711"),)).fetchone()[0]
        r = conn.execute("CALL pgbench_lab.wait(%s)", (run_id,)).fetchone()
    assert r[1] == "done", r
    assert r[2] == 5
    row = run_row(lab, run_id)
    assert "user='alice'" in row[7]
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs r WHERE r::text LIKE '%%sesame%%'") == 0
    assert "sesame" not in lab.log()


@pytest.mark.parametrize("args, error", [
    ("via => 'carrier-pigeon'", psycopg.errors.InvalidParameterValue),
    ("via => 'spi', target => 'host=x'", psycopg.errors.InvalidParameterValue),
    ("target => 'nonsense'", psycopg.errors.InvalidParameterValue),
    ("via => 'libpq', target => 'nonsense'", psycopg.errors.InvalidParameterValue),
    ("via => 'libpq', target => 'host=127.0.0.1 connect_timeout=soon'",
     psycopg.errors.InvalidParameterValue),
    ("via => 'libpq', target => 'host=127.0.0.1 connect_timeout=99999999999'",
     psycopg.errors.InvalidParameterValue),
    ("via => 'libpq', target => 'host=127.0.0.1 port=1 dbname=postgres'",
     psycopg.errors.SqlclientUnableToEstablishSqlconnection),
])
def test_bad_arguments_refused(lab, args, error):
    with pytest.raises(error):
        lab.sql(f"SELECT pgbench_lab.start('select-only', {args})")
    assert client_workers(lab) == 0


def test_a_target_implies_libpq(lab):
    """A conninfo can only be reached over libpq: target without via runs
    there; only an explicit via => 'spi' with a target is refused."""
    target = tcp_target(lab, "alice", "sesame-4711")
    with lab.connect() as conn:
        row = conn.execute("CALL pgbench_lab.run('select-only', transactions => 3, target => %s)",
                           (target,)).fetchone()
        assert run_row(lab, row[0])[:3] == ("done", 3, "libpq")
        row = conn.execute("CALL pgbench_lab.run('select-only', transactions => 3, via => NULL)").fetchone()
        assert run_row(lab, row[0])[:3] == ("done", 3, "spi"), "NULL without a target: in the server"
    with pytest.raises(psycopg.errors.InvalidParameterValue) as e:
        lab.sql("CALL pgbench_lab.run('select-only', transactions => 3, via => 'spi', target => %s)",
                (target,))
    assert e.value.diag.message_primary == "via spi cannot run against a target"
    assert "Leave via out" in e.value.diag.message_hint


CONNECTION_COST = ["label", "spi_run_id", "libpq_run_id", "connect_run_id", "spi_tps", "libpq_tps",
                   "connect_tps", "connect_tps_without_connections", "connection_avg_ms",
                   "spi_vs_libpq", "libpq_vs_connect", "finding", "experiment_id"]


def test_connection_cost(lab):
    with lab.connect() as conn:
        r = conn.execute("CALL pgbench_lab.connection_cost('select-only', 1, '1 s')").fetchone()
    res = dict(zip(CONNECTION_COST, r))
    vias = lab.sql("SELECT via FROM pgbench_lab.runs WHERE label = %s ORDER BY run_id",
                   (res["label"],))
    assert vias == [("spi",), ("libpq",), ("libpq-connect",)]
    assert all(res[k] > 0 for k in ("spi_tps", "libpq_tps", "connect_tps", "connection_avg_ms"))
    assert res["spi_vs_libpq"] == pytest.approx(res["spi_tps"] / res["libpq_tps"])
    assert res["libpq_vs_connect"] == pytest.approx(res["libpq_tps"] / res["connect_tps"])
    assert "tps" in res["finding"] and "'" not in res["finding"]
    exp = lab.sql("""SELECT e.kind, e.status, array_agg(x.run_id ORDER BY x.variant)
                      FROM pgbench_lab.experiments e
                      JOIN pgbench_lab.experiment_runs x USING (experiment_id)
                     WHERE e.label = %s GROUP BY e.kind, e.status""", (res["label"],))
    assert exp == [("connection_cost", "done",
                    [res["spi_run_id"], res["libpq_run_id"], res["connect_run_id"]])]
    eid = lab.scalar("SELECT experiment_id FROM pgbench_lab.experiments WHERE label = %s",
                     (res["label"],))
    text = "\n".join(r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (eid,)))
    assert "connection cost" in text and "libpq" in text


def test_connection_cost_in_rounds(lab):
    """Two rounds of 0.2-s runs, the second in the other order; the result
    gives each path's median and first run, and the two ratios it states,
    in-server/libpq and libpq/libpq-connect, are the medians of the ratios
    paired by round, judged with their intervals (two rounds: no direction
    called).  Nothing here depends on which path is faster."""
    with lab.connect() as conn:
        r = conn.execute("CALL pgbench_lab.connection_cost('select-only', 1, '0.2 s', rounds => 2)").fetchone()
    res = dict(zip(CONNECTION_COST, r))
    eid = res["experiment_id"]
    params = lab.scalar("SELECT params FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,))
    assert (params["rounds"], params["smallest_effect"], params["confidence"]) == (2, 0.02, 0.95)
    runs = lab.sql("SELECT x.round, r.via, r.run_id, r.tps, r.status FROM pgbench_lab.experiment_runs x"
                   " JOIN pgbench_lab.runs r USING (run_id) WHERE x.experiment_id = %s ORDER BY x.ordinal", (eid,))
    assert [(n, via) for n, via, *_ in runs] == [(1, "spi"), (1, "libpq"), (1, "libpq-connect"),
                                                  (2, "libpq-connect"), (2, "libpq"), (2, "spi")], runs
    assert all(r[4] == "done" and r[3] > 0 for r in runs), runs
    tps = {(n, via): t for n, via, _, t, _ in runs}
    assert res["spi_run_id"] == runs[0][2] and res["connect_run_id"] == runs[2][2]
    assert res["spi_tps"] == pytest.approx((tps[1, "spi"] + tps[2, "spi"]) / 2)
    verdicts = lab.sql("SELECT comparison, measure, rounds, ratio, ratio_low, ratio_high, coverage, verdict, decided, basis"
                       " FROM pgbench_lab.experiment_verdicts(%s)", (eid,))
    assert [v[0] for v in verdicts] == ["in-server against libpq", "libpq against libpq-connect"], verdicts
    for (name, measure, rounds, ratio, low, high, coverage, verdict, decided, basis), (b, a) in \
            zip(verdicts, [("spi", "libpq"), ("libpq", "libpq-connect")]):
        paired = sorted(tps[n, b] / tps[n, a] for n in (1, 2))
        assert (measure, rounds, coverage) == ("tps", 2, 0.5)
        assert (low, high) == (pytest.approx(paired[0]), pytest.approx(paired[1]))
        assert ratio == pytest.approx((paired[0] * paired[1]) ** 0.5)
        assert (verdict, decided) == ("undecided", False)
        assert basis == "2 rounds give at most 50.0 %; 6 needed for 95.0 %"
    assert res["spi_vs_libpq"] == pytest.approx(verdicts[0][3])
    assert res["libpq_vs_connect"] == pytest.approx(verdicts[1][3])
    assert " (medians of 2 rounds). TPS in-server against libpq ×" in res["finding"], res["finding"]
    assert "50.0 % interval" in res["finding"] and "'" not in res["finding"]
    text = "\n".join(r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (eid,)))
    assert re.search(r"(?m)^ +round +spi +libpq +libpq-connect$", text), text
    assert re.search(r"(?m)^ +2( +[\d.]+){3}$", text), text
    assert re.search(r"(?m)^ +libpq-connect +2 +[\d.]+", text), text


def test_connection_cost_needs_call_outside_a_transaction(lab):
    runs = lab.scalar("SELECT count(*) FROM pgbench_lab.runs")
    with lab.connect() as conn:
        with pytest.raises(psycopg.errors.InvalidTransactionTermination):
            with conn.transaction():
                conn.execute("CALL pgbench_lab.connection_cost('select-only', 1, '1 s')")
    with pytest.raises(psycopg.errors.NullValueNotAllowed):
        lab.sql("CALL pgbench_lab.connection_cost(NULL)")
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs") == runs


# -- many clients from few workers (threads) ---------------------------------

@pytest.fixture(scope="module")
def crowd():
    """PostgreSQL's default max_worker_processes (8), room for 200 clients."""
    c = Cluster("crowd", {"max_worker_processes": "8", "max_connections": "260"})
    try:  # a failed set-up must not leave a server running
        c.start()
        c.sql("CREATE EXTENSION pgbench_lab CASCADE")
        c.run_client("pgbench", "-i", "-s", "1", "-q", "postgres")
        yield c
    finally:
        c.destroy()


def target_backends(c):
    return c.scalar("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pgbench_lab'")


def test_200_clients_on_two_workers(crowd):
    """200 libpq clients, 2 threads: 3 worker slots of 8; every client runs
    its transactions and tpcb-like commits exactly what it reports."""
    crowd.sql("TRUNCATE pgbench_history")
    r = crowd.sql("CALL pgbench_lab.run('tpcb-like', clients => 200, transactions => 2, "
                  "via => 'libpq', threads => 2)")[0]
    assert r[1] == "done", r
    assert r[2] == 400 == crowd.scalar("SELECT count(*) FROM pgbench_history")
    assert crowd.sql("SELECT clients, connections FROM pgbench_lab.runs WHERE run_id = %s",
                     (r[0],))[0] == (200, 200)
    crowd.poll(NO_CLIENTS)
    assert target_backends(crowd) == 0


def test_200_clients_connecting_per_transaction(crowd):
    r = crowd.sql("CALL pgbench_lab.run('select-only', clients => 200, transactions => 1, "
                  "via => 'libpq-connect', threads => 2)")[0]
    assert r[1] == "done" and r[2] == 200, r
    assert crowd.scalar("SELECT connections FROM pgbench_lab.runs WHERE run_id = %s", (r[0],)) == 200
    assert target_backends(crowd) == 0


def test_threads_refused_outside_its_range(crowd):
    for threads in (0, 5):
        with pytest.raises(psycopg.errors.InvalidParameterValue, match="threads must be from 1"):
            crowd.sql("SELECT pgbench_lab.start('select-only', clients => 4, via => 'libpq', "
                      "threads => %s)", (threads,))
    with pytest.raises(psycopg.errors.InvalidParameterValue, match="threads needs via libpq"):
        crowd.sql("SELECT pgbench_lab.start('select-only', threads => 1)")
    # a worker's share of connections must fit in its open-file limit
    limit = int(crowd.scalar("SELECT pg_read_file('/proc/' || pg_backend_pid() || '/limits')")
                .split("Max open files")[1].split()[0])
    if limit < 100000:
        with pytest.raises(psycopg.errors.ConfigurationLimitExceeded, match="open-file limit"):
            crowd.sql("SELECT pgbench_lab.start('select-only', clients => %s, via => 'libpq', "
                      "threads => 1)", (limit,))


@pytest.mark.parametrize("how", ["cancel", "terminate"])
def test_a_stopped_run_leaves_no_connection(crowd, how):
    run_id = crowd.scalar("SELECT pgbench_lab.start('select-only', clients => 40, "
                          "duration => '60 s', via => 'libpq', threads => 2)")
    crowd.poll("SELECT count(*) = 40 FROM pg_stat_activity WHERE application_name = 'pgbench_lab'")
    if how == "cancel":
        assert crowd.scalar("SELECT pgbench_lab.cancel(%s)", (run_id,))
    else:
        assert crowd.scalar("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                            "WHERE backend_type = 'pgbench_lab client'") == 2
    crowd.poll(NO_CLIENTS, timeout=10)
    crowd.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench_lab'",
               timeout=10)
    crowd.poll("SELECT status <> 'running' FROM pgbench_lab.runs WHERE run_id = %s", (run_id,))


def test_a_lost_connection_fails_its_client_only(crowd):
    """A target backend terminated mid-run: its client ends failed, the
    other clients of the same worker go on."""
    run_id = crowd.scalar("SELECT pgbench_lab.start('select-only', clients => 4, "
                          "duration => '2 s', via => 'libpq', threads => 1)")
    crowd.poll("SELECT transactions > 0 FROM pgbench_lab_internal.run_live(%s)", (run_id,))
    assert crowd.scalar("SELECT pg_terminate_backend(min(pid)) FROM pg_stat_activity "
                        "WHERE application_name = 'pgbench_lab'")
    crowd.poll("SELECT clients_running = 3 FROM pgbench_lab_internal.run_live(%s)", (run_id,))
    before = crowd.scalar("SELECT transactions FROM pgbench_lab_internal.run_live(%s)", (run_id,))
    crowd.poll("SELECT transactions > %s FROM pgbench_lab_internal.run_live(%s)", (before, run_id))
    with crowd.connect() as conn:
        row = conn.execute("CALL pgbench_lab.wait(%s)", (run_id,)).fetchone()
    assert row[1] == "failed", row
    assert "57P01" in row[7] or "terminat" in row[7], row[7]


def test_connects_are_concurrent(crowd):
    """A worker opens its clients' connections at once, not one after the
    other: through a proxy that forwards the launching session's check of
    the target and then holds every new connection unanswered, all 20
    connections of a one-worker run reach it before the first could time
    out (one by one, the second would wait for the first's 3-s timeout)."""
    proxy = Proxy(crowd.port, forward=1)
    conn = crowd.connect()
    try:
        target = f"host=127.0.0.1 port={proxy.port} dbname=postgres user=postgres connect_timeout=3"
        call = Background(conn, "SELECT pgbench_lab.start('select-only', clients => 20, via => 'libpq', "
                                "threads => 1, target => %s)", (target,))
        deadline = time.monotonic() + 2.5
        while len(proxy.held) < 20 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(proxy.held) == 20, f"{len(proxy.held)} of 20 connections were being opened at once"
        error = call.join(60)
        assert error is None or error.diag.sqlstate == "08001", error
    finally:
        proxy.close()
        conn.close()
    crowd.poll(NO_CLIENTS)


def test_connection_cost_leaves_out_the_in_server_run_without_slots(crowd):
    """A connection storm of 240 clients: the libpq runs drive them from two
    workers each; the in-server run would need 241 worker slots of 8, so it
    is left out, before anything runs, and the result says why."""
    notices = []
    with crowd.connect() as conn:
        conn.add_notice_handler(lambda d: notices.append((d.message_primary, d.message_hint)))
        r = conn.execute("CALL pgbench_lab.connection_cost('select-only', 240, '1 s')").fetchone()
    res = dict(zip(CONNECTION_COST, r))
    assert res["spi_run_id"] is None and res["spi_tps"] is None and res["spi_vs_libpq"] is None
    # how many of the 240 connect, and how fast, is the machine's business
    # (a loaded machine under ASan opens fewer in 1 s): not asserted
    assert res["libpq_tps"] is not None and res["connect_tps"] is not None
    if res["connect_tps"] > 0:
        assert res["libpq_vs_connect"] == pytest.approx(res["libpq_tps"] / res["connect_tps"])
    assert res["finding"].startswith("in-server not run (240 clients in-server need 241 background "
                                     "worker slots"), res["finding"]
    assert "max_worker_processes = 8" in res["finding"]
    left_out = [n for n in notices if "in-server run is left out" in n[0]]
    assert len(left_out) == 1 and "at least" in left_out[0][1], notices
    runs = crowd.sql("SELECT via, clients, status FROM pgbench_lab.runs "
                     "WHERE label = %s ORDER BY run_id", (res["label"],))
    assert runs == [("libpq", 240, "done"), ("libpq-connect", 240, "done")]
    eid = crowd.scalar("SELECT experiment_id FROM pgbench_lab.experiments WHERE label = %s",
                       (res["label"],))
    text = "\n".join(r[0] for r in crowd.sql("SELECT * FROM pgbench_lab.report(%s)", (eid,)))
    assert "in-server not run" in text and "libpq-connect" in text
    assert "The in-server run was left out (too few worker slots)" in text, text
    crowd.poll(NO_CLIENTS)
    # a closed connection's backend exits a moment after its client
    crowd.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench_lab'")
