"""Where a run's time went (pgbench_lab.run_telemetry) on real servers: the
machine's CPU per second, the clients' sampled wait events, checkpoints and
WAL, and the setting that turns it off.  Nothing here asserts a speed: the
checks hold on a loaded 2-core machine."""
import json
import threading

import pytest

from conftest import call_run as run, pgbench_cluster


@pytest.fixture(scope="module")
def lab():
    # fsync on: the synchronous_commit test needs WAL flushes that wait
    yield from pgbench_cluster("telemetry", {"shared_buffers": "32MB", "fsync": "on",
                                             "checkpoint_timeout": "1h", "max_wal_size": "1GB"},
                               scale=2)


def telemetry(c, run_id):
    return c.sql("""SELECT second, interval_seconds, cpu_user_pct, cpu_system_pct, cpu_iowait_pct,
                           cpu_steal_pct, cpu_idle_pct, run_cpu_seconds, checkpoints,
                           wal_records, wal_bytes, wait_samples, waits
                      FROM pgbench_lab.run_telemetry WHERE run_id = %s ORDER BY second""", (run_id,))


def report(c, run_id):
    return [r[0] for r in c.sql("SELECT * FROM pgbench_lab.report(%s)", (run_id,))]


def waits_of(c, run_id):
    """The run's wait counts summed over its seconds."""
    total = {}
    for (waits,) in c.sql("SELECT waits FROM pgbench_lab.run_telemetry WHERE run_id = %s", (run_id,)):
        for k, v in (waits or {}).items():
            total[k] = total.get(k, 0) + v
    return total


def test_one_row_per_progress_second(lab):
    rid = run(lab, "select-only", clients=1, duration="3 s")
    rows = telemetry(lab, rid)
    progress = [r[0] for r in lab.sql("SELECT second FROM pgbench_lab.run_progress WHERE run_id = %s "
                                      "ORDER BY second", (rid,))]
    assert [r[0] for r in rows] == progress
    for r in rows:
        shares = r[2:7]
        assert all(s is not None and 0 <= s <= 100 for s in shares), r
        # the five shares of the machine's CPU time sum to 100 %
        assert sum(shares) == pytest.approx(100, abs=0.5), r
        assert r[7] >= 0
        assert r[11] > 0, "wait samples in every second"
    # the run's own processes used CPU: one client running select-only
    assert sum(r[7] for r in rows) > 0
    # the machine's busy CPU over the full seconds, as the 85 % rule reads it
    busy = lab.scalar("SELECT pgbench_lab_internal.run_cpu_busy(%s)", (rid,))
    full = [100 - r[6] - r[4] for r in rows if r[1] >= 0.5]
    assert busy == pytest.approx(sum(full) / len(full))
    # a select-only run writes little WAL, but the counters are there
    assert all(r[9] is not None and r[10] is not None for r in rows)


def test_cpu_bound_run_waits_on_nothing_mostly(lab):
    """select-only with its data in shared buffers: the clients are mostly
    on CPU (no wait event).  Two clients on a loaded 2-core machine are
    still runnable, not waiting, when the scheduler preempts them."""
    lab.sql("SELECT pg_prewarm('pgbench_accounts')")
    rid = run(lab, "select-only", clients=2, duration="3 s")
    waits = waits_of(lab, rid)
    total = sum(waits.values())
    assert total > 50
    assert max(waits, key=waits.get) == "CPU", waits
    assert waits["CPU"] / total > 0.5, waits
    # report(): the profile's first entry is CPU, with its share
    lines = report(lab, rid)
    i = lines.index(next(x for x in lines if x.startswith("Where the time went")))
    assert lines[i + 1].strip().startswith("CPU (no wait event)")
    share = float(lines[i + 1].split()[4])
    assert share == pytest.approx(100 * waits["CPU"] / total, abs=0.1)
    assert any(x.startswith(" machine │") for x in lines)
    if waits["CPU"] / total >= 0.8:
        assert any("CPU-bound: the clients waited on nothing" in x for x in lines)


