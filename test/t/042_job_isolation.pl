# Attacks a role holding petagen_operator can try that need workers: two
# jobs whose tables share partitions (a root and one of its leaves) cannot
# run at once, resume() of a job whose owner was dropped says so, and an
# open start() transaction does not hold up other roles' jobs.  Jobs are
# held before their first chunk by a disk reserve larger than any disk.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $node = PostgreSQL::Test::Cluster->new('job_isolation');
$node->init;
$node->start;
$node->safe_psql('postgres', q{CREATE EXTENSION petagen; SELECT petagen.create_table('usertable');});
# a two-level tree (tree_1 of tree is itself partitioned), which
# create_table() does not make
$node->safe_psql('postgres', q{
CREATE TABLE tree (ycsb_key varchar(64) PRIMARY KEY, field0 varchar(100))
    PARTITION BY HASH (ycsb_key);
CREATE TABLE tree_0 PARTITION OF tree FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE tree_1 PARTITION OF tree FOR VALUES WITH (MODULUS 2, REMAINDER 1)
    PARTITION BY HASH (ycsb_key);
CREATE TABLE tree_1_0 PARTITION OF tree_1 FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE tree_1_1 PARTITION OF tree_1 FOR VALUES WITH (MODULUS 2, REMAINDER 1);
});

# Start a job on $table held paused before its first chunk; its number.
sub start_held
{
	my ($table, $role) = @_;
	my $set = defined $role ? "SET ROLE $role; " : '';
	my $job = $node->safe_psql('postgres',
		"${set}SELECT petagen.start(10000, workers => 1, \"table\" => '$table',"
		  . " disk_reserve => '1000 TB', force => true)");
	$node->poll_query_until('postgres',
		"SELECT state = 'paused' FROM petagen.status($job)")
	  or die "job $job did not pause";
	return $job;
}

# 1. A job on a root and a job on one of its leaves would both write the
# leaf (and a frozen job's repair could delete the other's rows): refused
# in both orders and at any depth, while disjoint subtrees may run at once.
my $root = start_held('usertable');
for my $case (
	[ 'usertable_p3', 'a leaf of a running job\'s root' ],
	[ 'usertable',   'the same table' ])
{
	my ($table, $what) = @$case;
	my ($ret, $err) = try_sql($node,
		"SELECT petagen.start(100, workers => 1, \"table\" => '$table', force => true)");
	like($err,
		qr/55006: "$table" already has load job $root/,
		"start() on $what: 55006 naming the job");
}
is($node->safe_psql('postgres', "SELECT petagen.stop($root)"), 'stopped',
	'the root job stops');

my $mid = start_held('tree_1');
my ($ret, $err) = try_sql($node,
	q{SELECT petagen.start(100, workers => 1, "table" => 'tree', force => true)});
like($err, qr/55006: "tree" already has load job $mid/,
	'start() on the root of a running job\'s sub-partition: 55006');
like($err, qr/DETAIL:  Load job $mid loads "tree_1", which shares partitions with "tree"/,
	'the detail names the other job\'s table');
($ret, $err) = try_sql($node,
	q{SELECT petagen.start(100, workers => 1, "table" => 'tree_1_1', force => true)});
like($err, qr/55006: "tree_1_1" already has load job $mid/,
	'start() on a leaf below a running job\'s sub-partition: 55006');
my $other = $node->safe_psql('postgres',
	q{SELECT petagen.start(100, workers => 1, "table" => 'tree_0', force => true)});
wait_done($node, $other, 'a sibling subtree loads meanwhile');
($ret, $err) = try_sql($node, "SELECT petagen.resume($root)");
is($ret, 0, 'resume() of the stopped root job of another tree works') or diag $err;
is($node->safe_psql('postgres', "SELECT petagen.stop($root)"), 'stopped',
	'and it stops again');
is($node->safe_psql('postgres', "SELECT petagen.stop($mid)"), 'stopped',
	'the sub-partition job stops');
my $after = start_held('tree');
($ret, $err) = try_sql($node, "SELECT petagen.resume($mid)");
like($err, qr/55006: "tree_1" already has load job $after/,
	'resume() of the sub-partition job while its root loads: 55006');
is($node->safe_psql('postgres', "SELECT petagen.stop($after)"), 'stopped',
	'the root job stops');

# 2. resume() of a job whose owner was dropped: a clear error, not an
# internal one; status() of every job still works.
$node->safe_psql('postgres', q{
CREATE ROLE gone LOGIN IN ROLE petagen_operator;
GRANT INSERT ON usertable TO gone;
});
my $orphan = start_held('usertable', 'gone');
is($node->safe_psql('postgres', "SELECT petagen.stop($orphan)"), 'stopped',
	'the job of role gone stops');
$node->safe_psql('postgres', 'DROP OWNED BY gone; DROP ROLE gone');
($ret, $err) = try_sql($node, "SELECT petagen.resume($orphan)");
like($err, qr/42704: the owner of load job $orphan no longer exists/,
	'resume() of a job whose owner was dropped: 42704');
like($err, qr/HINT:  Start a new job/, 'with a hint to start a new one');
is($node->safe_psql('postgres',
		"SELECT state FROM petagen.status($orphan)"),
	'stopped', 'status() of that job still works');

# 3. A start() whose transaction stays open (BEGIN; SELECT petagen.start(…)
# and then anything slow, as docs/operating.md's "workers begin when
# start() commits" invites) held a lock on petagen.jobs that stopped every other
# role's workers and stop() from recording a job's end.
$node->safe_psql('postgres', q{
CREATE ROLE victim LOGIN IN ROLE petagen_operator;
CREATE ROLE holder LOGIN IN ROLE petagen_operator;
} . ycsb_table_sql('vt') . ycsb_table_sql('ht') . q{
ALTER TABLE vt OWNER TO victim;
ALTER TABLE ht OWNER TO holder;
});
my $vjob = start_held('vt', 'victim');
my $open = $node->background_psql('postgres');
$open->query_safe("SET ROLE holder; BEGIN;"
	  . " SELECT petagen.start(10, workers => 1, \"table\" => 'ht', force => true,"
	  . " method => 'chunk')");
is($node->safe_psql('postgres', "SET ROLE victim; SELECT petagen.stop($vjob)"),
	'stopped', 'another role\'s open start() does not hold up stop() of a job');
is($node->safe_psql('postgres', "SELECT state FROM petagen.jobs WHERE job = $vjob"),
	'stopped', 'and the worker recorded the end in the catalog');
$open->query_safe('COMMIT');
$open->quit;

$node->stop;
done_testing();
