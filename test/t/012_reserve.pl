# The disk reserve: raising petagen.disk_reserve above the free space
# pauses a running load (status says why, no rows are committed while
# paused); resetting it lets the job finish, exactly.  The setting is a
# floor: a job's disk_reserve => '0' does not lower it.
#
# With PETAGEN_TEST_TMPFS set to a directory on a small (416 MB) tmpfs
# owned by the OS user running the tests, with tablespaces there: a load
# that writes far less than the few hundred MB free above the reserve loads
# (its workers ask only for what their next chunks write there); a leaf
# job routes its keys while the tablespace is below the reserve (routing
# writes only the data directory), then pauses naming the tablespace; and a
# load larger than the room above the reserve pauses before it instead of
# filling the filesystem.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $rows = 1500000;

my $node = usertable_node('reserve');

# Let chunks 0 and 1 commit and hold the workers before chunks 2 and 3
# (petagen.debug_pause), so that the reserve is raised mid-load on any
# machine.
set_debug_pause($node, 'before_chunk:2');
my $job = $node->safe_psql('postgres',
	qq{SELECT petagen.start($rows, workers => 2, "table" => 'usertable', chunk_rows => 20000,
	method => 'chunk')}
);
wait_for_debug_pause($node, $job, 2);

# A reserve larger than any disk (100 TB, the GUC is in MB), and the
# workers released, in one reload.  Before 17, ALTER SYSTEM knows a custom
# setting only once its module is loaded.
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	"LOAD 'petagen'; ALTER SYSTEM SET petagen.disk_reserve = 100000000;"
	  . " ALTER SYSTEM SET petagen.debug_pause = ''");
is($ret, 0, 'ALTER SYSTEM SET petagen.disk_reserve is accepted')
  or diag $stderr;
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
ok( $node->poll_query_until(
		'postgres',
		"SELECT state, reason ~ 'disk reserve'"
		  . " FROM petagen.status($job)",
		'paused|t'),
	'after the reload status shows the job paused for the disk reserve');
ok( $node->poll_query_until(
		'postgres',
		"SELECT count(*) FROM petagen.status_workers($job)"
		  . " WHERE worker IS NOT NULL AND state = 'paused'",
		'2'),
	'both workers are paused');
my $count1 = $node->safe_psql('postgres', 'SELECT count(*) FROM usertable');
sleep 3;
my $count2 = $node->safe_psql('postgres', 'SELECT count(*) FROM usertable');
sleep 3;
my $count3 = $node->safe_psql('postgres', 'SELECT count(*) FROM usertable');
ok($count1 == $count2 && $count2 == $count3,
	"while paused the row count does not grow ($count1, $count2, $count3)");
is($count3, 40000, 'the job was paused mid-load, after chunks 0 and 1');

$node->safe_psql('postgres',
	"LOAD 'petagen'; ALTER SYSTEM RESET petagen.disk_reserve");
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
wait_done($node, $job, 'after the reserve is reset the job finishes');
is( $node->safe_psql(
		'postgres',
		"SELECT count(*), count(*) FILTER (WHERE ok), sum(present)"
		  . " FROM petagen.verify(${job}::bigint)"),
	"8|8|$rows",
	'verify() is ok on every leaf');
is( $node->safe_psql(
		'postgres',
		"SELECT s.state, w.done FROM petagen.status($job) s, petagen.status_details($job) w"
		  . " WHERE w.worker IS NULL AND w.phase = 'loading'"),
	"done|$rows",
	'status shows the job done');

# petagen.disk_reserve is a floor: a job's disk_reserve => '0' cannot
# lower it.  check() shows the reserve in force, and the workers pause at
# it.
$node->safe_psql('postgres', "SELECT petagen.create_table('floor')");
set_setting($node, 'disk_reserve', '100000000MB');
is( $node->safe_psql(
		'postgres',
		"SELECT bool_and(severity = 'error' AND detail ~ 'disk reserve keeps 95 TB')"
		  . " FROM petagen.check_details(100000, 1, 'floor', disk_reserve => '0')"
		  . " WHERE finding LIKE 'space:%'"),
	't',
	'check() with disk_reserve => 0 shows the setting\'s reserve, an error');