def test_forced_checkpoint_recorded_at_its_second(lab):
    """A CHECKPOINT issued during a run shows in the row of the second it
    completed in: between the last second recorded before it was issued
    and a second after it returned."""
    with lab.connect() as conn:
        rid_box = {}

        def go():
            with lab.connect() as c2:
                rid_box["row"] = c2.execute("CALL pgbench_lab.run('tpcb-like', clients => 2, "
                                            "duration => '6 s')").fetchone()
        t = threading.Thread(target=go)
        t.start()
        lab.poll("SELECT EXISTS (SELECT FROM pgbench_lab.run_progress p JOIN pgbench_lab.runs r "
                 "USING (run_id) WHERE r.status = 'running' AND p.second >= 2)")
        rid = lab.scalar("SELECT run_id FROM pgbench_lab.runs WHERE status = 'running'")
        before = lab.scalar("SELECT max(second) FROM pgbench_lab.run_telemetry WHERE run_id = %s", (rid,))
        conn.execute("CHECKPOINT")
        after = lab.scalar("SELECT max(second) FROM pgbench_lab.run_progress WHERE run_id = %s", (rid,))
        t.join(60)
    assert rid_box["row"][1] == "done"
    rows = telemetry(lab, rid)
    marked = [r[0] for r in rows if r[8] > 0]
    assert marked, rows
    assert all(before <= s <= after + 2 for s in marked), (before, after, marked)
    # report(): marked under the CPU chart, in the column of its second
    lines = report(lab, rid)
    ckpt = next(x for x in lines if x.startswith("    ckpt │"))
    cols = ckpt.split("│", 1)[1]
    assert [i + 1 for i, ch in enumerate(cols) if ch == "▲"] == marked
    assert any("checkpoint(s) completed during the run" in x for x in lines)


def test_synchronous_commit_shows_wal_waits(lab):
    """tpcb-like on a real disk with fsync on: each commit waits for its WAL
    flush, so the clients are seen waiting on WAL; with
    synchronous_commit = off they are not waiting on the flush."""
    # the names' case changed in 17 (IO:WALSync became IO:WalSync)
    wal = {"io:walsync", "lwlock:walwrite", "io:walwrite", "lwlock:walwritelock"}

    def wal_share(settings):
        rid = run(lab, "tpcb-like", clients=2, duration="3 s", settings=json.dumps(settings))
        waits = waits_of(lab, rid)
        return sum(v for k, v in waits.items() if k.lower() in wal) / sum(waits.values()), waits, rid

    on, waits_on, rid = wal_share({"synchronous_commit": "on"})
    off, waits_off, _ = wal_share({"synchronous_commit": "off"})
    top = sorted(waits_on, key=waits_on.get, reverse=True)[:4]
    assert any(k.lower() in wal for k in top), waits_on
    assert on > off, (waits_on, waits_off)
    top_off = sorted(waits_off, key=waits_off.get, reverse=True)[:2]
    assert not any(k.lower() == "io:walsync" for k in top_off), waits_off
    # the report's profile names them, with their shares
    lines = report(lab, rid)
    profile = lines[lines.index(next(x for x in lines if x.startswith("Where the time went"))):]
    assert any(x.strip().lower().startswith(tuple(wal)) and "%" in x for x in profile[1:7]), profile


def test_cold_run_waits_on_data_file_reads(lab):
    """After make_cold the clients read pages from the disk: they are seen
    waiting on the read (IO:DataFileRead, or from 18 with io_method =
    worker possibly on the asynchronous read's completion)."""
    lab.sql("SELECT count(*) FROM pgbench_lab.make_cold('pgbench_accounts')")
    rid = run(lab, "select-only", clients=1, duration="2 s")
    waits = waits_of(lab, rid)
    reads = sum(v for k, v in waits.items()
                if k.startswith("IO:DataFile") or k == "IO:AioIoCompletion")
    assert reads > 0, waits


def test_telemetry_off_as_run_setting(lab):
    rid = run(lab, "select-only", clients=1, duration="1 s",
              settings='{"pgbench_lab.telemetry": "off"}')
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.run_telemetry WHERE run_id = %s", (rid,)) == 0
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.run_progress WHERE run_id = %s", (rid,)) > 0
    assert not any(x.startswith("Where the time went") for x in report(lab, rid))


def test_libpq_run_records_no_waits(lab):
    rid = run(lab, "select-only", clients=1, duration="1 s", via="libpq")
    rows = telemetry(lab, rid)
    assert rows and all(r[12] is None for r in rows)


