# Acceptance test of petagen.bench(): after a 100,000-row load, select and
# update with 2 workers for 3 s find every key, updates really change the
# rows they report (and nothing else), every YCSB mix runs without error
# with its operation mix within 3 percentage points of YCSB's, inserts land
# past the key space, and a cancelled bench() leaves no worker behind.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $rows = 100000;

my ($node) = bench_node('bench', $rows);

# select: every key found, no error.
my ($id, $ops, $tps, $errors, $not_found) = split /\|/, $node->safe_psql('postgres',
	"SELECT id, operations, tps, errors, not_found FROM petagen.bench('select', workers => 2, duration => '3 s')");
my $reads = $node->safe_psql('postgres', "SELECT reads FROM petagen.bench_results WHERE id = $id");
cmp_ok($tps, '>', 0, 'select: TPS > 0');
is($errors, 0, 'select: no errors');
is($not_found, 0, 'select: no key not found');
is($reads, $ops, 'select: every operation a read');

# update, inside an open transaction that is not committed before bench() returns.
my $out = $node->safe_psql('postgres', q{
BEGIN;
SELECT count(*) FROM usertable;
SELECT id, errors, not_found FROM petagen.bench('update', workers => 2, duration => '3 s');
COMMIT;
});
my ($uid, $uerrors, $unot_found) = split /\|/, (split /\n/, $out)[1];
my $updates = $node->safe_psql('postgres', "SELECT updates FROM petagen.bench_results WHERE id = $uid");
cmp_ok($updates, '>', 0, 'update: updates > 0');
is($uerrors, 0, 'update: no errors');
is($unot_found, 0, 'update: no key not found');
# Rows that differ from the generated ones: at most one per update, and as
# many as distinct keys a uniform choice of that many updates hits.
my ($changed, $keys_same, $total) = split /\|/, $node->safe_psql('postgres', qq{
SELECT count(*) FILTER (WHERE u IS DISTINCT FROM g),
       count(*) FILTER (WHERE u.ycsb_key = g.ycsb_key), count(*)
FROM usertable u JOIN petagen.rows(NULL::usertable, 0, $rows) g USING (ycsb_key)});
is($total, $rows, 'update: every row still there under its key');
my $expected = $rows * (1 - exp(-$updates / $rows));
cmp_ok($changed, '<=', $updates, "update: $changed rows changed, at most the $updates updates");
cmp_ok($changed, '>=', 0.95 * $expected,
	"update: $changed rows changed, about the " . int($expected) . " distinct keys expected");
is( $node->safe_psql(
		'postgres', q{
SELECT count(*) FROM petagen.bench_results WHERE kind = 'update' AND updates = } . $updates),
	1, 'update: the run is recorded once the caller commits');

# YCSB mixes: no errors, every key found, proportions within 3 points.
my %mix = (
	'ycsb-a' => [ 0.5,  0.5,  0,    0,    0 ],
	'ycsb-b' => [ 0.95, 0.05, 0,    0,    0 ],
	'ycsb-c' => [ 1,    0,    0,    0,    0 ],
	'ycsb-d' => [ 0.95, 0,    0.05, 0,    0 ],
	'ycsb-e' => [ 0,    0,    0.05, 0.95, 0 ],
	'ycsb-f' => [ 0.5,  0,    0,    0,    0.5 ]);
my @names = qw(reads updates inserts scans rmws);
my $inserted = 0;
foreach my $kind (sort keys %mix)
{
	my $run = $node->safe_psql('postgres',
		"SELECT id FROM petagen.bench('$kind', workers => 2, duration => '2 s')");
	my ($id, $o, $e, $nf, @count) = split /\|/, $node->safe_psql('postgres', qq{
SELECT id, operations, errors, not_found, reads, updates, inserts, scans, rmws
FROM petagen.bench_results WHERE id = $run});
	my $dist = $node->safe_psql('postgres',
		"SELECT distribution FROM petagen.bench_results WHERE id = $id");
	cmp_ok($o, '>', 0, "$kind: operations > 0");
	is($e,  0, "$kind: no errors");
	is($nf, 0, "$kind: no key not found");
	is($dist, $kind eq 'ycsb-d' ? 'latest' : 'zipfian', "$kind: YCSB's distribution");
	for my $i (0 .. 4)
	{
		my $share = $count[$i] / $o;
		ok(abs($share - $mix{$kind}[$i]) <= 0.03,
			sprintf('%s: %s %.4f of operations, YCSB %.2f', $kind, $names[$i], $share, $mix{$kind}[$i]));
	}
	$inserted += $count[2];
}
is( $node->safe_psql('postgres',
		"SELECT count(*) - $rows FROM usertable"),
	$inserted, 'the inserts of ycsb-d and ycsb-e are all in the table');
is( $node->safe_psql('postgres', qq{
SELECT count(*) FROM usertable u
WHERE petagen.seq(u.ycsb_key) >= $rows AND (u.*) IS DISTINCT FROM
      (SELECT g FROM petagen.rows(NULL::usertable, petagen.seq(u.ycsb_key), 1) g)}),
	0, 'inserted rows are petagen rows of key numbers past the key space');

# A cancelled bench() stops its workers.
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	"SET statement_timeout = '1s'; SELECT * FROM petagen.bench('select', workers => 2, duration => '60 s')");
like($stderr, qr/canceling statement due to statement timeout/, 'bench() can be cancelled');
ok( $node->poll_query_until(
		'postgres',
		"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'petagen bench worker'"),
	'no benchmark worker is left after a cancel');

$node->stop;
done_testing();
