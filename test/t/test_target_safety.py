"""What a libpq run reads on its targets, against targets that try to harm
it, with a primary and its real hot standby (pg_basebackup -R):

- a target database whose owner (not a superuser) made a schema
  pgbench_lab with a system_info() of their own, and look-alike functions
  and operators in public, first in the database's search_path: a
  superuser's runs against it (a workload, scripts, a split run) and init()
  there call none of them; only a system_info() proven to be the
  extension's is called, else the target's facts say why they were not read;
- a standby whose end-of-run read stalls (a TCP proxy in front of it that
  stops forwarding once it sees that read's query, the connection kept
  open): the read ends at its deadline, holds no snapshot or xid on the
  primary while it waits, cancel() stops it, and the target's row says why;
- the launching session's reads, stalled the same way: a deadline, and the
  caller's cancel;
- a standby frozen mid-run (SIGSTOP): its clients and its row say which
  target and why, the run ends.

Nothing asserts a speed: the deadlines are the code's own, the margins
generous, every wait polls."""
import os
import re
import selectors
import socket
import threading
import time

import psycopg
import pytest

from conftest import frozen, primary_and_standby
from test_lookalike import routine_statements

TROJAN_FILE = "trojan-was-here"


@pytest.fixture(scope="module")
def pair():
    yield from primary_and_standby("sprimary", "sstandby", scale=1)


def conninfo(c, dbname="postgres", extra=""):
    return f"host=127.0.0.1 port={c.port} dbname={dbname} user=postgres {extra}".strip()


def safe_sql(c, query, params=None, dbname="postgres"):
    """The test's own queries resolve names in pg_catalog only."""
    with c.connect(dbname=dbname, options="-c search_path=pg_catalog,pgbench_lab") as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


def trojans(c, mark):
    return sorted(set(re.findall(r"TROJAN .*", c.log()[mark:])))


def trojan_body(what, path):
    """PL/pgSQL that logs its call and then tries what a superuser may: make
    dbo a superuser, write a server file.  Each attempt's failure is caught:
    as dbo, or on a standby, nothing happens but the WARNING."""
    return (f"RAISE WARNING 'TROJAN {what.replace('%', '%%')} called by %', current_user; "
            "BEGIN EXECUTE 'ALTER ROLE dbo SUPERUSER'; EXCEPTION WHEN OTHERS THEN NULL; END; "
            f"BEGIN EXECUTE 'COPY (SELECT 1) TO ''{path}'''; EXCEPTION WHEN OTHERS THEN NULL; END;")


def system_info_lookalike(path, args=""):
    return (f"CREATE FUNCTION pgbench_lab.system_info({args}) "
            "RETURNS TABLE (name text, value text, unit text, source text) LANGUAGE plpgsql AS $t$ BEGIN "
            + trojan_body("pgbench_lab.system_info()", path)
            + " RETURN QUERY SELECT 'cpus_effective'::text, '64'::text, ''::text, 'trojan'::text; END $t$")


@pytest.fixture(scope="module")
def hostile(pair):
    """On the primary (replicated to the standby): role dbo, not a
    superuser; database dbodb, owned by dbo, with pgbench's tables (made by
    the superuser), dbo's own schema pgbench_lab with a system_info() that
    fires, and look-alikes in public, which the database puts first in
    every session's search_path; database extdb, owned by dbo too, with the
    extension installed by the superuser and the same look-alikes in
    public.  Returns the server file the look-alikes would write."""
    primary, standby = pair
    path = os.path.join(primary.base, TROJAN_FILE)
    primary.sql("CREATE ROLE dbo LOGIN")
    for db in ("dbodb", "extdb"):
        primary.sql(f"CREATE DATABASE {db} OWNER dbo")
    primary.run_client("pgbench", "-i", "-s", "1", "-q", "dbodb")
    primary.run_client("pgbench", "-i", "-s", "1", "-q", "extdb")
    with primary.connect(dbname="extdb") as conn:
        conn.execute("CREATE SCHEMA prewarm")
        conn.execute("CREATE EXTENSION pg_prewarm SCHEMA prewarm")
        conn.execute("CREATE EXTENSION pgbench_lab")
    planted = routine_statements("trojan", lambda what: trojan_body(what, path))
    with primary.connect(dbname="dbodb", user="dbo") as conn:
        conn.execute("CREATE SCHEMA pgbench_lab")
        conn.execute(system_info_lookalike(path))
        for s in planted:
            conn.execute(s)
        conn.execute("ALTER DATABASE dbodb SET search_path = public, pg_catalog")
    with primary.connect(dbname="extdb", user="dbo") as conn:
        for s in planted:
            conn.execute(s)
        conn.execute("ALTER DATABASE extdb SET search_path = public, pg_catalog")
    # the look-alikes work: a call by name from a session with public first runs them
    mark = len(primary.log())
    with primary.connect(dbname="dbodb", user="dbo") as conn:
        conn.execute("SELECT count(*) FROM pgbench_lab.system_info() WHERE 1 = 1")
    found = trojans(primary, mark)
    assert any("pgbench_lab.system_info() called by dbo" in t for t in found) and \
        any("int = int" in t for t in found), found
    primary.poll("SELECT replay_lsn >= pg_current_wal_lsn() FROM pg_stat_replication")
    assert not os.path.exists(path)
    return path


