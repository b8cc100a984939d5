# The routing files of leaf loads belong to exactly one job of one
# database: $PGDATA/pg_petagen/<database oid>/<route token>, every file's
# header naming what produced it.  Everything runs as route_op, a
# petagen_operator with only INSERT on the tables and TRUNCATE on their
# leaves.
#
# One crash restart interrupts three leaf jobs, each job 1 of its database
# and held by petagen.debug_pause before the commit of its first leaf, so
# that their files stay (an interrupted job is resumed from them):
#  (a) job 1 of database postgres then loads exactly, beside the files of
#      job 1 of database other, which was routed with other key options;
#  (d) a stale file (another range's) planted into other's job is routed
#      again by its resume(), which then loads exactly; a file of another
#      database planted into a job held before the commit of its first
#      leaf is refused when the next leaf reads it (55000): the job fails,
#      and its resume() routes again and loads exactly;
#  (c) DROP EXTENSION removes the database's routing files, and the next
#      start() sweeps the directory of a dropped database and the files of
#      the layout before tokens (pg_petagen/<job>/range.<n>); files are
#      gone after a job is done, failed or stopped;
#  (b) a leaf job 1 that failed after routing, then DROP EXTENSION; CREATE
#      EXTENSION: the new job 1 loads exactly;
#  and routing waits for the disk reserve before writing a file.
use strict;
use warnings;
use File::Copy;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

skip_unless_contrib(qw(amcheck));

my $rows = 20000;
my $chunk_rows = 10000;

my $node = petagen_node('routing', qq{
restart_after_crash = on
autovacuum = off
max_worker_processes = 16
});
my $pgdata = $node->data_dir;
$node->safe_psql('postgres', "CREATE DATABASE $_") for qw(other third fourth);
$node->safe_psql($_, 'CREATE EXTENSION petagen; CREATE EXTENSION amcheck')
  for qw(postgres other third fourth);
$node->safe_psql('postgres', 'CREATE ROLE route_op LOGIN IN ROLE petagen_operator');

# A new 8-leaf table $table in $db that route_op may load (INSERT on it,
# TRUNCATE on its leaves) and nothing more.
sub new_table
{
	my ($db, $table) = @_;
	$node->safe_psql($db, "SELECT petagen.create_table('$table');"
		  . " GRANT INSERT ON $table TO route_op;"
		  . " SELECT format('GRANT TRUNCATE ON %s TO route_op', relid)"
		  . " FROM pg_partition_tree('$table') WHERE isleaf \\gexec");
}

# Start a leaf job as route_op in $db on a new table; returns the job.
sub start_as_op
{
	my ($db, $table, $args) = @_;
	new_table($db, $table);
	return $node->safe_psql($db,
		"SET ROLE route_op; SELECT petagen.start($rows, \"table\" => '$table',"
		  . " chunk_rows => $chunk_rows, method => 'leaf', $args)");
}

# Wait until the one worker of $job in $db is held by petagen.debug_pause.
sub wait_held
{
	my ($db, $job) = @_;
	$node->poll_query_until($db,
		"SELECT count(*) = 1 FROM petagen.status_workers($job)"
		  . " WHERE worker IS NOT NULL AND reason LIKE 'petagen.debug_pause:%'")
	  or die "job $job in $db is not held by petagen.debug_pause";
}

# Rows of $table in $db in a leaf whose hash partition bound rejects them.
sub rows_off_partition
{
	my ($db, $table) = @_;
	return $node->safe_psql($db, qq{
SELECT count(*) FROM $table t JOIN
  (SELECT c.oid, regexp_match(pg_get_expr(c.relpartbound, c.oid),
                              'modulus (\\d+), remainder (\\d+)')::int[] AS b
     FROM pg_partition_tree('$table') p JOIN pg_class c ON c.oid = p.relid
    WHERE p.isleaf) l ON l.oid = t.tableoid
 WHERE NOT satisfies_hash_partition('$table'::regclass, l.b[1], l.b[2], t.ycsb_key)});
}

# The exactly-once checks of leaf job $job on $table in database postgres.
sub check_exact
{
	my ($job, $table, $what) = @_;
	check_load_exact($node, $job, $table, $rows, $what);
	is(rows_off_partition('postgres', $table), '0',
		"$what: every row is in the partition PostgreSQL routes it to");
	is(routing_files($node, $job), '0', "$what: the routing files are removed");
}

