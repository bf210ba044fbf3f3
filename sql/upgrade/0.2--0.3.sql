-- pgbench_lab update from 0.2 to 0.3.  The Makefile assembles the update
-- script from this prelude, then the files of sql/data/ that 0.2 did not
-- have (PGBL_NEW_DATA: an update creates their objects as a fresh install
-- does), then every file of sql/code/ in the order of their names, the
-- same files the 0.3 install script ends with.  So an update keeps what
-- sql/data/ holds (schemas, tables, sequences, row-level security: the
-- results users recorded), brings it to 0.3's shape here, drops every
-- function, procedure and view of 0.2, and creates those of 0.3 exactly
-- as a fresh install does, grants and comments included.
-- test/t/test_upgrade.py checks that an updated database (from 0.2, and
-- from 0.1 through 0.2) and a fresh 0.3 one have the same catalog, object
-- by object.
-- Rules as for the install script: every name schema-qualified, and no
-- CASCADE anywhere: a drop that would reach into user data must fail, not
-- take the data with it.

\echo Use "ALTER EXTENSION pgbench_lab UPDATE TO '0.3'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- 1. What the update keeps (sql/data/): from 0.2's shape to 0.3's.
-- ---------------------------------------------------------------------------
-- Every change made after 0.2 to a file of sql/data/ that 0.2 had is
-- repeated here, in the same order, so that the updated objects end up as
-- a fresh install makes them.

-- >>> data changes 0.2 -> 0.3: add them below this line.

-- The query mode of a run (pgbench -M), sql/data/10_runs.sql.
ALTER TABLE pgbench_lab.runs
    ADD COLUMN query_mode text CHECK (query_mode OPERATOR(pg_catalog.=) ANY (ARRAY['simple', 'extended', 'prepared']));
COMMENT ON COLUMN pgbench_lab.runs.query_mode IS
    'How the statements were sent: simple, extended or prepared (pgbench -M); NULL: a run from before 0.3, prepared';

-- The run options given, sql/data/10_runs.sql.
ALTER TABLE pgbench_lab.runs
    ADD COLUMN options jsonb CHECK (pg_catalog.jsonb_typeof(options) OPERATOR(pg_catalog.=) 'object');
COMMENT ON COLUMN pgbench_lab.runs.options IS
    'The run options it was called with (NULL ones left out), by name as pgbench_lab.run_options() lists them, without conninfos or script text; NULL: a run from before 0.3';

-- Where a run's server figures were read, sql/data/10_runs.sql.
ALTER TABLE pgbench_lab.runs ADD COLUMN figures_note text;
COMMENT ON COLUMN pgbench_lab.runs.wal_bytes IS
    'WAL the run''s server wrote over the run (its pg_current_wal_lsn() at the end minus at the start): this server''s for an in-server run or one to this server; for a libpq run to other servers, read on each primary target and summed over them (figures_note says where), NULL when one could not be read';
COMMENT ON COLUMN pgbench_lab.runs.checkpoints IS
    'Checkpoints the run''s server completed over the run, read as wal_bytes is: from PostgreSQL 18 pg_stat_checkpointer.num_done; before, changes of the control file''s last checkpoint seen by the run''s coordinator every 50 ms (two completing within 50 ms count as one); on another server before 18, 0 when its last checkpoint did not change, else NULL (figures_note says why)';
COMMENT ON COLUMN pgbench_lab.runs.figures_note IS
    'A libpq run to other servers: where wal_bytes and checkpoints were read (which targets) or why they are NULL (not measured there); its run_telemetry has no server, machine or disk figures (NULL): they would be this server''s.  NULL: measured on this server, the run''s';

-- Checkpoints counted when they complete, sql/data/12_telemetry.sql.
COMMENT ON COLUMN pgbench_lab.run_telemetry.checkpoints IS
    'Checkpoints the server completed during the second: pg_stat_checkpointer.num_done from PostgreSQL 18; before, changes of the control file''s last checkpoint sampled every 50 ms.  The server, machine and disk columns are NULL for a run whose server is not this one (runs.figures_note)';

-- The standbys' lag sampled every 50 ms, sql/data/13_replication.sql.
ALTER TABLE pgbench_lab.run_replication
    ADD COLUMN lag_samples integer,
    ADD COLUMN sent_lag_bytes_max numeric,
    ADD COLUMN write_lag_bytes_max numeric,
    ADD COLUMN flush_lag_bytes_max numeric,
    ADD COLUMN replay_lag_bytes_max numeric;