def run_targets(c, run_id):
    return safe_sql(c, "SELECT target, system, system_note, conflicts, conflicts_error, clients_failed, "
                    "error, transactions FROM pgbench_lab.run_targets WHERE run_id = %s ORDER BY target",
                    (run_id,))


def report(c, run_id):
    return [r[0] for r in safe_sql(c, "SELECT * FROM pgbench_lab.report(%s)", (run_id,))]


def call(c, query, params=None):
    with c.connect() as conn:
        return conn.execute(query, params).fetchone()


NOT_INSTALLED = "pgbench_lab is not installed there"
NOT_PROVEN = ("its pgbench_lab.system_info() is not proven to be the extension's (a member of it, in its own "
              "schema, which only a superuser may create in)")


def test_a_lookalike_pgbench_lab_on_a_target_is_never_called(pair, hostile):
    """A superuser's runs against dbodb on the primary and the standby: a
    workload, scripts, a run split between them; and init() there.  No
    look-alike runs anywhere, dbo stays what it was, no file is written, and
    the targets' facts say why system_info() was not read."""
    primary, standby = pair
    marks = (len(primary.log()), len(standby.log()))
    targets = [conninfo(primary, "dbodb"), conninfo(standby, "dbodb")]
    ids = []
    row = call(primary, "CALL pgbench_lab.run('select-only', 2, '1 s', via => 'libpq', targets => %s)", (targets,))
    assert row[1] == "done" and row[2] > 0, row
    ids.append(row[0])
    # scripts (their own SQL is the caller's, resolved on the target as
    # pgbench's would be: these name their operators' schema)
    read = "\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid OPERATOR(pg_catalog.=) :aid;\n"
    write = ("\\set aid random(1, 100000 * :scale)\nUPDATE pgbench_accounts SET abalance = abalance "
             "OPERATOR(pg_catalog.+) 1 WHERE aid OPERATOR(pg_catalog.=) :aid;\n")
    primary.sql("INSERT INTO pgbench_lab.scripts (name, body) VALUES ('safe_read', %s), ('safe_write', %s)",
                (read, write))
    row = call(primary, "CALL pgbench_lab.run(script => %s, clients => 2, duration => '1 s', via => 'libpq', "
                        "targets => %s)", (read, targets))
    assert row[1] == "done" and row[2] > 0, row[7]
    ids.append(row[0])
    # split: the primary's clients write, the standby's read
    row = call(primary, "CALL pgbench_lab.run(scripts => ARRAY['safe_write', 'safe_read'], clients => 2, "
                        "duration => '1 s', via => 'libpq', targets => %s)", (targets,))
    assert row[1] == "done" and row[2] > 0, row[7]
    assert [r[0] for r in safe_sql(primary, "SELECT scripts FROM pgbench_lab.run_targets WHERE run_id = %s "
                                   "ORDER BY target", (row[0],))] == [["safe_write"], ["safe_read"]]
    ids.append(row[0])
    # init there, into a schema of its own first in the target session's search_path
    primary.sql("CREATE SCHEMA lab3", dbname="dbodb")
    call(primary, "SELECT count(*) FROM pgbench_lab.init(1, target => %s)",
         (conninfo(primary, "dbodb", "options='-c search_path=lab3,public,pg_catalog'"),))
    assert safe_sql(primary, "SELECT count(*) FROM lab3.pgbench_branches", dbname="dbodb") == [(1,)]
    for rid in ids:
        got = run_targets(primary, rid)
        assert [(r[0], r[1], r[2]) for r in got] == [(1, None, NOT_INSTALLED), (2, None, NOT_INSTALLED)], got
        # a standby's conflicts were read (nothing there is called by name either)
        assert got[1][3] == 0 and got[1][4] is None, got[1]
        assert safe_sql(primary, "SELECT system FROM pgbench_lab.runs WHERE run_id = %s", (rid,)) == [(None,)]
        lines = report(primary, rid)
        assert sum(f"(its system facts not read: {NOT_INSTALLED}), " in x for x in lines) == 2, lines
    assert trojans(primary, marks[0]) == [] and trojans(standby, marks[1]) == []
    assert safe_sql(primary, "SELECT rolsuper FROM pg_roles WHERE rolname = 'dbo'") == [(False,)]
    assert not os.path.exists(hostile)


