# Worker slots with petagen in shared_preload_libraries: check() counts, as
# not free, the slots of the launcher and of the server's own static
# workers (they run), and warns when the job's workers leave none for the
# launcher's per-database worker, which holds one while it resumes jobs
# after a crash.  A job check() found enough slots for without a warning
# is resumed after a crash.
# A worker of a running job terminated mid-unit (chunk or leaf) is
# replaced within seconds; the job ends done and exact in its first run.
# A job whose resume after a crash is refused for want of slots (another
# job's workers hold them) is retried, and ends done once they are free.
#
# Timing is held by petagen.debug_pause (ALTER SYSTEM, so it survives the
# restart): both workers are held before chunk 3, before the crash and again
# once resumed, and in unit 3 (a chunk before its commit, a leaf in the
# middle of its rows) when one is terminated.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

skip_unless_contrib(qw(amcheck));

my $node = petagen_node('supervisor',
	"shared_preload_libraries = 'petagen'\nmax_worker_processes = 5\n");
$node->safe_psql('postgres',
	"CREATE EXTENSION petagen; CREATE EXTENSION amcheck; SELECT petagen.create_table('t')");
$node->poll_query_until('postgres',
	"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'petagen launcher'",
	'1')
  or die 'the launcher does not run';

# The launcher and the logical replication launcher hold two of five slots,
# the auto-resume worker needs a third after a crash: two workers fit.
is( $node->safe_psql('postgres',
		"SELECT severity || ': ' || detail FROM petagen.check_details(100000, workers => 2, \"table\" => 't')"
		  . " WHERE finding LIKE 'workers:%'"),
	'info: workers: 2 workers, 3 of max_worker_processes (5) background worker slots are free, enough for auto-resume after a restart too',
	'check: two workers leave a slot for the auto-resume worker');
is( $node->safe_psql('postgres',
		"SELECT severity FROM petagen.check(100000, workers => 3, \"table\" => 't')"
		  . " WHERE finding LIKE 'workers:%'"),
	'warning',
	'check: three workers leave none');

# What check() found enough is enough to resume after a crash.
set_debug_pause($node, 'before_chunk:3');
my $job = $node->safe_psql('postgres',
	"SELECT petagen.start(100000, workers => 2, \"table\" => 't', chunk_rows => 10000, method => 'chunk')");
wait_for_debug_pause($node, $job, 2);
my $log_offset = -s $node->logfile;
$node->stop('immediate');
$node->start;
$node->wait_for_log(qr/LOG:  petagen: (resumed|could not resume) job $job /,
	$log_offset);
like(slurp_file($node->logfile, $log_offset),
	qr/LOG:  petagen: resumed job $job in database "postgres" with 2 workers/,
	'a job check() found slots for is resumed after a crash');
wait_for_debug_pause($node, $job, 2);
set_debug_pause($node, '');
check_load_exact($node, $job, 't', 100000, 'resumed job');

