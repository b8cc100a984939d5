-- petagen.check(): the preflight findings of a load, and start() refusing
-- on an error finding unless force => true.  Sizes and free space depend on
-- the machine, so the output shows severities, objects and the topic of each
-- finding (the text before its first colon), never byte counts.  check()
-- says each finding in at most 80 characters; check_details() says it in
-- full (detail), with the hint.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
RESET client_min_messages;
CREATE SCHEMA check11;
SET search_path = check11, public;

-- An in-place tablespace (a directory under pg_tblspc of the instance).
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE regress_check_ts LOCATION '';
RESET allow_in_place_tablespaces;

SELECT petagen.create_table('usertable', 4);

-- A small, well-placed load: information and the warnings every load gets.
SELECT severity, object, split_part(finding, ':', 1) AS topic, hint IS NOT NULL AS has_hint
FROM petagen.check_details(1000, workers => 2, "table" => 'usertable');
-- check() has the same findings, none longer than 80 characters, each
-- the start of its detail or a summary with the same topic.
SELECT count(*) AS findings, max(length(c.finding)) <= 80 AS short,
       bool_and(split_part(c.finding, ':', 1) = split_part(d.detail, ':', 1)) AS same_topics
FROM petagen.check(1000, workers => 2, "table" => 'usertable') WITH ORDINALITY c
JOIN petagen.check_details(1000, workers => 2, "table" => 'usertable') WITH ORDINALITY d USING (ordinality);

-- The local share, estimated by routing a sample of the key space.
SELECT detail ~ '^leaves: 4 local and 0 foreign; this node writes about 1000 of the 1000 rows \(100\.0%\)$' AS all_local
FROM petagen.check_details(1000, 2, 'usertable') WHERE finding LIKE 'leaves:%';

-- A misplaced index: usertable_p2's primary key moved away from its heap.
ALTER INDEX usertable_p2_pkey SET TABLESPACE regress_check_ts;
SELECT severity, object, split_part(finding, ':', 1) AS topic, hint
FROM petagen.check_details(1000, 2, 'usertable') WHERE finding LIKE 'index tablespace:%';
SELECT finding, detail FROM petagen.check_details(1000, 2, 'usertable') WHERE finding LIKE 'index tablespace:%';
-- Its tablespace is on the same filesystem as the others: one space row.
SELECT severity, object FROM petagen.check(1000, 2, 'usertable') WHERE finding LIKE 'space:%';
-- The hint's statement fixes it.
SELECT hint FROM petagen.check_details(1000, 2, 'usertable') WHERE finding LIKE 'index tablespace:%' \gset
SELECT :'hint' ~ '^ALTER INDEX check11\.usertable_p2_pkey SET TABLESPACE pg_default; ' AS hint_is_the_fix;
ALTER INDEX check11.usertable_p2_pkey SET TABLESPACE pg_default;
SELECT count(*) AS misplaced FROM petagen.check(1000, 2, 'usertable') WHERE finding LIKE 'index tablespace:%';

-- A filesystem too small for the estimate: here, a reserve larger than any disk.
SELECT severity, object, split_part(finding, ':', 1) AS topic
FROM petagen.check(1000, 2, 'usertable', disk_reserve => '1000TB', method => 'chunk')
WHERE severity = 'error';

-- A leaf past PostgreSQL's 32 TB relation limit.
SELECT severity, object, split_part(finding, ':', 1) AS topic
FROM petagen.check(1e14, 2, 'usertable') WHERE finding LIKE 'relation size:%' ORDER BY object;
SELECT hint FROM petagen.check_details(1e14, 2, 'usertable') WHERE object = 'usertable_p0' AND finding LIKE 'relation size:%';

-- Too few worker slots: regress.conf has max_worker_processes = 16.
SELECT severity, object, split_part(finding, ':', 1) AS topic
FROM petagen.check(1000, 20, 'usertable') WHERE severity = 'error';

-- Settings: checkpoints (WAL past max_wal_size), XIDs past
-- autovacuum_freeze_max_age (one per chunk), autovacuum off on the leaves.
SELECT severity, object, split_part(finding, ':', 1) AS topic
FROM petagen.check(1e7, 2, 'usertable') WHERE finding LIKE 'checkpoints:%';
SELECT severity, split_part(finding, ':', 1) AS topic
FROM petagen.check(3e8, 2, 'usertable', chunk_rows => 1) WHERE finding LIKE 'xids:%';
-- The freeze a plain load owes; a frozen load owes none.
SELECT frozen, count(*) FILTER (WHERE finding LIKE 'freeze:%') AS freeze_findings
FROM unnest(ARRAY[false, true]) frozen, petagen.check(1000, 2, 'usertable', frozen => frozen, method => 'chunk')
GROUP BY frozen ORDER BY frozen;
SELECT format('ALTER TABLE %s SET (autovacuum_enabled = off)', i)
FROM generate_series(0, 3) g, format('usertable_p%s', g) i \gexec
SELECT count(*) AS autovacuum_findings FROM petagen.check(1000, 2, 'usertable')
WHERE finding LIKE 'autovacuum:%';
ALTER TABLE usertable_p1 RESET (autovacuum_enabled);
SELECT finding ~ '^autovacuum: on for 1 of 4 local leaves' AS one_leaf FROM petagen.check(1000, 2, 'usertable')
WHERE finding LIKE 'autovacuum:%';

