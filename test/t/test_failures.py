"""Failures by kind and the errors met: serialization failures (40001) and
deadlocks (40P01) counted apart in runs, run_scripts and run_commands, as
pgbench --failures-detailed counts them on the same script and server;
every distinct error text a run meets kept with its count in run_errors,
bounded, shown by report() and carried by export()/import().  Races are
judged by the kinds present and by totals that must add up, never by
exact counts."""

import re

import psycopg
import pytest

from conftest import pgbench_cluster

# Two clients read the hot row under REPEATABLE READ, then update it: the
# second to update after the first committed meets a serialization failure.
SERIALIZATION = """
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT v FROM hot WHERE id = 1;
\\sleep 10 ms
UPDATE hot SET v = v + 1 WHERE id = 1;
END;
"""

# Two clients lock the two rows in opposite orders (by their client_id).
DEADLOCK = """
\\set a 1 + :client_id % 2
\\set b 2 - :client_id % 2
BEGIN;
UPDATE hot SET v = v + 1 WHERE id = :a;
\\sleep 10 ms
UPDATE hot SET v = v + 1 WHERE id = :b;
END;
"""

# Every try raises a serialization failure with a text of its own.
DISTINCT = "SELECT raise_distinct(nextval('distinct_seq'));\n"


@pytest.fixture(scope="module")
def lab():
    # deadlocks found in 10 ms, not the default second
    yield from pgbench_cluster("failures", {"shared_buffers": "32MB", "max_worker_processes": "16",
                                            "deadlock_timeout": "10ms"}, scale=1)


@pytest.fixture(scope="module")
def hot(lab):
    lab.sql("CREATE TABLE hot (id int PRIMARY KEY, v int NOT NULL)")
    lab.sql("INSERT INTO hot VALUES (1, 0), (2, 0)")
    lab.sql("CREATE SEQUENCE distinct_seq")
    lab.sql("""CREATE FUNCTION raise_distinct(n bigint) RETURNS void LANGUAGE plpgsql AS $$
               BEGIN RAISE EXCEPTION 'conflict number %', n USING ERRCODE = 'serialization_failure'; END $$""")
    return lab


def call(c, **kw):
    names = ", ".join(f"{k} => %({k})s" for k in kw)
    with c.connect() as conn:
        cur = conn.execute(f"CALL pgbench_lab.run({names})", kw)
        return dict(zip([d.name for d in cur.description], cur.fetchone()))


def figures(c, run_id):
    return dict(zip(("failures", "retries", "serialization", "deadlock"), c.sql(
        "SELECT failures, retries, serialization_failures, deadlock_failures "
        "FROM pgbench_lab.runs WHERE run_id = %s", (run_id,))[0]))


def errors(c, run_id):
    return c.sql("SELECT sqlstate, message, count FROM pgbench_lab.run_errors "
                 "WHERE run_id = %s ORDER BY error", (run_id,))


def report(c, run_id):
    return "\n".join(x for (x,) in c.sql("SELECT * FROM pgbench_lab.report(%s)", (run_id,)))


def pgbench_failures(c, tmp_path, script):
    """pgbench --failures-detailed on the same script: (failed,
    serialization, deadlock)."""
    path = tmp_path / "script.sql"
    path.write_text(script)
    path.chmod(0o644)
    out = c.run_client("pgbench", "-n", "-c", "2", "-j", "2", "-t", "20", "--max-tries=1",
                       "--failures-detailed", "-f", str(path), "postgres", check=False)
    got = [int(re.search(rf"number of {what}: (\d+)", out.stdout).group(1))
           for what in ("failed transactions", "serialization failures", "deadlock failures")]
    return tuple(got)


