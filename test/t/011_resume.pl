# Resumable jobs: after a worker is killed (a crash restart of the whole
# server), after an immediate shutdown, and after petagen.stop(), resume()
# finishes the job and the table is exactly what an uninterrupted load
# writes.  resume() refuses a done job, a running one, and one whose
# table another job loaded since it was stopped.  Each
# interruption hits the job at the same place on any machine:
# petagen.debug_pause holds both workers before chunks 4 and 5, with
# chunks 0-3 committed.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $rows = 400000;
my $chunks = $rows / 10000;

my $node = PostgreSQL::Test::Cluster->new('resume');
$node->init;
# The test harness turns crash restarts off; a killed worker needs them.
$node->append_conf('postgresql.conf', 'restart_after_crash = on');
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION petagen');

# Create an 8-leaf hash-partitioned YCSB table.
sub make_table
{
	my ($name) = @_;
	$node->safe_psql('postgres', "SELECT petagen.create_table('$name')");
}

# Start a load of $rows rows into $table whose workers will be held before
# chunks 4 and 5 (wait_for_progress); returns the job.
sub start_job
{
	my ($table) = @_;
	set_debug_pause($node, 'before_chunk:4');
	return $node->safe_psql('postgres',
		qq{SELECT petagen.start($rows, workers => 2, "table" => '$table', chunk_rows => 10000,
		   method => 'chunk')}
	);
}

# Wait until both workers are held, chunks 0-3 committed.
sub wait_for_progress
{
	my ($job) = @_;
	wait_for_debug_pause($node, $job, 2);
	is($node->safe_psql('postgres', "SELECT count(*) FROM petagen.chunks WHERE job = $job"),
		'4', "job $job: chunks 0-3 are committed, the workers held before 4 and 5");
}

# The total status row of a job: state|keys_done.
sub total_status
{
	my ($job) = @_;
	return $node->safe_psql('postgres',
		"SELECT s.state, w.done FROM petagen.status($job) s, petagen.status_details($job) w"
		  . " WHERE w.worker IS NULL AND w.phase = 'loading'");
}

# Rows in the table equal the ledger's committed rows (exactly once so far).
sub check_ledger_matches_table
{
	my ($job, $table, $what) = @_;
	my ($count, $ledger) = split /\|/,
	  $node->safe_psql('postgres',
		"SELECT (SELECT count(*) FROM $table),"
		  . " (SELECT coalesce(sum(rows_written), 0) FROM petagen.chunks WHERE job = $job)"
	  );
	is($count, $ledger, "$what: rows in the table equal the ledger's rows");
	ok($count > 0 && $count < $rows,
		"$what: the job was interrupted mid-load ($count of $rows rows)");
}

# A content checksum of a table, or of the generator's rows.
sub checksum
{
	my ($from) = @_;
	return $node->safe_psql('postgres',
		"SELECT md5(string_agg(md5(t::text), '' ORDER BY ycsb_key)) FROM $from t"
	);
}

# Resume, wait, and check the table is exactly the key space.
sub resume_and_check
{
	my ($job, $table, $what, $expected_sum) = @_;
	set_debug_pause($node, '');
	is($node->safe_psql('postgres', "SELECT petagen.resume($job)"),
		$job, "$what: resume() returns the job");
	wait_done($node, $job, "$what: the resumed job is done");
	is( $node->safe_psql(
			'postgres',
			"SELECT count(*), count(*) FILTER (WHERE ok) FROM petagen.verify(${job}::bigint)"
		),
		'8|8',
		"$what: verify() is ok on every leaf");
	is( $node->safe_psql(
			'postgres', "SELECT count(*), count(DISTINCT ycsb_key) FROM $table"),
		"$rows|$rows",
		"$what: count and distinct count are the key space");
	is( $node->safe_psql(
			'postgres',
			"SELECT count(*), sum(keys), count(*) FILTER (WHERE run > 1) > 0"
			  . " FROM petagen.chunks WHERE job = $job"),
		"$chunks|$rows|t",
		"$what: the ledger holds every chunk once, some from the resumed run");
	is(total_status($job), "done|$rows", "$what: status is done");
	is(checksum($table), $expected_sum,
		"$what: content equals an uninterrupted load's");
}