def test_system_info_is_read_only_where_proven_the_extensions(pair, hostile):
    """extdb has the extension, look-alikes in public and public first: its
    system_info() is proven and read, and nothing of public runs.  Once dbo
    may CREATE in the extension's schema (and has put a system_info of their
    own there) nothing is proven: not read, not called, and the run goes on."""
    primary, standby = pair
    mark = len(primary.log())
    targets = [conninfo(primary, "extdb")]
    row = call(primary, "CALL pgbench_lab.run('select-only', 1, '1 s', via => 'libpq', targets => %s)", (targets,))
    assert row[1] == "done", row
    (got,) = run_targets(primary, row[0])
    own = dict(safe_sql(primary, "SELECT name, value FROM pgbench_lab.system_info()"))
    assert got[2] is None and got[1] is not None and got[1]["data_directory"] == own["data_directory"], got
    primary.sql("GRANT CREATE ON SCHEMA pgbench_lab TO dbo", dbname="extdb")
    try:
        for grant_only in (True, False):
            if not grant_only:
                with primary.connect(dbname="extdb", user="dbo") as conn:
                    conn.execute(system_info_lookalike(hostile, "a integer DEFAULT 0"))
            row = call(primary, "CALL pgbench_lab.run('select-only', 1, '1 s', via => 'libpq', targets => %s)",
                       (targets,))
            assert row[1] == "done", row
            (got,) = run_targets(primary, row[0])
            assert got[1] is None and got[2] == NOT_PROVEN, got
    finally:
        primary.sql("DROP FUNCTION IF EXISTS pgbench_lab.system_info(integer)", dbname="extdb")
        primary.sql("REVOKE CREATE ON SCHEMA pgbench_lab FROM dbo", dbname="extdb")
    assert trojans(primary, mark) == []
    assert safe_sql(primary, "SELECT rolsuper FROM pg_roles WHERE rolname = 'dbo'") == [(False,)]
    assert not os.path.exists(hostile)


class StallProxy:
    """A TCP proxy on 127.0.0.1 in front of a server's port.  It forwards
    everything both ways until, once armed, a frontend message carrying
    `trigger` comes by: that connection is then held, open and silent
    (nothing more forwarded either way), until its client closes it or the
    proxy closes.  stalled is set when that happens."""

    def __init__(self, port, trigger):
        self.port = port
        self.trigger = trigger.encode()
        self.armed = threading.Event()
        self.stalled = threading.Event()
        self.closing = threading.Event()
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.listener.settimeout(0.1)
        self.threads = [threading.Thread(target=self._accept, daemon=True)]
        self.threads[0].start()

    @property
    def conninfo(self):
        return f"host=127.0.0.1 port={self.listener.getsockname()[1]} dbname=postgres user=postgres"

    def _accept(self):
        while not self.closing.is_set():
            try:
                client, _ = self.listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            t = threading.Thread(target=self._serve, args=(client,), daemon=True)
            self.threads.append(t)
            t.start()

    def _serve(self, client):
        upstream = socket.create_connection(("127.0.0.1", self.port))
        sel = selectors.DefaultSelector()
        sel.register(client, selectors.EVENT_READ, upstream)
        sel.register(upstream, selectors.EVENT_READ, client)
        tail = b""			# the trigger may straddle two reads
        held = False
        try:
            while not self.closing.is_set():
                for key, _ in sel.select(0.1):
                    data = key.fileobj.recv(65536)
                    if not data:
                        return
                    if held:
                        continue		# silent: the client is read only to notice its close
                    if key.fileobj is client:
                        seen = tail + data
                        tail = seen[-len(self.trigger):]
                        if self.armed.is_set() and self.trigger in seen:
                            held = True
                            sel.unregister(upstream)
                            self.stalled.set()
                            continue
                    key.data.sendall(data)
        finally:
            sel.close()
            client.close()
            upstream.close()

    def close(self):
        self.closing.set()
        self.listener.close()
        for t in self.threads:
            t.join(10)