COMMENT ON COLUMN pgbench_lab.run_replication.replay_lag_bytes IS
    'WAL written on the primary but not yet replayed by the standby, in bytes, at the second''s end: what a read there does not see yet (replay_lag_bytes_max: the largest of the second''s samples)';
COMMENT ON COLUMN pgbench_lab.run_replication.lag_samples IS
    'How many times the standby''s lag was sampled in the second (every 50 ms, and at the second''s end); NULL: a run from before 0.3, sampled once a second';
COMMENT ON COLUMN pgbench_lab.run_replication.replay_lag_bytes_max IS
    'The largest replay lag of the second''s samples, in bytes (so sent, write and flush): the lag is sampled, never exact, and may have peaked higher between two samples';

-- A remote run's WAL and checkpoints read on its targets, sql/data/14_targets.sql.
ALTER TABLE pgbench_lab.run_targets
    ADD COLUMN wal_bytes numeric,
    ADD COLUMN checkpoints bigint,
    ADD COLUMN figures_note text;
COMMENT ON COLUMN pgbench_lab.run_targets.wal_bytes IS
    'A run whose server is not this one: WAL this primary wrote over the run, its pg_current_wal_lsn() read there at the start and at the end (every session''s, not only the run''s clients''); NULL for a standby, or when not read (figures_note)';
COMMENT ON COLUMN pgbench_lab.run_targets.checkpoints IS
    'Checkpoints this primary completed over the run, read there: pg_stat_checkpointer.num_done from PostgreSQL 18; before, 0 when its pg_control_checkpoint() did not change, else NULL (figures_note)';
COMMENT ON COLUMN pgbench_lab.run_targets.figures_note IS
    'Why wal_bytes or checkpoints are NULL: a standby, not read there (the error), or checkpoints that a server before 18 does not count by completion';

-- Kinds that add steps and give verdicts; the rounds type,
-- sql/data/20_experiments.sql.
ALTER TABLE pgbench_lab.experiment_kinds
    ADD COLUMN extend regprocedure,
    ADD COLUMN verdicts regprocedure;
COMMENT ON COLUMN pgbench_lab.experiment_kinds.extend IS
    'Called with (experiment_id, plan) after the planned steps, and again after each batch it adds, in a transaction of its own: {steps: [more steps, as the plan''s], about: why (a NOTICE)}, or NULL to stop';
COMMENT ON COLUMN pgbench_lab.experiment_kinds.verdicts IS
    'Called with (experiment_id): every verdict the experiment gives, one row each (comparison, measure, rounds, ratio, its interval and coverage, verdict, decided, basis); read through pgbench_lab.experiment_verdicts()';

-- The type of an experiment's rounds: a count from 1 to 100, or 'auto'
-- (src/experiment_rounds.c).  An integer of any width converts to it
-- implicitly.
CREATE TYPE pgbench_lab.rounds;
CREATE FUNCTION pgbench_lab_internal.rounds_in(pg_catalog.cstring) RETURNS pgbench_lab.rounds
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'pgbench_lab_rounds_in';
CREATE FUNCTION pgbench_lab_internal.rounds_out(pgbench_lab.rounds) RETURNS pg_catalog.cstring
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'pgbench_lab_rounds_out';
CREATE TYPE pgbench_lab.rounds (
    INPUT = pgbench_lab_internal.rounds_in,
    OUTPUT = pgbench_lab_internal.rounds_out,
    LIKE = pg_catalog.int4
);
COMMENT ON TYPE pgbench_lab.rounds IS
    'An experiment''s rounds: a count from 1 to 100, or ''auto'' (added until the verdict is settled or the budget ends)';
CREATE FUNCTION pgbench_lab_internal.rounds(integer) RETURNS pgbench_lab.rounds
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'pgbench_lab_rounds_from_int4';
CREATE CAST (integer AS pgbench_lab.rounds) WITH FUNCTION pgbench_lab_internal.rounds(integer) AS IMPLICIT;
CREATE FUNCTION pgbench_lab_internal.rounds(smallint) RETURNS pgbench_lab.rounds
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'pgbench_lab_rounds_from_int2';
CREATE CAST (smallint AS pgbench_lab.rounds) WITH FUNCTION pgbench_lab_internal.rounds(smallint) AS IMPLICIT;
CREATE FUNCTION pgbench_lab_internal.rounds(bigint) RETURNS pgbench_lab.rounds
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'pgbench_lab_rounds_from_int8';
CREATE CAST (bigint AS pgbench_lab.rounds) WITH FUNCTION pgbench_lab_internal.rounds(bigint) AS IMPLICIT;

