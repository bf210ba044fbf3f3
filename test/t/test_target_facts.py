"""Each target's own facts, with a primary and a real hot standby
(pg_basebackup -R): a libpq run records every target's system_info() in
run_targets.system, and for a standby its recovery conflicts during the
run (pg_stat_database_conflicts, read at the start and again at the end);
a real snapshot conflict is counted; a standby gone by the end leaves them
NULL and the run's results stand; export() and import() carry the rows.
Nothing here asserts a speed; every wait polls."""
import json
import time

import psycopg
import pytest
from psycopg.types.json import Jsonb

from conftest import primary_and_standby

COLUMNS = ("target, target_display, server_version, in_recovery, settings, clients, clients_failed, "
           "transactions, failures, tps, latency_avg_ms, error, system, conflicts, conflicts_by_kind, scripts")
SPLIT = "Targets (client i went to target (i - 1) % n + 1; the same measured interval for all)"


@pytest.fixture(scope="module")
def pair():
    yield from primary_and_standby("fprimary", "fstandby", scale=1)


def conninfo(c):
    return f"host=127.0.0.1 port={c.port} dbname=postgres user=postgres"


def kinds(c):
    """The conflict kinds of this server's pg_stat_database_conflicts."""
    base = {"tablespace", "lock", "snapshot", "bufferpin", "deadlock"}
    return base | {"active_logicalslot"} if int(c.scalar("SHOW server_version_num")) >= 160000 else base


def rows(c, run_id):
    return c.sql(f"SELECT {COLUMNS} FROM pgbench_lab.run_targets WHERE run_id = %s ORDER BY target", (run_id,))


def report(c, run_id):
    return [r[0] for r in c.sql("SELECT * FROM pgbench_lab.report(%s)", (run_id,))]


def targets_section(c, run_id):
    """report()'s Targets section: from its heading to the next blank line."""
    lines = report(c, run_id)
    i = next(i for i, x in enumerate(lines) if x in (SPLIT, "Target"))
    return lines[i:lines.index("", i) if "" in lines[i:] else len(lines)]


def standby_conflicts(standby, kind="snapshot"):
    return standby.scalar(f"SELECT confl_{kind} FROM pg_stat_database_conflicts "
                          "WHERE datname = current_database()")


def test_split_run_records_each_servers_system_and_a_standbys_conflicts(pair):
    primary, standby = pair
    with primary.connect() as conn:
        row = conn.execute("CALL pgbench_lab.run('select-only', 4, '2 s', via => 'libpq', threads => 2, "
                           "targets => %s)", ([conninfo(primary), conninfo(standby)],)).fetchone()
    assert row[1] == "done" and row[2] > 0, row
    rid = row[0]
    got = rows(primary, rid)
    assert [(r[0], r[3]) for r in got] == [(1, False), (2, True)], got
    # each target's facts come from that server itself: its own data directory
    for r, c in zip(got, (primary, standby)):
        own = dict(c.sql("SELECT name, value FROM pgbench_lab.system_info()"))
        system = r[12]
        assert system is not None and set(system) == set(own), (system, own)
        for name in ("data_directory", "cpus_effective", "memory_limit", "os"):
            assert system[name] == own[name], (name, system, own)
    assert got[0][12]["data_directory"] != got[1][12]["data_directory"]
    # the run row's system is still the first target's
    assert primary.scalar("SELECT system FROM pgbench_lab.runs WHERE run_id = %s", (rid,)) == got[0][12]
    # conflicts: NULL on the primary, counted (none) on the standby, by kind
    assert got[0][13] is None and got[0][14] is None, got[0]
    assert got[1][13] == 0 and got[1][14] == {k: 0 for k in kinds(standby)}, got[1]
    lines = report(primary, rid)
    i = lines.index(SPLIT)
    cpus = got[0][12]["cpus_effective"]
    assert lines[i + 1].startswith("  1  ") and f" on {cpus} CPU" in lines[i + 2] \
        and "memory, not in recovery; 2 clients" in lines[i + 2], lines[i:i + 6]
    assert lines[i + 3].startswith("  2  ") and "memory, a standby (in recovery); 2 clients" in lines[i + 4]
    assert lines[i + 5] == ("     recovery conflicts during the run: 0, by the standby's counters "
                            "for its database"), lines[i:i + 6]


