# petagen.alter() on jobs whose workers run: a job throttled by a tiny
# max_rate, altered to no cap, finishes at once; a job paused by its own
# disk_reserve, altered to a small one, proceeds; a stopped job altered
# to fewer workers and no cap is resumed with them.  The owner (a
# petagen_operator member) alters its jobs; another operator may not, and
# a running job's worker count needs a new run.
#
# Timing is held by the settings themselves: at 1 kB/s a worker that has
# written its first batch (about 1 MB) is throttled for a quarter of an
# hour, and a 1000 PB reserve pauses every worker before its first chunk;
# neither job can end unless its workers take the altered value.  The job
# whose ETA is checked is held by petagen.debug_pause after two chunks.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

skip_unless_contrib(qw(amcheck));

my $rows = 30000;

my $node = PostgreSQL::Test::Cluster->new('alter');
$node->init;
$node->append_conf('postgresql.conf', "max_worker_processes = 16\n");
$node->start;
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION petagen;
CREATE EXTENSION amcheck;
CREATE ROLE alter_owner LOGIN IN ROLE petagen_operator;
CREATE ROLE alter_other LOGIN IN ROLE petagen_operator;
SELECT petagen.create_table('t_rate');
SELECT petagen.create_table('t_reserve');
SELECT petagen.create_table('t_resume');
SELECT petagen.create_table('t_eta');
GRANT SELECT, INSERT ON t_rate, t_reserve, t_resume, t_eta TO alter_owner;
});

# Run $sql as role $role (SET ROLE in a superuser's session).
sub as_role
{
	my ($role, $sql) = @_;
	return $node->safe_psql('postgres', "SET ROLE $role;\n$sql");
}

# The job's total status row: "state|reason".
sub total_state
{
	my ($job) = @_;
	return $node->safe_psql('postgres',
		"SELECT state || '|' || coalesce(reason, '') FROM petagen.status($job)");
}

# 1. Throttled to 1 kB/s, altered to no cap: done within seconds.
my $job = as_role('alter_owner',
	qq{SELECT petagen.start($rows, workers => 2, "table" => 't_rate', max_rate => '1kB',
	   method => 'chunk')});
ok( $node->poll_query_until(
		'postgres',
		"SELECT count(*) FROM petagen.status_workers($job)"
		  . " WHERE worker IS NOT NULL AND state = 'throttled'",
		'2'),
	'both workers of the 1 kB/s job are throttled');
is(total_state($job), 'throttled|max_rate: 1024 bytes/s',
	'status() shows the job throttled and its cap');
like(
	error_of($node, "SET ROLE alter_other; SELECT petagen.alter($job, max_rate => '0')"),
	qr/^42501: permission denied for load job $job/,
	'another petagen_operator member may not alter the job');
like(
	error_of($node, "SET ROLE alter_owner; SELECT petagen.alter($job, workers => 1)"),
	qr/^55006: cannot change the workers of load job $job while it runs/,
	'the workers of a running job are refused');
as_role('alter_owner', "SELECT petagen.alter($job, max_rate => '0')");
is($node->safe_psql('postgres', "SELECT max_rate IS NULL FROM petagen.jobs WHERE job = $job"),
	't', 'the catalog records no cap');
ok( count_within(
		$node,
		"SELECT count(*) FROM petagen.status_workers($job)"
		  . " WHERE worker IS NOT NULL AND state = 'throttled'",
		'0', 5),
	'within seconds no worker is throttled any more');
check_load_exact($node, $job, 't_rate', $rows, 'the job altered to no cap');

# 2. Paused by its own 1000 PB reserve, altered to 1 MB: done.
$job = as_role('alter_owner',
	qq{SELECT petagen.start($rows, workers => 2, "table" => 't_reserve', disk_reserve => '1000PB', force => true,
	   method => 'chunk')}
);
ok( $node->poll_query_until(
		'postgres',
		"SELECT count(*) FROM petagen.status_details($job)"
		  . " WHERE worker IS NOT NULL AND state = 'paused'"
		  . " AND reason ~ 'reserve 1073741824000 MB'",
		'2'),
	'both workers of the job pause for its own reserve');
is($node->safe_psql('postgres', 'SELECT count(*) FROM t_reserve'),
	'0', 'no row is loaded while paused');
as_role('alter_owner', "SELECT petagen.alter($job, disk_reserve => '1MB')");
is( $node->safe_psql('postgres', "SELECT disk_reserve FROM petagen.jobs WHERE job = $job"),
	'1048576', 'the catalog records the new reserve');
check_load_exact($node, $job, 't_reserve', $rows, 'the job altered to a small reserve');

# 3. Stopped while throttled, altered to one worker and no cap, resumed:
#    the new run takes the catalog's values.
$job = as_role('alter_owner',
	qq{SELECT petagen.start($rows, workers => 2, "table" => 't_resume', max_rate => '1kB',
	   method => 'chunk')});
ok( $node->poll_query_until(
		'postgres',
		"SELECT state FROM petagen.status($job)", 'throttled'),
	'the job to resume is throttled');
is(as_role('alter_owner', "SELECT petagen.stop($job)"), 'stopped', 'it stops');
as_role('alter_owner', "SELECT petagen.alter($job, workers => 1, max_rate => '0')");
as_role('alter_owner', "SELECT petagen.resume($job)");
wait_done($node, $job, 'resumed with the altered settings, the job is done');
is( $node->safe_psql('postgres',
		"SELECT workers, count(DISTINCT c.worker) FROM petagen.jobs j"
		  . " JOIN petagen.chunks c USING (job) WHERE job = $job AND c.run = 2"
		  . " GROUP BY workers"),
	'1|1', 'the resumed run had the one worker alter() recorded');
check_load_exact($node, $job, 't_resume', $rows, 'the resumed job');

# 4. Held by petagen.debug_pause after two of its three chunks: its rate
#    falls to 0/s and status() shows no ETA; paused by a 1000 PB reserve
#    alter() sets (and returns), no ETA either; altered back, done.
set_debug_pause($node, 'before_chunk:2');
$job = as_role('alter_owner',
	qq{SELECT petagen.start($rows, workers => 1, "table" => 't_eta', chunk_rows => 10000,
	   method => 'chunk')});
wait_for_debug_pause($node, $job, 1);
ok( $node->poll_query_until(
		'postgres', "SELECT rate FROM petagen.status($job)", '0/s'),
	'held after two chunks, the job\'s rate falls to 0/s');
is( $node->safe_psql('postgres',
		"SELECT progress ~ '66.6%' AND eta IS NULL FROM petagen.status($job)"),
	't', 'a job that loaded two thirds and writes nothing shows no ETA');
is( as_role('alter_owner',
		"SELECT workers || ' ' || reserve_in_force FROM petagen.alter($job, disk_reserve => '1000PB')"),
	'1 1125899906842624000', 'alter() returns the job\'s settings as they now stand');
set_debug_pause($node, '');
ok( $node->poll_query_until(
		'postgres', "SELECT state FROM petagen.status($job)", 'paused'),
	'released, the job pauses for the altered reserve');
is( $node->safe_psql('postgres',
		"SELECT progress ~ '66.6%' AND eta IS NULL FROM petagen.status($job)"),
	't', 'a paused job shows no ETA');
as_role('alter_owner', "SELECT petagen.alter($job, disk_reserve => '0')");
wait_done($node, $job, 'altered back, the job is done');
check_load_exact($node, $job, 't_eta', $rows, 'the job held, paused and altered back');

$node->stop;
done_testing();
