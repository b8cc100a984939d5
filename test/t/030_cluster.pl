# A three-node cluster built from PostgreSQL's own parts: 12 hash leaves of
# usertable, leaf r local on node (r % 3) + 1 and a postgres_fdw foreign
# table elsewhere.  The same start() on every node (300,000 rows, 2 workers
# each) writes only that node's leaves, without a single connection to the
# other nodes.  While node3 has not loaded, verify() on node2 names exactly
# node3's leaves as missing, with their counts; once it has, the union is
# exactly the key space, by count, distinct count and verify() from node1;
# rows deleted and added on node3 show up in node1's verify().
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

# The verify() rows of node $i that are not ok: leaf, node, expected,
# present, missing, extra, duplicated, one line each.
sub not_ok
{
	my ($i) = @_;
	return $nodes[ $i - 1 ]->safe_psql('postgres',
		"SELECT leaf, node, expected, present, missing, extra, duplicated"
		  . " FROM petagen.verify('usertable', $rows) WHERE NOT ok");
}

# Start the same load on some nodes at once, and check that skipping their
# foreign leaves cost nothing remote: no node received a postgres_fdw
# connection meanwhile.
sub load_quietly
{
	my @ids = @_;
	my @log_at = map { -s $_->logfile } @nodes;
	my %job = load(@ids);
	for my $i (1 .. $n)
	{
		unlike(log_since($i, $log_at[ $i - 1 ]), $fdw_login,
			"node$i: no postgres_fdw connection during the loads of nodes @ids");
	}
	return %job;
}

# The rows in the local leaves of node $i.
sub local_rows
{
	my ($i) = @_;
	my $local = join(' UNION ALL ',
		map { "SELECT count(*) FROM $_" } node_leaves($i, $n, $parts));
	return $nodes[ $i - 1 ]->safe_psql('postgres', "SELECT sum(count) FROM ($local) s");
}

my %job = load_quietly(1, 2);

# node3 has not loaded: verify() from node2 names its four leaves.
my @node3 = node_leaves(3, $n, $parts);
my $loaded = local_rows(1) + local_rows(2);
my $report = not_ok(2);
is( join(' ', map { (split /\|/)[0] } split /\n/, $report),
	join(' ', @node3),
	'node2: verify() names exactly node3\'s leaves as not ok');
my ($wrong, $missing) = (0, 0);
for (split /\n/, $report)
{
	my ($leaf, $node, $exp, $present, $miss, $extra, $dup) = split /\|/;
	$wrong++ unless $node eq 'node3' && $present == 0 && $miss == $exp
	  && $extra == 0 && $dup == 0;
	$missing += $miss;
}
is($wrong, 0, 'node2: each of them is held by node3 and misses all its keys');
is($missing, $rows - $loaded, 'node2: the missing keys are those node3 has not loaded');

like(slurp_file($nodes[2]->logfile), $fdw_login,
	'positive control: node2\'s verify() is logged as a postgres_fdw connection on node3');

%job = (%job, load_quietly(3));

my $total = 0;
for my $i (1 .. $n)
{
	my $node = $nodes[ $i - 1 ];
	my @mine = node_leaves($i, $n, $parts);
	my $own = local_rows($i);
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
			"SELECT done, total, rows_written FROM petagen.status_details($job{$i})"
			  . " WHERE worker IS NULL AND phase = 'loading'"),
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

# Each node's status shows its job done with its share.
is( join(' ',
		map {
			$nodes[ $_ - 1 ]->safe_psql('postgres',
				"SELECT format('node$_:%s:%s', s.state, w.rows_written) FROM petagen.status($job{$_}) AS s"
				  . " JOIN petagen.status_workers($job{$_}) AS w ON w.worker IS NULL AND w.phase = 'loading'")
		} 1 .. $n),
	join(' ', map { "node$_:done:" . local_rows($_) } 1 .. $n),
	'each node\'s status shows its job done with its share');
is( $nodes[0]->safe_psql(
		'postgres',
		"SELECT string_agg(format('%s=%s', node, n), ' ' ORDER BY node)"
		  . " FROM (SELECT node, count(*) AS n FROM petagen.leaves('usertable') GROUP BY node) s"),
	'local=4 node2=4 node3=4',
	'node1: petagen.leaves() says which node stores each leaf');

is( $nodes[0]->safe_psql(
		'postgres', 'SELECT count(*), count(DISTINCT ycsb_key) FROM usertable'),
	"$rows|$rows",
	'node1 sees, through the foreign leaves, every key exactly once');
is( $nodes[0]->safe_psql(
		'postgres',
		"SELECT count(*), count(*) FILTER (WHERE ok), sum(expected), sum(present),"
		  . " string_agg(DISTINCT node, ',' ORDER BY node)"
		  . " FROM petagen.verify('usertable', $rows)"),
	"$parts|$parts|$rows|$rows|local,node2,node3",
	'node1: verify() is ok on all 12 leaves, local and foreign');
is( $nodes[1]->safe_psql(
		'postgres',
		"SELECT count(*), count(*) FILTER (WHERE ok), sum(present)"
		  . " FROM petagen.verify($job{2}::bigint)"),
	"$parts|$parts|$rows",
	'node2: verify(job) is ok on all 12 leaves');

# Partly loaded: 7 keys deleted from a leaf of node3, a foreign key added.
$nodes[2]->safe_psql(
	'postgres', qq{
DELETE FROM usertable_p5 WHERE ycsb_key IN (SELECT ycsb_key FROM usertable_p5 LIMIT 7);
INSERT INTO usertable_p5 (ycsb_key)
SELECT k FROM (SELECT 'stray' || g AS k FROM generate_series(1, 100) g) s
WHERE satisfies_hash_partition('usertable'::regclass, $parts, 5, k) LIMIT 1;
});
like(not_ok(1), qr/^usertable_p5\|node3\|(\d+)\|\d+\|7\|1\|0$/,
	'node1: verify() finds the 7 missing keys and the stray row on node3\'s leaf, nothing else');

$_->stop for @nodes;
done_testing();
