-- Limits and guards every entry point shares: read-only transactions,
-- cancellation, the supported range of sizes and counts (no arithmetic
-- overflow for any accepted input), tables given by OID, multibyte
-- prefixes, and what verify() accepts as proof (row-level security,
-- partial indexes).  Nothing here starts a worker.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
DROP ROLE IF EXISTS regress_petagen_lim;
RESET client_min_messages;
CREATE SCHEMA lim14;
SET search_path = lim14, public;
CREATE ROLE regress_petagen_lim LOGIN IN ROLE petagen_operator;
GRANT USAGE ON SCHEMA lim14 TO regress_petagen_lim;

SELECT ycsb_table('ok');
-- Fields of type text, no length limit: the point of the wide tables.
SELECT format('CREATE TABLE %I (ycsb_key text, %s)', 'wide' || n,
              string_agg(format('field%s text', i), ', ' ORDER BY i))
FROM (VALUES (256), (257)) w(n), generate_series(0, n - 1) i GROUP BY n \gexec

SELECT plan(52);

-- 1. Read-only transactions: every writing entry point refuses, as
-- PostgreSQL's own commands do, and writes nothing.
BEGIN READ ONLY;
SELECT throws_ok($$SELECT * FROM petagen.load('ok', 0, 10)$$, '25006',
    'cannot execute petagen.load() in a read-only transaction', 'load() read-only');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok')$$, '25006',
    'cannot execute petagen.start() in a read-only transaction', 'start() read-only');
SELECT throws_ok($$SELECT petagen.resume(1)$$, '25006',
    'cannot execute petagen.resume() in a read-only transaction', 'resume() read-only');
SELECT throws_ok($$SELECT petagen.stop(1)$$, '25006',
    'cannot execute petagen.stop() in a read-only transaction', 'stop() read-only');
SELECT throws_ok($$SELECT petagen.create_table('ro_table', 2)$$, '25006',
    'cannot execute petagen.create_table() in a read-only transaction', 'create_table() read-only');
SELECT throws_ok($$SELECT * FROM petagen.bench('update', 1, '1s', '0s', 'ok', rows => 10)$$, '25006',
    'cannot execute petagen.bench() in a read-only transaction', 'bench() read-only');
SELECT throws_ok($$SELECT * FROM petagen.bench_sweep('select', ARRAY[1], '1s', '0s', 'ok', rows => 10)$$, '25006',
    'cannot execute petagen.bench() in a read-only transaction', 'bench_sweep() read-only');
COMMIT;
SELECT is((SELECT count(*) FROM ok), 0::bigint, 'nothing was written');
-- reading is fine in a read-only transaction
BEGIN READ ONLY;
SELECT is((SELECT count(*) FROM petagen.rows(NULL::ok, 0, 10)), 10::bigint, 'rows() read-only');
SELECT is((SELECT count(*) FROM petagen.verify('ok', 0)), 1::bigint, 'verify() read-only');
COMMIT;

-- 2. The supported range: past it a clear error, never an overflow.
-- A job has at most 2^30 chunks (chunk_rows at most 1e8).
SELECT throws_ok($$SELECT petagen.start(9223372036854775807, 1, 'ok')$$, '22003',
    'rows 9223372036854775807 in chunks of 100000 make 92233720368548 chunks, too many for one job',
    'start() rows 2^63-1');
SELECT throws_ok($$SELECT * FROM petagen.check(9223372036854775807, 1, 'ok', chunk_rows => 100000000)$$, '22003',
    'rows 9223372036854775807 in chunks of 100000000 make 92233720369 chunks, too many for one job',
    'check() rows 2^63-1');
SELECT throws_ok($$SELECT * FROM petagen.check(107374182400000001, 1, 'ok', chunk_rows => 100000000)$$, '22003',
    'rows 107374182400000001 in chunks of 100000000 make 1073741825 chunks, too many for one job',
    'check() one chunk past the limit');
SELECT throws_ok($$SELECT petagen.start(107374182400001, 1, 'ok')$$, '22003',
    'rows 107374182400001 in chunks of 100000 make 1073741825 chunks, too many for one job',
    'start() one chunk past the limit');
SELECT ok(bool_or(detail ~ '^xids: the load uses about 1073741824 transaction IDs'),
    'check() at the limit counts 2^30 transaction IDs')
FROM petagen.check_details(107374182400000000, 1, 'ok', chunk_rows => 100000000);
-- key numbers run to 2^63-1
SELECT throws_ok($$SELECT * FROM petagen.load('ok', 9223372036854775807, 2)$$, '22003',
    'first 9223372036854775807 and count 2 run past the key space', 'load() past 2^63-1');
