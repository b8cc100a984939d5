# Indexes after: start() sets the indexes of the local leaves aside, the
# workers load heaps only, then build every index again in its heap's
# tablespace and re-add the parent's primary key, which attaches the leaf
# keys.  The indexing phase shows in status(), and a worker killed while
# building is survived: resume() builds what is left.  amcheck passes on
# every resulting index.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

skip_unless_contrib(qw(amcheck));

my $rows = 300000;

my $node = PostgreSQL::Test::Cluster->new('indexes_after');
$node->init;
$node->append_conf('postgresql.conf', 'restart_after_crash = on');
$node->start;
my $tsdir = PostgreSQL::Test::Utils::tempdir_short();
$node->safe_psql('postgres', qq{
CREATE EXTENSION petagen;
CREATE EXTENSION amcheck;
CREATE TABLESPACE ts2 LOCATION '$tsdir';
SELECT petagen.create_table('usertable');
ALTER TABLE usertable_p2 SET TABLESPACE ts2;
CREATE INDEX usertable_field0 ON usertable (field0);
CREATE INDEX usertable_p5_field1 ON usertable_p5 (field1);
});

# The indexes of the tree: name, tablespace (or -), parent index (or -).
my $indexes_sql = q{
SELECT string_agg(ic.relname || ':' || coalesce(s.spcname, '-') || ':'
                  || coalesce(p.inhparent::regclass::text, '-'), ' ' ORDER BY ic.relname)
FROM pg_partition_tree('usertable') t
JOIN pg_index i ON i.indrelid = t.relid
JOIN pg_class ic ON ic.oid = i.indexrelid
LEFT JOIN pg_tablespace s ON s.oid = ic.reltablespace
LEFT JOIN pg_inherits p ON p.inhrelid = i.indexrelid};
my $before = $node->safe_psql('postgres', $indexes_sql);
# Moving a heap leaves its indexes behind (ALTER TABLE SET TABLESPACE moves no index).
like($before, qr/usertable_p2_pkey:-:usertable_pkey/,
	'setup: usertable_p2 lives in ts2, its key still in the default tablespace');
(my $expected = $before) =~ s/(usertable_p2_\w+):-:/$1:ts2:/g;

# Both workers are held before their first chunk while the test looks, so
# that no index is rebuilt (nor usertable_p7's claimed) before the lock below.
set_debug_pause($node, 'before_chunk');
my $job = $node->safe_psql('postgres',
	qq{SELECT petagen.start($rows, workers => 2, "table" => 'usertable',
	   chunk_rows => 30000, frozen => true, indexes => 'after')});
wait_for_debug_pause($node, $job, 2);
is($node->safe_psql('postgres', $indexes_sql), '',
	'start: every index of the tree is set aside');
is( $node->safe_psql('postgres',
		"SELECT count(*), count(*) FILTER (WHERE stage = 0) FROM petagen.job_indexes WHERE job = $job"),
	'19|17', 'start: 17 leaf and 2 partitioned indexes are recorded');

# Hold a lock that makes the builds of usertable_p7's indexes wait (indexes
# are claimed in leaf order, so the 15 others get built first): the
# indexing phase can then be watched and interrupted at leisure.
my $blocker = $node->background_psql('postgres');
$blocker->query_safe('BEGIN; LOCK TABLE usertable_p7 IN ROW EXCLUSIVE MODE');
set_debug_pause($node, '');
ok( $node->poll_query_until(
		'postgres',
		"SELECT count(*) > 0 FROM petagen.status_details($job)"
		  . " WHERE phase = 'indexing' AND current_index LIKE 'usertable_p7%'"),
	'status: phase indexing, a worker on an index of usertable_p7');
ok( $node->poll_query_until(
		'postgres',
		"SELECT w.done >= 15 AND w.percent < 100 AND s.progress LIKE '#%'"
		  . " FROM petagen.status($job) s, petagen.status_details($job) w"
		  . " WHERE w.worker IS NULL AND w.phase = 'indexing'"),
	'status: the indexing phase counts indexes built, the bar follows them');
