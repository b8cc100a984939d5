# petagen.bench('ycsb', ...) as YCSB's CoreWorkload: a run of
# operationcount operations measures exactly that many, over every worker;
# the operation mix follows the proportions given (one worker and a fixed
# operation count make the run deterministic: its random stream is seeded
# by the run's id); hotspot, sequential and exponential runs find every key;
# a label and the settings are recorded; a benchmark of a key space the
# table no longer holds (TRUNCATE, then a small load()) warns before it
# starts and, having missed keys, when it ends; and the generation arguments
# not given are the table's load job's.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $rows = 10000;

my ($node, $job) = bench_node('bench_ycsb', $rows);

# Run a benchmark on the node: run_bench() of PetagenTest.
sub bench
{
	return run_bench($node, @_);
}

# operationcount: exactly that many operations over all workers, no timing.
my ($out, $err) = bench(q{'select', workers => 3, operationcount => 5000},
	'operations, errors, not_found');
is($out, '5000|0|0', 'operationcount 5000 over 3 workers: exactly 5000 operations');
is($err, '', 'no warning for a table that holds its key space');
is( $node->safe_psql(
		'postgres', q{SELECT duration > '0 s', options->>'operationcount'
  FROM petagen.bench_results ORDER BY id DESC LIMIT 1}),
	't|5000',
	'the run records its operationcount and the time it took as its duration');

# The proportions: each operation kind's share within 0.03 of the one given.
my %want = (reads => 0.5, updates => 0.2, inserts => 0.05, scans => 0.2, rmws => 0.05);
($out) = bench(
	q{'ycsb', workers => 1, operationcount => 4000, readproportion => 0.5,
	  updateproportion => 0.2, insertproportion => 0.05, scanproportion => 0.2,
	  readmodifywriteproportion => 0.05, maxscanlength => 10, label => 'mix'},
	'operations, errors, not_found, reads, updates, inserts, scans, rmws');
my ($ops, $errors, $not_found, @counts) = split /\|/, $out;
is("$ops|$errors|$not_found", '4000|0|0', 'ycsb mix: 4000 operations, no error, every key found');
my @kinds = qw(reads updates inserts scans rmws);
for my $i (0 .. $#kinds)
{
	my $share = $counts[$i] / 4000;
	cmp_ok(abs($share - $want{ $kinds[$i] }), '<', 0.03,
		"ycsb mix: $kinds[$i] $share of the operations, asked $want{$kinds[$i]}");
}
is( $node->safe_psql(
		'postgres', q{SELECT kind, label, options->>'scanproportion', options->>'maxscanlength',
  settings ? 'shared_buffers' AND settings ? 'synchronous_commit' AND settings ? 'cores'
  FROM petagen.bench_results ORDER BY id DESC LIMIT 1}),
	'ycsb|mix|0.2|10|t',
	'the run records its kind, label, proportions, scan shape and settings');

# Every request distribution finds every key of the key space.
for my $dist (qw(hotspot sequential exponential))
{
	($out) = bench(
		qq{'ycsb', workers => 2, operationcount => 2000, distribution => '$dist',
		   readproportion => 0.9, updateproportion => 0.1},
		'operations, errors, not_found');
	is($out, '2000|0|0', "distribution $dist: every key found");
}
($out) = bench(q{'ycsb-e', workers => 2, operationcount => 500, scanlengthdistribution => 'zipfian',
	minscanlength => 5, maxscanlength => 20}, 'operations, errors');
is($out, '500|0', 'ycsb-e with zipfian scan lengths runs without errors');

# The key space gone: TRUNCATE, then load() 1,000 rows.  bench() still takes
# the job's 10,000-row key space: it warns before it runs and after.
$node->safe_psql('postgres',
	q{TRUNCATE usertable; SELECT keys FROM petagen.load('usertable', 0, 1000)});
($out, $err) = bench(q{'select', workers => 1, operationcount => 1000},
	'not_found > 0');
is($out, 't', 'a run over the lost key space misses keys');
like($err,
	qr/WARNING:  table "usertable" does not hold key number 9999 of the key space 0 \.\. 9999\nDETAIL:  The key space is that of load job $job: the table was emptied or loaded again since\./,
	'bench() warns before it runs that the table lost the key space');
like($err, qr/WARNING:  benchmark run \d+ did not find \d+ of the keys its 1000 operations looked for/,
	'bench() warns when it ends that keys were not found');

# The rows given that match the table: no warning.
($out, $err) = bench(q{'select', workers => 1, operationcount => 100, rows => 1000},
	'not_found');
is("$out|$err", '0|', 'rows => 1000 matching the table: every key found, no warning');

# Given no keys, prefix, zeropadding or fieldlength, bench() spells keys and
# writes field values as the table's load job did (spec.c's reader falls back
# on the job's spec): an ordered, prefixed, padded key space with 20-byte
# fields, which the defaults would neither find nor fit.
$node->safe_psql('postgres',
	q{SELECT petagen.create_table('spelled', 2, fieldlength => 20)});
my $spelled = $node->safe_psql('postgres',
	q{SELECT petagen.start(2000, workers => 1, "table" => 'spelled', keys => 'ordered',
	  prefix => 'k', zeropadding => 12, fieldlength => 20, seed => 7)});
wait_done($node, $spelled, 'load of spelled done');
($out, $err) = bench(q{'ycsb-a', workers => 1, operationcount => 1000, "table" => 'spelled'},
	'operations, errors, not_found');
is("$out|$err", '1000|0|0|',
	"bench() takes the load job's keys, prefix, zeropadding and fieldlength: every key found, no warning");
($out, $err) = bench(q{'select', workers => 1, operationcount => 500, "table" => 'spelled', fieldlength => 20},
	'operations, errors, not_found');
is("$out|$err", '500|0|0|',
	"fieldlength given, bench() still takes the job's keys, prefix and zeropadding: every key found");

done_testing();
