# Nothing outlives its owner, each part as a petagen_operator member that
# owns only its tables, the least-privileged role that can cause it:
#  1. bench() workers end with their caller: terminated, cancelled or
#     disconnected, its workers are gone within seconds (not after the run's
#     hour) and nothing is recorded in bench_results;
#  2. a load run's DSM segment goes with its workers: after the owner
#     terminates them, /dev/shm holds no segment of the run, and status(),
#     stop() and resume() still work;
#  3. an open transaction that called start() holds no worker slot and
#     holds up no start() on another table: the workers are registered when
#     it commits, so another start() may take every free slot meanwhile;
#     such a transaction cannot be prepared;
#  4. free worker slots are counted the same for every role: check() as the
#     operator sees the superuser's job's workers, and agrees with start().
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

plan skip_all => 'no /dev/shm to see DSM segments in' unless -d '/dev/shm';

my $node = PostgreSQL::Test::Cluster->new('resources');
$node->init;
# posix segments are files in /dev/shm named by their handle (part 2)
$node->append_conf('postgresql.conf',
	"max_worker_processes = 8\nmax_prepared_transactions = 2\n"
	  . "dynamic_shared_memory_type = posix\nmin_dynamic_shared_memory = 0\n");
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION petagen;
CREATE ROLE op LOGIN IN ROLE petagen_operator;
GRANT CREATE ON SCHEMA public TO op;
});
my @as_op = (extra_params => [ '-U', 'op' ]);

# $sql on $node, connected as op.
sub op_psql
{
	return $node->safe_psql('postgres', $_[0], @as_op);
}

op_psql(ycsb_table_sql('bt') . "SELECT count(*) FROM petagen.load('bt', 0, 1000);"
	  . ycsb_table_sql('lt') . ycsb_table_sql('st') . ycsb_table_sql('st2') . ycsb_table_sql('pt'));

my $bench_workers =
  "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'petagen bench worker'";
my $bench_sql = "SELECT * FROM petagen.bench('select', workers => 2,"
  . " duration => '1 hour', \"table\" => 'bt', rows => 1000)";

# Start an hour-long bench() as op in a psql of its own and wait for its
# two workers; returns the psql (IPC::Run) and its backend's pid.
sub start_long_bench
{
	my ($stdout, $stderr) = ('', '');
	my $psql = IPC::Run::start(
		[ 'psql', '-X', '-U', 'op', '-d', $node->connstr('postgres'), '-c', $bench_sql ],
		'>', \$stdout, '2>', \$stderr);
	$node->poll_query_until('postgres', $bench_workers, 2)
	  or die 'the bench workers did not start';
	my $pid = $node->safe_psql('postgres',
		"SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend'"
		  . " AND usename = 'op' AND query LIKE 'petagen bench %'");
	return ($psql, $pid);
}

# 1. bench() workers end with their caller: terminated, cancelled, or
# when its client goes away (psql killed).
my ($psql, $pid) = start_long_bench();
is(op_psql("SELECT pg_terminate_backend($pid)"), 't', 'op terminates its bench() backend');
ok(count_within($node, $bench_workers, 0, 5),
	'1. terminated caller: its bench workers are gone within 5 s');
$psql->finish;

($psql, $pid) = start_long_bench();
is(op_psql("SELECT pg_cancel_backend($pid)"), 't', 'op cancels its bench()');
ok(count_within($node, $bench_workers, 0, 5),
	'1. cancelled caller: its bench workers are gone within 5 s');
$psql->finish;

($psql, $pid) = start_long_bench();
$psql->kill_kill;
ok(count_within($node, $bench_workers, 0, 5),
	'1. disconnected client: its bench workers are gone within 5 s');
is($node->safe_psql('postgres', 'SELECT count(*) FROM petagen.bench_results'),
	'0', '1. runs that did not end record nothing');

# 2. A run's segment goes with its workers, however they end.
set_debug_pause($node, 'before_chunk');
my $job = op_psql("SELECT petagen.start(10000, workers => 2, \"table\" => 'lt',"
	  . " chunk_rows => 1000, force => true)");
