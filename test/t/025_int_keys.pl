# BenchBase's YCSB table (ycsb_key int, field1 .. field10), created
# with BenchBase's own DDL, loads as it is.
# - start() loads it plain (method chunk), HASH partitioned on an int key
#   (methods leaf and chunk) and RANGE partitioned on a bigint key (chunk):
#   each exactly the key numbers 0 .. rows-1, the generator's rows, verified;
# - a load whose key numbers pass 2147483647 is refused for an int key;
# - benchmarks on it: reads and updates with dataintegrity find every key
#   and no mismatch; inserts (ycsb-d) of two runs take key numbers one run
#   after the other from rows on, which verify(job) reports as extra with a
#   DELETE that removes exactly them; a run with no integer key left for
#   its inserts is refused.
# - a RANGE partitioned int table with a postgres_fdw foreign leaf: verify()
#   probes the foreign leaf's keys as an int[] on the remote side, and
#   names a key deleted there as missing;
# - Citus (when installed): the same table distributed by its int key loads
#   on each worker, every shard exactly its own hash range (worker_hash(),
#   hashint4()), the whole key space once, verified from one worker.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;
use PetagenCitus;

skip_unless_contrib(qw(amcheck));

my $rows = 20000;

my $node = PostgreSQL::Test::Cluster->new('int_keys');
$node->init;
$node->append_conf('postgresql.conf', "max_worker_processes = 16\n");
$node->start;

# BenchBase's ddl-postgres.sql for YCSB, as it is.
my $fields = join('', map { ", field$_ varchar(100)" } 1 .. 10);
$node->safe_psql('postgres', qq{
CREATE EXTENSION petagen;
CREATE EXTENSION amcheck;
CREATE TABLE usertable (ycsb_key int PRIMARY KEY$fields);
CREATE TABLE hashed (ycsb_key int PRIMARY KEY$fields) PARTITION BY HASH (ycsb_key);
CREATE TABLE ranged (ycsb_key bigint PRIMARY KEY$fields) PARTITION BY RANGE (ycsb_key);
});
for my $i (0 .. 7)
{
	my $lo = $i == 0 ? 'MINVALUE' : $i * $rows / 8;
	my $hi = $i == 7 ? 'MAXVALUE' : ($i + 1) * $rows / 8;
	$node->safe_psql('postgres', qq{
CREATE TABLE hashed_$i PARTITION OF hashed FOR VALUES WITH (MODULUS 8, REMAINDER $i);
CREATE TABLE ranged_$i PARTITION OF ranged FOR VALUES FROM ($lo) TO ($hi);
});
}

# Load $table with start(); the job.
sub start_load
{
	my ($table, $method) = @_;
	return $node->safe_psql('postgres',
		"SELECT petagen.start($rows, workers => 2, \"table\" => '$table', method => '$method')");
}

# The plain table: every key number 0 .. rows-1 once, the generator's rows.
my $job = start_load('usertable', 'chunk');
wait_done($node, $job, 'plain: loaded', '180s');
is( $node->safe_psql('postgres',
		"SELECT count(*), min(ycsb_key), max(ycsb_key) FROM usertable"),
	"$rows|0|" . ($rows - 1), 'plain: the keys are the key numbers 0 .. rows-1');
is( $node->safe_psql('postgres',
		"SELECT count(*) FROM (SELECT * FROM usertable EXCEPT"
		  . " SELECT * FROM petagen.rows(NULL::usertable, 0, $rows)) d"),
	'0', 'plain: the generator\'s rows');
is($node->safe_psql('postgres', "SELECT bool_and(ok) FROM petagen.verify(${job}::bigint)"),
	't', 'plain: verify() is ok');

# Partitioned: HASH on int by both methods, RANGE on bigint.
for my $case (['hashed', 'leaf'], ['ranged', 'chunk'], ['hashed', 'chunk'])
{
	my ($table, $method) = @$case;
	$node->safe_psql('postgres', "TRUNCATE $table");
	check_load_exact($node, start_load($table, $method), $table, $rows,
		"$table by $method");
}

# An int key holds key numbers up to 2147483647.
is( error_of($node,
		"SELECT petagen.start(10, workers => 1, first => 2147483640, \"table\" => 'usertable', force => true)"),
	'22003: key number 2147483649 is out of range for column ycsb_key of "usertable"',
	'a load past 2147483647 is refused for an int key');
is( error_of($node, "SELECT petagen.start(10, keys => 'ycsb')"),
	'22023: option keys => \'ycsb\' does not apply to the integer ycsb_key of "usertable"',
	'key options are refused for an int key');

# Benchmarks: every key found, the generator's values, with dataintegrity.
my ($out, $err) = run_bench($node,
	q{'ycsb', workers => 2, operationcount => 3000, readproportion => 0.5,
	  updateproportion => 0.3, scanproportion => 0.1, readmodifywriteproportion => 0.1,
	  maxscanlength => 10, dataintegrity => true},
	'operations, errors, not_found');
