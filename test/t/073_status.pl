# status() is one row per job, status_workers() its phases and workers.
#
# 1. A leaf job held in routing (its disk reserve leaves no room for a
#    routing file) shows phase routing, and status_workers() a routing row
#    with its own percent, the loading phase pending.
# 2. Workers held by petagen.debug_pause before their commit: each
#    worker's percent is its own (its chunk, or leaf, fully written: about
#    100, not its share of the job), and a leaf job's worker names its leaf.
# 3. A job with indexes => 'after', held with every key loaded, then in
#    its index build (a lock the test holds on a leaf): the whole-job
#    percent is at least what it was while loading (it never goes back)
#    and the ETA is known.
# 4. A job stopped and resumed keeps its first started_at; done, it shows
#    its elapsed time and state done.
# 5. status() without an argument hides a job that ended more than an hour
#    ago; status(job) shows it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $rows = 200000;

my $node = PostgreSQL::Test::Cluster->new('status');
$node->init;
$node->append_conf('postgresql.conf', 'autovacuum = off');
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION petagen');

# The whole-job percent status($job) shows in its progress bar.
sub whole_percent
{
	my ($job) = @_;
	return $node->safe_psql('postgres',
		"SELECT substring(progress FROM '([0-9.]+)%')::float8 FROM petagen.status($job)");
}

# 1. A leaf job held in routing.
$node->safe_psql('postgres', "SELECT petagen.create_table('routed')");
my $job = $node->safe_psql('postgres',
	qq{SELECT petagen.start($rows, workers => 1, "table" => 'routed', chunk_rows => 25000,
	   method => 'leaf', disk_reserve => '1000PB', force => true)});
ok( $node->poll_query_until(
		'postgres', "SELECT state FROM petagen.status($job)", 'paused'),
	'routing: the leaf job waits for room for its routing files');
is( $node->safe_psql('postgres',
		"SELECT j.method, s.phase, s.progress ~ '^[#.]{10} +[0-9.]+%\$'"
		  . " FROM petagen.status($job) s JOIN petagen.jobs j USING (job)"),
	'leaf|routing|t', 'routing: status() shows phase routing');
is( $node->safe_psql('postgres',
		"SELECT string_agg(format('%s:%s:%s/%s:%s', phase, state, done, total, percent), ' ')"
		  . " FROM petagen.status_details($job) WHERE worker IS NULL"),
	'routing:paused:0/8:0 loading:pending:0/200000:0',
	'routing: status_workers() shows the routing phase with its own progress, loading pending');
is($node->safe_psql('postgres', "SELECT petagen.stop($job)"), 'stopped', 'routing: stopped');

# 2. Each worker's own percent, and the leaf a leaf job's worker writes.
set_debug_pause($node, 'before_commit');
$node->safe_psql('postgres', "SELECT petagen.create_table('chunked')");
$job = $node->safe_psql('postgres',
	qq{SELECT petagen.start($rows, workers => 2, "table" => 'chunked', chunk_rows => 25000,
	   method => 'chunk')});
wait_for_debug_pause($node, $job, 2);
is( $node->safe_psql('postgres',
		"SELECT string_agg(format('%s:%s/%s:%s', chunk, done, total, percent), ' ' ORDER BY chunk)"
		  . " FROM petagen.status_details($job) WHERE worker IS NOT NULL"),
	'0:25000/25000:100 1:25000/25000:100',
	'workers: each chunk worker\'s percent is its own chunk\'s');
is( $node->safe_psql('postgres',
		"SELECT string_agg(format('%s:%s', unit, percent), ' ' ORDER BY unit)"
		  . " FROM petagen.status_workers($job) WHERE worker IS NOT NULL"),
	'chunk 0:100 chunk 1:100', 'workers: status_workers() names each worker\'s chunk as its unit');
is($node->safe_psql('postgres', "SELECT petagen.stop($job)"), 'stopped', 'workers: chunk job stopped');

$node->safe_psql('postgres', "SELECT petagen.create_table('leafy')");
$job = $node->safe_psql('postgres',
	qq{SELECT petagen.start($rows, workers => 2, "table" => 'leafy', chunk_rows => 25000,
	   method => 'leaf')});
wait_for_debug_pause($node, $job, 2);
is( $node->safe_psql('postgres',
		"SELECT string_agg(format('%s:%s', leaf, chunk), ' ' ORDER BY chunk),"
		  . " bool_and(percent BETWEEN 90 AND 100), bool_and(phase = 'loading')"
		  . " FROM petagen.status_details($job) WHERE worker IS NOT NULL"),
	'leafy_p0:0 leafy_p1:1|t|t',
	'workers: a leaf worker names its leaf, its percent is its own leaf\'s');
is( $node->safe_psql('postgres',
		"SELECT string_agg(unit, ' ' ORDER BY unit)"
		  . " FROM petagen.status_workers($job) WHERE worker IS NOT NULL"),
	'leafy_p0 leafy_p1', 'workers: status_workers() names a leaf worker\'s leaf as its unit');
