-- petagen.leaf(): the leaf PostgreSQL itself routes a key to, for every table shape.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
RESET client_min_messages;

-- The SQLSTATE of a statement's error, or 'no error'.
CREATE FUNCTION pg_temp.sqlstate(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE stmt;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END $$;

-- 8-way hash on a varchar(64) key: usertable's shape.  The trees after it
-- are written out: each has a shape create_table() does not make (levels,
-- list and range bounds, defaults, foreign leaves), the point of its case.
SELECT petagen.create_table('r_hash', 8, fields => 1);
INSERT INTO r_hash SELECT * FROM petagen.rows(NULL::r_hash, 0, 5000);
SELECT count(*) AS rows, count(DISTINCT tableoid) AS leaves,
       count(*) FILTER (WHERE petagen.leaf('r_hash', ycsb_key) IS DISTINCT FROM tableoid::regclass) AS misrouted
FROM r_hash;
SELECT k, petagen.leaf('r_hash', k) AS leaf,
       satisfies_hash_partition('r_hash'::regclass, 8,
           substr(petagen.leaf('r_hash', k)::text, 9)::int, k::varchar) AS oracle_agrees
FROM unnest(ARRAY['user0', 'user1', 'user2', 'user3', 'user4', 'user12345678901234567890', '']) k;

-- Two-level hash of hash on a text key: moduli 3, then 4 below one partition
-- and mixed moduli 2 and 4 below another, whose key column is at another
-- attnum (attached with a different column order and a dropped column).
CREATE TABLE r_hh (ycsb_key text, field0 text) PARTITION BY HASH (ycsb_key);
CREATE TABLE r_hh_0 PARTITION OF r_hh FOR VALUES WITH (MODULUS 3, REMAINDER 0)
    PARTITION BY HASH (ycsb_key);
SELECT format('CREATE TABLE r_hh_0_%s PARTITION OF r_hh_0 FOR VALUES WITH (MODULUS 4, REMAINDER %s)', i, i)
FROM generate_series(0, 3) i \gexec
CREATE TABLE r_hh_1 PARTITION OF r_hh FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE r_hh_2 (dropme int, field0 text, ycsb_key text) PARTITION BY HASH (ycsb_key);
ALTER TABLE r_hh_2 DROP COLUMN dropme;
CREATE TABLE r_hh_2_a PARTITION OF r_hh_2 FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE r_hh_2_b PARTITION OF r_hh_2 FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE r_hh_2_c PARTITION OF r_hh_2 FOR VALUES WITH (MODULUS 4, REMAINDER 3);
ALTER TABLE r_hh ATTACH PARTITION r_hh_2 FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO r_hh SELECT * FROM petagen.rows(NULL::r_hh, 0, 5000, keys => 'ycsb', fieldlength => 4);
SELECT count(*) AS rows, count(DISTINCT tableoid) AS leaves,
       count(*) FILTER (WHERE petagen.leaf('r_hh', ycsb_key) IS DISTINCT FROM tableoid::regclass) AS misrouted
FROM r_hh;
SELECT k, petagen.leaf('r_hh', k) AS leaf
FROM unnest(ARRAY['user0', 'user1', 'user2', 'user3', 'user4', 'user5']) k;

-- List partitions with a default partition that is itself hash partitioned.
CREATE TABLE r_list (ycsb_key varchar(64), field0 varchar(100)) PARTITION BY LIST (ycsb_key);
CREATE TABLE r_list_a PARTITION OF r_list FOR VALUES IN ('user1', 'user2', 'user3');
CREATE TABLE r_list_b PARTITION OF r_list FOR VALUES IN ('user42', 'user4999');
CREATE TABLE r_list_def PARTITION OF r_list DEFAULT PARTITION BY HASH (ycsb_key);
CREATE TABLE r_list_def_0 PARTITION OF r_list_def FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE r_list_def_1 PARTITION OF r_list_def FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO r_list SELECT * FROM petagen.rows(NULL::r_list, 0, 5000, keys => 'ordered');
SELECT tableoid::regclass AS leaf, count(*),
       count(*) FILTER (WHERE petagen.leaf('r_list', ycsb_key) IS DISTINCT FROM tableoid::regclass) AS misrouted
FROM r_list GROUP BY 1 ORDER BY 1;
SELECT k, petagen.leaf('r_list', k) AS leaf
FROM unnest(ARRAY['user1', 'user3', 'user42', 'user4999', 'user5000', 'user']) k;

-- List without a default: NULL when no partition accepts the key.
CREATE TABLE r_list_nd (ycsb_key text, field0 text) PARTITION BY LIST (ycsb_key);
CREATE TABLE r_list_nd_a PARTITION OF r_list_nd FOR VALUES IN ('user1', NULL);
SELECT petagen.leaf('r_list_nd', 'user1') AS user1,
       petagen.leaf('r_list_nd', 'user2') IS NULL AS user2_is_null,
       petagen.leaf('r_list_nd', NULL) IS NULL AS null_key_is_null;
INSERT INTO r_list_nd VALUES ('user2', 'x');
-- Hash with a remainder no partition takes, and list or range with only a default.
CREATE TABLE r_hash_gap (ycsb_key text, field0 text) PARTITION BY HASH (ycsb_key);
CREATE TABLE r_hash_gap_0 PARTITION OF r_hash_gap FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE r_hash_gap_1 PARTITION OF r_hash_gap FOR VALUES WITH (MODULUS 2, REMAINDER 1);
SELECT count(*) FILTER (WHERE petagen.leaf('r_hash_gap', k) IS NULL) AS no_leaf,
       count(*) FILTER (WHERE petagen.leaf('r_hash_gap', k) IS DISTINCT FROM
           CASE WHEN satisfies_hash_partition('r_hash_gap'::regclass, 4, 0, k) THEN 'r_hash_gap_0'
                WHEN satisfies_hash_partition('r_hash_gap'::regclass, 2, 1, k) THEN 'r_hash_gap_1'
           END::regclass) AS misrouted
FROM generate_series(0, 4999) s, petagen.key(s) k;
CREATE TABLE r_list_dd (ycsb_key text, field0 text) PARTITION BY LIST (ycsb_key);
CREATE TABLE r_list_dd_def PARTITION OF r_list_dd DEFAULT;
CREATE TABLE r_range_dd (ycsb_key text, field0 text) PARTITION BY RANGE (ycsb_key);
CREATE TABLE r_range_dd_def PARTITION OF r_range_dd DEFAULT;
SELECT petagen.leaf('r_list_dd', 'user1') AS list_default_only,
       petagen.leaf('r_range_dd', 'user1') AS range_default_only;

-- Range partitions with MINVALUE, MAXVALUE, a gap and a default, C collation.
CREATE TABLE r_range (ycsb_key text COLLATE "C", field0 text) PARTITION BY RANGE (ycsb_key);
CREATE TABLE r_range_lo PARTITION OF r_range FOR VALUES FROM (MINVALUE) TO ('user2');
CREATE TABLE r_range_mid PARTITION OF r_range FOR VALUES FROM ('user2') TO ('user4');
CREATE TABLE r_range_hi PARTITION OF r_range FOR VALUES FROM ('user6') TO (MAXVALUE);
CREATE TABLE r_range_def PARTITION OF r_range DEFAULT;
INSERT INTO r_range SELECT * FROM petagen.rows(NULL::r_range, 0, 5000, fieldlength => 4);
SELECT tableoid::regclass AS leaf, count(*),
       count(*) FILTER (WHERE petagen.leaf('r_range', ycsb_key) IS DISTINCT FROM tableoid::regclass) AS misrouted
FROM r_range GROUP BY 1 ORDER BY 1;
SELECT k, petagen.leaf('r_range', k) AS leaf
FROM unnest(ARRAY['', 'user1', 'user2', 'user3999', 'user4', 'user5', 'user6', 'user9', 'zzz']) k;

-- A plain table is its own only leaf.
SELECT ycsb_table('r_plain');
SELECT petagen.leaf('r_plain', 'user1') AS leaf;

-- A hash partitioned table with a foreign leaf on a server that does not
-- exist: routing never connects.
CREATE SERVER r_nowhere FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host 'nonexistent.invalid', dbname 'nowhere');
CREATE TABLE r_mixed (ycsb_key varchar(64), field0 varchar(100)) PARTITION BY HASH (ycsb_key);
CREATE TABLE r_mixed_0 PARTITION OF r_mixed FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE FOREIGN TABLE r_mixed_1 PARTITION OF r_mixed FOR VALUES WITH (MODULUS 2, REMAINDER 1)
    SERVER r_nowhere;
