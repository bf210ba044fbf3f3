
-- ---------------------------------------------------------------------------
-- connection_cost(): the same workload in-server, over persistent
-- connections and with a new connection per transaction.
-- ---------------------------------------------------------------------------

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
