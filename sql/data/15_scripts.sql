
-- ---------------------------------------------------------------------------
-- scripts
-- ---------------------------------------------------------------------------

-- pgbench scripts: those saved by name, and what each run of scripts ran
-- and measured, per script and per command (as pgbench -r reports them).
-- A role's names are its own: two roles may save the same name, and a name
-- in scripts => is the calling role's script; another role's is named as
-- 'owner/name' (so a name has no '/', and no '@', which starts a weight).
CREATE TABLE pgbench_lab.scripts (
    name text NOT NULL,
    body text NOT NULL,
    created_by name NOT NULL DEFAULT CURRENT_USER,
    created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (created_by, name),
    CONSTRAINT scripts_name_check
        CHECK (name OPERATOR(pg_catalog.<>) ALL (ARRAY['', 'tpcb-like', 'simple-update', 'select-only', 'script'])
               AND pg_catalog.strpos(name, '@') OPERATOR(pg_catalog.=) 0
               AND pg_catalog.strpos(name, '/') OPERATOR(pg_catalog.=) 0)
);
COMMENT ON TABLE pgbench_lab.scripts IS
    'pgbench script files saved by name, per role, for scripts => ''{name@weight, owner/name@weight, ...}''; each role changes only its own';
CREATE TABLE pgbench_lab.run_scripts (
    run_id bigint NOT NULL REFERENCES pgbench_lab.runs ON DELETE CASCADE,
    script integer NOT NULL,
    name text NOT NULL,
    weight integer NOT NULL,
    body text NOT NULL,
    owner name,
    transactions bigint,
    latency_avg_ms double precision,
    failures bigint,
    retries bigint,
    serialization_failures bigint,
    deadlock_failures bigint,
    PRIMARY KEY (run_id, script)
);
COMMENT ON TABLE pgbench_lab.run_scripts IS
    'The scripts a run ran, with their weights, text as run and the role that saved it (NULL: a built-in or script =>), and per script its transactions, latency, failures and retries';
CREATE TABLE pgbench_lab.run_commands (
    run_id bigint NOT NULL,
    script integer NOT NULL,
    command integer NOT NULL,
    line integer NOT NULL,
    kind text NOT NULL,
    command_text text NOT NULL,
    executions bigint,
    latency_avg_ms double precision,
    failures bigint,
    retries bigint,
    serialization_failures bigint,
    deadlock_failures bigint,
    PRIMARY KEY (run_id, script, command),
    FOREIGN KEY (run_id, script) REFERENCES pgbench_lab.run_scripts ON DELETE CASCADE
);
COMMENT ON TABLE pgbench_lab.run_commands IS
    'Per command of a run''s scripts, numbered as pgbench numbers them: executions, average latency, failures and retries (pgbench -r)';
COMMENT ON COLUMN pgbench_lab.run_scripts.serialization_failures IS
    'The script''s transactions that failed for good on a serialization failure (40001); deadlock_failures: on a deadlock (40P01); NULL: a run from before 0.3';
COMMENT ON COLUMN pgbench_lab.run_commands.serialization_failures IS
    'Transactions that failed for good at this command on a serialization failure (40001); deadlock_failures: on a deadlock (40P01); NULL: a run from before 0.3';
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.scripts', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.run_scripts', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.run_commands', '');
ALTER TABLE pgbench_lab.scripts ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgbench_lab.run_scripts ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgbench_lab.run_commands ENABLE ROW LEVEL SECURITY;
CREATE POLICY scripts_read ON pgbench_lab.scripts FOR SELECT USING (true);
CREATE POLICY scripts_insert ON pgbench_lab.scripts FOR INSERT
    WITH CHECK (created_by OPERATOR(pg_catalog.=) CURRENT_USER);
CREATE POLICY scripts_update ON pgbench_lab.scripts FOR UPDATE
    USING (created_by OPERATOR(pg_catalog.=) CURRENT_USER)
    WITH CHECK (created_by OPERATOR(pg_catalog.=) CURRENT_USER);
CREATE POLICY scripts_delete ON pgbench_lab.scripts FOR DELETE
    USING (created_by OPERATOR(pg_catalog.=) CURRENT_USER);
CREATE POLICY run_scripts_read ON pgbench_lab.run_scripts FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.runs r
                   WHERE r.run_id OPERATOR(pg_catalog.=) run_scripts.run_id));
CREATE POLICY run_commands_read ON pgbench_lab.run_commands FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.runs r
                   WHERE r.run_id OPERATOR(pg_catalog.=) run_commands.run_id));
-- Saving scripts is granted with run() (see the README's privileges).
GRANT SELECT ON pgbench_lab.scripts, pgbench_lab.run_scripts, pgbench_lab.run_commands TO PUBLIC;
