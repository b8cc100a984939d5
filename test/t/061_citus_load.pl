# petagen loads a Citus hash-distributed table: start() on each worker node
# writes exactly the keys of the shards placed on that node, straight into
# its shard tables, routed as Citus routes them.  The coordinator then sees
# the whole key space once; Citus's own get_shard_id_for_distribution_column()
# agrees with where every sampled key is; no shard holds a key outside its
# hash range; a SIGKILLed frozen load on one worker resumes to exactly once.
# verify() on one worker, or on the coordinator, checks every shard, those
# of other nodes through Citus.  Leaf loads (method => 'leaf') write each
# local shard whole, frozen, exactly once, also after a SIGKILL mid-leaf,
# and fail on a shard move as chunk loads do.  bench() runs on a worker's
# local shards directly and on a node's shards through Citus.
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
skip_unless_contrib('pg_visibility');

my $rows = 200000;
my $chunk_rows = 20000;
my ($coord, $w1, $w2) = citus_cluster();
$coord->safe_psql('postgres', citus_usertable_sql('usertable', 8));

# The coordinator holds no shard: start() there says to run it on the workers.
is( error_of($coord, "SELECT petagen.start($rows, workers => 2)"),
	'55000: no shard of Citus table "usertable" is placed on this node',
	'coordinator: start() refuses, no shard is placed here');
my ($rc, $out, $err) =
  $coord->psql('postgres', "SELECT petagen.load('usertable', 0, 10)");
like($err, qr/HINT:  Run petagen.start\(\) on each Citus worker node/,
	'coordinator: the hint says to run start() on each worker');

# leaves(): every shard, local ones by name, the others with their node.
is( $coord->safe_psql('postgres',
		q{SELECT count(*), count(leaf) FROM petagen.leaves('usertable')}),
	'8|0', 'coordinator: leaves() lists 8 shards, none local');
for my $w ($w1, $w2)
{
	my $other = ($w == $w1 ? $w2 : $w1)->port;
	is( $w->safe_psql(
			'postgres', qq{
SELECT count(*) FILTER (WHERE node = 'local' AND leaf IS NOT NULL),
       count(*) FILTER (WHERE node = '127.0.0.1:$other' AND leaf IS NULL)
  FROM petagen.leaves('usertable')}),
		'4|4', $w->name . ': leaves() lists its 4 shards and the other 4 on the other worker');
}

