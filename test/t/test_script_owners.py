"""A role's saved script names are its own: a name in scripts => is the
calling role's script, never another role's of the same name; another
role's runs only when named with its owner ('bob/hot_accounts'), with a
NOTICE saying whose text runs as whom; and a run runs, and run_scripts
keeps, the text read when it started, whatever its owner saves later."""

import hashlib
import os

import psycopg
import pytest

from conftest import pgbench_cluster, fired_dir
from test_planted import fire_function

# What a squatter saves under the README's example name: if the superuser
# ever runs it, the planted function writes a server file and bob becomes
# a superuser.
SQUAT = "SELECT public.planted_fire('bob''s hot_accounts');\nALTER ROLE bob SUPERUSER;\n"
MINE = "SELECT abalance FROM pgbench_accounts WHERE aid = 1;\n"


@pytest.fixture(scope="module")
def lab():
    for c in pgbench_cluster("owners", {"shared_buffers": "32MB", "max_worker_processes": "16"}, scale=1):
        c.fired = fired_dir(c)
        c.sql(fire_function("public", c.fired))
        c.sql("CREATE TABLE marks (who text, v text)")
        c.sql("GRANT INSERT, SELECT ON marks TO PUBLIC")
        for role in ("bob", "carol"):
            c.sql(f"CREATE ROLE {role} LOGIN")
            c.sql(f"GRANT USAGE ON SCHEMA pgbench_lab TO {role}")
            c.sql(f"GRANT INSERT, UPDATE, DELETE ON pgbench_lab.scripts TO {role}")
            c.sql(f"GRANT EXECUTE ON ALL ROUTINES IN SCHEMA pgbench_lab TO {role}")
            c.sql(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")
        yield c


def run(c, user="postgres", notices=None, proc="run", **kw):
    """CALL pgbench_lab.<proc>(...) with named arguments as user; the row."""
    names = ", ".join(f"{k} => %({k})s" for k in kw)
    with c.connect(user=user) as conn:
        if notices is not None:
            conn.add_notice_handler(lambda d: notices.append((d.message_primary, d.message_detail)))
        cur = conn.execute(f"CALL pgbench_lab.{proc}({names})", kw)
        return dict(zip([d.name for d in cur.description], cur.fetchone()))


def save(c, user, name, body):
    c.sql("INSERT INTO pgbench_lab.scripts (name, body) VALUES (%s, %s) "
          "ON CONFLICT (created_by, name) DO UPDATE SET body = excluded.body", (name, body), user=user)


def recorded(c, run_id):
    return c.sql("SELECT name, owner, body FROM pgbench_lab.run_scripts WHERE run_id = %s ORDER BY script",
                 (run_id,))


def test_a_squatted_name_runs_the_callers_own_script(lab):
    """bob saves 'hot_accounts' first, with a text that would make him a
    superuser; the superuser still saves its own (no 23505), and its run
    of 'hot_accounts' runs its own text: nothing of bob's fires."""
    save(lab, "bob", "hot_accounts", SQUAT)
    lab.sql("INSERT INTO pgbench_lab.scripts (name, body) VALUES ('hot_accounts', %s)", (MINE,))
    assert lab.sql("SELECT created_by::text FROM pgbench_lab.scripts WHERE name = 'hot_accounts' "
                   "ORDER BY 1") == [("bob",), ("postgres",)]
    notices = []
    r = run(lab, notices=notices, scripts=["hot_accounts@3", "select-only@1"], clients=1, transactions=20)
    assert r["status"] == "done" and r["transactions_done"] == 20, r
    rows = recorded(lab, r["run_id"])
    assert rows[0] == ("hot_accounts", "postgres", MINE) and rows[1][:2] == ("select-only", None), rows
    assert os.listdir(lab.fired) == []
    assert not lab.scalar("SELECT rolsuper FROM pg_roles WHERE rolname = 'bob'")
    assert notices == []
    assert lab.scalar("SELECT workload FROM pgbench_lab.runs WHERE run_id = %s",
                      (r["run_id"],)) == "hot_accounts@3 select-only@1"


def test_another_roles_script_is_named_with_its_owner(lab):
    """'bob/hot_accounts' runs bob's text, as the caller, with a NOTICE
    that names bob, the caller, and the text's size and md5; the record
    says whose text ran, and so do the report and an export."""
    body = "INSERT INTO marks VALUES ('bob', 'harmless');\n"
    save(lab, "bob", "hot_accounts", body)
    lab.sql("TRUNCATE marks")
    notices = []
    r = run(lab, notices=notices, scripts=["bob/hot_accounts@2"], clients=1, transactions=5)
    assert r["status"] == "done", r
    assert lab.sql("SELECT who, v, count(*) FROM marks GROUP BY 1, 2") == [("bob", "harmless", 5)]
    assert recorded(lab, r["run_id"]) == [("hot_accounts", "bob", body)]
    assert lab.scalar("SELECT workload FROM pgbench_lab.runs WHERE run_id = %s", (r["run_id"],)) == \
        "bob/hot_accounts"
    ours = [n for n in notices if 'role "bob"' in n[0]]
    assert len(ours) == 1, notices
    assert ours[0][0] == 'script "hot_accounts" is role "bob"\'s: its text runs as role "postgres"'
    assert f"{len(body)} bytes, md5 {hashlib.md5(body.encode()).hexdigest()}" in ours[0][1], ours
    report = "\n".join(x for (x,) in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (r["run_id"],)))
    assert 'script 1 "hot_accounts" saved by bob, weight 2' in report, report
    # export and import carry the owner; a built-in's (none) stays out
    doc = lab.scalar("SELECT pgbench_lab.export(ARRAY[%s]::bigint[])", (r["run_id"],))
    assert [(s["name"], s["owner"]) for s in doc["runs"][0]["scripts"]] == [("hot_accounts", "bob")]
    new = lab.scalar("SELECT id FROM pgbench_lab.import(%s::jsonb) WHERE kind = 'run'",
                     (psycopg.types.json.Jsonb(doc),))
    assert recorded(lab, new) == recorded(lab, r["run_id"])
    r2 = run(lab, scripts=["select-only"], clients=1, transactions=1)
    doc = lab.scalar("SELECT pgbench_lab.export(ARRAY[%s]::bigint[])", (r2["run_id"],))
    assert "owner" not in doc["runs"][0]["scripts"][0]
    # an experiment checks every step's run before the first starts: the
    # NOTICE comes as each run starts, once per run
    notices = []
    r4 = run(lab, notices=notices, proc="sweep", scripts=["bob/hot_accounts"], clients=[1, 2],
             duration="1 s")
    assert r4["experiment_id"] is not None, r4
    assert len([n for n in notices if 'role "bob"' in n[0]]) == 2, notices
    # over libpq, where the built-in's text is written again once the
    # target's tables are found, the owner stays with its script
    r3 = run(lab, scripts=["bob/hot_accounts@1", "select-only@1"], clients=1, transactions=4,
             via="libpq")
    assert r3["status"] == "done", r3
    rows = recorded(lab, r3["run_id"])
    assert rows[0] == ("hot_accounts", "bob", body) and rows[1][:2] == ("select-only", None), rows


