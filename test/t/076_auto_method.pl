# method => 'auto' (start()'s default) taking the leaf method for real: into
# an empty 8-leaf table it says so in a NOTICE, records it in petagen.jobs,
# and the load is exact and frozen as a leaf load's.  Taking the leaf method
# at start() weakens none of its checks: a worker held by petagen.debug_pause
# before its first leaf, a session commits a row into that leaf, and the
# worker's own emptiness check (under the leaf's lock, with a fresh
# snapshot) fails the job and keeps the row, as with method => 'leaf'.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

skip_unless_contrib(qw(pg_visibility amcheck));

my $rows = 100000;

my $node = PostgreSQL::Test::Cluster->new('auto');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\n");
$node->start;
$node->safe_psql('postgres',
	'CREATE EXTENSION petagen; CREATE EXTENSION pg_visibility; CREATE EXTENSION amcheck');

# (a) auto into an empty partitioned table: the leaf method, said and kept.
$node->safe_psql('postgres', "SELECT petagen.create_table('auto_a')");
my ($ret, $job_a, $notice) = $node->psql('postgres',
	"SELECT petagen.start($rows, workers => 2, \"table\" => 'auto_a')");
is($ret, 0, 'auto: start() succeeds');
like(
	$notice,
	qr/NOTICE:  load job $job_a uses the leaf method: every local leaf is empty and role "\w+" may truncate them/,
	'auto: start() says it takes the leaf method, and why');
is( $node->safe_psql('postgres',
		"SELECT method, method_reason LIKE 'every local leaf is empty%' FROM petagen.jobs WHERE job = $job_a"),
	'leaf|t', 'auto: the catalog keeps the leaf method and why');
check_load_exact($node, $job_a, 'auto_a', $rows, 'auto');
is( $node->safe_psql('postgres',
		"SELECT count(*), count(DISTINCT leaf) FROM petagen.chunks WHERE job = $job_a"),
	'8|8', 'auto: the ledger holds each leaf once, as a leaf job\'s does');
is(rows_off_frozen_pages($node, 'auto_a'), '0', 'auto: every row is on an all-frozen page');

# (b) a row committed into a leaf after start() chose the leaf method, before
# the worker writes that leaf: the worker refuses it and keeps the row.
$node->safe_psql('postgres', "SELECT petagen.create_table('auto_b')");
set_debug_pause($node, 'before_chunk:0');
my $job_b = $node->safe_psql('postgres', "SELECT petagen.start($rows, 1, 'auto_b')");
is($node->safe_psql('postgres', "SELECT method FROM petagen.jobs WHERE job = $job_b"),
	'leaf', 'late row: auto took the leaf method for the empty table');
wait_for_debug_pause($node, $job_b, 1);
$node->safe_psql('postgres',
	"INSERT INTO auto_b_p0 (ycsb_key) SELECT k FROM (SELECT 'late' || g AS k"
	  . " FROM generate_series(1, 100) g) s"
	  . " WHERE satisfies_hash_partition('auto_b'::regclass, 8, 0, k::varchar(64)) LIMIT 1");
set_debug_pause($node, '');
is($node->safe_psql('postgres', "SELECT petagen.wait($job_b, '180s')"),
	'failed', 'late row: the job fails');
is($node->safe_psql('postgres', "SELECT last_error FROM petagen.jobs WHERE job = $job_b"),
	'leaf "auto_b_p0" is not empty', 'late row: the worker refuses the leaf that got a row');
is( $node->safe_psql('postgres',
		"SELECT count(*) FROM auto_b_p0 WHERE ycsb_key LIKE 'late%'"),
	'1', 'late row: the row is still there');
is($node->safe_psql('postgres', "SELECT count(*) FROM petagen.chunks WHERE job = $job_b"),
	'0', 'late row: no leaf was written');

$node->stop;
done_testing();
