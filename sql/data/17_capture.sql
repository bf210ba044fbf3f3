
-- ---------------------------------------------------------------------------
-- capture
-- ---------------------------------------------------------------------------

-- A capture of the application's workload from pg_stat_statements: what
-- was read (captures), each statement with its figures at capture time
-- and the script it became or why it was skipped (capture_statements),
-- how each parameter is drawn (capture_params), and the values sampled
-- from the columns the parameters meet, which the scripts look up
-- (capture_values).  Each role sees and changes its own captures only:
-- the sampled values are the application's data.
CREATE TABLE pgbench_lab.captures (
    capture_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    captured_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    database name NOT NULL,
    source text,
    owner name NOT NULL DEFAULT CURRENT_USER,
    prefix text NOT NULL,
    settings jsonb NOT NULL,
    statements integer,
    share_of_time double precision,
    notes text[],
    source_server text,
    source_capture_id bigint
);
COMMENT ON TABLE pgbench_lab.captures IS
    'Captures of the application''s workload from pg_stat_statements (capture()): when, which database and server (source: NULL, this one), by whom, the settings read, the scripts'' prefix; an imported one names the server it was exported from and its id there (source_server, source_capture_id)';
CREATE TABLE pgbench_lab.capture_statements (
    capture_id bigint NOT NULL REFERENCES pgbench_lab.captures ON DELETE CASCADE,
    statement integer NOT NULL,
    queryid bigint,
    query text NOT NULL,
    command text,
    calls bigint NOT NULL,
    total_exec_time double precision NOT NULL,
    rows bigint NOT NULL,
    shared_blks_hit bigint NOT NULL,
    shared_blks_read bigint NOT NULL,
    script text,
    weight integer,
    skipped text,
    PRIMARY KEY (capture_id, statement)
);
COMMENT ON TABLE pgbench_lab.capture_statements IS
    'Each statement a capture read, with pg_stat_statements'' figures at capture time (summed over roles), the script it became and its weight (its share of calls), or why it was skipped';
CREATE TABLE pgbench_lab.capture_params (
    capture_id bigint NOT NULL,
    statement integer NOT NULL,
    param integer NOT NULL,
    type text,
    relation text,
    attname name,
    kind text,
    draw text NOT NULL,
    guess boolean NOT NULL,
    about text,
    PRIMARY KEY (capture_id, statement, param),
    FOREIGN KEY (capture_id, statement) REFERENCES pgbench_lab.capture_statements ON DELETE CASCADE
);
COMMENT ON TABLE pgbench_lab.capture_params IS
    'Each parameter of a captured statement: its type, the column it meets (relation, attname) and how (kind, by parse analysis), how the script draws it, and whether that draw is a guess';
CREATE TABLE pgbench_lab.capture_values (
    capture_id bigint NOT NULL,
    statement integer NOT NULL,
    i integer NOT NULL,
    vals text[] NOT NULL,
    PRIMARY KEY (capture_id, statement, i),
    FOREIGN KEY (capture_id, statement) REFERENCES pgbench_lab.capture_statements ON DELETE CASCADE
);
COMMENT ON TABLE pgbench_lab.capture_values IS
    'Values sampled from the columns a captured statement''s parameters meet: row i holds one value per sampled parameter (vals[n] for $n), looked up by the statement''s script at a random i';
CREATE TABLE pgbench_lab.capture_groups (
    capture_id bigint NOT NULL REFERENCES pgbench_lab.captures ON DELETE CASCADE,
    grp integer NOT NULL,
    statements integer[] NOT NULL,
    script text NOT NULL,
    calls bigint NOT NULL,
    weight integer,
    PRIMARY KEY (capture_id, grp)
);
COMMENT ON TABLE pgbench_lab.capture_groups IS
    'Statements of a capture replayed together in one transaction (capture_group()): in that order, with the parameters that meet the same key drawn once; the script, the transactions it stands for (calls) and its weight';
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.captures', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.capture_statements', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.capture_params', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.capture_values', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.capture_groups', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.captures_capture_id_seq', '');
ALTER TABLE pgbench_lab.captures ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgbench_lab.capture_statements ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgbench_lab.capture_params ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgbench_lab.capture_values ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgbench_lab.capture_groups ENABLE ROW LEVEL SECURITY;
CREATE POLICY captures_own ON pgbench_lab.captures
    USING (owner OPERATOR(pg_catalog.=) CURRENT_USER)
    WITH CHECK (owner OPERATOR(pg_catalog.=) CURRENT_USER);
CREATE POLICY capture_statements_own ON pgbench_lab.capture_statements
    USING (EXISTS (SELECT FROM pgbench_lab.captures c
                   WHERE c.capture_id OPERATOR(pg_catalog.=) capture_statements.capture_id));
CREATE POLICY capture_params_own ON pgbench_lab.capture_params
    USING (EXISTS (SELECT FROM pgbench_lab.captures c
                   WHERE c.capture_id OPERATOR(pg_catalog.=) capture_params.capture_id));
CREATE POLICY capture_values_own ON pgbench_lab.capture_values
    USING (EXISTS (SELECT FROM pgbench_lab.captures c
                   WHERE c.capture_id OPERATOR(pg_catalog.=) capture_values.capture_id));
CREATE POLICY capture_groups_own ON pgbench_lab.capture_groups
    USING (EXISTS (SELECT FROM pgbench_lab.captures c
                   WHERE c.capture_id OPERATOR(pg_catalog.=) capture_groups.capture_id));
-- Each role reads, writes and deletes its own captures only (the policies);
-- capture() itself is granted (revoked from PUBLIC).
GRANT SELECT, INSERT, UPDATE, DELETE ON pgbench_lab.captures, pgbench_lab.capture_statements,
    pgbench_lab.capture_params, pgbench_lab.capture_values, pgbench_lab.capture_groups TO PUBLIC;
