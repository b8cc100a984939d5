# Worker slots with petagen in shared_preload_libraries: check() counts, as
# not free, the slots of the launcher and of the server's own static
# workers (they run), and warns when the job's workers leave none for the
# launcher's per-database worker, which holds one while it resumes jobs
# after a crash.  A job check() found enough slots for without a warning
# is resumed after a crash.
# A job whose worker is terminated mid-chunk is resumed while the server
# runs and ends done and exact.
#
# Timing is held by petagen.debug_pause (ALTER SYSTEM, so it survives the
# restart): both workers are held before chunk 3, before the crash and again
# once resumed.
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

# A worker terminated before it commits its chunk: the other ends the run
# without that chunk and the launcher, within seconds, resumes the job,
# which ends done and exact.
$node->safe_psql('postgres', 'TRUNCATE t');
set_debug_pause($node, 'before_commit:3');
$job = $node->safe_psql('postgres',
	"SELECT petagen.start(100000, workers => 2, \"table\" => 't', chunk_rows => 10000, method => 'chunk')");
wait_for_debug_pause($node, $job, 2);
$log_offset = -s $node->logfile;
$node->safe_psql('postgres',
	"SELECT pg_terminate_backend(min(pid)) FROM pg_stat_activity"
	  . " WHERE backend_type = 'petagen worker'");
$node->poll_query_until('postgres',
	"SELECT reason LIKE 'worker _ exited: %' FROM petagen.status_details($job) WHERE worker IS NULL")
  or die 'status() does not say the worker exited';
like(
	$node->safe_psql('postgres',
		"SELECT state || ': ' || reason FROM petagen.status_details($job) WHERE worker IS NULL"),
	qr/^running: worker [01] exited: the others go on without its chunk, which a resume loads$/,
	'status() says a worker exited while the other runs');
set_debug_pause($node, '');
$node->wait_for_log(qr/LOG:  petagen: (resumed|could not resume) job $job /,
	$log_offset);
like(
	slurp_file($node->logfile, $log_offset),
	qr/LOG:  petagen: resumed job $job in database "postgres" with 2 workers\n.*DETAIL:  It was interrupted after its last progress at [^:]+:\d\d:\d\d[^:]*: its workers exited before it finished\./,
	'a job a terminated worker left short is resumed, and the log says why');
check_load_exact($node, $job, 't', 100000, 'job resumed after a terminated worker');

$node->stop;
done_testing();
