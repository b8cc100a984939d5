# Inputs and contexts a hostile or careless caller can create, with workers
# and a standby: start() into a leaf partition writes only the leaf's own
# keys; verify(job) of a dropped table says so; DROP EXTENSION petagen, DROP
# SCHEMA petagen and DROP OWNED by its owner are refused while a job's
# workers run (held deterministically by the disk reserve), and so are DROP
# TABLE of the job's table or of one of its leaves, DROP SCHEMA of the
# table's schema and DROP OWNED by its owner; DROP TABLE and DROP EXTENSION
# work once they are stopped (resume() then says the table was dropped),
# and other DDL is not touched;
# on a hot standby every writing entry point refuses with SQLSTATE 25006.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

skip_unless_contrib('pgstattuple');

my $node = PostgreSQL::Test::Cluster->new('primary');
$node->init(allows_streaming => 1);
$node->start;
$node->safe_psql('postgres', q{CREATE EXTENSION petagen; SELECT petagen.create_table('usertable');});

# 1. start() into one leaf of an 8-way hash table: only the keys
# PostgreSQL routes to that leaf, and the rest counted as skipped.
my $job = $node->safe_psql('postgres',
	q{SELECT petagen.start(5000, workers => 2, "table" => 'usertable_p3', chunk_rows => 1000)});
wait_done($node, $job, 'the leaf job finishes');
is( $node->safe_psql(
		'postgres',
		q{SELECT count(*), count(*) FILTER (WHERE NOT
		    satisfies_hash_partition('usertable'::regclass, 8, 3, ycsb_key))
		  FROM usertable_p3}),
	$node->safe_psql(
		'postgres',
		q{SELECT count(*) || '|0' FROM petagen.rows(NULL::usertable, 0, 5000) r
		  WHERE petagen.leaf('usertable', r.ycsb_key) = 'usertable_p3'::regclass}),
	'the leaf holds exactly its own keys of the key space, none of another leaf');
is($node->safe_psql('postgres', 'SELECT count(*) FROM usertable WHERE tableoid <> \'usertable_p3\'::regclass'),
	'0', 'no other leaf was written');
is( $node->safe_psql(
		'postgres',
		"SELECT sum(keys), sum(rows_written) + sum(foreign_skipped) FROM petagen.chunks WHERE job = $job"),
	'5000|5000',
	'the ledger counts every key, written or skipped');
is( $node->safe_psql(
		'postgres', "SELECT bool_and(ok), count(*) FROM petagen.verify($job)"),
	't|1', 'verify(job) on the leaf: its keys all present, nothing extra');

# 2. verify(job) after the job's table was dropped.
$node->safe_psql('postgres', ycsb_table_sql('dropme'));
my $job2 = $node->safe_psql('postgres',
	q{SELECT petagen.start(100, workers => 1, "table" => 'dropme')});
wait_done($node, $job2, 'the small job finishes');
$node->safe_psql('postgres', 'DROP TABLE dropme');
my ($ret, $err) = try_sql($node, "SELECT * FROM petagen.verify($job2)");
like($err, qr/42P01: the table of load job $job2 was dropped/,
	'verify(job) of a dropped table: 42P01 naming the job');

# 3. DROP EXTENSION while a job's workers run.  A disk reserve larger than
# any disk holds the workers paused before their first chunk.
$node->safe_psql('postgres', q{SELECT petagen.create_table('held')});
my $held = $node->safe_psql('postgres',
	q{SELECT petagen.start(100000, workers => 2, "table" => 'held',
	  disk_reserve => '1000 TB', force => true)});
$node->poll_query_until('postgres',
	"SELECT state = 'paused' FROM petagen.status($held)")
  or die "job $held did not pause";
($ret, $err) = try_sql($node, 'DROP EXTENSION petagen');
isnt($ret, 0, 'DROP EXTENSION petagen is refused while workers run');
like($err,
	qr/55006: cannot drop extension petagen while load job $held is running/,
	'with 55006 naming the job');
like($err, qr/HINT:  Stop it with petagen.stop\($held\)/, 'and a hint to stop it');
# The other statements that would drop the extension: DROP SCHEMA of its
# schema (CASCADE or not) and DROP OWNED by its owner (here the bootstrap
# superuser, whose DROP OWNED PostgreSQL refuses later with 2BP01: the
# guard comes first).
for my $drop ('DROP SCHEMA petagen CASCADE', 'DROP SCHEMA petagen',
	'DROP SCHEMA IF EXISTS nosuch, petagen CASCADE', 'DROP OWNED BY CURRENT_USER')
{
	($ret, $err) = try_sql($node, $drop);
	like($err,
		qr/55006: cannot drop extension petagen while load job $held is running.*DETAIL:  DROP (SCHEMA|OWNED) would drop extension petagen/s,
		"$drop is refused with 55006 while workers run");
}
# DROP SCHEMA and DROP OWNED of other objects are not affected
$node->safe_psql('postgres',
	'CREATE ROLE other_owner; CREATE SCHEMA other_s AUTHORIZATION other_owner;'
	  . ' DROP OWNED BY other_owner; DROP SCHEMA IF EXISTS other_s CASCADE; DROP ROLE other_owner');