SELECT count(*) AS keys,
       count(*) FILTER (WHERE petagen.leaf('r_mixed', ycsb_key) = 'r_mixed_1'::regclass) AS foreign_keys,
       count(*) FILTER (WHERE petagen.leaf('r_mixed', ycsb_key) IS DISTINCT FROM
           CASE WHEN satisfies_hash_partition('r_mixed'::regclass, 2, 0, ycsb_key)
                THEN 'r_mixed_0' ELSE 'r_mixed_1' END::regclass) AS misrouted
FROM petagen.rows(NULL::r_mixed, 0, 5000);
INSERT INTO r_mixed SELECT * FROM petagen.rows(NULL::r_mixed, 0, 5000) r
WHERE satisfies_hash_partition('r_mixed'::regclass, 2, 0, r.ycsb_key);
SELECT count(*) AS local_rows,
       count(*) FILTER (WHERE petagen.leaf('r_mixed', ycsb_key) IS DISTINCT FROM tableoid::regclass) AS misrouted
FROM r_mixed_0;
CREATE FOREIGN TABLE r_foreign (ycsb_key text, field0 text) SERVER r_nowhere;
SELECT petagen.leaf('r_foreign', 'user1') AS leaf;

-- route_open() locks every partitioned table and every leaf until transaction end.
CREATE TEMP TABLE r_tree AS SELECT relid FROM pg_partition_tree('r_hh');
BEGIN;
SELECT petagen.leaf('r_hh', 'user1') AS leaf;
SELECT count(*) AS relations,
       count(l.relation) AS locked
