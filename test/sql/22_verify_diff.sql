-- verify() compares a fingerprint of each leaf with the key space's and
-- probes key by key only a leaf that differs: a missing key, a duplicated
-- key, an extra key and a key in the wrong leaf are each counted and named
-- (NOTICE), read by an index-only scan (all-visible leaf) or a sequential
-- scan (pg_stat_user_tables tells which), within work_mem; parallel
-- workers give the same result as the calling backend alone.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
RESET client_min_messages;
CREATE SCHEMA verify18;
SET search_path = verify18, public;

CREATE TABLE vd (ycsb_key varchar(64) PRIMARY KEY, field0 text)
    PARTITION BY HASH (ycsb_key);
CREATE TABLE vd_p0 PARTITION OF vd FOR VALUES WITH (modulus 2, remainder 0);
CREATE TABLE vd_p1 PARTITION OF vd FOR VALUES WITH (modulus 2, remainder 1);
SELECT rows_written FROM petagen.load('vd', 0, 1000, keys => 'ordered');
SELECT * FROM petagen.verify('vd', 1000, keys => 'ordered');

-- A deleted key is missing, a key the job did not generate is extra.
DELETE FROM vd WHERE ycsb_key = 'user42';
INSERT INTO vd VALUES ('stray', 'x');
SELECT petagen.leaf('vd', 'user42'), petagen.leaf('vd', 'stray');
SELECT * FROM petagen.verify('vd', 1000, keys => 'ordered');
DELETE FROM vd WHERE ycsb_key = 'stray';
INSERT INTO vd VALUES ('user42', 'x');

-- A key in the wrong leaf: user1 belongs to vd_p1.  PostgreSQL checks the
-- partition constraint of every insert, so the test lifts it for a moment
-- to model a leaf written behind its back.
SELECT petagen.leaf('vd', 'user1');
DELETE FROM vd WHERE ycsb_key = 'user1';
UPDATE pg_class SET relispartition = false WHERE oid = 'vd_p0'::regclass;
INSERT INTO vd_p0 VALUES ('user1', 'x');
UPDATE pg_class SET relispartition = true WHERE oid = 'vd_p0'::regclass;
SELECT * FROM petagen.verify('vd', 1000, keys => 'ordered');

-- A duplicated key, in a table without a unique index, and a NULL key.
CREATE TABLE vdup (ycsb_key text, field0 text);
CREATE INDEX ON vdup (ycsb_key);
SELECT rows_written FROM petagen.load('vdup', 0, 100);
SELECT * FROM petagen.verify('vdup', 100);
INSERT INTO vdup SELECT * FROM vdup WHERE ycsb_key = petagen.key(7);
INSERT INTO vdup SELECT * FROM vdup WHERE ycsb_key = petagen.key(7);
INSERT INTO vdup VALUES (NULL, 'x');
SELECT petagen.key(7);
SELECT * FROM petagen.verify('vdup', 100);

-- More than ten keys of a kind: the first ten are named.
DELETE FROM vdup WHERE ycsb_key IN (SELECT petagen.key(g) FROM generate_series(50, 69) g);
SELECT missing, extra, duplicated FROM petagen.verify('vdup', 100);

-- A leaf whose expected keys do not fit in work_mem (8 bytes a key): its
-- extra keys are counted, not named; with room they are named.
CREATE TABLE vbig (ycsb_key text PRIMARY KEY, field0 text)
    WITH (autovacuum_enabled = off);
SELECT rows_written FROM petagen.load('vbig', 0, 10000, keys => 'ordered');
INSERT INTO vbig VALUES ('stray', 'x');
SET work_mem = '64kB';
SELECT expected, missing, extra, ok FROM petagen.verify('vbig', 10000, keys => 'ordered');
RESET work_mem;
SELECT expected, missing, extra, ok FROM petagen.verify('vbig', 10000, keys => 'ordered');

-- Which scan reads a leaf: sequential before a VACUUM, index-only after it
-- (every page all-visible), and an index-only scan still sees a key
-- deleted since (its page is no longer all-visible, so the heap decides).
-- VACUUM sets a page all-visible only once the commits of its rows are
-- flushed: synchronous_commit makes sure they are.
SET synchronous_commit = on;
DELETE FROM vbig WHERE ycsb_key = 'stray';
CREATE VIEW scans AS
    SELECT seq_scan FROM pg_stat_user_tables WHERE relid = 'verify18.vbig'::regclass;
SELECT pg_stat_force_next_flush();
SELECT seq_scan AS before FROM scans \gset
SELECT ok FROM petagen.verify('vbig', 10000, keys => 'ordered');
SELECT pg_stat_force_next_flush();
SELECT seq_scan - :before AS sequential_scans FROM scans;
VACUUM vbig;
SELECT seq_scan AS before FROM scans \gset
SELECT ok FROM petagen.verify('vbig', 10000, keys => 'ordered');
DELETE FROM vbig WHERE ycsb_key = 'user5000';
SELECT expected, missing, extra, ok FROM petagen.verify('vbig', 10000, keys => 'ordered');
SELECT pg_stat_force_next_flush();
SELECT seq_scan - :before AS sequential_scans FROM scans;
RESET synchronous_commit;

-- Parallel workers (max_parallel_workers_per_gather of them for
-- verify(table, ...), from 262,144 keys) find what the calling backend
-- alone finds, in leaves that differ too.
CREATE TABLE vp (ycsb_key varchar(64) PRIMARY KEY, field0 text)
    PARTITION BY HASH (ycsb_key);
CREATE TABLE vp_p0 PARTITION OF vp FOR VALUES WITH (modulus 3, remainder 0);
CREATE TABLE vp_p1 PARTITION OF vp FOR VALUES WITH (modulus 3, remainder 1);
CREATE TABLE vp_p2 PARTITION OF vp FOR VALUES WITH (modulus 3, remainder 2);
SELECT rows_written FROM petagen.load('vp', 0, 300000, fieldlength => 1);
DELETE FROM vp WHERE ycsb_key = petagen.key(123456);
INSERT INTO vp VALUES ('stray', 'x');
SET max_parallel_workers_per_gather = 0;
CREATE TABLE alone AS SELECT * FROM petagen.verify('vp', 300000);
SET max_parallel_workers_per_gather = 2;
CREATE TABLE parallel AS SELECT * FROM petagen.verify('vp', 300000);
RESET max_parallel_workers_per_gather;
SELECT * FROM parallel ORDER BY leaf::text;
SELECT count(*) AS rows_that_differ
FROM (SELECT * FROM alone EXCEPT SELECT * FROM parallel) d;

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA verify18 CASCADE;
