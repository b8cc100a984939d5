# The cluster calls on Citus, from the coordinator: nodes() lists the two
# workers holding usertable's shards (the coordinator holds none), reached
# through Citus; one cluster_start() starts a job on each worker, held by
# petagen.debug_pause so that cluster_status() shows both mid-load; then
# cluster_wait() and cluster_verify() prove every key exactly once, and
# cluster_bench() runs both workers' benchmarks at once and records the
# cluster row; cluster_forget() removes both jobs.  A worker without petagen refuses
# cluster_start() before any node starts, naming the worker.
# Skipped when Citus is not installed (scripts/citus.sh installs it).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;
use PetagenCitus;

citus_skip_unless_installed();

my $rows = 200000;
my ($coord, $w1, $w2) = citus_cluster();
$coord->safe_psql('postgres', citus_usertable_sql('usertable', 8));
my @names = map { '127.0.0.1:' . $_->port } ($w1, $w2);

# Run $sql on the coordinator.
sub on_coord
{
	return $coord->safe_psql('postgres', $_[0]);
}

is( on_coord("SELECT string_agg(node || ' ' || reachable || ' ' || petagen || ' ' || operator, ', ' ORDER BY node)"
		  . " FROM petagen.nodes('usertable')"),
	join(', ', map { "$_ true 0.2 true" } sort @names),
	'nodes(): the two workers holding shards, reached through Citus');

# A worker without petagen: nothing starts.
$w2->safe_psql('postgres', 'SET citus.enable_ddl_propagation = off; DROP EXTENSION petagen');
like(
	error_of($coord, "SELECT petagen.cluster_start($rows, workers => 2, chunk_rows => 20000)"),
	qr/^55000: no node started: node "\Q$names[1]\E" has no petagen/,
	'cluster_start() refuses: worker2 has no petagen, named');
is($w1->safe_psql('postgres', 'SELECT count(*) FROM petagen.jobs'), '0', 'worker1 started no job');
$w2->safe_psql('postgres', 'SET citus.enable_ddl_propagation = off; CREATE EXTENSION petagen');

set_debug_pause($_, 'before_commit:2') for ($w1, $w2);
my $cj = on_coord("SELECT petagen.cluster_start($rows, workers => 2, chunk_rows => 20000, method => 'chunk')");
my %job = map { split /\|/ } split /\n/,
  on_coord("SELECT node, job FROM petagen.cluster_jobs WHERE cluster_job = $cj");
is(join(' ', sort keys %job), join(' ', sort @names), 'the cluster job maps each worker to its job');
wait_for_debug_pause($w1, $job{ $names[0] }, 2);
wait_for_debug_pause($w2, $job{ $names[1] }, 2);
is( on_coord("SELECT string_agg(node || ' ' || state, ', ' ORDER BY node = 'total', node)"
		  . " FROM petagen.cluster_status($cj)"),
	join(', ', (map { "$_ running" } sort @names), 'total running'),
	'cluster_status(): both workers running, and the total');

set_debug_pause($_, '') for ($w1, $w2);
is( on_coord("SELECT string_agg(state, ' ') FROM petagen.cluster_wait($cj, '300s')"),
	'done done', 'cluster_wait(): both workers done');
is( on_coord("SELECT count(*), count(DISTINCT node), bool_and(ok), sum(expected), sum(present),"
		  . " sum(missing) + sum(extra) + sum(duplicated) FROM petagen.cluster_verify($cj)"),
	"8|2|t|$rows|$rows|0",
	'cluster_verify(): every shard on its worker, every key exactly once');
is(on_coord('SELECT count(*), count(DISTINCT ycsb_key) FROM usertable'),
	"$rows|$rows", 'positive control: the coordinator sees the key space once');
# Both workers benchmarked at once through Citus: a row each, then the
# cluster row whose tps is their sum.
is( on_coord("SELECT string_agg(node || ' ' || (error IS NULL) || ' ' || (operations > 0), ', '"
		  . " ORDER BY node = 'cluster', node) FROM petagen.cluster_bench('select', workers => 1,"
		  . " duration => '1 s')"),
	join(', ', (map { "$_ true true" } sort @names), 'cluster true true'),
	'cluster_bench(): both workers ran at once through Citus, and the cluster row');
is( on_coord("SELECT abs(r.tps - (SELECT sum((n->>'tps')::float8) FROM jsonb_array_elements(r.options->'nodes') AS n)) < 0.05"
		  . " FROM petagen.bench_results AS r WHERE r.path = 'cluster'"),
	't', 'the cluster row\'s tps is the sum of the workers\'');
like(on_coord("SELECT petagen.chart_cluster_bench(max(id)) FROM petagen.bench_results"),
	qr/^<svg.*<\/svg>$/s, 'chart_cluster_bench() draws it');

is( on_coord("SELECT string_agg(state, ' ') FROM petagen.cluster_forget($cj)"),
	'done done', 'cluster_forget(): both jobs forgotten');
is( $w1->safe_psql('postgres', 'SELECT count(*) FROM petagen.jobs')
	  . $w2->safe_psql('postgres', 'SELECT count(*) FROM petagen.jobs'),
	'00', 'no worker keeps a job');

done_testing();
