-- pgbench_lab update from 0.1 to 0.2.  The Makefile assembles the update
-- script from this prelude, then the files of sql/data/ that 0.1 did not
-- have (PGBL_NEW_DATA: an update creates their objects as a fresh install
-- does), then every file of sql/code/ in name order, the same files the
-- 0.2 install script ends with.  So an update
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
-- Every change made between 0.1 and 0.2 to a file of sql/data/ that 0.1
-- had is repeated here, in the same order, so that the updated objects end up as a fresh install
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

-- Two-phase experiments of restart-level settings (compare_settings with
-- restart_settings, then resume()): a status between the phases, and when
-- the second phase began.
ALTER TABLE pgbench_lab.experiments DROP CONSTRAINT experiments_status_check;
ALTER TABLE pgbench_lab.experiments ADD CONSTRAINT experiments_status_check
    CHECK (status OPERATOR(pg_catalog.=) ANY (ARRAY['running', 'done', 'failed', 'aborted', 'waiting for restart']));
ALTER TABLE pgbench_lab.experiments ADD COLUMN resumed_at timestamptz;
COMMENT ON COLUMN pgbench_lab.experiments.resumed_at IS
    'A two-phase experiment (compare_settings with restart_settings): when resume() took it up again after the restart';

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

-- ---------------------------------------------------------------------------
-- telemetry: where a run's time went, second by second, beside its
-- progress.  Written by the run's coordinator only; read as run_progress is.
-- ---------------------------------------------------------------------------

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
-- ---------------------------------------------------------------------------
-- replication: for a run on a primary with standbys, each standby's lag
-- second by second (pg_stat_replication, read by the run's coordinator
-- when it writes the second's telemetry).  Read as run_progress is.
-- ---------------------------------------------------------------------------

CREATE TABLE pgbench_lab.run_replication (
    run_id bigint NOT NULL REFERENCES pgbench_lab.runs ON DELETE CASCADE,
    second integer NOT NULL,
    standby text NOT NULL,
    client_addr text,
    state text,
    sync_state text,
    sent_lag_bytes numeric,
    write_lag_bytes numeric,
    flush_lag_bytes numeric,
    replay_lag_bytes numeric,
    write_lag_ms double precision,
    flush_lag_ms double precision,
    replay_lag_ms double precision,
    PRIMARY KEY (run_id, second, standby)
);
COMMENT ON TABLE pgbench_lab.run_replication IS
    'Per second of each run on a primary: every standby''s lag behind it, in bytes of WAL and in time (pg_stat_replication)';
COMMENT ON COLUMN pgbench_lab.run_replication.standby IS
    'The standby''s application_name and its WAL sender''s process id, as "name (pid)": unique among the second''s standbys';
COMMENT ON COLUMN pgbench_lab.run_replication.sent_lag_bytes IS
    'WAL written on the primary but not yet sent to the standby, in bytes';
COMMENT ON COLUMN pgbench_lab.run_replication.replay_lag_bytes IS
    'WAL written on the primary but not yet replayed by the standby, in bytes: what a read there does not see yet';
COMMENT ON COLUMN pgbench_lab.run_replication.replay_lag_ms IS
    'pg_stat_replication.replay_lag: the time between a commit on the primary and its replay on the standby, as the primary last measured it (NULL when the standby has caught up and is idle)';

SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.run_replication', '');
ALTER TABLE pgbench_lab.run_replication ENABLE ROW LEVEL SECURITY;
CREATE POLICY run_replication_read ON pgbench_lab.run_replication FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.runs r
                   WHERE r.run_id OPERATOR(pg_catalog.=) run_replication.run_id));
GRANT SELECT ON pgbench_lab.run_replication TO PUBLIC;
-- ---------------------------------------------------------------------------
-- targets: a libpq run's figures per server its clients went to (its
-- target, or each element of targets =>), measured over the run's
-- interval; the server's facts as read there before the run started, and
-- for a standby the recovery conflicts there over the run.
-- Read as run_progress is.
-- ---------------------------------------------------------------------------

CREATE TABLE pgbench_lab.run_targets (
    run_id bigint NOT NULL REFERENCES pgbench_lab.runs ON DELETE CASCADE,
    target integer NOT NULL,
    target_display text NOT NULL,
    server_version text,
    in_recovery boolean,
    settings jsonb,
    clients integer NOT NULL,
    first_client integer,
    clients_failed integer,
    transactions bigint,
    failures bigint,
    tps double precision,
    latency_avg_ms double precision,
    error text,
    scripts text[],
    system jsonb,
    system_note text,
    conflicts bigint,
    conflicts_by_kind jsonb,
    conflicts_error text,
    PRIMARY KEY (run_id, target)
);
COMMENT ON TABLE pgbench_lab.run_targets IS
    'Per server of each libpq run (its target, or each of its targets): the server''s facts read there, and its clients'' figures over the run''s measured interval';
COMMENT ON COLUMN pgbench_lab.run_targets.target IS
    'The position in targets => (1 for a run with one target); client i (from 1) went to target (i - 1) % n + 1';
COMMENT ON COLUMN pgbench_lab.run_targets.target_display IS
    'The conninfo as given, without passwords';
COMMENT ON COLUMN pgbench_lab.run_targets.first_client IS
    'A run with target_clients: the first of this target''s block of clients (clients first_client to first_client + clients - 1, from 1); NULL when they were spread round-robin';
COMMENT ON COLUMN pgbench_lab.run_targets.in_recovery IS
    'pg_is_in_recovery() on the target when the run started: a standby, which only reading workloads may run on';
COMMENT ON COLUMN pgbench_lab.run_targets.clients_failed IS
    'Clients of this target that ended failed (a connection lost, an error that is not retried, no answer within 3 s of the run''s end to a command under way); error says why for the first';
COMMENT ON COLUMN pgbench_lab.run_targets.scripts IS
    'A split run (scripts that read and scripts that write, standbys among the targets): the scripts this target''s clients drew from, those that read on a standby, those that write on a primary; NULL otherwise';
COMMENT ON COLUMN pgbench_lab.run_targets.tps IS
    'Transactions committed on this target per second of the run''s measured interval (the same interval for every target)';
COMMENT ON COLUMN pgbench_lab.run_targets.system IS
    'The target''s pgbench_lab.system_info() (name: value) read there before the run started; NULL where it was not read (system_note says why)';
COMMENT ON COLUMN pgbench_lab.run_targets.system_note IS
    'Why system is NULL: pgbench_lab is not installed there, its system_info() is not proven to be the extension''s (nothing of a target is called unless it is), or the run''s role may not execute it';
COMMENT ON COLUMN pgbench_lab.run_targets.conflicts IS
    'A standby''s recovery conflicts during the run: the increase of its cumulative pg_stat_database_conflicts counters for the target''s database from the start to the end (every session''s there, not only the run''s clients''); NULL for a primary, or when the standby could not be read at the end';
COMMENT ON COLUMN pgbench_lab.run_targets.conflicts_error IS
    'Why a standby''s conflicts are NULL: its read at the end of the run failed (no connection within 3 s, no answer within 5 s, the run cancelled during it), with the reason';
COMMENT ON COLUMN pgbench_lab.run_targets.conflicts_by_kind IS
    'conflicts by kind: tablespace, lock, snapshot, bufferpin, deadlock and, from PostgreSQL 16, active_logicalslot (the confl_ columns of pg_stat_database_conflicts)';

SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.run_targets', '');
ALTER TABLE pgbench_lab.run_targets ENABLE ROW LEVEL SECURITY;
CREATE POLICY run_targets_read ON pgbench_lab.run_targets FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.runs r
                   WHERE r.run_id OPERATOR(pg_catalog.=) run_targets.run_id));
GRANT SELECT ON pgbench_lab.run_targets TO PUBLIC;

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

-- ---------------------------------------------------------------------------
-- samples: per-transaction samples of runs with a sample_rate (pgbench
-- --log --sampling-rate), written by the coordinator from the clients'
-- rings (src/samples.c); read as run_progress is.
-- ---------------------------------------------------------------------------

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

-- ---------------------------------------------------------------------------
-- settings_saved: postgresql.auto.conf as it was before an experiment
-- changed reload-level settings with ALTER SYSTEM, committed before the
-- first change (src/settings_apply.c).  The experiment puts the file back
-- at its end, on an error or a cancel, and when its session is terminated;
-- after a crash or an immediate shutdown, the next call of any experiment
-- or pgbench_lab.restore_settings() does, and sets restored_at.  A
-- two-phase experiment of restart-level settings (compare_settings with
-- restart_settings) keeps its record open between its phases: restart
-- holds the values written for phase 2, plan the experiment's plan,
-- written_at when they were written (the restart must come after), and
-- waiting is true until resume() takes it up; no automatic restore touches
-- a waiting record, restore_settings() by hand abandons it.  Not
-- granted to anyone and not dumped: the file may hold passwords, and a
-- record means something only on the server it was taken on.
-- ---------------------------------------------------------------------------
CREATE TABLE pgbench_lab_internal.settings_saved (
    experiment_id bigint PRIMARY KEY,
    names text[] NOT NULL,
    entries jsonb NOT NULL,
    auto_conf bytea,
    saved_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    backend_pid integer NOT NULL,
    backend_start timestamptz NOT NULL,
    restored_at timestamptz,
    outcome text,
    restart jsonb,
    plan jsonb,
    written_at timestamptz,
    waiting boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE pgbench_lab_internal.settings_saved IS
    'postgresql.auto.conf (byte for byte; NULL: there was none) and its entries for the settings an experiment changes with ALTER SYSTEM, recorded before the first change';
REVOKE ALL ON pgbench_lab_internal.settings_saved FROM PUBLIC;

-- ---------------------------------------------------------------------------
-- system: what the server can see of the machine it runs on.
-- ---------------------------------------------------------------------------

-- One row per fact.  value is NULL when a fact could not be read (source
-- 'unavailable') or a cgroup sets no limit (source '... (no limit)').
CREATE FUNCTION pgbench_lab.system_info()
RETURNS TABLE (name text, value text, unit text, source text)
AS 'MODULE_PATHNAME', 'pgbench_lab_system_info'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION pgbench_lab.system_info() IS
'RAM, cgroup limits, CPUs, huge pages, the data directory''s storage, OS and build, as the server sees them';

-- It shows paths, devices and limits of the host: monitoring roles only.
REVOKE EXECUTE ON FUNCTION pgbench_lab.system_info() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.system_info() TO pg_monitor;

-- ---------------------------------------------------------------------------
-- recommender and settings: settings for the machine the server runs on,
-- explained, budgeted and validated against the live server.
-- ---------------------------------------------------------------------------

-- One row per setting.  A NULL input is detected: RAM and CPUs from
-- system_info() (cgroup limits first), storage from the data directory's
-- device, data size from the databases, OS from the server.
CREATE FUNCTION pgbench_lab.recommend(
    ram text DEFAULT NULL,
    cpus numeric DEFAULT NULL,
    max_connections int DEFAULT NULL,
    workload text DEFAULT 'mixed',
    storage text DEFAULT NULL,
    os text DEFAULT NULL,
    data_size text DEFAULT NULL,
    os_reserve text DEFAULT NULL,
    OUT name text,
    OUT current text,
    OUT recommended text,
    OUT changes boolean,
    OUT context text,
    OUT formula text,
    OUT reason text,
    OUT within_limits boolean)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgbench_lab_recommend'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION pgbench_lab.recommend(text, numeric, int, text, text, text, text, text) IS
'Recommended settings with their formula, reason, context and whether they fit the server''s bounds';

-- The memory budget, term by term (with the classic 5-parameter budget);
-- NULL means the live value, and for backend_memory (a backend's private
-- memory) the figure measured on an idle backend of this server.
CREATE FUNCTION pgbench_lab.memory_budget(
    ram text DEFAULT NULL,
    max_connections int DEFAULT NULL,
    work_mem text DEFAULT NULL,
    shared_buffers text DEFAULT NULL,
    maintenance_work_mem text DEFAULT NULL,
    effective_cache_size text DEFAULT NULL,
    autovacuum_max_workers int DEFAULT NULL,
    backend_memory text DEFAULT NULL,
    OUT component text,
    OUT bytes numeric,
    OUT size text,
    OUT ram_share numeric,
    OUT status text,
    OUT note text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgbench_lab_memory_budget'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION pgbench_lab.memory_budget(text, int, text, text, text, text, int, text) IS
'Memory budget of the live (or given) settings: each term, the total, what is left for the OS cache, and a verdict';

-- What postgresql.auto.conf holds for these settings: the last line of
-- each, applied or still pending, exactly as ALTER SYSTEM wrote it.  The
-- revert script restores these lines (and resets the others), so that
-- apply then revert leaves postgresql.auto.conf as it was.  pg_file_settings
-- is for superusers only: this reads it as the extension's owner, and only
-- the lines ALTER SYSTEM wrote for the names asked for; pg_monitor, which
-- may call it, reads every applied setting already.
CREATE FUNCTION pgbench_lab_internal.auto_conf(names text[])
RETURNS TABLE (name text, setting text)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT f.name, f.setting
      FROM (SELECT f.name, f.setting,
                   pg_catalog.row_number() OVER (PARTITION BY f.name ORDER BY f.seqno DESC) AS last
              FROM pg_catalog.pg_file_settings f
             WHERE f.sourcefile OPERATOR(pg_catalog.~) '(^|/)postgresql\.auto\.conf$'
               AND f.name OPERATOR(pg_catalog.=) ANY (names)) f
     WHERE f.last OPERATOR(pg_catalog.=) 1
$$;
REVOKE ALL ON FUNCTION pgbench_lab_internal.auto_conf(text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab_internal.auto_conf(text[]) TO pg_monitor;

-- The ALTER SYSTEM statements for what recommend() would change, a note of
-- what needs a restart, and a script that restores what postgresql.auto.conf
-- holds today (pending values included).  Nothing
-- is applied: the DBA reads, edits and runs it.
CREATE FUNCTION pgbench_lab.recommend_sql(
    ram text DEFAULT NULL,
    cpus numeric DEFAULT NULL,
    max_connections int DEFAULT NULL,
    workload text DEFAULT 'mixed',
    storage text DEFAULT NULL,
    os text DEFAULT NULL,
    data_size text DEFAULT NULL,
    os_reserve text DEFAULT NULL,
    OUT step int,
    OUT kind text,
    OUT statement text)
RETURNS SETOF record
LANGUAGE sql VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
AS $$
WITH r AS (
    SELECT r.*
      FROM (SELECT pg_catalog.row_number() OVER () AS n, *
              FROM pgbench_lab.recommend($1, $2, $3, $4, $5, $6, $7, $8)) AS r
     WHERE r.changes
), auto AS (
    SELECT * FROM pgbench_lab_internal.auto_conf(ARRAY(SELECT r.name FROM r))
), lines AS (
    SELECT 1 AS part, n, 'apply'::pg_catalog.text AS kind,
           CASE WHEN context OPERATOR(pg_catalog.=) 'sysctl'
                THEN pg_catalog.format('-- as root, before the restart: sysctl -w %s=%s', name, recommended)
                ELSE pg_catalog.format('ALTER SYSTEM SET %I = %L;  -- %s', name, recommended, context)
           END AS statement
      FROM r
    UNION ALL
    SELECT 2, 0, 'apply', 'SELECT pg_catalog.pg_reload_conf();'
     WHERE EXISTS (SELECT FROM r WHERE context OPERATOR(pg_catalog.<>) 'sysctl')
    UNION ALL
    SELECT 3, 0, 'note', '-- needs a restart: ' OPERATOR(pg_catalog.||)
           pg_catalog.string_agg(name, ', ' ORDER BY n)
      FROM r WHERE context OPERATOR(pg_catalog.=) 'restart'
    HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0
    UNION ALL
    -- what postgresql.auto.conf holds now (pending values too), else RESET
    SELECT 4, r.n, 'revert',
           CASE WHEN a.setting IS NOT NULL
                THEN pg_catalog.format('ALTER SYSTEM SET %I = %L;', r.name, a.setting)
                ELSE pg_catalog.format('ALTER SYSTEM RESET %I;', r.name)
           END
      FROM r LEFT JOIN auto a ON a.name OPERATOR(pg_catalog.=) r.name
     WHERE r.context OPERATOR(pg_catalog.<>) 'sysctl'
    UNION ALL
    SELECT 5, 0, 'revert', 'SELECT pg_catalog.pg_reload_conf();'
     WHERE EXISTS (SELECT FROM r WHERE context OPERATOR(pg_catalog.<>) 'sysctl')
)
SELECT (pg_catalog.row_number() OVER (ORDER BY part, n))::int, kind, statement
  FROM lines
 ORDER BY part, n
$$;

COMMENT ON FUNCTION pgbench_lab.recommend_sql(text, numeric, int, text, text, text, text, text) IS
'ALTER SYSTEM script for recommend()''s changes, with a restart note and a revert script; applies nothing';

-- They read the machine's limits and every setting, like system_info():
-- monitoring roles only (pg_monitor includes pg_read_all_settings and
-- pg_read_all_stats, which the settings' sources and the databases' sizes need).
REVOKE EXECUTE ON FUNCTION pgbench_lab.recommend(text, numeric, int, text, text, text, text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pgbench_lab.memory_budget(text, int, text, text, text, text, int, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pgbench_lab.recommend_sql(text, numeric, int, text, text, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.recommend(text, numeric, int, text, text, text, text, text) TO pg_monitor;
GRANT EXECUTE ON FUNCTION pgbench_lab.memory_budget(text, int, text, text, text, text, int, text) TO pg_monitor;
GRANT EXECUTE ON FUNCTION pgbench_lab.recommend_sql(text, numeric, int, text, text, text, text, text) TO pg_monitor;

-- ---------------------------------------------------------------------------
-- Settings changed by experiments with ALTER SYSTEM (src/settings_apply.c):
-- restore_settings() puts back, after a crash or an immediate shutdown,
-- what an experiment changed and no session restored; every experiment
-- call does the same before it starts.
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab.restore_settings()
RETURNS TABLE (experiment_id bigint, settings text[], saved_at timestamptz, outcome text)
LANGUAGE c VOLATILE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_restore_settings';
COMMENT ON FUNCTION pgbench_lab.restore_settings() IS
    'Restores postgresql.auto.conf as it was before experiments whose session ended without restoring it (a crash, an immediate shutdown); superusers only';
REVOKE ALL ON FUNCTION pgbench_lab.restore_settings() FROM PUBLIC;

-- The part of a set of settings that is reload-level (context sighup,
-- changed with ALTER SYSTEM and a reload), or the rest (given to the
-- runs' sessions); '{}' for none, and for what is not an object.
CREATE FUNCTION pgbench_lab_internal.settings_part(s jsonb, reload boolean)
RETURNS jsonb LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT COALESCE(pg_catalog.jsonb_object_agg(e.key, e.value), '{}'::pg_catalog.jsonb)
      FROM pg_catalog.jsonb_each(CASE WHEN pg_catalog.jsonb_typeof(s) OPERATOR(pg_catalog.=) 'object' THEN s END) AS e(key, value)
     WHERE EXISTS (SELECT FROM pg_catalog.pg_settings g
                    WHERE g.name OPERATOR(pg_catalog.=) pg_catalog.lower(e.key)
                      AND g.context OPERATOR(pg_catalog.=) 'sighup') OPERATOR(pg_catalog.=) reload
$$;

-- ---------------------------------------------------------------------------
-- dataset: pgbench's four tables and their rows, made in the server.
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab.init(
    scale int,
    fillfactor int DEFAULT 100,
    foreign_keys bool DEFAULT false,
    unlogged bool DEFAULT false,
    target text DEFAULT NULL)
RETURNS TABLE (step text, seconds numeric, rows bigint, rows_per_second numeric)
AS 'MODULE_PATHNAME', 'pgbench_lab_init'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION pgbench_lab.init(int, int, bool, bool, text) IS
'pgbench -i in the server: pgbench''s tables in the current schema, rows generated by a background worker; with target (a libpq conninfo), init_sql''s statements run on that server instead';
REVOKE EXECUTE ON FUNCTION pgbench_lab.init(int, int, bool, bool, text) FROM PUBLIC;

CREATE FUNCTION pgbench_lab.init_sql(
    scale int,
    fillfactor int DEFAULT 100,
    foreign_keys bool DEFAULT false,
    unlogged bool DEFAULT false)
RETURNS TABLE (step text, statement text)
AS 'MODULE_PATHNAME', 'pgbench_lab_init_sql'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION pgbench_lab.init_sql(int, int, bool, bool) IS
'the statements pgbench_lab.init would run, step by step (generate data as equivalent SQL)';

-- ---------------------------------------------------------------------------
-- runner: start, run, wait, cancel, active_runs.  Nothing that starts
-- workers is executable by PUBLIC.
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab.start(
    workload text DEFAULT NULL,
    clients integer DEFAULT 1,
    duration interval DEFAULT '10 s',
    transactions bigint DEFAULT NULL,
    label text DEFAULT NULL,
    settings jsonb DEFAULT '{}',
    max_tries integer DEFAULT 1,
    random_seed bigint DEFAULT NULL,
    via text DEFAULT 'spi',
    target text DEFAULT NULL,
    rate double precision DEFAULT NULL,
    latency_limit interval DEFAULT NULL,
    script text DEFAULT NULL,
    scripts text[] DEFAULT NULL,
    variables jsonb DEFAULT NULL,
    sample_rate double precision DEFAULT NULL,
    threads integer DEFAULT NULL,
    targets text[] DEFAULT NULL,
    target_clients integer[] DEFAULT NULL)
RETURNS bigint
LANGUAGE c VOLATILE
AS 'MODULE_PATHNAME', 'pgbench_lab_start';
COMMENT ON FUNCTION pgbench_lab.start(text, integer, interval, bigint, text, jsonb, integer, bigint, text, text, double precision, interval, text, text[], jsonb, double precision, integer, text[], integer[]) IS
    'Start a run in background workers and return its run_id at once';

-- C procedures with no SET clause: a procedure with one cannot commit.
-- They run no SQL that resolves a name through search_path.
-- New arguments of start() and run() go at the end only (src/runner.h).
CREATE PROCEDURE pgbench_lab.run(
    workload text DEFAULT NULL,
    clients integer DEFAULT 1,
    duration interval DEFAULT '10 s',
    transactions bigint DEFAULT NULL,
    label text DEFAULT NULL,
    settings jsonb DEFAULT '{}',
    max_tries integer DEFAULT 1,
    random_seed bigint DEFAULT NULL,
    INOUT run_id bigint DEFAULT NULL,
    INOUT status text DEFAULT NULL,
    INOUT transactions_done bigint DEFAULT NULL,
    INOUT tps double precision DEFAULT NULL,
    INOUT latency_avg_ms double precision DEFAULT NULL,
    INOUT latency_p99_ms double precision DEFAULT NULL,
    INOUT failures bigint DEFAULT NULL,
    INOUT error text DEFAULT NULL,
    via text DEFAULT 'spi',
    target text DEFAULT NULL,
    rate double precision DEFAULT NULL,
    latency_limit interval DEFAULT NULL,
    script text DEFAULT NULL,
    scripts text[] DEFAULT NULL,
    variables jsonb DEFAULT NULL,
    sample_rate double precision DEFAULT NULL,
    threads integer DEFAULT NULL,
    targets text[] DEFAULT NULL,
    target_clients integer[] DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_run';
COMMENT ON PROCEDURE pgbench_lab.run(text, integer, interval, bigint, text, jsonb, integer, bigint, bigint, text, bigint, double precision, double precision, double precision, bigint, text, text, text, double precision, interval, text, text[], jsonb, double precision, integer, text[], integer[]) IS
    'Run a workload in background workers and return its headline figures';

CREATE PROCEDURE pgbench_lab.wait(
    INOUT run_id bigint,
    INOUT status text DEFAULT NULL,
    INOUT transactions_done bigint DEFAULT NULL,
    INOUT tps double precision DEFAULT NULL,
    INOUT latency_avg_ms double precision DEFAULT NULL,
    INOUT latency_p99_ms double precision DEFAULT NULL,
    INOUT failures bigint DEFAULT NULL,
    INOUT error text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_wait';
COMMENT ON PROCEDURE pgbench_lab.wait(bigint, text, bigint, double precision, double precision, double precision, bigint, text) IS
    'Wait for a run to end (holding no snapshot) and return its headline figures';

CREATE FUNCTION pgbench_lab.cancel(run_id bigint) RETURNS boolean
LANGUAGE c VOLATILE
AS 'MODULE_PATHNAME', 'pgbench_lab_cancel';
COMMENT ON FUNCTION pgbench_lab.cancel(bigint) IS
    'Stop a running run; it is recorded as cancelled with what it measured';

-- The background worker slots free for a run needing "need" of them
-- (src/runner.c); experiments' plans leave out a run that could not start.
CREATE FUNCTION pgbench_lab_internal.worker_slots_free(need integer) RETURNS integer
LANGUAGE c VOLATILE
AS 'MODULE_PATHNAME', 'pgbench_lab_worker_slots_free';

CREATE FUNCTION pgbench_lab_internal.run_live(
    run_id bigint,
    OUT elapsed_seconds double precision,
    OUT transactions bigint,
    OUT tps double precision,
    OUT failures bigint,
    OUT clients_running integer)
RETURNS record
LANGUAGE c VOLATILE STRICT
AS 'MODULE_PATHNAME', 'pgbench_lab_run_live';

CREATE VIEW pgbench_lab.active_runs WITH (security_invoker = true) AS
    SELECT r.run_id, r.label, r.workload, r.clients, r.scale, r.duration,
           r.started_at, r.owner, l.elapsed_seconds, l.transactions, l.tps,
           l.failures, l.clients_running
      FROM pgbench_lab.runs r
     CROSS JOIN LATERAL pgbench_lab_internal.run_live(r.run_id) l
     WHERE r.status OPERATOR(pg_catalog.=) 'running';
COMMENT ON VIEW pgbench_lab.active_runs IS 'Runs in progress with their live counters';

REVOKE ALL ON FUNCTION pgbench_lab.start(text, integer, interval, bigint, text, jsonb, integer, bigint, text, text, double precision, interval, text, text[], jsonb, double precision, integer, text[], integer[]) FROM PUBLIC;
REVOKE ALL ON PROCEDURE pgbench_lab.run(text, integer, interval, bigint, text, jsonb, integer, bigint, bigint, text, bigint, double precision, double precision, double precision, bigint, text, text, text, double precision, interval, text, text[], jsonb, double precision, integer, text[], integer[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab.cancel(bigint) FROM PUBLIC;
GRANT SELECT ON pgbench_lab.active_runs TO PUBLIC;

-- ---------------------------------------------------------------------------
-- script_expr: pgbench's \set expression language, evaluated in the server
-- (src/script_expr*.c, src/script_funcs.c).  The script interpreter calls
-- the C interface per client; this function evaluates one expression from
-- SQL, for the tests and for checking an expression before it goes into a
-- script.
-- ---------------------------------------------------------------------------

-- The value pgbench would give :x after "\set x <expr>", as text (NULL for
-- null), or pgbench's error as an ERROR: parse errors with their column.
-- variables are pgbench's -D; seed plays --random-seed for one client (a
-- random one when NULL).  VOLATILE for the random functions; revoked from
-- PUBLIC, as every volatile function of the extension that PUBLIC need not
-- run (debug() writes to the server log).
CREATE FUNCTION pgbench_lab_internal.script_eval(expr text,
                                                 variables jsonb DEFAULT '{}',
                                                 seed bigint DEFAULT NULL)
RETURNS text
LANGUAGE C VOLATILE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_script_eval';
COMMENT ON FUNCTION pgbench_lab_internal.script_eval(text, jsonb, bigint) IS
    'pgbench_lab: one pgbench \set expression evaluated as pgbench would, for tests and checks';
REVOKE EXECUTE ON FUNCTION pgbench_lab_internal.script_eval(text, jsonb, bigint) FROM PUBLIC;

-- ---------------------------------------------------------------------------
-- script_parse: pgbench script files parsed in the server
-- (src/script_parse*.c).  The script interpreter parses a run's scripts
-- with the C interface before anything starts; these functions show what
-- it makes of a script, for the tests and for a DBA who checks a script
-- before running it.  A bad script is an ERROR naming the script, the line
-- and the column, as pgbench reports it.  STABLE: how strings are read
-- follows standard_conforming_strings.  Revoked from PUBLIC, as
-- script_eval() is.
-- ---------------------------------------------------------------------------

-- One row per command, numbered as pgbench numbers them: its line, its
-- kind (sql, begin, commit, rollback, savepoint, release, rollback to, set,
-- sleep, if, elif, else, endif, startpipeline, syncpipeline, endpipeline),
-- its text (for SQL, with $1 .. $n where its :variables were), the
-- variables it reads (for SQL, the one of each $n) and the rest in detail.
CREATE FUNCTION pgbench_lab_internal.script_parse(script text, name text DEFAULT 'script')
RETURNS TABLE (command integer, line integer, kind text, text text, variables text[],
               detail jsonb)
LANGUAGE C STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_script_parse';
COMMENT ON FUNCTION pgbench_lab_internal.script_parse(text, text) IS
    'pgbench_lab: a pgbench script''s commands as the script interpreter reads them, or its first error';
REVOKE EXECUTE ON FUNCTION pgbench_lab_internal.script_parse(text, text) FROM PUBLIC;

-- The script as a whole: its commands, whether it has transaction blocks
-- (without any, each SQL command is a transaction of its own), conditionals
-- and pipelines, the variables it sets and reads, and the :names left as
-- text inside its strings and comments.
CREATE FUNCTION pgbench_lab_internal.script_check(script text, name text DEFAULT 'script')
RETURNS jsonb
LANGUAGE C STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_script_check';
COMMENT ON FUNCTION pgbench_lab_internal.script_check(text, text) IS
    'pgbench_lab: a pgbench script checked as a whole: transactions, conditionals, pipelines, variables';
REVOKE EXECUTE ON FUNCTION pgbench_lab_internal.script_check(text, text) FROM PUBLIC;
-- Cache part: residency in shared buffers and the OS page cache, snapshots
-- of it, make_cold and warm.

CREATE FUNCTION pgbench_lab.cache_status(rel pg_catalog.regclass DEFAULT NULL)
RETURNS TABLE (relation pg_catalog.regclass, kind pg_catalog.text,
               blocks pg_catalog.int8, buffers pg_catalog.int8,
               buffers_dirty pg_catalog.int8,
               usage_count_avg pg_catalog.float8,
               buffers_pct pg_catalog.float8, os_pages pg_catalog.int8,
               os_pct pg_catalog.float8)
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'pgbench_lab_cache_status';
COMMENT ON FUNCTION pgbench_lab.cache_status(pg_catalog.regclass) IS
  'pages of a relation (with its indexes and TOAST) or of every relation of the database in shared buffers and in the OS page cache';
REVOKE ALL ON FUNCTION pgbench_lab.cache_status(pg_catalog.regclass) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.cache_status(pg_catalog.regclass) TO pg_monitor;

-- make_cold is superuser-only, and checks so in C: a GRANT cannot widen it.
CREATE FUNCTION pgbench_lab.make_cold(rel pg_catalog.regclass,
                                      include_indexes pg_catalog.bool DEFAULT true,
                                      os_cache pg_catalog.bool DEFAULT true)
RETURNS TABLE (relation pg_catalog.regclass, kind pg_catalog.text,
               buffers_evicted pg_catalog.int8, dirty_written pg_catalog.int8,
               buffers_left pg_catalog.int8, os_pages_dropped pg_catalog.int8,
               os_pages_left pg_catalog.int8)
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'pgbench_lab_make_cold';
COMMENT ON FUNCTION pgbench_lab.make_cold(pg_catalog.regclass, pg_catalog.bool, pg_catalog.bool) IS
  'evict a relation (with its indexes and TOAST) from shared buffers and the OS page cache, writing dirty pages first';
REVOKE ALL ON FUNCTION pgbench_lab.make_cold(pg_catalog.regclass, pg_catalog.bool, pg_catalog.bool) FROM PUBLIC;

CREATE FUNCTION pgbench_lab.warm(rel pg_catalog.regclass,
                                 mode pg_catalog.text DEFAULT 'buffer',
                                 include_indexes pg_catalog.bool DEFAULT true)
RETURNS TABLE (relation pg_catalog.regclass, kind pg_catalog.text,
               blocks_loaded pg_catalog.int8, seconds pg_catalog.float8)
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_warm';
COMMENT ON FUNCTION pgbench_lab.warm(pg_catalog.regclass, pg_catalog.text, pg_catalog.bool) IS
  'load a relation (with its indexes and TOAST) through pg_prewarm; into shared buffers, only what fits, hottest first';
REVOKE ALL ON FUNCTION pgbench_lab.warm(pg_catalog.regclass, pg_catalog.text, pg_catalog.bool) FROM PUBLIC;

-- What fits: shared_buffers, the margin a warm leaves to the rest of the
-- server (a tenth, at least 4MB, at most a quarter) and what it may load,
-- in blocks; and the smallest shared_buffers that holds so many blocks.
CREATE FUNCTION pgbench_lab_internal.warm_budget(OUT shared_buffers pg_catalog.int8,
                                                 OUT margin pg_catalog.int8, OUT budget pg_catalog.int8)
LANGUAGE C STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_warm_budget';
COMMENT ON FUNCTION pgbench_lab_internal.warm_budget() IS
  'In blocks: shared_buffers, the margin a warm leaves to the rest of the server, and what it may load';

CREATE FUNCTION pgbench_lab_internal.warm_needed(blocks pg_catalog.int8)
RETURNS pg_catalog.int8
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_warm_needed';
COMMENT ON FUNCTION pgbench_lab_internal.warm_needed(pg_catalog.int8) IS
  'The smallest shared_buffers, in blocks, from which a warm may load so many blocks';

-- The plan of a warm within a budget, hottest first; loads nothing.
CREATE FUNCTION pgbench_lab_internal.warm_plan(rels pg_catalog.regclass[], budget pg_catalog.int8)
RETURNS TABLE (relation pg_catalog.regclass, kind pg_catalog.text,
               blocks pg_catalog.int8, warm_blocks pg_catalog.int8)
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_warm_plan';
COMMENT ON FUNCTION pgbench_lab_internal.warm_plan(pg_catalog.regclass[], pg_catalog.int8) IS
  'What a warm of the relations (with their indexes and TOAST) loads within a budget of blocks, hottest first';
REVOKE ALL ON FUNCTION pgbench_lab_internal.warm_plan(pg_catalog.regclass[], pg_catalog.int8) FROM PUBLIC;

-- A plan loaded: the first blocks[i] blocks of rels[i], in the order given.
CREATE FUNCTION pgbench_lab_internal.warm_blocks(rels pg_catalog.regclass[], blocks pg_catalog.int8[])
RETURNS TABLE (relation pg_catalog.regclass, kind pg_catalog.text,
               blocks_loaded pg_catalog.int8, seconds pg_catalog.float8)
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_warm_blocks';
COMMENT ON FUNCTION pgbench_lab_internal.warm_blocks(pg_catalog.regclass[], pg_catalog.int8[]) IS
  'Load into shared buffers the first blocks[i] blocks of each relation rels[i] (itself alone), in the order given';
REVOKE ALL ON FUNCTION pgbench_lab_internal.warm_blocks(pg_catalog.regclass[], pg_catalog.int8[]) FROM PUBLIC;


CREATE FUNCTION pgbench_lab.cache_snapshot(label pg_catalog.text DEFAULT NULL)
RETURNS pg_catalog.int8
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id pg_catalog.int8;
BEGIN
    -- statistics read earlier in this transaction must not be reused
    PERFORM pg_catalog.pg_stat_clear_snapshot();
    INSERT INTO pgbench_lab.cache_snapshots (label, taken_at, datname, blks_hit, blks_read)
    SELECT cache_snapshot.label, pg_catalog.clock_timestamp(), d.datname, d.blks_hit, d.blks_read
      FROM pg_catalog.pg_stat_database AS d
     WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()
    RETURNING snapshot_id INTO id;

    INSERT INTO pgbench_lab.cache_snapshot_relations
        (snapshot_id, relid, relation, kind, blocks, buffers, buffers_dirty,
         usage_count_avg, os_pages, heap_blks_read, heap_blks_hit,
         idx_blks_read, idx_blks_hit)
    SELECT id, s.relation, s.relation::pg_catalog.text, s.kind, s.blocks, s.buffers,
           s.buffers_dirty, s.usage_count_avg, s.os_pages,
           t.heap_blks_read, t.heap_blks_hit,
           COALESCE(t.idx_blks_read, i.idx_blks_read),
           COALESCE(t.idx_blks_hit, i.idx_blks_hit)
      FROM pgbench_lab.cache_status(NULL) AS s
      LEFT JOIN pg_catalog.pg_statio_all_tables AS t
             ON t.relid OPERATOR(pg_catalog.=) s.relation::pg_catalog.oid
      LEFT JOIN pg_catalog.pg_statio_all_indexes AS i
             ON i.indexrelid OPERATOR(pg_catalog.=) s.relation::pg_catalog.oid;
    RETURN id;
END
$$;
COMMENT ON FUNCTION pgbench_lab.cache_snapshot(pg_catalog.text) IS
  'record the database''s cache residency and I/O counters; returns the snapshot id';
REVOKE ALL ON FUNCTION pgbench_lab.cache_snapshot(pg_catalog.text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.cache_snapshot(pg_catalog.text) TO pg_monitor;


CREATE FUNCTION pgbench_lab.autoprewarm_status()
RETURNS TABLE (preloaded boolean, autoprewarm boolean,
               autoprewarm_interval interval,
               dump_file text, dump_modified timestamptz, dump_age interval,
               dump_blocks bigint, dump_blocks_this_database bigint,
               pending_restart boolean, restart_warm boolean, warning text)
LANGUAGE c VOLATILE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_autoprewarm_status';
COMMENT ON FUNCTION pgbench_lab.autoprewarm_status() IS
    'Whether pg_prewarm''s autoprewarm would make a restart come back warm: settings, leader, dump file';
REVOKE ALL ON FUNCTION pgbench_lab.autoprewarm_status() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.autoprewarm_status() TO pg_monitor;

CREATE FUNCTION pgbench_lab_internal.os_page_size()
RETURNS integer
LANGUAGE c IMMUTABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'pgbench_lab_os_page_size';
COMMENT ON FUNCTION pgbench_lab_internal.os_page_size() IS
    'The kernel''s page size in bytes (cache snapshots count OS pages)';

-- ---------------------------------------------------------------------------
-- storage: the data directory's device measured from SQL (fsync_test,
-- io_test), the latest figures in the view storage_latest.
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab.fsync_test(seconds numeric DEFAULT 2)
RETURNS TABLE (method text, direct boolean, writes_per_sync integer,
               write_size integer, ops_per_second numeric,
               usec_per_op numeric, supported boolean, is_current boolean,
               fastest_safe boolean)
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_fsync_test';
COMMENT ON FUNCTION pgbench_lab.fsync_test(numeric) IS
    'pgbench_lab: pg_test_fsync''s comparison of WAL sync methods on the data directory''s device';
REVOKE EXECUTE ON FUNCTION pgbench_lab.fsync_test(numeric) FROM PUBLIC;

CREATE FUNCTION pgbench_lab.io_test(size text DEFAULT '1GB',
                                    seconds numeric DEFAULT 10)
RETURNS TABLE (file_size bigint, write_mb_per_second numeric,
               read_mb_per_second numeric, random_read_iops numeric,
               random_read_usec numeric, read_cache_bypass text,
               elapsed_seconds numeric, iops_by_depth jsonb,
               knee_depth integer)
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_io_test';
COMMENT ON FUNCTION pgbench_lab.io_test(text, numeric) IS
    'pgbench_lab: sequential write and read MB/s, and random 8 kB read IOPS at queue depths 1, 4, 16 and 64 with the knee, of the data directory''s device';
REVOKE EXECUTE ON FUNCTION pgbench_lab.io_test(text, numeric) FROM PUBLIC;

-- From random 8 kB reads per second at queue depth one (what io_test
-- measures) to a storage class and its planner settings.  The bands are
-- read latencies: over 2 ms a disk head moves (hdd); 0.25 to 2 ms is a
-- network or array hop (san); 0.1 to 0.25 ms flash behind SATA or SAS
-- (ssd); under 0.1 ms NVMe.  The settings per class are those of the common
-- tuning tools (random_page_cost 4 only for hdd; effective_io_concurrency
-- 2 / 300 / 200 / 1000).
CREATE FUNCTION pgbench_lab.storage_class(random_read_iops numeric)
RETURNS TABLE (storage_class text, random_page_cost numeric,
               effective_io_concurrency integer, reason text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
SELECT c.cls, c.rpc, c.eic,
       pg_catalog.format('%s random 8 kB reads/s (%s us each) at queue depth 1: %s',
                         pg_catalog.round(random_read_iops), pg_catalog.round(CASE WHEN random_read_iops OPERATOR(pg_catalog.<>) 0 THEN 1000000 OPERATOR(pg_catalog./) random_read_iops END), c.why)
  FROM (VALUES
        ('hdd', 4.0, 2, 'over 2 ms per read, a rotating disk',
         0::numeric, 500::numeric),
        ('san', 1.1, 300, '0.25 to 2 ms per read, network or array storage',
         500, 4000),
        ('ssd', 1.1, 200, '0.1 to 0.25 ms per read, a SATA or SAS SSD',
         4000, 10000),
        ('nvme', 1.1, 1000, 'under 0.1 ms per read, NVMe flash',
         10000, NULL)) AS c(cls, rpc, eic, why, lo, hi)
 WHERE random_read_iops OPERATOR(pg_catalog.>) 0
   AND random_read_iops OPERATOR(pg_catalog.>=) c.lo
   AND (c.hi IS NULL OR random_read_iops OPERATOR(pg_catalog.<) c.hi)
$$;
COMMENT ON FUNCTION pgbench_lab.storage_class(numeric) IS
    'pgbench_lab: storage class, random_page_cost and effective_io_concurrency for a measured random read rate';

-- What the latest io_test() says of effective_io_concurrency: the knee
-- depth it measured, with the rates that make it one (NULL for a result
-- from before depths were measured).
CREATE FUNCTION pgbench_lab_internal.io_knee_reason(results jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
SELECT pg_catalog.format(
         'effective_io_concurrency %s measured: %s random reads/s with %s in flight, %s%s',
         knee.depth, pg_catalog.round(knee.iops), knee.depth,
         CASE WHEN knee.depth OPERATOR(pg_catalog.=) best.depth
              THEN 'the best of the depths measured'
              ELSE pg_catalog.format('the fewest in flight within 10%% of the best (%s with %s)',
                                     pg_catalog.round(best.iops), best.depth) END,
         CASE WHEN knee.depth OPERATOR(pg_catalog.=) 1
              THEN '; reads in flight do not pay on this device'
              WHEN knee.depth OPERATOR(pg_catalog.=) deepest.depth
              THEN pg_catalog.format('; still growing at %s, the deepest io_test() measures', knee.depth)
              ELSE '' END)
  FROM (SELECT CASE WHEN pg_catalog.jsonb_typeof(results OPERATOR(pg_catalog.->) 'iops_by_depth')
                           OPERATOR(pg_catalog.=) 'array'
                      THEN results OPERATOR(pg_catalog.->) 'iops_by_depth' END AS depths,
               (results OPERATOR(pg_catalog.->>) 'knee_depth')::pg_catalog.int4 AS knee) AS r,
       LATERAL (SELECT (e OPERATOR(pg_catalog.->>) 'depth')::pg_catalog.int4 AS depth,
                       (e OPERATOR(pg_catalog.->>) 'iops')::pg_catalog.numeric AS iops
                  FROM pg_catalog.jsonb_array_elements(r.depths) AS e) AS knee,
       LATERAL (SELECT (e OPERATOR(pg_catalog.->>) 'depth')::pg_catalog.int4 AS depth,
                       (e OPERATOR(pg_catalog.->>) 'iops')::pg_catalog.numeric AS iops
                  FROM pg_catalog.jsonb_array_elements(r.depths) AS e
                 ORDER BY 2 DESC, 1 LIMIT 1) AS best,
       LATERAL (SELECT pg_catalog.max((e OPERATOR(pg_catalog.->>) 'depth')::pg_catalog.int4) AS depth
                  FROM pg_catalog.jsonb_array_elements(r.depths) AS e) AS deepest
 WHERE knee.depth OPERATOR(pg_catalog.=) r.knee
$$;

-- The latest figures of each kind, one row (NULLs when nothing was
-- measured), for people and for the recommender.  effective_io_concurrency
-- is the knee depth io_test() measured; a result without depths (recorded
-- by 0.1) falls back to the storage class's value, and the reason says
-- which.
CREATE VIEW pgbench_lab.storage_latest AS
SELECT f.id AS fsync_test_id,
       f.finished_at AS fsync_measured_at,
       f.results OPERATOR(pg_catalog.->>) 'wal_sync_method' AS wal_sync_method,
       cur.ops AS current_ops_per_second,
       best.method AS fastest_safe_method,
       best.ops AS fastest_safe_ops_per_second,
       fds.ops AS fdatasync_ops_per_second,
       i.id AS io_test_id,
       i.finished_at AS io_measured_at,
       i.size_bytes AS io_file_size,
       (i.results OPERATOR(pg_catalog.->>) 'write_mb_per_second')::pg_catalog.numeric AS write_mb_per_second,
       (i.results OPERATOR(pg_catalog.->>) 'read_mb_per_second')::pg_catalog.numeric AS read_mb_per_second,
       (i.results OPERATOR(pg_catalog.->>) 'random_read_iops')::pg_catalog.numeric AS random_read_iops,
       i.results OPERATOR(pg_catalog.->>) 'read_cache_bypass' AS read_cache_bypass,
       sc.storage_class,
       sc.random_page_cost,
       COALESCE(knee.depth, sc.effective_io_concurrency) AS effective_io_concurrency,
       CASE WHEN knee.depth IS NOT NULL
            THEN sc.reason OPERATOR(pg_catalog.||) '; ' OPERATOR(pg_catalog.||) knee.reason
            WHEN sc.reason IS NOT NULL
            THEN sc.reason OPERATOR(pg_catalog.||) pg_catalog.format(
                   '; effective_io_concurrency %s from the storage class: this io_test() result has no queue depths, a new io_test() would measure them',
                   sc.effective_io_concurrency) END AS storage_class_reason,
       i.results OPERATOR(pg_catalog.->) 'iops_by_depth' AS iops_by_depth,
       knee.depth AS knee_depth,
       knee.reason AS knee_reason
  FROM (VALUES (1)) AS one(x)
  LEFT JOIN LATERAL (
        SELECT t.* FROM pgbench_lab.storage_tests AS t
         WHERE t.kind OPERATOR(pg_catalog.=) 'fsync'
         ORDER BY t.id DESC LIMIT 1) AS f ON true
  LEFT JOIN LATERAL (
        SELECT t.* FROM pgbench_lab.storage_tests AS t
         WHERE t.kind OPERATOR(pg_catalog.=) 'io'
         ORDER BY t.id DESC LIMIT 1) AS i ON true
  LEFT JOIN LATERAL (
        SELECT (e OPERATOR(pg_catalog.->>) 'ops_per_second')::pg_catalog.numeric AS ops
          FROM pg_catalog.jsonb_array_elements(f.results OPERATOR(pg_catalog.->) 'methods') AS e
         WHERE (e OPERATOR(pg_catalog.->>) 'is_current')::pg_catalog.bool LIMIT 1) AS cur ON true
  LEFT JOIN LATERAL (
        SELECT e OPERATOR(pg_catalog.->>) 'method' AS method,
               (e OPERATOR(pg_catalog.->>) 'ops_per_second')::pg_catalog.numeric AS ops
          FROM pg_catalog.jsonb_array_elements(f.results OPERATOR(pg_catalog.->) 'methods') AS e
         WHERE (e OPERATOR(pg_catalog.->>) 'fastest_safe')::pg_catalog.bool LIMIT 1) AS best ON true
  LEFT JOIN LATERAL (
        SELECT (e OPERATOR(pg_catalog.->>) 'ops_per_second')::pg_catalog.numeric AS ops
          FROM pg_catalog.jsonb_array_elements(f.results OPERATOR(pg_catalog.->) 'methods') AS e
         WHERE e OPERATOR(pg_catalog.@>) '{"method": "fdatasync", "direct": false, "writes_per_sync": 1, "write_size": 8192}'::pg_catalog.jsonb
         LIMIT 1) AS fds ON true
  LEFT JOIN LATERAL pgbench_lab.storage_class(
        (i.results OPERATOR(pg_catalog.->>) 'random_read_iops')::pg_catalog.numeric) AS sc ON true
  LEFT JOIN LATERAL (
        SELECT (i.results OPERATOR(pg_catalog.->>) 'knee_depth')::pg_catalog.int4 AS depth,
               pgbench_lab_internal.io_knee_reason(i.results) AS reason
         WHERE sc.storage_class IS NOT NULL
           AND pg_catalog.jsonb_typeof(i.results OPERATOR(pg_catalog.->) 'knee_depth') OPERATOR(pg_catalog.=) 'number') AS knee ON true;
COMMENT ON VIEW pgbench_lab.storage_latest IS
    'pgbench_lab: latest fsync_test() and io_test() figures, the storage class they suggest and the measured effective_io_concurrency';
REVOKE ALL ON pgbench_lab.storage_latest FROM PUBLIC;
GRANT SELECT ON pgbench_lab.storage_latest TO pg_monitor;

-- ---------------------------------------------------------------------------
-- Small helpers shared by reports, plots, experiments and export: figures
-- formatted for reading, printable text, argument checks.
-- ---------------------------------------------------------------------------


-- A figure rounded for reading; '-' for a missing one; from 1e15 on (no
-- measured figure, but an imported document may hold up to 1e300) in
-- exponent notation, '1.0e+299', rather than in 300 digits.
CREATE FUNCTION pgbench_lab_internal.fmt(x double precision, digits integer DEFAULT 1)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN x IS NULL THEN '-'
                WHEN pg_catalog.abs(x) OPERATOR(pg_catalog.>=) 1e15 THEN trim(pg_catalog.to_char(x, '9.9EEEE'))
                ELSE pg_catalog.round(x::numeric, digits)::pg_catalog.text END
$$;

-- A float8 from a numeric computed with it, for ratios of figures that
-- float8 arithmetic would overflow or underflow on (an imported TPS of
-- 5e-324 against one of 1e5): beyond 1e300 it is cut to +-1e300, below
-- 1e-300 it is 0.
CREATE FUNCTION pgbench_lab_internal.to_float8(x numeric)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN x IS NULL THEN NULL
                WHEN pg_catalog.abs(x) OPERATOR(pg_catalog.>) 1e300 THEN pg_catalog.sign(x) OPERATOR(pg_catalog.*) 1e300
                WHEN pg_catalog.abs(x) OPERATOR(pg_catalog.<) 1e-300 THEN 0
                ELSE x END::pg_catalog.float8
$$;

-- a / b, NULL when b is 0 or either is NULL; computed in numeric, so any
-- two figures give a result (see to_float8).
CREATE FUNCTION pgbench_lab_internal.ratio(a double precision, b double precision)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN a IS NULL OR b IS NULL OR b OPERATOR(pg_catalog.=) 0 THEN NULL
                ELSE pgbench_lab_internal.to_float8(a::numeric OPERATOR(pg_catalog./) b::numeric) END
$$;

-- The change from old to new in percent, signed ('+76%'); '' when unknown.
-- Computed in numeric; a rise of a million percent or more reads
-- '>+999999%'.
CREATE FUNCTION pgbench_lab_internal.pct_change(new double precision, old double precision)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN p IS NULL THEN ''
                WHEN p OPERATOR(pg_catalog.>) 999999 THEN '>+999999%'
                WHEN p OPERATOR(pg_catalog.>=) 0 THEN '+' OPERATOR(pg_catalog.||) pg_catalog.round(p)::pg_catalog.text OPERATOR(pg_catalog.||) '%'
                ELSE pg_catalog.round(p)::pg_catalog.text OPERATOR(pg_catalog.||) '%' END
      FROM (SELECT CASE WHEN new IS NULL OR old IS NULL OR old OPERATOR(pg_catalog.=) 0 THEN NULL
                        ELSE (new::numeric OPERATOR(pg_catalog./) old::numeric OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.*) 100 END AS p) s
$$;

-- Stored text as it may be printed: every control character (U+0001 to
-- U+001F, U+007F to U+009F: a terminal escape sequence, a bell, a line
-- break that would forge a report line) shown as \xNN, its code in hex.
-- Labels, errors, settings, server names and workloads come from users
-- and from imported documents; report(), compare(), plot() and the
-- findings print them only through this.  Backslashes stay as they are.
CREATE FUNCTION pgbench_lab.printable(s text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF s OPERATOR(pg_catalog.!~) E'[\\x01-\\x1f\\x7f-\\x9f]' THEN
        RETURN s;
    END IF;
    RETURN (SELECT pg_catalog.string_agg(CASE WHEN c OPERATOR(pg_catalog.~) E'[\\x01-\\x1f\\x7f-\\x9f]'
                                   THEN E'\\x' OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(pg_catalog.ascii(c)), 2, '0') ELSE c END,
                              '' ORDER BY i)
              FROM pg_catalog.regexp_split_to_table(s, '') WITH ORDINALITY AS t(c, i));
END
$$;

-- '5 s', '0.5 s': a duration in seconds.
CREATE FUNCTION pgbench_lab_internal.seconds_text(d interval)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.trim_scale(extract(epoch FROM d))::pg_catalog.text OPERATOR(pg_catalog.||) ' s' $$;

-- '1 client', '4 clients'.
CREATE FUNCTION pgbench_lab_internal.clients_text(n integer)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT n OPERATOR(pg_catalog.||) CASE WHEN n OPERATOR(pg_catalog.=) 1 THEN ' client' ELSE ' clients' END $$;

-- How a run's clients reached the server, in the words reports use:
-- in-server figures have no network round trips; libpq figures do (and
-- name the server they went to; NULL target_display: this server).
CREATE FUNCTION pgbench_lab_internal.path_text(via text, target_display text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN via OPERATOR(pg_catalog.=) 'libpq'
                THEN 'over libpq, one connection per client, to ' OPERATOR(pg_catalog.||) coalesce(target_display, 'this server')
                WHEN via OPERATOR(pg_catalog.=) 'libpq-connect'
                THEN 'over libpq, a new connection per transaction, to ' OPERATOR(pg_catalog.||) coalesce(target_display, 'this server')
                ELSE 'in-server: no network round trips' END
$$;

-- Session settings as 'name=value, ...' in name order, printable.
CREATE FUNCTION pgbench_lab_internal.settings_text(settings jsonb)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab.printable(coalesce(pg_catalog.string_agg(key OPERATOR(pg_catalog.||) '=' OPERATOR(pg_catalog.||) value, ', ' ORDER BY key), '(none)'))
      FROM pg_catalog.jsonb_each_text(CASE WHEN pg_catalog.jsonb_typeof(settings) OPERATOR(pg_catalog.=) 'object' THEN settings END)
$$;

-- The name this server gives itself in exports: cluster_name if set, else
-- its system identifier (unique per initdb).
CREATE FUNCTION pgbench_lab_internal.server_name()
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(CASE WHEN pg_catalog.current_setting('cluster_name') OPERATOR(pg_catalog.<>) ''
                         THEN pg_catalog.current_setting('cluster_name') END,
                    'system ' OPERATOR(pg_catalog.||) (SELECT system_identifier::pg_catalog.text FROM pg_catalog.pg_control_system()))
$$;


-- here, which check, plan, link and judge.
-- ---------------------------------------------------------------------------

-- An array argument must be a list: a two-dimensional array would be
-- read element by element as if it were one (and array_position() refuses
-- it with a message about searching), so it is refused before anything.
CREATE FUNCTION pgbench_lab_internal.check_flat(ndims integer, what text, example text)
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF ndims OPERATOR(pg_catalog.>) 1 THEN
        RAISE EXCEPTION '% must be a one-dimensional array, not one of % dimensions', what, ndims
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = pg_catalog.format('Pass a plain list, for example %s.', example);
    END IF;
END
$$;

-- Errors for an id list: NULL, empty, a multidimensional array, NULL
-- elements, ids the caller cannot read.
CREATE FUNCTION pgbench_lab_internal.check_ids(ids bigint[], experiments_too boolean)
RETURNS void LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad pg_catalog.int8;
BEGIN
    IF ids IS NULL OR pg_catalog.cardinality(ids) OPERATOR(pg_catalog.=) 0 THEN
        RAISE EXCEPTION 'ids must not be null or empty'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass an array of run ids, for example ARRAY[41, 42].';
    END IF;
    PERFORM pgbench_lab_internal.check_flat(pg_catalog.array_ndims(ids), 'ids', 'ARRAY[41, 42]');
    IF pg_catalog.array_position(ids, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'ids must not contain null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass an array of run ids, for example ARRAY[41, 42].';
    END IF;
    SELECT i INTO bad FROM pg_catalog.unnest(ids) AS i
     WHERE NOT EXISTS (SELECT FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) i)
       AND NOT (experiments_too AND EXISTS (SELECT FROM pgbench_lab.experiments e
                                             WHERE e.experiment_id OPERATOR(pg_catalog.=) i))
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION '% % does not exist or is not visible to you',
            CASE WHEN experiments_too THEN 'run or experiment' ELSE 'run' END, bad
            USING ERRCODE = 'undefined_object',
                  HINT = 'pgbench_lab.runs and pgbench_lab.experiments list what you can read: your own, or all for members of pg_monitor.';
    END IF;
END
$$;

-- ---------------------------------------------------------------------------
-- Writing: pgbench_lab_internal.record() (C, src/results_record.c) switches to the
-- extension's owner and calls record_as() with the calling role, so the rows
-- a user's experiment or import makes are owned by that user and nobody
-- writes the tables directly.
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab_internal.record(action text, args jsonb)
RETURNS jsonb
LANGUAGE c VOLATILE
AS 'MODULE_PATHNAME', 'pgbench_lab_record';
COMMENT ON FUNCTION pgbench_lab_internal.record(text, jsonb) IS
    'Internal: write an experiment or an import as the extension owner, on behalf of the caller';

-- A jsonb number that is a whole number within [lo, hi], or NULL.
CREATE FUNCTION pgbench_lab_internal.json_int(v jsonb, lo numeric, hi numeric)
RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.jsonb_typeof(v) OPERATOR(pg_catalog.=) 'number' AND v::numeric OPERATOR(pg_catalog.=) pg_catalog.trunc(v::numeric)
                     AND v::numeric OPERATOR(pg_catalog.>=) lo AND v::numeric OPERATOR(pg_catalog.<=) hi
                THEN v::numeric::bigint END
$$;

-- Whether a running experiment's procedure has stopped without ending it:
-- its session is gone or idle, or has gone on to a statement and a
-- transaction that both began after the experiment did.  (A procedure's
-- CALL began before it, though the procedure commits between runs; several
-- statements of one transaction block share its start.)  A two-phase
-- experiment's second phase counts from resume()'s start.
CREATE FUNCTION pgbench_lab_internal.experiment_stopped(e pgbench_lab.experiments)
RETURNS boolean LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT e.status OPERATOR(pg_catalog.=) 'running' AND e.source_server IS NULL AND e.backend_pid IS NOT NULL
       AND NOT EXISTS (SELECT FROM pg_catalog.pg_stat_get_activity(e.backend_pid) a
                        WHERE a.backend_start OPERATOR(pg_catalog.=) e.backend_start AND a.state OPERATOR(pg_catalog.=) 'active'
                          AND (a.query_start OPERATOR(pg_catalog.<=) COALESCE(e.resumed_at, e.started_at)
                               OR a.xact_start OPERATOR(pg_catalog.<=) COALESCE(e.resumed_at, e.started_at)))
$$;

CREATE FUNCTION pgbench_lab_internal.experiment_begin_as(caller regrole, args jsonb)
RETURNS jsonb LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id pg_catalog.int8;
    kind pg_catalog.text := args OPERATOR(pg_catalog.->>) 'kind';
    proc pg_catalog.oid := (SELECT k.procedure::pg_catalog.oid FROM pgbench_lab.experiment_kinds k
                             WHERE k.kind OPERATOR(pg_catalog.=) (args OPERATOR(pg_catalog.->>) 'kind'));
BEGIN
    IF proc IS NULL THEN
        RAISE EXCEPTION 'unknown experiment kind "%"', kind
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'pgbench_lab.experiment_kinds lists the kinds.';
    END IF;
    IF NOT pg_catalog.has_function_privilege(caller::pg_catalog.oid, proc, 'EXECUTE') THEN
        RAISE EXCEPTION 'permission denied to record a % experiment', kind
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Experiments are recorded by the procedures that run them.';
    END IF;
    -- experiments whose procedure stopped (an error, a cancel, a lost
    -- session) are marked aborted as the next one begins
    UPDATE pgbench_lab.experiments e
       SET status = 'aborted', finished_at = pg_catalog.clock_timestamp()
     WHERE e.status OPERATOR(pg_catalog.=) 'running' AND pgbench_lab_internal.experiment_stopped(e);
    INSERT INTO pgbench_lab.experiments (kind, workload, label, params, owner, backend_pid, backend_start)
    VALUES (kind, args OPERATOR(pg_catalog.->>) 'workload', args OPERATOR(pg_catalog.->>) 'label',
            COALESCE(args OPERATOR(pg_catalog.->) 'params', '{}'), caller, pg_catalog.pg_backend_pid(),
            (SELECT a.backend_start FROM pg_catalog.pg_stat_get_activity(pg_catalog.pg_backend_pid()) a))
    RETURNING experiment_id INTO id;
    RETURN pg_catalog.jsonb_build_object('experiment_id', id);
END
$$;

-- The id of a running experiment of the caller, locked; an error otherwise.
CREATE FUNCTION pgbench_lab_internal.running_experiment_of(caller regrole, args jsonb)
RETURNS bigint LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    eid pg_catalog.int8 := pgbench_lab_internal.json_int(args OPERATOR(pg_catalog.->) 'experiment_id', 1, 9223372036854775807);
BEGIN
    PERFORM FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) eid AND e.status OPERATOR(pg_catalog.=) 'running' AND e.source_server IS NULL
       AND pg_catalog.pg_has_role(caller::pg_catalog.oid, e.owner::pg_catalog.oid, 'USAGE')
       FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'experiment % is not a running experiment of role %', eid, caller
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Only the procedure that started an experiment adds its runs and ends it.';
    END IF;
    RETURN eid;
END
$$;

-- Link a run to an experiment: the caller must own both.
CREATE FUNCTION pgbench_lab_internal.experiment_add_as(caller regrole, args jsonb)
RETURNS jsonb LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    eid pg_catalog.int8 := pgbench_lab_internal.running_experiment_of(caller, args);
    rid pg_catalog.int8 := pgbench_lab_internal.json_int(args OPERATOR(pg_catalog.->) 'run_id', 1, 9223372036854775807);
    n pg_catalog.int4;
BEGIN
    PERFORM FROM pgbench_lab.runs r
     WHERE r.run_id OPERATOR(pg_catalog.=) rid AND r.source_server IS NULL
       AND pg_catalog.pg_has_role(caller::pg_catalog.oid, r.owner::pg_catalog.oid, 'USAGE');
    IF NOT FOUND THEN
        RAISE EXCEPTION 'run % is not a run of role %', rid, caller
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'An experiment links only runs its owner made on this server.';
    END IF;
    SELECT pg_catalog.count(*) OPERATOR(pg_catalog.+) 1 INTO n FROM pgbench_lab.experiment_runs WHERE experiment_id OPERATOR(pg_catalog.=) eid;
    INSERT INTO pgbench_lab.experiment_runs (experiment_id, ordinal, run_id, variant, round)
    VALUES (eid, n, rid,
            coalesce(pgbench_lab_internal.json_int(args OPERATOR(pg_catalog.->) 'variant', 1, 2147483647), n),
            coalesce(pgbench_lab_internal.json_int(args OPERATOR(pg_catalog.->) 'round', 1, 2147483647), 1));
    RETURN pg_catalog.jsonb_build_object('ordinal', n);
END
$$;

-- Done if every run is done, else failed.
CREATE FUNCTION pgbench_lab_internal.experiment_end_as(caller regrole, args jsonb)
RETURNS jsonb LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    eid pg_catalog.int8 := pgbench_lab_internal.running_experiment_of(caller, args);
    st pg_catalog.text;
BEGIN
    UPDATE pgbench_lab.experiments e
       SET finished_at = pg_catalog.clock_timestamp(),
           status = CASE WHEN EXISTS (SELECT FROM pgbench_lab.experiment_runs x
                                        JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
                                       WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id
                                         AND r.status OPERATOR(pg_catalog.<>) 'done')
                         THEN 'failed' ELSE 'done' END
     WHERE e.experiment_id OPERATOR(pg_catalog.=) eid
    RETURNING e.status INTO st;
    RETURN pg_catalog.jsonb_build_object('status', st);
END
$$;


-- The only entry of record(): dispatch to the action, as the extension owner.
CREATE FUNCTION pgbench_lab_internal.record_as(caller regrole, action text, args jsonb)
RETURNS jsonb LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF action IS NULL OR NOT action OPERATOR(pg_catalog.=) ANY (ARRAY['experiment_begin', 'experiment_add', 'experiment_end', 'import']) THEN
        RAISE EXCEPTION 'unknown action "%"', action
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Valid actions are experiment_begin, experiment_add, experiment_end and import.';
    END IF;
    RETURN CASE WHEN action OPERATOR(pg_catalog.=) 'experiment_begin' THEN pgbench_lab_internal.experiment_begin_as(caller, args)
        WHEN action OPERATOR(pg_catalog.=) 'experiment_add' THEN pgbench_lab_internal.experiment_add_as(caller, args)
        WHEN action OPERATOR(pg_catalog.=) 'experiment_end' THEN pgbench_lab_internal.experiment_end_as(caller, args)
        ELSE pgbench_lab_internal.import_as(caller, args) END;
END
$$;

REVOKE ALL ON FUNCTION pgbench_lab_internal.record_as(regrole, text, jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab_internal.experiment_begin_as(regrole, jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab_internal.experiment_add_as(regrole, jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab_internal.experiment_end_as(regrole, jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab_internal.running_experiment_of(regrole, jsonb) FROM PUBLIC;
-- ---------------------------------------------------------------------------
-- Export and import.  The document (format "pgbench_lab export", version 1)
-- is described in README.md; import validates all of it before writing.
-- ---------------------------------------------------------------------------

-- True if s reads as a value of the type (timestamptz or interval).
CREATE FUNCTION pgbench_lab_internal.reads_as(s text, typ text)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF typ OPERATOR(pg_catalog.=) 'timestamptz' THEN
        PERFORM s::pg_catalog.timestamptz;
    ELSE
        PERFORM s::interval;
    END IF;
    RETURN true;
EXCEPTION WHEN data_exception THEN
    RETURN false;
END
$$;

-- The fields of each object of a document (version 1), with their kinds
-- for doc_check(): export writes the fields of 'run' and 'experiment' and
-- no others (a column another part adds to runs, such as a local snapshot
-- id, does not travel), import reads these.  Each kind holds what the
-- column's type and CHECK constraint hold (see doc_first_bad()), so that
-- the tables refuse nothing the validator passes.  The parameters of an
-- experiment are checked by its kind.
CREATE FUNCTION pgbench_lab_internal.doc_spec(what text)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN what OPERATOR(pg_catalog.=) 'run' THEN '{"run_id": "id!", "label": "text",
            "workload": "text!", "via": "via", "clients": "count!", "scale": "count",
            "duration": "interval", "transactions_per_client": "count8", "max_tries": "nonneg4!",
            "random_seed": "int", "started_at": "time!", "finished_at": "time",
            "status": "run_status!", "measured_seconds": "num", "transactions": "nonneg",
            "failures": "nonneg", "retries": "nonneg", "tps": "num", "latency_avg_ms": "num",
            "latency_stddev_ms": "num", "latency_p50_ms": "num", "latency_p90_ms": "num",
            "latency_p95_ms": "num", "latency_p99_ms": "num", "latency_max_ms": "num",
            "blks_hit": "nonneg", "blks_read": "nonneg", "hit_ratio": "ratio", "wal_bytes": "num",
            "checkpoints": "nonneg", "settings": "object", "system": "object", "error": "text",
            "source_server": "text", "source_run_id": "id", "target_display": "text",
            "connections": "nonneg", "connection_avg_ms": "num",
            "tps_without_connections": "num", "rate": "num", "latency_limit": "interval",
            "lag_avg_ms": "num", "lag_max_ms": "num", "late": "nonneg", "skipped": "nonneg",
            "scheduled": "nonneg", "rate_sustained": "bool", "variables": "object"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'progress' THEN '{"second": "count!", "interval_seconds": "num!",
            "transactions": "nonneg!", "tps": "num!", "latency_avg_ms": "num",
            "latency_max_ms": "num", "failures": "nonneg!", "hit_ratio": "ratio",
            "lag_avg_ms": "num", "lag_max_ms": "num", "late": "nonneg", "skipped": "nonneg"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'latency' THEN '{"bucket_upper_us": "num!", "count": "nonneg!"}'::pg_catalog.jsonb
        -- where the time went (0.2): per second; the counters are deltas,
        -- negative when the server's statistics were reset during the run
        WHEN what OPERATOR(pg_catalog.=) 'telemetry' THEN '{"second": "count!", "interval_seconds": "num!",
            "cpu_user_pct": "num", "cpu_system_pct": "num", "cpu_iowait_pct": "num", "cpu_steal_pct": "num",
            "cpu_idle_pct": "num", "run_cpu_seconds": "num", "checkpoints": "int", "buffers_checkpoint": "int",
            "buffers_clean": "int", "buffers_backend": "int", "wal_records": "int", "wal_fpi": "int",
            "wal_bytes": "num", "wait_samples": "nonneg4!", "waits": "object", "temp_files": "int",
            "temp_bytes": "int", "disk_reads": "int", "disk_read_bytes": "int", "disk_writes": "int",
            "disk_write_bytes": "int", "disk_busy_pct": "num"}'::pg_catalog.jsonb
        -- each standby's lag per second (0.2), for a run on a primary
        WHEN what OPERATOR(pg_catalog.=) 'replication' THEN '{"second": "count!", "standby": "text!",
            "client_addr": "text", "state": "text", "sync_state": "text", "sent_lag_bytes": "num",
            "write_lag_bytes": "num", "flush_lag_bytes": "num", "replay_lag_bytes": "num",
            "write_lag_ms": "num", "flush_lag_ms": "num", "replay_lag_ms": "num"}'::pg_catalog.jsonb
        -- a libpq run's servers (0.2): each target's facts and figures
        WHEN what OPERATOR(pg_catalog.=) 'target' THEN '{"target": "count!", "target_display": "text!",
            "server_version": "text", "in_recovery": "bool", "settings": "object", "clients": "count!",
            "clients_failed": "nonneg4", "transactions": "nonneg", "failures": "nonneg", "tps": "num",
            "latency_avg_ms": "num", "error": "text", "scripts": "array", "system": "object",
            "conflicts": "int", "conflicts_by_kind": "object", "first_client": "count",
            "system_note": "text", "conflicts_error": "text"}'::pg_catalog.jsonb
        -- a run of scripts (0.2): its scripts, each with its commands
        WHEN what OPERATOR(pg_catalog.=) 'script' THEN '{"script": "count!", "name": "text!", "weight": "nonneg4!",
            "body": "text!", "owner": "text", "transactions": "nonneg", "latency_avg_ms": "num", "failures": "nonneg",
            "retries": "nonneg"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'command' THEN '{"command": "count!", "line": "count!", "kind": "text!",
            "command_text": "text!", "executions": "nonneg", "latency_avg_ms": "num", "failures": "nonneg",
            "retries": "nonneg"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'experiment' THEN '{"experiment_id": "id!", "kind": "kind!", "workload": "text!",
            "label": "text", "params": "object!", "started_at": "time!", "finished_at": "time",
            "status": "exp_status!", "source_server": "text", "source_experiment_id": "id"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'experiment_run' THEN '{"run_id": "id!", "ordinal": "count!", "variant": "count!",
            "round": "count!"}'::pg_catalog.jsonb
        -- params, by kind
        WHEN what OPERATOR(pg_catalog.=) 'sweep' THEN '{"clients": "array!", "duration": "interval", "settings": "object",
            "scripts": "array", "variables": "object",
            "knee_threshold": "share"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'compare_settings' THEN '{"settings": "array!", "clients": "count!",
            "duration": "interval", "rounds": "count!", "scripts": "array", "variables": "object",
            "rate": "num", "latency_limit": "interval", "restart_settings": "object"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'cold_vs_warm' THEN '{"clients": "count!", "duration": "interval",
            "relations": "array", "relids": "array", "scripts": "array", "variables": "object"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'connection_cost' THEN '{"clients": "count!", "duration": "interval",
            "rounds": "count", "settings": "array", "scripts": "array", "variables": "object"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'latency_curve' THEN '{"clients": "count!", "duration": "interval",
            "target_ms": "num!", "percentile": "share!", "rates": "array", "shares": "array",
            "scripts": "array", "variables": "object"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'validate_recommendation' THEN '{"settings": "array!", "groups": "array!",
            "changes": "array!", "clients": "count!", "duration": "interval", "rounds": "count!"}'::pg_catalog.jsonb
        END
$$;

-- The fields of a row that the document carries.
CREATE FUNCTION pgbench_lab_internal.doc_fields(row_doc jsonb, what text)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.jsonb_object_agg(r.key, r.value), '{}')
      FROM pg_catalog.jsonb_each(row_doc) r
     WHERE pgbench_lab_internal.doc_spec(what) OPERATOR(pg_catalog.?) r.key
$$;

-- Every complaint about a document has the same shape and hint.
CREATE FUNCTION pgbench_lab_internal.doc_invalid(problem text)
RETURNS void LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RAISE EXCEPTION 'invalid export document: %', problem
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Pass a document made by pgbench_lab.export(); the format is described in the README.';
END
$$;

-- The first problem of the elements of arr (an array of objects) against
-- spec {"key": "kind[!]"} ('!' = required), in the order of the elements
-- and then of the keys: the element's index (from 0), the key (NULL when
-- the element is no object) and what is wrong.  No row: no problem.
--
-- One query over every element and key, the kinds written out in it: a
-- function call per value would cost more than the checks (a run can have
-- tens of thousands of progress rows).  The kinds are the tables' column
-- types and CHECK constraints: whole numbers within integer or bigint
-- (count, count8, id, int, nonneg, nonneg4, oid), double precision (num:
-- under 1e300 and not so small that it would read as 0; ratio: also 0 to
-- 1; share: above 0 and below 1), timestamps and intervals that PostgreSQL reads, booleans, and the values the
-- CHECK constraints allow (run_status, exp_status, kind, via).
CREATE FUNCTION pgbench_lab_internal.doc_first_bad(arr jsonb, spec jsonb,
                                          OUT i bigint, OUT key text, OUT problem text)
RETURNS SETOF record LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH x AS (
        -- the kinds in the order they were defined
        SELECT ARRAY(SELECT k.kind FROM pgbench_lab.experiment_kinds k
                      ORDER BY k.procedure::pg_catalog.oid) AS kinds),
    s AS MATERIALIZED (
        SELECT f.key, f.want OPERATOR(pg_catalog.~~) '%!' AS required, k.*
          FROM x CROSS JOIN pg_catalog.jsonb_each_text(spec) AS f(key, want)
          JOIN LATERAL (VALUES
                ('text', false, false, NULL::numeric, NULL::numeric, NULL::pg_catalog.text[], 'a string'),
                ('object', false, false, NULL, NULL, NULL, 'an object'),
                ('bool', false, false, NULL, NULL, NULL, 'true or false'),
                ('array', false, false, NULL, NULL, NULL, 'an array'),
                ('time', false, false, NULL, NULL, NULL, 'a timestamp'),
                ('interval', false, false, NULL, NULL, NULL, 'an interval'),
                ('num', true, false, NULL, NULL, NULL, 'a number'),
                ('ratio', true, false, 0, 1, NULL, 'a number from 0 to 1'),
                ('share', true, false, 0, 1, NULL, 'a number above 0 and below 1'),
                ('int', true, true, -9223372036854775808, 9223372036854775807, NULL, 'a whole number'),
                ('nonneg', true, true, 0, 9223372036854775807, NULL, 'a whole number of 0 or more'),
                ('nonneg4', true, true, 0, 2147483647, NULL, 'a whole number from 0 to 2147483647'),
                ('count', true, true, 1, 2147483647, NULL, 'a whole number from 1 to 2147483647'),
                ('count8', true, true, 1, 9223372036854775807, NULL,
                 'a whole number from 1 to 9223372036854775807'),
                ('id', true, true, 1, 9223372036854775807, NULL, 'a positive whole number'),
                ('oid', true, true, 0, 4294967295, NULL, 'a whole number from 0 to 4294967295'),
                ('run_status', false, false, NULL, NULL, ARRAY['done', 'cancelled', 'failed', 'aborted'],
                 'one of done, cancelled, failed, aborted'),
                ('exp_status', false, false, NULL, NULL, ARRAY['done', 'failed', 'aborted'],
                 'one of done, failed, aborted'),
                ('kind', false, false, NULL, NULL, x.kinds,
                 'one of ' OPERATOR(pg_catalog.||) pg_catalog.array_to_string(x.kinds, ', ')),
                ('via', false, false, NULL, NULL, ARRAY['spi', 'libpq', 'libpq-connect'],
                 'one of spi, libpq, libpq-connect'))
            AS k(kind, is_number, whole, lo, hi, vals, descr)
            ON k.kind OPERATOR(pg_catalog.=) pg_catalog.rtrim(f.want, '!')),
    e AS (
        SELECT a.elem, a.n OPERATOR(pg_catalog.-) 1 AS i FROM pg_catalog.jsonb_array_elements(arr) WITH ORDINALITY AS a(elem, n)),
    b AS (
        SELECT e.i, NULL::pg_catalog.text AS key, 'must be an object' AS problem
          FROM e WHERE pg_catalog.jsonb_typeof(e.elem) OPERATOR(pg_catalog.<>) 'object'
        UNION ALL
        SELECT e.i, s.key,
               CASE WHEN v.v IS NULL OR pg_catalog.jsonb_typeof(v.v) OPERATOR(pg_catalog.=) 'null'
                    THEN CASE WHEN s.required THEN 'is missing' END
                    WHEN s.is_number THEN
                        CASE WHEN pg_catalog.jsonb_typeof(v.v) OPERATOR(pg_catalog.<>) 'number' THEN 'is not ' OPERATOR(pg_catalog.||) s.descr
                             WHEN NOT s.whole AND NOT (pg_catalog.abs(v.v::numeric) OPERATOR(pg_catalog.<) 1e300
                                                       AND (v.v::numeric OPERATOR(pg_catalog.=) 0 OR pg_catalog.abs(v.v::numeric) OPERATOR(pg_catalog.>=) 2.5e-324))
                             THEN 'is out of range for double precision'
                             WHEN s.whole AND v.v::numeric OPERATOR(pg_catalog.<>) pg_catalog.trunc(v.v::numeric) THEN 'is not ' OPERATOR(pg_catalog.||) s.descr
                             WHEN s.kind OPERATOR(pg_catalog.=) 'share'
                                  AND v.v::numeric OPERATOR(pg_catalog.=) ANY (ARRAY[0, 1]::numeric[])
                             THEN 'is not ' OPERATOR(pg_catalog.||) s.descr
                             WHEN v.v::numeric OPERATOR(pg_catalog.<) coalesce(s.lo, v.v::numeric)
                                  OR v.v::numeric OPERATOR(pg_catalog.>) coalesce(s.hi, v.v::numeric)
                             THEN 'is not ' OPERATOR(pg_catalog.||) s.descr END
                    WHEN NOT CASE WHEN pg_catalog.jsonb_typeof(v.v) OPERATOR(pg_catalog.<>) CASE WHEN s.kind OPERATOR(pg_catalog.=) 'object' THEN 'object'
                                                                        WHEN s.kind OPERATOR(pg_catalog.=) 'array' THEN 'array'
                                                                        WHEN s.kind OPERATOR(pg_catalog.=) 'bool' THEN 'boolean'
                                                                        ELSE 'string' END
                                  THEN false
                                  WHEN s.vals IS NOT NULL THEN (v.v OPERATOR(pg_catalog.#>>) '{}') OPERATOR(pg_catalog.=) ANY (s.vals)
                                  WHEN s.kind OPERATOR(pg_catalog.=) 'time' THEN pgbench_lab_internal.reads_as(v.v OPERATOR(pg_catalog.#>>) '{}', 'timestamptz')
                                  WHEN s.kind OPERATOR(pg_catalog.=) 'interval' THEN pgbench_lab_internal.reads_as(v.v OPERATOR(pg_catalog.#>>) '{}', 'interval')
                                  ELSE true END
                    THEN 'is not ' OPERATOR(pg_catalog.||) s.descr END
          FROM e CROSS JOIN s
          CROSS JOIN LATERAL (SELECT e.elem OPERATOR(pg_catalog.->) s.key) AS v(v)
         WHERE pg_catalog.jsonb_typeof(e.elem) OPERATOR(pg_catalog.=) 'object')
    SELECT b.i, b.key, b.problem FROM b
     WHERE b.problem IS NOT NULL
     ORDER BY b.i, b.key NULLS FIRST
     LIMIT 1
$$;

-- Check one object of the document against a spec; the first bad field
-- raises an error naming its path.
CREATE FUNCTION pgbench_lab_internal.doc_check(obj jsonb, spec jsonb, path text)
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad pg_catalog.record;
BEGIN
    SELECT * INTO bad FROM pgbench_lab_internal.doc_first_bad(pg_catalog.jsonb_build_array(obj), spec);
    IF FOUND THEN
        PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s%s %s', path,
            CASE WHEN coalesce(bad.key, '') OPERATOR(pg_catalog.=) '' THEN '' ELSE '.' OPERATOR(pg_catalog.||) bad.key END, bad.problem));
    END IF;
END
$$;

-- Every element of the array arr checked against spec, and the values of
-- each key in uniq unique among them (numbers compared as numbers; the
-- kind num as double precision, as the tables store it).  The first
-- problem, in the order of the elements, raises an error naming its path.
CREATE FUNCTION pgbench_lab_internal.doc_check_each(arr jsonb, spec jsonb, path text, uniq text[])
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad pg_catalog.record;
    dup pg_catalog.record;
BEGIN
    IF (pg_catalog.jsonb_typeof(arr) OPERATOR(pg_catalog.=) 'array') IS NOT TRUE THEN
        PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s must be an array', path));
    END IF;
    SELECT * INTO bad FROM pgbench_lab_internal.doc_first_bad(arr, spec);
    -- the elements before the first bad one are sound: their values cast
    SELECT d.i, d.key, d.val INTO dup
      FROM (SELECT a.n OPERATOR(pg_catalog.-) 1 AS i, k.key, a.elem OPERATOR(pg_catalog.->>) k.key AS val,
                   pg_catalog.row_number() OVER (PARTITION BY k.key,
                       CASE WHEN pg_catalog.rtrim(spec OPERATOR(pg_catalog.->>) k.key, '!') OPERATOR(pg_catalog.=) 'num'
                            THEN pg_catalog.to_jsonb((a.elem OPERATOR(pg_catalog.->>) k.key)::pg_catalog.float8) ELSE a.elem OPERATOR(pg_catalog.->) k.key END
                       ORDER BY a.n) AS dups
              FROM pg_catalog.jsonb_array_elements(arr) WITH ORDINALITY AS a(elem, n)
             CROSS JOIN pg_catalog.unnest(uniq) AS k(key)
             WHERE a.n OPERATOR(pg_catalog.-) 1 OPERATOR(pg_catalog.<) coalesce(bad.i, 9223372036854775807)
               AND (pg_catalog.jsonb_typeof(a.elem OPERATOR(pg_catalog.->) k.key) OPERATOR(pg_catalog.=) 'null') IS NOT TRUE
               AND a.elem OPERATOR(pg_catalog.->) k.key IS NOT NULL) d
     WHERE d.dups OPERATOR(pg_catalog.>) 1
     ORDER BY d.i, d.key
     LIMIT 1;
    IF dup.i IS NOT NULL THEN
        RAISE EXCEPTION 'invalid export document: %[%]% % appears twice', path, dup.i,
                        CASE WHEN dup.key OPERATOR(pg_catalog.=) '' THEN '' ELSE '.' OPERATOR(pg_catalog.||) dup.key END, dup.val
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Each run, progress second, latency bucket, target of a run, experiment, ordinal, run of an experiment and sweep client count appears once.';
    END IF;
    IF bad.i IS NOT NULL THEN
        PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s[%s]%s %s', path, bad.i,
            CASE WHEN coalesce(bad.key, '') OPERATOR(pg_catalog.=) '' THEN '' ELSE '.' OPERATOR(pg_catalog.||) bad.key END, bad.problem));
    END IF;
END
$$;

-- [v1, v2] as [{"": v1}, {"": v2}], to check array elements with doc_check_each.
CREATE FUNCTION pgbench_lab_internal.json_wrap(arr jsonb)
RETURNS jsonb LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.jsonb_typeof(arr) OPERATOR(pg_catalog.=) 'array'
                THEN coalesce((SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('', v) ORDER BY i)
                                 FROM pg_catalog.jsonb_array_elements(arr) WITH ORDINALITY AS a(v, i)), '[]') END
$$;

-- The parameters of an experiment of the document, by its kind, and the
-- variants its runs may have (reports name them: A, B... for settings
-- sets, cold/OS-warm/warm); path is the experiment's.
CREATE FUNCTION pgbench_lab_internal.doc_check_params(e jsonb, path text)
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    kind pg_catalog.text := e OPERATOR(pg_catalog.->>) 'kind';
    params pg_catalog.jsonb := e OPERATOR(pg_catalog.->) 'params';
    sets pg_catalog.int4;
    fewest pg_catalog.int4 := CASE WHEN kind OPERATOR(pg_catalog.=) ANY (ARRAY['compare_settings', 'validate_recommendation'])
                                   THEN 2 ELSE 1 END;
    variants pg_catalog.int4;
    bad pg_catalog.int8;
BEGIN
    PERFORM pgbench_lab_internal.doc_check(params, pgbench_lab_internal.doc_spec(kind), path OPERATOR(pg_catalog.||) '.params');
    IF kind OPERATOR(pg_catalog.=) 'sweep' THEN
        PERFORM pgbench_lab_internal.doc_check_each(pgbench_lab_internal.json_wrap(params OPERATOR(pg_catalog.->) 'clients'), '{"": "count!"}',
                                           path OPERATOR(pg_catalog.||) '.params.clients', '{""}');
        variants := pg_catalog.jsonb_array_length(params OPERATOR(pg_catalog.->) 'clients');
    ELSIF kind OPERATOR(pg_catalog.=) 'cold_vs_warm' THEN
        IF pg_catalog.jsonb_typeof(params OPERATOR(pg_catalog.->) 'relations') OPERATOR(pg_catalog.=) 'array' THEN
            PERFORM pgbench_lab_internal.doc_check_each(pgbench_lab_internal.json_wrap(params OPERATOR(pg_catalog.->) 'relations'), '{"": "text!"}',
                                               path OPERATOR(pg_catalog.||) '.params.relations', '{}');
        END IF;
        IF pg_catalog.jsonb_typeof(params OPERATOR(pg_catalog.->) 'relids') OPERATOR(pg_catalog.=) 'array' THEN
            PERFORM pgbench_lab_internal.doc_check_each(pgbench_lab_internal.json_wrap(params OPERATOR(pg_catalog.->) 'relids'), '{"": "oid!"}',
                                               path OPERATOR(pg_catalog.||) '.params.relids', '{}');
        END IF;
        variants := 3;      -- cold, OS-warm, warm
    ELSIF kind OPERATOR(pg_catalog.=) 'latency_curve' THEN
        IF (params OPERATOR(pg_catalog.?) 'rates') OPERATOR(pg_catalog.=) (params OPERATOR(pg_catalog.?) 'shares') THEN
            PERFORM pgbench_lab_internal.doc_invalid(path OPERATOR(pg_catalog.||) '.params holds rates or shares, one of them');
        END IF;
        PERFORM pgbench_lab_internal.doc_check_each(
            pgbench_lab_internal.json_wrap(coalesce(params OPERATOR(pg_catalog.->) 'rates', params OPERATOR(pg_catalog.->) 'shares')),
            '{"": "num!"}', path OPERATOR(pg_catalog.||) '.params.' OPERATOR(pg_catalog.||)
                            CASE WHEN params OPERATOR(pg_catalog.?) 'rates' THEN 'rates' ELSE 'shares' END, '{""}');
        variants := 1 OPERATOR(pg_catalog.+) pg_catalog.jsonb_array_length(coalesce(params OPERATOR(pg_catalog.->) 'rates',
                                                                          params OPERATOR(pg_catalog.->) 'shares'));
    ELSE
        -- compare_settings, connection_cost, validate_recommendation: sets
        -- of settings (for connection_cost the three paths), named A, B...
        IF pg_catalog.jsonb_typeof(params OPERATOR(pg_catalog.->) 'settings') OPERATOR(pg_catalog.=) 'array' THEN
            PERFORM pgbench_lab_internal.doc_check_each(pgbench_lab_internal.json_wrap(params OPERATOR(pg_catalog.->) 'settings'), '{"": "object!"}',
                                               path OPERATOR(pg_catalog.||) '.params.settings', '{}');
            sets := pg_catalog.jsonb_array_length(params OPERATOR(pg_catalog.->) 'settings');
            IF sets OPERATOR(pg_catalog.<) fewest OR sets OPERATOR(pg_catalog.>) 26 THEN
                PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s.params.settings holds %s set(s), not %s to 26',
                                                       path, sets, fewest));
            END IF;
        END IF;
        variants := coalesce(sets, 3);
    END IF;
    SELECT x.n OPERATOR(pg_catalog.-) 1 INTO bad FROM pg_catalog.jsonb_array_elements(e OPERATOR(pg_catalog.->) 'runs') WITH ORDINALITY AS x(r, n)
     WHERE (x.r OPERATOR(pg_catalog.->>) 'variant')::numeric OPERATOR(pg_catalog.>) variants
     ORDER BY x.n LIMIT 1;
    IF FOUND THEN
        PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s.runs[%s].variant is not from 1 to %s (the %s of the experiment)',
            path, bad, variants, CASE WHEN kind OPERATOR(pg_catalog.=) 'sweep' THEN 'client counts'
                                           WHEN kind OPERATOR(pg_catalog.=) 'cold_vs_warm' THEN 'cold, OS-warm and warm runs'
                                           WHEN kind OPERATOR(pg_catalog.=) 'latency_curve' THEN 'the maximum and the rates'
                                           ELSE 'sets of settings' END));
    END IF;
END
$$;

CREATE FUNCTION pgbench_lab_internal.doc_validate(doc jsonb)
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r pg_catalog.record;
    missing pg_catalog.int8;
BEGIN
    IF doc IS NULL OR pg_catalog.jsonb_typeof(doc) OPERATOR(pg_catalog.=) 'null' THEN
        RAISE EXCEPTION 'export document must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass a document made by pgbench_lab.export(); the format is described in the README.';
    END IF;
    PERFORM pgbench_lab_internal.doc_check(doc, '{"format": "text!", "version": "count!", "server": "object!",
        "runs": "array!", "experiments": "array", "exported_at": "time"}', '$');
    IF doc OPERATOR(pg_catalog.->>) 'format' OPERATOR(pg_catalog.<>) 'pgbench_lab export' OR doc OPERATOR(pg_catalog.->) 'version' OPERATOR(pg_catalog.<>) '1' THEN
        RAISE EXCEPTION 'unsupported export document: format "%" version %',
                        pgbench_lab.printable(doc OPERATOR(pg_catalog.->>) 'format'), doc OPERATOR(pg_catalog.->) 'version'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'This version of pgbench_lab reads format "pgbench_lab export" version 1.';
    END IF;
    PERFORM pgbench_lab_internal.doc_check(doc OPERATOR(pg_catalog.->) 'server', '{"name": "text!", "server_version": "text"}', '$.server');
    PERFORM pgbench_lab_internal.doc_check_each(doc OPERATOR(pg_catalog.->) 'runs', pgbench_lab_internal.doc_spec('run')
        OPERATOR(pg_catalog.||) '{"progress": "array!", "latency": "array!", "scripts": "array", "telemetry": "array", "replication": "array", "targets": "array"}', '$.runs', '{run_id}');
    FOR r IN SELECT a.elem, a.n OPERATOR(pg_catalog.-) 1 AS i
               FROM pg_catalog.jsonb_array_elements(doc OPERATOR(pg_catalog.->) 'runs') WITH ORDINALITY AS a(elem, n) LOOP
        PERFORM pgbench_lab_internal.doc_check_each(r.elem OPERATOR(pg_catalog.->) 'progress', pgbench_lab_internal.doc_spec('progress'),
                                           pg_catalog.format('$.runs[%s].progress', r.i), '{second}');
        PERFORM pgbench_lab_internal.doc_check_each(r.elem OPERATOR(pg_catalog.->) 'latency', pgbench_lab_internal.doc_spec('latency'),
                                           pg_catalog.format('$.runs[%s].latency', r.i), '{bucket_upper_us}');
        IF r.elem OPERATOR(pg_catalog.?) 'telemetry' THEN
            PERFORM pgbench_lab_internal.doc_check_each(r.elem OPERATOR(pg_catalog.->) 'telemetry', pgbench_lab_internal.doc_spec('telemetry'),
                                               pg_catalog.format('$.runs[%s].telemetry', r.i), '{second}');
            PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('$.runs[%s].telemetry[%s].waits: each wait event needs a whole number of samples (0 to 999999999)',
                                                                       r.i, t.n OPERATOR(pg_catalog.-) 1))
               FROM pg_catalog.jsonb_array_elements(r.elem OPERATOR(pg_catalog.->) 'telemetry') WITH ORDINALITY AS t(x, n)
              WHERE pg_catalog.jsonb_typeof(t.x OPERATOR(pg_catalog.->) 'waits') OPERATOR(pg_catalog.=) 'object'
                AND EXISTS (SELECT FROM pg_catalog.jsonb_each(t.x OPERATOR(pg_catalog.->) 'waits') AS w
                             WHERE NOT (pg_catalog.jsonb_typeof(w.value) OPERATOR(pg_catalog.=) 'number'
                                        AND w.value::pg_catalog.text OPERATOR(pg_catalog.~) '^[0-9]{1,9}$'));
        END IF;
        IF r.elem OPERATOR(pg_catalog.?) 'replication' THEN
            PERFORM pgbench_lab_internal.doc_check_each(r.elem OPERATOR(pg_catalog.->) 'replication', pgbench_lab_internal.doc_spec('replication'),
                                               pg_catalog.format('$.runs[%s].replication', r.i), '{}');
            PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('$.runs[%s].replication: second %s of standby %s appears more than once',
                                                                       r.i, d.second, pgbench_lab.printable(d.standby)))
               FROM (SELECT t.x OPERATOR(pg_catalog.->>) 'second' AS second, t.x OPERATOR(pg_catalog.->>) 'standby' AS standby
                       FROM pg_catalog.jsonb_array_elements(r.elem OPERATOR(pg_catalog.->) 'replication') AS t(x)
                      GROUP BY 1, 2 HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 1 LIMIT 1) d;
        END IF;
        IF r.elem OPERATOR(pg_catalog.?) 'targets' THEN
            PERFORM pgbench_lab_internal.doc_check_each(r.elem OPERATOR(pg_catalog.->) 'targets', pgbench_lab_internal.doc_spec('target'),
                                               pg_catalog.format('$.runs[%s].targets', r.i), '{target}');
        END IF;
        IF r.elem OPERATOR(pg_catalog.?) 'scripts' THEN
            PERFORM pgbench_lab_internal.doc_check_each(r.elem OPERATOR(pg_catalog.->) 'scripts',
                                               pgbench_lab_internal.doc_spec('script') OPERATOR(pg_catalog.||) '{"commands": "array!"}',
                                               pg_catalog.format('$.runs[%s].scripts', r.i), '{script}');
            PERFORM pgbench_lab_internal.doc_check_each(x.s OPERATOR(pg_catalog.->) 'commands', pgbench_lab_internal.doc_spec('command'),
                                               pg_catalog.format('$.runs[%s].scripts[%s].commands', r.i, x.n OPERATOR(pg_catalog.-) 1), '{command}')
              FROM pg_catalog.jsonb_array_elements(r.elem OPERATOR(pg_catalog.->) 'scripts') WITH ORDINALITY AS x(s, n);
        END IF;
    END LOOP;
    IF NOT doc OPERATOR(pg_catalog.?) 'experiments' THEN
        RETURN;
    END IF;
    PERFORM pgbench_lab_internal.doc_check_each(doc OPERATOR(pg_catalog.->) 'experiments', pgbench_lab_internal.doc_spec('experiment')
        OPERATOR(pg_catalog.||) '{"runs": "array!"}', '$.experiments', '{experiment_id}');
    -- the first experiment that names a run the document does not hold
    SELECT e.n OPERATOR(pg_catalog.-) 1 INTO missing
      FROM pg_catalog.jsonb_array_elements(doc OPERATOR(pg_catalog.->) 'experiments') WITH ORDINALITY AS e(elem, n)
     WHERE EXISTS (SELECT FROM pg_catalog.jsonb_array_elements(e.elem OPERATOR(pg_catalog.->) 'runs') x
                    WHERE pg_catalog.jsonb_typeof(x) OPERATOR(pg_catalog.=) 'object'
                      AND NOT EXISTS (SELECT FROM pg_catalog.jsonb_array_elements(doc OPERATOR(pg_catalog.->) 'runs') d
                                       WHERE (d OPERATOR(pg_catalog.->) 'run_id') OPERATOR(pg_catalog.=) (x OPERATOR(pg_catalog.->) 'run_id')))
     ORDER BY e.n LIMIT 1;
    FOR r IN SELECT a.elem, a.n OPERATOR(pg_catalog.-) 1 AS i
               FROM pg_catalog.jsonb_array_elements(doc OPERATOR(pg_catalog.->) 'experiments') WITH ORDINALITY AS a(elem, n) LOOP
        PERFORM pgbench_lab_internal.doc_check_each(r.elem OPERATOR(pg_catalog.->) 'runs', pgbench_lab_internal.doc_spec('experiment_run'),
                                           pg_catalog.format('$.experiments[%s].runs', r.i), '{ordinal,run_id}');
        PERFORM pgbench_lab_internal.doc_check_params(r.elem, pg_catalog.format('$.experiments[%s]', r.i));
        IF r.i OPERATOR(pg_catalog.=) missing THEN
            PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('$.experiments[%s] names a run that is not in $.runs', r.i));
        END IF;
    END LOOP;
END
$$;

-- Import as caller: new local ids, source server and source ids kept.
-- Set-based: each table is written by one statement for the whole
-- document, whatever its size.  The new ids are drawn first, in the order
-- of the document (runs, then experiments), so that progress, histograms
-- and experiments can refer to them.
CREATE FUNCTION pgbench_lab_internal.import_as(caller regrole, doc jsonb)
RETURNS jsonb LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    src pg_catalog.text;
    ids pg_catalog.jsonb;
    out_runs pg_catalog.jsonb;
    out_experiments pg_catalog.jsonb;
BEGIN
    IF NOT pg_catalog.has_function_privilege(caller::pg_catalog.oid, 'pgbench_lab.import(jsonb)', 'EXECUTE') THEN
        RAISE EXCEPTION 'permission denied for function import'
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'A superuser can GRANT EXECUTE ON FUNCTION pgbench_lab.import(jsonb).';
    END IF;
    PERFORM pgbench_lab_internal.doc_validate(doc);
    src := doc OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->>) 'name';
    -- numbers are read through numeric: a document may write 2 as 2.0
    WITH d AS MATERIALIZED (
        SELECT a.r, a.n, (a.r OPERATOR(pg_catalog.->>) 'run_id')::numeric::bigint AS source_id,
               pg_catalog.nextval('pgbench_lab.runs_run_id_seq'::pg_catalog.regclass) AS new_id
          FROM pg_catalog.jsonb_array_elements(doc OPERATOR(pg_catalog.->) 'runs') WITH ORDINALITY AS a(r, n)
         ORDER BY a.n),
    runs AS (
        INSERT INTO pgbench_lab.runs (run_id, label, workload, via, clients,
            scale, duration, transactions_per_client, max_tries, random_seed, started_at, finished_at,
            status, measured_seconds, transactions, failures, retries, tps, latency_avg_ms,
            latency_stddev_ms, latency_p50_ms, latency_p90_ms, latency_p95_ms, latency_p99_ms,
            latency_max_ms, blks_hit, blks_read, hit_ratio, wal_bytes, checkpoints, settings,
            system, owner, error, source_server, source_run_id, imported_at, target_display,
            connections, connection_avg_ms, tps_without_connections, rate, latency_limit,
            lag_avg_ms, lag_max_ms, late, skipped, scheduled, rate_sustained, variables)
        OVERRIDING SYSTEM VALUE
        SELECT d.new_id, r OPERATOR(pg_catalog.->>) 'label', r OPERATOR(pg_catalog.->>) 'workload', coalesce(r OPERATOR(pg_catalog.->>) 'via', 'spi'),
               (r OPERATOR(pg_catalog.->>) 'clients')::numeric::integer, (r OPERATOR(pg_catalog.->>) 'scale')::numeric::integer,
               (r OPERATOR(pg_catalog.->>) 'duration')::interval, (r OPERATOR(pg_catalog.->>) 'transactions_per_client')::numeric::bigint,
               (r OPERATOR(pg_catalog.->>) 'max_tries')::numeric::integer, (r OPERATOR(pg_catalog.->>) 'random_seed')::numeric::bigint,
               (r OPERATOR(pg_catalog.->>) 'started_at')::pg_catalog.timestamptz, (r OPERATOR(pg_catalog.->>) 'finished_at')::pg_catalog.timestamptz, r OPERATOR(pg_catalog.->>) 'status',
               (r OPERATOR(pg_catalog.->>) 'measured_seconds')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'transactions')::numeric::bigint,
               (r OPERATOR(pg_catalog.->>) 'failures')::numeric::bigint, (r OPERATOR(pg_catalog.->>) 'retries')::numeric::bigint,
               (r OPERATOR(pg_catalog.->>) 'tps')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'latency_avg_ms')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'latency_stddev_ms')::pg_catalog.float8,
               (r OPERATOR(pg_catalog.->>) 'latency_p50_ms')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'latency_p90_ms')::pg_catalog.float8,
               (r OPERATOR(pg_catalog.->>) 'latency_p95_ms')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'latency_p99_ms')::pg_catalog.float8,
               (r OPERATOR(pg_catalog.->>) 'latency_max_ms')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'blks_hit')::numeric::bigint,
               (r OPERATOR(pg_catalog.->>) 'blks_read')::numeric::bigint, (r OPERATOR(pg_catalog.->>) 'hit_ratio')::pg_catalog.float8,
               (r OPERATOR(pg_catalog.->>) 'wal_bytes')::numeric, (r OPERATOR(pg_catalog.->>) 'checkpoints')::numeric::bigint,
               coalesce(CASE WHEN pg_catalog.jsonb_typeof(r OPERATOR(pg_catalog.->) 'settings') OPERATOR(pg_catalog.=) 'object' THEN r OPERATOR(pg_catalog.->) 'settings' END, '{}'),
               CASE WHEN pg_catalog.jsonb_typeof(r OPERATOR(pg_catalog.->) 'system') OPERATOR(pg_catalog.=) 'object' THEN r OPERATOR(pg_catalog.->) 'system' END, caller,
               r OPERATOR(pg_catalog.->>) 'error', coalesce(r OPERATOR(pg_catalog.->>) 'source_server', src),
               coalesce((r OPERATOR(pg_catalog.->>) 'source_run_id')::numeric::bigint, d.source_id), pg_catalog.now(),
               r OPERATOR(pg_catalog.->>) 'target_display', (r OPERATOR(pg_catalog.->>) 'connections')::numeric::bigint,
               (r OPERATOR(pg_catalog.->>) 'connection_avg_ms')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'tps_without_connections')::pg_catalog.float8,
               -- rate-limited runs (0.2); absent in 0.1's documents
               (r OPERATOR(pg_catalog.->>) 'rate')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'latency_limit')::interval,
               (r OPERATOR(pg_catalog.->>) 'lag_avg_ms')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'lag_max_ms')::pg_catalog.float8,
               (r OPERATOR(pg_catalog.->>) 'late')::numeric::bigint, (r OPERATOR(pg_catalog.->>) 'skipped')::numeric::bigint,
               (r OPERATOR(pg_catalog.->>) 'scheduled')::numeric::bigint, (r OPERATOR(pg_catalog.->>) 'rate_sustained')::pg_catalog.bool,
               r OPERATOR(pg_catalog.->) 'variables'
          FROM d),
    scripts AS (
        INSERT INTO pgbench_lab.run_scripts (run_id, script, name, weight, body, owner, transactions,
                                             latency_avg_ms, failures, retries)
        SELECT d.new_id, (x OPERATOR(pg_catalog.->>) 'script')::numeric::integer, x OPERATOR(pg_catalog.->>) 'name',
               (x OPERATOR(pg_catalog.->>) 'weight')::numeric::integer, x OPERATOR(pg_catalog.->>) 'body',
               (x OPERATOR(pg_catalog.->>) 'owner')::pg_catalog.name,
               (x OPERATOR(pg_catalog.->>) 'transactions')::numeric::bigint, (x OPERATOR(pg_catalog.->>) 'latency_avg_ms')::pg_catalog.float8,
               (x OPERATOR(pg_catalog.->>) 'failures')::numeric::bigint, (x OPERATOR(pg_catalog.->>) 'retries')::numeric::bigint
          FROM d CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(coalesce(d.r OPERATOR(pg_catalog.->) 'scripts', '[]')) AS s(x)),
    commands AS (
        INSERT INTO pgbench_lab.run_commands (run_id, script, command, line, kind, command_text,
                                              executions, latency_avg_ms, failures, retries)
        SELECT d.new_id, (x OPERATOR(pg_catalog.->>) 'script')::numeric::integer, (c OPERATOR(pg_catalog.->>) 'command')::numeric::integer,
               (c OPERATOR(pg_catalog.->>) 'line')::numeric::integer, c OPERATOR(pg_catalog.->>) 'kind', c OPERATOR(pg_catalog.->>) 'command_text',
               (c OPERATOR(pg_catalog.->>) 'executions')::numeric::bigint, (c OPERATOR(pg_catalog.->>) 'latency_avg_ms')::pg_catalog.float8,
               (c OPERATOR(pg_catalog.->>) 'failures')::numeric::bigint, (c OPERATOR(pg_catalog.->>) 'retries')::numeric::bigint
          FROM d CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(coalesce(d.r OPERATOR(pg_catalog.->) 'scripts', '[]')) AS s(x)
                 CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(x OPERATOR(pg_catalog.->) 'commands') AS m(c)),
    progress AS (
        INSERT INTO pgbench_lab.run_progress (run_id, second, interval_seconds, transactions, tps,
                                              latency_avg_ms, latency_max_ms, failures, hit_ratio,
                                              lag_avg_ms, lag_max_ms, late, skipped)
        SELECT d.new_id, (p OPERATOR(pg_catalog.->>) 'second')::numeric::integer, (p OPERATOR(pg_catalog.->>) 'interval_seconds')::pg_catalog.float8,
               (p OPERATOR(pg_catalog.->>) 'transactions')::numeric::bigint, (p OPERATOR(pg_catalog.->>) 'tps')::pg_catalog.float8,
               (p OPERATOR(pg_catalog.->>) 'latency_avg_ms')::pg_catalog.float8, (p OPERATOR(pg_catalog.->>) 'latency_max_ms')::pg_catalog.float8,
               (p OPERATOR(pg_catalog.->>) 'failures')::numeric::bigint, (p OPERATOR(pg_catalog.->>) 'hit_ratio')::pg_catalog.float8,
               (p OPERATOR(pg_catalog.->>) 'lag_avg_ms')::pg_catalog.float8, (p OPERATOR(pg_catalog.->>) 'lag_max_ms')::pg_catalog.float8,
               (p OPERATOR(pg_catalog.->>) 'late')::numeric::bigint, (p OPERATOR(pg_catalog.->>) 'skipped')::numeric::bigint
          FROM d CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(d.r OPERATOR(pg_catalog.->) 'progress') AS x(p)),
    telemetry AS (
        INSERT INTO pgbench_lab.run_telemetry (run_id, second, interval_seconds, cpu_user_pct, cpu_system_pct,
                                               cpu_iowait_pct, cpu_steal_pct, cpu_idle_pct, run_cpu_seconds,
                                               checkpoints, buffers_checkpoint, buffers_clean, buffers_backend,
                                               wal_records, wal_fpi, wal_bytes, wait_samples, waits,
                                               temp_files, temp_bytes, disk_reads, disk_read_bytes,
                                               disk_writes, disk_write_bytes, disk_busy_pct)
        SELECT d.new_id, (t OPERATOR(pg_catalog.->>) 'second')::numeric::integer, (t OPERATOR(pg_catalog.->>) 'interval_seconds')::pg_catalog.float8,
               (t OPERATOR(pg_catalog.->>) 'cpu_user_pct')::pg_catalog.float8, (t OPERATOR(pg_catalog.->>) 'cpu_system_pct')::pg_catalog.float8,
               (t OPERATOR(pg_catalog.->>) 'cpu_iowait_pct')::pg_catalog.float8, (t OPERATOR(pg_catalog.->>) 'cpu_steal_pct')::pg_catalog.float8,
               (t OPERATOR(pg_catalog.->>) 'cpu_idle_pct')::pg_catalog.float8, (t OPERATOR(pg_catalog.->>) 'run_cpu_seconds')::pg_catalog.float8,
               (t OPERATOR(pg_catalog.->>) 'checkpoints')::numeric::bigint, (t OPERATOR(pg_catalog.->>) 'buffers_checkpoint')::numeric::bigint,
               (t OPERATOR(pg_catalog.->>) 'buffers_clean')::numeric::bigint, (t OPERATOR(pg_catalog.->>) 'buffers_backend')::numeric::bigint,
               (t OPERATOR(pg_catalog.->>) 'wal_records')::numeric::bigint, (t OPERATOR(pg_catalog.->>) 'wal_fpi')::numeric::bigint,
               (t OPERATOR(pg_catalog.->>) 'wal_bytes')::numeric, (t OPERATOR(pg_catalog.->>) 'wait_samples')::numeric::integer,
               t OPERATOR(pg_catalog.->) 'waits',
               (t OPERATOR(pg_catalog.->>) 'temp_files')::numeric::bigint, (t OPERATOR(pg_catalog.->>) 'temp_bytes')::numeric::bigint,
               (t OPERATOR(pg_catalog.->>) 'disk_reads')::numeric::bigint, (t OPERATOR(pg_catalog.->>) 'disk_read_bytes')::numeric::bigint,
               (t OPERATOR(pg_catalog.->>) 'disk_writes')::numeric::bigint, (t OPERATOR(pg_catalog.->>) 'disk_write_bytes')::numeric::bigint,
               (t OPERATOR(pg_catalog.->>) 'disk_busy_pct')::pg_catalog.float8
          FROM d CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(coalesce(d.r OPERATOR(pg_catalog.->) 'telemetry', '[]')) AS x(t)),
    replication AS (
        INSERT INTO pgbench_lab.run_replication (run_id, second, standby, client_addr, state, sync_state,
                                                 sent_lag_bytes, write_lag_bytes, flush_lag_bytes, replay_lag_bytes,
                                                 write_lag_ms, flush_lag_ms, replay_lag_ms)
        SELECT d.new_id, (t OPERATOR(pg_catalog.->>) 'second')::numeric::integer, t OPERATOR(pg_catalog.->>) 'standby',
               t OPERATOR(pg_catalog.->>) 'client_addr', t OPERATOR(pg_catalog.->>) 'state', t OPERATOR(pg_catalog.->>) 'sync_state',
               (t OPERATOR(pg_catalog.->>) 'sent_lag_bytes')::numeric, (t OPERATOR(pg_catalog.->>) 'write_lag_bytes')::numeric,
               (t OPERATOR(pg_catalog.->>) 'flush_lag_bytes')::numeric, (t OPERATOR(pg_catalog.->>) 'replay_lag_bytes')::numeric,
               (t OPERATOR(pg_catalog.->>) 'write_lag_ms')::pg_catalog.float8, (t OPERATOR(pg_catalog.->>) 'flush_lag_ms')::pg_catalog.float8,
               (t OPERATOR(pg_catalog.->>) 'replay_lag_ms')::pg_catalog.float8
          FROM d CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(coalesce(d.r OPERATOR(pg_catalog.->) 'replication', '[]')) AS x(t)),
    targets AS (
        INSERT INTO pgbench_lab.run_targets (run_id, target, target_display, server_version, in_recovery, settings,
                                             clients, clients_failed, transactions, failures, tps, latency_avg_ms,
                                             error, scripts, system, conflicts, conflicts_by_kind, first_client,
                                             system_note, conflicts_error)
        SELECT d.new_id, (t OPERATOR(pg_catalog.->>) 'target')::numeric::integer, t OPERATOR(pg_catalog.->>) 'target_display',
               t OPERATOR(pg_catalog.->>) 'server_version', (t OPERATOR(pg_catalog.->>) 'in_recovery')::pg_catalog.bool,
               CASE WHEN pg_catalog.jsonb_typeof(t OPERATOR(pg_catalog.->) 'settings') OPERATOR(pg_catalog.=) 'object' THEN t OPERATOR(pg_catalog.->) 'settings' END,
               (t OPERATOR(pg_catalog.->>) 'clients')::numeric::integer, (t OPERATOR(pg_catalog.->>) 'clients_failed')::numeric::integer,
               (t OPERATOR(pg_catalog.->>) 'transactions')::numeric::bigint, (t OPERATOR(pg_catalog.->>) 'failures')::numeric::bigint,
               (t OPERATOR(pg_catalog.->>) 'tps')::pg_catalog.float8, (t OPERATOR(pg_catalog.->>) 'latency_avg_ms')::pg_catalog.float8,
               t OPERATOR(pg_catalog.->>) 'error',
               CASE WHEN pg_catalog.jsonb_typeof(t OPERATOR(pg_catalog.->) 'scripts') OPERATOR(pg_catalog.=) 'array'
                    THEN ARRAY(SELECT pg_catalog.jsonb_array_elements_text(t OPERATOR(pg_catalog.->) 'scripts')) END,
               CASE WHEN pg_catalog.jsonb_typeof(t OPERATOR(pg_catalog.->) 'system') OPERATOR(pg_catalog.=) 'object' THEN t OPERATOR(pg_catalog.->) 'system' END,
               (t OPERATOR(pg_catalog.->>) 'conflicts')::numeric::bigint,
               CASE WHEN pg_catalog.jsonb_typeof(t OPERATOR(pg_catalog.->) 'conflicts_by_kind') OPERATOR(pg_catalog.=) 'object'
                    THEN t OPERATOR(pg_catalog.->) 'conflicts_by_kind' END,
               (t OPERATOR(pg_catalog.->>) 'first_client')::numeric::integer,
               t OPERATOR(pg_catalog.->>) 'system_note', t OPERATOR(pg_catalog.->>) 'conflicts_error'
          FROM d CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(coalesce(d.r OPERATOR(pg_catalog.->) 'targets', '[]')) AS x(t)),
    latency AS (
        INSERT INTO pgbench_lab.run_latency (run_id, bucket_upper_us, count)
        SELECT d.new_id, (l OPERATOR(pg_catalog.->>) 'bucket_upper_us')::pg_catalog.float8, (l OPERATOR(pg_catalog.->>) 'count')::numeric::bigint
          FROM d CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(d.r OPERATOR(pg_catalog.->) 'latency') AS x(l))
    SELECT coalesce(pg_catalog.jsonb_object_agg(d.source_id, d.new_id), '{}'),
           coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('kind', 'run', 'source_id', d.source_id, 'id', d.new_id)
                              ORDER BY d.n), '[]')
      INTO ids, out_runs
      FROM d;
    WITH d AS MATERIALIZED (
        SELECT a.e, a.n, (a.e OPERATOR(pg_catalog.->>) 'experiment_id')::numeric::bigint AS source_id,
               pg_catalog.nextval('pgbench_lab.runs_run_id_seq'::pg_catalog.regclass) AS new_id
          FROM pg_catalog.jsonb_array_elements(coalesce(doc OPERATOR(pg_catalog.->) 'experiments', '[]')) WITH ORDINALITY AS a(e, n)
         ORDER BY a.n),
    experiments AS (
        INSERT INTO pgbench_lab.experiments (experiment_id, kind, workload, label, params, started_at,
            finished_at, status, owner, source_server, source_experiment_id, imported_at)
        SELECT d.new_id, e OPERATOR(pg_catalog.->>) 'kind', e OPERATOR(pg_catalog.->>) 'workload', e OPERATOR(pg_catalog.->>) 'label', e OPERATOR(pg_catalog.->) 'params',
               (e OPERATOR(pg_catalog.->>) 'started_at')::pg_catalog.timestamptz, (e OPERATOR(pg_catalog.->>) 'finished_at')::pg_catalog.timestamptz, e OPERATOR(pg_catalog.->>) 'status',
               caller, coalesce(e OPERATOR(pg_catalog.->>) 'source_server', src),
               coalesce((e OPERATOR(pg_catalog.->>) 'source_experiment_id')::numeric::bigint, d.source_id), pg_catalog.now()
          FROM d),
    links AS (
        INSERT INTO pgbench_lab.experiment_runs (experiment_id, ordinal, run_id, variant, round)
        SELECT d.new_id, (x OPERATOR(pg_catalog.->>) 'ordinal')::numeric::integer,
               (ids OPERATOR(pg_catalog.->>) ((x OPERATOR(pg_catalog.->>) 'run_id')::numeric::bigint)::pg_catalog.text)::bigint,
               (x OPERATOR(pg_catalog.->>) 'variant')::numeric::integer, (x OPERATOR(pg_catalog.->>) 'round')::numeric::integer
          FROM d CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(d.e OPERATOR(pg_catalog.->) 'runs') AS l(x))
    SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('kind', 'experiment', 'source_id', d.source_id,
                                                 'id', d.new_id) ORDER BY d.n), '[]')
      INTO out_experiments
      FROM d;
    RETURN out_runs OPERATOR(pg_catalog.||) out_experiments;
END
$$;


CREATE FUNCTION pgbench_lab.import(doc jsonb)
RETURNS TABLE (kind text, source_id bigint, id bigint)
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT x.kind, x.source_id, x.id
      FROM pg_catalog.jsonb_to_recordset(pgbench_lab_internal.record('import', coalesce(doc, 'null')))
           AS x(kind pg_catalog.text, source_id bigint, id bigint)
$$;
COMMENT ON FUNCTION pgbench_lab.import(jsonb) IS
    'Import runs and experiments from an export document: new local ids, marked with their source server';

-- obj without those of keys that are null in it: the fields of
-- rate-limited runs travel only with runs that have a rate or a latency
-- limit, so a run without either exports as it did before they existed.
CREATE FUNCTION pgbench_lab_internal.without_nulls(obj jsonb, keys text[])
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT obj OPERATOR(pg_catalog.-) ARRAY(SELECT k FROM pg_catalog.unnest(keys) AS k
                                             WHERE pg_catalog.jsonb_typeof(obj OPERATOR(pg_catalog.->) k) OPERATOR(pg_catalog.=) 'null')
$$;

-- One run as the document holds it.
CREATE FUNCTION pgbench_lab_internal.export_run(r pgbench_lab.runs)
RETURNS jsonb LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab_internal.without_nulls(pgbench_lab_internal.doc_fields(pg_catalog.to_jsonb(r), 'run'),
                                              '{rate,latency_limit,lag_avg_ms,lag_max_ms,late,skipped,scheduled,rate_sustained,variables}')
        OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(
            'progress', (SELECT coalesce(pg_catalog.jsonb_agg(pgbench_lab_internal.without_nulls(pg_catalog.to_jsonb(p) OPERATOR(pg_catalog.-) 'run_id',
                                                                                                   '{lag_avg_ms,lag_max_ms,late,skipped}') ORDER BY p.second), '[]')
                           FROM pgbench_lab.run_progress p WHERE p.run_id OPERATOR(pg_catalog.=) r.run_id),
            'latency', (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(l) OPERATOR(pg_catalog.-) 'run_id' ORDER BY l.bucket_upper_us), '[]')
                          FROM pgbench_lab.run_latency l WHERE l.run_id OPERATOR(pg_catalog.=) r.run_id))
        -- a run of scripts carries them, each with its commands
        OPERATOR(pg_catalog.||) coalesce((
            SELECT pg_catalog.jsonb_build_object('scripts', pg_catalog.jsonb_agg(
                       pgbench_lab_internal.without_nulls(pg_catalog.to_jsonb(s) OPERATOR(pg_catalog.-) 'run_id',
                                                          '{owner,transactions,latency_avg_ms,failures,retries}')
                       OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('commands',
                           (SELECT pg_catalog.jsonb_agg(pgbench_lab_internal.without_nulls(
                                       pg_catalog.to_jsonb(c) OPERATOR(pg_catalog.-) '{run_id,script}'::pg_catalog.text[],
                                       '{executions,latency_avg_ms,failures,retries}') ORDER BY c.command)
                              FROM pgbench_lab.run_commands c
                             WHERE c.run_id OPERATOR(pg_catalog.=) s.run_id AND c.script OPERATOR(pg_catalog.=) s.script))
                       ORDER BY s.script))
              FROM pgbench_lab.run_scripts s WHERE s.run_id OPERATOR(pg_catalog.=) r.run_id
            HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0), '{}')
        -- and a run with telemetry (0.2) carries it, its nulls left out
        OPERATOR(pg_catalog.||) coalesce((
            SELECT pg_catalog.jsonb_build_object('telemetry', pg_catalog.jsonb_agg(
                       pg_catalog.jsonb_strip_nulls(pg_catalog.to_jsonb(t) OPERATOR(pg_catalog.-) 'run_id') ORDER BY t.second))
              FROM pgbench_lab.run_telemetry t WHERE t.run_id OPERATOR(pg_catalog.=) r.run_id
            HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0), '{}')
        -- and a run on a primary its standbys' lag
        OPERATOR(pg_catalog.||) coalesce((
            SELECT pg_catalog.jsonb_build_object('replication', pg_catalog.jsonb_agg(
                       pg_catalog.jsonb_strip_nulls(pg_catalog.to_jsonb(x) OPERATOR(pg_catalog.-) 'run_id') ORDER BY x.second, x.standby))
              FROM pgbench_lab.run_replication x WHERE x.run_id OPERATOR(pg_catalog.=) r.run_id
            HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0), '{}')
        -- and a libpq run its servers, each with its facts and figures (its
        -- columns that are null left out; the objects within kept whole)
        OPERATOR(pg_catalog.||) coalesce((
            SELECT pg_catalog.jsonb_build_object('targets', pg_catalog.jsonb_agg(
                       pgbench_lab_internal.without_nulls(pg_catalog.to_jsonb(x) OPERATOR(pg_catalog.-) 'run_id',
                           '{server_version,in_recovery,settings,clients_failed,transactions,failures,tps,latency_avg_ms,error,scripts,system,conflicts,conflicts_by_kind,first_client,system_note,conflicts_error}')
                       ORDER BY x.target))
              FROM pgbench_lab.run_targets x WHERE x.run_id OPERATOR(pg_catalog.=) r.run_id
            HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0), '{}')
$$;

-- ids: runs and experiments (an experiment brings its runs); NULL = every
-- finished run and experiment the caller can read.
CREATE FUNCTION pgbench_lab.export(run_ids bigint[] DEFAULT NULL)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    rids pg_catalog.int8[];
    eids pg_catalog.int8[];
    bad pg_catalog.int8;
BEGIN
    IF run_ids IS NULL THEN
        rids := ARRAY(SELECT r.run_id FROM pgbench_lab.runs r WHERE r.status OPERATOR(pg_catalog.<>) 'running');
        eids := ARRAY(SELECT e.experiment_id FROM pgbench_lab.experiments e
                       WHERE NOT e.status OPERATOR(pg_catalog.=) ANY (ARRAY['running', 'waiting for restart'])
                         AND NOT EXISTS (SELECT FROM pgbench_lab.experiment_runs x
                                          WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id
                                            AND NOT x.run_id OPERATOR(pg_catalog.=) ANY (rids)));
    ELSE
        PERFORM pgbench_lab_internal.check_ids(run_ids, true);
        eids := ARRAY(SELECT e.experiment_id FROM pgbench_lab.experiments e
                       WHERE e.experiment_id OPERATOR(pg_catalog.=) ANY (run_ids));
        rids := ARRAY(SELECT r.run_id FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) ANY (run_ids)
                      UNION
                      SELECT x.run_id FROM pgbench_lab.experiment_runs x
                       WHERE x.experiment_id OPERATOR(pg_catalog.=) ANY (eids));
        SELECT e.experiment_id INTO bad FROM pgbench_lab.experiments e
         WHERE e.experiment_id OPERATOR(pg_catalog.=) ANY (eids) AND e.status OPERATOR(pg_catalog.=) 'waiting for restart' LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'experiment % is waiting for a restart', bad
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'Export it when its second phase has run: restart the server, then CALL pgbench_lab.resume(experiment_id).';
        END IF;
        SELECT r.run_id INTO bad FROM pgbench_lab.runs r
         WHERE r.run_id OPERATOR(pg_catalog.=) ANY (rids) AND r.status OPERATOR(pg_catalog.=) 'running' LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'run % is still running', bad
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'Export it when it has finished: CALL pgbench_lab.wait(run_id).';
        END IF;
    END IF;
    RETURN pg_catalog.jsonb_build_object(
        'format', 'pgbench_lab export',
        'version', 1,
        'exported_at', pg_catalog.now(),
        'server', pg_catalog.jsonb_build_object(
            'name', pgbench_lab_internal.server_name(),
            'server_version', pg_catalog.current_setting('server_version'),
            'extension_version', (SELECT extversion FROM pg_catalog.pg_extension WHERE extname OPERATOR(pg_catalog.=) 'pgbench_lab')),
        'runs', (SELECT coalesce(pg_catalog.jsonb_agg(pgbench_lab_internal.export_run(r) ORDER BY r.run_id), '[]')
                   FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) ANY (rids)),
        'experiments', (SELECT coalesce(pg_catalog.jsonb_agg(pgbench_lab_internal.doc_fields(pg_catalog.to_jsonb(e), 'experiment')
                  OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('runs',
                       (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(x) OPERATOR(pg_catalog.-) 'experiment_id' ORDER BY x.ordinal), '[]')
                          FROM pgbench_lab.experiment_runs x
                         WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id))
                  ORDER BY e.experiment_id), '[]')
                   FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) ANY (eids)));
END
$$;
COMMENT ON FUNCTION pgbench_lab.export(bigint[]) IS
    'A versioned jsonb document of runs and experiments (progress, histograms, settings, system facts)';


REVOKE ALL ON FUNCTION pgbench_lab.import(jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab_internal.import_as(regrole, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.export(bigint[]) TO pg_monitor;

-- ---------------------------------------------------------------------------
-- Experiments: the recording functions every kind's driver calls (through
-- record(), as the extension's owner) and the check the readers share.  The
-- driver is src/experiment.c; each kind is a file of its own (81_sweep.sql,
-- 82_compare_settings.sql, 83_cold_vs_warm.sql, 84_connection_cost.sql) that
-- ends with its row of pgbench_lab.experiment_kinds.  A new kind is one
-- planner, one report function (and optionally a finding and a step
-- preparation), its procedure bound to the driver, and one row.
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab_internal.experiment_begin(kind text, workload text, label text, params jsonb)
RETURNS bigint LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (pgbench_lab_internal.record('experiment_begin', pg_catalog.jsonb_build_object('kind', kind,
            'workload', workload, 'label', label, 'params', params)) OPERATOR(pg_catalog.->>) 'experiment_id')::bigint
$$;

CREATE FUNCTION pgbench_lab_internal.experiment_add(experiment_id bigint, run_id bigint, variant integer, round integer)
RETURNS void LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT FROM pgbench_lab_internal.record('experiment_add', pg_catalog.jsonb_build_object('experiment_id', experiment_id,
            'run_id', run_id, 'variant', variant, 'round', round))
$$;

CREATE FUNCTION pgbench_lab_internal.experiment_end(experiment_id bigint)
RETURNS void LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT FROM pgbench_lab_internal.record('experiment_end', pg_catalog.jsonb_build_object('experiment_id', experiment_id))
$$;

-- An experiment of one of the kinds a function reads, or an error naming
-- the kind it is (the functions would otherwise read another kind's runs
-- as their own: a cold_vs_warm experiment's three runs of one client count
-- as a sweep divides by zero).
CREATE FUNCTION pgbench_lab_internal.check_experiment(experiment_id bigint, kinds text[], fn text)
RETURNS void LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    k pg_catalog.text;
    wanted pg_catalog.text := pg_catalog.array_to_string(kinds, ' or ');
BEGIN
    IF experiment_id IS NULL THEN
        RAISE EXCEPTION 'experiment_id must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = pg_catalog.format('Pass the id of a %s experiment from pgbench_lab.experiments.', wanted);
    END IF;
    SELECT e.kind INTO k FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) check_experiment.experiment_id;
    IF NOT FOUND THEN
        IF EXISTS (SELECT FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) check_experiment.experiment_id) THEN
            RAISE EXCEPTION '% needs a % experiment, and % is a run', fn, wanted, experiment_id
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Read a run with pgbench_lab.report(run_id).';
        END IF;
        RAISE EXCEPTION 'experiment % does not exist or is not visible to you', experiment_id
            USING ERRCODE = 'undefined_object',
                  HINT = 'pgbench_lab.experiments lists what you can read: your own, or all for members of pg_monitor.';
    END IF;
    IF NOT k OPERATOR(pg_catalog.=) ANY (kinds) THEN
        RAISE EXCEPTION '% needs a % experiment, and experiment % is a % experiment', fn, wanted, experiment_id, k
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'pgbench_lab.report(experiment_id) reads an experiment of any kind.';
    END IF;
END
$$;

-- What every run of an experiment runs, as run() takes it: a built-in
-- workload, or pgbench scripts (name@weight entries) with their variables
-- (with scripts, the workload is not used: an experiment's procedure may
-- default it).  run() checks them before the first run.  The experiment is
-- recorded under the workload's name, or the scripts'.
CREATE FUNCTION pgbench_lab_internal.step_workload(workload text, scripts text[], variables jsonb)
RETURNS jsonb LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
               'workload', CASE WHEN scripts IS NULL THEN workload END,
               'scripts', pg_catalog.to_jsonb(scripts), 'variables', variables))
$$;

CREATE FUNCTION pgbench_lab_internal.experiment_workload(workload text, scripts text[])
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT CASE WHEN scripts IS NULL THEN workload ELSE pg_catalog.array_to_string(scripts, ' ') END $$;

-- ---------------------------------------------------------------------------
-- sweep(): one run per client count; names the peak and the knee.
-- ---------------------------------------------------------------------------

-- The sweep's client counts, checked and in rising order.
CREATE FUNCTION pgbench_lab_internal.sweep_counts(workload text, clients integer[])
RETURNS integer[] LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF workload IS NULL THEN
        RAISE EXCEPTION 'workload must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Valid workloads are tpcb-like, simple-update and select-only; or give pgbench scripts with scripts =>.';
    END IF;
    PERFORM pgbench_lab_internal.check_flat(pg_catalog.array_ndims(clients), 'clients', '''{1,2,4,8}''');
    IF clients IS NULL OR pg_catalog.cardinality(clients) OPERATOR(pg_catalog.=) 0
       OR pg_catalog.array_position(clients, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'clients must be a non-empty array without nulls'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the client counts to try, for example ''{1,2,4,8}''.';
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.unnest(clients) c WHERE c OPERATOR(pg_catalog.<) 1) THEN
        RAISE EXCEPTION 'client counts must be 1 or more'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass positive client counts, for example ''{1,2,4,8}''.';
    END IF;
    IF (SELECT pg_catalog.count(DISTINCT c) FROM pg_catalog.unnest(clients) c)
       OPERATOR(pg_catalog.<) pg_catalog.cardinality(clients) THEN
        RAISE EXCEPTION 'client counts must not repeat'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass each client count once; run compare_settings for repeated rounds.';
    END IF;
    RETURN ARRAY(SELECT c FROM pg_catalog.unnest(clients) c ORDER BY c);
END
$$;

-- The knee threshold: the share of linear scaling below which a step to
-- more clients ends the useful range.  Above 0 and below 1: at 0 no gain
-- would ever fall short and at 1 every sublinear step would.
CREATE FUNCTION pgbench_lab_internal.check_knee_threshold(knee_threshold double precision)
RETURNS double precision LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF knee_threshold IS NULL THEN
        RAISE EXCEPTION 'knee_threshold must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Leave it out for the default, 0.5: the knee is then the last count before the first step that adds less than half of linear scaling.';
    END IF;
    -- NaN compares above every number, so it fails the second test
    IF NOT (knee_threshold OPERATOR(pg_catalog.>) 0 AND knee_threshold OPERATOR(pg_catalog.<) 1) THEN
        RAISE EXCEPTION 'knee_threshold must be above 0 and below 1, not %', knee_threshold
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'It is a share of linear scaling: 0.5 (the default) names the last count before the first step that adds less than half of the TPS linear scaling would add.';
    END IF;
    RETURN knee_threshold;
END
$$;

-- Whether a recorded knee threshold (params->'knee_threshold') can be
-- used: absent (a sweep of 0.1), or a number above 0 and below 1.  An
-- imported document may hold anything there.
CREATE FUNCTION pgbench_lab_internal.threshold_usable(recorded jsonb)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF recorded IS NULL THEN
        RETURN true;
    ELSIF pg_catalog.jsonb_typeof(recorded) OPERATOR(pg_catalog.<>) 'number' THEN
        RETURN false;
    END IF;
    RETURN (recorded OPERATOR(pg_catalog.#>>) '{}')::pg_catalog.numeric OPERATOR(pg_catalog.>) 0
           AND (recorded OPERATOR(pg_catalog.#>>) '{}')::pg_catalog.numeric OPERATOR(pg_catalog.<) 1;
END
$$;

-- The knee threshold recorded with a sweep, or 0.5 (the rule's default)
-- when there is none or it cannot be used.  A value under 1e-300 reads as
-- 1e-300: it names the same counts (only a loss falls below either) and
-- double precision holds it.
CREATE FUNCTION pgbench_lab_internal.sweep_threshold(params jsonb)
RETURNS double precision LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    recorded pg_catalog.jsonb := params OPERATOR(pg_catalog.->) 'knee_threshold';
BEGIN
    IF recorded IS NULL OR NOT pgbench_lab_internal.threshold_usable(recorded) THEN
        RETURN 0.5;
    END IF;
    RETURN greatest((recorded OPERATOR(pg_catalog.#>>) '{}')::pg_catalog.numeric, 1e-300)::pg_catalog.float8;
END
$$;

-- The parameters of a sweep, checked.
CREATE FUNCTION pgbench_lab_internal.sweep_params(workload text, clients integer[], duration interval, settings jsonb,
                                                  knee_threshold double precision)
RETURNS jsonb LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    counts pg_catalog.int4[] := pgbench_lab_internal.sweep_counts(workload, clients);
BEGIN
    IF duration IS NULL OR settings IS NULL THEN
        RAISE EXCEPTION 'duration and settings must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Leave them out for the defaults: 10 s and no session settings (''{}'').';
    END IF;
    IF pg_catalog.jsonb_typeof(settings) OPERATOR(pg_catalog.<>) 'object' THEN
        RAISE EXCEPTION 'settings must be a jsonb object'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Use ''{}'' for the current settings and {"name": "value"} for others.';
    END IF;
    RETURN pg_catalog.jsonb_build_object('clients', counts, 'duration', duration::pg_catalog.text, 'settings', settings,
                                         'knee_threshold', pgbench_lab_internal.check_knee_threshold(knee_threshold));
END
$$;

-- Each finished client count with the step from the one before it.
-- linear_share: the TPS gained as a share of what linear scaling with the
-- added clients would give (1 = linear, 0 = nothing, negative = a loss);
-- computed in numeric, so that no figures make it overflow, and NULL when
-- two runs share a client count (an imported document may hold that).
CREATE FUNCTION pgbench_lab_internal.sweep_steps(experiment_id bigint)
RETURNS TABLE (clients integer, run_id bigint, tps double precision, latency_avg_ms double precision,
               latency_p99_ms double precision, prev_clients integer, prev_tps double precision,
               prev_latency_avg_ms double precision, linear_share double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.*, CASE WHEN s.clients OPERATOR(pg_catalog.>) s.prev_clients
                     THEN pgbench_lab_internal.to_float8((s.tps::numeric OPERATOR(pg_catalog./) s.prev_tps::numeric OPERATOR(pg_catalog.-) 1)
                                                OPERATOR(pg_catalog./) (s.clients::numeric OPERATOR(pg_catalog./) s.prev_clients OPERATOR(pg_catalog.-) 1)) END
      FROM (SELECT r.clients, r.run_id, r.tps, r.latency_avg_ms, r.latency_p99_ms,
                   pg_catalog.lag(r.clients) OVER w AS prev_clients, pg_catalog.lag(r.tps) OVER w AS prev_tps,
                   pg_catalog.lag(r.latency_avg_ms) OVER w AS prev_latency_avg_ms
              FROM pgbench_lab.experiment_runs x
              JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
             WHERE x.experiment_id OPERATOR(pg_catalog.=) sweep_steps.experiment_id
               AND r.status OPERATOR(pg_catalog.=) 'done' AND r.tps OPERATOR(pg_catalog.>) 0
            WINDOW w AS (ORDER BY r.clients, x.ordinal)) s
     ORDER BY s.clients
$$;

-- A share of linear scaling in percent ('37%'): whole percents, or as
-- many decimals as it takes (up to 6) to tell it from the threshold it is
-- compared with, so that a share just below 50% never reads as '50%'.
CREATE FUNCTION pgbench_lab_internal.share_text(share double precision, threshold double precision DEFAULT NULL)
RETURNS text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    p pg_catalog.numeric := share::pg_catalog.numeric OPERATOR(pg_catalog.*) 100;
    t pg_catalog.numeric := threshold::pg_catalog.numeric OPERATOR(pg_catalog.*) 100;
    d pg_catalog.int4 := 0;
BEGIN
    IF p IS NULL THEN
        RETURN '';
    ELSIF p OPERATOR(pg_catalog.>) 999999 THEN
        RETURN '>999999%';
    ELSIF p OPERATOR(pg_catalog.<) -999999 THEN
        RETURN '<-999999%';
    END IF;
    WHILE t IS NOT NULL AND d OPERATOR(pg_catalog.<) 6 AND p OPERATOR(pg_catalog.<>) t
          AND pg_catalog.round(p, d) OPERATOR(pg_catalog.=) pg_catalog.round(t, d) LOOP
        d := d OPERATOR(pg_catalog.+) 1;
    END LOOP;
    RETURN pg_catalog.trim_scale(pg_catalog.round(p, d))::pg_catalog.text OPERATOR(pg_catalog.||) '%';
END
$$;

-- A knee threshold in percent: '50%', '33.3333%'.
CREATE FUNCTION pgbench_lab_internal.threshold_text(threshold double precision)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN threshold OPERATOR(pg_catalog.>=) 1e-6
                THEN pg_catalog.trim_scale(pg_catalog.round(threshold::pg_catalog.numeric OPERATOR(pg_catalog.*) 100, 4))::pg_catalog.text
                ELSE (threshold OPERATOR(pg_catalog.*) 100)::pg_catalog.text END OPERATOR(pg_catalog.||) '%'
$$;

-- The knee threshold a sweep's verdict uses: the override when given
-- (checked), else the one recorded with the experiment.
CREATE FUNCTION pgbench_lab_internal.sweep_rule(experiment_id bigint, knee_threshold double precision)
RETURNS double precision LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    params pg_catalog.jsonb;
BEGIN
    IF knee_threshold IS NOT NULL THEN
        RETURN pgbench_lab_internal.check_knee_threshold(knee_threshold);
    END IF;
    SELECT e.params INTO params FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) sweep_rule.experiment_id;
    RETURN pgbench_lab_internal.sweep_threshold(params);
END
$$;

-- The client-count sweep article's method: the peak is the highest TPS;
-- the knee is the last count before the first step whose added clients
-- bring less than knee_threshold (by default half) of linear throughput;
-- past it, clients mostly add latency.  knee_threshold NULL: the one the
-- sweep was made with.
CREATE FUNCTION pgbench_lab.sweep_verdict(experiment_id bigint, knee_threshold double precision DEFAULT NULL,
    OUT peak_clients integer, OUT peak_tps double precision,
    OUT knee_clients integer, OUT cpu_limit_clients integer, OUT finding text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    pk pg_catalog.record;
    cpu_text pg_catalog.text;
    kn pg_catalog.record;
    n pg_catalog.int4;
    top pg_catalog.int4;
    tail pg_catalog.record;
    rule pg_catalog.float8;
    peak_text pg_catalog.text;
    knee_text pg_catalog.text;
BEGIN
    IF knee_threshold IS NOT NULL THEN
        PERFORM pgbench_lab_internal.check_knee_threshold(knee_threshold);
    END IF;
    PERFORM pgbench_lab_internal.check_experiment(experiment_id, '{sweep}', 'sweep_verdict()');
    rule := pgbench_lab_internal.sweep_rule(experiment_id, knee_threshold);
    SELECT pg_catalog.count(*), pg_catalog.max(s.clients) INTO n, top FROM pgbench_lab_internal.sweep_steps(experiment_id) s;
    IF n OPERATOR(pg_catalog.=) 0 THEN
        finding := 'No finished runs: no peak and no knee.';
        RETURN;
    END IF;
    SELECT * INTO pk FROM pgbench_lab_internal.sweep_steps(experiment_id) s ORDER BY s.tps DESC, s.clients LIMIT 1;
    peak_clients := pk.clients;
    peak_tps := pk.tps;
    peak_text := pg_catalog.format('Peak: %s at %s tps, the highest throughput of the sweep',
                        pgbench_lab_internal.clients_text(pk.clients), pgbench_lab_internal.fmt(pk.tps));
    SELECT * INTO tail FROM pgbench_lab_internal.sweep_steps(experiment_id) s WHERE s.clients OPERATOR(pg_catalog.>) pk.clients
     ORDER BY s.clients DESC LIMIT 1;
    IF tail IS NULL THEN
        IF n OPERATOR(pg_catalog.>) 1 THEN
            peak_text := peak_text OPERATOR(pg_catalog.||) ' (the largest count tried: more clients may go higher)';
        END IF;
    ELSE
        peak_text := peak_text OPERATOR(pg_catalog.||) pg_catalog.format('; at %s clients TPS was %s lower', tail.clients,
                                         pg_catalog.ltrim(pgbench_lab_internal.pct_change(tail.tps, pk.tps), '-'));
    END IF;
    SELECT * INTO kn FROM pgbench_lab_internal.sweep_steps(experiment_id) s
     WHERE s.linear_share OPERATOR(pg_catalog.<) rule ORDER BY s.clients LIMIT 1;
    IF n OPERATOR(pg_catalog.<) 2 THEN
        knee_text := 'Knee: not found: it needs at least two finished client counts';
    ELSIF kn IS NULL THEN
        knee_text := pg_catalog.format('Knee: not reached: up to %s clients every step added at least %s of linear throughput (the knee threshold); sweep higher counts',
                                       top, pgbench_lab_internal.threshold_text(rule));
    ELSE
        knee_clients := kn.prev_clients;
        knee_text := pg_catalog.format('Knee: %s: going from %s to %s clients (%s) changed TPS by %s, %s of linear scaling and below the knee threshold of %s, while average latency changed by %s, so more clients add latency rather than throughput',
                            pgbench_lab_internal.clients_text(kn.prev_clients), kn.prev_clients, kn.clients,
                            pgbench_lab_internal.pct_change(kn.clients, kn.prev_clients),
                            pgbench_lab_internal.pct_change(kn.tps, kn.prev_tps),
                            pgbench_lab_internal.share_text(kn.linear_share, rule),
                            pgbench_lab_internal.threshold_text(rule),
                            CASE WHEN pgbench_lab_internal.pct_change(kn.latency_avg_ms, kn.prev_latency_avg_ms) OPERATOR(pg_catalog.<>) ''
                                 THEN pgbench_lab_internal.pct_change(kn.latency_avg_ms, kn.prev_latency_avg_ms)
                                 ELSE 'an unknown amount' END);
    END IF;
    finding := peak_text OPERATOR(pg_catalog.||) '. ' OPERATOR(pg_catalog.||) knee_text OPERATOR(pg_catalog.||) '.';
    SELECT c.limit_clients, c.words INTO cpu_limit_clients, cpu_text
      FROM pgbench_lab_internal.sweep_cpu(experiment_id, pk.run_id) c;
    finding := pg_catalog.concat_ws(' ', finding, cpu_text,
                                    (SELECT l.words FROM pgbench_lab_internal.sweep_lag(experiment_id) l));
END
$$;
COMMENT ON FUNCTION pgbench_lab.sweep_verdict(bigint, double precision) IS
    'The peak and the knee of a sweep, the client count at which the machine''s CPU passed 85 %, and its finding; knee_threshold overrides the one the sweep was made with';

-- The 85 % rule of the client-count sweep article, read from the runs'
-- telemetry: the first client count whose run kept the machine's CPU
-- at least 85 % busy (beyond it the machine, not the server, is the
-- limit), and what the clients waited on at the peak.  No words for a
-- sweep whose runs have no telemetry.
CREATE FUNCTION pgbench_lab_internal.sweep_cpu(experiment_id bigint, peak_run_id bigint,
    OUT limit_clients integer, OUT words text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    hit pg_catalog.record;
    top pg_catalog.record;
    waits pg_catalog.text := pgbench_lab_internal.waits_text(peak_run_id);
BEGIN
    -- each count's busy CPU, read once: the first past 85 %, and the busiest
    SELECT (pg_catalog.array_agg(b.clients ORDER BY b.clients) FILTER (WHERE b.busy OPERATOR(pg_catalog.>=) 85))[1] AS clients,
           (pg_catalog.array_agg(b.busy ORDER BY b.clients) FILTER (WHERE b.busy OPERATOR(pg_catalog.>=) 85))[1] AS busy
      INTO hit
      FROM (SELECT s.clients, pgbench_lab_internal.run_cpu_busy(s.run_id) AS busy
              FROM pgbench_lab_internal.sweep_steps(experiment_id) s) b;
    IF hit.clients IS NOT NULL THEN
        limit_clients := hit.clients;
        words := pg_catalog.format('CPU: the machine''s CPU was %s %% busy at %s, past the 85 %% beyond which the machine, not the server, is the limit.',
                                   pgbench_lab_internal.fmt(hit.busy, 0), pgbench_lab_internal.clients_text(hit.clients));
    ELSE
        SELECT b.clients, b.busy INTO top
          FROM (SELECT s.clients, pgbench_lab_internal.run_cpu_busy(s.run_id) AS busy
                  FROM pgbench_lab_internal.sweep_steps(experiment_id) s) b
         WHERE b.busy IS NOT NULL
         ORDER BY 2 DESC, 1 LIMIT 1;
        IF top IS NOT NULL THEN
            words := pg_catalog.format('CPU: below 85 %% busy at every count (at most %s %%, at %s): the machine had CPU to spare.',
                                       pgbench_lab_internal.fmt(top.busy, 0), pgbench_lab_internal.clients_text(top.clients));
        END IF;
    END IF;
    IF waits IS NOT NULL THEN
        words := pg_catalog.concat_ws(' ', words, pg_catalog.format('At the peak the clients'' time went to: %s.', waits));
    END IF;
END
$$;

CREATE FUNCTION pgbench_lab.sweep_summary(experiment_id bigint)
RETURNS TABLE (clients integer, run_id bigint, tps double precision, latency_avg_ms double precision,
               latency_p99_ms double precision, tps_change text, latency_change text,
               linear_share double precision, mark text, cpu_busy_pct double precision, waits text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM pgbench_lab_internal.check_experiment(experiment_id, '{sweep}', 'sweep_summary()');
    RETURN QUERY
    SELECT s.clients, s.run_id, s.tps, s.latency_avg_ms, s.latency_p99_ms,
           pgbench_lab_internal.pct_change(s.tps, s.prev_tps),
           pgbench_lab_internal.pct_change(s.latency_avg_ms, s.prev_latency_avg_ms),
           s.linear_share,
           CASE WHEN s.clients OPERATOR(pg_catalog.=) v.peak_clients
                     OR s.clients OPERATOR(pg_catalog.=) v.knee_clients
                THEN pg_catalog.concat_ws(', ', CASE WHEN s.clients OPERATOR(pg_catalog.=) v.peak_clients THEN 'peak' END,
                                          CASE WHEN s.clients OPERATOR(pg_catalog.=) v.knee_clients THEN 'knee' END) END,
           pgbench_lab_internal.run_cpu_busy(s.run_id), pgbench_lab_internal.waits_text(s.run_id)
      FROM pgbench_lab_internal.sweep_steps(sweep_summary.experiment_id) s,
           pgbench_lab.sweep_verdict(sweep_summary.experiment_id) v
     ORDER BY s.clients;
END
$$;
COMMENT ON FUNCTION pgbench_lab.sweep_summary(bigint) IS
    'TPS and latency per client count of a sweep, with the peak and the knee marked, the machine''s CPU busy and what the clients waited on';

-- The plan: one run per client count, in rising order.  run() checks the
-- workload, each count against pgbench_lab.max_clients and the settings;
-- the knee threshold is checked here and recorded with the parameters, so
-- that the verdict, the report and the plot use the sweep's own.
CREATE FUNCTION pgbench_lab_internal.sweep_plan(workload text, clients integer[], duration interval,
                                       label text, settings jsonb, knee_threshold double precision,
                                       scripts text[], variables jsonb, via text, threads integer,
                                       targets text[], caller jsonb)
RETURNS jsonb LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.jsonb_build_object('workload', pgbench_lab_internal.experiment_workload(workload, scripts),
               'label', label,
               'params', p.params OPERATOR(pg_catalog.||) pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
                             'scripts', pg_catalog.to_jsonb(scripts), 'variables', variables,
                             'via', p.via, 'threads', threads,
                             'targets', pg_catalog.cardinality(targets))),
               'steps', (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                                    'variant', c.i, 'round', 1, 'about', 'settings',
                                    'run', pg_catalog.jsonb_build_object('clients', c.n,
                                               'duration', p.params OPERATOR(pg_catalog.->) 'duration',
                                               'label', label, 'settings', p.params OPERATOR(pg_catalog.->) 'settings',
                                               'via', p.via, 'threads', threads, 'targets', pg_catalog.to_jsonb(targets))
                                           OPERATOR(pg_catalog.||) pgbench_lab_internal.step_workload(workload, scripts, variables))
                                ORDER BY c.i)
                           FROM pg_catalog.jsonb_array_elements(p.params OPERATOR(pg_catalog.->) 'clients')
                                WITH ORDINALITY AS c(n, i)))
      FROM (SELECT pgbench_lab_internal.sweep_params(pgbench_lab_internal.experiment_workload(workload, scripts),
                                                     clients, duration, settings, knee_threshold) AS params,
                   -- several servers are reached over libpq; the conninfos (which may
                   -- hold passwords) go to the runs' arguments only, never to params
                   coalesce(via, CASE WHEN targets IS NOT NULL THEN 'libpq' END) AS via) p
$$;

-- The procedure's INOUT columns.
CREATE FUNCTION pgbench_lab_internal.sweep_result(id bigint)
RETURNS TABLE (experiment_id bigint, peak_clients integer, peak_tps double precision,
               knee_clients integer, finding text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT id, v.peak_clients, v.peak_tps, v.knee_clients, v.finding FROM pgbench_lab.sweep_verdict(id) v
$$;

-- The knee rule in words, with the threshold and each step's share of
-- linear scaling, so that a reader sees why a count was named (or none).
CREATE FUNCTION pgbench_lab_internal.report_knee_rule(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rule pg_catalog.float8 := pgbench_lab_internal.sweep_rule(experiment_id, NULL);
    recorded pg_catalog.jsonb;
    knee pg_catalog.int4;
    pct pg_catalog.text := pgbench_lab_internal.threshold_text(rule);
BEGIN
    IF NOT EXISTS (SELECT FROM pgbench_lab_internal.sweep_steps(experiment_id) s
                    WHERE s.prev_clients IS NOT NULL) THEN
        RETURN;
    END IF;
    SELECT e.params OPERATOR(pg_catalog.->) 'knee_threshold' INTO recorded FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) report_knee_rule.experiment_id;
    SELECT v.knee_clients INTO knee FROM pgbench_lab.sweep_verdict(experiment_id) v;
    RETURN QUERY SELECT x.w FROM pgbench_lab_internal.wrap(pg_catalog.format(
        'Knee rule: the knee is the last client count before the first step whose TPS gain is below %s of linear scaling (linear: TPS in proportion to the clients, +100%% for twice the clients). The threshold is sweep()''s knee_threshold; sweep_verdict(%s, knee_threshold => %s) tries another.',
        pct, experiment_id, CASE WHEN rule OPERATOR(pg_catalog.=) 0.3 THEN '0.5' ELSE '0.3' END), '') WITH ORDINALITY AS x(w, j) ORDER BY x.j;
    IF NOT pgbench_lab_internal.threshold_usable(recorded) THEN
        RETURN QUERY SELECT pg_catalog.format('  (the recorded knee_threshold, %s, is not a number above 0 and below 1: the rule uses 50%%)',
                                              pgbench_lab.printable(pg_catalog.left(recorded::pg_catalog.text, 40)));
    END IF;
    RETURN QUERY
        SELECT CASE WHEN s.linear_share IS NULL
                    THEN pg_catalog.format('  %s -> %s clients: two runs of the same count, no share of linear', s.prev_clients, s.clients)
                    ELSE pg_catalog.format('  %s -> %s clients: %s TPS, %s of linear (threshold %s)%s', s.prev_clients, s.clients,
                                           pgbench_lab_internal.pct_change(s.tps, s.prev_tps),
                                           pgbench_lab_internal.share_text(s.linear_share, rule), pct,
                                           CASE WHEN s.prev_clients OPERATOR(pg_catalog.=) knee
                                                     AND s.linear_share OPERATOR(pg_catalog.<) rule
                                                     AND NOT EXISTS (SELECT FROM pgbench_lab_internal.sweep_steps(report_knee_rule.experiment_id) o
                                                                      WHERE o.clients OPERATOR(pg_catalog.<) s.clients
                                                                        AND o.linear_share OPERATOR(pg_catalog.<) rule)
                                                THEN pg_catalog.format(': below it, so the knee is %s', pgbench_lab_internal.clients_text(knee))
                                                ELSE '' END) END
          FROM pgbench_lab_internal.sweep_steps(experiment_id) s
         WHERE s.prev_clients IS NOT NULL
         ORDER BY s.clients;
    RETURN QUERY SELECT '';
END
$$;

CREATE FUNCTION pgbench_lab_internal.report_sweep(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    top pg_catalog.float8;
    v pg_catalog.record;
BEGIN
    RETURN QUERY SELECT pg_catalog.format('  %7s  %8s  %10s  %7s  %12s  %7s  %10s  %5s', 'clients', 'run', 'TPS', 'change',
                       'lat avg ms', 'change', 'p99 ms', 'CPU %');
    RETURN QUERY
        SELECT pg_catalog.rtrim(pg_catalog.format('  %7s  %8s  %10s  %7s  %12s  %7s  %10s  %5s  %s', s.clients, s.run_id,
                            pgbench_lab_internal.fmt(s.tps), s.tps_change, pgbench_lab_internal.fmt(s.latency_avg_ms, 3),
                            s.latency_change, pgbench_lab_internal.fmt(s.latency_p99_ms, 3),
                            coalesce(pgbench_lab_internal.fmt(s.cpu_busy_pct, 0), '-'), coalesce(s.mark, '')))
          FROM pgbench_lab.sweep_summary(experiment_id) s;
    IF EXISTS (SELECT FROM pgbench_lab.sweep_summary(experiment_id) s WHERE s.waits IS NOT NULL) THEN
        RETURN QUERY SELECT '';
        RETURN QUERY SELECT 'Where the clients'' time went (CPU: waiting on nothing)';
        RETURN QUERY
            SELECT pg_catalog.format('  %7s  %s', s.clients, coalesce(s.waits, '-'))
              FROM pgbench_lab.sweep_summary(experiment_id) s;
    END IF;
    IF EXISTS (SELECT FROM pgbench_lab_internal.sweep_lag_steps(experiment_id)) THEN
        RETURN QUERY SELECT '';
        RETURN QUERY SELECT 'Standby lag by clients (replay lag behind this server: largest, at the end, and its trend)';
        RETURN QUERY
            SELECT pg_catalog.format('  %7s  %s: %s, %s at the end, %s', l.clients, l.standby,
                                     pg_catalog.pg_size_pretty(coalesce(l.top_bytes, 0)),
                                     pg_catalog.pg_size_pretty(coalesce(l.last_bytes, 0)), l.trend)
              FROM pgbench_lab_internal.sweep_lag_steps(experiment_id) l;
    END IF;
    SELECT pg_catalog.max(s.tps) INTO top FROM pgbench_lab.sweep_summary(experiment_id) s;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'TPS by clients';
    RETURN QUERY
        SELECT pg_catalog.format('  %7s │%s %s', s.clients, pg_catalog.rpad(pgbench_lab_internal.hbar(s.tps, top, 40), 40), pgbench_lab_internal.fmt(s.tps))
          FROM pgbench_lab.sweep_summary(experiment_id) s;
    RETURN QUERY SELECT '';
    RETURN QUERY
        SELECT x.w FROM (SELECT pg_catalog.min(r.scale) AS scale, pg_catalog.min(r.clients) FILTER (WHERE r.clients OPERATOR(pg_catalog.>) r.scale) AS c
                           FROM pgbench_lab.experiment_runs e JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) e.run_id
                          WHERE e.experiment_id OPERATOR(pg_catalog.=) report_sweep.experiment_id AND r.workload OPERATOR(pg_catalog.=) 'tpcb-like') s,
                        pgbench_lab_internal.wrap(pg_catalog.format('Note: from %s clients on, the clients outnumber the %s pgbench_branches rows (scale %s): branch-row lock contention caps tpcb-like TPS there, so the peak and the knee may be the lock''s rather than the server''s. Initialise with a scale of at least the largest client count.',
                                                s.c, s.scale, s.scale), '') WITH ORDINALITY AS x(w, j)
         WHERE s.c IS NOT NULL
         ORDER BY x.j;
    RETURN QUERY SELECT l FROM pgbench_lab_internal.report_knee_rule(experiment_id) AS l;
    SELECT * INTO v FROM pgbench_lab.sweep_verdict(experiment_id);
    RETURN QUERY SELECT x.w FROM pg_catalog.regexp_split_to_table(v.finding, '(?<=\.) (?=Knee|CPU:|At the peak|Standby lag:)') WITH ORDINALITY AS f(t, i),
                                 pgbench_lab_internal.wrap(f.t, '') WITH ORDINALITY AS x(w, j)
                        ORDER BY f.i, x.j;
END
$$;

-- Bound to the experiments driver (src/experiment.c), with no SET clause:
-- it commits between runs.
CREATE PROCEDURE pgbench_lab.sweep(
    workload text DEFAULT NULL,
    clients integer[] DEFAULT '{1,2,4,8}',
    duration interval DEFAULT '10 s',
    label text DEFAULT NULL,
    settings jsonb DEFAULT '{}',
    knee_threshold double precision DEFAULT 0.5,
    scripts text[] DEFAULT NULL,
    variables jsonb DEFAULT NULL,
    via text DEFAULT NULL,
    threads integer DEFAULT NULL,
    targets text[] DEFAULT NULL,
    INOUT experiment_id bigint DEFAULT NULL,
    INOUT peak_clients integer DEFAULT NULL,
    INOUT peak_tps double precision DEFAULT NULL,
    INOUT knee_clients integer DEFAULT NULL,
    INOUT finding text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_experiment';
COMMENT ON PROCEDURE pgbench_lab.sweep(text, integer[], interval, text, jsonb, double precision, text[], jsonb, text, integer, text[], bigint, integer, double precision, integer, text) IS
    'One run per client count, recorded as an experiment; names the peak and the knee';

REVOKE ALL ON PROCEDURE pgbench_lab.sweep(text, integer[], interval, text, jsonb, double precision, text[], jsonb, text, integer, text[], bigint, integer, double precision, integer, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.sweep_summary(bigint) TO pg_monitor;

INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, preparation, finding, report, description)
VALUES ('sweep', 'pgbench_lab.sweep(text, integer[], interval, text, jsonb, double precision, text[], jsonb, text, integer, text[], bigint, integer, double precision, integer, text)',
        'pgbench_lab_internal.sweep_plan(text, integer[], interval, text, jsonb, double precision, text[], jsonb, text, integer, text[], jsonb)', NULL,
        'pgbench_lab_internal.sweep_result(bigint)', 'pgbench_lab_internal.report_sweep(bigint)',
        'One run per client count; the peak and the knee')
ON CONFLICT (kind) DO UPDATE SET procedure = EXCLUDED.procedure, planner = EXCLUDED.planner,
    preparation = EXCLUDED.preparation, finding = EXCLUDED.finding, report = EXCLUDED.report,
    description = EXCLUDED.description;

-- ---------------------------------------------------------------------------
-- compare_settings(): the same workload under each set of settings, the
-- sets interleaved within each round.  Session settings go to the runs;
-- reload-level ones (context sighup: max_wal_size, checkpoint_timeout...)
-- are written with ALTER SYSTEM before each run, the server reloads, and
-- postgresql.auto.conf is put back as it was afterwards, whatever happens
-- (superusers only; src/settings_apply.c).
--
-- Restart-level settings (restart_settings: shared_buffers, max_connections
-- ...) take two phases with a restart between them (src/experiment_restart.c):
-- compare_settings() measures the current settings (A) in its rounds,
-- writes B with ALTER SYSTEM, and stops, waiting for a restart; resume()
-- checks that the server restarted and runs with B's values, measures B in
-- as many rounds, and writes A's entries back (a second restart returns
-- to them).  The sets cannot interleave across a restart.  So that the two
-- phases start alike, every run of either phase begins with pgbench's
-- tables and indexes loaded into shared buffers by pg_prewarm, as far as
-- they fit (pgbench_lab.warm()); the OS page cache is not emptied by a
-- restart of PostgreSQL, and is left as it is in both.
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab_internal.compare_params(workload text, settings jsonb[], clients integer,
                                           duration interval, rounds integer)
RETURNS jsonb LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
BEGIN
    IF workload IS NULL OR clients IS NULL OR duration IS NULL OR rounds IS NULL THEN
        RAISE EXCEPTION 'workload, clients, duration and rounds must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass values or leave them out for the defaults (1 client, 10 s, 3 rounds).';
    END IF;
    PERFORM pgbench_lab_internal.check_flat(pg_catalog.array_ndims(settings), 'settings',
                                   'ARRAY[''{}'', ''{"jit": "off"}'']::jsonb[]');
    IF settings IS NULL OR pg_catalog.cardinality(settings) OPERATOR(pg_catalog.<) 2
       OR pg_catalog.cardinality(settings) OPERATOR(pg_catalog.>) 26 THEN
        RAISE EXCEPTION 'settings must hold 2 to 26 sets of settings'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass an array of jsonb objects, for example ARRAY[''{"synchronous_commit": "on"}'', ''{"synchronous_commit": "off"}'']::jsonb[].';
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.unnest(settings) s
                WHERE (pg_catalog.jsonb_typeof(s) OPERATOR(pg_catalog.=) 'object') IS NOT TRUE) THEN
        RAISE EXCEPTION 'each set of settings must be a jsonb object'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Use ''{}'' for the current settings and {"name": "value"} for others.';
    END IF;
    IF rounds OPERATOR(pg_catalog.<) 1 OR rounds OPERATOR(pg_catalog.>) 100 THEN
        RAISE EXCEPTION 'rounds must be from 1 to 100'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Three rounds or more give a spread worth reading.';
    END IF;
    RETURN pg_catalog.jsonb_build_object('settings', pg_catalog.to_jsonb(settings), 'clients', clients,
                              'duration', duration::pg_catalog.text, 'rounds', rounds);
END
$$;

-- Per settings set: TPS and the ratio to set A, paired round by round (the
-- interleaving cancels drift), as a median with its min and max.
CREATE FUNCTION pgbench_lab.settings_ratios(experiment_id bigint)
RETURNS TABLE (variant integer, name text, settings jsonb, rounds integer,
               tps_median double precision, tps_min double precision, tps_max double precision,
               latency_avg_ms_median double precision, ratio_median double precision,
               ratio_min double precision, ratio_max double precision)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM pgbench_lab_internal.check_experiment(experiment_id, '{compare_settings,connection_cost}', 'settings_ratios()');
    RETURN QUERY
    WITH t AS (
        SELECT x.variant, x.round, r.tps, r.latency_avg_ms
          FROM pgbench_lab.experiment_runs x
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) settings_ratios.experiment_id AND r.status OPERATOR(pg_catalog.=) 'done')
    SELECT t.variant, pg_catalog.chr(64 OPERATOR(pg_catalog.+) t.variant),
           (SELECT e.params OPERATOR(pg_catalog.->) 'settings' OPERATOR(pg_catalog.->) (t.variant OPERATOR(pg_catalog.-) 1) FROM pgbench_lab.experiments e
             WHERE e.experiment_id OPERATOR(pg_catalog.=) settings_ratios.experiment_id),
           pg_catalog.count(*)::integer,
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY t.tps), pg_catalog.min(t.tps), pg_catalog.max(t.tps),
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY t.latency_avg_ms),
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY pgbench_lab_internal.ratio(t.tps, a.tps)),
           pg_catalog.min(pgbench_lab_internal.ratio(t.tps, a.tps)), pg_catalog.max(pgbench_lab_internal.ratio(t.tps, a.tps))
      FROM t LEFT JOIN t a ON a.variant OPERATOR(pg_catalog.=) 1 AND a.round OPERATOR(pg_catalog.=) t.round
     GROUP BY t.variant
     ORDER BY t.variant;
END
$$;
COMMENT ON FUNCTION pgbench_lab.settings_ratios(bigint) IS
    'TPS per settings set of a compare_settings experiment, with ratios to set A (median, min, max over rounds)';

CREATE FUNCTION pgbench_lab_internal.settings_finding(experiment_id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.string_agg(pg_catalog.format('%s (%s) against A: TPS ×%s median over %s rounds (min ×%s, max ×%s); %s',
                    s.name, pgbench_lab_internal.settings_text(s.settings),
                    pgbench_lab_internal.fmt(s.ratio_median, 3), s.rounds,
                    pgbench_lab_internal.fmt(s.ratio_min, 3), pgbench_lab_internal.fmt(s.ratio_max, 3),
                    CASE WHEN s.ratio_median IS NULL THEN 'no round of A to compare with'
                         WHEN s.rounds OPERATOR(pg_catalog.<) 2 THEN 'one round only: no spread to judge by'
                         WHEN s.ratio_min OPERATOR(pg_catalog.<) 1 AND s.ratio_max OPERATOR(pg_catalog.>) 1
                         THEN 'the rounds disagree on the direction: within the noise'
                         WHEN s.ratio_min OPERATOR(pg_catalog.>=) 1 THEN 'faster in every round'
                         ELSE 'slower in every round' END), '. ' ORDER BY s.variant) OPERATOR(pg_catalog.||) '.',
                    'No finished runs to compare.')
           OPERATOR(pg_catalog.||)
           COALESCE((SELECT ' The sets ran in two phases, A''s rounds before a restart and B''s after it, not interleaved: '
                            'drift between the phases is not cancelled, and round r of B is paired with round r of A. '
                            'postgresql.auto.conf has A''s values again; they take effect at the next restart.'
                       FROM pgbench_lab.experiments e
                      WHERE e.experiment_id OPERATOR(pg_catalog.=) settings_finding.experiment_id
                        AND e.params OPERATOR(pg_catalog.?) 'restart_settings'), '')
      FROM pgbench_lab.settings_ratios(experiment_id) s
     WHERE s.variant OPERATOR(pg_catalog.>) 1
$$;

-- The plan: in each round, one run per set, in order (set A first).  run()
-- checks every session setting of every set before the first run, the
-- driver every reload-level one (each step's "system"; "system_names" lists
-- them all, so that a set without one of them runs with its saved value).
-- With restart_settings: set A's rounds (phase 1), then set B's (phase 2),
-- each run prepared by warming pgbench's tables ("prepare"), and the values
-- to write between the phases ("restart"), checked by the driver.
CREATE FUNCTION pgbench_lab_internal.settings_plan(workload text, settings jsonb[], clients integer,
                                          duration interval, rounds integer, label text,
                                          scripts text[], variables jsonb, rate double precision,
                                          latency_limit interval, restart_settings jsonb, caller jsonb)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    sets pg_catalog.jsonb[] := settings;
    params pg_catalog.jsonb;
    run pg_catalog.jsonb;
    warm pg_catalog.jsonb;
BEGIN
    IF restart_settings IS NOT NULL THEN
        IF settings IS NOT NULL THEN
            RAISE EXCEPTION 'restart_settings and settings cannot be given together'
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'A restart-level experiment compares the current settings (A) with restart_settings (B), in two phases with a restart between them; compare session- and reload-level settings in an experiment of their own.';
        END IF;
        IF (pg_catalog.jsonb_typeof(restart_settings) OPERATOR(pg_catalog.=) 'object') IS NOT TRUE
           OR restart_settings OPERATOR(pg_catalog.=) '{}'::pg_catalog.jsonb THEN
            RAISE EXCEPTION 'restart_settings must be a jsonb object with at least one setting'
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'For example restart_settings => ''{"shared_buffers": "1GB"}''.';
        END IF;
        -- names as pg_settings spells them: ALTER SYSTEM writes the name it is given
        restart_settings := (SELECT pg_catalog.jsonb_object_agg(pg_catalog.lower(e.key), e.value)
                               FROM pg_catalog.jsonb_each(restart_settings) AS e(key, value));
        sets := ARRAY['{}'::pg_catalog.jsonb, restart_settings];
    END IF;
    params := pgbench_lab_internal.compare_params(pgbench_lab_internal.experiment_workload(workload, scripts),
                                                  sets, clients, duration, rounds)
              OPERATOR(pg_catalog.||) pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
                  'scripts', pg_catalog.to_jsonb(scripts), 'variables', variables, 'rate', rate,
                  'latency_limit', latency_limit::pg_catalog.text, 'restart_settings', restart_settings));
    run := pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object('clients', clients,
               'duration', params OPERATOR(pg_catalog.->) 'duration', 'label', label, 'rate', rate,
               'latency_limit', latency_limit::pg_catalog.text))
           OPERATOR(pg_catalog.||) pgbench_lab_internal.step_workload(workload, scripts, variables);
    IF restart_settings IS NULL THEN
        RETURN pg_catalog.jsonb_build_object('workload', pgbench_lab_internal.experiment_workload(workload, scripts),
               'label', label, 'params', params,
               'system_names', (SELECT COALESCE(pg_catalog.jsonb_agg(DISTINCT k.key ORDER BY k.key), '[]')
                                  FROM pg_catalog.unnest(sets) AS a(s),
                                       pg_catalog.jsonb_object_keys(pgbench_lab_internal.settings_part(a.s, true)) AS k(key)),
               'steps', (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                                    'variant', v.v, 'round', r.r,
                                    'about', 'settings set ' OPERATOR(pg_catalog.||) pg_catalog.chr(64 OPERATOR(pg_catalog.+) v.v),
                                    'system', pgbench_lab_internal.settings_part(sets[v.v], true),
                                    'run', run OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(
                                               'settings', pgbench_lab_internal.settings_part(sets[v.v], false)))
                                ORDER BY r.r, v.v)
                           FROM pg_catalog.generate_series(1, rounds) AS r(r),
                                pg_catalog.generate_series(1, pg_catalog.cardinality(sets)) AS v(v)));
    END IF;
    -- pgbench's tables beside the pgbench_accounts the caller's search_path finds
    warm := (SELECT COALESCE(pg_catalog.jsonb_agg(c.oid::pg_catalog.int8 ORDER BY t.i), '[]')
               FROM pg_catalog.unnest(ARRAY['pgbench_accounts', 'pgbench_branches', 'pgbench_tellers',
                                            'pgbench_history']) WITH ORDINALITY AS t(name, i)
               JOIN pg_catalog.pg_class c ON c.relname OPERATOR(pg_catalog.=) t.name
              WHERE c.relnamespace OPERATOR(pg_catalog.=) (SELECT a.relnamespace FROM pg_catalog.pg_class a
                                          WHERE a.oid OPERATOR(pg_catalog.=) (caller OPERATOR(pg_catalog.->>) 'accounts')::pg_catalog.oid));
    RETURN pg_catalog.jsonb_build_object('workload', pgbench_lab_internal.experiment_workload(workload, scripts),
           'label', label, 'params', params, 'system_names', '[]'::pg_catalog.jsonb, 'restart', restart_settings,
           'steps', (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                                'variant', v.v, 'round', r.r, 'phase', v.v,
                                'about', pg_catalog.format('settings set %s (%s the restart)', pg_catalog.chr(64 OPERATOR(pg_catalog.+) v.v),
                                                           CASE WHEN v.v OPERATOR(pg_catalog.=) 1 THEN 'before' ELSE 'after' END),
                                'prepare', pg_catalog.jsonb_build_object('warm', warm),
                                'run', run)
                            ORDER BY v.v, r.r)
                       FROM pg_catalog.generate_series(1, 2) AS v(v),
                            pg_catalog.generate_series(1, rounds) AS r(r)));
END
$$;

-- A step's preparation, called by the driver for the steps with a
-- "prepare" (those of a two-phase experiment, a superuser's): pgbench's
-- tables and their indexes loaded into shared buffers through pg_prewarm
-- (as far as they fit), before every run of both phases, so that the runs
-- before and after the restart start alike (a restart empties shared
-- buffers).
CREATE FUNCTION pgbench_lab_internal.settings_prepare(experiment_id bigint, step jsonb)
RETURNS text LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    said pg_catalog.text;
BEGIN
    IF NOT step OPERATOR(pg_catalog.?) 'prepare' THEN
        RETURN NULL;
    END IF;
    SELECT pg_catalog.string_agg(pg_catalog.format('%s (%s blocks)', w.relation, w.blocks), ', ' ORDER BY x.i) INTO said
      FROM pg_catalog.jsonb_array_elements_text(step OPERATOR(pg_catalog.->) 'prepare' OPERATOR(pg_catalog.->) 'warm')
           WITH ORDINALITY AS x(o, i),
           LATERAL (SELECT x.o::pg_catalog.oid::pg_catalog.regclass AS relation, pg_catalog.sum(b.blocks_loaded) AS blocks
                      FROM pgbench_lab.warm(x.o::pg_catalog.oid::pg_catalog.regclass) b) w;
    RETURN pg_catalog.format('%s: pg_prewarm loaded %s into shared buffers', step OPERATOR(pg_catalog.->>) 'about',
                             COALESCE(said, 'nothing (no pgbench tables found)'));
END
$$;

-- The procedure's INOUT columns.
CREATE FUNCTION pgbench_lab_internal.settings_result(id bigint)
RETURNS TABLE (experiment_id bigint, finding text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT id, CASE WHEN e.status OPERATOR(pg_catalog.=) 'waiting for restart'
                    THEN pg_catalog.format('Phase 1 of 2 done: set A (the current settings) ran %s round(s). Set B''s '
                                           'restart-level settings (%s) are written to postgresql.auto.conf with ALTER SYSTEM '
                                           'and take effect at the next restart. Restart the server, then CALL pgbench_lab.resume(%s).',
                                           e.params OPERATOR(pg_catalog.->>) 'rounds',
                                           pgbench_lab_internal.settings_text(e.params OPERATOR(pg_catalog.->) 'restart_settings'), id)
                    ELSE pgbench_lab_internal.settings_finding(id) END
      FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) id
$$;

CREATE FUNCTION pgbench_lab_internal.report_settings(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    sets pg_catalog.jsonb;
BEGIN
    SELECT e.params OPERATOR(pg_catalog.->) 'settings' INTO sets FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) report_settings.experiment_id;
    RETURN QUERY SELECT 'Settings sets';
    RETURN QUERY SELECT pg_catalog.format('  %s: %s', pg_catalog.chr(64 OPERATOR(pg_catalog.+) i::integer), pgbench_lab_internal.settings_text(s))
                   FROM pg_catalog.jsonb_array_elements(sets) WITH ORDINALITY AS a(s, i);
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT CASE WHEN (SELECT e.params OPERATOR(pg_catalog.?) 'restart_settings' FROM pgbench_lab.experiments e
                                    WHERE e.experiment_id OPERATOR(pg_catalog.=) report_settings.experiment_id)
                             THEN 'TPS per round (two phases: A''s rounds before the restart, B''s after it; every run starts with pgbench''s tables loaded by pg_prewarm)'
                             ELSE 'TPS per round (the sets run interleaved within each round)' END;
    RETURN QUERY SELECT pg_catalog.format('  %5s', 'round') OPERATOR(pg_catalog.||) (SELECT pg_catalog.string_agg(pg_catalog.format('  %10s', pg_catalog.chr(64 OPERATOR(pg_catalog.+) i::integer)), '' ORDER BY i)
                                              FROM pg_catalog.jsonb_array_elements(sets) WITH ORDINALITY AS a(s, i));
    RETURN QUERY
        SELECT pg_catalog.format('  %5s', x.round) OPERATOR(pg_catalog.||) pg_catalog.string_agg(pg_catalog.format('  %10s', CASE WHEN r.status OPERATOR(pg_catalog.=) 'done'
                      THEN pgbench_lab_internal.fmt(r.tps) ELSE r.status END), '' ORDER BY x.variant)
          FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) report_settings.experiment_id
         GROUP BY x.round ORDER BY x.round;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pg_catalog.format('  %3s  %10s  %10s  %10s  %12s  %s', 'set', 'median TPS', 'min', 'max',
                       'lat avg ms', 'TPS ratio to A: median (min - max)');
    RETURN QUERY
        SELECT pg_catalog.format('  %3s  %10s  %10s  %10s  %12s  ×%s (×%s - ×%s)', s.name, pgbench_lab_internal.fmt(s.tps_median),
                      pgbench_lab_internal.fmt(s.tps_min), pgbench_lab_internal.fmt(s.tps_max),
                      pgbench_lab_internal.fmt(s.latency_avg_ms_median, 3), pgbench_lab_internal.fmt(s.ratio_median, 3),
                      pgbench_lab_internal.fmt(s.ratio_min, 3), pgbench_lab_internal.fmt(s.ratio_max, 3))
          FROM pgbench_lab.settings_ratios(experiment_id) s;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pgbench_lab_internal.wrap(pgbench_lab_internal.settings_finding(experiment_id), '');
    -- a faster set may be faster because it gave up durability: say so
    RETURN QUERY
        SELECT x.w FROM (
            SELECT pg_catalog.string_agg(pg_catalog.format('%s = %s (set %s)', e.key, e.value,
                                         pg_catalog.chr(64 OPERATOR(pg_catalog.+) a.i::integer)), ', ' ORDER BY a.i, e.key) AS what
              FROM pg_catalog.jsonb_array_elements(sets) WITH ORDINALITY AS a(s, i),
                   pg_catalog.jsonb_each_text(CASE WHEN pg_catalog.jsonb_typeof(a.s) OPERATOR(pg_catalog.=) 'object' THEN a.s END) AS e(key, value)
             WHERE e.key OPERATOR(pg_catalog.=) ANY (ARRAY['synchronous_commit', 'fsync', 'full_page_writes'])
               AND pg_catalog.lower(e.value) OPERATOR(pg_catalog.=) ANY (ARRAY['off', 'false', 'no', '0'])) d,
             pgbench_lab_internal.wrap(pg_catalog.format('Durability: %s trades durability for speed. With synchronous_commit off a crash loses the last commits a client was told had succeeded; with fsync or full_page_writes off a crash can corrupt the data. Read its TPS as the price of that trade, not as a free gain.', d.what), '') WITH ORDINALITY AS x(w, j)
         WHERE d.what IS NOT NULL
         ORDER BY x.j;
END
$$;

CREATE PROCEDURE pgbench_lab.compare_settings(
    workload text DEFAULT NULL,
    settings jsonb[] DEFAULT NULL,
    clients integer DEFAULT 1,
    duration interval DEFAULT '10 s',
    rounds integer DEFAULT 3,
    label text DEFAULT NULL,
    scripts text[] DEFAULT NULL,
    variables jsonb DEFAULT NULL,
    rate double precision DEFAULT NULL,
    latency_limit interval DEFAULT NULL,
    restart_settings jsonb DEFAULT NULL,
    INOUT experiment_id bigint DEFAULT NULL,
    INOUT finding text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_experiment';
COMMENT ON PROCEDURE pgbench_lab.compare_settings(text, jsonb[], integer, interval, integer, text, text[], jsonb, double precision, interval, jsonb, bigint, text) IS
    'The same workload under each set of session or reload-level settings, rounds interleaved, restored after; or restart-level settings in two phases (resume()); TPS ratios with their spread';

-- The second phase of a two-phase compare_settings (src/experiment_restart.c).
CREATE PROCEDURE pgbench_lab.resume(
    INOUT experiment_id bigint,
    INOUT finding text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_resume';
COMMENT ON PROCEDURE pgbench_lab.resume(bigint, text) IS
    'Second phase of a restart-level compare_settings: checks the restart, measures set B, writes A''s values back (a second restart returns to them); superusers only';

REVOKE ALL ON PROCEDURE pgbench_lab.compare_settings(text, jsonb[], integer, interval, integer, text, text[], jsonb, double precision, interval, jsonb, bigint, text) FROM PUBLIC;
REVOKE ALL ON PROCEDURE pgbench_lab.resume(bigint, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab_internal.settings_prepare(bigint, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.settings_ratios(bigint) TO pg_monitor;

INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, preparation, finding, report, description)
VALUES ('compare_settings', 'pgbench_lab.compare_settings(text, jsonb[], integer, interval, integer, text, text[], jsonb, double precision, interval, jsonb, bigint, text)',
        'pgbench_lab_internal.settings_plan(text, jsonb[], integer, interval, integer, text, text[], jsonb, double precision, interval, jsonb, jsonb)',
        'pgbench_lab_internal.settings_prepare(bigint, jsonb)',
        'pgbench_lab_internal.settings_result(bigint)', 'pgbench_lab_internal.report_settings(bigint)',
        'The same workload under each set of session or reload-level settings, rounds interleaved (restart-level: two phases); TPS ratios to set A')
ON CONFLICT (kind) DO UPDATE SET procedure = EXCLUDED.procedure, planner = EXCLUDED.planner,
    preparation = EXCLUDED.preparation, finding = EXCLUDED.finding, report = EXCLUDED.report,
    description = EXCLUDED.description;

-- ---------------------------------------------------------------------------
-- cold_vs_warm(): three runs, cold, OS-warm and warm, recorded as an
-- experiment.  Each step's preparation brings the relations into its state
-- (make_cold, warm) in a transaction of its own before its run.
-- ---------------------------------------------------------------------------

-- The three states, in the order they run; a run's variant is its position.
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_state(variant integer)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT (ARRAY['cold', 'os-warm', 'warm'])[variant] $$;

-- The relations of an experiment: those given (tables or materialized
-- views, each once), or pgbench's four tables in the schema of the
-- pgbench_accounts that the caller's search_path finds (accounts passed in
-- by the procedure, which has no search_path of its own).
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_relations(relations regclass[], accounts regclass)
RETURNS regclass[] LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad pg_catalog.regclass;
BEGIN
    IF relations IS NULL THEN
        IF accounts IS NULL THEN
            RAISE EXCEPTION 'relation "pgbench_accounts" does not exist'
                USING ERRCODE = 'undefined_table',
                      HINT = 'Create pgbench''s tables with pgbench_lab.init(scale => 10) or pgbench -i, '
                             'put their schema in search_path, or pass relations.';
        END IF;
        RETURN ARRAY(SELECT c.oid::pg_catalog.regclass
                       FROM pg_catalog.unnest(ARRAY['pgbench_accounts', 'pgbench_branches', 'pgbench_tellers',
                                         'pgbench_history']) WITH ORDINALITY AS t(name, i)
                       JOIN pg_catalog.pg_class c ON c.relname OPERATOR(pg_catalog.=) t.name
                      WHERE c.relnamespace OPERATOR(pg_catalog.=) (SELECT a.relnamespace FROM pg_catalog.pg_class a WHERE a.oid OPERATOR(pg_catalog.=) accounts)
                      ORDER BY t.i);
    END IF;
    IF pg_catalog.cardinality(relations) OPERATOR(pg_catalog.=) 0 OR pg_catalog.array_position(relations, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'relations must not be empty or contain null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass NULL for pgbench''s tables, or tables such as ARRAY[''pgbench_accounts''::regclass].';
    END IF;
    SELECT r INTO bad FROM pg_catalog.unnest(relations) r GROUP BY r HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 1 LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'relation "%" appears twice in relations', bad
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Name each table once; its indexes and TOAST table come with it.';
    END IF;
    SELECT r INTO bad FROM pg_catalog.unnest(relations) r JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) r
     WHERE NOT c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'm']::pg_catalog."char"[]) LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION '"%" is not a table or materialized view', bad
            USING ERRCODE = 'wrong_object_type',
                  HINT = 'Pass tables (or materialized views); their indexes and TOAST tables come with them.';
    END IF;
    SELECT r INTO bad FROM pg_catalog.unnest(relations) r JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) r
     WHERE c.relnamespace OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog'::pg_catalog.regnamespace,
                                                            'pg_toast'::pg_catalog.regnamespace]::pg_catalog.oid[]) LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'permission denied: "%" is a system catalog', bad
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'make_cold never evicts the system catalogs.';
    END IF;
    RETURN relations;
END
$$;

-- What the warm step will load, recorded with the experiment (params->'warm')
-- before anything is evicted: shared_buffers, the margin a warm leaves to
-- the rest of the server and the budget it leaves (blocks, from C:
-- warm_budget), the working set (the relations with their indexes and
-- TOAST, all forks), and per relation, hottest first, its blocks and how
-- many of them the warm step loads (warm_plan).
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_warm_plan(rels regclass[])
RETURNS jsonb LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH b AS (
        SELECT * FROM pgbench_lab_internal.warm_budget()
    ), p AS MATERIALIZED (
        SELECT w.relation, w.kind, w.blocks, w.warm_blocks, w.o
          FROM b, pgbench_lab_internal.warm_plan(rels, b.budget) WITH ORDINALITY AS w(relation, kind, blocks, warm_blocks, o)
    ), t AS (
        SELECT coalesce(pg_catalog.sum(p.blocks), 0)::bigint AS blocks,
               coalesce(pg_catalog.sum(p.warm_blocks), 0)::bigint AS warm_blocks FROM p
    )
    SELECT pg_catalog.jsonb_build_object(
               'block_size', pg_catalog.current_setting('block_size')::bigint,
               'shared_buffers', b.shared_buffers, 'margin', b.margin, 'budget', b.budget,
               'working_set', t.blocks, 'warm_blocks', t.warm_blocks,
               'fits', t.blocks OPERATOR(pg_catalog.<=) b.budget,
               'relations', coalesce((SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                                               'relid', p.relation::pg_catalog.oid::bigint,
                                               'relation', p.relation::pg_catalog.text, 'kind', p.kind,
                                               'blocks', p.blocks, 'warm_blocks', p.warm_blocks) ORDER BY p.o)
                                        FROM p), '[]'))
      FROM b, t
$$;
REVOKE ALL ON FUNCTION pgbench_lab_internal.cold_vs_warm_warm_plan(regclass[]) FROM PUBLIC;

-- A recorded warm plan (params->'warm') read back, whatever an imported
-- document put there: no row unless its figures are whole numbers.
-- partly lists what the plan loads in part or not at all ("only 39% of
-- public.pgbench_accounts, none of public.pgbench_history"; NULL when
-- nothing); the percentages are of the working set.
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_fit(warm jsonb)
RETURNS TABLE (block_size bigint, shared_buffers bigint, budget bigint, working_set bigint,
               warm_blocks bigint, fits boolean, buffers_pct double precision, warm_pct double precision,
               partly text)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH f AS (
        SELECT pgbench_lab_internal.json_int(warm OPERATOR(pg_catalog.->) 'block_size', 1, 1048576) AS block_size,
               pgbench_lab_internal.json_int(warm OPERATOR(pg_catalog.->) 'shared_buffers', 0, 9223372036854775807) AS shared_buffers,
               pgbench_lab_internal.json_int(warm OPERATOR(pg_catalog.->) 'budget', 0, 9223372036854775807) AS budget,
               pgbench_lab_internal.json_int(warm OPERATOR(pg_catalog.->) 'working_set', 0, 9223372036854775807) AS working_set,
               pgbench_lab_internal.json_int(warm OPERATOR(pg_catalog.->) 'warm_blocks', 0, 9223372036854775807) AS warm_blocks
    ), r AS (
        SELECT x.e OPERATOR(pg_catalog.->>) 'relation' AS relation, x.i,
               pgbench_lab_internal.json_int(x.e OPERATOR(pg_catalog.->) 'blocks', 0, 9223372036854775807) AS blocks,
               pgbench_lab_internal.json_int(x.e OPERATOR(pg_catalog.->) 'warm_blocks', 0, 9223372036854775807) AS warm
          FROM pg_catalog.jsonb_array_elements(
                   CASE WHEN pg_catalog.jsonb_typeof(warm OPERATOR(pg_catalog.->) 'relations') OPERATOR(pg_catalog.=) 'array'
                        THEN warm OPERATOR(pg_catalog.->) 'relations' ELSE '[]' END) WITH ORDINALITY AS x(e, i)
    )
    SELECT f.block_size, f.shared_buffers, f.budget, f.working_set, f.warm_blocks,
           f.working_set OPERATOR(pg_catalog.<=) f.budget,
           CASE WHEN f.working_set OPERATOR(pg_catalog.>) 0
                THEN LEAST(100.0, (100.0 OPERATOR(pg_catalog.*) f.shared_buffers) OPERATOR(pg_catalog./) f.working_set) END,
           CASE WHEN f.working_set OPERATOR(pg_catalog.>) 0
                THEN (100.0 OPERATOR(pg_catalog.*) f.warm_blocks) OPERATOR(pg_catalog./) f.working_set END,
           (SELECT pg_catalog.string_agg(CASE WHEN r.warm OPERATOR(pg_catalog.=) 0
                                              THEN pg_catalog.format('none of %s', r.relation)
                                              ELSE pg_catalog.format('only %s%% of %s',
                                                       pg_catalog.floor((100 OPERATOR(pg_catalog.*) r.warm) OPERATOR(pg_catalog./) r.blocks),
                                                       r.relation) END, ', ' ORDER BY r.i)
              FROM r WHERE r.warm OPERATOR(pg_catalog.<) r.blocks)
      FROM f
     WHERE f.block_size IS NOT NULL AND f.shared_buffers IS NOT NULL AND f.budget IS NOT NULL
       AND f.working_set IS NOT NULL AND f.warm_blocks IS NOT NULL
$$;

-- "the working set (30 MB) is larger than shared_buffers (16 MB), which
-- holds 53% of it", or, between the budget and shared_buffers, that it
-- does not fit once the margin is left.
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_fit_words(block_size bigint, shared_buffers bigint, working_set bigint)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN working_set OPERATOR(pg_catalog.>) shared_buffers
                THEN pg_catalog.format('the working set (%s) is larger than shared_buffers (%s), which holds %s%% of it',
                         pg_catalog.pg_size_pretty(working_set::numeric OPERATOR(pg_catalog.*) block_size),
                         pg_catalog.pg_size_pretty(shared_buffers::numeric OPERATOR(pg_catalog.*) block_size),
                         pg_catalog.floor((100.0 OPERATOR(pg_catalog.*) shared_buffers) OPERATOR(pg_catalog./) working_set))
                ELSE pg_catalog.format('the working set (%s) fits in shared_buffers (%s) only without the margin a warm leaves to the rest of the server',
                         pg_catalog.pg_size_pretty(working_set::numeric OPERATOR(pg_catalog.*) block_size),
                         pg_catalog.pg_size_pretty(shared_buffers::numeric OPERATOR(pg_catalog.*) block_size)) END
$$;

-- The warning of an experiment whose warm run was not warm, or NULL: from
-- its recorded plan (the working set larger than what a warm may load) or,
-- for an experiment recorded without one, from the cache state the warm
-- run started from (under 90% of the working set in shared buffers).
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_warning(experiment_id bigint)
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fit pg_catalog.record;
    started pg_catalog.float8;
BEGIN
    SELECT f.* INTO fit FROM pgbench_lab.experiments e,
           LATERAL pgbench_lab_internal.cold_vs_warm_fit(e.params OPERATOR(pg_catalog.->) 'warm') f
     WHERE e.experiment_id OPERATOR(pg_catalog.=) cold_vs_warm_warning.experiment_id;
    IF FOUND AND NOT fit.fits THEN
        RETURN pg_catalog.format('Warning: the warm state cannot be reached: %s, so the warm step loaded what fits, hottest first: '
                                 '%s, the rest whole (%s%% of the working set). The "warm" run is a partly warm run, '
                                 'and its ratio to the cold run is not a warm/cold ratio.',
                                 pgbench_lab_internal.cold_vs_warm_fit_words(fit.block_size, fit.shared_buffers,
                                                                             fit.working_set),
                                 fit.partly, pgbench_lab_internal.fmt(fit.warm_pct, 0));
    END IF;
    SELECT r.buffers_pct INTO started FROM pgbench_lab.cold_vs_warm_runs(experiment_id) r
     WHERE r.state OPERATOR(pg_catalog.=) 'warm';
    IF started OPERATOR(pg_catalog.<) 90 THEN
        RETURN pg_catalog.format('Warning: the warm run began with only %s%% of the working set in shared buffers, so it is '
                                 'a partly warm run, and its ratio to the cold run is not a warm/cold ratio.',
                                 pgbench_lab_internal.fmt(started, 0));
    END IF;
    RETURN NULL;
END
$$;

-- The plan: check the arguments (run() checks the workload, clients and
-- duration with the steps), the cold, OS-warm and warm runs in that order.
-- Everything that can be refused is refused before anything is evicted or
-- recorded.  caller->'accounts' is the pgbench_accounts the caller's
-- search_path finds (the driver looks it up in the caller's session).  A
-- working set that does not fit is warned of here, before the runs.
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_plan(workload text, clients integer, duration interval,
                                              relations regclass[], scripts text[], variables jsonb, caller jsonb)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rels pg_catalog.regclass[] := pgbench_lab_internal.cold_vs_warm_relations(relations,
        (caller OPERATOR(pg_catalog.->>) 'accounts')::pg_catalog.oid::pg_catalog.regclass);
    warm pg_catalog.jsonb;
    fit pg_catalog.record;
BEGIN
    IF NOT (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) current_user) THEN
        RAISE EXCEPTION 'permission denied for procedure cold_vs_warm'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'It evicts buffers with pgbench_lab.make_cold(), which only superusers may do: it affects every session.';
    END IF;
    IF workload IS NULL OR clients IS NULL OR duration IS NULL THEN
        RAISE EXCEPTION 'workload, clients and duration must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Leave them out for the defaults: select-only, 1 client, 20 s.';
    END IF;
    warm := pgbench_lab_internal.cold_vs_warm_warm_plan(rels);
    SELECT f.* INTO fit FROM pgbench_lab_internal.cold_vs_warm_fit(warm) f;
    IF NOT fit.fits THEN
        RAISE WARNING 'the warm state cannot be reached: %',
                      pgbench_lab_internal.cold_vs_warm_fit_words(fit.block_size, fit.shared_buffers, fit.working_set)
            USING DETAIL = pg_catalog.format('The warm step will load what fits, hottest first: %s, the rest whole (%s%% of '
                                             'the working set). The "warm" run will be a partly warm run, and its ratio '
                                             'to the cold run not a warm/cold ratio.',
                                             fit.partly, pgbench_lab_internal.fmt(fit.warm_pct, 0)),
                  HINT = pg_catalog.format('For a warm run, give shared_buffers at least %s (the working set and the margin '
                                           'a warm leaves to the rest of the server), or pass relations that fit.',
                                           pg_catalog.pg_size_pretty(pgbench_lab_internal.warm_needed(fit.working_set)::numeric
                                                                     OPERATOR(pg_catalog.*) fit.block_size));
    END IF;
    RETURN pg_catalog.jsonb_build_object('workload', pgbench_lab_internal.experiment_workload(workload, scripts), 'label', NULL,
        'params', pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object('scripts', pg_catalog.to_jsonb(scripts), 'variables', variables))
            OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('clients', clients, 'duration', duration::pg_catalog.text,
            'relations', (SELECT pg_catalog.jsonb_agg(r::pg_catalog.text ORDER BY i) FROM pg_catalog.unnest(rels) WITH ORDINALITY AS x(r, i)),
            -- the relations and their indexes and TOAST, for the cache states
            'relids', (SELECT pg_catalog.jsonb_agg(DISTINCT o::bigint) FROM pg_catalog.unnest(rels) r,
                            LATERAL (SELECT r::pg_catalog.oid UNION ALL
                                     SELECT i.indexrelid FROM pg_catalog.pg_index i WHERE i.indrelid OPERATOR(pg_catalog.=) r
                                     UNION ALL
                                     SELECT c.reltoastrelid FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) r AND c.reltoastrelid OPERATOR(pg_catalog.<>) 0
                                     UNION ALL
                                     SELECT i.indexrelid FROM pg_catalog.pg_class c JOIN pg_catalog.pg_index i ON i.indrelid OPERATOR(pg_catalog.=) c.reltoastrelid
                                      WHERE c.oid OPERATOR(pg_catalog.=) r) AS s(o)),
            'warm', warm),
        -- each run is labelled "cold_vs_warm <experiment>: <state>" by the driver
        'steps', (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                             'variant', v, 'round', 1, 'name', pgbench_lab_internal.cold_vs_warm_state(v),
                             'about', 'the ' OPERATOR(pg_catalog.||) pgbench_lab_internal.cold_vs_warm_state(v) OPERATOR(pg_catalog.||) ' run',
                             'prepare', pg_catalog.jsonb_build_object('state', pgbench_lab_internal.cold_vs_warm_state(v),
                                 'relations', (SELECT pg_catalog.jsonb_agg(r::pg_catalog.oid ORDER BY i)
                                                 FROM pg_catalog.unnest(rels) WITH ORDINALITY AS x(r, i)),
                                 'warm', CASE WHEN v OPERATOR(pg_catalog.=) 3 THEN warm END),
                             'run', pg_catalog.jsonb_build_object('clients', clients, 'duration', duration::pg_catalog.text)
                                    OPERATOR(pg_catalog.||) pgbench_lab_internal.step_workload(workload, scripts, variables)) ORDER BY v)
                    FROM pg_catalog.generate_series(1, 3) AS v));
END
$$;

-- A step's preparation: bring the relations into its run's starting state;
-- returns what it did (the driver shows it as a NOTICE, then commits: on
-- PostgreSQL 15 make_cold holds AccessExclusiveLock until then).
-- cold: make_cold() of shared buffers and the OS page cache; os-warm:
-- make_cold() of shared buffers only, the OS keeps what the cold run read
-- (the second run of the published cold-cache test); warm: make_cold() of
-- shared buffers only again, so that nothing the OS-warm run left competes
-- with what is loaded, then the recorded plan (step->'prepare'->'warm')
-- through pg_prewarm: what fits, coldest first (warm_blocks).
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_prepare(experiment_id bigint, step jsonb)
RETURNS text LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    state pg_catalog.text := step OPERATOR(pg_catalog.->) 'prepare' OPERATOR(pg_catalog.->>) 'state';
    relations pg_catalog.regclass[] := ARRAY(
        SELECT x.o::pg_catalog.oid::pg_catalog.regclass
          FROM pg_catalog.jsonb_array_elements_text(step OPERATOR(pg_catalog.->) 'prepare' OPERATOR(pg_catalog.->) 'relations')
               WITH ORDINALITY AS x(o, i) ORDER BY x.i);
    warm pg_catalog.jsonb := step OPERATOR(pg_catalog.->) 'prepare' OPERATOR(pg_catalog.->) 'warm';
    a pg_catalog.numeric;
    b pg_catalog.numeric;
    c pg_catalog.numeric;
BEGIN
    SELECT pg_catalog.sum(m.buffers_evicted), pg_catalog.sum(m.dirty_written), pg_catalog.sum(m.os_pages_dropped) INTO a, b, c
      FROM pg_catalog.unnest(relations) WITH ORDINALITY AS x(r, i),
           LATERAL pgbench_lab.make_cold(x.r, true, state OPERATOR(pg_catalog.=) 'cold') m;
    IF state OPERATOR(pg_catalog.<>) 'warm' THEN
        RETURN pg_catalog.format('%s: make_cold evicted %s buffers (%s dirty, written first)%s', state, a, b,
                      CASE WHEN state OPERATOR(pg_catalog.=) 'cold' THEN pg_catalog.format(' and dropped %s OS pages', c) ELSE '' END);
    END IF;
    c := a;
    SELECT pg_catalog.sum(w.blocks_loaded), pg_catalog.sum(w.seconds) INTO a, b
      FROM pgbench_lab_internal.warm_blocks(
               ARRAY(SELECT (x.e OPERATOR(pg_catalog.->>) 'relid')::pg_catalog.oid::pg_catalog.regclass
                       FROM pg_catalog.jsonb_array_elements(warm OPERATOR(pg_catalog.->) 'relations') WITH ORDINALITY AS x(e, i)
                      ORDER BY x.i DESC),
               ARRAY(SELECT (x.e OPERATOR(pg_catalog.->>) 'warm_blocks')::bigint
                       FROM pg_catalog.jsonb_array_elements(warm OPERATOR(pg_catalog.->) 'relations') WITH ORDINALITY AS x(e, i)
                      ORDER BY x.i DESC)) w;
    RETURN pg_catalog.format('warm: make_cold evicted %s buffers, then pg_prewarm loaded %s blocks in %s s: %s', c, a,
                  pg_catalog.round(b, 2),
                  CASE WHEN (warm OPERATOR(pg_catalog.->) 'fits')::boolean THEN 'the whole working set'
                       ELSE pg_catalog.format('what fits in shared_buffers less a margin, hottest first (%s of the working set''s %s blocks)',
                                   warm OPERATOR(pg_catalog.->>) 'warm_blocks', warm OPERATOR(pg_catalog.->>) 'working_set') END);
END
$$;

-- Each run of a cold_vs_warm experiment: headline figures, the cache state
-- it started from (its cache_before snapshot, over the experiment's
-- relations with their indexes: relations under pgbench_lab.cache_min_size
-- are not in snapshots), the per-second curves, and when its TPS first
-- reached 90% of the warm run's (end of that second, from the run's start;
-- NULL if it never did).
CREATE FUNCTION pgbench_lab.cold_vs_warm_runs(experiment_id bigint)
RETURNS TABLE (state text, run_id bigint, status text, tps double precision,
               latency_avg_ms double precision, latency_p99_ms double precision,
               hit_ratio double precision, buffers_pct double precision,
               os_pct double precision, seconds_to_90pct double precision,
               tps_curve double precision[], hit_ratio_curve double precision[])
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH e AS (
        SELECT x.experiment_id, x.params FROM pgbench_lab.experiments x
         WHERE x.experiment_id OPERATOR(pg_catalog.=) cold_vs_warm_runs.experiment_id
           AND x.kind OPERATOR(pg_catalog.=) 'cold_vs_warm'
    ), r AS (
        SELECT x.variant, u.*
          FROM e JOIN pgbench_lab.experiment_runs x ON x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id
          JOIN pgbench_lab.runs u ON u.run_id OPERATOR(pg_catalog.=) x.run_id
    ), warm AS (
        SELECT pg_catalog.max(r.tps) AS tps FROM r WHERE r.variant OPERATOR(pg_catalog.=) 3
    ), sizes AS (
        -- per run: the relations' blocks, buffers and OS pages before it
        SELECT r.run_id, pg_catalog.sum(s.blocks) AS blocks, pg_catalog.sum(s.buffers) AS buffers,
               pg_catalog.sum(s.os_pages) AS os_pages
          FROM r, e, pgbench_lab.cache_snapshot_relations s
         WHERE s.snapshot_id OPERATOR(pg_catalog.=) r.cache_before
           AND s.relid OPERATOR(pg_catalog.=) ANY (ARRAY(
                   SELECT o::pg_catalog.oid
                     FROM pg_catalog.jsonb_array_elements_text(e.params OPERATOR(pg_catalog.->) 'relids') AS o))
         GROUP BY r.run_id
    )
    SELECT pgbench_lab_internal.cold_vs_warm_state(r.variant), r.run_id, r.status, r.tps,
           r.latency_avg_ms, r.latency_p99_ms, r.hit_ratio,
           CASE WHEN c.blocks OPERATOR(pg_catalog.>) 0
                THEN (100.0 OPERATOR(pg_catalog.*) c.buffers) OPERATOR(pg_catalog./) c.blocks END,
           CASE WHEN c.blocks OPERATOR(pg_catalog.>) 0
                THEN ((100.0 OPERATOR(pg_catalog.*) c.os_pages) OPERATOR(pg_catalog.*) pgbench_lab_internal.os_page_size())
                     OPERATOR(pg_catalog./)
                     (c.blocks OPERATOR(pg_catalog.*) pg_catalog.current_setting('block_size')::integer) END,
           (SELECT pg_catalog.min(p.elapsed) FROM (
                SELECT q.tps, pg_catalog.sum(q.interval_seconds) OVER (ORDER BY q.second) AS elapsed
                  FROM pgbench_lab.run_progress q WHERE q.run_id OPERATOR(pg_catalog.=) r.run_id) p, warm
             WHERE p.tps OPERATOR(pg_catalog.>=) (0.9 OPERATOR(pg_catalog.*) warm.tps)),
           ARRAY(SELECT q.tps FROM pgbench_lab.run_progress q
                  WHERE q.run_id OPERATOR(pg_catalog.=) r.run_id ORDER BY q.second),
           ARRAY(SELECT q.hit_ratio FROM pgbench_lab.run_progress q
                  WHERE q.run_id OPERATOR(pg_catalog.=) r.run_id ORDER BY q.second)
      FROM r LEFT JOIN sizes c ON c.run_id OPERATOR(pg_catalog.=) r.run_id
     ORDER BY r.variant
$$;
COMMENT ON FUNCTION pgbench_lab.cold_vs_warm_runs(bigint) IS
    'The runs of a cold_vs_warm experiment: figures, starting cache state, per-second curves, time to 90% of warm TPS';
REVOKE ALL ON FUNCTION pgbench_lab.cold_vs_warm_runs(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.cold_vs_warm_runs(bigint) TO pg_monitor;

-- The comparison as a cold-restart study tells it: each state's figures, the
-- warm/cold ratio and how soon each run reached 90% of the warm TPS; first
-- the warning when the warm run was only partly warm (its ratio is then
-- labelled "partly warm/cold"), then why, when the warm run was slower
-- than the OS-warm one, and how the working set compares with
-- shared_buffers.
CREATE FUNCTION pgbench_lab.cold_vs_warm_finding(experiment_id bigint)
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    warning pg_catalog.text := pgbench_lab_internal.cold_vs_warm_warning(experiment_id);
    warm_name pg_catalog.text := CASE WHEN warning IS NULL THEN 'warm' ELSE 'partly warm' END;
    fit pg_catalog.record;
    runs pg_catalog.text;
    cold pg_catalog.float8;
    os_warm pg_catalog.float8;
    warm pg_catalog.float8;
    warm_started pg_catalog.float8;
    reach pg_catalog.text;
    said pg_catalog.text;
BEGIN
    SELECT pg_catalog.string_agg(pg_catalog.format('%s %s tps (latency %s ms, hit ratio %s%%, %s%% in shared buffers at the start)',
                             r.name, pgbench_lab_internal.fmt(r.tps, 0), pgbench_lab_internal.fmt(r.latency_avg_ms, 3),
                             pgbench_lab_internal.fmt(100 OPERATOR(pg_catalog.*) r.hit_ratio, 1), pgbench_lab_internal.fmt(r.buffers_pct, 0)),
                      ', ' ORDER BY r.variant),
           pg_catalog.max(r.tps) FILTER (WHERE r.state OPERATOR(pg_catalog.=) 'cold'),
           pg_catalog.max(r.tps) FILTER (WHERE r.state OPERATOR(pg_catalog.=) 'os-warm'),
           pg_catalog.max(r.tps) FILTER (WHERE r.state OPERATOR(pg_catalog.=) 'warm'),
           pg_catalog.max(r.buffers_pct) FILTER (WHERE r.state OPERATOR(pg_catalog.=) 'warm'),
           pg_catalog.string_agg(pg_catalog.format('%s %s', r.name,
                             CASE WHEN r.seconds_to_90pct IS NULL THEN 'never (within the run)'
                                  ELSE 'after ' OPERATOR(pg_catalog.||) pgbench_lab_internal.fmt(r.seconds_to_90pct, 1) OPERATOR(pg_catalog.||) ' s' END),
                      ', ' ORDER BY r.variant) FILTER (WHERE r.state OPERATOR(pg_catalog.<>) 'warm')
      INTO runs, cold, os_warm, warm, warm_started, reach
      FROM (SELECT x.*, v.variant,
                   CASE WHEN x.state OPERATOR(pg_catalog.=) 'warm' THEN warm_name
                        ELSE pg_catalog.replace(x.state, 'os-', 'OS-') END AS name
              FROM pgbench_lab.cold_vs_warm_runs(experiment_id) x
              JOIN pg_catalog.generate_series(1, 3) AS v(variant)
                ON pgbench_lab_internal.cold_vs_warm_state(v.variant) OPERATOR(pg_catalog.=) x.state) r;
    IF runs IS NULL THEN
        RETURN 'No runs recorded.';
    END IF;
    said := coalesce(warning OPERATOR(pg_catalog.||) ' ', '') OPERATOR(pg_catalog.||) runs
        OPERATOR(pg_catalog.||) pg_catalog.format(': %s/cold %s; 90%% of the %s TPS reached: %s.', warm_name,
                          CASE WHEN cold OPERATOR(pg_catalog.>) 0 AND warm IS NOT NULL THEN pgbench_lab_internal.fmt(pgbench_lab_internal.ratio(warm, cold), 2) OPERATOR(pg_catalog.||) 'x'
                               ELSE '-' END,
                          warm_name, coalesce(reach, '-'));
    SELECT f.* INTO fit FROM pgbench_lab.experiments e,
           LATERAL pgbench_lab_internal.cold_vs_warm_fit(e.params OPERATOR(pg_catalog.->) 'warm') f
     WHERE e.experiment_id OPERATOR(pg_catalog.=) cold_vs_warm_finding.experiment_id;
    IF warm OPERATOR(pg_catalog.<) os_warm AND warning IS NOT NULL THEN
        said := said OPERATOR(pg_catalog.||) pg_catalog.format(
            ' The partly warm run was slower than the OS-warm run (%s vs %s tps): with %s%% of the working set in shared '
            'buffers at its start, both runs read most pages from the OS page cache, and after their first seconds their '
            'buffers hold the same thing, what the workload touched last. The partly warm run also began with full '
            'buffers, so each page it read first had to evict one, where the OS-warm run began with free ones. Beyond '
            'that the cache does not explain the difference: it is noise or another cause, such as the machine''s other '
            'load; repeat with longer runs, and more of them, before reading anything into it.',
            pgbench_lab_internal.fmt(warm, 0), pgbench_lab_internal.fmt(os_warm, 0),
            pgbench_lab_internal.fmt(coalesce(warm_started, fit.warm_pct), 0));
    ELSIF warm OPERATOR(pg_catalog.<) os_warm AND fit.fits IS NULL AND warm_started IS NULL THEN
        said := said OPERATOR(pg_catalog.||) pg_catalog.format(
            ' The warm run was slower than the OS-warm run (%s vs %s tps); what its shared buffers held at its start '
            'is not recorded here, so whether the cache explains it cannot be told; repeat with longer runs, and more '
            'of them, before reading anything into it.',
            pgbench_lab_internal.fmt(warm, 0), pgbench_lab_internal.fmt(os_warm, 0));
    ELSIF warm OPERATOR(pg_catalog.<) os_warm THEN
        said := said OPERATOR(pg_catalog.||) pg_catalog.format(
            ' The warm run was slower than the OS-warm run (%s vs %s tps) though it began with the working set in shared '
            'buffers: the cache does not explain that, it is noise or another cause, such as the machine''s other load; '
            'repeat with longer runs, and more of them, before reading anything into it.',
            pgbench_lab_internal.fmt(warm, 0), pgbench_lab_internal.fmt(os_warm, 0));
    END IF;
    IF fit.fits THEN
        said := said OPERATOR(pg_catalog.||) pg_catalog.format(' The working set (%s) fits in shared_buffers (%s).',
            pg_catalog.pg_size_pretty(fit.working_set::numeric OPERATOR(pg_catalog.*) fit.block_size),
            pg_catalog.pg_size_pretty(fit.shared_buffers::numeric OPERATOR(pg_catalog.*) fit.block_size));
    END IF;
    RETURN said OPERATOR(pg_catalog.||) ' In-server figures: no network round trips.';
END
$$;
COMMENT ON FUNCTION pgbench_lab.cold_vs_warm_finding(bigint) IS
    'One paragraph comparing the cold, OS-warm and warm runs of a cold_vs_warm experiment, with a warning when the warm run was only partly warm';
REVOKE ALL ON FUNCTION pgbench_lab.cold_vs_warm_finding(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.cold_vs_warm_finding(bigint) TO pg_monitor;

-- The procedure's INOUT columns; the finding is also shown as a NOTICE.
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_result(id bigint)
RETURNS TABLE (experiment_id bigint, finding text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    said pg_catalog.text := pgbench_lab.cold_vs_warm_finding(id);
BEGIN
    RAISE NOTICE '%', said;
    RETURN QUERY SELECT id, said;
END
$$;

-- The warm step of a report: the working set against shared_buffers and
-- what the recorded plan loaded of each relation, hottest first.
CREATE FUNCTION pgbench_lab_internal.report_cold_vs_warm_plan(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    warm pg_catalog.jsonb := (SELECT e.params OPERATOR(pg_catalog.->) 'warm' FROM pgbench_lab.experiments e
                               WHERE e.experiment_id OPERATOR(pg_catalog.=) report_cold_vs_warm_plan.experiment_id);
    fit pg_catalog.record;
BEGIN
    SELECT f.* INTO fit FROM pgbench_lab_internal.cold_vs_warm_fit(warm) f;
    IF NOT FOUND THEN
        RETURN;         -- recorded without a plan (before 0.2, or imported from such a server)
    END IF;
    RETURN QUERY SELECT pg_catalog.format('working set %s (%s blocks); shared_buffers %s (%s buffers): %s%% of the working set fits',
                        pg_catalog.pg_size_pretty(fit.working_set::numeric OPERATOR(pg_catalog.*) fit.block_size), fit.working_set,
                        pg_catalog.pg_size_pretty(fit.shared_buffers::numeric OPERATOR(pg_catalog.*) fit.block_size), fit.shared_buffers,
                        coalesce(pgbench_lab_internal.fmt(pg_catalog.floor(fit.buffers_pct), 0), '100'));
    RETURN QUERY SELECT pg_catalog.format('warm step: what fits in shared_buffers less a margin of %s (%s blocks), hottest first: %s blocks',
                        pg_catalog.pg_size_pretty((fit.shared_buffers OPERATOR(pg_catalog.-) fit.budget)::numeric OPERATOR(pg_catalog.*) fit.block_size),
                        fit.budget, fit.warm_blocks);
    RETURN QUERY SELECT pg_catalog.format('  %-40s %-12s %10s %10s %6s', 'relation', 'kind', 'blocks', 'warmed', '%');
    RETURN QUERY
        SELECT pg_catalog.format('  %-40s %-12s %10s %10s %6s', x.e OPERATOR(pg_catalog.->>) 'relation', x.e OPERATOR(pg_catalog.->>) 'kind',
                      x.e OPERATOR(pg_catalog.->>) 'blocks', x.e OPERATOR(pg_catalog.->>) 'warm_blocks',
                      CASE WHEN pgbench_lab_internal.json_int(x.e OPERATOR(pg_catalog.->) 'blocks', 1, 9223372036854775807) IS NULL THEN '-'
                           ELSE pg_catalog.floor((100 OPERATOR(pg_catalog.*) pgbench_lab_internal.json_int(x.e OPERATOR(pg_catalog.->) 'warm_blocks', 0, 9223372036854775807))
                                                 OPERATOR(pg_catalog./) pgbench_lab_internal.json_int(x.e OPERATOR(pg_catalog.->) 'blocks', 1, 9223372036854775807))::pg_catalog.text END)
          FROM pg_catalog.jsonb_array_elements(
                   CASE WHEN pg_catalog.jsonb_typeof(warm OPERATOR(pg_catalog.->) 'relations') OPERATOR(pg_catalog.=) 'array'
                        THEN warm OPERATOR(pg_catalog.->) 'relations' ELSE '[]' END) WITH ORDINALITY AS x(e, i)
         ORDER BY x.i;
    RETURN QUERY SELECT '';
END
$$;

-- The body of report(experiment_id) for a cold_vs_warm experiment.
CREATE FUNCTION pgbench_lab_internal.report_cold_vs_warm(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    warm_name pg_catalog.text;
    w pg_catalog.int4;          -- the width of the state column
BEGIN
    IF NOT pg_catalog.has_table_privilege('pgbench_lab.cache_snapshot_relations', 'SELECT') THEN
        RETURN QUERY SELECT 'The cache states need membership in pg_monitor (they come from pgbench_lab.cache_snapshot_relations).';
        RETURN;
    END IF;
    warm_name := CASE WHEN pgbench_lab_internal.cold_vs_warm_warning(experiment_id) IS NULL THEN 'warm' ELSE 'partly warm' END;
    w := GREATEST(8, pg_catalog.length(warm_name) OPERATOR(pg_catalog.+) 1);
    RETURN QUERY SELECT pg_catalog.format('%-*s %8s %10s %12s %10s %10s %8s %10s', w, 'state', 'run', 'tps', 'latency ms',
                       'hit %', 'buffers %', 'OS %', 'to 90% s');
    RETURN QUERY
        SELECT pg_catalog.format('%-*s %8s %10s %12s %10s %10s %8s %10s', w,
                      CASE WHEN r.state OPERATOR(pg_catalog.=) 'warm' THEN warm_name ELSE r.state END, r.run_id,
                      pgbench_lab_internal.fmt(r.tps, 0),
                      pgbench_lab_internal.fmt(r.latency_avg_ms, 3), pgbench_lab_internal.fmt(100 OPERATOR(pg_catalog.*) r.hit_ratio, 1),
                      pgbench_lab_internal.fmt(r.buffers_pct, 0), pgbench_lab_internal.fmt(r.os_pct, 0),
                      pgbench_lab_internal.fmt(r.seconds_to_90pct, 1))
          FROM pgbench_lab.cold_vs_warm_runs(experiment_id) r;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pg_catalog.format('%-*s tps per second: %s', w,
                        CASE WHEN r.state OPERATOR(pg_catalog.=) 'warm' THEN warm_name ELSE r.state END,
                        pg_catalog.array_to_string(ARRAY(SELECT pgbench_lab_internal.fmt(t, 0) FROM pg_catalog.unnest(r.tps_curve) t), ' '))
                   FROM pgbench_lab.cold_vs_warm_runs(experiment_id) r;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT * FROM pgbench_lab_internal.report_cold_vs_warm_plan(experiment_id);
    RETURN QUERY SELECT pgbench_lab.cold_vs_warm_finding(experiment_id);
END
$$;

-- Bound to the experiments driver (src/experiment.c), with no SET clause:
-- it commits around each run.
CREATE PROCEDURE pgbench_lab.cold_vs_warm(
    workload text DEFAULT 'select-only',
    clients integer DEFAULT 1,
    duration interval DEFAULT '20 s',
    relations regclass[] DEFAULT NULL,
    scripts text[] DEFAULT NULL,
    variables jsonb DEFAULT NULL,
    INOUT experiment_id bigint DEFAULT NULL,
    INOUT finding text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_experiment';
COMMENT ON PROCEDURE pgbench_lab.cold_vs_warm(text, integer, interval, regclass[], text[], jsonb, bigint, text) IS
    'Three runs, cold, OS-warm and warm, recorded as an experiment; prints the comparison';
REVOKE ALL ON PROCEDURE pgbench_lab.cold_vs_warm(text, integer, interval, regclass[], text[], jsonb, bigint, text) FROM PUBLIC;

INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, preparation, finding, report, description)
VALUES ('cold_vs_warm', 'pgbench_lab.cold_vs_warm(text, integer, interval, regclass[], text[], jsonb, bigint, text)',
        'pgbench_lab_internal.cold_vs_warm_plan(text, integer, interval, regclass[], text[], jsonb, jsonb)',
        'pgbench_lab_internal.cold_vs_warm_prepare(bigint, jsonb)',
        'pgbench_lab_internal.cold_vs_warm_result(bigint)', 'pgbench_lab_internal.report_cold_vs_warm(bigint)',
        'Three runs, cold, OS-warm and warm; time to 90% of the warm TPS')
ON CONFLICT (kind) DO UPDATE SET procedure = EXCLUDED.procedure, planner = EXCLUDED.planner,
    preparation = EXCLUDED.preparation, finding = EXCLUDED.finding, report = EXCLUDED.report,
    description = EXCLUDED.description;

-- ---------------------------------------------------------------------------
-- connection_cost(): the same workload in-server, over persistent libpq
-- connections (like pgbench -M prepared) and with a new connection per
-- transaction (like pgbench -C), as one experiment of three runs with the
-- same clients and duration; its finding gives their TPS and the ratios.
-- ---------------------------------------------------------------------------

-- The plan: the three paths in that order, under one label; any run that
-- does not finish stops the experiment.  The target (which may hold a
-- password) goes to the libpq runs' arguments only, never into params.
-- The in-server run needs a worker slot per client: when this server has
-- too few free, it is left out and said so (a connection storm of hundreds
-- of clients is what the libpq paths, a few workers each, are for).
CREATE FUNCTION pgbench_lab_internal.connection_cost_plan(workload text, clients integer, duration interval,
                                                 target text, label text, scripts text[], variables jsonb,
                                                 caller jsonb)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    name pg_catalog.text := coalesce(label, 'connection_cost ' OPERATOR(pg_catalog.||) pg_catalog.now()::pg_catalog.text);
    vias pg_catalog.text[] := ARRAY['spi', 'libpq', 'libpq-connect'];
    free_slots pg_catalog.int4;
    left_out pg_catalog.text;
BEGIN
    IF (workload IS NULL AND scripts IS NULL) OR clients IS NULL OR duration IS NULL THEN
        RAISE EXCEPTION '% must not be NULL',
                        CASE WHEN clients IS NULL THEN 'clients' WHEN duration IS NULL THEN 'duration' ELSE 'workload' END
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'connection_cost runs one workload, by time, three ways.';
    END IF;
    -- a count out of range is refused by the runs' own checks
    IF (clients OPERATOR(pg_catalog.>) 0) AND (clients OPERATOR(pg_catalog.<) 1000000) THEN
        free_slots := pgbench_lab_internal.worker_slots_free((clients OPERATOR(pg_catalog.+) 1));
        IF free_slots OPERATOR(pg_catalog.<) (clients OPERATOR(pg_catalog.+) 1) THEN
            left_out := pg_catalog.format('%s clients in-server need %s background worker slots, one each and a '
                                          'coordinator; %s are free of max_worker_processes = %s',
                                          clients, (clients OPERATOR(pg_catalog.+) 1), free_slots,
                                          pg_catalog.current_setting('max_worker_processes'));
            vias := ARRAY['libpq', 'libpq-connect'];
            RAISE NOTICE 'the in-server run is left out: %', left_out
                USING HINT = pg_catalog.format('Set max_worker_processes to at least %s (a restart) to measure it too; '
                                               'the libpq runs drive all their clients from a few workers.',
                                               (((pg_catalog.current_setting('max_worker_processes')::pg_catalog.int4
                                                  OPERATOR(pg_catalog.-) free_slots) OPERATOR(pg_catalog.+) clients) OPERATOR(pg_catalog.+) 1));
        END IF;
    END IF;
    RETURN pg_catalog.jsonb_build_object('workload', pgbench_lab_internal.experiment_workload(workload, scripts),
        'label', name, 'stop_on_failure', true,
        'params', pg_catalog.jsonb_build_object('clients', clients, 'duration', duration::pg_catalog.text, 'rounds', 1,
                      'settings', (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('via', v.via) ORDER BY v.i)
                                     FROM pg_catalog.unnest(vias) WITH ORDINALITY AS v(via, i)))
                  OPERATOR(pg_catalog.||) pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
                      'scripts', pg_catalog.to_jsonb(scripts), 'variables', variables,
                      'in_server_left_out', left_out)),
        'steps', (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('variant', v.i, 'round', 1,
                             'about', pg_catalog.format('the %s run', v.via),
                             'run', pg_catalog.jsonb_build_object('clients', clients,
                                        'duration', duration::pg_catalog.text, 'label', name, 'via', v.via,
                                        'target', CASE WHEN v.via OPERATOR(pg_catalog.<>) 'spi' THEN target END)
                                    OPERATOR(pg_catalog.||) pgbench_lab_internal.step_workload(workload, scripts, variables))
                             ORDER BY v.i)
                    FROM pg_catalog.unnest(vias) WITH ORDINALITY AS v(via, i)));
END
$$;

-- The procedure's INOUT columns: the label, the three runs, their TPS, the
-- TPS of the libpq-connect run without connecting, its mean connection
-- time, the two ratios and a sentence (which says why the in-server run is
-- missing when it was left out).
CREATE FUNCTION pgbench_lab_internal.connection_cost_result(id bigint)
RETURNS TABLE (label text, spi_run_id bigint, libpq_run_id bigint, connect_run_id bigint,
               spi_tps double precision, libpq_tps double precision, connect_tps double precision,
               connect_tps_without_connections double precision, connection_avg_ms double precision,
               spi_vs_libpq double precision, libpq_vs_connect double precision, finding text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    -- each variant's path as the plan gave it (params.settings[variant])
    WITH x AS (
        SELECT (e.params OPERATOR(pg_catalog.->) 'settings' OPERATOR(pg_catalog.->) (er.variant OPERATOR(pg_catalog.-) 1))
                   OPERATOR(pg_catalog.->>) 'via' AS via,
               r.run_id, r.tps, r.tps_without_connections, r.connection_avg_ms
          FROM pgbench_lab.experiment_runs er
          JOIN pgbench_lab.experiments e ON e.experiment_id OPERATOR(pg_catalog.=) er.experiment_id
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) er.run_id
         WHERE er.experiment_id OPERATOR(pg_catalog.=) id),
    f AS (
        SELECT e.label, e.params OPERATOR(pg_catalog.->>) 'in_server_left_out' AS left_out,
               s.run_id AS sid, l.run_id AS lid, c.run_id AS cid,
               s.tps AS spi, l.tps AS libpq, c.tps AS conn, c.tps_without_connections AS conn_wo,
               c.connection_avg_ms AS ms,
               CASE WHEN l.tps OPERATOR(pg_catalog.<>) 0::pg_catalog.float8 THEN s.tps OPERATOR(pg_catalog./) l.tps END AS spi_libpq,
               CASE WHEN c.tps OPERATOR(pg_catalog.<>) 0::pg_catalog.float8 THEN l.tps OPERATOR(pg_catalog./) c.tps END AS libpq_conn
          FROM pgbench_lab.experiments e
          LEFT JOIN x s ON s.via OPERATOR(pg_catalog.=) 'spi'
          LEFT JOIN x l ON l.via OPERATOR(pg_catalog.=) 'libpq'
          LEFT JOIN x c ON c.via OPERATOR(pg_catalog.=) 'libpq-connect'
         WHERE e.experiment_id OPERATOR(pg_catalog.=) id)
    SELECT f.label, f.sid, f.lid, f.cid, f.spi, f.libpq, f.conn, f.conn_wo, f.ms, f.spi_libpq, f.libpq_conn,
           CASE WHEN f.sid IS NULL
                THEN pg_catalog.format('in-server not run (%s); over persistent libpq connections %s tps; ',
                                       f.left_out, pg_catalog.round(f.libpq::pg_catalog.numeric))
                ELSE pg_catalog.format('in-server %s tps; over persistent libpq connections %s tps (%s times fewer); ',
                                       pg_catalog.round(f.spi::pg_catalog.numeric), pg_catalog.round(f.libpq::pg_catalog.numeric),
                                       pg_catalog.round(f.spi_libpq::pg_catalog.numeric, 1)) END
           OPERATOR(pg_catalog.||)
           pg_catalog.format('with a new connection per transaction %s tps (%s times fewer than persistent)',
                             pg_catalog.round(f.conn::pg_catalog.numeric),
                             pg_catalog.round(f.libpq_conn::pg_catalog.numeric, 1))
           OPERATOR(pg_catalog.||)
           CASE WHEN f.ms IS NOT NULL
                THEN pg_catalog.format(', %s ms per connection', pg_catalog.round(f.ms::pg_catalog.numeric, 2))
                ELSE '' END
      FROM f
$$;

-- The report: the runs as sets of settings (their via), then the finding,
-- which says why the in-server run is missing when it was left out.
CREATE FUNCTION pgbench_lab_internal.report_connection_cost(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY SELECT l FROM pgbench_lab_internal.report_settings(experiment_id) AS l;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pgbench_lab_internal.wrap('Connection cost: ' OPERATOR(pg_catalog.||) r.finding, '')
                   FROM pgbench_lab_internal.connection_cost_result(experiment_id) AS r;
END
$$;

-- Bound to the experiments driver (src/experiment.c), with no SET clause:
-- it commits between its runs.
CREATE PROCEDURE pgbench_lab.connection_cost(
    workload text DEFAULT 'select-only',
    clients integer DEFAULT 4,
    duration interval DEFAULT '10 s',
    target text DEFAULT NULL,
    scripts text[] DEFAULT NULL,
    variables jsonb DEFAULT NULL,
    INOUT label text DEFAULT NULL,
    INOUT spi_run_id bigint DEFAULT NULL,
    INOUT libpq_run_id bigint DEFAULT NULL,
    INOUT connect_run_id bigint DEFAULT NULL,
    INOUT spi_tps double precision DEFAULT NULL,
    INOUT libpq_tps double precision DEFAULT NULL,
    INOUT connect_tps double precision DEFAULT NULL,
    INOUT connect_tps_without_connections double precision DEFAULT NULL,
    INOUT connection_avg_ms double precision DEFAULT NULL,
    INOUT spi_vs_libpq double precision DEFAULT NULL,
    INOUT libpq_vs_connect double precision DEFAULT NULL,
    INOUT finding text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_experiment';
COMMENT ON PROCEDURE pgbench_lab.connection_cost(text, integer, interval, text, text[], jsonb, text, bigint, bigint, bigint, double precision, double precision, double precision, double precision, double precision, double precision, double precision, text) IS
    'The same workload in-server, over persistent libpq connections and with a new connection per transaction; TPS and ratios';
REVOKE ALL ON PROCEDURE pgbench_lab.connection_cost(text, integer, interval, text, text[], jsonb, text, bigint, bigint, bigint, double precision, double precision, double precision, double precision, double precision, double precision, double precision, text) FROM PUBLIC;

INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, preparation, finding, report, description)
VALUES ('connection_cost', 'pgbench_lab.connection_cost(text, integer, interval, text, text[], jsonb, text, bigint, bigint, bigint, double precision, double precision, double precision, double precision, double precision, double precision, double precision, text)',
        'pgbench_lab_internal.connection_cost_plan(text, integer, interval, text, text, text[], jsonb, jsonb)', NULL,
        'pgbench_lab_internal.connection_cost_result(bigint)', 'pgbench_lab_internal.report_connection_cost(bigint)',
        'The same workload in-server, over persistent libpq connections and with a new connection per transaction')
ON CONFLICT (kind) DO UPDATE SET procedure = EXCLUDED.procedure, planner = EXCLUDED.planner,
    preparation = EXCLUDED.preparation, finding = EXCLUDED.finding, report = EXCLUDED.report,
    description = EXCLUDED.description;

-- ---------------------------------------------------------------------------
-- latency_curve(): one workload at a ladder of rates (pgbench -R), to find
-- the highest throughput at which a latency percentile stays under a
-- target.  The first run measures the maximum (no rate); the others run
-- at the rates given, or at shares of that maximum (the driver turns a
-- step's rate_share into a rate once the maximum is known).
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab_internal.latency_curve_check(target_ms double precision, percentile double precision,
                                                 rates double precision[], shares double precision[])
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- NaN compares above every number: each test below fails it
    IF target_ms IS NULL OR NOT (target_ms OPERATOR(pg_catalog.>) 0 AND target_ms OPERATOR(pg_catalog.<=) 86400000) THEN
        RAISE EXCEPTION 'target_ms must be above 0 and at most a day, not %', coalesce(target_ms::pg_catalog.text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'The latency the percentile must stay under, in milliseconds, such as 5.';
    END IF;
    IF percentile IS NULL OR NOT percentile OPERATOR(pg_catalog.=) ANY (ARRAY[0.5, 0.9, 0.95, 0.99]::pg_catalog.float8[]) THEN
        RAISE EXCEPTION 'percentile must be 0.5, 0.9, 0.95 or 0.99, not %', coalesce(percentile::pg_catalog.text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Runs record p50, p90, p95 and p99 latencies.';
    END IF;
    IF rates IS NOT NULL THEN
        PERFORM pgbench_lab_internal.check_flat(pg_catalog.array_ndims(rates), 'rates', '''{500,1000,2000}''');
        IF pg_catalog.cardinality(rates) OPERATOR(pg_catalog.=) 0 OR pg_catalog.cardinality(rates) OPERATOR(pg_catalog.>) 50
           OR EXISTS (SELECT FROM pg_catalog.unnest(rates) r WHERE r IS NULL OR NOT (r OPERATOR(pg_catalog.>) 0 AND r OPERATOR(pg_catalog.<=) 1e9)) THEN
            RAISE EXCEPTION 'rates must hold 1 to 50 rates, each above 0 and at most 1e9 transactions per second'
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Give the rates to try, such as ''{500,1000,2000}'', or leave rates NULL to try shares of the measured maximum.';
        END IF;
    ELSE
        PERFORM pgbench_lab_internal.check_flat(pg_catalog.array_ndims(shares), 'shares', '''{0.25,0.5,0.75,0.9}''');
        IF shares IS NULL OR pg_catalog.cardinality(shares) OPERATOR(pg_catalog.=) 0 OR pg_catalog.cardinality(shares) OPERATOR(pg_catalog.>) 50
           OR EXISTS (SELECT FROM pg_catalog.unnest(shares) s WHERE s IS NULL OR NOT (s OPERATOR(pg_catalog.>) 0 AND s OPERATOR(pg_catalog.<=) 2)) THEN
            RAISE EXCEPTION 'shares must hold 1 to 50 shares of the maximum, each above 0 and at most 2'
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Give the shares of the measured maximum TPS to try, such as ''{0.25,0.5,0.75,0.9}''.';
        END IF;
    END IF;
END
$$;

-- The plan: the maximum first, then the rates in increasing order.
CREATE FUNCTION pgbench_lab_internal.latency_curve_plan(workload text, clients integer, duration interval,
                                                target_ms double precision, percentile double precision,
                                                rates double precision[], shares double precision[],
                                                label text, scripts text[], variables jsonb, caller jsonb)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    name pg_catalog.text := coalesce(label, 'latency_curve ' OPERATOR(pg_catalog.||) pg_catalog.now()::pg_catalog.text);
    ladder pg_catalog.float8[];
BEGIN
    IF (workload IS NULL AND scripts IS NULL) OR clients IS NULL OR duration IS NULL THEN
        RAISE EXCEPTION '% must not be NULL',
                        CASE WHEN clients IS NULL THEN 'clients' WHEN duration IS NULL THEN 'duration' ELSE 'workload' END
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'latency_curve runs one workload (or scripts), by time, at each rate.';
    END IF;
    PERFORM pgbench_lab_internal.latency_curve_check(target_ms, percentile, rates, shares);
    ladder := ARRAY(SELECT DISTINCT x FROM pg_catalog.unnest(coalesce(rates, shares)) x ORDER BY x);
    RETURN pg_catalog.jsonb_build_object('workload', pgbench_lab_internal.experiment_workload(workload, scripts),
        'label', name, 'stop_on_failure', false,
        'params', pg_catalog.jsonb_build_object('clients', clients, 'duration', duration::pg_catalog.text,
                      'target_ms', target_ms, 'percentile', percentile,
                      CASE WHEN rates IS NULL THEN 'shares' ELSE 'rates' END, pg_catalog.to_jsonb(ladder))
                  OPERATOR(pg_catalog.||) pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
                      'scripts', pg_catalog.to_jsonb(scripts), 'variables', variables)),
        'steps', pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('variant', 1, 'round', 1,
                     'about', 'the run at full speed',
                     'run', pg_catalog.jsonb_build_object('clients', clients,
                                'duration', duration::pg_catalog.text, 'label', name)
                            OPERATOR(pg_catalog.||) pgbench_lab_internal.step_workload(workload, scripts, variables)))
            OPERATOR(pg_catalog.||) (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('variant', l.i OPERATOR(pg_catalog.+) 1, 'round', 1,
                         'about', CASE WHEN rates IS NULL THEN pg_catalog.format('the run at %s %% of the maximum', l.x OPERATOR(pg_catalog.*) 100)
                                       ELSE pg_catalog.format('the run at %s tps', l.x) END,
                         'run', pg_catalog.jsonb_build_object('clients', clients,
                                    'duration', duration::pg_catalog.text, 'label', name, 'rate', CASE WHEN rates IS NOT NULL THEN l.x END)
                                OPERATOR(pg_catalog.||) pgbench_lab_internal.step_workload(workload, scripts, variables))
                         OPERATOR(pg_catalog.||) CASE WHEN rates IS NULL THEN pg_catalog.jsonb_build_object('rate_share', l.x, 'rate_of', 1)
                                                      ELSE '{}' END ORDER BY l.i)
                        FROM pg_catalog.unnest(ladder) WITH ORDINALITY AS l(x, i)));
END
$$;

-- The runs of a latency curve with the asked percentile: the maximum
-- (variant 1, rate NULL) and each rate, in increasing order of rate.
CREATE FUNCTION pgbench_lab_internal.latency_curve_steps(experiment_id bigint)
RETURNS TABLE (variant integer, run_id bigint, status text, rate double precision, tps double precision,
               sustained boolean, lag_avg_ms double precision, p50 double precision, p95 double precision,
               p99 double precision, pct double precision, holds boolean)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT x.variant, r.run_id, r.status, r.rate, r.tps, r.rate_sustained, r.lag_avg_ms,
           r.latency_p50_ms, r.latency_p95_ms, r.latency_p99_ms, p.v,
           r.rate IS NOT NULL AND r.status OPERATOR(pg_catalog.=) 'done' AND coalesce(r.rate_sustained, false)
               AND p.v OPERATOR(pg_catalog.<=) (e.params OPERATOR(pg_catalog.->>) 'target_ms')::pg_catalog.float8
      FROM pgbench_lab.experiments e
      JOIN pgbench_lab.experiment_runs x ON x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id
      JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
     CROSS JOIN LATERAL (SELECT (e.params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.float8 AS q) w
     CROSS JOIN LATERAL (SELECT CASE WHEN w.q OPERATOR(pg_catalog.=) 0.5 THEN r.latency_p50_ms
                                     WHEN w.q OPERATOR(pg_catalog.=) 0.9 THEN r.latency_p90_ms
                                     WHEN w.q OPERATOR(pg_catalog.=) 0.95 THEN r.latency_p95_ms
                                     ELSE r.latency_p99_ms END AS v) p
     WHERE e.experiment_id OPERATOR(pg_catalog.=) latency_curve_steps.experiment_id
     ORDER BY r.rate NULLS FIRST, x.variant
$$;

-- Why a step does not hold: its run did not finish, the rate was not
-- sustained, or the percentile was over the target.
CREATE FUNCTION pgbench_lab_internal.latency_curve_why(status text, sustained boolean, pct double precision, pname text)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN status OPERATOR(pg_catalog.<>) 'done' THEN 'the run ended ' OPERATOR(pg_catalog.||) status
                WHEN NOT coalesce(sustained, false) THEN pg_catalog.format('the rate was not sustained (%s %s ms)', pname, pgbench_lab_internal.fmt(pct, 3))
                ELSE pg_catalog.format('%s was %s ms', pname, pgbench_lab_internal.fmt(pct, 3)) END
$$;

-- The procedure's INOUT columns.  The rate that holds is the highest one
-- below the first that does not (a curve is read from the bottom: a rate
-- that happened to hold above one that failed is not counted on).
CREATE FUNCTION pgbench_lab_internal.latency_curve_result(id bigint)
RETURNS TABLE (label text, max_tps double precision, best_rate double precision, best_tps double precision,
               best_latency_ms double precision, finding text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH e AS (SELECT x.label, (x.params OPERATOR(pg_catalog.->>) 'target_ms')::pg_catalog.float8 AS target,
                      'p' OPERATOR(pg_catalog.||) pg_catalog.round(100 OPERATOR(pg_catalog.*) (x.params OPERATOR(pg_catalog.->>) 'percentile')::numeric) AS pname
                 FROM pgbench_lab.experiments x WHERE x.experiment_id OPERATOR(pg_catalog.=) id),
    s AS (SELECT * FROM pgbench_lab_internal.latency_curve_steps(id)),
    m AS (SELECT s.tps, s.pct FROM s WHERE s.rate IS NULL ORDER BY s.variant LIMIT 1),
    first_bad AS (SELECT s.* FROM s WHERE s.rate IS NOT NULL AND NOT s.holds ORDER BY s.rate LIMIT 1),
    best AS (SELECT s.* FROM s WHERE s.holds
                AND s.rate OPERATOR(pg_catalog.<) coalesce((SELECT b.rate FROM first_bad b), 'Infinity'::pg_catalog.float8)
              ORDER BY s.rate DESC LIMIT 1)
    SELECT e.label, (SELECT m.tps FROM m), b.rate, b.tps, b.pct,
           CASE WHEN NOT EXISTS (SELECT FROM s WHERE s.rate IS NOT NULL)
                THEN 'no run at a rate was made: nothing to find'
                WHEN b.rate IS NULL
                THEN pg_catalog.format('%s under %s ms held at none of the rates: at the lowest, %s tps asked, %s', e.pname,
                         pgbench_lab_internal.fmt(e.target, 3), pgbench_lab_internal.fmt(f.rate), pgbench_lab_internal.latency_curve_why(f.status, f.sustained, f.pct, e.pname))
                ELSE pg_catalog.format('%s under %s ms held up to %s tps asked (%s achieved, %s %s ms)%s; the maximum was %s tps (%s %s ms)',
                         e.pname, pgbench_lab_internal.fmt(e.target, 3), pgbench_lab_internal.fmt(b.rate),
                         pgbench_lab_internal.fmt(b.tps), e.pname, pgbench_lab_internal.fmt(b.pct, 3),
                         CASE WHEN f.rate IS NULL THEN ', the highest rate tried'
                              ELSE pg_catalog.format('; at %s tps asked it did not: %s', pgbench_lab_internal.fmt(f.rate),
                                        pgbench_lab_internal.latency_curve_why(f.status, f.sustained, f.pct, e.pname)) END,
                         coalesce(pgbench_lab_internal.fmt((SELECT m.tps FROM m)), '-'), e.pname,
                         coalesce(pgbench_lab_internal.fmt((SELECT m.pct FROM m), 3), '-')) END
      FROM e LEFT JOIN best b ON true LEFT JOIN first_bad f ON true
$$;

CREATE FUNCTION pgbench_lab_internal.report_latency_curve(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    e pgbench_lab.experiments;
BEGIN
    SELECT * INTO e FROM pgbench_lab.experiments x WHERE x.experiment_id OPERATOR(pg_catalog.=) report_latency_curve.experiment_id;
    RETURN QUERY SELECT pg_catalog.format('Target: p%s under %s ms; %s', pg_catalog.round(100 OPERATOR(pg_catalog.*) (e.params OPERATOR(pg_catalog.->>) 'percentile')::numeric),
                       e.params OPERATOR(pg_catalog.->>) 'target_ms',
                       CASE WHEN e.params OPERATOR(pg_catalog.?) 'rates' THEN 'rates asked: ' OPERATOR(pg_catalog.||) (e.params OPERATOR(pg_catalog.->>) 'rates')
                            ELSE 'rates: shares of the maximum ' OPERATOR(pg_catalog.||) (e.params OPERATOR(pg_catalog.->>) 'shares') END);
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pg_catalog.format('  %6s  %10s  %10s  %9s  %9s  %9s  %9s  %9s  %s', 'run', 'rate asked', 'TPS', 'sustained',
                       'lag ms', 'p50 ms', 'p95 ms', 'p99 ms', 'holds');
    RETURN QUERY
        SELECT pg_catalog.format('  %6s  %10s  %10s  %9s  %9s  %9s  %9s  %9s  %s', s.run_id,
                      CASE WHEN s.rate IS NULL THEN 'max' ELSE pgbench_lab_internal.fmt(s.rate) END,
                      CASE WHEN s.status OPERATOR(pg_catalog.=) 'done' THEN pgbench_lab_internal.fmt(s.tps) ELSE s.status END,
                      CASE WHEN s.rate IS NULL THEN '-' WHEN s.sustained THEN 'yes' ELSE 'NO' END,
                      coalesce(pgbench_lab_internal.fmt(s.lag_avg_ms, 3), '-'), coalesce(pgbench_lab_internal.fmt(s.p50, 3), '-'),
                      coalesce(pgbench_lab_internal.fmt(s.p95, 3), '-'), coalesce(pgbench_lab_internal.fmt(s.p99, 3), '-'),
                      CASE WHEN s.rate IS NULL THEN '' WHEN s.holds THEN 'yes' ELSE 'no' END)
          FROM pgbench_lab_internal.latency_curve_steps(e.experiment_id) s;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'Finding';
    RETURN QUERY SELECT x.w FROM pgbench_lab_internal.latency_curve_result(e.experiment_id) r,
                                 pgbench_lab_internal.wrap(r.finding, '  ') AS x(w);
END
$$;

-- Latency percentiles against the achieved TPS, one point per run at a
-- rate, with the target drawn across.
CREATE FUNCTION pgbench_lab_internal.plot_latency_curve(experiment_id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH s AS (SELECT * FROM pgbench_lab_internal.latency_curve_steps(experiment_id) s
                WHERE s.rate IS NOT NULL AND s.status OPERATOR(pg_catalog.=) 'done' AND s.tps OPERATOR(pg_catalog.>) 0),
    e AS (SELECT x.label, x.workload, (x.params OPERATOR(pg_catalog.->>) 'target_ms')::pg_catalog.float8 AS target
            FROM pgbench_lab.experiments x WHERE x.experiment_id OPERATOR(pg_catalog.=) plot_latency_curve.experiment_id),
    r AS (SELECT * FROM pgbench_lab_internal.latency_curve_result(experiment_id))
    SELECT pgbench_lab_internal.svg_chart(
        pg_catalog.format('Latency against throughput: %s (experiment %s)', coalesce(e.label, e.workload), experiment_id),
        'achieved TPS (transactions per second)', 'latency (ms)', NULL,
        (SELECT pg_catalog.jsonb_agg(c.series ORDER BY c.k) FROM (
            SELECT k, pg_catalog.jsonb_build_object('label', l, 'color', k OPERATOR(pg_catalog.-) 1, 'points', true,
                       'x', (SELECT coalesce(pg_catalog.jsonb_agg(s.tps ORDER BY s.tps), '[]') FROM s),
                       'y', (SELECT coalesce(pg_catalog.jsonb_agg(CASE WHEN k OPERATOR(pg_catalog.=) 1 THEN s.p50
                                                                                   WHEN k OPERATOR(pg_catalog.=) 2 THEN s.p95
                                                                                   ELSE s.p99 END ORDER BY s.tps), '[]') FROM s)) AS series
              FROM (VALUES (1, 'p50'), (2, 'p95'), (3, 'p99')) AS v(k, l)
            UNION ALL
            SELECT 4, pg_catalog.jsonb_build_object('label', pg_catalog.format('target %s ms', pgbench_lab_internal.fmt(e.target, 3)),
                       'color', 7, 'x', pg_catalog.jsonb_build_array(0, coalesce((SELECT pg_catalog.max(s.tps) FROM s), 1)),
                       'y', pg_catalog.jsonb_build_array(e.target, e.target))) c),
        ARRAY[CASE WHEN NOT EXISTS (SELECT FROM s) THEN 'Nothing to plot: no run at a rate ended done.'
                   ELSE r.finding END])
      FROM e, r
$$;

-- Bound to the experiments driver (src/experiment.c), with no SET clause:
-- it commits between its runs.
CREATE PROCEDURE pgbench_lab.latency_curve(
    workload text DEFAULT 'select-only',
    clients integer DEFAULT 4,
    duration interval DEFAULT '10 s',
    target_ms double precision DEFAULT 5,
    percentile double precision DEFAULT 0.99,
    rates double precision[] DEFAULT NULL,
    shares double precision[] DEFAULT '{0.1,0.25,0.5,0.7,0.8,0.9,1.0}',
    label text DEFAULT NULL,
    scripts text[] DEFAULT NULL,
    variables jsonb DEFAULT NULL,
    INOUT experiment_id bigint DEFAULT NULL,
    INOUT max_tps double precision DEFAULT NULL,
    INOUT best_rate double precision DEFAULT NULL,
    INOUT best_tps double precision DEFAULT NULL,
    INOUT best_latency_ms double precision DEFAULT NULL,
    INOUT finding text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_experiment';
COMMENT ON PROCEDURE pgbench_lab.latency_curve(text, integer, interval, double precision, double precision, double precision[], double precision[], text, text[], jsonb, bigint, double precision, double precision, double precision, double precision, text) IS
    'One workload at a ladder of rates: the highest throughput at which a latency percentile stays under a target';
REVOKE ALL ON PROCEDURE pgbench_lab.latency_curve(text, integer, interval, double precision, double precision, double precision[], double precision[], text, text[], jsonb, bigint, double precision, double precision, double precision, double precision, text) FROM PUBLIC;

INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, preparation, finding, report, description)
VALUES ('latency_curve', 'pgbench_lab.latency_curve(text, integer, interval, double precision, double precision, double precision[], double precision[], text, text[], jsonb, bigint, double precision, double precision, double precision, double precision, text)',
        'pgbench_lab_internal.latency_curve_plan(text, integer, interval, double precision, double precision, double precision[], double precision[], text, text[], jsonb, jsonb)', NULL,
        'pgbench_lab_internal.latency_curve_result(bigint)', 'pgbench_lab_internal.report_latency_curve(bigint)',
        'One workload at a ladder of rates: the highest throughput at which a latency percentile stays under a target')
ON CONFLICT (kind) DO UPDATE SET procedure = EXCLUDED.procedure, planner = EXCLUDED.planner,
    preparation = EXCLUDED.preparation, finding = EXCLUDED.finding, report = EXCLUDED.report,
    description = EXCLUDED.description;

-- ---------------------------------------------------------------------------
-- validate_recommendation(): recommend()'s changes for this server, measured.
-- They are split by how they take effect: session settings (given to the
-- runs), reload-level ones (ALTER SYSTEM and a reload, restored after:
-- src/settings_apply.c) and restart-level ones (listed, not measured: the
-- finding names the two-phase compare_settings() CALL that measures them).  The
-- current settings (A) and each group that has changes run in interleaved
-- rounds, as compare_settings() runs its sets; the finding gives, per
-- group, TPS, p99 latency and checkpoints per minute against A.
-- ---------------------------------------------------------------------------

-- The plan: variant 1 the current settings, then one variant per group
-- with changes to measure (session, reload), interleaved in each round.
CREATE FUNCTION pgbench_lab_internal.validate_plan(workload text, clients integer, duration interval,
                                                   rounds integer, label text, caller jsonb)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    changes pg_catalog.jsonb;
    sets pg_catalog.jsonb[] := ARRAY['{}'::pg_catalog.jsonb];
    groups pg_catalog.text[] := ARRAY['current'];
    g pg_catalog.text;
    s pg_catalog.jsonb;
    params pg_catalog.jsonb;
BEGIN
    IF workload IS NULL OR clients IS NULL OR duration IS NULL OR rounds IS NULL THEN
        RAISE EXCEPTION 'workload, clients, duration and rounds must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass values or leave them out for the defaults (1 client, 10 s, 3 rounds).';
    END IF;
    IF rounds OPERATOR(pg_catalog.<) 1 OR rounds OPERATOR(pg_catalog.>) 100 THEN
        RAISE EXCEPTION 'rounds must be from 1 to 100'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Three rounds or more give a spread worth reading.';
    END IF;
    -- recommend()'s changes, each with its group (session, reload, restart,
    -- sysctl); those outside the server's limits are not measured
    SELECT COALESCE(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('name', r.name, 'current', r.current,
                        'recommended', r.recommended, 'grp', r.context,
                        'measured', r.within_limits AND r.context OPERATOR(pg_catalog.=) ANY (ARRAY['session', 'reload']),
                        'two_phase', r.within_limits AND r.context OPERATOR(pg_catalog.=) 'restart'
                                     AND pgbench_lab_internal.restart_comparable(r.name))
                        ORDER BY r.context, r.name), '[]')
      INTO changes FROM pgbench_lab.recommend() r
     WHERE r.changes;
    FOREACH g IN ARRAY ARRAY['session', 'reload'] LOOP
        SELECT pg_catalog.jsonb_object_agg(c OPERATOR(pg_catalog.->>) 'name', c OPERATOR(pg_catalog.->>) 'recommended')
          INTO s FROM pg_catalog.jsonb_array_elements(changes) c
         WHERE c OPERATOR(pg_catalog.->>) 'grp' OPERATOR(pg_catalog.=) g
           AND (c OPERATOR(pg_catalog.->>) 'measured')::pg_catalog.bool;
        IF s IS NOT NULL THEN
            sets := sets OPERATOR(pg_catalog.||) s;
            groups := groups OPERATOR(pg_catalog.||) g;
        END IF;
    END LOOP;
    IF pg_catalog.cardinality(sets) OPERATOR(pg_catalog.<) 2 THEN
        RAISE EXCEPTION 'recommend() proposes no session- or reload-level change for this server'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'SELECT * FROM pgbench_lab.recommend() shows its recommendations; those it would change need a restart, or none differ from the live values.';
    END IF;
    params := pg_catalog.jsonb_build_object('settings', pg_catalog.to_jsonb(sets), 'groups', pg_catalog.to_jsonb(groups),
                  'changes', changes, 'clients', clients, 'duration', duration::pg_catalog.text, 'rounds', rounds);
    RETURN pg_catalog.jsonb_build_object('workload', workload, 'label', label, 'params', params,
        'system_names', (SELECT COALESCE(pg_catalog.jsonb_agg(DISTINCT k.key ORDER BY k.key), '[]')
                           FROM pg_catalog.unnest(sets) AS a(s),
                                pg_catalog.jsonb_object_keys(pgbench_lab_internal.settings_part(a.s, true)) AS k(key)),
        'steps', (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                             'variant', v.v, 'round', r.r, 'name', groups[v.v],
                             'about', CASE WHEN v.v OPERATOR(pg_catalog.=) 1 THEN 'the current settings'
                                           ELSE pg_catalog.format('the recommended %s settings', groups[v.v]) END,
                             'system', pgbench_lab_internal.settings_part(sets[v.v], true),
                             'run', pg_catalog.jsonb_build_object('workload', workload, 'clients', clients,
                                        'duration', duration::pg_catalog.text, 'label', label,
                                        'settings', pgbench_lab_internal.settings_part(sets[v.v], false)))
                             ORDER BY r.r, v.v)
                    FROM pg_catalog.generate_series(1, rounds) AS r(r),
                         pg_catalog.generate_series(1, pg_catalog.cardinality(sets)) AS v(v)));
END
$$;

-- Per variant: median TPS, its ratio to the current settings paired by
-- round (median, min, max), median p99 latency, checkpoints per minute.
CREATE FUNCTION pgbench_lab_internal.validate_groups(id bigint)
RETURNS TABLE (variant integer, grp text, rounds integer, tps_median double precision,
               ratio_median double precision, ratio_min double precision, ratio_max double precision,
               p99_ms_median double precision, checkpoints_per_min double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH t AS (
        SELECT x.variant, x.round, r.tps, r.latency_p99_ms, r.checkpoints, r.measured_seconds
          FROM pgbench_lab.experiment_runs x
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) id AND r.status OPERATOR(pg_catalog.=) 'done')
    SELECT t.variant,
           (SELECT e.params OPERATOR(pg_catalog.->) 'groups' OPERATOR(pg_catalog.->>) (t.variant OPERATOR(pg_catalog.-) 1)
              FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) id),
           pg_catalog.count(*)::integer,
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY t.tps),
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY pgbench_lab_internal.ratio(t.tps, a.tps)),
           pg_catalog.min(pgbench_lab_internal.ratio(t.tps, a.tps)), pg_catalog.max(pgbench_lab_internal.ratio(t.tps, a.tps)),
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY t.latency_p99_ms),
           CASE WHEN pg_catalog.sum(t.measured_seconds) OPERATOR(pg_catalog.>) 0::pg_catalog.float8
                THEN pg_catalog.sum(t.checkpoints)::pg_catalog.float8 OPERATOR(pg_catalog.*) 60::pg_catalog.float8
                     OPERATOR(pg_catalog./) pg_catalog.sum(t.measured_seconds) END
      FROM t LEFT JOIN t a ON a.variant OPERATOR(pg_catalog.=) 1 AND a.round OPERATOR(pg_catalog.=) t.round
     GROUP BY t.variant
     ORDER BY t.variant
$$;

-- Whether compare_settings() takes a restart-level setting in restart_settings
-- (src/settings_apply.c refuses the rest: what the server needs to start,
-- to be reached or to keep its copies, and string values).
CREATE FUNCTION pgbench_lab_internal.restart_comparable(setting_name text)
RETURNS boolean LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT COALESCE((SELECT s.context OPERATOR(pg_catalog.=) 'postmaster' AND s.vartype OPERATOR(pg_catalog.<>) 'string'
                            AND s.source OPERATOR(pg_catalog.<>) ALL (ARRAY['command line', 'environment variable'])
                            AND NOT s.category OPERATOR(pg_catalog.~) '^(Connections and Authentication|File Locations|Replication|Write-Ahead Log / Archiv|Write-Ahead Log / Recovery)'
                            AND NOT s.name OPERATOR(pg_catalog.~) '(_preload_libraries|_library|_library_path|_command|_file)$'
                       FROM pg_catalog.pg_settings s WHERE s.name OPERATOR(pg_catalog.=) setting_name), false)
$$;

-- The restart-level changes compare_settings() can measure, as the CALL
-- that does it in two phases, with this experiment's workload and sizes.
CREATE FUNCTION pgbench_lab_internal.validate_two_phase(id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format('CALL pgbench_lab.compare_settings(%s, restart_settings => %s, clients => %s, '
                             'duration => %s, rounds => %s)',
                             pg_catalog.quote_literal(e.workload),
                             pg_catalog.quote_literal(pg_catalog.jsonb_object_agg(c OPERATOR(pg_catalog.->>) 'name',
                                                                                  c OPERATOR(pg_catalog.->>) 'recommended')::pg_catalog.text),
                             e.params OPERATOR(pg_catalog.->>) 'clients',
                             pg_catalog.quote_literal(e.params OPERATOR(pg_catalog.->>) 'duration'),
                             e.params OPERATOR(pg_catalog.->>) 'rounds')
      FROM pgbench_lab.experiments e, pg_catalog.jsonb_array_elements(e.params OPERATOR(pg_catalog.->) 'changes') c
     WHERE e.experiment_id OPERATOR(pg_catalog.=) id
       AND (c OPERATOR(pg_catalog.->>) 'two_phase')::pg_catalog.bool
     GROUP BY e.workload, e.params
$$;

-- The verdict per measured group, and the restart-level rest.
CREATE FUNCTION pgbench_lab_internal.validate_finding(id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT COALESCE((SELECT pg_catalog.string_agg(pg_catalog.format(
                'The recommended %s settings (%s) gave %s %s TPS (median of %s rounds, ×%s to ×%s: %s); '
                'p99 latency %s → %s ms; checkpoints per minute %s → %s.',
                g.grp, (SELECT pg_catalog.string_agg(c OPERATOR(pg_catalog.->>) 'name', ', ' ORDER BY c OPERATOR(pg_catalog.->>) 'name')
                          FROM pgbench_lab.experiments e, pg_catalog.jsonb_array_elements(e.params OPERATOR(pg_catalog.->) 'changes') c
                         WHERE e.experiment_id OPERATOR(pg_catalog.=) id
                           AND c OPERATOR(pg_catalog.->>) 'grp' OPERATOR(pg_catalog.=) g.grp
                           AND (c OPERATOR(pg_catalog.->>) 'measured')::pg_catalog.bool),
                CASE WHEN g.ratio_median IS NULL THEN 'no comparable'
                     ELSE pgbench_lab_internal.pct_change(g.ratio_median, 1::pg_catalog.float8) END,
                (SELECT e.workload FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) id),
                g.rounds, pgbench_lab_internal.fmt(g.ratio_min, 3), pgbench_lab_internal.fmt(g.ratio_max, 3),
                CASE WHEN g.ratio_median IS NULL THEN 'no round of the current settings to compare with'
                     WHEN g.rounds OPERATOR(pg_catalog.<) 2 THEN 'one round only, no spread to judge by'
                     WHEN g.ratio_min OPERATOR(pg_catalog.<) 1::pg_catalog.float8 AND g.ratio_max OPERATOR(pg_catalog.>) 1::pg_catalog.float8
                     THEN 'the rounds disagree on the direction, within the noise'
                     WHEN g.ratio_min OPERATOR(pg_catalog.>=) 1::pg_catalog.float8 THEN 'faster in every round'
                     ELSE 'slower in every round' END,
                pgbench_lab_internal.fmt(a.p99_ms_median, 2), pgbench_lab_internal.fmt(g.p99_ms_median, 2),
                pgbench_lab_internal.fmt(a.checkpoints_per_min, 1), pgbench_lab_internal.fmt(g.checkpoints_per_min, 1)),
                ' ' ORDER BY g.variant)
              FROM pgbench_lab_internal.validate_groups(id) g
              LEFT JOIN pgbench_lab_internal.validate_groups(id) a ON a.variant OPERATOR(pg_catalog.=) 1
             WHERE g.variant OPERATOR(pg_catalog.>) 1), 'No finished runs to compare.')
           OPERATOR(pg_catalog.||)
           COALESCE((SELECT pg_catalog.format(' Not measured: %s. A restart-level setting takes ALTER SYSTEM and a '
                                              'restart, an OS one (sysctl) the kernel''s setting; then run the same workload again.',
                                              pg_catalog.string_agg(pg_catalog.format('%s %s → %s (%s)', c OPERATOR(pg_catalog.->>) 'name',
                                                  c OPERATOR(pg_catalog.->>) 'current', c OPERATOR(pg_catalog.->>) 'recommended',
                                                  CASE WHEN c OPERATOR(pg_catalog.->>) 'grp' OPERATOR(pg_catalog.=) ANY (ARRAY['session', 'reload'])
                                                       THEN 'outside the server''s limits' ELSE c OPERATOR(pg_catalog.->>) 'grp' END),
                                                  ', ' ORDER BY c OPERATOR(pg_catalog.->>) 'name'))
                       FROM pgbench_lab.experiments e, pg_catalog.jsonb_array_elements(e.params OPERATOR(pg_catalog.->) 'changes') c
                      WHERE e.experiment_id OPERATOR(pg_catalog.=) id
                        AND NOT (c OPERATOR(pg_catalog.->>) 'measured')::pg_catalog.bool
                     HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0), '')
           OPERATOR(pg_catalog.||)
           COALESCE(' To measure the restart-level ones, in two phases with a restart between them: '
                    OPERATOR(pg_catalog.||) pgbench_lab_internal.validate_two_phase(id)
                    OPERATOR(pg_catalog.||) '; then restart the server when it asks, and CALL pgbench_lab.resume(experiment_id).', '')
$$;

-- The procedure's INOUT columns.
CREATE FUNCTION pgbench_lab_internal.validate_result(id bigint)
RETURNS TABLE (experiment_id bigint, finding text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT id, pgbench_lab.printable(pgbench_lab_internal.validate_finding(id))
$$;

CREATE FUNCTION pgbench_lab_internal.report_validate(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    p pg_catalog.jsonb;
BEGIN
    SELECT e.params INTO p FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) report_validate.experiment_id;
    RETURN QUERY SELECT 'Recommendations (current → recommended)';
    RETURN QUERY
        SELECT pg_catalog.format('  %-32s %12s → %-12s %s', pgbench_lab.printable(c OPERATOR(pg_catalog.->>) 'name'),
                      pgbench_lab.printable(c OPERATOR(pg_catalog.->>) 'current'),
                      pgbench_lab.printable(c OPERATOR(pg_catalog.->>) 'recommended'),
                      CASE WHEN (c OPERATOR(pg_catalog.->>) 'measured')::pg_catalog.bool
                           THEN pg_catalog.format('%s, measured', pgbench_lab.printable(c OPERATOR(pg_catalog.->>) 'grp'))
                           ELSE pg_catalog.format('%s, not measured', pgbench_lab.printable(c OPERATOR(pg_catalog.->>) 'grp')) END)
          FROM pg_catalog.jsonb_array_elements(p OPERATOR(pg_catalog.->) 'changes') WITH ORDINALITY AS a(c, i)
         ORDER BY a.i;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'Per group: median over rounds; TPS ratio to the current settings, paired round by round';
    RETURN QUERY SELECT pg_catalog.format('  %-8s  %6s  %10s  %22s  %8s  %14s', 'group', 'rounds', 'median TPS',
                       'ratio: median (min-max)', 'p99 ms', 'checkpoints/min');
    RETURN QUERY
        SELECT pg_catalog.format('  %-8s  %6s  %10s  %22s  %8s  %14s', pgbench_lab.printable(g.grp), g.rounds, pgbench_lab_internal.fmt(g.tps_median),
                      pg_catalog.format('×%s (×%s-×%s)', pgbench_lab_internal.fmt(g.ratio_median, 3),
                                        pgbench_lab_internal.fmt(g.ratio_min, 3), pgbench_lab_internal.fmt(g.ratio_max, 3)),
                      pgbench_lab_internal.fmt(g.p99_ms_median, 2), pgbench_lab_internal.fmt(g.checkpoints_per_min, 1))
          FROM pgbench_lab_internal.validate_groups(experiment_id) g;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pgbench_lab_internal.wrap(pgbench_lab.printable(pgbench_lab_internal.validate_finding(experiment_id)), '');
END
$$;

CREATE PROCEDURE pgbench_lab.validate_recommendation(
    workload text,
    clients integer DEFAULT 1,
    duration interval DEFAULT '10 s',
    rounds integer DEFAULT 3,
    label text DEFAULT NULL,
    INOUT experiment_id bigint DEFAULT NULL,
    INOUT finding text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_experiment';
COMMENT ON PROCEDURE pgbench_lab.validate_recommendation(text, integer, interval, integer, text, bigint, text) IS
    'recommend()''s session- and reload-level changes measured against the current settings, rounds interleaved, restored after; the restart-level rest listed';

REVOKE ALL ON PROCEDURE pgbench_lab.validate_recommendation(text, integer, interval, integer, text, bigint, text) FROM PUBLIC;

INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, preparation, finding, report, description)
VALUES ('validate_recommendation', 'pgbench_lab.validate_recommendation(text, integer, interval, integer, text, bigint, text)',
        'pgbench_lab_internal.validate_plan(text, integer, interval, integer, text, jsonb)', NULL,
        'pgbench_lab_internal.validate_result(bigint)', 'pgbench_lab_internal.report_validate(bigint)',
        'recommend()''s session- and reload-level changes against the current settings, rounds interleaved; TPS, p99 and checkpoints per group')
ON CONFLICT (kind) DO UPDATE SET procedure = EXCLUDED.procedure, planner = EXCLUDED.planner,
    preparation = EXCLUDED.preparation, finding = EXCLUDED.finding, report = EXCLUDED.report,
    description = EXCLUDED.description;
-- ---------------------------------------------------------------------------
-- Reports: text for psql, one line per row, charts in Unicode blocks.
-- ---------------------------------------------------------------------------

-- A paragraph cut into lines of at most width characters at spaces; the
-- first line starts with lead, the others with as many spaces.
CREATE FUNCTION pgbench_lab_internal.wrap(paragraph text, lead text, width integer DEFAULT 100)
RETURNS SETOF text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    word pg_catalog.text;
    line pg_catalog.text := lead;
    fresh pg_catalog.bool := true;
BEGIN
    FOREACH word IN ARRAY pg_catalog.regexp_split_to_array(paragraph, ' +') LOOP
        IF NOT fresh AND pg_catalog.length(line) OPERATOR(pg_catalog.+) 1 OPERATOR(pg_catalog.+) pg_catalog.length(word) OPERATOR(pg_catalog.>) width THEN
            RETURN NEXT line;
            line := pg_catalog.repeat(' ', pg_catalog.length(lead));
            fresh := true;
        END IF;
        line := line OPERATOR(pg_catalog.||) CASE WHEN fresh THEN '' ELSE ' ' END OPERATOR(pg_catalog.||) word;
        fresh := false;
    END LOOP;
    RETURN NEXT line;
END
$$;

-- Vertical bars, top row first: each column a value, eighth-block precision.
-- (The scaling here and below is in numeric: figures of any size, a TPS of
-- 5e-324 beside one of 1e5, neither overflow nor underflow.)
CREATE FUNCTION pgbench_lab_internal.chart_rows(vals double precision[], top double precision, height integer)
RETURNS SETOF text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    blocks CONSTANT pg_catalog.text := ' ▁▂▃▄▅▆▇█';
    k pg_catalog.int4;
    v pg_catalog.float8;
    line pg_catalog.text;
BEGIN
    FOR k IN REVERSE height..1 LOOP
        line := '';
        FOREACH v IN ARRAY vals LOOP
            line := line OPERATOR(pg_catalog.||) CASE
                 WHEN v IS NULL OR top IS NULL OR top OPERATOR(pg_catalog.<=) 0 THEN ' '
                 ELSE pg_catalog.substr(blocks
                           , 1 OPERATOR(pg_catalog.+) LEAST(8
                                     , GREATEST(0
                                              , CAST(GREATEST(0
                                                            , LEAST(height OPERATOR(pg_catalog.*) 8
                                                                  , pg_catalog.round((CAST(v AS numeric) OPERATOR(pg_catalog./) CAST(top AS numeric)) OPERATOR(pg_catalog.*) height OPERATOR(pg_catalog.*) 8))) AS integer) OPERATOR(pg_catalog.-) ((k OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.*) 8)))
                           , 1)
               END;
        END LOOP;
        RETURN NEXT line;
    END LOOP;
END
$$;

-- One character per value between lo and hi (a sparkline); NULL is blank.
CREATE FUNCTION pgbench_lab_internal.spark(vals double precision[], lo double precision, hi double precision)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.string_agg(CASE WHEN v IS NULL THEN ' '
                           ELSE pg_catalog.substr('▁▂▃▄▅▆▇█', 1 OPERATOR(pg_catalog.+) least(7, greatest(0,
                                pg_catalog.round((v::numeric OPERATOR(pg_catalog.-) lo::numeric) OPERATOR(pg_catalog./) CASE WHEN hi::numeric OPERATOR(pg_catalog.<>) lo::numeric THEN hi::numeric OPERATOR(pg_catalog.-) lo::numeric END OPERATOR(pg_catalog.*) 7)))::integer, 1) END,
                      '' ORDER BY i)
      FROM pg_catalog.unnest(vals) WITH ORDINALITY AS u(v, i)
$$;

-- A horizontal bar of v against top, width characters at most.
CREATE FUNCTION pgbench_lab_internal.hbar(v double precision, top double precision, width integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN v IS NULL OR top IS NULL OR top OPERATOR(pg_catalog.<=) 0
                     OR v OPERATOR(pg_catalog.<=) 0 THEN ''
                ELSE pg_catalog.repeat('█', e OPERATOR(pg_catalog./) 8)
                     OPERATOR(pg_catalog.||)
                     pg_catalog.rtrim(pg_catalog.substr(' ▏▎▍▌▋▊▉', 1 OPERATOR(pg_catalog.+) (e OPERATOR(pg_catalog.%) 8), 1))
           END
      FROM (SELECT least(width OPERATOR(pg_catalog.*) 8,
                         pg_catalog.round(((v::numeric OPERATOR(pg_catalog./) top::numeric)
                                           OPERATOR(pg_catalog.*) width) OPERATOR(pg_catalog.*) 8))::integer AS e) s
$$;

-- Per-second TPS chart and hit-ratio line of a run.  Seconds are averaged
-- in groups when a run has more than 60; a last partial second (the clients
-- finishing) is left out.
CREATE FUNCTION pgbench_lab_internal.run_charts(run_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    per pg_catalog.int4;
    last pg_catalog.int4;
    tps pg_catalog.float8[];
    hits pg_catalog.float8[];
    lags pg_catalog.float8[];
    top pg_catalog.float8;
    bars pg_catalog.text[];
    axis CONSTANT pg_catalog.text := pg_catalog.repeat(' ', 9);
BEGIN
    SELECT pg_catalog.ceil(pg_catalog.count(*) OPERATOR(pg_catalog./) 60.0)::integer, pg_catalog.max(p.second) INTO per, last
      FROM pgbench_lab.run_progress p
     WHERE p.run_id OPERATOR(pg_catalog.=) run_charts.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5;
    IF per OPERATOR(pg_catalog.=) 0 THEN
        RETURN QUERY SELECT 'No per-second progress was recorded.';
        RETURN;
    END IF;
    SELECT pg_catalog.array_agg(q.t ORDER BY q.g), pg_catalog.array_agg(q.h ORDER BY q.g),
           pg_catalog.array_agg(q.l ORDER BY q.g) INTO tps, hits, lags
      FROM (SELECT (p.second OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) per AS g, pg_catalog.avg(p.tps) AS t, pg_catalog.avg(p.hit_ratio) AS h,
                   pg_catalog.avg(p.lag_avg_ms) AS l
              FROM pgbench_lab.run_progress p
             WHERE p.run_id OPERATOR(pg_catalog.=) run_charts.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5
             GROUP BY 1) q;
    SELECT pg_catalog.max(t) INTO top FROM pg_catalog.unnest(tps) t;
    RETURN QUERY SELECT pg_catalog.format('TPS per second (%s; top = %s tps)',
                       CASE WHEN per OPERATOR(pg_catalog.=) 1 THEN 'one column per second'
                                ELSE pg_catalog.format('one column per %s seconds, averaged', per) END,
                       pgbench_lab_internal.fmt(top));
    bars := ARRAY(SELECT pgbench_lab_internal.chart_rows(tps, top, 5));
    FOR k IN 1..5 LOOP
        RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad(CASE WHEN k OPERATOR(pg_catalog.=) 1 THEN pgbench_lab_internal.fmt(top, 0) WHEN k OPERATOR(pg_catalog.=) 5 THEN '0' ELSE '' END, 8),
                           bars[k]);
    END LOOP;
    RETURN QUERY SELECT axis OPERATOR(pg_catalog.||) '└' OPERATOR(pg_catalog.||) pg_catalog.repeat('─', pg_catalog.cardinality(tps));
    RETURN QUERY SELECT axis OPERATOR(pg_catalog.||) ' ' OPERATOR(pg_catalog.||) CASE WHEN pg_catalog.cardinality(tps) OPERATOR(pg_catalog.>) 8
        THEN pg_catalog.rpad('1 s', pg_catalog.cardinality(tps) OPERATOR(pg_catalog.-) pg_catalog.length(last OPERATOR(pg_catalog.||) ' s')) OPERATOR(pg_catalog.||) last OPERATOR(pg_catalog.||) ' s' ELSE '1 s' END;
    RETURN QUERY SELECT 'Buffer hit ratio per second (▁ = 0 %, █ = 100 %)';
    RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad('hit', 8), pgbench_lab_internal.spark(hits, 0, 1));
    -- a rate-limited run: how far behind its schedule the clients were
    SELECT pg_catalog.max(l) INTO top FROM pg_catalog.unnest(lags) l;
    IF top IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('Schedule lag per second, average (▁ = 0 ms, █ = %s ms)', pgbench_lab_internal.fmt(top, 3));
        RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad('lag', 8), pgbench_lab_internal.spark(lags, 0, top));
    END IF;
END
$$;

-- A rate as it was asked: 200, 0.05, 1e7 as 10000000 (three decimals at
-- most; beyond what numeric text reads well, as fmt() writes it).
CREATE FUNCTION pgbench_lab_internal.rate_text(rate double precision)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN rate IS NULL THEN '-'
                WHEN pg_catalog.abs(rate) OPERATOR(pg_catalog.>=) 1e15 OR pg_catalog.abs(rate) OPERATOR(pg_catalog.<) 0.001
                THEN pgbench_lab_internal.fmt(rate)
                ELSE pg_catalog.trim_scale(pg_catalog.round(rate::numeric, 3))::pg_catalog.text END
$$;

-- An interval as milliseconds, for latency limits: '50 ms', '0.5 ms'.
CREATE FUNCTION pgbench_lab_internal.ms_text(d interval)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.trim_scale(extract(epoch FROM d) OPERATOR(pg_catalog.*) 1000)::pg_catalog.text OPERATOR(pg_catalog.||) ' ms' $$;

-- What a rate or a latency limit says of a run (runs.rate_sustained holds
-- the rule's verdict, src/results.c: the clients ran at least 98 % of the
-- transactions their schedule set), in plain words for run_notes().
CREATE FUNCTION pgbench_lab_internal.rate_notes(r pgbench_lab.runs)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    first_lag pg_catalog.float8;
    last_lag pg_catalog.float8;
    ran pg_catalog.int8 := coalesce(r.transactions, 0) OPERATOR(pg_catalog.+) coalesce(r.failures, 0);
BEGIN
    IF r.rate IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('Rate-limited run: each of the %s started its transactions on a Poisson schedule of its own at %s tps (%s tps shared by them, as pgbench -R shares its rate among its threads); latencies count from each transaction''s scheduled start, so they include the schedule lag (the time a transaction waited for its client).',
                           pgbench_lab_internal.clients_text(r.clients), pgbench_lab_internal.rate_text(r.rate OPERATOR(pg_catalog./) r.clients),
                           pgbench_lab_internal.rate_text(r.rate));
    END IF;
    IF r.rate_sustained IS FALSE THEN
        SELECT p.lag_avg_ms INTO first_lag FROM pgbench_lab.run_progress p
         WHERE p.run_id OPERATOR(pg_catalog.=) r.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5 AND p.lag_avg_ms IS NOT NULL
         ORDER BY p.second LIMIT 1;
        SELECT p.lag_avg_ms INTO last_lag FROM pgbench_lab.run_progress p
         WHERE p.run_id OPERATOR(pg_catalog.=) r.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5 AND p.lag_avg_ms IS NOT NULL
         ORDER BY p.second DESC LIMIT 1;
        RETURN QUERY SELECT pg_catalog.format('Rate not sustained: %s of %s tps asked. The clients ran %s of the %s transactions their schedule set (%s %%; the rule asks for 98 %%)%s, %s. The server (or its clients) could not keep up: latencies at this rate measure the queue as much as the server.',
                           pgbench_lab_internal.fmt(r.tps), pgbench_lab_internal.rate_text(r.rate), ran, r.scheduled,
                           pgbench_lab_internal.fmt(100.0 OPERATOR(pg_catalog.*) ran OPERATOR(pg_catalog./) CASE WHEN r.scheduled OPERATOR(pg_catalog.>) 0 THEN r.scheduled END),
                           CASE WHEN r.skipped OPERATOR(pg_catalog.>) 0 THEN pg_catalog.format(' and skipped %s', r.skipped) ELSE '' END,
                           CASE WHEN last_lag OPERATOR(pg_catalog.>) (2 OPERATOR(pg_catalog.*) first_lag) AND (last_lag OPERATOR(pg_catalog.-) first_lag) OPERATOR(pg_catalog.>) 100
                                THEN pg_catalog.format('with the schedule lag growing from %s ms in the first second to %s ms in the last (max %s ms)',
                                                       pgbench_lab_internal.fmt(first_lag), pgbench_lab_internal.fmt(last_lag), pgbench_lab_internal.fmt(r.lag_max_ms))
                                ELSE pg_catalog.format('with a schedule lag of %s ms on average (max %s ms)',
                                                       pgbench_lab_internal.fmt(r.lag_avg_ms, 3), pgbench_lab_internal.fmt(r.lag_max_ms, 3)) END);
    END IF;
    IF r.late OPERATOR(pg_catalog.>) 0 THEN
        RETURN QUERY SELECT pg_catalog.format('%s committed transaction(s) (%s %%) took longer than the latency limit of %s%s.',
                           r.late, pgbench_lab_internal.fmt(100.0 OPERATOR(pg_catalog.*) r.late OPERATOR(pg_catalog./) CASE WHEN r.transactions OPERATOR(pg_catalog.>) 0 THEN r.transactions END),
                           pgbench_lab_internal.ms_text(r.latency_limit),
                           CASE WHEN r.rate IS NOT NULL THEN ', counted from their scheduled start' ELSE '' END);
    END IF;
    IF r.skipped OPERATOR(pg_catalog.>) 0 THEN
        RETURN QUERY SELECT pg_catalog.format('%s scheduled transaction(s) were skipped: when their client got to them they were already later than the limit of %s, so they would have been late however fast they ran (pgbench -L skips them too). They count in neither TPS nor the latencies.',
                           r.skipped, pgbench_lab_internal.ms_text(r.latency_limit));
    END IF;
END
$$;

-- Plain words on what the figures of a run need care with.
CREATE FUNCTION pgbench_lab_internal.run_notes(r pgbench_lab.runs)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ct pg_catalog.interval;
    first_hit pg_catalog.float8;
BEGIN
    IF r.via OPERATOR(pg_catalog.=) 'spi' THEN
        RETURN QUERY SELECT 'In-server figures: the clients are background workers inside the server, so there are no network round trips and no client CPU in the way; pgbench over a network will report less.';
    ELSE
        RETURN QUERY SELECT pg_catalog.format('Client figures: the clients are background workers of this server that sent the workload %s, so each statement paid a round trip through the protocol, as pgbench''s would.',
                           pgbench_lab_internal.path_text(r.via, r.target_display));
    END IF;
    RETURN QUERY SELECT pgbench_lab_internal.rate_notes(r);
    -- runs.system is recorded only for a role that may call system_info()
    IF r.system IS NULL AND r.source_server IS NULL AND r.status OPERATOR(pg_catalog.<>) 'running'
       AND EXISTS (SELECT FROM pg_catalog.pg_roles a WHERE a.oid OPERATOR(pg_catalog.=) r.owner::pg_catalog.oid)
       AND NOT pg_catalog.has_function_privilege(r.owner::pg_catalog.oid,
                                                 pg_catalog.to_regprocedure('pgbench_lab.system_info()')::pg_catalog.oid,
                                                 'EXECUTE') THEN
        RETURN QUERY SELECT pg_catalog.format('The machine''s facts (runs.system) were not recorded: role %s may not call pgbench_lab.system_info() (a superuser may grant it EXECUTE, or pg_monitor).',
                           r.owner);
    END IF;
    IF r.workload OPERATOR(pg_catalog.=) 'tpcb-like' AND r.scale OPERATOR(pg_catalog.<) r.clients THEN
        RETURN QUERY SELECT pg_catalog.format('Scale %s is below %s clients: every tpcb-like transaction updates one of only %s pgbench_branches rows, so clients queue on those row locks (branch-row contention) and the figures measure that more than the server. Use a scale of at least the client count.',
                           r.scale, r.clients, r.scale);
    END IF;
    ct := CASE WHEN pgbench_lab_internal.reads_as(r.settings OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->>) 'checkpoint_timeout', 'interval')
               THEN (r.settings OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->>) 'checkpoint_timeout')::interval END;
    IF r.measured_seconds OPERATOR(pg_catalog.<) extract(epoch FROM ct) THEN
        RETURN QUERY SELECT pg_catalog.format('The run (%s s) is shorter than checkpoint_timeout (%s): a steady state includes checkpoints and their full-page writes, so a longer run can show lower TPS.',
                           pgbench_lab_internal.fmt(r.measured_seconds), r.settings OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->>) 'checkpoint_timeout');
    END IF;
    IF r.checkpoints OPERATOR(pg_catalog.>) 0 THEN
        RETURN QUERY SELECT pg_catalog.format('%s checkpoint(s) happened during the run: their writes are inside the measured interval.', r.checkpoints);
    END IF;
    SELECT p.hit_ratio INTO first_hit FROM pgbench_lab.run_progress p
     WHERE p.run_id OPERATOR(pg_catalog.=) r.run_id ORDER BY p.second LIMIT 1;
    IF first_hit OPERATOR(pg_catalog.<) 0.9 THEN
        RETURN QUERY SELECT pg_catalog.format('Cold cache at the start: the buffer hit ratio in the first second was %s %% (%s %% over the whole run), so the first seconds waited for reads. Warm the cache first or run longer to measure the steady state.',
                           pgbench_lab_internal.fmt(first_hit OPERATOR(pg_catalog.*) 100), pgbench_lab_internal.fmt(r.hit_ratio OPERATOR(pg_catalog.*) 100));
    END IF;
    IF r.failures OPERATOR(pg_catalog.>) 0 THEN
        RETURN QUERY SELECT pg_catalog.format('%s transaction(s) failed (serialisation or deadlock, after %s tries); TPS counts committed transactions only.',
                           r.failures, r.max_tries);
    END IF;
    IF r.status OPERATOR(pg_catalog.=) 'running' THEN
        RETURN QUERY SELECT 'The run is still going: the figures so far are partial.'::pg_catalog.text;
    ELSIF r.status OPERATOR(pg_catalog.<>) 'done' THEN
        RETURN QUERY SELECT pg_catalog.format('The run ended %s%s: its figures cover only what it measured until then.',
                           r.status, coalesce(' (' OPERATOR(pg_catalog.||) r.error OPERATOR(pg_catalog.||) ')', ''));
    END IF;
END
$$;

-- A run of scripts: per script and per command, as pgbench -r reports.
CREATE FUNCTION pgbench_lab_internal.script_lines(run_id bigint)
RETURNS SETOF text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT line FROM (
        SELECT s.script, 0 AS command, 0 AS part,
               pg_catalog.format('  script %s "%s"%s, weight %s: %s transactions (%s %%), latency avg %s ms, failures %s, retries %s',
                   s.script, s.name, ' saved by ' OPERATOR(pg_catalog.||) s.owner, s.weight, coalesce(s.transactions::pg_catalog.text, '-'),
                   pgbench_lab_internal.fmt(100.0 OPERATOR(pg_catalog.*) s.transactions
                       OPERATOR(pg_catalog./) CASE WHEN pg_catalog.sum(s.transactions) OVER () OPERATOR(pg_catalog.>) 0
                                                   THEN pg_catalog.sum(s.transactions) OVER () END, 1),
                   pgbench_lab_internal.fmt(s.latency_avg_ms, 3), coalesce(s.failures::pg_catalog.text, '-'),
                   coalesce(s.retries::pg_catalog.text, '-')) AS line
          FROM pgbench_lab.run_scripts s WHERE s.run_id OPERATOR(pg_catalog.=) script_lines.run_id
        UNION ALL
        SELECT s.script, 0, 1, '    executions    avg ms  failures  retries  line  command'
          FROM pgbench_lab.run_scripts s WHERE s.run_id OPERATOR(pg_catalog.=) script_lines.run_id
        UNION ALL
        SELECT c.script, c.command, 2,
               pg_catalog.format('    %s  %s  %s  %s  %s  %s',
                   pg_catalog.lpad(coalesce(c.executions::pg_catalog.text, '-'), 10),
                   pg_catalog.lpad(pgbench_lab_internal.fmt(c.latency_avg_ms, 3), 8),
                   pg_catalog.lpad(coalesce(c.failures::pg_catalog.text, '-'), 8),
                   pg_catalog.lpad(coalesce(c.retries::pg_catalog.text, '-'), 7),
                   pg_catalog.lpad(c.line::pg_catalog.text, 4),
                   pg_catalog.left(pg_catalog.regexp_replace(c.command_text, '\s+', ' ', 'g'), 70))
          FROM pgbench_lab.run_commands c WHERE c.run_id OPERATOR(pg_catalog.=) script_lines.run_id
    ) x ORDER BY x.script, x.part, x.command
$$;

-- A target's machine in a few words, from its system_info() as recorded
-- (run_targets.system): ' on 4 CPUs, 16 GB memory', or '' when unknown.
CREATE FUNCTION pgbench_lab_internal.system_text(system jsonb)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN c.cpus IS NULL AND m.bytes IS NULL THEN ''
                ELSE ' on ' OPERATOR(pg_catalog.||) pg_catalog.concat_ws(', ',
                         c.cpus OPERATOR(pg_catalog.||) CASE WHEN c.cpus OPERATOR(pg_catalog.=) '1' THEN ' CPU' ELSE ' CPUs' END,
                         pg_catalog.pg_size_pretty(m.bytes) OPERATOR(pg_catalog.||) ' memory') END
      FROM (SELECT CASE WHEN system OPERATOR(pg_catalog.->>) 'cpus_effective' OPERATOR(pg_catalog.~) '^[0-9]{1,9}(\.[0-9]{1,6})?$'
                        THEN system OPERATOR(pg_catalog.->>) 'cpus_effective' END AS cpus) c,
           (SELECT CASE WHEN system OPERATOR(pg_catalog.->>) 'memory_limit' OPERATOR(pg_catalog.~) '^[0-9]{1,30}$'
                        THEN (system OPERATOR(pg_catalog.->>) 'memory_limit')::numeric END AS bytes) m
$$;

-- A standby's recovery conflicts over the run (run_targets.conflicts and
-- conflicts_by_kind): '3 (snapshot 3), by ...', '0, by ...', or why there
-- is no count.
CREATE FUNCTION pgbench_lab_internal.conflicts_text(conflicts bigint, by_kind jsonb)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN conflicts IS NULL THEN 'not counted: the standby could not be read at the end of the run'
                ELSE conflicts::pg_catalog.text OPERATOR(pg_catalog.||) coalesce(' (' OPERATOR(pg_catalog.||) (
                    SELECT pg_catalog.string_agg(e.key OPERATOR(pg_catalog.||) ' ' OPERATOR(pg_catalog.||) e.value, ', ' ORDER BY e.key)
                      FROM pg_catalog.jsonb_each_text(CASE WHEN pg_catalog.jsonb_typeof(by_kind) OPERATOR(pg_catalog.=) 'object'
                                                           THEN by_kind ELSE '{}' END) e
                     WHERE e.value OPERATOR(pg_catalog.<>) '0') OPERATOR(pg_catalog.||) ')', '')
                     OPERATOR(pg_catalog.||) ', by the standby''s counters for its database' END
$$;

-- A run with several targets, or on a standby: each server's facts and
-- figures, over the run's one measured interval, and a standby's recovery
-- conflicts there.
CREATE FUNCTION pgbench_lab_internal.target_lines(run_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t pgbench_lab.run_targets;
    n pg_catalog.int8;
BEGIN
    SELECT pg_catalog.count(*) INTO n FROM pgbench_lab.run_targets x
     WHERE x.run_id OPERATOR(pg_catalog.=) target_lines.run_id;
    IF n OPERATOR(pg_catalog.<) 2 AND NOT EXISTS (SELECT FROM pgbench_lab.run_targets x
                                                   WHERE x.run_id OPERATOR(pg_catalog.=) target_lines.run_id AND x.in_recovery) THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT CASE WHEN n OPERATOR(pg_catalog.<=) 1 THEN 'Target'
                             WHEN EXISTS (SELECT FROM pgbench_lab.run_targets x
                                           WHERE x.run_id OPERATOR(pg_catalog.=) target_lines.run_id
                                             AND x.first_client IS NOT NULL)
                             THEN 'Targets (each took a block of clients, as target_clients gave; the same measured interval for all)'
                             ELSE 'Targets (client i went to target (i - 1) % n + 1; the same measured interval for all)' END;
    FOR t IN SELECT * FROM pgbench_lab.run_targets x WHERE x.run_id OPERATOR(pg_catalog.=) target_lines.run_id
              ORDER BY x.target LOOP
        RETURN QUERY SELECT pg_catalog.format('  %s  %s', t.target, t.target_display);
        RETURN QUERY SELECT pg_catalog.format('     PostgreSQL %s%s, %s; %s, %s transactions, %s tps, latency avg %s ms, %s failures',
                           coalesce(t.server_version, '?'),
                           pgbench_lab_internal.system_text(t.system) OPERATOR(pg_catalog.||)
                           CASE WHEN t.system IS NULL AND t.system_note IS NOT NULL
                                THEN ' (its system facts not read: ' OPERATOR(pg_catalog.||) t.system_note OPERATOR(pg_catalog.||) ')'
                                ELSE '' END,
                           CASE WHEN t.in_recovery THEN 'a standby (in recovery)' WHEN NOT t.in_recovery THEN 'not in recovery' ELSE 'recovery unknown' END,
                           pgbench_lab_internal.clients_text(t.clients)
                           OPERATOR(pg_catalog.||) CASE WHEN t.first_client IS NOT NULL
                                                        THEN pg_catalog.format(' (%s to %s)', t.first_client,
                                                                               ((t.first_client OPERATOR(pg_catalog.+) t.clients) OPERATOR(pg_catalog.-) 1))
                                                        ELSE '' END,
                           coalesce(t.transactions::pg_catalog.text, '-'),
                           pgbench_lab_internal.fmt(t.tps), pgbench_lab_internal.fmt(t.latency_avg_ms, 3),
                           coalesce(t.failures::pg_catalog.text, '-'));
        IF t.scripts IS NOT NULL THEN
            RETURN QUERY SELECT pg_catalog.format('     split run: its clients ran only the scripts that %s: %s',
                               CASE WHEN t.in_recovery THEN 'read' ELSE 'write' END,
                               pg_catalog.array_to_string(t.scripts, ', '));
        END IF;
        IF t.clients_failed OPERATOR(pg_catalog.>) 0 THEN
            RETURN QUERY SELECT pg_catalog.format('     %s of its %s ended failed: %s', t.clients_failed,
                               pgbench_lab_internal.clients_text(t.clients), coalesce(t.error, 'no error recorded'));
        END IF;
        IF t.in_recovery THEN
            RETURN QUERY SELECT pg_catalog.format('     recovery conflicts during the run: %s%s',
                               pgbench_lab_internal.conflicts_text(t.conflicts, t.conflicts_by_kind),
                               CASE WHEN t.conflicts IS NULL AND t.conflicts_error IS NOT NULL
                                    THEN ' (' OPERATOR(pg_catalog.||) t.conflicts_error OPERATOR(pg_catalog.||) ')'
                                    ELSE '' END);
        END IF;
    END LOOP;
END;
$$;

CREATE FUNCTION pgbench_lab_internal.report_run(run_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r pgbench_lab.runs;
    srv pg_catalog.jsonb;
BEGIN
    SELECT * INTO r FROM pgbench_lab.runs x WHERE x.run_id OPERATOR(pg_catalog.=) report_run.run_id;
    srv := coalesce(r.settings OPERATOR(pg_catalog.->) 'server', '{}');
    RETURN QUERY SELECT pg_catalog.format('Run %s: %s, %s, %s', r.run_id, r.workload, pgbench_lab_internal.clients_text(r.clients),
                       coalesce(pgbench_lab_internal.seconds_text(r.duration),
                                r.transactions_per_client OPERATOR(pg_catalog.||) ' transactions per client'));
    IF r.label IS NOT NULL THEN
        RETURN QUERY SELECT 'label: ' OPERATOR(pg_catalog.||) r.label;
    END IF;
    RETURN QUERY SELECT pg_catalog.format('status %s, started %s, measured %s s', r.status,
                       pg_catalog.to_char(r.started_at, 'YYYY-MM-DD HH24:MI:SS TZ'), pgbench_lab_internal.fmt(r.measured_seconds));
    IF r.source_server IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('imported from %s, where it was run %s', r.source_server, r.source_run_id);
    END IF;
    -- a libpq run records its target's settings, read there
    RETURN QUERY SELECT pg_catalog.format('%s: PostgreSQL %s, shared_buffers %s, max_wal_size %s, checkpoint_timeout %s, synchronous_commit %s',
                       CASE WHEN r.via OPERATOR(pg_catalog.=) 'spi' THEN 'server' ELSE 'target server' END,
                       coalesce(srv OPERATOR(pg_catalog.->>) 'server_version', '-'), coalesce(srv OPERATOR(pg_catalog.->>) 'shared_buffers', '-'),
                       coalesce(srv OPERATOR(pg_catalog.->>) 'max_wal_size', '-'), coalesce(srv OPERATOR(pg_catalog.->>) 'checkpoint_timeout', '-'),
                       coalesce(srv OPERATOR(pg_catalog.->>) 'synchronous_commit', '-'));
    RETURN QUERY SELECT pg_catalog.format('scale %s, max tries %s, random seed %s, session settings: %s',
                       coalesce(r.scale::pg_catalog.text, '-'), r.max_tries, coalesce(r.random_seed::pg_catalog.text, '-'),
                       pgbench_lab_internal.settings_text(r.settings OPERATOR(pg_catalog.->) 'session'));
    IF r.rate IS NOT NULL OR r.latency_limit IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('%s, %s',
                           coalesce('rate ' OPERATOR(pg_catalog.||) pgbench_lab_internal.rate_text(r.rate) OPERATOR(pg_catalog.||) ' tps asked', 'no rate (as fast as possible)'),
                           coalesce('latency limit ' OPERATOR(pg_catalog.||) pgbench_lab_internal.ms_text(r.latency_limit), 'no latency limit'));
    END IF;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pg_catalog.format('Figures (%s)', pgbench_lab_internal.path_text(r.via, r.target_display));
    RETURN QUERY SELECT pg_catalog.format('  transactions  %s   failures %s   retries %s', coalesce(r.transactions::pg_catalog.text, '-'),
                       coalesce(r.failures::pg_catalog.text, '-'), coalesce(r.retries::pg_catalog.text, '-'));
    RETURN QUERY SELECT pg_catalog.format('  TPS           %s', pgbench_lab_internal.fmt(r.tps));
    IF r.rate IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('  rate          %s tps asked: %s of the %s scheduled transactions ran (%s %%), %s',
                           pgbench_lab_internal.rate_text(r.rate), coalesce(r.transactions, 0) OPERATOR(pg_catalog.+) coalesce(r.failures, 0),
                           coalesce(r.scheduled::pg_catalog.text, '-'),
                           pgbench_lab_internal.fmt(100.0 OPERATOR(pg_catalog.*) (coalesce(r.transactions, 0) OPERATOR(pg_catalog.+) coalesce(r.failures, 0))
                                                    OPERATOR(pg_catalog./) CASE WHEN r.scheduled OPERATOR(pg_catalog.>) 0 THEN r.scheduled END),
                           CASE WHEN r.rate_sustained THEN 'sustained' WHEN NOT r.rate_sustained THEN 'NOT sustained' ELSE '-' END);
        RETURN QUERY SELECT pg_catalog.format('  schedule lag  avg %s ms   max %s ms', pgbench_lab_internal.fmt(r.lag_avg_ms, 3),
                           pgbench_lab_internal.fmt(r.lag_max_ms, 3));
    END IF;
    IF r.latency_limit IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('  late          %s over %s (%s %% of committed)%s',
                           coalesce(r.late::pg_catalog.text, '-'), pgbench_lab_internal.ms_text(r.latency_limit),
                           pgbench_lab_internal.fmt(100.0 OPERATOR(pg_catalog.*) r.late OPERATOR(pg_catalog./) CASE WHEN r.transactions OPERATOR(pg_catalog.>) 0 THEN r.transactions END),
                           CASE WHEN r.rate IS NOT NULL THEN pg_catalog.format(', %s skipped', coalesce(r.skipped::pg_catalog.text, '-')) ELSE '' END);
    END IF;
    IF r.sample_rate IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('  samples       %s kept in run_samples (sample rate %s)%s', coalesce(r.samples::pg_catalog.text, '-'),
                           r.sample_rate, CASE WHEN r.samples_dropped OPERATOR(pg_catalog.>) 0
                                               THEN pg_catalog.format(', %s drawn but not kept', r.samples_dropped) ELSE '' END);
    END IF;
    RETURN QUERY SELECT pg_catalog.format('  latency (ms)  avg %s   stddev %s', pgbench_lab_internal.fmt(r.latency_avg_ms, 3),
                       pgbench_lab_internal.fmt(r.latency_stddev_ms, 3));
    RETURN QUERY SELECT pg_catalog.format('                p50 %s   p90 %s   p95 %s   p99 %s   max %s',
                       pgbench_lab_internal.fmt(r.latency_p50_ms, 3), pgbench_lab_internal.fmt(r.latency_p90_ms, 3),
                       pgbench_lab_internal.fmt(r.latency_p95_ms, 3), pgbench_lab_internal.fmt(r.latency_p99_ms, 3),
                       pgbench_lab_internal.fmt(r.latency_max_ms, 3));
    RETURN QUERY SELECT pg_catalog.format('  buffers       hit ratio %s %% (%s hits, %s reads)', pgbench_lab_internal.fmt(r.hit_ratio OPERATOR(pg_catalog.*) 100, 2),
                       coalesce(r.blks_hit::pg_catalog.text, '-'), coalesce(r.blks_read::pg_catalog.text, '-'));
    RETURN QUERY SELECT pg_catalog.format('  WAL written   %s, checkpoints during the run: %s',
                       coalesce(pg_catalog.pg_size_pretty(r.wal_bytes), '-'), coalesce(r.checkpoints::pg_catalog.text, '-'));
    RETURN QUERY SELECT pgbench_lab_internal.target_lines(r.run_id);
    IF EXISTS (SELECT FROM pgbench_lab.run_scripts s WHERE s.run_id OPERATOR(pg_catalog.=) r.run_id) THEN
        RETURN QUERY SELECT '';
        RETURN QUERY SELECT 'Scripts (per command, as pgbench -r; latencies of the executions that completed)';
        IF r.variables IS NOT NULL THEN
            RETURN QUERY SELECT '  variables ' OPERATOR(pg_catalog.||) r.variables::pg_catalog.text;
        END IF;
        RETURN QUERY SELECT pgbench_lab_internal.script_lines(r.run_id);
    END IF;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pgbench_lab_internal.run_charts(r.run_id);
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pgbench_lab_internal.telemetry_lines(r.run_id);
    RETURN QUERY SELECT pgbench_lab_internal.replication_lines(r.run_id);
    RETURN QUERY SELECT 'Notes';
    RETURN QUERY SELECT x.w FROM pgbench_lab_internal.run_notes(r) WITH ORDINALITY AS n(t, i),
                                 pgbench_lab_internal.wrap(n.t, '  - ') WITH ORDINALITY AS x(w, j)
                        ORDER BY n.i, x.j;
END
$$;

CREATE FUNCTION pgbench_lab_internal.report_experiment(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    e pgbench_lab.experiments;
    n pg_catalog.int4;
    stopped pg_catalog.bool;
    body pg_catalog.regproc;
BEGIN
    SELECT * INTO e FROM pgbench_lab.experiments x WHERE x.experiment_id OPERATOR(pg_catalog.=) report_experiment.experiment_id;
    stopped := pgbench_lab_internal.experiment_stopped(e);
    SELECT pg_catalog.count(*) INTO n FROM pgbench_lab.experiment_runs x WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id;
    RETURN QUERY SELECT pg_catalog.format('Experiment %s: %s of %s, %s per run%s', e.experiment_id,
                       pg_catalog.replace(e.kind, '_', ' '), e.workload,
                       CASE WHEN pgbench_lab_internal.reads_as(e.params OPERATOR(pg_catalog.->>) 'duration', 'interval')
                            THEN pgbench_lab_internal.seconds_text((e.params OPERATOR(pg_catalog.->>) 'duration')::interval) ELSE '-' END,
                       CASE WHEN e.kind OPERATOR(pg_catalog.=) 'sweep' THEN ', clients ' OPERATOR(pg_catalog.||) (SELECT pg_catalog.string_agg(c, ', ')
                                                    FROM pg_catalog.jsonb_array_elements_text(e.params OPERATOR(pg_catalog.->) 'clients') c)
                            WHEN e.kind OPERATOR(pg_catalog.=) 'cold_vs_warm' THEN ', ' OPERATOR(pg_catalog.||) pgbench_lab_internal.clients_text((e.params OPERATOR(pg_catalog.->>) 'clients')::integer)
                            ELSE pg_catalog.format(', %s%s', pgbench_lab_internal.clients_text((e.params OPERATOR(pg_catalog.->>) 'clients')::integer),
                                        coalesce(', ' OPERATOR(pg_catalog.||) (e.params OPERATOR(pg_catalog.->>) 'rounds') OPERATOR(pg_catalog.||) ' round(s)', '')) END);
    IF e.label IS NOT NULL THEN
        RETURN QUERY SELECT 'label: ' OPERATOR(pg_catalog.||) e.label;
    END IF;
    RETURN QUERY SELECT pg_catalog.format('status %s, started %s, %s run(s)%s',
                       CASE WHEN stopped THEN 'aborted' ELSE e.status END,
                       pg_catalog.to_char(e.started_at, 'YYYY-MM-DD HH24:MI:SS TZ'), n,
                       CASE WHEN stopped OR e.status OPERATOR(pg_catalog.=) 'aborted'
                            THEN ' (its procedure stopped before the end: an error, a cancel or a lost session)'
                            WHEN e.status OPERATOR(pg_catalog.=) 'running' THEN ' (still going)'
                            WHEN e.status OPERATOR(pg_catalog.=) 'waiting for restart'
                            THEN pg_catalog.format(' (restart the server, then CALL pgbench_lab.resume(%s))', e.experiment_id)
                            ELSE '' END);
    IF e.source_server IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('imported from %s, where it was experiment %s', e.source_server, e.source_experiment_id);
    END IF;
    IF e.kind OPERATOR(pg_catalog.=) 'sweep' THEN
        RETURN QUERY SELECT 'session settings: ' OPERATOR(pg_catalog.||) pgbench_lab_internal.settings_text(e.params OPERATOR(pg_catalog.->) 'settings');
    END IF;
    IF e.kind OPERATOR(pg_catalog.=) 'connection_cost' THEN
        RETURN QUERY SELECT CASE WHEN e.params OPERATOR(pg_catalog.?) 'in_server_left_out'
                                 THEN 'The in-server run was left out (too few worker slots); variant 1 goes through libpq over kept connections, 2 with a new connection per transaction.'
                                 ELSE 'Variant 1 is in-server (no network round trips); 2 and 3 go through libpq.' END;
    ELSE
        -- the paths its runs took: in-server, or over libpq
        RETURN QUERY SELECT CASE WHEN pg_catalog.bool_or(r.via OPERATOR(pg_catalog.<>) 'spi')
                                 THEN pg_catalog.format('Figures are over libpq (%s): each statement paid a round trip through the protocol.',
                                                        pg_catalog.string_agg(DISTINCT r.via, ', '))
                                 ELSE 'Figures are in-server: no network round trips.' END
                           FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
                          WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id;
    END IF;
    RETURN QUERY SELECT '';
    -- the body is the kind's report function (pgbench_lab.experiment_kinds)
    SELECT k.report::pg_catalog.oid::pg_catalog.regproc INTO body
      FROM pgbench_lab.experiment_kinds k WHERE k.kind OPERATOR(pg_catalog.=) e.kind;
    IF body IS NULL THEN
        RETURN QUERY SELECT pg_catalog.format('(no report for kind %s: it is not in pgbench_lab.experiment_kinds)', e.kind);
    ELSE
        RETURN QUERY EXECUTE pg_catalog.format('SELECT l FROM %s($1) AS l', body) USING e.experiment_id;
    END IF;
    RETURN QUERY
        SELECT pg_catalog.format('Run %s did not finish: %s%s', r.run_id, r.status, coalesce(' (' OPERATOR(pg_catalog.||) r.error OPERATOR(pg_catalog.||) ')', ''))
          FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id AND r.status OPERATOR(pg_catalog.<>) 'done'
         ORDER BY x.ordinal;
    RETURN QUERY SELECT 'Each run in detail: SELECT * FROM pgbench_lab.report(run_id);';
END
$$;

CREATE FUNCTION pgbench_lab.report(id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF id IS NULL THEN
        RAISE EXCEPTION 'id must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass a run_id from pgbench_lab.runs or an experiment_id from pgbench_lab.experiments.';
    END IF;
    PERFORM pgbench_lab_internal.check_ids(ARRAY[id], true);
    -- every line through printable(): labels, errors, settings and server
    -- names may hold control characters (an imported document's, say)
    IF EXISTS (SELECT FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) id) THEN
        RETURN QUERY SELECT pgbench_lab.printable(l) FROM pgbench_lab_internal.report_run(id) AS l;
    ELSE
        RETURN QUERY SELECT pgbench_lab.printable(l) FROM pgbench_lab_internal.report_experiment(id) AS l;
    END IF;
END
$$;
COMMENT ON FUNCTION pgbench_lab.report(bigint) IS
    'A readable report of a run or an experiment: figures, charts and notes (one line per row)';

-- Runs side by side in the order given, with ratios to the first (in
-- numeric: any two figures have a ratio).  Text columns are printable().
CREATE FUNCTION pgbench_lab.compare(run_ids bigint[])
RETURNS TABLE (run_id bigint, label text, server text, via text, workload text, clients integer,
               scale integer, status text, seconds numeric, tps numeric, tps_ratio numeric,
               latency_avg_ms numeric, latency_avg_ratio numeric, latency_p99_ms numeric,
               latency_p99_ratio numeric, hit_ratio_pct numeric, session_settings text,
               server_differences text, rate numeric, rate_sustained boolean, lag_avg_ms numeric,
               cpu_busy_pct numeric, waits text, checkpoints integer)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM pgbench_lab_internal.check_ids(run_ids, false);
    RETURN QUERY
    WITH l AS (
        SELECT r.*, u.n FROM pg_catalog.unnest(run_ids) WITH ORDINALITY AS u(id, n)
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) u.id),
    f AS (SELECT * FROM l WHERE l.n OPERATOR(pg_catalog.=) 1)
    SELECT l.run_id, pgbench_lab.printable(l.label), pgbench_lab.printable(coalesce(l.source_server, 'here')),
           -- how the clients reached the server: in-server, or over libpq to which target
           pgbench_lab.printable(l.via OPERATOR(pg_catalog.||) coalesce(' to ' OPERATOR(pg_catalog.||) l.target_display, '')),
           pgbench_lab.printable(l.workload), l.clients, l.scale,
           l.status, pg_catalog.round(l.measured_seconds::numeric, 1), pg_catalog.round(l.tps::numeric, 1),
           pg_catalog.round(l.tps::numeric OPERATOR(pg_catalog./) (CASE WHEN f.tps OPERATOR(pg_catalog.<>) 0 THEN f.tps END)::numeric, 3), pg_catalog.round(l.latency_avg_ms::numeric, 3),
           pg_catalog.round(l.latency_avg_ms::numeric OPERATOR(pg_catalog./)
                            (CASE WHEN f.latency_avg_ms OPERATOR(pg_catalog.<>) 0 THEN f.latency_avg_ms END)::numeric, 3),
           pg_catalog.round(l.latency_p99_ms::numeric, 3),
           pg_catalog.round(l.latency_p99_ms::numeric OPERATOR(pg_catalog./)
                            (CASE WHEN f.latency_p99_ms OPERATOR(pg_catalog.<>) 0 THEN f.latency_p99_ms END)::numeric, 3),
           pg_catalog.round(l.hit_ratio::numeric OPERATOR(pg_catalog.*) 100, 2),
           pgbench_lab_internal.settings_text(l.settings OPERATOR(pg_catalog.->) 'session'),
           (SELECT pgbench_lab.printable(coalesce(pg_catalog.string_agg(a.key OPERATOR(pg_catalog.||) '=' OPERATOR(pg_catalog.||) a.value, ', ' ORDER BY a.key), ''))
              FROM pg_catalog.jsonb_each_text(coalesce(l.settings OPERATOR(pg_catalog.->) 'server', '{}')) a
             WHERE CASE WHEN (f.settings OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->>) a.key) IS NULL
                        THEN a.value IS NOT NULL
                        WHEN a.value IS NULL THEN true
                        ELSE (f.settings OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->>) a.key)
                             OPERATOR(pg_catalog.<>) a.value END),
           -- rate-limited runs: the rate asked, the rule's verdict and the schedule lag
           pg_catalog.round(l.rate::numeric, 1), l.rate_sustained, pg_catalog.round(l.lag_avg_ms::numeric, 3),
           -- telemetry: the machine's CPU busy, the top waits, checkpoints completed
           pg_catalog.round(pgbench_lab_internal.run_cpu_busy(l.run_id)::numeric, 1),
           pgbench_lab_internal.waits_text(l.run_id),
           (SELECT pg_catalog.sum(t.checkpoints)::pg_catalog.int4 FROM pgbench_lab.run_telemetry t
             WHERE t.run_id OPERATOR(pg_catalog.=) l.run_id)
      FROM l CROSS JOIN f
     ORDER BY l.n;
END
$$;
COMMENT ON FUNCTION pgbench_lab.compare(bigint[]) IS
    'Runs side by side in the order given, with the path their clients took, ratios to the first, the server settings that differ, the rate and schedule lag of rate-limited runs, and the machine''s CPU, the waits and the checkpoints of runs with telemetry';


-- A run's per-second progress aggregated over intervals of whole seconds,
-- as pgbench's --aggregate-interval does for its log: sums and maxima are
-- exact; averages are weighted by each second's committed transactions
-- (latency, lag) or by its length (hit ratio, which has no counts per
-- second).  Invoker's rights: row-level security shows the caller's runs.
CREATE FUNCTION pgbench_lab.progress(run_id bigint, every interval DEFAULT '1 s')
RETURNS TABLE (from_second integer, to_second integer, seconds double precision, transactions bigint,
               tps double precision, latency_avg_ms double precision, latency_max_ms double precision,
               failures bigint, hit_ratio double precision, lag_avg_ms double precision,
               lag_max_ms double precision, late bigint, skipped bigint)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n pg_catalog.float8;
BEGIN
    IF run_id IS NULL OR every IS NULL THEN
        RAISE EXCEPTION '% must not be null', CASE WHEN run_id IS NULL THEN 'run_id' ELSE 'every' END
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass a run_id from pgbench_lab.runs and an interval of whole seconds, for example ''10 s''.';
    END IF;
    n := pg_catalog.date_part('epoch', every);
    IF NOT (n OPERATOR(pg_catalog.>=) 1 AND n OPERATOR(pg_catalog.<=) 864000)
       OR n OPERATOR(pg_catalog.<>) pg_catalog.trunc(n) THEN
        RAISE EXCEPTION 'every must be a whole number of seconds from 1 s to 10 days, not %', every
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Progress is recorded once a second; pass, for example, ''10 s'' or ''1 min''.';
    END IF;
    PERFORM pgbench_lab_internal.check_ids(ARRAY[run_id], false);
    RETURN QUERY
    SELECT a.k, a.last, a.secs, a.tx::pg_catalog.int8,
           a.tx OPERATOR(pg_catalog./) CASE WHEN a.secs OPERATOR(pg_catalog.>) 0 THEN a.secs END,
           a.lat OPERATOR(pg_catalog./) CASE WHEN a.lat_tx OPERATOR(pg_catalog.>) 0 THEN a.lat_tx END,
           a.lat_max, a.fail::pg_catalog.int8,
           a.hit OPERATOR(pg_catalog./) CASE WHEN a.hit_secs OPERATOR(pg_catalog.>) 0 THEN a.hit_secs END,
           a.lag OPERATOR(pg_catalog./) CASE WHEN a.lag_tx OPERATOR(pg_catalog.>) 0 THEN a.lag_tx END,
           a.lag_max, a.late::pg_catalog.int8, a.skipped::pg_catalog.int8
      FROM (SELECT (g.k OPERATOR(pg_catalog.*) n)::pg_catalog.int4 OPERATOR(pg_catalog.+) 1 AS k,
                   pg_catalog.max(p.second) AS last, pg_catalog.sum(p.interval_seconds) AS secs,
                   pg_catalog.sum(p.transactions)::pg_catalog.float8 AS tx,
                   pg_catalog.sum(p.latency_avg_ms OPERATOR(pg_catalog.*) p.transactions) AS lat,
                   pg_catalog.sum(p.transactions) FILTER (WHERE p.latency_avg_ms IS NOT NULL)::pg_catalog.float8 AS lat_tx,
                   pg_catalog.max(p.latency_max_ms) AS lat_max, pg_catalog.sum(p.failures) AS fail,
                   pg_catalog.sum(p.hit_ratio OPERATOR(pg_catalog.*) p.interval_seconds) AS hit,
                   pg_catalog.sum(p.interval_seconds) FILTER (WHERE p.hit_ratio IS NOT NULL) AS hit_secs,
                   pg_catalog.sum(p.lag_avg_ms OPERATOR(pg_catalog.*) p.transactions) AS lag,
                   pg_catalog.sum(p.transactions) FILTER (WHERE p.lag_avg_ms IS NOT NULL)::pg_catalog.float8 AS lag_tx,
                   pg_catalog.max(p.lag_max_ms) AS lag_max, pg_catalog.sum(p.late) AS late,
                   pg_catalog.sum(p.skipped) AS skipped
              FROM pgbench_lab.run_progress p,
                   LATERAL (SELECT pg_catalog.floor((p.second OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) n) AS k) g
             WHERE p.run_id OPERATOR(pg_catalog.=) progress.run_id
             GROUP BY g.k) a
     ORDER BY a.k;
END
$$;
COMMENT ON FUNCTION pgbench_lab.progress(bigint, interval) IS
    'A run''s per-second progress over intervals of whole seconds (pgbench''s --aggregate-interval): transactions, tps, latency, failures, hit ratio, lag, late and skipped';

GRANT EXECUTE ON FUNCTION pgbench_lab.report(bigint), pgbench_lab.compare(bigint[]),
    pgbench_lab.progress(bigint, interval) TO pg_monitor;
-- ---------------------------------------------------------------------------
-- Where the time went: the report() section drawn from run_telemetry (the
-- coordinator's per-second CPU, checkpoint, WAL and wait-event rows).
-- ---------------------------------------------------------------------------

-- The run's wait-event profile: each "type:event" (CPU: no wait event) with
-- its samples and share of all samples, largest first.
CREATE FUNCTION pgbench_lab_internal.wait_profile(run_id bigint)
RETURNS TABLE (wait text, samples bigint, share double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT w.key, pg_catalog.sum(w.value::pg_catalog.int8)::pg_catalog.int8,
           pg_catalog.sum(w.value::pg_catalog.int8)::pg_catalog.float8
               OPERATOR(pg_catalog./) pg_catalog.sum(pg_catalog.sum(w.value::pg_catalog.int8)) OVER ()
      FROM pgbench_lab.run_telemetry t, pg_catalog.jsonb_each_text(t.waits) AS w
     WHERE t.run_id OPERATOR(pg_catalog.=) wait_profile.run_id
     GROUP BY w.key
    HAVING pg_catalog.sum(w.value::pg_catalog.int8) OPERATOR(pg_catalog.>) 0
     ORDER BY 2 DESC, 1
$$;

-- The run's top waits in words, 'CPU 62%, IO:WALSync 30%, LWLock:WALWrite 5%'
-- (entries of at least 1 %, up to n); NULL without telemetry.
CREATE FUNCTION pgbench_lab_internal.waits_text(run_id bigint, n integer DEFAULT 3)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.string_agg(pg_catalog.format('%s %s%%', p.wait, pgbench_lab_internal.fmt(100 OPERATOR(pg_catalog.*) p.share, 0)),
                                 ', ' ORDER BY p.j)
      FROM (SELECT w.wait, w.share, pg_catalog.row_number() OVER (ORDER BY w.samples DESC, w.wait) AS j
              FROM pgbench_lab_internal.wait_profile(waits_text.run_id) w) p
     WHERE p.j OPERATOR(pg_catalog.<=) n AND (p.share OPERATOR(pg_catalog.>=) 0.01 OR p.j OPERATOR(pg_catalog.=) 1)
$$;

-- The machine's CPU busy (all but idle and iowait) over a run's full
-- seconds, in %; NULL without telemetry.  The figure behind the 85 % rule (the
-- client-count sweep article): the notes below, and for sweeps the client
-- count at which it is passed.
CREATE FUNCTION pgbench_lab_internal.run_cpu_busy(run_id bigint)
RETURNS double precision LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.avg(100 OPERATOR(pg_catalog.-) t.cpu_idle_pct OPERATOR(pg_catalog.-) t.cpu_iowait_pct)
      FROM pgbench_lab.run_telemetry t
     WHERE t.run_id OPERATOR(pg_catalog.=) run_cpu_busy.run_id AND t.interval_seconds OPERATOR(pg_catalog.>=) 0.5
$$;

-- Plain words drawn from the telemetry: what bound the run.
CREATE FUNCTION pgbench_lab_internal.telemetry_notes(run_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cpu_share pg_catalog.float8;
    top_wait pg_catalog.text;
    top_share pg_catalog.float8;
    wal_share pg_catalog.float8;
    read_share pg_catalog.float8;
    busy pg_catalog.float8;
    iowait pg_catalog.float8;
    ck_tps pg_catalog.float8;
    other_tps pg_catalog.float8;
    ck_n pg_catalog.int8;
    ck_secs pg_catalog.int8;
    disk_busy pg_catalog.float8;
BEGIN
    SELECT coalesce(pg_catalog.sum(p.share) FILTER (WHERE p.wait OPERATOR(pg_catalog.=) 'CPU'), 0),
           coalesce(pg_catalog.sum(p.share) FILTER (WHERE p.wait OPERATOR(pg_catalog.~*) '^(IO:WAL|LWLock:WAL)'), 0),
           coalesce(pg_catalog.sum(p.share) FILTER (WHERE p.wait OPERATOR(pg_catalog.~*) '^IO:DataFile'), 0)
      INTO cpu_share, wal_share, read_share
      FROM pgbench_lab_internal.wait_profile(telemetry_notes.run_id) p;
    SELECT p.wait, p.share INTO top_wait, top_share
      FROM pgbench_lab_internal.wait_profile(telemetry_notes.run_id) p
     WHERE p.wait OPERATOR(pg_catalog.<>) 'CPU' LIMIT 1;
    IF cpu_share OPERATOR(pg_catalog.>=) 0.8 THEN
        RETURN QUERY SELECT pg_catalog.format('CPU-bound: the clients waited on nothing %s %% of the time (they were running, or ready to run).',
                                      pgbench_lab_internal.fmt(100 OPERATOR(pg_catalog.*) cpu_share, 0));
    END IF;
    IF wal_share OPERATOR(pg_catalog.>=) 0.2 THEN
        RETURN QUERY SELECT pg_catalog.format('Commit-bound: the clients waited on writing and flushing WAL %s %% of the time; the storage''s flush rate sets the pace (synchronous_commit = off trades the last transactions in a crash for it).',
                                      pgbench_lab_internal.fmt(100 OPERATOR(pg_catalog.*) wal_share, 0));
    END IF;
    IF read_share OPERATOR(pg_catalog.>=) 0.2 THEN
        RETURN QUERY SELECT pg_catalog.format('Read-bound: the clients waited on data file reads %s %% of the time: the pages they needed were not in shared buffers.',
                                      pgbench_lab_internal.fmt(100 OPERATOR(pg_catalog.*) read_share, 0));
    END IF;
    IF top_share OPERATOR(pg_catalog.>=) 0.2 AND NOT top_wait OPERATOR(pg_catalog.~*) '^(IO:WAL|LWLock:WAL|IO:DataFile)' THEN
        RETURN QUERY SELECT pg_catalog.format('The clients waited on %s %s %% of the time.', top_wait,
                                      pgbench_lab_internal.fmt(100 OPERATOR(pg_catalog.*) top_share, 0));
    END IF;
    busy := pgbench_lab_internal.run_cpu_busy(telemetry_notes.run_id);
    SELECT pg_catalog.avg(t.cpu_iowait_pct)
      INTO iowait
      FROM pgbench_lab.run_telemetry t
     WHERE t.run_id OPERATOR(pg_catalog.=) telemetry_notes.run_id AND t.interval_seconds OPERATOR(pg_catalog.>=) 0.5;
    IF busy OPERATOR(pg_catalog.>=) 85 THEN
        RETURN QUERY SELECT pg_catalog.format('The machine''s CPU was %s %% busy on average: above about 85 %% the machine, not the server''s settings, is the limit (the client-count sweep article kept CPU under 85 %% to find a server''s capacity).',
                                      pgbench_lab_internal.fmt(busy, 0));
    END IF;
    SELECT pg_catalog.avg(t.disk_busy_pct) INTO disk_busy
      FROM pgbench_lab.run_telemetry t
     WHERE t.run_id OPERATOR(pg_catalog.=) telemetry_notes.run_id AND t.interval_seconds OPERATOR(pg_catalog.>=) 0.5;
    IF disk_busy OPERATOR(pg_catalog.>=) 80 THEN
        RETURN QUERY SELECT pg_catalog.format('The data directory''s disk had I/O in flight %s %% of the time on average: it was (nearly) always busy.',
                                      pgbench_lab_internal.fmt(disk_busy, 0));
    END IF;
    IF iowait OPERATOR(pg_catalog.>=) 20 THEN
        RETURN QUERY SELECT pg_catalog.format('iowait %s %% on average: storage-bound.', pgbench_lab_internal.fmt(iowait, 0));
    END IF;
    -- checkpoints: TPS in their seconds and the few after, against the rest
    SELECT pg_catalog.count(*) FILTER (WHERE t.checkpoints OPERATOR(pg_catalog.>) 0),
           pg_catalog.avg(p.tps) FILTER (WHERE k.near),
           pg_catalog.avg(p.tps) FILTER (WHERE NOT k.near),
           pg_catalog.count(*) FILTER (WHERE k.near)
      INTO ck_n, ck_tps, other_tps, ck_secs
      FROM pgbench_lab.run_progress p
      JOIN pgbench_lab.run_telemetry t USING (run_id, second)
     CROSS JOIN LATERAL (SELECT EXISTS (SELECT FROM pgbench_lab.run_telemetry c
                                         WHERE c.run_id OPERATOR(pg_catalog.=) p.run_id
                                           AND c.checkpoints OPERATOR(pg_catalog.>) 0
                                           AND p.second OPERATOR(pg_catalog.>=) c.second
                                           AND p.second OPERATOR(pg_catalog.<) (c.second OPERATOR(pg_catalog.+) 3)) AS near) k
     WHERE p.run_id OPERATOR(pg_catalog.=) telemetry_notes.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5;
    IF ck_n OPERATOR(pg_catalog.>) 0 AND other_tps OPERATOR(pg_catalog.>) 0 THEN
        RETURN QUERY SELECT pg_catalog.format('%s checkpoint(s) completed during the run (▲ under the CPU chart): TPS in their seconds and the two after averaged %s, %s %% %s the other seconds'' %s.',
                                      ck_n, pgbench_lab_internal.fmt(ck_tps),
                                      pgbench_lab_internal.fmt(pg_catalog.abs(100 OPERATOR(pg_catalog.*) (ck_tps OPERATOR(pg_catalog./) other_tps OPERATOR(pg_catalog.-) 1)), 0),
                                      CASE WHEN ck_tps OPERATOR(pg_catalog.<) other_tps THEN 'below' ELSE 'above' END,
                                      pgbench_lab_internal.fmt(other_tps));
    END IF;
END
$$;

-- The section (none for a run without telemetry; it ends with a blank
-- line): the wait-event profile, CPU per second in the columns of
-- the TPS chart above it (same grouping as run_charts()), checkpoints
-- marked, WAL and buffers written, and the notes.
CREATE FUNCTION pgbench_lab_internal.telemetry_lines(run_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    per pg_catalog.int4;
    samples pg_catalog.int8;
    busy pg_catalog.float8[];
    iow pg_catalog.float8[];
    own pg_catalog.float8[];
    ckpt pg_catalog.text;
    disk pg_catalog.float8[];
    device pg_catalog.text;
    cpus pg_catalog.float8;
    f record;
BEGIN
    IF NOT EXISTS (SELECT FROM pgbench_lab.run_telemetry x WHERE x.run_id OPERATOR(pg_catalog.=) telemetry_lines.run_id) THEN
        RETURN;					-- telemetry off, or a run older than it: no section
    END IF;
    SELECT pg_catalog.sum(x.wait_samples) INTO samples FROM pgbench_lab.run_telemetry x
     WHERE x.run_id OPERATOR(pg_catalog.=) telemetry_lines.run_id;
    SELECT CASE WHEN r.system OPERATOR(pg_catalog.->>) 'cpus_effective' OPERATOR(pg_catalog.~) '^[0-9]+(\.[0-9]+)?$'
                THEN (r.system OPERATOR(pg_catalog.->>) 'cpus_effective')::pg_catalog.float8 END,
           r.system OPERATOR(pg_catalog.->>) 'data_device'
      INTO cpus, device FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) telemetry_lines.run_id;
    IF samples OPERATOR(pg_catalog.>) 0 THEN
        RETURN QUERY SELECT pg_catalog.format('Where the time went (the clients'' wait events, sampled %s times, about every 10 ms)', samples);
        FOR f IN SELECT p.wait, p.share FROM pgbench_lab_internal.wait_profile(telemetry_lines.run_id) p LIMIT 6 LOOP
            RETURN QUERY SELECT pg_catalog.format('  %s %s %s', pg_catalog.rpad(CASE WHEN f.wait OPERATOR(pg_catalog.=) 'CPU' THEN 'CPU (no wait event)'
                                                                                       WHEN f.wait OPERATOR(pg_catalog.=) 'Idle:Pacing' THEN 'Idle:Pacing (rate, \sleep)'
                                                                                       ELSE f.wait END, 26),
                                          pg_catalog.lpad(pgbench_lab_internal.fmt(100 OPERATOR(pg_catalog.*) f.share) OPERATOR(pg_catalog.||) ' %', 7),
                                          pgbench_lab_internal.hbar(f.share, 1, 40));
        END LOOP;
    ELSE
        RETURN QUERY SELECT 'Where the time went (measured on this server and its machine, where the clients ran, whatever their target; clients over libpq have no wait events sampled: their work is done by other backends)';
    END IF;
    -- per-second rows, grouped as run_charts() groups the TPS chart
    SELECT pg_catalog.ceil(pg_catalog.count(*) OPERATOR(pg_catalog./) 60.0)::integer INTO per
      FROM pgbench_lab.run_progress p
     WHERE p.run_id OPERATOR(pg_catalog.=) telemetry_lines.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5;
    IF per OPERATOR(pg_catalog.>) 0 THEN
        SELECT pg_catalog.array_agg(q.b ORDER BY q.g), pg_catalog.array_agg(q.i ORDER BY q.g),
               pg_catalog.array_agg(q.o ORDER BY q.g),
               pg_catalog.string_agg(CASE WHEN q.c OPERATOR(pg_catalog.>) 0 THEN '▲' ELSE ' ' END, '' ORDER BY q.g),
               pg_catalog.array_agg(q.d ORDER BY q.g)
          INTO busy, iow, own, ckpt, disk
          FROM (SELECT (p.second OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) per AS g,
                       pg_catalog.avg(100 OPERATOR(pg_catalog.-) x.cpu_idle_pct OPERATOR(pg_catalog.-) x.cpu_iowait_pct) AS b,
                       pg_catalog.avg(x.cpu_iowait_pct) AS i,
                       pg_catalog.avg(100 OPERATOR(pg_catalog.*) x.run_cpu_seconds OPERATOR(pg_catalog./) (x.interval_seconds OPERATOR(pg_catalog.*) cpus)) AS o,
                       pg_catalog.sum(x.checkpoints) AS c, pg_catalog.avg(x.disk_busy_pct) AS d
                  FROM pgbench_lab.run_progress p
                  LEFT JOIN pgbench_lab.run_telemetry x USING (run_id, second)
                 WHERE p.run_id OPERATOR(pg_catalog.=) telemetry_lines.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5
                 GROUP BY 1) q;
        RETURN QUERY SELECT pg_catalog.format('CPU (and the data disk''s busy time) per second, in the TPS chart''s columns (▁ = 0 %%, █ = 100 %%; ▲ = a checkpoint completed)');
        RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad('machine', 8), pgbench_lab_internal.spark(busy, 0, 100));
        RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad('iowait', 8), pgbench_lab_internal.spark(iow, 0, 100));
        IF cpus OPERATOR(pg_catalog.>) 0 THEN
            RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad('this run', 8), pgbench_lab_internal.spark(own, 0, 100));
        END IF;
        IF EXISTS (SELECT FROM pg_catalog.unnest(disk) AS u WHERE u IS NOT NULL) THEN
            RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad('disk', 8), pgbench_lab_internal.spark(disk, 0, 100));
        END IF;
        RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad('ckpt', 8), ckpt);
    END IF;
    SELECT pg_catalog.avg(x.cpu_user_pct) AS u, pg_catalog.avg(x.cpu_system_pct) AS s, pg_catalog.avg(x.cpu_iowait_pct) AS w,
           pg_catalog.avg(x.cpu_steal_pct) AS st, pg_catalog.avg(x.cpu_idle_pct) AS id,
           pg_catalog.sum(x.run_cpu_seconds) AS own, pg_catalog.sum(x.interval_seconds) AS secs,
           pg_catalog.sum(x.wal_records) AS rec, pg_catalog.sum(x.wal_fpi) AS fpi, pg_catalog.sum(x.wal_bytes) AS wb,
           pg_catalog.sum(x.buffers_checkpoint) AS bc, pg_catalog.sum(x.buffers_clean) AS bw, pg_catalog.sum(x.buffers_backend) AS bb,
           pg_catalog.sum(x.temp_files) AS tf, pg_catalog.sum(x.temp_bytes) AS tb,
           pg_catalog.sum(x.disk_reads) AS dr, pg_catalog.sum(x.disk_read_bytes) AS drb,
           pg_catalog.sum(x.disk_writes) AS dw, pg_catalog.sum(x.disk_write_bytes) AS dwb, pg_catalog.avg(x.disk_busy_pct) AS db
      INTO f
      FROM pgbench_lab.run_telemetry x WHERE x.run_id OPERATOR(pg_catalog.=) telemetry_lines.run_id;
    RETURN QUERY SELECT pg_catalog.format('  machine CPU   user %s %%, system %s %%, iowait %s %%, steal %s %%, idle %s %%',
                                  pgbench_lab_internal.fmt(f.u), pgbench_lab_internal.fmt(f.s), pgbench_lab_internal.fmt(f.w),
                                  pgbench_lab_internal.fmt(f.st), pgbench_lab_internal.fmt(f.id));
    RETURN QUERY SELECT pg_catalog.format('  this run      %s CPU s in %s s (%s of %s CPUs the server may use; coordinator and clients)',
                                  pgbench_lab_internal.fmt(f.own, 2), pgbench_lab_internal.fmt(f.secs),
                                  pgbench_lab_internal.fmt(f.own OPERATOR(pg_catalog./) CASE WHEN f.secs OPERATOR(pg_catalog.>) 0 THEN f.secs END, 2),
                                  pgbench_lab_internal.fmt(cpus, 2));
    RETURN QUERY SELECT pg_catalog.format('  WAL           %s records, %s full-page images, %s',
                                  coalesce(f.rec::pg_catalog.text, '-'), coalesce(f.fpi::pg_catalog.text, '-'),
                                  coalesce(pg_catalog.pg_size_pretty(f.wb), '-'));
    RETURN QUERY SELECT pg_catalog.format('  buffers written by the checkpointer %s, the background writer %s, other processes %s',
                                  coalesce(f.bc::pg_catalog.text, '-'), coalesce(f.bw::pg_catalog.text, '-'),
                                  coalesce(f.bb::pg_catalog.text, '-'));
    IF f.tf IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('  temp files    %s (%s) in this database', f.tf, pg_catalog.pg_size_pretty(f.tb));
    END IF;
    IF f.db IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('  disk %s  %s reads (%s), %s writes (%s), busy %s %% of the time',
                                      coalesce(device, '-'), f.dr, pg_catalog.pg_size_pretty(f.drb), f.dw,
                                      pg_catalog.pg_size_pretty(f.dwb), pgbench_lab_internal.fmt(f.db));
    END IF;
    RETURN QUERY SELECT x.w FROM pgbench_lab_internal.telemetry_notes(telemetry_lines.run_id) WITH ORDINALITY AS n(t, i),
                                 pgbench_lab_internal.wrap(n.t, '  - ') WITH ORDINALITY AS x(w, j)
                        ORDER BY n.i, x.j;
    RETURN QUERY SELECT '';
END
$$;
-- ---------------------------------------------------------------------------
-- The standbys' lag during a run (pgbench_lab.run_replication), for
-- report(): per standby, the replay lag per second in the TPS chart's
-- columns and whether it stayed bounded.
-- ---------------------------------------------------------------------------

-- Bounded or growing: growing when, from a third of the way in, the lag
-- never fell to half of what it was then, rose by more than 64 kB, and
-- ended at (nearly) its largest: the standby never caught up.  A standby
-- that keeps up falls back between bursts, whatever the bursts' size.
CREATE FUNCTION pgbench_lab_internal.lag_trend(lags numeric[])
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN n.last IS NULL OR n.third IS NULL THEN 'unknown'
                WHEN n.last OPERATOR(pg_catalog.>=) (0.9 OPERATOR(pg_catalog.*) n.top)
                     AND n.last OPERATOR(pg_catalog.>) (n.third OPERATOR(pg_catalog.+) 65536)
                     AND n.low OPERATOR(pg_catalog.>=) (0.5 OPERATOR(pg_catalog.*) n.third)
                THEN 'growing' ELSE 'bounded' END
      FROM (SELECT lags[n.len] AS last, lags[n.k] AS third,
                   (SELECT pg_catalog.max(u) FROM pg_catalog.unnest(lags) AS u) AS top,
                   (SELECT pg_catalog.min(u) FROM pg_catalog.unnest(lags[n.k:n.len]) AS u) AS low
              FROM (SELECT pg_catalog.cardinality(lags) AS len,
                           GREATEST(1, pg_catalog.cardinality(lags) OPERATOR(pg_catalog./) 3) AS k) n) n
$$;

CREATE FUNCTION pgbench_lab_internal.replication_lines(run_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    per pg_catalog.int4;
    s pg_catalog.record;
BEGIN
    IF NOT EXISTS (SELECT FROM pgbench_lab.run_replication x WHERE x.run_id OPERATOR(pg_catalog.=) replication_lines.run_id) THEN
        RETURN;
    END IF;
    SELECT GREATEST(1, pg_catalog.ceil(pg_catalog.count(*) OPERATOR(pg_catalog./) 60.0))::integer INTO per
      FROM pgbench_lab.run_progress p
     WHERE p.run_id OPERATOR(pg_catalog.=) replication_lines.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5;
    RETURN QUERY SELECT 'Standbys: how far each was behind this server, replayed WAL per second in the TPS chart''s columns (▁ = none, █ = its largest lag)';
    FOR s IN
        SELECT x.standby, pg_catalog.max(x.client_addr) AS addr,
               pg_catalog.bool_and(x.state IS NULL) AS hidden,
               pg_catalog.max(x.replay_lag_bytes) AS top_bytes, pg_catalog.max(x.replay_lag_ms) AS top_ms,
               pg_catalog.avg(x.replay_lag_ms) AS avg_ms,
               (pg_catalog.array_agg(x.replay_lag_bytes ORDER BY x.second DESC))[1] AS last_bytes,
               pgbench_lab_internal.lag_trend(pg_catalog.array_agg(x.replay_lag_bytes ORDER BY x.second)) AS trend,
               pg_catalog.count(*) AS secs
          FROM pgbench_lab.run_replication x
         WHERE x.run_id OPERATOR(pg_catalog.=) replication_lines.run_id
         GROUP BY x.standby ORDER BY x.standby
    LOOP
        IF s.hidden THEN
            -- recorded as pg_stat_replication showed it to the run's role
            RETURN QUERY SELECT pg_catalog.format('  %s', pg_catalog.left(s.standby, 24));
            RETURN QUERY SELECT pg_catalog.format('    %s: lag not recorded: the run''s role %s may not see the WAL senders'' positions in pg_stat_replication (members of pg_read_all_stats do)',
                                                  coalesce(s.addr, 'address not shown'),
                                                  (SELECT r.owner FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) replication_lines.run_id));
            CONTINUE;
        END IF;
        RETURN QUERY
            SELECT pg_catalog.format('  %s │%s', pg_catalog.left(s.standby, 24),
                                     pgbench_lab_internal.spark(pg_catalog.array_agg(g.v ORDER BY g.k), 0,
                                                                GREATEST(s.top_bytes, 1)::pg_catalog.float8))
              FROM (SELECT (x.second OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) per AS k,
                           pg_catalog.avg(x.replay_lag_bytes)::pg_catalog.float8 AS v
                      FROM pgbench_lab.run_replication x
                     WHERE x.run_id OPERATOR(pg_catalog.=) replication_lines.run_id
                       AND x.standby OPERATOR(pg_catalog.=) s.standby
                     GROUP BY 1) g;
        RETURN QUERY SELECT pg_catalog.format('    %s: replay lag at most %s (%s ms as the primary timed it; %s ms on average), %s at the end: %s',
                                              coalesce(s.addr, 'local socket'),
                                              pg_catalog.pg_size_pretty(coalesce(s.top_bytes, 0)),
                                              coalesce(pgbench_lab_internal.fmt(s.top_ms, 1), '-'),
                                              coalesce(pgbench_lab_internal.fmt(s.avg_ms, 1), '-'),
                                              pg_catalog.pg_size_pretty(coalesce(s.last_bytes, 0)),
                                              CASE WHEN s.trend OPERATOR(pg_catalog.=) 'growing'
                                                   THEN 'growing (it ended at its largest): the standby did not keep up'
                                                   WHEN s.trend OPERATOR(pg_catalog.=) 'bounded'
                                                   THEN 'bounded'
                                                   ELSE 'unknown (no replay position reported)' END);
    END LOOP;
    RETURN QUERY SELECT '';
END
$$;

-- A sweep on a primary with standbys: each client count's lag per standby
-- (the trend of lag_trend() over its run), for the sweep's report, and
-- the finding's sentence naming the first count at which some standby's
-- lag grew through the run: from there on the standbys do not keep up with
-- the writes.  Nothing for a sweep whose runs recorded no standby.
CREATE FUNCTION pgbench_lab_internal.sweep_lag_steps(experiment_id bigint)
RETURNS TABLE (clients integer, standby text, trend text, top_bytes numeric, last_bytes numeric)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.clients, x.standby,
           pgbench_lab_internal.lag_trend(pg_catalog.array_agg(x.replay_lag_bytes ORDER BY x.second)),
           pg_catalog.max(x.replay_lag_bytes),
           (pg_catalog.array_agg(x.replay_lag_bytes ORDER BY x.second DESC))[1]
      FROM pgbench_lab_internal.sweep_steps(experiment_id) s
      JOIN pgbench_lab.run_replication x ON x.run_id OPERATOR(pg_catalog.=) s.run_id
     GROUP BY s.clients, x.standby
     ORDER BY s.clients, x.standby
$$;

CREATE FUNCTION pgbench_lab_internal.sweep_lag(experiment_id bigint,
    OUT growing_clients integer, OUT words text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    l pg_catalog.record;
BEGIN
    -- the steps read once: the first growing (count, standby, lag at its
    -- end), the largest count before it, and the largest lag of all
    SELECT pg_catalog.count(*) AS n,
           (pg_catalog.array_agg(s.clients ORDER BY s.clients, s.standby) FILTER (WHERE s.trend OPERATOR(pg_catalog.=) 'growing'))[1] AS g_clients,
           (pg_catalog.array_agg(s.standby ORDER BY s.clients, s.standby) FILTER (WHERE s.trend OPERATOR(pg_catalog.=) 'growing'))[1] AS g_standby,
           (pg_catalog.array_agg(s.last_bytes ORDER BY s.clients, s.standby) FILTER (WHERE s.trend OPERATOR(pg_catalog.=) 'growing'))[1] AS g_last,
           pg_catalog.array_agg(s.clients) AS counts,
           (pg_catalog.array_agg(s.clients ORDER BY s.top_bytes DESC NULLS LAST, s.clients))[1] AS t_clients,
           (pg_catalog.array_agg(s.standby ORDER BY s.top_bytes DESC NULLS LAST, s.clients))[1] AS t_standby,
           pg_catalog.max(s.top_bytes) AS t_bytes
      INTO l
      FROM pgbench_lab_internal.sweep_lag_steps(experiment_id) s;
    -- no lag recorded at all (the runs' role may not see it): nothing to say
    IF l.n OPERATOR(pg_catalog.=) 0 OR l.t_bytes IS NULL THEN
        RETURN;
    END IF;
    IF l.g_clients IS NULL THEN
        words := pg_catalog.format('Standby lag: bounded at every count (at most %s behind, %s at %s): the standbys kept up with the writes.',
                                   pg_catalog.pg_size_pretty(coalesce(l.t_bytes, 0)), l.t_standby,
                                   pgbench_lab_internal.clients_text(l.t_clients));
        RETURN;
    END IF;
    growing_clients := l.g_clients;
    words := pg_catalog.format('Standby lag: %sgrowing through the run from %s on (%s was %s behind at its end): from there the standbys no longer keep up with the writes.',
                               (SELECT pg_catalog.format('bounded up to %s, ', pgbench_lab_internal.clients_text(pg_catalog.max(c)))
                                  FROM pg_catalog.unnest(l.counts) AS c
                                 WHERE c OPERATOR(pg_catalog.<) l.g_clients
                                HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0),
                               pgbench_lab_internal.clients_text(l.g_clients), l.g_standby,
                               pg_catalog.pg_size_pretty(coalesce(l.g_last, 0)));
END
$$;
-- ---------------------------------------------------------------------------
-- Plots: SVG documents (text) with axes, units and a legend.
-- ---------------------------------------------------------------------------

-- Text for an SVG document: printable() (XML 1.0 cannot hold control
-- characters, even as references), then the XML metacharacters escaped.
CREATE FUNCTION pgbench_lab_internal.svg_escape(s text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(pgbench_lab.printable(s), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'),
                   '"', '&quot;')
$$;

-- A number as SVG and tick labels want it: no trailing zeros.
CREATE FUNCTION pgbench_lab_internal.svg_num(x double precision, digits integer DEFAULT 1)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.trim_scale(pg_catalog.round(x::numeric, digits))::pg_catalog.text $$;

-- The top of an axis from 0 that holds hi, in steps of 1, 2 or 5 x 10^k,
-- about five ticks: returns {top, step}.  At least 0.00001.
CREATE FUNCTION pgbench_lab_internal.svg_axis(hi double precision)
RETURNS double precision[] LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    raw pg_catalog.float8;
    mag pg_catalog.float8;
    step pg_catalog.float8;
BEGIN
    IF hi IS NULL OR hi OPERATOR(pg_catalog.<=) 0 THEN
        hi := 1;
    END IF;
    -- the tick labels have six decimals: a smaller axis would read 0 at
    -- every tick (and hi / 5 can underflow)
    hi := greatest(hi, 1e-5);
    raw := hi OPERATOR(pg_catalog./) 5;
    mag := pg_catalog.power(10, pg_catalog.floor(pg_catalog.log(raw)));
    step := mag OPERATOR(pg_catalog.*) CASE WHEN raw OPERATOR(pg_catalog./) mag OPERATOR(pg_catalog.<=) 1 THEN 1 WHEN raw OPERATOR(pg_catalog./) mag OPERATOR(pg_catalog.<=) 2 THEN 2
                       WHEN raw OPERATOR(pg_catalog./) mag OPERATOR(pg_catalog.<=) 5 THEN 5 ELSE 10 END;
    RETURN ARRAY[pg_catalog.ceil(hi OPERATOR(pg_catalog./) step OPERATOR(pg_catalog.-) 1e-9) OPERATOR(pg_catalog.*) step, step];
END
$$;

-- The plot area is fixed: x from 80 to x1 (730, or 680 with a right
-- axis), y from 340 (zero) up to 50; an axis is {top, step}.  In numeric,
-- like the bars above.
CREATE FUNCTION pgbench_lab_internal.svg_x(v double precision, xa double precision[], x1 integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.trim_scale(pg_catalog.round(80 OPERATOR(pg_catalog.+)
        ((v::numeric OPERATOR(pg_catalog./) xa[1]::numeric) OPERATOR(pg_catalog.*) (x1 OPERATOR(pg_catalog.-) 80)),
        1))::pg_catalog.text
$$;

CREATE FUNCTION pgbench_lab_internal.svg_y(v double precision, ya double precision[], shift integer DEFAULT 0)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.trim_scale(pg_catalog.round((340 OPERATOR(pg_catalog.-)
        ((v::numeric OPERATOR(pg_catalog./) ya[1]::numeric) OPERATOR(pg_catalog.*) 290)) OPERATOR(pg_catalog.+) shift,
        1))::pg_catalog.text
$$;

-- The largest value under key ('x' or 'y') of the series on an axis (any
-- axis when axis is NULL).
CREATE FUNCTION pgbench_lab_internal.svg_max(series jsonb, key text, axis text)
RETURNS double precision LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.max(v::pg_catalog.float8) FROM pg_catalog.jsonb_array_elements(series) e, pg_catalog.jsonb_array_elements_text(e OPERATOR(pg_catalog.->) key) v
     WHERE v IS NOT NULL AND (axis IS NULL OR coalesce(e OPERATOR(pg_catalog.->>) 'axis', '1') OPERATOR(pg_catalog.=) axis)
$$;

-- Grid lines and tick labels of both axes, and of the right axis if any.
-- xlog: the x axis is log2 of clients, from 2^xlog (xa = {number of
-- doublings, 1}); its ticks are the powers of two, labelled with the counts
-- (every second or more when there are over 12, so the labels do not run
-- into each other).
CREATE FUNCTION pgbench_lab_internal.svg_grid(xa double precision[], ya double precision[],
                                     y2a double precision[], x1 integer, xlog integer DEFAULT NULL)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (SELECT pg_catalog.string_agg(pg_catalog.format('<line x1="80" y1="%s" x2="%s" y2="%s" stroke="#e0e0e0"/><text x="74" y="%s" text-anchor="end">%s</text>',
                                     pgbench_lab_internal.svg_y(t, ya), x1, pgbench_lab_internal.svg_y(t, ya),
                                     pgbench_lab_internal.svg_y(t, ya, 4), pgbench_lab_internal.svg_num(t, 6)), E'\n' ORDER BY t)
              FROM pg_catalog.generate_series(0, pg_catalog.round(ya[1] OPERATOR(pg_catalog./) ya[2])::integer) k, LATERAL (SELECT k OPERATOR(pg_catalog.*) ya[2] AS t) v)
        OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) CASE WHEN xlog IS NULL THEN
                (SELECT pg_catalog.string_agg(pg_catalog.format('<line x1="%s" y1="50" x2="%s" y2="340" stroke="#e0e0e0"/><text x="%s" y="358" text-anchor="middle">%s</text>',
                                     pgbench_lab_internal.svg_x(t, xa, x1), pgbench_lab_internal.svg_x(t, xa, x1),
                                     pgbench_lab_internal.svg_x(t, xa, x1), pgbench_lab_internal.svg_num(t, 6)), E'\n' ORDER BY t)
                   FROM pg_catalog.generate_series(0, pg_catalog.round(xa[1] OPERATOR(pg_catalog./) xa[2])::integer) k, LATERAL (SELECT k OPERATOR(pg_catalog.*) xa[2] AS t) v)
             ELSE
                (SELECT pg_catalog.string_agg(pg_catalog.format('<line x1="%s" y1="50" x2="%s" y2="340" stroke="#e0e0e0"/>%s', v.px, v.px,
                                     CASE WHEN k OPERATOR(pg_catalog.%) v.every OPERATOR(pg_catalog.=) 0
                                          THEN pg_catalog.format('<text class="xtick" x="%s" y="358" text-anchor="middle">%s</text>', v.px,
                                                      1::pg_catalog.int8 OPERATOR(pg_catalog.<<) (k OPERATOR(pg_catalog.+) xlog))
                                          ELSE '' END), E'\n' ORDER BY k)
                   FROM pg_catalog.generate_series(0, pg_catalog.round(xa[1])::integer) k,
                        LATERAL (SELECT pgbench_lab_internal.svg_x(k, xa, x1) AS px,
                                        pg_catalog.ceil((xa[1] OPERATOR(pg_catalog.+) 1) OPERATOR(pg_catalog./) 12)::integer AS every) v)
             END
        OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) coalesce((SELECT pg_catalog.string_agg(pg_catalog.format('<text x="%s" y="%s" text-anchor="start">%s</text>', x1 OPERATOR(pg_catalog.+) 6,
                                              pgbench_lab_internal.svg_y(t, y2a, 4), pgbench_lab_internal.svg_num(t, 6)), E'\n' ORDER BY t)
                       FROM pg_catalog.generate_series(0, pg_catalog.round(y2a[1] OPERATOR(pg_catalog./) y2a[2])::integer) k, LATERAL (SELECT k OPERATOR(pg_catalog.*) y2a[2] AS t) v)
                    OPERATOR(pg_catalog.||) E'\n', '')
$$;

-- One series: a polyline (dashed on the right axis) and, if asked, dots.
CREATE FUNCTION pgbench_lab_internal.svg_curve(s jsonb, xa double precision[], ax double precision[],
                                      color text, x1 integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH p AS (
        SELECT k, pgbench_lab_internal.svg_x(x::pg_catalog.float8, xa, x1) AS px, pgbench_lab_internal.svg_y(y::pg_catalog.float8, ax) AS py
          FROM pg_catalog.jsonb_array_elements_text(s OPERATOR(pg_catalog.->) 'x') WITH ORDINALITY AS a(x, k)
          JOIN pg_catalog.jsonb_array_elements_text(s OPERATOR(pg_catalog.->) 'y') WITH ORDINALITY AS b(y, k2) ON k OPERATOR(pg_catalog.=) k2
         WHERE y IS NOT NULL)
    SELECT pg_catalog.format('<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>', color,
                  CASE WHEN s OPERATOR(pg_catalog.->>) 'axis' OPERATOR(pg_catalog.=) '2' THEN ' stroke-dasharray="6 4"' ELSE '' END,
                  (SELECT coalesce(pg_catalog.string_agg(px OPERATOR(pg_catalog.||) ',' OPERATOR(pg_catalog.||) py, ' ' ORDER BY k), '') FROM p)) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) CASE WHEN (s OPERATOR(pg_catalog.->>) 'points')::boolean
                THEN (SELECT coalesce(pg_catalog.string_agg(pg_catalog.format('<circle cx="%s" cy="%s" r="3.5" fill="%s"/>', px, py, color),
                                                 '' ORDER BY k), '') FROM p) OPERATOR(pg_catalog.||) E'\n'
                ELSE '' END
$$;

-- The peak and knee marks of one series: each {"kind": "peak" | "knee",
-- "x", "y", "label", "title"}, a filled diamond for a peak and an open
-- square for a knee, with its label above (peak) or below (knee) and its
-- title as the tooltip.
CREATE FUNCTION pgbench_lab_internal.svg_marks(marks jsonb, xa double precision[], ya double precision[],
                                      color text, x1 integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.string_agg(
               CASE WHEN m.kind OPERATOR(pg_catalog.=) 'peak'
                    THEN pg_catalog.format('<polygon class="peak" points="%s,%s %s,%s %s,%s %s,%s" fill="%s" stroke="#000000"><title>%s</title></polygon><text class="peak-label" x="%s" y="%s" text-anchor="middle" font-size="11">%s</text>',
                                p.x, p.y OPERATOR(pg_catalog.-) 7, p.x OPERATOR(pg_catalog.+) 7, p.y, p.x, p.y OPERATOR(pg_catalog.+) 7, p.x OPERATOR(pg_catalog.-) 7, p.y,
                                color, pgbench_lab_internal.svg_escape(m.title), p.x, p.y OPERATOR(pg_catalog.-) 11, pgbench_lab_internal.svg_escape(m.label))
                    ELSE pg_catalog.format('<rect class="knee" x="%s" y="%s" width="14" height="14" fill="none" stroke="%s" stroke-width="2"><title>%s</title></rect><text class="knee-label" x="%s" y="%s" text-anchor="middle" font-size="11">%s</text>',
                                p.x OPERATOR(pg_catalog.-) 7, p.y OPERATOR(pg_catalog.-) 7, color, pgbench_lab_internal.svg_escape(m.title),
                                p.x, p.y OPERATOR(pg_catalog.+) 21, pgbench_lab_internal.svg_escape(m.label)) END,
               E'\n' ORDER BY m.k) OPERATOR(pg_catalog.||) E'\n', '')
      FROM pg_catalog.jsonb_array_elements(marks) WITH ORDINALITY AS j(m0, k)
     CROSS JOIN LATERAL (SELECT j.m0 OPERATOR(pg_catalog.->>) 'kind' AS kind, j.m0 OPERATOR(pg_catalog.->>) 'label' AS label,
                                j.m0 OPERATOR(pg_catalog.->>) 'title' AS title, j.k) m
     CROSS JOIN LATERAL (SELECT pgbench_lab_internal.svg_x((j.m0 OPERATOR(pg_catalog.->>) 'x')::pg_catalog.float8, xa, x1)::pg_catalog.numeric AS x,
                                pgbench_lab_internal.svg_y((j.m0 OPERATOR(pg_catalog.->>) 'y')::pg_catalog.float8, ya)::pg_catalog.numeric AS y) p
$$;

-- The height of a panel of svg_panel(): the plot area, then a legend line
-- per series and one for the peak and knee marks if any series has some.
CREATE FUNCTION pgbench_lab_internal.svg_panel_height(series jsonb)
RETURNS integer LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT 430 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) (pg_catalog.jsonb_array_length(series)
        OPERATOR(pg_catalog.+) CASE WHEN pg_catalog.jsonb_path_exists(series, '$[*].marks[*]') THEN 1 ELSE 0 END))
$$;

-- One plot area with its axes, curves, legend and notes, in a frame
-- 760 wide from y = 0 (the plot area is y 50 to 340), as svg_chart()
-- below draws it and plot_sweeps() stacks several.
-- series: [{"label", "x": [..], "y": [..], "axis": 1|2, "color": n, "points": bool,
--           "marks": [see svg_marks()]}]
-- Axes start at zero and end at a round value; the legend lists the
-- series below the x axis, one per line.  notes: lines written at the top
-- left of the plot area (what could not be drawn, and why).  xlog: {lo,
-- doublings}: the x values are log2(clients) - lo, on an axis of that many
-- doublings from 2^lo, with the powers of two as ticks.
CREATE FUNCTION pgbench_lab_internal.svg_panel(x_title text, y_title text, y2_title text, series jsonb,
                                      notes text[] DEFAULT NULL, xlog integer[] DEFAULT NULL)
RETURNS text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    colors CONSTANT pg_catalog.text[] := ARRAY['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd',
                                    '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
    x1 pg_catalog.int4 := CASE WHEN y2_title IS NULL THEN 730 ELSE 680 END;
    xa pg_catalog.float8[] := CASE WHEN xlog IS NULL THEN pgbench_lab_internal.svg_axis(pgbench_lab_internal.svg_max(series, 'x', NULL))
                                   ELSE ARRAY[xlog[2], 1]::pg_catalog.float8[] END;
    ya pg_catalog.float8[] := pgbench_lab_internal.svg_axis(pgbench_lab_internal.svg_max(series, 'y', '1'));
    y2a pg_catalog.float8[] := CASE WHEN y2_title IS NOT NULL
                                   THEN pgbench_lab_internal.svg_axis(pgbench_lab_internal.svg_max(series, 'y', '2')) END;
    out pg_catalog.text;
    s pg_catalog.jsonb;
    i pg_catalog.int4 := 0;
    c pg_catalog.text;
    ly pg_catalog.int4;
BEGIN
    out := pgbench_lab_internal.svg_grid(xa, ya, y2a, x1, xlog[1]);
    IF y2_title IS NOT NULL THEN
        out := out OPERATOR(pg_catalog.||) pg_catalog.format('<line x1="%s" y1="340" x2="%s" y2="50" stroke="#000000"/>', x1, x1) OPERATOR(pg_catalog.||) E'\n'
            OPERATOR(pg_catalog.||) pg_catalog.format('<text transform="translate(%s 195) rotate(90)" text-anchor="middle">%s</text>',
                      x1 OPERATOR(pg_catalog.+) 55, pgbench_lab_internal.svg_escape(y2_title)) OPERATOR(pg_catalog.||) E'\n';
    END IF;
    out := out OPERATOR(pg_catalog.||) pg_catalog.format('<line x1="80" y1="340" x2="%s" y2="340" stroke="#000000"/>', x1) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) '<line x1="80" y1="340" x2="80" y2="50" stroke="#000000"/>' OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pg_catalog.format('<text x="%s" y="380" text-anchor="middle">%s</text>', (80 OPERATOR(pg_catalog.+) x1) OPERATOR(pg_catalog./) 2,
                  pgbench_lab_internal.svg_escape(x_title)) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pg_catalog.format('<text transform="translate(22 195) rotate(-90)" text-anchor="middle">%s</text>',
                  pgbench_lab_internal.svg_escape(y_title)) OPERATOR(pg_catalog.||) E'\n';
    FOR s IN SELECT value FROM pg_catalog.jsonb_array_elements(series) LOOP
        c := (colors)[1 OPERATOR(pg_catalog.+) (COALESCE(CAST(s OPERATOR(pg_catalog.->>) 'color' AS integer), i) OPERATOR(pg_catalog.%) 10)];
        out := out OPERATOR(pg_catalog.||) pgbench_lab_internal.svg_curve(s
                                  , xa
                                  , CASE
                                      WHEN (s OPERATOR(pg_catalog.->>) 'axis') OPERATOR(pg_catalog.=) '2' THEN y2a
                                      ELSE ya
                                    END
                                  , c
                                  , x1)
            OPERATOR(pg_catalog.||) CASE WHEN s OPERATOR(pg_catalog.?) 'marks'
                                         THEN pgbench_lab_internal.svg_marks(s OPERATOR(pg_catalog.->) 'marks', xa,
                                                  CASE WHEN (s OPERATOR(pg_catalog.->>) 'axis') OPERATOR(pg_catalog.=) '2' THEN y2a ELSE ya END, c, x1)
                                         ELSE '' END
            OPERATOR(pg_catalog.||) pg_catalog.format('<line x1="80" y1="%s" x2="110" y2="%s" stroke="%s" stroke-width="2"%s/><text x="118" y="%s">%s</text>'
                                                , 410 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) i)
                                                , 410 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) i)
                                                , c
                                                , CASE
                                                    WHEN (s OPERATOR(pg_catalog.->>) 'axis') OPERATOR(pg_catalog.=) '2'
                                                      THEN ' stroke-dasharray="6 4"'
                                                    ELSE ''
                                                  END
                                                , 414 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) i)
                                                , pgbench_lab_internal.svg_escape(s OPERATOR(pg_catalog.->>) 'label')) OPERATOR(pg_catalog.||) '
';
        i := i OPERATOR(pg_catalog.+) 1;
    END LOOP;
    IF pg_catalog.jsonb_path_exists(series, '$[*].marks[*]') THEN
        ly := 410 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) i);
        out := out OPERATOR(pg_catalog.||) pg_catalog.format('<polygon class="legend-peak" points="95,%s 102,%s 95,%s 88,%s" fill="#ffffff" stroke="#000000"/><text x="110" y="%s">peak: the highest TPS</text>',
                                     ly OPERATOR(pg_catalog.-) 7, ly, ly OPERATOR(pg_catalog.+) 7, ly, ly OPERATOR(pg_catalog.+) 4)
            OPERATOR(pg_catalog.||) pg_catalog.format('<rect class="legend-knee" x="258" y="%s" width="14" height="14" fill="none" stroke="#000000" stroke-width="2"/><text x="280" y="%s">knee: the last count before a step gains less than the threshold</text>',
                                     ly OPERATOR(pg_catalog.-) 7, ly OPERATOR(pg_catalog.+) 4) OPERATOR(pg_catalog.||) E'\n';
    END IF;
    out := out OPERATOR(pg_catalog.||) COALESCE((SELECT pg_catalog.string_agg(pg_catalog.format('<text x="90" y="%s" fill="#555555">%s</text>'
                                               , 70 OPERATOR(pg_catalog.+) (18 OPERATOR(pg_catalog.*) (k OPERATOR(pg_catalog.-) 1))
                                               , pgbench_lab_internal.svg_escape(t))
                                        , '
' ORDER BY k)
                        FROM pg_catalog.unnest(notes) WITH ORDINALITY AS n (t, k)) OPERATOR(pg_catalog.||) '
'
                     , '');
    RETURN out;
END
$$;

-- The opening of an SVG document h high, with its title.
CREATE FUNCTION pgbench_lab_internal.svg_open(title text, h integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format('<svg xmlns="http://www.w3.org/2000/svg" width="760" height="%s" viewBox="0 0 760 %s" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
                  h, h) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pg_catalog.format('<rect x="0" y="0" width="760" height="%s" fill="#ffffff"/>', h) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pg_catalog.format('<text x="380" y="28" text-anchor="middle" font-size="16">%s</text>',
                  pgbench_lab_internal.svg_escape(title)) OPERATOR(pg_catalog.||) E'\n'
$$;

-- A document of one panel (svg_panel() above) under a title.
CREATE FUNCTION pgbench_lab_internal.svg_chart(title text, x_title text, y_title text, y2_title text, series jsonb,
                                      notes text[] DEFAULT NULL)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab_internal.svg_open(title, pgbench_lab_internal.svg_panel_height(series))
        OPERATOR(pg_catalog.||) pgbench_lab_internal.svg_panel(x_title, y_title, y2_title, series, notes)
        OPERATOR(pg_catalog.||) '</svg>' OPERATOR(pg_catalog.||) E'\n'
$$;

-- Why an experiment's runs give nothing to draw: no runs, or none done
-- with a TPS above zero (each status counted).
CREATE FUNCTION pgbench_lab_internal.undrawn_runs(experiment_id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.sum(c.n) IS NULL THEN 'it has no runs'
                ELSE pg_catalog.format('none of its %s run(s) ended done with a TPS above zero (%s)', pg_catalog.sum(c.n),
                            pg_catalog.string_agg(c.n OPERATOR(pg_catalog.||) ' ' OPERATOR(pg_catalog.||) c.status, ', ' ORDER BY c.status)) END
      FROM (SELECT CASE WHEN r.status OPERATOR(pg_catalog.=) 'done' THEN 'done without TPS' ELSE r.status END AS status,
                   pg_catalog.count(*) AS n
              FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
             WHERE x.experiment_id OPERATOR(pg_catalog.=) undrawn_runs.experiment_id
             GROUP BY 1) c
$$;

-- What plot_sweeps() draws of each sweep, in the order of ids: n, id,
-- name, its steps [{"c": clients, "t": tps, "l": latency}], the peak and
-- the knee (counts and TPS) and the knee threshold the sweep uses.
CREATE FUNCTION pgbench_lab_internal.plot_sweep_data(ids bigint[])
RETURNS jsonb LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
               'n', u.n, 'id', e.experiment_id, 'name', coalesce(e.label, e.workload),
               'steps', (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('c', s.clients, 't', s.tps, 'l', s.latency_avg_ms)
                                                              ORDER BY s.clients), '[]')
                           FROM pgbench_lab_internal.sweep_steps(e.experiment_id) s),
               'peak', v.peak_clients, 'peak_tps', v.peak_tps, 'knee', v.knee_clients,
               'knee_tps', (SELECT s.tps FROM pgbench_lab_internal.sweep_steps(e.experiment_id) s
                             WHERE s.clients OPERATOR(pg_catalog.=) v.knee_clients ORDER BY s.tps DESC LIMIT 1),
               'threshold', pgbench_lab_internal.sweep_rule(e.experiment_id, NULL)) ORDER BY u.n), '[]')
      FROM pg_catalog.unnest(ids) WITH ORDINALITY AS u(id, n)
      JOIN pgbench_lab.experiments e ON e.experiment_id OPERATOR(pg_catalog.=) u.id
     CROSS JOIN LATERAL pgbench_lab.sweep_verdict(e.experiment_id) v
$$;

-- The panel of each sweep, by n ({"n": panel}): sweeps whose peak TPS
-- are within split_ratio of each other share one, so that a sweep of
-- 1000 tps is not drawn flat on the floor of one of 40000.  Taken from
-- the highest peak down, a sweep joins the current panel while the
-- panel's top is at most split_ratio times its peak; panels are then
-- numbered in the order of their first sweep, and a sweep with nothing
-- to draw goes to the first.
CREATE FUNCTION pgbench_lab_internal.plot_sweep_panels(sweeps jsonb, split_ratio numeric)
RETURNS jsonb LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r pg_catalog.record;
    top pg_catalog.numeric;
    g pg_catalog.int4 := 0;
    groups pg_catalog.jsonb := '{}';
BEGIN
    FOR r IN SELECT (x OPERATOR(pg_catalog.->>) 'n')::pg_catalog.int4 AS n, (x OPERATOR(pg_catalog.->>) 'peak_tps')::pg_catalog.numeric AS peak
               FROM pg_catalog.jsonb_array_elements(sweeps) x
              WHERE x OPERATOR(pg_catalog.->>) 'peak_tps' IS NOT NULL
              ORDER BY 2 DESC, 1 LOOP
        IF top IS NULL OR top OPERATOR(pg_catalog.>) (split_ratio OPERATOR(pg_catalog.*) r.peak) THEN
            g := g OPERATOR(pg_catalog.+) 1;
            top := r.peak;
        END IF;
        groups := groups OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(r.n::pg_catalog.text, g);
    END LOOP;
    RETURN (SELECT coalesce(pg_catalog.jsonb_object_agg(x.n, coalesce(o.panel, 1)), '{}')
              FROM (SELECT (x OPERATOR(pg_catalog.->>) 'n') AS n FROM pg_catalog.jsonb_array_elements(sweeps) x) x
              LEFT JOIN (SELECT m.key AS n, pg_catalog.dense_rank() OVER (ORDER BY f.first) AS panel
                           FROM pg_catalog.jsonb_each_text(groups) m
                           JOIN (SELECT m2.value AS g, pg_catalog.min(m2.key::pg_catalog.int4) AS first
                                   FROM pg_catalog.jsonb_each_text(groups) m2 GROUP BY m2.value) f
                             ON f.g OPERATOR(pg_catalog.=) m.value) o
                ON o.n OPERATOR(pg_catalog.=) x.n);
END
$$;

-- log2(n) - lo, in numeric (exact at the powers of two).
CREATE FUNCTION pgbench_lab_internal.log2_from(n integer, lo integer)
RETURNS numeric LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.log(2::pg_catalog.numeric, n::pg_catalog.numeric) OPERATOR(pg_catalog.-) lo $$;

-- The series of one sweep for svg_panel(): TPS (solid, with its peak and
-- knee marked) and average latency (dashed, right axis), x as
-- log2(clients) - lo.
CREATE FUNCTION pgbench_lab_internal.plot_sweep_series(w jsonb, lo integer)
RETURNS jsonb LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.jsonb_build_array(
        pg_catalog.jsonb_build_object(
            'label', pg_catalog.format('%s TPS (experiment %s): %s', w OPERATOR(pg_catalog.->>) 'name', w OPERATOR(pg_catalog.->>) 'id',
                          CASE WHEN w OPERATOR(pg_catalog.->>) 'peak' IS NULL THEN 'no peak, no knee'
                               ELSE pg_catalog.format('peak %s, knee %s (threshold %s of linear)', w OPERATOR(pg_catalog.->>) 'peak',
                                             coalesce(w OPERATOR(pg_catalog.->>) 'knee',
                                                      CASE WHEN pg_catalog.jsonb_array_length(w OPERATOR(pg_catalog.->) 'steps') OPERATOR(pg_catalog.<) 2
                                                           THEN 'not found' ELSE 'not reached' END),
                                             pgbench_lab_internal.threshold_text((w OPERATOR(pg_catalog.->>) 'threshold')::pg_catalog.float8)) END),
            'x', x.xs, 'y', (SELECT coalesce(pg_catalog.jsonb_agg(st OPERATOR(pg_catalog.->) 't' ORDER BY k), '[]')
                               FROM pg_catalog.jsonb_array_elements(w OPERATOR(pg_catalog.->) 'steps') WITH ORDINALITY AS a(st, k)),
            'axis', 1, 'color', (w OPERATOR(pg_catalog.->>) 'n')::pg_catalog.int4 OPERATOR(pg_catalog.-) 1, 'points', true,
            'marks', (SELECT coalesce(pg_catalog.jsonb_agg(m.mark ORDER BY m.k), '[]') FROM (
                         SELECT 1 AS k, pg_catalog.jsonb_build_object('kind', 'peak',
                                    'x', pgbench_lab_internal.log2_from((w OPERATOR(pg_catalog.->>) 'peak')::pg_catalog.int4, lo),
                                    'y', w OPERATOR(pg_catalog.->) 'peak_tps',
                                    'label', 'peak ' OPERATOR(pg_catalog.||) (w OPERATOR(pg_catalog.->>) 'peak'),
                                    'title', pg_catalog.format('%s, experiment %s: peak at %s, %s tps', w OPERATOR(pg_catalog.->>) 'name',
                                                  w OPERATOR(pg_catalog.->>) 'id',
                                                  pgbench_lab_internal.clients_text((w OPERATOR(pg_catalog.->>) 'peak')::pg_catalog.int4),
                                                  pgbench_lab_internal.fmt((w OPERATOR(pg_catalog.->>) 'peak_tps')::pg_catalog.float8))) AS mark
                          WHERE w OPERATOR(pg_catalog.->>) 'peak' IS NOT NULL
                         UNION ALL
                         SELECT 2, pg_catalog.jsonb_build_object('kind', 'knee',
                                    'x', pgbench_lab_internal.log2_from((w OPERATOR(pg_catalog.->>) 'knee')::pg_catalog.int4, lo),
                                    'y', w OPERATOR(pg_catalog.->) 'knee_tps',
                                    'label', 'knee ' OPERATOR(pg_catalog.||) (w OPERATOR(pg_catalog.->>) 'knee'),
                                    'title', pg_catalog.format('%s, experiment %s: knee at %s, %s tps; the next step gained less than %s of linear scaling',
                                                  w OPERATOR(pg_catalog.->>) 'name', w OPERATOR(pg_catalog.->>) 'id',
                                                  pgbench_lab_internal.clients_text((w OPERATOR(pg_catalog.->>) 'knee')::pg_catalog.int4),
                                                  pgbench_lab_internal.fmt((w OPERATOR(pg_catalog.->>) 'knee_tps')::pg_catalog.float8),
                                                  pgbench_lab_internal.threshold_text((w OPERATOR(pg_catalog.->>) 'threshold')::pg_catalog.float8)))
                          WHERE w OPERATOR(pg_catalog.->>) 'knee' IS NOT NULL) m)),
        pg_catalog.jsonb_build_object(
            'label', pg_catalog.format('%s latency avg ms (experiment %s)', w OPERATOR(pg_catalog.->>) 'name', w OPERATOR(pg_catalog.->>) 'id'),
            'x', x.xs, 'y', (SELECT coalesce(pg_catalog.jsonb_agg(st OPERATOR(pg_catalog.->) 'l' ORDER BY k), '[]')
                               FROM pg_catalog.jsonb_array_elements(w OPERATOR(pg_catalog.->) 'steps') WITH ORDINALITY AS a(st, k)),
            'axis', 2, 'color', (w OPERATOR(pg_catalog.->>) 'n')::pg_catalog.int4 OPERATOR(pg_catalog.-) 1, 'points', true))
      FROM (SELECT (SELECT coalesce(pg_catalog.jsonb_agg(pgbench_lab_internal.log2_from((st OPERATOR(pg_catalog.->>) 'c')::pg_catalog.int4, lo) ORDER BY k), '[]')
                      FROM pg_catalog.jsonb_array_elements(w OPERATOR(pg_catalog.->) 'steps') WITH ORDINALITY AS a(st, k)) AS xs) x
$$;

-- TPS and average latency against clients on a log2 axis, a pair of
-- curves per sweep with its peak and knee marked; sweeps of very
-- different throughput in separate panels (plot_sweep_panels()), stacked
-- in one document, each with its own y axes and all with the same x axis.
CREATE FUNCTION pgbench_lab_internal.plot_sweeps(ids bigint[])
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    split_ratio CONSTANT pg_catalog.numeric := 5;
    sweeps pg_catalog.jsonb := pgbench_lab_internal.plot_sweep_data(ids);
    panels pg_catalog.jsonb := pgbench_lab_internal.plot_sweep_panels(sweeps, split_ratio);
    npanels pg_catalog.int4;
    minc pg_catalog.int8;
    maxc pg_catalog.int8;
    lo pg_catalog.int4 := 0;
    hi pg_catalog.int4 := 1;
    p pg_catalog.int4;
    series pg_catalog.jsonb;
    notes pg_catalog.text[];
    body pg_catalog.text := '';
    y pg_catalog.int4;
    peaks pg_catalog.record;
BEGIN
    SELECT pg_catalog.max(v::pg_catalog.int4) INTO npanels FROM pg_catalog.jsonb_each_text(panels) AS e(k, v);
    SELECT pg_catalog.min((st OPERATOR(pg_catalog.->>) 'c')::pg_catalog.int8), pg_catalog.max((st OPERATOR(pg_catalog.->>) 'c')::pg_catalog.int8)
      INTO minc, maxc
      FROM pg_catalog.jsonb_array_elements(sweeps) w, pg_catalog.jsonb_array_elements(w OPERATOR(pg_catalog.->) 'steps') st;
    IF minc IS NOT NULL THEN
        -- from the power of two at or below the fewest clients to the one
        -- at or above the most, at least one doubling
        WHILE (1::pg_catalog.int8 OPERATOR(pg_catalog.<<) (lo OPERATOR(pg_catalog.+) 1)) OPERATOR(pg_catalog.<=) minc LOOP
            lo := lo OPERATOR(pg_catalog.+) 1;
        END LOOP;
        hi := lo;
        WHILE (1::pg_catalog.int8 OPERATOR(pg_catalog.<<) hi) OPERATOR(pg_catalog.<) maxc LOOP
            hi := hi OPERATOR(pg_catalog.+) 1;
        END LOOP;
        hi := greatest(hi, lo OPERATOR(pg_catalog.+) 1);
    END IF;
    y := CASE WHEN npanels OPERATOR(pg_catalog.>) 1 THEN 40 ELSE 0 END;
    FOR p IN 1 .. npanels LOOP
        SELECT coalesce(pg_catalog.jsonb_agg(e ORDER BY (w OPERATOR(pg_catalog.->>) 'n')::pg_catalog.int4, k), '[]') INTO series
          FROM pg_catalog.jsonb_array_elements(sweeps) w,
               pg_catalog.jsonb_array_elements(pgbench_lab_internal.plot_sweep_series(w, lo)) WITH ORDINALITY AS s(e, k)
         WHERE (panels OPERATOR(pg_catalog.->>) (w OPERATOR(pg_catalog.->>) 'n'))::pg_catalog.int4 OPERATOR(pg_catalog.=) p;
        notes := NULL;
        IF p OPERATOR(pg_catalog.=) 1 THEN
            -- a sweep whose runs all failed is in the legend, and says why it has no curve
            SELECT CASE WHEN minc IS NULL THEN ARRAY['Nothing to plot.'] ELSE '{}' END
                   OPERATOR(pg_catalog.||) pg_catalog.array_agg(pg_catalog.format('Experiment %s: %s.', w OPERATOR(pg_catalog.->>) 'id',
                                                    pgbench_lab_internal.undrawn_runs((w OPERATOR(pg_catalog.->>) 'id')::pg_catalog.int8))
                                                    ORDER BY (w OPERATOR(pg_catalog.->>) 'n')::pg_catalog.int4)
              INTO notes
              FROM pg_catalog.jsonb_array_elements(sweeps) w
             WHERE pg_catalog.jsonb_array_length(w OPERATOR(pg_catalog.->) 'steps') OPERATOR(pg_catalog.=) 0;
        END IF;
        body := body OPERATOR(pg_catalog.||) pg_catalog.format('<g class="panel" transform="translate(0 %s)">', y) OPERATOR(pg_catalog.||) E'\n';
        IF npanels OPERATOR(pg_catalog.>) 1 THEN
            SELECT pg_catalog.min((w OPERATOR(pg_catalog.->>) 'peak_tps')::pg_catalog.float8) AS low,
                   pg_catalog.max((w OPERATOR(pg_catalog.->>) 'peak_tps')::pg_catalog.float8) AS high INTO peaks
              FROM pg_catalog.jsonb_array_elements(sweeps) w
             WHERE (panels OPERATOR(pg_catalog.->>) (w OPERATOR(pg_catalog.->>) 'n'))::pg_catalog.int4 OPERATOR(pg_catalog.=) p;
            body := body OPERATOR(pg_catalog.||) pg_catalog.format('<text x="380" y="28" text-anchor="middle" font-size="14">Panel %s of %s: peak TPS %s</text>',
                                p, npanels,
                                CASE WHEN peaks.low OPERATOR(pg_catalog.=) peaks.high THEN pgbench_lab_internal.fmt(peaks.high)
                                     ELSE pgbench_lab_internal.fmt(peaks.low) OPERATOR(pg_catalog.||) ' to ' OPERATOR(pg_catalog.||) pgbench_lab_internal.fmt(peaks.high) END)
                    OPERATOR(pg_catalog.||) E'\n';
        END IF;
        body := body OPERATOR(pg_catalog.||) pgbench_lab_internal.svg_panel('clients (log2 scale)', 'TPS (transactions per second), solid',
                                                   'average latency (ms), dashed', series, notes, ARRAY[lo, hi OPERATOR(pg_catalog.-) lo])
            OPERATOR(pg_catalog.||) '</g>' OPERATOR(pg_catalog.||) E'\n';
        y := y OPERATOR(pg_catalog.+) pgbench_lab_internal.svg_panel_height(series);
    END LOOP;
    RETURN pgbench_lab_internal.svg_open('TPS and latency against clients (in-server)', y)
        OPERATOR(pg_catalog.||) CASE WHEN npanels OPERATOR(pg_catalog.>) 1
                THEN pg_catalog.format('<text x="380" y="48" text-anchor="middle" fill="#555555">Peak TPS more than %s times apart: sweeps within %s times of each other share a panel with its own y axes</text>',
                                       split_ratio, split_ratio) OPERATOR(pg_catalog.||) E'\n'
                ELSE '' END
        OPERATOR(pg_catalog.||) body OPERATOR(pg_catalog.||) '</svg>' OPERATOR(pg_catalog.||) E'\n';
END
$$;

-- Per-second curves of runs (experiments of settings bring their runs).
-- A run with no per-second figure to draw is in the legend and says so in
-- a note, as does an experiment with no runs.
CREATE FUNCTION pgbench_lab_internal.plot_runs(ids bigint[], metric text)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH runs AS (
        SELECT r.*, pg_catalog.row_number() OVER (ORDER BY u.n, x.ordinal) AS k, x.variant, x.round
          FROM pg_catalog.unnest(ids) WITH ORDINALITY AS u(id, n)
          LEFT JOIN pgbench_lab.experiment_runs x ON x.experiment_id OPERATOR(pg_catalog.=) u.id
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) coalesce(x.run_id, u.id)),
    points AS (
        SELECT r.k, p.second AS x, CASE WHEN metric OPERATOR(pg_catalog.=) 'tps' THEN p.tps
                                               WHEN metric OPERATOR(pg_catalog.=) 'latency' THEN p.latency_avg_ms
                                               WHEN metric OPERATOR(pg_catalog.=) 'latency_max' THEN p.latency_max_ms
                                               WHEN metric OPERATOR(pg_catalog.=) 'lag' THEN p.lag_avg_ms
                                               -- telemetry: the machine's busy CPU, the clients' waiting
                                               WHEN metric OPERATOR(pg_catalog.=) 'cpu'
                                               THEN 100 OPERATOR(pg_catalog.-) t.cpu_idle_pct OPERATOR(pg_catalog.-) t.cpu_iowait_pct
                                               WHEN metric OPERATOR(pg_catalog.=) 'waits'
                                               THEN 100 OPERATOR(pg_catalog.*) (1 OPERATOR(pg_catalog.-) coalesce((t.waits OPERATOR(pg_catalog.->>) 'CPU')::pg_catalog.float8, 0)
                                                    OPERATOR(pg_catalog./) CASE WHEN w.n OPERATOR(pg_catalog.>) 0 THEN w.n END)
                                               ELSE p.hit_ratio OPERATOR(pg_catalog.*) 100 END AS y
          FROM runs r JOIN pgbench_lab.run_progress p ON p.run_id OPERATOR(pg_catalog.=) r.run_id
          LEFT JOIN pgbench_lab.run_telemetry t
                 ON t.run_id OPERATOR(pg_catalog.=) p.run_id AND t.second OPERATOR(pg_catalog.=) p.second
          LEFT JOIN LATERAL (SELECT pg_catalog.sum(e.value::pg_catalog.float8) AS n
                               FROM pg_catalog.jsonb_each_text(t.waits) AS e) w ON true
         WHERE p.interval_seconds OPERATOR(pg_catalog.>=) 0.5),
    notes AS (
        SELECT pg_catalog.format('Run %s: no per-second %s was recorded (status %s).', r.run_id,
                      CASE WHEN metric OPERATOR(pg_catalog.=) 'tps' THEN 'progress' ELSE pg_catalog.replace(metric, '_', ' ') END, r.status) AS t,
               r.k AS k
          FROM runs r WHERE NOT EXISTS (SELECT FROM points p WHERE p.k OPERATOR(pg_catalog.=) r.k AND p.y IS NOT NULL)
        UNION ALL
        SELECT pg_catalog.format('Experiment %s: it has no runs.', u.id), 0
          FROM pg_catalog.unnest(ids) AS u(id)
         WHERE EXISTS (SELECT FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) u.id)
           AND NOT EXISTS (SELECT FROM pgbench_lab.experiment_runs x WHERE x.experiment_id OPERATOR(pg_catalog.=) u.id))
    SELECT pgbench_lab_internal.svg_chart(
        CASE WHEN metric OPERATOR(pg_catalog.=) 'tps' THEN 'TPS per second (in-server)'
                    WHEN metric OPERATOR(pg_catalog.=) 'latency' THEN 'Average latency per second (in-server)'
                    WHEN metric OPERATOR(pg_catalog.=) 'latency_max' THEN 'Maximum latency per second (in-server)'
                    WHEN metric OPERATOR(pg_catalog.=) 'lag' THEN 'Average schedule lag per second (runs with a rate)'
                    WHEN metric OPERATOR(pg_catalog.=) 'cpu' THEN 'Machine CPU busy per second (all but idle and iowait)'
                    WHEN metric OPERATOR(pg_catalog.=) 'waits' THEN 'Clients waiting per second (share of wait-event samples)'
                    ELSE 'Buffer hit ratio per second' END,
        'time since the start (s)',
        CASE WHEN metric OPERATOR(pg_catalog.=) 'tps' THEN 'TPS (transactions per second)'
                    WHEN metric OPERATOR(pg_catalog.=) 'latency' THEN 'average latency (ms)'
                    WHEN metric OPERATOR(pg_catalog.=) 'latency_max' THEN 'maximum latency (ms)'
                    WHEN metric OPERATOR(pg_catalog.=) 'lag' THEN 'schedule lag (ms)'
                    WHEN metric OPERATOR(pg_catalog.=) 'cpu' THEN 'CPU busy (%)'
                    WHEN metric OPERATOR(pg_catalog.=) 'waits' THEN 'clients waiting on an event (%)'
                    ELSE 'buffer hit ratio (%)' END,
        NULL,
        (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
             'color', coalesce(r.variant OPERATOR(pg_catalog.-) 1, r.k OPERATOR(pg_catalog.-) 1),
             'label', pg_catalog.format('%srun %s: %s, %s%s%s',
                             CASE WHEN r.variant IS NOT NULL THEN pg_catalog.format('%s, round %s: ', pg_catalog.chr(64 OPERATOR(pg_catalog.+) r.variant), r.round) ELSE '' END,
                             r.run_id, r.workload, pgbench_lab_internal.clients_text(r.clients),
                             coalesce(', ' OPERATOR(pg_catalog.||) r.label, ''),
                             CASE WHEN r.settings OPERATOR(pg_catalog.->) 'session' OPERATOR(pg_catalog.<>) '{}'
                                  THEN ', ' OPERATOR(pg_catalog.||) pgbench_lab_internal.settings_text(r.settings OPERATOR(pg_catalog.->) 'session') ELSE '' END),
             'x', (SELECT coalesce(pg_catalog.jsonb_agg(p.x ORDER BY p.x), '[]') FROM points p WHERE p.k OPERATOR(pg_catalog.=) r.k),
             'y', (SELECT coalesce(pg_catalog.jsonb_agg(p.y ORDER BY p.x), '[]') FROM points p WHERE p.k OPERATOR(pg_catalog.=) r.k))
             ORDER BY r.k), '[]')
           FROM runs r),
        (SELECT CASE WHEN NOT EXISTS (SELECT FROM points p WHERE p.y IS NOT NULL)
                     THEN ARRAY['Nothing to plot.'] ELSE '{}' END
                OPERATOR(pg_catalog.||) pg_catalog.array_agg(n.t ORDER BY n.k)
           FROM notes n
         HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0))
$$;

CREATE FUNCTION pgbench_lab.plot(ids bigint[], metric text DEFAULT 'tps')
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    sweeps pg_catalog.int4;
BEGIN
    PERFORM pgbench_lab_internal.check_ids(ids, true);
    IF metric IS NULL THEN
        RAISE EXCEPTION 'metric must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Valid metrics are tps, latency, latency_max, lag, hit_ratio, cpu and waits.';
    END IF;
    IF NOT metric OPERATOR(pg_catalog.=) ANY (ARRAY['tps', 'latency', 'latency_max', 'lag', 'hit_ratio', 'cpu', 'waits']) THEN
        RAISE EXCEPTION 'unknown metric "%"', metric
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Valid metrics are tps, latency, latency_max, lag, hit_ratio, cpu and waits.';
    END IF;
    IF EXISTS (SELECT FROM pgbench_lab.experiments e
                WHERE e.experiment_id OPERATOR(pg_catalog.=) ANY (ids) AND e.kind OPERATOR(pg_catalog.=) 'latency_curve') THEN
        IF pg_catalog.cardinality(ids) OPERATOR(pg_catalog.>) 1 THEN
            RAISE EXCEPTION 'a latency curve is plotted alone'
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Plot one latency_curve experiment at a time: its latency percentiles against the achieved TPS.';
        END IF;
        RETURN pgbench_lab_internal.plot_latency_curve(ids[1]);
    END IF;
    SELECT pg_catalog.count(*) INTO sweeps FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) ANY (ids) AND e.kind OPERATOR(pg_catalog.=) 'sweep';
    IF sweeps OPERATOR(pg_catalog.=) 0 THEN
        RETURN pgbench_lab_internal.plot_runs(ids, metric);
    END IF;
    IF sweeps OPERATOR(pg_catalog.<) pg_catalog.cardinality(ids) THEN
        RAISE EXCEPTION 'sweeps cannot be plotted with runs or other experiments'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Plot sweeps together (TPS and latency against clients) and runs together (per-second curves).';
    END IF;
    IF NOT metric OPERATOR(pg_catalog.=) ANY (ARRAY['tps', 'latency']) THEN
        RAISE EXCEPTION 'a sweep plots TPS and latency, not %', metric
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Use metric tps or latency for sweeps; both draw TPS and latency against clients.';
    END IF;
    RETURN pgbench_lab_internal.plot_sweeps(ids);
END
$$;
COMMENT ON FUNCTION pgbench_lab.plot(bigint[], text) IS
    'An SVG document: per-second curves of runs, TPS and latency against clients for sweeps, latency against TPS for a latency curve';


GRANT EXECUTE ON FUNCTION pgbench_lab.plot(bigint[], text) TO pg_monitor;

-- ---------------------------------------------------------------------------
-- benchmark tools (test/bench/): not part of the API.
-- ---------------------------------------------------------------------------

-- The floor of the in-server path: workers of a run's clients' shape doing
-- nothing but the select-only transaction (saved plan, execute, commit),
-- with no timing or counters; select-only transactions per second summed
-- over the clients, and how many they made; with per_client > 0 each client
-- stops after that many (or at the time limit, whichever comes first).  Finds pgbench_accounts through the caller's
-- search_path, as start() does, so it has no SET clause and runs no SQL
-- that resolves a name through it.
CREATE FUNCTION pgbench_lab_internal.spi_floor(clients integer, seconds double precision,
                                               per_client bigint DEFAULT 0,
                                               OUT tps double precision, OUT transactions bigint)
RETURNS record
LANGUAGE c VOLATILE STRICT
AS 'MODULE_PATHNAME', 'pgbench_lab_spi_floor';
REVOKE ALL ON FUNCTION pgbench_lab_internal.spi_floor(integer, double precision, bigint) FROM PUBLIC;
