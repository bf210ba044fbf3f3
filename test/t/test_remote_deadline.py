"""init() and init_tpcc() with a target that stops answering, or whose
caller goes away (client_remote.c).  One cluster is both the caller and,
directly or through a proxy, the target:

- a target that completes the login and then sends nothing (the proxy of
  test_target_safety.py holds the connection from the first query on): the
  call fails at its checks' deadline (10 s) with 08006, naming the server;
- a target whose loading statement waits (a CREATE TABLE behind a lock that
  a test session holds): the caller's client killed, or the caller's
  session terminated (libpq 17 on), ends the call at once; the statement
  there is cancelled and the session there ends; the connection there has
  TCP keepalives of 10 s.

Nothing asserts a speed: the deadline is the code's own, the bounds
generous, every wait polls."""
import os
import re
import signal
import subprocess
import time

import psycopg
import pytest

from conftest import Background
from test_target_safety import StallProxy

CALLS = {
    "init": "SELECT * FROM pgbench_lab.init(1, target => %s)",
    "init_tpcc": "SELECT * FROM pgbench_lab.init_tpcc(1, 'rd_tpcc', target => %s)",
}


@pytest.fixture(scope="module")
def lab(node):
    """One server, caller and target at once (conftest's node)."""
    return node


def conninfo(c, extra=""):
    return f"host=127.0.0.1 port={c.port} dbname=postgres user=postgres {extra}".strip()


def no_remote_session(c):
    """The call's session on the target has ended."""
    c.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench_lab' "
           "AND backend_type = 'client backend'", timeout=60)


def xmin_while_stalled(lab, pid, until_free):
    """The caller's backend_xmin, read 10 times 0.2 s apart while its call
    waits on the stalled target; with until_free, from the first read that
    finds none on (within 8 s), so that the reads fall inside the wait."""
    if until_free:
        lab.poll("SELECT backend_xmin IS NULL FROM pg_stat_activity WHERE pid = %s", (pid,), timeout=8)
    seen = []
    for _ in range(10):
        seen.append(lab.scalar("SELECT backend_xmin::text FROM pg_stat_activity WHERE pid = %s", (pid,)))
        time.sleep(0.2)
    return seen


def stalled_call(lab, query, until_free, cancel, block=False):
    """query (its one parameter the target) against a target that stalls
    after the login, on a connection of its own (inside BEGIN with block):
    the caller's backend_xmin read while it waits (xmin_while_stalled), then
    the call cancelled (cancel) or left to its deadline: (the error it
    ended with, the xmins read, its NOTICEs as (message, hint), the
    proxy's port)."""
    proxy = StallProxy(lab.port, "pg_is_in_recovery")
    proxy.armed.set()
    port = proxy.listener.getsockname()[1]
    notices = []
    with lab.connect() as conn:
        conn.add_notice_handler(lambda d: notices.append((d.message_primary, d.message_hint)))
        if block:
            conn.execute("BEGIN")
        try:
            bg = Background(conn, query, (proxy.conninfo,))
            assert proxy.stalled.wait(60), "the call's first query never reached the proxy"
            xmins = xmin_while_stalled(lab, bg.pid, until_free)
            assert bg.is_alive(), "the reads of backend_xmin did not fall inside the wait"
            if cancel:
                lab.sql("SELECT pg_cancel_backend(%s)", (bg.pid,))
            e = bg.join(timeout=120)
        finally:
            proxy.close()		# before the connection: a call still waiting then ends
        if block:
            conn.execute("ROLLBACK")
    return e, xmins, notices, port


HELD = "this session holds back vacuum here while the target loads"


@pytest.mark.parametrize("call", list(CALLS))
def test_a_target_that_never_answers_fails_at_the_deadline(lab, call):
    """The login goes through to the real server, then nothing comes back:
    the first check fails at 10 s (the old code waited for ever); all the
    while the caller's session holds no xmin (the old code held its
    statement's snapshot's)."""
    e, xmins, notices, port = stalled_call(lab, CALLS[call], until_free=True, cancel=False)
    assert xmins == [None] * 10, xmins
    assert not any(m == HELD for m, _ in notices), notices
    assert e is not None and e.sqlstate == "08006", e
    assert e.diag.message_primary == "could not query the target server: no answer within 10 s"
    assert f'the target server at "127.0.0.1", port {port}, is running' in e.diag.message_hint
    assert f"on the target server user='postgres' dbname='postgres' host='127.0.0.1' port='{port}'" \
        in e.diag.context, e.diag.context
    no_remote_session(lab)
    assert lab.scalar("SELECT count(*) FROM pg_namespace WHERE nspname = 'rd_tpcc'") == 0


