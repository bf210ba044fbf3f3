-- script_parse: pgbench scripts parsed in the server by
-- pgbench_lab_internal.script_parse() and script_check();
-- test/t/test_script_parse.py holds them to real pgbench.  Here: what a
-- script becomes, and each kind of error with its SQLSTATE, message (the
-- script's name, line and column), detail and hint.
CREATE FUNCTION pg_temp.try(script text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    msg text;
    detail text;
    hint text;
BEGIN
    PERFORM pgbench_lab_internal.script_parse(script, 'try.sql');
    RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
    RETURN SQLSTATE || ': ' || msg || E'\n  detail: ' || detail || E'\n  hint: ' || hint;
END $$;

-- pgbench's tpcb-like, as pgbench --show-script prints it
SELECT command, line, kind, text, variables, detail
  FROM pgbench_lab_internal.script_parse($$-- tpcb-like: <builtin: TPC-B (sort of)>
\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
$$, 'tpcb-like');

-- every kind of command; strings, comments and casts are no variables
SELECT command, line, kind, text, variables, detail
  FROM pgbench_lab_internal.script_parse($$\set n 10
SELECT 'a:b', :'n', :n::int, $x$ :c; $x$ -- :d
  AS "e:f" \gset p_
SELECT 1 AS one \; SELECT :p_e AS two
\aset
\if :n > 5
\sleep :n ms
\elif :n < 0
\sleep 10ms
\else
BEGIN ISOLATION LEVEL SERIALIZABLE;
SAVEPOINT s;
ROLLBACK TO s;
COMMIT AND CHAIN;
ROLLBACK;
\endif
\startpipeline
SELECT 2;
\syncpipeline
\endpipeline
$$, 'all.sql');
SELECT pgbench_lab_internal.script_check($$\set n 10
SELECT 'a:b', :n, "c:d" -- :e
;$$);

-- what pgbench refuses when it reads a script: its message, line and column
SELECT pg_temp.try(E'SELECT 1;\n\\foo bar');
SELECT pg_temp.try(E'\\set x 1 +\nSELECT 1;');
SELECT pg_temp.try(E'\\set x 1 @ 2');
SELECT pg_temp.try(E'\\set x foo(1)');
SELECT pg_temp.try(E'\\sleep 10 min');
SELECT pg_temp.try(E'\\sleep 1.5');
SELECT pg_temp.try(E'\\sleep 1 ms 2');
SELECT pg_temp.try(E'\\set x 1\n\\gset');
SELECT pg_temp.try(E'SELECT 1 \\gset a b');
SELECT pg_temp.try(E'\\else x');
SELECT pg_temp.try(E'\\if 1\nSELECT 1;');
SELECT pg_temp.try(E'\\if 1\n\\else\n\\elif 2\n\\endif');
SELECT pg_temp.try(E'-- only a comment\n');
-- what pgbench refuses only when it runs it
SELECT pg_temp.try(E'SELECT 1;\nSELECT 1,\n  2 FROM WHERE;');
SELECT pg_temp.try(E'SELECT * FROM :t;');
SELECT pg_temp.try(E'SELECT :"t";');
SELECT pg_temp.try(E'SELECT $1;');
SELECT pg_temp.try(E'BEGIN;\nSELECT 1;');
SELECT pg_temp.try(E'\\startpipeline\nSELECT 1 \\gset\n\\endpipeline');
SELECT pg_temp.try(E'\\set 1x 1');
-- refused by design: no shell in the server; transaction control alone
SELECT pg_temp.try(E'\\setshell x echo 1');
SELECT pg_temp.try(E'BEGIN \\; SELECT 1;\nCOMMIT;');
-- limits
SELECT pg_temp.try(repeat(E'\\if 1\n', 65) || repeat(E'\\endif\n', 65));
SELECT pg_temp.try(repeat('-', 1048577));
SELECT * FROM pgbench_lab_internal.script_parse(NULL);