def test_a_name_the_caller_never_saved_is_refused(lab):
    """carol saved no 'hot_accounts': hers is refused (42704), with the
    roles that did and how to run theirs, before anything starts; an
    experiment resolves its scripts the same way."""
    save(lab, "bob", "hot_accounts", SQUAT)
    before = lab.scalar("SELECT count(*) FROM pgbench_lab.runs")
    for proc, kw in (("run", {"clients": 1, "transactions": 1}), ("sweep", {"clients": [1], "duration": "1 s"})):
        with pytest.raises(psycopg.errors.UndefinedObject) as e:
            run(lab, user="carol", proc=proc, scripts=["hot_accounts@3"], **kw)
        d = e.value.diag
        assert d.message_primary == 'role "carol" has no script named "hot_accounts"', d.message_primary
        assert d.message_detail == 'Roles "bob", "postgres" saved scripts of that name.', d.message_detail
        assert "'bob/hot_accounts'" in d.message_hint, d.message_hint
    for entry, state, text in (("nosuch/hot_accounts", "42704", 'role "nosuch" has no script named "hot_accounts"'),
                               ("carol/hot_accounts", "42704", 'role "carol" has no script named "hot_accounts"'),
                               ("never_saved", "42704", 'no script named "never_saved"'),
                               ("/hot_accounts", "22023", "invalid scripts entry"),
                               ("bob/", "22023", "invalid scripts entry")):
        with pytest.raises(psycopg.Error) as e:
            run(lab, user="carol", scripts=[entry], clients=1, transactions=1)
        assert e.value.sqlstate == state and text in str(e.value), (entry, e.value)
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs") == before
    assert os.listdir(lab.fired) == []
    assert not lab.scalar("SELECT rolsuper FROM pg_roles WHERE rolname = 'bob'")


