# A leaf load obeys every rule PostgreSQL would apply to the rows it
# writes, whatever happens while it runs.  Each case runs as the least
# privileged role that can start it: "op", a member of petagen_operator
# holding INSERT, SELECT and TRUNCATE on the tables (not their owner).
#
#  - UNIQUE and EXCLUDE constraints are checked as the leaf's indexes are
#    built: the job fails (as load() fails with 23505 / 23P01) and the leaf
#    stays empty, its indexes valid.
#  - A row committed into a leaf while the worker waited for the leaf's
#    lock (the test holds the row's transaction open until the worker
#    waits) is seen: the job fails on a non-empty leaf, the row stays.
#  - A session inserting into a leaf the worker holds (petagen.debug_pause
#    before its commit) waits, then inserts into the loaded leaf: its own
#    key is kept, a key of the key space fails with 23505.
#  - Privileges, row-level security, triggers, column types and partition
#    bounds changed between two leaves (the worker held before its next
#    leaf by petagen.debug_pause) are checked again in the next leaf's
#    transaction: the job fails with the error a chunk job would raise;
#    after bounds changed, resume() routes again and loads exactly; after
#    a written leaf was replaced, resume() refuses.
# After every case each row is in the leaf PostgreSQL routes its key to
# (petagen.leaf() agrees with tableoid, row by row) and bt_index_check
# with heapallindexed passes on every index of the table's leaves.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

skip_unless_contrib(qw(amcheck));

my $node = petagen_node('leafrules', qq{
autovacuum = off
wal_level = minimal
max_wal_senders = 0
wal_skip_threshold = 0
});
$node->safe_psql('postgres', q{
CREATE EXTENSION petagen; CREATE EXTENSION amcheck;
CREATE ROLE op LOGIN IN ROLE petagen_operator;
});

# Run $sql (DDL as the superuser), then give op what a leaf load needs on
# every table of schema public.
sub make_tables
{
	my ($sql) = @_;
	$node->safe_psql('postgres', $sql
		  . "; GRANT INSERT, SELECT, TRUNCATE ON ALL TABLES IN SCHEMA public TO op");
}

# Start a leaf load of $rows rows of $table as op, with one worker (leaves
# are then written in routing order); more start() arguments in $opts.
sub start_as_op
{
	my ($table, $rows, $opts) = @_;
	$opts = $opts ? ", $opts" : '';
	return $node->safe_psql('postgres',
		qq{SET ROLE op; SELECT petagen.start($rows, workers => 1, "table" => '$table',
		   method => 'leaf'$opts)});
}

# Wait for $job to end; its state and last error.
sub end_of
{
	my ($job) = @_;
	$node->safe_psql('postgres', "SELECT petagen.wait($job, '180s')");
	return $node->safe_psql('postgres',
		"SELECT state || ': ' || coalesce(last_error, '') FROM petagen.jobs WHERE job = $job");
}

# The rules every row of $table must satisfy, whatever the job did.
sub rules_hold
{
	my ($table, $what) = @_;
	is( seqscan_psql($node,
			"SELECT count(*) FROM $table t"
			  . " WHERE petagen.leaf('$table', t.ycsb_key) IS DISTINCT FROM t.tableoid::regclass"),
		'0', "$what: every row is in the leaf PostgreSQL routes its key to");
	is( $node->safe_psql('postgres',
			"SELECT count(*) > 0 AND count(*) = count(bt_index_check(i.indexrelid, true))"
			  . " FROM (SELECT relid FROM pg_partition_tree('$table') WHERE isleaf"
			  . "       UNION SELECT '$table'::regclass) t"
			  . " JOIN pg_index i ON i.indrelid = t.relid"
			  . " JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam"
			  . " WHERE a.amname = 'btree' AND c.relkind = 'i'"),
		't', "$what: bt_index_check with heapallindexed passes on every index");
}

# UNIQUE and EXCLUDE: fieldlength 1 makes field0 repeat within 2,000 rows.
make_tables(ycsb_table_sql('uq') . 'CREATE UNIQUE INDEX uq_field0 ON uq (field0);'
	  . ycsb_table_sql('ex') . 'ALTER TABLE ex ADD EXCLUDE USING btree (field0 WITH =)');
like(error_of($node, "SET ROLE op; SELECT * FROM petagen.load('uq', 0, 2000, fieldlength => 1)"),
	qr/^23505: duplicate key value violates unique constraint "uq_field0"/,
	'load() of duplicates under a UNIQUE index raises 23505');
like(end_of(start_as_op('uq', 2000, 'fieldlength => 1')),
	qr/^failed: could not create unique index "uq_field0"/,
	'a leaf job fails on the same UNIQUE violation (23505, as REINDEX reports it)');
