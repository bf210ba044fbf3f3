"""init with a target: pgbench's data set made on another server through
libpq, with local init's steps and result rows.  A primary with a real hot
standby (pg_basebackup -R): the standby gets the data by replication and
is refused as a target (25006); bad targets and a non-superuser without a
password are refused before anything is written; a cancel leaves the
target as it was.  Nothing asserts a speed."""
import re
import time

import psycopg
import pytest

from conftest import Background, mute_server, primary_and_standby

MARK = "created by pgbench_lab.init"
STEPS = ["drop tables", "create tables", "primary keys", "generate data", "vacuum"]


@pytest.fixture(scope="module")
def pair():
    yield from primary_and_standby("riprimary", "ristandby", scale=1)


def conninfo(c, extra=""):
    return f"host=127.0.0.1 port={c.port} dbname=postgres user=postgres {extra}".strip()


def in_schema(c, schema):
    """A conninfo whose session has schema first in its search_path."""
    return conninfo(c, f"options='-c search_path={schema}'")


def init(c, scale, target, **kw):
    names = "".join(f", {k} => %({k})s" for k in kw)
    return c.sql(f"SELECT step, seconds, rows, rows_per_second FROM pgbench_lab.init(%(s)s{names}, "
                 "target => %(t)s)", dict(kw, s=scale, t=target))


def refused(c, query, params, sqlstate, role=None):
    with c.connect() as conn:
        if role:
            conn.execute(f"SET ROLE {role}")
        with pytest.raises(psycopg.Error) as e:
            conn.execute(query, params)
    assert e.value.sqlstate == sqlstate, e.value
    return e.value


def counts(c, schema):
    return tuple(c.scalar(f"SELECT count(*) FROM {schema}.pgbench_{t}")
                 for t in ("branches", "tellers", "accounts", "history"))


def caught_up(primary, standby):
    lsn = primary.scalar("SELECT pg_current_wal_lsn()::text")
    standby.poll("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (lsn,))


def no_remote_session(c):
    """init's session on the target has ended (it closes as init returns)."""
    c.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench_lab' "
           "AND backend_type = 'client backend'", timeout=30)


def test_init_on_a_target_reaches_its_standby(pair):
    primary, standby = pair
    primary.sql("CREATE SCHEMA ri_data")
    rows = init(primary, 2, in_schema(primary, "ri_data"))
    assert [r[0] for r in rows] == STEPS, rows
    by_step = {r[0]: r for r in rows}
    assert by_step["generate data"][2] == 2 + 20 + 200000, rows
    assert by_step["vacuum"][2] == 2 + 20 + 200000, rows
    assert all(r[1] >= 0 for r in rows), rows
    assert all(r[2] is None for r in rows if r[0] not in ("generate data", "vacuum")), rows
    assert counts(primary, "ri_data") == (2, 20, 200000, 0)
    assert primary.scalar("SELECT obj_description('ri_data.pgbench_accounts'::regclass, 'pg_class')") == MARK
    assert primary.scalar("SELECT count(*) FROM pg_index WHERE indisprimary AND indrelid::regclass::text "
                          "LIKE 'ri_data.%'") == 3
    # the same tables as local init makes (and init_sql shows): same columns and fillfactor
    assert primary.sql("SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute "
                       "WHERE attrelid = 'ri_data.pgbench_accounts'::regclass AND attnum > 0 ORDER BY attnum") == \
        [("aid", "integer"), ("bid", "integer"), ("abalance", "integer"), ("filler", "character(84)")]
    # pgbench -i's tables in public (the default schema) are untouched
    assert counts(primary, "public")[2] == 100000
    # the standby gets the data by replication
    caught_up(primary, standby)
    assert counts(standby, "ri_data") == (2, 20, 200000, 0)
    no_remote_session(primary)

    # again, with foreign keys: the tables are replaced, the keys are the last step
    rows = init(primary, 1, in_schema(primary, "ri_data"), fillfactor=90, foreign_keys=True)
    assert [r[0] for r in rows] == STEPS + ["foreign keys"], rows
    assert counts(primary, "ri_data") == (1, 10, 100000, 0)
    assert primary.scalar("SELECT count(*) FROM pg_constraint WHERE contype = 'f' "
                          "AND connamespace = 'ri_data'::regnamespace") == 5
    assert primary.scalar("SELECT reloptions FROM pg_class WHERE oid = 'ri_data.pgbench_accounts'::regclass") == \
        ["fillfactor=90"]
    caught_up(primary, standby)
    assert counts(standby, "ri_data") == (1, 10, 100000, 0)


def test_tables_go_to_the_targets_current_schema(pair):
    """Without options, the target's own search_path decides: public, where
    pgbench -i made its tables, which init does not replace."""
    primary, _ = pair
    e = refused(primary, "SELECT * FROM pgbench_lab.init(1, target => %s)", (conninfo(primary),), "42P07")
    assert "relation public.pgbench_accounts was not created by pgbench_lab.init" in str(e), e
    assert "on the target server" in e.diag.context, e.diag.context
    assert counts(primary, "public")[2] == 100000
    assert primary.scalar("SELECT obj_description('public.pgbench_accounts'::regclass, 'pg_class')") is None
    # no schema at all: the search_path names none that exists
    e = refused(primary, "SELECT * FROM pgbench_lab.init(1, target => %s)", (in_schema(primary, "ri_nowhere"),),
                "3F000")
    assert "no schema has been selected to create in on the target server" in str(e), e


