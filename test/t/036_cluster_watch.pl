# Watching a cluster load from one node, on three postgres_fdw nodes:
#
# 1. cluster_wait() across the commits of a leaf load: every node's worker
#    is held by petagen.debug_pause just before it commits its first leaf
#    while cluster_wait() runs on node1; it holds no lock on any leaf (a
#    leaf commits under ACCESS EXCLUSIVE), waits, and once the workers are
#    let go returns done for every node; cluster_verify() then verifies
#    each node's own leaves there, every key exactly once, and
#    chart_cluster_load() draws every node's rate.
# 2. The straggler rule: with petagen.straggler_window at 20 s, a node
#    throttled by its own alter(max_rate) to a tenth of the others is not
#    named at once (its rate over the window is still mostly the old one),
#    and is named only once enough of the window has passed, with what its
#    worker waits on (its own sleep).
# 3. What a worker waits on: status_details() shows each worker's wait
#    shares and the limit that binds, and status_workers() the limits of a
#    running worker that has no other reason to show.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time);
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;
use PetagenCluster;

my ($n, $parts, $rows) = (3, 12, 60000);
my @nodes = petagen_cluster(nodes => $n, parts => $parts);
my $node1 = $nodes[0];

# Run $sql on node1, psql's unaligned output.
sub on1
{
	my ($sql) = @_;
	return $node1->safe_psql('postgres', $sql);
}

# The job of node $name in cluster job $cj.
sub job_of
{
	my ($cj, $name) = @_;
	return on1("SELECT job FROM petagen.cluster_jobs WHERE cluster_job = $cj AND node = '$name'");
}

# 1. cluster_wait() across the leaf commits.
set_debug_pause($_, 'before_commit') for @nodes;
my $cj = on1("SELECT petagen.cluster_start($rows, workers => 1, method => 'leaf')");
wait_for_debug_pause($nodes[ $_ - 1 ], job_of($cj, "node$_"), 1) for 1 .. $n;