# check() on a worker sizes its shards; too big a shard gets Citus advice.
like(
	$w1->safe_psql(
		'postgres', q{
SELECT severity || ': ' || detail || ' / ' || hint FROM petagen.check_details(1e12, workers => 2)
 WHERE finding LIKE 'relation size:%' ORDER BY object LIMIT 1}),
	qr/^error: relation size: leaf "usertable_\d+" would grow .* \/ Distribute the table into more shards \(alter_distributed_table\('public\.usertable', shard_count => \.\.\.\)/,
	'worker1: check() finds a shard past the size limit and advises more shards');

# worker1: a frozen load, held before the commit of chunk 1 and SIGKILLed.
set_debug_pause($w1, 'before_commit:1');
my $job1 = $w1->safe_psql('postgres',
	"SELECT petagen.start($rows, workers => 2, chunk_rows => $chunk_rows, frozen => true)");
wait_for_debug_pause($w1, $job1, 2);
# worker2: a plain load with its indexes built after.
my $job2 = $w2->safe_psql('postgres',
	"SELECT petagen.start($rows, workers => 2, chunk_rows => $chunk_rows, indexes => 'after')");
wait_done($w2, $job2, 'worker2: the load is done', '300s');

my $pid = $w1->safe_psql('postgres',
	"SELECT pid FROM petagen.status_workers($job1) WHERE worker = 0");
ok(kill('KILL', $pid), 'worker1: SIGKILL sent to load worker 0');
ok( poll_after_crash(
		$w1, "SELECT state FROM petagen.status($job1)",
		'interrupted'),
	'worker1: after the crash restart the job is interrupted');
set_debug_pause($w1, '');
is($w1->safe_psql('postgres', "SELECT petagen.resume($job1)"),
	$job1, 'worker1: resume() returns the job');
wait_done($w1, $job1, 'worker1: the resumed load is done', '300s');

# The coordinator sees every key exactly once.
is( $coord->safe_psql('postgres',
		'SELECT count(*), count(DISTINCT ycsb_key) FROM usertable'),
	"$rows|$rows", 'coordinator: count(*) = count(DISTINCT ycsb_key) = rows');
is( $coord->safe_psql('postgres',
		"SELECT count(*) FROM petagen.rows(NULL::usertable, 0, $rows) g"
		  . ' JOIN usertable u USING (ycsb_key)'),
	$rows, 'coordinator: every generated key is found through Citus');

# Each worker: verify(job) checks its own shards and, through Citus, the
# other worker's; the coordinator, which holds none, checks every shard.
my $expected = 0;
for my $w ($w1, $w2)
{
	my $job = $w == $w1 ? $job1 : $job2;
	my $other = ($w == $w1 ? $w2 : $w1)->port;
	is( $w->safe_psql(
			'postgres', qq{
SELECT count(*) FILTER (WHERE local AND ok AND node = 'local'),
       count(*) FILTER (WHERE NOT local AND ok AND leaf IS NULL AND node = '127.0.0.1:$other'),
       sum(present), sum(missing) + sum(extra) + sum(duplicated)
  FROM petagen.verify(${job}::bigint)}),
		"4|4|$rows|0", $w->name . ': verify(job) is ok on its 4 shards and the other worker\'s 4');
	$expected += $w->safe_psql('postgres',
		"SELECT sum(expected) FROM petagen.verify(${job}::bigint) WHERE local");
}
is( $coord->safe_psql('postgres',
		"SELECT count(*), count(*) FILTER (WHERE ok AND NOT local), sum(present)"
		  . " FROM petagen.verify('usertable', $rows)"),
	"8|8|$rows", 'coordinator: verify() is ok on all 8 shards, every one remote');
is($expected, $rows, 'the local shards of both workers expect every key once');

# The local shards of $table on worker $w, after checking that each holds
# rows, all of its own hash range by Citus (worker_hash()) and by hashtext().
sub check_shard_ranges
{
	my ($w, $table) = @_;
	my @shards = split /\n/,
	  $w->safe_psql('postgres',
		"SELECT leaf FROM petagen.leaves('$table') WHERE leaf IS NOT NULL");
	for my $shard (@shards)
	{
		is( $w->safe_psql(
				'postgres', qq{
SELECT count(*) FILTER (WHERE worker_hash(ycsb_key) NOT BETWEEN lo AND hi),
       count(*) FILTER (WHERE hashtext(ycsb_key) NOT BETWEEN lo AND hi),
       count(*) > 0
  FROM $shard,
       (SELECT shardminvalue::int AS lo, shardmaxvalue::int AS hi FROM pg_dist_shard
         WHERE shardid = substring('$shard' FROM '_(\\d+)\$')::bigint) r}),
			'0|0|t', $w->name . ": $shard holds rows, all of its own hash range");
	}
	return @shards;
}

# Where a sample of keys is, by shard table, on the worker holding it.
my $sample = $coord->safe_psql('postgres',
	"SELECT string_agg(quote_literal(ycsb_key), ',')"
	  . " FROM petagen.rows(NULL::usertable, 0, $rows) WHERE ycsb_key LIKE '%77'");
my %found;
for my $w ($w1, $w2)
{
	for my $shard (check_shard_ranges($w, 'usertable'))
	{
		$found{$_} = $shard
		  for split /\n/,
		  $w->safe_psql('postgres', "SELECT ycsb_key FROM $shard WHERE ycsb_key IN ($sample)");
	}
}
my %citus = map { split /\|/ } split /\n/,
  $coord->safe_psql('postgres',
	"SELECT k, 'usertable_' || get_shard_id_for_distribution_column('usertable', k)"
	  . " FROM unnest(ARRAY[$sample]::text[]) k");
cmp_ok(scalar(keys %citus), '>', 1000, 'a sample of over 1000 keys');
is_deeply(\%found, \%citus,
	'every sampled key is in the shard get_shard_id_for_distribution_column() names');
# petagen.leaf() of a sampled key: its shard table where it is local, NULL
# on the node whose shard is elsewhere.
for my $w ($w1, $w2)
{
	is( $w->safe_psql(
			'postgres', qq{
WITH l AS (SELECT leaf FROM petagen.leaves('usertable') WHERE leaf IS NOT NULL)
SELECT count(*) FILTER (WHERE petagen.leaf('usertable', k) IS NOT DISTINCT FROM
         (SELECT leaf FROM l
           WHERE leaf::text = 'usertable_' || get_shard_id_for_distribution_column('usertable', k))),
       count(*), count(*) > count(petagen.leaf('usertable', k))
  FROM unnest(ARRAY[$sample]::text[]) k}),
		scalar(keys %citus) . '|' . scalar(keys %citus) . '|t',
		$w->name . ': leaf() names the local shard of a key, NULL for a shard elsewhere');
}

# A load on worker1 of a new Citus table $table ($shards shards), started by
# $start, held before its second $unit while the shard $pick->($job) names
# moves to worker2: the job fails, says why, and only its first $unit committed.
sub check_move_fails
{
	my ($table, $shards, $start, $pick, $unit, $what) = @_;
	$coord->safe_psql('postgres', citus_usertable_sql($table, $shards));
	set_debug_pause($w1, 'before_chunk:1');
	my $job = $w1->safe_psql('postgres', $start);
	wait_for_debug_pause($w1, $job, 1);
	$coord->safe_psql('postgres',
		'SELECT citus_move_shard_placement(' . $pick->($job) . ", '127.0.0.1', "
		  . $w1->port . ", '127.0.0.1', " . $w2->port
		  . ", shard_transfer_mode => 'block_writes')");
	set_debug_pause($w1, '');
	is($w1->safe_psql('postgres', "SELECT petagen.wait($job, '120s')"),
		'failed', "$what: the load fails after a shard moved off the node");
	like(
		$w1->safe_psql('postgres', "SELECT last_error FROM petagen.jobs WHERE job = $job"),
		qr/the Citus shards of "$table" placed on this node changed during load job $job/,
		"$what: the job says the shards placed here changed");
	is($w1->safe_psql('postgres', "SELECT count(*) FROM petagen.chunks WHERE job = $job"),
		'1', "$what: only the $unit before the move committed");
}

# A shard moved off worker1 during its chunk load: the next chunk fails the job.
check_move_fails('moved', 4,
	q{SELECT petagen.start(40000, workers => 1, "table" => 'moved', chunk_rows => 10000)},
	sub {
		$w1->safe_psql('postgres',
			"SELECT min(shard) FROM petagen.job_shards WHERE job = $_[0]");
	},
	'chunk', 'move');

# bench() on Citus: a worker's default target is its local shards, queried
# directly; a node's shards ('host:port') are queried through the
# distributed table, Citus sending each key to that node.
my ($p1, $p2) = map { '127.0.0.1:' . $_->port } ($w1, $w2);
# The sorted names of the shards placed on worker $w.
sub shards_of
{
	my ($w) = @_;
	return $w->safe_psql('postgres',
		q{SELECT string_agg(leaf::text, ',' ORDER BY leaf::text) FROM petagen.leaves('usertable') WHERE node = 'local'});
}
# One bench() run on $node; its figures and what bench_results recorded.
sub bench_on
{
	my ($node, $args) = @_;
	return $node->safe_psql(
		'postgres', qq{
CREATE TEMP TABLE b AS SELECT * FROM petagen.bench(workers => 1, duration => '1s', $args);
SELECT b.operations > 0, b.errors, b.not_found, r.target_node,
       (SELECT string_agg(t, ',' ORDER BY t) FROM unnest(r.target) t), r.updates, r.inserts
  FROM b JOIN petagen.bench_results r USING (id)});
}
my ($s1, $s2) = (shards_of($w1), shards_of($w2));
is(bench_on($w1, q{kind => 'select'}), "t|0|0|local|$s1|0|0",
	'worker1: bench() reads its 4 local shards directly, every key found');
is(bench_on($coord, qq{kind => 'select', rows => $rows, target => '{$p2}'}),
	"t|0|0|$p2|$s2|0|0",
	'coordinator: bench() reads the shards of worker2 through Citus');
is(bench_on($w1, qq{kind => 'select', target => '{$p2}'}),
	"t|0|0|$p2|$s2|0|0",
	'worker1: bench() reads the shards of worker2 through Citus');
my ($ok, $errors, $nf, $tn, $tg, $updates) = split /\|/,
  bench_on($coord, qq{kind => 'update', rows => $rows, target => '{$p2}'});
is("$ok|$errors|$nf|$tn", "t|0|0|$p2",
	'coordinator: bench(update) of worker2\'s shards runs without errors');
my $inserts = (split /\|/, bench_on($w1, qq{kind => 'ycsb-d', target => '{$p2}'}))[6];
cmp_ok($inserts, '>', 0, 'worker1: bench(ycsb-d) of worker2\'s shards inserted rows');
# What the runs changed, by the node holding each row, seen from the coordinator.
my ($port, $new, $changed) = split /\|/,
  $coord->safe_psql(
	'postgres', qq{
WITH d AS MATERIALIZED (
  SELECT u.ycsb_key, g.ycsb_key IS NULL AS new FROM usertable u
    LEFT JOIN petagen.rows(NULL::usertable, 0, $rows) g USING (ycsb_key)
   WHERE g IS DISTINCT FROM u)
SELECT string_agg(DISTINCT s.nodeport::text, ','), count(*) FILTER (WHERE new),
       count(*) FILTER (WHERE NOT new)
  FROM d JOIN citus_shards s ON s.table_name = 'usertable'::regclass
   AND s.shardid = get_shard_id_for_distribution_column('usertable', d.ycsb_key)});
is($port, $w2->port, 'every row the runs changed or inserted is on worker2');
is($new, $inserts, 'the inserted rows are all there');
ok($changed > 0 && $changed <= $updates,
	"the update run changed $changed rows ($updates updates) of worker2's shards");
# Bad targets: clear errors, with the nodes petagen.leaves() names.
is( error_of($coord, "SELECT petagen.bench('select', rows => $rows)"),
	'22023: no shard of Citus table "usertable" is placed on this node',
	'coordinator: the default target is an error, no shard is placed here');
is( error_of($coord,
		"SELECT petagen.bench('select', rows => $rows, target => '{127.0.0.1:"
		  . $coord->port . "}')"),
	'22023: no shard of Citus table "usertable" is placed on node "127.0.0.1:'
	  . $coord->port . '"',
	'a node holding no shard is an error');
is( error_of($w1, q{SELECT petagen.bench('select', target => '{usertable}')}),
	'22023: "usertable" is not a shard of "usertable" placed on this node',
	'a table that is not a local shard is an error');
($rc, $out, $err) = $w1->psql('postgres',
	q{SELECT petagen.bench('select', target => '{usertable}')});
like($err, qr/HINT:  petagen.leaves\('public\.usertable'\) lists its shards/,
	'the hint names petagen.leaves()');

# A name too long for <table>_<shardid>: Citus clips it and adds the name's
# hash; petagen names the shard tables as Citus does, and loads them.
my $long = 'a_distributed_table_whose_name_is_too_long_for_a_shard_suffix';
$coord->safe_psql('postgres', citus_usertable_sql($long, 4));
for my $w ($w1, $w2)
{
	is( $w->safe_psql('postgres',
			"SELECT string_agg(leaf::text, ',' ORDER BY leaf::text) FROM petagen.leaves('$long')"
			  . " WHERE node = 'local'"),
		$coord->safe_psql('postgres',
			"SELECT string_agg(shard_name, ',' ORDER BY shard_name) FROM citus_shards"
			  . " WHERE table_name = '$long'::regclass AND nodeport = " . $w->port),
		'a long table name: leaves() names the local shards as Citus does');
}
my @long_jobs = map {
	$_->safe_psql('postgres', "SELECT petagen.start(4000, workers => 1, \"table\" => '$long')")
} ($w1, $w2);
is($w1->safe_psql('postgres', "SELECT petagen.wait($long_jobs[0], '120s')")
	  . $w2->safe_psql('postgres', "SELECT petagen.wait($long_jobs[1], '120s')"),
	'donedone', 'a long table name: both loads are done');
is($coord->safe_psql('postgres', "SELECT count(*), count(DISTINCT ycsb_key) FROM $long"),
	'4000|4000', 'a long table name: the coordinator counts every key once');

# ---- Leaf loads (method => 'leaf') on Citus: each local shard is one leaf.
my $leaf_rows = 40000;
$coord->safe_psql('postgres', citus_usertable_sql('leafy', 8) . q{
CREATE EXTENSION pg_visibility;
CREATE ROLE leaf_op LOGIN IN ROLE petagen_operator;
GRANT SELECT, INSERT ON leafy TO leaf_op;
});
my $start_leafy = "SELECT petagen.start($leaf_rows, workers => 2, \"table\" => 'leafy',"
  . " chunk_rows => 10000, method => 'leaf')";

# The sum of count(*) of the local shards of $table on worker $w.
sub local_rows
{
	my ($w, $table) = @_;
	return $w->safe_psql('postgres',
		"SELECT format('SELECT 0%s', string_agg(format(' + (SELECT count(*) FROM %s)', leaf), ''))"
		  . " FROM petagen.leaves('$table') WHERE leaf IS NOT NULL \\gexec");
}

# worker2, as a role without TRUNCATE: refused; the grant made through the
# coordinator reaches the shards, and the role loads.
like(error_of($w2, "SET ROLE leaf_op; $start_leafy"),
	qr/^42501: permission denied for table leafy_\d+$/,
	'leaf: without TRUNCATE on the distributed table a leaf load is refused');
$coord->safe_psql('postgres', 'GRANT TRUNCATE ON leafy TO leaf_op');
my $leaf2 = $w2->safe_psql('postgres', "SET ROLE leaf_op; $start_leafy");

# worker1: held before the commit of leaves 1 and 2, SIGKILLed, resumed.
set_debug_pause($w1, 'before_commit:1');
my $leaf1 = $w1->safe_psql('postgres', $start_leafy);
wait_for_debug_pause($w1, $leaf1, 2);
is($w1->safe_psql('postgres', "SELECT count(*) FROM petagen.chunks WHERE job = $leaf1"),
	'1', 'leaf kill: one shard is committed, the two held are not');
is(routing_files($w1, $leaf1), '4', 'leaf kill: the 4 ranges are routed into files');
$pid = $w1->safe_psql('postgres',
	"SELECT pid FROM petagen.status_workers($leaf1) WHERE worker = 0");
ok(kill('KILL', $pid), 'leaf kill: SIGKILL sent to load worker 0');
ok( poll_after_crash(
		$w1, "SELECT state FROM petagen.status($leaf1)",
		'interrupted'),
	'leaf kill: after the crash restart the job is interrupted');
is( local_rows($w1, 'leafy'),
	$w1->safe_psql('postgres',
		"SELECT sum(rows_written) FROM petagen.chunks WHERE job = $leaf1"),
	'leaf kill: the shards in flight are empty again');
set_debug_pause($w1, '');
is($w1->safe_psql('postgres', "SELECT petagen.resume($leaf1)"),
	$leaf1, 'leaf kill: resume() returns the job');

for my $w ($w1, $w2)
{
	my $job = $w == $w1 ? $leaf1 : $leaf2;
	my $name = $w->name;
	wait_done($w, $job, "leaf: $name: the job is done", '300s');
	is( $w->safe_psql('postgres', qq{
SELECT s.done = $leaf_rows, count(*), count(DISTINCT c.leaf),
       sum(c.keys) = $leaf_rows, sum(c.rows_written) + sum(c.foreign_skipped) = $leaf_rows,
       sum(c.rows_written) = (SELECT sum(expected) FROM petagen.verify(${job}::bigint) WHERE local)
  FROM petagen.chunks c, petagen.status_details($job) s
 WHERE c.job = $job AND s.worker IS NULL AND s.phase = 'loading'
 GROUP BY s.done}),
		't|4|4|t|t|t',
		"leaf: $name: one ledger row per local shard, keys_done is the key space");
	is(routing_files($w, $job), '0', "leaf: $name: the routing files are removed");
	for my $shard (check_shard_ranges($w, 'leafy'))
	{
		is( seqscan_psql($w, qq{
SELECT (SELECT count(*) FROM $shard t WHERE (t.ctid::text::point)[0]::bigint IN
          (SELECT blkno FROM pg_visibility_map('$shard') WHERE NOT all_frozen)),
       (SELECT count(*) FROM pg_check_frozen('$shard'))}),
			'0|0', "leaf: $name: every row of $shard is frozen, on an all-frozen page");
	}
}
is( $coord->safe_psql('postgres',
		'SELECT count(*), count(DISTINCT ycsb_key) FROM leafy'),
	"$leaf_rows|$leaf_rows", 'leaf: coordinator: count(*) = count(DISTINCT ycsb_key) = rows');

# A key moved by hand into another shard of worker2: verify() on worker1 and
# on the coordinator find it, through Citus, missing from its own shard and
# extra in the other.
my ($shard_a, $shard_b) = split /\n/,
  $w2->safe_psql('postgres',
	"SELECT leaf FROM petagen.leaves('leafy') WHERE leaf IS NOT NULL LIMIT 2");
$w2->safe_psql('postgres', qq{SET citus.enable_manual_changes_to_shards = on;
WITH m AS (DELETE FROM $shard_a WHERE ycsb_key = (SELECT min(ycsb_key) FROM $shard_a) RETURNING *)
INSERT INTO $shard_b SELECT * FROM m});
my $not_ok = "SELECT count(*) FILTER (WHERE NOT ok), sum(missing), sum(extra), sum(duplicated),"
  . " string_agg(DISTINCT node, ',') FILTER (WHERE NOT ok), count(*) FILTER (WHERE ok)";
my $w2node = '127.0.0.1:' . $w2->port;
is($w1->safe_psql('postgres', "$not_ok FROM petagen.verify(${leaf1}::bigint)"),
	"2|1|1|0|$w2node|6", 'leaf: worker1: verify() finds the key moved between two shards of worker2');
is($coord->safe_psql('postgres', "$not_ok FROM petagen.verify('leafy', $leaf_rows)"),
	"2|1|1|0|$w2node|6", 'leaf: coordinator: verify() finds the key moved between two shards of worker2');

# A shard moved off worker1 before its leaf: the leaf fails the job.
check_move_fails('movedleaf', 6,
	q{SELECT petagen.start(20000, workers => 1, "table" => 'movedleaf', method => 'leaf')},
	sub {
		$w1->safe_psql('postgres',
			q{SELECT substring(leaf::text FROM '_(\d+)$') FROM petagen.leaves('movedleaf')}
			  . ' WHERE leaf IS NOT NULL OFFSET 1 LIMIT 1');
	},
	'leaf', 'leaf move');

$_->stop for ($coord, $w1, $w2);
done_testing();
