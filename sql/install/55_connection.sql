
-- ---------------------------------------------------------------------------
-- the client path: runs whose clients talk to a server over libpq
-- (start()/run() via => 'libpq' | 'libpq-connect', target => conninfo), and
-- connection_cost(), the same workload in-server, over persistent
-- connections and with a new connection per transaction.
-- ---------------------------------------------------------------------------

ALTER TABLE pgbench_lab.runs
    ADD CONSTRAINT runs_via_check
        CHECK (via OPERATOR(pg_catalog.=) ANY (ARRAY['spi', 'libpq', 'libpq-connect'])),
    ADD COLUMN target_display text,
    ADD COLUMN connections bigint,
    ADD COLUMN connection_avg_ms double precision,
    ADD COLUMN tps_without_connections double precision;
COMMENT ON COLUMN pgbench_lab.runs.via IS
    'How clients sent the workload: spi (in-server), libpq (one connection per client), libpq-connect (one per transaction)';
COMMENT ON COLUMN pgbench_lab.runs.target_display IS
    'The server a libpq run connected to, as a conninfo without its password';
COMMENT ON COLUMN pgbench_lab.runs.connections IS
    'Connections the clients made: the initial ones and those made during the run';
COMMENT ON COLUMN pgbench_lab.runs.connection_avg_ms IS
    'Average time to connect (and authenticate), over all connections';
COMMENT ON COLUMN pgbench_lab.runs.tps_without_connections IS
    'Committed transactions per second of the time not spent connecting (tps counts all of it)';

-- A C procedure with no SET clause: it commits between its runs (each is a
-- CALL of run()).  See src/connection_cost.c.
CREATE PROCEDURE pgbench_lab.connection_cost(
    workload text DEFAULT 'select-only',
    clients integer DEFAULT 4,
    duration interval DEFAULT '10 s',
    target text DEFAULT NULL,
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
AS 'MODULE_PATHNAME', 'pgbench_lab_connection_cost';
COMMENT ON PROCEDURE pgbench_lab.connection_cost(text, integer, interval, text, text, bigint, bigint, bigint, double precision, double precision, double precision, double precision, double precision, double precision, double precision, text) IS
    'The same workload in-server, over persistent libpq connections and with a new connection per transaction; TPS and ratios';
REVOKE ALL ON PROCEDURE pgbench_lab.connection_cost(text, integer, interval, text, text, bigint, bigint, bigint, double precision, double precision, double precision, double precision, double precision, double precision, double precision, text) FROM PUBLIC;
