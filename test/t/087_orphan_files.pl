# The files a crash leaves of the leaves a leaf load (method => 'leaf')
# had in flight go, on the primary and on a streaming standby, even when
# a second crash comes before a checkpoint; the records of a dropped
# database go too.
#
# A primary at wal_level = replica (no timed checkpoint: checkpoint_timeout
# 1h, max_wal_size 4GB) with a standby made from a base backup taken
# before any load.  petagen.debug_pause holds both workers of a leaf load
# mid_chunk, each with its leaf's new heap and index files partly written;
# an immediate stop crashes the primary (crash 1).  The files of the two
# leaves in flight are then outside every relation on both servers.
# resume() drops them (in its transaction: the commit record lists them)
# and its workers are held again in new leaves; a second immediate stop
# (crash 2) comes before any checkpoint: PostgreSQL only truncates a
# dropped file at commit and unlinks it at the next checkpoint, so crash
# recovery must replay resume()'s commit record to unlink them.  None of
# crash 1's files is left on either server, not even empty.  resume()
# in a transaction that rolls back drops nothing and keeps the records;
# a resume() that commits finishes the job, and no file of the database
# is left outside every relation on the primary, nor on the standby once
# it has replayed the primary's WAL.
#
# A leaf load held mid_chunk in a second database leaves records when
# its worker is killed; after DROP DATABASE, the next start() in another
# database removes them.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $rows = 30000;

# The names of the files of database $db of $node that no relation uses,
# sorted, as listed now (no checkpoint first: dropped files only
# truncated are listed too).
sub unused_files
{
	my ($node, $db) = @_;
	return $node->safe_psql($db // 'postgres', q{SELECT string_agg(f, ' ' ORDER BY f)
		FROM pg_ls_dir('base/' || (SELECT oid FROM pg_database
		  WHERE datname = current_database())) f
		WHERE f ~ '^\d+$' AND pg_filenode_relation(0, f::oid) IS NULL});
}

# How many of the files named in $names (space-separated) are in the
# directory of database postgres of $node.
sub files_left
{
	my ($node, $names) = @_;
	my $list = join(',', map { "'$_'" } split / /, $names);
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_ls_dir('base/' || (SELECT oid FROM pg_database"
		  . " WHERE datname = 'postgres')) f WHERE f IN ($list)");
}

# The records of leaves in flight of job $job (of database $db, default
# postgres) on $node.
sub records
{
	my ($node, $job, $db) = @_;
	return $node->safe_psql($db // 'postgres',
		"SELECT count(*) FROM pg_ls_dir('pg_petagen/storage', true, false) f"
		  . " WHERE f LIKE (SELECT oid FROM pg_database WHERE datname = current_database())"
		  . " || '\\_${job}\\_%'");
}

# Wait until both workers of $job on $node are held by petagen.debug_pause
# and have written part of their leaves.
sub wait_held
{
	my ($node, $job) = @_;
	wait_for_debug_pause($node, $job, 2);
	is( $node->safe_psql('postgres',
			"SELECT count(*) FROM petagen.status_workers($job) WHERE worker IS NOT NULL AND rows_written > 0"),
		'2', "job $job: both workers hold a leaf partly written");
}

# Crash $node (immediate stop) and restart it; wait until $job is
# interrupted.
sub crash
{
	my ($node, $job, $what) = @_;
	$node->stop('immediate');
	$node->start;
	ok(poll_after_crash($node, "SELECT state FROM petagen.status($job)", 'interrupted'),
		"$what: after the restart the job is interrupted");
}

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
restart_after_crash = on
autovacuum = off
checkpoint_timeout = '1h'
max_wal_size = '4GB'
});
$primary->start;
$primary->backup('before_loads');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'before_loads', has_streaming => 1);
$standby->start;

$primary->safe_psql('postgres',
	"CREATE EXTENSION petagen; SELECT petagen.create_table('orphans')");
set_debug_pause($primary, 'mid_chunk:1');
my $job = $primary->safe_psql('postgres',
	"SELECT petagen.start($rows, workers => 2, \"table\" => 'orphans', method => 'leaf')");
wait_held($primary, $job);
crash($primary, $job, 'crash 1');

# The files of crash 1's leaves in flight, on both servers.
my $crash1 = unused_files($primary);
my $ncrash1 = scalar(split / /, $crash1);
my $per_leaf = $primary->safe_psql('postgres',
	"SELECT CASE WHEN reltoastrelid <> 0 THEN 4 ELSE 2 END FROM pg_class WHERE relname = 'orphans_p1'");
is($ncrash1, 2 * $per_leaf,
	'crash 1: the heap, primary key and TOAST files of the 2 leaves in flight are outside every relation');