my $pid = $node->safe_psql('postgres',
	"SELECT pid FROM petagen.status_details($job) WHERE current_index LIKE 'usertable_p7%' LIMIT 1");
ok(kill('KILL', $pid), 'kill: SIGKILL sent to the worker building an index');
eval { $blocker->quit; };
ok( poll_after_crash(
		$node,
		"SELECT state || '/' || phase FROM petagen.status($job)",
		'interrupted/indexing'),
	'kill: the job is interrupted in its indexing phase');
cmp_ok(
	$node->safe_psql('postgres',
		"SELECT count(*) FROM petagen.job_indexes WHERE job = $job AND built_at IS NULL"),
	'>=', 2, 'kill: some indexes are still to build');

is($node->safe_psql('postgres', "SELECT petagen.resume($job)"),
	$job, 'resume: returns the job');
wait_done($node, $job, 'resume: the job is done');
is( $node->safe_psql('postgres',
		"SELECT s.phase, w.done, w.total, w.percent"
		  . " FROM petagen.status($job) s, petagen.status_details($job) w"
		  . " WHERE w.worker IS NULL AND w.phase = 'indexing'"),
	'done|19|19|100', 'resume: status shows every index built');
is($node->safe_psql('postgres', $indexes_sql),
	$expected, 'every index is back, in its heap\'s tablespace, attached to its parent');
is( $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_constraint WHERE conrelid = 'usertable'::regclass AND contype = 'p'"),
	'1', 'the parent primary key is back');
is( $node->safe_psql('postgres',
		"SELECT string_agg(DISTINCT tablespace, ',') FROM petagen.job_indexes"
		  . " WHERE job = $job AND on_table = 'usertable_p2'::regclass"),
	'ts2', 'the catalog records ts2 for the indexes of usertable_p2');
is( $node->safe_psql('postgres',
		"SELECT count(*) FROM (SELECT bt_index_check(i.indexrelid, true)"
		  . " FROM pg_partition_tree('usertable') t JOIN pg_index i ON i.indrelid = t.relid"
		  . " JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relkind = 'i') x"),
	'17', 'bt_index_check with heapallindexed passes on all 17 leaf indexes');
is( $node->safe_psql('postgres',
		"SELECT count(*), count(*) FILTER (WHERE ok) FROM petagen.verify(${job}::bigint)"),
	'8|8', 'verify() is ok on every leaf');
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	"INSERT INTO usertable (ycsb_key) VALUES (petagen.key(7))");
like($stderr, qr/duplicate key value violates unique constraint "usertable_p\d_pkey"/,
	'the rebuilt primary key refuses a duplicate');

# A plain table with a unique constraint, one worker, held before its first
# chunk while the test looks (it could otherwise finish and rebuild first).
$node->safe_psql('postgres', q{
CREATE TABLE plain (ycsb_key text CONSTRAINT plain_key UNIQUE, field0 text);
});
set_debug_pause($node, 'before_chunk');
my $job2 = $node->safe_psql('postgres',
	q{SELECT petagen.start(20000, workers => 1, "table" => 'plain', indexes => 'after')});
wait_for_debug_pause($node, $job2, 1);
is( $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_index WHERE indrelid = 'plain'::regclass"),
	'0', 'plain table: its unique index is set aside');
set_debug_pause($node, '');
wait_done($node, $job2, 'plain table: the job is done', '60s');
is( $node->safe_psql('postgres',
		"SELECT conname, contype FROM pg_constraint WHERE conrelid = 'plain'::regclass"),
	'plain_key|u', 'plain table: the unique constraint is back');
is( $node->safe_psql('postgres',
		"SELECT count(*) FROM (SELECT bt_index_check('plain_key'::regclass, true)) x"),
	'1', 'plain table: bt_index_check passes');

$node->stop;
done_testing();
