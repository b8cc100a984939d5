-- Bad input to petagen.bench() and petagen.bench_sweep(): every case ends in
-- its own error with the right errcode, records no run and starts no
-- worker.  Then one tiny run of each, to see what a run records.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
DROP ROLE IF EXISTS regress_bench_op;
DROP ROLE IF EXISTS regress_bench_outsider;
DROP ROLE IF EXISTS regress_bench_nologin;
RESET client_min_messages;
CREATE SCHEMA b09;
SET search_path = b09, public;

CREATE ROLE regress_bench_op IN ROLE petagen_operator;
CREATE ROLE regress_bench_outsider;
CREATE ROLE regress_bench_nologin IN ROLE petagen_operator;
GRANT USAGE ON SCHEMA b09, petagen TO regress_bench_op, regress_bench_outsider, regress_bench_nologin;

ALTER ROLE regress_bench_op LOGIN;

SELECT petagen.create_table('t', 2, fields => 2);
SELECT keys FROM petagen.load('t', 0, 1000);
GRANT SELECT ON t, t_p0, t_p1 TO regress_bench_op;
SELECT ycsb_table('other');
-- A list tree whose leaves hold no key, a tree of foreign leaves only.
CREATE TABLE listed (ycsb_key text, field0 text) PARTITION BY LIST (ycsb_key);
CREATE TABLE listed_none PARTITION OF listed FOR VALUES IN ('no-such-key');
CREATE TABLE listed_rest PARTITION OF listed DEFAULT;
CREATE SERVER nowhere FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host 'petagen-no-such-host.invalid', port '1');
CREATE TABLE remote_only (ycsb_key text, field0 text) PARTITION BY HASH (ycsb_key);
CREATE FOREIGN TABLE remote_only_0 PARTITION OF remote_only
    FOR VALUES WITH (MODULUS 1, REMAINDER 0) SERVER nowhere;

SELECT plan(53);

-- kind
SELECT throws_ok($$SELECT * FROM petagen.bench('delete', "table" => 'b09.t', rows => 1000)$$,
    '22023', 'unknown benchmark kind "delete"', 'unknown kind');
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb-g', "table" => 'b09.t', rows => 1000)$$,
    '22023', 'unknown benchmark kind "ycsb-g"', 'unknown YCSB workload');
SELECT throws_ok($$SELECT * FROM petagen.bench(NULL, "table" => 'b09.t', rows => 1000)$$,
    '22004', 'argument "kind" of petagen.bench() must not be null', 'kind NULL');
-- workers
SELECT throws_ok($$SELECT * FROM petagen.bench('select', 0, "table" => 'b09.t', rows => 1000)$$,
    '22023', 'workers must be between 1 and 128, not 0', 'workers 0');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', -2, "table" => 'b09.t', rows => 1000)$$,
    '22023', 'workers must be between 1 and 128, not -2', 'workers negative');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', 100, "table" => 'b09.t', rows => 1000)$$,
    '53400', 'not enough free background worker slots for 100 workers', 'more workers than free slots');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', NULL, "table" => 'b09.t', rows => 1000)$$,
    '22004', 'argument "workers" of petagen.bench() must not be null', 'workers NULL');
-- duration and warm-up
SELECT throws_ok($$SELECT * FROM petagen.bench('select', 1, '0 s', "table" => 'b09.t', rows => 1000)$$,
    '22023', 'duration must be positive', 'duration 0');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', 1, '-1 s', "table" => 'b09.t', rows => 1000)$$,
    '22023', 'duration must be positive', 'duration negative');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', 1, '1 s', '-1 s', "table" => 'b09.t', rows => 1000)$$,
    '22023', 'warmup must not be negative', 'warmup negative');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', 1, '1 s', "table" => 'b09.t', rows => 1000, operationcount => 10)$$,
    '22023', 'duration and operationcount cannot both be given', 'duration and operationcount');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', 1, "table" => 'b09.t', rows => 1000, operationcount => 0)$$,
    '22023', 'operationcount must be at least 1, not 0', 'operationcount 0');
