# petagen.bench_capacity() on a target whose capacity is known: a trigger
# makes every update sleep, 50 ms for the first 70 updates and 100 ms
# after them, as a cloud volume runs fast until its burst credits are
# spent.  The closed loop (one worker, 1 s of warm-up and 2 s: at most 60
# updates) measures the burst rate, near 20 per second; the steps after
# the low one run at most 10 updates per second (pg_sleep never wakes
# early), so the closed loop's rate misses the bound paced and the search
# must bisect.  The sleeps are long so that what an update costs besides
# them (the update, the trigger, the wake-up: milliseconds, tens of them
# on a machine under heavy load) matters little.  Under a p99 bound of
# 250 ms, a rate above the capacity builds a backlog from the warm-up's
# start on, whose latency reaches 3 s times the excess by the step's end,
# so a rate more than 5% above it misses the bound; a rate below it with
# room to spare meets it.  The search must find a rate between 7.5 and
# 10.8 updates per second: at most 5% (and the rounding of a rate) above
# the throttle's 10, at most 25% below it (8 steps bisect to 3% of the
# closed loop's rate, the rest is what an update costs besides its
# sleep).  A bound below the throttle's 100 ms cannot be met at any rate:
# it is refused with the figures, and nothing is recorded.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my ($node) = bench_node('bench_capacity', 10000);
$node->safe_psql('postgres', q{
	CREATE SEQUENCE updates;
	CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		PERFORM pg_sleep(CASE WHEN nextval('public.updates') <= 70 THEN 0.05 ELSE 0.1 END);
		RETURN NEW;
	END$$;
	CREATE TRIGGER slow BEFORE UPDATE ON usertable FOR EACH ROW EXECUTE FUNCTION slow();});

# 1. The search: 8 steps of 2 s, one worker.  The closed loop's rate
# fails paced, so the search bisects: it takes all 8 steps, whose
# interval is still over 1% of that rate after 5 bisections.
my $rows = $node->safe_psql('postgres',
	q{SELECT step, id, coalesce(target_rate, 0), tps, p99_us, meets, answer
	  FROM petagen.bench_capacity('update', p99 => '250 ms', workers => 1, step_duration => '2 s')
	  ORDER BY step});
my @steps = map { [ split /\|/ ] } split /\n/, $rows;
note("step|id|target_rate|tps|p99_us|meets|answer\n$rows");
is(scalar(@steps), 8, '8 steps ran');
is($steps[2][5], 'f', "the closed loop's rate, $steps[2][2] updates/s, missed the bound paced");
my $closed = $steps[0][3];
cmp_ok($closed, '<=', 20.2, "the closed loop stays under its burst rate of 20: $closed updates/s");
cmp_ok($closed, '>', 11, "and above the sustained 10");
my @answers = grep { $_->[6] eq 't' } @steps;
is(scalar(@answers), 1, 'one step is the answer');
my ($rate, $p99) = ($answers[0][2], $answers[0][4]);
cmp_ok($rate, '>=', 7.5, "the answer, $rate updates/s, is at most 25% below the throttle's 10");
cmp_ok($rate, '<=', 10.8, "and at most 5% (and a rate's rounding) above it");
cmp_ok($p99, '<=', 250000, "its p99 from the intended start, $p99 us, is under the bound");
is($answers[0][5], 't', 'the answer met the bound');
my @higher = grep { $_->[5] eq 't' && $_->[2] > $rate } @steps;
is(scalar(@higher), 0, 'no step at a higher rate met it');
my @missed = grep { $_->[5] eq 'f' } @steps;
ok(!@missed || (grep { $_->[4] > 250000 || $_->[3] < 0.95 * $_->[2] } @missed) == @missed,
	'each step that missed the bound was over it or fell behind');

# Recorded as one sweep, the first step's id, which chart_capacity() draws.
my $search = $steps[0][1];
is( $node->safe_psql('postgres',
		"SELECT count(*), bool_and(options ? 'capacity') FROM petagen.bench_results WHERE sweep = $search"),
	scalar(@steps) . '|t', 'every step recorded in the search');
like($node->safe_psql('postgres', "SELECT petagen.chart_capacity($search)"),
	qr/^<svg.*Capacity search $search: p99 vs offered rate/s, 'the search is charted');

# 2. A p99 of 5 ms, under every update's 100 ms: refused with the figures.
my $before = $node->safe_psql('postgres', 'SELECT count(*) FROM petagen.bench_results');
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	q{\set VERBOSITY verbose
	  SELECT * FROM petagen.bench_capacity('update', p99 => '5 ms', workers => 1, steps => 2,
	                                       step_duration => '1 s')});
isnt($ret, 0, 'an unmeetable bound fails');
like($stderr, qr/ERROR:  55000: p99 of 5 ms cannot be met even at a low rate/,
	'refused with 55000');
my ($low_p99, $unit) = $stderr =~ /the p99 latency from the intended start was ([0-9.]+) (ms|s) /;
ok(defined $low_p99 && $low_p99 * ($unit eq 's' ? 1000 : 1) >= 100,
	'DETAIL gives the p99 at the low rate, ' . ($low_p99 // '?') . ' ' . ($unit // ''));
like($stderr, qr/DETAIL:  At [0-9.]+ operations per second, a tenth of the [0-9.]+ a closed loop of 1 worker reached/,
	'DETAIL names the low rate and the closed loop');
like($stderr, qr/HINT:  Pass a p99 above the latency at a low rate/, 'with a HINT');
is($node->safe_psql('postgres', 'SELECT count(*) FROM petagen.bench_results'), $before,
	'a refused search records no step');

$node->stop;
done_testing();