@pytest.fixture
def stall(pair):
    """A proxy in front of the standby that holds the read of its recovery
    conflicts (the query names pg_stat_database_conflicts) once armed."""
    primary, standby = pair
    proxy = StallProxy(standby.port, "pg_stat_database_conflicts")
    yield proxy
    proxy.close()


def start_over_proxy(primary, proxy, duration="1 s"):
    """A select-only run over the primary and the proxied standby; the
    launching session's reads (the conflicts' first read among them) pass,
    then the proxy is armed: the read at the run's end stalls."""
    rid = primary.scalar("SELECT pgbench_lab.start('select-only', 2, %s::interval, via => 'libpq', targets => %s)",
                         (duration, [conninfo(primary), proxy.conninfo]))
    proxy.armed.set()
    pid = primary.scalar("SELECT coordinator_pid FROM pgbench_lab.runs WHERE run_id = %s", (rid,))
    assert pid is not None
    return rid, pid


def coordinator_while_stalled(primary, rid, pid):
    """The coordinator as pg_stat_activity shows it during the stalled read."""
    return primary.sql("SELECT a.backend_xmin, a.backend_xid, a.query, r.status "
                       "FROM pg_stat_activity a, pgbench_lab.runs r WHERE a.pid = %s AND r.run_id = %s",
                       (pid, rid))


def test_a_stalled_end_of_run_read_ends_at_its_deadline_holding_nothing(pair, stall):
    primary, standby = pair
    rid, pid = start_over_proxy(primary, stall)
    assert stall.stalled.wait(120), "the end-of-run read never reached the proxy"
    (row,) = coordinator_while_stalled(primary, rid, pid)
    # during the read: running, no snapshot and no xid held on the primary
    assert row[3] == "running" and "reading the recovery conflicts of target 2" in row[2], row
    assert row[0] is None and row[1] is None, row
    t0 = time.monotonic()
    with primary.connect() as conn:
        status = conn.execute("CALL pgbench_lab.wait(%s)", (rid,)).fetchone()[1]
    waited = time.monotonic() - t0
    assert status == "done", status
    # the read's deadline is 5 s: well within a minute, however slow the machine
    assert waited < 60, waited
    got = run_targets(primary, rid)
    assert got[1][3] is None and got[1][4] == "could not query the target server: no answer within 5 s", got[1]
    # the other results stand: both targets' clients ran, none failed
    assert got[0][7] > 0 and got[1][7] > 0 and got[0][5] == 0 and got[1][5] == 0, got
    assert got[0][4] is None, got[0]
    lines = report(primary, rid)
    assert ("     recovery conflicts during the run: not counted: the standby could not be read at the end of "
            "the run (could not query the target server: no answer within 5 s)") in lines, lines
    assert "the recovery conflicts of target 2 were not read at its end" in primary.log()