# A worker terminated in its unit while the other runs: the launcher,
# within seconds, starts another in its place, which loads that unit again;
# the job stays running, says so, and ends done and exact in its first run.
# The replacement is held again at the same point: proof that it redoes the
# unit its predecessor held.  A leaf is held in the middle of its rows, not
# before its commit: there it is locked ACCESS EXCLUSIVE, which the
# replacement, as it starts, waits for like any reader of the table (it
# reads every leaf's size), and a worker held there would hold it back
# for good.
sub restarted_worker
{
	my ($method, $pause) = @_;
	$node->safe_psql('postgres', 'TRUNCATE t');
	set_debug_pause($node, "$pause:3");
	my $job = $node->safe_psql('postgres',
		"SELECT petagen.start(100000, workers => 2, \"table\" => 't', chunk_rows => 10000, method => '$method')"
	);
	wait_for_debug_pause($node, $job, 2);
	my $log_offset = -s $node->logfile;
	$node->safe_psql('postgres',
		"SELECT pg_terminate_backend(min(pid)) FROM pg_stat_activity"
		  . " WHERE backend_type = 'petagen worker'");
	$node->wait_for_log(
		qr/LOG:  petagen: (restarted|could not restart) worker \d+ of job $job /,
		$log_offset);
	like(
		slurp_file($node->logfile, $log_offset),
		qr/LOG:  petagen: restarted worker [01] of job $job in database "postgres"\n.*DETAIL:  It exited while the others ran; the new one loads first the \w+ it held, [3-9]\./,
		"$method job: the launcher restarts a terminated worker, and the log says so");
	wait_for_debug_pause($node, $job, 2);
	like(
		$node->safe_psql('postgres',
			"SELECT state || ': ' || reason FROM petagen.status_details($job) WHERE worker IS NULL"
			  . " AND reason IS NOT NULL"),
		qr/^running: worker [01] died: restarted at \d\d:\d\d:\d\d; petagen\.debug_pause/,
		"$method job: status() says the worker died and was restarted");
	set_debug_pause($node, '');
	check_load_exact($node, $job, 't', 100000, "$method job with a restarted worker");
	is($node->safe_psql('postgres', "SELECT run FROM petagen.jobs WHERE job = $job"),
		'1', "$method job: done in its first run, no resume");
	unlike(slurp_file($node->logfile, $log_offset),
		qr/resumed job $job /, "$method job: not resumed");
}

restarted_worker('chunk', 'before_commit');
restarted_worker('leaf',  'mid_chunk');

# Slots taken: job B's one worker and job A's two fill the five slots with
# the launcher and the logical replication launcher.  After a crash the
# launcher resumes B first, whose worker, held before chunk 3 again, keeps
# its slot; the auto-resume worker holds another, and one is left for A's
# two: its resume is refused (53400), recorded, and retried with backoff
# until B is released and done.
set_setting($node, 'auto_retry', '10');
set_setting($node, 'auto_retry_delay', '1s');
$node->safe_psql('postgres',
	"SELECT petagen.create_table('t_a'); SELECT petagen.create_table('t_b')");
set_debug_pause($node, 'before_chunk:3');
my $job_b = $node->safe_psql('postgres',
	"SELECT petagen.start(100000, workers => 1, \"table\" => 't_b', chunk_rows => 10000, method => 'chunk')");
wait_for_debug_pause($node, $job_b, 1);
my $job_a = $node->safe_psql('postgres',
	"SELECT petagen.start(100000, workers => 2, \"table\" => 't_a', chunk_rows => 10000, method => 'chunk')");
wait_for_debug_pause($node, $job_a, 2);
$log_offset = -s $node->logfile;
$node->stop('immediate');
$node->start;
$node->wait_for_log(qr/LOG:  petagen: (resumed|could not resume) job $job_a /, $log_offset);
like(slurp_file($node->logfile, $log_offset),
	qr/LOG:  petagen: could not resume job $job_a in database "postgres": [^\n]*background worker/,
	'slots taken: the resume after the crash is refused');
wait_for_debug_pause($node, $job_b, 1);
ok( $node->poll_query_until('postgres',
		"SELECT j.failed_sqlstate = '53400' AND s.state = 'interrupted'"
		  . " AND s.reason ~ '^server crashed or was killed, last progress at .*; retry [0-9]+ of 10 at [0-9:]+ after: resume refused: .*background worker'"
		  . " FROM petagen.jobs j, petagen.status_details($job_a) s WHERE j.job = $job_a AND s.worker IS NULL"),
	'the refusal is recorded, and status() says when the retry comes');
set_debug_pause($node, '');
wait_done($node, $job_b, 'the job that held the slots ends done');
ok( $node->poll_query_until('postgres',
		"SELECT retries >= 1 AND run >= 2 AND state <> 'failed' FROM petagen.jobs WHERE job = $job_a"),
	'once the slots are free, the launcher retries the job');
like(slurp_file($node->logfile, $log_offset),
	qr/LOG:  petagen: retrying job $job_a in database "postgres" \(attempt \d+ of 10\) after: resume refused: /,
	'the launcher logs the retry');
check_load_exact($node, $job_a, 't_a', 100000, 'job retried after its resume was refused');

$node->stop;
done_testing();