def test_export_import_carry_telemetry(lab):
    rid = run(lab, "select-only", clients=1, duration="2 s")
    doc = lab.scalar("SELECT pgbench_lab.export(ARRAY[%s::bigint])", (rid,))
    tel = doc["runs"][0]["telemetry"]
    assert [t["second"] for t in tel] == [r[0] for r in telemetry(lab, rid)]
    new = lab.scalar("SELECT id FROM pgbench_lab.import(%s)", (json.dumps(doc),))
    cols = ("second, interval_seconds, cpu_user_pct, cpu_system_pct, cpu_iowait_pct, cpu_steal_pct, "
            "cpu_idle_pct, run_cpu_seconds, checkpoints, buffers_checkpoint, buffers_clean, "
            "buffers_backend, wal_records, wal_fpi, wal_bytes, wait_samples, waits, temp_files, "
            "temp_bytes, disk_reads, disk_read_bytes, disk_writes, disk_write_bytes, disk_busy_pct")
    q = f"SELECT {cols} FROM pgbench_lab.run_telemetry WHERE run_id = %s ORDER BY second"
    assert lab.sql(q, (new,)) == lab.sql(q, (rid,))
    assert any(x.startswith("Where the time went") for x in report(lab, new))
    # a document whose wait counts are not whole numbers is refused
    doc["runs"][0]["telemetry"][0]["waits"] = {"CPU": "many"}
    with pytest.raises(Exception) as e:
        lab.sql("SELECT * FROM pgbench_lab.import(%s)", (json.dumps(doc),))
    assert "telemetry[0].waits" in str(e.value)
    doc["runs"][0]["telemetry"][0]["waits"] = {"CPU": 1}
    doc["runs"][0]["telemetry"][0]["wait_samples"] = -1
    with pytest.raises(Exception) as e:
        lab.sql("SELECT * FROM pgbench_lab.import(%s)", (json.dumps(doc),))
    assert "telemetry" in str(e.value)


def test_disk_and_temp_files(lab):
    """A sort larger than work_mem writes temporary files, which the run's
    telemetry counts; the data directory's disk is found through the device
    system_info() names, or its columns are all NULL."""
    rid = run(lab, None, clients=1, duration="2 s", settings='{"work_mem": "64kB"}',
              script="SELECT count(*) FROM (SELECT aid FROM pgbench_accounts ORDER BY abalance, aid) s;")
    rows = lab.sql("""SELECT temp_files, temp_bytes, disk_reads, disk_read_bytes, disk_writes,
                             disk_write_bytes, disk_busy_pct
                        FROM pgbench_lab.run_telemetry WHERE run_id = %s ORDER BY second""", (rid,))
    assert rows
    assert sum(r[0] for r in rows) > 0 and sum(r[1] for r in rows) > 0, rows
    device = lab.scalar("SELECT system->>'data_device' FROM pgbench_lab.runs WHERE run_id = %s", (rid,))
    listed = False
    if device:
        with open("/proc/diskstats") as f:
            listed = any(line.split()[2] == device for line in f if len(line.split()) > 2)
    for r in rows:
        disk = r[2:]
        if listed:
            assert all(x is not None and x >= 0 for x in disk), r
            assert disk[4] <= 100
        else:
            assert all(x is None for x in disk), r
    lines = report(lab, rid)
    assert any(x.startswith("  temp files") for x in lines), lines


def test_each_role_reads_its_own_runs_telemetry(lab):
    rid = run(lab, "select-only", clients=1, duration="1 s")
    lab.sql("DROP ROLE IF EXISTS tel_reader")
    lab.sql("CREATE ROLE tel_reader LOGIN")
    try:
        assert lab.scalar("SELECT count(*) FROM pgbench_lab.run_telemetry WHERE run_id = %s",
                          (rid,), user="tel_reader") == 0
        lab.sql("GRANT pg_monitor TO tel_reader")
        assert lab.scalar("SELECT count(*) FROM pgbench_lab.run_telemetry WHERE run_id = %s",
                          (rid,), user="tel_reader") > 0
    finally:
        lab.sql("DROP ROLE tel_reader")


def test_plot_cpu_and_waits(lab):
    rid = run(lab, "tpcb-like", clients=2, duration="2 s")
    for metric, title in (("cpu", "Machine CPU busy per second"), ("waits", "Clients waiting per second")):
        svg = lab.scalar("SELECT pgbench_lab.plot(ARRAY[%s::bigint], %s)", (rid, metric))
        assert svg.startswith("<svg") or svg.lstrip().startswith("<?xml") or "<svg" in svg[:200]
        assert title in svg and "Nothing to plot." not in svg, svg[:500]
    # a run without telemetry says it has nothing of that kind
    off = run(lab, "select-only", clients=1, duration="1 s", settings='{"pgbench_lab.telemetry": "off"}')
    svg = lab.scalar("SELECT pgbench_lab.plot(ARRAY[%s::bigint], 'cpu')", (off,))
    assert f"Run {off}: no per-second cpu was recorded" in svg