-- Keys no partition accepts (a range tree: a shape of its own).
CREATE TABLE ranged (ycsb_key text PRIMARY KEY, field0 text) PARTITION BY RANGE (ycsb_key);
CREATE TABLE ranged_1 PARTITION OF ranged FOR VALUES FROM ('user1') TO ('user5');
SELECT severity, object, split_part(finding, ':', 1) AS topic
FROM petagen.check(1000, 1, 'ranged') WHERE severity = 'error';
CREATE TABLE ranged_rest PARTITION OF ranged DEFAULT;
SELECT count(*) AS errors FROM petagen.check(1000, 1, 'ranged') WHERE severity = 'error';

-- What start() would refuse is an error finding, with start()'s message.
CREATE TABLE no_key (id text, field0 text);
SELECT severity, object, detail, hint FROM petagen.check_details(10, 1, 'no_key') WHERE severity = 'error';
CREATE SERVER nowhere FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host 'petagen-no-such-host.invalid', port '1');
CREATE TABLE remote_only (ycsb_key text, field0 text) PARTITION BY HASH (ycsb_key);
CREATE FOREIGN TABLE remote_only_0 PARTITION OF remote_only
    FOR VALUES WITH (MODULUS 1, REMAINDER 0) SERVER nowhere;
SELECT severity, object, finding FROM petagen.check(10, 1, 'remote_only') WHERE severity = 'error';

-- petagen.create_table(): the canonical table, its leaves round-robin over
-- the tablespaces, each leaf's primary key index beside its heap.
SELECT petagen.create_table('ct', 3, ARRAY['regress_check_ts', 'pg_default']);
SELECT c.relname, c.relkind, coalesce(t.spcname, '(database default)') AS tablespace
FROM pg_class c LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace
WHERE c.relnamespace = 'check11'::regnamespace AND c.relname ~ '^ct' ORDER BY 1;
SELECT relid, isleaf, pg_get_expr(c.relpartbound, c.oid) AS bound
FROM pg_partition_tree('ct') p JOIN pg_class c ON c.oid = p.relid ORDER BY 1;
SELECT attname, format_type(atttypid, atttypmod) AS type, attnotnull
FROM pg_attribute WHERE attrelid = 'ct'::regclass AND attnum > 0 ORDER BY attnum;
SHOW default_tablespace;
SELECT count(*) AS misplaced FROM petagen.check(1000, 1, 'ct') WHERE finding LIKE 'index tablespace:%';
SELECT severity, object FROM petagen.check(1000, 1, 'ct') WHERE finding LIKE 'space:%';
-- It loads, and holds exactly the key space.
SELECT keys, rows_written FROM petagen.load('ct', 0, 3000);
SELECT count(*) AS leaves, bool_and(ok) AS ok, sum(present) AS present FROM petagen.verify('ct', 3000);
-- Other sizes, in the caller's schema; no tablespaces: the default ones.
SELECT petagen.create_table('ct_small', 1, fields => 2, fieldlength => 10, keylength => 30);
SELECT attname, format_type(atttypid, atttypmod) AS type
FROM pg_attribute WHERE attrelid = 'ct_small_p0'::regclass AND attnum > 0 ORDER BY attnum;
CREATE SCHEMA check11_defaults;
SET search_path = check11_defaults, public;
SELECT petagen.create_table();
SELECT count(*) AS leaves, min(relid::text) AS first, max(relid::text) AS last
FROM pg_partition_tree('check11_defaults.usertable') WHERE isleaf;
SET search_path = check11, public;

