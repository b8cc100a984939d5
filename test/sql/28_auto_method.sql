-- method => 'auto', the default of start() and check(): the leaf method when
-- every local leaf is empty and the role may truncate them, else the chunk
-- method, never a refusal of its own; jobs.method keeps the method taken and
-- jobs.method_reason why; check() says which and why.  Each start() runs in
-- a transaction rolled back: no worker starts.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
DROP ROLE IF EXISTS regress_petagen_auto_op;
RESET client_min_messages;
CREATE SCHEMA auto21;
SET search_path = auto21, public;

CREATE ROLE regress_petagen_auto_op LOGIN IN ROLE petagen_operator;
GRANT USAGE ON SCHEMA auto21 TO regress_petagen_auto_op;
-- empty_t: 4 empty leaves; one_row: one leaf holds a row (not a load key);
-- plain_t: not partitioned; full_t: holds the load's keys.
SELECT petagen.create_table('empty_t', 4);
SELECT petagen.create_table('one_row', 2);
INSERT INTO one_row VALUES ('x', 'y');
CREATE TABLE plain_t (ycsb_key varchar(64) PRIMARY KEY, field0 varchar(100));
SELECT petagen.create_table('full_t', 2);
SELECT rows_written FROM petagen.load('full_t', 0, 1000);
-- the operator may write empty_t and one_row, truncate only empty_t_p0, and
-- truncate every leaf of one_row but not read it
GRANT INSERT ON empty_t, one_row TO regress_petagen_auto_op;
GRANT SELECT ON empty_t TO regress_petagen_auto_op;
GRANT TRUNCATE ON empty_t_p0 TO regress_petagen_auto_op;
GRANT TRUNCATE ON one_row_p0, one_row_p1 TO regress_petagen_auto_op;

-- The method start() takes and why, as the catalog keeps them.
CREATE FUNCTION started(call text, OUT method text, OUT method_reason text)
LANGUAGE plpgsql AS $$
DECLARE
    id bigint;
BEGIN
    EXECUTE 'SELECT ' || call INTO id;
    SELECT j.method, j.method_reason INTO method, method_reason
    FROM petagen.jobs j WHERE j.job = id;
