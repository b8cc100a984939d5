-- petagen 0.1 -> 0.2.  Every change to petagen--0.2.sql since 0.1 appears
-- here too, so that ALTER EXTENSION petagen UPDATE gives what a fresh 0.2 has.
\echo Use "ALTER EXTENSION petagen UPDATE TO '0.2'" to load this file. \quit

-- The job catalog is written only by petagen's functions (as its owner):
-- operators keep SELECT, lose every write, and no longer draw bench ids.
REVOKE INSERT, UPDATE, DELETE ON @extschema@.jobs, @extschema@.chunks,
    @extschema@.progress_log, @extschema@.chunk_intents, @extschema@.job_indexes,
    @extschema@.bench_results FROM petagen_operator;
REVOKE USAGE ON SEQUENCE @extschema@.bench_results_id_seq FROM petagen_operator;