-- YCSB's proportions: kind ycsb only, each in 0 .. 1, summing to 1
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb', "table" => 'b09.t', rows => 1000, readproportion => 0.5, updateproportion => 0.4)$$,
    '22023', 'the operation proportions sum to 0.9, not 1', 'proportions sum to 0.9');
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb', "table" => 'b09.t', rows => 1000, scanproportion => 1)$$,
    '22023', 'the operation proportions sum to 2, not 1', 'a proportion not given takes YCSB''s default');
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb', "table" => 'b09.t', rows => 1000, readproportion => 1.5, updateproportion => -0.5)$$,
    '22023', 'readproportion must be between 0 and 1, not 1.5', 'proportion above 1');
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb-a', "table" => 'b09.t', rows => 1000, readmodifywriteproportion => 0.5)$$,
    '22023', 'readmodifywriteproportion applies only to kind ycsb, not to the preset "ycsb-a"', 'proportion with a preset');
-- scan shape
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb-e', "table" => 'b09.t', rows => 1000, minscanlength => 10, maxscanlength => 5)$$,
    '22023', 'scan lengths 10 .. 5 are out of range', 'minscanlength above maxscanlength');
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb-e', "table" => 'b09.t', rows => 1000, minscanlength => 0)$$,
    '22023', 'scan lengths 0 .. 100 are out of range', 'minscanlength 0');
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb-e', "table" => 'b09.t', rows => 1000, scanlengthdistribution => 'latest')$$,
    '22023', 'unknown scanlengthdistribution "latest"', 'unknown scanlengthdistribution');
-- table and target
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b09.nosuch', rows => 1000)$$,
    '42P01', 'relation "b09.nosuch" does not exist', 'no such table');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b09.t', target => '{b09.t}', rows => 1000)$$,
    '22023', '"b09.t" is not a leaf partition of "t"', 'target is the table itself');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b09.t', target => '{b09.other}', rows => 1000)$$,
    '22023', '"b09.other" is not a leaf partition of "t"', 'target is another table');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b09.t', target => '{b09.t_9}', rows => 1000)$$,
    '42P01', 'relation "b09.t_9" does not exist', 'target does not exist');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b09.t', target => '{}', rows => 1000)$$,
    '22023', 'target must name at least one leaf partition', 'target empty');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b09.t', target => '{b09.t_p0,NULL}', rows => 1000)$$,
    '22004', 'target must not contain nulls', 'target with a NULL');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b09.remote_only', rows => 1000)$$,
    '22023', '"remote_only" has no local leaf on this node', 'no local leaf and no target');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b09.listed', target => '{b09.listed_none}', rows => 1000)$$,
    '22023', 'no key of the key space 0 .. 999 lives in the target leaves', 'target holds no key of the key space');
-- A hint's SQL names the table schema-qualified and quoted: it runs as given
-- for a mixed-case name.
CREATE TABLE "Odd Table" (ycsb_key text, field0 text) PARTITION BY HASH (ycsb_key);
CREATE TABLE "Odd Table_p0" PARTITION OF "Odd Table" FOR VALUES WITH (MODULUS 1, REMAINDER 0);
SELECT * FROM petagen.bench('select', "table" => 'b09."Odd Table"', target => '{b09.t_p0}', rows => 1000);
SELECT relid FROM pg_partition_tree('b09."Odd Table"') WHERE isleaf;
-- key space
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b09.t')$$,
    '55000', 'no key space is known for table "t"', 'no load job and no rows');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b09.t', rows => 0)$$,
    '22003', 'rows must be at least 1', 'rows 0');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b09.t', rows => -5)$$,
    '22003', 'rows must be between 0 and 9223372036854775807, not -5', 'rows negative');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b09.t', rows => 1000, keys => 'sorted')$$,
    '22023', NULL, 'unknown key mode');
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb-d', "table" => 'b09.t', rows => 1000, fieldlength => 500)$$,
    '22001', 'fieldlength 500 is longer than the field columns of "t" allow', 'inserted rows would not fit');
