-- The public API is documented in the catalog: every function of petagen has
-- a COMMENT (\df+ and psql's \dd show it), except the internal ones, named
-- with a leading underscore (the charts' _svg_*() drawing helpers), which
-- PUBLIC may not run.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
RESET client_min_messages;

CREATE TEMP VIEW petagen_functions AS
SELECT p.oid, p.proname, obj_description(p.oid, 'pg_proc') AS comment
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension x ON x.oid = d.refobjid AND x.extname = 'petagen';

-- Public functions without a comment: none.
SELECT oid::regprocedure AS undocumented
FROM petagen_functions WHERE proname !~ '^_' AND comment IS NULL
ORDER BY oid::regprocedure::text;

-- Internal functions PUBLIC may run: none.
SELECT oid::regprocedure AS internal_for_public
FROM petagen_functions
WHERE proname ~ '^_' AND has_function_privilege('public', oid, 'EXECUTE')
ORDER BY oid::regprocedure::text;

-- How many of each, so that neither list above is empty by accident.
SELECT proname ~ '^_' AS internal, count(*) AS functions,
       count(comment) AS with_comment
FROM petagen_functions GROUP BY 1 ORDER BY 1;
