# petagen.auto_retry with petagen in shared_preload_libraries: a job that
# failed for a transient cause (a lock timeout, 55P03) is resumed by the
# launcher after petagen.auto_retry_delay and ends done once the cause is
# gone, status() showing the retry meanwhile; a job that failed for a
# permanent cause (a CHECK constraint, 23514) is not retried and
# status_details() says why; a job whose retries are spent gets them all
# again from a resume() called by a person; petagen.auto_retry = 0
# retries nothing.
#
# Timing: petagen.debug_pause holds the worker before chunk 2 while the test
# takes an ACCESS EXCLUSIVE lock on the table; the job's owner has a short
# lock_timeout, so the held worker, released, fails on the lock.  The
# launcher's scans are observed through the catalog and its processes.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $node = petagen_node('autoretry',
	"shared_preload_libraries = 'petagen'\nmax_worker_processes = 16\n"
	  . "petagen.auto_retry_delay = '1s'\n");
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION petagen;
CREATE ROLE loader LOGIN IN ROLE petagen_operator;
ALTER ROLE loader SET lock_timeout = '300ms';
SELECT petagen.create_table('t_lock');
SELECT petagen.create_table('t_check');
SELECT petagen.create_table('t_off');
SELECT petagen.create_table('t_held');
SELECT petagen.create_table('t_spent');
GRANT SELECT, INSERT ON t_lock, t_check, t_off, t_held, t_spent TO loader;
ALTER TABLE t_check ADD CONSTRAINT no_rows CHECK (ycsb_key = 'none');
});

# Start a one-worker load of 50000 rows into $table as loader.
sub start_job
{
	my ($table) = @_;
	return $node->safe_psql('postgres',
		"SET ROLE loader; SELECT petagen.start(50000, workers => 1,"
		  . " \"table\" => '$table', chunk_rows => 10000)");
}

# The job-level reason of $job, whole.
sub reason_of
{
	my ($job) = @_;
	return $node->safe_psql('postgres',
		"SELECT reason FROM petagen.status_details($job) WHERE worker IS NULL"
		  . " AND reason IS NOT NULL");
}

# Make $job's worker, held before chunk 2, fail on a lock held by $holder.
sub fail_on_lock
{
	my ($job, $table) = @_;
	wait_for_debug_pause($node, $job, 1);
	my $holder = $node->background_psql('postgres');
	$holder->query_safe("BEGIN; LOCK TABLE $table IN ACCESS EXCLUSIVE MODE");
	set_debug_pause($node, '');
	$node->poll_query_until('postgres',
		"SELECT state = 'failed' FROM petagen.jobs WHERE job = $job")
	  or die "job $job did not fail on the lock";
	return $holder;
}

# (c) a transient failure is retried and the retried run ends done.
set_debug_pause($node, 'before_chunk:2');
my $job = start_job('t_lock');
my $holder = fail_on_lock($job, 't_lock');
is( $node->safe_psql('postgres',
		"SELECT failed_sqlstate FROM petagen.jobs WHERE job = $job"),
	'55P03', 'the failure\'s SQLSTATE is recorded');
ok( $node->poll_query_until('postgres',
		"SELECT reason LIKE 'retry 1 of 3 at %' FROM petagen.status_details($job)"
		  . " WHERE worker IS NULL AND reason IS NOT NULL"),
	'status_details() shows the retry to come');
like(reason_of($job), qr/^retry 1 of 3 at \d\d:\d\d:\d\d after: .*lock timeout/,
	'with the error it retries after');
$holder->query_safe('COMMIT');
$holder->quit;
# wait() would return at once while the job is failed, before the retry
ok( $node->poll_query_until('postgres',
		"SELECT retries >= 1 AND state <> 'failed' FROM petagen.jobs WHERE job = $job"),
	'the launcher retries the job');
wait_done($node, $job, 'the retried job ends done');
cmp_ok($node->safe_psql('postgres', "SELECT retries FROM petagen.jobs WHERE job = $job"),
	'>=', 1, 'its retries are counted');
ok( $node->log_contains(
		qr/petagen: retrying job $job in database "postgres" \(attempt 1 of 3\) after: .*lock timeout/),
	'the launcher logs the retry');
is($node->safe_psql('postgres', "SELECT count(*) FROM t_lock"), '50000',
	'every row is loaded');

# (d) a permanent failure is not retried, and status_details() says why.
my $check = start_job('t_check');
$node->poll_query_until('postgres',
	"SELECT state = 'failed' FROM petagen.jobs WHERE job = $check")
  or die "job $check did not fail";
is( $node->safe_psql('postgres',
		"SELECT failed_sqlstate FROM petagen.jobs WHERE job = $check"),
	'23514', 'a CHECK violation is recorded as such');
