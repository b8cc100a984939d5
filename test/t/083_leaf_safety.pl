# What a leaf load (method => 'leaf') must leave on disk and in WAL,
# whatever writes its pages, on two servers initialised with data
# checksums (initdb -k): one at wal_level = replica, with a streaming
# standby made from a base backup taken before any load, and one at
# wal_level = minimal (wal_skip_threshold = 0: the leaves skip WAL and
# are synced at commit, whatever their size).
#
# On each server, five leaf loads of the canonical 8-leaf table: one
# uninterrupted; one whose worker is killed (SIGKILL: the postmaster
# restarts every backend) and one whose server is stopped with
# pg_ctl -m immediate, each while both workers are held by
# petagen.debug_pause mid_chunk, a leaf partly written into its new
# storage (and a CHECKPOINT has flushed what of it is in shared buffers);
# one followed by pg_ctl -m immediate right after it is done, so that
# crash recovery replays its WAL (or, at minimal, finds the leaves synced
# at commit); and one of values of 4,000 characters, stored out of line
# in each leaf's TOAST table, whose pages never go through shared buffers
# (pg_statio_all_tables, and pg_buffercache where the server has it) and
# which pass the checks of the leaves' pages too (check_toast_pages:
# verify_heapam, pg_check_frozen, an all-frozen visibility map, the TOAST
# index with heapallindexed), on the standby as well; on the primary, the
# same load of more rows whose worker is killed mid-leaf, with part of a
# TOAST table written.  After a crash mid-leaf the leaves in flight are
# empty and resume() finishes the job.  Each load is then exact
# (check_load_exact: verify(), the generator's rows once each,
# bt_index_check with heapallindexed), the crashed one's rows as before
# its crash; amcheck's verify_heapam and pg_visibility find nothing
# (check_leaf_pages: every row on an all-frozen page, the visibility map
# never ahead of a page); and no file of the database is left outside
# every relation.  Once the standby has replayed the primary's WAL it
# passes the same checks, read-only, verify() included, and each leaf's
# rows hash as the primary's.  Every server, stopped cleanly, passes
# pg_checksums --check.  The standby, too, has no file of the database
# left outside every relation.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

skip_unless_contrib(qw(pg_visibility amcheck));

my $rows = 30000;
my @tables = qw(safe_clean safe_kill safe_immediate safe_recovery);
my $toast_rows = 2000;
my $toast_args = ', fieldlength => 4000';
# enough rows that a TOAST leaf is held mid-leaf (batches of about 1 MB)
my $toast_kill_rows = 8000;

# A new server with data checksums (wal_level = replica if $streaming,
# else minimal) that restarts after a crash, with the extensions the
# checks need.
sub new_server
{
	my ($name, $streaming) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(allows_streaming => $streaming, extra => ['--data-checksums']);
	$node->append_conf('postgresql.conf', qq{
restart_after_crash = on
autovacuum = off
wal_skip_threshold = 0
});
	$node->start;
	$node->safe_psql('postgres',
		'CREATE EXTENSION petagen; CREATE EXTENSION pg_visibility; CREATE EXTENSION amcheck');
	is($node->safe_psql('postgres', 'SHOW data_checksums'), 'on', "$name: data checksums are on");
	return $node;
}

# Start a leaf load of $n rows (default $rows) into a new 8-leaf table on
# $node, of one field of 4,000 characters if $toast; returns the job.
sub start_leaf_job
{
	my ($node, $table, $n, $toast) = @_;
	$n //= $rows;
	my $args = $toast ? $toast_args : '';
	$node->safe_psql('postgres', "SELECT petagen.create_table('$table'"
		  . ($toast ? ', fields => 1, fieldlength => 4000' : '') . ')');
	return $node->safe_psql('postgres',
		"SELECT petagen.start($n, workers => 2, \"table\" => '$table', method => 'leaf'$args)");
}

