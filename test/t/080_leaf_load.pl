# Leaf loads (method => 'leaf'): each local leaf written whole, in one
# transaction, into new storage, frozen, its indexes built after its rows.
#
# With wal_level = minimal (and wal_skip_threshold = 0: this test's leaves
# are small) the load writes almost no WAL, every row lands on an
# all-frozen page, and amcheck with heapallindexed passes.  Readers
# see nothing of a leaf until it commits: petagen.debug_pause holds both
# workers before the commit of their leaves (leaf 1 on), with the two
# leaves written and uncommitted; a reader of such a leaf waits for the
# ACCESS EXCLUSIVE lock it holds for its commit (a reader of a leaf still
# being written does not wait: 086_leaf_readers.pl), the committed leaf reads
# whole; then a SIGKILL (crash restart) or stop() rolls the two back to
# empty, and resume() writes exactly the leaves the ledger lacks and
# removes the files the crash left of the leaves in flight.  A role
# with INSERT but not TRUNCATE on the leaves is refused; with TRUNCATE it
# loads.  A leaf that holds rows is refused by the worker too (force =>
# true), and kept as it was.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

skip_unless_contrib(qw(pg_visibility amcheck));

my $rows = 200000;
my $chunk_rows = 25000;

my $node = petagen_node('leaf', qq{
restart_after_crash = on
autovacuum = off
wal_level = minimal
max_wal_senders = 0
# leaves here are small: sync them at commit rather than log them (the
# default logs files under 2MB, which a real load's leaves are far over)
wal_skip_threshold = 0
});
$node->safe_psql('postgres',
	'CREATE EXTENSION petagen; CREATE EXTENSION pg_visibility; CREATE EXTENSION amcheck'
);


# Start a leaf load of $rows rows into a new 8-leaf table; returns the job.
sub start_leaf
{
	my ($table) = @_;
	$node->safe_psql('postgres', "SELECT petagen.create_table('$table')");
	return $node->safe_psql('postgres',
		qq{SELECT petagen.start($rows, workers => 2, "table" => '$table',
		   chunk_rows => $chunk_rows, method => 'leaf')});
}

# Rows a sequential scan sees, minus the rows of the leaves in the ledger.
sub excess_sql
{
	my ($job, $table) = @_;
	return "SELECT (SELECT count(*) FROM $table)"
	  . " - (SELECT coalesce(sum(rows_written), 0) FROM petagen.chunks WHERE job = $job)";
}

# Hold the workers of a new leaf load before the commit of their leaves,
# leaves $first on; checks that readers see none of the held leaves' rows.
sub start_held_before_commit
{
	my ($table, $first) = @_;
	set_debug_pause($node, "before_commit:$first");
	my $job = start_leaf($table);
	wait_for_debug_pause($node, $job, 2);
	is( $node->safe_psql('postgres',
			"SELECT count(*) FROM petagen.chunks WHERE job = $job"),
		$first, "$table: leaves before $first are committed, the held ones not");
	is( seqscan_psql($node, 
			"SELECT count(*) = (SELECT rows_written FROM petagen.chunks WHERE job = $job AND chunk = 0)"
			  . " FROM ${table}_p0"),
		't', "$table: the committed leaf reads whole");
	my ($ret, $stdout, $stderr) = $node->psql('postgres',
		"SET lock_timeout = '100ms'; SELECT count(*) FROM ${table}_p$first");
	like($stderr, qr/lock timeout/,
		"$table: a reader of a leaf in flight waits for its commit");
	return $job;
}

# The exactly-once checks of a finished leaf job on $table.
sub check_exact
{
	my ($job, $table, $what) = @_;
	check_load_exact($node, $job, $table, $rows, $what);
	is( $node->safe_psql('postgres',
			"SELECT count(*), count(DISTINCT leaf) FROM petagen.chunks WHERE job = $job"),
		'8|8', "$what: the ledger holds each leaf once");
	# amcheck and pg_visibility; on 15 every page is all-frozen too (from 16
	# on heap_multi_insert extends a leaf by many pages at once, and the
	# ones the last rows did not reach stay empty, out of the map).
	check_leaf_pages($node, $table, $what);
	if ($node->safe_psql('postgres', 'SHOW server_version_num') < 160000)
	{
		is( $node->safe_psql('postgres',
				"SELECT count(*) FILTER (WHERE NOT all_frozen), count(*) > 0"
				  . " FROM pg_partition_tree('$table') t, pg_visibility_map(t.relid) WHERE t.isleaf"),
			'0|t', "$what: every heap page is all-frozen");
	}
	is(routing_files($node, $job), '0', "$what: the routing files are removed");
	is( $node->safe_psql('postgres',
			"SELECT count(*) FROM pg_ls_dir('pg_petagen/storage', true, false)"),
		'0', "$what: no record of a leaf's new files is left");
	is(orphan_files($node), '0', "$what: no file of the database is left outside every relation");
}