cmp_ok(records($primary, $job), '>=', 2, 'crash 1: the leaves in flight are recorded');
$primary->wait_for_catchup($standby);
is(files_left($standby, $crash1), $ncrash1, 'crash 1: the standby has the same files');

# resume() drops them; its workers are held again; crash 2 comes before
# any checkpoint.
my ($ret, $stdout, $stderr) = $primary->psql('postgres', "SELECT petagen.resume($job)");
is($ret, 0, 'resume() after crash 1 succeeds');
like($stderr, qr/NOTICE:  removed the files of $ncrash1 relations left by leaves a crash interrupted/,
	'resume() after crash 1 says how many files it drops');
wait_held($primary, $job);
is(files_left($primary, $crash1), $ncrash1,
	'crash 1: dropped files stay (truncated) until the next checkpoint');
crash($primary, $job, 'crash 2');
is(files_left($primary, $crash1), '0',
	'crash 2 before a checkpoint: none of the files resume() dropped is left');

# A resume() that rolls back drops nothing and keeps the records.
my $crash2 = unused_files($primary);
cmp_ok(records($primary, $job), '>=', 2, 'crash 2: the leaves in flight are recorded');
set_debug_pause($primary, '');
$primary->safe_psql('postgres', "BEGIN; SELECT petagen.resume($job); ROLLBACK");
cmp_ok(records($primary, $job), '>=', 2, 'a resume() rolled back keeps the records');
is(files_left($primary, $crash2), scalar(split / /, $crash2),
	'a resume() rolled back keeps the files');

is($primary->safe_psql('postgres', "SELECT petagen.resume($job)"), $job,
	'resume() after crash 2 returns the job');
wait_done($primary, $job, 'the job is done', '180s');
is(seqscan_psql($primary, 'SELECT count(*) FROM orphans'), $rows,
	'the table holds the key space');
is( $primary->safe_psql('postgres',
		"SELECT count(*) FILTER (WHERE ok) FROM petagen.verify(${job}::bigint)"),
	'8', 'verify() is ok on every leaf');
is(records($primary, $job), '0', 'no record of the job is left');
is(orphan_files($primary), '0',
	'primary: no file of the database is left outside every relation');

$primary->wait_for_catchup($standby);
is(files_left($standby, $crash1), '0', 'standby: none of the files of crash 1 is left');
is(orphan_files($standby), '0',
	'standby: no file of the database is left outside every relation');
is(seqscan_psql($standby, 'SELECT count(*) FROM orphans'), $rows,
	'standby: the table holds the key space');

# Records of a dropped database.
$primary->safe_psql('postgres', 'CREATE DATABASE gone');
$primary->safe_psql('gone',
	"CREATE EXTENSION petagen; SELECT petagen.create_table('orphans')");
set_debug_pause($primary, 'mid_chunk:1');
my $job_gone = $primary->safe_psql('gone',
	"SELECT petagen.start($rows, workers => 2, \"table\" => 'orphans', method => 'leaf')");
$primary->poll_query_until('gone',
	"SELECT count(*) FROM petagen.status_workers($job_gone)"
	  . " WHERE worker IS NOT NULL AND reason LIKE 'petagen.debug_pause:%'", 2)
  or die "job $job_gone of database gone: its workers are not held";
my $gone_oid = $primary->safe_psql('postgres',
	"SELECT oid FROM pg_database WHERE datname = 'gone'");
my $pid = $primary->safe_psql('gone',
	"SELECT pid FROM petagen.status_workers($job_gone) WHERE worker = 0");
ok(kill('KILL', $pid), 'database gone: SIGKILL sent to worker 0');
ok(poll_after_crash($primary, "SELECT state FROM petagen.status($job_gone)", 'interrupted', 'gone'),
	'database gone: after the restart the job is interrupted');
set_debug_pause($primary, '');
my $gone_records = "SELECT count(*) FROM pg_ls_dir('pg_petagen/storage', true, false) f"
  . " WHERE f LIKE '${gone_oid}\\_%'";
cmp_ok($primary->safe_psql('postgres', $gone_records), '>=', 2,
	'database gone: the leaves in flight are recorded');
$primary->safe_psql('postgres', 'DROP DATABASE gone');
cmp_ok($primary->safe_psql('postgres', $gone_records), '>=', 2,
	'database gone: its records outlive DROP DATABASE');
$primary->safe_psql('postgres', "SELECT petagen.create_table('swept')");
my $job_swept = $primary->safe_psql('postgres',
	"SELECT petagen.start(1000, workers => 1, \"table\" => 'swept')");
wait_done($primary, $job_swept, 'a job in another database is done', '180s');
is($primary->safe_psql('postgres', $gone_records), '0',
	'database gone: start() in another database removed its records');

done_testing();
