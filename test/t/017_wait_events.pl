# What pg_stat_activity says a throttled load worker waits for: from
# PostgreSQL 17 on petagen names its own wait events (WaitEventExtensionNew),
# so the worker sleeping for max_rate shows PetagenWorkerSleep; before 17
# every extension's wait is "Extension".
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $node = PostgreSQL::Test::Cluster->new('wait_events');
$node->init;
$node->append_conf('postgresql.conf', "max_worker_processes = 16\n");
$node->start;
my $version = $node->safe_psql('postgres', 'SHOW server_version_num');
my $event = $version >= 170000 ? 'PetagenWorkerSleep' : 'Extension';
$node->safe_psql('postgres', q{CREATE EXTENSION petagen; SELECT petagen.create_table('usertable');});

# 1 MB/s for a 200,000-row (about 220 MB) load: the worker mostly sleeps.
my $job = $node->safe_psql('postgres',
	q{SELECT petagen.start(200000, workers => 1, chunk_rows => 1000, max_rate => '1MB')});
ok( $node->poll_query_until(
		'postgres', qq{
SELECT count(*) > 0 FROM pg_stat_activity
WHERE backend_type = 'petagen worker' AND wait_event_type = 'Extension'
  AND wait_event = '$event'}),
	"$version: the throttled worker waits on wait event $event");
is($node->safe_psql('postgres', "SELECT petagen.stop($job)"), 'stopped', 'the job stops');

$node->stop;
done_testing();