SELECT is((SELECT rows_written FROM petagen.load('ok', 9223372036854775807, 1, keys => 'ordered')),
    1::bigint, 'load() of key number 2^63-1');
SELECT is((SELECT ycsb_key FROM ok), 'user9223372036854775807'::varchar, 'its key');
SELECT throws_ok($$SELECT count(*) FROM petagen.rows(NULL::ok, 9223372036854775806, 3)$$, '22003',
    'first 9223372036854775806 and count 3 run past the key space', 'rows() past 2^63-1');
SELECT is((SELECT count(*) FROM petagen.rows(NULL::ok, 9223372036854775807, 1)), 1::bigint,
    'rows() of key number 2^63-1');
SELECT throws_ok($$SELECT * FROM petagen.load('ok', 9223372036854775808, 0)$$, '22003',
    'first must be between 0 and 9223372036854775807, not 9223372036854775808', 'load() first 2^63');
SELECT is(petagen.key(9223372036854775807, 'ordered'), 'user9223372036854775807', 'key() of 2^63-1');
SELECT throws_ok($$SELECT petagen.key(-1)$$, '22003',
    'key number -1 is out of range', 'key() of -1');
SELECT is(petagen.seq('user9223372036854775807', 'ordered'), 9223372036854775807, 'seq() of 2^63-1');
SELECT throws_ok($$SELECT petagen.seq('user9223372036854775808', 'ordered')$$, '22P02',
    '"user9223372036854775808" is not a key of mode "ordered"', 'seq() past 2^63-1');
SELECT is(petagen.seq(petagen.key(9223372036854775807)), 9223372036854775807, 'scrambled 2^63-1 round trip');
-- bench inserts start at rows + id * 2^40: no room past 2^63-1
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb-d', 1, '1s', '0s', 'ok', rows => 9223372036854775807)$$,
    '22003', NULL, 'bench() inserts past 2^63-1');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', 1, '1s', '0s', 'ok', rows => 9223372036854775808)$$,
    '22003', 'rows must be between 0 and 9223372036854775807, not 9223372036854775808', 'bench() rows 2^63');
-- durations of a benchmark at most a year, sizes at most 2^60 bytes
SELECT throws_ok($$SELECT * FROM petagen.bench('select', 1, '1000000000 months', '0s', 'ok', rows => 10)$$,
    '22003', 'duration is out of range', 'bench() duration that overflows');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', 1, '366 days', '0s', 'ok', rows => 10)$$,
    '22003', 'duration is out of range', 'bench() duration over a year');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', 1, '1s', '366 days', 'ok', rows => 10)$$,
    '22003', 'warmup is out of range', 'bench() warmup over a year');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', disk_reserve => '1025 PB')$$, '22003',
    'disk_reserve must be at most 1024 PB, not "1025 PB"', 'start() disk_reserve past 2^60');
SELECT throws_ok($$SELECT * FROM petagen.check(10, 1, 'ok', max_rate => '2000 PB')$$, '22003',
    'max_rate must be at most 1024 PB, not "2000 PB"', 'check() max_rate past 2^60');
-- a row is at most 256 MB of fields
SELECT throws_ok($$SELECT * FROM petagen.load('wide257', 0, 1, fieldlength => 1048576)$$, '22003',
    'rows of "wide257" would be too long', 'load() 257 fields of 1 MB');
SELECT throws_ok($$SELECT petagen.start(1, 1, 'wide257', fieldlength => 1048576)$$, '22003',
    'rows of "wide257" would be too long', 'start() 257 fields of 1 MB');
SELECT throws_ok($$SELECT count(*) FROM petagen.rows(NULL::wide257, 0, 1, fieldlength => 1048576)$$, '22003',
    'rows of "wide257" would be too long', 'rows() 257 fields of 1 MB');
SELECT lives_ok($$SELECT * FROM petagen.load('wide256', 0, 0, fieldlength => 1048576)$$,
    'load() 256 fields of 1 MB is accepted');
-- draw() returns at most 1e8 key numbers
SELECT throws_ok($$SELECT count(*) FROM petagen.draw('uniform', 10, 100000001, 1)$$, '22003',
    'n must be at most 100000000, not 100000001', 'draw() past its limit');

-- 3. A table given by OID: the schema USAGE check name lookup would make.
CREATE SCHEMA hidden14;
SELECT ycsb_table('hidden14.t');
GRANT SELECT, INSERT ON hidden14.t TO regress_petagen_lim;
SELECT 'hidden14.t'::regclass::oid AS hidden_oid \gset
SELECT throws_ok(format($$SET ROLE regress_petagen_lim; SELECT * FROM petagen.load(%s::regclass, 0, 1)$$, :hidden_oid),
    '42501', 'permission denied for schema hidden14', 'load() by OID checks schema USAGE');