-- Hash sub-partitions with their parent's modulus: every key of a
-- partition has its remainder, so 12 of the 16 leaves get no keys; check()
-- names them, and sizes a leaf job by the largest leaf.
CREATE TABLE hh (ycsb_key text PRIMARY KEY, field0 text) PARTITION BY HASH (ycsb_key);
SELECT format('CREATE TABLE hh_%s PARTITION OF hh FOR VALUES WITH (MODULUS 4, REMAINDER %s) PARTITION BY HASH (ycsb_key)', i, i)
FROM generate_series(0, 3) i \gexec
SELECT format('CREATE TABLE hh_%s_%s PARTITION OF hh_%s FOR VALUES WITH (MODULUS 4, REMAINDER %s)', i, j, i, j)
FROM generate_series(0, 3) i, generate_series(0, 3) j \gexec
SELECT severity, object, finding FROM petagen.check(2e6, 1, 'hh', method => 'leaf')
WHERE finding ~ '^leaves' OR finding ~ 'largest leaf';
SELECT detail, hint FROM petagen.check_details(2e6, 1, 'hh') WHERE severity = 'warning' AND finding ~ '^leaves';
-- A modulus with no factor in common with the parent's spreads the keys.
DROP TABLE hh_1;
CREATE TABLE hh_1 PARTITION OF hh FOR VALUES WITH (MODULUS 4, REMAINDER 1) PARTITION BY HASH (ycsb_key);
SELECT format('CREATE TABLE hh_1_%s PARTITION OF hh_1 FOR VALUES WITH (MODULUS 3, REMAINDER %s)', j, j)
FROM generate_series(0, 2) j \gexec
SELECT finding, detail !~ 'hh_1_' AS hh_1_gets_keys
FROM petagen.check_details(2e6, 1, 'hh') WHERE severity = 'warning' AND finding ~ '^leaves';
-- A DEFAULT partition that gets no keys is a catch-all, not a mistake.
SELECT count(*) AS leaves_warnings FROM petagen.check(1000, 1, 'ranged')
WHERE severity = 'warning' AND finding ~ '^leaves';

-- A leaf INSERT could not fill (a NOT NULL column without the default its
-- parent has) is an error finding, as start() refuses it, not an ERROR.
CREATE TABLE extra_col (ycsb_key text PRIMARY KEY, field0 text, extra int NOT NULL DEFAULT 0)
    PARTITION BY HASH (ycsb_key);
CREATE TABLE extra_col_0 (ycsb_key text PRIMARY KEY, field0 text, extra int NOT NULL);
ALTER TABLE extra_col ATTACH PARTITION extra_col_0 FOR VALUES WITH (MODULUS 1, REMAINDER 0);
SELECT severity, object, finding FROM petagen.check(10, 1, 'extra_col') WHERE severity = 'error';
-- So is an identity column of a partitioned table, which before
-- PostgreSQL 17 its partitions do not have.
CREATE TABLE ident (id bigint GENERATED ALWAYS AS IDENTITY, ycsb_key text PRIMARY KEY, field0 text)
    PARTITION BY HASH (ycsb_key);
CREATE TABLE ident_0 PARTITION OF ident FOR VALUES WITH (MODULUS 1, REMAINDER 0);
SELECT count(*) FILTER (WHERE severity = 'error') = (current_setting('server_version_num')::int < 170000)::int
       AS error_where_partitions_lack_it
FROM petagen.check(10, 1, 'ident');

SELECT plan(32);

-- Bad input to check() is an error, as for start().
SELECT throws_ok($$SELECT * FROM petagen.check(NULL)$$, '22004',
    'argument "rows" of petagen.check() must not be null', 'check: NULL rows');
SELECT throws_ok($$SELECT * FROM petagen.check(0, 1, 'usertable')$$, '22003',
    'rows must be at least 1', 'check: rows 0');
SELECT throws_ok($$SELECT * FROM petagen.check(10, 0, 'usertable')$$, '22023',
    'workers must be between 1 and 128, not 0', 'check: workers 0');
SELECT throws_ok($$SELECT * FROM petagen.check(10, 1, 'missing')$$, '42P01',
    'relation "missing" does not exist', 'check: no such table');
SELECT throws_ok($$SELECT * FROM petagen.check(10, 1, 'usertable', keys => 'hashed')$$, '22023',
    'unknown key mode "hashed"', 'check: unknown key mode');
SELECT throws_ok($$SELECT * FROM petagen.check(10, 1, 'usertable', disk_reserve => 'x')$$, '22023',
    'invalid size: "x"', 'check: disk_reserve not a size');
SELECT throws_ok($$SELECT * FROM petagen.check(10, 1, 'usertable', chunk_rows => 0)$$, '22023',
    'chunk_rows must be between 1 and 100000000, not 0', 'check: chunk_rows 0');

-- start() refuses on an error finding, with its errcode, naming it.
SELECT throws_ok($$SELECT petagen.start(1000, 1, 'usertable', disk_reserve => '1000TB')$$, '53100',
    NULL, 'start: a filesystem too small for the estimate');
SELECT throws_like($$SELECT petagen.start(1000, 1, 'usertable', disk_reserve => '1000TB')$$,
    'preflight check refuses the load of "usertable": space: %',
    'start: the message names the first error finding');
SELECT throws_ok($$SELECT petagen.start(1e14, 1, 'usertable')$$, '54000',
    NULL, 'start: a leaf past the relation size limit');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'extra_col', force => true)$$, '42P16',
    'column "extra" of "extra_col_0" is NOT NULL and has no default', 'start: a leaf INSERT could not fill, even with force');