# Hold both workers of a new leaf load of $table on $node ($n rows,
# $toast: as start_leaf_job()) in leaves $first and up, each with part of
# its leaf written; flush what of it is in shared buffers.  Returns the
# job, the leaf worker 0 holds and its keys written.
sub start_held_mid_leaf
{
	my ($node, $table, $first, $n, $toast) = @_;
	set_debug_pause($node, "mid_chunk:$first");
	my $job = start_leaf_job($node, $table, $n, $toast);
	wait_for_debug_pause($node, $job, 2);
	my ($leaf, $done) = split /\|/, $node->safe_psql('postgres',
		"SELECT leaf, done FROM petagen.status_details($job) WHERE worker = 0");
	cmp_ok($done, '>', 0, "$table: worker 0 has written part of leaf $leaf");
	$node->safe_psql('postgres', 'CHECKPOINT');
	return ($job, $leaf, $done);
}

# After the crash of a job held by start_held_mid_leaf() (of $n rows,
# default $rows, and start() arguments $args): the leaves in flight are
# empty; resume() finishes the job, exactly once; worker 0 was held before
# the end of its leaf.
sub check_resumed
{
	my ($node, $job, $table, $leaf, $done, $what, $n, $args) = @_;
	$n //= $rows;
	ok( poll_after_crash(
			$node, "SELECT state FROM petagen.status($job)", 'interrupted'),
		"$what: after the restart the job is interrupted");
	is( seqscan_psql($node, "SELECT (SELECT count(*) FROM $table) - (SELECT"
			  . " coalesce(sum(rows_written), 0) FROM petagen.chunks WHERE job = $job)"),
		'0', "$what: the leaves in flight are empty again");
	set_debug_pause($node, '');
	is($node->safe_psql('postgres', "SELECT petagen.resume($job)"),
		$job, "$what: resume() returns the job");
	check_load_exact($node, $job, $table, $n, $what, $args);
	cmp_ok($done, '<', $node->safe_psql('postgres', "SELECT count(*) FROM $leaf"),
		"$what: the worker was held before the end of its leaf");
	is(orphan_files($node), '0',
		"$what: no file of the database is left outside every relation");
}

# The rows of each leaf of $table on $node, hashed in key order.
sub leaf_hashes
{
	my ($node, $table) = @_;
	return seqscan_psql($node,
		"SELECT string_agg(format('%s %s', p.relid,"
		  . " (SELECT md5(string_agg(t::text, ',' ORDER BY ycsb_key)) FROM $table t"
		  . "  WHERE t.tableoid = p.relid)), ' ' ORDER BY p.relid::text)"
		  . " FROM pg_partition_tree('$table') p WHERE p.isleaf");
}

# A leaf load of $toast_rows rows of one field of 4,000 characters into a
# new 8-leaf table safe_toast on $node, stored out of line (TOAST), checked
# as the other loads, its TOAST tables too; none of their pages went
# through shared buffers.  Returns the job.
sub toast_load
{
	my ($node) = @_;
	my $name = $node->name;
	$node->safe_psql('postgres',
		"SELECT petagen.create_table('safe_toast', fields => 1, fieldlength => 4000)");
	my $job = $node->safe_psql('postgres',
		"SELECT petagen.start($toast_rows, workers => 2, \"table\" => 'safe_toast'$toast_args,"
		  . " method => 'leaf')");
	wait_done($node, $job, "$name toast: the job is done", '180s');
	is(toast_blocks_read($node, 'safe_toast', "$name toast"),
		'0', "$name toast: no page of a TOAST table went through shared buffers");
  SKIP:
	{
		my $buffers = toast_buffers($node, 'safe_toast');
		skip 'no pg_buffercache', 1 unless defined $buffers;
		is($buffers, '0', "$name toast: no shared buffer holds a page of a TOAST table");
	}
	check_load_exact($node, $job, 'safe_toast', $toast_rows, "$name toast", $toast_args);
	is( $node->safe_psql('postgres',
			"SELECT count(*) FROM pg_partition_tree('safe_toast') p JOIN pg_class c ON c.oid = p.relid"
			  . " WHERE p.isleaf AND pg_relation_size(c.reltoastrelid) > 0"),
		'8', "$name toast: every leaf's values are in its TOAST table");
	check_leaf_pages($node, 'safe_toast', "$name toast");
	check_toast_pages($node, 'safe_toast', "$name toast");
	return $job;
}

