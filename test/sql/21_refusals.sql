-- The refusals a DBA meets most, as psql prints them: ERROR, DETAIL and
-- HINT (07, 09, 10 and 11 check each refusal's SQLSTATE and message; this
-- file checks the words around them).  At the end, the job rows are as
-- written and no benchmark run was recorded: the refusals changed nothing.
-- Job numbers are fixed (rows written with OVERRIDING SYSTEM VALUE), so
-- the output is the same on every run.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
DROP ROLE IF EXISTS regress_refuse_op;
DROP ROLE IF EXISTS regress_refuse_other;
DROP ROLE IF EXISTS regress_refuse_outsider;
RESET client_min_messages;
CREATE SCHEMA refuse18;
SET search_path = refuse18, public;
\set VERBOSITY default

CREATE ROLE regress_refuse_op LOGIN IN ROLE petagen_operator;
CREATE ROLE regress_refuse_other LOGIN IN ROLE petagen_operator;
CREATE ROLE regress_refuse_outsider LOGIN;
GRANT USAGE ON SCHEMA refuse18 TO regress_refuse_op, regress_refuse_outsider;
GRANT USAGE ON SCHEMA petagen TO regress_refuse_outsider;
GRANT EXECUTE ON FUNCTION petagen.start TO regress_refuse_outsider;

SELECT petagen.create_table('usertable', 2);
SELECT ycsb_table('plain');
SELECT ycsb_table('never_loaded');
-- Shapes create_table() does not make, each the point of its refusal.
CREATE TABLE no_key (id text, field0 text);
CREATE TABLE narrow (ycsb_key varchar(64) PRIMARY KEY, field0 varchar(10));
CREATE TABLE empty_parent (ycsb_key text, field0 text) PARTITION BY HASH (ycsb_key);
SELECT ycsb_table('with_rls');
ALTER TABLE with_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY everything ON with_rls USING (true);
GRANT INSERT ON with_rls TO regress_refuse_op;
SELECT ycsb_table('with_trigger');
CREATE FUNCTION keep_row() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$;
CREATE TRIGGER keep BEFORE INSERT ON with_trigger FOR EACH ROW EXECUTE FUNCTION keep_row();
CREATE TEMP TABLE a_temp (ycsb_key text, field0 text);

-- Who may start a job: a role outside petagen_operator, an operator
-- without INSERT on the table (start() and load() alike).
SET ROLE regress_refuse_outsider;
SELECT petagen.start(10, 1, 'usertable');
SET ROLE regress_refuse_op;
SELECT petagen.start(10, 1, 'usertable');
SELECT * FROM petagen.load('usertable', 0, 10);
RESET ROLE;

-- Which table: missing, temporary, a partitioned table with no partitions,
-- a table without ycsb_key, fields too short, row-level security, a trigger.
SELECT petagen.start(10, 1, 'missing');
SELECT petagen.start(10, 1, 'a_temp');
SELECT petagen.start(10, 1, 'empty_parent');
SELECT petagen.start(10, 1, 'no_key');
SELECT petagen.start(10, 1, 'narrow');
SET ROLE regress_refuse_op;
SELECT petagen.start(10, 1, 'with_rls');
RESET ROLE;
SELECT petagen.start(10, 1, 'with_trigger');

-- How many: rows, workers, worker slots (regress.conf: max_worker_processes
-- = 16, one taken by the logical replication launcher once no petagen
-- worker of an earlier test is left), chunk_rows.
SELECT petagen.start(0, 1, 'usertable');
SELECT petagen.start(1e18, 1, 'usertable', chunk_rows => 1);
SELECT petagen.start(10, 0, 'usertable');
DO $$
BEGIN
    FOR i IN 1 .. 600 LOOP
        PERFORM pg_stat_clear_snapshot();
        EXIT WHEN NOT EXISTS (SELECT FROM pg_stat_activity
                              WHERE backend_type LIKE 'petagen%');
        PERFORM pg_sleep(0.1);
    END LOOP;
END$$;
SELECT petagen.start(10, 20, 'usertable');
SELECT petagen.start(10, 1, 'usertable', chunk_rows => 0);

-- How: key mode, frozen by a role that does not own the table, frozen or
-- indexes => 'after' with hashed YCSB keys, an unknown indexes mode.
SELECT petagen.start(10, 1, 'usertable', keys => 'hashed');
GRANT INSERT ON usertable TO regress_refuse_op;
SET ROLE regress_refuse_op;
SELECT petagen.start(10, 1, 'usertable', frozen => true);
RESET ROLE;
SELECT petagen.start(10, 1, 'usertable', frozen => true, keys => 'ycsb');
SELECT petagen.start(10, 1, 'usertable', indexes => 'after', keys => 'ycsb');
SELECT petagen.start(10, 1, 'usertable', indexes => 'later');

-- Jobs: one that does not exist, another role's, a table that has a
-- running job (a row with no worker: interrupted), a job already done.
INSERT INTO petagen.jobs (job, "table", rows, workers, chunk_rows, keys, seed,
    fieldlength, prefix, zeropadding, started_by, state)
OVERRIDING SYSTEM VALUE
VALUES (1801, 'usertable', 10, 1, 100000, 'scrambled', 0, 100, 'user', 1, 'regress_refuse_other', 'stopped'),
       (1802, 'plain', 10, 1, 100000, 'scrambled', 0, 100, 'user', 1, current_user::regrole, 'running'),
       (1803, 'usertable', 10, 1, 100000, 'scrambled', 0, 100, 'user', 1, current_user::regrole, 'done');
SELECT petagen.stop(424242);
SET ROLE regress_refuse_op;
SELECT petagen.stop(1801);
SELECT petagen.resume(1801);
RESET ROLE;
SELECT petagen.start(10, 1, 'plain');
SELECT petagen.resume(1803);

-- A read-only transaction.
BEGIN READ ONLY;
SELECT petagen.start(10, 1, 'usertable');
ROLLBACK;

-- bench(): a missing table, a table with no job and no rows => ..., an
-- unknown kind and distribution, a zipfian constant out of range.
SELECT count(*) AS runs_before FROM petagen.bench_results \gset
SELECT * FROM petagen.bench('select', 1, '1 s', "table" => 'missing');
SELECT * FROM petagen.bench('select', 1, '1 s', "table" => 'never_loaded');
SELECT * FROM petagen.bench('scan', 1, '1 s', "table" => 'usertable', rows => 10);
SELECT * FROM petagen.bench('select', 1, '1 s', "table" => 'usertable', rows => 10,
                            distribution => 'normal');
SELECT * FROM petagen.bench('select', 1, '1 s', "table" => 'usertable', rows => 10,
                            distribution => 'zipfian', zipfian_constant => 1);

-- None of the refusals left a job row of its own or a run.
\set VERBOSITY terse
SELECT job, state, run FROM petagen.jobs ORDER BY job;
SELECT count(*) - :runs_before AS new_runs FROM petagen.bench_results;

SET client_min_messages = warning;
DELETE FROM petagen.jobs WHERE job IN (1801, 1802, 1803);
DROP SCHEMA refuse18 CASCADE;
REVOKE ALL ON SCHEMA petagen FROM regress_refuse_outsider;
REVOKE EXECUTE ON FUNCTION petagen.start FROM regress_refuse_outsider;
DROP ROLE regress_refuse_op;
DROP ROLE regress_refuse_other;
DROP ROLE regress_refuse_outsider;
RESET client_min_messages;
