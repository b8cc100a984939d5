# Auto-resume with petagen in shared_preload_libraries: after an immediate
# shutdown the launcher resumes, as their owners, the interrupted jobs of
# every database, records when and why they were interrupted, logs what
# it did, and leaves a job whose owner lost petagen_operator; a resumed
# job ends done and exact.  After a clean shutdown with
# petagen.auto_resume = off it records "server shut down" and resumes
# nothing.  A streaming standby with the same preload resumes nothing.
# Too few worker slots make the resume fail with resume()'s own error.
#
# Timing is held by petagen.debug_pause (ALTER SYSTEM, so it survives the
# restart): every worker is held before chunk 4, before the stop and again
# once resumed, which is how the test sees that a job was resumed.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

skip_unless_contrib(qw(amcheck));

my $rows = 400000;

my $node = PostgreSQL::Test::Cluster->new('autoresume');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf',
	"shared_preload_libraries = 'petagen'\nmax_worker_processes = 16\n");
$node->start;
$node->safe_psql(
	'postgres', q{
CREATE DATABASE second;
CREATE EXTENSION petagen;
CREATE EXTENSION amcheck;
CREATE ROLE loser LOGIN IN ROLE petagen_operator;
SELECT petagen.create_table('t_a');
SELECT petagen.create_table('t_lost');
SELECT petagen.create_table('t_stop');
SELECT petagen.create_table('t_done');
GRANT SELECT, INSERT ON t_lost TO loser;
});
$node->safe_psql('second',
	"CREATE EXTENSION petagen; SELECT petagen.create_table('t_b')");

is( $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'petagen launcher'"),
	'1', 'the preloaded library runs its launcher');

# Start a load of $rows rows into $table in $db as $role, held before chunk 4.
sub start_job
{
	my ($db, $table, $role) = @_;
	return $node->safe_psql($db,
		"SET ROLE $role; SELECT petagen.start($rows, workers => 2,"
		  . " \"table\" => '$table', chunk_rows => 10000)");
}

# Wait until both workers of $job in $db are held by petagen.debug_pause.
sub wait_held
{
	my ($db, $job) = @_;
	$node->poll_query_until($db,
		"SELECT count(*) FROM petagen.status_workers($job)"
		  . " WHERE worker IS NOT NULL AND reason LIKE 'petagen.debug_pause:%'",
		'2')
	  or die "job $job in $db: its workers are not held";
}

set_debug_pause($node, 'before_chunk:4');
my $job_a = start_job('postgres', 't_a', 'NONE');
my $job_lost = start_job('postgres', 't_lost', 'loser');
my $job_b = start_job('second', 't_b', 'NONE');
wait_held('postgres', $job_a);
wait_held('postgres', $job_lost);
wait_held('second', $job_b);
$node->safe_psql('postgres', 'REVOKE petagen_operator FROM loser');

# Jobs the launcher must leave alone: one stopped by its operator, one done
# (two chunks, both before the pause).
my $job_stop = start_job('postgres', 't_stop', 'NONE');
wait_held('postgres', $job_stop);
$node->safe_psql('postgres', "SELECT petagen.stop($job_stop)");
my $job_done = $node->safe_psql('postgres',
	"SELECT petagen.start(20000, workers => 2, \"table\" => 't_done', chunk_rows => 10000,"
	  . " method => 'chunk')");
wait_done($node, $job_done, 'a small job ends done before the crash', '180s');

# A standby of the server as it is now, jobs running in its catalog.
$node->backup('held');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($node, 'held', has_streaming => 1);
$standby->start;

my $log_offset = -s $node->logfile;
$node->stop('immediate');
$node->start;

# Resumed: held again before chunk 4 by a new run.
wait_held('postgres', $job_a);
wait_held('second', $job_b);
pass('the launcher resumed the interrupted jobs of both databases');
# It took the databases one at a time: "postgres" is behind it.
is( $node->safe_psql('postgres',
		"SELECT string_agg(format('%s:%s', state, run), ' ' ORDER BY job) FROM petagen.jobs"
		  . " WHERE job IN ($job_stop, $job_done)"),
	'stopped:1 done:1', 'the launcher leaves a stopped job stopped and a done job done');
