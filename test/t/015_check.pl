# The preflight check on real limits: too few background worker slots
# (max_worker_processes = 2), and, with PETAGEN_TEST_TMPFS set to a directory
# on a small (416 MB) tmpfs, a filesystem too small above the reserve for
# the estimate.  Each
# is an error finding of petagen.check(), and start() refuses the load with
# the same errcode unless force => true.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $node = PostgreSQL::Test::Cluster->new('check');
$node->init;
# The logical replication launcher takes one of the two slots.
$node->append_conf('postgresql.conf', 'max_worker_processes = 2');
$node->start;

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION petagen;
SELECT petagen.create_table('usertable', 4);
});

# Too few worker slots.
is( $node->safe_psql(
		'postgres',
		q{SELECT severity, object FROM petagen.check(1000, workers => 2)}
		  . q{ WHERE finding LIKE 'workers:%'}),
	'error|max_worker_processes',
	'check: two workers with max_worker_processes = 2 is an error');
like(
	$node->safe_psql(
		'postgres',
		q{SELECT detail FROM petagen.check_details(1000, workers => 2)}
		  . q{ WHERE finding LIKE 'workers:%'}),
	qr/^workers: 2 workers need 2 background worker slots, [01] of max_worker_processes \(2\) are free$/,
	'check: the finding says how many slots are free');
is( $node->safe_psql(
		'postgres',
		q{SELECT severity FROM petagen.check(1000, workers => 1)}
		  . q{ WHERE finding LIKE 'workers:%'}),
	'info',
	'check: one worker fits');
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	q{\set VERBOSITY verbose
SELECT petagen.start(1000, workers => 2)});
like($stderr, qr/ERROR:  53400: not enough free background worker slots for 2 workers/,
	'start: refused with 53400 for too few worker slots');
is($node->safe_psql('postgres', 'SELECT count(*) FROM petagen.jobs'),
	'0', 'start: no job row after the refusal');

SKIP:
{
	my $tmpfs = $ENV{PETAGEN_TEST_TMPFS};
	skip 'PETAGEN_TEST_TMPFS is not set: no small filesystem '
	  . '(scripts/test.sh prepares one when run as root)', 7
	  unless defined $tmpfs && $tmpfs ne '';

	my $dir = "$tmpfs/ts_check_$$";
	mkdir $dir or die "could not create $dir: $!";
	# The job's 384 MB reserve below, which leaves about 32 MB of the
	# tmpfs, is in force only with the DBA's reserve (a floor) lower.
	set_setting($node, 'disk_reserve', '8MB');
	$node->safe_psql(
		'postgres', qq{
CREATE TABLESPACE small LOCATION '$dir';
SELECT petagen.create_table('tiny', 2, ARRAY['small']);
});

	# About 240 MB of heap, indexes and WAL for about 32 MB above the
	# reserve.
	my $space = q{SELECT severity, object FROM petagen.check(200000, 1, 'tiny',}
	  . q{ disk_reserve => '384MB') WHERE finding LIKE 'space:%' ORDER BY object};
	my $rows = $node->safe_psql('postgres', $space);
	like($rows, qr/^error\|small$/m,
		'check: the tmpfs tablespace is too small for the estimate');
	like($rows, qr/^info\|pg_wal$/m,
		'check: pg_wal, in the data directory, has room for the WAL');

	# A load that fits (about 12 MB) is no error there.
	$space =~ s/200000/10000/;
	like($node->safe_psql('postgres', $space),
		qr/^info\|small$/m, 'check: a load that fits is no error');

	($ret, $stdout, $stderr) = $node->psql('postgres',
		q{\set VERBOSITY verbose
SELECT petagen.start(200000, 1, 'tiny', disk_reserve => '384MB')});
	like(
		$stderr,
		qr/ERROR:  53100: preflight check refuses the load of "tiny": space: /,
		'start: refused with 53100 for the small filesystem');
	like($stderr, qr/HINT:  Run SELECT \* FROM petagen\.check\(\.\.\.\)/,
		'start: the hint points to petagen.check()');

	# Forced, it runs and pauses at the reserve instead of filling the disk.
	my $job = $node->safe_psql('postgres',
		q{SELECT petagen.start(200000, 1, 'tiny', chunk_rows => 10000,}
		  . q{ disk_reserve => '384MB', force => true,}
		  . q{ method => 'chunk')});
	ok( $node->poll_query_until(
			'postgres',
			"SELECT state = 'paused' FROM petagen.status($job)"),
		'start with force: the job runs and pauses at the reserve');
	is($node->safe_psql('postgres', "SELECT petagen.stop($job)"),
		'stopped', 'start with force: the paused job stops');
	$node->safe_psql('postgres', 'DROP TABLE tiny; DROP TABLESPACE small');
	rmdir $dir;
}

$node->stop;
done_testing();
