"""validate_recommendation() end to end on a small data set: recommend()'s
changes split into session, reload and restart groups, the first two
measured against the current settings in interleaved rounds, the file
restored byte for byte, and a report with a verdict per group."""
import os

import psycopg
import pytest

from conftest import pgbench_cluster
from test_settings_ab import auto_conf

PROC = "pgbench_lab.validate_recommendation"


@pytest.fixture(scope="module")
def lab():
    yield from pgbench_cluster("validate", {"max_worker_processes": "16"}, scale=1)


def changes(c):
    return c.sql("SELECT name, context, within_limits FROM pgbench_lab.recommend() WHERE changes")


def test_end_to_end(lab):
    with open(os.path.join(lab.datadir, "postgresql.auto.conf"), "ab") as f:
        f.write(b"# kept byte for byte\n")
    before = auto_conf(lab)
    recs = changes(lab)
    groups = {ctx for _, ctx, ok in recs if ok and ctx in ("session", "reload")}
    assert groups, recs
    eid, finding = lab.sql("CALL pgbench_lab.validate_recommendation('tpcb-like', clients => 2, "
                           "duration => '0.5 s', rounds => 2)")[0]
    assert auto_conf(lab) == before
    assert lab.scalar("SELECT kind FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,)) \
        == "validate_recommendation"
    runs = lab.sql("SELECT x.variant, x.round, r.status FROM pgbench_lab.experiment_runs x "
                   "JOIN pgbench_lab.runs r USING (run_id) WHERE x.experiment_id = %s ORDER BY x.ordinal", (eid,))
    nvar = 1 + len(groups)
    # round 2 runs the sets in the other order
    assert [(v, r) for v, r, _ in runs] == [(v, 1) for v in range(1, nvar + 1)] + \
        [(v, 2) for v in range(nvar, 0, -1)], runs
    assert all(s == "done" for _, _, s in runs), runs
    for g in groups:
        assert f"The recommended {g} settings" in finding, finding
    # a warm-up under the current settings first, recorded but not linked
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs r WHERE r.label = %s AND r.status = 'done' "
                      "AND NOT EXISTS (SELECT FROM pgbench_lab.experiment_runs x WHERE x.run_id = r.run_id)",
                      (f"validate_recommendation {eid}: warm-up",)) == 1
    # a commit-bound change (wal_compression ...) is measured over libpq, and the finding says why
    measured = {name for name, ctx, ok in recs if ok and ctx in ("session", "reload")}
    bound = measured & {"synchronous_commit", "commit_delay", "commit_siblings", "wal_writer_delay",
                        "wal_writer_flush_after", "wal_sync_method", "fsync", "full_page_writes",
                        "wal_compression", "wal_buffers"}
    vias = {v for (v,) in lab.sql("SELECT DISTINCT r.via FROM pgbench_lab.experiment_runs x "
                                  "JOIN pgbench_lab.runs r USING (run_id) WHERE x.experiment_id = %s", (eid,))}
    assert vias == ({"libpq"} if bound else {"spi"}), (vias, bound)
    assert ("Path: over libpq (this server's own socket), chosen because" in finding) == bool(bound), finding
    # checkpoint settings measured by runs without a checkpoint are said not exercised
    ck = measured & {"max_wal_size", "min_wal_size", "checkpoint_timeout", "checkpoint_completion_target",
                     "checkpoint_flush_after"}
    seen = lab.scalar("SELECT sum(r.checkpoints) FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r "
                      "USING (run_id) WHERE x.experiment_id = %s", (eid,))
    if ck and seen == 0:
        assert "which act through checkpoints, were not exercised" in finding \
            or "which acts through checkpoints, was not exercised" in finding, finding
    assert " TPS " in finding and "against" in finding and "paired round by round, ×" in finding, finding
    if any(ctx == "restart" for _, ctx, _ in recs):
        assert "Not measured:" in finding
    if any(ok and name == "shared_buffers" for name, _, ok in recs):
        # the two-phase plan, named as a CALL that compare_settings() takes
        call = finding[finding.index("CALL pgbench_lab.compare_settings("):finding.index("; then restart")]
        assert "restart_settings => '{" in call and '"shared_buffers": ' in call, call
        assert "resume(experiment_id)" in finding, finding
        two = lab.sql(call)[0][0]
        assert lab.scalar("SELECT status FROM pgbench_lab.experiments WHERE experiment_id = %s", (two,)) \
            == "waiting for restart"
        lab.sql("SELECT * FROM pgbench_lab.restore_settings()")
        assert auto_conf(lab) == before
    report = [r[0] for r in lab.sql("SELECT line FROM pgbench_lab.report(%s) AS line", (eid,))]
    text = "\n".join(report)
    assert "Recommendations (current → recommended)" in text
    for name, ctx, _ in recs:
        assert name in text, name
    assert "checkpoints/min" in text
    # the session values went to the runs, the reload ones were live during them
    if "session" in groups:
        sess = lab.scalar("""SELECT r.settings FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r USING (run_id)
                              WHERE x.experiment_id = %s AND x.variant = 2 LIMIT 1""", (eid,))
        assert sess, sess
    assert lab.scalar("SELECT count(*) FROM pgbench_lab_internal.settings_saved "
                      "WHERE experiment_id = %s AND restored_at IS NULL", (eid,)) == 0


def test_refusals(lab):
    lab.sql("CREATE ROLE val_tuner LOGIN")
    lab.sql(f"GRANT EXECUTE ON PROCEDURE {PROC} TO val_tuner")
    lab.sql("GRANT pg_monitor TO val_tuner")
    lab.sql("GRANT SELECT, UPDATE, INSERT ON pgbench_accounts, pgbench_branches, pgbench_tellers, "
            "pgbench_history TO val_tuner")
    before = auto_conf(lab)
    if any(ok and ctx == "reload" for _, ctx, ok in changes(lab)):
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            lab.sql("CALL pgbench_lab.validate_recommendation('tpcb-like', duration => '1 s')", user="val_tuner")
    lab.sql("CREATE ROLE val_other LOGIN")   # not granted the procedure
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        lab.sql("CALL pgbench_lab.validate_recommendation('tpcb-like', duration => '1 s')", user="val_other")
    for args, err in [("NULL", psycopg.errors.NullValueNotAllowed),
                      ("'tpcb-like', rounds => 0", psycopg.errors.InvalidParameterValue),
                      ("'no-such-workload'", psycopg.errors.InvalidParameterValue)]:
        with pytest.raises(err):
            lab.sql(f"CALL pgbench_lab.validate_recommendation({args})")
    assert auto_conf(lab) == before
