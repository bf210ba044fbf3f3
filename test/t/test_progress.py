"""Progress of long calls: a NOTICE as each step starts and ends, with the
time left, once a call is planned or running as long as
pgbench_lab.progress_after; and the view pgbench_lab.in_progress, which
shows every call's line from another session.

What is asserted is what the code decides (the steps, their order and
count, the threshold's rule), never how fast a step runs: the view is
watched while init() is held at its first step by a lock this test holds.
"""
import re
import time

import pytest

from conftest import Background, Cluster

STEP = re.compile(r"^step (\d+) of (\d+)( done)?: (.*)$")


@pytest.fixture(scope="module")
def lab():
    c = Cluster("progress")
    try:		# init() makes the data set: no pgbench -i here
        c.start()
        c.sql("CREATE EXTENSION pgbench_lab CASCADE")
        yield c
    finally:
        c.destroy()


def notices_of(c, setting, query, params=None):
    """The NOTICEs a statement gives with pgbench_lab.progress_after set."""
    got = []
    with c.connect() as conn:
        conn.add_notice_handler(lambda d: got.append(d.message_primary))
        conn.execute("SET pgbench_lab.progress_after = %s" % setting)
        conn.execute(query, params)
    return [m for m in got if STEP.match(m)]


def steps(lines):
    return [(int(m[1]), int(m[2]), bool(m[3]), m[4]) for m in map(STEP.match, lines)]


def test_init_says_each_step(lab):
    lines = notices_of(lab, "0", "SELECT * FROM pgbench_lab.init(scale => 1)")
    got = steps(lines)
    names = ["drop tables", "create tables", "primary keys", "generate data", "vacuum"]
    assert [(s, n, done) for s, n, done, _ in got] == \
        [(k, 5, done) for k in range(1, 6) for done in (False, True)], lines
    for (s, _, done, text), name in zip(got, [n for n in names for _ in (0, 1)]):
        assert text.startswith(name), (s, text)
        if not done and s > 1:
            assert re.search(r"; about (\d+ s|\d+ min \d+ s|\d+ h \d+ min) left$", text), text
    assert re.match(r"generate data, \d+ rows in \d+\.\d s", dict((s, t) for s, _, d, t in got if d)[4])


def test_planned_calls_say_steps_from_the_start(lab):
    """fsync_test(1 s) is planned at 1 s: over a 500 ms threshold it says
    every step, each of its 5 rounds of every method."""
    lines = notices_of(lab, "'500ms'", "SELECT * FROM pgbench_lab.fsync_test(1)")
    got = steps(lines)
    n = got[0][1]
    assert n == 5
    assert [(s, done) for s, _, done, _ in got] == [(k, d) for k in range(1, n + 1) for d in (False, True)]
    assert "about 1 s left" in got[0][3]
    assert got[0][3].startswith("round 1 of 5: 19 ways to write and sync")
    assert all(re.search(r"^round \d: .*(ops/s) \(\d+ s so far\)$", t) for _, _, d, t in got if d)


def test_io_test_steps(lab):
    got = steps(notices_of(lab, "0", "SELECT * FROM pgbench_lab.io_test('16MB', 0.3)"))
    assert [(s, n, d) for s, n, d, _ in got] == [(k, 3, d) for k in (1, 2, 3) for d in (False, True)]
    assert got[0][3].startswith("writing the 16 MB test file")


def test_threshold_and_off(lab):
    # planned well under an hour, and not running that long: no notices
    assert notices_of(lab, "'1h'", "SELECT * FROM pgbench_lab.fsync_test(0.2)") == []
    assert notices_of(lab, "-1", "SELECT * FROM pgbench_lab.init(scale => 1)") == []


def test_view_shows_a_call_from_another_session(lab):
    """init() waits at its first step for a lock this test holds: meanwhile
    another session sees it in in_progress, and it is gone after."""
    holder = lab.connect(autocommit=False)
    caller = lab.connect()
    watcher = lab.connect()
    try:
        holder.execute("LOCK TABLE public.pgbench_accounts IN ACCESS EXCLUSIVE MODE")
        call = Background(caller, "SELECT * FROM pgbench_lab.init(scale => 1)")
        row = None
        deadline = time.monotonic() + 120
        while row is None and time.monotonic() < deadline:
            row = watcher.execute("SELECT call, progress, role, database FROM pgbench_lab.in_progress "
                                  "WHERE pid = %s", (call.pid,)).fetchone()
            time.sleep(0.05)
        assert row is not None, "init() never showed in pgbench_lab.in_progress"
        assert row[0] == "init()" and row[1].startswith("step 1 of 5: drop tables"), row
        assert row[2:] == ("postgres", "postgres")
        holder.rollback()
        assert call.join(timeout=300) is None
        assert watcher.execute("SELECT count(*) FROM pgbench_lab.in_progress WHERE pid = %s",
                               (call.pid,)).fetchone()[0] == 0
    finally:
        holder.close()
        caller.close()
        watcher.close()


def test_experiments_say_each_run(lab):
    """A sweep of two runs planned at 1 s each: every step's start with the
    plan's time left, and its end with what its run measured."""
    lab.sql("SELECT * FROM pgbench_lab.init(scale => 1)")
    lines = notices_of(lab, "'1500ms'",
                       "CALL pgbench_lab.sweep('select-only', clients => '{1,2}', duration => '1 s')")
    got = steps(lines)
    assert [(s, n, d) for s, n, d, _ in got] == [(1, 2, False), (1, 2, True), (2, 2, False), (2, 2, True)], lines
    assert got[0][3].endswith("; about 2 s left"), got[0]
    assert re.match(r"run \d+ done, [\d.]+ tps \(\d+ s so far\)$", got[1][3]), got[1]
    # under the threshold the same sweep is quiet
    assert notices_of(lab, "'1h'", "CALL pgbench_lab.sweep('select-only', clients => '{1}', duration => '1 s')") == []
