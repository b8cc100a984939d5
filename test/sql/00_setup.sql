-- Helpers the other files share: pg_regress runs every file, in order, in
-- the one database contrib_regression, so what this file defines is there
-- for them (ONLY_REGRESS in scripts/test.sh always runs this file first).
--
-- Test tables come from petagen.create_table() (the canonical, hash
-- partitioned table) or, when a test needs a plain table of that shape,
-- from ycsb_table(): create_table()'s columns (a varchar(64) primary key
-- ycsb_key, fields varchar(100) field0 ..) without partitions; name may be
-- schema-qualified (it is written into the statement as it is).  Tables of
-- any other shape are written out where they are used, with the reason.
CREATE FUNCTION public.ycsb_table(name text, fields integer DEFAULT 1)
RETURNS regclass LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('CREATE TABLE %s (ycsb_key varchar(64) PRIMARY KEY%s)', name,
                   (SELECT string_agg(format(', field%s varchar(100)', i), '' ORDER BY i)
                    FROM generate_series(0, fields - 1) i));
    RETURN name::regclass;
END
$$;