like(error_of($node, "SET ROLE op; SELECT * FROM petagen.load('ex', 0, 2000, fieldlength => 1)"),
	qr/^23P01: conflicting key value violates exclusion constraint/,
	'load() of conflicting rows under an EXCLUDE constraint raises 23P01');
like(end_of(start_as_op('ex', 2000, 'fieldlength => 1')),
	qr/^failed: could not create exclusion constraint "ex_field0_excl"/,
	'a leaf job fails on the same EXCLUDE violation (23P01, as REINDEX reports it)');
is($node->safe_psql('postgres', 'SELECT (SELECT count(*) FROM uq) + (SELECT count(*) FROM ex)'),
	'0', 'both tables stay empty');
rules_hold($_, "constraint violation ($_)") for qw(uq ex);

# A row committed while the worker waits for the leaf's lock.
make_tables("SELECT petagen.create_table('cw')");
my $own = $node->safe_psql('postgres',
	"SELECT k FROM generate_series(1, 1000) g, LATERAL (SELECT 'own' || g AS k) x"
	  . " WHERE petagen.leaf('cw', k) = 'cw_p3'::regclass LIMIT 1");
my $writer = $node->background_psql('postgres');
$writer->query_safe("BEGIN; INSERT INTO cw VALUES ('$own', 'mine')");
my $job = start_as_op('cw', 20000);
ok( $node->poll_query_until('postgres',
		"SELECT count(*) > 0 FROM pg_locks l JOIN pg_stat_activity a USING (pid)"
		  . " WHERE a.backend_type = 'petagen worker' AND l.relation = 'cw_p3'::regclass"
		  . " AND l.mode = 'ExclusiveLock' AND NOT l.granted"),
	'the worker waits for the lock of the leaf that holds an uncommitted row');
$writer->query_safe('COMMIT');
$writer->quit;
like(end_of($job), qr/^failed: leaf "cw_p3" is not empty/,
	'the row committed during the wait is seen: the job fails on that leaf');
is($node->safe_psql('postgres', "SELECT field0 FROM cw WHERE ycsb_key = '$own'"),
	'mine', 'and the committed row is still there');
rules_hold('cw', 'committed during the wait');

# Sessions inserting into a leaf the worker holds wait, then insert into
# it.  Their keys are chosen before the job starts: petagen.leaf() locks
# every leaf of the table.
make_tables("SELECT petagen.create_table('hw')");
$own = $node->safe_psql('postgres',
	"SELECT k FROM generate_series(1, 1000) g, LATERAL (SELECT 'own' || g AS k) x"
	  . " WHERE petagen.leaf('hw', k) = 'hw_p0'::regclass LIMIT 1");
my $taken = $node->safe_psql('postgres',
	"SELECT k FROM generate_series(0, 19999) g, LATERAL (SELECT petagen.key(g) AS k) x"
	  . " WHERE petagen.leaf('hw', k) = 'hw_p0'::regclass LIMIT 1");
set_debug_pause($node, 'before_commit:0');
$job = start_as_op('hw', 20000);
wait_for_debug_pause($node, $job, 1);
my $mine = $node->background_psql('postgres');
$mine->query_until(qr/sent/, "\\echo sent\nINSERT INTO hw VALUES ('$own', 'mine');\n");
my $dup = $node->background_psql('postgres', on_error_stop => 0);
$dup->query_until(qr/sent/, "\\echo sent\nINSERT INTO hw VALUES ('$taken', 'dup');\n");
ok( $node->poll_query_until('postgres',
		"SELECT count(*) FROM pg_locks WHERE relation = 'hw_p0'::regclass AND NOT granted",
		'2'),
	'two sessions wait for the leaf the held worker has written');
set_debug_pause($node, '');
like(end_of($job), qr/^done: $/, 'the job is done');
$mine->query_safe('SELECT 1');
$mine->quit;
$dup->query('SELECT 1');
$dup->quit;
is($node->safe_psql('postgres', "SELECT field0 FROM hw WHERE ycsb_key = '$own'"),
	'mine', 'the waiting session\'s own key is in the loaded leaf');
is($node->safe_psql('postgres', "SELECT count(*) FROM hw WHERE field0 = 'dup'"),
	'0', 'the waiting session\'s key of the key space was refused by the unique index');
is($node->safe_psql('postgres', 'SELECT count(*) FROM hw'), '20001',
	'the leaf holds the key space and the one extra key');
rules_hold('hw', 'sessions waiting on the held leaf');

