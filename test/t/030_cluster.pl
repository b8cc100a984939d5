# A three-node cluster built from PostgreSQL's own parts: 12 hash leaves of
# usertable, leaf r local on node (r % 3) + 1 and a postgres_fdw foreign
# table elsewhere.  The same start() on every node (300,000 rows, 2 workers
# each) writes only that node's leaves, without a single connection to the
# other nodes, and the union is exactly the key space.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenCluster;

my ($n, $parts, $rows) = (3, 12, 300000);
my @nodes = petagen_cluster(nodes => $n, parts => $parts);
my $fdw_login = qr/connection authorized: .*application_name=postgres_fdw/;

# Start the same load on some nodes at once, wait for all; their job ids.
sub load
{
	my @ids = @_;
	my %job;
	for my $i (@ids)
	{
		$job{$i} = $nodes[ $i - 1 ]->safe_psql('postgres',
			"SELECT petagen.start($rows, workers => 2, chunk_rows => 25000)");
	}
	for my $i (@ids)
	{
		is($nodes[ $i - 1 ]->safe_psql('postgres', "SELECT petagen.wait($job{$i}, '150s')"),
			'done', "node$i: the load is done");
	}
	return %job;
}

# The server log of node $i written since byte $from.
sub log_since
{
	my ($i, $from) = @_;
	return slurp_file($nodes[ $i - 1 ]->logfile, $from);
}

my @log_at = map { -s $_->logfile } @nodes;
my %job = load(1 .. $n);

# Skipping foreign leaves costs nothing remote: no node received a
# postgres_fdw connection during the loads.
for my $i (1 .. $n)
{
	unlike(log_since($i, $log_at[ $i - 1 ]), $fdw_login,
		"node$i: no postgres_fdw connection during the loads");
}

my $total = 0;
for my $i (1 .. $n)
{
	my $node = $nodes[ $i - 1 ];
	my @mine = node_leaves($i, $n, $parts);
	my $local = join(' UNION ALL ', map { "SELECT count(*) FROM $_" } @mine);
	my $own = $node->safe_psql('postgres', "SELECT sum(count) FROM ($local) s");
	$total += $own;

	# The ledger, status and the local leaves agree on this node's share.
	is( $node->safe_psql(
			'postgres',
			"SELECT sum(keys), sum(rows_written), sum(foreign_skipped)"
			  . " FROM petagen.chunks WHERE job = $job{$i}"),
		"$rows|$own|" . ($rows - $own),
		"node$i: every key seen, its count written, the rest skipped as foreign");
	is( $node->safe_psql(
			'postgres',
			"SELECT keys_done, keys_total, rows_written FROM petagen.status($job{$i})"
			  . " WHERE worker IS NULL"),
		"$rows|$rows|$own",
		"node$i: status() shows the whole key space done and this node's share written");

	# Every row of a local leaf routes to it, and every row came from this
	# node's own load: the leaves' insert counters add up to its ledger.
	my $misrouted = join(
		' UNION ALL ',
		map {
			my ($r) = /(\d+)$/;
			"SELECT count(*) FROM $_ WHERE NOT satisfies_hash_partition("
			  . "'usertable'::regclass, $parts, $r, ycsb_key)"
		} @mine);
	is($node->safe_psql('postgres', "SELECT sum(count) FROM ($misrouted) s"),
		'0', "node$i: every row of its leaves routes there");
	my $leaves = join(',', map { "'$_'" } @mine);
	ok( $node->poll_query_until(
			'postgres',
			"SELECT sum(n_tup_ins) = $own FROM pg_stat_user_tables"
			  . " WHERE relname IN ($leaves)"),
		"node$i: its leaves received exactly its own inserts");
	is( $node->safe_psql(
			'postgres',
			"SELECT count(*) FROM pg_stat_user_tables WHERE relname IN ($leaves)"),
		scalar(@mine), "node$i: the owned leaves are its local tables");
}
is($total, $rows, 'the nodes\' shares add up to the key space');

is( $nodes[0]->safe_psql(
		'postgres', 'SELECT count(*), count(DISTINCT ycsb_key) FROM usertable'),
	"$rows|$rows",
	'node1 sees, through the foreign leaves, every key exactly once');
like(log_since(2, $log_at[1]), $fdw_login,
	'positive control: reading through the FDW does log a postgres_fdw connection');

$_->stop for @nodes;
done_testing();