SELECT throws_ok($$SELECT petagen.start(1000, 20, 'usertable')$$, '53400',
    'not enough free background worker slots for 20 workers', 'start: too few worker slots');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'usertable', force => NULL)$$, '22004',
    'argument "force" of petagen.start() must not be null', 'start: NULL force');
SELECT is(count(*), 0::bigint, 'no job row left after the refusals') FROM petagen.jobs;

-- With force => true the same start() runs: its workers pause at the reserve
-- before writing anything, and stop.
SELECT petagen.start(1000, 1, 'usertable', disk_reserve => '1000TB', force => true,
                     method => 'chunk') AS job \gset
-- wait() takes any interval: past 2^31 milliseconds (about 25 days) it
-- waits as long as the others, here until statement_timeout cancels it, for
-- the job stays paused; one longer than a timestamp can count waits forever.
SELECT petagen.wait(:job, '0') IN ('starting', 'running', 'paused') AS waits_none;
SET statement_timeout = '1s';
SELECT petagen.wait(:job, '30 days');
SELECT petagen.wait(:job, '1 month');
SELECT petagen.wait(:job, '1000000 years');
RESET statement_timeout;
SELECT petagen.wait(:job, '1 month -31 days');
SELECT is(petagen.stop(:job), 'stopped', 'start with force: the job ran and stops');
SELECT is(count(*), 0::bigint, 'start with force: nothing written past the reserve') FROM usertable;
SELECT is(count(*), 1::bigint, 'start with force: one job row') FROM petagen.jobs;

-- Bad input to create_table() changes nothing.
SELECT throws_ok($$SELECT petagen.create_table('ct')$$, '42P07',
    'relation "ct" already exists', 'create_table: an existing name');
SELECT throws_ok($$SELECT petagen.create_table(NULL)$$, '22004',
    'argument "name" of petagen.create_table() must not be null', 'create_table: NULL name');
SELECT throws_ok($$SELECT petagen.create_table('x', NULL)$$, '22004',
    'argument "partitions" of petagen.create_table() must not be null', 'create_table: NULL partitions');
SELECT throws_ok($$SELECT petagen.create_table('x', 0)$$, '22023',
    'partitions must be between 1 and 65536, not 0', 'create_table: 0 partitions');
SELECT throws_ok($$SELECT petagen.create_table('x', fields => 0)$$, '22023',
    'fields must be between 1 and 1000, not 0', 'create_table: 0 fields');
SELECT throws_ok($$SELECT petagen.create_table('x', fieldlength => 0)$$, '22023',
    'fieldlength must be between 1 and 1048576, not 0', 'create_table: fieldlength 0');
SELECT throws_ok($$SELECT petagen.create_table('x', keylength => -1)$$, '22023',
    'keylength must be between 1 and 10485760, not -1', 'create_table: negative keylength');
SELECT throws_ok($$SELECT petagen.create_table('x', tablespaces => ARRAY['nope'])$$, '42704',
    'tablespace "nope" does not exist', 'create_table: an unknown tablespace');
SELECT throws_ok($$SELECT petagen.create_table('x', tablespaces => '{}')$$, '22023',
    'tablespaces must not be an empty array', 'create_table: no tablespaces');
SELECT throws_ok($$SELECT petagen.create_table('x', tablespaces => ARRAY[NULL])$$, '22004',
    'tablespaces must not contain NULL', 'create_table: a NULL tablespace');
SELECT throws_ok($$SELECT petagen.create_table(repeat('x', 62))$$, '42622',
    format('name "%s" is too long for its partitions', repeat('x', 62)), 'create_table: a name too long for its leaves');
SELECT throws_ok($$SELECT petagen.create_table('')$$, '42602',
    'invalid name syntax', 'create_table: an empty name');
SELECT throws_ok($$SELECT petagen.create_table('nowhere.x')$$, '3F000',
    'schema "nowhere" does not exist', 'create_table: no such schema');
CREATE TABLE clash_p1 (id int);
SELECT throws_ok($$SELECT petagen.create_table('clash', 2)$$, '42P07',
    'relation "clash_p1" already exists', 'create_table: a leaf name taken');
SELECT is(count(*), 0::bigint, 'create_table: the failed calls left no table')
FROM pg_class WHERE relnamespace = 'check11'::regnamespace
  AND (relname = 'x' OR relname LIKE 'x\_p%' OR relname IN ('clash', 'clash_p0'));

SELECT * FROM finish();

DELETE FROM petagen.jobs;
SET client_min_messages = warning;
DROP SCHEMA check11 CASCADE;
DROP SCHEMA check11_defaults CASCADE;
DROP SERVER nowhere CASCADE;
DROP TABLESPACE regress_check_ts;
RESET client_min_messages;