def test_in_a_transaction_block_the_xmin_is_held_and_said(lab):
    """init_tpcc() inside BEGIN (init() refuses it): the transaction's
    later statements may read with what it holds, so its xmin stays for the
    wait, and a NOTICE says so and how to call it instead (cancelled: the
    deadline is the test above's)."""
    e, xmins, notices, _ = stalled_call(lab, CALLS["init_tpcc"], until_free=False, cancel=True, block=True)
    assert e is not None and e.sqlstate == "57014", e
    assert None not in xmins, xmins
    assert (HELD, "Call it as a statement of its own, SELECT * FROM pgbench_lab.init_tpcc(...), outside a "
                  "transaction block and in READ COMMITTED: then its session holds no xmin while it waits "
                  "on the target.") in notices, notices


def test_a_statement_that_reads_on_after_the_call_keeps_its_xmin(lab):
    """init() joined to a table: the statement reads that table with its
    snapshot after the call returns, so the snapshot's xmin stays."""
    e, xmins, notices, _ = stalled_call(lab, "SELECT * FROM pgbench_lab.init(1, target => %s) i, pg_class c "
                                             "WHERE c.relname = i.step", until_free=False, cancel=True)
    assert e is not None and e.sqlstate == "57014", e
    assert None not in xmins, xmins
    assert HELD in [m for m, _ in notices], notices


def keepalive_timer(local_port, remote_port):
    """The kernel's timer on the TCP socket local_port -> remote_port of
    127.0.0.1 (/proc/net/tcp): (kind, clock ticks left); kind 2 is the
    keepalive timer of an idle connection."""
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            local, remote, timer = fields[1], fields[2], fields[5]
            if int(local.split(":")[1], 16) == local_port and int(remote.split(":")[1], 16) == remote_port:
                kind, left = timer.split(":")
                return int(kind, 16), int(left, 16)
    return None


def blocked_call(lab, call, schema):
    """The call, from a psql of its own, against this server with schema
    first in its search_path, stopped at its first CREATE TABLE by a test
    session's uncommitted DROP SCHEMA (init_tpcc's first statement there is
    the DO block that checks the schema's owner, sent with its tables): (psql, the caller's pid, the pid
    and client port of its session there, the blocking connection)."""
    lab.sql(f"CREATE SCHEMA {schema}")
    blocker = lab.connect()
    blocker.execute("BEGIN")
    blocker.execute(f"DROP SCHEMA {schema}")
    target = conninfo(lab, f"options='-c search_path={schema}'")
    query = CALLS[call].replace("'rd_tpcc'", f"'{schema}'") % f"$t${target}$t$"
    psql = subprocess.Popen([lab.bin("psql"), "-h", "127.0.0.1", "-p", str(lab.port), "-U", "postgres",
                             "-X", "-d", "postgres", "-c", query],
                            env=dict(os.environ, PGAPPNAME="rd_client"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    waiting = ("FROM pg_stat_activity WHERE application_name = 'pgbench_lab' AND wait_event_type = 'Lock' "
               r"AND query ~ '^\s*(CREATE|DO)'")
    lab.poll(f"SELECT count(*) = 1 {waiting}", timeout=120)
    there, port = lab.sql(f"SELECT pid, client_port {waiting}")[0]
    caller = lab.scalar("SELECT pid FROM pg_stat_activity WHERE application_name = 'rd_client'")
    return psql, caller, there, port, blocker


@pytest.mark.parametrize("how", ["client killed", "session terminated"])
@pytest.mark.parametrize("call", list(CALLS))
def test_the_call_ends_with_its_caller(lab, call, how):
    """A loading statement has no deadline, but its caller's end is its end:
    the statement there is cancelled (its log says so) and the session there
    ends.  The old code went on waiting (a killed client), or left the
    statement running there (a terminated session)."""
    if how == "session terminated" and int(lab.scalar("SHOW server_version_num")) < 170000:
        pytest.skip("before libpq 17 a session's exit only closes the connection: a cancel request could block it")
    schema = f"rd_{call}_{how.split()[0]}"
    log_from = len(lab.log())
    psql, caller, there, port, blocker = blocked_call(lab, call, schema)
    try:
        if os.path.exists("/proc/net/tcp"):
            # the connection there has the lab's keepalives: 10 s idle, not the kernel's 2 hours
            kind, left = keepalive_timer(port, lab.port)
            assert kind == 2 and left <= 10 * 100, (kind, left)
        if how == "client killed":
            psql.send_signal(signal.SIGKILL)
        else:
            lab.sql("SELECT pg_terminate_backend(%s)", (caller,))
        lab.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = %s", (caller,), timeout=60)
        lab.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = %s", (there,), timeout=60)
    finally:
        psql.kill()
        psql.wait()
        blocker.execute("ROLLBACK")
        blocker.close()
    log = lab.log()[log_from:]
    assert re.search(rf"\[{there}\] [^\n]*ERROR:  canceling statement due to user request\n"
                     r"[^\n]*STATEMENT:\s+(CREATE|DO)", log), log
    if how == "client killed":
        assert re.search(rf"\[{caller}\] [^\n]*ERROR:  connection to client lost", log), log
    assert lab.scalar("SELECT count(*) FROM pg_class WHERE relnamespace = %s::regnamespace", (schema,)) == 0