# (a) SIGKILL of a worker: the postmaster restarts every backend.
make_table('usertable_a');
my $expected_sum = checksum("petagen.rows(NULL::usertable_a, 0, $rows)");
my $job_a = start_job('usertable_a');
wait_for_progress($job_a);
my $pid = $node->safe_psql('postgres',
	"SELECT pid FROM petagen.status_workers($job_a) WHERE worker = 0");
like($pid, qr/^\d+$/, 'kill: status shows the pid of worker 0');
ok(kill('KILL', $pid), 'kill: SIGKILL sent to worker 0');
ok( poll_after_crash(
		$node, "SELECT state FROM petagen.status($job_a)",
		'interrupted'),
	'kill: after the crash restart status shows the job interrupted');
check_ledger_matches_table($job_a, 'usertable_a', 'kill');
resume_and_check($job_a, 'usertable_a', 'kill', $expected_sum);

# (d) resume() of a done job is refused.
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	"\\set VERBOSITY verbose\nSELECT petagen.resume($job_a)");
isnt($ret, 0, 'resume() of a done job fails');
like($stderr, qr/ERROR:\s+55000:.*already done/,
	'resume() of a done job: object_not_in_prerequisite_state');

# (b) immediate shutdown mid-load, then a restart.
make_table('usertable_b');
my $job_b = start_job('usertable_b');
wait_for_progress($job_b);
$node->stop('immediate');
$node->start;
is(total_status($job_b) =~ s/\|.*//r,
	'interrupted', 'immediate stop: status shows the job interrupted');
check_ledger_matches_table($job_b, 'usertable_b', 'immediate stop');
resume_and_check($job_b, 'usertable_b', 'immediate stop', $expected_sum);

# (c) petagen.stop() mid-load; (d) resume() of a running job is refused.
make_table('usertable_c');
my $job_c = start_job('usertable_c');
($ret, $stdout, $stderr) = $node->psql('postgres',
	"\\set VERBOSITY verbose\nSELECT petagen.resume($job_c)");
isnt($ret, 0, 'resume() of a running job fails');
like($stderr, qr/ERROR:\s+55006:.*still running/,
	'resume() of a running job: object_in_use');
wait_for_progress($job_c);
is($node->safe_psql('postgres', "SELECT petagen.stop($job_c)"),
	'stopped', 'stop() returns stopped');
my $count1 = $node->safe_psql('postgres', 'SELECT count(*) FROM usertable_c');
sleep 2;
my $count2 = $node->safe_psql('postgres', 'SELECT count(*) FROM usertable_c');
is($count2, $count1, 'stop: the row count no longer changes');
is(total_status($job_c) =~ s/\|.*//r, 'stopped', 'stop: status shows stopped');
is($node->safe_psql('postgres', "SELECT state FROM petagen.jobs WHERE job = $job_c"),
	'stopped', 'stop: the catalog says stopped');
check_ledger_matches_table($job_c, 'usertable_c', 'stop');
resume_and_check($job_c, 'usertable_c', 'stop', $expected_sum);

# (e) A job stopped mid-load, its table emptied and loaded by a new job:
# resuming the first would write its keys again, so resume() refuses it.
make_table('usertable_e');
my $job_e = start_job('usertable_e');
wait_for_progress($job_e);
is($node->safe_psql('postgres', "SELECT petagen.stop($job_e)"),
	'stopped', 'written since: the first job stops');
set_debug_pause($node, '');
$node->safe_psql('postgres', 'TRUNCATE usertable_e');
my $job_e2 = $node->safe_psql('postgres',
	qq{SELECT petagen.start($rows, workers => 2, "table" => 'usertable_e', chunk_rows => 10000,
		   method => 'chunk')});
wait_done($node, $job_e2, 'written since: a second job fills the table');
is( error_of($node, "SELECT petagen.resume($job_e)"),
	qq{55000: load job $job_e2 wrote into "usertable_e" since load job $job_e last did},
	'written since: resume() of the first job is refused');
is( $node->safe_psql('postgres',
		"SELECT state, (SELECT count(*) FROM usertable_e) FROM petagen.jobs WHERE job = $job_e"),
	"stopped|$rows",
	'written since: the refused job stays stopped, the table as the second job left it');

$node->stop;
done_testing();