ok( $node->poll_query_until('postgres',
		"SELECT next_retry_at = 'infinity' FROM petagen.jobs WHERE job = $check"),
	'the launcher decides not to retry it');
like(reason_of($check), qr/^not retried: .*no_rows.* \(permanent\)$/,
	'status_details() says it is permanent');
is($node->safe_psql('postgres', "SELECT retries FROM petagen.jobs WHERE job = $check"),
	'0', 'and no retry was made');
ok($node->log_contains(qr/petagen: not retrying job $check in database "postgres": .*\(permanent, SQLSTATE 23514\)/),
	'the launcher logs why, once');

# (e) with petagen.auto_retry = 1, the launcher's one retry meets the
# lock too (its resume() waits for it 5 s at most, then is refused: the
# launcher goes on) and is the last.  A resume() by the superuser, once the
# lock is gone, gives the job its retry again: held before chunk 3, its
# worker fails on the lock once more, and the launcher schedules retry 1 of
# 1 (ten minutes away, so that the test sees it stay).  Once the lock is
# gone, a resume() loads the job to done.
set_setting($node, 'auto_retry', '1');
set_debug_pause($node, 'before_chunk:2');
my $spent = start_job('t_spent');
$holder = fail_on_lock($spent, 't_spent');
ok( $node->poll_query_until('postgres',
		"SELECT retries = 1 AND next_retry_at = 'infinity' FROM petagen.jobs WHERE job = $spent"),
	'the launcher retries once, and no more');
ok( $node->log_contains(
		qr/petagen: could not resume job $spent in database "postgres": canceling statement due to lock timeout/),
	'the retry waited for the lock a while, then gave up');
is( $node->safe_psql('postgres',
		"SELECT state, failed_sqlstate FROM petagen.jobs WHERE job = $spent"),
	'failed|55P03', 'the refusal is recorded');
is(reason_of($spent), 'not retried: 1 retries spent',
	'status_details() says the retries are spent');
$holder->query_safe('COMMIT');
$holder->quit;
set_setting($node, 'auto_retry_delay', '10min');
set_debug_pause($node, 'before_chunk:3');
$node->safe_psql('postgres', "SELECT petagen.resume($spent)");
is( $node->safe_psql('postgres',
		"SELECT retries, next_retry_at IS NULL, failed_sqlstate IS NULL FROM petagen.jobs WHERE job = $spent"),
	'0|t|t', 'resume() resets the retries and the failure');
$holder = fail_on_lock($spent, 't_spent');
ok( $node->poll_query_until('postgres',
		"SELECT retries = 0 AND next_retry_at > now() + interval '5 min'"
		  . " FROM petagen.jobs WHERE job = $spent"),
	'the launcher schedules a retry again');
like(reason_of($spent), qr/^retry 1 of 1 at \d\d:\d\d:\d\d after: .*lock timeout/,
	'status_details() shows the retry to come, not the retries spent');
$holder->query_safe('COMMIT');
$holder->quit;
$node->safe_psql('postgres', "SELECT petagen.resume($spent)");
wait_done($node, $spent, 'the job resumed once the lock is gone ends done');
is($node->safe_psql('postgres', "SELECT count(*) FROM t_spent"), '50000',
	'every row of it is loaded');
set_setting($node, 'auto_retry_delay', '1s');
set_setting($node, 'auto_retry', '3');

# (f) petagen.auto_retry = 0: a transient failure is left as it is.  A
# job whose worker is terminated shows that a scan ran after the failure:
# the launcher resumes it (its run count goes up, for good), then looks at
# the failed jobs in the same scan, before its worker exits.
set_setting($node, 'auto_retry', '0');
set_debug_pause($node, 'before_chunk:2');
my $off = start_job('t_off');
$holder = fail_on_lock($off, 't_off');
set_debug_pause($node, 'before_chunk:2');
my $held = start_job('t_held');
wait_for_debug_pause($node, $held, 1);
$node->safe_psql('postgres',
	"SELECT pg_terminate_backend(pid) FROM petagen.status_details($held) WHERE pid IS NOT NULL");
ok( $node->poll_query_until('postgres',
		"SELECT run > 1 FROM petagen.jobs WHERE job = $held"
		  . " AND NOT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'petagen auto-resume')"),
	'a scan ran after the failure');
is( $node->safe_psql('postgres',
		"SELECT retries = 0 AND next_retry_at IS NULL FROM petagen.jobs WHERE job = $off"),
	't', 'it did not retry the job');
like(reason_of($off), qr/^canceling statement due to lock timeout/,
	'status_details() shows the error alone');
$holder->query_safe('COMMIT');
$holder->quit;
set_debug_pause($node, '');
wait_done($node, $held, 'the resumed job ends done');

done_testing();