is("$out|$err", '3000|0|0|', 'ycsb mix on the int key: every key found');
is(last_integrity_errors($node), '0', 'ycsb mix on the int key: no mismatch');

# Inserts: two runs, one after the other, from key number rows on.
my @runs;
for my $n (1 .. 2)
{
	($out) = run_bench($node, q{'ycsb-d', workers => 2, operationcount => 1000},
		'id, inserts, errors');
	my ($run, $inserts, $errors) = split /\|/, $out;
	cmp_ok($inserts, '>', 0, "ycsb-d run $n inserted $inserts rows");
	is($errors, '0', "ycsb-d run $n: no errors");
	push @runs, $run;
}
is( $node->safe_psql(
		'postgres', qq{SELECT string_agg((options->>'insert_base') || '-' || (options->>'insert_end'), ' ' ORDER BY id),
       bool_and((options->>'job')::bigint = $job)
  FROM petagen.bench_results WHERE id IN ($runs[0], $runs[1])}),
	$node->safe_psql(
		'postgres', qq{SELECT '$rows-' || e1 || ' ' || e1 || '-' || e2 || '|t'
  FROM (SELECT (SELECT options->>'insert_end' FROM petagen.bench_results WHERE id = $runs[0]) e1,
               (SELECT options->>'insert_end' FROM petagen.bench_results WHERE id = $runs[1]) e2) s}),
	'int key: the first run inserts from rows on, the second from where the first ended');
is( $node->safe_psql('postgres',
		"SELECT count(*) = (SELECT sum(inserts) FROM petagen.bench_results WHERE id IN ($runs[0], $runs[1]))"
		  . " FROM usertable WHERE ycsb_key >= $rows"),
	't', 'the inserted rows are the key numbers past the key space');
my ($rc, $stdout, $stderr) =
  $node->psql('postgres', "SELECT bool_and(ok) FROM petagen.verify(${job}::bigint)");
is($stdout, 'f', 'verify(job) counts the inserted rows as extra');
my ($delete) = $stderr =~ /HINT:  To remove the rows benchmark runs inserted: (DELETE [^\n]*)/;
like($delete, qr/WHERE ycsb_key IN \(SELECT n FROM/, 'the NOTICE\'s DELETE names key numbers');
$node->safe_psql('postgres', $delete);
is($node->safe_psql('postgres', "SELECT bool_and(ok) FROM petagen.verify(${job}::bigint)"),
	't', 'after the DELETE of the NOTICE verify(job) is ok again');

# No integer key left for inserts: refused before the run.
$node->safe_psql('postgres', "CREATE TABLE edge (ycsb_key int PRIMARY KEY$fields)");
$job = $node->safe_psql('postgres',
	"SELECT petagen.start(648, workers => 1, first => 2147483000, \"table\" => 'edge')");
wait_done($node, $job, 'a load up to 2147483647', '180s');
like(
	error_of($node, "SELECT * FROM petagen.bench('ycsb-d', \"table\" => 'edge', operationcount => 10)"),
	qr/^22003: no room left in integer column ycsb_key for the inserts of run \d+$/,
	'inserts past 2147483647 are refused');
# Room for 8 inserts (key numbers 2147483640 .. 2147483647): the next one
# fails, with the reason, and its worker stops.
$node->safe_psql('postgres', "CREATE TABLE edge2 (ycsb_key int PRIMARY KEY$fields)");
$job = $node->safe_psql('postgres',
	"SELECT petagen.start(40, workers => 1, first => 2147483600, \"table\" => 'edge2')");
wait_done($node, $job, 'a load up to 2147483639', '180s');
($out) = run_bench($node,
	q{'ycsb', "table" => 'edge2', workers => 1, operationcount => 400,
	  readproportion => 0.5, updateproportion => 0, insertproportion => 0.5},
	'id, inserts, errors');
my ($edge_run, $edge_inserts, $edge_errors) = split /\|/, $out;
is("$edge_inserts|$edge_errors", '8|1',
	'the inserts up to key number 2147483647 succeed, the next one fails');
is( $node->safe_psql('postgres',
		"SELECT options->>'last_error' FROM petagen.bench_results WHERE id = $edge_run"),
	'key number 2147483648 to insert is out of range for integer column ycsb_key',
	'with the reason');
is($node->safe_psql('postgres', 'SELECT count(*), max(ycsb_key) FROM edge2'),
	'48|2147483647', 'edge2 holds the load and the 8 inserts');

($out, $err) = run_bench($node,
	q{'select', "table" => 'edge', workers => 1, operationcount => 500, dataintegrity => true},
	'operations, not_found');
is("$out|$err", '500|0|', 'reads up to key number 2147483647 find every key');
is(last_integrity_errors($node), '0', 'and the generator\'s values');
# Someone changes field1 of the even key numbers: dataintegrity sees it.
$node->safe_psql('postgres', "UPDATE edge SET field1 = 'changed' WHERE ycsb_key % 2 = 0");
($out) = run_bench($node,
	q{'select', "table" => 'edge', workers => 1, operationcount => 500, dataintegrity => true},
	'operations, not_found');
is($out, '500|0', 'reads of the changed table find every key');
my $mismatches = last_integrity_errors($node);
cmp_ok($mismatches, '>', 150, "dataintegrity counts $mismatches reads of changed rows");
cmp_ok($mismatches, '<', 350, 'and not the reads of unchanged rows');

# A foreign leaf (postgres_fdw, back to this node): verify() probes it by int keys.
$node->safe_psql('postgres', qq{
CREATE EXTENSION postgres_fdw;
CREATE SERVER loopback FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host '@{[ $node->host ]}', port '@{[ $node->port ]}', dbname 'postgres');
CREATE USER MAPPING FOR CURRENT_USER SERVER loopback;
CREATE TABLE remote (ycsb_key int PRIMARY KEY$fields);
CREATE TABLE split (ycsb_key int$fields) PARTITION BY RANGE (ycsb_key);
CREATE TABLE split_local PARTITION OF split FOR VALUES FROM (MINVALUE) TO (1000);
CREATE FOREIGN TABLE split_remote PARTITION OF split FOR VALUES FROM (1000) TO (MAXVALUE)
    SERVER loopback OPTIONS (table_name 'remote');
ALTER TABLE split_local ADD PRIMARY KEY (ycsb_key);
});
is( $node->safe_psql('postgres',
		"SELECT (SELECT rows_written FROM petagen.load('split', 0, 3000)),"
		  . " (SELECT rows_written FROM petagen.load('remote', 1000, 2000))"),
	'1000|2000', 'a load writes the local leaf; the foreign leaf is loaded on its node');
