-- pgbench_lab update from 0.1 to 0.2.  The Makefile assembles the update
-- script from this prelude followed by every file of sql/code/ in name
-- order, the same files the 0.2 install script ends with.  So an update
-- keeps what sql/data/ holds (schemas, tables, sequences, row-level
-- security: the results users recorded), brings it to 0.2's shape here,
-- drops every function, procedure and view of 0.1, and creates those of
-- 0.2 exactly as a fresh install does, grants and comments included.
-- test/t/test_upgrade.py checks that an updated database and a fresh 0.2
-- one have the same catalog, object by object.
-- Rules as for the install script: every name schema-qualified, and no
-- CASCADE anywhere: a drop that would reach into user data must fail, not
-- take the data with it.

\echo Use "ALTER EXTENSION pgbench_lab UPDATE TO '0.2'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- 1. What the update keeps (sql/data/): from 0.1's shape to 0.2's.
-- ---------------------------------------------------------------------------
-- Every change made to sql/data/ between 0.1 and 0.2 is repeated here, in
-- the same order, so that the updated objects end up as a fresh install
-- makes them (new schemas such as pgbench_lab_internal, new tables and
-- columns, changed constraints and policies of the experiments tables).

-- >>> data changes 0.1 -> 0.2: add them below this line.

-- What is not the documented API moves to a schema of its own (see
-- sql/data/00_schemas.sql); of the objects an update keeps, that is the
-- function the row-level security policies use.
CREATE SCHEMA pgbench_lab_internal;
COMMENT ON SCHEMA pgbench_lab_internal IS 'pgbench_lab: internal helpers, not an API';
GRANT USAGE ON SCHEMA pgbench_lab_internal TO PUBLIC;
ALTER FUNCTION pgbench_lab.may_read_run(regrole) SET SCHEMA pgbench_lab_internal;

