# petagen.forget(job) and petagen.forget_bench(id) on real jobs and runs,
# as an operator who owns them, with another operator refused each time.
#
# (a) A failed leaf job: its catalog rows go, the table's rows (a row of its
#     own, the leaves loaded before the failure) stay.
# (b) An interrupted leaf job after a crash: petagen.debug_pause holds both
#     workers before the commit of their leaves, a SIGKILL restarts the
#     server; the job keeps its routing files and the crash leaves the new
#     files of the two leaves in flight outside every relation.  forget()
#     removes the routing directory, the records of the leaves in flight and
#     those orphan files: nobody else would (no resume() follows, and
#     start()'s sweep does not read the records).
# (c) A frozen chunk job, held before the commit of its chunks: forget() is
#     refused while its workers run; after stop() the two uncommitted
#     chunks' frozen rows are still visible (the premise, checked), and
#     forget() removes them with the intents that located them, which
#     nobody could use after the job is gone.
# (d) A done job and benchmark runs of its table: forget() keeps the loaded
#     rows; forget_bench() of a lone run and of a sweep's id.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $rows = 200000;
my $chunk_rows = 25000;

my $node = petagen_node('forget', qq{
restart_after_crash = on
autovacuum = off
});
$node->safe_psql('postgres', q{CREATE EXTENSION petagen;
CREATE ROLE alice LOGIN IN ROLE petagen_operator;
CREATE ROLE bob LOGIN IN ROLE petagen_operator;
GRANT CREATE, USAGE ON SCHEMA public TO alice, bob;
});

# Run $sql as role $role; returns its output.
sub as_role
{
	my ($role, $sql) = @_;
	return $node->safe_psql('postgres', "SET ROLE $role; $sql");
}

# The rows of job $job in every table that names a job.
sub job_rows
{
	my ($job) = @_;
	return $node->safe_psql('postgres',
		"SELECT (SELECT count(*) FROM petagen.jobs WHERE job = $job)"
		  . " + (SELECT count(*) FROM petagen.chunks WHERE job = $job)"
		  . " + (SELECT count(*) FROM petagen.progress_log WHERE job = $job)"
		  . " + (SELECT count(*) FROM petagen.chunk_intents WHERE job = $job)");
}

# Bob may not forget alice's job $job, and his attempt changes nothing.
sub bob_refused
{
	my ($job, $what) = @_;
	my $before = job_rows($job);
	is(error_of($node, "SET ROLE bob; SELECT petagen.forget($job)"),
		"42501: permission denied for load job $job",
		"$what: another operator may not forget it");
	is(job_rows($job), $before, "$what: the refusal removed nothing");
}

# (a) A failed leaf job: a leaf holds a row, the worker refuses it.
as_role('alice', "SELECT petagen.create_table('leaf_a');"
	  . " INSERT INTO leaf_a (ycsb_key) VALUES ('x')");
my $job_a = as_role('alice',
	"SELECT petagen.start(1000, 1, 'leaf_a', method => 'leaf', force => true)");
is($node->safe_psql('postgres', "SELECT petagen.wait($job_a, '180s')"),
	'failed', 'failed leaf job: it failed');
my $rows_a = $node->safe_psql('postgres', 'SELECT count(*) FROM leaf_a');
bob_refused($job_a, 'failed leaf job');
is(as_role('alice', "SELECT state FROM petagen.forget($job_a)"), 'failed',
	'failed leaf job: its owner forgets it; forget() returns its state');
is(job_rows($job_a), '0', 'failed leaf job: no catalog row names it');
is(routing_files($node, $job_a), '0', 'failed leaf job: no routing file is left');
is($node->safe_psql('postgres', 'SELECT count(*) FROM leaf_a'),
	$rows_a, 'failed leaf job: the table keeps its rows');

# (b) An interrupted leaf job: a crash while two leaves are in flight.
as_role('alice', "SELECT petagen.create_table('leaf_b')");
set_debug_pause($node, 'before_commit:1');
my $job_b = as_role('alice',
	qq{SELECT petagen.start($rows, workers => 2, "table" => 'leaf_b',
	   chunk_rows => $chunk_rows, method => 'leaf')});
wait_for_debug_pause($node, $job_b, 2);
my $dir_b = routing_dir($node, $job_b);
is(routing_files($node, $job_b), '8', 'crashed leaf job: the 8 routing files are there');
is(error_of($node, "SET ROLE alice; SELECT petagen.forget($job_b)"),
	"55006: load job $job_b is still running",
	'running leaf job: forget() is refused while its workers run');
my $pid = $node->safe_psql('postgres',
	"SELECT pid FROM petagen.status_workers($job_b) WHERE worker = 0");
ok(kill('KILL', $pid), 'crashed leaf job: SIGKILL sent to worker 0');
ok( poll_after_crash(
		$node, "SELECT state FROM petagen.status($job_b)",
		'interrupted'),
	'crashed leaf job: after the crash restart the job is interrupted');