ok( !$node->log_contains(qr/petagen: [^\n]*job ($job_stop|$job_done) /, $log_offset),
	'the launcher logs nothing about the stopped and the done job');
$node->wait_for_log(
	qr/LOG:  petagen: could not resume job $job_lost in database "postgres": permission denied/,
	$log_offset);
ok( $node->log_contains(
		qr/LOG:  petagen: resumed job $job_a in database "postgres" with 2 workers\n.*DETAIL:  It was interrupted after its last progress at [^:\n]+:\d\d:\d\d\S*: server crashed or was killed\./,
		$log_offset),
	'the log says which job it resumed, with how many workers, and why it was interrupted');
ok( $node->log_contains(qr/petagen: resumed job $job_b in database "second" with 2 workers/,
		$log_offset),
	'the log names the job resumed in the second database');
is( $node->safe_psql('postgres',
		"SELECT run, interrupted_reason, interrupted_at >= (SELECT max(finished_at)"
		  . " FROM petagen.chunks WHERE job = $job_a) FROM petagen.jobs WHERE job = $job_a"),
	'2|server crashed or was killed|t',
	'the catalog records the interruption at the last progress, and why');
like( $node->safe_psql('postgres',
		"SELECT state || ': ' || reason FROM petagen.status_details($job_lost)"
		  . " WHERE worker IS NULL AND reason IS NOT NULL"),
	qr/^interrupted: server crashed or was killed, last progress at \d{4}-/,
	'the job whose owner lost its privileges is left interrupted, status() says why');

# The standby replays the catalog and resumes nothing.
$node->wait_for_catchup($standby);
is( $standby->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE 'petagen%'"),
	'0', 'a hot standby runs no launcher and no petagen worker');
ok(!$standby->log_contains(qr/petagen: (resumed|could not resume|left)/),
	'a hot standby logs no resume');
$standby->stop;

set_debug_pause($node, '');
check_load_exact($node, $job_a, 't_a', $rows, 'auto-resumed job');
is($node->safe_psql('second', "SELECT petagen.wait($job_b, '180s')"),
	'done', 'the job of the second database ends done');

# petagen.auto_resume = off: a clean shutdown is recorded as such, the job
# is left interrupted.
set_debug_pause($node, 'before_chunk:4');
$node->safe_psql('postgres', "SELECT petagen.forget($job_lost); TRUNCATE t_lost");
my $job_off = start_job('postgres', 't_lost', 'NONE');
wait_held('postgres', $job_off);
set_setting($node, 'auto_resume', 'off');
$log_offset = -s $node->logfile;
$node->restart;
$node->wait_for_log(
	qr/LOG:  petagen: left interrupted job $job_off in database "postgres" as it is/,
	$log_offset);
is( $node->safe_psql('postgres',
		"SELECT state || ': ' || reason FROM petagen.status_details($job_off)"
		  . " WHERE worker IS NULL AND reason IS NOT NULL"),
	$node->safe_psql('postgres',
		"SELECT 'interrupted: server shut down, last progress at ' || interrupted_at::timestamptz(0)"
		  . " FROM petagen.jobs WHERE job = $job_off"),
	'with auto_resume off a job a shutdown interrupted is left, recorded as shut down');
is( $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'petagen worker'"),
	'0', 'with auto_resume off no worker runs');

# Too few worker slots: the launcher and the database's worker hold two of
# three, and resume() refuses with its usual error, which is logged.
set_setting($node, 'auto_resume', 'on');
$node->append_conf('postgresql.conf', "max_worker_processes = 3\n");
$log_offset = -s $node->logfile;
$node->restart;
$node->wait_for_log(
	qr/LOG:  petagen: could not resume job $job_off in database "postgres": not enough free background worker slots for 2 workers/,
	$log_offset);
pass('too few worker slots fail the resume with the usual error, logged');

$node->stop;
done_testing();
