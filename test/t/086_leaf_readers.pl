# A leaf being loaded (method => 'leaf') blocks no reader and keeps every
# writer out.  Two workers are held by petagen.debug_pause in the middle of
# their leaves, each leaf's new storage partly written and locked
# EXCLUSIVE.  Meanwhile, each under a lock_timeout and a statement_timeout
# of 5 s so that a blocked query fails the test instead of hanging it:
# SELECT count(*) of the table (by sequential and by index-only scans, the
# planner opening every leaf's index), pg_partition_tree(),
# pg_total_relation_size() of every leaf, a SELECT and pg_relation_size()
# of a leaf in flight and of its primary key, all answering as before the
# load (no row, the old storage).  INSERT, TRUNCATE, CREATE INDEX and
# VACUUM of a leaf in flight time out on its lock instead.  Then a
# session reads a held leaf in an open transaction and the workers are
# released: the worker waits for ACCESS EXCLUSIVE on that leaf until the
# reader commits, the reader sees the old, empty storage meanwhile, and
# the load is then exact.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

skip_unless_contrib('amcheck');

my $rows = 40000;
my $timeouts = "SET lock_timeout = '5s'; SET statement_timeout = '5s';";

my $node = PostgreSQL::Test::Cluster->new('readers');
$node->init;
$node->append_conf('postgresql.conf', 'autovacuum = off');
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION petagen; CREATE EXTENSION amcheck');
$node->safe_psql('postgres', "SELECT petagen.create_table('rd')");

set_debug_pause($node, 'mid_chunk:0');
my $job = $node->safe_psql('postgres',
	"SELECT petagen.start($rows, workers => 2, \"table\" => 'rd', method => 'leaf')");
wait_for_debug_pause($node, $job, 2);
my @held = split /\n/, $node->safe_psql('postgres',
	"SELECT leaf FROM petagen.status_details($job) WHERE worker IS NOT NULL ORDER BY worker");
is(scalar @held, 2, 'two workers are held mid-leaf');
my $leaf = $held[0];
my $in = join(', ', map { "'$_'::regclass" } @held);
is( $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)"
		  . " WHERE a.backend_type = 'petagen worker' AND l.relation IN ($in)"
		  . " AND l.mode = 'ExclusiveLock' AND l.granted"),
	'2', 'each holds its leaf EXCLUSIVE');

# $sql on $node under the 5 s timeouts: its output; the test fails if it
# errors (a lock or statement timeout).  Notes how long it took.
sub reads
{
	my ($sql, $what) = @_;
	my $t0 = time;
	my ($ret, $out, $err) = $node->psql('postgres', "$timeouts $sql");
	my $secs = time - $t0;
	is($ret, 0, "$what answers while the leaves load") or diag $err;
	note sprintf('%s: %.3f s', $what, $secs);
	return $out;
}

is(reads('SELECT count(*) FROM rd', 'SELECT count(*) of the table'),
	'0', 'and counts no row');
is( reads(
		'SET enable_seqscan = off; SET enable_bitmapscan = off;'
		  . " SELECT count(*) FROM rd WHERE ycsb_key >= ''",
		'an index-only count of the table'),
	'0', 'and counts no row either');
is(reads("SELECT count(*) FROM pg_partition_tree('rd')", 'pg_partition_tree()'),
	'9', 'and lists the table and its 8 leaves');
is( reads(
		"SELECT count(pg_total_relation_size(relid)) FROM pg_partition_tree('rd') WHERE isleaf",
		'pg_total_relation_size() of every leaf'),
	'8', 'and sizes every leaf');
is(reads("SELECT count(*) FROM $leaf", 'SELECT of a leaf in flight'),
	'0', 'and sees its old, empty storage');
is( reads(
		"SELECT pg_relation_size('$leaf') = 0 AND pg_relation_size('${leaf}_pkey') = 8192",
		'pg_relation_size() of a leaf in flight and of its primary key'),
	't', 'which are the old storage\'s');

# Writers and DDL wait for the leaf's lock: here they time out on it.
for my $write ("INSERT INTO $leaf (ycsb_key) VALUES ('mine')",
	"TRUNCATE $leaf", "CREATE INDEX ON $leaf (field1)", "VACUUM $leaf")
{
	like(error_of($node, "SET lock_timeout = '200ms'; $write"),
		qr/^55P03: canceling statement due to lock timeout/,
		"$write waits for the leaf in flight");
}

# A reader in an open transaction when the workers go on: the worker of
# that leaf waits for it before its commit.
my $reader = $node->background_psql('postgres');
is($reader->query_safe("BEGIN; SELECT count(*) FROM $leaf"),
	'0', 'a reader opens a transaction on a leaf in flight');
set_debug_pause($node, '');
ok( $node->poll_query_until('postgres',
		"SELECT count(*) > 0 FROM pg_locks l JOIN pg_stat_activity a USING (pid)"
		  . " WHERE a.backend_type = 'petagen worker' AND l.relation = '$leaf'::regclass"
		  . " AND l.mode = 'AccessExclusiveLock' AND NOT l.granted"),
	'the worker, its leaf written, waits for ACCESS EXCLUSIVE behind the reader');
is($reader->query_safe("SELECT count(*) FROM $leaf"),
	'0', 'the reader still sees the old, empty storage');
$reader->query_safe('COMMIT');
$reader->quit;
check_load_exact($node, $job, 'rd', $rows, 'after the reader commits');

done_testing();
