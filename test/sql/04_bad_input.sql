-- Bad input: every case ends in its own clear error with the right errcode.
SET client_min_messages = warning;
CREATE EXTENSION pgtap;
RESET client_min_messages;
-- Each table but ok is wrong in the one way a refusal below is about, a
-- shape create_table() and ycsb_table() never make.
CREATE TABLE no_key (id text, field0 text);
CREATE TABLE bad_type (ycsb_key text, field0 int);
CREATE TABLE gap (ycsb_key text, field0 text, field2 text);
CREATE TABLE extra (ycsb_key text, field0 text, note text NOT NULL);
CREATE TABLE short_fields (ycsb_key text, field0 varchar(10));
CREATE TABLE short_key (ycsb_key varchar(8), field0 text);
CREATE TABLE gen (ycsb_key text, field0 text GENERATED ALWAYS AS (ycsb_key) STORED);
SELECT ycsb_table('ok');

SELECT plan(28);

-- key() and seq()
SELECT throws_ok($$SELECT petagen.key(-1)$$, '22003',
    'key number -1 is out of range', 'negative key number');
SELECT throws_ok($$SELECT petagen.key(1, 'hashed')$$, '22023',
    'unknown key mode "hashed"', 'unknown key mode');
SELECT throws_ok($$SELECT petagen.key(1, 'ordered', zeropadding => 0)$$, '22023',
    'zeropadding must be between 1 and 64, not 0', 'zeropadding too small');
SELECT throws_ok($$SELECT petagen.key(1, 'ordered', zeropadding => 65)$$, '22023',
    'zeropadding must be between 1 and 64, not 65', 'zeropadding too large');
SELECT throws_ok($$SELECT petagen.key(1, 'ordered', repeat('p', 65))$$, '22023',
    'key prefix is too long', 'prefix too long');
SELECT throws_ok($$SELECT petagen.seq('user123', 'ycsb')$$, '0A000',
    'keys of mode "ycsb" cannot be turned back into key numbers', 'seq of ycsb key');
SELECT throws_ok($$SELECT petagen.seq('user123', 'go-ycsb')$$, '0A000',
    'keys of mode "go-ycsb" cannot be turned back into key numbers', 'seq of go-ycsb key');
SELECT throws_ok($$SELECT petagen.seq('user0042', 'ordered')$$, '22P02',
    '"user0042" is not a key of mode "ordered"', 'extra zeros');
SELECT throws_ok($$SELECT petagen.seq('usr42', 'ordered')$$, '22P02',
    '"usr42" is not a key of mode "ordered"', 'wrong prefix');
SELECT throws_ok($$SELECT petagen.seq('user9223372036854775808', 'ordered')$$, '22P02',
    '"user9223372036854775808" is not a key of mode "ordered"', 'past the key space');
SELECT throws_ok($$SELECT petagen.seq('user', 'scrambled')$$, '22P02',
    '"user" is not a key of mode "scrambled"', 'no digits');

-- rows(): ranges
SELECT throws_ok($$SELECT * FROM petagen.rows(NULL::ok, -1, 10)$$, '22003',
    'first must be between 0 and 9223372036854775807, not -1', 'negative first');
SELECT throws_ok($$SELECT * FROM petagen.rows(NULL::ok, 0, -5)$$, '22003',
    'count must be between 0 and 9223372036854775807, not -5', 'negative count');
SELECT throws_ok($$SELECT * FROM petagen.rows(NULL::ok, 0, 1.5)$$, '22023',
    'count must be a whole number, not 1.5', 'fractional count');
SELECT throws_ok($$SELECT * FROM petagen.rows(NULL::ok, 'NaN', 1)$$, '22003',
    'first must be between 0 and 9223372036854775807, not NaN', 'NaN first');
SELECT throws_ok($$SELECT * FROM petagen.rows(NULL::ok, 9223372036854775807, 2)$$, '22003',
    'first 9223372036854775807 and count 2 run past the key space', 'range past the key space');
-- rows(): options
SELECT throws_ok($$SELECT * FROM petagen.rows(NULL::ok, 0, 1, keys => 'nope')$$, '22023',
    'unknown key mode "nope"', 'rows with unknown mode');
SELECT throws_ok($$SELECT * FROM petagen.rows(NULL::ok, 0, 1, fieldlength => 0)$$, '22023',
    'fieldlength must be between 1 and 1048576, not 0', 'fieldlength zero');
SELECT throws_ok($$SELECT * FROM petagen.rows(NULL::short_fields, 0, 1)$$, '22001',
    'fieldlength 100 is longer than the field columns of "short_fields" allow', 'fieldlength over varchar');
SELECT throws_ok($$SELECT * FROM petagen.rows(NULL::short_key, 0, 1)$$, '22001',
    'keys of mode "scrambled" can be 23 characters long, longer than column ycsb_key of "short_key" allows',
    'key over varchar');
SELECT throws_ok($$SELECT * FROM petagen.rows(NULL::ok, NULL, 1)$$, '22004',
    'argument "first" of petagen.rows() must not be null', 'NULL first');
SELECT throws_ok($$SELECT * FROM petagen.rows(NULL::ok, 0, 1, seed => NULL)$$, '22004',
    'argument "seed" of petagen.rows() must not be null', 'NULL seed');
-- rows(): shapes
SELECT throws_ok($$SELECT * FROM petagen.rows(NULL::int, 0, 1)$$, '42809',
    'petagen.rows() needs the row type of a table, not integer', 'not a row type');
SELECT throws_ok($$SELECT * FROM petagen.rows(NULL::no_key, 0, 1)$$, '42703',
    '"no_key" has no column "ycsb_key"', 'no ycsb_key');
SELECT throws_ok($$SELECT * FROM petagen.rows(NULL::bad_type, 0, 1)$$, '42804',
    'column "field0" of "bad_type" has type integer, not text or varchar', 'field of wrong type');
SELECT throws_ok($$SELECT * FROM petagen.rows(NULL::gap, 0, 1)$$, '42P16',
    'field columns of "gap" have a gap: field1 is missing', 'gap in fields');
SELECT throws_ok($$SELECT * FROM petagen.rows(NULL::extra, 0, 1)$$, '42P16',
    'column "note" of "extra" is NOT NULL and has no default', 'extra NOT NULL column without default');
SELECT throws_ok($$SELECT * FROM petagen.rows(NULL::gen, 0, 1)$$, '42P16',
    'column "field0" of "gen" is a generated column', 'generated column');

SELECT * FROM finish();
