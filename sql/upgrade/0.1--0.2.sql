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

-- The query mode (pgbench -M).  (Development version: this belongs to the
-- 0.2 to 0.3 update once 0.2 is frozen.)
ALTER TABLE pgbench_lab.runs
    ADD COLUMN query_mode text CHECK (query_mode OPERATOR(pg_catalog.=) ANY (ARRAY['simple', 'extended', 'prepared']));
COMMENT ON COLUMN pgbench_lab.runs.query_mode IS
    'How the statements were sent: simple, extended or prepared (pgbench -M); NULL: a run from before 0.3, prepared';

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