is( $node->safe_psql('postgres',
		"SELECT string_agg(format('%s:%s', phase, state), ' ')"
		  . " FROM petagen.status_workers($job) WHERE worker IS NULL"),
	'routing:done loading:running', 'workers: routing is done, loading runs');
is($node->safe_psql('postgres', "SELECT petagen.stop($job)"), 'stopped', 'workers: leaf job stopped');

# 3. Indexes after: the whole percent never goes back when indexing begins.
#    The workers are held with every key written (chunks 6 and 7 of 8 not
#    committed): loading is complete, indexing not begun.
set_debug_pause($node, 'before_commit:6');
$node->safe_psql('postgres', "SELECT petagen.create_table('indexed')");
$job = $node->safe_psql('postgres',
	qq{SELECT petagen.start($rows, workers => 2, "table" => 'indexed', chunk_rows => 25000,
	   indexes => 'after')});
wait_for_debug_pause($node, $job, 2);
my $loading = whole_percent($job);
is( $node->safe_psql('postgres',
		"SELECT percent FROM petagen.status_workers($job) WHERE phase = 'loading' AND worker IS NULL"),
	'100', 'indexes after: every key is loaded');
cmp_ok($loading, '<', 100, "indexes after: the whole job is not: $loading%");
my $blocker = $node->background_psql('postgres');
$blocker->query_safe('BEGIN; LOCK TABLE indexed_p7 IN ROW EXCLUSIVE MODE');
set_debug_pause($node, '');
ok( $node->poll_query_until(
		'postgres',
		"SELECT count(*) > 0 FROM petagen.status_details($job)"
		  . " WHERE phase = 'indexing' AND current_index LIKE 'indexed_p7%'"),
	'indexes after: a worker waits to build an index of the locked leaf');
my $indexing = whole_percent($job);
cmp_ok($indexing, '>=', $loading,
	"indexes after: indexing shows $indexing%, not less than while loading");
cmp_ok($indexing, '<', 100, 'indexes after: not done yet');
is( $node->safe_psql('postgres',
		"SELECT phase, eta IS NOT NULL, rate IS NULL FROM petagen.status($job)"),
	'indexing|t|t', 'indexes after: phase indexing, an ETA, no row rate');
$blocker->query_safe('COMMIT');
$blocker->quit;
wait_done($node, $job, 'indexes after: the job is done', '180s');
is( $node->safe_psql('postgres',
		"SELECT phase, progress, eta FROM petagen.status($job)"),
	'done|########## 100.0%|00:00:00', 'indexes after: done shows 100%');

# 4. started_at survives stop() and resume(); a done job shows its elapsed time.
set_debug_pause($node, 'before_commit');
$node->safe_psql('postgres', "SELECT petagen.create_table('resumed')");
$job = $node->safe_psql('postgres',
	qq{SELECT petagen.start($rows, workers => 2, "table" => 'resumed', chunk_rows => 25000,
	   method => 'chunk')});
wait_for_debug_pause($node, $job, 2);
my $started = $node->safe_psql('postgres', "SELECT started_at FROM petagen.jobs WHERE job = $job");
is($node->safe_psql('postgres', "SELECT petagen.stop($job)"), 'stopped', 'resume: stopped');
is( $node->safe_psql('postgres', "SELECT state, elapsed IS NOT NULL, eta FROM petagen.status($job)"),
	'stopped|t|', 'resume: a stopped job shows its elapsed time, no ETA');
set_debug_pause($node, '');
$node->safe_psql('postgres', "SELECT petagen.resume($job)");
wait_done($node, $job, 'resume: done', '180s');
is( $node->safe_psql('postgres',
		"SELECT started_at = '$started', run_started_at > started_at"
		  . " FROM petagen.jobs WHERE job = $job"),
	't|t', 'resume: started_at keeps the first start, run_started_at the run\'s');
is( $node->safe_psql('postgres',
		"SELECT s.state, abs(extract(epoch FROM s.elapsed - (j.finished_at - j.started_at))) <= 1"
		  . " FROM petagen.status($job) s, petagen.jobs j WHERE j.job = $job"),
	'done|t', 'resume: the done job shows its elapsed time, from its first start');

# 5. A job that ended more than an hour ago leaves the default list.
is($node->safe_psql('postgres', "SELECT count(*) FROM petagen.status() WHERE job = $job"),
	'1', 'recent: a job done a moment ago is listed');
$node->safe_psql('postgres',
	"UPDATE petagen.jobs SET finished_at = finished_at - interval '61 minutes' WHERE job = $job");
is($node->safe_psql('postgres', "SELECT count(*) FROM petagen.status() WHERE job = $job"),
	'0', 'recent: a job done more than an hour ago is not listed');
is($node->safe_psql('postgres', "SELECT state FROM petagen.status($job)"),
	'done', 'recent: status(job) still shows it');
is( $node->safe_psql('postgres',
		"SELECT count(*) FROM petagen.status() s JOIN petagen.jobs j USING (job)"
		  . " WHERE j.state = 'stopped'"),
	'3', 'recent: the stopped jobs (waiting for resume()) are listed');

$node->stop;
done_testing();
