# What petagen preloaded must not do.  DDL that waits for every process of
# the server to absorb a ProcSignalBarrier finishes: DROP DATABASE,
# DROP TABLESPACE (of a tablespace a dropped table's file still holds until
# the next checkpoint, the case that emits the barrier) and ALTER
# DATABASE ... SET TABLESPACE, first with petagen idle (its launcher
# sleeping), then with a load job of another database held mid-load by
# petagen.debug_pause.  Each statement runs with a statement_timeout, so a
# process that never absorbs the barrier fails the test instead of hanging
# it.  Then check() counts the slot auto-resume needs after a restart: with
# max_worker_processes = 4 (the launcher and the logical replication
# launcher hold two), two workers leave none for it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Spec;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $node = petagen_node('ddl_preload',
	"shared_preload_libraries = 'petagen'\nmax_worker_processes = 16\n");

# The launcher is up and its per-database workers are gone: it sleeps.
$node->poll_query_until('postgres',
	"SELECT count(*) FILTER (WHERE backend_type = 'petagen launcher') = 1"
	  . " AND count(*) FILTER (WHERE backend_type = 'petagen auto-resume') = 0"
	  . " FROM pg_stat_activity")
  or die 'the petagen launcher did not settle';

my $round = 0;

# Run each of the DDL statements that wait for a ProcSignalBarrier, each
# within 60 seconds, as test $label; a fresh tablespace directory per call.
sub barrier_ddl
{
	my ($label) = @_;
	my $dir = File::Spec->rel2abs(PostgreSQL::Test::Utils::tempdir('ts' . ++$round));
	$node->safe_psql('postgres',
		"CREATE DATABASE dropme; CREATE DATABASE moveme;"
		  . " CREATE TABLESPACE ts LOCATION '$dir'");
	my $timeout = "SET statement_timeout = '60s';";
	my ($ret, $stdout, $stderr) =
	  $node->psql('postgres', "$timeout DROP DATABASE dropme");
	is($ret, 0, "$label: DROP DATABASE finishes") or diag $stderr;
	($ret, $stdout, $stderr) =
	  $node->psql('postgres', "$timeout ALTER DATABASE moveme SET TABLESPACE ts");
	is($ret, 0, "$label: ALTER DATABASE ... SET TABLESPACE finishes") or diag $stderr;
	$node->safe_psql('postgres',
		"ALTER DATABASE moveme SET TABLESPACE pg_default; DROP DATABASE moveme;"
		  . " CREATE TABLE in_ts (a int) TABLESPACE ts; DROP TABLE in_ts");
	($ret, $stdout, $stderr) =
	  $node->psql('postgres', "$timeout DROP TABLESPACE ts");
	is($ret, 0, "$label: DROP TABLESPACE finishes") or diag $stderr;
}

barrier_ddl('petagen idle');

# A load of another database, its two workers held before their third
# chunk: they wait on their latch, the way a throttled or paused job does.
$node->safe_psql('postgres', 'CREATE DATABASE busy');
$node->safe_psql('busy',
	"CREATE EXTENSION petagen; SELECT petagen.create_table()");
set_debug_pause($node, 'before_chunk:2');
my $job = $node->safe_psql('busy',
	"SELECT petagen.start(100000, workers => 2, chunk_rows => 10000,"
	  . " method => 'chunk')");
$node->poll_query_until('busy',
	"SELECT count(*) FROM petagen.status_workers($job)"
	  . " WHERE worker IS NOT NULL AND reason LIKE 'petagen.debug_pause:%'",
	'2')
  or die "job $job: its workers are not held";

barrier_ddl('a job running in another database');

set_debug_pause($node, '');
is($node->safe_psql('busy', "SELECT petagen.wait($job)"),
	'done', 'the job goes on and ends done');
is($node->safe_psql('busy', "SELECT bool_and(ok) FROM petagen.verify($job)"),
	't', 'and verifies');

$node->append_conf('postgresql.conf', "max_worker_processes = 4\n");
$node->restart;
$node->poll_query_until('postgres',
	"SELECT count(*) FILTER (WHERE backend_type = 'petagen auto-resume') = 0"
	  . " AND count(*) FILTER (WHERE backend_type = 'logical replication launcher') = 1"
	  . " FROM pg_stat_activity")
  or die 'the server did not settle';
is( $node->safe_psql('busy',
		"SELECT severity || ': ' || finding FROM petagen.check(1000, workers => 2)"
		  . " WHERE finding LIKE 'workers:%'"),
	'warning: workers: 2 workers leave no slot to auto-resume them',
	'check(): two workers of two free slots leave none for auto-resume');
is( $node->safe_psql('busy',
		"SELECT severity FROM petagen.check(1000, workers => 1)"
		  . " WHERE finding LIKE 'workers:%'"),
	'info', 'one worker leaves one');

$node->stop;
done_testing();
