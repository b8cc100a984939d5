-- The rules PostgreSQL enforces on an INSERT, for rows petagen writes below
-- the executor: each is either enforced or the table is refused with a
-- clear error, and a refused load writes nothing.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
DROP ROLE IF EXISTS regress_rules_cols;
RESET client_min_messages;
CREATE SCHEMA insert_rules;
SET search_path = insert_rules, public;
SELECT plan(15);

-- Rules: a plain INSERT runs an ON INSERT rule (here an audit trail);
-- petagen would not, so it refuses the table, also as a partition target.
SELECT ycsb_table('ruled');
CREATE TABLE audit (ycsb_key text);
CREATE RULE audit_insert AS ON INSERT TO ruled
    DO ALSO INSERT INTO audit VALUES (NEW.ycsb_key);
SELECT throws_ok($$SELECT * FROM petagen.load('ruled', 0, 10)$$, '0A000',
    'petagen cannot load "ruled": it has a rule on INSERT',
    'load() refuses a table with an ON INSERT rule');
SELECT is((SELECT count(*) FROM ruled), 0::bigint, 'and writes nothing');
SELECT is((SELECT finding FROM petagen.check(10, "table" => 'ruled')
            WHERE severity = 'error'),
    'table: petagen cannot load "ruled": it has a rule on INSERT',
    'check() reports it as an error');
ALTER TABLE ruled DISABLE RULE audit_insert;
SELECT is((SELECT rows_written FROM petagen.load('ruled', 0, 10)), 10::bigint,
    'with the rule disabled the load works');
SELECT petagen.create_table('ruled_root', 1, fields => 1);
CREATE RULE leaf_insert AS ON INSERT TO ruled_root_p0 DO INSTEAD NOTHING;
SELECT throws_ok($$SELECT * FROM petagen.load('ruled_root_p0', 0, 10)$$, '0A000',
    'petagen cannot load "ruled_root_p0": it has a rule on INSERT',
    'load() into a partition with an ON INSERT rule is refused');

-- Exclusion constraints are enforced (no unique index on ycsb_key here,
-- so the key collides only in the exclusion check).
CREATE TABLE excl (ycsb_key text, field0 text,
    EXCLUDE USING btree (ycsb_key WITH =));
INSERT INTO excl SELECT * FROM petagen.rows(NULL::excl, 5, 1);
SELECT throws_ok($$SELECT * FROM petagen.load('excl', 0, 10)$$, '23P01',
    NULL, 'an exclusion constraint is enforced');
SELECT is((SELECT count(*) FROM excl), 1::bigint, 'and the failed load left nothing');

-- A unique index beyond the key is enforced.
CREATE TABLE uniq (ycsb_key text PRIMARY KEY, field0 text UNIQUE);
INSERT INTO uniq SELECT 'other', field0 FROM petagen.rows(NULL::uniq, 7, 1);
SELECT throws_ok($$SELECT * FROM petagen.load('uniq', 0, 10)$$, '23505',
    NULL, 'a unique index on a field is enforced');

-- Column privileges: INSERT on some columns only is not enough.
CREATE ROLE regress_rules_cols LOGIN IN ROLE petagen_operator;
SELECT ycsb_table('cols', 2);
GRANT USAGE ON SCHEMA insert_rules TO regress_rules_cols;
GRANT INSERT (ycsb_key, field0) ON cols TO regress_rules_cols;
SET ROLE regress_rules_cols;
SELECT throws_ok($$SELECT * FROM petagen.load('insert_rules.cols', 0, 10)$$, '42501',
    'permission denied for table cols',
    'INSERT on some columns only: refused');
RESET ROLE;

-- A frozen load makes rows visible before they commit and keeps them after
-- a rollback until resume(): only the table's owner may choose that, as
-- COPY FREEZE works only on a table no other transaction can see yet.
SELECT ycsb_table('frz');
GRANT INSERT ON frz TO regress_rules_cols;
SET ROLE regress_rules_cols;
SELECT throws_ok($$SELECT petagen.start(10, 1, 'insert_rules.frz', frozen => true)$$, '42501',
    'must be owner of table frz to load it with frozen => true',
    'a frozen load of a table the caller does not own: refused');
RESET ROLE;
SELECT is((SELECT count(*) FROM petagen.jobs WHERE "table" = 'frz'::regclass), 0::bigint,
    'and no job was recorded');

-- NOT NULL and CHECK constraints inherited from a plain (non-partition)
-- inheritance parent are enforced on the child.
CREATE TABLE parent (ycsb_key text NOT NULL, field0 text,
    CHECK (ycsb_key LIKE 'user%' AND ycsb_key <> 'never'));
CREATE TABLE child (CHECK (false)) INHERITS (parent);
SELECT throws_ok($$SELECT * FROM petagen.load('child', 0, 10)$$, '23514',
    NULL, 'a CHECK constraint of an inheritance child is enforced');
SELECT is((SELECT rows_written FROM petagen.load('parent', 0, 10)), 10::bigint,
    'the parent loads its own rows');
SELECT is((SELECT count(*) FROM ONLY parent), 10::bigint,
    'into itself, not its children');

-- verify() of a plain inheritance parent counts the parent's own rows, as
-- it probes the parent's own index: a child's rows are not "extra".
SELECT ycsb_table('heir');
CREATE TABLE heir_child () INHERITS (heir);
SELECT rows_written FROM petagen.load('heir', 0, 10);
INSERT INTO heir_child VALUES ('not a key of the key space', 'x');
SELECT is((SELECT extra || ' ' || ok FROM petagen.verify('heir', 10)), '0 true',
    'verify() of an inheritance parent ignores its children''s rows');

SELECT * FROM finish();
RESET search_path;
DROP SCHEMA insert_rules CASCADE;
DROP ROLE regress_rules_cols;
