# Benchmarks of a three-node postgres_fdw cluster driven from node1.
# cluster_bench() runs bench() on every node at once, each run starting at
# the one instant agreed (every node's recorded start within a bound of
# it); the cluster row's tps is the sum of the nodes', and its p99 the p99
# of the union of every node's latency buckets, computed here from the
# buckets each node keeps.  bench() refuses a start_at in the past or too
# far ahead.  A cancelled cluster_bench() ends every node's run.
# cluster_bench_sweep() makes one sweep of cluster rows; cluster_matrix()
# gives the N x N node matrix that chart_matrix() draws.  A node down is a
# row with its error in cluster_bench() and cluster_matrix(), while the
# others run.
use strict;
use warnings;
use POSIX qw(ceil floor log10);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;
use PetagenCluster;

my ($n, $parts, $rows) = (3, 12, 30000);
my @nodes = petagen_cluster(nodes => $n, parts => $parts);
my $node1 = $nodes[0];

# Run $sql on node1, psql's unaligned output.
sub on1
{
	my ($sql) = @_;
	return $node1->safe_psql('postgres', $sql);
}

# x rounded to 3 significant digits, as bench_results' latencies are.
sub round3
{
	my ($x) = @_;
	return $x if $x == 0;
	my $scale = 10**(3 - ceil(log10(abs($x))));
	return floor($x * $scale + 0.5) / $scale;
}

my $cj = on1("SELECT petagen.cluster_start($rows, workers => 1, method => 'chunk')");
is(on1("SELECT string_agg(node || ':' || state, ' ' ORDER BY node) FROM petagen.cluster_wait($cj)"),
	'node1:done node2:done node3:done', 'the cluster is loaded');

# bench()'s start_at: not in the past, not more than an hour ahead.
like(
	error_of($node1,
		"SELECT * FROM petagen.bench('select', workers => 1, duration => '1 s',"
		  . " start_at => clock_timestamp() - interval '1 s')"),
	qr/^22023: start_at .* is in the past/,
	'bench(): a start_at in the past is refused');
like(
	error_of($node1,
		"SELECT * FROM petagen.bench('select', workers => 1, duration => '1 s',"
		  . " start_at => clock_timestamp() + interval '2 hours')"),
	qr/^22023: start_at .* is more than an hour ahead/,
	'bench(): a start_at two hours ahead is refused');

# One cluster benchmark: a row per node, then the cluster row.
my $out = on1(
	"SELECT node, id, error IS NULL, operations > 0, errors FROM petagen.cluster_bench('select',"
	  . " workers => 1, duration => '2 s') ORDER BY node = 'cluster', node");
my @rows = map { [ split /\|/ ] } split /\n/, $out;
is(join(' ', map { "$_->[0]:$_->[2]:$_->[3]:$_->[4]" } @rows),
	'node1:t:t:0 node2:t:t:0 node3:t:t:0 cluster:t:t:0',
	'cluster_bench(): every node ran, then the cluster row');
my %run = map { $_->[0] => $_->[1] } @rows;
my $cid = $run{cluster};

# Every node's run started at the agreed instant, recorded on the node.
my $start_at = on1("SELECT options->>'start_at' FROM petagen.bench_results WHERE id = $cid");
ok($start_at ne '', "the cluster row records the agreed instant ($start_at)");
for my $i (1 .. $n)
{
	my ($lag, $agreed) = split /\|/, $nodes[ $i - 1 ]->safe_psql('postgres',
		"SELECT extract(epoch FROM started_at - '$start_at'::timestamptz),"
		  . " (options->>'start_at')::timestamptz = '$start_at'::timestamptz"
		  . " FROM petagen.bench_results WHERE id = " . $run{"node$i"});
	ok($lag >= 0 && $lag < 0.5 && $agreed eq 't',
		"node$i: its run was given the instant and started ${lag}s after it");
}

# The cluster row's tps is the sum of the nodes', its operations too.
my (@tps, @ops);
for my $i (1 .. $n)
{
	my ($t, $o) = split /\|/, $nodes[ $i - 1 ]->safe_psql('postgres',
		'SELECT tps, operations FROM petagen.bench_results WHERE id = ' . $run{"node$i"});
	push @tps, $t;
	push @ops, $o;
}
my ($ctps, $cops, $cp99, $cpath) = split /\|/,
  on1("SELECT tps, operations, p99_us, path FROM petagen.bench_results WHERE id = $cid");
my $sum = 0;
$sum += $_ for @tps;
ok(abs($ctps - $sum) < 0.05, "cluster tps $ctps is the sum of the nodes' (@tps)");
my $opsum = 0;
$opsum += $_ for @ops;
is($cops, $opsum, 'cluster operations are the sum of the nodes\'');
is($cpath, 'cluster', 'the cluster row\'s path is cluster');

