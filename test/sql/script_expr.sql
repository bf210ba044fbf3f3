-- script_expr: pgbench's \set expressions evaluated in the server by
-- pgbench_lab_internal.script_eval(); test/t/test_script_expr.py holds it to
-- real pgbench.  Here: values pgbench's own tests know, and each error with
-- its SQLSTATE, message (parse errors with pgbench's column) and hint.
CREATE FUNCTION pg_temp.try(expr text, vars jsonb DEFAULT '{}') RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    msg text;
    hint text;
BEGIN
    RETURN coalesce(pgbench_lab_internal.script_eval(expr, vars, 5432), '(null)');
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
    RETURN SQLSTATE || ': ' || msg || ' (hint: ' || hint || ')';
END $$;

-- values: precedence, types, NULL, CASE, and what pgbench prints
SELECT e, pg_temp.try(e) FROM unnest(ARRAY[
    '1 + 2 * 3', '-7 / 2', '-7 % 3', 'mod(7, -1)', '7.0 / 2', '1.0 / 0', 'sqrt(-1)',
    '-9223372036854775808', '1 << 63', '~5 & 3', 'NOT 1 < 2 OR true', '1 = 1.0',
    'NULL + 1', 'NULL IS NULL', 'true AND NULL', 'false AND 1 / 0',
    'CASE WHEN 0 THEN 1 WHEN 0.5 THEN 2 ELSE 3 END', 'CASE WHEN false THEN 1 END',
    'greatest(1, 2.5, -3)', 'least(3, 1, 2)', 'int(2.5) + int(3.5)', 'pow(2, 0.5)', 'pi()',
    'abs(-9223372036854775808)', '5.5 % 2']) AS e;

-- hashes and permutations: pgbench's own expected values
SELECT pg_temp.try('hash(10, 5432)') AS murmur2, pg_temp.try('hash_fnv1a(10, 5432)') AS fnv1a,
       pg_temp.try('hash(10) = hash(10, :default_seed)') AS default_seed;
SELECT pg_temp.try(format('permute(%s, 9223372036854775797, 5432)', 9223372036854775797 - k)) AS permute
  FROM generate_series(1, 7) AS k;
SELECT pg_temp.try('permute(0, 2, 5431) = 0 and permute(1, 2, 5431) = 1 and '
                   'permute(0, 2, 5433) = 1 and permute(1, 2, 5433) = 0') AS permute_small;

-- seed 5432: the first draw of pgbench's only client, and its automatic variables
SELECT pg_temp.try('random(10, 19)') AS random, pg_temp.try(':random_seed') AS random_seed,
       pg_temp.try(':client_id') AS client_id, pg_temp.try(':scale') AS scale;

-- variables: pgbench's -D, read when referenced
SELECT e, pg_temp.try(e, '{"i": "+3", "f": "of", "t": "t", "n": "null", "d": "-54.21E-2", "x": 5, "b": true}')
  FROM unnest(ARRAY[':i * 2', ':f', ':t AND :b', ':n IS NULL', ':d', ':x + 0.5']) AS e;

-- parse errors: the column is where pgbench's caret points
SELECT e, pg_temp.try(e) FROM unnest(ARRAY[
    '', '1 +', '1 2', '(1', '1 < 2 < 3', '1 IS 2', 'CASE WHEN true THEN 1', '9223372036854775808',
    '99999999999999999999', '1e400', '1 @ 2', 'foo(1)', 'abs(1, 2)', 'least()', 'pi(1)',
    'hash(1, 2, 3)', 'permute(1)', 'least(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16)',
    'foo(1) @ $', E'1\n+ 2']) AS e;

-- run-time errors
SELECT e, pg_temp.try(e, '{"bad": "bla", "minint": "-9223372036854775808"}') FROM unnest(ARRAY[
    '9223372036854775807 + 1', '-9223372036854775808 - 1', '4611686018427387904 * 2',
    '-(-9223372036854775808)', ':minint / -1', '1 / 0', '1 % 0', 'mod(5, 0)', 'int(1e19)',
    ':nosuch', ':bad + 1', 'true = true', 'NOT 0', 'ln(true)', 'random(5, 3)',
    'random(:minint, 9223372036854775807)', 'random_gaussian(0, 10, 1.0)',
    'random_exponential(0, 10, 0)', 'random_zipfian(0, 10, 1)', 'random_zipfian(0, 10, 1001)',
    'random_zipfian(0, 10, sqrt(-1))', 'permute(1, 0)', 'abs(true)']) AS e;

-- limits and arguments
SELECT pg_temp.try(repeat('(', 1001) || '1' || repeat(')', 1001)) AS nested;
SELECT pg_temp.try(repeat('1 + ', 1000) || '1') AS chain;
SELECT pg_temp.try(repeat(' ', 65536) || '1') AS long;
SELECT pg_temp.try('1', '[1]') AS not_an_object;
SELECT pg_temp.try('1', '{"1x": 1}') AS bad_name;
SELECT pg_temp.try('1', '{"x": [1]}') AS bad_value;
SELECT pg_temp.try(NULL) AS null_expr;