-- Failures by kind, sql/data/10_runs.sql and 15_scripts.sql (the table of
-- error texts, sql/data/11_run_errors.sql, is new: PGBL_NEW_DATA).
ALTER TABLE pgbench_lab.runs
    ADD COLUMN serialization_failures bigint,
    ADD COLUMN deadlock_failures bigint;
COMMENT ON COLUMN pgbench_lab.runs.serialization_failures IS
    'Transactions that failed for good on a serialization failure (SQLSTATE 40001), after their tries (pgbench --failures-detailed); NULL: a run from before 0.3';
COMMENT ON COLUMN pgbench_lab.runs.deadlock_failures IS
    'Transactions that failed for good on a deadlock (SQLSTATE 40P01), after their tries; failures minus both: other errors, each of which ended its client; NULL: a run from before 0.3';
ALTER TABLE pgbench_lab.run_scripts
    ADD COLUMN serialization_failures bigint,
    ADD COLUMN deadlock_failures bigint;
ALTER TABLE pgbench_lab.run_commands
    ADD COLUMN serialization_failures bigint,
    ADD COLUMN deadlock_failures bigint;
COMMENT ON COLUMN pgbench_lab.run_scripts.serialization_failures IS
    'The script''s transactions that failed for good on a serialization failure (40001); deadlock_failures: on a deadlock (40P01); NULL: a run from before 0.3';
COMMENT ON COLUMN pgbench_lab.run_commands.serialization_failures IS
    'Transactions that failed for good at this command on a serialization failure (40001); deadlock_failures: on a deadlock (40P01); NULL: a run from before 0.3';

-- <<< end of the data changes.