# Its p99 is the p99 of the union of the nodes' buckets: count per bucket
# summed over the nodes, the bucket holding rank ceil(0.99 * count), its
# middle (never above the largest latency), to 3 significant digits.
my (%buckets, $max_us);
for my $i (1 .. $n)
{
	my $id = $run{"node$i"};
	for (split /\n/, $nodes[ $i - 1 ]->safe_psql('postgres',
		"SELECT lower_us, upper_us, count FROM petagen.bench_histogram($id, 'all')"))
	{
		my ($lo, $hi, $c) = split /\|/;
		$buckets{$lo}{hi} = $hi;
		$buckets{$lo}{count} += $c;
	}
	my $m = $nodes[ $i - 1 ]->safe_psql('postgres',
		"SELECT latency_us FROM petagen.bench_percentiles($id, '{100}', 'all')");
	$max_us = $m if !defined $max_us || $m > $max_us;
}
my $total = 0;
$total += $_->{count} for values %buckets;
is($total, $opsum, 'the nodes\' buckets hold every operation');
my ($rank, $seen, $p99) = (ceil(0.99 * $total), 0, undef);
for my $lo (sort { $a <=> $b } keys %buckets)
{
	$seen += $buckets{$lo}{count};
	next if $seen < $rank;
	my $lo_ns = floor($lo * 1000 + 0.5);
	my $width = floor($buckets{$lo}{hi} * 1000 + 0.5) - $lo_ns;
	my $mid = $lo_ns + ($width - 1) / 2;
	my $max_ns = floor($max_us * 1000 + 0.5);
	$p99 = round3(($mid < $max_ns ? $mid : $max_ns) / 1000);
	last;
}
is($cp99, $p99, "the cluster p99 ($cp99 us) is the p99 of the union of the nodes' buckets");
is( on1("SELECT latency_us FROM petagen.bench_percentiles($cid, '{99}', 'all')"),
	$p99, 'bench_percentiles() of the cluster row reads the merged histogram back');
is( on1("SELECT sum(count) FROM petagen.bench_histogram($cid)"),
	$opsum, 'bench_histogram() of the cluster row: the merged buckets');

# Its chart: each node and the cluster.
my $svg = on1("SELECT petagen.chart_cluster_bench($cid)");
like($svg, qr/^<svg.*node1.*node2.*node3.*cluster.*<\/svg>$/s,
	'chart_cluster_bench(): an SVG with each node and the cluster');
like(error_of($node1, "SELECT petagen.chart_cluster_bench($run{node1})"),
	qr/^55000: benchmark run \d+ is not a cluster run/,
	'chart_cluster_bench() of a node\'s run: refused');

# A sweep: one cluster_bench() per worker count, the cluster rows one sweep.
$out = on1(
	"SELECT node, workers, error IS NULL FROM petagen.cluster_bench_sweep('select',"
	  . " workers => '{1,2}', duration => '1 s') WHERE node = 'cluster'");
is($out, "cluster|3|t\ncluster|6|t", 'cluster_bench_sweep(): a cluster row per worker count');
my $sweep = on1("SELECT min(id) FROM petagen.bench_results WHERE path = 'cluster' AND sweep IS NOT NULL");
is(on1("SELECT count(*) FROM petagen.bench_results WHERE sweep = $sweep"),
	'2', 'the cluster rows form one sweep');
like(on1("SELECT petagen.chart_sweep($sweep)"), qr/<svg/, 'chart_sweep() draws it');

# A cancelled cluster_bench() ends every node's run: the connections close.
my $before = $nodes[1]->safe_psql('postgres', 'SELECT count(*) FROM petagen.bench_results');
like(
	error_of($node1,
		"SET statement_timeout = '4s'; SELECT * FROM petagen.cluster_bench('select', workers => 1,"
		  . " duration => '60 s')"),
	qr/^57014:/, 'cluster_bench() cancelled by statement_timeout');
ok( $nodes[1]->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'petagen bench worker'"),
	'node2: its run ended with the connection');
is($nodes[1]->safe_psql('postgres', 'SELECT count(*) FROM petagen.bench_results'),
	$before, 'node2: the cancelled run recorded nothing');

# The node matrix from one call: every cell, each alone.
$out = on1(
	"SELECT node, target, id IS NOT NULL, operations > 0, errors, not_found, error IS NULL"
	  . " FROM petagen.cluster_matrix('select', workers => 1, duration => '1 s')");
is( $out,
	join("\n", map { my $i = $_; map { "node$i|node$_|t|t|0|0|t" } 1 .. $n } 1 .. $n),
	'cluster_matrix(): the 3 x 3 matrix, every cell without errors and every key found');
my $ids = on1("SELECT array_agg(id) FROM (SELECT id FROM petagen.bench_results"
	  . " WHERE path <> 'cluster' ORDER BY id DESC LIMIT 9) AS r");
is(on1("SELECT count(*) FROM petagen.bench_matrix('$ids')"), $n * $n,
	'bench_matrix() of the cells: every pair, on node1');
my @cells = on1("SELECT petagen.chart_matrix('$ids')") =~ /class="cell"/g;
is(scalar(@cells), $n * $n, 'chart_matrix() draws the 9 cells');

# node3 down: named with its error, the others run.
$nodes[2]->stop('immediate');
$out = on1(
	"SELECT node, error IS NULL, coalesce(error, '') FROM petagen.cluster_bench('select',"
	  . " workers => 1, duration => '1 s') ORDER BY node = 'cluster', node");
like($out, qr/^node1\|t\|\nnode2\|t\|\nnode3\|f\|connection to server .+? failed: .+?\ncluster\|t\|$/s,
	'cluster_bench() with node3 down: node3 named with its error, the others ran');
my ($tps2, $nodes2) = split /\|/, on1(
	"SELECT tps, jsonb_array_length(options->'nodes') FROM petagen.bench_results"
	  . " WHERE path = 'cluster' ORDER BY id DESC LIMIT 1");
ok($tps2 > 0 && $nodes2 == 3, "the cluster row of two nodes: $tps2 TPS, node3 listed with its error");
$out = on1(
	"SELECT node, target, coalesce(error IS NULL AND errors = 0, false)"
	  . " FROM petagen.cluster_matrix('select', workers => 1, duration => '1 s')");
is( join(' ', map { join(':', split /\|/) } split /\n/, $out),
	'node1:node1:t node1:node2:t node1:node3:f node2:node1:t node2:node2:t node2:node3:f'
	  . ' node3:node1:f node3:node2:f node3:node3:f',
	'cluster_matrix() with node3 down: its row has the error, its column fails');
$nodes[2]->start;

$_->stop for @nodes;
done_testing();