def test_a_snapshot_conflict_on_the_standby_is_counted(pair):
    """A read on the standby that still holds its snapshot when the primary's
    VACUUM removes rows it could see, with max_standby_streaming_delay = 0:
    the standby cancels it (a snapshot conflict, SQLSTATE 40001)."""
    primary, standby = pair
    primary.sql("CREATE TABLE conflict_t (id integer, pad text) "
                "WITH (autovacuum_enabled = off, vacuum_truncate = off)")
    primary.sql("INSERT INTO conflict_t SELECT g, repeat('x', 100) FROM generate_series(1, 2000) g")
    caught_up = "SELECT replay_lsn >= pg_current_wal_lsn() FROM pg_stat_replication"
    primary.poll(caught_up)
    standby.sql("ALTER SYSTEM SET max_standby_streaming_delay = 0")
    standby.sql("SELECT pg_reload_conf()")
    try:
        standby.poll("SELECT current_setting('max_standby_streaming_delay') = '0'")
        before = standby_conflicts(standby)
        rid = primary.scalar("SELECT pgbench_lab.start(script => %s, clients => 2, duration => '2 min', "
                             "via => 'libpq', target => %s)",
                             ("SELECT pg_sleep(0.2), count(*) FROM conflict_t;\n", conninfo(standby)))
        standby.poll("SELECT count(*) = 2 FROM pg_stat_activity WHERE application_name = 'pgbench_lab' "
                     "AND backend_type = 'client backend'")
        # rows deleted and vacuumed away on the primary while the standby's
        # reads, 0.2 s each, hold snapshots that can see them; again until
        # the standby has counted a conflict
        deadline = time.monotonic() + 90
        while standby_conflicts(standby) == before:
            assert time.monotonic() < deadline, "the standby counted no snapshot conflict"
            primary.sql("DELETE FROM conflict_t WHERE id % 2 = 0")
            primary.sql("VACUUM conflict_t")
            primary.sql("INSERT INTO conflict_t SELECT g, repeat('x', 100) FROM generate_series(2, 2000, 2) g")
            primary.poll(caught_up)
        assert primary.scalar("SELECT pgbench_lab.cancel(%s)", (rid,)) is True
        with primary.connect() as conn:
            status = conn.execute("CALL pgbench_lab.wait(%s)", (rid,)).fetchone()[1]
        assert status == "cancelled", status
    finally:
        standby.sql("ALTER SYSTEM RESET max_standby_streaming_delay")
        standby.sql("SELECT pg_reload_conf()")
    (got,) = rows(primary, rid)
    assert got[3] is True and got[13] is not None and got[13] >= 1, got
    assert got[13] == sum(got[14].values()) and got[14]["snapshot"] >= 1 and set(got[14]) == kinds(standby), got
    # the cancelled reads failed in the clients (40001, not retried with max_tries 1)
    assert got[8] >= 1 and got[6] == 0, (got[6], got[11])
    lines = report(primary, rid)
    i = lines.index("Target")
    assert lines[i + 3].startswith(f"     recovery conflicts during the run: {got[13]} (") and \
        f"snapshot {got[14]['snapshot']}" in lines[i + 3], lines[i:i + 4]


