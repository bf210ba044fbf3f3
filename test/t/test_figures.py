"""Figures read where they happen, on real servers: the standbys' lag
sampled every 50 ms (not once a second), checkpoints counted when they
complete, a libpq run to another server measured there (or NULL with why,
never this server's), the last second's CPU kept, and no transaction that
runs with a rate lagging more than the latency limit.  Nothing here asserts
a speed: what is checked is what the code decides."""
import statistics

import pytest

from conftest import Background, PG_MAJOR, call_run as run, pgbench_cluster, primary_and_standby


@pytest.fixture(scope="module")
def pair():
    yield from primary_and_standby("fprimary", "fstandby", scale=1)


@pytest.fixture(scope="module")
def remote():
    yield from pgbench_cluster("fremote", {"checkpoint_timeout": "1h"}, scale=1)


def conninfo(c):
    return f"host=127.0.0.1 port={c.port} dbname=postgres user=postgres"


def test_standby_lag_sampled_at_least_ten_times_a_second(pair):
    primary, _ = pair
    rid = run(primary, "tpcb-like", clients=2, duration="3 s")
    rows = primary.sql("SELECT x.second, x.lag_samples, x.replay_lag_bytes, x.replay_lag_bytes_max, "
                       "x.flush_lag_bytes, x.flush_lag_bytes_max FROM pgbench_lab.run_replication x "
                       "WHERE x.run_id = %s ORDER BY x.second", (rid,))
    assert len(rows) >= 3, rows
    # every second but the last (cut short by the end): 20 samples planned
    assert all(r[1] >= 10 for r in rows[:-1]), rows
    assert all(r[1] >= 1 for r in rows), rows
    # the largest sample is never below the lag at the second's end
    assert all(r[3] >= r[2] and r[5] >= r[4] for r in rows), rows
    lines = [r[0] for r in primary.sql("SELECT * FROM pgbench_lab.report(%s)", (rid,))]
    assert any("replay lag up to " in x and "as sampled every 50 ms" in x for x in lines), lines
    assert "sampled" in primary.scalar("SELECT col_description('pgbench_lab.run_replication'::regclass, "
                                       "(SELECT attnum FROM pg_attribute WHERE attrelid = "
                                       "'pgbench_lab.run_replication'::regclass "
                                       "AND attname = 'replay_lag_bytes_max'))")


def test_checkpoints_counted_when_they_complete(pair):
    """Two CHECKPOINTs completed during a run (each returns once complete,
    the second issued after the first was recorded): the run counts two,
    and its seconds sum to the same."""
    primary, _ = pair
    conn = primary.connect()
    try:
        call = Background(conn, "CALL pgbench_lab.run('select-only', clients => 1, duration => '10 min', "
                                "label => 'ckpt')")
        primary.poll("SELECT EXISTS (SELECT FROM pgbench_lab.run_progress p JOIN pgbench_lab.runs r "
                     "USING (run_id) WHERE r.label = 'ckpt' AND r.status = 'running')")
        rid = primary.scalar("SELECT run_id FROM pgbench_lab.runs WHERE label = 'ckpt'")
        done0 = primary.scalar("SELECT num_done FROM pg_stat_checkpointer") if PG_MAJOR >= 18 else None
        primary.sql("CHECKPOINT")
        primary.poll("SELECT coalesce(sum(checkpoints), 0) = 1 FROM pgbench_lab.run_telemetry "
                     "WHERE run_id = %s", (rid,))
        primary.sql("CHECKPOINT")
        primary.poll("SELECT coalesce(sum(checkpoints), 0) = 2 FROM pgbench_lab.run_telemetry "
                     "WHERE run_id = %s", (rid,))
        if PG_MAJOR >= 18:
            assert primary.scalar("SELECT num_done FROM pg_stat_checkpointer") - done0 == 2
        primary.sql("SELECT pgbench_lab.cancel(%s)", (rid,))
        call.join(60)
    finally:
        conn.close()
    assert primary.scalar("SELECT checkpoints FROM pgbench_lab.runs WHERE run_id = %s", (rid,)) == 2
    assert primary.scalar("SELECT sum(checkpoints) FROM pgbench_lab.run_telemetry WHERE run_id = %s",
                          (rid,)) == 2