-- distribution
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b09.t', rows => 1000, distribution => 'normal')$$,
    '22023', 'unknown distribution "normal"', 'unknown distribution');
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb-a', "table" => 'b09.t', rows => 1000, zipfian_constant => 1)$$,
    '22023', 'zipfian_constant must be greater than 0 and less than 1, not 1', 'zipfian constant 1');
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb-a', "table" => 'b09.t', rows => 1000, zipfian_constant => -0.5)$$,
    '22023', 'zipfian_constant must be greater than 0 and less than 1, not -0.5', 'zipfian constant negative');
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb-a', "table" => 'b09.t', rows => 1000, zipfian_constant => NULL)$$,
    '22004', 'argument "zipfian_constant" of petagen.bench() must not be null', 'zipfian constant NULL');
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb', "table" => 'b09.t', rows => 1000, distribution => 'hotspot', hotspotdatafraction => 1.2)$$,
    '22023', 'hotspotdatafraction must be between 0 and 1, not 1.2', 'hotspotdatafraction above 1');
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb', "table" => 'b09.t', rows => 1000, distribution => 'hotspot', hotspotopnfraction => -0.1)$$,
    '22023', 'hotspotopnfraction must be between 0 and 1, not -0.1', 'hotspotopnfraction negative');
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb', "table" => 'b09.t', rows => 1000, distribution => 'exponential', exponentialpercentile => 100)$$,
    '22023', 'exponentialpercentile must be greater than 0 and less than 100, and exponentialfrac greater than 0 and at most 1, not 100 and 0.857143', 'exponentialpercentile 100');
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb', "table" => 'b09.t', rows => 1000, distribution => 'exponential', exponentialfrac => 0)$$,
    '22023', 'exponentialpercentile must be greater than 0 and less than 100, and exponentialfrac greater than 0 and at most 1, not 95 and 0', 'exponentialfrac 0');
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb', "table" => 'b09.t', rows => 1000, distribution => 'hotspot', hotspotopnfraction => NULL)$$,
    '22004', 'argument "hotspotopnfraction" of petagen.bench() must not be null', 'hotspotopnfraction NULL');
-- sweep
SELECT throws_ok($$SELECT * FROM petagen.bench_sweep('select', '{}', "table" => 'b09.t', rows => 1000)$$,
    '22023', 'workers must list at least one worker count', 'sweep of no worker counts');
SELECT throws_ok($$SELECT * FROM petagen.bench_sweep('select', '{1,0}', "table" => 'b09.t', rows => 1000)$$,
    '22023', 'workers must be between 1 and 128, not 0', 'sweep with 0 workers');
SELECT throws_ok($$SELECT * FROM petagen.bench_sweep('select', '{1,100}', "table" => 'b09.t', rows => 1000)$$,
    '53400', 'not enough free background worker slots for 100 workers', 'sweep past the free slots');
-- privileges
SET ROLE regress_bench_outsider;
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b09.t', rows => 1000)$$,
    '42501', 'permission denied for function bench', 'bench() is for operators');
RESET ROLE;
SET ROLE regress_bench_op;
SELECT throws_ok($$SELECT * FROM petagen.bench('update', "table" => 'b09.t', rows => 1000)$$,
    '42501', 'permission denied for table t_p0', 'update needs UPDATE on the leaves');
SELECT throws_ok($$SELECT * FROM petagen.bench('ycsb-d', "table" => 'b09.t', rows => 1000)$$,
    '42501', 'permission denied for table t_p0', 'ycsb-d needs INSERT on the leaves');