-- Experiments become kinds of one driver: the kinds are rows of a table
-- (filled by sql/code/, each kind's file ends with its row), and the
-- experiments table no longer lists them in a CHECK constraint.
CREATE TABLE pgbench_lab.experiment_kinds (
    kind text PRIMARY KEY,
    procedure regprocedure NOT NULL UNIQUE,
    planner regprocedure NOT NULL,
    preparation regprocedure,
    finding regprocedure,
    report regprocedure NOT NULL,
    description text NOT NULL
);
COMMENT ON TABLE pgbench_lab.experiment_kinds IS
    'The kinds of experiment: the procedure that runs each, and the functions that plan its steps, prepare each, judge and report it';
COMMENT ON COLUMN pgbench_lab.experiment_kinds.planner IS
    'Checks the procedure''s IN arguments (then a jsonb of caller facts) and returns the plan: {workload, label, params, steps: [{variant, round, name, about, prepare, run: {run() arguments}}], stop_on_failure}';
COMMENT ON COLUMN pgbench_lab.experiment_kinds.preparation IS
    'Called with (experiment_id, step) in a transaction of its own before each step''s run; its text is shown as a NOTICE';
COMMENT ON COLUMN pgbench_lab.experiment_kinds.finding IS
    'Called with (experiment_id) after the last run: its columns fill the procedure''s INOUT columns of the same names';
REVOKE ALL ON pgbench_lab.experiment_kinds FROM PUBLIC;
GRANT SELECT ON pgbench_lab.experiment_kinds TO PUBLIC;
ALTER TABLE pgbench_lab.experiments DROP CONSTRAINT experiments_kind_check;
COMMENT ON TABLE pgbench_lab.experiments IS
    'Groups of runs made by one experiment procedure (see experiment_kinds); ids shared with runs';

-- Rate-limited runs and latency limits (pgbench -R and -L): the runs
-- record what was asked and what it gave, the progress rows the lag, late
-- and skipped transactions of each second.
ALTER TABLE pgbench_lab.runs
    ADD COLUMN rate double precision,
    ADD COLUMN latency_limit interval,
    ADD COLUMN lag_avg_ms double precision,
    ADD COLUMN lag_max_ms double precision,
    ADD COLUMN late bigint,
    ADD COLUMN skipped bigint,
    ADD COLUMN scheduled bigint,
    ADD COLUMN rate_sustained boolean;
COMMENT ON COLUMN pgbench_lab.runs.rate IS
    'Transactions per second asked of the whole run, shared by its clients, each on a Poisson schedule (pgbench -R); NULL: as fast as possible';
COMMENT ON COLUMN pgbench_lab.runs.latency_limit IS
    'Latency over which a committed transaction counts as late; with a rate, slots already later than it are skipped (pgbench -L)';
COMMENT ON COLUMN pgbench_lab.runs.lag_avg_ms IS
    'With a rate: average schedule lag of committed transactions (start minus scheduled start); latencies count from the scheduled start';
COMMENT ON COLUMN pgbench_lab.runs.lag_max_ms IS
    'With a rate: largest schedule lag of a committed transaction';
COMMENT ON COLUMN pgbench_lab.runs.late IS
    'With a latency limit: committed transactions whose latency was over it';
COMMENT ON COLUMN pgbench_lab.runs.skipped IS
    'With a rate and a latency limit: scheduled transactions skipped because they were already later than the limit';
COMMENT ON COLUMN pgbench_lab.runs.scheduled IS
    'With a rate: the slots its schedule set before the clients stopped (run, failed, skipped or still due at the end)';
COMMENT ON COLUMN pgbench_lab.runs.rate_sustained IS
    'With a rate: whether the clients ran (committed or failed) at least 98 % of the scheduled transactions';
ALTER TABLE pgbench_lab.run_progress
    ADD COLUMN lag_avg_ms double precision,
    ADD COLUMN lag_max_ms double precision,
    ADD COLUMN late bigint,
    ADD COLUMN skipped bigint;
COMMENT ON COLUMN pgbench_lab.run_progress.lag_avg_ms IS
    'With a rate: average schedule lag of the second''s committed transactions';
COMMENT ON COLUMN pgbench_lab.run_progress.lag_max_ms IS
    'With a rate: largest schedule lag of the second''s committed transactions';
COMMENT ON COLUMN pgbench_lab.run_progress.late IS
    'With a latency limit: the second''s committed transactions over it';
COMMENT ON COLUMN pgbench_lab.run_progress.skipped IS
    'With a rate and a latency limit: the second''s skipped transactions';

-- Runs of pgbench scripts: the variables given, the scripts saved by name,
-- and what each run's scripts and their commands did.
ALTER TABLE pgbench_lab.runs ADD COLUMN variables jsonb;
COMMENT ON COLUMN pgbench_lab.runs.variables IS
    'A run of scripts: the variables given (pgbench -D); its scripts are in run_scripts';
-- pgbench scripts: those saved by name, and what each run of scripts ran
-- and measured, per script and per command (as pgbench -r reports them).
CREATE TABLE pgbench_lab.scripts (
    name text PRIMARY KEY,
    body text NOT NULL,
    created_by name NOT NULL DEFAULT CURRENT_USER,
    created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    CONSTRAINT scripts_name_check
        CHECK (name OPERATOR(pg_catalog.<>) ALL (ARRAY['', 'tpcb-like', 'simple-update', 'select-only', 'script'])
               AND pg_catalog.strpos(name, '@') OPERATOR(pg_catalog.=) 0)
);
COMMENT ON TABLE pgbench_lab.scripts IS
    'pgbench script files saved by name, for scripts => ''{name@weight, ...}''; each role changes only its own';
CREATE TABLE pgbench_lab.run_scripts (
    run_id bigint NOT NULL REFERENCES pgbench_lab.runs ON DELETE CASCADE,
    script integer NOT NULL,
    name text NOT NULL,
    weight integer NOT NULL,
    body text NOT NULL,
    transactions bigint,
    latency_avg_ms double precision,
    failures bigint,
    retries bigint,
    PRIMARY KEY (run_id, script)
);
COMMENT ON TABLE pgbench_lab.run_scripts IS
    'The scripts a run ran, with their weights and text as run, and per script its transactions, latency, failures and retries';
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
    PRIMARY KEY (run_id, script, command),
    FOREIGN KEY (run_id, script) REFERENCES pgbench_lab.run_scripts ON DELETE CASCADE
);
COMMENT ON TABLE pgbench_lab.run_commands IS
    'Per command of a run''s scripts, numbered as pgbench numbers them: executions, average latency, failures and retries (pgbench -r)';
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

