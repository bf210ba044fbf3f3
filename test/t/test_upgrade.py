"""Updating from the released versions: the released 0.1 and 0.2 scripts
still install with today's library, ALTER EXTENSION ... UPDATE gives the
same catalog as a fresh install of the current version (from 0.2 directly,
and from 0.1 through 0.2), and the results recorded under the old version
survive the update and read through the new functions.

Per released version, one cluster, two databases: "updated" gets that
version, real results (a dataset, runs, a cache snapshot, a sweep; under
0.2 also a script's run, a libpq run and its target), then the update;
"fresh" gets the default version.  The catalogs of the two are described object by object (every
member of the extension and everything in its schemas) and compared; a
difference is printed as the object, the property and both values.
A user's object that depends on a 0.1 function stops the update instead of
being dropped with it.
"""
import difflib
import hashlib
import os
import re
import subprocess

import psycopg
import pytest
from psycopg.types.json import Jsonb

from conftest import BINDIR, Cluster

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The released scripts as shipped: 0.1 (the files of sql/install/ at
# 91d9cd0 in name order), the update to 0.2 and 0.2 (assembled at 0db72cd).
# A released script is never edited: an update script changes what has to
# change.
RELEASED_MD5 = {
    "pgbench_lab--0.1.sql": "97b9de7e2c0854583d884cef1cd7a1ac",
    "pgbench_lab--0.1--0.2.sql": "cd1dfcdff888d360d7d54ec52ce49865",
    "pgbench_lab--0.2.sql": "81e628b487aab397b27cca96c1ef24cd",
}
RELEASES = ("0.1", "0.2")
# The tables holding what users recorded, with the sequences behind their
# ids: those 0.1 had, and those 0.2 added.
RESULT_TABLES = {
    "0.1": ("runs", "run_progress", "run_latency", "experiments", "experiment_runs",
            "cache_snapshots", "cache_snapshot_relations", "storage_tests"),
}
RESULT_TABLES["0.2"] = RESULT_TABLES["0.1"] + ("run_telemetry", "run_targets", "scripts", "run_scripts",
                                               "run_commands", "run_samples")
SEQUENCES = ("runs_run_id_seq", "cache_snapshot_id_seq", "storage_tests_id_seq")


def pg_config(option):
    return subprocess.run([os.path.join(BINDIR, "pg_config"), option], check=True,
                          capture_output=True, text=True).stdout.strip()


def current_version():
    with open(os.path.join(ROOT, "pgbench_lab.control")) as f:
        return re.search(r"default_version\s*=\s*'([^']+)'", f.read()).group(1)


def call(c, sql, params=None, dbname="updated"):
    """CALL a procedure; return its result row as a dict."""
    with c.connect(dbname=dbname) as conn:
        cur = conn.execute(sql, params)
        return dict(zip([d.name for d in cur.description], cur.fetchone()))


def results(c, dbname, old):
    """Per result table: its row count and a digest of its rows; per
    sequence: its last value.  A row is digested as JSON without its null
    fields, so that the columns an update adds (null in the rows it keeps)
    change nothing, while any value kept, lost or gained does."""
    out = {}
    for t in RESULT_TABLES[old]:
        row = "jsonb_strip_nulls(to_jsonb(t))::text"
        out[t] = c.sql(f"SELECT count(*), md5(coalesce(string_agg({row}, '|' ORDER BY {row}), '')) "
                       f"FROM pgbench_lab.{t} t", dbname=dbname)[0]
    for s in SEQUENCES:
        out[s] = c.scalar(f"SELECT last_value FROM pgbench_lab.{s}", dbname=dbname)
    return out


def record_under_01(c):
    """Results recorded under 0.1, through 0.1's functions."""
    old = {
        "runs": [call(c, "CALL pgbench_lab.run('select-only', clients => 2, transactions => 200, "
                         "label => 'before the update')")["run_id"],
                 call(c, "CALL pgbench_lab.run('tpcb-like', transactions => 50)")["run_id"]],
        "snapshot": c.scalar("SELECT pgbench_lab.cache_snapshot('before the update')", dbname="updated"),
    }
    # 0.1's start() (ten arguments, via and target last) with today's
    # library, which reads arguments past them only where they exist
    started = c.scalar("SELECT pgbench_lab.start('select-only', 1, NULL, 20::bigint, 'positional', "
                       "'{}', 1, NULL::bigint, 'spi', NULL)", dbname="updated")
    assert call(c, "CALL pgbench_lab.wait(%s)", (started,))["status"] == "done"
    old["runs"].append(started)
    # a sweep as 0.1 recorded it, through its recording functions (0.1's
    # sweep() itself needs 0.1's library: with today's it says to update)
    old["sweep"] = c.scalar(
        "SELECT pgbench_lab.experiment_begin('sweep', 'select-only', NULL, "
        "'{\"clients\": [1, 2], \"duration\": \"00:00:01\", \"settings\": {}}')", dbname="updated")
    for variant, clients in ((1, 1), (2, 2)):
        rid = call(c, f"CALL pgbench_lab.run('select-only', clients => {clients}, duration => '1 s')")["run_id"]
        c.sql("SELECT pgbench_lab.experiment_add(%s, %s, %s, 1)", (old["sweep"], rid, variant),
              dbname="updated")
    c.sql("SELECT pgbench_lab.experiment_end(%s)", (old["sweep"],), dbname="updated")
    with pytest.raises(psycopg.errors.FeatureNotSupported) as e:
        call(c, "CALL pgbench_lab.sweep('select-only', '{1}', '1 s')")
    assert "ALTER EXTENSION pgbench_lab UPDATE" in (e.value.diag.message_hint or "")
    return old


def record_under_02(c):
    """Results recorded under 0.2, through 0.2's declarations with today's
    library: built-in runs, a saved script's run with a sample, a libpq
    run (its target row), a sweep."""
    c.sql("INSERT INTO pgbench_lab.scripts (name, body) VALUES ('one', 'SELECT 1')", dbname="updated")
    old = {
        "runs": [call(c, "CALL pgbench_lab.run('select-only', clients => 2, transactions => 200, "
                         "label => 'before the update')")["run_id"],
                 call(c, "CALL pgbench_lab.run(scripts => '{one}', transactions => 20, "
                         "sample_rate => 1)")["run_id"],
                 call(c, "CALL pgbench_lab.run('select-only', transactions => 20, via => 'libpq')")["run_id"]],
        "snapshot": c.scalar("SELECT pgbench_lab.cache_snapshot('before the update')", dbname="updated"),
    }
    old["sweep"] = call(c, "CALL pgbench_lab.sweep('select-only', '{1,2}', '1 s')")["experiment_id"]
    return old


@pytest.fixture(scope="module", params=RELEASES)
def lab(request):
    old = request.param
    c = Cluster("upgrade" + old.replace(".", ""), {"shared_buffers": "32MB"})
    try:
        c.start()
        c.sql("CREATE DATABASE updated")
        c.sql("CREATE DATABASE fresh")
        c.sql(f"CREATE EXTENSION pgbench_lab VERSION '{old}' CASCADE", dbname="updated")
        c.sql("CREATE EXTENSION pgbench_lab CASCADE", dbname="fresh")
        c.sql("SELECT * FROM pgbench_lab.init(scale => 1)", dbname="updated")
        c.version = old
        c.old = record_under_01(c) if old == "0.1" else record_under_02(c)
        c.before = results(c, "updated", old)
        c.sql("ALTER EXTENSION pgbench_lab UPDATE", dbname="updated")
        yield c
    finally:
        c.destroy()


# -- the old script with today's library ------------------------------------

@pytest.mark.parametrize("name", sorted(RELEASED_MD5))
def test_released_script_is_as_shipped(name):
    with open(os.path.join(ROOT, "sql", name), "rb") as f:
        assert hashlib.md5(f.read()).hexdigest() == RELEASED_MD5[name], \
            f"sql/{name} was edited; released scripts stay as shipped"


@pytest.mark.parametrize("old", RELEASES)
def test_old_script_symbols_exist(old):
    """Every C function of a released script names a symbol that the
    current library exports: it can still be installed (and then updated)."""
    with open(os.path.join(pg_config("--sharedir"), "extension", f"pgbench_lab--{old}.sql")) as f:
        script = f.read()
    symbols = re.findall(r"'MODULE_PATHNAME'\s*,\s*'(\w+)'", script)
    assert symbols and len(symbols) == script.count("MODULE_PATHNAME")
    nm = subprocess.run(["nm", "-D", "--defined-only",
                         os.path.join(pg_config("--pkglibdir"), "pgbench_lab.so")],
                        check=True, capture_output=True, text=True).stdout
    exported = {line.split()[-1] for line in nm.splitlines() if line.strip()}
    missing = sorted(set(symbols) - exported)
    assert not missing, f"{old} calls C functions the library lacks: {', '.join(missing)}"


def test_versions(lab):
    for db in ("updated", "fresh"):
        assert lab.scalar("SELECT extversion FROM pg_extension WHERE extname = 'pgbench_lab'",
                          dbname=db) == current_version()


# -- the catalog --------------------------------------------------------------

# Each query yields (object, property, value) rows; an object is named the
# way pg_identify_object names it, so the two databases' OIDs never matter.
# $members: every member of the extension; $schemas: its schemas.
CATALOG = {
    "members": """
        SELECT i.type || ' ' || i.identity, 'member', 'yes'
          FROM pg_depend d, pg_identify_object(d.classid, d.objid, 0) i
         WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = $ext AND d.deptype = 'e'
        UNION ALL
        -- anything in the extension's schemas that is not a member
        SELECT i.type || ' ' || i.identity, 'member', 'no'
          FROM (SELECT 'pg_class'::regclass, oid FROM pg_class WHERE relnamespace = ANY ($schemas)
                UNION ALL SELECT 'pg_proc'::regclass, oid FROM pg_proc WHERE pronamespace = ANY ($schemas)
                UNION ALL SELECT 'pg_type'::regclass, oid FROM pg_type WHERE typnamespace = ANY ($schemas)
               ) o(classid, objid), pg_identify_object(o.classid, o.objid, 0) i
         WHERE NOT EXISTS (SELECT FROM pg_depend d
                            WHERE d.classid = o.classid AND d.objid = o.objid
                              AND d.refobjid = $ext AND d.deptype = 'e')
           AND NOT (o.classid = 'pg_class'::regclass AND
                    (SELECT relkind FROM pg_class WHERE oid = o.objid) IN ('i', 't'))
           AND NOT (o.classid = 'pg_type'::regclass AND EXISTS
                    (SELECT FROM pg_type t JOIN pg_class r ON r.oid = t.typrelid
                      WHERE t.oid = o.objid AND r.relkind IN ('i', 't')))""",
    "extension": """
        SELECT 'extension pgbench_lab', k, v FROM pg_extension e, LATERAL (VALUES
            ('owner', pg_get_userbyid(e.extowner)::text),
            ('schema', e.extnamespace::regnamespace::text),
            ('relocatable', e.extrelocatable::text),
            ('extconfig', (SELECT string_agg(c::regclass::text || ' WHERE ' || coalesce(w, ''), ', '
                                             ORDER BY c::regclass::text)
                             FROM unnest(e.extconfig, e.extcondition) u(c, w)))) p(k, v)
         WHERE e.oid = $ext""",
    "schemas": """
        SELECT 'schema ' || n.nspname, k, v FROM pg_namespace n, LATERAL (VALUES
            ('owner', pg_get_userbyid(n.nspowner)::text),
            ('acl', (SELECT string_agg(a::text, ' ' ORDER BY a::text) FROM unnest(n.nspacl) a)),
            ('comment', obj_description(n.oid, 'pg_namespace'))) p(k, v)
         WHERE n.oid = ANY ($schemas)""",
    "routines": """
        SELECT i.type || ' ' || i.identity, k, v
          FROM pg_proc p, pg_identify_object('pg_proc'::regclass, p.oid, 0) i, LATERAL (VALUES
            ('arguments', pg_get_function_arguments(p.oid)),
            ('result', pg_get_function_result(p.oid)),
            ('kind', p.prokind::text),
            ('language', (SELECT lanname FROM pg_language WHERE oid = p.prolang)),
            ('volatility', p.provolatile::text),
            ('strict', p.proisstrict::text),
            ('parallel', p.proparallel::text),
            ('security definer', p.prosecdef::text),
            ('leakproof', p.proleakproof::text),
            ('cost, rows', p.procost || ', ' || p.prorows),
            ('config', p.proconfig::text),
            ('owner', pg_get_userbyid(p.proowner)::text),
            ('acl', (SELECT string_agg(a::text, ' ' ORDER BY a::text) FROM unnest(p.proacl) a)),
            ('library', p.probin),
            ('source md5', md5(coalesce(p.prosrc, '') || coalesce(pg_get_function_sqlbody(p.oid), ''))),
            ('definition', pg_get_functiondef(p.oid)),
            ('comment', obj_description(p.oid, 'pg_proc'))) x(k, v)
         WHERE p.pronamespace = ANY ($schemas)""",
    "relations": """
        SELECT CASE c.relkind WHEN 'r' THEN 'table ' WHEN 'v' THEN 'view ' WHEN 'S' THEN 'sequence '
                              ELSE 'relation ' END || c.oid::regclass::text, k, v
          FROM pg_class c, LATERAL (VALUES
            ('kind', c.relkind::text),
            ('persistence', c.relpersistence::text),
            ('row security', c.relrowsecurity::text),
            ('forced row security', c.relforcerowsecurity::text),
            ('options', c.reloptions::text),
            ('owner', pg_get_userbyid(c.relowner)::text),
            ('acl', (SELECT string_agg(a::text, ' ' ORDER BY a::text) FROM unnest(c.relacl) a)),
            ('comment', obj_description(c.oid, 'pg_class')),
            ('view definition', CASE c.relkind WHEN 'v' THEN pg_get_viewdef(c.oid) END),
            ('columns', (SELECT string_agg(a.attname, ', ' ORDER BY a.attnum) FROM pg_attribute a
                          WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped))) x(k, v)
         WHERE c.relnamespace = ANY ($schemas) AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f', 'c')""",
    "columns": """
        SELECT 'column ' || c.oid::regclass::text || '.' || a.attname, k, v
          FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid, LATERAL (VALUES
            ('position', (SELECT count(*) FROM pg_attribute b WHERE b.attrelid = c.oid
                            AND b.attnum BETWEEN 1 AND a.attnum AND NOT b.attisdropped)::text),
            ('type', format_type(a.atttypid, a.atttypmod)),
            ('collation', CASE WHEN a.attcollation <> 0 THEN a.attcollation::regcollation::text END),
            ('not null', a.attnotnull::text),
            ('default', pg_get_expr((SELECT adbin FROM pg_attrdef
                                      WHERE adrelid = c.oid AND adnum = a.attnum), c.oid)),
            ('identity, generated', a.attidentity::text || '/' || a.attgenerated::text),
            ('acl', (SELECT string_agg(x::text, ' ' ORDER BY x::text) FROM unnest(a.attacl) x)),
            ('comment', col_description(c.oid, a.attnum))) x(k, v)
         WHERE c.relnamespace = ANY ($schemas) AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'c')
           AND a.attnum > 0 AND NOT a.attisdropped""",
    "constraints": """
        SELECT 'constraint ' || n.conname || ' on ' || n.conrelid::regclass::text, 'definition',
               pg_get_constraintdef(n.oid)
          FROM pg_constraint n JOIN pg_class c ON c.oid = n.conrelid
         WHERE c.relnamespace = ANY ($schemas)""",
    "indexes": """
        SELECT 'index ' || i.indexrelid::regclass::text, 'definition', pg_get_indexdef(i.indexrelid)
          FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
         WHERE c.relnamespace = ANY ($schemas)""",
    "triggers": """
        SELECT 'trigger ' || t.tgname || ' on ' || t.tgrelid::regclass::text, 'definition',
               pg_get_triggerdef(t.oid)
          FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
         WHERE c.relnamespace = ANY ($schemas) AND NOT t.tgisinternal""",
    "policies": """
        SELECT 'policy ' || p.polname || ' on ' || p.polrelid::regclass::text, k, v
          FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid, LATERAL (VALUES
            ('command', p.polcmd::text),
            ('permissive', p.polpermissive::text),
            ('roles', (SELECT string_agg(CASE r WHEN 0 THEN 'public' ELSE pg_get_userbyid(r) END, ', '
                                         ORDER BY 1) FROM unnest(p.polroles) r)),
            ('using', pg_get_expr(p.polqual, p.polrelid)),
            ('with check', pg_get_expr(p.polwithcheck, p.polrelid))) x(k, v)
         WHERE c.relnamespace = ANY ($schemas)""",
    "sequences": """
        SELECT 'sequence ' || s.seqrelid::regclass::text, k, v
          FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid, LATERAL (VALUES
            ('parameters', format('%s start %s increment %s min %s max %s cache %s cycle %s',
                                  s.seqtypid::regtype, s.seqstart, s.seqincrement, s.seqmin,
                                  s.seqmax, s.seqcache, s.seqcycle)),
            ('owned by', (SELECT string_agg(pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid), ', ')
                            FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                             AND d.objid = s.seqrelid AND d.deptype IN ('a', 'i')))) x(k, v)
         WHERE c.relnamespace = ANY ($schemas)""",
    "initial privileges": """
        SELECT i.type || ' ' || i.identity, 'initial privileges'
               || CASE WHEN p.objsubid <> 0 THEN ' of column ' || p.objsubid ELSE '' END,
               p.privtype::text || ': ' || (SELECT string_agg(a::text, ' ' ORDER BY a::text) FROM unnest(p.initprivs) a)
          FROM pg_init_privs p, pg_identify_object(p.classoid, p.objoid, 0) i
         WHERE EXISTS (SELECT FROM pg_depend d WHERE d.classid = p.classoid AND d.objid = p.objoid
                          AND d.refobjid = $ext AND d.deptype = 'e')""",
}


def describe(c, dbname):
    """{object: {property: value}} for the extension's part of the catalog."""
    with c.connect(dbname=dbname) as conn:
        conn.execute("SET search_path = pg_catalog")	# names qualified alike in both
        ext = conn.execute("SELECT oid FROM pg_extension WHERE extname = 'pgbench_lab'").fetchone()[0]
        schemas = [r[0] for r in conn.execute(
            "SELECT objid FROM pg_depend WHERE refobjid = %s AND deptype = 'e' "
            "AND classid = 'pg_namespace'::regclass", (ext,))]
        out = {}
        for part, query in CATALOG.items():
            query = query.replace("$ext", f"{int(ext)}::oid").replace(
                "$schemas", "ARRAY[" + ",".join(f"{int(s)}::oid" for s in schemas) + "]::oid[]")
            for obj, prop, value in conn.execute(query):
                props = out.setdefault(obj, {})
                assert prop not in props, f"{obj}: {prop} described twice ({part})"
                props[prop] = value
        return out


def differences(a, b, names=("updated", "fresh")):
    """Readable differences between two descriptions."""
    out = []
    for obj in sorted(set(a) | set(b)):
        if obj not in b:
            out.append(f"{obj}: only in {names[0]}")
            continue
        if obj not in a:
            out.append(f"{obj}: only in {names[1]}")
            continue
        for prop in sorted(set(a[obj]) | set(b[obj])):
            va, vb = a[obj].get(prop), b[obj].get(prop)
            if va == vb:
                continue
            if isinstance(va, str) and isinstance(vb, str) and "\n" in va + vb:
                diff = difflib.unified_diff(va.splitlines(), vb.splitlines(), names[0], names[1], lineterm="", n=1)
                out.append(f"{obj}: {prop}:\n    " + "\n    ".join(list(diff)[:40]))
            else:
                out.append(f"{obj}: {prop}: {names[0]} {va!r}, {names[1]} {vb!r}")
    return out


def test_catalog_is_a_fresh_install(lab):
    updated, fresh = describe(lab, "updated"), describe(lab, "fresh")
    # the description sees what there is to see
    assert any(o.startswith("function pgbench_lab.report(") for o in fresh)
    assert any(o.startswith("policy runs_read on ") for o in fresh)
    assert any(o.startswith("view pgbench_lab.") for o in fresh)
    assert "extension pgbench_lab" in fresh
    diffs = differences(updated, fresh)
    assert not diffs, (f"{len(diffs)} differences between the update from {lab.version} and a fresh install:\n"
                       + "\n".join(diffs[:100]))


# -- the results ----------------------------------------------------------------

def test_results_kept(lab):
    after = results(lab, "updated", lab.version)
    assert after == lab.before
    assert lab.before["runs"][0] >= 4		# the runs and the sweep's two
    recorded = ["run_progress", "run_latency", "experiments", "experiment_runs",
                "cache_snapshots", "cache_snapshot_relations"]
    if lab.version == "0.2":
        recorded += ["run_telemetry", "run_targets", "scripts", "run_scripts", "run_commands",
                     "run_samples"]
    for t in recorded:
        assert lab.before[t][0] > 0, f"nothing was recorded in {t} under {lab.version}"


def test_old_results_read_through_new_functions(lab):
    for run_id in lab.old["runs"]:
        lines = [r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (run_id,), dbname="updated")]
        assert len(lines) > 3 and any(str(run_id) in line for line in lines), lines
    report = "\n".join(r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)",
                                             (lab.old["sweep"],), dbname="updated"))
    assert "sweep" in report
    doc = lab.scalar("SELECT pgbench_lab.export(ARRAY[%s, %s]::bigint[])",
                     (lab.old["runs"][0], lab.old["sweep"]), dbname="updated")
    assert lab.old["runs"][0] in {r["run_id"] for r in doc["runs"]}
    # what the old version recorded is a valid document for a fresh install of today's version
    kinds = [r[0] for r in lab.sql("SELECT kind FROM pgbench_lab.import(%s)", (Jsonb(doc),), dbname="fresh")]
    assert "run" in kinds and "experiment" in kinds, kinds
    snap = lab.sql("SELECT count(*) FROM pgbench_lab.cache_snapshot_relations WHERE snapshot_id = %s",
                   (lab.old["snapshot"],), dbname="updated")[0][0]
    assert snap > 0


