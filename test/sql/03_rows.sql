-- petagen.rows(): shapes, determinism, chunk independence, routing.
SELECT petagen.create_table('usertable');

-- Fixed rows: the same bytes on every machine and run.
SELECT ycsb_key, field0, md5(field9) AS field9_md5
FROM petagen.rows(NULL::usertable, 0, 3, keys => 'ordered');
SELECT ycsb_key, left(field3, 20) AS field3
FROM petagen.rows(NULL::usertable, 1000000, 2, seed => 7);

-- Every field is 100 printable characters by default, all fields differ.
SELECT count(*) AS rows,
       bool_and(length(field0) = 100 AND length(field9) = 100) AS length_100,
       bool_and(field0 ~ '^[0-o]+$' AND field9 ~ '^[0-o]+$') AS printable,
       count(DISTINCT field0) AS distinct_field0,
       bool_and(field0 <> field1) AS fields_differ
FROM petagen.rows(NULL::usertable, 0, 1000);

-- Determinism and chunk independence: rows(0, 10) = rows(0, 5) + rows(5, 5).
SELECT (SELECT md5(string_agg(t::text, '|' ORDER BY ycsb_key)) FROM petagen.rows(NULL::usertable, 0, 10) t) =
       (SELECT md5(string_agg(t::text, '|' ORDER BY ycsb_key))
        FROM (SELECT * FROM petagen.rows(NULL::usertable, 0, 5)
              UNION ALL SELECT * FROM petagen.rows(NULL::usertable, 5, 5)) t) AS chunk_independent;

-- The seed changes fields, never keys; the key mode changes keys, never fields.
SELECT bool_and(a.ycsb_key = b.ycsb_key) AS same_keys, bool_and(a.field0 <> b.field0) AS other_fields
FROM petagen.rows(NULL::usertable, 0, 100) WITH ORDINALITY a
JOIN petagen.rows(NULL::usertable, 0, 100, seed => 1) WITH ORDINALITY b USING (ordinality);
SELECT bool_and(a.ycsb_key <> b.ycsb_key) AS other_keys, bool_and(a.field5 = b.field5) AS same_fields
FROM petagen.rows(NULL::usertable, 1, 100, keys => 'ycsb') WITH ORDINALITY a
JOIN petagen.rows(NULL::usertable, 1, 100, keys => 'go-ycsb') WITH ORDINALITY b USING (ordinality);

-- Empty range, and the last key number of the key space.
SELECT count(*) FROM petagen.rows(NULL::usertable, 0, 0);
SELECT ycsb_key FROM petagen.rows(NULL::usertable, 9223372036854775807, 1, keys => 'ordered');
-- 8e11 and friends are accepted as written.
SELECT ycsb_key FROM petagen.rows(NULL::usertable, 8e11, 1.0, keys => 'ordered');

-- Rows inserted through the parent land in the leaf satisfies_hash_partition() names.
INSERT INTO usertable SELECT * FROM petagen.rows(NULL::usertable, 0, 20000);
SELECT tableoid::regclass AS leaf, count(*),
       bool_and(satisfies_hash_partition('usertable'::regclass, 8,
                substr(tableoid::regclass::text, 12)::int, ycsb_key)) AS right_leaf
FROM usertable GROUP BY 1 ORDER BY 1;
SELECT count(*) = 20000 AS all_rows, count(DISTINCT ycsb_key) = 20000 AS unique_keys FROM usertable;

-- text columns, other field counts, column order, dropped columns.
-- Shapes create_table() does not make: fields out of order, a dropped
-- column, no field at all.
CREATE TABLE t_text (field1 text, ycsb_key text, field0 text);
SELECT ycsb_key, length(field0), length(field1) FROM petagen.rows(NULL::t_text, 0, 2, fieldlength => 7);
-- field i of a three-field table equals field i of the ten-field table
SELECT bool_and(a.field0 = left(b.field0, 7) AND a.field1 = left(b.field1, 7)) AS prefix_of_longer
FROM petagen.rows(NULL::t_text, 0, 50, fieldlength => 7) a
JOIN petagen.rows(NULL::usertable, 0, 50) b USING (ycsb_key);
CREATE TABLE t_one (ycsb_key varchar(30), dropme int, field0 varchar(5));
ALTER TABLE t_one DROP COLUMN dropme;
SELECT * FROM petagen.rows(NULL::t_one, 10, 3, keys => 'ordered', fieldlength => 5, zeropadding => 6, prefix => 'k');
CREATE TABLE t_keyonly (ycsb_key text);
SELECT * FROM petagen.rows(NULL::t_keyonly, 0, 2, keys => 'ordered');