# Does path $rel (relative to the data directory) exist?
sub exists_in_pgdata
{
	my ($rel) = @_;
	return -e "$pgdata/$rel" ? 1 : 0;
}

# ---- One crash interrupts job 1 of databases other, third and fourth.
set_debug_pause($node, 'before_commit:0');
my %held;
for my $db (qw(other third fourth))
{
	# other key options than the default: their routing differs
	$held{$db} = start_as_op($db, 'held', "workers => 1, prefix => 'alt'");
	is($held{$db}, '1', "$db: the held job is job 1 of its database");
	wait_held($db, $held{$db});
	is(routing_files($node, $held{$db}, $db), '2', "$db: both ranges are routed");
}
my $pid = $node->safe_psql('other', "SELECT pid FROM petagen.status_workers(1) WHERE worker = 0");
ok(kill('KILL', $pid), 'crash: SIGKILL sent to a worker');
ok(poll_after_crash($node, 'SELECT 1', '1'), 'crash: the server is back');
for my $db (qw(other third fourth))
{
	$node->poll_query_until($db,
		"SELECT state = 'interrupted' FROM petagen.status(1)")
	  or die "job 1 of $db is not interrupted";
	is(routing_files($node, 1, $db), '2', "crash: $db: the interrupted job keeps its files");
}
set_debug_pause($node, '');

# ---- (a) Job 1 of database postgres, beside job 1 of database other.
my $job_a = start_as_op('postgres', 'two_dbs', 'workers => 2');
is($job_a, '1', 'two databases: the job is job 1 of postgres too');
check_exact($job_a, 'two_dbs', 'two databases');
is(routing_files($node, 1, 'other'), '2',
	"two databases: other's job 1 keeps its files");

# ---- (d) A stale file in the routing phase: routed again by resume().
my $dir_other = routing_dir($node, 1, 'other');
copy("$pgdata/$dir_other/range.0", "$pgdata/$dir_other/range.1")
  or die "could not plant a stale routing file: $!";
is($node->safe_psql('other', 'SET ROLE route_op; SELECT petagen.resume(1)'),
	'1', 'stale file: resume() returns the job');
is($node->safe_psql('other', "SELECT petagen.wait(1, '180s')"),
	'done', 'stale file: the job is done');
is( $node->safe_psql('other',
		"SELECT count(*), count(DISTINCT ycsb_key) FROM held"),
	"$rows|$rows", 'stale file: every key once');
is( $node->safe_psql('other',
		"SELECT count(*) FROM held h FULL JOIN petagen.rows(NULL::held, 0, $rows,"
		  . " prefix => 'alt') r USING (ycsb_key) WHERE h IS NULL OR r IS NULL"),
	'0', 'stale file: exactly the keys of its own key options');
is(rows_off_partition('other', 'held'), '0',
	'stale file: every row is in the partition PostgreSQL routes it to');
is(routing_files($node, 1, 'other'), '0', 'stale file: done removes the files');

# ---- (d) A foreign file while a leaf is written: refused, the job fails.
set_debug_pause($node, 'before_commit:0');
my $job_d = start_as_op('postgres', 'planted', 'workers => 1');
wait_held('postgres', $job_d);
my $dir_d = routing_dir($node, $job_d);
my $dir_third = routing_dir($node, 1, 'third');
copy("$pgdata/$dir_third/range.1", "$pgdata/$dir_d/range.1")
  or die "could not plant a foreign routing file: $!";
set_debug_pause($node, '');
is($node->safe_psql('postgres', "SELECT petagen.wait($job_d, '180s')"),
	'failed', 'foreign file: the job fails');
like(
	$node->safe_psql('postgres', "SELECT last_error FROM petagen.jobs WHERE job = $job_d"),
	qr{^routing file "\Q$dir_d\E/range\.1" is not the current routing of load job $job_d$},
	'foreign file: the error names the file');
is(routing_files($node, $job_d), '0', 'foreign file: failed removes the files');
is($node->safe_psql('postgres', "SET ROLE route_op; SELECT petagen.resume($job_d)"),
	$job_d, 'foreign file: resume() returns the job');
