-- petagen.alter(): who may call it, the arguments it refuses, and what it
-- records for a job without a live run (a running job's workers taking
-- the new values is TAP 072_alter).  Job numbers are fixed (rows written
-- with OVERRIDING SYSTEM VALUE), so the output is the same on every run.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
DROP ROLE IF EXISTS regress_alter_op;
DROP ROLE IF EXISTS regress_alter_other;
DROP ROLE IF EXISTS regress_alter_outsider;
RESET client_min_messages;
CREATE SCHEMA alter20;
SET search_path = alter20, public;
\set VERBOSITY default

CREATE ROLE regress_alter_op LOGIN IN ROLE petagen_operator;
CREATE ROLE regress_alter_other LOGIN IN ROLE petagen_operator;
CREATE ROLE regress_alter_outsider LOGIN;
GRANT USAGE ON SCHEMA petagen TO regress_alter_outsider;
GRANT EXECUTE ON FUNCTION petagen.alter(bigint, integer, text, text) TO regress_alter_outsider;
SELECT ycsb_table('usertable');

INSERT INTO petagen.jobs (job, "table", rows, workers, chunk_rows, keys, seed,
    fieldlength, prefix, zeropadding, started_by, state, max_rate, disk_reserve)
OVERRIDING SYSTEM VALUE
VALUES (2001, 'usertable', 10, 1, 100000, 'scrambled', 0, 100, 'user', 1, 'regress_alter_op', 'stopped', 1024, NULL),
       (2002, 'usertable', 10, 1, 100000, 'scrambled', 0, 100, 'user', 1, 'regress_alter_op', 'done', NULL, NULL),
       (2003, 'usertable', 10, 2, 100000, 'scrambled', 0, 100, 'user', 1, 'regress_alter_op', 'running', NULL, NULL);

-- Who may alter a job: as for stop(), petagen_operator members with the
-- privileges of the job's owner, and superusers.
SET ROLE regress_alter_outsider;
SELECT petagen.alter(2001, max_rate => '1MB');
SET ROLE regress_alter_other;
SELECT petagen.alter(2001, max_rate => '1MB');
RESET ROLE;

-- The arguments: a job, at least one setting, sizes as start() takes
-- them; a job that is done.
SELECT plan(13);
SELECT throws_ok($$SELECT petagen.alter(NULL, max_rate => '1MB')$$, '22004',
    'argument "job" of petagen.alter() must not be null', 'job NULL');
SELECT throws_ok($$SELECT petagen.alter(424242, max_rate => '1MB')$$, '42704',
    'load job 424242 does not exist', 'a job that does not exist');
SELECT throws_ok($$SELECT petagen.alter(2001)$$, '22023',
    'petagen.alter() needs workers, max_rate or disk_reserve', 'no setting');
SELECT throws_ok($$SELECT petagen.alter(2001, workers => 0)$$, '22023',
    'workers must be between 1 and 128, not 0', 'workers 0');
SELECT throws_ok($$SELECT petagen.alter(2001, workers => -1)$$, '22023',
    'workers must be between 1 and 128, not -1', 'workers -1 is no "no change"');
SELECT throws_ok($$SELECT petagen.alter(2001, workers => 100000)$$, '22023',
    'workers must be between 1 and 128, not 100000', 'workers too many');
SELECT throws_ok($$SELECT petagen.alter(2001, max_rate => '-1kB')$$, '22023',
    'max_rate must not be negative, not "-1kB"', 'max_rate negative');
SELECT throws_ok($$SELECT petagen.alter(2001, max_rate => '2000PB')$$, '22003',
    'max_rate must be at most 1024 PB, not "2000PB"', 'max_rate too large');
SELECT throws_ok($$SELECT petagen.alter(2001, disk_reserve => 'lots')$$, '22023',
    'invalid size: "lots"', 'disk_reserve not a size');
SELECT throws_ok($$SELECT petagen.alter(2001, disk_reserve => '-5GB')$$, '22023',
    'disk_reserve must not be negative, not "-5GB"', 'disk_reserve negative');
SELECT throws_ok($$SELECT petagen.alter(2001, disk_reserve => '2000PB')$$, '22003',
    'disk_reserve must be at most 1024 PB, not "2000PB"', 'disk_reserve too large');
SELECT throws_ok($$SELECT petagen.alter(2002, max_rate => '1MB')$$, '55000',
    'load job 2002 is already done', 'a done job');
SELECT is((SELECT workers FROM petagen.jobs WHERE job = 2001), 1,
    'a refused workers => -1 left the job''s workers');
SELECT * FROM finish();
-- The words around the refusals a DBA meets; a read-only transaction
-- (pgTAP's own rows would roll back with it).
SELECT petagen.alter(2001, disk_reserve => '2000PB');
SELECT petagen.alter(2001, workers => -1);
SELECT petagen.alter(2002, max_rate => '1MB');
BEGIN READ ONLY;
SELECT petagen.alter(2001, max_rate => '1MB');
ROLLBACK;
\set VERBOSITY terse

-- None of the refusals changed a job.
SELECT job, workers, max_rate, disk_reserve, state FROM petagen.jobs
WHERE job BETWEEN 2001 AND 2003 ORDER BY job;

-- The owner alters its stopped job: resume() takes the catalog's values.
-- max_rate => '0' removes the cap (NULL, as start() records no cap); a
-- setting left NULL stays as it was.
SET ROLE regress_alter_op;
SELECT * FROM petagen.alter(2001, workers => 3, disk_reserve => '2GB');
SELECT job, workers, max_rate, disk_reserve FROM petagen.jobs WHERE job = 2001;
SELECT * FROM petagen.alter(2001, max_rate => '0');
SELECT job, workers, max_rate, disk_reserve FROM petagen.jobs WHERE job = 2001;
-- A job the catalog says runs but no worker does (interrupted) takes a new
-- worker count for its resume().
SELECT * FROM petagen.alter(2003, workers => 1, max_rate => '50MB');
SELECT job, workers, max_rate, disk_reserve FROM petagen.jobs WHERE job = 2003;
-- Rolled back, an alter() leaves the job as it was.
BEGIN;
SELECT * FROM petagen.alter(2003, max_rate => '1kB');
ROLLBACK;
SELECT job, workers, max_rate, disk_reserve FROM petagen.jobs WHERE job = 2003;

-- A value that changes nothing the job does is taken, with a NOTICE that
-- says why: a disk_reserve below petagen.disk_reserve (the floor a job may
-- raise, not lower; reserve_in_force stays the floor), and any setting of
-- a job whose table was dropped.
\set VERBOSITY default
SELECT * FROM petagen.alter(2001, disk_reserve => '100MB');
RESET ROLE;
CREATE TABLE gone (LIKE usertable INCLUDING ALL);
UPDATE petagen.jobs SET "table" = 'gone' WHERE job = 2001;
DROP TABLE gone;
\set VERBOSITY terse
SELECT job, state, workers, max_rate FROM petagen.alter(2001, max_rate => '5MB');

SET client_min_messages = warning;
DELETE FROM petagen.jobs WHERE job IN (2001, 2002, 2003);
DROP SCHEMA alter20 CASCADE;
REVOKE ALL ON SCHEMA petagen FROM regress_alter_outsider;
REVOKE EXECUTE ON FUNCTION petagen.alter(bigint, integer, text, text) FROM regress_alter_outsider;
DROP ROLE regress_alter_op;
DROP ROLE regress_alter_other;
DROP ROLE regress_alter_outsider;
RESET client_min_messages;
