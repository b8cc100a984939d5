# On a Citus cluster (coordinator + 2 workers on loopback ports), petagen
# refuses a Citus distributed table and its shard tables with a clear error,
# instead of writing rows that Citus never reads (the shell table) or keys
# outside a shard's hash range.  Skipped when Citus is not installed for
# this server (scripts/citus.sh installs it; scripts/test.sh runs it first).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $probe = PostgreSQL::Test::Cluster->new('probe');
my $pkglibdir = $probe->config_data('--pkglibdir');
plan skip_all => "Citus is not installed in $pkglibdir (scripts/citus.sh)"
  unless -f "$pkglibdir/citus.so";

# A Citus node listening on 127.0.0.1, Citus and petagen created.
sub citus_node
{
	my ($name) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf(
		'postgresql.conf', qq{
shared_preload_libraries = 'citus'
listen_addresses = '127.0.0.1'
max_worker_processes = 16
});
	$node->start;
	$node->safe_psql('postgres',
		'CREATE EXTENSION citus; CREATE EXTENSION petagen;');
	return $node;
}

my ($coord, @workers) = map { citus_node($_) } qw(coord worker1 worker2);
$coord->safe_psql('postgres',
	"SELECT citus_set_coordinator_host('127.0.0.1', " . $coord->port . ')');
$coord->safe_psql('postgres',
	"SELECT citus_add_node('127.0.0.1', " . $_->port . ')')
  for @workers;
$coord->safe_psql('postgres', q{SELECT petagen.create_table('usertable', 2)});
$coord->safe_psql('postgres',
	"SELECT create_distributed_table('usertable', 'ycsb_key', shard_count => 4)");

my $w1 = $workers[0];
my $shard = $w1->safe_psql(
	'postgres', q{
SELECT 'usertable_' || s.shardid
  FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid)
  JOIN pg_dist_node n USING (groupid)
 WHERE s.logicalrelid = 'usertable'::regclass AND n.nodeport = } . $w1->port . q{
 ORDER BY s.shardid LIMIT 1});
like($shard, qr/^usertable_\d+$/, "worker1 holds shard $shard");

# The SQLSTATE and message of the error $sql raises on $node.
sub error_of
{
	my ($node, $sql) = @_;
	my ($rc, $out, $err) =
	  $node->psql('postgres', "\\set VERBOSITY verbose\n$sql");
	return $err =~ /ERROR:  (\w{5}: [^\n]*)/ ? $1 : "no error (rc $rc)";
}

# Each entry point, on a worker and on the coordinator, refuses with 0A000.
my %calls = (
	'start()' => q{SELECT petagen.start(1000, workers => 1)},
	'load()' => q{SELECT petagen.load('usertable', 0, 10)},
	'verify()' => q{SELECT * FROM petagen.verify('usertable', 1000)});
for my $node ($coord, $w1)
{
	for my $call (sort keys %calls)
	{
		is( error_of($node, $calls{$call}),
			'0A000: table "usertable" is managed by Citus',
			$node->name . ": $call refuses the distributed table");
	}
}
# check() reports it as an error finding, which start() refuses on.
for my $node ($coord, $w1)
{
	is( $node->safe_psql(
			'postgres',
			q{SELECT severity || ': ' || finding FROM petagen.check(1000, workers => 1)
			   WHERE severity = 'error'}),
		'error: table: table "usertable" is managed by Citus',
		$node->name . ': check() finds the distributed table an error');
}
is( error_of($w1, "SELECT petagen.load('$shard', 0, 10)"),
	"0A000: table \"$shard\" is a shard of the Citus table \"usertable\"",
	'worker1: load() refuses a shard table');

# The hint says what to do instead.
my ($rc, $out, $err) =
  $w1->psql('postgres', q{SELECT petagen.load('usertable', 0, 10)});
like($err, qr/HINT:  petagen does not load Citus tables yet/, 'the error has a hint');

# Nothing was written, and no job was recorded.
is($coord->safe_psql('postgres', 'SELECT count(*) FROM usertable'),
	'0', 'the coordinator counts no rows');
is($w1->safe_psql('postgres', 'SELECT count(*) FROM petagen.jobs'),
	'0', 'no job row was left');

# Positive control: a table that is not Citus's, named like a shard, loads.
$w1->safe_psql('postgres', q{SELECT petagen.create_table('usertable_9', 2)});
is( $w1->safe_psql(
		'postgres', q{SELECT rows_written FROM petagen.load('usertable_9', 0, 10)}),
	'10',
	'a table named like a shard but not one is loaded');

$_->stop for ($coord, @workers);
done_testing();
