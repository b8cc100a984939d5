-- The installed package works: the extension creates, a small load runs to
-- the end with background workers, and every key is present exactly once.
\set ON_ERROR_STOP on
CREATE EXTENSION petagen;
SELECT petagen.create_table();
SELECT petagen.start(1000, workers => 2) AS job \gset
SELECT petagen.wait(:job) AS state \gset
SELECT bool_and(ok) AS verified FROM petagen.verify(:job) \gset
SELECT count(*) AS loaded FROM usertable \gset
SELECT :'state' = 'done' AND :'verified' AND :loaded = 1000 AS smoke_ok \gset
\if :smoke_ok
\echo 'petagen smoke test: 1000 rows loaded and verified'
\else
\echo 'petagen smoke test FAILED: state' :'state' 'verified' :'verified' 'rows' :loaded
DO $$BEGIN RAISE EXCEPTION 'petagen smoke test failed'; END$$;
\endif
