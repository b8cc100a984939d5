# What a DBA runs in psql fits a 120-column terminal: SELECT * of status(),
# status_workers(), bench_status(), check(), verify(), bench(),
# bench_sweep() and the bench_runs view, printed by psql in its default
# aligned format, with the content of a real load: a job throttled by
# max_rate, one paused at the disk reserve (the longest reason there is),
# one done, a benchmark going on, the findings of a table that holds keys
# and of hash sub-partitions.  check_details() and status_details() are the
# wide ones, for \x and scripts.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $node = PostgreSQL::Test::Cluster->new('widths');
$node->init;
$node->append_conf('postgresql.conf', 'max_worker_processes = 16');
$node->start;
$node->safe_psql('postgres', q{CREATE EXTENSION petagen;
SELECT petagen.create_table('usertable', 8);
SELECT petagen.create_table('archive', 8);
SELECT petagen.create_table('reserved', 8);});

# The widest line psql prints for sql in its default (aligned) format.
sub widest
{
	my ($sql) = @_;
	my ($stdout, $stderr) = run_command(
		[ 'psql', '-X', '-P', 'pager=off', '-d', $node->connstr('postgres'), '-c', $sql ]);
	is($stderr, '', "$sql: no error");
	my $max = 0;
	for my $line (split /\n/, $stdout)
	{
		$max = length($line) if length($line) > $max;
	}
	note("$sql:\n$stdout");
	return $max;
}

# Assert that SELECT * FROM what fits 120 columns.
sub fits
{
	my ($what) = @_;
	my $width = widest("SELECT * FROM $what");
	cmp_ok($width, '<=', 120, "SELECT * FROM $what is $width columns wide");
}

# A finished job, a throttled one, one paused at the reserve.
my $done = $node->safe_psql('postgres', 'SELECT petagen.start(100000, workers => 2)');
wait_done($node, $done, 'a job done');
my $throttled = $node->safe_psql('postgres',
	q{SELECT petagen.start(1e7, workers => 2, "table" => 'archive', max_rate => '1MB', method => 'chunk')});
my $paused = $node->safe_psql('postgres',
	q{SELECT petagen.start(1e6, workers => 1, "table" => 'reserved', disk_reserve => '1000TB',
	  force => true, method => 'chunk')});
ok( $node->poll_query_until(
		'postgres',
		"SELECT string_agg(state, ',' ORDER BY job) FROM petagen.status()",
		'done,throttled,paused'),
	'status(): one job done, one throttled, one paused');
cmp_ok(
	length($node->safe_psql('postgres',
		"SELECT reason FROM petagen.status_details($paused) WHERE worker = 0")),
	'>', 24, 'the reserve\'s reason is longer than status() shows');

fits('petagen.status()');
fits("petagen.status_workers($throttled)");
fits("petagen.status_workers($paused)");
is($node->safe_psql('postgres', "SELECT petagen.stop($throttled)"), 'stopped', 'throttled job stopped');
is($node->safe_psql('postgres', "SELECT petagen.stop($paused)"), 'stopped', 'paused job stopped');

# check(): keys already there (the done job's), and hash sub-partitions
# with their parent's modulus.
fits('petagen.check(1e6)');
fits(q{petagen.check(1e9, workers => 8, "table" => 'archive', method => 'leaf')});
$node->safe_psql('postgres', q{
CREATE TABLE hh (ycsb_key text PRIMARY KEY, field0 text) PARTITION BY HASH (ycsb_key);
SELECT format('CREATE TABLE hh_%s PARTITION OF hh FOR VALUES WITH (MODULUS 4, REMAINDER %s)'
              ' PARTITION BY HASH (ycsb_key)', i, i) FROM generate_series(0, 3) i \gexec
SELECT format('CREATE TABLE hh_%s_%s PARTITION OF hh_%s FOR VALUES WITH (MODULUS 4, REMAINDER %s)',
              i, j, i, j) FROM generate_series(0, 3) i, generate_series(0, 3) j \gexec});
is( $node->safe_psql('postgres',
		q{SELECT count(*) FROM petagen.check(2e6, "table" => 'hh') WHERE finding ~ '^leaves: 12 of 16 get no keys'}),
	'1', 'check(): hash 4 under hash 4 leaves 12 of 16 leaves without keys');
fits(q{petagen.check(2e6, "table" => 'hh')});

fits("petagen.verify($done)");

# A benchmark going on, then finished runs.
my $caller = $node->background_psql('postgres', on_error_stop => 0);
my $pid = $caller->query_safe('SELECT pg_backend_pid()');
$caller->query_until(qr/started/,
	"\\echo started\nSELECT id FROM petagen.bench('ycsb-a', workers => 2, duration => '10 min',"
	  . " target_rate => 1000);\n");
ok($node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM petagen.bench_status() WHERE phase = 'measuring' AND operations > 0"),
	'a benchmark goes on');
fits('petagen.bench_status()');
$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
$caller->quit;

fits(q{petagen.bench('ycsb-a', workers => 2, duration => '1 s')});
fits(q{petagen.bench_sweep('select', workers => '{1,2}', duration => '1 s')});
fits('petagen.bench_runs');

done_testing();