def check_kind(c, run_id, kind, sqlstate, message):
    """Failures all of one kind, counted apart everywhere, and the one
    error text met as often as tries ended in an error."""
    f = figures(c, run_id)
    other = "deadlock" if kind == "serialization" else "serialization"
    assert f["failures"] > 0 and f[kind] == f["failures"] and f[other] == 0, f
    # over libpq the server's text, after what the client was doing
    [(state, text, count)] = errors(c, run_id)
    assert state == sqlstate and text.endswith(message) and count == f["failures"] + f["retries"], text
    col = f"{kind}_failures"
    assert c.scalar(f"SELECT {col} FROM pgbench_lab.run_scripts WHERE run_id = %s", (run_id,)) == f[kind]
    # counted at the command that met them: an UPDATE
    per = c.sql(f"SELECT command_text, {col}, failures FROM pgbench_lab.run_commands "
                f"WHERE run_id = %s AND failures > 0", (run_id,))
    assert sum(n for _, n, _ in per) == f[kind] and all(t.startswith("UPDATE") and n == m for t, n, m in per), per
    shown = report(c, run_id)
    assert (f"failures by kind: serialization {f['serialization']}   deadlock {f['deadlock']}   other 0"
            in shown), shown
    assert f"\n  {count:>9}  {sqlstate}  {text}\n" in shown, shown
    return f


@pytest.mark.parametrize("via", ["spi", "libpq"])
def test_serialization_failures_counted_apart(hot, via, tmp_path):
    r = call(hot, script=SERIALIZATION, clients=2, duration="0.5 s", max_tries=1, via=via)
    assert r["status"] == "done", r
    check_kind(hot, r["run_id"], "serialization", "40001",
               "could not serialize access due to concurrent update")
    if via == "spi":
        failed, serialization, deadlock = pgbench_failures(hot, tmp_path, SERIALIZATION)
        assert failed == serialization + deadlock and deadlock == 0, (failed, serialization, deadlock)


@pytest.mark.parametrize("via", ["spi", "libpq"])
def test_deadlocks_counted_apart(hot, via, tmp_path):
    r = call(hot, script=DEADLOCK, clients=2, duration="0.5 s", max_tries=1, via=via)
    assert r["status"] == "done", r
    check_kind(hot, r["run_id"], "deadlock", "40P01", "deadlock detected")
    if via == "spi":
        failed, serialization, deadlock = pgbench_failures(hot, tmp_path, DEADLOCK)
        assert failed == serialization + deadlock and serialization == 0, (failed, serialization, deadlock)


def test_error_texts_are_bounded(hot):
    """120 tries, each with a text of its own (60 transactions, each tried
    twice): the first 100 texts kept with their counts, the other 20 in the
    others' row; the counts add up to failures plus retries, and export()
    and import() carry them."""
    r = call(hot, script=DISTINCT, clients=1, transactions=60, max_tries=2)
    assert r["status"] == "done", r
    run_id = r["run_id"]
    f = figures(hot, run_id)
    assert (f["failures"], f["retries"], f["serialization"], f["deadlock"]) == (60, 60, 60, 0), f
    rows = errors(hot, run_id)
    assert len(rows) == 101, rows
    assert all(s == "40001" and re.fullmatch(r"conflict number \d+", m) and n == 1 for s, m, n in rows[:100])
    assert len({m for _, m, _ in rows[:100]}) == 100
    assert rows[100] == (None, None, 20), rows[100]
    text = report(hot, run_id)
    assert "Errors met (120, retried or not; 100 distinct texts, the 10 most frequent)" in text, text
    assert "110  90 other text(s), and texts past the 100 kept" in text, text
    doc = hot.scalar("SELECT pgbench_lab.export(ARRAY[%s]::bigint[])", (run_id,))
    assert len(doc["runs"][0]["errors"]) == 101 and doc["runs"][0]["serialization_failures"] == 60
    new = hot.scalar("SELECT id FROM pgbench_lab.import(%s::jsonb) WHERE kind = 'run'",
                     (psycopg.types.json.Jsonb(doc),))
    assert errors(hot, new) == rows
    assert figures(hot, new) == f
    # a count that is not a whole number is refused with its path
    doc["runs"][0]["errors"][0]["count"] = -1
    with hot.connect() as conn:
        with pytest.raises(psycopg.Error) as e:
            conn.execute("SELECT pgbench_lab.import(%s::jsonb)", (psycopg.types.json.Jsonb(doc),))
    assert "$.runs[0].errors" in str(e.value), e.value