def test_remote_run_reads_wal_and_checkpoints_on_its_target(pair, remote):
    primary, standby = pair
    before = remote.scalar("SELECT pg_current_wal_lsn()::text")
    rid = run(primary, "tpcb-like", clients=2, duration="2 s", via="libpq", target=conninfo(remote))
    written = remote.scalar("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), %s::pg_lsn)", (before,))
    wal, ckpts, note = primary.sql("SELECT wal_bytes, checkpoints, figures_note FROM pgbench_lab.runs "
                                   "WHERE run_id = %s", (rid,))[0]
    # the target's WAL (tpcb-like writes there, next to nothing here)
    assert written / 2 <= wal <= written, (wal, written)
    assert ckpts == 0 and note.startswith("read on the target"), (ckpts, note)
    t = primary.sql("SELECT wal_bytes, checkpoints, figures_note FROM pgbench_lab.run_targets "
                    "WHERE run_id = %s", (rid,))
    assert t == [(wal, 0, None)], t
    # this server's counters and machine are not the run's: NULL
    tel = primary.sql("SELECT wal_bytes, checkpoints, cpu_user_pct, disk_busy_pct, run_cpu_seconds "
                      "FROM pgbench_lab.run_telemetry WHERE run_id = %s", (rid,))
    assert tel and all(r[:4] == (None, None, None, None) and r[4] is not None for r in tel), tel
    text = [r[0] for r in primary.sql("SELECT * FROM pgbench_lab.report(%s)", (rid,))]
    assert any(x.startswith("  WAL written ") and "(read on the target" in x for x in text), text
    # only a standby: nothing of its own to read, NULL with why
    rid = run(primary, "select-only", clients=1, duration="1 s", via="libpq", target=conninfo(standby))
    wal, ckpts, note = primary.sql("SELECT wal_bytes, checkpoints, figures_note FROM pgbench_lab.runs "
                                   "WHERE run_id = %s", (rid,))[0]
    assert wal is None and ckpts is None and note.startswith("not measured"), (wal, ckpts, note)
    assert primary.scalar("SELECT figures_note FROM pgbench_lab.run_targets WHERE run_id = %s",
                          (rid,)).startswith("a standby")
    # the same server given twice: counted once, with where it was read
    rid = run(primary, "tpcb-like", clients=2, duration="1 s", via="libpq",
              targets=[conninfo(remote), conninfo(remote).replace("host=", "hostaddr=")])
    wal, note = primary.sql("SELECT wal_bytes, figures_note FROM pgbench_lab.runs WHERE run_id = %s",
                            (rid,))[0]
    per = primary.sql("SELECT wal_bytes FROM pgbench_lab.run_targets WHERE run_id = %s ORDER BY target",
                      (rid,))
    assert per[0][0] is not None and wal == per[0][0], (wal, per)
    assert note.startswith("read on targets[1]"), note


@pytest.mark.parametrize("via", ["spi", "libpq"])
def test_last_second_keeps_its_cpu(pair, via):
    """The clients have exited when the last second is written: their CPU
    time noted at their end still counts there, as in the other seconds."""
    primary, _ = pair
    rid = run(primary, "select-only", clients=2, duration="3 s", via=via)
    rows = primary.sql("SELECT second, interval_seconds, run_cpu_seconds FROM pgbench_lab.run_telemetry "
                       "WHERE run_id = %s ORDER BY second", (rid,))
    assert len(rows) >= 3, rows
    per_second = [r[2] / r[1] for r in rows[:-1]]
    last = rows[-1][2] / rows[-1][1]
    assert statistics.median(per_second) > 0, rows
    assert last >= 0.25 * statistics.median(per_second), rows


@pytest.mark.parametrize("via", ["spi", "libpq"])
def test_no_transaction_that_runs_lags_more_than_the_limit(pair, via):
    """A rate far beyond what the clients can do, with a 1 ms limit: slots
    are skipped, and every transaction that ran started at most 1 ms after
    its slot (checked when it starts, not only when its slot is drawn)."""
    primary, _ = pair
    rid = run(primary, "select-only", clients=2, duration="2 s", via=via, rate=50000,
              latency_limit="1 ms", sample_rate=1.0)
    lag_max, skipped, xacts = primary.sql("SELECT lag_max_ms, skipped, transactions FROM pgbench_lab.runs "
                                          "WHERE run_id = %s", (rid,))[0]
    assert skipped > 0 and xacts > 0, (skipped, xacts)
    assert lag_max <= 1.0, lag_max
    assert primary.scalar("SELECT max(lag_max_ms) FROM pgbench_lab.run_progress WHERE run_id = %s",
                          (rid,)) <= 1.0
    assert primary.scalar("SELECT max(lag_ms) FROM pgbench_lab.run_samples WHERE run_id = %s "
                          "AND NOT failed", (rid,)) <= 1.0
