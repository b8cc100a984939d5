# What a benchmark reads, inserts and misses.
# - dataintegrity => true finds no mismatch on a fresh load, and counts the
#   rows a corrupting UPDATE changed, with a WARNING;
# - a benchmark's inserts are key numbers outside the load job's key space
#   (options.insert_base .. insert_end), so verify(job) counts them as extra
#   and says so in a NOTICE whose DELETE removes exactly them, and
#   verify(job, bench_inserts => 'ignore') leaves exactly them out;
# - after TRUNCATE and a small load(), bench() warns before it runs, and a
#   scan-only run warns when it ends (its scans miss their start keys).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $rows = 5000;

my ($node, $job) = bench_node('bench_integrity', $rows);

# Run a benchmark on the node: run_bench() of PetagenTest.
sub bench
{
	return run_bench($node, @_);
}

# A fresh load: every read, scan and read-modify-write matches the generator.
my ($out, $err) = bench(
	q{'ycsb', workers => 2, operationcount => 2000, readproportion => 0.5,
	  updateproportion => 0.2, scanproportion => 0.2, readmodifywriteproportion => 0.1,
	  maxscanlength => 10, dataintegrity => true},
	'operations, errors, not_found');
is("$out|$err", '2000|0|0|', 'dataintegrity on a fresh load: every key found, no warning');
is(last_integrity_errors($node), '0', 'dataintegrity on a fresh load: no mismatch');

# Someone changes field3 of about a third of the rows.
my $changed = $node->safe_psql('postgres',
	q{WITH u AS (UPDATE usertable SET field3 = reverse(field3) WHERE hashtext(ycsb_key) % 3 = 0 RETURNING 1)
	  SELECT count(*) FROM u});
cmp_ok($changed, '>', 1000, "a corrupting UPDATE changed $changed rows");
($out, $err) = bench(q{'select', workers => 2, operationcount => 3000, dataintegrity => true},
	'operations, not_found');
is($out, '3000|0', 'select over the changed table: every key found');
my $mismatches = last_integrity_errors($node);
cmp_ok($mismatches, '>', 500, "dataintegrity counts $mismatches mismatching reads");
cmp_ok($mismatches, '<', 2500, 'and not the reads of unchanged rows');
like($err,
	qr/WARNING:  benchmark run \d+ read $mismatches rows whose fields differ from the generator's/,
	'the run warns of the mismatches');
($out, $err) = bench(q{'select', workers => 2, operationcount => 1000}, 'operations');
is($err, '', 'without dataintegrity nothing is checked, no warning');
is(last_integrity_errors($node), '', 'without dataintegrity integrity_errors is null');
$node->safe_psql('postgres',
	q{UPDATE usertable SET field3 = reverse(field3) WHERE hashtext(ycsb_key) % 3 = 0});

# ycsb-d inserts: key numbers from rows + id * 2^40 up, outside the job's key space.
($out) = bench(q{'ycsb-d', workers => 2, operationcount => 2000}, 'id, inserts, errors');
my ($run, $inserts, $errors) = split /\|/, $out;
cmp_ok($inserts, '>', 0, "ycsb-d inserted $inserts rows");
is($errors, '0', 'ycsb-d: no errors');
is( $node->safe_psql(
		'postgres', qq{SELECT (options->>'insert_base')::bigint = $rows + $run * 2^40,
       (options->>'insert_end')::bigint > (options->>'insert_base')::bigint,
       (options->>'job')::bigint = $job
  FROM petagen.bench_results WHERE id = $run}),
	't|t|t',
	'the run records insert_base (rows + id * 2^40), insert_end and its load job');
is( $node->safe_psql(
		'postgres', qq{SELECT count(*) FROM usertable WHERE ycsb_key IN
  (SELECT petagen.key(n) FROM petagen.bench_results AS r,
          generate_series((r.options->>'insert_base')::bigint, (r.options->>'insert_end')::bigint - 1) AS n
    WHERE r.id = $run)}),
	$inserts,
	'every inserted row is a key number in insert_base .. insert_end - 1');
is($node->safe_psql('postgres', 'SELECT count(*) FROM usertable'),
	$rows + $inserts, 'the loaded rows are all still there beside the inserted ones');

# verify(job) counts the inserted rows as extra and says why, with the DELETE.
my ($rc, $stdout, $stderr) = $node->psql('postgres',
	"SELECT sum(extra), sum(missing), bool_and(ok) FROM petagen.verify($job)");
is($stdout, "$inserts|0|f", 'verify(job): the inserted rows are extra, none missing');
like($stderr,
	qr/NOTICE:  benchmark runs of load job $job inserted $inserts rows outside its key space: verify counts them as extra/,
	'verify(job) says the extra rows are benchmark inserts');
my $count_stderr = $stderr;
# bench_inserts => 'ignore' leaves exactly those rows out, and says how many.
($rc, $stdout, $stderr) = $node->psql('postgres',
	"SELECT sum(extra), sum(missing), bool_and(ok) FROM petagen.verify($job, bench_inserts => 'ignore')");
is($stdout, '0|0|t', "verify(job, bench_inserts => 'ignore') proves the key space beside the inserts");
like($stderr,
	qr/NOTICE:  verify ignored $inserts rows that benchmark runs of load job $job inserted/,
	'it says how many rows it ignored');
my ($delete) = $count_stderr =~ /HINT:  To remove the rows benchmark runs inserted: (DELETE .*;)/;
ok(defined $delete, 'the NOTICE gives the DELETE that removes them');
$node->safe_psql('postgres', $delete);
($rc, $stdout, $stderr) = $node->psql('postgres',
	"SELECT sum(extra), sum(missing), bool_and(ok) FROM petagen.verify($job)");
is("$stdout|$stderr", '0|0|t|', "after the NOTICE's DELETE verify(job) passes, no notice");

# TRUNCATE, then load() 1,000 rows: the job's key space is gone.
$node->safe_psql('postgres',
	q{TRUNCATE usertable; SELECT keys FROM petagen.load('usertable', 0, 1000)});
($out, $err) = bench(
	q{'ycsb', workers => 1, operationcount => 500, readproportion => 0, updateproportion => 0,
	  scanproportion => 1, maxscanlength => 5}, 'not_found > 0');
is($out, 't', 'scans over the lost key space miss their start keys');
like($err,
	qr/WARNING:  table "usertable" does not hold key number 4999 of the key space 0 \.\. 4999/,
	'bench() warns before it runs');
like($err, qr/WARNING:  benchmark run \d+ did not find \d+ of the keys its 500 operations looked for/,
	'a scan-only run warns when it ends that keys were not found');

done_testing();