check_exact($job_d, 'planted', 'foreign file, resumed');

# ---- (c) DROP EXTENSION; a dropped database; the layout before tokens.
my $oid_third = $node->safe_psql('postgres', "SELECT oid FROM pg_database WHERE datname = 'third'");
my $oid_fourth = $node->safe_psql('postgres', "SELECT oid FROM pg_database WHERE datname = 'fourth'");
$node->safe_psql('third', 'BEGIN; DROP EXTENSION petagen; ROLLBACK');
is(routing_files($node, 1, 'third'), '2', 'drop extension: a rolled back drop keeps the files');
$node->safe_psql('third', 'DROP EXTENSION petagen');
is(exists_in_pgdata("pg_petagen/$oid_third"), 0,
	"drop extension: the database's routing directory is removed");
$node->safe_psql('postgres', 'DROP DATABASE fourth');
is(exists_in_pgdata("pg_petagen/$oid_fourth"), 1,
	"drop database: the directory stays until a start()");
# the layout before tokens: pg_petagen/<job>/range.<n>
mkdir("$pgdata/pg_petagen/77777");
open(my $fh, '>', "$pgdata/pg_petagen/77777/range.0") or die $!;
close($fh);
my $oid_postgres = $node->safe_psql('postgres', "SELECT oid FROM pg_database WHERE datname = 'postgres'");
open($fh, '>', "$pgdata/pg_petagen/$oid_postgres/range.0") or die $!;
close($fh);
my $job_s = start_as_op('postgres', 'stopped', 'workers => 1, disk_reserve => \'1000 PB\', force => true');
$node->poll_query_until('postgres',
	"SELECT reason LIKE 'disk reserve:%' FROM petagen.status_workers($job_s) WHERE worker = 0")
  or die "job $job_s does not wait for the disk reserve";
is(routing_files($node, $job_s), '0',
	'disk reserve: routing waits for room before writing a file');
is(exists_in_pgdata("pg_petagen/$oid_fourth"), 0,
	"start(): the directory of a dropped database is swept");
is(exists_in_pgdata("pg_petagen/77777"), 0,
	"start(): a job directory of the layout before tokens is swept");
is(exists_in_pgdata("pg_petagen/$oid_postgres/range.0"), 0,
	"start(): a range file of the layout before tokens is swept");
is($node->safe_psql('postgres', "SET ROLE route_op; SELECT petagen.stop($job_s)"),
	'stopped', 'stop: the job is stopped');

# A stopped job's files are removed: hold one after routing, then stop it.
set_debug_pause($node, 'before_commit:0');
my $job_t = start_as_op('postgres', 'stopped2', 'workers => 1');
wait_held('postgres', $job_t);
is(routing_files($node, $job_t), '2', 'stop: the files are there while it runs');
is($node->safe_psql('postgres', "SET ROLE route_op; SELECT petagen.stop($job_t)"),
	'stopped', 'stop: stop() returns stopped');
is(routing_files($node, $job_t), '0', 'stop: stopped removes the files');
set_debug_pause($node, '');

# ---- (b) A failed job 1, DROP EXTENSION; CREATE EXTENSION: a new job 1.
$node->safe_psql('postgres', 'DROP EXTENSION petagen; CREATE EXTENSION petagen');
new_table('postgres', 'failing');
$node->safe_psql('postgres', "INSERT INTO failing (ycsb_key) VALUES ('x')");
my $job_f = $node->safe_psql('postgres',
	"SET ROLE route_op; SELECT petagen.start($rows, 2, 'failing', prefix => 'alt',"
	  . " chunk_rows => $chunk_rows, method => 'leaf', force => true)");
is($job_f, '1', 'drop and create: the failing job is job 1');
is($node->safe_psql('postgres', "SELECT petagen.wait($job_f, '180s')"),
	'failed', 'drop and create: the job fails (a leaf holds a row)');
is(routing_files($node, $job_f), '0', 'drop and create: failed removes the files');
$node->safe_psql('postgres', 'DROP EXTENSION petagen; CREATE EXTENSION petagen');
my $job_b = start_as_op('postgres', 'recreated', 'workers => 2');
is($job_b, '1', 'drop and create: the new job is job 1 again');
check_exact($job_b, 'recreated', 'drop and create');

$node->stop;
done_testing();
