-- check(method => 'leaf') names the leaves that hold rows, and counts them,
-- only for a role that may read the table: a role with INSERT and TRUNCATE
-- but no SELECT learns no more than start()'s refusal tells it.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
DROP ROLE IF EXISTS regress_petagen_blind_op;
RESET client_min_messages;
CREATE SCHEMA privacy19;
SET search_path = privacy19, public;

CREATE ROLE regress_petagen_blind_op LOGIN IN ROLE petagen_operator;
GRANT USAGE ON SCHEMA privacy19 TO regress_petagen_blind_op;
CREATE TABLE full_t (ycsb_key varchar(64) PRIMARY KEY, field0 varchar(100))
    PARTITION BY HASH (ycsb_key);
CREATE TABLE full_t_0 PARTITION OF full_t FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE full_t_1 PARTITION OF full_t FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO full_t VALUES ('x', 'y');
GRANT INSERT ON full_t, full_t_0, full_t_1 TO regress_petagen_blind_op;
GRANT TRUNCATE ON full_t_0, full_t_1 TO regress_petagen_blind_op;

SELECT plan(5);

SET ROLE regress_petagen_blind_op;
SELECT results_eq($$SELECT object, detail, hint FROM petagen.check_details(10, 1, 'full_t', method => 'leaf')
    WHERE finding LIKE 'leaf method:%hold rows%'$$,
    $$VALUES ('full_t'::text, 'leaf method: local leaves hold rows; a leaf load writes only into empty leaves'::text,
        'Which leaves hold rows is shown only to roles with SELECT on the table. TRUNCATE the leaves first if their rows may go, or use method => ''chunk''.'::text)$$,
    'check() as a role without SELECT names neither the leaves that hold rows nor their number');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'full_t', method => 'leaf')$$, '55000',
    'preflight check refuses the load of "full_t": leaf method: local leaves hold rows; a leaf load writes only into empty leaves',
    'start() as a role without SELECT still refuses a leaf that holds rows');
RESET ROLE;

-- SELECT on a column is enough to count the rows of every leaf.
GRANT SELECT (ycsb_key) ON full_t TO regress_petagen_blind_op;
SET ROLE regress_petagen_blind_op;
SELECT results_eq($$SELECT object, finding FROM petagen.check(10, 1, 'full_t', method => 'leaf')
    WHERE finding LIKE 'leaf method:%hold rows%'$$,
    $$VALUES ('full_t_1'::text, 'leaf method: 1 local leaves hold rows; a leaf load writes only into empty leaves'::text)$$,
    'check() as a role with SELECT on a column names and counts the leaves that hold rows');
RESET ROLE;
SELECT results_eq($$SELECT object, finding FROM petagen.check(10, 1, 'full_t', method => 'leaf')
    WHERE finding LIKE 'leaf method:%hold rows%'$$,
    $$VALUES ('full_t_1'::text, 'leaf method: 1 local leaves hold rows; a leaf load writes only into empty leaves'::text)$$,
    'check() as the owner names and counts them');

SELECT is(count(*), 0::bigint, 'the refused start() left no job row') FROM petagen.jobs;

SELECT * FROM finish();

SET client_min_messages = warning;
DROP SCHEMA privacy19 CASCADE;
DROP OWNED BY regress_petagen_blind_op;
DROP ROLE regress_petagen_blind_op;
RESET client_min_messages;
