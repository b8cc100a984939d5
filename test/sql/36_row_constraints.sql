-- Every row petagen writes is one an INSERT of the same values would have
-- accepted.  For each kind of constraint on a column INSERT fills (NOT
-- NULL with a default that is NULL or with none, a NOT NULL domain, a
-- domain CHECK through a NULL coerced to the domain as the planner does
-- for INSERT, a domain's own default, a stored generated column that is
-- NULL, a table CHECK), the same row goes through INSERT, load(), a chunk
-- job and a leaf job, and each gives INSERT's answer: the same error, or
-- the row accepted.  One leaf and one worker, so the failing row and its
-- message are the same in every run.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
RESET client_min_messages;
CREATE SCHEMA con36;
SET search_path = con36, public;

CREATE DOMAIN nn_int AS integer NOT NULL;
CREATE DOMAIN pos_int AS integer CHECK (VALUE > 0);
CREATE DOMAIN small_int AS integer DEFAULT 7 CHECK (VALUE < 5);

-- The answer of statement stmt: 'accepted' (rolled back) or SQLSTATE:
-- message.
CREATE FUNCTION answer(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    BEGIN
        EXECUTE stmt;
        RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'accepted';
    EXCEPTION WHEN OTHERS THEN
        RETURN CASE WHEN SQLERRM = 'accepted' THEN 'accepted'
                    ELSE SQLSTATE || ': ' || SQLERRM END;
    END;
END
$$;

-- The answer of an INSERT of one row that names only the key and the field.
CREATE FUNCTION insert_answer(tbl regclass) RETURNS text LANGUAGE sql AS $$
    SELECT answer(format('INSERT INTO %s (ycsb_key, field0) VALUES (%L, %L)',
                         tbl, 'user1', 'x'))
$$;

-- The answer of petagen.load() of 10 rows.
CREATE FUNCTION load_answer(tbl regclass) RETURNS text LANGUAGE sql AS $$
    SELECT answer(format('SELECT * FROM petagen.load(%L, 0, 10)', tbl))
$$;

-- A table t_<name> of one hash leaf with column extra as given, and the
-- default dflt set apart (16.2 checks a domain default as ADD COLUMN runs).
CREATE FUNCTION con_table(name text, extra text, dflt text DEFAULT NULL)
RETURNS regclass LANGUAGE plpgsql AS $$
BEGIN
    PERFORM petagen.create_table('t_' || name, 1, fields => 1);
    EXECUTE format('ALTER TABLE %I ADD COLUMN %s', 't_' || name, extra);
    IF dflt IS NOT NULL THEN
        EXECUTE format('ALTER TABLE %I ALTER COLUMN extra SET DEFAULT %s',
                       't_' || name, dflt);
    END IF;
    RETURN ('t_' || name)::regclass;
END
$$;

CREATE TABLE cases (name text PRIMARY KEY, tbl regclass);
INSERT INTO cases VALUES
    ('notnull_default_null', con_table('notnull_default_null',
        'extra integer NOT NULL DEFAULT nullif(1, 1)')),
    ('notnull_no_default', con_table('notnull_no_default', 'extra integer NOT NULL')),
    ('domain_notnull', con_table('domain_notnull', 'extra nn_int')),
    ('domain_check_null', con_table('domain_check_null', 'extra pos_int')),
    ('domain_check_default', con_table('domain_check_default', 'extra pos_int', '0')),
    ('domain_own_default', con_table('domain_own_default', 'extra small_int')),
    ('generated_null', con_table('generated_null',
        'extra integer NOT NULL GENERATED ALWAYS AS (nullif(length(field0), length(field0))) STORED')),
    ('table_check', con_table('table_check', 'extra integer DEFAULT 1 CHECK (extra > 5)')),
    ('notnull_default_ok', con_table('notnull_default_ok', 'extra integer NOT NULL DEFAULT 3'));

-- INSERT's answer for each.
SELECT name, insert_answer(tbl) FROM cases ORDER BY name;

-- load() gives the same answer, or refuses the table's shape.
SELECT name, CASE WHEN load_answer(tbl) = insert_answer(tbl) THEN 'same as INSERT'
                  ELSE load_answer(tbl) END AS load_answer
FROM cases ORDER BY name;

-- A chunk job and a leaf job of each: failed with INSERT's message, or
-- done with every row, never done with a row INSERT would refuse (a
-- worker's search_path qualifies a domain's name in its message).
CREATE TABLE outcomes (name text, method text, state text, last_error text, n bigint);
SET client_min_messages = warning;
DO $$
DECLARE
    c record;
    m text;
    j bigint;
    st text;
BEGIN
    FOR c IN SELECT * FROM cases ORDER BY name LOOP
        FOREACH m IN ARRAY ARRAY['chunk', 'leaf'] LOOP
            EXECUTE format('TRUNCATE %s', c.tbl);
            BEGIN
                j := petagen.start(10, 1, c.tbl::text, method => m);
            EXCEPTION WHEN OTHERS THEN
                INSERT INTO outcomes VALUES (c.name, m, 'refused', SQLERRM, 0);
                CONTINUE;
            END;
            COMMIT;
            st := petagen.wait(j);
            INSERT INTO outcomes
            SELECT c.name, m, st, jobs.last_error, 0
            FROM petagen.jobs WHERE jobs.job = j;
            EXECUTE format('UPDATE outcomes SET n = (SELECT count(*) FROM %s)'
                           ' WHERE name = %L AND method = %L', c.tbl, c.name, m);
            PERFORM petagen.forget(j);
            COMMIT;
        END LOOP;
    END LOOP;
END
$$;
RESET client_min_messages;
SELECT o.name, o.method, o.state, o.n AS rows,
       CASE WHEN o.state = 'done' AND insert_answer(c.tbl) = 'accepted'
                THEN 'same as INSERT'
            WHEN o.state = 'failed'
                 AND position(substr(insert_answer(c.tbl), 8)
                              IN replace(o.last_error, 'con36.', '')) > 0
                THEN 'same as INSERT'
            ELSE o.last_error END AS answer
FROM outcomes o JOIN cases c USING (name)
ORDER BY o.name, o.method;

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA con36 CASCADE;
RESET client_min_messages;