def test_sweep_names_cpu_limit_and_waits_at_peak(lab):
    """The sweep's verdict applies the 85 % rule to each count's telemetry
    and says what the clients waited on at the peak; sweep_summary() and
    the report carry the same figures."""
    with lab.connect() as conn:
        v = conn.execute("CALL pgbench_lab.sweep('select-only', '{1,2}', '1 s')").fetchone()
    eid, finding = v[0], v[4]
    rows = lab.sql("""SELECT clients, run_id, cpu_busy_pct, waits FROM pgbench_lab.sweep_summary(%s)
                       ORDER BY clients""", (eid,))
    busy = {r[0]: lab.scalar("SELECT pgbench_lab_internal.run_cpu_busy(%s)", (r[1],)) for r in rows}
    assert all(r[2] == pytest.approx(busy[r[0]]) for r in rows)
    assert all(r[3] and r[3].split()[0] in {w for w in waits_of(lab, r[1])} for r in rows), rows
    limit = lab.scalar("SELECT cpu_limit_clients FROM pgbench_lab.sweep_verdict(%s)", (eid,))
    over = [c for c in sorted(busy) if busy[c] >= 85]
    assert limit == (over[0] if over else None)
    if over:
        # rounded as the finding rounds it (98.5 is 99 there, 98 in Python)
        run_of = {r[0]: r[1] for r in rows}
        shown = lab.scalar("SELECT pgbench_lab_internal.fmt(pgbench_lab_internal.run_cpu_busy(%s), 0)",
                           (run_of[over[0]],))
        assert f"CPU: the machine's CPU was {shown} % busy at {over[0]} client" in finding, finding
    else:
        assert "CPU: below 85 % busy at every count" in finding, finding
    peak = lab.scalar("SELECT peak_clients FROM pgbench_lab.sweep_verdict(%s)", (eid,))
    peak_waits = next(r[3] for r in rows if r[0] == peak)
    assert f"At the peak the clients' time went to: {peak_waits}." in finding
    lines = [r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (eid,))]
    assert "CPU %" in lines[next(i for i, x in enumerate(lines) if x.lstrip().startswith("clients"))]
    assert any(x.startswith("Where the clients' time went") for x in lines)
    assert any(x.startswith("CPU:") for x in lines) and any(x.startswith("At the peak") for x in lines)


def test_compare_shows_cpu_waits_and_checkpoints(lab):
    a = run(lab, "select-only", clients=1, duration="1 s")
    b = run(lab, "select-only", clients=1, duration="1 s", settings='{"pgbench_lab.telemetry": "off"}')
    rows = lab.sql("SELECT run_id, cpu_busy_pct, waits, checkpoints FROM pgbench_lab.compare(ARRAY[%s, %s]::bigint[])",
                   (a, b))
    waits = waits_of(lab, a)
    top = min(waits, key=lambda k: (-waits[k], k))      # ties: by name, as waits_text orders them
    assert rows[0][0] == a and rows[0][1] is not None and rows[0][2].startswith(f"{top} "), (rows, waits)
    # rounded to one decimal
    assert float(rows[0][1]) == pytest.approx(lab.scalar("SELECT pgbench_lab_internal.run_cpu_busy(%s)", (a,)), abs=0.051)
    assert rows[0][3] == lab.scalar("SELECT sum(checkpoints) FROM pgbench_lab.run_telemetry WHERE run_id = %s", (a,))
    assert rows[1][1:] == (None, None, None), "a run without telemetry shows none"


def test_pacing_is_idle_not_a_wait(lab):
    """A client waiting for its next scheduled start (a rate) or in a
    script's \\sleep is idle by its own choice: counted as Idle:Pacing, not
    as the Extension wait its latch wait reports."""
    rid = run(lab, "select-only", clients=1, duration="2 s", rate=20)
    waits = waits_of(lab, rid)
    assert max(waits, key=waits.get) == "Idle:Pacing", waits
    assert "Extension:Extension" not in waits, waits
    assert any(x.strip().startswith("Idle:Pacing (rate, \\sleep)") for x in report(lab, rid))
    rid = run(lab, None, clients=1, duration="2 s", script="\\sleep 50 ms\nSELECT 1;\n")
    waits = waits_of(lab, rid)
    assert max(waits, key=waits.get) == "Idle:Pacing", waits
    assert "Extension:Extension" not in waits, waits
