# petagen.bench(..., target_rate => r), YCSB's target with
# measurement.interval = intended: on an idle server the run
# achieves its target rate; when the server stalls (the test holds row
# locks every update needs, for a time it decides), the latency measured
# from the intended start diverges from the service time, and without
# target_rate (a closed loop) the two are the same.  The test knows the
# benchmark is stalled from pg_stat_activity (both workers waiting for a
# lock) before it starts timing the stall; only its length is a sleep,
# and the assertions hold for any stall of at least that length.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my ($node) = bench_node('bench_pacing', 10000);

# The figures of a run's one operation kind, joined by |.
sub figures
{
	my ($run, $op, $columns) = @_;
	return $node->safe_psql('postgres',
		"SELECT $columns FROM petagen.bench_operations($run) WHERE operation = '$op'");
}

# 1. Idle server: 200 operations per second over 2 workers, for 3 s.
my ($run, $tps, $ops) = split /\|/, $node->safe_psql('postgres',
	q{SELECT id, tps, operations FROM petagen.bench('select', workers => 2,
	  duration => '3 s', target_rate => 200)});
cmp_ok(abs($tps - 200), '<=', 20, "idle server: target_rate 200 achieves $tps operations/s");
cmp_ok(abs($ops - 600), '<=', 60, "idle server: $ops operations in 3 s");
is( $node->safe_psql('postgres', "SELECT target_rate FROM petagen.bench_results WHERE id = $run"),
	'200', 'the run records its target_rate');

# 1000 updates over 2 workers (paced or not) while the test holds a lock
# on every row for at least $stall_s seconds from the moment both workers
# wait for it.
my $stall_s = 1;

sub stalled_run
{
	my ($pace) = @_;
	return bench_with_stall($node, "'update', workers => 2, operationcount => 1000$pace",
		2, $stall_s);
}

# 2. Paced at 200 operations per second (a 5 s schedule), the stall of at
# least 1 s from the first operation delays the 100 or more operations
# intended in its first half by over 0.5 s each: 10% of the run, so p99
# from the intended start is above 0.5 s.  Only the one operation per
# worker that waited for the lock took long itself: the service time's
# p99 is an update's, its max the stall's.
$run = stalled_run(', target_rate => 200');
my ($count, $p99, $service_p99, $service_max) =
  split /\|/, figures($run, 'update', 'count, p99_us, service_p99_us, service_max_us');
is($count, 1000, 'paced stall: 1000 updates measured');
cmp_ok($p99, '>', 500000, "paced stall: p99 from the intended start is $p99 us");
cmp_ok($p99, '>', 10 * $service_p99,
	"paced stall: p99 from the intended start ($p99 us) >> service-time p99 ($service_p99 us)");
cmp_ok($service_max, '>=', $stall_s * 1e6,
	"paced stall: the updates that waited show the stall in their service time ($service_max us)");

# 3. A closed loop: each operation is intended when it starts, so latency
# and service time are the same; the stall is one slow operation per
# worker, invisible at p99.
$run = stalled_run('');
my ($max, $service_max2);
($count, $p99, $service_p99, $max, $service_max2) =
  split /\|/, figures($run, 'update', 'count, p99_us, service_p99_us, max_us, service_max_us');
is($count, 1000, 'closed-loop stall: 1000 updates measured');
is($p99, $service_p99, "closed-loop stall: p99 latency = service-time p99 ($p99 us)");
is($max, $service_max2, 'closed-loop stall: max latency = max service time');
cmp_ok($max, '>=', $stall_s * 1e6, "closed-loop stall: the stall is the max ($max us)");
cmp_ok($p99, '<', 500000, "closed-loop stall: and it does not reach p99 ($p99 us)");

$node->stop;
done_testing();