def test_names_are_per_role_and_have_no_slash(lab):
    save(lab, "carol", "hot_accounts", MINE)
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.scripts WHERE name = 'hot_accounts'") == 3
    for name in ("a/b", "x@2", "select-only"):
        with pytest.raises(psycopg.errors.CheckViolation):
            save(lab, "carol", name, MINE)
    # carol changes only her own, and her run of the name runs hers
    lab.sql("UPDATE pgbench_lab.scripts SET body = 'SELECT 2;' WHERE name = 'hot_accounts'", user="carol")
    assert lab.scalar("SELECT body FROM pgbench_lab.scripts WHERE created_by = 'postgres' "
                      "AND name = 'hot_accounts'") == MINE
    r = run(lab, user="carol", scripts=["hot_accounts"], clients=1, transactions=1)
    assert recorded(lab, r["run_id"]) == [("hot_accounts", "carol", "SELECT 2;")]
    # a role's name that holds '@' and '/': the weight is after the last '/'
    lab.sql('CREATE ROLE "ann@corp/x" LOGIN')
    lab.sql('GRANT INSERT, UPDATE ON pgbench_lab.scripts TO "ann@corp/x"')
    save(lab, "ann@corp/x", "hot_accounts", MINE)
    r = run(lab, scripts=["ann@corp/x/hot_accounts"], clients=1, transactions=1)
    assert recorded(lab, r["run_id"]) == [("hot_accounts", "ann@corp/x", MINE)]
    r = run(lab, scripts=["ann@corp/x/hot_accounts@2", "select-only"], clients=1, transactions=1)
    assert lab.sql("SELECT owner, weight FROM pgbench_lab.run_scripts WHERE run_id = %s AND script = 1",
                   (r["run_id"],)) == [("ann@corp/x", 2)]


def test_the_text_is_fixed_when_the_run_starts(lab):
    """bob changes his text while a run of it waits on a lock: the run
    runs, and run_scripts keeps, the text it started with."""
    v1 = ("BEGIN;\nSELECT pg_advisory_xact_lock_shared(4242);\n"
          "INSERT INTO marks VALUES ('fixed', 'v1');\nCOMMIT;\n")
    save(lab, "bob", "slow", v1)
    lab.sql("TRUNCATE marks")
    with lab.connect() as holder:
        holder.execute("SELECT pg_advisory_lock(4242)")
        with lab.connect() as conn:
            run_id = conn.execute("SELECT pgbench_lab.start(scripts => '{bob/slow}', clients => 2, "
                                  "transactions => 3)").fetchone()[0]
        # the clients wait on the lock: bob changes his text meanwhile
        lab.poll("SELECT count(*) > 0 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
        save(lab, "bob", "slow", v1.replace("v1", "v2"))
        holder.execute("SELECT pg_advisory_unlock(4242)")
    with lab.connect() as conn:
        conn.execute("CALL pgbench_lab.wait(%s)", (run_id,))
    assert lab.scalar("SELECT status FROM pgbench_lab.runs WHERE run_id = %s", (run_id,)) == "done"
    assert lab.sql("SELECT v, count(*) FROM marks WHERE who = 'fixed' GROUP BY 1") == [("v1", 6)]
    assert recorded(lab, run_id) == [("slow", "bob", v1)]
