/*-------------------------------------------------------------------------
 *
 * run_options.h
 *		The run options: the one list of what run(), start() and every
 *		experiment kind take, and of what a step's "run" object may hold.
 *
 * Each RUN_OPTION line is one option, in start()'s order (new options go
 * at the end, and start() and run() stay callable by position):
 *
 *	RUN_OPTION(ENUM, name, type oid, "SQL type", default, "since", "doc")
 *
 * ENUM names its RunOpt (RUN_OPT_<ENUM>); name is the argument's name and
 * a step's key; default is its value as text for the type's input
 * function, or NULL.  The C side (run_spec.h, run_spec.c) expands the
 * list into the RunOpt enum and the RunOptions[] table; the build
 * (sql/run_options.awk) reads these lines to write the options into
 * the SQL declarations, so every line keeps this exact shape: one option
 * a line, no comma inside the first six fields.
 *
 * The first RUN_OPT_HEAD options come before run()'s INOUT columns, the
 * rest (the tail) after them.
 *
 *-------------------------------------------------------------------------
 */
RUN_OPTION(WORKLOAD, workload, TEXTOID, "text", NULL, "0.1", "built-in workload: tpcb-like, simple-update or select-only (pgbench -b), or tpcc (the TPC-C kit saved by init_tpcc, in its mix)")
RUN_OPTION(CLIENTS, clients, INT4OID, "integer", "1", "0.1", "concurrent clients (pgbench -c)")
RUN_OPTION(DURATION, duration, INTERVALOID, "interval", "10 s", "0.1", "length of a timed run (pgbench -T)")
RUN_OPTION(TRANSACTIONS, transactions, INT8OID, "bigint", NULL, "0.1", "transactions per client instead of a duration (pgbench -t)")
RUN_OPTION(LABEL, label, TEXTOID, "text", NULL, "0.1", "a label recorded with the run")
RUN_OPTION(SETTINGS, settings, JSONBOID, "jsonb", "{}", "0.1", "session settings of the clients, as a JSON object of names and values")
RUN_OPTION(MAX_TRIES, max_tries, INT4OID, "integer", "1", "0.1", "tries of a transaction failing on a serialization or deadlock error (pgbench --max-tries)")
RUN_OPTION(RANDOM_SEED, random_seed, INT8OID, "bigint", NULL, "0.1", "seed of the random draws (pgbench --random-seed)")
RUN_OPTION(VIA, via, TEXTOID, "text", NULL, "0.1", "how clients reach the server: spi (in-server), libpq or libpq-connect (pgbench -C); NULL: spi, or libpq with a target")
RUN_OPTION(TARGET, target, TEXTOID, "text", NULL, "0.1", "libpq: the conninfo of the server to run against; NULL: this server")
RUN_OPTION(RATE, rate, FLOAT8OID, "double precision", NULL, "0.2", "transactions per second of the whole run (pgbench -R)")
RUN_OPTION(LATENCY_LIMIT, latency_limit, INTERVALOID, "interval", NULL, "0.2", "with a rate: transactions later than this are skipped or counted late (pgbench -L)")
RUN_OPTION(SCRIPT, script, TEXTOID, "text", NULL, "0.2", "a pgbench script's text to run instead of a workload (pgbench -f)")
RUN_OPTION(SCRIPTS, scripts, TEXTARRAYOID, "text[]", NULL, "0.2", "saved or built-in scripts to mix, as name@weight (pgbench -f/-b name@weight)")
RUN_OPTION(VARIABLES, variables, JSONBOID, "jsonb", NULL, "0.2", "the scripts' variables, as a JSON object (pgbench -D)")
RUN_OPTION(SAMPLE_RATE, sample_rate, FLOAT8OID, "double precision", NULL, "0.2", "share of transactions kept in run_samples (pgbench --sampling-rate)")
RUN_OPTION(THREADS, threads, INT4OID, "integer", NULL, "0.2", "libpq: workers driving the clients' connections (pgbench -j)")
RUN_OPTION(TARGETS, targets, TEXTARRAYOID, "text[]", NULL, "0.2", "libpq: the conninfos of several servers, the clients spread over them")
RUN_OPTION(TARGET_CLIENTS, target_clients, INT4ARRAYOID, "integer[]", NULL, "0.2", "with targets: how many clients each target takes")
RUN_OPTION(QUERY_MODE, query_mode, TEXTOID, "text", NULL, "0.3", "how scripts' statements are sent: simple, extended or prepared (pgbench -M); NULL: prepared")
RUN_OPTION(EXIT_ON_ABORT, exit_on_abort, BOOLOID, "boolean", "false", "0.3", "stop the whole run as soon as one client aborts on an error (pgbench --exit-on-abort)")
