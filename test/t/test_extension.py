"""CREATE EXTENSION without preload or restart; DROP EXTENSION leaves nothing."""


def test_create_without_preload(new_cluster):
    c = new_cluster("ext")
    assert c.scalar("SHOW shared_preload_libraries") == ""
    c.sql("CREATE EXTENSION pgbench_lab CASCADE")
    assert c.scalar("SELECT count(*) FROM pg_extension WHERE extname = 'pg_prewarm'") == 1


def test_drop_leaves_nothing(new_cluster):
    c = new_cluster("drop")
    before = c.sql("SELECT oid::regclass::text FROM pg_class WHERE oid >= 16384 ORDER BY 1")
    c.sql("CREATE EXTENSION pgbench_lab CASCADE")
    c.sql("DROP EXTENSION pgbench_lab")
    assert c.scalar("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'pgbench_lab%'") == 0
    assert c.scalar("SELECT count(*) FROM pg_proc WHERE proname LIKE 'pgbench_lab%'") == 0
    after = c.sql("SELECT oid::regclass::text FROM pg_class WHERE oid >= 16384 ORDER BY 1")
    assert after == before
    # and it can come back
    c.sql("CREATE EXTENSION pgbench_lab")