SELECT throws_ok(format($$SET ROLE regress_petagen_lim; SELECT * FROM petagen.verify(%s::regclass, 1)$$, :hidden_oid),
    '42501', 'permission denied for schema hidden14', 'verify() by OID checks schema USAGE');
SELECT throws_ok(format($$SET ROLE regress_petagen_lim; SELECT petagen.leaf(%s::regclass, 'k')$$, :hidden_oid),
    '42501', 'permission denied for schema hidden14', 'leaf() by OID checks schema USAGE');
SELECT throws_ok(format($$SET ROLE regress_petagen_lim; SELECT * FROM petagen.leaves(%s::regclass)$$, :hidden_oid),
    '42501', 'permission denied for schema hidden14', 'leaves() by OID checks schema USAGE');
RESET ROLE;
SELECT is((SELECT count(*) FROM hidden14.t), 0::bigint, 'nothing was written through the OID');
SELECT throws_ok($$SELECT * FROM petagen.load(4000000000::oid::regclass, 0, 1)$$,
    '42P01', 'relation with OID 4000000000 does not exist', 'load() of an OID that is no relation');
SELECT throws_ok($$SELECT * FROM petagen.verify(4000000000::oid::regclass, 1)$$,
    '42P01', 'relation with OID 4000000000 does not exist', 'verify() of an OID that is no relation');

-- 4. A multibyte prefix is measured in characters against varchar(n).
CREATE TABLE mb8 (ycsb_key varchar(8) PRIMARY KEY, field0 text);  -- a key of 8 characters
SELECT is((SELECT rows_written FROM petagen.load('mb8', 0, 10, keys => 'ordered', prefix => 'ü', zeropadding => 7)),
    10::bigint, 'prefix ü + 7 digits fits varchar(8)');
SELECT is((SELECT max(length(ycsb_key)) FROM mb8), 8, 'keys of 8 characters');
SELECT throws_ok($$SELECT * FROM petagen.load('mb8', 0, 10, keys => 'ordered', prefix => 'ü', zeropadding => 8)$$,
    '22001', 'keys of mode "ordered" can be 9 characters long, longer than column ycsb_key of "mb8" allows',
    'prefix ü + 8 digits does not');

-- 5. verify() refuses a table whose row-level security applies to the
-- caller, and takes no partial index as proof that a key is present.
SELECT ycsb_table('rls');
SELECT rows_written FROM petagen.load('rls', 0, 10, keys => 'ordered');
ALTER TABLE rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY some_keys ON rls FOR SELECT USING (ycsb_key < 'user5');
GRANT SELECT ON rls TO regress_petagen_lim;
SELECT throws_ok($$SET ROLE regress_petagen_lim; SELECT * FROM petagen.verify('rls', 20, keys => 'ordered')$$,
    '42501', 'petagen.verify() cannot check "rls": row-level security applies to it',
    'verify() refuses RLS that applies to the caller');
RESET ROLE;
SELECT is((SELECT present FROM petagen.verify('rls', 20, keys => 'ordered')), 10::bigint,
    'the owner, whom RLS does not apply to, may verify');
CREATE TABLE partial (ycsb_key text, field0 text);  -- no primary key: only a partial one
SELECT rows_written FROM petagen.load('partial', 0, 10, keys => 'ordered');
CREATE UNIQUE INDEX partial_low ON partial (ycsb_key) WHERE ycsb_key < 'user5';
SELECT throws_ok($$SELECT * FROM petagen.verify('partial', 10, keys => 'ordered')$$,
    '42704', 'leaf "partial" has no btree index on ycsb_key', 'a partial index is no proof');
CREATE INDEX partial_all ON partial (ycsb_key);
SELECT is((SELECT present FROM petagen.verify('partial', 10, keys => 'ordered')), 10::bigint,
    'with a full index every key is found');

-- 6. Cancellation: a statement_timeout stops draw() long before it could
-- finish (1e8 draws), and long before it writes 1 GB of temporary files
-- (without interrupt checks it would hit temp_file_limit, 53400, first).
SET temp_file_limit = '1GB';
SET statement_timeout = '200ms';
\set VERBOSITY sqlstate
SELECT count(*) FROM petagen.draw('uniform', 1000, 100000000, 1);
SELECT count(*) FROM petagen.rows(NULL::ok, 0, 1000000000000);
SELECT * FROM petagen.verify('ok', 1000000000000);
\set VERBOSITY default
RESET statement_timeout;
RESET temp_file_limit;

SELECT * FROM finish();
DROP SCHEMA hidden14 CASCADE;
DROP OWNED BY regress_petagen_lim;
DROP ROLE regress_petagen_lim;