-- ---------------------------------------------------------------------------
-- 2. What the update replaces (sql/code/): 0.2's functions, procedures and
--    views, all dropped; sql/code/ then creates 0.3's.
-- ---------------------------------------------------------------------------
-- The list is 0.2's, read from its catalog: every routine and view that is
-- a member of the extension, except pgbench_lab_internal.may_read_run(),
-- which sql/data/ made (the row-level security policies use it).  A
-- dropped function's privileges and comment go with it; sql/code/ sets
-- them again.  The views go first: they use some of the functions.
DROP VIEW pgbench_lab.active_runs;
DROP VIEW pgbench_lab.storage_latest;
DROP FUNCTION pgbench_lab.autoprewarm_status();
DROP FUNCTION pgbench_lab.cache_snapshot(pg_catalog.text);
DROP FUNCTION pgbench_lab.cache_status(pg_catalog.regclass);
DROP FUNCTION pgbench_lab.cancel(bigint);
DROP PROCEDURE pgbench_lab.cold_vs_warm(pg_catalog.text,integer,interval,pg_catalog.regclass[],pg_catalog.text[],pg_catalog.jsonb,bigint,pg_catalog.text);
DROP FUNCTION pgbench_lab.cold_vs_warm_finding(bigint);
DROP FUNCTION pgbench_lab.cold_vs_warm_runs(bigint);
DROP FUNCTION pgbench_lab.compare(bigint[]);
DROP PROCEDURE pgbench_lab.compare_settings(pg_catalog.text,pg_catalog.jsonb[],integer,interval,integer,pg_catalog.text,pg_catalog.text[],pg_catalog.jsonb,double precision,interval,pg_catalog.jsonb,bigint,pg_catalog.text);
DROP PROCEDURE pgbench_lab.connection_cost(pg_catalog.text,integer,interval,pg_catalog.text,pg_catalog.text[],pg_catalog.jsonb,pg_catalog.text,bigint,bigint,bigint,double precision,double precision,double precision,double precision,double precision,double precision,double precision,pg_catalog.text);
DROP FUNCTION pgbench_lab.export(bigint[]);
DROP FUNCTION pgbench_lab.fsync_test(numeric);
DROP FUNCTION pgbench_lab.import(pg_catalog.jsonb);
DROP FUNCTION pgbench_lab.init(integer,integer,boolean,boolean,pg_catalog.text);
DROP FUNCTION pgbench_lab.init_sql(integer,integer,boolean,boolean);
DROP FUNCTION pgbench_lab.io_test(pg_catalog.text,numeric);
DROP PROCEDURE pgbench_lab.latency_curve(pg_catalog.text,integer,interval,double precision,double precision,double precision[],double precision[],pg_catalog.text,pg_catalog.text[],pg_catalog.jsonb,bigint,double precision,double precision,double precision,double precision,pg_catalog.text);
DROP FUNCTION pgbench_lab.make_cold(pg_catalog.regclass,boolean,boolean);
DROP FUNCTION pgbench_lab.memory_budget(pg_catalog.text,integer,pg_catalog.text,pg_catalog.text,pg_catalog.text,pg_catalog.text,integer,pg_catalog.text);
DROP FUNCTION pgbench_lab.plot(bigint[],pg_catalog.text);
DROP FUNCTION pgbench_lab.printable(pg_catalog.text);
DROP FUNCTION pgbench_lab.progress(bigint,interval);
DROP FUNCTION pgbench_lab.recommend(pg_catalog.text,numeric,integer,pg_catalog.text,pg_catalog.text,pg_catalog.text,pg_catalog.text,pg_catalog.text);
DROP FUNCTION pgbench_lab.recommend_sql(pg_catalog.text,numeric,integer,pg_catalog.text,pg_catalog.text,pg_catalog.text,pg_catalog.text,pg_catalog.text);
DROP FUNCTION pgbench_lab.report(bigint);
DROP FUNCTION pgbench_lab.restore_settings();
DROP PROCEDURE pgbench_lab.resume(bigint,pg_catalog.text);
DROP PROCEDURE pgbench_lab.run(pg_catalog.text,integer,interval,bigint,pg_catalog.text,pg_catalog.jsonb,integer,bigint,bigint,pg_catalog.text,bigint,double precision,double precision,double precision,bigint,pg_catalog.text,pg_catalog.text,pg_catalog.text,double precision,interval,pg_catalog.text,pg_catalog.text[],pg_catalog.jsonb,double precision,integer,pg_catalog.text[],integer[]);
DROP FUNCTION pgbench_lab.settings_ratios(bigint);
DROP FUNCTION pgbench_lab.start(pg_catalog.text,integer,interval,bigint,pg_catalog.text,pg_catalog.jsonb,integer,bigint,pg_catalog.text,pg_catalog.text,double precision,interval,pg_catalog.text,pg_catalog.text[],pg_catalog.jsonb,double precision,integer,pg_catalog.text[],integer[]);
DROP FUNCTION pgbench_lab.storage_class(numeric);
DROP PROCEDURE pgbench_lab.sweep(pg_catalog.text,integer[],interval,pg_catalog.text,pg_catalog.jsonb,double precision,pg_catalog.text[],pg_catalog.jsonb,pg_catalog.text,integer,pg_catalog.text[],bigint,integer,double precision,integer,pg_catalog.text);
DROP FUNCTION pgbench_lab.sweep_summary(bigint);
DROP FUNCTION pgbench_lab.sweep_verdict(bigint,double precision);
DROP FUNCTION pgbench_lab.system_info();
DROP PROCEDURE pgbench_lab.validate_recommendation(pg_catalog.text,integer,interval,integer,pg_catalog.text,bigint,pg_catalog.text);
DROP PROCEDURE pgbench_lab.wait(bigint,pg_catalog.text,bigint,double precision,double precision,double precision,bigint,pg_catalog.text);
DROP FUNCTION pgbench_lab.warm(pg_catalog.regclass,pg_catalog.text,boolean);
DROP FUNCTION pgbench_lab_internal.auto_conf(pg_catalog.text[]);
DROP FUNCTION pgbench_lab_internal.chart_rows(double precision[],double precision,integer);
DROP FUNCTION pgbench_lab_internal.check_experiment(bigint,pg_catalog.text[],pg_catalog.text);
DROP FUNCTION pgbench_lab_internal.check_flat(integer,pg_catalog.text,pg_catalog.text);
DROP FUNCTION pgbench_lab_internal.check_ids(bigint[],boolean);
DROP FUNCTION pgbench_lab_internal.check_knee_threshold(double precision);
DROP FUNCTION pgbench_lab_internal.clients_text(integer);
DROP FUNCTION pgbench_lab_internal.cold_vs_warm_fit(pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.cold_vs_warm_fit_words(bigint,bigint,bigint);
DROP FUNCTION pgbench_lab_internal.cold_vs_warm_plan(pg_catalog.text,integer,interval,pg_catalog.regclass[],pg_catalog.text[],pg_catalog.jsonb,pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.cold_vs_warm_prepare(bigint,pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.cold_vs_warm_relations(pg_catalog.regclass[],pg_catalog.regclass);
DROP FUNCTION pgbench_lab_internal.cold_vs_warm_result(bigint);
DROP FUNCTION pgbench_lab_internal.cold_vs_warm_state(integer);
DROP FUNCTION pgbench_lab_internal.cold_vs_warm_warm_plan(pg_catalog.regclass[]);
DROP FUNCTION pgbench_lab_internal.cold_vs_warm_warning(bigint);
DROP FUNCTION pgbench_lab_internal.compare_params(pg_catalog.text,pg_catalog.jsonb[],integer,interval,integer);
DROP FUNCTION pgbench_lab_internal.conflicts_text(bigint,pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.connection_cost_plan(pg_catalog.text,integer,interval,pg_catalog.text,pg_catalog.text,pg_catalog.text[],pg_catalog.jsonb,pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.connection_cost_result(bigint);
DROP FUNCTION pgbench_lab_internal.doc_check(pg_catalog.jsonb,pg_catalog.jsonb,pg_catalog.text);
DROP FUNCTION pgbench_lab_internal.doc_check_each(pg_catalog.jsonb,pg_catalog.jsonb,pg_catalog.text,pg_catalog.text[]);
DROP FUNCTION pgbench_lab_internal.doc_check_params(pg_catalog.jsonb,pg_catalog.text);
DROP FUNCTION pgbench_lab_internal.doc_fields(pg_catalog.jsonb,pg_catalog.text);
DROP FUNCTION pgbench_lab_internal.doc_first_bad(pg_catalog.jsonb,pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.doc_invalid(pg_catalog.text);
DROP FUNCTION pgbench_lab_internal.doc_spec(pg_catalog.text);
DROP FUNCTION pgbench_lab_internal.doc_validate(pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.experiment_add(bigint,bigint,integer,integer);
DROP FUNCTION pgbench_lab_internal.experiment_add_as(pg_catalog.regrole,pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.experiment_begin(pg_catalog.text,pg_catalog.text,pg_catalog.text,pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.experiment_begin_as(pg_catalog.regrole,pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.experiment_end(bigint);
DROP FUNCTION pgbench_lab_internal.experiment_end_as(pg_catalog.regrole,pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.experiment_stopped(pgbench_lab.experiments);
DROP FUNCTION pgbench_lab_internal.experiment_workload(pg_catalog.text,pg_catalog.text[]);
DROP FUNCTION pgbench_lab_internal.export_run(pgbench_lab.runs);
DROP FUNCTION pgbench_lab_internal.fmt(double precision,integer);
DROP FUNCTION pgbench_lab_internal.hbar(double precision,double precision,integer);
DROP FUNCTION pgbench_lab_internal.import_as(pg_catalog.regrole,pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.io_knee_reason(pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.json_int(pg_catalog.jsonb,numeric,numeric);
DROP FUNCTION pgbench_lab_internal.json_wrap(pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.lag_trend(numeric[]);
DROP FUNCTION pgbench_lab_internal.latency_curve_check(double precision,double precision,double precision[],double precision[]);
DROP FUNCTION pgbench_lab_internal.latency_curve_plan(pg_catalog.text,integer,interval,double precision,double precision,double precision[],double precision[],pg_catalog.text,pg_catalog.text[],pg_catalog.jsonb,pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.latency_curve_result(bigint);
DROP FUNCTION pgbench_lab_internal.latency_curve_steps(bigint);
DROP FUNCTION pgbench_lab_internal.latency_curve_why(pg_catalog.text,boolean,double precision,pg_catalog.text);
DROP FUNCTION pgbench_lab_internal.log2_from(integer,integer);
DROP FUNCTION pgbench_lab_internal.ms_text(interval);
DROP FUNCTION pgbench_lab_internal.os_page_size();
DROP FUNCTION pgbench_lab_internal.path_text(pg_catalog.text,pg_catalog.text);
DROP FUNCTION pgbench_lab_internal.pct_change(double precision,double precision);
DROP FUNCTION pgbench_lab_internal.plot_latency_curve(bigint);
DROP FUNCTION pgbench_lab_internal.plot_runs(bigint[],pg_catalog.text);
DROP FUNCTION pgbench_lab_internal.plot_sweep_data(bigint[]);
DROP FUNCTION pgbench_lab_internal.plot_sweep_panels(pg_catalog.jsonb,numeric);
DROP FUNCTION pgbench_lab_internal.plot_sweep_series(pg_catalog.jsonb,integer);
DROP FUNCTION pgbench_lab_internal.plot_sweeps(bigint[]);
DROP FUNCTION pgbench_lab_internal.rate_notes(pgbench_lab.runs);
DROP FUNCTION pgbench_lab_internal.rate_text(double precision);
DROP FUNCTION pgbench_lab_internal.ratio(double precision,double precision);
DROP FUNCTION pgbench_lab_internal.reads_as(pg_catalog.text,pg_catalog.text);
DROP FUNCTION pgbench_lab_internal.record(pg_catalog.text,pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.record_as(pg_catalog.regrole,pg_catalog.text,pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.replication_lines(bigint);
DROP FUNCTION pgbench_lab_internal.report_cold_vs_warm(bigint);
DROP FUNCTION pgbench_lab_internal.report_cold_vs_warm_plan(bigint);
DROP FUNCTION pgbench_lab_internal.report_connection_cost(bigint);
DROP FUNCTION pgbench_lab_internal.report_experiment(bigint);
DROP FUNCTION pgbench_lab_internal.report_knee_rule(bigint);
DROP FUNCTION pgbench_lab_internal.report_latency_curve(bigint);
DROP FUNCTION pgbench_lab_internal.report_run(bigint);
DROP FUNCTION pgbench_lab_internal.report_settings(bigint);
DROP FUNCTION pgbench_lab_internal.report_sweep(bigint);
DROP FUNCTION pgbench_lab_internal.report_validate(bigint);
DROP FUNCTION pgbench_lab_internal.restart_comparable(pg_catalog.text);
DROP FUNCTION pgbench_lab_internal.run_charts(bigint);
DROP FUNCTION pgbench_lab_internal.run_cpu_busy(bigint);
DROP FUNCTION pgbench_lab_internal.run_live(bigint);
DROP FUNCTION pgbench_lab_internal.run_notes(pgbench_lab.runs);
DROP FUNCTION pgbench_lab_internal.running_experiment_of(pg_catalog.regrole,pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.script_check(pg_catalog.text,pg_catalog.text);
DROP FUNCTION pgbench_lab_internal.script_eval(pg_catalog.text,pg_catalog.jsonb,bigint);
DROP FUNCTION pgbench_lab_internal.script_lines(bigint);
DROP FUNCTION pgbench_lab_internal.script_parse(pg_catalog.text,pg_catalog.text);
DROP FUNCTION pgbench_lab_internal.seconds_text(interval);
DROP FUNCTION pgbench_lab_internal.server_name();
DROP FUNCTION pgbench_lab_internal.settings_finding(bigint);
DROP FUNCTION pgbench_lab_internal.settings_part(pg_catalog.jsonb,boolean);
DROP FUNCTION pgbench_lab_internal.settings_plan(pg_catalog.text,pg_catalog.jsonb[],integer,interval,integer,pg_catalog.text,pg_catalog.text[],pg_catalog.jsonb,double precision,interval,pg_catalog.jsonb,pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.settings_prepare(bigint,pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.settings_result(bigint);
DROP FUNCTION pgbench_lab_internal.settings_text(pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.share_text(double precision,double precision);
DROP FUNCTION pgbench_lab_internal.spark(double precision[],double precision,double precision);
DROP FUNCTION pgbench_lab_internal.spi_floor(integer,double precision,bigint);
DROP FUNCTION pgbench_lab_internal.step_workload(pg_catalog.text,pg_catalog.text[],pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.svg_axis(double precision);
DROP FUNCTION pgbench_lab_internal.svg_chart(pg_catalog.text,pg_catalog.text,pg_catalog.text,pg_catalog.text,pg_catalog.jsonb,pg_catalog.text[]);
DROP FUNCTION pgbench_lab_internal.svg_curve(pg_catalog.jsonb,double precision[],double precision[],pg_catalog.text,integer);
DROP FUNCTION pgbench_lab_internal.svg_escape(pg_catalog.text);
DROP FUNCTION pgbench_lab_internal.svg_grid(double precision[],double precision[],double precision[],integer,integer);
DROP FUNCTION pgbench_lab_internal.svg_marks(pg_catalog.jsonb,double precision[],double precision[],pg_catalog.text,integer);
DROP FUNCTION pgbench_lab_internal.svg_max(pg_catalog.jsonb,pg_catalog.text,pg_catalog.text);
DROP FUNCTION pgbench_lab_internal.svg_num(double precision,integer);
DROP FUNCTION pgbench_lab_internal.svg_open(pg_catalog.text,integer);
DROP FUNCTION pgbench_lab_internal.svg_panel(pg_catalog.text,pg_catalog.text,pg_catalog.text,pg_catalog.jsonb,pg_catalog.text[],integer[]);
DROP FUNCTION pgbench_lab_internal.svg_panel_height(pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.svg_x(double precision,double precision[],integer);
DROP FUNCTION pgbench_lab_internal.svg_y(double precision,double precision[],integer);
DROP FUNCTION pgbench_lab_internal.sweep_counts(pg_catalog.text,integer[]);
DROP FUNCTION pgbench_lab_internal.sweep_cpu(bigint,bigint);
DROP FUNCTION pgbench_lab_internal.sweep_lag(bigint);
DROP FUNCTION pgbench_lab_internal.sweep_lag_steps(bigint);
DROP FUNCTION pgbench_lab_internal.sweep_params(pg_catalog.text,integer[],interval,pg_catalog.jsonb,double precision);
DROP FUNCTION pgbench_lab_internal.sweep_plan(pg_catalog.text,integer[],interval,pg_catalog.text,pg_catalog.jsonb,double precision,pg_catalog.text[],pg_catalog.jsonb,pg_catalog.text,integer,pg_catalog.text[],pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.sweep_result(bigint);
DROP FUNCTION pgbench_lab_internal.sweep_rule(bigint,double precision);
DROP FUNCTION pgbench_lab_internal.sweep_steps(bigint);
DROP FUNCTION pgbench_lab_internal.sweep_threshold(pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.system_text(pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.target_lines(bigint);
DROP FUNCTION pgbench_lab_internal.telemetry_lines(bigint);
DROP FUNCTION pgbench_lab_internal.telemetry_notes(bigint);
DROP FUNCTION pgbench_lab_internal.threshold_text(double precision);
DROP FUNCTION pgbench_lab_internal.threshold_usable(pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.to_float8(numeric);
DROP FUNCTION pgbench_lab_internal.undrawn_runs(bigint);
DROP FUNCTION pgbench_lab_internal.validate_finding(bigint);
DROP FUNCTION pgbench_lab_internal.validate_groups(bigint);
DROP FUNCTION pgbench_lab_internal.validate_plan(pg_catalog.text,integer,interval,integer,pg_catalog.text,pg_catalog.jsonb);
DROP FUNCTION pgbench_lab_internal.validate_result(bigint);
DROP FUNCTION pgbench_lab_internal.validate_two_phase(bigint);
DROP FUNCTION pgbench_lab_internal.wait_profile(bigint);
DROP FUNCTION pgbench_lab_internal.waits_text(bigint,integer);
DROP FUNCTION pgbench_lab_internal.warm_blocks(pg_catalog.regclass[],bigint[]);
DROP FUNCTION pgbench_lab_internal.warm_budget();
DROP FUNCTION pgbench_lab_internal.warm_needed(bigint);
DROP FUNCTION pgbench_lab_internal.warm_plan(pg_catalog.regclass[],bigint);
DROP FUNCTION pgbench_lab_internal.without_nulls(pg_catalog.jsonb,pg_catalog.text[]);
DROP FUNCTION pgbench_lab_internal.worker_slots_free(integer);
DROP FUNCTION pgbench_lab_internal.wrap(pg_catalog.text,pg_catalog.text,integer);

-- ---------------------------------------------------------------------------
-- 3. sql/code/ follows: 0.3's functions, procedures and views.
-- ---------------------------------------------------------------------------
