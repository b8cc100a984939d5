# Frozen loads: pages all-frozen in the visibility map after a load, and
# exactly-once although frozen rows survive an abort or a crash.
#
# The premise is checked, not assumed: while a frozen chunk is in flight a
# sequential scan already sees its uncommitted rows, and after SIGKILL (a
# crash restart) or stop() they are still there, beyond what the ledger
# holds.  petagen.debug_pause holds both workers before the commit of their
# chunks, so the kill and the stop always hit two complete uncommitted
# chunks, however fast or slow the machine.  resume() redoes the chunks the ledger lacks; without the repair of
# frozen.c the redone chunk would meet its own leftovers: a unique violation
# on every retry with the primary key (the job fails), or duplicate rows
# without it.  So the final checks (verify, a sequential count, no key
# twice, content equal to the generator's, amcheck with heapallindexed)
# fail if the repair does not remove exactly the leftovers.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

skip_unless_contrib(qw(pg_visibility amcheck));

my $rows = 300000;
my $chunk_rows = 60000;

my $node = petagen_node('frozen', qq{
restart_after_crash = on
autovacuum = off
});
$node->safe_psql('postgres',
	'CREATE EXTENSION petagen; CREATE EXTENSION pg_visibility; CREATE EXTENSION amcheck'
);

# The content checksum of the key space, as the generator (and a plain load) has it.

# Start a frozen load of $rows rows into a new 8-leaf table; returns the job.
sub start_frozen
{
	my ($table) = @_;
	$node->safe_psql('postgres', "SELECT petagen.create_table('$table')");
	return $node->safe_psql('postgres',
		qq{SELECT petagen.start($rows, workers => 2, "table" => '$table',
		   chunk_rows => $chunk_rows, frozen => true, method => 'chunk')});
}

# Rows a sequential scan sees beyond the ledger's committed rows.
sub excess_sql
{
	my ($job, $table) = @_;
	return "SELECT (SELECT count(*) FROM $table)"
	  . " - (SELECT coalesce(sum(rows_written), 0) FROM petagen.chunks WHERE job = $job)";
}

# Hold the workers of a new frozen load before the commit of their chunks
# (petagen.debug_pause), chunks from $first on: the ones before commit, the
# two held chunks' 120,000 rows are on disk, frozen and uncommitted, and a
# sequential scan sees exactly them beyond the ledger.  Returns the job.
sub start_held_before_commit
{
	my ($table, $first) = @_;
	set_debug_pause($node, "before_commit:$first");
	my $job = start_frozen($table);
	wait_for_debug_pause($node, $job, 2);
	is( $node->safe_psql('postgres',
			"SELECT count(*) FROM petagen.chunks WHERE job = $job"),
		$first, "$table: chunks before $first are committed, the held ones not");
	is(seqscan_psql($node, excess_sql($job, $table)), 2 * $chunk_rows,
		"$table: a sequential scan sees the frozen rows of the two held chunks");
	return $job;
}

# Fraction of the heap pages of the local leaves of $table that are all-frozen.
sub frozen_fraction
{
	my ($table) = @_;
	return $node->safe_psql('postgres',
		"SELECT round(avg(all_frozen::int), 4) FROM pg_partition_tree('$table') t,"
		  . " pg_visibility_map(t.relid) WHERE t.isleaf");
}

# The exactly-once checks of a finished job on $table.
sub check_exact
{
	my ($job, $table, $what) = @_;
	check_load_exact($node, $job, $table, $rows, $what);
	is( $node->safe_psql('postgres',
			"SELECT count(*) FROM petagen.chunk_intents WHERE job = $job"),
		'0', "$what: no chunk intent is left");
}

# (a) An uninterrupted frozen load.
my $job_a = start_frozen('frozen_a');
check_exact($job_a, 'frozen_a', 'clean');
is(rows_off_frozen_pages($node, 'frozen_a'), '0', 'clean: every row is on an all-frozen page');
# Before 16 a leaf grows a page at a time, as the rows need it.  From 16 on
# heap_multi_insert extends it by many pages at once; a chunk's bulk insert
# state keeps the ones it did not fill, and a frozen load skips the free
# space map, so they stay empty (no rows, all zeroes, not in the visibility
# map), which the row check above allows for.
if ($node->safe_psql('postgres', 'SHOW server_version_num') < 160000)
{
	cmp_ok(frozen_fraction('frozen_a'), '>=', 0.99,
		'clean: at least 99% of the heap pages are all-frozen');
}
else
{
	note('clean: ' . frozen_fraction('frozen_a')
		  . ' of the heap pages are all-frozen, the rest empty pages of bulk extension');
}
is( $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_partition_tree('frozen_a') t,"
		  . " pg_check_frozen(t.relid) WHERE t.isleaf"),
	'0', 'clean: pg_check_frozen finds no unfrozen tuple on all-frozen pages');

# (b) SIGKILL of a worker mid-load: the postmaster restarts every backend.
my $job_b = start_held_before_commit('frozen_b', 1);
my $pid = $node->safe_psql('postgres',
	"SELECT pid FROM petagen.status_workers($job_b) WHERE worker = 0");
ok(kill('KILL', $pid), 'kill: SIGKILL sent to worker 0');
ok( poll_after_crash(
		$node, "SELECT state FROM petagen.status($job_b)",
		'interrupted'),
	'kill: after the crash restart the job is interrupted');
my $left = seqscan_psql($node, excess_sql($job_b, 'frozen_b'));
is($left, 2 * $chunk_rows,
	'kill: the frozen rows of the two aborted chunks survived the crash');
ok( $node->safe_psql('postgres',
		"SELECT count(*) > 0 FROM petagen.chunk_intents WHERE job = $job_b"),
	'kill: the interrupted chunks have intents');
set_debug_pause($node, '');
my $log_offset = -s $node->logfile;
is($node->safe_psql('postgres', "SELECT petagen.resume($job_b)"),
	$job_b, 'kill: resume() returns the job');
check_exact($job_b, 'frozen_b', 'kill');
my $log = slurp_file($node->logfile, $log_offset);
my $removed = 0;
$removed += $1
  while $log =~ /chunk \d+: removed (\d+) frozen rows of an interrupted attempt/g;
is($removed, $left, 'kill: the repair removed exactly the leftover rows');
# Pages a repair touched lose all-visible; the crash can also leave pages
# the relation was extended by but never written (all zeroes, no rows),
# which VACUUM leaves out of the visibility map.  After one VACUUM, every
# row is on an all-frozen page.
$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) frozen_b');
is(rows_off_frozen_pages($node, 'frozen_b'), '0', 'kill: after one VACUUM every row is on an all-frozen page');

# (c) stop() mid-load: the chunks in flight roll back, their rows stay.
my $job_c = start_held_before_commit('frozen_c', 2);
is($node->safe_psql('postgres', "SELECT petagen.stop($job_c)"),
	'stopped', 'stop: stop() returns stopped');
is(seqscan_psql($node, excess_sql($job_c, 'frozen_c')), 2 * $chunk_rows,
	'stop: the frozen rows of the two rolled-back chunks remain');
set_debug_pause($node, '');
is($node->safe_psql('postgres', "SELECT petagen.resume($job_c)"),
	$job_c, 'stop: resume() returns the job');
check_exact($job_c, 'frozen_c', 'stop');

$node->stop;
done_testing();
