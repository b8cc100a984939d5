-- bench(..., dataintegrity => true), YCSB's dataintegrity: every read checks
-- the fields of the row against the generator's and counts the rows that
-- differ in bench_results.integrity_errors, warning when there are any; with
-- it, updates write the generator's values, so a table benchmarked with
-- updates still matches petagen.rows().  Without it integrity_errors is
-- null.  A scan whose start key is missing counts as not found.  One worker
-- and operationcount make each count exact.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
RESET client_min_messages;
CREATE SCHEMA b34;
SET search_path = b34, public;

SELECT petagen.create_table('t', 2, fields => 3, fieldlength => 20);
SELECT keys FROM petagen.load('t', 0, 500, fieldlength => 20, seed => 5);

-- The table as the generator makes it: how many rows differ.
CREATE FUNCTION differing() RETURNS bigint LANGUAGE sql AS $$
    SELECT count(*) FROM t FULL JOIN petagen.rows(NULL::t, 0, 500, fieldlength => 20, seed => 5) AS g
        USING (ycsb_key)
     WHERE (t.field0, t.field1, t.field2) IS DISTINCT FROM (g.field0, g.field1, g.field2)
$$;

-- A fresh load: reads, scans and read-modify-writes find no mismatch, and
-- the updates leave every row as the generator makes it.
SELECT operations, not_found
  FROM petagen.bench('ycsb', 1, "table" => 't', operationcount => 400, rows => 500,
                     fieldlength => 20, seed => 5, readproportion => 0.4,
                     updateproportion => 0.3, scanproportion => 0.2,
                     readmodifywriteproportion => 0.1, maxscanlength => 5,
                     dataintegrity => true);
SELECT integrity_errors, options->>'dataintegrity' AS dataintegrity,
       updates > 0 AND scans > 0 AS updated_and_scanned
  FROM petagen.bench_results ORDER BY id DESC LIMIT 1;
SELECT differing() AS rows_differing_after_checked_updates;

-- Without dataintegrity: no check, integrity_errors null, updates write
-- values of their own.
SELECT operations FROM petagen.bench('update', 1, "table" => 't', operationcount => 50,
                                     rows => 500, fieldlength => 20, seed => 5);
SELECT integrity_errors IS NULL AS unchecked, options ? 'dataintegrity' AS flagged
  FROM petagen.bench_results ORDER BY id DESC LIMIT 1;
SELECT differing() > 0 AS unchecked_updates_change_values;

-- The warnings name the run's id: TAP 024_bench_integrity checks them.
SET client_min_messages = error;

-- Every row changed by someone else: each read counts once.
UPDATE t SET field1 = 'changed';
SELECT operations FROM petagen.bench('select', 1, "table" => 't', operationcount => 200,
                                     rows => 500, fieldlength => 20, seed => 5,
                                     dataintegrity => true);
SELECT integrity_errors FROM petagen.bench_results ORDER BY id DESC LIMIT 1;

-- Another seed than the load's: every row read differs.
TRUNCATE t;
SELECT keys FROM petagen.load('t', 0, 500, fieldlength => 20, seed => 5);
SELECT differing() AS rows_differing_after_reload;
SELECT operations FROM petagen.bench('select', 1, "table" => 't', operationcount => 100,
                                     rows => 500, fieldlength => 20, seed => 6,
                                     dataintegrity => true);
SELECT integrity_errors FROM petagen.bench_results ORDER BY id DESC LIMIT 1;

-- A scan-only run over an emptied table: every scan misses its start key.
TRUNCATE t;
SELECT operations, not_found FROM petagen.bench('ycsb', 1, "table" => 't', operationcount => 50,
                                                rows => 500, fieldlength => 20, readproportion => 0,
                                                updateproportion => 0, scanproportion => 1,
                                                maxscanlength => 3);

-- The argument is bench_sweep()'s too; a missing row is not found, no mismatch.
SELECT count(*) FROM petagen.bench_sweep('select', '{1}', "table" => 't', operationcount => 10,
                                         rows => 500, fieldlength => 20, seed => 5, dataintegrity => true);
SELECT integrity_errors FROM petagen.bench_results ORDER BY id DESC LIMIT 1;

RESET client_min_messages;
DROP SCHEMA b34 CASCADE;
