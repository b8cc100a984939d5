-- petagen.verify(table, rows): per leaf, is every key of the key space
-- first .. first+rows-1 there exactly once?
-- Foreign leaves are checked on their node; node is 'local' or the foreign server.
CREATE OR REPLACE FUNCTION @extschema@.verify("table" regclass, rows numeric,
    keys text DEFAULT 'scrambled', prefix text DEFAULT 'user', zeropadding integer DEFAULT 1,
    first numeric DEFAULT 0,
    OUT leaf regclass, OUT local boolean, OUT expected bigint, OUT present bigint,
    OUT missing bigint, OUT extra bigint, OUT duplicated bigint, OUT ok boolean,
    OUT node text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'petagen_verify'
LANGUAGE C STABLE STRICT;
COMMENT ON FUNCTION @extschema@.verify(regclass, numeric, text, text, integer, numeric) IS
    'per leaf of a table, whether every key of the key space first .. first+rows-1 is there exactly once: keys present, missing, extra and duplicated; a foreign leaf is read on its node';

-- petagen.verify(job, bench_inserts): the same, for the key space of a
-- load job; the rows benchmark runs of the job inserted (past its key
-- space) are extra ('count') or left out ('ignore').
CREATE OR REPLACE FUNCTION @extschema@.verify(job bigint, bench_inserts text DEFAULT 'count',
    OUT leaf regclass, OUT local boolean, OUT expected bigint, OUT present bigint,
    OUT missing bigint, OUT extra bigint, OUT duplicated bigint, OUT ok boolean,
    OUT node text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'petagen_verify_job'
LANGUAGE C STABLE;
COMMENT ON FUNCTION @extschema@.verify(bigint, text) IS
    'verify() of the table and key space of a load job; bench_inserts => ''ignore'' leaves out the rows its benchmark runs inserted, ''count'' (the default) counts them as extra';