pass('DROP OWNED and DROP SCHEMA of other objects work meanwhile');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_extension WHERE extname = 'petagen'"),
	'1', 'the extension is still there');
is($node->safe_psql('postgres',
		"SELECT state FROM petagen.status($held)"),
	'paused', 'and the job still runs');
# other DDL, including dropping another extension, is not affected
$node->safe_psql('postgres',
	'CREATE EXTENSION pgstattuple; DROP EXTENSION pgstattuple; CREATE TABLE other_ddl (a int); DROP TABLE other_ddl');
pass('other DDL and DROP EXTENSION of another extension work meanwhile');
# The job's table, one of its leaves, or the schema holding it
$node->safe_psql('postgres',
	q{CREATE SCHEMA held_s; SELECT petagen.create_table('held_s.other')});
for my $drop ('DROP TABLE held', 'DROP TABLE IF EXISTS nosuch, held_p3 CASCADE',
	'DROP TABLE held_s.other, public.held', 'DROP SCHEMA public CASCADE')
{
	($ret, $err) = try_sql($node, $drop);
	like($err,
		qr/55006: cannot drop table "held" while load job $held is running.*DETAIL:  DROP (TABLE|SCHEMA) would drop table "held", which the job's workers write into\..*HINT:  Stop it with petagen.stop\($held\)/s,
		"$drop is refused with 55006 naming the table and the job");
}
$node->safe_psql('postgres', 'DROP TABLE held_s.other; DROP SCHEMA held_s');
pass('DROP TABLE and DROP SCHEMA of other tables work meanwhile');
$node->safe_psql('postgres', 'CREATE ROLE tabowner; ALTER TABLE held OWNER TO tabowner');
like(error_of($node, 'DROP OWNED BY tabowner'),
	qr/^55006: cannot drop table "held" while load job $held is running/,
	'DROP OWNED BY the table\'s owner is refused too');
like(error_of($node, 'DROP OWNED BY nosuch_role'),
	qr/^42704: role "nosuch_role" does not exist/,
	'DROP OWNED BY a role that does not exist fails as it would');
$node->safe_psql('postgres', 'ALTER TABLE held OWNER TO CURRENT_USER; DROP ROLE tabowner');
is($node->safe_psql('postgres', 'SELECT count(*) FROM held'),
	'0', 'the table is still there');
is($node->safe_psql('postgres', "SELECT petagen.stop($held)"),
	'stopped', 'the job stops');
$node->safe_psql('postgres', 'DROP TABLE held');
pass('once it is stopped DROP TABLE of its table works');
like(error_of($node, "SELECT petagen.resume($held)"),
	qr/^42P01: the table of load job $held was dropped/,
	'and resume() of the job says its table was dropped (42P01)');
($ret, $err) = try_sql($node, 'DROP EXTENSION petagen');
is($ret, 0, 'with no worker running DROP EXTENSION petagen works') or diag $err;
# 0.1 updated to 0.2 gets the same guard as a fresh 0.2
$node->safe_psql('postgres',
	"CREATE EXTENSION petagen VERSION '0.1'; ALTER EXTENSION petagen UPDATE TO '0.2'");
is( $node->safe_psql(
		'postgres', q{SELECT evtevent, evttags::text FROM pg_event_trigger e
		  JOIN pg_depend d ON d.classid = 'pg_event_trigger'::regclass AND d.objid = e.oid
		  JOIN pg_extension x ON x.oid = d.refobjid AND x.extname = 'petagen'}),
	'ddl_command_start|{"DROP EXTENSION","DROP SCHEMA","DROP OWNED","DROP TABLE"}',
	'ALTER EXTENSION UPDATE adds the guard of every DROP of petagen and of a job\'s table, as a member');

# 4. A hot standby: every writing entry point refuses as PostgreSQL does.
$node->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($node, 'b', has_streaming => 1);
$standby->start;
$node->wait_for_catchup($standby);
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'),
	't', 'the standby is in recovery');
for my $case (
	[ 'petagen.load()',   q{SELECT * FROM petagen.load('usertable', 0, 10)} ],
	[ 'petagen.start()',  q{SELECT petagen.start(10, 1, 'usertable')} ],
	[ 'petagen.resume()', "SELECT petagen.resume($job)" ],
	[ 'petagen.stop()',   "SELECT petagen.stop($job)" ],
	[ 'petagen.create_table()', q{SELECT petagen.create_table('t2', 2)} ],
	[ 'petagen.bench()',  q{SELECT * FROM petagen.bench('select', 1, '1s', '0s', 'usertable', rows => 10)} ])
{
	my ($fn, $sql) = @$case;
	($ret, $err) = try_sql($standby, $sql);
	like($err,
		qr/25006: cannot execute \Q$fn\E in a read-only transaction/,
		"$fn on a hot standby: 25006");
}
is($standby->safe_psql('postgres', 'SELECT count(*) FROM petagen.rows(NULL::usertable, 0, 10)'),
	'10', 'reading functions work on the standby');

$standby->stop;
$node->stop;
done_testing();
