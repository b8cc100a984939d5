-- Who may execute each petagen function: the grants the role table of
-- docs/security.md ("Who may do what") lists, function by function.  PUBLIC is
-- any role given USAGE on schema petagen; superusers may run everything.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
RESET client_min_messages;

SELECT p.proname AS function, p.pronargs AS args,
       CASE WHEN has_function_privilege('public', p.oid, 'EXECUTE') THEN 'PUBLIC'
            ELSE concat_ws(', ',
                CASE WHEN has_function_privilege('petagen_operator', p.oid, 'EXECUTE') THEN 'petagen_operator' END,
                CASE WHEN has_function_privilege('pg_monitor', p.oid, 'EXECUTE') THEN 'pg_monitor' END)
       END AS execute
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension x ON x.oid = d.refobjid AND x.extname = 'petagen'
ORDER BY execute, p.proname, p.pronargs;

-- Schema USAGE, without which no function can be called.
SELECT r.rolname, has_schema_privilege(r.rolname, 'petagen', 'USAGE') AS usage
FROM (VALUES ('petagen_operator'), ('pg_monitor'), ('public')) AS r(rolname)
ORDER BY 1;