# Changes between two leaves: the worker is held before leaf $first of a
# new job on a new table (8 leaves, or what $create makes); $change runs
# (as the superuser); the job must then end as $expected.
sub changed_between_leaves
{
	my ($table, $first, $change, $expected, $what, $create) = @_;
	make_tables($create // "SELECT petagen.create_table('$table')");
	set_debug_pause($node, "before_chunk:$first");
	my $job = start_as_op($table, 20000);
	wait_for_debug_pause($node, $job, 1);
	$node->safe_psql('postgres', $change);
	set_debug_pause($node, '');
	like(end_of($job), $expected, "$what: the next leaf's transaction refuses it");
	rules_hold($table, $what);
	return $job;
}

changed_between_leaves('ri', 1, 'REVOKE INSERT ON ri FROM op',
	qr/^failed: permission denied for table ri/, 'INSERT revoked');
changed_between_leaves('rt', 1, 'REVOKE TRUNCATE ON rt_p1 FROM op',
	qr/^failed: permission denied for table rt_p1/, 'TRUNCATE on the next leaf revoked');
changed_between_leaves('rl', 1, 'ALTER TABLE rl ENABLE ROW LEVEL SECURITY',
	qr/^failed: petagen cannot load "rl": row-level security is enabled for it/,
	'row-level security enabled');
changed_between_leaves('tg', 1,
	'CREATE FUNCTION nop() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NULL; END$$;'
	  . ' CREATE TRIGGER st BEFORE INSERT ON tg FOR EACH STATEMENT EXECUTE FUNCTION nop()',
	qr/^failed: petagen cannot load "tg": it has trigger "st" on INSERT/,
	'a statement trigger added on the table');
# (the partition key's type cannot change: a plain table, its own leaf)
changed_between_leaves('vc', 0, 'ALTER TABLE vc ALTER COLUMN ycsb_key TYPE varchar(5)',
	qr/^failed: keys of mode "scrambled" can be \d+ characters long, longer than column ycsb_key of "vc" allows/,
	'the key column shrunk to varchar(5)', ycsb_table_sql('vc'));
is($node->safe_psql('postgres', 'SELECT count(*) FROM vc WHERE length(ycsb_key) > 5'),
	'0', 'the key column shrunk: no key longer than varchar(5) is stored');

# Partition bounds swapped after routing: every key routed to pb_p0 now
# belongs to pb_p1 and the other way round.
$job = changed_between_leaves('pb', 0, q{
	ALTER TABLE pb DETACH PARTITION pb_p0; ALTER TABLE pb DETACH PARTITION pb_p1;
	ALTER TABLE pb ATTACH PARTITION pb_p0 FOR VALUES WITH (MODULUS 8, REMAINDER 1);
	ALTER TABLE pb ATTACH PARTITION pb_p1 FOR VALUES WITH (MODULUS 8, REMAINDER 0)},
	qr/^failed: new row for relation "pb_p0" violates partition constraint/,
	'partition bounds swapped after routing');
is($node->safe_psql('postgres', 'SELECT count(*) FROM pb'), '0',
	'partition bounds swapped: nothing was stored');
$node->safe_psql('postgres', "SET ROLE op; SELECT petagen.resume($job)");
like(end_of($job), qr/^done: /, 'partition bounds swapped: resume() routes again and loads');
is($node->safe_psql('postgres', 'SELECT count(*) FROM pb'), '20000',
	'partition bounds swapped: resume() loads the whole key space');
rules_hold('pb', 'partition bounds swapped, resumed');

# A written leaf replaced by an empty table with its bounds before a
# resume(): the ledger's leaf 0 is no longer the table's leaf 0.
make_tables("SELECT petagen.create_table('lr')");
set_debug_pause($node, 'before_chunk:1');
$job = start_as_op('lr', 20000);
wait_for_debug_pause($node, $job, 1);
is($node->safe_psql('postgres', "SET ROLE op; SELECT petagen.stop($job)"),
	'stopped', 'leaf replaced: the job is stopped after its first leaf');
set_debug_pause($node, '');
make_tables(q{ALTER TABLE lr DETACH PARTITION lr_p0;
	CREATE TABLE lr_new (LIKE lr_p0 INCLUDING ALL);
	ALTER TABLE lr ATTACH PARTITION lr_new FOR VALUES WITH (MODULUS 8, REMAINDER 0)});
like(error_of($node, "SET ROLE op; SELECT petagen.resume($job)"),
	qr/^55000: the leaves of table "lr" changed since load job \d+ wrote some of them/,
	'leaf replaced: resume() refuses instead of skipping the new, empty leaf');

$node->stop;
done_testing();