wait_for_debug_pause($node, $job, 2);
my $handle = $node->safe_psql('postgres', "SELECT dsm_handle FROM petagen.jobs WHERE job = $job");
ok(-e "/dev/shm/PostgreSQL.$handle", '2. the run\'s segment is there while it runs');
is( op_psql("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))"
		  . " FROM pg_stat_activity WHERE backend_type = 'petagen worker'"),
	'2', 'op terminates the workers of its job');
$node->poll_query_until('postgres',
	"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'petagen worker'", 0)
  or die 'the workers did not exit';
ok(!-e "/dev/shm/PostgreSQL.$handle", '2. no segment of the run is left behind');
is(op_psql("SELECT state FROM petagen.status($job)"),
	'interrupted', '2. status() says interrupted');
is(op_psql("SELECT petagen.stop($job)"), 'stopped', '2. stop() records it stopped');
set_debug_pause($node, '');
op_psql("SELECT petagen.resume($job)");
is(op_psql("SELECT petagen.wait($job, '120s')"), 'done', '2. resume() loads the rest');
$handle = $node->safe_psql('postgres', "SELECT dsm_handle FROM petagen.jobs WHERE job = $job");
ok(!-e "/dev/shm/PostgreSQL.$handle", '2. a finished run leaves no segment either');

# 3. An open transaction's start() holds no slot: another start() may take
# every free slot while it is open, and its own workers start at COMMIT.
my ($free) = $node->safe_psql('postgres',
	"SELECT detail FROM petagen.check_details(100, workers => 1, \"table\" => 'st')"
	  . " WHERE finding LIKE 'workers:%'") =~ / (\d+) of max_worker_processes/;
my $open = $node->background_psql('postgres', @as_op);
my $ojob = $open->query_safe(
	"BEGIN; SELECT petagen.start(1000, workers => 2, \"table\" => 'st', force => true,"
	  . " method => 'chunk')");
# lock_timeout: a start() held up by the open one fails instead of hanging
my $all = op_psql("SET lock_timeout = '10s';"
	  . " SELECT petagen.start(1000, workers => $free, \"table\" => 'st2', force => true)");
ok($all, "3. while it is open, another start() takes all $free free slots");
is(op_psql("SELECT petagen.wait($all, '120s')"), 'done', '3. and that job ends');
$open->query_safe('COMMIT');
$open->quit;
is(op_psql("SELECT petagen.wait($ojob, '120s')"), 'done',
	'3. the open transaction\'s job runs once it commits');
like(error_of($node, "SET ROLE op; BEGIN;"
		  . " SELECT petagen.start(10, workers => 1, \"table\" => 'pt', force => true);"
		  . " PREPARE TRANSACTION 'p'"),
	qr/^0A000: cannot PREPARE a transaction that started or resumed a petagen load job/,
	'3. a transaction that starts a job cannot be prepared');

# 4. Free slots, counted the same for every role: a superuser's job holds 2.
set_debug_pause($node, 'before_chunk');
$node->safe_psql('postgres', ycsb_table_sql('su'));
my $sujob = $node->safe_psql('postgres',
	"SELECT petagen.start(10000, workers => 2, \"table\" => 'su', chunk_rows => 1000, force => true)");
wait_for_debug_pause($node, $sujob, 2);
my $slots_sql = "SELECT detail FROM petagen.check_details(100, workers => 1, \"table\" => 'st')"
  . " WHERE finding LIKE 'workers:%'";
my $as_su = $node->safe_psql('postgres', $slots_sql);
($free) = $as_su =~ / (\d+) of max_worker_processes \(8\)/;
cmp_ok($free, '<=', 6, "4. check() as superuser counts the job's two workers ($free free)");
is(op_psql($slots_sql), $as_su, '4. check() as op counts the same free slots');
like(error_of($node, "SET ROLE op; SELECT petagen.start(100, workers => " . ($free + 1)
		  . ", \"table\" => 'st', force => true)"),
	qr/^53400: not enough free background worker slots/,
	'4. start() as op refuses one worker more than check() said was free');
set_debug_pause($node, '');
is($node->safe_psql('postgres', "SELECT petagen.wait($sujob, '120s')"), 'done',
	'the superuser\'s job ends');

$node->stop;
done_testing();