# A leaf load of $toast_kill_rows rows like toast_load()'s into a new
# table safe_toast_kill on $node, its worker 0 killed (SIGKILL) with part
# of a leaf and of its TOAST table written; resumed, checked as
# toast_load() checks.  Returns the job.
sub toast_kill
{
	my ($node) = @_;
	my $name = $node->name;
	my ($job, $leaf, $done) =
	  start_held_mid_leaf($node, 'safe_toast_kill', 1, $toast_kill_rows, 1);
	my $pid = $node->safe_psql('postgres',
		"SELECT pid FROM petagen.status_workers($job) WHERE worker = 0");
	ok(kill('KILL', $pid), "$name toast kill: SIGKILL sent to worker 0");
	check_resumed($node, $job, 'safe_toast_kill', $leaf, $done, "$name toast kill",
		$toast_kill_rows, $toast_args);
	check_leaf_pages($node, 'safe_toast_kill', "$name toast kill");
	check_toast_pages($node, 'safe_toast_kill', "$name toast kill");
	return $job;
}

# The four loads of @tables on $node, each checked on $node; returns
# their jobs.
sub crash_and_resume
{
	my ($node) = @_;
	my $name = $node->name;
	my ($clean, $kill, $immediate, $recovery) = @tables;
	my %jobs;

	$jobs{$clean} = start_leaf_job($node, $clean);
	check_load_exact($node, $jobs{$clean}, $clean, $rows, "$name clean");

	my ($job, $leaf, $done) = start_held_mid_leaf($node, $kill, 1);
	my $pid = $node->safe_psql('postgres',
		"SELECT pid FROM petagen.status_workers($job) WHERE worker = 0");
	ok(kill('KILL', $pid), "$name kill: SIGKILL sent to worker 0");
	check_resumed($node, $job, $kill, $leaf, $done, "$name kill");
	$jobs{$kill} = $job;

	($job, $leaf, $done) = start_held_mid_leaf($node, $immediate, 2);
	$node->stop('immediate');
	$node->start;
	check_resumed($node, $job, $immediate, $leaf, $done, "$name immediate stop");
	$jobs{$immediate} = $job;

	$job = start_leaf_job($node, $recovery);
	wait_done($node, $job, "$name recovery: the job is done", '180s');
	my $hashes = leaf_hashes($node, $recovery);
	$node->stop('immediate');
	$node->start;
	check_load_exact($node, $job, $recovery, $rows, "$name recovery");
	is(leaf_hashes($node, $recovery), $hashes,
		"$name recovery: each leaf's rows are as before the crash");
	$jobs{$recovery} = $job;

	check_leaf_pages($node, $_, "$name $_") foreach @tables;
	return \%jobs;
}

my $primary = new_server('primary', 1);
$primary->backup('before_loads');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'before_loads', has_streaming => 1);
$standby->start;
my $minimal = new_server('minimal', 0);

crash_and_resume($minimal);
toast_load($minimal);
my $jobs = crash_and_resume($primary);
$jobs->{safe_toast} = toast_load($primary);
$jobs->{safe_toast_kill} = toast_kill($primary);

# The standby, once it has replayed the primary's WAL, read-only.
$primary->wait_for_catchup($standby);
my %toasted = (safe_toast => $toast_rows, safe_toast_kill => $toast_kill_rows);
foreach my $table (@tables, sort keys %toasted)
{
	my ($n, $args) = $toasted{$table} ? ($toasted{$table}, $toast_args) : ($rows, '');
	check_load_exact($standby, $jobs->{$table}, $table, $n, "standby $table", $args);
	check_leaf_pages($standby, $table, "standby $table");
	check_toast_pages($standby, $table, "standby $table") if $toasted{$table};
	my $hashes = leaf_hashes($primary, $table);
	like($hashes, qr/^(\S+ [0-9a-f]{32} ?){8}$/, "$table: each of the 8 leaves hashed");
	is(leaf_hashes($standby, $table), $hashes,
		"$table: each leaf's rows on the standby are the primary's");
}
is(orphan_files($standby), '0',
	'standby: no file of the database is left outside every relation');
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't',
	'the standby checks ran on a hot standby');

# Data checksums of every server, stopped cleanly.
foreach my $node ($standby, $primary, $minimal)
{
	$node->stop;
	command_ok([ 'pg_checksums', '--check', '-D', $node->data_dir ],
		$node->name . ': pg_checksums --check passes');
}

done_testing();