END
$$;
GRANT EXECUTE ON FUNCTION started(text) TO regress_petagen_auto_op;
-- The method finding of check() with these arguments, in full.
CREATE FUNCTION method_finding(args text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    f text;
BEGIN
    EXECUTE 'SELECT detail FROM petagen.check_details(' || args || ') WHERE finding LIKE ''method:%'''
        INTO STRICT f;
    RETURN f;
END
$$;
GRANT EXECUTE ON FUNCTION method_finding(text) TO regress_petagen_auto_op;

SELECT plan(24);
SET client_min_messages = warning;

-- every local leaf empty, the role may truncate them: leaf
BEGIN;
SELECT is(method || ': ' || method_reason,
    format('leaf: every local leaf is empty and role "%s" may truncate them', current_user),
    'auto takes the leaf method for an empty partitioned table')
FROM started('petagen.start(100000, 1, ''empty_t'')');
ROLLBACK;
SELECT is(method_finding('100000, 1, ''empty_t'''),
    format('method: auto takes the leaf method: every local leaf is empty and role "%s" may truncate them', current_user::text),
    'check() says auto takes the leaf method, and why');
SELECT is(count(*), 1::bigint, 'check() with auto taking leaf lists the leaf method''s findings')
FROM petagen.check(100000, 1, 'empty_t') WHERE object = 'pg_petagen';
SELECT is(hint, NULL, 'no hint when auto takes the leaf method')
FROM petagen.check_details(100000, 1, 'empty_t') WHERE finding LIKE 'method:%';

-- a leaf with a row: chunk, that leaf named
BEGIN;
SELECT results_eq($$SELECT * FROM started('petagen.start(100000, 1, ''one_row'')')$$,
    $$VALUES ('chunk', 'leaf "one_row_p1" is not empty')$$,
    'auto takes the chunk method when a leaf holds a row, and names the leaf');
ROLLBACK;
SELECT results_eq($$SELECT severity, object, detail, hint FROM petagen.check_details(100000, 1, 'one_row')
    WHERE finding LIKE 'method:%'$$,
    $$VALUES ('info', 'one_row', 'method: auto takes the chunk method: leaf "one_row_p1" is not empty',
        'petagen.check(..., method => ''leaf'') lists what stops the leaf method, which loads faster.')$$,
    'check() says auto takes the chunk method, and why');
SELECT is(count(*), 0::bigint, 'check() with auto taking chunk reports no leaf method error')
FROM petagen.check(100000, 1, 'one_row') WHERE severity = 'error';

-- a role without TRUNCATE on a leaf: chunk, that leaf named
SET ROLE regress_petagen_auto_op;
BEGIN;
SELECT results_eq($$SELECT * FROM started('petagen.start(100000, 1, ''empty_t'')')$$,
    $$VALUES ('chunk', 'role "regress_petagen_auto_op" may not truncate leaf "empty_t_p1"')$$,
    'auto takes the chunk method for a role that may not truncate a leaf');
ROLLBACK;
-- a role that may not read the table is not told which leaf holds rows
BEGIN;
SELECT results_eq($$SELECT * FROM started('petagen.start(100000, 1, ''one_row'')')$$,
    $$VALUES ('chunk', 'a local leaf holds rows')$$,
    'auto names no leaf with rows to a role without SELECT');
ROLLBACK;
RESET ROLE;

-- an unpartitioned table: chunk (one leaf would be one worker, one transaction)
BEGIN;
SELECT results_eq($$SELECT * FROM started('petagen.start(100000, 2, ''plain_t'')')$$,
    $$VALUES ('chunk', '"plain_t" is not partitioned: the leaf method would write it with one worker in one transaction')$$,
    'auto takes the chunk method for an unpartitioned table');
ROLLBACK;

-- options only the chunk method takes: chunk, the option named
BEGIN;
SELECT results_eq($$SELECT * FROM started('petagen.start(100000, 1, ''empty_t'', chunk_rows => 5000)')$$,
    $$VALUES ('chunk', 'chunk_rows 5000 is below the leaf method''s minimum of 10000')$$,
    'auto takes the chunk method for a chunk_rows below the leaf minimum');
ROLLBACK;
BEGIN;
SELECT is(method || ': ' || method_reason,
    format('leaf: every local leaf is empty and role "%s" may truncate them', current_user),
    'auto takes the leaf method for a chunk_rows at the leaf minimum')
FROM started('petagen.start(100000, 1, ''empty_t'', chunk_rows => 10000)');
ROLLBACK;
BEGIN;
SELECT results_eq($$SELECT * FROM started('petagen.start(100000, 1, ''empty_t'', keys => ''ycsb'')')$$,
    $$VALUES ('chunk', 'keys => ''ycsb'' has duplicates, which only the chunk method loads')$$,
    'auto takes the chunk method for hashed YCSB keys');
ROLLBACK;
BEGIN;
SELECT results_eq($$SELECT * FROM started('petagen.start(100000, 1, ''empty_t'', indexes => ''after'')')$$,
    $$VALUES ('chunk', 'indexes => ''after'' is the chunk method''s')$$,
    'auto takes the chunk method for indexes => ''after''');
ROLLBACK;

-- routing files that do not fit in the data directory: chunk, whose own
-- space finding then refuses the load
SELECT matches(method_finding('100000, 1, ''empty_t'', disk_reserve => ''1000PB'''),
    '^method: auto takes the chunk method: the leaf method''s routing files, about \d+ kB in 4 files, do not fit in the data directory \(0 bytes free above the disk reserve(, \d+ inodes)?\)$',
    'auto takes the chunk method when the routing files do not fit');
SELECT throws_like($$SELECT petagen.start(100000, 1, 'empty_t', disk_reserve => '1000PB')$$,
    'preflight check refuses the load of "empty_t": space: %',
    'the chunk method auto took then refuses for space, as method => ''chunk'' does');

-- an explicit method is taken as asked, and said so
BEGIN;
SELECT results_eq($$SELECT * FROM started('petagen.start(100000, 1, ''empty_t'', method => ''chunk'')')$$,
    $$VALUES ('chunk', 'method => ''chunk'' was asked')$$,
    'method => ''chunk'' into an empty table stays chunk');
ROLLBACK;
BEGIN;
SELECT results_eq($$SELECT * FROM started('petagen.start(100000, 1, ''empty_t'', method => ''leaf'')')$$,
    $$VALUES ('leaf', 'method => ''leaf'' was asked')$$,
    'method => ''leaf'' stays leaf');
ROLLBACK;
SELECT throws_ok($$SELECT petagen.start(100000, 1, 'one_row', method => 'leaf')$$, '55000',
    'preflight check refuses the load of "one_row": leaf method: 1 local leaves hold rows; a leaf load writes only into empty leaves',
    'method => ''leaf'' still refuses a leaf that holds rows');
SELECT is(count(*), 0::bigint, 'check() with an explicit method has no method finding')
FROM petagen.check(100000, 1, 'empty_t', method => 'chunk') WHERE finding LIKE 'method:%';

-- a table holding the load's keys: auto takes chunk, whose probe refuses it
SELECT throws_like($$SELECT petagen.start(1000, 1, 'full_t')$$,
    'preflight check refuses the load of "full_t": keys: %',
    'auto refuses a table that holds the load''s keys, as the chunk method does');
SELECT is(method_finding('1000, 1, ''full_t'''),
    'method: auto takes the chunk method: leaf "full_t_p0" is not empty',
    'check() of a full table says auto takes the chunk method');

-- auto is the declared default of both functions
SELECT is(count(*), 2::bigint, 'start() and check() default to method => ''auto''')
FROM pg_proc p
WHERE p.oid IN ('petagen.start'::regproc,
                'petagen.check'::regproc)
  AND pg_get_function_arguments(p.oid) LIKE '%method text DEFAULT ''auto''%';

SELECT is(count(*), 0::bigint, 'no job row left behind') FROM petagen.jobs
WHERE "table"::text LIKE 'auto21.%' OR "table"::text IN ('empty_t', 'one_row', 'plain_t', 'full_t');

RESET client_min_messages;
SELECT * FROM finish();

SET client_min_messages = warning;
DROP SCHEMA auto21 CASCADE;
DROP OWNED BY regress_petagen_auto_op;
DROP ROLE regress_petagen_auto_op;
RESET client_min_messages;