def test_refused_on_a_standby(pair):
    primary, standby = pair
    before = standby.scalar("SELECT count(*) FROM pg_class")
    e = refused(primary, "SELECT * FROM pgbench_lab.init(1, target => %s)", (in_schema(standby, "ri_data"),),
                "25006")
    assert "the target is a standby (in recovery): init writes" in str(e), e
    assert e.diag.message_hint.startswith(f"Run init against the primary (this standby streams from "
                                          f"host=127.0.0.1 port={primary.port})"), e.diag.message_hint
    assert "its standbys get the data by replication" in e.diag.message_hint
    assert standby.scalar("SELECT count(*) FROM pg_class") == before
    no_remote_session(standby)


def test_bad_targets_are_refused(pair):
    primary, _ = pair
    q = "SELECT * FROM pgbench_lab.init(1, target => %s)"
    for target, state, msg in (
            ("host=127.0.0.1 port=1 dbname=postgres user=postgres", "08001", "could not connect"),
            ("host=127.0.0.1 nonsense=1", "22023", "invalid target"),
            ("host=127.0.0.1 connect_timeout=x", "22023", "invalid target"),
            ("host=127.0.0.1 port=x", "08001", 'invalid integer value "x"')):
        e = refused(primary, q, (target,), state)
        assert msg in str(e), (target, e)
    # a target that never answers: connect_timeout is honoured
    with mute_server() as dead:
        t0 = time.monotonic()
        e = refused(primary, q, (dead,), "08001")
        assert time.monotonic() - t0 < 15, "connect_timeout not honoured"
        assert "timeout expired after 2 s" in str(e), e
    # inside a transaction block: refused before connecting
    with primary.connect(autocommit=False) as conn:
        with pytest.raises(psycopg.Error) as e:
            conn.execute(q, (in_schema(primary, "ri_data"),))
    assert e.value.sqlstate == "25001", e.value
    assert "The target server commits each step on its own" in e.value.diag.message_detail


def test_a_non_superuser_needs_a_password_the_target_asks_for(pair, new_cluster):
    """The target is a second cluster without pgbench_lab, where ri_bob
    logs in with scram-sha-256; the caller is a role that is not a superuser."""
    primary, _ = pair
    other = new_cluster("ritarget", hba=["host all ri_bob 127.0.0.1/32 scram-sha-256"])
    other.sql("CREATE ROLE ri_bob LOGIN PASSWORD 'pw-bob-1'")
    other.sql("CREATE SCHEMA ri_bob AUTHORIZATION ri_bob")   # "$user" is first in search_path
    primary.sql("DO $$BEGIN CREATE ROLE ri_alice; EXCEPTION WHEN duplicate_object THEN NULL; END$$")
    primary.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.init(int, int, bool, bool, text, int, text, text, text, text) TO ri_alice")
    q = "SELECT step, rows FROM pgbench_lab.init(1, target => %s)"
    bob = f"host=127.0.0.1 port={other.port} dbname=postgres user=ri_bob"
    # no password in target, or one the server did not ask for (trust)
    for target in (bob, f"{conninfo(other)} password=unused"):
        e = refused(primary, q, (target,), "2F003", role="ri_alice")
        assert "password is required" in str(e), e
    assert other.scalar("SELECT count(*) FROM pg_class WHERE relname = 'pgbench_accounts'") == 0
    # with the password the server asks for: made there, owned by ri_bob
    with primary.connect() as conn:
        conn.execute("SET ROLE ri_alice")
        rows = conn.execute(q, (f"{bob} password=pw-bob-1",)).fetchall()
    assert [r[0] for r in rows] == STEPS and rows[3][1] > 0, rows
    assert counts(other, "ri_bob") == (1, 10, 100000, 0)
    assert other.scalar("SELECT tableowner FROM pg_tables WHERE schemaname = 'ri_bob' "
                        "AND tablename = 'pgbench_accounts'") == "ri_bob"


def test_cancel_leaves_the_target_as_it_was(pair):
    primary, _ = pair
    primary.sql("CREATE SCHEMA ri_cancel")
    target = in_schema(primary, "ri_cancel")
    init(primary, 1, target)
    with primary.connect() as conn:
        bg = Background(conn, "SELECT * FROM pgbench_lab.init(30, target => %s)", (target,))
        primary.poll("SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = 'pgbench_lab' "
                     "AND query LIKE 'INSERT INTO ri_cancel.pgbench_accounts%%'")
        primary.sql("SELECT pg_cancel_backend(%s)", (bg.pid,))
        e = bg.join()
    assert e is not None and e.sqlstate == "57014", e
    # the statement under way was cancelled there and the session closed
    no_remote_session(primary)
    assert re.search(r"ERROR:  canceling statement due to user request\n[^\n]*STATEMENT:  "
                     r"INSERT INTO ri_cancel\.pgbench_accounts", primary.log()), "not cancelled on the target"
    # the transaction rolled back: the previous tables, complete
    assert counts(primary, "ri_cancel") == (1, 10, 100000, 0)
    assert primary.scalar("SELECT obj_description('ri_cancel.pgbench_accounts'::regclass, 'pg_class')") == MARK
