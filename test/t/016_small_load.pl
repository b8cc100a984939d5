# A small load uses every worker it is given: start(1e5, workers => 2)
# without chunk_rows cuts the key space into 8 chunks of 12,500 rows, and
# both workers hold a chunk at once (status() shows each writing).
# petagen.debug_pause holds the workers there, on any machine.
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
$node->safe_psql('postgres', usertable_sql('usertable') . 'CREATE EXTENSION petagen;');

# Both workers write their first chunk and are held before committing it.
set_debug_pause($node, 'before_commit');
my $job = $node->safe_psql('postgres', 'SELECT petagen.start(1e5, workers => 2)');
is($node->safe_psql('postgres', "SELECT chunk_rows FROM petagen.jobs WHERE job = $job"),
	'12500', 'chunk size: 100,000 rows for 2 workers are 8 chunks of 12,500');
wait_for_debug_pause($node, $job, 2);
is( $node->safe_psql('postgres',
		"SELECT string_agg(rows_written::text, ',' ORDER BY worker)"
		  . " FROM petagen.status($job) WHERE worker IS NOT NULL"),
	'12500,12500', 'status: each of the two workers has written a chunk');

set_debug_pause($node, '');
is($node->safe_psql('postgres', "SELECT petagen.wait($job, '120s')"),
	'done', 'the job is done');
is( $node->safe_psql('postgres',
		"SELECT count(*), count(DISTINCT worker), sum(rows_written) FROM petagen.chunks WHERE job = $job"),
	'8|2|100000', 'the ledger: 8 chunks, loaded by both workers');
is( $node->safe_psql('postgres',
		"SELECT count(*), count(*) FILTER (WHERE ok) FROM petagen.verify(${job}::bigint)"),
	'8|8', 'verify() is ok on every leaf');
$node->stop;
done_testing();