def test_new_run_after_update(lab):
    new = call(lab, "CALL pgbench_lab.run('select-only', transactions => 100, label => 'after the update')")
    assert new["status"] == "done" and new["transactions_done"] == 100, new
    # arguments 0.1 did not have, on the updated declarations; the old runs
    # had no rate
    paced = call(lab, "CALL pgbench_lab.run('select-only', transactions => 50, rate => 500, "
                      "latency_limit => '1 s')")
    # recorded on the updated table; whether 500 tps was kept is the machine's
    assert lab.sql("SELECT rate, late IS NOT NULL, rate_sustained IS NOT NULL FROM pgbench_lab.runs "
                   "WHERE run_id = %s", (paced["run_id"],), dbname="updated") == [(500.0, True, True)]
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs WHERE run_id = ANY (%s) AND rate IS NULL "
                      "AND latency_limit IS NULL AND scheduled IS NULL", (lab.old["runs"],),
                      dbname="updated") == len(lab.old["runs"])
    assert new["run_id"] > lab.before["runs_run_id_seq"]
    assert new["run_id"] > max(lab.old["runs"])
    snap = lab.scalar("SELECT pgbench_lab.cache_snapshot('after the update')", dbname="updated")
    assert snap > lab.old["snapshot"]


def test_comparison_sees_differences(lab):
    if lab.version != RELEASES[0]:
        pytest.skip("the description is checked once")
    """The description is not blind: small changes to a fresh install, one
    per kind of object, each show up as a difference."""
    lab.sql("CREATE DATABASE changed")
    lab.sql("CREATE EXTENSION pgbench_lab CASCADE", dbname="changed")
    changes = {
        "function pgbench_lab_internal.fmt(double precision,integer): volatility":
            "ALTER FUNCTION pgbench_lab_internal.fmt(float8, int) STABLE",
        "function pgbench_lab.report(bigint): acl":
            "GRANT EXECUTE ON FUNCTION pgbench_lab.report(bigint) TO pg_signal_backend",
        "function pgbench_lab.report(bigint): comment":
            "COMMENT ON FUNCTION pgbench_lab.report(bigint) IS 'changed'",
        "column pgbench_lab.runs.label: default":
            "ALTER TABLE pgbench_lab.runs ALTER COLUMN label SET DEFAULT 'x'",
        "column pgbench_lab.runs.note: only in changed":
            "ALTER TABLE pgbench_lab.runs ADD COLUMN note text",
        "table pgbench_lab.runs: forced row security":
            "ALTER TABLE pgbench_lab.runs FORCE ROW LEVEL SECURITY",
        "policy runs_read on pgbench_lab.runs: roles":
            "ALTER POLICY runs_read ON pgbench_lab.runs TO pg_monitor",
        "constraint extra on pgbench_lab.runs: only in changed":
            "ALTER TABLE pgbench_lab.runs ADD CONSTRAINT extra CHECK (clients > 0)",
        "schema pgbench_lab: acl": "REVOKE USAGE ON SCHEMA pgbench_lab FROM PUBLIC",
        "function pgbench_lab.stray(): only in changed":
            "SET search_path = pgbench_lab; CREATE FUNCTION pgbench_lab.stray() RETURNS int LANGUAGE sql RETURN 1",
        "table pgbench_lab.storage_tests: member":
            "ALTER EXTENSION pgbench_lab DROP TABLE pgbench_lab.storage_tests",
        "extension pgbench_lab: extconfig": None,	# the same change
    }
    with lab.connect(dbname="changed") as conn:
        for sql in filter(None, changes.values()):
            conn.execute(sql)
    found = differences(describe(lab, "changed"), describe(lab, "fresh"), ("changed", "fresh"))
    for what in changes:
        obj, prop = what.split(": ", 1)
        assert any(d.startswith(obj + ": ") and prop in d for d in found), \
            f"{what} not seen; differences:\n" + "\n".join(found)


def test_update_refuses_to_drop_user_objects(lab):
    """The update drops the old version's functions without CASCADE: a
    user's view on one of them stops it, names the view, and leaves the old
    version as it was."""
    OLD = lab.version
    lab.sql("CREATE DATABASE keeps")
    lab.sql(f"CREATE EXTENSION pgbench_lab VERSION '{OLD}' CASCADE", dbname="keeps")
    lab.sql("CREATE VIEW public.my_budget AS SELECT * FROM pgbench_lab.memory_budget()", dbname="keeps")
    with pytest.raises(psycopg.errors.DependentObjectsStillExist) as e:
        lab.sql("ALTER EXTENSION pgbench_lab UPDATE", dbname="keeps")
    assert "my_budget" in (e.value.diag.message_detail or ""), e.value.diag.message_detail
    assert lab.scalar("SELECT extversion FROM pg_extension WHERE extname = 'pgbench_lab'", dbname="keeps") == OLD
    assert lab.scalar("SELECT count(*) > 0 FROM public.my_budget", dbname="keeps")