-- Per-transaction samples (pgbench --log --sampling-rate).
ALTER TABLE pgbench_lab.runs
    ADD COLUMN sample_rate double precision,
    ADD COLUMN samples bigint,
    ADD COLUMN samples_dropped bigint;
COMMENT ON COLUMN pgbench_lab.runs.sample_rate IS
    'Share of transactions kept in run_samples (pgbench --sampling-rate); NULL: none';
COMMENT ON COLUMN pgbench_lab.runs.samples IS
    'Samples kept in run_samples';
COMMENT ON COLUMN pgbench_lab.runs.samples_dropped IS
    'Samples drawn but not kept: past pgbench_lab.max_samples, or while a client drew them faster than they could be written';
CREATE TABLE pgbench_lab.run_samples (
    run_id bigint NOT NULL REFERENCES pgbench_lab.runs ON DELETE CASCADE,
    client integer NOT NULL,
    sample bigint NOT NULL,
    t_ms double precision NOT NULL,
    latency_ms double precision,
    lag_ms double precision,
    script integer,
    retries integer NOT NULL,
    failed boolean NOT NULL,
    PRIMARY KEY (run_id, client, sample)
);
COMMENT ON TABLE pgbench_lab.run_samples IS
    'Sampled transactions of runs with a sample_rate (pgbench --log --sampling-rate): start (scheduled, with a rate) in ms after the run''s start, latency, lag, script, retries, failed';
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.run_samples', '');
ALTER TABLE pgbench_lab.run_samples ENABLE ROW LEVEL SECURITY;
CREATE POLICY run_samples_read ON pgbench_lab.run_samples FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.runs r
                   WHERE r.run_id OPERATOR(pg_catalog.=) run_samples.run_id));
GRANT SELECT ON pgbench_lab.run_samples TO PUBLIC;

-- Reload-level settings compared by experiments (ALTER SYSTEM) are
-- restored from a record of postgresql.auto.conf (sql/data/25_settings.sql).
-- settings_saved: postgresql.auto.conf as it was before an experiment
-- changed reload-level settings with ALTER SYSTEM, committed before the
-- first change (src/settings_apply.c).  The experiment puts the file back
-- at its end, on an error or a cancel, and when its session is terminated;
-- after a crash or an immediate shutdown, the next call of any experiment
-- or pgbench_lab.restore_settings() does, and sets restored_at.  Not
-- granted to anyone and not dumped: the file may hold passwords, and a
-- record means something only on the server it was taken on.
CREATE TABLE pgbench_lab_internal.settings_saved (
    experiment_id bigint PRIMARY KEY,
    names text[] NOT NULL,
    entries jsonb NOT NULL,
    auto_conf bytea,
    saved_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    backend_pid integer NOT NULL,
    backend_start timestamptz NOT NULL,
    restored_at timestamptz,
    outcome text
);
COMMENT ON TABLE pgbench_lab_internal.settings_saved IS
    'postgresql.auto.conf (byte for byte; NULL: there was none) and its entries for the settings an experiment changes with ALTER SYSTEM, recorded before the first change';
REVOKE ALL ON pgbench_lab_internal.settings_saved FROM PUBLIC;

