# A small load uses every worker it is given: start(1e5, workers => 2)
# without chunk_rows cuts the key space into 8 chunks of 12,500 rows, and
# both workers hold a chunk at once (status() shows each writing).  Rates
# are honest: progress_log rows are logged while chunks are written and
# count the rows still in flight, so a chunk is not credited to the moment
# it commits, and status()'s recent rate of workers that write nothing is
# 0.  petagen.debug_pause holds the workers where each check needs them,
# on any machine.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $node = PostgreSQL::Test::Cluster->new('small_load');
$node->init;
$node->start;
$node->safe_psql('postgres', q{CREATE EXTENSION petagen; SELECT petagen.create_table('usertable');});

# Both workers write their first chunk and are held before committing it.
set_debug_pause($node, 'before_commit');
my $job = $node->safe_psql('postgres', q{SELECT petagen.start(1e5, workers => 2, method => 'chunk')});
is($node->safe_psql('postgres', "SELECT chunk_rows FROM petagen.jobs WHERE job = $job"),
	'12500', 'chunk size: 100,000 rows for 2 workers are 8 chunks of 12,500');
wait_for_debug_pause($node, $job, 2);
is( $node->safe_psql('postgres',
		"SELECT string_agg(rows_written::text, ',' ORDER BY worker)"
		  . " FROM petagen.status_workers($job) WHERE worker IS NOT NULL"),
	'12500,12500', 'status: each of the two workers has written a chunk');
ok( $node->poll_query_until(
		'postgres',
		"SELECT string_agg(rows_per_s::text, ',' ORDER BY worker NULLS LAST)"
		  . " FROM petagen.status_workers($job)",
		'0,0,0'),
	'status: the recent rate of held workers, and of the job, falls to 0');

# Let chunk 0 commit, chunk 1 stays held.
set_debug_pause($node, 'before_commit:1');
ok( $node->poll_query_until(
		'postgres', "SELECT count(*) FROM petagen.chunks WHERE job = $job", '1'),
	'chunk 0 commits, the others are held');

set_debug_pause($node, '');
wait_done($node, $job, 'the job is done');
# The first row was logged at a worker's first batch (a flush, or 10,000
# keys: before its 12,500-row chunk was done), counting rows in flight.
ok( $node->safe_psql('postgres',
		"SELECT rows_written BETWEEN 1 AND 24999 FROM petagen.progress_log WHERE job = $job"
		  . " ORDER BY logged_at LIMIT 1") eq 't',
	'progress_log: the first row counts rows in flight, logged before the first chunks were done');
is( $node->safe_psql('postgres',
		"SELECT count(*), count(DISTINCT worker), sum(rows_written) FROM petagen.chunks WHERE job = $job"),
	'8|2|100000', 'the ledger: 8 chunks, loaded by both workers');
is( $node->safe_psql('postgres',
		"SELECT count(*), count(*) FILTER (WHERE ok) FROM petagen.verify(${job}::bigint)"),
	'8|8', 'verify() is ok on every leaf');
is( $node->safe_psql('postgres',
		"SELECT rows_written FROM petagen.progress_log WHERE job = $job"
		  . " ORDER BY logged_at DESC LIMIT 1"),
	'100000', 'progress_log: the last row is the job\'s end');

$node->stop;
done_testing();