def test_cancel_stops_a_stalled_end_of_run_read(pair, stall):
    primary, standby = pair
    rid, pid = start_over_proxy(primary, stall)
    assert stall.stalled.wait(120), "the end-of-run read never reached the proxy"
    assert coordinator_while_stalled(primary, rid, pid)[0][3] == "running"
    assert primary.scalar("SELECT pgbench_lab.cancel(%s)", (rid,)) is True
    with primary.connect() as conn:
        status = conn.execute("CALL pgbench_lab.wait(%s)", (rid,)).fetchone()[1]
    assert status == "cancelled", status
    got = run_targets(primary, rid)
    # ended by the cancel, not by the deadline
    assert got[1][3] is None and got[1][4] == "the run was cancelled while it was read", got[1]
    assert got[0][7] > 0 and got[1][7] > 0, got
    assert primary.scalar("SELECT pgbench_lab.cancel(%s)", (rid,)) is False


@pytest.mark.parametrize("how", ["deadline", "cancel"])
def test_a_stalled_launch_read_has_a_deadline_and_answers_a_cancel(pair, how):
    """The launching session's reads of a target, held by the proxy from
    their first query: start() fails at the deadline (10 s), or at once when
    the caller cancels it; no run is recorded."""
    primary, standby = pair
    proxy = StallProxy(standby.port, "pg_is_in_recovery")
    proxy.armed.set()
    before = primary.scalar("SELECT count(*) FROM pgbench_lab.runs")
    try:
        with primary.connect() as conn:
            pid = conn.info.backend_pid
            if how == "cancel":
                threading.Thread(target=lambda: (proxy.stalled.wait(120),
                                                 primary.sql("SELECT pg_cancel_backend(%s)", (pid,)))).start()
            with pytest.raises(psycopg.Error) as e:
                conn.execute("SELECT pgbench_lab.start('select-only', 2, '1 s', via => 'libpq', targets => %s)",
                             ([conninfo(primary), proxy.conninfo],))
        assert proxy.stalled.is_set()
        if how == "deadline":
            assert e.value.sqlstate == "08006", e.value
            assert e.value.diag.message_primary == "could not query the target server: no answer within 10 s"
            assert "targets[2]" in (e.value.diag.context or ""), e.value.diag.context
        else:
            assert e.value.sqlstate == "57014", e.value
    finally:
        proxy.close()
    assert primary.scalar("SELECT count(*) FROM pgbench_lab.runs") == before


def test_a_frozen_standby_is_named_with_why(pair):
    """The standby's postmaster and every process of it stopped (SIGSTOP)
    mid-run: its client's command gets no answer; at the run's end it has
    3 s to come (the code's rule), then the client ends failed, naming the
    target and why, the primary's figures stand, and the end-of-run read of
    the standby's conflicts fails at its own deadline, with why."""
    primary, standby = pair
    duration = 10
    rid = primary.scalar("SELECT pgbench_lab.start('select-only', 2, %s::interval, via => 'libpq', targets => %s)",
                         (f"{duration} s", [conninfo(primary), conninfo(standby)]))
    standby.poll("SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = 'pgbench_lab' "
                 "AND backend_type = 'client backend' AND state = 'active'")
    with frozen(standby):
        # the freeze came before the run's end (else the test proves nothing)
        elapsed = primary.scalar("SELECT elapsed_seconds FROM pgbench_lab.active_runs WHERE run_id = %s", (rid,))
        assert elapsed is not None and elapsed < duration, elapsed
        with primary.connect() as conn:
            row = conn.execute("CALL pgbench_lab.wait(%s)", (rid,)).fetchone()
    assert row[1] == "failed", row
    display = f"user='postgres' dbname='postgres' host='127.0.0.1' port='{standby.port}'"
    assert row[7].startswith(f"client 2 (targets[2]: {display}): the target server sent no answer within 3 s "
                             "of the run's end (SQLSTATE 08006)"), row[7]
    assert "terminated?" not in row[7]
    got = run_targets(primary, rid)
    assert got[0][5] == 0 and got[0][6] is None and got[0][7] > 0, got[0]
    assert got[1][5] == 1 and got[1][6].startswith(
        "client 2: the target server sent no answer within 3 s of the run's end"), got[1]
    assert got[1][3] is None and got[1][4] == "could not connect to the target server: timeout expired after 3 s", \
        got[1]
    lines = report(primary, rid)
    assert any(x.startswith("     1 of its 1 client ended failed: client 2: the target server sent no answer")
               for x in lines), lines
    primary.poll("SELECT count(*) = 1 FROM pg_stat_replication WHERE state = 'streaming'")