set_debug_pause($node, '');
cmp_ok(orphan_files($node), '>=', 2,
	'crashed leaf job: the new files of the leaves in flight are left outside every relation');
my $records = "SELECT count(*) FROM pg_ls_dir('pg_petagen/storage', true, false) f"
  . " WHERE f LIKE (SELECT oid FROM pg_database WHERE datname = current_database()) || '_${job_b}_%'";
cmp_ok($node->safe_psql('postgres', $records), '>=', 1,
	'crashed leaf job: records of its leaves in flight are there');
bob_refused($job_b, 'crashed leaf job');
is(as_role('alice', "SELECT state FROM petagen.forget($job_b)"), 'interrupted',
	'crashed leaf job: its owner forgets it');
is(job_rows($job_b), '0', 'crashed leaf job: no catalog row names it');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_ls_dir('$dir_b', true, false)"),
	'0', 'crashed leaf job: its routing directory is gone');
is($node->safe_psql('postgres', $records), '0',
	'crashed leaf job: the records of its leaves in flight are gone');
is(orphan_files($node), '0',
	'crashed leaf job: the files the crash left outside every relation are gone');

# (c) A frozen chunk job held before the commit of its first chunks.
as_role('alice', "SELECT petagen.create_table('frozen_c')");
set_debug_pause($node, 'before_commit');
my $job_c = as_role('alice',
	qq{SELECT petagen.start($rows, workers => 2, "table" => 'frozen_c',
	   chunk_rows => $chunk_rows, frozen => true, method => 'chunk')});
wait_for_debug_pause($node, $job_c, 2);
is(error_of($node, "SET ROLE alice; SELECT petagen.forget($job_c)"),
	"55006: load job $job_c is still running",
	'frozen chunk job: forget() is refused while its workers run');
is(as_role('alice', "SELECT petagen.stop($job_c)"), 'stopped',
	'frozen chunk job: stop() stops it');
set_debug_pause($node, '');
is( seqscan_psql($node,
		"SELECT count(*) = 2 * $chunk_rows AND (SELECT count(*) FROM petagen.chunks WHERE job = $job_c) = 0"
		  . " FROM frozen_c"),
	't', 'frozen chunk job: the rows of the two stopped chunks are still visible');
is($node->safe_psql('postgres', "SELECT count(*) FROM petagen.chunk_intents WHERE job = $job_c"),
	'2', 'frozen chunk job: their intents say where');
bob_refused($job_c, 'frozen chunk job');
is(as_role('alice', "SELECT state FROM petagen.forget($job_c)"), 'stopped',
	'frozen chunk job: its owner forgets it');
is(job_rows($job_c), '0', 'frozen chunk job: no catalog row names it');
is(seqscan_psql($node, 'SELECT count(*) FROM frozen_c'), '0',
	'frozen chunk job: the rows of its uncommitted chunks are gone');

# (d) A done job, and benchmark runs on its table.
as_role('alice', "SELECT petagen.create_table('done_d')");
my $job_d = as_role('alice', "SELECT petagen.start(20000, 2, 'done_d')");
wait_done($node, $job_d, 'done job: it is done', '180s');
my $run = as_role('alice',
	"SELECT id FROM petagen.bench('select', 1, '1 s', \"table\" => 'done_d')");
my $sweep = as_role('alice',
	"SELECT min(id) FROM petagen.bench_sweep('select', '{1,1}', '1 s', \"table\" => 'done_d')");
is(error_of($node, "SET ROLE bob; SELECT petagen.forget_bench($sweep)"),
	"42501: permission denied for benchmark run $sweep",
	'benchmark sweep: another operator may not forget it');
is(error_of($node, "SET ROLE bob; SELECT petagen.forget_bench($run)"),
	"42501: permission denied for benchmark run $run",
	'benchmark run: another operator may not forget it');
is($node->safe_psql('postgres', 'SELECT count(*) FROM petagen.bench_results'),
	'3', 'benchmark runs: the refusals removed nothing');
is(as_role('alice', "SELECT petagen.forget_bench($sweep)"), '2',
	'benchmark sweep: its owner forgets both runs by the sweep id');
is(as_role('alice', "SELECT petagen.forget_bench($run)"), '1',
	'benchmark run: its owner forgets it');
is($node->safe_psql('postgres', 'SELECT count(*) FROM petagen.bench_results'),
	'0', 'benchmark runs: none is left');
bob_refused($job_d, 'done job');
is(as_role('alice', "SELECT state FROM petagen.forget($job_d)"), 'done',
	'done job: its owner forgets it');
is(job_rows($job_d), '0', 'done job: no catalog row names it');
is($node->safe_psql('postgres', 'SELECT count(*) FROM done_d'),
	'20000', 'done job: the loaded rows stay');

$node->stop;
done_testing();
