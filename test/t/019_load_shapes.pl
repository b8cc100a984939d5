# Table shapes and field values of YCSB and BenchBase, the load side,
# loaded by jobs with both methods: field lengths of YCSB's
# fieldlengthdistribution, and key spaces that start at first (YCSB's
# insertstart).  What a job writes is what rows() generates for the same
# arguments, and verify() checks the job's own key range.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $node = PostgreSQL::Test::Cluster->new('load_shapes');
$node->init;
$node->start;
$node->safe_psql('postgres', q{CREATE EXTENSION petagen;});

# The md5 of the rows of $sql (a table, or a call of rows()), ordered by key.
sub content_md5
{
	my ($sql) = @_;
	return $node->safe_psql('postgres',
		"SELECT md5(string_agg(md5(t::text), '' ORDER BY ycsb_key)) FROM $sql t");
}

# Create table $name with columns $columns, hash-partitioned on ycsb_key
# into two leaves.
sub hash_table
{
	my ($name, $columns) = @_;
	$node->safe_psql('postgres', qq{
		CREATE TABLE $name ($columns) PARTITION BY HASH (ycsb_key);
		CREATE TABLE ${name}_0 PARTITION OF $name FOR VALUES WITH (MODULUS 2, REMAINDER 0);
		CREATE TABLE ${name}_1 PARTITION OF $name FOR VALUES WITH (MODULUS 2, REMAINDER 1);});
}

# Job $job is done and verify() of it is ok on all 8 leaves.
sub job_verifies
{
	my ($job, $what) = @_;
	wait_done($node, $job, "$what: the job is done", '180s');
	is( $node->safe_psql('postgres',
			"SELECT count(*), count(*) FILTER (WHERE ok) FROM petagen.verify(${job}::bigint)"),
		'8|8', "$what: verify() is ok on every leaf");
}

# fieldlengthdistribution, with both methods: the rows are rows()'s, their
# lengths in minfieldlength .. fieldlength, and the job keeps the option.
foreach my $case (['chunk', 'uniform'], ['leaf', 'zipfian'])
{
	my ($method, $dist) = @$case;
	my $table = "len_$method";
	my $args = "fieldlength => 60, minfieldlength => 10, fieldlengthdistribution => '$dist'";
	$node->safe_psql('postgres', "SELECT petagen.create_table('$table')");
	my $job = $node->safe_psql('postgres',
		"SELECT petagen.start(20000, workers => 2, \"table\" => '$table', method => '$method', $args)");
	job_verifies($job, "$dist lengths, $method method");
	is( $node->safe_psql('postgres',
			"SELECT method, fieldlengthdistribution, minfieldlength, fieldlength"
			  . " FROM petagen.jobs WHERE job = $job"),
		"$method|$dist|10|60", "$dist lengths, $method method: the job keeps them");
	is(content_md5($table),
		content_md5("petagen.rows(NULL::$table, 0, 20000, $args)"),
		"$dist lengths, $method method: the table holds rows()'s rows");
	is( $node->safe_psql('postgres',
			"SELECT min(length(field0)) >= 10, max(length(field9)) <= 60,"
			  . " count(DISTINCT length(field3)) > 40 FROM $table"),
		't|t|t', "$dist lengths, $method method: lengths 10 .. 60, most of them used");
}

# first: two jobs with disjoint key ranges grow one table, the second with
# the chunk method (auto: the leaves hold rows); each verify(job) finds its
# own keys and counts the other's as extra; the union verifies.
$node->safe_psql('postgres', q{SELECT petagen.create_table('grown')});
my $job_a = $node->safe_psql('postgres',
	q{SELECT petagen.start(10000, workers => 2, "table" => 'grown', method => 'leaf')});
job_verifies($job_a, 'first => 0');
my $job_b = $node->safe_psql('postgres',
	q{SELECT petagen.start(15000, workers => 2, "table" => 'grown', first => 10000)});
wait_done($node, $job_b, 'first => 10000: the second job is done', '180s');
is( $node->safe_psql('postgres',
		"SELECT method, first, rows FROM petagen.jobs WHERE job = $job_b"),
	'chunk|10000|15000', 'first => 10000: the job keeps first and takes the chunk method');
is( $node->safe_psql('postgres',
		"SELECT sum(expected), sum(missing), sum(extra), sum(duplicated)"
		  . " FROM petagen.verify(${job_b}::bigint)"),
	'15000|0|10000|0', 'verify(job) of the second: its keys all there, the first job\'s extra');
is( $node->safe_psql('postgres',
		"SELECT sum(expected), sum(missing), sum(extra) FROM petagen.verify(${job_a}::bigint)"),
	'10000|0|15000', 'verify(job) of the first: its keys all there, the second job\'s extra');
is( $node->safe_psql('postgres',
		q{SELECT count(*) FILTER (WHERE ok) FROM petagen.verify('grown', 25000)}),
	'8', 'verify() of the union of both ranges is ok on every leaf');
is(content_md5('grown'),
	content_md5('petagen.rows(NULL::grown, 0, 25000)'),
	'the table holds rows() of both ranges');
like( $node->safe_psql('postgres',
		q{SELECT string_agg(severity || ': ' || detail, E'\n') FROM petagen.check_details(100, 1, 'grown', first => 24950)
		  WHERE finding LIKE 'keys:%'}),
	qr/^error: keys: \d+ of the \d+ key numbers probed are already in the table, the first being key number 24950 /,
	'check() over the end of the second range finds its keys');