my $fjob = $node->safe_psql('postgres',
	q{SELECT petagen.start(100000, 1, 'floor', disk_reserve => '0', force => true,
	  method => 'chunk')});
ok( $node->poll_query_until(
		'postgres',
		"SELECT state, reason ~ 'reserve 100000000 MB'"
		  . " FROM petagen.status_details($fjob) WHERE worker IS NULL AND phase = 'loading'",
		'paused|t'),
	'a job with disk_reserve => 0 pauses at the setting\'s reserve');
is($node->safe_psql('postgres', 'SELECT count(*) FROM floor'),
	'0', 'nothing is written past the setting\'s reserve');
is($node->safe_psql('postgres', "SELECT petagen.stop($fjob)"),
	'stopped', 'the paused job stops');
set_setting($node, 'disk_reserve', '1GB');

SKIP:
{
	my $tmpfs = $ENV{PETAGEN_TEST_TMPFS};
	skip 'PETAGEN_TEST_TMPFS is not set: no small filesystem to fill '
	  . '(scripts/test.sh prepares one when run as root)', 17
	  unless defined $tmpfs && $tmpfs ne '';

	# A fresh, empty directory for the tablespace.
	my $dir = "$tmpfs/ts_reserve_$$";
	mkdir $dir or die "could not create $dir: $!";
	$node->safe_psql('postgres', "CREATE TABLESPACE small LOCATION '$dir'");
	my $log_offset = -s $node->logfile;

	# 1. A few hundred MB free above an 8 MB reserve, and a load of 400,000
	# narrow rows (10-character fields) into a table on it: about 90 MB in
	# all, 3 workers writing chunks of 100,000 keys.  Asking every worker
	# for 1,200 bytes per key and half again (540 MB in all), whatever the
	# rows, held such a load paused at 0 rows for ever.
	set_setting($node, 'disk_reserve', '8MB');
	$node->safe_psql('postgres',
		"SELECT petagen.create_table('narrow', 1, ARRAY['small'], fieldlength => 10)");
	my $room = $node->safe_psql('postgres',
		"SELECT pg_size_bytes(substring(detail FROM '; (.*) are free and'))"
		  . " - 8 * 1024 * 1024 FROM petagen.check_details(400000, 3, 'narrow', fieldlength => 10,"
		  . " chunk_rows => 100000, disk_reserve => '8MB', method => 'chunk')"
		  . " WHERE object = 'small'");
	ok($room > 300e6 && $room < 1.5 * 100000 * 1200 * 3,
		"a few hundred MB are free above the reserve ($room bytes), less than"
		  . " 1,200 bytes per key and half again for 3 chunks");
	is( $node->safe_psql(
			'postgres',
			"SELECT string_agg(severity, ',') FROM petagen.check(400000, 3, 'narrow',"
			  . " fieldlength => 10, chunk_rows => 100000, disk_reserve => '8MB', method => 'chunk')"
			  . " WHERE finding LIKE 'space:%' AND object = 'small'"),
		'info',
		'check() finds the load fits the tablespace');
	my $njob = $node->safe_psql('postgres',
		q{SELECT petagen.start(400000, workers => 3, "table" => 'narrow', fieldlength => 10,}
		  . q{ chunk_rows => 100000, disk_reserve => '8MB', method => 'chunk')});
	wait_done($node, $njob, 'the load of far less than the room above the reserve is done', '180s');
	is( $node->safe_psql(
			'postgres',
			"SELECT count(*), count(*) FILTER (WHERE ok), sum(present)"
			  . " FROM petagen.verify(${njob}::bigint)"),
		'1|1|400000',
		'verify() is ok');
	$node->safe_psql('postgres', 'DROP TABLE narrow');

	# 2. A leaf job on a tablespace below its reserve (1 GB, more than the
	# tmpfs holds) routes its keys (files in the data directory only), then
	# pauses before the leaf, naming the tablespace.
	$node->safe_psql('postgres',
		"SELECT petagen.create_table('leafy', 2, ARRAY['small'])");
	my $ljob = $node->safe_psql('postgres',
		q{SELECT petagen.start(100000, workers => 1, "table" => 'leafy', chunk_rows => 25000,}
		  . q{ disk_reserve => '1GB', force => true, method => 'leaf')});
	ok( $node->poll_query_until(
			'postgres',
			"SELECT state, phase FROM petagen.status($ljob)",
			'paused|loading'),
		'the leaf job routes all its keys and pauses before its first leaf');
	is( $node->safe_psql(
			'postgres',
			"SELECT done, total FROM petagen.status_details($ljob)"
			  . " WHERE worker IS NULL AND phase = 'routing'"),
		'4|4', 'every range is routed while the tablespace is below the reserve');
	like(
		$node->safe_psql('postgres',
			"SELECT reason FROM petagen.status_details($ljob)"
			  . " WHERE worker IS NULL AND reason <> ''"),
		qr/^disk reserve: \d+ MB free on tablespace "small", waiting for \d+ MB: reserve 1024 MB \+ \d+ MB for the next leaf$/,
		'the reason names the tablespace and what the next leaf needs above the reserve'
	);
	is($node->safe_psql('postgres', 'SELECT count(*) FROM leafy'),
		'0', 'no row of a leaf is written past the reserve');
	is($node->safe_psql('postgres', "SELECT petagen.stop($ljob)"),
		'stopped', 'the paused leaf job stops');
	$node->safe_psql('postgres', 'DROP TABLE leafy');

	# 3. About 240 MB of rows for about 32 MB free above the job's 384 MB
	# reserve: the preflight check refuses it (015_check), so force it to
	# see the workers pause.
	$node->safe_psql('postgres',
		"SELECT petagen.create_table('tiny', 1, ARRAY['small'])");
	my $tjob = $node->safe_psql('postgres',
		q{SELECT petagen.start(200000, workers => 2, "table" => 'tiny',}
		  . q{ chunk_rows => 10000, disk_reserve => '384MB', force => true,}
		  . q{ method => 'chunk')});
	ok( $node->poll_query_until(
			'postgres',
			"SELECT state FROM petagen.status($tjob)",
			'paused'),
		'a load larger than the room above the reserve pauses at the reserve');
	like(
		$node->safe_psql('postgres',
			"SELECT reason FROM petagen.status_details($tjob)"
			  . " WHERE worker IS NULL AND reason <> ''"),
		qr/^disk reserve: \d+ MB free on tablespace "small", waiting for \d+ MB: reserve 384 MB( \+ \d+ MB for the next (chunk|2 chunks))?$/,
		'the reason names the tablespace, the reserve and what the next chunks need');
	cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM tiny'),
		'>', 0, 'it loaded rows up to the reserve');
	my ($free) = $node->safe_psql('postgres',
		"SELECT pg_size_bytes(disk_headroom) FROM petagen.status_details($tjob)"
		  . " WHERE worker IS NULL AND disk_headroom IS NOT NULL"
	);
	ok(defined $free && $free ne '',
		"status shows the disk headroom while paused ($free bytes)");
	is($node->safe_psql('postgres', "SELECT petagen.stop($tjob)"),
		'stopped', 'the paused job stops');
	set_setting($node, 'disk_reserve', '1GB');
	$node->safe_psql('postgres', 'DROP TABLE tiny; DROP TABLESPACE small');
	pass('the tables and their tablespace are dropped');
	my $log = slurp_file($node->logfile, $log_offset);
	unlike($log, qr/No space left on device/,
		'the server log has no "No space left on device"');
	unlike($log, qr/PANIC/, 'the server log has no PANIC');
	rmdir $dir;
}

$node->stop;
done_testing();
