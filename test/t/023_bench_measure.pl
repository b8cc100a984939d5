# A benchmark run's stored figures: its time series follows a
# paced run's rate second by second, and shows a stall of the server (the
# test holds row locks every update needs) as seconds without a completed
# operation followed by the catch-up above the rate; its figures per
# operation kind match bench_results; bench_json() exports the run whole;
# bench_status() shows a run going on, and no more once it was cancelled;
# only pg_monitor and petagen_operator members may read the figures.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my ($node) = bench_node('bench_measure', 10000);

# 1. Paced at 300 operations per second for 3 s: each whole second of the
# series completes about 300 (by their ends: ±15%), the series adds up.
my $run = $node->safe_psql('postgres',
	q{SELECT id FROM petagen.bench('ycsb-b', workers => 2, duration => '3 s', target_rate => 300)});
my @seconds = split /\n/, $node->safe_psql('postgres',
	"SELECT at_s, sum(operations) FROM petagen.bench_samples($run)"
	  . " WHERE seconds = 1 GROUP BY at_s ORDER BY at_s");
is(scalar(@seconds), 3, 'a 3 s run: three whole seconds in its series');
for (@seconds)
{
	my ($at, $ops) = split /\|/;
	cmp_ok(abs($ops - 300), '<=', 45, "second $at: $ops operations at target_rate 300");
}
is( $node->safe_psql(
		'postgres', "SELECT (SELECT sum(operations) FROM petagen.bench_samples($run)) = operations,
  (SELECT sum(count) FROM petagen.bench_operations($run)) = operations,
  (SELECT count FROM petagen.bench_operations($run) WHERE operation = 'read') = reads,
  (SELECT count FROM petagen.bench_operations($run) WHERE operation = 'update') = updates
  FROM petagen.bench_results WHERE id = $run"),
	't|t|t|t',
	'the series and the figures per kind add up to the run\'s operations, reads and updates');

# 2. A stall of at least 2 s from the run's first operations, paced at 200
# per second: no update completes in the second [1, 2); after it, the
# workers catch up above the rate, and the longest latency of that second
# is the stall's.
$run = bench_with_stall($node, "'update', workers => 2, operationcount => 1200, target_rate => 200",
	2, 2);
is( $node->safe_psql(
		'postgres', "SELECT operations FROM petagen.bench_samples($run) WHERE at_s = 1"),
	'0', 'stall: no update completes in the second [1, 2)');
my ($burst, $max) = split /\|/, $node->safe_psql('postgres',
	"SELECT max(ops_per_s), max(max_us) FROM petagen.bench_samples($run)");
cmp_ok($burst, '>', 200, "stall: the catch-up runs above the rate ($burst operations/s)");
cmp_ok($max, '>=', 2e6, "stall: the series' longest latency is the stall's ($max us)");

# 3. bench_json(): the row, the figures per kind, the series, as stored.
is( $node->safe_psql(
		'postgres', "SELECT (j->'run'->>'tps')::float8 = r.tps, (j->'run'->>'target_rate')::float8,
  (j->'operations'->'update'->>'count')::bigint = r.updates,
  jsonb_array_length(j->'samples'->'operations'->'update') = (SELECT count(*) FROM petagen.bench_samples($run)),
  (j->'operations'->'update'->>'p99_us')::float8 = (SELECT p99_us FROM petagen.bench_operations($run))
  FROM petagen.bench_results AS r, petagen.bench_json(r.id) AS j WHERE r.id = $run"),
	't|200|t|t|t',
	'bench_json(): the run, its figures per kind and its series');

# 4. bench_status(): a run going on shows live, until its caller cancels it.
my $caller = $node->background_psql('postgres', on_error_stop => 0);
my $pid = $caller->query_safe('SELECT pg_backend_pid()');
$caller->query_until(qr/started/,
	"\\echo started\nSELECT id FROM petagen.bench('select', workers => 2, duration => '10 min',"
	  . " target_rate => 100);\n");
ok( $node->poll_query_until(
		'postgres', q{SELECT phase = 'measuring' AND tps > 0 AND operations > 0
  AND mean_us > 0 AND max_us >= mean_us AND eta_s > 0
  FROM petagen.bench_status() WHERE kind = 'select' AND workers = 2 AND clients IS NULL
  AND target_rate = 100}),
	'bench_status(): the run going on, with its operations and its last second\'s rate and latency');
$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
ok($node->poll_query_until('postgres', 'SELECT count(*) = 0 FROM petagen.bench_status()'),
	'bench_status(): a cancelled run is gone');
$caller->quit;

# 5. Who reads them: pg_monitor members yes, other roles no.
$node->safe_psql('postgres', q{CREATE ROLE watcher LOGIN IN ROLE pg_monitor;
  CREATE ROLE stranger LOGIN; GRANT USAGE ON SCHEMA petagen TO stranger});
is( $node->safe_psql(
		'postgres', "SELECT count(*) > 0 FROM petagen.bench_operations($run)",
		extra_params => [ '-U', 'watcher' ]),
	't', 'a pg_monitor member reads a run\'s figures');
for my $fn ('bench_operations', 'bench_samples', 'bench_json', 'bench_status')
{
	my $arg = $fn eq 'bench_status' ? '' : $run;
	my ($rc, $out, $err) = $node->psql('postgres', "SELECT petagen.$fn($arg)",
		extra_params => [ '-U', 'stranger' ]);
	like($err, qr/permission denied for function $fn/, "another role may not run $fn()");
}

$node->stop;
done_testing();