def test_export_and_import_carry_the_targets(pair, new_cluster):
    """Every run with targets so far (with the run of this test, split by
    its scripts, and the conflicted one when the test above ran) exported
    and imported; the first is over the primary and the standby."""
    primary, standby = pair
    with primary.connect() as conn:
        conn.execute("CALL pgbench_lab.run(scripts => ARRAY['tpcb-like', 'select-only'], clients => 2, "
                     "duration => '1 s', via => 'libpq', targets => %s)", ([conninfo(primary), conninfo(standby)],))
    ids = [r for (r,) in primary.sql("SELECT DISTINCT run_id FROM pgbench_lab.run_targets ORDER BY 1")]
    doc = primary.scalar("SELECT pgbench_lab.export(%s::bigint[])", (ids,))
    assert all(len(r["targets"]) == len(rows(primary, r["run_id"])) for r in doc["runs"]), doc["runs"]
    # a standby's conflicts and system travel; a primary's NULL conflicts are left out
    first = doc["runs"][0]["targets"]
    assert "conflicts" not in first[0] and first[1]["conflicts"] >= 0 and "system" in first[1], first
    split = doc["runs"][-1]["targets"]
    assert [t["scripts"] for t in split] == [["tpcb-like"], ["select-only"]], split
    other = new_cluster("fimport")
    other.sql("CREATE EXTENSION pgbench_lab CASCADE")
    mapping = dict((s, i) for s, i in other.sql("SELECT source_id, id FROM pgbench_lab.import(%s) "
                                                "WHERE kind = 'run'", (Jsonb(doc),)))
    assert sorted(mapping) == ids
    for rid in ids:
        assert rows(other, mapping[rid]) == rows(primary, rid), rid
        assert targets_section(other, mapping[rid]) == targets_section(primary, rid) != [], rid
    # exported again from the second server: the same targets
    again = other.scalar("SELECT pgbench_lab.export(%s::bigint[])", ([mapping[r] for r in ids],))
    assert [r["targets"] for r in again["runs"]] == [r["targets"] for r in doc["runs"]]
    # a document without targets (as before 0.2's targets) imports as before, with none
    old = json.loads(json.dumps(doc))
    for r in old["runs"]:
        del r["targets"]
    new = [i for (i,) in other.sql("SELECT id FROM pgbench_lab.import(%s) WHERE kind = 'run'", (Jsonb(old),))]
    assert len(new) == len(ids)
    assert other.scalar("SELECT count(*) FROM pgbench_lab.run_targets WHERE run_id = ANY(%s)", (new,)) == 0
    # targets are checked: a target twice, a count that is no whole number
    for change, message in (
            (lambda t: t.append(dict(t[0])), "$.runs[0].targets[2].target 1 appears twice"),
            (lambda t: t[1].update(conflicts="many"), "$.runs[0].targets[1].conflicts is not a whole number"),
            (lambda t: t[0].update(system=[1]), "$.runs[0].targets[0].system is not an object")):
        bad = json.loads(json.dumps(doc))
        change(bad["runs"][0]["targets"])
        with pytest.raises(psycopg.Error) as e:
            other.sql("SELECT pgbench_lab.import(%s)", (Jsonb(bad),))
        assert e.value.sqlstate == "22023" and message in str(e.value), e.value


def test_a_standby_gone_by_the_end_leaves_its_conflicts_null(pair):
    primary, standby = pair
    rid = primary.scalar("SELECT pgbench_lab.start('select-only', 2, '2 min', via => 'libpq', targets => %s)",
                         ([conninfo(primary), conninfo(standby)],))
    try:
        standby.poll("SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = 'pgbench_lab' "
                     "AND backend_type = 'client backend'")
        standby.stop()
        primary.scalar("SELECT pgbench_lab.cancel(%s)", (rid,))
        with primary.connect() as conn:
            status = conn.execute("CALL pgbench_lab.wait(%s)", (rid,)).fetchone()[1]
        assert status in ("failed", "cancelled"), status
        got = rows(primary, rid)
        assert got[1][3] is True and got[1][13] is None and got[1][14] is None, got[1]
        assert got[1][6] == 1 and got[0][6] == 0 and got[0][7] > 0, got
        assert "the recovery conflicts of target 2 were not read at its end" in primary.log()
        # why, on the standby's row: it could not be connected to
        why = primary.scalar("SELECT conflicts_error FROM pgbench_lab.run_targets WHERE run_id = %s "
                             "AND target = 2", (rid,))
        assert why.startswith("could not connect to the target server: "), why
        lines = report(primary, rid)
        assert ("     recovery conflicts during the run: not counted: the standby could not be read "
                f"at the end of the run ({why})") in lines, lines
    finally:
        standby.start()
        primary.poll("SELECT count(*) = 1 FROM pg_stat_replication WHERE state = 'streaming'")
