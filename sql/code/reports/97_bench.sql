
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