# A leaf job of a range that does not start at 0.
$node->safe_psql('postgres', q{SELECT petagen.create_table('high')});
my $job_h = $node->safe_psql('postgres',
	q{SELECT petagen.start(20000, workers => 2, "table" => 'high', method => 'leaf', first => 5e9)});
job_verifies($job_h, 'first => 5e9, leaf method');
is(content_md5('high'),
	content_md5('petagen.rows(NULL::high, 5e9, 20000)'),
	'first => 5e9, leaf method: the table holds rows() of the range');

# bench() takes the key space of the job, first included: every read finds
# its key, no warning; inserts go past first + rows.
my ($rc, $out, $err) = $node->psql('postgres',
	q{SELECT operations, errors, not_found FROM petagen.bench('ycsb', workers => 1, "table" => 'high',
	  operationcount => 2000, readproportion => 0.9, insertproportion => 0.1, updateproportion => 0)});
is("$rc|$out", '0|2000|0|0', 'bench() of a job with first => 5e9: every read finds its key');
is($err, '', 'bench() of a job with first => 5e9: no warning');
is( $node->safe_psql('postgres',
		q{SELECT (options->>'first')::bigint, (options->>'insert_base')::bigint >= 5e9 + 20000
		  FROM petagen.bench_results ORDER BY id DESC LIMIT 1}),
	'5000000000|t', 'bench() records first, and inserts past the key space');

# BenchBase's numbering (field1 .. fieldN): loads with both methods, and
# bench()'s updates and inserts name its columns.
foreach my $method ('chunk', 'leaf')
{
	hash_table("bb_$method",
		'ycsb_key varchar(64) PRIMARY KEY, field1 varchar(100), field2 varchar(100),'
		  . ' field3 varchar(100)');
	my $job = $node->safe_psql('postgres',
		"SELECT petagen.start(5000, workers => 2, \"table\" => 'bb_$method', method => '$method')");
	wait_done($node, $job, "field1 .. field3, $method method: the job is done", '180s');
	is( $node->safe_psql('postgres',
			"SELECT count(*) FILTER (WHERE ok) FROM petagen.verify(${job}::bigint)"),
		'2', "field1 .. field3, $method method: verify() is ok on both leaves");
	is(content_md5("bb_$method"),
		content_md5("petagen.rows(NULL::bb_$method, 0, 5000)"),
		"field1 .. field3, $method method: the table holds rows()'s rows");
}
($rc, $out, $err) = $node->psql('postgres',
	q{SELECT operations, errors FROM petagen.bench('ycsb', workers => 1, "table" => 'bb_chunk',
	  operationcount => 1000, readproportion => 0.5, updateproportion => 0.3, insertproportion => 0.2)});
is("$rc|$out", '0|1000|0', 'bench() updates and inserts into field1 .. field3 without error')
  or diag($err);

# Extra columns, with both methods: DEFAULT now() (the load's transaction
# time), DEFAULT 42, a stored generated column over the row, a nullable
# column left NULL; the key and fields are rows()'s.
foreach my $method ('chunk', 'leaf')
{
	hash_table("ex_$method",
		'ycsb_key varchar(64) PRIMARY KEY, field0 varchar(100),'
		  . ' loaded_at timestamptz DEFAULT now(), answer int DEFAULT 42,'
		  . ' keylen int GENERATED ALWAYS AS (length(ycsb_key) + answer) STORED, note text');
	my $before = $node->safe_psql('postgres', 'SELECT now()');
	my $job = $node->safe_psql('postgres',
		"SELECT petagen.start(4000, workers => 2, \"table\" => 'ex_$method', method => '$method')");
	wait_done($node, $job, "extra columns, $method method: the job is done", '180s');
	is( $node->safe_psql('postgres',
			"SELECT count(*), bool_and(loaded_at >= '$before' AND loaded_at <= now()),"
			  . " bool_and(answer = 42), bool_and(keylen = length(ycsb_key) + 42),"
			  . " bool_and(note IS NULL) FROM ex_$method"),
		'4000|t|t|t|t',
		"extra columns, $method method: defaults, the generated column and NULL as INSERT gives them");
	is( $node->safe_psql('postgres',
			"SELECT md5(string_agg(md5(ycsb_key || field0), '' ORDER BY ycsb_key)) FROM ex_$method"),
		$node->safe_psql('postgres',
			"SELECT md5(string_agg(md5(ycsb_key || field0), '' ORDER BY ycsb_key))"
			  . " FROM petagen.rows(NULL::ex_$method, 0, 4000)"),
		"extra columns, $method method: key and fields are rows()'s");
	is( $node->safe_psql('postgres',
			"SELECT count(*) FILTER (WHERE ok) FROM petagen.verify(${job}::bigint)"),
		'2', "extra columns, $method method: verify() is ok on both leaves");
}
like(
	error_of(
		$node,
		q{CREATE TABLE nn (ycsb_key text PRIMARY KEY, field0 text, must int NOT NULL);
		  SELECT petagen.start(10, 1, 'nn')}),
	qr/^42P16: column "must" of "nn" is NOT NULL and has no default/,
	'a NOT NULL column without default is refused, named');

$node->stop;
done_testing();
