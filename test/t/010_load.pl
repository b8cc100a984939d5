# Acceptance test of a background load: two workers load 300,000 rows in
# 30 chunks into an 8-leaf hash-partitioned usertable, and the result is
# exactly the key space, routed as PostgreSQL routes it, byte-identical to
# petagen.rows(), with a consistent ledger, status and progress_log.
# Also: one job per table, status for pg_monitor, start for operators only.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

skip_unless_contrib(qw(amcheck));

my $rows = 300000;

my $node = usertable_node('load');

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION amcheck;
CREATE ROLE watcher LOGIN IN ROLE pg_monitor;
CREATE ROLE outsider LOGIN;
GRANT USAGE ON SCHEMA petagen TO outsider;
});

# The workers are held before their first chunk (petagen.debug_pause)
# until the checks of a running job below are done.
set_debug_pause($node, 'before_chunk');
my $job = $node->safe_psql('postgres',
	qq{SELECT petagen.start($rows, workers => 2, "table" => 'usertable', chunk_rows => 10000,
	method => 'chunk')}
);
like($job, qr/^\d+$/, 'start() returns a job id');

# A second job on the same table is refused while the first is running.
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	qq{\\set VERBOSITY verbose
SELECT petagen.start($rows, workers => 2, "table" => 'usertable', chunk_rows => 10000,
	method => 'chunk')}
);
isnt($ret, 0, 'second start() on the same table fails');
like($stderr, qr/ERROR:\s+55006:/, 'second start() fails with object_in_use (55006)');
like($stderr, qr/already has load job $job/, 'the error names the running job');

# A pg_monitor member who is not a superuser can watch the job.
is( $node->safe_psql(
		'postgres',
		"SELECT count(*) FROM petagen.status($job)",
		extra_params => [ '-U', 'watcher' ]),
	'1',
	'status() works for a pg_monitor member while the job runs');

# A role that is not a petagen_operator may not start, stop or resume jobs.
($ret, $stdout, $stderr) = $node->psql(
	'postgres',
	qq{\\set VERBOSITY verbose
SELECT petagen.start(10, workers => 1, "table" => 'usertable')},
	extra_params => [ '-U', 'outsider' ]);
isnt($ret, 0, 'start() by a non-operator fails');
like($stderr, qr/ERROR:\s+42501:/,
	'start() by a non-operator fails with insufficient_privilege');
($ret, $stdout, $stderr) = $node->psql(
	'postgres',
	"\\set VERBOSITY verbose\nSELECT petagen.stop($job)",
	extra_params => [ '-U', 'outsider' ]);
like($stderr, qr/ERROR:\s+42501:/,
	'stop() by a non-operator fails with insufficient_privilege');

set_debug_pause($node, '');
wait_done($node, $job, 'wait() returns done');

is( $node->safe_psql(
		'postgres', 'SELECT count(*), count(DISTINCT ycsb_key) FROM usertable'),
	"$rows|$rows",
	'count and distinct count are the key space');

is( $node->safe_psql(
		'postgres', q{
SELECT count(*) FROM usertable u JOIN pg_class c ON c.oid = u.tableoid
WHERE NOT satisfies_hash_partition('usertable'::regclass, 8,
    substring(c.relname from '\d+$')::int, u.ycsb_key)}),
	'0',
	'every row is in the leaf satisfies_hash_partition() names');
is( $node->safe_psql(
		'postgres',
		'SELECT count(DISTINCT tableoid) FROM usertable'),
	'8',
	'all eight leaves hold rows');

is( $node->safe_psql(
		'postgres',
		"SELECT count(*), count(*) FILTER (WHERE ok), sum(present), sum(expected)"
		  . " FROM petagen.verify(${job}::bigint)"),
	"8|8|$rows|$rows",
	'verify(job) is ok on every leaf');

is( $node->safe_psql(
		'postgres',
		"SELECT s.state, s.phase, s.progress, w.percent, w.done, w.total, w.rows_written"
		  . " FROM petagen.status($job) s, petagen.status_details($job) w"
		  . " WHERE w.worker IS NULL AND w.phase = 'loading'"),
	"done|done|########## 100.0%|100|$rows|$rows|$rows",
	'status: done, 100 percent, all keys loaded');
is( $node->safe_psql(
		'postgres',
		"SELECT s.state, w.done FROM petagen.status($job) s, petagen.status_details($job) w"
		  . " WHERE w.worker IS NULL AND w.phase = 'loading'",
		extra_params => [ '-U', 'watcher' ]),
	"done|$rows",
	'status() of the finished job works for a pg_monitor member');
is( $node->safe_psql(
		'postgres', "SELECT state, last_error FROM petagen.jobs WHERE job = $job"),
	'done|',
	'the catalog says done, without an error');

ok( $node->safe_psql(
		'postgres',
		"SELECT count(*) FROM petagen.progress_log WHERE job = $job") >= 1,
	'progress_log has at least one row');
is( $node->safe_psql('postgres',
		"SELECT keys_done || ' ' || rows_written FROM petagen.progress_log"
		  . " WHERE job = $job ORDER BY logged_at DESC LIMIT 1"),
	"$rows $rows",
	'the last progress_log row is the job\'s end');

is( $node->safe_psql(
		'postgres',
		"SELECT count(*), sum(keys), sum(rows_written), min(chunk), max(chunk),"
		  . " sum(duplicates), sum(foreign_skipped)"
		  . " FROM petagen.chunks WHERE job = $job"),
	"30|$rows|$rows|0|29|0|0",
	'the ledger holds the 30 chunks, summing to the key space');

# The loader writes exactly the generator's rows.
my $loaded = $node->safe_psql('postgres',
	q{SELECT md5(string_agg(md5(t::text), '' ORDER BY ycsb_key)) FROM usertable t}
);
my $generated = $node->safe_psql('postgres',
	qq{SELECT md5(string_agg(md5(t::text), '' ORDER BY ycsb_key))
	   FROM petagen.rows(NULL::usertable, 0, $rows) t});
is($loaded, $generated, 'content checksum equals that of petagen.rows()');

# Every leaf's primary key is a sound btree holding every heap tuple.
is( $node->safe_psql(
		'postgres', q{
SELECT count(*) FROM (
    SELECT bt_index_check(x.indexrelid, true)
    FROM pg_index x JOIN pg_inherits i ON i.inhrelid = x.indrelid
    WHERE i.inhparent = 'usertable'::regclass AND x.indisprimary) s}),
	'8',
	'bt_index_check(heapallindexed) passes on every leaf primary key');

$node->stop;
done_testing();