# (a) An uninterrupted leaf load: almost no WAL.
my $lsn = $node->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
my $job_a = start_leaf('leaf_a');
wait_done($node, $job_a, 'clean: the job is done', '180s');
my $wal_per_row = $node->safe_psql('postgres',
	"SELECT round(pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn') / $rows, 1)");
cmp_ok($wal_per_row, '<', 10,
	"clean: under 10 bytes of WAL per row at wal_level = minimal ($wal_per_row)");
check_exact($job_a, 'leaf_a', 'clean');

# (b) SIGKILL of a worker mid-leaf: the postmaster restarts every backend.
my $job_b = start_held_before_commit('leaf_b', 1);
is(routing_files($node, $job_b), '8', 'kill: the 8 routing files are there');
my $pid = $node->safe_psql('postgres',
	"SELECT pid FROM petagen.status_workers($job_b) WHERE worker = 0");
ok(kill('KILL', $pid), 'kill: SIGKILL sent to worker 0');
ok( poll_after_crash(
		$node, "SELECT state FROM petagen.status($job_b)",
		'interrupted'),
	'kill: after the crash restart the job is interrupted');
is(seqscan_psql($node, excess_sql($job_b, 'leaf_b')), '0',
	'kill: the leaves in flight are empty again');
cmp_ok(orphan_files($node), '>=', 2,
	'kill: the new files of the two leaves in flight are left outside every relation');
set_debug_pause($node, '');
is($node->safe_psql('postgres', "SELECT petagen.resume($job_b)"),
	$job_b, 'kill: resume() returns the job');
check_exact($job_b, 'leaf_b', 'kill');

# (c) stop() mid-leaf: the leaves in flight roll back to empty.
my $job_c = start_held_before_commit('leaf_c', 2);
is($node->safe_psql('postgres', "SELECT petagen.stop($job_c)"),
	'stopped', 'stop: stop() returns stopped');
is(seqscan_psql($node, excess_sql($job_c, 'leaf_c')), '0',
	'stop: the leaves in flight are empty again');
set_debug_pause($node, '');
is($node->safe_psql('postgres', "SELECT petagen.resume($job_c)"),
	$job_c, 'stop: resume() returns the job');
check_exact($job_c, 'leaf_c', 'stop');

# (d) An operator who does not own the table: TRUNCATE on the leaves decides.
$node->safe_psql('postgres', q{SELECT petagen.create_table('leaf_d');
CREATE ROLE leaf_op LOGIN IN ROLE petagen_operator;
GRANT USAGE ON SCHEMA public TO leaf_op;
GRANT SELECT, INSERT ON leaf_d TO leaf_op;
});
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	qq{SET ROLE leaf_op; SELECT petagen.start($rows, 2, 'leaf_d', chunk_rows => $chunk_rows, method => 'leaf')});
like($stderr, qr/permission denied for table leaf_d_p0/,
	'operator: without TRUNCATE on the leaves a leaf load is refused');
$node->safe_psql('postgres',
	"SELECT format('GRANT TRUNCATE ON %s TO leaf_op', relid) FROM pg_partition_tree('leaf_d') WHERE isleaf \\gexec");
my $job_d = $node->safe_psql('postgres',
	qq{SET ROLE leaf_op; SELECT petagen.start($rows, 2, 'leaf_d', chunk_rows => $chunk_rows, method => 'leaf')});
check_exact($job_d, 'leaf_d', 'operator with TRUNCATE');

# (e) force => true past check()'s refusal: the worker refuses the leaf that
# holds rows and leaves it as it was.
$node->safe_psql('postgres', "SELECT petagen.create_table('leaf_e');"
	  . "INSERT INTO leaf_e (ycsb_key) VALUES ('x');");
my $job_e = $node->safe_psql('postgres',
	"SELECT petagen.start(1000, 1, 'leaf_e', method => 'leaf', force => true)");
is($node->safe_psql('postgres', "SELECT petagen.wait($job_e, '180s')"),
	'failed', 'not empty: the job fails');
like( $node->safe_psql('postgres', "SELECT last_error FROM petagen.jobs WHERE job = $job_e"),
	qr/^leaf "leaf_e_p\d" is not empty$/, 'not empty: the error names the leaf');
is( $node->safe_psql('postgres',
		"SELECT count(*) FROM leaf_e WHERE ycsb_key = 'x' AND tableoid::regclass::text LIKE 'leaf_e_%'"),
	'1', 'not empty: the row of the refused leaf is still there');

$node->stop;
done_testing();
