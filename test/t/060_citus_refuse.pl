# On a Citus cluster (coordinator + 2 workers on loopback ports), petagen
# refuses what it cannot load exactly: a shard table named directly, a
# reference table, append and range distribution, a distribution column
# other than ycsb_key, a partitioned Citus table; each with a clear error,
# on the coordinator and on a worker, and without writing anything.
# Skipped when Citus is not installed for this server (scripts/citus.sh
# installs it; scripts/test.sh runs it first).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenCitus;
use PetagenTest;

citus_skip_unless_installed();

my ($coord, @workers) = citus_cluster();
my $w1 = $workers[0];
$coord->safe_psql('postgres', citus_usertable_sql('usertable', 4));

# A YCSB-shaped table $name, created on the coordinator and set up by $sql.
sub citus_table
{
	my ($name, $sql) = @_;
	$coord->safe_psql('postgres',
		"CREATE TABLE $name (ycsb_key varchar(64) PRIMARY KEY, field0 varchar(100)); $sql");
}
citus_table('ref', q{SELECT create_reference_table('ref')});
citus_table('app', q{SELECT create_distributed_table('app', 'ycsb_key', 'append')});
citus_table('rng', q{SELECT create_distributed_table('rng', 'ycsb_key', 'range')});
$coord->safe_psql('postgres',
	q{CREATE TABLE byfield (ycsb_key varchar(64), field0 varchar(100), PRIMARY KEY (field0, ycsb_key));
	  SELECT create_distributed_table('byfield', 'field0', shard_count => 4)});
$coord->safe_psql('postgres',
	q{SELECT petagen.create_table('parted', 2);
	  SELECT create_distributed_table('parted', 'ycsb_key', shard_count => 4)});

my $shard = $w1->safe_psql(
	'postgres', q{
SELECT 'usertable_' || s.shardid
  FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid)
  JOIN pg_dist_node n USING (groupid)
 WHERE s.logicalrelid = 'usertable'::regclass AND n.nodeport = } . $w1->port . q{
 ORDER BY s.shardid LIMIT 1});
like($shard, qr/^usertable_\d+$/, "worker1 holds shard $shard");

my %refusals = (
	ref => '0A000: table "ref" is a Citus reference, local or single-shard table',
	app => '0A000: table "app" is distributed by append',
	rng => '0A000: table "rng" is distributed by range',
	byfield => '0A000: Citus table "byfield" is distributed by the column field0, not ycsb_key',
	parted => '0A000: table "parted" is a partitioned Citus table or one of its partitions');
# Each entry point, on a worker and on the coordinator, refuses with 0A000
# (Citus keeps the metadata of append and range tables on the coordinator).
for my $node ($coord, $w1)
{
	for my $t (sort keys %refusals)
	{
		next if $node != $coord && ($t eq 'app' || $t eq 'rng');
		my %calls = (
			'start()' => qq{SELECT petagen.start(1000, workers => 1, "table" => '$t')},
			'load()' => qq{SELECT petagen.load('$t', 0, 10)},
			'verify()' => qq{SELECT * FROM petagen.verify('$t', 1000)},
			'leaves()' => qq{SELECT * FROM petagen.leaves('$t')});
		for my $call (sort keys %calls)
		{
			is(error_of($node, $calls{$call}), $refusals{$t},
				$node->name . ": $call refuses $t");
		}
	}
}
# check() reports it as an error finding, which start() refuses on.
for my $node ($coord, $w1)
{
	is( $node->safe_psql(
			'postgres',
			q{SELECT severity || ': ' || finding FROM petagen.check(1000, workers => 1, "table" => 'ref')
			   WHERE severity = 'error'}),
		'error: table: table "ref" is a Citus reference, local or single-shard table',
		$node->name . ': check() finds a reference table an error');
}
is( error_of($w1, "SELECT petagen.load('$shard', 0, 10)"),
	"0A000: table \"$shard\" is a shard of the Citus table \"usertable\"",
	'worker1: load() refuses a shard table');

# The hints say what to do instead.
my ($rc, $out, $err) =
  $w1->psql('postgres', "SELECT petagen.load('$shard', 0, 10)");
like($err, qr/HINT:  Give the distributed table "usertable" as the table/,
	'the shard error says to give the distributed table');
($rc, $out, $err) = $w1->psql('postgres', q{SELECT petagen.load('ref', 0, 10)});
like($err, qr/HINT:  petagen loads Citus tables distributed by hash on ycsb_key/,
	'the reference table error says what petagen loads');

# Nothing was written, and no job was recorded.
is( $coord->safe_psql('postgres',
		'SELECT (SELECT count(*) FROM usertable) + (SELECT count(*) FROM ref)'),
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
