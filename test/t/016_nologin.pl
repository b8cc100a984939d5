# A role without LOGIN (a group role, reached with SET ROLE) starting a load
# and a benchmark.  The workers connect as the caller: before PostgreSQL 17 a
# background worker cannot connect as a NOLOGIN role, so start() and bench()
# refuse it up front and nothing is started; from 17 on the workers bypass
# that check (BGWORKER_BYPASS_ROLELOGINCHECK) and both run to the end.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $rows = 20000;

my $node = PostgreSQL::Test::Cluster->new('nologin');
$node->init;
$node->append_conf('postgresql.conf', "max_worker_processes = 16\n");
$node->start;
my $version = $node->safe_psql('postgres', 'SHOW server_version_num');
$node->safe_psql('postgres', q{
CREATE EXTENSION petagen;
SELECT petagen.create_table('usertable');
CREATE ROLE loaders NOLOGIN IN ROLE petagen_operator;
GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO loaders;
});

my ($rc, $out, $err) = $node->psql('postgres',
	"SET ROLE loaders; SELECT petagen.start($rows, workers => 2)");
if ($version < 170000)
{
	isnt($rc, 0, "$version: start() as a NOLOGIN role fails");
	like($err, qr/role "loaders" cannot log in, so petagen workers cannot run as it/,
		"$version: start() says why");
	($rc, $out, $err) = $node->psql('postgres',
		"SET ROLE loaders; SELECT id FROM petagen.bench('select', duration => '1 s', rows => $rows)");
	like($err, qr/role "loaders" cannot log in/, "$version: so does bench()");
	is( $node->safe_psql('postgres',
			'SELECT (SELECT count(*) FROM petagen.jobs) + (SELECT count(*) FROM petagen.bench_results)'),
		0, "$version: no job and no run recorded");
}
else
{
	is($rc, 0, "$version: start() as a NOLOGIN role succeeds") or diag($err);
	wait_done($node, $out, "$version: its workers connected as the role and loaded", '120 s');
	is( $node->safe_psql('postgres',
			"SELECT started_by, (SELECT count(*) FROM usertable) FROM petagen.jobs WHERE job = $out"),
		"loaders|$rows", "$version: every row, started by the NOLOGIN role");
	is( $node->safe_psql(
			'postgres', qq{SET ROLE loaders;
SELECT operations > 0 AND errors = 0 AND not_found = 0
FROM petagen.bench('select', workers => 2, duration => '1 s', rows => $rows)}),
		't', "$version: bench() workers connect as the role and find every key");
}

$node->stop;
done_testing();