-- 0.2: per-second telemetry (sql/data/12_telemetry.sql).
CREATE TABLE pgbench_lab.run_telemetry (
    run_id bigint NOT NULL REFERENCES pgbench_lab.runs ON DELETE CASCADE,
    second integer NOT NULL,
    interval_seconds double precision NOT NULL,
    cpu_user_pct double precision,
    cpu_system_pct double precision,
    cpu_iowait_pct double precision,
    cpu_steal_pct double precision,
    cpu_idle_pct double precision,
    run_cpu_seconds double precision,
    checkpoints bigint,
    buffers_checkpoint bigint,
    buffers_clean bigint,
    buffers_backend bigint,
    wal_records bigint,
    wal_fpi bigint,
    wal_bytes numeric,
    wait_samples integer NOT NULL DEFAULT 0,
    waits jsonb,
    temp_files bigint,
    temp_bytes bigint,
    disk_reads bigint,
    disk_read_bytes bigint,
    disk_writes bigint,
    disk_write_bytes bigint,
    disk_busy_pct double precision,
    PRIMARY KEY (run_id, second)
);
COMMENT ON TABLE pgbench_lab.run_telemetry IS
    'Per-second telemetry of each run: the machine''s CPU, the run''s own CPU time, checkpoints, buffers written, WAL and the clients'' sampled wait events';
COMMENT ON COLUMN pgbench_lab.run_telemetry.cpu_user_pct IS
    'Share of the machine''s CPU time in user mode (with nice) during the second (/proc/stat); the five shares sum to 100';
COMMENT ON COLUMN pgbench_lab.run_telemetry.cpu_system_pct IS
    'Share of the machine''s CPU time in the kernel (with interrupts)';
COMMENT ON COLUMN pgbench_lab.run_telemetry.run_cpu_seconds IS
    'CPU seconds (user and system) used by the run''s own processes, its coordinator and clients (/proc/<pid>/stat)';
COMMENT ON COLUMN pgbench_lab.run_telemetry.checkpoints IS
    'Checkpoints the server counted during the second (timed and requested)';
COMMENT ON COLUMN pgbench_lab.run_telemetry.buffers_checkpoint IS
    'Buffers the checkpointer wrote during the second';
COMMENT ON COLUMN pgbench_lab.run_telemetry.buffers_clean IS
    'Buffers the background writer wrote during the second';
COMMENT ON COLUMN pgbench_lab.run_telemetry.buffers_backend IS
    'Buffers other processes (backends, workers) wrote themselves during the second';
COMMENT ON COLUMN pgbench_lab.run_telemetry.wal_bytes IS
    'WAL bytes, records and full-page images the server counted during the second (pg_stat_wal, flushed by each process at most once a second)';
COMMENT ON COLUMN pgbench_lab.run_telemetry.waits IS
    'The clients'' wait events sampled about every 10 ms: counts per "type:event", "CPU" when a client waited on nothing; NULL for runs over libpq';
COMMENT ON COLUMN pgbench_lab.run_telemetry.temp_files IS
    'Temporary files (and their bytes) the run''s database counted during the second (pg_stat_database)';
COMMENT ON COLUMN pgbench_lab.run_telemetry.disk_busy_pct IS
    'Share of the second the data directory''s disk (system_info''s data_device) had I/O in flight, with its reads and writes completed and their bytes (/proc/diskstats); NULL when not found there';

SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.run_telemetry', '');
ALTER TABLE pgbench_lab.run_telemetry ENABLE ROW LEVEL SECURITY;
CREATE POLICY run_telemetry_read ON pgbench_lab.run_telemetry FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.runs r
                   WHERE r.run_id OPERATOR(pg_catalog.=) run_telemetry.run_id));
GRANT SELECT ON pgbench_lab.run_telemetry TO PUBLIC;

-- <<< end of data changes.

-- ---------------------------------------------------------------------------
-- 2. What the update replaces (sql/code/): 0.1's functions, procedures and
--    views, all dropped; sql/code/ then creates 0.2's.
-- ---------------------------------------------------------------------------
-- One statement per object of 0.1, with its full signature (input
-- arguments, named as in 0.1, types qualified with their schema), listed
-- once from the catalog of an installed 0.1 (every member of the extension
-- in pg_proc and every view).  Views go first: active_runs reads run_live()
-- and storage_latest reads storage_class(); no function of 0.1 depends on
-- another.  pgbench_lab.may_read_run(regrole) is not dropped (it moves to pgbench_lab_internal above): it lives in
-- sql/data/ because the row-level security policies use it.
-- A dropped function's privileges and comment go with it; sql/code/ sets
-- them again.  A view or function that a user's object depends on makes
-- the update fail with the dependency named; drop or change that object
-- first.