RESET ROLE;
SET ROLE regress_bench_nologin;
-- Before PostgreSQL 17 workers cannot connect as a role without LOGIN; from
-- 17 on they can, and the table's privileges answer (TAP 016_nologin).
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b09.t', rows => 1000)$$,
    '42501', CASE WHEN current_setting('server_version_num')::int < 170000
                  THEN 'role "regress_bench_nologin" cannot log in, so petagen workers cannot run as it'
                  ELSE 'permission denied for table t_p0' END,
    'a role without LOGIN: refused before 17, where workers could not connect as it');
RESET ROLE;

-- start_at: not in the past, not more than an hour ahead (the messages
-- name the instants).
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b09.t', rows => 1000,
                     start_at => clock_timestamp() - interval '1 s')$$,
    '22023', NULL, 'start_at in the past');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b09.t', rows => 1000,
                     start_at => clock_timestamp() + interval '2 hours')$$,
    '22023', NULL, 'start_at two hours ahead');

-- Nothing was recorded or started.
SELECT is((SELECT count(*) FROM petagen.bench_results), 0::bigint, 'no run recorded');
SELECT is((SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'petagen bench worker'),
    0::bigint, 'no benchmark worker running');
SELECT is((SELECT count(*) FROM b09.t), 1000::bigint, 'the table is untouched');

SELECT * FROM finish();

-- A tiny run (a leaf named twice is one target), and what it records (only
-- values that do not depend on timing).
SELECT kind, workers, operations > 0 AS ran,
       errors, not_found, p50_us <= p99_us AND p99_us <= max_us AS ordered_percentiles
FROM petagen.bench('select', 1, '0.3 s', "table" => 'b09.t', target => '{b09.t_p1,b09.t_p1}', rows => 1000,
                   label => 'tiny');
SELECT kind, workers, sweep IS NULL AS no_sweep, target, target_node, distribution,
       options - 'seconds' AS options, duration, warmup, "table", label,
       operations = reads AS all_reads
FROM petagen.bench_results ORDER BY id;
-- The settings it ran under.
SELECT settings->>'server_version' = current_setting('server_version') AS server_version,
       settings->>'shared_buffers' = current_setting('shared_buffers') AS shared_buffers,
       settings->>'synchronous_commit' = current_setting('synchronous_commit') AS synchronous_commit,
       settings->>'wal_level' = current_setting('wal_level') AS wal_level,
       (settings->>'max_connections')::int = current_setting('max_connections')::int AS max_connections,
       (settings->>'cores')::int > 0 AS cores
FROM petagen.bench_results ORDER BY id;
-- Figures to their meaningful precision: tps to 0.1, latencies to 3 digits.
SELECT round(tps::numeric, 1) = tps::numeric AS tps_to_a_tenth,
       bool_and(length(btrim(translate(l::numeric::text, '.-', ''), '0')) <= 3) AS latencies_3_digits
FROM petagen.bench_results, unnest(ARRAY[p50_us, p95_us, p99_us, p999_us, max_us]) AS l
GROUP BY tps;

-- A sweep: a row per worker count, all carrying the first run's id as
-- their sweep id.
SELECT workers, operations > 0 AS ran, errors
FROM petagen.bench_sweep('ycsb-c', '{1,2}', '0.2 s', "table" => 'b09.t', rows => 1000);
SELECT workers, sweep = min(id) OVER () AS same_sweep, distribution
FROM petagen.bench_results WHERE kind = 'ycsb-c' ORDER BY id;

-- Clean up: later tests create objects of the same names.
SET client_min_messages = warning;
DROP SCHEMA b09 CASCADE;
DROP SERVER nowhere CASCADE;
REVOKE USAGE ON SCHEMA petagen FROM regress_bench_op, regress_bench_outsider, regress_bench_nologin;
DROP ROLE regress_bench_op, regress_bench_outsider, regress_bench_nologin;
RESET client_min_messages;