FROM r_tree t LEFT JOIN pg_locks l
  ON l.relation = t.relid AND l.pid = pg_backend_pid() AND l.mode = 'AccessShareLock' AND l.granted;
COMMIT;

-- Errors: not a table, a partition key that is not the column ycsb_key, no partitions.
CREATE VIEW r_view AS SELECT * FROM r_plain;
CREATE SEQUENCE r_seq;
CREATE TABLE r_expr (ycsb_key text, field0 text) PARTITION BY HASH (lower(ycsb_key));
CREATE TABLE r_expr_0 PARTITION OF r_expr FOR VALUES WITH (MODULUS 1, REMAINDER 0);
CREATE TABLE r_other (ycsb_key text, field0 text) PARTITION BY LIST (field0);
CREATE TABLE r_multi (ycsb_key text, field0 text) PARTITION BY RANGE (ycsb_key, field0);
CREATE TABLE r_deep (ycsb_key text, field0 text) PARTITION BY HASH (ycsb_key);
CREATE TABLE r_deep_0 PARTITION OF r_deep FOR VALUES WITH (MODULUS 1, REMAINDER 0)
    PARTITION BY RANGE (field0);
CREATE TABLE r_empty (ycsb_key text, field0 text) PARTITION BY HASH (ycsb_key);
CREATE TABLE r_num (ycsb_key numeric, field0 text) PARTITION BY HASH (ycsb_key);
SELECT petagen.leaf('r_view', 'user1');
SELECT petagen.leaf('r_hash_pkey', 'user1');
SELECT petagen.leaf('r_expr', 'user1');
SELECT petagen.leaf('r_other', 'user1');
SELECT petagen.leaf('r_multi', 'user1');
SELECT petagen.leaf('r_deep', 'user1');
SELECT petagen.leaf('r_empty', 'user1');
SELECT petagen.leaf('r_num', 'user1');
SELECT t AS "table", pg_temp.sqlstate(format('SELECT petagen.leaf(%L, %L)', t, 'user1')) AS sqlstate
FROM unnest(ARRAY['r_view', 'r_seq', 'r_hash_pkey', 'r_expr', 'r_other', 'r_multi', 'r_deep', 'r_empty', 'r_num', 'r_plain']) t;