my ($out, $err) = ('', '');
my $waiter = IPC::Run::start(
	[ 'psql', '-XAtq', '-d', $node1->connstr('postgres'), '-c',
		"SELECT string_agg(node || ':' || state, ' ' ORDER BY node) FROM petagen.cluster_wait($cj)" ],
	'>', \$out, '2>', \$err, IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
ok( $node1->poll_query_until(
		'postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%petagen.cluster_wait($cj)%'"
		  . " AND state = 'active' AND pid <> pg_backend_pid()",
		'1'),
	'cluster_wait() runs on node1 while every node\'s leaf worker is held before its commit');
is( on1("SELECT count(*) FROM pg_locks AS l JOIN pg_stat_activity AS a ON a.pid = l.pid"
		  . " JOIN pg_class AS c ON c.oid = l.relation"
		  . " WHERE a.query LIKE '%petagen.cluster_wait($cj)%' AND a.pid <> pg_backend_pid()"
		  . " AND c.relname LIKE 'usertable_p%' AND c.relkind = 'r'"),
	'0', 'cluster_wait() holds no lock on a local leaf of node1');
ok($waiter->pumpable, 'cluster_wait() has not returned while the leaves are held');
set_debug_pause($_, '') for @nodes;
$waiter->finish;
is($err, '', 'cluster_wait(): no error');
is($out, "node1:done node2:done node3:done\n",
	'cluster_wait() returns done for every node once the leaf commits go through');

is( on1("SELECT count(*), count(DISTINCT node), bool_and(ok), sum(expected), sum(present),"
		  . " sum(missing) + sum(extra) + sum(duplicated) FROM petagen.cluster_verify($cj)"),
	"$parts|$n|t|$rows|$rows|0", 'cluster_verify(): every leaf once, every key exactly once');
for my $i (1 .. $n)
{
	is( on1("SELECT string_agg(leaf, ' ' ORDER BY leaf) FROM petagen.cluster_verify($cj)"
			  . " WHERE node = 'node$i'"),
		join(' ', sort(map { "public.$_" } node_leaves($i, $n, $parts))),
		"cluster_verify(): node$i verified the leaves it stores");
}
my $svg = on1("SELECT petagen.chart_cluster_load($cj)");
like($svg, qr/^<svg .*node1.*node2.*node3/s, 'chart_cluster_load(): a line per node');
like(error_of($node1, 'SELECT petagen.chart_cluster_load(4242)'),
	qr/^42704: cluster job 4242 does not exist/, 'chart_cluster_load() of no such cluster job');

# 2. The straggler rule.  Every node loads at 2MB/s; once every node has
# loaded for a whole window, node2 is throttled to 200kB/s by its own
# alter().
set_setting($node1, 'straggler_window', '20s');
my $window = 20;
$cj = on1("SELECT petagen.cluster_start(3e6, first => $rows, workers => 1, chunk_rows => 5000,"
	  . " method => 'chunk', max_rate => '2MB')");
my $job2 = job_of($cj, 'node2');
my $loading_all = "SELECT count(*) FROM petagen.cluster_status($cj)"
  . " WHERE node <> 'total' AND state IN ('running', 'throttled')";
ok($node1->poll_query_until('postgres', $loading_all, $n), 'every node loads');
# a whole window of loading on every node: each has a rate over it
ok( $nodes[$_]->poll_query_until(
		'postgres',
		'SELECT petagen._recent_rate(' . job_of($cj, 'node' . ($_ + 1)) . ", $window) > 0"),
	'node' . ($_ + 1) . ' has loaded for a whole window')
  for 0 .. $n - 1;
is( on1("SELECT count(*) FROM petagen.cluster_status($cj) WHERE note LIKE 'straggler%'"),
	'0', 'at the same rate, no node straggles');

my $throttled_at = time();
$nodes[1]->safe_psql('postgres', "SELECT petagen.alter($job2, max_rate => '200kB')");
my $first = on1("SELECT count(*) FROM petagen.cluster_status($cj) WHERE note LIKE 'straggler%'");
my $after = time() - $throttled_at;
SKIP:
{
	# node2 is named once more than 4/9 of the window is past (0.1 after,
	# 1 before): a reading within 0.3 of it must not name it
	skip "the first reading came ${after}s after the throttle", 1 if $after > 0.3 * $window;
	is($first, '0', "${after}s after node2 was throttled: not named yet");
}
my $wait = $node1->safe_psql('postgres', 'SHOW server_version_num') >= 160000
  ? ', (write [0-9.]+ ms|no io timing)' : '';
ok( $node1->poll_query_until(
		'postgres',
		"SELECT count(*) FROM petagen.cluster_status($cj)"
		  . " WHERE node = 'node2' AND note ~ '^straggler [0-9]+% of median: sleep [0-9]+%$wait\$'",
		'1'),
	'cluster_status(): node2 is named straggler, its worker sleeping for its max_rate');
my $named = time() - $throttled_at;
cmp_ok($named, '>=', 0.35 * $window,
	"node2 was named only once its slow stretch filled much of the window (${named}s)");
is( on1("SELECT string_agg(node, ' ' ORDER BY node) FROM petagen.cluster_status($cj)"
		  . " WHERE note LIKE 'straggler%'"),
	'node2', 'cluster_status(): only node2 straggles');

# 3. What the workers wait on.  node2's throttled worker sleeps: its
# samples say so, and its limit is the sleep.
like(
	$nodes[1]->safe_psql('postgres',
		"SELECT waits || ' / ' || bound FROM petagen.status_details($job2) WHERE worker = 0"),
	qr/^Extension:(Extension|PetagenWorkerSleep) \d+%.* \/ sleep$/,
	'status_details(): the throttled worker waits on its sleep, the limit that binds');
like($nodes[1]->safe_psql('postgres', "SELECT petagen._job_waits($job2)"),
	qr/^sleep \d+%/, '_job_waits(): the job\'s workers sleep most');
# node3 unthrottled: its worker runs without a reason, and status_workers()
# shows what it waits on instead
my $job3 = job_of($cj, 'node3');
$nodes[2]->safe_psql('postgres', "SELECT petagen.alter($job3, max_rate => '0')");
ok( $nodes[2]->poll_query_until(
		'postgres',
		"SELECT count(*) FROM petagen.status_workers($job3) WHERE worker = 0 AND state = 'running'"
		  . " AND reason ~ '^(CPU|data writes|syncs|WAL|locks|reads|sleep|other) [0-9]+%'",
		'1'),
	'status_workers(): a running worker shows the shares of the limits it waits on');
is( on1("SELECT string_agg(node || ':' || (error IS NULL), ' ' ORDER BY node) FROM petagen.cluster_stop($cj)"
		  . " WHERE node <> 'node3'"),
	'node1:true node2:true', 'cluster_stop(): the throttled nodes stopped');

done_testing();
