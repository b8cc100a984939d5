# The node matrix on a three-node cluster: from every node, a short
# petagen.bench('select') against every node's leaves (local directly,
# remote through postgres_fdw), scripts/cluster_matrix.sql as docs/clusters.md's
# recipe runs it.  Every cell runs without errors and finds every key;
# gathered on node1 the runs form the full 3 x 3 table, and, where
# petagen.chart_matrix() exists, its heatmap.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenCluster;

my ($n, $parts, $rows) = (3, 12, 30000);
my @nodes = petagen_cluster(nodes => $n, parts => $parts);

# Whether node1 has a function petagen.$name.
sub has_function
{
	my ($name) = @_;
	return $nodes[0]->safe_psql('postgres',
		"SELECT count(*) FROM pg_proc WHERE pronamespace = 'petagen'::regnamespace"
		  . " AND proname = '$name'") > 0;
}

if (!has_function('bench'))
{
	$_->stop for @nodes;
	plan skip_all => 'petagen.bench() does not exist yet (branch bench not merged)';
}

my %job;
for my $i (1 .. $n)
{
	$job{$i} = $nodes[ $i - 1 ]->safe_psql('postgres',
		"SELECT petagen.start($rows, workers => 1)");
}
for my $i (1 .. $n)
{
	is($nodes[ $i - 1 ]->safe_psql('postgres', "SELECT petagen.wait($job{$i}, '60s')"),
		'done', "node$i: loaded");
}

# Every node's row of the matrix: one line per holder.
for my $i (1 .. $n)
{
	my $out = $nodes[ $i - 1 ]->safe_psql(
		'postgres',
		'\\i ' . cluster_script('_matrix'),
		extra_params => [ '-v', 'workers=1', '-v', 'duration=1 s' ]);
	my @cells = split /\n/, $out;
	is(join(' ', map { (split /\|/)[0] } @cells),
		join(' ', map { "node$_" } 1 .. $n),
		"node$i: a run against every node's leaves");
	for (@cells)
	{
		my ($holder, $ops, $tps, $errors, $not_found) = split /\|/;
		ok($ops > 0 && $errors == 0 && $not_found == 0,
			"node$i -> $holder: $ops selects, no error, every key found");
	}
}

# Gathered on node1: the whole matrix, 'local' columns named after the node.
is($nodes[0]->safe_psql('postgres', 'SELECT petagen_cluster.gather_bench()'),
	$n * ($n - 1), 'node1 gathers the other nodes\' runs');
my $matrix = $nodes[0]->safe_psql(
	'postgres', q{
SELECT node, CASE target_node WHEN 'local' THEN node ELSE target_node END AS holder,
       round(tps), errors, not_found
FROM petagen.bench_results WHERE kind = 'select' ORDER BY 1, 2});
note("node matrix (node|holder|tps|errors|not_found):\n$matrix");
is( join(' ', map { join('>', (split /\|/)[ 0, 1, 3, 4 ]) } split /\n/, $matrix),
	join(' ',
		map { my $i = $_; map { "node$i>node$_>0>0" } 1 .. $n } 1 .. $n),
	'the 3 x 3 matrix is complete, with errors = 0 and not-found = 0 in every cell');

SKIP:
{
	skip 'petagen.chart_matrix() does not exist yet', 1
	  unless has_function('chart_matrix');
	like($nodes[0]->safe_psql('postgres', 'SELECT petagen.chart_matrix()'),
		qr/<svg.*<\/svg>/s, 'node1 draws the matrix as an SVG heatmap');
}

$_->stop for @nodes;
done_testing();