is( $node->safe_psql('postgres',
		"SELECT string_agg(concat_ws(':', local, expected, present, missing, ok), ' ' ORDER BY local DESC)"
		  . " FROM petagen.verify('split', 3000)"),
	't:1000:1000:0:t f:2000:2000:0:t',
	'verify() probes the foreign leaf by int keys');
$node->safe_psql('postgres', 'DELETE FROM remote WHERE ycsb_key = 2500');
is( $node->safe_psql('postgres',
		"SELECT concat_ws(':', expected, present, missing, ok) FROM petagen.verify('split', 3000) WHERE NOT local"),
	'2000:1999:1:f', 'a key deleted on the remote side is missing');

$node->stop;

SKIP:
{
	skip 'Citus is not installed (scripts/citus.sh)', 6
	  unless -f $node->config_data('--pkglibdir') . '/citus.so';
	my ($coord, $w1, $w2) = citus_cluster();
	$coord->safe_psql('postgres', qq{
CREATE TABLE usertable (ycsb_key int PRIMARY KEY$fields);
SELECT create_distributed_table('usertable', 'ycsb_key', shard_count => 8);
});
	for my $w ($w1, $w2)
	{
		my $j = $w->safe_psql('postgres', "SELECT petagen.start($rows, workers => 2)");
		is($w->safe_psql('postgres', "SELECT petagen.wait($j, '180s')"),
			'done', 'Citus: ' . $w->name . ' loaded its shards');
		my @shards = split /\n/,
		  $w->safe_psql('postgres',
			"SELECT leaf FROM petagen.leaves('usertable') WHERE leaf IS NOT NULL");
		my @bad = map {
			$w->safe_psql(
				'postgres', qq{
SELECT count(*) FILTER (WHERE worker_hash(ycsb_key) NOT BETWEEN lo AND hi
                           OR hashint4(ycsb_key) NOT BETWEEN lo AND hi)
  FROM $_,
       (SELECT shardminvalue::int AS lo, shardmaxvalue::int AS hi FROM pg_dist_shard
         WHERE shardid = substring('$_' FROM '_(\\d+)\$')::bigint) r})
		} @shards;
		is("@bad", '0 0 0 0',
			'Citus: ' . $w->name . "'s 4 shards hold only keys of their hash ranges");
	}
	is( $coord->safe_psql('postgres',
			'SELECT count(*), count(DISTINCT ycsb_key), min(ycsb_key), max(ycsb_key) FROM usertable'),
		"$rows|$rows|0|" . ($rows - 1), 'Citus: the coordinator sees every key number once');
	is( $w1->safe_psql('postgres',
			"SELECT count(*), count(*) FILTER (WHERE ok) FROM petagen.verify('usertable', $rows)"),
		'8|8', 'Citus: verify() on one worker is ok on every shard');
	$_->stop for ($coord, $w1, $w2);
}
done_testing();