-- Views.
DROP VIEW pgbench_lab.active_runs;
DROP VIEW pgbench_lab.storage_latest;

-- Functions.
DROP FUNCTION pgbench_lab.autoprewarm_status();
DROP FUNCTION pgbench_lab.cache_snapshot(label pg_catalog.text);
DROP FUNCTION pgbench_lab.cache_status(rel pg_catalog.regclass);
DROP FUNCTION pgbench_lab.cancel(run_id pg_catalog.int8);
DROP FUNCTION pgbench_lab.chart_rows(vals pg_catalog.float8[], top pg_catalog.float8, height pg_catalog.int4);
DROP FUNCTION pgbench_lab.check_experiment(experiment_id pg_catalog.int8, kinds pg_catalog.text[], fn pg_catalog.text);
DROP FUNCTION pgbench_lab.check_flat(ndims pg_catalog.int4, what pg_catalog.text, example pg_catalog.text);
DROP FUNCTION pgbench_lab.check_ids(ids pg_catalog.int8[], experiments_too pg_catalog.bool);
DROP FUNCTION pgbench_lab.clients_text(n pg_catalog.int4);
DROP FUNCTION pgbench_lab.cold_vs_warm_begin(workload pg_catalog.text, clients pg_catalog.int4, duration pg_catalog.interval, relations pg_catalog.regclass[]);
DROP FUNCTION pgbench_lab.cold_vs_warm_finding(experiment_id pg_catalog.int8);
DROP FUNCTION pgbench_lab.cold_vs_warm_label(experiment_id pg_catalog.int8, variant pg_catalog.int4);
DROP FUNCTION pgbench_lab.cold_vs_warm_prepare(relations pg_catalog.regclass[], state pg_catalog.text);
DROP FUNCTION pgbench_lab.cold_vs_warm_relations(relations pg_catalog.regclass[], accounts pg_catalog.regclass);
DROP FUNCTION pgbench_lab.cold_vs_warm_runs(experiment_id pg_catalog.int8);
DROP FUNCTION pgbench_lab.cold_vs_warm_state(variant pg_catalog.int4);
DROP FUNCTION pgbench_lab.compare(run_ids pg_catalog.int8[]);
DROP FUNCTION pgbench_lab.compare_params(workload pg_catalog.text, settings pg_catalog.jsonb[], clients pg_catalog.int4, duration pg_catalog.interval, rounds pg_catalog.int4);
DROP FUNCTION pgbench_lab.doc_check(obj pg_catalog.jsonb, spec pg_catalog.jsonb, path pg_catalog.text);
DROP FUNCTION pgbench_lab.doc_check_each(arr pg_catalog.jsonb, spec pg_catalog.jsonb, path pg_catalog.text, uniq pg_catalog.text[]);
DROP FUNCTION pgbench_lab.doc_check_params(e pg_catalog.jsonb, path pg_catalog.text);
DROP FUNCTION pgbench_lab.doc_fields(row_doc pg_catalog.jsonb, what pg_catalog.text);
DROP FUNCTION pgbench_lab.doc_first_bad(arr pg_catalog.jsonb, spec pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.doc_invalid(problem pg_catalog.text);
DROP FUNCTION pgbench_lab.doc_spec(what pg_catalog.text);
DROP FUNCTION pgbench_lab.doc_validate(doc pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.experiment_add(experiment_id pg_catalog.int8, run_id pg_catalog.int8, variant pg_catalog.int4, round pg_catalog.int4);
DROP FUNCTION pgbench_lab.experiment_add_as(caller pg_catalog.regrole, args pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.experiment_begin(kind pg_catalog.text, workload pg_catalog.text, label pg_catalog.text, params pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.experiment_begin_as(caller pg_catalog.regrole, args pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.experiment_check_settings(workload pg_catalog.text, settings pg_catalog.jsonb[], clients pg_catalog.int4, duration pg_catalog.interval, rounds pg_catalog.int4, label pg_catalog.text);
DROP FUNCTION pgbench_lab.experiment_check_sweep(workload pg_catalog.text, clients pg_catalog.int4[], duration pg_catalog.interval, label pg_catalog.text, settings pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.experiment_end(experiment_id pg_catalog.int8);
DROP FUNCTION pgbench_lab.experiment_end_as(caller pg_catalog.regrole, args pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.experiment_plan_settings(workload pg_catalog.text, settings pg_catalog.jsonb[], clients pg_catalog.int4, duration pg_catalog.interval, rounds pg_catalog.int4, label pg_catalog.text);
DROP FUNCTION pgbench_lab.experiment_plan_sweep(workload pg_catalog.text, clients pg_catalog.int4[], duration pg_catalog.interval, label pg_catalog.text, settings pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.experiment_settings(sets pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.experiment_step(experiment_id pg_catalog.int8, step pg_catalog.int4);
DROP FUNCTION pgbench_lab.experiment_stopped(e pgbench_lab.experiments);
DROP FUNCTION pgbench_lab.export(run_ids pg_catalog.int8[]);
DROP FUNCTION pgbench_lab.export_run(r pgbench_lab.runs);
DROP FUNCTION pgbench_lab.fmt(x pg_catalog.float8, digits pg_catalog.int4);
DROP FUNCTION pgbench_lab.fsync_test(seconds pg_catalog.numeric);
DROP FUNCTION pgbench_lab.hbar(v pg_catalog.float8, top pg_catalog.float8, width pg_catalog.int4);
DROP FUNCTION pgbench_lab.import(doc pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.import_as(caller pg_catalog.regrole, doc pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.init(scale pg_catalog.int4, fillfactor pg_catalog.int4, foreign_keys pg_catalog.bool, unlogged pg_catalog.bool);
DROP FUNCTION pgbench_lab.init_sql(scale pg_catalog.int4, fillfactor pg_catalog.int4, foreign_keys pg_catalog.bool, unlogged pg_catalog.bool);
DROP FUNCTION pgbench_lab.io_test(size pg_catalog.text, seconds pg_catalog.numeric);
DROP FUNCTION pgbench_lab.json_int(v pg_catalog.jsonb, lo pg_catalog.numeric, hi pg_catalog.numeric);
DROP FUNCTION pgbench_lab.json_wrap(arr pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.make_cold(rel pg_catalog.regclass, include_indexes pg_catalog.bool, os_cache pg_catalog.bool);
DROP FUNCTION pgbench_lab.memory_budget(ram pg_catalog.text, max_connections pg_catalog.int4, work_mem pg_catalog.text, shared_buffers pg_catalog.text, maintenance_work_mem pg_catalog.text, effective_cache_size pg_catalog.text, autovacuum_max_workers pg_catalog.int4);
DROP FUNCTION pgbench_lab.os_page_size();
DROP FUNCTION pgbench_lab.pct_change(new pg_catalog.float8, old pg_catalog.float8);
DROP FUNCTION pgbench_lab.plot(ids pg_catalog.int8[], metric pg_catalog.text);
DROP FUNCTION pgbench_lab.plot_runs(ids pg_catalog.int8[], metric pg_catalog.text);
DROP FUNCTION pgbench_lab.plot_sweeps(ids pg_catalog.int8[]);
DROP FUNCTION pgbench_lab.printable(s pg_catalog.text);
DROP FUNCTION pgbench_lab.ratio(a pg_catalog.float8, b pg_catalog.float8);
DROP FUNCTION pgbench_lab.reads_as(s pg_catalog.text, typ pg_catalog.text);
DROP FUNCTION pgbench_lab.recommend(ram pg_catalog.text, cpus pg_catalog.numeric, max_connections pg_catalog.int4, workload pg_catalog.text, storage pg_catalog.text, os pg_catalog.text, data_size pg_catalog.text, os_reserve pg_catalog.text);
DROP FUNCTION pgbench_lab.recommend_sql(ram pg_catalog.text, cpus pg_catalog.numeric, max_connections pg_catalog.int4, workload pg_catalog.text, storage pg_catalog.text, os pg_catalog.text, data_size pg_catalog.text, os_reserve pg_catalog.text);
DROP FUNCTION pgbench_lab.record(action pg_catalog.text, args pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.record_as(caller pg_catalog.regrole, action pg_catalog.text, args pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.report(id pg_catalog.int8);
DROP FUNCTION pgbench_lab.report_cold_vs_warm(experiment_id pg_catalog.int8);
DROP FUNCTION pgbench_lab.report_experiment(experiment_id pg_catalog.int8);
DROP FUNCTION pgbench_lab.report_run(run_id pg_catalog.int8);
DROP FUNCTION pgbench_lab.report_settings(experiment_id pg_catalog.int8);
DROP FUNCTION pgbench_lab.report_sweep(experiment_id pg_catalog.int8);
DROP FUNCTION pgbench_lab.run_charts(run_id pg_catalog.int8);
DROP FUNCTION pgbench_lab.run_live(run_id pg_catalog.int8);
DROP FUNCTION pgbench_lab.run_notes(r pgbench_lab.runs);
DROP FUNCTION pgbench_lab.running_experiment_of(caller pg_catalog.regrole, args pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.seconds_text(d pg_catalog.interval);
DROP FUNCTION pgbench_lab.server_name();
DROP FUNCTION pgbench_lab.settings_finding(experiment_id pg_catalog.int8);
DROP FUNCTION pgbench_lab.settings_ratios(experiment_id pg_catalog.int8);
DROP FUNCTION pgbench_lab.settings_text(settings pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.spark(vals pg_catalog.float8[], lo pg_catalog.float8, hi pg_catalog.float8);
DROP FUNCTION pgbench_lab.start(workload pg_catalog.text, clients pg_catalog.int4, duration pg_catalog.interval, transactions pg_catalog.int8, label pg_catalog.text, settings pg_catalog.jsonb, max_tries pg_catalog.int4, random_seed pg_catalog.int8, via pg_catalog.text, target pg_catalog.text);
DROP FUNCTION pgbench_lab.storage_class(random_read_iops pg_catalog.numeric);
DROP FUNCTION pgbench_lab.svg_axis(hi pg_catalog.float8);
DROP FUNCTION pgbench_lab.svg_chart(title pg_catalog.text, x_title pg_catalog.text, y_title pg_catalog.text, y2_title pg_catalog.text, series pg_catalog.jsonb, notes pg_catalog.text[]);
DROP FUNCTION pgbench_lab.svg_curve(s pg_catalog.jsonb, xa pg_catalog.float8[], ax pg_catalog.float8[], color pg_catalog.text, x1 pg_catalog.int4);
DROP FUNCTION pgbench_lab.svg_escape(s pg_catalog.text);
DROP FUNCTION pgbench_lab.svg_grid(xa pg_catalog.float8[], ya pg_catalog.float8[], y2a pg_catalog.float8[], x1 pg_catalog.int4);
DROP FUNCTION pgbench_lab.svg_max(series pg_catalog.jsonb, key pg_catalog.text, axis pg_catalog.text);
DROP FUNCTION pgbench_lab.svg_num(x pg_catalog.float8, digits pg_catalog.int4);
DROP FUNCTION pgbench_lab.svg_x(v pg_catalog.float8, xa pg_catalog.float8[], x1 pg_catalog.int4);
DROP FUNCTION pgbench_lab.svg_y(v pg_catalog.float8, ya pg_catalog.float8[], shift pg_catalog.int4);
DROP FUNCTION pgbench_lab.sweep_counts(workload pg_catalog.text, clients pg_catalog.int4[]);
DROP FUNCTION pgbench_lab.sweep_params(workload pg_catalog.text, clients pg_catalog.int4[], duration pg_catalog.interval, settings pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.sweep_steps(experiment_id pg_catalog.int8);
DROP FUNCTION pgbench_lab.sweep_summary(experiment_id pg_catalog.int8);
DROP FUNCTION pgbench_lab.sweep_verdict(experiment_id pg_catalog.int8);
DROP FUNCTION pgbench_lab.system_info();
DROP FUNCTION pgbench_lab.to_float8(x pg_catalog.numeric);
DROP FUNCTION pgbench_lab.undrawn_runs(experiment_id pg_catalog.int8);
DROP FUNCTION pgbench_lab.warm(rel pg_catalog.regclass, mode pg_catalog.text, include_indexes pg_catalog.bool);
DROP FUNCTION pgbench_lab.wrap(paragraph pg_catalog.text, lead pg_catalog.text, width pg_catalog.int4);

-- Procedures.
DROP PROCEDURE pgbench_lab.cold_vs_warm(workload pg_catalog.text, clients pg_catalog.int4, duration pg_catalog.interval, relations pg_catalog.regclass[], INOUT experiment_id pg_catalog.int8, INOUT finding pg_catalog.text);
DROP PROCEDURE pgbench_lab.compare_settings(workload pg_catalog.text, settings pg_catalog.jsonb[], clients pg_catalog.int4, duration pg_catalog.interval, rounds pg_catalog.int4, label pg_catalog.text, INOUT experiment_id pg_catalog.int8, INOUT finding pg_catalog.text);
DROP PROCEDURE pgbench_lab.connection_cost(workload pg_catalog.text, clients pg_catalog.int4, duration pg_catalog.interval, target pg_catalog.text, INOUT label pg_catalog.text, INOUT spi_run_id pg_catalog.int8, INOUT libpq_run_id pg_catalog.int8, INOUT connect_run_id pg_catalog.int8, INOUT spi_tps pg_catalog.float8, INOUT libpq_tps pg_catalog.float8, INOUT connect_tps pg_catalog.float8, INOUT connect_tps_without_connections pg_catalog.float8, INOUT connection_avg_ms pg_catalog.float8, INOUT spi_vs_libpq pg_catalog.float8, INOUT libpq_vs_connect pg_catalog.float8, INOUT finding pg_catalog.text);
DROP PROCEDURE pgbench_lab.run(workload pg_catalog.text, clients pg_catalog.int4, duration pg_catalog.interval, transactions pg_catalog.int8, label pg_catalog.text, settings pg_catalog.jsonb, max_tries pg_catalog.int4, random_seed pg_catalog.int8, INOUT run_id pg_catalog.int8, INOUT status pg_catalog.text, INOUT transactions_done pg_catalog.int8, INOUT tps pg_catalog.float8, INOUT latency_avg_ms pg_catalog.float8, INOUT latency_p99_ms pg_catalog.float8, INOUT failures pg_catalog.int8, INOUT error pg_catalog.text, via pg_catalog.text, target pg_catalog.text);
DROP PROCEDURE pgbench_lab.sweep(workload pg_catalog.text, clients pg_catalog.int4[], duration pg_catalog.interval, label pg_catalog.text, settings pg_catalog.jsonb, INOUT experiment_id pg_catalog.int8, INOUT peak_clients pg_catalog.int4, INOUT peak_tps pg_catalog.float8, INOUT knee_clients pg_catalog.int4, INOUT finding pg_catalog.text);
DROP PROCEDURE pgbench_lab.wait(INOUT run_id pg_catalog.int8, INOUT status pg_catalog.text, INOUT transactions_done pg_catalog.int8, INOUT tps pg_catalog.float8, INOUT latency_avg_ms pg_catalog.float8, INOUT latency_p99_ms pg_catalog.float8, INOUT failures pg_catalog.int8, INOUT error pg_catalog.text);

-- ---------------------------------------------------------------------------
-- 3. sql/code/ follows: 0.2's functions, procedures and views.
-- ---------------------------------------------------------------------------
